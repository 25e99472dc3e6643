"""A Bianco Mano heuristic that halts a run at a gate, so a test can kill it mid-run.

Killing a run "half-way" by watching its files races the run: on a fast or
idle machine it may finish before the signal lands, on a loaded one the
watcher may wake too late. :class:`GatedHeuristic` removes the race. It plays
exactly like the shipped heuristic, except that when the environment
variable ``TAPISVERT_TEST_GATE`` holds ``"<glob pattern>@<count>"``, every
batch it is asked about waits while at least ``count`` files match the
pattern: the run stops making progress after ``count`` finished parts, and
the test kills it there, whatever the machine's speed. Unset (the resumed
run, the reference run), it is the heuristic.

Used from the command line as ``--policy gated:GatedHeuristic`` with this
folder as the working directory (``cwd=HERE``), as a user's own module is.
"""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import time
from dataclasses import dataclass

from simulators.bianco_mano import HeuristicPolicy

GATE = "TAPISVERT_TEST_GATE"
NEVER_RELEASED_AFTER = 900.0  # seconds: a safety net for a test that forgot to kill
PARENT = os.getppid()  # a worker's parent is the run the test kills


def gate(pattern: str, count: int) -> dict[str, str]:
    """The environment of a run that halts once ``count`` files match ``pattern``."""
    return {**os.environ, GATE: f"{pattern}@{count}"}


def _wait_at_gate() -> None:
    spec = os.environ.get(GATE)
    if not spec:
        return
    pattern, count = spec.rsplit("@", 1)
    deadline = time.monotonic() + NEVER_RELEASED_AFTER
    while len(glob.glob(pattern)) >= int(count):
        if os.getppid() != PARENT:  # the run was killed: a held worker leaves with it
            os._exit(1)
        if time.monotonic() > deadline:
            raise RuntimeError(f"{GATE}: nobody stopped the run held at {spec}")
        time.sleep(0.05)


@dataclass(frozen=True)
class GatedHeuristic(HeuristicPolicy):
    """The heuristic, held at the gate before each batch's first packet."""

    def first_packet(self, obs):
        _wait_at_gate()
        return super().first_packet(obs)


def kill_when_held(argv: list[str], parts: str, count: int, cwd) -> int:
    """Run ``argv`` held at ``count`` files matching ``parts``, SIGKILL it there; how many
    parts it left. Every wait ends on progress (a file appears), never on a clock.

    Joblib may start one more chunk before the ``count``-th is saved (it
    dispatches ahead), so ``count`` or ``count + 1`` parts are left.
    """
    proc = subprocess.Popen(argv, cwd=cwd, env=gate(parts, count), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        while len(glob.glob(parts)) < count:
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    return len(glob.glob(parts))
