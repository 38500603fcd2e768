# The fidelity scorecard: every enabled study unit's claims (its paper.py) in one table, and the
# results summary rendered from it (verdict counts and headline rows; README's block is rendered
# from its paper-scale snapshot, docs/results-digest.json). The report shows the scorecard and every
# table as an HTML page (dpinfer.studies.report_pages; a table's page rule is in its study's file).


rule fidelity:
    input:
        claims=CLAIMS,
        deviations="docs/deviations.md",
    output:
        md=f"{RESULTS}/fidelity.md",
        csv=f"{RESULTS}/fidelity.csv",
        # the report's page of it; its category sorts before every "Study <name>" in the
        # report's menu
        html=report(
            f"{RESULTS}/fidelity.html",
            category="Fidelity scorecard",
            caption="../report/fidelity.rst",
        ),
    log:
        f"{LOGS}/fidelity.log",
    params:
        step=step("scorecard:fidelity"),
    script:
        STEP_SCRIPT


rule results_summary:
    input:
        fidelity=rules.fidelity.output.csv,
        releases=RELEASE_DIGESTS,
        targets=all_targets(),  # last: it counts the targets built
    output:
        md=f"{RESULTS}/summary.md",
        json=f"{RESULTS}/summary.json",
    log:
        f"{LOGS}/results_summary.log",
    params:
        step=step("results_summary:summary"),
        # study -> the files of each of its targets (a target is built when all of them exist)
        targets=target_files(),
    script:
        STEP_SCRIPT
