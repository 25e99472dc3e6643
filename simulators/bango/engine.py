"""Bango vectorized batch engine: whole games over a batch (RULINGS BG-1..BG-8).

A batch of N games advances in lockstep, one player-turn per step; inside a
turn, the rows still drawing reveal one card per sub-step, so every decision
is one policy call over the rows that face it. State is a handful of arrays:
hands as (N, n, 55) counts, each player's three sequences as 11-bit value
masks with their colour counts, the centre as (N, 12) kinds. Entry point:
:func:`simulate_games`; game ``g`` is seeded by its id alone
(:mod:`simulators.core.rng`), so results do not depend on batching.

Every decision is logged, so :meth:`GameBatch.record` rebuilds the
:class:`~simulators.bango.rules.GameRecord` the referee replays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from simulators.bango import rules as R
from simulators.bango._engine_kernel import lay_check
from simulators.bango.observations import CENTRE_SIZE, POLICY_METHODS, BangoObs, centre_mask
from simulators.core import rng
from simulators.core.dispatch import IllegalAction as IllegalAction  # re-exported
from simulators.core.dispatch import SeatDispatch, reject
from simulators.core.params import check_count

I8, U8, U16 = np.int8, np.uint8, np.uint16
STREAM_SHUFFLE, STREAM_SETUP, STREAM_NOISE = 0, 1, 2
# noise keys: (turn, decision, index)
NOISE_BANGO, NOISE_DRAW, NOISE_TAKE, NOISE_SPOIL, NOISE_DESTROY, NOISE_LAY, NOISE_ARRANGE = range(7)
FINAL_TURN = 1000  # noise key of the final lays: never a turn number (a game has < 99 turns)
FULL = U16((1 << R.N_VALUES) - 1)
VALUE_BIT = np.left_shift(1, np.arange(R.N_VALUES)).astype(U16)  # bit of value v at [v - 1]
KIND_VALUE = R.KIND_VALUE.astype(np.int64)
KIND_COLOUR = R.KIND_COLOUR.astype(np.int64)
IS_BLACK = R.KIND_COLOUR == R.BLACK
# VALUE_KINDS[v - 1]: kinds of value v
VALUE_KINDS = KIND_VALUE[None, :] == np.arange(1, R.N_VALUES + 1)[:, None]
# VALUE_KINDS_OF[k]: the 5 kinds of kind k's value; KIND_BIT[k]: its value's bit
VALUE_KINDS_OF = (KIND_VALUE - 1)[:, None] + R.N_VALUES * np.arange(R.N_COLOURS + 1)
KIND_BIT = np.left_shift(1, KIND_VALUE - 1).astype(np.int32)


class Dispatch(SeatDispatch):
    """Routes each Bango decision to the policy of the deciding seat."""

    def __init__(self, policies, n_players: int):
        super().__init__(policies, n_players, POLICY_METHODS, "Bango")
        self.wants_known = any(getattr(p, "wants_known", False) for p in self.unique)

    def array(self, method: str, obs, seat: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """Answers that are arrays per row (``arrange``), routed like scalar ones."""
        out = np.full((len(seat), *shape), -1, dtype=I8)
        which = self.index[seat]
        for i, policy in enumerate(self.unique):
            rows = which == i
            if not rows.any():
                continue
            answer = np.asarray(getattr(policy, method)(obs))
            if answer.shape != out.shape or answer.dtype.kind not in "iu":
                raise IllegalAction(f"{type(policy).__name__}.{method} returned "
                                    f"{answer.dtype} {answer.shape}, expected integers "
                                    f"{out.shape}")
            out[rows] = answer[rows]
        return out


    def lay_with_plan(self, obs, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The optional ``lay_with_plan`` answers: (lay?, arrangement where it lays)."""
        laid = np.zeros(len(seat), dtype=bool)
        plan = np.full((len(seat), R.MAX_SEQUENCES, R.N_VALUES), -1, dtype=I8)
        which = self.index[seat]
        for i, policy in enumerate(self.unique):
            rows = which == i
            if not rows.any():
                continue
            answer = policy.lay_with_plan(obs)
            if not isinstance(answer, tuple) or len(answer) != 2:
                raise IllegalAction(f"{type(policy).__name__}.lay_with_plan must return two "
                                    "arrays")
            lay, placed = (np.asarray(a) for a in answer)
            if lay.shape != laid.shape or placed.shape != plan.shape or \
                    placed.dtype.kind not in "iu":
                raise IllegalAction(f"{type(policy).__name__}.lay_with_plan returned shapes "
                                    f"{lay.shape} and {placed.shape}, expected {laid.shape} "
                                    f"and integers {plan.shape}")
            laid[rows] = lay.astype(bool)[rows]
            plan[rows] = placed[rows]
        return laid, plan


def shuffled_decks(gen: np.random.Generator, size: int) -> np.ndarray:
    """(size, 99) kinds: uniform shuffles of the deck (BG-1)."""
    deck = np.array(R.full_deck(), dtype=I8)
    return deck[rng.permutations(gen, size, R.N_CARDS)]


def bonus_by_rule(colours: np.ndarray) -> np.ndarray:
    """BG-8 colour bonus of sequences given their (..., 4) colour counts.

    The first count, from the top, held by exactly one colour; that is the
    largest count no other colour shares.
    """
    c = colours.astype(np.int16)
    same = (c[..., :, None] == c[..., None, :]).sum(axis=-1)  # colours sharing each count
    return np.where((same == 1) & (c > 0), c, 0).max(axis=-1)


_COUNTS = R.N_VALUES + 1  # a colour's count in one sequence: 0..11 (one card per value)
BONUS_TABLE = bonus_by_rule(np.stack(np.unravel_index(np.arange(_COUNTS ** R.N_COLOURS),
                                                      (_COUNTS,) * R.N_COLOURS), axis=-1))
""":func:`bonus_by_rule` of every (4,) colour count, indexed by the counts in base 12."""


def bonus(colours: np.ndarray) -> np.ndarray:
    """BG-8 colour bonus of sequences given their (..., 4) colour counts (each 0..11):
    :func:`bonus_by_rule`, read from its table (a lookup costs a tenth of the rule's
    comparisons on the learned player's small batches)."""
    c = np.asarray(colours, np.int64)
    return BONUS_TABLE[((c[..., 0] * _COUNTS + c[..., 1]) * _COUNTS + c[..., 2]) * _COUNTS
                       + c[..., 3]]


def board_points(seq_mask: np.ndarray, seq_colours: np.ndarray) -> np.ndarray:
    """Sequence points of boards: cards plus colour bonuses, summed over the 3 slots (BG-8)."""
    return (np.bitwise_count(seq_mask).astype(np.int32) + bonus(seq_colours)).sum(axis=-1)


def _contiguous(mask: np.ndarray) -> np.ndarray:
    """Whether each value mask is empty or one run of consecutive values."""
    m = mask.astype(np.int32)
    low = m & -m
    return (m & (m + low)) == 0


def lay_errors(hand: np.ndarray, seq_mask: np.ndarray, n_open: np.ndarray, placed: np.ndarray,
               free_discard: bool) -> np.ndarray:
    """(N,) codes of the first BG-6 breach of each arrangement, 0 if legal.

    1 a kind at the wrong value or black; 2 more cards placed than held;
    3 a value already in the sequence; 4 not consecutive; 5 a new sequence of
    one card; 6 new sequences out of order; 7 a discard extends a sequence;
    8 two discards could open a sequence while fewer than 3 are open.
    """
    n_rows = len(hand)
    code = np.zeros(n_rows, dtype=I8)
    used = placed >= 0
    kinds = np.maximum(placed, 0)
    bad_kind = used & ((KIND_VALUE[kinds] != np.arange(1, R.N_VALUES + 1)) | IS_BLACK[kinds])
    code = np.where(bad_kind.any(axis=(1, 2)) & (code == 0), 1, code)
    flat = (np.arange(n_rows)[:, None, None] * (R.N_KINDS + 1) + np.where(used, kinds + 1, 0))
    counts = np.bincount(flat.ravel(), minlength=n_rows * (R.N_KINDS + 1))
    counts = counts.reshape(n_rows, R.N_KINDS + 1)[:, 1:]
    code = np.where(((counts > hand).any(axis=1)) & (code == 0), 2, code)
    added = (used * VALUE_BIT).sum(axis=2).astype(U16)  # (N, 3)
    code = np.where(((added & seq_mask) != 0).any(axis=1) & (code == 0), 3, code)
    after = added | seq_mask
    code = np.where((~_contiguous(after)).any(axis=1) & (code == 0), 4, code)
    slot = np.arange(R.MAX_SEQUENCES)[None, :]
    new = (slot >= n_open[:, None]) & (added != 0)
    code = np.where((new & (np.bitwise_count(added) < R.MIN_OPEN)).any(axis=1) & (code == 0),
                    5, code)
    previous_open = np.concatenate([np.ones((n_rows, 1), bool), after[:, :-1] != 0], axis=1)
    code = np.where((new & ~previous_open).any(axis=1) & (code == 0), 6, code)
    if not free_discard:
        left = hand.astype(np.int16) - counts
        discard_values = ((left[:, :R.N_COLOURED_KINDS] > 0).reshape(n_rows, R.N_COLOURS,
                                                                       R.N_VALUES).any(axis=1))
        dmask = (discard_values * VALUE_BIT).sum(axis=1).astype(U16)
        ends = (((after << U16(1)) | (after >> U16(1))) & ~after & FULL) * (after != 0)
        code = np.where(((ends & dmask[:, None]) != 0).any(axis=1) & (code == 0), 7, code)
        few = (after != 0).sum(axis=1) < R.MAX_SEQUENCES
        code = np.where(few & ((dmask & (dmask >> U16(1))) != 0) & (code == 0), 8, code)
    return code


LAY_ERRORS = {1: "a card at a value it does not have, or a black card",
              2: "more cards than the hand holds", 3: "a value already in the sequence",
              4: "values that are not consecutive", 5: "a new sequence of a single card",
              6: "a new sequence before an earlier slot is opened",
              7: "a personal discard that extends a sequence (compulsory placement)",
              8: "two personal discards that could open a sequence (compulsory placement)"}


@dataclass
class Log:
    """Every decision of a batch, as arrays per sub-step (rows are batch indices)."""

    reveals: list = field(default_factory=list)  # (turn, rows, bango kind, go_on)
    takes: list = field(default_factory=list)  # (turn, rows, (k, 12) kinds taken or -1)
    spoils: list = field(default_factory=list)  # (turn, rows, seat, centre kind, hand kind)
    destroys: list = field(default_factory=list)  # (turn, rows, centre kind, hand kind)
    lays: list = field(default_factory=list)  # (turn, rows, (k, 3, 11) placed); turn -1: final
    turns: list = field(default_factory=list)  # (turn, rows, seat, revealed, exploded, taken,
    #                                               destroyed, laid)


@dataclass
class Table:
    """The mutable state of a batch of games."""

    n_players: int
    stock: np.ndarray  # (N, 99) kinds; the stock is stock[top:]
    top: np.ndarray
    hands: np.ndarray  # (N, n, 55) uint8
    size: np.ndarray  # (N, n) int16 cards in each hand
    seq_mask: np.ndarray  # (N, n, 3) uint16
    seq_colours: np.ndarray  # (N, n, 3, 4) int8
    n_open: np.ndarray  # (N, n) int8
    personal: np.ndarray  # (N, n) int16
    public: np.ndarray  # (N, 55) uint8 face-up cards out of play
    centre: np.ndarray  # (N, 12) int8
    centre_len: np.ndarray
    explosions: np.ndarray
    bangos: np.ndarray
    lays: np.ndarray
    blacks: np.ndarray  # (N, n) black cards each player took into his hand
    common: np.ndarray  # (N,) cards in the common discard
    removed: int
    reinsert: list  # per row, the positions black cards were put back at during the deal
    known: np.ndarray  # (N, n, 55) int16: cards each took face up and still holds (public)

    def rows(self, index: np.ndarray) -> Table:
        """A copy holding only the given rows (repeated rows allowed)."""
        fields = {name: (value[index] if isinstance(value, np.ndarray) else value)
                  for name, value in vars(self).items()}
        fields["reinsert"] = [list(self.reinsert[i]) for i in np.asarray(index).tolist()]
        return Table(**fields)


def _setup(decks: np.ndarray, n: int, removed: int, units: np.ndarray, entropy: int) -> Table:
    """BG-2: remove the top cards, deal one card each, black cards put back at random."""
    n_rows = len(decks)
    stock = decks.copy()
    top = np.full(n_rows, removed, dtype=np.int64)
    hands = np.zeros((n_rows, n, R.N_KINDS), dtype=U8)
    rows = np.arange(n_rows)
    reinsert: list[list[int]] = [[] for _ in range(n_rows)]
    for seat in range(n):
        attempt = 0
        while True:
            card = stock[rows, top]
            black = IS_BLACK[card]
            if not black.any():
                break
            b = np.flatnonzero(black)
            u = rng.draw_per_unit(entropy, units, STREAM_SETUP,
                                  lambda g, size: g.random(size), seat, attempt)[b]
            left = R.N_CARDS - top[b] - 1  # cards below the black one
            position = np.minimum((u * (left + 1)).astype(np.int64), left)
            # the black card at top moves to top + position; the cards above it shift up
            idx = np.arange(R.N_CARDS)[None, :]
            t0 = top[b][:, None]
            src = np.where((idx >= t0) & (idx < t0 + position[:, None]), idx + 1, idx)
            src = np.where(idx == t0 + position[:, None], t0, src)
            stock[b] = np.take_along_axis(stock[b], src, axis=1)
            for row, p in zip(b.tolist(), position.tolist(), strict=True):
                reinsert[row].append(p)
            attempt += 1
        hands[rows, seat, stock[rows, top]] += 1
        top += 1
    zeros = np.zeros((n_rows, n), dtype=np.int32)
    return Table(n, stock, top, hands, np.ones((n_rows, n), dtype=np.int16),
                 np.zeros((n_rows, n, 3), dtype=U16),
                 np.zeros((n_rows, n, 3, 4), dtype=I8), np.zeros((n_rows, n), dtype=I8),
                 zeros.copy(), np.zeros((n_rows, R.N_KINDS), dtype=U8),
                 np.full((n_rows, CENTRE_SIZE), -1, dtype=I8), np.zeros(n_rows, dtype=np.int64),
                 zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy(),
                 np.zeros(n_rows, dtype=np.int32),
                 removed, reinsert, np.zeros((n_rows, n, R.N_KINDS), dtype=np.int16))


class _Turn:
    """One step of the batch: the rows ``g`` play a turn with seats ``seat``."""

    def __init__(self, table: Table, dispatch: Dispatch, config: R.BangoConfig, log: Log,
                 units: np.ndarray, entropy: int, t: int):
        self.tb, self.dispatch, self.config, self.log = table, dispatch, config, log
        self.units, self.entropy, self.t = units, entropy, t

    def noise(self, g: np.ndarray, *key: int) -> np.ndarray | None:
        """Uniforms for the rows ``g``, keyed by (turn, decision, index)."""
        if not self.dispatch.uses_noise:
            return None
        return rng.draw_per_unit(self.entropy, self.units[g], STREAM_NOISE,
                                 lambda gen, size: gen.random(size, dtype=np.float32),
                                 self.t, *key)

    def world(self, phase: str, g, seat, reveal: int = 0):
        """The rollout world of a decision, for tables that ask for one (else None)."""
        if not self.dispatch.wants_world:
            return None
        from simulators.bango.rollout import TurnWorld

        return TurnWorld(self, phase, g, np.asarray(seat, dtype=np.int64), reveal)

    def obs(self, g, seat, active, *, revealed=None, exploded=None, position=None,
            forced=None, final=False, noise=None, world=None) -> BangoObs:
        """The view of ``seat`` in the games ``g``."""
        tb = self.tb
        k = len(g)
        minus = np.full(k, -1, dtype=I8)
        return BangoObs(
            seat=seat.astype(I8), active=active.astype(I8), hand=self.hand_of(g, seat),
            centre=tb.centre.take(g, axis=0), centre_len=tb.centre_len.take(g),
            revealed=minus if revealed is None else revealed,
            exploded=np.zeros(k, bool) if exploded is None else exploded,
            position=minus if position is None else position,
            seq_mask=tb.seq_mask.take(g, axis=0), seq_colours=tb.seq_colours.take(g, axis=0),
            n_open=tb.n_open.take(g, axis=0), public=tb.public.take(g, axis=0),
            hand_sizes=tb.size.take(g, axis=0),
            stock_left=(R.N_CARDS - tb.top.take(g)).astype(np.int16),
            forced=np.zeros(k, bool) if forced is None else forced, final=final,
            n_players=tb.n_players, free_discard=self.config.free_discard, noise=noise,
            world=world, known=tb.known.take(g, axis=0) if self.dispatch.wants_known else None)

    def add_to_hands(self, g, seat, kind) -> None:
        """One card of ``kind`` into the hand of ``seat`` in games ``g`` (no repeated triple).

        Every card taken after the deal is taken face up (BG-3, BG-4): the table knows it."""
        tb = self.tb
        cell = (g * tb.n_players + seat) * R.N_KINDS + kind
        tb.hands.reshape(-1)[cell] += 1  # a view: one flat index is cheaper than three
        tb.known.reshape(-1)[cell] += 1

    def hand_of(self, g, seat) -> np.ndarray:
        """(k, 55) copies of the hands of ``seat`` in games ``g`` (``take``: no fancy indexing)."""
        tb = self.tb
        flat = tb.hands.reshape(-1, R.N_KINDS)
        return flat.take(g * tb.n_players + seat, axis=0)

    def bango_choice(self, g, seat, active, card, exploded, what: str, key,
                     forced=None) -> np.ndarray:
        """Ask for a bango on ``card`` where the hand allows one (or take the ``forced``
        answer of a rollout's continuation); -1 elsewhere (checked)."""
        tb = self.tb
        cells = tb.hands.reshape(-1)  # flat (game, seat, kind) cells: 1-D takes are cheap
        first = (g * tb.n_players + seat) * R.N_KINDS
        same_value = cells.take(first[:, None] + VALUE_KINDS_OF[card])  # (k, 5) counts
        possible = (same_value[:, 0] | same_value[:, 1] | same_value[:, 2] | same_value[:, 3]
                    | same_value[:, 4]) != 0
        choice = np.full(len(g), -1, dtype=I8)
        ask = np.flatnonzero(possible)
        if ask.size:
            ga = g[ask]
            obs = self.obs(ga, seat[ask], active[ask], revealed=card[ask],
                           exploded=exploded[ask],
                           position=None if what == "bango" else key[-1] * np.ones(
                               ask.size, dtype=I8),
                           noise=self.noise(ga, *key),
                           world=self.world(what, ga, seat[ask], key[-1])
                           if what == "bango" else None)
            answer = self.dispatch(what, obs, seat[ask], I8) if forced is None else \
                forced[ask].astype(I8)
            held = cells.take(first[ask] + np.clip(answer, 0, R.N_KINDS - 1))
            ok = (answer == -1) | ((answer >= 0) & (answer < R.N_KINDS) & (held > 0)
                                   & (KIND_VALUE[np.clip(answer, 0, R.N_KINDS - 1)]
                                      == KIND_VALUE[card[ask]]))
            reject(~ok, self.units[ga], what,
                   lambda i, a=answer, s=seat[ask]: f"with {a[i]}: seat {s[i]} holds no such "
                                                    "card of that value (BG-5)")
            choice[ask] = answer
        return choice

    def destroy_with(self, g, seat, hand_kind, target) -> None:
        """BG-5: ``hand_kind`` from ``seat``'s hand and ``target`` go to the common discard."""
        tb = self.tb
        tb.hands[g, seat, hand_kind] -= 1
        was_known = tb.known[g, seat, hand_kind] > 0  # he may have played the card he took
        tb.known[g[was_known], seat[was_known], hand_kind[was_known]] -= 1
        tb.size[g, seat] -= 1
        tb.public[g, hand_kind] += 1  # one card per row: no repeated index
        tb.public[g, target] += 1
        tb.common[g] += 2
        tb.bangos[g, seat] += 1

    def draw(self, g, seat, resume: Resume | None = None) -> tuple[np.ndarray, np.ndarray]:
        """BG-3/BG-5: reveal until a stop or an explosion. Returns (exploded, revealed).

        From ``resume`` (a rollout's continuation at a ``bango`` or ``draw_on`` decision) the
        first step starts at that decision, its card revealed, its answer forced."""
        tb = self.tb
        k = len(g)
        exploded = np.zeros(k, bool)
        revealed = np.zeros(k, dtype=np.int16)
        drawing = np.arange(k)
        in_centre = np.zeros(k, dtype=np.int32)  # values in each centre (empty when a turn starts)
        r, entry = 0, None
        if resume is not None:  # the centre's values but the last card's, the one decided on
            r, entry = resume.reveal, resume.phase
            cen = tb.centre[g].copy()
            cen[np.arange(k), tb.centre_len[g] - 1] = -1
            in_centre = centre_mask(cen)
        while drawing.size:
            gd, sd = g[drawing], seat[drawing]
            if entry is None:
                card = tb.stock[gd, tb.top[gd]]
                tb.top[gd] += 1
                revealed[drawing] += 1
                tb.centre[gd, tb.centre_len[gd]] = card
                tb.centre_len[gd] += 1
            else:
                card = tb.centre[gd, tb.centre_len[gd] - 1]
            bit = KIND_BIT[card]
            boom = (in_centre[drawing] & bit) != 0
            if entry == "draw_on":
                bango = np.full(len(gd), -1, dtype=I8)
            else:
                bango = self.bango_choice(gd, sd, sd, card, boom, "bango", (NOISE_BANGO, r),
                                          forced=resume.forced if entry == "bango" else None)
            did = bango >= 0
            if did.any():
                gb = gd[did]
                tb.centre_len[gb] -= 1
                tb.centre[gb, tb.centre_len[gb]] = -1
                self.destroy_with(gb, sd[did], bango[did].astype(np.int64), card[did])
            in_centre[drawing] |= np.where(did, 0, bit)
            boom &= ~did
            last = tb.top[gd] >= R.N_CARDS
            empty = tb.centre_len[gd] == 0
            go_on = empty & ~last & ~boom  # nothing to take: he must reveal again
            ask = np.flatnonzero(~boom & ~last & ~empty)
            if entry == "draw_on":
                go_on[ask] = resume.forced[ask].astype(bool)
            elif ask.size:
                obs = self.obs(gd[ask], sd[ask], sd[ask], revealed=card[ask],
                               exploded=boom[ask], noise=self.noise(gd[ask], NOISE_DRAW, r),
                               world=self.world("draw_on", gd[ask], sd[ask], r))
                go_on[ask] = self.dispatch("draw_on", obs, sd[ask], bool)
            self.log.reveals.append((self.t, gd, bango, go_on.copy()))
            exploded[drawing] = boom
            drawing = drawing[go_on]
            r, entry = r + 1, None
        return exploded, revealed

    def stop(self, g, seat, forced=None) -> np.ndarray:
        """BG-3: take at least one centre card; the rest go to the common discard (the
        ``forced`` masks in a rollout's continuation)."""
        tb = self.tb
        cen = tb.centre[g]
        occupied = (cen >= 0)
        occ_mask = (occupied * (1 << np.arange(CENTRE_SIZE))).sum(axis=1).astype(U16)
        taken = np.zeros(len(g), dtype=np.int16)
        ask = np.flatnonzero(occ_mask != 0)
        if ask.size:
            ga = g[ask]
            if forced is None:
                obs = self.obs(ga, seat[ask], seat[ask], noise=self.noise(ga, NOISE_TAKE),
                               world=self.world("take", ga, seat[ask]))
                mask = self.dispatch("take", obs, seat[ask], U16)
            else:
                mask = forced[ask].astype(U16)
            reject((mask == 0) | ((mask & ~occ_mask[ask]) != 0), self.units[ga], "take",
                   lambda i, m=mask, o=occ_mask[ask]: f"mask {int(m[i]):#x} with centre "
                                                      f"{int(o[i]):#x}: take 1+ centre cards "
                                                      "(BG-3)")
            take = ((mask[:, None] >> np.arange(CENTRE_SIZE, dtype=U16)) & 1).astype(bool)
            take &= occupied[ask]
            kinds = cen[ask]
            rows = np.repeat(ga, CENTRE_SIZE)
            seats = np.repeat(seat[ask], CENTRE_SIZE)
            flat_k = kinds.ravel().astype(np.int64)
            t_flat = take.ravel()
            # the centre's values are distinct on a stop, so no (row, kind) repeats
            self.add_to_hands(rows[t_flat], seats[t_flat], flat_k[t_flat])
            rest = occupied[ask].ravel() & ~t_flat
            tb.public[rows[rest], flat_k[rest]] += 1
            tb.common[ga] += rest.reshape(len(ga), -1).sum(axis=1).astype(np.int32)
            taken[ask] = take.sum(axis=1)
            tb.blacks[ga, seat[ask]] += (take & IS_BLACK[np.maximum(kinds, 0)]).sum(axis=1)
            tb.size[ga, seat[ask]] += taken[ask]
            self.log.takes.append((self.t, ga, np.where(take, kinds, -1).astype(I8)))
        tb.centre[g] = -1
        tb.centre_len[g] = 0
        return taken

    def explode(self, g, seat) -> np.ndarray:
        """BG-4/BG-5: the spoils of an explosion. Returns the cards the active player takes."""
        tb = self.tb
        n, k = tb.n_players, len(g)
        tb.explosions[g, seat] += 1
        cen = tb.centre[g].copy()
        last = tb.centre_len[g] - 1
        rows_k = np.arange(k)
        keep_active = (cen >= 0) & IS_BLACK[np.maximum(cen, 0)]
        keep_active[rows_k, last] = True
        taken = keep_active.sum(axis=1).astype(np.int16)
        tb.blacks[g, seat] += (keep_active & IS_BLACK[np.maximum(cen, 0)]).sum(axis=1)
        tb.size[g, seat] += taken
        sel = np.flatnonzero(keep_active.ravel())
        # the blacks and the exploding card are distinct kinds: no repeated index
        self.add_to_hands(g[sel // CENTRE_SIZE], seat[sel // CENTRE_SIZE],
                          cen.ravel()[sel].astype(np.int64))
        cen = np.where(keep_active, -1, cen)
        cen = _compact(cen)
        tb.centre[g] = cen
        tb.centre_len[g] = (cen >= 0).sum(axis=1)
        for step in range(1, n):
            ask = np.flatnonzero(tb.centre_len[g] > 0)
            if not ask.size:
                break
            ga = g[ask]
            opp = ((seat[ask] + step) % n).astype(np.int64)
            obs = self.obs(ga, opp, seat[ask], noise=self.noise(ga, NOISE_SPOIL, step))
            position, with_card = self.dispatch.pair("spoil", obs, opp, (I8, I8))
            pos = np.clip(position, 0, CENTRE_SIZE - 1).astype(np.int64)
            target = tb.centre[ga, pos]
            held = tb.hands[ga, opp, np.clip(with_card, 0, R.N_KINDS - 1)]
            ok = ((position >= 0) & (position < tb.centre_len[ga]) & (
                (with_card == -1) | ((with_card >= 0) & (with_card < R.N_KINDS) & (held > 0)
                                     & (KIND_VALUE[np.clip(with_card, 0, R.N_KINDS - 1)]
                                        == KIND_VALUE[np.maximum(target, 0)]))))
            reject(~ok, self.units[ga], "spoil",
                   lambda i, p=position, w=with_card, s=opp: f"({p[i]}, {w[i]}) of seat {s[i]}: "
                                                             "not a centre card, or no hand card "
                                                             "of its value (BG-4, BG-5)")
            takes = with_card < 0
            self.add_to_hands(ga[takes], opp[takes], target[takes].astype(np.int64))
            tb.size[ga[takes], opp[takes]] += 1
            if (~takes).any():
                self.destroy_with(ga[~takes], opp[~takes], with_card[~takes].astype(np.int64),
                                  target[~takes].astype(np.int64))
            self.log.spoils.append((self.t, ga, opp.astype(I8), target.astype(I8),
                                    with_card.copy()))
            tb.centre[ga] = _remove_at(tb.centre.take(ga, axis=0), pos)
            tb.centre_len[ga] -= 1
        for j in range(CENTRE_SIZE):
            ask = np.flatnonzero(tb.centre_len[g] > j)
            if not ask.size:
                break
            ga = g[ask]
            target = tb.centre[ga, j]
            choice = self.bango_choice(ga, seat[ask], seat[ask], target,
                                       np.zeros(ask.size, bool), "destroy", (NOISE_DESTROY, j))
            did = choice >= 0
            if did.any():
                self.destroy_with(ga[did], seat[ask][did], choice[did].astype(np.int64),
                                  target[did].astype(np.int64))
                tb.centre[ga[did], j] = -2  # destroyed: skipped below
                self.log.destroys.append((self.t, ga[did], target[did].astype(I8),
                                          choice[did].copy()))
        cen = tb.centre[g]
        rest = cen >= 0
        sel = np.flatnonzero(rest.ravel())
        # distinct values left: distinct kinds
        self.add_to_hands(g[sel // CENTRE_SIZE], seat[sel // CENTRE_SIZE],
                          cen.ravel()[sel].astype(np.int64))
        taken += rest.sum(axis=1).astype(np.int16)
        tb.size[g, seat] += rest.sum(axis=1).astype(np.int16)
        tb.centre[g] = -1
        tb.centre_len[g] = 0
        return taken

    def lay(self, g, seat, *, final: bool, chosen=None) -> np.ndarray:
        """BG-6 (and BG-7's last lay): lay where compulsory or chosen (``chosen`` by a
        rollout's continuation). Returns who laid."""
        tb = self.tb
        size = tb.size[g, seat]
        forced = (size > self.config.hand_limit) & (not final)
        laid = forced.copy()
        planned = np.full((len(g), R.MAX_SEQUENCES, R.N_VALUES), -1, dtype=I8)
        has_plan = np.zeros(len(g), dtype=bool)
        ask = np.flatnonzero((size > 0) & ~forced)
        if ask.size and chosen is not None:
            laid[ask] = chosen[ask].astype(bool)
        elif ask.size:
            ga = g[ask]
            obs = self.obs(ga, seat[ask], seat[ask], final=final,
                           forced=np.zeros(ask.size, bool),
                           noise=self.noise(ga, NOISE_LAY, int(seat[0]) if final else 9),
                           world=None if final else self.world("lay", ga, seat[ask]))
            # a subclass that redefines lay or arrange is asked them, not its parent's plan
            if self.dispatch.has("lay_with_plan", standing_for=("lay", "arrange")):
                laid[ask], planned[ask] = self.dispatch.lay_with_plan(obs, seat[ask])
                has_plan[ask] = laid[ask]
            else:
                laid[ask] = self.dispatch("lay", obs, seat[ask], bool)
        which = np.flatnonzero(laid)
        if which.size:
            gl, sl = g[which], seat[which]
            placed = planned[which]
            need = np.flatnonzero(~has_plan[which])
            if need.size:
                obs = self.obs(gl[need], sl[need], sl[need], final=final,
                               forced=forced[which][need],
                               noise=self.noise(gl[need], NOISE_ARRANGE,
                                                int(seat[0]) if final else 9))
                placed[need] = self.dispatch.array("arrange", obs, sl[need],
                                                   (R.MAX_SEQUENCES, R.N_VALUES))
            self.apply_lay(gl, sl, placed)
            self.log.lays.append((-1 if final else self.t, gl, sl.astype(I8), placed))
        return laid

    def apply_lay(self, g, seat, placed) -> None:
        """Check an arrangement (BG-6) and place the whole hand."""
        tb = self.tb
        hand = self.hand_of(g, seat)
        # the compiled twin of lay_errors, which also says what the lay adds
        code, added, colours, n_used = lay_check(hand, tb.seq_mask[g, seat], tb.n_open[g, seat],
                                                 placed, self.config.free_discard)
        reject(code != 0, self.units[g], "arrangement",
               lambda i, c=code, s=seat: f"of seat {s[i]}: {LAY_ERRORS[int(c[i])]} (BG-6)")
        tb.seq_mask[g, seat] |= added
        tb.seq_colours[g, seat] += colours
        tb.n_open[g, seat] = (tb.seq_mask[g, seat] != 0).sum(axis=1)
        tb.personal[g, seat] += hand.sum(axis=1, dtype=np.int32) - n_used
        tb.public[g] += hand
        tb.hands[g, seat] = 0
        tb.known[g, seat] = 0
        tb.size[g, seat] = 0
        tb.lays[g, seat] += 1

    def play(self, g, seat, resume: Resume | None = None) -> None:
        """One player-turn for the rows ``g``: draw, stop or explode, then perhaps lay (from
        ``resume``'s decision in a rollout's continuation)."""
        phase = None if resume is None else resume.phase
        bangos_before = self.tb.bangos[g].sum(axis=1)
        exploded = np.zeros(len(g), bool)
        revealed = np.zeros(len(g), dtype=np.int16)
        if phase in (None, "bango", "draw_on"):
            exploded, revealed = self.draw(g, seat, resume)
        taken = np.zeros(len(g), dtype=np.int16)
        calm = np.flatnonzero(~exploded)
        if calm.size and phase != "lay":
            taken[calm] = self.stop(g[calm], seat[calm],
                                    resume.forced[calm] if phase == "take" else None)
        boom = np.flatnonzero(exploded)
        if boom.size:
            taken[boom] = self.explode(g[boom], seat[boom])
        destroyed = (self.tb.bangos[g].sum(axis=1) - bangos_before).astype(np.int16)
        laid = self.lay(g, seat, final=False, chosen=resume.forced if phase == "lay" else None)
        self.log.turns.append((self.t, g, seat.astype(I8), revealed, exploded, taken, destroyed,
                               laid))


def _remove_at(cen: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Centre rows with the card at ``pos`` removed, the later ones shifted left."""
    j = np.arange(CENTRE_SIZE)[None, :]
    src = np.minimum(j + (j >= pos[:, None]), CENTRE_SIZE - 1)
    out = np.take_along_axis(cen, src, axis=1)
    out[:, -1] = -1
    return out


def _compact(cen: np.ndarray) -> np.ndarray:
    """Centre rows with their cards (>= 0) moved to the front, order kept, -1 after."""
    order = np.argsort(cen < 0, axis=1, kind="stable")
    out = np.take_along_axis(cen, order, axis=1)
    return np.where(out >= 0, out, -1).astype(I8)


def play_games(config: R.BangoConfig, dispatch: Dispatch, decks: np.ndarray,
               first_player: np.ndarray, units: np.ndarray, entropy: int) -> tuple[Table, Log]:
    """Play one whole game per row from shuffled decks; pure given its inputs."""
    table = _setup(decks, config.n_players, config.n_removed, units, entropy)
    log = Log()
    _play_turns(config, dispatch, table, log, first_player, units, entropy,
                np.arange(len(decks)), 0)
    _final_lays(config, dispatch, table, log, units, entropy)
    return table, log


@dataclass(frozen=True)
class Resume:
    """Where a rollout's continuation starts: turn ``t`` at a decision ``phase`` (``bango``,
    ``draw_on``, ``take`` or ``lay``) of the player on turn, whose answer is ``forced`` per
    row; ``reveal`` counts the cards revealed before it this turn (noise keys). With
    ``turns`` the rows stop after that many turns, without BG-7's last lays."""

    t: int
    phase: str
    forced: np.ndarray
    reveal: int = 0
    turns: int | None = None


def play_on(config: R.BangoConfig, dispatch: Dispatch, table: Table, first_player: np.ndarray,
            units: np.ndarray, entropy: int, resume: Resume) -> Table:
    """Play the games of ``table`` on from ``resume``'s decision to the horizon (in place)."""
    n, rows = config.n_players, np.arange(len(table.top))
    log = Log()
    seat = (first_player.astype(np.int64) + resume.t) % n
    _Turn(table, dispatch, config, log, units, entropy, resume.t).play(rows, seat, resume)
    if resume.turns is not None and resume.turns <= 1:
        return table
    _play_turns(config, dispatch, table, log, first_player, units, entropy,
                rows[table.top < R.N_CARDS], resume.t + 1,
                None if resume.turns is None else resume.turns - 1)
    if resume.turns is None:
        _final_lays(config, dispatch, table, log, units, entropy)
    return table


def _play_turns(config, dispatch, table, log, first_player, units, entropy, active, t,
                turns=None) -> None:
    """Turns from ``t`` until the deck runs out (BG-7) or ``turns`` have been played."""
    n, stop = config.n_players, None if turns is None else t + turns
    while active.size and (stop is None or t < stop):
        seat = ((first_player[active].astype(np.int64) + t) % n)
        _Turn(table, dispatch, config, log, units, entropy, t).play(active, seat)
        active = active[table.top[active] < R.N_CARDS]  # BG-7: the last card ends the game
        t += 1


def _final_lays(config, dispatch, table, log, units, entropy) -> None:
    """BG-7: everyone may lay once more; the rest of each hand is discarded."""
    final = _Turn(table, dispatch, config, log, units, entropy, FINAL_TURN)
    rows = np.arange(len(table.top))
    for seat in range(config.n_players):
        final.lay(rows, np.full(len(rows), seat, dtype=np.int64), final=True)
        left = table.hands[:, seat].sum(axis=1, dtype=np.int32)
        table.personal[:, seat] += left
        table.public += table.hands[:, seat]
        table.hands[:, seat] = 0
        table.known[:, seat] = 0
        table.size[:, seat] = 0


def scores(table: Table) -> np.ndarray:
    """(N, n) BG-8 scores."""
    return board_points(table.seq_mask, table.seq_colours) - table.personal


def _game_table(config: R.BangoConfig, ids: np.ndarray, first: np.ndarray, table: Table,
                turns: np.ndarray) -> pl.DataFrame:
    """One row per game and seat (BG-8)."""
    n = config.n_players
    n_games = len(ids)
    lengths = np.bitwise_count(table.seq_mask).astype(I8)
    bonuses = bonus(table.seq_colours).astype(I8)
    # scores(table), from the bonuses computed once
    score = (lengths.astype(np.int32) + bonuses).sum(axis=-1) - table.personal
    best = score.max(axis=1, keepdims=True)
    columns = {
        "game_id": np.repeat(ids, n),
        "seat": np.tile(np.arange(n, dtype=I8), n_games),
        "n_players": np.full(n_games * n, n, dtype=I8),
        "first_player": np.repeat(first.astype(I8), n),
        "order": ((np.arange(n)[None, :] - first[:, None]) % n).astype(I8).ravel(),
        "score": score.ravel().astype(np.int32),
        "is_winner": (score == best).ravel(),
        "n_winners": np.repeat((score == best).sum(axis=1), n).astype(I8),
        "n_sequences": table.n_open.ravel(),
        **{f"seq{s}_len": lengths[:, :, s].ravel() for s in range(R.MAX_SEQUENCES)},
        **{f"seq{s}_bonus": bonuses[:, :, s].ravel() for s in range(R.MAX_SEQUENCES)},
        "personal_discards": table.personal.ravel().astype(np.int16),
        "explosions": table.explosions.ravel().astype(np.int16),
        "bangos": table.bangos.ravel().astype(np.int16),
        "lays": table.lays.ravel().astype(np.int16),
        "blacks_received": table.blacks.ravel().astype(np.int16),
        "turns": np.repeat(turns, n).astype(np.int16),
    }
    return pl.DataFrame(columns)


def _turn_table(ids: np.ndarray, log: Log) -> pl.DataFrame:
    """One row per player-turn, sorted by game and turn."""
    if not log.turns:
        return pl.DataFrame(schema={"game_id": pl.Int64, "turn": pl.Int16})
    parts = list(zip(*log.turns, strict=True))
    g = np.concatenate(parts[1])
    # the log runs turn by turn (rows ascending within a turn): a stable sort by game suffices
    order = np.argsort(g, kind="stable")
    turn = np.concatenate([np.full(len(rows), t, dtype=np.int16)
                           for t, rows in zip(parts[0], parts[1], strict=True)])
    columns = {"game_id": ids[g], "turn": turn, "seat": np.concatenate(parts[2]),
               "revealed": np.concatenate(parts[3]).astype(I8),
               "exploded": np.concatenate(parts[4]), "taken": np.concatenate(parts[5]).astype(I8),
               "destroyed": np.concatenate(parts[6]).astype(I8), "laid": np.concatenate(parts[7])}
    table = pl.DataFrame({name: column[order] for name, column in columns.items()})
    return table.with_columns(pl.col("game_id").set_sorted())  # as .sort() would flag it


def _records(config: R.BangoConfig, decks: np.ndarray, first: np.ndarray,
             reinsert: list[list[int]], log: Log, rows: np.ndarray) -> dict[int, R.GameRecord]:
    """Rebuild the records of some rows (batch indices) from the log."""
    wanted = set(int(r) for r in rows)
    turns: dict[int, dict[int, dict]] = {r: {} for r in wanted}

    def turn(r, t):
        entry = turns[r].get(t)
        if entry is None:
            entry = turns[r][t] = {"reveals": [], "take": (), "spoils": [], "destroys": [],
                                   "lay": None}
        return entry

    for t, g, bango, go_on in log.reveals:
        for i, r in enumerate(g.tolist()):
            if r in wanted:
                turn(r, t)["reveals"].append((int(bango[i]), bool(go_on[i])))
    for t, g, kinds in log.takes:
        for i, r in enumerate(g.tolist()):
            if r in wanted:
                turn(r, t)["take"] = tuple(int(k) for k in kinds[i] if k >= 0)
    for t, g, opp, target, with_card in log.spoils:
        for i, r in enumerate(g.tolist()):
            if r in wanted:
                turn(r, t)["spoils"].append((int(opp[i]), int(target[i]), int(with_card[i])))
    for t, g, target, with_card in log.destroys:
        for i, r in enumerate(g.tolist()):
            if r in wanted:
                turn(r, t)["destroys"].append((int(target[i]), int(with_card[i])))
    final: dict[int, dict[int, R.Lay]] = {r: {} for r in wanted}
    for t, g, seat, placed in log.lays:
        for i, r in enumerate(g.tolist()):
            if r in wanted:
                lay = tuple((int(k), s) for s in range(R.MAX_SEQUENCES) for k in placed[i, s]
                            if k >= 0)
                if t < 0:
                    final[r][int(seat[i])] = lay
                else:
                    turn(r, t)["lay"] = lay
    seats = {}
    for t, g, seat, *_ in log.turns:
        for i, r in enumerate(g.tolist()):
            if r in wanted:
                seats[(r, t)] = int(seat[i])
    out = {}
    for r in wanted:
        records = tuple(
            R.TurnRecord(seat=seats[(r, t)], reveals=tuple(d["reveals"]), take=d["take"],
                         spoils=tuple(d["spoils"]), destroys=tuple(d["destroys"]), lay=d["lay"])
            for t, d in sorted(turns[r].items()))
        out[r] = R.GameRecord(
            n_players=config.n_players, removed=config.n_removed,
            free_discard=config.free_discard, hand_limit=config.hand_limit,
            deck=tuple(int(c) for c in decks[r]), reinsert=tuple(reinsert[r]),
            first_player=int(first[r]), turns=records,
            final_lays=tuple(final[r].get(s) for s in range(config.n_players)))
    return out


@dataclass(frozen=True)
class GameBatch:
    """Whole games: ``games`` (one row per game and seat), ``turns`` (one per player-turn).

    ``table`` is the engine's end state and ``log`` every decision; use
    :meth:`record` / :meth:`records` for the referee's replayable records.
    """

    config: R.BangoConfig
    seed: int
    game_ids: np.ndarray
    decks: np.ndarray
    first_player: np.ndarray
    reinsert: list
    table: Table
    log: Log
    games: pl.DataFrame
    turns: pl.DataFrame

    def records(self, rows=None) -> dict[int, R.GameRecord]:
        """Records of the batch rows ``rows`` (all by default), keyed by row."""
        rows = np.arange(len(self.game_ids)) if rows is None else np.asarray(rows)
        return _records(self.config, self.decks, self.first_player, self.reinsert, self.log,
                        rows)

    def record(self, i: int) -> R.GameRecord:
        """The replayable record of the batch's i-th game."""
        return self.records([i])[i]


def _first_players(entropy: int, ids: np.ndarray, n: int) -> np.ndarray:
    """BG-2: the first player, uniform over the seats."""
    u = rng.draw_per_unit(entropy, ids, STREAM_SETUP, lambda g, size: g.random(size), 99)
    return np.minimum((u * n).astype(np.int64), n - 1)


def simulate_games(config: R.BangoConfig, policies, n_games: int, seed: int = 0, *,
                   first_game: int = 0) -> GameBatch:
    """Play whole games ``first_game ..`` (BG-2..BG-8); game ``g`` depends only on (seed, g)."""
    n_games = check_count("n_games", n_games)
    first_game = check_count("first_game", first_game, low=0)
    entropy = rng.root_entropy(seed)
    dispatch = Dispatch(policies, config.n_players)
    ids = np.arange(first_game, first_game + n_games, dtype=np.int64)
    decks = rng.draw_per_unit(entropy, ids, STREAM_SHUFFLE, shuffled_decks)
    first = _first_players(entropy, ids, config.n_players)
    table, log = play_games(config, dispatch, decks, first, ids, entropy)
    turns = _turn_table(ids, log)
    n_turns = np.bincount(np.searchsorted(ids, turns["game_id"].to_numpy()),
                          minlength=n_games) if len(turns) else np.zeros(n_games, np.int64)
    games = _game_table(config, ids, first, table, n_turns)
    return GameBatch(config, entropy, ids, np.asarray(decks), first, table.reinsert, table,
                     log, games, turns)
