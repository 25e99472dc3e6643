"""Shared check for the compiled twins of the shipped heuristics: same answer on every row."""

from __future__ import annotations

import numpy as np


def assert_same_answers(method: str, fast, slow) -> None:
    """Fail on the first row where the compiled and the numpy path answer differently.

    A method may answer with a tuple of arrays (a decision and its plan): each
    part is compared, shape, dtype and values.
    """
    for f, s in zip(fast if isinstance(fast, tuple) else (fast,),
                    slow if isinstance(slow, tuple) else (slow,), strict=True):
        f, s = np.asarray(f), np.asarray(s)
        assert f.shape == s.shape and f.dtype == s.dtype, method
        bad = np.flatnonzero(f != s)
        assert not bad.size, f"{method} row {bad[0]}: compiled {f[bad[0]]}, numpy {s[bad[0]]}"
