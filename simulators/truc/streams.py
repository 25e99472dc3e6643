"""Counter-based uniforms for the Truc engine: a deal's numbers computed, not drawn in order.

A Truc deal needs 64 uniforms (30 shuffle steps, 34 decision slots), so at
10⁵ deals the engine's random numbers cost as much as its play when drawn
from sequential generators and stitched block by block (docs/truc.md,
"Cost"). Here uniform ``column`` of unit ``u`` on a stream is output number
``u * width + column + 1`` of a SplitMix64 generator (Steele, Lea & Flood,
*Fast splittable pseudorandom number generators*, OOPSLA 2014; the
generator of Java's ``SplittableRandom``): ``mix64(key + j * GAMMA)``, a
pure function of the counter ``j``, so any unit's numbers are computed
directly, in one compiled pass, whatever batch it belongs to. The ``key``
of each (stream, step) is the first word of a ``numpy.random.SeedSequence``
child of the seed, so all randomness still flows from ``SeedSequence``
(simulators/core/rng.py) and a deal's numbers depend only on (seed, stream,
step, unit, column): the same whatever the batch size, chunking or n_jobs.
Uniforms are float32 with 24 random bits, like ``Generator.random(dtype=float32)``.
"""

from __future__ import annotations

import numpy as np

from simulators.core.jit import jit_once

GAMMA = 0x9E3779B97F4A7C15


def stream_key(entropy: int, stream: int, step: int) -> np.uint64:
    """The 64-bit key of (stream, step): the first word of its SeedSequence child."""
    seq = np.random.SeedSequence(entropy, spawn_key=(stream, step))
    return seq.generate_state(1, np.uint64)[0]


def _fill_uniforms(out, key, units):
    """out[i, c] = the uniform of counter units[i] * width + c + 1 (width = out.shape[1])."""
    width = np.uint64(out.shape[1])
    gamma = np.uint64(GAMMA)
    scale = np.float32(1.0 / 16777216.0)
    m1, m2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
    s30, s27, s31, s40 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(40)
    for i in range(units.shape[0]):
        first = np.uint64(units[i]) * width + np.uint64(1)
        for c in range(out.shape[1]):
            z = key + (first + np.uint64(c)) * gamma
            z = (z ^ (z >> s30)) * m1
            z = (z ^ (z >> s27)) * m2
            z = z ^ (z >> s31)
            out[i, c] = np.float32(z >> s40) * scale


def uniforms(entropy: int, units: np.ndarray, stream: int, width: int, step: int = 0
             ) -> np.ndarray:
    """(N, width) float32 uniforms in [0, 1), row i for unit ``units[i]``."""
    jit_once(globals(), ("_fill_uniforms",))  # compiled on first use (see core.jit)
    out = np.empty((len(units), width), dtype=np.float32)
    _fill_uniforms(out, stream_key(entropy, stream, step),
                   np.ascontiguousarray(units, dtype=np.int64))
    return out
