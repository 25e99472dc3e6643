"""Bianco Mano's headline figures, declared as polars expressions over the deal table.

``analysis`` evaluates them lazily over a whole run (only counts leave the
query) and attaches Wilson intervals. The denominators follow the rules:
the take rate counts every deal, the other rates only taken deals (BM-7).
"""

from __future__ import annotations

import polars as pl

from simulators.bianco_mano.rules import BONUS_POINTS, CONTRACT_POINTS
from simulators.core.game import Metric, mean, rate

TAKEN = pl.col("outcome") != "all_pass"
MADE = pl.col("outcome").is_in(["made", "capo"])  # BM-10: 45 points or more (capo included)
CAPO = pl.col("outcome") == "capo"  # BM-10: all 75 points
TAKER_POSITION = pl.when(TAKEN).then(
    (pl.col("taker").cast(pl.Int16) - pl.col("dealer") - 1) % pl.col("n_players"))
"""The taker's seat counted from the dealer's left (0 speaks first, n-1 is the dealer, BM-7);
null when all pass."""
TAKING_TURN = (pl.col("bid_round").cast(pl.Int16) - 1) * pl.col("n_players") + TAKER_POSITION
"""The turn of the bidding at which the deal is taken: round 1 is turns 0..n-1, round 2
n..2n-1 (BM-7); null when all pass."""

DEAL_METRICS: tuple[Metric, ...] = (
    rate("take_rate", "take rate", TAKEN,
         doc="share of deals where someone takes (BM-7); all-pass deals are redealt"),
    rate("round2_share", "taken in round 2", pl.col("bid_round") == 2, where=TAKEN,
         doc="share of taken deals taken in the second bidding round, naming a family (BM-7)"),
    rate("contract_success", "contract success", MADE, where=TAKEN,
         doc="share of taken deals where the taker's side counts 45 points or more (BM-10)"),
    rate("capo_rate", "capo", CAPO, where=TAKEN,
         doc="share of taken deals where the taker's side wins all 75 points (BM-10)"),
    rate("bonus_rate", "bonus announced", pl.col("bonus_announced"), where=TAKEN,
         doc="share of taken deals where the taker announces the Bianco Mano bonus (BM-11)"),
)

# ---------------------------------------------------------------- the report's figures
# (analysis/reports/bianco_mano.py evaluates them, grouped by position, player count…)

ALL_PASS_RATE = rate("all_pass_rate", "all pass", ~TAKEN,
                     doc="share of deals where every player passes twice (BM-7)")
FAILURE_RATE = rate("failure_rate", "contract failed", ~MADE, where=TAKEN,
                    doc=f"share of taken deals where the taker's side counts fewer than "
                        f"{CONTRACT_POINTS} points (BM-10)")
NEAR_MISS = rate(
    "near_miss", "near miss",
    pl.col("side_points").is_between(CONTRACT_POINTS - BONUS_POINTS, CONTRACT_POINTS - 1),
    where=TAKEN,
    doc=f"share of taken deals failing by {BONUS_POINTS} points or fewer, the band the bonus "
        "can rescue (BM-10, BM-11)")
SIDE_POINTS = mean("side_points", "taker side's card points", pl.col("side_points"),
                   where=TAKEN, doc="card points of the taker's side, espion included (BM-10)")
DOMINANT_COUNT = mean("dominant_count", "taker's dominant cards",
                      pl.col("taker_dominant_count"), where=TAKEN,
                      doc="dominant cards the taker holds in a taken deal (BM-4)")


def taken_at(position: int, bid_round: int | None = None) -> Metric:
    """Share of all deals taken by the seat at ``position`` (0 = dealer's left), in round
    ``bid_round`` or in either."""
    event = TAKER_POSITION == position
    if bid_round is not None:
        event = event & (pl.col("bid_round") == bid_round)
    return rate("taken_at", "taken at this position", event)


def taken_when_asked(position: int, bid_round: int) -> Metric:
    """Share of the deals whose bidding reaches ``position`` in ``bid_round`` that it takes
    there: every earlier seat has passed (BM-7)."""
    turn = (bid_round - 1) * pl.col("n_players") + position
    return rate("taken_when_asked", "taken when asked", TAKING_TURN == turn,
                where=TAKING_TURN.is_null() | (TAKING_TURN >= turn))


# Whole games (the games table, one row per game and seat); ``n_players`` is added by the
# reader when the table lacks it.
WIN_SHARE = mean("win_share", "win share",
                 pl.col("is_winner").cast(pl.Float64) / pl.col("n_winners"),
                 doc="a seat's share of the win, 1/k for a k-way tie (BM-12)")
GAME_SCORE = mean("game_score", "game score", pl.col("score"),
                  doc="a seat's score after the game's 10 played deals (BM-12)")
FROM_FIRST_DEALER = (pl.col("seat") - pl.col("first_dealer")) % pl.col("n_players")
"""Seats to the first dealer's left: 0 = the first dealer (BM-2)."""

# Paired bonus arms: a bonus-on deal table joined with the same deals' bonus-off outcome,
# as the boolean columns ``taken_without_bonus`` and ``made_without_bonus``.
RESCUED = MADE & pl.col("taken_without_bonus") & ~pl.col("made_without_bonus")
LOST = ~MADE & TAKEN & pl.col("made_without_bonus")
TAKEN_BOTH = TAKEN & pl.col("taken_without_bonus")
RESCUED_RATE = rate("rescued", "rescued by the bonus", RESCUED, where=TAKEN_BOTH,
                    doc="share of deals taken with and without the bonus that fail without "
                        "it and are made with it (BM-11)")
RESCUED_OF_ANNOUNCED = rate("rescued_of_announced", "announced and rescued", RESCUED,
                            where=TAKEN & pl.col("bonus_announced"),
                            doc="share of announced contracts the bonus rescues (BM-11)")

_DECISION_TAKE = pl.col("decision") == "take"
_PLAYED = pl.col("outcome").is_not_null()

ODDS_METRICS: tuple[tuple[str, Metric], ...] = (
    ("take", rate("p_made", "P(made)", MADE, where=_PLAYED)),
    ("take", rate("p_capo", "P(capo)", CAPO, where=_PLAYED)),
    ("take", mean("side_points", "side card points", pl.col("side_points"), where=_PLAYED)),
    ("take", mean("score_change", "score change", pl.col("score_change"), where=_PLAYED)),
    ("take", rate("p_turn_comes", "P(bidder's turn comes)", pl.col("reached"),
                  where=_DECISION_TAKE)),
    ("pass", mean("score_change", "score change", pl.col("score_change"), where=_PLAYED)),
    ("pass", rate("p_other_takes", "P(another player takes)", pl.col("other_takes"),
                  where=_PLAYED)),
    ("pass", rate("p_all_pass", "P(all pass)", ~pl.col("other_takes"), where=_PLAYED)),
    ("pass", rate("p_partner", "P(partner of another taker)", pl.col("partner_of_other"),
                  where=_PLAYED)),
)
"""(decision, metric) pairs of ``tapisvert odds``, each evaluated on that decision's rows."""


def play_metrics(plays: tuple[str, ...]) -> tuple[tuple[str, Metric], ...]:
    """(way of playing, metric) pairs of ``tapisvert odds --play``: the bidder takes on the
    same deals, the cards played by the policies, by PIMC players or double-dummy (BM-10)."""
    out: list[tuple[str, Metric]] = []
    for way in plays:
        out.append((way, rate("p_made", "P(made)", pl.col("made"))))
        out.append((way, rate("p_capo", "P(capo)", pl.col("capo"))))
        out.append((way, mean("side_points", "side card points", pl.col("side_points"))))
        out.append((way, mean("score_change", "score change", pl.col("score_change"))))
    return tuple(out)
