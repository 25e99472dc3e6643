"""Truc vectorized batch engine (RULINGS TR-1..TR-6).

A batch of N deals advances in lockstep: the card call hand after hand, then
each of the at most six card slots (a proposal, its answer, the card), each
step a handful of numpy operations over the rows still in play, with hands
as uint32 bitmasks (``rules.py``). There is no Python loop over deals.

The tricks are played by the shared kernel (:func:`simulators.core.tricks.play_tricks`)
with Truc's switches: no duty at all (``FREE_PLAY``, TR-3) and strength by rank
alone (``rank_only``: equal ranks make a pourri trick, whose leader leads
again). Truc's own part lives in the kernel's ``before_card`` hook
(:class:`_TrucHooks`): the result of the last trick, the deal's end when two
tricks decide it (TR-3, read from the kernel's record), and the proposals with
their answers (TR-4, TR-5), a refusal ending the row. Policies see the same
:class:`~simulators.truc.observations.PlayObs` as ever.

Entry points:

* :func:`simulate_deals` — independent deals from fresh shuffles; deal ``i``
  is dealt by seat ``i % 2``, at fixed manche scores.
* :func:`simulate_matches` — whole matches (TR-6): manches to ``target``,
  the deal alternating, two manches won.

All randomness comes from :mod:`simulators.core.rng`: a deal's deck and
policy noise depend only on (seed, unit id, step), on separate streams, so
two policies compared on the same seed play the same deals.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np
import polars as pl

from simulators.core import batches, bits, rng, tricks
from simulators.core.batches import unit_index, unit_rows
from simulators.core.dispatch import IllegalAction as IllegalAction  # re-exported
from simulators.core.dispatch import SeatDispatch, reject
from simulators.core.params import check_count
from simulators.core.tables import enum_column
from simulators.truc import fast as fast_path
from simulators.truc import rules as R
from simulators.truc.observations import POLICY_METHODS, CallObs, PlayObs

U32 = np.uint32
I8 = np.int8

STREAM_SHUFFLE, STREAM_NOISE = 0, 2
STREAM_NOISE_COUNTER = 12  # engine decisions (STREAM_NOISE: dealing.py, drawn by block)
USE_FAST = True  # shipped policies through the compiled kernel (identical results)
NO_CARD = I8(-1)
POURRI_WINNER = -1  # trick winner code of a pourri trick in the engine's arrays
UNPLAYED_WINNER = -2


class Dispatch(SeatDispatch):
    """Routes each Truc decision to the policy of the acting seat."""

    def __init__(self, policies):
        super().__init__(policies, R.N_SEATS, POLICY_METHODS, "Truc")


class DealArrays(NamedTuple):
    """Per-deal results and records of one batch, one row per deal.

    Seats are 0/1; -1 marks an absent value (no card, no winner).

    ============  ===========  ==================================================
    field         shape        meaning
    ============  ===========  ==================================================
    dealer        (N,) int8    dealer seat
    deck          (N,32) int8  the deck, top first (hand k = cards 6k..6k+5, TR-2)
    scores        (N,2) int8   manche scores of seats 0 and 1 before the deal
    calls         (N,10) int8  card call k: column 2k non-dealer, 2k+1 dealer;
                               1 ask, 0 play, -1 not asked
    hand_no       (N,) int8    hand played (0 = first dealt), -1 abandoned (TR-2)
    plays         (N,6) int8   card of each slot (2*trick + position), -1 unplayed
    leaders       (N,3) int8   seat leading each trick, -1 unplayed
    trick_winners (N,3) int8   seat winning each trick, -1 pourri, -2 unplayed (TR-3)
    proposed      (N,6) int8   stake proposed before the slot's card, 0 none (TR-4/5)
    answers       (N,6) int8   REFUSE/ACCEPT/COUNTER, -1 no proposal
    counters      (N,6) int8   counter-banco stake, 0 none (TR-5)
    replies       (N,6) int8   the proposer's reply to the counter, -1 none
    stakes        (N,6) int8   stake in force when the slot's card was played, 0 unplayed
    stake         (N,) int8    final stake
    outcome       (N,) int8    PLAYED, REFUSED, NULL or ABANDONED
    winner        (N,) int8    seat scoring the deal, -1 none
    points        (N,) int8    points the winner scores
    ============  ===========  ==================================================
    """

    dealer: np.ndarray
    deck: np.ndarray
    scores: np.ndarray
    calls: np.ndarray
    hand_no: np.ndarray
    plays: np.ndarray
    leaders: np.ndarray
    trick_winners: np.ndarray
    proposed: np.ndarray
    answers: np.ndarray
    counters: np.ndarray
    replies: np.ndarray
    stakes: np.ndarray
    stake: np.ndarray
    outcome: np.ndarray
    winner: np.ndarray
    points: np.ndarray

    @property
    def deltas(self) -> np.ndarray:
        """(N, 2) points scored by seats 0 and 1."""
        seats = np.arange(R.N_SEATS)
        return np.where(self.winner[:, None] == seats, self.points[:, None], 0).astype(I8)


def hand_masks(deck: np.ndarray, hand_no: int) -> tuple[np.ndarray, np.ndarray]:
    """(non-dealer's, dealer's) uint32 masks of each deck's ``hand_no``-th hand (TR-2)."""
    start = R.DEAL_SIZE * hand_no
    c = bits.card_bits(deck[:, start:start + R.DEAL_SIZE])
    return c[:, 0] | c[:, 1] | c[:, 2], c[:, 3] | c[:, 4] | c[:, 5]


def shuffle_prefix(deck: np.ndarray, uniforms: np.ndarray, rows: np.ndarray, start: int,
                   stop: int) -> None:
    """Fisher-Yates steps ``start .. stop-1`` on the given rows of ``deck``, in place.

    Step ``i`` swaps position ``i`` with a uniform position in ``i..31`` drawn
    from ``uniforms[:, i]``. Positions before ``stop`` are then exactly a
    uniform draw without replacement, whatever ``start`` was, so the engine
    shuffles only the cards it deals: six for a deal without redeal, six
    more per redeal (TR-2). The rest of the deck, never seen, stays in order.
    """
    width = deck.shape[1]
    flat = deck.reshape(-1)
    base = rows.astype(np.intp) * width
    for i in range(start, stop):
        j = i + (uniforms[rows, i] * np.float32(width - i)).astype(np.intp)
        j = np.minimum(j, width - 1)  # float32 rounding guard: u * n < n always
        here = base + i
        there = base + j
        held = flat[there]
        flat[there] = flat[here]
        flat[here] = held


def _card_call(config, dispatch, deck, shuffle, hands, discarded, dealer, scores, noise, units,
               calls, force):
    """Play the card call (TR-2); returns the hand number played per row (-1 abandoned).

    ``hands`` (N, 2) and ``discarded`` (N, 2) are by role (non-dealer,
    dealer) and updated in place for the rows that get new hands; ``scores``
    is by role. ``force`` = (role, ask) fixes that role's first answer.
    """
    n = len(dealer)
    hand_no = np.zeros(n, dtype=I8)
    if not config.card_call:
        return hand_no
    seat_of_role = (np.stack([1 - dealer, dealer], axis=1)).astype(I8)
    calling = np.arange(n)
    for k in range(R.MAX_HANDS):
        last = k == R.MAX_HANDS - 1
        if k:  # both asked: discard and deal three new cards each from the stock
            if shuffle is not None:
                shuffle_prefix(deck, shuffle, calling, R.DEAL_SIZE * k, R.DEAL_SIZE * (k + 1))
            discarded[calling] |= hands[calling]
            new_nd, new_d = hand_masks(deck[calling], k)
            hands[calling, 0], hands[calling, 1] = new_nd, new_d
        for role in (0, 1):
            if not calling.size:
                break
            column = 2 * k + role
            obs = CallObs(
                hands[calling, role], seat_of_role[calling, role], bool(role), k, last,
                discarded[calling, role], scores[calling, role], scores[calling, 1 - role],
                config.target, None if noise is None else noise[column][calling])
            if force is not None and k == 0 and force[0] == role:
                ask = np.full(calling.size, bool(force[1]))
            else:
                ask = dispatch("call", obs, obs.seat, bool)
            calls[calling, column] = ask
            calling = calling[ask]  # a player who plays ends the call (TR-2)
        if not calling.size:
            break
        if last:
            hand_no[calling] = -1  # TR-2: both asked and the stock cannot deal six cards
        else:
            hand_no[calling] = k + 1
    return hand_no


def _blank_results(n: int, slot_major: bool) -> dict[str, np.ndarray]:
    """DealArrays' result fields (``plays`` to ``points``) before any play, for ``n`` deals.

    Slot-major ((6, N), (3, N)) for the numpy path, so that each write by row id
    is a 1-D scatter (:func:`play_batch` transposes them at the end); deal-major
    for the compiled kernel, which writes each deal's row in order.
    """
    slots, tricks = ((R.N_SLOTS, n), (R.N_TRICKS, n)) if slot_major else \
        ((n, R.N_SLOTS), (n, R.N_TRICKS))
    return dict(
        plays=np.full(slots, NO_CARD, I8), leaders=np.full(tricks, -1, I8),
        trick_winners=np.full(tricks, UNPLAYED_WINNER, I8),
        proposed=np.zeros(slots, I8), answers=np.full(slots, -1, I8),
        counters=np.zeros(slots, I8), replies=np.full(slots, -1, I8),
        stakes=np.zeros(slots, I8), stake=np.full(n, R.START_STAKE, I8),
        outcome=np.full(n, R.ABANDONED, I8), winner=np.full(n, -1, I8), points=np.zeros(n, I8),
    )


# a player's 16-byte block of _Deals.history: one np.take gathers it whole
H_CARDS, H_RESULTS, H_SCORE, H_DEALER, H_LED, H_ASKED, H_DISCARDED = (
    slice(0, 3), slice(3, 6), 6, 7, slice(8, 11), 11, slice(12, 16))
H_WIDTH = 16


class _Deals(NamedTuple):
    """Truc's side of the deals the kernel plays, one row per kernel row, seats as columns.

    ``history`` (M, 2, 16) int8 holds per seat what its observations need
    (``H_*``): the card of each trick (-1 none), each trick's result for that
    seat (UNPLAYED..POURRI, set when the next trick starts), the manche score,
    "is dealer", "led the trick" per trick (set when it starts) and the own
    discards (uint32). The hands, the cards in play order, leaders and trick
    winners are the kernel's record.
    """

    ids: np.ndarray  # row in the batch
    history: np.ndarray
    stakes: np.ndarray  # (M, 6) stake in force when each slot's card was played
    stake: np.ndarray  # (M,) current stake
    outcome: np.ndarray
    winner: np.ndarray
    points: np.ndarray


def _deal_result(winners: np.ndarray, n_tricks: int) -> tuple[np.ndarray, np.ndarray]:
    """TR-3 from the trick winners (-1 pourri): (deal decided, its winner, -1 null).

    After two tricks the deal is decided when one player won both, or one
    trick was pourri and the other was not; after three, always: a pourri
    goes to the first trick's winner, a decided third trick wins after a
    pourri first trick, all three pourri is a null deal.
    """
    w0, w1 = winners[:, 0], winners[:, 1]
    if n_tricks == 2:
        return ((w0 >= 0) & (w0 == w1)) | ((w0 < 0) != (w1 < 0)), np.where(w0 >= 0, w0, w1)
    w2 = winners[:, 2]
    return np.ones(len(w0), dtype=bool), np.where(w0 < 0, w2, np.where(w2 < 0, w0, w2))


class _Seen(NamedTuple):
    """A decider's gathered state, one row per deal: the flat (row, seat) index into
    ``_Deals.history``, its own and its opponent's history blocks, its hand."""

    flat: np.ndarray
    mine: np.ndarray
    theirs: np.ndarray
    hand: np.ndarray | None

    def at(self, idx: np.ndarray) -> _Seen:
        """The rows ``idx`` (no hand if it has none)."""
        return _Seen(np.take(self.flat, idx), np.take(self.mine, idx, axis=0),
                     np.take(self.theirs, idx, axis=0),
                     None if self.hand is None else np.take(self.hand, idx))


class _TrucHooks:
    """TR-3..TR-5 on the shared trick kernel: proposals and the deal's end before each
    card (``before_card``), the policy's card (``choose``)."""

    def __init__(self, config, dispatch, deals: _Deals, noise, units, out: SimpleNamespace):
        self.config, self.dispatch, self.deals = config, dispatch, deals
        self.noise, self.units, self.out = noise, units, out
        self.every = np.arange(len(deals.ids))  # the rows of a view of every deal
        self.twice = 2 * self.every
        self.record = None  # the kernel's TrickRecord, given to before_card
        self.seen = None  # the player to act, gathered once per card for all its decisions
        ids = deals.ids
        contiguous = ids.size and int(ids[-1]) - int(ids[0]) == ids.size - 1
        self.id_range = slice(int(ids[0]), int(ids[0]) + ids.size) if contiguous else None

    def _pick(self, a: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``a[rows]``; ``a`` itself (a view, no copy) when every row is asked."""
        return a if rows is self.every else np.take(a, rows, axis=0)

    def _noise(self, decision: int, rows: np.ndarray):
        if self.noise is None:
            return None
        if self.id_range is not None:
            return self._pick(self.noise[decision][self.id_range], rows)
        return np.take(self.noise[decision], self._pick(self.deals.ids, rows))

    def _seen(self, rows, me, hand) -> _Seen:
        """What seat ``me`` (per row) of kernel rows ``rows``, holding ``hand``, has."""
        flat = (self.twice if rows is self.every else 2 * rows) + me
        history = self.deals.history.reshape(-1, H_WIDTH)
        return _Seen(flat, np.take(history, flat, axis=0), np.take(history, flat ^ 1, axis=0),
                     hand)

    def _opponent(self, seen: _Seen, idx: np.ndarray) -> _Seen:
        """What the opponent of ``seen`` has, on its rows ``idx``."""
        flat = np.take(seen.flat, idx) ^ 1
        return _Seen(flat, np.take(seen.theirs, idx, axis=0), np.take(seen.mine, idx, axis=0),
                     np.take(self.record.hands.reshape(-1), flat))

    def _obs(self, rows, seen: _Seen, me, trick, position, to_play, proposal, banco, counter,
             countering, noise, played, stake=None) -> PlayObs:
        """The observation of seat ``me`` (per row) of kernel rows ``rows``."""
        record, deals, pick = self.record, self.deals, self._pick
        mine, theirs = seen.mine, seen.theirs
        table = pick(record.plays[:, trick, 0], rows) if position == 1 else \
            np.full(len(rows), NO_CARD)
        return PlayObs(
            seen.hand, me, mine[:, H_DEALER].view(bool), trick,
            position, to_play, table, mine[:, H_CARDS], theirs[:, H_CARDS], mine[:, H_RESULTS],
            mine[:, H_LED].view(bool), pick(deals.stakes, rows),
            pick(deals.stake, rows) if stake is None else stake, proposal, banco, counter,
            countering, mine[:, H_SCORE], theirs[:, H_SCORE], self.config.target,
            mine[:, H_DISCARDED].view(U32)[:, 0], noise, played, mine[:, H_ASKED].view(bool))

    def _finish(self, rows, outcome, winner, points) -> None:
        self.deals.outcome[rows] = outcome
        self.deals.winner[rows] = winner
        self.deals.points[rows] = points

    def before_card(self, view, record) -> np.ndarray:
        """Award the last trick, end decided deals (TR-3), then the proposals (TR-4/5)."""
        self.record = record
        rows = self.every if view.rows is None else view.rows
        trick, position = view.trick, view.position
        ended = np.zeros(len(rows), dtype=bool)
        if position == 0:  # the player to act leads this trick
            flat = (self.twice if rows is self.every else 2 * rows) + view.seat
            self.deals.history.reshape(-1)[flat * H_WIDTH + (H_LED.start + trick)] = 1
        if position == 0 and trick > 0:
            w = self._pick(record.winners, rows)  # -1: pourri (TR-3)
            last = w[:, trick - 1]
            at = (self.twice if rows is self.every else 2 * rows) * H_WIDTH \
                + (H_RESULTS.start + trick - 1)
            history = self.deals.history.reshape(-1)
            for seat in (0, 1):
                history[at + seat * H_WIDTH] = np.where(
                    last < 0, I8(R.POURRI), np.where(last == seat, I8(R.WON), I8(R.LOST)))
            if trick == R.N_TRICKS - 1:  # two tricks played
                over, winner = _deal_result(w, 2)
                if over.any():
                    self._end_played(rows[over], winner[over])
                    ended = over
        if not ended.any():
            return self._ask(rows, view.seat, view.hand, trick, position, view.played)
        live = np.flatnonzero(~ended)
        if live.size:
            ended[live] = self._ask(rows[live], view.seat[live], view.hand[live], trick,
                                    position, view.played[live])
        return ended

    def _ask(self, rows, me, hand, trick, position, played) -> np.ndarray:
        """Gather the player to act once, ask the proposals; returns the rows that end."""
        seen = self._seen(rows, me, hand)
        ended = self._proposals(rows, seen, me, trick, position, played)
        # for choose, which takes the hand from its view (the kernel compacted it already)
        self.seen = seen._replace(hand=None)
        if ended.any():
            self.seen = self.seen.at(np.flatnonzero(~ended))
        return ended

    def _end_played(self, rows, winner) -> None:
        null = winner < 0
        self._finish(rows, np.where(null, R.NULL, R.PLAYED), winner,
                     np.where(null, 0, self._pick(self.deals.stake, rows)))

    def _proposals(self, rows, seen: _Seen, me, trick, position, played) -> np.ndarray:
        """TR-4, TR-5: a proposal by ``me`` before its card; returns the rows that end."""
        config, dispatch, deals, out = self.config, self.dispatch, self.deals, self.out
        slot = 2 * trick + position
        target = config.target
        ended = np.zeros(len(rows), dtype=bool)
        stake = self._pick(deals.stake, rows)
        proposal = np.minimum(2 * stake, target - seen.mine[:, H_SCORE]).astype(I8)
        asked = np.flatnonzero(proposal > stake)  # TR-5: a proposal must raise the stake
        if not asked.size:
            return ended
        base = R.CALL_SLOTS + R.DECISIONS_PER_CARD * slot
        zeros = np.zeros(asked.size, dtype=I8)
        if asked.size == rows.size:  # everyone: no copies
            banco = proposal < 2 * stake
            obs = self._obs(rows, seen, me, trick, position, True, proposal, banco, zeros,
                            False, self._noise(base, rows), played)
        else:
            banco = proposal[asked] < 2 * stake[asked]
            obs = self._obs(rows[asked], seen.at(asked), me[asked], trick, position, True,
                            proposal[asked], banco, zeros, False, self._noise(base, rows[asked]),
                            played[asked])
        proposes = dispatch("propose", obs, obs.seat, bool)
        p = asked[proposes]
        if not p.size:
            return ended
        offered = proposal[p]
        banco = banco[proposes]
        other = 1 - me[p]
        answerer = self._opponent(seen, p)
        lacks = (target - answerer.mine[:, H_SCORE]).astype(I8)
        counter = np.where(banco & (lacks > offered) & config.counter_banco, lacks, 0).astype(I8)
        obs = self._obs(rows[p], answerer, other, trick, position, False, offered, banco,
                        counter, False, self._noise(base + 1, rows[p]), played[p])
        answer = dispatch("answer", obs, obs.seat, I8)
        ids = deals.ids[rows[p]]
        bad = (answer < 0) | (answer > R.COUNTER) | ((answer == R.COUNTER) & (counter == 0))
        reject(bad, self.units[ids], "answer", lambda i: (
            f"{int(answer[i])} by seat {int(obs.seat[i])} to a proposal of {int(offered[i])}"
            f" (counter-banco {'allowed' if counter[i] else 'not allowed'}) (TR-4/TR-5)"))
        out.proposed[slot, ids] = offered
        out.answers[slot, ids] = answer
        out.counters[slot, ids] = np.where(answer == R.COUNTER, counter, 0)
        new_stake = np.where(answer == R.ACCEPT, offered, stake[p])
        refused = np.flatnonzero(answer == R.REFUSE)
        if refused.size:  # TR-4: the proposer scores the stake before the proposal
            at = p[refused]
            self._finish(rows[at], R.REFUSED, me[at], stake[at])
            ended[at] = True
        countered = np.flatnonzero(answer == R.COUNTER)
        if countered.size:  # TR-5: the counter accepts the banco and proposes more
            at = p[countered]
            banco_stake = offered[countered]  # the proposer sees the accepted banco as stake
            obs = self._obs(rows[at], seen.at(at), me[at], trick, position, True,
                            counter[countered], np.zeros(at.size, dtype=bool),
                            np.zeros(at.size, dtype=I8), True, self._noise(base + 2, rows[at]),
                            played[at], stake=banco_stake)
            reply = dispatch("answer", obs, obs.seat, I8)
            reject((reply != R.REFUSE) & (reply != R.ACCEPT), self.units[ids[countered]],
                   "reply", lambda i: (f"{int(reply[i])} to a counter-banco: accept (1) or "
                                       f"refuse (0) only (TR-5)"))
            out.replies[slot, ids[countered]] = reply
            new_stake[countered] = np.where(reply == R.ACCEPT, counter[countered], banco_stake)
            no = np.flatnonzero(reply == R.REFUSE)
            if no.size:  # the counter-proposer scores the banco stake
                self._finish(rows[at[no]], R.REFUSED, 1 - me[at[no]], banco_stake[no])
                ended[at[no]] = True
        deals.stake[rows[p]] = new_stake
        return ended

    def choose(self, view) -> np.ndarray:
        """The card of the player to act (TR-3: any card of the hand)."""
        rows = self.every if view.rows is None else view.rows
        trick, position = view.trick, view.position
        slot = 2 * trick + position
        zeros = np.zeros(len(rows), dtype=I8)
        seen = self.seen._replace(hand=view.hand)
        obs = self._obs(rows, seen, view.seat, trick, position, True, zeros,
                        zeros.astype(bool), zeros, False,
                        self._noise(R.CALL_SLOTS + R.DECISIONS_PER_CARD * slot + 3, rows),
                        view.played)
        card = self.dispatch("play", obs, obs.seat, I8)  # the kernel checks it (TR-3)
        self.deals.history.reshape(-1)[seen.flat * H_WIDTH + (H_CARDS.start + trick)] = card
        if rows is self.every:
            self.deals.stakes[:, slot] = self.deals.stake
        else:
            self.deals.stakes[rows, slot] = np.take(self.deals.stake, rows)
        return card


def _describe_play(j: int, card: int, view) -> str:
    """The message of an illegal card (TR-3: any card of the hand)."""
    return (f"{card} by seat {int(view.seat[j])} in trick {view.trick + 1}: not in hand "
            f"{R.format_cards(bits.cards_of(int(view.hand[j])))} (TR-3)")


def _by_seat(by_role: np.ndarray, dealer: np.ndarray) -> np.ndarray:
    """(M, 2) values by role (non-dealer, dealer) rearranged by seat."""
    return np.where((dealer == 0)[:, None], by_role[:, ::-1], by_role)


def _play_tricks(config, dispatch, hands, discarded, hand_no, dealer, scores, noise, units,
                 out, calls):
    """TR-3..TR-5: the tricks of the rows with a hand, on the shared kernel (suits ignored,
    no duty, equal ranks pourri), with proposals before each card."""
    rows = np.flatnonzero(hand_no >= 0)
    m = rows.size
    if not m:
        return
    every = m == len(hand_no)  # the usual case: slices and views, no gathers

    def mine(a):
        return a if every else a[rows]

    d = mine(dealer)
    history = np.zeros((m, 2, H_WIDTH), dtype=I8)
    history[:, :, H_CARDS] = NO_CARD
    history[:, :, H_SCORE] = _by_seat(mine(scores), d)
    history[:, :, H_DEALER] = d[:, None] == np.arange(2)
    history[:, :, H_DISCARDED].view(U32)[:, :, 0] = _by_seat(mine(discarded), d)
    played_hand = mine(hand_no).astype(np.intp)  # TR-2, public: he asked, the dealer kept
    history[:, :, H_ASKED] = (mine(calls)[np.arange(m), 2 * played_hand] == 1)[:, None]
    deals = _Deals(rows, history, np.zeros((m, R.N_SLOTS), I8),
                   np.full(m, R.START_STAKE, I8), np.full(m, R.ABANDONED, I8),
                   np.full(m, -1, I8), np.zeros(m, I8))
    hooks = _TrucHooks(config, dispatch, deals, noise, units, out)
    record = tricks.play_tricks(
        _by_seat(mine(hands), d), (1 - d).astype(I8), R.N_TRICKS, U32(0), tricks.FREE_PLAY,
        choose=hooks.choose, before_card=hooks.before_card, rank_only=True, units=mine(units),
        describe=_describe_play)
    last = np.flatnonzero(record.plays[:, -1, -1] >= 0)  # TR-3: three tricks decide
    if last.size:
        hooks._end_played(last, _deal_result(record.winners[last], 3)[1])
    at = slice(None) if every else rows
    plays = record.plays.reshape(m, R.N_SLOTS)
    out.plays[:, at] = plays.T
    out.stakes[:, at] = deals.stakes.T
    out.leaders[:, at] = np.where(plays[:, 0::2] >= 0, record.leaders, I8(-1)).T
    out.trick_winners[:, at] = np.where(plays[:, 1::2] >= 0, record.winners,
                                        I8(UNPLAYED_WINNER)).T
    out.stake[at] = deals.stake
    out.outcome[at] = deals.outcome
    out.winner[at] = deals.winner
    out.points[at] = deals.points


def play_batch(config: R.TrucConfig, dispatch: Dispatch, deck: np.ndarray, dealer: np.ndarray,
               scores: np.ndarray, noise: np.ndarray | None, units: np.ndarray,
               force: tuple[int, bool] | None = None,
               shuffle: np.ndarray | None = None, fast: bool | None = None) -> DealArrays:
    """Play one deal per row; pure given its inputs.

    ``deck`` (N, 32) int8 top first; ``scores`` (N, 2) int8 by seat;
    ``noise`` (N_DECISIONS, N) float32 uniforms or None; ``units`` the row ids
    for error messages; ``force`` = (role, ask) fixes the first card-call
    answer of the non-dealer (role 0) or dealer (role 1). With ``shuffle``
    ((N, 30) float32 uniforms) the deck is shuffled in place as it is dealt
    (:func:`shuffle_prefix`); without, it is dealt as given. When every seat
    plays a shipped policy the compiled kernel of :mod:`simulators.truc.fast`
    plays the batch (identical results); ``fast=False`` forces numpy.
    """
    n = len(deck)
    dealer = np.asarray(dealer, dtype=I8)
    scores = np.asarray(scores, dtype=I8)
    if fast is not False and USE_FAST:
        rows = [fast_path.policy_row(p) for p in dispatch.per_seat]
        if all(r is not None for r in rows):
            return _play_compiled(config, rows, deck, dealer, scores, noise, force, shuffle)
    rows = np.arange(n)
    if shuffle is not None:
        shuffle_prefix(deck, shuffle, rows, 0, R.DEAL_SIZE)
    hands = np.stack(hand_masks(deck, 0), axis=1)
    discarded = np.zeros((n, 2), dtype=U32)
    nd_seat = (1 - dealer).astype(np.intp)
    by_role = np.stack([scores[rows, nd_seat], scores[rows, 1 - nd_seat]], axis=1)
    calls = np.full((n, R.CALL_SLOTS), -1, dtype=I8)
    hand_no = _card_call(config, dispatch, deck, shuffle, hands, discarded, dealer, by_role,
                         noise, units, calls, force)
    out = SimpleNamespace(**_blank_results(n, slot_major=True))
    _play_tricks(config, dispatch, hands, discarded, hand_no, dealer, by_role, noise, units, out,
                 calls)
    per_row = {k: (np.ascontiguousarray(v.T) if v.ndim == 2 else v)
               for k, v in vars(out).items()}
    return DealArrays(dealer=dealer, deck=deck, scores=scores, calls=calls, hand_no=hand_no,
                      **per_row)


def _play_compiled(config, rows, deck, dealer, scores, noise, force, shuffle) -> DealArrays:
    """The batch played by the compiled kernel (shipped policies only)."""
    n = len(deck)
    kinds = np.array([r[0] for r in rows], dtype=np.int64)
    params = np.stack([r[1] for r in rows])
    out = dict(calls=np.full((n, R.CALL_SLOTS), -1, I8), hand_no=np.zeros(n, I8),
               **_blank_results(n, slot_major=False))
    lazy = shuffle is not None
    # every array C-contiguous with a fixed dtype: one compiled signature, never a recompile
    deck = np.ascontiguousarray(deck, dtype=I8)
    dealer, scores = np.ascontiguousarray(dealer), np.ascontiguousarray(scores)
    fast_path.kernel()(
        # deal-major (N, 30) and (N, 34) uniforms: the kernel reads each deal's row in order
        deck, np.ascontiguousarray(shuffle, dtype=np.float32) if lazy else
        np.zeros((1, SHUFFLE_STEPS), np.float32), lazy,
        np.ascontiguousarray(noise.T, dtype=np.float32) if noise is not None else
        np.zeros((1, R.N_DECISIONS), np.float32),
        noise is not None, dealer, scores, kinds, params, int(config.target),
        bool(config.card_call), bool(config.counter_banco),
        -1 if force is None else int(force[0]), False if force is None else bool(force[1]),
        *out.values())
    return DealArrays(dealer=dealer, deck=deck, scores=scores, **out)


# ---------------------------------------------------------------- randomness

SHUFFLE_STEPS = R.MAX_HANDS * R.DEAL_SIZE  # Fisher-Yates steps that can ever be needed


def draw_deals(entropy: int, units: np.ndarray, step: int, uses_noise: bool):
    """(identity decks, shuffle uniforms (N, 30), noise (N_DECISIONS, N) or None) of units.

    Counter-based (:mod:`simulators.truc.streams`): each deal's uniforms are
    computed from (seed, stream, step, unit), not drawn in sequence, in one
    compiled pass. Both are deal-major underneath (the noise is a (N_DECISIONS,
    N) view of an (N, N_DECISIONS) array) because the compiled kernel reads
    one deal's numbers after another.
    """
    from simulators.truc import streams

    deck = np.tile(np.arange(R.N_CARDS, dtype=I8), (len(units), 1))
    shuffle = streams.uniforms(entropy, units, STREAM_SHUFFLE, SHUFFLE_STEPS, step)
    noise = streams.uniforms(entropy, units, STREAM_NOISE_COUNTER, R.N_DECISIONS, step).T \
        if uses_noise else None
    return deck, shuffle, noise


# ---------------------------------------------------------------- records and tables


def record_of(a: DealArrays, i: int) -> R.DealRecord:
    """Plain-Python replayable record of row i (see rules.DealRecord)."""
    proposals = tuple(
        R.Proposal(slot, int(a.answers[i, slot]), int(a.replies[i, slot]))
        for slot in range(R.N_SLOTS) if a.proposed[i, slot] > 0
    )
    return R.DealRecord(
        dealer=int(a.dealer[i]), deck=tuple(int(c) for c in a.deck[i]),
        scores=(int(a.scores[i, 0]), int(a.scores[i, 1])),
        calls=tuple(bool(c) for c in a.calls[i] if c >= 0),
        plays=tuple(int(c) for c in a.plays[i] if c >= 0), proposals=proposals,
    )


def _null_where(name: str, values: np.ndarray, missing: np.ndarray) -> pl.Series:
    """A column with nulls where ``missing``."""
    return pl.Series(name, values).set(pl.Series(missing), None) if missing.any() else \
        pl.Series(name, values)


OUTCOME_ENUM = pl.Enum(list(R.OUTCOME_NAMES))
ANSWER_ENUM = pl.Enum(list(R.ANSWER_NAMES))


def _dealt_hands(a: DealArrays) -> list[np.ndarray]:
    """(non-dealer's, dealer's) uint32 masks of hand 0, 1, ... (2 * MAX_HANDS arrays), 0 where
    the hand was not dealt. Hands after the first are computed on the few rows that got them."""
    last = np.where(a.hand_no < 0, R.MAX_HANDS - 1, a.hand_no)
    out = list(hand_masks(a.deck, 0))
    for k in range(1, R.MAX_HANDS):
        rows = np.flatnonzero(last >= k)
        for mask in hand_masks(a.deck[rows], k):
            full = np.zeros(len(last), dtype=U32)
            full[rows] = mask
            out.append(full)
    return out


def deal_table(a: DealArrays, extra: dict[str, np.ndarray]) -> pl.DataFrame:
    """Tidy per-deal table, one row per deal.

    Hands are uint32 masks (:func:`simulators.core.bits.cards_of` lists them,
    ``rules.format_cards`` writes them), 0 where not dealt. Per trick ``t``:
    ``lead_t``/``reply_t`` cards, ``leader_t`` seat and ``trick_t`` winner
    seat (-1 pourri), null when unplayed. Proposals are summarized here and
    listed one per row by :func:`proposal_table`. Every column is a
    fixed-width numpy array handed to polars as is (no object or list column).
    """
    # slot-major copies (one per array): every column below is then a contiguous row,
    # which polars takes without a strided copy and numpy compares and adds at full speed
    calls, plays, leaders, winners, proposed, answers, stakes, scores = (
        np.ascontiguousarray(x.T) for x in (a.calls, a.plays, a.leaders, a.trick_winners,
                                            a.proposed, a.answers, a.stakes, a.scores))
    columns: dict[str, np.ndarray] = dict(extra)
    columns.update({
        "dealer": a.dealer, "score_0": scores[0], "score_1": scores[1],
        "hands_dealt": np.where(a.hand_no < 0, R.MAX_HANDS, a.hand_no + 1).astype(I8),
        "hand_no": a.hand_no,
        "asks_nondealer": _count(calls[0::2] == 1), "asks_dealer": _count(calls[1::2] == 1),
    })
    hands = _dealt_hands(a)
    for k in range(R.MAX_HANDS):
        columns[f"hand_{k}_nondealer"], columns[f"hand_{k}_dealer"] = hands[2 * k:2 * k + 2]
    series = [pl.Series(k, v) for k, v in columns.items()]
    for t in range(R.N_TRICKS):
        unplayed = winners[t] == UNPLAYED_WINNER
        series += [_null_where(f"lead_{t}", plays[2 * t], unplayed),
                   _null_where(f"reply_{t}", plays[2 * t + 1], unplayed),
                   _null_where(f"leader_{t}", leaders[t], unplayed),
                   _null_where(f"trick_{t}", winners[t], unplayed)]
    made = proposed > 0
    before = np.empty_like(stakes)  # the stake before each slot's proposal: the previous card's
    before[0], before[1:] = R.START_STAKE, stakes[:-1]
    bancos = made & (proposed < 2 * np.maximum(before, 1))
    series += [
        pl.Series("tricks_played", _count(winners != UNPLAYED_WINNER)),
        pl.Series("pourri_tricks", _count(winners == POURRI_WINNER)),
        pl.Series("proposals", _count(made)),
        pl.Series("bancos", _count(bancos)),
        pl.Series("counter_bancos", _count(answers == R.COUNTER)),
        pl.Series("stake", a.stake), enum_column("outcome", a.outcome, OUTCOME_ENUM.categories),
        pl.Series("winner", a.winner), pl.Series("points", a.points),
        pl.Series("delta_0", np.where(a.winner == 0, a.points, 0).astype(I8)),
        pl.Series("delta_1", np.where(a.winner == 1, a.points, 0).astype(I8)),
    ]
    return pl.DataFrame(series)


def _count(mask: np.ndarray) -> np.ndarray:
    """(N,) int8 true values per column of a (k, N) boolean array with contiguous rows."""
    out = mask[0].astype(I8)
    for row in mask[1:]:
        out += row
    return out


def _stake_before(a: DealArrays) -> np.ndarray:
    """(N, 6) the stake in force before each slot's proposal: the stake of the previous card."""
    first = np.full((len(a.stakes), 1), R.START_STAKE, dtype=I8)
    return np.concatenate([first, a.stakes[:, :-1]], axis=1)  # a proposal follows a played card


def proposal_table(a: DealArrays, ids: np.ndarray) -> pl.DataFrame:
    """One row per proposal: who, before which card, the stakes and the answers (TR-4, TR-5)."""
    row, slot = np.nonzero(a.proposed > 0)
    before = _stake_before(a)[row, slot]
    leader = a.leaders[row, slot // 2]
    # the leader of an unplayed trick is the previous trick's winner, or its leader after a pourri
    prev_w = a.trick_winners[row, np.maximum(slot // 2 - 1, 0)]
    prev_l = a.leaders[row, np.maximum(slot // 2 - 1, 0)]
    first = np.where(slot // 2 == 0, 1 - a.dealer[row], np.where(prev_w >= 0, prev_w, prev_l))
    leader = np.where(leader >= 0, leader, first)
    proposer = np.where(slot % 2 == 0, leader, 1 - leader).astype(I8)
    return pl.DataFrame({
        "deal": ids[row], "trick": (slot // 2).astype(I8), "position": (slot % 2).astype(I8),
        "proposer": proposer, "proposer_score": a.scores[row, proposer],
        "answerer_score": a.scores[row, 1 - proposer], "stake_before": before,
        "proposed": a.proposed[row, slot], "banco": a.proposed[row, slot] < 2 * before,
        "answer": enum_column("answer", a.answers[row, slot], R.ANSWER_NAMES),
        "counter": a.counters[row, slot],
        "reply": enum_column("reply", a.replies[row, slot], R.ANSWER_NAMES[:2], missing=-1),
    })


# ---------------------------------------------------------------- public API


class DealBatch(batches.DealBatch[R.TrucConfig, DealArrays]):
    """Independent deals: ``table`` (one row per deal) and the raw ``arrays``."""

    def record(self, i: int) -> R.DealRecord:
        """The replayable record of the batch's i-th deal."""
        return record_of(self.arrays, i)

    @property
    def proposals(self) -> pl.DataFrame:
        """One row per proposal of the batch (``deal`` is the deal id)."""
        return proposal_table(self.arrays, self.deal_ids)


def _check_scores(config: R.TrucConfig, scores) -> tuple[int, int]:
    """Validated (non-dealer, dealer) manche scores below the target."""
    try:
        a, b = (int(s) for s in scores)
    except (TypeError, ValueError):
        raise ValueError(f"scores must be two integers (non-dealer, dealer), "
                         f"got {scores!r}") from None
    for name, s in (("non-dealer", a), ("dealer", b)):
        if not 0 <= s < config.target:
            raise ValueError(f"scores: the {name}'s score must be in [0, {config.target - 1}], "
                             f"got {s}")
    return a, b


def simulate_deals(config: R.TrucConfig, policies, n_deals: int, seed: int = 0, *,
                   first_deal: int = 0, scores=(0, 0)) -> DealBatch:
    """Play deals ``first_deal .. first_deal + n_deals - 1`` of ``seed``.

    Deal ``i`` is dealt by seat ``i % 2`` from a fresh shuffle (TR-1), at
    manche scores ``scores`` = (non-dealer's, dealer's) (TR-5's bancos
    depend on them). ``policies`` is one policy or one per seat.
    """
    n_deals = check_count("n_deals", n_deals)
    first_deal = check_count("first_deal", first_deal, low=0)
    non_dealer_score, dealer_score = _check_scores(config, scores)
    entropy = rng.root_entropy(seed)
    dispatch = Dispatch(policies)
    ids = np.arange(first_deal, first_deal + n_deals, dtype=np.int64)
    deck, shuffle, noise = draw_deals(entropy, ids, 0, dispatch.uses_noise)
    dealer = (ids % 2).astype(I8)
    seat_scores = np.where(np.arange(2)[None, :] == dealer[:, None], dealer_score,
                           non_dealer_score).astype(I8)
    arrays = play_batch(config, dispatch, deck, dealer, seat_scores, noise, ids, shuffle=shuffle)
    table = deal_table(arrays, {"deal_id": ids})
    return DealBatch(config, entropy, ids, arrays, table)


@dataclass(frozen=True)
class MatchBatch:
    """Whole matches (TR-6): ``deals`` (one row per deal), ``manches`` (one per manche),
    ``matches`` (one per match) and the raw per-deal ``arrays``."""

    config: R.TrucConfig
    seed: int
    match_ids: np.ndarray
    arrays: DealArrays
    deal_match: np.ndarray  # match id of each row of arrays
    deal_no: np.ndarray  # deal number within its match
    deals: pl.DataFrame
    manches: pl.DataFrame
    matches: pl.DataFrame

    def record(self, match_id: int):
        """The replayable record of one match (a referee.MatchRecord)."""
        from simulators.truc.referee import MatchRecord

        unit_index(self.match_ids, match_id, "match")
        rows = unit_rows(self.deal_match, self.deal_no, match_id)
        return MatchRecord(self.config, int(self.arrays.dealer[rows[0]]),
                           tuple(record_of(self.arrays, int(i)) for i in rows))


def simulate_matches(config: R.TrucConfig, policies, n_matches: int, seed: int = 0, *,
                     first_match: int = 0, max_deals: int = 2000) -> MatchBatch:
    """Play matches ``first_match .. first_match + n_matches - 1`` of ``seed`` (TR-6).

    Seat ``match_id % 2`` deals first; the deal alternates after every deal
    (played, null or abandoned) and across manches; scores reset at each
    manche. Raises ``RuntimeError`` if a match needs more than ``max_deals``
    deals (policies that always ask for new cards never score).
    """
    n_matches = check_count("n_matches", n_matches)
    first_match = check_count("first_match", first_match, low=0)
    max_deals = check_count("max_deals", max_deals)
    entropy = rng.root_entropy(seed)
    dispatch = Dispatch(policies)
    ids = np.arange(first_match, first_match + n_matches, dtype=np.int64)
    dealer = (ids % 2).astype(I8)
    scores = np.zeros((n_matches, 2), dtype=np.int16)
    wins = np.zeros((n_matches, 2), dtype=np.int16)
    manche = np.zeros(n_matches, dtype=np.int16)
    active = np.arange(n_matches)
    parts, part_match, part_no, part_manche = [], [], [], []
    step = 0
    while active.size:
        if step >= max_deals:
            raise RuntimeError(f"{active.size} match(es) unfinished after {max_deals} deals: "
                               "the policies almost never score")
        units = ids[active]
        deck, shuffle, noise = draw_deals(entropy, units, step, dispatch.uses_noise)
        arrays = play_batch(config, dispatch, deck, dealer[active], scores[active].astype(I8),
                            noise, units, shuffle=shuffle)
        parts.append(arrays)
        part_match.append(units)
        part_no.append(np.full(active.size, step, dtype=np.int16))
        part_manche.append(manche[active].copy())
        scores[active] += arrays.deltas
        over = scores[active].max(axis=1) >= config.target
        ended = active[over]
        wins[ended, np.argmax(scores[ended], axis=1)] += 1  # one deal scores one seat only
        scores[ended] = 0
        manche[ended] += 1
        dealer[active] = 1 - dealer[active]  # TR-6
        active = active[wins[active].max(axis=1) < config.manches_to_win]
        step += 1
    arrays = DealArrays(*(np.concatenate(f) for f in zip(*parts, strict=True)))
    deal_match = np.concatenate(part_match)
    deal_no = np.concatenate(part_no)
    deals = deal_table(arrays, {"match_id": deal_match, "deal_no": deal_no,
                                "manche_no": np.concatenate(part_manche)})
    deals = deals.sort(["match_id", "deal_no"])
    manches = _manche_table(deals, config)
    matches = _match_table(manches, deals, ids, config)
    return MatchBatch(config, entropy, ids, arrays, deal_match, deal_no, deals, manches, matches)


def _manche_table(deals: pl.DataFrame, config: R.TrucConfig) -> pl.DataFrame:
    """One row per manche: first dealer, deals, final scores and winner (TR-6)."""
    return (
        deals.group_by(["match_id", "manche_no"], maintain_order=True)
        .agg(first_dealer=pl.col("dealer").first(), deals=pl.len().cast(pl.Int16),
             score_0=pl.col("delta_0").cast(pl.Int16).sum(),
             score_1=pl.col("delta_1").cast(pl.Int16).sum())
        .with_columns(winner=pl.when(pl.col("score_0") >= config.target).then(0)
                      .otherwise(1).cast(pl.Int8))
    )


def _match_table(manches, deals, ids, config) -> pl.DataFrame:
    """One row per match: first dealer, manches won by each seat, winner, deals (TR-6)."""
    return (
        manches.group_by("match_id", maintain_order=True)
        .agg(first_dealer=pl.col("first_dealer").first(),
             manches_0=(pl.col("winner") == 0).sum().cast(pl.Int8),
             manches_1=(pl.col("winner") == 1).sum().cast(pl.Int8),
             deals=pl.col("deals").sum().cast(pl.Int32))
        .with_columns(winner=pl.when(pl.col("manches_0") >= config.manches_to_win).then(0)
                      .otherwise(1).cast(pl.Int8))
    )
