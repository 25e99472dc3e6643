"""Bango balance report: declared for :mod:`analysis.reporting`.

Score distributions and win shares by player count (does each ``removed``
value balance the game?), seat and first-player advantage, the explosion
rate by cards revealed, the stop-threshold sweep with the best threshold per
player count, the value of a bango and of the black cards, game length, and
how much one-turn optimal stopping gains over the threshold rule, and how
much rollouts gain over both (shipped figures, ``bench/rollout_strength.py``).
Every simulation is one named experiment of :func:`plan`, played by the
runner; each section reads its runs' tables. Comparisons between policies
are paired: the same seed gives the same deck orders to both.
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
    compared_rows,
    estimate_row,
    group_sizes,
    learned_player_parts,
    learned_policy,
    measured_commands,
    measured_pieces,
    metric_rows,
    new_figure,
    not_measured,
    num,
    paired_policy_figure,
    paired_policy_rows,
    paired_policy_table,
    pct,
    percent_axis,
    png,
    policy_text,
    read_measured,
    row_estimate,
    sample_text,
)
from simulators.bango import metrics as BM
from simulators.bango import rules as R
from simulators.bango.learn import NetPolicy
from simulators.core.game import mean

BASE_GAMES = 4_000  # per player count (a, b, c, f)
BASE_SWEEP = 1_500  # per threshold and player count (d)
BASE_VALUE = 2_500  # per variant (e)
BASE_NET = 25_000  # per player count and policy (h: 100,000 games under each policy)
PLAYER_COUNTS = R.PLAYER_COUNTS
THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.7)
REVEALS_SHOWN = range(2, 10)
GAME = {m.name: m for m in BM.GAME_METRICS}  # the headline metrics `simulate` prints
STRENGTH_PATH = Path(BM.__file__).parent / "data" / "strength.json"
STRENGTH_COMMAND = "python bench/rollout_strength.py --game bango --n-jobs 2"


def _sizes(ctx: ReportContext) -> dict[str, int]:
    return {"games": ctx.size(BASE_GAMES), "sweep": ctx.size(BASE_SWEEP),
            "value": ctx.size(BASE_VALUE), "net": ctx.size(BASE_NET)}


def _variant(policy, **params):
    return type(policy)(**{**policy.get_params(), **params})


def plan(ctx: ReportContext) -> dict[str, Experiment]:
    """Every simulation of the report, by name."""
    sizes = _sizes(ctx)
    base = ctx.policy
    runs = {f"games_{n}p": ctx.experiment("games", sizes["games"], n_players=n)
            for n in PLAYER_COUNTS}
    learned = learned_policy(ctx)
    if learned is not None:  # h: the same games under each policy
        for n in PLAYER_COUNTS:
            runs[f"net_games_{n}p"] = ctx.experiment("games", sizes["net"], n_players=n,
                                                     policies=learned)
            runs[f"net_base_{n}p"] = ctx.experiment("games", sizes["net"], n_players=n)
    if _is_learned(ctx):  # the nets ignore the heuristic's parameters d, e and g vary
        return runs
    if "stop_threshold" in base.get_params():
        for n in PLAYER_COUNTS:
            for t in THRESHOLDS:
                policies = (_variant(base, stop_threshold=t),) + (base,) * (n - 1)
                runs[f"sweep_{n}p_{t}"] = ctx.experiment("games", sizes["sweep"], n_players=n,
                                                         policies=policies)
    if "cancel" in base.get_params():
        for name, params in (("no_cancel", {"cancel": False}), ("no_shed", {"shed": False}),
                             ("no_bango", {"cancel": False, "shed": False})):
            runs[f"value_{name}"] = ctx.experiment(
                "games", sizes["value"], n_players=4,
                policies=(_variant(base, **params),) + (base,) * 3)
        runs["value_base"] = ctx.experiment("games", sizes["value"], n_players=4)
    if "optimal" in ctx.base.game.policies and "stop_threshold" in base.get_params():
        optimal = ctx.base.game.make_policy("optimal", **base.get_params())
        for n in PLAYER_COUNTS:
            runs[f"optimal_{n}p"] = ctx.experiment("games", sizes["value"], n_players=n,
                                                   policies=(optimal,) + (base,) * (n - 1))
    return runs


# ---------------------------------------------------------------- a: player counts


def summarize_scores(games_by_n: dict[int, pl.DataFrame]) -> pl.DataFrame:
    """Mean score, winning score and the spread of scores per player count.

    The players of one game share its deck: the score per player has a
    game-clustered interval (one row per game for the other two).
    """
    rows = []
    for n, games in games_by_n.items():
        rows += metric_rows({"score per player": GAME["mean_score"]}, games, cluster="game_id",
                            players=n)
        rows += metric_rows({"winning score": BM.WINNING_SCORE,
                             "winner's margin": BM.WINNER_MARGIN}, games, players=n)
    return pl.DataFrame(rows)


def section_scores(games_by_n: dict[int, pl.DataFrame], removed: dict[int, int]) -> Section:
    summary = summarize_scores(games_by_n)
    table = summary.with_columns(
        estimate=pl.struct("value", "low", "high", "n").map_elements(
            lambda r: num(row_estimate(r), 2), return_dtype=pl.String),
    ).pivot(on="metric", index="players", values="estimate").with_columns(
        removed=pl.col("players").replace_strict(removed, return_dtype=pl.Int64))
    fig, (ax,) = new_figure(7, 3.2)
    bins = np.arange(-15, 45, 1)
    for n, games in games_by_n.items():
        ax.hist(games["score"].to_numpy(), bins=bins, histtype="step", density=True,
                label=f"{n} players (removed {removed[n]})")
    ax.set_xlabel("score (BG-8)")
    ax.set_ylabel("share of players")
    ax.legend(fontsize=8)
    sizes = {f"{n} players": games["game_id"].n_unique() for n, games in games_by_n.items()}
    n_games = sample_text(sizes, "games", "each")
    lo = summary.filter(pl.col("metric") == "score per player").sort("players")
    findings = tuple(
        f"{r['players']} players (removed {removed[r['players']]}): {num(row_estimate(r), 2)} "
        "points per player" for r in lo.iter_rows(named=True))
    findings = ("Mean score per player by table size: " + "; ".join(findings) +
                f" ({n_games}).",)
    return Section(
        key="scores", title="a. Scores by player count: does each removal balance the game?",
        method="Whole games, the policy at every seat; BG-2's removal for each count "
               "(25/15/10/0). Mean scores with Student-t intervals; the winner's margin is the "
               "best score minus the second best.",
        tables=(Table(f"Scores per player count ({n_games}).", table, n=sizes),),
        plot=Plot("a_scores.png", png(fig), f"Score distribution per player count, "
                  f"{n_games}."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- b: seats


def summarize_seats(games_by_n: dict[int, pl.DataFrame]) -> pl.DataFrame:
    """Win share and mean score by playing order (0 = first player), per player count."""
    rows = []
    for n, games in games_by_n.items():
        rows += metric_rows({"win share": BM.WIN_SHARE_MEAN, "score": GAME["mean_score"]},
                            games.with_columns(pl.col("order").cast(pl.Int64)), by="order",
                            players=n)
    return pl.DataFrame(rows)


def section_seats(games_by_n: dict[int, pl.DataFrame]) -> Section:
    summary = summarize_seats(games_by_n)
    shares = summary.filter(pl.col("metric") == "win share")
    table = shares.with_columns(
        estimate=pl.struct("value", "low", "high", "n").map_elements(
            lambda r: pct(row_estimate(r)), return_dtype=pl.String),
        seat=pl.col("order").map_elements(lambda o: "first" if o == 0 else f"first + {o}",
                                          return_dtype=pl.String),
    ).pivot(on="players", index="seat", values="estimate").fill_null("–")  # no such seat
    table = table.rename({c: f"{c} players" for c in table.columns if c != "seat"})
    fig, (ax,) = new_figure(7, 3.2)
    width = 0.8 / len(PLAYER_COUNTS)
    for i, n in enumerate(PLAYER_COUNTS):
        part = shares.filter(pl.col("players") == n).sort("order")
        x = part["order"].to_numpy() + (i - len(PLAYER_COUNTS) / 2 + 0.5) * width
        ax.bar(x, part["value"] * n, width, label=f"{n} players",
               yerr=[(part["value"] - part["low"]) * n, (part["high"] - part["value"]) * n],
               capsize=2)
    ax.axhline(1, color="k", ls="--", lw=0.8)
    ax.set_xlabel("playing order (0 = first player)")
    ax.set_ylabel("win share x players (1 = fair)")
    ax.legend(fontsize=8)
    findings = []
    for n in PLAYER_COUNTS:
        first = shares.filter((pl.col("players") == n) & (pl.col("order") == 0)).row(
            0, named=True)
        last = shares.filter((pl.col("players") == n) & (pl.col("order") == n - 1)).row(
            0, named=True)
        findings.append(f"{n} players: first player {pct(row_estimate(first))}, last "
                        f"{pct(row_estimate(last))} (fair {100 / n:.0f}%)")
    sizes = group_sizes(shares, "players", "{} players")
    n_games = sample_text(sizes, "games", "per count")
    return Section(
        key="seats", title="b. Seat and first-player advantage",
        method="The games of section a; the first player is drawn at random (BG-2) and play "
               "goes clockwise; a k-way tie counts 1/k; Student-t intervals.",
        tables=(Table(f"Win share by playing order ({n_games}).", table, n=sizes),),
        plot=Plot("b_seats.png", png(fig), f"Win share relative to fair by playing order, "
                  f"{n_games}; bars: 95% t intervals."),
        findings=("Win share by playing order — " + "; ".join(findings) + ".",),
        summary=summary)


# ---------------------------------------------------------------- c: explosions


def summarize_explosions(turns_by_n: dict[int, pl.DataFrame]) -> pl.DataFrame:
    """P(the k-th card revealed explodes | a k-th card is revealed), per player count.

    The turns of one game share its deck: intervals are clustered by game.
    """
    rows = []
    for n, turns in turns_by_n.items():
        by_k = metric_rows([({"reveal": k}, BM.explodes_at(k)) for k in REVEALS_SHOWN], turns,
                           cluster="game_id", players=n)
        rows += [r for r in by_k if r["n"] > 0]  # only reveals some turn reaches
        rows += metric_rows([({"reveal": 0}, BM.EXPLOSION_RATE)], turns, cluster="game_id",
                            players=n)
    return pl.DataFrame(rows)


def section_explosions(turns_by_n: dict[int, pl.DataFrame]) -> Section:
    summary = summarize_explosions(turns_by_n)
    by_k = summary.filter(pl.col("reveal") > 0)
    table = by_k.with_columns(
        estimate=pl.struct("value", "low", "high", "n").map_elements(
            lambda r: pct(row_estimate(r)), return_dtype=pl.String),
    ).pivot(on="players", index="reveal", values="estimate").sort("reveal").fill_null(
        "–")  # no turn of that player count reaches the k-th reveal
    table = table.rename({c: f"{c} players" for c in table.columns if c != "reveal"})
    fig, (ax,) = new_figure(7, 3.2)
    for n in PLAYER_COUNTS:
        part = by_k.filter(pl.col("players") == n).sort("reveal")
        ax.errorbar(part["reveal"], part["value"],
                    yerr=[part["value"] - part["low"], part["high"] - part["value"]],
                    marker="o", capsize=2, label=f"{n} players")
    ax.set_xlabel("card revealed (k-th of the turn)")
    ax.set_ylabel("explodes")
    percent_axis(ax)
    ax.legend(fontsize=8)
    overall = summary.filter(pl.col("reveal") == 0).sort("players")
    findings = ("Share of turns ending in an explosion: " + "; ".join(
        f"{r['players']} players {pct(row_estimate(r))}" for r in overall.iter_rows(named=True))
        + " (after bangos that cancel explosions).",)
    return Section(
        key="explosions", title="c. Explosion rate by cards revealed",
        method="Every turn of the games of section a: the share of k-th reveals that explode "
               "(a bango that cancels it does not count); Wilson intervals. The rate depends on "
               "when the policy stops: each turn goes on only while its explosion risk is low.",
        tables=(Table("Explosion rate of the k-th card revealed (n = turns reaching it).",
                      table),),
        plot=Plot("c_explosions.png", png(fig), "Explosion rate of the k-th card revealed; "
                  "bars: 95% Wilson intervals."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- d: threshold sweep


def summarize_sweep(runs: Runs) -> pl.DataFrame:
    """Seat 0's mean score with each stop threshold (the others default), per player count."""
    rows = []
    for n in PLAYER_COUNTS:
        for t in THRESHOLDS:
            games = runs[f"sweep_{n}p_{t}"].table("games").filter(pl.col("seat") == 0)
            rows += metric_rows({"score": GAME["mean_score"], "win share": BM.WIN_SHARE_MEAN},
                                games, players=n, threshold=t)
    return pl.DataFrame(rows)


def section_sweep(runs: Runs, default: float) -> Section:
    summary = summarize_sweep(runs)
    scores = summary.filter(pl.col("metric") == "score")
    table = scores.with_columns(
        estimate=pl.struct("value", "low", "high", "n").map_elements(
            lambda r: num(row_estimate(r), 2), return_dtype=pl.String),
    ).pivot(on="players", index="threshold", values="estimate").sort("threshold")
    table = table.rename({c: f"{c} players" for c in table.columns if c != "threshold"})
    fig, (ax,) = new_figure(7, 3.2)
    for n in PLAYER_COUNTS:
        part = scores.filter(pl.col("players") == n).sort("threshold")
        ax.errorbar(part["threshold"], part["value"],
                    yerr=[part["value"] - part["low"], part["high"] - part["value"]],
                    marker="o", capsize=2, label=f"{n} players")
    ax.axvline(default, color="k", ls=":", lw=0.8)
    ax.set_xlabel("stop threshold (stop when P(explosion) exceeds it)")
    ax.set_ylabel("seat 0 mean score")
    ax.legend(fontsize=8)
    best = []
    for n in PLAYER_COUNTS:
        part = scores.filter(pl.col("players") == n).sort("value", descending=True)
        top = part.row(0, named=True)
        best.append(f"{n} players: {top['threshold']:g} ({num(row_estimate(top), 2)} points)")
    sizes = group_sizes(scores, ["players", "threshold"], "{} players, threshold {:g}")
    n_games = sample_text(sizes, "games", "per cell")
    return Section(
        key="threshold", title="d. When to stop drawing: the stop-threshold sweep",
        method="Seat 0 plays the heuristic with each stop threshold, the other seats the "
               "default heuristic, on the same decks (same seed) for every threshold; mean "
               "seat-0 score with Student-t intervals.",
        tables=(Table(f"Seat 0 mean score per stop threshold ({n_games}).", table, n=sizes),),
        plot=Plot("d_threshold.png", png(fig), f"Seat 0 score against the stop threshold, "
                  f"{n_games}; dotted: the default threshold."),
        findings=("Best stop threshold per player count — " + "; ".join(best) + ".",),
        summary=summary)


# ---------------------------------------------------------------- e: bangos, black cards


def summarize_value(runs: Runs) -> pl.DataFrame:
    """Paired seat-0 score differences: default heuristic minus a variant without bangos."""
    base = runs["value_base"].table("games").filter(pl.col("seat") == 0).sort("game_id")
    rows = []
    labels = {"no_cancel": "cancelling explosions", "no_shed": "shedding dead cards",
              "no_bango": "every bango"}
    for name, label in labels.items():
        other = runs[f"value_{name}"].table("games").filter(pl.col("seat") == 0).sort("game_id")
        diff = stats.paired_difference(base["score"].to_numpy().astype(float),
                                       other["score"].to_numpy().astype(float))
        rows.append(estimate_row(diff, what=f"value of {label}"))
    games = runs["games_4p"].table("games")
    turns = runs["games_4p"].table("turns")
    rows.append(estimate_row(_per_extra(games, "bangos"),
                             what="score per bango played (regression)"))
    rows.append(estimate_row(_per_extra(games, "blacks_received"),
                             what="score per black card received (regression)"))
    rows += metric_rows({"black cards received per player and game": BM.BLACKS_RECEIVED,
                         "bangos per player and game": GAME["bangos"],
                         "personal discards per player (incl. black cards)":
                             GAME["personal_discards"]}, games, cluster="game_id",
                        column="what")
    rows += metric_rows({"turns ending in an explosion": BM.EXPLOSION_RATE}, turns,
                        cluster="game_id", column="what")
    return pl.DataFrame(rows)


def _per_extra(games: pl.DataFrame, column: str) -> stats.Estimate:
    """Least-squares slope of score on ``column`` with a normal interval (descriptive)."""
    x = games[column].to_numpy().astype(float)
    y = games["score"].to_numpy().astype(float)
    xc = x - x.mean()
    beta = float((xc * (y - y.mean())).sum() / max((xc ** 2).sum(), 1e-12))
    resid = y - y.mean() - beta * xc
    se = float(np.sqrt((resid ** 2).sum() / max(len(x) - 2, 1) / max((xc ** 2).sum(), 1e-12)))
    return stats.Estimate(beta, beta - 1.96 * se, beta + 1.96 * se, len(x))


def _value_text(row: dict) -> str:
    e = row_estimate(row)
    return pct(e) if "turns ending" in row["what"] else num(e, 2)


def _pick(summary: pl.DataFrame, text: str) -> stats.Estimate:
    return row_estimate(summary.filter(pl.col("what").str.contains(text)).row(0, named=True))


def section_value(runs: Runs) -> Section:
    summary = summarize_value(runs)
    table = summary.with_columns(estimate=pl.struct("value", "low", "high", "n", "what")
                                 .map_elements(_value_text, return_dtype=pl.String)
                                 ).select("what", "estimate", "n")
    fig, (ax,) = new_figure(7, 3.0)
    paired = summary.head(3)
    ax.barh(paired["what"], paired["value"],
            xerr=[paired["value"] - paired["low"], paired["high"] - paired["value"]],
            capsize=3, color="#55A868")
    ax.axvline(0, color="k", lw=0.8)
    ax.set_xlabel("points per game for seat 0 (paired)")
    every = summary.row(2, named=True)
    n_games = int(every["n"])
    findings = (
        f"Using bangos is worth {num(row_estimate(every), 2, signed=True)} points per game to a "
        f"4-player heuristic seat (paired on the same decks, n={n_games:,} games); cancelling "
        f"explosions alone {num(row_estimate(summary.row(0, named=True)), 2, signed=True)}.",
        f"Black cards never score (BG-6): a player receives "
        f"{num(_pick(summary, 'black cards received per'), 2)} "
        f"per game, and each goes with {num(_pick(summary, 'per black'), 2, signed=True)} "
        "points of final score (regression across players; descriptive).",
    )
    return Section(
        key="bango", title="e. What is a bango worth? And the black cards?",
        method="Seat 0 plays the heuristic without cancelling explosions, without shedding "
               "dead cards, or without any bango, the others the default heuristic; the "
               "same decks as the all-default run, so differences are paired (Student-t). "
               "The regression slope is descriptive, not causal.",
        tables=(Table("Value of bangos for a 4-player seat.", table),),
        plot=Plot("e_bango.png", png(fig), f"Paired score gain of each kind of bango, "
                  f"4 players, n={n_games:,} games; bars: 95% t intervals."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- g: optimal stopping


def summarize_optimal(runs: Runs) -> pl.DataFrame:
    """Seat 0's paired score gain from one-turn optimal stopping, per player count."""
    rows = []
    for n in PLAYER_COUNTS:
        dp = runs[f"optimal_{n}p"].table("games").filter(pl.col("seat") == 0).sort("game_id")
        base = runs[f"games_{n}p"].table("games").filter(
            (pl.col("seat") == 0) & pl.col("game_id").is_in(dp["game_id"].implode())
        ).sort("game_id")
        diff = stats.paired_difference(dp["score"].to_numpy().astype(float),
                                       base["score"].to_numpy().astype(float))
        rows.append(estimate_row(diff, players=n, metric="score gain"))
        rows += metric_rows({"win share": BM.WIN_SHARE_MEAN}, dp, players=n)
    return pl.DataFrame(rows)


def summarize_rollouts(doc: dict) -> pl.DataFrame:
    """The shipped rollout figures: per player count, the rollout's paired gain against
    optimal stopping and against the heuristic; per K, against optimal stopping."""
    pieces = measured_pieces(doc)
    keys = {f"rollout_vs_{b}_{n}p": (n, b, None) for n in PLAYER_COUNTS
            for b in ("optimal", "heuristic")}
    keys.update({k: (3, "optimal", int(k[len("rollout_k"):-len("_3p")])) for k in pieces
                 if k.startswith("rollout_k") and k.endswith("_3p")})
    rows = compared_rows(pieces, keys)
    return rows.with_columns(
        players=pl.Series([keys[k][0] for k in rows["piece"]], dtype=pl.Int64),
        against=pl.Series([keys[k][1] for k in rows["piece"]], dtype=pl.String),
        k=pl.Series([keys[k][2] for k in rows["piece"]], dtype=pl.Int64))


def section_optimal(runs: Runs, strength: dict | None = None) -> Section:
    summary = summarize_optimal(runs)
    table = summary.with_columns(estimate=pl.struct("value", "low", "high", "n", "metric")
                                 .map_elements(lambda r: pct(row_estimate(r))
                                               if r["metric"] == "win share"
                                               else num(row_estimate(r), 2, signed=True),
                                               return_dtype=pl.String)
                                 ).pivot(on="metric", index="players", values="estimate")
    gains = summary.filter(pl.col("metric") == "score gain").sort("players")
    strength = read_measured(STRENGTH_PATH) if strength is None else strength
    rollouts = summarize_rollouts(strength)
    fig, (ax,) = new_figure(6, 3.0)
    ax.errorbar(gains["players"], gains["value"],
                yerr=[gains["value"] - gains["low"], gains["high"] - gains["value"]],
                marker="o", capsize=3, label="optimal stopping vs heuristic")
    vs_heuristic = rollouts.filter((pl.col("against") == "heuristic") & pl.col("k").is_null())
    if not vs_heuristic.is_empty():
        ax.errorbar(vs_heuristic["players"] + 0.08, vs_heuristic["value"],
                    yerr=[vs_heuristic["value"] - vs_heuristic["low"],
                          vs_heuristic["high"] - vs_heuristic["value"]],
                    marker="s", capsize=3, label="rollout vs heuristic (shipped)")
        ax.legend(fontsize=8)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("players")
    ax.set_ylabel("seat 0 score gain (paired)")
    sizes = group_sizes(gains, "players", "{} players")
    n_games = sample_text(sizes, "games", "per count")
    tables = [Table(f"Optimal stopping at seat 0 ({n_games}).", table, n=sizes)]
    findings = ["Optimal stopping gains " + "; ".join(
        f"{r['players']} players {num(row_estimate(r), 2, signed=True)}"
        for r in gains.iter_rows(named=True)) + " points per game over the threshold "
        "heuristic it replaces."]
    tables_r, findings_r = _rollout_tables(rollouts, measured_pieces(strength))
    return Section(
        key="optimal", title="g. Strong baselines: one-turn optimal stopping and rollouts",
        method="Seat 0 replaces the threshold rule by one-turn optimal stopping (dynamic "
               "programming over the unseen cards; takes, bangos and lays unchanged), the other "
               "seats keep the heuristic; paired with the all-heuristic games of section a on "
               "the same decks (Student-t). The rollout player (simulators/core/rollout.py, "
               "simulators/bango/rollout.py) tries each candidate at its stop-or-draw, bango, "
               "take and lay decisions in k worlds dealt again from what it has seen (its hand, "
               "every face-up card, what each opponent took face up), plays every seat on "
               "with its base policy to the end of the game, and leaves the base's choice only "
               "for a candidate whose paired gain on the same worlds is significant; its "
               "figures are shipped (tapisvert compare bango --a rollout --b optimal|heuristic, "
               "the heuristic at the other seats; bench/rollout_strength.py).",
        tables=(*tables, *tables_r),
        plot=Plot("g_optimal.png", png(fig), f"Paired score gain at seat 0: optimal stopping "
                  f"({n_games}) and the rollout (shipped figures); bars: "
                  "95% t intervals."),
        findings=(*findings, *findings_r),
        summary=summary)


def _rollout_tables(rollouts: pl.DataFrame, pieces: dict) -> tuple[list, list]:
    """The shipped rollout figures as tables and findings (or how to make them)."""
    if rollouts.is_empty():
        table, finding = not_measured("Rollouts", "games", STRENGTH_COMMAND)
        return [table], [finding]

    def cell(r):
        return num(row_estimate(r), 2, signed=True)

    per_count = rollouts.filter(pl.col("k").is_null()).sort("players", "against")
    frame = pl.DataFrame({
        "players": [str(n) for n in per_count["players"]],
        "against": per_count["against"].to_list(),
        "rollout's score": [f"{v:.2f}" for v in per_count["a_mean"]],
        "its opponent's score": [f"{v:.2f}" for v in per_count["b_mean"]],
        "paired gain": [cell(r) for r in per_count.iter_rows(named=True)],
        "n": [f"{n:,}" for n in per_count["n"]]})
    tables = [Table("The rollout player (its defaults) at seat 0 against optimal stopping and "
                    "against the heuristic, paired on the same decks; the other seats play "
                    "the heuristic; 95% t intervals.", frame)]
    by_k = rollouts.filter(pl.col("k").is_not_null()).sort("k")
    if not by_k.is_empty():
        tables.append(Table(
            "The rollout's gain over optimal stopping as a function of k, the worlds per "
            "candidate (3 players, paired, 95% t intervals).",
            pl.DataFrame({"k": [str(k) for k in by_k["k"]],
                          "paired gain": [cell(r) for r in by_k.iter_rows(named=True)],
                          "n": [f"{n:,}" for n in by_k["n"]]})))
    tables.append(measured_commands(pieces))
    against_optimal = per_count.filter(pl.col("against") == "optimal")
    findings = ["The rollout player gains " + "; ".join(
        f"{r['players']} players {cell(r)}" for r in against_optimal.iter_rows(named=True))
        + " points per game over one-turn optimal stopping (shipped figures): what a turn is "
        "worth to the rest of the game is outside the one-turn optimum."] \
        if not against_optimal.is_empty() else []
    return tables, findings


# ---------------------------------------------------------------- f: game length


def section_length(games_by_n: dict[int, pl.DataFrame]) -> Section:
    summary = pl.DataFrame([r for n, games in games_by_n.items() for r in metric_rows(
        {"player-turns": GAME["turns"], "rounds of the table": BM.ROUNDS}, games, players=n)])
    table = summary.with_columns(estimate=pl.struct("value", "low", "high", "n").map_elements(
        lambda r: num(row_estimate(r), 1), return_dtype=pl.String)).pivot(
        on="metric", index="players", values="estimate")
    fig, (ax,) = new_figure(6, 3.0)
    for n, games in games_by_n.items():
        turns = games.filter(pl.col("seat") == 0)["turns"].to_numpy()
        ax.hist(turns, bins=np.arange(turns.min(), turns.max() + 2), histtype="step",
                density=True, label=f"{n} players")
    ax.set_xlabel("player-turns per game")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=8)
    part = summary.filter(pl.col("metric") == "player-turns").sort("players")
    return Section(
        key="length", title="f. Game length",
        method="The games of section a; a game ends when the last card is drawn (BG-7).",
        tables=(Table("Game length.", table),),
        plot=Plot("f_length.png", png(fig), "Player-turns per game."),
        findings=("Player-turns per game: " + "; ".join(
            f"{r['players']} players {num(row_estimate(r), 1)}"
            for r in part.iter_rows(named=True)) + ".",),
        summary=summary)


# ---------------------------------------------------------------- h: the learned player

NET_COMMAND = "python bench/net_strength.py --game bango --n-jobs 2 --runs-dir .net_strength_runs"
NET_TITLE = "h. The learned player: the headline figures under net, beside the heuristic"
NET_METRICS = {m.label: m for m in (
    mean("score", "score per player", pl.col("mean_score")),
    mean("first_score", "first player's score", pl.col("first_score")),
    mean("first_share", "first player's win share", pl.col("first_share")),
    mean("winning_score", "winning score", pl.col("winning_score")),
    mean("margin", "winner's margin", pl.col("margin")),
    mean("explosions", "explosions per player", pl.col("explosions")),
    mean("bangos", "bangos per player", pl.col("bangos")),
    mean("turns", "player-turns per game", pl.col("turns")))}
NET_METHOD = (
    "The games of each player count played twice on the same decks: with the learned player "
    "'net' at every seat, and with the heuristic at every seat. net is four small nets (stop "
    "or draw, the bango, the take, the lay) trained on the rollout's action values "
    "(simulators/bango/learn.py, docs/learning.md); stop or draw, the bango and the take keep "
    "the heuristic's own answer unless the net scores another at least its margin "
    f"({NetPolicy().margin:g} points by default) higher; spoils, destroys, the arrangement and "
    "the last lay of BG-7 are the heuristic's. Each figure is one value per game (the mean "
    "over its players, or the first player's, or the winner's), paired game by game: the "
    "difference is net's minus the heuristic's on the same decks, with a t interval on the "
    "per-game differences. The certificates (bench/net_strength.py, shipped in "
    "simulators/bango/data/strength.json) put net at one seat and an opponent at the others, "
    "then rotate the seats on the same decks: net's gain per game is its score minus the "
    "opponent's at the same seat, on decks of a seed the training never saw.")


def per_game(games: pl.DataFrame) -> pl.DataFrame:
    """One row per game of the per-seat games table: the figures section h pairs."""
    first = pl.col("order") == 0
    return (games.group_by("game_id").agg(
        mean_score=pl.col("score").mean(),
        first_score=pl.col("score").filter(first).first(),
        first_share=(pl.col("is_winner").cast(pl.Float64) / pl.col("n_winners")
                     ).filter(first).first(),
        winning_score=pl.col("score").max(),
        margin=pl.col("score").max() - pl.col("score").top_k(2).min(),
        explosions=pl.col("explosions").mean(), bangos=pl.col("bangos").mean(),
        turns=pl.col("turns").first())
        .sort("game_id"))


def summarize_net(base: dict[int, pl.DataFrame], net: dict[int, pl.DataFrame]
                  ) -> pl.DataFrame:
    """The headline figures per game under net and under the base policy, paired game by
    game within each player count: ``players, measure, arm, kind, value, low, high, n``."""
    rows = []
    for n in sorted(base):
        rows += paired_policy_rows(NET_METRICS, per_game(net[n]), per_game(base[n]),
                                   key="game_id", players=n)
    return pl.DataFrame(rows)


def section_net(base: dict[int, pl.DataFrame] | None, net: dict[int, pl.DataFrame] | None,
                doc: dict, names: tuple[str, str] = ("net", "heuristic")) -> Section:
    """Section h: the headline figures under the learned player beside the base policy's,
    per player count, and its shipped certificates."""
    cert_tables, cert_findings = learned_player_parts(
        measured_pieces(doc), "games", NET_COMMAND,
        lambda n: "" if n is None else f", {n} players")
    if base is None or net is None:
        fig, (ax,) = new_figure(6, 1.2)
        ax.axis("off")
        ax.text(0.5, 0.5, "no paired run: the report's policy is net itself", ha="center")
        return Section(key="net", title=NET_TITLE, method=NET_METHOD, tables=tuple(cert_tables),
                       plot=Plot("h_net.png", png(fig), "No paired run: the report's policy "
                                 "is net itself."),
                       findings=tuple(cert_findings), summary=pl.DataFrame())
    summary = summarize_net(base, net)
    table = paired_policy_table(summary, ["players", "measure"], names)
    scores = summary.filter((pl.col("measure") == "score per player")
                            & (pl.col("arm") == "difference")).sort("players")
    n_games = {n: frame["game_id"].n_unique() for n, frame in net.items()}
    per_count = min(n_games.values())
    findings = (
        f"With {names[0]} at every seat the score per player and game changes by "
        + "; ".join(f"{num(row_estimate(r), 2, signed=True)} at {r['players']} players"
                    for r in scores.iter_rows(named=True))
        + f" against the {names[1]} at every seat (paired on the same decks, "
        f"{per_count:,} games per count).",
        *cert_findings)
    return Section(
        key="net", title=NET_TITLE, method=NET_METHOD,
        tables=(Table(f"Headline figures per player count: {names[0]} at every seat beside "
                      f"the {names[1]} at every seat, on the same "
                      f"{sample_text(n_games, 'games', 'per count')}, "
                      f"{sum(n_games.values()):,} in all; 95% intervals (paired for the "
                      "difference).", table, n=n_games),
                *cert_tables),
        plot=Plot("h_net.png", paired_policy_figure(
            summary, lambda r: f"{r['players']} players: {r['measure']}", names),
            f"{names[0]} minus {names[1]} on the same decks, per player count; bars: 95% "
            "paired t intervals."),
        findings=findings, summary=summary)


def _net_section(runs: Runs, ctx: ReportContext) -> Section:
    from analysis.experiment import policy_name

    doc = read_measured(STRENGTH_PATH)
    if f"net_games_{PLAYER_COUNTS[0]}p" not in runs:
        return section_net(None, None, doc)
    return section_net({n: runs[f"net_base_{n}p"].table("games") for n in PLAYER_COUNTS},
                       {n: runs[f"net_games_{n}p"].table("games") for n in PLAYER_COUNTS},
                       doc, ("net", policy_name(ctx.base.game, ctx.policy)))


def _is_learned(ctx: ReportContext) -> bool:
    from analysis.experiment import policy_name

    return policy_name(ctx.base.game, ctx.policy) == "net"


def _when_heuristic(section):
    """A section over the heuristic's parameter variants, left out under net."""
    def build(runs: Runs, ctx: ReportContext) -> Section | None:
        return None if _is_learned(ctx) else section(runs, ctx)
    return build


# ---------------------------------------------------------------- the report


def _games(runs: Runs) -> dict[int, pl.DataFrame]:
    return {n: runs[f"games_{n}p"].table("games") for n in PLAYER_COUNTS}


def _removed(ctx: ReportContext) -> dict[int, int]:
    return {n: ctx.base.config.replace(n_players=n).n_removed for n in PLAYER_COUNTS}


def settings(ctx: ReportContext, runs: dict[str, Experiment]) -> list[tuple[str, str]]:
    """The run-settings rows."""
    sizes = _sizes(ctx)
    return [
        ("policy (every seat)", policy_text(ctx.base.game, ctx.policy)),
        ("seed", str(ctx.seed)), ("scale", f"{ctx.scale:g}"),
        ("games per player count (a, b, c, f)", f"{sizes['games']:,}"),
        ("games per threshold and count (d)", f"{sizes['sweep']:,}"),
        ("games per bango variant (e) and per count with optimal stopping (g)",
         f"{sizes['value']:,}"),
        ("games per player count under each policy (h)", f"{sizes['net']:,}"),
    ]


REPORT = Report(
    title="Bango: balance report",
    intro=(
        "Monte Carlo estimates from the tapisvert Bango engine under the rulings BG-1..BG-8, "
        "with the risk-aware heuristic (stops on the exact explosion probability, takes what "
        "fits, bangos to cancel explosions and shed dead cards) at every seat.",
        "Every number comes with a 95% interval (Wilson for rates, Student t for means) and "
        "its sample size n=. The numbers describe this policy playing against itself.",
    ),
    plan=plan,
    sections=(
        lambda runs, ctx: section_scores(_games(runs), _removed(ctx)),
        lambda runs, ctx: section_seats(_games(runs)),
        lambda runs, ctx: section_explosions({n: runs[f"games_{n}p"].table("turns")
                                              for n in PLAYER_COUNTS}),
        _when_heuristic(lambda runs, ctx: section_sweep(
            runs, ctx.policy.get_params().get("stop_threshold", 0.35))),
        _when_heuristic(lambda runs, ctx: section_value(runs)),
        lambda runs, ctx: section_length(_games(runs)),
        _when_heuristic(lambda runs, ctx: section_optimal(runs)),
        _net_section,
    ),
    settings=settings,
)
