"""Named, validated parameters for policies (scikit-learn style).

A policy is a frozen dataclass whose fields are its parameters, declared with
:func:`param`. Values are stored verbatim and checked once at construction::

    @dataclass(frozen=True)
    class Greedy(Policy):
        threshold: float = param(20.0, low=0, high=75, doc="points needed to take")

``Greedy(threshold=90)`` raises ``ValueError: Greedy.threshold must be in
[0, 75], got 90``; ``Greedy.from_params(thresold=1)`` names the unknown key.
A chance or share is declared with :func:`probability`, which fixes its range
at [0, 1]::

    take_probability: float = probability(0.5, "probability of taking")

A parameter that one mode of the policy reads and the others ignore says so
with ``only_with`` (the other parameters' values it needs); a value other
than its default in a mode that ignores it is refused rather than ignored::

    margin: float = param(0.0, low=-12, high=12, only_with={"card_call": False})
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any, ClassVar


def param(default: Any, *, low: float | None = None, high: float | None = None, doc: str = "",
          only_with: dict[str, Any] | None = None):
    """Declare a policy parameter with an inclusive range and a one-line doc; ``only_with``
    names the other parameters' values under which it is read (see the module docstring)."""
    metadata = {"low": low, "high": high, "doc": doc}
    if only_with:
        metadata["only_with"] = dict(only_with)
    return dataclasses.field(default=default, metadata=metadata)


def probability(default: float, doc: str):
    """Declare a probability parameter: a number in [0, 1] (``param`` with that range)."""
    return param(default, low=0.0, high=1.0, doc=doc)


def _check_value(owner: str, field: dataclasses.Field, value: Any) -> None:
    kind = type(field.default)
    where = f"{owner}.{field.name}"
    if kind is bool:
        if not isinstance(value, bool | int) or value not in (0, 1):
            raise ValueError(f"{where} must be true or false, got {value!r}")
        return
    if kind is int and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
        raise ValueError(f"{where} must be an integer, got {value!r}")
    if kind is float and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        raise ValueError(f"{where} must be a number, got {value!r}")
    low, high = field.metadata.get("low"), field.metadata.get("high")
    if value != value or (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{where} must be in [{low}, {high}], got {value!r}")


def _text(value: Any) -> str:
    """A parameter value as written on the command line (``false``, not ``False``)."""
    return str(value).lower() if isinstance(value, bool) else repr(value)


def _check_applies(policy: Any, field: dataclasses.Field) -> None:
    """A value set for a parameter that the policy's mode ignores is refused, naming the
    parameter, its range and the mode it needs (``param(only_with=...)``)."""
    needs = field.metadata.get("only_with")
    value = getattr(policy, field.name)
    if not needs or value == field.default:
        return
    unmet = {k: v for k, v in needs.items() if getattr(policy, k) != v}
    if unmet:
        owner = type(policy).__name__
        low, high = field.metadata.get("low"), field.metadata.get("high")
        bounds = "" if low is None and high is None else f" (range [{low}, {high}])"
        wanted = ", ".join(f"{k}={_text(v)}" for k, v in needs.items())
        current = ", ".join(f"{k}={_text(getattr(policy, k))}" for k in unmet)
        raise ValueError(f"{owner}.{field.name}{bounds} is read only with {wanted}; "
                         f"{current} ignores it (got {_text(value)}): drop it, or set {wanted}")


class Policy:
    """Base class of all policies: named numeric parameters, validated.

    Subclasses are ``@dataclass(frozen=True)``; each game documents the
    decision methods a policy implements (arrays in, arrays out).
    ``uses_noise`` tells the engine to hand the policy one uniform per row
    and decision, drawn from a stream that never changes the deals.
    """

    uses_noise: ClassVar[bool] = False
    units_per_chunk: ClassVar[int | None] = None
    """A slow policy's hint (e.g. a search at every decision): the runner's default chunk
    holds at most this many units, so ``--n-jobs`` shares even a small run."""
    costly: ClassVar[bool] = False
    """True for a policy whose decisions cost far more than slicing an observation (a
    search per row): at a table of several policies it is asked about its own rows only."""

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            _check_value(type(self).__name__, field, getattr(self, field.name))
        for field in dataclasses.fields(self):
            _check_applies(self, field)

    @classmethod
    def parameters(cls) -> dict[str, dict[str, Any]]:
        """Each parameter's default, range and doc (and ``only_with``, where declared)."""
        return {
            f.name: {"default": f.default, "low": f.metadata.get("low"),
                     "high": f.metadata.get("high"), "doc": f.metadata.get("doc", ""),
                     **({"only_with": f.metadata["only_with"]} if "only_with" in f.metadata
                        else {})}
            for f in dataclasses.fields(cls)
        }

    @classmethod
    def from_params(cls, **params: Any) -> Policy:
        """Build from keyword parameters, naming any unknown one."""
        known = {f.name for f in dataclasses.fields(cls)}
        for key in params:
            if key not in known:
                raise ValueError(
                    f"{cls.__name__} has no parameter {key!r} "
                    f"(parameters: {', '.join(sorted(known)) or 'none'})"
                )
        return cls(**params)

    def get_params(self) -> dict[str, Any]:
        """Parameters as given (scikit-learn's get_params)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def policy_from_registry(registry: dict[str, type[Policy]], game: str, name: str,
                         **params: Any) -> Policy:
    """A policy by registry name with validated keyword parameters."""
    try:
        cls = registry[name]
    except KeyError:
        raise ValueError(f"unknown {game} policy {name!r} "
                         f"(known: {', '.join(sorted(registry))})") from None
    return cls.from_params(**params)


def check_count(name: str, value: Any, low: int = 1) -> int:
    """A count argument (deals, games, first id) as an int, or a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        kind = "a positive" if low == 1 else "a non-negative"
        raise ValueError(f"{name} must be {kind} integer, got {value!r}")
    return int(value)
