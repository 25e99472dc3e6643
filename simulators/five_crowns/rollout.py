"""Five Crowns rollouts: determinized worlds of a round in play, continued by the engine.

A decision's world (:class:`RoundWorld`) is the engine state behind it. To
deal a world consistent with what the deciding player knows, everything he
sees stays: his hand, the discard pile, the stock's size, every hand's size,
and the cards the others took from the pile and have not thrown since
(FC-3: a take is public). The rest — the stock's order and the others'
other cards — is dealt again uniformly (:func:`simulators.core.rollout.deal_hidden`). Players do not
count through an FC-6 reshuffle (the engine's ``seen``; a stated reading).

Each candidate action is then forced at the decision and the round played
on with the base policy at every seat (:func:`simulators.five_crowns.engine.play_on`),
to the end of the deciding player's turn (horizon ``turn``: minus his hand's
least penalty) or of the round (``round``: minus his penalty, FC-5). Later
rounds are dealt afresh (FC-2) and no decision of this round changes them,
so ``round`` is the longest horizon that matters for the penalty.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.core import rollout
from simulators.five_crowns import melds
from simulators.five_crowns import rules as R
from simulators.five_crowns.observations import POLICY_METHODS
from simulators.five_crowns.policies import removals

KIND_COPIES = np.array([2] * R.JOKER + [6], dtype=np.int16)  # FC-1: two sets, 3 jokers each
STREAM_ROLLOUT = 11  # apart from the engine's (0, 2, 4) and the odds' (9)
PHASES = {"draw": 0, "discard": 1, "go_out": 2}


@dataclass(frozen=True)
class RoundWorld:
    """The engine state behind one decision of some rows (see :mod:`simulators.core.rollout`).

    ``rows`` index the engine's active rows; ``hand`` is the deciding seats' live hand
    (the observation's), ``phase`` 0 draw, 1 discard, 2 go out with what came before.
    """

    config: R.FiveCrownsConfig
    rd: object
    round_no: int
    dealer: np.ndarray
    units: np.ndarray
    entropy: int
    key: int
    active: np.ndarray
    seat: np.ndarray
    t: int
    hand: np.ndarray
    rows: np.ndarray | None = None
    phase_no: int = 0
    took: np.ndarray | None = None
    drawn: np.ndarray | None = None
    discard: np.ndarray | None = None

    def phase(self, phase_no: int, **facts) -> RoundWorld:
        """This world at a later phase of the same turn."""
        return _replace(self, phase_no=phase_no, **facts)

    def select(self, rows: np.ndarray) -> RoundWorld:
        """The world of some of its rows."""
        mine = np.arange(len(self.active)) if self.rows is None else self.rows
        return _replace(self, rows=mine[rows])

    def _mine(self) -> np.ndarray:
        return np.arange(len(self.active)) if self.rows is None else self.rows

    def candidates(self, method: str, answer: np.ndarray, width: int):
        """Draw and go out: the answer and its opposite; discard: every held kind, the answer
        first, then by the least penalty the hand keeps without it (FC-5)."""
        mine = self._mine()
        if method in ("draw", "go_out"):
            answer = answer.astype(bool)
            actions = np.stack([answer, ~answer], axis=1)
            valid = np.ones_like(actions)
            if method == "go_out":
                rd = self.rd
                final = rd.went_out[self.active[mine]] >= 0
                can = melds.min_penalty(self.hand[mine], R.wild_rank(self.round_no)) == 0
                valid[:, 1] = can & ~final
            return rollout.narrow(actions, valid, width)
        hand = self.hand[mine]
        rows, kinds, removed = removals(hand)
        after = melds.min_penalty(removed, R.wild_rank(self.round_no))
        is_answer = kinds == answer[rows]
        order = np.lexsort((kinds, after, ~is_answer, rows))
        rows, kinds = rows[order], kinds[order]
        rank = np.arange(len(rows)) - np.searchsorted(rows, rows)
        actions = np.full((len(mine), R.N_KINDS), -1, dtype=np.int64)
        actions[rows, rank] = kinds
        valid = actions >= 0
        width_now = int(valid.sum(axis=1).max()) if len(mine) else 1
        return rollout.narrow(np.maximum(actions[:, :width_now], 0), valid[:, :width_now], width)

    def scores(self, actions, valid, base, k: int, horizon: str, seed: int) -> np.ndarray:
        """Over ``k`` worlds, the deciding seat's score (minus his penalty) after each
        candidate, the same worlds and engine draws for every candidate."""
        from simulators.five_crowns.engine import Dispatch, Resume, final_penalties, play_on

        mine = self._mine()
        n_rows, n_cand = actions.shape
        actions = np.where(valid, actions, actions[:, :1])  # played but not counted: legal
        g, seat = self.active[mine], self.seat[mine].astype(np.int64)
        units = self.units[g]
        state = self._dealt(g, seat, units, k, seed)  # (n_rows * k) worlds, row-major
        every = np.repeat(np.arange(n_rows * k)[None, :], n_cand, axis=0).ravel()
        rd = state.rows(every)  # (candidate, row, world)
        row_of = np.tile(np.repeat(np.arange(n_rows), k), n_cand)
        cand_of = np.repeat(np.arange(n_cand), n_rows * k)
        forced = actions[row_of, cand_of]
        facts = {name: (None if value is None else value[mine][row_of])
                 for name, value in (("took", self.took), ("drawn", self.drawn),
                                     ("discard", self.discard))}
        resume = Resume(self.t, self.phase_no, forced, turns=1 if horizon == "turn" else None,
                        **facts)
        world_units = np.tile(np.repeat(units * k, k) + np.tile(np.arange(k), n_rows), n_cand)
        entropy = int(np.random.SeedSequence(
            (self.entropy, seed, STREAM_ROLLOUT, self.t, self.phase_no)).generate_state(1)[0])
        n = self.config.n_players
        play_on(self.config, Dispatch(base, n), rd, self.round_no,
                self.dealer[g][row_of], world_units, entropy, self.key, resume)
        who = np.tile(np.repeat(seat, k), n_cand)
        if horizon == "turn":
            score = -rd.penalty[np.arange(len(who)), who]
        else:
            score = -final_penalties(rd, self.round_no)[np.arange(len(who)), who]
        return score.astype(np.float64).reshape(n_cand, n_rows, k).transpose(1, 0, 2)

    def _copies(self, g, seat, k):
        """The true state of the rows ``g``, ``k`` times each (the live hand included)."""
        rd = self.rd.rows(np.repeat(g, k))
        rd.hands[np.arange(len(g) * k), np.repeat(seat, k)] = np.repeat(
            self.hand[self._mine()], k, axis=0)
        return rd

    def _dealt(self, g, seat, units, k, seed):
        """The engine rows ``g`` copied ``k`` times each, the hidden cards dealt again."""
        rd = self._copies(g, seat, k)
        n = self.config.n_players
        w = len(g) * k
        me = np.repeat(seat, k)
        others = (me[:, None] + np.arange(1, n)[None, :]) % n
        flat = np.arange(w)[:, None]
        uniforms = rollout.common_worlds(self.entropy, units, STREAM_ROLLOUT,
                                         (seed, self.t, self.phase_no), k, R.N_CARDS)
        known = rd.known[flat, others]
        hidden = KIND_COPIES[None, :] - rd.hands[np.arange(w), me] - rd.seen_by(np.arange(w), me)
        slots = rd.hands[flat, others].sum(axis=2, dtype=np.int64) - known.sum(axis=2)
        dealt, stock = rollout.deal_hidden(hidden, slots, rd.stock_end - rd.stock_top,
                                           uniforms.reshape(w, -1))
        rd.hands[flat, others] = (known + dealt).astype(np.uint8)
        column = rd.stock_top[:, None] + np.arange(stock.shape[1])[None, :]
        fill = (stock >= 0) & (column < R.N_CARDS)
        rd.stock[np.nonzero(fill)[0], column[fill]] = stock[fill]
        return rd


def _replace(world: RoundWorld, **changes) -> RoundWorld:
    return RoundWorld(**{**world.__dict__, **changes})


def _registry():
    from simulators.five_crowns.game import GAME  # every registered policy, lookahead included

    return GAME.policies


@dataclass(frozen=True)
class RolloutPolicy(rollout.RolloutPolicy):
    """Rollouts over Five Crowns' draw (take the discard or the stock), discard and going
    out: each candidate tried on ``k`` determinized continuations played by ``base``."""

    registry = staticmethod(_registry)
    methods = POLICY_METHODS
    decision_kinds = ("draw", "discard", "go_out")
    horizons = ("turn", "round")
