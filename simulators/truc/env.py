"""Truc one move at a time: the :class:`~simulators.core.steps.StepGame` of one deal.

Built on the referee's plain rules (:mod:`simulators.truc.referee`: tricks,
deal resolution, stakes and bancos) and cross-checked move by move against
the vectorized engine (:func:`check_against_engine`). The unit is one deal,
Truc's default unit (``deals``); its returns are the engine's per-seat deal
scores, each player's points minus the other's (``game.deal_scores``). A
whole match (TR-6) runs to hundreds of moves per player and its returns are
a single win or loss, so the deal is the unit that training and CFR can use.

Actions (``num_distinct_actions`` = 14)
---------------------------------------
=======  ===========  ==========================================================
action   name         meaning
=======  ===========  ==========================================================
0..7     ``PLAY + r`` play a card of rank ``r`` (0 Sept .. 7 Neuf). TR-1: suits
                      never matter in play, so a card is named by its rank
8        ``PROPOSE``  propose to raise the stake before one's card (TR-4, TR-5)
9        ``REFUSE``   refuse a proposal (TR-4), or a counter-banco (TR-5)
10       ``ACCEPT``   accept a proposal, or a counter-banco
11       ``COUNTER``  answer a banco with a counter-banco (TR-5)
12       ``KEEP``     card call: play the hand dealt (TR-2)
13       ``ASK``      card call: ask for new cards (TR-2)
=======  ===========  ==========================================================

Chance
------
Each chance move deals one card, the first three of a hand to the
non-dealer, the next three to the dealer (TR-2, the engine's deck order).
Its outcome is the card's rank (0..7), with probability (cards of that rank
left in the stock) / (cards left): the law of a uniform shuffle seen through
ranks, which is all play can see (TR-1). Keeping suits out of the state makes
equal hands one information state, as in the project's solver (``solver/deal.py``).

Options (beyond :class:`~simulators.truc.rules.TrucConfig`)
------------------------------------------------------------
``dealer``           the dealing player (default 1: player 0 is the non-dealer
                     and leads, the solver's convention)
``score_0, score_1`` the players' manche scores before the deal (TR-5's bancos)
``n_ranks, copies``  a reduced deck: the ``n_ranks`` strongest ranks, ``copies``
                     cards of each, exactly :class:`~simulators.truc.solver.deal.DealSpec`'s
                     reduction (with ``card_call=False``, the solver's deal)

Tensors (float32, every entry in [0, 1])
----------------------------------------
``information_state_tensor(p)`` (155): [0:2] p one-hot; [2] p deals; [3:5]
p's and the other's score / target; [5:45] p's hand ``k`` (5 hands) as rank
counts / 3; [45:65] the card-call answers in order, (keep, ask) one-hot; [65:155]
card slot ``s`` (6 slots) × 15: proposal made, answer (refuse, accept, counter),
reply (refuse, accept), the rank played one-hot (8), played by p.

``observation_tensor(p)`` (74): [0:2] p one-hot; [2] p deals; [3:5] scores /
target; [5:13] p's cards in hand as rank counts / 3; [13:67] card slot ``s``
× 9: rank played one-hot, played by p; [67] stake / target; [68] stake
proposed to or by p and pending / target; [69:74] phase one-hot (card call,
card or proposal, answer, counter-banco reply, over).
"""

from __future__ import annotations

import numpy as np

from simulators.core import steps
from simulators.core.steps import CHANCE, TERMINAL, StepGame, StepGameInfo, TurnState, as_seat
from simulators.truc import referee as REF
from simulators.truc import rules as R

PLAY = 0  # PLAY + r plays a card of rank r
PROPOSE, REFUSE, ACCEPT, COUNTER, KEEP, ASK = 8, 9, 10, 11, 12, 13
N_ACTIONS = 14
ANSWER_OF = {REFUSE: R.REFUSE, ACCEPT: R.ACCEPT, COUNTER: R.COUNTER}  # action -> record code
ACTION_OF_ANSWER = {code: action for action, code in ANSWER_OF.items()}
ACTION_NAMES = tuple(f"play {code}" for code in R.RANK_CODES) + (
    "propose", "refuse", "accept", "counter", "keep", "ask")

# Phases of a deal (observation_tensor's last block); _move dispatches on CALL..REPLY
DEALING, CALL, CARD, ANSWER, REPLY, OVER = -1, 0, 1, 2, 3, 4
N_PHASES = 5
PHASE_NAMES = ("dealing", "call", "card", "answer", "reply", "over")  # PHASE_NAMES[phase + 1]

HAND_BLOCK = R.MAX_HANDS * R.N_RANKS
CALL_BLOCK = 2 * R.CALL_SLOTS
SLOT_WIDTH = 15
INFO_SIZE = 5 + HAND_BLOCK + CALL_BLOCK + R.N_SLOTS * SLOT_WIDTH
OBS_SLOT_WIDTH = R.N_RANKS + 1
OBS_SIZE = 5 + R.N_RANKS + R.N_SLOTS * OBS_SLOT_WIDTH + 2 + N_PHASES


class TrucStepGame(StepGame):
    """One Truc deal with fixed rule options, dealer and scores (see the module docstring)."""

    # two ranks of three cards, no card call: 13,104 decision states (get_all_states, < 1 s)
    reduced = {"card_call": False, "n_ranks": 2, "copies": 3}

    def __init__(self, config: R.TrucConfig | None = None, *, dealer: int = 1, score_0: int = 0,
                 score_1: int = 0, n_ranks: int = R.N_RANKS, copies: int = R.N_SUITS):
        config = steps.checked_config(config, R.TrucConfig)
        if dealer not in (0, 1) or isinstance(dealer, bool):
            raise ValueError(f"dealer must be player 0 or 1, got {dealer!r}")
        for name, score in (("score_0", score_0), ("score_1", score_1)):
            if isinstance(score, bool) or not isinstance(score, int | np.integer) or \
                    not 0 <= score < config.target:
                raise ValueError(f"{name} must be an integer in [0, {config.target - 1}] "
                                 f"(below the target), got {score!r}")
        for name, value, top in (("n_ranks", n_ranks, R.N_RANKS), ("copies", copies, R.N_SUITS)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or \
                    not 1 <= value <= top:
                raise ValueError(f"{name} must be an integer in [1, {top}], got {value!r}")
        if n_ranks * copies < R.DEAL_SIZE:
            raise ValueError(f"n_ranks * copies = {n_ranks * copies} cards cannot deal two hands "
                             f"of {R.HAND_SIZE}")
        self.config = config
        self.dealer = int(dealer)
        self.scores = (int(score_0), int(score_1))
        self.n_ranks, self.copies = int(n_ranks), int(copies)
        self.n_cards = self.n_ranks * self.copies
        # TR-2: new hands while the stock can deal six more cards (5 hands from 32 cards)
        self.max_hands = self.n_cards // R.DEAL_SIZE if config.card_call else 1
        calls = 2 * self.max_hands if config.card_call else 0
        top = config.target - min(self.scores)  # TR-5: no stake takes a player beyond the target
        self.info = StepGameInfo(
            short_name="tapisvert_truc", long_name="Truc (tapisvert), one deal",
            num_players=R.N_SEATS, num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=R.N_RANKS,
            max_game_length=R.DEAL_SIZE * self.max_hands + calls
            + R.DECISIONS_PER_CARD * R.N_SLOTS,
            min_utility=-float(top), max_utility=float(top),
            observation_size=OBS_SIZE, information_state_size=INFO_SIZE, zero_sum=True,
            parameters=steps.game_parameters(config, dealer=self.dealer, score_0=self.scores[0],
                                             score_1=self.scores[1], n_ranks=self.n_ranks,
                                             copies=self.copies))

    def new_initial_state(self) -> TrucStepState:
        """The deal before its first card is dealt."""
        return TrucStepState(self)


def step_game(config: R.TrucConfig, **options) -> TrucStepGame:
    """``Game.steps``: the one-deal StepGame of ``config`` (options: the module docstring)."""
    return TrucStepGame(config, **options)


class TrucStepState(TurnState):
    """One deal in progress: the card call, then proposals, answers and cards.

    The dealer is an option (never drawn: :class:`TurnState` sends every chance move to
    :meth:`_deal`); ``outcome`` (``R.PLAYED`` ...) is set once the deal is over.
    """

    NESTED = ("_dealt", "_hands", "_slots")
    LISTS = ("actions", "_stock", "_calls", "_winners", "_public", "_returns")
    card_string = staticmethod(R.RANK_CODES.__getitem__)  # a chance outcome is a rank

    def __init__(self, game: TrucStepGame):
        self.game = game
        self.dealer = game.dealer
        self.actions: list[int] = []
        self._stock = [game.copies] * game.n_ranks  # cards of each rank not yet dealt
        self._dealt: list[list[int]] = [[]]  # ranks of each hand dealt, in deck order
        self._calls: list[bool] = []
        self._phase = DEALING
        self._to_move = CHANCE
        self._hands: list[list[int]] = [[], []]
        self._stake = R.START_STAKE
        self._pending = 0  # the stake proposed and not yet answered
        self._counter = 0  # the counter-banco stake awaiting the proposer's reply
        self._proposer = -1
        self._proposed_here = False  # TR-4: at most one proposal per card
        self._slot = 0
        self._leader = 1 - game.dealer  # TR-3: the non-dealer leads
        self._table = -1  # rank led in the current trick, -1 before the lead
        self._winners: list[int | None] = []
        # per card slot: [proposed, answer action, reply action, rank, player] (-1: none)
        self._slots = [[0, -1, -1, -1, -1] for _ in range(R.N_SLOTS)]
        self._public: list[str] = []
        self._returns = [0.0, 0.0]

    # ------------------------------------------------------------------ who moves

    def current_player(self) -> int:
        """The player to move, CHANCE while cards are dealt, TERMINAL once the deal is over."""
        return TERMINAL if self._phase == OVER else self._to_move

    def is_terminal(self) -> bool:
        return self._phase == OVER

    def returns(self) -> list[float]:
        """Each player's points minus the other's (TR-4, TR-5), 0 until the deal is over."""
        return list(self._returns)

    def phase_name(self) -> str:
        return PHASE_NAMES[self._phase + 1]

    def _deal_outcomes(self) -> list[tuple[int, float]]:
        """The next card's rank and its probability (the shuffle's law, TR-1)."""
        return steps.by_count(self._stock)

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to move, ascending."""
        g, p, phase = self.game, self._to_move, self._phase
        if phase == CALL:
            return [KEEP, ASK]  # TR-2
        if phase == CARD:
            out = [PLAY + r for r in sorted(set(self._hands[p]))]  # TR-3: any card
            if not self._proposed_here and REF.can_propose(self._stake, g.scores[p],
                                                           g.config.target):
                out.append(PROPOSE)  # TR-4/TR-5: only a proposal that raises the stake
            return out
        if phase == ANSWER:
            out = [REFUSE, ACCEPT]
            if self._counter_stake() is not None:
                out.append(COUNTER)
            return out
        if phase == REPLY:
            return [REFUSE, ACCEPT]  # TR-5: the proposer accepts or refuses the counter
        return []

    def _counter_stake(self) -> int | None:
        """The counter-banco the answerer may name now, None where none is allowed (TR-5)."""
        g = self.game
        if not g.config.counter_banco:
            return None
        return REF.counter_stake(self._stake, self._pending, g.scores[1 - self._proposer],
                                 g.config.target)

    def _illegal(self, action: int, legal: list[int]) -> str:
        return (f"action {action} ({self._move_string(action)}) is not legal for player "
                f"{self.current_player()} here; legal: {legal}")

    # ------------------------------------------------------------------ moves

    def _move(self, action: int) -> None:
        (self._call, self._card, self._answer, self._reply)[self._phase](action)

    def _deal(self, rank: int) -> None:
        if not 0 <= rank < self.game.n_ranks or self._stock[rank] == 0:
            raise ValueError(f"chance outcome {rank} is not a rank left in the stock "
                             f"(ranks left: {[r for r, n in enumerate(self._stock) if n]})")
        self._stock[rank] -= 1
        hand = self._dealt[-1]
        hand.append(rank)
        if len(hand) < R.DEAL_SIZE:
            return
        if self.game.config.card_call:
            self._phase, self._to_move = CALL, 1 - self.dealer  # TR-2: non-dealer first
        else:
            self._start_play()

    def _call(self, action: int) -> None:
        p, ask = self._to_move, action == ASK
        self._calls.append(ask)
        self._public.append(f"{p}:{'ask' if ask else 'keep'}")
        if not ask:
            self._start_play()  # TR-2: the hands dealt are played
        elif p != self.dealer:
            self._to_move = self.dealer  # TR-2: the non-dealer asked, the dealer answers
        elif R.DEAL_SIZE * (len(self._dealt) + 1) > self.game.n_cards:
            self._end(R.ABANDONED, None, 0)  # TR-2: the stock cannot deal six more cards
        else:
            self._dealt.append([])  # TR-2: both asked, new hands from the stock
            self._phase, self._to_move = DEALING, CHANCE

    def _start_play(self) -> None:
        hand = self._dealt[-1]
        self._hands[1 - self.dealer] = sorted(hand[:R.HAND_SIZE])  # TR-2, deck order
        self._hands[self.dealer] = sorted(hand[R.HAND_SIZE:])
        self._before_card(self._leader)

    def _before_card(self, player: int) -> None:
        self._phase, self._to_move, self._proposed_here = CARD, player, False

    def _card(self, action: int) -> None:
        p = self._to_move
        if action == PROPOSE:
            g = self.game
            self._pending = REF.proposal_stake(self._stake, g.scores[p], g.config.target)  # TR-5
            self._proposer, self._proposed_here = p, True
            self._slots[self._slot][0] = 1
            self._public.append(f"{p}:propose{self._pending}")
            self._phase, self._to_move = ANSWER, 1 - p
            return
        rank = action - PLAY
        self._hands[p].remove(rank)
        self._slots[self._slot][3:5] = [rank, p]
        self._public.append(f"{p}:{R.RANK_CODES[rank]}")
        self._slot += 1
        if self._table < 0:
            self._table = rank
            self._before_card(1 - p)
            return
        # TR-1/TR-3: ranks alone decide (a suit-0 card of each rank stands for the rank)
        who = REF.trick_result(R.card(self._table, 0), R.card(rank, 0))
        winner = None if who is None else (self._leader if who == 0 else 1 - self._leader)
        self._winners.append(winner)
        if winner is not None:
            self._leader = winner  # TR-3: the winner leads; after a pourri the same leader
        self._table = -1
        over, deal_winner = REF.resolve_deal(self._winners)
        if not over:
            self._before_card(self._leader)
        elif deal_winner is None:
            self._end(R.NULL, None, 0)  # TR-3: three pourri tricks, no score
        else:
            self._end(R.PLAYED, deal_winner, self._stake)  # TR-4: the stake in force

    def _answer(self, action: int) -> None:
        p, proposer = self._to_move, self._proposer
        self._slots[self._slot][1] = action
        if action == REFUSE:
            self._public.append(f"{p}:refuse")
            self._end(R.REFUSED, proposer, REF.refusal_points(self._stake))  # TR-4
        elif action == ACCEPT:
            self._public.append(f"{p}:accept")
            self._stake, self._pending = self._pending, 0  # TR-4: the stake is raised
            self._before_card(proposer)
            self._proposed_here = True
        else:
            self._counter = self._counter_stake()  # TR-5: countering accepts the banco
            self._public.append(f"{p}:counter{self._counter}")
            self._phase, self._to_move = REPLY, proposer

    def _reply(self, action: int) -> None:
        p = self._to_move
        self._slots[self._slot][2] = action
        if action == REFUSE:  # TR-5: the banco stake goes to the counter-proposer
            self._public.append(f"{p}:refuse")
            self._end(R.REFUSED, 1 - p, self._pending)
        else:
            self._public.append(f"{p}:accept")
            self._stake, self._pending, self._counter = self._counter, 0, 0
            self._before_card(p)
            self._proposed_here = True

    def _end(self, outcome: int, winner: int | None, points: int) -> None:
        self._phase, self._to_move = OVER, TERMINAL
        self.outcome = outcome
        if winner is not None:
            self._returns = [float(points), -float(points)] if winner == 0 else \
                [-float(points), float(points)]

    # ------------------------------------------------------------------ what players see

    def _move_string(self, action: int) -> str:
        return ACTION_NAMES[action] if 0 <= action < N_ACTIONS else "unknown"

    def _my_hands(self, player: int) -> list[list[int]]:
        """The ranks ``player`` was dealt in each hand, sorted (he sees a set, not an order)."""
        start = 0 if player != self.dealer else R.HAND_SIZE
        return [sorted(hand[start:start + R.HAND_SIZE]) for hand in self._dealt]

    def _header(self, player: int) -> str:
        g = self.game
        return f"p{player} dealer{self.dealer} scores {g.scores[0]}-{g.scores[1]}"

    def information_state_string(self, player: int) -> str:
        """Everything ``player`` has seen: his hands, the calls, proposals and cards (public)."""
        hands = "/".join(" ".join(R.RANK_CODES[r] for r in h) for h in self._my_hands(player))
        return f"{self._header(player)} hands {hands} | {' '.join(self._public)}"

    def _hand_now(self, player: int) -> list[int]:
        """The ranks in ``player``'s hand; during the deal and the card call, his last hand."""
        return self._hands[player] if self._phase not in (DEALING, CALL) else \
            self._my_hands(player)[-1]

    def observation_string(self, player: int) -> str:
        """What ``player`` sees now: his cards in hand, the cards played, stake and phase."""
        played = " ".join(f"{s[4]}:{R.RANK_CODES[s[3]]}" for s in self._slots if s[3] >= 0)
        hand = " ".join(R.RANK_CODES[r] for r in self._hand_now(player))
        return (f"{self._header(player)} hand {hand} played [{played}] stake {self._stake} "
                f"pending {self._pending or self._counter} {self.phase_name()}")

    def _head(self, player: int, size: int) -> np.ndarray:
        """A tensor of ``size`` starting with [0:2] p one-hot, [2] p deals, [3:5] scores (not
        :meth:`TurnState._tensor`'s dealer one-hot: Truc's dealer is fixed for the game)."""
        g = self.game
        t = np.zeros(size, np.float32)
        t[as_seat(player, R.N_SEATS)] = 1.0
        t[2] = float(player == self.dealer)
        t[3] = g.scores[player] / g.config.target
        t[4] = g.scores[1 - player] / g.config.target
        return t

    def information_state_tensor(self, player: int) -> np.ndarray:
        t = self._head(player, INFO_SIZE)
        for k, hand in enumerate(self._my_hands(player)):
            for r in hand:
                t[5 + k * R.N_RANKS + r] += 1.0 / R.HAND_SIZE
        base = 5 + HAND_BLOCK
        for i, ask in enumerate(self._calls):
            t[base + 2 * i + int(ask)] = 1.0
        base += CALL_BLOCK
        for s, (proposed, answer, reply, rank, who) in enumerate(self._slots):
            o = base + s * SLOT_WIDTH
            t[o] = float(proposed)
            if answer >= 0:
                t[o + 1 + answer - REFUSE] = 1.0
            if reply >= 0:
                t[o + 4 + reply - REFUSE] = 1.0
            if rank >= 0:
                t[o + 6 + rank] = 1.0
                t[o + 14] = float(who == player)
        return t

    def observation_tensor(self, player: int) -> np.ndarray:
        g = self.game
        t = self._head(player, OBS_SIZE)
        for r in self._hand_now(player):
            t[5 + r] += 1.0 / R.HAND_SIZE
        base = 5 + R.N_RANKS
        for s, (_, _, _, rank, who) in enumerate(self._slots):
            if rank >= 0:
                t[base + s * OBS_SLOT_WIDTH + rank] = 1.0
                t[base + s * OBS_SLOT_WIDTH + R.N_RANKS] = float(who == player)
        base += R.N_SLOTS * OBS_SLOT_WIDTH
        t[base] = self._stake / g.config.target
        t[base + 1] = (self._counter or self._pending) / g.config.target
        if self._phase != DEALING:
            t[base + 2 + self._phase] = 1.0
        return t


# ---------------------------------------------------------------------------
# Move-by-move cross-check against the vectorized engine
# ---------------------------------------------------------------------------


def record_actions(record: R.DealRecord, config: R.TrucConfig) -> list[int]:
    """The step actions of an engine deal record, chance moves included (deck order).

    The deck's hands are dealt as chance moves hand after hand, each followed
    by its card-call answers (TR-2); then, card slot by card slot, the
    proposal, its answer and reply (TR-4, TR-5) and the card's rank (TR-1).
    """
    out: list[int] = []
    calls = list(record.calls)
    hand_no = 0
    while True:
        start = R.DEAL_SIZE * hand_no
        out += [R.rank_of(c) for c in record.deck[start:start + R.DEAL_SIZE]]
        if not config.card_call:
            break
        first = calls.pop(0)
        out.append(ASK if first else KEEP)
        if not first:
            break
        second = calls.pop(0)
        out.append(ASK if second else KEEP)
        if not second or not calls:
            break  # the dealer kept, or both asked with no stock left (TR-2: abandoned)
        hand_no += 1
    proposals = {p.slot: p for p in record.proposals}
    for slot in range(R.N_SLOTS):
        if slot in proposals:
            p = proposals[slot]
            out += [PROPOSE, ACTION_OF_ANSWER[p.answer]]
            if p.reply >= 0:
                out.append(ACTION_OF_ANSWER[p.reply])
        if slot < len(record.plays):
            out.append(PLAY + R.rank_of(record.plays[slot]))
    return out


def replay_record(game: TrucStepGame, record: R.DealRecord) -> TrucStepState:
    """Drive a StepState with a record's deck and decisions; AssertionError at the first
    action the state does not allow (naming the move), or if it is not over at the end."""
    state = game.new_initial_state()
    for k, action in enumerate(record_actions(record, game.config)):
        assert not state.is_terminal(), f"move {k}: the step game ended before the record"
        if state.current_player() == CHANCE:
            odds = dict(state.chance_outcomes())
            assert odds.get(action, 0.0) > 0, f"move {k}: rank {action} cannot be dealt"
        else:
            legal = state.legal_actions()
            assert action in legal, (f"move {k}: {ACTION_NAMES[action]} is not legal for "
                                     f"player {state.current_player()} (legal: "
                                     f"{[ACTION_NAMES[a] for a in legal]})")
        state.apply_action(action)
    assert state.is_terminal(), "the record ends before the step game's deal is over"
    return state


def check_against_engine(config: R.TrucConfig, count: int, seed: int, scores=(0, 0),
                         policy=None) -> int:
    """Play ``count`` engine deals (random policy by default) at ``scores`` (non-dealer,
    dealer) and replay each through the StepState; returns the deals checked.

    Every decision must be legal in the StepState when the engine made it and the
    returns must equal the engine's deal scores (``game.deal_scores``); the first
    difference raises AssertionError naming the deal.
    """
    from simulators.truc.engine import simulate_deals
    from simulators.truc.game import GAME, deal_scores

    policy = policy or GAME.make_policy(GAME.random_policy)
    batch = simulate_deals(config, policy, count, seed, scores=scores)
    engine = deal_scores({"deals": batch.table}, config)
    games = {}
    for i in range(count):
        record = batch.record(i)
        dealer = record.dealer
        if dealer not in games:
            games[dealer] = TrucStepGame(config, dealer=dealer,
                                         score_0=int(record.scores[0]),
                                         score_1=int(record.scores[1]))
        try:
            state = replay_record(games[dealer], record)
        except AssertionError as error:
            raise AssertionError(f"deal {int(batch.deal_ids[i])}: {error}") from None
        got = [int(v) for v in state.returns()]
        assert got == engine[i].tolist(), (f"deal {int(batch.deal_ids[i])}: step returns {got}, "
                                           f"engine scores {engine[i].tolist()}")
    return count
