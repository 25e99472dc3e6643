"""Which strategy is better, and is the difference real? Paired comparisons and sweeps.

Both policies play the *same* deals: deal (or game) ``i`` of a seed has the
same deck whatever the policies (common random numbers), so the comparison
is paired unit by unit and its interval is much narrower than comparing two
independent samples. The candidate policy sits at the ``seats`` under
study, the ``baseline`` policy at the others; the score is the sum of those
seats' score changes per deal (or game scores per game). Because the deal
passes round the table, every seat meets every position.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis import stats, summaries
from analysis.experiment import Experiment, build_policy, check_seats, policy_label, seat_experiment
from analysis.runner import Study, map_chunks
from simulators.core.game import Game, Unit
from simulators.core.params import Policy

PAIRED_ROW = "A - B paired"
"""The ``row`` label of a comparison table's paired difference A - B (its third row)."""
UNPAIRED_ROW = "A - B unpaired"
"""The ``row`` label of a comparison table's unpaired difference A - B (its fourth row)."""
DUPLICATE_ROW = "A - B duplicate"
"""The ``row`` label of a duplicate table's difference A - B (its third row)."""
ROLE_OF_ROW = {"A": "a", "B": "b", PAIRED_ROW: "paired", UNPAIRED_ROW: "unpaired",
               DUPLICATE_ROW: "paired"}


def comparison_record(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """A comparison's ``--json`` rows keyed by what each one is (``a``, ``b``, ``paired``,
    ``unpaired``), without their ``row`` labels: how a shipped document of measured figures
    (a game's ``strength.json``) keeps a comparison, so its readers match no label."""
    return {ROLE_OF_ROW[r["row"]]: {k: v for k, v in r.items() if k != "row"} for r in rows}


class ScoreStudy(Study):
    """Arms on the same units; the focal seats' score of each arm reduced to paired sums.

    Per chunk and arm ``i``: the sums of :class:`~analysis.stats.PairedSums`
    of the arm's focal score (``a``) against the first arm's (``b``), keys
    ``"<i>:<stat>"``; with ``metrics``, each arm's metric sums too
    (:func:`analysis.summaries.sums`, keys ``"<i>|<metric>:<stat>"``).
    """

    def __init__(self, kind: str, arms: Sequence[Experiment], seats: tuple[int, ...],
                 metrics: bool = False, settings: Mapping[str, Any] | None = None):
        self.kind, self.arms, self.seats = kind, tuple(arms), tuple(seats)
        self.metrics, self._settings = metrics, dict(settings or {})

    def settings(self) -> dict[str, Any]:
        return {"seats": list(self.seats), **self._settings}

    def reduce_chunk(self, first: int, count: int) -> dict[str, float]:
        out: dict[str, float] = {}
        reference = None
        for i, exp in enumerate(self.arms):
            tables = exp.play(first, count)
            per_seat = exp.unit.seat_scores(tables, exp.config)
            score = per_seat[:, list(self.seats)].sum(axis=1).astype(np.float64)
            reference = score if reference is None else reference
            out |= {f"{i}:{k}": v
                    for k, v in stats.PairedSums.of(score, reference)._asdict().items()}
            if self.metrics:
                unit = exp.unit
                sums = summaries.sums(unit.metrics, tables[unit.summary_table], unit.cluster)
                out |= {f"{i}|{k}": v for k, v in sums.items()}
        return out


def paired_sums(totals: Mapping[str, float], arm: int) -> stats.PairedSums:
    """Arm ``arm``'s score (``a``) against the first arm's (``b``), from a study's totals."""
    return stats.PairedSums(*(totals.get(f"{arm}:{k}", 0.0) for k in stats.PairedSums._fields))


@dataclass(frozen=True)
class Comparison:
    """What :func:`comparison` or :func:`duplicate_comparison` found: A, B and A - B.

    ``a`` and ``b`` are A's and B's mean scores, ``difference`` the paired (or duplicate)
    difference A - B with its interval (the anytime-valid one of a sequential duplicate) and
    ``p_value``; ``unpaired`` and ``unpaired_p_value`` the Welch difference (None for
    duplicate play); ``target_reached`` None without a precision; ``variance_reduction``
    (duplicate play only) :func:`variance_reduction`'s ratios. ``table`` is the same as one
    tidy table (``row, policy, mean, low, high, n, p_value, target_reached``): what
    :func:`compare` and :func:`duplicate` return and ``--out`` writes.
    """

    label_a: str
    label_b: str
    a: stats.Estimate
    b: stats.Estimate
    difference: stats.Estimate
    p_value: float
    unpaired: stats.Estimate | None
    unpaired_p_value: float | None
    target_reached: bool | None
    table: pl.DataFrame = field(repr=False, compare=False)
    variance_reduction: dict[str, float] | None = None

    @property
    def n(self) -> int:
        """The units of the difference."""
        return self.difference.n

    @classmethod
    def of_table(cls, table: pl.DataFrame,
                 variance_reduction: dict[str, float] | None = None) -> Comparison:
        """The comparison a comparison or duplicate table holds (rows read by label)."""
        rows = {r["row"]: r for r in table.iter_rows(named=True)}
        diff = rows.get(PAIRED_ROW, rows.get(DUPLICATE_ROW))
        unpaired = rows.get(UNPAIRED_ROW)

        def estimate(r: Mapping[str, Any]) -> stats.Estimate:
            return stats.Estimate(r["mean"], r["low"], r["high"], r["n"])

        return cls(rows["A"]["policy"], rows["B"]["policy"], estimate(rows["A"]),
                   estimate(rows["B"]), estimate(diff), diff["p_value"],
                   None if unpaired is None else estimate(unpaired),
                   None if unpaired is None else unpaired["p_value"],
                   diff.get("target_reached"), table, variance_reduction)


def comparison(base: Experiment, a: Policy | str | dict, b: Policy | str | dict,
               baseline: Policy | str | None = None, seats: Sequence[int] = (0,), *,
               precision: float | None = None, confidence: float = 0.95, n_jobs: int = 1,
               chunk_size: int | None = None, progress: bool | None = None,
               out_dir: str | Path | None = None, backend: str = "loky",
               scheduler: str | None = None) -> Comparison:
    """Compare policy ``a`` with ``b`` at ``seats`` on the same units of ``base``.

    ``a``, ``b`` and ``baseline`` are policy objects (any class with the
    game's decision methods, e.g. your own), registered names, import paths
    ``"pkg.module:Class"`` or ``{"name": ..., "params": {...}}``; ``baseline``
    (default: ``base``'s policy, which must then be one for every seat) sits
    at the other seats. The score is the sum of the ``seats``' scores per unit
    (``base.unit.score`` says what one score means).

    ``base.size`` units at most; with ``precision`` (a half-width for the
    paired difference, in score points) the paired interval is checked after
    every chunk in chunk order (the same checkpoints whatever ``n_jobs`` and
    backend) until it is that narrow. The units run on
    :func:`analysis.runner.map_chunks`: with ``out_dir`` a killed comparison
    resumes exactly; ``backend="dask"`` with ``scheduler`` runs it on a
    cluster. Returns a :class:`Comparison`: A's and B's means, the paired
    difference A - B and, for reference, the unpaired (Welch) difference
    (``target_reached``: None without ``precision``, else whether the interval
    reached it within the budget).
    """
    study, label_a, label_b = compare_study(base, a, b, baseline, seats)

    def precise(totals: Mapping[str, float]) -> bool:
        est = stats.paired_difference(_a_vs_b(totals), confidence=confidence)
        return (est.high - est.low) / 2 <= precision

    result = map_chunks(study, out_dir, n_jobs=n_jobs, chunk_size=chunk_size, backend=backend,
                        scheduler=scheduler, progress=progress,
                        stop=None if precision is None else precise)
    found = _comparison(_a_vs_b(result.totals), label_a, label_b, confidence,
                        result.target_reached)
    return replace(found, table=_with_target(found.table, result.target_reached))


def _with_target(table: pl.DataFrame, target_reached: bool | None) -> pl.DataFrame:
    """The table with its ``target_reached`` column (null without a precision)."""
    return table.with_columns(pl.lit(target_reached, dtype=pl.Boolean).alias("target_reached"))


def compare(base: Experiment, a: Policy | str | dict, b: Policy | str | dict,
            baseline: Policy | str | None = None, seats: Sequence[int] = (0,),
            **options: Any) -> pl.DataFrame:
    """:func:`comparison`'s table (same arguments): one row each for A, B, the paired
    difference A - B and, for reference, the unpaired (Welch) difference: ``row, policy,
    mean, low, high, n, p_value, target_reached``."""
    return comparison(base, a, b, baseline, seats, **options).table


def compare_study(base: Experiment, a, b, baseline=None, seats: Sequence[int] = (0,)
                  ) -> tuple[ScoreStudy, str, str]:
    """The study ``compare`` runs (arms B then A: A is scored against B) and the labels."""
    a, b, baseline, seats = _players(base, a, b, baseline, seats, "the seats not under study")
    arms = [seat_experiment(base, p, baseline, seats) for p in (b, a)]
    return (ScoreStudy("compare", arms, seats),
            policy_label(base.game, a), policy_label(base.game, b))


def _players(base: Experiment, a, b, baseline, seats: Sequence[int], where: str):
    """A, B and the baseline as policy objects (the baseline defaulting to ``base``'s one
    policy, ``where`` naming what it plays in the error) and the seats, checked."""
    a, b = build_policy(base.game, a), build_policy(base.game, b)
    if baseline is None and len(base.policies) != 1:
        raise ValueError("the experiment has one policy per seat: give the baseline policy of "
                         f"{where}")
    baseline = build_policy(base.game, baseline if baseline is not None else base.policies[0])
    return a, b, baseline, check_seats(seats, base.seats)


def _a_vs_b(totals: Mapping[str, float]) -> stats.PairedSums:
    """A's sums (arm 1) against B's (arm 0)."""
    return paired_sums(totals, 1)


def _comparison(sums: stats.PairedSums, label_a: str, label_b: str, confidence: float,
                target_reached: bool | None = None) -> Comparison:
    """A's and B's means, the paired and unpaired differences, from A's sums against B's."""
    ea, eb = stats.mean_of(sums, "a", confidence), stats.mean_of(sums, "b", confidence)
    paired = stats.paired_difference(sums, confidence=confidence)
    unpaired = stats.unpaired_difference(sums, confidence=confidence)
    p_paired = stats.difference_pvalue(sums, paired=True)
    p_unpaired = stats.difference_pvalue(sums, paired=False)
    rows = [("A", label_a, ea, None), ("B", label_b, eb, None),
            (PAIRED_ROW, f"{label_a} - {label_b}", paired, p_paired),
            (UNPAIRED_ROW, f"{label_a} - {label_b}", unpaired, p_unpaired)]
    table = pl.DataFrame([{"row": r, "policy": lab, "mean": e.value, "low": e.low,
                           "high": e.high, "n": e.n, "p_value": p} for r, lab, e, p in rows])
    return Comparison(label_a, label_b, ea, eb, paired, p_paired, unpaired, p_unpaired,
                      target_reached, table)


def comparison_table(a, b=None, label_a: str = "A", label_b: str = "B",
                     confidence: float = 0.95) -> pl.DataFrame:
    """Means of A and B, paired and unpaired differences, as one tidy table.

    ``a`` and ``b`` are the two score arrays, or ``a`` is their
    :class:`~analysis.stats.PairedSums` (``b`` None).
    """
    sums = a if isinstance(a, stats.PairedSums) else stats.PairedSums.of(a, b)
    return _comparison(sums, label_a, label_b, confidence).table


def table_row(table: pl.DataFrame, label: str) -> dict[str, Any]:
    """The row of a comparison or duplicate table whose ``row`` is ``label`` (e.g.
    :data:`PAIRED_ROW`), as a dict."""
    return table.filter(pl.col("row") == label).row(0, named=True)


def _typed(result: Comparison | pl.DataFrame) -> Comparison:
    """A comparison, or the one a comparison table holds."""
    return result if isinstance(result, Comparison) else Comparison.of_table(result)


def verdict(result: Comparison | pl.DataFrame) -> str:
    """What a comparison (or its table) allows us to say, from the paired interval of A - B."""
    paired = _typed(result).difference
    if paired.low > 0:
        return "A is better"
    if paired.high < 0:
        return "B is better"
    return "no significant difference (the paired interval covers 0)"


def reading(result: Comparison | pl.DataFrame, unit: str = "deal") -> str:
    """One line: the paired difference A - B, its interval beside the unpaired one, the verdict."""
    c = _typed(result)
    d, u = c.difference, c.unpaired
    return (f"A - B = {d.value:+.3f} per {unit}, paired interval [{d.low:+.3f}, "
            f"{d.high:+.3f}] (unpaired: [{u.low:+.3f}, {u.high:+.3f}]) -> "
            f"{verdict(c)}")


def parameter_grid(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, keys in sorted order (like scikit-learn's)."""
    if not grid:
        raise ValueError("the grid is empty")
    for key, values in grid.items():
        if isinstance(values, str) or not isinstance(values, Sequence) or not values:
            raise ValueError(f"grid {key!r} needs a non-empty list of values")
        seen = [repr(v) for v in values]
        if len(set(seen)) != len(seen):
            raise ValueError(f"grid {key!r} repeats a value: {', '.join(seen)}")
    keys = sorted(grid)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(grid[k]
                                                                                 for k in keys))]


def _apply(base: Experiment, point: Mapping[str, Any], seats: tuple[int, ...],
           baseline: Policy) -> Experiment:
    """The experiment of one grid point: policy parameters or rule options changed."""
    focal = base.policies[0]
    known_params = set(focal.parameters())
    params = {k: v for k, v in point.items() if k in known_params}
    options = {k: v for k, v in point.items() if k not in known_params}
    candidate = type(focal).from_params(**{**focal.get_params(), **params})
    exp = base.replace(options=options, policies=(candidate,))
    return seat_experiment(exp, candidate, baseline, seats)


_SWEEP_COLUMNS = ("n", "score", "diff_vs_first", "p_value", "p_adjusted")


def check_metric_names(game: Game, unit: Unit) -> None:
    """Refuse a unit whose metric would be overwritten by a sweep column."""
    reserved = {*_SWEEP_COLUMNS, *(f"{c}_{end}" for c in _SWEEP_COLUMNS for end in ("low", "high"))}
    taken = [m.name for m in unit.metrics if m.name in reserved]
    if taken:
        raise ValueError(f"{game.name} {unit.name}: metric {taken[0]!r} has the name of a sweep "
                         f"column ({', '.join(_SWEEP_COLUMNS)}); rename the metric")


def sweep(base: Experiment, grid: Mapping[str, Sequence[Any]], *,
          seats: Sequence[int] = (0,), baseline: Policy | str | None = None,
          correction: str = "holm", confidence: float = 0.95, n_jobs: int = 1,
          chunk_size: int | None = None, progress: bool | None = None,
          out_dir: str | Path | None = None, backend: str = "loky",
          scheduler: str | None = None) -> pl.DataFrame:
    """Play ``base`` at every grid point on the same units; one tidy row per point.

    Grid keys are parameters of ``base``'s (first) policy or rule options.
    The swept policy plays ``seats`` (default seat 0 alone), ``baseline``
    (default: ``base``'s policy with its own parameters) the others, so
    ``score`` is what a player at those seats gains per unit — not the sum
    over every seat, which in a zero-sum game only measures the scoring
    system. Columns: ``param_*``, the game's rates with ``*_low``/``*_high``,
    ``score`` (mean score of the swept seats per unit, meaning
    ``base.unit.score``) with its interval, ``diff_vs_first`` (paired, against
    the first grid point) with its interval, ``p_value`` and ``p_adjusted``
    (``holm`` or ``fdr_bh``). The units run on
    :func:`analysis.runner.map_chunks` (workers keep sums, never tables: memory
    does not grow with the size); with ``out_dir`` a killed sweep resumes
    exactly, and ``backend="dask"`` with ``scheduler`` runs it on a cluster.
    """
    study, points = sweep_study(base, grid, seats=seats, baseline=baseline)
    if correction not in ("holm", "fdr_bh"):
        raise ValueError(f"correction must be 'holm' or 'fdr_bh', got {correction!r}")
    result = map_chunks(study, out_dir, n_jobs=n_jobs, chunk_size=chunk_size, backend=backend,
                        scheduler=scheduler, progress=progress)
    return sweep_table(study, points, result.totals, correction, confidence)


def sweep_study(base: Experiment, grid: Mapping[str, Sequence[Any]], *,
                seats: Sequence[int] = (0,), baseline: Policy | str | None = None
                ) -> tuple[ScoreStudy, list[dict[str, Any]]]:
    """The study ``sweep`` runs (one arm per grid point) and the grid points."""
    points = parameter_grid(grid)
    check_metric_names(base.game, base.unit)
    if baseline is None and len(base.policies) != 1:
        raise ValueError("the experiment has one policy per seat: give the baseline policy of "
                         "the seats not swept")
    baseline = base.policies[0] if baseline is None else build_policy(base.game, baseline)
    plain = [base.replace(options={k: v for k, v in p.items()
                                   if k not in base.policies[0].parameters()}) for p in points]
    fewest = min(exp.seats for exp in plain)
    focal_seats = check_seats(seats, fewest)
    arms = [_apply(base, p, focal_seats, baseline) for p in points]
    return ScoreStudy("sweep", arms, focal_seats, metrics=True,
                      settings={"grid": {k: list(v) for k, v in grid.items()}}), points


def sweep_table(study: ScoreStudy, points: Sequence[Mapping[str, Any]],
                totals: Mapping[str, float], correction: str = "holm",
                confidence: float = 0.95) -> pl.DataFrame:
    """The sweep's rows from its study's totals."""
    unit = study.base.unit
    rows = []
    for i, point in enumerate(points):
        sums = paired_sums(totals, i)
        rates = summaries.from_sums(unit.metrics, summaries.part_of(totals, f"{i}|"), confidence,
                                    unit.cluster)
        row: dict[str, Any] = {f"param_{k}": v for k, v in point.items()}
        row["n"] = int(sums.n)
        for r in rates.iter_rows(named=True):
            row[r["metric"]], row[f"{r['metric']}_low"], row[f"{r['metric']}_high"] = (
                r["value"], r["low"], r["high"])
        score = stats.mean_of(sums, "a", confidence)
        row.update(score=score.value, score_low=score.low, score_high=score.high)
        diff = stats.paired_difference(sums, confidence=confidence)
        row.update(diff_vs_first=diff.value, diff_low=diff.low, diff_high=diff.high)
        row["p_value"] = 1.0 if i == 0 else stats.difference_pvalue(sums)
        rows.append(row)
    table = pl.DataFrame(rows)
    adjusted = np.ones(len(rows))
    if len(rows) > 1:
        adjusted[1:] = stats.adjust_pvalues(table["p_value"].to_numpy()[1:], correction)
    return table.with_columns(pl.Series("p_adjusted", adjusted))


# ---------------------------------------------------------------- duplicate: A against B


def rotations(seats: Sequence[int], n_seats: int) -> list[tuple[int, ...]]:
    """A's seats in each rotation of a duplicate match: the given seats turned round the table
    one seat at a time, each distinct set once (a partnership's seats 0, 2 of 4: twice)."""
    out: list[tuple[int, ...]] = []
    for r in range(n_seats):
        turned = tuple(sorted((s + r) % n_seats for s in seats))
        if turned not in out:
            out.append(turned)
    return out


class DuplicateStudy(Study):
    """A against B, every unit replayed once per rotation of A's seats (the same cards and
    random draws), B at every other seat; and, to measure what that saves, the fixed-seat
    pairing of :func:`compare` (A, then B, at ``seats`` beside ``baseline``).

    Per chunk, :class:`~analysis.stats.PairedSums` keyed ``"dup:<stat>"`` of A's and B's
    mean seat score averaged over the rotations (their difference is the duplicate
    estimate), ``"pool:<stat>"`` of A's minus B's in each single rotation (as if each unit
    were played once), ``"fixed:<stat>"`` of the fixed-seat arms' mean seat scores.
    """

    def __init__(self, base: Experiment, a: Policy, b: Policy, baseline: Policy,
                 seats: tuple[int, ...]):
        self.seats = seats
        self.turns = rotations(seats, base.seats)
        self.arms = tuple([seat_experiment(base, a, b, s) for s in self.turns]
                          + [seat_experiment(base, p, baseline, seats) for p in (a, b)])

    def settings(self) -> dict[str, Any]:
        return {"seats": list(self.seats), "duplicate": [list(s) for s in self.turns]}

    def reduce_chunk(self, first: int, count: int) -> dict[str, float]:
        per_turn = []
        for exp, seats in zip(self.arms, self.turns, strict=False):
            score = exp.unit.seat_scores(exp.play(first, count), exp.config).astype(np.float64)
            mine = np.isin(np.arange(score.shape[1]), seats)
            per_turn.append((score[:, mine].mean(axis=1), score[:, ~mine].mean(axis=1)))
        a = np.mean([t[0] for t in per_turn], axis=0)
        b = np.mean([t[1] for t in per_turn], axis=0)
        single = np.concatenate([t[0] - t[1] for t in per_turn])
        fixed = []
        for exp in self.arms[len(self.turns):]:
            score = exp.unit.seat_scores(exp.play(first, count), exp.config).astype(np.float64)
            fixed.append(score[:, list(self.seats)].mean(axis=1))
        out: dict[str, float] = {}
        for key, sums in (("dup", stats.PairedSums.of(a, b)),
                          ("pool", stats.PairedSums.of(single, np.zeros_like(single))),
                          ("fixed", stats.PairedSums.of(*fixed))):
            out |= {f"{key}:{k}": v for k, v in sums._asdict().items()}
        return out


def _sums(totals: Mapping[str, float], key: str) -> stats.PairedSums:
    return stats.PairedSums(*(totals.get(f"{key}:{k}", 0.0) for k in stats.PairedSums._fields))


def _variance_of_difference(sums: stats.PairedSums) -> float:
    """The sample variance of a - b per unit."""
    n = sums.n
    square = sums.aa - 2 * sums.ab + sums.bb
    return float((square - (sums.a - sums.b) ** 2 / n) / (n - 1)) if n > 1 else float("nan")


def variance_reduction(totals: Mapping[str, float], n_turns: int) -> dict[str, float]:
    """How many times fewer plays the duplicate estimate needs for the same precision.

    Per play (one unit played once): the duplicate spends ``n_turns`` plays per unit, its
    estimate's variance ``var(d) * n_turns / plays``; ``independent`` plays each unit once
    in one rotation (the variance of a single rotation's A - B, pooled over rotations);
    ``fixed_seat`` is :func:`compare`'s pairing, A then B at the seats beside the
    baseline: two plays per unit, ``var(A - B) * 2 / plays``.
    """
    duplicate = _variance_of_difference(_sums(totals, "dup")) * n_turns
    independent = _variance_of_difference(_sums(totals, "pool"))
    fixed = _variance_of_difference(_sums(totals, "fixed")) * 2
    if not duplicate > 0:
        return {"independent": float("nan"), "fixed_seat": float("nan")}
    return {"independent": independent / duplicate, "fixed_seat": fixed / duplicate}


def duplicate_comparison(base: Experiment, a, b, baseline=None, seats: Sequence[int] = (0,),
                         *, precision: float | None = None, confidence: float = 0.95,
                         n_jobs: int = 1, chunk_size: int | None = None,
                         progress: bool | None = None, out_dir: str | Path | None = None,
                         backend: str = "loky", scheduler: str | None = None) -> Comparison:
    """Duplicate play: A at ``seats`` against B at every other seat, each unit replayed once
    per rotation of ``seats`` round the table with the same cards and random draws, so the
    luck of the deal cancels; the estimate is A's mean seat score minus B's.

    Returns a :class:`Comparison` (no unpaired difference; its table's rows A, B and
    ``A - B duplicate``) with the measured :func:`variance_reduction`.

    With ``precision``, the run looks after every chunk, in chunk order (the same
    checkpoints whatever ``n_jobs``), and stops once the duplicate estimate's anytime-valid
    interval (:func:`analysis.stats.confidence_sequence`, tightest at ``base.size``) is
    within ``± precision``; that interval is the one reported, valid although the run
    stopped on what it saw (no optional-stopping bias). For a partnership game give
    the partnership's seats (e.g. ``(0, 2)`` of four). ``baseline`` (default: ``base``'s
    policy) plays beside A, then B, in the fixed-seat pairing measured for comparison.
    """
    a, b, baseline, seats = _players(base, a, b, baseline, seats, "the fixed-seat pairing")
    if len(seats) == base.seats:
        raise ValueError(f"seats: A at every seat leaves none to B; give fewer than "
                         f"{base.seats}")
    study = DuplicateStudy(base, a, b, baseline, seats)

    def anytime(totals: Mapping[str, float]) -> stats.Estimate:
        return stats.confidence_sequence(_sums(totals, "dup"), confidence, planned=base.size)

    def precise(totals: Mapping[str, float]) -> bool:
        est = anytime(totals)
        return (est.high - est.low) / 2 <= precision

    result = map_chunks(study, out_dir, n_jobs=n_jobs, chunk_size=chunk_size, backend=backend,
                        scheduler=scheduler, progress=progress,
                        stop=None if precision is None else precise)
    found = _comparison(_sums(result.totals, "dup"), policy_label(base.game, a),
                        policy_label(base.game, b), confidence, result.target_reached)
    table = found.table.filter(pl.col("row") != UNPAIRED_ROW).with_columns(
        pl.col("row").replace(PAIRED_ROW, DUPLICATE_ROW))
    difference = found.difference
    if precision is not None:  # the interval that stays valid however the run stopped
        est = anytime(result.totals)
        difference = difference._replace(low=est.low, high=est.high)
        table = table.with_columns(
            low=pl.when(pl.col("row") == DUPLICATE_ROW).then(est.low)
            .otherwise(pl.col("low")),
            high=pl.when(pl.col("row") == DUPLICATE_ROW).then(est.high)
            .otherwise(pl.col("high")))
    return replace(found, difference=difference, unpaired=None, unpaired_p_value=None,
                   table=_with_target(table, result.target_reached),
                   variance_reduction=variance_reduction(result.totals, len(study.turns)))


def duplicate(base: Experiment, a, b, baseline=None, seats: Sequence[int] = (0,),
              **options: Any) -> tuple[pl.DataFrame, dict[str, float]]:
    """:func:`duplicate_comparison`'s table (same arguments: rows A, B and ``A - B
    duplicate``; ``row, policy, mean, low, high, n, p_value, target_reached``) and its
    measured :func:`variance_reduction`."""
    found = duplicate_comparison(base, a, b, baseline, seats, **options)
    return found.table, found.variance_reduction
