"""Edges of running: worker lifetimes, sequential stopping, resume and extension, intervals."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from gated import gate
from polars.testing import assert_frame_equal

from analysis import stats, summaries
from analysis.cli import main
from analysis.compare import compare
from analysis.experiment import Experiment
from analysis.runner import load, run
from simulators.core.game import get_game

TAPISVERT = shutil.which("tapisvert")
HERE = Path(__file__).parent
ORPHAN_LIMIT = 300  # seconds: workers notice their parent's death within a few on a quiet machine


def _alive(pids: list[int]) -> list[int]:
    psutil = pytest.importorskip("psutil")
    living = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                living.append(pid)
        except psutil.NoSuchProcess:
            pass
    return living


def test_sigkill_leaves_no_worker_alive(tmp_path):
    """kill -9 of a running --n-jobs 2 command: none of its worker processes outlives it.

    The run is held after its first chunk (``gated.GatedHeuristic``), so the
    kill lands mid-run with both workers alive; then every worker must end by
    itself. Waits end on progress (a chunk written, the workers gone), with
    generous safety limits rather than a fixed delay.
    """
    psutil = pytest.importorskip("psutil")
    parts = str(tmp_path / "run" / "deals" / "part-*.parquet")
    proc = subprocess.Popen([TAPISVERT, "simulate", "bianco-mano", "--deals", "5000000",
                             "--policy", "gated:GatedHeuristic", "--n-jobs", "2",
                             "--out-dir", str(tmp_path / "run")], cwd=HERE, env=gate(parts, 1),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        parent = psutil.Process(proc.pid)
        workers: list = []
        while proc.poll() is None and not (len(workers) >= 2 and glob.glob(parts)):
            workers = [c for c in parent.children(recursive=True)
                       if "python" in c.name().lower()]
            time.sleep(0.2)
        assert proc.poll() is None and len(workers) >= 2, "the run never got going"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        _, alive = psutil.wait_procs(workers, timeout=ORPHAN_LIMIT)
        alive = _alive([p.pid for p in alive])
        assert alive == [], f"orphans of the killed command: {alive}"
    finally:
        if proc.poll() is None:
            proc.kill()


def _sequential_output(capsys, n_jobs: int, tmp_path) -> tuple[str, pl.DataFrame]:
    out_dir = tmp_path / f"seq{n_jobs}"
    assert main(["simulate", "bianco-mano", "--deals", "120000", "--chunk-size", "5000",
                 "--precision", "1", "--metric", "contract_success", "--seed", "7",
                 "--n-jobs", str(n_jobs), "--out-dir", str(out_dir)]) == 0
    text = capsys.readouterr().out
    lines = [line for line in text.splitlines()[1:] if "run directory" not in line]
    return "\n".join([text.splitlines()[0].split(" in ")[0], *lines]), load(out_dir).table()


def test_precision_is_the_same_for_one_and_two_workers(capsys, tmp_path):
    """Checkpoints after every chunk in chunk order: same stopping point, same table."""
    one, table_one = _sequential_output(capsys, 1, tmp_path)
    two, table_two = _sequential_output(capsys, 2, tmp_path)
    assert one == two
    assert "reached" in one and "NOT" not in one
    assert_frame_equal(table_one, table_two)
    n = table_one.height
    assert n % 5000 == 0 and n < 120000
    # the stopping rule holds at n and fails one chunk earlier
    unit = get_game("bianco-mano").unit("deals")
    est = summaries.estimate(unit.metrics, table_one, "contract_success")
    before = summaries.estimate(unit.metrics, table_one.head(n - 5000), "contract_success")
    assert (est.high - est.low) / 2 <= 0.01 < (before.high - before.low) / 2


def test_compare_precision_is_the_same_for_one_and_two_workers():
    base = Experiment.create("bianco-mano", size=60_000, seed=3)
    tables = [compare(base, {"name": "heuristic", "params": {"take_threshold": 3.0}},
                      "heuristic", precision=0.08, chunk_size=2_000, n_jobs=n, progress=False)
              for n in (1, 2)]
    assert_frame_equal(tables[0], tables[1])
    paired = tables[0].row(2, named=True)
    assert paired["target_reached"] and paired["n"] % 2_000 == 0 and paired["n"] < 60_000
    assert (paired["high"] - paired["low"]) / 2 <= 0.08
    missed = compare(base.replace(size=4_000), {"name": "heuristic",
                                               "params": {"take_threshold": 3.0}},
                     "heuristic", precision=0.001, chunk_size=2_000, progress=False)
    assert missed["target_reached"].to_list() == [False] * 4 and missed["n"][0] == 4_000


def test_resume_accepts_spelled_out_defaults_and_extends_a_finished_run(tmp_path, capsys):
    out = str(tmp_path / "run")
    assert main(["simulate", "bianco-mano", "--deals", "1500", "--chunk-size", "1000",
                 "--out-dir", out]) == 0
    # the same experiment with a default spelled out: resumed, nothing played again
    assert main(["simulate", "bianco-mano", "--deals", "1500", "--players", "4",
                 "--option", "bianco_mano=false", "--out-dir", out]) == 0
    assert load(out).manifest["sessions"][-1]["chunks_run"] == 0
    # a larger size extends the run: the short last chunk is played again in full
    assert main(["simulate", "bianco-mano", "--deals", "3500", "--out-dir", out]) == 0
    capsys.readouterr()
    extended = load(out)
    assert extended.manifest["sessions"][-1]["chunks_run"] == 3
    assert extended.manifest["complete"] and extended.manifest["extended_from"] == 1500
    clean = run(Experiment.create("bianco-mano", size=3500), tmp_path / "clean",
                chunk_size=700, progress=False)
    assert_frame_equal(extended.table(), clean.table())
    # what differs is named
    assert main(["simulate", "bianco-mano", "--deals", "3500", "--players", "5",
                 "--param", "take_threshold=5", "--out-dir", out]) == 2
    err = capsys.readouterr().err
    assert "options.n_players: the run has 4, this command 5" in err
    assert "policies[0].params.take_threshold: the run has 4.0, this command 5.0" in err


def test_a_truncated_part_is_played_again_on_resume(tmp_path, capsys):
    experiment = Experiment.create("bianco-mano", size=3000, seed=4)
    first = run(experiment, tmp_path / "run", chunk_size=1000, progress=False)
    reference = first.table()
    part = first.parts()[1]
    part.write_bytes(part.read_bytes()[:500])  # a copy cut short
    again = run(experiment, tmp_path / "run", progress=False)
    assert again.manifest["sessions"][-1]["chunks_run"] == 1
    assert "1 damaged chunk file(s)" in capsys.readouterr().err
    assert_frame_equal(again.table(), reference)


def test_cluster_robust_intervals():
    """Rows that are their own cluster give Wilson's interval; deals of whole games are wider."""
    game = get_game("bianco-mano")
    deals = Experiment.create(game, unit="games", size=1500, seed=2).play(0, 1500)["deals"]
    metrics = game.unit("games").metrics
    plain = summaries.evaluate(metrics, deals)
    own = summaries.evaluate(metrics, deals.with_row_index("row"), cluster="row")
    np.testing.assert_allclose(own["low"], plain["low"], atol=2e-5)
    np.testing.assert_allclose(own["high"], plain["high"], atol=2e-5)
    clustered = summaries.evaluate(metrics, deals, cluster="game_id")
    assert clustered["value"].to_list() == plain["value"].to_list()
    take = [t.filter(pl.col("metric") == "take_rate") for t in (plain, clustered)]
    widths = [(t["high"] - t["low"]).item() for t in take]
    assert widths[1] > widths[0] * 1.01  # the deals of a game share its deck (BM-3)
    # a mean: with one row per cluster, the t interval of stats.mean
    x = np.arange(10.0) ** 2
    frame = pl.DataFrame({"x": x, "c": np.arange(10)})
    from simulators.core.game import mean as mean_metric

    got = summaries.evaluate([mean_metric("m", "m", pl.col("x"))], frame, cluster="c").row(0)
    want = stats.mean(x)
    assert got[3] == pytest.approx(want.value)
    assert got[4] == pytest.approx(want.low) and got[5] == pytest.approx(want.high)


def test_interrupt_and_broken_pipe_are_one_line(tmp_path):
    """Ctrl-C: exit 130 with the rerun hint; a closed pipe: quiet.

    The run is held after its first chunk (``gated.GatedHeuristic``), so
    Ctrl-C lands mid-run whatever the machine's speed.
    """
    parts = str(tmp_path / "run" / "deals" / "part-*.parquet")
    proc = subprocess.Popen([TAPISVERT, "simulate", "bianco-mano", "--deals", "3000000",
                             "--policy", "gated:GatedHeuristic", "--out-dir",
                             str(tmp_path / "run")], cwd=HERE, env=gate(parts, 1),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not glob.glob(parts):
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate()
    assert proc.returncode == 130
    assert err.splitlines() == [f"tapisvert: error: interrupted; finished chunks are kept in "
                                f"'{tmp_path / 'run'}': rerun the same command to resume"]
    piped = subprocess.run(f"{TAPISVERT} policies bianco-mano | head -1", shell=True,
                           capture_output=True, text=True, timeout=900)
    assert piped.stdout.startswith("Policies of Bianco Mano") and piped.stderr == ""
