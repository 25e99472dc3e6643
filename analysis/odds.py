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

from collections.abc import Sequence

import polars as pl

from analysis import stats, summaries
from analysis.experiment import Experiment
from simulators.core.game import Metric

COLUMNS = ("decision", "metric", "value", "low", "high", "n")


def odds(experiment: Experiment, question, confidence: float = 0.95) -> pl.DataFrame:
    """Tidy table ``decision, metric, value, low, high, n`` for a situation.

    One row per (decision, metric) of the hook, then the paired rows
    ``"<decision> - <reference>"`` (:func:`paired_rows`). ``experiment``
    gives the game, rule config, policies, size (deals per decision) and
    seed; ``question`` is an instance of the game's ``odds.question``
    dataclass.
    """
    hook = experiment.game.odds
    if hook is None:
        raise ValueError(f"odds is not available for {experiment.game.name}")
    if not isinstance(question, hook.question):
        raise ValueError(f"question must be a {hook.question.__name__}")
    table = hook.play(experiment.config, experiment.play_policies(), question, experiment.size,
                      experiment.seed)
    return odds_table(hook.metrics, table, hook.reference, confidence)


def odds_table(metrics: Sequence[tuple[str, Metric]], table: pl.DataFrame,
               reference: str | None = None, confidence: float = 0.95) -> pl.DataFrame:
    """Each (decision, metric) evaluated on the decision's rows, then the paired rows."""
    rows = []
    for decision, metric in metrics:
        e = summaries.estimate([metric], table.filter(pl.col("decision") == decision),
                               metric.name, confidence)
        rows.append({"decision": decision, "metric": metric.label, "value": e.value,
                     "low": e.low, "high": e.high, "n": e.n})
    frame = pl.DataFrame(rows, schema_overrides={"n": pl.Int64})
    return pl.concat([frame, paired_rows(metrics, table, reference, confidence)])


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
    decisions = list(dict.fromkeys(d for d, _ in metrics))
    reference = decisions[0] if reference is None else reference
    if reference not in decisions:
        raise ValueError(f"reference decision {reference!r} is not one of {decisions}")
    base = {m.name: m for d, m in metrics if d == reference}
    rows = []
    for decision, metric in metrics:
        if decision == reference or metric.name not in base:
            continue
        mine = _per_deal(metric, table.filter(pl.col("decision") == decision))
        theirs = _per_deal(base[metric.name], table.filter(pl.col("decision") == reference))
        both = mine.join(theirs, on="deal_id", how="inner", suffix="_ref")
        e = stats.paired_ratio_difference(both["y"].to_numpy(), both["n"].to_numpy(),
                                          both["y_ref"].to_numpy(), both["n_ref"].to_numpy(),
                                          confidence)
        rows.append({"decision": f"{decision} - {reference}", "metric": metric.label,
                     "value": e.value, "low": e.low, "high": e.high, "n": e.n})
    return pl.DataFrame(rows, schema={"decision": pl.String, "metric": pl.String,
                                      "value": pl.Float64, "low": pl.Float64,
                                      "high": pl.Float64, "n": pl.Int64})
