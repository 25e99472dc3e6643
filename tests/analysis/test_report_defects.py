"""What an outside reader found wrong in the reports, checked on every report at a small
scale: no cell or sentence reading None or nan, no raw pivot header ('{"full","total"}'),
every caption's n= the sample size its table carries (``Table.n``); small rates keep their
digits; Bianco Mano's seat sentence is read from the intervals; Five Crowns' odds drop the
rows that cannot be other than 0 and end with a verdict."""

from __future__ import annotations

import io
import re
import shutil
import subprocess

import numpy as np
import polars as pl
import pytest
from matplotlib import image

from analysis import reporting
from analysis.experiment import Experiment
from analysis.odds import odds, verdict
from analysis.reporting import Table, caption_sizes, pct, sample_text
from analysis.reports import bianco_mano as B
from analysis.stats import Estimate
from simulators.core.game import games
from simulators.five_crowns.odds import EXACT_LABEL, OddsQuestion
from tests.cli_run import run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
README_REPORT_ALL = ["tapisvert", "report", "all", "--n-jobs", "2"]  # as the README has it
SCALE = 0.002  # every sample at or near its minimum: every section is still there
# a missing number; 'cut_weights=None' in the run settings is the rule config's own value
MISSING = re.compile(r"(?<![=\w])(None|nan|NaN)\b")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The README's ``tapisvert report all --n-jobs 2`` once (at ``--scale`` SCALE, through the
    command line: the README test counts on it), keeping each game's sections (what
    ``_build`` returns)."""
    out = tmp_path_factory.mktemp("reports")
    kept = []
    build = reporting._build

    def keep(*args, **kwargs):
        kept.append(build(*args, **kwargs))
        return kept[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reporting, "_build", keep)
        done = run_cli([*README_REPORT_ALL, "--scale", str(SCALE), "--seed", "3", "--quiet",
                        "--out-dir", str(out)], out, env={"TAPISVERT_SCALE": None})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "reports written" in done.stdout and (out / "index.html").is_file()
    return out, kept


def _tables(built):
    return [(b.game.name, s.key, t) for b in built[1] for s in b.sections for t in s.tables]


def test_every_report_is_built(built):
    expected = {g.name for g in games().values() if reporting.report_module(g) is not None}
    assert {b.game.name for b in built[1]} == expected
    assert all(len(b.sections) == len(b.report.sections) for b in built[1])


def test_report_all_writes_an_index_of_each_reports_headlines(built):
    out, kept = built
    index = (out / "index.html").read_text(encoding="utf-8")
    for b in kept:
        page = b.paths["html"].name
        assert f'href="{page}"' in index and (out / page).is_file()
        assert f"{b.report.title}" in index
    assert index.count('class="finding"') == 2 * len(kept)  # two headline findings per game
    assert "n=" in index and "http" not in index
    markdown = (out / "index.md").read_text(encoding="utf-8")
    assert re.search(r"\]\(bianco_mano\.md\)", markdown)
    assert markdown.count("\n> ") == 2 * len(kept)
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_no_cell_or_sentence_reads_none_or_nan(built):
    for b in built[1]:
        for s in b.sections:
            texts = [s.title, s.method, s.plot.caption, *s.findings]
            for t in s.tables:
                assert t.frame.null_count().sum_horizontal().item() == 0, (b.game.name, s.key)
                texts += [t.caption, *t.frame.columns,
                          *(str(v) for row in t.frame.iter_rows() for v in row)]
            bad = [x for x in texts if MISSING.search(x)]
            assert not bad, (b.game.name, s.key, bad[:3])
    for page in built[0].glob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert not MISSING.search(text), (page.name, MISSING.search(text).group())
        assert '{"' not in text, page.name


def test_no_raw_pivot_header(built):
    for game, key, table in _tables(built):
        raw = [c for c in table.frame.columns if "{" in c or '"' in c]
        assert not raw, (game, key, raw)


def test_every_caption_states_the_n_its_table_carries(built):
    for game, key, table in _tables(built):
        stated = caption_sizes(table.caption)
        assert bool(stated) == (table.n is not None), (game, key, table.caption)
        assert stated == table.sizes(), (game, key, table.caption, table.n)


def test_a_caption_gives_one_n_per_group_when_they_differ():
    sizes = {"3 players": 300, "4 players": 1600, "5 players": 1600}
    text = sample_text(sizes, "deals", "per player count")
    assert text == "3 players n=300, 4 players n=1,600, 5 players n=1,600 deals"
    assert caption_sizes(text) == Table(text, pl.DataFrame(), n=sizes).sizes() == {300, 1600}
    assert sample_text({"a": 75, "b": 75}, "games", "per cell") == "n=75 games per cell"
    assert caption_sizes("(n = turns reaching it)") == set()


def test_a_small_rate_keeps_its_digits():
    # Truc's null deals: 1 in 20,000 read 0.0% [0.0, 0.0] beside a text saying 0.005%
    assert pct(Estimate(0.00005, 0.000009, 0.000283, 20_000)) == "0.0050% [0.0009, 0.0283]"
    assert pct(Estimate(0.0, 0.0, 0.00019, 20_000)) == "0.000% [0.000, 0.019]"
    assert pct(Estimate(0.708, 0.705, 0.711, 1000)) == "70.8% [70.5, 71.1]"


def _seat_summary(diffs: dict[int, tuple[float, float, float]]) -> pl.DataFrame:
    """Section d's summary for 4 players: each position's paired difference to the others."""
    rows = [{"players": 4, "group": g, "index": i, "metric": m, "value": v, "low": lo,
             "high": hi, "n": 100}
            for i, (v, lo, hi) in diffs.items()
            for g, m in (("position - others", "score"), ("from first dealer", "score"),
                         ("seat", "score"), ("from first dealer", "win share"))]
    rows += [{**rows[0], "group": "first dealer - others"},
             {**rows[3], "group": "first dealer - others"},
             {**rows[0], "group": "all seats", "index": -1, "value": 0.67}]
    return pl.DataFrame(rows)


def test_the_seat_sentence_names_the_intervals_that_exclude_0():
    apart = B.findings_games(_seat_summary({0: (-0.08, -0.13, -0.03), 1: (0.0, -0.1, 0.1),
                                            2: (0.05, -0.05, 0.15), 3: (0.03, -0.07, 0.13)}))
    assert "every position's interval covers 0" not in apart[0]
    assert "excludes 0 for 0 (first dealer) -0.08 [-0.13, -0.03] (1 of 4" in apart[0]
    covered = B.findings_games(_seat_summary({i: (0.0, -0.1, 0.1) for i in range(4)}))
    assert "every position's interval covers 0" in covered[0]
    assert "BM-10 is not zero-sum" in covered[1] and "4 players +0.67" in covered[1]


def test_five_crowns_odds_drop_rows_that_cannot_be_other_than_0_and_give_a_verdict():
    experiment = Experiment.create("five-crowns", size=200, seed=8)
    stuck = OddsQuestion(round=5, hand="JH JD 8C 9C KS 4H 3C", discard="10C")  # cannot go out
    table = odds(experiment, stuck)
    assert not table["metric"].str.contains("out this turn").any()
    said = verdict(experiment, stuck, table)
    assert said.startswith("Verdict: take, throw KS (") and "against drawing" in said
    table = odds(experiment, OddsQuestion(round=1, hand="4H 5H 7S", discard="9C"))
    assert EXACT_LABEL in table["metric"].to_list()  # a draw can go out: the chance is shown


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine")
def test_a_report_renders_in_headless_chromium(built, tmp_path):
    """The Bianco Mano report in a real headless browser, when one is installed (.ci/run
    installs Debian's chromium when it can; elsewhere the parser checks of test_report.py
    hold the line): text and coloured plots, not a blank or error page."""
    shot = tmp_path / "shot.png"
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,3000",
         f"--screenshot={shot}", (built[0] / "bianco_mano.html").resolve().as_uri()],
        capture_output=True, text=True, timeout=900)
    assert shot.exists(), result.stderr[-2000:]
    pixels = image.imread(io.BytesIO(shot.read_bytes()))
    assert pixels.shape[:2] == (3000, 1200)
    colourful = (pixels[..., :3].max(axis=2) - pixels[..., :3].min(axis=2)) > 0.3
    assert colourful.mean() > 0.01
    assert np.std(pixels[..., :3]) > 0.1
