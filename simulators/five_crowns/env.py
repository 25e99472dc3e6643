"""Five Crowns one move at a time: one round as a :class:`~simulators.core.steps.StepGame`.

The unit is the engine's default unit, one round of ``config.round_no``
(``GAME.units[0]``): the cards are dealt (FC-2), the players draw and discard
in turn from the dealer's left (FC-3), a player whose hand melds may go out,
then every other player has one last turn (FC-5); an empty stock is refilled
from the shuffled discard pile (FC-6); a round where nobody goes out within
``max_turns`` turns a player ends with every hand scored. The returns are
minus each seat's penalty (FC-5), as ``GAME.units[0].seat_scores`` gives
them. The rules are the referee's (:mod:`simulators.five_crowns.referee`:
``deal_round``, ``melds_fully``, ``min_penalty``); this module only keeps
the piles and whose turn it is.

Chance moves
------------
Unless the option ``dealer`` fixes him, the first chance move draws the dealer
(seat, uniform): the ``rounds`` unit deals round ``i`` from seat ``i % n``.
Cards are dealt lazily, one chance move each, the outcome a card *kind*
0..55 (``rules.py``: the two copies of a card are alike for every rule) with
probability its count among the cards not yet seen: the deal (one card at a
time from the dealer's left), the card that starts the discard pile, each
card drawn from the stock when it is drawn, and after an FC-6 reshuffle the
new pile's top (the stock is then the rest of the old pile). A stock dealt
lazily from a uniform shuffle is the same law as a stock shuffled up front.

Action encoding (``num_distinct_actions`` = 60)
------------------------------------------------
======  ============================================================
action  meaning
======  ============================================================
0..55   discard a card of this kind (FC-3)
56      draw the top stock card (FC-3)
57      take the top discard card (FC-3)
58      go out (the hand melds entirely, FC-3)
59      do not go out yet
======  ============================================================

The go-out choice is asked only when the hand melds after the discard and
nobody has gone out; in the last turns (FC-5) nothing is asked.

Tensors (every entry in [0, 1])
-------------------------------
Information state of player ``p`` (``56 * (n + 3) + 3n + 5`` floats): the
observation below plus, per turn played, nothing: a fixed-size tensor cannot
hold a round of up to ``max_turns * n`` turns, so the *tensor* keeps what the
rules let a player know of the cards now: his hand, the whole discard pile
(counts), the cards each other seat took from the pile and has not thrown
since, and the pile's top. The information-state *string* is the perfect-recall
record (every draw, discard and going out, and the cards ``p`` drew).

=================  =============================================================
block (length)     meaning
=================  =============================================================
seat (n)           one-hot: ``p``
dealer (n)         one-hot: the dealer
phase (5)          one-hot: deal, draw, discard, go out, over
hand (56)          ``p``'s cards: count / 2 (jokers: count / 6)
top (56)           one-hot: the discard pile's top card
pile (56)          the discard pile: count / 2 (jokers / 6)
known (56 x n)     block ``s``: cards seat ``s`` took from the pile and has not
                   discarded since (count / 2, jokers / 6); ``p``'s block empty
out (n)            one-hot: the seat that went out
=================  =============================================================

The observation tensor is the same vector (``observation_size`` equals
``information_state_size``).
"""

from __future__ import annotations

import numpy as np

from simulators.core import steps
from simulators.core.steps import CHANCE, TERMINAL, StepGame, StepGameInfo, TurnState, as_seat
from simulators.five_crowns import referee
from simulators.five_crowns import rules as R

__all__ = ["FiveCrownsSteps", "FiveCrownsState", "DRAW_STOCK", "TAKE_DISCARD", "GO_OUT",
           "STAY", "N_ACTIONS"]

DRAW_STOCK = R.N_KINDS  # 56 (FC-3)
TAKE_DISCARD = DRAW_STOCK + 1  # 57 (FC-3)
GO_OUT = DRAW_STOCK + 2  # 58 (FC-3)
STAY = DRAW_STOCK + 3  # 59
N_ACTIONS = STAY + 1

DEAL, DRAW, DISCARD, CHOOSE_OUT, OVER = range(5)
PHASE_NAMES = ("deal", "draw", "discard", "go out", "over")
# FC-1: two of each suited kind, three jokers per set
FULL_COUNTS = tuple([2] * R.N_SUITED + [6])
# a count over its most: every tensor entry in [0, 1]
SCALE = np.array([1 / 2] * R.N_SUITED + [1 / 6], np.float32)


class FiveCrownsSteps(StepGame):
    """One Five Crowns round of ``config.round_no``, one move at a time.

    ``first_round`` belongs to whole games; ``n_players``, ``round_no`` and
    ``max_turns`` make the round. ``dealer``: the dealing seat, or -1
    (default) for a first chance move drawing him uniformly.
    """

    def __init__(self, config: R.FiveCrownsConfig | None = None, *, dealer: int = -1):
        self.config = steps.checked_config(config, R.FiveCrownsConfig)
        n = self.n = self.config.n_players
        self.dealer = as_seat(dealer, n, name="dealer", by_chance=True)
        self.wild = R.wild_rank(self.config.round_no)  # FC-2
        self.hand_size = R.cards_dealt(self.config.round_no)
        # the seat of each dealt position (FC-2), read off the referee's deal_round
        hands, _, _ = referee.deal_round(list(range(R.N_CARDS)), n, self.config.round_no, 0)
        self.deal_seats = [0] * (n * self.hand_size)  # relative to the dealer: add his seat
        for seat, positions in enumerate(hands):
            for position in positions:
                self.deal_seats[position] = seat
        size = n + n + len(PHASE_NAMES) + 3 * R.N_KINDS + R.N_KINDS * n + n
        turns = self.config.max_turns * n + n  # the capped turns and the last ones
        # dealer, the deal and the pile's first card, then per turn: a reshuffle's top,
        # the draw, the stock card, the discard, the go-out choice
        longest = int(self.dealer < 0) + n * self.hand_size + 1 + 5 * turns
        worst = self.hand_size * R.JOKER_PENALTY + R.JOKER_PENALTY  # every card a joker, + 1
        self.info = StepGameInfo(
            short_name="tapisvert_five_crowns",
            long_name=f"Five Crowns (tapisvert, round {self.config.round_no}, {n} players)",
            num_players=n, num_distinct_actions=N_ACTIONS, max_chance_outcomes=R.N_KINDS,
            max_game_length=longest, min_utility=-float(worst), max_utility=0.0,
            observation_size=size, information_state_size=size, zero_sum=False,
            parameters=steps.game_parameters(self.config, dealer=self.dealer),
        )

    def new_initial_state(self) -> FiveCrownsState:
        return FiveCrownsState(self)


class FiveCrownsState(TurnState):
    """A Five Crowns round in progress: plain lists, copied by :meth:`clone`."""

    UNIT = "round"
    NESTED = ("hands", "known", "drawn")
    LISTS = ("unseen", "pile", "events", "actions")
    card_string = staticmethod(R.format_card)

    def __init__(self, game: FiveCrownsSteps):
        n = game.n
        self.game = game
        self.dealer = game.dealer
        self.unseen = list(FULL_COUNTS)  # the cards no chance move has shown yet, by kind
        self.stock = 0  # cards in the stock (their order is the next chance moves')
        self.n_dealt = 0
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.pile: list[int] = []  # the discard pile, top last
        self.known: list[list[int]] = [[0] * R.N_KINDS for _ in range(n)]  # taken, not thrown
        self.t = 0  # turns played
        self.step = DRAW  # within a turn: DRAW, then DISCARD, then CHOOSE_OUT
        self.drawing = False  # a stock card to deal (chance)
        self.reshuffling = False  # a new pile's top to turn (chance)
        self.out_seat = -1
        self.out_turn = -1
        self.over = False
        self.capped = False
        self.events: list[str] = []  # public record, for the strings
        self.drawn: list[list[int]] = [[] for _ in range(n)]  # each seat's stock cards
        self.actions: list[int] = []

    # ------------------------------------------------------------ whose turn

    def seat(self) -> int:
        """The seat whose turn it is: from the dealer's left, clockwise (FC-2, FC-3)."""
        return (self.dealer + 1 + self.t) % self.game.n

    def final(self) -> bool:
        """Whether this is a last turn after someone went out (FC-5)."""
        return self.out_seat >= 0

    def phase(self) -> int:
        """DEAL (a chance move is due), DRAW, DISCARD, CHOOSE_OUT or OVER."""
        if self.over:
            return OVER
        if self.dealer < 0 or self.n_dealt <= len(self.game.deal_seats) or self.drawing or \
                self.reshuffling:
            return DEAL
        return self.step

    def current_player(self) -> int:
        phase = self.phase()
        if phase == DEAL:
            return CHANCE
        return TERMINAL if phase == OVER else self.seat()

    # ------------------------------------------------------------ moves

    def legal_actions(self) -> list[int]:
        phase = self.phase()
        if phase == DRAW:
            # FC-3: the top stock card (while there is one) or the top discard
            return ([DRAW_STOCK] if self.stock else []) + [TAKE_DISCARD]
        if phase == DISCARD:
            return sorted(set(self.hands[self.seat()]))  # FC-3: any card held
        if phase == CHOOSE_OUT:
            return [GO_OUT, STAY]
        return []

    def _deal_outcomes(self) -> list[tuple[int, float]]:
        return steps.by_count(self.unseen)

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase()]

    def _why(self, action: int) -> str:
        return " (FC-6)" if action == DRAW_STOCK else " (FC-3)"

    def _move(self, action: int) -> None:
        phase = self.phase()
        if phase == DRAW:
            self._draw(action)
        elif phase == DISCARD:
            self._discard(action)
        else:
            self.events.append("out" if action == GO_OUT else "stay")
            if action == GO_OUT:
                self.out_seat, self.out_turn = self.seat(), self.t  # FC-5
            self._end_turn()

    def _deal(self, outcome: int) -> None:
        g = self.game
        if not 0 <= outcome < R.N_KINDS or not self.unseen[outcome]:
            raise ValueError(f"chance outcome {outcome} is not a card kind still unseen")
        self.unseen[outcome] -= 1
        if self.n_dealt < len(g.deal_seats):  # FC-2: one card at a time from the dealer's left
            self.hands[(g.deal_seats[self.n_dealt] + self.dealer) % g.n].append(outcome)
            self.n_dealt += 1
        elif self.n_dealt == len(g.deal_seats):  # FC-2: the next card starts the pile
            self.pile.append(outcome)
            self.n_dealt += 1
            self.stock = R.N_CARDS - self.n_dealt
            self._start_turn()
        elif self.reshuffling:  # FC-6: the new stock's top card starts a new pile
            self.pile.append(outcome)
            self.stock -= 1
            self.reshuffling = False
        else:  # the stock card drawn
            self.hands[self.seat()].append(outcome)
            self.drawn[self.seat()].append(outcome)
            self.stock -= 1
            self.drawing = False

    def _start_turn(self) -> None:
        """FC-6 at the start of a turn: an empty stock takes the whole discard pile."""
        self.step = DRAW
        if self.stock == 0:
            self.unseen = [0] * R.N_KINDS
            for k in self.pile:
                self.unseen[k] += 1
            self.stock, self.pile = len(self.pile), []
            self.reshuffling = True
            self.events.append("reshuffle")

    def _draw(self, action: int) -> None:
        seat = self.seat()
        if action == TAKE_DISCARD:
            kind = self.pile.pop()
            self.hands[seat].append(kind)
            self.known[seat][kind] += 1  # FC-3: everyone saw him take it
            self.events.append(f"{seat} takes {R.format_card(kind)}")
        else:
            self.drawing = True
            self.events.append(f"{seat} draws")
        self.step = DISCARD

    def _discard(self, kind: int) -> None:
        seat = self.seat()
        hand = self.hands[seat]
        hand.remove(kind)
        self.pile.append(kind)
        if self.known[seat][kind]:
            self.known[seat][kind] -= 1
        self.events.append(f"{seat} discards {R.format_card(kind)}")
        melds = referee.melds_fully(hand, self.game.wild)
        if self.final():
            self.events.append("melds" if melds else "does not meld")  # FC-5: shown at the end
            self._end_turn()
        elif melds:
            self.step = CHOOSE_OUT  # FC-3: he may go out
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        n = self.game.n
        self.t += 1
        if self.out_seat >= 0 and self.t >= self.out_turn + n:
            self.over = True  # FC-5: everyone else had his last turn
        elif self.out_seat < 0 and self.t >= self.game.config.max_turns * n:
            self.over = self.capped = True  # nobody out in time: hands scored as they are
        else:
            self._start_turn()

    # ------------------------------------------------------------ results

    def is_terminal(self) -> bool:
        return self.over

    def penalties(self) -> list[int]:
        """Each seat's penalty (FC-5): 0 for the one who went out, else his least."""
        return [0 if s == self.out_seat else referee.min_penalty(self.hands[s], self.game.wild)
                for s in range(self.game.n)]

    def returns(self) -> list[float]:
        if not self.over:
            return [0.0] * self.game.n
        return [-float(p) for p in self.penalties()]

    # ------------------------------------------------------------ views

    def observation_tensor(self, player: int) -> np.ndarray:
        player = as_seat(player, self.game.n)
        n = self.game.n
        parts = [np.zeros(n, np.float32), np.zeros(n, np.float32),
                 np.zeros(len(PHASE_NAMES), np.float32)]
        parts[0][player] = 1.0
        if self.dealer >= 0:
            parts[1][self.dealer] = 1.0
        parts[2][self.phase()] = 1.0
        hand = np.bincount(self.hands[player], minlength=R.N_KINDS).astype(np.float32) * SCALE
        top = np.zeros(R.N_KINDS, np.float32)
        if self.pile:
            top[self.pile[-1]] = 1.0
        pile = np.bincount(self.pile, minlength=R.N_KINDS).astype(np.float32) * SCALE
        known = np.array([[0] * R.N_KINDS if s == player else self.known[s] for s in range(n)],
                         np.float32) * SCALE
        out = np.zeros(n, np.float32)
        if self.out_seat >= 0:
            out[self.out_seat] = 1.0
        return np.concatenate(parts + [hand, top, pile, known.ravel(), out])

    def information_state_tensor(self, player: int) -> np.ndarray:
        return self.observation_tensor(player)  # see the module docstring

    def information_state_string(self, player: int) -> str:
        player = as_seat(player, self.game.n)
        dealt = R.format_cards(sorted(self._dealt_to(player)))
        return (f"seat {player} dealer {self.dealer} round {self.game.config.round_no} | dealt "
                f"{dealt} | first {R.format_cards(self._first_pile())} | "
                f"{'; '.join(self.events)} | drew {R.format_cards(self.drawn[player])}")

    def _dealt_to(self, player: int) -> list[int]:
        """The cards dealt to ``player`` (the first chance moves)."""
        g = self.game
        start = int(g.dealer < 0)
        deal = self.actions[start:start + len(g.deal_seats)]
        return [k for i, k in enumerate(deal) if (g.deal_seats[i] + self.dealer) % g.n == player]

    def _first_pile(self) -> list[int]:
        start = int(self.game.dealer < 0) + len(self.game.deal_seats)
        return self.actions[start:start + 1]

    def observation_string(self, player: int) -> str:
        player = as_seat(player, self.game.n)
        top = R.format_card(self.pile[-1]) if self.pile else "-"
        return (f"seat {player} dealer {self.dealer} | {PHASE_NAMES[self.phase()]} | turn "
                f"{self.t} | hand {R.format_cards(sorted(self.hands[player]))} | top {top} | "
                f"pile {len(self.pile)} stock {self.stock} | out {self.out_seat}")

    def _move_string(self, action: int) -> str:
        if 0 <= action < R.N_KINDS:
            return f"discard {R.format_card(action)}"
        return {DRAW_STOCK: "draw stock", TAKE_DISCARD: "take discard", GO_OUT: "go out",
                STAY: "stay"}.get(action, f"?{action}")

