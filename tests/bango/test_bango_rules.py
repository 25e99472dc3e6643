"""Bango rules, one test per ruling clause (RULINGS BG-1..BG-8), on the referee.

Every worked example of the French rule text is here, on literal cards.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

import numpy as np
import pytest

from simulators.bango import referee as ref
from simulators.bango import rules as R
from simulators.bango.engine import bonus, lay_errors
from simulators.bango.referee import RuleViolation
from simulators.bango.rules import TurnRecord, parse_card, parse_cards


def P(text):  # noqa: N802 - short helper for literal cards
    return parse_cards(text)


def C(text):  # noqa: N802
    return parse_card(text)


def table(n, hands, stock, sequences=None):
    """A table mid-game: literal hands (notation), stock top first."""
    return ref.TableState(
        n_players=n, stock=P(stock), hands=[Counter(P(h)) for h in hands],
        sequences=[[P(s) for s in seqs] for seqs in (sequences or [[]] * n)],
        personal=[[] for _ in range(n)], explosions=[0] * n, bangos=[0] * n, lays=[0] * n,
        blacks=[0] * n)


def hand(state, seat):
    return sorted(state.hands[seat].elements())


# --------------------------------------------------------------------- BG-1


def test_bg1_deck_has_99_cards():
    deck = R.full_deck()
    assert len(deck) == R.N_CARDS == 99
    counts = Counter(deck)
    assert sum(1 for c in deck if R.is_black(c)) == 11
    assert all(counts[R.kind(v, c)] == 2 for v in range(1, 12) for c in range(4))
    assert Counter(R.value_of(c) for c in deck) == {v: 9 for v in range(1, 12)}


def test_bg1_notation_round_trip_and_errors():
    for k in range(R.N_KINDS):
        assert R.parse_card(R.format_card(k)) == k
    assert R.parse_cards("5b 11R 4k 1J 3N") == [C("5B"), C("11R"), C("4K"), C("1Y"), C("3K")]
    with pytest.raises(ValueError, match="malformed card '12B'"):
        R.parse_card("12B")
    with pytest.raises(ValueError, match="4K appears 2 times"):
        R.parse_cards("4K 4K")
    with pytest.raises(ValueError, match="7R appears 3 times"):
        R.parse_cards("7R 7R 7R")


def test_bg1_config_validation():
    assert [R.BangoConfig(n_players=n).n_removed for n in (2, 3, 4, 5)] == [25, 15, 10, 0]
    assert R.BangoConfig(n_players=4, removed=0).n_removed == 0
    with pytest.raises(ValueError, match="n_players must be 2..5"):
        R.BangoConfig(n_players=6)
    with pytest.raises(ValueError, match="removed must be an integer"):
        R.BangoConfig(removed=90)
    with pytest.raises(ValueError, match="free_discard must be true or false"):
        R.BangoConfig(free_discard=1)


# --------------------------------------------------------------------- BG-2


def _record(deck, reinsert=(), n=2, removed=0, turns=(), first=0):
    return R.GameRecord(n_players=n, removed=removed, free_discard=False, hand_limit=5,
                        deck=tuple(deck), reinsert=tuple(reinsert), first_player=first,
                        turns=tuple(turns), final_lays=(None,) * n)


def _deck_starting(top):
    rest = Counter(R.full_deck()) - Counter(top)
    return list(top) + sorted(rest.elements())


def test_bg2_setup_removes_then_deals_one_card_each():
    deck = _deck_starting(P("1B 2B 3B 4B 5B"))
    state = ref.setup(_record(deck, n=2, removed=3))
    assert state.removed == P("1B 2B 3B")
    assert [hand(state, s) for s in (0, 1)] == [P("4B"), P("5B")]
    assert len(state.stock) == 99 - 5


def test_bg2_black_card_dealt_is_put_back_and_replaced():
    deck = _deck_starting(P("7K 2V 9R"))
    state = ref.setup(_record(deck, reinsert=[2], n=2))  # below 2V and 9R
    assert [hand(state, s) for s in (0, 1)] == [P("2V"), P("9R")]
    assert state.stock[0] == C("7K") and state.card_count() == 99
    with pytest.raises(RuleViolation, match="BG-2: seat 0 was dealt black 7K"):
        ref.setup(_record(deck, reinsert=[], n=2))


def test_bg2_black_card_put_back_on_top_is_dealt_again():
    deck = _deck_starting(P("7K 2V 9R"))
    state = ref.setup(_record(deck, reinsert=[0, 2], n=2))  # back on top: dealt again
    assert [hand(state, s) for s in (0, 1)] == [P("2V"), P("9R")]
    assert state.stock[0] == C("7K")


# --------------------------------------------------------------------- BG-3


def test_bg3_explosion_repeats_a_value_black_cards_included():
    assert ref.is_explosion(P("5B 3V"), C("5R"))
    assert ref.is_explosion(P("4V 5K"), C("5Y"))
    assert ref.is_explosion(P("4V 5Y"), C("5K"))
    assert not ref.is_explosion(P("5B 3V"), C("1V"))
    assert not ref.is_explosion([], C("1V"))


def test_bg3_rule_example_ella_stops_and_takes_two():
    """Ella reveals 5B, 3V, 1V, stops, takes 1V and 3V; 5B goes to the common discard."""
    state = table(3, ["2R", "6B", "8Y"], "5B 3V 1V 9R")
    turn = TurnRecord(seat=0, reveals=((-1, True), (-1, True), (-1, False)), take=P("1V 3V"))
    summary = ref.play_turn(state, turn, R.BangoConfig(n_players=3))
    assert hand(state, 0) == sorted(P("2R 1V 3V"))
    assert state.common == P("5B")
    assert (summary.revealed, summary.exploded, summary.taken) == (3, False, 2)
    assert state.stock == P("9R")


def test_bg3_stop_must_take_at_least_one_card():
    state = table(2, ["2R", "6B"], "5B 3V")
    with pytest.raises(RuleViolation, match="BG-3: a player who stops must take"):
        ref.play_turn(state, TurnRecord(seat=0, reveals=((-1, False),), take=()),
                      R.BangoConfig(n_players=2))


def test_bg3_cannot_go_on_after_an_explosion():
    state = table(2, ["2R", "6B"], "5B 5V 3R")
    with pytest.raises(RuleViolation, match="BG-4: the turn goes on drawing"):
        ref.play_turn(state, TurnRecord(seat=0, reveals=((-1, True), (-1, True), (-1, False)),
                                        take=P("3R")), R.BangoConfig(n_players=2))


# --------------------------------------------------------------------- BG-4


def test_bg4_rule_example_hugo_explodes():
    """Hugo: 4V, 5K, 7Y, 1Y, 4B explodes; he takes 4B and 5K; Ella 4V, Basile 1Y, Hugo 7Y."""
    hugo, ella, basile = 0, 1, 2
    state = table(3, ["9R", "2B", "10V"], "4V 5K 7Y 1Y 4B 3R")
    turn = TurnRecord(seat=hugo, reveals=((-1, True),) * 4 + ((-1, False),),
                      spoils=((ella, C("4V"), -1), (basile, C("1Y"), -1)))
    summary = ref.play_turn(state, turn, R.BangoConfig(n_players=3))
    assert hand(state, hugo) == sorted(P("9R 4B 5K 7Y"))
    assert hand(state, ella) == sorted(P("2B 4V"))
    assert hand(state, basile) == sorted(P("10V 1Y"))
    assert (summary.revealed, summary.exploded, summary.taken) == (5, True, 3)
    assert state.explosions == [1, 0, 0] and state.centre == [] and state.common == []


def test_bg4_opponents_served_clockwise_while_cards_remain():
    """Opponents pick one card each from the active player's left, while cards remain."""
    state = table(5, ["9R", "2B", "10V", "11Y", "6Y"], "4V 7Y 1Y 1B")
    bad = TurnRecord(seat=2, reveals=((-1, True),) * 3 + ((-1, False),),
                     spoils=((3, C("4V"), -1), (4, C("7Y"), -1), (0, C("1Y"), -1)))
    # after 1B explodes: 1B to seat 2; 4V, 7Y, 1Y remain: seats 3, 4, 0 pick one each
    summary = ref.play_turn(state, bad, R.BangoConfig(n_players=5))
    assert hand(state, 0) == sorted(P("9R 1Y")) and summary.taken == 1
    # 1Y explodes on 1K: both go to seat 2, one card (4V) is left for seat 3 alone
    state = table(5, ["9R", "2B", "10V", "11Y", "6Y"], "4V 1K 1Y")
    wrong = TurnRecord(seat=2, reveals=((-1, True),) * 2 + ((-1, False),),
                       spoils=((3, C("4V"), -1), (4, C("1K"), -1)))
    with pytest.raises(RuleViolation, match=r"BG-4: opponents served \[3, 4\], expected one "
                                            r"card each for \[3\]"):
        ref.play_turn(state, wrong, R.BangoConfig(n_players=5))


def test_bg4_active_player_may_destroy_what_is_left():
    """The active player destroys a leftover card with a hand card of its value."""
    state = table(2, ["1R 9B", "2B"], "1V 5Y 5B 3R")
    turn = TurnRecord(seat=0, reveals=((-1, True), (-1, True), (-1, False)),
                      spoils=((1, C("1V"), -1),))
    state2 = table(2, ["1R 9B", "2B"], "1V 3Y 7V 3B")
    ref.play_turn(state, turn, R.BangoConfig(n_players=2))
    assert hand(state, 0) == sorted(P("1R 9B 5B 5Y"))  # 5B exploded, 5Y left to him
    turn2 = TurnRecord(seat=0, reveals=((-1, True),) * 3 + ((-1, False),),
                       spoils=((1, C("7V"), -1),), destroys=((C("1V"), C("1R")),))
    ref.play_turn(state2, turn2, R.BangoConfig(n_players=2))
    assert hand(state2, 0) == sorted(P("9B 3B 3Y"))
    assert state2.common == P("1V 1R") and state2.bangos == [1, 0]


# --------------------------------------------------------------------- BG-5


def test_bg5_rule_example_ella_cancels_an_explosion():
    """Ella reveals 1V then 1B (explosion), plays 1Y on 1B: cancelled; she stops with 1V."""
    state = table(3, ["1Y 8R", "2B", "10V"], "1V 1B 6R")
    turn = TurnRecord(seat=0, reveals=((-1, True), (C("1Y"), False)), take=P("1V"))
    summary = ref.play_turn(state, turn, R.BangoConfig(n_players=3))
    assert hand(state, 0) == sorted(P("8R 1V"))
    assert state.common == P("1B 1Y") and state.bangos == [1, 0, 0]
    assert (summary.exploded, summary.destroyed, state.explosions) == (False, 1, [0, 0, 0])


def test_bg5_cancelled_explosion_lets_him_draw_on():
    state = table(2, ["1Y 8R", "2B"], "1V 1B 6R 4Y")
    turn = TurnRecord(seat=0, reveals=((-1, True), (C("1Y"), True), (-1, False)),
                      take=P("6R 1V"))
    ref.play_turn(state, turn, R.BangoConfig(n_players=2))
    assert hand(state, 0) == sorted(P("8R 1V 6R")) and state.stock == P("4Y")


def test_bg5_rule_example_spoils_with_a_bango():
    """Ella explodes on 3B; Basile destroys 4Y with 4R; Hugo takes 3Y; Ella keeps 1V."""
    ella, basile, hugo = 0, 1, 2
    state = table(3, ["9B", "4R 7V", "2Y"], "3Y 4Y 1V 3B")
    turn = TurnRecord(seat=ella, reveals=((-1, True),) * 3 + ((-1, False),),
                      spoils=((basile, C("4Y"), C("4R")), (hugo, C("3Y"), -1)))
    summary = ref.play_turn(state, turn, R.BangoConfig(n_players=3))
    assert hand(state, ella) == sorted(P("9B 3B 1V"))
    assert hand(state, basile) == P("7V") and hand(state, hugo) == sorted(P("2Y 3Y"))
    assert state.common == P("4Y 4R") and state.bangos == [0, 1, 0]
    assert (summary.taken, summary.destroyed) == (2, 1)


def test_bg5_black_and_coloured_cards_destroy_each_other():
    state = table(2, ["5K", "2B"], "5R 9Y")
    ref.play_turn(state, TurnRecord(seat=0, reveals=((C("5K"), True), (-1, False)),
                                    take=P("9Y")), R.BangoConfig(n_players=2))
    assert state.common == P("5R 5K") and hand(state, 0) == P("9Y")
    state = table(2, ["5R", "2B"], "5K 9Y")
    ref.play_turn(state, TurnRecord(seat=0, reveals=((C("5R"), True), (-1, False)),
                                    take=P("9Y")), R.BangoConfig(n_players=2))
    assert state.common == P("5K 5R")


def test_bg5_bango_needs_the_same_value_in_hand():
    state = table(2, ["6R", "2B"], "5R 9Y")
    with pytest.raises(RuleViolation, match="BG-5: bango of 5R with 6R: values differ"):
        ref.play_turn(state, TurnRecord(seat=0, reveals=((C("6R"), False),)),
                      R.BangoConfig(n_players=2))
    state = table(2, ["6R", "2B"], "5R 9Y")
    with pytest.raises(RuleViolation, match="BG-5: seat 0 plays 5B for a bango without"):
        ref.play_turn(state, TurnRecord(seat=0, reveals=((C("5B"), False),)),
                      R.BangoConfig(n_players=2))


def test_bg5_emptied_centre_means_draw_again():
    """After a bango empties the centre, stopping would take nothing: he must draw on."""
    state = table(2, ["5K", "2B"], "5R 9Y")
    with pytest.raises(RuleViolation, match="BG-3: stops with an empty centre"):
        ref.play_turn(state, TurnRecord(seat=0, reveals=((C("5K"), False),)),
                      R.BangoConfig(n_players=2))


# --------------------------------------------------------------------- BG-6


def test_bg6_sequences_extend_at_either_end_only():
    seq = P("4B 5V 6R")
    assert ref.can_extend(seq, C("3Y")) and ref.can_extend(seq, C("7B"))
    assert not ref.can_extend(seq, C("5B")) and not ref.can_extend(seq, C("8B"))
    assert not ref.can_extend(seq, C("7K"))  # black cards never enter a sequence
    assert not ref.can_extend(P("1B 2B"), C("11R"))  # no wrap
    assert ref.can_open(P("10B 11R")) and not ref.can_open(P("6R"))
    assert not ref.can_open(P("4B 4R")) and not ref.can_open(P("4B 6R"))
    assert not ref.can_open(P("4K 5K"))


def test_bg6_rule_example_basile_lays():
    """Basile (2V 3V opened) lays 1V and 4V on it, opens 10B 11R, discards 6R and 4K."""
    hand_ = P("1V 4V 10B 11R 6R 4K")
    lay = ((C("1V"), 0), (C("4V"), 0), (C("10B"), 1), (C("11R"), 1))
    assert ref.lay_violation(hand_, [P("2V 3V")], lay) is None
    state = table(3, ["", "1V 4V 10B 11R 6R 4K", ""], "", [[], ["2V 3V"], []])
    ref.apply_lay(state, 1, lay, False)
    assert state.sequences[1] == [P("1V 2V 3V 4V"), P("10B 11R")]
    assert sorted(state.personal[1]) == sorted(P("6R 4K")) and hand(state, 1) == []
    # leaving 6R alone is forced; discarding 4V, which fits, is not allowed
    bad = ((C("1V"), 0), (C("10B"), 1), (C("11R"), 1))
    assert "discards 4V, which extends" in ref.lay_violation(hand_, [P("2V 3V")], bad)


def test_bg6_card_that_extends_may_not_be_discarded():
    assert "extends" in ref.lay_violation(P("7R"), [P("4B 5B 6B")], ())
    assert ref.lay_violation(P("7R"), [P("4B 5B 6B")], ((C("7R"), 0),)) is None
    # judged after the lay: 7R fits once 8B is not laid... 8B extends 4..7 too
    assert "extends" in ref.lay_violation(P("7R 8B"), [P("4B 5B 6B")], ((C("7R"), 0),))
    # a duplicate value does not fit
    assert ref.lay_violation(P("7R 7B"), [P("4B 5B 6B")], ((C("7R"), 0),)) is None


def test_bg6_extends_a_sequence_opened_in_the_same_lay():
    hand_ = P("4B 5B 6R")
    assert "extends" in ref.lay_violation(hand_, [], ((C("4B"), 0), (C("5B"), 0)))
    assert ref.lay_violation(hand_, [], ((C("4B"), 0), (C("5B"), 0), (C("6R"), 0))) is None


def test_bg6_two_consecutive_discards_must_open_while_fewer_than_three():
    assert "could open a sequence" in ref.lay_violation(P("4B 5R"), [], ())
    assert "could open a sequence" in ref.lay_violation(P("4B 5R"), [P("1B 2B"), P("8B 9B")], ())
    three = [P("1B 2B"), P("8B 9B"), P("1R 2R")]
    assert ref.lay_violation(P("4B 5R"), three, ()) is None
    # opened in this lay, a third sequence counts toward the three
    two = [P("1B 2B"), P("8B 9B")]
    assert ref.lay_violation(P("4B 5R 6Y 11R 10K"), two,
                             ((C("4B"), 2), (C("5R"), 2), (C("6Y"), 2))) is None
    assert ref.lay_violation(P("4B 6R"), [], ()) is None  # not consecutive


def test_bg6_never_a_fourth_sequence():
    three = [P("1B 2B"), P("8B 9B"), P("1R 2R")]
    assert "at most 3 sequences" in ref.lay_violation(P("5B 6B"), three,
                                                      ((C("5B"), 3), (C("6B"), 3)))


def test_bg6_black_cards_always_go_to_the_discard():
    assert "black card 5K" in ref.lay_violation(P("4B 5K"), [P("2B 3B")],
                                                ((C("4B"), 0), (C("5K"), 0)))
    assert ref.lay_violation(P("4B 5K"), [P("2B 3B")], ((C("4B"), 0),)) is None


def test_bg6_one_sequence_never_holds_a_value_twice_but_two_may_share():
    assert "do not extend" in ref.lay_violation(P("5R"), [P("4B 5B")], ((C("5R"), 0),))
    assert ref.lay_violation(P("4R 5R"), [P("4B 5B")], ((C("4R"), 1), (C("5R"), 1))) is None


def test_bg6_new_sequences_take_slots_in_order():
    assert "new sequences must take slots 1" in ref.lay_violation(
        P("4R 5R"), [P("8B 9B")], ((C("4R"), 2), (C("5R"), 2)))


def test_bg6_free_discard_lifts_compulsory_placement():
    assert ref.lay_violation(P("4B 5R 7R"), [P("8B 9B")], (), free_discard=True) is None


def test_bg6_compulsory_lay_above_five_cards():
    state = table(2, ["1B 3B 5B 7B 9B", "2R"], "11B 6V")
    turn = TurnRecord(seat=0, reveals=((-1, False),), take=P("11B"))
    with pytest.raises(RuleViolation, match="BG-6: seat 0 ends his turn with 6 cards"):
        ref.play_turn(state, turn, R.BangoConfig(n_players=2))
    state = table(2, ["1B 3B 5B 7B", "2R"], "11B 6V")
    ref.play_turn(state, TurnRecord(seat=0, reveals=((-1, False),), take=P("11B")),
                  R.BangoConfig(n_players=2))  # five cards: no obligation
    assert len(hand(state, 0)) == 5


# --------------------------------------------------------------------- BG-8


def test_bg8_rule_example_scores_16():
    """6 cards, 4 violet (6+4); 5 cards, red = blue tie, yellow 1 (5+1); 4 cards, tie (4+0);
    4 personal discards (one black): 16."""
    first = P("1V 2V 3V 4V 5B 6R")
    second = P("3R 4R 5B 6B 7Y")
    third = P("7R 8R 9Y 10Y")
    assert [ref.sequence_points(s) for s in (first, second, third)] == [10, 6, 4]
    assert [ref.colour_bonus(s) for s in (first, second, third)] == [4, 1, 0]
    assert ref.player_score([first, second, third], 4) == 16


def test_bg8_colour_bonus_tie_rule_cases():
    assert ref.colour_bonus(P("1B 2B 3R 4R 5Y 6Y 7V")) == 1  # 2,2,2,1 -> the lone 1
    assert ref.colour_bonus(P("1B 2B 3R 4R 5Y 6Y")) == 0  # 2,2,2 -> none
    assert ref.colour_bonus(P("1B 2B 3B 4R 5R 6R 7Y 8V")) == 0  # 3,3,1,1 -> none
    assert ref.colour_bonus(P("1B 2B 3B 4R 5R 6R 7Y")) == 1  # 3,3,1 -> 1
    assert ref.colour_bonus(P("1B 2R 3Y 4V")) == 0
    assert ref.colour_bonus(P("1B 2B")) == 2


def test_bg8_engine_bonus_equals_referee_on_every_colour_count():
    """The engine reads BG-8's bonus from a table: it is the referee's for every count of
    the four colours a sequence can hold (11 cards at most), and the rule's formula's."""
    from simulators.bango.engine import bonus_by_rule

    counts = np.array([c for c in product(range(12), repeat=4) if sum(c) <= R.N_VALUES],
                      dtype=np.int8)
    assert len(counts) == 1365  # C(15, 4): four counts summing to at most 11
    assert np.array_equal(bonus(counts), bonus_by_rule(counts))
    engine_bonus = bonus(counts)
    for row, b in zip(counts, engine_bonus, strict=True):
        cards = [R.kind(1, c) for c in range(4) for _ in range(row[c])]
        assert ref.colour_bonus(cards) == b, row


# --------------------------------------------------------------------- BG-6 engine check


def _engine_code(hand_text, sequences, lay, free=False):
    hand_counts = R.hand_counts(P(hand_text))[None, :]
    mask = np.zeros((1, 3), dtype=np.uint16)
    for s, seq in enumerate(sequences):
        for c in P(seq):
            mask[0, s] |= 1 << (R.value_of(c) - 1)
    placed = np.full((1, 3, 11), -1, dtype=np.int8)
    for card, slot in lay:
        placed[0, slot, R.value_of(card) - 1] = card
    return int(lay_errors(hand_counts, mask, np.array([len(sequences)]), placed, free)[0])


@pytest.mark.parametrize(("hand_text", "sequences", "lay", "code"), [
    ("1V 4V 10B 11R 6R 4K", ["2V 3V"],
     ((C("1V"), 0), (C("4V"), 0), (C("10B"), 1), (C("11R"), 1)), 0),
    ("7R", ["4B 5B 6B"], (), 7),
    ("4B 5R", [], (), 8),
    ("4B 5R", ["1B 2B", "8B 9B", "1R 2R"], (), 0),
    ("5B 6B", ["1B 2B", "8B 9B"], ((C("5B"), 2), (C("6B"), 2)), 0),
    ("4B 5K", ["2B 3B"], ((C("4B"), 0),), 0),
    ("5R", ["4B 5B"], ((C("5R"), 0),), 3),
    ("4R 6R", [], ((C("4R"), 0), (C("6R"), 0)), 4),
    ("4R", [], ((C("4R"), 0),), 5),
    ("4R 5R", ["8B 9B"], ((C("4R"), 2), (C("5R"), 2)), 6),
    ("4B 5R 7R", ["8B 9B"], (), 0),
])
def test_bg6_engine_lay_check_agrees_with_referee(hand_text, sequences, lay, code):
    free = code == 0 and hand_text == "4B 5R 7R"
    assert _engine_code(hand_text, sequences, lay, free) == code
    legal = ref.is_legal_lay(P(hand_text), [P(s) for s in sequences], lay, free)
    assert legal == (code == 0)
