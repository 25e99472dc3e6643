"""Engine-versus-referee conformance check for Manille.

Every deal the engine plays can be replayed by the independent referee from
its record (deck order and decisions); the two must agree on every move and
score. The default test suite runs this on tens of thousands of deals per
policy; for a large run::

    python -m simulators.core.conformance manille --unit deals --units 300000 --n-jobs 2
"""

from __future__ import annotations

import numpy as np

from simulators.manille import referee
from simulators.manille.engine import DealArrays, DealBatch, GameBatch


def engine_view(a: DealArrays, i: int) -> dict:
    """The engine's results of row i, in the referee's terms."""
    taking = int(a.dealer[i]) % 2
    card_points = [0, 0]
    card_points[taking] = int(a.taking_card_points[i])
    card_points[1 - taking] = 60 - card_points[taking]
    tricks = [0, 0]
    tricks[taking] = int(a.taking_tricks[i])
    tricks[1 - taking] = 8 - tricks[taking]
    scores = [0, 0]
    scores[taking], scores[1 - taking] = int(a.taking_score[i]), int(a.defence_score[i])
    return {
        "dealer": int(a.dealer[i]), "chooser": int(a.chooser[i]), "trump": int(a.trump[i]),
        "contre_level": int(a.contre_level[i]), "contre_by": int(a.contre_by[i]),
        "surcontre_by": int(a.surcontre_by[i]),
        "hands": tuple(tuple(int(c) for c in np.flatnonzero((int(h) >> np.arange(32)) & 1))
                       for h in a.hands[i]),
        "trick_winners": tuple(int(w) for w in a.trick_winners[i]),
        "team_tricks": tuple(tricks), "team_card_points": tuple(card_points),
        "team_points": (card_points[0] + tricks[0], card_points[1] + tricks[1]),
        "scores": tuple(scores),
    }


def referee_view(r: referee.DealResult) -> dict:
    """The referee's results of one deal, keyed like :func:`engine_view`."""
    return {
        "dealer": r.dealer, "chooser": r.chooser, "trump": r.trump,
        "contre_level": r.contre_level, "contre_by": r.contre_by,
        "surcontre_by": r.surcontre_by, "hands": r.hands, "trick_winners": r.trick_winners,
        "team_tricks": r.team_tricks, "team_card_points": r.team_card_points,
        "team_points": r.team_points, "scores": r.scores,
    }


def _compare(mine: dict, theirs: dict, what: str) -> None:
    if mine != theirs:
        diff = {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}
        raise AssertionError(f"{what}: engine vs referee {diff}")


def check_deals(batch: DealBatch) -> int:
    """Replay every deal of a batch; raise on the first disagreement. Returns deals checked."""
    for i in range(len(batch.deal_ids)):
        result = referee.replay_deal(batch.record(i), batch.config)  # RuleViolation if illegal
        _compare(engine_view(batch.arrays, i), referee_view(result),
                 f"deal {int(batch.deal_ids[i])}")
    return len(batch.deal_ids)


def check_games(batch: GameBatch) -> int:
    """Replay every game of a batch, deal by deal and in total. Returns deals checked."""
    a = batch.arrays
    checked = 0
    games = batch.games.sort("game_id")
    for g_index, game_id in enumerate(batch.game_ids):
        result = referee.replay_game(batch.record(int(game_id)))
        if result.first_dealer != int(batch.first_dealer[g_index]):
            raise AssertionError(f"game {game_id}: first dealer {batch.first_dealer[g_index]} "
                                 f"!= referee {result.first_dealer} (MA-2)")
        rows = np.flatnonzero(batch.deal_game == game_id)
        rows = rows[np.argsort(batch.deal_no[rows])]
        if len(rows) != len(result.deals):
            raise AssertionError(f"game {game_id}: {len(rows)} deals != {len(result.deals)}")
        for row, deal in zip(rows, result.deals, strict=True):
            _compare(engine_view(a, int(row)), referee_view(deal),
                     f"game {game_id} deal {batch.deal_no[row]}")
            checked += 1
        row = games.row(g_index, named=True)
        mine = (row["score_team0"], row["score_team1"], row["winner"], row["n_deals"])
        theirs = (*result.totals, result.winner, len(result.deals))
        if mine != theirs:
            raise AssertionError(f"game {game_id}: engine (scores, winner, deals) {mine} != "
                                 f"referee {theirs}")
    return checked


def check_invariants(a: DealArrays) -> None:
    """Laws every simulated batch obeys: each card dealt and played once, 8 tricks, 68 points."""
    n = len(a.dealer)
    hands = a.hands.astype(np.uint64)
    if not ((np.bitwise_count(a.hands) == 8).all() and (np.bitwise_or.reduce(hands, axis=1)
                                                         == 2**32 - 1).all()):
        raise AssertionError("MA-2: every seat holds 8 cards and the 4 hands are the 32 cards")
    if not (np.sort(a.plays.reshape(n, 32), axis=1) == np.arange(32)).all():
        raise AssertionError("MA-5: each card is played exactly once in a deal")
    if a.trick_winners.shape != (n, 8) or not ((a.taking_tricks >= 0)
                                               & (a.taking_tricks <= 8)).all():
        raise AssertionError("MA-5: 8 tricks a deal")
    if not ((a.taking_card_points >= 0) & (a.taking_card_points <= 60)).all():
        raise AssertionError("MA-1: 60 card points in a deal")
    taking = a.taking_card_points.astype(np.int32) + a.taking_tricks
    defence = (60 - a.taking_card_points.astype(np.int32)) + (8 - a.taking_tricks)
    if not (taking + defence == 68).all():
        raise AssertionError("MA-6: 68 points in a deal")
    if ((a.taking_score > 0) & (a.defence_score > 0)).any():
        raise AssertionError("MA-6: only the team above 34 scores")
    factor = np.array([1, 2, 4])[a.contre_level] * np.where(a.trump == 4, 2, 1)
    want = np.maximum(taking - 34, 0) * factor
    if not (a.taking_score == want).all():
        raise AssertionError("MA-6: taking score is (points - 34) times the multipliers")


def step_moves(a: DealArrays, i: int) -> list[tuple[int, int]]:
    """Every move of row i as ``(player, action)`` for the step game (``env.py``): the dealer and
    the cut deck as chance moves, then each decision with the seat the engine asked (MA-2..MA-5).

    The seats come from the engine's arrays (dealer, chooser, trick winners), so the step
    state's turn order is checked against the engine's, not against itself.
    """
    from simulators.core import rulings
    from simulators.core.steps import CHANCE
    from simulators.manille import env

    dealer = int(a.dealer[i])
    deck = rulings.cut([int(c) for c in a.deck[i]], int(a.cut[i]))  # MA-2: dealt from the cut deck
    moves = [(CHANCE, dealer)] + [(CHANCE, c) for c in deck]
    choice = [int(c) for c in a.choice[i] if c >= 0]
    moves.append((dealer, env.CHOICE_BASE + choice[0]))  # MA-3: the dealer first
    if len(choice) == 2:
        moves.append(((dealer + 2) % 4, env.CHOICE_BASE + choice[1]))  # then his partner
    asked = [(dealer - 1) % 4, (dealer + 1) % 4]  # MA-4: the dealer's right, then his left
    for seat, yes in zip(asked, (int(x) for x in a.contre[i] if x >= 0), strict=False):
        moves.append((seat, env.CONTRE if yes else env.DECLINE))
    chooser = int(a.chooser[i])
    for seat, yes in zip([chooser, (chooser + 2) % 4], (int(x) for x in a.surcontre[i] if x >= 0),
                         strict=False):
        moves.append((seat, env.SURCONTRE if yes else env.DECLINE))
    leader = (dealer - 1) % 4  # MA-5: the dealer's right leads the first trick
    for t in range(8):
        for k in range(4):
            moves.append(((leader - k) % 4, int(a.plays[i, t, k])))  # counter-clockwise
        leader = int(a.trick_winners[i, t])
    return moves


def kernel_question(state, seat: int) -> tuple:
    """The shared kernel's MA-5 question for ``seat`` about to play: its hand, the trick so
    far, the trump, its duty table, and whether the trick's holder is an opponent."""
    from simulators.manille import rules as R

    trump = state.bidding.trump
    return (state.hands[seat], state.trick, trump,
            R.duties(trump, state.game.config.sans_atout_must_beat),
            lambda other: referee.team_of(other) != referee.team_of(seat))


def check_steps(batch: DealBatch) -> int:
    """Drive the step game with every deal of a batch (same deck, same decisions); every move
    must be the step state's player's and legal there, the hands, bidding and trick winners
    the engine's, and the returns the unit's seat scores. Returns the deals checked."""
    from simulators.core.stepcheck import check_same, drive, kernel_check
    from simulators.manille.env import PLAY, ManilleSteps
    from simulators.manille.game import GAME

    a = batch.arrays
    game = ManilleSteps(batch.config)
    scores = GAME.units[0].seat_scores({"deals": batch.table}, batch.config)
    legal_cards_differ = kernel_check(PLAY, "MA-5", kernel_question)
    for i in range(len(batch.deal_ids)):
        what = f"deal {int(batch.deal_ids[i])}"
        state = drive(game.new_initial_state(), step_moves(a, i), what,
                      check=legal_cards_differ)
        view = engine_view(a, i)
        mine = {"terminal": True, "hands": view["hands"], "trump": view["trump"],
                "chooser": view["chooser"], "contre_level": view["contre_level"],
                "trick_winners": view["trick_winners"], "team_points": view["team_points"],
                "returns": [float(s) for s in scores[i]]}
        theirs = {"terminal": state.is_terminal(),
                  "hands": tuple(tuple(sorted(h)) for h in state.dealt),
                  "trump": state.bidding.trump, "chooser": state.bidding.chooser,
                  "contre_level": state.bidding.contre_level,
                  "trick_winners": tuple(state.winners), "team_points": state.team_points(),
                  "returns": state.returns()}
        check_same(what, mine, theirs)
    return len(batch.deal_ids)
