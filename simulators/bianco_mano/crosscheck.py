"""Engine-versus-referee conformance check for Bianco Mano.

Every deal the engine plays can be replayed by the independent referee from
its record (deck order and decisions); the two must agree on every move and
score. Tests run this on tens of thousands of deals; for a large run::

    python -m simulators.core.conformance bianco-mano --unit deals --units 200000 --n-jobs 2
"""

from __future__ import annotations

import numpy as np

from simulators.bianco_mano import referee
from simulators.bianco_mano.engine import DealArrays, DealBatch, GameBatch


def engine_view(a: DealArrays, i: int) -> dict:
    """The engine's results of row i, in the referee's terms."""
    return {
        "dealer": int(a.dealer[i]), "taker": int(a.taker[i]), "bid_round": int(a.bid_round[i]),
        "dominant": int(a.dominant[i]), "turned_card": int(a.turned_card[i]),
        "partner": int(a.partner[i]),
        "trick_winners": tuple(int(w) for w in a.trick_winners[i] if w >= 0),
        "side_points": int(a.side_points[i]), "outcome": int(a.outcome[i]),
        "deltas": tuple(int(d) for d in a.deltas[i]),
    }


def referee_view(r: referee.DealResult) -> dict:
    """The referee's results of one deal, keyed like :func:`engine_view`."""
    return {
        "dealer": r.dealer, "taker": r.taker, "bid_round": r.bid_round, "dominant": r.dominant,
        "turned_card": r.turned_card, "partner": r.partner,
        "trick_winners": tuple(r.trick_winners), "side_points": r.side_points,
        "outcome": r.outcome, "deltas": tuple(r.deltas),
    }


def check_deals(batch: DealBatch) -> int:
    """Replay every deal of a batch; raise on the first disagreement. Returns deals checked."""
    for i in range(len(batch.deal_ids)):
        record = batch.record(i)
        result = referee.replay_deal(record, batch.config)
        mine, theirs = engine_view(batch.arrays, i), referee_view(result)
        if mine != theirs:
            diff = {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}
            raise AssertionError(f"deal {int(batch.deal_ids[i])}: engine vs referee {diff}")
    return len(batch.deal_ids)


def check_games(batch: GameBatch) -> int:
    """Replay every game of a batch, deal by deal and in total. Returns deals checked."""
    a = batch.arrays
    checked = 0
    games = batch.games
    n = batch.config.n_players
    for g_index, game_id in enumerate(batch.game_ids):
        record = batch.record(int(game_id))
        result = referee.replay_game(record)  # checks each next deck against BM-3
        assert result.first_dealer == int(batch.first_dealer[g_index]), f"game {game_id}: BM-2"
        rows = np.flatnonzero(batch.deal_game == game_id)
        rows = rows[np.argsort(batch.deal_no[rows])]
        assert len(rows) == len(result.deals)
        for row, deal in zip(rows, result.deals, strict=True):
            mine, theirs = engine_view(a, int(row)), referee_view(deal)
            assert mine == theirs, f"game {game_id}: {mine} != {theirs}"
            if a.next_deck is not None:
                assert tuple(int(c) for c in a.next_deck[row]) == tuple(deal.next_deck)
            checked += 1
        seats = games.filter(games["game_id"] == game_id).sort("seat")
        assert tuple(seats["score"]) == tuple(result.totals)
        assert tuple(seats["contracts_made"]) == tuple(result.contracts_made)
        winners = tuple(s for s in range(n) if seats["is_winner"][s])
        assert winners == tuple(result.winners)
    return checked
