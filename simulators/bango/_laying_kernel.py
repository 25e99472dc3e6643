"""Compiled kernel of the Bango laying solver (provisional plain-Python stand-in).

``solve_batch`` fills the output arrays of :func:`simulators.bango.laying.best_lays`.
"""

from __future__ import annotations

import numpy as np

from simulators.bango import rules as R


def _sequences_of(mask: np.ndarray, colours: np.ndarray) -> list[list[int]]:
    """Stand-in sequences (kinds) with the slots' values and colour counts."""
    seqs = []
    for s in range(R.MAX_SEQUENCES):
        if not mask[s]:
            break
        values = [v + 1 for v in range(R.N_VALUES) if (int(mask[s]) >> v) & 1]
        cols = [c for c in range(R.N_COLOURS) for _ in range(int(colours[s, c]))]
        seqs.append([R.kind(v, c) for v, c in zip(values, cols, strict=True)])
    return seqs


def solve_batch(hands, seq_mask, seq_colours, free_discard, placed, gain, discards, opened):
    """Best lay per row (max gain, then fewest opened), by enumeration."""
    from simulators.bango.laying import enumerate_lays, lay_to_placed

    for i in range(len(hands)):
        cards = [k for k in range(R.N_KINDS) for _ in range(int(hands[i, k]))]
        seqs = _sequences_of(seq_mask[i], seq_colours[i])
        best = None
        for lay, g in enumerate_lays(cards, seqs, free_discard):
            new = len({s for _, s in lay if s >= len(seqs)})
            key = (g, -new)
            if best is None or key > best[0]:
                best = (key, lay)
        (g, neg_new), lay = best
        placed[i] = lay_to_placed(lay)
        gain[i] = g
        discards[i] = len(cards) - len(lay)
        opened[i] = -neg_new
