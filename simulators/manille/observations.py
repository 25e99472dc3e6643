"""What a Manille policy sees at each decision: batches of arrays.

A policy is any object with these methods (``policies.py`` has two complete
ones); each receives one observation whose array fields have the batch as
leading axis, and returns one array with one action per row:

=================  ==================  ==============================================
method             observation         returns (per row)
=================  ==================  ==============================================
``choose(obs)``    :class:`ChoiceObs`  0..3 a trump suit, 4 sans atout, 5 pass (MA-3)
``contre(obs)``    :class:`ContreObs`  bool: say contre / surcontre (MA-4)
``play(obs)``      :class:`PlayObs`    card index to play (MA-5)
=================  ==================  ==============================================

Hands are uint32 bitmasks (bit ``c`` = card ``c``, see ``rules.py``); cards
are int8 indices; seats are int8; the trump is int8, 0..3 or 4 for sans
atout. ``noise`` is a float32 array of uniforms in [0, 1) when the policy
sets ``uses_noise = True``, else ``None``. The engine checks every action
and raises :class:`~simulators.core.dispatch.IllegalAction` on a bad one.
Scalars (``passed``, ``level``, ``position``, ``trick``) are the same for
every row of one call.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

POLICY_METHODS = ("choose", "contre", "play")
"""The decision methods every policy has (the table above), in the order of a deal."""


class ChoiceObs(NamedTuple):
    """The trump choice (MA-3).

    ``passed`` is False for the dealer, True for his partner after the dealer
    passed. ``legal`` is a uint8 mask over the six actions (bit 5: pass,
    only for the dealer; bit 4: sans atout).
    """

    hand: np.ndarray
    seat: np.ndarray
    dealer: np.ndarray
    passed: bool
    legal: np.ndarray
    noise: np.ndarray | None
    sans_atout_must_beat: bool = False  # the table's rule option (MA-5)


class ContreObs(NamedTuple):
    """Whether to say contre (``level`` 1, an opponent) or surcontre (``level`` 2) (MA-4).

    ``chooser`` named ``trump``; ``order`` is 0 for the first player asked
    and 1 for the second (asked only if the first said no).
    """

    hand: np.ndarray
    seat: np.ndarray
    dealer: np.ndarray
    chooser: np.ndarray
    trump: np.ndarray
    level: int
    order: int
    noise: np.ndarray | None
    sans_atout_must_beat: bool = False  # the table's rule option (MA-5)


class PlayObs(NamedTuple):
    """One card to play (MA-5).

    ``position`` is 0 for the leader .. 3 for the last to play; ``led_suit``
    and ``winning_card`` are -1 for the leader (``led_mask`` is 0).
    ``trump_mask`` is the trump suit's cards (0 in sans atout).
    ``partner_holds`` is True when the partner's card currently wins the
    trick. ``table`` masks the cards of this trick, ``played`` every card
    played in the deal so far (this trick included). ``taking`` is True for
    the seats of the dealer's team (MA-3); ``contre_level`` is 0, 1 or 2.
    ``plays`` (tricks, 4 cards in play order, -1 not yet) and ``leaders``
    (the seat that led each trick, -1 not yet) are the deal's play so far,
    public to every player (a strong player reads voids from them); the
    engine fills them, and a policy must not keep or write them.
    ``sans_atout_must_beat`` is the table's rule option (MA-5). ``world``
    (every seat's hand as dealt, (B, 4) by seat) is None unless a policy
    asks for it (``wants_world``): a teacher labelling states by the deal
    actually dealt, never a player.
    """

    hand: np.ndarray
    legal: np.ndarray
    seat: np.ndarray
    position: int
    trick: int
    trump: np.ndarray
    trump_mask: np.ndarray
    led_suit: np.ndarray
    led_mask: np.ndarray
    winning_card: np.ndarray
    partner_holds: np.ndarray
    table: np.ndarray
    played: np.ndarray
    taking: np.ndarray
    contre_level: np.ndarray
    noise: np.ndarray | None
    plays: np.ndarray | None = None
    leaders: np.ndarray | None = None
    sans_atout_must_beat: bool = False
    world: np.ndarray | None = None
