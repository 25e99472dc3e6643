"""Truc's StepGame (simulators/truc/env.py): the rulings move by move, and the engine cross-check.

No optional extra needed: these tests drive the StepState directly.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulators.core.stepcheck import check_round_trip, random_playthrough
from simulators.core.steps import CHANCE, TERMINAL, make_step_game
from simulators.truc import rules as R
from simulators.truc.env import (
    ACCEPT,
    ASK,
    COUNTER,
    KEEP,
    PLAY,
    PROPOSE,
    REFUSE,
    TrucStepGame,
    check_against_engine,
    record_actions,
)
from simulators.truc.game import GAME

SEPT, HUIT, AS, ROI, DAME, VALET, DIX, NEUF = range(8)


def dealt(game: TrucStepGame, *hands) -> object:
    """A state after dealing the non-dealer's then the dealer's ranks (chance moves)."""
    state = game.new_initial_state()
    for hand in hands:
        for rank in hand:
            assert state.current_player() == CHANCE
            state.apply_action(rank)
    return state


def play(state, *actions) -> None:
    for action in actions:
        state.apply_action(action)


def test_tr2_card_call_non_dealer_then_dealer():
    state = dealt(TrucStepGame(), (SEPT, HUIT, AS), (ROI, DAME, VALET))
    assert state.current_player() == 0 and state.legal_actions() == [KEEP, ASK]  # dealer 1
    state.apply_action(ASK)
    assert state.current_player() == 1 and state.legal_actions() == [KEEP, ASK]
    state.apply_action(ASK)
    assert state.current_player() == CHANCE  # TR-2: both asked, six new cards


def test_tr2_keep_plays_the_hands_dealt_in_deck_order():
    state = dealt(TrucStepGame(), (SEPT, HUIT, AS), (ROI, DAME, VALET))
    state.apply_action(KEEP)
    assert state.current_player() == 0  # TR-3: the non-dealer leads
    assert state.legal_actions() == [PLAY + SEPT, PLAY + HUIT, PLAY + AS, PROPOSE]


def test_tr2_abandoned_when_the_stock_cannot_deal_six_more():
    game = TrucStepGame()
    state = game.new_initial_state()
    for _ in range(R.MAX_HANDS):  # 5 hands of 6 cards from 32: no 6th (TR-2)
        for _ in range(R.DEAL_SIZE):
            state.apply_action(state.chance_outcomes()[0][0])
        play(state, ASK, ASK)
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.outcome == R.ABANDONED
    assert len(state.history()) == 5 * 6 + 10 == game.info.max_game_length - 24


def test_tr3_higher_rank_wins_and_leads():
    state = dealt(TrucStepGame(R.TrucConfig(card_call=False)), (NEUF, SEPT, DIX), (HUIT, AS, ROI))
    play(state, PLAY + NEUF, PLAY + ROI)  # the Roi beats the Neuf: player 1 leads
    assert state.current_player() == 1
    play(state, PLAY + HUIT, PLAY + SEPT)  # the Sept wins the second trick: one each
    assert state.current_player() == 0
    play(state, PLAY + DIX, PLAY + AS)  # the As wins the third: player 1 holds two
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_tr3_all_pourri_is_a_null_deal():
    state = dealt(TrucStepGame(R.TrucConfig(card_call=False)), (SEPT, HUIT, AS), (SEPT, HUIT, AS))
    play(state, PLAY + SEPT, PLAY + SEPT, PLAY + HUIT, PLAY + HUIT)
    assert state.current_player() == 0  # TR-3: the leader of a pourri leads again
    play(state, PLAY + AS, PLAY + AS)
    assert state.is_terminal() and state.returns() == [0.0, 0.0] and state.outcome == R.NULL


def test_tr3_first_pourri_goes_to_the_next_tricks_winner():
    state = dealt(TrucStepGame(R.TrucConfig(card_call=False)), (SEPT, NEUF, AS), (SEPT, HUIT, AS))
    play(state, PLAY + SEPT, PLAY + SEPT, PLAY + NEUF, PLAY + HUIT)
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]  # two tricks, one card left


def test_tr4_refusal_scores_the_stake_before_the_proposal():
    state = dealt(TrucStepGame(R.TrucConfig(card_call=False)), (NEUF, DIX, VALET),
                  (SEPT, HUIT, AS))
    play(state, PROPOSE, ACCEPT)  # stake 2
    assert state.legal_actions() == [PLAY + VALET, PLAY + DIX, PLAY + NEUF]  # one per card
    play(state, PLAY + NEUF, PROPOSE)
    assert state.current_player() == 0 and state.legal_actions() == [REFUSE, ACCEPT]
    state.apply_action(REFUSE)
    assert state.is_terminal() and state.returns() == [-2.0, 2.0]


def test_tr5_banco_counter_banco_refused_scores_the_banco_stake():
    # player 1 (dealer) at 9: from stake 2 he can only propose 3 = 12 - 9, a banco;
    # player 0 at 0 lacks 12 > 3 and may counter with 12 (TR-5)
    game = TrucStepGame(R.TrucConfig(card_call=False), score_0=0, score_1=9)
    state = dealt(game, (NEUF, DIX, VALET), (SEPT, HUIT, AS))
    play(state, PROPOSE, ACCEPT, PLAY + NEUF, PROPOSE)
    assert state.legal_actions() == [REFUSE, ACCEPT, COUNTER]
    state.apply_action(COUNTER)
    assert state.current_player() == 1 and state.legal_actions() == [REFUSE, ACCEPT]
    state.apply_action(REFUSE)
    assert state.is_terminal() and state.returns() == [3.0, -3.0]


def test_tr5_counter_banco_accepted_plays_for_the_counter_stake():
    game = TrucStepGame(R.TrucConfig(card_call=False), score_0=0, score_1=9)
    state = dealt(game, (NEUF, DIX, VALET), (SEPT, HUIT, AS))
    play(state, PROPOSE, ACCEPT, PLAY + NEUF, PROPOSE, COUNTER, ACCEPT)
    assert PROPOSE not in state.legal_actions()  # TR-4: one proposal before this card
    play(state, PLAY + SEPT, PLAY + HUIT, PLAY + DIX)
    assert state.is_terminal() and state.returns() == [-12.0, 12.0]


def test_tr5_no_counter_banco_without_the_option():
    game = TrucStepGame(R.TrucConfig(card_call=False, counter_banco=False), score_1=9)
    state = dealt(game, (NEUF, DIX, VALET), (SEPT, HUIT, AS))
    play(state, PROPOSE, ACCEPT, PLAY + NEUF, PROPOSE)
    assert state.legal_actions() == [REFUSE, ACCEPT]


def test_tr5_no_proposal_once_the_stake_takes_the_player_to_the_target():
    game = TrucStepGame(R.TrucConfig(card_call=False), score_0=10)
    state = dealt(game, (NEUF, DIX, VALET), (SEPT, HUIT, AS))
    play(state, PROPOSE, ACCEPT)  # min(2, 12 - 10) = 2: now 10 + 2 reaches 12
    play(state, PLAY + NEUF, PROPOSE, ACCEPT, PLAY + SEPT)  # player 1 raises to 4
    assert state.current_player() == 1 and PROPOSE in state.legal_actions()
    play(state, PLAY + HUIT, PLAY + DIX)
    assert state.is_terminal() and state.returns() == [-4.0, 4.0]


def test_tr1_chance_deals_ranks_with_the_shuffles_law():
    game = TrucStepGame(R.TrucConfig(card_call=False), n_ranks=2, copies=3)
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    state.apply_action(SEPT)
    assert state.chance_outcomes() == [(0, 2 / 5), (1, 3 / 5)]
    with pytest.raises(ValueError, match="not a rank left"):
        state.apply_action(AS)  # the reduced deck has no As


def test_information_state_hides_the_other_hand_and_remembers_everything_seen():
    game = TrucStepGame(R.TrucConfig(card_call=False))
    a = dealt(game, (NEUF, DIX, VALET), (SEPT, HUIT, AS))
    b = dealt(game, (VALET, NEUF, DIX), (ROI, ROI, DAME))
    assert a.information_state_string(0) == b.information_state_string(0)
    assert (a.information_state_tensor(0) == b.information_state_tensor(0)).all()
    assert a.information_state_string(1) != b.information_state_string(1)
    play(a, PLAY + NEUF)
    assert a.information_state_string(1).endswith("0:9")
    assert a.information_state_tensor(0).shape == (game.info.information_state_size,)
    assert a.observation_tensor(1).shape == (game.info.observation_size,)


def test_clone_and_history_replay():
    game = TrucStepGame()
    state = dealt(game, (NEUF, DIX, VALET), (SEPT, HUIT, AS))
    copy = state.clone()
    play(state, KEEP, PROPOSE)
    assert copy.current_player() == 0 and len(copy.history()) == 6
    again = game.state_from_history(state.history())
    assert again.information_state_string(1) == state.information_state_string(1)


@pytest.mark.parametrize("options", [{}, {"card_call": False, "score_1": 9}, {"n_ranks": 3}])
def test_random_play_round_trips_through_history_and_clone(options):
    game = make_step_game(GAME, **options)
    for child in np.random.SeedSequence(35).spawn(20):
        final = random_playthrough(game, np.random.default_rng(child))
        state = game.new_initial_state()
        for action in final.history():
            check_round_trip(game, state)
            state.apply_action(action)
        check_round_trip(game, state)
        assert state.returns() == final.returns() and sum(final.returns()) == 0.0
    copy = final.clone()
    copy._hands[0].append(99)  # the clone's lists are its own
    assert 99 not in final._hands[0]


def test_a_move_after_the_end_is_refused():
    state = dealt(TrucStepGame(R.TrucConfig(card_call=False)), (NEUF, DIX, VALET),
                  (SEPT, HUIT, AS))
    play(state, PROPOSE, REFUSE)
    with pytest.raises(ValueError, match="the deal is over"):
        state.apply_action(PLAY + NEUF)


def test_illegal_action_is_refused_with_its_name():
    state = dealt(TrucStepGame(R.TrucConfig(card_call=False)), (NEUF, DIX, VALET),
                  (SEPT, HUIT, AS))
    with pytest.raises(ValueError, match=r"action 0 \(play 7\) is not legal for player 0"):
        state.apply_action(PLAY + SEPT)


@pytest.mark.parametrize("options, message", [
    ({"dealer": 2}, "dealer must be player 0 or 1"),
    ({"score_0": 12}, r"score_0 must be an integer in \[0, 11\]"),
    ({"n_ranks": 9}, r"n_ranks must be an integer in \[1, 8\]"),
    ({"n_ranks": 1}, "4 cards cannot deal two hands"),
    ({"colour": 1}, "unknown option"),
])
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        make_step_game(GAME, **options)


def test_game_spec_builds_the_step_game_with_rule_and_step_options():
    game = make_step_game(GAME, card_call=False, n_ranks=2, copies=3)
    assert isinstance(game, TrucStepGame) and not game.config.card_call
    assert game.info.parameters == {"target": 12, "manches_to_win": 2, "card_call": False,
                                    "counter_banco": True, "dealer": 1, "score_0": 0,
                                    "score_1": 0, "n_ranks": 2, "copies": 3}
    assert game.info.max_game_length == 6 + 24
    assert game.new_initial_state().current_player() == CHANCE
    assert TERMINAL == -4


def test_record_actions_of_an_engine_deal():
    record = R.DealRecord(dealer=0, deck=tuple(range(32)), calls=(True, True, False),
                          plays=(8, 15), proposals=(R.Proposal(1, R.ACCEPT),
                                                    R.Proposal(2, R.REFUSE)))
    # hand 0 = cards 0..5 (ranks 0 0 0 0 1 1), hand 1 = cards 6..11 (ranks 1 1 2 2 2 2)
    assert record_actions(record, R.TrucConfig()) == [
        0, 0, 0, 0, 1, 1, ASK, ASK, 1, 1, 2, 2, 2, 2, KEEP,
        PLAY + 2, PROPOSE, ACCEPT, PLAY + 3, PROPOSE, REFUSE]


# configurations x scores (non-dealer, dealer) covering every ruling: the card call on and
# off, counter-bancos (a proposer near the target), no counter-banco, a short target
CROSSCHECK = [
    (R.TrucConfig(), (0, 0)), (R.TrucConfig(), (9, 0)), (R.TrucConfig(), (0, 9)),
    (R.TrucConfig(), (10, 11)), (R.TrucConfig(card_call=False, target=6), (4, 1)),
    (R.TrucConfig(counter_banco=False, manches_to_win=1), (9, 2)),
]
EAGER = {"propose_probability": 0.7, "accept_probability": 0.8}  # stakes up to bancos


def _crosscheck(count: int) -> int:
    checked = 0
    for k, (config, scores) in enumerate(CROSSCHECK):
        for policy in (GAME.make_policy("random"), GAME.make_policy("random", **EAGER)):
            checked += check_against_engine(config, count, seed=100 + k, scores=scores,
                                            policy=policy)
    return checked


def test_crosscheck_against_the_engine():
    assert _crosscheck(150) == 150 * 2 * len(CROSSCHECK)


def test_crosscheck_exercises_counter_bancos_and_abandoned_deals():
    from simulators.truc.engine import simulate_deals

    config, scores = CROSSCHECK[1]
    batch = simulate_deals(config, GAME.make_policy("random", **EAGER), 150, 101, scores=scores)
    actions = [a for i in range(150) for a in record_actions(batch.record(i), config)]
    assert actions.count(COUNTER) > 0 and actions.count(PROPOSE) > 100


@pytest.mark.slow
def test_crosscheck_against_the_engine_large():
    assert _crosscheck(2_000) == 24_000  # issue 24: 0 differences on >= 10,000 deals
