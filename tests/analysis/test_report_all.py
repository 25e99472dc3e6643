"""Reports from --config, and `report all` without a report module (`report all` itself, every
game's report and the index, is built once in test_report_defects)."""

from __future__ import annotations

import pytest

from analysis import reporting
from analysis.cli import main
from simulators.core.game import get_game


def test_report_config_sets_the_policy_and_rules_it_starts_from(tmp_path, capsys):
    config = tmp_path / "report.toml"
    config.write_text('[[policies]]\nname = "heuristic"\nparams = { take_threshold = 6.5 }\n')
    argv = ["report", "bianco-mano", "--scale", "0.0005", "--config", str(config),
            "--out-dir", str(tmp_path / "rep"), "--quiet"]
    assert main(argv) == 0
    page = (tmp_path / "rep" / "bianco_mano.md").read_text(encoding="utf-8")
    assert "heuristic(take_threshold=6.5," in page
    capsys.readouterr()
    config.write_text('game = "five-crowns"\n')
    assert main(argv) == 2
    assert "--config is for 'five-crowns', not 'bianco-mano'" in capsys.readouterr().err


def test_a_game_without_a_report_module_is_named(monkeypatch):
    bm = get_game("bianco-mano")
    monkeypatch.setattr(reporting, "report_module", lambda game: None)
    with pytest.raises(ValueError, match=r"bianco-mano has no report \(expected REPORT in "
                                         r"analysis/reports/bianco_mano.py\)"):
        reporting.report_of(bm)
