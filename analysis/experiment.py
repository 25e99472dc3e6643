"""An experiment: one validated description of what to simulate.

It holds objects, not strings: the :class:`~simulators.core.game.Game`, its
validated rule config, the policy objects (one, or one per seat), the unit,
the size and the seed. It is validated once, when built; workers get
the objects themselves (the game travels by name, see ``Game.__reduce__``).
Plain values appear only at the edges: :meth:`Experiment.from_dict` /
:meth:`Experiment.from_toml` in, :meth:`Experiment.to_dict` out (manifests).

TOML form::

    game = "<a registered game>"
    unit = "deals"          # one of the game's units
    size = 100000
    seed = 2026
    [options]               # fields of the game's config dataclass
    n_players = 4
    [[policies]]            # one table, or one per seat
    name = "heuristic"      # a registered name, or an import path "pkg.module:Class"
    params = { take_threshold = 4.5 }
"""

from __future__ import annotations

import dataclasses
import importlib
import numbers
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulators.core.game import Game, Unit, get_game
from simulators.core.params import Policy
from simulators.core.rng import DEFAULT_SEED, MAX_UNITS, root_entropy

KEYS = ("game", "unit", "size", "seed", "options", "policies", "policy")


def policy_name(game: Game, policy: Policy) -> str:
    """The registry name of a policy's class, or its import path ``module:Class``."""
    for name, cls in game.policies.items():
        if type(policy) is cls:
            return name
    return f"{type(policy).__module__}:{type(policy).__qualname__}"


def build_policy(game: Game, spec: str | Mapping[str, Any] | Policy) -> Policy:
    """A policy from a name, ``{"name": ..., "params": {...}}``, or a policy object."""
    if isinstance(spec, Policy):
        return spec
    if isinstance(spec, str):
        name, params = spec, {}
    elif isinstance(spec, Mapping):
        unknown = set(spec) - {"name", "params"}
        if unknown or "name" not in spec:
            raise ValueError(f"a policy needs 'name' and optional 'params', got {dict(spec)}")
        name, params = str(spec["name"]), dict(spec.get("params") or {})
    else:
        raise ValueError(f"cannot read a policy from {spec!r}")
    if ":" not in name:
        return game.make_policy(name, **params)
    module, _, qualname = name.partition(":")
    cls: Any = _import_user_module(module)
    try:
        for part in qualname.split("."):
            cls = getattr(cls, part)
    except AttributeError as exc:
        raise ValueError(f"cannot import policy {name!r}: {exc}") from None
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise ValueError(f"policy {name!r} is not a Policy subclass")
    return cls.from_params(**params)


def _import_user_module(module: str):
    """A user's module, its own error (a syntax error, an exception raised while it is
    imported) in a one-line ``ValueError``; no ``__pycache__`` is written beside it, so a
    command refused for it leaves the directory as it was."""
    previous = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        return importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 (any error of the user's code is his to fix)
        raise ValueError(f"cannot import {module}: {type(exc).__name__}: {exc}") from None
    finally:
        sys.dont_write_bytecode = previous


def policy_label(game: Game, policy: Policy) -> str:
    """Short text, e.g. ``heuristic(take_threshold=4.5)`` (only non-default parameters)."""
    defaults = {k: v["default"] for k, v in policy.parameters().items()}
    changed = ", ".join(f"{k}={v}" for k, v in policy.get_params().items() if defaults[k] != v)
    name = policy_name(game, policy)
    return f"{name}({changed})" if changed else name


@dataclass(frozen=True, eq=False)
class Experiment:
    """What to simulate: game, rule config, policies, unit, size and seed; validated once.

    Every field takes the object or its plain form, normalised when built:
    ``game`` a Game or its name; ``config`` a config object, a mapping of rule
    options, or None (the rules' defaults); ``policies`` a policy, a name,
    ``{"name": ..., "params": {...}}`` or a sequence of those (one for every
    seat, or one per seat), None for the game's default policy; ``unit`` a
    Unit or its name, None for the game's first; ``size`` None for the unit's
    default. ``Experiment(name, size=1000)`` is 1,000 units of the first unit, defaults
    """

    game: Game
    config: Any = None
    policies: tuple[Policy, ...] = None  # type: ignore[assignment]
    unit: Unit = None  # type: ignore[assignment]
    size: int = None  # type: ignore[assignment]
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        game = get_game(self.game)
        unit = game.units[0] if self.unit is None else (
            game.unit(self.unit) if isinstance(self.unit, str) else self.unit)
        config = self.config
        if config is None or isinstance(config, Mapping):
            config = game.make_config(**dict(config or {}))
        policies = self.policies
        if policies is None:
            usable = [n for n, cls in game.policies.items()
                      if all(callable(getattr(cls, m, None)) for m in unit.policy_methods)]
            policies = game.default_policy if game.default_policy in usable or not usable \
                else usable[0]
        if isinstance(policies, str | Mapping | Policy):
            policies = (policies,)
        policies = tuple(build_policy(game, p) for p in policies)
        size = unit.default_size if self.size is None else self.size
        for key, value in (("game", game), ("unit", unit), ("config", config),
                           ("policies", policies), ("size", size)):
            object.__setattr__(self, key, value)
        if not isinstance(self.config, game.config):
            raise ValueError(f"config must be a {game.config.__name__}, "
                             f"got {type(self.config).__name__}")
        if unit not in game.units:
            raise ValueError(f"unit {unit.name!r} is not a unit of {game.name}")
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
            raise ValueError(f"size must be a positive integer, got {size!r}")
        if size > MAX_UNITS:
            raise ValueError(f"size must be at most {MAX_UNITS:,} (unit ids are 64-bit), "
                             f"got {size!r}")
        object.__setattr__(self, "size", int(size))
        root_entropy(self.seed)
        seats = self.seats
        if len(policies) not in (1, seats):
            raise ValueError(f"policies: give one policy or {seats} (one per seat), "
                             f"got {len(policies)}")
        for p in policies:
            missing = [m for m in unit.policy_methods if not callable(getattr(p, m, None))]
            if missing:
                raise ValueError(f"policy {policy_label(game, p)} cannot play {game.name} "
                                 f"{unit.name}: it lacks {', '.join(missing)}")

    # Pickled by names and objects: the game and unit are looked up again by name.
    def __getstate__(self):
        return (self.game.name, self.unit.name, self.config, self.policies, self.size, self.seed)

    def __setstate__(self, state) -> None:
        name, unit, config, policies, size, seed = state
        game = get_game(name)
        for key, value in (("game", game), ("unit", game.unit(unit)), ("config", config),
                           ("policies", policies), ("size", size), ("seed", seed)):
            object.__setattr__(self, key, value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Experiment) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(repr(self.to_dict()))

    @classmethod
    def create(cls, game: str | Game, *, options: Mapping[str, Any] | None = None,
               policies: Any = None, unit: str | None = None, size: int | None = None,
               seed: int = DEFAULT_SEED) -> Experiment:
        """From names and plain values: the game's unit and policy names, rule options."""
        return cls(game, dict(options or {}), policies, unit, size, seed)

    @property
    def seats(self) -> int:
        """Seats the unit is played with."""
        return self.game.seats(self.unit, self.config)

    @property
    def options(self) -> dict[str, Any]:
        """Rule options that differ from the config's defaults."""
        default = self.game.config()
        return {f.name: getattr(self.config, f.name) for f in dataclasses.fields(self.config)
                if getattr(self.config, f.name) != getattr(default, f.name)}

    def play_policies(self):
        """What the game's ``play`` functions take: one policy, or a tuple per seat."""
        return self.policies[0] if len(self.policies) == 1 else self.policies

    def per_seat(self) -> tuple[Policy, ...]:
        """One policy per seat."""
        return self.policies * self.seats if len(self.policies) == 1 else self.policies

    def play(self, first: int, count: int):
        """Play units ``first .. first + count - 1``: the unit's tables."""
        return self.unit.play(self.config, self.play_policies(), first, count, self.seed)

    def replace(self, **changes) -> Experiment:
        """A validated copy; ``options=`` changes rule options, ``unit=`` takes a name."""
        options = changes.pop("options", None)
        if options is not None:
            changes["config"] = self.game.make_config(**{**_fields(self.config), **options})
        return dataclasses.replace(self, **changes)

    def labels(self) -> str:
        """The policies as short text, e.g. ``heuristic`` or ``heuristic, random, …``."""
        return ", ".join(policy_label(self.game, p) for p in self.policies)

    def to_dict(self) -> dict[str, Any]:
        """Plain form (manifests, TOML): every rule option, every policy parameter."""
        return {
            "game": self.game.name, "unit": self.unit.name, "size": self.size,
            "seed": int(self.seed), "options": _fields(self.config),
            "policies": [{"name": policy_name(self.game, p), "params": p.get_params()}
                         for p in self.policies],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Experiment:
        """Inverse of :meth:`to_dict`; unknown keys are errors."""
        unknown = set(data) - set(KEYS)
        if unknown:
            raise ValueError(f"unknown experiment key(s): {', '.join(sorted(unknown))} "
                             f"(known: {', '.join(sorted(KEYS))})")
        fields = dict(data)
        if "policy" in fields:
            if "policies" in fields:
                raise ValueError("give either 'policy' or 'policies', not both")
            fields["policies"] = fields.pop("policy")
        options = fields.pop("options", None)
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"options must be a table of rule options, got {options!r}")
        if "game" not in fields:
            raise ValueError("an experiment needs its game (game = \"...\")")
        return cls.create(fields.pop("game"), options=options, **fields)

    @classmethod
    def from_toml(cls, path: str | Path) -> Experiment:
        """Read an experiment from a TOML file."""
        return cls.from_dict(read_toml(path))


def _fields(config) -> dict[str, Any]:
    values = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}


def read_toml(path: str | Path) -> dict[str, Any]:
    """A TOML file as a dict, or a ValueError naming the file."""
    path = Path(path)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"config file not found: {str(path)!r}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read config file {str(path)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"config file {str(path)!r} is not valid TOML: {exc}") from None


def seat_experiment(base: Experiment, candidate: Policy, baseline: Policy,
                    seats: Sequence[int]) -> Experiment:
    """``base`` with ``candidate`` at ``seats`` and ``baseline`` elsewhere."""
    seats = check_seats(seats, base.seats)
    check_one_side(base.game, base.config, seats)
    return dataclasses.replace(base, policies=tuple(candidate if s in seats else baseline
                                                     for s in range(base.seats)))


def check_seats(seats: Sequence[int], n: int) -> tuple[int, ...]:
    """Distinct seat numbers in ``0..n-1``, sorted."""
    seats = tuple(sorted(set(int(s) for s in seats)))
    if not seats or seats[0] < 0 or seats[-1] >= n:
        raise ValueError(f"seats must be distinct seat numbers in 0..{n - 1}, got {seats}")
    return seats


def check_one_side(game: Game, config, seats: Sequence[int]) -> None:
    """Seats under study within one of the game's partnerships (``Game.partnerships``):
    seats of two sides share out a zero-sum score, so their sum is the same for any policy
    and would compare nothing."""
    teams = game.teams(config)
    sides = {i for i, team in enumerate(teams) for s in seats if s in team}
    if len(sides) > 1:
        shown = " against ".join(",".join(map(str, team)) for team in teams)
        raise ValueError(f"seats {','.join(map(str, sorted(seats)))} sit on both sides of "
                         f"{game.name}'s partnerships ({shown}): give seats of one side")
