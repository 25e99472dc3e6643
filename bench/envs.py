"""Steps per second of the game-AI environments beside the vectorized engine, one run.

For every registered game whose ``GAME`` declares ``steps`` (issue 24), in
this one process with repeated timings (median, min, max; bench/harness.py's
``timed``):

* **engine**: the game's first unit played by the vectorized engine with the
  random policy (``unit.play``, one batch), in units/s;
* **StepState**: uniformly random legal play straight on the StepGame;
* **pyspiel**: the same through OpenSpiel's state API (the registered Python game);
* **PettingZoo**: the same through the AEC environment (``agent_iter``/``last``/``step``,
  observations and masks built at every step).

Steps are decisions (chance moves are counted apart: the environments deal
inside them); the unit rate of the environments is beside the engine's, and
their ratio says how much faster the batch engine plays the same unit (its
random policy is the game's own, not uniform over the legal actions, so the
ratio compares units of similar length, not identical games). Needs the
``[rl]`` extra. Run::

    flock /tmp/cpu.lock python bench/envs.py                # every game with steps
    flock /tmp/cpu.lock python bench/envs.py --quick --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.harness import timed  # noqa: E402

STREAM_POLICY = 0  # the random players' moves
STREAM_CHANCE = 1  # the environments' seeds (PettingZoo reset)


def play_steps(game, units: int, rng: np.random.Generator) -> tuple[int, int]:
    """Uniformly random units on a StepGame: (decisions, chance moves)."""
    from simulators.core.steps import CHANCE

    decisions = chance = 0
    for _ in range(units):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                outcomes = state.chance_outcomes()
                k = rng.choice(len(outcomes), p=[p for _, p in outcomes])
                state.apply_action(outcomes[k][0])
                chance += 1
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                decisions += 1
    return decisions, chance


def play_pyspiel(game, units: int, rng: np.random.Generator) -> tuple[int, int]:
    """The same through pyspiel's state API."""
    decisions = chance = 0
    for _ in range(units):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(outcomes[rng.choice(len(outcomes), p=probabilities)]))
                chance += 1
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                decisions += 1
    return decisions, chance


def play_pettingzoo(env, units: int, rng: np.random.Generator,
                    seeds: np.random.SeedSequence) -> tuple[int, int]:
    """The same through the AEC environment (observations and masks at every step)."""
    decisions = 0
    for child in seeds.spawn(units):
        env.reset(seed=int(child.generate_state(1)[0]))
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            decisions += 1
    return decisions, 0


def bench_game(game, units: int, engine_units: int, repeats: int, seed: int) -> dict:
    """One game's rates: engine units/s, and units/s and steps/s of each environment."""
    from simulators.core.rl.openspiel import load
    from simulators.core.rl.pettingzoo import StepEnv
    from simulators.core.steps import make_step_game

    streams = np.random.SeedSequence(seed).spawn(2)
    step_game = make_step_game(game)
    spiel = load(game)
    env = StepEnv(game)
    unit = game.units[0]
    config = game.make_config()
    policy = game.make_policy(game.random_policy)
    unit.play(config, policy, 0, min(engine_units, 100), seed)  # compile before timing
    out = {"game": game.name, "unit": unit.singular}

    def engine() -> float:
        start = time.perf_counter()
        unit.play(config, policy, 0, engine_units, seed)
        return engine_units / (time.perf_counter() - start)

    out["engine_units_per_s"] = timed(engine, repeats)
    for name, run in (
        ("StepState", lambda rng: play_steps(step_game, units, rng)),
        ("pyspiel", lambda rng: play_pyspiel(spiel, units, rng)),
        ("PettingZoo", lambda rng: play_pettingzoo(env, units, rng, streams[1])),
    ):
        unit_rates, step_rates, lengths = [], [], []
        for rng in (np.random.default_rng(s) for s in streams[0].spawn(repeats)):
            start = time.perf_counter()
            decisions, _ = run(rng)
            seconds = time.perf_counter() - start
            unit_rates.append(units / seconds)
            step_rates.append(decisions / seconds)
            lengths.append(decisions / units)
        out[name] = {"units_per_s": _spread(unit_rates), "steps_per_s": _spread(step_rates),
                     "decisions_per_unit": statistics.mean(lengths)}
    out["engine_over_StepState"] = out["engine_units_per_s"][0] / \
        out["StepState"]["units_per_s"][0]
    return out


def _spread(rates: list[float]) -> tuple[float, float, float]:
    return statistics.median(rates), min(rates), max(rates)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=2_000, help="units per environment timing")
    parser.add_argument("--engine-units", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--game", action="append", default=[],
                        help="only this game, repeatable (default: every game with steps)")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--json", action="store_true", help="one JSON document")
    args = parser.parse_args(argv)
    if args.quick:
        args.units, args.engine_units, args.repeats = 100, 5_000, 1
    from simulators.core.game import games

    rows = [bench_game(g, args.units, args.engine_units, args.repeats, args.seed)
            for g in games().values()
            if g.steps is not None and (not args.game or g.name in args.game)]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        e = row["engine_units_per_s"]
        print(f"{row['game']} ({row['unit']}s): engine {e[0]:,.0f} {row['unit']}s/s "
              f"(min {e[1]:,.0f}, max {e[2]:,.0f}), random policy")
        for name in ("StepState", "pyspiel", "PettingZoo"):
            r = row[name]
            print(f"  {name:<10} {r['steps_per_s'][0]:>10,.0f} steps/s "
                  f"(min {r['steps_per_s'][1]:,.0f}, max {r['steps_per_s'][2]:,.0f})  "
                  f"{r['units_per_s'][0]:>8,.0f} {row['unit']}s/s  "
                  f"{r['decisions_per_unit']:.1f} decisions per {row['unit']}")
        print(f"  engine / StepState: {row['engine_over_StepState']:,.0f}x per {row['unit']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
