# Helpers shared by the study rule files: target registry, chunking, seeds, config checks.
# Logic lives in dpinfer.pipeline so tests reach it; this file only wires it to the config.
import os

from dpinfer.pipeline import chunk_replicates, fmt_eps, n_chunks, target_paths

RESULTS = "results"
LOGS = "logs"
STEP_SCRIPT = "../scripts/run_step.py"

# study -> list of (target id, kind); each study file registers its own targets
TARGETS = {}


def register_targets(study, pairs):
    TARGETS.setdefault(study, []).extend(pairs)


def study_enabled(study):
    """A study runs when its config section is present and not switched off."""
    return study in config and config[study].get("enabled", True)


def all_targets():
    paths = []
    for study in sorted(TARGETS):
        if study_enabled(study):
            for target_id, kind in TARGETS[study]:
                paths.extend(target_paths(study, target_id, kind, RESULTS))
    return paths


def config_error(key, message):
    """Refuse a config before any job runs, naming the offending key."""
    raise ValueError(f"invalid config: '{key}': {message}")
