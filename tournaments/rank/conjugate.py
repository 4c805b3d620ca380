"""Preconditioned conjugate gradients for the Elo fit's Newton steps on large fields.

The same iteration as `scipy.sparse.linalg.cg` (scipy 1.12 and later: numpy operations in the
same order, so the same numbers to the last bit; a test pins it against scipy's), without
importing `scipy.sparse`: a large import for the league board's child, whose memory must stay
small, for an iteration of a few numpy operations.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float64]


def conjugate_gradients(
    times: Callable[[Vector], Vector],
    rhs: Vector,
    preconditioner: Vector,
    *,
    rtol: float,
    atol: float,
    maxiter: int,
) -> Vector:
    """x with `times(x)` ≈ `rhs` (`times` a symmetric positive-definite product), with the
    diagonal `preconditioner` (multiplied, as an inverse); stops when the residual's norm is
    below max(`atol`, `rtol` · |rhs|) or after `maxiter` iterations."""
    rhs = np.asarray(rhs, dtype=np.float64).ravel()
    norm = np.linalg.norm(rhs)
    if norm == 0:
        return rhs
    tolerance = max(float(atol), float(rtol) * float(norm))
    x = np.zeros(len(rhs))
    residual = rhs.copy()
    direction = residual
    previous = 0.0
    for iteration in range(maxiter):
        if np.linalg.norm(residual) < tolerance:
            break
        z = preconditioner * residual
        current = np.dot(residual, z)
        if iteration > 0:
            direction *= current / previous
            direction += z
        else:
            direction = z.copy()
        product = times(direction)
        alpha = current / np.dot(direction, product)
        x += alpha * direction
        residual -= alpha * product
        previous = current
    return x
