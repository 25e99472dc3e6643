"""Manille coincée one move at a time: one deal as a :class:`~simulators.core.steps.StepGame`.

The unit is the engine's default unit, one deal (``GAME.units[0]``): the
dealer is drawn, the cards are dealt one chance move at a time, the trump is
named (MA-3), contre and surcontre are asked (MA-4), the 32 cards are played
(MA-5) and the returns are each seat's net deal score (MA-6): his team's score
minus the other team's, as ``GAME.units[0].seat_scores`` gives it. The rules
are the referee's (:mod:`simulators.manille.referee`: ``legal_plays``,
``trick_winner``, ``read_bidding``, ``team_points``, ``deal_score``); this
module only says whose turn it is.

Chance moves
------------
Unless the option ``dealer`` fixes him (0..3), the first chance move draws
the dealer (outcome = seat 0..3, uniform): the ``deals`` unit deals deal
``i`` from seat ``i % 4``, the same mix. Then one
chance move per card (outcome = the card 0..31, uniform over the cards not
yet dealt), in the order the rules deal them (MA-2): packets of
``config.packets`` counter-clockwise from the dealer's right. A uniform deck
cut anywhere is still uniform, so the cut and ``cut_weights`` do not change
the deal's law and have no move here.

Action encoding (``num_distinct_actions`` = 41)
------------------------------------------------
======  ============================================================
action  meaning
======  ============================================================
0..31   play card ``c = 4 * rank + suit`` (``rules.py``; MA-5)
32..35  name trump suit 0..3: pique, cœur, carreau, trèfle (MA-3)
36      name sans atout (MA-3)
37      pass the choice to the partner (the dealer only, MA-3)
38      decline: no contre / no surcontre (MA-4)
39      contre (the opponents, MA-4)
40      surcontre (the taking team after a contre, MA-4)
======  ============================================================

A trump-choice action is ``32 + choice`` with ``choice`` the referee's value
(a suit, :data:`~simulators.manille.rules.SANS_ATOUT` or
:data:`~simulators.manille.rules.PASS_TO_PARTNER`).

Information-state tensor of player ``p`` (perfect recall; 1083 floats)
---------------------------------------------------------------------
=========  =================================================================
index      meaning
=========  =================================================================
0..3       one-hot: ``p``
4..7       one-hot: the dealer
8..39      the cards ``p`` was dealt
40..45     one-hot: the dealer's choice (suit 0..3, sans atout, pass)
46..50     one-hot: the partner's choice after a pass (suit 0..3, sans atout)
51..54     the contre answers in the order asked: [no, yes] of the dealer's
           right, then of the dealer's left
55..58     the surcontre answers: [no, yes] of the chooser, then his partner
59..1082   the cards played: 32 slots in play order, one-hot over 32 cards
           (who played each follows from the order: the leader of a trick
           is the previous trick's winner)
=========  =================================================================

Observation tensor of player ``p`` (what he sees now; 223 floats)
------------------------------------------------------------------
=========  =================================================================
index      meaning
=========  =================================================================
0..3       one-hot: ``p``
4..7       one-hot: the dealer
8..14      one-hot: the phase (deal, choice, partner's choice, contre,
           surcontre, play, over)
15..46     ``p``'s hand now
47..51     one-hot: the trump (suit 0..3, sans atout), once named
52..55     one-hot: the chooser, once the trump is named
56..58     one-hot: the contre level (none, contre, surcontre)
59..186    the trick on the table: seat ``s``'s card in slot ``s`` (32 each)
187..218   the cards of the finished tricks
219..220   tricks won by team 0, team 1 (divided by 8)
221..222   points won by team 0, team 1 (divided by 68, MA-6)
=========  =================================================================
"""

from __future__ import annotations

import numpy as np

from simulators.core import steps
from simulators.core.rulings import RuleViolation
from simulators.core.steps import CHANCE, TERMINAL, StepGame, StepGameInfo, TurnState, as_seat
from simulators.manille import referee
from simulators.manille import rules as R

__all__ = ["ManilleSteps", "ManilleState", "N_ACTIONS", "CHOICE_BASE", "DECLINE", "CONTRE",
           "SURCONTRE"]

CHOICE_BASE = R.N_CARDS  # 32 + choice: name a trump, sans atout, or pass (MA-3)
DECLINE = CHOICE_BASE + R.PASS_TO_PARTNER + 1  # 38: no contre / no surcontre (MA-4)
CONTRE = DECLINE + 1  # 39 (MA-4)
SURCONTRE = DECLINE + 2  # 40 (MA-4)
N_ACTIONS = SURCONTRE + 1

# phases, in the order of a deal
DEAL, CHOOSE, PARTNER_CHOOSES, ASK_CONTRE, ASK_SURCONTRE, PLAY, OVER = range(7)
PHASE_NAMES = ("deal", "choice", "partner's choice", "contre", "surcontre", "play", "over")

# the most a seat can win: 34 points above the threshold, surcontre x4, sans atout x2 (MA-6)
MAX_SCORE = ((R.DEAL_POINTS - R.THRESHOLD) * R.CONTRE_FACTOR[R.SURCONTRE]
             * R.SANS_ATOUT_FACTOR)
# dealer, 32 cards, two choices, two contre and two surcontre answers, 32 plays
MAX_LENGTH = 1 + R.N_CARDS + 2 + 2 + 2 + R.N_CARDS

_INFO = dict(seat=0, dealer=4, dealt=8, choice=40, partner_choice=46, contre=51, surcontre=55,
             plays=59, size=59 + R.N_CARDS * R.N_CARDS)
_OBS = dict(seat=0, dealer=4, phase=8, hand=15, trump=47, chooser=52, level=56, trick=59,
            done=59 + R.N_SEATS * R.N_CARDS, tricks=219, points=221, size=223)


def _right_of(seat: int) -> int:
    """The next seat: Manille turns counter-clockwise (MA-2, MA-5)."""
    return (seat - 1) % R.N_SEATS


def deal_order(dealer: int, packets: tuple[int, ...]) -> list[int]:
    """The seat receiving each of the 32 cards in dealing order (MA-2), read off the
    referee's ``deal_hands``."""
    hands = referee.deal_hands(dealer, list(range(R.N_CARDS)), packets)
    seats = [0] * R.N_CARDS
    for seat, positions in enumerate(hands):
        for position in positions:
            seats[position] = seat
    return seats


class ManilleSteps(StepGame):
    """One Manille deal, one move at a time, with the rule options of ``config``.

    ``target``, ``max_deals`` (whole games) and ``cut_weights`` (a cut of a
    uniform deck is uniform) do not change a deal; ``packets`` fixes the
    order of the chance moves, ``sans_atout_must_beat`` and
    ``partner_may_sans_atout`` the rules. ``dealer``: the dealing seat 0..3,
    or -1 (default) for a first chance move drawing him uniformly.
    """

    def __init__(self, config: R.ManilleConfig | None = None, *, dealer: int = -1):
        self.config = steps.checked_config(config, R.ManilleConfig)
        self.dealer = as_seat(dealer, R.N_SEATS, name="dealer", by_chance=True)
        self.orders = [deal_order(dealer, self.config.packets) for dealer in range(R.N_SEATS)]
        self.info = StepGameInfo(
            short_name="tapisvert_manille", long_name="Manille coincée (tapisvert, one deal)",
            num_players=R.N_SEATS, num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=R.N_CARDS, max_game_length=MAX_LENGTH - int(self.dealer >= 0),
            min_utility=float(-MAX_SCORE), max_utility=float(MAX_SCORE),
            observation_size=_OBS["size"], information_state_size=_INFO["size"],
            zero_sum=True,
            parameters=steps.game_parameters(self.config, dealer=self.dealer),
        )

    def new_initial_state(self) -> ManilleState:
        return ManilleState(self)


class ManilleState(TurnState):
    """A Manille deal in progress: plain lists, copied by :meth:`clone`."""

    NESTED = ("dealt", "hands", "tricks")
    LISTS = ("choice", "contre", "surcontre", "trick", "winners", "plays", "actions")
    card_string = staticmethod(R.format_card)

    def __init__(self, game: ManilleSteps):
        self.game = game
        self.dealer = game.dealer  # -1 until the first chance move draws him
        self.n_dealt = 0
        self.dealt: list[list[int]] = [[] for _ in range(R.N_SEATS)]  # as received
        self.hands: list[list[int]] = [[] for _ in range(R.N_SEATS)]  # held now
        self.choice: list[int] = []  # the referee's DealRecord.choice
        self.contre: list[bool] = []
        self.surcontre: list[bool] = []
        self.bidding: referee.Bidding | None = None
        self.trick: list[tuple[int, int]] = []  # (seat, card) in play order
        self.tricks: list[list[int]] = []
        self.winners: list[int] = []
        self.plays: list[int] = []
        self.leader = -1
        self.actions: list[int] = []

    # ------------------------------------------------------------ whose turn

    def phase(self) -> int:
        """The phase of the deal (``DEAL`` … ``OVER``)."""
        if self.n_dealt < R.N_CARDS:
            return DEAL
        if not self.choice:
            return CHOOSE
        if self.choice == [R.PASS_TO_PARTNER]:
            return PARTNER_CHOOSES
        if self.bidding is None:
            return ASK_SURCONTRE if True in self.contre else ASK_CONTRE
        return PLAY if len(self.plays) < R.N_CARDS else OVER

    def chooser(self) -> int:
        """The seat that named the trump (MA-3), or -1 before."""
        if not self.choice or self.choice == [R.PASS_TO_PARTNER]:
            return -1
        return self.dealer if len(self.choice) == 1 else (self.dealer + 2) % R.N_SEATS

    def trump(self) -> int:
        """The trump (a suit or SANS_ATOUT) once named, else -1."""
        return self.choice[-1] if self.chooser() >= 0 else -1

    def current_player(self) -> int:
        phase = self.phase()
        if phase == DEAL:
            return CHANCE
        if phase == CHOOSE:
            return self.dealer  # MA-3: the dealer names a trump or passes
        if phase == PARTNER_CHOOSES:
            return (self.dealer + 2) % R.N_SEATS  # MA-3: his partner must name one
        if phase == ASK_CONTRE:
            # MA-4: the opponents, the dealer's right first (the order of the engine's record)
            return [_right_of(self.dealer), (self.dealer + 1) % R.N_SEATS][len(self.contre)]
        if phase == ASK_SURCONTRE:
            chooser = self.chooser()  # MA-4: the taking team, the chooser first
            return [chooser, (chooser + 2) % R.N_SEATS][len(self.surcontre)]
        if phase == PLAY:
            return self._to_play()
        return TERMINAL

    def _to_play(self) -> int:
        """MA-5: the leader, then counter-clockwise."""
        seat = self.leader
        for _ in self.trick:
            seat = _right_of(seat)
        return seat

    # ------------------------------------------------------------ moves

    def legal_actions(self) -> list[int]:
        phase = self.phase()
        if phase == CHOOSE:
            return [CHOICE_BASE + c for c in range(R.PASS_TO_PARTNER + 1)]  # MA-3
        if phase == PARTNER_CHOOSES:
            last = R.SANS_ATOUT if self.game.config.partner_may_sans_atout else R.N_SUITS - 1
            return [CHOICE_BASE + c for c in range(last + 1)]  # MA-3: he must name one
        if phase == ASK_CONTRE:
            return [DECLINE, CONTRE]
        if phase == ASK_SURCONTRE:
            return [DECLINE, SURCONTRE]
        if phase == PLAY:
            seat = self._to_play()
            return referee.legal_plays(self.hands[seat], self.trick, seat, self.bidding.trump,
                                       self.game.config.sans_atout_must_beat)  # MA-5
        return []

    def _deal_outcomes(self) -> list[tuple[int, float]]:
        dealt = {c for hand in self.dealt for c in hand}
        return steps.uniform(c for c in range(R.N_CARDS) if c not in dealt)

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase()]

    def _why(self, action: int) -> str:
        return " (MA-3, MA-4)"

    def _illegal(self, action: int, legal: list[int]) -> str:
        if self.phase() != PLAY:
            return super()._illegal(action, legal)
        seat, card = self._to_play(), action
        shown = R.format_card(card) if 0 <= card < R.N_CARDS else "not a card"
        reason = (referee.why_illegal(self.hands[seat], self.trick, seat, self.bidding.trump,
                                      card, self.game.config.sans_atout_must_beat)
                  if 0 <= card < R.N_CARDS and self.trick else "does not hold it")
        return (f"action {card} ({shown}) is illegal for seat {seat}: {reason} "
                f"(MA-5; legal: {legal})")

    def _move(self, action: int) -> None:
        phase = self.phase()
        if phase == PLAY:
            self._play(action)
            return
        if phase in (CHOOSE, PARTNER_CHOOSES):
            self.choice.append(action - CHOICE_BASE)
        elif phase == ASK_CONTRE:
            self.contre.append(action == CONTRE)
        else:
            self.surcontre.append(action == SURCONTRE)
        self._close_bidding()

    def _deal(self, outcome: int) -> None:
        if not 0 <= outcome < R.N_CARDS or any(outcome in hand for hand in self.dealt):
            raise ValueError(f"chance outcome {outcome} is not a card still to deal")
        seat = self.game.orders[self.dealer][self.n_dealt]  # MA-2
        self.n_dealt += 1
        self.dealt[seat].append(outcome)
        self.hands[seat].append(outcome)

    def _close_bidding(self) -> None:
        """Once nobody is left to ask, the referee reads the bidding (MA-3, MA-4)."""
        if self.chooser() < 0:
            return
        contre_over = True in self.contre or len(self.contre) == 2
        surcontre_over = True not in self.contre or True in self.surcontre or \
            len(self.surcontre) == 2
        if not (contre_over and surcontre_over):
            return
        record = R.DealRecord(dealer=self.dealer, deck=tuple(range(R.N_CARDS)), cut=1,
                              choice=tuple(self.choice), contre=tuple(self.contre),
                              surcontre=tuple(self.surcontre))
        try:
            self.bidding = referee.read_bidding(record, self.game.config)
        except RuleViolation as error:  # the turn order above and the referee disagree
            raise AssertionError(f"bidding {record}: {error}") from None
        self.leader = _right_of(self.dealer)  # MA-5: the dealer's right leads

    def _play(self, card: int) -> None:
        seat = self._to_play()
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        self.plays.append(card)
        if len(self.trick) == R.N_SEATS:
            self.leader = referee.trick_winner(self.trick, self.bidding.trump)  # MA-5
            self.winners.append(self.leader)
            self.tricks.append([c for _, c in self.trick])
            self.trick = []

    # ------------------------------------------------------------ results

    def is_terminal(self) -> bool:
        return self.phase() == OVER

    def team_points(self) -> tuple[int, int]:
        """Each team's points so far: 1 per trick plus its cards (MA-6)."""
        return referee.team_points(self.tricks, self.winners)

    def scores(self) -> tuple[int, int]:
        """Each team's deal score (MA-6), (0, 0) until the deal is over."""
        if not self.is_terminal():
            return 0, 0
        return referee.deal_score(self.team_points(), self.bidding.trump,
                                  self.bidding.contre_level)

    def returns(self) -> list[float]:
        s0, s1 = self.scores()
        net = float(s0 - s1)  # the seat's team's score minus the other's (GAME.units[0])
        return [net, -net, net, -net]

    # ------------------------------------------------------------ views

    def information_state_tensor(self, player: int) -> np.ndarray:
        player, out = self._tensor(player, _INFO["size"], _INFO)
        out[[_INFO["dealt"] + c for c in self.dealt[player]]] = 1.0
        if self.choice:
            out[_INFO["choice"] + self.choice[0]] = 1.0
        if len(self.choice) == 2:
            out[_INFO["partner_choice"] + self.choice[1]] = 1.0
        for base, answers in ((_INFO["contre"], self.contre),
                              (_INFO["surcontre"], self.surcontre)):
            for i, yes in enumerate(answers):
                out[base + 2 * i + int(yes)] = 1.0
        for k, c in enumerate(self.plays):
            out[_INFO["plays"] + R.N_CARDS * k + c] = 1.0
        return out

    def observation_tensor(self, player: int) -> np.ndarray:
        player, out = self._tensor(player, _OBS["size"], _OBS)
        out[_OBS["phase"] + self.phase()] = 1.0
        out[[_OBS["hand"] + c for c in self.hands[player]]] = 1.0
        if self.chooser() >= 0:
            out[_OBS["trump"] + self.trump()] = 1.0
            out[_OBS["chooser"] + self.chooser()] = 1.0
        level = R.SURCONTRE if True in self.surcontre else R.CONTRE if True in self.contre \
            else R.NO_CONTRE
        out[_OBS["level"] + level] = 1.0
        for seat, c in self.trick:
            out[_OBS["trick"] + R.N_CARDS * seat + c] = 1.0
        out[[_OBS["done"] + c for trick in self.tricks for c in trick]] = 1.0
        won = [0, 0]
        for seat in self.winners:
            won[referee.team_of(seat)] += 1
        out[_OBS["tricks"]:_OBS["tricks"] + 2] = np.array(won, np.float32) / R.N_TRICKS
        out[_OBS["points"]:_OBS["points"] + 2] = (np.array(self.team_points(), np.float32)
                                                  / R.DEAL_POINTS)
        return out

    def information_state_string(self, player: int) -> str:
        player = as_seat(player, R.N_SEATS)
        dealt = R.format_cards(sorted(self.dealt[player]))
        return (f"seat {player} dealer {self.dealer} | dealt {dealt} | {self._bidding_string()} "
                f"| plays {R.format_cards(self.plays)}")

    def observation_string(self, player: int) -> str:
        player = as_seat(player, R.N_SEATS)
        trick = " ".join(f"{seat}:{R.format_card(c)}" for seat, c in self.trick)
        s0, s1 = self.team_points()
        return (f"seat {player} dealer {self.dealer} | {PHASE_NAMES[self.phase()]} | hand "
                f"{R.format_cards(sorted(self.hands[player]))} | {self._bidding_string()} | "
                f"trick {trick} | points {s0}-{s1}")

    def _bidding_string(self) -> str:
        choice = " ".join(R.CHOICE_NAMES[c] for c in self.choice)
        contre = " ".join("contre" if yes else "no" for yes in self.contre)
        surcontre = " ".join("surcontre" if yes else "no" for yes in self.surcontre)
        return f"choice {choice or '-'} / contre {contre or '-'} / surcontre {surcontre or '-'}"

    def _move_string(self, action: int) -> str:
        if 0 <= action < R.N_CARDS:
            return R.format_card(action)
        if CHOICE_BASE <= action < DECLINE:
            return R.CHOICE_NAMES[action - CHOICE_BASE]
        return {DECLINE: "no", CONTRE: "contre", SURCONTRE: "surcontre"}.get(action,
                                                                              f"?{action}")

    def __str__(self) -> str:
        return steps.with_hands(self.observation_string(0), self.hands, R.format_cards)
