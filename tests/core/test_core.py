"""Shared core: bitmask helpers, seeding, parameter validation."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from simulators.core import bits, rng
from simulators.core.dispatch import forwards
from simulators.core.params import Policy, param, probability


def test_bit_helpers_on_every_small_mask():
    masks = np.arange(1, 1 << 12, dtype=np.uint32)
    low = bits.bit_index(bits.lowest_bit(masks))
    high = bits.bit_index(bits.highest_bit(masks))
    for m, lo, hi in zip(masks.tolist(), low.tolist(), high.tolist(), strict=True):
        set_bits = bits.cards_of(m)
        assert (lo, hi) == (set_bits[0], set_bits[-1])
    assert bits.bit_index(np.uint32(0)) == -1
    assert bits.highest_bit(np.uint32(0x80000001)) == np.uint32(0x80000000)


def test_select_bit_returns_the_kth_set_bit():
    gen = np.random.default_rng(0)
    masks = gen.integers(1, 2**32, 2_000, dtype=np.uint32)
    counts = bits.popcount(masks).astype(int)
    k = (gen.random(2_000) * counts).astype(int)
    chosen = bits.select_bit(masks, k)
    for m, kk, c in zip(masks.tolist(), k.tolist(), chosen.tolist(), strict=True):
        assert bits.cards_of(m)[kk] == c


def test_random_bit_is_uniform_over_set_bits():
    mask = np.full(60_000, bits.mask_of([1, 7, 30]), dtype=np.uint32)
    picks = bits.random_bit(mask, np.random.default_rng(1).random(60_000))
    counts = np.array([(picks == c).sum() for c in (1, 7, 30)])
    assert counts.sum() == 60_000
    assert stats.chisquare(counts).pvalue > 1e-3


def test_permutations_are_exactly_uniform():
    """All 4! orders of 4 cards equally likely; every row is a permutation."""
    perms = rng.permutations(np.random.default_rng(2), 120_000, 4)
    assert (np.sort(perms, axis=1) == np.arange(4)).all()
    codes = perms.astype(int) @ np.array([64, 16, 4, 1])
    index = {sum(p * w for p, w in zip(order, (64, 16, 4, 1), strict=True)): i
             for i, order in enumerate(itertools.permutations(range(4)))}
    counts = np.bincount([index[c] for c in codes.tolist()], minlength=24)
    assert len(counts) == 24 and stats.chisquare(counts).pvalue > 1e-3
    deck = rng.permutations(np.random.default_rng(3), 50_000, 32)
    position_of_card0 = np.argmax(deck == 0, axis=1)
    assert stats.chisquare(np.bincount(position_of_card0, minlength=32)).pvalue > 1e-3


def test_draws_depend_on_unit_not_on_batch():
    """Unit i's draw is the same whether asked alone, in a range, or out of order."""
    def draw(units):
        return rng.draw_per_unit(99, np.asarray(units), 0,
                                 lambda g, size: g.random(size))
    whole = draw(np.arange(3_000))
    assert (draw([2_999, 5, 1_500]) == whole[[2_999, 5, 1_500]]).all()
    assert (draw(np.arange(1_024, 2_100)) == whole[1_024:2_100]).all()
    # block b of stream s is the SeedSequence child spawn_key (s, b)
    child = np.random.SeedSequence(99).spawn(1)[0].spawn(2)[1]
    expected = np.random.Generator(np.random.PCG64(child)).random(rng.BLOCK)
    assert (whole[rng.BLOCK:2 * rng.BLOCK] == expected).all()


def test_seed_validation():
    assert rng.root_entropy(5) == 5
    for bad in (-1, 1.5, "7", True):
        with pytest.raises(ValueError, match="seed"):
            rng.root_entropy(bad)


@dataclass(frozen=True)
class _Toy(Policy):
    threshold: float = param(1.0, low=0.0, high=2.0, doc="a threshold")
    count: int = param(3, low=1, high=5, doc="a count")
    flag: bool = param(False, doc="a flag")
    chance: float = probability(0.25, "a chance")


def test_policy_parameters_are_validated_and_stored_verbatim():
    toy = _Toy(threshold=2, count=5, flag=True)
    assert toy.get_params() == {"threshold": 2, "count": 5, "flag": True, "chance": 0.25}
    assert _Toy.parameters()["count"] == {"default": 3, "low": 1, "high": 5, "doc": "a count"}
    with pytest.raises(ValueError, match=r"_Toy.threshold must be in \[0.0, 2.0\], got 2.5"):
        _Toy(threshold=2.5)
    with pytest.raises(ValueError, match="_Toy.count must be an integer"):
        _Toy(count=2.0)
    with pytest.raises(ValueError, match="_Toy.flag must be true or false"):
        _Toy(flag="yes")
    with pytest.raises(ValueError, match="_Toy.threshold must be in"):
        _Toy(threshold=float("nan"))
    with pytest.raises(ValueError, match="_Toy has no parameter 'treshold'"):
        _Toy.from_params(treshold=1.0)


def test_a_probability_parameter_lies_in_zero_one():
    assert _Toy.parameters()["chance"] == {"default": 0.25, "low": 0.0, "high": 1.0,
                                           "doc": "a chance"}
    assert _Toy(chance=0.0).chance == 0.0 and _Toy(chance=1).chance == 1
    for bad in (-0.01, 1.01, float("nan")):
        with pytest.raises(ValueError, match=r"_Toy.chance must be in \[0.0, 1.0\]"):
            _Toy(chance=bad)


@dataclass(frozen=True)
class _Modes(Policy):
    exact: bool = param(True, doc="the exact mode")
    margin: float = param(0.0, low=-1.0, high=1.0, only_with={"exact": False},
                          doc="read by the inexact mode only")


def test_a_parameter_the_mode_ignores_is_refused_not_ignored():
    assert _Modes.parameters()["margin"]["only_with"] == {"exact": False}
    assert "only_with" not in _Modes.parameters()["exact"]
    assert _Modes(exact=False, margin=0.5).margin == 0.5
    assert _Modes(margin=0.0).margin == 0.0  # the default changes nothing: accepted
    with pytest.raises(ValueError, match=r"_Modes.margin \(range \[-1.0, 1.0\]\) is read only "
                                         r"with exact=false; exact=true ignores it"):
        _Modes(margin=0.5)


def test_prefer_takes_each_rows_first_non_empty_mask():
    a = np.array([0, 1, 0, 0], dtype=np.uint32)
    b = np.array([2, 2, 0, 0], dtype=np.uint32)
    c = np.array([4, 4, 4, 0], dtype=np.uint32)
    assert bits.prefer(a, b, c).tolist() == [2, 1, 4, 0]
    assert bits.prefer(c).tolist() == c.tolist()


def test_dispatch_has_a_combined_method_only_where_it_still_stands_for_the_parts():
    from simulators.core.dispatch import SeatDispatch

    class Planner:
        def draw(self, obs):
            return obs

        def draw_with_plan(self, obs):
            return obs, obs

    class Redraws(Planner):
        def draw(self, obs):
            return obs

    class Replans(Redraws):
        def draw_with_plan(self, obs):
            return obs, obs

    def has(*policies):
        return SeatDispatch(list(policies), len(policies), ("draw",), "test").has(
            "draw_with_plan", standing_for=("draw",))

    assert has(Planner(), Planner())
    assert not has(Planner(), Redraws())      # the subclass redefines draw below the plan
    assert has(Replans(), Planner())          # ... and here the plan again, below draw
    assert not SeatDispatch(Redraws(), 1, ("draw",), "test").has("undefined")


def test_a_costly_policy_is_asked_about_its_own_rows_only():
    """SeatDispatch hands a policy marked ``costly`` (a search per row) only the rows where
    its seats act, with every batch field sliced; the others see the whole batch."""
    from typing import NamedTuple

    from simulators.core.dispatch import SeatDispatch

    class Obs(NamedTuple):
        value: np.ndarray
        scalar: int

    seen = {}

    class Cheap:
        def act(self, obs):
            seen["cheap"] = len(obs.value)
            return obs.value

    class Costly(Cheap):
        costly = True

        def act(self, obs):
            seen["costly"] = obs.value.tolist()
            return obs.value * 10

    dispatch = SeatDispatch([Costly(), Cheap(), Cheap()], 3, ("act",), "test")
    out = dispatch("act", Obs(np.arange(6), 7), np.array([0, 1, 2, 0, 1, 2]), np.int64)
    assert seen == {"costly": [0, 3], "cheap": 6}
    assert out.tolist() == [0, 1, 2, 30, 4, 5]



class _Inner:
    costly = True
    wants_world = True  # not forwarded below

    def act(self, obs):
        return obs + 1


@forwards("inner", "act", "costly")
class _Wrapper:
    def __init__(self, inner):
        self.inner = inner


def test_a_forwarding_wrapper_answers_its_names_only_and_survives_pickling():
    """``forwards``: the names listed are the wrapped policy's, nothing else is, and an
    unpickled copy (a worker's) works (a ``__getattr__`` forwarder recursed forever)."""
    import pickle

    copy = pickle.loads(pickle.dumps(_Wrapper(_Inner())))
    assert copy.act(1) == 2 and copy.costly is True
    assert getattr(copy, "wants_world", False) is False
    bare = _Wrapper(object())  # what the wrapped policy lacks, the wrapper lacks
    assert getattr(bare, "act", None) is None and getattr(bare, "costly", False) is False
