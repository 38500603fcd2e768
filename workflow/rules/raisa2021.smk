# raisa2021: Räisä (MSc thesis 2021), differentially private MCMC: DP penalty, DP HMC,
# minibatch DP penalty, DP Barker, and the non-DP clipping study.
# Logic: dpinfer.studies.raisa2021 (settings, run, clipping, summarise, figures, paper,
# chain_claims); the thesis's settings: its settings.yaml.
# This file: the unit's config checks and shared globals, one include per stage, the claims.
# Stages (each figure rule beside the rule it reads):
#   raisa2021_models.smk       raisa2021_run_reference (one model: data, reference draws,
#                              baselines, starts, contours) -> fig5_1; the params file -> tab5_1
#   raisa2021_chains.smk       raisa2021_run_chains (one model x algorithm x epsilon: every chain,
#                              its metrics) -> raisa2021_summarise -> fig6_3 .. fig6_8
#   raisa2021_clipping.smk     raisa2021_run_clipping_reference (one dimension)
#                              -> raisa2021_run_clipping (one sampler x dimension x bound)
#                              -> raisa2021_summarise_clipping -> fig6_2
#   raisa2021_accountants.smk  raisa2021_run_accountants -> fig6_1
#   raisa2021_trajectory.smk   raisa2021_run_trajectory -> fig4_1
#   here                       every stage's output -> raisa2021_claims (the scorecard rows)
# Every job gets only the numbers it reads (its model's data spec, its algorithm's
# hyperparameters), taken from the params file at parse time by dpinfer.studies.raisa2021.settings.

from dpinfer.studies.raisa2021.settings import load_params, model_spec

validate_section(["raisa2021"], "raisa2021")
RAISA = config["raisa2021"]
RAISA_DIR = f"{RESULTS}/raisa2021"
RAISA_LOGS = f"{LOGS}/raisa2021"
check_config("raisa2021", RAISA)
RAISA_PARAMS = load_params(RAISA["params"])
# gradient releases per DP HMC iteration follow the version: kL + 1 ("seed", Theorem 11 as
# printed) or k(L + 1) ("head")
RAISA_HMC = RAISA["version"]

# the models (raisa2021_models.smk, raisa2021_chains.smk)
RAISA_MODELS = "|".join(re.escape(m) for m in RAISA["models"])
# parse-time value of one job's wildcards
raisa2021_spec = lambda wildcards: model_spec(RAISA_PARAMS, wildcards.model, RAISA["data_fraction"])

# the clipping study (raisa2021_clipping.smk)
RAISA_CLIP = RAISA["clipping"]


include: "raisa2021_models.smk"
include: "raisa2021_chains.smk"
include: "raisa2021_clipping.smk"
include: "raisa2021_accountants.smk"
include: "raisa2021_trajectory.smk"


rule raisa2021_claims:
    input:
        summary=rules.raisa2021_summarise.output.summary,
        curves=rules.raisa2021_run_accountants.output.curves,
        references=expand(f"{RAISA_DIR}/models/{{model}}.npz", model=RAISA["models"]),
        trajectory=rules.raisa2021_run_trajectory.output.trajectory,
        clipping=rules.raisa2021_summarise_clipping.output.summary,
    output:
        claims=f"{RESULTS}/raisa2021/claims/raisa2021.csv",
    log:
        f"{RAISA_LOGS}/claims.log",
    params:
        step=step("raisa2021.paper:claims"),
        # the config section: every claim records the settings its thesis value refers to
        # (dpinfer.studies.raisa2021.paper.run_settings) beside the thesis's; a row at another
        # setting is not comparable
        section=RAISA,
        specs={m: model_spec(RAISA_PARAMS, m, RAISA["data_fraction"]) for m in RAISA["models"]},
    script:
        STEP_SCRIPT


register_claims(rules.raisa2021_claims.output.claims)
