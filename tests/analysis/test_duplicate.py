"""compare --duplicate: A against B, every unit replayed once per rotation of A's seats."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis.cli import main
from analysis.compare import Comparison, duplicate, duplicate_comparison, rotations
from analysis.experiment import Experiment
from simulators.core.game import get_game


def test_rotations_turn_the_seats_round_the_table_once_each():
    assert rotations((0,), 4) == [(0,), (1,), (2,), (3,)]
    assert rotations((0, 2), 4) == [(0, 2), (1, 3)]  # a partnership: two rotations
    assert rotations((0,), 2) == [(0,), (1,)]
    assert rotations((0, 1), 5) == [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]


@pytest.mark.parametrize(("game", "unit", "seats"), [
    ("truc", "deals", (0,)), ("bango", "games", (0,)), ("manille", "deals", (0, 2)),
    ("bianco-mano", "deals", (0,)), ("five-crowns", "rounds", (0,))])
def test_a_policy_against_itself_scores_exactly_zero_on_every_unit(game, unit, seats):
    """With A = B every rotation plays the same game, so A's mean seat score averaged over the
    rotations equals B's on each unit: the duplicate estimate is 0 with a zero-width interval
    (the deal's luck cancels completely)."""
    g = get_game(game)
    base = Experiment(g, g.config(round_no=3) if game == "five-crowns" else g.config(),
                      (g.make_policy("heuristic"),), unit, 60, seed=5)
    table, _ = duplicate(base, "heuristic", g.make_policy("heuristic"), seats=seats)
    row = table.row(2, named=True)
    assert row["row"] == "A - B duplicate" and row["n"] == 60
    assert (row["mean"], row["low"], row["high"]) == (0.0, 0.0, 0.0)


def test_duplicate_does_not_depend_on_chunks_and_measures_its_variance_reduction():
    g = get_game("truc")
    base = Experiment(g, g.config(), (g.make_policy("heuristic"),), "deals", 3000, seed=11)
    a = g.make_policy("heuristic", bluff_probability=0.0)
    one, reduction = duplicate(base, a, "heuristic", chunk_size=3000)
    many, again = duplicate(base, a, "heuristic", chunk_size=700)
    assert one.equals(many) and reduction == pytest.approx(again, rel=1e-9)
    # Truc is zero-sum between the two seats: A's mean is minus B's
    assert one.row(0, named=True)["mean"] == pytest.approx(-one.row(1, named=True)["mean"])
    assert reduction["independent"] > 5  # measured 20.8 on 20,000 deals
    assert np.isfinite(reduction["fixed_seat"])


def test_the_cli_prints_the_variance_reduction_in_json(capsys):
    code = main(["compare", "truc", "--duplicate", "--a-param", "bluff_probability=0",
                 "--deals", "500", "--json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["row"] for r in doc["rows"]] == ["A", "B", "A - B duplicate"]
    assert set(doc["variance_reduction"]) == {"independent", "fixed_seat"}
    assert doc["experiment"]["duplicate"] == [[0], [1]]


def test_sequential_duplicate_stops_early_with_an_anytime_valid_interval():
    """--precision looks after every chunk in chunk order and stops once the confidence
    sequence is narrow enough; the interval reported is that sequence's, wider than the
    fixed-size t interval on the same units, and the stop does not depend on n_jobs."""
    g = get_game("truc")
    base = Experiment(g, g.config(), (g.make_policy("heuristic"),), "deals", 40_000, seed=3)
    a = g.make_policy("heuristic", bluff_probability=0.0)
    fixed, _ = duplicate(base, a, "heuristic", chunk_size=2_000)
    table, _ = duplicate(base, a, "heuristic", chunk_size=2_000, precision=0.03)
    again, _ = duplicate(base, a, "heuristic", chunk_size=2_000, precision=0.03, n_jobs=2)
    row = table.row(2, named=True)
    assert row["target_reached"] and row["n"] < 40_000 and row["n"] % 2_000 == 0
    assert (row["high"] - row["low"]) / 2 <= 0.03
    same_units, _ = duplicate(base.replace(size=row["n"]), a, "heuristic", chunk_size=2_000)
    t_row = same_units.row(2, named=True)
    assert t_row["mean"] == pytest.approx(row["mean"])
    assert row["high"] - row["low"] > t_row["high"] - t_row["low"]
    assert table.equals(again)
    assert fixed.row(2, named=True)["target_reached"] is None


@pytest.mark.parametrize(("argv", "message"), [
    (["--precision", "-1"], "--precision must be a positive number"),
    (["--seats", "0,1"], "give fewer than 2"),
])
def test_duplicate_refuses_what_it_cannot_do(capsys, argv, message):
    code = main(["compare", "truc", "--duplicate", "--a-param", "bluff_probability=0",
                 "--deals", "100", *argv])
    assert code == 2
    assert message in capsys.readouterr().err


def test_duplicate_comparison_fields_are_its_table_rows():
    """The typed duplicate result: its difference is the ``A - B duplicate`` row (the
    anytime-valid interval with a precision), no unpaired row, the variance reduction."""
    base = Experiment.create("truc", size=1_000, seed=3)
    found = duplicate_comparison(base, "heuristic", "random", chunk_size=500, precision=1.0)
    table, reduction = duplicate(base, "heuristic", "random", chunk_size=500, precision=1.0)
    assert found.table.equals(table) and found.variance_reduction == reduction
    row = table.row(2, named=True)
    assert found.difference == (row["mean"], row["low"], row["high"], row["n"])
    assert found.p_value == row["p_value"] and found.target_reached is row["target_reached"]
    assert found.unpaired is None and found.unpaired_p_value is None
    assert Comparison.of_table(table, reduction) == found


@pytest.mark.parametrize(("game", "players", "seats", "refused"), [
    ("manille", None, (0, 2), False), ("manille", None, (0, 1), True),  # MA-2
    ("bianco-mano", 4, (1, 3), False), ("bianco-mano", 4, (0, 3), True),  # BM-5
    ("bianco-mano", 5, (0, 1), False),  # BM-6: the sides change from deal to deal
    ("bianco-mano", 3, (0, 2), False)])  # BM-4: the taker plays alone
def test_ma2_bm5_seats_under_study_lie_in_one_partnership(game, players, seats, refused):
    """Seats on both sides of a fixed partnership share out a zero-sum score: their sum is
    the same for every policy, so such a comparison is refused (issue 34)."""
    from analysis.experiment import seat_experiment

    g = get_game(game)
    config = g.config() if players is None else g.config(n_players=players)
    base = Experiment(g, config, (g.make_policy("heuristic"),), "deals", 10, seed=1)
    a, b = g.make_policy("random"), g.make_policy("heuristic")
    if refused:
        with pytest.raises(ValueError, match="both sides of .* partnerships"):
            seat_experiment(base, a, b, seats)
    else:
        assert seat_experiment(base, a, b, seats).policies[seats[0]] is a
