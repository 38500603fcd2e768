"""Config values quoted in the documentation: the one parser behind tests/test_privacy_doc.py and
tests/test_docs_config.py.

A quote is a code span ``key: value``: a dotted config key, a colon and a space, then the value
in YAML flow syntax (``[0.01, 0.1]``, ``{n: 1000, epsilon: 0.01}``, ``seed``, ``1e-4``). Numbers
match to 0.5% (quoted numbers are rounded to 3 significant digits at most); a quoted mapping
matches when each key it lists does (the config may hold more). ``a..b`` quotes the smallest and
the largest value of a grid. Each test decides under which section a key is read.
"""

from __future__ import annotations

import math
import re

import yaml

REL = 5e-3  # quoted numbers are rounded to 3 significant digits at most
CODE_SPAN = re.compile(r"`([^`]+)`")
# key: dotted identifiers; a component may be {a,b} (each alternative is quoted) and the first may
# be * (every key ending with the rest); value: the rest of the span
QUOTE = re.compile(
    r"(?P<key>(?:\*|[a-z_][a-z0-9_]*|\{[a-z0-9_,]+\})(?:\.(?:[a-z_][a-z0-9_]*|\{[a-z0-9_,]+\}))*)"
    r": (?P<value>\S.*)",
    re.S,
)
RANGE = re.compile(r"(\S+)\.\.(\S+)")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def code_spans(text: str):
    """(offset, content) of every code span of a Markdown text (spans may cross a line break)."""
    for m in CODE_SPAN.finditer(text):
        yield m.start(), m.group(1)


def parse_quote(span: str) -> tuple[str, str] | None:
    """(key, value text) when the code span is a quote ``key: value``, else None."""
    m = QUOTE.fullmatch(" ".join(span.split()))  # a span may cross a line break
    return (m.group("key"), m.group("value")) if m else None


def quotes(text: str) -> list[tuple[str, str]]:
    """Every quote ``key: value`` of a text, in order."""
    return [q for _, span in code_spans(text) if (q := parse_quote(span))]


def _numbers(value):
    """YAML leaves 1e-4 (no dot) a string: read it as the number it is quoted as."""
    if isinstance(value, str) and NUMBER.fullmatch(value):
        return float(value)
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    return value


def parse_value(text: str):
    return _numbers(yaml.safe_load(text))


def close(a: float, b: float) -> bool:
    return math.isclose(float(a), float(b), rel_tol=REL, abs_tol=1e-12)


def same_value(quoted, actual) -> bool:
    if isinstance(actual, bool) or isinstance(quoted, bool):
        return quoted is actual
    if isinstance(actual, (int, float)) and isinstance(quoted, (int, float)):
        return close(quoted, actual)
    if isinstance(actual, list) and isinstance(quoted, list):
        return len(actual) == len(quoted) and all(same_value(q, a) for q, a in zip(quoted, actual))
    if isinstance(actual, dict) and isinstance(quoted, dict):
        return all(k in actual and same_value(v, actual[k]) for k, v in quoted.items())
    return quoted == actual


def matches(value_text: str, actual) -> bool:
    """Whether a quoted value (``a..b`` or YAML) is the config's value ``actual``."""
    m = RANGE.fullmatch(value_text)
    if m and NUMBER.fullmatch(m.group(1)) and NUMBER.fullmatch(m.group(2)):
        if not (
            isinstance(actual, list) and actual and all(isinstance(v, (int, float)) for v in actual)
        ):
            return False
        return close(m.group(1), min(actual)) and close(m.group(2), max(actual))
    return same_value(parse_value(value_text), actual)


def lookup(config: dict, path) -> object:
    """The value at a key path (a tuple of keys); AssertionError naming the path if absent."""
    node = config
    for key in path:
        assert isinstance(node, dict) and key in node, f"config has no key {'.'.join(path)!r}"
        node = node[key]
    return node
