"""The tapisvert command line: each command, and bad input (exit 2, one line, nothing written)."""

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


def test_simulate_games_into_a_run_directory(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["simulate", "bianco-mano", "--players", "3", "--games", "40",
            "--option", "bianco_mano=true", "--out-dir", str(out), "--chunk-size", "15"]
    assert main(argv) == 0
    assert "40 games" in capsys.readouterr().out
    games = pl.read_parquet(sorted((out / "games").glob("*.parquet")))
    assert games.height == 40 * 3
    deals = pl.read_parquet(sorted((out / "deals").glob("*.parquet")))
    assert deals.filter(pl.col("outcome") != "all_pass").height == 40 * 10
    assert main(argv) == 0  # rerun: everything already there, nothing replayed


def test_simulate_from_a_toml_config(tmp_path, capsys):
    config = tmp_path / "exp.toml"
    config.write_text('game = "bianco-mano"\nsize = 2000\nseed = 4\n[options]\nn_players = 5\n'
                      '[[policies]]\nname = "random"\n')
    assert main(["simulate", "bianco-mano", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "2000 deals" in out and "'n_players': 5" in out and "random" in out


def test_compare_and_sweep_and_odds_write_tables(tmp_path, capsys):
    cmp_out = tmp_path / "compare.csv"
    assert main(["compare", "bianco-mano", "--deals", "4000", "--a-param", "take_threshold=3",
                 "--seats", "0,2", "--out", str(cmp_out)]) == 0
    assert "A - B paired" in capsys.readouterr().out
    assert pl.read_csv(cmp_out)["row"].to_list() == ["A", "B", "A - B paired", "A - B unpaired"]
    sweep_out = tmp_path / "sweep.parquet"
    assert main(["sweep", "bianco-mano", "--deals", "3000", "--grid", "take_threshold=3,5",
                 "--grid", "bianco_mano=false,true", "--out", str(sweep_out)]) == 0
    table = pl.read_parquet(sweep_out)
    assert table.height == 4 and {"param_take_threshold", "param_bianco_mano",
                                  "p_adjusted"} <= set(table.columns)
    capsys.readouterr()
    assert main(["odds", "bianco-mano", "--hand", "1R 2R 3B 8V 2J", "--turned", "4R",
                 "--deals", "1000"]) == 0
    assert "P(made)" in capsys.readouterr().out


BAD = [
    (["simulate", "bianco-mano", "--players", "6"], "n_players must be 3, 4 or 5"),
    (["simulate", "bianco-mano", "--policy", "greedy"], "unknown Bianco Mano policy 'greedy'"),
    (["simulate", "bianco-mano", "--param", "take_threshold=99"],
     "take_threshold must be in [0.0, 30.0], got 99"),
    (["simulate", "bianco-mano", "--param", "treshold=1"], "has no parameter 'treshold'"),
    (["simulate", "bianco-mano", "--param", "oops"], "--param expects name=value"),
    (["simulate", "bianco-mano", "--option", "bonus=true"], "unknown rule option"),
    (["simulate", "bianco-mano", "--option", "bianco_mano=maybe"],
     "option bianco_mano must be true or false"),
    (["simulate", "bianco-mano", "--option", "deals_per_game=ten"],
     "option deals_per_game must be an integer"),
    (["simulate", "bianco-mano", "--precision", "1", "--metric", "nope"],
     "--metric must be one of"),
    (["simulate", "bianco-mano", "--policy", "nosuch.module:Policy"],
     "--policy nosuch.module:Policy: cannot import nosuch.module: ModuleNotFoundError"),
    (["simulate", "bianco-mano", "--option", "shuffle_every_deal=true",
      "--option", "gather=trick_order"], "gather has no effect with shuffle_every_deal"),
    (["simulate", "bianco-mano", "--deals", "0"], "--deals must be a positive number, got 0"),
    (["simulate", "bianco-mano", "--seed", "-3"], "seed must be a non-negative integer"),
    (["simulate", "bianco-mano", "--n-jobs", "0"], "--n-jobs must be -1 (every core)"),
    (["simulate", "bianco-mano", "--precision", "-1"], "--precision must be a positive"),
    (["simulate", "bianco-mano", "--config", "missing.toml"], "config file not found"),
    (["simulate", "bianco-mano", "--out-dir", "notes.txt"], "is a file, not a run directory"),
    (["compare", "bianco-mano", "--a-param", "take_threshold=3", "--seats", "0,x"],
     "--seats expects seat numbers"),
    (["compare", "bianco-mano", "--a-param", "take_threshold=3", "--seats", "4"],
     "seats must be distinct seat numbers in 0..3"),
    (["compare", "bianco-mano"], "policies A and B are identical"),
    (["compare", "bianco-mano", "--a-param", "take_threshold=3", "--out", "t.xlsx"],
     "--out must end in .parquet or .csv"),
    (["sweep", "bianco-mano"], "sweep needs at least one --grid"),
    (["sweep", "bianco-mano", "--grid", "take_threshold"], "--grid expects NAME=V1,V2"),
    (["sweep", "bianco-mano", "--grid", "take_threshold=3,99"], "take_threshold must be in"),
    (["sweep", "bianco-mano", "--grid", "nothing=1,2"], "is neither a parameter"),
    (["odds", "bianco-mano", "--hand", "1R 2R", "--turned", "4R"], "holds 5 cards"),
    (["odds", "bianco-mano", "--hand", "1R 2R 3B 8V 9J", "--turned", "4R"], "malformed card"),
    (["odds", "bianco-mano", "--hand", "1R 2R 3B 8V 2J", "--turned", "4R", "--family", "X"],
     "unknown family"),
    (["report", "bianco-mano", "--scale", "0"], "--scale must be a positive number, got 0"),
    (["report", "bianco-mano", "--out-dir", "notes.txt"], "is a file"),
    (["report", "bianco-mano", "--config", "missing.toml"], "config file not found"),
    (["report", "all", "--config", "notes.txt"], "--config applies to one game's report"),
    (["odds", "bianco-mano", "--turned", "4R"], "odds bianco-mano needs --hand"),
]


@pytest.mark.parametrize("argv, message", BAD, ids=[" ".join(a[2:])[:40] for a, _ in BAD])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys,
                                                            argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("tapisvert: error: ") and message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_usage_errors_from_argparse_exit_2():
    result = subprocess.run([sys.executable, "-m", "analysis.cli", "simulate", "poker"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "invalid choice: 'poker'" in result.stderr


@pytest.mark.parametrize("game", ["bianco-mano", "bango", "five-crowns", "manille", "truc"])
def test_help_of_a_game_shows_its_own_examples(game, capsys):
    """Issue 26: --param and --option examples from the game's registry; --players only where
    the number of players is a rule option."""
    from simulators.core.game import get_game

    spec = get_game(game)
    assert main(["simulate", game, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    params = spec.policies[spec.default_policy].parameters()
    first = next(n for n, p in params.items() if not isinstance(p["default"], bool))
    assert f"(e.g. {first}={params[first]['default']})" in text
    assert ("take_threshold" in text) == (game == "bianco-mano")
    has_players = "n_players" in spec.make_config().__dataclass_fields__
    assert ("--players" in text) == has_players


@pytest.mark.parametrize("game", ["bianco-mano", "bango", "five-crowns", "manille", "truc"])
def test_odds_help_of_a_game_shows_its_own_card_examples(game, capsys):
    """Issue 26: ``tapisvert odds GAME --help`` documents that game's question only, with
    its own card examples, and no other game's flags."""
    from simulators.core.game import get_game, registered_names

    hook = get_game(game).odds
    assert main(["odds", game, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for name, argument in hook.cards.items():
        assert f"--{name.replace('_', '-')}" in text and argument.example.split()[0] in text
    others = {f.name for g in registered_names() if g != game and get_game(g).odds
              for f in __import__("dataclasses").fields(get_game(g).odds.question)}
    own = {f.name for f in __import__("dataclasses").fields(hook.question)}
    for flag in others - own:
        assert f"--{flag.replace('_', '-')} " not in text
