"""Five Crowns' learned player: the draw and the discard distilled from the lookahead
(``tapisvert learn five-crowns``).

One net per decision for every round (1..11) and player count (2..7). The suits are put in
a canonical order per row (:func:`suit_order`: by the cards held in each suit, then which
ranks, then the unseen ones), so the net learns "the suit I hold most", not five suits; a
kind's index is ``11 * canonical suit + rank - 3``, the joker 55, as :mod:`.rules`.

* **discard** (the primary decision; :func:`discard_features`): the hand after the draw,
  the cards he has not seen (``KIND_COPIES - hand - seen``), the card drawn and whether it
  was the pile's top, for each held kind the least penalty the hand keeps without it (the
  exact solver, :mod:`.melds`: what the heuristic minimises) and how far that is above
  the least of them, the round (its wild rank), the player count, his last turn (FC-5),
  his turn. 56 actions (the kinds), legal where held.
* **draw** (:func:`draw_features`): the hand, the unseen cards, the pile's top, the hand's
  least penalty, the least penalty after taking the top and the best discard (the
  heuristic's one solver call), the stock left, the round, the count, the last turn. Two
  actions: 0 the stock, 1 the top.

The teacher is :class:`~.lookahead.LookaheadPolicy`: each action's exact expected least
penalty after the next stock card (``draw_values``, ``discard_values``; no sampling, so
``--worlds`` is read and ignored). Going out stays the heuristic's: going out scores 0,
the least there is (FC-5), and the heuristic goes out at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from simulators.core.dispatch import forwards
from simulators.core.learn.card_play import per_row, recorded, restore, snapshot_fields
from simulators.core.learn.policy import NetDecisions
from simulators.core.learn.spec import Decision, LearnSpec
from simulators.five_crowns import melds
from simulators.five_crowns import rules as R
from simulators.five_crowns.lookahead import unseen_cards
from simulators.five_crowns.policies import HeuristicPolicy, removals

GAME = "five-crowns"
DATA = Path(__file__).parent / "data"
K = R.N_KINDS  # 56
ROUNDS = R.N_ROUNDS  # 11
COUNTS = len(R.PLAYER_COUNTS)  # 2..7
N_DISCARD_FEATURES = 6 * K + 4 + ROUNDS + COUNTS
N_DRAW_FEATURES = 3 * K + 6 + ROUNDS + COUNTS
DRAW_FIELDS = ("hand", "seen", "top", "hand_penalty", "final", "stock_left", "seat", "wild",
               "round_no", "turn", "n_players")
DISCARD_FIELDS = ("hand", "seen", "drawn", "took_discard", "final", "seat", "wild",
                  "round_no", "turn", "n_players")
_RANK_WEIGHT = 3 ** np.arange(R.N_RANKS, dtype=np.int64)  # a suit's copies held, base 3


def unseen(obs) -> np.ndarray:
    """(B, 56) int64: the copies of each kind the player has not seen (FC-1)."""
    return unseen_cards(np.asarray(obs.hand), getattr(obs, "seen", None))


def suit_order(hand: np.ndarray, hidden: np.ndarray, marked: np.ndarray | None = None
               ) -> np.ndarray:
    """(B, 5) int64: the table suit at each canonical place, the suits sorted by the cards
    held in them (most first), then by which ranks (base-3 pattern), then by the unseen
    cards' pattern, then the suit of the ``marked`` kind (the card drawn, or the pile's
    top) first; a permutation of 0..4 in every row. Suits still tied hold the same cards
    and the same unseen ones: either order gives the same features."""
    b = len(hand)
    held = hand[:, :R.N_SUITED].reshape(b, R.N_SUITS, R.N_RANKS).astype(np.int64)
    gone = hidden[:, :R.N_SUITED].reshape(b, R.N_SUITS, R.N_RANKS).astype(np.int64)
    key = (held.sum(axis=2) * 3 ** 22 + (held @ _RANK_WEIGHT) * 3 ** 11
           + gone @ _RANK_WEIGHT) * 2
    if marked is not None:
        marked = np.asarray(marked, np.int64)
        rows = np.flatnonzero(marked < R.N_SUITED)
        key[rows, marked[rows] // R.N_RANKS] += 1
    return np.argsort(-key, axis=1, kind="stable")


def kind_permutation(order: np.ndarray) -> np.ndarray:
    """(B, 56) int64: the table kind at each canonical kind index (the joker stays 55)."""
    b = len(order)
    suited = (order[:, :, None] * R.N_RANKS + np.arange(R.N_RANKS)).reshape(b, R.N_SUITED)
    return np.concatenate([suited, np.full((b, 1), R.JOKER, np.int64)], axis=1)


def _canonical(values: np.ndarray, table_kind: np.ndarray) -> np.ndarray:
    """(B, 56) per-kind values read in canonical order."""
    return np.take_along_axis(values, table_kind, axis=1)


def _one_hot(index: np.ndarray, size: int, offset: int = 0) -> np.ndarray:
    out = np.zeros((len(index), size), np.float32)
    out[np.arange(len(index)), np.asarray(index, np.int64) - offset] = 1.0
    return out


def _context(obs) -> np.ndarray:
    """The round (its wild rank, FC-2) and the player count, one-hot."""
    return np.concatenate([_one_hot(per_row(obs, "round_no"), ROUNDS, 1),
                           _one_hot(per_row(obs, "n_players"), COUNTS, R.PLAYER_COUNTS[0])],
                          axis=1)


def _layout(obs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hand, unseen) as int64 and the canonical kind permutation of each row."""
    hand = np.asarray(obs.hand, np.int64)
    hidden = unseen(obs)
    marked = getattr(obs, "drawn", None)
    marked = getattr(obs, "top", None) if marked is None else marked
    return hand, hidden, kind_permutation(suit_order(hand, hidden, marked))


def _kind_one_hot(kind: np.ndarray, table_kind: np.ndarray) -> np.ndarray:
    """(B, 56) the one kind of each row at its canonical place."""
    at = np.argmax(table_kind == np.asarray(kind, np.int64)[:, None], axis=1)
    return _one_hot(at, K)


def removal_penalties(hand: np.ndarray, wild: np.ndarray) -> np.ndarray:
    """(B, 56) int64: the least penalty of the hand without one card of each held kind (the
    exact solver, one hand per held kind), -1 where the kind is not held; ``wild`` the wild
    rank of each row."""
    rows, kinds, bases = removals(hand.astype(np.uint8))
    out = np.full(hand.shape, -1, np.int64)
    out[rows, kinds] = melds.min_penalty(bases, np.asarray(wild)[rows])
    return out


def discard_features(obs) -> np.ndarray:
    """(B, N_DISCARD_FEATURES) float32 (see the module docstring)."""
    hand, hidden, table_kind = _layout(obs)
    b = len(hand)
    after = removal_penalties(hand, per_row(obs, "wild"))
    held = after >= 0
    least = np.where(held, after, np.iinfo(np.int64).max).min(axis=1, keepdims=True)
    excess = np.where(held, np.minimum(after - least, 100), 0)
    blocks = [_canonical(hand, table_kind), _canonical(hidden, table_kind) / 2.0,
              _kind_one_hot(obs.drawn, table_kind),
              _canonical(np.where(held, after, 0), table_kind) / 100.0,
              _canonical(excess, table_kind) / 20.0,
              _canonical(held & (after == least), table_kind)]
    n = np.maximum(per_row(obs, "n_players"), 1)
    flags = np.stack([np.asarray(obs.took_discard, np.float32) * np.ones(b, np.float32),
                      np.asarray(obs.final, np.float32) * np.ones(b, np.float32),
                      per_row(obs, "turn") / n / 10.0, least[:, 0] / 100.0], axis=1)
    return np.concatenate([np.asarray(x, np.float32) for x in blocks]
                          + [flags.astype(np.float32), _context(obs)], axis=1)


def discard_legal(obs) -> np.ndarray:
    """(B, 56) bool: the held kinds, canonical order."""
    hand, _, table_kind = _layout(obs)
    return _canonical(hand, table_kind) > 0


def discard_action(obs, index: np.ndarray) -> np.ndarray:
    """The canonical kind indices back to the table's kinds (int8)."""
    _, _, table_kind = _layout(obs)
    return table_kind[np.arange(len(index)), np.asarray(index, np.int64)].astype(np.int8)


def discard_values(teacher, obs, rows: np.ndarray) -> np.ndarray:
    """The lookahead's value of each held kind of ``rows``, NaN where not held, in the
    table's kind order (the labels keep them so: :func:`values_in_net_order` reads them in
    the encoder's canonical order)."""
    from simulators.core.dispatch import _rows_of

    return teacher.discard_values(_rows_of(obs, rows, len(obs.hand)))


def values_in_net_order(obs, values: np.ndarray) -> np.ndarray:
    """Per-kind values of the table's kinds in the canonical order of each row."""
    return _canonical(values, _layout(obs)[2])


def draw_features(obs) -> np.ndarray:
    """(B, N_DRAW_FEATURES) float32 (see the module docstring)."""
    hand, hidden, table_kind = _layout(obs)
    b = len(hand)
    top = np.asarray(obs.top, np.int64)
    with_top = hand.astype(np.uint8)
    with_top[np.arange(b), top] += 1
    taken, _ = melds.best_discard(with_top, per_row(obs, "wild"))
    now = np.asarray(obs.hand_penalty, np.float32) * np.ones(b, np.float32)
    n = np.maximum(per_row(obs, "n_players"), 1)
    flags = np.stack([now / 100.0, taken / 100.0, (now - taken) / 20.0,
                      np.asarray(obs.final, np.float32) * np.ones(b, np.float32),
                      np.asarray(obs.stock_left, np.float32) / 100.0,
                      per_row(obs, "turn") / n / 10.0], axis=1)
    return np.concatenate([_canonical(hand, table_kind).astype(np.float32),
                           (_canonical(hidden, table_kind) / 2.0).astype(np.float32),
                           _kind_one_hot(top, table_kind), flags.astype(np.float32),
                           _context(obs)], axis=1)


def draw_legal(obs) -> np.ndarray:
    """(B, 2) bool: the stock and the top, always both."""
    return np.ones((len(obs.hand), 2), bool)


def draw_action(obs, index: np.ndarray) -> np.ndarray:
    """Action 1 takes the top (bool)."""
    return np.asarray(index) == 1


def draw_values(teacher, obs, rows: np.ndarray) -> np.ndarray:
    from simulators.core.dispatch import _rows_of

    return teacher.draw_values(_rows_of(obs, rows, len(obs.hand)))


DISCARD = Decision("discard", N_DISCARD_FEATURES, K, discard_features, discard_legal, None,
                   discard_action, lambda obs, rows: snapshot_fields(obs, rows, DISCARD_FIELDS),
                   restore, teacher_rows=discard_values,
                   values_in_net_order=values_in_net_order)
DRAW = Decision("draw", N_DRAW_FEATURES, 2, draw_features, draw_legal, None, draw_action,
                lambda obs, rows: snapshot_fields(obs, rows, DRAW_FIELDS), restore,
                teacher_rows=draw_values)


def teacher(worlds: int = 8, seed: int = 0):
    """The lookahead at its defaults; exact, so ``worlds`` and ``seed`` are not used."""
    from simulators.five_crowns.lookahead import LookaheadPolicy

    return LookaheadPolicy()


@forwards("behaviour", "go_out")
@dataclass(frozen=True, eq=False)
class RecordingPolicy:
    """The behaviour policy, each batch of a net's decision shown to the recorder first (no
    ``draw_with_plan``: the engine asks ``draw``, so every draw is seen)."""

    behaviour: object
    recorder: object
    costly: ClassVar[bool] = True  # its own seats' rows only (RecordingCardPlay's reason)

    draw = recorded("draw")
    discard = recorded("discard")


LEARN = LearnSpec(decisions={"discard": DISCARD, "draw": DRAW}, teacher=teacher,
                  recording=RecordingPolicy,
                  shipped={"discard": DATA / "net_discard.npz", "draw": DATA / "net_draw.npz"},
                  teacher_doc="the lookahead (simulators/five_crowns/lookahead.py): each "
                              "action's exact expected least penalty after the next stock card")


@dataclass(frozen=True)
class NetPolicy(NetDecisions, HeuristicPolicy):
    """The draw and the discard by small nets distilled from the lookahead (module
    docstring); going out as the heuristic (at once)."""

    LEARN: ClassVar[LearnSpec] = LEARN
    GAME: ClassVar[str] = GAME
    PRIMARY: ClassVar[str] = "discard"
    costly = True  # a solver call per held kind: asked about its own seats' rows only
    draw_with_plan: ClassVar[None] = None  # the engine asks draw (no plan to pass on)

    def draw(self, obs):
        return self.net_decides("draw", obs, super().draw)

    def discard(self, obs):
        return self.net_decides("discard", obs, super().discard)
