"""Bango referee: a plain, one-game-at-a-time replay of recorded games.

Written from ``RULINGS.md`` (BG-1..BG-8) and the French rule text only, with
lists, Counters and tuples of kinds — no bitmasks, no numpy, nothing shared
with the engine or the laying solver — so that it can cross-check both:
replay a :class:`~simulators.bango.rules.GameRecord` and compare the result,
or catch the first move that breaks a ruling (:class:`RuleViolation`).

Conventions: seats 0..n-1 clockwise, "left of X" is ``(X + 1) % n``; the deck
and the stock are listed top first; a card is a kind ``11 * colour + value - 1``
(colour 4 is black), see :mod:`simulators.bango.rules`. A sequence is a list
of kinds sorted by value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from simulators.bango.rules import (
    MAX_SEQUENCES,
    MIN_OPEN,
    BangoConfig,
    GameRecord,
    Lay,
    TurnRecord,
    colour_of,
    format_card,
    format_cards,
    full_deck,
    is_black,
    value_of,
)
from simulators.core.rulings import RuleViolation

# ---------------------------------------------------------------------------
# Explosions (BG-3) and sequences (BG-6)
# ---------------------------------------------------------------------------


def is_explosion(centre: Sequence[int], revealed: int) -> bool:
    """Whether ``revealed`` repeats the value of a card already in the centre (BG-3)."""
    return any(value_of(c) == value_of(revealed) for c in centre)


def can_extend(sequence: Sequence[int], card: int) -> bool:
    """Whether ``card`` goes just below or just above an opened sequence (BG-6)."""
    if is_black(card) or not sequence:
        return False
    values = [value_of(c) for c in sequence]
    return value_of(card) in (min(values) - 1, max(values) + 1)


def is_sequence(cards: Sequence[int]) -> bool:
    """Consecutive values, each once, no black card, no wrap (BG-6); one card counts as a run."""
    if not cards or any(is_black(c) for c in cards):
        return False
    values = sorted(value_of(c) for c in cards)
    return values == list(range(values[0], values[0] + len(values)))


def can_open(cards: Sequence[int]) -> bool:
    """Whether ``cards`` may start a new sequence: 2+ consecutive values (BG-6)."""
    return len(cards) >= MIN_OPEN and is_sequence(cards)


def colour_bonus(cards: Sequence[int]) -> int:
    """BG-8 bonus of one sequence: the count of its most represented colour.

    A tie for the top count passes to the next lower count, and so on; the
    first count held by exactly one colour is the bonus; none: no bonus.
    """
    counts = Counter(colour_of(c) for c in cards if not is_black(c))
    by_count = Counter(counts.values())  # count -> how many colours have it
    for count in sorted(by_count, reverse=True):
        if by_count[count] == 1:
            return count
    return 0


def sequence_points(cards: Sequence[int]) -> int:
    """1 point per card plus the colour bonus (BG-8)."""
    return len(cards) + colour_bonus(cards)


def player_score(sequences: Sequence[Sequence[int]], personal_discard: int) -> int:
    """BG-8: sequence points minus one per personal-discard card."""
    return sum(sequence_points(s) for s in sequences) - personal_discard


# ---------------------------------------------------------------------------
# Laying (BG-6)
# ---------------------------------------------------------------------------


def lay_violation(hand: Sequence[int], sequences: Sequence[Sequence[int]], lay: Lay,
                  free_discard: bool = False) -> str | None:
    """Why ``lay`` breaks BG-6 for this hand and these sequences, or ``None`` if it is legal.

    ``lay`` lists ``(kind, slot)`` for every card placed; slots 0..2 count the
    player's sequences in the order opened, new ones taking the next free
    slots; every other hand card goes to the personal discard.
    """
    left = Counter(hand)
    added: dict[int, list[int]] = {}
    for card, slot in lay:
        if left[card] <= 0:
            return f"lays {format_card(card)}, which is not in hand"
        left[card] -= 1
        if is_black(card):
            return f"black card {format_card(card)} in a sequence"
        if not 0 <= slot < MAX_SEQUENCES:
            return f"slot {slot}: a player has at most {MAX_SEQUENCES} sequences"
        added.setdefault(slot, []).append(card)
    opened = len(sequences)
    new_slots = sorted(s for s in added if s >= opened)
    if new_slots != list(range(opened, opened + len(new_slots))):
        return f"new sequences must take slots {opened}.. in order, got {new_slots}"
    after = [list(s) for s in sequences] + [[] for _ in new_slots]
    for slot, cards in sorted(added.items()):
        if slot >= opened and not can_open(cards):
            return f"new sequence {format_cards(cards)} is not 2+ consecutive values"
        if not is_sequence(after[slot] + cards):
            return (f"{format_cards(cards)} do not extend {format_cards(after[slot])} "
                    "into consecutive values")
        after[slot] = sorted(after[slot] + cards, key=value_of)
    if free_discard:
        return None
    discards = [c for c in left.elements() if not is_black(c)]
    for card in discards:
        for seq in after:
            if can_extend(seq, card):
                return (f"discards {format_card(card)}, which extends "
                        f"{format_cards(seq)} (compulsory placement)")
    if len(after) < MAX_SEQUENCES:
        values = {value_of(c) for c in discards}
        for v in sorted(values):
            if v + 1 in values:
                return (f"discards a {v} and a {v + 1}, which could open a sequence while "
                        f"{len(after)} < {MAX_SEQUENCES} are open (compulsory placement)")
    return None


def is_legal_lay(hand, sequences, lay, free_discard: bool = False) -> bool:
    """Whether the arrangement obeys BG-6 (see :func:`lay_violation`)."""
    return lay_violation(hand, sequences, lay, free_discard) is None


# ---------------------------------------------------------------------------
# A game (BG-2..BG-8)
# ---------------------------------------------------------------------------


@dataclass
class TableState:
    """Everything on the table during a replay."""

    n_players: int
    stock: list[int]
    hands: list[Counter]
    sequences: list[list[list[int]]]
    personal: list[list[int]]
    common: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    centre: list[int] = field(default_factory=list)
    explosions: list[int] = field(default_factory=list)
    bangos: list[int] = field(default_factory=list)
    lays: list[int] = field(default_factory=list)
    blacks: list[int] = field(default_factory=list)

    def card_count(self) -> int:
        """All cards anywhere: must stay 99 (BG-1)."""
        return (len(self.stock) + sum(sum(h.values()) for h in self.hands)
                + sum(len(s) for seqs in self.sequences for s in seqs)
                + sum(len(p) for p in self.personal) + len(self.common) + len(self.removed)
                + len(self.centre))


@dataclass(frozen=True)
class TurnSummary:
    """What one turn did, for comparison with the engine's per-turn table."""

    seat: int
    revealed: int
    exploded: bool
    taken: int
    destroyed: int
    laid: bool


@dataclass(frozen=True)
class GameResult:
    """A replayed game: scores and the table's end state (BG-8)."""

    scores: tuple[int, ...]
    sequences: tuple[tuple[tuple[int, ...], ...], ...]
    personal_discards: tuple[int, ...]
    explosions: tuple[int, ...]
    bangos: tuple[int, ...]
    lays: tuple[int, ...]
    blacks_received: tuple[int, ...]
    turns: tuple[TurnSummary, ...]
    initial_hands: tuple[int, ...]


def setup(record: GameRecord) -> TableState:
    """BG-2: remove the top cards unseen, deal one card each, black cards put back."""
    if sorted(record.deck) != full_deck():
        raise RuleViolation("BG-1", "the deck is not the 99 cards of the game")
    n = record.n_players
    stock = list(record.deck)
    removed, stock = stock[:record.removed], stock[record.removed:]
    hands = [Counter() for _ in range(n)]
    reinsert = list(record.reinsert)
    for seat in range(n):
        card = stock.pop(0)
        while is_black(card):
            if not reinsert:
                raise RuleViolation("BG-2", f"seat {seat} was dealt black {format_card(card)} "
                                            "and the record does not put it back")
            position = reinsert.pop(0)
            if not 0 <= position <= len(stock):
                raise RuleViolation("BG-2", f"black card put back at {position}, outside the "
                                            f"deck of {len(stock)}")
            stock.insert(position, card)
            card = stock.pop(0)
        hands[seat][card] += 1
    if reinsert:
        raise RuleViolation("BG-2", f"{len(reinsert)} unused black-card positions")
    return TableState(n, stock, hands, [[] for _ in range(n)], [[] for _ in range(n)],
                      removed=removed, explosions=[0] * n, bangos=[0] * n, lays=[0] * n,
                      blacks=[0] * n)


def _play_from_hand(state: TableState, seat: int, card: int, target: int) -> None:
    """BG-5 bango: ``card`` from the hand destroys ``target`` of the same value."""
    if state.hands[seat][card] <= 0:
        raise RuleViolation("BG-5", f"seat {seat} plays {format_card(card)} for a bango "
                                    "without holding it")
    if value_of(card) != value_of(target):
        raise RuleViolation("BG-5", f"bango of {format_card(target)} with {format_card(card)}: "
                                    "values differ")
    state.hands[seat][card] -= 1
    state.common += [target, card]
    state.bangos[seat] += 1


def _draw(state: TableState, turn: TurnRecord) -> tuple[bool, int]:
    """BG-3/BG-5 drawing: reveal, maybe bango, go on or stop. Returns (exploded, revealed)."""
    seat = turn.seat
    for i, (bango, go_on) in enumerate(turn.reveals):
        if not state.stock:
            raise RuleViolation("BG-7", "a card is revealed from an empty deck")
        card = state.stock.pop(0)
        exploded = is_explosion(state.centre, card)
        state.centre.append(card)
        if bango >= 0:  # BG-5: only the card just revealed, which cancels its explosion
            state.centre.pop()
            _play_from_hand(state, seat, bango, card)
            exploded = False
        last = i == len(turn.reveals) - 1
        if exploded:
            if not last:
                raise RuleViolation("BG-4", "the turn goes on drawing after an explosion")
            return True, i + 1
        if go_on:
            if not state.stock:
                raise RuleViolation("BG-7", "draws on after the last card of the deck")
            if last:
                raise RuleViolation("BG-3", "the record ends while the player draws on")
        else:
            if not last:
                raise RuleViolation("BG-3", "more reveals after the player stopped")
            if not state.centre and state.stock:
                raise RuleViolation("BG-3", "stops with an empty centre: he must take a card, "
                                            "so he must reveal another")
            return False, i + 1
    raise RuleViolation("BG-3", "a turn must reveal at least one card")


def _stop(state: TableState, turn: TurnRecord) -> None:
    """BG-3 stop: take at least one centre card, the rest to the common discard."""
    seat = turn.seat
    if turn.spoils or turn.destroys:
        raise RuleViolation("BG-4", "explosion decisions on a turn without explosion")
    if state.centre and not turn.take:
        raise RuleViolation("BG-3", "a player who stops must take at least one card")
    left = list(state.centre)
    for card in turn.take:
        if card not in left:
            raise RuleViolation("BG-3", f"takes {format_card(card)}, not in the centre")
        left.remove(card)
        state.hands[seat][card] += 1
        state.blacks[seat] += is_black(card)
    state.common += left
    state.centre = []


def _explode(state: TableState, turn: TurnRecord) -> None:
    """BG-4: the active player takes the exploding card and the blacks; opponents serve."""
    seat, n = turn.seat, state.n_players
    if turn.take:
        raise RuleViolation("BG-4", "a stop's take on a turn that exploded")
    state.explosions[seat] += 1
    exploding = state.centre.pop()
    state.hands[seat][exploding] += 1
    state.blacks[seat] += is_black(exploding)
    for card in [c for c in state.centre if is_black(c)]:
        state.centre.remove(card)
        state.hands[seat][card] += 1
        state.blacks[seat] += 1
    expected = [(seat + k) % n for k in range(1, n)][:len(state.centre)]
    if [s for s, _, _ in turn.spoils] != expected:
        raise RuleViolation("BG-4", f"opponents served {[s for s, _, _ in turn.spoils]}, "
                                    f"expected one card each for {expected}")
    for opponent, card, with_card in turn.spoils:
        if card not in state.centre:
            raise RuleViolation("BG-4", f"seat {opponent} picks {format_card(card)}, not in "
                                        "the centre")
        state.centre.remove(card)
        if with_card < 0:
            state.hands[opponent][card] += 1
        else:
            _play_from_hand(state, opponent, with_card, card)
    for card, with_card in turn.destroys:
        if card not in state.centre:
            raise RuleViolation("BG-5", f"destroys {format_card(card)}, not in the centre")
        state.centre.remove(card)
        _play_from_hand(state, seat, with_card, card)
    for card in state.centre:  # BG-4: the active player takes what is left
        state.hands[seat][card] += 1
    state.centre = []


def apply_lay(state: TableState, seat: int, lay: Lay, free_discard: bool) -> None:
    """BG-6: check and place the whole hand; unplaced cards go to the personal discard."""
    hand = list(state.hands[seat].elements())
    reason = lay_violation(hand, state.sequences[seat], lay, free_discard)
    if reason is not None:
        raise RuleViolation("BG-6", f"seat {seat} {reason}")
    left = Counter(hand)
    for card, slot in lay:
        left[card] -= 1
        while len(state.sequences[seat]) <= slot:
            state.sequences[seat].append([])
        state.sequences[seat][slot] = sorted(state.sequences[seat][slot] + [card], key=value_of)
    state.personal[seat] += list(left.elements())
    state.hands[seat] = Counter()
    state.lays[seat] += 1


def play_turn(state: TableState, turn: TurnRecord, config: BangoConfig) -> TurnSummary:
    """One player-turn: draw (BG-3..BG-5) then perhaps lay (BG-6)."""
    seat = turn.seat
    before = sum(state.hands[seat].values())
    bangos = state.bangos[:]
    exploded, revealed = _draw(state, turn)
    if exploded:
        _explode(state, turn)
    else:
        _stop(state, turn)
    taken = sum(state.hands[seat].values()) - before + state.bangos[seat] - bangos[seat]
    if turn.lay is not None:
        apply_lay(state, seat, turn.lay, config.free_discard)
    elif sum(state.hands[seat].values()) > config.hand_limit:
        raise RuleViolation("BG-6", f"seat {seat} ends his turn with "
                                    f"{sum(state.hands[seat].values())} cards and does not lay")
    destroyed = sum(state.bangos) - sum(bangos)
    return TurnSummary(seat, revealed, exploded, taken, destroyed, turn.lay is not None)


def replay_game(record: GameRecord) -> GameResult:
    """Replay a whole game from its record, checking every decision (BG-2..BG-8)."""
    config = BangoConfig(n_players=record.n_players, removed=record.removed,
                         free_discard=record.free_discard, hand_limit=record.hand_limit)
    n = record.n_players
    if not 0 <= record.first_player < n:
        raise RuleViolation("BG-2", f"first player {record.first_player} is not a seat")
    state = setup(record)
    initial = tuple(next(iter(h)) for h in state.hands)
    summaries = []
    for t, turn in enumerate(record.turns):
        if not state.stock:
            raise RuleViolation("BG-7", f"turn {t} is played after the deck ran out")
        expected = (record.first_player + t) % n
        if turn.seat != expected:
            raise RuleViolation("BG-2", f"turn {t} is played by seat {turn.seat}, expected "
                                        f"{expected} (clockwise from the first player)")
        summaries.append(play_turn(state, turn, config))
        if state.card_count() != len(record.deck):
            raise AssertionError(f"turn {t}: {state.card_count()} cards on the table, not 99")
    if state.stock:
        raise RuleViolation("BG-7", f"the record ends with {len(state.stock)} cards in the deck")
    if len(record.final_lays) != n:
        raise RuleViolation("BG-7", f"{len(record.final_lays)} final lays for {n} players")
    for seat, lay in enumerate(record.final_lays):  # BG-7: a last lay is a choice
        if lay is not None:
            apply_lay(state, seat, lay, config.free_discard)
        state.personal[seat] += list(state.hands[seat].elements())
        state.hands[seat] = Counter()
    if state.card_count() != len(record.deck):
        raise AssertionError(f"end: {state.card_count()} cards on the table, not 99")
    return GameResult(
        scores=tuple(player_score(state.sequences[s], len(state.personal[s])) for s in range(n)),
        sequences=tuple(tuple(tuple(q) for q in state.sequences[s]) for s in range(n)),
        personal_discards=tuple(len(p) for p in state.personal),
        explosions=tuple(state.explosions), bangos=tuple(state.bangos),
        lays=tuple(state.lays), blacks_received=tuple(state.blacks), turns=tuple(summaries),
        initial_hands=initial)

