"""Truc solver: iterations/s beside OpenSpiel's C++ CFR+ in the same run, and the
convergence curve of one Truc deal.

Prints, on one core:

- Kuhn and Leduc poker: OpenSpiel's ``pyspiel.CFRPlusSolver`` (C++, over the
  full game tree with cards as chance nodes) and this solver (numba, over the
  public tree with private hands as vectors) run the same number of CFR+
  iterations; iterations/s of each, their ratio, and each one's
  exploitability at the end (OpenSpiel's ``exploitability``; ours exact);
- a Truc deal at the given scores (default 0-0, the full 32-card game; use
  ``--ranks 5`` for a quick run): tree size, build time, iterations/s, and
  exploitability against iterations and seconds until ``--target``; the curve
  goes to ``--curve`` (CSV) and ``--plot`` (PNG) when given.

Run::

    python bench/truc_solver.py --ranks 5                  # a minute
    python bench/truc_solver.py --plot docs/img/truc_solver_convergence.png \\
        --curve docs/img/truc_solver_convergence.csv       # the full deal, minutes
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from simulators.core.cfr.cfrplus import CFRPlus, exploitability, solve  # noqa: E402
from simulators.core.cfr.kuhn import kuhn_tree  # noqa: E402
from simulators.core.cfr.leduc import leduc_tree  # noqa: E402
from simulators.truc.solver.deal import DealSpec, build_deal_tree  # noqa: E402


def openspiel_cfr_plus(name: str, iterations: int) -> tuple[float, float]:
    """(iterations/s, exploitability) of OpenSpiel's C++ CFR+ on a game."""
    import pyspiel

    game = pyspiel.load_game(name)
    solver = pyspiel.CFRPlusSolver(game)
    solver.evaluate_and_update_policy()  # first iteration builds the tables
    start = time.perf_counter()
    for _ in range(iterations - 1):
        solver.evaluate_and_update_policy()
    rate = (iterations - 1) / (time.perf_counter() - start)
    return rate, pyspiel.exploitability(game, solver.average_policy())


def ours_cfr_plus(tree, iterations: int) -> tuple[float, float]:
    """(iterations/s, exploitability) of this solver on a public tree."""
    solver = CFRPlus(tree)
    solver.step(1)  # compiles (or loads numba's cache)
    start = time.perf_counter()
    solver.step(iterations - 1)
    rate = (iterations - 1) / (time.perf_counter() - start)
    return rate, exploitability(tree, solver.average_strategy())


def poker_table(iterations: int) -> None:
    """Kuhn and Leduc, OpenSpiel beside this solver."""
    print(f"CFR+ on the same games, {iterations} iterations each, one core")
    print(f"{'game':8} {'OpenSpiel it/s':>15} {'ours it/s':>10} {'ratio':>7} "
          f"{'expl. OpenSpiel':>16} {'expl. ours':>11}")
    for name, tree in (("kuhn_poker", kuhn_tree()), ("leduc_poker", leduc_tree())):
        theirs, their_expl = openspiel_cfr_plus(name, iterations)
        ours, our_expl = ours_cfr_plus(tree, iterations)
        print(f"{name:8} {theirs:15.0f} {ours:10.0f} {ours / theirs:7.1f} "
              f"{their_expl:16.2e} {our_expl:11.2e}")


def truc_curve(spec: DealSpec, iterations: int, target: float, every: int):
    """Build and solve one deal, printing the convergence curve."""
    start = time.perf_counter()
    deal = build_deal_tree(spec)
    built = time.perf_counter() - start
    tree = deal.tree
    print(f"\nTruc deal {spec}: {tree.n_nodes:,} public nodes, {tree.n_entries:,} entries, "
          f"{tree.n_infosets():,} information sets; built in {built:.1f} s")
    result = solve(tree, iterations=iterations, target=target, check_every=every)
    print(f"{'iterations':>10} {'seconds':>8} {'exploitability':>15}")
    for it, sec, expl in result.curve:
        print(f"{it:10d} {sec:8.1f} {expl:15.5f}")
    rate = result.iterations / result.seconds
    print(f"{rate:.2f} iterations/s; value for the non-dealer {result.value:+.5f} points "
          f"per deal, exploitability {result.exploitability:.5f}")
    return result


def plot(curve, path: str, title: str) -> None:
    """Exploitability against iterations and against seconds (log-log)."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arr = np.array(curve)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, col, label in ((axes[0], 0, "CFR+ iterations"), (axes[1], 1, "seconds (one core)")):
        ax.loglog(arr[:, col], arr[:, 2], marker="o", ms=3)
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.axhline(0.01, color="grey", ls="--", lw=1)
        ax.set_xlabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("exploitability (points per deal)")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--poker-iterations", type=int, default=1000)
    parser.add_argument("--ranks", type=int, default=8, help="ranks kept (8: the real deck)")
    parser.add_argument("--scores", type=int, nargs=2, default=(0, 0),
                        metavar=("NON_DEALER", "DEALER"))
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--target", type=float, default=0.005)
    parser.add_argument("--every", type=int, default=25, help="iterations between checks")
    parser.add_argument("--curve", help="write the curve as CSV here")
    parser.add_argument("--plot", help="write the curve as PNG here")
    parser.add_argument("--cached", action="store_true",
                        help="take the deal's curve from the solved-deal cache (solving it "
                             "there first if needed) instead of a fresh run")
    parser.add_argument("--skip-poker", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.ranks <= 8:
        parser.error(f"--ranks must be in [1, 8], got {args.ranks}")
    spec = DealSpec(scores=tuple(args.scores), n_ranks=args.ranks)  # validates the scores
    if not args.skip_poker:
        poker_table(args.poker_iterations)
    if args.cached:
        from simulators.truc.solver.solutions import solved_deal

        result = solved_deal(spec, target=args.target)
        print(f"\nTruc deal {spec} from the cache: value {result.value:+.5f}, exploitability "
              f"{result.exploitability:.5f} after {result.iterations} iterations, "
              f"{result.seconds:.0f} s")
        for it, sec, expl in result.curve:
            print(f"{int(it):10d} {sec:8.1f} {expl:15.5f}")
    else:
        result = truc_curve(spec, args.iterations, args.target, args.every)
    if args.curve:
        np.savetxt(args.curve, np.array(result.curve), delimiter=",", fmt="%.6g",
                   header="iterations,seconds,exploitability", comments="")
    if args.plot:
        deck = "full deck" if spec.n_ranks == 8 else f"{spec.n_ranks} ranks"
        plot(result.curve, args.plot, f"CFR+ on one Truc deal ({deck}, scores "
             f"{spec.scores[0]}-{spec.scores[1]}); dashed: 0.01 point per deal")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
