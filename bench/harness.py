"""tapisvert benchmark harness: every game, one run, ratios beside the figures.

For each game it measures, in this one process with repeated timings
(median, min, max): the vectorized engine per core at several batch sizes,
the referee on the same work, peak traced memory per batch size, random-
policy workloads, import and compile times; then the runner's 1-vs-2
process scaling beside the machine's own ceiling, OpenSpiel's C++ random
rollouts for the closest games when ``pyspiel`` is installed
(``pip install -e .[bench]``), the game-AI environments' steps per second beside
each engine (``bench/envs.py``, with the ``[rl]`` extra), and a profile of the
hottest workload.
Targets print PASS or BELOW; nothing asserts on timings. Run::

    python bench/harness.py                       # default sizes, a few minutes
    python bench/harness.py --quick               # smoke test (CI)
    python bench/harness.py --write-docs docs/performance.md
    python bench/harness.py --full                # adds Five Crowns at 10^6 rounds
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

TARGETS = {
    "bm_deals": 700_000,  # Bianco Mano 4p heuristic, batch 10^5, deals/s per core (issue 9)
    "bm_vs_base": 1.0,  # ... over the engine before the trick kernel, same run
    "bm_vs_skat": 6.0,  # ... over OpenSpiel C++ skat random games/s
    "fc_turns": 100_000,  # Five Crowns 4p heuristic, player-turns/s per core
    "fc_vs_gin": 2.0,  # ... decisions/s over OpenSpiel C++ gin_rummy random decisions/s
    "scaling": 1.8,  # runner, 2 processes over 1
    "manille_deals": 400_000,  # Manille heuristic, batch 10^5, deals/s per core (issue 11)
    "manille_vs_referee": 30.0,
    "truc_deals": 1_000_000,  # Truc heuristic, batch 10^5, deals/s per core (issue 12)
    "bango_turns": 200_000,  # Bango 4p heuristic, player-turns/s per core (issue 13)
}


def bench_script(name: str):
    """One of the single-game scripts beside this file, loaded as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Report:
    """Collects printed lines and table rows for docs/performance.md."""

    def __init__(self):
        self.lines: list[str] = []
        self.rows: list[tuple[str, str, str, str]] = []  # (what, figure, spread, note)
        self.verdicts: list[tuple[str, str, str]] = []

    def say(self, text: str = "") -> None:
        print(text, flush=True)
        self.lines.append(text)

    def row(self, what: str, figure: str, spread: str = "", note: str = "") -> None:
        self.rows.append((what, figure, spread, note))
        self.say(f"  {what:<52} {figure:>18}  {spread:<28} {note}")

    def verdict(self, name: str, value: float, target: float, unit: str) -> None:
        result = "PASS" if value >= target else "BELOW"
        self.verdicts.append((name, f"{value:,.2f} {unit} (target {target:,} {unit})", result))
        self.say(f"  TARGET {name}: {value:,.2f} {unit} vs >= {target:,} -> {result}")


def timed(work: Callable[[], float], repeats: int) -> tuple[float, float, float]:
    """Median, min, max of ``work()``'s rate over repeats (work returns units done / s)."""
    rates = [work() for _ in range(repeats)]
    return statistics.median(rates), min(rates), max(rates)


def rate_of(units: Callable[[], int]) -> Callable[[], float]:
    def work() -> float:
        start = time.perf_counter()
        done = units()
        return done / (time.perf_counter() - start)
    return work


def fmt(stats3: tuple[float, float, float], unit: str) -> tuple[str, str]:
    med, lo, hi = stats3
    return f"{med:,.0f} {unit}", f"(min {lo:,.0f}, max {hi:,.0f})"


def peak_traced(run: Callable[[], object]) -> float:
    """Peak traced allocation (MiB) of one untimed run."""
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def subprocess_seconds(code: str, repeats: int = 3) -> float:
    """Median wall seconds of ``python -c code`` in fresh processes."""
    walls = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def yardstick() -> float:
    """Seconds for a fixed pure-Python loop: how fast this machine is right now."""
    start = time.perf_counter()
    x = 0
    for i in range(5_000_000):
        x += i
    return time.perf_counter() - start


# ---------------------------------------------------------------- games


def bench_bianco_mano(rep: Report, sizes: list[int], repeats: dict[int, int]) -> dict:
    from simulators.bianco_mano import (
        BiancoManoConfig,
        HeuristicPolicy,
        RandomPolicy,
        referee,
        simulate_deals,
    )

    rep.say("Bianco Mano, 4 players (deals/s per core, whole simulate_deals calls)")
    config = BiancoManoConfig(n_players=4)
    heuristic, random_policy = HeuristicPolicy(), RandomPolicy()
    simulate_deals(config, heuristic, 1_000, seed=0)
    out = {}
    for size in sizes:
        stats3 = timed(rate_of(lambda s=size: simulate_deals(config, heuristic, s, seed=1)
                               and s), repeats[size])
        memory = peak_traced(lambda s=size: simulate_deals(config, heuristic, s, seed=2))
        rep.row(f"engine, heuristic, batch {size:,}", *fmt(stats3, "deals/s"),
                f"peak {memory:,.0f} MiB = {memory * 2**20 / size:,.0f} B/deal")
        out[size] = stats3[0]
    big = max(s for s in sizes if s <= 100_000)
    random_rate = timed(rate_of(lambda: simulate_deals(config, random_policy, big, seed=3)
                                and big), repeats[big])
    rep.row(f"engine, random policy, batch {big:,}", *fmt(random_rate, "deals/s"))
    batch = simulate_deals(config, heuristic, 1_500, seed=4)
    records = [batch.record(i) for i in range(1_500)]
    ref = timed(rate_of(lambda: [referee.replay_deal(r, config) for r in records]
                        and len(records)), 3)
    rep.row("referee replaying the same kind of deals", *fmt(ref, "deals/s"))
    rep.say(f"  engine / referee: {out[big] / ref[0]:.1f}x")
    rep.verdict("Bianco Mano 4p heuristic", out[big], TARGETS["bm_deals"], "deals/s")
    return {"heuristic": out[big], "random": random_rate[0], "referee": ref[0]}


BASE_COMMIT = "dae0a95"  # Bianco Mano engine before the trick kernel (issue 9)

_RATE_CODE = """
import json, statistics, sys, time
sys.path.insert(0, {root!r})
from simulators.bianco_mano import BiancoManoConfig, make_policy, simulate_deals
config, policy = BiancoManoConfig(n_players={players}), make_policy({policy!r})
simulate_deals(config, policy, 2_000, seed=0)
rates = []
for r in range({repeats}):
    start = time.process_time()  # CPU time: per core, and blind to other processes' load
    simulate_deals(config, policy, {batch}, seed=r + 1)
    rates.append({batch} / (time.process_time() - start))
print(json.dumps(rates))
"""


def bench_kernel_compile(rep: Report, cold: bool) -> None:
    """Compile time of the numba code: the trick kernel alone, then everything a Bianco Mano
    deal runs (kernel, engine stages, heuristic); from the disk cache, and cold."""
    kernel = "from simulators.core import tricks; print(tricks.warm_up())"
    deal = ("import time; t = time.perf_counter(); "
            "from simulators.bianco_mano import BiancoManoConfig, HeuristicPolicy, simulate_deals; "
            "simulate_deals(BiancoManoConfig(n_players=4), HeuristicPolicy(), 1000, seed=0); "
            "print(time.perf_counter() - t)")

    def seconds(code: str, env: dict) -> float:
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, text=True,
                             capture_output=True, env={**os.environ, **env})
        return float(out.stdout.strip().splitlines()[-1])

    for what, code in (("trick kernel", kernel),
                       ("BM import + 1,000 deals (all its compiled code)", deal)):
        if cold:  # a full run: make sure the cache exists (a smoke test takes it as found)
            seconds(code, {})
        rep.row(f"{what}: numba cache warm", f"{seconds(code, {}):.2f} s", "",
                "first call of a fresh process")
        if cold:
            with tempfile.TemporaryDirectory() as tmp:
                cold_seconds = seconds(code, {"NUMBA_CACHE_DIR": tmp})
                rep.row(f"{what}: empty numba cache", f"{cold_seconds:.2f} s", "",
                        "once per install")


def checkout_of(commit: str, into: Path) -> Path:
    """``simulators/`` of ``commit`` extracted into ``into`` (git archive; no worktree needed)."""
    archive = subprocess.run(["git", "archive", commit, "simulators"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def subprocess_rates(root: Path, batch: int, repeats: int, policy: str = "heuristic",
                     players: int = 4) -> list[float]:
    """Deals/s of simulate_deals in a fresh process importing ``simulators`` from ``root``."""
    code = _RATE_CODE.format(root=str(root), players=players, policy=policy, repeats=repeats,
                             batch=batch)
    out = subprocess.run([sys.executable, "-c", code], cwd=root, check=True,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_bm_versus_base(rep: Report, batch: int, rounds: int, repeats: int) -> float:
    """This checkout's Bianco Mano engine against BASE_COMMIT's, interleaved in one run."""
    rep.say(f"Bianco Mano 4p heuristic, batch {batch:,}: this checkout vs commit {BASE_COMMIT} "
            f"(fresh processes, interleaved, {rounds} rounds x {repeats} timings; deals per "
            "CPU-second of the process, so other processes' load counts less)")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            base = checkout_of(BASE_COMMIT, Path(tmp))
        except (OSError, subprocess.CalledProcessError):
            rep.say(f"  skipped: commit {BASE_COMMIT} is not in this clone (git archive failed)")
            return float("nan")
        new_rates, old_rates, paired = [], [], []
        for _ in range(rounds):  # alternate, so drift in the machine's speed hits both
            new = statistics.median(subprocess_rates(ROOT, batch, repeats))
            old = statistics.median(subprocess_rates(base, batch, repeats))
            new_rates.append(new)
            old_rates.append(old)
            paired.append(new / old)
    new, old = statistics.median(new_rates), statistics.median(old_rates)
    rep.row(f"engine now, heuristic, batch {batch:,}", f"{new:,.0f} deals/CPU-s",
            f"(min {min(new_rates):,.0f}, max {max(new_rates):,.0f})")
    rep.row(f"engine at {BASE_COMMIT}, heuristic, batch {batch:,}", f"{old:,.0f} deals/CPU-s",
            f"(min {min(old_rates):,.0f}, max {max(old_rates):,.0f})")
    ratio = statistics.median(paired)
    rep.row(f"now / {BASE_COMMIT}", f"{ratio:.2f}x",
            f"(rounds: {', '.join(f'{r:.2f}' for r in paired)})")
    rep.verdict(f"Bianco Mano now / {BASE_COMMIT} (floor)", ratio, TARGETS["bm_vs_base"], "x")
    rep.verdict("Bianco Mano 4p heuristic, batch 10^5, per CPU-second", new,
                TARGETS["bm_deals"], "deals/s")
    return ratio


def bench_five_crowns(rep: Report, sizes: list[int], repeats: dict[int, int]) -> dict:
    from simulators.five_crowns import melds, referee
    from simulators.five_crowns.engine import simulate_rounds
    from simulators.five_crowns.policies import HeuristicPolicy, RandomPolicy
    from simulators.five_crowns.rules import FiveCrownsConfig

    rep.say("Five Crowns, 4 players, round 11 (13 cards, Kings wild): player-turns/s per core")
    compile_seconds = melds.warm_up()
    rep.row("solver warm-up in this process", f"{compile_seconds:.2f} s", "",
            "numba cache warm (first ever: ~6.5 s)")
    config = FiveCrownsConfig(n_players=4, round_no=11)
    heuristic = HeuristicPolicy()
    simulate_rounds(config, heuristic, 50, seed=0)
    out = {}
    for size in sizes:
        def turns(s=size):
            return int(simulate_rounds(config, heuristic, s, seed=1).table["turns"].sum())
        stats3 = timed(rate_of(turns), repeats[size])
        note = "peak not traced (time budget)"
        if size <= 10_000:
            memory = peak_traced(lambda s=size: simulate_rounds(config, heuristic, s, seed=2))
            note = f"peak {memory:,.0f} MiB"
        rep.row(f"engine, heuristic, batch {size:,} rounds", *fmt(stats3, "turns/s"), note)
        out[size] = stats3[0]
    big = max(s for s in sizes if s <= 100_000)  # targets are read at batch 10^5, as for BM
    two = FiveCrownsConfig(n_players=2, round_no=8)  # 10 cards, like gin rummy

    def random_turns():
        return int(simulate_rounds(two, RandomPolicy(), 200, seed=5).table["turns"].sum())
    random_rate = timed(rate_of(random_turns), 3)
    rep.row("engine, random policy, 2p round 8 (10 cards)", *fmt(random_rate, "turns/s"),
            "2 decisions per turn")
    sample = simulate_rounds(config, heuristic, 200, seed=6)
    records = [sample.record(i) for i in range(200)]
    n_turns = sum(len(r.turns) for r in records)
    ref = timed(rate_of(lambda: [referee.replay_round(r, config) for r in records]
                        and n_turns), 3)
    rep.row("referee replaying the same kind of rounds", *fmt(ref, "turns/s"))
    rep.verdict("Five Crowns 4p heuristic", out[big], TARGETS["fc_turns"], "turns/s")
    return {"heuristic": out[big], "random_decisions": 2 * random_rate[0]}


def bench_scaling(rep: Report, deals: int, repeats: int) -> None:
    from analysis.experiment import Experiment
    from analysis.runner import run

    rep.say(f"Runner: {deals:,} Bianco Mano deals, n_jobs 1 vs 2")

    def runner_rate(jobs: int) -> float:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            run(Experiment("bianco-mano", size=deals, seed=1), Path(tmp) / "r", n_jobs=jobs,
                chunk_size=max(1, deals // 20), progress=False)
            return deals / (time.perf_counter() - start)

    code = ("from simulators.bianco_mano import BiancoManoConfig, HeuristicPolicy, simulate_deals\n"
            f"[simulate_deals(BiancoManoConfig(), HeuristicPolicy(), {min(deals, 50_000)}, seed=i) "
            f"for i in range({max(1, deals // 100_000)})]")

    def wall(copies: int) -> float:
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", code], cwd=ROOT) for _ in range(copies)]
        for p in procs:
            p.wait()
        return time.perf_counter() - start

    runner_rate(2)  # start the worker pool
    ones, twos, ceilings = [], [], []
    for _ in range(repeats):  # interleaved, so drift in the machine's speed hits all three
        ones.append(runner_rate(1))
        twos.append(runner_rate(2))
        ceilings.append(2 * wall(1) / wall(2))
    one, two, ceiling = (statistics.median(x) for x in (ones, twos, ceilings))
    rep.row("runner n_jobs=1", f"{one:,.0f} deals/s")
    rep.row("runner n_jobs=2", f"{two:,.0f} deals/s", f"speed-up {two / one:.2f}x",
            f"ceiling: 2 independent engine processes {ceiling:.2f}x")
    rep.verdict("2-process scaling", two / one, TARGETS["scaling"], "x")


def bench_peers(rep: Report, seconds: float, ours: dict) -> None:
    try:
        import pyspiel
    except ImportError:
        rep.say("Peers: pyspiel not installed (pip install -e .[bench]); skipped")
        return
    rep.say("Peers: OpenSpiel C++ random rollouts (pyspiel.evaluate_bots, uniform random bots)")
    peer = {}
    for name in ("skat", "euchre", "gin_rummy"):
        game = pyspiel.load_game(name)
        bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(game.num_players())]

        def games_per_s(game=game, bots=bots) -> float:
            start, done = time.perf_counter(), 0
            while time.perf_counter() - start < seconds:
                pyspiel.evaluate_bots(game.new_initial_state(), bots, done)
                done += 1
            return done / (time.perf_counter() - start)

        stats3 = timed(games_per_s, 3)
        gen = np.random.default_rng(0)
        decisions = 0
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(int(outcomes[gen.integers(len(outcomes))][0]))
                else:
                    state.apply_action(int(gen.choice(state.legal_actions())))
                    decisions += 1
        per_game = decisions / 20
        peer[name] = (stats3[0], stats3[0] * per_game)
        rep.row(f"OpenSpiel {name}", *fmt(stats3, "games/s"),
                f"{per_game:.0f} decisions/game = {stats3[0] * per_game:,.0f}/s")
    if "bianco_mano" in ours:
        bm = ours["bianco_mano"]
        rep.say(f"  Bianco Mano random deals/s / skat random games/s: "
                f"{bm['random'] / peer['skat'][0]:.1f}x (like for like); heuristic: "
                f"{bm['heuristic'] / peer['skat'][0]:.1f}x; vs euchre: "
                f"{bm['random'] / peer['euchre'][0]:.1f}x")
        rep.verdict("Bianco Mano heuristic / skat", bm["heuristic"] / peer["skat"][0],
                    TARGETS["bm_vs_skat"], "x")
    if "five_crowns" in ours:
        fc = ours["five_crowns"]
        gin = peer["gin_rummy"][1]
        rep.say(f"  Five Crowns random decisions/s / gin_rummy random decisions/s: "
                f"{fc['random_decisions'] / gin:.1f}x (like for like); heuristic (2 decisions "
                f"per turn): {2 * fc['heuristic'] / gin:.1f}x")
        rep.verdict("Five Crowns heuristic decisions / gin_rummy", 2 * fc["heuristic"] / gin,
                    TARGETS["fc_vs_gin"], "x")


def bench_envs(rep: Report, units: int, engine_units: int, repeats: int) -> None:
    """The game-AI environments (bench/envs.py) beside each engine: steps per second."""
    try:
        import pettingzoo  # noqa: F401
        import pyspiel  # noqa: F401
    except ImportError:
        rep.say("Environments: the [rl] extra is not installed (pip install -e .[rl]); skipped")
        return
    from simulators.core.game import games

    envs = bench_script("envs")
    rep.say("Environments (docs/envs.md): uniform random play one move at a time, beside the "
            "engine's random policy on whole batches")
    for game in games().values():
        if game.steps is None:
            continue
        unit = game.units[0].singular
        out = envs.bench_game(game, units, engine_units, repeats, seed=2026)
        rep.row(f"{game.title}: engine", *fmt(out["engine_units_per_s"], f"{unit}s/s"))
        for layer in ("StepState", "pyspiel", "PettingZoo"):
            figures = out[layer]
            rep.row(f"{game.title}: {layer}", *fmt(figures["steps_per_s"], "steps/s"),
                    f"{figures['decisions_per_unit']:.1f} decisions/{unit}")
        rep.say(f"  engine / StepState, {unit}s per second: {out['engine_over_StepState']:,.0f}x")


def bench_manille(rep: Report, batch: int, repeats: int, peer_seconds: float) -> None:
    from simulators.core import tricks
    from simulators.manille import ManilleConfig, _heuristic_kernel
    from simulators.manille.policies import make_policy

    script = bench_script("manille")
    config = ManilleConfig()
    rep.say(f"Manille coincée (deals/s per core, CPU time, batch {batch:,})")
    rep.row("compiled code first call (kernel, heuristic)",
            f"{tricks.warm_up() + _heuristic_kernel.warm_up():.2f} s", "", "numba cache warm")
    heuristic = script.engine_rates(config, make_policy("heuristic"), batch, repeats)
    rand = script.engine_rates(config, make_policy("random"), batch, repeats)
    ref = script.referee_rates(config, make_policy("heuristic"), 500 if batch < 10**5 else 3_000, 3)
    for label, rates in (("engine, heuristic", heuristic), ("engine, random policy", rand),
                         ("referee replaying the same kind of deals", ref)):
        rep.row(label, *fmt((statistics.median(rates), min(rates), max(rates)), "deals/s"))
    h, r = statistics.median(heuristic), statistics.median(ref)
    for name, rates in script.openspiel_rates(peer_seconds, 3).items():
        g = statistics.median(rates)
        rep.row(f"OpenSpiel {name} random games (CPU time)", *fmt(
            (g, min(rates), max(rates)), "games/s"),
            f"Manille heuristic {h / g:.1f}x, random {statistics.median(rand) / g:.1f}x")
    rep.verdict("Manille heuristic", h, TARGETS["manille_deals"], "deals/s")
    rep.verdict("Manille engine / referee", h / r, TARGETS["manille_vs_referee"], "x")


def bench_truc(rep: Report, batch: int, repeats: int) -> None:
    from simulators.truc import fast
    from simulators.truc.policies import make_policy
    from simulators.truc.rules import TrucConfig

    script = bench_script("truc")
    config, policy = TrucConfig(), make_policy("heuristic")
    rep.say(f"Truc (deals/s per core, CPU time, batch {batch:,}, heuristic)")
    rep.row("fast-path kernel first call", f"{fast.warm_up():.2f} s", "", "numba cache warm")
    whole = script.simulate_rate(config, policy, batch, repeats)
    numpy_path = script.play_rate(config, policy, batch, repeats, fast=False)
    ref = script.referee_rate(config, policy, 1_000 if batch < 10**5 else 5_000, 3)
    r = statistics.median(ref)
    for label, rates in (("engine, simulate_deals (compiled heuristic)", whole),
                         ("engine, play_batch through the numpy path", numpy_path),
                         ("referee replaying the same kind of deals", ref)):
        m = statistics.median(rates)
        rep.row(label, *fmt((m, min(rates), max(rates)), "deals/s"),
                "" if rates is ref else f"{m / r:.1f}x referee")
    rep.verdict("Truc heuristic simulate_deals", statistics.median(whole), TARGETS["truc_deals"],
                "deals/s")


def bench_truc_solver(rep: Report, iterations: int) -> None:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        rep.say("Truc solver: pyspiel not installed (pip install -e .[bench]); skipped")
        return
    from simulators.core.cfr.leduc import leduc_tree

    script = bench_script("truc_solver")
    rep.say(f"Truc solver: CFR+ on Leduc poker, {iterations} iterations, one core (wall)")
    theirs, their_expl = script.openspiel_cfr_plus("leduc_poker", iterations)
    ours, our_expl = script.ours_cfr_plus(leduc_tree(), iterations)
    rep.row("OpenSpiel C++ CFRPlusSolver, Leduc", f"{theirs:,.0f} it/s", "",
            f"exploitability {their_expl:.2e}")
    rep.row("tapisvert CFR+ (numba, public tree), Leduc", f"{ours:,.0f} it/s", "",
            f"exploitability {our_expl:.2e}; {ours / theirs:.1f}x OpenSpiel")


def bench_bango(rep: Report, games: int, repeats: int) -> None:
    from simulators.bango.policies import make_policy
    from simulators.bango.rules import BangoConfig

    script = bench_script("bango")
    config, policy = BangoConfig(n_players=4), make_policy("heuristic")
    rep.say(f"Bango, 4 players, whole games of {games:,} (player-turns/s per core, CPU time)")
    rep.row("first 50 games (numba kernels loaded)", f"{script.warm_up(config, policy):.2f} s")
    rates, _ = script.engine_rates(config, policy, games, repeats)
    ref = script.referee_rates(config, policy, 50 if games < 10**4 else 300)
    e, r = statistics.median(rates), statistics.median(ref)
    rep.row("engine, heuristic", *fmt((e, min(rates), max(rates)), "turns/s"),
            f"{e / r:.1f}x referee")
    rep.row("referee replaying the same kind of games", *fmt((r, min(ref), max(ref)), "turns/s"))
    rep.verdict("Bango 4p heuristic", e, TARGETS["bango_turns"], "turns/s")


def profile_hottest(rep: Report, deals: int) -> list[tuple[str, float]]:
    """Where Bianco Mano's time goes, by stage."""
    from simulators.bianco_mano import BiancoManoConfig, HeuristicPolicy, simulate_deals

    config, policy = BiancoManoConfig(), HeuristicPolicy()
    simulate_deals(config, policy, 1_000, seed=6)  # compiled functions loaded
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    simulate_deals(config, policy, deals, seed=7)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    stage_of = {
        "permutations": "random draws (shuffles, cuts)", "draw_per_unit": "random draws "
        "(shuffles, cuts)", "uniforms": "random draws (shuffles, cuts)",
        "shuffled_decks": "random draws (shuffles, cuts)", "_fisher_yates": "random draws "
        "(shuffles, cuts)", "block_generator": "random draws (shuffles, cuts)",
        "_play_card": "trick kernel step (compiled: legality, winner, bookkeeping)",
        "_first_illegal": "trick kernel step (compiled: legality, winner, bookkeeping)",
        "_lead_view": "trick kernel step (compiled: legality, winner, bookkeeping)",
        "play_tricks": "trick loop (Python: views, hooks, checks)", "_view_arrays": "trick "
        "loop (Python: views, hooks, checks)", "choose": "trick loop (Python: views, hooks, "
        "checks)", "on_side_of": "trick loop (Python: views, hooks, checks)",
        "heuristic_cards": "policy (play, compiled)", "play": "policy (play)",
        "bid": "policy (bidding)", "bid_score": "policy (bidding)", "_family_ranks": "policy "
        "(bidding)", "espion": "policy (other)", "call": "policy (other)", "first_packet":
        "policy (other)", "announce": "policy (other)",
        "mask_points": "scoring and table", "score_changes": "scoring and table",
        "_deal_table": "scoring and table", "_score": "scoring and table",
        "_bidding": "bidding (engine)", "_play_block": "dealing (engine)",
        "_first_distribution": "dealing (engine)", "_second_distribution": "dealing (engine)",
        "_cut": "dealing (engine)", "cut_decks": "dealing (engine)", "range_mask": "dealing "
        "(engine)", "prefix_masks": "dealing (engine)", "_sides": "dealing (engine)",
        "_set_espion": "dealing (engine)", "_play_taken": "dealing (engine)",
        "concatenate": "blocks joined (engine)", "<genexpr>": "blocks joined (engine)",
        "heuristic_bids": "policy (bidding, compiled)", "bid_scores": "policy (bidding, "
        "compiled)", "_prefix": "dealing (engine)", "_reject_illegal": "trick loop (Python: "
        "views, hooks, checks)", "first_dealers": "dealing (engine)",
        "<method 'collect' of 'builtins.PyLazyFrame' objects>": "scoring and table",
        "replace_strict": "scoring and table", "insert_column": "scoring and table",
        "__call__": "policy dispatch (Python)", "_ask": "policy dispatch (Python)",
        "_check": "policy dispatch (Python)",
        "_first_hands": "dealing (engine)", "_second_hands": "dealing (engine)",
        "first_hands": "dealing (engine)", "second_hands": "dealing (engine)",
        "_turn_rows": "bidding (engine)", "turn_rows": "bidding (engine)",
        "first_bad_bid": "bidding (engine)", "record_bids": "bidding (engine)",
        "_settle": "scoring and table", "settle": "scoring and table",
        "_taker_holdings": "scoring and table", "taker_holdings": "scoring and table",
    }
    shares: dict[str, float] = {}
    glue: dict[str, float] = {}
    for (_file, _line, name), (_cc, _nc, tt, _ct, _callers) in stats.stats.items():
        stage = stage_of.get(name, "numpy glue and other")
        shares[stage] = shares.get(stage, 0.0) + tt / total
        if stage == "numpy glue and other":
            glue[name] = glue.get(name, 0.0) + tt / total
    rep.say(f"Profile: Bianco Mano 4p heuristic, {deals:,} deals (cProfile self CPU time by "
            "stage)")
    ordered = sorted(shares.items(), key=lambda kv: -kv[1])
    for stage, share in ordered:
        rep.say(f"  {stage:<60} {100 * share:5.1f}%")
    top = sorted(glue.items(), key=lambda kv: -kv[1])[:6]
    rep.say("  largest in 'numpy glue and other': " + ", ".join(
        f"{name} {100 * share:.1f}%" for name, share in top))
    return ordered


# ---------------------------------------------------------------- main


def write_docs(path: Path, rep: Report, profile: list[tuple[str, float]], command: str) -> None:
    lines = [
        "# Performance",
        "",
        "Generated by the benchmark harness; do not edit by hand. Rerun with:",
        "",
        f"    {command}",
        "",
        f"Date {datetime.date.today().isoformat()}, machine {platform.machine()} "
        f"({os.cpu_count()} cores), Python {platform.python_version()}, numpy {np.__version__}. "
        "Figures are medians over repeated runs in one process; machines here are shared and "
        "noisy, so read the ratios measured in the same run (engine/referee, ours/OpenSpiel, "
        "2 processes/1, and the machine yardstick) before the absolute figures.",
        "",
        "## Targets",
        "",
        "| target | measured | verdict |",
        "|---|---|---|",
        *[f"| {n} | {v} | {r} |" for n, v, r in rep.verdicts],
        "",
        "## Figures",
        "",
        "| what | figure | spread | note |",
        "|---|---:|---|---|",
        *[f"| {w} | {f} | {s} | {n} |" for w, f, s, n in rep.rows],
        "",
        "## Where the time goes (Bianco Mano, the hottest workload)",
        "",
        "| stage | share of self time |",
        "|---|---:|",
        *[f"| {stage} | {100 * share:.1f}% |" for stage, share in profile],
        "",
        "What is left (issue 9): " + ", ".join(
            f"{stage} {100 * share:.0f}%" for stage, share in profile[:4]) + ". "
        "The per-card work of a trick (legality, winner, bookkeeping) is one compiled "
        "kernel step (`simulators/core/tricks.py`); the shipped heuristic's card play and "
        "bidding, and the engine's dealing, bid bookkeeping, scoring and taker columns are "
        "compiled passes over rows (`simulators/bianco_mano/_engine_kernel.py`). What "
        "remains is the compiled work itself, Python between cards (observations, "
        "dispatch, checks), numpy glue between stages, and the random draws, whose stream "
        "and order are fixed by the seeding contract (one SeedSequence per block of 1,024 "
        "deals, and `np.unique` of the unit ids in `draw_per_unit`: about 3-4% together). "
        "Next: a policy-side compiled card rule called from inside the kernel step (no "
        "Python between cards) for policies that offer one.",
        "",
        "## Full output",
        "",
        "```",
        *rep.lines,
        "```",
        "",
    ]
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    Path(tmp).write_text("\n".join(lines), encoding="utf-8")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test")
    parser.add_argument("--full", action="store_true",
                        help="also Five Crowns at batch 10^6 rounds (~2 minutes more)")
    parser.add_argument("--bianco-mano", action="store_true",
                        help="only the Bianco Mano sections (engine, vs the base commit, profile)")
    parser.add_argument("--write-docs", type=Path, metavar="FILE",
                        help="also write the tables as Markdown (docs/performance.md)")
    args = parser.parse_args(argv)
    if args.write_docs is not None and not args.write_docs.parent.is_dir():
        parser.error(f"--write-docs directory does not exist: {args.write_docs.parent}")
    rep = Report()
    started = time.perf_counter()
    rep.say(f"tapisvert benchmark harness{' (quick)' if args.quick else ''}: "
            f"{datetime.datetime.now().isoformat(timespec='seconds')}, {platform.machine()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}")
    rep.row("machine yardstick: 5e6-step pure-Python loop", f"{yardstick():.2f} s")
    rep.row("import simulators.bianco_mano (fresh process)",
            f"{subprocess_seconds('import simulators.bianco_mano', 1 if args.quick else 3):.2f} s")
    rep.row("import five_crowns + solver warm-up (fresh process)",
            f"{subprocess_seconds('from simulators.five_crowns import melds; melds.warm_up()', 1 if args.quick else 3):.2f} s",  # noqa: E501
            "", "numba cache warm")
    if args.quick:
        bm_sizes, fc_sizes = [1_000, 10_000], [100, 300]
        repeats = dict.fromkeys([100, 300, 1_000, 10_000], 1)
    else:
        bm_sizes, fc_sizes = [1_000, 10_000, 100_000, 1_000_000], [1_000, 10_000, 100_000]
        repeats = {1_000: 7, 10_000: 7, 100_000: 9, 1_000_000: 2}
        repeats_fc = {1_000: 5, 10_000: 3, 100_000: 3, 1_000_000: 1}
        if args.full:
            fc_sizes.append(1_000_000)
    bench_kernel_compile(rep, cold=not args.quick)
    ours = {"bianco_mano": bench_bianco_mano(rep, bm_sizes, repeats)}
    bench_bm_versus_base(rep, 10_000 if args.quick else 100_000, 1 if args.quick else 3,
                         2 if args.quick else 5)
    if args.bianco_mano:
        profile = profile_hottest(rep, 10_000 if args.quick else 100_000)
        rep.say(f"harness wall time: {time.perf_counter() - started:.0f} s")
        return 0
    ours["five_crowns"] = bench_five_crowns(rep, fc_sizes,
                                            repeats if args.quick else repeats_fc)
    if not args.quick and not args.full:
        rep.say("  (Five Crowns batch 10^6 rounds: not in the default run, ~2 minutes; --full)")
    bench_manille(rep, 10_000 if args.quick else 100_000, 1 if args.quick else 5,
                  0.2 if args.quick else 1.0)
    bench_truc(rep, 10_000 if args.quick else 100_000, 1 if args.quick else 5)
    bench_truc_solver(rep, 50 if args.quick else 1_000)
    bench_bango(rep, 1_000 if args.quick else 20_000, 1 if args.quick else 5)
    bench_scaling(rep, 20_000 if args.quick else 2_000_000, 1 if args.quick else 3)
    bench_peers(rep, 0.05 if args.quick else 1.0, ours)
    bench_envs(rep, 3 if args.quick else 1_000, 100 if args.quick else 50_000,
               1 if args.quick else 3)
    profile = profile_hottest(rep, 10_000 if args.quick else 100_000)
    rep.say(f"harness wall time: {time.perf_counter() - started:.0f} s")
    if args.write_docs is not None:
        command = "python bench/harness.py" + (" --quick" if args.quick else "") + \
                  f" --write-docs {args.write_docs}"
        write_docs(args.write_docs, rep, profile, command)
        rep.say(f"wrote {args.write_docs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
