"""Five Crowns engine: referee cross-check, games, solitaire, bad input.

Random play at several batch sizes, chunking, card conservation and the
FC-5/FC-7 invariants run for every game in tests/test_conformance.py
(hooks in simulators/five_crowns/game.py).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from simulators.five_crowns import rules as R
from simulators.five_crowns.crosscheck import check_rounds, check_solitaire
from simulators.five_crowns.engine import IllegalAction, simulate_games, simulate_rounds
from simulators.five_crowns.game import make_policy
from simulators.five_crowns.policies import (
    HeuristicPolicy,
    SolitaireHeuristic,
)
from simulators.five_crowns.rules import FiveCrownsConfig
from simulators.five_crowns.solitaire import simulate_solitaire


def _check_chunk(n_players: int, policy: str, round_no: int, seed: int, first: int,
                 count: int) -> int:
    """Rounds ``first ..`` of one round number replayed by the referee (FC-2..FC-6)."""
    config = FiveCrownsConfig(n_players=n_players, round_no=round_no, max_turns=60)
    return check_rounds(simulate_rounds(config, make_policy(policy), count, seed,
                                        first_round_id=first))

@pytest.mark.parametrize("n_players", range(2, 8))
def test_engine_rounds_replayed_by_referee(n_players):
    """Every round number, both policies: moves legal, same winner of the race, same penalties."""
    checked = sum(_check_chunk(n_players, policy, round_no, 3, 0, 6)
                  for round_no in range(1, 12) for policy in ("heuristic", "random"))
    assert checked == 11 * 2 * 6


@pytest.mark.slow
@pytest.mark.parametrize("n_players", range(2, 8))
def test_engine_rounds_replayed_by_referee_at_scale(n_players):
    """The issue's figure: >= 5,000 rounds per player count."""
    per = 5_000 // 22 + 1
    checked = sum(_check_chunk(n_players, policy, round_no, 7, round_no * per, per)
                  for round_no in range(1, 12) for policy in ("heuristic", "random"))
    assert checked >= 5_000


def test_games_total_the_rounds_and_name_the_winner():
    config = FiveCrownsConfig(n_players=3, first_round=6)  # express variant (FC-7)
    batch = simulate_games(config, HeuristicPolicy(), 40, seed=2)
    assert sorted(batch.rounds["round_no"].unique()) == list(range(6, 12))
    per_seat = batch.rounds.group_by("game_id").agg(
        [pl.col(f"penalty_{s}").sum() for s in range(3)]).sort("game_id")
    totals = batch.games.pivot(on="seat", index="game_id", values="total").sort("game_id")
    for s in range(3):
        assert (per_seat[f"penalty_{s}"] == totals[str(s)]).all()
    winners = batch.games.filter(pl.col("is_winner"))
    lowest = batch.games.group_by("game_id").agg(pl.col("total").min().alias("low"))
    assert (winners.join(lowest, on="game_id").select(pl.col("total") == pl.col("low"))
            .to_series().all())
    # the deal passes left each round (FC-2)
    first = batch.rounds.filter(pl.col("round_no") == 6)
    later = batch.rounds.filter(pl.col("round_no") == 8)
    assert ((later["dealer"].to_numpy() - first["dealer"].to_numpy()) % 3 == 2).all()


def test_solitaire_replayed_by_referee_and_wins_sometimes():
    batch = simulate_solitaire(SolitaireHeuristic(), 40, seed=4)
    assert check_solitaire(batch) == 40
    assert batch.table["hands_closed"].mean() > 3


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="n_players must be 2..7"):
        FiveCrownsConfig(n_players=8)
    with pytest.raises(ValueError, match="first_round must be an integer in"):
        FiveCrownsConfig(first_round=12)
    with pytest.raises(ValueError, match="round_no must be an integer in"):
        FiveCrownsConfig(round_no=0)
    with pytest.raises(ValueError, match="HeuristicPolicy.take_margin must be in"):
        HeuristicPolicy(take_margin=-1)
    with pytest.raises(ValueError, match="unknown Five Crowns policy"):
        make_policy("greedy")
    with pytest.raises(ValueError, match="malformed card"):
        R.parse_card("2H")
    with pytest.raises(ValueError, match="appears 3 times"):
        R.parse_cards("7H 7H 7H")


class _Cheat(HeuristicPolicy):
    """Goes out whenever asked, melded or not."""

    def go_out(self, obs):
        return np.ones(len(obs.can), dtype=bool)


def test_going_out_without_melding_raises():
    with pytest.raises(IllegalAction, match=r"going out .* does not meld \(FC-3\)"):
        simulate_rounds(FiveCrownsConfig(n_players=2, round_no=11), _Cheat(), 50, seed=1)


def test_crosscheck_detects_a_tampered_record():
    from simulators.five_crowns import referee

    batch = simulate_rounds(FiveCrownsConfig(n_players=2, round_no=3), HeuristicPolicy(), 5,
                            seed=1)
    assert check_rounds(batch) == 5
    record = batch.record(0)
    seat, took, discard, out = record.turns[0]
    wrong_seat = (seat + 1) % 2
    bad = record.__class__(**{**record.__dict__,
                              "turns": ((wrong_seat, took, discard, out), *record.turns[1:])})
    with pytest.raises(referee.RuleViolation):
        referee.replay_round(bad)


def test_a_subclass_that_redefines_draw_is_asked_draw():
    """The heuristic answers draw and its discard plan in one call (draw_with_plan); a
    user's subclass that redefines only ``draw`` must still be the one deciding."""
    from dataclasses import dataclass

    import numpy as np

    from simulators.five_crowns.engine import simulate_rounds
    from simulators.five_crowns.policies import HeuristicPolicy
    from simulators.five_crowns.rules import FiveCrownsConfig

    @dataclass(frozen=True)
    class NeverTake(HeuristicPolicy):
        def draw(self, obs):
            return np.zeros(len(obs.hand), dtype=bool)

    config = FiveCrownsConfig(n_players=3, round_no=7)
    heuristic = simulate_rounds(config, HeuristicPolicy(), 200, seed=3)
    never = simulate_rounds(config, NeverTake(), 200, seed=3)
    assert heuristic.arrays.turn_took.any()
    assert not never.arrays.turn_took.any()
