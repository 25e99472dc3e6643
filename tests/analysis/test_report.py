"""The Bianco Mano report: a self-contained HTML file, its Markdown twin, atomic writes,
resume after SIGKILL, and one of its numbers recomputed from the engine directly."""

from __future__ import annotations

import base64
import glob
import io
import os
import re
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.image as mpimg
import polars as pl
import pytest
from gated import gate

from analysis import reporting
from analysis.reporting import build_report
from simulators.bianco_mano import BiancoManoConfig, HeuristicPolicy, simulate_deals
from tests.cli_run import run_cli

FIGURE_DIR = "bianco_mano_figures"
HERE = Path(__file__).parent


def build_bianco_mano_report(out_dir, **settings):
    return build_report("bianco-mano", out_dir, **settings)

SCALE = 0.005
SEED = 7
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RESCUED = re.compile(r"the bonus turned ([\d,]+) failures into successes")


class ReportParser(HTMLParser):
    """Collects every <img src> and the text of each <section>."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[str | None] = []
        self.sections: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs).get("src"))
        if tag == "section":
            if self._depth == 0:
                self.sections.append("")
            self._depth += 1

    def handle_endtag(self, tag):
        if tag == "section":
            self._depth -= 1

    def handle_data(self, data):
        if self._depth:
            self.sections[-1] += data


def _listing(path: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(path)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(path.rglob("*"))}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    messages: list[str] = []
    paths = build_bianco_mano_report(out, scale=SCALE, seed=SEED, progress=messages.append)
    text = paths["html"].read_text(encoding="utf-8")
    parser = ReportParser()
    parser.feed(text)
    parser.close()
    return {"out": out, "paths": paths, "messages": messages, "html": text, "parser": parser,
            "markdown": paths["markdown"].read_text(encoding="utf-8")}


def test_both_files_written_and_progress_reported(report):
    out, paths = report["out"], report["paths"]
    assert paths == {"html": out / "bianco_mano.html", "markdown": out / "bianco_mano.md"}
    assert paths["html"].is_file() and paths["markdown"].is_file()
    assert len(report["messages"]) >= 6
    assert not [p for p in out.rglob("*") if p.name.startswith(".")], "temporary files left"


def test_html_figures_are_embedded_valid_pngs(report):
    images = report["parser"].images
    assert len(images) >= 5
    for src in images:
        assert src is not None and src.startswith("data:image/png;base64,")
        data = base64.b64decode(src.removeprefix("data:image/png;base64,"), validate=True)
        assert data[:8] == PNG_SIGNATURE
        pixels = mpimg.imread(io.BytesIO(data))
        assert pixels.shape[0] > 0 and pixels.shape[1] > 0


def test_html_has_no_external_reference(report):
    text = report["html"].lower()
    for needle in ("http://", "https://", 'src="//', 'href="//', "src='//", "href='//",
                   "<script", "@import", "url("):
        assert needle not in text, needle


def test_every_section_states_its_sample_size(report):
    sections = report["parser"].sections
    assert len(sections) == 8  # a-f, g: the strength figures (shipped), h: the learned player
    for text in sections:
        assert "n=" in text, text[:80]


def test_markdown_images_exist(report):
    links = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", report["markdown"])
    assert len(links) >= 5
    for link in links:
        assert link.startswith(FIGURE_DIR + "/") and "://" not in link
        target = report["out"] / link
        assert target.is_file(), link
        assert target.read_bytes()[:8] == PNG_SIGNATURE


def test_bonus_rescues_match_a_direct_recount(report):
    """Section e's count of failures turned into successes, recomputed from two tables."""
    found = {RESCUED.search(report["html"]), RESCUED.search(report["markdown"])}
    assert None not in found
    counts = {int(m.group(1).replace(",", "")) for m in found}
    assert len(counts) == 1
    n = max(200, round(1_000_000 * SCALE))
    off = simulate_deals(BiancoManoConfig(n_players=4), HeuristicPolicy(), n, SEED).table
    on = simulate_deals(BiancoManoConfig(n_players=4, bianco_mano=True),
                        HeuristicPolicy(bonus_discount=0.0), n, SEED).table
    rescued = ((off["outcome"] == "failed")
               & on["outcome"].cast(pl.String).is_in(["made", "capo"])).sum()
    assert rescued > 0
    assert counts == {rescued}


def test_out_dir_that_is_a_file_raises_and_writes_nothing(tmp_path):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("keep me")
    before = _listing(tmp_path)
    with pytest.raises(ValueError, match="report output path is a file"):
        build_bianco_mano_report(blocker, scale=SCALE, seed=SEED)
    with pytest.raises(ValueError, match="is a file"):
        build_bianco_mano_report(blocker / "sub", scale=SCALE, seed=SEED)
    assert _listing(tmp_path) == before


def test_blocked_figures_directory_is_refused_before_any_work(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / FIGURE_DIR).write_text("in the way")
    before = _listing(tmp_path)
    with pytest.raises(ValueError, match="in the way of the figures directory: .*_figures"):
        build_bianco_mano_report(out, scale=0.002, seed=SEED)
    assert _listing(tmp_path) == before


def test_failure_while_writing_leaves_no_report_file(tmp_path, monkeypatch):
    """The last rename fails after all the work: no report file and no temporary file
    appear; only the hidden run directories stay, for the next attempt to resume."""
    out = tmp_path / "out"
    real_replace = os.replace

    def failing(src, dst):
        if str(dst).endswith(".html"):
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(reporting.os, "replace", failing)
    with pytest.raises(OSError, match="disk full"):
        build_bianco_mano_report(out, scale=0.002, seed=SEED)
    left = {p.name for p in out.iterdir()} if out.exists() else set()
    assert left <= {".bianco_mano_runs"}


def _report_args(out: Path, n_jobs: int, *extra: str) -> list[str]:
    return ["report", "bianco-mano", "--scale", str(SCALE), "--seed", str(SEED), "--out-dir",
            str(out), "--n-jobs", str(n_jobs), "--quiet", *extra]


def _numbers(markdown: str) -> str:
    return "\n".join(line for line in markdown.splitlines() if "simulation time" not in line)


@pytest.mark.slow  # the executor's resume after SIGKILL: test_runner's and test_studies' twins
def test_report_killed_with_sigkill_resumes_to_the_same_numbers(tmp_path, report):
    """`tapisvert report bianco-mano --n-jobs 2` killed mid-run, then run again (on one job).

    The report's policy is ``gated.GatedHeuristic`` (the heuristic, held once
    4 chunks are written while ``TAPISVERT_TEST_GATE`` is set), so the kill
    lands mid-run whatever the machine's speed; the resumed run, ungated,
    must print the numbers of the uninterrupted one-process report.
    """
    out = tmp_path / "killed"
    runs = out / ".bianco_mano_runs"
    config = tmp_path / "gated.toml"
    config.write_text('[[policies]]\nname = "gated:GatedHeuristic"\n', encoding="utf-8")
    parts = str(runs / "*" / "deals" / "part-*.parquet")
    proc = subprocess.Popen([sys.executable, "-m", "analysis.cli",
                             *_report_args(out, 2, "--config", str(config))], cwd=HERE,
                            env=gate(parts, 4), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        while len(glob.glob(parts)) < 4:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not (out / "bianco_mano.md").exists(), "the run is held before it can finish"
    kept = glob.glob(parts)
    # resumed in this process on one core: the numbers do not depend on n_jobs, and a second
    # interpreter with two workers costs seconds
    done = run_cli(_report_args(out, 1, "--config", str(config)), HERE)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(kept) >= 4, "the resumed report reused finished chunks"
    assert not runs.exists(), "runs are removed once the report is written"
    resumed = (out / "bianco_mano.md").read_text(encoding="utf-8")
    resumed = resumed.replace("gated:GatedHeuristic", "heuristic")  # the same play, renamed
    assert _numbers(resumed) == _numbers(report["markdown"])  # uninterrupted, one process


def test_bad_scale_is_rejected_before_any_work(tmp_path):
    for scale in (0, -1.0, float("nan"), True):
        with pytest.raises(ValueError, match="scale"):
            build_bianco_mano_report(tmp_path / "out", scale=scale)
    assert not (tmp_path / "out").exists()
