"""Hand-computed tests of the Truc rules, one group per ruling TR-1..TR-6.

Every expected value was worked out by hand from RULINGS.md. Each hand-written
deal is replayed by the referee *and* played by the engine (one row, a
scripted policy), and both must give the hand-computed result. Cards are in
the project's notation (``7P`` sept de pique, ``10K`` dix de carreau). In
every deal below seat 0 deals, so seat 1 (the non-dealer) leads trick 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulators.truc import rules as R
from simulators.truc.crosscheck import engine_view, referee_view
from simulators.truc.engine import Dispatch, IllegalAction, play_batch, simulate_deals
from simulators.truc.referee import (
    MatchRecord,
    RuleViolation,
    can_propose,
    card_call,
    counter_stake,
    is_banco,
    proposal_stake,
    refusal_points,
    replay_deal,
    replay_match,
    resolve_deal,
    trick_result,
)
from simulators.truc.rules import (
    ABANDONED,
    ACCEPT,
    COUNTER,
    NULL,
    PLAYED,
    REFUSE,
    REFUSED,
    DealRecord,
    Proposal,
    TrucConfig,
    parse_card,
    parse_cards,
    parse_hand,
)

NON_DEALER, DEALER = 1, 0


def deck_of(non_dealer: str, dealer: str, *later_hands: str) -> tuple[int, ...]:
    """A deck dealing these hands (non-dealer's then dealer's, hand after hand), rest ascending."""
    top = []
    for text in (non_dealer, dealer, *later_hands):
        top += parse_cards(text)
    return tuple(top + [c for c in range(R.N_CARDS) if c not in top])


class Script:
    """A scripted policy for one hand-written deal, usable by the engine.

    ``order`` lists cards by priority: each player plays the first listed card
    still in his hand (the two hands are disjoint, so one list scripts both).
    ``proposals`` maps a card slot to (answer, reply); ``calls`` lists the
    card-call answers in order.
    """

    uses_noise = False

    def __init__(self, order="", proposals=None, calls=()):
        self.order = parse_cards(order) if order else []
        self.proposals = proposals or {}
        self.calls = list(calls)
        self._call_index = 0

    def call(self, obs):
        ask = self.calls[self._call_index] if self._call_index < len(self.calls) else False
        self._call_index += 1
        return np.full(len(obs.hand), ask)

    def propose(self, obs):
        return np.full(len(obs.hand), 2 * obs.trick + obs.position in self.proposals)

    def answer(self, obs):
        answer, reply = self.proposals[2 * obs.trick + obs.position]
        return np.full(len(obs.hand), reply if obs.countering else answer, dtype=np.int8)

    def play(self, obs):
        hand = int(obs.hand[0])
        return np.array([next(c for c in self.order if hand >> c & 1)], dtype=np.int8)


def both(record: DealRecord, order: str = "", config: TrucConfig | None = None):
    """Replay ``record`` with the referee and play it with the engine; they must agree."""
    config = config or TrucConfig()
    result = replay_deal(record, config)
    proposals = {p.slot: (p.answer, p.reply) for p in record.proposals}
    policy = Script(order, proposals, record.calls)
    arrays = play_batch(config, Dispatch(policy), np.array([record.deck], dtype=np.int8),
                        np.array([record.dealer]), np.array([record.scores]), None,
                        np.arange(1))
    assert engine_view(arrays, 0) == referee_view(result)
    assert tuple(int(c) for c in arrays.plays[0] if c >= 0) == record.plays
    return result


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


# ---------------------------------------------------------------- TR-1 deck and ranks


def test_tr1_rank_order_seven_highest_nine_lowest():
    order = ["7", "8", "A", "R", "D", "V", "10", "9"]
    for i, strong in enumerate(order):
        for weak in order[i + 1:]:
            assert trick_result(parse_card(strong + "K"), parse_card(weak + "P")) == 0
            assert trick_result(parse_card(weak + "P"), parse_card(strong + "K")) == 1


def test_tr1_suits_never_matter():
    for rank in ("7", "D", "9"):
        assert trick_result(parse_card(rank + "P"), parse_card(rank + "T")) is None


def test_tr1_notation_round_trip_and_aliases():
    for c in range(R.N_CARDS):
        assert parse_card(R.format_card(c)) == c
    assert parse_cards("KK QC JT TP") == parse_cards("RK DC VT 10P")
    assert R.format_cards(parse_hand("7 7 A")) == "7P 7C AP"
    assert R.format_cards(parse_hand("7 7P 9")) == "7C 7P 9P"


@pytest.mark.parametrize("text, size, message", [
    ("7 7", 3, "has 3 cards"), ("7P 7P A", 3, "twice"), ("7 7 7 7 7", 5, "only four"),
    ("7X 8 9", 3, "malformed"),
])
def test_tr1_bad_hands_are_named(text, size, message):
    with pytest.raises(ValueError, match=message):
        parse_hand(text, size=size)


def test_tr1_deck_must_hold_the_32_cards():
    deck = list(deck_of("7P AP 9P", "7C 8C 9C"))
    deck[5] = deck[0]
    with pytest.raises(RuleViolation, match="TR-1"):
        replay_deal(DealRecord(dealer=0, deck=tuple(deck), calls=(False,)))


# ---------------------------------------------------------------- TR-2 card call


def test_tr2_non_dealer_plays_his_first_hand():
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), calls=(False,),
                        plays=cards("7P 9C 8P 10C"))
    r = both(record, "7P 8P AP 9C 10C VC")
    assert (r.hand_no, r.winner, r.points, r.outcome) == (0, NON_DEALER, 1, PLAYED)


def test_tr2_dealer_may_play_after_the_non_dealer_asks():
    record = DealRecord(0, deck_of("9P 10P VP", "7C 8C AC"), calls=(True, False),
                        plays=cards("9P 7C 8C 10P"))
    r = both(record, "7C 8C AC 9P 10P VP")
    assert (r.hand_no, r.winner) == (0, DEALER)


def test_tr2_both_ask_new_hands_from_the_stock():
    deck = deck_of("9P 10P VP", "9C 10C VC", "7P 8P AP", "7C 8C AC")
    record = DealRecord(0, deck, calls=(True, True, False), plays=cards("7P 7C 8P 8C AP AC"))
    r = both(record, "7P 7C 8P 8C AP AC")
    assert r.hand_no == 1
    assert r.hands == (parse_cards("7P 8P AP"), parse_cards("7C 8C AC"))
    assert (r.outcome, r.winner, r.points) == (NULL, None, 0)  # three pourri tricks


def test_tr2_abandoned_deal_when_the_stock_runs_short():
    # five hands use 30 cards; after the fifth double ask 2 remain: abandoned, unscored
    record = DealRecord(0, deck_of("7P 8P AP", "7C 8C AC"), calls=(True,) * 10)
    r = both(record)
    assert (r.outcome, r.hand_no, r.winner, r.deltas) == (ABANDONED, None, None, (0, 0))
    assert card_call([True] * 10) == (None, 10)
    assert card_call([True] * 8 + [False]) == (4, 9)


def test_tr2_abandoned_deal_has_no_play_and_the_other_player_deals():
    abandoned = DealRecord(0, deck_of("7P 8P AP", "7C 8C AC"), calls=(True,) * 10)
    with pytest.raises(RuleViolation, match="TR-2"):
        replay_deal(DealRecord(0, abandoned.deck, calls=abandoned.calls, plays=cards("7P")))
    config = TrucConfig(target=2, manches_to_win=1)
    # after the abandoned deal seat 1 deals; seat 0 leads, doubles and wins 2 points
    doubled = DealRecord(1, deck_of("7P 8P AP", "9C 10C VC"), calls=(False,),
                         plays=cards("7P 9C 8P 10C"), proposals=(Proposal(0, ACCEPT),))
    result = replay_match(MatchRecord(config, 0, (abandoned, doubled)))
    assert [d.outcome for d in result.deals] == [ABANDONED, PLAYED]
    assert (result.manche_scores, result.winner) == ([(2, 0)], 0)
    same_dealer = DealRecord(0, doubled.deck, calls=(False,), plays=doubled.plays,
                             proposals=doubled.proposals)
    with pytest.raises(RuleViolation, match="expected 1"):
        replay_match(MatchRecord(config, 0, (abandoned, same_dealer)))


def test_tr2_missing_or_extra_calls_are_violations():
    with pytest.raises(RuleViolation, match="missing"):
        replay_deal(DealRecord(0, deck_of("7P 8P AP", "7C 8C AC"), calls=(True,)))
    with pytest.raises(RuleViolation, match="too many"):
        replay_deal(DealRecord(0, deck_of("7P 8P AP", "7C 8C AC"), calls=(False, False),
                               plays=cards("7P 7C 8P 8C AP AC")))


def test_tr2_engine_abandons_when_everybody_always_asks():
    batch = simulate_deals(TrucConfig(), Script(calls=[True] * 10), 1, seed=3)
    assert batch.table["outcome"].to_list() == ["abandoned"]
    assert batch.table["hands_dealt"].to_list() == [5]


# ---------------------------------------------------------------- TR-3 tricks and pourri


def test_tr3_deal_resolution_table():
    x, y = 1, 0
    assert resolve_deal([x]) == (False, None)
    assert resolve_deal([x, x]) == (True, x)
    assert resolve_deal([x, y]) == (False, None)
    assert resolve_deal([None, None]) == (False, None)
    assert resolve_deal([x, y, y]) == (True, y)
    assert resolve_deal([x, y, x]) == (True, x)


def test_tr3_first_trick_pourri_goes_to_the_winner_of_the_second():
    record = DealRecord(0, deck_of("7P AP 9P", "7C 8C 9C"), calls=(False,),
                        plays=cards("7P 7C AP 8C"))
    r = both(record, "7P 7C AP 8C 9P 9C")
    assert r.trick_winners == [None, DEALER]
    assert r.tricks[1][0] == NON_DEALER  # the leader of the pourri trick leads the next
    assert (r.winner, r.points, len(r.tricks)) == (DEALER, 1, 2)
    assert resolve_deal([None, DEALER]) == (True, DEALER)


def test_tr3_second_trick_pourri_goes_to_the_winner_of_the_first():
    record = DealRecord(0, deck_of("7P AP 9P", "8C AC 9C"), calls=(False,),
                        plays=cards("7P 8C AP AC"))
    r = both(record, "7P 8C AP AC 9P 9C")
    assert r.trick_winners == [NON_DEALER, None]
    assert (r.winner, len(r.tricks)) == (NON_DEALER, 2)


def test_tr3_first_two_pourri_go_to_the_winner_of_the_third():
    record = DealRecord(0, deck_of("7P AP 9P", "7C AC 8C"), calls=(False,),
                        plays=cards("7P 7C AP AC 9P 8C"))
    r = both(record, "7P 7C AP AC 9P 8C")
    assert r.trick_winners == [None, None, DEALER]
    assert [t[0] for t in r.tricks] == [NON_DEALER] * 3
    assert (r.winner, r.points) == (DEALER, 1)


def test_tr3_third_trick_pourri_goes_to_the_winner_of_the_first():
    record = DealRecord(0, deck_of("7P 9P AP", "8C 8K AC"), calls=(False,),
                        plays=cards("7P 8C 9P 8K AC AP"))
    r = both(record, "7P 8C 9P 8K AC AP")
    assert r.trick_winners == [NON_DEALER, DEALER, None]
    assert [t[0] for t in r.tricks] == [NON_DEALER, NON_DEALER, DEALER]
    assert (r.winner, r.points) == (NON_DEALER, 1)


def test_tr3_all_three_pourri_is_a_null_deal_even_doubled():
    record = DealRecord(0, deck_of("7P AP 9P", "7C AC 9C"), calls=(False,),
                        plays=cards("7P 7C AP AC 9P 9C"), proposals=(Proposal(0, ACCEPT),))
    r = both(record, "7P 7C AP AC 9P 9C")
    assert (r.outcome, r.winner, r.stake, r.deltas) == (NULL, None, 2, (0, 0))


def test_tr3_split_tricks_the_third_decides():
    record = DealRecord(0, deck_of("7P 9P AP", "8C 8K 9C"), calls=(False,),
                        plays=cards("7P 8C 9P 8K 9C AP"))
    r = both(record, "7P 8C 9P 8K 9C AP")
    assert r.trick_winners == [NON_DEALER, DEALER, NON_DEALER]
    assert r.winner == NON_DEALER


def test_tr3_no_duty_to_follow_any_card_may_be_played():
    # the dealer throws his 9 on an ace, then the split goes to the third trick
    record = DealRecord(0, deck_of("7P AP 9P", "8C AC 9C"), calls=(False,),
                        plays=cards("AP 9C 9P AC 8C 7P"))
    r = both(record, "AP 9C 9P AC 7P 8C")
    assert r.trick_winners == [NON_DEALER, DEALER, NON_DEALER]
    assert [t[0] for t in r.tricks] == [NON_DEALER, NON_DEALER, DEALER]
    assert r.winner == NON_DEALER


def test_tr3_deal_ends_at_two_tricks_and_cards_must_be_held():
    deck = deck_of("7P 8P AP", "9C 10C VC")
    with pytest.raises(RuleViolation, match="ended"):
        replay_deal(DealRecord(0, deck, calls=(False,), plays=cards("7P 9C 8P 10C AP VC")))
    with pytest.raises(RuleViolation, match="not in hand"):
        replay_deal(DealRecord(0, deck, calls=(False,), plays=cards("7C 9C")))
    with pytest.raises(RuleViolation, match="plays no card"):
        replay_deal(DealRecord(0, deck, calls=(False,), plays=cards("7P 9C 8P")))


def test_tr3_engine_rejects_a_card_not_in_hand():
    class Cheat(Script):
        def play(self, obs):
            return np.full(len(obs.hand), parse_card("7P"), dtype=np.int8)

    deck = np.array([deck_of("9P 10P VP", "9C 10C VC")], dtype=np.int8)
    with pytest.raises(IllegalAction, match="not in hand"):
        play_batch(TrucConfig(), Dispatch(Cheat()), deck, np.array([0]), np.zeros((1, 2)), None,
                   np.arange(1))


# ---------------------------------------------------------------- TR-4 doubling


def test_tr4_refusal_scores_the_stake_before_the_proposal():
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), calls=(False,),
                        proposals=(Proposal(0, REFUSE),))
    r = both(record)
    assert (r.outcome, r.winner, r.points, r.stake) == (REFUSED, NON_DEALER, 1, 1)
    assert refusal_points(4) == 4


def test_tr4_refusal_after_an_accepted_double():
    # the non-dealer doubles before his card (1 -> 2, accepted); the dealer doubles
    # before his (2 -> 4): refused, the dealer scores the stake before it, 2
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), calls=(False,),
                        plays=cards("7P"), proposals=(Proposal(0, ACCEPT), Proposal(1, REFUSE)))
    r = both(record, "7P 8P AP 9C 10C VC")
    assert (r.outcome, r.winner, r.points, r.deltas) == (REFUSED, DEALER, 2, (2, 0))
    assert [(p.proposer, p.stake_before, p.proposed) for p in r.proposals] == [
        (NON_DEALER, 1, 2), (DEALER, 2, 4)]


def test_tr4_doubles_multiply_and_the_winner_scores_the_stake():
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), calls=(False,),
                        plays=cards("7P 9C 8P 10C"),
                        proposals=(Proposal(0, ACCEPT), Proposal(1, ACCEPT), Proposal(2, ACCEPT)))
    r = both(record, "7P 8P AP 9C 10C VC")
    assert r.stakes == [2, 4, 8, 8]
    assert (r.winner, r.points) == (NON_DEALER, 8)


def test_tr4_at_most_one_proposal_per_card():
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), calls=(False,),
                        plays=cards("7P 9C 8P 10C"),
                        proposals=(Proposal(0, ACCEPT), Proposal(0, ACCEPT)))
    with pytest.raises(RuleViolation, match="TR-4"):
        replay_deal(record)


# ---------------------------------------------------------------- TR-5 banco


def test_tr5_proposal_stakes_and_bancos():
    assert proposal_stake(1, 0) == 2 and not is_banco(1, 2)
    assert proposal_stake(2, 9) == 3 and is_banco(2, 3)  # lacks 3 < 4: banco
    assert proposal_stake(1, 10) == 2 and not is_banco(1, 2)  # lacks exactly the double
    assert not can_propose(2, 10)  # the stake already takes him to 12
    assert not can_propose(1, 11)
    assert counter_stake(2, 3, answerer_score=0) == 12
    assert counter_stake(2, 3, answerer_score=9) is None  # lacks 3, not more than 3
    assert counter_stake(1, 2, answerer_score=0) is None  # not a banco


def test_tr5_banco_accepted_near_twelve():
    # non-dealer at 9: doubles 1 -> 2 (accepted), then banco 2 -> 3 before his next card
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), scores=(5, 9), calls=(False,),
                        plays=cards("7P 9C 8P 10C"),
                        proposals=(Proposal(0, ACCEPT), Proposal(2, ACCEPT)))
    r = both(record, "7P 8P AP 9C 10C VC")
    assert [(p.proposed, p.banco) for p in r.proposals] == [(2, False), (3, True)]
    assert (r.winner, r.points, r.deltas) == (NON_DEALER, 3, (0, 3))


def test_tr5_counter_banco_refused_scores_the_banco_to_the_counter():
    # non-dealer at 10 bancos 1 -> 2? no: lacks 2 = double, a plain double. At 11 he
    # cannot propose. Non-dealer at 9 after an accepted double: banco 2 -> 3; the dealer
    # at 0 counters with 12; the non-dealer refuses: the dealer scores 3
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), scores=(0, 9), calls=(False,),
                        plays=cards("7P 9C"),
                        proposals=(Proposal(0, ACCEPT), Proposal(2, COUNTER, REFUSE)))
    r = both(record, "7P 8P AP 9C 10C VC")
    p = r.proposals[1]
    assert (p.proposed, p.banco, p.counter, p.reply) == (3, True, 12, REFUSE)
    assert (r.outcome, r.winner, r.points, r.deltas) == (REFUSED, DEALER, 3, (3, 0))


def test_tr5_counter_banco_accepted_plays_for_what_the_counter_lacks():
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), scores=(4, 9), calls=(False,),
                        plays=cards("7P 9C 8P 10C"),
                        proposals=(Proposal(0, ACCEPT), Proposal(1, COUNTER, ACCEPT)))
    # slot 0: 1 -> 2; slot 1 (dealer at 4): 2 -> 4 is a plain double, so no counter allowed
    with pytest.raises(RuleViolation, match="may not counter"):
        replay_deal(record)
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), scores=(4, 9), calls=(False,),
                        plays=cards("7P 9C 8P 10C"),
                        proposals=(Proposal(0, ACCEPT), Proposal(2, COUNTER, ACCEPT)))
    r = both(record, "7P 8P AP 9C 10C VC")  # banco 2 -> 3; the dealer lacks 8: counter 8
    assert r.stakes == [2, 2, 8, 8]
    assert (r.winner, r.points, r.deltas) == (NON_DEALER, 8, (0, 8))


def test_tr5_no_counter_when_the_answerer_lacks_no_more_than_the_banco():
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), scores=(10, 9), calls=(False,),
                        plays=cards("7P 9C"),
                        proposals=(Proposal(0, ACCEPT), Proposal(2, COUNTER, ACCEPT)))
    with pytest.raises(RuleViolation, match="may not counter"):
        replay_deal(record)


def test_tr5_a_capped_player_cannot_propose():
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), scores=(0, 11), calls=(False,),
                        proposals=(Proposal(0, ACCEPT),))
    with pytest.raises(RuleViolation, match="TR-5"):
        replay_deal(record)


def test_tr5_counter_banco_variant_off():
    record = DealRecord(0, deck_of("7P 8P AP", "9C 10C VC"), scores=(0, 9), calls=(False,),
                        plays=cards("7P 9C"),
                        proposals=(Proposal(0, ACCEPT), Proposal(2, COUNTER, REFUSE)))
    with pytest.raises(RuleViolation, match="may not counter"):
        replay_deal(record, TrucConfig(counter_banco=False))


def test_tr5_engine_rejects_an_illegal_counter():
    class AlwaysCounter(Script):
        def answer(self, obs):
            return np.full(len(obs.hand), COUNTER, dtype=np.int8)

    policy = AlwaysCounter("7P 8P AP 9C 10C VC", {0: (COUNTER, ACCEPT)})
    deck = np.array([deck_of("7P 8P AP", "9C 10C VC")], dtype=np.int8)
    with pytest.raises(IllegalAction, match="counter-banco not allowed"):
        play_batch(TrucConfig(), Dispatch(policy), deck, np.array([0]), np.zeros((1, 2)), None,
                   np.arange(1))


# ---------------------------------------------------------------- TR-6 manches and matches


def _win_deal(dealer: int, scores, stake_proposals=()):
    """A deal the non-dealer wins two tricks to none."""
    return DealRecord(dealer, deck_of("7P 8P AP", "9C 10C VC"), scores=scores, calls=(False,),
                      plays=cards("7P 9C 8P 10C"), proposals=stake_proposals)


def test_tr6_manche_at_target_match_at_two_manches_dealer_alternates():
    config = TrucConfig(target=2, manches_to_win=2)
    # seat 1 wins deal 1 (seat 0 deals), seat 0 wins deal 2, seat 1 deal 3 -> 2-1: manche 1;
    # then seat 0 (non-dealer) doubles and wins 2: manche 2 -> 1 each; then seat 1 doubles
    deals = (
        _win_deal(0, (0, 0)), _win_deal(1, (0, 1)), _win_deal(0, (1, 1)),
        _win_deal(1, (0, 0), (Proposal(0, ACCEPT),)),
        _win_deal(0, (0, 0), (Proposal(0, ACCEPT),)),
    )
    result = replay_match(MatchRecord(config, 0, deals))
    assert result.manche_winners == [1, 0, 1]
    assert result.manche_scores == [(1, 2), (2, 0), (0, 2)]
    assert result.winner == 1


def test_tr6_wrong_scores_or_extra_deals_are_violations():
    config = TrucConfig(target=2, manches_to_win=1)
    with pytest.raises(RuleViolation, match="scores"):
        replay_match(MatchRecord(config, 0, (_win_deal(0, (0, 0)), _win_deal(1, (0, 0)))))
    deals = (_win_deal(0, (0, 0), (Proposal(0, ACCEPT),)), _win_deal(1, (0, 0)))
    with pytest.raises(RuleViolation, match="after the match was won"):
        replay_match(MatchRecord(config, 0, deals))


def test_config_validation_names_the_option():
    with pytest.raises(ValueError, match="target"):
        TrucConfig(target=1)
    with pytest.raises(ValueError, match="counter_banco"):
        TrucConfig(counter_banco=1)
    with pytest.raises(ValueError, match="dealer's score"):
        simulate_deals(TrucConfig(), Script(), 1, scores=(0, 12))
