"""The tapisvert command line: main job, output files, bad input (exit 2, nothing written)."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest

from analysis.cli import main


def test_simulate_prints_rates_with_intervals(capsys):
    assert main(["simulate", "bianco-mano", "--deals", "3000", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "3000 deals" in out
    for metric in ("take rate", "contract success", "capo"):
        assert metric in out
    assert "95% CI [" in out


def test_simulate_writes_the_deal_table(tmp_path):
    out = tmp_path / "deals.parquet"
    assert main(["simulate", "bianco-mano", "--players", "3", "--games", "20", "--bonus",
                 "--out", str(out)]) == 0
    table = pl.read_parquet(out)
    assert {"game_id", "deal_no", "outcome", "delta_2"} <= set(table.columns)
    assert table.filter(pl.col("outcome") != "all_pass").height == 20 * 10
    assert [p.name for p in tmp_path.iterdir()] == ["deals.parquet"]  # no temporary left


@pytest.mark.parametrize("argv, message", [
    (["--players", "6"], "n_players must be 3, 4 or 5"),
    (["--policy", "greedy"], "unknown Bianco Mano policy 'greedy'"),
    (["--param", "take_threshold=99"], "take_threshold must be in [0.0, 30.0], got 99"),
    (["--param", "treshold=1"], "has no parameter 'treshold'"),
    (["--param", "oops"], "--param expects name=value"),
    (["--deals", "0"], "n_deals must be a positive integer"),
    (["--seed", "-3"], "seed must be a non-negative integer"),
    (["--out", "table.xlsx"], "--out must end in .parquet or .csv"),
    (["--out", "missing/dir/t.csv"], "--out directory does not exist"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys,
                                                            argv, message):
    monkeypatch.chdir(tmp_path)
    status = main(["simulate", "bianco-mano", "--deals", "100", *argv, "--out", "t.csv"]
                  if "--out" not in argv else ["simulate", "bianco-mano", "--deals", "100", *argv])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("tapisvert: error: ") and message in err
    assert list(tmp_path.iterdir()) == []


def test_console_script_usage_errors_exit_2():
    result = subprocess.run([sys.executable, "-m", "analysis.cli", "simulate", "poker"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "invalid choice: 'poker'" in result.stderr
