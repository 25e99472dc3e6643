"""The Manille report end to end at a small scale, and its summaries on hand-made tables."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from analysis.reporting import build_report, find_estimate
from analysis.reports import manille as M


def test_report_builds_every_section(tmp_path):
    build_report("manille", tmp_path, scale=0.01, seed=5, n_jobs=1)
    text = (tmp_path / "manille.md").read_text()
    for title in ("a. Who names the trump", "b. Sans atout", "c. Contre and surcontre",
                  "d, e. The taking side's edge", "f, g. Game length"):
        assert title in text
    assert "first dealer's team wins" in text and "34-34" in text
    html = (tmp_path / "manille.html").read_text()
    assert "data:image/png;base64," in html and "<script" not in html
    assert not any(p.name.startswith(".manille_runs") for p in tmp_path.iterdir())


def _deals(rows):
    return pl.DataFrame(rows, schema=["deal_id", "dealer_passed", "trump", "sans_atout",
                                      "contre_level", "taking_points", "result",
                                      "taking_score", "defence_score", "taking_margin",
                                      "chooser_trumps"], orient="row")


def test_contre_gain_is_paired_on_the_same_deals():
    # deal 0 is contred and beaten: the defence scores 14 instead of 7 without the contre.
    base = _deals([(0, False, "P", False, 1, 27, "defence", 0, 14, -14, 3),
                   (1, False, "C", False, 0, 40, "taking", 6, 0, 6, 4),
                   (2, True, "SA", True, 0, 34, "draw", 0, 0, 0, -1)])
    never = base.with_columns(contre_level=pl.lit(0), defence_score=pl.Series([7, 0, 0]),
                              taking_margin=pl.Series([-7, 6, 0]))
    summary = M.summarize_contre(base, never)
    gain = find_estimate(summary, measure="defence's gain per deal vs never countering")
    assert gain.value == pytest.approx(7 / 3) and gain.n == 3
    assert find_estimate(summary, measure="contre rate").value == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="same deals"):
        M.summarize_contre(base, never.with_columns(deal_id=pl.Series([0, 1, 5])))


def test_game_summary_counts_first_dealer_wins():
    games = pl.DataFrame({"n_deals": np.array([3, 5, 7, 9]),
                          "first_dealer_team_wins": [True, True, False, True]})
    summary = M.summarize_games({50: games})
    assert find_estimate(summary, target=50, measure="deals per game").value == 6
    assert find_estimate(summary, target=50, measure="first dealer's team wins").value == 0.75
