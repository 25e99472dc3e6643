"""Five Crowns odds (issue 26): take the discard or draw blind, exact chances beside the
simulated ones, the notebook's question answered by the command's function."""

from __future__ import annotations

import json

import pytest

from analysis.experiment import Experiment
from analysis.odds import odds
from simulators.five_crowns import referee
from simulators.five_crowns import rules as R
from simulators.five_crowns.odds import (
    EXACT_LABEL,
    KIND_COPIES,
    OddsQuestion,
    exact_out_chance,
    play_odds,
    read_question,
    throw_choices,
)
from tests.cli_run import run_cli


def brute_force_out_chance(round_no: int, hand: str, discard: str | None, seen: str = ""
                           ) -> dict[str, float | None]:
    """Every unseen card drawn, every discard tried, every arrangement checked by the
    referee's plain-Python solver (no meld kernel)."""
    wild = R.wild_rank(round_no)
    mine, seen_kinds = R.parse_cards(hand), R.parse_cards(seen)
    top = R.parse_cards(discard) if discard else []
    counts = KIND_COPIES.copy()
    for k in mine + seen_kinds + top:
        counts[k] -= 1

    def out_with(extra: int) -> bool:
        held = [*mine, extra]
        return any(referee.melds_fully(held[:i] + held[i + 1:], wild) for i in range(len(held)))

    draw = sum(int(counts[k]) for k in range(R.N_KINDS) if counts[k] and out_with(k))
    return {"take": float(out_with(top[0])) if top else None,
            "draw": draw / int(counts.sum())}


@pytest.mark.parametrize("round_no, hand, discard, seen", [
    (1, "4H 5H 7S", "6H", ""),          # the discard completes a run: take goes out
    (1, "4H 5H 7S", "9C", "6H 6H"),     # both 6H seen: only a wild or 3 drawn helps
    (1, "KD KS 8C", None, ""),          # top unknown: a king or a wild draws out
    (2, "5C 5D 9H 10H", "JH", "4S"),
    (1, "JK 4S 9D", "3C", "JK JK"),
])
def test_exact_chance_of_going_out_this_turn_matches_brute_force(round_no, hand, discard, seen):
    """FC-3 (going out: every card melds after the discard), FC-4 (books, runs, wilds),
    FC-1 (two sets, six jokers): the unseen copies each card is weighed by."""
    question = OddsQuestion(round=round_no, hand=hand, discard=discard, seen=seen)
    exact = exact_out_chance(read_question(question, 3))
    assert exact == pytest.approx(brute_force_out_chance(round_no, hand, discard, seen))


def test_simulated_chance_matches_the_exact_one():
    question = OddsQuestion(round=1, hand="4H 5H 7S", discard="9C")
    exact = exact_out_chance(read_question(question, 4))
    assert 0.05 < exact["draw"] < 0.5 and exact["take"] == 0.0
    table = odds(Experiment.create("five-crowns", size=6_000, seed=8), question)
    row = table.filter((table["decision"] == "draw")
                       & (table["metric"] == "P(out this turn)")).row(0, named=True)
    assert row["low"] <= exact["draw"] <= row["high"] and row["n"] == 6_000
    shown = table.filter(table["metric"] == EXACT_LABEL)
    assert shown["value"].to_list() == [exact["take"], exact["draw"]]
    paired = table.filter(table["decision"] == "take - draw")
    assert set(paired["metric"]) == {"P(out this turn)", "P(out before every opponent)",
                                     "my penalty at the round's end"}


def test_deals_hold_the_situation_and_pair_the_decisions():
    """FC-2 (my cards dealt to the dealer's left, the top turned), FC-5 (out first scores 0)."""
    question = OddsQuestion(round=3, hand="JH JD 8C 9C 4H", discard="10C", seen="KS KS QD")
    frame = play_odds(R.FiveCrownsConfig(n_players=3), Experiment.create(
        "five-crowns").policies[0], question, 400, 3)
    take, draw = (frame.filter(frame["decision"] == d) for d in ("take", "draw"))
    assert take["deal_id"].to_list() == draw["deal_id"].to_list() == list(range(400))
    assert (take["out_first"] | ~take["out_this_turn"]).all()  # out now is out first
    assert (take["penalty"] >= 0).all() and (take.filter(take["out_first"])["penalty"] == 0).all()
    # chunks add up: deals 100..399 are the same deals whatever the batch
    again = play_odds(R.FiveCrownsConfig(n_players=3), Experiment.create(
        "five-crowns").policies[0], question, 300, 3, first=100)
    assert again.filter(again["decision"] == "take").equals(take[100:])


@pytest.mark.parametrize("question, words", [
    ({"round": 5, "hand": "JH JD 8C"}, "round 5 deals 7 cards"),
    ({"round": 12, "hand": "JH"}, "round must be 1..11"),
    ({"round": 1, "hand": "JH JD 8C", "discard": "JH JD"}, "one card"),
    ({"round": 1, "hand": "JH JH 8C", "discard": "JH"}, "the deck has 2"),
    ({"round": 1, "hand": "JH XX 8C"}, "malformed card"),
])
def test_bad_questions_are_refused(question, words):
    with pytest.raises(ValueError, match=words):
        read_question(OddsQuestion(**question), 4)


def test_the_issue_command_gives_paired_rows_as_json(tmp_path):
    done = run_cli(["odds", "five-crowns", "--round", "5", "--hand", "JH JD 8C 9C KS 4H 3C",
                    "--discard", "10C", "--json", "--rounds", "4000"], tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    paired = [r for r in doc["rows"] if r["decision"] == "take - draw"]
    assert paired and all(r["n"] == 4000 and r["low"] <= r["value"] <= r["high"]
                          for r in paired)
    assert doc["experiment"]["question"]["discard"] == "10C"


def test_every_unseen_count_is_what_the_deck_holds():
    s = read_question(OddsQuestion(round=2, hand="JK 3H 3H 4S", discard="JK", seen="5D"), 2)
    unseen = s.unseen()
    assert unseen[R.JOKER] == 4 and unseen[R.parse_card("3H")] == 0
    assert unseen.sum() == R.N_CARDS - 6
    assert unseen[R.parse_card("5D")] == 1 and unseen[R.parse_card("4S")] == 1


def test_the_throws_that_matter_are_the_least_penalty_discards_and_are_played():
    question = OddsQuestion(round=5, hand="JH JD 8C 9C KS 4H 3C", discard="10C")
    situation = read_question(question, 4)
    wild = situation.wild
    held = [*situation.hand, situation.top]
    left = {k: referee.min_penalty([c for j, c in enumerate(held) if j != held.index(k)], wild)
            for k in set(held)}
    throws = throw_choices(situation)
    assert [left[k] for k in throws] == sorted(left.values())[:3]
    frame = play_odds(R.FiveCrownsConfig(), Experiment.create("five-crowns").policies[0],
                      question, 300, 4)
    decisions = frame["decision"].unique(maintain_order=True).to_list()
    assert decisions == ["take", "draw"] + [f"take, throw {R.format_card(k)}" for k in throws]
    take = frame.filter(frame["decision"] == "take").drop("decision")
    best = frame.filter(frame["decision"] == decisions[2]).drop("decision")
    worse = frame.filter(frame["decision"] == decisions[3]).drop("decision")
    assert take.equals(best)  # the heuristic throws the best card: the same rounds
    assert not take.equals(worse)  # another throw is another round
