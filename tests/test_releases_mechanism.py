"""A release's mechanism entry: each kind by scale and by (epsilon, delta, sensitivity) gives the
noise law of dpinfer.mechanisms with the documented calibration, and each bad entry is refused
naming its key."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpinfer.mechanisms import DiscreteGaussian, DoubleGeometric, Gaussian, Laplace
from dpinfer.releases.mechanism_spec import MechanismError, describe, mechanism_of

WHERE = "releases.tables.mechanism"


@pytest.mark.parametrize(
    "entry, cls, field, value",
    [
        ({"kind": "laplace", "scale": 2.5}, Laplace, "scale", 2.5),
        ({"kind": "laplace", "epsilon": 0.5, "sensitivity": 2}, Laplace, "scale", 4.0),
        ({"kind": "gaussian", "scale": 3.0}, Gaussian, "sigma", 3.0),
        (
            {"kind": "gaussian", "epsilon": 0.5, "delta": 1e-5, "sensitivity": 1},
            Gaussian,
            "sigma",
            math.sqrt(2 * math.log(1.25e5)) / 0.5,
        ),
        ({"kind": "discrete_laplace", "scale": 2.0}, DoubleGeometric, "rho", 1 - math.exp(-0.5)),
        (
            {"kind": "discrete_laplace", "epsilon": 0.5, "sensitivity": 1},
            DoubleGeometric,
            "rho",
            1 - math.exp(-0.5),
        ),
        ({"kind": "discrete_gaussian", "scale": 4.0}, DiscreteGaussian, "sigma", 4.0),
    ],
)
def test_each_kind_gives_its_noise_law(entry, cls, field, value):
    m = mechanism_of(entry, where=WHERE)
    assert isinstance(m, cls)
    assert getattr(m, field) == pytest.approx(value, rel=1e-12)
    assert describe(m)


def test_discrete_laplace_by_scale_has_the_stated_mass_ratio():
    m = mechanism_of({"kind": "discrete_laplace", "scale": 3.0})
    ratio = np.exp(m.logpdf(np.array([4])) - m.logpdf(np.array([3])))
    assert ratio[0] == pytest.approx(math.exp(-1 / 3), rel=1e-12)


def test_discrete_gaussian_by_epsilon_inverts_the_zcdp_conversion():
    eps, delta = 1.0, 1e-6
    m = mechanism_of(
        {"kind": "discrete_gaussian", "epsilon": eps, "delta": delta, "sensitivity": 1}
    )
    rho = m.rho_zcdp
    assert rho + 2 * math.sqrt(rho * math.log(1 / delta)) == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize(
    "entry, key",
    [
        ({"kind": "lap", "scale": 1}, ".kind"),
        ({"kind": "laplace"}, "exactly one of"),
        ({"kind": "laplace", "scale": 1, "epsilon": 1}, "exactly one of"),
        ({"kind": "laplace", "scale": -1}, ".scale"),
        ({"kind": "laplace", "scale": float("inf")}, ".scale"),
        ({"kind": "laplace", "scale": "1"}, ".scale"),
        ({"kind": "laplace", "epsilon": 1}, ".sensitivity"),
        ({"kind": "gaussian", "epsilon": 1, "sensitivity": 1}, ".delta"),
        ({"kind": "gaussian", "epsilon": 1, "delta": 1.5, "sensitivity": 1}, ".delta"),
        ({"kind": "laplace", "epsilon": 1, "delta": 0.1, "sensitivity": 1}, ".delta"),
        ({"kind": "laplace", "scale": 1, "delta": 0.1}, ".delta"),
        ({"kind": "laplace", "scale": 1, "sigma": 2}, ".sigma"),
    ],
)
def test_a_bad_entry_is_refused_naming_its_key(entry, key):
    with pytest.raises(MechanismError) as err:
        mechanism_of(entry, where=WHERE)
    assert WHERE in str(err.value) and key in str(err.value)
