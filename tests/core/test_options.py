"""Rule-option checks shared by every game's config, and the 32-card masks."""

from __future__ import annotations

import numpy as np
import pytest

from simulators.core import cards32
from simulators.core.options import check_bool, check_int, cut_weights


def test_check_int_takes_integers_in_range_only():
    check_int("deals", 1, 1, 10)
    check_int("deals", np.int64(10), 1, 10)
    for bad in (0, 11, 2.0, True, "3", None):
        with pytest.raises(ValueError, match=r"deals must be an integer in \[1, 10\], got "):
            check_int("deals", bad, 1, 10)


def test_check_bool_takes_true_or_false_only():
    check_bool("flag", True)
    check_bool("flag", False)
    for bad in (0, 1, "yes", None):
        with pytest.raises(ValueError, match="flag must be true or false, got "):
            check_bool("flag", bad)


def test_cut_weights_are_31_non_negative_numbers_with_a_positive_sum():
    assert cut_weights(None) is None
    assert cut_weights([1] * 31) == (1.0,) * 31
    for bad in ([1] * 30, [0] * 31, [-1] + [1] * 30):
        with pytest.raises(ValueError, match=r"cut_weights must be 31 non-negative numbers "
                                             r"\(cut points 1..31\) with a positive sum"):
            cut_weights(bad)


def test_card_masks():
    assert cards32.RANK_MASK[0] == 0xF and cards32.ALL_CARDS == 2**32 - 1
    assert cards32.SUIT_MASK[1] == sum(1 << cards32.card(r, 1) for r in range(8))
    assert sum(cards32.SUIT_MASK) == sum(cards32.RANK_MASK) == cards32.ALL_CARDS


def test_rule_options_replace_is_a_validated_copy():
    import dataclasses

    from simulators.core.options import RuleOptions

    @dataclasses.dataclass(frozen=True)
    class Toy(RuleOptions):
        n: int = 1

        def __post_init__(self) -> None:
            check_int("n", self.n, 1, 3)

    assert Toy().replace(n=3) == Toy(n=3)
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 3\], got 4"):
        Toy().replace(n=4)


def test_situation_hand_names_the_hand_in_a_deal_constraint_error():
    assert cards32.situation_hand((5, 1, 3), 3, str.split, "my hand") == (1, 3, 5)
    with pytest.raises(cards32.DealConstraintError,
                       match=r"my hand: a hand is 3 distinct cards 0..31, got \(1, 1, 3\)"):
        cards32.situation_hand((1, 1, 3), 3, str.split, "my hand")
