# bernstein2020 Chapter 3: private learning of pairwise MRFs (naive MLE, CGM-EM, PSGD).
# Targets fig3_1 to fig3_6. Logic: dpinfer.studies.bernstein2020_ch3 (problems, run, wifi_run,
# summarise, figures, paper). One compute job per cell of a figure's grid; a cell job gets only
# its own settings (its model block, lambdas, and the CGM / PSGD blocks only if it runs them), so
# a PSGD tuning edit reruns only the cells that run PSGD.
validate_section(["bernstein2020", "chapter3"], "bernstein2020_ch3")
CH3 = section("bernstein2020", "chapter3")
CH3_DIR = f"{RESULTS}/bernstein2020/ch3"
CH3_LOGS = f"{LOGS}/bernstein2020/ch3"

for _fig in ("fig3_1", "fig3_2", "fig3_3", "fig3_5"):
    if CH3[_fig]["model"] not in CH3["models"]:
        config_error(f"bernstein2020.chapter3.{_fig}.model", f"{CH3[_fig]['model']!r} is not a key of chapter3.models")
for _m in CH3["fig3_4"]["models"]:
    if _m not in CH3["models"]:
        config_error("bernstein2020.chapter3.fig3_4.models", f"{_m!r} is not a key of chapter3.models")
for _name, _spec in CH3["models"].items():
    _need = "order" if _spec["structure"] == "chain" else "edge_probability"
    if _need not in _spec:
        config_error(f"bernstein2020.chapter3.models.{_name}", f"a {_spec['structure']} model needs '{_need}'")
_W = CH3["fig3_6"]
if max(_W["train_sizes"]) > int(_W["individuals"] * _W["train_fraction"]):
    config_error("bernstein2020.chapter3.fig3_6.train_sizes",
                 f"must not exceed the training split ({int(_W['individuals'] * _W['train_fraction'])} individuals)")

register_targets("bernstein2020", [(f"fig3_{i}", "figure") for i in range(1, 7)])


def _ch3_cell(name, model, states, n, epsilon, methods, lambdas=None, keep_marginals=False, releases=None):
    lams = dict(CH3["lambdas"], **(lambdas or {}))
    return {
        "name": name, "model": model, "spec": CH3["models"][model], "states": states, "n": n,
        "releases": releases or CH3["releases"],
        "epsilon": epsilon, "methods": methods, "lambdas": {m: lams[m] for m in methods if m in lams}
        | ({"naive": lams["naive"]} if "cgm" in methods else {}),
        "keep_marginals": keep_marginals,
        "cgm": CH3["cgm"] if "cgm" in methods else None,
        "psgd": CH3["psgd"] if "psgd" in methods else None,
    }


def _ch3_cells():
    cells = {f: {} for f in ("fig3_1", "fig3_2", "fig3_3", "fig3_4", "fig3_5")}
    f1, f2, f3, f4, f5 = (CH3[f] for f in cells)
    for n in f1["n_grid"]:
        for e in f1["epsilons"]:
            name = ch3_cell_name("fig3_1", n=n, epsilon=e)
            cells["fig3_1"][name] = _ch3_cell(f"fig3_1_{name}", f1["model"], f1["states"], n, e, ["naive"])
    for n in f2["n_grid"]:
        cells["fig3_2"][ch3_cell_name("fig3_2", n=n)] = _ch3_cell(f"fig3_2_n{n}", f2["model"], f2["states"], n, f2["epsilon"],
                                             ["naive", "naive_unprojected"], releases=f2.get("releases"))
    for lam in f3["lambdas"]:
        name = ch3_cell_name("fig3_3", lam=lam)
        cells["fig3_3"][name] = _ch3_cell(f"fig3_3_{name}", f3["model"], f3["states"], f3["n"], f3["epsilon"],
                                          ["naive", "nonprivate"], {"naive": lam, "nonprivate": lam})
    for model in f4["models"]:
        for n in f4["n_grid"]:
            cells["fig3_4"][ch3_cell_name("fig3_4", model=model, n=n)] = _ch3_cell(f"fig3_4_{model}_n{n}_ref", model, f4["states"], n, None,
                                                             ["nonprivate", "random"], releases=f4.get("releases"))
            for e in f4["epsilons"]:
                name = ch3_cell_name("fig3_4", model=model, n=n, epsilon=e)
                cells["fig3_4"][name] = _ch3_cell(f"fig3_4_{name}", model, f4["states"], n, e, ["naive", "cgm", "psgd"],
                                                  releases=f4.get("releases"))
    cells["fig3_5"][ch3_cell_name("fig3_5")] = _ch3_cell("fig3_5", f5["model"], f5["states"], f5["n"], f5["epsilon"],
                                        ["naive", "cgm", "nonprivate"], keep_marginals=True, releases=f5.get("releases"))
    return cells


CH3_CELLS = _ch3_cells()
CH3_WIFI_CELLS = {
    ch3_cell_name("fig3_6", n=s, epsilon=e): {"train_size": s, "epsilon": e}
    for s in _W["train_sizes"] for e in [None] + list(_W["epsilons"])
}
CH3_RUN_FILES = [f"{CH3_DIR}/runs/{f}/{c}.npz" for f in CH3_CELLS for c in CH3_CELLS[f]] + [
    f"{CH3_DIR}/runs/fig3_6/{c}.npz" for c in CH3_WIFI_CELLS
]
# the wifi cells read the data settings only through the data job's output
CH3_WIFI_FIT = {"lambdas": CH3["lambdas"], "cgm": CH3["cgm"], "psgd": CH3["psgd"], "releases": _W["releases"]}


rule bernstein2020_ch3_run_cell:
    output:
        cell=f"{CH3_DIR}/runs/{{figure}}/{{cell}}.npz",
    log:
        f"{CH3_LOGS}/runs/{{figure}}_{{cell}}.log",
    wildcard_constraints:
        figure="fig3_[1-5]",
    resources:
        runtime=20,
    params:
        step=step("bernstein2020_ch3.run:run_cell"),
        seed=config["seed"],
        cell=lookup(dpath="{figure}/{cell}", within=CH3_CELLS),
        nodes=CH3["nodes"],
        populations=CH3["populations"],
        records_max_n=CH3["records_max_n"],
    script:
        STEP_SCRIPT


rule bernstein2020_ch3_run_wifi_data:
    output:
        data=f"{CH3_DIR}/wifi/data.npz",
    log:
        f"{CH3_LOGS}/wifi_data.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch3.wifi_run:wifi_data"),
        seed=config["seed"],
        individuals=_W["individuals"],
        train_fraction=_W["train_fraction"],
        locations=_W["locations"],
    script:
        STEP_SCRIPT


rule bernstein2020_ch3_run_wifi_cell:
    input:
        data=rules.bernstein2020_ch3_run_wifi_data.output.data,
    output:
        cell=f"{CH3_DIR}/runs/fig3_6/{{cell}}.npz",
    log:
        f"{CH3_LOGS}/runs/fig3_6_{{cell}}.log",
    resources:
        runtime=20,
    params:
        step=step("bernstein2020_ch3.wifi_run:wifi_cell"),
        seed=config["seed"],
        cell=lookup(dpath="{cell}", within=CH3_WIFI_CELLS),
        fit=CH3_WIFI_FIT,
    script:
        STEP_SCRIPT


rule bernstein2020_ch3_summarise:
    input:
        runs=CH3_RUN_FILES,
        data=rules.bernstein2020_ch3_run_wifi_data.output.data,
    output:
        summary=f"{CH3_DIR}/summary.npz",
        csv=f"{CH3_DIR}/summary.csv",
        md=f"{CH3_DIR}/summary.md",
        runtime_csv=f"{CH3_DIR}/runtime.csv",
        runtime_md=f"{CH3_DIR}/runtime.md",
    log:
        f"{CH3_LOGS}/summarise.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch3.summarise:summarise"),
    script:
        STEP_SCRIPT


rule bernstein2020_fig3_1:
    input:
        summary=rules.bernstein2020_ch3_summarise.output.summary,
    output:
        pdf=f"{RESULTS}/bernstein2020/fig3_1.pdf",
        png=report(
            f"{RESULTS}/bernstein2020/fig3_1.png",
            category="bernstein2020",
            subcategory="figures",
            caption="../report/bernstein2020/fig3_1.rst",
        ),
    log:
        f"{LOGS}/bernstein2020/fig3_1.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch3.figures:fig3_1"),
        settings=CH3["fig3_1"],
    script:
        STEP_SCRIPT


rule bernstein2020_fig3_2:
    input:
        summary=rules.bernstein2020_ch3_summarise.output.summary,
    output:
        pdf=f"{RESULTS}/bernstein2020/fig3_2.pdf",
        png=report(
            f"{RESULTS}/bernstein2020/fig3_2.png",
            category="bernstein2020",
            subcategory="figures",
            caption="../report/bernstein2020/fig3_2.rst",
        ),
    log:
        f"{LOGS}/bernstein2020/fig3_2.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch3.figures:fig3_2"),
        settings=CH3["fig3_2"],
    script:
        STEP_SCRIPT


rule bernstein2020_fig3_3:
    input:
        summary=rules.bernstein2020_ch3_summarise.output.summary,
    output:
        pdf=f"{RESULTS}/bernstein2020/fig3_3.pdf",
        png=report(
            f"{RESULTS}/bernstein2020/fig3_3.png",
            category="bernstein2020",
            subcategory="figures",
            caption="../report/bernstein2020/fig3_3.rst",
        ),
    log:
        f"{LOGS}/bernstein2020/fig3_3.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch3.figures:fig3_3"),
        settings=CH3["fig3_3"],
    script:
        STEP_SCRIPT


rule bernstein2020_fig3_4:
    input:
        summary=rules.bernstein2020_ch3_summarise.output.summary,
    output:
        pdf=f"{RESULTS}/bernstein2020/fig3_4.pdf",
        png=report(
            f"{RESULTS}/bernstein2020/fig3_4.png",
            category="bernstein2020",
            subcategory="figures",
            caption="../report/bernstein2020/fig3_4.rst",
        ),
    log:
        f"{LOGS}/bernstein2020/fig3_4.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch3.figures:fig3_4"),
        settings=CH3["fig3_4"],
    script:
        STEP_SCRIPT


rule bernstein2020_fig3_5:
    input:
        summary=rules.bernstein2020_ch3_summarise.output.summary,
    output:
        pdf=f"{RESULTS}/bernstein2020/fig3_5.pdf",
        png=report(
            f"{RESULTS}/bernstein2020/fig3_5.png",
            category="bernstein2020",
            subcategory="figures",
            caption="../report/bernstein2020/fig3_5.rst",
        ),
    log:
        f"{LOGS}/bernstein2020/fig3_5.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch3.figures:fig3_5"),
        settings=CH3["fig3_5"],
    script:
        STEP_SCRIPT


rule bernstein2020_fig3_6:
    input:
        summary=rules.bernstein2020_ch3_summarise.output.summary,
    output:
        pdf=f"{RESULTS}/bernstein2020/fig3_6.pdf",
        png=report(
            f"{RESULTS}/bernstein2020/fig3_6.png",
            category="bernstein2020",
            subcategory="figures",
            caption="../report/bernstein2020/fig3_6.rst",
        ),
    log:
        f"{LOGS}/bernstein2020/fig3_6.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch3.figures:fig3_6"),
        settings=CH3["fig3_6"],
    script:
        STEP_SCRIPT


rule bernstein2020_ch3_claims:
    input:
        summary=rules.bernstein2020_ch3_summarise.output.summary,
    output:
        claims=f"{RESULTS}/bernstein2020/claims/bernstein2020_ch3.csv",
    log:
        f"{CH3_LOGS}/claims.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch3.paper:claims"),
        settings={k: CH3[k] for k in ("fig3_1", "fig3_2", "fig3_3", "fig3_4", "fig3_5", "fig3_6", "populations", "releases")},
    script:
        STEP_SCRIPT


register_claims(rules.bernstein2020_ch3_claims.output.claims)
