"""Bianco Mano's learned player: the card play (BM-8) distilled from PIMC, at 3, 4 and 5
players (``tapisvert learn``).

One net for every player count. It sees one row per card to play (:func:`card_features`,
families in the canonical order of :mod:`simulators.core.learn.cards`: the dominant family
first, BM-1): his hand and his legal cards; every card each seat played so far, by
relation to him (0 himself, then 1..4 seats after him: play turns clockwise, BM-8); the
trick in progress by who played it; the cards nobody has shown; the card holding the
trick; the turned card (BM-4..BM-6, everybody saw it), the called card (5 players,
BM-6), his own espion if he took (BM-4, BM-6); the player count, his position in the
trick, the trick number, the family led, whether he is on the taker's side, whether he
took, where the taker sits, whether the trick's holder is known to be his ally, the bonus
announced (BM-11) and the points on the table. The teacher is
:class:`~simulators.bianco_mano.solver.pimc.PimcPolicy`: each legal card's mean BM-10
score change over the worlds, plus a thousandth of the side's mean points (its
tie-break).

The bidding (BM-7: take or pass in each round, the family named in round 2), the espion
(BM-4, BM-6) and the called card (BM-6) are nets too (:mod:`simulators.bianco_mano.auction`),
taught by rollouts of the card net. The policy ``net`` plays each net it finds (shipped,
or beside the card weights as ``weights-<decision>.npz``; ``auction=false`` leaves them
to the heuristic); the bonus announcement is the heuristic's (announcing never costs).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import ClassVar

import numpy as np

from simulators.bianco_mano import auction as A
from simulators.bianco_mano import rules as R
from simulators.bianco_mano.policies import HeuristicPolicy
from simulators.bianco_mano.solver import card_points
from simulators.core.dispatch import forwards
from simulators.core.learn import cards as C
from simulators.core.learn.card_play import (
    CardAndAuctionTeacher,
    NetCardPlay,
    RecordingCardPlay,
    card_of,
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

GAME = "bianco-mano"
DATA = Path(__file__).parent / "data"
SHIPPED = DATA / "net_card.npz"
MAX_SEATS, MAX_TRICKS = 5, max(R.HAND_SIZE.values())
N_BLOCKS = 2 + MAX_SEATS + (MAX_SEATS - 1) + 5
N_FLAGS = 3 + MAX_SEATS + MAX_TRICKS + 4 + 1 + 1 + MAX_SEATS + 1 + 1 + 1
N_CARD_FEATURES = N_BLOCKS * C.N_CARDS + N_FLAGS
# the blocks after the hand, the legal cards, the play and the trick: the unseen cards, then
# the card holding the trick, the turned card, the called one, the espion
_UNSEEN_BLOCK = 2 + MAX_SEATS + (MAX_SEATS - 1)
FULL_MASK = (1 << 32) - 1
SNAPSHOT = ("hand", "legal", "seat", "dominant", "position", "trick", "table", "played",
            "winning_card", "led_family", "winner_is_ally", "taker", "on_taker_side",
            "n_players", "plays", "leaders", "turned", "called", "bonus", "own_espion")


def _padded_play(obs) -> tuple[np.ndarray, np.ndarray]:
    """The play so far as (B, MAX_TRICKS, MAX_SEATS) cards and (B, MAX_TRICKS) leaders, -1
    padded, whatever the player count (a snapshot keeps them so, to mix counts)."""
    b = len(obs.hand)
    plays = np.asarray(obs.plays).astype(np.int64)
    leaders = np.asarray(obs.leaders).astype(np.int64).reshape(b, -1)
    if plays.ndim == 2:  # a snapshot: already padded
        return plays.reshape(b, MAX_TRICKS, MAX_SEATS), leaders
    out = np.full((b, MAX_TRICKS, MAX_SEATS), -1, np.int64)
    out[:, :plays.shape[1], :plays.shape[2]] = plays
    lead = np.full((b, MAX_TRICKS), -1, np.int64)
    lead[:, :leaders.shape[1]] = leaders
    return out, lead


def _card_blocks(obs) -> np.ndarray:
    """(B, N_BLOCKS, 32) float32 card columns in the table's family order (module
    docstring)."""
    b = len(obs.hand)
    n = per_row(obs, "n_players")
    plays, leaders = _padded_play(obs)
    me, current = np.asarray(obs.seat, np.int64), per_row(obs, "trick")
    relation = (leaders[:, :, None] + np.arange(MAX_SEATS) - me[:, None, None]) % n[:, None, None]
    trick_no = np.arange(MAX_TRICKS)[None, :, None]
    shown = (plays >= 0) & (leaders[:, :, None] >= 0) & (trick_no <= current[:, None, None])
    blocks = np.zeros((b, N_BLOCKS, C.N_CARDS), np.float32)
    rows, t, j = np.nonzero(shown)
    blocks[rows, 2 + relation[rows, t, j], plays[rows, t, j]] = 1.0
    rows, t, j = np.nonzero(shown & (trick_no == current[:, None, None]) & (relation > 0))
    blocks[rows, 1 + MAX_SEATS + relation[rows, t, j], plays[rows, t, j]] = 1.0
    k = _UNSEEN_BLOCK
    espion = C.mask_bits(per_row(obs, "own_espion", 0))
    blocks[:, 0], blocks[:, 1] = C.mask_bits(obs.hand), C.mask_bits(obs.legal)
    blocks[:, k] = 1.0 - np.maximum(np.maximum(blocks[:, 0], C.mask_bits(obs.played)), espion)
    for offset, name in ((1, "winning_card"), (2, "turned"), (3, "called")):
        card = per_row(obs, name)
        held = np.flatnonzero(card >= 0)
        blocks[held, k + offset, card[held]] = 1.0
    blocks[:, k + 4] = espion
    return blocks


def card_features(obs) -> np.ndarray:
    """(B, N_CARD_FEATURES) float32 (see the module docstring): the card blocks of
    :func:`card_features_by_numpy` written by one compiled pass over the rows (the core's
    ``write_card_blocks``), the same bits."""
    b = len(obs.hand)
    out = np.zeros((b, N_CARD_FEATURES), np.float32)
    plays, leaders = _padded_play(obs)
    hand = np.asarray(obs.hand).astype(np.int64)
    espion = per_row(obs, "own_espion", 0)
    unseen = ~(hand | np.asarray(obs.played).astype(np.int64) | espion) & FULL_MASK
    k = _UNSEEN_BLOCK
    C.write_card_blocks(
        out, obs.dominant, {0: hand, 1: obs.legal, k: unseen, k + 4: espion},
        {k + 1: per_row(obs, "winning_card"), k + 2: per_row(obs, "turned"),
         k + 3: per_row(obs, "called")}, plays, leaders, obs.seat, per_row(obs, "trick"),
        n_seats=per_row(obs, "n_players"), step=1, played_at=2,
        trick_at=1 + MAX_SEATS)  # BM-8: play turns clockwise, up the seat numbers
    _write_flags(out[:, N_BLOCKS * C.N_CARDS:], obs)
    return out


def card_features_by_numpy(obs) -> np.ndarray:
    """(B, N_CARD_FEATURES) float32: the features' definition, in numpy (the nets were
    trained on it; :func:`card_features` writes the same bits faster)."""
    b = len(obs.hand)
    out = np.zeros((b, N_CARD_FEATURES), np.float32)
    out[:, :N_BLOCKS * C.N_CARDS] = C.canonical_blocks(_card_blocks(obs),
                                                       obs.dominant).reshape(b, -1)
    _write_flags(out[:, N_BLOCKS * C.N_CARDS:], obs)
    return out


def _write_flags(flags: np.ndarray, obs) -> None:
    """The features after the card blocks (module docstring), into ``flags`` (B, N_FLAGS)
    zeros."""
    dominant = np.asarray(obs.dominant, np.int64)
    b = len(dominant)
    rows = np.arange(b)
    n, taker = per_row(obs, "n_players"), per_row(obs, "taker")
    seat = np.asarray(obs.seat, np.int64)
    flags[rows, n - 3] = 1.0
    flags[rows, 3 + per_row(obs, "position")] = 1.0
    flags[rows, 3 + MAX_SEATS + per_row(obs, "trick")] = 1.0
    at = 3 + MAX_SEATS + MAX_TRICKS
    led = per_row(obs, "led_family")
    led_canonical = C.CANONICAL[dominant, np.maximum(led, 0)] % 4
    flags[rows[led >= 0], at + led_canonical[led >= 0]] = 1.0
    flags[:, at + 4] = np.asarray(obs.on_taker_side, np.float32)
    flags[:, at + 5] = seat == taker
    flags[rows, at + 6 + (taker - seat) % n] = 1.0
    at += 6 + MAX_SEATS
    flags[:, at] = np.asarray(obs.winner_is_ally, np.float32)
    flags[:, at + 1] = per_row(obs, "bonus", 0)
    points = card_points(dominant).astype(np.float32)  # (B, 32): BM-1
    flags[:, at + 2] = (C.mask_bits(obs.table) * points).sum(axis=1) / 10.0


def card_legal(obs) -> np.ndarray:
    """(B, 32) bool: the legal cards, canonical order."""
    return C.canonical(C.mask_bits(obs.legal), obs.dominant) > 0


def card_teacher_values(teacher, obs, i: int) -> np.ndarray | None:
    """PIMC's value of each legal card of row ``i`` (canonical order, NaN where illegal);
    None where every world has one card worth playing."""
    return teacher_values(teacher.card_values(obs, i), int(obs.legal[i]), int(obs.dominant[i]))


def card_action(obs, index: np.ndarray) -> np.ndarray:
    return card_of(index, obs.dominant)


def card_snapshot(obs, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The rows' observation as plain arrays (``SNAPSHOT``; the play so far padded to five
    seats and flattened, so player counts mix)."""
    plays, leaders = _padded_play(obs)
    fields = {}
    for name in SNAPSHOT:
        value = {"plays": plays, "leaders": leaders}.get(name, getattr(obs, name))
        fields[name] = (per_row(obs, name, 0 if name in ("bonus", "own_espion") else -1)
                        if value is None or np.ndim(value) == 0 else value)
    return snapshot(fields, rows)


CARD = Decision("card", N_CARD_FEATURES, C.N_CARDS, card_features, card_legal,
                card_teacher_values, card_action, card_snapshot, restore)
BID = Decision("bid", A.N_BID_FEATURES, A.N_BID_ACTIONS, A.bid_features, A.bid_legal, None,
               A.bid_action, A.bid_snapshot, A.bid_restore,
               teacher_rows=lambda teacher, obs, rows: teacher.auction.bid_values(obs, rows))
ESPION = Decision("espion", A.N_ESPION_FEATURES, A.N_PAIRS, A.espion_features, A.espion_legal,
                  None, A.espion_action, partial(snapshot_fields, fields=A.ESPION_FIELDS),
                  restore, teacher_rows=lambda teacher, obs, rows:
                  teacher.auction.espion_values(obs, rows))
CALL = Decision("call", A.N_CALL_FEATURES, C.N_CARDS, A.call_features, A.call_legal, None,
                A.call_action, partial(snapshot_fields, fields=A.CALL_FIELDS), restore,
                teacher_rows=lambda teacher, obs, rows: teacher.auction.call_values(obs, rows))


def teacher(worlds: int = 8, seed: int = 0, nets: str = "", true_deal: bool = False):
    """PIMC with ``worlds`` worlds per card (``true_deal``: the deal actually dealt,
    :class:`~simulators.bianco_mano.solver.pimc.TrueDealCards`); the bidding's rollouts over
    ``worlds`` worlds per bid by the card net trained in ``nets`` (a ``learn`` out-dir;
    empty: the shipped one), the heuristic making every other decision."""
    from simulators.bianco_mano.solver.pimc import PimcPolicy, TrueDealCards

    card = NetPolicy(weights=str(Path(nets) / "weights-card.npz") if nets else "",
                     auction=False, margin=0.0)  # the recipe's playouts: the ungated net
    return CardAndAuctionTeacher(TrueDealCards() if true_deal else
                                 PimcPolicy(worlds=worlds, seed=seed),
                                 A.AuctionTeacher(card=card, base=HeuristicPolicy(),
                                                  worlds=worlds, seed=seed))


@forwards("behaviour", "first_packet", "announce")
@dataclass(frozen=True, eq=False)
class RecordingPolicy(RecordingCardPlay):
    """The behaviour policy, each batch of a net's decision shown to the recorder first."""

    bid = recorded("bid")
    espion = recorded("espion")
    call = recorded("call")


def regrets(config: R.BiancoManoConfig, policies, seed: int, first: int, count: int):
    """Deals ``first ..`` of ``seed`` played by ``policies`` and each card play's
    double-dummy regret (``solver/regret.py``): (deals, tricks x players), NaN for forced
    plays and for the deals nobody took (BM-7)."""
    from simulators.bianco_mano.engine import simulate_deals
    from simulators.bianco_mano.solver.regret import card_regrets

    batch = simulate_deals(config, policies, count, seed, first_deal=first)
    return card_regrets(batch.arrays)[0].reshape(count, -1)


LEARN = LearnSpec(decisions={"card": CARD, "bid": BID, "espion": ESPION, "call": CALL},
                  teacher=teacher, recording=RecordingPolicy,
                  behaviour_params={"margin": 0.0},  # DAgger: the student's own choices
                  shipped={"card": SHIPPED, "bid": DATA / "net_bid.npz",
                           "espion": DATA / "net_espion.npz", "call": DATA / "net_call.npz"},
                  regrets=regrets,
                  teacher_doc="card: PIMC (simulators/bianco_mano/solver/pimc.py), each legal "
                              "card's mean BM-10 score change over sampled worlds solved "
                              "double-dummy, plus a thousandth of the side's mean points; bid, "
                              "espion, call: each option played out by the card net over "
                              "sampled worlds, the bids' consistent with the bidding "
                              "(simulators/bianco_mano/auction.py)")


@dataclass(frozen=True)
class NetPolicy(NetCardPlay, HeuristicPolicy):
    """Cards played by a small net distilled from PIMC (module docstring); the bids, the
    espion and the called card by their nets (``auction.py``) when ``auction`` and their
    weights are found (shipped, or beside ``weights``), else the heuristic's; the bonus is
    the heuristic's (announcing never costs, ``auction.py``)."""

    margin: float = margin_param(0.05)  # chosen on seeds 11 and 12 (docs/learning.md)
    auction: bool = param(True, doc="the bids, the espion and the call by their nets when "
                                     "found; false: the heuristic's")

    def bid(self, obs):
        return self.net_decides("bid", obs, super().bid)

    def espion(self, obs):
        return self.net_decides("espion", obs, super().espion)

    def call(self, obs):
        return self.net_decides("call", obs, super().call)

    LEARN: ClassVar[LearnSpec] = LEARN
    GAME: ClassVar[str] = GAME
    TRUMP: ClassVar[str] = "dominant"
