"""Compile the numba kernels the suite uses into numba's on-disk cache, before the workers.

``python tests/compile_kernels.py K`` compiles group K (0 or 1) of the games' kernels: each
module's ``warm_up`` and a few units of each game played by every registered policy. The
suite's ``conftest.py`` runs both groups side by side before pytest-xdist starts its
workers: on a fresh install (a clean clone, CI) each kernel is then compiled once, instead
of once in each worker and again in each subprocess a test starts before the cache is
written. On an install that compiled them already it costs the loading, about a second.
"""

from __future__ import annotations

import importlib
import sys
import time

GROUPS = (
    (("simulators.core.double_dummy", "simulators.core.tricks",
      "simulators.manille._heuristic_kernel"), ("manille", "bianco-mano")),
    (("simulators.bango.stopping", "simulators.bango._heuristic_kernel",
      "simulators.bango.laying", "simulators.truc.fast", "simulators.five_crowns.melds"),
     ("bango", "truc", "five-crowns")),
)


def compile_group(k: int) -> float:
    """Group ``k``'s kernels compiled (or loaded); the seconds spent."""
    from analysis.experiment import Experiment
    from simulators.core.game import get_game

    began = time.perf_counter()
    modules, games = GROUPS[k]
    for name in modules:
        importlib.import_module(name).warm_up()
    for name in games:
        game = get_game(name)
        for policy in game.policies:
            try:
                exp = Experiment(game, policies=policy, size=2, seed=0)
            except ValueError:  # a policy of another unit (Five Crowns' solitaire)
                continue
            exp.unit.play(exp.config, exp.play_policies(), 0, 2, exp.seed)
    return time.perf_counter() - began


if __name__ == "__main__":
    print(f"{compile_group(int(sys.argv[1])):.1f}")
