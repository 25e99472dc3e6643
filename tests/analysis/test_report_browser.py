"""The report in a real headless browser (Chromium), when one is installed.

CI installs Debian's chromium when it can (.ci/run); elsewhere this test is
skipped and tests/analysis/test_report.py's parser checks still hold the line.
"""

from __future__ import annotations

import io
import shutil
import subprocess

import numpy as np
import pytest
from matplotlib import image

from analysis.reporting import build_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine")
def test_report_renders_in_headless_chromium(tmp_path):
    paths = build_report("bianco-mano", tmp_path / "rep", scale=0.01)
    shot = tmp_path / "shot.png"
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,3000",
         f"--screenshot={shot}", paths["html"].resolve().as_uri()],
        capture_output=True, text=True, timeout=900)
    assert shot.exists(), result.stderr[-2000:]
    pixels = image.imread(io.BytesIO(shot.read_bytes()))
    assert pixels.shape[:2] == (3000, 1200)
    # a rendered page: text and coloured plots, not a blank or error page
    colourful = (pixels[..., :3].max(axis=2) - pixels[..., :3].min(axis=2)) > 0.3
    assert colourful.mean() > 0.01
    assert np.std(pixels[..., :3]) > 0.1
