"""The strict np.where / np.select of the portable-numerics conformance check."""

from __future__ import annotations

import numpy as np
import pytest

from simulators.core.conformance import check_portable_numerics, player_count_configs
from simulators.core.game import get_game
from simulators.core.strict_numpy import strict_python_ints

U8 = np.array([3, 200], dtype=np.uint8)
MASK = np.array([True, False])


def test_where_refuses_a_python_int_that_the_result_dtype_cannot_hold():
    # the Manille hand_features bug: -1 meets a uint8 popcount (numpy 2.4 gives 255)
    with strict_python_ints(), pytest.raises(OverflowError, match="-1 out of bounds for uint8"):
        np.where(MASK, -1, U8)
    with strict_python_ints(), pytest.raises(OverflowError, match="256"):
        np.where(MASK, U8, 256)


def test_select_refuses_an_out_of_range_default():
    with strict_python_ints(), pytest.raises(OverflowError, match="-1 out of bounds for uint8"):
        np.select([MASK], [U8], default=-1)


def test_values_that_fit_pass_and_give_numpys_answer():
    with strict_python_ints():
        assert np.where(MASK, 255, U8).tolist() == [255, 200]
        assert np.where(MASK, np.int8(-1), (U8 // 2).astype(np.int8)).tolist() == [-1, 100]
        assert np.where(MASK, -1, U8.astype(np.int16)).tolist() == [-1, 200]
        assert np.where(MASK, -1.5, U8).tolist() == [-1.5, 200.0]
        assert np.select([MASK], [U8], default=7).tolist() == [3, 7]
        assert np.where(MASK)[0].tolist() == [0]  # the one-argument form is nonzero()


def test_numpy_is_restored_after_the_block_even_on_error():
    where, select = np.where, np.select
    with pytest.raises(OverflowError), strict_python_ints():
        np.where(MASK, -1, U8)
    assert np.where is where and np.select is select


def test_player_counts_tried_are_those_the_config_accepts():
    counts = sorted({c.n_players for c in player_count_configs(get_game("five-crowns"))})
    assert counts == [2, 3, 4, 5, 6, 7]  # FC: 2 to 7 players
    counts = sorted({c.n_players for c in player_count_configs(get_game("bianco-mano"))})
    assert counts == [3, 4, 5]


def test_portable_numerics_counts_every_player_count_unit_and_policy():
    # Bianco Mano: 5 example configs, 2 units, 3 policies (random, heuristic, net; pimc is a
    # slow one), every count already among the configs
    assert check_portable_numerics(get_game("bianco-mano"), count=4) == 5 * 2 * 3
