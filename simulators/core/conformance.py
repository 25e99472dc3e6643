"""One conformance suite every registered game passes (pgx's ``api_test``, our way).

Each check takes a :class:`~simulators.core.game.Game` and raises
``AssertionError`` with a message naming the game, unit and config on the
first failure; ``tests/test_conformance.py`` runs every check for every
game found by the registry, so a new game is tested the moment its entry
point exists. The checks use only the spec: the units' ``play`` functions,
the policy registry and the game's :class:`~simulators.core.game.Conformance`
hooks (referee replay, card conservation, invariants, bad options).

=====================  ==========================================================
check                  what it asserts
=====================  ==========================================================
``random_play``        random legal play at several batch sizes: every declared
                       table, the id column numbering the units, per-seat scores
                       of the right shape, the game's invariants on the tables
``chunking``           identical tables whether units are played in one batch or
                       in uneven pieces crossing a seeding block boundary
``determinism``        the same seed gives the same tables, another seed others
``replay``             the referee replays engine units move by move, agreeing on
                       every move and score (every policy that can play the unit;
                       a game's ``slow_policies`` under ``pytest -m slow`` only)
``conservation``       every card of every deck accounted for exactly once
``bad_input``          bad options, counts, policies and policy counts refused
                       with a ``ValueError`` naming what is wrong
``portable_numerics``  every player count, unit and policy played with
                       ``np.where``/``np.select`` refusing Python ints that do
                       not fit the result dtype, as numpy >= 2.5 does (no value
                       relies on integer wrap-around)
=====================  ==========================================================

The large replay of any game is one command (a process per job, joblib)::

    python -m simulators.core.conformance GAME --units N --n-jobs J

which replays ``N`` units of every example config, unit and usable policy
through the referee (:func:`replay_at_scale`), one line per combination;
exit status 0 when all agree, 1 on the first disagreement, 2 on bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

from simulators.core.game import Game, Unit, game_names, get_game
from simulators.core.params import Policy
from simulators.core.rng import BLOCK
from simulators.core.strict_numpy import strict_python_ints

BATCH_SIZES = (1, 7, 64)
SEED = 20260
MAX_PLAYERS = 10  # player counts tried by portable_numerics: those the config accepts


def _where(game: Game, unit: Unit, config) -> str:
    return f"{game.name} {unit.name} {config}"


def usable_policies(game: Game, unit: Unit, *, slow: bool = False) -> list[str]:
    """Registered policies that have every decision method the unit asks for (those of
    ``game.conformance.slow_policies`` only when ``slow``)."""
    return [name for name, cls in game.policies.items()
            if all(callable(getattr(cls, m, None)) for m in unit.policy_methods)
            and (slow or name not in game.conformance.slow_policies)]


def random_policy(game: Game, unit: Unit) -> Policy:
    """The game's random legal policy, or the first usable one for units it cannot play."""
    names = usable_policies(game, unit)
    assert names, f"{game.name} {unit.name}: no registered policy has {unit.policy_methods}"
    return game.make_policy(game.random_policy if game.random_policy in names else names[0])


def _check_tables(game: Game, unit: Unit, config, tables, first: int, count: int) -> None:
    where = _where(game, unit, config)
    assert isinstance(tables, dict) and set(unit.tables) <= set(tables), \
        f"{where}: play returned {sorted(tables)} instead of {list(unit.tables)}"
    for name in unit.tables:
        table = tables[name]
        assert isinstance(table, pl.DataFrame), f"{where}: table {name} is not a DataFrame"
        assert unit.id_column in table.columns, f"{where}: {name} lacks {unit.id_column}"
        ids = table[unit.id_column].unique().sort().to_list()
        assert ids == list(range(first, first + count)), \
            f"{where}: {name}.{unit.id_column} does not number units {first}..{first + count - 1}"
        assert table[unit.id_column].is_sorted(), f"{where}: {name} rows not in unit order"
    scores = unit.seat_scores(tables, config)
    seats = game.seats(unit, config)
    assert np.shape(scores) == (count, seats), \
        f"{where}: seat_scores shape {np.shape(scores)} != ({count}, {seats})"
    game.conformance.invariants(unit.name, config, tables)


def check_random_play(game: Game, batch_sizes: Sequence[int] = BATCH_SIZES) -> int:
    """Random legal play of every unit and example config at each batch size."""
    played = 0
    for config in game.conformance.configs:
        for unit in game.units:
            policy = random_policy(game, unit)
            for size in batch_sizes:
                tables = unit.play(config, policy, 0, size, SEED)
                _check_tables(game, unit, config, tables, 0, size)
                played += size
    return played


def _same_tables(game: Game, unit: Unit, config, a, b, what: str) -> None:
    for name in unit.tables:
        try:
            assert_frame_equal(a[name], b[name])
        except AssertionError as exc:
            raise AssertionError(f"{_where(game, unit, config)}: table {name} differs {what}: "
                                 f"{str(exc).splitlines()[0]}") from None


def check_chunking(game: Game, count: int = 40) -> None:
    """One batch equals uneven pieces that cross a seeding block boundary."""
    first = BLOCK - count // 2
    cuts = (first, first + 1, first + count // 2 + 3, first + count)
    for config in game.conformance.configs[:2]:
        for unit in game.units:
            policy = random_policy(game, unit)
            whole = unit.play(config, policy, first, count, SEED)
            parts = [unit.play(config, policy, a, b - a, SEED)
                     for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
            joined = {name: pl.concat([p[name] for p in parts]) for name in unit.tables}
            _same_tables(game, unit, config, whole, joined, "between one batch and pieces")


def check_determinism(game: Game, count: int = 20) -> None:
    """Same seed, same tables; another seed, other tables."""
    config = game.conformance.configs[0]
    for unit in game.units:
        policy = random_policy(game, unit)
        a = unit.play(config, policy, 0, count, SEED)
        b = unit.play(config, policy, 0, count, SEED)
        _same_tables(game, unit, config, a, b, "between two runs of one seed")
        c = unit.play(config, policy, 0, count, SEED + 1)
        assert any(not a[t].equals(c[t]) for t in unit.tables), \
            f"{_where(game, unit, config)}: seeds {SEED} and {SEED + 1} give the same tables"


def check_replay(game: Game, counts: dict[str, int] | None = None, *,
                 slow: bool = False) -> int:
    """The referee replays engine units of every config, unit and usable policy."""
    checked = 0
    for config in game.conformance.configs:
        for unit in game.units:
            count = (counts or {}).get(unit.name, 20)
            for name in usable_policies(game, unit, slow=slow):
                n = game.conformance.replay(unit.name, config, game.make_policy(name), 0, count,
                                            SEED)
                assert n > 0 or game.conformance.doc, \
                    f"{_where(game, unit, config)}: nothing replayed and no reason given"
                checked += n
    return checked


def check_conservation(game: Game, count: int = 200, *, slow: bool = False) -> None:
    """Card conservation on real batches of every example config and usable policy."""
    unit = game.units[0]
    for config in game.conformance.configs:
        for name in usable_policies(game, unit, slow=slow):
            game.conformance.conservation(config, game.make_policy(name), 0, count, SEED)


class _NoMethods(Policy):
    """A policy with no decision method at all."""


@dataclasses.dataclass(frozen=True)
class _Bare(_NoMethods):
    pass


def _refused(call, expected: str, what: str) -> None:
    try:
        call()
    except ValueError as exc:
        message = str(exc)
        assert expected.lower() in message.lower(), \
            f"{what}: message {message!r} does not name {expected!r}"
        assert "\n" not in message.strip(), f"{what}: message is not one line: {message!r}"
        return
    raise AssertionError(f"{what}: accepted instead of raising ValueError")


def check_bad_input(game: Game) -> None:
    """Bad options, counts, policies and policy counts: one-line ValueError naming them."""
    for options, expected in game.conformance.bad_options:
        _refused(lambda o=options: game.make_config(**o), expected,
                 f"{game.name} options {dict(options)}")
    _refused(lambda: game.make_config(no_such_option=1), "no_such_option",
             f"{game.name} unknown option")
    _refused(lambda: game.make_policy("no-such-policy"), "no-such-policy",
             f"{game.name} unknown policy")
    config = game.conformance.configs[0]
    for unit in game.units:
        policy = random_policy(game, unit)
        where = _where(game, unit, config)
        _refused(lambda u=unit, p=policy: u.play(config, p, 0, 0, SEED), "0", f"{where} count 0")
        _refused(lambda u=unit, p=policy: u.play(config, p, -1, 3, SEED), "-1",
                 f"{where} first -1")
        _refused(lambda u=unit, p=policy: u.play(config, p, 0, 3, -5), "seed",
                 f"{where} seed -5")
        if unit.policy_methods:
            _refused(lambda u=unit: u.play(config, _Bare(), 0, 3, SEED),
                     unit.policy_methods[0], f"{where} policy without methods")
        seats = game.seats(unit, config)
        if seats > 1:
            _refused(lambda u=unit, p=policy, n=seats: u.play(config, [p] * (n + 1), 0, 3, SEED),
                     str(seats), f"{where} {seats + 1} policies")


def player_count_configs(game: Game) -> list:
    """The example configs, plus the first one at every other player count it accepts."""
    configs = list(game.conformance.configs)
    if "n_players" not in {f.name for f in dataclasses.fields(game.config)}:
        return configs
    seen = {config.n_players for config in configs}
    for n in range(1, MAX_PLAYERS + 1):
        if n not in seen:
            try:
                configs.append(dataclasses.replace(configs[0], n_players=n))
            except ValueError:
                continue  # a player count the game does not have
    return configs


def check_portable_numerics(game: Game, count: int = 24, *, slow: bool = False) -> int:
    """Every player count, unit and policy under :func:`strict_python_ints`.

    Each case is played once before the strict block so that its compiled
    kernels exist (numba resolves ``np.where`` when it compiles), then again
    inside it; the two runs must give the same tables.
    """
    cases = 0
    for config in player_count_configs(game):
        for unit in game.units:
            for name in usable_policies(game, unit, slow=slow):
                policy = game.make_policy(name)
                plain = unit.play(config, policy, 0, count, SEED)
                try:
                    with strict_python_ints():
                        strict = unit.play(config, policy, 0, count, SEED)
                except OverflowError as exc:
                    raise AssertionError(f"{_where(game, unit, config)} policy {name}: "
                                         f"{exc}") from None
                _same_tables(game, unit, config, plain, strict, "under strict numpy")
                cases += 1
    return cases


CHECKS = {
    "random_play": check_random_play,
    "chunking": check_chunking,
    "determinism": check_determinism,
    "replay": check_replay,
    "conservation": check_conservation,
    "bad_input": check_bad_input,
    "portable_numerics": check_portable_numerics,
}
"""Every check by name, each ``check(game)``."""


# ------------------------------------------------------------------ at scale


def _replay_chunk(game: str, unit: str, config, policy: str, first: int, count: int,
                  seed: int) -> int:
    """One chunk of :func:`replay_at_scale`, in a worker: units replayed by the referee."""
    spec = get_game(game)
    return spec.conformance.replay(unit, config, spec.make_policy(policy), first, count, seed)


def replay_at_scale(game: Game, units: int, *, n_jobs: int = 1, seed: int = 7,
                    unit: str | None = None, chunk: int | None = None,
                    report: Callable[[str], None] = print) -> int:
    """Replay ``units`` engine units of every example config, unit and usable policy.

    Chunks run in ``n_jobs`` processes (joblib); ``report`` gets one line per
    config, unit and policy. Raises ``AssertionError`` naming the unit on the
    first disagreement; returns the number of units (or deals) checked.
    """
    from joblib import Parallel, delayed

    specs = [game.unit(unit)] if unit is not None else list(game.units)
    total = 0
    with Parallel(n_jobs=n_jobs) as parallel:
        for config in game.conformance.configs:
            for spec in specs:
                size = chunk or max(1, min(spec.default_chunk, -(-units // (4 * n_jobs))))
                for name in usable_policies(game, spec):
                    start = time.perf_counter()
                    tasks = [delayed(_replay_chunk)(game.name, spec.name, config, name, first,
                                                    min(size, units - first), seed)
                             for first in range(0, units, size)]
                    checked = sum(parallel(tasks))
                    total += checked
                    report(f"{game.name} {spec.name} {name} {config}: {units} {spec.name} "
                           f"played, {checked} replayed by the referee, 0 mismatches "
                           f"({time.perf_counter() - start:.0f} s)")
    return total


class _OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line (and exit status 2)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    """``python -m simulators.core.conformance GAME --units N --n-jobs J``."""
    parser = _OneLineParser(prog="python -m simulators.core.conformance",
                            description="Replay engine units of a game through its referee.")
    parser.add_argument("game", help=f"a registered game ({', '.join(game_names())})")
    parser.add_argument("--units", type=int, default=10_000,
                        help="units per config, unit kind and policy (default 10000)")
    parser.add_argument("--n-jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the runs (default 7)")
    parser.add_argument("--unit", help="only this unit kind (default: every unit)")
    parser.add_argument("--chunk", type=int, help="units per task (default: from the size)")
    args = parser.parse_args(argv)
    for flag, value in (("--units", args.units), ("--n-jobs", args.n_jobs),
                        ("--chunk", args.chunk)):
        if value is not None and value < 1:
            parser.error(f"{flag} must be a positive integer, got {value}")
    if args.seed < 0:
        parser.error(f"--seed must be a non-negative integer, got {args.seed}")
    try:
        game = get_game(args.game)
        if args.unit is not None:
            game.unit(args.unit)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        total = replay_at_scale(game, args.units, n_jobs=args.n_jobs, seed=args.seed,
                                unit=args.unit, chunk=args.chunk)
    except AssertionError as exc:
        print(f"{parser.prog}: {game.name}: engine and referee disagree: {exc}", file=sys.stderr)
        return 1
    print(f"{game.name}: {total} replayed by the referee, 0 mismatches")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
