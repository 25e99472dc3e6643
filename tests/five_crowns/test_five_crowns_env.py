"""The Five Crowns step game (simulators/five_crowns/env.py): encoding, rulings, round trips,
cross-check against the engine.

Cards are kinds (``rules.py``): ``11 * suit + rank - 3``, hearts 0, diamonds 1, clubs 2, so
4H = 1, 5H = 2, 6H = 3, 7H = 4, KH = 10, QD = 20, JC = 30; jokers 55. Every expected value
was worked out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulators.core.stepcheck import check_round_trip, random_playthrough
from simulators.core.steps import CHANCE, TERMINAL
from simulators.five_crowns import rules as R
from simulators.five_crowns.crosscheck import check_steps
from simulators.five_crowns.engine import simulate_rounds
from simulators.five_crowns.env import (
    CHOOSE_OUT,
    DRAW_STOCK,
    GO_OUT,
    N_ACTIONS,
    STAY,
    TAKE_DISCARD,
    FiveCrownsSteps,
)
from simulators.five_crowns.game import GAME

ROUND_1 = R.FiveCrownsConfig(n_players=2, round_no=1, max_turns=10)


def dealt(config, cards, dealer=0):
    """A state with a fixed dealer and ``cards`` dealt by chance moves."""
    state = FiveCrownsSteps(config, dealer=dealer).new_initial_state()
    for kind in cards:
        assert state.current_player() == CHANCE
        state.apply_action(kind)
    return state


def test_action_encoding_and_sizes():
    assert (DRAW_STOCK, TAKE_DISCARD, GO_OUT, STAY, N_ACTIONS) == (56, 57, 58, 59, 60)
    state = FiveCrownsSteps().new_initial_state()
    assert [state.action_to_string(0, a) for a in (1, 55, 56, 57, 58, 59)] == [
        "discard 4H", "discard JK", "draw stock", "take discard", "go out", "stay"]
    info = FiveCrownsSteps(R.FiveCrownsConfig(n_players=4, max_turns=30)).info
    # seat, dealer, out (3n) + phase 5 + hand, top, pile (3 x 56) + known (56n)
    assert info.information_state_size == info.observation_size == 12 + 5 + 168 + 224
    # dealer 1 + 4 x 13 dealt + the pile's first card + 5 moves a turn, 30 x 4 + 4 turns
    assert info.max_game_length == 1 + 52 + 1 + 5 * 124
    assert (info.min_utility, info.max_utility, info.zero_sum) == (-700.0, 0.0, False)
    assert info.parameters == {"n_players": 4, "first_round": 1, "max_turns": 30,
                               "round_no": 11, "dealer": -1}


def test_chance_outcomes_are_the_unseen_kinds_by_their_count():
    state = FiveCrownsSteps(ROUND_1).new_initial_state()
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]  # the dealer
    state.apply_action(0)
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 56 and outcomes[0] == 2 / 116 and outcomes[55] == 6 / 116  # FC-1
    state.apply_action(55)
    assert dict(state.chance_outcomes())[55] == 5 / 115


def test_fc2_deal_from_the_dealer_left_fc3_draw_discard_fc5_going_out():
    state = dealt(ROUND_1, [1, 10, 2, 20, 3, 30, 4])
    assert state.hands == [[10, 20, 30], [1, 2, 3]]  # FC-2: one card at a time, seat 1 first
    assert state.pile == [4] and state.stock == 116 - 7
    assert (state.current_player(), state.legal_actions()) == (1, [DRAW_STOCK, TAKE_DISCARD])
    state.apply_action(TAKE_DISCARD)  # FC-3: the 7H
    assert state.legal_actions() == [1, 2, 3, 4]
    with pytest.raises(ValueError, match=r"action 10 \(discard KH\) is illegal for seat 1 at "
                                         r"the discard \(FC-3\)"):
        state.apply_action(10)
    state.apply_action(4)  # 4H 5H 6H melds as a run (FC-4)
    assert (state.current_player(), state.legal_actions()) == (1, [GO_OUT, STAY])
    state.apply_action(GO_OUT)
    assert state.current_player() == 0 and state.final()  # FC-5: one more turn
    state.apply_action(TAKE_DISCARD)
    state.apply_action(30)  # keeps 7H KH QD: no meld, no wild (3s wild)
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [-32.0, 0.0]  # FC-5: 7 + 13 + 12; the one out scores 0
    with pytest.raises(ValueError, match="the round is over"):
        state.apply_action(DRAW_STOCK)


def test_stock_draw_is_a_chance_move_and_max_turns_caps_the_round():
    state = dealt(R.FiveCrownsConfig(n_players=2, round_no=1, max_turns=10), [1, 10, 2, 20, 5,
                                                                             30, 40])
    for turn in range(20):
        assert state.current_player() == (1 + turn) % 2
        state.apply_action(DRAW_STOCK)
        assert state.current_player() == CHANCE
        state.apply_action(55 if turn == 0 else state.chance_outcomes()[0][0])
        held = state.hands[state.seat()]
        if turn == 0:
            assert 55 in held and state.drawn[1] == [55]
        state.apply_action(max(k for k in held if k != 55) if 55 in held else max(held))
        if state.phase() == CHOOSE_OUT:
            state.apply_action(STAY)
    assert state.is_terminal() and state.capped and state.t == 20  # 10 turns each, nobody out


def test_clone_and_history_round_trip_at_every_move():
    game = FiveCrownsSteps(R.FiveCrownsConfig(n_players=3, round_no=2, max_turns=12))
    generator = np.random.default_rng(np.random.SeedSequence(24).spawn(1)[0])
    final = random_playthrough(game, generator)
    state = game.new_initial_state()
    for action in final.history():
        check_round_trip(game, state)
        state.apply_action(action)
    check_round_trip(game, state)
    assert state.returns() == final.returns()


@pytest.mark.parametrize("config", GAME.conformance.configs, ids=lambda c: f"{c.n_players}p")
def test_random_play_never_sticks_and_keeps_the_cards(config):
    game = FiveCrownsSteps(config)
    reshuffled = 0
    for child in np.random.SeedSequence(2024).spawn(40):
        state = random_playthrough(game, np.random.default_rng(child))
        held = sum(len(h) for h in state.hands)
        assert held + len(state.pile) + state.stock == R.N_CARDS  # FC-1: every card somewhere
        assert all(len(h) == R.cards_dealt(config.round_no) for h in state.hands)
        returns = state.returns()
        assert all(r <= 0 for r in returns)
        assert state.capped or returns[state.out_seat] == 0.0  # FC-5
        reshuffled += "reshuffle" in state.events
    if config.n_players == 7:
        assert reshuffled > 0  # FC-6 is reached


@pytest.mark.parametrize("policy", ["random", "heuristic"])
@pytest.mark.parametrize("config", GAME.conformance.configs, ids=lambda c: f"{c.n_players}p")
def test_step_game_follows_the_engine_move_by_move(config, policy):
    batch = simulate_rounds(config, GAME.make_policy(policy), 40, seed=11, first_round_id=300)
    assert check_steps(batch) == 40


@pytest.mark.slow
@pytest.mark.parametrize("config", GAME.conformance.configs, ids=lambda c: f"{c.n_players}p")
def test_step_game_follows_the_engine_on_10000_rounds(config):
    batch = simulate_rounds(config, GAME.make_policy("random"), 10_000, seed=24)
    assert check_steps(batch) == 10_000
