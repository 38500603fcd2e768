"""The Snakemake scheduler's re-evaluation timer (pure Python: the workflow process runs it).

Snakemake's job scheduler runs a round whenever a job finishes, and after every round in which
jobs were waiting it starts a ``threading.Timer`` of ``--max-jobs-per-timespan``'s timespan
(default 1 s) to run another, so that jobs the rate limit held back are submitted later. Every
round that ends with jobs waiting starts a timer again, so each finished job adds a chain of
rounds that lasts as long as jobs wait for a core: in a paper-scale run (py-spy dumps), about
210 timer threads were alive at job 200 of 679, 240 at job 335 and 273 at job 504, and the
Snakemake process's CPU rose from 10% to 26% of a core (resetting and statting every ready job
each round). ``profiles/default`` therefore sets
a timespan of 10 s, which makes those rounds 10 times rarer. A local run never reaches the rate
limit (100 submissions per 10 s; it starts at most ``--cores`` jobs at a time); under SLURM the
first 100 jobs go at once and the rest follow within seconds. A finished job still wakes the
scheduler at once.

The timer thread is not a daemon: Python waits for it at exit, so a run would end up to one
timespan after its last job. The Snakefile calls :func:`cancel_pending` when the run ends
(``onsuccess``, ``onerror``; Ctrl-C ends in ``onerror``); a cancelled timer only skips a round
of a scheduler that has stopped.
"""

from __future__ import annotations

import threading

__all__ = ["cancel_pending"]


def cancel_pending() -> int:
    """Cancel every pending ``threading.Timer`` of this process (the scheduler's are the only
    ones Snakemake starts); the number cancelled."""
    timers = [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t.is_alive()]
    for timer in timers:
        timer.cancel()
    return len(timers)
