"""The import contract (.importlinter) holds, and breaks on a deliberate violation."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = shutil.which("lint-imports")


def _lint(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    # no --config (deprecated): run in root, lint-imports reads its .importlinter
    return subprocess.run([LINT, "--no-cache"], capture_output=True, text=True, cwd=root,
                          env=env, timeout=900)


@pytest.fixture
def tree(tmp_path):
    """A copy of the two packages and the contract, to break on purpose."""
    for package in ("simulators", "analysis"):
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(ROOT / ".importlinter", tmp_path)
    return tmp_path


pytestmark = pytest.mark.skipif(LINT is None, reason="import-linter is not installed")


def test_the_repository_keeps_every_contract():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "0 broken" in result.stdout


@pytest.mark.parametrize("module, line, contract", [
    ("simulators/core/leak.py", "import simulators.bianco_mano.rules",
     "Game rooms and the core are independent"),
    ("simulators/five_crowns/leak.py", "from simulators.bianco_mano import rules",
     "Game rooms and the core are independent"),
    ("simulators/core/upward.py", "import analysis.stats", "never import the analysis layer"),
    ("analysis/leak.py", "from simulators.five_crowns import rules",
     "analysis uses only simulators.core"),
], ids=["core-imports-a-game", "game-imports-a-game", "core-imports-analysis",
        "analysis-names-a-game"])
def test_a_deliberate_violation_breaks_the_contract(tree, module, line, contract):
    (tree / module).write_text(f'"""A deliberate violation."""\n\n{line}\n')
    result = _lint(tree)
    assert result.returncode != 0
    broken = [x for x in result.stdout.splitlines() if " BROKEN" in x]
    assert any(contract in x for x in broken), result.stdout[-3000:]



def _imported(path: Path) -> set[str]:
    """Every module an ``import`` or ``from … import`` of ``path`` names (any depth)."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize("report", sorted((ROOT / "analysis" / "reports").glob("[!_]*.py")),
                         ids=lambda p: p.stem)
def test_a_report_imports_its_own_game_only(report):
    """DESIGN.md: analysis.reports.<game> may import its own game, and no other."""
    rooms = {p.name for p in (ROOT / "simulators").iterdir()
             if (p / "__init__.py").exists() and p.name != "core"}
    assert report.stem in rooms
    games = {m.split(".")[1] for m in _imported(report)
             if m.startswith("simulators.") and m.split(".")[1] != "core"}
    assert games <= {report.stem}, f"{report.name} imports {sorted(games - {report.stem})}"
