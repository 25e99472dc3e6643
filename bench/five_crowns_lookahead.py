"""Five Crowns lookahead speed: decisions per second per core, beside the heuristic's.

For each round (default 1, 6 and 11; 4 players), ``--rounds`` independent
rounds are played by the heuristic at every seat while a recorder keeps a
copy of every draw and discard observation batch (one batch per turn: the
acting seat of every round still in play, up to ``--rounds`` rows, as in a
runner chunk of that size with the policy at every seat). Then each policy
(heuristic, lookahead) decides every recorded batch, timed in CPU seconds of
this process (``time.process_time``: other jobs on a shared machine distort
it less than wall time). A *decision* is one row of one batch; the figures
are rows decided per second, by kind (draw, discard) and both together.
Compiled code is warmed up before timing. Run::

    python bench/five_crowns_lookahead.py
    python bench/five_crowns_lookahead.py --rounds 50 --round-nos 11   # smoke test
"""

from __future__ import annotations

import argparse
import os
import platform
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: per-core figures
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from simulators.five_crowns import melds  # noqa: E402
from simulators.five_crowns.engine import simulate_rounds  # noqa: E402
from simulators.five_crowns.lookahead import LookaheadPolicy  # noqa: E402
from simulators.five_crowns.policies import HeuristicPolicy  # noqa: E402
from simulators.five_crowns.rules import FiveCrownsConfig  # noqa: E402


class Recorder:
    """The heuristic at every seat, keeping a copy of each observation (hands are mutated)."""

    def __init__(self):
        self.inner, self.draws, self.discards = HeuristicPolicy(), [], []

    def draw(self, obs):
        self.draws.append(obs._replace(hand=obs.hand.copy(), seen=obs.seen.copy()))
        return self.inner.draw(obs)

    def discard(self, obs):
        self.discards.append(obs._replace(hand=obs.hand.copy(), seen=obs.seen.copy()))
        return self.inner.discard(obs)

    def go_out(self, obs):
        return self.inner.go_out(obs)


def timed(method, batches) -> tuple[int, float]:
    """(rows decided, CPU seconds) of one method over every batch."""
    start = time.process_time()
    rows = 0
    for obs in batches:
        method(obs)
        rows += len(obs.seat)
    return rows, time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="rounds per round number")
    parser.add_argument("--round-nos", default="1,6,11")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    compile_seconds = melds.warm_up()
    policies = {"heuristic": HeuristicPolicy(), "lookahead": LookaheadPolicy()}
    print(f"Five Crowns lookahead vs heuristic, {args.players} players, {args.rounds} rounds "
          f"per round number, {platform.machine()}, Python {platform.python_version()}; "
          f"solver compile/load {compile_seconds:.2f} s; decisions/s per core (CPU time)")
    print(f"{'round':>5} {'policy':>10} {'draw/s':>10} {'discard/s':>10} {'all/s':>10} "
          f"{'rows/batch':>10}")
    for round_no in (int(r) for r in args.round_nos.split(",")):
        recorder = Recorder()
        config = FiveCrownsConfig(n_players=args.players, round_no=round_no)
        simulate_rounds(config, recorder, args.rounds, seed=args.seed)
        for policy in policies.values():  # warm up (first calls, caches)
            policy.draw(recorder.draws[0])
            policy.discard(recorder.discards[0])
        rates = {}
        for name, policy in policies.items():
            n_draw, t_draw = timed(policy.draw, recorder.draws)
            n_disc, t_disc = timed(policy.discard, recorder.discards)
            rates[name] = (n_draw + n_disc) / (t_draw + t_disc)
            per_batch = n_disc / len(recorder.discards)
            print(f"{round_no:>5} {name:>10} {n_draw / t_draw:>10,.0f} {n_disc / t_disc:>10,.0f} "
                  f"{rates[name]:>10,.0f} {per_batch:>10.1f}")
        print(f"{round_no:>5} {'ratio':>10} {'':>10} {'':>10} "
              f"{rates['heuristic'] / rates['lookahead']:>9.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
