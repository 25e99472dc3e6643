"""The benchmark harness runs end to end in --quick mode (a smoke test: no timing asserts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_harness_quick_mode_runs_and_writes_its_tables(tmp_path):
    docs = tmp_path / "performance.md"
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "harness.py"), "--quick",
                             "--write-docs", str(docs)], capture_output=True, text=True,
                            timeout=900, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    for section in ("Bianco Mano, 4 players", "Five Crowns, 4 players", "Manille coincée",
                    "Truc (deals/s", "Truc solver:", "Bango, 4 players",
                    "Runner:", "Profile: Bianco Mano"):
        assert section in result.stdout
    assert result.stdout.count("TARGET ") >= 8
    text = docs.read_text()
    assert "## Targets" in text and "| what | figure | spread | note |" in text
    assert "python bench/harness.py --quick" in text


def test_harness_rejects_a_missing_docs_directory(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "harness.py"), "--quick",
                             "--write-docs", str(tmp_path / "no" / "perf.md")],
                            capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert result.returncode == 2 and "does not exist" in result.stderr
