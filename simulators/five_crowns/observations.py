"""What a Five Crowns policy sees at each decision: batches of arrays.

A policy is any object with these methods; each receives one observation
whose array fields have the batch as leading axis and returns one action per
row. Hands are (N, 56) uint8 count vectors over canonical kinds (see
``rules.py``); kinds are int8.

=====================  ===================  ====================================
method                 observation          returns (per row)
=====================  ===================  ====================================
``draw(obs)``          :class:`DrawObs`     bool: take the discard-pile top (FC-3)
``discard(obs)``       :class:`DiscardObs`  kind to discard, held after the draw
``go_out(obs)``        :class:`GoOutObs`    bool: go out (only where ``can``)
=====================  ===================  ====================================

Optionally a policy may also implement ``draw_with_plan(obs)`` returning
``(take, plan)``: the draw decision and, for the rows that take, the kind it
will discard (a policy that evaluated the take already knows it). When every
policy at the table has it, the engine calls it instead of ``draw`` and
passes ``plan`` back in :class:`DiscardObs`; the discard is still checked.

``seen`` (N, 56) int16 counts the cards the player has seen that are in
neither his hand nor the stock: the discard pile and the cards the others
took from it and have not thrown since (players do not count through an
FC-6 reshuffle). ``world`` is None unless the policy sets ``wants_world``
(rollouts, :mod:`simulators.core.rollout`): the engine state behind the
decision, for determinized continuations.

Solitaire policies (FC-8) implement ``place(obs: PlaceObs)`` returning the
hand (0..10) and the kind to discard. ``noise`` is a float64 array of
uniforms when the policy sets ``uses_noise = True``, else ``None``. The
engine checks every action and raises ``IllegalAction`` on a bad one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

POLICY_METHODS = ("draw", "discard", "go_out")
"""The decision methods every policy has (the table above), in the order of a round."""


class DrawObs(NamedTuple):
    """Start of a turn: stock or discard? ``hand_penalty`` is the exact minimum
    penalty of the hand as it stands (FC-5); ``final`` marks a player's last
    turn after someone went out."""

    hand: np.ndarray
    hand_penalty: np.ndarray
    top: np.ndarray
    wild: int
    round_no: int
    seat: np.ndarray
    turn: int
    final: np.ndarray
    stock_left: np.ndarray
    n_players: int
    noise: np.ndarray | None
    seen: np.ndarray | None = None
    world: object | None = None


class DiscardObs(NamedTuple):
    """After the draw: which kind to discard. ``drawn`` is the card just taken;
    ``plan`` is what the policy's ``draw_with_plan`` said it would discard if
    it took the discard (-1 elsewhere), or None for policies without it."""

    hand: np.ndarray
    drawn: np.ndarray
    took_discard: np.ndarray
    plan: np.ndarray | None
    wild: int
    round_no: int
    seat: np.ndarray
    turn: int
    final: np.ndarray
    n_players: int
    noise: np.ndarray | None
    seen: np.ndarray | None = None
    world: object | None = None


class GoOutObs(NamedTuple):
    """After the discard: ``can`` rows hold a hand that melds entirely (FC-3).
    ``own_turns`` counts this player's turns in the round, this one included."""

    hand: np.ndarray
    can: np.ndarray
    wild: int
    round_no: int
    seat: np.ndarray
    own_turns: int
    n_players: int
    noise: np.ndarray | None
    world: object | None = None


class PlaceObs(NamedTuple):
    """Solitaire (FC-8): the drawn card, the 11 hands (N, 11, 56), which are closed."""

    hands: np.ndarray
    closed: np.ndarray
    drawn: np.ndarray
    stock_left: int
    noise: np.ndarray | None
