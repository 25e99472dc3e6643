"""The conformance suite, run for every registered game (entry points ``tapisvert.games``).

A new game is tested here the moment its entry point exists: random legal
play at several batch sizes, identical tables whatever the batch size,
chunking and ``n_jobs``, referee replay, card conservation and the game's
invariants, bad input refused (see ``simulators/core/conformance.py``).
"""

from __future__ import annotations

import pytest
from polars.testing import assert_frame_equal

from analysis.experiment import Experiment
from analysis.runner import run
from simulators.core.conformance import CHECKS, random_policy
from simulators.core.game import games

GAMES = sorted(games())


@pytest.mark.parametrize("check", sorted(CHECKS))
@pytest.mark.parametrize("name", GAMES)
def test_game_passes_the_conformance_check(name, check):
    CHECKS[check](games()[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", [g for g in GAMES if games()[g].conformance.slow_policies])
def test_slow_policies_replay_and_conserve(name):
    """The policies the default run leaves out (minutes to build): replayed, conserved, and
    played under strict numpy."""
    game = games()[name]
    assert CHECKS["replay"](game, slow=True) > 0
    CHECKS["conservation"](game, slow=True)
    assert CHECKS["portable_numerics"](game, slow=True) > 0


def _unit_cases():
    return [(g, u.name) for g in GAMES for u in games()[g].units]


@pytest.mark.parametrize("name, unit", _unit_cases(), ids=[f"{g}-{u}" for g, u in _unit_cases()])
def test_runner_tables_identical_for_n_jobs_and_chunk_sizes(tmp_path, name, unit):
    """Through the runner: one worker and one chunk equals two workers and uneven chunks."""
    game = games()[name]
    spec = game.unit(unit)
    config = game.conformance.configs[0]
    experiment = Experiment(game, config, random_policy(game, spec), spec, size=24, seed=5)
    one = run(experiment, tmp_path / "one", n_jobs=1, chunk_size=24, progress=False)
    two = run(experiment, tmp_path / "two", n_jobs=2, chunk_size=7, progress=False)
    assert len(two.parts(spec.tables[0])) == 4
    for table in spec.tables:
        assert_frame_equal(one.table(table), two.table(table))
