"""Atomic whole-file writes (simulators.core.files): the old file or the new, never half."""

from __future__ import annotations

import os

import numpy as np
import pytest

from simulators.core.files import atomic_path, temporary_beside, write_atomically


def test_text_and_bytes_are_written_whole(tmp_path):
    write_atomically(tmp_path / "a.json", '{"é": 1}\n')
    write_atomically(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "a.json").read_bytes() == '{"é": 1}\n'.encode()
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    write_atomically(tmp_path / "a.json", "again")  # replaces
    assert (tmp_path / "a.json").read_text() == "again"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.bin"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "table.parquet"
    path.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(path) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["table.parquet"]


def test_the_temporary_is_beside_the_target_with_the_suffix_a_writer_needs(tmp_path):
    tmp = temporary_beside(tmp_path / "deal.npz", suffix=".npz")
    assert tmp.parent == tmp_path and tmp.name.startswith(".deal.npz.")
    assert tmp.name.endswith(".npz") and tmp.exists()
    os.unlink(tmp)
    with atomic_path(tmp_path / "deal.npz", suffix=".npz") as tmp:
        np.savez_compressed(tmp, a=np.arange(3))  # savez keeps a name ending in .npz
    assert np.load(tmp_path / "deal.npz")["a"].tolist() == [0, 1, 2]
    assert [p.name for p in tmp_path.iterdir()] == ["deal.npz"]
