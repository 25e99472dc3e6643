"""A user's own policy class (README "Writing a policy") reaches compare and sweep.

``Greedy`` is defined here, in a test file, as a user would in their own
module. It is compared with the shipped heuristic from Python (a policy
object) and from the command line (``--a test_custom_policy:Greedy``, the
module found from the working directory), with two worker processes; both
give the very same numbers.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from analysis.compare import compare, sweep
from analysis.experiment import Experiment
from simulators.bianco_mano import HeuristicPolicy
from simulators.core import bits
from simulators.core.params import param

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Greedy(HeuristicPolicy):
    """The heuristic's bidding, but always the strongest legal card."""

    margin: int = param(0, low=0, high=8, doc="unused example parameter")

    def play(self, obs):  # lowest card index = strongest card (rank-major encoding)
        return bits.bit_index(bits.lowest_bit(obs.legal))


def test_custom_policy_compared_from_python_and_command_line_with_two_workers(tmp_path):
    base = Experiment.create("bianco-mano", size=6_000, seed=11)
    table = compare(base, Greedy(), HeuristicPolicy(), seats=(0, 2), n_jobs=2, progress=False)
    assert table["policy"][0] == "test_custom_policy:Greedy"
    paired = table.row(2, named=True)
    assert paired["n"] == 6_000 and paired["low"] < paired["mean"] < paired["high"]
    a, b = table["mean"][0], table["mean"][1]
    assert a != b  # a different card play changes scores

    out = tmp_path / "cmp.csv"
    done = subprocess.run(
        [shutil.which("tapisvert"), "compare", "bianco-mano", "--deals", "6000", "--seed", "11",
         "--a", "test_custom_policy:Greedy", "--b", "heuristic", "--seats", "0,2",
         "--n-jobs", "2", "--out", str(out)],
        cwd=HERE, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "score = score change per deal" in done.stdout
    from_cli = pl.read_csv(out)
    np.testing.assert_allclose(from_cli["mean"].to_numpy(), table["mean"].to_numpy())
    np.testing.assert_allclose(from_cli["low"].to_numpy(), table["low"].to_numpy())


def test_custom_policy_swept_with_two_workers():
    base = Experiment.create("bianco-mano", size=3_000, seed=5, policies=Greedy())
    table = sweep(base, {"take_threshold": [3.0, 5.0]}, n_jobs=2, progress=False)
    assert table["param_take_threshold"].to_list() == [3.0, 5.0]
    assert table["n"].to_list() == [3_000, 3_000]
    assert table["take_rate"][0] > table["take_rate"][1]  # a lower threshold takes more
