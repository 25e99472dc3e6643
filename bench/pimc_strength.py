"""How strong the default player is: PIMC against the heuristic, Manille and Bianco Mano.

The real run (each piece is saved as soon as it is finished, so a kill loses at
most the piece in progress, and with --runs-dir not even that: rerun the same
command and it resumes; on the shared 2-core machine, prefix it with
``flock /tmp/cpu.lock``):

    python bench/pimc_strength.py --game all --deals 2000 --rate-deals 400 \
        --n-jobs 2 --runs-dir .pimc_strength_runs

Expected time, from a run at --deals 8 --rate-deals 4 (8 worlds, one process,
2026-11-26; small samples, so rough): per deal, Manille's gain pieces 0.65 s
(card play, = pimc's defaults, run once), 1.7 s (trump choice), 0.3 s (contre)
and every seat PIMC 0.75 s; Bianco Mano's gain pieces 2.0 s (3 players), 0.7 s
(4), 0.1 s (5) and every seat PIMC 3.6, 1.2 and 0.35 s. At the sizes above that
is about 1.7 CPU-hours for Manille and 2.1 for Bianco Mano: some 2-2.5 hours of
wall time at --n-jobs 2 on two free cores. The heuristic's rate arms take a second.

One game, or some pieces only (the names are the keys of the JSON's ``pieces``):

    python bench/pimc_strength.py --game manille --pieces gain_default,gain_play --n-jobs 2
    python bench/pimc_strength.py --game bianco-mano --players 4 --deals 500 --rate-deals 100

Writes ``simulators/manille/solver/data/strength.json`` and
``simulators/bianco_mano/solver/data/strength.json`` (``--out-dir DIR`` writes
``DIR/<game>/strength.json`` instead: use it for trial runs), read by the last
section of each report ("The default player's strength"). Every figure is one
command of the tapisvert command line, run as it is recorded in the JSON:

* **gain pieces**: ``tapisvert compare GAME --a pimc --b heuristic --seats 0``
  (the heuristic at the other seats), the paired difference A - B of seat 0's
  score per deal on the same deals: Manille's net deal score (MA-6), Bianco
  Mano's BM-10 score change. Manille: ``gain_default`` (pimc's defaults),
  ``gain_choose`` / ``gain_contre`` / ``gain_play`` (PIMC makes only the trump
  choice, only contre/surcontre, only the card play; the other decisions are
  the heuristic's, which pimc extends). Bianco Mano: ``gain_3p`` ``gain_4p``
  ``gain_5p`` (PIMC plays the cards; bidding, espion, call and announcement are
  the heuristic's).
* **rate pieces**: ``tapisvert simulate GAME --policy pimc`` and ``--policy
  heuristic`` on the same deals (same seed), every seat the same policy, with
  ``--rate-deals`` deals: the game's deal metrics with their 95% intervals.
  Manille: ``rates_pimc``, ``rates_heuristic``; Bianco Mano:
  ``rates_pimc_<n>p``, ``rates_heuristic_<n>p``.

The JSON (``schema`` 1)::

    {"schema": 1, "game": "manille", "score": "<what seat 0's score is>",
     "pieces": {"<piece>": {
        "kind": "gain" | "rates", "label": "...", "policy": "pimc" | "heuristic",
        "decisions": ["card play"],    # what PIMC decides (null for the heuristic arm)
        "players": 4,                  # Bianco Mano only
        "settings": {"deals": N, "seed": S, "players": n, "worlds": W,
                     "params": {...}}, # the resume key; params: the measured policy's all
        "command": "tapisvert compare manille --a pimc ...",
        "wall_seconds": ..., "worker_seconds": ..., "sessions": 1, "n_jobs": 2,
        "chunk_size": 50, "measured": "<UTC time>", "commit": "<git HEAD>",
        "same_as": "gain_default",     # only when the piece is pimc's defaults, run once
        "comparison": {...}}}}         # a gain piece: compare's --json rows by role
        "rows": [...]}}}               # a rate piece: simulate's --json rows, verbatim

A gain piece's ``comparison`` holds compare's rows (``policy, mean, low, high, n,
p_value``) under ``a``, ``b``, ``paired`` and ``unpaired`` (``analysis.compare.
comparison_record``); a rate piece's rows are simulate's ``metric, label, kind, value,
low, high, n``. A piece already in the
JSON with the same ``settings`` is skipped unless ``--force`` (a changed size,
seed or default parameter reruns it). ``--worlds`` defaults to the pimc
policy's own default and is always written out in the command. Chunking and
``--n-jobs`` do not change a figure (the engines and PIMC's worlds are seeded
per deal), only its wall time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = {"manille": ROOT / "simulators/manille/solver/data/strength.json",
           "bianco-mano": ROOT / "simulators/bianco_mano/solver/data/strength.json"}
SCHEMA = 1
PLAYER_COUNTS = (3, 4, 5)
PIMC_KINDS = {"pimc_choose": "trump choice", "pimc_contre": "contre/surcontre",
              "pimc_play": "card play"}
# Manille's gain pieces: the pimc parameters given (none: its defaults) and a label
MANILLE_GAINS = {
    "gain_default": ({}, "PIMC with its defaults"),
    "gain_choose": ({"pimc_choose": True, "pimc_contre": False, "pimc_play": False},
                    "PIMC names the trump only"),
    "gain_contre": ({"pimc_choose": False, "pimc_contre": True, "pimc_play": False},
                    "PIMC says contre/surcontre only"),
    "gain_play": ({"pimc_choose": False, "pimc_contre": False, "pimc_play": True},
                  "PIMC plays the cards only"),
}
BIANCO_MANO_DECISIONS = ["card play"]  # bidding, espion, call, announcement: the heuristic's


def policy_defaults(game: str, name: str) -> dict:
    """A registered policy's default parameters."""
    from simulators.core.game import get_game

    return get_game(game).policies[name]().get_params()


def pimc_defaults(game: str) -> dict:
    """The pimc policy's own default parameters."""
    return policy_defaults(game, "pimc")


def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def pieces(game: str, args) -> dict[str, dict]:
    """Every piece of a game: its command line (after ``tapisvert``), what it records and its
    settings (the resume key: sizes, seeds and every parameter of the measured policy)."""
    common = ["--seed", str(args.seed)]
    if args.chunk_size is not None:
        common += ["--chunk-size", str(args.chunk_size)]
    pimc = {**pimc_defaults(game), "worlds": args.worlds}
    heuristic = policy_defaults(game, "heuristic")
    out: dict[str, dict] = {}

    def add(name, kind, label, policy, params, argv, deals, players):
        seats = {"players": players} if players else {}
        settings = {"deals": deals, "seed": args.seed, **seats, "params": params}
        if policy == "pimc":
            settings["worlds"] = params["worlds"]
        out[name] = {"kind": kind, "label": label, "policy": policy,
                     "decisions": _decisions(params, game) if policy == "pimc" else None,
                     **seats, "settings": settings, "argv": argv}

    def gain(name, label, changes, players=None):
        argv = ["compare", game, *(["--players", str(players)] if players else []),
                "--a", "pimc", "--b", "heuristic", "--seats", "0", "--deals", str(args.deals),
                *common, "--a-param", f"worlds={args.worlds}"]
        for key, value in changes.items():
            argv += ["--a-param", f"{key}={_text(value)}"]
        add(name, "gain", label, "pimc", {**pimc, **changes}, argv, args.deals, players)

    def rates(name, policy, players=None):
        argv = ["simulate", game, *(["--players", str(players)] if players else []),
                "--policy", policy, "--deals", str(args.rate_deals), *common]
        if policy == "pimc":
            argv += ["--param", f"worlds={args.worlds}"]
        add(name, "rates", f"{'PIMC' if policy == 'pimc' else 'heuristic'} at every seat",
            policy, pimc if policy == "pimc" else heuristic, argv, args.rate_deals, players)

    if game == "manille":
        for name, (changes, label) in MANILLE_GAINS.items():
            gain(name, label, changes)
            if name != "gain_default" and all(pimc[k] == v for k, v in changes.items()):
                out[name]["same_as"] = "gain_default"  # pimc's defaults: measured once
        rates("rates_pimc", "pimc")
        rates("rates_heuristic", "heuristic")
    else:
        for n in args.players:
            gain(f"gain_{n}p", f"PIMC plays the cards, {n} players", {}, players=n)
        for n in args.players:
            rates(f"rates_pimc_{n}p", "pimc", players=n)
            rates(f"rates_heuristic_{n}p", "heuristic", players=n)
    return out


def _decisions(params: dict, game: str = "manille") -> list[str]:
    """The decision kinds a pimc policy with these parameters makes."""
    if game == "bianco-mano":
        return BIANCO_MANO_DECISIONS
    return [kind for key, kind in PIMC_KINDS.items() if params.get(key)]


def run_piece(game: str, name: str, piece: dict, args, runs_dir: Path) -> dict:
    """Run one piece's command (resuming its study directory) and return its record."""
    from analysis.compare import comparison_record

    key = hashlib.sha1(json.dumps(piece["settings"], sort_keys=True).encode()).hexdigest()
    study = runs_dir / game / f"{name}-{key[:12]}"  # another setting: another directory
    if args.force and study.exists():
        shutil.rmtree(study)
    argv = [*piece["argv"], "--n-jobs", str(args.n_jobs), "--json"]
    env = {k: v for k, v in os.environ.items() if k != "TAPISVERT_SCALE"}  # full sizes only
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "analysis.cli", *argv, "--out-dir",
                           str(study)], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        kept = f"; its study directory {study} is kept" if args.runs_dir is not None else ""
        raise SystemExit(f"{game} {name}: 'tapisvert {shlex.join(argv)}' failed "
                         f"(exit {done.returncode}){kept}")
    result = json.loads(done.stdout)
    manifest_path = study / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    sessions = manifest.get("sessions", [])
    experiment = result["experiment"]
    if piece["kind"] == "gain":
        params = experiment["a"]["params"]
    else:
        params = experiment["policies"][0]["params"]
    if params != piece["settings"]["params"]:
        raise SystemExit(f"{game} {name}: the command played {params}, the plan says "
                         f"{piece['settings']['params']}")
    record = {
        "kind": piece["kind"], "label": piece["label"], "policy": piece["policy"],
        "decisions": piece["decisions"],
        **({"players": piece["players"]} if "players" in piece else {}),
        "settings": piece["settings"],
        "command": "tapisvert " + shlex.join(argv),
        "wall_seconds": round(sum(s.get("wall_seconds", 0.0) for s in sessions) or wall, 1),
        "worker_seconds": round(sum(s.get("worker_seconds", 0.0) for s in sessions), 1),
        "sessions": max(1, len(sessions)),
        "n_jobs": args.n_jobs, "chunk_size": manifest.get("chunk_size", args.chunk_size),
        "measured": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": _git_commit(),
        **({"comparison": comparison_record(result["rows"])} if piece["kind"] == "gain"
           else {"rows": result["rows"]}),
    }
    shutil.rmtree(study, ignore_errors=True)
    return record


def _git_commit() -> str | None:
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def read_document(path: Path, game: str) -> dict:
    """The JSON so far (absent or empty: a fresh one); a file of another game is refused."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    doc = json.loads(text) if text.strip() else {}
    if doc.get("game", game) != game:
        raise SystemExit(f"{path} holds {doc['game']!r}'s figures, not {game!r}'s")
    if doc.get("schema", SCHEMA) != SCHEMA:
        raise SystemExit(f"{path} has schema {doc['schema']}, this script writes {SCHEMA}")
    doc.setdefault("pieces", {})
    return doc


def write_document(path: Path, doc: dict) -> None:
    """Atomically: a kill never leaves half a file."""
    from simulators.core.files import write_atomically

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(doc, indent=1) + "\n")


def measure(game: str, plan: dict[str, dict], path: Path, score: str, args, runs_dir: Path,
            wanted: set[str] | None) -> None:
    """Run a game's pieces not measured yet with the same settings (``wanted``: only those),
    saving the document after each one."""
    doc = read_document(path, game)
    doc.update(schema=SCHEMA, game=game, score=score)
    for name, piece in plan.items():
        if wanted is not None and name not in wanted:
            continue
        held = doc["pieces"].get(name)
        if held is not None and held.get("settings") == piece["settings"] and not args.force:
            sizes = {k: v for k, v in piece["settings"].items() if k != "params"}
            print(f"{game} {name}: already measured with {sizes} and the same parameters, "
                  "skipped (--force reruns it)", file=sys.stderr, flush=True)
            continue
        twin = doc["pieces"].get(piece.get("same_as", ""))
        if twin is not None and twin.get("settings") == piece["settings"]:
            record = {**twin, "label": piece["label"], "same_as": piece["same_as"]}
            print(f"{game} {name}: the policy's defaults, the figure of {piece['same_as']}",
                  file=sys.stderr, flush=True)
        else:
            print(f"{game} {name}: tapisvert {shlex.join(piece['argv'])} ...",
                  file=sys.stderr, flush=True)
            record = run_piece(game, name, piece, args, runs_dir)
        doc["pieces"][name] = record
        write_document(path, doc)
        print(f"{game} {name}: {_summary(record)} in {record['wall_seconds']:.1f} s -> {path}",
              file=sys.stderr, flush=True)


def _summary(record: dict) -> str:
    if record["kind"] == "gain":
        r = record["comparison"]["paired"]
        p = "–" if r["p_value"] is None else f"{r['p_value']:.3g}"
        return (f"gain {r['mean']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}] per unit, "
                f"n={r['n']}, p={p}")
    return ", ".join(f"{r['metric']} {r['value']:.3f}" for r in record["rows"][:3]
                     if r["value"] is not None)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("manille", "bianco-mano", "all"), default="all")
    parser.add_argument("--deals", type=int, default=2000, help="deals per gain comparison")
    parser.add_argument("--rate-deals", type=int, default=400,
                        help="deals per rate simulation (every seat PIMC: slower)")
    parser.add_argument("--worlds", type=int, help="PIMC worlds (default: the policy's)")
    parser.add_argument("--players", default="3,4,5", help="Bianco Mano player counts")
    parser.add_argument("--pieces", help="only these pieces, comma-separated (JSON keys)")
    parser.add_argument("--seed", type=int, default=2026, help="the deals' root seed")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--chunk-size", type=int,
                        help="deals per chunk, the unit of parallel work and of resume "
                             "(default: the runner's, 50 for pimc)")
    parser.add_argument("--out-dir", type=Path,
                        help="write DIR/<game>/strength.json instead of the shipped files")
    parser.add_argument("--runs-dir", type=Path,
                        help="keep each running piece's study here: a killed piece resumes")
    parser.add_argument("--force", action="store_true", help="rerun pieces already measured")
    args = parser.parse_args(argv)
    for flag in ("deals", "rate_deals", "n_jobs", "chunk_size"):
        value = getattr(args, flag)
        if value is not None and value < 1 and not (flag == "n_jobs" and value == -1):
            parser.error(f"--{flag.replace('_', '-')} must be positive")
    try:
        args.players = tuple(int(p) for p in args.players.split(","))
    except ValueError:
        parser.error(f"--players: player counts like 3,4,5, got {args.players!r}")
    if not set(args.players) <= set(PLAYER_COUNTS) or not args.players:
        parser.error(f"--players: each of {PLAYER_COUNTS}")
    games = ("manille", "bianco-mano") if args.game == "all" else (args.game,)
    wanted = None if args.pieces is None else set(args.pieces.split(","))
    plans = {}
    for game in games:
        worlds = args.worlds if args.worlds is not None else pimc_defaults(game)["worlds"]
        plans[game] = pieces(game, argparse.Namespace(**{**vars(args), "worlds": worlds}))
    if wanted is not None:
        unknown = wanted - {name for plan in plans.values() for name in plan}
        if unknown:
            parser.error(f"--pieces: unknown {', '.join(sorted(unknown))} (known: "
                         + ", ".join(n for plan in plans.values() for n in plan) + ")")
    from simulators.core.game import get_game

    with tempfile.TemporaryDirectory(prefix="pimc-strength-") as scratch:
        runs_dir = args.runs_dir if args.runs_dir is not None else Path(scratch)
        for game, plan in plans.items():
            path = (SHIPPED[game] if args.out_dir is None
                    else args.out_dir / get_game(game).slug / "strength.json")
            measure(game, plan, path, get_game(game).unit("deals").score, args, runs_dir,
                    wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
