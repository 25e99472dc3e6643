"""``tapisvert solve GAME``: the games with an exact solver (``Game.solve``), each declaring
its own flags. A ``--deals`` question (``Solve.deals``) is a study of the one executor
(:mod:`analysis.solve`): ``--n-jobs``, ``--backend dask``, ``--out-dir``, ``--chunk-size``
and ``--progress`` as for the other studies."""

from __future__ import annotations

import argparse
import sys

from analysis.commands.common import UsageError, json_value
from analysis.commands.study import run_options, run_parser, study_dir_line
from simulators.core.game import get_game

RUN_FLAGS = {"n_jobs": ("--n-jobs", 1), "chunk_size": ("--chunk-size", None),
             "progress": ("--progress", None), "out_dir": ("--out-dir", None),
             "backend": ("--backend", "loky"), "scheduler": ("--scheduler", None)}


def _refuse_run_flags(args: argparse.Namespace) -> None:
    """A question that is not a study (one position) takes none of the executor's flags."""
    for name, (flag, default) in RUN_FLAGS.items():
        if getattr(args, name, default) != default:
            raise UsageError(f"{flag} goes with --deals (a study of the engine's deals), not "
                             "with one position")


def run(args: argparse.Namespace) -> str:
    """tapisvert solve GAME: the game's exact solver (checked before any work)."""
    import json

    game = get_game(args.game)
    hook = game.solve
    hook.check(args)
    question = hook.deals.question(args) if hook.deals is not None else None
    if question is None:
        if hook.deals is not None:  # the executor's flags are this game's only for --deals
            _refuse_run_flags(args)
        doc = hook.run(args, lambda line: print(line, file=sys.stderr, flush=True))
        return json.dumps(json_value(doc), indent=1) if args.json else hook.text(doc)
    from analysis.solve import solve_deals

    options = run_options(args)
    doc, _ = solve_deals(game, question, out_dir=args.out_dir, **options)
    if args.json:
        return json.dumps(json_value(doc), indent=1)
    text = hook.text(doc)
    return text if args.out_dir is None else f"{text}\n{study_dir_line(args.out_dir)}"


def add_parser(commands, scope, run_parent) -> None:
    """solve GAME: the games with an exact solver (Game.solve) declare its flags, each on
    its own parser (``solve GAME --help``), so two games may use one flag name; a game
    whose ``--deals`` are a study also takes the executor's flags."""
    solvers = [g for g in scope if g.solve is not None]
    if not solvers:
        return
    solve = commands.add_parser("solve", help="exact solvers: "
                                + "; ".join(f"{g.name}: {g.solve.doc}" for g in solvers))
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    games_of = solve.add_subparsers(dest="game", required=True, metavar="GAME")
    for g in solvers:
        parents = [run_parser(json=False)] if g.solve.deals is not None else []
        sub = games_of.add_parser(g.name, help=g.solve.doc, parents=parents)
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                         help="print one JSON object")
        g.solve.add_arguments(sub)
    solve.set_defaults(run=run)
