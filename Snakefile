# Bayesian inference from privatized data: every figure and table of five source documents.
# Paper scale:  snakemake --cores 2
# Smoke scale:  snakemake --cores 2 --configfile config/smoke.yaml  (shrinks config.yaml's settings)
# A study (or chapter) runs when its config section is present and not `enabled: false`.
from snakemake.utils import min_version

min_version("9.0")


# the HTML report's landing page (snakemake --report): what it is, where to start
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"


check_yaml("config/config.yaml")


configfile: "config/config.yaml"


note_overrides("config/config.yaml")
apply_smoke_scale()  # config/smoke.yaml: rules that shrink the config above, not values
validate_section([], "config")
clear_locks_of_a_killed_run()

if enabled("ju2022"):

    include: "workflow/rules/ju2022.smk"


if enabled("bernstein2020", "chapter3"):

    include: "workflow/rules/bernstein2020_ch3.smk"


if enabled("bernstein2020", "chapter4"):

    include: "workflow/rules/bernstein2020_ch4.smk"


if enabled("bernstein2020", "chapter5"):

    include: "workflow/rules/bernstein2020_ch5.smk"


if enabled("bernstein2020", "case_study"):

    include: "workflow/rules/bernstein2020_case.smk"


if enabled("raim2021"):

    include: "workflow/rules/raim2021.smk"


if enabled("raisa2021"):

    include: "workflow/rules/raisa2021.smk"


if enabled("comparison"):

    include: "workflow/rules/comparison.smk"


if enabled("own_data"):

    include: "workflow/rules/own_data.smk"


if enabled("releases"):

    include: "workflow/rules/releases.smk"


include: "workflow/rules/targets.smk"  # every figure and table the studies above declare
include: "workflow/rules/scorecard.smk"


check_report_config()  # after every section's defaults are filled in


onstart:
    record_run()
    compile_package()


onsuccess:
    cancel_pending()  # the scheduler's pending re-evaluation timers: exit now, not a timespan later
    forget_run()
    record_run_config()
    write_cost_profile()


onerror:
    cancel_pending()
    forget_run()


rule all:
    default_target: True
    input:
        # the HTML report's menu sorts categories by name: "Fidelity scorecard" comes before every
        # "Study <unit>" (tests/test_report.py)
        rules.fidelity.output,
        rules.results_summary.output,
        all_targets(),
