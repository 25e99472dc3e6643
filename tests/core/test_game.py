"""The game spec and registry, and that the conformance suite can fail."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import polars as pl
import pytest

from simulators.core import conformance
from simulators.core.game import Game, Metric, Unit, game_names, get_game, rate


def test_registry_finds_every_entry_point_by_name():
    names = game_names()
    assert {"bianco-mano", "five-crowns"} <= set(names)
    assert list(names) == sorted(names)
    for name in names:
        game = get_game(name)
        assert game.name == name and game.slug == name.replace("-", "_")
        assert pickle.loads(pickle.dumps(game)) is game  # games travel to workers by name
    with pytest.raises(ValueError, match=r"unknown game 'poker' \(known: .*bianco-mano"):
        get_game("poker")


def test_spec_refuses_inconsistent_declarations():
    bm = get_game("bianco-mano")
    deals = bm.unit("deals")
    with pytest.raises(ValueError, match="summary_table 'nope' is not one of its tables"):
        dataclasses.replace(deals, summary_table="nope")
    with pytest.raises(ValueError, match="unit names must be distinct"):
        dataclasses.replace(bm, units=(deals, deals))
    with pytest.raises(ValueError, match="policy 'greedy' is not registered"):
        dataclasses.replace(bm, random_policy="greedy")
    with pytest.raises(ValueError, match="kind must be 'rate' or 'mean'"):
        Metric("x", "x", "median", pl.col("x"))
    with pytest.raises(ValueError, match=r"unit must be one of deals, games for bianco-mano"):
        bm.unit("rounds")
    with pytest.raises(ValueError, match=r"unknown rule option\(s\) for bianco-mano: bonus "
                                         r"\(options: n_players, bianco_mano"):
        bm.make_config(bonus=True)


def _broken_game(play) -> Game:
    """Bianco Mano with its deal unit's play function replaced (registered under a test name)."""
    bm = get_game("bianco-mano")
    unit = dataclasses.replace(bm.unit("deals"), play=play)
    return dataclasses.replace(bm, name="broken", units=(unit,))


def test_conformance_catches_tables_that_depend_on_the_batch():
    deals = get_game("bianco-mano").unit("deals")

    def ignores_first(config, policies, first, count, seed):
        return deals.play(config, policies, 0, count, seed)  # every batch restarts at unit 0

    def seeded_by_size(config, policies, first, count, seed):
        return deals.play(config, policies, first, count, seed + (count > 1))

    for play in (ignores_first, seeded_by_size):
        with pytest.raises(AssertionError, match="differs between one batch and pieces"):
            conformance.check_chunking(_broken_game(play))


def test_conformance_catches_a_broken_invariant():
    deals = get_game("bianco-mano").unit("deals")

    def rigged(config, policies, first, count, seed):
        tables = deals.play(config, policies, first, count, seed)
        return {"deals": tables["deals"].with_columns(pl.col("delta_0") * 2)}

    with pytest.raises(AssertionError, match="BM-10 score changes"):
        conformance.check_random_play(_broken_game(rigged), batch_sizes=(200,))


def test_conformance_catches_bad_input_accepted():
    deals = get_game("bianco-mano").unit("deals")

    def lenient(config, policies, first, count, seed):
        return deals.play(config, policies, max(first, 0), max(count, 1), max(seed, 0))

    with pytest.raises(AssertionError, match="count 0: accepted instead of raising"):
        conformance.check_bad_input(_broken_game(lenient))


def test_rate_metric_declaration_is_plain_data():
    m = rate("take_rate", "take rate", pl.col("taker") >= 0)
    assert (m.kind, m.where) == ("rate", None)
    frame = pl.DataFrame({"taker": np.array([-1, 0, 2])})
    assert frame.select(m.value.sum()).item() == 2
    assert isinstance(get_game("bianco-mano").units[0], Unit)
