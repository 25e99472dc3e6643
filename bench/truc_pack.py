"""Pack Truc's solved states into the file the package ships (``solver/data/solution.npz``).

    python bench/truc_pack.py --out-dir runs/pack                  # every state: ~20 min
    python bench/truc_pack.py --out-dir runs/pack --states 11-11,10-11 --out /tmp/s.npz

Reads the full-precision states from the user cache (``tapisvert solve truc --equity
--recompute`` puts the 144 manche states there; ``tapisvert solve truc --scores 0,0
--json`` the points state at 0-0), packs each one (``simulators/truc/solver/packed.py``:
the information sets the player's own play reaches, small probabilities dropped, the rest
quantised; the first of ``packed.CANDIDATES`` whose exact exploitability, measured on the
decoded bytes, is within ``--budget``), and writes the archive atomically. An executor
study, one state per chunk: ``--n-jobs``, and a killed run resumes from ``--out-dir``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.runner import Study, map_chunks  # noqa: E402
from simulators.truc.solver import packed  # noqa: E402

TABLE = "packed"
BUDGET = 0.0058  # the issue bounds every state by 0.006 (chance of the manche), measured exactly


def every_state() -> list[str]:
    """The 144 manche states in the order the table solves them (lines of scores a + b from
    22 down to 0, so ``--limit`` can pack the lines solved so far), then the points
    solution at 0-0."""
    order = sorted(((a, b) for a in range(12) for b in range(12)), key=lambda s: (-sum(s), s))
    return [packed.member("manche", s) for s in order] + [packed.member("points", (0, 0))]


class PackStudy(Study):
    """One state packed per chunk; its bytes and figures are the chunk's table row."""

    kind = "truc-pack"
    tables = (TABLE,)

    def __init__(self, states: list[str], budget: float, points_budget: float,
                 equity_path: str, limit: int | None = None):
        self.states, self.budget, self.points_budget = states, budget, points_budget
        self.equity_path = equity_path
        self.limit = len(states) if limit is None else max(1, min(limit, len(states)))

    @property
    def size(self) -> int:
        return self.limit

    @property
    def label(self) -> str:
        return "truc pack"

    @property
    def unit_names(self) -> tuple[str, str]:
        return "states", "state"

    @property
    def seed(self) -> int:
        return 0

    @property
    def default_chunk(self) -> int:
        return 1

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "size": self.size, "states": self.states,
                "budget": self.budget, "points_budget": self.points_budget,
                "candidates": [list(c) for c in packed.CANDIDATES],
                "version": packed.PACK_VERSION, "equity": self.equity_path}

    def reduce_chunk(self, first: int, count: int):
        equity = np.array(json.loads(Path(self.equity_path).read_text())["win_probability"],
                          dtype=float)  # a partial table's unsolved states are null: nan
        names, blobs, metas = [], [], []
        for name in self.states[first:first + count]:
            payoff, a, b = name.split("-")
            budget = self.points_budget if payoff == "points" else self.budget
            result = packed.pack_solved((int(a), int(b)), payoff, budget, equity=equity)
            names.append(name)
            blobs.append(result.blob)
            metas.append(json.dumps(result.meta))
        frame = pl.DataFrame({"state": names, "blob": blobs, "meta": metas},
                             schema={"state": pl.String, "blob": pl.Binary, "meta": pl.String})
        return {"states": float(len(names)),
                "bytes": float(sum(len(b) for b in blobs))}, {TABLE: frame}


def main(argv=None) -> int:
    from simulators.truc.solver import manche

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, required=True,
                        help="the run directory (resumed when run again)")
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="workers (a 0-0 state takes a few GB of memory)")
    parser.add_argument("--states", default=None,
                        help="comma-separated A-B manche states (default: all 144 and the "
                             "points state at 0-0)")
    parser.add_argument("--limit", type=int, default=None,
                        help="pack only the first N states (the table's top lines); run again "
                             "with a larger N, or none, to go on")
    parser.add_argument("--budget", type=float, default=BUDGET,
                        help=f"exploitability a manche state may reach (default {BUDGET})")
    parser.add_argument("--points-budget", type=float, default=0.009,
                        help="the points state's (points per deal; default 0.009)")
    parser.add_argument("--equity", type=Path, default=manche.DATA / "equity.json",
                        help="the equity table the states were solved with (default: the "
                             "shipped one)")
    parser.add_argument("--out", type=Path, default=packed.SHIPPED,
                        help="where to write the archive (default: the package's)")
    args = parser.parse_args(argv)
    states = every_state() if args.states is None else [
        packed.member("manche", tuple(int(x) for x in s.split("-")))
        for s in args.states.split(",")]
    if not args.equity.exists():
        parser.error(f"--equity: no such file {args.equity}")
    doc = json.loads(args.equity.read_text())
    study = PackStudy(states, args.budget, args.points_budget, str(args.equity.resolve()),
                      args.limit)
    result = map_chunks(study, args.out_dir, n_jobs=args.n_jobs, progress=True)
    frame = result.tables[TABLE]
    packs = {row["state"]: packed.PackResult(row["blob"], json.loads(row["meta"]))
             for row in frame.iter_rows(named=True)}
    table = json.loads((manche.DATA / "equity.json").read_text())  # what the package ships
    if table["win_probability"] != doc["win_probability"]:
        print(f"warning: {args.equity} is not the shipped equity table; the states' "
              "figures were measured with it", file=sys.stderr)
    settings = {"pack_version": packed.PACK_VERSION, "budget": args.budget,
                "points_budget": args.points_budget,
                "candidates": [list(c) for c in packed.CANDIDATES],
                "solver": table.get("solver", {}), "target": table.get("target")}
    if len(packs) < len(states):
        print(f"packed {len(packs)} of {len(states)} states in {args.out_dir}; the archive is "
              "written when all are packed")
        return 0
    packed.write_shipped(args.out, packs, settings)
    manche_states = [p.meta for p in packs.values() if p.meta["payoff"] == "manche"]
    worst = max(manche_states, key=lambda m: m["exploitability"], default=None)
    total = sum(len(p.blob) for p in packs.values())
    print(f"wrote {args.out}: {len(packs)} states, {total / 2**20:.2f} MiB of states, "
          f"file {args.out.stat().st_size / 2**20:.2f} MiB")
    if worst:
        print(f"largest manche exploitability {worst['exploitability']:.5f} at "
              f"{worst['scores'][0]}-{worst['scores'][1]}")
    for p in packs.values():
        if p.meta["payoff"] == "points":
            print(f"points at {p.meta['scores'][0]}-{p.meta['scores'][1]}: exploitability "
                  f"{p.meta['exploitability']:.5f} points per deal")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
