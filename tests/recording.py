"""A stand-in for the learned players' recorder in tests: it keeps a copy of each
observation it is shown (the engine goes on writing its own arrays: the play so far grows)."""

from __future__ import annotations

import numpy as np


class KeepObservations:
    """Shown by a game's ``RecordingPolicy`` each card-play batch; keeps a copy of it."""

    def __init__(self):
        self.seen = []

    def see(self, name, obs):
        assert name == "card"
        self.seen.append(obs._replace(**{k: v.copy() for k, v in obs._asdict().items()
                                         if isinstance(v, np.ndarray)}))
