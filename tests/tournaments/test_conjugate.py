"""The Elo fit's conjugate gradients against scipy's `cg`, whose iteration they repeat
without importing `scipy.sparse`: the same steps to the last bit."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.sparse import linalg

from tournaments.rank.conjugate import conjugate_gradients


def test_the_steps_are_scipys_to_the_last_bit() -> None:
    rng = np.random.default_rng(3)
    size, pairs = 300, 2000
    a, b = rng.integers(0, size, pairs), rng.integers(0, size, pairs)
    weight = rng.random(pairs)

    def times(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        spread = weight * (x[a] - x[b])
        return np.bincount(a, spread, size) - np.bincount(b, spread, size) + x.sum() + 1e-9 * x

    jacobi = 1 / (np.bincount(a, weight, size) + np.bincount(b, weight, size) + 1 + 1e-9)
    for rhs, maxiter in ((rng.normal(size=size), 3000), (rng.normal(size=size), 7)):
        ours = conjugate_gradients(times, rhs, jacobi, rtol=1e-12, atol=1e-14, maxiter=maxiter)
        theirs, _ = linalg.cg(
            linalg.LinearOperator((size, size), matvec=times, dtype=np.float64),
            rhs,
            rtol=1e-12,
            atol=1e-14,
            maxiter=maxiter,
            M=linalg.LinearOperator((size, size), matvec=jacobi.__mul__, dtype=np.float64),
        )
        assert np.array_equal(ours, theirs)
        assert np.allclose(times(ours), rhs) == (maxiter > 7)
    zero = np.zeros(size)
    assert np.array_equal(conjugate_gradients(times, zero, jacobi, rtol=1, atol=0, maxiter=9), zero)
