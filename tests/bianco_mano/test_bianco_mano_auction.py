"""Bianco Mano's bidding as a net decision (simulators/bianco_mano/auction.py): the engine's
forced bids, the bidder's family order, and the rollout teacher's labels (legal bids only,
worlds dealt as the bidder saw them and kept by the passes before him, BM-7)."""

from __future__ import annotations

import numpy as np
import pytest
from recording import KeepObservations

from simulators.bianco_mano import auction as A
from simulators.bianco_mano import learn as L
from simulators.bianco_mano import rules as R
from simulators.bianco_mano.engine import Dispatch, play_batch, simulate_deals
from simulators.bianco_mano.observations import BidObs
from simulators.bianco_mano.policies import HeuristicPolicy
from simulators.core.pimc import row_generator


def _hand(*cards) -> int:
    return sum(1 << R.card(rank, family) for rank, family in cards)


def test_forced_bids_replace_the_policys_and_nothing_else():
    """BM-7: forcing each bid to the one the heuristic made replays the engine's deals
    exactly; forcing the first bidder to take the turned family makes him the taker in
    round 1 on every deal."""
    config = R.BiancoManoConfig(n_players=4)
    batch = simulate_deals(config, HeuristicPolicy(), 300, seed=4)
    a = batch.arrays
    dispatch = Dispatch(HeuristicPolicy(), 4)
    units = np.arange(300)
    same = play_batch(config, dispatch, a.deck, a.cut, a.dealer, None, units,
                      forced_bids=np.asarray(a.bids, np.int8))
    assert np.array_equal(same.deltas, a.deltas) and np.array_equal(same.plays, a.plays)
    forced = np.full((300, 8), -1, np.int8)
    forced[:, 0] = np.asarray(a.turned_card) % 4
    taken = play_batch(config, dispatch, a.deck, a.cut, a.dealer, None, units,
                       forced_bids=forced)
    assert (np.asarray(taken.taker) == (np.asarray(a.dealer) + 1) % 4).all()
    assert (np.asarray(taken.bid_round) == 1).all()
    assert (np.asarray(taken.dominant) == np.asarray(a.turned_card) % 4).all()


def test_the_bidders_order_puts_the_turned_family_first_then_the_longest():
    # family 2: three cards; family 1: two with the Mamma; family 3: two small; turned 0
    hand = np.array([_hand((1, 2), (4, 2), (6, 2), (0, 1), (5, 1), (3, 3), (7, 3))],
                    np.uint32)
    turned = np.array([R.card(2, 0)], np.int8)
    assert A.family_order(hand, turned)[0].tolist() == [0, 2, 1, 3]
    obs = BidObs(hand, turned, np.array([1], np.int8), np.array([0], np.int8), 0, 2,
                 np.array([0b11110], np.uint8), 3, False, None)
    assert A.bid_legal(obs)[0].tolist() == [False, True, True, True, True]
    assert [int(A.bid_action(obs, np.array([k]))[0]) for k in range(5)] == [0, 2, 1, 3, R.PASS]
    # the same hand with families 1 and 3 swapped: the same features (an ordered family)
    swap = {0: 0, 1: 3, 2: 2, 3: 1}
    swapped = sum(1 << (c - c % 4 + swap[c % 4]) for c in range(32) if int(hand[0]) >> c & 1)
    both = obs._replace(hand=np.array([hand[0], swapped], np.uint32),
                        turned_card=np.repeat(turned, 2), seat=np.ones(2, np.int8),
                        dealer=np.zeros(2, np.int8), legal=np.full(2, 0b11110, np.uint8))
    features = A.bid_features(both)
    assert features.shape == (2, A.N_BID_FEATURES) and (features[0] == features[1]).all()
    round1 = obs._replace(round=1, legal=np.array([0b10001], np.uint8))
    assert A.bid_legal(round1)[0].tolist() == [True, False, False, False, True]


@pytest.fixture(scope="module")
def bid_rows():
    keep = KeepObservations()
    simulate_deals(R.BiancoManoConfig(n_players=4), L.RecordingPolicy(HeuristicPolicy(), keep),
                   40, seed=5)
    return [o for name, o in keep.auction if name == "bid"]


def _teacher(worlds=6):
    return A.AuctionTeacher(card=L.NetPolicy(auction=False), base=HeuristicPolicy(),
                        worlds=worlds, seed=3)


def test_the_bid_teacher_values_every_legal_bid_and_only_those(bid_rows):
    teacher = _teacher()
    for obs in (bid_rows[0], next(o for o in bid_rows if o.round == 2)):
        rows = np.arange(min(12, len(obs.hand)))
        values = teacher.bid_values(obs, rows)
        legal = L.BID.legal(obs)[rows]
        assert values.shape == (len(rows), 5)
        assert np.isfinite(values[legal]).all() and np.isnan(values[~legal]).all()
        assert (np.abs(values[legal]) <= 2).all()  # BM-10: a bidder wins or loses at most 2
        again = teacher.bid_values(obs, rows[-1:])  # alone: the same worlds, the same values
        assert np.array_equal(again[0], values[-1], equal_nan=True)


def test_the_last_pass_of_round_two_voids_the_deal(bid_rows):
    """BM-7: the dealer passing last in round 2 (everybody passed twice, as the worlds are
    kept) voids the deal: worth exactly 0 in every world."""
    obs = next(o for o in bid_rows if o.round == 2 and o.position == 3)
    values = _teacher().bid_values(obs, np.arange(len(obs.hand)))
    assert (values[:, 4] == 0.0).all()


def test_the_worlds_deal_the_bidders_cards_and_the_heuristics_passes_before_him(bid_rows):
    obs = next(o for o in bid_rows if o.round == 1 and o.position == 2)
    teacher = _teacher(worlds=8)
    hand, turned = int(obs.hand[0]), int(obs.turned_card[0])
    gen = row_generator(teacher.seed, obs.noise[0], hand, turned, 4, 2)
    deck = teacher._worlds(gen, 4, 2, 1, hand, turned, False)
    assert len(deck) == 8
    assert all(sorted(row.tolist()) == list(range(32)) for row in deck)  # whole decks
    first = max(R.FIRST_PACKET_CHOICES[4])
    mine = (np.uint32(1) << deck[:, A._slots(4, first, 2)].astype(np.uint32)).sum(
        axis=1, dtype=np.uint32)
    assert (mine == hand).all() and (deck[:, 20] == turned).all()
    heuristic = HeuristicPolicy()
    for p in (0, 1):  # the two players before him pass in each kept world
        held = (np.uint32(1) << deck[:, A._slots(4, first, p)].astype(np.uint32)).sum(
            axis=1, dtype=np.uint32)
        bids = heuristic.bid(BidObs(held, np.full(8, turned, np.int8),
                                    np.full(8, p + 1, np.int8), np.zeros(8, np.int8), p, 1,
                                    np.full(8, (1 << turned % 4) | 16, np.uint8), 4, False,
                                    None))
        assert (np.asarray(bids) == R.PASS).all()


def test_a_bid_read_back_from_its_labels_has_the_same_features(bid_rows):
    """The snapshot keeps the bidding round apart from the labels' own ``round`` column, so
    a round-2 bid read back is still a round-2 bid."""
    from analysis.learn import RESERVED_COLUMNS

    obs = next(o for o in bid_rows if o.round == 2)
    rows = np.arange(len(obs.hand))
    snap = L.BID.snapshot(obs, rows)
    assert not RESERVED_COLUMNS & set(snap)
    back = L.BID.restore(snap)
    assert (L.BID.features(back) == L.BID.features(obs)).all()
    assert (L.BID.legal(back) == L.BID.legal(obs)).all()
    assert (A.bid_features(obs)[:, 32 + 8 + 3 + A.MAX_PLAYERS + 1] == 1).all()  # round 2


def test_a_snapshot_naming_a_labels_column_is_refused():
    import dataclasses

    from simulators.core.learn.card_play import CardAndAuctionTeacher
    from simulators.core.learn.spec import Recorder

    bad = dataclasses.replace(L.BID, snapshot=lambda obs, rows: {"round": np.zeros(len(rows))})
    spec = dataclasses.replace(L.LEARN, decisions={"bid": bad})
    teacher = CardAndAuctionTeacher(card=None, auction=type("Zero", (), {
        "bid_values": staticmethod(lambda obs, rows: np.zeros((len(rows), 5)))})())
    obs = BidObs(np.array([_hand((0, 0), (1, 1), (2, 2), (3, 3), (4, 0))], np.uint32),
                 np.array([R.card(5, 0)], np.int8), np.ones(1, np.int8), np.zeros(1, np.int8),
                 0, 1, np.array([0b10001], np.uint8), 4, False, np.zeros(1))
    with pytest.raises(ValueError, match="'round', a column the labels keep"):
        Recorder(spec, ("bid",), teacher).see("bid", obs)


@pytest.mark.parametrize("n", R.PLAYER_COUNTS)
def test_the_taker_worlds_deal_him_his_cards_and_the_forced_espion_and_call(n):
    """The espion's and the call's worlds (BM-4..BM-6): each deck, with the forced bids,
    makes seat 1 the taker of the family asked, with exactly his cards; the forced espion
    and call are the ones played. One world holds no dominant card (a round-2 take)."""
    teacher = _teacher(worlds=5)
    gen = np.random.default_rng(8)
    size = R.HAND_SIZE[n] + R.ESPION_SIZE[n]
    for dominant, cards in ((2, gen.choice(32, size, replace=False)),
                            (1, [c for c in range(32) if c % 4 != 1][:size])):
        mask = sum(1 << int(c) for c in cards)
        deck, bids = teacher._dealt_to_taker(np.random.default_rng(3), n, mask, dominant)
        assert (bids[:, 0] == dominant).all() or (bids[:, n] == dominant).all()
        espion = sum(1 << int(c) for c in sorted(cards)[:2]) if R.ESPION_SIZE[n] else 0
        forced = {"espion": np.full(5, espion, np.uint32)}
        if n == 5:
            free = [c for c in range(32) if not mask >> c & 1 and c % 4 != dominant]
            forced["call"] = np.full(5, free[0], np.int8)
        arrays = play_batch(R.BiancoManoConfig(n_players=n),
                            A._Forcing(HeuristicPolicy(), n, forced), deck,
                            np.zeros(5, np.int64), np.zeros(5, np.int8), None, np.arange(5),
                            first_packet=max(R.FIRST_PACKET_CHOICES[n]), forced_bids=bids)
        assert (np.asarray(arrays.taker) == 1).all()
        assert (np.asarray(arrays.dominant) == dominant).all()
        assert (np.asarray(arrays.taker_hand) == mask).all()
        assert (np.asarray(arrays.espion) == espion).all()
        if n == 5:
            assert (np.asarray(arrays.called) == free[0]).all()


def test_the_espion_and_call_teachers_value_every_legal_option_and_only_those():
    keep = KeepObservations()
    simulate_deals(R.BiancoManoConfig(n_players=5), L.RecordingPolicy(HeuristicPolicy(), keep),
                   8, seed=5)
    teacher = _teacher(worlds=2)
    for name in ("espion", "call"):
        obs = next(o for k, o in keep.auction if k == name)
        rows = np.arange(2)
        values = getattr(teacher, f"{name}_values")(obs, rows)
        legal = L.LEARN.decisions[name].legal(obs)[rows]
        assert np.isfinite(values[legal]).all() and np.isnan(values[~legal]).all()
        assert (np.abs(values[legal]) <= 2).all()
        if name == "espion":
            assert (legal.sum(axis=1) == 28).all()  # two of his eight cards (BM-6)
            pick = A.espion_action(obs, np.flatnonzero(legal[0])[:1])
            assert bin(int(pick[0])).count("1") == 2 and int(pick[0]) & ~int(obs.hand[0]) == 0
