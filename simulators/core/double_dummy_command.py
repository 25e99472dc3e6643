"""The shared half of ``tapisvert solve GAME`` for the double-dummy games (names no game).

A game's ``solver/command.py`` declares its notation and trick rules in a
:class:`CardRules`, its solve question (a :class:`DoubleDummyQuestion` with its own fields),
and what a value means; this module reads the command line, packs and
solves (:mod:`simulators.core.double_dummy`), times the search and builds
the JSON document and its text. Two modes:

* ``--deals N [--seed S]``: the engine's own deals of that seed (deal ``i``
  is the deal ``tapisvert simulate`` plays), each solved from its first card.
  The game declares a pure function of (config, seed, deal ids) in its
  :class:`~simulators.core.game.SolveDeals` (:func:`question`, :func:`play`
  and :func:`solve_rows` are its shared steps); the toolkit's executor maps
  it over chunks of deals (``--n-jobs``, ``--backend dask``, ``--out-dir``
  resumed after a kill, ``--progress``) and :func:`deals_document` reports
  one value and one "made" per deal, their mean and share (the 95% interval
  the toolkit gives it), the solving time and the deals per second.
* ``--hands "H0; H1; ..."`` with ``--trump``, ``--leader``, ``--trick``,
  ``--side``, ``--banked``: one position in card notation
  (:func:`read_position`, every refusal a ``ValueError`` naming the flag;
  :func:`check_trick`: each card on the trick legal by the game's referee);
  :func:`position_document` gives its value, each legal card's value for the
  player to move, and the best card(s).

A value is always **side 0's** points from the position on (the trick in
progress included) when side 0 maximises them and side 1 minimises them,
every hand visible; side 0 is the seats of ``--side`` (a position) or the
side the game names (its deals).
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from simulators.core import double_dummy as dd
from simulators.core.game import SolveDealsRun
from simulators.core.rng import DEFAULT_SEED

U32 = np.uint32
POSITION_FLAGS = ("trump", "leader", "trick", "side", "banked")
CHUNK = 250  # deals solved per chunk of the executor, unless the command says otherwise
BYTES_PER_DEAL = 4096  # --deals keeps every deal in memory (its arrays, its position, its
# value in the document): about 0.9 KB measured (Manille, Bianco Mano), 4 KB with a margin


@dataclass(frozen=True)
class CardRules:
    """What the shared command needs of a game's cards and tricks.

    ``hand_size(n)`` is the cards a hand holds at the first card with ``n``
    seats; ``seat_counts`` the seat counts a position may have.
    """

    title: str
    parse_card: Callable[[str], int]
    format_card: Callable[[int], str]
    direction: int
    trick_points: int
    seat_counts: tuple[int, ...]
    hand_size: Callable[[int], int]


@dataclass(frozen=True)
class Reading:
    """A position read from the command line (cards as indices, hands as masks by seat)."""

    hands: tuple[int, ...]
    trick: tuple[int, ...]
    leader: int
    side: tuple[int, ...]
    banked: int
    to_play: int
    banked_max: int

    @property
    def n_seats(self) -> int:
        return len(self.hands)


# ---------------------------------------------------------------- flags


DEALS_DOC = ("solve the engine's deals 0..N-1 of --seed (the deals 'tapisvert simulate' plays "
             "with the heuristic policy), each from its first card")
SEED_DOC = f"root seed of --deals (default {DEFAULT_SEED}, as the study commands)"
HANDS_DOC = ("one position instead: the cards left in each seat's hand, seat 0 first, ';' "
             "between seats; cards already played are simply missing, a hand may be empty")
TRICK_DOC = ("with --hands: the cards already played to the trick in progress, in play order "
             "from --leader (default: none, --leader leads)")


def flag(doc: str, metavar: str | None = None, default=None):
    """A field of a solve question: a flag of the command (``Solve.question``)."""
    return field(default=default, metadata={"doc": doc, **({"metavar": metavar} if metavar
                                                            else {})})


@dataclass(frozen=True)
class DoubleDummyQuestion:
    """The flags both modes share, as the fields of a solve question: a game's question
    subclasses it, adds its own fields and declares ``trump``, ``leader``, ``side`` and
    ``banked`` again with its own help (and ``hands`` with its example)."""

    deals: int | None = flag(DEALS_DOC, "N")
    seed: int | None = flag(SEED_DOC, "S")
    hands: str | None = flag(HANDS_DOC, '"H0; H1; ..."')
    trump: str | None = flag("with --hands: the trump")
    leader: int | None = flag("with --hands: the seat that led the trick in progress", "SEAT")
    trick: str | None = flag(TRICK_DOC, '"CARDS"')
    side: str | None = flag("with --hands: side 0, the seats whose points are counted", "SEATS")
    banked: int | None = flag("with --hands: points side 0 already holds", "N")

    def __post_init__(self) -> None:
        if mode(self) == "position":
            self.read_position()
        else:
            self.deals_config()

    def read_position(self):
        """The position of ``--hands``, read and checked (a ValueError naming the flag)."""
        raise NotImplementedError

    def deals_config(self):
        """The rule config of ``--deals`` (a ValueError naming the option)."""
        raise NotImplementedError


def hands_flag(example: str):
    """``hands`` with a game's example position."""
    return flag(f'{HANDS_DOC} (e.g. "{example}")', '"H0; H1; ..."')


def mode(args) -> str:
    """``"deals"`` or ``"position"``, refusing flags that do not go together."""
    if args.hands is None:
        given = [f"--{name}" for name in POSITION_FLAGS if getattr(args, name) is not None]
        if given:
            raise ValueError(f"{given[0]} describes a position: it goes with --hands, not "
                             "--deals")
        if args.deals is None:
            raise ValueError("give --deals N (the engine's deals) or --hands (one position)")
        if args.deals < 1:
            raise ValueError(f"--deals must be at least 1, got {args.deals}")
        most = most_deals()
        if args.deals > most:
            raise ValueError(f"--deals must be at most {most:,} on this machine (every deal is "
                             f"kept in memory, about {BYTES_PER_DEAL // 1024} KB each), got "
                             f"{args.deals}")
        if args.seed is not None and args.seed < 0:
            raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
        return "deals"
    if args.deals is not None:
        raise ValueError("--deals and --hands are two modes: give one of them")
    if args.seed is not None:
        raise ValueError("--seed goes with --deals: a position given with --hands draws nothing")
    if args.trump is None:
        raise ValueError("--hands needs --trump (see: --help)")
    return "position"


def most_deals() -> int:
    """The most deals ``--deals`` can hold in this machine's memory."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # a platform that does not say: 8 GB
        memory = 8 * 2**30
    return max(1, memory // BYTES_PER_DEAL)


def seed(args) -> int:
    """The seed of ``--deals`` (the study commands' default when not given)."""
    return DEFAULT_SEED if args.seed is None else int(args.seed)


# ---------------------------------------------------------------- reading a position


def _cards(text: str, rules: CardRules, where: str) -> list[int]:
    cards = []
    for token in (t for t in re.split(r"[\s,]+", text.strip()) if t):
        try:
            cards.append(rules.parse_card(token))
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
    return cards


def read_hands(text: str, rules: CardRules) -> tuple[int, ...]:
    """``"H0; H1; ..."`` as one uint32-style mask per seat; every card at most once."""
    parts = str(text).split(";")
    if len(parts) not in rules.seat_counts:
        counts = " or ".join(map(str, rules.seat_counts))
        raise ValueError(f"--hands: {len(parts)} seat(s) given, {rules.title} has {counts} "
                         "(';' between seats, seat 0 first)")
    holder: dict[int, int] = {}
    masks = []
    for seat, part in enumerate(parts):
        mask = 0
        for c in _cards(part, rules, f"--hands, seat {seat}"):
            if c in holder:
                where = (f"twice in seat {seat}'s hand" if holder[c] == seat
                         else f"in seat {holder[c]}'s hand and in seat {seat}'s")
                raise ValueError(f"--hands: {rules.format_card(c)} is {where}")
            holder[c] = seat
            mask |= 1 << c
        masks.append(mask)
    return tuple(masks)


def read_trick(text: str | None, hands: Sequence[int], rules: CardRules) -> tuple[int, ...]:
    """The cards on the table, in play order; none twice, none also in a hand."""
    if text is None:
        return ()
    cards = _cards(text, rules, "--trick")
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise ValueError(f"--trick: {rules.format_card(c)} is on the trick twice")
        seen.add(c)
        for seat, mask in enumerate(hands):
            if mask >> c & 1:
                raise ValueError(f"--trick: {rules.format_card(c)} is on the trick and in seat "
                                 f"{seat}'s hand")
    n = len(hands)
    if len(cards) >= n:
        raise ValueError(f"--trick: a trick in progress holds at most {n - 1} cards with {n} "
                         f"seats (the last card ends it), got {len(cards)}")
    return tuple(cards)


def read_side(text: str, n: int) -> tuple[int, ...]:
    """``"0,2"`` as sorted seats, each in range and once."""
    try:
        seats = [int(t) for t in re.split(r"[\s,]+", text.strip()) if t]
    except ValueError:
        raise ValueError(f"--side must list seats like 0,2, got {text!r}") from None
    if not seats:
        raise ValueError("--side must list at least one seat")
    if any(not 0 <= s < n for s in seats):
        raise ValueError(f"--side: seats are 0..{n - 1} with {n} hands, got {text!r}")
    if len(set(seats)) != len(seats):
        raise ValueError(f"--side: a seat is given twice in {text!r}")
    return tuple(sorted(seats))


def seat_after(leader: int, k: int, n: int, direction: int) -> int:
    """The seat ``k`` places after ``leader`` in the play order."""
    return (leader + direction * k) % n


def check_sizes(hands: Sequence[int], trick: Sequence[int], leader: int,
                rules: CardRules) -> int:
    """The hand sizes a trick in progress allows; returns the cards of a seat still to play."""
    n, k = len(hands), len(trick)
    sizes = [bin(h).count("1") for h in hands]
    played = [seat_after(leader, j, n, rules.direction) for j in range(k)]
    waiting = [s for s in range(n) if s not in played]
    base = sizes[waiting[0]]
    if any(sizes[s] != base for s in waiting) or any(sizes[s] != base - 1 for s in played):
        shown = ", ".join(map(str, sizes))
        if k == 0:
            raise ValueError(f"--hands: the seats hold {shown} cards; with no card on the "
                             "trick (--trick) every seat holds the same number")
        raise ValueError(f"--hands: the seats hold {shown} cards; with {k} card(s) on the "
                         f"trick led by seat {leader}, the seats still to play "
                         f"({', '.join(map(str, waiting))}) hold one card more than those "
                         f"that played ({', '.join(map(str, played))})")
    if base == 0:
        raise ValueError("--hands: no card is left to play")
    most = rules.hand_size(n)
    if base > most:
        raise ValueError(f"--hands: a {rules.title} hand holds at most {most} cards with {n} "
                         f"seats, got {base}")
    return base


def check_trick(reading: Reading, rules: CardRules,
                why_illegal: Callable[[list[int], list[tuple[int, int]], int, int],
                                      str | None]) -> None:
    """Each card on the trick was a legal play from its player's hand at the time (the hand
    left plus that card), by the game's own referee: ``why_illegal(hand, earlier, seat,
    card)`` is None for a legal play, else the reason (``earlier``: the (seat, card) pairs
    played before it). A seat that discarded while it still holds the led suit, say, is
    refused rather than solved as if the rules allowed it."""
    earlier: list[tuple[int, int]] = []
    for k, card in enumerate(reading.trick):
        seat = seat_after(reading.leader, k, reading.n_seats, rules.direction)
        hand = [c for c in range(32) if reading.hands[seat] >> c & 1] + [card]
        reason = why_illegal(hand, list(earlier), seat, card)
        if reason:
            held = fmt_cards(sum(1 << c for c in hand), rules.format_card)
            raise ValueError(f"--trick: seat {seat} cannot have played "
                             f"{rules.format_card(card)} from {held}: {reason}")
        earlier.append((seat, card))


def read_trump(text: str | None, parse: Callable[[str], int]) -> int:
    """``--trump`` read by the game's ``parse``; its refusal names the flag."""
    try:
        return parse(text)
    except ValueError as error:
        raise ValueError(f"--trump: {error}") from None


def read_position(args, rules: CardRules, card_points: Sequence[int], *,
                  default_side: Callable[[int], tuple[int, ...]],
                  check_side: Callable[[tuple[int, ...], int], None]) -> Reading:
    """``--hands``, ``--trick``, ``--leader``, ``--side`` and ``--banked`` read and checked
    (``ValueError`` naming the flag); ``card_points`` gives ``--banked``'s ceiling."""
    hands = read_hands(args.hands, rules)
    n = len(hands)
    leader = 0 if args.leader is None else int(args.leader)
    if not 0 <= leader < n:
        raise ValueError(f"--leader must be a seat 0..{n - 1}, got {leader}")
    trick = read_trick(args.trick, hands, rules)
    base = check_sizes(hands, trick, leader, rules)
    side = default_side(n) if args.side is None else read_side(args.side, n)
    check_side(side, n)
    in_play = 0
    for mask in hands:
        in_play |= mask
    for c in trick:
        in_play |= 1 << c
    tricks_done = rules.hand_size(n) - base
    banked_max = (sum(card_points[c] for c in range(32) if not in_play >> c & 1)
                  + tricks_done * rules.trick_points)
    banked = 0 if args.banked is None else int(args.banked)
    if not 0 <= banked <= banked_max:
        raise ValueError(f"--banked must be 0..{banked_max} (the points of the cards no longer "
                         f"in play{' and of the tricks done' if rules.trick_points else ''}), "
                         f"got {banked}")
    to_play = seat_after(leader, len(trick), n, rules.direction)
    return Reading(hands, trick, leader, side, banked, to_play, banked_max)


def position(reading: Reading, rules: CardRules, *, trump_mask: int, obligations,
             card_points: Sequence[int]) -> dd.Position:
    """The solver's one-row position of a reading (side 0 = the seats of ``--side``)."""
    n = reading.n_seats
    team = [0 if s in reading.side else 1 for s in range(n)]
    trick = list(reading.trick) + [-1] * (n - len(reading.trick))
    return dd.position(np.array([reading.hands], U32), reading.leader, U32(trump_mask),
                       obligations, card_points=np.asarray(card_points, np.int64), team=team,
                       trick_points=rules.trick_points, direction=rules.direction, trick=[trick])


# ---------------------------------------------------------------- solving


def warm_up() -> float:
    """Load (or compile) the solver; seconds taken, kept out of the solving time."""
    return dd.warm_up()


def question(args, options: dict) -> SolveDealsRun | None:
    """The ``--deals`` run the command line asks for under the game's rule ``options``, or
    None for a position (``--hands``); run after the game's ``check``."""
    if mode(args) == "position":
        return None
    return SolveDealsRun(dict(options), int(args.deals), seed(args), policy="heuristic")


def play(simulate_deals: Callable, config, policies, seed: int, first: int,
         count: int) -> tuple[object, dict[str, float]]:
    """Deals ``first .. first + count - 1`` of ``seed`` played by the game's
    ``simulate_deals(config, policies, count, seed, first_deal=first)`` (deal ``i`` the
    same whatever the chunk), then the solver loaded: ``(arrays, seconds)``, each timed on
    its own so that neither counts in the solving time."""
    start = time.perf_counter()
    arrays = simulate_deals(config, policies, count, seed, first_deal=first).arrays
    simulate_seconds = time.perf_counter() - start
    return arrays, {"simulate_seconds": simulate_seconds, "warm_up_seconds": warm_up()}


def solve_rows(pos: dd.Position) -> tuple[np.ndarray, float]:
    """Every row's value (int64) and the seconds the search took."""
    start = time.perf_counter()
    values = dd.solve(pos).astype(np.int64) if len(pos) else np.zeros(0, np.int64)
    return values, time.perf_counter() - start


def _per_second(count: int, seconds: float) -> float:
    return round(count / seconds, 3) if seconds > 0 else math.inf


# ---------------------------------------------------------------- documents


def deals_document(*, title: str, n_deals: int, seed: int, values: np.ndarray,
                   made: np.ndarray, solved: np.ndarray, seconds: float, warm_up_seconds: float,
                   value_is: str, made_is: str,
                   interval: Callable[[int, int], tuple[float, float]], **extra) -> dict:
    """The JSON document of ``--deals``: one value and one "made" per deal (``None`` where
    ``solved`` is false), their mean and share with its 95% ``interval(made, solved)`` (the
    toolkit's Wilson interval), the timing."""
    solved = np.asarray(solved, bool)
    k = int(solved.sum())
    made_count = int(np.asarray(made)[solved].sum())
    low, high = interval(made_count, k) if k else (math.nan, math.nan)
    mean = float(np.asarray(values)[solved].mean()) if k else math.nan
    return {
        "game": title, "mode": "deals", "deals": int(n_deals), "seed": int(seed),
        "solved": k,
        "values": [int(v) if s else None for v, s in zip(values, solved, strict=True)],
        "made": [bool(m) if s else None for m, s in zip(made, solved, strict=True)],
        "mean_value": round(mean, 4) if k else math.nan,
        "made_count": made_count, "made_rate": round(made_count / k, 6) if k else math.nan,
        "made_low": round(low, 6) if k else math.nan,
        "made_high": round(high, 6) if k else math.nan,
        "seconds": round(seconds, 3), "deals_per_second": _per_second(k, seconds),
        "warm_up_seconds": round(warm_up_seconds, 3),
        "value_is": value_is, "made_is": made_is, **extra,
    }


def position_document(reading: Reading, pos: dd.Position, rules: CardRules, *,
                      made: Callable[[int], bool], value_is: str, made_is: str,
                      read_as: dict, **extra) -> dict:
    """The JSON document of ``--hands``: the value, each legal card's value for the player
    to move, the best card(s) (his side's best: the most for side 0, the least for side 1)."""
    start = time.perf_counter()
    per_card = dd.card_values(pos)[0].astype(np.int64)
    seconds = time.perf_counter() - start
    legal = [c for c in range(32) if per_card[c] >= 0]
    maximising = reading.to_play in reading.side
    value = int(max(per_card[legal]) if maximising else min(per_card[legal]))
    fmt = rules.format_card
    return {
        "game": rules.title, "mode": "position", "values": [value],
        "total": reading.banked + value, "made": bool(made(reading.banked + value)),
        "banked": reading.banked, "to_play": reading.to_play,
        "to_play_side": 0 if maximising else 1,
        "cards": [{"card": fmt(c), "value": int(per_card[c]),
                   "total": reading.banked + int(per_card[c])} for c in legal],
        "best": [fmt(c) for c in legal if per_card[c] == value],
        "seconds": round(seconds, 6), "deals_per_second": _per_second(1, seconds),
        "value_is": value_is, "made_is": made_is,
        "read_as": {"hands": " ; ".join(fmt_cards(h, fmt) for h in reading.hands),
                    "trick": fmt_cards(reading.trick, fmt, mask=False),
                    "leader": reading.leader, "side": list(reading.side), **read_as},
        **extra,
    }


def fmt_cards(cards, fmt: Callable[[int], str], mask: bool = True) -> str:
    """Notation of a mask's cards (strongest rank first, suit by suit) or of a sequence."""
    seq = ([c for s in range(4) for c in range(s, 32, 4) if cards >> c & 1] if mask
           else list(cards))
    return " ".join(fmt(c) for c in seq)


def _pct(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def text(doc: dict) -> str:
    """Either document for people."""
    if doc["mode"] == "deals":
        lines = [f"{doc['game']}: double-dummy values of {doc['deals']} deal(s) of seed "
                 f"{doc['seed']} (the deals 'tapisvert simulate' plays), each from its "
                 "first card",
                 f"  value: {doc['value_is']}"]
        for note in doc.get("notes", ()):
            lines.append(f"  {note}")
        if doc["solved"]:
            lines.append(f"  mean value {doc['mean_value']:.2f} over {doc['solved']} deal(s)"
                         + (f" (as the heuristic played them: {doc['played_mean']:.2f})"
                            if "played_mean" in doc else ""))
            lines.append(f"  made: {_pct(doc['made_rate'])} [{_pct(doc['made_low'])}, "
                         f"{_pct(doc['made_high'])}] (95% Wilson interval, "
                         f"{doc['made_count']}/{doc['solved']}); made = {doc['made_is']}")
        lines.append(f"  solved in {doc['seconds']:.2f} s: {doc['deals_per_second']:.1f} "
                     "deals/s")
        return "\n".join(lines)
    r = doc["read_as"]
    shown = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in r.items()
             if k not in ("hands", "trick", "leader", "side")}
    lines = [f"{doc['game']}: " + ", ".join(f"{k} {v}" for k, v in shown.items()),
             f"  hands: {r['hands']}",
             f"  trick led by seat {r['leader']}: {r['trick'] or '(none yet)'}; seat "
             f"{doc['to_play']} to play (side {doc['to_play_side']})",
             f"  side 0 = seats {', '.join(map(str, r['side']))}; value: {doc['value_is']}",
             f"  value {doc['values'][0]}" + (f" (+ {doc['banked']} banked = {doc['total']})"
                                              if doc["banked"] else "")
             + f"; made: {'yes' if doc['made'] else 'no'} ({doc['made_is']})",
             "  card  value"]
    for item in doc["cards"]:
        best = "  best" if item["card"] in doc["best"] else ""
        lines.append(f"  {item['card']:<5} {item['value']:>5}{best}")
    lines.append(f"  solved in {doc['seconds']:.3f} s")
    return "\n".join(lines)
