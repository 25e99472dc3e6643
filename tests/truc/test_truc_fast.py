"""The compiled fast path must give the numpy engine's arrays exactly, on every case."""

from __future__ import annotations

import numpy as np
import pytest

from simulators.truc import crosscheck, engine
from simulators.truc import rules as R
from simulators.truc.dealing import Situation, play_choices
from simulators.truc.policies import HeuristicPolicy, OrderedPolicy, RandomPolicy

WILD = HeuristicPolicy(call_threshold=0.8, bluff_probability=0.5, counter_threshold=0.3,
                       accept_threshold=0.2, first_lead=0, win_cheaply=False)
CASES = {
    "random": (R.TrucConfig(), RandomPolicy(), (0, 0)),
    "heuristic": (R.TrucConfig(), HeuristicPolicy(), (0, 0)),
    "heuristic_banco_scores": (R.TrucConfig(), HeuristicPolicy(), (10, 9)),
    "wild_near_twelve": (R.TrucConfig(), WILD, (9, 6)),
    "mixed_seats": (R.TrucConfig(), (RandomPolicy(ask_probability=0.7), WILD), (3, 10)),
    "ordered_pair": (R.TrucConfig(), (OrderedPolicy(True), OrderedPolicy(False)), (0, 0)),
    "variants": (R.TrucConfig(card_call=False, counter_banco=False, target=6),
                 HeuristicPolicy(bluff_probability=0.3, seek_pourri=False), (3, 4)),
    "random_no_counter": (R.TrucConfig(counter_banco=False), RandomPolicy(), (11, 11)),
}


def _play(config, policies, scores, fast, n=20_000, seed=17, force=None):
    dispatch = engine.Dispatch(policies)
    units = np.arange(n, dtype=np.int64)
    deck, shuffle, noise = engine.draw_deals(seed, units, 0, dispatch.uses_noise)
    dealer = (units % 2).astype(np.int8)
    seat_scores = np.where(np.arange(2)[None, :] == dealer[:, None], scores[1],
                           scores[0]).astype(np.int8)
    return engine.play_batch(config, dispatch, deck, dealer, seat_scores, noise, units,
                             force=force, shuffle=shuffle, fast=fast)


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_kernel_equals_the_numpy_engine(name):
    config, policies, scores = CASES[name]
    slow = _play(config, policies, scores, fast=False)
    quick = _play(config, policies, scores, fast=True)
    for field in slow._fields:
        a, b = getattr(slow, field), getattr(quick, field)
        assert a.dtype == b.dtype and np.array_equal(a, b), (name, field)


def test_the_cases_reach_every_branch():
    config, policies, scores = CASES["wild_near_twelve"]
    a = _play(config, policies, scores, fast=True)
    assert (a.answers == R.COUNTER).any() and (a.replies == R.REFUSE).any()
    assert (a.replies == R.ACCEPT).any() and (a.hand_no == -1).any()
    assert set(np.unique(a.outcome)) == {R.PLAYED, R.REFUSED, R.ABANDONED}
    b = _play(*CASES["ordered_pair"][:2], (0, 0), fast=True)
    assert (b.outcome == R.PLAYED).all()


def test_forced_call_and_given_decks_match_too():
    for role in (0, 1):
        for ask in (False, True):
            kwargs = dict(n=5000, force=(role, ask))
            slow = _play(R.TrucConfig(), HeuristicPolicy(), (0, 0), fast=False, **kwargs)
            quick = _play(R.TrucConfig(), HeuristicPolicy(), (0, 0), fast=True, **kwargs)
            for field in slow._fields:
                assert np.array_equal(getattr(slow, field), getattr(quick, field)), field
    frame = play_choices(R.TrucConfig(), HeuristicPolicy(), Situation("A R 9"), 2000, seed=1)
    engine.USE_FAST = False
    try:
        again = play_choices(R.TrucConfig(), HeuristicPolicy(), Situation("A R 9"), 2000,
                             seed=1)
    finally:
        engine.USE_FAST = True
    assert frame.equals(again)


def test_the_numpy_path_is_replayed_by_the_referee_too(monkeypatch):
    monkeypatch.setattr(engine, "USE_FAST", False)
    batch = engine.simulate_deals(R.TrucConfig(), WILD, 3000, seed=5, scores=(9, 6))
    assert crosscheck.check_deals(batch) == 3000
