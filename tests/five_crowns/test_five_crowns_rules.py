"""Hand-computed tests of the Five Crowns referee, one group per ruling FC-1..FC-8.

Every expected value below was worked out by hand from RULINGS.md and the
French rule text, not by running the code. Cards are written in the rules'
notation (``10H``, ``Q*`` for stars, ``JK`` a joker); decks and stocks are
listed top first. The exhaustive search at the end of the FC-4 group is a
second, brute-force meld solver built only on :func:`is_meld`.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from functools import cache

import pytest

from simulators.five_crowns.referee import (
    RuleViolation,
    best_arrangement,
    deal_round,
    deal_solitaire,
    full_deck,
    game_winners,
    is_book,
    is_meld,
    is_run,
    melds_fully,
    min_penalty,
    replay_game,
    replay_round,
    replay_solitaire,
)
from simulators.five_crowns.rules import (
    JOKER,
    FiveCrownsConfig,
    RoundRecord,
    SolitaireRecord,
    cards_dealt,
    format_card,
    kind_of,
    parse_card,
    parse_cards,
    penalty,
    suited,
    wild_rank,
)

H, D, STARS = 0, 1, 4


def C(text: str) -> list[int]:
    """Kinds from notation, in the order written."""
    return parse_cards(text)


def K(text: str) -> int:
    """One kind from notation."""
    return parse_card(text)


def T(seat: int, took_discard: bool, card: str, went_out: bool = False) -> tuple:
    """A turn tuple ``(seat, took_discard, discard_kind, went_out)``."""
    return (seat, took_discard, K(card), went_out)


def the_116_cards() -> Counter:
    """The deck written independently of the referee: 2 sets of 55 suited + 3 jokers (FC-1)."""
    one_set = [suited(r, s) for s in range(5) for r in range(3, 14)] + [JOKER] * 3
    return Counter(one_set * 2)


def build_deck(top: list[int], bottom: list[int] = ()) -> tuple[int, ...]:
    """A 116-card deck starting with ``top``, ending with ``bottom``, the rest sorted between."""
    rest = the_116_cards()
    rest.subtract(list(top) + list(bottom))
    assert min(rest.values()) >= 0, "more copies than the deck holds"
    return tuple(top) + tuple(sorted(rest.elements())) + tuple(bottom)


def round_deck(hands: dict[int, list[int]], dealer: int, first_discard: int,
               stock_top: list[int] = ()) -> tuple[int, ...]:
    """A deck dealing ``hands[seat]`` (in order), one card at a time from the dealer's left."""
    n = len(hands)
    size = len(hands[0])
    top = [hands[(dealer + 1 + j) % n][i] for i in range(size) for j in range(n)]
    return build_deck(top + [first_discard] + list(stock_top))


# ---------------------------------------------------------------------------
# FC-1 deck
# ---------------------------------------------------------------------------


def test_fc1_deck_composition():
    deck = full_deck()
    assert len(deck) == 116
    assert Counter(deck) == the_116_cards()
    counts = Counter(deck)
    assert counts[JOKER] == 6
    assert all(counts[k] == 2 for k in range(55))
    # 5 suits x 11 ranks 3..K, one notation per kind, round trip.
    names = {format_card(k) for k in range(56)}
    assert len(names) == 56 and "JK" in names and "10*" in names and "KS" in names
    assert all(parse_card(format_card(k)) == k for k in range(56))
    # Physical ids: the two sets fold onto the same kinds, the 3 jokers of a set onto JK.
    assert [kind_of(i) for i in (0, 58, 55, 56, 57, 115)] == [0, 0, JOKER, JOKER, JOKER, JOKER]


def _any_round_record(deck) -> RoundRecord:
    """A 2-player round-1 record on ``deck`` with no turns."""
    return RoundRecord(n_players=2, round_no=1, dealer=0, deck=tuple(deck), turns=())


def test_fc1_deck_must_be_the_116_card_multiset():
    good = build_deck([])
    assert replay_round(_any_round_record(good)).went_out == -1
    short = good[:-1]
    third_3h = (K("3H"),) + good[:-1]  # a third 3H, one joker (the last card) missing
    not_a_kind = good[:-1] + (56,)
    for bad in (short, third_3h, not_a_kind):
        with pytest.raises(RuleViolation, match=r"^FC-1:"):
            replay_round(_any_round_record(bad))
    with pytest.raises(RuleViolation, match=r"^FC-1:"):
        replay_solitaire(SolitaireRecord(deck=third_3h, moves=()))


# ---------------------------------------------------------------------------
# FC-2 rounds, deal, wilds
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("round_no, dealt, wild", [
    (1, 3, 3), (2, 4, 4), (4, 6, 6), (6, 8, 8), (8, 10, 10), (9, 11, 11), (10, 12, 12),
    (11, 13, 13),
])
def test_fc2_cards_dealt_and_wild_rank(round_no, dealt, wild):
    assert cards_dealt(round_no) == dealt
    assert wild_rank(round_no) == wild  # 11 J, 12 Q, 13 K


def test_fc2_wild_cards_are_jokers_and_the_round_rank():
    # Round 9: Jacks wild. JH is wild, 10H is not; the joker always is.
    assert melds_fully(C("10H JS JK"), 11)
    assert not melds_fully(C("10H JS 9D"), 11)
    assert melds_fully(C("9D JS JH"), 11)
    assert not melds_fully(C("9D JS JH"), 12)  # round 10: Queens wild, JS JH natural


def test_fc2_deal_one_card_at_a_time_from_the_dealers_left():
    # 3 players, dealer seat 2, round 1: seat 0 gets cards 0, 3, 6; seat 1 cards 1, 4, 7;
    # seat 2 (the dealer) cards 2, 5, 8; card 9 starts the discard pile.
    top = C("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")
    deck = build_deck(top)
    hands, first_discard, stock = deal_round(deck, 3, 1, 2)
    assert hands == [C("3H 6H 9H"), C("4H 7H 10H"), C("5H 8H JH")]
    assert first_discard == K("QH")
    assert stock[0] == K("KH") and len(stock) == 116 - 9 - 1


def test_fc2_first_turn_is_the_dealers_left():
    deck = round_deck({0: C("5C 5D 9*"), 1: C("4H 7D KS")}, dealer=0, first_discard=K("QC"),
                      stock_top=C("3D"))
    bad = RoundRecord(2, 1, 0, deck, turns=(T(0, False, "3D"),))
    with pytest.raises(RuleViolation, match=r"^FC-2: turn 0: seat 0 plays, expected seat 1"):
        replay_round(bad)


# ---------------------------------------------------------------------------
# FC-3 turn, FC-5 going out: a full 3-player round, every turn by hand
# ---------------------------------------------------------------------------

# Round 2 (4 cards, 4s wild), dealer seat 0, seat 1 starts.
ROUND2_HANDS = {1: C("5H 6H 9C QD"), 2: C("8S 8D KC 3*"), 0: C("JK 10C 10D 7S")}
ROUND2_DECK = round_deck(ROUND2_HANDS, dealer=0, first_discard=K("7H"),
                         stock_top=C("QS 4D 8C"))
ROUND2_TURNS = (
    T(1, True, "QD"),          # takes 7H: 5H 6H 7H 9C
    T(2, False, "QS"),         # draws QS, throws it back: 8S 8D KC 3*
    T(0, True, "7S"),          # takes QS: JK 10C 10D QS
    T(1, False, "9C", True),   # draws 4D (wild): 5H 6H 7H 4D is a run, goes out
    T(2, False, "KC"),         # last turn, draws 8C: 8S 8D 8C book, 3* left -> 3
    T(0, True, "QS"),          # last turn, takes KC: 10C 10D JK book, KC left -> 13
)
ROUND2 = RoundRecord(n_players=3, round_no=2, dealer=0, deck=ROUND2_DECK, turns=ROUND2_TURNS)


def with_turns(record: RoundRecord, turns) -> RoundRecord:
    """The record with other turns."""
    return dataclasses.replace(record, turns=tuple(turns))


def test_fc3_fc5_three_player_round_by_hand():
    result = replay_round(ROUND2, FiveCrownsConfig(n_players=3))
    assert result.wild == 4 and result.round_no == 2 and result.dealer == 0
    assert result.went_out == 1
    assert result.hands == (tuple(sorted(C("JK 10C 10D KC"))), tuple(sorted(C("5H 6H 7H 4D"))),
                            tuple(sorted(C("8S 8D 8C 3*"))))
    assert result.penalties == (13, 0, 3)
    assert result.turns_taken == (2, 2, 2)
    assert result.reshuffles == 0


def test_fc3_discard_must_be_in_hand():
    turns = list(ROUND2_TURNS)
    turns[0] = T(1, True, "KH")
    with pytest.raises(RuleViolation, match=r"^FC-3: turn 0, seat 1 discarded KH not in hand"):
        replay_round(with_turns(ROUND2, turns))
    # The stock top (QS) is not the discard top (QD after turn 0): taking the discard
    # and throwing QS is illegal.
    turns = list(ROUND2_TURNS)
    turns[1] = T(2, True, "QS")
    with pytest.raises(RuleViolation, match=r"^FC-3: turn 1, seat 2 discarded QS"):
        replay_round(with_turns(ROUND2, turns))


def test_fc3_going_out_needs_every_card_in_melds():
    turns = list(ROUND2_TURNS)
    turns[3] = T(1, False, "4D", True)  # keeps 5H 6H 7H 9C: 9C does not meld
    with pytest.raises(RuleViolation, match=r"^FC-3: turn 3: seat 1 goes out but"):
        replay_round(with_turns(ROUND2, turns))


def test_fc3_play_goes_clockwise():
    turns = list(ROUND2_TURNS)
    turns[1], turns[2] = turns[2], turns[1]
    with pytest.raises(RuleViolation, match=r"^FC-3: turn 1: seat 0 plays, expected seat 2"):
        replay_round(with_turns(ROUND2, turns))


def test_fc3_may_discard_the_card_just_taken_from_the_discard_pile():
    # FC-3 does not forbid it: seat 1 takes 7H and throws it back.
    result = replay_round(with_turns(ROUND2, [T(1, True, "7H"), T(2, True, "7H")]))
    assert result.hands[1] == tuple(sorted(C("5H 6H 9C QD")))
    assert result.went_out == -1 and result.turns_taken == (0, 1, 1)


def test_fc3_going_out_is_optional():
    # Seat 1 could go out at turn 3 but does not; the record then just stops (no config).
    turns = list(ROUND2_TURNS[:3]) + [T(1, False, "9C", False)]
    result = replay_round(with_turns(ROUND2, turns))
    assert result.went_out == -1
    # seat 0: JK 10C 10D QS -> 10C 10D JK book, QS left: 12; seat 1: 5H 6H 7H 4D: 0;
    # seat 2: 8S 8D KC 3* melds nothing (4s wild): 8 + 8 + 13 + 3 = 32.
    assert result.penalties == (12, 0, 32)


# ---------------------------------------------------------------------------
# FC-4 melds
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("cards, wild, expected", [
    ("7H 7D 7C", 3, True),
    ("7H 7H 7D", 3, True),       # identical twins allowed
    ("7H 7D", 3, False),         # 3 cards at least
    ("7H 7D 8C", 3, False),
    ("7H 7D JK", 3, True),
    ("7H 7D 3C", 3, True),       # 3C is wild in round 1
    ("7H 7D 3C", 4, False),      # ... not in round 2
    ("7H JK JK JK JK", 5, True),  # several wilds
    ("JK JK 5S", 5, True),       # wilds alone
])
def test_fc4_books(cards, wild, expected):
    assert is_book(C(cards), wild) is expected


@pytest.mark.parametrize("cards, wild, expected", [
    ("5H 6H 7H", 3, True),
    ("7H 5H 6H", 3, True),       # order does not matter
    ("5H 6H 7D", 3, False),      # one suit
    ("5H 6H", 3, False),
    ("5H 7H JK", 3, True),       # the joker is the 6
    ("5H 8H JK", 3, False),      # a gap of two needs two wilds
    ("5H 8H JK JK", 3, True),
    ("5H JK JK JK 9H", 3, True),  # several wilds in one run
    ("QH KH 3H", 4, False),      # no wrap
    ("QH KH JK", 4, True),       # J Q K
    ("KH JK JK", 4, True),       # J Q K again: wilds may extend the low end
    ("5H 5H 6H 7H", 3, False),   # never two cards for the same rank
    ("5H JK 6H 7H", 3, True),
    ("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", 14 - 11, True),   # all 11 ranks (3H wild)
    ("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK", 4, False),  # 12 cards cannot be one run
    ("JK 4D 6D", 6, True),       # 6D is the 6 (or the wild): 4 5 6
    ("JK JK 6C", 6, True),       # wilds alone
])
def test_fc4_runs(cards, wild, expected):
    assert is_run(C(cards), wild) is expected


def test_fc4_meld_is_book_or_run():
    assert is_meld(C("9H 9S 9*"), 3) and is_meld(C("9H 10H JH"), 3)
    assert not is_meld(C("9H 10S JH"), 3)
    assert not is_meld(C("JK JK"), 3)


def test_fc5_card_penalties():
    # Round 4: 6s wild.
    assert [penalty(K(c), 6) for c in ("3H", "9C", "10D", "JS", "Q*", "KH", "6D", "JK")] == \
        [3, 9, 10, 11, 12, 13, 20, 50]
    # Round 11: Kings wild, they cost 20 instead of 13.
    assert penalty(K("KH"), 13) == 20 and penalty(K("6D"), 13) == 6


@pytest.mark.parametrize("cards, wild, expected", [
    ("3H 3D 3C", 5, 0),
    ("3H 4H 6H", 9, 13),          # no meld: 3 + 4 + 6
    ("3H 4H 6H 9C", 9, 0),        # 9C is the 5
    ("KH QH 3H", 4, 28),          # no wrap: 13 + 12 + 3
    ("KH QH 3H JK", 4, 3),        # JK is the J; 3H left
    ("7H 7H 7D 8C", 3, 8),        # twins book, 8C left
    ("5H 5H 6H 7H", 3, 5),        # one 5 in the run, the other left
    ("5H 5H 6H 6H 7H 7H", 3, 0),  # two runs 5 6 7
    ("JK 4C 10S KD", 6, 77),      # one wild cannot make a meld of two unrelated cards
    ("JK JK KD 4C", 6, 4),        # JK JK KD; 4C left (rather than KD)
    ("JK 6H 4C 4D", 6, 0),        # both wilds join 4C 4D: a book of four
    ("6H 4C 9D", 6, 33),          # a lone wild with nothing to meld: 20 + 4 + 9
    ("JK 6H 6D", 6, 0),           # a meld of wilds alone
    ("5S 7S 9S JK", 3, 5),        # JK as 8: 7 8 9, 5S left (not 5 6 7 leaving 9)
    ("7H 8H 9H 7D 7C", 3, 14),    # run 7H 8H 9H (leaves 7+7) beats book of 7s (leaves 8+9)
    ("7H 8H 9H 7D 7C JK", 3, 0),  # both: 7H 8H 9H and 7D 7C JK
    ("3H 4H 5H 6D 6D 6C 9S 10S JS QS 4* 8* KH JK", 13, 4),  # 14 cards: 8* KH JK, 4* left
    ("3C JH JD JS 8H 9H 10H", 6, 3),  # Sophie, before discarding 3C
    ("JH JD JS 8H 9H 10H", 6, 0),     # ... after: book of Jacks and run 8 9 10
    ("3H 4H 5H 6H 7H 8H 9H 10H JH QH KS JK", 13, 0),  # 11-card run + a spare wild
    ("3H 5H 7H 9H JH KH 3D 5D 7D 9D JD KD JK JK", 4, 48),  # each JK joins J K: J Q K
])
def test_fc4_fc5_min_penalty_hand_worked(cards, wild, expected):
    kinds = C(cards)
    assert min_penalty(kinds, wild) == expected
    assert melds_fully(kinds, wild) is (expected == 0)
    melds, unmelded = best_arrangement(kinds, wild)
    assert Counter(itertools.chain(unmelded, *melds)) == Counter(kinds)
    assert all(is_meld(m, wild) for m in melds)
    assert sum(penalty(k, wild) for k in unmelded) == expected


def test_fc4_sophie_example_round_4():
    # "Sophie prend la première carte de la pioche et défausse son trois de trèfle. Elle
    # pose alors une famille de 3 valets et une suite 8, 9, 10."
    melds, unmelded = best_arrangement(C("3C JH JD JS 8H 9H 10H"), wild_rank(4))
    assert unmelded == [K("3C")]
    assert sorted(map(sorted, melds)) == sorted([sorted(C("JH JD JS")), sorted(C("8H 9H 10H"))])


def test_fc4_spare_wilds_join_an_eleven_card_run():
    # 3H..QH natural + KH wild make 11 cards; the joker cannot join that run, so the
    # arrangement splits it (e.g. 3..7 + a wild, and 8..K).
    kinds = C("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK")
    melds, unmelded = best_arrangement(kinds, 13)
    assert unmelded == [] and len(melds) == 2 and all(is_meld(m, 13) for m in melds)


def brute_min_penalty(kinds, wild) -> int:
    """Exhaustive search: every split of the hand into melds and unmelded cards."""

    @cache
    def best(cards: tuple[int, ...]) -> int:
        if not cards:
            return 0
        first, rest = cards[0], cards[1:]
        result = penalty(first, wild) + best(rest)
        for size in range(2, len(rest) + 1):
            for chosen in itertools.combinations(range(len(rest)), size):
                if is_meld([first] + [rest[i] for i in chosen], wild):
                    left = tuple(c for i, c in enumerate(rest) if i not in chosen)
                    result = min(result, best(left))
        return result

    return best(tuple(sorted(kinds)))


def test_fc4_solver_matches_exhaustive_search():
    rng = random.Random(2024)
    deck = sorted(the_116_cards().elements())
    for trial in range(400):
        size, wild = rng.randint(1, 9), rng.randint(3, 13)
        if trial % 2:
            hand = rng.sample(deck, size)
        else:  # crowded: two suits, a window of ranks, jokers and wild-rank cards
            suits, lo = rng.sample(range(5), 2), rng.randint(3, 9)
            pool = [suited(r, s) for s in suits for r in range(lo, min(13, lo + 5) + 1)] * 2
            pool += [JOKER] * 2 + [suited(wild, s) for s in range(5)]
            hand = rng.sample(pool, size)
        assert min_penalty(hand, wild) == brute_min_penalty(hand, wild), (hand, wild)


@pytest.mark.slow
def test_fc4_solver_matches_exhaustive_search_on_crowded_large_hands():
    rng = random.Random(99)
    for _ in range(250):
        size, wild = rng.randint(10, 12), rng.randint(3, 13)
        suits, lo = rng.sample(range(5), rng.randint(1, 3)), rng.randint(3, 8)
        pool = [suited(r, s) for s in suits for r in range(lo, min(13, lo + 6) + 1)] * 2
        pool += [JOKER] * 3 + [suited(wild, s) for s in range(5)]
        hand = rng.sample(pool, min(size, len(pool)))
        assert min_penalty(hand, wild) == brute_min_penalty(hand, wild), (hand, wild)


# ---------------------------------------------------------------------------
# FC-5 going out, last turns, scoring
# ---------------------------------------------------------------------------

# Round 4 (6 cards, 6s wild), 4 players, dealer seat 3: Sophie (seat 0) starts.
SOPHIE_HANDS = {0: C("3C JH JD 8H 9H 10H"), 1: C("3H 3D 4S 7C QD KD"),
                2: C("6C JK 10S 10D 4H 5H"), 3: C("9C 9D 9S 9* 8C 8D")}
SOPHIE = RoundRecord(
    n_players=4, round_no=4, dealer=3,
    deck=round_deck(SOPHIE_HANDS, dealer=3, first_discard=K("QC"), stock_top=C("JS KS 3S")),
    turns=(
        T(0, False, "3C", True),   # draws JS, lays JH JD JS and 8H 9H 10H
        T(1, True, "KD"),          # takes 3C: 3H 3D 3C; 4S 7C QD left -> 23
        T(2, False, "KS", True),   # 10S 10D 6C and 4H 5H JK: all melds -> 0
        T(3, False, "8D"),         # draws 3S: 9C 9D 9S 9*; 8C 3S left -> 11
    ),
)


def test_fc5_sophie_round_four_players():
    result = replay_round(SOPHIE, FiveCrownsConfig(n_players=4))
    assert result.wild == 6
    assert result.went_out == 0
    assert result.penalties == (0, 23, 0, 11)
    assert result.turns_taken == (1, 1, 1, 1)
    assert result.hands[0] == tuple(sorted(C("JH JD JS 8H 9H 10H")))


def test_fc5_every_other_player_has_exactly_one_last_turn():
    with pytest.raises(RuleViolation, match=r"^FC-5: seat 0 went out at turn 0 but seats \[3\]"):
        replay_round(with_turns(SOPHIE, SOPHIE.turns[:-1]))
    with pytest.raises(RuleViolation, match=r"^FC-5: seat 0 went out .* seats \[1, 2, 3\]"):
        replay_round(with_turns(SOPHIE, SOPHIE.turns[:1]))
    with pytest.raises(RuleViolation, match=r"^FC-5: turn 4: extra turn by seat 0"):
        replay_round(with_turns(SOPHIE, SOPHIE.turns + (T(0, True, "8D"),)))
    with pytest.raises(RuleViolation, match=r"^FC-5: turn 6: extra turn"):
        replay_round(with_turns(ROUND2, ROUND2_TURNS + (T(1, True, "QS"),)))


def test_fc5_last_turn_went_out_tells_whether_the_hand_melds():
    turns = list(SOPHIE.turns)
    turns[2] = T(2, False, "KS", False)  # his hand melds: must say so
    with pytest.raises(RuleViolation, match=r"^FC-5: turn 2: seat 2"):
        replay_round(with_turns(SOPHIE, turns))
    turns = list(SOPHIE.turns)
    turns[1] = T(1, True, "KD", True)  # 4S 7C QD do not meld
    with pytest.raises(RuleViolation, match=r"^FC-5: turn 1: seat 1"):
        replay_round(with_turns(SOPHIE, turns))


# Round 1 (3s wild), 2 players, dealer 0: nobody ever goes out; each turn draws the stock
# top and throws it back, so the dealt hands stay: seat 0 5C 5D 9* (19), seat 1 4H 7D KS (24).
ROUND1_DECK = round_deck({0: C("5C 5D 9*"), 1: C("4H 7D KS")}, dealer=0, first_discard=K("QC"))


def draw_and_throw_back(deck, n_players, round_no, dealer, n_turns) -> tuple:
    """Turns drawing the stock top and discarding that same card (no reshuffle)."""
    start = n_players * cards_dealt(round_no) + 1
    return tuple(((dealer + 1 + t) % n_players, False, deck[start + t], False)
                 for t in range(n_turns))


def test_fc5_round_without_going_out_ends_at_max_turns():
    config = FiveCrownsConfig(n_players=2, max_turns=10)
    record = RoundRecord(2, 1, 0, ROUND1_DECK, draw_and_throw_back(ROUND1_DECK, 2, 1, 0, 20))
    result = replay_round(record, config)
    assert result.went_out == -1
    assert result.penalties == (19, 24)
    assert result.turns_taken == (10, 10)
    short = with_turns(record, record.turns[:19])
    with pytest.raises(RuleViolation, match=r"^FC-5: the round ends after 19 turns"):
        replay_round(short, config)
    assert replay_round(short).penalties == (19, 24)  # no config: no max_turns to check
    long = with_turns(record, draw_and_throw_back(ROUND1_DECK, 2, 1, 0, 21))
    with pytest.raises(RuleViolation, match=r"^FC-5: turn 20: the round should have ended"):
        replay_round(long, config)
    with pytest.raises(RuleViolation, match=r"^FC-2:"):
        replay_round(record, FiveCrownsConfig(n_players=3, max_turns=10))


# ---------------------------------------------------------------------------
# FC-6 stock exhausted
# ---------------------------------------------------------------------------


def reshuffle_record() -> tuple[RoundRecord, tuple[int, ...]]:
    """2 players, round 11, dealer 0: 26 dealt, 1 turned, 89 in the stock.

    Turns 0..88 draw the stock top and throw it back. At turn 89 the stock is
    empty: the pile (the 90 cards deck[26:]) becomes the stock, reversed here,
    its top turned; seat 0 takes that turned card and throws it back; turn 90
    (seat 1) draws the next one and throws it back. Seat 1 plays the even turns.
    """
    deck = list(build_deck([]))
    random.Random(5).shuffle(deck)
    deck = tuple(deck)
    turns = list(draw_and_throw_back(deck, 2, 11, 0, 89))
    new_stock = tuple(reversed(deck[26:]))
    turns += [(0, True, new_stock[0], False), (1, False, new_stock[1], False)]
    return RoundRecord(2, 11, 0, deck, tuple(turns), reshuffles=(new_stock,)), deck


def test_fc6_reshuffle_replayed():
    record, deck = reshuffle_record()
    result = replay_round(record)
    assert result.reshuffles == 1
    assert result.turns_taken == (45, 46)
    assert result.hands == (tuple(sorted(deck[1:26:2])), tuple(sorted(deck[0:26:2])))
    assert result.wild == 13


def test_fc6_reshuffle_must_be_the_discard_pile():
    record, deck = reshuffle_record()
    new_stock = record.reshuffles[0]
    with pytest.raises(RuleViolation, match=r"^FC-6: turn 89: the stock is empty"):
        replay_round(dataclasses.replace(record, reshuffles=()))
    with pytest.raises(RuleViolation, match=r"^FC-6: turn 89: reshuffle 0"):
        replay_round(dataclasses.replace(record, reshuffles=(new_stock[1:],)))
    swapped = (K("JK") if new_stock[0] != JOKER else K("3H"),) + new_stock[1:]
    with pytest.raises(RuleViolation, match=r"^FC-6: turn 89: reshuffle 0"):
        replay_round(dataclasses.replace(record, reshuffles=(swapped,)))
    with pytest.raises(RuleViolation, match=r"^FC-6: the record has 2 reshuffles"):
        replay_round(dataclasses.replace(record, reshuffles=(new_stock, new_stock)))
    # Before the stock runs out there is nothing to reshuffle.
    early = dataclasses.replace(record, turns=record.turns[:89], reshuffles=(new_stock,))
    with pytest.raises(RuleViolation, match=r"^FC-6: the record has 1 reshuffles"):
        replay_round(early)


def random_round(rng: random.Random, n: int, round_no: int, dealer: int,
                 max_turns: int) -> RoundRecord:
    """A legal record from a crude policy (structural checks only).

    Take the discard one time in three, throw the costliest non-wild card,
    go out as soon as possible; reshuffle the pile when the stock is empty.
    """
    deck = sorted(the_116_cards().elements())
    rng.shuffle(deck)
    wild = wild_rank(round_no)
    hands, first, stock = deal_round(deck, n, round_no, dealer)
    pile, turns, reshuffles = [first], [], []
    out_turn = None
    t = 0
    while (out_turn is None and t < max_turns * n) or (out_turn is not None
                                                       and t < out_turn + n):
        seat = (dealer + 1 + t) % n
        if not stock:
            stock = pile[:]
            rng.shuffle(stock)
            reshuffles.append(tuple(stock))
            pile = [stock.pop(0)]
        take = not stock or rng.random() < 1 / 3
        hand = hands[seat]
        hand.append(pile.pop() if take else stock.pop(0))
        naturals = [k for k in hand if not (k == JOKER or k % 11 + 3 == wild)]
        discard = max(naturals or hand, key=lambda k: penalty(k, wild))
        hand.remove(discard)
        pile.append(discard)
        melds = melds_fully(hand, wild)
        turns.append((seat, take, discard, melds))
        if melds and out_turn is None:
            out_turn = t
        t += 1
    return RoundRecord(n, round_no, dealer, tuple(deck), tuple(turns), tuple(reshuffles))


def test_fc6_random_rounds_replay_and_conserve_cards():
    rng = random.Random(11)
    seen_reshuffle = False
    for i in range(12):
        n = 7 if i % 2 else rng.randint(2, 6)
        round_no = 11 if i % 2 else rng.randint(1, 11)
        config = FiveCrownsConfig(n_players=n, max_turns=15)
        record = random_round(rng, n, round_no, i % n, config.max_turns)
        result = replay_round(record, config)
        seen_reshuffle |= result.reshuffles > 0
        assert sum(map(len, result.hands)) == n * cards_dealt(round_no)
        assert all(p >= 0 for p in result.penalties)
        if result.went_out >= 0:
            assert result.penalties[result.went_out] == 0
            assert sum(result.turns_taken) == len(record.turns)
    assert seen_reshuffle


# ---------------------------------------------------------------------------
# FC-7 game
# ---------------------------------------------------------------------------


def winner_hand(size: int) -> list[int]:
    """``size`` cards in runs: hearts 3.. (and diamonds 3..8 past 11 cards)."""
    if size <= 11:
        return [suited(r, H) for r in range(3, 3 + size)]
    return [suited(r, H) for r in range(3, 3 + size - 6)] + [suited(r, D) for r in range(3, 9)]


def loser_hand(size: int) -> list[int]:
    """``size`` cards whose least penalty is LOSER_PENALTY[size] (see there)."""
    if size == 3:
        return C("3H 4H 5*")
    if size <= 11:
        return [suited(r, H) for r in range(3, 2 + size)] + [suited(size + 2, STARS)]
    return ([suited(r, H) for r in range(3, 3 + size - 6)] + [suited(r, D) for r in range(3, 8)]
            + [K("10*")])


# Round 1: 3H (wild) 4H 5* meld nothing: 20 + 4 + 5. Rounds 2..9: a hearts run 3..size+1
# (its wild card inside) and a lone star of rank size + 2. Rounds 10, 11 (Q, K wild): runs
# hearts 3.. and diamonds 3..7, no wild at all, and a lone 10*.
LOSER_PENALTY = {3: 29, 4: 6, 5: 7, 6: 8, 7: 9, 8: 10, 9: 11, 10: 12, 11: 13, 12: 10, 13: 10}


def two_player_round(round_no: int, dealer: int, out_seat: int) -> RoundRecord:
    """``out_seat`` is dealt runs and goes out at his first turn; the other keeps his hand."""
    size = cards_dealt(round_no)
    other = 1 - out_seat
    deck = round_deck({out_seat: winner_hand(size), other: loser_hand(size)}, dealer, K("KC"))
    draws = deck[2 * size + 1:]
    starter = 1 - dealer
    if out_seat == starter:
        turns = [(starter, False, draws[0], True), (other, False, draws[1], False)]
    else:
        turns = [(starter, False, draws[0], False), (out_seat, False, draws[1], True),
                 (starter, False, draws[2], False)]
    return RoundRecord(2, round_no, dealer, deck, tuple(turns))


def test_fc7_full_game_totals_and_dealer_passing_left():
    config = FiveCrownsConfig(n_players=2)
    # First dealer seat 1: round k is dealt by seat k % 2; the starter (the other seat)
    # goes out, the dealer scores LOSER_PENALTY.
    rounds = [two_player_round(k, k % 2, 1 - k % 2) for k in range(1, 12)]
    result = replay_game(config, rounds, first_dealer=1)
    assert [r.dealer for r in result.rounds] == [1, 0] * 5 + [1]
    assert [r.wild for r in result.rounds] == list(range(3, 14))
    assert [r.penalties for r in result.rounds][:3] == [(0, 29), (6, 0), (0, 7)]
    # seat 1 (odd rounds): 29 + 7 + 9 + 11 + 13 + 10; seat 0 (even): 6 + 8 + 10 + 12 + 10
    assert result.totals == (46, 79)
    assert result.winners == (0,)


def test_fc7_express_game_with_a_tie():
    config = FiveCrownsConfig(n_players=2, first_round=6)
    # Rounds 6..11 deal 8..13 cards; first dealer 0, so dealers 0 1 0 1 0 1.
    # Seat 0 loses rounds 6, 9, 10 (10 + 13 + 10), seat 1 rounds 7, 8, 11 (11 + 12 + 10).
    out = {6: 1, 7: 0, 8: 0, 9: 1, 10: 1, 11: 0}
    rounds = [two_player_round(k, (k - 6) % 2, out[k]) for k in range(6, 12)]
    result = replay_game(config, rounds, first_dealer=0)
    assert [r.went_out for r in result.rounds] == [1, 0, 0, 1, 1, 0]
    assert [r.wild for r in result.rounds] == [8, 9, 10, 11, 12, 13]
    assert [len(r.hands[0]) for r in result.rounds] == [8, 9, 10, 11, 12, 13]
    assert result.totals == (33, 33)
    assert result.winners == (0, 1)
    assert game_winners([40, 12, 12, 50]) == (1, 2)


def test_fc7_game_rounds_and_dealers_are_checked():
    config = FiveCrownsConfig(n_players=2, first_round=6)
    rounds = [two_player_round(k, (k - 6) % 2, 1) for k in range(6, 12)]
    with pytest.raises(RuleViolation, match=r"^FC-7: 5 rounds recorded"):
        replay_game(config, rounds[1:], first_dealer=0)
    with pytest.raises(RuleViolation, match=r"^FC-7: record 0 is round 6, expected round 1"):
        replay_game(FiveCrownsConfig(n_players=2), [rounds[0]] * 11, first_dealer=0)
    with pytest.raises(RuleViolation, match=r"^FC-7: record 1 is round 8"):
        replay_game(config, [rounds[0], rounds[2], rounds[1]] + rounds[3:], first_dealer=0)
    with pytest.raises(RuleViolation, match=r"^FC-2: round 6 dealt by seat 0, expected seat 1"):
        replay_game(config, rounds, first_dealer=1)


# ---------------------------------------------------------------------------
# FC-8 solitaire
# ---------------------------------------------------------------------------

SOLITAIRE_HANDS = [
    C("7H 7D KS"),                                # 0 (3s wild): open 27; 7C closes it
    C("5C 6C 7C 8C"),                             # 1 (4s): run, closed at the deal
    C("9H 10H JH QH 3*"),                         # 2 (5s): open 3 (3*); 8H closes it
    C("3D 4D 5D 9S 9C 9*"),                       # 3 (6s): run + book, closed
    C("3S 4S 5S 6S 8D 8H 8*"),                    # 4 (7s): closed
    C("10D JD QD KD 4H 4C 4* QS"),                # 5 (8s): open 12 (QS); a joker closes it
    C("3H 4H 5H 6H 7S 8S 9S 10S JS"),             # 6 (9s): closed
    C("5* 6* 7* 8* 9* JC QC KC 6D 10C"),          # 7 (10s): open 5; a joker closes it
    C("3C 4C 5C 6C 10H 10D 10S QH QD QS JH"),     # 8 (Js): JH wild, closed
    C("4* 5* 6* 7* 3H 3D 3C 9H 9D 9C KS KD"),     # 9 (Qs): open 26 (KS KD); QC closes it
    C("JK JK JK JK 5D 6D 7D 8D 9D KH KH KC J*"),  # 10 (Ks): 7 wilds, closed
]
SOLITAIRE_NEEDED = C("7C 8H JK JK QC")
WINNING_MOVES = ((0, K("KS")), (2, K("3*")), (5, K("QS")), (7, K("6D")), (9, K("7*")))
OPEN_AT_DEAL = (0, 2, 5, 7, 9)


def solitaire_deck(needed_last: bool = False) -> tuple[int, ...]:
    """The 11 hands above, then the stock: the 5 needed cards first (or last)."""
    hands = list(itertools.chain(*SOLITAIRE_HANDS))
    if needed_last:
        return build_deck(hands, SOLITAIRE_NEEDED)
    return build_deck(hands + SOLITAIRE_NEEDED)


def test_fc8_solitaire_deal():
    deck = solitaire_deck()
    hands, stock = deal_solitaire(deck)
    assert [len(h) for h in hands] == list(range(3, 14))
    assert hands == SOLITAIRE_HANDS
    assert len(stock) == 28 and stock[:5] == SOLITAIRE_NEEDED


def test_fc8_hands_close_at_the_deal_and_the_game_is_won():
    result = replay_solitaire(SolitaireRecord(deck=solitaire_deck(), moves=WINNING_MOVES))
    assert result.won and all(result.closed)
    assert result.moves_used == 5
    assert result.closed_at_move == (1, 0, 2, 0, 0, 3, 0, 4, 0, 5, 0)
    assert result.hands[9] == tuple(sorted(C("4* 5* 6* 3H 3D 3C 9H 9D 9C KS KD QC")))


def test_fc8_win_with_the_last_stock_card():
    deck = solitaire_deck(needed_last=True)
    # 23 moves put the drawn card in hand 0 and throw it away, then the 5 closing moves.
    filler = tuple((0, deck[88 + i]) for i in range(23))
    result = replay_solitaire(SolitaireRecord(deck=deck, moves=filler + WINNING_MOVES))
    assert result.won and result.moves_used == 28
    assert result.closed_at_move == (24, 0, 25, 0, 0, 26, 0, 27, 0, 28, 0)


def test_fc8_losing_record():
    deck = solitaire_deck()
    throw_back = tuple((0, deck[88 + i]) for i in range(28))
    result = replay_solitaire(SolitaireRecord(deck=deck, moves=throw_back))
    assert not result.won and result.moves_used == 28
    assert result.closed == tuple(k not in OPEN_AT_DEAL for k in range(11))
    assert result.closed_at_move == (-1, 0, -1, 0, 0, -1, 0, -1, 0, -1, 0)


@pytest.mark.parametrize("moves, message", [
    (((1, K("5C")),), "move 1: hand 1 is closed"),
    (((0, K("KH")),), "move 1: discard KH is not in hand 0"),
    (((11, K("7C")),), "move 1: hand 11 is not 0..10"),
    (WINNING_MOVES + ((0, K("7H")),), "move 6: every hand is already closed"),
    (tuple((0, K("7C")) for _ in range(10)), "move 2: discard .* not in hand 0"),
])
def test_fc8_illegal_moves_raise(moves, message):
    with pytest.raises(RuleViolation, match=r"^FC-8: " + message):
        replay_solitaire(SolitaireRecord(deck=solitaire_deck(), moves=moves))


def test_fc8_stock_limits():
    deck = solitaire_deck()
    throw_back = tuple((0, deck[88 + i]) for i in range(28))
    with pytest.raises(RuleViolation, match=r"^FC-8: move 29: the stock \(28 cards\)"):
        replay_solitaire(SolitaireRecord(deck=deck, moves=throw_back + ((0, K("7H")),)))
    with pytest.raises(RuleViolation, match=r"^FC-8: the record stops after 10 moves"):
        replay_solitaire(SolitaireRecord(deck=deck, moves=throw_back[:10]))
