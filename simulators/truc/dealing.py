"""Odds for a concrete hand: my three cards and my seat fixed, the other 29 cards uniform.

The question a Truc player faces first (TR-2) is whether to play the hand
dealt or ask for new cards. :func:`play_choices` deals ``n_deals`` deals in
which the player holds the given cards as the non-dealer or the dealer, at
the given manche scores, and plays **both** choices on the **same** deals
with the same policy noise: the player's first card-call answer is forced,
everything after it (the other player's call, redeals, proposals, play) is
left to the policies. Row ``i`` of both choices is the same deal, so the
difference between them is paired.

The dealer is asked only after the non-dealer asked (TR-2): deals where the
non-dealer (played by the policies) keeps his hand never put the question to
the dealer, and are *rejected* (``asked`` False) rather than counted, which
keeps the information "the non-dealer asked" honest. If too few deals
remain, :class:`DealConstraintError` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from simulators.core import cards32, rng
from simulators.core.params import check_count
from simulators.core.tables import enum_column
from simulators.truc import rules as R
from simulators.truc.engine import STREAM_NOISE, Dispatch, play_batch

STREAM_SITUATION = 10
DECISIONS = ("play", "ask")
ROLES = ("non-dealer", "dealer")
MIN_ASKED_SHARE = 0.01


DealConstraintError = cards32.DealConstraintError  # re-exported: the odds' typed failure


@dataclass(frozen=True)
class Situation:
    """What a player knows at his first card call: his cards, his seat, the scores.

    ``hand`` accepts notation, bare ranks included (``"7 8 A"``: suits never
    matter, TR-1) or card indices; ``role`` is ``"non-dealer"`` or
    ``"dealer"``; ``my_score`` and ``opp_score`` are the manche scores.
    """

    hand: tuple[int, ...]
    role: str = "non-dealer"
    my_score: int = 0
    opp_score: int = 0

    def __post_init__(self) -> None:
        hand = cards32.situation_hand(self.hand, R.HAND_SIZE, R.parse_hand, "Truc hand")
        object.__setattr__(self, "hand", hand)
        if self.role not in ROLES:
            raise DealConstraintError(f"role must be one of {', '.join(ROLES)}, "
                                      f"got {self.role!r}")
        for name in ("my_score", "opp_score"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) \
                    or not 0 <= value < R.TARGET:
                raise DealConstraintError(f"{name} must be an integer in [0, 11], got {value!r}")

    @property
    def role_index(self) -> int:
        """0 for the non-dealer, 1 for the dealer."""
        return ROLES.index(self.role)


def situation_decks(situation: Situation, entropy: int, units: np.ndarray) -> np.ndarray:
    """(N, 32) decks dealing ``situation.hand`` to the player's seat in the first hand.

    Seat 0 deals every deal here, so the non-dealer is seat 1; the player's
    three cards take positions 0-2 (non-dealer) or 3-5 (dealer) and the
    other 29 cards are a uniform permutation of the rest (TR-2).
    """
    known = np.array(situation.hand, dtype=np.int8)
    unknown = np.array([c for c in range(R.N_CARDS) if c not in situation.hand], dtype=np.int8)
    start = R.HAND_SIZE * situation.role_index
    mine = np.arange(start, start + R.HAND_SIZE)
    free = np.array([p for p in range(R.N_CARDS) if p not in mine])
    order = rng.draw_per_unit(entropy, units, STREAM_SITUATION,
                              lambda g, size: rng.permutations(g, size, len(unknown)))
    deck = np.empty((len(units), R.N_CARDS), dtype=np.int8)
    deck[:, free] = unknown[order]
    deck[:, mine] = known
    return deck


def play_choices(config: R.TrucConfig, policies, situation: Situation, n_deals: int,
                 seed: int = 0, first: int = 0) -> pl.DataFrame:
    """Both first-call answers played on the same deals ``first .. first + n_deals - 1``; one
    row per deal and answer (deal ``i`` is the same whatever the batch: chunks add up).

    Columns: ``decision`` (``play`` or ``ask``), ``deal_id``, ``asked``
    (the situation arises: always for the non-dealer; for the dealer, only
    where the non-dealer asked first), ``outcome``, ``hands_dealt``,
    ``stake``, ``won`` (the player scores the deal), ``lost`` (the other
    player does), ``net`` (the player's points minus the other's) and
    ``net_vs_play`` (``net`` minus the ``play`` answer's on the same deal).
    """
    n_deals = check_count("n_deals", n_deals)
    if not isinstance(situation, Situation):
        raise DealConstraintError("situation must be a Situation (hand, role, scores)")
    first = check_count("first", first, low=0)
    entropy = rng.root_entropy(seed)
    units = np.arange(first, first + n_deals, dtype=np.int64)
    dispatch = Dispatch(policies)  # validates the policies once, before any work
    me = 1 - situation.role_index  # seat 0 deals: the non-dealer is seat 1
    scores = np.zeros((n_deals, 2), dtype=np.int8)
    scores[:, me], scores[:, 1 - me] = situation.my_score, situation.opp_score
    base_deck = situation_decks(situation, entropy, units)
    noise = None
    if dispatch.uses_noise:
        noise = np.stack([rng.draw_per_unit(entropy, units, STREAM_NOISE,
                                            lambda g, size: rng.uniforms(g, size, 1),
                                            0, slot)[:, 0] for slot in range(R.N_DECISIONS)])
    frames = []
    for decision in DECISIONS:
        a = play_batch(config, dispatch, base_deck.copy(), np.zeros(n_deals, np.int8), scores,
                       noise, units, force=(situation.role_index, decision == "ask"))
        asked = a.calls[:, 0] == 1 if situation.role_index == 1 else np.ones(n_deals, bool)
        deltas = a.deltas.astype(np.int16)
        net = deltas[:, me] - deltas[:, 1 - me]
        frames.append(pl.DataFrame({
            "decision": decision, "deal_id": units, "asked": asked,
            "outcome": enum_column("outcome", a.outcome, R.OUTCOME_NAMES),
            "hands_dealt": np.where(a.hand_no < 0, R.MAX_HANDS, a.hand_no + 1).astype(np.int8),
            "stake": a.stake, "won": a.winner == me, "lost": a.winner == 1 - me,
            "net": net,
        }))
    if not config.card_call:
        raise DealConstraintError("the card call is off in this config (card_call=false): "
                                  "there is no choice to compare")
    asked_share = float(frames[0]["asked"].mean())
    if asked_share < MIN_ASKED_SHARE:
        raise DealConstraintError(
            f"the non-dealer asked for new cards in only {asked_share:.2%} of the deals: the "
            "dealer's question almost never arises under these policies")
    play_net = frames[0]["net"]
    frames = [f.with_columns(net_vs_play=f["net"] - play_net) for f in frames]
    return pl.concat(frames).filter(pl.col("asked"))
