"""Truc's headline figures, declared as polars expressions over the deal table.

``analysis`` evaluates them lazily over a whole run and attaches intervals.
A deal is *scored* when somebody wins it (played to the end or ended by a
refusal, TR-3/TR-4); null and abandoned deals score nothing (TR-2, TR-3).
"""

from __future__ import annotations

import polars as pl

from simulators.core.game import Metric, mean, rate

SCORED = pl.col("outcome").is_in(["played", "refused"])
NULL = pl.col("outcome") == "null"
NON_DEALER = 1 - pl.col("dealer")
SEAT0_NET = pl.col("delta_0").cast(pl.Int16) - pl.col("delta_1")
NON_DEALER_NET = (pl.when(pl.col("dealer") == 0)
                  .then(pl.col("delta_1").cast(pl.Int16) - pl.col("delta_0"))
                  .otherwise(pl.col("delta_0").cast(pl.Int16) - pl.col("delta_1")))

DEAL_METRICS: tuple[Metric, ...] = (
    rate("non_dealer_wins", "non-dealer wins", pl.col("winner") == NON_DEALER, where=SCORED,
         doc="share of scored deals won by the non-dealer, who leads the first trick (TR-3)"),
    mean("non_dealer_net", "non-dealer's net points per deal", NON_DEALER_NET,
         doc="mean of the non-dealer's points minus the dealer's, over every deal"),
    rate("new_cards", "new cards dealt", pl.col("hands_dealt") > 1,
         doc="share of deals where both players asked for new cards at least once (TR-2)"),
    rate("abandoned", "abandoned deal", pl.col("outcome") == "abandoned",
         doc="share of deals abandoned because the stock ran short (TR-2)"),
    rate("pourri_deal", "deal with a pourri trick", pl.col("pourri_tricks") > 0,
         doc="share of deals with at least one pourri trick (TR-3)"),
    rate("null_deal", "null deal", NULL,
         doc="share of deals whose three tricks are pourri, scoring nothing (TR-3)"),
    rate("proposal_deal", "deal with a proposal", pl.col("proposals") > 0,
         doc="share of deals where someone proposes to double (TR-4)"),
    rate("refused", "ended by a refusal", pl.col("outcome") == "refused",
         doc="share of deals ended by a refused proposal (TR-4)"),
    rate("banco_deal", "deal with a banco", pl.col("bancos") > 0,
         doc="share of deals with a banco proposal (TR-5)"),
    rate("counter_banco_deal", "deal with a counter-banco", pl.col("counter_bancos") > 0,
         doc="share of deals with a counter-banco (TR-5)"),
    mean("points", "points scored per scored deal", pl.col("points"), where=SCORED,
         doc="mean points the winner of a scored deal scores (the stake, TR-4/TR-5)"),
)

# ---------------------------------------------------------------- the report's figures
# (analysis/reports/truc.py evaluates them, grouped by score where it says so)

NON_DEALER_ASKS = rate("non_dealer_asks", "non-dealer asks", pl.col("asks_nondealer") > 0,
                       doc="share of deals where the non-dealer asks for new cards (TR-2)")
DEALER_ASKS_TOO = rate("dealer_asks_too", "dealer asks too", pl.col("asks_dealer") > 0,
                       where=pl.col("asks_nondealer") > 0,
                       doc="share of the deals where the non-dealer asks in which the dealer "
                           "asks too (TR-2)")
HANDS_DEALT = mean("hands_dealt", "hands dealt per deal", pl.col("hands_dealt"),
                   doc="hands dealt in a deal, the first included (TR-2)")
SEAT0_NET_MEAN = mean("seat0_net", "seat 0's net points per deal", SEAT0_NET,
                      doc="seat 0's points minus seat 1's, per deal")


def won_in(role: str, tricks: int) -> Metric:
    """Share of deals that ``role`` (``"dealer"``, ``"non_dealer"``) wins after ``tricks``
    tricks, or (``role="null"``) that end null (TR-3)."""
    if role == "null":
        event = NULL & (pl.col("tricks_played") == tricks)
    else:
        side = pl.col("dealer") if role == "dealer" else NON_DEALER
        event = (pl.col("winner") == side) & (pl.col("tricks_played") == tricks)
    return rate(f"{role}_in_{tricks}", f"{role} in {tricks} tricks", event)


PROPOSAL_ACCEPTED = rate("proposal_accepted", "proposal accepted", ~pl.col("refused"),
                         doc="share of proposals accepted, over a table of one row per "
                             "proposal whose boolean ``refused`` marks the refused one (a "
                             "refusal ends the deal, TR-4)")

# Whole matches: the matches and manches tables.
FIRST_NON_DEALER_WINS = rate("first_non_dealer_wins", "first non-dealer wins the match",
                             pl.col("winner") != pl.col("first_dealer"),
                             doc="share of matches won by the player who does not deal first "
                                 "(TR-6)")
DEALS_PER_MATCH = mean("deals_per_match", "deals per match", pl.col("deals"),
                       doc="deals of a match, null and abandoned ones included (TR-6)")
THIRD_MANCHE = rate("third_manche", "match goes to a third manche",
                    pl.col("manches_0") + pl.col("manches_1") == 3,
                    doc="share of matches decided in a third manche (TR-6)")
DEALS_PER_MANCHE = mean("deals_per_manche", "deals per manche", pl.col("deals"),
                        doc="deals of a manche (the manches table, TR-6)")

ODDS_METRICS: tuple[tuple[str, Metric], ...] = tuple(
    pair for decision in ("play", "ask") for pair in (
        (decision, rate("p_win", "P(win the deal)", pl.col("won"))),
        (decision, rate("p_lose", "P(lose the deal)", pl.col("lost"))),
        (decision, mean("net", "net points per deal", pl.col("net"))),
    )
) + (("ask", mean("net_vs_play", "net points minus playing's, same deals",
                  pl.col("net_vs_play"))),)
"""(decision, metric) pairs of ``tapisvert odds``, each evaluated on that decision's rows."""
