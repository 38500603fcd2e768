# Generic helpers shared by every study file: which studies run, target and claim registries, config
# checks that name the key, and parse-time step names. Study globals, checks and input functions
# live in each study's own rule file. Only pure-Python modules of the package are imported here,
# so parsing the workflow never loads numba, scipy or matplotlib.
import json
import os
import re
import sys
import time

import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from dpinfer.bytecode import compile_package
from dpinfer.config_checks import dotted, overridden_keys, strict_error, yaml_syntax_error
from dpinfer.grid import chunk_range, fmt_eps, n_chunks, target_paths
from dpinfer.io import read_json, write_json
from dpinfer.job_cost import write_profile
from dpinfer.pipeline import resolve_step
from dpinfer.run_lock import clear_stale_locks, forget_run, record_run
from dpinfer.scheduler_timer import cancel_pending
from dpinfer.smoke_scale import SMOKE_KEY, SmokeRuleError, shrink
from dpinfer.study_config_checks import problems as config_problems

RESULTS = "results"
LOGS = "logs"
STEP_SCRIPT = "../scripts/run_step.py"  # relative to the rule files

# study -> [(target id, kind)], filled by figure() and table() below
TARGETS = {}
# one row per figure or table target: how its rule builds it (targets.smk makes the rules)
TARGET_RULES = []
# claim tables of the enabled study units: the scorecard's inputs
CLAIMS = []
# digests of the releases section's posteriors: a line each in results/summary.md
RELEASE_DIGESTS = []


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


def figure(study, target_id, step_name, input, *, extra_outputs=None, report_as=None, **params):
    """Target ``target_id`` of ``study``, a figure: the step ``step_name`` draws its pdf and png
    from ``input`` (named files) with ``params``; ``extra_outputs`` names files it writes beside
    them. The one place that says how the target is built (targets.smk makes its rule).
    ``report_as``: (caption stem, report subcategory) when not (target_id, "figures")."""
    _target_rule(study, target_id, "figure", step_name, input, params, extra_outputs, report_as)


def table(study, target_id, step_name=None, input=None, *, report_as=None, **params):
    """Target ``target_id`` of ``study``, a table: the step ``step_name`` writes its csv and md
    from ``input`` with ``params`` (no step: another rule of the study writes them), and the
    report shows them as an HTML page (dpinfer.studies.report_pages)."""
    if (step_name is None) != (input is None):
        raise ValueError(f"table {study}/{target_id}: give both step_name and input, or neither")
    _target_rule(study, target_id, "table", step_name, input or {}, params, None, report_as)


def _target_rule(study, target_id, kind, step_name, input, params, extra_outputs, report_as):
    caption, subcategory = report_as or (target_id, f"{kind}s")
    TARGETS.setdefault(study, []).append((target_id, kind))
    stem = f"{RESULTS}/{study}/{target_id}"
    TARGET_RULES.append(
        {
            "name": re.sub(r"\W", "_", f"{study}_{target_id}"),  # experiments/x -> experiments_x
            "kind": kind,
            "step": step(step_name) if step_name else None,
            "input": dict(input),
            "params": params,
            "output": (
                {"pdf": f"{stem}.pdf", "png": f"{stem}.png", **(extra_outputs or {})}
                if kind == "figure"
                else {"csv": f"{stem}.csv", "md": f"{stem}.md"}
            ),
            "report": {
                "category": f"Study {study}",
                "subcategory": subcategory,
                "caption": f"../report/{study}/{caption}.rst",
            },
            "log": f"{LOGS}/{study}/{target_id}",
        }
    )


def register_claims(path):
    CLAIMS.append(path)


def all_targets():
    return [path for groups in target_files().values() for paths in groups for path in paths]


def target_files():
    """study -> the file list of each registered target."""
    return {
        study: [target_paths(study, target_id, kind, RESULTS) for target_id, kind in TARGETS[study]]
        for study in sorted(TARGETS)
    }


def user_file(source):
    """A file a user gives (an own-data CSV, a release), as an input of the jobs that read it, so
    an edit reruns them and what they feed. A ``statsmodels:`` source has no file; a missing file
    is left out so that the job refuses it in one line naming it (Snakemake's missing-input error
    would not)."""
    return [] if source.startswith("statsmodels:") or not os.path.isfile(source) else [source]


def refuse(message):
    """Stop before any job runs with ``message`` first (no traceback into the rule files)."""
    print(f"\n{message}\n", file=sys.stderr)
    raise SystemExit(1)


def config_error(key, message):
    """Refuse a config before any job runs, naming the offending key."""
    refuse(f"invalid config: '{key}': {message}")


def check_config(unit, cfg):
    """Refuse the first problem of the study unit's config section that its schema cannot see
    (dpinfer.study_config_checks: keys that must agree, files that must exist), naming its key."""
    for key, message in config_problems(unit, cfg):
        config_error(key, message)


def check_yaml(path):
    """Refuse a config file that is not valid YAML, naming its file and line."""
    problem = yaml_syntax_error(path)
    if problem:
        refuse(f"invalid config file {problem}")


def note_overrides(base_path):
    """Say which settings of the base config file the --configfile files replace: an edit of
    config.yaml under those keys has no effect in this run."""
    files = [str(f) for f in getattr(workflow, "overwrite_configfiles", None) or []]
    if not files:
        return
    with open(base_path, encoding="utf-8") as fh:
        keys = overridden_keys(yaml.safe_load(fh) or {}, config)
    if keys:
        shown = ", ".join(keys[:4]) + (", ..." if len(keys) > 4 else "")
        print(
            f"dpinfer: {', '.join(files)} replaces {len(keys)} settings of {base_path} "
            f"({shown}); edits of those keys in {base_path} have no effect in this run.",
            file=sys.stderr,
        )


def apply_smoke_scale():
    """Shrink the config by the rules under ``smoke`` (config/smoke.yaml, given with
    --configfile): the user's settings, capped and thinned, so their edits take effect."""
    rules = config.pop(SMOKE_KEY, None)
    if rules is None:
        return
    try:
        shrunk = shrink(config, rules)
    except SmokeRuleError as err:
        config_error(f"{SMOKE_KEY}.{err.key}", err.reason)
    changed = overridden_keys(config, shrunk)
    config.clear()
    config.update(shrunk)
    print(
        "dpinfer: smoke scale: the rules of config/smoke.yaml shrink "
        f"{len(changed)} settings of your config (caps and thinned grids); your other "
        "settings and every value you add to a grid run as written.",
        file=sys.stderr,
    )


RUN_STARTED = time.time()


def write_cost_profile():
    """After a successful run: results/cost.{md,csv} from every job's cost record (its log) and
    this Snakemake process's own CPU time."""
    write_profile(LOGS, RESULTS, RUN_STARTED, workflow.cores, workflow_cpu=time.process_time())


RUN_CONFIG = f"{RESULTS}/.dpinfer-run-config.json"


def run_config():
    files = [str(f) for f in getattr(workflow, "overwrite_configfiles", None) or []]
    return {"configfiles": files, "config": config}


def record_run_config():
    """After a successful run: which config built results/ (the report checks it)."""
    write_json(RUN_CONFIG, run_config())


def check_report_config():
    """Refuse `snakemake --report` with another config than the one that built results/
    (it would package the other scale's files and warn about every missing one)."""
    if not any(a == "--report" or a.startswith("--report=") for a in sys.argv):
        return
    if not os.path.exists(RUN_CONFIG):
        return
    built = read_json(RUN_CONFIG)
    if json.loads(json.dumps(config)) != built["config"]:
        files = (
            " ".join(f"--configfile {f}" for f in built["configfiles"])
            or "(config/config.yaml only)"
        )
        refuse(
            "results/ were built with another config than this report command's: run the "
            f"report with the config of that run, {files}, e.g. "
            f"snakemake --report report.html {files if built['configfiles'] else ''}".rstrip()
        )


def clear_locks_of_a_killed_run():
    pid = clear_stale_locks()
    if pid is not None:
        print(
            f"dpinfer: removed the locks left by a killed run (process {pid}); resuming.",
            file=sys.stderr,
        )


def section(*keys):
    """The config section at keys (the caller has checked that it is enabled)."""
    node = config
    for key in keys:
        node = node[key]
    return node


def validate_section(keys, schema_name):
    """Validate the section at ``keys`` against workflow/schemas/<schema_name>.schema.yaml,
    filling defaults, then strictly (whole numbers without a decimal point, finite numbers);
    on failure refuse with one message that names the full dotted key."""
    schema = os.path.join(workflow.basedir, "workflow", "schemas", f"{schema_name}.schema.yaml")
    try:
        validate(section(*keys), schema)
    except WorkflowError as err:
        text = str(err)
        reason = re.search(r"ValidationError: (.*)", text)
        where = re.search(r"On instance((?:\[[^\]]*\])*)", text)
        inner = re.findall(r"\[(?:'([^']*)'|(\d+))\]", where.group(1)) if where else []
        config_error(
            dotted(list(keys) + [a or b for a, b in inner]), reason.group(1) if reason else text
        )
    strict = strict_error(section(*keys), schema)
    if strict:
        config_error(dotted(list(keys) + strict[0]), strict[1])


def step(name):
    """A rule's step name, checked now: a misspelt step fails the dry run."""
    try:
        return resolve_step(name)
    except ValueError as err:
        refuse(f"invalid step name: {err}")


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
