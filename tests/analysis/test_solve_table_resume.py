"""Truc's equity table (``tapisvert solve truc --equity``) is waves of executor studies: a run
killed with SIGKILL resumes to the table solved at once, and what the recompute rebuilds is
what ships. (A file of its own: under ``--dist loadfile`` its minute of subprocesses runs on
another worker than the deals' SIGKILL test.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gated import gated_site, kill_when_held

from simulators.core.game import get_game

HERE = Path(__file__).parent


TABLE_TIMING = ("seconds", "solver_seconds", "n_jobs")
TABLE_SITE = gated_site("simulators.truc.solver.manche", "solve_states")


def _table_cli(out_dir: Path) -> list[str]:
    return [sys.executable, "-m", "analysis.cli", "solve", "truc", "--equity", "--recompute",
            "--lines", "2", "--n-jobs", "2", "--no-progress", "--json", "--out-dir",
            str(out_dir)]


def test_the_equity_table_killed_with_sigkill_resumes_to_the_same_table(tmp_path,
                                                                        monkeypatch):
    """Truc's equity table is waves of executor studies (``analysis.solve.solve_table``): a
    run held after its first wave (11-11), killed with SIGKILL and run again reads that wave
    back and solves the second (10-11 with 11-10); the table is the one solved at once in
    one process."""
    from analysis.commands.common import json_value
    from analysis.solve import solve_table
    from simulators.core.game import SolveTableRun

    monkeypatch.setenv("TAPISVERT_CACHE", str(tmp_path / "cache"))  # the states it stores
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(TABLE_SITE)
    monkeypatch.setenv("PYTHONPATH", str(site))
    out = tmp_path / "killed"
    kept = kill_when_held(_table_cli(out), str(out / "wave-*" / "sums" / "part-*.parquet"), 1,
                          HERE)
    assert kept == 1 and not (out / "wave-01" / "sums" / "part-000000.parquet").exists()
    resumed = subprocess.run(_table_cli(out), cwd=HERE, capture_output=True, text=True,
                             timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    got = json.loads(resumed.stdout)
    first = json.loads((out / "wave-00" / "manifest.json").read_text())
    assert first["study"]["units"] == [[[11, 11]]]
    assert [s["chunks_run"] for s in first["sessions"]] == [1, 0]  # read back, not solved
    run = SolveTableRun({"card_call": True, "target": 0.005, "lines": 2})
    want = solve_table(get_game("truc"), run, progress=False)  # at once, in this process
    strip = lambda doc: {k: v for k, v in doc.items() if k not in TABLE_TIMING}  # noqa: E731
    assert strip(got) == json.loads(json.dumps(json_value(strip(want))))
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
