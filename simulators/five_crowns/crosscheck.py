"""Engine-versus-referee conformance check for Five Crowns.

Every round the engine plays is replayed by the independent referee from its
record (deck order, every draw, discard and going out, every reshuffle); the
two must agree on every move, on who went out and on every penalty. For a
large run::

    python -m simulators.core.conformance five-crowns --unit rounds --units 5000 --n-jobs 2
"""

from __future__ import annotations

from simulators.five_crowns import referee
from simulators.five_crowns.engine import RoundBatch
from simulators.five_crowns.solitaire import SolitaireBatch


def check_rounds(batch: RoundBatch) -> int:
    """Replay every round of a batch; raise on the first disagreement. Returns rounds checked."""
    a = batch.arrays
    for i in range(len(batch.round_ids)):
        result = referee.replay_round(batch.record(i), batch.config)
        mine = (int(a.went_out[i]), tuple(int(p) for p in a.penalties[i]), int(a.turns[i]))
        theirs = (result.went_out, tuple(result.penalties), sum(result.turns_taken))
        if mine != theirs:
            raise AssertionError(f"round {int(batch.round_ids[i])}: engine (went_out, penalties, "
                                 f"turns) {mine} != referee {theirs}")
    return len(batch.round_ids)


def check_solitaire(batch: SolitaireBatch) -> int:
    """Replay every solitaire game of a batch. Returns games checked."""
    table = batch.table
    for i in range(len(batch.game_ids)):
        result = referee.replay_solitaire(batch.record(i))
        row = table.row(i, named=True)
        mine = (row["won"], row["hands_closed"], row["moves_used"],
                tuple(row[f"closed_at_{h}"] for h in range(11)))
        theirs = (result.won, sum(result.closed), result.moves_used, tuple(result.closed_at_move))
        if mine != theirs:
            raise AssertionError(f"solitaire {int(batch.game_ids[i])}: {mine} != {theirs}")
    return len(batch.game_ids)
