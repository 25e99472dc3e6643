"""Experiment runner: determinism across n_jobs and chunking, resume after SIGKILL, Dask."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from gated import kill_when_held
from polars.testing import assert_frame_equal

from analysis import summaries
from analysis.experiment import Experiment
from analysis.runner import load, run, run_until
from simulators.bianco_mano.metrics import DEAL_METRICS

HERE = Path(__file__).parent

DEALS = Experiment.create("bianco-mano", options={"n_players": 4, "bianco_mano": True},
                          size=30_000, seed=11)
GAMES = Experiment.create("bianco-mano", options={"n_players": 5}, unit="games", size=300, seed=12,
                          policies="random")


def bianco_mano_rate(deals, metric):
    return summaries.estimate(DEAL_METRICS, deals, metric)


@pytest.mark.parametrize("experiment, chunks", [(DEALS, (30_000, 7_000)), (GAMES, (300, 70))],
                         ids=["deals", "games"])
def test_identical_for_n_jobs_and_chunk_sizes(tmp_path, experiment, chunks):
    one = run(experiment, tmp_path / "a", n_jobs=1, chunk_size=chunks[0], progress=False)
    two = run(experiment, tmp_path / "b", n_jobs=2, chunk_size=chunks[1], progress=False)
    for table in one.manifest["tables"]:
        assert_frame_equal(one.table(table), two.table(table))
    assert len(two.parts("deals")) == -(-experiment.size // chunks[1])
    assert two.manifest["complete"] and two.manifest["units_done"] == experiment.size
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["experiment"] == experiment.to_dict()
    assert manifest["seed_entropy"] == experiment.seed and manifest["package_version"]


def test_run_directory_guards(tmp_path):
    run(DEALS.replace(size=2_000), tmp_path / "r", chunk_size=1_000, progress=False)
    with pytest.raises(ValueError, match="holds a different experiment"):
        run(DEALS.replace(size=2_000, seed=1), tmp_path / "r", progress=False)
    with pytest.raises(ValueError, match="chunk_size 500 differs"):
        run(DEALS.replace(size=2_000), tmp_path / "r", chunk_size=500, progress=False)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="is not an empty directory or a run"):
        run(DEALS, tmp_path / "other", progress=False)
    with pytest.raises(ValueError, match="not a tapisvert run directory"):
        load(tmp_path / "other")


def test_a_run_killed_before_its_manifest_starts_again(tmp_path):
    """Killed while the manifest was being written: only its temporary file is left."""
    killed = tmp_path / "killed"
    killed.mkdir()
    (killed / ".manifest.json.abc123.tmp").write_text('{"experim')
    small = DEALS.replace(size=2_000)
    result = run(small, killed, chunk_size=1_000, progress=False)
    assert sorted(p.name for p in killed.iterdir()) == ["deals", "manifest.json"]
    fresh = run(small, tmp_path / "fresh", chunk_size=1_000, progress=False)
    assert_frame_equal(result.table("deals"), fresh.table("deals"))


def test_a_run_killed_before_its_table_folders_resumes(tmp_path):
    small = DEALS.replace(size=2_000)
    first = run(small, tmp_path / "r", chunk_size=1_000, progress=False)
    expected = first.table("deals")
    for part in first.parts("deals"):
        part.unlink()
    (tmp_path / "r" / "deals").rmdir()
    assert_frame_equal(run(small, tmp_path / "r", progress=False).table("deals"), expected)


def _cli(out_dir, *extra):
    return [sys.executable, "-m", "analysis.cli", "simulate", "bianco-mano", "--deals", "600000",
            "--chunk-size", "20000", "--seed", "5", "--out-dir", str(out_dir), "--no-progress",
            *extra]


def test_resume_after_sigkill_keeps_chunks_and_matches_uninterrupted(tmp_path):
    """A real subprocess killed with SIGKILL mid-run, then the same command again.

    The run is held after 3 finished chunks (``gated.GatedHeuristic``, which
    plays as the heuristic), so the kill lands mid-run whatever the machine's
    speed; every wait below ends on progress, not on a clock.
    """
    out = tmp_path / "killed"
    parts = str(out / "deals" / "part-*.parquet")
    kill_when_held(_cli(out, "--policy", "gated:GatedHeuristic"), parts, 3, HERE)
    kept = sorted(p.name for p in (out / "deals").glob("part-*.parquet"))
    assert 3 <= len(kept) <= 4, "the run is held after its third chunk"
    done = subprocess.run(_cli(out, "--policy", "gated:GatedHeuristic"), cwd=HERE,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    resumed = load(out)
    assert resumed.manifest["complete"]
    assert resumed.manifest["sessions"][-1]["chunks_run"] == 30 - len(kept)
    assert not list((out / "deals").glob(".*.tmp"))
    reference = run(Experiment.create("bianco-mano", size=600_000, seed=5), tmp_path / "clean",
                    chunk_size=20_000, n_jobs=2, progress=False)
    assert_frame_equal(resumed.table(), reference.table())
    assert resumed.table()["deal_id"].to_list() == list(range(600_000))


def test_sequential_mode_stops_at_precision(tmp_path):
    """Contract success within +-1 point: stops early, on a prefix of the deals."""
    budget = Experiment.create("bianco-mano", size=400_000, seed=3)
    result = run_until(budget, tmp_path / "seq",
                       lambda r: bianco_mano_rate(r.scan(), "contract_success"), 0.01,
                       chunk_size=10_000, progress=False)
    seq = result.manifest["sequential"]
    assert seq["precision_reached"]
    est = bianco_mano_rate(result.scan(), "contract_success")
    assert (est.high - est.low) / 2 <= 0.01
    n = result.manifest["units_done"]
    assert n < 400_000 and result.table()["deal_id"].to_list() == list(range(n))
    full = run(Experiment.create("bianco-mano", size=n, seed=3), tmp_path / "fixed", chunk_size=n,
               progress=False)
    assert_frame_equal(result.table(), full.table())


def test_dask_backend_on_a_local_cluster_matches_local_run(tmp_path, dask_scheduler):
    experiment = DEALS.replace(size=20_000)
    local = run(experiment, tmp_path / "local", chunk_size=5_000, progress=False)
    remote = run(experiment, tmp_path / "dask", chunk_size=4_000, backend="dask",
                 scheduler=dask_scheduler, progress=False)
    assert remote.manifest["sessions"][-1]["backend"] == "dask"
    assert_frame_equal(local.table(), remote.table())


def test_experiment_toml_round_trip_and_errors(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text('game = "bianco-mano"\nunit = "games"\nsize = 50\nseed = 9\n'
                    '[options]\nn_players = 3\nbianco_mano = true\n'
                    '[[policies]]\nname = "heuristic"\nparams = { take_threshold = 4.5 }\n')
    exp = Experiment.from_toml(path)
    assert exp.config.n_players == 3 and exp.policies[0].take_threshold == 4.5
    assert Experiment.from_dict(exp.to_dict()) == exp
    assert exp.to_dict()["options"]["bianco_mano"] is True  # every option, spelled out
    for text, message in [
        ('game = "poker"', "unknown game 'poker'"),
        ('size = 3', "an experiment needs its game"),
        ('sise = 3', "unknown experiment key"),
        ('[options]\nn_players = 7', "n_players must be 3, 4 or 5"),
        ('[options]\nbonus = true', r"unknown rule option\(s\) for bianco-mano: bonus"),
        ('policies = [{name = "heuristic"}, {name = "random"}]', "give one policy or 4"),
        ('[[policies]]\nname = "heuristic"\nparams = { x = 1 }', "has no parameter 'x'"),
        ('unit = "rounds"', "unit must be one of"),
        ('size = [', "is not valid TOML"),
    ]:
        game = "" if text.startswith(("game", "size = 3")) else 'game = "bianco-mano"\n'
        path.write_text(game + text)
        with pytest.raises(ValueError, match=message):
            Experiment.from_toml(path)
    with pytest.raises(ValueError, match="config file not found"):
        Experiment.from_toml(tmp_path / "missing.toml")


def test_summaries_stream_from_parts(tmp_path):
    result = run(DEALS, tmp_path / "r", chunk_size=5_000, progress=False)
    lazy = bianco_mano_rate(result.scan(), "take_rate")
    eager = result.table()
    assert lazy.n == 30_000
    assert lazy.value == pytest.approx((eager["outcome"] != "all_pass").mean())
    assert isinstance(result.scan(), pl.LazyFrame)


def test_a_slow_policys_chunk_hint_caps_the_default_chunk():
    """A policy declaring ``units_per_chunk`` (PIMC: about a second a deal) gets small chunks,
    so --n-jobs shares even a small run; the others keep the unit's default."""
    from analysis.compare import ScoreStudy
    from analysis.runner import _Job

    slow = Experiment("manille", policies="pimc", size=100, seed=1)
    fast = Experiment("manille", policies="heuristic", size=100, seed=1)
    assert _Job(slow).default_chunk == 50
    assert _Job(fast).default_chunk == fast.unit.default_chunk
    study = ScoreStudy("compare", (fast, slow), seats=(0,))
    assert _Job(study).default_chunk == 50


def test_a_chunk_with_nothing_to_record_adds_nothing_to_its_table():
    """A labels chunk of deals nobody took records no row, and so no column but its key:
    the table is the other chunks' rows (it once failed to concatenate)."""
    from analysis.runner import _concat_parts

    full = pl.DataFrame({"first_unit": [0, 0], "hand": [3, 5]})
    empty = pl.DataFrame({"first_unit": pl.Series([], dtype=pl.Int64)})
    assert _concat_parts([full, empty, full]).equals(pl.concat([full, full]))
    assert _concat_parts([empty]).height == 0
