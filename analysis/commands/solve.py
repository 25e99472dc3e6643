"""``tapisvert solve GAME``: the games with an exact solver (``Game.solve``), each declaring
its own flags. A ``--deals`` question (``Solve.deals``) is a study of the one executor
(:mod:`analysis.solve`): ``--n-jobs``, ``--backend dask``, ``--out-dir``, ``--chunk-size``
and ``--progress`` as for the other studies."""

from __future__ import annotations

import argparse
import dataclasses

from analysis.commands.common import (
    UsageError,
    field_types,
    json_value,
    log_line,
    parse_typed,
)
from analysis.commands.study import run_options, run_parser, study_dir_line
from simulators.core.game import get_game

RUN_FLAGS = {"n_jobs": ("--n-jobs", 1), "chunk_size": ("--chunk-size", None),
             "progress": ("--progress", None), "out_dir": ("--out-dir", None),
             "backend": ("--backend", "loky"), "scheduler": ("--scheduler", None)}


def _studies(hook) -> list[str]:
    return [name for name, part in (("--deals", hook.deals), ("--equity --recompute",
                                                               hook.table)) if part is not None]


def _refuse_run_flags(args: argparse.Namespace, hook) -> None:
    """A question that is not a study (one position, one state) takes none of the executor's
    flags."""
    for name, (flag, default) in RUN_FLAGS.items():
        if getattr(args, name, default) != default:
            raise UsageError(f"{flag} sets how a study runs ({' or '.join(_studies(hook))}); "
                             "this question is not one: drop it")


def _flag(f: dataclasses.Field) -> str:
    return f"--{f.name.replace('_', '-')}"


def _add_question(parser: argparse.ArgumentParser, question: type) -> None:
    """The solve question's fields as flags (``Solve.question``): text read when the
    question is built, so that one reader (the field's, or its type's) says what is wrong."""
    kinds = field_types(question)
    for f in dataclasses.fields(question):
        meta = f.metadata
        if kinds[f.name] is bool:
            on = f.default is not True
            parser.add_argument(_flag(f) if on else f"--no-{_flag(f)[2:]}", dest=f.name,
                                action="store_true" if on else "store_false",
                                default=f.default, help=meta.get("doc"))
            continue
        choices = meta.get("choices")
        parser.add_argument(_flag(f), dest=f.name, metavar=meta.get("metavar"),
                            help=meta.get("doc"),
                            choices=None if choices is None else [str(c) for c in choices])


def question_of(hook, args: argparse.Namespace):
    """The game's solve question from the command line (its refusal a one-line UsageError)."""
    kinds = field_types(hook.question)
    values = {}
    for f in dataclasses.fields(hook.question):
        raw = getattr(args, f.name)
        if raw is None or kinds[f.name] is bool:
            values[f.name] = raw if raw is not None else f.default
            continue
        read = f.metadata.get("read")
        try:
            values[f.name] = read(raw) if read else parse_typed(raw, kinds[f.name], _flag(f))
        except ValueError as error:
            raise UsageError(str(error)) from None
    try:
        return hook.question(**values)
    except ValueError as error:
        raise UsageError(str(error)) from None


def run(args: argparse.Namespace) -> str:
    """tapisvert solve GAME: the game's exact solver (checked before any work)."""
    import json

    game = get_game(args.game)
    hook = game.solve
    question = question_of(hook, args)
    deals = hook.deals.question(question) if hook.deals is not None else None
    table = hook.table.question(question) if hook.table is not None else None
    if deals is None and table is None:
        if hook.deals is not None or hook.table is not None:
            _refuse_run_flags(args, hook)
        doc = hook.run(question, log_line)
        return json.dumps(json_value(doc), indent=1) if args.json else hook.text(doc)
    from analysis.solve import solve_deals, solve_table

    options = run_options(args)
    if deals is not None:
        doc, _ = solve_deals(game, deals, out_dir=args.out_dir, **options)
    else:
        doc = solve_table(game, table, out_dir=args.out_dir, log=log_line, **options)
    if args.json:
        return json.dumps(json_value(doc), indent=1)
    text = hook.text(doc)
    return text if args.out_dir is None else f"{text}\n{study_dir_line(args.out_dir)}"


def add_parser(commands, scope, run_parent) -> None:
    """solve GAME: the games with an exact solver (Game.solve) declare its question, each on
    its own parser (``solve GAME --help``), so two games may use one flag name; a game
    with a study (``--deals``, a table) also takes the executor's flags."""
    solvers = [g for g in scope if g.solve is not None]
    if not solvers:
        return
    solve = commands.add_parser("solve", help="exact solvers: "
                                + "; ".join(f"{g.name}: {g.solve.doc}" for g in solvers))
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    games_of = solve.add_subparsers(dest="game", required=True, metavar="GAME")
    for g in solvers:
        studies = g.solve.deals is not None or g.solve.table is not None
        parents = [run_parser(json=False)] if studies else []
        sub = games_of.add_parser(g.name, help=g.solve.doc, parents=parents)
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                         help="print one JSON object")
        _add_question(sub, g.solve.question)
    solve.set_defaults(run=run)
