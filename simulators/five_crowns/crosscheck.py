"""Engine-versus-referee conformance check for Five Crowns.

Every round the engine plays is replayed by the independent referee from its
record (deck order, every draw, discard and going out, every reshuffle); the
two must agree on every move, on who went out and on every penalty. For a
large run::

    python -m simulators.five_crowns.crosscheck --rounds 5000 --jobs 2
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


def _check_chunk(n_players: int, policy: str, round_no: int, seed: int, first: int,
                 count: int) -> int:
    from simulators.five_crowns.engine import simulate_rounds
    from simulators.five_crowns.policies import make_policy
    from simulators.five_crowns.rules import FiveCrownsConfig

    config = FiveCrownsConfig(n_players=n_players, round_no=round_no, max_turns=60)
    return check_rounds(simulate_rounds(config, make_policy(policy), count, seed,
                                        first_round_id=first))


def main(argv: list[str] | None = None) -> int:
    """Replay many engine rounds per player count (all round numbers, both policies)."""
    import argparse
    import time

    from joblib import Parallel, delayed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5_000, help="rounds per player count")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    for n_players in range(2, 8):
        start = time.perf_counter()
        per = args.rounds // 22 + 1  # 11 round numbers x 2 policies
        tasks = [delayed(_check_chunk)(n_players, policy, round_no, args.seed, round_no * per, per)
                 for round_no in range(1, 12) for policy in ("heuristic", "random")]
        total = sum(Parallel(n_jobs=args.jobs)(tasks))
        print(f"{n_players} players: {total} rounds replayed by the referee, 0 mismatches "
              f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
