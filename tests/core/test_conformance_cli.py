"""``python -m simulators.core.conformance GAME --units N --n-jobs J``: the large replay."""

from __future__ import annotations

import pytest

from simulators.core.conformance import main


@pytest.mark.parametrize("argv, text", [
    (["no-such-game"], "unknown game 'no-such-game'"),
    (["truc", "--units", "0"], "--units must be a positive integer, got 0"),
    (["truc", "--n-jobs", "-1"], "--n-jobs must be a positive integer, got -1"),
    (["truc", "--units", "ten"], "invalid int value: 'ten'"),
    (["truc", "--unit", "rubbers"], "unit must be one of deals, matches for truc"),
    (["truc", "--seed", "-2"], "--seed must be a non-negative integer"),
])
def test_bad_input_is_one_line_and_exit_status_2(argv, text, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert text in err and err.count("\n") == 1, err


def test_replays_every_config_and_policy_of_a_unit(capsys):
    assert main(["truc", "--unit", "deals", "--units", "6", "--chunk", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 * 3 + 1  # 3 configs x 3 shipped policies, and the total
    assert all("6 deals played, 6 replayed by the referee, 0 mismatches" in line
               for line in out[:-1])
    assert out[-1] == "truc: 54 replayed by the referee, 0 mismatches"
