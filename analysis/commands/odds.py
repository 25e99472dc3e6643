"""``tapisvert odds GAME``: my odds in a given situation, each decision played on the same
deals; the flags are the odds question's fields of the games in scope."""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Any

from analysis.commands.common import UsageError, field_types, json_document, parse_typed, show
from analysis.commands.study import (
    build_experiment,
    experiment_parser,
    run_options,
    study_dir_line,
)
from simulators.core.game import Game, get_game


def _question_fields(scope: list[Game]) -> dict[str, tuple[Any, str, bool]]:
    """Every odds-question field of the games in scope -> (type, doc, required somewhere)."""
    found: dict[str, tuple[Any, str, bool]] = {}
    for game in scope:
        if game.odds is None:
            continue
        kinds = field_types(game.odds.question)
        for f in dataclasses.fields(game.odds.question):
            required = (f.default is dataclasses.MISSING
                        and f.default_factory is dataclasses.MISSING)
            doc = f.metadata.get("doc", "")
            card = game.odds.cards.get(f.name)
            if card is not None and card.example and card.example not in doc:
                doc += f' (e.g. "{card.example}")'
            found.setdefault(f.name, (kinds[f.name], doc, required))
    return found


def _question(game: Game, values: dict[str, Any]):
    """The odds question; its own refusal names the flag of the field it starts with
    (``worlds ...`` -> ``--worlds ...``)."""
    try:
        return game.odds.question(**values)
    except ValueError as exc:
        text = str(exc)
        for f in dataclasses.fields(game.odds.question):
            if text.startswith((f"{f.name} ", f"{f.name}:")):
                text = f"--{f.name.replace('_', '-')}{text[len(f.name):]}"
                break
        raise UsageError(text) from None


def run(args: argparse.Namespace) -> str:
    from analysis.odds import odds, verdict

    game = get_game(args.game)
    if game.odds is None:
        raise UsageError(f"odds is not available for {game.name}")
    others = [key.removeprefix("unit_") for key, value in vars(args).items()
              if key.startswith("unit_") and value is not None
              and key != f"unit_{game.units[0].name}"]
    if others:
        raise UsageError(f"odds plays single {game.units[0].name}: give "
                         f"--{game.units[0].name} N (per decision), not --{others[0]}")
    experiment = build_experiment(args)
    kinds = field_types(game.odds.question)
    values = {}
    for f in dataclasses.fields(game.odds.question):
        raw = getattr(args, f"question_{f.name}", None)
        if raw is None:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise UsageError(f"odds {game.name} needs --{f.name.replace('_', '-')}")
            continue
        values[f.name] = parse_typed(raw, kinds[f.name], f"--{f.name}")
    extra = [key.removeprefix("question_") for key, value in vars(args).items()
             if key.startswith("question_") and value is not None
             and key.removeprefix("question_") not in kinds]
    if extra:
        raise UsageError(f"odds {game.name} does not take --{extra[0].replace('_', '-')}")
    question = _question(game, values)
    understood = game.odds.understood(question)  # every card argument read, before any work
    heading = game.odds.describe(experiment.config, question)
    options = run_options(args)
    started = time.perf_counter()
    table = odds(experiment, question, out_dir=args.out_dir, **options)
    if args.json:
        return json_document(table, {**experiment.to_dict(),
                                     "question": dataclasses.asdict(question),
                                     "understood": understood},
                             time.perf_counter() - started, heading=heading)
    lines = [heading]
    if understood:
        lines.append("read as: " + "; ".join(f"--{k.replace('_', '-')} {v!r}"
                                             for k, v in understood.items()))
    lines.append(show(table))
    said = verdict(experiment, question, table)
    if said:
        lines.append(said)
    if args.out_dir is not None:
        lines.append(study_dir_line(args.out_dir))
    return "\n".join(lines)


def add_parser(commands, scope, run_parent) -> None:
    """The ``odds`` subcommand's flags: the question fields of the games in scope."""
    odds_help = ("my odds in a given situation: each decision (take or pass, stop or draw, "
                 "play or ask, take the discard or draw) played on the same deals, with 95%% "
                 "intervals; tapisvert odds GAME --help lists that game's question")
    odds = commands.add_parser("odds", parents=[experiment_parser(20_000, scope), run_parent],
                               help=odds_help, description=odds_help)
    for name, (_kind, doc, _required) in _question_fields(scope).items():
        odds.add_argument(f"--{name.replace('_', '-')}", dest=f"question_{name}", help=doc)
    odds.set_defaults(run=run)
