"""``tapisvert solve bianco-mano``: double-dummy values of the engine's deals and of one
position (BM-8 duties, BM-9 winner, BM-10 count, BM-11 bonus), and every bad input refused
with one line and exit 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis.cli import main
from simulators.bianco_mano import referee
from simulators.bianco_mano import rules as R
from simulators.bianco_mano.engine import DUTIES
from simulators.core import double_dummy as dd
from simulators.core import tricks

DEAL_KEYS = {"values", "made", "seconds", "deals_per_second", "deals", "seed", "value_is",
             "made_is", "mean_value", "made_rate", "made_low", "made_high", "solved",
             "all_pass", "players"}
POSITION_KEYS = {"values", "cards", "best", "to_play", "seconds", "deals_per_second",
                 "value_is", "total", "made", "read_as"}
TWO_TRICKS = "1R 2B; 3R 1B; 4R 2J; 5R 3J"


def solve_json(capsys, *argv) -> dict:
    assert main(["solve", "bianco-mano", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_bm8_bm1_two_tricks_by_hand(capsys):
    """Rouge dominant (BM-1: 1R 10, 3R 6, 4R 4, 5R 2). Seat 0 leads 2B: seat 1 wins it with
    1B unless trumped, and seats 2 and 3, void in bleue, must play a dominant (BM-8): 4R wins
    (BM-9), 4 + 5 + 4 + 2 = 15; seat 2 then leads 2J, seat 0 must trump with 1R, seat 1 can
    only add 3R: 4 + 3 + 10 + 6 = 23. Side 0 takes all 38. Leading 1R instead draws the rouges
    (22) and loses 2B to 1B: 22."""
    doc = solve_json(capsys, "--hands", TWO_TRICKS, "--trump", "R")
    assert POSITION_KEYS <= set(doc)
    assert doc["values"] == [38] and doc["to_play"] == 0 and doc["best"] == ["2B"]
    assert {c["card"]: c["value"] for c in doc["cards"]} == {"1R": 22, "2B": 38}
    assert doc["read_as"]["dominant"] == "R" and doc["read_as"]["side"] == [0, 2]


def test_bm8_no_partner_exception_void_must_play_dominant(capsys):
    """Seat 0 led 1B and holds the trick; his partner, seat 2, void in bleue, must still play a
    dominant card (BM-8: no exception for a partner)."""
    doc = solve_json(capsys, "--hands", "4J; 5J; 2R 3J; 6B 7J", "--trump", "R",
                     "--trick", "1B 8B")
    assert doc["to_play"] == 2 and [c["card"] for c in doc["cards"]] == ["2R"]


@pytest.mark.parametrize("hand, legal", [("2R 5R", ["2R"]), ("5R 6R", ["5R", "6R"]),
                                         ("5R 3J", ["5R"])])
def test_bm8_overtrump_if_you_can_else_any_dominant(capsys, hand, legal):
    """After 1B and seat 1's 3R, seat 2 (void in bleue) must beat 3R if he can, else play any
    dominant card (BM-8)."""
    doc = solve_json(capsys, "--hands", f"4J; 5J; {hand}; 6B 7J", "--trump", "R",
                     "--trick", "1B 3R")
    assert sorted(c["card"] for c in doc["cards"]) == legal


def test_bm4_three_players_the_taker_alone(capsys):
    """Three hands: side 0 is seat 0 alone (BM-4); 1R and 2R are masters: 10 + 8 + 6 + 4 + 2."""
    doc = solve_json(capsys, "--hands", "1R 2R; 3R 4R; 5R 6R", "--trump", "R")
    assert doc["values"] == [30] and doc["read_as"]["side"] == [0]
    assert doc["read_as"]["players"] == 3


@pytest.mark.parametrize("extra, total, made", [
    ([], 44, False),                      # 6 + 38 = 44 < 45 (BM-10)
    (["--bianco-mano"], 44, True),        # the bonus counts 5: 49 (BM-11)
])
def test_bm10_bm11_banked_espion_and_bonus_count_for_made(capsys, extra, total, made):
    doc = solve_json(capsys, "--hands", TWO_TRICKS, "--trump", "R", "--banked", "6", *extra)
    assert doc["total"] == total and doc["made"] is made and doc["values"] == [38]


def _values_by_the_referee(n_players: int, n: int, seed: int) -> list[int | None]:
    """The deals solved from the referee's reading of their records (hands at the first
    card, taker, partner, dominant, espion), not the command's: None when all passed."""
    from simulators.bianco_mano.engine import simulate_deals
    from simulators.bianco_mano.policies import make_policy

    config = R.BiancoManoConfig(n_players=n_players)
    batch = simulate_deals(config, make_policy("heuristic"), n, seed)
    out: list[int | None] = []
    for i in range(n):
        setup = referee.deal_setup(batch.record(i), config)
        if setup.taker < 0:
            out.append(None)
            continue
        masks = np.array([[sum(1 << c for c in h) for h in setup.hands]], np.uint32)
        team = [0 if s in (setup.taker, setup.partner) else 1 for s in range(n_players)]
        points = [referee.card_points([c], setup.dominant) for c in range(32)]
        v = dd.solve(masks, setup.taker, tricks.SUIT_MASK[setup.dominant], DUTIES,
                     card_points=points, team=team, direction=dd.CLOCKWISE)
        out.append(int(v[0]) + referee.card_points(setup.espion, setup.dominant))
    return out


@pytest.mark.parametrize("players", [3, 4, 5])
def test_deals_equal_the_solver_on_the_referees_deals(capsys, players):
    doc = solve_json(capsys, "--deals", "10", "--seed", "7", "--players", str(players))
    assert DEAL_KEYS <= set(doc) and doc["deals"] == 10 and doc["players"] == players
    expected = _values_by_the_referee(players, 10, 7)
    assert doc["values"] == expected
    assert doc["made"] == [None if v is None else v >= R.CONTRACT_POINTS for v in expected]
    assert doc["all_pass"] == expected.count(None) == doc["deals"] - doc["solved"]
    assert all((doc["takers"][i] is None) == (v is None) for i, v in enumerate(expected))


def test_deals_are_deterministic_and_all_pass_deals_are_null(capsys):
    doc = solve_json(capsys, "--deals", "12", "--seed", "2")
    assert solve_json(capsys, "--deals", "12", "--seed", "2")["values"] == doc["values"]
    passed = [i for i, t in enumerate(doc["takers"]) if t is None]
    assert [doc["values"][i] for i in passed] == [None] * len(passed) == \
        [doc["made"][i] for i in passed]
    solved = [v for v in doc["values"] if v is not None]
    assert doc["solved"] == len(solved) and doc["mean_value"] == pytest.approx(np.mean(solved),
                                                                              abs=1e-4)


def test_bm11_bonus_counts_in_deals_mode(capsys):
    """With the option on, a taker who announced makes it from 40 points (BM-11): deal 121
    of seed 1 is worth 42 double-dummy and is made."""
    doc = solve_json(capsys, "--deals", "122", "--seed", "1", "--bianco-mano")
    for v, b, m in zip(doc["values"], doc["bonus"], doc["made"], strict=True):
        if v is not None:
            assert m == (v + (5 if b else 0) >= 45)
    assert doc["bonus"][121] and doc["values"][121] == 42 and doc["made"][121]
    assert doc["options"]["bianco_mano"] is True


def test_text_output_says_what_all_pass_deals_become(capsys):
    assert main(["solve", "bianco-mano", "--deals", "12", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "passed by everybody" in out and "95% Wilson interval" in out and "deals/s" in out


@pytest.mark.parametrize("argv, message", [
    (["--hands", "1X 2B; 3R 1B; 4R 2J; 5R 3J", "--trump", "R"], "malformed card '1X'"),
    (["--hands", "1R 2B; 3R 1R; 4R 2J; 5R 3J", "--trump", "R"], "1R is in seat 0's hand and "
                                                                 "in seat 1's"),
    (["--hands", "4J; 5J; 2R 3J; 6B 7J", "--trump", "R", "--trick", "1B 3J"],
     "on the trick and in seat 2's hand"),
    (["--hands", "1R 2B; 3R; 4R 2J; 5R 3J", "--trump", "R"], "every seat holds the same"),
    (["--hands", TWO_TRICKS, "--trump", "R", "--trick", "8V"], "hold one card more"),
    (["--hands", "1R; 2R; 3R; 4R", "--trump", "R", "--trick", "5R 6R 7R 8R"],
     "at most 3 cards"),
    (["--hands", TWO_TRICKS, "--trump", "R", "--leader", "4"], "--leader must be a seat 0..3"),
    (["--hands", TWO_TRICKS, "--trump", "R", "--deals", "2"], "two modes"),
    (["--deals", "0"], "--deals must be at least 1"),
    (["--hands", TWO_TRICKS], "--hands needs --trump"),
    (["--hands", TWO_TRICKS, "--trump", "P"], "--trump: unknown family"),
    (["--hands", "1R; 2R", "--trump", "R"], "2 seat(s) given"),
    (["--hands", TWO_TRICKS, "--trump", "R", "--players", "5"], "--players 5 but --hands "
                                                                 "gives 4"),
    (["--hands", "1R 2R; 3R 4R; 5R 6R", "--trump", "R", "--side", "0,1"], "alone (BM-4)"),
    (["--hands", TWO_TRICKS, "--trump", "R", "--side", "0,1"], "0,2 and 1,3 (BM-5)"),
    (["--hands", "1R; 2R; 3R; 4R; 5R", "--trump", "R", "--side", "0"], "two seats"),
    (["--hands", TWO_TRICKS, "--trump", "R", "--banked", "38"], "--banked must be 0..37"),
    (["--hands", TWO_TRICKS, "--trump", "R", "--seed", "3"], "--seed goes with --deals"),
    (["--deals", "5", "--side", "0,2"], "--side describes a position"),
    (["--deals", "5", "--players", "6"], "invalid choice"),
    (["--deals", "5", "--sans-atout-must-beat"], "unrecognized arguments"),
    ([], "give --deals N"),
    # BM-8: each card on the trick was legal from its player's hand (the hand left plus it)
    (["--hands", "2B; 3R; 4R 2J; 5R 3J", "--trump", "J", "--trick", "1R 1B"],
     "--trick: seat 1 cannot have played 1B from 3R 1B: must follow R (legal: 3R) (BM-8)"),
    (["--hands", "2B; 4J; 4R 2J; 5R 3J", "--trump", "J", "--trick", "1R 1B"],
     "cannot follow R and must play a dominant (J)"),
    (["--deals", str(10**29)], "--deals must be at most"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, message):
    assert main(["solve", "bianco-mano", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tapisvert: error: "), captured.err
    assert message in lines[0] and captured.out == ""
