"""Duplicate play's variance reduction, every game: the README's table.

Each line is one ``tapisvert compare GAME --duplicate ... --json`` (A against B,
each unit replayed once per rotation of A's seats, the same cards and random
draws). It prints the duplicate estimate with its interval and the measured
variance reduction per unit played: against independent units (each unit
played once) and against compare's fixed-seat pairing (A, then B, at the seats
beside the baseline). Run::

    python bench/duplicate.py --n-jobs 2
    python bench/duplicate.py --scale 0.1      # a tenth of every size
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys

COMMANDS = (
    ("truc", "compare truc --duplicate --a-param bluff_probability=0 --deals 200000"),
    ("bianco-mano", "compare bianco-mano --duplicate --a-param take_threshold=5 --deals 200000"),
    ("manille", "compare manille --duplicate --b-param contre_threshold=200 --seats 0,2 "
                "--deals 100000"),
    ("bango", "compare bango --duplicate --a optimal --b heuristic --games 4000"),
    ("five-crowns", "compare five-crowns --duplicate --a-param take_margin=0 --a-param tie_break=0 "
                    "--rounds 20000"),
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size")
    args = parser.parse_args(argv)
    print("| game | command | A - B duplicate [95%] | n | vs independent | vs fixed-seat | s |")
    print("|---|---|---|---:|---:|---:|---:|")
    for game, command in COMMANDS:
        words = shlex.split(command)
        size_at = next(i for i, w in enumerate(words) if w in ("--deals", "--games", "--rounds"))
        words[size_at + 1] = str(max(20, int(int(words[size_at + 1]) * args.scale)))
        shown = "tapisvert " + shlex.join(words)
        done = subprocess.run([sys.executable, "-m", "analysis.cli", *words, "--n-jobs",
                               str(args.n_jobs), "--json"], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{shown}: {done.stderr.strip()}")
        doc = json.loads(done.stdout)
        row = next(r for r in doc["rows"] if r["row"] == "A - B duplicate")
        vr = doc["variance_reduction"]
        print(f"| {game} | `{shown}` | {row['mean']:+.4f} [{row['low']:+.4f}, "
              f"{row['high']:+.4f}] | {row['n']:,} | {vr['independent']:.2f}× | "
              f"{vr['fixed_seat']:.2f}× | {doc['seconds']:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
