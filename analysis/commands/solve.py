"""``tapisvert solve GAME``: the games with an exact solver (``Game.solve``), each declaring
its own flags."""

from __future__ import annotations

import argparse
import sys

from analysis.commands.common import json_value
from simulators.core.game import get_game


def run(args: argparse.Namespace) -> str:
    """tapisvert solve GAME: the game's exact solver (checked before any work)."""
    import json

    hook = get_game(args.game).solve
    hook.check(args)
    doc = hook.run(args, lambda line: print(line, file=sys.stderr, flush=True))
    return json.dumps(json_value(doc), indent=1) if args.json else hook.text(doc)


def add_parser(commands, scope, run_parent) -> None:
    """solve GAME: the games with an exact solver (Game.solve) declare its flags, each on
    its own parser (``solve GAME --help``), so two games may use one flag name."""
    solvers = [g for g in scope if g.solve is not None]
    if not solvers:
        return
    solve = commands.add_parser("solve", help="exact solvers: "
                                + "; ".join(f"{g.name}: {g.solve.doc}" for g in solvers))
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    games_of = solve.add_subparsers(dest="game", required=True, metavar="GAME")
    for g in solvers:
        sub = games_of.add_parser(g.name, help=g.solve.doc)
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                         help="print one JSON object")
        g.solve.add_arguments(sub)
    solve.set_defaults(run=run)
