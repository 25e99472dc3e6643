"""Manille's headline figures, declared as polars expressions over the deal table.

``analysis`` evaluates them lazily over a whole run and attaches intervals.
The taking team is the dealer's (MA-3); a deal is *made* when the taking
team ends above 34 of the 68 points (MA-6).
"""

from __future__ import annotations

import polars as pl

from simulators.core.game import Metric, mean, rate

MADE = pl.col("result") == "taking"
SANS_ATOUT = pl.col("sans_atout")

DEAL_METRICS: tuple[Metric, ...] = (
    rate("dealer_names", "dealer names the trump", ~pl.col("dealer_passed"),
         doc="share of deals where the dealer names the trump himself instead of passing (MA-3)"),
    rate("taking_success", "taking team above 34", MADE,
         doc="share of deals where the dealer's team ends above 34 of the 68 points (MA-6)"),
    rate("sans_atout_rate", "sans atout named", SANS_ATOUT,
         doc="share of deals played sans atout (MA-3)"),
    rate("sans_atout_success", "sans atout success", MADE, where=SANS_ATOUT,
         doc="share of sans-atout deals where the taking team ends above 34 (MA-6)"),
    rate("contre_rate", "contre said", pl.col("contre_level") >= 1,
         doc="share of deals where an opponent says contre (MA-4)"),
    rate("surcontre_rate", "surcontre said", pl.col("contre_level") == 2,
         doc="share of deals where the taking team says surcontre (MA-4)"),
    rate("draw_rate", "34-34 draw", pl.col("result") == "draw",
         doc="share of deals ending 34-34, scoring nothing (MA-6)"),
    mean("taking_margin", "taking team's net score per deal", pl.col("taking_margin"),
         doc="mean of the taking team's deal score minus the defence's (MA-6 points)"),
)

# ---------------------------------------------------------------- the report's figures
# (analysis/reports/manille.py evaluates them, grouped by chooser, trump or mode)

PARTNER_NAMES = rate("partner_names", "partner names the trump", pl.col("dealer_passed"),
                     doc="share of deals where the dealer passes and his partner names (MA-3)")
TAKING_POINTS = mean("taking_points", "taking team's card points", pl.col("taking_points"),
                     doc="the taking team's card points, of 68 (MA-6)")
SURCONTRE_AFTER_CONTRE = rate("surcontre_after_contre", "surcontre after a contre",
                              pl.col("contre_level") == 2, where=pl.col("contre_level") >= 1,
                              doc="share of contred deals the taking team surcontres (MA-4)")
CONTRE_WINS = rate("contre_wins", "contre wins", ~MADE, where=pl.col("contre_level") >= 1,
                   doc="share of contred deals where the taking team does not end above 34")


def trump_named(choice: str) -> Metric:
    """Share of deals whose trump is ``choice`` (``P C K T`` or ``SA``, MA-3)."""
    return rate(f"trump_{choice}", f"{choice} named", pl.col("trump").cast(pl.String) == choice)


# Whole games: the games table.
GAME_LENGTH = mean("game_length", "deals per game", pl.col("n_deals"),
                   doc="deals played until a team reaches the target (MA-2)")
FIRST_DEALER_TEAM_WINS = rate("first_dealer_team_wins", "first dealer's team wins",
                              pl.col("first_dealer_team_wins"),
                              doc="share of games won by the first dealer's team (MA-2)")

_PLAYED = pl.col("made").is_not_null()


def odds_metrics(decisions: tuple[str, ...]) -> tuple[tuple[str, Metric], ...]:
    """(decision, metric) pairs of ``tapisvert odds``, each on that decision's rows."""
    out: list[tuple[str, Metric]] = []
    for d in decisions:
        out.append((d, rate("p_made", "P(taking team above 34)", pl.col("made"))))
        out.append((d, mean("margin", "net score per deal", pl.col("margin"))))
        if d != "pass":
            out.append((d, mean("margin_vs_pass", "net score minus passing's, same deals",
                                pl.col("margin_vs_pass"))))
    return tuple(out)


def play_metrics(plays: tuple[str, ...]) -> tuple[tuple[str, Metric], ...]:
    """(way of playing, metric) pairs of ``tapisvert odds --play``: the same deals played by
    the policies, by PIMC players or double-dummy (MA-5, MA-6)."""
    out: list[tuple[str, Metric]] = []
    for way in plays:
        out.append((way, rate("p_made", "P(taking team above 34)", pl.col("made"))))
        out.append((way, mean("taking_points", "taking team's points", pl.col("taking_points"),
                              doc="the taking team's points of 68 (MA-6)")))
        out.append((way, mean("margin", "net score per deal", pl.col("margin"))))
    return tuple(out)
