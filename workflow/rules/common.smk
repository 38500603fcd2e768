# Generic helpers shared by every study file: which studies run, target and claim registries, config
# checks that name the key, and parse-time step names. Study globals, checks and input functions
# live in each study's own rule file. Only pure-Python modules of the package are imported here,
# so parsing the workflow never loads numba, scipy or matplotlib.
import os
import re

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from dpinfer.grid import chunk_range, fmt_eps, n_chunks, target_paths
from dpinfer.pipeline import resolve_step

RESULTS = "results"
LOGS = "logs"
STEP_SCRIPT = "../scripts/run_step.py"  # relative to the rule files

# study -> [(target id, kind)], filled by each study rule file
TARGETS = {}
# claim tables of the enabled study units: the scorecard's inputs
CLAIMS = []


def enabled(*keys):
    """A study (or a chapter of one) runs when its config section is present and no section
    on the way to it says ``enabled: false``."""
    node = config
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
        if isinstance(node, dict) and node.get("enabled", True) is False:
            return False
    return True


def register_targets(study, pairs):
    TARGETS.setdefault(study, []).extend(pairs)


def register_claims(path):
    CLAIMS.append(path)


def all_targets():
    paths = []
    for study in sorted(TARGETS):
        for target_id, kind in TARGETS[study]:
            paths.extend(target_paths(study, target_id, kind, RESULTS))
    return paths


def config_error(key, message):
    """Refuse a config before any job runs, naming the offending key."""
    raise WorkflowError(f"invalid config: '{key}': {message}")


def section(*keys):
    """The config section at keys (the caller has checked that it is enabled)."""
    node = config
    for key in keys:
        node = node[key]
    return node


def validate_section(keys, schema_name):
    """Validate the section at ``keys`` against workflow/schemas/<schema_name>.schema.yaml,
    filling defaults; on failure raise one message that names the full dotted key."""
    schema = os.path.join(workflow.basedir, "workflow", "schemas", f"{schema_name}.schema.yaml")
    try:
        validate(section(*keys), schema)
    except WorkflowError as err:
        text = str(err)
        reason = re.search(r"ValidationError: (.*)", text)
        where = re.search(r"On instance((?:\[[^\]]*\])*)", text)
        inner = re.findall(r"\[(?:'([^']*)'|(\d+))\]", where.group(1)) if where else []
        dotted = ".".join(list(keys) + [a or b for a, b in inner])
        config_error(dotted or "<top level>", reason.group(1) if reason else text)


def step(name):
    """A rule's step name, checked now: a misspelt step fails the dry run."""
    try:
        return resolve_step(name)
    except ValueError as err:
        raise WorkflowError(f"invalid step name: {err}") from None


def wildcard_int(name):
    """Param function: the wildcard ``name`` as an int."""

    def value(wildcards):
        return int(wildcards[name])

    return value


def wildcard_float(name):
    """Param function: the wildcard ``name`` as a float."""

    def value(wildcards):
        return float(wildcards[name])

    return value


def chunk_ids(n_replicates, chunk_size):
    """The chunk indices that cover n_replicates replicates."""
    return range(n_chunks(n_replicates, chunk_size))
