# Bayesian inference from privatized data: every figure and table of five source documents.
# Paper scale:  snakemake --cores 2
# Smoke scale:  snakemake --cores 2 --configfile config/smoke.yaml
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"


validate_section([], "workflow/schemas/config.schema.yaml")


include: "workflow/rules/ju2022.smk"
include: "workflow/rules/bernstein2020.smk"
include: "workflow/rules/raim2021.smk"


rule all:
    default_target: True
    input:
        all_targets(),
