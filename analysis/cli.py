"""The ``tapisvert`` command line: simulate, compare, sweep, odds, report, env-check.

Every game comes from the registry (:mod:`simulators.core.game`): its units
give the size flags (``--deals``, ``--rounds``…), its config dataclass types
the ``--option`` values, its policy classes type the ``--param`` values, its
odds question gives the ``odds`` flags. Every command validates its whole
input before doing any work (values typed from the dataclasses' own fields,
output paths probed for writing, conflicting or ignored flags refused); on
bad input it prints one line ``tapisvert: error: …`` to stderr and exits
with status 2, writing nothing. Output files appear by atomic rename only
when complete. ``tapisvert games``, ``options GAME`` and ``policies GAME``
list what can be asked for.

Every error leaves through :func:`main`: usage and validation errors (exit
2), an interrupted run (Ctrl-C: exit 130, with the rerun-to-resume hint), a
closed pipe (``| head``: quiet), and anything unexpected (exit 1, one line;
``TAPISVERT_DEBUG=1`` shows the traceback).

``TAPISVERT_SCALE`` (a number in (0, 1]) multiplies every size — units,
budgets, report scale — for smoke tests of the documented commands.

Each verb is a module of :mod:`analysis.commands` (``add_parser``, ``run``); this one
builds the parser from them and is the one place errors leave the command.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from analysis.commands.common import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    SCALE_VARIABLE,
    Parser,
    UsageError,
    check_out_file,
    field_types,
    json_document,
    parse_assignment,
    parse_seats,
    parse_typed,
    parse_value,
    scaled,
    show,
    size_scale,
    typed_options,
    typed_params,
    write_table,
)
from analysis.commands.study import build_experiment, run_parser
from simulators.core.game import games, get_game, registered_names

__all__ = ["EXIT_INTERRUPTED", "EXIT_USAGE", "SCALE_VARIABLE", "Parser", "UsageError",
           "build_experiment", "build_parser", "check_out_file", "field_types",
           "json_document", "main", "parse_assignment", "parse_seats",
           "parse_typed", "parse_value", "scaled", "show", "size_scale", "typed_options",
           "typed_params", "write_table"]

VERBS = ("simulate", "compare", "sweep", "tune", "odds", "report", "solve", "learn",
         "env_check", "discovery")
"""The verb modules of :mod:`analysis.commands`, in the order ``tapisvert --help`` lists
their subcommands (imported when the parser is built)."""


def build_parser(game: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``tapisvert``.

    With ``game``, only that game is loaded and its units, options and odds
    question give the flags (the command line then starts without importing
    every game); without, every registered game does (full ``--help``).
    """
    scope = [get_game(game)] if game is not None else list(games().values())
    parser = Parser(
        prog="tapisvert", description="Monte Carlo strategy analysis for card games.",
        epilog="Errors print one line 'tapisvert: error: ...' and exit with status 2. "
               f"{SCALE_VARIABLE}=0.01 shrinks every size (smoke tests).")
    parser.add_argument("--version", action="version", version=f"tapisvert {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run_parent = run_parser()
    for verb in VERBS:
        module = importlib.import_module(f"analysis.commands.{verb}")
        module.add_parser(commands, scope, run_parent)
    return parser


def _version() -> str:
    from analysis.runner import _package_version

    return _package_version()


def _game_named(argv: list[str]) -> str | None:
    """The registered game a command line names (its second word), if any."""
    words = [w for w in argv if not w.startswith("-")][:2]
    return words[1] if len(words) == 2 and words[1] in registered_names() else None


def _parse(argv: list[str], args: argparse.Namespace) -> argparse.Namespace:
    """Parse with the named game's flags only; a flag of another game is then
    parsed with every game's flags, so the error names what the game lacks
    (e.g. "unit must be one of ...") rather than an unknown flag."""
    game = _game_named(argv)
    try:
        return build_parser(game).parse_args(argv, namespace=argparse.Namespace(**vars(args)))
    except UsageError as exc:
        if game is None or not str(exc).startswith("unrecognized arguments"):
            raise
        try:
            return build_parser(None).parse_args(argv, namespace=args)
        except UsageError:
            raise exc from None


def _fail(message: str, status: int = EXIT_USAGE) -> int:
    text = message.strip().splitlines()[0] if message.strip() else "failed"
    print(f"tapisvert: error: {text}", file=sys.stderr, flush=True)
    return status


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status. The one place errors leave the command."""
    if os.getcwd() not in sys.path:  # your own policy as module:Class, like python -m
        sys.path.append(os.getcwd())
    args = argparse.Namespace(resume_hint=None)
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = _parse(argv, args)
        text = args.run(args)
        print(text, flush=True)
        status = int(getattr(args, "exit_status", 0))  # a command whose checks failed: 1
    except SystemExit as exc:  # --help and --version
        return int(exc.code or 0) if not isinstance(exc.code, str) else _fail(exc.code)
    except ValueError as exc:  # usage, config and policy validation, IllegalAction
        return _fail(str(exc) or type(exc).__name__)
    except KeyboardInterrupt:
        hint = (f"; finished chunks are kept in {str(args.resume_hint)!r}: rerun the same "
                "command to resume" if args.resume_hint is not None else "")
        return _fail(f"interrupted{hint}", EXIT_INTERRUPTED)
    except BrokenPipeError:  # `tapisvert … | head`: the reader has gone, say nothing
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 (a bug: still one line, unless debugging)
        if os.environ.get("TAPISVERT_DEBUG"):
            raise
        return _fail(f"internal error, {type(exc).__name__}: {exc} (TAPISVERT_DEBUG=1 shows "
                     "the traceback; please report it)", 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
