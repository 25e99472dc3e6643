"""Bianco Mano one move at a time: one deal as a :class:`~simulators.core.steps.StepGame`.

The unit is the engine's default unit, one deal (``GAME.units[0]``): the
dealer is drawn, he chooses the first packet (BM-4, BM-5), the first
distribution and the turned card are dealt, the players bid (BM-7); after an
all-pass the deal is void and over (returns 0, as the ``all_pass`` rows of
the engine); else the second distribution is dealt, the taker sets his espion
aside (BM-4, BM-6), calls a card (5 players, BM-6), may announce Bianco Mano
(BM-11), and the tricks are played (BM-8, BM-9). The returns are each seat's
BM-10 score change (``delta_<seat>``, ``GAME.units[0].seat_scores``). The
rules are the referee's (:mod:`simulators.bianco_mano.referee`:
``deal_hands``, ``second_receivers``, ``legal_plays``, ``trick_winner``,
``card_points``, ``score_deal``); this module only says whose turn it is.

Chance moves
------------
Unless the option ``dealer`` fixes him, the first chance move draws the dealer
(outcome = seat 0..n-1, uniform): the ``deals`` unit deals deal ``i`` from
seat ``i % n``, the same mix. Then one chance move per card (outcome = the
card 0..31, uniform over the cards not yet dealt) in the order the rules deal
them: the first distribution in packets from the dealer's left, the turned
card, and after a take the second distribution (``referee.second_receivers``).
A uniform deck cut anywhere is still uniform, so the cut has no move here.

Action encoding (``num_distinct_actions`` = 42)
------------------------------------------------
======  ============================================================
action  meaning
======  ============================================================
0..31   card ``c = 4 * rank + family`` (``rules.py``): the card played
        (BM-8), set aside in the espion (BM-4, BM-6), or called (BM-6),
        as the phase says
32..35  take, naming family 0..3 rouge, bleue, jaune, verte (BM-7: in
        round 1 only the turned card's family, in round 2 another one)
36      pass (BM-7)
37..39  first packet of 2, 3 or 4 cards (the dealer; 3 and 4 players)
40      do not announce Bianco Mano (BM-11)
41      announce Bianco Mano (BM-11)
======  ============================================================

A bid action is ``32 + bid`` with ``bid`` the engine's and the referee's bid
value (``rules.PASS`` = 4). The espion's two cards are two moves, the lower
card index first (one history per espion, as the records store it).
The announcement is asked only of a taker who may make it (the option on and
both cards in hand); the engine asks every taker and refuses a yes from the
others, which makes the same deals.

Information-state tensor of player ``p`` (perfect recall)
----------------------------------------------------------
With ``n`` players and ``m = n * tricks`` cards played (30, 32 or 30):

======================  =======================================================
block (length)          meaning
======================  =======================================================
seat (n)                one-hot: ``p``
dealer (n)              one-hot: the dealer
packet (3)              one-hot: the first packet of 2, 3, 4 cards
received (32)           the cards ``p`` was dealt (the turned card too, if he took)
turned (32)             one-hot: the turned card
bids (2n x 5)           each bid in order from the dealer's left: one-hot over
                        take rouge/bleue/jaune/verte, pass
espion (32)             the espion, for the taker only
called (32)             one-hot: the called card (5 players)
announce (2)            one-hot: the taker's answer, no / yes
plays (m x 32)          the cards played, one-hot per slot in play order
======================  =======================================================

Observation tensor of player ``p`` (what he sees now)
------------------------------------------------------
======================  =======================================================
block (length)          meaning
======================  =======================================================
seat (n), dealer (n)    one-hot
phase (8)               one-hot: deal, packet, bid, espion, call, announce,
                        play, over
round (2)               one-hot: the bidding round, while bidding
hand (32)               ``p``'s cards now
turned (32)             one-hot: the turned card
taker (n)               one-hot: the taker, once he took
dominant (4)            one-hot: the dominant family, once taken
espion (32)             the espion, for the taker only
called (32)             one-hot: the called card (5 players)
bonus (1)               1 if Bianco Mano was announced
trick (n x 32)          the trick on the table: seat ``s``'s card in block ``s``
done (32)               the cards of the finished tricks
won (n)                 tricks won by each seat, divided by the tricks of a deal
======================  =======================================================
"""

from __future__ import annotations

import numpy as np

from simulators.bianco_mano import referee
from simulators.bianco_mano import rules as R
from simulators.core import steps
from simulators.core.steps import CHANCE, TERMINAL, StepGame, StepGameInfo, TurnState, as_seat

__all__ = ["BiancoManoSteps", "BiancoManoState", "BID_BASE", "PASS_ACTION", "PACKET_BASE",
           "NO_BONUS", "BONUS", "N_ACTIONS"]

BID_BASE = R.N_CARDS  # 32 + family: take naming it; 32 + PASS: pass (BM-7)
PASS_ACTION = BID_BASE + R.PASS  # 36
PACKET_BASE = PASS_ACTION + 1 - 2  # PACKET_BASE + k: a first packet of k = 2, 3, 4 cards
NO_BONUS = PACKET_BASE + 4 + 1  # 40 (BM-11)
BONUS = NO_BONUS + 1  # 41 (BM-11)
N_ACTIONS = BONUS + 1

DEAL, PACKET, BID, ESPION, CALL, ANNOUNCE, PLAY, OVER = range(8)
PHASE_NAMES = ("deal", "packet", "bid", "espion", "call", "announce", "play", "over")
BONUS_RANKS = (R.GARDE_DU_CORPS, R.CHAUFFEUR)  # BM-11


def _layout(blocks: list[tuple[str, int]]) -> tuple[dict[str, int], int]:
    """Start of each named block and the total length."""
    starts, at = {}, 0
    for name, size in blocks:
        starts[name] = at
        at += size
    return starts, at


class BiancoManoSteps(StepGame):
    """One Bianco Mano deal, one move at a time, with the rule options of ``config``.

    ``n_players`` and ``bianco_mano`` change the deal; ``shuffle_every_deal``,
    ``gather`` and ``deals_per_game`` belong to whole games and ``cut_weights``
    does not change a deal's law (a cut of a uniform deck is uniform).
    ``dealer``: the dealing seat, or -1 (default) for a first chance move
    drawing him uniformly.
    """

    def __init__(self, config: R.BiancoManoConfig | None = None, *, dealer: int = -1):
        self.config = steps.checked_config(config, R.BiancoManoConfig)
        n = self.n = self.config.n_players
        self.dealer = as_seat(dealer, n, name="dealer", by_chance=True)
        self.n_tricks = R.HAND_SIZE[n]
        self.n_first = n * R.FIRST_DISTRIBUTION[n] + 1  # the first distribution and the turn
        # the seat receiving each first-distribution position, per dealer and first packet
        self.first_orders = {(d, k): _positions_to_seats(referee.deal_hands(
            n, d, list(range(R.N_CARDS)), k)[0]) for d in range(n)
            for k in R.FIRST_PACKET_CHOICES[n]}
        self.info_layout, info_size = _layout([
            ("seat", n), ("dealer", n), ("packet", 3), ("received", R.N_CARDS),
            ("turned", R.N_CARDS), ("bids", 2 * n * 5), ("espion", R.N_CARDS),
            ("called", R.N_CARDS), ("announce", 2), ("plays", n * self.n_tricks * R.N_CARDS)])
        self.obs_layout, obs_size = _layout([
            ("seat", n), ("dealer", n), ("phase", len(PHASE_NAMES)), ("round", 2),
            ("hand", R.N_CARDS), ("turned", R.N_CARDS), ("taker", n), ("dominant", 4),
            ("espion", R.N_CARDS), ("called", R.N_CARDS), ("bonus", 1),
            ("trick", n * R.N_CARDS), ("done", R.N_CARDS), ("won", n)])
        longest = (int(self.dealer < 0) + int(len(R.FIRST_PACKET_CHOICES[n]) > 1) + R.N_CARDS
                   + 2 * n + R.ESPION_SIZE[n] + int(n == 5) + int(self.config.bianco_mano)
                   + n * self.n_tricks)
        # BM-10: taker +-2, partner +-1, opponent -2 (capo) .. +1; not zero-sum (4 players)
        self.info = StepGameInfo(
            short_name="tapisvert_bianco_mano",
            long_name=f"Bianco Mano (tapisvert, one deal, {n} players)",
            num_players=n, num_distinct_actions=N_ACTIONS, max_chance_outcomes=R.N_CARDS,
            max_game_length=longest, min_utility=-2.0, max_utility=2.0,
            observation_size=obs_size, information_state_size=info_size, zero_sum=False,
            parameters=steps.game_parameters(self.config, dealer=self.dealer),
        )

    def new_initial_state(self) -> BiancoManoState:
        return BiancoManoState(self)


def _positions_to_seats(hands: list[list[int]]) -> dict[int, int]:
    """{deck position: seat} from hands of deck positions."""
    return {position: seat for seat, hand in enumerate(hands) for position in hand}


class BiancoManoState(TurnState):
    """A Bianco Mano deal in progress: plain lists, copied by :meth:`clone`."""

    NESTED = ("received", "hands", "tricks")
    LISTS = ("bids", "espion", "trick", "winners", "plays", "actions")
    card_string = staticmethod(R.format_card)

    def __init__(self, game: BiancoManoSteps):
        n = game.n
        self.game = game
        self.dealer = game.dealer  # -1 until the first chance move draws him
        self.first_packet = R.FIRST_PACKET_CHOICES[n][0] if len(
            R.FIRST_PACKET_CHOICES[n]) == 1 else -1  # BM-6: 2+2, no choice
        self.n_dealt = 0
        self.received: list[list[int]] = [[] for _ in range(n)]  # as dealt, turned card too
        self.hands: list[list[int]] = [[] for _ in range(n)]  # held now
        self.turned = -1
        self.bids: list[int] = []  # the referee's DealRecord.bids
        self.taker = -1
        self.dominant = -1
        self.espion: list[int] = []
        self.called = -1
        self.partner = -1
        self.bonus: bool | None = None  # None: not asked
        self.trick: list[int] = []  # cards in play order from the leader
        self.leader = -1
        self.tricks: list[list[int]] = []
        self.winners: list[int] = []
        self.plays: list[int] = []
        self.actions: list[int] = []

    # ------------------------------------------------------------ whose turn

    def phase(self) -> int:
        """The phase of the deal (``DEAL`` … ``OVER``)."""
        g = self.game
        if self.dealer < 0:
            return DEAL
        if self.first_packet < 0:
            return PACKET
        if self.n_dealt < g.n_first:
            return DEAL
        if self.taker < 0:
            return OVER if len(self.bids) == 2 * g.n else BID  # BM-7: all passed twice
        if self.n_dealt < R.N_CARDS:
            return DEAL
        if len(self.espion) < R.ESPION_SIZE[g.n]:
            return ESPION
        if g.n == 5 and self.called < 0:
            return CALL
        if self.bonus is None and self._may_announce():
            return ANNOUNCE
        return PLAY if len(self.plays) < g.n * g.n_tricks else OVER

    def _may_announce(self) -> bool:
        """BM-11: the option, and the dominant Garde du Corps and Chauffeur in the taker's hand."""
        hand = self.hands[self.taker]
        return self.game.config.bianco_mano and all(R.card(r, self.dominant) in hand
                                                    for r in BONUS_RANKS)

    def _bidder(self) -> int:
        """BM-7: from the dealer's left, clockwise, round 1 then round 2."""
        return (self.dealer + 1 + len(self.bids)) % self.game.n

    def _to_play(self) -> int:
        """BM-8: the leader, then clockwise."""
        return (self.leader + len(self.trick)) % self.game.n

    def current_player(self) -> int:
        phase = self.phase()
        if phase == DEAL:
            return CHANCE
        if phase == PACKET:
            return self.dealer  # BM-4, BM-5: the dealer's choice
        if phase == BID:
            return self._bidder()
        if phase in (ESPION, CALL, ANNOUNCE):
            return self.taker
        if phase == PLAY:
            return self._to_play()
        return TERMINAL

    # ------------------------------------------------------------ moves

    def legal_actions(self) -> list[int]:
        phase = self.phase()
        if phase == PACKET:
            return [PACKET_BASE + k for k in R.FIRST_PACKET_CHOICES[self.game.n]]
        if phase == BID:
            turned = R.family_of(self.turned)
            if len(self.bids) < self.game.n:  # BM-7 round 1: accept the turned family
                return [BID_BASE + turned, PASS_ACTION]
            # BM-7 round 2: name one of the three other families
            return [BID_BASE + f for f in range(R.N_FAMILIES) if f != turned] + [PASS_ACTION]
        if phase == ESPION:
            # BM-4, BM-6: any 2 cards of his hand, set aside the lower first (one history
            # per espion, as the record stores it ascending)
            hand = sorted(self.hands[self.taker])
            return [c for c in hand if c > self.espion[-1]] if self.espion else hand[:-1]
        if phase == CALL:
            # BM-6: a card not of the dominant family, not in his hand or espion
            own = set(self.hands[self.taker]) | set(self.espion)
            return [c for c in range(R.N_CARDS)
                    if R.family_of(c) != self.dominant and c not in own]
        if phase == ANNOUNCE:
            return [NO_BONUS, BONUS]
        if phase == PLAY:
            return referee.legal_plays(self.hands[self._to_play()], self.trick,
                                       self.dominant)  # BM-8
        return []

    def _deal_outcomes(self) -> list[tuple[int, float]]:
        dealt = {c for hand in self.received for c in hand} | {self.turned}
        return steps.uniform(c for c in range(R.N_CARDS) if c not in dealt)

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase()]

    def _move(self, action: int) -> None:
        phase = self.phase()
        if phase == PACKET:
            self.first_packet = action - PACKET_BASE
        elif phase == BID:
            self._bid(action - BID_BASE)
        elif phase == ESPION:
            self.hands[self.taker].remove(action)
            self.espion.append(action)  # ascending (legal_actions)
        elif phase == CALL:
            self.called = action
            self.partner = next(s for s in range(self.game.n) if action in self.hands[s])
        elif phase == ANNOUNCE:
            self.bonus = action == BONUS
        else:
            self._play(action)

    def _why(self, action: int) -> str:
        phase = self.phase()
        hand = self.hands[self._to_play()] if phase == PLAY else []
        if phase == PLAY and self.trick and action in hand:
            reason = referee._why_illegal(hand, self.trick, self.dominant, action)
            return f" (BM-8: {reason})"
        ruling = {PACKET: "BM-4/BM-5", BID: "BM-7", ESPION: "BM-4/BM-6", CALL: "BM-6",
                  ANNOUNCE: "BM-11", PLAY: "BM-8"}[phase]
        return f" ({ruling})"

    def _deal(self, outcome: int) -> None:
        g = self.game
        if not 0 <= outcome < R.N_CARDS or outcome == self.turned or \
                any(outcome in hand for hand in self.received):
            raise ValueError(f"chance outcome {outcome} is not a card still to deal")
        k = self.n_dealt
        self.n_dealt += 1
        if k == g.n_first - 1:
            self.turned = outcome  # BM-4..BM-6: the next card is turned
            return
        if k < g.n_first:
            seat = g.first_orders[self.dealer, self.first_packet][k]
        else:
            seat = referee.second_receivers(g.n, self.dealer, self.taker)[k - g.n_first]
        self.received[seat].append(outcome)
        self.hands[seat].append(outcome)

    def _bid(self, bid: int) -> None:
        bidder = self._bidder()
        self.bids.append(bid)
        if bid == R.PASS:
            return
        self.taker, self.dominant = bidder, bid
        self.received[bidder].append(self.turned)  # BM-7: the taker receives the turned card
        self.hands[bidder].append(self.turned)
        self.leader = bidder  # BM-8: the taker leads the first trick
        if self.game.n == 4:
            self.partner = (bidder + 2) % 4  # BM-5: seats 0 & 2 vs 1 & 3

    def _play(self, card: int) -> None:
        n = self.game.n
        self.hands[self._to_play()].remove(card)
        self.trick.append(card)
        self.plays.append(card)
        if len(self.trick) == n:
            winner = (self.leader + referee.trick_winner(self.trick, self.dominant)) % n  # BM-9
            self.tricks.append(self.trick)
            self.winners.append(winner)
            self.trick = []
            self.leader = winner  # BM-8: the winner leads the next trick

    # ------------------------------------------------------------ results

    def is_terminal(self) -> bool:
        return self.phase() == OVER

    def side(self) -> set[int]:
        """The taker and his partner (BM-5, BM-6), empty before a take."""
        return {s for s in (self.taker, self.partner) if s >= 0}

    def side_points(self) -> int:
        """Card points of the taker's side so far, espion included (BM-10)."""
        side = self.side()
        return referee.card_points(self.espion, self.dominant) + sum(
            referee.card_points(trick, self.dominant)
            for trick, winner in zip(self.tricks, self.winners, strict=True) if winner in side)

    def returns(self) -> list[float]:
        if not self.is_terminal() or self.taker < 0:
            return [0.0] * self.game.n  # BM-7: an all-pass deal scores nothing
        _, deltas = referee.score_deal(self.game.n, self.taker, self.side() - {self.taker},
                                       self.side_points(), bool(self.bonus))  # BM-10, BM-11
        return [float(d) for d in deltas]

    # ------------------------------------------------------------ views

    def information_state_tensor(self, player: int) -> np.ndarray:
        at = self.game.info_layout
        player, out = self._tensor(player, self.game.info.information_state_size, at)
        if self.first_packet >= 0:
            out[at["packet"] + self.first_packet - 2] = 1.0
        out[[at["received"] + c for c in self.received[player]]] = 1.0
        if self.turned >= 0:
            out[at["turned"] + self.turned] = 1.0
        for k, bid in enumerate(self.bids):
            out[at["bids"] + 5 * k + bid] = 1.0
        if player == self.taker:
            out[[at["espion"] + c for c in self.espion]] = 1.0
        if self.called >= 0:
            out[at["called"] + self.called] = 1.0
        if self.bonus is not None:
            out[at["announce"] + int(self.bonus)] = 1.0
        for k, c in enumerate(self.plays):
            out[at["plays"] + R.N_CARDS * k + c] = 1.0
        return out

    def observation_tensor(self, player: int) -> np.ndarray:
        n, at = self.game.n, self.game.obs_layout
        player, out = self._tensor(player, self.game.info.observation_size, at)
        phase = self.phase()
        out[at["phase"] + phase] = 1.0
        if phase == BID:
            out[at["round"] + len(self.bids) // n] = 1.0
        out[[at["hand"] + c for c in self.hands[player]]] = 1.0
        if self.turned >= 0:
            out[at["turned"] + self.turned] = 1.0
        if self.taker >= 0:
            out[at["taker"] + self.taker] = 1.0
            out[at["dominant"] + self.dominant] = 1.0
        if player == self.taker:
            out[[at["espion"] + c for c in self.espion]] = 1.0
        if self.called >= 0:
            out[at["called"] + self.called] = 1.0
        out[at["bonus"]] = float(bool(self.bonus))
        for k, c in enumerate(self.trick):
            out[at["trick"] + R.N_CARDS * ((self.leader + k) % n) + c] = 1.0
        out[[at["done"] + c for trick in self.tricks for c in trick]] = 1.0
        for seat in self.winners:
            out[at["won"] + seat] += 1.0 / self.game.n_tricks
        return out

    def information_state_string(self, player: int) -> str:
        player = as_seat(player, self.game.n)
        espion = R.format_cards(self.espion) if player == self.taker else "-"
        return (f"seat {player} dealer {self.dealer} packet {self.first_packet} | received "
                f"{R.format_cards(sorted(self.received[player]))} | {self._public_string()} | "
                f"espion {espion or '-'} | plays {R.format_cards(self.plays)}")

    def observation_string(self, player: int) -> str:
        player = as_seat(player, self.game.n)
        espion = R.format_cards(self.espion) if player == self.taker else "-"
        trick = " ".join(f"{(self.leader + k) % self.game.n}:{R.format_card(c)}"
                         for k, c in enumerate(self.trick))
        return (f"seat {player} dealer {self.dealer} | {PHASE_NAMES[self.phase()]} | hand "
                f"{R.format_cards(sorted(self.hands[player]))} | {self._public_string()} | "
                f"espion {espion or '-'} | trick {trick} | won {self.winners}")

    def _public_string(self) -> str:
        turned = R.format_card(self.turned) if self.turned >= 0 else "-"
        bids = " ".join("pass" if b == R.PASS else R.FAMILY_CODES[b] for b in self.bids)
        called = R.format_card(self.called) if self.called >= 0 else "-"
        bonus = {None: "-", False: "no", True: "yes"}[self.bonus]
        return f"turned {turned} | bids {bids or '-'} | called {called} | bonus {bonus}"

    def _move_string(self, action: int) -> str:
        if 0 <= action < R.N_CARDS:
            return R.format_card(action)
        if BID_BASE <= action < PASS_ACTION:
            return f"take {R.FAMILY_NAMES[action - BID_BASE]}"
        if action == PASS_ACTION:
            return "pass"
        if PACKET_BASE + 2 <= action <= PACKET_BASE + 4:
            return f"first packet {action - PACKET_BASE}"
        return {NO_BONUS: "no announcement", BONUS: "Bianco Mano"}.get(action, f"?{action}")

    def __str__(self) -> str:
        return steps.with_hands(self.observation_string(0), self.hands, R.format_cards)
