"""``tapisvert solve GAME``'s studies: a game's exact solver over the engine's deals, and a
table solved in waves (a game's ``SolveTable``), both on the executor of every study.

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
from simulators.core.game import Game, SolveDealsRun, SolveTableRun

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


# ---------------------------------------------------------------- a table solved in waves


class TableWave(Study):
    """One wave of a :class:`~simulators.core.game.SolveTable`: its units, one per chunk,
    each solved with the entries of the earlier waves (``known``, not in the manifest: the
    earlier waves' directories hold them, and they follow from the settings)."""

    kind = "solve-table"
    arms = ()

    def __init__(self, game: Game, run: SolveTableRun, wave: int, n_waves: int,
                 units: list[Any], known: dict[str, float]):
        self.game_name, self.run, self.wave, self.n_waves = game.name, run, wave, n_waves
        self.units, self.known = units, known
        self._unit_names = game.solve.table.unit_names

    @property
    def size(self) -> int:
        return len(self.units)

    @property
    def label(self) -> str:
        return f"{self.game_name} wave {self.wave + 1}/{self.n_waves}"

    @property
    def unit_names(self) -> tuple[str, str]:
        return self._unit_names

    @property
    def seed(self) -> int:
        return 0  # nothing is drawn: the table is solved, not sampled

    @property
    def default_chunk(self) -> int:
        return 1

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "size": self.size, "game": self.game_name,
                "settings": dict(self.run.settings), "wave": self.wave, "units": self.units}

    def reduce_chunk(self, first: int, count: int) -> dict[str, float]:
        from simulators.core.game import get_game

        table = get_game(self.game_name).solve.table
        out: dict[str, float] = {}
        for unit in self.units[first:first + count]:
            out |= table.solve(dict(self.run.settings), unit, self.known)
        return out


def _open_table_dir(out_dir: Path, spec: dict[str, Any]) -> None:
    """A table's run directory: its manifest (the table asked) and one directory per wave.
    A new one is created; one that holds the same table is resumed; anything else is
    refused, before any work."""
    import json

    from analysis.runner import MANIFEST, _write_manifest, check_run_dir, differences

    if (out_dir / MANIFEST).exists():
        try:
            held = json.loads((out_dir / MANIFEST).read_text())["table"]
        except (OSError, ValueError, KeyError, TypeError):
            raise ValueError(f"{str(out_dir)!r} holds another kind of run, not a table's "
                             "waves: use another directory") from None
        diff = differences(held, spec)
        if diff:
            raise ValueError(f"{str(out_dir)!r} holds a different table ({'; '.join(diff)}); "
                             "use another directory or delete it")
        return
    check_run_dir(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_manifest(out_dir, {"table": spec})


def solve_table(game: Game, run: SolveTableRun, *, out_dir: str | Path | None = None,
                n_jobs: int = 1, chunk_size: int | None = None, backend: str = "loky",
                scheduler: str | None = None, progress: bool | None = None,
                log=None) -> dict[str, Any]:
    """The table's document, solved wave by wave on the executor: wave ``k`` is a study
    (``OUT/wave-kk``) of its units given the entries of waves ``0 .. k-1``. A rerun after a
    kill reads back the waves done and resumes the one cut. The entries are the same
    whatever ``n_jobs``, the backend or a resume (a unit is a pure function of the earlier
    entries)."""
    import time

    if chunk_size not in (None, 1):
        raise ValueError("--chunk-size: a table is solved one unit per chunk; drop it")
    table = game.solve.table
    waves = table.waves(dict(run.settings))
    if out_dir is not None:
        out_dir = Path(out_dir).absolute()
        _open_table_dir(out_dir, {"game": game.name, "settings": dict(run.settings),
                                  "waves": len(waves)})
    known: dict[str, float] = {}
    began = time.perf_counter()
    spent = 0.0  # wall time of every session of every wave: the table's cost across resumes
    for k, units in enumerate(waves):
        study = TableWave(game, run, k, len(waves), units, dict(known))
        where = None if out_dir is None else out_dir / f"wave-{k:02d}"
        result = map_chunks(study, where, n_jobs=n_jobs, backend=backend,
                            scheduler=scheduler, progress=progress)
        known |= result.totals
        spent += sum(float(session.get("wall_seconds", 0.0))
                     for session in result.manifest.get("sessions", []))
        if log:
            log(f"{study.label}: {len(units)} {table.unit_names[0]} solved "
                f"({time.perf_counter() - began:.0f} s so far)")
    return table.document(dict(run.settings), known,
                          {"seconds": spent, "n_jobs": n_jobs})
