"""What are my odds with this hand? Any game that declares an odds hook.

The game's :class:`~simulators.core.game.Odds` hook plays a concrete
situation (its ``question`` dataclass: a hand, a position…) under every
decision on the *same* deals and returns one row per deal and decision; the
hook's metrics are evaluated on each decision's rows, with intervals, and
every decision is paired with the hook's ``reference`` decision deal by
deal (:func:`paired_rows`), so "take - pass" comes with the paired interval
that common deals allow, not the wider one of two independent samples.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from analysis import stats, summaries
from analysis.experiment import Experiment
from analysis.runner import Study, map_chunks
from simulators.core.game import Metric


class OddsStudy(Study):
    """An odds question as a study: each chunk of deals played under every decision by the
    game's hook, reduced to each (decision, metric)'s sums and each pair's paired sums."""

    kind = "odds"

    def __init__(self, experiment: Experiment, question):
        hook = experiment.game.odds
        if hook is None:
            raise ValueError(f"odds is not available for {experiment.game.name}")
        if not isinstance(question, hook.question):
            raise ValueError(f"question must be a {hook.question.__name__}")
        self.arms, self.question = (experiment,), question

    def settings(self) -> dict[str, Any]:
        return {"question": dataclasses.asdict(self.question)}

    @property
    def default_chunk(self) -> int:
        """The study's default, or fewer deals when the question's play is costly."""
        costly = self.base.game.odds.units_per_chunk
        hint = costly(self.question) if costly is not None else None
        return super().default_chunk if hint is None else min(super().default_chunk, hint)

    def reduce_chunk(self, first: int, count: int) -> dict[str, float]:
        exp = self.base
        hook = exp.game.odds
        table = hook.play(exp.config, exp.play_policies(), self.question, count, exp.seed,
                          first=first)
        return odds_sums(hook.metrics_for(exp.config, self.question), table,
                         hook.reference_for(self.question))


def _pairs(metrics: Sequence[tuple[str, Metric]], reference: str | None
           ) -> tuple[str, list[tuple[int, str, Metric, Metric]]]:
    """The reference decision (default: the first) and (index, decision, metric, the
    reference's metric of that name) of every paired row."""
    decisions = list(dict.fromkeys(d for d, _ in metrics))
    reference = decisions[0] if reference is None else reference
    if reference not in decisions:
        raise ValueError(f"reference decision {reference!r} is not one of {decisions}")
    base = {m.name: m for d, m in metrics if d == reference}
    return reference, [(i, d, m, base[m.name]) for i, (d, m) in enumerate(metrics)
                       if d != reference and m.name in base]


def odds_sums(metrics: Sequence[tuple[str, Metric]], table: pl.DataFrame,
              reference: str | None = None) -> dict[str, float]:
    """A chunk's sums: each (decision, metric) on the decision's rows (``"<i>|…"``) and each
    paired row's :class:`~analysis.stats.PairedRatioSums` (``"p<i>:…"``)."""
    out: dict[str, float] = {}
    for i, (decision, metric) in enumerate(metrics):
        rows = table.filter(pl.col("decision") == decision)
        out |= {f"{i}|{k}": v for k, v in summaries.sums([metric], rows).items()}
    reference, pairs = _pairs(metrics, reference)
    for i, decision, metric, ref_metric in pairs:
        mine = _per_deal(metric, table.filter(pl.col("decision") == decision))
        theirs = _per_deal(ref_metric, table.filter(pl.col("decision") == reference))
        both = mine.join(theirs, on="deal_id", how="inner", suffix="_ref")
        sums = stats.PairedRatioSums.of(both["y"].to_numpy(), both["n"].to_numpy(),
                                        both["y_ref"].to_numpy(), both["n_ref"].to_numpy())
        out |= {f"p{i}:{k}": v for k, v in sums._asdict().items()}
    return out


def odds_rows(metrics: Sequence[tuple[str, Metric]], totals: dict[str, float],
              reference: str | None = None, confidence: float = 0.95) -> pl.DataFrame:
    """The odds table from the sums of every chunk: each (decision, metric), then the
    paired rows ``"<decision> - <reference>"``."""
    rows = []
    for i, (decision, metric) in enumerate(metrics):
        e = summaries.from_sums([metric], summaries.part_of(totals, f"{i}|"),
                                confidence).row(0, named=True)
        rows.append({"decision": decision, "metric": metric.label, "value": e["value"],
                     "low": e["low"], "high": e["high"], "n": e["n"]})
    reference, pairs = _pairs(metrics, reference)
    for i, decision, metric, _ in pairs:
        sums = stats.PairedRatioSums(*(totals.get(f"p{i}:{k}", 0.0)
                                       for k in stats.PairedRatioSums._fields))
        e = stats.paired_ratio_difference(sums, confidence=confidence)
        rows.append({"decision": f"{decision} - {reference}", "metric": metric.label,
                     "value": e.value, "low": e.low, "high": e.high, "n": e.n})
    return pl.DataFrame(rows, schema={"decision": pl.String, "metric": pl.String,
                                      "value": pl.Float64, "low": pl.Float64,
                                      "high": pl.Float64, "n": pl.Int64})


def odds(experiment: Experiment, question, confidence: float = 0.95, *,
         out_dir: str | Path | None = None, n_jobs: int = 1, chunk_size: int | None = None,
         backend: str = "loky", scheduler: str | None = None,
         progress: bool | None = None) -> pl.DataFrame:
    """Tidy table ``decision, metric, value, low, high, n`` for a situation.

    One row per (decision, metric) of the hook, then the paired rows
    ``"<decision> - <reference>"`` (:func:`paired_rows`). ``experiment``
    gives the game, rule config, policies, size (deals per decision) and
    seed; ``question`` is an instance of the game's ``odds.question``
    dataclass. The deals run on :func:`analysis.runner.map_chunks`: with
    ``out_dir`` a killed question resumes exactly, ``backend="dask"`` runs it
    on a cluster, and the table is the same whatever ``n_jobs`` or the
    chunking.
    """
    study = OddsStudy(experiment, question)
    result = map_chunks(study, out_dir, n_jobs=n_jobs, chunk_size=chunk_size, backend=backend,
                        scheduler=scheduler, progress=progress)
    hook = experiment.game.odds
    table = odds_rows(hook.metrics_for(experiment.config, question), result.totals,
                      hook.reference_for(question), confidence)
    if hook.exact is None:
        return table
    exact = pl.DataFrame(hook.exact(experiment.config, question), schema=table.schema)
    return pl.concat([table, exact])


def verdict(experiment: Experiment, question, table: pl.DataFrame) -> str | None:
    """The game's one-line reading of an odds table (the best decision), or None where its
    hook declares none."""
    hook = experiment.game.odds
    return None if hook.verdict is None else hook.verdict(experiment.config, question, table)


def odds_table(metrics: Sequence[tuple[str, Metric]], table: pl.DataFrame,
               reference: str | None = None, confidence: float = 0.95) -> pl.DataFrame:
    """The odds table of one hook table (what :func:`odds` gives, without the executor)."""
    return odds_rows(metrics, odds_sums(metrics, table, reference), reference, confidence)


def _per_deal(metric: Metric, frame: pl.DataFrame) -> pl.DataFrame:
    """``deal_id``, ``y`` (the value counted, 0 when not) and ``n`` (1 when counted)."""
    where = pl.lit(True) if metric.where is None else metric.where.fill_null(False)
    value = metric.value.fill_null(False) if metric.kind == "rate" else metric.value
    counted = where & value.is_not_null()
    return frame.filter(pl.col("deal_id").is_not_null()).select(
        "deal_id", n=counted.cast(pl.Float64),
        y=pl.when(counted).then(value.cast(pl.Float64)).otherwise(0.0))


def paired_rows(metrics: Sequence[tuple[str, Metric]], table: pl.DataFrame,
                reference: str | None = None, confidence: float = 0.95) -> pl.DataFrame:
    """Every decision minus ``reference`` on the same deals, for each metric both declare.

    Rows of one ``deal_id`` are the same deal under two decisions; a metric
    counts the rows its ``where`` selects under each decision, so the two
    ratios may have different denominators: the difference and its interval
    are :func:`analysis.stats.paired_ratio_difference`'s (for a mean over
    every deal, the paired t interval). Decision ``"<d> - <reference>"``.
    """
    table = odds_table(metrics, table, reference, confidence)
    return table.filter(pl.col("decision").str.contains(" - ", literal=True))
