# The fidelity scorecard: every enabled study unit's claims (its paper.py) in one table.


rule fidelity:
    input:
        claims=CLAIMS,
        deviations="docs/deviations.md",
    output:
        md=report(
            f"{RESULTS}/fidelity.md",
            category="Fidelity scorecard",
            caption="../report/fidelity.rst",
        ),
        csv=f"{RESULTS}/fidelity.csv",
    log:
        f"{LOGS}/fidelity.log",
    params:
        step=step("scorecard:fidelity"),
    script:
        STEP_SCRIPT
