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
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl
from joblib import Parallel, delayed

from analysis import stats, summaries
from analysis.experiment import Experiment, build_policy, check_seats, policy_label, seat_experiment
from analysis.runner import check_n_jobs, local_parallel, tie_to_parent, workers
from simulators.core.game import Game, Unit
from simulators.core.params import Policy


def _chunks(size: int, chunk_size: int) -> list[tuple[int, int]]:
    return [(first, min(chunk_size, size - first)) for first in range(0, size, chunk_size)]


def _focal_scores(experiments: Sequence[Experiment], seats: tuple[int, ...], first: int,
                  count: int, owner: int | None = None
                  ) -> tuple[int, list[np.ndarray], list[pl.DataFrame]]:
    """Worker: play one unit range under each experiment; focal scores and summary tables."""
    if owner is not None:
        tie_to_parent(owner)
    scores, summary = [], []
    for exp in experiments:
        tables = exp.play(first, count)
        per_seat = exp.unit.seat_scores(tables, exp.config)
        scores.append(per_seat[:, list(seats)].sum(axis=1))
        summary.append(tables[exp.unit.summary_table])
    return first, scores, summary


def _default_chunk(base: Experiment, chunk_size: int | None) -> int:
    return chunk_size or max(1, base.unit.default_chunk // 5)


def _progress(total: int, unit: str, progress: bool | None):
    from tqdm.auto import tqdm

    enabled = sys.stderr.isatty() if progress is None else progress
    return tqdm(total=total, unit=unit, unit_scale=True, disable=not enabled, file=sys.stderr)


def compare(base: Experiment, a: Policy | str | dict, b: Policy | str | dict,
            baseline: Policy | str | None = None, seats: Sequence[int] = (0,), *,
            precision: float | None = None, confidence: float = 0.95, n_jobs: int = 1,
            chunk_size: int | None = None, progress: bool | None = None) -> pl.DataFrame:
    """Compare policy ``a`` with ``b`` at ``seats`` on the same units of ``base``.

    ``a``, ``b`` and ``baseline`` are policy objects (any class with the
    game's decision methods, e.g. your own), registered names, import paths
    ``"pkg.module:Class"`` or ``{"name": ..., "params": {...}}``; ``baseline``
    (default: ``base``'s policy, which must then be one for every seat) sits
    at the other seats. The score is the sum of the ``seats``' scores per unit
    (``base.unit.score`` says what one score means).

    ``base.size`` units at most; with ``precision`` (a half-width for the
    paired difference, in score points) the units are played in chunks and
    the paired interval is checked after every chunk in chunk order (the
    same checkpoints whatever ``n_jobs``) until it is that narrow. Returns
    one row each for A, B, the paired difference A - B and, for reference,
    the unpaired (Welch) difference: ``row, policy, mean, low, high, n,
    p_value, target_reached`` (``target_reached``: null without
    ``precision``, else whether the interval reached it within the budget).
    """
    check_n_jobs(n_jobs)
    a, b = build_policy(base.game, a), build_policy(base.game, b)
    if baseline is None and len(base.policies) != 1:
        raise ValueError("the experiment has one policy per seat: give the baseline policy of "
                         "the seats not under study")
    baseline = build_policy(base.game, baseline if baseline is not None else base.policies[0])
    seats = check_seats(seats, base.seats)
    exp_a = seat_experiment(base, a, baseline, seats)
    exp_b = seat_experiment(base, b, baseline, seats)
    chunks = _chunks(base.size, _default_chunk(base, chunk_size))
    wave = len(chunks) if precision is None else workers(n_jobs)
    got: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    payload, owner, reached = [exp_a, exp_b], os.getpid(), None
    with _progress(base.size, base.unit.singular, progress) as bar:
        for start in range(0, len(chunks), wave):
            tasks = [delayed(_focal_scores)(payload, seats, f, c, owner)
                     for f, c in chunks[start:start + wave]]
            with local_parallel(n_jobs):
                results = list(Parallel(return_as="generator_unordered")(tasks))
            for first, (sa, sb), _ in results:
                got[first] = (sa, sb)
                bar.update(len(sa))
            if precision is not None:
                reached = _first_precise(got, [f for f, _ in chunks[:start + wave]], precision,
                                         confidence)
                if reached is not None:
                    got = {f: got[f] for f in [f for f, _ in chunks[:reached]]}
                    break
    score_a, score_b = _stack(got)
    table = comparison_table(score_a, score_b, policy_label(base.game, a),
                             policy_label(base.game, b), confidence)
    target = None if precision is None else reached is not None
    return table.with_columns(pl.lit(target, dtype=pl.Boolean).alias("target_reached"))


def _first_precise(got: Mapping[int, tuple[np.ndarray, np.ndarray]], firsts: Sequence[int],
                   precision: float, confidence: float) -> int | None:
    """The smallest number of chunks (in chunk order) whose paired interval is precise enough."""
    diffs = [got[f][0].astype(float) - got[f][1] for f in firsts]
    n = total = squares = 0.0
    for k, d in enumerate(diffs, start=1):  # running moments: one pass over the prefixes
        n, total, squares = n + d.size, total + d.sum(), squares + (d * d).sum()
        if n < 2:
            continue
        var = max(0.0, (squares - total * total / n) / (n - 1))
        est = stats.mean_from_moments(total / n, var ** 0.5, int(n), confidence)
        if (est.high - est.low) / 2 <= precision:
            return k
    return None


def _stack(got: Mapping[int, tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    order = sorted(got)
    return (np.concatenate([got[k][0] for k in order]),
            np.concatenate([got[k][1] for k in order]))


def comparison_table(score_a: np.ndarray, score_b: np.ndarray, label_a: str, label_b: str,
                     confidence: float = 0.95) -> pl.DataFrame:
    """Means of A and B, paired and unpaired differences, as one tidy table."""
    ea, eb = stats.mean(score_a, confidence), stats.mean(score_b, confidence)
    paired = stats.paired_difference(score_a, score_b, confidence)
    unpaired = stats.unpaired_difference(score_a, score_b, confidence)
    p_paired = stats.difference_pvalue(score_a, score_b, paired=True) if len(score_a) > 1 else 1.0
    p_unpaired = stats.difference_pvalue(score_a, score_b, paired=False)
    rows = [("A", label_a, ea, None), ("B", label_b, eb, None),
            ("A - B paired", f"{label_a} - {label_b}", paired, p_paired),
            ("A - B unpaired", f"{label_a} - {label_b}", unpaired, p_unpaired)]
    return pl.DataFrame([{"row": r, "policy": lab, "mean": e.value, "low": e.low, "high": e.high,
                          "n": e.n, "p_value": p} for r, lab, e, p in rows])


def verdict(table: pl.DataFrame) -> str:
    """What a comparison table allows us to say, from the paired interval of A - B."""
    paired = table.filter(pl.col("row") == "A - B paired").row(0, named=True)
    if paired["low"] > 0:
        return "A is better"
    if paired["high"] < 0:
        return "B is better"
    return "no significant difference (the paired interval covers 0)"


def reading(table: pl.DataFrame, unit: str = "deal") -> str:
    """One line: the paired difference A - B, its interval beside the unpaired one, the verdict."""
    d = table.filter(pl.col("row") == "A - B paired").row(0, named=True)
    u = table.filter(pl.col("row") == "A - B unpaired").row(0, named=True)
    return (f"A - B = {d['mean']:+.3f} per {unit}, paired interval [{d['low']:+.3f}, "
            f"{d['high']:+.3f}] (unpaired: [{u['low']:+.3f}, {u['high']:+.3f}]) -> "
            f"{verdict(table)}")


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
          chunk_size: int | None = None, progress: bool | None = None) -> pl.DataFrame:
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
    (``holm`` or ``fdr_bh``).
    """
    check_n_jobs(n_jobs)
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
    experiments = [_apply(base, p, focal_seats, baseline) for p in points]
    owner = os.getpid()
    tasks = [delayed(_focal_scores)(experiments, focal_seats, f, c, owner)
             for f, c in _chunks(base.size, _default_chunk(base, chunk_size))]
    scores: dict[int, list[np.ndarray]] = {}
    deals: dict[int, list[pl.DataFrame]] = {}
    with _progress(base.size * len(points), base.unit.singular, progress) as bar:
        with local_parallel(n_jobs):
            for first, s, d in Parallel(return_as="generator_unordered")(tasks):
                scores[first], deals[first] = s, d
                bar.update(len(s[0]) * len(points))
    order = sorted(scores)
    rows = []
    first_scores = np.concatenate([scores[k][0] for k in order])
    for i, point in enumerate(points):
        point_scores = np.concatenate([scores[k][i] for k in order])
        rates = summaries.evaluate(base.unit.metrics, pl.concat([deals[k][i] for k in order]),
                                   confidence, cluster=base.unit.cluster)
        row: dict[str, Any] = {f"param_{k}": v for k, v in point.items()}
        row["n"] = len(point_scores)
        for r in rates.iter_rows(named=True):
            row[r["metric"]], row[f"{r['metric']}_low"], row[f"{r['metric']}_high"] = (
                r["value"], r["low"], r["high"])
        score = stats.mean(point_scores, confidence)
        row.update(score=score.value, score_low=score.low, score_high=score.high)
        diff = stats.paired_difference(point_scores, first_scores, confidence)
        row.update(diff_vs_first=diff.value, diff_low=diff.low, diff_high=diff.high)
        same = np.array_equal(point_scores, first_scores)
        row["p_value"] = 1.0 if same else stats.difference_pvalue(point_scores, first_scores)
        rows.append(row)
    table = pl.DataFrame(rows)
    adjusted = np.ones(len(rows))
    if len(rows) > 1:
        adjusted[1:] = stats.adjust_pvalues(table["p_value"].to_numpy()[1:], correction)
    return table.with_columns(pl.Series("p_adjusted", adjusted))
