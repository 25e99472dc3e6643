"""What a Bianco Mano policy sees at each decision: batches of arrays.

A policy is any object with these methods (see ``policies.py`` for two
complete ones); each receives one observation whose array fields have the
batch as leading axis, and returns one array with one action per row:

======================  ==================  =========================================
method                  observation         returns (per row)
======================  ==================  =========================================
``first_packet(obs)``   :class:`PacketObs`  size of the first packet (BM-4, BM-5)
``bid(obs)``            :class:`BidObs`     0..3 take naming that family, 4 pass (BM-7)
``espion(obs)``         :class:`EspionObs`  uint32 mask of 2 cards set aside (BM-4, BM-6)
``call(obs)``           :class:`CallObs`    card index called (BM-6, 5 players)
``announce(obs)``       :class:`AnnounceObs` bool: announce Bianco Mano (BM-11)
``play(obs)``           :class:`PlayObs`    card index to play (BM-8)
======================  ==================  =========================================

Hands are uint32 bitmasks (bit ``c`` = card ``c``, see ``rules.py``); cards
are int8 indices; seats are int8. ``noise`` is a float64 array of uniforms in
[0, 1) when the policy sets ``uses_noise = True``, else ``None``. The engine
checks every action against the rules and raises
:class:`~simulators.bianco_mano.engine.IllegalAction` on a bad one.
Rows already finished are never asked. Scalars (``position``, ``round``,
``trick``) are the same for every row of one call.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

POLICY_METHODS = ("first_packet", "bid", "espion", "call", "announce", "play")
"""The decision methods every policy has (the table above), in the order of a deal."""


class PacketObs(NamedTuple):
    """Dealer's choice of packet order for the first distribution."""

    dealer: np.ndarray
    n_players: int
    choices: tuple[int, ...]
    noise: np.ndarray | None


class BidObs(NamedTuple):
    """One bidding turn (BM-7).

    ``hand`` holds the first distribution only; ``legal`` is a uint8 mask over
    the five bid actions (bit f: take naming family f, bit 4: pass).
    ``position`` counts from the dealer's left (0) to the dealer (n-1).
    ``bianco_mano`` tells whether the BM-11 bonus is played at this table.
    """

    hand: np.ndarray
    turned_card: np.ndarray
    seat: np.ndarray
    dealer: np.ndarray
    position: int
    round: int
    legal: np.ndarray
    n_players: int
    bianco_mano: bool
    noise: np.ndarray | None


class EspionObs(NamedTuple):
    """The taker's full hand before setting the espion aside."""

    hand: np.ndarray
    dominant: np.ndarray
    seat: np.ndarray
    n_players: int
    noise: np.ndarray | None


class CallObs(NamedTuple):
    """The 5-player call: ``legal`` masks the cards that may be called."""

    hand: np.ndarray
    espion: np.ndarray
    dominant: np.ndarray
    legal: np.ndarray
    noise: np.ndarray | None


class AnnounceObs(NamedTuple):
    """Whether to announce Bianco Mano; only ``eligible`` rows may say yes."""

    hand: np.ndarray
    dominant: np.ndarray
    eligible: np.ndarray
    noise: np.ndarray | None


class PlayObs(NamedTuple):
    """One card to play (BM-8).

    ``led_family`` and ``winning_card`` are -1 for the leader (``led_mask``
    is 0). ``dominant_mask`` and ``led_mask`` are the families' card masks
    (``FAMILY_MASK[dominant]``, precomputed for speed). ``table`` is
    the mask of cards already in this trick, ``played`` of every card played
    in the deal so far (this trick included). ``winner_is_ally`` is True when
    the player *knows* the current winner is on his side (in 5 players the
    partner is known to the others only once the called card is played).

    What everybody has seen, for players that read the whole deal (the engine
    fills these; a policy must not keep or write the arrays): ``plays``
    (tricks, n cards in play order, -1 not yet) and ``leaders`` (the seat
    that led each trick, -1 not yet); ``turned``, the turned card, which the
    taker received (BM-4..BM-6); ``called``, the card the taker called in 5
    players (-1 otherwise, BM-6); ``bonus``, whether Bianco Mano was
    announced (BM-11); ``own_espion``, the espion for the taker's rows (his
    own two cards, BM-4/BM-6) and 0 for everybody else. ``world`` ((B, n + 1):
    every seat's hand at the first card, then the espion) is None unless a
    policy asks for it (``wants_world``): a teacher labelling states by the
    deal actually dealt, never a player.
    """

    hand: np.ndarray
    legal: np.ndarray
    seat: np.ndarray
    position: int
    trick: int
    dominant: np.ndarray
    dominant_mask: np.ndarray
    led_family: np.ndarray
    led_mask: np.ndarray
    winning_card: np.ndarray
    winner_is_ally: np.ndarray
    table: np.ndarray
    played: np.ndarray
    taker: np.ndarray
    on_taker_side: np.ndarray
    n_players: int
    noise: np.ndarray | None
    plays: np.ndarray | None = None
    leaders: np.ndarray | None = None
    turned: np.ndarray | None = None
    called: np.ndarray | None = None
    bonus: np.ndarray | None = None
    own_espion: np.ndarray | None = None
    world: np.ndarray | None = None
