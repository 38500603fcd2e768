"""The scheduler's re-evaluation timer (dpinfer.scheduler_timer): the default profile gives it a
timespan the rate limit never reaches, and the run cancels it at the end, so the process exits
without waiting for it."""

from __future__ import annotations

import threading
from pathlib import Path

import yaml

from dpinfer.scheduler_timer import cancel_pending

ROOT = Path(__file__).resolve().parents[1]


def test_a_pending_timer_is_cancelled_and_its_thread_ends():
    fired = threading.Event()
    timer = threading.Timer(600, fired.set)  # as Snakemake's scheduler starts it: not a daemon
    timer.start()
    assert cancel_pending() >= 1
    timer.join(timeout=10)
    assert not timer.is_alive() and not fired.is_set()
    assert cancel_pending() == 0


def test_the_default_profile_sets_the_timespan_and_the_snakefile_cancels_at_the_end():
    profile = yaml.safe_load(
        (ROOT / "profiles" / "default" / "config.yaml").read_text(encoding="utf-8")
    )
    assert profile["max-jobs-per-timespan"] == "100/10s"
    snakefile = (ROOT / "Snakefile").read_text(encoding="utf-8")
    for handler in ("onsuccess:", "onerror:"):
        body = snakefile.split(handler, 1)[1].split("\n\n", 1)[0]
        assert "cancel_pending()" in body, handler
