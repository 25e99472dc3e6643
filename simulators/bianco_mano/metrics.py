"""Bianco Mano's headline figures, declared as polars expressions over the deal table.

``analysis`` evaluates them lazily over a whole run (only counts leave the
query) and attaches Wilson intervals. The denominators follow the rules:
the take rate counts every deal, the other rates only taken deals (BM-7).
"""

from __future__ import annotations

import polars as pl

from simulators.core.game import Metric, mean, rate

TAKEN = pl.col("outcome") != "all_pass"
MADE = pl.col("outcome").is_in(["made", "capo"])  # BM-10: 45 points or more (capo included)

DEAL_METRICS: tuple[Metric, ...] = (
    rate("take_rate", "take rate", TAKEN,
         doc="share of deals where someone takes (BM-7); all-pass deals are redealt"),
    rate("round2_share", "taken in round 2", pl.col("bid_round") == 2, where=TAKEN,
         doc="share of taken deals taken in the second bidding round, naming a family (BM-7)"),
    rate("contract_success", "contract success", MADE, where=TAKEN,
         doc="share of taken deals where the taker's side counts 45 points or more (BM-10)"),
    rate("capo_rate", "capo", pl.col("outcome") == "capo", where=TAKEN,
         doc="share of taken deals where the taker's side wins all 75 points (BM-10)"),
    rate("bonus_rate", "bonus announced", pl.col("bonus_announced"), where=TAKEN,
         doc="share of taken deals where the taker announces the Bianco Mano bonus (BM-11)"),
)

_DECISION_TAKE = pl.col("decision") == "take"
_PLAYED = pl.col("outcome").is_not_null()

ODDS_METRICS: tuple[tuple[str, Metric], ...] = (
    ("take", rate("p_made", "P(made)", MADE, where=_PLAYED)),
    ("take", rate("p_capo", "P(capo)", pl.col("outcome") == "capo", where=_PLAYED)),
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
