"""Rollout decisions per second, by decision kind, beside the base policy's in the same run.

Seat 0 plays the ``rollout`` policy (its defaults, or ``--k``), the other seats
its base; every rolled-out decision is timed (CPU time of the process: the
determinization, the continuations and the choice). The base's figure comes
from the same games with the base at every seat: its decisions of those
kinds per CPU second. Run::

    python bench/rollout.py
    python bench/rollout.py --bango-games 100 --players 3 --rounds 200 --round-no 6,11 --k 8
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections import Counter

os.environ.setdefault("OMP_NUM_THREADS", "1")

from simulators.core.game import get_game  # noqa: E402


def counting(policy, kinds, counts: Counter, seconds: Counter, only_worlds: bool):
    """The same policy, its decisions of ``kinds`` counted and timed (CPU seconds)."""
    cls = type(policy)

    def timed(method):
        parent = getattr(cls, method, None)  # None: the rollout's methods come from __getattr__

        def decide(self, obs):
            start = time.process_time()
            answer = (parent(self, obs) if parent is not None
                      else cls.__getattr__(self, method)(obs))
            if not only_worlds or getattr(obs, "world", None) is not None:
                counts[method] += len(obs.seat)
                seconds[method] += time.process_time() - start
            return answer
        return decide

    Counted = type(f"Counted{cls.__name__}", (cls,), {m: timed(m) for m in kinds})
    return Counted(**policy.get_params())


def bench(game_name: str, label: str, config, unit: str, size: int, params: dict,
          seed: int) -> list[str]:
    """One table row per rolled-out kind: decisions, rollout and base decisions per second."""
    game = get_game(game_name)
    policy = game.make_policy("rollout", **params)
    kinds = sorted(policy._kinds)
    play = next(u for u in game.units if u.name == unit).play
    n = config.n_players
    counts, seconds, base_counts, base_seconds = Counter(), Counter(), Counter(), Counter()
    mine = counting(policy, kinds, counts, seconds, only_worlds=True)
    base = game.make_policy(policy.base)
    start = time.process_time()
    play(config, [mine, *[base] * (n - 1)], 0, size, seed)
    total = time.process_time() - start
    play(config, counting(base, kinds, base_counts, base_seconds, only_worlds=False), 0, size,
         seed)
    rows = []
    for method in kinds:
        rate = counts[method] / seconds[method] if seconds[method] else float("nan")
        base_rate = (base_counts[method] / base_seconds[method] if base_seconds[method]
                     else float("nan"))
        rows.append(f"| {label} | {method} | {counts[method]:,} | {rate:,.1f} | "
                    f"{base_rate:,.0f} | {base_rate / rate:,.0f}× |")
    rows.append(f"| {label} | whole run, rollout at seat 0 | {size:,} {unit} | "
                f"{size / total:,.2f} {unit}/s | | |")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bango-games", type=int, default=60)
    parser.add_argument("--players", default="3", help="Bango player counts")
    parser.add_argument("--rounds", type=int, default=200, help="Five Crowns rounds")
    parser.add_argument("--round-no", default="1,6,11", help="Five Crowns round numbers")
    parser.add_argument("--k", type=int, help="worlds per candidate (default: the policy's)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    params = {} if args.k is None else {"k": args.k}
    from simulators.bango.rules import BangoConfig
    from simulators.five_crowns.rules import FiveCrownsConfig

    print(f"# rollout decisions per CPU second ({platform.processor() or platform.machine()}, "
          "one process)\n")
    print("| setting | kind | decisions | rollout decisions/s | base decisions/s | "
          "base ÷ rollout |")
    print("|---|---|---:|---:|---:|---:|")
    for n in (int(p) for p in args.players.split(",")):
        for line in bench("bango", f"Bango {n}p", BangoConfig(n_players=n), "games",
                          args.bango_games, params, args.seed):
            print(line, flush=True)
    for r in (int(r) for r in args.round_no.split(",")):
        for line in bench("five-crowns", f"Five Crowns round {r}",
                          FiveCrownsConfig(n_players=4, round_no=r), "rounds", args.rounds,
                          params, args.seed):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
