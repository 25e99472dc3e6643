"""The trick-taking kernel: each duty switch on literal positions, the trick winner,
dealing, the batch trick loop, and property tests of the legal mask (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.core import bits
from simulators.core import tricks as T
from simulators.core.dispatch import IllegalAction
from simulators.core.tricks import Duty, Obligations

HEARTS, SPADES, CLUBS, DIAMONDS = 0, 1, 2, 3  # suit names for reading only


def c(rank: int, suit: int) -> int:
    return T.card(rank, suit)


def mask(*cards: int) -> int:
    return bits.mask_of(cards)


def trick_of(cards, trump: int) -> T.Trick:
    """A one-row trick after ``cards`` were played in order."""
    trick = T.new_trick(1)
    for position, card in enumerate(cards):
        trick = T.add_card(trick, np.array([card], np.int8), position, T.SUIT_MASK[trump])
    return trick


def legal(hand: int, played, trump: int, duties: Obligations, opponent_holds=True) -> int:
    out = T.legal_mask(np.array([hand], np.uint32), trick_of(played, trump),
                       T.SUIT_MASK[trump], duties, np.array([opponent_holds]))
    return int(out[0])


STRICT = Obligations(follow=True, beat=Duty.NEVER, trump=Duty.ALWAYS, overtrump=Duty.ALWAYS,
                     undertrump=True)  # a table like Bianco Mano's BM-8
COURTEOUS = Obligations(follow=True, beat=Duty.OPPONENT_HOLDS, trump=Duty.OPPONENT_HOLDS,
                        overtrump=Duty.OPPONENT_HOLDS, undertrump=False)  # like Manille's MA-5


# ---------------------------------------------------------------- encoding and points


def test_encoding_rank_major_strongest_first():
    assert c(0, SPADES) == 1 and c(7, DIAMONDS) == 31
    assert T.rank_of(c(5, CLUBS)) == 5 and T.suit_of(c(5, CLUBS)) == CLUBS
    assert int(T.SUIT_MASK[HEARTS]) == mask(*(c(r, HEARTS) for r in range(8)))
    assert int(T.SUIT_MASK[T.NO_TRUMP]) == 0
    assert int(T.RANK_MASK[2]) == mask(8, 9, 10, 11)
    assert int(T.STRONGER[c(3, CLUBS)]) == mask(c(0, CLUBS), c(1, CLUBS), c(2, CLUBS))
    assert int(T.STRONGER[c(0, CLUBS)]) == 0


def test_cut_drawer_uniform_or_weighted():
    gen = np.random.default_rng(0)
    cuts = T.cut_drawer()(gen, 5000)
    assert cuts.dtype == np.int8 and cuts.min() == 1 and cuts.max() == 31
    weights = [0.0] * 31
    weights[9] = 1.0  # only cut point 10
    assert (T.cut_drawer(weights)(gen, 100) == 10).all()


def test_strongest_and_weakest_card_of_a_mask():
    hands = np.array([mask(c(6, SPADES), c(2, CLUBS), c(4, HEARTS)), 0], dtype=np.uint32)
    assert T.strongest(hands).tolist() == [mask(c(2, CLUBS)), 0]
    assert T.weakest(hands).tolist() == [mask(c(6, SPADES)), 0]


def test_points_per_rank():
    points = (5, 4, 3, 2, 1, 0, 0, 0)
    assert int(T.mask_points(np.uint32(0xFFFFFFFF), points)) == 4 * 15
    hand = mask(c(0, HEARTS), c(0, SPADES), c(4, CLUBS), c(7, DIAMONDS))
    assert int(T.mask_points(np.uint32(hand), points)) == 11
    assert T.card_points(points)[c(1, DIAMONDS)] == 4
    with pytest.raises(ValueError, match="rank_points must give 8"):
        T.card_points((1, 2))


# ---------------------------------------------------------------- duties, literal positions


def test_leader_may_play_anything():
    hand = mask(c(0, HEARTS), c(3, SPADES), c(7, CLUBS))
    assert legal(hand, [], HEARTS, STRICT) == hand


def test_follow_the_led_suit():
    hand = mask(c(2, SPADES), c(6, SPADES), c(0, CLUBS))
    assert legal(hand, [c(4, SPADES)], HEARTS, STRICT) == mask(c(2, SPADES), c(6, SPADES))


def test_no_duty_to_follow():
    hand = mask(c(2, SPADES), c(0, CLUBS), c(1, HEARTS))
    free = T.FREE_PLAY
    assert legal(hand, [c(4, SPADES)], HEARTS, free) == hand
    assert legal(hand, [c(4, SPADES)], T.NO_TRUMP, free) == hand


@pytest.mark.parametrize("beat, opponent_holds, expected", [
    (Duty.NEVER, True, "both"),
    (Duty.ALWAYS, True, "beater"),
    (Duty.ALWAYS, False, "beater"),
    (Duty.OPPONENT_HOLDS, True, "beater"),
    (Duty.OPPONENT_HOLDS, False, "both"),
])
def test_beat_when_following(beat, opponent_holds, expected):
    hand = mask(c(1, SPADES), c(6, SPADES), c(0, CLUBS))
    duties = Obligations(beat=beat)
    want = mask(c(1, SPADES)) if expected == "beater" else mask(c(1, SPADES), c(6, SPADES))
    assert legal(hand, [c(5, SPADES), c(3, SPADES)], HEARTS, duties, opponent_holds) == want


def test_beat_when_unable_any_card_of_the_led_suit():
    hand = mask(c(6, SPADES), c(7, SPADES), c(0, CLUBS))
    duties = Obligations(beat=Duty.ALWAYS)
    assert legal(hand, [c(2, SPADES)], HEARTS, duties) == mask(c(6, SPADES), c(7, SPADES))


def test_beat_only_a_led_suit_winner_not_a_trump():
    """The trick was trumped: following, any card of the led suit."""
    hand = mask(c(1, SPADES), c(6, SPADES))
    duties = Obligations(beat=Duty.ALWAYS)
    assert legal(hand, [c(5, SPADES), c(7, HEARTS)], HEARTS, duties) == hand


@pytest.mark.parametrize("trump, opponent_holds, must", [
    (Duty.ALWAYS, True, True), (Duty.ALWAYS, False, True),
    (Duty.OPPONENT_HOLDS, True, True), (Duty.OPPONENT_HOLDS, False, False),
    (Duty.NEVER, True, False),
])
def test_trump_when_void(trump, opponent_holds, must):
    hand = mask(c(6, HEARTS), c(2, HEARTS), c(0, CLUBS))
    duties = Obligations(trump=trump)
    want = mask(c(6, HEARTS), c(2, HEARTS)) if must else hand
    assert legal(hand, [c(3, SPADES)], HEARTS, duties, opponent_holds) == want


def test_void_without_trumps_discards_anything():
    hand = mask(c(0, CLUBS), c(7, DIAMONDS))
    assert legal(hand, [c(3, SPADES)], HEARTS, STRICT) == hand


def test_must_overtrump_a_trump():
    hand = mask(c(1, HEARTS), c(6, HEARTS), c(0, CLUBS))
    played = [c(3, SPADES), c(4, HEARTS)]
    assert legal(hand, played, HEARTS, STRICT) == mask(c(1, HEARTS))


def test_undertrump_when_unable_to_overtrump():
    hand = mask(c(5, HEARTS), c(6, HEARTS), c(0, CLUBS))
    played = [c(3, SPADES), c(2, HEARTS)]
    assert legal(hand, played, HEARTS, STRICT) == mask(c(5, HEARTS), c(6, HEARTS))


def test_no_undertrump_duty_discards_anything():
    hand = mask(c(5, HEARTS), c(6, HEARTS), c(0, CLUBS))
    played = [c(3, SPADES), c(2, HEARTS)]
    assert legal(hand, played, HEARTS, COURTEOUS, opponent_holds=True) == hand


def test_no_overtrump_duty_any_trump():
    hand = mask(c(1, HEARTS), c(6, HEARTS), c(0, CLUBS))
    duties = Obligations(overtrump=Duty.NEVER)
    assert legal(hand, [c(3, SPADES), c(4, HEARTS)], HEARTS, duties) == mask(c(1, HEARTS),
                                                                             c(6, HEARTS))


def test_trump_led_following_must_beat_the_best_trump():
    """Overtrumping applies to following in trumps too, with no duty to beat led cards."""
    hand = mask(c(1, HEARTS), c(6, HEARTS))
    assert legal(hand, [c(4, HEARTS), c(2, HEARTS)], HEARTS, STRICT) == mask(c(1, HEARTS))
    no_over = Obligations(overtrump=Duty.NEVER)
    assert legal(hand, [c(4, HEARTS), c(2, HEARTS)], HEARTS, no_over) == hand


def test_optional_trump_must_overtrump_if_played():
    """No duty to trump, but a trump played on a trump must beat it when it can."""
    hand = mask(c(1, HEARTS), c(6, HEARTS), c(0, CLUBS))
    duties = Obligations(trump=Duty.NEVER, overtrump=Duty.ALWAYS)
    got = legal(hand, [c(3, SPADES), c(4, HEARTS)], HEARTS, duties)
    assert got == mask(c(1, HEARTS), c(0, CLUBS))


@pytest.mark.parametrize("opponent_holds", [True, False])
def test_partner_exception(opponent_holds):
    """Partner holds the trick: follow or anything; an opponent: beat, trump, overtrump."""
    hand = mask(c(1, SPADES), c(6, SPADES))
    led = legal(hand, [c(5, SPADES), c(3, SPADES)], HEARTS, COURTEOUS, opponent_holds)
    assert led == (mask(c(1, SPADES)) if opponent_holds else hand)
    void = mask(c(1, HEARTS), c(6, HEARTS), c(0, CLUBS))
    got = legal(void, [c(3, SPADES)], HEARTS, COURTEOUS, opponent_holds)
    assert got == (mask(c(1, HEARTS), c(6, HEARTS)) if opponent_holds else void)
    got = legal(void, [c(3, SPADES), c(4, HEARTS)], HEARTS, COURTEOUS, opponent_holds)
    assert got == (mask(c(1, HEARTS)) if opponent_holds else void)
    assert COURTEOUS.partner_exception and not STRICT.partner_exception


def test_no_trump_follow_or_discard():
    hand = mask(c(1, HEARTS), c(6, SPADES), c(0, CLUBS))
    assert legal(hand, [c(3, CLUBS)], T.NO_TRUMP, STRICT) == mask(c(0, CLUBS))
    assert legal(hand, [c(3, DIAMONDS)], T.NO_TRUMP, STRICT) == hand
    beat = Obligations(beat=Duty.OPPONENT_HOLDS, trump=Duty.OPPONENT_HOLDS)
    two_clubs = mask(c(1, CLUBS), c(6, CLUBS))
    assert legal(two_clubs, [c(3, CLUBS)], T.NO_TRUMP, beat) == mask(c(1, CLUBS))
    assert legal(two_clubs, [c(3, CLUBS)], T.NO_TRUMP, STRICT) == two_clubs


def test_obligations_validated():
    with pytest.raises(ValueError, match="Obligations.beat must be a Duty"):
        Obligations(beat="always")
    with pytest.raises(ValueError, match="Obligations.follow must be a bool"):
        Obligations(follow=1)


# ---------------------------------------------------------------- trick winner


def test_trick_winner_trump_led_and_discards():
    def winner(cards, trump, rank_only=False):
        trick = T.new_trick(1)
        for position, card in enumerate(cards):
            trick = T.add_card(trick, np.array([card], np.int8), position, T.SUIT_MASK[trump],
                               rank_only)
        return int(T.winning_position(trick)[0])

    assert winner([c(4, SPADES), c(2, SPADES), c(0, CLUBS), c(3, SPADES)], HEARTS) == 1
    assert winner([c(4, SPADES), c(2, SPADES), c(7, HEARTS), c(0, HEARTS)], HEARTS) == 3
    assert winner([c(4, SPADES), c(0, CLUBS)], T.NO_TRUMP) == 0
    assert winner([c(4, SPADES), c(0, CLUBS)], CLUBS) == 1
    assert winner([c(4, SPADES), c(2, CLUBS)], HEARTS, rank_only=True) == 1
    assert winner([c(2, SPADES), c(2, CLUBS)], HEARTS, rank_only=True) == 0


# ---------------------------------------------------------------- dealing


def test_cut_and_packets():
    deck = np.arange(32, dtype=np.int8)[None, :]
    post = T.cut_decks(deck, np.array([5]))
    assert post[0, :3].tolist() == [5, 6, 7] and post[0, -1] == 4
    hands = T.deal_packets(post, 4, (3, 2))
    assert bits.cards_of(int(hands[0, 0])) == [5, 6, 7, 17, 18]
    assert bits.cards_of(int(hands[0, 3])) == [14, 15, 16, 23, 24]
    prefix = T.prefix_masks(post)
    assert bits.cards_of(int(T.range_mask(prefix, 0, 2)[0])) == [5, 6]
    assert T.seat_at(3, 1, 4, T.COUNTER_CLOCKWISE) == 2 and T.seat_at(3, 1, 4) == 0


# ---------------------------------------------------------------- the loop


def _strongest_legal(view):
    return bits.bit_index(bits.lowest_bit(view.legal))


def test_loop_literal_deal_counter_clockwise():
    """Two tricks, four seats, counter-clockwise, hearts trump, strongest legal card each."""
    hands = np.array([[mask(c(0, SPADES), c(5, CLUBS)), mask(c(3, SPADES), c(1, HEARTS)),
                       mask(c(2, SPADES), c(0, CLUBS)), mask(c(6, DIAMONDS), c(7, HEARTS))]],
                     dtype=np.uint32)
    rec = T.play_tricks(hands, np.array([0]), 2, T.SUIT_MASK[HEARTS], STRICT,
                        choose=_strongest_legal, direction=T.COUNTER_CLOCKWISE)
    # trick 1: seat 0 leads 0S, seat 3 trumps (7H), seat 2 follows 2S, seat 1 follows 3S
    assert rec.plays[0, 0].tolist() == [c(0, SPADES), c(7, HEARTS), c(2, SPADES), c(3, SPADES)]
    assert rec.winners[0].tolist()[0] == 3 and rec.leaders[0].tolist() == [0, 3]
    # trick 2: seat 3 leads 6D; seat 2 discards 0C, seat 1 trumps 1H, seat 0 discards 5C
    assert rec.plays[0, 1].tolist() == [c(6, DIAMONDS), c(0, CLUBS), c(1, HEARTS), c(5, CLUBS)]
    assert rec.winners[0, 1] == 1
    assert rec.tricks_won[0].tolist() == [0, 1, 0, 1]
    assert int(rec.won[0, 1]) == mask(c(6, DIAMONDS), c(0, CLUBS), c(1, HEARTS), c(5, CLUBS))
    assert int(rec.hands.sum()) == 0


def test_loop_hook_ends_rows_and_sees_each_card():
    hands = np.tile(np.array([[mask(0, 4), mask(1, 5)]], dtype=np.uint32), (3, 1))
    seen = []

    def before(view, record):
        seen.append((view.trick, view.position, None if view.rows is None else view.rows.tolist()))
        if view.trick == 1 and view.position == 0:
            return np.array([r == 1 for r in range(len(view.seat))])
        return None

    rec = T.play_tricks(hands, 0, 2, np.uint32(0), T.FREE_PLAY, choose=_strongest_legal,
                        before_card=before, rank_only=True)
    assert seen == [(0, 0, None), (0, 1, None), (1, 0, None), (1, 1, [0, 2])]
    assert rec.plays[1, 1].tolist() == [-1, -1] and rec.plays[0, 1].tolist() == [4, 5]
    # rank-only strength: 0 and 1 are both rank 0, a tie: no winner, the leader leads again
    assert rec.winners[0].tolist() == [-1, -1] and rec.leaders[0].tolist() == [0, 0]


def test_loop_rejects_an_illegal_card():
    hands = np.array([[mask(c(0, SPADES)), mask(c(3, SPADES), c(1, HEARTS))]], dtype=np.uint32)

    def weakest(view):
        return bits.bit_index(bits.lowest_bit(view.hand))  # ignores legality: 1H on a spade

    with pytest.raises(IllegalAction, match=r"unit 7: play card 4 by seat 1 in trick 1; "
                                            r"legal: \[13\] \(1 rows\)"):
        T.play_tricks(hands, 0, 1, T.SUIT_MASK[CLUBS], STRICT, choose=weakest,
                      units=np.array([7]))
    with pytest.raises(ValueError, match="direction"):
        T.play_tricks(hands, 0, 1, 0, STRICT, choose=weakest, direction=2)


def test_loop_random_play_conserves_cards():
    gen = np.random.default_rng(3)
    n_rows = 500
    deck = np.argsort(gen.random((n_rows, 32)), axis=1).astype(np.int8)
    hands = T.deal_packets(deck, 4, (3, 2, 3))
    trump = gen.integers(0, 5, n_rows)
    rec = T.play_tricks(hands, gen.integers(0, 4, n_rows), 8, T.SUIT_MASK[trump], COURTEOUS,
                        choose=lambda v: bits.random_bit(v.legal, gen.random(len(v.legal))),
                        team=np.array([0, 1, 0, 1]), direction=T.COUNTER_CLOCKWISE)
    assert (np.bitwise_or.reduce(rec.won, axis=1) == np.uint32(0xFFFFFFFF)).all()
    assert (rec.tricks_won.sum(axis=1) == 8).all()
    assert (np.sort(rec.plays.reshape(n_rows, 32), axis=1) == np.arange(32)).all()


# ---------------------------------------------------------------- properties


duties_st = st.builds(
    Obligations, follow=st.booleans(), beat=st.sampled_from(Duty), trump=st.sampled_from(Duty),
    overtrump=st.sampled_from(Duty), undertrump=st.booleans())


@st.composite
def positions(draw):
    """A hand and a trick in progress, disjoint, with up to 4 cards on the table."""
    cards = draw(st.permutations(range(32)))
    n_table = draw(st.integers(0, 4))
    n_hand = draw(st.integers(1, 10))
    table = list(cards[:n_table])
    hand = mask(*cards[n_table:n_table + n_hand])
    return hand, table, draw(st.integers(0, 4)), draw(st.booleans())


@settings(max_examples=400, deadline=None)
@given(positions(), duties_st)
def test_legal_mask_never_empty_and_within_the_hand(position, duties):
    hand, table, trump, opponent_holds = position
    got = legal(hand, table, trump, duties, opponent_holds)
    assert got != 0
    assert got & ~hand == 0
    if not table:
        assert got == hand


@settings(max_examples=100, deadline=None)
@given(positions(), duties_st)
def test_legal_mask_batched_equals_one_by_one(position, duties):
    """A batch row's answer does not depend on its neighbours."""
    hand, table, trump, opponent_holds = position
    one = legal(hand, table, trump, duties, opponent_holds)
    trick = trick_of(table, trump)
    batch = T.Trick(*(np.repeat(np.asarray(a), 3) for a in trick))
    hands = np.array([hand, 0xFFFFFFFF & ~mask(*table), hand], dtype=np.uint32)
    got = T.legal_mask(hands, batch, T.SUIT_MASK[trump], duties,
                       np.array([opponent_holds, not opponent_holds, opponent_holds]))
    assert int(got[0]) == one == int(got[2])


def test_shuffled_decks_equal_rng_permutations():
    """The compiled shuffle draws the same numbers and yields the same decks."""
    from simulators.core import rng

    for n_cards in (32, 7, 2):
        want = rng.permutations(np.random.default_rng(5), 2_000, n_cards)
        got = T.shuffled_decks(np.random.default_rng(5), 2_000, n_cards)
        assert got.dtype == want.dtype and (got == want).all()


def test_cut_decks_matches_a_rotation():
    gen = np.random.default_rng(1)
    decks = np.argsort(gen.random((50, 32)), axis=1).astype(np.int8)
    cuts = gen.integers(1, 32, 50)
    got = T.cut_decks(decks, cuts)
    assert all((got[i] == np.roll(decks[i], -cuts[i])).all() for i in range(50))


def test_loop_several_duty_tables_by_row():
    """Rows under different tables in one batch play as they would alone."""
    gen = np.random.default_rng(8)
    n_rows = 300
    deck = np.argsort(gen.random((n_rows, 32)), axis=1).astype(np.int8)
    hands = T.deal_packets(deck, 4, (3, 2, 3))
    trump = np.where(np.arange(n_rows) % 3 == 0, T.NO_TRUMP, np.arange(n_rows) % 4)
    no_trump = Obligations(beat=Duty.NEVER, trump=Duty.NEVER, overtrump=Duty.NEVER,
                           undertrump=False)
    table = (trump == T.NO_TRUMP).astype(np.int8)
    team = np.array([0, 1, 0, 1])
    mixed = T.play_tricks(hands, 0, 8, T.SUIT_MASK[trump], (COURTEOUS, no_trump), table=table,
                          choose=_strongest_legal, team=team)
    for which, duties in ((0, COURTEOUS), (1, no_trump)):
        rows = table == which
        alone = T.play_tricks(hands[rows], 0, 8, T.SUIT_MASK[trump[rows]], duties,
                              choose=_strongest_legal, team=team)
        assert (alone.plays == mixed.plays[rows]).all()
    with pytest.raises(ValueError, match="table: each row's index"):
        T.play_tricks(hands, 0, 8, 0, (COURTEOUS, no_trump), choose=_strongest_legal)
    with pytest.raises(ValueError, match="table must index obligations"):
        T.play_tricks(hands, 0, 8, 0, (COURTEOUS,), table=2, choose=_strongest_legal)


def test_loop_hook_reads_the_record_so_far():
    """A game that ends when a player holds two tricks (three tricks, two players)."""
    hands = np.array([[mask(0, 8, 30), mask(4, 12, 16)],     # seat 0 wins tricks 1 and 2
                      [mask(0, 12, 20), mask(4, 8, 24)]], dtype=np.uint32)  # 1-1, then 0
    ends = []

    def before(view, record):
        done = (record.tricks_won.max(axis=1) >= 2)
        if view.rows is not None:
            done = done[view.rows]
        ends.append((view.trick, view.position, done.tolist()))
        return done

    def leader_strongest(view):
        return _strongest_legal(view)

    rec = T.play_tricks(hands, 0, 3, np.uint32(0), T.FREE_PLAY, choose=leader_strongest,
                        before_card=before, rank_only=True)
    assert rec.winners[0].tolist() == [0, 0, -1] and rec.plays[0, 2].tolist() == [-1, -1]
    assert rec.winners[1].tolist() == [0, 1, 0]
    assert ends[4] == (2, 0, [True, False])
