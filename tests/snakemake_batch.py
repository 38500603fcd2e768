"""Run several Snakemake command lines in one Python process, one after another.

A test's Snakemake subprocess spends about 1.3 s importing Snakemake (and its executor plugins)
before it parses the workflow; dry runs and config refusals then take about as long again. This
script pays the import once for a batch. Each call runs in the call's directory with file
descriptors 1 and 2 redirected, so it sees what a separate ``snakemake`` process would print,
whatever Snakemake's logger holds on to between calls.

Usage: python snakemake_batch.py CALLS.json RESULTS.json, where CALLS is a list of
[workdir, [arg, ...]] and RESULTS receives one {"returncode", "stdout", "stderr"} per call.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

from snakemake.cli import main


def _exit_code(code) -> int:
    if code is None:
        return 0
    return code if isinstance(code, int) else 1  # sys.exit("message") exits with 1


def run(workdir: str, args: list[str]) -> dict:
    """One Snakemake command line, as ``cd workdir && snakemake ...`` would run it."""
    cwd = os.getcwd()
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            os.chdir(workdir)
            try:
                main(
                    [
                        "--directory",
                        workdir,
                        "--snakefile",
                        os.path.join(workdir, "Snakefile"),
                        *args,
                    ]
                )
                code = 0
            except SystemExit as stop:
                code = _exit_code(stop.code)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.chdir(cwd)
            for fd, copy in zip((1, 2), saved):
                os.dup2(copy, fd)
                os.close(copy)
        out.seek(0)
        err.seek(0)
        return {"returncode": code, "stdout": out.read().decode(), "stderr": err.read().decode()}


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as fh:
        calls = json.load(fh)
    results = [run(workdir, args) for workdir, args in calls]
    with open(sys.argv[2], "w", encoding="utf-8") as fh:
        json.dump(results, fh)
