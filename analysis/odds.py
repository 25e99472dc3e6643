"""What are my odds of making this contract with this hand?

For a concrete bid-time situation (see
:class:`simulators.bianco_mano.dealing.Situation`) the unknown cards are
dealt uniformly, the players before the bidder must have passed (rejection),
and the policies play the rest. Both decisions are estimated on their own
deals: *take* (P(made), P(capo), the side's card points, the bidder's score
change) and *pass* (the bidder's score change, how often someone else
takes, how often everyone passes).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis import stats
from simulators.bianco_mano import rules as R
from simulators.bianco_mano.dealing import PASS, TAKE, Situation, play_situation


def bianco_mano_odds(config: R.BiancoManoConfig, policies, situation: Situation, *,
                     n_deals: int = 20_000, seed: int = 0, family: int | None = None,
                     confidence: float = 0.95) -> pl.DataFrame:
    """Tidy table ``decision, metric, value, low, high, n`` for taking and passing."""
    seat = situation.seat
    rows = []

    def add(decision, metric, estimate):
        rows.append({"decision": decision, "metric": metric, "value": estimate.value,
                     "low": estimate.low, "high": estimate.high, "n": estimate.n})

    take, reached, dealt = play_situation(config, policies, situation, TAKE, n_deals, seed,
                                          family=family)
    made = (take.outcome == R.MADE) | (take.outcome == R.CAPO)
    add(TAKE, "P(made)", stats.proportion(int(made.sum()), len(made), confidence))
    add(TAKE, "P(capo)", stats.proportion(int((take.outcome == R.CAPO).sum()), len(made),
                                          confidence))
    add(TAKE, "side card points", stats.mean(take.side_points, confidence))
    add(TAKE, "score change", stats.mean(take.deltas[:, seat], confidence))
    add(TAKE, "P(bidder's turn comes)", stats.proportion(reached, dealt, confidence))
    give_up, _, _ = play_situation(config, policies, situation, PASS, n_deals, seed)
    other = give_up.taker >= 0
    add(PASS, "score change", stats.mean(give_up.deltas[:, seat], confidence))
    add(PASS, "P(another player takes)", stats.proportion(int(other.sum()), len(other),
                                                          confidence))
    add(PASS, "P(all pass)", stats.proportion(int((~other).sum()), len(other), confidence))
    partner_side = other & (np.asarray(give_up.partner) == seat)
    add(PASS, "P(partner of another taker)", stats.proportion(int(partner_side.sum()), len(other),
                                                          confidence))
    return pl.DataFrame(rows)
