"""Bango policies: random-legal, a risk-aware heuristic and one-turn optimal stopping.

Plain numpy over batches (see ``observations.py`` for the decision methods);
the best arrangement of a lay comes from :mod:`simulators.bango.laying` when
available, else from :func:`greedy_arrangement`, a legal lay built here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simulators.bango import _heuristic_kernel as compiled_heuristic
from simulators.bango import rules as R
from simulators.bango.observations import CENTRE_SIZE, BangoObs, explosion_probability
from simulators.core.game import make_policy_attribute
from simulators.core.params import Policy, param, probability

I8, U16 = np.int8, np.uint16
FULL = (1 << R.N_VALUES) - 1
VALUE_BIT = np.left_shift(1, np.arange(R.N_VALUES)).astype(np.int32)
KIND_VALUE = R.KIND_VALUE.astype(np.int64)
IS_BLACK = R.KIND_COLOUR == R.BLACK
# COLOURED_KIND[v - 1, c]: the kind of value v and colour c
COLOURED_KIND = (np.arange(R.N_COLOURS)[None, :] * R.N_VALUES
                 + np.arange(R.N_VALUES)[:, None]).astype(np.int64)


def mix(noise: np.ndarray, salt) -> np.ndarray:
    """(N, len(salt)) uniforms derived from each row's own uniform, one per salt.

    A row's choices depend on its own noise only, never on other rows, so
    results do not depend on the batch.
    """
    salt = np.atleast_1d(np.asarray(salt, dtype=np.float64))
    return (noise.astype(np.float64)[:, None] * (7919.0 + 104.729 * salt)
            + 0.6180339887 * salt) % 1.0


def value_mask(counts: np.ndarray) -> np.ndarray:
    """(N,) int32 bitmask of the values present among the coloured kinds of (N, 55) counts."""
    packed = np.packbits(counts[:, :R.N_COLOURED_KINDS] > 0, axis=1, bitorder="little")
    word = np.zeros((len(counts), 8), dtype=np.uint8)
    word[:, :packed.shape[1]] = packed
    x = word.view(np.uint64)[:, 0]
    v = np.uint64(R.N_VALUES)
    out = x | (x >> v) | (x >> (v + v)) | (x >> (v + v + v))
    return (out & np.uint64(FULL)).astype(np.int32)


def _grow(seed: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """The maximal run containing ``seed`` that only adds values of ``allowed``."""
    x = seed.copy()
    for _ in range(R.N_VALUES):
        x = x | (((x << 1) | (x >> 1)) & allowed & FULL)
    return x


def _runs_from(start_bits: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """The run of ``allowed`` values containing the single bit ``start_bits``."""
    return _grow(start_bits, allowed) & allowed


def greedy_arrangement(obs: BangoObs, noise: np.ndarray | None = None) -> np.ndarray:
    """(N, 3, 11) a legal BG-6 arrangement of each deciding player's whole hand.

    Each opened sequence is extended as far as the hand allows, slot by slot;
    then, while slots remain, a maximal run of 2+ consecutive held values
    opens a new sequence (the longest, or a random one with ``noise``). The
    result obeys compulsory placement: nothing left extends a sequence and
    no two left-over values are consecutive while fewer than 3 are open.
    For each value the card of the colour the sequence holds most is laid
    (random colour with ``noise``).
    """
    n_rows = len(obs.seat)
    hand = obs.hand.astype(np.int16).copy()
    own_mask = obs.own(obs.seq_mask).astype(np.int32)
    own_col = obs.own(obs.seq_colours).astype(np.int16).copy()
    placed = np.full((n_rows, R.MAX_SEQUENCES, R.N_VALUES), -1, dtype=I8)
    after = own_mask.copy()
    rand = noise is not None

    def place(slot: np.ndarray, new_values: np.ndarray) -> None:
        for v in range(R.N_VALUES):
            put = np.flatnonzero((new_values >> v) & 1)
            if not put.size:
                continue
            kinds = COLOURED_KIND[v]
            have = hand[put][:, kinds] > 0
            if not rand:
                pref = own_col[put, slot[put]] * 16 + np.arange(R.N_COLOURS)[::-1]
            else:
                pref = mix(noise[put], 4 * v + np.arange(R.N_COLOURS))
            colour = np.argmax(np.where(have, pref, -1), axis=1)
            kind = kinds[colour]
            placed[put, slot[put], v] = kind
            hand[put, kind] -= 1
            own_col[put, slot[put], colour] += 1
            after[put, slot[put]] |= 1 << v

    for s in range(R.MAX_SEQUENCES):  # extend what is open, as far as it goes
        allowed = value_mask(hand)
        grown = np.where(after[:, s] != 0, _grow(after[:, s], allowed), 0)
        place(np.full(n_rows, s), grown & ~after[:, s])
    for attempt in range(R.MAX_SEQUENCES):  # open maximal runs of 2+ values while slots remain
        n_open = (after != 0).sum(axis=1)
        allowed = value_mask(hand)
        pairs = allowed & (allowed >> 1)  # bit v: values v+1 and v+2 both held
        can = (n_open < R.MAX_SEQUENCES) & (pairs != 0)
        if not can.any():
            break
        if not rand:  # the longest run
            best = np.zeros(n_rows, dtype=np.int32)
            for v in range(R.N_VALUES):
                run = _runs_from(np.full(n_rows, 1 << v, dtype=np.int32), allowed)
                run = np.where((allowed >> v) & 1, run, 0)
                longer = np.bitwise_count(run) > np.bitwise_count(best)
                best = np.where(longer, run, best)
        else:  # a random pair's run
            count = np.bitwise_count(pairs)
            k = (mix(noise, 50 + attempt)[:, 0] * np.maximum(count, 1)).astype(np.int64)
            start = np.zeros(n_rows, dtype=np.int32)
            seen = np.zeros(n_rows, dtype=np.int64)
            for v in range(R.N_VALUES):
                bit = (pairs >> v) & 1
                start = np.where((bit == 1) & (seen == k), 1 << v, start)
                seen += bit
            best = _runs_from(start, allowed)
        slot = np.minimum(n_open, R.MAX_SEQUENCES - 1)
        place(slot, np.where(can, best, 0))
    return placed


def placeable(obs: BangoObs) -> np.ndarray:
    """(N,) how many hand cards a greedy lay places (values only; a lower bound).

    Extends each sequence as far as the held values go, then opens the
    longest runs of 2+ values while slots remain, each value used once.
    """
    allowed = value_mask(obs.hand)
    own_mask = obs.own(obs.seq_mask).astype(np.int32)
    count = np.zeros(len(obs.seat), dtype=np.int32)
    for s in range(R.MAX_SEQUENCES):
        m = own_mask[:, s]
        new = np.where(m != 0, _grow(m, allowed), 0) & ~m
        count += np.bitwise_count(new)
        allowed &= ~new
    n_open = obs.own(obs.n_open).astype(np.int32)
    for _ in range(R.MAX_SEQUENCES):
        run = _longest_run(allowed)
        ok = (n_open < R.MAX_SEQUENCES) & (np.bitwise_count(run) >= R.MIN_OPEN)
        count += np.where(ok, np.bitwise_count(run), 0)
        allowed &= ~np.where(ok, run, 0)
        n_open += ok
    return count


def _longest_run(allowed: np.ndarray) -> np.ndarray:
    """The longest run of consecutive values in each mask (the lowest among equals)."""
    run = allowed.copy()
    length_ok = allowed.copy()
    starts = allowed.copy()
    for _ in range(R.N_VALUES - 1):  # starts of runs one longer, while any remain
        length_ok = length_ok & (length_ok >> 1)
        more = length_ok != 0
        if not more.any():
            break
        starts = np.where(more, length_ok, starts)
    low = starts & -starts
    run = _grow(low, allowed) & allowed
    return np.where(allowed != 0, run, 0)


def lay_gain(obs: BangoObs, placed: np.ndarray) -> np.ndarray:
    """Points a lay adds now (BG-8): board points gained minus the cards it discards."""
    from simulators.bango.engine import board_points

    own_mask = obs.own(obs.seq_mask)
    own_col = obs.own(obs.seq_colours).astype(np.int16)
    used = placed >= 0
    added = (used * VALUE_BIT).sum(axis=2).astype(U16)
    colour = R.KIND_COLOUR[np.maximum(placed, 0)]
    new_col = own_col + np.stack([(used & (colour == c)).sum(axis=2)
                                  for c in range(R.N_COLOURS)], axis=-1)
    gain = board_points(own_mask | added, new_col) - board_points(own_mask, own_col)
    discards = obs.hand.sum(axis=1, dtype=np.int32) - used.sum(axis=(1, 2))
    return gain - discards


def fit_values(obs: BangoObs) -> np.ndarray:
    """(N,) int32 bitmask of the values that fit the player's game (bit v-1 for value v).

    A value fits when it extends one of his sequences, or, while he may still
    open one, sits next to a value in his hand; a value already in hand does
    not fit again.
    """
    own_mask = obs.own(obs.seq_mask).astype(np.int32)
    ends = np.zeros(len(obs.seat), dtype=np.int32)
    for s in range(R.MAX_SEQUENCES):
        m = own_mask[:, s]
        ends |= ((m << 1) | (m >> 1)) & ~m & FULL & -(m != 0).astype(np.int32)
    held = value_mask(obs.hand)
    may_open = obs.own(obs.n_open) < R.MAX_SEQUENCES
    neighbours = ((held << 1) | (held >> 1)) & FULL & -may_open.astype(np.int32)
    return (ends | neighbours) & ~held


# FIT_BIT[k + 1]: the value bit of kind k, 0 for black kinds and for no card (-1)
FIT_BIT = np.concatenate([[0], np.where(IS_BLACK, 0, 1 << (KIND_VALUE - 1))]).astype(np.int32)


def fits(fit: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """Whether each kind (-1: no card) fits, given the rows' :func:`fit_values` masks."""
    shape = (-1,) + (1,) * (np.ndim(kinds) - 1)
    return (FIT_BIT[kinds.astype(np.int64) + 1] & fit.reshape(shape)) != 0


def dead_values(obs: BangoObs) -> np.ndarray:
    """(N,) int32 bitmask of values with a held card worth shedding: a black, or a double."""
    black = obs.hand[:, R.N_COLOURED_KINDS:] > 0
    coloured = obs.hand[:, :R.N_COLOURED_KINDS].reshape(-1, R.N_COLOURS, R.N_VALUES)
    dead = black | (coloured.sum(axis=1) >= 2)
    return (dead * VALUE_BIT).sum(axis=1).astype(np.int32)


def _value_kinds(value: np.ndarray) -> np.ndarray:
    """(N, 5) the kinds of each row's value, colours 0..3 then black."""
    return (np.asarray(value, dtype=np.int64) - 1)[:, None] + R.N_VALUES * np.arange(
        R.N_COLOURS + 1)


def held_kind(hand: np.ndarray, value: np.ndarray) -> np.ndarray:
    """A held card of ``value`` (the black one first, then the highest colour), or -1."""
    kinds = _value_kinds(value)
    counts = np.take_along_axis(hand, kinds, axis=1)
    last = R.N_COLOURS - np.argmax(counts[:, ::-1] > 0, axis=1)
    return np.where(counts.any(axis=1), kinds[np.arange(len(kinds)), last], -1).astype(I8)


def dead_kind(hand: np.ndarray, value: np.ndarray) -> np.ndarray:
    """A held card of ``value`` worth shedding (the black one, or one of a doubled value), or -1."""
    kinds = _value_kinds(value)
    counts = np.take_along_axis(hand, kinds, axis=1)
    coloured = counts[:, :R.N_COLOURS].sum(axis=1)
    last = R.N_COLOURS - 1 - np.argmax(counts[:, R.N_COLOURS - 1::-1] > 0, axis=1)
    rows = np.arange(len(kinds))
    return np.where(counts[:, R.N_COLOURS] > 0, kinds[:, R.N_COLOURS],
                    np.where(coloured >= 2, kinds[rows, last], -1)).astype(I8)


@dataclass(frozen=True)
class RandomPolicy(Policy):
    """Random legal play: every choice drawn from the policy's noise."""

    uses_noise = True

    draw_probability: float = probability(0.6, "probability of drawing on")
    bango_probability: float = probability(0.3, "probability of playing a possible bango")
    lay_probability: float = probability(0.3, "probability of a voluntary lay")

    def bango(self, obs):
        """A bango with a random card of the revealed value, sometimes."""
        ok = (obs.hand > 0) & (KIND_VALUE[None, :] == R.KIND_VALUE[obs.revealed][:, None])
        pick = _random_true(ok, mix(obs.noise, 1)[:, 0])
        return np.where(obs.noise < self.bango_probability, pick, -1).astype(I8)

    def draw_on(self, obs):
        """Draw on with ``draw_probability``."""
        return obs.noise < self.draw_probability

    def take(self, obs):
        """A uniformly random non-empty subset of the centre."""
        n = obs.centre_len.astype(np.int64)
        k = (obs.noise * ((1 << n) - 1)).astype(np.int64) + 1
        return np.minimum(k, (1 << n) - 1).astype(U16)

    def spoil(self, obs):
        """A random centre card, destroyed when a random hand card can."""
        pos = np.minimum((obs.noise * obs.centre_len).astype(np.int64), obs.centre_len - 1)
        target = obs.centre[np.arange(len(pos)), pos]
        ok = (obs.hand > 0) & (KIND_VALUE[None, :] == R.KIND_VALUE[target][:, None])
        pick = _random_true(ok, mix(obs.noise, 2)[:, 0])
        with_card = np.where(mix(obs.noise, 3)[:, 0] < self.bango_probability, pick, -1)
        return pos.astype(I8), with_card.astype(I8)

    def destroy(self, obs):
        """A bango on the asked centre card, sometimes."""
        return self.bango(obs)

    def lay(self, obs):
        """Lay with ``lay_probability`` (always at the final lay)."""
        return (obs.noise < self.lay_probability) | obs.final

    def arrange(self, obs):
        """A random legal arrangement."""
        return greedy_arrangement(obs, obs.noise)


def _random_true(ok: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Index of a uniformly chosen True column per row (-1 where none), driven by ``noise``."""
    count = ok.sum(axis=1)
    k = np.minimum((noise * count).astype(np.int64), np.maximum(count - 1, 0))
    cum = np.cumsum(ok, axis=1)
    idx = np.argmax(cum > k[:, None], axis=1)
    return np.where(count > 0, idx, -1).astype(I8)


@dataclass(frozen=True)
class HeuristicPolicy(Policy):
    """Stop on risk or on enough; take what fits; bango to cancel or shed; lay on a margin.

    Draws on while the exact probability that the next card explodes
    (:func:`~simulators.bango.observations.explosion_probability`) is at most
    ``stop_threshold`` and the centre holds fewer than ``enough`` cards that
    fit (:func:`fit_values`). Cancels any explosion it can with a bango (``cancel``) and sheds
    dead cards (blacks, doubled values) on unwanted cards; takes the centre
    cards that fit; lays when the lay's immediate gain reaches ``lay_margin``.

    Each method below states its rule in numpy; with ``compiled`` (the
    default) the same rule runs as one numba pass over the rows
    (:mod:`simulators.bango._heuristic_kernel`), with identical actions
    (tested), because the numpy glue was most of a drawing step. A subclass
    with ``compiled = False`` runs the numpy statements.
    """

    compiled: ClassVar[bool] = True

    stop_threshold: float = probability(0.2, "stop when P(next card explodes) exceeds this")
    enough: int = param(7, low=1, high=12, doc="stop when the centre holds this many cards "
                                                "that fit")
    lay_margin: float = param(14.0, low=-20.0, high=40.0,
                              doc="lay voluntarily when the lay gains at least this many points")
    shed: bool = param(True, doc="bango dead cards on unwanted centre cards")
    cancel: bool = param(True, doc="cancel an explosion with a bango when possible")

    def bango(self, obs):
        """Cancel an explosion with the least useful card; shed a dead card on an unwanted one."""
        if self.compiled:
            return compiled_heuristic.bango(self, obs)
        value = KIND_VALUE[obs.revealed]
        cancel = held_kind(obs.hand, value)
        shed_ok = self.shed & ~fits(fit_values(obs), obs.revealed)
        shed = np.where(shed_ok, dead_kind(obs.hand, value), -1)
        return np.where(obs.exploded, cancel if self.cancel else -1, shed).astype(I8)

    def draw_on(self, obs):
        """Draw on while the risk is low and the centre lacks enough cards that fit."""
        if self.compiled:
            return compiled_heuristic.draw_on(self, obs)
        risk = explosion_probability(obs)
        fitting = fits(fit_values(obs), obs.centre).sum(axis=1)
        return (risk <= self.stop_threshold) & (fitting < self.enough)

    def take(self, obs):
        """Every centre card that fits; if none, the first coloured one."""
        if self.compiled:
            return compiled_heuristic.take(self, obs)
        cen = obs.centre
        present = cen >= 0
        fit = fits(fit_values(obs), cen)
        coloured = present & ~IS_BLACK[np.maximum(cen, 0)]
        fallback = np.where(coloured.any(axis=1), np.argmax(coloured, axis=1), 0)
        mask = (fit * (1 << np.arange(CENTRE_SIZE))).sum(axis=1)
        return np.where(mask != 0, mask, 1 << fallback).astype(U16)

    def spoil(self, obs):
        """A card that fits; else destroy one with a dead card; else the first card."""
        if self.compiled:
            return compiled_heuristic.spoil(self, obs)
        cen = obs.centre
        fit = fits(fit_values(obs), cen)
        value = KIND_VALUE[np.maximum(cen, 0)]
        killable = (cen >= 0) & ((dead_values(obs)[:, None] >> (value - 1)) & 1).astype(bool)
        has_fit, can_kill = fit.any(axis=1), killable.any(axis=1)
        pos = np.where(has_fit, np.argmax(fit, axis=1),
                       np.where(can_kill, np.argmax(killable, axis=1), 0))
        kill = ~has_fit & can_kill & self.shed
        use = np.full(len(cen), -1, dtype=I8)
        if kill.any():
            k = np.flatnonzero(kill)
            use[k] = dead_kind(obs.hand[k], value[k, pos[k]])
        return pos.astype(I8), use

    def destroy(self, obs):
        """Destroy the asked card with a dead card when it does not fit."""
        if self.compiled:
            return compiled_heuristic.destroy(self, obs)
        rows = np.arange(len(obs.seat))
        target = obs.centre[rows, obs.position]
        unwanted = ~fits(fit_values(obs), target) & self.shed
        shed = dead_kind(obs.hand, KIND_VALUE[target])
        return np.where(unwanted, shed, -1).astype(I8)

    def lay(self, obs):
        """Lay when the best lay gains ``lay_margin`` points; at the end, whenever it helps."""
        return self.lay_with_plan(obs)[0]

    def lay_with_plan(self, obs):
        """The lay decision and, where it lays, the solver's best arrangement.

        The gain is the exact solver's (:func:`simulators.bango.laying.best_lays`:
        points of the sequences after minus before, minus the cards discarded),
        asked only where a cheap estimate (:func:`placeable`) puts the margin
        within reach. BG-7's last lay is taken when it beats discarding the
        whole hand.
        """
        hand = obs.hand.sum(axis=1, dtype=np.int32)
        placed = compiled_heuristic.placeable(obs) if self.compiled else placeable(obs)
        reach = 3 * placed - hand >= self.lay_margin  # each placed card: +1, bonus <= +1
        ask = np.flatnonzero((obs.final | reach) & (hand > 0))
        gain = np.full(len(hand), -10_000, dtype=np.int32)
        plan = np.full((len(hand), R.MAX_SEQUENCES, R.N_VALUES), -1, dtype=I8)
        if ask.size:
            best = best_lays_of(obs, ask)
            gain[ask], plan[ask] = best.gain, best.placed
        return np.where(obs.final, gain > -hand, gain >= self.lay_margin), plan

    def arrange(self, obs):
        """The best arrangement found (the exact solver's when available)."""
        return best_arrangement(obs)


def best_lays_of(obs: BangoObs, rows: np.ndarray | None = None):
    """The exact laying solver's result for the deciding players (or some rows of them)."""
    from simulators.bango import laying

    mask, colours, hand = obs.own(obs.seq_mask), obs.own(obs.seq_colours), obs.hand
    if rows is not None:
        mask, colours, hand = mask[rows], colours[rows], hand[rows]
    return laying.best_lays(hand, mask, colours, obs.free_discard)


def best_arrangement(obs: BangoObs) -> np.ndarray:
    """(N, 3, 11) the highest-scoring legal lay of each hand (exact, BG-6 and BG-8)."""
    return best_lays_of(obs).placed


@dataclass(frozen=True)
class OptimalStoppingPolicy(HeuristicPolicy):
    """The heuristic, but each stop-or-draw choice is one-turn optimal stopping.

    Draws on when the expected value of drawing, with every later choice of
    the turn made optimally (dynamic programming over the unseen cards,
    :mod:`simulators.bango.stopping`), beats stopping now by ``draw_margin``.
    Taking, bangos and lays are the heuristic's, with its parameters.
    """

    dead_cost: float = param(0.5, low=0.0, high=3.0,
                             doc="cost of taking a card that does not fit (points)")
    black_cost: float = param(1.0, low=0.0, high=3.0, doc="cost of taking a black card")
    draw_margin: float = param(0.0, low=-2.0, high=2.0,
                               doc="draw on when drawing is worth this much more than stopping")

    def draw_on(self, obs):
        """Draw on when the DP's value of drawing beats stopping by ``draw_margin``."""
        from simulators.bango.stopping import stopping_values

        stop, draw = stopping_values(obs, self.dead_cost, self.black_cost)
        return draw > stop + self.draw_margin


POLICIES: dict[str, type[Policy]] = {"random": RandomPolicy, "heuristic": HeuristicPolicy,
                                     "optimal": OptimalStoppingPolicy}

__getattr__ = make_policy_attribute(__name__, "simulators.bango.game")  # make_policy
