"""Bango as the toolkit sees it: units, scores, metrics and conformance hooks.

Registered as the entry point ``bango`` (group ``tapisvert.games``); see
:mod:`simulators.core.game` for what each field means.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulators.bango import rules as R
from simulators.bango.env import BangoSteps
from simulators.bango.learn import LEARN, NetPolicy
from simulators.bango.metrics import GAME_METRICS
from simulators.bango.observations import POLICY_METHODS
from simulators.bango.odds import ODDS_METRICS, OddsQuestion, describe_odds, play_odds
from simulators.bango.policies import POLICIES
from simulators.bango.rollout import RolloutPolicy
from simulators.core.game import CardArgument, Conformance, Game, Odds, Tables, Unit


def play_games(config: R.BangoConfig, policies, first: int, count: int, seed: int) -> Tables:
    """Whole games (BG-2..BG-8): ``games`` (one row per game and seat) and ``turns``."""
    from simulators.bango.engine import simulate_games

    batch = simulate_games(config, policies, count, seed, first_game=first)
    return {"games": batch.games, "turns": batch.turns}


def game_scores(tables: Tables, config: R.BangoConfig) -> np.ndarray:
    """(games, seats) BG-8 scores."""
    games = tables["games"].sort(["game_id", "seat"])
    return games["score"].to_numpy().reshape(-1, config.n_players).astype(np.int32)


GAMES = Unit(
    name="games", singular="game", tables=("games", "turns"), default_chunk=5_000, play=play_games,
    seat_scores=game_scores,
    score="BG-8 points of the game (sequences + colour bonuses - personal discards)",
    metrics=GAME_METRICS, cluster="game_id", policy_methods=POLICY_METHODS, default_size=20_000,
    doc="whole games from the setup to the last card and the final lay (BG-2..BG-8)",
)


def replay(unit: str, config, policies, first: int, count: int, seed: int) -> int:
    """Engine games replayed turn by turn by the referee (every decision, every score)."""
    from simulators.bango.crosscheck import check_games
    from simulators.bango.engine import simulate_games

    return check_games(simulate_games(config, policies, count, seed, first_game=first))


def conservation(config, policies, first: int, count: int, seed: int) -> None:
    """All 99 cards accounted for in every game (BG-1)."""
    from simulators.bango.crosscheck import check_conservation
    from simulators.bango.engine import simulate_games

    check_conservation(simulate_games(config, policies, count, seed, first_game=first))


def invariants(unit: str, config, tables: Tables) -> None:
    """Scores add up (BG-8), the whole stock is revealed (BG-7), turns go clockwise."""
    games, turns = tables["games"], tables["turns"]
    seqs = range(R.MAX_SEQUENCES)
    points = sum(games[f"seq{s}_len"].cast(pl.Int32) + games[f"seq{s}_bonus"] for s in seqs)
    assert (games["score"] == points - games["personal_discards"]).all(), "BG-8 score"
    for s in seqs:
        assert (games[f"seq{s}_bonus"] <= games[f"seq{s}_len"]).all(), "bonus <= length"
        assert ((games[f"seq{s}_len"] == 0) | (games[f"seq{s}_len"] >= R.MIN_OPEN)).all()
    assert games["n_sequences"].is_between(0, R.MAX_SEQUENCES).all(), "at most 3 sequences"
    assert (games["n_winners"] >= 1).all()
    stock = R.N_CARDS - config.n_removed - config.n_players
    revealed = turns.group_by("game_id").agg(pl.col("revealed").sum())
    assert (revealed["revealed"] == stock).all(), "every stock card is revealed once (BG-7)"
    first = games.filter(pl.col("seat") == 0).select("game_id", "first_player")
    seats = turns.join(first, on="game_id")
    assert (seats["seat"] == (seats["first_player"] + seats["turn"]) % config.n_players).all(), \
        "turns go clockwise from the first player (BG-2)"


CONFORMANCE = Conformance(
    configs=(
        R.BangoConfig(n_players=2),
        R.BangoConfig(n_players=4, free_discard=True),
        R.BangoConfig(n_players=5, removed=20, hand_limit=4),
    ),
    replay=replay, conservation=conservation, invariants=invariants,
    bad_options=(({"n_players": 6}, "n_players"), ({"removed": 95}, "removed"),
                 ({"hand_limit": 0}, "hand_limit"), ({"free_discard": "yes"}, "free_discard")),
    slow_policies=("rollout",),  # about a second a game: replayed under -m slow
)

ODDS = Odds(question=OddsQuestion, play=play_odds, metrics=ODDS_METRICS, describe=describe_odds,
            cards={"hand": CardArgument(R.parse_cards, R.format_cards, "4B 6R"),
                   "centre": CardArgument(R.parse_cards, R.format_cards, "5Y 9K 2V"),
                   "sequences": CardArgument(R.parse_sequences, R.format_sequences,
                                             "7B 8B 9B; 1R 2R"),
                   "seen": CardArgument(R.parse_cards, R.format_cards, "1R 1B 3Y")})

GAME = Game(
    name="bango", title="Bango", config=R.BangoConfig,
    policies={**POLICIES, "rollout": RolloutPolicy, "net": NetPolicy}, units=(GAMES,),
    conformance=CONFORMANCE, odds=ODDS, rules_doc="docs/rules/bango.md",
    steps=BangoSteps,  # one whole game, one move at a time (env.py): the game-AI environments
    learn=LEARN,
)
make_policy = GAME.make_policy  # a registered policy by name, parameters validated
