"""Seeding: every random number is a pure function of (seed, unit id, stream).

A *unit* is what the caller counts (a deal, a game, a round). Units are grouped
in fixed blocks of ``BLOCK`` consecutive ids; the draws of block ``b`` on stream
``s`` come from the ``SeedSequence`` child with ``spawn_key=(s, b, *step)``,
i.e. ``SeedSequence(seed).spawn(s + 1)[s].spawn(b + 1)[b]...``. Because a block
is always drawn whole and then sliced, a unit's numbers do not depend on the
batch it was simulated in, on chunking, or on the number of workers.
Streams are separate so that, for instance, the deals do not depend on
whether the policies consume noise (common random numbers across policies).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

DEFAULT_SEED = 2026
"""The root seed when none is given: of an experiment, a report, the study and check
commands (so deal ``i`` of one is deal ``i`` of another)."""
BLOCK = 1024
MAX_UNITS = 2**63 - 1
"""The most units a run can number: unit ids are int64 (:func:`draw_per_unit`), so units
0 .. MAX_UNITS - 1 are the whole id space. A size, budget or count beyond it cannot run."""


def root_entropy(seed: int | np.random.SeedSequence) -> int:
    """The entropy integer of a seed given as an int or a SeedSequence."""
    if isinstance(seed, np.random.SeedSequence):
        if seed.spawn_key:
            raise ValueError("seed: pass a root SeedSequence (no spawn_key) or an int")
        return int(seed.entropy)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def block_generator(entropy: int, *key: int) -> np.random.Generator:
    """Generator of the SeedSequence child at ``spawn_key=key``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=key)))


def draw_per_unit(
    entropy: int,
    units: np.ndarray,
    stream: int,
    draw_block: Callable[[np.random.Generator, int], np.ndarray],
    *step: int,
) -> np.ndarray:
    """Rows of per-block draws for the given unit ids.

    ``draw_block(gen, BLOCK)`` must return an array whose leading axis has
    ``BLOCK`` rows: row ``i`` belongs to unit ``block * BLOCK + i``.
    """
    units = np.asarray(units, dtype=np.int64)
    if units.size == 0:
        return draw_block(block_generator(entropy, stream, 0, *step), BLOCK)[:0]
    blocks = np.unique(units // BLOCK)
    parts = [draw_block(block_generator(entropy, stream, int(b), *step), BLOCK) for b in blocks]
    stacked = np.concatenate(parts, axis=0) if len(parts) > 1 else parts[0]
    start = int(units[0] - blocks[0] * BLOCK)
    if units[-1] - units[0] == len(units) - 1 and (np.diff(units) == 1).all():
        return stacked[start:start + len(units)]  # a contiguous range: a view, no copy
    where = np.searchsorted(blocks, units // BLOCK) * BLOCK + units % BLOCK
    return stacked[where]


def uniforms(gen: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """(rows, cols) float32 uniforms in [0, 1) (24 bits: ample to pick among <= 32 options)."""
    return gen.random((rows, cols), dtype=np.float32)


def permutations(gen: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """(rows, n) int8 independent uniform permutations of range(n).

    Fisher-Yates (Durstenfeld) run on all rows at once, one column swap per
    step, on a column-major copy so each swap touches contiguous memory. It
    is twice as fast as ``Generator.permuted(axis=1)`` for short rows (32
    cards); ``tests/test_core.py`` checks the result is exactly uniform.
    """
    deck = np.tile(np.arange(n, dtype=np.int8)[:, None], (1, rows))  # column j = row j's deck
    flat = deck.ravel()
    columns = np.arange(rows)
    uniforms = gen.random((n - 1, rows))
    for i in range(n - 1, 0, -1):
        j = (uniforms[i - 1] * (i + 1)).astype(np.intp)  # uniform in 0..i
        where = j * rows + columns
        swapped = flat[where]
        flat[where] = deck[i]
        deck[i] = swapped
    return deck.T
