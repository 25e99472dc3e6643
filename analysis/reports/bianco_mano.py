"""Bianco Mano strategy report: six questions, declared for :mod:`analysis.reporting`.

Take rates by position, contract success, player counts, seat and dealer
advantage over whole games, the Bianco Mano bonus, never shuffling. Every
simulation is one named experiment of :func:`plan`, played by the runner
(``tapisvert report bianco-mano --n-jobs 2`` parallelises it and resumes
after a kill); each section reads its runs' tables, summarises them into a
tidy table ``..., value, low, high, n``, draws one figure and states its
findings. The rendering only formats what the summaries hold.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from analysis import stats, summaries
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
    fmt_count,
    group_sizes,
    headroom,
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
from analysis.stats import Estimate
from simulators.bianco_mano import metrics as M
from simulators.bianco_mano import solver as bianco_solver
from simulators.bianco_mano.rules import BONUS_POINTS, CONTRACT_POINTS, TOTAL_POINTS
from simulators.core.game import Metric, rate

PLAYER_COUNTS = (3, 4, 5)
BONUS_DISCOUNTS = (0.5, 1.0, 2.0)  # HeuristicPolicy.bonus_discount values of section e
SHUFFLED_SEED_OFFSET = 1  # section f's shuffled arm uses seed + 1: an independent sample
BASE_DEALS = 1_000_000
BASE_GAMES = 100_000
BASE_GAMES_OTHER = 40_000
DEAL = {m.name: m for m in M.DEAL_METRICS}  # the headline metrics `simulate` prints
POINT_RANGE = np.arange(TOTAL_POINTS + 1)  # a side's card points, 0..75 (BM-1)
NEAR_MISS = f"{CONTRACT_POINTS - BONUS_POINTS}-{CONTRACT_POINTS - 1}"  # "40-44" (BM-10, BM-11)
DEAL_COLUMNS = (
    "n_players",
    "dealer",
    "taker",
    "bid_round",
    "side_points",
    "taker_dominant_count",
    "bonus_announced",
    "outcome",
)
GAME_DEAL_COLUMNS = ("game_id", "deal_no", "taker", "taker_dominant_count", "outcome")
PLAYER_COLORS = {3: "#4C72B0", 4: "#DD8452", 5: "#55A868"}
ROUND_COLORS = {1: "#4C72B0", 2: "#C44E52"}


# ---------------------------------------------------------------- the simulations


def _sizes(ctx: ReportContext) -> dict[str, int]:
    return {
        "deals": ctx.size(BASE_DEALS, 200),
        "games": ctx.size(BASE_GAMES),
        "games_other": ctx.size(BASE_GAMES_OTHER),
    }


def _with_discount(policy, discount: float):
    """The base policy with its bonus_discount parameter set (section e)."""
    return type(policy).from_params(**{**policy.get_params(), "bonus_discount": discount})


def plan(ctx: ReportContext) -> dict[str, Experiment]:
    """Every simulation of the report, by name."""
    sizes = _sizes(ctx)
    runs = {
        f"deals_{n}p": ctx.experiment("deals", sizes["deals"], n_players=n) for n in PLAYER_COUNTS
    }
    for n in PLAYER_COUNTS:
        runs[f"games_{n}p"] = ctx.experiment(
            "games", sizes["games"] if n == 4 else sizes["games_other"], n_players=n
        )
    for d in (0.0, *BONUS_DISCOUNTS):
        runs[f"bonus_d{d:g}"] = ctx.experiment(
            "deals",
            sizes["deals"],
            n_players=4,
            bianco_mano=True,
            policies=_with_discount(ctx.policy, d),
        )
    learned = learned_policy(ctx)
    if learned is not None:  # section h: the same deals, the learned player at every seat
        for n in PLAYER_COUNTS:
            runs[f"net_deals_{n}p"] = ctx.experiment("deals", sizes["deals"], n_players=n,
                                                     policies=learned)
        runs["net_bonus"] = ctx.experiment("deals", sizes["deals"], n_players=4,
                                           bianco_mano=True, policies=learned)
    runs["games_4p_shuffled"] = ctx.experiment(
        "games",
        sizes["games"],
        seed=ctx.seed + SHUFFLED_SEED_OFFSET,
        n_players=4,
        shuffle_every_deal=True,
    )
    return runs


def _deals(runs: Runs, name: str) -> pl.DataFrame:
    return runs[name].scan("deals").select(DEAL_COLUMNS).collect()


def _game_deals(runs: Runs, name: str) -> pl.DataFrame:
    return runs[name].scan("deals").select(GAME_DEAL_COLUMNS).collect()


# ---------------------------------------------------------------- small helpers


def _position_label(p: int, n_players: int) -> str:
    """Seat position relative to the dealer: 0 = dealer's left … n-1 = dealer."""
    names = {0: "dealer's left", n_players - 1: "dealer", n_players - 2: "dealer's right"}
    return f"{p} ({names[p]})" if p in names else str(p)


def _first_dealer_label(r: int, n_players: int) -> str:
    """Seat position relative to the first dealer: 0 = first dealer, 1 = his left …"""
    names = {0: "first dealer", 1: "his left", n_players - 1: "his right"}
    return f"{r} ({names[r]})" if r in names else str(r)


def _mask(deals: pl.DataFrame, expr: pl.Expr) -> np.ndarray:
    """A declared event (``M.TAKEN``, ``M.MADE``…) per deal, as a boolean array."""
    return deals.select(expr.fill_null(False)).to_series().to_numpy()


# ---------------------------------------------------------------- a. take rate by position


def summarize_take_by_position(deals: pl.DataFrame, n_players: int) -> pl.DataFrame:
    """Who takes, by position relative to the dealer and bidding round.

    ``measure`` is ``share`` (of all deals), ``when asked`` (of the deals where
    the bidding reached that seat in that round) or ``all pass``.
    """
    pairs = []
    for r in (1, 2):
        for p in range(n_players):
            keys = {"position": p, "label": _position_label(p, n_players), "round": str(r)}
            pairs += [({**keys, "measure": "share"}, M.taken_at(p, r)),
                      ({**keys, "measure": "when asked"}, M.taken_when_asked(p, r))]
    pairs += [({"position": p, "label": _position_label(p, n_players), "round": "any",
                "measure": "share"}, M.taken_at(p)) for p in range(n_players)]
    pairs.append(({"position": -1, "label": "nobody (all pass)", "round": "any",
                   "measure": "all pass"}, M.ALL_PASS_RATE))
    return pl.DataFrame(metric_rows(pairs, deals))


def table_take_by_position(summary: pl.DataFrame, n_players: int) -> Table:
    rows = []
    for p in range(n_players):

        def cell(r, m, p=p):
            return find_estimate(summary, position=p, round=r, measure=m)

        rows.append(
            {
                "position": _position_label(p, n_players),
                "round 1 (share of deals)": pct(cell("1", "share")),
                "round 2 (share of deals)": pct(cell("2", "share")),
                "either round": pct(cell("any", "share")),
                "round 1 when asked": pct(cell("1", "when asked")),
                "asked r1 (n)": fmt_count(cell("1", "when asked").n),
                "round 2 when asked": pct(cell("2", "when asked")),
                "asked r2 (n)": fmt_count(cell("2", "when asked").n),
            }
        )
    allpass = find_estimate(summary, measure="all pass")
    rows.append(
        {
            "position": "all pass",
            "round 1 (share of deals)": "",
            "round 2 (share of deals)": "",
            "either round": pct(allpass),
            "round 1 when asked": "",
            "asked r1 (n)": "",
            "round 2 when asked": "",
            "asked r2 (n)": "",
        }
    )
    return Table(
        f"Takes by the taker's position relative to the dealer, {n_players} players; "
        f"shares are of all {sample_text(allpass.n, 'deals')}, 'when asked' rates of the deals "
        "where the bidding reached that seat in that round (n per column).",
        pl.DataFrame(rows), n=allpass.n,
    )


def figure_take_by_position(summary: pl.DataFrame, n_players: int) -> bytes:
    fig, (left, right) = new_figure(9.5, 3.8, 2)
    x = np.arange(n_players)
    names = [
        "left"
        if p == 0
        else "dealer"
        if p == n_players - 1
        else "right"
        if p == n_players - 2
        else str(p)
        for p in range(n_players)
    ]
    for ax, measure in ((left, "share"), (right, "when asked")):
        for j, r in enumerate((1, 2)):
            sub = summary.filter((pl.col("round") == str(r)) & (pl.col("measure") == measure))
            sub = sub.sort("position")
            ax.bar(
                x + (j - 0.5) * 0.38,
                sub["value"],
                0.38,
                color=ROUND_COLORS[r],
                label=f"round {r}",
                yerr=yerr(sub["value"], sub["low"], sub["high"]),
                capsize=3,
            )
        ax.set_xticks(x, names)
        ax.set_xlabel("taker's position (0 = dealer's left, speaks first)")
        percent_axis(ax)
        headroom(ax)
        ax.legend(frameon=False, ncols=2, loc="upper right")
    allpass = find_estimate(summary, measure="all pass")
    left.set_title(
        f"share of all deals taken at each position\n(all pass {pct(allpass)}, "
        f"n={fmt_count(allpass.n)})",
        fontsize=10,
    )
    right.set_title(
        "take rate when the bidding reaches the seat\n(n = deals reaching it)", fontsize=10
    )
    return png(fig)


def findings_take_by_position(summary: pl.DataFrame, n_players: int) -> tuple[str, ...]:
    share = summary.filter((pl.col("round") == "any") & (pl.col("measure") == "share"))
    first = find_estimate(summary, position=0, round="any", measure="share")
    dealer = find_estimate(summary, position=n_players - 1, round="any", measure="share")
    allpass = find_estimate(summary, measure="all pass")
    top = share.sort("value", descending=True).row(0, named=True)
    asked1 = summary.filter((pl.col("round") == "1") & (pl.col("measure") == "when asked"))
    lo, hi = asked1.sort("value").row(0, named=True), asked1.sort("value").row(-1, named=True)
    r2 = sum(
        find_estimate(summary, position=p, round="2", measure="share").value
        for p in range(n_players)
    )
    share_gap = share["value"].max() - share["value"].min()
    asked_gap = hi["value"] - lo["value"]
    reading = (
        "the gap in shares comes mostly from speaking order, since a seat can only take "
        "if everyone before it passed"
        if asked_gap < share_gap / 2
        else "seats differ even once the bidding reaches them, not only by speaking order"
    )
    return (
        f"The dealer's left, who speaks first, takes {pct(first)} of all deals and the dealer "
        f"{pct(dealer)} (n={fmt_count(first.n)} deals); the most frequent taker is position "
        f"{top['label']}. All {n_players} players pass twice in {pct(allpass)} of deals, and "
        f"{100 * r2:.1f}% of deals are taken in round 2.",
        f"Once the bidding reaches a seat, the round-1 take rate ranges from "
        f"{100 * lo['value']:.1f}% ({lo['label']}, n={fmt_count(lo['n'])}) to "
        f"{100 * hi['value']:.1f}% "
        f"({hi['label']}, n={fmt_count(hi['n'])}): {reading}.",
    )


def section_take_by_position(deals: pl.DataFrame, n_players: int = 4) -> Section:
    summary = summarize_take_by_position(deals, n_players)
    return Section(
        key="a",
        title=f"a. Who takes: position relative to the dealer and bidding round "
        f"({n_players} players)",
        method=(
            "Independent deals (fresh shuffle each), dealt in turn by every seat; the "
            "bidding starts at the dealer's left (BM-7). Wilson intervals."
        ),
        tables=(table_take_by_position(summary, n_players),),
        plot=Plot(
            "a_take_by_position.png",
            figure_take_by_position(summary, n_players),
            f"Takes by position and round, {n_players} players, "
            f"n={fmt_count(deals.height)} deals; bars are 95% Wilson intervals.",
        ),
        findings=findings_take_by_position(summary, n_players),
        summary=summary,
    )


# ---------------------------------------------------------------- b. contract success


CONTRACT_METRICS = {
    "contract success (made or capo)": DEAL["contract_success"],
    f"capo (all {TOTAL_POINTS} points)": DEAL["capo_rate"],
    f"failed (< {CONTRACT_POINTS})": M.FAILURE_RATE,
}


def summarize_contracts(deals: pl.DataFrame) -> pl.DataFrame:
    """Success, capo and failure of taken deals; side points (n = taken deals)."""
    by_round = metric_rows({"": DEAL["contract_success"]}, deals, by="bid_round", groups=(1, 2))
    rows = [
        *metric_rows(CONTRACT_METRICS, deals),
        *[{**r, "metric": f"success, taken in round {r['bid_round']}"} for r in by_round],
        *metric_rows({f"near miss ({NEAR_MISS} points)": M.NEAR_MISS,
                      "mean side points": M.SIDE_POINTS}, deals),
    ]
    return pl.DataFrame(rows).select("metric", "value", "low", "high", "n")


def side_points_histogram(deals: pl.DataFrame) -> pl.DataFrame:
    """Taken deals per taker-side card-point total 0..75."""
    side = deals.filter(M.TAKEN)["side_points"].to_numpy()
    return pl.DataFrame({"points": POINT_RANGE,
                         "deals": np.bincount(side.astype(int),
                                              minlength=POINT_RANGE.size)[:POINT_RANGE.size]})


def table_contracts(summary: pl.DataFrame) -> Table:
    rows = []
    for r in summary.iter_rows(named=True):
        e = Estimate(r["value"], r["low"], r["high"], r["n"])
        rows.append(
            {
                "metric": r["metric"],
                "estimate": num(e, 1) if r["metric"].startswith("mean") else pct(e),
                "n": fmt_count(e.n),
            }
        )
    n = find_estimate(summary, metric="contract success (made or capo)").n
    return Table(
        f"Contracts of taken deals, 4 players ({sample_text(n, 'taken deals')}; the round rows "
        "are of the deals taken in that round).",
        pl.DataFrame(rows), n=n,
    )


def figure_side_points(hist: pl.DataFrame, summary: pl.DataFrame) -> bytes:
    fig, (ax,) = new_figure(9.5, 3.6)
    pts, cnt = hist["points"].to_numpy(), hist["deals"].to_numpy()
    total = max(int(cnt.sum()), 1)
    colors = np.where(pts >= CONTRACT_POINTS, "#55A868", "#C44E52")
    ax.bar(pts, cnt / total, 0.9, color=colors)
    ax.axvline(CONTRACT_POINTS - 0.5, color="black", linestyle="--", linewidth=1)
    ymax = (cnt / total).max() if cnt.sum() else 1.0
    box = {"facecolor": "white", "edgecolor": "none", "alpha": 0.85}
    ax.text(CONTRACT_POINTS + 0.5, ymax * 0.97, f"{CONTRACT_POINTS}: contract made", va="top",
            bbox=box)
    ax.text(CONTRACT_POINTS - 1.5, ymax * 0.97, "failed", va="top", ha="right", bbox=box)
    ax.text(TOTAL_POINTS, ymax * 1.02, "capo", ha="center", va="bottom", fontsize=8)
    ax.set_ylim(0, ymax * 1.12)
    percent_axis(ax)
    ax.set_xlabel("taker side's card points (espion included)")
    ax.set_ylabel("share of taken deals")
    success = find_estimate(summary, metric="contract success (made or capo)")
    ax.set_title(
        f"taker side's points, 4 players: success {pct(success)}, n={fmt_count(total)} taken deals",
        fontsize=10,
    )
    ax.set_xlim(-1, TOTAL_POINTS + 1)
    return png(fig)


def findings_contracts(summary: pl.DataFrame) -> tuple[str, ...]:
    success = find_estimate(summary, metric="contract success (made or capo)")
    capo = find_estimate(summary, metric=f"capo (all {TOTAL_POINTS} points)")
    r1 = find_estimate(summary, metric="success, taken in round 1")
    r2 = find_estimate(summary, metric="success, taken in round 2")
    near = find_estimate(summary, metric=f"near miss ({NEAR_MISS} points)")
    mean = find_estimate(summary, metric="mean side points")
    return (
        f"Takers make {pct(success)} of their contracts (n={fmt_count(success.n)} taken deals) and "
        f"win every point (capo) in {pct(capo)}; contracts taken in round 1 succeed "
        f"{pct(r1)} (n={fmt_count(r1.n)}), in round 2 {pct(r2)} (n={fmt_count(r2.n)}).",
        f"The taker side averages {num(mean, 1)} card points; {pct(near)} of contracts miss "
        f"by {BONUS_POINTS} points or fewer ({NEAR_MISS}), the band the Bianco Mano bonus can "
        "rescue (section e).",
    )


def section_contracts(deals: pl.DataFrame) -> Section:
    summary = summarize_contracts(deals)
    hist = side_points_histogram(deals)
    return Section(
        key="b",
        title="b. Contract success and capo (4 players)",
        method=(
            "The same 4-player deals as section a, restricted to the taken ones; no bonus "
            f"(BM-10 threshold {CONTRACT_POINTS} of {TOTAL_POINTS} card points). Wilson "
            "intervals for rates, t for the mean."
        ),
        tables=(table_contracts(summary),),
        plot=Plot(
            "b_side_points.png",
            figure_side_points(hist, summary),
            f"Distribution of the taker side's card points, 4 players, "
            f"n={fmt_count(int(hist['deals'].sum()))} taken deals; the dashed line is the "
            f"{CONTRACT_POINTS} threshold.",
        ),
        findings=findings_contracts(summary),
        summary=summary,
    )


# ---------------------------------------------------------------- c. player counts

PLAYER_METRICS = ("take rate", "all-pass rate", "contract success", "capo rate")
PLAYER_METRIC_DEFS = (DEAL["take_rate"], M.ALL_PASS_RATE, DEAL["contract_success"],
                      DEAL["capo_rate"])


def summarize_player_counts(deals_by_n: dict[int, pl.DataFrame]) -> pl.DataFrame:
    deals = pl.concat([d.select(players=pl.lit(n, pl.Int64), n_players="n_players",
                                outcome="outcome") for n, d in deals_by_n.items()])
    return pl.DataFrame(metric_rows(dict(zip(PLAYER_METRICS, PLAYER_METRIC_DEFS, strict=True)),
                                    deals, by="players"))


def table_player_counts(summary: pl.DataFrame) -> Table:
    players = sorted(set(summary["players"]))
    rows = [
        {
            "metric": m,
            **{f"{p} players": pct(find_estimate(summary, players=p, metric=m)) for p in players},
        }
        for m in PLAYER_METRICS
    ]
    rows.append(
        {
            "metric": "deals (n)",
            **{
                f"{p} players": fmt_count(find_estimate(summary, players=p, metric="take rate").n)
                for p in players
            },
        }
    )
    rows.append(
        {
            "metric": "taken deals (n)",
            **{
                f"{p} players": fmt_count(
                    find_estimate(summary, players=p, metric="contract success").n
                )
                for p in players
            },
        }
    )
    sizes = {f"{p} players": find_estimate(summary, players=p, metric="take rate").n
             for p in players}
    return Table(
        "Take, all-pass, success and capo rates by player count; take and all-pass "
        "rates are of all deals, success and capo of taken deals (n in the last two "
        f"rows; {sample_text(sizes, 'deals', 'per player count')}).",
        pl.DataFrame(rows), n=sizes,
    )


def figure_player_counts(summary: pl.DataFrame) -> bytes:
    fig, (ax,) = new_figure(9.5, 3.8)
    players = sorted(set(summary["players"]))
    x = np.arange(len(PLAYER_METRICS))
    width = 0.8 / len(players)
    for j, p in enumerate(players):
        sub = [find_estimate(summary, players=p, metric=m) for m in PLAYER_METRICS]
        vals = [e.value for e in sub]
        ax.bar(
            x + (j - (len(players) - 1) / 2) * width,
            vals,
            width,
            yerr=yerr(vals, [e.low for e in sub], [e.high for e in sub]),
            capsize=3,
            color=PLAYER_COLORS.get(p, "grey"),
            label=f"{p} players (n={fmt_count(sub[0].n)} deals)",
        )
    ax.set_xticks(x, PLAYER_METRICS)
    percent_axis(ax)
    ax.set_ylim(0, 1)
    ax.legend(frameon=False, fontsize=9)
    ax.set_title("heuristic policy by player count (success and capo: of taken deals)", fontsize=10)
    return png(fig)


def findings_player_counts(summary: pl.DataFrame) -> tuple[str, ...]:
    players = sorted(set(summary["players"]))

    def phrase(metric: str) -> str:
        return ", ".join(
            f"{p} players {pct(find_estimate(summary, players=p, metric=metric))}" for p in players
        )

    return (
        f"Take rate: {phrase('take rate')} "
        f"(n={fmt_count(find_estimate(summary, players=players[0], metric='take rate').n)} "
        "deals each).",
        f"Contract success of taken deals: {phrase('contract success')}; capo: "
        f"{phrase('capo rate')}. The same bid thresholds serve every table size, so these "
        "differences mix how hard each format is with how well the thresholds fit it.",
    )


def section_player_counts(deals_by_n: dict[int, pl.DataFrame]) -> Section:
    summary = summarize_player_counts(deals_by_n)
    sizes = ", ".join(f"{p}p n={fmt_count(d.height)}" for p, d in sorted(deals_by_n.items()))
    return Section(
        key="c",
        title="c. Three, four and five players",
        method=(
            "Independent deals for each player count, heuristic policy with its default "
            "thresholds at every seat, no bonus. Wilson intervals."
        ),
        tables=(table_player_counts(summary),),
        plot=Plot(
            "c_player_counts.png",
            figure_player_counts(summary),
            f"Rates by player count ({sizes} deals); error bars are 95% Wilson intervals.",
        ),
        findings=findings_player_counts(summary),
        summary=summary,
    )


# ---------------------------------------------------------------- d. seats and first dealer


def _score_matrix(games: pl.DataFrame, n_players: int, column: str) -> np.ndarray:
    """(games, seats) array of ``column``, games in game_id order."""
    g = games.sort(["game_id", "seat"])
    return g[column].to_numpy().astype(float).reshape(-1, n_players)


def summarize_games(games_by_n: dict[int, pl.DataFrame]) -> pl.DataFrame:
    """Mean score and win share per seat and per position from the first dealer.

    ``group``: ``seat`` (index = seat), ``from first dealer`` (index = seats to
    the first dealer's left, 0 = the first dealer), ``first dealer - others``
    (score: the first dealer's score minus the mean of the other seats in the
    same game, paired within games; win share: his win share), ``position - others``
    (the same paired difference for every position from the first dealer), ``all seats``
    (score over every seat, intervals clustered by game, n = seat results).
    Win shares count a shared win as 1/n_winners.
    """
    per_seat = {"score": M.GAME_SCORE, "win share": M.WIN_SHARE}
    rows = []
    for n_players, games in sorted(games_by_n.items()):
        games = games.with_columns(n_players=pl.lit(n_players, pl.Int64))
        keys = {"players": n_players}
        for group, index in (("seat", pl.col("seat")), ("from first dealer", M.FROM_FIRST_DEALER)):
            rows += metric_rows(per_seat, games.with_columns(index=index.cast(pl.Int64)),
                                by="index", players=n_players, group=group)
        score = _score_matrix(games, n_players, "score")
        first = _score_matrix(games, n_players, "first_dealer")[:, 0].astype(int)
        rel_score = np.take_along_axis(score, (first[:, None] + np.arange(n_players)) % n_players,
                                       axis=1)
        share = next(r for r in rows if r["players"] == n_players and r["index"] == 0
                     and r["group"] == "from first dealer" and r["metric"] == "win share")
        others = (rel_score.sum(axis=1, keepdims=True) - rel_score) / (n_players - 1)
        positions = [estimate_row(stats.paired_difference(rel_score[:, k], others[:, k]),
                                  **keys, group="position - others", index=k, metric="score")
                     for k in range(n_players)]
        rows += [
            *positions,
            {**positions[0], "group": "first dealer - others"},
            {**share, "group": "first dealer - others"},
            *metric_rows({"score": M.GAME_SCORE}, games, cluster="game_id", **keys,
                         group="all seats", index=-1),
        ]
    return pl.DataFrame(rows)


def tables_games(summary: pl.DataFrame) -> tuple[Table, ...]:
    players = sorted(set(summary["players"]))
    seat_rows, rel_rows, head_rows = [], [], []
    for p in players:
        for s in range(p):
            sc = find_estimate(summary, players=p, group="seat", index=s, metric="score")
            sh = find_estimate(summary, players=p, group="seat", index=s, metric="win share")
            seat_rows.append(
                {
                    "players": str(p),
                    "seat": str(s),
                    "mean game score": num(sc),
                    "win share": pct(sh),
                    "games (n)": fmt_count(sc.n),
                }
            )
            sc = find_estimate(
                summary, players=p, group="from first dealer", index=s, metric="score"
            )
            sh = find_estimate(
                summary, players=p, group="from first dealer", index=s, metric="win share"
            )
            rel_rows.append(
                {
                    "players": str(p),
                    "position": _first_dealer_label(s, p),
                    "mean game score": num(sc),
                    "win share": pct(sh),
                    "games (n)": fmt_count(sc.n),
                }
            )
        diff = find_estimate(summary, players=p, group="first dealer - others", metric="score")
        share = find_estimate(summary, players=p, group="first dealer - others", metric="win share")
        head_rows.append(
            {
                "players": str(p),
                "games (n)": fmt_count(diff.n),
                "first dealer minus the other seats' mean": num(diff, signed=True),
                "first dealer's win share": pct(share),
                "equal share (1/n)": f"{100 / p:.1f}%",
            }
        )
    sizes = {f"{p}p": find_estimate(summary, players=p, group="seat", index=0,
                                    metric="score").n for p in players}
    n_text = sample_text(sizes, "games", "per player count")
    return (
        Table(
            f"First dealer versus the other seats, points per 10-deal game, paired within "
            f"games ({n_text}).",
            pl.DataFrame(head_rows), n=sizes,
        ),
        Table(f"By position relative to the first dealer ({n_text}).", pl.DataFrame(rel_rows),
              n=sizes),
        Table(
            f"By seat number ({n_text}); ties share the win (1/n_winners).",
            pl.DataFrame(seat_rows), n=sizes,
        ),
    )


def figure_games(summary: pl.DataFrame) -> bytes:
    fig, axes = new_figure(11, 4.2, 3)
    players = sorted(set(summary["players"]))
    width = 0.8 / len(players)
    panels = (
        ("seat", "score", "mean game score by seat number"),
        (
            "from first dealer",
            "score",
            "mean game score by position\nfrom the first dealer (0 = first dealer)",
        ),
        (
            "from first dealer",
            "win share",
            "win share by position from the\nfirst dealer (dashes: 1/n)",
        ),
    )
    for ax, (group, metric, title) in zip(axes, panels, strict=True):
        for j, p in enumerate(players):
            sub = summary.filter(
                (pl.col("players") == p) & (pl.col("group") == group) & (pl.col("metric") == metric)
            ).sort("index")
            x = sub["index"].to_numpy() + (j - (len(players) - 1) / 2) * width
            ax.bar(
                x,
                sub["value"],
                width,
                color=PLAYER_COLORS.get(p, "grey"),
                yerr=yerr(sub["value"], sub["low"], sub["high"]),
                capsize=2,
                label=f"{p}p, n={fmt_count(sub['n'][0])} games",
            )
            if metric == "win share":
                ax.hlines(
                    1 / p,
                    x.min() - width / 2,
                    x.max() + width / 2,
                    colors=PLAYER_COLORS.get(p, "grey"),
                    linestyles="--",
                    linewidth=1,
                )
        ax.set_xticks(range(max(players)))
        ax.set_title(title, fontsize=10)
        ax.axhline(0, color="black", linewidth=0.6)
        if metric == "win share":
            percent_axis(ax)
    axes[0].set_xlabel("seat")
    axes[1].set_xlabel("seats to the first dealer's left")
    axes[2].set_xlabel("seats to the first dealer's left")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(players), frameon=False)
    return png(fig)


def findings_games(summary: pl.DataFrame) -> tuple[str, ...]:
    players = sorted(set(summary["players"]))
    out = []
    for p in players:
        diff = find_estimate(summary, players=p, group="first dealer - others", metric="score")
        share = find_estimate(summary, players=p, group="first dealer - others", metric="win share")
        rel = summary.filter((pl.col("players") == p) & (pl.col("group") == "position - others"))
        apart = [f"{_first_dealer_label(r['index'], p)} {num(row_estimate(r), signed=True)}"
                 for r in rel.iter_rows(named=True) if not r["low"] <= 0 <= r["high"]]
        out.append(
            f"{p} players: the first dealer scores {num(diff, signed=True)} points per game "
            f"relative to the mean of the other seats (paired, n={fmt_count(diff.n)} games) "
            "and wins "
            f"{pct(share)} of games against an equal share of {100 / p:.1f}%; "
            + ("against the mean of the other seats (paired), every position's interval "
               "covers 0." if not apart else
               "against the mean of the other seats (paired), the interval excludes 0 for "
               + "; ".join(apart) + f" ({len(apart)} of {p} positions).")
        )
    seat = summary.filter((pl.col("group") == "seat") & (pl.col("metric") == "score"))
    inside, total = 0, 0
    for r in seat.iter_rows(named=True):
        overall = find_estimate(summary, players=r["players"], group="all seats", metric="score")
        inside += r["low"] <= overall.value <= r["high"]
        total += 1
    means = summary.filter(pl.col("group") == "all seats").sort("players")
    means = ", ".join(f"{p} players {v:+.2f}" for p, v in zip(means["players"], means["value"],
                                                                strict=True))
    out.append(
        f"Every position's mean is offset from 0 by its table's all-seat mean ({means}) "
        "because BM-10 is not zero-sum: a deal's score changes sum to +1 (made) or -1 (failed, "
        "capo) with 4 players, and to 0 (made, failed) or -2 / -3 (capo) with 3 / 5 players; "
        "so positions are compared with the other seats' mean, not with 0."
    )
    out.append(
        "Seats differ only by whom the first-dealer draw (BM-2) picks, so seat effects should "
        f"be about zero: {inside} of {total} per-seat intervals contain their table's all-seat "
        "mean. What can matter is the position relative to the first dealer, which fixes who "
        "deals, and so who speaks first, in each deal of the game."
    )
    return tuple(out)


def section_games(games_by_n: dict[int, pl.DataFrame]) -> Section:
    summary = summarize_games(games_by_n)
    n_text = ", ".join(
        f"{p}p n={fmt_count(g['game_id'].n_unique())}" for p, g in sorted(games_by_n.items())
    )
    return Section(
        key="d",
        title="d. Seat and first-dealer advantage over whole games",
        method=(
            "Whole games of 10 played deals (BM-12; all-pass deals are redealt and do not "
            "count), first dealer drawn (BM-2), cards gathered and cut but never shuffled "
            "after the first deal (BM-3). Means with t intervals over games; the first "
            "dealer's difference is paired within games."
        ),
        tables=tables_games(summary),
        plot=Plot(
            "d_games.png",
            figure_games(summary),
            f"Game score and win share by seat and by position from the first dealer "
            f"({n_text} games); error bars are 95% t intervals.",
        ),
        findings=findings_games(summary),
        summary=summary,
    )


# ---------------------------------------------------------------- e. the Bianco Mano bonus


def summarize_bonus(off: pl.DataFrame, on: dict[float, pl.DataFrame]) -> pl.DataFrame:
    """Bonus off vs on (same deals, same policy), then the take-threshold discount sweep.

    ``off``: bonus off, ``bonus_discount=0``; ``on[d]``: bonus on,
    ``bonus_discount=d`` (``on[0.0]`` required). Rows have ``part``
    (``bonus`` or ``discount``), ``d``, ``metric``; counts are stored as
    ``value`` with NaN bounds and ``n`` = their denominator.
    """
    return pl.DataFrame([*_bonus_rows(off, on[0.0]), *_discount_rows(on)])


def _count(k: int, n: int, **keys) -> dict:
    """A count row: the count as ``value``, no interval, ``n`` its denominator."""
    nan = float("nan")
    return {**keys, "value": float(k), "low": nan, "high": nan, "n": int(n)}


def _bonus_rows(off: pl.DataFrame, base: pl.DataFrame) -> list[dict]:
    """Bonus off against on, both with ``bonus_discount=0``, on the same deals."""
    paired = base.with_columns(taken_without_bonus=_mask(off, M.TAKEN),
                               made_without_bonus=_mask(off, M.MADE))
    both = _mask(paired, M.TAKEN_BOTH)
    made_off, made_on = _mask(off, M.MADE), _mask(base, M.MADE)
    n_both = int(both.sum())
    keys = {"part": "bonus", "d": 0.0}
    arms = {"bonus off": off.filter(both), "bonus on": base.filter(both)}
    return [
        _count(int(_mask(paired, M.RESCUED).sum()), n_both, **keys,
               metric="failed without bonus, made with it"),
        _count(int(_mask(paired, M.LOST).sum()), n_both, **keys,
               metric="made without bonus, failed with it"),
        _count(int((_mask(off, M.TAKEN) != _mask(base, M.TAKEN)).sum()), off.height, **keys,
               metric="deals whose taking changed"),
        *metric_rows({"rescued, share of taken deals": M.RESCUED_RATE}, paired, **keys),
        *[r for arm, deals in arms.items()
          for r in metric_rows({f"success, {arm}": DEAL["contract_success"]}, deals, **keys)],
        estimate_row(stats.paired_difference(made_on[both], made_off[both]), **keys,
                     metric="success difference (on - off)"),
        *[r for arm, deals in arms.items()
          for r in metric_rows({f"capo, {arm}": DEAL["capo_rate"]}, deals, **keys)],
        *metric_rows({"bonus announced, share of taken deals": DEAL["bonus_rate"],
                      "rescued, share of announced contracts": M.RESCUED_OF_ANNOUNCED},
                     paired, **keys),
    ]


def _discount_rows(on: dict[float, pl.DataFrame]) -> list[dict]:
    """Bonus on, each take-threshold discount ``d`` against ``d = 0`` on the same deals."""
    base = on[0.0]
    taken_on = _mask(base, M.TAKEN)
    made0 = _mask(base, M.TAKEN & M.MADE)
    rows = []
    for d, deals in sorted(on.items()):
        taken, made = _mask(deals, M.TAKEN), _mask(deals, M.TAKEN & M.MADE)
        extra = taken & ~taken_on
        keys = {"part": "discount", "d": float(d)}
        rate_rows = metric_rows({"take rate": DEAL["take_rate"],
                                 "contract success": DEAL["contract_success"]}, deals, **keys)
        rows += [
            rate_rows[0],
            estimate_row(stats.paired_difference(taken, taken_on), **keys,
                         metric="take rate vs d=0"),
            rate_rows[1],
            estimate_row(stats.paired_ratio_difference(made, taken, made0, taken_on),
                         **keys, metric="contract success vs d=0"),
            _count(int(extra.sum()), deals.height, **keys, metric="extra takes"),
            # extra takes are the taken deals among those passed at d=0
            *metric_rows({"success of extra takes": DEAL["contract_success"]},
                         deals.filter(~taken_on), **keys),
            _count(int(((deals["taker"] != base["taker"]).to_numpy()).sum()), deals.height,
                   **keys, metric="deals with another taker"),
        ]
    return rows


def tables_bonus(summary: pl.DataFrame) -> tuple[Table, ...]:
    def e(metric: str, d: float = 0.0, part: str = "bonus") -> Estimate:
        return find_estimate(summary, part=part, d=d, metric=metric)

    rescued = e("failed without bonus, made with it")
    lost = e("made without bonus, failed with it")
    n = rescued.n
    rows = [
        {
            "metric": "contract success",
            "bonus off": pct(e("success, bonus off")),
            "bonus on": pct(e("success, bonus on")),
            "difference (on - off, paired)": pp(e("success difference (on - off)")),
        },
        {
            "metric": "capo",
            "bonus off": pct(e("capo, bonus off")),
            "bonus on": pct(e("capo, bonus on")),
            "difference (on - off, paired)": "",
        },
        {
            "metric": "bonus announced (of taken)",
            "bonus off": "",
            "bonus on": pct(e("bonus announced, share of taken deals")),
            "difference (on - off, paired)": "",
        },
        {
            "metric": "failed without bonus, made with it (count)",
            "bonus off": "",
            "bonus on": "",
            "difference (on - off, paired)": f"{fmt_count(rescued.value)} = "
            f"{pct(e('rescued, share of taken deals'))} of taken",
        },
        {
            "metric": "made without bonus, failed with it (count)",
            "bonus off": "",
            "bonus on": "",
            "difference (on - off, paired)": fmt_count(lost.value),
        },
        {
            "metric": "announced contracts rescued by the bonus",
            "bonus off": "",
            "bonus on": pct(e("rescued, share of announced contracts")),
            "difference (on - off, paired)": "",
        },
    ]
    sweep, swept = [], {}
    for d in sorted(set(summary.filter(pl.col("part") == "discount")["d"])):

        def f(metric: str, d=d) -> Estimate:
            return e(metric, d, "discount")

        swept[f"d={d:g}"] = f("take rate").n
        sweep.append(
            {
                "bonus_discount d": f"{d:g}",
                "take rate": pct(f("take rate")),
                "take rate vs d=0 (paired)": "" if d == 0 else pp(f("take rate vs d=0")),
                "contract success": pct(f("contract success")),
                "success vs d=0 (paired)": "" if d == 0 else pp(f("contract success vs d=0")),
                "extra takes (n)": "" if d == 0 else fmt_count(f("extra takes").value),
                "success of extra takes": "" if d == 0 else pct(f("success of extra takes")),
                "deals (n)": fmt_count(f("take rate").n),
            }
        )
    return (
        Table(
            f"Bonus off versus on, same deals and same policy (bonus_discount=0): the "
            f"bidding is identical, only the +5 changes ({sample_text(n, 'deals')} taken in "
            f"both; the announced share is of taken deals).",
            pl.DataFrame(rows), n=n,
        ),
        Table(
            f"Bonus on, take threshold lowered by d when holding both bonus cards, paired "
            f"against d=0 on the same deals ({sample_text(swept, 'deals', 'per d')}; extra "
            "takes: deals passed at d=0 and taken at d).",
            pl.DataFrame(sweep), n=swept,
        ),
    )


def figure_bonus(summary: pl.DataFrame, announced_points: np.ndarray) -> bytes:
    fig, axes = new_figure(11, 3.8, 3)
    ax = axes[0]
    pts = np.asarray(announced_points, dtype=int)
    cnt = np.bincount(pts, minlength=POINT_RANGE.size)[:POINT_RANGE.size]
    colors = np.where(
        POINT_RANGE >= CONTRACT_POINTS,
        "#55A868",
        np.where(POINT_RANGE >= CONTRACT_POINTS - BONUS_POINTS, "#DD8452", "#C44E52"),
    )
    ax.bar(POINT_RANGE, cnt / max(cnt.sum(), 1), 0.9, color=colors)
    ax.axvline(CONTRACT_POINTS - 0.5, color="black", linestyle="--", linewidth=1)
    ax.axvline(CONTRACT_POINTS - BONUS_POINTS - 0.5, color="#DD8452", linestyle=":", linewidth=1)
    percent_axis(ax)
    ax.set_xlabel(f"card points (orange: {NEAR_MISS}, rescued by +{BONUS_POINTS})")
    ax.set_title(f"announced contracts: card points\n(n={fmt_count(len(pts))})", fontsize=10)
    ax.set_xlim(-1, TOTAL_POINTS + 1)

    sweep = summary.filter(pl.col("part") == "discount").sort("d")
    off = find_estimate(summary, part="bonus", d=0.0, metric="success, bonus off")
    d = sweep["d"].unique().sort().to_numpy()
    n_deals = fmt_count(find_estimate(summary, part="discount", d=0.0, metric="take rate").n)
    for ax, metrics, title in (
        (axes[1], ("take rate",), f"take rate vs discount d\n(n={n_deals} deals per d)"),
        (
            axes[2],
            ("contract success", "success of extra takes"),
            "contract success vs discount d\n(of taken deals; extra: passed at d=0)",
        ),
    ):
        for metric, marker in zip(metrics, "os", strict=False):
            sub = sweep.filter(pl.col("metric") == metric).sort("d")
            if metric == "success of extra takes":
                sub = sub.filter(pl.col("d") > 0)
            ax.errorbar(
                sub["d"],
                sub["value"],
                yerr=yerr(sub["value"], sub["low"], sub["high"]),
                marker=marker,
                capsize=3,
                label=metric,
            )
        ax.set_xticks(d, [f"{x:g}" for x in d])
        ax.set_xlabel("bonus_discount d")
        percent_axis(ax)
        ax.set_title(title, fontsize=10)
    axes[2].axhline(off.value, color="grey", linestyle="--", linewidth=1, label="bonus off, d=0")
    axes[2].legend(frameon=False, fontsize=8)
    return png(fig)


def findings_bonus(summary: pl.DataFrame) -> tuple[str, ...]:
    def e(metric: str, d: float = 0.0, part: str = "bonus") -> Estimate:
        return find_estimate(summary, part=part, d=d, metric=metric)

    rescued = e("failed without bonus, made with it")
    diff = e("success difference (on - off)")
    out = [
        f"With the bidding unchanged, the bonus turned {fmt_count(rescued.value)} failures into "
        f"successes out of n={fmt_count(rescued.n)} taken deals "
        f"({pct(e('rescued, share of taken deals'))}); contract success rises by {pp(diff)} "
        f"(paired), and {fmt_count(e('made without bonus, failed with it').value)} contracts "
        "went the "
        f"other way. It is announced in {pct(e('bonus announced, share of taken deals'))} of "
        f"taken deals and rescues {pct(e('rescued, share of announced contracts'))} of them.",
    ]
    for d in sorted(set(summary.filter(pl.col("part") == "discount")["d"])):
        if d == 0:
            continue
        out.append(
            f"With bonus_discount d={d:g} the take rate changes by "
            f"{pp(e('take rate vs d=0', d, 'discount'))} and contract success by "
            f"{pp(e('contract success vs d=0', d, 'discount'))} (paired against d=0, "
            f"n={fmt_count(e('take rate', d, 'discount').n)} deals); the "
            f"{fmt_count(e('extra takes', d, 'discount').value)} extra contracts succeed "
            f"{pct(e('success of extra takes', d, 'discount'))}."
        )
    return tuple(out)


def section_bonus(off: pl.DataFrame, on: dict[float, pl.DataFrame]) -> Section:
    summary = summarize_bonus(off, on)
    base = on[0.0]
    announced = base.filter(M.TAKEN & pl.col("bonus_announced"))
    return Section(
        key="e",
        title="e. The Bianco Mano bonus (BM-11)",
        method=(
            "Paired deals (common random numbers): the same seed and deal ids with the "
            "bonus off and on, the same heuristic policy (which always announces when "
            "eligible), 4 players. Then, bonus on, the policy lowers its take threshold by "
            "bonus_discount d when it holds both bonus cards of the family it would name; "
            "each d is compared with d=0 on the same deals. Wilson intervals for rates, "
            "paired t intervals for differences (delta method for success rates, whose "
            "denominators change with d)."
        ),
        tables=tables_bonus(summary),
        plot=Plot(
            "e_bonus.png",
            figure_bonus(summary, announced["side_points"].to_numpy()),
            f"Left: card points of announced contracts (n={fmt_count(announced.height)}). "
            f"Middle and right: take rate and contract success against the take-threshold "
            f"discount d, bonus on (n={fmt_count(base.height)} deals per d); 95% intervals.",
        ),
        findings=findings_bonus(summary),
        summary=summary,
    )


# ---------------------------------------------------------------- f. never shuffling


SHUFFLE_ARMS = ("never shuffled (BM-3)", "shuffled every deal")
SHUFFLE_METRICS = {
    "all-pass rate": M.ALL_PASS_RATE,
    "take rate": DEAL["take_rate"],
    "contract success": DEAL["contract_success"],
    "capo rate": DEAL["capo_rate"],
    "mean taker_dominant_count": M.DOMINANT_COUNT,
}





def summarize_shuffling(never: pl.DataFrame, shuffled: pl.DataFrame) -> pl.DataFrame:
    """Rates of the two arms and their difference, never minus shuffled; deals cluster in
    games, so every interval is game-clustered (Welch for the difference)."""
    frames = dict(zip(SHUFFLE_ARMS, (never, shuffled), strict=True))
    rows = [r for arm, deals in frames.items()
            for r in metric_rows(SHUFFLE_METRICS, deals, cluster="game_id", arm=arm)]
    totals = {arm: summaries.cluster_totals(list(SHUFFLE_METRICS.values()), deals, "game_id")[0][1]
              for arm, deals in frames.items()}
    for i, metric in enumerate(SHUFFLE_METRICS):
        diff = stats.clustered_difference(*(totals[arm][i] for arm in SHUFFLE_ARMS))
        rows.append(estimate_row(diff, arm="difference", metric=metric))
    return pl.DataFrame(rows)


def dominant_count_distribution(never: pl.DataFrame, shuffled: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for arm, deals in zip(SHUFFLE_ARMS, (never, shuffled), strict=True):
        dom = deals.filter(M.TAKEN)["taker_dominant_count"].to_numpy().astype(int)
        cnt = np.bincount(dom, minlength=9)
        for c, k in enumerate(cnt):
            rows.append({"arm": arm, "dominant": c, "deals": int(k), "share": k / max(len(dom), 1)})
    return pl.DataFrame(rows)


def table_shuffling(
    summary: pl.DataFrame, n_games: dict[str, int], n_deals: dict[str, int]
) -> Table:
    rows = []
    for metric in SHUFFLE_METRICS:
        fmt = (lambda x: num(x, 3)) if metric.startswith("mean") else pct
        dfmt = (lambda x: num(x, 3, signed=True)) if metric.startswith("mean") else pp
        never = find_estimate(summary, metric=metric, arm=SHUFFLE_ARMS[0])
        shuf = find_estimate(summary, metric=metric, arm=SHUFFLE_ARMS[1])
        rows.append(
            {
                "metric": metric,
                SHUFFLE_ARMS[0]: fmt(never),
                SHUFFLE_ARMS[1]: fmt(shuf),
                "difference (never - shuffled)": dfmt(
                    find_estimate(summary, metric=metric, arm="difference")
                ),
                "n (never / shuffled)": f"{fmt_count(never.n)} / {fmt_count(shuf.n)}",
            }
        )
    rows.append(
        {
            "metric": "games (n)",
            SHUFFLE_ARMS[0]: fmt_count(n_games[SHUFFLE_ARMS[0]]),
            SHUFFLE_ARMS[1]: fmt_count(n_games[SHUFFLE_ARMS[1]]),
            "difference (never - shuffled)": "",
            "n (never / shuffled)": "",
        }
    )
    return Table(
        "Never shuffling versus shuffling before every deal, 4 players, whole games; "
        "independent samples (different seeds). Rates are of all deals (all-pass, "
        f"take) or of taken deals; {sample_text(n_deals, 'deals', 'per arm')}. Differences "
        "use game-clustered Welch intervals.",
        pl.DataFrame(rows), n=n_deals,
    )


def figure_shuffling(summary: pl.DataFrame, dist: pl.DataFrame) -> bytes:
    fig, (left, right) = new_figure(10, 3.8, 2)
    colors = ("#4C72B0", "#DD8452")
    rates = list(SHUFFLE_METRICS)[:4]
    x = np.arange(len(rates))
    for j, arm in enumerate(SHUFFLE_ARMS):
        est = [find_estimate(summary, metric=m, arm=arm) for m in rates]
        vals = [e.value for e in est]
        left.bar(
            x + (j - 0.5) * 0.38,
            vals,
            0.38,
            color=colors[j],
            yerr=yerr(vals, [e.low for e in est], [e.high for e in est]),
            capsize=3,
            label=f"{arm} (n={fmt_count(est[0].n)} deals)",
        )
        sub = dist.filter(pl.col("arm") == arm).sort("dominant")
        right.bar(
            sub["dominant"].to_numpy() + (j - 0.5) * 0.38,
            sub["share"],
            0.38,
            color=colors[j],
            label=f"{arm} (n={fmt_count(int(sub['deals'].sum()))} taken)",
        )
    left.set_xticks(x, rates)
    percent_axis(left)
    left.set_ylim(0, 1)
    left.legend(frameon=False, fontsize=8)
    left.set_title("rates, 4-player games (success, capo: of taken deals)", fontsize=10)
    percent_axis(right)
    right.set_xlabel("dominant cards held by the taker (taker_dominant_count)")
    right.set_title("taker's dominant cards, share of taken deals", fontsize=10)
    headroom(right, 1.25)
    right.legend(frameon=False, fontsize=8, loc="upper right")
    return png(fig)


def findings_shuffling(summary: pl.DataFrame) -> tuple[str, ...]:
    def e(metric: str, arm: str = "difference") -> Estimate:
        return find_estimate(summary, metric=metric, arm=arm)

    never, shuf = SHUFFLE_ARMS
    return (
        f"Never shuffling (cards gathered by team piles and cut) changes the all-pass rate "
        f"from {pct(e('all-pass rate', shuf))} to {pct(e('all-pass rate', never))} "
        f"({pp(e('all-pass rate'))}), contract success by {pp(e('contract success'))} and the "
        f"capo rate by {pp(e('capo rate'))} (n={fmt_count(e('take rate', never).n)} and "
        f"{fmt_count(e('take rate', shuf).n)} deals).",
        f"Takers hold {num(e('mean taker_dominant_count', never), 3)} dominant cards on "
        f"average without shuffling against {num(e('mean taker_dominant_count', shuf), 3)} "
        f"with it (difference {num(e('mean taker_dominant_count'), 3, signed=True)}). The two "
        "arms are independent samples; deals of one game are not independent, hence the "
        "game-clustered intervals.",
    )


def section_shuffling(never: pl.DataFrame, shuffled: pl.DataFrame) -> Section:
    summary = summarize_shuffling(never, shuffled)
    dist = dominant_count_distribution(never, shuffled)
    n_games = {
        SHUFFLE_ARMS[0]: never["game_id"].n_unique(),
        SHUFFLE_ARMS[1]: shuffled["game_id"].n_unique(),
    }
    n_deals = {SHUFFLE_ARMS[0]: never.height, SHUFFLE_ARMS[1]: shuffled.height}
    return Section(
        key="f",
        title="f. Never shuffling (BM-3) versus shuffling every deal",
        method=(
            "Whole 4-player games (all deals, all-pass redeals and each game's shuffled "
            "first deal included) under the ruling (shuffle once, then gather and cut) and "
            "under the option shuffle_every_deal=True, played with different seeds: "
            "independent samples. The deals of one game share their cards, so every interval "
            "is clustered by game (as tapisvert simulate prints them): Wilson with the "
            "effective sample size for rates, t for the mean, Welch for the differences."
        ),
        tables=(table_shuffling(summary, n_games, n_deals),),
        plot=Plot(
            "f_shuffling.png",
            figure_shuffling(summary, dist),
            f"Never shuffled (n={fmt_count(n_games[SHUFFLE_ARMS[0]])} games, "
            f"{fmt_count(never.height)} deals) versus shuffled every deal "
            f"(n={fmt_count(n_games[SHUFFLE_ARMS[1]])} games, {fmt_count(shuffled.height)} deals); "
            "error bars are 95% game-clustered Wilson intervals.",
        ),
        findings=findings_shuffling(summary),
        summary=summary,
    )


# ---------------------------------------------------------------- g. the default player's strength

STRENGTH_PATH = Path(bianco_solver.__file__).parent / "data" / "strength.json"
STRENGTH_COMMAND = (
    "python bench/pimc_strength.py --game bianco-mano --deals 2000 --rate-deals 400 "
    "--n-jobs 2 --runs-dir .pimc_strength_runs"
)
STRENGTH_TITLE = "g. The default player's strength: the heuristic against PIMC"
STRENGTH_ARMS = (("heuristic", "heuristic"), ("pimc", "PIMC"))
STRENGTH_RATES = ("take_rate", "contract_success", "capo_rate")  # DEAL metric names
STRENGTH_SCHEMA = {
    "part": pl.String,
    "piece": pl.String,
    "players": pl.Int64,
    "what": pl.String,
    "measure": pl.String,
    "value": pl.Float64,
    "low": pl.Float64,
    "high": pl.Float64,
    "n": pl.Int64,
    "p_value": pl.Float64,
}


def read_strength(path: Path = STRENGTH_PATH) -> dict:
    """The shipped PIMC-against-heuristic figures (bench/pimc_strength.py); ``{}`` when the
    file is absent, empty or unreadable."""
    return read_measured(path)


def summarize_strength(doc: dict) -> pl.DataFrame:
    """Tidy rows ``part, piece, players, what, measure, value, low, high, n, p_value``: the
    paired gain per player count (``part`` "gain") and each rate arm's take rate, contract
    success and capo rate (``part`` "rate", ``what`` the arm); pieces not measured have no
    rows."""
    pieces = measured_pieces(doc)
    rows = []
    for n in PLAYER_COUNTS:
        r = pieces.get(f"gain_{n}p", {}).get("comparison", {}).get("paired")
        if r is not None:
            rows.append({
                "part": "gain", "piece": f"gain_{n}p", "players": n, "what": "PIMC",
                "measure": "PIMC's gain per deal at seat 0", "value": json_number(r["mean"]),
                "low": json_number(r["low"]), "high": json_number(r["high"]), "n": int(r["n"]),
                "p_value": json_number(r.get("p_value")),
            })
        for policy, what in STRENGTH_ARMS:
            key = f"rates_{policy}_{n}p"
            found = {r["metric"]: r for r in pieces.get(key, {}).get("rows", [])}
            for metric in STRENGTH_RATES:
                if metric in found:
                    r = found[metric]
                    rows.append({
                        "part": "rate", "piece": key, "players": n, "what": what,
                        "measure": DEAL[metric].label, "value": json_number(r["value"]),
                        "low": json_number(r["low"]), "high": json_number(r["high"]),
                        "n": int(r["n"]), "p_value": None,
                    })
    return pl.DataFrame(rows, schema=STRENGTH_SCHEMA)


def _gain_sentence(e: Estimate, p_value: float, where: str) -> str:
    """PIMC's paired gain read as the heuristic's loss, with its interval and p-value."""
    said = (
        f"the heuristic loses {e.value:.3f} points per deal to PIMC {where}"
        if e.value >= 0
        else f"the heuristic does better than PIMC {where}, by {-e.value:.3f} points per deal"
    )
    covers = "; the interval covers 0" if e.low <= 0 <= e.high else ""
    p = "–" if p_value != p_value else f"{p_value:.3g}"
    return f"{said} (PIMC's gain {num(e, 3, signed=True)}, p={p}, n={fmt_count(e.n)} deals{covers})"


def figure_strength(summary: pl.DataFrame) -> bytes:
    gains = summary.filter(pl.col("part") == "gain")
    made = summary.filter(
        (pl.col("part") == "rate") & (pl.col("measure") == DEAL["contract_success"].label)
    )
    if gains.is_empty() and made.is_empty():
        fig, (ax,) = new_figure(6, 3.2)
        ax.axis("off")
        ax.text(0.5, 0.5, "not measured yet", ha="center", va="center", fontsize=12)
        return png(fig)
    fig, axes = new_figure(8, 3.2, ncols=2)
    axes[0].errorbar(
        [str(n) for n in gains["players"]], gains["value"],
        yerr=yerr(gains["value"], gains["low"], gains["high"]), fmt="o", capsize=4,
        color="#4C72B0",
    )
    axes[0].axhline(0, color="k", lw=0.8)
    axes[0].set_xlabel("players")
    axes[0].set_title("PIMC's gain per deal at seat 0")
    width = 0.38
    for i, (_, what) in enumerate(STRENGTH_ARMS):
        part = made.filter(pl.col("what") == what)
        x = np.array([PLAYER_COUNTS.index(n) for n in part["players"]]) + (i - 0.5) * width
        axes[1].bar(
            x, part["value"], width, label=f"{what} at every seat",
            color=("#DD8452", "#4C72B0")[i],
            yerr=yerr(part["value"], part["low"], part["high"]), capsize=2,
        )
    axes[1].set_xticks(range(len(PLAYER_COUNTS)), [str(n) for n in PLAYER_COUNTS])
    axes[1].set_xlabel("players")
    axes[1].set_title("contract success")
    axes[1].set_ylim(0, 1.18)
    percent_axis(axes[1])
    axes[1].legend(fontsize=8, ncols=2, loc="upper center")
    return png(fig)


def tables_strength(summary: pl.DataFrame, pieces: dict[str, dict]) -> tuple[Table, ...]:
    gains = summary.filter(pl.col("part") == "gain")
    rates = summary.filter(pl.col("part") == "rate")
    tables = []
    if not gains.is_empty():
        frame = pl.DataFrame({
            "players": [str(n) for n in gains["players"]],
            "PIMC's gain per deal": [
                num(row_estimate(r), 3, signed=True) for r in gains.iter_rows(named=True)
            ],
            "p": ["–" if p != p else f"{p:.3g}" for p in gains["p_value"]],
            "n": [fmt_count(n) for n in gains["n"]],
            "worlds": [
                str(pieces[k].get("settings", {}).get("worlds", "–")) for k in gains["piece"]
            ],
        })
        sizes = group_sizes(gains, "players", "{} players")
        tables.append(Table(
            f"PIMC's card play at seat 0 against the heuristic, paired on the same deals "
            f"({sample_text(sizes, 'deals', 'per player count')}): seat 0's BM-10 score "
            "change per deal, 95% t intervals; bidding, espion, call and announcement are the "
            "heuristic's, as are the other seats.",
            frame, n=sizes,
        ))
    if not rates.is_empty():
        keys = list(dict.fromkeys(zip(rates["players"], rates["measure"], strict=True)))
        frame = {"players": [str(n) for n, _ in keys], "measure": [m for _, m in keys]}
        for _, what in STRENGTH_ARMS:
            arm = {
                (r["players"], r["measure"]): r
                for r in rates.filter(pl.col("what") == what).iter_rows(named=True)
            }
            frame[f"{what}, every seat"] = [
                pct(row_estimate(arm[k])) if k in arm else "–" for k in keys
            ]
            frame[f"n ({what})"] = [fmt_count(arm[k]["n"]) if k in arm else "–" for k in keys]
        sizes = group_sizes(rates, "players", "{} players")  # the take rate's n: the deals
        tables.append(Table(
            f"Every seat PIMC beside every seat heuristic on the same deals "
            f"({sample_text(sizes, 'deals', 'per arm')}; contract success and capo among "
            "taken deals). The take rate is the same by construction: the bidding is the "
            "heuristic's in both arms.",
            pl.DataFrame(frame), n=sizes,
        ))
    tables.append(measured_commands({k: p for k, p in pieces.items()
                                     if p.get("kind") in ("gain", "rates")}))
    return tuple(tables)


def findings_strength(
    summary: pl.DataFrame, pieces: dict[str, dict], report_deals: int | None
) -> tuple[str, ...]:
    gains = summary.filter(pl.col("part") == "gain")
    rates = summary.filter(pl.col("part") == "rate")
    findings = []
    said = [
        _gain_sentence(row_estimate(r), r["p_value"], f"with {r['players']} players")
        for r in gains.iter_rows(named=True)
        if finite(r["value"])
    ]
    if said:
        findings.append("Card play at one seat: " + "; ".join(said) + ".")
    for n in PLAYER_COUNTS:
        part = rates.filter(pl.col("players") == n)
        arms = {
            (r["what"], r["measure"]): row_estimate(r) for r in part.iter_rows(named=True)
        }
        take = [arms.get((w, DEAL["take_rate"].label)) for _, w in STRENGTH_ARMS]
        made = [arms.get((w, DEAL["contract_success"].label)) for _, w in STRENGTH_ARMS]
        if None in made:
            continue
        same = (
            "the same in both arms, by construction (the bidding is the heuristic's)"
            if None not in take and take[0].value == take[1].value
            else f"{pct(take[1]) if take[1] else '–'} against {pct(take[0]) if take[0] else '–'}"
        )
        findings.append(
            f"{n} players, every seat PIMC: contract success {pct(made[1])} against "
            f"{pct(made[0])} with every seat heuristic (n={fmt_count(made[1].n)} taken deals); "
            f"the take rate is {same}."
        )
    sizes = {
        "comparison": sorted({pieces[k]["settings"]["deals"] for k in gains["piece"]}),
        "rate arm": sorted({pieces[k]["settings"]["deals"] for k in rates["piece"]}),
    }
    worlds = sorted({
        p["settings"]["worlds"] for p in pieces.values() if "worlds" in p.get("settings", {})
    })
    rest = (
        f"the {fmt_count(report_deals)} deals per player count of sections a-c"
        if report_deals
        else "the rest of this report"
    )
    findings.append(
        "PIMC is slow, so these figures rest on far fewer deals than " + rest + ": "
        + "; ".join(f"{', '.join(fmt_count(s) for s in v)} per {k}" for k, v in sizes.items() if v)
        + f" (worlds per card: {', '.join(map(str, worlds)) or '–'}); their intervals are "
        "wider accordingly."
    )
    return tuple(findings)


def section_strength(doc: dict, report_deals: int | None = None) -> Section:
    """The heuristic (every other section's player) against PIMC's card play, from the shipped
    figures (``doc`` as :func:`read_strength` returns it; empty: how to make them)."""
    summary = summarize_strength(doc)
    pieces = measured_pieces(doc)
    method = (
        "PIMC (Perfect-Information Monte Carlo, simulators/bianco_mano/solver/pimc.py) plays "
        "the cards only: before each card it deals the cards the player cannot see at random, "
        "consistently with what he has seen — his hand (and his espion when he took), every "
        "card played and by whom, each void and each 'could not beat the dominant card' that "
        "BM-8's duties revealed, the turned card, the espion, the called card — solves each "
        "of these worlds double-dummy (every hand visible) and plays the card with the best "
        "mean BM-10 score change. Bidding, espion, call and announcement are the heuristic's "
        "(PIMC extends it), and its worlds ignore what they reveal (who took, in which round, "
        "the family named); solving each world with every hand visible credits the player "
        "with knowledge he will not have. Gains: 'tapisvert compare bianco-mano --a pimc --b "
        "heuristic --seats 0', PIMC at seat 0 and the heuristic at the other seats, both arms "
        "on the same deals; the figure is the paired difference of seat 0's BM-10 score "
        "change per deal (all-pass deals count 0), with its t interval and p-value; a "
        "negative figure means the heuristic plays the cards better. Rates: PIMC at every "
        "seat beside the heuristic at every seat on the same deals (the deal metrics of "
        "tapisvert simulate bianco-mano; Wilson intervals). Measured by "
        "bench/pimc_strength.py and shipped in "
        "simulators/bianco_mano/solver/data/strength.json."
    )
    if summary.is_empty():
        return Section(
            key="g",
            title=STRENGTH_TITLE,
            method=method,
            tables=(
                Table(
                    "Not measured yet (n=0 deals): the figures are made by this command and "
                    "shipped with the package.",
                    pl.DataFrame({"status": ["not measured yet"], "command": [STRENGTH_COMMAND]}),
                    n=0,
                ),
            ),
            plot=Plot("g_strength.png", figure_strength(summary), "Not measured yet."),
            findings=(
                "The heuristic's strength against PIMC has not been measured yet (n=0 deals): "
                f"run '{STRENGTH_COMMAND}'.",
            ),
            summary=summary,
        )
    return Section(
        key="g",
        title=STRENGTH_TITLE,
        method=method,
        tables=tables_strength(summary, pieces),
        plot=Plot(
            "g_strength.png",
            figure_strength(summary),
            "Left: PIMC's gain per deal at seat 0 by player count, bars: 95% paired t "
            "intervals. Right: contract success with every seat PIMC or heuristic, bars: 95% "
            "Wilson intervals.",
        ),
        findings=findings_strength(summary, pieces, report_deals),
        summary=summary,
    )


# ---------------------------------------------------------------- h. the learned player

NET_COMMAND = ("python bench/net_strength.py --game bianco-mano --n-jobs 2 "
               "--runs-dir .net_strength_runs")
NET_TITLE = "h. The learned player: the headline figures under net, beside the heuristic"
NET_COLUMNS = ("deal_id", *DEAL_COLUMNS)
NET_METHOD = (
    "The deals of sections a-c (each player count) and the bonus arm of section e (4 "
    "players, bonus on, the same bonus_discount) played again, card for card the same "
    "deals, with the learned player 'net' at every seat: one small net for 3, 4 and 5 "
    "players trained on PIMC's card values plays the cards, and a second, taught by "
    "rollouts of the card net over worlds consistent with the bidding (docs/learning.md), "
    "makes the bids (take or pass in each round, the family named in round 2); espion, "
    "call and announcement are still the heuristic's. So the take rates move with the bid "
    "net, and contract success with both nets. Each figure is paired "
    "deal by deal: the difference is net's minus the heuristic's on the same deals, with a "
    "t interval on the per-deal differences (ratio estimators linearised where a figure "
    "counts only taken deals). The seat rows give contract success by the taker's seat "
    "counted from the dealer's left (BM-7). The certificates (bench/net_strength.py, "
    "shipped in simulators/bianco_mano/solver/data/strength.json) put net at seats 0 and 2 "
    "of 4 players, at seat 0 of 3 and 5, against an opponent at the others, then rotate the "
    "seats on the same cards: net's gain per deal is its seats' BM-10 score changes summed, "
    "on deals of a seed the training never saw.")


def _net_metrics(n_players: int) -> dict[str, Metric]:
    metrics = {m.label: m for m in (*M.DEAL_METRICS, M.SIDE_POINTS)}
    if n_players == 4:
        for p in range(n_players):
            metrics[f"contract success, taker at seat {_position_label(p, n_players)}"] = rate(
                "contract_success", "contract success", M.MADE,
                where=M.TAKEN & (M.TAKER_POSITION == p))
    return metrics


def summarize_net(pairs: dict[str, tuple[pl.DataFrame, pl.DataFrame]]) -> pl.DataFrame:
    """The headline deal metrics under net and under the base policy, paired on the deals of
    each arm (``{"4 players": (base, net), ...}``; an arm's player count is its frames')."""
    rows = []
    for arm, (base, net) in pairs.items():
        n_players = int(base["n_players"][0]) if base.height else 4
        rows += paired_policy_rows(_net_metrics(n_players), net, base, key="deal_id",
                                   deals=arm)
    return pl.DataFrame(rows)


def section_net(pairs: dict[str, tuple[pl.DataFrame, pl.DataFrame]] | None, doc: dict,
                names: tuple[str, str] = ("net", "heuristic")) -> Section:
    """Section h: the headline figures under the learned player beside the base policy's, by
    player count and with the bonus, and its shipped certificates."""
    pieces = measured_pieces(doc)
    cert_tables, cert_findings = learned_player_parts(
        pieces, "deals", NET_COMMAND, lambda n: "" if n is None else f", {n} players")
    if not pairs:
        return Section(key="net", title=NET_TITLE, method=NET_METHOD, tables=tuple(cert_tables),
                       plot=Plot("h_net.png", figure_strength(pl.DataFrame()),
                                 "No paired run: the report's policy is net itself."),
                       findings=tuple(cert_findings), summary=pl.DataFrame())
    summary = summarize_net(pairs)
    table = paired_policy_table(summary, ["deals", "measure"], names)
    sizes = {arm: net.height for arm, (_, net) in pairs.items()}
    success = DEAL["contract_success"].label
    findings = []
    for arm in pairs:
        e = {a: find_estimate(summary, deals=arm, measure=success, arm=a)
             for a in ("learned", "base", "difference")}
        findings.append(f"{arm}: with {names[0]} playing the cards at every seat, contract "
                        f"success is {pct(e['learned'])} against {pct(e['base'])} under the "
                        f"{names[1]} ({pp(e['difference'])}, paired on the same "
                        f"{sizes[arm]:,} deals).")
    return Section(
        key="net", title=NET_TITLE, method=NET_METHOD,
        tables=(Table(f"Headline figures: {names[0]} at every seat beside the {names[1]} at "
                      f"every seat on the same deals ({sample_text(sizes, 'deals', 'per arm')}"
                      "); 95% intervals (paired for the difference).", table, n=sizes),
                *cert_tables),
        plot=Plot("h_net.png", paired_policy_figure(
            summary, lambda r: f"{r['deals']}: {r['measure']}", names),
            f"{names[0]} minus {names[1]} on the same deals; bars: 95% paired t intervals."),
        findings=(*findings, *cert_findings), summary=summary)


def _net_section(runs: Runs, ctx: ReportContext) -> Section:
    from analysis.experiment import policy_name

    if "net_bonus" not in runs:
        return section_net(None, read_strength())

    def frame(name: str) -> pl.DataFrame:
        return runs[name].scan("deals").select(NET_COLUMNS).collect()

    pairs = {f"{n} players": (frame(f"deals_{n}p"), frame(f"net_deals_{n}p"))
             for n in PLAYER_COUNTS}
    pairs["4 players, bonus on"] = (frame("bonus_d0"), frame("net_bonus"))
    return section_net(pairs, read_strength(), ("net", policy_name(ctx.base.game, ctx.policy)))


# ---------------------------------------------------------------- the report


def settings(ctx: ReportContext, runs: dict[str, Experiment]) -> list[tuple[str, str]]:
    """The run-settings rows."""
    sizes = _sizes(ctx)
    return [
        ("policy (every seat)", policy_text(ctx.base.game, ctx.policy)),
        ("seed", f"{ctx.seed} (section f's shuffled arm: {ctx.seed + SHUFFLED_SEED_OFFSET})"),
        ("scale", f"{ctx.scale:g}"),
        ("deals per player count (a-c)", fmt_count(sizes["deals"])),
        ("deals per bonus arm (e, 4 players)", fmt_count(sizes["deals"])),
        ("4-player games (d, each arm of f)", fmt_count(sizes["games"])),
        ("3- and 5-player games (d)", fmt_count(sizes["games_other"])),
        *([("section h's paired arms (each player count, bonus on)",
            policy_text(ctx.base.game, runs["net_bonus"].policies[0]))]
          if "net_bonus" in runs else []),
    ]


REPORT = Report(
    title="Bianco Mano: strategy report",
    intro=(
        "Monte Carlo estimates from the tapisvert Bianco Mano engine, played under the rulings "
        "BM-1..BM-12 with the heuristic policy below at every seat (default parameters unless "
        "a section says otherwise) and the default rule options (no bonus; cards shuffled only "
        "before a game's first deal, then gathered by team piles and cut).",
        "Every number comes with a 95% interval: Wilson for rates, Student t for means and "
        "paired differences; n= gives the sample size behind each number. The numbers describe "
        "this policy playing against itself, not expert play. Sections a, b, the 4-player "
        "column of c and the bonus-off arm of e share one sample of 4-player deals; the "
        "4-player games of d are the never-shuffled arm of f; paired comparisons replay the "
        "same deals (same seed and deal ids) under both settings.",
    ),
    plan=plan,
    sections=(
        lambda runs, ctx: section_take_by_position(_deals(runs, "deals_4p"), 4),
        lambda runs, ctx: section_contracts(_deals(runs, "deals_4p")),
        lambda runs, ctx: section_player_counts(
            {n: _deals(runs, f"deals_{n}p") for n in PLAYER_COUNTS}
        ),
        lambda runs, ctx: section_games(
            {n: runs[f"games_{n}p"].table("games") for n in PLAYER_COUNTS}
        ),
        lambda runs, ctx: section_bonus(
            _deals(runs, "deals_4p"),
            {d: _deals(runs, f"bonus_d{d:g}") for d in (0.0, *BONUS_DISCOUNTS)},
        ),
        lambda runs, ctx: section_shuffling(
            _game_deals(runs, "games_4p"), _game_deals(runs, "games_4p_shuffled")
        ),
        lambda runs, ctx: section_strength(read_strength(), _sizes(ctx)["deals"]),
        _net_section,
    ),
    settings=settings,
)
