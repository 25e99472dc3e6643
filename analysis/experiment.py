"""An experiment: one validated description of what to simulate.

It holds plain values only (game name, rule options, one policy name and
parameters per seat or for all, unit, size, seed), so it can be written to a
manifest or read from a TOML file, and rebuilt identically in a worker
process. Everything is validated at construction: a bad option, policy
name or parameter raises ``ValueError`` naming it.

TOML form::

    game = "bianco-mano"
    unit = "deals"          # or "games"
    size = 100000
    seed = 2026
    [options]
    n_players = 4
    bianco_mano = true
    [[policies]]            # one table, or one per seat
    name = "heuristic"
    params = { take_threshold = 4.5 }
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.games import game as game_adapter
from simulators.core.rng import root_entropy


def _pairs(mapping: Mapping[str, Any] | Sequence[tuple[str, Any]] | None) -> tuple:
    items = mapping.items() if isinstance(mapping, Mapping) else (mapping or ())
    return tuple(sorted((str(k), v) for k, v in items))


@dataclass(frozen=True)
class PolicySpec:
    """A policy by registry name with its parameters."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", _pairs(self.params))

    @classmethod
    def parse(cls, value: PolicySpec | str | Mapping[str, Any]) -> PolicySpec:
        """From a spec, a bare name, or ``{"name": ..., "params": {...}}``."""
        if isinstance(value, PolicySpec):
            return value
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, Mapping):
            unknown = set(value) - {"name", "params"}
            if unknown or "name" not in value:
                raise ValueError(f"a policy needs 'name' and optional 'params', got {dict(value)}")
            return cls(str(value["name"]), value.get("params", {}))
        raise ValueError(f"cannot read a policy from {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain form for manifests and TOML."""
        return {"name": self.name, "params": dict(self.params)}

    def label(self) -> str:
        """Short text, e.g. ``heuristic(take_threshold=4.5)``."""
        inner = ", ".join(f"{k}={v}" for k, v in self.params)
        return f"{self.name}({inner})" if inner else self.name


@dataclass(frozen=True)
class Experiment:
    """What to simulate: game, rule options, policies, unit, size and seed."""

    game: str = "bianco-mano"
    options: tuple[tuple[str, Any], ...] = ()
    policies: tuple[PolicySpec, ...] = (PolicySpec("heuristic"),)
    unit: str = "deals"
    size: int = 100_000
    seed: int = 2026

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", _pairs(self.options))
        policies = self.policies
        if isinstance(policies, str | Mapping | PolicySpec):
            policies = (policies,)
        object.__setattr__(self, "policies", tuple(PolicySpec.parse(p) for p in policies))
        adapter = game_adapter(self.game)
        if self.unit not in adapter.units:
            raise ValueError(f"unit must be one of {adapter.units} for {self.game}, "
                             f"got {self.unit!r}")
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 1:
            raise ValueError(f"size must be a positive integer, got {self.size!r}")
        root_entropy(self.seed)
        config = self.config()
        n = adapter.n_players(config)
        if len(self.policies) not in (1, n):
            raise ValueError(f"policies: give one policy or {n} (one per seat), "
                             f"got {len(self.policies)}")
        built = self.build_policies()
        adapter.check_policies(self.unit, built if isinstance(built, list) else [built])

    def config(self):
        """The game's validated rule config."""
        adapter = game_adapter(self.game)
        try:
            return adapter.make_config(**dict(self.options))
        except TypeError as exc:  # unknown keyword
            raise ValueError(f"unknown rule option for {self.game}: {exc}") from None

    def build_policies(self):
        """One policy object, or one per seat."""
        adapter = game_adapter(self.game)
        built = [adapter.make_policy(p.name, **dict(p.params)) for p in self.policies]
        return built[0] if len(built) == 1 else built

    def replace(self, **changes) -> Experiment:
        """A validated copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain form (manifests, TOML, worker processes)."""
        return {
            "game": self.game, "unit": self.unit, "size": self.size, "seed": self.seed,
            "options": dict(self.options), "policies": [p.to_dict() for p in self.policies],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Experiment:
        """Inverse of :meth:`to_dict`; unknown keys are errors."""
        known = {"game", "unit", "size", "seed", "options", "policies", "policy"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown experiment key(s): {', '.join(sorted(unknown))} "
                             f"(known: {', '.join(sorted(known))})")
        fields = dict(data)
        if "policy" in fields:
            if "policies" in fields:
                raise ValueError("give either 'policy' or 'policies', not both")
            fields["policies"] = (fields.pop("policy"),)
        if "policies" in fields and not isinstance(fields["policies"], str | Mapping):
            fields["policies"] = tuple(fields["policies"])
        return cls(**fields)

    @classmethod
    def from_toml(cls, path: str | Path) -> Experiment:
        """Read an experiment from a TOML file."""
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"config file not found: {str(path)!r}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"config file {str(path)!r} is not valid TOML: {exc}") from None
        return cls.from_dict(data)
