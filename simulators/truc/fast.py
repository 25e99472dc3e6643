"""A compiled fast path for the built-in policies: whole deals in one numba kernel.

A Truc deal is six cards and at most ten decisions, so the numpy engine's
cost is per-call overhead, not arithmetic (see docs/truc.md, "Cost"). When
every seat plays one of the shipped policies (:class:`RandomPolicy`,
:class:`HeuristicPolicy`, :class:`OrderedPolicy`, exact types),
:func:`~simulators.truc.engine.play_batch` hands the batch to
:func:`play_kernel`, which plays each deal start to finish in compiled
code and fills the same arrays.

It is a second implementation of the same rules *and* of the same policies
— same noise slots, same float32/float64 arithmetic in the same order — so
``tests/truc/test_truc_fast.py`` demands **identical** arrays from both
paths on every policy, score and option; the referee replays either. User
policies always take the numpy path: nothing here restricts them.
Compiled once per machine (``cache=True``); :func:`warm_up` reports the
seconds spent.
"""

from __future__ import annotations

import time

import numpy as np

from simulators.truc import rules as R

KIND_HEURISTIC, KIND_ORDERED, KIND_RANDOM = 0, 1, 2
N_PARAMS = 9

_kernel = None


def policy_row(policy) -> tuple[int, np.ndarray] | None:
    """(kind, parameters as float64) of a shipped policy, or None for any other object."""
    from simulators.truc.policies import HeuristicPolicy, OrderedPolicy, RandomPolicy

    p = np.zeros(N_PARAMS)
    if type(policy) is HeuristicPolicy:
        p[:] = (policy.call_threshold, policy.propose_threshold, policy.accept_threshold,
                policy.counter_threshold, policy.bluff_probability, policy.near_end_caution,
                policy.first_lead, policy.win_cheaply, policy.seek_pourri)
        return KIND_HEURISTIC, p
    if type(policy) is OrderedPolicy:
        p[0] = policy.strongest_first
        return KIND_ORDERED, p
    if type(policy) is RandomPolicy:
        p[:4] = (policy.ask_probability, policy.propose_probability,
                 policy.accept_probability, policy.counter_probability)
        return KIND_RANDOM, p
    return None


def kernel():
    """The jitted kernel (compiled, or loaded from numba's cache, on first use)."""
    global _kernel
    if _kernel is None:
        from simulators.truc import _fast_kernel

        _kernel = _fast_kernel.compiled()
    return _kernel


def warm_up() -> float:
    """Compile (or load) the kernel and play one deal; seconds spent."""
    start = time.perf_counter()
    from simulators.truc.engine import Dispatch, draw_deals, play_batch
    from simulators.truc.policies import HeuristicPolicy

    units = np.arange(1, dtype=np.int64)
    deck, shuffle, noise = draw_deals(0, units, 0, True)
    play_batch(R.TrucConfig(), Dispatch(HeuristicPolicy()), deck, np.zeros(1, np.int8),
               np.zeros((1, 2), np.int8), noise, units, shuffle=shuffle)
    return time.perf_counter() - start
