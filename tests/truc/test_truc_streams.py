"""The engine's counter-based uniforms (simulators/truc/streams.py)."""

from __future__ import annotations

import numpy as np

from simulators.truc import streams

MASK = (1 << 64) - 1


def splitmix_uniform(key: int, counter: int) -> float:
    """SplitMix64's output number ``counter`` from state ``key``, as a 24-bit float, by hand."""
    z = (key + counter * streams.GAMMA) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return (z >> 40) / 2.0**24


def test_values_are_splitmix64_outputs_of_the_seed_sequence_key():
    units = np.array([0, 1, 7, 123_456_789], dtype=np.int64)
    got = streams.uniforms(5, units, stream=3, width=4, step=2)
    key = int(np.random.SeedSequence(5, spawn_key=(3, 2)).generate_state(1, np.uint64)[0])
    want = [[splitmix_uniform(key, int(u) * 4 + c + 1) for c in range(4)] for u in units]
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.array(want, dtype=np.float32))


def test_a_unit_gets_the_same_numbers_in_any_batch_and_other_streams_differ():
    whole = streams.uniforms(9, np.arange(3000, dtype=np.int64), 0, 30)
    part = streams.uniforms(9, np.array([2999, 5, 1024], dtype=np.int64), 0, 30)
    np.testing.assert_array_equal(part, whole[[2999, 5, 1024]])
    assert not np.array_equal(streams.uniforms(9, np.arange(10), 1, 30), whole[:10])
    assert not np.array_equal(streams.uniforms(9, np.arange(10), 0, 30, step=1), whole[:10])


def test_uniform_moments_and_bins():
    u = streams.uniforms(1, np.arange(20_000, dtype=np.int64), 0, 32).ravel().astype(np.float64)
    n = u.size  # 640,000 values: mean within 5 standard errors of 1/2, bins of 1/32 by chi-square
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
    counts = np.bincount((u * 32).astype(int), minlength=32)
    chi2 = ((counts - n / 32) ** 2 / (n / 32)).sum()
    assert chi2 < 70  # 31 degrees of freedom: P(chi2 > 70) < 1e-4
    assert 0.0 <= u.min() and u.max() < 1.0
