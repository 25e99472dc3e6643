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

from simulators.core.cfr import cfrplus as cfr
from simulators.core.cfr.cfrplus import _down_args, _scratch, _value_args, solve
from simulators.truc.solver.cache import cache_dir, save_npz
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
    if use_cache and solved.exploitability <= target:  # stopped at the cap: not solved
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


# ---------------------------------------------------------------- states of the manche

STATE_VERSION = 1  # bump when a stored state's layout or its solver changes
PLAY_SCALE = 65535  # stored card-play probabilities: uint16, p * PLAY_SCALE (the policy's
# sampling divides by the sum over the actions, so the scale cancels)
LOOKUP_ARRAYS = ("kind", "child_start", "n_children", "action", "player", "entry_start",
                 "entry_count", "entry_type")


@dataclass(frozen=True)
class StateSolution:
    """A solved state as the policy reads it (the play memory-mapped from the cache, the
    lookup arrays built from the cached enumeration of its deal tree).

    ``call`` (2, T): the probability that each hand asks for new cards, the
    non-dealer's first, then the dealer's after the non-dealer asked (TR-2);
    ``play`` (2, E) uint16: the card play after the non-dealer kept (0) or
    asked and the dealer kept (1), over the deal tree's entries (1 row
    without the call), as probabilities times ``PLAY_SCALE``; ``lookup`` the
    deal tree's arrays the policy walks.
    """

    scores: tuple[int, int]
    payoff: str
    card_call: bool
    target: float
    value: float
    exploitability: float
    iterations: int
    seconds: float
    call: np.ndarray
    play: np.ndarray
    lookup: dict

    @property
    def target_reached(self) -> bool:
        """False when the solver stopped at its iteration cap above the target."""
        return self.exploitability <= self.target

    def report(self) -> dict:
        return {"scores": list(self.scores), "payoff": self.payoff, "card_call": self.card_call,
                "value": self.value, "exploitability": self.exploitability,
                "iterations": self.iterations, "seconds": self.seconds, "target": self.target,
                "target_reached": self.target_reached}


def state_dir(scores, payoff: str, card_call: bool, target: float) -> Path:
    """Where a solved state is kept (a directory of .npy files and meta.json)."""
    call = "call" if card_call else "nocall"
    return cache_dir() / f"state_v{STATE_VERSION}_{scores[0]}-{scores[1]}_{payoff}_{call}" \
                         f"_t{target:g}"


def _save_dir(path: Path, arrays: dict, meta: dict | None = None) -> None:
    """Write .npy files into a temporary directory, then rename it (atomic)."""
    import shutil
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=".tmp-"))
    try:
        for name, array in arrays.items():
            np.save(tmp / f"{name}.npy", array)
        if meta is not None:
            (tmp / "meta.json").write_text(json.dumps(meta))
        if path.exists():
            shutil.rmtree(path)
        tmp.rename(path)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def compact_lookup(arrays: dict) -> dict:
    """The lookup arrays in the smallest dtypes that hold them (half the disk and page cache:
    hands and labels fit int8, entry offsets int32)."""
    out = {}
    for name, a in arrays.items():
        a = np.asarray(a)
        for dtype in (np.int8, np.int16, np.int32, np.int64):
            info = np.iinfo(dtype)
            if a.size == 0 or (a.min() >= info.min and a.max() <= info.max):
                out[name] = a.astype(dtype)
                break
    return out


def _lookup_arrays(deal: DealTree) -> dict:
    """The deal tree's arrays the policy walks, compacted. They follow from the hands and
    the scores, so they are built when a state is loaded (under a second from the cached
    enumeration), never stored (issue 37: they were 4.7 GB of the cache)."""
    return compact_lookup({**{k: getattr(deal.tree, k) for k in LOOKUP_ARRAYS if k != "kind"},
                           "kind": deal.kind})


def _call_and_play(result, solver) -> tuple[np.ndarray, np.ndarray]:
    """A result's call probabilities (2, T) and quantized card play (uint16), as stored."""
    from simulators.truc.solver.round import COPY_ROOTS, REDEAL

    deal_tree = solver.deal.tree
    types = len(solver.deal.types)
    strategy = result.strategy
    if result.card_call:
        tree = solver.tree
        asked = tree.child_start[0] + 1  # the non-dealer's ask: the dealer's call node
        ask_nd = strategy[tree.entry_start[asked, 0]:][:types]
        ask_d = strategy[tree.entry_start[REDEAL, 1]:][:types]  # his ask: the redeal
        call = np.stack([ask_nd, ask_d])
        play = np.stack([strategy[tree.entry_start[root, 0]:][:deal_tree.n_entries]
                         for root in COPY_ROOTS])
    else:
        call = np.zeros((2, types))
        play = strategy[None, :]
    return call, np.rint(np.clip(play, 0.0, 1.0) * PLAY_SCALE).astype(np.uint16)


def store_state(result, solver) -> Path:
    """Keep a :class:`~.manche.StateResult` in the cache (its strategy: the call and the two
    card-play rows)."""
    call, play = _call_and_play(result, solver)
    path = state_dir(result.scores, result.payoff, result.card_call, result.target)
    meta = {"scores": list(result.scores), "payoff": result.payoff,
            "card_call": result.card_call, "target": result.target, "value": result.value,
            "exploitability": result.exploitability, "iterations": result.iterations,
            "seconds": result.seconds, "curve": [list(c) for c in result.curve]}
    _save_dir(path, {"call": call, "play": play}, meta)
    return path


def unstored_state(result, solver) -> StateSolution:
    """A result kept in memory only: what :func:`solved_state` returns when the solver
    stopped at its iteration cap above the target (not a solution at that target, so it
    is not cached as one)."""
    call, play = _call_and_play(result, solver)
    return StateSolution(
        scores=tuple(result.scores), payoff=result.payoff, card_call=result.card_call,
        target=result.target, value=result.value, exploitability=result.exploitability,
        iterations=result.iterations, seconds=result.seconds, call=call, play=play,
        lookup=_lookup_arrays(solver.deal))


def load_state(scores, payoff: str = "manche", card_call: bool = True,
               target: float = DEFAULT_TARGET) -> StateSolution | None:
    """A stored state, memory-mapped (None if it was never solved with these settings)."""
    path = state_dir(scores, payoff, card_call, target)
    if not (path / "meta.json").exists():
        return None
    meta = json.loads((path / "meta.json").read_text())
    if meta["exploitability"] > target:  # kept by an older version although the cap came first
        return None
    deal = build_deal_tree(DealSpec(scores=tuple(scores)), use_cache=True)
    arrays = _lookup_arrays(deal)
    return StateSolution(
        scores=tuple(scores), payoff=payoff, card_call=card_call, target=target,
        value=meta["value"], exploitability=meta["exploitability"],
        iterations=meta["iterations"], seconds=meta["seconds"],
        call=np.load(path / "call.npy"), play=np.load(path / "play.npy", mmap_mode="r"),
        lookup=arrays)


def solved_state(scores, payoff: str = "manche", card_call: bool = True,
                 target: float = DEFAULT_TARGET, log=None,
                 max_iterations: int | None = None) -> StateSolution:
    """A state from the cache, or solved now and stored (manche: with the shipped table);
    a run that stops at ``max_iterations`` (default: the solver's cap) above the target is
    returned unstored (``target_reached`` false)."""
    from simulators.truc.solver import manche

    scores = (int(scores[0]), int(scores[1]))
    found = load_state(scores, payoff, card_call, target)
    if found is not None:
        return found
    equity = manche.shipped_equity(card_call)["win_probability"] if payoff == "manche" \
        else None
    if log:
        log(f"state {scores[0]}-{scores[1]} ({payoff}) is not in the cache: solving it to "
            f"exploitability {target:g} (seconds near 12, about two minutes at 0-0; stored for "
            "every later run)...")
    results, solvers = manche.solve_states(
        [scores], payoff, equity, card_call, target, log=log, keep_solvers=True,
        max_iterations=max_iterations or manche.MAX_ITERATIONS)
    if results[0].exploitability > target:
        return unstored_state(results[0], solvers[0])
    store_state(results[0], solvers[0])
    return load_state(scores, payoff, card_call, target)
