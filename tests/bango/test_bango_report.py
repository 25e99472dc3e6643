"""Bango report sections on small simulated tables (the runner is tested elsewhere)."""

from __future__ import annotations

import polars as pl
import pytest

from analysis.reports import bango as report
from simulators.bango import rules as R
from simulators.bango.engine import simulate_games
from simulators.bango.policies import HeuristicPolicy


@pytest.fixture(scope="module")
def tables():
    return {n: simulate_games(R.BangoConfig(n_players=n), HeuristicPolicy(), 60, seed=4)
            for n in R.PLAYER_COUNTS}


def test_explosion_rate_by_reveal_counts_turns_directly(tables):
    summary = report.summarize_explosions({n: b.turns for n, b in tables.items()})
    turns = tables[4].turns
    row = summary.filter((pl.col("players") == 4) & (pl.col("reveal") == 3)).row(0, named=True)
    reached = int((turns["revealed"] >= 3).sum())
    hits = int((turns["exploded"] & (turns["revealed"] == 3)).sum())
    assert row["n"] == reached and row["value"] == pytest.approx(hits / reached)


def test_seat_shares_sum_to_one_per_player_count(tables):
    summary = report.summarize_seats({n: b.games for n, b in tables.items()})
    shares = summary.filter(pl.col("metric") == "win share")
    total = shares.group_by("players").agg(pl.col("value").sum())
    assert total["value"].to_list() == pytest.approx([1.0] * 4)


def test_sections_build(tables):
    games = {n: b.games for n, b in tables.items()}
    removed = {n: R.BangoConfig(n_players=n).n_removed for n in R.PLAYER_COUNTS}
    for section in (report.section_scores(games, removed), report.section_seats(games),
                    report.section_length(games),
                    report.section_explosions({n: b.turns for n, b in tables.items()})):
        assert section.findings and section.plot.png.startswith(b"\x89PNG")


def test_the_plan_pairs_net_with_the_heuristic_and_drops_the_heuristics_sweeps_under_net():
    """Under the heuristic: section h's arms (net and the heuristic on the same decks, per
    count) beside the sweeps; under net itself: no paired arm, and no sweep of parameters
    the nets do not read (sections d, e and g are left out)."""
    from analysis.experiment import Experiment
    from analysis.reporting import ReportContext
    from analysis.reports import bango as BR
    from simulators.core.game import get_game

    game = get_game("bango")
    for policy, paired in (("heuristic", True), ("net", False)):
        ctx = ReportContext(Experiment(game, policies=policy, size=10, seed=1), 0.01, 1)
        plan = BR.plan(ctx)
        nets = sorted(k for k in plan if k.startswith("net_"))
        if paired:
            assert nets == sorted(f"net_{arm}_{n}p" for arm in ("base", "games")
                                  for n in (2, 3, 4, 5))
            assert plan["net_games_3p"].seed == plan["net_base_3p"].seed
            assert plan["net_games_3p"].size == BR.BASE_NET // 100
            assert any(k.startswith("sweep_") for k in plan)
        else:
            assert nets == [] and not any(k.startswith(("sweep_", "value_", "optimal_"))
                                          for k in plan)
            for i in (3, 4, 6):  # the sweep, the bango variants, optimal stopping
                assert BR.REPORT.sections[i](None, ctx) is None
