"""``tapisvert solve GAME --deals N`` is a study of the one executor (``analysis.solve``): the
same document whatever ``n_jobs``, the chunk size, the backend, or a run killed with SIGKILL
and resumed from its ``--out-dir``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gated import gated_site, kill_when_held

from analysis.solve import solve_deals
from simulators.core.game import SolveDealsRun, get_game
from tests.cli_run import run_cli

HERE = Path(__file__).parent
TIMING = ("seconds", "deals_per_second", "warm_up_seconds", "simulate_seconds")
MANILLE = SolveDealsRun({"sans_atout_must_beat": False}, count=80, seed=5)
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


def test_the_same_document_on_a_dask_local_cluster():
    distributed = pytest.importorskip("distributed")
    local, _ = solve_deals(get_game("manille"), MANILLE, chunk_size=30, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, processes=True) as cluster:
        remote, _ = solve_deals(get_game("manille"), MANILLE, chunk_size=30, backend="dask",
                                scheduler=cluster.scheduler_address, progress=False)
    assert _values(local) == _values(remote)


SITE = gated_site("simulators.core.double_dummy", "solve")


def _args(out_dir: Path | None, n_jobs: int = 2) -> list[str]:
    out = ["--out-dir", str(out_dir)] if out_dir is not None else []
    return ["solve", "manille", "--deals", "240", "--seed", "11", "--n-jobs", str(n_jobs),
            "--chunk-size", "30", "--no-progress", "--json", *out]


def _cli(out_dir: Path | None) -> list[str]:
    return [sys.executable, "-m", "analysis.cli", *_args(out_dir)]


def test_a_solve_killed_with_sigkill_resumes_to_the_same_document(tmp_path, monkeypatch):
    """A real subprocess on two workers, held after 3 finished chunks (the solver of every
    process waits at ``gated``'s gate, through a ``sitecustomize`` on ``PYTHONPATH``),
    killed with SIGKILL, then the same command again: the document of an uninterrupted
    run."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITE)
    monkeypatch.setenv("PYTHONPATH", str(site))
    out = tmp_path / "killed"
    kept = kill_when_held(_cli(out), str(out / "deals" / "part-*.parquet"), 3, HERE)
    assert 3 <= kept <= 5, "the study is held after its third chunk"
    resumed = subprocess.run(_cli(out), cwd=HERE, capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    # the uninterrupted run in this process on one core: the document is the same whatever
    # n_jobs (test above), and a third interpreter with two workers costs seconds
    clean = run_cli(_args(None, n_jobs=1), HERE)
    assert clean.returncode == 0, clean.stderr
    got, want = json.loads(resumed.stdout), json.loads(clean.stdout)
    assert _values(got) == _values(want) and len(got["values"]) == 240
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and len(manifest["sessions"]) == 2
    assert manifest["sessions"][-1]["chunks_run"] == 8 - kept
    assert manifest["study"]["kind"] == "solve"
