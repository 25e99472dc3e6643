"""The Manille step game (simulators/manille/env.py): encoding, rulings, round trips, cross-check.

The hand-built deals use a *suit-split* deck: with seat 0 dealing and packets
4+4, the cards reach seats 3, 2, 1, 0 four at a time (MA-2), so dealing the
piques' top four, the cœurs', the carreaux', the trèfles', then their bottom
four gives seat 3 every pique, seat 2 every cœur, seat 1 every carreau and
seat 0 every trèfle. Every expected value was worked out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulators.core.stepcheck import check_round_trip, random_playthrough
from simulators.core.steps import CHANCE, TERMINAL
from simulators.manille import referee
from simulators.manille import rules as R
from simulators.manille.crosscheck import check_steps
from simulators.manille.engine import simulate_deals
from simulators.manille.env import (
    CHOICE_BASE,
    CONTRE,
    DECLINE,
    N_ACTIONS,
    SURCONTRE,
    ManilleSteps,
    deal_order,
)
from simulators.manille.game import GAME

P, CO, K, T = 0, 1, 2, 3  # pique, cœur, carreau, trèfle
SPLIT = [R.card(rank, suit) for half in (range(4), range(4, 8)) for suit in (P, CO, K, T)
         for rank in half]


def dealt(deck=SPLIT, config=None, dealer=0):
    """A fresh state with ``dealer`` and ``deck`` dealt by chance moves."""
    state = ManilleSteps(config).new_initial_state()
    for outcome in [dealer, *deck]:
        assert state.current_player() == CHANCE
        state.apply_action(outcome)
    return state


def play_lowest(state):
    """Play every remaining card, each seat its lowest legal card (its strongest)."""
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    return state


def test_action_encoding():
    assert (CHOICE_BASE, DECLINE, CONTRE, SURCONTRE, N_ACTIONS) == (32, 38, 39, 40, 41)
    state = ManilleSteps().new_initial_state()
    names = [state.action_to_string(0, a) for a in (0, 7, 31, 32, 35, 36, 37, 38, 39, 40)]
    assert names == ["10P", "AT", "7T", "pique", "trèfle", "sans atout", "passe", "no",
                     "contre", "surcontre"]
    assert state.action_to_string(CHANCE, 2) == "dealer 2"
    info = ManilleSteps().info
    assert (info.num_distinct_actions, info.max_chance_outcomes, info.max_game_length) == \
        (41, 32, 71)
    assert (info.min_utility, info.max_utility) == (-272.0, 272.0)  # 34 x surcontre 4 x SA 2
    assert (info.information_state_size, info.observation_size) == (1083, 223)


def test_parameters_echo_every_option_and_build_the_same_game():
    game = GAME.steps(GAME.make_config(sans_atout_must_beat=True), dealer=2)
    assert game.info.parameters == {"target": 50, "sans_atout_must_beat": True,
                                    "packets": (4, 4), "partner_may_sans_atout": True,
                                    "cut_weights": None, "max_deals": 500, "dealer": 2}
    assert game.config.sans_atout_must_beat and game.dealer == 2
    assert game.info.max_game_length == 70  # no chance move for the dealer
    with pytest.raises(ValueError, match="dealer"):
        ManilleSteps(dealer=4)


def test_ma2_cards_dealt_counter_clockwise_from_the_dealer_right_in_packets():
    assert deal_order(0, (4, 4)) == [3] * 4 + [2] * 4 + [1] * 4 + [0] * 4 + \
        [3] * 4 + [2] * 4 + [1] * 4 + [0] * 4
    assert deal_order(1, (3, 2, 3))[:6] == [0, 0, 0, 3, 3, 3]
    state = dealt()
    assert [sorted(h) for h in state.hands] == [[R.card(r, s) for r in range(8)]
                                                for s in (T, K, CO, P)]
    assert state.chance_outcomes() == [] and state.current_player() == 0


def test_chance_outcomes_uniform_over_the_cards_left():
    state = ManilleSteps().new_initial_state()
    assert state.chance_outcomes() == [(s, 0.25) for s in range(4)]
    state.apply_action(1)
    state.apply_action(5)
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 31 and 5 not in dict(outcomes) and outcomes[0] == (0, 1 / 31)
    with pytest.raises(ValueError, match="chance outcome 5"):
        state.apply_action(5)


def test_ma3_dealer_names_or_passes_partner_must_name():
    state = dealt(dealer=1)
    assert state.current_player() == 1
    assert state.legal_actions() == [32, 33, 34, 35, 36, 37]
    state.apply_action(CHOICE_BASE + R.PASS_TO_PARTNER)
    assert state.current_player() == 3  # the dealer's partner
    assert state.legal_actions() == [32, 33, 34, 35, 36]  # no pass back
    with pytest.raises(ValueError, match=r"action 37 \(passe\) is illegal for seat 3"):
        state.apply_action(37)
    no_sa = dealt(config=R.ManilleConfig(partner_may_sans_atout=False), dealer=1)
    no_sa.apply_action(37)
    assert no_sa.legal_actions() == [32, 33, 34, 35]  # option: a suit only


def test_ma4_opponents_asked_right_first_then_the_taking_team_chooser_first():
    state = dealt(dealer=0)
    state.apply_action(37)  # pass: seat 2 chooses
    state.apply_action(CHOICE_BASE + CO)
    assert (state.current_player(), state.legal_actions()) == (3, [DECLINE, CONTRE])
    state.apply_action(DECLINE)
    assert state.current_player() == 1  # the dealer's left, second
    state.apply_action(CONTRE)
    assert (state.current_player(), state.legal_actions()) == (2, [DECLINE, SURCONTRE])
    state.apply_action(DECLINE)
    assert state.current_player() == 0  # the chooser's partner
    state.apply_action(SURCONTRE)
    assert state.current_player() == 3  # MA-5: the dealer's right leads
    assert (state.bidding.chooser, state.bidding.trump, state.bidding.contre_level,
            state.bidding.contre_by, state.bidding.surcontre_by) == (2, CO, R.SURCONTRE, 1, 0)


def test_ma4_no_contre_ends_the_bidding_after_two_declines():
    state = dealt(dealer=0)
    state.apply_action(CHOICE_BASE + T)
    state.apply_action(DECLINE)
    state.apply_action(DECLINE)
    assert state.bidding.contre_level == R.NO_CONTRE and state.current_player() == 3


def test_ma5_play_turns_counter_clockwise_and_the_void_opponent_must_trump():
    state = dealt(dealer=0)
    for action in (CHOICE_BASE + T, DECLINE, DECLINE):
        state.apply_action(action)
    assert state.legal_actions() == [R.card(r, P) for r in range(8)]  # seat 3 leads anything
    state.apply_action(R.card(0, P))
    assert state.current_player() == 2
    state.apply_action(R.card(0, CO))  # void, no trump: anything
    assert state.current_player() == 1
    state.apply_action(R.card(0, K))
    assert state.current_player() == 0
    # an opponent (seat 3) holds the trick and seat 0 is void in pique: he must trump
    assert state.legal_actions() == [R.card(r, T) for r in range(8)]
    with pytest.raises(ValueError, match=r"action 2 \(10K\) is illegal for seat 0: does not"):
        state.apply_action(R.card(0, K))
    with pytest.raises(ValueError, match=r"action 4 \(AP\) is illegal for seat 0"):
        state.apply_action(R.card(1, P))
    state.apply_action(R.card(0, T))
    assert state.winners == [0] and state.current_player() == 0  # the winner leads


@pytest.mark.parametrize("bidding, returns", [
    ((CHOICE_BASE + T, DECLINE, DECLINE), [34, -34, 34, -34]),  # 68 - 34, MA-6
    ((CHOICE_BASE + T, CONTRE, DECLINE, DECLINE), [68, -68, 68, -68]),  # contre x2
    ((CHOICE_BASE + T, DECLINE, CONTRE, SURCONTRE), [136, -136, 136, -136]),  # surcontre x4
    # sans atout: seat 3 leads pique and nobody can follow: team 1 takes 68, doubled
    ((CHOICE_BASE + R.SANS_ATOUT, DECLINE, DECLINE), [-68, 68, -68, 68]),
    ((CHOICE_BASE + R.SANS_ATOUT, CONTRE, DECLINE, DECLINE), [-136, 136, -136, 136]),
])
def test_ma6_returns_are_the_net_team_scores(bidding, returns):
    state = dealt(dealer=0)
    for action in bidding:
        state.apply_action(action)
    play_lowest(state)
    assert state.current_player() == TERMINAL and state.legal_actions() == []
    assert state.returns() == [float(r) for r in returns]
    assert sum(state.team_points()) == R.DEAL_POINTS
    with pytest.raises(ValueError, match="the deal is over"):
        state.apply_action(0)


def test_returns_zero_until_the_end_and_bad_input_named():
    state = dealt()
    assert state.returns() == [0.0] * 4
    with pytest.raises(ValueError, match="player 4 is not a seat"):
        state.observation_tensor(4)
    with pytest.raises(ValueError, match="action 'x' is not an integer"):
        state.apply_action("x")
    with pytest.raises(ValueError, match="must be a ManilleConfig"):
        ManilleSteps({"target": 50})


def test_tensors_hold_the_hand_bidding_and_plays():
    state = dealt(dealer=0)
    for action in (CHOICE_BASE + T, CONTRE, DECLINE, DECLINE, R.card(0, P)):
        state.apply_action(action)
    info = state.information_state_tensor(1)
    assert info.dtype == np.float32 and info.shape == (1083,)
    assert np.flatnonzero(info[:59]).tolist() == [1, 4, *(8 + R.card(r, K) for r in range(8)),
                                                  40 + T, 51 + 1, 55 + 0, 55 + 2]
    assert np.flatnonzero(info[59:]).tolist() == [R.card(0, P)]  # slot 0: the 10 of pique
    obs = state.observation_tensor(2)
    assert np.flatnonzero(obs[:59]).tolist() == [2, 4, 8 + 5, *(15 + R.card(r, CO) for r in
                                                                range(8)), 47 + T, 52 + 0, 57]
    assert np.flatnonzero(obs[59:187]).tolist() == [32 * 3 + R.card(0, P)]  # seat 3's card
    assert state.information_state_string(1) == (
        "seat 1 dealer 0 | dealt 10K AK RK DK VK 9K 8K 7K | choice trèfle / contre contre / "
        "surcontre no no | plays 10P")


def test_information_state_hides_the_other_hands():
    a, b = dealt(), dealt(deck=SPLIT[:4] + SPLIT[8:12] + SPLIT[4:8] + SPLIT[12:])
    # seats 2 and 1 swapped their first packets; seats 3 and 0 see the same
    for seat in (0, 3):
        assert np.array_equal(a.information_state_tensor(seat), b.information_state_tensor(seat))
        assert a.information_state_string(seat) == b.information_state_string(seat)
    assert a.information_state_string(2) != b.information_state_string(2)


def test_clone_and_history_round_trip_at_every_move():
    game = ManilleSteps(R.ManilleConfig(sans_atout_must_beat=True))
    generator = np.random.default_rng(np.random.SeedSequence(24).spawn(1)[0])
    final = random_playthrough(game, generator)
    history = final.history()
    state = game.new_initial_state()
    for action in history:
        check_round_trip(game, state)
        state.apply_action(action)
    check_round_trip(game, state)
    assert state.returns() == final.returns()
    copy = final.clone()
    copy.hands[0].append(99)  # the clone's lists are its own
    assert 99 not in final.hands[0]


@pytest.mark.parametrize("config", GAME.conformance.configs)
def test_random_play_never_sticks_and_keeps_the_point_totals(config):
    game = ManilleSteps(config)
    for child in np.random.SeedSequence(2024).spawn(100):
        state = random_playthrough(game, np.random.default_rng(child))
        points = state.team_points()
        assert sum(points) == R.DEAL_POINTS and sum(state.returns()) == 0.0  # MA-6
        s0, s1 = referee.deal_score(points, state.bidding.trump, state.bidding.contre_level)
        assert s0 == 0 or s1 == 0
        assert state.returns() == [s0 - s1, s1 - s0, s0 - s1, s1 - s0]
        assert len(state.history()) == len(state.plays) + 33 + len(state.choice) + \
            len(state.contre) + len(state.surcontre)


@pytest.mark.parametrize("policy", ["random", "heuristic"])
@pytest.mark.parametrize("config", GAME.conformance.configs)
def test_step_game_follows_the_engine_move_by_move(config, policy):
    batch = simulate_deals(config, GAME.make_policy(policy), 100, seed=11, first_deal=300)
    assert check_steps(batch) == 100


@pytest.mark.slow
@pytest.mark.parametrize("config", GAME.conformance.configs)
def test_step_game_follows_the_engine_on_10000_deals(config):
    batch = simulate_deals(config, GAME.make_policy("random"), 10_000, seed=24)
    assert check_steps(batch) == 10_000
