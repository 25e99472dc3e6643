"""Where the solver keeps what it computes once: solved deals and deal trees' columns.

``$TAPISVERT_CACHE/truc_solver`` or the platform's user cache dir
(``platformdirs``); files are written atomically (temporary file, rename).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from simulators.core.files import atomic_path


def cache_dir() -> Path:
    """Where solved deals and trees are kept (created on demand)."""
    root = os.environ.get("TAPISVERT_CACHE")
    if root:
        base = Path(root)
    else:
        import platformdirs

        base = Path(platformdirs.user_cache_dir("tapisvert"))
    return base / "truc_solver"


def save_npz(path: Path, **arrays) -> None:
    """``np.savez_compressed`` to a temporary file in the same directory, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path, suffix=".npz") as tmp:  # savez would append .npz to another name
        np.savez_compressed(tmp, **arrays)
