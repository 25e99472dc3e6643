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
