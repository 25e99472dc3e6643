"""Five Crowns lookahead: the exact expectation over the next stock card (FC-3, FC-5).

From the deciding player's seat, the cards he has not seen — the stock and
the others' cards he did not see them take from the pile — lie in a uniform
random order, so the next stock card is uniform over them:
``unseen = KIND_COPIES - hand - seen`` (FC-1: two of each suited kind, six
jokers; ``seen`` as in :mod:`.observations`), each kind weighted by its
copies left. Every expectation is an exact weighted sum over the unseen
kinds, each hand solved by the exact meld solver (:mod:`.melds`): no sampling.

**Draw** (FC-3). Take the discard-pile top iff the least penalty after taking
it and making the best discard, plus ``take_margin``, is below the expected
least penalty after a stock draw and the best discard,
``E_c[best_discard(hand + c)]``. On a tie the player draws from the stock
(strict inequality, like the heuristic: a stock draw shows the others
nothing). On a last turn after someone went out (FC-5) this is exactly the
draw that minimises the expected penalty.

**Discard.** Each distinct held kind ``d`` is valued by the expected least
penalty after the player's next turn,
``value(d) = E_c[min_e pen(hand - d + c - e)] = E_c[best_discard(hand - d + c)]``
(``e`` runs over ``hand - d + c``; ``e = c`` throws the drawn card back and
keeps ``pen(hand - d)``). The value assumes the next turn draws from the
stock: the pile's top then is the next player's discard, unknown now; a
player free to take it when better can only do better, so ``value(d)``
bounds that turn's expected penalty from above. It also reads the next stock
card from today's unseen cards, ignoring what the others' turns in between
will show (their discards, their takes). The thrown card ``d`` is not among
the unseen: held now, on the pile then. The lowest value wins; ties go to
the lowest immediate penalty ``min_penalty(hand - d)``, then to the
heuristic's ``tie_break`` (0: highest own penalty then highest kind, as
:func:`.melds.best_discard`; 1: lowest own penalty; 2: keep wilds; then the
lowest kind). A discard that goes out (``pen(hand - d) = 0``) is always
chosen: its value is 0 and so is its immediate penalty. Last turns (FC-5:
no next turn) play the heuristic's discard, the least immediate penalty.

**Going out**: as the heuristic (at once, unless ``wait_turns``).

Cost: one :func:`.melds.best_discard` per (held kind, unseen kind) pair and
row at a discard (14 x 56 hands at most in round 11: about a millisecond a
decision), one per unseen kind at a draw (``bench/five_crowns_lookahead.py``).
``min_e pen(hand - d + c - e)`` is one ``best_discard`` search (the solver's
own best removal), cheaper than solving the hands ``hand - d - e + c`` of
every unordered pair {d, e} with ``min_penalty``: on the same discards of
real rounds, 3.8 (round 6) to 6.1 (round 11) times as many hands, whose
solving alone took 1.9 to 2.6 times as long as this whole path. The hands
of a whole observation batch go through the solver together, in blocks of
at most ``MAX_HANDS``.

Measured (this project's 2-core machine, one job), against the heuristic's
defaults before their re-tuning (``take_margin=0``, ``tie_break=0``; the
figures against today's defaults are in docs/rollouts.md): the lookahead at
seat 0 of 4 players against heuristics, the paired gain in penalty points a round
with its 95% interval, ``tapisvert compare five-crowns --a lookahead --b
heuristic --rounds N --option round_no=R --n-jobs 1 --json``: round 1
+3.93 [3.90, 3.96] (N = 350,000), round 6 +2.65 [2.58, 2.71] (90,000),
round 11 +2.74 [2.65, 2.83] (34,000). The draw alone
(``--a-param discard_ahead=false``) gains +2.24 [2.19, 2.28], +2.25
[2.14, 2.36] and +2.45 [2.34, 2.57] (100,000, 30,000 and 20,000 rounds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simulators.core.params import param
from simulators.five_crowns import melds
from simulators.five_crowns.odds import KIND_COPIES
from simulators.five_crowns.policies import PENALTIES, WILD_KINDS, HeuristicPolicy, removals

I8 = np.int8
MAX_HANDS = 1 << 17
"""Hands per solver call: bounds the memory of a batch (56 bytes a hand)."""


def unseen_cards(hand: np.ndarray, seen: np.ndarray | None) -> np.ndarray:
    """(N, 56) int64 copies of each kind the player has not seen: the deck (FC-1) minus his
    hand and the cards he saw outside it (None: none seen). The next stock card is
    uniform over them."""
    counts = KIND_COPIES[None, :] - hand.astype(np.int64)
    if seen is not None:
        counts = counts - seen.astype(np.int64)
    if (counts < 0).any():
        raise ValueError("lookahead: the hand and the seen cards exceed the deck (FC-1)")
    return counts


def _ragged_arange(sizes: np.ndarray) -> np.ndarray:
    """0..s-1 for each size s, concatenated."""
    total = int(sizes.sum())
    return np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes)


def stock_sums(bases: np.ndarray, owner: np.ndarray, unseen: np.ndarray, wild: int
               ) -> np.ndarray:
    """Copy-weighted sums of the least penalty after drawing each unseen card and making the
    best discard: ``sum_c unseen[owner[m], c] * best_discard(bases[m] + c)`` per base hand.

    Parameters
    ----------
    bases : (M, 56) hands before the stock draw.
    owner : (M,) the row of ``unseen`` each base hand draws from.
    unseen : (N, 56) copies of each kind the stock card may be (:func:`unseen_cards`).
    wild : the round's wild rank.

    Returns
    -------
    (M,) int64; divided by ``unseen[owner].sum(axis=1)`` it is the exact expectation.
    """
    rows_u, kinds_u = np.nonzero(unseen)
    per_row = np.bincount(rows_u, minlength=len(unseen))
    start = np.cumsum(per_row) - per_row
    size = per_row[owner]
    ends = np.cumsum(size)
    out = np.zeros(len(bases), dtype=np.int64)
    lo = 0
    while lo < len(bases):
        before = ends[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, before + MAX_HANDS, side="right")))
        block = np.arange(lo, hi)
        rep = np.repeat(block, size[block])
        if rep.size:
            kind = kinds_u[start[owner[rep]] + _ragged_arange(size[block])]
            hands = bases[rep]
            hands[np.arange(rep.size), kind] += 1
            penalty, _ = melds.best_discard(hands, wild)
            weight = unseen[owner[rep], kind] * penalty.astype(np.int64)
            out[lo:hi] = np.bincount(rep - lo, weights=weight, minlength=hi - lo).round()
        lo = hi
    return out


@dataclass(frozen=True)
class LookaheadPolicy(HeuristicPolicy):
    """One turn ahead: the exact expected least penalty over the next stock card.

    Draws and discards by the expectation over the unseen cards (the next
    stock card is uniform over them), each hand solved by the exact solver.

    Draw: take the pile's top iff its penalty after the best discard (plus
    ``take_margin``) is below the expected penalty of a stock draw (ties: the
    stock). Discard: the card leaving the least expected penalty after the next
    turn's stock draw and best discard (ties: the least immediate penalty, then
    ``tie_break``); last turns (FC-5) minimise the immediate penalty. See the
    module docstring for the assumptions.
    """

    units_per_chunk = 200  # milliseconds a decision in round 11: small chunks share --n-jobs
    costly = True  # asked about its own seats' rows only
    draw_with_plan: ClassVar[None] = None
    """None: the lookahead's draw is :meth:`draw` (the heuristic's ``draw_with_plan``
    decides the heuristic's draw); neither the engine nor the odds study asks for a plan."""

    # the exact rule takes on any expected saving: no margin (the heuristic's default of 8
    # is tuned for its own one-card estimate), and the measured tie-break
    take_margin: float = param(0.0, low=0.0, high=100.0,
                               doc="penalty points taking must save over the expected blind draw")
    tie_break: int = param(0, low=0, high=2,
                           doc="among equal discards: 0 highest penalty, 1 lowest, 2 keep wilds")
    discard_ahead: bool = param(True, doc="value a discard by the expected penalty after the "
                                          "next turn (false: the heuristic's discard)")

    def draw(self, obs):
        """Take the top when it beats the stock's expected least penalty by more than the
        margin (FC-3)."""
        take_penalty, sums, total = self._draw_parts(obs)
        take = (take_penalty + self.take_margin) * total < sums
        blind = total == 0  # nothing unseen (never in play): the heuristic's rule
        return np.where(blind, (obs.hand_penalty - take_penalty) > self.take_margin, take)

    def _draw_parts(self, obs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(least penalty after taking the top and the best discard, copy-weighted sum of the
        least penalty after each stock card, copies unseen) per row."""
        hand = np.asarray(obs.hand)
        n = len(hand)
        with_top = hand.copy()
        with_top[np.arange(n), obs.top] += 1
        take_penalty, _ = melds.best_discard(with_top, obs.wild)
        unseen = unseen_cards(hand, obs.seen)
        return take_penalty, stock_sums(hand, np.arange(n), unseen, obs.wild), \
            unseen.sum(axis=1)

    def draw_values(self, obs) -> np.ndarray:
        """(N, 2) float64, what :meth:`draw` weighs, as values (the higher the better):
        column 0 the stock, minus the expected least penalty after a stock draw; column 1
        the top, minus the least penalty after taking it (and ``take_margin``), less 1e-9
        so that a tie goes to the stock as in :meth:`draw`. Blind rows (nothing unseen)
        weigh the heuristic's rule: the hand's penalty against the top's."""
        take_penalty, sums, total = self._draw_parts(obs)
        blind = total == 0
        stock = np.where(blind, -(np.asarray(obs.hand_penalty, np.float64) - self.take_margin),
                         -sums / np.maximum(total, 1))
        return np.stack([stock, -(take_penalty + self.take_margin) - 1e-9], axis=1)

    def discard(self, obs):
        """The kind leaving the least expected penalty after the next turn; last turns
        (FC-5) the least immediate penalty."""
        hand = np.asarray(obs.hand)
        n = len(hand)
        choice = np.full(n, -1, dtype=I8)
        if obs.plan is not None:
            choice[:] = obs.plan
        final = np.asarray(obs.final, dtype=bool) | (not self.discard_ahead)
        now_rows = np.flatnonzero((choice < 0) & final)
        if now_rows.size:
            choice[now_rows] = self._best(hand[now_rows], obs.wild)[1]
        open_rows = np.flatnonzero(choice < 0)
        if open_rows.size:
            choice[open_rows] = self._ahead(hand[open_rows], None if obs.seen is None
                                            else np.asarray(obs.seen)[open_rows], obs.wild)
        return choice

    def discard_values(self, obs) -> np.ndarray:
        """(N, 56) float64, what :meth:`discard` weighs, as values (the higher the better),
        NaN where the kind is not held: minus the expected least penalty after the next
        turn's stock draw, less ``1e-5 *`` the immediate penalty (its first tie-break; the
        others are left as ties); last turns (FC-5) minus the immediate penalty. (The
        plan a policy may pass after a take is not read: the values are the lookahead's.)"""
        hand = np.asarray(obs.hand)
        out = np.full(hand.shape, np.nan)
        final = np.asarray(obs.final, dtype=bool) | (not self.discard_ahead)
        for ahead in (False, True):
            at = np.flatnonzero(final != ahead)
            if not at.size:
                continue
            seen = None if obs.seen is None else np.asarray(obs.seen)[at]
            rows, kinds, now, sums, total = self._discard_parts(hand[at], seen, obs.wild,
                                                                ahead)
            value = -now.astype(np.float64)
            if ahead:
                value = -sums / np.maximum(total[rows], 1) - 1e-5 * now
            out[at[rows], kinds] = value
        return out

    def _discard_parts(self, hand: np.ndarray, seen: np.ndarray | None, wild: int,
                       ahead: bool = True):
        """Each held kind of each hand (one card more than will be kept): (rows, kinds,
        immediate least penalty without it, the copy-weighted sum of the least penalty
        after each next stock card (None unless ``ahead``), copies unseen per hand)."""
        rows, kinds, bases = removals(hand)
        now = melds.min_penalty(bases, wild).astype(np.int64)
        if not ahead:
            return rows, kinds, now, None, None
        unseen = unseen_cards(hand, seen)
        return rows, kinds, now, stock_sums(bases, rows, unseen, wild), unseen.sum(axis=1)

    def _ahead(self, hand: np.ndarray, seen: np.ndarray | None, wild: int) -> np.ndarray:
        """The lookahead discard of each hand (one card more than will be kept)."""
        rows, kinds, now, value, _ = self._discard_parts(hand, seen, wild)
        own = PENALTIES[wild][kinds].astype(np.int64)
        kinds = kinds.astype(np.int64)
        if self.tie_break == 0:  # as melds.best_discard: highest own penalty, highest kind
            secondary, tertiary = -own, -kinds
        elif self.tie_break == 1:  # lowest own penalty
            secondary, tertiary = own, kinds
        else:  # keep wilds: a natural first, the highest penalty among them
            secondary, tertiary = np.where(WILD_KINDS[wild][kinds], 1000, 0) - own, kinds
        order = np.lexsort((tertiary, secondary, now, value, rows))
        first = np.ones(len(order), dtype=bool)
        first[1:] = rows[order][1:] != rows[order][:-1]
        return kinds[order[first]].astype(I8)
