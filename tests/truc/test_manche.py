"""Truc solved over the scores (simulators/truc/solver/manche.py): the manche scoring,
states solved with the card call (TR-2) and their worth, the equity table, the
score-aware policy and ``tapisvert solve truc`` (TR-5, TR-6)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simulators.truc.solver.manche import (
    TARGET,
    ZERO,
    manche_scoring,
    points_scoring,
    shipped_equity,
    solve_states,
)


@pytest.fixture
def solver_cache(tmp_path, monkeypatch):
    """Solved states go to a temporary cache directory."""
    monkeypatch.setenv("TAPISVERT_CACHE", str(tmp_path))
    return tmp_path


def test_the_manche_scoring_is_the_chance_after_each_result():
    """TR-6: the deal alternates, so the old dealer is the next non-dealer."""
    equity = np.full((TARGET, TARGET), np.nan)
    equity[3, 11] = 0.2  # the dealer at 3 deals next, the old non-dealer at 11
    equity[3, 10] = 0.3  # after a null deal at 10-3
    equity[5, 10] = 0.6  # the dealer won 2 points
    values = manche_scoring((10, 3), equity, null=1 - equity[3, 10])
    assert values[ZERO + 1] == pytest.approx(0.8)  # 11-3, the other deals: 1 - 0.2
    assert (values[ZERO + 2:] == 1.0).all()  # 12 or more wins the manche (TR-6)
    assert values[ZERO] == pytest.approx(0.7)
    assert values[ZERO - 2] == pytest.approx(0.4)
    assert values[ZERO - 9] == 0.0  # 3 + 9 = 12: the dealer wins the manche
    assert list(points_scoring()[[0, ZERO, -1]]) == [-TARGET, 0, TARGET]


def test_eleven_all_manche_value_is_the_engines_chance(solver_cache):
    """At 11-11 any point wins the manche (no proposal fits, TR-5), and a null or abandoned
    deal passes the deal at the same scores: the solver's chance E must equal the engine's
    P(win) + P(null) (1 - E), played by the score-aware policy with the card call."""
    from simulators.truc import rules as R
    from simulators.truc.engine import simulate_deals
    from simulators.truc.game import make_policy

    (result,) = solve_states([(11, 11)], "manche", np.full((TARGET, TARGET), np.nan))
    assert result.exploitability <= 0.005
    policy = make_policy("equilibrium")
    table = simulate_deals(R.TrucConfig(), [policy, policy], 100_000, seed=5,
                           scores=(11, 11)).table
    nd_seat = 1 - table["dealer"].to_numpy()
    deltas = table.select("delta_0", "delta_1").to_numpy()
    won = deltas[np.arange(len(nd_seat)), nd_seat] > 0
    null = table["points"].to_numpy() == 0
    x = won + null * (1 - result.value)
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    assert abs(x.mean() - result.value) <= half


def test_the_shipped_table_is_solved_everywhere_and_ordered():
    doc = shipped_equity()
    equity, exploit = doc["win_probability"], doc["exploitability"]
    assert equity.shape == (TARGET, TARGET) and not np.isnan(equity).any()
    assert exploit.max() <= 0.005 and doc["largest_exploitability"] == exploit.max()
    assert ((equity > 0) & (equity < 1)).all()
    # a point more for the non-dealer never hurts him; a point more for the dealer never helps
    assert (np.diff(equity, axis=0) > -0.005).all()
    assert (np.diff(equity, axis=1) < 0.005).all()
    assert len(doc["states"]) == 2 * TARGET * TARGET
    by_seat = {(tuple(s["scores"]), s["dealer"]): s["win_probability"] for s in doc["states"]}
    assert by_seat[((10, 3), 1)] == pytest.approx(equity[10, 3])  # seat 0 is the non-dealer
    assert by_seat[((3, 10), 0)] == pytest.approx(1 - equity[10, 3])  # seat 0 deals


def test_the_policy_asks_for_new_cards_as_the_solution_does(solver_cache):
    """TR-2: the call's probabilities, read back through observations and stratified
    noise (resolution 1/40)."""
    from simulators.truc.equilibrium import EquilibriumPolicy, load_state
    from simulators.truc.observations import CallObs
    from simulators.truc.solver.deal import DealSpec

    policy = EquilibriumPolicy(score_aware=False, solved_scores=11)
    state = load_state((11, 11), "points", policy.target_exploitability)
    hands = DealSpec().types()
    masks = []
    for hand in hands:  # one card of each rank, lowest suits first
        mask, used = 0, {}
        for r in hand:
            suit = used.get(r, 0)
            used[r] = suit + 1
            mask |= 1 << (4 * r + suit)
        masks.append(mask)
    masks = np.array(masks, dtype=np.uint32)
    levels = 40
    for role in (0, 1):
        freq = np.zeros(len(hands))
        for k in range(levels):
            n = len(hands)
            obs = CallObs(masks, np.zeros(n, np.int8), bool(role), 0, False,
                          np.zeros(n, np.uint32), np.full(n, 11, np.int8),
                          np.full(n, 11, np.int8), 12, np.full(n, (k + 0.5) / levels,
                                                               np.float32))
            freq += policy.call(obs)
        assert np.abs(freq / levels - state.call[role]).max() <= 1 / levels + 1e-9


def test_solve_command_prints_the_figures(solver_cache, capsys):
    from analysis.cli import main

    assert main(["solve", "truc", "--scores", "11,11", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for key in ("value", "exploitability", "iterations", "card_call", "payoff", "scores"):
        assert key in doc
    assert doc["card_call"] is True and doc["payoff"] == "points" and doc["scores"] == [11, 11]
    assert doc["exploitability"] <= 0.005 and -1 < doc["value"] < 0  # the dealer's edge
    assert main(["solve", "truc", "--scores", "11,11", "--payoff", "manche", "--json"]) == 0
    manche = json.loads(capsys.readouterr().out)
    assert 0 < manche["value"] < 0.5 and manche["payoff"] == "manche"
    assert main(["solve", "truc", "--scores", "11,11", "--json"]) == 0  # from the cache
    assert json.loads(capsys.readouterr().out)["cached"] is True


def test_solve_command_prints_the_equity_table(capsys):
    from analysis.cli import main

    assert main(["solve", "truc", "--equity", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["states"]) == 288
    assert set(doc["states"][0]) >= {"scores", "dealer", "win_probability", "exploitability"}


@pytest.mark.parametrize("argv, message", [
    (["--scores", "3,12"], "--scores must be in 0..11"),
    (["--scores", "3"], "--scores must look like"),
    (["--payoff", "manche", "--no-card-call"], "needs the card call"),
    (["--target", "0"], "--target must be in [0.0005, 1)"),
    (["--target", "1e-9"], "--target must be in [0.0005, 1)"),  # below what the cap reaches
    (["--equity", "--no-card-call"], "solved with the card call"),
    (["--equity", "--payoff", "points"], "--payoff points does not apply to --equity"),
    (["--equity", "--target", "0.01"], "--target applies to solving"),  # the shipped table
])
def test_solve_command_refuses_bad_input(argv, message, capsys):
    from analysis.cli import main

    assert main(["solve", "truc", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_run_stopped_at_the_cap_says_so_and_is_not_cached(solver_cache, capsys,
                                                              monkeypatch):
    """The iteration cap before the target: the output says the target was missed, and the
    state is not kept as a solution (the next run solves it again)."""
    from analysis.cli import main
    from simulators.truc.solver import manche, solutions

    monkeypatch.setattr(manche, "MAX_ITERATIONS", 10)
    argv = ["solve", "truc", "--scores", "11,11", "--target", str(manche.TARGET_FLOOR)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "TARGET NOT REACHED: stopped at the cap of 10 iterations" in out
    assert not solutions.state_dir((11, 11), "points", True, manche.TARGET_FLOOR).exists()
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["target_reached"] is False and doc["cached"] is False
    assert doc["exploitability"] > doc["target"]


def test_score_aware_deals_are_legal_and_replayed_by_the_referee(solver_cache):
    """Near 12 (small trees, solved on first use): bancos, counter-bancos, the card call."""
    from simulators.truc import rules as R
    from simulators.truc.crosscheck import check_deals
    from simulators.truc.engine import simulate_deals
    from simulators.truc.game import make_policy
    from simulators.truc.policies import HeuristicPolicy

    policy = make_policy("equilibrium")
    for scores in ((11, 10), (10, 11), (11, 11)):
        batch = simulate_deals(R.TrucConfig(), [policy, HeuristicPolicy()], 400, seed=3,
                               scores=scores)
        assert check_deals(batch) == 400
        assert (batch.table["hand_no"].to_numpy() != 0).any()  # someone asked and got more


def test_score_aware_needs_the_card_call():
    from simulators.truc.game import make_policy

    with pytest.raises(ValueError, match="score_aware needs card_call"):
        make_policy("equilibrium", card_call=False)


def test_every_state_is_solved_once_after_the_states_it_reads():
    """Scores never go down (TR-4..TR-6): a state's payoffs read only states with more
    points, so the table can be solved from 11-11 down; (a, b) and (b, a) go together."""
    from simulators.truc.solver.manche import _groups, _needs

    groups = _groups()
    states = [s for g in groups for s in g]
    assert len(states) == len(set(states)) == TARGET * TARGET
    for group in groups:
        for a, b in group:
            assert all(x + y > a + b for x, y in _needs((a, b)))
    assert _needs((10, 3)) == {(3, 11)} | {(3 + p, 10) for p in range(1, 9)}


def test_the_equity_table_is_written_atomically(tmp_path, monkeypatch, capsys):
    """``bench/truc_equity.py`` writes the table whole: a run that dies before the rename
    leaves the old table as it was, and no temporary file."""
    import importlib.util
    import os

    from analysis import solve

    spec = importlib.util.spec_from_file_location(
        "truc_equity", Path(__file__).resolve().parents[2] / "bench" / "truc_equity.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    doc = {"largest_exploitability": 0.001, "seconds": 2.0, "win_probability": [[0.5]]}
    monkeypatch.setattr(solve, "solve_table", lambda *args, **kwargs: doc)
    out = tmp_path / "equity.json"
    argv = ["--out", str(out), "--out-dir", str(tmp_path / "run")]
    assert bench.main(argv) == 0
    assert json.loads(out.read_text()) == doc and f"wrote {out}" in capsys.readouterr().out

    def killed(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", killed)
    doc = {**doc, "seconds": 3.0}
    with pytest.raises(KeyboardInterrupt):
        bench.main(argv)
    assert json.loads(out.read_text())["seconds"] == 2.0
    assert [p.name for p in tmp_path.iterdir()] == ["equity.json"]
