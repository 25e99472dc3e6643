"""Five Crowns through the analysis layer: CLI, runner, comparison, report."""

from __future__ import annotations

import html.parser

import pytest
from polars.testing import assert_frame_equal

from analysis.cli import main
from analysis.experiment import Experiment
from analysis.reporting import build_report
from analysis.runner import run


def test_simulate_rounds_games_and_solitaire_from_the_cli(capsys):
    assert main(["simulate", "five-crowns", "--rounds", "300", "--option", "round_no=9"]) == 0
    out = capsys.readouterr().out
    assert "300 rounds" in out and "someone goes out" in out and "penalty per player" in out
    assert main(["simulate", "five-crowns", "--games", "12", "--option", "first_round=6"]) == 0
    assert "12 games (72 rounds)" in capsys.readouterr().out
    assert main(["simulate", "five-crowns", "--solitaire", "30"]) == 0
    assert "solitaire won" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["simulate", "five-crowns", "--players", "8"], "n_players must be 2..7"),
    (["simulate", "five-crowns", "--option", "first_round=0"], "first_round must be"),
    (["simulate", "five-crowns", "--deals", "10"], "unit must be one of"),
    (["simulate", "five-crowns", "--solitaire", "5", "--policy", "heuristic"],
     "cannot play five-crowns solitaire: it lacks place"),
    (["simulate", "five-crowns", "--policy", "solitaire"],
     "cannot play five-crowns rounds: it lacks draw"),
    (["odds", "five-crowns", "--round", "1", "--hand", "3H 4H 5H", "--turned", "4H"],
     "odds five-crowns does not take --turned"),
    (["odds", "five-crowns", "--hand", "3H 4H 5H"], "odds five-crowns needs --round"),
    (["odds", "five-crowns", "--round", "1", "--hand", "3H 4H"], "round 1 deals 3 cards"),
])
def test_five_crowns_bad_input_exits_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_runner_is_chunk_and_job_independent_for_rounds(tmp_path):
    exp = Experiment("five-crowns", {"n_players": 5, "round_no": 10}, unit="rounds", size=400,
                     seed=3)
    one = run(exp, tmp_path / "a", chunk_size=400, progress=False)
    two = run(exp, tmp_path / "b", chunk_size=130, n_jobs=2, progress=False)
    assert_frame_equal(one.table("rounds"), two.table("rounds"))


def test_compare_two_heuristics_on_the_same_rounds(capsys):
    assert main(["compare", "five-crowns", "--rounds", "600", "--option", "round_no=7",
                 "--players", "3", "--a-param", "take_margin=30"]) == 0
    out = capsys.readouterr().out
    assert "A - B paired" in out and "Score per round of seat 0 " in out
    assert "minus the penalty points of the round" in out  # what the score means


class _Images(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.srcs.append(dict(attrs)["src"])


def test_report_is_self_contained_and_states_sample_sizes(tmp_path):
    paths = build_report("five-crowns", tmp_path / "rep", scale=0.02, n_jobs=2)
    page = paths["html"].read_text()
    parser = _Images()
    parser.feed(page)
    assert len(parser.srcs) == 6  # sections a, b, c, e, f and g (the learned player)
    assert all(src.startswith("data:image/png;base64,") for src in parser.srcs)
    assert "http://" not in page and "https://" not in page
    assert page.count("n=") >= 10
    markdown = paths["markdown"].read_text()
    for name in ("a_going_out", "b_games", "c_penalties", "e_players", "f_solitaire", "g_net"):
        assert f"five_crowns_figures/{name}.png" in markdown
        assert (tmp_path / "rep" / "five_crowns_figures" / f"{name}.png").exists()
