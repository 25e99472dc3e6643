"""tune: successive halving on common units, its search space, its command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis import stats
from analysis.cli import main
from analysis.experiment import Experiment
from analysis.tune import Dimension, candidates, parse_space, race
from simulators.bianco_mano.policies import HeuristicPolicy


def test_race_finds_a_known_optimum_within_the_candidates_spacing():
    """A synthetic policy with one parameter x whose expected score per unit is -(x - 2.7)^2
    (closed form: best x = 2.7), each unit adding a luck both candidates share (common
    random numbers) and a noise of its own: the race's winner is within 0.3 of 2.7, the
    spacing of 16 Sobol points on [0, 4] being 0.25."""
    space = [Dimension("x", 0.0, 4.0)]
    points = candidates(space, {"x": 0.5}, 16, seed=3)
    xs = np.array([p["x"] for p in points])
    assert xs[0] == 0.5 and len(set(xs)) == 16

    def evaluate(alive, offset, count, round_no):
        units = np.arange(offset, offset + count)
        luck = np.random.default_rng(units).standard_normal(count) * 5  # shared by all
        out = {}
        for i in alive:
            own = np.random.default_rng([i, offset]).standard_normal(count)
            score = -(xs[i] - 2.7) ** 2 + luck + own
            reference = -(xs[0] - 2.7) ** 2 + luck + np.random.default_rng(
                [0, offset]).standard_normal(count)
            out[i] = stats.PairedSums.of(score, reference)
        return out

    result = race(evaluate, len(points), budget=200_000, first_units=500)
    winner = result.rounds[-1]["kept"][0]
    assert abs(xs[winner] - 2.7) < 0.3
    assert result.spent <= 200_000
    assert [r["candidates"] for r in result.rounds] == [16, 8, 4, 2]


def test_the_space_is_read_against_the_policy_parameters():
    space = parse_space(["take_threshold=2..6", "round2_threshold=2..7:int"], HeuristicPolicy)
    assert space == [Dimension("take_threshold", 2.0, 6.0, "float"),
                     Dimension("round2_threshold", 2.0, 7.0, "int")]
    assert {Dimension("k", 1, 4, "int").value(u) for u in np.linspace(0, 0.999, 50)} == \
        {1, 2, 3, 4}
    assert Dimension("c", 0.01, 100.0, "log").value(0.5) == pytest.approx(1.0)
    for bad, message in [("nope=1..2", "not a parameter"), ("take_threshold=3", "LOW..HIGH"),
                         ("take_threshold=5..2", "LOW < HIGH"),
                         ("take_threshold=a..b", "must be numbers"),
                         ("take_threshold=0..1:cubic", "int or log")]:
        with pytest.raises(ValueError, match=message):
            parse_space([bad], HeuristicPolicy)


def test_tune_command_prints_json_and_writes_a_config_it_can_replay(tmp_path, capsys):
    out = tmp_path / "best.toml"
    code = main(["tune", "bianco-mano", "--policy", "heuristic", "--space",
                 "take_threshold=2..6", "--budget", "40000", "--candidates", "4",
                 "--json", "--out", str(out)])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["spent"] <= 40_000 and len(doc["candidates"]) == 4
    assert [r["candidates"] for r in doc["rows"]] == [4, 2]
    assert set(doc["confirmation"]) >= {"mean", "low", "high", "n", "p_value", "seed"}
    replay = Experiment.from_toml(out)
    assert replay.policies[0].get_params() == doc["best"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--space", "take_threshold=2..60"], "leaves the parameter's range"),
    (["--space", "take_threshold=2..6", "--candidates", "1"], "--candidates must be 2"),
    (["--space", "take_threshold=2..6", "--out", "best.csv"], "--out must be a .toml"),
    ([], "give at least one --space"),
])
def test_tune_refuses_bad_input_before_any_work(capsys, argv, message):
    code = main(["tune", "bianco-mano", "--budget", "1000", *argv])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_sequential_confirmation_stops_once_its_anytime_interval_is_narrow():
    from analysis.tune import tune
    from simulators.core.game import get_game

    g = get_game("bianco-mano")
    base = Experiment(g, g.config(), (g.make_policy("heuristic"),), "deals", 1, seed=4)
    space = parse_space(["take_threshold=2..6"], HeuristicPolicy)
    result = tune(base, space, budget=20_000, n_candidates=4, confirm_units=200_000,
                  precision=0.05, chunk_size=5_000)
    c = result.confirmation
    assert c.sequential and c.target_reached
    assert c.n < 200_000 and c.n % 5_000 == 0
    assert (c.high - c.low) / 2 <= 0.05
    assert result["confirmation"]["n"] == c.n  # the dict-like access of the former dict
