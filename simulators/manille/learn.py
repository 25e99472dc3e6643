"""Manille's learned player: the card play (MA-5) distilled from PIMC (``tapisvert learn``).

The net sees one row per card to play (:func:`card_features`, suits in the canonical order
of :mod:`simulators.core.learn.cards`: the trump suit first): his hand and his legal
cards; every card each seat played so far, by relation to him (himself, the next to play
after him, his partner, the one before him); the cards of the trick in progress by who
played them; the cards nobody has shown (not in his hand, not played); the card that
holds the trick and the suit led; sans atout or not; his position in the trick; the
trick number; whether his team takes (MA-3); the contre level (MA-4); whether his
partner holds the trick; the card points on the table (MA-1); the suits each other seat
has shown it lacks (it did not follow the suit led, MA-5). The
teacher is :class:`~simulators.manille.solver.pimc.PimcPolicy`: each legal card's mean
points of his team over the worlds (MA-6 counts card points and 1 per trick), solved
double-dummy. The shipped card net was then fine-tuned on :class:`TrueDealCards` labels
of its own states (docs/learning.md). The policy ``net`` plays the cards from the shipped
weights (or a file of its own, ``weights``) and the trump choice and the contre by the
auction nets (``auction.py``; ``auction=false``: as the heuristic).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from simulators.core import double_dummy as dd
from simulators.core.dispatch import forwards
from simulators.core.learn import cards as C
from simulators.core.learn.card_play import (
    CardAndAuctionTeacher,
    NetCardPlay,
    RecordingCardPlay,
    card_of,
    card_teacher_rows,
    per_row,
    recorded,
    restore,
    snapshot,
    snapshot_fields,
    teacher_values,
)
from simulators.core.learn.policy import margin_param
from simulators.core.learn.spec import Decision, LearnSpec
from simulators.core.params import param
from simulators.manille import auction as A
from simulators.manille import rules as R
from simulators.manille.policies import HeuristicPolicy
from simulators.manille.solver import CARD_POINTS, mover_position

GAME = "manille"
DATA = Path(__file__).parent / "data"
SHIPPED = DATA / "net_card.npz"
N_BLOCKS = 11
N_CARD_FEATURES = 32 * N_BLOCKS + 4 + 1 + 4 + 8 + 1 + 3 + 1 + 1 + 3 * 4
FULL_MASK = (1 << 32) - 1
SNAPSHOT = ("hand", "legal", "seat", "trump", "position", "trick", "table", "played",
            "winning_card", "led_suit", "taking", "contre_level", "partner_holds", "plays",
            "leaders")


def _card_blocks(obs) -> np.ndarray:
    """(B, 11, 32) float32, the card columns in the table's suit order: the hand, the legal
    cards, the deal's cards each seat played by its relation to the player (0 himself,
    then 1, 2, 3 seats after him in seat numbers: play turns from seat s to s - 1, MA-5, so
    3 plays right after him and 2 is his partner), the trick in progress by relations 1..3,
    the unseen cards, the card holding the trick."""
    b = len(obs.hand)
    plays = np.asarray(obs.plays).reshape(b, 8, 4).astype(np.int64)
    leaders = np.asarray(obs.leaders).reshape(b, 8).astype(np.int64)
    me, current = np.asarray(obs.seat, np.int64), per_row(obs, "trick")
    relation = (leaders[:, :, None] - np.arange(4) - me[:, None, None]) % 4
    trick_no = np.arange(8)[None, :, None]
    shown = (plays >= 0) & (leaders[:, :, None] >= 0) & (trick_no <= current[:, None, None])
    blocks = np.zeros((b, 11, C.N_CARDS), np.float32)
    rows, t, j = np.nonzero(shown)
    blocks[rows, 2 + relation[rows, t, j], plays[rows, t, j]] = 1.0
    rows, t, j = np.nonzero(shown & (trick_no == current[:, None, None]) & (relation > 0))
    blocks[rows, 5 + relation[rows, t, j], plays[rows, t, j]] = 1.0
    blocks[:, 0], blocks[:, 1] = C.mask_bits(obs.hand), C.mask_bits(obs.legal)
    blocks[:, 9] = 1.0 - np.maximum(blocks[:, 0], C.mask_bits(obs.played))
    winning = np.asarray(obs.winning_card, np.int64)
    held = np.flatnonzero(winning >= 0)
    blocks[held, 10, winning[held]] = 1.0
    return blocks


def _voids(obs) -> np.ndarray:
    """(B, 3, 4): the suits each other seat (relations 1..3) has shown it lacks, by not
    following the suit led (MA-5), in the table's suit order."""
    b = len(obs.hand)
    plays = np.asarray(obs.plays).reshape(b, 8, 4).astype(np.int64)
    leaders = np.asarray(obs.leaders).reshape(b, 8).astype(np.int64)
    me, current = np.asarray(obs.seat, np.int64), per_row(obs, "trick")
    relation = (leaders[:, :, None] - np.arange(4) - me[:, None, None]) % 4
    led = plays[:, :, :1] % 4
    shown = (plays >= 0) & (plays[:, :, :1] >= 0) & (leaders[:, :, None] >= 0) \
        & (np.arange(8)[None, :, None] <= current[:, None, None])
    off_suit = shown & (plays % 4 != led) & (relation > 0)
    out = np.zeros((b, 4, 4), np.float32)
    rows, t, j = np.nonzero(off_suit)
    out[rows, relation[rows, t, j], led[rows, t, 0]] = 1.0
    return out[:, 1:]


def card_features(obs) -> np.ndarray:
    """(B, N_CARD_FEATURES) float32 (see the module docstring): the card blocks of
    :func:`card_features_by_numpy` written by one compiled pass over the rows (the core's
    ``write_card_blocks``), the same bits."""
    b = len(obs.hand)
    out = np.zeros((b, N_CARD_FEATURES), np.float32)
    hand = np.asarray(obs.hand).astype(np.int64)
    unseen = ~(hand | np.asarray(obs.played).astype(np.int64)) & FULL_MASK
    C.write_card_blocks(out, obs.trump, {0: hand, 1: obs.legal, 9: unseen},
                        {10: obs.winning_card}, np.reshape(obs.plays, (b, 8, 4)),
                        np.reshape(obs.leaders, (b, 8)), obs.seat, per_row(obs, "trick"),
                        n_seats=4, step=-1, played_at=2, trick_at=5)  # MA-5: s plays, s - 1 next
    _write_flags(out[:, N_BLOCKS * C.N_CARDS:], obs)
    return out


def card_features_by_numpy(obs) -> np.ndarray:
    """(B, N_CARD_FEATURES) float32: the features' definition, in numpy (the nets were
    trained on it; :func:`card_features` writes the same bits faster)."""
    b = len(obs.hand)
    out = np.zeros((b, N_CARD_FEATURES), np.float32)
    out[:, :N_BLOCKS * C.N_CARDS] = C.canonical_blocks(_card_blocks(obs), obs.trump).reshape(b, -1)
    _write_flags(out[:, N_BLOCKS * C.N_CARDS:], obs)
    return out


def _write_flags(flags: np.ndarray, obs) -> None:
    """The features after the card blocks (module docstring), into ``flags`` (B, 35) zeros."""
    trump = np.asarray(obs.trump, np.int64)
    b = len(trump)
    led = np.asarray(obs.led_suit, np.int64)
    led_canonical = np.where(led >= 0, C.CANONICAL[trump, np.maximum(led, 0)] % 4, 0)
    rows = np.arange(b)
    flags[rows[led >= 0], led_canonical[led >= 0]] = 1.0
    flags[:, 4] = trump == R.SANS_ATOUT
    flags[rows, 5 + per_row(obs, "position")] = 1.0
    flags[rows, 9 + per_row(obs, "trick")] = 1.0
    flags[:, 17] = np.asarray(obs.taking, np.float32)
    flags[rows, 18 + np.asarray(obs.contre_level, np.int64)] = 1.0
    flags[:, 21] = np.asarray(obs.partner_holds, np.float32)
    flags[:, 22] = (C.mask_bits(obs.table) @ CARD_POINTS.astype(np.float32)) / 10.0
    suit_order = C.CANONICAL[trump][:, :4] % 4  # the canonical suit of each table suit
    voids = np.zeros((b, 3, 4), np.float32)
    np.put_along_axis(voids, np.broadcast_to(suit_order[:, None, :], (b, 3, 4)), _voids(obs),
                      axis=2)
    flags[:, 23:35] = voids.reshape(b, 12)


def card_legal(obs) -> np.ndarray:
    """(B, 32) bool: the legal cards, canonical order."""
    return C.canonical(C.mask_bits(obs.legal), obs.trump) > 0


def card_teacher_values(teacher, obs, i: int) -> np.ndarray | None:
    """PIMC's mean points after each legal card of row ``i`` (canonical order, NaN where
    illegal); None where every world has one card worth playing."""
    return teacher_values(teacher.card_values(obs, i), int(obs.legal[i]), int(obs.trump[i]))


def card_action(obs, index: np.ndarray) -> np.ndarray:
    return card_of(index, obs.trump)


def card_snapshot(obs, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The rows' observation as plain arrays (``SNAPSHOT``; the play so far flattened)."""
    return snapshot({name: per_row(obs, name) if name in ("position", "trick")
                     else getattr(obs, name) for name in SNAPSHOT}, rows)


CARD = Decision("card", N_CARD_FEATURES, C.N_CARDS, card_features, card_legal,
                card_teacher_values, card_action, card_snapshot, restore,
                teacher_rows=card_teacher_rows(card_teacher_values))
CHOOSE = Decision("choose", A.N_CHOICE_FEATURES, A.N_CHOICE_ACTIONS, A.choose_features,
                  A.choose_legal, None, A.choose_action,
                  lambda obs, rows: snapshot_fields(obs, rows, A.CHOOSE_FIELDS), restore,
                  teacher_rows=lambda teacher, obs, rows: teacher.auction.choice_values(obs,
                                                                                        rows))
CONTRE = Decision("contre", A.N_CONTRE_FEATURES, 2, A.contre_features, A.contre_legal, None,
                  A.contre_action, lambda obs, rows: snapshot_fields(obs, rows, A.CONTRE_FIELDS),
                  restore,
                  teacher_rows=lambda teacher, obs, rows: teacher.auction.contre_values(obs,
                                                                                        rows))


@dataclass(frozen=True)
class TrueDealCards:
    """The card play's teacher that reads the deal actually dealt: each legal card's points
    of the player's team from there on (MA-6), solved double-dummy in the true deal, every
    row of a batch in one call. One solve per state where PIMC makes one per world, and the
    hidden hands come from the deal itself, not from uniform worlds: over many states a
    net's fit is each card's value under the behaviour's own distribution of the hidden
    cards, what a player who reads the others' play (PIMC does not) would estimate."""

    wants_world: ClassVar[bool] = True

    def card_rows(self, obs, rows: np.ndarray) -> np.ndarray:
        """(len(rows), 32) float32 values, canonical order, NaN where illegal."""
        if obs.world is None:
            raise ValueError("the true-deal teacher needs the engine's world (wants_world)")
        trick = int(per_row(obs, "trick")[0])
        played = np.asarray(obs.played, np.uint32)[rows]
        hands = np.asarray(obs.world, np.uint32)[rows] & ~played[:, None]
        trump = np.asarray(obs.trump, np.int64)[rows]
        seat = np.asarray(obs.seat, np.int64)[rows]
        plays = np.asarray(obs.plays).reshape(-1, R.N_TRICKS, R.N_SEATS)[rows, trick]
        leader = np.asarray(obs.leaders).reshape(-1, R.N_TRICKS)[rows, trick]
        pos = mover_position(hands, leader, trump, seat, plays.astype(np.int8),
                             obs.sans_atout_must_beat)
        values = dd.card_values(pos).astype(np.float32)  # -1 where illegal
        return C.canonical(np.where(values >= 0, values, np.nan), trump)


def teacher(worlds: int = 8, seed: int = 0, nets: str = "", true_deal: bool = False):
    """PIMC with ``worlds`` worlds per card decision (``true_deal``: the deal actually
    dealt, :class:`TrueDealCards`); the auction's rollouts over ``worlds`` worlds per
    decision by the card net trained in ``nets`` (a ``learn`` out-dir; empty: the shipped
    one), the heuristic making the rest of the auction."""
    from simulators.manille.solver.pimc import PimcPolicy

    card = NetPolicy(weights=str(Path(nets) / "weights-card.npz") if nets else "",
                     auction=False, margin=0.0)  # the recipe's playouts: the ungated net
    return CardAndAuctionTeacher(TrueDealCards() if true_deal else
                                 PimcPolicy(worlds=worlds, seed=seed),
                                 A.AuctionTeacher(card=card, base=HeuristicPolicy(),
                                                  worlds=worlds, seed=seed))


@forwards("behaviour")
@dataclass(frozen=True, eq=False)
class RecordingPolicy(RecordingCardPlay):
    """The behaviour policy, each batch of a net's decision shown to the recorder first."""

    choose = recorded("choose")
    contre = recorded("contre")


def regrets(config: R.ManilleConfig, policies, seed: int, first: int, count: int):
    """Deals ``first ..`` of ``seed`` played by ``policies`` and each card play's
    double-dummy regret (``solver/regret.py``): (deals, 32), NaN for forced plays."""
    from simulators.manille.engine import simulate_deals
    from simulators.manille.solver.regret import card_regrets

    batch = simulate_deals(config, policies, count, seed, first_deal=first)
    return card_regrets(batch.arrays, config.sans_atout_must_beat)[0].reshape(count, -1)


LEARN = LearnSpec(decisions={"card": CARD, "choose": CHOOSE, "contre": CONTRE},
                  teacher=teacher, recording=RecordingPolicy,
                  behaviour_params={"margin": 0.0},  # DAgger: the student's own choices
                  shipped={"card": SHIPPED, "choose": DATA / "net_choose.npz",
                           "contre": DATA / "net_contre.npz"}, regrets=regrets,
                  teacher_doc="card: PIMC (simulators/manille/solver/pimc.py), each legal "
                              "card's mean points of the player's team over sampled worlds "
                              "solved double-dummy; choose, contre: each option played out "
                              "by the card net over worlds consistent with the auction "
                              "(simulators/manille/auction.py)")


@dataclass(frozen=True)
class NetPolicy(NetCardPlay, HeuristicPolicy):
    """Cards played by a small net distilled from PIMC (module docstring); the trump choice
    and the contre by the auction nets (``auction.py``) when ``auction`` and their weights
    are found (shipped, or beside ``weights``), else the heuristic's."""

    margin: float = margin_param(0.5)  # chosen on seeds 11 and 12 (docs/learning.md)
    auction: bool = param(True, doc="the trump choice and the contre by the auction nets "
                                     "when found; false: the heuristic's")

    def choose(self, obs):
        return self.net_decides("choose", obs, super().choose)

    def contre(self, obs):
        return self.net_decides("contre", obs, super().contre)

    LEARN: ClassVar[LearnSpec] = LEARN
    GAME: ClassVar[str] = GAME
