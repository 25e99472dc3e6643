"""Recompute Truc's equity table and write the package's data file (atomically).

    python bench/truc_equity.py --out-dir runs/equity --n-jobs 2      # about an hour
    python bench/truc_equity.py --out-dir runs/equity --lines 3 --out /tmp/top.json

The table is ``tapisvert solve truc --equity --recompute`` (waves of executor studies,
resumed from ``--out-dir`` after a kill); this script writes its document to
``simulators/truc/solver/data/equity.json`` (or ``--out``) in one piece, so a run killed
at any point leaves the shipped table as it was.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "simulators" / "truc" / "solver" / "data" / "equity.json"


def main(argv=None) -> int:
    from analysis.commands.common import json_value
    from analysis.solve import solve_table
    from simulators.core.files import write_atomically
    from simulators.core.game import get_game
    from simulators.truc.solver.command import TrucSolveQuestion, equity_question

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path,
                        help="the run directory (resumed when run again; required but with "
                             "--docs)")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--target", type=float, default=None)
    parser.add_argument("--lines", type=int, default=None,
                        help="only the top N lines of scores (a quick check)")
    parser.add_argument("--out", type=Path, default=SHIPPED,
                        help=f"where to write the table (default {SHIPPED.relative_to(ROOT)})")
    parser.add_argument("--docs", action="store_true",
                        help="only redraw docs/img/truc_equity.png and print the docs' "
                             "markdown table from the shipped file (no solving)")
    args = parser.parse_args(argv)
    if args.docs:
        return docs(json.loads(SHIPPED.read_text()))
    if args.out_dir is None:
        parser.error("--out-dir is required (the run directory)")
    try:
        question = TrucSolveQuestion(equity=True, recompute=True, target=args.target,
                                     lines=args.lines)
    except ValueError as error:
        parser.error(str(error))
    doc = solve_table(get_game("truc"), equity_question(question), out_dir=args.out_dir,
                      n_jobs=args.n_jobs, log=lambda line: print(line, file=sys.stderr,
                                                                 flush=True))
    write_atomically(args.out, json.dumps(json_value(doc), indent=1))
    print(f"wrote {args.out}: largest exploitability {doc['largest_exploitability']:.5f}, "
          f"{doc['seconds']:.0f} s")
    return 0


def docs(doc: dict) -> int:
    """The figure and the table of docs/truc_solver.md, from the shipped table."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    equity = np.asarray(doc["win_probability"], dtype=float)
    fig, ax = plt.subplots(figsize=(6, 4.6))
    image = ax.imshow(equity, origin="lower", cmap="RdBu", vmin=0, vmax=1)
    fig.colorbar(image, ax=ax)
    ax.set(title="Chance that the non-dealer wins the manche", xlabel="dealer's score",
           ylabel="non-dealer's score")
    out = ROOT / "docs" / "img" / "truc_equity.png"
    fig.savefig(out, dpi=100, bbox_inches="tight")
    print(f"wrote {out}")
    print("| non-dealer \\ dealer | " + " | ".join(str(b) for b in range(12)) + " |")
    print("|---" * 13 + "|")
    for a, row in enumerate(equity):
        print(f"| **{a}** | " + " | ".join(f"{x:.3f}" for x in row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
