"""Five Crowns as the toolkit sees it: units, scores, metrics and conformance hooks.

Registered as the entry point ``five-crowns`` (group ``tapisvert.games``);
see :mod:`simulators.core.game` for what each field means.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulators.core.game import CardArgument, Conformance, Game, Odds, Tables, Unit
from simulators.core.params import check_count
from simulators.five_crowns import rules as R
from simulators.five_crowns.env import FiveCrownsSteps
from simulators.five_crowns.learn import LEARN, NetPolicy
from simulators.five_crowns.lookahead import LookaheadPolicy
from simulators.five_crowns.metrics import ROUND_METRICS, SOLITAIRE_METRICS
from simulators.five_crowns.observations import POLICY_METHODS
from simulators.five_crowns.odds import (
    OddsQuestion,
    describe_odds,
    exact_rows,
    odds_metrics,
    odds_verdict,
    play_odds,
)
from simulators.five_crowns.policies import POLICIES
from simulators.five_crowns.rollout import RolloutPolicy

# ------------------------------------------------------------------ units


def play_rounds(config: R.FiveCrownsConfig, policies, first: int, count: int,
                seed: int) -> Tables:
    """Independent rounds of ``config.round_no``: the ``rounds`` table."""
    from simulators.five_crowns.engine import simulate_rounds

    return {"rounds": simulate_rounds(config, policies, count, seed, first_round_id=first).table}


def play_games(config: R.FiveCrownsConfig, policies, first: int, count: int,
               seed: int) -> Tables:
    """Whole games from ``config.first_round`` to round 11 (FC-7)."""
    from simulators.five_crowns.engine import simulate_games

    batch = simulate_games(config, policies, count, seed, first_game=first)
    return {"rounds": batch.rounds, "games": batch.games}


def play_solitaire(config: R.FiveCrownsConfig, policies, first: int, count: int,
                   seed: int) -> Tables:
    """Solitaire games (FC-8); the config's player count plays no part."""
    from simulators.five_crowns.solitaire import simulate_solitaire

    first = check_count("first", first, low=0)
    if isinstance(policies, list | tuple):
        if len(policies) != 1:
            raise ValueError(f"policies: solitaire is played by one policy, got {len(policies)}")
        policies = policies[0]
    policy = policies
    return {"solitaire": simulate_solitaire(policy, count, seed, first_game=first).table}


def round_scores(tables: Tables, config: R.FiveCrownsConfig) -> np.ndarray:
    """(rounds, seats) minus the penalties: higher is better, as for every game."""
    rounds = tables["rounds"]
    return -np.stack([rounds[f"penalty_{s}"].to_numpy() for s in range(config.n_players)],
                     axis=1).astype(np.int32)


def game_scores(tables: Tables, config: R.FiveCrownsConfig) -> np.ndarray:
    """(games, seats) minus the game totals."""
    games = tables["games"].sort(["game_id", "seat"])
    return -games["total"].to_numpy().reshape(-1, config.n_players).astype(np.int32)


def solitaire_scores(tables: Tables, config: R.FiveCrownsConfig) -> np.ndarray:
    """(games, 1): 1 for a won solitaire game."""
    return tables["solitaire"]["won"].to_numpy().astype(np.int32)[:, None]


ROUNDS = Unit(
    name="rounds", singular="round", default_chunk=5_000, play=play_rounds,
    seat_scores=round_scores, score="minus the penalty points of the round (FC-5; 0 is best)",
    metrics=ROUND_METRICS, policy_methods=POLICY_METHODS, default_size=100_000,
    doc="independent rounds of round_no (FC-2..FC-6)", ignores=("first_round",),
)
GAMES = Unit(
    name="games", singular="game", tables=("rounds", "games"), default_chunk=5_000,
    play=play_games, seat_scores=game_scores,
    score="minus the game's total penalty points (FC-7; lowest total wins)", metrics=ROUND_METRICS,
    cluster="game_id", policy_methods=POLICY_METHODS, default_size=10_000,
    doc="whole games from first_round to round 11 (FC-7)", ignores=("round_no",),
)
SOLITAIRE = Unit(
    name="solitaire", singular="solitaire game", id_column="game_id", default_chunk=2_000,
    play=play_solitaire, seat_scores=solitaire_scores,
    score="1 per solitaire game won (FC-8), else 0", metrics=SOLITAIRE_METRICS,
    policy_methods=("place",), seats=lambda config: 1, default_size=10_000,
    doc="solitaire games (FC-8) with a solitaire policy", ignores=("n_players",),
)

# ------------------------------------------------------------------ conformance


def replay(unit: str, config, policies, first: int, count: int, seed: int) -> int:
    """Engine rounds (or every round of whole games, or solitaire games) replayed by the referee."""
    from simulators.five_crowns import referee
    from simulators.five_crowns.crosscheck import check_rounds, check_solitaire
    from simulators.five_crowns.engine import simulate_games, simulate_rounds
    from simulators.five_crowns.solitaire import simulate_solitaire

    if unit == "rounds":
        return check_rounds(simulate_rounds(config, policies, count, seed, first_round_id=first))
    if unit == "solitaire":
        policy = policies[0] if isinstance(policies, list | tuple) else policies
        return check_solitaire(simulate_solitaire(policy, count, seed, first_game=first))
    batch = simulate_games(config, policies, count, seed, first_game=first)
    checked = 0
    rounds = batch.rounds
    for game_id in batch.game_ids:
        rows = rounds.filter(pl.col("game_id") == game_id).sort("round_no")
        for record, row in zip(batch.records(int(game_id)), rows.iter_rows(named=True),
                               strict=True):
            result = referee.replay_round(record, config)
            mine = (row["went_out"], tuple(row[f"penalty_{s}"] for s in range(config.n_players)))
            theirs = (result.went_out, tuple(result.penalties))
            assert mine == theirs, f"game {game_id} round {record.round_no}: {mine} != {theirs}"
            checked += 1
    return checked


def conservation(config, policies, first: int, count: int, seed: int) -> None:
    """Every deck is the 116-card set (FC-1); hands keep their size; nobody holds a card twice."""
    from simulators.five_crowns.engine import simulate_rounds

    a = simulate_rounds(config, policies, count, seed, first_round_id=first).arrays
    deck_counts = np.stack([np.bincount(d, minlength=R.N_KINDS) for d in a.deck])
    assert (deck_counts[:, :R.N_SUITED] == 2).all(), "two of each suited card (FC-1)"
    assert (deck_counts[:, R.JOKER] == 6).all(), "six jokers (FC-1)"
    assert (a.final_hands.sum(axis=2) == R.cards_dealt(config.round_no)).all(), "hand size"
    held = a.final_hands.sum(axis=1).astype(int)
    assert (held <= deck_counts).all(), "the hands hold no card beyond the deck's copies"


def invariants(unit: str, config, tables: Tables) -> None:
    """The goer scores 0, penalties are bounded, games total their rounds (FC-5, FC-7)."""
    if unit == "solitaire":
        t = tables["solitaire"]
        assert t["hands_closed"].is_between(0, R.SOLITAIRE_HANDS).all(), "0..11 hands"
        assert (t["won"] == (t["hands_closed"] == R.SOLITAIRE_HANDS)).all(), "won = all closed"
        return
    n = config.n_players
    rounds = tables["rounds"]
    penalties = rounds.select([f"penalty_{s}" for s in range(n)]).to_numpy()
    went_out = rounds["went_out"].to_numpy()
    out = went_out >= 0
    assert (penalties[np.flatnonzero(out), went_out[out]] == 0).all(), "the goer scores 0"
    assert (penalties >= 0).all() and (penalties <= 6 * R.JOKER_PENALTY + 13 * 20).all()
    assert (rounds["capped"].to_numpy() == ~out).all(), "a round without goer was capped"
    if unit == "games":
        totals = rounds.group_by("game_id").agg(
            [pl.col(f"penalty_{s}").sum() for s in range(n)]).sort("game_id")
        games = tables["games"].sort(["game_id", "seat"])
        want = totals.select([f"penalty_{s}" for s in range(n)]).to_numpy().ravel()
        assert (games["total"].to_numpy() == want).all(), "game total = sum of rounds (FC-7)"
        per_game = rounds.group_by("game_id").len()
        assert (per_game["len"] == R.N_ROUNDS - config.first_round + 1).all(), "FC-7 rounds"


CONFORMANCE = Conformance(
    configs=(
        R.FiveCrownsConfig(n_players=2, round_no=3, first_round=10, max_turns=30),
        R.FiveCrownsConfig(n_players=4, round_no=7, first_round=10, max_turns=30),
        R.FiveCrownsConfig(n_players=7, round_no=11, first_round=11, max_turns=30),
    ),
    replay=replay, conservation=conservation, invariants=invariants,
    bad_options=(({"n_players": 8}, "n_players"), ({"first_round": 12}, "first_round"),
                 ({"round_no": 0}, "round_no"), ({"max_turns": 5}, "max_turns")),
    slow_policies=("rollout", "lookahead"),  # searches per decision: replayed under -m slow
    doc="whole games are short in the suite's configs (first_round 10 or 11) and random play "
        "is capped at 30 turns per player (rounds without a goer are flagged capped)",
)


ODDS = Odds(question=OddsQuestion, play=play_odds, metrics=odds_metrics, describe=describe_odds,
            reference="draw", exact=exact_rows, verdict=odds_verdict, cards={
                "hand": CardArgument(R.parse_cards, R.format_cards, "JH JD 8C 9C KS 4H 3C"),
                "discard": CardArgument(R.parse_card, R.format_card, "10C"),
                "seen": CardArgument(R.parse_cards, R.format_cards, "QS QS 4D")})

GAME = Game(
    name="five-crowns", title="Five Crowns", config=R.FiveCrownsConfig,
    policies={**POLICIES, "rollout": RolloutPolicy, "lookahead": LookaheadPolicy,
              "net": NetPolicy},
    units=(ROUNDS, GAMES, SOLITAIRE), conformance=CONFORMANCE, odds=ODDS,
    rules_doc="docs/rules/five_crowns.md",
    steps=FiveCrownsSteps,  # one round, one move at a time (env.py): the game-AI environments
    learn=LEARN,  # tapisvert learn five-crowns: the net player's labels, training, certificate
)
make_policy = GAME.make_policy  # a registered policy by name, parameters validated
