"""How strong the default players of Bango and Five Crowns are: rollouts and lookahead.

Every figure is one ``tapisvert compare`` command, run as it is recorded in the
JSON (seat 0 plays A or B on the same deals, the other seats the game's
default policy, the paired difference of seat 0's score per game or round):

* **Bango** (score: seat 0's BG-8 score per game): ``rollout_vs_optimal_<n>p`` and
  ``rollout_vs_heuristic_<n>p`` for 2 to 5 players (the rollout policy with
  its defaults against one-turn optimal stopping and against the heuristic);
  ``rollout_k<K>_3p``: the rollout with ``k`` = K worlds against optimal
  stopping, 3 players (its gain as a function of K).
* **Five Crowns** (score: minus seat 0's penalty per round, 4 players):
  ``lookahead_r<R>`` and ``rollout_r<R>`` against the heuristic for rounds
  1, 6 and 11; ``rollout_k<K>_r<R>``: the rollout with ``k`` = K worlds
  (its gain as a function of K, round ``--k-round``).

The real run (each piece is saved when it is finished; with --runs-dir a
killed piece resumes; on the shared 2-core machine, prefix it with
``flock /tmp/cpu.lock``)::

    python bench/rollout_strength.py --game all --n-jobs 2 --runs-dir .rollout_runs

Writes ``simulators/bango/data/strength.json`` and
``simulators/five_crowns/data/strength.json`` (``--out-dir DIR``:
``DIR/<game>/strength.json``, for trial runs), read by Bango's section g and
Five Crowns' section a of the reports. The JSON has the layout of
``bench/pimc_strength.py``'s (``schema`` 1, one record per piece with its
command, settings, wall time and the command's ``--json`` rows).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from pimc_strength import measure, policy_defaults

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = {"bango": ROOT / "simulators/bango/data/strength.json",
           "five-crowns": ROOT / "simulators/five_crowns/data/strength.json"}
UNITS = {"bango": "games", "five-crowns": "rounds"}
BANGO_PLAYERS = (2, 3, 4, 5)
FIVE_CROWNS_ROUNDS = (1, 6, 11)


def pieces(game: str, args) -> dict[str, dict]:
    """Every piece of a game: its command line (after ``tapisvert``) and its settings (the
    resume key: sizes, seeds and every parameter of the measured policy)."""
    unit = UNITS[game]
    out: dict[str, dict] = {}

    def gain(name, label, policy, against, size, changes=None, players=None, round_no=None):
        changes = changes or {}
        params = {**policy_defaults(game, policy), **changes}
        where = (["--players", str(players)] if players else []) + (
            ["--option", f"round_no={round_no}"] if round_no else [])
        argv = ["compare", game, *where, "--a", policy, "--b", against, "--seats", "0",
                f"--{unit}", str(size), "--seed", str(args.seed)]
        if args.chunk_size is not None:
            argv += ["--chunk-size", str(args.chunk_size)]
        for key, value in changes.items():
            argv += ["--a-param", f"{key}={value}"]
        place = {"players": players} if players else {}
        settings = {unit: size, "seed": args.seed, **place,
                    **({"round_no": round_no} if round_no else {}), "against": against,
                    "params": params}
        out[name] = {"kind": "gain", "label": label, "policy": policy,
                     "decisions": _decisions(game, policy, params), **place,
                     "settings": settings, "argv": argv}

    if game == "bango":
        for n in args.players:
            gain(f"rollout_vs_optimal_{n}p", f"rollout against optimal stopping, {n} players",
                 "rollout", "optimal", args.games, players=n)
            gain(f"rollout_vs_heuristic_{n}p", f"rollout against the heuristic, {n} players",
                 "rollout", "heuristic", args.games, players=n)
        for k in args.k:
            gain(f"rollout_k{k}_3p", f"rollout with k={k} against optimal stopping, 3 players",
                 "rollout", "optimal", args.k_games, {"k": k}, players=3)
    else:
        for r in args.rounds_no:
            gain(f"lookahead_r{r}", f"lookahead against the heuristic, round {r}",
                 "lookahead", "heuristic", args.lookahead_rounds, round_no=r)
            gain(f"rollout_r{r}", f"rollout against the heuristic, round {r}",
                 "rollout", "heuristic", args.rollout_rounds, round_no=r)
        for k in args.k:
            gain(f"rollout_k{k}_r{args.k_round}", f"rollout with k={k} against the heuristic, "
                 f"round {args.k_round}", "rollout", "heuristic", args.k_rounds, {"k": k},
                 round_no=args.k_round)
    return out


def _decisions(game: str, policy: str, params: dict) -> list[str]:
    """The decision kinds the measured policy decides by its own search."""
    if policy == "lookahead":
        return ["draw", "discard"]
    from simulators.core.game import get_game

    kinds = [k.strip() for k in str(params.get("kinds", "")).split(",") if k.strip()]
    return kinds or list(get_game(game).policies["rollout"].decision_kinds)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("bango", "five-crowns", "all"), default="all")
    parser.add_argument("--games", type=int, default=600, help="Bango games per comparison")
    parser.add_argument("--k-games", type=int, default=400, help="Bango games per K")
    parser.add_argument("--players", default="2,3,4,5", help="Bango player counts")
    parser.add_argument("--lookahead-rounds", type=int, default=20_000,
                        help="Five Crowns rounds per lookahead comparison")
    parser.add_argument("--rollout-rounds", type=int, default=5_000,
                        help="Five Crowns rounds per rollout comparison")
    parser.add_argument("--k-rounds", type=int, default=3_000, help="Five Crowns rounds per K")
    parser.add_argument("--k-round", type=int, default=6, help="Five Crowns round of the K table")
    parser.add_argument("--k", default="4,8,16,32,64", help="the K table's worlds per candidate")
    parser.add_argument("--pieces", help="only these pieces, comma-separated (JSON keys)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--chunk-size", type=int, help="units per chunk (default: the runner's)")
    parser.add_argument("--out-dir", type=Path,
                        help="write DIR/<game>/strength.json instead of the shipped files")
    parser.add_argument("--runs-dir", type=Path,
                        help="keep each running piece's study here: a killed piece resumes")
    parser.add_argument("--force", action="store_true", help="rerun pieces already measured")
    args = parser.parse_args(argv)
    for flag in ("games", "k_games", "lookahead_rounds", "rollout_rounds", "k_rounds"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be positive")
    try:
        args.players = tuple(int(p) for p in args.players.split(","))
        args.k = tuple(int(k) for k in args.k.split(","))
    except ValueError:
        parser.error("--players and --k: integers separated by commas")
    if not set(args.players) <= set(BANGO_PLAYERS):
        parser.error(f"--players: each of {BANGO_PLAYERS}")
    if not 1 <= args.k_round <= 11:
        parser.error("--k-round: a round 1..11")
    args.rounds_no = FIVE_CROWNS_ROUNDS
    games = tuple(SHIPPED) if args.game == "all" else (args.game,)
    plans = {game: pieces(game, args) for game in games}
    wanted = None if args.pieces is None else set(args.pieces.split(","))
    if wanted is not None:
        unknown = wanted - {name for plan in plans.values() for name in plan}
        if unknown:
            parser.error(f"--pieces: unknown {', '.join(sorted(unknown))}")
    from simulators.core.game import get_game

    with tempfile.TemporaryDirectory(prefix="rollout-strength-") as scratch:
        runs_dir = args.runs_dir if args.runs_dir is not None else Path(scratch)
        for game, plan in plans.items():
            path = (SHIPPED[game] if args.out_dir is None
                    else args.out_dir / get_game(game).slug / "strength.json")
            measure(game, plan, path, get_game(game).unit(UNITS[game]).score, args, runs_dir,
                    wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
