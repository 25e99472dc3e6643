"""What are my odds with this hand? Any game that declares an odds hook.

The game's :class:`~simulators.core.game.Odds` hook plays a concrete
situation (its ``question`` dataclass: a hand, a position…) once per
decision and returns one row per simulated deal; the hook's metrics are
evaluated on each decision's rows, with intervals.
"""

from __future__ import annotations

import polars as pl

from analysis import summaries
from analysis.experiment import Experiment


def odds(experiment: Experiment, question, confidence: float = 0.95) -> pl.DataFrame:
    """Tidy table ``decision, metric, value, low, high, n`` for a situation.

    ``experiment`` gives the game, rule config, policies, size (deals per
    decision) and seed; ``question`` is an instance of the game's
    ``odds.question`` dataclass.
    """
    hook = experiment.game.odds
    if hook is None:
        raise ValueError(f"odds is not available for {experiment.game.name}")
    if not isinstance(question, hook.question):
        raise ValueError(f"question must be a {hook.question.__name__}")
    table = hook.play(experiment.config, experiment.play_policies(), question, experiment.size,
                      experiment.seed)
    rows = []
    for decision, metric in hook.metrics:
        e = summaries.estimate([metric], table.filter(pl.col("decision") == decision),
                               metric.name, confidence)
        rows.append({"decision": decision, "metric": metric.label, "value": e.value,
                     "low": e.low, "high": e.high, "n": e.n})
    return pl.DataFrame(rows)
