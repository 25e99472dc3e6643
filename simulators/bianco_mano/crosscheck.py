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


def step_moves(a: DealArrays, i: int, n: int) -> list[tuple[int, int]]:
    """Every move of row i as ``(player, action)`` for the step game (``env.py``): the dealer and
    the cut deck as chance moves, then each decision with the seat the engine asked
    (BM-4..BM-11).

    The seats come from the engine's arrays (dealer, taker, trick winners), so the step
    state's turn order is checked against the engine's, not against itself.
    """
    from simulators.bianco_mano import env
    from simulators.bianco_mano import rules as R
    from simulators.core import bits, rulings
    from simulators.core.steps import CHANCE

    dealer, taker = int(a.dealer[i]), int(a.taker[i])
    deck = rulings.cut([int(c) for c in a.deck[i]], int(a.cut[i]))  # BM-3: dealt from the cut
    moves = [(CHANCE, dealer)]
    if len(R.FIRST_PACKET_CHOICES[n]) > 1:
        moves.append((dealer, env.PACKET_BASE + int(a.first_packet[i])))  # BM-4, BM-5
    n_first = n * R.FIRST_DISTRIBUTION[n] + 1
    moves += [(CHANCE, c) for c in deck[:n_first]]
    bids = [int(b) for b in a.bids[i] if b >= 0]
    moves += [((dealer + 1 + k) % n, env.BID_BASE + b) for k, b in enumerate(bids)]  # BM-7
    if taker < 0:
        return moves
    moves += [(CHANCE, c) for c in deck[n_first:]]
    moves += [(taker, c) for c in bits.cards_of(int(a.espion[i]))]  # ascending
    if n == 5:
        moves.append((taker, int(a.called[i])))  # BM-6
    if a.bonus_eligible[i]:
        moves.append((taker, env.BONUS if a.bonus[i] else env.NO_BONUS))  # BM-11
    leader = taker  # BM-8: the taker leads the first trick, then clockwise
    for t in range(R.HAND_SIZE[n]):
        moves += [((leader + k) % n, int(a.plays[i, t, k])) for k in range(n)]
        leader = int(a.trick_winners[i, t])
    return moves


def kernel_question(state, seat: int) -> tuple:
    """The shared kernel's BM-8 question for ``seat`` about to play: its hand, the trick so
    far as (seat, card) pairs, the dominant family, the duty table, and no partner exception."""
    from simulators.bianco_mano.engine import DUTIES

    n = state.game.n
    trick = [((state.leader + k) % n, c) for k, c in enumerate(state.trick)]
    return state.hands[seat], trick, state.dominant, DUTIES, lambda other: True


def check_steps(batch: DealBatch) -> int:
    """Drive the step game with every deal of a batch (same deck, same decisions); every move
    must be the step state's player's and legal there, the contract, cards and trick winners
    the engine's, and the returns the unit's seat scores. Returns the deals checked."""
    from simulators.bianco_mano.env import PLAY, BiancoManoSteps
    from simulators.bianco_mano.game import GAME
    from simulators.core import bits
    from simulators.core.stepcheck import check_same, drive, kernel_check

    a, n = batch.arrays, batch.config.n_players
    game = BiancoManoSteps(batch.config)
    scores = GAME.units[0].seat_scores({"deals": batch.table}, batch.config)
    legal_cards_differ = kernel_check(PLAY, "BM-8", kernel_question)
    for i in range(len(batch.deal_ids)):
        what = f"deal {int(batch.deal_ids[i])}"
        state = drive(game.new_initial_state(), step_moves(a, i, n), what,
                      check=legal_cards_differ)
        taker = int(a.taker[i])
        view = engine_view(a, i)
        mine = {"terminal": True, "taker": view["taker"], "dominant": view["dominant"],
                "turned_card": view["turned_card"], "partner": view["partner"],
                "called": int(a.called[i]), "trick_winners": view["trick_winners"],
                "side_points": view["side_points"] if taker >= 0 else 0,
                "taker_cards": bits.cards_of(int(a.taker_hand[i])) if taker >= 0 else [],
                "returns": [float(s) for s in scores[i]]}
        theirs = {"terminal": state.is_terminal(), "taker": state.taker,
                  "dominant": state.dominant, "turned_card": state.turned,
                  "partner": state.partner, "called": state.called,
                  "trick_winners": tuple(state.winners),
                  "side_points": state.side_points() if taker >= 0 else 0,
                  "taker_cards": sorted(state.received[taker]) if taker >= 0 else [],
                  "returns": state.returns()}
        check_same(what, mine, theirs)
    return len(batch.deal_ids)
