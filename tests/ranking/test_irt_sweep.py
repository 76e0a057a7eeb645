"""The compiled IRT-Gaussian sweep reproduces the numpy sweep bit for bit."""

import numpy as np
import pytest

from humeval.data import Comparisons
from humeval.ranking import IRTGaussian, _irt_kernel


@pytest.mark.skipif(not _irt_kernel.AVAILABLE, reason="this scipy does not export ndtr/ndtri to compiled code")
@pytest.mark.parametrize("radius", [0.4, 0.0])
def test_compiled_sweep_equals_numpy_sweep(radius):
    rng = np.random.default_rng(0)
    n, systems = 1500, 7
    a = rng.integers(0, systems, n)
    b = (a + rng.integers(1, systems, n)) % systems
    outcome = rng.choice(3, n, p=[0.25, 0.45, 0.3])
    c = Comparisons(a=a, b=b, outcome=outcome, item=rng.integers(-1, 60, n), items=tuple(f"i{k}" for k in range(60)),
                    systems=tuple(f"s{i}" for i in range(systems)))
    compiled = IRTGaussian(radius=radius, iterations=60, burn_in=20, random_state=5).fit(c)
    reference = IRTGaussian(radius=radius, iterations=60, burn_in=20, random_state=5)
    reference._sweep = reference._sweep_numpy
    reference.fit(c)
    np.testing.assert_array_equal(compiled.samples_, reference.samples_)
    assert compiled.samples_.std(axis=0).min() > 0  # the chain moved
