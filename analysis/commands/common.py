"""What several ``tapisvert`` verbs use: usage errors and the parser class, sizes scaled by
``TAPISVERT_SCALE``, values typed from dataclass fields, seats, output files and the JSON
document every ``--json`` prints."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import types
import typing
from pathlib import Path
from typing import Any

import polars as pl

from simulators.core.files import atomic_path
from simulators.core.game import Game

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
SCALE_VARIABLE = "TAPISVERT_SCALE"


class UsageError(ValueError):
    """Bad command-line input (exit status 2)."""


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line through :func:`main`, not a usage block.

    Abbreviated flags are refused (``--deal`` is not ``--deals``): a typo
    must not quietly become another flag.
    """

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # noqa: D102 (argparse's hook)
        raise UsageError(f"{message} (see: {self.prog} --help)")


def size_scale() -> float:
    """``TAPISVERT_SCALE`` (default 1): every size is multiplied by it."""
    raw = os.environ.get(SCALE_VARIABLE)
    if raw is None or not raw.strip():
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1:
        raise UsageError(f"{SCALE_VARIABLE} must be a number in (0, 1], got {raw!r}")
    return value


def scaled(size: int) -> int:
    """A size multiplied by ``TAPISVERT_SCALE`` (at least 1)."""
    return max(1, round(size * size_scale()))


# ------------------------------------------------------------------ typed values


def parse_value(raw: str) -> Any:
    """A value of unknown type read as bool, int, float or string."""
    low = raw.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw.strip()


def parse_typed(raw: str, kind: Any, where: str) -> Any:
    """``raw`` read as the annotated type ``kind`` (bool, int, float, str, tuples, optionals)."""
    text = raw.strip()
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        if text.lower() == "none" and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return parse_typed(raw, inner[0], where) if len(inner) == 1 else parse_value(raw)
    if origin is tuple:
        item = args[0] if args else str
        return tuple(parse_typed(v, item, where) for v in text.split(",") if v.strip())
    if kind is bool:
        if text.lower() not in ("true", "false", "1", "0"):
            raise UsageError(f"{where} must be true or false, got {raw!r}")
        return text.lower() in ("true", "1")
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            raise UsageError(f"{where} must be {'an integer' if kind is int else 'a number'}, "
                             f"got {raw!r}") from None
    return text if kind is str else parse_value(raw)


def field_types(cls: type) -> dict[str, Any]:
    """Field name -> resolved annotation of a dataclass."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(cls)}


def parse_assignment(text: str, flag: str) -> tuple[str, str]:
    """``name=value`` from a repeatable flag (value still text)."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise UsageError(f"{flag} expects name=value, got {text!r}")
    return name.strip(), raw


def typed_options(game: Game, texts: list[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` flags typed from the game's config fields."""
    kinds = field_types(game.config)
    out = {}
    for text in texts:
        name, raw = parse_assignment(text, "--option")
        if name not in kinds:
            raise UsageError(f"unknown rule option for {game.name}: {name!r} "
                             f"(options: {', '.join(kinds)})")
        out[name] = parse_typed(raw, kinds[name], f"option {name}")
    return out


def typed_params(policy_cls: type, texts: list[str], flag: str) -> dict[str, Any]:
    """``--param NAME=VALUE`` flags typed from the policy's parameter fields."""
    kinds = field_types(policy_cls)
    out = {}
    for text in texts:
        name, raw = parse_assignment(text, flag)
        if name not in kinds:
            raise UsageError(f"{flag}: {policy_cls.__name__} has no parameter {name!r} "
                             f"(parameters: {', '.join(kinds) or 'none'})")
        if name in out:
            raise UsageError(f"{flag} {name} is given twice")
        out[name] = parse_typed(raw, kinds[name], f"{flag} {name}")
    return out


def parse_seats(text: str) -> tuple[int, ...]:
    """``0,2`` -> (0, 2); a repeated seat is an error."""
    try:
        seats = tuple(int(s) for s in text.split(","))
    except ValueError:
        raise UsageError(f"--seats expects seat numbers like 0,2, got {text!r}") from None
    if len(set(seats)) != len(seats):
        raise UsageError(f"--seats names a seat twice: {text!r}")
    return seats


def seats_phrase(seats) -> str:
    """'seat 0' or 'seats 0, 2'."""
    seats = list(seats)
    return f"seat{'s' if len(seats) > 1 else ''} {', '.join(map(str, seats))}"


def check_at_most(flag: str, size: int) -> None:
    """A size beyond the units a run can number (``MAX_UNITS``) is refused, naming its flag."""
    from simulators.core.rng import MAX_UNITS

    if size > MAX_UNITS:
        raise UsageError(f"{flag} must be at most {MAX_UNITS:,} (unit ids are 64-bit "
                         f"integers), got {size}")


def check_precision(precision: float | None) -> None:
    if precision is not None and not (0 < precision < float("inf")):
        raise UsageError(f"--precision must be a positive number, got {precision}")


# ------------------------------------------------------------------ output


def check_out_file(path: Path) -> None:
    """Reject an output file we could not write, before any work is done."""
    from analysis.runner import check_writable

    if path.suffix.lower() not in (".parquet", ".csv"):
        raise UsageError(f"--out must end in .parquet or .csv, got {str(path)!r}")
    if path.is_dir():
        raise UsageError(f"--out {str(path)!r} is a directory")
    check_writable(path)


def write_table(table: pl.DataFrame, path: Path) -> None:
    """Write a table as Parquet or CSV, atomically (no partial file on failure)."""
    check_out_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        if path.suffix.lower() == ".parquet":
            table.write_parquet(tmp)
        else:
            table.write_csv(tmp)


def show(table: pl.DataFrame) -> str:
    """A table as aligned text."""
    with pl.Config(tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True, tbl_rows=200,
                   tbl_cols=30, float_precision=4, tbl_width_chars=160, fmt_str_lengths=60):
        return str(table)


def json_value(value: Any) -> Any:
    """A value JSON can hold: NaN and infinities become null (strict JSON has neither)."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    return value


def json_document(rows: pl.DataFrame, experiment: dict[str, Any], seconds: float,
                  **extra: Any) -> str:
    """``{"rows": [...], "experiment": {...}, "seconds": ...}``: the printed table's rows as
    objects (same column names), what was played, and the command's wall time."""
    import json

    doc = {"rows": rows.to_dicts(), "experiment": experiment, "seconds": round(seconds, 3),
           **extra}
    return json.dumps(json_value(doc), indent=2, default=str)


def log_line(line: str) -> None:
    """A progress line of long work, on stderr (stdout keeps the answer, e.g. ``--json``)."""
    print(line, file=sys.stderr, flush=True)
