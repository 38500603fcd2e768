"""Parse-time config checks that JSON Schema and Snakemake's loader leave open (pure Python).

- :func:`yaml_syntax_error`: file, line and column of a YAML syntax error (Snakemake's own
  message names neither).
- :func:`strict_error`: a second validation pass in which an ``integer`` must be a Python int
  (JSON Schema accepts 4.0) and a ``number`` must be finite (JSON Schema accepts .inf and .nan,
  which pass every bound), so such values are refused before any job runs.
- :func:`overridden_keys`: the settings of config/config.yaml that a ``--configfile`` replaced,
  so a user who edits config.yaml under another file's values learns why nothing changed.

Snakemake loads a ``--configfile`` before the workflow is parsed and reports a broken one
without file or line; ``python -m dpinfer.config_checks FILE ...`` says where.
"""

from __future__ import annotations

import math
from pathlib import Path

import yaml

__all__ = ["yaml_syntax_error", "strict_error", "overridden_keys", "dotted"]


def dotted(keys) -> str:
    return ".".join(str(k) for k in keys) or "<top level>"


def yaml_syntax_error(path) -> str | None:
    """None if ``path`` parses as YAML, else 'path, line L, column C: problem'."""
    try:
        yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as err:
        parts = []
        for mark, text in ((err.context_mark, err.context), (err.problem_mark, err.problem)):
            if mark is not None and text:
                parts.append(f"line {mark.line + 1}, column {mark.column + 1}: {text}")
        return f"{path}, " + "; ".join(parts or [str(err)])
    except yaml.YAMLError as err:
        return f"{path}: {err}"
    return None


def _is_integer(checker, instance) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _is_number(checker, instance) -> bool:
    return (
        isinstance(instance, (int, float))
        and not isinstance(instance, bool)
        and math.isfinite(instance)
    )


def strict_error(data, schema_path) -> tuple[list, str] | None:
    """(path of keys, message) of the first strict-type error of ``data``, or None."""
    from jsonschema import Draft202012Validator, validators

    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    checker = Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"integer": _is_integer, "number": _is_number}
    )
    strict = validators.extend(Draft202012Validator, type_checker=checker)
    errors = sorted(strict(schema).iter_errors(data), key=lambda e: list(e.absolute_path))
    for err in errors:
        value = err.instance
        if isinstance(value, float) and not math.isfinite(value):
            return list(err.absolute_path), f"must be a finite number, got {value}"
        if (
            err.validator == "type"
            and err.validator_value == "integer"
            and isinstance(value, float)
        ):
            return list(
                err.absolute_path
            ), f"must be a whole number written without a decimal point, got {value}"
        if err.validator == "type":
            return list(err.absolute_path), err.message
    return None


def overridden_keys(base: dict, final: dict, prefix=()) -> list[str]:
    """Dotted keys whose value in ``final`` differs from ``base`` (leaves and lists)."""
    out = []
    for key, value in base.items():
        if key not in final:
            continue
        if isinstance(value, dict) and isinstance(final[key], dict):
            out += overridden_keys(value, final[key], prefix + (key,))
        elif final[key] != value:
            out.append(dotted(prefix + (key,)))
    return out


def main(argv=None) -> int:
    import sys

    bad = [
        e for e in (yaml_syntax_error(p) for p in (argv if argv is not None else sys.argv[1:])) if e
    ]
    for problem in bad:
        print(f"invalid config file {problem}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
