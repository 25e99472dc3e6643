"""Bango rollouts: determinized worlds of a game in play, continued by the engine.

A decision's world (:class:`TurnWorld`) is the engine state behind it. To deal
a world consistent with what the deciding player knows, everything he has
seen stays: his hand, the centre, every face-up card out of play (common
discard, personal discards, sequences), every hand's size, the stock's size,
and the cards each opponent took face up and still holds (BG-3, BG-4: every
card taken after the deal is taken face up; a bango shows the card played).
The rest — each opponent's dealt card if he still holds it, the stock's
order and the cards removed at the setup (BG-2) — is dealt again uniformly
(:func:`simulators.core.rollout.deal_hidden`).

Each candidate is then forced at the decision and the game played on with
the base policy at every seat (:func:`simulators.bango.engine.play_on`): to
the end of the game with BG-7's last lays (horizon ``game``: his BG-8
score), or to the end of his turn (``turn``: his board's BG-8 score as it
stands, the hand not counted).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from simulators.bango import rules as R
from simulators.bango.observations import CENTRE_SIZE, POLICY_METHODS, centre_counts
from simulators.core import rollout
from simulators.core.params import param

STREAM_ROLLOUT = 11  # apart from the engine's streams (0, 1, 2)
KIND_VALUE = R.KIND_VALUE.astype(np.int64)


@dataclass(frozen=True)
class TurnWorld:
    """The engine state behind a decision of the player on turn (see
    :mod:`simulators.core.rollout`); ``turn`` is the engine's turn step, ``g`` its rows."""

    turn: object
    phase: str
    g: np.ndarray
    seat: np.ndarray
    reveal: int = 0
    rows: np.ndarray | None = None

    def select(self, rows: np.ndarray) -> TurnWorld:
        """The world of some of its rows."""
        return replace(self, rows=self._mine()[rows])

    def _mine(self) -> np.ndarray:
        return np.arange(len(self.g)) if self.rows is None else self.rows

    def candidates(self, method: str, answer: np.ndarray, width: int):
        """``draw_on`` and ``lay``: the answer and its opposite; ``bango``: the answer, no
        bango and each held kind of the revealed card's value (BG-5); ``take``: the answer,
        the whole centre and each single centre card (BG-3)."""
        mine = self._mine()
        tb = self.turn.tb
        g, seat = self.g[mine], self.seat[mine]
        if method in ("draw_on", "lay"):
            answer = answer.astype(bool)
            actions = np.stack([answer, ~answer], axis=1)
            return rollout.narrow(actions, np.ones_like(actions), width)
        if method == "bango":
            card = tb.centre[g, tb.centre_len[g] - 1].astype(np.int64)
            kinds = (KIND_VALUE[card] - 1)[:, None] + R.N_VALUES * np.arange(R.N_COLOURS + 1)
            held = tb.hands[g[:, None], seat[:, None], kinds] > 0
            actions = np.concatenate([answer[:, None], np.full((len(g), 1), -1), kinds], axis=1)
            valid = np.concatenate([np.ones((len(g), 2), bool), held], axis=1)
            valid[:, 1:] &= actions[:, 1:] != answer[:, None]
            return rollout.narrow(actions.astype(np.int64), valid, width)
        occupied = tb.centre[g] >= 0
        single = (1 << np.arange(CENTRE_SIZE))[None, :].repeat(len(g), axis=0)
        whole = (occupied * (1 << np.arange(CENTRE_SIZE))).sum(axis=1)
        actions = np.concatenate([answer[:, None].astype(np.int64), whole[:, None], single],
                                 axis=1)
        valid = np.concatenate([np.ones((len(g), 2), bool), occupied], axis=1)
        valid[:, 1:] &= actions[:, 1:] != actions[:, :1]
        return rollout.narrow(actions, valid, width)

    def scores(self, actions, valid, base, k: int, horizon: str, seed: int) -> np.ndarray:
        """Over ``k`` worlds, the deciding seat's BG-8 score after each candidate, the
        same worlds and engine draws for every candidate."""
        from simulators.bango.engine import Dispatch, Resume, play_on, scores

        turn = self.turn
        mine = self._mine()
        n_rows, n_cand = actions.shape
        actions = np.where(valid, actions, actions[:, :1])  # played but not counted: legal
        g, seat = self.g[mine], self.seat[mine]
        units = turn.units[g]
        dealt = self._dealt(g, seat, units, k, seed)  # (n_rows * k) worlds, row-major
        table = dealt.rows(np.tile(np.arange(n_rows * k), n_cand))  # (candidate, row, world)
        row_of = np.tile(np.repeat(np.arange(n_rows), k), n_cand)
        forced = actions[row_of, np.repeat(np.arange(n_cand), n_rows * k)]
        n = turn.config.n_players
        first = (np.repeat(seat, k) - turn.t) % n
        world_units = np.tile(np.repeat(units * k, k) + np.tile(np.arange(k), n_rows), n_cand)
        entropy = int(np.random.SeedSequence(
            (turn.entropy, seed, STREAM_ROLLOUT, turn.t, self.reveal)).generate_state(1)[0])
        resume = Resume(turn.t, self.phase, forced, self.reveal,
                        turns=1 if horizon == "turn" else None)
        play_on(turn.config, Dispatch(base, n), table, np.tile(first, n_cand), world_units,
                entropy, resume)
        who = np.tile(np.repeat(seat, k), n_cand)
        score = scores(table)[np.arange(len(who)), who].astype(np.float64)
        return score.reshape(n_cand, n_rows, k).transpose(1, 0, 2)

    def _dealt(self, g, seat, units, k, seed):
        """The engine rows ``g`` copied ``k`` times each, the hidden cards dealt again."""
        turn = self.turn
        tb = turn.tb.rows(np.repeat(g, k))
        n, w = turn.config.n_players, len(g) * k
        me = np.repeat(seat, k)
        every = np.arange(w)
        others = (me[:, None] + np.arange(1, n)[None, :]) % n
        known = tb.known[every[:, None], others].astype(np.int64)
        hidden = (R.KIND_COPIES[None, :].astype(np.int64) - tb.hands[every, me]
                  - tb.public - centre_counts(tb.centre) - known.sum(axis=1))
        slots = tb.size[every[:, None], others].astype(np.int64) - known.sum(axis=2)
        stock_left = R.N_CARDS - tb.top
        uniforms = rollout.common_worlds(turn.entropy, units, STREAM_ROLLOUT,
                                         (seed, turn.t, self.reveal), k, R.N_CARDS)
        hands, rest = rollout.deal_hidden(hidden, slots, stock_left + tb.removed,
                                          uniforms.reshape(w, -1))
        tb.hands[every[:, None], others] = (known + hands).astype(np.uint8)
        # the stock's cards in order, then the removed cards (BG-2: out of the game)
        position = np.arange(rest.shape[1])[None, :]
        column = np.where(position < stock_left[:, None], tb.top[:, None] + position,
                          position - stock_left[:, None])
        present = rest >= 0
        tb.stock[np.nonzero(present)[0], column[present]] = rest[present]
        return tb


def _registry():
    from simulators.bango.game import GAME  # every registered policy, lookahead included

    return GAME.policies


@dataclass(frozen=True)
class RolloutPolicy(rollout.RolloutPolicy):
    """Rollouts over Bango's stop-or-draw, bangos while drawing, the cards taken on a stop
    and the choice to lay: each candidate tried on ``k`` determinized continuations played
    by ``base``. Defaults measured (docs/strong_players.md): the heuristic as base is some
    30 times cheaper than one-turn optimal stopping and its rollout at k=32 beats optimal
    stopping by more than optimal's own rollout at k=8."""

    registry = staticmethod(_registry)
    methods = POLICY_METHODS
    decision_kinds = ("draw_on", "bango", "take", "lay")
    horizons = ("turn", "game")
    base: str = param("heuristic", doc=rollout.BASE_DOC)
    k: int = param(32, low=1, high=4096, doc=rollout.K_DOC)
