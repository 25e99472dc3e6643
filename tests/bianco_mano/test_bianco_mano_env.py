"""The Bianco Mano step game (simulators/bianco_mano/env.py): encoding, rulings, round trips,
cross-check against the engine.

The hand-built deals give the chance moves in the order the rules deal (BM-4..BM-6), so
every hand below follows from the seat order: from the dealer's left, clockwise, one
packet each, then the next packet. Every expected value was worked out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulators.bianco_mano import referee
from simulators.bianco_mano import rules as R
from simulators.bianco_mano.crosscheck import check_steps
from simulators.bianco_mano.engine import simulate_deals
from simulators.bianco_mano.env import (
    BID_BASE,
    BONUS,
    N_ACTIONS,
    NO_BONUS,
    PACKET_BASE,
    PASS_ACTION,
    BiancoManoSteps,
)
from simulators.bianco_mano.game import GAME
from simulators.core.stepcheck import check_round_trip, random_playthrough
from simulators.core.steps import CHANCE, TERMINAL

ROUGE, BLEUE, JAUNE, VERTE = range(4)
CONFIGS = [R.BiancoManoConfig(n_players=n, bianco_mano=bonus)
           for n, bonus in ((3, True), (4, False), (4, True), (5, True))]

# 3 players, dealer 0, packets 4+3: seat 1 (the dealer's left) receives positions 0-3,
# 12-14, 22-24 and, as taker, 31; the turned card is position 21. Seat 1 gets every rouge
# card and the Mammas bleue, jaune and verte, plus the Parrain verte (7).
OTHERS = [5, 6, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26, 27, 29, 30, 31]
CAPO_DECK = ([0, 4, 8, 12] + OTHERS[0:4] + OTHERS[4:8] + [16, 20, 24] + OTHERS[8:11]
             + OTHERS[11:14] + [28] + [1, 2, 3] + OTHERS[14:17] + OTHERS[17:20] + [7])


def dealt(config, deck, dealer=0, packet=None):
    """A state with ``dealer``, the packet choice and the first ``len(deck)`` cards dealt."""
    state = BiancoManoSteps(config).new_initial_state()
    state.apply_action(dealer)
    if packet is not None:
        state.apply_action(PACKET_BASE + packet)
    for c in deck:
        assert state.current_player() == CHANCE
        state.apply_action(c)
    return state


def test_action_encoding():
    assert (BID_BASE, PASS_ACTION, PACKET_BASE + 2, NO_BONUS, BONUS, N_ACTIONS) == \
        (32, 36, 37, 40, 41, 42)
    state = BiancoManoSteps().new_initial_state()
    names = [state.action_to_string(0, a) for a in (0, 31, 32, 35, 36, 37, 39, 40, 41)]
    assert names == ["1R", "8V", "take rouge", "take verte", "pass", "first packet 2",
                     "first packet 4", "no announcement", "Bianco Mano"]
    sizes = {n: (g.info.information_state_size, g.info.observation_size,
                 g.info.max_game_length) for n in (3, 4, 5)
             for g in [BiancoManoSteps(R.BiancoManoConfig(n_players=n))]}
    # information state: seat, dealer (2n) + packet 3 + received, turned 64 + bids 10n
    # + espion, called 64 + announce 2 + 32 per card played (m = 30, 32, 30);
    # observation: seat, dealer, taker, won (4n) + phase 8 + round 2 + hand, turned 64
    # + dominant 4 + espion, called 64 + bonus 1 + trick 32n + done 32;
    # longest: dealer 1 + packet choice (3, 4 players) + 32 cards + 2n bids + espion 2
    # (3, 5 players) + call 1 (5 players) + the cards played
    assert sizes == {3: (6 + 3 + 64 + 30 + 64 + 2 + 960, 12 + 8 + 2 + 64 + 4 + 64 + 1 + 96 + 32,
                         1 + 1 + 32 + 6 + 2 + 30),
                     4: (8 + 3 + 64 + 40 + 64 + 2 + 1024, 16 + 8 + 2 + 64 + 4 + 64 + 1 + 128
                         + 32, 1 + 1 + 32 + 8 + 32),
                     5: (10 + 3 + 64 + 50 + 64 + 2 + 960, 20 + 8 + 2 + 64 + 4 + 64 + 1 + 160
                         + 32, 1 + 32 + 10 + 2 + 1 + 30)}


def test_parameters_echo_every_option():
    game = GAME.steps(GAME.make_config(n_players=5, bianco_mano=True), dealer=3)
    assert game.info.parameters == {"n_players": 5, "bianco_mano": True,
                                    "shuffle_every_deal": False, "gather": "team_piles",
                                    "deals_per_game": 10, "cut_weights": None, "dealer": 3}
    assert (game.info.num_players, game.info.zero_sum) == (5, False)
    assert game.new_initial_state().current_player() == CHANCE  # the cards, not the dealer
    with pytest.raises(ValueError, match="dealer must be a seat 0..4"):
        BiancoManoSteps(R.BiancoManoConfig(n_players=5), dealer=5)


def test_bm5_packet_choice_first_distribution_and_bm7_bidding_rounds():
    state = dealt(R.BiancoManoConfig(n_players=4), [], packet=None)
    assert (state.current_player(), state.legal_actions()) == (0, [37, 38])  # 2 or 3
    state.apply_action(PACKET_BASE + 3)
    for c in range(21):
        state.apply_action(c)
    # BM-5, 3+2 from the dealer's left: seat 1 gets 0-2 and 12-13, ..., the turned card 20
    assert state.hands == [[9, 10, 11, 18, 19], [0, 1, 2, 12, 13], [3, 4, 5, 14, 15],
                           [6, 7, 8, 16, 17]]
    assert state.turned == 20 and state.current_player() == 1
    assert state.legal_actions() == [BID_BASE + ROUGE, PASS_ACTION]  # BM-7 round 1
    with pytest.raises(ValueError, match=r"action 33 \(take bleue\) is illegal for seat 1 at "
                                         r"the bid \(BM-7\)"):
        state.apply_action(BID_BASE + BLEUE)
    for seat in (1, 2, 3, 0):
        assert state.current_player() == seat
        state.apply_action(PASS_ACTION)
    assert state.legal_actions() == [BID_BASE + f for f in (BLEUE, JAUNE, VERTE)] + \
        [PASS_ACTION]  # BM-7 round 2: another family
    state.apply_action(PASS_ACTION)
    state.apply_action(BID_BASE + JAUNE)  # seat 2 takes
    assert (state.taker, state.dominant, state.partner) == (2, JAUNE, 0)  # BM-5 teams
    assert state.hands[2][-1] == 20  # BM-7: the taker receives the turned card
    for c in range(21, 32):
        state.apply_action(c)
    # BM-5: 3 cards each from the dealer's left, the taker 2
    assert [sorted(h) for h in state.hands] == [[9, 10, 11, 18, 19, 29, 30, 31],
                                                [0, 1, 2, 12, 13, 21, 22, 23],
                                                [3, 4, 5, 14, 15, 20, 24, 25],
                                                [6, 7, 8, 16, 17, 26, 27, 28]]
    assert state.current_player() == 2  # BM-8: the taker leads
    state.apply_action(4)  # the Parrain rouge
    assert state.legal_actions() == [8, 16, 28]  # BM-8 (1): follow rouge, no need to beat
    state.apply_action(28)
    assert state.legal_actions() == [10, 18, 30]  # BM-8 (2): void, play a dominant (jaune)
    state.apply_action(30)
    state.apply_action(0)  # seat 1 follows with the Mamma rouge; the dominant 8J wins
    assert state.winners == [0] and state.current_player() == 0
    state.apply_action(10)  # the Avocat jaune
    assert state.legal_actions() == [2]  # BM-8 (3): beat the strongest dominant if you can
    with pytest.raises(ValueError, match=r"action 22 \(6J\) is illegal for seat 1 at the play "
                                         r"\(BM-8: must beat 3J"):
        state.apply_action(22)


def test_bm7_all_pass_twice_voids_the_deal():
    state = dealt(R.BiancoManoConfig(n_players=4), range(21), packet=2)
    for _ in range(8):
        state.apply_action(PASS_ACTION)
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [0.0] * 4 and state.n_dealt == 21  # nothing more is dealt


def test_bm4_espion_lower_card_first_bm11_bonus_and_bm10_capo():
    config = R.BiancoManoConfig(n_players=3, bianco_mano=True)
    state = dealt(config, CAPO_DECK[:22], packet=4)
    assert state.turned == 28 and state.legal_actions() == [BID_BASE + ROUGE, PASS_ACTION]
    state.apply_action(BID_BASE + ROUGE)  # seat 1 takes the rouge in round 1
    for c in CAPO_DECK[22:]:
        state.apply_action(c)
    hand = [0, 1, 2, 3, 4, 7, 8, 12, 16, 20, 24, 28]
    assert sorted(state.hands[1]) == hand  # BM-4: the last card to the taker
    assert state.legal_actions() == hand[:-1]  # the lower espion card first
    state.apply_action(3)
    assert state.legal_actions() == [4, 7, 8, 12, 16, 20, 24, 28]
    state.apply_action(7)
    assert state.espion == [3, 7]
    # BM-11: the Garde du Corps (24) and the Chauffeur (28) rouge in hand
    assert (state.current_player(), state.legal_actions()) == (1, [NO_BONUS, BONUS])
    state.apply_action(BONUS)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert state.winners == [1] * 10 and state.side_points() == R.TOTAL_POINTS
    assert state.returns() == [-2.0, 2.0, -2.0]  # BM-10 capo: taker +2, each opponent -2
    info = state.information_state_tensor(1)
    at = state.game.info_layout
    assert info[at["espion"] + 3] == info[at["espion"] + 7] == 1.0
    assert info[at["announce"] + 1] == 1.0
    assert not state.information_state_tensor(0)[at["espion"]:at["espion"] + 32].any()


def test_bm6_call_a_card_its_holder_is_the_partner():
    config = R.BiancoManoConfig(n_players=5)
    state = dealt(config, range(21))
    assert state.current_player() == 1 and state.turned == 20
    state.apply_action(BID_BASE + ROUGE)
    for c in range(21, 32):
        state.apply_action(c)
    assert sorted(state.hands[1]) == [0, 1, 10, 11, 20, 21, 22, 31]  # BM-6: 2+2, 2, last card
    state.apply_action(10)
    state.apply_action(11)
    legal = state.legal_actions()
    # non-rouge cards, not his own (1, 21, 22, 31) nor his espion (10, 11)
    assert legal == [c for c in range(32) if c % 4 and c not in (1, 10, 11, 21, 22, 31)]
    with pytest.raises(ValueError, match=r"action 4 \(2R\) is illegal for seat 1 at the call "
                                         r"\(BM-6\)"):
        state.apply_action(4)
    state.apply_action(5)  # the Parrain bleue, dealt to seat 3
    assert (state.called, state.partner, state.current_player()) == (5, 3, 1)
    assert state.side() == {1, 3}


def test_clone_and_history_round_trip_at_every_move():
    game = BiancoManoSteps(R.BiancoManoConfig(n_players=5, bianco_mano=True))
    generator = np.random.default_rng(np.random.SeedSequence(24).spawn(1)[0])
    final = random_playthrough(game, generator)
    state = game.new_initial_state()
    for action in final.history():
        check_round_trip(game, state)
        state.apply_action(action)
    check_round_trip(game, state)
    assert state.returns() == final.returns()
    copy = final.clone()
    copy.espion.append(99)  # the clone's lists are its own
    assert 99 not in final.espion


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.n_players}p-{c.bianco_mano}")
def test_random_play_never_sticks_and_keeps_the_point_totals(config):
    game = BiancoManoSteps(config)
    n = config.n_players
    for child in np.random.SeedSequence(2024).spawn(100):
        state = random_playthrough(game, np.random.default_rng(child))
        if state.taker < 0:
            assert state.returns() == [0.0] * n and len(state.bids) == 2 * n  # BM-7
            continue
        taken = [c for trick in state.tricks for c in trick] + state.espion
        assert sorted(taken) == list(range(32))  # every card played or in the espion
        assert referee.card_points(taken, state.dominant) == R.TOTAL_POINTS  # BM-1: 75
        partners = state.side() - {state.taker}
        outcome, deltas = referee.score_deal(n, state.taker, partners, state.side_points(),
                                             bool(state.bonus))
        assert state.returns() == [float(d) for d in deltas]
        taker_d, partner_d, opponent_d = R.SCORE_CHANGES[outcome]  # BM-10
        assert sorted(state.returns()) == sorted([taker_d] + [partner_d] * len(partners)
                                                 + [opponent_d] * (n - 1 - len(partners)))


@pytest.mark.parametrize("policy", ["random", "heuristic"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.n_players}p-{c.bianco_mano}")
def test_step_game_follows_the_engine_move_by_move(config, policy):
    batch = simulate_deals(config, GAME.make_policy(policy), 60, seed=11, first_deal=300)
    assert check_steps(batch) == 60


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.n_players}p-{c.bianco_mano}")
def test_step_game_follows_the_engine_on_10000_deals(config):
    batch = simulate_deals(config, GAME.make_policy("random"), 10_000, seed=24)
    assert check_steps(batch) == 10_000
