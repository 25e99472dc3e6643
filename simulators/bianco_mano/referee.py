"""Bianco Mano referee: a plain, one-deal-at-a-time replay of recorded games.

This module is written from ``RULINGS.md`` (BM-1..BM-12) and the French rule
text only. It is deliberately simple (lists and sets of card integers, no
bitmasks, no numpy) so that it can cross-check the vectorized engine: replay a
:class:`~simulators.bianco_mano.rules.DealRecord` and compare the result, or
catch the first move that breaks a ruling (:class:`RuleViolation`).

Conventions: seats 0..n-1 clockwise, "left of X" is ``(X + 1) % n``; decks
and piles are listed top first; a card is ``4 * rank + family`` (rank 0 is the
strongest), see :mod:`simulators.bianco_mano.rules`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from simulators.bianco_mano.rules import (
    ALL_PASS,
    BONUS_POINTS,
    CAPO,
    CHAUFFEUR,
    CONTRACT_POINTS,
    ESPION_SIZE,
    FAILED,
    FAMILY_CODES,
    FIRST_DISTRIBUTION,
    FIRST_PACKET_CHOICES,
    GARDE_DU_CORPS,
    HAND_SIZE,
    MADE,
    N_CARDS,
    N_FAMILIES,
    PASS,
    SCORE_CHANGES,
    SECOND_PACKET,
    TOTAL_POINTS,
    BiancoManoConfig,
    DealRecord,
    GameRecord,
    card,
    family_of,
    format_card,
    format_cards,
    rank_of,
)
from simulators.bianco_mano.rules import card_points as _one_card_points
from simulators.core import rulings
from simulators.core.rulings import RuleViolation


def _deal_ruling(n_players: int) -> str:
    """The ruling describing the deal for this player count (BM-4/5/6)."""
    return {3: "BM-4", 4: "BM-5", 5: "BM-6"}[n_players]


def _family_name(family: int) -> str:
    """Family letter, e.g. 'R'."""
    return FAMILY_CODES[family]


# ---------------------------------------------------------------------------
# Cards, tricks and points (BM-1, BM-8, BM-9)
# ---------------------------------------------------------------------------


def card_points(cards: Iterable[int], dominant: int) -> int:
    """Sum of the points of ``cards``, dominant cards counting double (BM-1)."""
    return sum(_one_card_points(c, dominant) for c in cards)


def _strongest(cards: Iterable[int]) -> int:
    """The strongest card among cards of one family (lowest rank)."""
    return min(cards, key=rank_of)


def legal_plays(hand: Iterable[int], trick: Sequence[int], dominant: int) -> list[int]:
    """Cards of ``hand`` that may be played into ``trick`` (BM-8), ascending."""
    hand = sorted(hand)
    if not trick:
        return hand  # the leader plays anything
    led = family_of(trick[0])
    on_table = [c for c in trick if family_of(c) == dominant]
    followers = [c for c in hand if family_of(c) == led]
    trumps = [c for c in hand if family_of(c) == dominant]
    if followers:
        # BM-8 (1): follow the led family. No obligation to beat a
        # non-dominant card; but following a dominant lead is playing a
        # dominant card into a trick that holds one, so (3) applies.
        candidates = followers
    elif trumps:
        # BM-8 (2): void in the led family, play a dominant card.
        candidates = trumps
    else:
        # BM-8 (4): neither led family nor dominant: discard anything.
        return hand
    if family_of(candidates[0]) == dominant and on_table:
        # BM-8 (3): beat the strongest dominant on the table if you can,
        # else play any dominant.
        best = rank_of(_strongest(on_table))
        beating = [c for c in candidates if rank_of(c) < best]
        if beating:
            return beating
    return candidates


def _why_illegal(hand: Iterable[int], trick: Sequence[int], dominant: int, c: int) -> str:
    """Human-readable reason why ``c`` is not a legal play (BM-8)."""
    hand = set(hand)
    if c not in hand:
        return "does not hold that card"
    led = family_of(trick[0])
    legal = legal_plays(hand, trick, dominant)
    if family_of(c) == family_of(legal[0]):
        # Right family, yet illegal: a dominant that does not beat the table.
        on_table = [x for x in trick if family_of(x) == dominant]
        reason = f"must beat {format_card(_strongest(on_table))} with a stronger dominant"
    elif family_of(legal[0]) == led:
        reason = f"must follow {_family_name(led)}"
    else:
        reason = (f"cannot follow {_family_name(led)} and must play a dominant "
                  f"({_family_name(dominant)})")
    return f"{reason} (legal: {format_cards(legal)})"


def trick_winner(trick: Sequence[int], dominant: int) -> int:
    """Position in ``trick`` of the winning card (BM-9)."""
    trumps = [i for i, c in enumerate(trick) if family_of(c) == dominant]
    if trumps:
        # BM-9: the strongest dominant card wins.
        return min(trumps, key=lambda i: rank_of(trick[i]))
    led = family_of(trick[0])
    # BM-9: else the strongest card of the led family.
    followers = [i for i, c in enumerate(trick) if family_of(c) == led]
    return min(followers, key=lambda i: rank_of(trick[i]))


# ---------------------------------------------------------------------------
# Scoring (BM-10, BM-11, BM-12)
# ---------------------------------------------------------------------------


def score_deal(
    n_players: int, taker: int, partners: Iterable[int], side_points: int, bonus: bool
) -> tuple[int, tuple[int, ...]]:
    """Outcome and per-seat score changes of a played deal (BM-10, BM-11)."""
    partners = set(partners)
    if side_points == TOTAL_POINTS:
        outcome = CAPO  # BM-10, and BM-11: capo is judged on card points alone
    else:
        count = side_points + (BONUS_POINTS if bonus else 0)  # BM-11: +5 towards the 45 threshold
        outcome = MADE if count >= CONTRACT_POINTS else FAILED  # BM-10
    taker_delta, partner_delta, opponent_delta = SCORE_CHANGES[outcome]
    deltas = []
    for seat in range(n_players):
        if seat == taker:
            deltas.append(taker_delta)
        elif seat in partners:
            deltas.append(partner_delta)
        else:
            deltas.append(opponent_delta)
    return outcome, tuple(deltas)


def game_winners(totals: Sequence[int], contracts_made: Sequence[int]) -> tuple[int, ...]:
    """Seats winning the game: most points, then most contracts made (BM-12)."""
    best = max(totals)
    leaders = [s for s, t in enumerate(totals) if t == best]
    most = max(contracts_made[s] for s in leaders)
    return tuple(s for s in leaders if contracts_made[s] == most)


# ---------------------------------------------------------------------------
# Dealer and distribution (BM-2..BM-7)
# ---------------------------------------------------------------------------


def _is_card(c) -> bool:
    """Whether ``c`` is a card index 0..31 (numpy integers accepted)."""
    return rulings.is_index(c, N_CARDS)


def first_dealer(n_players: int, dealer_draw: Sequence[int]) -> int:
    """Seat of the first dealer from the dealer-draw pile (BM-2).

    One card to each (still tied) player, in seat order; the strongest rank
    deals, family ignored; if the pile cannot give every tied player a new
    card, the lowest tied seat deals.
    """
    return rulings.first_dealer(dealer_draw, n_players, rank_of, "BM-2")


def _receivers(n_players: int, dealer: int) -> list[int]:
    """Seats in dealing order, from the dealer's left to the dealer."""
    return rulings.seat_order(dealer + 1, n_players)


def deal_hands(
    n_players: int, dealer: int, deck_after_cut: Sequence[int], first_packet: int
) -> tuple[list[list[int]], int]:
    """First-distribution hands per seat, in order received, and the turned card."""
    if first_packet not in FIRST_PACKET_CHOICES[n_players]:
        raise RuleViolation(
            _deal_ruling(n_players),
            f"first packet of {first_packet} cards; allowed: {FIRST_PACKET_CHOICES[n_players]}",
        )
    deck = list(deck_after_cut)
    hands: list[list[int]] = [[] for _ in range(n_players)]
    pos = 0
    # BM-4/5/6: every player receives the first packet, then every player the second.
    for packet in (first_packet, FIRST_DISTRIBUTION[n_players] - first_packet):
        for seat in _receivers(n_players, dealer):
            hands[seat].extend(deck[pos:pos + packet])
            pos += packet
    return hands, deck[pos]


def second_receivers(n_players: int, dealer: int, taker: int) -> list[int]:
    """The seat receiving each card of the second distribution, in dealing order (BM-4..BM-6).

    One packet per player clockwise from the dealer's left; in 3 and 5 players the
    last card goes face down to the taker. The taker's turned card is not dealt.
    """
    seats: list[int] = []
    for seat in _receivers(n_players, dealer):
        packet = SECOND_PACKET[n_players]
        if n_players == 4 and seat == taker:
            packet = 2  # BM-5: the taker gets the turned card and 2 more
        seats += [seat] * packet
    if n_players in (3, 5):
        seats.append(taker)  # BM-4/BM-6: the last card to the taker
    return seats


@dataclass(frozen=True)
class Contract:
    """Who deals, who takes and with what: the fields a deal's setup and result share."""

    dealer: int
    taker: int  # -1 if all pass
    bid_round: int  # 1 or 2; 0 if all pass
    dominant: int  # -1 if all pass
    turned_card: int
    partner: int  # 4p teammate, 5p holder of the called card, else -1
    hands: tuple[tuple[int, ...], ...]  # per seat when play starts, sorted; () each if all pass


@dataclass(frozen=True)
class DealSetup(Contract):
    """State of a deal when play starts (or when it is voided by all passes)."""

    espion: tuple[int, ...]
    next_deck_if_void: tuple[int, ...]  # BM-3 stacking after an all-pass; () otherwise


def _read_bids(
    n_players: int, dealer: int, bids: Sequence[int], turned_family: int
) -> tuple[int, int, int]:
    """Taker, dominant family and bid round from the bids; (-1, -1, 0) if all pass (BM-7)."""
    bids = list(bids)
    pos = 0
    for bid_round in (1, 2):
        for seat in _receivers(n_players, dealer):
            if pos >= len(bids):
                raise RuleViolation(
                    "BM-7", f"bidding stops after {len(bids)} actions, before anyone took "
                            f"and before {2 * n_players} passes"
                )
            action = bids[pos]
            pos += 1
            if action == PASS:
                continue
            if bid_round == 1 and action != turned_family:
                # BM-7: in round 1 taking accepts the turned card's family.
                raise RuleViolation(
                    "BM-7", f"round 1, seat {seat} bid {action!r}; only pass ({PASS}) or the "
                            f"turned family {_family_name(turned_family)} ({turned_family})"
                )
            if bid_round == 2 and (action not in range(N_FAMILIES) or action == turned_family):
                # BM-7: in round 2 the taker names one of the 3 other families.
                raise RuleViolation(
                    "BM-7", f"round 2, seat {seat} bid {action!r}; only pass ({PASS}) or a "
                            f"family other than the turned {_family_name(turned_family)}"
                )
            if pos != len(bids):
                raise RuleViolation(
                    "BM-7", f"{len(bids) - pos} bidding action(s) recorded after seat {seat} took"
                )
            return seat, action, bid_round
    if pos != len(bids):
        raise RuleViolation("BM-7", f"{len(bids) - pos} bidding action(s) after all passed twice")
    return -1, -1, 0


def _check_record_shape(record: DealRecord, config: BiancoManoConfig) -> None:
    """Raise on a malformed record: player count, dealer, deck, cut."""
    n = config.n_players
    if record.n_players != n:
        raise RuleViolation(
            _deal_ruling(n), f"record is for {record.n_players} players, config for {n}"
        )
    if isinstance(record.dealer, bool) or record.dealer not in range(n):
        raise RuleViolation("BM-2", f"dealer seat {record.dealer!r} is not in 0..{n - 1}")
    deck = list(record.deck)
    rulings.check_cards(deck, "BM-1", "deck")
    if len(deck) != N_CARDS:
        raise RuleViolation("BM-1", f"deck has {len(deck)} cards, not {N_CARDS}")
    if isinstance(record.cut, bool) or record.cut not in range(1, N_CARDS):
        raise RuleViolation("BM-3", f"cut {record.cut!r} is not in 1..31")


def deal_setup(record: DealRecord, config: BiancoManoConfig) -> DealSetup:
    """Cut, deal, bid, espion, call and bonus of a recorded deal, checked (BM-1..BM-7, BM-11)."""
    _check_record_shape(record, config)
    n = config.n_players
    dealer = record.dealer
    ruling = _deal_ruling(n)
    deck = rulings.cut(record.deck, record.cut)  # BM-3
    first_hands, turned = deal_hands(n, dealer, deck, record.first_packet)
    pos = n * FIRST_DISTRIBUTION[n] + 1  # first distribution + the turned card
    taker, dominant, bid_round = _read_bids(n, dealer, record.bids, family_of(turned))

    if taker < 0:
        # BM-7: all passed twice, the deal is void. BM-3: hands stacked in seat
        # order from the dealer's left, then the turned card, on top of the stock.
        if record.plays or record.espion or record.called != -1 or record.bonus:
            raise RuleViolation("BM-7", "all passed twice, yet the record has play, espion, "
                                        "call or bonus")
        stacked = [c for seat in _receivers(n, dealer) for c in first_hands[seat]]
        next_deck = tuple(stacked + [turned] + deck[pos:])
        return DealSetup(dealer, -1, 0, -1, turned, -1, tuple(() for _ in range(n)), (),
                         next_deck)

    # Second distribution: the taker receives the turned card (BM-7), then the
    # rest of the deck in the order of second_receivers (BM-4/5/6).
    hands = [list(h) for h in first_hands]
    hands[taker].append(turned)
    for seat in second_receivers(n, dealer, taker):
        hands[seat].append(deck[pos])
        pos += 1
    assert pos == N_CARDS

    # Espion (BM-4, BM-6): 2 cards from the taker's hand, set aside, ascending.
    espion = tuple(record.espion)
    if len(espion) != ESPION_SIZE[n]:
        raise RuleViolation(ruling, f"espion of {len(espion)} cards; {ESPION_SIZE[n]} expected")
    rulings.check_cards(espion, ruling, "espion")
    if list(espion) != sorted(espion):
        raise RuleViolation(ruling, f"espion {format_cards(espion)} is not stored ascending")
    for c in espion:
        if c not in hands[taker]:
            raise RuleViolation(ruling, f"espion card {format_card(c)} is not in the taker's hand")
        hands[taker].remove(c)

    # Partner: fixed teams (BM-5) or the holder of the called card (BM-6).
    partner = -1
    if n == 4:
        partner = (taker + 2) % 4  # BM-5: seats 0 & 2 vs 1 & 3
        if record.called != -1:
            raise RuleViolation(ruling, f"no call in 4 players, got {record.called!r}")
    elif n == 3:
        if record.called != -1:
            raise RuleViolation(ruling, f"no call in 3 players, got {record.called!r}")
    else:
        called = record.called
        if not _is_card(called):
            raise RuleViolation("BM-6", f"called card {called!r} is not a card index 0..31")
        if family_of(called) == dominant:
            raise RuleViolation("BM-6", f"called card {format_card(called)} is of the dominant "
                                        f"family")
        if called in hands[taker] or called in espion:
            raise RuleViolation("BM-6", f"called card {format_card(called)} is the taker's own")
        partner = next(seat for seat in range(n) if called in hands[seat])

    # BM-11: the bonus needs the option and, in hand, the dominant Garde du
    # Corps and Chauffeur.
    if record.bonus:
        if not config.bianco_mano:
            raise RuleViolation("BM-11", "Bianco Mano announced but the option is off")
        needed = (card(GARDE_DU_CORPS, dominant), card(CHAUFFEUR, dominant))
        if not all(c in hands[taker] for c in needed):
            raise RuleViolation(
                "BM-11", f"Bianco Mano announced without {format_cards(needed)} in hand"
            )

    return DealSetup(dealer, taker, bid_round, dominant, turned, partner,
                     tuple(tuple(sorted(h)) for h in hands), espion, ())


# ---------------------------------------------------------------------------
# Replaying deals and games
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DealResult(Contract):
    """Everything a replayed deal produces."""

    trick_winners: tuple[int, ...]  # seat winning each trick
    side_points: int  # card points of the taker's side incl. espion, no bonus
    outcome: int  # FAILED, MADE, CAPO or ALL_PASS
    deltas: tuple[int, ...]  # per seat
    next_deck: tuple[int, ...]  # pre-cut deck for the next deal (BM-3)


def _play_tricks(
    setup: DealSetup, plays: Sequence[int], n_players: int
) -> tuple[list[list[int]], list[int]]:
    """Check every card played (BM-8); the tricks in play order and their winning seats."""
    n_tricks = HAND_SIZE[n_players]
    if len(plays) != n_players * n_tricks:
        raise RuleViolation(
            "BM-8", f"{len(plays)} cards played; {n_players * n_tricks} expected"
        )
    hands = [set(h) for h in setup.hands]
    leader = setup.taker  # BM-8: the taker leads the first trick
    tricks: list[list[int]] = []
    winners: list[int] = []
    pos = 0
    for t in range(n_tricks):
        trick: list[int] = []
        for j in range(n_players):
            seat = (leader + j) % n_players  # clockwise
            c = plays[pos]
            pos += 1
            if c not in hands[seat] or c not in legal_plays(hands[seat], trick, setup.dominant):
                shown = format_card(c) if _is_card(c) else repr(c)
                raise RuleViolation(
                    "BM-8", f"trick {t + 1}, seat {seat} played {shown} but "
                            f"{_why_illegal(hands[seat], trick, setup.dominant, c)}"
                )
            hands[seat].remove(c)
            trick.append(c)
        winner = (leader + trick_winner(trick, setup.dominant)) % n_players  # BM-9
        tricks.append(trick)
        winners.append(winner)
        leader = winner  # BM-8: the winner leads the next trick
    return tricks, winners


def replay_deal(record: DealRecord, config: BiancoManoConfig) -> DealResult:
    """Replay one recorded deal, raising RuleViolation at the first broken ruling."""
    n = config.n_players
    setup = deal_setup(record, config)
    if setup.taker < 0:
        return DealResult(
            dealer=setup.dealer, taker=-1, bid_round=0, dominant=-1,
            turned_card=setup.turned_card, partner=-1, hands=setup.hands,
            trick_winners=(), side_points=0, outcome=ALL_PASS, deltas=(0,) * n,
            next_deck=setup.next_deck_if_void,
        )

    tricks, winners = _play_tricks(setup, list(record.plays), n)

    # BM-10: the taker's side counts its tricks plus the espion.
    side = {setup.taker} | ({setup.partner} if setup.partner >= 0 else set())
    side_tricks = [tr for tr, w in zip(tricks, winners, strict=True) if w in side]
    other_tricks = [tr for tr, w in zip(tricks, winners, strict=True) if w not in side]
    side_points = card_points(setup.espion, setup.dominant) + sum(
        card_points(tr, setup.dominant) for tr in side_tricks
    )
    partners = side - {setup.taker}
    outcome, deltas = score_deal(n, setup.taker, partners, side_points, record.bonus)

    # BM-3: gather the cards for the next deal, espion on top.
    if config.gather == "team_piles":
        piles = side_tricks + other_tricks
    else:  # "trick_order"
        piles = tricks
    next_deck = tuple(setup.espion) + tuple(c for tr in piles for c in tr)

    return DealResult(
        dealer=setup.dealer, taker=setup.taker, bid_round=setup.bid_round,
        dominant=setup.dominant, turned_card=setup.turned_card, partner=setup.partner,
        hands=setup.hands, trick_winners=tuple(winners), side_points=side_points,
        outcome=outcome, deltas=deltas, next_deck=next_deck,
    )


@dataclass(frozen=True)
class GameResult:
    """Everything a replayed game produces."""

    first_dealer: int
    deals: tuple[DealResult, ...]
    totals: tuple[int, ...]
    contracts_made: tuple[int, ...]  # MADE or CAPO as taker (the "+2"s)
    winners: tuple[int, ...]


def replay_game(record: GameRecord) -> GameResult:
    """Replay a whole game: first dealer, dealer rotation, deck continuity, totals (BM-2..BM-12)."""
    config = record.config
    n = config.n_players
    dealer = first_dealer(n, record.dealer_draw)  # BM-2
    first = dealer
    results: list[DealResult] = []
    played = 0
    previous_next_deck: tuple[int, ...] | None = None
    for i, deal in enumerate(record.deals):
        if played == config.deals_per_game:
            raise RuleViolation(
                "BM-12", f"deal {i + 1} recorded after the game's {config.deals_per_game} "
                         f"played deals"
            )
        if deal.dealer != dealer:
            # BM-12 (and BM-7 after an all-pass): the deal passes to the left.
            raise RuleViolation("BM-12", f"deal {i + 1} dealt by seat {deal.dealer!r}, "
                                         f"expected seat {dealer}")
        if not config.shuffle_every_deal and previous_next_deck is not None:
            if tuple(deal.deck) != previous_next_deck:
                # BM-3: gathered and cut, never shuffled.
                raise RuleViolation(
                    "BM-3", f"deal {i + 1} deck is not the previous deal's gathered cards"
                )
        result = replay_deal(deal, config)  # checks the deck is a permutation (BM-1)
        results.append(result)
        previous_next_deck = result.next_deck
        if result.outcome != ALL_PASS:
            played += 1
        dealer = (dealer + 1) % n
    if played != config.deals_per_game:
        raise RuleViolation(
            "BM-12", f"{played} played deals recorded; the game has {config.deals_per_game}"
        )

    totals = [0] * n
    contracts = [0] * n
    for result in results:
        for seat, delta in enumerate(result.deltas):
            totals[seat] += delta
        if result.outcome in (MADE, CAPO):
            contracts[result.taker] += 1
    return GameResult(
        first_dealer=first, deals=tuple(results), totals=tuple(totals),
        contracts_made=tuple(contracts), winners=game_winners(totals, contracts),
    )
