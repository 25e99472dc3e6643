"""Perfect-Information Monte Carlo for the 32-card trick games: the worlds a player cannot
tell apart.

It names no game. A PIMC player samples the hidden cards consistently with
everything he has seen, solves each sampled world double-dummy
(:mod:`simulators.core.double_dummy`) and plays the action with the best
average. This module gives the two game-agnostic pieces:

* :func:`read_history` — what the play so far reveals: who played what, who
  won each trick, the trick in progress, and for every seat the cards it
  **cannot** hold. A card ``c`` played into a trick proves that no card
  ``x`` with ``c`` illegal in the hand ``{c, x}`` was in that hand: with the
  duty tables of :class:`~simulators.core.tricks.Obligations` (follow, beat,
  trump, overtrump: each a category of cards that excludes the others), a
  hand makes ``c`` illegal exactly when it holds one such ``x``, so the
  singleton test reads every void and every "could not beat / could not
  trump" the play reveals, with the engines' own duty code.
* :func:`sample_hands` — hidden cards dealt to hidden *slots* (the other
  seats, and e.g. an espion set aside) **uniformly over every deal consistent
  with the constraints**: each card's allowed slots and each slot's size.
  Exact, not rejection: cards are grouped by their allowed slots, the number
  of consistent deals is counted class by class (multinomials, dynamic
  programming over the slots' remaining sizes), and each world is drawn by
  sampling how many cards of each class go to each slot in proportion to
  those counts, then which ones uniformly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simulators.core import bits, tricks
from simulators.core.double_dummy import _add_card
from simulators.core.jit import jit_once
from simulators.core.params import Policy, param
from simulators.core.tricks import CLOCKWISE, Obligations, _legal_one

U32 = np.uint32
MAX_SLOTS = 5  # hidden slots a sampler fills: up to four other seats and a set-aside espion
_FACTORIALS = np.array([math.factorial(i) for i in range(33)], dtype=np.float64)


class History(NamedTuple):
    """What one deal's play so far shows to everybody (one row; seats, not positions).

    ``played_by[s]``: cards seat ``s`` played; ``cannot_hold[s]``: cards the
    play proves ``s`` did not hold when it played (so does not hold now);
    ``won_by[s]``: cards of the complete tricks ``s`` won; ``trick`` and
    ``leader``: the cards of the trick in progress in play order (-1 padded)
    and the seat that led it (or leads next); ``tricks_done``: complete tricks.
    """

    played_by: np.ndarray
    cannot_hold: np.ndarray
    won_by: np.ndarray
    trick: np.ndarray
    leader: int
    tricks_done: int


def _history(plays, leaders, n, seat_of, trump, duties, team, played_by, cannot_hold, won_by,
             trick):
    """Fill the History arrays from ``plays`` (tricks, n) and ``leaders`` (tricks,);
    returns (leader of the trick in progress, complete tricks)."""
    for s in range(n):
        played_by[s] = 0
        cannot_hold[s] = 0
        won_by[s] = 0
        trick[s] = -1
    leader = np.int64(leaders[0])
    done = 0
    for t in range(plays.shape[0]):
        if leaders[t] < 0 or plays[t, 0] < 0:
            break
        leader = np.int64(leaders[t])
        led = np.uint32(0)
        best = np.int64(-1)
        best_pos = np.int64(0)
        best_trump = False
        table = np.uint32(0)
        complete = True
        for k in range(n):
            c = np.int64(plays[t, k])
            if c < 0:
                complete = False
                break
            seat = seat_of[leader * n + k]
            bit = np.uint32(1) << np.uint32(c)
            if k > 0:
                opp = team[seat_of[leader * n + best_pos]] != team[seat]
                for x in range(32):
                    xbit = np.uint32(1) << np.uint32(x)
                    if x == c:
                        continue
                    legal = _legal_one(bit | xbit, led, best, best_trump, trump, opp,
                                       duties[0], duties[1], duties[2], duties[3], duties[4])
                    if legal & bit == 0:
                        cannot_hold[seat] |= xbit
            led, best, best_pos, best_trump = _add_card(c, np.int64(k), led, best, best_pos,
                                                        best_trump, trump)
            played_by[seat] |= bit
            table |= bit
            trick[k] = c
        if complete:
            winner = seat_of[leader * n + best_pos]
            won_by[winner] |= table
            done += 1
            leader = winner
            for s in range(n):
                trick[s] = -1
        else:
            break
    return leader, done


def read_history(plays, leaders, trump_mask, obligations: Obligations, *, team,
                 direction: int = CLOCKWISE) -> History:
    """What one row's play so far shows: ``plays`` (tricks, n) cards in play order (-1: not
    yet), ``leaders`` (tricks,) the seat that led each trick (-1: not yet)."""
    _kernels()
    plays = np.ascontiguousarray(plays, dtype=np.int64)
    n = plays.shape[1]
    seat_of = ((np.arange(n)[:, None] + direction * np.arange(n)) % n).ravel().astype(np.int64)
    out = [np.zeros(n, U32), np.zeros(n, U32), np.zeros(n, U32), np.full(n, -1, np.int64)]
    leader, done = _history(plays, np.ascontiguousarray(leaders, dtype=np.int64), n, seat_of,
                            U32(trump_mask), np.array(obligations.codes(), dtype=np.int64),
                            np.ascontiguousarray(team, dtype=np.int64), *out)
    return History(out[0], out[1], out[2], out[3].astype(np.int8), int(leader), int(done))


# ---------------------------------------------------------------- uniform consistent worlds


def _compositions(z, allowed, bounds, m):
    """Upper bounds of the four loop counters for splitting ``z`` cards over the slots in
    ``allowed`` (bit j: slot j) with at most ``bounds[j]`` each."""
    top = np.zeros(MAX_SLOTS, np.int64)
    for j in range(m):
        if (allowed >> j) & 1:
            top[j] = min(bounds[j], z)
    return top


def _multinomial(z, v):
    """z! / prod(v_j!)."""
    out = _FACTORIALS[z]
    for j in range(MAX_SLOTS):
        out /= _FACTORIALS[v[j]]
    return out


def _decode(st, need, m, v):
    """The slots' remaining sizes of a state index (mixed radix, ``need[j] + 1`` each)."""
    rem = st
    for j in range(m):
        v[j] = rem % (need[j] + 1)
        rem //= need[j] + 1


def _fills(v, z, allowed, m):
    """Whether a class of ``z`` cards allowed in ``allowed`` fills exactly the sizes ``v``."""
    total = 0
    for j in range(m):
        if v[j] and not (allowed >> j) & 1:
            return False
        total += v[j]
    return total == z


def _count_ways(class_allowed, class_size, need, m, ways, strides):
    """ways[i, state]: consistent deals of classes i.. when the slots still need ``state``.

    The last class (the largest) must fill what is left: one multinomial per state; the
    others split over their slots (five nested counters, the last one implied).
    """
    n_classes = class_size.shape[0]
    n_states = ways.shape[1]
    ways[:, :] = 0.0
    v = np.zeros(MAX_SLOTS, np.int64)
    last = n_classes - 1
    for st in range(n_states):
        _decode(st, need, m, v)
        if _fills(v, class_size[last], class_allowed[last], m):
            ways[last, st] = _multinomial(class_size[last], v)
    a = np.zeros(MAX_SLOTS, np.int64)
    for i in range(last - 1, -1, -1):
        z = class_size[i]
        for st in range(n_states):
            _decode(st, need, m, v)
            top = _compositions(z, class_allowed[i], v, m)
            total = 0.0
            for a0 in range(top[0] + 1):
                for a1 in range(top[1] + 1):
                    for a2 in range(top[2] + 1):
                        for a3 in range(top[3] + 1):
                            a4 = z - a0 - a1 - a2 - a3
                            if a4 < 0 or a4 > top[4]:
                                continue
                            a[0], a[1], a[2], a[3], a[4] = a0, a1, a2, a3, a4
                            nxt = st
                            for j in range(MAX_SLOTS):
                                nxt -= a[j] * strides[j]
                            w = ways[i + 1, nxt]
                            if w > 0.0:
                                total += w * _multinomial(z, a)
            ways[i, st] = total


def _classes(cards, allowed):
    """Cards grouped by their allowed slots, the smallest class first: each class's slots,
    size and cards (rows of ``members``)."""
    n_cards = cards.shape[0]
    class_of = np.full(1 << MAX_SLOTS, -1, np.int64)
    class_allowed = np.zeros(1 << MAX_SLOTS, np.int64)
    class_size = np.zeros(1 << MAX_SLOTS, np.int64)
    n_classes = 0
    for j in range(n_cards):
        a = allowed[j]
        if class_of[a] < 0:
            class_of[a] = n_classes
            class_allowed[n_classes] = a
            n_classes += 1
        class_size[class_of[a]] += 1
    order = np.argsort(class_size[:n_classes], kind="mergesort")
    rank = np.empty(n_classes, np.int64)
    for i in range(n_classes):
        rank[order[i]] = i
    members = np.empty((n_classes, n_cards), np.int64)
    filled = np.zeros(n_classes, np.int64)
    for j in range(n_cards):
        i = rank[class_of[allowed[j]]]
        members[i, filled[i]] = cards[j]
        filled[i] += 1
    return class_allowed[:n_classes][order], class_size[:n_classes][order], members


def _sample(cards, allowed, need, m, uniforms, out):
    """Deal ``cards`` (allowed[j]: bitmask of the slots card j may go to) to ``m`` slots of
    sizes ``need``, one world per row of ``uniforms``; returns False if no deal fits."""
    n_cards = cards.shape[0]
    for j in range(n_cards):
        if allowed[j] == 0:
            return False
    c_allowed, c_size, members = _classes(cards, allowed)
    n_classes = c_size.shape[0]
    strides = np.zeros(MAX_SLOTS, np.int64)
    s = 1
    for j in range(m):
        strides[j] = s
        s *= need[j] + 1
    ways = np.empty((n_classes + 1, s), np.float64)
    _count_ways(c_allowed, c_size, need, m, ways, strides)
    full = 0
    for j in range(m):
        full += need[j] * strides[j]
    if ways[0, full] <= 0.0:
        return False
    v = np.zeros(MAX_SLOTS, np.int64)
    pool = np.empty(n_cards, np.int64)
    for w in range(uniforms.shape[0]):
        u = uniforms[w]
        at = 0
        st = full
        for j in range(m):
            out[w, j] = 0
        for i in range(n_classes):
            z = c_size[i]
            _decode(st, need, m, v)
            pick = np.zeros(MAX_SLOTS, np.int64)
            if i == n_classes - 1:  # the largest class fills what is left
                for j in range(m):
                    pick[j] = v[j]
            else:
                top = _compositions(z, c_allowed[i], v, m)
                target = u[at] * ways[i, st]
                at += 1
                acc = 0.0
                a = np.zeros(MAX_SLOTS, np.int64)
                found = False
                for a0 in range(top[0] + 1):
                    for a1 in range(top[1] + 1):
                        for a2 in range(top[2] + 1):
                            for a3 in range(top[3] + 1):
                                a4 = z - a0 - a1 - a2 - a3
                                if a4 < 0 or a4 > top[4] or found:
                                    continue
                                a[0], a[1], a[2], a[3], a[4] = a0, a1, a2, a3, a4
                                nxt = st
                                for j in range(MAX_SLOTS):
                                    nxt -= a[j] * strides[j]
                                wt = ways[i + 1, nxt]
                                if wt <= 0.0:
                                    continue
                                acc += wt * _multinomial(z, a)
                                for j in range(MAX_SLOTS):
                                    pick[j] = a[j]
                                if acc > target:
                                    found = True
            # the last composition with weight is kept if rounding left target unreached
            for j in range(z):
                pool[j] = members[i, j]
            for j in range(z - 1, 0, -1):  # Fisher-Yates: which cards go where
                r = np.int64(u[at] * (j + 1))
                at += 1
                if r > j:
                    r = j
                pool[j], pool[r] = pool[r], pool[j]
            p = 0
            for j in range(m):
                for _ in range(pick[j]):
                    out[w, j] |= np.uint32(1) << np.uint32(pool[p])
                    p += 1
                st -= pick[j] * strides[j]
    return True


def sample_hands(gen: np.random.Generator, cards, allowed, sizes, n_worlds: int) -> np.ndarray:
    """(n_worlds, slots) uint32: ``cards`` dealt to slots of ``sizes``, card ``j`` only to the
    slots in bitmask ``allowed[j]``, uniformly over every such deal.

    Raises ``ValueError`` when no deal satisfies the constraints.
    """
    _kernels()
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    allowed = np.ascontiguousarray(allowed, dtype=np.int64)
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    m = sizes.shape[0]
    if not 1 <= m <= MAX_SLOTS:
        raise ValueError(f"sizes: 1..{MAX_SLOTS} slots, got {m}")
    if cards.shape != allowed.shape or int(sizes.sum()) != cards.shape[0] or (sizes < 0).any():
        raise ValueError(f"sizes must add up to the {cards.shape[0]} cards, one allowed mask "
                         "per card")
    padded = np.zeros(MAX_SLOTS, np.int64)
    padded[:m] = sizes
    out = np.zeros((n_worlds, MAX_SLOTS), U32)
    uniforms = gen.random((n_worlds, 2 * cards.shape[0] + 2 * MAX_SLOTS + 2))
    if not _sample(cards, allowed, padded, m, uniforms, out):
        raise ValueError("no deal of the hidden cards fits what the play has shown")
    return out[:, :m]


def count_deals(cards, allowed, sizes) -> float:
    """The number of deals :func:`sample_hands` chooses among (for tests)."""
    _kernels()
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    allowed = np.ascontiguousarray(allowed, dtype=np.int64)
    m = len(sizes)
    need = np.zeros(MAX_SLOTS, np.int64)
    need[:m] = sizes
    classes = sorted(set(allowed.tolist()))
    c_allowed = np.array(classes, dtype=np.int64)
    c_size = np.array([int((allowed == a).sum()) for a in classes], dtype=np.int64)
    strides = np.zeros(MAX_SLOTS, np.int64)
    s = 1
    for j in range(m):
        strides[j] = s
        s *= need[j] + 1
    ways = np.empty((len(classes) + 1, s), np.float64)
    _count_ways(c_allowed, c_size, need, m, ways, strides)
    return float(ways[0, int((need * strides).sum())])


def row_generator(seed: int, *keys) -> np.random.Generator:
    """A generator from the policy's seed and what identifies one decision of one deal
    (e.g. its noise and the masks of the hand and the played cards): the same decision of
    the same deal draws the same worlds whatever the batch it is played in."""
    words = [int(seed)]
    for key in keys:
        value = np.asarray(key).ravel()
        if value.dtype.kind == "f":
            value = value.astype(np.float64).view(np.uint64)
        words.extend(int(x) & 0xFFFFFFFF for x in value.tolist())
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(words)))


_KERNELS = ("_history", "_classes", "_compositions", "_multinomial", "_decode", "_fills",
            "_count_ways", "_sample")


def _kernels() -> None:
    """Jit this module's kernels once per process (see core.jit); the duties are the trick
    kernel's own compiled ``_legal_one``."""
    from simulators.core import double_dummy

    double_dummy._kernels()
    globals().update(_legal_one=tricks._legal_one, _add_card=double_dummy._add_card)
    jit_once(globals(), _KERNELS)


def card_play(obs, choose_row) -> np.ndarray:
    """A batch's cards: the one legal card where there is one, else ``choose_row(i)`` (int8).

    ``obs`` is a game's card-play observation with ``legal`` masks and the play so far
    (``plays``), which worlds are read from."""
    if obs.plays is None:
        raise ValueError("pimc needs the play so far (PlayObs.plays): an engine that fills it")
    cards = bits.bit_index(bits.lowest_bit(obs.legal)).astype(np.int8)
    for i in np.flatnonzero(bits.popcount(obs.legal) > 1):
        cards[i] = choose_row(int(i))
    return cards


def only_move(pos) -> int:
    """The one card worth playing when, in **every** world, the search would try that card
    alone (every other legal card equivalent to it there), else -1.

    Judged world by world: two cards with no live card between them in one world need not be
    equivalent in another, where an unseen card between them sits in another hand (with 3 or
    5 players a defender cannot see the espion), so one world cannot speak for all."""
    from simulators.core import double_dummy

    moves = double_dummy.searched_moves(pos)
    first = int(moves[0])
    if first & (first - 1) or (moves != moves[0]).any():
        return -1
    return first.bit_length() - 1


# ---------------------------------------------------------------- a PIMC policy's settings


def worlds_param(doc: str = "worlds sampled per decision"):
    """The ``worlds`` parameter of a PIMC policy (a game may word its doc)."""
    return param(8, low=1, high=1000, doc=doc)


@dataclass(frozen=True)
class PimcSettings(Policy):
    """What every game's PIMC policy shares: a search per row, noise-seeded worlds. Put it
    first in the bases (``PimcPolicy(PimcSettings, HeuristicPolicy)``): the heuristic's
    parameters come first, then ``worlds`` and ``seed``."""

    uses_noise = True
    units_per_chunk = 50  # about a second a deal: small chunks keep --n-jobs busy
    costly = True  # asked about its own seats' rows only

    worlds: int = worlds_param()
    seed: int = param(0, low=0, high=2**31 - 1,
                      doc="seed of the worlds (with the deal's own noise, so a decision draws "
                          "the same worlds whatever the batch)")


# ---------------------------------------------------------------- odds under stronger play

PLAYS = ("heuristic", "net", "pimc", "double-dummy")
"""How the cards are played in ``tapisvert odds GAME --play``: by the table's policies (the
heuristic by default), by the learned net (distilled from PIMC, ``docs/learning.md``) or by
PIMC players at every seat, or double-dummy (every hand visible: the bound of what the cards
allow)."""


PLAY_DOC = ("ways of playing the cards on the same deals, the first the reference: heuristic "
            "(the policies), net, pimc, double-dummy (Manille, Bianco Mano)")
WORLDS_DOC = "worlds per decision of the PIMC players of --play pimc"


DEFAULT_WORLDS = 8
"""Worlds per decision of an odds question's PIMC players (``--worlds``)."""


def check_strength_question(play: str | None, worlds) -> None:
    """An odds question's ``play`` and ``worlds`` (``ValueError`` naming the bad one); worlds
    other than the default with no ``pimc`` in ``play`` would change nothing, and are refused
    (by value: ``--worlds 8`` spelled out is the default)."""
    plays = () if play is None else parse_plays(play)
    if isinstance(worlds, bool) or not isinstance(worlds, int) or not 1 <= worlds <= 1000:
        raise ValueError(f"worlds must be an integer in 1..1000, got {worlds!r}")
    if worlds != DEFAULT_WORLDS and "pimc" not in plays:
        given = "no play is given" if play is None else f"play {play!r} has none"
        raise ValueError(f"worlds {worlds} sets the worlds of the PIMC players of play pimc, "
                         f"and {given}: add pimc to play, or drop worlds")


PIMC_DEALS_PER_CHUNK_AT_8_WORLDS = 8
"""An odds question under ``--play pimc`` plays about one deal a second at 8 worlds
(docs/strong_players.md): chunks of 8 deals keep the bar moving every few seconds."""
DOUBLE_DUMMY_DEALS_PER_CHUNK = 200


def odds_units_per_chunk(question) -> int | None:
    """Deals per chunk of an odds question whose ``play`` names a costly way of playing (the
    smallest of theirs), so that the progress bar moves and ``--n-jobs`` shares even a small
    question; None when only the policies play."""
    plays = () if question.play is None else parse_plays(question.play)
    sizes = []
    if "pimc" in plays:  # the cost grows with the worlds of each decision
        sizes.append(max(1, PIMC_DEALS_PER_CHUNK_AT_8_WORLDS * 8 // int(question.worlds)))
    if "double-dummy" in plays:
        sizes.append(DOUBLE_DUMMY_DEALS_PER_CHUNK)
    return min(sizes, default=None)


class CardsBy:
    """The ``pimc`` way of ``--play``: a seat's own policy (``bidder``) for every decision but
    the card play, another policy's (``player``) card play. A game's subclass names its
    other decisions with :func:`~simulators.core.dispatch.forwards` ``("bidder", ...)``."""

    def __init__(self, bidder, player):
        self.bidder, self.player = bidder, player
        self.uses_noise = getattr(bidder, "uses_noise", False) or player.uses_noise
        # a search per row: each seat's wrapper is asked about its own rows only, or PIMC at
        # every seat would search every row once per seat (4x the work at 4 players)
        self.costly = getattr(bidder, "costly", False) or getattr(player, "costly", False)

    def play(self, obs):
        return self.player.play(obs)


def strength_reference(play: str | None, default: str) -> str:
    """The way every other is paired against: the first of ``play``, else ``default``."""
    return default if play is None else parse_plays(play)[0]


def parse_plays(text: str) -> tuple[str, ...]:
    """``--play`` read as distinct names of :data:`PLAYS` (the first is the reference)."""
    plays = tuple(p.strip().lower() for p in str(text).split(",") if p.strip())
    unknown = [p for p in plays if p not in PLAYS]
    if unknown or not plays:
        raise ValueError(f"play must list some of {', '.join(PLAYS)} (comma-separated), "
                         f"got {text!r}")
    if len(set(plays)) != len(plays):
        raise ValueError(f"play names a way of playing twice: {text!r}")
    return plays
