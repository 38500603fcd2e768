# bernstein2020 Chapter 3: private learning of pairwise MRFs (naive MLE, CGM-EM, PSGD).
# Targets fig3_1 to fig3_6. Logic: dpinfer.studies.bernstein2020_ch3 (grid, problems, run,
# wifi_run, summarise, figures, paper). One compute job per cell of a figure's grid; a cell job
# gets only its own settings (its model block, lambdas, and the CGM / PSGD blocks only if it runs
# them), so a PSGD tuning edit reruns only the cells that run PSGD.

from dpinfer.studies.bernstein2020_ch3.grid import ch3_cell_name, ch3_cells

validate_section(["bernstein2020", "chapter3"], "bernstein2020_ch3")
CH3 = section("bernstein2020", "chapter3")
CH3_DIR = f"{RESULTS}/bernstein2020/ch3"
CH3_LOGS = f"{LOGS}/bernstein2020/ch3"

check_config("bernstein2020_ch3", CH3)
_W = CH3["fig3_6"]

# the figures (targets.smk makes their rules): each draws from the chapter's summary
for _fig in ("fig3_1", "fig3_2", "fig3_3", "fig3_4", "fig3_5", "fig3_6"):
    figure(
        "bernstein2020",
        _fig,
        f"bernstein2020_ch3.figures:{_fig}",
        {"summary": f"{CH3_DIR}/summary.npz"},
        settings=CH3[_fig],
    )


# figure -> cell stem -> the settings of that cell's job
CH3_CELLS = ch3_cells(CH3)
CH3_WIFI_CELLS = {
    ch3_cell_name("fig3_6", n=s, epsilon=e): {"train_size": s, "epsilon": e}
    for s in _W["train_sizes"]
    for e in [None] + list(_W["epsilons"])
}
CH3_RUN_FILES = [f"{CH3_DIR}/runs/{f}/{c}.npz" for f in CH3_CELLS for c in CH3_CELLS[f]] + [
    f"{CH3_DIR}/runs/fig3_6/{c}.npz" for c in CH3_WIFI_CELLS
]
# the wifi cells read the data settings only through the data job's output
CH3_WIFI_FIT = {
    "lambdas": CH3["lambdas"],
    "cgm": CH3["cgm"],
    "psgd": CH3["psgd"],
    "releases": _W["releases"],
}


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
        settings=CH3,
    script:
        STEP_SCRIPT


register_claims(rules.bernstein2020_ch3_claims.output.claims)
