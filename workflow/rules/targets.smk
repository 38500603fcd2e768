# The rules of every figure and table target, one per row of TARGET_RULES: figure() and table()
# (common.smk) fill it where each study file says how a target is built. A figure's rule writes
# its pdf and png (the png in the report); a table's rule its csv and md, and its page rule the
# HTML page the report shows (a table written by another rule of its study gets the page only).


for _t in TARGET_RULES:
    if _t["step"]:

        rule:
            name:
                _t["name"]
            input:
                **_t["input"],
            output:
                **{
                    k: report(v, **_t["report"]) if k == "png" else v
                    for k, v in _t["output"].items()
                },
            log:
                f"{_t['log']}.log",
            resources:
                runtime=5,
            params:
                **_t["params"],
                step=_t["step"],
            script:
                STEP_SCRIPT

    if _t["kind"] == "table":

        rule:
            name:
                f"{_t['name']}_page"
            input:
                **_t["output"],
            output:
                html=report(_t["output"]["csv"].removesuffix(".csv") + ".html", **_t["report"]),
            log:
                f"{_t['log']}_page.log",
            resources:
                runtime=5,
            params:
                step=step("report_pages:table_page"),
            script:
                STEP_SCRIPT
