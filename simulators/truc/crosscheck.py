"""Engine-versus-referee conformance check for Truc.

Every deal the engine plays is replayed by the independent referee from its
record (deck, scores and decisions); the two must agree on every move,
stake and score. Tests run this on tens of thousands of deals; for a large
run::

    python -m simulators.core.conformance truc --unit deals --units 300000 --n-jobs 2
"""

from __future__ import annotations

import numpy as np

from simulators.truc import referee
from simulators.truc.engine import DealArrays, DealBatch, MatchBatch, record_of


def engine_view(a: DealArrays, i: int) -> dict:
    """The engine's results of row i, in the referee's terms."""
    played = a.trick_winners[i] > -2
    proposals = tuple(
        (slot, int(a.proposed[i, slot]), int(a.answers[i, slot]), int(a.counters[i, slot]),
         int(a.replies[i, slot]))
        for slot in range(a.proposed.shape[1]) if a.proposed[i, slot] > 0)
    return {
        "hand_no": None if a.hand_no[i] < 0 else int(a.hand_no[i]),
        "leaders": tuple(int(x) for x in a.leaders[i][played]),
        "trick_winners": tuple(None if w == -1 else int(w) for w in a.trick_winners[i][played]),
        "stakes": tuple(int(s) for s in a.stakes[i] if s > 0),
        "proposals": proposals,
        "stake": int(a.stake[i]), "outcome": int(a.outcome[i]),
        "winner": None if a.winner[i] < 0 else int(a.winner[i]), "points": int(a.points[i]),
        "deltas": tuple(int(d) for d in a.deltas[i]),
    }


def referee_view(r: referee.DealResult) -> dict:
    """The referee's results of one deal, keyed like :func:`engine_view`."""
    return {
        "hand_no": r.hand_no,
        "leaders": tuple(leader for leader, _, _ in r.tricks),
        "trick_winners": tuple(r.trick_winners),
        "stakes": tuple(r.stakes),
        "proposals": tuple((p.slot, p.proposed, p.answer, p.counter, p.reply)
                           for p in r.proposals),
        "stake": r.stake, "outcome": r.outcome, "winner": r.winner, "points": r.points,
        "deltas": tuple(r.deltas),
    }


def compare(a: DealArrays, i: int, config, label) -> referee.DealResult:
    """Replay row i and raise AssertionError naming every difference."""
    result = referee.replay_deal(record_of(a, i), config)
    mine, theirs = engine_view(a, i), referee_view(result)
    if mine != theirs:
        diff = {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}
        raise AssertionError(f"{label}: engine vs referee {diff}")
    return result


def check_deals(batch: DealBatch) -> int:
    """Replay every deal of a batch; raise on the first disagreement. Returns deals checked."""
    for i in range(len(batch.deal_ids)):
        compare(batch.arrays, i, batch.config, f"deal {int(batch.deal_ids[i])}")
    return len(batch.deal_ids)


def check_matches(batch: MatchBatch) -> int:
    """Replay every match deal by deal and in total (TR-6). Returns deals checked."""
    checked = 0
    matches = batch.matches.sort("match_id")
    manches = batch.manches.sort(["match_id", "manche_no"])
    for m, match_id in enumerate(batch.match_ids):
        record = batch.record(int(match_id))
        result = referee.replay_match(record)  # checks dealers and chained scores
        rows = np.flatnonzero(batch.deal_match == match_id)
        rows = rows[np.argsort(batch.deal_no[rows])]
        for row, deal in zip(rows, result.deals, strict=True):
            mine, theirs = engine_view(batch.arrays, int(row)), referee_view(deal)
            assert mine == theirs, f"match {match_id}: {mine} != {theirs}"
            checked += 1
        assert int(matches["winner"][m]) == result.winner, f"match {match_id}: winner"
        mine_manches = manches.filter(manches["match_id"] == match_id)
        assert list(mine_manches["winner"]) == result.manche_winners, f"match {match_id}"
        assert list(zip(mine_manches["score_0"], mine_manches["score_1"], strict=True)) == \
            result.manche_scores, f"match {match_id}: manche scores"
    return checked
