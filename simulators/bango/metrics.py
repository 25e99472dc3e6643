"""Bango's headline figures, declared as polars expressions over the per-seat games table."""

from __future__ import annotations

import polars as pl

from simulators.core.game import Metric, mean, rate

FIRST = pl.col("order") == 0  # BG-2: the first player
WIN_SHARE = pl.col("is_winner").cast(pl.Float64) / pl.col("n_winners")

GAME_METRICS: tuple[Metric, ...] = (
    mean("mean_score", "score per player", pl.col("score"),
         doc="BG-8 points per player and game (sequences + bonuses - personal discards)"),
    mean("first_player_win_share", "first player's win share", WIN_SHARE, where=FIRST,
         doc="the first player's share of the win (1/k for a k-way tie); fair is 1/n"),
    mean("first_player_score", "first player's score", pl.col("score"), where=FIRST),
    rate("winner_is_first", "first player wins (ties count)", pl.col("is_winner"),
         where=FIRST),
    mean("explosions", "explosions per player", pl.col("explosions"),
         doc="explosions suffered as the active player (BG-4), per player and game"),
    mean("bangos", "bangos per player", pl.col("bangos"),
         doc="cards destroyed with a bango (BG-5), per player and game"),
    mean("personal_discards", "personal discards per player", pl.col("personal_discards")),
    mean("sequences", "sequences per player", pl.col("n_sequences")),
    mean("turns", "player-turns per game", pl.col("turns"), where=pl.col("seat") == 0,
         doc="game length: turns until the last card is drawn (BG-7)"),
)

# ---------------------------------------------------------------- the report's figures
# (analysis/reports/bango.py evaluates them by player count, playing order, reveal…)

# Window expressions over game_id: evaluate these two without by= or cluster= (one row per
# game already, where=FIRST).
_GAME_LEADER = pl.col("score").max().over("game_id")
_RUNNER_UP = pl.col("score").top_k(2).min().over("game_id")
WIN_SHARE_MEAN = mean("win_share", "win share", WIN_SHARE,
                      doc="a player's share of the win (1/k for a k-way tie); fair is 1/n")
WINNING_SCORE = mean("winning_score", "winning score", _GAME_LEADER, where=FIRST,
                     doc="the highest score of a game, one value per game (BG-8)")
WINNER_MARGIN = mean("winner_margin", "winner's margin", _GAME_LEADER - _RUNNER_UP, where=FIRST,
                     doc="the highest score minus the second highest, one value per game")
BLACKS_RECEIVED = mean("blacks_received", "black cards received per player",
                       pl.col("blacks_received"),
                       doc="black cards a player receives in a game (BG-6)")
ROUNDS = mean("rounds", "rounds of the table", pl.col("turns") / pl.col("n_players"),
              where=pl.col("seat") == 0, doc="player-turns per game over the player count")

# The turns table (one row per turn).
EXPLOSION_RATE = rate("explosion_rate", "turn ends in an explosion", pl.col("exploded"),
                      doc="share of turns ending in an explosion a bango did not cancel (BG-4)")


def explodes_at(k: int) -> Metric:
    """Share of the turns revealing a k-th card whose k-th card explodes (BG-4)."""
    return rate(f"explodes_at_{k}", f"card {k} explodes",
                pl.col("exploded") & (pl.col("revealed") == k), where=pl.col("revealed") >= k)
