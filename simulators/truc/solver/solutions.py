"""Solved deals: solve once, keep the strategy in the user's cache directory.

``solved_deal(DealSpec(scores=(0, 0)))`` builds the deal's tree (about 10 s
for the full deck), then loads the equilibrium from the cache or runs CFR+
until the exploitability target (minutes on one core for the full deck at
0-0, seconds near 12) and stores it. The cache directory is
``$TAPISVERT_CACHE`` or the platform's user cache dir (``platformdirs``),
under ``truc_solver/``; files are named by the deal's parameters and
``SOLVER_VERSION``, and written atomically.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simulators.truc.solver import cfr
from simulators.truc.solver.cache import cache_dir, save_npz
from simulators.truc.solver.cfr import _down_args, _scratch, _value_args, solve
from simulators.truc.solver.deal import TREE_VERSION, DealSpec, DealTree, build_deal_tree

SOLVER_VERSION = TREE_VERSION  # bump TREE_VERSION when the tree changes a stored strategy
DEFAULT_TARGET = 0.005  # points per deal


@dataclass(frozen=True)
class SolvedDeal:
    """A deal's tree, its equilibrium strategy and the figures that certify it."""

    deal: DealTree
    strategy: np.ndarray
    value: float  # non-dealer's points per deal
    exploitability: float  # points per deal
    iterations: int
    seconds: float
    curve: tuple[tuple[int, float, float], ...]

    def report(self) -> dict:
        """The figures as a flat dict (JSON-friendly)."""
        return {**dataclasses.asdict(self.deal.spec), "value": self.value,
                "exploitability": self.exploitability, "iterations": self.iterations,
                "seconds": self.seconds}


def _stem(spec: DealSpec, target: float) -> str:
    fields = "_".join(f"{v}" for v in dataclasses.astuple(spec)).replace(", ", "-")
    return f"v{SOLVER_VERSION}_{fields}_t{target:g}".translate(str.maketrans("(),", "  -")) \
        .replace(" ", "")


def solved_deal(spec: DealSpec | None = None, target: float = DEFAULT_TARGET,
                max_iterations: int = 5000, use_cache: bool = True) -> SolvedDeal:
    """The equilibrium of one deal, from the cache or solved now (see the module docstring)."""
    spec = DealSpec() if spec is None else spec
    if not 0 < target < 1:
        raise ValueError(f"target must be in (0, 1) points per deal, got {target!r}")
    deal = build_deal_tree(spec, use_cache=use_cache)
    path = cache_dir() / f"{_stem(spec, target)}.npz"
    if use_cache and path.exists():
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            strategy = data["strategy"].astype(np.float64)
            curve = tuple(map(tuple, data["curve"].tolist()))
        if len(strategy) == deal.tree.n_entries:
            return SolvedDeal(deal, strategy, meta["value"], meta["exploitability"],
                              meta["iterations"], meta["seconds"], curve)
    result = solve(deal.tree, iterations=max_iterations, target=target, check_every=25)
    solved = SolvedDeal(deal, result.strategy, result.value, result.exploitability,
                        result.iterations, result.seconds, tuple(result.curve))
    if use_cache:
        _store(path, solved)
    return solved


def _store(path: Path, solved: SolvedDeal) -> None:
    """Write atomically (see ``cache.save_npz``)."""
    save_npz(path, strategy=solved.strategy.astype(np.float32),
             curve=np.array(solved.curve, dtype=float).reshape(-1, 3),
             meta=np.array(json.dumps(solved.report())))


def hand_values(solved: SolvedDeal) -> np.ndarray:
    """(2, T): each hand's expected points per deal in each seat (0 non-dealer, 1 dealer)
    when both play the equilibrium; hand i is ``solved.deal.types[i]``."""
    tree = solved.deal.tree
    out = np.zeros((2, len(solved.deal.types)))
    reach = np.empty(tree.n_entries)
    value = np.empty(tree.n_entries)
    none = np.empty(0)
    cfr.kernels()
    cfr._down(-1, 0.0, *_down_args(tree), none, solved.strategy, reach, none, _scratch(tree))
    w = tree.weight[0]
    prob = (w.sum(axis=1), w.sum(axis=0))
    for p in (0, 1):
        cfr._values(p, 0, *_value_args(tree), reach, solved.strategy, value, none)
        s, k = tree.entry_start[0, p], tree.entry_count[0, p]
        types = tree.entry_type[s:s + k]
        out[p, types] = np.where(prob[p][types] > 0, value[s:s + k] / prob[p][types], 0.0)
    return out
