"""Reports: what a game's report module declares, and the one machine that builds it.

The report-module contract
--------------------------
A game's report is the module ``analysis/reports/<slug>.py`` (``slug`` =
the game's name with ``-`` → ``_``), found by that convention. It defines
``REPORT = Report(...)``:

``plan(ctx) -> {run name: Experiment}``
    every simulation the report needs, sized with ``ctx.size(base)`` and
    derived from ``ctx.base`` (the game's defaults, or ``--config``) with
    ``ctx.experiment(...)``. Each one is played by :func:`analysis.runner.run`
    into ``<out-dir>/.<slug>_runs/<run name>/``, so every report gets
    ``--n-jobs``, a manifest and resume after a kill for free.
``sections``
    functions ``build(runs, ctx) -> Section`` (or None: no section for this policy),
    one per question; ``runs``
    maps each run name to its finished :class:`~analysis.runner.RunResult`
    (``runs["deals4"].table("deals")``). A section computes its tidy
    summary, display tables (``pct``, ``num``…; a table whose caption states
    its sample size carries it as ``Table.n`` and writes the caption from it
    with ``sample_text``), one figure (``new_figure``, ``png``) and its
    findings (sentences). Every rate and mean of a summary
    is one of the game's declared metrics (``simulators/<game>/metrics.py``)
    evaluated by :func:`metric_rows` — grouped with ``by=`` ("take rate by
    position"), cluster-robust with ``cluster=`` — so a report and
    ``tapisvert simulate`` never define a quantity twice; ``estimate_row``
    holds what no metric is (differences, exact values).
``settings(ctx, plan) -> [(setting, value), ...]``
    the "Run settings" rows shown at the top.

:func:`build_report` validates everything first (scale, seed, output
directory, the plan's experiments), plays the runs, builds the sections,
renders ``templates/report.html.j2`` (autoescaped, figures inlined as
base64 PNG, no external reference) and ``report.md.j2`` (figures in
``<slug>_figures/``), writes them atomically, then deletes the runs.
:func:`build_all` does it for every registered game that has a report
module and writes ``index.html`` / ``index.md`` with each game's headline
findings.
"""

from __future__ import annotations

import base64
import importlib
import importlib.util
import io
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from analysis import summaries
from analysis.experiment import Experiment, build_policy, read_toml
from analysis.stats import Estimate
from simulators.core.game import Game, Metric, games, get_game
from simulators.core.rng import DEFAULT_SEED

# ------------------------------------------------------------------ what a section holds


@dataclass(frozen=True)
class Table:
    """A display table (strings) with its caption.

    ``n`` is the sample size behind the cells, as data: one count, or one per group of
    rows (``{"3 players": 300, "4 players": 1600}``) where they may differ. A caption
    stating a sample size writes it from ``n`` with :func:`sample_text`, so the two cannot
    drift apart; :func:`caption_sizes` reads it back for the tests.
    """

    caption: str
    frame: pl.DataFrame
    n: int | Mapping[str, int] | None = None

    def sizes(self) -> set[int]:
        """The sample sizes ``n`` holds (none when it is not given)."""
        if self.n is None:
            return set()
        return {int(v) for v in (self.n.values() if isinstance(self.n, Mapping) else [self.n])}


@dataclass(frozen=True)
class Plot:
    """A rendered figure."""

    name: str  # file name in the figures directory
    png: bytes
    caption: str


@dataclass(frozen=True)
class Section:
    """One question of the report, fully computed."""

    key: str
    title: str
    method: str
    tables: tuple[Table, ...]
    plot: Plot
    findings: tuple[str, ...]
    summary: pl.DataFrame  # the tidy numeric summary behind the tables


@dataclass(frozen=True)
class Header:
    title: str
    intro: tuple[str, ...]
    meta: pl.DataFrame


# ------------------------------------------------------------------ what a report declares


@dataclass(frozen=True)
class ReportContext:
    """What a report's plan and sections see: the base experiment, scale and seed."""

    base: Experiment
    scale: float
    seed: int

    @property
    def policy(self):
        """The base policy (every seat unless a section says otherwise)."""
        return self.base.policies[0]

    def size(self, base: int, minimum: int = 20) -> int:
        """``base`` units at this scale, at least ``minimum``."""
        return max(minimum, round(base * self.scale))

    def experiment(self, unit: str, size: int, *, seed: int | None = None,
                   policies: Any = None, **options: Any) -> Experiment:
        """The base experiment with a unit, size, rule options and policies changed."""
        changes: dict[str, Any] = {"unit": unit, "size": size,
                                   "seed": self.seed if seed is None else seed}
        if options:
            changes["options"] = options
        if policies is not None:
            changes["policies"] = policies
        return self.base.replace(**changes)


Runs = Mapping[str, Any]  # run name -> analysis.runner.RunResult


@dataclass(frozen=True)
class Report:
    """A game's report, declared (see the module docstring for the contract)."""

    title: str
    intro: tuple[str, ...]
    plan: Callable[[ReportContext], Mapping[str, Experiment]]
    sections: tuple[Callable[[Runs, ReportContext], Section | None], ...]
    """Each builds one section from the runs, or None: not for this policy (e.g. a sweep of
    parameters the report's policy does not have)."""
    settings: Callable[[ReportContext, Mapping[str, Experiment]], list[tuple[str, str]]]
    headline_sections: int = 2  # the first finding of this many sections goes on the index


def report_module(game: Game):
    """The game's report module, or None if it has none."""
    name = f"analysis.reports.{game.slug}"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def report_of(game: Game | str) -> Report:
    """The ``REPORT`` of a game's report module."""
    game = get_game(game)
    module = report_module(game)
    if module is None or not isinstance(getattr(module, "REPORT", None), Report):
        raise ValueError(f"{game.name} has no report (expected REPORT in "
                         f"analysis/reports/{game.slug}.py)")
    return module.REPORT


# ------------------------------------------------------------------ estimates and text


def estimate_row(e: Estimate, **keys: Any) -> dict[str, Any]:
    """One tidy summary row: ``keys…, value, low, high, n``."""
    return {**keys, "value": float(e.value), "low": float(e.low), "high": float(e.high),
            "n": int(e.n)}


def metric_rows(metrics: Mapping[str, Metric] | Sequence[tuple[Mapping[str, Any], Metric]],
                frame: pl.DataFrame | pl.LazyFrame, *, by: str | Sequence[str] = (),
                cluster: str | None = None, column: str = "metric",
                groups: Sequence[Any] | None = None, **keys: Any) -> list[dict[str, Any]]:
    """Declared metrics evaluated over ``frame`` (one query) as a section's summary rows.

    ``metrics`` maps the text a row carries in ``column`` to a
    :class:`~simulators.core.game.Metric`, or is a sequence of ``(row keys,
    metric)`` pairs when rows differ by more than that text; ``by`` and
    ``cluster`` are :func:`analysis.summaries.evaluate`'s. Rows are ``keys…,
    by columns…, row keys…, value, low, high, n``: groups in order, within a
    group the metrics in the given order. ``groups`` lists the groups to
    report (values of ``by``, tuples for several columns), in that order: a
    group the data lacks gets the estimate of no rows (n = 0).
    """
    pairs = ([({column: name}, m) for name, m in metrics.items()]
             if isinstance(metrics, Mapping) else [(dict(k), m) for k, m in metrics])
    by = [by] if isinstance(by, str) else list(by)
    evaluated = summaries.evaluate([m for _, m in pairs], frame, cluster=cluster, by=by)
    blocks: dict[tuple, list[dict[str, Any]]] = {}
    for i, r in enumerate(evaluated.iter_rows(named=True)):
        group = tuple(r[c] for c in by)
        blocks.setdefault(group, []).append(
            {**keys, **dict(zip(by, group, strict=True)), **pairs[i % len(pairs)][0],
             "value": r["value"], "low": r["low"], "high": r["high"], "n": r["n"]})
    if groups is None:
        return [row for block in blocks.values() for row in block]
    wanted = [g if isinstance(g, tuple) else (g,) for g in groups]
    missing = [g for g in wanted if g not in blocks]
    if missing:
        empty = metric_rows(metrics, frame.lazy().head(0), column=column, **keys)
        for g in missing:
            blocks[g] = [{**keys, **dict(zip(by, g, strict=True)),
                          **{k: v for k, v in row.items() if k not in keys}} for row in empty]
    return [row for g in wanted for row in blocks[g]]


def metric_estimate(metric: Metric, frame: pl.DataFrame | pl.LazyFrame,
                    cluster: str | None = None) -> Estimate:
    """One declared metric over ``frame`` as an Estimate."""
    return row_estimate(metric_rows({"m": metric}, frame, cluster=cluster)[0])


def find_estimate(frame: pl.DataFrame, **keys: Any) -> Estimate:
    """The Estimate of the one row of a tidy summary matching ``keys``."""
    rows = frame.filter(*[pl.col(k) == v for k, v in keys.items()])
    if rows.height != 1:
        raise KeyError(f"{keys} matches {rows.height} rows")
    r = rows.row(0, named=True)
    return Estimate(r["value"], r["low"], r["high"], r["n"])


def row_estimate(row: Mapping[str, Any]) -> Estimate:
    """The Estimate held in a summary row (value, low, high, n)."""
    return Estimate(row["value"], row["low"], row["high"], row["n"])


def finite(*values: float) -> bool:
    """Whether every value is a finite number."""
    return all(math.isfinite(v) for v in values)


def pct(e: Estimate, digits: int = 1) -> str:
    """A rate: '70.8% [70.5, 71.1]'; below 0.1% with two significant digits
    ('0.0050% [0.0010, 0.0200]'), so a rare event does not read 0.0% [0.0, 0.0]."""
    if not finite(e.value, e.low, e.high):
        return "–"
    small = 100 * abs(e.value or e.high)  # the value's digits, or the bound's when it is 0
    if 0 < small < 0.1:
        digits = max(digits, 1 - math.floor(math.log10(small)))
    return (f"{100 * e.value:.{digits}f}% [{100 * e.low:.{digits}f}, "
            f"{100 * e.high:.{digits}f}]")


def pp(e: Estimate, digits: int = 2) -> str:
    """A difference of rates in percentage points: '+0.45 pp [+0.41, +0.49]'."""
    if not finite(e.value, e.low, e.high):
        return "–"
    return (f"{100 * e.value:+.{digits}f} pp [{100 * e.low:+.{digits}f}, "
            f"{100 * e.high:+.{digits}f}]")


def num(e: Estimate, digits: int = 2, signed: bool = False) -> str:
    """A mean: '1.23 [1.20, 1.26]'."""
    if not finite(e.value, e.low, e.high):
        return "–"
    s = "+" if signed else ""
    return f"{e.value:{s}.{digits}f} [{e.low:{s}.{digits}f}, {e.high:{s}.{digits}f}]"


def policy_text(game: Game, policy) -> str:
    """A policy with every parameter: ``heuristic(take_threshold=4.0, …)``."""
    from analysis.experiment import policy_name

    params = ", ".join(f"{k}={v}" for k, v in policy.get_params().items())
    return f"{policy_name(game, policy)}({params})"


def fmt_count(value: float) -> str:
    """A count with thousands separators: '1,000,000'."""
    return f"{int(value):,}"


def sample_text(n: int | Mapping[str, int], unit: str, each: str = "") -> str:
    """A table's sample size for its caption: 'n=1,600 deals per player count' when every
    group has the same (``each`` names the group), else one per group: '3 players n=300,
    4 players n=1,600 deals'."""
    sizes = dict(n) if isinstance(n, Mapping) else {"": n}
    if len(set(sizes.values())) == 1:
        return " ".join(filter(None, [f"n={fmt_count(next(iter(sizes.values())))}", unit, each]))
    return ", ".join(f"{k} n={fmt_count(v)}" for k, v in sizes.items()) + f" {unit}"


def group_sizes(summary: pl.DataFrame, by: str | Sequence[str], label: str = "{}"
                ) -> dict[str, int]:
    """Each group's sample size in a tidy summary (its largest ``n``), keyed by ``label``
    formatted with the group's values: a table's ``n`` per group, in order."""
    by = [by] if isinstance(by, str) else list(by)
    sizes = summary.group_by(by, maintain_order=True).agg(pl.col("n").max())
    return {label.format(*r[:-1]): int(r[-1]) for r in sizes.iter_rows()}


_STATED_N = re.compile(r"\bn ?= ?(\d[\d,]*)")


def caption_sizes(caption: str) -> set[int]:
    """The sample sizes a caption states ('n=1,600', 'n = 300')."""
    return {int(m.replace(",", "")) for m in _STATED_N.findall(caption)}


def formatted(percent: bool = True, digits: int = 1) -> pl.Expr:
    """A summary table's estimates as display text (``pct`` or ``num``), as an expression."""
    def text(values: pl.Series) -> str:
        e = Estimate(*values.to_list())
        return pct(e, digits) if percent else num(e, digits)

    columns = [pl.col(c).cast(pl.Float64) for c in ("value", "low", "high", "n")]
    return pl.concat_list(columns).map_elements(text, return_dtype=pl.String)


# ------------------------------------------------------------------ figures


def new_figure(width: float, height: float, ncols: int = 1):
    """A figure with ``ncols`` axes side by side, light horizontal grid."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    for ax in axes:
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    return fig, axes


def png(fig: Figure, dpi: int = 110) -> bytes:
    """A figure as PNG bytes (no timestamp: identical figures give identical bytes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def percent_axis(ax) -> None:
    """Show the y axis as percentages of 1."""
    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))


def yerr(values, lows, highs) -> np.ndarray:
    """Error-bar extents (2, n) from values and interval bounds, infinities as 0."""
    v, lo, hi = (np.asarray(x, dtype=float) for x in (values, lows, highs))
    return np.clip(np.nan_to_num(np.vstack([v - lo, hi - v]), posinf=0.0, neginf=0.0), 0, None)


def headroom(ax, factor: float = 1.3) -> None:
    """Room above the tallest bar for a legend."""
    low, high = ax.get_ylim()
    ax.set_ylim(low, high * factor)


# ------------------------------------------------------------------ rendering

_HTML = Environment(loader=PackageLoader("analysis", "templates"),
                    autoescape=select_autoescape(["html", "html.j2"]),
                    undefined=StrictUndefined, keep_trailing_newline=True)
_MD = Environment(loader=PackageLoader("analysis", "templates"), autoescape=False,
                  undefined=StrictUndefined, keep_trailing_newline=True,
                  trim_blocks=True, lstrip_blocks=True)


def _md_cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _rows(frame: pl.DataFrame) -> list[list[str]]:
    return [[str(v) for v in row] for row in frame.iter_rows()]


_HTML.filters["rows"] = _rows
_MD.filters["rows"] = _rows
_MD.filters["cell"] = _md_cell
_MD.filters["alt"] = lambda text: str(text).replace("[", "(").replace("]", ")")
_HTML.filters["b64"] = lambda data: base64.b64encode(data).decode("ascii")


def render_html(header: Header, sections: Sequence[Section]) -> str:
    """One self-contained page: inline CSS, figures as base64 PNG, every value escaped."""
    return _HTML.get_template("report.html.j2").render(header=header, sections=sections)


def render_markdown(header: Header, sections: Sequence[Section], figure_dir: str) -> str:
    """The Markdown twin, figures as files in ``figure_dir``."""
    return _MD.get_template("report.md.j2").render(header=header, sections=sections,
                                                   figure_dir=figure_dir)


def render_index(entries: Sequence[Mapping[str, Any]], kind: str) -> str:
    """The index page of ``report all`` (``kind`` is ``html`` or ``md``)."""
    env = _HTML if kind == "html" else _MD
    return env.get_template(f"index.{kind}.j2").render(entries=entries)


# ------------------------------------------------------------------ writing


def check_out_dir(out_dir: Path) -> None:
    """Fail before simulating when ``out_dir`` could not be a writable directory."""
    from analysis.runner import check_writable

    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"report output path is a file, not a directory: {str(out_dir)!r}")
    check_writable(out_dir)


def _make_dirs(path: Path) -> Path | None:
    """Create ``path`` and missing parents; the top-most directory created (or None)."""
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    path.mkdir(parents=True, exist_ok=True)
    return missing[-1] if missing else None


def write_files(out_dir: Path, files: Mapping[str, bytes | str], *,
                figures: tuple[str, Sequence[Plot]] | None = None) -> None:
    """Write ``files`` (name -> content) into ``out_dir``, and figures into a subdirectory.

    Everything is staged in a temporary directory inside ``out_dir``, then
    each file moves into place with ``os.replace``. On failure, put back the
    files it replaced, remove the ones it added, the staging area and every
    directory this call created, and re-raise.
    """
    out_dir = Path(out_dir)
    created_top = _make_dirs(out_dir)
    fig_dir = out_dir / figures[0] if figures else None
    fig_dir_created = False
    staging = None
    moved: list[str] = []
    previous: list[str] = []
    try:
        staging = Path(tempfile.mkdtemp(dir=out_dir, prefix=".report.", suffix=".tmp"))
        plots = figures[1] if figures else ()
        for plot in plots:
            (staging / plot.name).write_bytes(plot.png)
        for name, content in files.items():
            data = content.encode("utf-8") if isinstance(content, str) else content
            (staging / name).write_bytes(data)
        if fig_dir is not None and not fig_dir.is_dir():
            fig_dir.mkdir()  # FileExistsError if a file is in the way
            fig_dir_created = True
        for plot in plots:
            os.replace(staging / plot.name, fig_dir / plot.name)
        for name in files:  # an older file is kept aside until every new one is in place
            if (out_dir / name).exists():
                os.replace(out_dir / name, staging / f"previous-{name}")
                previous.append(name)
            os.replace(staging / name, out_dir / name)
            moved.append(name)
    except BaseException:
        for name in moved:
            (out_dir / name).unlink(missing_ok=True)
        for name in previous:
            os.replace(staging / f"previous-{name}", out_dir / name)
        if fig_dir_created:
            shutil.rmtree(fig_dir, ignore_errors=True)
        if created_top is not None:
            shutil.rmtree(created_top, ignore_errors=True)
        raise
    finally:
        if staging is not None and staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def write_report(out_dir: Path, name: str, html_text: str, md_text: str,
                 plots: Sequence[Plot]) -> dict[str, Path]:
    """Write ``name.html``, ``name.md`` and ``name_figures/``, atomically."""
    out_dir = Path(out_dir)
    # the Markdown before the HTML: a reader of the HTML finds its twin complete
    write_files(out_dir, {f"{name}.md": md_text, f"{name}.html": html_text},
                figures=(f"{name}_figures", plots))
    return {"html": out_dir / f"{name}.html", "markdown": out_dir / f"{name}.md"}


# ------------------------------------------------------------------ building


def _check_scale_seed(scale: float, seed: int) -> None:
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not (
            math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive number, got {scale!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")


def base_experiment(game: Game, seed: int, config: str | Path | None = None) -> Experiment:
    """The game's defaults, or the rule options and policies of a TOML ``--config``."""
    data: dict[str, Any] = {} if config is None else read_toml(config)
    unknown = set(data) - {"game", "options", "policies", "policy"}
    if unknown:
        raise ValueError(f"a report config takes game, [options] and [[policies]]; got "
                         f"{', '.join(sorted(unknown))}")
    if data.get("game", game.name) != game.name:
        raise ValueError(f"--config is for {data['game']!r}, not {game.name!r}")
    policies = data.get("policies", data.get("policy"))
    if policies is not None and not isinstance(policies, list):
        policies = [policies]
    built = None if policies is None else [build_policy(game, p) for p in policies]
    return Experiment.create(game, options=data.get("options"), policies=built,
                             size=1, seed=seed)


@dataclass
class BuiltReport:
    """The paths written and the sections, for the index page."""

    game: Game
    report: Report
    paths: dict[str, Path]
    sections: list[Section] = field(default_factory=list)


def build_report(game: Game | str, out_dir: str | Path = "reports", *, scale: float = 1.0,
                 seed: int = DEFAULT_SEED, n_jobs: int = 1, config: str | Path | None = None,
                 progress: Callable[[str], None] | None = None,
                 keep_runs: bool = False) -> dict[str, Path]:
    """Simulate (through the runner), summarise and write one game's report."""
    return _build(game, out_dir, scale=scale, seed=seed, n_jobs=n_jobs, config=config,
                  progress=progress, keep_runs=keep_runs).paths


def _build(game: Game | str, out_dir: str | Path, *, scale: float, seed: int, n_jobs: int,
           config: str | Path | None, progress: Callable[[str], None] | None,
           keep_runs: bool) -> BuiltReport:
    from analysis.runner import check_n_jobs, run

    game = get_game(game)
    report = report_of(game)
    _check_scale_seed(scale, seed)
    check_n_jobs(n_jobs)
    out_dir = Path(out_dir)
    check_out_dir(out_dir)
    figures = out_dir / f"{game.slug}_figures"
    if figures.exists() and not figures.is_dir():
        raise ValueError(f"a file is in the way of the figures directory: {str(figures)!r}")
    say = progress if progress is not None else (lambda _message: None)
    ctx = ReportContext(base_experiment(game, int(seed), config), float(scale), int(seed))
    plan = dict(report.plan(ctx))  # every experiment validated before any work
    runs_dir = out_dir / f".{game.slug}_runs"
    runs, wall = {}, 0.0
    for i, (name, experiment) in enumerate(plan.items()):
        say(f"{game.name} [{i + 1}/{len(plan)}] {name}: {experiment.size:,} "
            f"{experiment.unit.name}")
        runs_dir.mkdir(parents=True, exist_ok=True)
        runs[name] = run(experiment, runs_dir / name, n_jobs=n_jobs, progress=False)
        wall += sum(s["wall_seconds"] for s in runs[name].manifest["sessions"])
    sections = []
    for build in report.sections:
        section = build(runs, ctx)
        if section is not None:
            sections.append(section)
            say(f"{game.name}: {section.title}")
    meta = [*report.settings(ctx, plan), ("simulation time", f"{wall:.1f} s")]
    header = Header(report.title, report.intro,
                    pl.DataFrame({"setting": [s for s, _ in meta], "value": [v for _, v in meta]}))
    say(f"writing {out_dir / (game.slug + '.html')} and {out_dir / (game.slug + '.md')}")
    paths = write_report(out_dir, game.slug, render_html(header, sections),
                         render_markdown(header, sections, f"{game.slug}_figures"),
                         [s.plot for s in sections])
    if not keep_runs:
        shutil.rmtree(runs_dir, ignore_errors=True)
    return BuiltReport(game, report, paths, sections)


def build_all(out_dir: str | Path = "reports", **settings: Any) -> dict[str, Path]:
    """Every registered game's report, then ``index.html`` and ``index.md`` linking them."""
    out_dir = Path(out_dir)
    chosen = [g for g in games().values() if report_module(g) is not None]
    if not chosen:
        raise ValueError("no registered game has a report module")
    for game in chosen:  # every report's declaration loads before any simulation
        report_of(game)
    defaults = {"scale": 1.0, "seed": DEFAULT_SEED, "n_jobs": 1, "config": None, "progress": None,
                "keep_runs": False}
    built = [_build(g, out_dir, **{**defaults, **settings}) for g in chosen]
    entries = [{
        "title": b.report.title, "game": b.game.title, "html": b.paths["html"].name,
        "markdown": b.paths["markdown"].name,
        "findings": [s.findings[0] for s in b.sections[:b.report.headline_sections]
                     if s.findings],
    } for b in built]
    write_files(out_dir, {"index.md": render_index(entries, "md"),
                          "index.html": render_index(entries, "html")})
    paths = {"index": out_dir / "index.html"}
    paths.update({b.game.name: b.paths["html"] for b in built})
    return paths


# ------------------------------------------------------------------ shipped measured figures


def read_measured(path: Path) -> dict:
    """A shipped JSON document of measured figures (e.g. a game's strength.json); ``{}``
    when the file is absent, empty or unreadable, so a report section can say so."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def measured_pieces(doc: dict) -> dict[str, dict]:
    """The ``pieces`` of a measured document (each one figure and how it was measured)."""
    pieces = doc.get("pieces") if isinstance(doc, dict) else None
    return {k: p for k, p in (pieces or {}).items() if isinstance(p, dict)}


def json_number(value) -> float:
    """A JSON number, ``null`` read as NaN."""
    return float("nan") if value is None else float(value)


def measured_commands(pieces: dict[str, dict]) -> Table:
    """How each measured figure was made: its command, wall time and date."""
    done = [(k, p) for k, p in pieces.items() if "command" in p]
    wall = [p.get("wall_seconds") for _, p in done]
    return Table("How each figure was measured (wall time on the machine that ran it).",
                 pl.DataFrame({"piece": [k for k, _ in done],
                               "command": [p["command"] for _, p in done],
                               "wall time": ["–" if w is None else f"{w:,.0f} s" for w in wall],
                               "measured": [str(p.get("measured", "–")) for _, p in done]},
                              schema={c: pl.String for c in ("piece", "command", "wall time",
                                                             "measured")}))


def not_measured(subject: str, units: str, command: str) -> tuple[Table, str]:
    """What a section shows while its shipped figures are missing: how to make them."""
    return (Table(f"{subject}: not measured yet ({sample_text(0, units)}); the figures are "
                  "made by this command and shipped with the package.",
                  pl.DataFrame({"status": ["not measured yet"], "command": [command]}), n=0),
            f"{subject} have not been measured yet: run '{command}'.")


COMPARED_SCHEMA = {"piece": pl.String, "a_mean": pl.Float64, "b_mean": pl.Float64,
                   "value": pl.Float64, "low": pl.Float64, "high": pl.Float64, "n": pl.Int64,
                   "p_value": pl.Float64}


def compared_rows(pieces: dict[str, dict], keys) -> pl.DataFrame:
    """One row per measured ``tapisvert compare`` piece among ``keys``: A's and B's mean
    score and the paired difference A - B (``value, low, high, n, p_value``)."""
    rows = []
    for key in keys:
        found = pieces.get(key, {}).get("comparison", {})
        if "paired" not in found:
            continue
        paired = found["paired"]
        rows.append({"piece": key, "a_mean": json_number(found.get("a", {}).get("mean")),
                     "b_mean": json_number(found.get("b", {}).get("mean")),
                     "value": json_number(paired["mean"]), "low": json_number(paired["low"]),
                     "high": json_number(paired["high"]), "n": int(paired["n"]),
                     "p_value": json_number(paired.get("p_value"))})
    return pl.DataFrame(rows, schema=COMPARED_SCHEMA)



# ------------------------------------------------------------------ the learned player beside


LEARNED = "net"  # the registered name of a game's learned player


def learned_policy(ctx: ReportContext):
    """The game's learned player with its default parameters (its shipped weights), for the
    report's paired arms; None when the game has none or the report's policy is it."""
    from analysis.experiment import policy_name

    game = ctx.base.game
    if LEARNED not in game.policies or policy_name(game, ctx.policy) == LEARNED:
        return None
    return game.make_policy(LEARNED)


def paired_policy_rows(metrics: Mapping[str, Metric], learned: pl.DataFrame,
                       base: pl.DataFrame, *, key: str, by: str | Sequence[str] = (),
                       column: str = "measure", **keys: Any) -> list[dict[str, Any]]:
    """Each metric under the learned player and under the base policy on the same units,
    and the paired difference (:func:`analysis.summaries.paired`): tidy rows ``keys…, by…,
    column, arm ("learned", "base", "difference"), value, low, high, n``."""
    texts = list(metrics)  # summaries.paired's rows: per group, per metric, three arms
    found = summaries.paired(list(metrics.values()), learned, base, key=key, by=by)
    arms = {"a": "learned", "b": "base", "difference": "difference"}
    by = [by] if isinstance(by, str) else list(by)
    return [{**keys, **{c: r[c] for c in by}, column: texts[i // 3 % len(texts)],
             "arm": arms[r["arm"]], "kind": r["kind"], "value": r["value"], "low": r["low"],
             "high": r["high"], "n": r["n"]} for i, r in enumerate(found.iter_rows(named=True))]


def paired_policy_table(summary: pl.DataFrame, keys: Sequence[str], names: tuple[str, str],
                        digits: int = 2) -> pl.DataFrame:
    """Display text of :func:`paired_policy_rows`: ``keys…, <learned>, <base>, <learned> -
    <base>, n`` (rates in percent, their differences in percentage points)."""
    def cell(r: Mapping[str, Any]) -> str:
        e = row_estimate(r)
        if r["kind"] == "rate":
            return pp(e) if r["arm"] == "difference" else pct(e)
        return num(e, digits, signed=r["arm"] == "difference")

    rows: dict[tuple, dict[str, str]] = {}
    for r in summary.iter_rows(named=True):
        group = tuple(r[k] for k in keys)
        row = rows.setdefault(group, {k: str(v) for k, v in zip(keys, group, strict=True)})
        column = {"learned": names[0], "base": names[1],
                  "difference": f"{names[0]} - {names[1]}"}[r["arm"]]
        row[column] = cell(r)
        if r["arm"] == "difference":
            row["n"] = f"{r['n']:,}"
    columns = [*keys, names[0], names[1], f"{names[0]} - {names[1]}", "n"]
    return pl.DataFrame([{c: row.get(c, "–") for c in columns} for row in rows.values()],
                        schema={c: pl.String for c in columns})


def paired_policy_figure(summary: pl.DataFrame, label: Callable[[Mapping[str, Any]], str],
                         names: tuple[str, str]) -> bytes:
    """The paired differences as a forest plot: rates in percentage points on the left,
    means on the right; bars: 95% intervals."""
    diffs = summary.filter(pl.col("arm") == "difference")
    fig, axes = new_figure(10, 0.32 * max(4, diffs.height) + 1.2, ncols=2)
    for ax, kind, scale, unit in ((axes[0], "rate", 100.0, "percentage points"),
                                  (axes[1], "mean", 1.0, "per unit")):
        part = diffs.filter(pl.col("kind") == kind)
        if part.is_empty():
            ax.axis("off")
            continue
        y = np.arange(part.height)[::-1]
        values = part["value"].to_numpy() * scale
        ax.errorbar(values, y, xerr=yerr(values, part["low"].to_numpy() * scale,
                                         part["high"].to_numpy() * scale),
                    fmt="o", color="#4C72B0", capsize=3)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_ylim(-0.7, max(part.height, 4) - 0.3)
        ax.set_yticks(y, [label(r) for r in part.iter_rows(named=True)], fontsize=8)
        ax.set_xlabel(f"{names[0]} - {names[1]}, {unit}")
    return png(fig)


def certificate_rows(pieces: Mapping[str, Mapping[str, Any]]) -> pl.DataFrame:
    """The learned player's measured certificates (``kind`` "certificate" pieces of a
    strength document, bench/net_strength.py): ``piece, players, against, setting, value,
    low, high, n, p_value, seed`` (``setting``: the rules certified when not only a player
    count, e.g. "round 6", else null; ``seed``: the deals', null if the piece does not say)."""
    rows = []
    for key, piece in pieces.items():
        if piece.get("kind") != "certificate":
            continue
        for against, c in piece.get("against", {}).items():
            rows.append({"piece": key, "players": piece.get("players"), "against": against,
                         "setting": piece.get("setting"), "value": json_number(c["mean"]),
                         "low": json_number(c["low"]),
                         "high": json_number(c["high"]), "n": int(c["n"]),
                         "p_value": json_number(c.get("p_value")),
                         "seed": piece.get("settings", {}).get("seed")})
    return pl.DataFrame(rows, schema={"piece": pl.String, "players": pl.Int64,
                                      "against": pl.String, "setting": pl.String,
                                      "value": pl.Float64,
                                      "low": pl.Float64, "high": pl.Float64, "n": pl.Int64,
                                      "p_value": pl.Float64, "seed": pl.Int64})


def regret_rows(pieces: Mapping[str, Mapping[str, Any]]) -> pl.DataFrame:
    """The measured double-dummy regret tables (``kind`` "regret" pieces): ``piece, players,
    policy, card_plays, share, value, low, high, n`` (value: points given up per play)."""
    rows = []
    for key, piece in pieces.items():
        if piece.get("kind") != "regret":
            continue
        for r in piece.get("double_dummy_regret", []):
            rows.append({"piece": key, "players": piece.get("players"), "policy": r["policy"],
                         "card_plays": int(r["card_plays"]),
                         "share": json_number(r["share_giving_up"]),
                         "share_low": json_number(r.get("share_low")),
                         "share_high": json_number(r.get("share_high")),
                         "value": json_number(r["mean_points_given_up"]),
                         "low": json_number(r.get("mean_low")),
                         "high": json_number(r.get("mean_high")), "n": int(r.get("units", 0))})
    return pl.DataFrame(rows, schema={"piece": pl.String, "players": pl.Int64,
                                      "policy": pl.String, "card_plays": pl.Int64,
                                      "share": pl.Float64, "share_low": pl.Float64,
                                      "share_high": pl.Float64, "value": pl.Float64,
                                      "low": pl.Float64, "high": pl.Float64, "n": pl.Int64})


def _against(row: Mapping[str, Any], where: Callable[[int | None], str]) -> str:
    """A certificate's opponent, with its player count (``where``) and rules."""
    return f"{row['against']}{where(row['players'])}" + (
        f", {row['setting']}" if row.get("setting") else "")


def learned_player_parts(pieces: Mapping[str, Mapping[str, Any]], unit: str, command: str,
                         where: Callable[[int | None], str] = lambda n: ""
                         ) -> tuple[list[Table], list[str]]:
    """The learned player's certificates and double-dummy regret table from a strength
    document's pieces (bench/net_strength.py), as tables and findings; while none is
    measured, the command that makes them."""
    certs, regrets = certificate_rows(pieces), regret_rows(pieces)
    if certs.is_empty() and regrets.is_empty():
        table, finding = not_measured("The learned player's certificates", unit, command)
        return [table], [finding]
    tables: list[Table] = []
    findings: list[str] = []
    if not certs.is_empty():
        sizes = {_against(r, where): r["n"]
                 for r in certs.iter_rows(named=True)}
        tables.append(Table(
            f"Certificates: the learned player against each opponent, duplicate (the same "
            f"cards with the seats rotated, or, where the row says 'in the same seat', the "
            f"learned player and the opponent each in that seat beside the same others; "
            f"{sample_text(sizes, unit, 'per comparison')}): "
            f"its gain per {unit[:-1]}, its seats' scores summed, 95% t intervals; the "
            f"seed of the {unit}.",
            pl.DataFrame({"against": [_against(r, where)
                                      for r in certs.iter_rows(named=True)],
                          "gain": [num(row_estimate(r), 3, signed=True)
                                   for r in certs.iter_rows(named=True)],
                          "p": ["–" if p != p else f"{p:.3g}" for p in certs["p_value"]],
                          "n": [f"{n:,}" for n in certs["n"]],
                          "seed": ["–" if s is None else str(s) for s in certs["seed"]]},
                         schema={c: pl.String for c in ("against", "gain", "p", "n", "seed")}),
            n=sizes))
        for r in certs.iter_rows(named=True):
            e = row_estimate(r)
            verdict = ("the interval covers 0" if e.low <= 0 <= e.high else
                       "it wins" if e.low > 0 else "it loses")
            findings.append(f"Against {_against(r, where)}, the learned player "
                            f"gains {num(e, 3, signed=True)} per {unit[:-1]} on {e.n:,} "
                            f"duplicate {unit}: {verdict}.")
    if not regrets.is_empty():
        sizes = {f"{r['policy']}{where(r['players'])}": r["n"]
                 for r in regrets.iter_rows(named=True)}
        tables.append(Table(
            "Double-dummy regret of card play (each policy at every seat of the same "
            f"{unit}; {sample_text(sizes, unit, 'per policy')}): the share of card plays with "
            "a choice that give up double-dummy points in the true deal, and the points "
            f"given up per play; 95% intervals clustered by {unit[:-1]}.",
            pl.DataFrame({"policy": [f"{r['policy']}{where(r['players'])}"
                                     for r in regrets.iter_rows(named=True)],
                          "card plays": [f"{n:,}" for n in regrets["card_plays"]],
                          "giving points up": [pct(Estimate(r["share"], r["share_low"],
                                                            r["share_high"], r["n"]))
                                               for r in regrets.iter_rows(named=True)],
                          "points given up per play": [num(row_estimate(r), 3)
                                                       for r in regrets.iter_rows(named=True)]},
                         schema={c: pl.String for c in ("policy", "card plays",
                                                        "giving points up",
                                                        "points given up per play")}),
            n=sizes))
        findings.append("Double-dummy points given up per card play: " + "; ".join(
            f"{r['policy']}{where(r['players'])} {r['value']:.3f}"
            for r in regrets.iter_rows(named=True)) + ".")
    tables.append(measured_commands({k: p for k, p in pieces.items()
                                     if p.get("kind") in ("certificate", "regret")}))
    return tables, findings
