"""``tapisvert solve GAME --deals N`` is a study of the one executor (``analysis.solve``): the
same document whatever ``n_jobs``, the chunk size, the backend, or a run killed with SIGKILL
and resumed from its ``--out-dir``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from gated import GATE, kill_when_held

from analysis.solve import solve_deals
from simulators.core.game import SolveDealsRun, get_game
from tests.cli_run import run_cli

HERE = Path(__file__).parent
TIMING = ("seconds", "deals_per_second", "warm_up_seconds", "simulate_seconds")
MANILLE = SolveDealsRun({"sans_atout_must_beat": False}, count=40, seed=5)
BIANCO_5 = SolveDealsRun({"n_players": 5, "bianco_mano": True}, count=150, seed=2)


def _values(doc: dict) -> dict:
    """A document without its timing keys (they differ from run to run)."""
    return {k: v for k, v in doc.items() if k not in TIMING}


@pytest.mark.parametrize("game, run", [("manille", MANILLE), ("bianco-mano", BIANCO_5)])
def test_the_same_document_for_any_n_jobs_and_chunk_size(game, run, tmp_path):
    one, _ = solve_deals(get_game(game), run, progress=False)  # one chunk of 250
    two, result = solve_deals(get_game(game), run, n_jobs=2, chunk_size=20, progress=False,
                              out_dir=tmp_path / "two")
    small, _ = solve_deals(get_game(game), run, chunk_size=30, progress=False)
    assert _values(one) == _values(two) == _values(small)
    assert list(one) == list(two) and len(one["values"]) == run.count
    assert result.manifest["n_chunks"] == -(-run.count // 20)
    assert result.totals["deals"] == run.count and result.totals["made"] == one["made_count"]
    assert result.totals["solved"] == one["solved"]


def test_the_same_document_on_a_dask_local_cluster(dask_scheduler):
    local, _ = solve_deals(get_game("manille"), MANILLE, chunk_size=30, progress=False)
    remote, _ = solve_deals(get_game("manille"), MANILLE, chunk_size=30, backend="dask",
                            scheduler=dask_scheduler, progress=False)
    assert _values(local) == _values(remote)


def gated_site(module: str, function: str) -> str:
    """A ``sitecustomize`` that holds ``module.function`` at ``gated``'s gate in every
    process of a test's killed run (unset in the resumed and reference runs)."""
    return f"""
import os
if os.environ.get({GATE!r}):
    import sys
    sys.path.insert(0, {str(HERE)!r})
    from gated import _wait_at_gate
    from {module.rpartition(".")[0]} import {module.rpartition(".")[2]} as _held

    _function = _held.{function}

    def _gated(*args, **kwargs):
        _wait_at_gate()
        return _function(*args, **kwargs)

    _held.{function} = _gated
"""


SITE = gated_site("simulators.core.double_dummy", "solve")


def _args(out_dir: Path | None, n_jobs: int = 2) -> list[str]:
    out = ["--out-dir", str(out_dir)] if out_dir is not None else []
    return ["solve", "manille", "--deals", "120", "--seed", "11", "--n-jobs", str(n_jobs),
            "--chunk-size", "15", "--no-progress", "--json", *out]


def _cli(out_dir: Path | None) -> list[str]:
    return [sys.executable, "-m", "analysis.cli", *_args(out_dir)]


@pytest.mark.slow  # the executor's resume after SIGKILL: test_runner's and test_studies' twins
def test_a_solve_killed_with_sigkill_resumes_to_the_same_document(tmp_path, monkeypatch):
    """A real subprocess on two workers, held after 3 finished chunks (the solver of every
    process waits at ``gated``'s gate, through a ``sitecustomize`` on ``PYTHONPATH``),
    killed with SIGKILL, then the same command again (in this process, on one job): the
    document of an uninterrupted run."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITE)
    monkeypatch.setenv("PYTHONPATH", str(site))
    out = tmp_path / "killed"
    kept = kill_when_held(_cli(out), str(out / "deals" / "part-*.parquet"), 3, HERE)
    assert 3 <= kept <= 5, "the study is held after its third chunk"
    # resumed, and the uninterrupted run, in this process on one core: the document is the
    # same whatever n_jobs (test above), and another interpreter with two workers costs seconds
    resumed = run_cli(_args(out, n_jobs=1), HERE)
    assert resumed.returncode == 0, resumed.stderr
    clean = run_cli(_args(None, n_jobs=1), HERE)
    assert clean.returncode == 0, clean.stderr
    got, want = json.loads(resumed.stdout), json.loads(clean.stdout)
    assert _values(got) == _values(want) and len(got["values"]) == 120
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and len(manifest["sessions"]) == 2
    assert manifest["sessions"][-1]["chunks_run"] == 8 - kept
    assert manifest["study"]["kind"] == "solve"


# ---------------------------------------------------------------- a table solved in waves

TABLE_SITE = gated_site("simulators.truc.solver.manche", "solve_states")


def _table_args(out_dir: Path) -> list[str]:
    return ["solve", "truc", "--equity", "--recompute", "--lines", "2", "--no-progress",
            "--json", "--out-dir", str(out_dir)]


def test_the_equity_table_killed_with_sigkill_resumes_to_the_same_table(tmp_path,
                                                                        monkeypatch):
    """Truc's equity table is waves of executor studies (``analysis.solve.solve_table``): a
    run held after its first wave (11-11), killed with SIGKILL and run again reads that wave
    back and solves the second (10-11 with 11-10); the table is the shipped one, bit for bit
    (which a run at once makes: the slow test below), so no third solve is needed here."""
    monkeypatch.setenv("TAPISVERT_CACHE", str(tmp_path / "cache"))  # the states it stores
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(TABLE_SITE)
    monkeypatch.setenv("PYTHONPATH", str(site))
    out = tmp_path / "killed"
    kept = kill_when_held([sys.executable, "-m", "analysis.cli", *_table_args(out)],
                          str(out / "wave-*" / "sums" / "part-*.parquet"), 1, HERE)
    assert kept == 1 and not (out / "wave-01" / "sums" / "part-000000.parquet").exists()
    resumed = run_cli(_table_args(out), HERE)  # in this process: seconds saved
    assert resumed.returncode == 0, resumed.stderr
    got = json.loads(resumed.stdout)
    first = json.loads((out / "wave-00" / "manifest.json").read_text())
    assert first["study"]["units"] == [[[11, 11]]]
    assert [s["chunks_run"] for s in first["sessions"]] == [1, 0]  # read back, not solved
    assert (got["card_call"], got["target"], got["payoff"]) == (True, 0.005, "manche")
    solved = [(a, b) for a in range(12) for b in range(12)
              if got["win_probability"][a][b] is not None]
    assert solved == [(10, 11), (11, 10), (11, 11)]
    assert got["largest_exploitability"] <= 0.005
    _same_as_shipped(got, solved)


def _same_as_shipped(doc, states) -> None:
    """Issue 37: what the recompute rebuilds is what ships, bit for bit: the table's values
    and the solver's settings, and the states packed into the shipped bytes."""
    from simulators.truc.solver import packed
    from simulators.truc.solver.manche import shipped_equity

    shipped = shipped_equity()
    assert doc["solver"] == shipped["solver"]
    for a, b in states:
        assert doc["win_probability"][a][b] == shipped["win_probability"][a, b], (a, b)
        assert doc["exploitability"][a][b] == shipped["exploitability"][a, b], (a, b)
        assert doc["iterations"][a][b] == shipped["iterations"][a][b], (a, b)
    budget = packed.shipped_index()["settings"]["budget"]
    for scores in [(11, 11)]:  # packing costs seconds at 11-11, minutes lower down
        mine = packed.pack_solved(scores, "manche", budget, equity=shipped["win_probability"])
        assert mine.blob == packed.shipped_bytes(scores), scores


@pytest.mark.slow
def test_the_recomputed_end_states_are_the_shipped_ones(tmp_path, monkeypatch):
    """The top three lines of the table (11-11; 10-11, 11-10; 9-11, 10-10, 11-9) solved
    again from an empty cache are the shipped table's values, bit for bit."""
    from analysis.solve import solve_table
    from simulators.core.game import SolveTableRun

    monkeypatch.setenv("TAPISVERT_CACHE", str(tmp_path / "cache"))
    run = SolveTableRun({"card_call": True, "target": 0.005, "lines": 3})
    doc = solve_table(get_game("truc"), run, progress=False)
    states = [(a, b) for a in range(12) for b in range(12)
              if doc["win_probability"][a][b] == doc["win_probability"][a][b]]
    assert len(states) == 6
    _same_as_shipped(doc, states)
