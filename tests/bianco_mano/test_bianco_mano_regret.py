"""Bianco Mano's double-dummy regret of card play (simulators/bianco_mano/solver/regret.py):
read on the engine's own batches at 3, 4 and 5 players, checked against the referee's
duties (BM-8), a player who plays every card double-dummy, and the heuristic."""

from __future__ import annotations

import numpy as np
import pytest

from simulators.bianco_mano import learn as L
from simulators.bianco_mano import referee
from simulators.bianco_mano import rules as R
from simulators.bianco_mano.engine import simulate_deals
from simulators.bianco_mano.policies import HeuristicPolicy
from simulators.bianco_mano.solver import _duties, deal_positions
from simulators.bianco_mano.solver.regret import card_regrets, summary
from simulators.core import double_dummy as dd

DEALS = {3: 8, 4: 30, 5: 30}  # 3 players' ten-card hands are the slowest to solve


def _forced(batch, config, i: int) -> np.ndarray:
    """(tricks, n) bool: the cards of deal ``i`` that were the only legal one, by the
    referee's own reading of BM-8 from its own deal of the record (the taker leads,
    clockwise, the trick's winner leads the next: BM-8, BM-9)."""
    setup = referee.deal_setup(batch.record(i), config)
    hands = [set(h) for h in setup.hands]
    plays = batch.arrays.plays[i].astype(int)
    n_tricks, n = plays.shape
    forced = np.zeros((n_tricks, n), bool)
    leader = setup.taker
    for t in range(n_tricks):
        trick: list[int] = []
        for j in range(n):
            seat = (leader + j) % n
            forced[t, j] = len(referee.legal_plays(hands[seat], trick, setup.dominant)) == 1
            hands[seat].remove(int(plays[t, j]))
            trick.append(int(plays[t, j]))
        leader = (leader + referee.trick_winner(trick, setup.dominant)) % n
    return forced


@pytest.mark.parametrize("n", R.PLAYER_COUNTS)
def test_regrets_are_never_negative_and_nan_exactly_for_forced_cards_and_passed_deals(n):
    """The heuristic at every seat: every counted regret is at least 0; NaN exactly where
    the referee finds one legal card (BM-8) and on every card of an all-pass deal (BM-7,
    no play); the first card's best value is the taker's side's double-dummy card points
    from the first card (BM-1, BM-10 less the espion); the last trick is all forced."""
    config = R.BiancoManoConfig(n_players=n, bianco_mano=True)
    batch = simulate_deals(config, HeuristicPolicy(), DEALS[n], seed=1)
    regrets, best = card_regrets(batch.arrays)
    assert regrets.shape == best.shape == (DEALS[n], R.HAND_SIZE[n], n)
    taken = batch.arrays.taker >= 0
    assert taken.any() and (~taken).any()
    assert np.isnan(regrets[~taken]).all() and np.isnan(best[~taken]).all()
    counted = ~np.isnan(regrets)
    assert (regrets[counted] >= 0).all() and np.isnan(regrets[:, -1]).all()
    for i in np.flatnonzero(taken):
        assert (np.isnan(regrets[i]) == _forced(batch, config, i)).all()
    rows, start, _, _ = deal_positions(batch.arrays, n)
    assert (best[rows, 0, 0] == dd.solve(start)).all()  # the taker leads (BM-8)
    found = summary(regrets)
    assert found["card_plays"] == int(counted.sum()) > 0


class DoubleDummyCards:
    """The heuristic's auction, espion, call and bonus; every card the best double-dummy
    card for the mover's side in the true deal (it is given the hands at the first card
    of a heuristic run on the same seed: the auction is the same)."""

    def __init__(self, start: dd.Position):
        self.heuristic, self.start = HeuristicPolicy(), start
        self.first_packet, self.bid = self.heuristic.first_packet, self.heuristic.bid
        self.espion, self.call = self.heuristic.espion, self.heuristic.call
        self.announce = self.heuristic.announce

    def play(self, obs):
        start, m = self.start, len(obs.hand)
        at = np.arange(m)
        hands = start.hands & ~np.asarray(obs.played, np.uint32)[:, None]
        assert (hands[at, obs.seat] == obs.hand).all()  # the rows are the taken deals
        trick = np.full((m, obs.n_players), -1, np.int8)
        trick[:, :obs.position] = obs.plays[:, obs.trick, :obs.position]
        team = (start.team != start.team[at, obs.seat][:, None]).astype(np.int64)
        values = dd.card_values(hands, obs.leaders[:, obs.trick], start.trump_mask, _duties(),
                                card_points=start.card_points, team=team,
                                direction=dd.CLOCKWISE, trick=trick)
        return np.argmax(values, axis=1).astype(np.int8)


@pytest.mark.parametrize("n", [4, 5])
def test_a_double_dummy_player_gives_nothing_up(n):
    """Every seat plays the double-dummy card for its side (the taker's side vs the
    defence, BM-4..BM-6, the called card's holder at 5 players): no card gives a point
    up, and the taker's side ends with the first card's double-dummy value plus its espion
    (BM-10)."""
    config = R.BiancoManoConfig(n_players=n)
    seen = simulate_deals(config, HeuristicPolicy(), 12, seed=1)
    rows, start, espion_points, _ = deal_positions(seen.arrays, n)
    batch = simulate_deals(config, DoubleDummyCards(start), 12, seed=1)
    assert (batch.arrays.taker == seen.arrays.taker).all()
    regrets, _ = card_regrets(batch.arrays)
    counted = regrets[~np.isnan(regrets)]
    assert counted.size > 20 and (counted == 0).all()
    assert (batch.arrays.side_points[rows] == dd.solve(start) + espion_points).all()


def test_the_heuristic_gives_points_up_and_the_learn_spec_counts_them():
    """``LEARN.regrets`` (what ``tapisvert learn bianco-mano certify --regret`` reads): one
    row per deal, tricks x players plays, all NaN for the deals nobody took (BM-7); the
    heuristic gives points up on some of its card plays."""
    config = R.BiancoManoConfig(n_players=4)
    assert L.LEARN.regrets is L.regrets
    r = L.LEARN.regrets(config, HeuristicPolicy(), 7, 10, 50)
    assert r.shape == (50, R.HAND_SIZE[4] * 4)
    taken = simulate_deals(config, HeuristicPolicy(), 50, seed=7, first_deal=10).arrays.taker >= 0
    assert np.isnan(r[~taken]).all() and (~np.isnan(r[taken])).any(axis=1).all()
    found = summary(r)
    assert found["card_plays"] > 300
    assert 0 < found["share_giving_up"] < 1 and found["mean_points_given_up"] > 0
