"""Notebooks are reviewed as jupytext .py files: each must match its paired .ipynb.

(The notebooks themselves run top to bottom as tests through nbmake: see
``testpaths`` and ``--nbmake`` in pyproject.toml.)
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import pytest

NOTEBOOKS = sorted((Path(__file__).parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_matches_its_paired_script(path):
    script = path.with_suffix(".py")
    assert script.exists(), f"{path.name} has no paired jupytext script"
    cells = [(c.cell_type, c.source) for c in jupytext.read(path).cells]
    paired = [(c.cell_type, c.source) for c in jupytext.read(script).cells]
    assert cells == paired, f"run: jupytext --sync {path}"


def test_there_is_a_bianco_mano_notebook():
    assert "bianco_mano" in [p.stem for p in NOTEBOOKS]
