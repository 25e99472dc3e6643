"""The step games' shared argument checks (simulators.core.steps.as_action, as_seat)."""

from __future__ import annotations

import numpy as np
import pytest

from simulators.core.steps import as_action, as_seat


def test_as_action_takes_python_and_numpy_integers_only():
    assert as_action(7) == 7 and type(as_action(np.int16(7))) is int
    assert as_action(3.0) == 3  # an integral float is the same action
    for bad in (True, 2.5, "3", None):
        with pytest.raises(ValueError, match=r"^action .* is not an integer$"):
            as_action(bad)


def test_as_seat_names_the_option_and_its_range():
    assert as_seat(np.int8(3), 4) == 3 and as_seat(-1, 4, by_chance=True) == -1
    with pytest.raises(ValueError, match=r"^player 4 is not a seat 0\.\.3$"):
        as_seat(4, 4)
    with pytest.raises(ValueError, match=r"^player -1 is not a seat 0\.\.3$"):
        as_seat(-1, 4)
    with pytest.raises(ValueError, match=r"^dealer must be a seat 0\.\.4 or -1 \(drawn by "
                                         r"chance\), got True$"):
        as_seat(True, 5, name="dealer", by_chance=True)
