"""The Bango step game (simulators/bango/env.py): encoding, rulings, round trips, cross-check
against the engine.

Cards are kinds (``rules.py``): ``11 * colour + value - 1``, blue 0, violet 1, yellow 2, red 3,
black 4, so 1B = 0, 2B = 1, 3B = 2, 4B = 3, 5B = 4, 6B = 5, 2V = 12, 3V = 13, 4V = 14,
5V = 15, 6V = 16, 7V = 17, 8V = 18, 3Y = 24, 5R = 37, 6R = 38, 9R = 41, 1R = 33, 4K = 47.
Every expected value was worked out by hand.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from simulators.bango import referee
from simulators.bango import rules as R
from simulators.bango.crosscheck import check_steps
from simulators.bango.engine import simulate_games
from simulators.bango.env import (
    BANGO,
    CLOSE,
    DONE,
    DRAW,
    LAY,
    LAY_ASK,
    N_ACTIONS,
    NO_LAY,
    PASS,
    PLACE,
    SPAN,
    SPANNING,
    STOP,
    TAKE,
    BangoSteps,
    span_action,
)
from simulators.bango.game import GAME
from simulators.core.stepcheck import check_round_trip, random_playthrough
from simulators.core.steps import CHANCE, TERMINAL, make_step_game

TWO = R.BangoConfig(n_players=2)


def play(state, *actions):
    for action in actions:
        state.apply_action(action)
    return state


def dealt(config=TWO, cards=(4, 15)):
    """Seat 0 plays first; ``cards`` dealt to seats 0, 1 by chance moves."""
    return play(BangoSteps(config, first_player=0).new_initial_state(), *cards)


def laying(hand, sequences=(), config=TWO):
    """A hand-built table: seat 0 holds ``hand`` and ``sequences`` and is asked to lay."""
    state = dealt(config)
    state.table.hands[0] = Counter(hand)
    state.table.sequences[0] = [list(s) for s in sequences]
    state.phase, state.lay_seat = LAY_ASK, 0
    return play(state, LAY)


def test_action_encoding_and_sizes():
    assert (TAKE, BANGO, PLACE, SPAN, PASS, DRAW, STOP, DONE, LAY, NO_LAY, CLOSE, N_ACTIONS) == \
        (0, 55, 110, 165, 220, 221, 222, 223, 224, 225, 226, 227)
    # intervals lo < hi, lo-major: (1, 2) .. (1, 11) are 10, so (2, 3) is the 11th
    assert (span_action(1, 2), span_action(2, 3), span_action(4, 8), span_action(10, 11)) == \
        (165, 175, 195, 219)
    with pytest.raises(ValueError, match=r"no sequence spans 3\.\.3"):
        span_action(3, 3)
    state = BangoSteps(TWO).new_initial_state()
    assert [state.action_to_string(0, a) for a in (4, 59, 147, 195, 220, 226)] == [
        "take 5B", "bango with 5B", "place 5R", "span 4-8", "pass", "close"]
    info = BangoSteps(TWO).info
    assert info.observation_size == info.information_state_size == 106 * 2 + 292
    # 72 stock cards (99 - 25 removed - 2 dealt): 1 + 2 + 11 + 72 + 3 * 72 + 6 * 72 + 88 + 10
    assert info.max_game_length == 832
    assert (info.min_utility, info.max_utility, info.zero_sum) == (-99.0, 66.0, False)
    assert info.parameters == {"n_players": 2, "removed": None, "free_discard": False,
                               "hand_limit": 5, "first_player": -1}
    assert make_step_game(GAME, n_players=3, first_player=1).info.parameters["first_player"] == 1
    with pytest.raises(ValueError, match="first_player must be a seat 0..1 or -1"):
        BangoSteps(TWO, first_player=2)


def test_bg2_deal_puts_black_cards_back_and_the_reveal_law_knows_them():
    state = BangoSteps(TWO).new_initial_state()
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]  # BG-2: the first player
    state.apply_action(1)
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 55 and outcomes[0] == 2 / 99 and outcomes[47] == 1 / 99  # BG-1
    state.apply_action(47)  # 4K to seat 0: put back, seat 0 is dealt again (BG-2)
    assert state.back == [47] and state.table.hands[0].total() == 0
    assert 47 not in dict(state.chance_outcomes())  # coming again is no move
    play(state, 4, 39)  # 5B to seat 0, 7R to seat 1
    assert state.table.hands == [Counter({4: 1}), Counter({39: 1})]
    assert state.current_player() == CHANCE and state.stock == 72
    outcomes = dict(state.chance_outcomes())
    # 4K surely in the 72-card stock; the other 71 a sample of the 96 unseen cards
    assert outcomes[47] == 1 / 72 and outcomes[4] == 71 / 72 / 96
    assert outcomes[0] == 71 / 72 * 2 / 96 and 39 in outcomes
    assert abs(sum(outcomes.values()) - 1.0) < 1e-12
    assert state.information_state_string(0) == (
        "seat 0 | dealt 5B | first 1; 0 is dealt 4K, put back; 0 is dealt a card; "
        "1 is dealt a card")


def test_bg3_bg5_bg4_draw_bango_explosion_spoils_and_destruction():
    state = dealt()  # seat 0 holds 5B, seat 1 5V
    state.apply_action(24)  # 3Y: no 3 in hand, no bango asked
    assert (state.current_player(), state.legal_actions()) == (0, [DRAW, STOP])
    with pytest.raises(ValueError, match=r"action 226 \(close\) is illegal for seat 0 at the "
                                         r"draw on \(BG-3\); legal: \[221, 222\]"):
        state.apply_action(CLOSE)
    play(state, DRAW, 37)  # 5R: he holds 5B (BG-5)
    assert state.legal_actions() == [BANGO + 4, PASS] and not state.exploded
    play(state, PASS, DRAW, 2)  # 3B explodes on 3Y (BG-3); seat 0 holds no 3
    # BG-4: seat 0 took 3B; seat 1 picks 3Y or 5R, or destroys 5R with 5V (BG-5)
    assert state.table.hands[0] == Counter({4: 1, 2: 1}) and state.table.explosions == [1, 0]
    assert (state.current_player(), state.legal_actions()) == (1, [TAKE + 24, TAKE + 37,
                                                                   BANGO + 15])
    state.apply_action(BANGO + 15)
    # the active player may destroy 3Y with the exploding 3B, or keep it
    assert (state.current_player(), state.legal_actions()) == (0, [TAKE + 24, BANGO + 2])
    state.apply_action(BANGO + 2)
    assert state.table.common == [37, 15, 24, 2] and state.table.bangos == [1, 1]
    assert state.table.hands == [Counter({4: 1}), Counter()]
    assert state.legal_actions() == [LAY, NO_LAY]  # one card: the lay is a choice (BG-6)
    state.apply_action(NO_LAY)
    assert (state.t, state.current_player(), state.stock) == (1, CHANCE, 69)


def test_bg3_take_at_least_one_card_in_ascending_order():
    state = play(dealt(), 1, DRAW, 41, DRAW, 17, STOP)  # 2B, 9R, 7V
    assert state.legal_actions() == [TAKE + 1, TAKE + 17, TAKE + 41]  # no DONE before one
    state.apply_action(TAKE + 17)
    assert state.legal_actions() == [TAKE + 41, DONE]
    state.apply_action(TAKE + 41)  # nothing left above 9R: the take ends
    assert state.table.hands[0] == Counter({4: 1, 17: 1, 41: 1}) and state.table.common == [1]
    assert state.table.centre == [] and state.legal_actions() == [LAY, NO_LAY]
    assert state.known[0] == Counter({17: 1, 41: 1})  # taken face up; 5B was dealt unseen


def test_bg6_spans_keep_the_lay_completable():
    # 4B 5B 6R onto 7V 8V: 4..8 places all; 6..8 leaves 4 5, which must open 4-5; 7..8
    # leaves 4 5 6, which must open 4-6; 5..8 leaves 4B, which fits 5..8: never legal
    state = laying([3, 4, 38], [[17, 18]])
    assert state.legal_actions() == [span_action(4, 8), span_action(6, 8), span_action(7, 8)]
    state.apply_action(span_action(7, 8))
    assert state.slot == 1 and state.legal_actions() == [span_action(4, 6)]  # no CLOSE
    state.apply_action(span_action(4, 6))
    assert state.legal_actions() == [CLOSE]
    state.apply_action(CLOSE)
    assert state.table.sequences[0] == [[17, 18], [3, 4, 38]] and state.table.personal[0] == []
    # 7V 8V: 2 + 2 (violet); 4B 5B 6R: 3 + 2 (blue)
    assert state.scores()[0] == 9


def test_bg6_compulsory_placement_and_free_discard():
    # 3B 4B 6R, no sequence: 3-4 must open (a 3 and a 4 discarded could open one)
    state = laying([2, 3, 38])
    assert state.legal_actions() == [span_action(3, 4)]
    free = laying([2, 3, 38], config=R.BangoConfig(n_players=2, free_discard=True))
    assert free.legal_actions() == [span_action(3, 4), CLOSE]
    play(state, span_action(3, 4), CLOSE)
    assert state.table.personal[0] == [38] and state.scores()[0] == 2 + 2 - 1  # BG-8


def test_bg6_colour_asked_only_with_a_choice_and_bg8_bonus():
    state = laying([4, 37, 5])  # 5B 5R 6B
    # discarding all three leaves a 5 and a 6 that could open a sequence: no CLOSE (BG-6)
    assert state.legal_actions() == [span_action(5, 6)]
    state.apply_action(span_action(5, 6))
    assert state.legal_actions() == [PLACE + 4, PLACE + 37]  # two fives; 6B goes by itself
    other = state.clone()
    play(state, PLACE + 37, CLOSE)
    play(other, PLACE + 4, CLOSE)
    assert state.table.sequences[0] == [[37, 5]] and other.table.sequences[0] == [[4, 5]]
    # 5R 6B: 2, colours tie at one, no bonus; 5B 6B: 2 + 2; each discards one five
    assert (state.scores()[0], other.scores()[0]) == (1, 3)


def test_bg6_hand_limit_forces_the_lay_unasked():
    config = R.BangoConfig(n_players=2, hand_limit=3)
    state = play(dealt(config), 1, DRAW, 13, DRAW, 14, STOP, TAKE + 1, TAKE + 13, TAKE + 14)
    # 5B 2B 3V 4V: four cards > 3, the arrangement starts at once; 2..5 places all, 2..3
    # and 4..5 open two; 2..4 or 3..5 leaves a card at an end, 3..4 two
    assert state.phase == SPANNING and state.current_player() == 0
    assert state.legal_actions() == [span_action(2, 3), span_action(2, 5), span_action(4, 5)]


def test_bg7_last_card_forced_stop_final_lays_and_returns():
    config = R.BangoConfig(n_players=2, removed=86)  # 99 - 86 - 2 = 11 stock cards
    state = play(dealt(config, (0, 1)), 12)  # 1B to seat 0, 2B to seat 1; 2V
    for card in range(13, 22):  # 3V .. 11V
        play(state, DRAW, card)
    play(state, DRAW, 33)  # 1R, the last card: he holds 1B
    assert state.legal_actions() == [BANGO, PASS]
    state.apply_action(PASS)  # the deck is empty: a forced stop (BG-7)
    play(state, TAKE + 12, TAKE + 13, TAKE + 14, DONE, NO_LAY)
    # BG-7: seat 0's last lay, then seat 1's
    assert (state.current_player(), state.legal_actions()) == (0, [LAY, NO_LAY])
    state.apply_action(LAY)  # 1B 2V 3V 4V: 2..4 leaves 1B at its end, 2..3 leaves 1 and 4
    assert state.legal_actions() == [span_action(1, 2), span_action(1, 4), span_action(3, 4)]
    play(state, span_action(1, 4), CLOSE)
    assert (state.current_player(), state.returns()) == (1, [0.0, 0.0])
    state.apply_action(NO_LAY)  # 2B to his personal discard
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [7.0, -1.0]  # 4 cards + 3 (violet); one discard
    with pytest.raises(ValueError, match="the game is over"):
        state.apply_action(DRAW)


def test_tensors_in_bounds_and_views_by_seat():
    state = play(dealt(), 1, DRAW, 41, DRAW, 17, STOP, TAKE + 17)
    zero, one = state.observation_tensor(0), state.observation_tensor(1)
    assert zero.dtype == np.float32 and len(zero) == 504
    assert zero.min() >= 0.0 and zero.max() <= 1.0
    n, hand = 2, 4 * 2 + 12
    assert zero[hand + 4] == 0.5 and zero[hand + 17] == 0.5  # 5B, 7V: count / 2 copies
    assert one[hand + 15] == 0.5 and one[hand + 4] == 0.0  # seat 1 holds 5V, sees no 5B
    known = hand + 3 * 55 + 1
    assert one[known + 17] == 0.5 and zero[known + n * 0 + 17] == 0.0  # 7V taken face up
    assert np.array_equal(state.information_state_tensor(1), one)


def test_clone_and_history_round_trip():
    game = BangoSteps(R.BangoConfig(n_players=3))
    final = random_playthrough(game, np.random.default_rng(np.random.SeedSequence(24)))
    state = game.new_initial_state()
    for k, action in enumerate(final.history()):
        if k % 5 == 0:
            check_round_trip(game, state)
        state.apply_action(action)
    check_round_trip(game, state)
    assert state.returns() == final.returns() and str(state) == str(final)


@pytest.mark.parametrize("config", GAME.conformance.configs, ids=lambda c: f"{c.n_players}p")
def test_random_play_never_sticks_and_keeps_the_cards(config):
    game = BangoSteps(config)
    for child in np.random.SeedSequence(2024).spawn(15):
        state = random_playthrough(game, np.random.default_rng(child))
        tb = state.table
        out = len(tb.common) + sum(len(p) for p in tb.personal) + \
            sum(len(q) for s in tb.sequences for q in s)
        assert out == R.N_CARDS - config.n_removed and state.stock == 0  # BG-1, BG-7
        assert not tb.centre and all(h.total() == 0 for h in tb.hands)
        expected = [referee.player_score(tb.sequences[s], len(tb.personal[s]))
                    for s in range(config.n_players)]
        assert state.returns() == [float(x) for x in expected]  # BG-8


@pytest.mark.parametrize("policy", ["random", "heuristic"])
@pytest.mark.parametrize("config", GAME.conformance.configs, ids=lambda c: f"{c.n_players}p")
def test_step_game_follows_the_engine_move_by_move(config, policy):
    batch = simulate_games(config, GAME.make_policy(policy), 20, seed=11, first_game=300)
    assert check_steps(batch) == 20


@pytest.mark.slow
@pytest.mark.parametrize("config", GAME.conformance.configs, ids=lambda c: f"{c.n_players}p")
def test_step_game_follows_the_engine_on_10000_games(config):
    batch = simulate_games(config, GAME.make_policy("random"), 10_000, seed=24)
    assert check_steps(batch) == 10_000
