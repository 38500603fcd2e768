"""The documentation quotes config/config.yaml as it is: every config value a document states is
either rendered from the config (the report captions, workflow/report/**/*.rst, through Jinja:
tests/test_report_captions.py), written as a checkable quote that this test compares with the
config, or not stated at all (the text names the key instead).

The quoting convention (docs/*.md and the comments of config/config.yaml):

- ``key: value`` in a code span states the paper-scale config's value. The key is dotted and
  may be a suffix of the full key when that suffix names one key only (``lambdas.naive_mle``,
  ``chapter4.binomial.prior``); ``*.health.max_rhat`` quotes every key ending so, and
  ``{fig3_2,fig3_4}.releases`` each alternative. The value is YAML flow syntax (``1e-4`` reads
  as a number; numbers match to 0.5%), a mapping quotes the keys it lists, and ``a..b`` the
  smallest and largest value of a grid.
- Any other value (a setting to try, the smoke scale's) is written without that form: "set
  `key` to `value`", "(N = 20: `key` in config/smoke.yaml)".
- A code span that is a full dotted key (``bernstein2020.chapter4.exponential.thin``) must name
  a key of the config.

docs/privacy.md has its own quoting rules (keys read under a table row's study) and test,
tests/test_privacy_doc.py, with the same parser (tests/doc_quotes.py). The documents' own
settings (the paper's 10,000 iterations) and results measured at paper scale are not quotes.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
import yaml

from tests.doc_quotes import code_spans, matches, parse_quote

ROOT = Path(__file__).resolve().parents[1]
CONFIG_FILE = ROOT / "config" / "config.yaml"
CONFIG = yaml.safe_load(CONFIG_FILE.read_text(encoding="utf-8"))
OWN_TEST = {"privacy.md"}  # checked by tests/test_privacy_doc.py under its own rules
DOCS = sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in OWN_TEST)
FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
FULL_KEY = re.compile(r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+")


def _paths(node, prefix=()):
    """Every key path of the config (mappings only; lists hold values)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*prefix, str(key))
            yield from _paths(value, (*prefix, str(key)))


PATHS = list(_paths(CONFIG))


def _expand(key: str) -> list[str]:
    """``a.{b,c}.d`` -> ``a.b.d``, ``a.c.d``."""
    parts = [p[1:-1].split(",") if p.startswith("{") else [p] for p in key.split(".")]
    return [".".join(combo) for combo in itertools.product(*parts)]


class QuoteError(ValueError):
    """A quoted key that names no key, or several."""


def resolve(key: str, config_paths=None) -> list[tuple[str, ...]]:
    """The config paths a quoted key names; QuoteError if none, or several without ``*``."""
    config_paths = PATHS if config_paths is None else config_paths
    out = []
    for one in _expand(key):
        every = one.startswith("*.")
        parts = tuple(one.split(".")[1:] if every else one.split("."))
        hits = [p for p in config_paths if p[-len(parts) :] == parts]
        if not hits:
            raise QuoteError(f"`{one}` names no key of config/config.yaml")
        if not every and len(hits) > 1:
            raise QuoteError(
                f"`{one}` is ambiguous: {', '.join('.'.join(h) for h in hits)}; write more of the "
                "key"
            )
        out += hits
    return out


def check(text: str, config: dict | None = None) -> tuple[int, list[str]]:
    """(quotes checked, problems) of a text: wrong values, unknown or ambiguous keys."""
    config = CONFIG if config is None else config
    paths = list(_paths(config))
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # code blocks show examples
    checked, problems = 0, []
    for offset, span in code_spans(text):
        line = text.count("\n", 0, offset) + 1
        quote = parse_quote(span)
        if quote is None:
            if FULL_KEY.fullmatch(span) and span.split(".")[0] in config:
                try:
                    resolve(span, [p for p in paths if len(p) == span.count(".") + 1])
                except QuoteError as e:
                    problems.append(f"line {line}: {e}")
            continue
        key, value = quote
        try:
            hits = resolve(key, paths)
        except QuoteError as e:
            problems.append(f"line {line}: {e}")
            continue
        for path in hits:
            node = config
            for k in path:
                node = node[k]
            checked += 1
            if not matches(value, node):
                problems.append(f"line {line}: `{key}: {value}`, but {'.'.join(path)} is {node!r}")
    return checked, problems


def _config_comments() -> str:
    """The comments of config/config.yaml, each on its own line (line numbers kept)."""
    return "\n".join(
        line.split("#", 1)[1] if "#" in line else ""
        for line in CONFIG_FILE.read_text(encoding="utf-8").splitlines()
    )


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_quoted_config_values_are_those_of_the_config(doc):
    checked, problems = check(doc.read_text(encoding="utf-8"))
    assert not problems, f"docs/{doc.name} quotes config/config.yaml wrongly:\n" + "\n".join(
        problems
    )


def test_quoted_config_values_in_config_comments():
    checked, problems = check(_config_comments())
    assert not problems, "config/config.yaml comments quote other keys wrongly:\n" + "\n".join(
        problems
    )


def test_deviations_quote_the_chapter3_grids():
    """The two grids issue 29 found stale (naive lambda, Fig 3.3's lambda) are quoted checkably."""
    text = (ROOT / "docs" / "deviations.md").read_text(encoding="utf-8")
    quoted = set()
    for _, span in code_spans(text):
        if quote := parse_quote(span):
            try:
                quoted.update(resolve(quote[0]))
            except QuoteError:
                pass  # reported by test_quoted_config_values_are_those_of_the_config
    for wanted in ("lambdas.naive_mle", "fig3_3.lambdas"):
        assert set(resolve(wanted)) <= quoted, f"docs/deviations.md does not quote `{wanted}`"
    checked, _ = check(text)
    assert checked >= 50, (
        f"only {checked} quotes in docs/deviations.md: has the convention changed?"
    )


# ----------------------------------------------------------------------------- the checker itself
TOY = {
    "seed": 7,
    "study": {
        "grid": [0.01, 0.1, 1, 100000],
        "tol": 1.0e-4,
        "flag": False,
        "a": {"health": {"max_rhat": 1.01, "min_ess": 100}, "chains": 4},
        "b": {"health": {"max_rhat": 1.01, "min_ess": 400}, "chains": 4},
    },
}


@pytest.mark.parametrize(
    "text",
    [
        "`study.grid: [0.01, 0.1, 1, 100000]`",
        "`grid: 0.01..1e5`",
        "`tol: 1e-4`",
        "`study.flag: false`",
        "`*.health.max_rhat: 1.01`",
        "`{a,b}.chains: 4`",
        "`a.health: {min_ess: 100}`",
        "`study.a.health`",
        "`seed: 7` and\n`a.health.min_ess:\n100`",
        "```\n`tol: 1`\n```",
        "set `tol` to `1e-3`",
    ],
)
def test_the_checker_accepts_right_quotes(text):
    checked, problems = check(text, TOY)
    assert not problems, problems


@pytest.mark.parametrize(
    "text, problem",
    [
        ("`study.grid: [1, 10, 100]`", "is [0.01"),  # a stale grid
        ("`grid: 1e-6..1e2`", "is [0.01"),  # a stale range
        ("`tol: 1e-3`", "is 0.0001"),
        ("`study.flag: true`", "is False"),
        ("`*.health.min_ess: 100`", "study.b.health.min_ess is 400"),
        ("`{a,b}.health.min_ess: 100`", "study.b.health.min_ess is 400"),
        ("`a.health: {min_ess: 400}`", "is {"),
        ("`study.tolerance: 1e-4`", "names no key"),  # a key that does not exist
        ("`chains: 4`", "ambiguous"),
        ("`study.c.health`", "names no key"),  # a full key that does not exist
    ],
)
def test_the_checker_rejects_wrong_quotes(text, problem):
    checked, problems = check(text, TOY)
    assert problems and problem in problems[0], problems
