"""Manille coincée balance report: declared for :mod:`analysis.reporting`.

Who names the trump and how each choice fares, sans atout, contre and
surcontre (and what they gain against never countering, paired on the same
deals), the taking side's edge per deal and per game, the 34-34 draw, game
length to 50, 100 and 150, and the first dealer's advantage over whole
games. Every simulation is one named experiment of :func:`plan`, played by
the runner (``tapisvert report manille --n-jobs 2``); each section reads its
runs' tables, summarises them into a tidy table ``..., value, low, high, n``,
draws one figure and states its findings.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from analysis import stats
from analysis.experiment import Experiment
from analysis.reporting import (
    Plot,
    Report,
    ReportContext,
    Runs,
    Section,
    Table,
    estimate_row,
    find_estimate,
    finite,
    formatted,
    group_sizes,
    json_number,
    learned_player_parts,
    learned_policy,
    measured_commands,
    measured_pieces,
    metric_rows,
    new_figure,
    num,
    paired_policy_figure,
    paired_policy_rows,
    paired_policy_table,
    pct,
    percent_axis,
    png,
    policy_text,
    pp,
    read_measured,
    row_estimate,
    sample_text,
    yerr,
)
from simulators.manille import metrics as MM
from simulators.manille import rules as R
from simulators.manille import solver as manille_solver

BASE_DEALS = 400_000
BASE_GAMES = 30_000
TARGETS = R.TARGETS
NEVER = 200.0  # a contre/surcontre threshold no hand reaches: the "never counter" arm
CHOICES = ("P", "C", "K", "T", "SA")
DEAL = {m.name: m for m in MM.DEAL_METRICS}  # the headline metrics `simulate` prints
DEAL_COLUMNS = ("deal_id", "dealer_passed", "trump", "sans_atout", "contre_level",
                "taking_points", "result", "taking_score", "defence_score", "taking_margin",
                "chooser_trumps")


def _sizes(ctx: ReportContext) -> dict[str, int]:
    return {"deals": ctx.size(BASE_DEALS, 400), "games": ctx.size(BASE_GAMES, 100)}


def _never_counter(policy):
    """The base policy that never says contre nor surcontre (section c's paired arm)."""
    params = policy.get_params()
    if "contre_threshold" not in params:
        return policy
    return type(policy).from_params(**{**params, "contre_threshold": NEVER,
                                       "surcontre_threshold": NEVER})


def plan(ctx: ReportContext) -> dict[str, Experiment]:
    """Every simulation of the report, by name."""
    sizes = _sizes(ctx)
    runs = {"deals": ctx.experiment("deals", sizes["deals"]),
            "deals_never_contre": ctx.experiment("deals", sizes["deals"],
                                                 policies=_never_counter(ctx.policy))}
    learned = learned_policy(ctx)
    if learned is not None:  # section i: the same deals, the learned player at every seat
        runs["deals_net"] = ctx.experiment("deals", sizes["deals"], policies=learned)
    for target in TARGETS:
        runs[f"games_{target}"] = ctx.experiment("games", sizes["games"], target=target)
    return runs


def _deals(runs: Runs, name: str = "deals") -> pl.DataFrame:
    return runs[name].scan("deals").select(DEAL_COLUMNS).collect().sort("deal_id")


def _cells(summary: pl.DataFrame, percent_words: str, digits: int = 2) -> pl.Series:
    """Display text of each summary row: a rate when its measure names one of the words."""
    words = percent_words.split("|")

    def text(r: dict) -> str:
        if "percentile" in r["measure"]:
            return f"{r['value']:g}"  # an order statistic: no interval
        if any(w in r["measure"] for w in words):
            return pct(row_estimate(r))
        return num(row_estimate(r), digits)

    return pl.Series("estimate", [text(r) for r in summary.iter_rows(named=True)],
                     dtype=pl.String)


def _display(summary: pl.DataFrame, keys: list[str], percent_words: str,
             digits: int) -> pl.DataFrame:
    """The summary as display text: its key columns, the estimate and n."""
    return summary.select(*keys).with_columns(
        _cells(summary, percent_words, digits),
        pl.Series("n", [f"{v:,}" for v in summary["n"]]))


# ---------------------------------------------------------------- a. who names, and how it fares


def summarize_choices(deals: pl.DataFrame) -> pl.DataFrame:
    """Per chooser (dealer, partner) and trump: share of deals, success, mean net score."""
    deals = deals.with_columns(
        who=pl.when(pl.col("dealer_passed")).then(pl.lit("partner")).otherwise(pl.lit("dealer")),
        trump=pl.col("trump").cast(pl.String))
    rows = metric_rows([({"who": "dealer"}, DEAL["dealer_names"]),
                        ({"who": "partner"}, MM.PARTNER_NAMES)], deals,
                       trump="all", measure="share of deals")
    who = ("dealer", "partner")
    fares = {"above 34": DEAL["taking_success"], "net score": DEAL["taking_margin"]}
    found = [
        *metric_rows([({"trump": c, "measure": "share of choices"}, MM.trump_named(c))
                      for c in CHOICES], deals, by="who", groups=who),
        *metric_rows(fares, deals, by=["who", "trump"], column="measure",
                     groups=[(w, c) for w in who for c in CHOICES]),
        *metric_rows(fares, deals, by="who", column="measure", trump="all", groups=who),
    ]
    trumps = (*CHOICES, "all")
    measures = ("share of choices", "above 34", "net score")
    found.sort(key=lambda r: (who.index(r["who"]), trumps.index(r["trump"]),
                              measures.index(r["measure"])))
    return pl.DataFrame(rows + found)


def section_choices(deals: pl.DataFrame) -> Section:
    summary = summarize_choices(deals)
    shown = summary.filter(pl.col("measure") != "share of deals")
    rate_rows = shown.filter(pl.col("measure") != "net score").with_columns(cell=formatted(True))
    mean_rows = shown.filter(pl.col("measure") == "net score").with_columns(
        cell=formatted(False, 2))
    table = (pl.concat([rate_rows, mean_rows])
             .pivot(on="measure", index=["who", "trump"], values="cell")
             .sort("who", "trump").fill_null("–"))
    dealer = find_estimate(summary, who="dealer", trump="all", measure="share of deals")
    dealer_made = find_estimate(summary, who="dealer", trump="all", measure="above 34")
    partner_made = find_estimate(summary, who="partner", trump="all", measure="above 34")
    dealer_net = find_estimate(summary, who="dealer", trump="all", measure="net score")
    partner_net = find_estimate(summary, who="partner", trump="all", measure="net score")
    fig, axes = new_figure(8, 3.2, ncols=2)
    width = 0.38
    for i, (who, color) in enumerate((("dealer", "#4C72B0"), ("partner", "#DD8452"))):
        for ax, measure in zip(axes, ("above 34", "net score"), strict=True):
            part = summary.filter((pl.col("who") == who) & (pl.col("measure") == measure)
                                  & (pl.col("trump") != "all"))
            part = part.with_columns(order=pl.col("trump").replace_strict(
                {c: k for k, c in enumerate(CHOICES)}, return_dtype=pl.Int32)).sort("order")
            x = np.arange(len(CHOICES)) + (i - 0.5) * width
            ax.bar(x, part["value"], width, color=color, label=f"named by the {who}",
                   yerr=yerr(part["value"], part["low"], part["high"]), capsize=2)
            ax.set_xticks(range(len(CHOICES)), CHOICES)
    axes[0].set_title("taking team above 34")
    axes[0].set_ylim(0, 1.18)  # room for the legend above the bars
    percent_axis(axes[0])
    axes[1].set_title("taking team's net score per deal")
    axes[0].legend(fontsize=8, ncols=2, loc="upper center")
    n = deals.height
    findings = (
        f"The dealer names the trump himself in {pct(dealer)} of deals and passes to his "
        f"partner otherwise (n={n:,} deals).",
        f"When the dealer names, his team ends above 34 in {pct(dealer_made)} of deals and "
        f"nets {num(dealer_net)} points a deal; after a pass, {pct(partner_made)} and "
        f"{num(partner_net)}.",
    )
    return Section(
        key="choices", title="a. Who names the trump, and how each choice fares (MA-3)",
        method="Independent deals, the base policy at every seat. 'Above 34' is the taking "
               "(dealer's) team ending above 34 of the 68 points; 'net score' is its MA-6 "
               "score minus the defence's. Wilson intervals for rates, t for means.",
        tables=(Table(f"By chooser and trump ({sample_text(n, 'deals')}; 'share of choices' is "
                      "among that chooser's deals).", table, n=n),),
        plot=Plot("a_choices.png", png(fig), f"Success and net score by chooser and trump, "
                  f"n={n:,} deals; bars: 95% intervals."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- b. sans atout


def summarize_sans_atout(deals: pl.DataFrame) -> pl.DataFrame:
    """How often sans atout is named and how it fares against a trump suit."""
    deals = deals.with_columns(mode=pl.when(pl.col("sans_atout")).then(pl.lit("sans atout"))
                               .otherwise(pl.lit("trump suit")))
    fares = {"above 34": DEAL["taking_success"], "taking team's points (of 68)": MM.TAKING_POINTS,
             "net score": DEAL["taking_margin"]}
    return pl.DataFrame([
        *metric_rows({"share of deals": DEAL["sans_atout_rate"]}, deals, column="measure",
                     mode="sans atout"),
        *metric_rows(fares, deals, by="mode", column="measure",
                     groups=("sans atout", "trump suit")),
    ])


def section_sans_atout(deals: pl.DataFrame) -> Section:
    summary = summarize_sans_atout(deals)
    table = _display(summary, ["mode", "measure"], "share|above", 2)
    share = find_estimate(summary, mode="sans atout", measure="share of deals")
    sa_made = find_estimate(summary, mode="sans atout", measure="above 34")
    suit_made = find_estimate(summary, mode="trump suit", measure="above 34")
    sa_net = find_estimate(summary, mode="sans atout", measure="net score")
    suit_net = find_estimate(summary, mode="trump suit", measure="net score")
    fig, (ax,) = new_figure(6, 3.2)
    part = summary.filter(pl.col("measure") == "net score")
    ax.bar(part["mode"], part["value"], color=["#C44E52", "#4C72B0"],
           yerr=yerr(part["value"], part["low"], part["high"]), capsize=3)
    ax.set_ylabel("taking team's net score per deal")
    findings = (
        f"Sans atout is named in {pct(share)} of deals; the taking team then ends above 34 in "
        f"{pct(sa_made)} (a trump suit: {pct(suit_made)}).",
        f"Doubled, a sans-atout deal nets the taking team {num(sa_net)} points against "
        f"{num(suit_net)} with a trump suit (n={deals.height:,} deals).",
    )
    return Section(
        key="sans-atout", title="b. Sans atout: how often, how well (MA-3, MA-6)",
        method="The deals of section a split by the trump named; the score is doubled in sans "
               "atout (MA-6). Wilson intervals for rates, t for means.",
        tables=(Table("Sans atout against a trump suit.", table),),
        plot=Plot("b_sans_atout.png", png(fig), f"Net score per deal, sans atout vs a trump "
                  f"suit, n={deals.height:,} deals; bars: 95% t intervals."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- c. contre and surcontre


def summarize_contre(deals: pl.DataFrame, never: pl.DataFrame) -> pl.DataFrame:
    """Contre and surcontre rates; the defence's gain against never countering, paired."""
    rows = metric_rows({"contre rate": DEAL["contre_rate"],
                        "surcontre rate after a contre": MM.SURCONTRE_AFTER_CONTRE,
                        "contre wins (taking team not above 34)": MM.CONTRE_WINS}, deals,
                       column="measure")
    contred = deals.select(pl.col("contre_level") >= 1).to_series().to_numpy()
    if not (deals["deal_id"] == never["deal_id"]).all():
        raise ValueError("the two arms of section c must hold the same deals")
    defence = (deals["defence_score"] - deals["taking_score"]).to_numpy()
    defence_never = (never["defence_score"] - never["taking_score"]).to_numpy()
    rows.append(estimate_row(stats.paired_difference(defence, defence_never),
                             measure="defence's gain per deal vs never countering"))
    rows.append(estimate_row(stats.paired_difference(defence[contred], defence_never[contred]),
                             measure="defence's gain per contred deal"))
    rows.append(estimate_row(stats.unpaired_difference(defence, defence_never),
                             measure="same gain, unpaired interval"))
    return pl.DataFrame(rows)


def section_contre(deals: pl.DataFrame, never: pl.DataFrame) -> Section:
    summary = summarize_contre(deals, never)
    table = _display(summary, ["measure"], "rate|wins", 3)
    contre = find_estimate(summary, measure="contre rate")
    wins = find_estimate(summary, measure="contre wins (taking team not above 34)")
    sur = find_estimate(summary, measure="surcontre rate after a contre")
    gain = find_estimate(summary, measure="defence's gain per deal vs never countering")
    unpaired = find_estimate(summary, measure="same gain, unpaired interval")
    per = find_estimate(summary, measure="defence's gain per contred deal")
    fig, (ax,) = new_figure(6, 3.2)
    part = summary.filter(pl.col("measure").str.contains("gain"))
    ax.errorbar(np.arange(part.height), part["value"],
                yerr=yerr(part["value"], part["low"], part["high"]), fmt="o", capsize=4)
    ax.set_xticks(np.arange(part.height), ["paired,\nall deals", "paired,\ncontred deals",
                                           "unpaired,\nall deals"])
    ax.axhline(0, color="k", lw=0.8)
    ax.set_ylabel("defence's net score gain per deal")
    findings = (
        f"The opponents say contre in {pct(contre)} of deals and beat the contract in "
        f"{pct(wins)} of those; the taking team surcontres {pct(sur)} of contres.",
        f"Countering is worth {num(gain, 3, signed=True)} points a deal to the defence "
        f"against never countering (paired on the same deals; the unpaired interval would be "
        f"{num(unpaired, 3, signed=True)}), i.e. {num(per, 2, signed=True)} per contred deal.",
    )
    return Section(
        key="contre", title="c. Contre and surcontre (MA-4, MA-6)",
        method="Two arms on the same deals and seeds: the base policy, and the same policy "
               f"with contre and surcontre thresholds at {NEVER:g} (never). Card play does not "
               "depend on the contre level, so every difference comes from the score and the "
               "pairs share their luck. t intervals.",
        tables=(Table(f"Contre and surcontre ({sample_text(deals.height, 'deals', 'per arm')}).",
                      table, n=deals.height),),
        plot=Plot("c_contre.png", png(fig), "Defence's gain from countering, per deal; bars: "
                  "95% t intervals (paired and unpaired)."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- d, e. edge per deal and draws


def _game_taking_share(game_deals: pl.DataFrame) -> stats.ClusterTotals:
    """Points scored by the taking sides over all points scored, as per-game totals."""
    per_game = game_deals.group_by("game_id").agg(
        pl.col("taking_score").cast(pl.Int64).sum().alias("taking"),
        (pl.col("taking_score").cast(pl.Int64) + pl.col("defence_score")).sum().alias("all"),
    )
    return stats.ClusterTotals.of(per_game["taking"], per_game["all"])


def summarize_edge(deals: pl.DataFrame, games_by_target: dict[int, pl.DataFrame]) -> pl.DataFrame:
    """Taking side's edge per deal, share of game points scored while taking, 34-34 draws."""
    rows = metric_rows({"taking team above 34": DEAL["taking_success"],
                        "34-34 draw": DEAL["draw_rate"],
                        "taking team's net score": DEAL["taking_margin"],
                        "taking team's points (of 68)": MM.TAKING_POINTS}, deals,
                       column="measure", scope="deal")
    for target, game_deals in games_by_target.items():
        # a ratio of two sums over games (points, not rows): no Metric kind, the same
        # game-clustered estimator evaluate uses
        totals = _game_taking_share(game_deals)  # n: games, not points
        rows.append(estimate_row(stats.clustered(totals, "mean")._replace(n=totals.g),
                                 scope=f"game to {target}",
                                 measure="share of game points scored while taking"))
        rows += metric_rows({"34-34 draw": DEAL["draw_rate"]}, game_deals, cluster="game_id",
                            column="measure", scope=f"game to {target}")
    return pl.DataFrame(rows)


def section_edge(deals: pl.DataFrame, games_by_target: dict[int, pl.DataFrame]) -> Section:
    summary = summarize_edge(deals, games_by_target)
    table = _display(summary, ["scope", "measure"], "above|draw|share", 2)
    made = find_estimate(summary, scope="deal", measure="taking team above 34")
    net = find_estimate(summary, scope="deal", measure="taking team's net score")
    draw = find_estimate(summary, scope="deal", measure="34-34 draw")
    share50 = find_estimate(summary, scope="game to 50",
                            measure="share of game points scored while taking")
    fig, (ax,) = new_figure(6, 3.2)
    part = summary.filter(pl.col("measure") == "share of game points scored while taking")
    ax.bar(part["scope"], part["value"], color="#4C72B0",
           yerr=yerr(part["value"], part["low"], part["high"]), capsize=3)
    ax.axhline(0.5, color="k", ls="--", lw=0.8)
    percent_axis(ax)
    ax.set_ylabel("game points scored while taking")
    findings = (
        f"The taking (dealer's) team ends above 34 in {pct(made)} of deals and nets "
        f"{num(net)} points a deal; {pct(draw, 2)} of deals end 34-34 and score nothing.",
        f"Over a game to 50, {pct(share50)} of all points are scored by the team that named "
        "the trump (each team takes every other deal).",
    )
    return Section(
        key="edge", title="d, e. The taking side's edge; the 34-34 draw (MA-6)",
        method="Per deal: the deals of section a. Per game: whole games to each target; the "
               "share of a game's points scored while taking, pooled over games as a ratio "
               "with a delta-method t interval (games are the units); the per-game draw rate "
               "with a game-clustered Wilson interval, as tapisvert simulate prints it.",
        tables=(Table("Taking side's edge and draws.", table),),
        plot=Plot("d_edge.png", png(fig), "Share of game points scored by the taking side, "
                  "per target; bars: 95% intervals; dashes: half."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- f, g. game length, first dealer


def summarize_games(games_by_target: dict[int, pl.DataFrame]) -> pl.DataFrame:
    """Game length and the first dealer's team's win rate, per target."""
    rows = []
    for target, games in games_by_target.items():
        length = games["n_deals"].to_numpy()
        rows += metric_rows({"deals per game": MM.GAME_LENGTH}, games, column="measure",
                            target=target)
        for q in (0.1, 0.5, 0.9):
            value = float(np.quantile(length, q))
            rows.append({"target": target, "measure": f"deals, {int(q * 100)}th percentile",
                         "value": value, "low": value, "high": value, "n": len(length)})
        rows += metric_rows({"first dealer's team wins": MM.FIRST_DEALER_TEAM_WINS}, games,
                            column="measure", target=target)
    return pl.DataFrame(rows)


def section_games(games_by_target: dict[int, pl.DataFrame]) -> Section:
    summary = summarize_games(games_by_target)
    table = summary.with_columns(cell=_cells(summary, "wins", 2))
    table = table.pivot(on="measure", index="target", values="cell").sort("target")
    table = table.with_columns(pl.col("target").cast(pl.String))
    fig, axes = new_figure(8, 3.2, ncols=2)
    length = summary.filter(pl.col("measure") == "deals per game")
    axes[0].bar([str(t) for t in length["target"]], length["value"], color="#55A868",
                yerr=yerr(length["value"], length["low"], length["high"]), capsize=3)
    axes[0].set_title("deals per game")
    first = summary.filter(pl.col("measure") == "first dealer's team wins")
    axes[1].bar([str(t) for t in first["target"]], first["value"], color="#8172B2",
                yerr=yerr(first["value"], first["low"], first["high"]), capsize=3)
    axes[1].axhline(0.5, color="k", ls="--", lw=0.8)
    axes[1].set_ylim(0.4, 0.6)
    percent_axis(axes[1])
    axes[1].set_title("first dealer's team wins")
    for ax in axes:
        ax.set_xlabel("target")
    by = {t: (find_estimate(summary, target=t, measure="deals per game"),
              find_estimate(summary, target=t, measure="first dealer's team wins"))
          for t in games_by_target}
    sizes = {f"to {t}": g.height for t, g in games_by_target.items()}
    n = sample_text(sizes, "games", "per target")
    findings = (
        "A game lasts " + ", ".join(f"{num(by[t][0], 1)} deals to {t}" for t in by)
        + f" ({n}).",
        "The first dealer's team wins " + ", ".join(f"{pct(by[t][1])} of games to {t}"
                                                    for t in by)
        + " against a fair 50%.",
    )
    return Section(
        key="games", title="f, g. Game length and the first dealer's advantage (MA-2, MA-6)",
        method="Whole games to 50, 100 and 150: the first dealer drawn, the deal passing "
               "counter-clockwise, each deal freshly shuffled; the first team to reach the "
               "target wins. t intervals for lengths, Wilson for win rates.",
        tables=(Table(f"Per target ({n}).", table, n=sizes),),
        plot=Plot("f_games.png", png(fig), f"Game length and first dealer's team's win rate, "
                  f"{n}; bars: 95% intervals."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- h. the default player's strength

STRENGTH_PATH = Path(manille_solver.__file__).parent / "data" / "strength.json"
STRENGTH_COMMAND = ("python bench/pimc_strength.py --game manille --deals 2000 "
                    "--rate-deals 400 --n-jobs 2 --runs-dir .pimc_strength_runs")
STRENGTH_TITLE = "h. The default player's strength: the heuristic against PIMC"
STRENGTH_GAINS = (("gain_default", "PIMC's defaults"), ("gain_choose", "trump choice only"),
                  ("gain_contre", "contre/surcontre only"), ("gain_play", "card play only"))
STRENGTH_ARMS = (("rates_heuristic", "heuristic"), ("rates_pimc", "PIMC"))
PIMC_KINDS = ("gain", "rates")  # bench/pimc_strength.py's pieces; the net's are section i's
STRENGTH_SCHEMA = {"part": pl.String, "piece": pl.String, "what": pl.String,
                   "measure": pl.String, "value": pl.Float64, "low": pl.Float64,
                   "high": pl.Float64, "n": pl.Int64, "p_value": pl.Float64}


def read_strength(path: Path = STRENGTH_PATH) -> dict:
    """The shipped PIMC-against-heuristic figures (bench/pimc_strength.py); ``{}`` when the
    file is absent, empty or unreadable."""
    return read_measured(path)


def summarize_strength(doc: dict) -> pl.DataFrame:
    """Tidy rows ``part, piece, what, measure, value, low, high, n, p_value``: each gain
    piece's paired difference (``part`` "gain") and each rate arm's deal metrics (``part``
    "rate", ``what`` the arm); pieces not measured have no rows."""
    pieces = measured_pieces(doc)
    rows = []
    for key, what in STRENGTH_GAINS:
        r = pieces.get(key, {}).get("comparison", {}).get("paired")
        if r is not None:
            rows.append({"part": "gain", "piece": key, "what": what,
                         "measure": "PIMC's gain per deal at seat 0",
                         "value": json_number(r["mean"]), "low": json_number(r["low"]),
                         "high": json_number(r["high"]), "n": int(r["n"]),
                         "p_value": json_number(r.get("p_value"))})
    for key, what in STRENGTH_ARMS:
        for r in pieces.get(key, {}).get("rows", []):
            rows.append({"part": "rate", "piece": key, "what": what, "measure": r["label"],
                         "value": json_number(r["value"]), "low": json_number(r["low"]),
                         "high": json_number(r["high"]), "n": int(r["n"]), "p_value": None})
    return pl.DataFrame(rows, schema=STRENGTH_SCHEMA)


def _strength_figure(gains: pl.DataFrame, pieces: dict[str, dict]) -> bytes:
    fig, (ax,) = new_figure(6, 3.2)
    if gains.is_empty():
        ax.axis("off")
        ax.text(0.5, 0.5, "not measured yet", ha="center", va="center", fontsize=12)
        return png(fig)
    y = np.arange(gains.height)[::-1]
    ax.errorbar(gains["value"], y, xerr=yerr(gains["value"], gains["low"], gains["high"]),
                fmt="o", capsize=4, color="#4C72B0")
    ax.axvline(0, color="k", lw=0.8)
    ax.set_yticks(y, [w if k != "gain_default" else
                      f"{w}\n({', '.join(pieces[k].get('decisions') or []) or '–'})"
                      for k, w in zip(gains["piece"], gains["what"], strict=True)])
    ax.set_xlabel("PIMC's gain over the heuristic, points per deal at seat 0")
    ax.grid(axis="x", alpha=0.3)
    return png(fig)


def _gain_sentence(e, p_value: float, where: str) -> str:
    """PIMC's paired gain read as the heuristic's loss, with its interval and p-value."""
    said = (f"The heuristic loses {e.value:.2f} points per deal to PIMC {where}" if e.value >= 0
            else f"The heuristic does better than PIMC {where}, by {-e.value:.2f} points per "
                 "deal")
    covers = "; the interval covers 0" if e.low <= 0 <= e.high else ""
    p = "–" if p_value != p_value else f"{p_value:.3g}"
    return f"{said} (PIMC's gain {num(e, 2, signed=True)}, p={p}, n={e.n:,} deals{covers})."


STRENGTH_METHOD = (
    "PIMC (Perfect-Information Monte Carlo, simulators/manille/solver/pimc.py) deals the "
    "cards a player cannot see at random, consistently with what he has seen — his hand, "
    "every card played and by whom, each void and each 'could not beat or trump' that "
    "MA-5's duties revealed — solves each of these worlds double-dummy (every hand "
    "visible) and takes the action with the best average: the card with the most points, "
    "the trump (a suit, sans atout or pass) with the best mean MA-6 margin, contre when "
    "the side's mean margin is positive. Its worlds ignore what the bidding reveals (the "
    "trump named or passed, contre and surcontre say something about the hands), and "
    "solving each world with every hand visible credits the player with knowledge he "
    "will not have. Gains: 'tapisvert compare manille --a pimc --b heuristic --seats 0', "
    "PIMC at seat 0 and the heuristic at the three others, both arms on the same deals; "
    "the figure is the paired difference of seat 0's net deal score (its team's MA-6 "
    "score minus the other team's), with its t interval and p-value. By decision kind, "
    "PIMC makes only that decision (pimc_choose, pimc_contre, pimc_play) and the "
    "heuristic, which it extends, the others; with its defaults PIMC makes the decisions "
    "listed beside them. A negative figure means the heuristic does better at that kind "
    "of decision. Rates: PIMC at every seat beside the heuristic at "
    "every seat on the same deals (the deal metrics of tapisvert simulate manille; "
    "Wilson intervals for rates, t for the mean). Measured by bench/pimc_strength.py and "
    "shipped in simulators/manille/solver/data/strength.json.")


def _gain_parts(gains: pl.DataFrame, pieces: dict) -> tuple[list[Table], list[str]]:
    """The paired gains of PIMC at seat 0: their table and findings (none when unmeasured)."""
    tables: list[Table] = []
    findings: list[str] = []
    if gains.is_empty():
        return tables, findings
    table = pl.DataFrame({
        "PIMC decides": [", ".join(pieces[k].get("decisions") or []) or "–"
                         for k in gains["piece"]],
        "arm": [w + (" (= PIMC's defaults)" if pieces[k].get("same_as") else "")
                for k, w in zip(gains["piece"], gains["what"], strict=True)],
        "PIMC's gain per deal": [num(row_estimate(r), 2, signed=True)
                                 for r in gains.iter_rows(named=True)],
        "p": ["–" if p != p else f"{p:.3g}" for p in gains["p_value"]],
        "n": [f"{n:,}" for n in gains["n"]],
        "worlds": [str(pieces[k].get("settings", {}).get("worlds", "–"))
                   for k in gains["piece"]]})
    sizes = group_sizes(gains, "what")
    tables.append(Table(
        f"PIMC at seat 0 against the heuristic, paired on the same deals "
        f"({sample_text(sizes, 'deals', 'per comparison')}): seat 0's net deal score, 95% "
        "t intervals; the other decisions and the other seats are the heuristic's.", table,
        n=sizes))
    for r in gains.filter(pl.col("piece") == "gain_default").iter_rows(named=True):
        e = row_estimate(r)
        if finite(e.value):
            findings.append(_gain_sentence(e, r["p_value"], "at one seat"))
    kinds = [f"{r['what']} {num(row_estimate(r), 2, signed=True)}"
             for r in gains.iter_rows(named=True) if r["piece"] != "gain_default"]
    if kinds:
        findings.append("By decision kind, PIMC's gain per deal: " + "; ".join(kinds)
                        + " (a negative figure: the heuristic does better there).")
    return tables, findings


def _rate_parts(rates: pl.DataFrame) -> tuple[list[Table], list[str]]:
    """Every seat PIMC beside every seat heuristic: the rates' table and findings."""
    tables: list[Table] = []
    findings: list[str] = []
    if rates.is_empty():
        return tables, findings
    labels = list(dict.fromkeys(rates["measure"].to_list()))
    frame: dict[str, list[str]] = {"measure": labels}
    for key, what in STRENGTH_ARMS:
        arm = {r["measure"]: r for r in rates.filter(pl.col("piece") == key)
               .iter_rows(named=True)}
        frame[f"{what}, every seat"] = [
            "–" if m not in arm else num(row_estimate(arm[m]), 2)
            if m == DEAL["taking_margin"].label else pct(row_estimate(arm[m]))
            for m in labels]
        frame[f"n ({what})"] = [f"{arm[m]['n']:,}" if m in arm else "–" for m in labels]
    sizes = group_sizes(rates, "what")  # an arm's largest n: its deals
    tables.append(Table(
        f"Every seat PIMC beside every seat heuristic on the same deals "
        f"({sample_text(sizes, 'deals', 'per arm')}; each rate among its own deals).",
        pl.DataFrame(frame), n=sizes))
    made = rates.filter(pl.col("measure") == DEAL["taking_success"].label)
    if made.height == 2:
        h, p = (row_estimate(made.filter(pl.col("what") == w).row(0, named=True))
                for _, w in STRENGTH_ARMS)
        findings.append(f"With every seat PIMC the taking team ends above 34 in {pct(p)} "
                        f"of deals, against {pct(h)} with every seat heuristic "
                        f"(n={p.n:,} deals).")
    return tables, findings


def _sample_finding(gains: pl.DataFrame, rates: pl.DataFrame, pieces: dict,
                    report_deals: int | None) -> str:
    """How few deals the PIMC figures rest on, beside the report's own."""
    sizes = {"comparison": sorted({pieces[k]["settings"]["deals"] for k in gains["piece"]}),
             "rate arm": sorted({pieces[k]["settings"]["deals"] for k in rates["piece"]})}
    worlds = sorted({p["settings"]["worlds"] for p in pieces.values()
                     if "worlds" in p.get("settings", {})})
    rest = (f"the {report_deals:,} deals per arm of sections a-e" if report_deals
            else "the rest of this report")
    return (
        "PIMC is slow, so these figures rest on far fewer deals than " + rest + ": "
        + "; ".join(f"{', '.join(f'{s:,}' for s in v)} per {k}" for k, v in sizes.items() if v)
        + f" (worlds per decision: {', '.join(map(str, worlds)) or '–'}); their intervals "
        "are wider accordingly.")


def section_strength(doc: dict, report_deals: int | None = None) -> Section:
    """The heuristic (every other section's player) against PIMC, from the shipped figures
    (``doc`` as :func:`read_strength` returns it; empty: the section says how to make them)."""
    summary = summarize_strength(doc)
    pieces = {k: p for k, p in measured_pieces(doc).items() if p.get("kind") in PIMC_KINDS}
    gains = summary.filter(pl.col("part") == "gain")
    rates = summary.filter(pl.col("part") == "rate")
    if gains.is_empty() and rates.is_empty():
        return Section(
            key="strength", title=STRENGTH_TITLE, method=STRENGTH_METHOD,
            tables=(Table("Not measured yet (n=0 deals): the figures are made by this command "
                          "and shipped with the package.",
                          pl.DataFrame({"status": ["not measured yet"],
                                        "command": [STRENGTH_COMMAND]}), n=0),),
            plot=Plot("h_strength.png", _strength_figure(gains, pieces), "Not measured yet."),
            findings=("The heuristic's strength against PIMC has not been measured yet "
                      f"(n=0 deals): run '{STRENGTH_COMMAND}'.",),
            summary=summary)
    gain_tables, gain_findings = _gain_parts(gains, pieces)
    rate_tables, rate_findings = _rate_parts(rates)
    tables = [*gain_tables, *rate_tables, measured_commands(pieces)]
    findings = [*gain_findings, *rate_findings,
                _sample_finding(gains, rates, pieces, report_deals)]
    return Section(
        key="strength", title=STRENGTH_TITLE, method=STRENGTH_METHOD, tables=tuple(tables),
        plot=Plot("h_strength.png", _strength_figure(gains, pieces),
                  "PIMC's gain over the heuristic per deal at seat 0, by the decisions PIMC "
                  "makes; bars: 95% paired t intervals."),
        findings=tuple(findings), summary=summary)


# ---------------------------------------------------------------- i. the learned player

NET_COMMAND = "python bench/net_strength.py --game manille --n-jobs 2 --runs-dir .net_strength_runs"
NET_TITLE = "i. The learned player: the headline figures under net, beside the heuristic"
NET_METRICS = {m.label: m for m in (*MM.DEAL_METRICS, MM.TAKING_POINTS)}
NET_METHOD = (
    "The deals of section a played again, card for card the same deals, with the learned "
    "player 'net' at every seat: small nets for the card play (trained on PIMC's card "
    "values, then fine-tuned on each card's double-dummy value in the deal played) and for "
    "the trump choice and contre / surcontre (trained on rollouts of the card net, "
    "simulators/manille/auction.py; docs/learning.md). Each figure is paired deal "
    "by deal: the difference is net's "
    "minus the heuristic's on the same deals, with a t interval on the per-deal "
    "differences (ratio estimators linearised where the figure counts only some deals). "
    "The certificates (bench/net_strength.py, shipped in "
    "simulators/manille/solver/data/strength.json) put net at one partnership (seats 0 "
    "and 2) against an opponent at the other, then rotate the seats on the same cards: "
    "net's gain per deal is its two seats' MA-6 scores summed, on deals of a seed the "
    "training never saw. The double-dummy regret solves, before each card a policy played, "
    "the true deal with every hand visible and counts the points the card gives up "
    "against the best card.")


def summarize_net(base: pl.DataFrame, net: pl.DataFrame) -> pl.DataFrame:
    """The headline deal metrics under net and under the base policy, paired on the deals."""
    return pl.DataFrame(paired_policy_rows(NET_METRICS, net, base, key="deal_id"))


def section_net(base: pl.DataFrame | None, net: pl.DataFrame | None, doc: dict,
                names: tuple[str, str] = ("net", "heuristic")) -> Section:
    """Section i: the headline figures under the learned player beside the base policy's,
    and its shipped certificates."""
    pieces = measured_pieces(doc)
    cert_tables, cert_findings = learned_player_parts(pieces, "deals", NET_COMMAND)
    if base is None or net is None:
        return Section(key="net", title=NET_TITLE, method=NET_METHOD,
                       tables=tuple(cert_tables),
                       plot=Plot("i_net.png", _strength_figure(pl.DataFrame(), {}),
                                 "No paired run: the report's policy is net itself."),
                       findings=tuple(cert_findings), summary=pl.DataFrame())
    summary = summarize_net(base, net)
    table = paired_policy_table(summary, ["measure"], names)
    made = {arm: find_estimate(summary, measure=DEAL["taking_success"].label, arm=arm)
            for arm in ("learned", "base", "difference")}
    margin = {arm: find_estimate(summary, measure=DEAL["taking_margin"].label, arm=arm)
              for arm in ("learned", "base", "difference")}
    findings = (
        f"With {names[0]} playing the cards at every seat, the taking team ends above 34 in "
        f"{pct(made['learned'])} of deals against {pct(made['base'])} under the "
        f"{names[1]} ({pp(made['difference'])}, paired on the same {net.height:,} deals).",
        f"The taking team's net score per deal (the dealer's side's edge) is "
        f"{num(margin['learned'])} under {names[0]} and {num(margin['base'])} under the "
        f"{names[1]} (difference {num(margin['difference'], signed=True)}).",
        *cert_findings)
    return Section(
        key="net", title=NET_TITLE, method=NET_METHOD,
        tables=(Table(f"Headline figures: {names[0]} at every seat beside the {names[1]} at "
                      f"every seat, on the same {sample_text(net.height, 'deals')}; 95% "
                      "intervals (paired for the difference).", table, n=net.height),
                *cert_tables),
        plot=Plot("i_net.png", paired_policy_figure(summary, lambda r: r["measure"], names),
                  f"{names[0]} minus {names[1]} on the same {net.height:,} deals; bars: 95% "
                  "paired t intervals."),
        findings=findings, summary=summary)


def _net_section(runs: Runs, ctx: ReportContext) -> Section:
    from analysis.experiment import policy_name

    if "deals_net" not in runs:
        return section_net(None, None, read_strength())
    return section_net(_deals(runs), _deals(runs, "deals_net"), read_strength(),
                       ("net", policy_name(ctx.base.game, ctx.policy)))


# ---------------------------------------------------------------- the report


def _game_deals(runs: Runs) -> dict[int, pl.DataFrame]:
    return {t: runs[f"games_{t}"].scan("deals").select(
        "game_id", "result", "taking_score", "defence_score").collect() for t in TARGETS}


def settings(ctx: ReportContext, runs: dict[str, Experiment]) -> list[tuple[str, str]]:
    """The run-settings rows."""
    sizes = _sizes(ctx)
    return [
        ("policy (every seat)", policy_text(ctx.base.game, ctx.policy)),
        ("section c's second arm", policy_text(ctx.base.game, _never_counter(ctx.policy))),
        *([("section i's paired arm", policy_text(ctx.base.game, runs["deals_net"].policies[0]))]
          if "deals_net" in runs else []),
        ("rules", str(ctx.base.config)),
        ("seed", str(ctx.seed)), ("scale", f"{ctx.scale:g}"),
        ("deals per arm (a-e)", f"{sizes['deals']:,}"),
        ("games per target (d, f, g)", f"{sizes['games']:,}"),
    ]


REPORT = Report(
    title="Manille coincée: balance report",
    intro=(
        "Monte Carlo estimates from the tapisvert Manille engine under the rulings MA-1..MA-6, "
        "with the heuristic policy at every seat; every engine deal can be replayed move by "
        "move by the independent referee.",
        "Every number comes with a 95% interval (Wilson for rates, Student t for means) and its "
        "sample size. The numbers describe this policy playing against itself.",
    ),
    plan=plan,
    sections=(
        lambda runs, ctx: section_choices(_deals(runs)),
        lambda runs, ctx: section_sans_atout(_deals(runs)),
        lambda runs, ctx: section_contre(_deals(runs), _deals(runs, "deals_never_contre")),
        lambda runs, ctx: section_edge(_deals(runs), _game_deals(runs)),
        lambda runs, ctx: section_games({t: runs[f"games_{t}"].table("games") for t in TARGETS}),
        lambda runs, ctx: section_strength(read_strength(), _sizes(ctx)["deals"]),
        _net_section,
    ),
    settings=settings,
)
