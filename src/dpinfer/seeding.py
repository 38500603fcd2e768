"""Per-stage random streams.

Every random draw of the pipeline comes from a generator built by :func:`rng_for` over the key
(config seed, study, experiment, replicate, stage). Each stage (``simulate``, ``release``,
``sample``, ...) has its own stream, so changing a sampler never changes the data or the noise,
and a replicate gives the same numbers whichever job, chunk or machine computes it.

Strings are turned into integers by their UTF-8 bytes (never ``hash()``, which is salted per
process), so keys are stable across Python versions and machines.
"""

from __future__ import annotations

import numpy as np

__all__ = ["key_words", "seed_sequence", "rng_for"]


def _word(part) -> int:
    if isinstance(part, (bool, np.bool_)):
        raise TypeError("seed key parts must be int or str, not bool")
    if isinstance(part, (int, np.integer)):
        if part < 0:
            raise ValueError(f"seed key integers must be non-negative, got {part}")
        return int(part)
    if isinstance(part, str):
        # A leading 1-byte keeps strings distinct from small integers and from each other.
        return int.from_bytes(b"\x01" + part.encode("utf-8"), "little")
    raise TypeError(f"seed key parts must be int or str, got {type(part).__name__}")


def key_words(seed: int, study: str, experiment: str, replicate: int, stage: str) -> list[int]:
    """The integer words fed to ``SeedSequence`` for one (seed, study, experiment, rep, stage)."""
    return [_word(seed), _word(study), _word(experiment), _word(replicate), _word(stage)]


def seed_sequence(seed: int, study: str, experiment: str, replicate: int, stage: str):
    """``np.random.SeedSequence`` for one stage of one replicate."""
    return np.random.SeedSequence(key_words(seed, study, experiment, replicate, stage))


def rng_for(
    seed: int, study: str, experiment: str, replicate: int, stage: str
) -> np.random.Generator:
    """A fresh PCG64 generator for one stage of one replicate of one experiment."""
    return np.random.default_rng(seed_sequence(seed, study, experiment, replicate, stage))
