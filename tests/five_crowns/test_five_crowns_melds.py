"""Exactness of the Five Crowns meld solver (FC-4, FC-5).

The reference is a brute-force enumerator written here from the rulings, in
plain Python and independent of the solver: the first remaining card is either
left in hand or laid in one of the valid melds (checked by :func:`is_book` /
:func:`is_run`) that it can form with the remaining cards; memoized on the
remaining multiset. Hand-written cases follow, one group per ruling, every
expected value worked out by hand.
"""

from __future__ import annotations

import itertools
from functools import cache
from math import comb

import numpy as np
import pytest

from simulators.five_crowns import melds as M
from simulators.five_crowns.rules import JOKER, kind_of, parse_cards, penalty, rank_of, suit_of

# ---------------------------------------------------------------------------
# The brute-force reference (written from FC-4 / FC-5 only)
# ---------------------------------------------------------------------------


def wild_card(kind: int, wild: int) -> bool:
    """Jokers and cards of the round's rank are wild. A wild-rank card laid as
    itself is the same as the wild standing for itself, so it is always a wild here."""
    return kind == JOKER or rank_of(kind) == wild


def is_book(cards, wild: int) -> bool:
    """3+ cards whose naturals all share one rank (twins allowed, any number of wilds)."""
    naturals = [k for k in cards if not wild_card(k, wild)]
    return len(cards) >= 3 and len({rank_of(k) for k in naturals}) <= 1


def is_run(cards, wild: int) -> bool:
    """3..11 cards, naturals of one suit with distinct ranks whose span fits the size:
    the naturals and the wilds then lie on consecutive ranks inside 3..K."""
    naturals = [k for k in cards if not wild_card(k, wild)]
    if not 3 <= len(cards) <= 11:
        return False
    if not naturals:
        return True
    ranks = [rank_of(k) for k in naturals]
    return (len({suit_of(k) for k in naturals}) == 1 and len(set(ranks)) == len(ranks)
            and max(ranks) - min(ranks) + 1 <= len(cards))


def is_meld(cards, wild: int) -> bool:
    return is_book(cards, wild) or is_run(cards, wild)


def candidate_melds(kinds: tuple[int, ...], counts: tuple[int, ...], wild: int):
    """Every valid meld of the hand, as count tuples over ``kinds``.

    A meld's naturals share a rank (book) or a suit (run), so its naturals are a
    sub-multiset of one rank group or one suit group (or empty), plus any
    sub-multiset of the wilds; every such candidate is checked by is_meld.
    """
    wilds = [i for i, k in enumerate(kinds) if wild_card(k, wild)]
    nats = [i for i, k in enumerate(kinds) if not wild_card(k, wild)]
    groups = {("r", rank_of(kinds[i])) for i in nats} | {("s", suit_of(kinds[i])) for i in nats}
    member = {g: [i for i in nats if (rank_of(kinds[i]) if g[0] == "r" else suit_of(kinds[i]))
                  == g[1]] for g in groups}
    found = set()
    wild_subsets = list(itertools.product(*(range(counts[i] + 1) for i in wilds)))
    for g in [None, *groups]:
        idx = member[g] if g else []
        for nat_take in itertools.product(*(range(counts[i] + 1) for i in idx)):
            for wild_take in wild_subsets:
                take = [0] * len(kinds)
                for i, c in zip(idx, nat_take, strict=True):
                    take[i] = c
                for i, c in zip(wilds, wild_take, strict=True):
                    take[i] = c
                cards = [kinds[i] for i in range(len(kinds)) for _ in range(take[i])]
                if cards and is_meld(cards, wild):
                    found.add(tuple(take))
    return sorted(found)


def brute_min_penalty(hand, wild: int) -> int:
    """Least penalty over every arrangement, by exhaustive search (slow, obviously right)."""
    kinds = tuple(sorted(set(int(k) for k in hand)))
    counts = tuple(list(hand).count(k) for k in kinds)
    all_melds = candidate_melds(kinds, counts, wild)
    by_first = {i: [m for m in all_melds if m[i] > 0] for i in range(len(kinds))}

    @cache
    def best(rem: tuple[int, ...]) -> int:
        first = next((i for i, c in enumerate(rem) if c), None)
        if first is None:
            return 0
        # the first remaining card stays in hand...
        out = penalty(kinds[first], wild) + best(rem[:first] + (rem[first] - 1,) + rem[first + 1:])
        # ...or lies in a meld with other remaining cards
        for m in by_first[first]:
            if all(a <= b for a, b in zip(m, rem, strict=True)):
                out = min(out, best(tuple(b - a for a, b in zip(m, rem, strict=True))))
                if out == 0:
                    break
        return out

    return best(counts)


# ---------------------------------------------------------------------------
# Hands
# ---------------------------------------------------------------------------

DECK = np.array([kind_of(i) for i in range(116)])


def counts_of(kinds) -> np.ndarray:
    c = np.zeros(56, np.uint8)
    for k in kinds:
        c[k] += 1
    return c


def hand(text: str) -> np.ndarray:
    return counts_of(parse_cards(text))


def kinds_of(counts) -> list[int]:
    return [k for k in range(56) for _ in range(int(counts[k]))]


def random_deals(rng, n: int, size: int) -> list[list[int]]:
    """``n`` hands of ``size`` cards from a shuffled 116-card deck."""
    return [sorted(DECK[rng.permutation(116)[:size]].tolist()) for _ in range(n)]


def biased_hands(rng, n: int, size: int) -> list[tuple[list[int], int]]:
    """Hands crowded with wilds, twins and near cards: a small pool of kinds
    (2 suits x 4 ranks, and wild-rank cards) plus 0..6 jokers."""
    out = []
    while len(out) < n:
        wild = int(rng.integers(3, 14))
        suits = rng.choice(5, 2, replace=False)
        r0 = int(rng.integers(3, 11))
        pool = {11 * int(s) + r - 3 for s in suits for r in range(r0, r0 + 4)}
        pool |= {11 * int(s) + wild - 3 for s in rng.choice(5, 2, replace=False)}
        jokers = int(rng.integers(0, min(6, size) + 1))
        avail = [k for k in sorted(pool) for _ in range(2)]
        if size - jokers > len(avail):
            continue
        cards = [JOKER] * jokers + [int(k) for k in rng.choice(avail, size - jokers,
                                                                replace=False)]
        out.append((sorted(cards), wild))
    return out


def check_against_brute(cases: list[tuple[list[int], int]]) -> None:
    hands = np.array([counts_of(k) for k, _ in cases])
    wilds = np.array([w for _, w in cases])
    got = M.min_penalty(hands, wilds)
    for (kinds, wild), g in zip(cases, got, strict=True):
        want = brute_min_penalty(kinds, wild)
        assert g == want, f"{kinds} wild {wild}: solver {g}, brute force {want}"


# ---------------------------------------------------------------------------
# 1. Random hands against the brute force
# ---------------------------------------------------------------------------

SIZES_FAST = {3: 3000, 4: 3000, 5: 2000, 6: 2000, 7: 1500, 8: 1500, 9: 1000, 10: 800,
              11: 600, 12: 500, 13: 400, 14: 300}


@pytest.mark.parametrize("size", sorted(SIZES_FAST))
def test_random_deals_match_brute_force(size):
    rng = np.random.default_rng(1000 + size)
    n = SIZES_FAST[size]
    # the round's own wild rank (14 cards: round 11 after the draw), and any wild rank
    own = min(size, 13)
    cases = [(k, own) for k in random_deals(rng, n // 2, size)]
    cases += [(k, int(rng.integers(3, 14))) for k in random_deals(rng, n - n // 2, size)]
    check_against_brute(cases)


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
def test_wild_heavy_hands_match_brute_force(size):
    rng = np.random.default_rng(2000 + size)
    check_against_brute(biased_hands(rng, 300 if size <= 10 else 150, size))


@pytest.mark.slow
@pytest.mark.parametrize("size", [11, 12, 13, 14])
def test_many_hands_match_brute_force_slow(size):
    rng = np.random.default_rng(3000 + size)
    cases = [(k, min(size, 13)) for k in random_deals(rng, 3000, size)]
    cases += biased_hands(rng, 1500, size)
    check_against_brute(cases)


# ---------------------------------------------------------------------------
# 2. best_discard against explicit removals
# ---------------------------------------------------------------------------


def explicit_best_discard(counts: np.ndarray, wild: int) -> tuple[int, int]:
    """Min over single removals via min_penalty; ties: highest own penalty, then kind."""
    held = [k for k in range(56) if counts[k]]
    removed = np.array([counts - (np.arange(56) == k) for k in held], np.uint8)
    after = M.min_penalty(removed, wild)
    best = min(zip(after.tolist(), held, strict=True),
               key=lambda t: (t[0], -penalty(t[1], wild), -t[1]))
    return best


def check_discards(cases: list[tuple[list[int], int]]) -> None:
    hands = np.array([counts_of(k) for k, _ in cases])
    wilds = np.array([w for _, w in cases])
    pen, kind = M.best_discard(hands, wilds)
    assert pen.dtype == np.int32 and kind.dtype == np.int8
    for i, (kinds, wild) in enumerate(cases):
        want_pen, want_kind = explicit_best_discard(hands[i], wild)
        assert (pen[i], kind[i]) == (want_pen, want_kind), f"{kinds} wild {wild}"
        assert hands[i, kind[i]] > 0
        assert M.min_penalty(hands[i] - (np.arange(56) == kind[i]), wild) == pen[i]


@pytest.mark.parametrize("size", [4, 5, 6, 8, 10, 12, 14])
def test_best_discard_equals_explicit_removals(size):
    rng = np.random.default_rng(4000 + size)
    cases = [(k, min(size - 1, 13)) for k in random_deals(rng, 400, size)]
    cases += [(k, int(rng.integers(3, 14))) for k in random_deals(rng, 400, size)]
    cases += biased_hands(rng, 400, size)
    check_discards(cases)


def test_best_discard_with_one_or_two_wilds_and_few_naturals():
    # the solver's rare path: 1-2 wilds and maybe no meld beside the discarded card
    rng = np.random.default_rng(5)
    cases = []
    for _ in range(3000):
        size = int(rng.integers(2, 7))
        w = int(rng.integers(3, 14))
        n_wild = int(rng.integers(1, 3))
        wild_pool = [JOKER] * 6 + [11 * s + w - 3 for s in range(5) for _ in range(2)]
        nat_pool = [k for k in range(55) if rank_of(k) != w for _ in range(2)]
        cards = list(rng.choice(wild_pool, n_wild, replace=False))
        cards += list(rng.choice(nat_pool, max(size - n_wild, 0), replace=False))
        cases.append((sorted(int(c) for c in cards), w))
    check_discards(cases)


def test_best_discard_round11_deals_against_brute_force():
    rng = np.random.default_rng(6)
    hands = [counts_of(k) for k in random_deals(rng, 60, 14)]
    pen, kind = M.best_discard(np.array(hands), 13)
    for h, p in zip(hands, pen, strict=True):
        kinds = kinds_of(h)
        want = min(brute_min_penalty(kinds[:i] + kinds[i + 1:], 13) for i in range(14))
        assert p == want


def test_best_discard_single_hand_and_ties():
    # 3H 4H 5H run; dropping 10D leaves 9S (9), dropping 9S leaves 10D (10)
    pen, kind = M.best_discard(hand("3H 4H 5H 9S 10D"), 13)
    assert (pen, kind) == (9, parse_cards("10D")[0])
    # every removal leaves 0: the highest own penalty goes, the joker
    pen, kind = M.best_discard(hand("3H 4H 5H 6H JK"), 13)
    assert (pen, kind) == (0, JOKER)
    # two equal 7s of different suits: the highest kind (spades over hearts)
    pen, kind = M.best_discard(hand("3C 4C 5C 7H 7S"), 13)
    assert (pen, kind) == (7, parse_cards("7S")[0])


# ---------------------------------------------------------------------------
# 3. arrangement
# ---------------------------------------------------------------------------


def check_arrangement(counts: np.ndarray, wild: int) -> None:
    melds, unmelded = M.arrangement(counts, wild)
    for meld in melds:
        assert is_meld(meld, wild), f"{meld} is not a meld (wild {wild})"
    laid = sorted([k for m in melds for k in m] + list(unmelded))
    assert laid == kinds_of(counts)
    assert sum(penalty(k, wild) for k in unmelded) == M.min_penalty(counts, wild)


@pytest.mark.parametrize("size", [3, 5, 7, 9, 11, 13, 14])
def test_arrangement_is_valid_and_optimal(size):
    rng = np.random.default_rng(7000 + size)
    cases = [(k, min(size, 13)) for k in random_deals(rng, 150, size)]
    cases += biased_hands(rng, 150, size)
    for kinds, wild in cases:
        check_arrangement(counts_of(kinds), wild)
    # a list of kinds works too
    melds, unmelded = M.arrangement(cases[0][0], cases[0][1])
    assert sorted([k for m in melds for k in m] + unmelded) == sorted(cases[0][0])


def test_arrangement_spare_wilds_everywhere():
    # spare wilds joining a book, a short run, a 10-card run, an 11-card run, alone
    for text, wild in [("7H 7S 7C JK", 13), ("3H 4H 5H JK JK", 13),
                       ("3H 4H 5H 6H 7H 8H 9H 10H JH QH JK JK", 13),
                       ("3D 4D 5D 6D 7D 8D 9D 10D JD QD KD JK", 12),
                       ("3D 4D 5D 6D 7D 8D 9D 10D JD QD KD JK KS", 12),
                       ("JK JK JK", 5), ("JK 5S 5H", 5), ("JK 5S", 5), ("9H JK JK JK JK", 5)]:
        check_arrangement(hand(text), wild)


# ---------------------------------------------------------------------------
# 4. Hand-written cases, per ruling
# ---------------------------------------------------------------------------


def mp(text: str, wild: int) -> int:
    return int(M.min_penalty(hand(text), wild))


def test_fc4_book_with_twins():
    assert mp("7H 7H 7S", 13) == 0
    assert mp("7H 7H JK", 13) == 0  # twins and a joker
    assert mp("9C 9C 9D 9D 9S 3H", 13) == 3


def test_fc4_run_gap_filled_by_wild():
    assert mp("4H JK 6H", 13) == 0
    assert mp("4H 6H KS", 13) == 0  # K wild in round 11
    assert mp("4H 7H KS KD", 13) == 0  # two wilds fill 5H 6H
    assert mp("4H 7H KS", 13) == 31  # one wild cannot fill two gaps: 4 + 7 + 20


def test_fc4_run_never_two_cards_for_one_rank():
    assert mp("5H 5H 6H", 13) == 16  # not a run, not a book
    assert mp("5H 5H 6H JK", 13) == 5  # 5H 6H JK, a 5H left (or book 5H 5H JK, 6H left: 6)
    assert mp("5H 6H 7H 7H 8H 9H", 13) == 0  # the twins sit in two runs


def test_fc4_no_wrap():
    assert mp("QH KH 3H", 10) == 28
    assert mp("QH KH 3H JK", 10) == 3  # J(joker) Q K; the 3H stays
    assert mp("KH 3H 4H", 12) == 20  # K is not below 3: 13 + 3 + 4


def test_fc4_meld_of_wilds_alone():
    assert mp("JK JK JK", 5) == 0
    assert mp("5H 5S JK", 5) == 0  # two wild-rank cards and a joker
    assert mp("5H 5S 5C 5D 5H JK", 5) == 0  # six wilds
    assert mp("5H 5S 5C 9C 4D", 5) == 4  # 9C with two wilds, the third joins: 4D stays


def test_fc4_several_wilds_in_one_meld():
    assert mp("4H 7H JK JK", 13) == 0  # 4H JK JK 7H
    assert mp("8C JK KS", 13) == 0  # one natural, two wilds
    assert mp("3S JK JK JK JK JK JK KD KC", 13) == 0


def test_fc4_wild_rank_card_used_as_itself():
    assert mp("3H 4H 5H", 3) == 0  # round 1: the 3H in its own run
    assert mp("JH QH KH", 13) == 0  # round 11
    assert mp("3H 3S 3C", 3) == 0


def test_fc5_penalty_values():
    assert mp("KH", 13) == 20  # wild rank
    assert mp("JK", 3) == 50
    assert mp("JH QS KC", 10) == 36  # face values 11 12 13
    assert mp("10H", 10) == 20
    assert mp("3H 9S", 13) == 12
    assert mp("10D 4S", 5) == 14


def test_fc5_full_13_card_hand_melds():
    assert mp("3H 4H 5H 6H 7S 7C 7D 9S 10S JS QS KD JK", 13) == 0
    assert bool(M.can_go_out(hand("3H 4H 5H 6H 7S 7C 7D 9S 10S JS QS KD JK"), 13))
    assert mp("3H 4H 5H 6H 7S 7C 7D 9S 10S JS QS 4D 5C", 13) == 9  # 4D 5C stay


def test_fc5_one_or_two_wilds_and_nothing_else():
    assert mp("KH KS", 13) == 40
    assert mp("KH JK", 13) == 70
    assert mp("JK JK", 13) == 100
    assert mp("JK", 7) == 50
    assert mp("KH 4S 9D", 13) == 33  # one wild cannot meld a lone natural
    assert mp("JK KH 4S 9D", 13) == 4  # two wilds meld the 9D


def test_fc4_full_run_plus_a_joker():
    # 3H..KH (K wild in round 11: KH stands for itself) and a joker: 12 cards.
    # The joker cannot extend 3..K, but the run splits: 3H..7H + joker as 8H,
    # and 8H..KH: everything melds, penalty 0.
    full = "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    assert mp(full, 13) == 0
    assert mp(full + " JK", 13) == 0
    assert mp(full + " JK JK", 13) == 0
    assert mp(full + " JK", 7) == 0  # wild 7: 7H is a wild too
    assert mp(full + " 5S", 13) == 5
    check_arrangement(hand(full + " JK"), 13)


def test_bad_input_is_rejected():
    with pytest.raises(ValueError):
        M.min_penalty(np.zeros((2, 55), np.uint8), 3)
    with pytest.raises(ValueError):
        M.min_penalty(np.zeros(56, np.uint8), 14)
    bad = np.zeros(56, np.uint8)
    bad[0] = 3
    with pytest.raises(ValueError, match="not a Five Crowns hand"):
        M.min_penalty(bad, 5)
    with pytest.raises(ValueError):
        M.best_discard(np.zeros(56, np.uint8), 5)  # nothing to discard


def test_shapes_dtypes_and_empty_batches():
    h = np.stack([hand("3H 4H 5H"), hand("KH KS")])
    out = M.min_penalty(h, 13)
    assert out.dtype == np.int32 and out.tolist() == [0, 40]
    assert M.min_penalty(h.astype(np.int64), np.array([13, 13])).tolist() == [0, 40]
    assert M.min_penalty(h[:, :][::-1], 13).tolist() == [40, 0]  # non-contiguous view
    assert M.min_penalty(np.zeros((0, 56), np.uint8), 13).shape == (0,)
    assert M.can_go_out(h, 13).tolist() == [True, False]
    assert M.min_penalty(np.broadcast_to(h[1], (3, 56)), np.int64(13)).tolist() == [40] * 3
    assert M.min_penalty(h[0], 13) == 0 and M.min_penalty(h[0], 13).dtype == np.int32
    with pytest.raises(ValueError):
        M.min_penalty(h, np.array([13, 13, 13]))
    assert M.warm_up() >= 0


# ---------------------------------------------------------------------------
# 5. Exact count: 3-card round-1 deals that are already a meld
# ---------------------------------------------------------------------------

COPIES = [2] * 55 + [6]


def three_card_meld_round1(kinds) -> bool:
    """Tiny independent check, 3s wild: 3 wilds; or 1 natural; or naturals of one rank;
    or naturals of one suit, distinct ranks, within 3 consecutive ranks."""
    nat = [k for k in kinds if not (k == JOKER or k % 11 == 0)]
    if len(nat) <= 1:
        return True
    ranks = [k % 11 for k in nat]
    if len(set(ranks)) == 1:
        return True
    return (len({k // 11 for k in nat}) == 1 and len(set(ranks)) == len(ranks)
            and max(ranks) - min(ranks) <= 2)


def test_exact_share_of_round1_deals_already_a_meld():
    """Over all C(116, 3) = 253,460 three-card hands, 3s wild: 26,720 are a meld
    (share 26720 / 253460 = 10.542%), by the tiny check and by min_penalty == 0.

    By hand (16 wilds: ten 3s and six jokers; 100 naturals): 3 wilds C(16,3) = 560;
    2 wilds + 1 natural 120 * 100 = 12,000; 1 wild + a pair that melds with it,
    16 * (10 ranks * C(10,2) + 5 suits * 17 rank pairs 1-2 apart * 4 copies)
    = 16 * (450 + 340) = 12,640; 3 naturals: books 10 * C(10,3) = 1,200 and runs
    5 suits * 8 * 2^3 = 320. Total 560 + 12,000 + 12,640 + 1,520 = 26,720.
    """
    multisets = list(itertools.combinations_with_replacement(range(56), 3))
    weights, hands = [], []
    for ms in multisets:
        w = 1
        for k in set(ms):
            w *= comb(COPIES[k], ms.count(k))
        if w:
            weights.append(w)
            hands.append(counts_of(ms))
    weights = np.array(weights, np.int64)
    assert weights.sum() == comb(116, 3) == 253_460
    tiny = np.array([three_card_meld_round1(kinds_of(h)) for h in hands])
    solver = M.min_penalty(np.array(hands), 3) == 0
    assert int(weights[tiny].sum()) == int(weights[solver].sum()) == 26_720
    assert (tiny == solver).all()
