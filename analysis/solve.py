"""``tapisvert solve GAME --deals N``: a game's exact solver over the engine's deals, as a study.

The game's :class:`~simulators.core.game.SolveDeals` is a pure function of
(config, seed, deal ids): deals ``first .. first + count - 1``, played as
``tapisvert simulate`` plays them, then solved. :class:`SolveStudy` maps it
over chunks of deals on :func:`analysis.runner.map_chunks`, the executor of
every study: each chunk keeps its deals' columns (a ``deals`` table, one row
per deal: the document lists every deal's value) and a few additive sums
(deals, solved, made, the values' sum and sum of squares, the seconds taken).
So ``--n-jobs``, ``--backend dask``, ``--out-dir`` (resumed after a kill) and
``--progress`` work as for the other studies, and deal ``i`` is the same deal
with the same value whatever the chunking, the workers or a resume.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis import stats
from analysis.experiment import Experiment
from analysis.runner import Study, StudyResult, map_chunks
from simulators.core.game import Game, SolveDealsRun

TABLE = "deals"


def experiment(game: Game, run: SolveDealsRun) -> Experiment:
    """The deals a ``--deals`` question solves, as the experiment ``simulate`` would play."""
    return Experiment(game, config=dict(run.options), policies=run.policy, size=run.count,
                      seed=run.seed)


class SolveStudy(Study):
    """The engine's deals of one experiment, each solved by the game's exact solver: a chunk
    keeps one row per deal (``deals`` table) and its sums."""

    kind = "solve"
    tables = (TABLE,)

    def __init__(self, experiment: Experiment):
        if experiment.game.solve is None or experiment.game.solve.deals is None:
            raise ValueError(f"solve --deals is not available for {experiment.game.name}")
        self.arms = (experiment,)

    @property
    def default_chunk(self) -> int:
        """The game's deals per chunk (a solved deal costs milliseconds, a played one
        microseconds)."""
        return self.base.game.solve.deals.units_per_chunk

    def reduce_chunk(self, first: int, count: int
                     ) -> tuple[dict[str, float], dict[str, pl.DataFrame]]:
        exp = self.base
        columns, sums = exp.game.solve.deals.solve(exp.config, exp.play_policies(), exp.seed,
                                                   first, count)
        table = pl.DataFrame({"deal_id": np.arange(first, first + count, dtype=np.int64),
                              **{name: np.asarray(column) for name, column in columns.items()}})
        return {**deal_sums(columns), **sums}, {TABLE: table}


def deal_sums(columns: dict[str, np.ndarray]) -> dict[str, float]:
    """A chunk's additive sums of its deals' ``value``, ``made`` and ``solved`` columns."""
    solved = np.asarray(columns["solved"], bool)
    values = np.asarray(columns["value"], np.float64)[solved]
    return {"deals": float(len(solved)), "solved": float(solved.sum()),
            "made": float(np.asarray(columns["made"], bool)[solved].sum()),
            "value_sum": float(values.sum()), "value_squares": float((values ** 2).sum())}


def made_interval(made: int, solved: int) -> tuple[float, float]:
    """The 95% Wilson interval of the share of deals made (:func:`analysis.stats.proportion`)."""
    estimate = stats.proportion(made, solved, 0.95, method="wilson")
    return estimate.low, estimate.high


def solve_deals(game: Game, run: SolveDealsRun, *, out_dir: str | Path | None = None,
                n_jobs: int = 1, chunk_size: int | None = None, backend: str = "loky",
                scheduler: str | None = None, progress: bool | None = None
                ) -> tuple[dict[str, Any], StudyResult]:
    """The game's ``--deals`` document (the same whatever ``n_jobs``, the chunking, the
    backend or a resume of ``out_dir``) and the study's result."""
    exp = experiment(game, run)
    result = map_chunks(SolveStudy(exp), out_dir, n_jobs=n_jobs, chunk_size=chunk_size,
                        backend=backend, scheduler=scheduler, progress=progress)
    table = result.tables[TABLE]
    if table["deal_id"].to_list() != list(range(exp.size)):
        raise RuntimeError("the solved deals are not deals 0..N-1 in order")
    columns = {name: table[name].to_numpy() for name in table.columns if name != "deal_id"}
    doc = game.solve.deals.document(exp.config, exp.seed, exp.size, columns, result.totals,
                                    made_interval)
    return doc, result
