"""Five Crowns' headline figures, declared as polars expressions.

Round tables carry one ``penalty_<seat>`` column per seat; the expressions
select them by pattern, so one declaration serves every player count.
"""

from __future__ import annotations

import polars as pl

from simulators.core.game import Metric, mean, rate

PENALTIES = pl.col(r"^penalty_\d+$")
FIRST = (pl.col("dealer") + 1) % pl.col("n_players")  # FC-3: the dealer's left plays first
WENT_OUT = pl.col("went_out") >= 0

ROUND_METRICS: tuple[Metric, ...] = (
    rate("went_out_rate", "someone goes out", WENT_OUT,
         doc="share of rounds where a player goes out before the turn cap (FC-5)"),
    rate("first_player_out", "first player goes out", pl.col("went_out") == FIRST,
         doc="share of rounds where the player left of the dealer goes out (FC-3)"),
    rate("dealer_out", "dealer goes out", pl.col("went_out") == pl.col("dealer")),
    mean("out_turn", "own turn of going out", pl.col("out_player_turn"), where=WENT_OUT,
         doc="the going-out player's own turn number, over rounds where someone goes out"),
    mean("mean_penalty", "penalty per player", pl.mean_horizontal(PENALTIES),
         doc="penalty points per player and round (FC-5)"),
    mean("first_penalty", "first player's penalty",
         pl.concat_list(PENALTIES).list.get(FIRST.cast(pl.Int64))),
    mean("dealer_penalty", "dealer's penalty",
         pl.concat_list(PENALTIES).list.get(pl.col("dealer").cast(pl.Int64))),
)

SOLITAIRE_METRICS: tuple[Metric, ...] = (
    rate("win_rate", "solitaire won", pl.col("won"),
         doc="share of solitaire games where all 11 hands close (FC-8)"),
    mean("hands_closed", "hands closed of 11", pl.col("hands_closed")),
)
