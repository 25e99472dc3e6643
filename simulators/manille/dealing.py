"""Odds for a concrete hand: the dealer's 8 cards fixed, the other 24 dealt uniformly.

The question a dealer faces (MA-3) is which trump to name — one of the four
suits, sans atout — or whether to pass the choice to his partner.
:func:`play_choices` deals ``n_deals`` deals in which the dealer (seat 0)
holds the given hand and the other 24 cards are dealt uniformly among the
three other players (each deal ``i`` from its own seed child, as
everywhere), then plays **every** choice on the **same** deals with the same
policy noise: the dealer's choice is forced, everything after it (the
partner's choice after a pass, contre, play) is left to the policies. Row
``i`` of every choice is the same deal, so differences between choices are
paired, and their intervals are far narrower than those of two independent
samples (``tapisvert odds manille``: :func:`analysis.odds.paired_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from simulators.core import cards32, rng
from simulators.core.dispatch import forwards
from simulators.core.params import check_count
from simulators.manille import rules as R
from simulators.manille.engine import (
    Dispatch,
    decision_noise,
    play_batch,
    turn_order_positions,
)

STREAM_SITUATION, STREAM_SITUATION_CUT = 10, 11
DECISIONS = R.DECISIONS  # MA-3: each suit, sans atout, pass to partner
DEALER_POSITION = 3  # turn order: the dealer receives last


DealConstraintError = cards32.DealConstraintError  # re-exported: the odds' typed failure


@dataclass(frozen=True)
class Situation:
    """What the dealer knows when he chooses: his 8 cards (MA-2, MA-3).

    ``hand`` accepts card notation (``"10P AP RP 9P 10C 7C AK 8T"``) or card
    indices.
    """

    hand: tuple[int, ...]

    def __post_init__(self) -> None:
        hand = cards32.situation_hand(self.hand, R.HAND_SIZE, R.parse_hand, "the dealer's hand")
        object.__setattr__(self, "hand", hand)


def parse_decision(text: str) -> int:
    """Choice action of a decision name: a suit letter, ``SA`` or ``pass``."""
    t = str(text).strip()
    if t.lower() in ("pass", "passe"):
        return R.PASS_TO_PARTNER
    try:
        return R.parse_trump(t)
    except ValueError:
        raise DealConstraintError(f"unknown decision {text!r}: expected one of "
                                  f"{', '.join(DECISIONS)}") from None


def situation_decks(situation: Situation, config: R.ManilleConfig, entropy: int,
                    units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pre-cut decks and cuts that deal ``situation.hand`` to the dealer (seat 0)."""
    slots = turn_order_positions(config.packets)[DEALER_POSITION]
    known = np.array(situation.hand, dtype=np.int8)
    unknown = np.array([c for c in range(R.N_CARDS) if c not in situation.hand], dtype=np.int8)
    free = np.array([p for p in range(R.N_CARDS) if p not in slots])
    order = rng.draw_per_unit(entropy, units, STREAM_SITUATION,
                              lambda g, size: rng.permutations(g, size, len(unknown)))
    hand_order = rng.draw_per_unit(entropy, units, STREAM_SITUATION,
                                   lambda g, size: rng.permutations(g, size, R.HAND_SIZE), 1)
    post = np.empty((len(units), R.N_CARDS), dtype=np.int8)
    post[:, free] = unknown[order]
    post[:, slots] = known[hand_order]
    cut = rng.draw_per_unit(entropy, units, STREAM_SITUATION_CUT,
                            lambda g, size: g.integers(1, R.N_CARDS, size=size, dtype=np.int8))
    # the engine cuts deck[cut:] + deck[:cut]; undo it so the post-cut deck is `post`
    index = (np.arange(R.N_CARDS)[None, :] - cut[:, None].astype(np.intp)) % R.N_CARDS
    return np.take_along_axis(post, index, 1), cut


@forwards("inner", "contre", "play", "costly")
class _Forced:
    """Wraps the dealer's policy: his own choice is fixed, everything else delegated."""

    def __init__(self, inner, action: int):
        self.inner, self.action = inner, action
        self.uses_noise = getattr(inner, "uses_noise", False)

    def choose(self, obs):
        if obs.passed:  # the dealer's seat is never asked after passing; kept for safety
            return self.inner.choose(obs)
        return np.full(len(obs.hand), self.action, dtype=np.int8)


def play_choices(config: R.ManilleConfig, policies, situation: Situation, n_deals: int,
                 seed: int = 0, *, decisions: tuple[str, ...] = DECISIONS,
                 first: int = 0) -> pl.DataFrame:
    """Every decision played on the same deals ``first .. first + n_deals - 1``; one row per
    deal and decision (deal ``i`` is the same whatever the batch: chunks add up).

    Columns: ``decision``, ``deal_id``, ``trump`` (what was finally named),
    ``contre_level``, ``taking_points`` (tricks + cards of the dealer's team),
    ``made`` (above 34), ``draw`` (34-34), ``taking_score``,
    ``defence_score`` and ``margin`` (taking minus defence score: the
    dealer's team's net gain in game points).
    """
    n_deals = check_count("n_deals", n_deals)
    if not isinstance(situation, Situation):
        raise DealConstraintError("situation must be a Situation (the dealer's 8 cards)")
    actions = [parse_decision(d) for d in decisions]
    if not actions or len(set(actions)) != len(actions):
        raise DealConstraintError(f"decisions must be distinct and non-empty, got {decisions!r}")
    first = check_count("first", first, low=0)
    entropy = rng.root_entropy(seed)
    units = np.arange(first, first + n_deals, dtype=np.int64)
    deck, cut = situation_decks(situation, config, entropy, units)
    per_seat = list(policies) if isinstance(policies, list | tuple) else [policies] * R.N_SEATS
    if len(per_seat) != R.N_SEATS:
        raise ValueError(f"policies: expected one policy or 4 (one per seat), got {len(per_seat)}")
    Dispatch(per_seat)  # validates the policies once, before any work
    frames = []
    for action in actions:
        seats = list(per_seat)
        seats[0] = _Forced(per_seat[0], action)
        dispatch = Dispatch(seats)
        noise = decision_noise(entropy, units) if dispatch.uses_noise else None
        a = play_batch(config, dispatch, deck, cut, np.zeros(n_deals, np.int8), noise, units)
        taking_points = a.taking_card_points.astype(np.int16) + a.taking_tricks
        frames.append(pl.DataFrame({
            "decision": [R.TRUMP_CODES[action] if action < 5 else "pass"] * n_deals,
            "deal_id": units,
            "trump": pl.Series([R.TRUMP_CODES[t] for t in a.trump]),
            "contre_level": a.contre_level,
            "taking_points": taking_points,
            "made": taking_points > R.THRESHOLD,
            "draw": taking_points == R.THRESHOLD,
            "taking_score": a.taking_score.astype(np.int32),
            "defence_score": a.defence_score.astype(np.int32),
            "margin": (a.taking_score.astype(np.int32) - a.defence_score),
        }))
    return pl.concat(frames)
