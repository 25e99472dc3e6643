"""The env-check: a game's environments through PettingZoo's and OpenSpiel's own tests.

:func:`run_checks` returns one :class:`CheckResult` per check (``tapisvert
env-check GAME`` prints one line each):

=========================  =================================================================
check                      what it runs
=========================  =================================================================
``pettingzoo.api_test``    ``pettingzoo.test.api_test`` on the AEC environment, unchanged
``pettingzoo.seed_test``   ``pettingzoo.test.seed_test``: two environments seeded alike play
                           alike
``pettingzoo.rewards``     ``games`` seeded units played to the end: each agent's rewards sum
                           to the unit's returns, the action mask is the legal actions
``openspiel.random_sim``   ``pyspiel.random_sim_test`` (OpenSpiel's C++ checks: legal
                           actions, chance, tensors, serialisation at every state)
``openspiel.state_api``    ``games`` random units through pyspiel's state API: ascending legal
                           actions, chance probabilities summing to 1, tensor sizes and bounds,
                           clones, returns within the utility bounds (and zero-sum), length
``openspiel.serialize``    ``serialize_game_and_state`` / ``deserialize_game_and_state`` at
                           every state of a few units: same history, strings and tensors
``openspiel.all_states``   ``get_all_states`` on the game's reduced variant
                           (``StepGame.reduced``): every information state has one set of
                           legal actions and one tensor (skipped where there is none)
=========================  =================================================================

Every random number comes from ``numpy.random.SeedSequence(seed)`` children.
"""

from __future__ import annotations

import contextlib
import io
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simulators.core.rl import MISSING
from simulators.core.rng import DEFAULT_SEED
from simulators.core.steps import make_step_game

try:
    import pyspiel
    from pettingzoo.test import api_test, seed_test

    from simulators.core.rl import openspiel as rl_openspiel
    from simulators.core.rl.pettingzoo import StepEnv
except ImportError:
    raise ImportError(MISSING) from None

TOLERANCE = 1e-9


@dataclass(frozen=True)
class CheckResult:
    """One check: its name, whether it passed, one line of detail, its seconds."""

    name: str
    passed: bool
    detail: str
    seconds: float = 0.0

    def line(self) -> str:
        """``PASS name (1.2 s): detail``."""
        return (f"{'PASS' if self.passed else 'FAIL'} {self.name} ({self.seconds:.1f} s): "
                f"{self.detail}")


def _quiet(function, *args, **kwargs):
    """Run a library test without its prints and warnings (they are not failures)."""
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _run(name: str, function) -> CheckResult:
    """One check: ``function()`` returns the detail, or raises (a failure, its first line)."""
    start = time.perf_counter()
    try:
        detail = function()
        passed = True
    except Exception as error:  # noqa: BLE001 (any error is the check's failure)
        text = str(error).strip().splitlines()
        detail = f"{type(error).__name__}: {text[0] if text else ''}"
        passed = False
    return CheckResult(name, passed, detail, time.perf_counter() - start)


def run_checks(game, options: dict | None = None, games: int = 100, seed: int = DEFAULT_SEED,
               progress: Callable[[str], None] | None = None) -> list[CheckResult]:
    """Every check of the module docstring on ``game`` (a Game with ``steps``) with
    ``options``; ``games`` random units per simulation check. ``progress(message)`` is told
    which check starts (some take a minute on a long game)."""
    options = dict(options or {})
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    step_game = make_step_game(game, **options)  # ValueError on bad options, before any check
    name = rl_openspiel.register(game)
    spiel = pyspiel.load_game(name, {k: v for k, v in options.items()})
    seeds = np.random.SeedSequence(seed).spawn(4)

    def env():
        return StepEnv(step_game)

    checks = [
        ("pettingzoo.api_test", lambda: _api(env)),
        ("pettingzoo.seed_test", lambda: _seed(env)),
        ("pettingzoo.rewards", lambda: _rewards(env, games, seeds[0])),
        ("openspiel.random_sim", lambda: _random_sim(spiel, games)),
        ("openspiel.state_api", lambda: _state_api(spiel, step_game, games, seeds[1])),
        ("openspiel.serialize", lambda: _serialize(spiel, max(1, games // 10), seeds[2])),
    ]
    reduced = type(step_game).reduced
    if reduced is not None:
        small = {**options, **reduced}
        checks.append(("openspiel.all_states",
                       lambda: _all_states(pyspiel.load_game(name, small), small)))
    results = []
    for i, (check, function) in enumerate(checks, 1):
        if progress is not None:
            progress(f"{check} ({i}/{len(checks)})...")
        results.append(_run(check, function))
    if reduced is None:
        results.append(CheckResult("openspiel.all_states", True,
                                   "skipped: the game declares no reduced variant"))
    return results


# ------------------------------------------------------------------ PettingZoo


def _api(env) -> str:
    _quiet(api_test, env(), num_cycles=1000)
    return "passed unchanged"


def _seed(env) -> str:
    _quiet(seed_test, env, num_cycles=1000)
    return "two environments reset with seed 42 play alike"


def _rewards(env, games: int, seed: np.random.SeedSequence) -> str:
    e = env()
    policy = np.random.default_rng(seed.spawn(1)[0])
    steps = 0
    for unit, child in enumerate(seed.spawn(games)):
        e.reset(seed=int(child.generate_state(1)[0]))
        total = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, _ = e.last()
            total[agent] += reward
            if terminated or truncated:
                e.step(None)
                continue
            mask = obs["action_mask"]
            legal = e.state.legal_actions()
            assert np.flatnonzero(mask).tolist() == legal, \
                f"unit {unit}: action mask {np.flatnonzero(mask).tolist()} != legal {legal}"
            e.step(int(policy.choice(legal)))
            steps += 1
        returns = e.state.returns()
        got = [total[a] for a in e.possible_agents]
        assert np.allclose(got, returns, atol=TOLERANCE), \
            f"unit {unit}: rewards {got} != returns {returns}"
    return f"{games} units, {steps} steps: rewards add up to the returns"


# ------------------------------------------------------------------ OpenSpiel


def _random_sim(spiel, games: int) -> str:
    _quiet(pyspiel.random_sim_test, spiel, num_sims=games, serialize=True, verbose=False)
    return f"{games} simulations (pyspiel.random_sim_test, serialize=True)"


def _random_child(state, rng: np.random.Generator) -> int:
    if state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
        return int(outcomes[rng.choice(len(outcomes), p=np.array(probabilities))])
    return int(rng.choice(state.legal_actions()))


def _state_api(spiel, step_game, games: int, seed: np.random.SeedSequence) -> str:
    info = step_game.info
    rng = np.random.default_rng(seed)
    states = 0
    for unit in range(games):
        state = spiel.new_initial_state()
        while not state.is_terminal():
            states += 1
            where = f"unit {unit}, move {len(state.history())}"
            if state.is_chance_node():
                total = sum(p for _, p in state.chance_outcomes())
                assert abs(total - 1.0) < 1e-9, f"{where}: chance probabilities sum to {total}"
                assert all(0 <= o < info.max_chance_outcomes for o, _ in state.chance_outcomes())
            else:
                player = state.current_player()
                legal = state.legal_actions()
                assert legal and legal == sorted(legal), f"{where}: legal actions {legal}"
                assert all(0 <= a < info.num_distinct_actions for a in legal), where
                mask = state.legal_actions_mask(player)
                assert np.flatnonzero(mask).tolist() == legal, f"{where}: mask != legal"
                for p in range(info.num_players):
                    _check_tensor(state.information_state_tensor(p),
                                  info.information_state_size, info, f"{where}, info tensor")
                    _check_tensor(state.observation_tensor(p), info.observation_size, info,
                                  f"{where}, observation tensor")
                    assert state.information_state_string(p) and state.observation_string(p)
            clone = state.clone()
            assert clone.history() == state.history(), f"{where}: the clone's history differs"
            action = _random_child(state, rng)
            clone.apply_action(action)
            state.apply_action(action)
            assert str(clone) == str(state), f"{where}: the clone plays differently"
        assert len(state.history()) <= info.max_game_length, \
            f"unit {unit}: {len(state.history())} moves > max_game_length"
        returns = state.returns()
        assert all(info.min_utility - TOLERANCE <= r <= info.max_utility + TOLERANCE
                   for r in returns), f"unit {unit}: returns {returns} outside the utility bounds"
        if info.zero_sum:
            assert abs(sum(returns)) < TOLERANCE, f"unit {unit}: returns {returns} not zero-sum"
    return f"{games} units, {states} states"


def _check_tensor(values, size: int, info, where: str) -> None:
    tensor = np.asarray(values, dtype=np.float64)
    assert tensor.shape == (size,), f"{where}: shape {tensor.shape}, declared ({size},)"
    assert np.isfinite(tensor).all(), f"{where}: not finite"
    assert (tensor >= info.tensor_low).all() and (tensor <= info.tensor_high).all(), \
        f"{where}: outside [{info.tensor_low}, {info.tensor_high}]"


def _serialize(spiel, games: int, seed: np.random.SeedSequence) -> str:
    rng = np.random.default_rng(seed)
    checked = 0
    for unit in range(games):
        state = spiel.new_initial_state()
        while True:
            text = pyspiel.serialize_game_and_state(spiel, state)
            game2, state2 = pyspiel.deserialize_game_and_state(text)
            where = f"unit {unit}, move {len(state.history())}"
            assert str(game2) == str(spiel), f"{where}: the game comes back as {game2}"
            assert state2.history() == state.history(), f"{where}: history differs"
            assert state2.current_player() == state.current_player(), where
            if not state.is_terminal() and not state.is_chance_node():
                for p in range(spiel.num_players()):
                    assert state2.information_state_string(p) == \
                        state.information_state_string(p), f"{where}: information state"
                    assert state2.observation_tensor(p) == state.observation_tensor(p), where
            assert state2.returns() == state.returns(), f"{where}: returns"
            checked += 1
            if state.is_terminal():
                break
            state.apply_action(_random_child(state, rng))
    return f"{checked} states of {games} units round-trip"


def _all_states(spiel, options: dict) -> str:
    from open_spiel.python.algorithms import get_all_states

    states = get_all_states.get_all_states(spiel, include_terminals=True,
                                           include_chance_states=False)
    seen: dict[str, tuple] = {}
    decisions = 0
    for state in states.values():
        if state.is_terminal():
            continue
        decisions += 1
        player = state.current_player()
        key = state.information_state_string(player)
        value = (tuple(state.legal_actions()), tuple(state.information_state_tensor(player)))
        previous = seen.setdefault(key, value)
        assert previous[0] == value[0], f"information state {key!r}: two sets of legal actions"
        assert previous[1] == value[1], f"information state {key!r}: two tensors"
    shown = ", ".join(f"{k}={v}" for k, v in options.items()) or "(the default options)"
    return (f"{len(states)} states ({decisions} decisions, {len(seen)} information states) "
            f"of the reduced variant {shown}")
