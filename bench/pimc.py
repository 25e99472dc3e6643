"""PIMC players' speed: decisions per second per core, by kind of decision, at several worlds.

Prints, on one core (one process, numpy single-threaded; times are CPU seconds of this
process, ``time.process_time``, so that other jobs on a shared machine distort the figures
less than wall time), for each number of worlds (default 4, 8, 16):

- Manille coincée (default table), the PIMC player at seat 0 with its trump choice and
  contre switched on (``pimc_choose``, ``pimc_contre``: off by default), the heuristic at
  the other seats: card play by trick (1..8) and overall, trump choice (MA-3: each suit and
  sans atout solved from the first card in every world, and passing), contre / surcontre
  (MA-4);
- Bianco Mano, 3, 4 and 5 players, the PIMC card player at seat 0 (card play, BM-8; the
  other decisions are the heuristic's), the heuristic elsewhere.

The figures come from real engine deals (``simulate_deals``, deals ``0 .. --deals - 1`` of
``--seed``): a wrapper times each call of the PIMC player's methods. The seat dispatcher
asks every policy of a table for every row of a decision and keeps the acting seat's
answers, so the wrapper hands the PIMC player only the rows of its own seat (the others get
a placeholder the dispatcher discards): the times are those of seat 0's decisions alone.
A *decision* is a row the player decides: for a card, a row with two legal cards or more (a
forced card costs nothing and is not counted; the last trick is always forced; a row whose
legal cards are all equivalent is counted, though the player settles it without worlds);
every trump choice and contre question. Compiled code is warmed up before timing. Run::

    python bench/pimc.py                          # 40 deals per game, worlds 4, 8, 16
    python bench/pimc.py --deals 8 --worlds 4     # smoke test
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: per-core figures
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from simulators.bianco_mano import engine as bm_engine  # noqa: E402
from simulators.bianco_mano import rules as bm_rules  # noqa: E402
from simulators.bianco_mano.game import GAME as BIANCO_MANO  # noqa: E402
from simulators.core import bits  # noqa: E402
from simulators.core import double_dummy as dd  # noqa: E402
from simulators.manille import engine as ma_engine  # noqa: E402
from simulators.manille import rules as ma_rules  # noqa: E402
from simulators.manille.game import GAME as MANILLE  # noqa: E402

SEAT = 0  # the PIMC player's seat
TIMED = ("choose", "contre", "play")  # the PIMC decisions (Bianco Mano's: play only)


def _rows(obs, rows: np.ndarray):
    """The observation restricted to ``rows`` (array fields with a row axis; scalars kept)."""
    n = len(obs.seat)
    return type(obs)(*(v[rows] if isinstance(v, np.ndarray) and v.ndim and v.shape[0] == n
                       else v for v in obs))


class Timed:
    """A PIMC policy at one seat, its decision methods timed (CPU seconds) per kind of
    decision; ``seconds[key]`` and ``decisions[key]``, key ``(method, trick)`` (trick 1..,
    or 0 for the trump choice and contre)."""

    def __init__(self, inner, seat: int, methods=TIMED):
        self.inner, self.seat, self.methods = inner, seat, methods
        self.uses_noise = inner.uses_noise
        self.seconds: dict = defaultdict(float)
        self.decisions: dict = defaultdict(int)

    def __getattr__(self, name):  # the decisions not timed: the inner policy's own
        return getattr(self.inner, name)

    def _timed(self, method: str, obs):
        mine = np.flatnonzero(np.asarray(obs.seat) == self.seat)
        out = np.zeros(len(obs.seat), np.int64 if method != "contre" else bool)
        if mine.size == 0:
            return out
        sub = _rows(obs, mine)
        start = time.process_time()
        out[mine] = getattr(self.inner, method)(sub)
        spent = time.process_time() - start
        if method == "play":
            key = ("play", int(obs.trick) + 1)
            solved = int((bits.popcount(sub.legal) > 1).sum())
        else:
            key, solved = (method, 0), mine.size
        self.seconds[key] += spent
        self.decisions[key] += solved
        return out

    def choose(self, obs):
        return self._timed("choose", obs)

    def contre(self, obs):
        return self._timed("contre", obs)

    def play(self, obs):
        return self._timed("play", obs)


def manille_run(worlds: int, deals: int, seed: int) -> Timed:
    timed = Timed(MANILLE.make_policy("pimc", worlds=worlds, pimc_choose=True,
                                      pimc_contre=True), SEAT)
    policies = [MANILLE.make_policy("heuristic")] * ma_rules.N_SEATS
    policies[SEAT] = timed
    ma_engine.simulate_deals(ma_rules.ManilleConfig(), policies, deals, seed=seed)
    return timed


def bianco_mano_run(players: int, worlds: int, deals: int, seed: int) -> Timed:
    timed = Timed(BIANCO_MANO.make_policy("pimc", worlds=worlds), SEAT, ("play",))
    policies = [BIANCO_MANO.make_policy("heuristic")] * players
    policies[SEAT] = timed
    bm_engine.simulate_deals(bm_rules.BiancoManoConfig(n_players=players), policies, deals,
                             seed=seed)
    return timed


def _cell(decisions: int, seconds: float) -> str:
    if decisions == 0:
        return f"{'-':>6} {'-':>9} {'-':>8}"
    return f"{decisions:>6,} {decisions / seconds:>9,.1f} {1e3 * seconds / decisions:>8,.1f}"


def table(runs: dict[int, dict[str, Timed]]) -> list[str]:
    """One line per kind of decision, one (decisions, dec/s, ms/dec) column group per worlds."""
    worlds = sorted(runs)
    lines = [f"{'':<34}" + "".join(f"   {'worlds = ' + str(w):^25}" for w in worlds),
             f"{'decision':<34}" + "".join(f"   {'n':>6} {'dec/s':>9} {'ms/dec':>8}"
                                           for _ in worlds)]
    labels: list[tuple[str, str, list]] = []
    first = runs[worlds[0]]
    tricks = sorted(k[1] for k in first["manille"].seconds if k[0] == "play")
    tricks = sorted(set(tricks) | set(range(1, ma_rules.N_TRICKS + 1)))
    for t in tricks:
        labels.append((f"Manille card play, trick {t}", "manille", [("play", t)]))
    labels.append(("Manille card play, all tricks", "manille",
                   [("play", t) for t in tricks]))
    labels.append(("Manille trump choice (MA-3)", "manille", [("choose", 0)]))
    labels.append(("Manille contre / surcontre (MA-4)", "manille", [("contre", 0)]))
    for n in bm_rules.PLAYER_COUNTS:
        labels.append((f"Bianco Mano {n}p card play", f"bm{n}",
                       [("play", t) for t in range(1, bm_rules.HAND_SIZE[n] + 1)]))
    for label, game, keys in labels:
        cells = []
        for w in worlds:
            timed = runs[w][game]
            cells.append(_cell(sum(timed.decisions[k] for k in keys),
                               sum(timed.seconds[k] for k in keys)))
        lines.append(f"{label:<34}" + "".join(f"   {c}" for c in cells))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40,
                        help="engine deals per game and player count, at each worlds")
    parser.add_argument("--worlds", default="4,8,16",
                        help="comma-separated numbers of worlds per decision")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        worlds = sorted({int(w) for w in args.worlds.split(",") if w.strip()})
    except ValueError:
        parser.error(f"--worlds must be comma-separated integers, got {args.worlds!r}")
    if not worlds or min(worlds) < 1 or args.deals < 1:
        parser.error("--deals and every --worlds must be positive")
    print(f"PIMC players, {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}, {os.cpu_count()} cores (figures per core, CPU time), "
          f"{args.deals} deals per game, seed {args.seed}; PIMC at seat {SEAT}, the heuristic "
          "elsewhere")
    start = time.process_time()
    dd.warm_up()
    manille_run(1, 2, args.seed + 1)  # compiled code (read_history, sampler, solver) warm
    for n in bm_rules.PLAYER_COUNTS:
        bianco_mano_run(n, 1, 2, args.seed + 1)
    print(f"warm-up (compiled code from the on-disk cache): {time.process_time() - start:.1f} "
          "CPU s")
    runs: dict[int, dict[str, Timed]] = {}
    for w in worlds:
        start = time.process_time()
        runs[w] = {"manille": manille_run(w, args.deals, args.seed)}
        for n in bm_rules.PLAYER_COUNTS:
            runs[w][f"bm{n}"] = bianco_mano_run(n, w, args.deals, args.seed)
        print(f"worlds = {w}: {time.process_time() - start:.1f} CPU s", flush=True)
    print("decisions solved (n), decisions per CPU-second (dec/s), milliseconds per decision:")
    for line in table(runs):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
