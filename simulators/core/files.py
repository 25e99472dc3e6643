"""Writing a whole file atomically: to a temporary file beside it, then a rename.

A reader (or a run resumed after a crash) sees the old file or the new one, never
half of one: ``os.replace`` within a directory is atomic. The temporary file is
``.<name>.<random><suffix>`` in the target's directory (so the rename never crosses a
file system), created by ``tempfile.mkstemp`` (mode 0600, like every file written here).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def temporary_beside(path: str | Path, suffix: str = ".tmp") -> Path:
    """A new empty temporary file in ``path``'s directory, to be moved onto ``path`` with
    ``os.replace`` once written (the caller removes it if it never is)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    os.close(fd)
    return Path(tmp)


@contextmanager
def atomic_path(path: str | Path, suffix: str = ".tmp") -> Iterator[Path]:
    """A temporary path to write the whole of ``path`` to (``write_parquet``,
    ``np.savez_compressed``...); moved onto ``path`` when the block ends, removed if it
    raises. ``suffix`` is the temporary file's ending, for writers that add their own
    (``np.savez_compressed`` appends ``.npz`` to a name without it)."""
    tmp = temporary_beside(path, suffix)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_atomically(path: str | Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) as the whole of ``path``, atomically."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
