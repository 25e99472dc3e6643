"""Find the best setting, not only compare two: successive halving on common deals.

``tune`` searches a policy's parameter space for the setting that scores
best at the seats under study against a baseline (default: the current
setting at the other seats). It is successive halving (Jamieson and
Talwalkar; the racing of F-race without its tests):

1. ``n_candidates`` points of the space are drawn by a scrambled Sobol
   sequence (:mod:`scipy.stats.qmc`: even coverage, seeded), the policy's
   current setting first;
2. every candidate still in the race plays the *same* units (common random
   numbers), scored by its paired difference against the current setting;
3. the better half survives and plays twice as many units, their sums added to
   those of the earlier rounds; the race ends when one candidate is left or the
   budget (units played, every candidate counted) is spent;
4. the winner is confirmed on fresh units of another seed: its paired
   difference against the current setting with a 95% interval. The units
   that chose it are not reused, so the winner's curse does not inflate it.
   With ``precision`` the confirmation looks after every chunk (in chunk
   order, the same checkpoints whatever ``n_jobs``) and stops once its
   anytime-valid interval (:func:`analysis.stats.confidence_sequence`) is
   within ``± precision``: that interval, valid at any stopping time, is the
   one reported (no optional-stopping bias).

Successive halving rather than Optuna's TPE: the paired comparison on common
units is what makes small differences visible, and a race keeps every
candidate on the same units round after round; TPE would compare each trial
on its own units (README, "tune").

Every round is a study of the executor (:func:`analysis.runner.map_chunks`):
``--n-jobs``, Dask, progress, and with ``out_dir`` a killed run resumes
round by round.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from scipy.stats import qmc

from analysis import stats
from analysis.compare import ScoreStudy, paired_sums
from analysis.experiment import Experiment, build_policy, check_seats, seat_experiment
from analysis.runner import map_chunks

CONFIRM_SEED_OFFSET = 1_000_003  # the confirmation's seed: base seed + this (fresh units)


@dataclass(frozen=True)
class Dimension:
    """One parameter's range: ``float`` uniform, ``int`` uniform on integers, ``log``
    log-uniform (positive bounds)."""

    name: str
    low: float
    high: float
    kind: str = "float"

    def value(self, u: float) -> float | int:
        """The point of the range at quantile ``u`` in [0, 1)."""
        if self.kind == "int":
            return int(min(self.high, math.floor(self.low + u * (self.high - self.low + 1))))
        if self.kind == "log":
            return float(math.exp(math.log(self.low) + u * (math.log(self.high)
                                                           - math.log(self.low))))
        return float(self.low + u * (self.high - self.low))


def parse_space(texts: Sequence[str], policy_cls) -> list[Dimension]:
    """``NAME=LOW..HIGH[:int|:log]`` flags checked against the policy's parameters and ranges;
    ``ValueError`` naming the flag."""
    params = policy_cls.parameters()
    out: list[Dimension] = []
    for text in texts:
        name, sep, rest = text.partition("=")
        name = name.strip()
        bounds, _, kind = rest.partition(":")
        low_text, dots, high_text = bounds.partition("..")
        if not sep or not dots or not name:
            raise ValueError(f"--space expects NAME=LOW..HIGH[:int|:log], got {text!r}")
        if name not in params:
            raise ValueError(f"--space {name!r} is not a parameter of {policy_cls.__name__} "
                             f"(parameters: {', '.join(sorted(params))})")
        if any(d.name == name for d in out):
            raise ValueError(f"--space {name} is given twice")
        try:
            low, high = float(low_text), float(high_text)
        except ValueError:
            raise ValueError(f"--space {name}: LOW and HIGH must be numbers, got {bounds!r}") \
                from None
        default = params[name]["default"]
        if isinstance(default, bool) or not isinstance(default, int | float):
            raise ValueError(f"--space {name}: a {type(default).__name__} parameter of "
                             f"{policy_cls.__name__} (default {default!r}) has no range of "
                             f"numbers to draw from; compare its values with sweep --grid "
                             f"{name}=V1,V2")
        kind = kind.strip() or ("int" if isinstance(default, int)
                                and not isinstance(default, bool) else "float")
        if kind not in ("float", "int", "log"):
            raise ValueError(f"--space {name}: the kind must be int or log, got {kind!r}")
        if not low < high or (kind == "log" and low <= 0):
            need = "LOW < HIGH" + (" and LOW > 0 for :log" if kind == "log" else "")
            raise ValueError(f"--space {name}: need {need}, got {bounds}")
        lo, hi = params[name]["low"], params[name]["high"]
        if (lo is not None and low < lo) or (hi is not None and high > hi):
            raise ValueError(f"--space {name}={bounds} leaves the parameter's range "
                             f"[{lo}, {hi}]")
        out.append(Dimension(name, low, high, kind))
    if not out:
        raise ValueError("give at least one --space NAME=LOW..HIGH")
    return out


def min_budget(n_candidates: int) -> int:
    """The smallest budget that can race ``n_candidates``: the first round plays every one
    of them (the current setting included) on at least one unit."""
    return n_candidates


def candidates(space: Sequence[Dimension], default: Mapping[str, Any], n: int,
               seed: int) -> list[dict[str, Any]]:
    """The current setting, then ``n - 1`` scrambled Sobol points of the space (distinct)."""
    points = [{d.name: default[d.name] for d in space}]
    sampler = qmc.Sobol(d=len(space), scramble=True, seed=seed)
    for u in sampler.random(2 ** math.ceil(math.log2(max(2, 2 * n)))):
        point = {d.name: d.value(float(x)) for d, x in zip(space, u, strict=True)}
        if point not in points:
            points.append(point)
        if len(points) == n:
            break
    return points


class RoundStudy(ScoreStudy):
    """One round of the race: the reference (arm 0) and the survivors on units
    ``offset .. offset + size - 1`` (each round new units, added to the earlier ones)."""

    def __init__(self, arms, seats, offset: int):
        super().__init__("tune", arms, seats, settings={"offset": offset})
        self.offset = offset

    def reduce_chunk(self, first: int, count: int) -> dict[str, float]:
        return super().reduce_chunk(first + self.offset, count)


@dataclass
class Race:
    """What successive halving did: every candidate, the rounds, the winner."""

    candidates: list[dict[str, Any]]
    rounds: list[dict[str, Any]] = field(default_factory=list)
    sums: dict[int, stats.PairedSums] = field(default_factory=dict)

    @property
    def spent(self) -> int:
        return sum(r["units_played"] for r in self.rounds)

    def estimate(self, i: int) -> stats.Estimate:
        return stats.paired_difference(self.sums[i])


def race(evaluate: Callable[[list[int], int, int, int], dict[int, stats.PairedSums]],
         n_candidates: int, budget: int, first_units: int, eta: int = 2) -> Race:
    """Successive halving over candidates ``0..n_candidates - 1`` (0: the reference).

    ``evaluate(alive, offset, count, round_no)`` plays units ``offset .. offset + count - 1``
    for the candidates ``alive`` and returns each one's paired sums against the
    reference on those units. A round costs ``(arms) * count`` units played, the arms being
    the reference and every other candidate alive.
    """
    alive = list(range(n_candidates))
    result = Race([])
    offset, count = 0, first_units
    while True:
        arms = 1 + sum(1 for i in alive if i != 0)
        if result.spent + arms * count > budget:
            count = (budget - result.spent) // arms
            if count < 1:
                break
        cost = arms * count
        sums = evaluate(alive, offset, count, len(result.rounds))
        for i, s in sums.items():
            result.sums[i] = result.sums[i].merge(s) if i in result.sums else s
        means = {i: result.estimate(i).value for i in alive}
        keep = max(1, math.ceil(len(alive) / eta))
        ranked = sorted(alive, key=lambda i: (-means[i], i))
        result.rounds.append({"round": len(result.rounds) + 1, "candidates": len(alive),
                              "units_each": offset + count, "new_units": count,
                              "units_played": cost, "kept": ranked[:keep]})
        alive = ranked[:keep]
        offset += count
        if len(alive) == 1 or result.spent >= budget:
            break
        count *= eta
    result.rounds[-1]["kept"] = alive[:1] if result.rounds else []
    return result


class _ByKey:
    """``result["name"]`` reads the attribute ``name`` (the plain dict these replaced)."""

    def __getitem__(self, key: str) -> Any:
        if key not in {f.name for f in fields(self)}:
            raise KeyError(key)
        return getattr(self, key)


@dataclass(frozen=True)
class Confirmation(_ByKey):
    """The winner against the current setting on fresh units of another seed.

    ``mean`` with its interval ``low``..``high`` on ``n`` units, ``p_value`` (paired),
    ``seed``, ``sequential`` (whether a ``precision`` stopped it: the interval is then
    anytime-valid) and ``target_reached`` (None without one).
    """

    mean: float
    low: float
    high: float
    n: int
    p_value: float
    seed: int
    sequential: bool
    target_reached: bool | None


@dataclass(frozen=True)
class TuneResult(_ByKey):
    """What :func:`tune` found.

    ``best`` (the winning parameters, all of them) and its ``best_index`` among the
    ``candidates`` (``index, params, race_gain, units`` each), ``rounds`` (budget spent per
    round: ``round, candidates, units_each, new_units, units_played, kept``), ``spent``
    (units played by the race) and the :class:`Confirmation`. ``result["best"]`` reads
    ``result.best``.
    """

    best: dict[str, Any]
    best_index: int
    candidates: list[dict[str, Any]]
    rounds: list[dict[str, Any]]
    spent: int
    confirmation: Confirmation


def tune(base: Experiment, space: Sequence[Dimension], *, baseline=None,
         seats: Sequence[int] = (0,), budget: int,
         n_candidates: int = 16, first_units: int | None = None, confirm_units: int | None = None,
         precision: float | None = None,
         n_jobs: int = 1, chunk_size: int | None = None, progress: bool | None = None,
         out_dir: str | Path | None = None, backend: str = "loky",
         scheduler: str | None = None) -> TuneResult:
    """Tune ``base``'s policy over ``space`` (see the module docstring): a
    :class:`TuneResult`, the best setting and its :class:`Confirmation` against the current
    one on fresh units."""
    if len(base.policies) != 1:
        raise ValueError("tune starts from one policy (the current setting) for every seat")
    current = base.policies[0]
    baseline = build_policy(base.game, current if baseline is None else baseline)
    seats = check_seats(seats, base.seats)
    points = candidates(space, current.get_params(), n_candidates, base.seed)
    if budget < min_budget(len(points)):
        raise ValueError(f"budget {budget} cannot race {len(points)} candidates: give "
                         f"{min_budget(len(points))} or more, or fewer candidates")
    policies = [type(current)(**{**current.get_params(), **p}) for p in points]
    if first_units is None:  # each round about the same share of the budget
        first_units = max(2, budget // (len(points) * max(1, math.ceil(math.log2(len(points))))))

    def arm(policy, units):
        return seat_experiment(base.replace(size=units), policy, baseline, seats)

    def evaluate(alive, offset, count, round_no):
        others = [i for i in alive if i != 0]  # the reference scores 0 against itself
        arms = [arm(policies[0], count)] + [arm(policies[i], count) for i in others]
        study = RoundStudy(arms, seats, offset)
        where = None if out_dir is None else Path(out_dir) / f"round-{round_no + 1}"
        result = map_chunks(study, where, n_jobs=n_jobs, chunk_size=chunk_size,
                            backend=backend, scheduler=scheduler, progress=progress)
        sums = {i: paired_sums(result.totals, k + 1) for k, i in enumerate(others)}
        if 0 in alive:
            sums[0] = stats.PairedSums(float(count), 0.0, 0.0, 0.0, 0.0, 0.0)
        return sums

    raced = race(evaluate, len(points), budget, first_units)
    winner = raced.rounds[-1]["kept"][0] if raced.rounds else 0
    confirm = confirm_units or max(first_units, raced.rounds[-1]["units_each"]
                                   if raced.rounds else first_units)
    fresh = base.replace(seed=base.seed + CONFIRM_SEED_OFFSET, size=confirm)
    study = ScoreStudy("tune-confirm", [arm(policies[0], confirm).replace(seed=fresh.seed),
                                        arm(policies[winner], confirm).replace(seed=fresh.seed)],
                       seats)
    where = None if out_dir is None else Path(out_dir) / "confirmation"

    def precise(totals: Mapping[str, float]) -> bool:
        est = stats.confidence_sequence(paired_sums(totals, 1), planned=confirm)
        return (est.high - est.low) / 2 <= precision

    done = map_chunks(study, where, n_jobs=n_jobs, chunk_size=chunk_size, backend=backend,
                      scheduler=scheduler, progress=progress,
                      stop=None if precision is None else precise)
    confirmed = paired_sums(done.totals, 1)
    est = (stats.paired_difference(confirmed) if precision is None
           else stats.confidence_sequence(confirmed, planned=confirm))
    return TuneResult(
        best=policies[winner].get_params(),
        best_index=winner,
        candidates=[{"index": i, "params": p,
                     "race_gain": raced.estimate(i).value if i in raced.sums else None,
                     "units": int(raced.sums[i].n) if i in raced.sums else 0}
                    for i, p in enumerate(points)],
        rounds=raced.rounds,
        spent=raced.spent,
        confirmation=Confirmation(
            mean=est.value, low=est.low, high=est.high, n=est.n,
            p_value=stats.difference_pvalue(confirmed, paired=True), seed=fresh.seed,
            sequential=precision is not None, target_reached=done.target_reached),
    )


def config_toml(base: Experiment, params: Mapping[str, Any]) -> str:
    """An experiment file (``--config``) playing the tuned policy at every seat."""
    doc = base.replace(policies=(type(base.policies[0])(**params),)).to_dict()

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return repr(v)

    lines = [f"game = {value(doc['game'])}", f"unit = {value(doc['unit'])}",
             f"size = {doc['size']}", f"seed = {doc['seed']}", "", "[options]"]
    lines += [f"{k} = {value(v)}" for k, v in doc["options"].items() if v is not None]
    policy = doc["policies"][0]
    params_text = ", ".join(f"{k} = {value(v)}" for k, v in policy["params"].items())
    lines += ["", "[[policies]]", f"name = {value(policy['name'])}",
              f"params = {{ {params_text} }}", ""]
    return "\n".join(lines)
