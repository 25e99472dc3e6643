"""The engine's compiled BG-6 check agrees with the numpy ``lay_errors`` it replaces.

Arrangements are the solver's best lays of random hands and boards, then
mutated (a cell changed to a random kind, blanked or moved to another slot;
a whole slot blanked or moved) so that every breach code 1..8 occurs; the
compiled codes must equal the numpy ones row for row, and where legal the
values, colours and card count it adds must match a count by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulators.bango import laying as L
from simulators.bango import rules as R
from simulators.bango._engine_kernel import lay_check
from simulators.bango.engine import lay_errors
from tests.bango.test_laying import random_states, solve


def mutated_arrangements(seed: int, n: int):
    gen = np.random.default_rng(seed)
    states = random_states(seed, n, (0, 14))
    hands, mask, colours = solve([(c, s) for c, s, _ in states])
    placed = L.best_lays(hands, mask, colours, False).placed.copy()
    for i in range(n):
        for _ in range(int(gen.integers(0, 3))):
            s, v = int(gen.integers(3)), int(gen.integers(R.N_VALUES))
            what = gen.random()
            if what < 0.3:
                placed[i, s, v] = int(gen.integers(R.N_KINDS))
            elif what < 0.5:
                placed[i, s, v] = int(v + R.N_VALUES * gen.integers(R.N_COLOURS))
            elif what < 0.7:
                placed[i, s, v] = -1
            elif what < 0.8:
                placed[i, (s + 1) % 3, v], placed[i, s, v] = placed[i, s, v], -1
            elif what < 0.9:  # a whole slot left in hand
                placed[i, s] = -1
            else:  # a whole slot moved to the next one
                placed[i, (s + 1) % 3], placed[i, s] = placed[i, s], -1
    return hands, mask, (mask != 0).sum(axis=1), placed


@pytest.mark.parametrize("free", [False, True])
def test_compiled_check_equals_lay_errors(free):
    hands, mask, n_open, placed = mutated_arrangements(11 + free, 3000)
    expected = lay_errors(hands, mask, n_open, placed, free)
    code, added, colours, n_used = lay_check(hands, mask, n_open, placed, free)
    assert (code == expected).all()
    assert set(np.unique(expected)) >= ({0, 1, 2, 3, 4, 5, 6} | ({7, 8} if not free else set()))
    ok = np.flatnonzero(code == 0)
    used = placed[ok] >= 0
    assert (n_used[ok] == used.sum(axis=(1, 2))).all()
    bits = (used * (1 << np.arange(R.N_VALUES))).sum(axis=2)
    assert (added[ok] == bits).all()
    colour = R.KIND_COLOUR[np.maximum(placed[ok], 0)]
    for c in range(R.N_COLOURS):
        assert (colours[ok][:, :, c] == (used & (colour == c)).sum(axis=2)).all()


def test_jit_once_compiles_a_module_once_and_callees_are_found():
    from simulators.bango import _engine_kernel as module
    from simulators.core.jit import jit_once

    jit_once(vars(module), module.KERNEL_NAMES)
    compiled = module._k_lay_check
    assert callable(compiled.py_func)  # a numba dispatcher, its Python source kept
    assert all(hasattr(getattr(module, name), "py_func") for name in module.KERNEL_NAMES)
    jit_once(vars(module), module.KERNEL_NAMES)  # a second call changes nothing
    assert module._k_lay_check is compiled
    assert module.popcount32(np.uint16(0b1011)) == 3  # core.bits helper, compiled here
