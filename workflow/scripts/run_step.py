# Thin adapter: every rule's script. All logic lives in dpinfer (see dpinfer.pipeline.run_step).
from dpinfer.pipeline import run_step

run_step(snakemake)  # noqa: F821  (injected by Snakemake)
