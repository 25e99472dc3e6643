"""Truc's shipped solution (``simulators/truc/solver/packed.py``) and the exploitability
as played (``as_played.py``), issue 37."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from simulators.truc.solver import packed as K


@pytest.fixture
def solver_cache(tmp_path, monkeypatch):
    """Solved states go to a temporary cache directory."""
    monkeypatch.setenv("TAPISVERT_CACHE", str(tmp_path / "cache"))
    return tmp_path


def _solver(scores):
    from simulators.truc.solver import manche

    solver = manche.StateSolver(scores)
    equity = manche.shipped_equity()["win_probability"]
    solver.set_scoring(manche.manche_scoring(scores, equity, 1 - equity[scores[1], scores[0]]))
    return solver


def test_the_shipped_keys_play_exactly_what_the_tree_walk_plays(solver_cache, monkeypatch):
    """Packed at full precision (tau 0, 16 bits), a state read by keys from the observations
    makes the same choice as the policy that walks the solved tree, decision by decision
    (11-11: card play; 10-11: proposals and answers; 11-10, its mirror, reads the same keys
    the other way round and costs seconds more), with the same noise."""
    from simulators.truc import rules as R
    from simulators.truc.engine import simulate_deals
    from simulators.truc.equilibrium import EquilibriumPolicy
    from simulators.truc.solver.solutions import solved_state

    states = [(11, 11), (10, 11)]
    for scores in states:
        solved_state(scores, "manche")
    packs = {K.member("manche", s): K.pack_solved(s, "manche", 1.0, candidates=((0.0, 16),))
             for s in states}
    path = solver_cache / "solution.npz"
    K.write_shipped(path, packs, {})
    monkeypatch.setattr(K, "SHIPPED", path)
    walk, keyed = EquilibriumPolicy(shipped=False), EquilibriumPolicy()
    counts: dict[str, list[int]] = {}

    class Both:
        uses_noise = True

        def __getattr__(self, name):
            def decide(obs):
                a, b = getattr(walk, name)(obs), getattr(keyed, name)(obs)
                seen = counts.setdefault(name, [0, 0])
                seen[0] += len(a)
                seen[1] += int((np.asarray(a) != np.asarray(b)).sum())
                return b
            return decide

    for scores in states:
        simulate_deals(R.TrucConfig(), [Both(), Both()], 800, seed=3, scores=scores)
    assert {name: c[1] for name, c in counts.items()} == {
        "call": 0, "play": 0, "propose": 0, "answer": 0}
    assert counts["answer"][0] > 500 and counts["play"][0] > 5_000


def test_packed_bytes_decode_to_the_strategy_whose_exploitability_is_stated(solver_cache):
    """encode/decode is exact, the own-reach pruning drops only what play never reaches,
    and the stated exploitability is the exact best response to the decoded strategy."""
    from simulators.truc.solver.round import round_values
    from simulators.truc.solver.solutions import load_state, solved_state

    solved_state((11, 11), "manche")
    solver = _solver((11, 11))
    full = K.stored_strategy(solver.round, load_state((11, 11), "manche"))
    groups = K.groups_of(solver.round)
    assert len(np.unique(groups.key)) == len(groups.key)
    small = K.pack_state(solver.round, full, load_state((11, 11)).call, 0.05, 4, groups)
    back = K.decode(K.encode(small))
    for name in ("key", "weight", "call", "n_legal"):
        assert np.array_equal(getattr(back, name), getattr(small, name)), name
    assert back.bits == 4 and back.tau == 0.05
    assert (back.weight.astype(int).sum(axis=1) >= 15).all()  # the last weight is implied
    result = K.pack_solved((11, 11), "manche", budget=1.0)
    shipped = K.expand(solver.round, K.decode(result.blob), groups)
    measured = round_values(solver.tree, shipped, abandoned=solver.null)
    assert result.meta["exploitability"] == measured.exploitability
    lossless = K.pack_state(solver.round, full, load_state((11, 11)).call, 0.0, 16, groups)
    kept = round_values(solver.tree, K.expand(solver.round, lossless, groups),
                        abandoned=solver.null)
    assert kept.exploitability == pytest.approx(result.meta["solved_exploitability"], abs=2e-5)
    # a CFR average reaches nearly everything; dropping small probabilities prunes whole
    # subtrees of the player's own reach
    assert len(small.key) < 0.8 * len(lossless.key) <= (groups.n_legal >= 2).sum()


def test_the_stock_after_two_discards_deals_as_the_cards_do():
    """``stock_weights`` against dealing every arrangement of the real cards left, on a
    12-card deck (4 ranks, 3 copies; hands of 3)."""
    from simulators.truc.solver.as_played import stock_weights

    ranks, copies, size = 4, 3, 3
    types = [h for h in itertools.combinations_with_replacement(range(ranks), size)
             if max(h.count(r) for r in h) <= copies]
    counts = np.array([[h.count(r) for r in range(ranks)] for h in types], dtype=np.int64)
    pair, weights = stock_weights(counts, copies)
    deck = [r for r in range(ranks) for _ in range(copies)]
    index = {h: i for i, h in enumerate(types)}
    for d, e in [(0, 5), (3, 3), (7, 12), (11, 19)]:
        left = list(deck)
        for r in types[d] + types[e]:
            if r not in left:
                break
            left.remove(r)
        else:
            want = np.zeros((len(types), len(types)))
            deals = list(itertools.permutations(range(len(left)), 2 * size))
            for cards in deals:
                a = tuple(sorted(left[c] for c in cards[:size]))
                b = tuple(sorted(left[c] for c in cards[size:]))
                want[index[a], index[b]] += 1 / len(deals)
            assert np.allclose(weights[pair[d, e]], want), (d, e)
            continue
        assert not weights[pair[d, e]].any()


def test_as_played_with_a_full_deck_redeal_is_the_solved_games_best_response(solver_cache):
    """The as-played best response with the first redeal dealt from a full deck is exactly
    ``round_values``'s (the solved game's); from the real stock it differs, and no seat's
    best response does worse than the other seat's best response leaves it (a zero-sum
    game's exploitability is never negative)."""
    from simulators.truc.solver.as_played import as_played_values
    from simulators.truc.solver.solutions import load_state, solved_state

    solved_state((11, 11), "manche")
    solver = _solver((11, 11))
    strategy = K.stored_strategy(solver.round, load_state((11, 11), "manche"))
    full = solver.tree.weight[0]
    same = as_played_values(solver.round, strategy, solver.null, stock=lambda a, b: full)
    assert same.best == pytest.approx(same.stationary_best, abs=1e-12)
    real = as_played_values(solver.round, strategy, solver.null)
    assert real.stationary_best == same.stationary_best
    assert real.best != same.best and real.exploitability >= 0
    assert 0 < real.redeal_chance < 0.1


def test_the_shipped_solution_is_certified_and_small():
    """Every state of the table ships, each within the issue's bounds (exact best responses
    measured on the shipped bytes at pack time), with the solver's settings."""
    from simulators.truc.solver import manche

    index = K.shipped_index()
    assert index is not None, "the package ships simulators/truc/solver/data/solution.npz"
    states = index["states"]
    manche_states = [m for m in states.values() if m["payoff"] == "manche"]
    assert len(manche_states) == 144
    assert max(m["exploitability"] for m in manche_states) <= 0.006
    assert states["points-0-0"]["exploitability"] <= 0.01
    assert index["settings"]["solver"] == manche.solver_settings()
    assert index["settings"]["solver"] == manche.shipped_equity()["solver"]
    assert Path(K.SHIPPED).stat().st_size <= 60 * 2**20  # 51.9 MiB (issue 37 aimed at 30 MB)


def test_the_shipped_policy_finds_every_set_its_own_play_reaches(solver_cache, monkeypatch):
    """Self-play of the shipped policy never asks for an information set the package did
    not keep where the hand has a choice: the keys read from observations are the keys the
    pack stored (bancos, counters and replies at 5-9 and 9-5 included)."""
    from simulators.truc import rules as R
    from simulators.truc.engine import simulate_deals
    from simulators.truc.equilibrium import EquilibriumPolicy

    assert K.shipped_index() is not None  # never a fallback solve: the states ship
    missed = []
    choose = K.ShippedState.choose

    def watched(self, key, allowed, noise):
        col = choose(self, key, allowed, noise)
        missed.append(int(((col < 0) & (allowed.sum(axis=1) >= 2)).sum()))
        return col

    monkeypatch.setattr(K.ShippedState, "choose", watched)
    policy = EquilibriumPolicy()
    for scores in ((0, 0), (5, 9), (9, 5), (10, 10)):
        simulate_deals(R.TrucConfig(), [policy, policy], 2000, seed=11, scores=scores)
    assert len(missed) > 20 and sum(missed) == 0
