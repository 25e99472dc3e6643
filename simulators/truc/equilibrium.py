"""The "equilibrium" Truc policy: it samples a solved Truc deal (``simulators/truc/solver``).

:class:`EquilibriumPolicy` is a plain policy (``observations.py``): for each
row it finds the information set in the solved tree — the hand, the card
call, the public history read from the observation — and samples the
solution's action with the row's noise. What it plays:

* **Default (``score_aware``, ``card_call``): Truc as played.** At each
  scores pair the deal — card call (TR-2) and play — solved for the chance
  of winning the manche, with the equity table shipped in the package as
  the worth of the scores each deal leads to (``solver/manche.py``). A
  state is loaded from the user cache, or solved on first use (seconds
  near 12, a few minutes at 0-0) and cached; ``tapisvert solve truc
  --equity --recompute`` solves all of them.
* ``score_aware=False``: the deal solved for points per deal at
  ``solved_scores`` (with the card call), played at every score; proposals
  are matched by order (the k-th accepted proposal of the real deal follows
  the tree's k-th; an extra raise the tree has no room for is skipped).
* ``card_call=False``: the deal without the card call (the solver's older
  game), asking for new cards when the hand's equilibrium value in its seat
  is below the seat's value minus ``call_margin`` — an abstraction that a
  best response exploits (docs/truc_solver.md); kept for comparison.
* Counter-banco where the tree has none: accept; the reply to a counter the
  tree has no node for: accept.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np

from simulators.core import bits
from simulators.core.params import Policy, param
from simulators.truc import rules as R
from simulators.truc.solver.manche import TARGET_FLOOR
from simulators.truc.solver.packed import ShippedState
from simulators.truc.solver.solutions import DEFAULT_TARGET

# tree action labels (simulators/truc/solver/deal.py), repeated here to keep numba unimported
PASS, PROPOSE, REFUSE, ACCEPT, COUNTER, PLAY = 0, 1, 2, 3, 4, 5

M_PROPOSE, M_ANSWER, M_REPLY, M_PLAY = 0, 1, 2, 3
_SOLVED: dict = {}  # card_call false: (scores, target) -> (SolvedDeal, hand values per seat)
_TYPE_INDEX: dict = {}  # id(deal tree) -> (deal tree, hand index table); "full" -> table


def load_solution(scores=(0, 0), target: float = 0.005):
    """The solved deal at ``scores`` (non-dealer, dealer) and its hand values, once per process."""
    from simulators.truc.solver.deal import DealSpec
    from simulators.truc.solver.solutions import hand_values, solved_deal

    key = (tuple(int(s) for s in scores), float(target))
    if key not in _SOLVED:
        solved = solved_deal(DealSpec(scores=key[0]), target=key[1])
        _SOLVED[key] = (solved, hand_values(solved))
    return _SOLVED[key]


def _hand_index(type_counts: np.ndarray) -> np.ndarray:
    """Base-5 code of a hand's rank counts -> hand index (-1 if not a hand)."""
    table = np.full(5 ** 8, -1, dtype=np.int64)
    codes = type_counts.astype(np.int64) @ (5 ** np.arange(8))
    table[codes] = np.arange(len(codes))
    return table


def _type_index(deal) -> np.ndarray:
    """:func:`_hand_index` of a deal tree's hands, once per deal."""
    cached = _TYPE_INDEX.get(id(deal))
    if cached is not None and cached[0] is deal:
        return cached[1]
    table = _hand_index(deal.type_counts)
    _TYPE_INDEX[id(deal)] = (deal, table)
    return table


def _rank_counts(mask: np.ndarray) -> np.ndarray:
    """(N, 8) count of each rank in uint32 card masks."""
    m = np.asarray(mask, dtype=np.uint32)
    return np.stack([np.bitwise_count((m >> np.uint32(4 * r)) & np.uint32(15))
                     for r in range(8)], axis=1).astype(np.int64)


_STATES: dict = {}  # (scores, payoff, target) -> StateSolution; per process


def load_state(scores, payoff: str, target: float):
    """A solved state with the card call (its play memory-mapped from the cache), once per
    process."""
    from simulators.truc.solver.solutions import solved_state

    key = (tuple(int(s) for s in scores), payoff, float(target))
    if key not in _STATES:
        if not _STATES:
            _say_on_stderr("the full-precision solution loads each state from the cache when "
                           "a deal first reaches it (under a second each, up to 144 states "
                           "per process; a state missing from the cache is solved first)")
        _STATES[key] = solved_state(key[0], payoff, card_call=True, target=key[2],
                                    log=_say_on_stderr)
    return _STATES[key]


def _say_on_stderr(message: str) -> None:
    """A state missing from the cache takes seconds to minutes to solve: say so, and how far
    the solve is, rather than leave a silent wait before the first deal (issue 34)."""
    print(f"tapisvert: truc equilibrium: {message}", file=sys.stderr, flush=True)


def _full_deck_type_index() -> np.ndarray:
    """:func:`_hand_index` of the 32-card deal's hands (every stored state's)."""
    if "full" not in _TYPE_INDEX:
        from simulators.truc.solver.deal import DealSpec, _type_counts

        _TYPE_INDEX["full"] = _hand_index(_type_counts(DealSpec()))
    return _TYPE_INDEX["full"]


class _Tree(NamedTuple):
    """What the lookup walks: a deal tree's arrays and one strategy over its entries."""

    kind: np.ndarray
    child_start: np.ndarray
    n_children: np.ndarray
    action: np.ndarray
    player: np.ndarray
    entry_start: np.ndarray
    entry_count: np.ndarray
    entry_type: np.ndarray
    strategy: np.ndarray


@dataclass(frozen=True)
class EquilibriumPolicy(Policy):
    """Samples a solved Truc deal (see the module docstring)."""

    uses_noise: ClassVar[bool] = True

    score_aware: bool = param(True, doc="play each score's solution for the chance of winning "
                                        "the manche (false: points at solved_scores)")
    card_call: bool = param(True, doc="the card call (TR-2) is in the solved game (false: the "
                                      "deal alone, a value-threshold call)")
    solved_scores: int = param(0, low=0, high=11, only_with={"score_aware": False},
                               doc="score of both players where the points solution is "
                                   "solved (score_aware false)")
    shipped: bool = param(True, only_with={"card_call": True},
                          doc="play the solution shipped in the package where it has the "
                              "state (packed: every score's manche solution and the points "
                              "solution at 0-0, at the default target); false: the "
                              "full-precision solution from the user cache, solved on first "
                              "use")
    target_exploitability: float = param(0.005, low=TARGET_FLOOR, high=0.5,
                                         doc="exploitability the stored solutions reach "
                                             "(manche chance, or points per deal)")
    call_margin: float = param(0.0, low=-12.0, high=12.0, only_with={"card_call": False},
                               doc="card_call false: ask for new cards below the seat's "
                                   "value minus this (TR-2)")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.score_aware and not self.card_call:
            raise ValueError("EquilibriumPolicy.score_aware needs card_call: the equity table "
                             "is solved with the card call (set score_aware=false to play "
                             "the deal without it)")

    def _solution(self, scores):
        return load_solution(scores, self.target_exploitability)

    def _rows_by_state(self, obs):
        """[(state, rows)] grouping rows by the solution they play."""
        nd = np.where(obs.is_dealer, obs.opp_score, obs.my_score).astype(np.int64)
        de = np.where(obs.is_dealer, obs.my_score, obs.opp_score).astype(np.int64)
        if not self.score_aware:
            s = self.solved_scores
            return [(self._state((s, s), "points"), np.arange(len(nd)))]
        keys = nd * 100 + de
        return [(self._state((k // 100, k % 100), "manche"), np.flatnonzero(keys == k))
                for k in np.unique(keys)]

    def _state(self, scores, payoff: str):
        """The shipped state where the package has it (``solver/packed.py``), else the
        cache's full-precision one (solved on first use)."""
        if self.shipped and self.target_exploitability == DEFAULT_TARGET:
            from simulators.truc.solver.packed import shipped_state

            found = shipped_state(scores, payoff)
            if found is not None:
                return found
        return load_state(scores, payoff, self.target_exploitability)

    def _rows_by_solution(self, obs):
        """[(solution, rows)] for the deal-only game (card_call false)."""
        s = self.solved_scores
        return [(self._solution((s, s)), np.arange(len(obs.hand)))]

    def call(self, obs):
        """Ask for new cards as the solution does (TR-2)."""
        if not self.card_call:
            return self._value_call(obs)
        out = np.zeros(len(obs.hand), dtype=bool)
        noise = np.full(len(out), 0.5) if obs.noise is None else np.asarray(obs.noise)
        index = _full_deck_type_index()
        role = int(bool(obs.is_dealer))  # the dealer is asked only after the non-dealer asked
        for state, rows in self._rows_by_state(obs):
            types = index[_rank_counts(obs.hand[rows]) @ (5 ** np.arange(8))]
            out[rows] = noise[rows] < state.call[role, types]
        return out

    def _value_call(self, obs):
        """card_call false: ask when the hand's equilibrium value is below the seat's."""
        out = np.zeros(len(obs.hand), dtype=bool)
        for (solved, values), rows in self._rows_by_solution(obs):
            index = _type_index(solved.deal)
            codes = _rank_counts(obs.hand[rows]) @ (5 ** np.arange(8))
            seat = np.asarray(obs.is_dealer, dtype=bool)[rows].astype(np.int64) \
                if np.ndim(obs.is_dealer) else np.full(len(rows), int(obs.is_dealer))
            seat_value = np.where(seat == 0, solved.value, -solved.value)
            out[rows] = values[seat, index[codes]] < seat_value - self.call_margin
        return out

    def propose(self, obs):
        """Propose as the equilibrium does."""
        return self._choose(obs, M_PROPOSE) == PROPOSE

    def answer(self, obs):
        """Refuse, accept or counter as the equilibrium does (accept where it has no node)."""
        method = M_REPLY if obs.countering else M_ANSWER
        label = self._choose(obs, method)
        out = np.where(label < 0, ACCEPT, label) - REFUSE
        if not obs.countering:
            out = np.where((out == R.COUNTER) & (obs.counter <= 0), R.ACCEPT, out)
        return out.astype(np.int8)

    def play(self, obs):
        """Play the rank the equilibrium picks (the lowest suit of it in hand)."""
        label = self._choose(obs, M_PLAY)
        rank = np.where(label >= PLAY, label - PLAY, -1)
        hand = np.asarray(obs.hand, dtype=np.uint32)
        card = bits.bit_index(bits.lowest_bit(hand)).astype(np.int64)  # forced last card
        for r in range(8):
            of_rank = hand & np.uint32(R.RANK_MASK[r])
            low = bits.bit_index(bits.lowest_bit(of_rank)).astype(np.int64)
            card = np.where((rank == r) & (of_rank > 0), low, card)
        return card.astype(np.int8)

    def _choose(self, obs, method: int) -> np.ndarray:
        """Tree action labels chosen for every row (-1 where the tree has no node)."""
        n = len(obs.hand)
        label = np.full(n, -1, dtype=np.int64)
        noise = np.full(n, 0.5, np.float32) if obs.noise is None else np.asarray(obs.noise)
        for tree, type_index, rows in self._trees(obs):
            label[rows] = self._choose_rows(tree, type_index, obs, method, rows, noise[rows])
        return label

    def _trees(self, obs):
        """[(tree, hand index table, rows)]: the card play each row is in."""
        if not self.card_call:
            out = []
            for (solved, _), rows in self._rows_by_solution(obs):
                t = solved.deal.tree
                out.append((_Tree(solved.deal.kind, t.child_start, t.n_children, t.action,
                                  t.player, t.entry_start, t.entry_count, t.entry_type,
                                  solved.strategy), _type_index(solved.deal), rows))
            return out
        asked = np.zeros(len(obs.hand), dtype=bool) if obs.asked is None else \
            np.asarray(obs.asked, dtype=bool)
        out = []
        index = _full_deck_type_index()
        for state, rows in self._rows_by_state(obs):
            for copy in (0, 1):
                part = rows[asked[rows] == bool(copy)]
                if not part.size:
                    continue
                if isinstance(state, ShippedState):
                    out.append(((state, copy), index, part))
                    continue
                look = state.lookup
                tree = _Tree(*(look[k] for k in _Tree._fields[:-1]), state.play[copy])
                out.append((tree, index, part))
        return out

    def _choose_rows(self, tree, type_index, obs, method, rows, noise):
        read = _reading(type_index, obs, method, rows)
        if not isinstance(tree, _Tree):  # (shipped state, copy): keys, no tree
            return _choose_shipped(*tree, obs, method, rows, noise, read)
        from simulators.truc.solver import lookup

        lookup.kernels()
        return lookup._decide(np.full(len(rows), method, np.int64),
                              np.full(len(rows), read.slot, np.int64), read.ranks, read.players,
                              read.raised, read.countered, read.hand_type,
                              noise.astype(np.float64), read.allowed, *tree)


class _Reading(NamedTuple):
    """What the policy reads from the observation rows of one decision: the card slot, each
    slot's rank and player, which slots were raised and countered, the hand as dealt."""

    slot: int
    ranks: np.ndarray
    players: np.ndarray
    raised: np.ndarray
    countered: np.ndarray
    hand_type: np.ndarray
    allowed: np.ndarray
    in_hand: np.ndarray  # (N, 8) count of each rank still in hand


def _reading(type_index, obs, method, rows) -> _Reading:
    """The public history and the hand of ``rows``, as the solved tree reads them."""
    def take(a):
        return np.asarray(a)[rows]

    me = take(obs.is_dealer).astype(np.int64)  # tree roles: 0 non-dealer, 1 dealer
    s = 2 * obs.trick + obs.position
    ranks = np.zeros((len(rows), 6), dtype=np.int64)
    players = np.zeros((len(rows), 6), dtype=np.int64)
    my_cards, opp_cards, i_led = take(obs.my_cards), take(obs.opp_cards), take(obs.i_led)
    for t in range(3):
        led = i_led[:, t]
        ranks[:, 2 * t] = np.where(led, my_cards[:, t], opp_cards[:, t]) >> 2
        ranks[:, 2 * t + 1] = np.where(led, opp_cards[:, t], my_cards[:, t]) >> 2
        players[:, 2 * t] = np.where(led, me, 1 - me)
        players[:, 2 * t + 1] = np.where(led, 1 - me, me)
    stakes = take(obs.stakes).astype(np.int64)
    my_score, opp_score = take(obs.my_score).astype(np.int64), take(obs.opp_score)
    prev = np.concatenate([np.ones((len(rows), 1), np.int64), stakes[:, :-1]], axis=1)
    if s < 6:  # the current slot: stake in force now, before any pending proposal
        stakes[:, s] = take(obs.stake)
        if s > 0:
            prev[:, s] = stakes[:, s - 1]
        players[:, s] = me if obs.to_play else 1 - me
    score_of = np.where(players == me[:, None], my_score[:, None], opp_score[:, None])
    raised = stakes > prev
    countered = raised & (stakes != np.minimum(2 * prev, obs.target - score_of))
    if method in (M_ANSWER, M_REPLY):
        raised[:, s] = True
        countered[:, s] = method == M_REPLY
    mine_played = np.zeros((len(rows), 8), dtype=np.int64)
    for j in range(s):
        hit = players[:, j] == me
        np.add.at(mine_played, (np.flatnonzero(hit), ranks[hit, j]), 1)
    in_hand = _rank_counts(take(obs.hand))
    counts = in_hand + mine_played
    hand_type = type_index[counts @ (5 ** np.arange(8))]
    allowed = np.ones((len(rows), PLAY + 8), dtype=np.bool_)
    if method == M_PLAY:
        allowed[:, PLAY:] = in_hand > 0
    if method == M_ANSWER:
        allowed[:, COUNTER] = take(obs.counter) > 0
    return _Reading(s, ranks, players, raised, countered, hand_type, allowed, in_hand)


_COLUMN_LABELS = {M_PROPOSE: (PASS, PROPOSE, -1), M_ANSWER: (REFUSE, ACCEPT, COUNTER),
                  M_REPLY: (REFUSE, ACCEPT, -1)}


def _choose_shipped(state, copy, obs, method, rows, noise, read: _Reading) -> np.ndarray:
    """Tree action labels from a shipped state's keys (``solver/packed.py``): the columns
    are the legal actions in label order — the ranks in hand, or the betting answers."""
    from simulators.truc.solver.packed import infoset_key, key_of

    n = len(rows)
    raised, countered = read.raised.copy(), read.countered.copy()
    if read.slot < 6 and method == M_PROPOSE:
        raised[:, read.slot] = countered[:, read.slot] = False
    node = key_of(np.full(n, read.slot), method, read.ranks, raised, countered)
    key = infoset_key(node, read.hand_type, copy)
    if method == M_PLAY:
        present = read.in_hand > 0
        order = np.argsort(~present, axis=1, kind="stable")[:, :3]  # ranks held, ascending
        labels = np.where(np.take_along_axis(present, order, axis=1), PLAY + order, -1)
    else:
        labels = np.broadcast_to(np.array(_COLUMN_LABELS[method]), (n, 3))
    allowed = (labels >= 0) & np.take_along_axis(read.allowed, np.maximum(labels, 0), axis=1)
    col = state.choose(key, allowed, noise)
    return np.where(col >= 0, np.take_along_axis(labels, np.maximum(col, 0)[:, None],
                                                 axis=1)[:, 0], -1)
