"""Bad input to the installed ``tapisvert`` command: every subcommand, every game.

Each case must exit with status 2, print exactly one stderr line starting
``tapisvert: error:``, print nothing on stdout, and leave the working
directory exactly as it was (no file created, changed or deleted) — checked
before any simulation starts, so every case is quick. The cases run
concurrently (a few at a time) in one fixture; each is then its own test.

Every case calls :func:`analysis.cli.main` in this process (same code, without
the ~1.5 s start of a Python process each) but those in ``AS_A_PROCESS``, which
go through the installed command as a shell runs it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from analysis.cli import main

TAPISVERT = shutil.which("tapisvert")
HAND = "1R 2R 3B 8V 2J"
MANILLE_HAND = "10P AP RP 9P 10C 7C AK 8T"
TOO_MANY = str(10**29)  # beyond any run: unit ids are 64-bit, a solve keeps its deals in memory
TUNE = ["tune", "bianco-mano", "--policy", "heuristic", "--space", "take_threshold=2..6"]

# (id, argv): the id says what is wrong.
CASES = [
    # the command line itself
    ("no-command", []),
    ("unknown-command", ["deal"]),
    ("unknown-game", ["simulate", "poker"]),
    ("size-not-a-number", ["simulate", "bianco-mano", "--deals", "many"]),
    ("size-missing-value", ["simulate", "bianco-mano", "--deals"]),
    ("two-sizes", ["simulate", "bianco-mano", "--deals", "10", "--games", "10"]),
    ("unknown-flag", ["simulate", "bianco-mano", "--deal", "10"]),
    # sizes and the unit
    ("size-zero", ["simulate", "bianco-mano", "--deals", "0"]),
    ("size-negative", ["simulate", "five-crowns", "--rounds", "-5"]),
    ("unit-of-another-game", ["simulate", "bianco-mano", "--matches", "10"]),
    ("unit-not-of-five-crowns", ["simulate", "five-crowns", "--deals", "10"]),
    ("chunk-size-zero", ["simulate", "bianco-mano", "--deals", "10", "--chunk-size", "0"]),
    # rule options, typed from the config's fields
    ("unknown-option", ["simulate", "bianco-mano", "--deals", "10", "--option", "nosuch=1"]),
    ("option-not-assignment", ["simulate", "bianco-mano", "--option", "bianco_mano"]),
    ("option-bad-bool", ["simulate", "bianco-mano", "--option", "bianco_mano=maybe"]),
    ("option-out-of-range", ["simulate", "bianco-mano", "--option", "n_players=9"]),
    ("option-bad-tuple", ["simulate", "bianco-mano", "--option", "cut_weights=1"]),
    ("players-twice", ["simulate", "bianco-mano", "--players", "4", "--option", "n_players=5"]),
    ("option-ignored-by-unit", ["simulate", "five-crowns", "--games", "10", "--option",
                                "round_no=5"]),
    ("five-crowns-first-round", ["simulate", "five-crowns", "--option", "first_round=12"]),
    ("manille-unknown-option", ["simulate", "manille", "--option", "trump=none"]),
    ("truc-has-no-players", ["simulate", "truc", "--players", "3"]),
    ("bango-players", ["simulate", "bango", "--players", "9"]),
    # workers
    ("n-jobs-zero", ["simulate", "bianco-mano", "--deals", "10", "--n-jobs", "0"]),
    ("n-jobs-below-minus-one", ["simulate", "bianco-mano", "--deals", "10", "--n-jobs", "-3"]),
    ("n-jobs-more-than-cores", ["simulate", "bango", "--games", "10", "--n-jobs", "100000"]),
    ("scheduler-without-dask", ["simulate", "bianco-mano", "--scheduler", "tcp://h:8786"]),
    ("dask-without-scheduler", ["simulate", "bianco-mano", "--backend", "dask"]),
    ("dask-unreachable", ["simulate", "bianco-mano", "--deals", "10", "--backend", "dask",
                          "--scheduler", "tcp://127.0.0.1:9"]),
    # sequential mode
    ("precision-zero", ["simulate", "bianco-mano", "--precision", "0"]),
    ("precision-unknown-metric", ["simulate", "bianco-mano", "--precision", "1",
                                  "--metric", "nosuch"]),
    ("metric-without-precision", ["simulate", "bianco-mano", "--metric", "take_rate"]),
    # paths
    ("out-dir-unwritable", ["simulate", "bianco-mano", "--deals", "10", "--out-dir",
                            "/proc/tapisvert/run"]),
    ("out-dir-is-a-file", ["simulate", "bianco-mano", "--deals", "10", "--out-dir",
                           "notes.txt"]),
    ("out-dir-not-a-run", ["simulate", "bianco-mano", "--deals", "10", "--out-dir", "stuff"]),
    ("out-dir-other-experiment", ["simulate", "bianco-mano", "--deals", "400", "--players", "5",
                                  "--chunk-size", "100", "--out-dir", "run"]),
    ("out-dir-smaller-size", ["simulate", "bianco-mano", "--deals", "100", "--chunk-size",
                              "100", "--out-dir", "run"]),
    ("out-dir-other-chunks", ["simulate", "bianco-mano", "--deals", "400", "--chunk-size", "50",
                              "--out-dir", "run"]),
    # configs and policies
    ("config-missing", ["simulate", "bianco-mano", "--config", "missing.toml"]),
    ("config-not-toml", ["simulate", "bianco-mano", "--config", "broken.toml"]),
    ("config-other-game", ["simulate", "bianco-mano", "--config", "crowns.toml"]),
    ("players-fixed-count", ["simulate", "truc", "--players", "3"]),
    ("config-players-fixed-count", ["simulate", "manille", "--config", "manille_players.toml"]),
    ("config-unknown-key", ["simulate", "bianco-mano", "--config", "unknown_key.toml"]),
    ("policy-unknown", ["simulate", "bianco-mano", "--policy", "genius"]),
    ("policy-import-fails", ["simulate", "bianco-mano", "--policy", "no_such_module:Greedy"]),
    ("policy-not-a-policy", ["simulate", "bianco-mano", "--policy", "os.path:join"]),
    ("param-unknown", ["simulate", "bianco-mano", "--param", "nosuch=1"]),
    ("param-out-of-range", ["simulate", "bianco-mano", "--param", "take_threshold=99"]),
    ("param-bad-number", ["simulate", "truc", "--policy", "heuristic", "--param",
                          "call_threshold=x"]),
    # compare
    ("compare-same-seat-twice", ["compare", "bianco-mano", "--a-param", "take_threshold=3",
                                 "--seats", "0,0"]),
    ("compare-seat-out-of-range", ["compare", "bianco-mano", "--a-param", "take_threshold=3",
                                   "--seats", "4"]),
    ("compare-identical", ["compare", "bianco-mano", "--deals", "10"]),
    ("compare-per-seat-config", ["compare", "bianco-mano", "--config", "per_seat.toml",
                                 "--a-param", "take_threshold=3"]),
    ("compare-out-suffix", ["compare", "bianco-mano", "--a-param", "take_threshold=3",
                            "--out", "table.txt"]),
    ("compare-out-unwritable", ["compare", "manille", "--a", "random", "--out",
                                "/proc/tapisvert/t.csv"]),
    ("compare-precision-negative", ["compare", "bianco-mano", "--a-param", "take_threshold=3",
                                    "--precision", "-1"]),
    ("compare-five-crowns-param", ["compare", "five-crowns", "--a-param", "nosuch=1"]),
    ("compare-truc-n-jobs", ["compare", "truc", "--a", "random", "--n-jobs", "-2"]),
    # sweep
    ("sweep-no-grid", ["sweep", "bianco-mano"]),
    ("sweep-repeated-value", ["sweep", "bianco-mano", "--grid", "take_threshold=3,3"]),
    ("sweep-name-twice", ["sweep", "bianco-mano", "--grid", "take_threshold=3,4",
                          "--grid", "take_threshold=5"]),
    ("sweep-unknown-name", ["sweep", "bianco-mano", "--grid", "nosuch=1,2"]),
    ("sweep-bad-value", ["sweep", "bianco-mano", "--grid", "take_threshold=3,x"]),
    ("sweep-seat-missing-at-some-point", ["sweep", "bianco-mano", "--grid", "n_players=3,4,5",
                                          "--seats", "4"]),
    ("sweep-bango-out", ["sweep", "bango", "--grid", "n_players=2,3", "--out", "s.json"]),
    # odds
    ("odds-other-unit", ["odds", "bianco-mano", "--hand", HAND, "--turned", "4R",
                         "--games", "100"]),
    ("odds-missing-hand", ["odds", "bianco-mano", "--turned", "4R"]),
    ("odds-bad-card", ["odds", "bianco-mano", "--hand", "1R 2R 3B 8V 9J", "--turned", "4R"]),
    ("odds-foreign-flag", ["odds", "bianco-mano", "--hand", HAND, "--turned", "4R",
                           "--role", "mano"]),
    ("odds-five-crowns-no-round", ["odds", "five-crowns", "--hand", "3S"]),
    # BG-6: a sequence is consecutive values; sequences are separated by ';' (issue 26)
    ("odds-bango-not-consecutive", ["odds", "bango", "--hand", "4B", "--centre", "5Y",
                                    "--sequences", "7B 9B"]),
    ("odds-bango-comma-between-sequences", ["odds", "bango", "--hand", "4B", "--centre", "5Y",
                                            "--sequences", "7B 8B 9B, 1R 2R"]),
    ("odds-bango-black-in-sequence", ["odds", "bango", "--hand", "4B", "--centre", "5Y",
                                      "--sequences", "7B 8K"]),
    ("odds-n-jobs", ["odds", "truc", "--hand", "9 10 V", "--n-jobs", "-3"]),
    # report
    ("report-scale-zero", ["report", "bianco-mano", "--scale", "0"]),
    ("report-out-dir-unwritable", ["report", "five-crowns", "--out-dir", "/proc/tapisvert"]),
    ("report-out-dir-is-a-file", ["report", "bianco-mano", "--out-dir", "notes.txt"]),
    ("report-all-config", ["report", "all", "--config", "per_seat.toml"]),
    ("report-n-jobs", ["report", "manille", "--n-jobs", "-2"]),
    ("report-unknown-game", ["report", "poker"]),
    # discovery
    ("options-unknown-game", ["options", "poker"]),
    ("policies-no-game", ["policies"]),
    # flags that would be ignored
    ("solve-truc-equity-scores", ["solve", "truc", "--equity", "--scores", "3,4"]),
    ("solve-truc-n-jobs-one-state", ["solve", "truc", "--n-jobs", "2"]),
    ("solve-truc-equity-n-jobs-no-recompute", ["solve", "truc", "--equity", "--n-jobs", "2"]),
    ("odds-manille-worlds-no-pimc", ["odds", "manille", "--hand", MANILLE_HAND, "--worlds", "5"]),
    ("odds-bianco-mano-worlds-no-pimc", ["odds", "bianco-mano", "--hand", HAND, "--turned", "4R",
                                         "--play", "heuristic,double-dummy", "--worlds", "5"]),
    ("truc-equilibrium-solved-scores-ignored", ["simulate", "truc", "--matches", "10", "--policy",
                                                "equilibrium", "--param", "solved_scores=5"]),
    ("truc-equilibrium-call-margin-ignored", ["simulate", "truc", "--matches", "10", "--policy",
                                              "equilibrium", "--param", "call_margin=3"]),
    # answers that would look real but are not
    ("compare-duplicate-seats-both-teams", ["compare", "manille", "--duplicate", "--seats", "0,1"]),
    ("sweep-seats-both-teams", ["sweep", "bianco-mano", "--grid", "take_threshold=3,4",
                                "--seats", "0,1"]),
    # MA-5: seat 3 played 8P on a heart lead while holding 7C
    ("solve-manille-trick-breaks-ma-5", ["solve", "manille", "--hands", "AP; RP DP; VP 9P; 7C",
                                         "--trump", "K", "--trick", "10C 8P"]),
    # BM-8: seat 1 played 1B on a red lead while holding 3R
    ("solve-bianco-mano-trick-breaks-bm-8", ["solve", "bianco-mano", "--hands",
                                             "2B; 3R; 4R 2J; 5R 3J", "--trump", "J",
                                             "--trick", "1R 1B"]),
    ("solve-truc-target-below-floor", ["solve", "truc", "--target", "1e-9"]),
    # learned players
    ("learn-game-without-nets", ["learn", "truc", "train", "--out-dir", "x"]),
    ("learn-no-out-dir", ["learn", "manille", "train"]),
    ("learn-train-no-labels", ["learn", "manille", "train", "--out-dir", "nolabels"]),
    ("learn-train-bad-hidden", ["learn", "manille", "train", "--out-dir", "x", "--hidden", "0"]),
    ("learn-train-grow-batch-beyond-epochs", ["learn", "manille", "train", "--out-dir", "x",
                                              "--epochs", "3", "--grow-batch", "4"]),
    ("learn-generate-no-deals", ["learn", "manille", "generate", "--deals", "0", "--out-dir",
                                 "x"]),
    ("learn-generate-option-the-game-lacks", ["learn", "manille", "generate", "--deals", "5",
                                              "--players", "3", "--out-dir", "x"]),
    ("learn-generate-dagger-without-a-net", ["learn", "manille", "generate", "--deals", "5",
                                             "--round", "1", "--out-dir", "x"]),
    ("learn-certify-without-weights", ["learn", "bianco-mano", "certify", "--deals", "5",
                                       "--out-dir", "x"]),
    ("net-weights-missing", ["simulate", "manille", "--policy", "net", "--param",
                             "weights=nope.npz", "--deals", "10"]),
    ("net-bianco-mano-weights-missing", ["compare", "bianco-mano", "--a", "net", "--a-param",
                                         "weights=nope.npz", "--deals", "10"]),
    # sizes beyond what can run
    ("solve-manille-deals-too-many", ["solve", "manille", "--deals", TOO_MANY]),
    ("solve-bianco-mano-deals-too-many", ["solve", "bianco-mano", "--deals", TOO_MANY]),
    ("solve-manille-position-n-jobs", ["solve", "manille", "--hands",
                                       "10P AP; RP DP; VP 9P; 8P 7P", "--trump", "P",
                                       "--n-jobs", "2"]),
    ("solve-bianco-mano-deals-scheduler-no-dask", ["solve", "bianco-mano", "--deals", "10",
                                                   "--scheduler", "tcp://127.0.0.1:1"]),
    ("simulate-deals-too-many", ["simulate", "bianco-mano", "--deals", TOO_MANY]),
    ("tune-budget-too-many", [*TUNE, "--budget", TOO_MANY]),
    # once internal errors
    ("tune-space-text-parameter", ["tune", "bango", "--policy", "rollout", "--space", "kinds=0..1",
                                   "--budget", "100"]),
    ("tune-budget-below-candidates", [*TUNE, "--budget", "3", "--candidates", "16"]),
    ("policy-module-syntax-error", ["compare", "bianco-mano", "--a", "mymodule:Class"]),
    ("policy-module-raises", ["compare", "bianco-mano", "--a", "mymodule_raises:Class"]),
    ("env-check-negative-seed", ["env-check", "bango", "--seed", "-1"]),
]

# What the one stderr line must name (the flag or value that is wrong, the ruling broken).
NAMED = {
    "solve-truc-equity-scores": ("--scores",),
    "solve-truc-n-jobs-one-state": ("--n-jobs",),
    "solve-truc-equity-n-jobs-no-recompute": ("--n-jobs", "--recompute"),
    "odds-manille-worlds-no-pimc": ("--worlds",),
    "odds-bianco-mano-worlds-no-pimc": ("--worlds",),
    "truc-equilibrium-solved-scores-ignored": ("solved_scores", "[0, 11]"),
    "truc-equilibrium-call-margin-ignored": ("call_margin", "[-12.0, 12.0]"),
    "compare-duplicate-seats-both-teams": ("--seats",),
    "sweep-seats-both-teams": ("--seats",),
    "solve-manille-trick-breaks-ma-5": ("--trick", "MA-5"),
    "solve-bianco-mano-trick-breaks-bm-8": ("--trick", "BM-8"),
    "solve-truc-target-below-floor": ("--target", "[0.0005, 1)"),
    "solve-manille-deals-too-many": ("--deals",),
    "solve-bianco-mano-deals-too-many": ("--deals",),
    "solve-manille-position-n-jobs": ("--n-jobs", "--deals"),
    "solve-bianco-mano-deals-scheduler-no-dask": ("--scheduler", "--backend dask"),
    "simulate-deals-too-many": ("--deals",),
    "tune-budget-too-many": ("--budget",),
    "tune-space-text-parameter": ("--space kinds",),
    "tune-budget-below-candidates": ("--budget", "--candidates"),
    "policy-module-syntax-error": ("--a mymodule:Class", "SyntaxError"),
    "policy-module-raises": ("--a mymodule_raises:Class", "RuntimeError: raised on import"),
    "env-check-negative-seed": ("--seed",),
}

# Cases checked in this process (main()), the rest through the installed command.
AS_A_PROCESS = {
    # through the installed entry point, as a shell runs it: the rest run main(argv) in this
    # process (tests/cli_run.py: the same code, without a new interpreter per case)
    "no-command", "unknown-command", "unknown-flag", "size-zero", "out-dir-unwritable",
}

FILES = {
    "notes.txt": "not a directory\n",
    "stuff/keep.txt": "a folder that is not a run\n",
    "broken.toml": "game = [\n",
    "crowns.toml": 'game = "five-crowns"\nsize = 10\n',
    "manille_players.toml": 'game = "manille"\nsize = 10\n[options]\nn_players = 5\n',
    "unknown_key.toml": 'game = "bianco-mano"\nsizes = 10\n',
    "per_seat.toml": ('game = "bianco-mano"\n'
                      + '[[policies]]\nname = "heuristic"\n' * 3
                      + '[[policies]]\nname = "random"\n'),
    "mymodule.py": "class Class(:\n",  # a user's policy module that does not compile
    "mymodule_raises.py": 'raise RuntimeError("raised on import")\n',
}


def snapshot(root: Path) -> dict[str, str]:
    """Every path under ``root`` with a hash of its content (directories marked)."""
    found = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        found[key] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Run every case against one prepared working directory; check it is untouched."""
    assert TAPISVERT, "the tapisvert command is not installed (pip install -e .)"
    work = tmp_path_factory.mktemp("cli_bad_input")
    for name, text in FILES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    cwd = os.getcwd()
    os.chdir(work)
    try:  # an existing run of 400 deals in chunks of 100
        assert main(["simulate", "bianco-mano", "--deals", "400", "--chunk-size", "100",
                     "--out-dir", "run"]) == 0
    finally:
        os.chdir(cwd)
    before = snapshot(work)
    env = {k: v for k, v in os.environ.items() if k not in ("TAPISVERT_SCALE", "TAPISVERT_DEBUG")}

    def one(argv):
        return subprocess.run([TAPISVERT, *argv], cwd=work, capture_output=True, text=True,
                              timeout=900, env=env)

    installed = [c for c in CASES if c[0] in AS_A_PROCESS]
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = dict(zip([c[0] for c in installed], pool.map(one, [c[1] for c in installed]),
                           strict=True))
    for name, argv in CASES:
        if name not in AS_A_PROCESS:
            results[name] = _in_process(argv, work)
    return results, before, snapshot(work)


def _in_process(argv: list[str], work: Path) -> subprocess.CompletedProcess:
    """``main(argv)`` in ``work``, its output captured like a subprocess's."""
    import contextlib
    import io

    out, err, cwd = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(work)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    finally:
        os.chdir(cwd)
    return subprocess.CompletedProcess(argv, status, out.getvalue(), err.getvalue())


def test_there_are_enough_cases_over_every_subcommand_and_game():
    from simulators.core.game import registered_names

    assert len(CASES) >= 100 and AS_A_PROCESS <= {c[0] for c in CASES}
    named = {word for _, argv in CASES for word in argv}
    assert {"simulate", "compare", "sweep", "odds", "report", "options", "policies"} <= named
    assert set(registered_names()) <= named


@pytest.mark.parametrize("case", [c[0] for c in CASES])
def test_bad_input_is_one_line_exit_2(outcomes, case):
    results, _, _ = outcomes
    done = results[case]
    lines = done.stderr.splitlines()
    assert done.returncode == 2, (case, done.returncode, done.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("tapisvert: error: "), done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


@pytest.mark.parametrize("case", sorted(NAMED))
def test_the_error_names_what_is_wrong(outcomes, case):
    results, _, _ = outcomes
    for text in NAMED[case]:
        assert text in results[case].stderr, (case, text, results[case].stderr)


def test_bad_input_writes_nothing(outcomes):
    _, before, after = outcomes
    assert after == before
    assert not Path("/proc/tapisvert").exists()
