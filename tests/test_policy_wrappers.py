"""The odds commands' policy wrappers survive pickling (issue 35).

joblib/loky ships policies to worker processes by pickle. A wrapper that forwarded
attribute access with ``__getattr__`` recursed forever when unpickled (the unpickler
looks ``__setstate__`` up before the wrapped policy is set). Here every policy, wrappers
included, goes through pickle on its way into the engine's dispatcher, and the copies must
play the same deals as the originals.
"""

from __future__ import annotations

import pickle

import numpy as np
import polars as pl
import pytest

from simulators.bianco_mano import BiancoManoConfig
from simulators.bianco_mano import HeuristicPolicy as BiancoHeuristic
from simulators.bianco_mano import RandomPolicy as BiancoRandom
from simulators.bianco_mano import dealing as bianco_dealing
from simulators.bianco_mano import engine as bianco_engine
from simulators.bianco_mano.solver import odds as bianco_odds
from simulators.five_crowns import engine as five_crowns_engine
from simulators.five_crowns import odds as five_crowns_odds
from simulators.five_crowns import rules as five_crowns_rules
from simulators.five_crowns.policies import HeuristicPolicy as FiveCrownsHeuristic
from simulators.five_crowns.policies import RandomPolicy as FiveCrownsRandom
from simulators.manille import dealing as manille_dealing
from simulators.manille import engine as manille_engine
from simulators.manille.policies import HeuristicPolicy as ManilleHeuristic
from simulators.manille.policies import RandomPolicy as ManilleRandom
from simulators.manille.rules import ManilleConfig

BIANCO_SITUATION = bianco_dealing.Situation(4, 1, "1R 7B 3B 8V 2J", "4B")
FIVE_CROWNS_QUESTION = five_crowns_odds.OddsQuestion(round=1, hand="4H 5H 7S", discard="6H")


class _OwnDraw(FiveCrownsHeuristic):
    """A user's subclass that redefines ``draw``: the dispatcher asks it ``draw``, not the
    parent's ``draw_with_plan``."""

    def draw(self, obs):
        return super().draw(obs)


def _shipped(dispatch):
    """The game's dispatcher, built from a pickled copy of its policies (as a worker gets
    them; one pickle, so a policy shared by several seats stays one object)."""
    def build(policies, *args):
        return dispatch(pickle.loads(pickle.dumps(policies)), *args)
    return build


def _bianco_cards_by():
    """The PIMC way's wrapper (another policy's card play), a cheap player standing in."""
    seats = [bianco_odds.CardsBy(BiancoHeuristic(), BiancoRandom()) for _ in range(4)]
    return bianco_dealing.play_attempts(BiancoManoConfig(), seats, BIANCO_SITUATION,
                                        bianco_dealing.TAKE, 0, 60, seed=3)


class _OwnDraw(FiveCrownsHeuristic):
    """A user's subclass that redefines ``draw``: the dispatcher asks it ``draw``, not the
    parent's ``draw_with_plan``."""

    def draw(self, obs):
        return super().draw(obs)


# wrapper: (module holding the dispatcher's name, the play, the wrapped policies tried)
WRAPPERS = {
    "manille _Forced": (
        manille_dealing,
        lambda inner: manille_dealing.play_choices(
            ManilleConfig(), inner, manille_dealing.Situation("10P AP RP 9P 10C 7C AK 8T"),
            60, seed=4),
        (ManilleHeuristic(), ManilleRandom())),
    "bianco-mano _Forced": (
        bianco_dealing,
        lambda inner: bianco_dealing.play_attempts(
            BiancoManoConfig(), inner, BIANCO_SITUATION, bianco_dealing.TAKE, 0, 60, seed=3),
        (BiancoHeuristic(), BiancoRandom())),
    "bianco-mano CardsBy": (bianco_dealing, lambda inner: _bianco_cards_by(), (None,)),
    "five-crowns _ForcedFirstTurn(Planning)": (
        five_crowns_engine,
        lambda inner: five_crowns_odds.play_odds(
            five_crowns_rules.FiveCrownsConfig(), inner, FIVE_CROWNS_QUESTION, 60, 4),
        (FiveCrownsHeuristic(), FiveCrownsRandom(), [_OwnDraw()] + [FiveCrownsHeuristic()] * 3)),
}
DISPATCH = {manille_dealing: manille_engine.Dispatch, bianco_dealing: bianco_engine.Dispatch,
            five_crowns_engine: five_crowns_engine.Dispatch}


def _same(a, b) -> bool:
    if isinstance(a, pl.DataFrame):
        return a.equals(b)
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("wrapper, policy", [
    (w, i) for w, (_, _, inner) in WRAPPERS.items() for i in range(len(inner))])
def test_a_pickled_wrapper_plays_as_the_original(monkeypatch, wrapper, policy):
    module, play, inner = WRAPPERS[wrapper]
    original = play(inner[policy])
    monkeypatch.setattr(module, "Dispatch", _shipped(DISPATCH[module]))
    assert _same(play(inner[policy]), original)


@pytest.mark.parametrize("make", [
    lambda: manille_dealing._Forced(ManilleRandom(), 1),
    lambda: bianco_dealing._Forced(BiancoRandom(), 1, 0),
    lambda: bianco_odds.CardsBy(BiancoHeuristic(), BiancoRandom()),
    lambda: five_crowns_odds._ForcedFirstTurn(FiveCrownsRandom(), True, None),
    lambda: five_crowns_odds._ForcedFirstTurnPlanning(FiveCrownsHeuristic(), False, 3),
])
def test_a_pickled_wrapper_keeps_its_flags(make):
    wrapper = make()
    copy = pickle.loads(pickle.dumps(wrapper))
    for flag in ("uses_noise", "costly", "wants_world"):
        assert getattr(copy, flag, False) == getattr(wrapper, flag, False)


def test_a_subclass_that_redefines_draw_has_its_first_draw_forced_beside_planners():
    """Seat 0 is asked ``draw`` (its class redefines it), the others plan: the forced draw
    is played. (The ``__getattr__`` wrapper let the planners' rule reach through it to the
    parent's ``draw_with_plan``, so 'draw' played as the policy would, here as 'take'.)"""
    frame = five_crowns_odds.play_odds(five_crowns_rules.FiveCrownsConfig(),
                                       WRAPPERS["five-crowns _ForcedFirstTurn(Planning)"][2][2],
                                       FIVE_CROWNS_QUESTION, 60, 4)
    out = dict(frame.group_by("decision").agg(pl.col("out_this_turn").mean()).rows())
    assert out["take"] == 1.0 and out["draw"] < 1.0
