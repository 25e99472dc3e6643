"""A stand-in for the learned players' recorder in tests: it keeps a copy of each
observation it is shown (the engine goes on writing its own arrays: the play so far grows)."""

from __future__ import annotations

import numpy as np


class KeepObservations:
    """Shown by a game's ``RecordingPolicy`` each batch of a net's decision; keeps a copy of the
    card plays' (``seen``) and the auction's as shown (``auction``)."""

    def __init__(self):
        self.seen = []
        self.auction = []  # (name, observation) of the other decisions (Manille's auction)

    def see(self, name, obs):
        if name != "card":
            self.auction.append((name, obs))
            return
        self.seen.append(obs._replace(**{k: v.copy() for k, v in obs._asdict().items()
                                         if isinstance(v, np.ndarray)}))


def assert_card_gate(learn, seen, heuristic, margin: float, trump: str) -> int:
    """A trick game's ``net`` with ``margin`` on the kept card plays: above any score gap it
    plays the heuristic's card; at ``margin`` a row leaves the heuristic's card exactly where
    the net's best legal card scores at least ``margin`` above it (``play_gated``). The
    number of card plays it left. ``trump``: the field the canonical card order turns on."""
    from simulators.core.learn import cards as C

    plain, gated = learn.NetPolicy(margin=0.0), learn.NetPolicy(margin=margin)
    never, card = learn.NetPolicy(margin=50.0), learn.LEARN.decisions["card"]
    left = 0
    for obs in seen:
        own = heuristic.play(obs)
        assert np.array_equal(never.play(obs), own)
        scores = np.where(card.legal(obs),
                          plain.decision_net("card").scores(card.features(obs)), -np.inf)
        suit = np.broadcast_to(np.asarray(getattr(obs, trump), np.int64), own.shape)
        at = C.CANONICAL[suit, own.astype(np.int64)]
        gap = scores.max(axis=1) - scores[np.arange(len(own)), at]
        best = plain.play(obs)
        assert np.array_equal(gated.play(obs), np.where(gap >= margin, best, own))
        left += int(np.sum((gap >= margin) & (best != own)))
    return left


def assert_compiled_card_features(learn, seen) -> int:
    """A trick game's ``card_features`` (its card blocks one compiled pass) writes exactly
    what its ``card_features_by_numpy`` writes, on each kept card play and on its snapshot
    (the labels' rows). The number of rows checked."""
    rows = 0
    for obs in seen:
        want = learn.card_features_by_numpy(obs)
        got = learn.card_features(obs)
        assert got.dtype == np.float32 and np.array_equal(got, want)
        snap = learn.restore(learn.card_snapshot(obs, np.arange(len(obs.hand))))
        assert np.array_equal(learn.card_features(snap), want)
        rows += len(got)
    return rows
