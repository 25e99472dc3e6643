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


def check_steps(batch: RoundBatch) -> int:
    """Drive the step game (``env.py``) with every round of a batch: the deck, stock cards and
    reshuffled piles as chance moves, each draw, discard and going out as the engine played
    it, by the seat the engine's record names; every move must be the step state's player's
    and legal there, and who went out, the turns and the returns (minus the penalties) the
    engine's. Returns the rounds checked."""
    from simulators.core.stepcheck import check_same, drive
    from simulators.five_crowns import env
    from simulators.five_crowns import rules as R
    from simulators.five_crowns.game import GAME

    config, a = batch.config, batch.arrays
    game = env.FiveCrownsSteps(config)
    scores = GAME.units[0].seat_scores({"rounds": batch.table}, config)
    n, k = config.n_players, R.cards_dealt(batch.round_no)
    for i in range(len(batch.round_ids)):
        what = f"round {int(batch.round_ids[i])}"
        record = batch.record(i)
        state = game.new_initial_state()
        drive(state, _round_moves(record, n, k, state), what)
        mine = {"terminal": True, "went_out": int(a.went_out[i]), "turns": int(a.turns[i]),
                "capped": bool(a.capped[i]), "returns": [float(s) for s in scores[i]]}
        theirs = {"terminal": state.is_terminal(), "went_out": state.out_seat,
                  "turns": state.t, "capped": state.capped, "returns": state.returns()}
        check_same(what, mine, theirs)
    return len(batch.round_ids)


def _round_moves(record, n: int, k: int, state):
    """The moves of a round record, as (player, action), FC-2..FC-6. The go-out answer is
    given only where the state asks it (the hand melds, nobody out yet): a record's going
    out where the state does not ask fails the drive, which checks the asking too."""
    from simulators.core.steps import CHANCE
    from simulators.five_crowns import env

    yield CHANCE, record.dealer
    yield from ((CHANCE, int(c)) for c in record.deck[:n * k + 1])  # FC-2: deal, first discard
    stock = [int(c) for c in record.deck[n * k + 1:]]  # top first
    reshuffles = iter(record.reshuffles)
    for seat, took, discard, went_out in record.turns:
        if not stock:  # FC-6: the reshuffled pile, its top turned
            pile = [int(c) for c in next(reshuffles)]
            yield CHANCE, pile[0]
            stock = pile[1:]
        yield seat, env.TAKE_DISCARD if took else env.DRAW_STOCK
        if not took:
            yield CHANCE, stock.pop(0)
        final = state.final()  # a last turn (FC-5): going out is the hand's melding, no choice
        yield seat, int(discard)
        if state.phase() == env.CHOOSE_OUT:
            yield seat, env.GO_OUT if went_out else env.STAY
        elif final:
            # the state's last word on a hand (a reshuffle may follow it at the next turn)
            said = next(e for e in reversed(state.events) if e in ("melds", "does not meld"))
            if bool(went_out) != (said == "melds"):
                raise AssertionError(f"seat {seat}'s last turn: the record says the hand "
                                     f"melds {bool(went_out)}, the step state {said!r} (FC-5)")
        elif went_out:
            yield seat, env.GO_OUT  # not asked by the state: the drive names the difference
