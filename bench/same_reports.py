"""Same seed => same report numbers: this checkout's reports against an older commit's.

Plans every registered game's report at a small scale and a fixed seed,
plays its runs through the runner and builds its sections, with the code of
this checkout and, in a subprocess, with that of another checkout (a git
worktree); then compares every section's tidy summary row by row (``value``,
``low``, ``high``, ``n``, matched on the row's other columns) and, apart,
the text of its tables and findings. Run::

    git worktree add /tmp/base 03bfa71
    python bench/same_reports.py --base /tmp/base [--scale 0.01] [--games truc manille]

It prints one line per difference and a count per game; the exit status is
1 when a summary number differs. ``compare_reports(new, old)`` is the
comparison alone, for a caller that produced both sides itself.
"""

from __future__ import annotations

import argparse
import math
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NUMBERS = ("value", "low", "high", "n")
REL_TOL = 1e-9  # float sums in another order (polars vs numpy) differ in the last digits


def produce(out: Path, scale: float, seed: int, names: list[str] | None) -> None:
    """Every report's sections, built with this process's ``analysis`` and ``simulators``."""
    from analysis.reporting import ReportContext, base_experiment, report_module, report_of
    from analysis.runner import run
    from simulators.core.game import games

    print(f"producing with {sys.modules['analysis'].__file__}", flush=True)
    result = {}
    for game in games().values():
        if (names and game.name not in names) or report_module(game) is None:
            continue
        report = report_of(game)
        ctx = ReportContext(base_experiment(game, seed), scale, seed)
        with tempfile.TemporaryDirectory() as tmp:
            runs = {name: run(experiment, Path(tmp) / name, n_jobs=1, progress=False)
                    for name, experiment in report.plan(ctx).items()}
            sections = {}
            for build in report.sections:
                s = build(runs, ctx)
                sections[s.key] = {
                    "title": s.title,
                    "summary": s.summary.to_dicts(),
                    "text": [t.caption for t in s.tables]
                    + [str(row) for t in s.tables for row in t.frame.iter_rows()]
                    + list(s.findings),
                }
        result[game.name] = sections
        print(f"  {game.name}: {len(sections)} sections", flush=True)
    out.write_bytes(pickle.dumps(result))


def _key(row: dict) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in row.items() if k not in NUMBERS))


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-12)


def compare_reports(new: dict, old: dict) -> tuple[list[str], list[str]]:
    """(summary differences, text differences), one line each."""
    numbers, text = [], []
    for game in sorted(old):
        if game not in new:
            numbers.append(f"{game}: no report in the new checkout")
            continue
        for key, section in old[game].items():
            where = f"{game} {key}"
            other = new[game].get(key)
            if other is None:
                numbers.append(f"{where}: section missing")
                continue
            rows_old = {_key(r): r for r in section["summary"]}
            rows_new = {_key(r): r for r in other["summary"]}
            for side, rows, kept in (("old", section["summary"], rows_old),
                                     ("new", other["summary"], rows_new)):
                if len(kept) != len(rows):
                    numbers.append(f"{where}: {len(rows) - len(kept)} {side} rows share "
                                   "their key columns with another row")
            for k in rows_old.keys() - rows_new.keys():
                numbers.append(f"{where}: row {dict(k)} missing")
            for k in rows_new.keys() - rows_old.keys():
                numbers.append(f"{where}: row {dict(k)} added")
            for k in rows_old.keys() & rows_new.keys():
                a, b = rows_old[k], rows_new[k]
                changed = [c for c in NUMBERS if not _same(a.get(c), b.get(c))]
                if changed:
                    numbers.append(f"{where}: {dict(k)} "
                                   + ", ".join(f"{c} {a.get(c)!r} -> {b.get(c)!r}"
                                               for c in changed))
            for i, (a, b) in enumerate(zip(section["text"], other["text"], strict=False)):
                if a != b:
                    text.append(f"{where} text[{i}]:\n    - {a}\n    + {b}")
            if len(section["text"]) != len(other["text"]):
                text.append(f"{where}: {len(section['text'])} -> {len(other['text'])} text items")
    return numbers, text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="checkout (worktree) to compare against")
    parser.add_argument("--scale", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--games", nargs="*", help="only these games (default: every report)")
    parser.add_argument("--text", action="store_true", help="print the text differences too")
    parser.add_argument("--keep-base", type=Path, metavar="FILE",
                        help="reuse the base's results from FILE if it exists, else save "
                             "them there (same scale, seed and games)")
    parser.add_argument("--produce", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.produce is not None:
        produce(args.produce, args.scale, args.seed, args.games)
        return 0
    if args.base is None or not (args.base / "analysis").is_dir():
        parser.error("--base must be a checkout holding analysis/ (git worktree add ...)")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, root in (("new", ROOT), ("old", args.base.resolve())):
            paths[name] = Path(tmp) / f"{name}.pkl"
            if name == "old" and args.keep_base is not None:
                paths[name] = args.keep_base
                if args.keep_base.exists():
                    print(f"base results from {args.keep_base}")
                    continue
            argv_child = ["x", "--produce", str(paths[name]), "--scale", str(args.scale),
                          "--seed", str(args.seed)] + (["--games", *args.games]
                                                       if args.games else [])
            code = (f"import sys, runpy; sys.path.insert(0, {str(root)!r}); "
                    f"sys.argv = {argv_child!r}; "
                    f"runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')")
            subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
        new, old = (pickle.loads(paths[k].read_bytes()) for k in ("new", "old"))
    if args.games:  # a kept base may hold more games
        old = {g: sections for g, sections in old.items() if g in args.games}
    numbers, text = compare_reports(new, old)
    for line in numbers:
        print("DIFF", line)
    if args.text:
        for line in text:
            print("TEXT", line)
    rows = sum(len(s["summary"]) for g in old.values() for s in g.values())
    print(f"{len(old)} reports, {sum(len(g) for g in old.values())} sections, {rows} summary "
          f"rows at scale {args.scale:g}, seed {args.seed}: {len(numbers)} summary "
          f"difference(s), {len(text)} text difference(s) against {args.base}")
    return 1 if numbers else 0


if __name__ == "__main__":
    raise SystemExit(main())
