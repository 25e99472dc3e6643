"""`tapisvert report all`: every game's report and an index page; reports from --config."""

from __future__ import annotations

import re

import pytest

from analysis import reporting
from analysis.cli import main
from simulators.core.game import get_game


def test_report_all_writes_each_report_and_an_index_of_headlines(tmp_path, monkeypatch):
    chosen = {name: get_game(name) for name in ("bianco-mano", "five-crowns")}
    monkeypatch.setattr(reporting, "games", lambda: chosen)
    paths = reporting.build_all(tmp_path / "rep", scale=0.002, seed=3)
    assert set(paths) == {"index", "bianco-mano", "five-crowns"}
    index = paths["index"].read_text(encoding="utf-8")
    for name in ("bianco_mano", "five_crowns"):
        assert f'href="{name}.html"' in index and (tmp_path / "rep" / f"{name}.html").is_file()
    assert index.count('class="finding"') == 4  # two headline findings per game
    assert "Bianco Mano: strategy report" in index and "n=" in index
    assert "http" not in index
    markdown = (tmp_path / "rep" / "index.md").read_text(encoding="utf-8")
    assert re.search(r"\]\(bianco_mano\.md\)", markdown) and markdown.count("> ") == 4
    assert not [p for p in (tmp_path / "rep").iterdir() if p.name.startswith(".")]


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
