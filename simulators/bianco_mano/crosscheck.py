"""Engine-versus-referee conformance check for Bianco Mano.

Every deal the engine plays can be replayed by the independent referee from
its record (deck order and decisions); the two must agree on every move and
score. Tests run this on tens of thousands of deals; for a large run::

    python -m simulators.bianco_mano.crosscheck --deals 1000000 --jobs 2
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


def _check_chunk(n_players: int, policy_name: str, bianco_mano: bool, seed: int, first: int,
                 count: int) -> int:
    from simulators.bianco_mano import BiancoManoConfig, make_policy, simulate_deals

    config = BiancoManoConfig(n_players=n_players, bianco_mano=bianco_mano)
    batch = simulate_deals(config, make_policy(policy_name), count, seed, first_deal=first)
    return check_deals(batch)


def main(argv: list[str] | None = None) -> int:
    """Replay many engine deals per player count and policy; print the totals."""
    import argparse
    import time

    from joblib import Parallel, delayed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1_000_000, help="deals per player count")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--chunk", type=int, default=20_000)
    args = parser.parse_args(argv)
    for n_players in (3, 4, 5):
        start = time.perf_counter()
        tasks = [
            delayed(_check_chunk)(n_players, policy, k % 2 == 1, args.seed, first,
                                  min(args.chunk, args.deals - first))
            for k, first in enumerate(range(0, args.deals, args.chunk))
            for policy in ("random", "heuristic")
        ]
        total = sum(Parallel(n_jobs=args.jobs)(tasks))
        print(f"{n_players} players: {total} deals replayed by the referee, 0 mismatches "
              f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
