import numpy as np
import pytest

from dpinfer.seeding import key_words, rng_for


def test_same_key_same_stream():
    a = rng_for(1, "ju2022", "exp", 3, "release").random(5)
    b = rng_for(1, "ju2022", "exp", 3, "release").random(5)
    assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "other",
    [
        (2, "ju2022", "exp", 3, "release"),
        (1, "raim2021", "exp", 3, "release"),
        (1, "ju2022", "exp2", 3, "release"),
        (1, "ju2022", "exp", 4, "release"),
        (1, "ju2022", "exp", 3, "sample"),
    ],
)
def test_every_key_part_changes_the_stream(other):
    a = rng_for(1, "ju2022", "exp", 3, "release").random(4)
    assert not np.array_equal(a, rng_for(*other).random(4))


def test_key_words_are_stable_and_reject_bad_parts():
    # fixed integers: the encoding must never change, or every stored result changes
    assert key_words(7, "a", "b", 0, "c")[:2] == [7, int.from_bytes(b"\x01a", "little")]
    with pytest.raises(TypeError):
        key_words(1, "a", "b", True, "c")
    with pytest.raises(ValueError):
        key_words(-1, "a", "b", 0, "c")
