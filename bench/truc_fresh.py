"""A new user's first Truc equilibrium run: wall time and what it adds to the user cache.

    python bench/truc_fresh.py                # this checkout's install, an empty cache
    python bench/truc_fresh.py --clone        # a fresh clone of HEAD installed as the README
                                              # says (pip install -e ".[dev]"), then the same

Runs ``tapisvert simulate truc --matches 200 --policy equilibrium`` with an empty
``TAPISVERT_CACHE`` (and an empty numba cache, as on a new machine), and prints the wall
time and the cache's size afterwards (issue 37: under 60 s on 2 cores, at most 100 MB).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = ["simulate", "truc", "--matches", "200", "--policy", "equilibrium"]


def tree_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def install_clone(where: Path) -> tuple[Path, float]:
    """A clone of HEAD in ``where`` with its own venv, installed as the README says."""
    began = time.perf_counter()
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(where / "repo")], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True)
    python = where / "venv" / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-e", ".[dev]"],
                   cwd=where / "repo", check=True)
    return python, time.perf_counter() - began


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clone", action="store_true",
                        help="clone HEAD and install it in a new venv first")
    parser.add_argument("--matches", type=int, default=200)
    args = parser.parse_args(argv)
    command = list(COMMAND)
    command[command.index("200")] = str(args.matches)
    with tempfile.TemporaryDirectory(prefix="tapisvert-fresh-") as scratch:
        scratch = Path(scratch)
        python, cwd = Path(sys.executable), ROOT
        if args.clone:
            python, seconds = install_clone(scratch)
            cwd = scratch / "repo"
            print(f"fresh clone installed in {seconds:.0f} s")
        cache = scratch / "cache"
        cache.mkdir()
        env = {**os.environ, "TAPISVERT_CACHE": str(cache),
               "NUMBA_CACHE_DIR": str(scratch / "numba")}
        began = time.perf_counter()
        run = subprocess.run([str(python), "-m", "analysis.cli", *command], cwd=cwd, env=env,
                             capture_output=True, text=True)
        wall = time.perf_counter() - began
        if run.returncode != 0:
            print(run.stderr, file=sys.stderr)
            return 1
        grown = tree_bytes(cache)
        print(run.stdout.strip().splitlines()[0] if run.stdout.strip() else "")
        print(f"tapisvert {' '.join(command)}: {wall:.1f} s wall on {os.cpu_count()} cores, "
              f"user cache grew by {grown / 2**20:.1f} MB "
              f"({sum(1 for _ in cache.rglob('*'))} files)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
