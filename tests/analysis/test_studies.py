"""compare and sweep on the one executor: same tables whatever n_jobs, chunking, backend or a
kill -9 and resume; machine-readable output; sums that match the arrays they replace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gated import kill_when_held
from polars.testing import assert_frame_equal

from analysis import stats
from analysis.compare import compare, compare_study, sweep
from analysis.experiment import Experiment
from analysis.runner import map_chunks
from tests.cli_run import run_cli

HERE = Path(__file__).parent

DEALS = Experiment.create("bianco-mano", options={"n_players": 4}, size=12_000, seed=21)
GAMES = Experiment.create("bianco-mano", options={"n_players": 5}, unit="games", size=120,
                          seed=22)
GRID = {"take_threshold": [3.5, 4.5, 5.5]}
A, B = {"name": "heuristic", "params": {"take_threshold": 5.0}}, "heuristic"


CASES = {"deals": (DEALS, (12_000, 2_500, 3_000)), "games": (GAMES, (120, 25, 40))}


@pytest.fixture(scope="module", params=sorted(CASES))
def reference(request):
    """A sweep and a comparison played in one chunk by one process: what every other way
    of playing them must give exactly (the sums of integer scores and counts do not depend
    on how the units are cut into chunks or which process plays them)."""
    base, chunks = CASES[request.param]
    return (base, chunks, sweep(base, GRID, chunk_size=chunks[0], progress=False),
            compare(base, A, B, chunk_size=chunks[0], progress=False))


def test_studies_identical_for_one_and_two_processes(reference):
    base, chunks, swept, compared = reference
    assert_frame_equal(swept, sweep(base, GRID, n_jobs=2, chunk_size=chunks[0],
                                    progress=False))
    assert_frame_equal(compared, compare(base, A, B, n_jobs=2, chunk_size=chunks[0],
                                         progress=False))


def test_studies_identical_for_two_chunk_sizes(reference, tmp_path):
    base, chunks, swept, compared = reference
    assert_frame_equal(swept, sweep(base, GRID, chunk_size=chunks[1], progress=False,
                                    out_dir=tmp_path / "sweep"))
    assert_frame_equal(compared, compare(base, A, B, chunk_size=chunks[1], progress=False))
    assert len(list((tmp_path / "sweep" / "sums").glob("part-*.parquet"))) == \
        -(-base.size // chunks[1])
    assert swept["n"].to_list() == [base.size] * 3


def test_studies_identical_on_a_dask_local_cluster(reference, dask_scheduler):
    base, chunks, swept, compared = reference
    remote = sweep(base, GRID, chunk_size=chunks[2], backend="dask", scheduler=dask_scheduler,
                   progress=False)
    remote_compare = compare(base, A, B, chunk_size=chunks[2], backend="dask",
                             scheduler=dask_scheduler, progress=False)
    assert_frame_equal(swept, remote)
    assert_frame_equal(compared, remote_compare)


ODDS_QUESTIONS = {
    "bianco-mano": {"hand": "1R 2R 3B 8V 2J", "turned": "4R", "position": 2},
    "manille": {"hand": "10P AP RP 9P 10C 7C AK 8T"},
    "truc": {"hand": "9 10 V", "role": "dealer"},
    "bango": {"hand": "4B 6R", "centre": "5Y 9K 2V", "sequences": "7B 8B 9B",
              "seen": "1R 1B 3Y"},
}


@pytest.mark.parametrize("game", sorted(ODDS_QUESTIONS))
def test_odds_identical_for_n_jobs_and_chunk_sizes_with_paired_rows(tmp_path, game):
    from analysis.odds import odds, odds_table

    experiment = Experiment.create(game, size=3_000, seed=5)
    hook = experiment.game.odds
    question = hook.question(**ODDS_QUESTIONS[game])
    one = odds(experiment, question, chunk_size=3_000, progress=False)
    two = odds(experiment, question, n_jobs=2, chunk_size=700, progress=False,
               out_dir=tmp_path / "odds")
    assert_frame_equal(one, two)
    whole = hook.play(experiment.config, experiment.play_policies(), question, 3_000, 5)
    assert_frame_equal(one, odds_table(hook.metrics_for(experiment.config, question), whole,
                                       hook.reference_for(question)))
    paired = one.filter(one["decision"].str.contains(" - "))
    assert paired.height >= 1 and (paired["low"] <= paired["value"]).all()
    assert (paired["value"] <= paired["high"]).all()


def test_compare_sums_match_the_score_arrays():
    """The executor's sums give the interval the arrays would: one formula, two inputs."""
    base = DEALS.replace(size=3_000)
    study, _, _ = compare_study(base, A, B)
    sums = map_chunks(study, chunk_size=700, progress=False).totals
    exps = study.arms
    b, a = (e.unit.seat_scores(e.play(0, 3_000), e.config)[:, 0] for e in exps)
    by_arrays = stats.paired_difference(a, b)
    got = stats.paired_difference(stats.PairedSums(*(sums[f"1:{k}"] for k in
                                                     stats.PairedSums._fields)))
    assert got == pytest.approx(by_arrays, rel=1e-12)
    assert got.n == 3_000 and sums["1:a"] == a.sum() and sums["1:ab"] == a @ b
    # the paired interval is narrower than the unpaired one on these common deals
    unpaired = stats.unpaired_difference(a, b)
    assert got.high - got.low < unpaired.high - unpaired.low


def _cli(command: str, out_dir: Path | None, *extra: str) -> list[str]:
    if command == "sweep":
        args = ["sweep", "bianco-mano", "--grid", "take_threshold=3.5,4.5,5.5"]
    elif command == "odds":
        args = ["odds", "bianco-mano", "--hand", "1R 2R 3B 8V 2J", "--turned", "4R",
                "--position", "1"]
    else:
        args = ["compare", "bianco-mano", "--b-param", "take_threshold=5"]
    out = ["--out-dir", str(out_dir)] if out_dir is not None else []
    return [sys.executable, "-m", "analysis.cli", *args, "--deals", "60000", "--chunk-size",
            "4000", "--seed", "7", "--policy", "gated:GatedHeuristic", "--no-progress", "--json",
            *out, *extra]


# compare in the default suite; sweep and odds (the same executor, 5 s each) under -m slow
@pytest.mark.parametrize("command", [pytest.param("sweep", marks=pytest.mark.slow), "compare",
                                     pytest.param("odds", marks=pytest.mark.slow)])
def test_a_study_killed_with_sigkill_resumes_to_the_same_table(tmp_path, command):
    """A real subprocess held after 3 finished chunks (``gated.GatedHeuristic``), killed
    with SIGKILL, then the same command again: the table of an uninterrupted run, to the
    last digit."""
    out = tmp_path / "killed"
    parts = str(out / "sums" / "part-*.parquet")
    kept = kill_when_held(_cli(command, out), parts, 3, HERE)
    assert 3 <= kept <= 4, "the study is held after its third chunk"
    resumed = subprocess.run(_cli(command, out), cwd=HERE, capture_output=True, text=True,
                             timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    clean = subprocess.run(_cli(command, None), cwd=HERE, capture_output=True, text=True,
                           timeout=900)
    assert clean.returncode == 0, clean.stderr
    got, want = json.loads(resumed.stdout), json.loads(clean.stdout)
    assert got["rows"] == want["rows"] and got["experiment"] == want["experiment"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and len(manifest["sessions"]) == 2
    assert manifest["sessions"][-1]["chunks_run"] == 15 - kept
    assert manifest["study"]["kind"] == command


def test_a_study_directory_holds_one_study(tmp_path):
    base = DEALS.replace(size=2_000)
    sweep(base, GRID, chunk_size=1_000, progress=False, out_dir=tmp_path / "s")
    with pytest.raises(ValueError, match="holds a different study"):
        sweep(base, {"take_threshold": [4.0, 5.0]}, progress=False, out_dir=tmp_path / "s")
    with pytest.raises(ValueError, match="holds a different study"):
        compare(base, A, B, progress=False, out_dir=tmp_path / "s")
    with pytest.raises(ValueError, match="holds a study"):
        from analysis.runner import run
        run(base, tmp_path / "s", progress=False)
    bigger = sweep(base.replace(size=3_000), GRID, progress=False, out_dir=tmp_path / "s")
    assert bigger["n"].to_list() == [3_000] * 3  # a larger size extends the study
    assert_frame_equal(bigger, sweep(base.replace(size=3_000), GRID, progress=False))


def test_sequential_compare_stops_at_the_same_checkpoint_for_any_n_jobs(tmp_path):
    base = DEALS.replace(size=40_000)
    kw = {"precision": 0.03, "chunk_size": 2_000, "progress": False}
    one = compare(base, A, B, n_jobs=1, **kw)
    two = compare(base, A, B, n_jobs=2, out_dir=tmp_path / "seq", **kw)
    assert_frame_equal(one, two)
    paired = one.row(2, named=True)
    assert paired["target_reached"] and (paired["high"] - paired["low"]) / 2 <= 0.03
    assert paired["n"] < 40_000 and paired["n"] % 2_000 == 0
    fixed = compare(base.replace(size=paired["n"]), A, B, chunk_size=2_000, progress=False)
    assert_frame_equal(one.drop("target_reached"), fixed.drop("target_reached"))
    kept = sorted((tmp_path / "seq" / "sums").glob("part-*.parquet"))
    assert len(kept) == paired["n"] // 2_000  # what a wave played beyond it is forgotten


def test_json_output_of_every_study_command(tmp_path):
    env = {"TAPISVERT_SCALE": "0.05", "TAPISVERT_DEBUG": None}
    runs = {
        "compare": ["compare", "manille", "--b-param", "contre_threshold=200", "--deals",
                    "100000"],
        "sweep": ["sweep", "truc", "--grid", "call_threshold=0.3,0.6", "--deals", "40000"],
        "simulate": ["simulate", "five-crowns", "--rounds", "20000"],
        "odds": ["odds", "truc", "--hand", "9 10 V", "--role", "dealer"],
    }
    docs = {}
    for name, args in runs.items():
        done = run_cli([*args, "--json"], tmp_path, env=env)
        assert done.returncode == 0, done.stderr
        docs[name] = json.loads(done.stdout)
        assert set(docs[name]) >= {"rows", "experiment", "seconds"}
        assert docs[name]["experiment"]["seed"] == 2026
    paired = [r for r in docs["compare"]["rows"] if r["row"] == "A - B paired"][0]
    assert set(paired) == {"row", "policy", "mean", "low", "high", "n", "p_value",
                           "target_reached"}
    assert paired["low"] < paired["mean"] < paired["high"] and paired["n"] == 5_000
    assert docs["compare"]["experiment"]["b"]["params"]["contre_threshold"] == 200
    assert [r["param_call_threshold"] for r in docs["sweep"]["rows"]] == [0.3, 0.6]
    decisions = {r["decision"] for r in docs["odds"]["rows"]}
    assert {"play", "ask", "ask - play"} <= decisions
    assert docs["odds"]["experiment"]["question"]["hand"] == "9 10 V"
    assert {r["metric"] for r in docs["simulate"]["rows"]} and \
        docs["simulate"]["units"] == 1_000
    for doc in docs.values():
        for row in doc["rows"]:
            assert all(not isinstance(v, float) or np.isfinite(v) for v in row.values())
