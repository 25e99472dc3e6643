"""Routing each decision of a batch to the policy of the seat that acts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


class IllegalAction(ValueError):
    """A policy returned an action the rules forbid, or of the wrong shape."""


def forwards(to: str, *names: str) -> Callable[[type], type]:
    """Class decorator for a policy wrapper: its ``names`` (decision methods, flags such as
    ``costly``) are those of the policy in its attribute ``to``, read on each access.

    Each name becomes a class attribute, so a name the wrapped policy lacks is lacking on
    the wrapper too and nothing else is forwarded. No ``__getattr__``: when a wrapper that
    had one was unpickled (joblib ships policies to workers), the unpickler's look-up of
    ``__setstate__`` went through it before ``to`` was set, and it recursed forever.
    """
    def decorate(cls: type) -> type:
        for name in names:
            setattr(cls, name, property(lambda self, name=name: getattr(getattr(self, to), name),
                                        doc=f"``{to}``'s ``{name}``"))
        return cls
    return decorate


class SeatDispatch:
    """One policy for every seat, or one per seat; asks each distinct policy once per decision.

    ``methods`` are the decision methods a policy of this game must have;
    policies are compared by identity, so passing the same object for
    several seats costs one call per decision.
    """

    def __init__(self, policies, n_players: int, methods: Sequence[str], game: str):
        if isinstance(policies, Sequence) and not isinstance(policies, str):
            per_seat = tuple(policies)
            if len(per_seat) != n_players:
                raise ValueError(f"policies: expected one policy or {n_players} (one per seat), "
                                 f"got {len(per_seat)}")
        else:
            per_seat = (policies,) * n_players
        unique: list = []
        for p in per_seat:
            missing = [m for m in methods if not callable(getattr(p, m, None))]
            if missing:
                raise ValueError(f"policies: {type(p).__name__} lacks the method(s) "
                                 f"{', '.join(missing)} of a {game} policy")
            if not any(p is q for q in unique):
                unique.append(p)
        self.per_seat = per_seat
        self.unique = unique
        self.index = np.array([next(i for i, q in enumerate(unique) if q is p) for p in per_seat],
                              dtype=np.int8)
        self.uses_noise = any(getattr(p, "uses_noise", False) for p in unique)
        self.wants_world = any(getattr(p, "wants_world", False) for p in unique)

    def __call__(self, method: str, obs, seat: np.ndarray, dtype) -> np.ndarray:
        """The acting seats' policies' answers, one per row, as ``dtype``."""
        n_rows = len(seat)
        if len(self.unique) == 1:
            return self._ask(self.unique[0], method, obs, n_rows, dtype)
        which = self.index[seat]
        out = np.zeros(n_rows, dtype=dtype)
        for i, policy in enumerate(self.unique):
            rows = which == i
            if not rows.any():
                continue
            if getattr(policy, "costly", False):  # a search per row: ask its rows only
                acting = np.flatnonzero(rows)
                out[acting] = self._ask(policy, method, _rows_of(obs, acting, n_rows),
                                        acting.size, dtype)
            else:  # numpy over the whole batch is cheaper than slicing every field
                out = np.where(rows, self._ask(policy, method, obs, n_rows, dtype), out)
        return out

    def has(self, method: str, *, standing_for: Sequence[str] = ()) -> bool:
        """Whether every policy implements the optional ``method``.

        ``standing_for`` names the decisions ``method`` answers in one go (e.g.
        ``draw_with_plan`` for ``draw``): a policy whose class overrides one of
        them below the class that defines ``method`` does not count, so a
        user's subclass of a heuristic that redefines ``draw`` is asked
        ``draw``, not its parent's ``draw_with_plan``.
        """
        return all(callable(getattr(p, method, None))
                   and not _overridden_below(type(p), method, standing_for)
                   for p in self.unique)

    def pair(self, method: str, obs, seat: np.ndarray, dtypes) -> tuple[np.ndarray, np.ndarray]:
        """Like calling, for a method that returns two arrays (one per row each)."""
        n_rows = len(seat)
        which = self.index[seat]
        out = [np.zeros(n_rows, dtype=d) for d in dtypes]
        for i, policy in enumerate(self.unique):
            rows = which == i
            if not rows.any():
                continue
            answer = getattr(policy, method)(obs)
            if not isinstance(answer, tuple) or len(answer) != 2:
                raise IllegalAction(f"{type(policy).__name__}.{method} must return two arrays")
            for k, (part, dtype) in enumerate(zip(answer, dtypes, strict=True)):
                part = self._check(policy, method, np.asarray(part), n_rows, dtype)
                out[k] = part if len(self.unique) == 1 else np.where(rows, part, out[k])
        return out[0], out[1]

    @classmethod
    def _ask(cls, policy, method, obs, n_rows, dtype) -> np.ndarray:
        return cls._check(policy, method, np.asarray(getattr(policy, method)(obs)), n_rows, dtype)

    @staticmethod
    def _check(policy, method, out, n_rows, dtype) -> np.ndarray:
        if out.shape != (n_rows,):
            raise IllegalAction(f"{type(policy).__name__}.{method} returned shape {out.shape}, "
                                f"expected ({n_rows},)")
        if dtype is not bool and out.dtype.kind not in "iu":
            raise IllegalAction(f"{type(policy).__name__}.{method} returned {out.dtype}, "
                                "expected integers")
        return out.astype(dtype, copy=False)


def _rows_of(obs, rows: np.ndarray, n_rows: int):
    """The observation of ``rows`` only: every field with the batch as leading axis sliced,
    and any object that can ``select`` rows (a rollout's world)."""
    fields = {}
    for name, value in obs._asdict().items():
        if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == n_rows:
            fields[name] = value[rows]
        elif callable(getattr(value, "select", None)):
            fields[name] = value.select(rows)
    return obs._replace(**fields)


def reject(bad: np.ndarray, units: np.ndarray, what: str, detail) -> None:
    """Raise IllegalAction naming the first offending row."""
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise IllegalAction(f"unit {int(units[i])}: {what} {detail(i)} ({int(bad.sum())} rows)")


def _overridden_below(cls: type, method: str, names: Sequence[str]) -> bool:
    """Whether ``cls`` takes any of ``names`` from a class below the one defining ``method``."""
    owner = next((c for c in cls.__mro__ if method in c.__dict__), None)
    return owner is not None and any(getattr(cls, name, None) is not getattr(owner, name, None)
                                     for name in names)
