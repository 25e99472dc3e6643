"""The worked example of docs/envs.md, CI-sized: OpenSpiel's CFR+ on the registered reduced
Truc agrees with the project's CFR+ on the same DealSpec within their certificates.

Skipped without the ``[rl]`` extra. The full run (200 OpenSpiel iterations on two ranks
of four cards) is ``python -m simulators.truc.solver.openspiel_example``.
"""

from __future__ import annotations

import pytest

from tests.extras import require_rl

pytestmark = pytest.mark.extras


@pytest.fixture(autouse=True)
def _needs_rl():
    require_rl()


def test_reduced_deal_matches_the_solvers_deal_spec():
    from simulators.core.rl.openspiel import load
    from simulators.truc.game import GAME
    from simulators.truc.solver.openspiel_example import reduced

    spec, options = reduced(2, 3)
    game = load(GAME, **options)
    assert str(game) == ("tapisvert_truc(card_call=False,copies=3,counter_banco=True,dealer=1,"
                         "manches_to_win=2,n_ranks=2,score_0=0,score_1=0,target=12)")
    assert (spec.n_ranks, spec.copies, spec.scores, spec.hand_size) == (2, 3, (0, 0), 3)
    # TR-1 reduced deck: 3 Septs and 3 Huits, dealt by rank with the shuffle's law
    assert game.new_initial_state().chance_outcomes() == [(0, 0.5), (1, 0.5)]


def test_openspiel_cfr_plus_agrees_with_the_project_solver():
    from simulators.truc.solver.openspiel_example import compare

    result = compare(openspiel_iterations=3, project_iterations=500, n_ranks=2, copies=3)
    theirs, ours = result["openspiel"], result["project"]
    assert ours["exploitability"] < 1e-3  # the project's CFR+ is near its equilibrium
    assert theirs["low"] <= theirs["value"] <= theirs["high"]
    assert ours["low"] <= ours["value"] <= ours["high"]
    assert result["agree"], result  # |difference| <= the two NashConvs; intervals meet
