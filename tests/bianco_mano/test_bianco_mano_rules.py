"""Hand-computed tests of the Bianco Mano referee, one group per ruling BM-1..BM-12.

Every expected value below was worked out by hand from RULINGS.md, not by
running the code. Cards are written in the rule text's notation (``1R`` is the
Mamma rouge, ``8V`` the Chauffeur verte); decks and piles are listed top first.
"""

from __future__ import annotations

import dataclasses

import pytest

from simulators.bianco_mano.referee import (
    RuleViolation,
    card_points,
    deal_hands,
    deal_setup,
    first_dealer,
    game_winners,
    legal_plays,
    replay_deal,
    replay_game,
    score_deal,
    trick_winner,
)
from simulators.bianco_mano.rules import (
    ALL_PASS,
    CAPO,
    FAILED,
    MADE,
    PASS,
    BiancoManoConfig,
    DealRecord,
    GameRecord,
    family_of,
    format_cards,
    parse_card,
    parse_cards,
)

R, B, J, V = 0, 1, 2, 3
CONFIG3 = BiancoManoConfig(n_players=3)
CONFIG4 = BiancoManoConfig(n_players=4)
CONFIG5 = BiancoManoConfig(n_players=5)


def C(text: str) -> list[int]:
    """Cards from notation, in the order written."""
    return parse_cards(text)


def S(text: str) -> list[int]:
    """Cards from notation, sorted ascending (the order legal_plays and hands use)."""
    return sorted(parse_cards(text))


def precut(post: list[int], cut: int) -> tuple[int, ...]:
    """The pre-cut deck that the cut (top `cut` cards to the bottom) turns into `post`."""
    return tuple(post[-cut:] + post[:-cut])


def auto_plays(record: DealRecord, config: BiancoManoConfig) -> DealRecord:
    """The record completed with plays chosen by 'first legal card' (structural tests only)."""
    setup = deal_setup(record, config)
    n = config.n_players
    hands = [set(h) for h in setup.hands]
    leader, plays = setup.taker, []
    for _ in range(config.hand_size):
        trick = []
        for j in range(n):
            seat = (leader + j) % n
            c = legal_plays(hands[seat], trick, setup.dominant)[0]
            hands[seat].remove(c)
            trick.append(c)
        leader = (leader + trick_winner(trick, setup.dominant)) % n
        plays.extend(trick)
    return dataclasses.replace(record, plays=tuple(plays))


# ---------------------------------------------------------------------------
# The hand-made 4-player deal used by several tests.
#
# Dealer seat 3, first packet 3 (then 2), cut 5. Dealing order 0, 1, 2, 3.
# Post-cut deck (top first):
#   first packets  s0 5R 5B 6B | s1 1R 2R 8R | s2 7R 7B 8B | s3 3R 6R 3B
#   second packets s0 4J 5J    | s1 1B 2B    | s2 6J 7J    | s3 4B 2J
#   turned 4R
#   after bidding  s0 2V 3V 6V | s1 1J 8V (taker: 2) | s2 8J 4V 5V | s3 3J 1V 7V
# The cut moves the top 5 cards to the bottom, so the recorded (pre-cut) deck
# starts with the last 5 cards of the post-cut deck.
# Bids: seat 0 passes, seat 1 takes rouge (the turned card's family).
# Taker 1, partner 3 (fixed teams 1 & 3), dominant R.
#
# Tricks (seat order in brackets), winner, points (R doubled):
#  1 [1 2 3 0] 1R 7R 6R 5R   s1  10+0+0+2 = 12  (s3 cannot beat 1R: any R)
#  2 [1 2 3 0] 2R 8J 3R 6V   s1   8+0+6+0 = 14  (s2, s0 void in R and trumps)
#  3 [1 2 3 0] 1B 8B 4B 6B   s1   5+0+2+0 =  7  (no need to beat a non-dominant)
#  4 [1 2 3 0] 8V 4V 7V 3V   s0   0+2+0+3 =  5  (3V is the strongest V)
#  5 [0 1 2 3] 2V 8R 5V 1V   s1   4+0+1+5 = 10  (s1 void in V must trump)
#  6 [1 2 3 0] 1J 7J 2J 4J   s1   5+0+4+2 = 11
#  7 [1 2 3 0] 2B 7B 3B 5B   s1   4+0+3+1 =  8
#  8 [1 2 3 0] 4R 6J 3J 5J   s1   4+0+3+1 =  8
# Taker's side: 12+14+7+10+11+8+8 = 70; opponents 5; total 75. 70 >= 45: MADE,
# taker +2, partner +1, opponents -1.
# ---------------------------------------------------------------------------

DEAL4_DECK = tuple(C(
    "4V 5V 3J 1V 7V "
    "5R 5B 6B 1R 2R 8R 7R 7B 8B 3R 6R 3B "
    "4J 5J 1B 2B 6J 7J 4B 2J "
    "4R "
    "2V 3V 6V 1J 8V 8J"
))
DEAL4_PLAYS = tuple(C(
    "1R 7R 6R 5R  2R 8J 3R 6V  1B 8B 4B 6B  8V 4V 7V 3V  "
    "2V 8R 5V 1V  1J 7J 2J 4J  2B 7B 3B 5B  4R 6J 3J 5J"
))
DEAL4 = DealRecord(
    n_players=4, dealer=3, deck=DEAL4_DECK, cut=5, first_packet=3,
    bids=(PASS, R), plays=DEAL4_PLAYS,
)
# BM-3 team_piles: the taker side's tricks (1, 2, 3, 5, 6, 7, 8) then the others' (4).
DEAL4_NEXT_TEAM_PILES = tuple(C(
    "1R 7R 6R 5R  2R 8J 3R 6V  1B 8B 4B 6B  2V 8R 5V 1V  "
    "1J 7J 2J 4J  2B 7B 3B 5B  4R 6J 3J 5J  8V 4V 7V 3V"
))


def test_deal4_deck_literal_is_well_formed():
    assert len(DEAL4_DECK) == 32 and sorted(DEAL4_DECK) == list(range(32))
    assert DEAL4_DECK[5:] + DEAL4_DECK[:5] == tuple(C(
        "5R 5B 6B 1R 2R 8R 7R 7B 8B 3R 6R 3B 4J 5J 1B 2B 6J 7J 4B 2J 4R "
        "2V 3V 6V 1J 8V 8J 4V 5V 3J 1V 7V"))


def test_full_4_player_deal_end_to_end():
    result = replay_deal(DEAL4, CONFIG4)
    assert result.dealer == 3
    assert result.taker == 1
    assert result.bid_round == 1
    assert result.dominant == R
    assert result.turned_card == parse_card("4R")
    assert result.partner == 3
    assert result.hands == (
        tuple(S("5R 5B 6B 4J 5J 2V 3V 6V")),
        tuple(S("1R 2R 8R 1B 2B 4R 1J 8V")),
        tuple(S("7R 7B 8B 6J 7J 8J 4V 5V")),
        tuple(S("3R 6R 3B 4B 2J 3J 1V 7V")),
    )
    assert result.trick_winners == (1, 1, 1, 0, 1, 1, 1, 1)
    assert result.side_points == 70
    assert result.outcome == MADE
    assert result.deltas == (-1, 2, -1, 1)
    assert result.next_deck == DEAL4_NEXT_TEAM_PILES


# ---------------------------------------------------------------------------
# BM-1 Deck
# ---------------------------------------------------------------------------


def test_bm1_deck_totals_75_points_with_any_dominant():
    # 4 families x 8 characters: every notation 1..8 x R B J V names a distinct card.
    deck = [parse_card(f"{r}{f}") for r in "12345678" for f in "RBJV"]
    assert sorted(deck) == list(range(32))
    for dominant in (R, B, J, V):
        assert card_points(range(32), dominant) == 75  # 3 * 15 + 2 * 15
    assert card_points(range(32), -1) == 60  # no dominant: 4 * 15


def test_bm1_card_values_and_dominant_doubling():
    assert [card_points([c], B) for c in C("1R 2R 3R 4R 5R 6R 7R 8R")] == [5, 4, 3, 2, 1, 0, 0, 0]
    assert [card_points([c], R) for c in C("1R 2R 3R 4R 5R 6R 7R 8R")] == [10, 8, 6, 4, 2, 0, 0, 0]
    assert card_points(C("1R 1B 5J 2V"), J) == 5 + 5 + 2 + 4


def test_bm1_card_order_within_a_family():
    # Commissaire (6) beats Garde du Corps (7) beats Chauffeur (8) although all score 0.
    assert trick_winner(C("8B 7B 6B"), R) == 2
    assert trick_winner(C("2B 1B 3B"), R) == 1
    # Any dominant card beats every other card.
    assert trick_winner(C("1B 8R"), R) == 1


def test_bm1_deck_must_be_a_permutation_of_32_cards():
    bad = list(DEAL4_DECK)
    bad[0] = bad[1]
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(DEAL4, deck=tuple(bad)), CONFIG4)
    assert exc.value.ruling == "BM-1"
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(DEAL4, deck=DEAL4_DECK[:31]), CONFIG4)
    assert exc.value.ruling == "BM-1"
    assert str(exc.value).startswith("BM-1: ")


# ---------------------------------------------------------------------------
# BM-2 First dealer
# ---------------------------------------------------------------------------


def test_bm2_strongest_card_deals():
    # Seat 1's Parrain is the strongest; family ignored.
    assert first_dealer(4, C("5R 2B 7J 3V 1R")) == 1
    assert first_dealer(3, C("8R 8B 1V")) == 2


def test_bm2_tie_redraw_in_seat_order():
    # Seats 0 and 2 tie with Parrains; the redraw gives seat 0 4B, seat 2 1V.
    assert first_dealer(4, C("2R 5B 2J 3V 4B 1V")) == 2
    # Seats 0 and 1 tie twice (Mammas, then Avocats); then 7V vs 2J.
    assert first_dealer(3, C("1R 1B 8J 3R 3B 7V 2J")) == 1
    # Three-way tie, only the tied players redraw: 5J to seat 1, 4V to seat 2, 6B to seat 4.
    assert first_dealer(5, C("8R 1R 1B 2J 1J 5J 4V 6B")) == 2


def test_bm2_pile_exhausted_lowest_tied_seat_deals():
    # Tied again when the pile is empty.
    assert first_dealer(3, C("1R 1B 8J 4R 4B")) == 0
    # One card left for two tied players: no partial redraw, lowest tied seat.
    assert first_dealer(3, C("8B 1R 1J 3R")) == 1


def test_bm2_dealer_seat_must_exist():
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(DEAL4, dealer=4), CONFIG4)
    assert exc.value.ruling == "BM-2"


# ---------------------------------------------------------------------------
# BM-3 Shuffling, cut and gathering
# ---------------------------------------------------------------------------


def test_bm3_cut_moves_top_cards_to_bottom():
    # Pre-cut deck 0..31 cut at 1: post-cut 1, 2, ..., 31, 0. Dealer 3, packets 3+2:
    # seat 0 gets post-cut cards 0..2 then 12..13, i.e. cards 1 2 3 13 14; turned is 21.
    record = DealRecord(n_players=4, dealer=3, deck=tuple(range(32)), cut=1, first_packet=3,
                        bids=(PASS,) * 8)
    result = replay_deal(record, CONFIG4)
    assert result.turned_card == 21
    assert result.next_deck[:5] == (1, 2, 3, 13, 14)
    assert result.next_deck[-1] == 0  # the cut-off top card is now at the bottom
    # Cut 31: the bottom card alone comes to the top (post-cut 31, 0, ..., 30); turned 19.
    result = replay_deal(dataclasses.replace(record, cut=31), CONFIG4)
    assert result.turned_card == 19
    assert result.next_deck[:5] == (31, 0, 1, 11, 12)


@pytest.mark.parametrize("cut", [0, 32, -1])
def test_bm3_cut_out_of_range(cut):
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(DEAL4, cut=cut), CONFIG4)
    assert exc.value.ruling == "BM-3"


def test_bm3_all_pass_stacks_hands_then_turned_card_then_stock():
    # Cut 4 of 28 29 30 31 0 1 ... 27 gives the post-cut deck 0..31.
    deck = (28, 29, 30, 31) + tuple(range(28))
    record = DealRecord(n_players=4, dealer=1, deck=deck, cut=4, first_packet=2,
                        bids=(PASS,) * 8)
    result = replay_deal(record, CONFIG4)
    # Dealing order 2, 3, 0, 1; packets of 2 then 3; turned card 20; stock 21..31.
    assert result.next_deck == (
        (0, 1, 8, 9, 10)  # seat 2
        + (2, 3, 11, 12, 13)  # seat 3
        + (4, 5, 14, 15, 16)  # seat 0
        + (6, 7, 17, 18, 19)  # seat 1
        + (20,)
        + tuple(range(21, 32))
    )


def test_bm3_next_deck_team_piles():
    assert replay_deal(DEAL4, CONFIG4).next_deck == DEAL4_NEXT_TEAM_PILES


def test_bm3_next_deck_trick_order():
    config = CONFIG4.replace(gather="trick_order")
    assert replay_deal(DEAL4, config).next_deck == DEAL4_PLAYS


def test_bm3_espion_on_top_of_the_next_deck():
    # 3 players, post-cut deck 0..31 (cut 4), dealer 2, seat 2 takes in round 1.
    deck = precut(list(range(32)), 4)
    record = DealRecord(n_players=3, dealer=2, deck=deck, cut=4, first_packet=4,
                        bids=(PASS, PASS, family_of(21)), espion=tuple(C("3R 3B")))
    for gather in ("team_piles", "trick_order"):
        result = replay_deal(auto_plays(record, CONFIG3), CONFIG3.replace(gather=gather))
        assert result.next_deck[:2] == tuple(C("3R 3B"))
        assert sorted(result.next_deck) == list(range(32))


def _three_deal_game(config: BiancoManoConfig) -> GameRecord:
    """Game: dealer 3 plays DEAL4, dealer 0 all-passes, dealer 1 deals a played deal."""
    deal2 = DealRecord(n_players=4, dealer=0, deck=DEAL4_NEXT_TEAM_PILES, cut=7,
                       first_packet=2, bids=(PASS,) * 8)
    deck3 = replay_deal(deal2, config).next_deck
    cut3 = 13
    _, turned = deal_hands(4, 1, deck3[cut3:] + deck3[:cut3], 3)
    deal3 = auto_plays(DealRecord(n_players=4, dealer=1, deck=deck3, cut=cut3, first_packet=3,
                                  bids=(family_of(turned),)), config)
    # BM-2: seat 3's Mamma is the strongest.
    return GameRecord(config=config, dealer_draw=tuple(C("8R 7R 6R 1B")),
                      deals=(DEAL4, deal2, deal3))


def test_bm3_replay_game_rejects_a_tampered_next_deck():
    config = CONFIG4.replace(deals_per_game=2)
    game = _three_deal_game(config)
    replay_game(game)  # untampered: fine
    deal2 = game.deals[1]
    swapped = list(deal2.deck)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    tampered = dataclasses.replace(game, deals=(DEAL4, dataclasses.replace(
        deal2, deck=tuple(swapped)), game.deals[2]))
    with pytest.raises(RuleViolation) as exc:
        replay_game(tampered)
    assert exc.value.ruling == "BM-3"
    # With shuffle_every_deal any permutation is acceptable.
    shuffled = dataclasses.replace(tampered, config=config.replace(shuffle_every_deal=True))
    assert replay_game(shuffled).totals is not None


# ---------------------------------------------------------------------------
# BM-4 Deal, 3 players
# ---------------------------------------------------------------------------


def test_bm4_first_distribution_packets_4_then_3():
    hands, turned = deal_hands(3, 2, list(range(32)), 4)
    # Dealing order 0, 1, 2.
    assert hands[0] == [0, 1, 2, 3, 12, 13, 14]
    assert hands[1] == [4, 5, 6, 7, 15, 16, 17]
    assert hands[2] == [8, 9, 10, 11, 18, 19, 20]
    assert turned == 21


def test_bm4_first_distribution_packets_3_then_4():
    hands, turned = deal_hands(3, 0, list(range(32)), 3)
    # Dealing order 1, 2, 0.
    assert hands[1] == [0, 1, 2, 9, 10, 11, 12]
    assert hands[2] == [3, 4, 5, 13, 14, 15, 16]
    assert hands[0] == [6, 7, 8, 17, 18, 19, 20]
    assert turned == 21


def test_bm4_first_packet_must_be_3_or_4():
    with pytest.raises(RuleViolation) as exc:
        deal_hands(3, 0, list(range(32)), 2)
    assert exc.value.ruling == "BM-4"


def _record3(**changes) -> DealRecord:
    """3 players, post-cut deck 0..31, dealer 2, packets 4+3, seat 2 takes 6B (card 21)."""
    base = DealRecord(n_players=3, dealer=2, deck=precut(list(range(32)), 9), cut=9,
                      first_packet=4, bids=(PASS, PASS, B), espion=(8, 9))
    return dataclasses.replace(base, **changes)


def test_bm4_second_distribution_and_espion():
    setup = deal_setup(_record3(), CONFIG3)
    assert setup.taker == 2 and setup.dominant == B and setup.turned_card == 21
    # Taker: 8..11, 18..20, turned 21, 28..30, last card 31; minus espion 8, 9.
    assert setup.hands[2] == (10, 11, 18, 19, 20, 21, 28, 29, 30, 31)
    assert setup.hands[0] == (0, 1, 2, 3, 12, 13, 14, 22, 23, 24)
    assert setup.hands[1] == (4, 5, 6, 7, 15, 16, 17, 25, 26, 27)
    assert setup.espion == (8, 9)
    assert setup.partner == -1


def test_bm4_espion_scores_for_the_taker():
    # Espion 3R 3B with dominant B: 3 + 6 = 9 points. With team_piles the taker's
    # tricks follow the espion in the next deck, 3 cards each.
    record = auto_plays(_record3(), CONFIG3)
    result = replay_deal(record, CONFIG3)
    won = result.trick_winners.count(2)
    taker_cards = result.next_deck[2:2 + 3 * won]
    assert result.side_points == 9 + card_points(taker_cards, B)
    assert len(result.deltas) == 3


@pytest.mark.parametrize("espion", [(8,), (8, 9, 10), (0, 8), (9, 8), (8, 8)])
def test_bm4_bad_espion(espion):
    with pytest.raises(RuleViolation) as exc:
        deal_setup(_record3(espion=espion), CONFIG3)
    assert exc.value.ruling == "BM-4"


def test_bm4_no_call_in_3_players():
    with pytest.raises(RuleViolation) as exc:
        deal_setup(_record3(called=0), CONFIG3)
    assert exc.value.ruling == "BM-4"


# ---------------------------------------------------------------------------
# BM-5 Deal, 4 players
# ---------------------------------------------------------------------------


def test_bm5_first_distribution_3_then_2():
    hands, turned = deal_hands(4, 0, list(range(32)), 3)
    assert hands[1] == [0, 1, 2, 12, 13]
    assert hands[2] == [3, 4, 5, 14, 15]
    assert hands[3] == [6, 7, 8, 16, 17]
    assert hands[0] == [9, 10, 11, 18, 19]
    assert turned == 20


def test_bm5_first_distribution_2_then_3():
    hands, turned = deal_hands(4, 0, list(range(32)), 2)
    assert hands[1] == [0, 1, 8, 9, 10]
    assert hands[2] == [2, 3, 11, 12, 13]
    assert hands[3] == [4, 5, 14, 15, 16]
    assert hands[0] == [6, 7, 17, 18, 19]
    assert turned == 20


def test_bm5_first_packet_must_be_2_or_3():
    with pytest.raises(RuleViolation) as exc:
        deal_hands(4, 0, list(range(32)), 4)
    assert exc.value.ruling == "BM-5"


def test_bm5_second_distribution_taker_gets_turned_card_and_2():
    # Dealer 0, packets 3+2, seat 3 takes the turned 6R (card 20) on the 3rd bid.
    record = DealRecord(n_players=4, dealer=0, deck=precut(list(range(32)), 11), cut=11,
                        first_packet=3, bids=(PASS, PASS, R))
    setup = deal_setup(record, CONFIG4)
    assert setup.taker == 3 and setup.partner == 1
    assert setup.hands[1] == (0, 1, 2, 12, 13, 21, 22, 23)
    assert setup.hands[2] == (3, 4, 5, 14, 15, 24, 25, 26)
    assert setup.hands[3] == (6, 7, 8, 16, 17, 20, 27, 28)
    assert setup.hands[0] == (9, 10, 11, 18, 19, 29, 30, 31)
    result = replay_deal(auto_plays(record, CONFIG4), CONFIG4)
    assert len(result.trick_winners) == 8


def test_bm5_fixed_teams_and_no_espion():
    setup = deal_setup(dataclasses.replace(DEAL4, plays=()), CONFIG4)
    assert (setup.taker, setup.partner) == (1, 3)
    with pytest.raises(RuleViolation) as exc:
        deal_setup(dataclasses.replace(DEAL4, espion=tuple(C("1R 2R"))), CONFIG4)
    assert exc.value.ruling == "BM-5"
    with pytest.raises(RuleViolation) as exc:
        deal_setup(dataclasses.replace(DEAL4, called=parse_card("1V")), CONFIG4)
    assert exc.value.ruling == "BM-5"


def test_bm5_player_count_must_match_config():
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(DEAL4, n_players=5), CONFIG4)
    assert exc.value.ruling == "BM-5"


# ---------------------------------------------------------------------------
# BM-6 Deal, 5 players
# ---------------------------------------------------------------------------


def test_bm6_first_distribution_2_then_2():
    hands, turned = deal_hands(5, 0, list(range(32)), 2)
    assert hands[1] == [0, 1, 10, 11]
    assert hands[2] == [2, 3, 12, 13]
    assert hands[3] == [4, 5, 14, 15]
    assert hands[4] == [6, 7, 16, 17]
    assert hands[0] == [8, 9, 18, 19]
    assert turned == 20
    with pytest.raises(RuleViolation) as exc:
        deal_hands(5, 0, list(range(32)), 3)
    assert exc.value.ruling == "BM-6"


def _record5(**changes) -> DealRecord:
    """5 players, post-cut deck 0..31, dealer 0, seat 2 takes 6R (card 20), espion 1V 4B."""
    base = DealRecord(n_players=5, dealer=0, deck=precut(list(range(32)), 20), cut=20,
                      first_packet=2, bids=(PASS, R), espion=tuple(S("1V 4B")),
                      called=parse_card("1B"))
    return dataclasses.replace(base, **changes)


def test_bm6_second_distribution_espion_and_call():
    setup = deal_setup(_record5(), CONFIG5)
    assert setup.taker == 2 and setup.dominant == R
    # Taker before espion: 2 3 12 13 + turned 20 + 23 24 + last card 31.
    assert setup.hands[2] == tuple(S("1J 4R 6R 6V 7R 8V"))  # 2 12 20 23 24 31
    assert setup.hands[1] == (0, 1, 10, 11, 21, 22)
    assert setup.hands[3] == (4, 5, 14, 15, 25, 26)
    assert setup.hands[4] == (6, 7, 16, 17, 27, 28)
    assert setup.hands[0] == (8, 9, 18, 19, 29, 30)
    assert setup.partner == 1  # seat 1 holds the called 1B (card 1)
    result = replay_deal(auto_plays(_record5(), CONFIG5), CONFIG5)
    taker_d, partner_d, opponent_d = {FAILED: (-2, -1, 1), MADE: (2, 1, -1),
                                      CAPO: (2, 1, -2)}[result.outcome]
    assert result.deltas == (opponent_d, partner_d, taker_d, opponent_d, opponent_d)


@pytest.mark.parametrize("called", ["8R",  # dominant family
                                    "1J",  # in the taker's hand
                                    "1V"])  # in the taker's espion
def test_bm6_illegal_call(called):
    with pytest.raises(RuleViolation) as exc:
        deal_setup(_record5(called=parse_card(called)), CONFIG5)
    assert exc.value.ruling == "BM-6"


def test_bm6_call_is_required_and_espion_checked():
    with pytest.raises(RuleViolation) as exc:
        deal_setup(_record5(called=-1), CONFIG5)
    assert exc.value.ruling == "BM-6"
    with pytest.raises(RuleViolation) as exc:
        deal_setup(_record5(espion=tuple(S("1R 1J"))), CONFIG5)  # 1R is seat 1's
    assert exc.value.ruling == "BM-6"


# ---------------------------------------------------------------------------
# BM-7 Bidding
# ---------------------------------------------------------------------------


def test_bm7_round_1_take_accepts_turned_family():
    setup = deal_setup(dataclasses.replace(DEAL4, plays=()), CONFIG4)
    assert (setup.taker, setup.bid_round, setup.dominant) == (1, 1, R)
    assert parse_card("4R") in setup.hands[1]  # the taker keeps the turned card


def test_bm7_round_1_cannot_name_another_family():
    with pytest.raises(RuleViolation) as exc:
        deal_setup(dataclasses.replace(DEAL4, bids=(PASS, B), plays=()), CONFIG4)
    assert exc.value.ruling == "BM-7"


def test_bm7_round_2_names_another_family_and_taker_gets_turned_card():
    # 4 passes, then seat 0 passes and seat 1 names jaune.
    record = dataclasses.replace(DEAL4, bids=(PASS,) * 5 + (J,), plays=())
    setup = deal_setup(record, CONFIG4)
    assert (setup.taker, setup.bid_round, setup.dominant) == (1, 2, J)
    assert parse_card("4R") in setup.hands[1]


def test_bm7_round_2_cannot_name_the_turned_family():
    with pytest.raises(RuleViolation) as exc:
        deal_setup(dataclasses.replace(DEAL4, bids=(PASS,) * 5 + (R,), plays=()), CONFIG4)
    assert exc.value.ruling == "BM-7"


@pytest.mark.parametrize("bids", [(PASS,), (PASS, R, PASS), (PASS,) * 7, (PASS,) * 9,
                                  (7,), (PASS,) * 4 + (9,)])
def test_bm7_malformed_bidding(bids):
    with pytest.raises(RuleViolation) as exc:
        deal_setup(dataclasses.replace(DEAL4, bids=bids, plays=()), CONFIG4)
    assert exc.value.ruling == "BM-7"


def test_bm7_all_pass_twice_voids_the_deal():
    record = dataclasses.replace(DEAL4, bids=(PASS,) * 8, plays=())
    result = replay_deal(record, CONFIG4)
    assert result.outcome == ALL_PASS
    assert (result.taker, result.dominant, result.bid_round, result.partner) == (-1, -1, 0, -1)
    assert result.deltas == (0, 0, 0, 0)
    assert result.side_points == 0 and result.trick_winners == ()
    assert result.hands == ((), (), (), ())
    assert result.turned_card == parse_card("4R")
    # A void deal has nothing played.
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(record, plays=DEAL4_PLAYS), CONFIG4)
    assert exc.value.ruling == "BM-7"


# ---------------------------------------------------------------------------
# BM-8 Play (dominant R throughout)
# ---------------------------------------------------------------------------


def test_bm8_leader_plays_anything():
    assert legal_plays(C("8V 1R 3J"), [], R) == S("8V 1R 3J")


def test_bm8_must_follow_led_family():
    assert legal_plays(C("1B 8B 2R 3J"), C("5B"), R) == S("1B 8B")


def test_bm8_must_trump_when_void():
    assert legal_plays(C("2R 7R 3J 4V"), C("5B"), R) == S("2R 7R")


def test_bm8_must_overtrump_dominant():
    # 4R is on the table: only 2R beats it.
    assert legal_plays(C("2R 7R 3J"), C("5B 4R"), R) == S("2R")
    # Beat the strongest dominant on the table (2R), not the last one (6R).
    assert legal_plays(C("1R 3R 3J"), C("5B 2R 6R"), R) == S("1R")


def test_bm8_cannot_overtrump_plays_any_dominant():
    assert legal_plays(C("5R 7R 3J"), C("5B 2R"), R) == S("5R 7R")


def test_bm8_no_partner_exception():
    # Even if the 2R on the table is the partner's, 1R must be played.
    assert legal_plays(C("1R 6R 8J"), C("3V 2R"), R) == S("1R")


def test_bm8_no_obligation_to_beat_non_dominant():
    assert legal_plays(C("1B 8B 1R"), C("5B 3B"), R) == S("1B 8B")
    # Following a non-dominant lead while a dominant is on the table.
    assert legal_plays(C("1B 8B 1R"), C("5B 2R"), R) == S("1B 8B")


def test_bm8_free_discard_when_void_in_led_and_dominant():
    assert legal_plays(C("3J 4V"), C("5B"), R) == S("3J 4V")
    assert legal_plays(C("3J 4V"), C("5B 1R"), R) == S("3J 4V")


def test_bm8_dominant_led_must_beat():
    assert legal_plays(C("3R 6R 1B"), C("4R"), R) == S("3R")
    assert legal_plays(C("3R 6R 1B"), C("2R"), R) == S("3R 6R")
    assert legal_plays(C("3R 6R 1B"), C("4R 2R"), R) == S("3R 6R")
    assert legal_plays(C("1B 2J"), C("4R"), R) == S("1B 2J")


def test_bm8_illegal_play_must_follow():
    plays = list(DEAL4_PLAYS)
    plays[6] = parse_card("3B")  # trick 2, seat 3 holds 3R and must follow R
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(DEAL4, plays=tuple(plays)), CONFIG4)
    assert exc.value.ruling == "BM-8"
    assert str(exc.value).startswith("BM-8: trick 2, seat 3 played 3B")
    assert "must follow R" in str(exc.value)


def test_bm8_illegal_play_must_trump():
    plays = list(DEAL4_PLAYS)
    plays[17] = parse_card("2B")  # trick 5, seat 1 void in V holds 4R 8R
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(DEAL4, plays=tuple(plays)), CONFIG4)
    assert str(exc.value).startswith("BM-8: trick 5, seat 1 played 2B")
    assert "dominant" in str(exc.value) and format_cards(S("4R 8R")) in str(exc.value)


def test_bm8_illegal_play_must_overtrump():
    # Trick 1 led with 4R: seat 2 plays his only R (7R); seat 3 holds 3R and 6R
    # and must beat 4R, so 6R is illegal.
    plays = tuple(C("4R 7R 6R 5R")) + DEAL4_PLAYS[4:]
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(DEAL4, plays=plays), CONFIG4)
    assert str(exc.value) == (
        "BM-8: trick 1, seat 3 played 6R but must beat 4R with a stronger dominant (legal: 3R)"
    )


def test_bm8_card_not_in_hand_and_wrong_length():
    plays = list(DEAL4_PLAYS)
    plays[1] = parse_card("3R")  # trick 1, seat 2 plays seat 3's card
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(DEAL4, plays=tuple(plays)), CONFIG4)
    assert str(exc.value).startswith("BM-8: trick 1, seat 2 played 3R but does not hold")
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(DEAL4, plays=DEAL4_PLAYS[:-1]), CONFIG4)
    assert exc.value.ruling == "BM-8"


# ---------------------------------------------------------------------------
# BM-9 Trick winner
# ---------------------------------------------------------------------------


def test_bm9_strongest_dominant_wins():
    assert trick_winner(C("5B 1B 8R 3J"), R) == 2
    assert trick_winner(C("5B 8R 6R 1B"), R) == 2


def test_bm9_else_strongest_of_led_family():
    assert trick_winner(C("5B 1J 2B 8B"), R) == 2  # 1J is off-family
    assert trick_winner(C("8B 1J 1V"), R) == 0
    assert trick_winner(C("5R 1R 7R"), R) == 1


# ---------------------------------------------------------------------------
# BM-10 Deal score
# ---------------------------------------------------------------------------


def test_bm10_made_at_exactly_45():
    assert score_deal(4, 1, [3], 45, False) == (MADE, (-1, 2, -1, 1))


def test_bm10_failed_at_44():
    assert score_deal(4, 1, [3], 44, False) == (FAILED, (1, -2, 1, -1))


def test_bm10_capo_at_75():
    assert score_deal(4, 1, [3], 75, False) == (CAPO, (-2, 2, -2, 1))


def test_bm10_three_and_five_players():
    assert score_deal(3, 0, [], 50, False) == (MADE, (2, -1, -1))
    assert score_deal(3, 2, [], 20, False) == (FAILED, (1, 1, -2))
    assert score_deal(3, 1, [], 75, False) == (CAPO, (-2, 2, -2))
    assert score_deal(5, 2, [4], 30, False) == (FAILED, (1, 1, -2, 1, -1))
    assert score_deal(5, 0, [3], 60, False) == (MADE, (2, -1, -1, 1, -1))


def test_bm10_full_deal_made():
    result = replay_deal(DEAL4, CONFIG4)
    assert (result.side_points, result.outcome, result.deltas) == (70, MADE, (-1, 2, -1, 1))


# ---------------------------------------------------------------------------
# BM-11 Bianco Mano bonus
# ---------------------------------------------------------------------------


def test_bm11_rule_text_example_42_plus_5_is_made():
    assert score_deal(4, 0, [2], 42, True) == (MADE, (2, -1, 1, -1))
    assert score_deal(4, 0, [2], 42, False)[0] == FAILED
    assert score_deal(4, 0, [2], 40, True)[0] == MADE
    assert score_deal(4, 0, [2], 39, True)[0] == FAILED


def test_bm11_bonus_does_not_make_capo():
    assert score_deal(4, 0, [2], 70, True)[0] == MADE
    assert score_deal(4, 0, [2], 75, True)[0] == CAPO


def _bonus_record4(**changes) -> DealRecord:
    """4p, dealer 0, seat 3 takes 6R and holds 7R and 8R (post-cut cards 24 and 27 swapped)."""
    post = list(range(32))
    post[24], post[27] = post[27], post[24]
    base = DealRecord(n_players=4, dealer=0, deck=precut(post, 6), cut=6, first_packet=3,
                      bids=(PASS, PASS, R), bonus=True)
    return dataclasses.replace(base, **changes)


def test_bm11_bonus_legal_with_both_cards_and_option():
    config = CONFIG4.replace(bianco_mano=True)
    setup = deal_setup(_bonus_record4(), config)
    assert setup.hands[3] == tuple(S("2J 2V 3R 5R 5B 6R 7R 8R"))
    record = auto_plays(_bonus_record4(), config)
    result = replay_deal(record, config)
    count = result.side_points + 5
    expected = CAPO if result.side_points == 75 else (MADE if count >= 45 else FAILED)
    assert result.outcome == expected


def test_bm11_bonus_needs_the_option():
    with pytest.raises(RuleViolation) as exc:
        deal_setup(_bonus_record4(), CONFIG4)
    assert exc.value.ruling == "BM-11"


def test_bm11_bonus_needs_both_cards():
    # DEAL4's taker holds 8R but not 7R.
    config = CONFIG4.replace(bianco_mano=True)
    with pytest.raises(RuleViolation) as exc:
        deal_setup(dataclasses.replace(DEAL4, bonus=True, plays=()), config)
    assert exc.value.ruling == "BM-11"


def test_bm11_bonus_cards_must_be_in_hand_not_espion():
    # 3p, post-cut 0..31 with cards 24 (7R) and 30 swapped: the taker (seat 2) ends
    # with 7R and 8R (28); round 2, seat 2 names rouge.
    post = list(range(32))
    post[24], post[30] = post[30], post[24]
    config = CONFIG3.replace(bianco_mano=True)
    record = DealRecord(n_players=3, dealer=2, deck=precut(post, 3), cut=3, first_packet=4,
                        bids=(PASS,) * 5 + (R,), espion=tuple(C("3R 3B")), bonus=True)
    setup = deal_setup(record, config)
    assert parse_card("7R") in setup.hands[2] and parse_card("8R") in setup.hands[2]
    with pytest.raises(RuleViolation) as exc:
        deal_setup(dataclasses.replace(record, espion=tuple(S("7R 8R"))), config)
    assert exc.value.ruling == "BM-11"


# ---------------------------------------------------------------------------
# BM-12 Game
# ---------------------------------------------------------------------------


def test_bm12_winners_most_points():
    assert game_winners((5, 2, -1, 1), (0, 3, 0, 0)) == (0,)


def test_bm12_tie_broken_by_contracts_made():
    assert game_winners((3, 3, -1, 1), (1, 2, 0, 0)) == (1,)


def test_bm12_shared_win():
    assert game_winners((3, 3, -1, 3), (1, 1, 0, 0)) == (0, 1)


def test_bm12_game_totals_and_dealer_rotation():
    config = CONFIG4.replace(deals_per_game=2)
    game = _three_deal_game(config)
    result = replay_game(game)
    assert result.first_dealer == 3
    assert [d.dealer for d in result.deals] == [3, 0, 1]  # also after the all-pass deal
    assert result.deals[0].deltas == (-1, 2, -1, 1)
    assert result.deals[1].outcome == ALL_PASS
    third = result.deals[2]
    assert third.taker == 2
    assert result.totals == tuple(a + b for a, b in zip((-1, 2, -1, 1), third.deltas,
                                                        strict=True))
    made = [0, 1, 0, 0]
    if third.outcome in (MADE, CAPO):
        made[2] += 1
    assert result.contracts_made == tuple(made)
    assert result.winners == game_winners(result.totals, result.contracts_made)


def test_bm12_deal_passes_to_the_left():
    config = CONFIG4.replace(deals_per_game=2)
    game = _three_deal_game(config)
    bad = dataclasses.replace(game, deals=(DEAL4, dataclasses.replace(game.deals[1], dealer=1),
                                           game.deals[2]))
    with pytest.raises(RuleViolation) as exc:
        replay_game(bad)
    assert exc.value.ruling == "BM-12"


def test_bm12_number_of_played_deals():
    game = _three_deal_game(CONFIG4.replace(deals_per_game=2))
    # Too few played deals.
    with pytest.raises(RuleViolation) as exc:
        replay_game(dataclasses.replace(game, deals=game.deals[:2]))
    assert exc.value.ruling == "BM-12"
    # A deal after the last played one (here the all-pass deal) is too many.
    one = dataclasses.replace(game, config=game.config.replace(deals_per_game=1),
                              deals=game.deals[:2])
    with pytest.raises(RuleViolation) as exc:
        replay_game(one)
    assert exc.value.ruling == "BM-12"
    single = replay_game(dataclasses.replace(one, deals=game.deals[:1]))
    assert single.totals == (-1, 2, -1, 1)
    assert single.contracts_made == (0, 1, 0, 0)
    assert single.winners == (1,)
