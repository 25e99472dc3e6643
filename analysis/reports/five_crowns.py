"""Five Crowns balance report: declared for :mod:`analysis.reporting`.

How fast players go out in each round, first-player and dealer advantage,
the mean penalty per round, full versus express games (FC-7), the player
count, and the solitaire win rate (FC-8), each with 95% intervals and
sample sizes. Every simulation is one named experiment of :func:`plan`,
played by the runner; each section reads its runs' tables.
"""

from __future__ import annotations

from pathlib import Path

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
    formatted,
    group_sizes,
    learned_player_parts,
    learned_policy,
    measured_commands,
    measured_pieces,
    metric_estimate,
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
from simulators.five_crowns import metrics as FM

BASE_ROUNDS = 10_000  # per round number (a, c, g: 110,000 rounds under each policy)
BASE_GAMES = 2_500  # per variant (b, d)
BASE_COUNTS = 4_000  # rounds per player count (e)
BASE_SOLITAIRE = 5_000
TURNS_SHOWN = (1, 2, 3, 5, 8)
ROUND_NUMBERS = range(1, 12)
PLAYER_COUNTS = range(2, 8)
VARIANTS = (("full", 1), ("express", 6))  # first_round of each variant (FC-7)
ROUND = {m.name: m for m in FM.ROUND_METRICS}  # the headline metrics `simulate` prints
SOLITAIRE = {m.name: m for m in FM.SOLITAIRE_METRICS}
STRENGTH_PATH = Path(FM.__file__).parent / "data" / "strength.json"
STRENGTH_COMMAND = "python bench/rollout_strength.py --game five-crowns --n-jobs 2"
STRONG = {"lookahead": "lookahead (exact expectation over the next draw)",
          "rollout": "rollout (determinized continuations)"}


def _sizes(ctx: ReportContext) -> dict[str, int]:
    return {"rounds": ctx.size(BASE_ROUNDS), "games": ctx.size(BASE_GAMES),
            "counts": ctx.size(BASE_COUNTS), "solitaire": ctx.size(BASE_SOLITAIRE)}


def plan(ctx: ReportContext) -> dict[str, Experiment]:
    """Every simulation of the report, by name."""
    sizes = _sizes(ctx)
    runs = {f"rounds_r{r}": ctx.experiment("rounds", sizes["rounds"], n_players=4, round_no=r)
            for r in ROUND_NUMBERS}
    learned = learned_policy(ctx)
    if learned is not None:  # section g: the same rounds, the learned player at every seat
        runs |= {f"net_rounds_r{r}": ctx.experiment("rounds", sizes["rounds"], policies=learned,
                                                    n_players=4, round_no=r)
                 for r in ROUND_NUMBERS}
    for variant, first in VARIANTS:
        runs[f"games_{variant}"] = ctx.experiment("games", sizes["games"], n_players=4,
                                                  first_round=first)
    for n in PLAYER_COUNTS:
        runs[f"round11_{n}p"] = ctx.experiment("rounds", sizes["counts"], n_players=n,
                                               round_no=11)
    runs["solitaire"] = ctx.experiment("solitaire", sizes["solitaire"], policies="solitaire")
    return runs


def _formatted_fc(percent: bool = True, digits: int = 1) -> pl.Expr:
    return formatted(percent, digits)


def _fmt(e: stats.Estimate, percent: bool = True, digits: int = 1) -> str:
    return pct(e, digits) if percent else num(e, digits)


# ---------------------------------------------------------------- a, c: rounds


def summarize_going_out(rounds: pl.DataFrame) -> pl.DataFrame:
    """P(someone has gone out by own turn k) per round number; k = each player's turn count."""
    rows = metric_rows([({"turn": k}, FM.out_by_turn(k)) for k in TURNS_SHOWN], rounds,
                       by="round_no")
    return pl.DataFrame(rows).sort("round_no", "turn")


def summarize_penalties(rounds: pl.DataFrame, n_players: int) -> pl.DataFrame:
    """Mean penalty per player, and of the first player and the dealer, per round number."""
    rows = metric_rows({"all players": ROUND["mean_penalty"],
                        "first player": ROUND["first_penalty"],
                        "dealer": ROUND["dealer_penalty"]}, rounds, by="round_no", column="who")
    return pl.DataFrame(rows).sort("round_no", "who")


def section_going_out(rounds: pl.DataFrame, strength: dict | None = None) -> Section:
    summary = summarize_going_out(rounds)
    strength = read_measured(STRENGTH_PATH) if strength is None else strength
    strong_tables, strong_findings = _strong_players(measured_pieces(strength))
    wide = summary.with_columns(
        cell=_formatted_fc()).pivot(on="turn", index="round_no", values="cell").sort("round_no")
    wide = wide.rename({str(k): f"by turn {k}" for k in TURNS_SHOWN})
    n = int(summary["n"][0])
    sizes = group_sizes(summary, "round_no", "round {}")
    fig, (ax,) = new_figure(7, 3.4)
    for k in TURNS_SHOWN:
        part = summary.filter(pl.col("turn") == k)
        ax.errorbar(part["round_no"], part["value"],
                    yerr=[part["value"] - part["low"], part["high"] - part["value"]],
                    marker="o", capsize=2, label=f"by own turn {k}")
    ax.set_xlabel("round (cards dealt = round + 2)")
    ax.set_ylabel("someone has gone out")
    ax.set_xticks(range(1, 12))
    percent_axis(ax)
    ax.legend(fontsize=8, ncols=2)
    late = summary.filter((pl.col("round_no") == 11) & (pl.col("turn") == 3)).row(0, named=True)
    early = summary.filter((pl.col("round_no") == 1) & (pl.col("turn") == 1)).row(0, named=True)
    findings = (
        f"In round 1 (3 cards) someone goes out on the first turn of the table in "
        f"{_fmt(row_estimate(early))} of rounds (n={n:,} per round); "
        f"in round 11 (13 cards) someone has gone out by everyone's third turn in "
        f"{_fmt(row_estimate(late))}.",
    )
    return Section(
        key="going-out", title="a. How fast does someone go out? (4 players)",
        method="Independent rounds of each round number, heuristic policy at every seat; "
               "a player's k-th turn; Wilson intervals. The strong players' figures are "
               "shipped (bench/rollout_strength.py): 'tapisvert compare five-crowns --a "
               "lookahead|rollout --b heuristic', seat 0 only, the heuristic at the three other "
               "seats, paired on the same deals (Student t). Lookahead takes the discard or "
               "draws blind, and discards, by the exact expected least penalty after the next "
               "stock card (simulators/five_crowns/lookahead.py); the rollout tries each draw, "
               "discard and going-out choice in k worlds dealt again from what it has seen and "
               "plays the round on with the heuristic at every seat "
               "(simulators/five_crowns/rollout.py).",
        tables=(Table(f"Share of rounds where someone went out by each player's k-th turn "
                      f"({sample_text(sizes, 'rounds', 'per round number')}).", wide, n=sizes),
                *strong_tables),
        plot=Plot("a_going_out.png", png(fig), f"Going out by own turn k, per round, "
                  f"4 players, n={n:,} rounds per round number; bars: 95% Wilson intervals."),
        findings=(*findings, *strong_findings), summary=summary)


def summarize_strong(pieces: dict[str, dict]) -> pl.DataFrame:
    """Seat 0's penalty with each strong player against the heuristic's, per round number,
    and the rollout's gain per k (``policy, round_no, k`` then :func:`compared_rows`)."""
    keys = {f"{p}_r{r}": (p, r, None) for p in STRONG for r in ROUND_NUMBERS}
    for key in pieces:
        if key.startswith("rollout_k") and "_r" in key:
            k, r = key[len("rollout_k"):].split("_r")
            keys[key] = ("rollout", int(r), int(k))
    rows = compared_rows(pieces, keys)
    return rows.with_columns(
        policy=pl.Series([keys[k][0] for k in rows["piece"]], dtype=pl.String),
        round_no=pl.Series([keys[k][1] for k in rows["piece"]], dtype=pl.Int64),
        k=pl.Series([keys[k][2] for k in rows["piece"]], dtype=pl.Int64))


def _strong_players(pieces: dict[str, dict]) -> tuple[list, list]:
    rows = summarize_strong(pieces)
    if rows.is_empty():
        table, finding = not_measured("Strong players", "rounds", STRENGTH_COMMAND)
        return [table], [finding]
    main = rows.filter(pl.col("k").is_null()).sort("policy", "round_no")
    tables = [Table(
        "Seat 0's penalty per round with a strong player and with the heuristic, on the same "
        "deals (4 players, the heuristic at the other seats); the gain is the penalty saved, "
        "95% t interval.",
        pl.DataFrame({"player": [STRONG[p] for p in main["policy"]],
                      "round": [str(r) for r in main["round_no"]],
                      "its penalty": [f"{-v:.2f}" for v in main["a_mean"]],
                      "heuristic's penalty": [f"{-v:.2f}" for v in main["b_mean"]],
                      "penalty saved": [num(row_estimate(r), 2, signed=True)
                                        for r in main.iter_rows(named=True)],
                      "n": [f"{n:,}" for n in main["n"]]}))]
    by_k = rows.filter(pl.col("k").is_not_null()).sort("k")
    if not by_k.is_empty():
        tables.append(Table(
            f"The rollout's penalty saved per round as a function of k, the worlds per "
            f"candidate (round {by_k['round_no'][0]}, paired, 95% t intervals).",
            pl.DataFrame({"k": [str(k) for k in by_k["k"]],
                          "penalty saved": [num(row_estimate(r), 2, signed=True)
                                            for r in by_k.iter_rows(named=True)],
                          "n": [f"{n:,}" for n in by_k["n"]]})))
    tables.append(measured_commands(pieces))
    findings = [f"{STRONG[p].split(' (')[0].capitalize()} saves " + "; ".join(
        f"round {r['round_no']} {num(row_estimate(r), 2, signed=True)}"
        for r in main.filter(pl.col("policy") == p).iter_rows(named=True))
        + " penalty points per round at seat 0 against the heuristic (shipped figures)."
        for p in STRONG if not main.filter(pl.col("policy") == p).is_empty()]
    return tables, findings


def section_penalties(rounds: pl.DataFrame, n_players: int) -> Section:
    summary = summarize_penalties(rounds, n_players)
    table = (summary.with_columns(estimate=_formatted_fc(percent=False))
             .pivot(on="who", index="round_no", values="estimate").sort("round_no"))
    n = int(summary["n"][0])
    sizes = group_sizes(summary, "round_no", "round {}")
    fig, (ax,) = new_figure(7, 3.4)
    for who, marker in (("all players", "o"), ("first player", "^"), ("dealer", "v")):
        part = summary.filter(pl.col("who") == who)
        ax.errorbar(part["round_no"], part["value"],
                    yerr=[part["value"] - part["low"], part["high"] - part["value"]],
                    marker=marker, capsize=2, label=who)
    ax.set_xlabel("round")
    ax.set_ylabel("mean penalty")
    ax.set_xticks(range(1, 12))
    ax.legend(fontsize=8)
    r11 = summary.filter(pl.col("round_no") == 11)
    first = r11.filter(pl.col("who") == "first player").row(0, named=True)
    dealer = r11.filter(pl.col("who") == "dealer").row(0, named=True)
    first_e, dealer_e = row_estimate(first), row_estimate(dealer)
    findings = (
        f"In round 11 the first player to draw scores {_fmt(first_e, False)} penalty points "
        f"and the dealer, who plays last, {_fmt(dealer_e, False)} (n={n:,} rounds).",
    )
    return Section(
        key="penalties", title="c. Mean penalty per round, first player and dealer (4 players)",
        method="The rounds of section a; mean penalty of a player (FC-5), of the player left of "
               "the dealer (who starts, FC-2) and of the dealer; t intervals.",
        tables=(Table(f"Mean penalty per round "
                      f"({sample_text(sizes, 'rounds', 'per round number')}).", table, n=sizes),),
        plot=Plot("c_penalties.png", png(fig), f"Mean penalty per round, 4 players, n={n:,} "
                  "rounds per round number; bars: 95% t intervals."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- b, d: games


def summarize_games(games_by_variant: dict[str, pl.DataFrame], n_players: int) -> pl.DataFrame:
    """Mean total and win share by position from the first dealer, per variant."""
    rows = []
    for variant, games in games_by_variant.items():
        frame = games.with_columns(n_players=pl.lit(n_players, pl.Int64))
        rows += metric_rows({"total": FM.GAME_TOTAL, "win share": FM.WIN_SHARE},
                            frame.with_columns(position=FM.FROM_FIRST_DEALER.cast(pl.Int64)),
                            by="position", variant=variant)
    return pl.DataFrame(rows)


def section_games(games_by_variant: dict[str, pl.DataFrame], n_players: int) -> Section:
    summary = summarize_games(games_by_variant, n_players)
    labels = {0: "first dealer", 1: "first to play"}
    table = summary.with_columns(
        estimate=pl.struct("value", "low", "high", "n", "metric").map_elements(
            lambda r: _fmt(row_estimate(r),
                           r["metric"] == "win share"), return_dtype=pl.String),
        seat=pl.col("position").map_elements(lambda p: labels.get(p, f"dealer + {p}"),
                                             return_dtype=pl.String),
        # one header per (variant, metric): a pivot on both columns names them '{"full","total"}'
        column=pl.format("{} ({} game)", "metric", "variant"),
    ).pivot(on="column", index="seat", values="estimate")
    n = int(summary["n"][0])
    sizes = group_sizes(summary, "variant", "{} game")
    fig, axes = new_figure(8, 3.2, ncols=2)
    width = 0.38
    for i, (variant, color) in enumerate((("full", "#4C72B0"), ("express", "#DD8452"))):
        for ax, metric in zip(axes, ("total", "win share"), strict=True):
            part = summary.filter((pl.col("variant") == variant) & (pl.col("metric") == metric))
            x = part["position"].to_numpy() + (i - 0.5) * width
            ax.bar(x, part["value"], width, color=color, label=variant,
                   yerr=[part["value"] - part["low"], part["high"] - part["value"]], capsize=2)
            ax.set_xticks(range(n_players), [labels.get(p, f"+{p}") for p in range(n_players)])
            ax.set_title(f"mean game {metric}" if metric == "total" else "win share")
    percent_axis(axes[1])
    axes[1].axhline(1 / n_players, color="k", ls="--", lw=0.8)
    axes[0].legend(fontsize=8)
    def pick(variant: str, metric: str, position: int) -> stats.Estimate:
        row = summary.filter((pl.col("variant") == variant) & (pl.col("metric") == metric)
                             & (pl.col("position") == position)).row(0, named=True)
        return row_estimate(row)

    findings = (
        f"Full game (11 rounds): the first player to play wins {_fmt(pick('full', 'win share', 1))}"
        f" of games and the first dealer {_fmt(pick('full', 'win share', 0))}, against a fair "
        f"{100 / n_players:.0f}% (n={n:,} games).",
        f"The first dealer totals {_fmt(pick('full', 'total', 0), False)} points in a full game "
        f"and {_fmt(pick('express', 'total', 0), False)} in an express game (rounds 6-11, FC-7).",
    )
    return Section(
        key="games", title="b, d. First-player and dealer advantage; full vs express game",
        method="Whole games (FC-7), game g first dealt by seat g mod n, the deal passing left; "
               "seats are counted from the first dealer. Win share counts ties as 1/winners; "
               "t intervals.",
        tables=(Table(f"Per seat from the first dealer "
                      f"({sample_text(sizes, 'games', 'per variant')}).", table, n=sizes),),
        plot=Plot("b_games.png", png(fig), f"Game totals and win shares by seat, 4 players, "
                  f"n={n:,} games per variant; bars: 95% t intervals; dashes: fair share."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- e: player counts


def section_player_counts(rounds_by_n: dict[int, pl.DataFrame]) -> Section:
    rows = []
    for n_players, rounds in rounds_by_n.items():
        rows += metric_rows({"mean penalty": ROUND["mean_penalty"],
                             "own turn of going out": ROUND["out_turn"]}, rounds,
                            players=n_players)
    summary = pl.DataFrame(rows)
    table = (summary.with_columns(estimate=_formatted_fc(False, 2))
             .pivot(on="metric", index="players", values="estimate"))
    n = int(summary["n"][0])
    sizes = group_sizes(summary, "players", "{} players")
    fig, (ax,) = new_figure(6, 3.2)
    part = summary.filter(pl.col("metric") == "mean penalty")
    ax.errorbar(part["players"], part["value"],
                yerr=[part["value"] - part["low"], part["high"] - part["value"]],
                marker="o", capsize=3)
    ax.set_xlabel("players")
    ax.set_ylabel("mean penalty per player")
    lo, hi = part.row(0, named=True), part.row(-1, named=True)
    findings = (f"Round 11 penalty per player: {_fmt(row_estimate(lo), False)} "
                f"with {lo['players']} players, {_fmt(row_estimate(hi), False)} "
                f"with {hi['players']} (n={n:,} rounds each).",)
    return Section(
        key="players", title="e. Two to seven players (round 11)",
        method="Independent round-11 rounds (13 cards, Kings wild) per player count; "
               "t intervals.",
        tables=(Table(f"Round 11 by player count ({sample_text(sizes, 'rounds', 'each')}).",
                      table, n=sizes),),
        plot=Plot("e_players.png", png(fig), f"Round 11 mean penalty per player by player "
                  f"count, n={n:,} rounds each; bars: 95% t intervals."),
        findings=findings, summary=summary)


# ---------------------------------------------------------------- f: solitaire


def section_solitaire(games: pl.DataFrame) -> Section:
    win = metric_estimate(SOLITAIRE["win_rate"], games)
    closed = metric_estimate(SOLITAIRE["hands_closed"], games)
    summary = pl.DataFrame(metric_rows(
        [({"hand": f"{h + 3} cards ({h + 3}s wild)"}, FM.hand_closed(h)) for h in range(11)],
        games))
    table = pl.DataFrame({"metric": ["win rate", "hands closed (of 11)"],
                          "estimate": [_fmt(win), _fmt(closed, False, 2)],
                          "n": [f"{win.n:,}", f"{closed.n:,}"]})
    fig, (ax,) = new_figure(7, 3.2)
    ax.bar(range(11), summary["value"], color="#55A868",
           yerr=[summary["value"] - summary["low"], summary["high"] - summary["value"]],
           capsize=2)
    ax.set_xticks(range(11), [str(h + 3) for h in range(11)])
    ax.set_xlabel("hand size (= wild rank)")
    ax.set_ylabel("hand closed")
    percent_axis(ax)
    return Section(
        key="solitaire", title="f. Solitaire (FC-8)",
        method="The one-player variant with the solitaire heuristic (the drawn card goes where "
               "it lowers a hand's penalty most, closing hands first); Wilson and t intervals.",
        tables=(Table(f"Solitaire results ({sample_text(games.height, 'games')}).", table,
                      n=games.height),),
        plot=Plot("f_solitaire.png", png(fig), f"Share of games closing each hand, "
                  f"n={games.height:,} games; bars: 95% Wilson intervals."),
        findings=(f"The heuristic wins {_fmt(win)} of solitaire games and closes "
                  f"{_fmt(closed, False, 2)} hands of 11 on average (n={win.n:,}).",),
        summary=summary)


# ---------------------------------------------------------------- g. the learned player

NET_COMMAND = ("python bench/net_strength.py --game five-crowns --n-jobs 2 "
               "--runs-dir .net_strength_runs")
NET_TITLE = "g. The learned player: the headline figures under net, beside the heuristic"
NET_METRICS = {m.label: m for m in (ROUND["mean_penalty"], ROUND["first_penalty"],
                                    ROUND["dealer_penalty"], ROUND["went_out_rate"],
                                    ROUND["first_player_out"])}
NET_METHOD = (
    "The rounds of section a played again, card for card the same rounds, with the learned "
    "player 'net' at every seat: two small nets, the draw and the discard, trained on the "
    "lookahead's exact values (simulators/five_crowns/learn.py, docs/learning.md); going out "
    "is the heuristic's (at once: it scores 0). Each figure is paired round by round: the "
    "difference is net's minus the heuristic's on the same rounds, with a t interval on the "
    "per-round differences (ratio estimators linearised where the figure counts only some "
    "rounds). The certificates (bench/net_strength.py, shipped in "
    "simulators/five_crowns/data/strength.json) put net at one seat of 4 players against "
    "an opponent at the three others, then rotate the seats on the same cards: net's gain "
    "per round is the penalty it saves (the opponent's penalty at that seat minus net's), "
    "on rounds of a seed the training never saw.")


def summarize_net(base: pl.DataFrame, net: pl.DataFrame) -> pl.DataFrame:
    """The headline round metrics under net and under the base policy, paired round by round
    within each round number: ``round_no, measure, arm, kind, value, low, high, n``."""
    rows = []
    for r in sorted(set(base["round_no"].to_list())):
        rows += paired_policy_rows(NET_METRICS, net.filter(pl.col("round_no") == r),
                                   base.filter(pl.col("round_no") == r), key="round_id",
                                   round_no=r)
    return pl.DataFrame(rows)


def section_net(base: pl.DataFrame | None, net: pl.DataFrame | None, doc: dict,
                names: tuple[str, str] = ("net", "heuristic")) -> Section:
    """Section g: the headline figures under the learned player beside the base policy's,
    per round number, and its shipped certificates."""
    cert_tables, cert_findings = learned_player_parts(measured_pieces(doc), "rounds",
                                                      NET_COMMAND)
    if base is None or net is None:
        fig, (ax,) = new_figure(6, 1.2)
        ax.axis("off")
        ax.text(0.5, 0.5, "no paired run: the report's policy is net itself", ha="center")
        return Section(key="net", title=NET_TITLE, method=NET_METHOD, tables=tuple(cert_tables),
                       plot=Plot("g_net.png", png(fig), "No paired run: the report's policy "
                                 "is net itself."),
                       findings=tuple(cert_findings), summary=pl.DataFrame())
    summary = summarize_net(base, net)
    table = paired_policy_table(summary, ["round_no", "measure"], names)
    penalty = summary.filter((pl.col("measure") == ROUND["mean_penalty"].label)
                             & (pl.col("arm") == "difference"))
    saved = [r["round_no"] for r in penalty.iter_rows(named=True) if r["high"] < 0]
    lost = [r["round_no"] for r in penalty.iter_rows(named=True) if r["low"] > 0]
    per_round = net.height // max(1, net["round_no"].n_unique())
    first = penalty.row(0, named=True)
    last = penalty.row(penalty.height - 1, named=True)
    findings = (
        f"With {names[0]} at every seat the penalty per player and round changes by "
        f"{num(row_estimate(first), 2, signed=True)} in round {first['round_no']} and "
        f"{num(row_estimate(last), 2, signed=True)} in round {last['round_no']} against the "
        f"{names[1]} at every seat (paired on the same {per_round:,} rounds per round "
        f"number); lower in rounds {', '.join(map(str, saved)) or 'none'}, higher in "
        f"{', '.join(map(str, lost)) or 'none'} (95% intervals excluding 0).",
        *cert_findings)
    return Section(
        key="net", title=NET_TITLE, method=NET_METHOD,
        tables=(Table(f"Headline figures per round number (4 players): {names[0]} at every "
                      f"seat beside the {names[1]} at every seat, on the same "
                      f"{sample_text(per_round, 'rounds', 'per round number')}, "
                      f"{net.height:,} in all; 95% intervals (paired for the difference).",
                      table, n=per_round),
                *cert_tables),
        plot=Plot("g_net.png", paired_policy_figure(
            summary, lambda r: f"round {r['round_no']}: {r['measure']}", names),
            f"{names[0]} minus {names[1]} on the same rounds, per round number; bars: 95% "
            "paired t intervals."),
        findings=findings, summary=summary)


def _net_section(runs: Runs, ctx: ReportContext) -> Section:
    from analysis.experiment import policy_name

    doc = read_measured(STRENGTH_PATH)
    if "net_rounds_r1" not in runs:
        return section_net(None, None, doc)
    return section_net(_rounds(runs), _rounds(runs, "net_rounds_r"), doc,
                       ("net", policy_name(ctx.base.game, ctx.policy)))


# ---------------------------------------------------------------- the report


def _rounds(runs: Runs, prefix: str = "rounds_r") -> pl.DataFrame:
    return pl.concat([runs[f"{prefix}{r}"].table("rounds") for r in ROUND_NUMBERS])


def settings(ctx: ReportContext, runs: dict[str, Experiment]) -> list[tuple[str, str]]:
    """The run-settings rows."""
    sizes = _sizes(ctx)
    return [
        ("policy (every seat)", policy_text(ctx.base.game, ctx.policy)),
        ("seed", str(ctx.seed)), ("scale", f"{ctx.scale:g}"),
        ("rounds per round number (a, c; g under each policy)", f"{sizes['rounds']:,}"),
        ("games per variant (b, d)", f"{sizes['games']:,}"),
        ("rounds per player count (e)", f"{sizes['counts']:,}"),
        ("solitaire games (f)", f"{sizes['solitaire']:,}"),
    ]


REPORT = Report(
    title="Five Crowns: balance report",
    intro=(
        "Monte Carlo estimates from the tapisvert Five Crowns engine under the rulings "
        "FC-1..FC-8, with the penalty-minimising heuristic (exact meld solver) at every seat.",
        "Every number comes with a 95% interval (Wilson for rates, Student t for means) and "
        "its sample size n=. The numbers describe this policy playing against itself.",
    ),
    plan=plan,
    sections=(
        lambda runs, ctx: section_going_out(_rounds(runs)),
        lambda runs, ctx: section_games({v: runs[f"games_{v}"].table("games")
                                         for v, _ in VARIANTS}, 4),
        lambda runs, ctx: section_penalties(_rounds(runs), 4),
        lambda runs, ctx: section_player_counts({n: runs[f"round11_{n}p"].table("rounds")
                                                 for n in PLAYER_COUNTS}),
        lambda runs, ctx: section_solitaire(runs["solitaire"].table("solitaire")),
        _net_section,
    ),
    settings=settings,
)
