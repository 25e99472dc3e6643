"""``tapisvert games``, ``options GAME`` and ``policies GAME``: what can be asked for."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from analysis.commands.common import field_types
from simulators.core.game import games, get_game, registered_names


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def option_docs(config: type) -> dict[str, str]:
    """Each rule option's text from the config's numpydoc ``Parameters`` section."""
    docs: dict[str, str] = {}
    current = None
    names = {f.name for f in dataclasses.fields(config)}
    for line in (config.__doc__ or "").splitlines():
        head, sep, rest = line.strip().partition(" : ")
        if sep and head in names:
            current = head
            docs[current] = rest.strip()
        elif current and line.strip() and line.startswith(" " * 8):
            docs[current] += " " + line.strip()
        elif not line.strip():
            current = None
    return docs


def list_games(args: argparse.Namespace) -> str:
    lines = []
    for game in games().values():
        lines.append(f"{game.name}: {game.title}   (rules: {game.rules_doc or 'docs/rules'})")
        for unit in game.units:
            lines.append(f"  --{unit.name} N   {unit.doc or unit.singular}; score = {unit.score}")
        lines.append(f"  policies: {', '.join(game.policies)} (default {game.default_policy})"
                     f"; odds: {'yes' if game.odds else 'no'}")
    lines.append("More: tapisvert options GAME, tapisvert policies GAME")
    return "\n".join(lines)


def list_options(args: argparse.Namespace) -> str:
    game = get_game(args.game)
    default = game.config()
    docs = option_docs(game.config)
    kinds = field_types(game.config)
    lines = [f"Rule options of {game.title} (--option NAME=VALUE, or [options] in --config):"]
    for f in dataclasses.fields(game.config):
        kind = getattr(kinds[f.name], "__name__", str(kinds[f.name]))
        lines.append(f"  {f.name} ({kind}, default {getattr(default, f.name)!r}): "
                     f"{docs.get(f.name, '')}")
        ignored = [u.name for u in game.units if f.name in getattr(u, "ignores", ())]
        if ignored:
            lines[-1] += f" [no effect on {', '.join(ignored)}]"
    return "\n".join(lines)


def _only_with_text(spec: dict[str, Any]) -> str:
    """`` [only with card_call=false]`` for a parameter one mode of the policy reads."""
    needs = spec.get("only_with")
    if not needs:
        return ""
    return " [only with " + ", ".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in needs.items()) + "]"


def list_policies(args: argparse.Namespace) -> str:
    game = get_game(args.game)
    lines = [f"Policies of {game.title} (--policy NAME --param NAME=VALUE; your own class: "
             "--policy module:Class):"]
    for name, cls in game.policies.items():
        lines.append(f"  {name}{' (default)' if name == game.default_policy else ''}: "
                     f"{_first_line(cls.__doc__)}")
        for pname, spec in cls.parameters().items():
            bounds = ("" if spec["low"] is None and spec["high"] is None
                      else f", {spec['low']}..{spec['high']}")
            lines.append(f"      {pname} (default {spec['default']!r}{bounds}): {spec['doc']}"
                         + _only_with_text(spec))
    return "\n".join(lines)


def add_parser(commands, scope, run_parent) -> None:
    """games, options GAME, policies GAME: what can be simulated, and how."""
    listing = commands.add_parser("games", help="the registered games, their units and scores")
    listing.set_defaults(run=list_games)
    for name, helptext, lister in (("options", "a game's rule options: types, defaults, docs",
                                    list_options),
                                   ("policies", "a game's policies and their parameters (ranges, "
                                                "docs)", list_policies)):
        sub = commands.add_parser(name, help=helptext)
        sub.add_argument("game", choices=registered_names())
        sub.set_defaults(run=lister)


def run(args: argparse.Namespace) -> str:
    """``games``, ``options GAME`` or ``policies GAME``, whichever the command line names."""
    listing = {"games": list_games, "options": list_options, "policies": list_policies}
    return listing[args.command](args)
