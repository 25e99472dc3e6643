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
