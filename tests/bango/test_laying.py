"""Exactness of the Bango laying solver (BG-6, BG-8).

Three layers of proof:

1. ``enumerate_lays`` (plain Python, slot by slot) lists exactly the legal
   lays that a per-card brute force finds: every card of the hand sent to the
   personal discard or to one of the 3 slots (4^h assignments), each judged by
   the referee's ``lay_violation`` and scored by the referee's
   ``player_score`` — written from the rule text, sharing nothing with
   :mod:`simulators.bango.laying`.
2. The compiled ``best_lays`` reaches the best gain of that enumeration (and
   its tie-break: fewest sequences opened) on random hands and boards dealt
   from the 99 cards, hands of 0..14 cards, 0..3 sequences opened,
   ``free_discard`` on and off; and the lay it returns is legal for the
   referee and for the engine and worth the gain it reports.
3. Hand-written cases from BG-6 / BG-8 and the rule text, values by hand.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from simulators.bango import _laying_kernel as K
from simulators.bango import laying as L
from simulators.bango import referee as F
from simulators.bango import rules as R
from simulators.bango.engine import lay_errors

C = R.parse_cards

# ---------------------------------------------------------------------------
# Random hands and boards, dealt from one shuffled 99-card deck
# ---------------------------------------------------------------------------


def random_state(gen: np.random.Generator, hand_size: int, n_open: int, max_len: int = 6):
    """A hand of ``hand_size`` cards and ``n_open`` sequences, all from one deck."""
    deck = list(np.array(R.full_deck())[gen.permutation(R.N_CARDS)])
    sequences = []
    for _ in range(n_open):
        length = int(gen.integers(R.MIN_OPEN, max_len + 1))
        low = int(gen.integers(1, R.N_VALUES - length + 2))
        seq = []
        for v in range(low, low + length):
            k = next(k for k in deck if not R.is_black(k) and R.value_of(k) == v)
            deck.remove(k)
            seq.append(int(k))
        sequences.append(seq)
    return [int(k) for k in deck[:hand_size]], sequences


def random_states(seed: int, n: int, sizes: tuple[int, int], opens=(0, 1, 2, 3),
                  free_share: float = 0.2):
    gen = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        size = int(gen.integers(sizes[0], sizes[1] + 1))
        cards, seqs = random_state(gen, size, int(gen.choice(opens)))
        out.append((cards, seqs, bool(gen.random() < free_share)))
    return out


def opened_by(lay, sequences) -> int:
    return len({slot for _, slot in lay if slot >= len(sequences)})


def reference_best(cards, sequences, free_discard) -> tuple[int, int]:
    """(best gain, fewest sequences opened at that gain) over every legal lay."""
    gain, neg_opened = max((g, -opened_by(lay, sequences))
                           for lay, g in L.enumerate_lays(cards, sequences, free_discard))
    return gain, -neg_opened


def solve(states):
    """``best_lays`` on a batch of (cards, sequences) with one free_discard flag."""
    hands = np.stack([R.hand_counts(c) if c else np.zeros(R.N_KINDS, np.uint8)
                      for c, _ in states])
    boards = [L.board_of(s) for _, s in states]
    mask = np.stack([b[0] for b in boards])
    colours = np.stack([b[1] for b in boards])
    return hands, mask, colours


def check_against_brute_force(states) -> int:
    """Compare solver and enumeration on every state; returns how many agreed."""
    agreed = 0
    for free in (False, True):
        batch = [(c, s) for c, s, f in states if f == free]
        if not batch:
            continue
        hands, mask, colours = solve(batch)
        res = L.best_lays(hands, mask, colours, free)
        n_open = (mask != 0).sum(axis=1)
        assert (lay_errors(hands, mask, n_open, res.placed, free) == 0).all()
        for i, (cards, seqs) in enumerate(batch):
            lay = L.placed_to_lay(res.placed[i])
            where = f"{R.format_cards(cards)!r} on {[R.format_cards(s) for s in seqs]}, free={free}"
            assert F.lay_violation(cards, seqs, lay, free) is None, where
            assert L.lay_gain(cards, seqs, lay) == res.gain[i], where
            assert res.discards[i] == len(cards) - len(lay), where
            assert res.opened[i] == opened_by(lay, seqs), where
            best = reference_best(cards, seqs, free)
            assert (int(res.gain[i]), int(res.opened[i])) == best, where
            agreed += 1
    return agreed


# ---------------------------------------------------------------------------
# 1. The enumeration against a per-card brute force judged by the referee
# ---------------------------------------------------------------------------


def referee_lays(cards, sequences, free_discard) -> set:
    """Every (lay, gain) by sending each card to the discard or a slot, referee-judged."""
    found = set()
    before = F.player_score(sequences, 0)
    for dest in itertools.product(range(-1, R.MAX_SEQUENCES), repeat=len(cards)):
        lay = tuple(sorted((k, s) for k, s in zip(cards, dest, strict=True) if s >= 0))
        if F.lay_violation(cards, sequences, lay, free_discard) is not None:
            continue
        after = [list(q) for q in sequences]
        for k, s in lay:
            while len(after) <= s:
                after.append([])
            after[s].append(k)
        found.add((lay, F.player_score(after, len(cards) - len(lay)) - before))
    return found


def check_enumeration(states) -> None:
    for cards, seqs, free in states:
        lays = [(tuple(sorted(lay)), g) for lay, g in L.enumerate_lays(cards, seqs, free)]
        assert len(lays) == len(set(lays)), "an arrangement listed twice"
        assert set(lays) == referee_lays(cards, seqs, free), (cards, seqs, free)


def test_enumeration_is_every_legal_lay_bg6():
    check_enumeration(random_states(11, 150, (0, 5), free_share=0.3))


@pytest.mark.slow
def test_enumeration_is_every_legal_lay_bg6_slow():
    check_enumeration(random_states(12, 1500, (0, 7), free_share=0.3))


# ---------------------------------------------------------------------------
# 2. The compiled solver against the enumeration
# ---------------------------------------------------------------------------


def test_solver_matches_brute_force_bg6_bg8():
    states = random_states(1, 900, (0, 9)) + random_states(2, 40, (12, 13), opens=(2, 3))
    assert check_against_brute_force(states) == 940


@pytest.mark.slow
def test_solver_matches_brute_force_bg6_bg8_slow():
    states = (random_states(3, 10_000, (0, 11))
              + random_states(4, 2_000, (12, 14))
              + random_states(5, 300, (15, 16), opens=(2, 3)))
    assert check_against_brute_force(states) == 12_300


def test_batch_rows_are_independent():
    states = random_states(7, 200, (0, 12), free_share=0.0)
    hands, mask, colours = solve([(c, s) for c, s, _ in states])
    whole = L.best_lays(hands, mask, colours)
    for i in range(0, 200, 17):
        one = L.best_lays(hands[i], mask[i], colours[i])
        assert (one.placed[0] == whole.placed[i]).all() and one.gain[0] == whole.gain[i]


def test_kernel_runs_the_same_in_plain_python():
    """The kernel's source, not jitted, gives the same lays (it is debuggable as Python)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_plain_kernel", K.__file__)
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)
    states = random_states(9, 40, (0, 14), free_share=0.0)
    hands, mask, colours = solve([(c, s) for c, s, _ in states])
    want = L.best_lays(hands, mask, colours)
    n = len(hands)
    out = (np.full((n, 3, 11), -1, np.int8), np.zeros(n, np.int32), np.zeros(n, np.int16),
           np.zeros(n, np.int8))
    plain._k_solve_batch(hands, mask, colours, False, *out)
    for got, expected in zip(out, want, strict=True):
        assert (got == expected).all()


def test_large_hands_are_solved_and_legal():
    """Hands of 20-30 cards (beyond brute force): legal, and no worse than the greedy lay."""
    states = random_states(8, 60, (20, 30))
    for free in (False, True):
        batch = [(c, s) for c, s, f in states if f == free]
        hands, mask, colours = solve(batch)
        res = L.best_lays(hands, mask, colours, free)
        assert (lay_errors(hands, mask, (mask != 0).sum(axis=1), res.placed, free) == 0).all()
        for i, (cards, seqs) in enumerate(batch):
            assert L.lay_gain(cards, seqs, L.placed_to_lay(res.placed[i])) == res.gain[i]


# ---------------------------------------------------------------------------
# 3. Hand-written cases (values worked out by hand)
# ---------------------------------------------------------------------------


def test_rule_text_example_basile_bg6():
    """Rule text: 1V and 4V extend his violet run, 10B 11R open one, 6R and 4K are discarded."""
    cards, seqs = C("1V 4V 10B 11R 6R 4K"), [C("2V 3V")]
    lays = L.enumerate_lays(cards, seqs)
    assert len(lays) == 1
    lay, gain = L.best_lay(cards, seqs)
    assert sorted(lay) == sorted([(C("1V")[0], 0), (C("4V")[0], 0),
                                  (C("10B")[0], 1), (C("11R")[0], 1)])
    # before 2 + 2; after (4 + 4) + (2 + 0, blue and red tie); two discards
    assert gain == 8 + 2 - 4 - 2 == 4


def test_card_that_extends_cannot_be_discarded_bg6():
    cards, seqs = C("7R"), [C("5B 6B")]
    assert [lay for lay, _ in L.enumerate_lays(cards, seqs)] == [((C("7R")[0], 0),)]
    assert L.best_lay(cards, seqs) == (((C("7R")[0], 0),), 1)  # 3 + 2 - (2 + 2)


def test_forced_card_that_breaks_the_colour_bonus_bg6_bg8():
    """r3 b2 y1 v1 (bonus 3) + a blue: r3 b3 y1 v1, both counts tied, no bonus.

    Compulsory placement forces gain 8 - 10 = -2, worse than discarding (-1),
    which only ``free_discard`` allows.
    """
    seqs, cards = [C("1R 2R 3R 4B 5B 6Y 7V")], C("8B")
    assert L.best_lay(cards, seqs) == (((C("8B")[0], 0),), -2)
    assert L.best_lay(cards, seqs, free_discard=True) == ((), -1)


def test_two_consecutive_cards_must_open_a_sequence_bg6():
    cards = C("4B 5R")
    assert L.enumerate_lays(cards, []) == [(((C("4B")[0], 0), (C("5R")[0], 0)), 2)]
    assert L.best_lay(cards, []) == (((C("4B")[0], 0), (C("5R")[0], 0)), 2)
    lays = L.enumerate_lays(cards, [], free_discard=True)
    assert sorted(g for _, g in lays) == [-2, 2]


def test_never_a_fourth_sequence_bg6():
    seqs = [C("1B 2B"), C("1V 2V"), C("9Y 10Y")]
    assert L.best_lay(C("5R 6R"), seqs) == ((), -2)
    assert L.enumerate_lays(C("5R 6R"), seqs) == [((), -2)]


def test_black_cards_always_discarded_bg6():
    assert L.best_lay(C("4K 5K"), []) == ((), -2)
    assert L.best_lay(C("3K 4B 5B"), []) == (((C("4B")[0], 0), (C("5B")[0], 0)), 3)


def test_two_sequences_with_the_same_values_bg6():
    """4-5 twice: both must open (one alone leaves a 4 and a 5 to discard)."""
    res = L.best_lays(R.hand_counts(C("4B 5B 4R 5R")), *L.board_of([]))
    assert res.gain[0] == 8 and res.opened[0] == 2
    runs = {tuple(k for k in res.placed[0, s] if k >= 0) for s in range(2)}
    assert runs == {tuple(C("4B 5B")), tuple(C("4R 5R"))}


def test_colour_choice_keeps_the_bonus_bg8():
    """8B on 5B 6B 7R makes b3 r1 (+4 points); 8R would tie b2 r2. The other 8 is discarded."""
    lay, gain = L.best_lay(C("8R 8B"), [C("5B 6B 7R")])
    assert lay == ((C("8B")[0], 0),) and gain == (4 + 3) - (3 + 2) - 1 == 1


def test_tie_break_prefers_fewer_sequences_opened():
    """7B 8B extend 5B 6B (+4) or open their own run (+4): extending keeps a slot."""
    res = L.best_lays(R.hand_counts(C("7B 8B")), *L.board_of([C("5B 6B")]))
    assert res.gain[0] == 4 and res.opened[0] == 0
    assert (res.placed[0, 0, 6:8] == C("7B 8B")).all()


def test_empty_hand():
    res = L.best_lays(np.zeros(R.N_KINDS, np.uint8), *L.board_of([C("1B 2B")]))
    assert res.gain[0] == 0 and res.discards[0] == 0 and (res.placed == -1).all()


@pytest.mark.parametrize("hands, mask, colours, message", [
    (np.zeros((2, 54)), np.zeros((2, 3)), np.zeros((2, 3, 4)), "hands must have shape"),
    (np.full((1, 55), 3), np.zeros((1, 3)), np.zeros((1, 3, 4)), "counts must be 0..2"),
    (np.zeros((1, 55)), np.array([[0b101, 0, 0]]), np.array([[[2, 0, 0, 0]] + [[0] * 4] * 2]),
     "not a Bango board"),
    (np.zeros((1, 55)), np.array([[0, 0b11, 0]]), np.array([[[0] * 4, [2, 0, 0, 0], [0] * 4]]),
     "not a Bango board"),
    (np.zeros((1, 55)), np.array([[0b11, 0, 0]]), np.zeros((1, 3, 4)), "not a Bango board"),
    (np.zeros((1, 55)), np.zeros((1, 2)), np.zeros((1, 3, 4)), "seq_mask must have shape"),
])
def test_bad_input_is_rejected(hands, mask, colours, message):
    with pytest.raises(ValueError, match=message):
        L.best_lays(hands.astype(int), mask.astype(int), colours.astype(int))


def test_conversions_round_trip():
    lay = ((C("4B")[0], 0), (C("5R")[0], 0), (C("9Y")[0], 2))
    assert L.placed_to_lay(L.lay_to_placed(lay)) == lay
    mask, colours = L.board_of([C("1B 2B 3R"), C("7Y 8Y")])
    assert mask.tolist() == [0b111, 0b11000000, 0]
    assert colours.tolist() == [[2, 0, 0, 1], [0, 0, 2, 0], [0, 0, 0, 0]]
    assert Counter(L.colour_bonus(c) for c in ([2, 2, 1, 0], [2, 2, 0, 0], [4, 1, 0, 0])) == \
        Counter([1, 0, 4])
