"""Same seed => same tables: this checkout against an older commit, for all five games.

Runs a set of configs and policies with the engines of this checkout and, in
a subprocess, with those of another checkout (a git worktree), and asserts
that every table and every raw array is identical:

* Bianco Mano deals and whole games (tables and raw arrays), eleven cases;
* Five Crowns rounds, whole games and solitaire (tables and raw arrays);
* Manille, Truc and Bango through their ``Game`` spec: every conformance
  config x every unit x every registered policy (the slow ones left out,
  e.g. Truc's solved equilibrium), every table the unit's ``play`` returns.

With ``--reports``, every report's numbers too (``bench/same_reports.py``:
each section's value, low, high and n at a small fixed scale and seed).

Run::

    git worktree add /tmp/base 03bfa71
    python bench/same_tables.py --base /tmp/base [--reports]
"""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIVE_CROWNS_CASES = [  # (label, config kwargs, policy, params, rounds, games)
    ("fc 4p heuristic round 11", {"n_players": 4, "round_no": 11}, "heuristic", {}, 600, 0),
    ("fc 2p random round 3", {"n_players": 2, "round_no": 3}, "random", {}, 600, 0),
    ("fc 7p heuristic round 7", {"n_players": 7, "round_no": 7}, "heuristic",
     {"take_margin": 30}, 300, 0),
    ("fc 3p heuristic games", {"n_players": 3}, "heuristic", {}, 0, 30),
    ("fc 5p express games", {"n_players": 5, "first_round": 6}, "heuristic", {}, 0, 40),
]
N_SOLITAIRE = 400

REGISTRY_GAMES = ("manille", "truc", "bango")  # played through get_game(...).units
REGISTRY_COUNTS = {"deals": 3000, "games": 60, "matches": 60}  # units per case, by unit name

CASES = [  # (label, config kwargs, policy spec, deals, games)
    ("4p heuristic", {"n_players": 4}, "heuristic", 3000, 200),
    ("4p random", {"n_players": 4}, "random", 3000, 200),
    ("3p heuristic bonus", {"n_players": 3, "bianco_mano": True}, "heuristic", 3000, 200),
    ("3p random trick_order", {"n_players": 3, "gather": "trick_order"}, "random", 3000, 200),
    ("5p heuristic", {"n_players": 5}, "heuristic", 3000, 200),
    ("5p random bonus", {"n_players": 5, "bianco_mano": True}, "random", 3000, 200),
    ("5p mixed seats", {"n_players": 5}, "mixed", 2000, 100),
    ("4p shuffle every deal", {"n_players": 4, "shuffle_every_deal": True}, "mixed", 2000, 100),
    ("4p eager taker", {"n_players": 4, "bianco_mano": True}, "eager", 2000, 100),
    ("5p bonus discount", {"n_players": 5, "bianco_mano": True}, "discount", 3000, 100),
    ("3p random mixed thresholds", {"n_players": 3}, "mixed", 2000, 100),
]


def produce(out: Path) -> None:
    """Write every case's tables and arrays (this process's ``simulators``) to ``out``."""
    import numpy as np

    from simulators.bianco_mano import BiancoManoConfig, make_policy
    from simulators.bianco_mano.engine import simulate_deals, simulate_games

    print(f"producing with {sys.modules['simulators'].__file__}", flush=True)

    def policies(spec, n):
        if spec == "mixed":
            return [make_policy("heuristic"), make_policy("random", take_probability=0.3)] * 3
        if spec == "eager":
            return make_policy("heuristic", take_threshold=1.0, round2_threshold=1.0,
                               charge_partner=2, lead_trump_min=1)
        if spec == "discount":
            return make_policy("heuristic", bonus_discount=2.5, take_threshold=4.5,
                               side_mamma_value=3.0, trump_card_value=2.0)
        return make_policy(spec)

    result = {}
    for label, kwargs, spec, n_deals, n_games in CASES:
        config = BiancoManoConfig(**kwargs)
        pol = policies(spec, config.n_players)
        if isinstance(pol, list):
            pol = pol[:config.n_players]
        deals = simulate_deals(config, pol, n_deals, seed=11, first_deal=500)
        games = simulate_games(config, pol, n_games, seed=12, first_game=30)
        result[label] = {
            "deal_table": deals.table.to_dict(as_series=False),
            "deal_arrays": {k: (None if v is None else np.asarray(v))
                            for k, v in deals.arrays._asdict().items()},
            "game_deals": games.deals.to_dict(as_series=False),
            "game_games": games.games.to_dict(as_series=False),
            "game_arrays": {k: (None if v is None else np.asarray(v))
                            for k, v in games.arrays._asdict().items()},
        }
    result.update(_five_crowns())
    result.update(_registry_games())
    out.write_bytes(pickle.dumps(result))


def _array(value):
    """An ndarray, or a tuple of them for a ragged field (e.g. per-turn logs)."""
    import numpy as np

    if isinstance(value, np.ndarray) or value is None:
        return value
    return tuple(_array(v) for v in value) if isinstance(value, (list, tuple)) \
        else np.asarray(value)


def _same(a, b) -> bool:
    import numpy as np

    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b, strict=True)))
    if (a is None) or (b is None):
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b)


def _same_column(a, b) -> bool:
    """Equal lists, NaN equal to NaN (floats the engines write as NaN on purpose)."""
    if a == b:
        return True
    if b is None or len(a) != len(b):
        return False
    return all(x == y or (x != x and y != y) for x, y in zip(a, b, strict=True))


def _same_table(a: dict, b: dict) -> bool:
    return list(a) == list(b) and all(_same_column(a[c], b[c]) for c in a)


def _five_crowns() -> dict:
    """Five Crowns rounds, games and solitaire as tables and raw arrays."""

    from simulators.five_crowns.engine import simulate_games, simulate_rounds
    from simulators.five_crowns.policies import make_policy
    from simulators.five_crowns.rules import FiveCrownsConfig
    from simulators.five_crowns.solitaire import simulate_solitaire

    result = {}
    for label, kwargs, name, params, n_rounds, n_games in FIVE_CROWNS_CASES:
        config = FiveCrownsConfig(**kwargs)
        policy = make_policy(name, **params)
        if n_rounds:
            batch = simulate_rounds(config, policy, n_rounds, seed=21, first_round_id=40)
            result[label] = {"round_table": batch.table.to_dict(as_series=False),
                             "round_arrays": {k: _array(v) for k, v in
                                              batch.arrays._asdict().items()}}
        else:
            batch = simulate_games(config, policy, n_games, seed=22, first_game=7)
            result[label] = {"game_rounds": batch.rounds.to_dict(as_series=False),
                             "game_games": batch.games.to_dict(as_series=False)}
    solo = simulate_solitaire(make_policy("solitaire"), N_SOLITAIRE, seed=23, first_game=9)
    result["fc solitaire"] = {"solitaire_table": solo.table.to_dict(as_series=False),
                              "solitaire_arrays": {"decks": solo.decks,
                                                   "moves_hand": solo.moves_hand,
                                                   "moves_discard": solo.moves_discard}}
    return result


def _registry_games() -> dict:
    """Manille, Truc and Bango: every conformance config, unit and fast policy."""
    from simulators.core.game import get_game

    result = {}
    for name in REGISTRY_GAMES:
        game = get_game(name)
        for c, config in enumerate(game.conformance.configs):
            for unit in game.units:
                for policy in game.policies:
                    if policy in game.conformance.slow_policies:
                        continue
                    tables = unit.play(config, game.make_policy(policy), 100,
                                       REGISTRY_COUNTS[unit.name], 31 + c)
                    result[f"{name} config {c} {unit.name} {policy}"] = {
                        f"{unit.name}.{table}": frame.to_dict(as_series=False)
                        for table, frame in tables.items()}
    return result


def compare(new: dict, old: dict) -> list[str]:
    """Differences between two results, one line each."""

    problems = []
    for label in old:
        if label not in new:
            problems.append(f"{label}: missing from this checkout")
            continue
        for part, value in old[label].items():
            other = new[label][part]
            if part.endswith("arrays"):
                for key, a in value.items():
                    if not _same(a, other[key]):
                        problems.append(f"{label}: {part}.{key} differs")
            elif not _same_table(value, other):
                cols = [c for c in value if not _same_column(value[c], other.get(c))]
                problems.append(f"{label}: {part} differs in columns {cols}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=False,
                        help="checkout (worktree) of the commit to compare against")
    parser.add_argument("--reports", action="store_true",
                        help="also compare every report's numbers (bench/same_reports.py)")
    parser.add_argument("--produce", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.produce is not None:
        produce(args.produce)
        return 0
    if args.base is None or not (args.base / "simulators").is_dir():
        parser.error("--base must be a checkout holding simulators/ (git worktree add ...)")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, root in (("new", ROOT), ("old", args.base.resolve())):
            paths[name] = Path(tmp) / f"{name}.pkl"
            code = (f"import sys, runpy; sys.path.insert(0, {str(root)!r}); "
                    f"sys.argv = ['x', '--produce', {str(paths[name])!r}]; "
                    f"runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')")
            subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
        new, old = (pickle.loads(paths[k].read_bytes()) for k in ("new", "old"))
    problems = compare(new, old)
    for line in problems:
        print("DIFF", line)
    print(f"{len(old)} cases (Bianco Mano deals and games; Five Crowns rounds, games and "
          f"solitaire; Manille, Truc and Bango by config, unit and policy), "
          f"{len(problems)} difference(s) against {args.base}")
    status = 1 if problems else 0
    if args.reports:
        reports = subprocess.run([sys.executable, str(ROOT / "bench" / "same_reports.py"),
                                  "--base", str(args.base)], cwd=ROOT)
        status = max(status, reports.returncode)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
