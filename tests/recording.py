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
