"""Hand-computed tests of the Manille referee and notation, one group per ruling MA-1..MA-6.

Every expected value below was worked out by hand from RULINGS.md and the
rule text, not by running the code. Cards use the project's notation
(``10P`` the manille de pique, ``AC`` the manillon de cœur, ``7T``); a trick
is a list of ``(seat, card)`` in play order. Play turns counter-clockwise:
after seat 3 comes seat 2, then 1, then 0. Partners: 0 & 2, 1 & 3.
"""

from __future__ import annotations

import dataclasses

import pytest

from simulators.core.rulings import cut
from simulators.manille.referee import (
    RuleViolation,
    card_points,
    deal_hands,
    deal_score,
    first_dealer,
    legal_plays,
    read_bidding,
    receivers,
    replay_deal,
    replay_game,
    team_points,
    trick_winner,
)
from simulators.manille.rules import (
    ALL_CARDS,
    CONTRE,
    DEAL_POINTS,
    N_CARDS,
    NO_CONTRE,
    PASS_TO_PARTNER,
    SANS_ATOUT,
    SURCONTRE,
    DealRecord,
    GameRecord,
    ManilleConfig,
    card,
    format_card,
    format_cards,
    format_trump,
    parse_card,
    parse_cards,
    parse_hand,
    parse_trump,
)
from simulators.manille.rules import SUIT_MASK as R_SUIT_MASK

P, CO, K, T = 0, 1, 2, 3  # pique, cœur, carreau, trèfle
SA = SANS_ATOUT
CONFIG = ManilleConfig()


def C(text: str) -> list[int]:
    """Cards from notation, in the order written."""
    return parse_cards(text)


def S(text: str) -> list[int]:
    """Cards sorted ascending (the order legal_plays returns)."""
    return sorted(parse_cards(text))


def TR(*pairs: tuple[int, str]) -> list[tuple[int, int]]:
    """A trick from (seat, card notation) pairs."""
    return [(seat, parse_card(c)) for seat, c in pairs]


def auto_plays(record: DealRecord, config: ManilleConfig = CONFIG) -> DealRecord:
    """The record completed with 'first legal card' plays (structural tests only)."""
    hands = [set(h) for h in deal_hands(record.dealer, cut(record.deck, record.cut),
                                        config.packets)]
    trump = read_bidding(record, config).trump
    leader, plays = (record.dealer - 1) % 4, []
    for _ in range(8):
        trick, seat = [], leader
        for _ in range(4):
            c = legal_plays(hands[seat], trick, seat, trump, config.sans_atout_must_beat)[0]
            hands[seat].remove(c)
            trick.append((seat, c))
            seat = (seat - 1) % 4
        leader = trick_winner(trick, trump)
        plays += [c for _, c in trick]
    return dataclasses.replace(record, plays=tuple(plays))


# ----------------------------------------------------------------- MA-1 deck


def test_ma1_order_and_points():
    # 10 > A > R > D > V > 9 > 8 > 7 within a suit: a lower index is stronger.
    order = C("10P AP RP DP VP 9P 8P 7P")
    assert order == sorted(order)
    assert [card_points([c]) for c in order] == [5, 4, 3, 2, 1, 0, 0, 0]
    assert card_points(range(N_CARDS)) == 60
    assert DEAL_POINTS == 68


def test_ma1_notation_round_trip_all_cards():
    for c in range(N_CARDS):
        assert parse_card(format_card(c)) == c
    assert format_cards(C("10P AC RK 7T")) == "10P AC RK 7T"
    assert parse_card("tp") == parse_card("10P") == card(0, P)
    assert parse_card("KC") == parse_card("RC") and parse_card("qk") == parse_card("DK")
    assert parse_card("J♣") == parse_card("VT") and parse_card("10♥") == card(0, CO)
    assert parse_hand("7T 10P AC RK DK VT 9C 8P") == tuple(sorted(C("7T 10P AC RK DK VT 9C 8P")))


@pytest.mark.parametrize("text, words", [("11P", "malformed card"), ("10X", "malformed card"),
                                         ("10P 10P", "appears twice"), ("10P AP", "has 8 cards")])
def test_ma1_bad_notation_refused(text, words):
    with pytest.raises(ValueError, match=words):
        parse_hand(text)


def test_ma1_trump_notation():
    assert [parse_trump(t) for t in ("P", "cœur", "coeur", "K", "trefle", "SA", "sans atout")] \
        == [P, CO, CO, K, T, SA, SA]
    assert [format_trump(t) for t in range(5)] == ["P", "C", "K", "T", "SA"]
    with pytest.raises(ValueError, match="unknown trump"):
        parse_trump("atout")


# ----------------------------------------------------------------- MA-2 deal


def test_ma2_deal_counter_clockwise_in_packets():
    deck = list(range(32))
    assert receivers(0) == [3, 2, 1, 0]
    hands = deal_hands(0, deck, (4, 4))
    # first packets: seat 3 gets 0-3, seat 2 4-7, seat 1 8-11, the dealer 12-15; then again.
    assert hands[3] == [0, 1, 2, 3, 16, 17, 18, 19]
    assert hands[0] == [12, 13, 14, 15, 28, 29, 30, 31]
    hands = deal_hands(2, deck, (3, 2, 3))
    assert hands[1] == [0, 1, 2, 12, 13, 20, 21, 22]  # the dealer's right is seat 1
    assert sorted(c for h in hands for c in h) == deck


def test_ma2_cut_moves_top_cards_to_bottom():
    assert cut(list(range(32)), 5)[:3] == [5, 6, 7]
    assert cut(list(range(32)), 5)[-5:] == [0, 1, 2, 3, 4]


def test_ma2_first_dealer_strongest_draw_and_ties():
    # seat 0 7P, seat 1 10C (strongest), seat 2 AP, seat 3 9K
    assert first_dealer(C("7P 10C AP 9K") + C("RP")) == 1
    # seats 1 and 3 tie with a 10; they draw again in seat order: 8T to 1, AT to 3.
    assert first_dealer(C("7P 10C AP 10K 8T AT")) == 3


def test_ma2_packets_option_validated():
    assert ManilleConfig(packets="3,2,3").packets == (3, 2, 3)
    with pytest.raises(ValueError, match="packets"):
        ManilleConfig(packets=(4, 3))


# ----------------------------------------------------------------- MA-3 trump


def _bidding(choice, contre=(False, False), surcontre=(), dealer=0, config=CONFIG):
    record = DealRecord(dealer=dealer, deck=tuple(range(32)), cut=1, choice=tuple(choice),
                        contre=tuple(contre), surcontre=tuple(surcontre))
    return read_bidding(record, config)


def test_ma3_dealer_names_trump_or_sans_atout():
    b = _bidding([K])
    assert (b.chooser, b.trump, b.contre_level) == (0, K, NO_CONTRE)
    assert _bidding([SA], dealer=3).trump == SA


def test_ma3_pass_to_partner_who_must_name():
    b = _bidding([PASS_TO_PARTNER, T], dealer=1)
    assert (b.chooser, b.trump) == (3, T)
    assert _bidding([PASS_TO_PARTNER, SA]).trump == SA
    with pytest.raises(RuleViolation, match="MA-3: the dealer passed"):
        _bidding([PASS_TO_PARTNER])
    with pytest.raises(RuleViolation, match="MA-3: the partner named 5"):
        _bidding([PASS_TO_PARTNER, PASS_TO_PARTNER])
    with pytest.raises(RuleViolation, match="partner_may_sans_atout is off"):
        _bidding([PASS_TO_PARTNER, SA], config=ManilleConfig(partner_may_sans_atout=False))
    with pytest.raises(RuleViolation, match="MA-3: the dealer named the trump"):
        _bidding([P, CO])


# ----------------------------------------------------------------- MA-4 contre


def test_ma4_contre_asked_from_the_dealers_right():
    # dealer 0: the opponents are seat 3 (his right, asked first) and seat 1.
    b = _bidding([P], contre=[True], surcontre=[False, False])
    assert (b.contre_level, b.contre_by, b.surcontre_by) == (CONTRE, 3, -1)
    b = _bidding([P], contre=[False, True], surcontre=[False, False])
    assert (b.contre_level, b.contre_by) == (CONTRE, 1)


def test_ma4_surcontre_asked_from_the_chooser():
    b = _bidding([PASS_TO_PARTNER, CO], contre=[True], surcontre=[True])
    assert (b.chooser, b.contre_level, b.surcontre_by) == (2, SURCONTRE, 2)
    b = _bidding([CO], contre=[True], surcontre=[False, True])
    assert (b.contre_level, b.surcontre_by) == (SURCONTRE, 2)


def test_ma4_malformed_answers_refused():
    with pytest.raises(RuleViolation, match="MA-4: surcontre answers recorded without a contre"):
        _bidding([P], contre=[False, False], surcontre=[True])
    with pytest.raises(RuleViolation, match="MA-4: contre: seat 1 was not asked"):
        _bidding([P], contre=[False])
    with pytest.raises(RuleViolation, match="answers recorded after seat 3"):
        _bidding([P], contre=[True, False], surcontre=[False, False])


# ----------------------------------------------------------------- MA-5 play


def test_ma5_leader_plays_anything():
    assert legal_plays(C("7T 10P AC"), [], 2, P) == S("7T 10P AC")


def test_ma5_must_follow_suit():
    assert legal_plays(C("10C 8C 7P RK"), TR((3, "RC")), 2, P) == S("10C")  # and beat
    assert legal_plays(C("DC 8C 7P RK"), TR((3, "RC")), 2, P) == S("DC 8C")  # cannot beat


def test_ma5_opponent_holds_with_led_suit_must_beat():
    # seat 2 (team 0) holds with AC; seat 1 must beat it: only the 10C does.
    assert legal_plays(C("10C 8C 7P RK"), TR((3, "9C"), (2, "AC")), 1, P) == S("10C")
    # the strongest card on the table counts, not the last one played
    assert legal_plays(C("RC DC 7P"), TR((3, "AC"), (2, "9C")), 1, P) == S("RC DC")  # partner
    assert legal_plays(C("10C RC 7P"), TR((2, "AC"), (1, "9C")), 0, P) == S("10C RC")  # partner


def test_ma5_partner_holds_no_duty_to_beat():
    # seat 3 (seat 1's partner) holds with AC: any cœur.
    assert legal_plays(C("10C 8C 7P RK"), TR((3, "AC"), (2, "9C")), 1, P) == S("10C 8C")


def test_ma5_partner_holds_void_plays_anything():
    # no duty to trump when the partner holds the trick
    assert legal_plays(C("7P 10P RK DT"), TR((3, "AC"), (2, "9C")), 1, P) == S("7P 10P RK DT")
    # the partner has trumped: no duty to overtrump either
    assert legal_plays(C("10P AK"), TR((2, "9C"), (1, "8P"), (0, "7C")), 3, P) == S("10P AK")


def test_ma5_opponent_holds_void_must_trump():
    assert legal_plays(C("7P 10P RK"), TR((3, "9C"), (2, "AC")), 1, P) == S("7P 10P")
    # no trump: discard anything
    assert legal_plays(C("RK 7T"), TR((3, "9C"), (2, "AC")), 1, P) == S("RK 7T")


def test_ma5_opponent_trumped_must_overtrump():
    # seat 1 has trumped with VP; seat 0 is void in cœur: only 10P beats VP.
    assert legal_plays(C("10P 7P AK"), TR((2, "9C"), (1, "VP")), 0, P) == S("10P")
    # seat 0 overtrumped seat 3's partner seat 1: seat 3 must beat 8P with 10P or DP.
    assert legal_plays(C("10P DP RK"), TR((2, "9C"), (1, "7P"), (0, "8P")), 3, P) == S("10P DP")


def test_ma5_cannot_overtrump_discards_anything():
    # 9P and 7P are below DP: no under-trumping duty, any card goes.
    assert legal_plays(C("9P 7P RK"), TR((3, "9C"), (2, "DP")), 1, P) == S("9P 7P RK")


def test_ma5_following_under_an_opponents_trump_no_duty_to_beat():
    # an opponent holds the trick with a trump: a cœur cannot beat it; any cœur.
    assert legal_plays(C("AC 8C 10P"), TR((3, "9C"), (2, "7P")), 1, P) == S("AC 8C")


def test_ma5_trump_led_must_beat_an_opponent():
    assert legal_plays(C("DP 7P AC"), TR((3, "VP")), 2, P) == S("DP")
    assert legal_plays(C("DP 7P AC"), TR((3, "VP"), (2, "9P")), 1, P) == S("DP 7P")  # partner


def test_ma5_duty_follows_the_holder_not_the_leader():
    # an opponent (seat 2) led, the partner (seat 1) now holds: any cœur for seat 3.
    assert legal_plays(C("8C AP"), TR((2, "9C"), (1, "10C"), (0, "7C")), 3, P) == S("8C")
    # the partner (seat 1) led, an opponent (seat 0) now holds: seat 3 must beat RC.
    assert legal_plays(C("AC 8C"), TR((1, "9C"), (0, "RC")), 3, P) == S("AC")


def test_ma5_sans_atout_follow_or_discard():
    trick = TR((3, "9C"), (2, "RC"))
    assert legal_plays(C("AC 8C DP"), trick, 1, SA) == S("AC 8C")
    assert legal_plays(C("DP 8K"), trick, 1, SA) == S("DP 8K")  # void: discard anything


def test_ma5_sans_atout_must_beat_option():
    trick = TR((3, "9C"), (2, "RC"))
    assert legal_plays(C("AC 8C DP"), trick, 1, SA, sans_atout_must_beat=True) == S("AC")
    assert legal_plays(C("DC 8C DP"), trick, 1, SA, sans_atout_must_beat=True) == S("DC 8C")
    # the partner holds: still no duty
    assert legal_plays(C("AC 8C"), TR((3, "RC"), (2, "9C")), 1, SA, True) == S("AC 8C")
    assert legal_plays(C("DP 8K"), trick, 1, SA, sans_atout_must_beat=True) == S("DP 8K")


def test_ma5_trick_winner():
    assert trick_winner(TR((3, "9C"), (2, "AC"), (1, "10C"), (0, "RC")), P) == 1
    assert trick_winner(TR((3, "9C"), (2, "AC"), (1, "7P"), (0, "10K")), P) == 1  # trumped
    assert trick_winner(TR((3, "9C"), (2, "8P"), (1, "7P"), (0, "10K")), P) == 2
    assert trick_winner(TR((3, "9C"), (2, "8P"), (1, "7P"), (0, "10K")), SA) == 3  # no trump


def test_ma5_illegal_play_named_with_ruling():
    record = auto_plays(DealRecord(dealer=0, deck=tuple(range(32)), cut=4, choice=(P,),
                                   contre=(False, False)))
    # seat 3 leads the first trick; seat 2 answers. Deck after the cut is 4..31,0..3:
    # seat 2 holds 8 9 10 11 24 25 26 27 (DP DC DK DT 7P 7C 7K 7T).
    hands = deal_hands(0, cut(record.deck, 4))
    assert sorted(hands[2]) == [8, 9, 10, 11, 24, 25, 26, 27]
    lead = record.plays[0]
    plays = list(record.plays)
    plays[1] = next(c for c in hands[2] if c & 3 != lead & 3)  # a card not of the led suit
    with pytest.raises(RuleViolation) as exc:
        replay_deal(dataclasses.replace(record, plays=tuple(plays)), CONFIG)
    assert exc.value.ruling == "MA-5"
    assert str(exc.value).startswith(f"MA-5: trick 1, seat 2 played {format_card(plays[1])}")
    assert "must follow" in str(exc.value)


def test_ma5_illegal_play_must_overtrump_reason():
    from simulators.manille.referee import why_illegal
    reason = why_illegal(C("10P 7P AK"), TR((2, "9C"), (1, "VP")), 0, P, parse_card("7P"))
    assert reason.startswith("cannot follow C and must overtrump")
    reason = why_illegal(C("7P AK"), TR((2, "9C"), (1, "AC")), 0, P, parse_card("AK"))
    assert reason.startswith("cannot follow C and must trump P")
    reason = why_illegal(C("10C 8C"), TR((2, "9C"), (1, "AC")), 0, P, parse_card("8C"))
    assert reason.startswith("must beat AC")


# ----------------------------------------------------------------- MA-6 score


def test_ma6_trick_points():
    tricks = [C("10P AP 7C 8C"), C("RK DK VK 9K")]
    assert team_points(tricks, [0, 3]) == (1 + 9, 1 + 6)


def test_ma6_above_34_scores_the_excess():
    assert deal_score((42, 26), P, NO_CONTRE) == (8, 0)
    assert deal_score((20, 48), T, NO_CONTRE) == (0, 14)


def test_ma6_34_34_scores_nothing():
    for trump in (P, SA):
        for level in (NO_CONTRE, CONTRE, SURCONTRE):
            assert deal_score((34, 34), trump, level) == (0, 0)


@pytest.mark.parametrize("trump, level, factor", [
    (P, NO_CONTRE, 1), (SA, NO_CONTRE, 2), (P, CONTRE, 2), (P, SURCONTRE, 4),
    (SA, CONTRE, 4), (SA, SURCONTRE, 8),
])
def test_ma6_multipliers_multiply(trump, level, factor):
    # taking team (team 0) wins with 40: 6 points times the factor
    assert deal_score((40, 28), trump, level) == (6 * factor, 0)
    # contring team wins with 38: its 4 points times the factor
    assert deal_score((30, 38), trump, level) == (0, 4 * factor)


def test_ma6_replayed_deal_totals_68():
    for dealer, choice in ((0, (P,)), (1, (PASS_TO_PARTNER, SA)), (2, (K,))):
        record = auto_plays(DealRecord(dealer=dealer, deck=tuple(range(31, -1, -1)), cut=7,
                                       choice=choice, contre=(True,), surcontre=(False, False)))
        result = replay_deal(record, CONFIG)
        assert sum(result.team_points) == 68 and sum(result.team_tricks) == 8
        assert sum(result.team_card_points) == 60
        assert result.contre_level == CONTRE and result.contre_by == (dealer - 1) % 4
        factor = 2 * (2 if result.trump == SA else 1)
        winner = 0 if result.team_points[0] > 34 else 1
        assert result.scores[winner] == (result.team_points[winner] - 34) * factor


def _game(config, n_deals):
    deals, dealer = [], first_dealer(C("7P 10C AP 9K"))  # seat 1 deals first
    for i in range(n_deals):
        deck = tuple((i * 7 + k * 5) % 32 for k in range(32))
        deals.append(auto_plays(DealRecord(dealer=dealer, deck=deck, cut=1 + i, choice=(SA,),
                                           contre=(True,), surcontre=(True,)), config))
        dealer = (dealer - 1) % 4
    return GameRecord(config=config, dealer_draw=tuple(C("7P 10C AP 9K")), deals=tuple(deals))


def test_ma6_game_to_the_target_dealer_passes_counter_clockwise():
    config = ManilleConfig(target=50)
    totals, n = [0, 0], 0
    while max(totals) < 50:  # sans atout surcontré: every won deal scores 8x its excess
        n += 1
        result = replay_deal(_game(config, n).deals[-1], config)
        totals = [t + s for t, s in zip(totals, result.scores, strict=True)]
    game = replay_game(_game(config, n))
    assert game.first_dealer == 1
    assert [d.dealer for d in game.deals] == [(1 - i) % 4 for i in range(n)]
    assert list(game.totals) == totals and game.winner == (0 if totals[0] >= 50 else 1)
    with pytest.raises(RuleViolation, match="MA-6: deal .* recorded after a team reached 50"):
        replay_game(_game(config, n + 1))
    if n > 1:
        with pytest.raises(RuleViolation, match="MA-6: game ends at"):
            replay_game(_game(config, n - 1))


def test_ma6_wrong_dealer_refused():
    record = _game(ManilleConfig(target=150), 2)
    bad = dataclasses.replace(record, deals=(record.deals[0],
                                             dataclasses.replace(record.deals[1], dealer=2)))
    with pytest.raises(RuleViolation, match="MA-2: deal 2 dealt by seat 2, expected seat 0"):
        replay_game(bad)


@pytest.mark.parametrize("options, words", [
    ({"target": 75}, "target"), ({"target": True}, "target"),
    ({"sans_atout_must_beat": "yes"}, "sans_atout_must_beat"),
    ({"cut_weights": (1.0,)}, "cut_weights"), ({"max_deals": 0}, "max_deals"),
])
def test_config_refuses_bad_options(options, words):
    with pytest.raises(ValueError, match=words):
        ManilleConfig(**options)


def test_all_cards_mask():
    assert ALL_CARDS == 2**32 - 1


def test_ma1_encoding_is_the_shared_kernels():
    from simulators.core import tricks

    assert list(tricks.SUIT_MASK[:4]) == list(R_SUIT_MASK)
    assert all(tricks.card(r, s) == card(r, s) for r in range(8) for s in range(4))
