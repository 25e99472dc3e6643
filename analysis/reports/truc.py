"""Truc balance report: declared for :mod:`analysis.reporting`.

The non-dealer's edge per deal and per match, the card call and what asking
for new cards is worth, pourri tricks and null deals (beside the exact
values of fixed-order play), proposals, refusals and bancos by score, the
value of bluffing (paired on the same deals), match length, and — when the
solver is available — each heuristic's exploitability beside the
equilibrium's. Every simulation is one named experiment of :func:`plan`,
played by the runner (``tapisvert report truc --n-jobs 2``).
"""

from __future__ import annotations

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
    metric_rows,
    new_figure,
    num,
    pct,
    percent_axis,
    png,
    policy_text,
    row_estimate,
    sample_text,
    yerr,
)
from simulators.truc import metrics as M
from simulators.truc.exact import CATEGORIES, fixed_order_distribution
from simulators.truc.policies import OrderedPolicy, RandomPolicy

BASE_DEALS = 400_000
BASE_MATCHES = 20_000
BASE_ORDERED = 200_000
EXPLOIT_MIN_SCALE = 0.5  # section g needs the solved tree: minutes, so only in real reports
SCORE_BUCKETS = ((0, 5), (6, 8), (9, 10), (11, 11))
BUCKET_NAMES = [f"{low}-{high}" if low != high else str(low) for low, high in SCORE_BUCKETS]
DEAL = {m.name: m for m in M.DEAL_METRICS}  # the headline metrics `simulate` prints
DEAL_COLUMNS = ("deal_id", "dealer", "winner", "outcome", "delta_0", "delta_1", "hands_dealt",
                "asks_nondealer", "asks_dealer", "pourri_tricks", "proposals", "bancos",
                "counter_bancos", "points", "tricks_played")


def _sizes(ctx: ReportContext) -> dict[str, int]:
    return {"deals": ctx.size(BASE_DEALS, 400), "matches": ctx.size(BASE_MATCHES, 50),
            "ordered": ctx.size(BASE_ORDERED, 400)}


def _variant(policy, **changes):
    """The base policy with some parameters changed (itself if it lacks them)."""
    params = policy.get_params()
    if not set(changes) <= set(params):
        return policy
    return type(policy).from_params(**{**params, **changes})


def plan(ctx: ReportContext) -> dict[str, Experiment]:
    """Every simulation of the report, by name (the paired arms share seed and deals)."""
    sizes = _sizes(ctx)
    base = ctx.policy
    return {
        "deals": ctx.experiment("deals", sizes["deals"]),
        "deals_seat0_never_asks": ctx.experiment(
            "deals", sizes["deals"], policies=(_variant(base, call_threshold=0.0), base)),
        "deals_seat0_no_bluff": ctx.experiment(
            "deals", sizes["deals"], policies=(_variant(base, bluff_probability=0.0), base)),
        "ordered": ctx.experiment("deals", sizes["ordered"], policies=OrderedPolicy()),
        "matches": ctx.experiment("matches", sizes["matches"]),
    }


def _deals(runs: Runs, name: str = "deals") -> pl.DataFrame:
    return runs[name].scan("deals").select(DEAL_COLUMNS).collect().sort("deal_id")


def _display(summary: pl.DataFrame, keys: list[str], percent: bool | str = True,
             digits: int = 3) -> pl.DataFrame:
    """Display text of a summary: key columns, the estimate, n."""
    def text(r):
        as_rate = percent if isinstance(percent, bool) else any(
            w in r["measure"] for w in percent.split("|"))
        return pct(row_estimate(r)) if as_rate else num(row_estimate(r), digits)

    cells = [text(r) for r in summary.iter_rows(named=True)]
    return summary.select(*keys).with_columns(pl.Series("estimate", cells, dtype=pl.String),
                                              pl.Series("n", [f"{v:,}" for v in summary["n"]]))


def _seat0_net(deals: pl.DataFrame) -> np.ndarray:
    return deals.select(M.SEAT0_NET).to_series().to_numpy()








# ---------------------------------------------------------------- a. the non-dealer's edge


def summarize_edge(deals: pl.DataFrame, matches: pl.DataFrame) -> pl.DataFrame:
    """Non-dealer's win rate and net points per deal; the first non-dealer's match wins."""
    return pl.DataFrame([
        *metric_rows({"non-dealer wins a scored deal": DEAL["non_dealer_wins"],
                      "non-dealer's net points per deal": DEAL["non_dealer_net"]}, deals,
                     column="measure", scope="deal"),
        *metric_rows({"first non-dealer wins the match": M.FIRST_NON_DEALER_WINS}, matches,
                     column="measure", scope="match"),
    ])


def section_edge(deals: pl.DataFrame, matches: pl.DataFrame) -> Section:
    summary = summarize_edge(deals, matches)
    table = _display(summary, ["scope", "measure"], "wins")
    win = find_estimate(summary, scope="deal", measure="non-dealer wins a scored deal")
    net = find_estimate(summary, scope="deal", measure="non-dealer's net points per deal")
    match = find_estimate(summary, scope="match", measure="first non-dealer wins the match")
    fig, (ax,) = new_figure(6, 3.2)
    part = summary.filter(pl.col("measure").str.contains("wins"))
    ax.bar(["deal (scored)", "match"], part["value"], color=["#4C72B0", "#8172B2"],
           yerr=yerr(part["value"], part["low"], part["high"]), capsize=3)
    ax.axhline(0.5, color="k", ls="--", lw=0.8)
    ax.set_ylim(0.4, 0.6)
    percent_axis(ax)
    ax.set_ylabel("non-dealer wins")
    findings = (
        f"The non-dealer, who leads the first trick (TR-3), wins {pct(win)} of scored deals "
        f"and nets {num(net, 3, signed=True)} points a deal (n={deals.height:,} deals).",
        f"Over whole matches the deal alternates, and the player who does not deal first wins "
        f"{pct(match)} of matches (n={matches.height:,}).",
    )
    return Section(
        key="edge", title="a. The non-dealer's edge, per deal and per match (TR-3, TR-6)",
        method="Independent deals at 0-0 and whole matches, the base policy at both seats. "
               "Wilson intervals for rates, t for means.",
        tables=(Table("Non-dealer's edge.", table),),
        plot=Plot("a_edge.png", png(fig), "Non-dealer's win rate per scored deal and per "
                  "match (the first non-dealer); bars: 95% intervals; dashes: even."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- b. the card call


def summarize_call(deals: pl.DataFrame, never: pl.DataFrame) -> pl.DataFrame:
    """Ask rates per role, redeals, abandoned deals; seat 0's gain from asking (paired)."""
    rows = metric_rows({
        "non-dealer asks for new cards (first hand)": M.NON_DEALER_ASKS,
        "dealer asks too, after the non-dealer asked": M.DEALER_ASKS_TOO,
        "new hands dealt": DEAL["new_cards"],
        "deal abandoned, stock short": DEAL["abandoned"],
        "hands dealt per deal": M.HANDS_DEALT,
    }, deals, column="measure")
    if not (deals["deal_id"] == never["deal_id"]).all():
        raise ValueError("the two arms of section b must hold the same deals")
    rows.append(estimate_row(stats.paired_difference(_seat0_net(deals), _seat0_net(never)),
                             measure="seat 0's gain per deal from its card call vs never "
                                     "asking"))
    return pl.DataFrame(rows)


def section_call(deals: pl.DataFrame, never: pl.DataFrame) -> Section:
    summary = summarize_call(deals, never)
    table = _display(summary, ["measure"], "asks|dealt|abandoned")
    table = table.with_columns(pl.when(pl.col("measure") == "hands dealt per deal")
                               .then(pl.lit(num(find_estimate(summary,
                                                              measure="hands dealt per deal"))))
                               .otherwise(pl.col("estimate")).alias("estimate"))
    nd = find_estimate(summary, measure="non-dealer asks for new cards (first hand)")
    d = find_estimate(summary, measure="dealer asks too, after the non-dealer asked")
    gain = find_estimate(summary, measure="seat 0's gain per deal from its card call vs never "
                                          "asking")
    abandoned = find_estimate(summary, measure="deal abandoned, stock short")
    fig, (ax,) = new_figure(6, 3.2)
    rates = summary.filter(pl.col("measure").str.contains("asks"))
    ax.bar(["non-dealer asks", "dealer asks too"], rates["value"], color="#55A868",
           yerr=yerr(rates["value"], rates["low"], rates["high"]), capsize=3)
    percent_axis(ax)
    findings = (
        f"The non-dealer asks for new cards in {pct(nd)} of deals; the dealer then asks too in "
        f"{pct(d)} of those; {pct(abandoned, 3)} of deals are abandoned (TR-2).",
        f"The card call is worth {num(gain, 3, signed=True)} points a deal to the player who "
        "uses it, against the same player never asking (paired on the same deals).",
    )
    return Section(
        key="call", title="b. The card call: how often, and what it is worth (TR-2)",
        method="The deals of section a; the value arm replays the same deals with seat 0 "
               "never asking (call_threshold 0) and seat 1 unchanged, so the difference in "
               "seat 0's net points is paired. t intervals for means, Wilson for rates.",
        tables=(Table(f"Card call ({sample_text(deals.height, 'deals', 'per arm')}).", table,
                      n=deals.height),),
        plot=Plot("b_call.png", png(fig), "Card-call rates; bars: 95% Wilson intervals."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- c. pourri and null deals


def summarize_pourri(deals: pl.DataFrame, ordered: pl.DataFrame) -> pl.DataFrame:
    """Pourri and null rates under the base policy; fixed-order play against the exact values."""
    rows = metric_rows({"deal with a pourri trick": DEAL["pourri_deal"],
                        "null deal (three pourri)": DEAL["null_deal"]}, deals,
                       column="measure", play="base policy", exact=None)
    exact = fixed_order_distribution(True, True)
    rows += metric_rows(
        [({"measure": "null deal" if role == "null"
           else f"{role.replace('_', '-')} wins in {tricks} tricks",
           "exact": float(exact[role, tricks])}, M.won_in(role, tricks))
         for role, tricks in CATEGORIES],
        ordered, play="strongest first, no proposal")
    return pl.DataFrame(rows)


def section_pourri(deals: pl.DataFrame, ordered: pl.DataFrame) -> Section:
    summary = summarize_pourri(deals, ordered)
    table = _display(summary, ["play", "measure"], True).with_columns(
        exact=pl.Series([("–" if v is None else f"{100 * v:.3f}%") for v in summary["exact"]],
                        dtype=pl.String))
    pourri = find_estimate(summary, play="base policy", measure="deal with a pourri trick")
    null = find_estimate(summary, play="base policy", measure="null deal (three pourri)")
    exact_null = summary.filter(pl.col("measure") == "null deal")["exact"][0]
    fixed = summary.filter(pl.col("play") != "base policy")
    inside = ((fixed["low"] <= fixed["exact"]) & (fixed["exact"] <= fixed["high"])).all()
    verdict = ("matches the exact enumeration of all 18,123,840 deals within its 95% "
               "intervals" if inside else "DOES NOT match the exact enumeration in every "
               "category (see the table)")
    fig, (ax,) = new_figure(7, 3.2)
    part = summary.filter(pl.col("play") != "base policy")
    x = np.arange(part.height)
    ax.bar(x, part["value"], color="#4C72B0", label="engine",
           yerr=yerr(part["value"], part["low"], part["high"]), capsize=3)
    ax.scatter(x, part["exact"], color="k", marker="_", s=400, zorder=3, label="exact")
    ax.set_xticks(x, [m.replace(" wins in ", "\n") for m in part["measure"]], fontsize=8)
    percent_axis(ax)
    ax.legend(fontsize=8)
    findings = (
        f"Under the base policy {pct(pourri)} of deals have a pourri trick and {pct(null, 3)} "
        "are null (three pourri tricks, TR-3).",
        f"With both players leading their strongest card first and never proposing, the engine "
        f"{verdict} (null deals: exactly {100 * exact_null:.3f}%).",
    )
    return Section(
        key="pourri", title="c. Pourri tricks and null deals (TR-3)",
        method="The deals of section a, and deals where both players play strongest first "
               "without proposals, compared with the exact distribution computed by "
               "enumerating every pair of hands with the referee's trick rules "
               "(simulators/truc/exact.py). Wilson intervals.",
        tables=(Table("Pourri and null deals; exact values where known.", table),),
        plot=Plot("c_pourri.png", png(fig), "Deal results of fixed-order play, engine (bars, "
                  "95% intervals) vs exact (black)."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- d. proposals by score


def _bucket() -> pl.Expr:
    """The bucket of the leading manche score before the deal."""
    top = pl.max_horizontal("score_0", "score_1")
    expr = pl.lit(None, pl.String)
    for (low, high), name in zip(SCORE_BUCKETS, BUCKET_NAMES, strict=True):
        expr = pl.when(top.is_between(low, high)).then(pl.lit(name)).otherwise(expr)
    return expr


def summarize_proposals(match_deals: pl.DataFrame) -> pl.DataFrame:
    """Per bucket of the leading score: proposals, refusals, bancos and counter-bancos.

    The deals of one match are not independent: intervals are clustered by match.
    """
    deals = match_deals.with_columns(score=_bucket())
    proposals = (deals.filter(pl.col("proposals") > 0)
                 .with_columns(i=pl.int_ranges(0, pl.col("proposals"))).explode("i")
                 .with_columns(refused=(pl.col("outcome") == "refused")
                               & (pl.col("i") == pl.col("proposals") - 1)))
    per_deal = metric_rows({"deal with a proposal": DEAL["proposal_deal"],
                            "deal with a banco": DEAL["banco_deal"],
                            "deal with a counter-banco": DEAL["counter_banco_deal"]}, deals,
                           by="score", column="measure", cluster="match_id")
    accepted = metric_rows({"proposal accepted": M.PROPOSAL_ACCEPTED}, proposals, by="score",
                           column="measure", cluster="match_id")
    order = {m: i for i, m in enumerate(("deal with a proposal", "proposal accepted",
                                         "deal with a banco", "deal with a counter-banco"))}
    rows = sorted(per_deal + accepted,
                  key=lambda r: (BUCKET_NAMES.index(r["score"]), order[r["measure"]]))
    return pl.DataFrame(rows)


def section_proposals(match_deals: pl.DataFrame) -> Section:
    summary = summarize_proposals(match_deals)
    table = (summary.with_columns(cell=pl.Series([pct(row_estimate(r), 2) for r in
                                                  summary.iter_rows(named=True)]))
             .pivot(on="measure", index="score", values="cell"))
    low = find_estimate(summary, score="0-5", measure="deal with a proposal")
    acc = find_estimate(summary, score="0-5", measure="proposal accepted")
    banco = find_estimate(summary, score="11", measure="deal with a banco")
    banco9 = find_estimate(summary, score="9-10", measure="deal with a banco")
    fig, axes = new_figure(8, 3.2, ncols=2)
    for ax, measure in zip(axes, ("proposal accepted", "deal with a banco"), strict=True):
        part = summary.filter(pl.col("measure") == measure)
        ax.bar(part["score"], part["value"], color="#C44E52",
               yerr=yerr(part["value"], part["low"], part["high"]), capsize=3)
        ax.set_title(measure)
        ax.set_xlabel("leading manche score")
        percent_axis(ax)
    findings = (
        f"Early in a manche (leading score 0-5) someone proposes in {pct(low)} of deals and "
        f"{pct(acc)} of proposals are accepted.",
        f"Bancos (TR-5) appear in {pct(banco9)} of deals when the leader has 9-10 points and "
        f"{pct(banco)} at 11.",
    )
    return Section(
        key="proposals", title="d. Proposals, acceptances and bancos by score (TR-4, TR-5)",
        method="Every deal of whole matches, grouped by the higher of the two manche scores "
               "before the deal. 'Accepted' counts proposals not refused (a refusal ends the "
               "deal, so each refused deal holds exactly one). The deals of one match are not "
               "independent: Wilson intervals with the match-clustered effective sample size, "
               "as tapisvert simulate truc --unit matches prints them.",
        tables=(Table(f"By leading score ({sample_text(match_deals.height, 'deals')}).", table,
                      n=match_deals.height),),
        plot=Plot("d_proposals.png", png(fig), "Acceptance and banco rates by leading score; "
                  "bars: 95% intervals."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- e. bluffing


def summarize_bluff(deals: pl.DataFrame, no_bluff: pl.DataFrame) -> pl.DataFrame:
    """Seat 0's gain from bluffing, paired on the same deals."""
    if not (deals["deal_id"] == no_bluff["deal_id"]).all():
        raise ValueError("the two arms of section e must hold the same deals")
    a, b = _seat0_net(deals), _seat0_net(no_bluff)
    return pl.DataFrame([
        estimate_row(stats.paired_difference(a, b), measure="gain per deal, paired"),
        estimate_row(stats.unpaired_difference(a, b), measure="same gain, unpaired interval"),
        *metric_rows({"seat 0 net per deal without bluffing": M.SEAT0_NET_MEAN}, no_bluff,
                     column="measure"),
    ])


def section_bluff(deals: pl.DataFrame, no_bluff: pl.DataFrame, base) -> Section:
    summary = summarize_bluff(deals, no_bluff)
    table = _display(summary, ["measure"], False)
    gain = find_estimate(summary, measure="gain per deal, paired")
    unpaired = find_estimate(summary, measure="same gain, unpaired interval")
    fig, (ax,) = new_figure(6, 3.2)
    part = summary.filter(pl.col("measure").str.contains("gain"))
    ax.errorbar([0, 1], part["value"], yerr=yerr(part["value"], part["low"], part["high"]),
                fmt="o", capsize=4)
    ax.set_xticks([0, 1], ["paired", "unpaired"])
    ax.axhline(0, color="k", lw=0.8)
    ax.set_ylabel("points per deal")
    bluff = base.get_params().get("bluff_probability", "?")
    findings = (
        f"Bluffing (proposing with a weak hand with probability {bluff}) is worth "
        f"{num(gain, 3, signed=True)} points a deal against the same player never bluffing, "
        "the opponent unchanged.",
        f"Pairing on the same deals narrows the interval from {num(unpaired, 3, signed=True)} "
        "(unpaired).",
    )
    return Section(
        key="bluff", title="e. The value of bluffing (TR-4)",
        method="Two arms on the same deals and noise: both seats play the base policy, or "
               "seat 0 plays it with bluff_probability 0. The difference in seat 0's net "
               "points is paired. t intervals.",
        tables=(Table(f"Bluffing ({sample_text(deals.height, 'deals', 'per arm')}).", table,
                      n=deals.height),),
        plot=Plot("e_bluff.png", png(fig), "Seat 0's gain from bluffing; bars: 95% t "
                  "intervals, paired and unpaired."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- f. match length


def summarize_length(matches: pl.DataFrame, manches: pl.DataFrame) -> pl.DataFrame:
    """Deals per match and per manche, quantiles, and how often a match goes to three."""
    deals = matches["deals"].to_numpy()
    rows = [*metric_rows({"deals per match": M.DEALS_PER_MATCH}, matches, column="measure"),
            *metric_rows({"deals per manche": M.DEALS_PER_MANCHE}, manches, column="measure")]
    for q in (0.1, 0.5, 0.9):
        value = float(np.quantile(deals, q))
        rows.append({"measure": f"deals per match, {int(q * 100)}th percentile", "value": value,
                     "low": value, "high": value, "n": len(deals)})
    rows += metric_rows({"match goes to a third manche": M.THIRD_MANCHE}, matches,
                        column="measure")
    return pl.DataFrame(rows)


def section_length(matches: pl.DataFrame, manches: pl.DataFrame) -> Section:
    summary = summarize_length(matches, manches)
    cells = []
    for r in summary.iter_rows(named=True):
        if "percentile" in r["measure"]:
            cells.append(f"{r['value']:g}")
        elif "third" in r["measure"]:
            cells.append(pct(row_estimate(r)))
        else:
            cells.append(num(row_estimate(r), 2))
    table = summary.select("measure").with_columns(pl.Series("estimate", cells),
                                                   pl.Series("n", [f"{v:,}"
                                                                   for v in summary["n"]]))
    per_match = find_estimate(summary, measure="deals per match")
    three = find_estimate(summary, measure="match goes to a third manche")
    fig, (ax,) = new_figure(6, 3.2)
    ax.hist(matches["deals"].to_numpy(), bins=40, color="#55A868")
    ax.set_xlabel("deals per match")
    ax.set_ylabel("matches")
    findings = (
        f"A match lasts {num(per_match, 1)} deals (n={matches.height:,} matches).",
        f"{pct(three)} of matches go to a third manche.",
    )
    return Section(
        key="length", title="f. Match length (TR-6)",
        method="Whole matches: manches to 12, two manches won, the deal alternating; null "
               "and abandoned deals count as deals. t intervals for means, Wilson for rates.",
        tables=(Table("Match length.", table),),
        plot=Plot("f_length.png", png(fig), f"Deals per match, n={matches.height:,}."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- g. exploitability


def summarize_exploitability(policies: dict) -> pl.DataFrame:
    """Equilibrium value and exploitability at 0-0; each policy's loss to a best response.

    Exact computations on the solved deal tree of ``simulators/truc/solver``
    (the card call is outside the tree): no sampling, so ``low`` = ``high``
    = ``value``.
    """
    from simulators.truc.solver.policy_eval import policy_exploitability
    from simulators.truc.solver.solutions import solved_deal

    solved = solved_deal()
    rows = [{"policy": "equilibrium (CFR+)", "measure": "exploitability",
             "value": solved.exploitability},
            {"policy": "equilibrium (CFR+)", "measure": "non-dealer's value",
             "value": solved.value}]
    for name, policy in policies.items():
        e = policy_exploitability(solved, policy)
        rows += [{"policy": name, "measure": "exploitability", "value": e.exploitability},
                 {"policy": name, "measure": "loss as non-dealer", "value": e.loss_non_dealer},
                 {"policy": name, "measure": "loss as dealer", "value": e.loss_dealer},
                 {"policy": name, "measure": "non-dealer's value in self-play",
                  "value": e.self_play_value}]
    frame = pl.DataFrame(rows)
    return frame.with_columns(low=pl.col("value"), high=pl.col("value"), n=pl.lit(1))


def section_exploitability(ctx: ReportContext) -> Section:
    method = ("Exact, on the solved deal tree at 0-0 (docs/truc_solver.md): the equilibrium "
              "is CFR+'s average strategy; a policy's exploitability is the mean, over the two "
              "seats, of what a best response wins against it beyond the equilibrium value, in "
              "points per deal (half the NashConv). The card call (TR-2) is outside the tree.")
    if ctx.scale < EXPLOIT_MIN_SCALE:
        fig, (ax,) = new_figure(4, 1.5)
        ax.axis("off")
        note = (f"Skipped at scale {ctx.scale:g} (below {EXPLOIT_MIN_SCALE:g}): the solved "
                "tree takes minutes to load and each best response minutes more.")
        return Section(
            key="exploitability", title="g. Exploitability beside the equilibrium",
            method=method, tables=(Table("Not computed.", pl.DataFrame({"note": [note]})),),
            plot=Plot("g_exploitability.png", png(fig), "Not computed at this scale."),
            findings=(note,), summary=pl.DataFrame({"policy": [], "measure": [], "value": []}))
    base = ctx.policy
    policies = {"base policy": base,
                "base, never bluffing": _variant(base, bluff_probability=0.0),
                "random": RandomPolicy()}
    summary = summarize_exploitability(policies)
    table = (summary.with_columns(cell=pl.col("value").map_elements(lambda v: f"{v:+.4f}",
                                                                    return_dtype=pl.String))
             .pivot(on="measure", index="policy", values="cell").fill_null("–"))
    value = find_estimate(summary, policy="equilibrium (CFR+)", measure="non-dealer's value")
    eq = find_estimate(summary, policy="equilibrium (CFR+)", measure="exploitability")
    base_e = find_estimate(summary, policy="base policy", measure="exploitability")
    honest = find_estimate(summary, policy="base, never bluffing", measure="exploitability")
    part = summary.filter(pl.col("measure") == "exploitability")
    fig, (ax,) = new_figure(6, 3.2)
    ax.bar(part["policy"], part["value"], color="#8172B2")
    ax.set_ylabel("points per deal lost to a best response")
    ax.tick_params(axis="x", labelsize=8)
    findings = (
        f"Played optimally, a deal at 0-0 is worth {value.value:+.3f} points to the non-dealer "
        f"(the equilibrium is within {eq.value:.4f} points per deal of optimal).",
        f"A best response wins {base_e.value:.3f} points per deal against the base heuristic "
        f"beyond the equilibrium value ({honest.value:.3f} when it never bluffs).",
    )
    return Section(
        key="exploitability", title="g. Exploitability beside the equilibrium (TR-3..TR-5)",
        method=method,
        tables=(Table("Points per deal; exact on the solved tree.", table),),
        plot=Plot("g_exploitability.png", png(fig), "Exploitability, points per deal."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- h. solved as played


def summarize_solved(equity: dict, measured: dict) -> pl.DataFrame:
    """The solved game's figures: shipped equity table and the measured runs
    (``simulators/truc/solver/data/``); exact figures have ``low`` = ``high``."""
    rows = []
    for s in measured.get("solutions", []):
        what = (f"{s['scores'][0]}-{s['scores'][1]}, {s['payoff']}, "
                f"{'card call' if s['card_call'] else 'no card call'}")
        rows += [{"measure": f"value ({what})", "value": s["value"], "low": s["value"],
                  "high": s["value"], "n": 1},
                 {"measure": f"exploitability ({what})", "value": s["exploitability"],
                  "low": s["exploitability"], "high": s["exploitability"], "n": 1}]
    play = measured.get("self_play")
    if play:
        rows.append({"measure": "engine self-play, non-dealer's mean points (0-0)",
                     "value": play["engine_mean"], "low": play["engine_low"],
                     "high": play["engine_high"], "n": play["deals"]})
    for d in measured.get("duplicate", []):
        rows.append({"measure": f"match win rate, {d['a']} vs {d['b']} (duplicate)",
                     "value": d["a_match_win_rate"], "low": d["low"], "high": d["high"],
                     "n": d["matches"]})
    chance = np.asarray(equity["win_probability"], dtype=float)
    rows += [{"measure": "non-dealer's chance of the manche at 0-0", "value": chance[0, 0],
              "low": chance[0, 0], "high": chance[0, 0], "n": 1},
             {"measure": "largest exploitability of the equity table",
              "value": equity["largest_exploitability"],
              "low": equity["largest_exploitability"],
              "high": equity["largest_exploitability"], "n": 1}]
    return pl.DataFrame(rows)


def section_solved() -> Section:
    import json

    from simulators.truc.solver.manche import DATA, shipped_equity

    equity = shipped_equity()
    path = DATA / "measured.json"
    measured = json.loads(path.read_text()) if path.exists() else {}
    summary = summarize_solved(equity, measured)
    method = (
        "Exact where no interval is shown (docs/truc_solver.md): each deal is solved by CFR+ "
        "with the card call (TR-2) in the game — keep or ask, then the card play with what "
        "the asks revealed; redeals dealt as from a full deck, a stated abstraction — and "
        "certified by an exact best response over five hands. The equity table is the "
        "non-dealer's chance of winning the manche at every score, by value iteration over "
        "the scores (TR-5, TR-6). Measured: the engine playing the solution (exact card "
        "removal), and whole matches in duplicate (each match twice on the same decks, "
        "seats swapped). Figures shipped with the package; recomputed by 'tapisvert solve "
        "truc --equity --recompute' and bench/truc_self_play.py, bench/truc_duplicate.py.")
    chance = np.asarray(equity["win_probability"], dtype=float)
    fig, (ax,) = new_figure(5.2, 4.2)
    ax.grid(False)
    image = ax.imshow(chance, origin="lower", cmap="RdBu", vmin=0, vmax=1)
    ax.set_xlabel("dealer's score")
    ax.set_ylabel("non-dealer's score")
    fig.colorbar(image, ax=ax, label="non-dealer's chance of the manche")
    table = summary.with_columns(
        cell=pl.when(pl.col("n") > 1)
        .then(pl.format("{} [{}, {}]", *(pl.col(c).round(4) for c in ("value", "low", "high"))))
        .otherwise(pl.col("value").round(4).cast(pl.String))).select("measure", "cell")
    findings = [f"At 0-0 the non-dealer wins the manche with chance {chance[0, 0]:.3f}; every "
                f"state of the table is within {equity['largest_exploitability']:.4f} of "
                "optimal (chance of the manche)."]
    for d in measured.get("duplicate", []):
        findings.append(f"{d['a']} against {d['b']}: wins {d['a_match_win_rate']:.3f} "
                        f"[{d['low']:.3f}, {d['high']:.3f}] of the matches, "
                        f"{d['matches']:,} duplicate pairs.")
    return Section(
        key="solved", title="h. Truc solved as played: card call, scores, equity (TR-2..TR-6)",
        method=method, tables=(Table("Exact figures, and measured ones with 95% intervals.",
                                     table),),
        plot=Plot("h_equity.png", png(fig), "The equity table: chance of winning the manche."),
        findings=tuple(findings), summary=summary)


# ---------------------------------------------------------------- the report


def settings(ctx: ReportContext, runs: dict[str, Experiment]) -> list[tuple[str, str]]:
    """The run-settings rows."""
    sizes = _sizes(ctx)
    base = ctx.policy
    return [
        ("policy (both seats)", policy_text(ctx.base.game, base)),
        ("section b's arm (seat 0)", policy_text(ctx.base.game,
                                                 _variant(base, call_threshold=0.0))),
        ("section e's arm (seat 0)", policy_text(ctx.base.game,
                                                 _variant(base, bluff_probability=0.0))),
        ("rules", str(ctx.base.config)),
        ("seed", str(ctx.seed)), ("scale", f"{ctx.scale:g}"),
        ("deals per arm (a-e)", f"{sizes['deals']:,}"),
        ("fixed-order deals (c)", f"{sizes['ordered']:,}"),
        ("matches (a, d, f)", f"{sizes['matches']:,}"),
    ]


def _match_deals(runs: Runs) -> pl.DataFrame:
    return runs["matches"].scan("deals").select(
        "match_id", "score_0", "score_1", "proposals", "outcome", "bancos",
        "counter_bancos").collect()


REPORT = Report(
    title="Truc: balance report",
    intro=(
        "Monte Carlo estimates from the tapisvert Truc engine under the rulings TR-1..TR-6, "
        "with the heuristic policy at both seats; every engine deal can be replayed move by "
        "move by the independent referee.",
        "Every number comes with a 95% interval (Wilson for rates, Student t for means) and its "
        "sample size. The numbers describe this policy playing against itself; Truc solved as "
        "played — the card call in the game, every score, the equity table — is section h "
        "and docs/truc_solver.md.",
    ),
    plan=plan,
    sections=(
        lambda runs, ctx: section_edge(_deals(runs), runs["matches"].table("matches")),
        lambda runs, ctx: section_call(_deals(runs), _deals(runs, "deals_seat0_never_asks")),
        lambda runs, ctx: section_pourri(_deals(runs), _deals(runs, "ordered")),
        lambda runs, ctx: section_proposals(_match_deals(runs)),
        lambda runs, ctx: section_bluff(_deals(runs), _deals(runs, "deals_seat0_no_bluff"),
                                        ctx.policy),
        lambda runs, ctx: section_length(runs["matches"].table("matches"),
                                         runs["matches"].table("manches")),
        lambda runs, ctx: section_exploitability(ctx),
        lambda runs, ctx: section_solved(),
    ),
    settings=settings,
)
