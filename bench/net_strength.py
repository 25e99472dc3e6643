"""The learned player's certificate: the shipped `net` against the heuristic and PIMC, duplicate.

Each piece is one ``tapisvert learn GAME certify`` command, run on a scratch directory
holding a copy of every shipped weights file (``weights-<decision>.npz``: the net plays
each decision it finds), and kept in the game's ``strength.json`` beside
PIMC's figures (``bench/pimc_strength.py``), where the report's learned-player section
reads it. The real run (prefix ``flock /tmp/cpu.lock`` on the shared 2-core machine):

    python bench/net_strength.py --game all --n-jobs 2 --runs-dir .net_strength_runs

Pieces (the keys of the JSON's ``pieces``):

* ``net_vs_heuristic`` (Manille) and ``net_vs_heuristic_<n>p`` (Bianco Mano): ``--deals``
  (default 20,000) deals, the net at one partnership (Manille, Bianco Mano at 4 players:
  seats 0 and 2; otherwise seat 0), the heuristic at the others, then the seats rotated
  with the same cards; the net's gain per deal, its seats' scores summed.
* ``net_vs_pimc`` / ``net_vs_pimc_<n>p``: the same against PIMC (its default 8 worlds),
  ``--pimc-deals`` (default 2,000) deals. PIMC is the slow side: about 0.65 s per deal
  and seat for Manille, so 2,000 deals are some 45 minutes on two free cores.
* Bango, per player count n (``--bango-players``): ``net_vs_heuristic_<n>p`` and
  ``net_vs_optimal_<n>p`` (``--bango-games``, default 5,000) and, at ``--rollout-players``
  (default 3), ``net_vs_rollout_<n>p`` (``--rollout-games``, default 2,000): the rollout
  (k = 32) at the other seats costs about 0.3 s per seat and game.
* Five Crowns, per round number (``--fc-rounds``): ``net_vs_heuristic_r<R>`` and
  ``net_vs_lookahead_r<R>`` (``--lookahead-rounds``), 4 players.
* ``net_in_pimc_seat`` / ``net_in_pimc_seat_<n>p``: the net and PIMC each at seat 0 of the
  same ``--pimc-deals`` deals, the heuristic at the other seats (``tapisvert learn GAME
  certify --against pimc --design same-seat``): the paired difference, the design of
  PIMC's own gain over the heuristic (``bench/pimc_strength.py``), so the three stand side
  by side. PIMC plays one seat, not half the table: a fraction of the head-to-head piece's
  time.
* ``regret`` / ``regret_<n>p``: the double-dummy regret of card play of the heuristic,
  the net and PIMC, each at every seat of ``--regret-deals`` (default 2,000) deals.

A piece already in the JSON with the same settings (sizes, seed, and the SHA-256 of every
shipped weights file, card play and auction) is skipped unless ``--force``: new weights
rerun every piece. With ``--runs-dir`` a killed piece resumes (the certify studies keep
their chunks there).

    python bench/net_strength.py --game manille --pieces net_vs_heuristic --n-jobs 2
    python bench/net_strength.py --game bianco-mano --players 4 --pimc-deals 500

Each record: ``kind`` ("certificate" or "regret"), ``label``, ``settings`` (the resume
key), ``command``, ``wall_seconds``, ``measured``, ``commit``, and the certify JSON's
``against`` (``{opponent: {mean, low, high, n, p_value, net_mean, opponent_mean}}``) or
``double_dummy_regret`` rows.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pimc_strength import SHIPPED, _git_commit, read_document, write_document  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PLAYER_COUNTS = (3, 4, 5)
CERTIFY_SEED = 3027  # analysis.commands.learn.CERTIFY_SEED: deals the labels never saw
GAMES = ("manille", "bianco-mano", "five-crowns", "bango")
STRENGTH = {**SHIPPED, "five-crowns": ROOT / "simulators/five_crowns/data/strength.json",
            "bango": ROOT / "simulators/bango/data/strength.json"}
BANGO_COUNTS = (2, 3, 4, 5)
SAME_SEAT = "pimc in the same seat (the others the heuristic)"


def shipped_weights(game: str) -> dict[str, Path]:
    """Each decision's shipped weights file (those that exist: a decision without one is the
    heuristic's)."""
    from simulators.core.game import get_game

    return {d: Path(p) for d, p in get_game(game).learn.shipped.items() if Path(p).is_file()}


def variants(game: str, args) -> list[tuple[str, list[str], str, dict]]:
    """Each setting a game is certified at: (key suffix, rule arguments, label, settings)."""
    if game == "manille":
        return [("", [], "", {"players": None})]
    if game == "five-crowns":
        return [(f"_r{r}", ["--option", f"round_no={r}"], f", round {r}",
                 {"round_no": r}) for r in args.fc_rounds]
    counts = args.bango_players if game == "bango" else args.players
    return [(f"_{n}p", ["--players", str(n)], f", {n} players", {"players": n})
            for n in counts]


def opponents(game: str, args, setting: dict | None = None
              ) -> tuple[tuple[str, str, int, str], ...]:
    """(piece name, opponent, units, label) of a game's certificates (at one setting)."""
    if game == "bango":
        rollout = (("net_vs_rollout", "rollout", args.rollout_games,
                    "net against the rollout (k = 32, its teacher's method)"),) \
            if (setting or {}).get("players") in args.rollout_players else ()
        return (("net_vs_heuristic", "heuristic", args.bango_games, "net against the heuristic"),
                ("net_vs_optimal", "optimal", args.bango_games,
                 "net against one-turn optimal stopping"), *rollout)
    if game == "five-crowns":
        return (("net_vs_heuristic", "heuristic", args.deals, "net against the heuristic"),
                ("net_vs_lookahead", "lookahead", args.lookahead_rounds,
                 "net against the lookahead (its teacher)"))
    return (("net_vs_heuristic", "heuristic", args.deals, "net against the heuristic"),
            ("net_vs_pimc", "pimc", args.pimc_deals, "net against PIMC (8 worlds)"))


def pieces(game: str, args) -> dict[str, dict]:
    """Every piece of a game: its command line (after ``tapisvert``) and its settings."""
    from simulators.core.game import get_game

    digest = hashlib.sha256(b"".join(p.read_bytes() for _, p in
                                     sorted(shipped_weights(game).items()))).hexdigest()
    unit = get_game(game).units[0].name
    net = get_game(game).make_policy("net")  # its defaults: a changed default is a new net
    net_params = {f.name: getattr(net, f.name) for f in dataclasses.fields(net)
                  if f.name != "weights"}
    out: dict[str, dict] = {}
    for suffix, rules, where, setting in variants(game, args):
        n = setting.get("players")
        for name, against, units, label in opponents(game, args, setting):
            argv = ["learn", game, "certify", f"--{unit}", str(units), "--against", against,
                    *rules, "--seed", str(args.seed)]
            out[name + suffix] = {"kind": "certificate", "label": label + where,
                                  "against": against, "players": n, "argv": argv,
                                  **({"setting": f"round {setting['round_no']}"}
                                     if "round_no" in setting else {}),
                                  "settings": {unit: units, "seed": args.seed, **setting,
                                               "against": against, "weights_sha256": digest,
                                               "net_params": net_params}}
        if game in ("manille", "bianco-mano"):
            argv = ["learn", game, "certify", "--deals", str(args.pimc_deals), "--against",
                    "pimc", "--design", "same-seat", *rules, "--seed", str(args.seed)]
            out["net_in_pimc_seat" + suffix] = {
                "kind": "certificate", "label": f"net in PIMC's seat{where}", "players": n,
                "argv": argv, "against": SAME_SEAT,
                "settings": {"deals": args.pimc_deals, "seed": args.seed, **setting,
                             "against": SAME_SEAT, "weights_sha256": digest,
                             "net_params": net_params}}
        if game == "manille" or (game == "bianco-mano" and n in args.regret_players):
            argv = ["learn", game, "certify", "--deals", "2", "--against", "heuristic",
                    *rules, "--seed", str(args.seed), "--regret", "heuristic,net,pimc",
                    "--regret-deals", str(args.regret_deals)]
            out["regret" + suffix] = {
                "kind": "regret", "label": f"double-dummy regret of card play{where}",
                "players": n, "argv": argv,
                "settings": {"deals": args.regret_deals, "seed": args.seed, "players": n,
                             "policies": ["heuristic", "net", "pimc"], "weights_sha256": digest,
                             "net_params": net_params}}
    return out


def run_piece(game: str, name: str, piece: dict, args, runs_dir: Path) -> dict:
    """Run one piece's certify command on a copy of the shipped weights; its record."""
    key = hashlib.sha1(json.dumps(piece["settings"], sort_keys=True).encode()).hexdigest()
    study = runs_dir / game / f"{name}-{key[:12]}"
    if args.force and study.exists():
        shutil.rmtree(study)
    study.mkdir(parents=True, exist_ok=True)
    for decision, path in shipped_weights(game).items():  # the net finds them side by side
        shutil.copyfile(path, study / f"weights-{decision}.npz")
    argv = [*piece["argv"], "--n-jobs", str(args.n_jobs), "--json"]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "analysis.cli", *argv, "--out-dir", str(study)],
                          stdout=subprocess.PIPE, text=True, cwd=ROOT)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{game} {name}: 'tapisvert {shlex.join(argv)}' failed "
                         f"(exit {done.returncode}); its directory {study} is kept")
    result = json.loads(done.stdout)
    shown = [a if a != str(study) else "DIR" for a in argv]
    record = {"kind": piece["kind"], "label": piece["label"], "players": piece["players"],
              **({"setting": piece["setting"]} if "setting" in piece else {}),
              "settings": piece["settings"],
              "command": "tapisvert " + shlex.join([*shown, "--out-dir", "DIR"]),
              "wall_seconds": round(wall, 1), "n_jobs": args.n_jobs,
              "measured": datetime.now(UTC).isoformat(timespec="seconds"),
              "commit": _git_commit()}
    if piece["kind"] == "certificate":  # one opponent a piece, under the piece's key
        (found,) = result["against"].values()
        record["against"] = {piece["against"]: found}
    else:
        record["double_dummy_regret"] = result["double_dummy_regret"]
    shutil.rmtree(study, ignore_errors=True)
    return record


def _summary(record: dict) -> str:
    if record["kind"] == "certificate":
        return ", ".join(f"vs {b} {c['mean']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}] n={c['n']}"
                         for b, c in record["against"].items())
    return ", ".join(f"{r['policy']} {r['share_giving_up']:.1%} / {r['mean_points_given_up']:.3f}"
                     for r in record["double_dummy_regret"])


def measure(game: str, plan: dict[str, dict], path: Path, args, runs_dir: Path,
            wanted: set[str] | None) -> None:
    doc = read_document(path, game)
    doc.setdefault("schema", 1)
    doc.setdefault("game", game)
    for name, piece in plan.items():
        if wanted is not None and name not in wanted:
            continue
        held = doc["pieces"].get(name)
        if held is not None and held.get("settings") == piece["settings"] and not args.force:
            print(f"{game} {name}: already measured with these settings and weights, skipped "
                  "(--force reruns it)", file=sys.stderr, flush=True)
            continue
        print(f"{game} {name}: tapisvert {shlex.join(piece['argv'])} ...", file=sys.stderr,
              flush=True)
        doc["pieces"][name] = record = run_piece(game, name, piece, args, runs_dir)
        write_document(path, doc)
        print(f"{game} {name}: {_summary(record)} in {record['wall_seconds']:.1f} s -> {path}",
              file=sys.stderr, flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=(*GAMES, "all"), default="all")
    parser.add_argument("--deals", type=int, default=20_000,
                        help="deals (Five Crowns: rounds) against the heuristic")
    parser.add_argument("--pimc-deals", type=int, default=2_000, help="deals against PIMC")
    parser.add_argument("--lookahead-rounds", type=int, default=10_000,
                        help="Five Crowns rounds against the lookahead")
    parser.add_argument("--fc-rounds", default="1,6,11", help="Five Crowns round numbers")
    parser.add_argument("--regret-deals", type=int, default=2_000, help="deals of the regret table")
    parser.add_argument("--bango-games", type=int, default=5_000,
                        help="Bango games against the heuristic and optimal stopping")
    parser.add_argument("--rollout-games", type=int, default=2_000,
                        help="Bango games against the rollout")
    parser.add_argument("--bango-players", default="2,3,4,5", help="Bango player counts")
    parser.add_argument("--rollout-players", default="3",
                        help="Bango player counts certified against the rollout")
    parser.add_argument("--players", default="3,4,5", help="Bianco Mano player counts")
    parser.add_argument("--regret-players", default="4",
                        help="Bianco Mano player counts with a regret table")
    parser.add_argument("--pieces", help="only these pieces, comma-separated (JSON keys)")
    parser.add_argument("--seed", type=int, default=CERTIFY_SEED)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out-dir", type=Path,
                        help="write DIR/<game>/strength.json instead of the shipped files")
    parser.add_argument("--runs-dir", type=Path, help="keep running pieces here: a kill resumes")
    parser.add_argument("--force", action="store_true", help="rerun pieces already measured")
    args = parser.parse_args(argv)
    for flag in ("deals", "pimc_deals", "lookahead_rounds", "regret_deals", "bango_games",
                 "rollout_games"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be positive")
    if args.n_jobs < 1 and args.n_jobs != -1:
        parser.error("--n-jobs must be positive or -1")
    try:
        args.players = tuple(int(p) for p in args.players.split(","))
        args.regret_players = tuple(int(p) for p in args.regret_players.split(",") if p)
        args.fc_rounds = tuple(int(r) for r in args.fc_rounds.split(","))
        args.bango_players = tuple(int(p) for p in args.bango_players.split(","))
        args.rollout_players = tuple(int(p) for p in args.rollout_players.split(",") if p)
    except ValueError:
        parser.error("--players, --regret-players, --fc-rounds, --bango-players, "
                     "--rollout-players: numbers like 3,4,5")
    if not set(args.bango_players) | set(args.rollout_players) <= set(BANGO_COUNTS):
        parser.error(f"--bango-players, --rollout-players: each of {BANGO_COUNTS}")
    if not set(args.fc_rounds) <= set(range(1, 12)):
        parser.error("--fc-rounds: round numbers 1..11")
    if not args.players or not set(args.players) | set(args.regret_players) <= set(PLAYER_COUNTS):
        parser.error(f"--players, --regret-players: each of {PLAYER_COUNTS}")
    games = GAMES if args.game == "all" else (args.game,)
    plans = {game: pieces(game, args) for game in games}
    wanted = None if args.pieces is None else set(args.pieces.split(","))
    if wanted is not None:
        known = {name for plan in plans.values() for name in plan}
        if wanted - known:
            parser.error(f"--pieces: unknown {', '.join(sorted(wanted - known))} (known: "
                         f"{', '.join(sorted(known))})")
    from simulators.core.game import get_game

    with tempfile.TemporaryDirectory(prefix="net-strength-") as scratch:
        runs_dir = args.runs_dir if args.runs_dir is not None else Path(scratch)
        for game, plan in plans.items():
            path = (STRENGTH[game] if args.out_dir is None
                    else args.out_dir / get_game(game).slug / "strength.json")
            measure(game, plan, path, args, runs_dir, wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
