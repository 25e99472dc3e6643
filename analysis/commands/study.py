"""What the study verbs (simulate, compare, sweep, tune, odds) share: the experiment and
executor flags (their parent parsers) and the experiment and run options they give."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from analysis.commands.common import (
    Parser,
    UsageError,
    check_at_most,
    scaled,
    typed_options,
    typed_params,
)
from simulators.core.game import Game, get_game, registered_names
from simulators.core.rng import DEFAULT_SEED


def unit_flags(scope: list[Game]) -> dict[str, str]:
    """Every unit name of the games in scope -> the games that have it."""
    found: dict[str, list[str]] = {}
    for game in scope:
        for unit in game.units:
            found.setdefault(unit.name, []).append(game.name)
    return {name: ", ".join(owners) for name, owners in found.items()}


def has_player_counts(game: Game) -> bool:
    """Whether the number of players is a rule option of the game (not a fixed count)."""
    return "n_players" in {f.name for f in dataclasses.fields(game.config)}


def policy_class(game: Game, name: str | None, fallback, flag: str = "--policy") -> type:
    if name is None:
        return type(fallback)
    if name in game.policies:
        return game.policies[name]
    from analysis.experiment import build_policy

    try:
        return type(build_policy(game, name))
    except ValueError as exc:
        if ":" not in name:  # a registered name: the registry's message names the choices
            raise
        raise UsageError(f"{flag} {name}: {exc}") from None


def build_experiment(args: argparse.Namespace):
    """The experiment described by --config and the flags (flags win); conflicts refused."""
    from analysis.experiment import Experiment, read_toml

    game = get_game(args.game)
    data: dict[str, Any] = {}
    if args.config is not None:
        data = read_toml(args.config)
        if data.get("game", game.name) != game.name:
            raise UsageError(f"--config is for {data['game']!r}, not {game.name!r}")
        Experiment.from_dict({**data, "game": game.name})  # the file alone, naming its errors
    data["game"] = game.name
    options = dict(data.get("options", {}))
    flagged = typed_options(game, args.option)
    if not has_player_counts(game):
        fixed = game.seats(game.units[0], game.make_config())
        if getattr(args, "players", None) is not None:
            raise UsageError(f"{game.name} is always played by {fixed} players: drop --players")
        if "n_players" in options:
            raise UsageError(f"{game.name} is always played by {fixed} players: the config "
                             f"sets n_players = {options['n_players']!r}")
    if getattr(args, "players", None) is not None:
        if "n_players" in flagged:
            raise UsageError("give the number of players once: --players or --option n_players")
        flagged["n_players"] = args.players
    options.update(flagged)
    data["options"] = options
    chosen = [(key.removeprefix("unit_"), value) for key, value in vars(args).items()
              if key.startswith("unit_") and value is not None]
    if chosen:
        unit, size = chosen[0]
        game.unit(unit)
        if size < 1:
            raise UsageError(f"--{unit} must be a positive number, got {size}")
        check_at_most(f"--{unit}", size)
        data.update(unit=unit, size=size)
    elif "size" not in data:
        data["size"] = args.default_size
    if isinstance(data.get("size"), int) and not isinstance(data["size"], bool):
        data["size"] = scaled(data["size"])
    if args.seed is not None:
        data["seed"] = args.seed
    if args.policy is not None or args.param:
        current = data.get("policies", data.pop("policy", None)) or [{"name": game.default_policy}]
        current = [current] if isinstance(current, str | dict) else list(current)
        if len(current) != 1 and args.policy is None:
            raise UsageError("--param needs --policy when the config gives one policy per seat")
        first = current[0] if isinstance(current[0], dict) else {"name": current[0]}
        name = args.policy or first["name"]
        params = dict(first.get("params", {})) if args.policy is None else {}
        params.update(typed_params(policy_class(game, name, None), args.param, "--param"))
        data.pop("policy", None)
        data["policies"] = [{"name": name, "params": params}]
    experiment = Experiment.from_dict(data)
    ignored = [o for o in getattr(experiment.unit, "ignores", ()) if o in options]
    if ignored:
        raise UsageError(f"option {ignored[0]} has no effect on {game.name} "
                         f"{experiment.unit.name}: drop it, or choose another unit")
    return experiment


def check_partners(experiment, seats, where: str = "") -> None:
    """--seats within one of the game's partnerships (analysis.experiment.check_one_side)."""
    from analysis.experiment import check_one_side

    try:
        check_one_side(experiment.game, experiment.config, seats)
    except ValueError as exc:
        raise UsageError(f"--seats: {exc}{where}") from None


def policy_from(experiment, name: str | None, params: list[str], flag: str, fallback):
    if name is None and not params:
        return fallback
    from analysis.experiment import build_policy

    game = experiment.game
    cls = policy_class(game, name, fallback, flag.removesuffix("-param"))
    base = fallback.get_params() if name is None else {}
    return build_policy(game, {"name": name or registry_name(game, fallback),
                               "params": {**base, **typed_params(cls, params, flag)}})


def registry_name(game: Game, policy) -> str:
    from analysis.experiment import policy_name

    return policy_name(game, policy)


def policy_spec(experiment, policy) -> dict[str, Any]:
    from analysis.experiment import policy_name

    return {"name": policy_name(experiment.game, policy), "params": policy.get_params()}


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The executor's options of a study command, checked before any work."""
    from analysis.runner import check_n_jobs, check_run_dir

    if args.scheduler is not None and args.backend != "dask":
        raise UsageError("--scheduler needs --backend dask")
    if args.backend == "dask" and args.scheduler is None:
        raise UsageError("--backend dask needs --scheduler tcp://HOST:PORT")
    try:
        check_n_jobs(args.n_jobs, args.backend)
    except ValueError as exc:
        raise UsageError(f"--{exc}".replace("--n_jobs", "--n-jobs")) from None
    if args.chunk_size is not None and args.chunk_size < 1:
        raise UsageError(f"--chunk-size must be a positive integer, got {args.chunk_size}")
    if args.out_dir is not None:
        check_run_dir(args.out_dir)
        args.resume_hint = args.out_dir
    return {"n_jobs": args.n_jobs, "chunk_size": args.chunk_size, "progress": args.progress,
            "backend": args.backend, "scheduler": args.scheduler}


def study_dir_line(out_dir: Path) -> str:
    """Where a study is kept, its units and time over every session, and how to resume."""
    import json

    from analysis.runner import MANIFEST, sessions_text

    manifest = json.loads((out_dir / MANIFEST).read_text())
    return (f"study directory: {out_dir}: {manifest['units_done']} units "
            f"{sessions_text(manifest)} (rerun the same command to resume; a larger size "
            "extends it)")


def _examples(scope: list[Game]) -> tuple[str, str]:
    """``--param`` and ``--option`` examples from the registry of the game in scope (the
    first game's, naming it, when the parser serves every game); a game whose default
    policy has no parameter, or whose config no number or switch, gets ``NAME=VALUE``."""
    game = scope[0]
    where = "" if len(scope) == 1 else f" for {game.name}"
    params = list(game.policies[game.default_policy].parameters().items())
    params.sort(key=lambda item: isinstance(item[1]["default"], bool))  # numbers first
    param = f"{params[0][0]}={params[0][1]['default']}{where}" if params else "NAME=VALUE"
    fields = [f for f in dataclasses.fields(game.config)
              if isinstance(f.default, bool | int) and f.name != "seed"]
    if not fields:
        return param, "NAME=VALUE"
    shown = fields[0].default if not isinstance(fields[0].default, bool) else \
        not fields[0].default
    option = f"{fields[0].name}={str(shown).lower() if isinstance(shown, bool) else shown}"
    return param, f"{option}{where}"


def experiment_parser(default_size: int, scope: list[Game]) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("game", choices=registered_names())
    parent.add_argument("--config", type=Path, help="experiment TOML file (flags override it)")
    counted = [g for g in scope if has_player_counts(g)]
    if counted:
        parent.add_argument("--players", type=int,
                            help="number of players (rule option n_players)" + (
                                "" if len(scope) == 1 else
                                f"; games with a choice: {', '.join(g.name for g in counted)}"))
    param_example, option_example = _examples(scope)
    size = parent.add_mutually_exclusive_group()
    for unit, owners in unit_flags(scope).items():
        size.add_argument(f"--{unit}", type=int, dest=f"unit_{unit}", metavar="N",
                          help=f"play N {unit} ({owners})")
    parent.add_argument("--seed", type=int, help=f"root seed (default {DEFAULT_SEED})")
    parent.add_argument("--policy", help="policy for every seat: a registered name "
                                         "(tapisvert policies GAME) or your class, "
                                         "module:Class")
    parent.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help=f"policy parameter, repeatable (e.g. {param_example}); the list: "
                             "tapisvert policies GAME")
    parent.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help=f"rule option, repeatable (e.g. {option_example}); the list: "
                             "tapisvert options GAME")
    parent.set_defaults(default_size=default_size)
    return parent


def run_parser(json: bool = True) -> argparse.ArgumentParser:
    """The executor's flags, the same for every study (analysis.runner); ``json=False``
    leaves ``--json`` to the command (``solve`` takes it before and after the game)."""
    parent = Parser(add_help=False)
    parent.add_argument("--n-jobs", type=int, default=1, help="worker processes (-1: all cores)")
    parent.add_argument("--chunk-size", type=int, help="units per chunk")
    parent.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar (default: when stderr is a terminal)")
    parent.add_argument("--out-dir", type=Path,
                        help="keep the run (manifest + Parquet parts); rerun the same command "
                             "to resume, with a larger size to extend")
    parent.add_argument("--backend", default="loky", choices=("loky", "threading", "dask"))
    parent.add_argument("--scheduler", help="Dask scheduler address, tcp://HOST:PORT "
                                            "(with --backend dask)")
    if json:
        parent.add_argument("--json", action="store_true",
                            help="print one JSON document {rows, experiment, seconds} instead "
                                 "of the table")
    return parent
