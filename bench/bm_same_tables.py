"""Same seed => same Bianco Mano tables: this checkout against an older commit.

Runs a set of configs and policies (deals and whole games) with the engine
of this checkout and, in a subprocess, with the engine of another checkout
(a git worktree), and asserts that every table and every raw array is
identical. Run::

    git worktree add /tmp/base dae0a95
    python bench/bm_same_tables.py --base /tmp/base
"""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

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
    out.write_bytes(pickle.dumps(result))


def compare(new: dict, old: dict) -> list[str]:
    """Differences between two results, one line each."""
    import numpy as np

    problems = []
    for label in old:
        for part, value in old[label].items():
            other = new[label][part]
            if part.endswith("arrays"):
                for key, a in value.items():
                    b = other[key]
                    if (a is None) != (b is None) or (a is not None and (
                            a.shape != b.shape or not np.array_equal(a, b))):
                        problems.append(f"{label}: {part}.{key} differs")
            elif value != other:
                cols = [c for c in value if value[c] != other.get(c)]
                problems.append(f"{label}: {part} differs in columns {cols}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=False,
                        help="checkout (worktree) of the commit to compare against")
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
    print(f"{len(CASES)} cases (deals and games), {len(problems)} difference(s) against "
          f"{args.base}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
