"""The scalar bit helpers of simulators.core.bits, plain and compiled, against the array ones."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from simulators.core import bits

MASKS = np.concatenate([np.array([0, 1, 2, 3, 0x80000000, 0xFFFFFFFF], dtype=np.uint32),
                        np.uint32(1) << np.arange(32, dtype=np.uint32),
                        np.random.default_rng(3).integers(0, 2**32, 500, dtype=np.uint32)])


def _expected(mask: int) -> tuple[int, int, int, int]:
    row = np.array([mask], dtype=np.uint32)
    low, high = bits.lowest_bit(row), bits.highest_bit(row)
    return (int(bits.popcount(row)[0]), int(low[0]), int(bits.bit_index(low)[0]),
            int(bits.bit_index(high)[0]))


@pytest.mark.parametrize("compiled", [False, True])
def test_scalar_helpers_agree_with_the_array_helpers(compiled):
    helpers = [getattr(bits, name) for name in bits.SCALAR_HELPERS]
    if compiled:
        helpers = [numba.njit(h) for h in helpers]
    popcount32, lowest_bit32, lowest_index32, highest_index32 = helpers
    for mask in MASKS:
        for m in (np.uint32(mask), np.int64(mask)):  # uint32 masks and int64 holding 32 bits
            got = (int(popcount32(m)), int(lowest_bit32(m)), int(lowest_index32(m)),
                   int(highest_index32(m)))
            assert got == _expected(int(mask)), hex(int(mask))
