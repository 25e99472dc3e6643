"""``np.where`` and ``np.select`` made strict about Python ints that do not fit the result.

numpy 2.4 silently wraps ``np.where(mask, -1, uint8_array)`` to 255 where
numpy 2.5 raises ``OverflowError: Python int -1 out of bounds for uint8``
(NEP 50: a Python int takes the array's dtype, and must fit it). Code that
relies on the wrap (``-1`` stored as 255, then ``.astype(np.int8)`` back to
``-1``) gives the right answer on one numpy and stops on the next.

:func:`strict_python_ints` replaces both functions, for the duration of a
``with`` block, by versions that raise ``OverflowError`` naming the value
and the dtype whenever a Python int argument does not fit the dtype of the
result, whatever the numpy installed. The conformance check
``portable_numerics`` plays every game under it (every player count, unit
and policy), so a game that would stop under numpy 2.5 fails the suite
under numpy 2.4 already.

Compiled kernels are not affected: numba resolves ``np.where`` when it
compiles, so callers compile (play once) before entering the block.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import numpy as np

_LOCK = threading.Lock()


def _check_fits(dtype: np.dtype, values: Iterable[object], function: str) -> None:
    """Raise OverflowError if a Python int among ``values`` does not fit ``dtype``."""
    if dtype.kind not in "iu":
        return  # a float or complex result holds every int the engines use
    info = np.iinfo(dtype)
    for value in values:
        if isinstance(value, int) and not (info.min <= value <= info.max):
            raise OverflowError(f"{function}: Python int {value} out of bounds for {dtype} "
                                f"(numpy >= 2.5 raises here; cast explicitly)")


@contextmanager
def strict_python_ints() -> Iterator[None]:
    """Within the block, ``np.where``/``np.select`` refuse Python ints that do not fit.

    Not re-entrant across threads: the functions are replaced on the numpy
    module itself, so a lock keeps two blocks from interleaving.
    """
    with _LOCK:
        where, select = np.where, np.select

        def strict_where(condition, *xy):
            result = where(condition, *xy)
            if xy:
                _check_fits(np.asarray(result).dtype, xy, "np.where")
            return result

        def strict_select(condlist, choicelist, default=0):
            result = select(condlist, choicelist, default)
            _check_fits(np.asarray(result).dtype, [*choicelist, default], "np.select")
            return result

        np.where, np.select = strict_where, strict_select
        try:
            yield
        finally:
            np.where, np.select = where, select
