"""Shared report machinery: display tables, HTML and Markdown rendering, atomic writing.

A report is a :class:`Header` and a list of :class:`Section` (tables, one
figure, findings). :func:`render_html` makes one self-contained page (inline
CSS, figures as base64 PNG, no external reference); :func:`render_markdown`
its twin with figures as files; :func:`write_report` stages everything and
moves each file into place, leaving nothing behind on failure.
"""

from __future__ import annotations

import base64
import html
import io
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter


@dataclass(frozen=True)
class Table:
    """A display table (strings) with its caption."""

    caption: str
    frame: pl.DataFrame


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


def new_figure(width: float, height: float, ncols: int = 1):
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    for ax in axes:
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    return fig, axes


def png(fig: Figure, dpi: int = 110) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def percent_axis(ax) -> None:
    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))



CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       max-width: 70rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.7rem; margin-bottom: .3rem; }
h2 { font-size: 1.25rem; margin-top: 0; padding-top: 1rem; }
section { border-top: 1px solid #ccc; margin-top: 2rem; }
table { border-collapse: collapse; font-size: .82rem; margin: .8rem 0; }
.scroll { overflow-x: auto; }
caption { caption-side: top; text-align: left; font-size: .85rem; color: #444;
          padding-bottom: .3rem; }
th, td { border: 1px solid #d4d4d4; padding: .2rem .5rem; text-align: right;
         white-space: nowrap; }
th { background: #f2f2f2; }
td:first-child, th:first-child { text-align: left; }
figure { margin: 1rem 0; }
figure img { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #444; }
p.method { color: #444; font-size: .92rem; }
p.finding { background: #f6f8fa; border-left: 3px solid #4C72B0; padding: .4rem .7rem; }
.meta td { white-space: normal; text-align: left; }
"""


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def html_table(frame: pl.DataFrame, caption: str = "", css_class: str = "") -> str:
    """A pl.DataFrame as an HTML table (cells escaped, shown as strings)."""
    cls = f' class="{_esc(css_class)}"' if css_class else ""
    head = "".join(f"<th>{_esc(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{_esc(v)}</td>" for v in row) + "</tr>\n"
                   for row in frame.iter_rows())
    cap = f"<caption>{_esc(caption)}</caption>" if caption else ""
    return (f'<div class="scroll"><table{cls}>{cap}<thead><tr>{head}</tr></thead>\n'
            f"<tbody>\n{body}</tbody></table></div>")


def markdown_table(frame: pl.DataFrame) -> str:
    """A pl.DataFrame as a pipe table (pipes in cells escaped)."""
    def cell(v: object) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |",
             "|" + "|".join(":---" if i == 0 else "---:" for i in range(frame.width)) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.iter_rows()]
    return "\n".join(lines)


def render_html(header: Header, sections: Sequence[Section]) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f"<title>{_esc(header.title)}</title>", f"<style>{CSS}</style>", "</head>",
             "<body>", f"<h1>{_esc(header.title)}</h1>"]
    parts += [f"<p>{_esc(p)}</p>" for p in header.intro]
    parts.append(html_table(header.meta, "Run settings", "meta"))
    parts.append("<nav><ul>" + "".join(f'<li><a href="#{s.key}">{_esc(s.title)}</a></li>'
                                       for s in sections) + "</ul></nav>")
    for s in sections:
        parts.append(f'<section id="{s.key}">')
        parts.append(f"<h2>{_esc(s.title)}</h2>")
        parts.append(f'<p class="method">{_esc(s.method)}</p>')
        parts += [html_table(t.frame, t.caption) for t in s.tables]
        data = base64.b64encode(s.plot.png).decode("ascii")
        parts.append(f'<figure><img src="data:image/png;base64,{data}" '
                     f'alt="{_esc(s.plot.caption)}"><figcaption>{_esc(s.plot.caption)}'
                     "</figcaption></figure>")
        parts += [f'<p class="finding">{_esc(f)}</p>' for f in s.findings]
        parts.append("</section>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def render_markdown(header: Header, sections: Sequence[Section], figure_dir: str) -> str:
    parts = [f"# {header.title}", ""]
    for p in header.intro:
        parts += [p, ""]
    parts += [markdown_table(header.meta), ""]
    for s in sections:
        parts += [f"## {s.title}", "", f"*{s.method}*", ""]
        for t in s.tables:
            parts += [f"{t.caption}", "", markdown_table(t.frame), ""]
        alt = s.plot.caption.replace("[", "(").replace("]", ")")
        parts += [f"![{alt}]({figure_dir}/{s.plot.name})", "", f"*{s.plot.caption}*", ""]
        for f in s.findings:
            parts += [f"> {f}", ""]
    return "\n".join(parts)


def check_out_dir(out_dir: Path) -> None:
    """Fail before simulating when ``out_dir`` could not be a writable directory."""
    probe = out_dir
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise NotADirectoryError(f"report output path is not a directory: {str(probe)!r}")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise PermissionError(f"report output directory is not writable: {str(probe)!r}")


def _make_dirs(path: Path) -> Path | None:
    """Create ``path`` and missing parents; the top-most directory created (or None)."""
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    path.mkdir(parents=True, exist_ok=True)
    return missing[-1] if missing else None


def write_report(out_dir: Path, name: str, html_text: str, md_text: str,
                 plots: Sequence[Plot]) -> dict[str, Path]:
    """Write ``name.html``, ``name.md`` and ``name_figures/``.

    Everything is staged in a temporary directory inside ``out_dir``, then
    each file moves into place with ``os.replace``. On failure, remove
    the staging area and every directory this call created, and re-raise."""
    out_dir = Path(out_dir)
    created_top = _make_dirs(out_dir)
    html_name, md_name, fig_dir = f"{name}.html", f"{name}.md", out_dir / f"{name}_figures"
    fig_dir_created = False
    staging = None
    try:
        staging = Path(tempfile.mkdtemp(dir=out_dir, prefix=f".{name}.", suffix=".tmp"))
        for plot in plots:
            (staging / plot.name).write_bytes(plot.png)
        (staging / md_name).write_text(md_text, encoding="utf-8")
        (staging / html_name).write_text(html_text, encoding="utf-8")
        if not fig_dir.is_dir():
            fig_dir.mkdir()  # FileExistsError if a file is in the way
            fig_dir_created = True
        for plot in plots:
            os.replace(staging / plot.name, fig_dir / plot.name)
        os.replace(staging / md_name, out_dir / md_name)
        os.replace(staging / html_name, out_dir / html_name)
    except BaseException:
        if fig_dir_created:
            shutil.rmtree(fig_dir, ignore_errors=True)
        if created_top is not None:
            shutil.rmtree(created_top, ignore_errors=True)
        raise
    finally:
        if staging is not None and staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return {"html": out_dir / html_name, "markdown": out_dir / md_name}


