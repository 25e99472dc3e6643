"""The summary of a double-dummy regret of card play (BEN's DCWER), whatever the game.

Each game's ``solver/regret.py`` gives every card played its regret in the true deal (the
best legal card's double-dummy value less the played card's, for the mover's side; NaN
where nothing is counted: a forced card, a deal not played); :func:`summary` reads such
an array.
"""

from __future__ import annotations

import numpy as np


def summary(regrets: np.ndarray) -> dict[str, float]:
    """Share of card plays (with a choice) that give up double-dummy points, and the mean
    points given up per such play."""
    r = regrets[~np.isnan(regrets)]
    return {"card_plays": int(r.size), "share_giving_up": float(np.mean(r > 0)),
            "mean_points_given_up": float(r.mean())}
