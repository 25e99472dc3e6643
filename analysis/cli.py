"""The ``tapisvert`` command line.

Every command validates its input first; on bad input it prints one line
``tapisvert: error: …`` to stderr and exits with status 2, writing nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from analysis.summaries import bianco_mano_rates

GAMES = ("bianco-mano",)


class UsageError(ValueError):
    """Bad command-line input (exit status 2)."""


def parse_param(text: str) -> tuple[str, object]:
    """``name=value`` with value read as bool, int, float or string."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise UsageError(f"--param expects name=value, got {text!r}")
    low = raw.strip().lower()
    value: object
    if low in ("true", "false"):
        value = low == "true"
    else:
        try:
            value = int(raw)
        except ValueError:
            try:
                value = float(raw)
            except ValueError:
                value = raw
    return name.strip(), value


def check_out_path(path: Path) -> None:
    """Reject an output path we could not write, before any work is done."""
    if path.suffix.lower() not in (".parquet", ".csv"):
        raise UsageError(f"--out must end in .parquet or .csv, got {str(path)!r}")
    if not path.parent.is_dir():
        raise UsageError(f"--out directory does not exist: {str(path.parent)!r}")


def write_table(table: pl.DataFrame, path: Path) -> None:
    """Write a table as Parquet or CSV, atomically (no partial file on failure)."""
    check_out_path(path)
    suffix = path.suffix.lower()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        if suffix == ".parquet":
            table.write_parquet(tmp)
        else:
            table.write_csv(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _simulate(args: argparse.Namespace) -> str:
    from simulators.bianco_mano import BiancoManoConfig, make_policy, simulate_deals, simulate_games

    params = dict(parse_param(p) for p in args.param)
    config = BiancoManoConfig(n_players=args.players, bianco_mano=args.bonus,
                              shuffle_every_deal=args.shuffle_every_deal)
    policy = make_policy(args.policy, **params)
    if args.out is not None:
        check_out_path(args.out)
    start = time.perf_counter()
    if args.games:
        batch = simulate_games(config, policy, args.games, seed=args.seed)
        deals = batch.deals
        unit = f"{args.games} games ({deals.height} deals)"
    else:
        batch = simulate_deals(config, policy, args.deals, seed=args.seed)
        deals, unit = batch.table, f"{args.deals} deals"
    elapsed = time.perf_counter() - start
    if args.out is not None:
        write_table(deals, args.out)
    rates = bianco_mano_rates(deals)
    lines = [
        f"Bianco Mano, {args.players} players, {args.policy} policy, seed {args.seed}, "
        f"bonus {'on' if args.bonus else 'off'}: {unit} "
        f"in {elapsed:.2f} s",
    ]
    for row in rates.iter_rows(named=True):
        lines.append(f"  {row['metric']:<18} {100 * row['value']:5.1f}%   95% CI "
                     f"[{100 * row['low']:.1f}, {100 * row['high']:.1f}]   n={row['n']}")
    if args.out is not None:
        lines.append(f"  table written to {args.out}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``tapisvert``."""
    parser = argparse.ArgumentParser(
        prog="tapisvert", description="Monte Carlo strategy analysis for card games.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sim = commands.add_parser("simulate", help="play a batch of deals or games and print rates")
    sim.add_argument("game", choices=GAMES)
    sim.add_argument("--players", type=int, default=4, help="3, 4 or 5 (default 4)")
    size = sim.add_mutually_exclusive_group()
    size.add_argument("--deals", type=int, default=100_000,
                      help="independent deals to play (default 100000)")
    size.add_argument("--games", type=int, help="play whole games instead (BM-12)")
    sim.add_argument("--seed", type=int, default=2026, help="root seed (default 2026)")
    sim.add_argument("--policy", default="heuristic", help="random or heuristic (default)")
    sim.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                     help="policy parameter, repeatable (e.g. take_threshold=4.5)")
    sim.add_argument("--bonus", action="store_true", help="play with the Bianco Mano bonus (BM-11)")
    sim.add_argument("--shuffle-every-deal", action="store_true", help="BM-3 variant")
    sim.add_argument("--out", type=Path, help="write the per-deal table (.parquet or .csv)")
    sim.set_defaults(run=_simulate)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        text = args.run(args)
    except ValueError as exc:  # UsageError, config and policy validation, IllegalAction
        print(f"tapisvert: error: {exc}", file=sys.stderr)
        return 2
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
