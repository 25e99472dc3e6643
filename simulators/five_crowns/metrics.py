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

# ---------------------------------------------------------------- the report's figures
# (analysis/reports/five_crowns.py evaluates them by round number, position, player count)


def out_by_turn(k: int) -> Metric:
    """Share of rounds where someone has gone out by his own turn ``k`` (FC-5)."""
    return rate(f"out_by_turn_{k}", f"out by turn {k}",
                WENT_OUT & (pl.col("out_player_turn") <= k))


# Whole games: the games table (one row per game and seat); ``n_players`` added by the reader.
FROM_FIRST_DEALER = (pl.col("seat") - pl.col("first_dealer")) % pl.col("n_players")
"""Seats to the first dealer's left: 0 = the first dealer, 1 = the first to play (FC-3)."""
GAME_TOTAL = mean("game_total", "game total", pl.col("total"),
                  doc="a seat's penalty total over the game's rounds (FC-7)")
WIN_SHARE = mean("win_share", "win share",
                 pl.col("is_winner").cast(pl.Float64) / pl.col("n_winners"),
                 doc="a seat's share of the win, 1/k for a k-way tie (FC-7)")


def hand_closed(h: int) -> Metric:
    """Share of solitaire games closing hand ``h`` (0 = the 3-card hand, FC-8)."""
    return rate(f"hand_{h}_closed", f"hand {h + 3} closed", pl.col(f"closed_at_{h}") >= 0)


SOLITAIRE_METRICS: tuple[Metric, ...] = (
    rate("win_rate", "solitaire won", pl.col("won"),
         doc="share of solitaire games where all 11 hands close (FC-8)"),
    mean("hands_closed", "hands closed of 11", pl.col("hands_closed")),
)
