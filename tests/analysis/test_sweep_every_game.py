"""``sweep`` on every registered game and unit: its columns never shadow a game's metric."""

from __future__ import annotations

import dataclasses

import pytest

from analysis.compare import check_metric_names, sweep
from analysis.experiment import Experiment
from simulators.core.game import games


def _two_values(policy):
    """(parameter, two of its values) for each float or bool parameter of ``policy``."""
    for name, spec in policy.parameters().items():
        default = spec["default"]
        if isinstance(default, bool):
            yield name, [default, not default]
        elif isinstance(default, float) and spec["high"] is not None and spec["high"] > default:
            yield name, [default, spec["high"]]


CASES = [(g, u.name) for g in sorted(games()) for u in games()[g].units]


@pytest.mark.parametrize("name, unit", CASES, ids=[f"{g}-{u}" for g, u in CASES])
def test_sweep_keeps_every_metric_beside_the_swept_score(name, unit):
    game = games()[name]
    experiment = Experiment.create(game, unit=unit, size=12, seed=4)
    policy = experiment.policies[0]
    param, values = next(_two_values(policy))
    table = sweep(experiment, {param: values}, progress=False)
    assert table.height == 2 and table["n"].to_list() == [12, 12]
    for metric in experiment.unit.metrics:
        assert metric.name in table.columns
    assert table["diff_vs_first"][0] == 0


def test_a_metric_named_like_a_sweep_column_is_refused():
    game = games()["bango"]
    unit = game.units[0]
    check_metric_names(game, unit)
    for name in ("score", "score_low", "p_value"):
        clash = dataclasses.replace(unit.metrics[0], name=name)
        renamed = dataclasses.replace(unit, metrics=(clash, *unit.metrics[1:]))
        with pytest.raises(ValueError, match=f"metric '{name}' has the name of a sweep column"):
            check_metric_names(game, renamed)
