"""Odds with strength: one dealer's hand, the same dealt worlds played three ways.

``tapisvert odds manille --hand ... --play heuristic,pimc,double-dummy``: on
every deal dealt to the hand (:func:`simulators.manille.dealing.situation_decks`),
the trump choice and the contre answers are the table's policies' (so each
row asks the same question), and the cards are played

* ``heuristic``: by the table's policies (the heuristic by default);
* ``pimc``: by a PIMC player at every seat (:mod:`simulators.manille.solver.pimc`);
* ``double-dummy``: perfectly, every hand visible (the bound of the cards).

Row ``i`` of each way is the same deal, so the differences are paired.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulators.core import double_dummy as dd
from simulators.core import rng
from simulators.core.dispatch import forwards
from simulators.core.pimc import CardsBy, parse_plays
from simulators.manille import rules as R
from simulators.manille.dealing import Situation, situation_decks
from simulators.manille.engine import Dispatch, decision_noise, play_batch
from simulators.manille.solver import deal_positions
from simulators.manille.solver.pimc import PimcPolicy


@forwards("bidder", "choose", "contre")
class _CardsBy(CardsBy):
    """A seat's policy for the trump choice and contre, another one's card play."""


def play_strengths(config: R.ManilleConfig, policies, situation: Situation, plays: str,
                   n_deals: int, seed: int = 0, *, worlds: int = 8,
                   first: int = 0) -> pl.DataFrame:
    """Deals ``first .. first + n_deals - 1`` dealt to the dealer's hand, played each way of
    ``plays``; one row per deal and way (``decision`` is the way), columns as
    :func:`simulators.manille.dealing.play_choices`."""
    ways = parse_plays(plays)
    entropy = rng.root_entropy(seed)
    units = np.arange(first, first + n_deals, dtype=np.int64)
    deck, cut = situation_decks(situation, config, entropy, units)
    per_seat = list(policies) if isinstance(policies, list | tuple) else [policies] * R.N_SEATS
    dealer = np.zeros(n_deals, np.int8)  # the hand is seat 0's, and seat 0 deals

    def played(seats):
        dispatch = Dispatch(seats)
        noise = decision_noise(entropy, units) if dispatch.uses_noise else None
        return play_batch(config, dispatch, deck, cut, dealer, noise, units)

    base = played(per_seat)
    frames = []
    for way in ways:
        if way == "heuristic":
            points = base.taking_card_points.astype(np.int16) + base.taking_tricks
            arrays = base
        elif way in ("pimc", "net"):
            from simulators.manille.learn import NetPolicy

            strong = (PimcPolicy(worlds=worlds, pimc_choose=False, pimc_contre=False)
                      if way == "pimc" else NetPolicy())
            arrays = played([_CardsBy(p, strong) for p in per_seat])
            points = arrays.taking_card_points.astype(np.int16) + arrays.taking_tricks
        else:
            arrays = base
            points = dd.solve(deal_positions(base, config.sans_atout_must_beat))
        frames.append(_rows(way, units, arrays, points.astype(np.int32)))
    return pl.concat(frames)


def _rows(way: str, units, a, points) -> pl.DataFrame:
    """One row per deal: what was named, the taking team's points and the MA-6 scores."""
    factor = (np.asarray(R.CONTRE_FACTOR)[a.contre_level]
              * np.where(a.trump == R.SANS_ATOUT, R.SANS_ATOUT_FACTOR, 1))
    taking = np.maximum(points - R.THRESHOLD, 0) * factor
    defence = np.maximum(R.DEAL_POINTS - points - R.THRESHOLD, 0) * factor
    return pl.DataFrame({
        "decision": [way] * len(units), "deal_id": units,
        "trump": pl.Series([R.TRUMP_CODES[t] for t in a.trump]),
        "contre_level": a.contre_level, "taking_points": points.astype(np.int16),
        "made": points > R.THRESHOLD, "draw": points == R.THRESHOLD,
        "taking_score": taking.astype(np.int32), "defence_score": defence.astype(np.int32),
        "margin": (taking - defence).astype(np.int32),
    })
