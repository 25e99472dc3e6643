"""Peak memory of a sweep against its size: flat, because workers keep sums, not tables.

Runs ``tapisvert sweep bianco-mano --grid take_threshold=3,3.5,4,4.5,5 --deals N``
(5 grid points, one process) for each size in a fresh process and prints its
peak resident set size (``ru_maxrss`` of the finished child). With
``--base DIR`` (a git worktree of an older commit, e.g. ``git worktree add
/tmp/base 03bfa71``) the same command of that checkout is measured too.

Run::

    python bench/sweep_memory.py                       # 200,000 and 3,200,000 deals
    python bench/sweep_memory.py --sizes 200000 1600000 --base /tmp/base
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRID = "take_threshold=3,3.5,4,4.5,5"


def peak(checkout: Path, deals: int) -> tuple[float, float]:
    """(peak RSS in MB, wall seconds) of one sweep run by ``checkout``'s code."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "TAPISVERT_SCALE": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "analysis.cli", "sweep", "bianco-mano",
                             "--grid", GRID, "--deals", str(deals), "--no-progress"],
                            cwd=checkout, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{checkout}: sweep of {deals} deals failed: "
                         f"{proc.stderr.read().decode()[-500:]}")
    return usage.ru_maxrss / 1024, seconds  # Linux: kilobytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 3_200_000])
    parser.add_argument("--base", type=Path, help="an older checkout to measure too")
    args = parser.parse_args()
    checkouts = [("this checkout", ROOT)] + ([("base", args.base)] if args.base else [])
    for label, checkout in checkouts:
        peaks = []
        for deals in args.sizes:
            mb, seconds = peak(checkout, deals)
            peaks.append(mb)
            print(f"{label:>13}: sweep {GRID} over {deals:>9,} deals: peak RSS {mb:7.1f} MB "
                  f"({seconds:.0f} s)", flush=True)
        print(f"{label:>13}: largest / smallest peak = {max(peaks) / min(peaks):.3f}",
              flush=True)


if __name__ == "__main__":
    main()
