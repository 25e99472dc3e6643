"""The learned players' speed: whole units per second per core with ``net`` at every seat,
beside the heuristic in the same run (the issue's floor: 5,000 Manille deals/s per core).

    python bench/net_speed.py --game manille --batch 20000 --repeats 3
    python bench/net_speed.py --game manille --weights runs/net/weights-card.npz

One process, BLAS on one thread; CPU seconds of this process (``time.process_time``), so
other jobs on a shared machine distort the figures less than wall time. Prints one JSON
object: each policy's units/s (median of the repeats), and the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def rate(game, policy, batch: int, repeats: int) -> float:
    unit = game.units[0]
    config = game.make_config()
    unit.play(config, policy, 0, min(batch, 500), 1)  # warm caches and compiled kernels
    rates = []
    for r in range(repeats):
        began = time.process_time()
        unit.play(config, policy, 0, batch, 100 + r)
        rates.append(batch / (time.process_time() - began))
    return statistics.median(rates)


def main(argv=None) -> int:
    from simulators.core.game import get_game

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="manille")
    parser.add_argument("--batch", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--weights", default="", help="a weights file (default: shipped)")
    args = parser.parse_args(argv)
    game = get_game(args.game)
    heuristic = game.make_policy("heuristic")
    net = game.make_policy("net", **({"weights": args.weights} if args.weights else {}))
    figures = {"heuristic": rate(game, heuristic, args.batch, args.repeats),
               "net": rate(game, net, args.batch, args.repeats)}
    print(json.dumps({"game": game.name, "unit": game.units[0].name, "batch": args.batch,
                      "per_second_per_core": {k: round(v) for k, v in figures.items()},
                      "net_over_heuristic": round(figures["net"] / figures["heuristic"], 4)},
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
