"""The learned players' speed: whole units per second per core with ``net`` at every seat,
beside the heuristic in the same run (the issue's floor: 5,000 Manille deals/s per core).

    python bench/net_speed.py --game manille --batch 20000 --repeats 3
    python bench/net_speed.py --game manille --weights runs/net/weights-card.npz
    python bench/net_speed.py --game five-crowns --option round_no=11 --batch 5000

Five Crowns also prints decisions/s (a draw and a discard each player-turn, the rounds
table's ``turns``; going out is not a net's: the issue's floor is 50,000 in round 11).

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


def rate(game, policy, batch: int, repeats: int, options: dict) -> tuple[float, float | None]:
    """(units/s, decisions/s or None) per core, the median of ``repeats`` batches."""
    unit = game.units[0]
    config = game.make_config(**options)
    unit.play(config, policy, 0, min(batch, 500), 1)  # warm caches and compiled kernels
    rates, decisions = [], []
    for r in range(repeats):
        began = time.process_time()
        tables = unit.play(config, policy, 0, batch, 100 + r)
        seconds = time.process_time() - began
        rates.append(batch / seconds)
        table = next(iter(tables.values()))
        if game.name == "five-crowns":
            decisions.append(2 * float(table["turns"].sum()) / seconds)
    return statistics.median(rates), statistics.median(decisions) if decisions else None


def main(argv=None) -> int:
    from simulators.core.game import get_game

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="manille")
    parser.add_argument("--batch", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--weights", default="", help="a weights file (default: shipped)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule option (integers), repeatable")
    args = parser.parse_args(argv)
    options = {k: int(v) for k, v in (o.split("=", 1) for o in args.option)}
    game = get_game(args.game)
    heuristic = game.make_policy("heuristic")
    net = game.make_policy("net", **({"weights": args.weights} if args.weights else {}))
    figures = {"heuristic": rate(game, heuristic, args.batch, args.repeats, options),
               "net": rate(game, net, args.batch, args.repeats, options)}
    doc = {"game": game.name, "unit": game.units[0].name, "batch": args.batch,
           "options": options,
           "per_second_per_core": {k: round(v[0]) for k, v in figures.items()},
           "net_over_heuristic": round(figures["net"][0] / figures["heuristic"][0], 4)}
    if figures["net"][1] is not None:
        doc["decisions_per_second_per_core"] = {k: round(v[1]) for k, v in figures.items()}
    print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
