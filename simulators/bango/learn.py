"""Bango's learned player: stop or draw, the bango, the take and the lay distilled from the
rollout (``tapisvert learn bango``).

One net per decision for every player count (2..5). Each decision's observation is first
put in the player's own frame (:func:`view`): the players by relation to him (himself
first, then clockwise), padded to five, and the cards each opponent took face up and still
holds (``BangoObs.known``, BG-3/BG-4: the whole table saw them) summed over the opponents.
The features (:func:`common_features`, 378 numbers) are his hand, the cards he has not
seen, the opponents' face-up cards, his three sequences (values and colours) and their
points, the values that fit his game, that extend his sequences and his dead cards, per
value the cards held and unseen and which centre values fit or double his hand, the
opponents' open slots, hand sizes, face-up cards and the ends their sequences could use,
the centre by value and colour, the exact chances that the next card explodes and that it
fits given everything he has seen, the stock left and the player count.

* **draw_on** (the primary decision): 0 stop, 1 draw on (BG-3).
* **bango**: 0 no bango, 1 + c the card of the revealed value and colour c (4: black)
  (BG-5); legal: none and the colours he holds. Extra features: the revealed card, whether
  it explodes, the colours of its value he holds, whether it fits.
* **take**: 0 the heuristic's own take (the cards that fit), 1 the whole centre, 1 + v the
  single card of value v (the centre's values are distinct on a stop, BG-3): the
  rollout's own candidates, since a teacher values only the subsets it tries.
* **lay**: 0 wait, 1 lay now (BG-6), with the exact solver's best lay's gain as a feature
  and its arrangement played; BG-7's last lay stays the heuristic's (whenever it beats
  discarding the hand: exact for his own score), as do spoils and end-of-explosion
  destroys, which no continuation can start from.

The teacher is :class:`~.rollout.TurnWorld`'s rollout: every candidate of a decision played
on the same ``k`` determinized worlds to the end of the game by the heuristic at every
seat, valued by the decider's BG-8 score (``--worlds`` is ``k``). Its worlds keep what he
has seen (his hand, the centre, every face-up card, every hand size, the opponents'
face-up held cards) and deal the rest again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, NamedTuple

import numpy as np

from simulators.bango import _heuristic_kernel as compiled_heuristic
from simulators.bango import rules as R
from simulators.bango.engine import BONUS_TABLE, board_points
from simulators.bango.observations import CENTRE_SIZE, centre_counts, centre_values, per_value
from simulators.bango.policies import (
    HeuristicPolicy,
    dead_values,
    fit_values,
    fits,
)
from simulators.core.dispatch import _rows_of, forwards
from simulators.core.learn.card_play import recorded
from simulators.core.learn.policy import NetDecisions, margin_param
from simulators.core.learn.spec import Decision, LearnSpec

GAME = "bango"
DATA = Path(__file__).parent / "data"
MAX_PLAYERS = max(R.PLAYER_COUNTS)  # 5
V, C, K = R.N_VALUES, R.N_COLOURS, R.N_KINDS  # 11 values, 4 colours, 55 kinds
COUNTS = len(R.PLAYER_COUNTS)  # 2..5
N_COMMON = (3 * K + 3 * (V + C) + 2 * V + 3 * (MAX_PLAYERS - 1) + V + V * (C + 1) + 9 + COUNTS
            + 5 * V)
N_BANGO_FEATURES = N_COMMON + V + (C + 1) + 1 + (C + 1) + 1
N_TAKE_FEATURES = N_COMMON + V
N_LAY_FEATURES = N_COMMON + 3
KIND_VALUE = R.KIND_VALUE.astype(np.int64)
KIND_COLOUR = R.KIND_COLOUR.astype(np.int64)
COPIES = R.KIND_COPIES.astype(np.int64)
_BASE = HeuristicPolicy()  # the take's action 0 and the teacher's continuations


class View(NamedTuple):
    """A decision seen from the decider's seat: per-player arrays by relation (0: him, then
    clockwise), padded to five players; every field has a value per row (``n_players`` and
    ``free_discard`` too, so rows of several games and counts make one batch)."""

    seat: np.ndarray  # zeros: he is relation 0 (the heuristic's kernels read seat)
    hand: np.ndarray  # (B, 55) uint8
    centre: np.ndarray  # (B, 12) int8, -1 past centre_len
    centre_len: np.ndarray
    revealed: np.ndarray  # the card just revealed (bango), else -1
    exploded: np.ndarray
    seq_mask: np.ndarray  # (B, 5, 3) uint16
    seq_colours: np.ndarray  # (B, 5, 3, 4) int8
    n_open: np.ndarray  # (B, 5) int8
    hand_sizes: np.ndarray  # (B, 5) int16
    known_sizes: np.ndarray  # (B, 5) int16: face-up cards each still holds
    taken: np.ndarray  # (B, 55) int16: the opponents' face-up held cards, summed
    public: np.ndarray  # (B, 55) uint8
    stock_left: np.ndarray
    n_players: np.ndarray
    free_discard: np.ndarray
    base_take: np.ndarray  # (B,) uint16: the heuristic's take (take decisions), else 0

    def own(self, array: np.ndarray) -> np.ndarray:
        """The decider's slice of a per-player array (relation 0), as ``BangoObs.own``."""
        return array[:, 0]


def _by_relation(array: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(B, n, ...) per-seat values as (B, 5, ...) by relation to ``seat``, zeros past n."""
    b, n = array.shape[:2]
    index = (np.asarray(seat, np.int64)[:, None] + np.arange(n)) % n
    out = np.zeros((b, MAX_PLAYERS, *array.shape[2:]), array.dtype)
    out[:, :n] = array[np.arange(b)[:, None], index]
    return out


def view(obs, *, take: bool = False) -> View:
    """The decider's :class:`View` of an engine observation (a View is returned as is);
    ``take``: with the heuristic's take (the take decision's action 0)."""
    if isinstance(obs, View):
        return obs
    b, seat = len(obs.hand), obs.seat
    if obs.known is None:
        raise ValueError("the Bango observation has no 'known' field: the policy that "
                         "reads it must set wants_known = True")
    known = np.asarray(obs.known)  # (B, n, 55) what each seat's takes showed
    own_known = known[np.arange(b), np.asarray(seat, np.int64)]
    n = np.full(b, obs.n_players, np.int8)
    return View(np.zeros(b, np.int8), obs.hand, obs.centre, obs.centre_len, obs.revealed,
                obs.exploded, _by_relation(obs.seq_mask, seat),
                _by_relation(obs.seq_colours, seat), _by_relation(obs.n_open, seat),
                _by_relation(obs.hand_sizes, seat),
                _by_relation(known.sum(axis=2, dtype=np.int16), seat),
                known.sum(axis=1, dtype=np.int16) - own_known,  # the others' (no roll needed)
                obs.public, obs.stock_left, n, np.full(b, obs.free_discard, bool),
                _BASE.take(obs) if take else np.zeros(b, np.uint16))


_BITS = ((np.arange(1 << V)[:, None] >> np.arange(V)) & 1).astype(np.float32)


def _bits(mask: np.ndarray) -> np.ndarray:
    """(..., V) float32 0/1 of the low V bits of integer masks (a table: the batches are
    small, so the number of numpy calls is the cost)."""
    return _BITS[np.asarray(mask, np.int64) & ((1 << V) - 1)]


def unseen(v: View) -> np.ndarray:
    """(B, 55) int64: the cards he has not seen (the stock, removed cards, the opponents'
    face-down cards)."""
    return (COPIES[None, :] - v.hand - v.public.astype(np.int64) - centre_counts(v.centre)
            - v.taken)


def explosion_risk(hidden_by_value: np.ndarray, in_centre: np.ndarray) -> np.ndarray:
    """(B,) the exact chance the next card explodes: the share of the unseen cards (per
    value) whose value is already in the centre (``in_centre``, (B, 11) bool); every unseen
    card is equally likely next."""
    total = hidden_by_value.sum(axis=1)
    return np.where(total > 0, (hidden_by_value * in_centre).sum(axis=1)
                    / np.maximum(total, 1), 0.0)


def _ends(mask: np.ndarray) -> np.ndarray:
    """The values next to open sequences (value masks), per sequence."""
    m = np.asarray(mask, np.int64)
    return ((m << 1) | (m >> 1)) & ~m & ((1 << V) - 1) * (m != 0)


def _features_kernel():
    """The features' kernel module, jitted once per process (numba, ``cache=True``)."""
    from simulators.bango import _features_kernel as K
    from simulators.core.jit import jit_once

    jit_once(vars(K), K.KERNEL_NAMES)
    return K


def common_features(v: View) -> np.ndarray:
    """(B, N_COMMON) float32 (see the module docstring): :func:`common_features_by_numpy`,
    computed by a compiled pass over the rows (``_features_kernel.py``), the same bits."""
    c = np.ascontiguousarray  # each field in its own dtype: numba compiles for it, no copies
    out = np.empty((len(v.hand), N_COMMON), np.float32)
    _features_kernel()._k_common_features(
        c(v.hand), c(v.centre), c(v.centre_len), c(v.public), c(v.taken), c(v.seq_mask),
        c(v.seq_colours), c(v.n_open), c(v.hand_sizes), c(v.known_sizes), c(v.stock_left),
        c(v.n_players), c(v.free_discard), COPIES, BONUS_TABLE, out)
    return out


def common_features_by_numpy(v: View) -> np.ndarray:
    """(B, N_COMMON) float32 (see the module docstring): the features' definition, in numpy."""
    b = len(v.hand)
    hand = np.asarray(v.hand, np.float32)
    hidden = unseen(v)
    own_mask, own_col = v.seq_mask[:, 0], v.seq_colours[:, 0]
    fit, dead = fit_values(v), dead_values(v)
    cen = np.asarray(v.centre, np.int64)
    present = cen >= 0
    value = np.where(present, KIND_VALUE[np.maximum(cen, 0)], 0)
    colour = np.where(present, KIND_COLOUR[np.maximum(cen, 0)], 0)
    by_value = np.zeros((b, V + 1, C + 1), np.float32)  # the centre's card of each value
    rows = np.broadcast_to(np.arange(b)[:, None], cen.shape)
    by_value[rows[present], value[present], colour[present]] = 1.0
    fitting = fits(fit, cen).sum(axis=1)  # the heuristic's count (blacks never fit)
    others_mask = v.seq_mask[:, 1:]
    others_ends = np.bitwise_or.reduce(_ends(others_mask).reshape(b, -1), axis=1)
    own_ends = np.bitwise_or.reduce(_ends(own_mask), axis=1)
    values_in_centre = centre_values(v.centre)
    in_centre = values_in_centre & (by_value[:, 1:, :C].sum(axis=2) > 0)  # coloured ones
    held = per_value(v.hand)
    hidden_by_value = per_value(hidden)
    fit_bits = _bits(fit)
    chance_fit = (hidden_by_value * fit_bits * ~values_in_centre).sum(axis=1) \
        / np.maximum(hidden_by_value.sum(axis=1), 1)
    board = board_points(own_mask, own_col).astype(np.float32)  # his sequences' BG-8 points
    n = np.asarray(v.n_players, np.int64)
    size = hand.sum(axis=1)
    blocks = [
        hand / 2.0, hidden.astype(np.float32) / 2.0, np.asarray(v.taken, np.float32),
        _bits(own_mask).reshape(b, -1), (np.asarray(own_col, np.float32) / 11.0).reshape(b, -1),
        fit_bits, _bits(dead), _bits(own_ends), held / 2.0, hidden_by_value / 9.0,
        fit_bits * in_centre, (held > 0) * in_centre,
        np.asarray(v.n_open[:, 1:], np.float32) / 3.0,
        np.asarray(v.hand_sizes[:, 1:], np.float32) / 20.0,
        np.asarray(v.known_sizes[:, 1:], np.float32) / 10.0,
        _bits(others_ends), by_value[:, 1:].reshape(b, -1),
        np.stack([np.asarray(v.centre_len, np.float32) / 12.0,
                  np.asarray(v.stock_left, np.float32) / 99.0,
                  np.asarray(v.free_discard, np.float32),
                  explosion_risk(hidden_by_value, values_in_centre).astype(np.float32),
                  fitting / 12.0,
                  chance_fit.astype(np.float32),
                  size / 20.0, board / 30.0,
                  np.asarray(v.n_open[:, 0], np.float32) / 3.0], axis=1),
        (n[:, None] == np.array(R.PLAYER_COUNTS)).astype(np.float32),
    ]
    return np.concatenate([np.asarray(x, np.float32) for x in blocks], axis=1)


# --- draw_on -----------------------------------------------------------------------------

def draw_on_features(obs) -> np.ndarray:
    return common_features(view(obs))


def two_legal(obs) -> np.ndarray:
    """(B, 2) bool: both answers, always."""
    return np.ones((len(obs.hand), 2), bool)


def yes_action(obs, index: np.ndarray) -> np.ndarray:
    """Action 1 is yes (draw on, lay)."""
    return np.asarray(index) == 1


def yes_index(obs, answer: np.ndarray) -> np.ndarray:
    """A yes/no answer as the net's action index (1: yes)."""
    return np.asarray(answer, bool).astype(np.int64)


# --- bango -------------------------------------------------------------------------------

def _revealed_kinds(v: View) -> np.ndarray:
    """(B, 5) the kinds of the revealed card's value, colours 0..3 then black."""
    value = KIND_VALUE[np.maximum(np.asarray(v.revealed, np.int64), 0)]
    return (value - 1)[:, None] + V * np.arange(C + 1)


def bango_features(obs) -> np.ndarray:
    v = view(obs)
    revealed = np.maximum(np.asarray(v.revealed, np.int64), 0)
    value, colour = KIND_VALUE[revealed], KIND_COLOUR[revealed]
    held = np.take_along_axis(np.asarray(v.hand, np.float32), _revealed_kinds(v), axis=1)
    fits = (fit_values(v) >> (value - 1)) & 1
    extra = [np.eye(V, dtype=np.float32)[value - 1], np.eye(C + 1, dtype=np.float32)[colour],
             np.asarray(v.exploded, np.float32)[:, None], held,
             (fits * (colour != R.BLACK)).astype(np.float32)[:, None]]
    return np.concatenate([common_features(v)] + extra, axis=1)


def bango_legal(obs) -> np.ndarray:
    """(B, 6) bool: no bango, and each colour of the revealed value he holds."""
    v = view(obs)
    held = np.take_along_axis(np.asarray(v.hand), _revealed_kinds(v), axis=1) > 0
    return np.concatenate([np.ones((len(held), 1), bool), held], axis=1)


def bango_action(obs, index: np.ndarray) -> np.ndarray:
    """Action 1 + c: the revealed value's card of colour c; 0: no bango (-1)."""
    v = view(obs)
    index = np.asarray(index, np.int64)
    kinds = _revealed_kinds(v)[np.arange(len(index)), np.maximum(index - 1, 0)]
    return np.where(index > 0, kinds, -1).astype(np.int8)


def bango_index(obs, kind: np.ndarray) -> np.ndarray:
    """A bango answer (a kind or -1) as the net's action index."""
    kind = np.asarray(kind, np.int64)
    return np.where(kind >= 0, 1 + KIND_COLOUR[np.maximum(kind, 0)], 0)


# --- take --------------------------------------------------------------------------------

def _take_view(obs) -> View:
    return view(obs, take=True)


def _centre_value_positions(v: View) -> np.ndarray:
    """(B, 11) the centre position of each value, -1 where absent (values are distinct on
    a stop)."""
    cen = np.asarray(v.centre, np.int64)
    out = np.full((len(cen), V + 1), -1, np.int64)
    rows, pos = np.nonzero(cen >= 0)
    out[rows, KIND_VALUE[cen[rows, pos]]] = pos
    return out[:, 1:]


def take_features(obs) -> np.ndarray:
    v = _take_view(obs)
    where = _centre_value_positions(v)
    base = (np.asarray(v.base_take, np.int64)[:, None] >> np.maximum(where, 0)) & 1
    return np.concatenate([common_features(v), (base * (where >= 0)).astype(np.float32)],
                          axis=1)


def take_legal(obs) -> np.ndarray:
    """(B, 13) bool: the heuristic's take; the whole centre where it differs; each single
    card where it differs from both (a centre of one card has one take)."""
    v = _take_view(obs)
    base = np.asarray(v.base_take, np.int64)
    whole = (1 << np.asarray(v.centre_len, np.int64)) - 1
    where = _centre_value_positions(v)
    single = (where >= 0) & ((1 << np.maximum(where, 0)) != base[:, None]) \
        & (np.asarray(v.centre_len)[:, None] > 1)
    return np.concatenate([np.ones((len(base), 1), bool), (whole != base)[:, None], single],
                          axis=1)


def take_action(obs, index: np.ndarray) -> np.ndarray:
    """The net's take index as a centre mask (uint16)."""
    v = _take_view(obs)
    index = np.asarray(index, np.int64)
    where = _centre_value_positions(v)[np.arange(len(index)), np.clip(index - 2, 0, V - 1)]
    whole = (1 << np.asarray(v.centre_len, np.int64)) - 1
    mask = np.where(index == 0, np.asarray(v.base_take, np.int64),
                    np.where(index == 1, whole, 1 << np.maximum(where, 0)))
    return mask.astype(np.uint16)


def take_index(obs, mask: np.ndarray) -> np.ndarray:
    """A take mask (one of the net's: the heuristic's, the whole centre or one card) as the
    net's action index; -1 for any other subset."""
    v = _take_view(obs)
    mask = np.asarray(mask, np.int64)
    whole = (1 << np.asarray(v.centre_len, np.int64)) - 1
    single = (mask & (mask - 1)) == 0
    pos = np.log2(np.maximum(mask, 1)).astype(np.int64)
    card = np.asarray(v.centre, np.int64)[np.arange(len(mask)), np.minimum(pos, CENTRE_SIZE - 1)]
    one = np.where(single & (card >= 0), 1 + KIND_VALUE[np.maximum(card, 0)], -1)
    return np.where(mask == np.asarray(v.base_take), 0, np.where(mask == whole, 1, one))


# --- lay ---------------------------------------------------------------------------------

def best_lays(v: View) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact solver's best lay of each row: (gain, arrangement, the greedy count of
    cards placed). Where the greedy lay places nothing, no lay does (no held value extends
    a sequence, no two held values are consecutive, or no slot is left), so the best lay
    discards the hand (gain minus its size) without asking the solver."""
    from simulators.bango import laying

    placeable = compiled_heuristic.placeable(v)
    size = np.asarray(v.hand).sum(axis=1, dtype=np.int32)
    gain = -size
    placed = np.full((len(size), R.MAX_SEQUENCES, V), -1, np.int8)
    mask, colours = v.seq_mask[:, 0], v.seq_colours[:, 0]
    free = np.asarray(v.free_discard, bool)
    for flag in (False, True):
        rows = np.flatnonzero((free == flag) & (placeable > 0))
        if len(rows):
            best = laying.best_lays(v.hand[rows], mask[rows], colours[rows], flag)
            gain[rows], placed[rows] = best.gain, best.placed
    return gain, placed, placeable


def lay_features(obs, solved: tuple[np.ndarray, ...] | None = None) -> np.ndarray:
    v = view(obs)
    gain, _, placeable = best_lays(v) if solved is None else solved
    size = np.asarray(v.hand, np.float32).sum(axis=1)
    extra = np.stack([gain / 20.0, placeable / 11.0, (gain > -size).astype(np.float32)],
                     axis=1)
    return np.concatenate([common_features(v), extra.astype(np.float32)], axis=1)


# --- the teacher -------------------------------------------------------------------------

@dataclass(frozen=True)
class RolloutTeacher:
    """Each candidate of a decision played on ``k`` common worlds to the end of the game by
    the heuristic at every seat (:class:`~.rollout.TurnWorld`); a value is the decider's
    mean BG-8 score."""

    k: int = 32
    seed: int = 0

    def values(self, method: str, obs, rows: np.ndarray, n_actions: int, index) -> np.ndarray:
        sub = _rows_of(obs, rows, len(obs.hand))
        framed = view(sub, take=method == "take")  # once, for every candidate's index
        answer = np.asarray(getattr(_BASE, method)(sub))
        if method == "lay":
            answer = answer.astype(bool)
        actions, valid = sub.world.candidates(method, answer, 0)
        scores = sub.world.scores(actions, valid, _BASE, self.k, "game", self.seed).mean(axis=2)
        out = np.full((len(rows), n_actions), np.nan)
        r = np.arange(len(rows))
        for c in range(actions.shape[1]):
            at = np.asarray(index(framed, actions[:, c]), np.int64)
            ok = valid[:, c] & (at >= 0)
            out[r[ok], at[ok]] = scores[ok, c]
        return out


def _teacher_rows(method: str, n_actions: int, index):
    def teacher_rows(teacher, obs, rows):
        return teacher.values(method, obs, rows, n_actions, index)
    return teacher_rows


SNAPSHOT_FIELDS = View._fields[1:]


def snapshot(obs, rows: np.ndarray, *, take: bool = False) -> dict[str, np.ndarray]:
    """``rows`` of the decider's view, one column per field (trailing axes flattened)."""
    v = view(obs, take=take)
    out = {}
    for name in SNAPSHOT_FIELDS:
        value = np.asarray(getattr(v, name))[rows]
        out[name] = value.reshape(len(rows), -1) if value.ndim > 2 else value.copy()
    return out


_SHAPES = {"seq_mask": (MAX_PLAYERS, R.MAX_SEQUENCES),
           "seq_colours": (MAX_PLAYERS, R.MAX_SEQUENCES, C)}


def restore(columns: dict[str, np.ndarray]) -> View:
    """A :class:`View` read back from a snapshot's columns."""
    fields = {}
    for name in SNAPSHOT_FIELDS:
        value = np.asarray(columns[name])
        if value.dtype == object:  # parquet's list columns come back as arrays of arrays
            value = np.stack(value)
        fields[name] = value.reshape(len(value), *_SHAPES[name]) if name in _SHAPES else value
    return View(seat=np.zeros(len(fields["hand"]), np.int8), **fields)


def _decision(name, n_features, n_actions, features, legal, action, index, take=False):
    return Decision(name, n_features, n_actions, features, legal, None, action,
                    lambda obs, rows: snapshot(obs, rows, take=take), restore,
                    teacher_rows=_teacher_rows(name, n_actions, index))


DRAW_ON = _decision("draw_on", N_COMMON, 2, draw_on_features, two_legal, yes_action, yes_index)
BANGO = _decision("bango", N_BANGO_FEATURES, 1 + C + 1, bango_features, bango_legal,
                  bango_action, bango_index)
TAKE = _decision("take", N_TAKE_FEATURES, 2 + V, take_features, take_legal, take_action,
                 take_index, take=True)
LAY = _decision("lay", N_LAY_FEATURES, 2, lay_features, two_legal, yes_action, yes_index)


def teacher(worlds: int = 32, seed: int = 0) -> RolloutTeacher:
    """The rollout teacher with ``worlds`` worlds per candidate."""
    return RolloutTeacher(k=worlds, seed=seed)


@forwards("behaviour", "spoil", "destroy", "arrange", "uses_noise")
@dataclass(frozen=True, eq=False)
class RecordingPolicy:
    """The behaviour policy, each batch of a net's decision shown to the recorder first; the
    table deals the teacher's worlds (``wants_world``) and shows the face-up held cards
    (``wants_known``)."""

    behaviour: object
    recorder: object
    wants_world: ClassVar[bool] = True
    costly: ClassVar[bool] = True  # its own seats' rows only (RecordingCardPlay's reason)
    wants_known: ClassVar[bool] = True

    draw_on = recorded("draw_on")
    bango = recorded("bango")
    take = recorded("take")

    def lay_with_plan(self, obs):
        if not obs.final:  # BG-7's last lay has no continuation to value: not a net's
            self.recorder.see("lay", obs)
        return self.behaviour.lay_with_plan(obs)

    def lay(self, obs):
        return self.lay_with_plan(obs)[0]


LEARN = LearnSpec(decisions={"draw_on": DRAW_ON, "bango": BANGO, "take": TAKE, "lay": LAY},
                  teacher=teacher, recording=RecordingPolicy,
                  shipped={d: DATA / f"net_{d}.npz" for d in ("draw_on", "bango", "take", "lay")},
                  behaviour_params={"margin": 0.0},
                  teacher_doc="rollouts (simulators/bango/rollout.py): every candidate played "
                              "to the end of the game on --worlds common worlds by the "
                              "heuristic at every seat, the decider's mean BG-8 score")


@dataclass(frozen=True)
class NetPolicy(NetDecisions, HeuristicPolicy):
    """Stop or draw, the bango, the take and the lay by small nets distilled from the
    rollout (module docstring); spoils, destroys, the arrangement and BG-7's last lay as
    the heuristic."""

    LEARN: ClassVar[LearnSpec] = LEARN
    GAME: ClassVar[str] = GAME
    PRIMARY: ClassVar[str] = "draw_on"
    wants_known: ClassVar[bool] = True

    # stop or draw, the bango and the take are gated (the rollout's significance gate, as a
    # margin); 0.3 chosen on seeds 11 and 12 (docs/learning.md)
    margin: float = margin_param(0.3)

    def _by_net(self, decision: str, obs, otherwise, **how):
        if self.decision_net(decision) is None:
            return otherwise(obs)
        v = view(obs, **how)

        def own_index(rows):  # the heuristic's answer as the net's action index
            if decision == "take":  # the take's action 0 is the heuristic's own take
                return np.zeros(len(rows), np.int64)
            sub = _rows_of(obs, rows, len(v.hand))
            to_index = yes_index if decision == "draw_on" else bango_index
            return to_index(sub, otherwise(sub))

        return self.net_decides(decision, v, margin=self.margin, own_index=own_index)

    def draw_on(self, obs):
        return self._by_net("draw_on", obs, super().draw_on)

    def bango(self, obs):
        return self._by_net("bango", obs, super().bango)

    def take(self, obs):
        return self._by_net("take", obs, super().take, take=True)

    def lay(self, obs):
        return self.lay_with_plan(obs)[0]

    def lay_with_plan(self, obs):
        """BG-7's last lay as the heuristic; else the net, the solver's best lay played."""
        net = self.decision_net("lay")
        if obs.final or net is None:
            return super().lay_with_plan(obs)
        v = view(obs)
        hand = np.asarray(v.hand).sum(axis=1)
        ask = np.flatnonzero(hand > 0)
        laid = np.zeros(len(hand), bool)
        plan = np.full((len(hand), R.MAX_SEQUENCES, V), -1, np.int8)
        if len(ask):
            sub = _rows_of(v, ask, len(hand))
            solved = best_lays(sub)
            chosen = net.best(lay_features(sub, solved), np.ones((len(ask), 2), bool)) == 1
            laid[ask] = chosen
            plan[ask] = np.where(chosen[:, None, None], solved[1], -1)
        return laid, plan
