"""Bango one move at a time: one whole game as a :class:`~simulators.core.steps.StepGame`.

The unit is the engine's default unit, one whole game (``GAME.units[0]``):
the setup (BG-2), the turns of drawing, bangos, stops, explosions and lays
(BG-3..BG-6) until the last card of the deck, every player's last lay
(BG-7), and the returns are each seat's BG-8 score, as
``GAME.units[0].seat_scores`` gives them. The rules are the referee's
(:mod:`simulators.bango.referee`: ``is_explosion``, ``lay_violation``,
``apply_lay``, ``player_score``); this module only keeps the table and says
whose decision it is.

Chance moves
------------
Unless the option ``first_player`` fixes him, the first chance move draws the
first player (seat, uniform, BG-2). Then every card that leaves the deck is
one chance move, the outcome its kind 0..54 (``rules.py``), drawn when it is
drawn: the card dealt to each seat 0..n-1 (BG-2) and each card revealed
(BG-3). The ``removed`` cards are never seen and have no move: the stock is
a uniform sample of the unseen cards, so a card drawn from it is uniform
over the *unseen* cards (by kind count) — except for a black card dealt
during the setup, which is put back at a uniform position of the deck: it is
then seen and known to be in the stock. With ``S`` cards in the stock,
``B`` of them such black cards and ``U`` the unseen cards (every other card
not yet dealt or revealed), a reveal is a given put-back black card with
probability ``1 / S`` and a card of unseen kind ``k`` with probability
``(S - B) / S * U[k] / |U|`` (the rules' own law). During the deal, a black
card already put back that comes up again goes back again at a uniform
position: the deck's law is unchanged, so that draw is no move and a deal's
chance move is over the unseen cards only, ``U[k] / |U|`` (the deal's law is
the rules', with its loops left out; the game stays finite). Every black card
dealt is shown to the table (a reading: the rules put it back openly).

Decisions and their order (as the engine asks them)
---------------------------------------------------
* after each card revealed, a **bango** (BG-5), asked only if the active
  player holds a card of its value: ``BANGO + h`` (destroy it with hand
  kind ``h``) or ``PASS``;
* then **draw on or stop** (BG-3), asked unless the card exploded, the deck is
  empty (a forced stop) or the centre is empty (a forced reveal);
* on a stop, the **take** (BG-3): ``TAKE + c`` one centre card at a time, in
  ascending kind order (the set taken is what counts), then ``DONE``, legal
  once one card is taken (the take ends by itself when no card is left to
  take in that order);
* after an explosion (BG-4), the active player takes the exploding card and
  the black ones; each opponent clockwise from his left, while cards remain,
  **picks** one: ``TAKE + c`` or ``BANGO + h`` (destroys the centre card of
  ``h``'s value, BG-5: the centre's values are distinct by then); then for
  each centre card left, in order, the active player **destroys** it
  (``BANGO + h``) or keeps it (``TAKE + c``), asked only if he holds a card
  of its value; he takes the rest;
* the **lay** (BG-6): ``LAY`` or ``NO_LAY``, asked when he holds cards and
  is not forced (more than ``hand_limit`` cards: the lay is compulsory and not
  asked); BG-7's last lays, seat 0..n-1, are asked of every player holding
  cards;
* a lay's **arrangement**, slot by slot (0..2, the player's sequences in the
  order opened, new ones taking the next slots): ``SPAN + i``, the slot spans
  the values of interval ``i`` after the lay (an opened slot: an interval
  holding its values, itself for no card; a new one: 2+ values), or
  ``CLOSE``, no new sequence (a new slot only; ends the arrangement); then
  ``PLACE + k`` for each value the slot gains, ascending, asked only when the
  hand holds two or more kinds of that value. The hand cards not placed go to
  the personal discard. A span is legal only if the arrangement can still
  end legally (BG-6's compulsory placement, judged by ``referee.lay_violation``
  on the value-level arrangement: colours never change legality).

Action encoding (``num_distinct_actions`` = 227)
------------------------------------------------
========  ==============================================================
action    meaning
========  ==============================================================
0..54     ``TAKE + c``: take centre card ``c`` into the hand (a stop's take,
          an opponent's pick, the active player's keeping after an explosion)
55..109   ``BANGO + h``: destroy a centre card with hand card ``h`` of its value
110..164  ``PLACE + k``: lay hand card ``k`` at the value the slot gains next
165..219  ``SPAN + i``: the slot spans interval ``i`` of :data:`INTERVALS`
          (``(1, 2), (1, 3) .. (1, 11), (2, 3) .. (10, 11)``: ``lo < hi``)
220       ``PASS``: no bango on the card just revealed
221       ``DRAW``: reveal another card
222       ``STOP``
223       ``DONE``: take no more (the rest go to the common discard)
224       ``LAY``
225       ``NO_LAY``
226       ``CLOSE``: open no more sequence in this lay
========  ==============================================================

Tensors (every entry in [0, 1]; ``106 n + 292`` floats)
-------------------------------------------------------
The information-state tensor is the observation tensor (a game of up to a
hundred turns has no fixed-size perfect record); it holds what the rules let
a player know of the cards now. The information-state *string* is the
perfect-recall record: every public move and the cards dealt to the player.

==================  ===========================================================
block (length)      meaning
==================  ===========================================================
seat (n)            one-hot: ``p``
first (n)           one-hot: the first player, once drawn
active (n)          one-hot: the player on turn
mover (n)           one-hot: the player to decide (none at chance and the end)
phase (12)          one-hot: :data:`PHASE_NAMES`
hand (55)           ``p``'s hand, count / copies (during his arrangement: the
                    cards not placed yet)
centre (55)         the centre, count / copies
revealed (55)       one-hot: the card just revealed (while drawing)
exploded (1)        the card just revealed explodes
known (55 x n)      block ``s``: the cards seat ``s`` took face up and still
                    holds, count / copies; ``p``'s own block empty
out (55)            the face-up cards out of play (common discard, personal
                    discards, sequences), count / copies
sequences (45 x n)  per seat, per slot 0..2: 11 value bits, then its 4 colour
                    counts / 11
lay (47)            the arrangement in progress: slot one-hot (3), the values
                    placed in each slot so far (3 x 11), the value to place
                    one-hot (11)
hand sizes (n)      cards in each hand / 99
discards (n)        each seat's personal discards / 99
put back (11)       black card of value ``v`` put back and still in the stock
stock (1)           cards in the stock / 99
==================  ===========================================================
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np

from simulators.bango import referee
from simulators.bango import rules as R
from simulators.core import steps
from simulators.core.steps import CHANCE, TERMINAL, StepGame, StepGameInfo, TurnState

__all__ = ["BangoSteps", "BangoState", "TAKE", "BANGO", "PLACE", "SPAN", "PASS", "DRAW", "STOP",
           "DONE", "LAY", "NO_LAY", "CLOSE", "N_ACTIONS", "INTERVALS", "span_action",
           "PHASE_NAMES"]

TAKE = 0  # + centre kind (BG-3, BG-4)
BANGO = R.N_KINDS  # 55 + hand kind (BG-5)
PLACE = 2 * R.N_KINDS  # 110 + hand kind (BG-6)
SPAN = 3 * R.N_KINDS  # 165 + interval index (BG-6)
# BG-6: a sequence spans lo..hi, two values at least
INTERVALS = tuple((lo, hi) for lo in range(1, R.N_VALUES + 1)
                  for hi in range(lo + 1, R.N_VALUES + 1))
INTERVAL_INDEX = {interval: i for i, interval in enumerate(INTERVALS)}
PASS = SPAN + len(INTERVALS)  # 220
DRAW, STOP, DONE, LAY, NO_LAY, CLOSE = range(PASS + 1, PASS + 7)
N_ACTIONS = CLOSE + 1  # 227

FIRST, DEAL, REVEAL, BANGO_ASK, DRAW_ON, TAKING, SPOIL, DESTROY, LAY_ASK, SPANNING, PLACING, \
    OVER = range(12)
PHASE_NAMES = ("first player", "deal", "reveal", "bango", "draw on", "take", "spoil", "destroy",
               "lay", "span", "place", "over")
CHANCE_PHASES = (FIRST, DEAL, REVEAL)
CARD_SCALE = (1.0 / R.KIND_COPIES).astype(np.float32)  # a count over its most: in [0, 1]
WHOLE = float(R.N_CARDS)  # sizes and counts over the 99 cards
BLACKS = range(R.N_COLOURED_KINDS, R.N_KINDS)


def span_action(lo: int, hi: int) -> int:
    """The ``SPAN`` action of interval ``lo..hi`` (``1 <= lo < hi <= 11``)."""
    if (lo, hi) not in INTERVAL_INDEX:
        raise ValueError(f"no sequence spans {lo}..{hi}: values 1..11, at least two (BG-6)")
    return SPAN + INTERVAL_INDEX[(lo, hi)]


class BangoSteps(StepGame):
    """One Bango game, one move at a time (see the module docstring).

    ``first_player``: the seat that plays first, or -1 (default) for a first
    chance move drawing him uniformly (BG-2).
    """

    def __init__(self, config: R.BangoConfig | None = None, *, first_player: int = -1):
        self.config = steps.checked_config(config, R.BangoConfig)
        n = self.n = self.config.n_players
        self.first_player = steps.as_seat(first_player, n, name="first_player", by_chance=True)
        stock = R.N_CARDS - self.config.n_removed - n  # cards revealed in the game (BG-7)
        size = 106 * n + 292
        # chance: first player, n coloured deals, 11 black cards put back, every reveal; per
        # reveal a bango and a draw-on answer and at most one take, pick or destroy decision;
        # per turn (at most one per reveal) DONE, LAY and 4 spans; 88 coloured cards placed;
        # the last lays (a LAY and 4 spans each)
        longest = 1 + n + R.N_VALUES + stock + 3 * stock + 6 * stock + 88 + 5 * n
        self.info = StepGameInfo(
            short_name="tapisvert_bango",
            long_name=f"Bango (tapisvert, {n} players)",
            num_players=n, num_distinct_actions=N_ACTIONS, max_chance_outcomes=R.N_KINDS,
            max_game_length=longest,
            # BG-8: every card in one's personal discard; three 11-card one-colour sequences
            min_utility=-WHOLE, max_utility=float(R.MAX_SEQUENCES * 2 * R.N_VALUES),
            observation_size=size, information_state_size=size, zero_sum=False,
            parameters=steps.game_parameters(self.config, first_player=self.first_player),
        )

    def new_initial_state(self) -> BangoState:
        return BangoState(self)


class BangoState(TurnState):
    """A Bango game in progress: the referee's table (plain lists and Counters), copied by
    :meth:`clone`; the stock's order is the chance moves', so it holds only its size."""

    UNIT = "game"
    LISTS = ("unseen", "back", "dealt", "lay_pairs", "spans", "to_place", "events", "actions")

    def __init__(self, game: BangoSteps):
        n = game.n
        self.game = game
        self.first = game.first_player
        self.phase = FIRST if self.first < 0 else DEAL
        self.table = referee.TableState(
            n, [], [Counter() for _ in range(n)], [[] for _ in range(n)], [[] for _ in range(n)],
            explosions=[0] * n, bangos=[0] * n, lays=[0] * n, blacks=[0] * n)
        self.unseen = [int(c) for c in R.KIND_COPIES]  # not dealt, revealed nor put back
        self.back: list[int] = []  # BG-2: black cards put back, still in the stock
        self.stock = R.N_CARDS - game.config.n_removed  # BG-2: the removed ones are gone
        self.dealt = [-1] * n  # the coloured card each seat was dealt (private)
        self.t = 0  # turns played
        self.revealed = -1
        self.exploded = False
        self.last_taken = -1  # the take goes in ascending kind order
        self.n_taken = 0
        self.server = 0  # the opponent picking after an explosion: active + server
        self.position = 0  # the centre card the active player is asked to destroy
        self.known = [Counter() for _ in range(n)]  # cards taken face up and still held
        self.final_seat = -1  # BG-7: the seat whose last lay is asked (-1 before)
        # the arrangement in progress (BG-6)
        self.lay_seat = -1
        self.lay_pairs: list[tuple[int, int]] = []
        self.left: Counter = Counter()  # hand cards not placed yet
        self.spans: list[tuple[int, int]] = []  # each slot's interval as the lay makes it
        self.n_old = 0  # sequences opened before this lay
        self.slot = 0
        self.to_place: list[int] = []  # values the slot gains, ascending
        self.events: list[str] = []  # the public record, for the strings
        self.actions: list[int] = []

    # ------------------------------------------------------------ whose turn

    def active(self) -> int:
        """The seat on turn: clockwise from the first player (BG-2)."""
        return (self.first + self.t) % self.game.n

    def mover(self) -> int:
        """The seat to decide in a decision phase."""
        if self.phase in (LAY_ASK, SPANNING, PLACING):
            return self.lay_seat
        if self.phase == SPOIL:
            return (self.active() + self.server) % self.game.n
        return self.active()

    def current_player(self) -> int:
        if self.phase in CHANCE_PHASES:
            return CHANCE
        return TERMINAL if self.phase == OVER else self.mover()

    def is_terminal(self) -> bool:
        return self.phase == OVER

    # ------------------------------------------------------------ legal moves

    def legal_actions(self) -> list[int]:
        phase, tb = self.phase, self.table
        if phase == BANGO_ASK:  # BG-5: a hand card of the revealed card's value
            return _bangos(tb.hands[self.active()], [self.revealed]) + [PASS]
        if phase == DRAW_ON:
            return [DRAW, STOP]
        if phase == TAKING:  # BG-3: at least one card, taken in ascending order
            later = [TAKE + c for c in sorted(tb.centre) if c > self.last_taken]
            return later + ([DONE] if self.n_taken else [])
        if phase == SPOIL:  # BG-4: one centre card, taken or destroyed (BG-5)
            return sorted([TAKE + c for c in tb.centre]
                          + _bangos(tb.hands[self.mover()], tb.centre))
        if phase == DESTROY:  # BG-5: destroy the centre card asked about, or keep it
            card = tb.centre[self.position]
            return [TAKE + card] + _bangos(tb.hands[self.active()], [card])
        if phase == LAY_ASK:
            return [LAY, NO_LAY]
        if phase == SPANNING:
            return list(self._span_actions())
        if phase == PLACING:  # BG-6: one card of the value, any colour held
            v = self.to_place[0]
            return [PLACE + k for k in sorted(self.left)
                    if self.left[k] and not R.is_black(k) and R.value_of(k) == v]
        return []

    def _span_actions(self) -> tuple[int, ...]:
        counts = _value_counts(self.left)
        return _legal_spans(self.slot, self.n_old, tuple(self.spans), counts,
                            self.game.config.free_discard)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == FIRST:
            return steps.uniform(range(self.game.n))
        if self.phase == DEAL:  # a put-back black card coming again is no move (module doc)
            return steps.by_count(self.unseen)
        if self.phase == REVEAL:
            total, s, b = sum(self.unseen), self.stock, len(self.back)
            fresh = (s - b) / s / total if total else 0.0
            return [(k, (k in self.back) / s + self.unseen[k] * fresh) for k in range(R.N_KINDS)
                    if k in self.back or self.unseen[k]]
        return []

    # ------------------------------------------------------------ moves

    def _chance(self, action: int) -> None:
        phase = self.phase
        if action not in dict(self.chance_outcomes()):
            what = "a seat" if phase == FIRST else "a card kind that can come"
            raise ValueError(f"chance outcome {action} at the {PHASE_NAMES[phase]} is not "
                             f"{what}")
        (self._first, self._deal, self._reveal)[phase](action)

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def _why(self, action: int) -> str:
        return f" ({RULING[self.phase]})"

    def _move(self, action: int) -> None:
        phase = self.phase
        self.events.append(f"{self.mover()} {self.action_to_string(self.mover(), action)}")
        if phase == BANGO_ASK:
            self._after_bango(action)
        elif phase == DRAW_ON:
            if action == DRAW:
                self.phase = REVEAL
            else:
                self._stop()
        elif phase == TAKING:
            self._take(action)
        elif phase == SPOIL:
            self._spoil(action)
        elif phase == DESTROY:
            self._destroy(action)
        elif phase == LAY_ASK:
            if action == LAY:
                self._arrange(self.lay_seat)
            else:
                self._after_lay()
        elif phase == SPANNING:
            self._span(action)
        else:
            self._place(action - PLACE)

    # -- setup (BG-2)

    def _first(self, seat: int) -> None:
        self.first = seat
        self.events.append(f"first {seat}")
        self.phase = DEAL

    def _deal(self, card: int) -> None:
        seat = sum(d >= 0 for d in self.dealt)  # BG-2: seat 0 first
        self.unseen[card] -= 1
        if R.is_black(card):  # BG-2: put back into the deck, the seat is dealt again
            self.back.append(card)
            self.events.append(f"{seat} is dealt {R.format_card(card)}, put back")
            return
        self.stock -= 1
        self.dealt[seat] = card
        self.table.hands[seat][card] += 1
        self.events.append(f"{seat} is dealt a card")
        if seat == self.game.n - 1:
            self.phase = REVEAL

    # -- drawing (BG-3, BG-5)

    def _reveal(self, card: int) -> None:
        tb, seat = self.table, self.active()
        self.stock -= 1
        if card in self.back:
            self.back.remove(card)
        else:
            self.unseen[card] -= 1
        self.exploded = referee.is_explosion(tb.centre, card)  # BG-3
        tb.centre.append(card)
        self.revealed = card
        self.events.append(f"{seat} reveals {R.format_card(card)}"
                           + (" (explodes)" if self.exploded else ""))
        if _bangos(tb.hands[seat], [card]):
            self.phase = BANGO_ASK  # BG-5: he may destroy the card just revealed
        else:
            self._after_bango(PASS)

    def _after_bango(self, action: int) -> None:
        tb = self.table
        if action != PASS:  # BG-5: the bango cancels the explosion it caused
            tb.centre.pop()
            self._play_from_hand(self.active(), action - BANGO, self.revealed)
            self.exploded = False
        if self.exploded:
            self._explode()
        elif self.stock == 0:
            self._stop()  # BG-7: the last card forces a stop
        elif not tb.centre:
            self.phase = REVEAL  # BG-3 reading: nothing to take, he reveals again
        else:
            self.phase = DRAW_ON

    def _play_from_hand(self, seat: int, card: int, target: int) -> None:
        """BG-5: ``card`` from the hand and ``target`` go to the common discard."""
        tb = self.table
        tb.hands[seat][card] -= 1
        if self.known[seat][card]:
            self.known[seat][card] -= 1
        tb.common += [target, card]
        tb.bangos[seat] += 1

    def _to_hand(self, seat: int, card: int) -> None:
        """A card taken face up (BG-3, BG-4): the table knows it is in his hand."""
        self.table.hands[seat][card] += 1
        self.table.blacks[seat] += R.is_black(card)
        self.known[seat][card] += 1

    def _stop(self) -> None:
        self.revealed, self.exploded = -1, False
        if self.table.centre:
            self.phase, self.last_taken, self.n_taken = TAKING, -1, 0
        else:  # BG-3 reading: an empty centre and an empty deck end the turn, nothing taken
            self._lay_or_end()

    def _take(self, action: int) -> None:
        tb = self.table
        if action == DONE:
            self._end_take()
            return
        card = action - TAKE
        tb.centre.remove(card)
        self._to_hand(self.active(), card)
        self.last_taken, self.n_taken = card, self.n_taken + 1
        if not any(c > card for c in tb.centre):  # nothing left to take in this order
            self._end_take()

    def _end_take(self) -> None:
        tb = self.table
        tb.common += tb.centre  # BG-3: the rest to the common discard
        tb.centre = []
        self._lay_or_end()

    # -- explosion (BG-4, BG-5)

    def _explode(self) -> None:
        tb, seat = self.table, self.active()
        tb.explosions[seat] += 1
        self.revealed, self.exploded = -1, False
        self._to_hand(seat, tb.centre.pop())  # BG-4: the exploding card
        for card in [c for c in tb.centre if R.is_black(c)]:  # and every black card
            tb.centre.remove(card)
            self._to_hand(seat, card)
        self.server = 1
        self._next_spoil()

    def _next_spoil(self) -> None:
        if self.table.centre and self.server < self.game.n:
            self.phase = SPOIL  # BG-4: clockwise from his left, while cards remain
            return
        self.position = 0
        self._next_destroy()

    def _spoil(self, action: int) -> None:
        tb, opponent = self.table, self.mover()
        if action < BANGO:
            tb.centre.remove(action - TAKE)
            self._to_hand(opponent, action - TAKE)
        else:
            card = action - BANGO
            target = next(c for c in tb.centre if R.value_of(c) == R.value_of(card))
            tb.centre.remove(target)
            self._play_from_hand(opponent, card, target)
        self.server += 1
        self._next_spoil()

    def _next_destroy(self) -> None:
        tb, hand = self.table, self.table.hands[self.active()]
        while self.position < len(tb.centre):
            if _bangos(hand, [tb.centre[self.position]]):
                self.phase = DESTROY  # BG-5: asked where he holds a card of its value
                return
            self.position += 1
        for card in tb.centre:  # BG-4: he takes what is left
            self._to_hand(self.active(), card)
        tb.centre = []
        self._lay_or_end()

    def _destroy(self, action: int) -> None:
        tb = self.table
        if action >= BANGO:
            target = tb.centre.pop(self.position)
            self._play_from_hand(self.active(), action - BANGO, target)
        else:
            self.position += 1
        self._next_destroy()

    # -- laying (BG-6, BG-7)

    def _lay_or_end(self) -> None:
        seat = self.active()
        size = sum(self.table.hands[seat].values())
        self.lay_seat = seat
        if size > self.game.config.hand_limit:
            self._arrange(seat)  # BG-6: compulsory, not asked
        elif size:
            self.phase = LAY_ASK
        else:
            self._after_lay()

    def _arrange(self, seat: int) -> None:
        self.lay_pairs, self.left = [], Counter(self.table.hands[seat])
        self.spans = [_span_of(s) for s in self.table.sequences[seat]]
        self.n_old, self.slot = len(self.spans), 0
        self._next_slot()

    def _next_slot(self) -> None:
        if self.slot == R.MAX_SEQUENCES:
            self._finish_lay()
        else:
            self.phase = SPANNING

    def _span(self, action: int) -> None:
        if action == CLOSE:
            self._finish_lay()
            return
        lo, hi = INTERVALS[action - SPAN]
        held = self.spans[self.slot] if self.slot < len(self.spans) else (0, -1)
        if self.slot < len(self.spans):
            self.spans[self.slot] = (lo, hi)
        else:
            self.spans.append((lo, hi))
        self.to_place = [v for v in range(lo, hi + 1) if not held[0] <= v <= held[1]]
        self._fill()

    def _fill(self) -> None:
        """Place the slot's values; ask the colour only where two or more are held."""
        while self.to_place:
            kinds = [k for k in self.left if self.left[k] and not R.is_black(k)
                     and R.value_of(k) == self.to_place[0]]
            if len(kinds) > 1:
                self.phase = PLACING
                return
            self._put(kinds[0])
        self.slot += 1
        self._next_slot()

    def _place(self, card: int) -> None:
        self._put(card)
        self._fill()

    def _put(self, card: int) -> None:
        self.left[card] -= 1
        self.lay_pairs.append((card, self.slot))
        self.to_place.pop(0)

    def _finish_lay(self) -> None:
        seat = self.lay_seat
        # the referee checks the arrangement (BG-6) and places the whole hand
        referee.apply_lay(self.table, seat, tuple(self.lay_pairs), self.game.config.free_discard)
        self.known[seat] = Counter()
        self.lay_pairs, self.left, self.spans, self.to_place = [], Counter(), [], []
        self._after_lay()

    def _after_lay(self) -> None:
        tb = self.table
        if self.final_seat >= 0:  # BG-7: the rest of the hand to the personal discard
            seat = self.final_seat
            tb.personal[seat] += list(tb.hands[seat].elements())
            tb.hands[seat] = Counter()
            self.known[seat] = Counter()
            self.final_seat += 1
            self._next_final()
            return
        self.t += 1
        if self.stock == 0:  # BG-7: the last card ends the game after that turn
            self.final_seat = 0
            self._next_final()
        else:
            self.phase = REVEAL

    def _next_final(self) -> None:
        tb = self.table
        while self.final_seat < self.game.n and not tb.hands[self.final_seat].total():
            self.final_seat += 1
        if self.final_seat == self.game.n:
            self.phase = OVER
        else:
            self.lay_seat, self.phase = self.final_seat, LAY_ASK  # BG-7: a choice

    # ------------------------------------------------------------ results

    def scores(self) -> list[int]:
        """Each seat's BG-8 score as the table stands."""
        tb = self.table
        return [referee.player_score(tb.sequences[s], len(tb.personal[s]))
                for s in range(self.game.n)]

    def returns(self) -> list[float]:
        if self.phase != OVER:
            return [0.0] * self.game.n
        return [float(s) for s in self.scores()]

    # ------------------------------------------------------------ views

    def observation_tensor(self, player: int) -> np.ndarray:
        player = steps.as_seat(player, self.game.n)
        n, tb = self.game.n, self.table
        started = self.phase not in (FIRST, DEAL)

        def one_hot(size: int, index: int) -> np.ndarray:
            out = np.zeros(size, np.float32)
            if index >= 0:
                out[index] = 1.0
            return out

        def cards(counter) -> np.ndarray:
            counts = np.zeros(R.N_KINDS, np.float32)
            for k, c in counter.items():
                counts[k] += c
            return counts * CARD_SCALE

        mine = self.left if self.phase in (SPANNING, PLACING) and player == self.lay_seat \
            else tb.hands[player]
        mover = self.current_player()
        known = [np.zeros(R.N_KINDS, np.float32) if s == player else cards(self.known[s])
                 for s in range(n)]
        out = Counter(tb.common)
        for s in range(n):
            out.update(tb.personal[s])
            for seq in tb.sequences[s]:
                out.update(seq)
        seqs = np.zeros((n, R.MAX_SEQUENCES, R.N_VALUES + R.N_COLOURS), np.float32)
        for s in range(n):
            for slot, seq in enumerate(tb.sequences[s]):
                for k in seq:
                    seqs[s, slot, R.value_of(k) - 1] = 1.0
                    seqs[s, slot, R.N_VALUES + R.colour_of(k)] += 1.0 / R.N_VALUES
        lay = np.zeros(R.MAX_SEQUENCES + R.MAX_SEQUENCES * R.N_VALUES + R.N_VALUES, np.float32)
        if self.phase in (SPANNING, PLACING):
            lay[self.slot] = 1.0
            for k, slot in self.lay_pairs:
                lay[R.MAX_SEQUENCES + slot * R.N_VALUES + R.value_of(k) - 1] = 1.0
            if self.to_place:
                lay[-R.N_VALUES + self.to_place[0] - 1] = 1.0
        back = np.zeros(R.N_VALUES, np.float32)
        for k in self.back:
            back[R.value_of(k) - 1] = 1.0
        return np.concatenate([
            one_hot(n, player), one_hot(n, self.first), one_hot(n, self.active() if started
                                                                 and self.phase != OVER else -1),
            one_hot(n, mover if mover >= 0 else -1), one_hot(len(PHASE_NAMES), self.phase),
            cards(mine), cards(Counter(tb.centre)), one_hot(R.N_KINDS, self.revealed),
            np.array([float(self.exploded)], np.float32), np.concatenate(known), cards(out),
            seqs.ravel(), lay,
            np.array([sum(h.values()) for h in tb.hands], np.float32) / WHOLE,
            np.array([len(p) for p in tb.personal], np.float32) / WHOLE,
            back, np.array([self.stock / WHOLE], np.float32)])

    def information_state_tensor(self, player: int) -> np.ndarray:
        return self.observation_tensor(player)  # see the module docstring

    def information_state_string(self, player: int) -> str:
        player = steps.as_seat(player, self.game.n)
        dealt = R.format_card(self.dealt[player]) if self.dealt[player] >= 0 else "-"
        return f"seat {player} | dealt {dealt} | " + "; ".join(self.events)

    def observation_string(self, player: int) -> str:
        player = steps.as_seat(player, self.game.n)
        tb = self.table
        mine = self.left if self.phase in (SPANNING, PLACING) and player == self.lay_seat \
            else tb.hands[player]
        seqs = " / ".join(R.format_sequences(tb.sequences[s]) or "-" for s in range(self.game.n))
        return (f"seat {player} first {self.first} | {PHASE_NAMES[self.phase]} | turn {self.t} | "
                f"hand {R.format_cards(sorted(mine.elements()))} | centre "
                f"{R.format_cards(tb.centre)} | sequences {seqs} | stock {self.stock}")

    def action_to_string(self, player: int, action: int) -> str:
        if player != CHANCE:
            return super().action_to_string(player, action)
        action = steps.as_action(action)
        if self.phase == FIRST:
            return f"first player {action}"
        return f"card {R.format_card(action)}" if 0 <= action < R.N_KINDS else f"?{action}"

    def _move_string(self, action: int) -> str:
        if TAKE <= action < BANGO:
            return f"take {R.format_card(action - TAKE)}"
        if BANGO <= action < PLACE:
            return f"bango with {R.format_card(action - BANGO)}"
        if PLACE <= action < SPAN:
            return f"place {R.format_card(action - PLACE)}"
        if SPAN <= action < PASS:
            lo, hi = INTERVALS[action - SPAN]
            return f"span {lo}-{hi}"
        return {PASS: "pass", DRAW: "draw", STOP: "stop", DONE: "done", LAY: "lay",
                NO_LAY: "no lay", CLOSE: "close"}.get(action, f"?{action}")

    def clone(self) -> BangoState:
        other = super().clone()
        tb = self.table
        other.table = referee.TableState(
            tb.n_players, [], [Counter(h) for h in tb.hands],
            [[list(q) for q in s] for s in tb.sequences], [list(p) for p in tb.personal],
            common=list(tb.common), removed=[], centre=list(tb.centre),
            explosions=list(tb.explosions), bangos=list(tb.bangos), lays=list(tb.lays),
            blacks=list(tb.blacks))
        other.known = [Counter(k) for k in self.known]
        other.left = Counter(self.left)
        return other


RULING = {BANGO_ASK: "BG-5", DRAW_ON: "BG-3", TAKING: "BG-3", SPOIL: "BG-4", DESTROY: "BG-5",
          LAY_ASK: "BG-6", SPANNING: "BG-6", PLACING: "BG-6"}


def _bangos(hand: Counter, targets) -> list[int]:
    """``BANGO + h`` for each kind ``h`` held of a value among ``targets`` (BG-5), ascending."""
    values = {R.value_of(c) for c in targets}
    return [BANGO + k for k in sorted(hand) if hand[k] and R.value_of(k) in values]


def _span_of(sequence) -> tuple[int, int]:
    values = [R.value_of(k) for k in sequence]
    return min(values), max(values)


def _value_counts(hand: Counter) -> tuple[int, ...]:
    """Coloured cards held per value 1..11 (black cards never enter a sequence, BG-6)."""
    counts = [0] * R.N_VALUES
    for k, c in hand.items():
        if c and not R.is_black(k):
            counts[R.value_of(k) - 1] += c
    return tuple(counts)


def _options(slot: int, n_old: int, spans: tuple, counts: tuple):
    """``(interval, counts after)`` for each interval slot ``slot`` may span (BG-6)."""
    if slot < n_old:  # an opened sequence grows only at its ends, one card a value
        lo, hi = spans[slot]
        lows, highs = [lo], [hi]
        while lows[-1] > 1 and counts[lows[-1] - 2]:
            lows.append(lows[-1] - 1)
        while highs[-1] < R.N_VALUES and counts[highs[-1]]:
            highs.append(highs[-1] + 1)
        for a in lows:
            for b in highs:
                after = list(counts)
                for v in [*range(a, lo), *range(hi + 1, b + 1)]:
                    after[v - 1] -= 1
                yield (a, b), tuple(after)
        return
    for a in range(1, R.N_VALUES):  # a new one: 2+ consecutive values held
        b = a
        while b < R.N_VALUES and counts[a - 1] and counts[b]:
            b += 1
            after = list(counts)
            for v in range(a, b + 1):
                after[v - 1] -= 1
            yield (a, b), tuple(after)


@lru_cache(maxsize=1 << 16)
def _compliant(spans: tuple, counts: tuple, free_discard: bool) -> bool:
    """BG-6's compulsory placement of an arrangement at the value level, judged by the
    referee: the sequences ``spans`` and the coloured cards ``counts`` discarded (any colour
    stands for the value: colours never change legality)."""
    sequences = [[R.kind(v, 0) for v in range(lo, hi + 1)] for lo, hi in spans]
    discards = [R.kind(v + 1, c % R.N_COLOURS) for v in range(R.N_VALUES)
                for c in range(counts[v])]
    return referee.lay_violation(discards, sequences, (), free_discard) is None


@lru_cache(maxsize=1 << 16)
def _completes(slot: int, n_old: int, spans: tuple, counts: tuple, free_discard: bool) -> bool:
    """Whether slots ``slot``.. can still be spanned into a legal arrangement (BG-6)."""
    if slot == R.MAX_SEQUENCES:
        return _compliant(spans, counts, free_discard)
    if slot >= n_old and _compliant(spans, counts, free_discard):
        return True  # CLOSE here
    return any(_completes(slot + 1, n_old, _with(spans, slot, interval), after, free_discard)
               for interval, after in _options(slot, n_old, spans, counts))


@lru_cache(maxsize=1 << 16)
def _legal_spans(slot: int, n_old: int, spans: tuple, counts: tuple,
                 free_discard: bool) -> tuple[int, ...]:
    """The SPAN actions (and CLOSE) at slot ``slot`` after which the lay can end legally."""
    legal = [span_action(*interval) for interval, after in _options(slot, n_old, spans, counts)
             if _completes(slot + 1, n_old, _with(spans, slot, interval), after, free_discard)]
    if slot >= n_old and _compliant(spans, counts, free_discard):
        legal.append(CLOSE)
    return tuple(sorted(legal))


def _with(spans: tuple, slot: int, interval: tuple[int, int]) -> tuple:
    return spans[:slot] + (interval,) + spans[slot + 1:]

