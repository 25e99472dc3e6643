"""``tapisvert env-check GAME``: PettingZoo's and OpenSpiel's own tests on the game's
environments."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import polars as pl

from analysis.commands.common import (
    UsageError,
    json_document,
    parse_assignment,
    parse_typed,
)
from simulators.core.game import get_game, registered_names
from simulators.core.rng import DEFAULT_SEED


def run(args: argparse.Namespace) -> str:
    """tapisvert env-check GAME: PettingZoo's and OpenSpiel's own tests on the game's
    environments (simulators.core.rl.check), one line per check; exit 1 if one fails."""
    from simulators.core.steps import step_parameters

    game = get_game(args.game)
    if game.steps is None:
        raise UsageError(f"{game.name} has no step-by-step game yet (Game.steps is not "
                         "declared): there is no environment to check")
    if args.games < 1:
        raise UsageError(f"--games must be >= 1, got {args.games}")
    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
    defaults = step_parameters(game)  # rule options and the step game's own, with defaults
    options: dict[str, Any] = {}
    for text in args.option:
        name, raw = parse_assignment(text, "--option")
        if name not in defaults:
            raise UsageError(f"unknown option for {game.name}'s environments: {name!r} "
                             f"(options: {', '.join(defaults)})")
        options[name] = parse_typed(raw, type(defaults[name]), f"option {name}")
    try:
        from simulators.core.rl.check import run_checks
    except ImportError as error:  # the [rl] extra is missing: the message says how to add it
        raise UsageError(str(error)) from None
    started = time.perf_counter()
    results = run_checks(game, options, games=args.games, seed=args.seed,
                         progress=lambda message: print(f"  {game.name}: {message}",
                                                        file=sys.stderr, flush=True))
    failed = [r.name for r in results if not r.passed]
    args.exit_status = 1 if failed else 0
    if args.json:
        rows = pl.DataFrame([{"check": r.name, "passed": r.passed, "detail": r.detail,
                              "seconds": round(r.seconds, 3)} for r in results])
        experiment = {"game": game.name, "options": {**defaults, **options},
                      "games": args.games, "seed": args.seed}
        return json_document(rows, experiment, time.perf_counter() - started)
    verdict = (f"{len(failed)} of {len(results)} checks failed: {', '.join(failed)}" if failed
               else f"all {len(results)} checks passed")
    return "\n".join([*(r.line() for r in results), verdict])


def add_parser(commands, scope, run_parent) -> None:
    """env-check GAME: the game-AI environments through their libraries' own tests."""
    env = commands.add_parser("env-check", help="PettingZoo's api_test and seed_test and "
                                                "OpenSpiel's checks on a game's environments "
                                                "(needs: pip install -e \".[rl]\")")
    env.add_argument("game", choices=registered_names())
    env.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                     help="rule option or environment option, repeatable (docs/envs.md)")
    env.add_argument("--games", type=int, default=100,
                     help="random units per simulation check (default 100)")
    env.add_argument("--seed", type=int, default=DEFAULT_SEED,
                     help=f"root seed (default {DEFAULT_SEED})")
    env.add_argument("--json", action="store_true",
                     help="print one JSON document {rows, experiment, seconds}")
    env.set_defaults(run=run)
