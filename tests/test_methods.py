"""The one method vocabulary (dpinfer.methods) and the one sampler contract (the registry).

A method named in the config leads to its sampler function in one step (its ``runs`` entry),
every registered method is called as ``run(problem, rng, *, burnin, keep, **options)``, studies
reach samplers only through the registry, the package's import graph has no cycle and no
private name crosses a module boundary.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from dpinfer.methods import METHODS, method, sampler_path, stream_stage
from dpinfer.samplers.registry import SAMPLERS, dp_chain_lengths, options_of, sampler
from tests.configs import config

SRC = Path(__file__).resolve().parents[1] / "src" / "dpinfer"


def _config_methods(cfg: dict) -> set[str]:
    """Every method name the config lists, study by study."""
    b = cfg["bernstein2020"]
    names = {cfg["ju2022"][m]["sampler"] for m in ("loglinear", "linreg")}
    names |= set(b["chapter5"]["methods"]) | set(b["chapter5"]["cirrhosis"]["methods"])
    names |= set(b["case_study"]["methods"])
    names |= set(cfg["comparison"]["binomial"]["methods"])
    names |= set(cfg["comparison"]["regression"]["methods"])
    return names | set(cfg["raisa2021"]["algorithms"])


def test_every_method_the_config_names_is_in_the_table_with_a_sampler():
    names = _config_methods(config("paper"))
    assert names <= set(METHODS), names - set(METHODS)
    assert all(METHODS[n].runs for n in names), [n for n in names if not METHODS[n].runs]


@pytest.mark.parametrize("key", sorted(SAMPLERS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_a_method_leads_to_its_sampler_function_in_one_step(key):
    """``runs`` names the module and the function; the module defines it (not an import), and
    the registry hands out that very function (no wrapper between a study and the sampler)."""
    module, name = sampler_path(*key).split(":")
    mod = importlib.import_module(f"dpinfer.samplers.{module}")
    tree = ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert name in defined, f"{name} is not defined in dpinfer/samplers/{module}.py"
    assert SAMPLERS[key] is getattr(mod, name)


def contract_violations(run) -> list[str]:
    """How ``run``'s own signature departs from ``run(problem, rng, *, burnin, keep, **options)``
    with every option keyword-only and typed (an annotation) and no catch-all."""
    params = list(inspect.signature(run).parameters.values())
    out = []
    head = [(p.name, p.kind) for p in params[:2]]
    if head != [("problem", P.POSITIONAL_OR_KEYWORD), ("rng", P.POSITIONAL_OR_KEYWORD)]:
        out.append(f"starts {head}, not (problem, rng)")
    rest = params[2:]
    if [p.name for p in rest[:2]] != ["burnin", "keep"]:
        out.append(f"keyword arguments start {[p.name for p in rest[:2]]}, not burnin, keep")
    for p in rest:
        if p.kind is not P.KEYWORD_ONLY:
            out.append(f"{p.name} is {p.kind.name}, not keyword-only")
        elif p.annotation is P.empty:
            out.append(f"option {p.name} has no type")
    return out


P = inspect.Parameter


@pytest.mark.parametrize("key", sorted(SAMPLERS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_every_registered_function_itself_has_the_contract(key):
    assert contract_violations(SAMPLERS[key]) == []


def test_the_contract_check_fails_on_a_wrong_signature():
    def positional(released, n, prior, *, burnin: int, keep: int, rng):
        """the pre-contract shape: the data spread over positional arguments, an untyped rng"""

    def catch_all(problem, rng, *, burnin: int, keep: int, **options):
        """options that nobody can read off the signature"""

    def untyped(problem, rng, *, burnin: int, keep: int, thin=1):
        """an option without its type"""

    assert contract_violations(positional)[0].startswith("starts [('released'")
    assert contract_violations(catch_all) == ["options is VAR_KEYWORD, not keyword-only"]
    assert contract_violations(untyped) == ["option thin has no type"]


def test_the_iid_methods_are_those_whose_samplers_draw_independently():
    """The table's ``iid`` column (no burn-in, no chain diagnostics) is true exactly for the
    methods whose every sampler draws independently: a conjugate or exact posterior
    (samplers/conjugate.py) or OPS's tempered posterior (samplers/ops.py)."""
    iid = {m.name for m in METHODS.values() if m.iid}
    independent = {
        m.name
        for m in METHODS.values()
        if m.runs and all(p.split(":")[0] in ("conjugate", "ops") for p in m.runs.values())
    }
    assert iid == independent == {"non_private", "naive", "exact", "ops"}


def test_an_unknown_method_or_model_is_refused_by_name():
    with pytest.raises(KeyError, match="no_such_method"):
        method("no_such_method")
    with pytest.raises(ValueError, match="no sampler 'ops' for model 'multinomial'"):
        sampler("multinomial", "ops")


def test_streams_keep_their_historical_names():
    """The seed-key stages each study used before the table: changing one changes results."""
    assert stream_stage("non_private", 0, study="bernstein2020_ch4") == "sample_nonprivate"
    assert stream_stage("non_private", 2) == "sample_non_private_chain2"
    assert stream_stage("gibbs", study="bernstein2020_ch4") == "sample_gibbs"
    assert (stream_stage("alg2_noisy"), stream_stage("alg4_noise_free")) == (
        "sample",
        "sample_free",
    )


def test_dp_chains_discard_their_first_half_and_refuse_another_split():
    assert dp_chain_lengths(10) == {"burnin": 5, "keep": 6}  # start + 10 rows, rows 5..10 kept
    from tests.exact.raisa2021 import small_banana

    problem = small_banana()
    run = sampler("dp_mcmc", "dpps")
    hyper = {"tau": 0.01, "prop_sd": np.full(problem.dim, 0.1), "clip_bound": 1.0}
    chain = run(
        problem,
        np.random.default_rng(0),
        start=problem.theta_true,
        **hyper,
        **dp_chain_lengths(10),
    )
    assert chain.draws.shape[0] == 11 and chain.kept.shape[0] == 6
    with pytest.raises(ValueError, match="discard the first half"):
        run(
            problem,
            np.random.default_rng(0),
            start=problem.theta_true,
            **hyper,
            burnin=2,
            keep=9,
        )


def test_options_of_takes_a_params_entry_by_the_sampler_s_own_names():
    """A params-file entry carries more than one algorithm reads (its accountant's flags, say):
    only the registered function's own options are passed, under their own names."""
    entry = {"tau": 0.1, "prop_sd": 0.008, "clip_bound": 2, "one_component_updates": False}
    assert options_of(sampler("dp_mcmc", "dpps"), entry) == {
        "tau": 0.1,
        "prop_sd": 0.008,
        "clip_bound": 2,
    }
    assert options_of(sampler("dp_mcmc", "hmc"), entry) == {}


def _imports(path: Path, package: str) -> set[str]:
    """dpinfer modules ``path`` imports, at any level of the file (function-level included)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
                names = [mod] + [f"{mod}.{a.name}" for a in node.names]
            else:
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            out |= {n for n in names if n.startswith("dpinfer")}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("dpinfer")}
    return out


def _module_graph() -> dict[str, set[str]]:
    files = {}
    for p in SRC.rglob("*.py"):
        parts = p.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        files[name] = p
    graph = {}
    for name, p in files.items():
        package = name if p.name == "__init__.py" else name.rsplit(".", 1)[0]
        graph[name] = {m for m in _imports(p, package) if m in files and m != name}
    return graph


def test_the_import_graph_has_no_cycle():
    graph, state, cycles = _module_graph(), {}, []

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, cycles


# the direct sampler's envelope is itself what raim2021's knots, error-bound and step-function
# figures show, so that study reads it directly; every other sampler call goes through the registry
ENVELOPE_FIGURES = {("dpinfer.studies.raim2021.run", "dpinfer.samplers.direct")}
THROUGH = {"dpinfer.samplers.registry", "dpinfer.samplers.pooled", "dpinfer.samplers.base"}


def test_studies_reach_samplers_only_through_the_registry():
    graph = _module_graph()
    direct = sorted(
        (mod, dep)
        for mod, deps in graph.items()
        if mod.startswith("dpinfer.studies")
        for dep in deps
        if dep.startswith("dpinfer.samplers")
        and dep not in THROUGH
        and (mod, dep) not in ENVELOPE_FIGURES
        and dep != "dpinfer.samplers"
    )
    assert not direct, direct


def test_no_private_name_crosses_a_module_boundary():
    """``from <dpinfer module> import _name`` nowhere in the package, tests or benchmarks."""
    root = SRC.parents[1]
    offenders = []
    for path in sorted(
        [*SRC.rglob("*.py"), *(root / "tests").rglob("*.py"), *(root / "benchmarks").rglob("*.py")]
    ):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            ours = node.level > 0 or (node.module or "").startswith(("dpinfer", "tests"))
            private = [a.name for a in node.names if a.name.startswith("_") and a.name != "__all__"]
            if ours and private and node.module != "__future__":
                offenders.append(f"{path.relative_to(root)}:{node.lineno} {private}")
    assert not offenders, offenders


def test_every_study_takes_its_seed_stream_from_the_method_table():
    """ju2022 and raisa2021 keep the stream names that predate the method names ("sample",
    "sample_chain<c>"), as data of the table; no study module spells a method's stage itself
    (raim2021's step-function example draws no registered method)."""
    assert stream_stage("record_wise", 0, "ju2022") == "sample"
    assert stream_stage("record_wise", 2, "ju2022") == "sample_chain2"
    assert stream_stage("record_wise", 0, "comparison") == "sample_record_wise"
    for algo in ("hmc", "dpps", "dppa", "mdpps", "mdppa", "barker", "rwmh_nondp", "hmc_nondp"):
        assert stream_stage(algo, 0, "raisa2021") == "sample"
    studies = Path(__file__).resolve().parents[1] / "src" / "dpinfer" / "studies"
    spelled = [
        (str(p.relative_to(studies)), line.strip())
        for p in sorted(studies.rglob("*.py"))
        for line in p.read_text(encoding="utf-8").splitlines()
        if re.search(r"""rng_for\(.*["']sample(_\w+)?["']""", line) or '"sample" if c == 0' in line
    ]
    # the one exception: the step-function example's own stream
    assert [(f, "step_function" in line) for f, line in spelled] == [("raim2021/run.py", True)], (
        spelled
    )


def test_chapter_3s_methods_lead_to_their_estimators_through_the_table():
    """fig3_4's trace does not dead-end in the table: every method chapter 3 fits names its point
    estimator (``fits``), which imports; a method without one is refused by name."""
    from dpinfer.estimators import estimator
    from dpinfer.studies.bernstein2020_ch3.run import METHODS as CH3_METHODS

    for name in CH3_METHODS:
        fit = estimator(name)
        module, function = method(name).fits.split(":")
        assert fit.__module__ == f"dpinfer.estimators.{module}" and fit.__name__ == function
    with pytest.raises(ValueError, match="'gibbs' has no point estimator"):
        estimator("gibbs")
    # every method is run by a sampler, fitted by an estimator, or is the case study's baseline
    assert [m.name for m in METHODS.values() if not (m.runs or m.fits)] == ["oi"]
