"""``tapisvert solve manille``: double-dummy values of the engine's deals and of one position
(MA-5 duties, MA-6 count), and every bad input refused with one line and exit 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis.cli import main
from simulators.core import double_dummy as dd
from simulators.core import rulings, tricks
from simulators.manille import referee
from simulators.manille import rules as R

DEAL_KEYS = {"values", "made", "seconds", "deals_per_second", "deals", "seed", "value_is",
             "made_is", "mean_value", "made_rate", "made_low", "made_high", "solved"}
POSITION_KEYS = {"values", "cards", "best", "to_play", "seconds", "deals_per_second",
                 "value_is", "total", "made", "read_as"}


def solve_json(capsys, *argv) -> dict:
    assert main(["solve", "manille", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_position_document_keys_and_one_trick_left_by_hand(capsys):
    """Last trick, clubs trump, seat 0 leads 9P: seat 3 must beat with RP (MA-5, an opponent
    holds), seat 2, void, must trump with 7C (MA-5), seat 1 follows with AP: seat 2's 7C wins
    0 + 3 + 0 + 4 card points and the trick's 1 (MA-6) = 8 for side 0."""
    doc = solve_json(capsys, "--hands", "9P; AP; 7C; RP", "--trump", "C")
    assert POSITION_KEYS <= set(doc)
    assert doc["values"] == [8] and doc["to_play"] == 0 and doc["best"] == ["9P"]
    assert doc["cards"] == [{"card": "9P", "value": 8, "total": 8}]
    assert doc["read_as"]["hands"] == "9P ; AP ; 7C ; RP" and doc["read_as"]["trump"] == "C"


def test_ma5_sans_atout_no_duty_to_trump_and_the_ace_wins(capsys):
    """The same last trick in sans atout: 7C is a discard, seat 1's AP beats RP: side 0 gets
    nothing (MA-5, MA-6)."""
    assert solve_json(capsys, "--hands", "9P; AP; 7C; RP", "--trump", "SA")["values"] == [0]


def test_ma5_void_seat_must_trump_when_an_opponent_holds(capsys):
    """9P led by seat 0, RP by seat 3: seat 2 is void in pique and an opponent holds the
    trick, so he must trump (7C); 8K is not his to play (MA-5). In sans atout he may."""
    doc = solve_json(capsys, "--hands", "7K; AP 8C; 7C 8K; 9K", "--trump", "C",
                     "--trick", "9P RP")
    assert doc["to_play"] == 2 and [c["card"] for c in doc["cards"]] == ["7C"]
    doc = solve_json(capsys, "--hands", "7K; AP 8C; 7C 8K; 9K", "--trump", "SA",
                     "--trick", "9P RP")
    assert sorted(c["card"] for c in doc["cards"]) == ["7C", "8K"]


def test_ma5_partner_holds_no_duty_but_following(capsys):
    """10P led by seat 0, 8P by seat 3: seat 2, void in pique, may discard while his partner
    holds the trick (MA-5). Either way side 0 wins the first trick, 5 + 4 + 1 = 10 (MA-6), and
    seat 1 trumps (or overtrumps) the second: 10."""
    doc = solve_json(capsys, "--hands", "7K; AP 8C; 7C 8K; 9K", "--trump", "C",
                     "--trick", "10P 8P")
    assert sorted(c["card"] for c in doc["cards"]) == ["7C", "8K"]
    assert doc["values"] == [10] and sorted(doc["best"]) == ["7C", "8K"]


def test_position_values_match_the_solver(capsys):
    """The document's card values are the solver's on the same position, packed by hand."""
    doc = solve_json(capsys, "--hands", "9C; DK; VP 9K; RP 8P", "--trump", "K",
                     "--trick", "10P 7P", "--side", "1,3", "--leader", "1")
    bits = [sum(1 << R.parse_card(c) for c in h.split()) for h in
            ("9C", "DK", "VP 9K", "RP 8P")]
    trick = [R.parse_card("10P"), R.parse_card("7P"), -1, -1]
    pos = dd.position(np.array([bits], np.uint32), 1, tricks.SUIT_MASK[2], R.MA5_DUTIES,
                      card_points=tricks.card_points(R.POINTS), team=[1, 0, 1, 0],
                      trick_points=1, direction=dd.COUNTER_CLOCKWISE, trick=[trick])
    per_card = dd.card_values(pos)[0]
    assert doc["to_play"] == 3 and doc["values"] == [int(dd.solve(pos)[0])] == [13]
    assert {c["card"]: c["value"] for c in doc["cards"]} == {
        R.format_card(c): int(per_card[c]) for c in range(32) if per_card[c] >= 0}


@pytest.mark.parametrize("banked, made", [(17, False), (18, True)])
def test_ma6_made_is_above_34(capsys, banked, made):
    """17 from here on: 17 + 17 = 34 is a draw, nobody scores; 18 + 17 = 35 makes (MA-6)."""
    doc = solve_json(capsys, "--hands", "10P AP; RP DP; VP 9P; 8P 7P", "--trump", "P",
                     "--banked", str(banked))
    assert doc["total"] == banked + 17 and doc["made"] is made


def test_side_flag_counts_the_other_partnership(capsys):
    """Counter-clockwise: after seat 0's 10P, seat 3 plays (MA-5). With --side 1,3 the value
    is seats 1 and 3's points: seats 0 and 2 hold both masters, so nothing."""
    doc = solve_json(capsys, "--hands", "AP; RP DP; VP 9P; 8P 7P", "--trump", "P",
                     "--trick", "10P", "--side", "1,3")
    assert doc["to_play"] == 3 and doc["to_play_side"] == 0 and doc["values"] == [0]


def _positions_by_the_referee(n: int, seed: int) -> tuple[list[int], list[int]]:
    """The deals' values solved from the referee's reading of their records (deal, trump,
    leader, taking team), not the command's."""
    from simulators.manille.engine import simulate_deals
    from simulators.manille.policies import make_policy

    batch = simulate_deals(R.ManilleConfig(), make_policy("heuristic"), n, seed)
    values, played = [], []
    for i in range(n):
        record = batch.record(i)
        hands = referee.deal_hands(record.dealer, rulings.cut(record.deck, record.cut))
        trump = referee.read_bidding(record, R.ManilleConfig()).trump
        masks = np.array([[sum(1 << c for c in h) for h in hands]], np.uint32)
        team = [referee.team_of(s) != referee.team_of(record.dealer) for s in range(4)]
        v = dd.solve(masks, (record.dealer - 1) % 4, tricks.SUIT_MASK[trump],
                     R.duties(trump), card_points=tricks.card_points(R.POINTS),
                     team=np.array(team, np.int64), trick_points=1,
                     direction=dd.COUNTER_CLOCKWISE)
        values.append(int(v[0]))
        played.append(int(batch.arrays.taking_card_points[i] + batch.arrays.taking_tricks[i]))
    return values, played


def test_deals_equal_the_solver_on_the_referees_deals_and_are_deterministic(capsys):
    doc = solve_json(capsys, "--deals", "12", "--seed", "5")
    assert DEAL_KEYS <= set(doc) and doc["deals"] == 12 and doc["seed"] == 5
    values, played = _positions_by_the_referee(12, 5)
    assert doc["values"] == values and doc["played"] == played
    assert doc["made"] == [v > R.THRESHOLD for v in values]
    assert doc["mean_value"] == pytest.approx(np.mean(values), abs=1e-4)
    assert doc["made_low"] <= doc["made_rate"] <= doc["made_high"]
    again = solve_json(capsys, "--deals", "12", "--seed", "5")
    assert again["values"] == doc["values"] and again["made"] == doc["made"]
    assert solve_json(capsys, "--deals", "12", "--seed", "6")["values"] != doc["values"]


def test_deals_are_the_simulate_commands_deals(capsys):
    """Deal i is the deal ``tapisvert simulate`` plays: the same trump and played points."""
    from simulators.manille.game import GAME, make_policy

    doc = solve_json(capsys, "--deals", "6", "--seed", "3")
    table = GAME.units[0].play(R.ManilleConfig(), make_policy("heuristic"), 0, 6, 3)["deals"]
    dealer = table["dealer"].to_numpy()
    taking = np.where(dealer % 2 == 0, table["team0_points"].to_numpy(),
                      table["team1_points"].to_numpy())
    assert doc["played"] == taking.tolist() and doc["dealers"] == dealer.tolist()


def test_text_output_summarises(capsys):
    assert main(["solve", "manille", "--deals", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "mean value" in out and "95% Wilson interval" in out and "deals/s" in out
    assert main(["solve", "manille", "--hands", "9P; AP; 7C; RP", "--trump", "C"]) == 0
    out = capsys.readouterr().out
    assert "value 8" in out and "9P" in out and "best" in out


HANDS = "10P AP; RP DP; VP 9P; 8P 7P"


@pytest.mark.parametrize("argv, message", [
    (["--hands", "10X AP; RP DP; VP 9P; 8P 7P", "--trump", "P"], "malformed card '10X'"),
    (["--hands", "10P AP; RP 10P; VP 9P; 8P 7P", "--trump", "P"], "10P is in seat 0's hand "
                                                                   "and in seat 1's"),
    (["--hands", "10P 10P; RP DP; VP 9P; 8P 7P", "--trump", "P"], "twice in seat 0's hand"),
    (["--hands", "AP; RP DP; VP 9P; 8P 7P", "--trump", "P", "--trick", "RP"],
     "on the trick and in seat 1's hand"),
    (["--hands", "AP; RP DP; VP 9P; 8P 7P", "--trump", "P", "--trick", "10P 10P"],
     "on the trick twice"),
    (["--hands", "10P AP; RP; VP 9P; 8P 7P", "--trump", "P"], "every seat holds the same"),
    (["--hands", HANDS, "--trump", "P", "--trick", "10C"], "hold one card more"),
    (["--hands", "AP; RP; VP; 8P", "--trump", "P", "--trick", "10P DP 9P 7P"],
     "at most 3 cards"),
    (["--hands", HANDS, "--trump", "P", "--leader", "4"], "--leader must be a seat 0..3"),
    (["--hands", HANDS, "--trump", "P", "--leader", "-1"], "--leader must be a seat 0..3"),
    (["--hands", HANDS, "--trump", "P", "--deals", "3"], "two modes"),
    (["--deals", "0"], "--deals must be at least 1"),
    (["--deals", "-2"], "--deals must be at least 1"),
    (["--hands", HANDS], "--hands needs --trump"),
    (["--hands", HANDS, "--trump", "X"], "--trump: unknown trump"),
    (["--hands", "10P AP; RP DP; VP 9P", "--trump", "P"], "3 seat(s) given"),
    (["--hands", HANDS, "--trump", "P", "--side", "0,1"], "partnership"),
    (["--hands", HANDS, "--trump", "P", "--side", "0,7"], "seats are 0..3"),
    (["--hands", HANDS, "--trump", "P", "--banked", "52"], "--banked must be 0..51"),
    (["--hands", HANDS, "--trump", "P", "--banked", "-1"], "--banked must be"),
    (["--hands", HANDS, "--trump", "P", "--seed", "1"], "--seed goes with --deals"),
    (["--deals", "5", "--trump", "P"], "--trump describes a position"),
    (["--deals", "5", "--seed", "-1"], "--seed must be a non-negative"),
    ([], "give --deals N"),
    (["--hands", ";;;", "--trump", "P"], "no card is left"),
    (["--deals", "many"], "--deals must be an integer, got 'many'"),
    (["--deals", "5", "--players", "4"], "unrecognized arguments"),
    # MA-5: each card on the trick was legal from its player's hand (the hand left plus it)
    (["--hands", "AP; RP DP; VP 9P; 7C", "--trump", "K", "--trick", "10C 8P"],
     "--trick: seat 3 cannot have played 8P from 8P 7C: must follow C (legal: 7C) (MA-5)"),
    (["--hands", "AP; RP DP; VP 9P; 7K", "--trump", "K", "--trick", "10C 8P"],
     "cannot follow C and must trump K"),
    (["--deals", str(10**29)], "--deals must be at most"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, message):
    assert main(["solve", "manille", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tapisvert: error: "), captured.err
    assert message in lines[0] and captured.out == ""
