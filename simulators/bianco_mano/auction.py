"""Bianco Mano's bidding for the learned player (BM-7): take or pass in each round, and
the family named in round 2, as a net decision taught by rollouts of the card net.

**The teacher.** PIMC cannot value a bid: at bid time most cards are not dealt yet
(BM-4..BM-6), and the espion, the call and the play all follow. A fast card player makes
rollouts cheap: each legal bid of a row is *played out* — the rest of the bidding, the
second distribution, the espion, the call, the bonus and the tricks — over sampled
worlds, by the card net at every seat (:class:`AuctionTeacher`); its value is the bidder's
mean BM-10 score change (0 when everybody passes twice). The worlds are dealt
**consistently with the bidding so far** as the base policy would have bid: candidate
worlds deal the cards he cannot see (every card but his first distribution and the
turned card) uniformly, and are kept when the base policy, holding the world's hands,
passes at every turn before his (the players before him in this round; in round 2 every
other player's round-1 turn too). When fewer than ``worlds`` of ``tries`` candidates agree,
the agreeing ones are used, and the first candidates when none do; the turns before his
are forced to pass either way (``engine.play_batch``'s ``forced_bids``). After his bid the
bidding, the espion, the call and the bonus are the base policy's.

**After the bidding** the taker's espion (BM-4, BM-6: two of his cards set aside) and, at
5 players, his called card (BM-6) are net decisions too, taught the same way
(:meth:`AuctionTeacher.espion_values`, :meth:`AuctionTeacher.call_values`): each legal
pair or card is played out over worlds that deal the cards he cannot see uniformly to the others
(the passes before his take say little of hands that have grown since), the call, the
bonus and the tricks after it by the base policy and the card net. Announcing the bonus
(BM-11) is no net: it only adds 5 towards 45 and capo is judged on card points, so the
heuristic's "announce whenever eligible" is never worse.

**The features.** The families are put in the bidder's order (:func:`family_order`): the
turned family first (the only one he may take in round 1), then the three others by
length, then by strength (BM-1), so the net learns "my longest other family", not four
families. Its actions are the four ordered families and pass; round 1 allows the first
and pass, round 2 the three others and pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.bianco_mano import rules as R
from simulators.bianco_mano.engine import (
    BLOCK_ROWS,
    SEAT_OF_POSITION,
    Dispatch,
    play_batch,
)
from simulators.bianco_mano.observations import BidObs
from simulators.bianco_mano.solver.odds import CardsBy
from simulators.core.learn import cards as C
from simulators.core.learn.card_play import per_row, restore, snapshot_fields
from simulators.core.pimc import row_generator

N_BID_ACTIONS = R.PASS + 1  # the four ordered families, pass
MAX_PLAYERS = max(R.PLAYER_COUNTS)
N_BID_FEATURES = 32 + 8 + 3 + MAX_PLAYERS + 2 + 1
BID_FIELDS = ("hand", "turned_card", "seat", "dealer", "position", "round", "legal",
              "n_players", "bianco_mano")


def family_order(hand: np.ndarray, turned: np.ndarray) -> np.ndarray:
    """(B, 4) the table's family at each of the bidder's places: the turned card's family
    first, then the others by most cards, then the stronger cards (BM-1), then number."""
    return C.strength_order(hand, first=np.asarray(turned, np.int64) % 4)


def bid_features(obs) -> np.ndarray:
    """(B, N_BID_FEATURES): the first distribution in the bidder's family order, the
    turned card's rank, the player count, his position from the dealer's left, the round
    and whether the BM-11 bonus is played."""
    hand = np.asarray(obs.hand, np.uint32)
    b = len(hand)
    turned = np.asarray(obs.turned_card, np.int64)
    rows = np.arange(b)
    flags = np.zeros((b, N_BID_FEATURES - 32), np.float32)
    flags[rows, R.rank_of(turned)] = 1.0
    flags[rows, 8 + per_row(obs, "n_players") - 3] = 1.0
    flags[rows, 11 + per_row(obs, "position")] = 1.0
    flags[rows, 11 + MAX_PLAYERS + per_row(obs, "round") - 1] = 1.0
    flags[:, -1] = per_row(obs, "bianco_mano", 0)
    return np.concatenate([C.ordered_bits(hand, family_order(hand, turned)), flags], axis=1)


def bid_legal(obs) -> np.ndarray:
    """(B, 5) bool: the ordered families, pass."""
    legal = np.asarray(obs.legal, np.int64)
    order = family_order(obs.hand, obs.turned_card)
    out = np.empty((len(legal), N_BID_ACTIONS), bool)
    out[:, :4] = (np.take_along_axis(legal[:, None] >> np.arange(4), order, axis=1) & 1) == 1
    out[:, 4] = (legal >> R.PASS) & 1 == 1
    return out


def bid_action(obs, index: np.ndarray) -> np.ndarray:
    """The net's ordered-family index back to the table's bid (int8)."""
    index = np.asarray(index, np.int64)
    order = family_order(obs.hand, obs.turned_card)
    family = np.take_along_axis(order, np.minimum(index, 3)[:, None], axis=1)[:, 0]
    return np.where(index < 4, family, R.PASS).astype(np.int8)


def bid_snapshot(obs, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The rows' observation as plain arrays, a value per row (the bidding round kept as
    ``bidding_round``: the labels keep a ``round`` column of their own)."""
    return snapshot_fields(obs, rows, BID_FIELDS, rename={"round": "bidding_round"})


def bid_restore(columns: dict[str, np.ndarray]):
    """A snapshot read back as an observation (``round`` its bidding round)."""
    return restore({("round" if k == "bidding_round" else k): v for k, v in columns.items()})


# ---------------------------------------------------------------- the espion and the call

_FIRST, _SECOND = np.triu_indices(32, 1)
N_PAIRS = len(_FIRST)  # 496 pairs of canonical cards, (a, b) with a < b
N_ESPION_FEATURES = 32 + 2
N_CALL_FEATURES = 32 + 32
ESPION_FIELDS = ("hand", "dominant", "seat", "n_players")
CALL_FIELDS = ("hand", "espion", "dominant", "legal")


def _canonical_bits(mask, dominant) -> np.ndarray:
    return C.canonical(C.mask_bits(np.asarray(mask, np.uint32)), np.asarray(dominant, np.int64))


def espion_features(obs) -> np.ndarray:
    """(B, N_ESPION_FEATURES): the taker's cards with the dominant family first, and
    whether he plays alone (3 players) or with a called partner (5)."""
    hand = _canonical_bits(obs.hand, obs.dominant)
    n = per_row(obs, "n_players")
    return np.concatenate([hand, np.stack([n == 3, n == 5], axis=1).astype(np.float32)],
                          axis=1)


def espion_legal(obs) -> np.ndarray:
    """(B, 496) bool: the pairs of his cards (canonical order)."""
    held = _canonical_bits(obs.hand, obs.dominant) > 0
    return held[:, _FIRST] & held[:, _SECOND]


def pair_masks(index: np.ndarray, dominant: np.ndarray) -> np.ndarray:
    """Canonical pair indices back to the table's two-card masks (uint32)."""
    index, dominant = np.asarray(index, np.int64), np.asarray(dominant, np.int64)
    a = C.from_canonical(_FIRST[index], dominant).astype(np.uint32)
    b = C.from_canonical(_SECOND[index], dominant).astype(np.uint32)
    return (np.uint32(1) << a) | (np.uint32(1) << b)


def espion_action(obs, index: np.ndarray) -> np.ndarray:
    """The net's pair index back to the espion's card mask (uint32)."""
    return pair_masks(index, obs.dominant)


def call_features(obs) -> np.ndarray:
    """(B, N_CALL_FEATURES): his hand and his espion, the dominant family first."""
    return np.concatenate([_canonical_bits(obs.hand, obs.dominant),
                           _canonical_bits(obs.espion, obs.dominant)], axis=1)


def call_legal(obs) -> np.ndarray:
    """(B, 32) bool: the cards he may call (canonical order)."""
    return _canonical_bits(obs.legal, obs.dominant) > 0


def call_action(obs, index: np.ndarray) -> np.ndarray:
    return C.from_canonical(np.asarray(index, np.int64), obs.dominant).astype(np.int8)


class _Forcing(Dispatch):
    """The table's dispatch, the espion and the call replaced where ``forced`` says (0 and
    -1: ask). Every row of a batch it plays is taken (forced bids), so each decision after
    the bidding is asked once for all rows, in order."""

    def __init__(self, policies, n_players: int, forced: dict[str, np.ndarray]):
        super().__init__(policies, n_players)
        self.forced = forced

    def __call__(self, method, obs, seat, dtype):
        out = super().__call__(method, obs, seat, dtype)
        forced = self.forced.get(method)
        if forced is None:
            return out
        keep = forced == 0 if method == "espion" else forced < 0
        return np.where(keep, out, forced).astype(dtype)


# ---------------------------------------------------------------- the teacher


def _slots(n: int, first: int, position: int) -> np.ndarray:
    """Post-cut deck places of ``position``'s first distribution (BM-4..BM-6)."""
    second = R.FIRST_DISTRIBUTION[n] - first
    return np.r_[first * position:first * (position + 1),
                 n * first + second * position:n * first + second * (position + 1)]


@dataclass(frozen=True)
class AuctionTeacher:
    """Each legal bid, espion or call of a row played out over ``worlds`` worlds (module
    docstring); ``card`` plays the cards at every seat, ``base`` makes every other decision
    and is the model the bids' worlds are kept by."""

    card: object
    base: object
    worlds: int = 32
    tries: int = 8  # candidate worlds drawn per kept world
    seed: int = 0

    def _worlds(self, gen, n: int, position: int, round_no: int, hand: int, turned: int,
                bianco_mano: bool) -> np.ndarray:
        """(worlds, 32) post-cut decks (cut 0, dealer seat 0, the large packet first) that
        deal ``hand`` at ``position`` and turn ``turned``, kept as the module says."""
        first = max(R.FIRST_PACKET_CHOICES[n])
        h1 = R.FIRST_DISTRIBUTION[n]
        count = self.tries * self.worlds
        unknown = np.array([c for c in range(R.N_CARDS) if not (hand >> c & 1) and c != turned],
                           np.int8)
        dealt = gen.permuted(np.broadcast_to(unknown, (count, len(unknown))), axis=1)
        others = [p for p in range(n) if p != position]
        deck = np.empty((count, R.N_CARDS), np.int8)
        deck[:, _slots(n, first, position)] = [c for c in range(R.N_CARDS) if hand >> c & 1]
        deck[:, np.concatenate([_slots(n, first, p) for p in others])] = dealt[:, :len(others)
                                                                             * h1]
        deck[:, n * h1] = turned
        deck[:, n * h1 + 1:] = dealt[:, len(others) * h1:]
        agree = np.ones(count, bool)
        turns = [(1, p) for p in range(n if round_no == 2 else position)]
        turns += [(2, p) for p in range(position)] if round_no == 2 else []
        turned_bit = 1 << (turned % 4)
        for rnd, p in turns:
            if p == position:  # his own round-1 pass says nothing of the others
                continue
            hands = (np.uint32(1) << deck[:, _slots(n, first, p)].astype(np.uint32)).sum(
                axis=1, dtype=np.uint32)
            legal = (turned_bit if rnd == 1 else 15 & ~turned_bit) | (1 << R.PASS)
            bids = self.base.bid(BidObs(hands, np.full(count, turned, np.int8),
                                        np.full(count, SEAT_OF_POSITION[n][0, p], np.int8),
                                        np.zeros(count, np.int8), p, rnd,
                                        np.full(count, legal, np.uint8), n, bianco_mano, None))
            agree &= np.asarray(bids) == R.PASS
        kept = np.flatnonzero(agree)[: self.worlds]
        return deck[kept if len(kept) else np.arange(self.worlds)]

    # -- after the bidding ----------------------------------------------------------------
    def _dealt_to_taker(self, gen, n: int, cards: int, dominant: int
                        ) -> tuple[np.ndarray, np.ndarray]:
        """(worlds, 32) post-cut decks (cut 0, dealer seat 0) dealing the taker's ``cards``
        (espion included) to position 0, the others' uniformly, and the (worlds, 2n) bids
        that make him the taker of ``dominant``: in round 1 with one of his dominant cards
        turned, else in round 2 after everybody passed."""
        first, h1, size = max(R.FIRST_PACKET_CHOICES[n]), R.FIRST_DISTRIBUTION[n], \
            R.SECOND_PACKET[n]
        places, at = [list(_slots(n, first, p)) for p in range(n)], n * h1 + 1
        for p in range(n):
            take = size - 1 if n == 4 and p == 0 else size
            places[p] += list(range(at, at + take))
            at += take
        if n != 4:
            places[0].append(R.N_CARDS - 1)  # the last card, face down (BM-4, BM-6)
        held = [c for c in range(R.N_CARDS) if cards >> c & 1]
        trumps = [c for c in held if c % 4 == dominant]
        turned = int(gen.choice(trumps)) if trumps else held[0]
        rest = np.array([c for c in held if c != turned], np.int8)
        unknown = np.array([c for c in range(R.N_CARDS) if not cards >> c & 1], np.int8)
        w = self.worlds
        deck = np.empty((w, R.N_CARDS), np.int8)
        deck[:, n * h1] = turned
        deck[:, places[0]] = gen.permuted(np.broadcast_to(rest, (w, len(rest))), axis=1)
        dealt = gen.permuted(np.broadcast_to(unknown, (w, len(unknown))), axis=1)
        deck[:, np.concatenate([places[p] for p in range(1, n)])] = dealt
        bids = np.full((w, 2 * n), -1, np.int8)
        if trumps:
            bids[:, 0] = dominant
        else:
            bids[:, :n] = R.PASS
            bids[:, n] = dominant
        return deck, bids

    def _play_forced(self, config: R.BiancoManoConfig, deck, bids, forced: dict[str, np.ndarray],
                     seat: int) -> np.ndarray:
        """``seat``'s BM-10 score change in each world (dealer seat 0, cut 0, the large
        packet first), the bids and ``forced`` answers imposed; played in pieces of at most
        one engine block (so each decision after the bidding sees every row at once)."""
        n = config.n_players
        out = []
        for start in range(0, len(deck), BLOCK_ROWS):
            piece = slice(start, start + BLOCK_ROWS)
            m = len(deck[piece])
            dispatch = _Forcing(CardsBy(self.base, self.card), n,
                                {k: v[piece] for k, v in forced.items()})
            arrays = play_batch(config, dispatch, deck[piece], np.zeros(m, np.int64),
                                np.zeros(m, np.int8), None, np.arange(m, dtype=np.int64),
                                first_packet=max(R.FIRST_PACKET_CHOICES[n]),
                                forced_bids=bids[piece])
            out.append(arrays.deltas[:, seat].astype(np.float64))
        return np.concatenate(out)

    def _option_values(self, n: int, rows_options, decision: str) -> list[np.ndarray]:
        """Each row's options (cards of the taker, dominant, forced answers per option)
        played out over its worlds: a (options,) mean per row."""
        decks, bids, forced, sizes = [], [], {"espion": [], "call": []}, []
        for gen, cards, dominant, espion, options in rows_options:
            deck, bid = self._dealt_to_taker(gen, n, cards, dominant)
            for option in options:
                decks.append(deck)
                bids.append(bid)
                forced["espion"].append(np.full(len(deck), option if decision == "espion"
                                                else espion, np.uint32))
                forced["call"].append(np.full(len(deck), option if decision == "call" else -1,
                                              np.int8))
            sizes.append(len(options))
        change = self._play_forced(R.BiancoManoConfig(n_players=n), np.concatenate(decks),
                                   np.concatenate(bids),
                                   {k: np.concatenate(v) for k, v in forced.items()}, seat=1)
        means = change.reshape(-1, self.worlds).mean(axis=1)
        return np.split(means, np.cumsum(sizes)[:-1])

    def espion_values(self, obs, rows: np.ndarray) -> np.ndarray:
        """(len(rows), 496) each pair of his cards set aside, its mean BM-10 score change
        of the taker over the worlds (canonical pairs); NaN elsewhere."""
        n = int(per_row(obs, "n_players")[0])
        legal = espion_legal(obs)
        plan = []
        for i in rows:
            hand, dominant = int(obs.hand[i]), int(obs.dominant[i])
            pairs = np.flatnonzero(legal[i])
            masks = pair_masks(pairs, np.full(len(pairs), dominant))
            gen = row_generator(self.seed, obs.noise[i], hand, dominant, n, 7)
            plan.append((gen, hand, dominant, 0, masks.tolist()))
        out = np.full((len(rows), N_PAIRS), np.nan)
        for k, (i, values) in enumerate(zip(rows, self._option_values(n, plan, "espion"),
                                            strict=True)):
            out[k, np.flatnonzero(legal[i])] = values
        return out

    def call_values(self, obs, rows: np.ndarray) -> np.ndarray:
        """(len(rows), 32) each card he may call, its mean BM-10 score change of the taker
        over the worlds (canonical order); NaN elsewhere (5 players, BM-6)."""
        legal = call_legal(obs)
        plan = []
        for i in rows:
            hand, espion = int(obs.hand[i]), int(obs.espion[i])
            dominant = int(obs.dominant[i])
            calls = C.from_canonical(np.flatnonzero(legal[i]), np.full(legal[i].sum(),
                                                                       dominant))
            gen = row_generator(self.seed, obs.noise[i], hand, espion, 11)
            plan.append((gen, hand | espion, dominant, espion, calls.tolist()))
        out = np.full((len(rows), 32), np.nan)
        for k, (i, values) in enumerate(zip(rows, self._option_values(5, plan, "call"),
                                            strict=True)):
            out[k, np.flatnonzero(legal[i])] = values
        return out

    def bid_values(self, obs, rows: np.ndarray) -> np.ndarray:
        """(len(rows), 5) each legal bid's mean BM-10 score change of the bidder over the
        worlds, in the net's family order; NaN where illegal."""
        n = int(per_row(obs, "n_players")[0])
        position, round_no = int(per_row(obs, "position")[0]), int(per_row(obs, "round")[0])
        bianco_mano = bool(per_row(obs, "bianco_mano", 0)[0])
        slot = (round_no - 1) * n + position
        blocks, plan = [], []
        for k, i in enumerate(rows):
            hand, turned = int(obs.hand[i]), int(obs.turned_card[i])
            gen = row_generator(self.seed, obs.noise[i], hand, turned, n, slot)
            deck = self._worlds(gen, n, position, round_no, hand, turned, bianco_mano)
            for option in range(N_BID_ACTIONS):
                if int(obs.legal[i]) >> option & 1:
                    blocks.append(deck)
                    plan.append((k, option))
        deck = np.concatenate(blocks)
        total = len(deck)
        forced = np.full((total, 2 * n), -1, np.int8)
        forced[:, :slot] = R.PASS  # the turns before his: passed, as the worlds were kept
        forced[:, slot] = np.concatenate([np.full(len(b), o) for b, (_, o) in zip(blocks, plan,
                                                                                  strict=True)])
        change = self._play_forced(R.BiancoManoConfig(n_players=n, bianco_mano=bianco_mano),
                                   deck, forced, {}, seat=SEAT_OF_POSITION[n][0, position])
        by_family = np.full((len(rows), N_BID_ACTIONS), np.nan)
        start = 0
        for block, (k, option) in zip(blocks, plan, strict=True):
            by_family[k, option] = change[start:start + len(block)].mean()
            start += len(block)
        order = family_order(np.asarray(obs.hand)[rows], np.asarray(obs.turned_card)[rows])
        out = by_family.copy()
        out[:, :4] = np.take_along_axis(by_family[:, :4], order, axis=1)
        return out
