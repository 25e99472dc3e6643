"""What a Truc policy sees at each decision: batches of arrays.

A Truc policy is any object with these four methods (``policies.py`` has
complete ones). Each receives one observation whose array fields have the
batch as leading axis and returns one array with one action per row:

===================  ==============  ===============================================
method               observation     returns (per row)
===================  ==============  ===============================================
``call(obs)``        :class:`CallObs`  bool: ``True`` asks for new cards (TR-2)
``propose(obs)``     :class:`PlayObs`  bool: ``True`` proposes ``obs.proposal`` (TR-4/5)
``answer(obs)``      :class:`PlayObs`  int8 ``REFUSE`` 0, ``ACCEPT`` 1 or ``COUNTER`` 2
``play(obs)``        :class:`PlayObs`  int8 card index, one of ``obs.hand`` (TR-3)
===================  ==============  ===============================================

The engine asks ``propose`` only where a proposal is legal (TR-5: it must
raise the stake), ``answer`` only where the opponent proposed, and checks
every action, raising :class:`~simulators.core.dispatch.IllegalAction` on a
bad one. ``COUNTER`` is legal only where ``obs.counter > 0``. Rows already
finished are never asked.

Conventions: hands are uint32 bitmasks (bit ``c`` = card ``c``, see
``rules.py``); cards are int8 indices, -1 for none; "my"/"opp" are from the
deciding player's point of view. ``noise`` is a float32 array of uniforms in
[0, 1) when the policy sets ``uses_noise = True``, else ``None``; it is the
policy's only randomness, so a policy is a pure function of (observation,
noise): the solver evaluates shipped policies on single information sets by
building observations of batch size 1.

:class:`PlayObs` fields and what they mean in each of the three methods:

=================  ============  =====================================================
field              dtype/shape   meaning
=================  ============  =====================================================
``hand``           uint32 (N,)   cards still in the decider's hand
``seat``           int8 (N,)     decider's seat (0 or 1)
``is_dealer``      bool (N,)     decider is the dealer (the non-dealer leads trick 0)
``trick``          int scalar    current trick 0..2
``position``       int scalar    0: the card about to be played leads the trick; 1: replies
``to_play``        bool scalar   the decider plays the next card (``propose``, ``play``,
                                 and ``answer`` to a counter-banco); False when answering
                                 the opponent's proposal before the opponent's card
``table``          int8 (N,)     card already played in this trick (-1 when position 0)
``my_cards``       int8 (N,3)    decider's card in each trick (-1 not yet played)
``opp_cards``      int8 (N,3)    opponent's card in each trick (-1 not yet played)
``results``        int8 (N,3)    each trick for the decider: UNPLAYED 0, WON 1, LOST 2,
                                 POURRI 3 (pourri tricks not yet awarded, TR-3)
``i_led``          bool (N,3)    the decider led that trick (valid for tricks reached)
``stakes``         int8 (N,6)    stake in force when each card slot (2*trick+position)
                                 was played, after that slot's proposal; 0 not yet played
``stake``          int8 (N,)     current stake (TR-4), before the pending proposal
``proposal``       int8 (N,)     ``propose``: the stake a proposal would name,
                                 min(2*stake, target - my_score) (TR-5); ``answer``: the
                                 stake proposed to the decider; ``play``: 0
``banco``          bool (N,)     ``proposal`` is a banco (less than double, TR-5)
``counter``        int8 (N,)     ``answer``: the counter-banco stake the decider may
                                 name (target - my_score), 0 where not allowed; else 0
``countering``     bool scalar   ``answer``: the decider made the proposal and the
                                 opponent answered with a counter-banco of ``proposal``
``my_score``       int8 (N,)     decider's manche score before this deal
``opp_score``      int8 (N,)     opponent's manche score before this deal
``target``         int scalar    points that win a manche (12)
``discarded``      uint32 (N,)   decider's own hands given back at the card call (TR-2)
``noise``          float32 (N,)  uniforms, or None
``played``         uint32 (N,)   every card played in this deal so far (optional: None
                                 means "derive it from my_cards and opp_cards")
``asked``          bool (N,)     the non-dealer asked for new cards on the hand being
                                 played, and the dealer kept (TR-2; public). Optional:
                                 None means no card call (the first hands were kept)
=================  ============  =====================================================

Cards the decider has *seen* are ``hand | discarded`` and the played cards;
every other card is unseen (the opponent's discards are never shown).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

POLICY_METHODS = ("call", "propose", "answer", "play")
"""The decision methods every policy has (the table above), in the order of a deal."""


class CallObs(NamedTuple):
    """One card-call turn (TR-2): play the hand held, or ask for new cards.

    ``hand_no`` (0..4) counts the hands dealt before this one; the
    non-dealer is asked first (``is_dealer`` False), the dealer only after
    the non-dealer asked. ``last_hand`` is True when the stock cannot deal
    again: if both ask now, the deal is abandoned unscored (TR-2).
    ``discarded`` holds the decider's own earlier hands of this deal.
    """

    hand: np.ndarray
    seat: np.ndarray
    is_dealer: bool
    hand_no: int
    last_hand: bool
    discarded: np.ndarray
    my_score: np.ndarray
    opp_score: np.ndarray
    target: int
    noise: np.ndarray | None


class PlayObs(NamedTuple):
    """Before a card: proposing, answering a proposal, or playing (see the module table)."""

    hand: np.ndarray
    seat: np.ndarray
    is_dealer: np.ndarray
    trick: int
    position: int
    to_play: bool
    table: np.ndarray
    my_cards: np.ndarray
    opp_cards: np.ndarray
    results: np.ndarray
    i_led: np.ndarray
    stakes: np.ndarray
    stake: np.ndarray
    proposal: np.ndarray
    banco: np.ndarray
    counter: np.ndarray
    countering: bool
    my_score: np.ndarray
    opp_score: np.ndarray
    target: int
    discarded: np.ndarray
    noise: np.ndarray | None
    played: np.ndarray | None = None
    asked: np.ndarray | None = None
