"""Truc solved over the scores: every state's deal, and the equity table (TR-5, TR-6).

A *state* is the two scores before a deal, (non-dealer, dealer), 0..11 each.
Its deal — card call (TR-2) and play — is solved by CFR+ with one of two
scorings (:class:`Scoring`):

* ``points``: the non-dealer's points minus the dealer's (a deal on its own);
* ``manche``: the non-dealer's chance of winning the manche from the scores
  the deal leads to. The deal alternates (TR-6), so after a deal that leaves
  scores (x, y) the old dealer is the new non-dealer: the old non-dealer's
  chance is ``1 - equity[y, x]``; a deal that takes a player to 12 wins the
  manche (1 or 0); a null or abandoned deal leaves the scores and passes the
  deal (``1 - equity[dealer, non-dealer]``).

The **equity table** ``equity[a, b]`` (the non-dealer's chance of winning the
manche at non-dealer a, dealer b) comes by value iteration: scores never go
down, so the states are solved from a + b = 22 down to 0, each with the
equities of the states above it as payoffs. A null deal at (a, b) leads to
(b, a), on the same line: those two are solved together, each one's null
deal worth the other's current value (a fixed point that CFR+ iterations
and value updates approach together).

Seats: ``equity`` is by role. The chance of seat 0 at scores (s0, s1) when
seat 1 deals is ``equity[s0, s1]``, when seat 0 deals ``1 - equity[s1, s0]``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulators.core.cfr import cfrplus as cfr
from simulators.core.cfr.tree import TERMINAL
from simulators.truc.solver.deal import DealSpec, build_deal_tree
from simulators.truc.solver.round import REDEAL, build_round_tree, round_values, set_redeal

TARGET = 12
PAYOFFS = ("points", "manche")
ZERO = TARGET  # index of "no points" (a null deal) in a scoring's values
LINES = 2 * TARGET - 1  # lines of scores a + b = 22 .. 0, the table's waves
MAX_ITERATIONS = 3000  # CFR+ iterations a state gets before it stops, target reached or not
UPDATE_EVERY = 10  # CFR+ iterations between updates of the continuation values
CHECK_EVERY = 20  # iterations between exploitability checks
QUICK_MARGIN = 0.9  # the exact five-hand check runs once the one-hand one is below this share
TARGET_FLOOR = 0.0005
"""The smallest exploitability target a state may be given. CFR+'s exploitability falls as
about 1/iterations (docs/truc_solver.md: 0.0043 points per deal after 225 iterations at 0-0),
so MAX_ITERATIONS reach about 0.0003-0.0004; a smaller target would only run to the cap."""


def points_scoring() -> np.ndarray:
    """(25,) what the non-dealer's net points -12..12 are worth: the points themselves."""
    return np.arange(-TARGET, TARGET + 1, dtype=np.float64)


def manche_scoring(scores: tuple[int, int], equity: np.ndarray, null: float) -> np.ndarray:
    """(25,) the non-dealer's chance of winning the manche after each net result of the deal
    at ``scores`` (see the module docstring); ``null`` is a null deal's worth."""
    a, b = scores
    out = np.empty(2 * TARGET + 1)
    out[ZERO] = null
    for p in range(1, TARGET + 1):
        out[ZERO + p] = 1.0 if a + p >= TARGET else 1.0 - equity[b, a + p]
        out[ZERO - p] = 0.0 if b + p >= TARGET else 1.0 - equity[b + p, a]
    return out


class StateSolver:
    """CFR+ on one state's deal, its continuation values kept up to date.

    With the card call the redeal terminal is worth the round's current
    value (the stationary fixed point of ``round.py``); ``certify`` measures
    the strategy in the five-hand game exactly.
    """

    def __init__(self, scores: tuple[int, int], card_call: bool = True):
        self.scores = tuple(scores)
        self.card_call = card_call
        self.deal = build_deal_tree(DealSpec(scores=self.scores), use_cache=True)
        self.round = build_round_tree(self.deal) if card_call else None
        self.tree = self.round.tree if card_call else self.deal.tree
        terminal = np.flatnonzero(self.tree.player == TERMINAL)
        if card_call:
            terminal = terminal[terminal != REDEAL]
        self._terminal = terminal
        self._points = np.rint(self.tree.payoff[terminal]).astype(np.int64)
        self.solver = cfr.CFRPlus(self.tree)
        self.null = 0.0
        self.redeal = 0.0
        self.value = float("nan")
        self.strategy = np.ones(self.tree.n_entries)
        self.set_scoring(points_scoring())

    def set_scoring(self, values: np.ndarray) -> None:
        """Terminal payoffs from a scoring's (25,) values (see :func:`manche_scoring`)."""
        out = self.tree.outcome_payoff
        t, pts = self._terminal, self._points
        out[t, 0] = values[ZERO - pts]
        out[t, 1] = values[ZERO]
        out[t, 2] = values[ZERO + pts]
        self.null = float(values[ZERO])

    def step(self, n: int) -> float:
        """Run ``n`` iterations; returns the average strategy's value (redeal updated)."""
        if self.card_call:
            set_redeal(self.tree, self.redeal)
        self.solver.step(n)
        self.strategy = self.solver.average_strategy()
        self.value = cfr.game_value(self.tree, self.strategy)
        self.redeal = self.value
        return self.value

    def certify(self) -> tuple[float, float]:
        """(value, exploitability) of the average strategy, exact (five hands with the call)."""
        if self.card_call:
            measured = round_values(self.tree, self.strategy, abandoned=self.null)
            return measured.value, measured.exploitability
        return cfr.game_value(self.tree, self.strategy), cfr.exploitability(self.tree,
                                                                            self.strategy)

    def quick_exploitability(self) -> float:
        """The exploitability with the redeal worth the current value (one hand): a cheap
        guide to when :meth:`certify`, five hands backward, is worth its cost."""
        return cfr.exploitability(self.tree, self.strategy)

    @property
    def iterations(self) -> int:
        return self.solver.iterations


@dataclass
class StateResult:
    """A solved state: figures, and the strategy over its tree (see ``solutions.py``)."""

    scores: tuple[int, int]
    card_call: bool
    payoff: str
    value: float
    exploitability: float
    iterations: int
    seconds: float
    target: float
    strategy: np.ndarray = field(repr=False)
    curve: list = field(default_factory=list, repr=False)


def solve_states(states, payoff: str, equity: np.ndarray | None, card_call: bool = True,
                 target: float = 0.005, max_iterations: int = MAX_ITERATIONS,
                 update_every: int = UPDATE_EVERY,
                 check_every: int = CHECK_EVERY, log=None, keep_solvers: bool = False):
    """Solve states whose null deals lead to each other together (module docstring).

    ``states``: one state, or (a, b) and (b, a). With ``payoff="manche"``,
    ``equity`` must hold the states above them (and the partner's, when it
    is not solved here). Stops when every state's exact exploitability is at
    most ``target`` (or at ``max_iterations``). Returns the results, and the
    solvers too with ``keep_solvers`` (to store the strategies).
    """
    if payoff not in PAYOFFS:
        raise ValueError(f"payoff must be one of {', '.join(PAYOFFS)}, got {payoff!r}")
    states = [tuple(s) for s in states]
    solvers = {s: StateSolver(s, card_call) for s in states}
    estimate = {s: 0.5 for s in states}
    if payoff == "manche":
        for a, b in states:
            if (b, a) not in estimate:
                estimate[(b, a)] = float(equity[b, a])
    done = {s: None for s in states}
    curves = {s: [] for s in states}
    spent = {s: 0.0 for s in states}
    while True:
        for s, solver in solvers.items():
            if payoff == "manche":
                partner = (s[1], s[0])
                solver.set_scoring(manche_scoring(s, equity, 1.0 - estimate[partner]))
            began = time.perf_counter()
            estimate[s] = solver.step(update_every)
            spent[s] += time.perf_counter() - began
        iterations = solvers[states[0]].iterations
        last = iterations >= max_iterations
        if iterations % check_every and not last:
            continue
        quick = {s: solver.quick_exploitability() for s, solver in solvers.items()}
        if not last and max(quick.values()) > QUICK_MARGIN * target:
            if log:
                log(f"{states} {payoff}: {iterations} iterations, one-hand exploitability "
                    f"{max(quick.values()):.5f}")
            continue
        for s, solver in solvers.items():
            value, expl = solver.certify()
            curves[s].append((solver.iterations, spent[s], expl))
            done[s] = (value, expl)
            if log:
                log(f"{s[0]}-{s[1]} {payoff}: {solver.iterations} iterations, value "
                    f"{value:.5f}, exploitability {expl:.5f}, {spent[s]:.0f} s")
        if all(d[1] <= target for d in done.values()) or last:
            break
    results = [StateResult(s, card_call, payoff, done[s][0], done[s][1], solvers[s].iterations,
                           spent[s], target, solvers[s].strategy, curves[s]) for s in states]
    return (results, [solvers[s] for s in states]) if keep_solvers else results


# ---------------------------------------------------------------- the equity table

DATA = Path(__file__).parent / "data"


def _table_name(card_call: bool) -> str:
    return "equity.json" if card_call else "equity_no_card_call.json"


def _needs(state) -> set:
    """The states whose equity the manche scoring of ``state`` reads."""
    a, b = state
    return ({(b, a + p) for p in range(1, TARGET - a)}
            | {(b + p, a) for p in range(1, TARGET - b)})


def _groups():
    """Every state once, (a, b) with (b, a): the null deal couples them."""
    return [[(a, b)] + ([(b, a)] if a != b else []) for a in range(TARGET)
            for b in range(a, TARGET)]


def equity_waves(settings: dict) -> list[list[list[list[int]]]]:
    """The table's waves: the groups of one line of scores a + b each, from 22 down to 0
    (the first ``settings["lines"]`` of them). A state reads only states with more points
    (:func:`_needs`), all on earlier lines."""
    lines: dict[int, list] = {}
    for group in _groups():
        lines.setdefault(sum(group[0]), []).append([list(s) for s in group])
    return [lines[total] for total in sorted(lines, reverse=True)][:settings.get("lines", LINES)]


def _key(state, what: str) -> str:
    return f"{state[0]},{state[1]}:{what}"


def solve_equity_group(settings: dict, group, known: dict[str, float]) -> dict[str, float]:
    """One group of the table (a state and its mirror), solved with the equities of the
    states above it (``known``, keys ``"a,b:value"``): each state's value, exploitability,
    CFR+ iterations and seconds. A state that reaches the target is kept in the user cache
    (``solutions.store_state``), where the score-aware policy finds it."""
    from simulators.truc.solver.solutions import store_state

    card_call, target = bool(settings["card_call"]), float(settings["target"])
    equity = np.full((TARGET, TARGET), np.nan)
    for key, value in known.items():
        state, what = key.split(":")
        if what == "value":
            a, b = map(int, state.split(","))
            equity[a, b] = value
    states = [tuple(s) for s in group]
    results, solvers = solve_states(states, "manche", equity, card_call, target,
                                    keep_solvers=True)
    out = {}
    for r, solver in zip(results, solvers, strict=True):
        if r.exploitability <= target:  # stopped at the cap above it: not a solution
            store_state(r, solver)
        out |= {_key(r.scores, "value"): r.value, _key(r.scores, "exploitability"):
                r.exploitability, _key(r.scores, "iterations"): float(r.iterations),
                _key(r.scores, "seconds"): r.seconds}
    return out


def equity_document(settings: dict, entries: dict[str, float], run: dict) -> dict:
    """The table's document (:func:`table_document`) from every state's entries."""
    arrays = {what: np.full((TARGET, TARGET), np.nan)
              for what in ("value", "exploitability", "iterations", "seconds")}
    for key, value in entries.items():
        state, what = key.split(":")
        if what in arrays:
            a, b = map(int, state.split(","))
            arrays[what][a, b] = value
    return table_document(arrays["value"], arrays["exploitability"],
                          np.nan_to_num(arrays["iterations"]).astype(np.int64),
                          np.nan_to_num(arrays["seconds"]), bool(settings["card_call"]),
                          float(settings["target"]), float(run["seconds"]), int(run["n_jobs"]))


def solver_settings() -> dict:
    """The solver's settings that shape a solved state (recorded with the equity table and
    the shipped solution: a table solved with other settings is another table)."""
    from simulators.truc.solver.deal import TREE_VERSION
    from simulators.truc.solver.solutions import STATE_VERSION

    return {"algorithm": "CFR+, average strategy", "max_iterations": MAX_ITERATIONS,
            "update_every": UPDATE_EVERY, "check_every": CHECK_EVERY,
            "quick_margin": QUICK_MARGIN,
            "redeal": "the round's current value, updated every update_every iterations",
            "null_deal": "1 - the mirror state's current value, updated with it",
            "tree_version": TREE_VERSION, "state_version": STATE_VERSION}


def table_document(equity, exploit, iterations, seconds, card_call, target, wall, n_jobs):
    """The equity table as JSON: by role (``win_probability[a][b]``, the non-dealer at a,
    the dealer at b) and by seat (``states``: seat 0's chance at each score and dealer)."""
    states = []
    for s0 in range(TARGET):
        for s1 in range(TARGET):
            for dealer in (0, 1):
                nd, d = (s1, s0) if dealer == 0 else (s0, s1)
                chance = equity[nd, d] if dealer == 1 else 1.0 - equity[nd, d]
                states.append({"scores": [s0, s1], "dealer": dealer,
                               "win_probability": float(chance),
                               "exploitability": float(exploit[nd, d])})
    return {"card_call": card_call, "target": target, "payoff": "manche",
            "largest_exploitability": float(np.nanmax(exploit)),
            "target_reached": bool(np.nanmax(exploit) <= target),
            "seconds": wall, "n_jobs": n_jobs, "solver": solver_settings(),
            "win_probability": equity.tolist(), "exploitability": exploit.tolist(),
            "iterations": iterations.tolist(), "solver_seconds": seconds.tolist(),
            "states": states}


def shipped_equity(card_call: bool = True) -> dict:
    """The equity table shipped with the package (``data/equity.json``), arrays as numpy."""
    import json

    path = DATA / _table_name(card_call)
    if not path.exists():
        raise FileNotFoundError(f"no shipped equity table {path.name}; compute it with "
                                "'tapisvert solve truc --equity --recompute'")
    doc = json.loads(path.read_text())
    doc["win_probability"] = np.asarray(doc["win_probability"], dtype=np.float64)
    doc["exploitability"] = np.asarray(doc["exploitability"], dtype=np.float64)
    return doc
