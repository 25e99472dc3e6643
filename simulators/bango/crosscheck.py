"""Engine-versus-referee conformance check for Bango.

Every game the engine plays is replayed by the independent referee from its
record (deck order, black-card reinsertions, every reveal, bango, take,
spoil, destruction and lay); the two must agree on every turn (seat, cards
revealed, explosion, cards taken, cards destroyed, lay) and on every player's
score, sequences, personal discards, explosions, bangos and lays. Card
conservation is checked on the engine's own end state. For a large run::

    python -m simulators.core.conformance bango --units 20000 --n-jobs 2
"""

from __future__ import annotations

import numpy as np

from simulators.bango import referee
from simulators.bango import rules as R
from simulators.bango.engine import GameBatch, bonus


def check_conservation(batch: GameBatch) -> int:
    """All 99 cards accounted for in every game at its end (BG-1); returns games checked.

    Removed cards plus the face-up cards out of play (common discard, personal
    discards, sequences) must be the whole deck kind by kind, with the stock,
    the centre and every hand empty; sequence cards, personal discards and
    the common discard must add up to the face-up count.
    """
    tb = batch.table
    n_rows = len(batch.game_ids)
    removed = np.zeros((n_rows, R.N_KINDS), dtype=np.int64)
    r = tb.removed
    if r:
        np.add.at(removed, (np.repeat(np.arange(n_rows), r), batch.decks[:, :r].ravel()), 1)
    whole = removed + tb.public
    bad = (whole != R.KIND_COPIES[None, :]).any(axis=1)
    bad |= (tb.top != R.N_CARDS) | (tb.centre >= 0).any(axis=1) | (tb.hands != 0).any(axis=(1, 2))
    bad |= tb.size.any(axis=1)
    laid = np.bitwise_count(tb.seq_mask).sum(axis=(1, 2)).astype(np.int64)
    bad |= laid + tb.personal.sum(axis=1) + tb.common != tb.public.sum(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise AssertionError(f"game {int(batch.game_ids[i])}: cards not conserved "
                             f"({int(whole[i].sum())} of 99 accounted for, "
                             f"{int((bad).sum())} games)")
    return n_rows


def check_games(batch: GameBatch) -> int:
    """Replay every game of a batch; raise on the first disagreement. Returns games checked."""
    check_conservation(batch)
    n = batch.config.n_players
    games = batch.games.sort(["game_id", "seat"])
    per_seat = {c: games[c].to_numpy().reshape(-1, n)
                for c in ("score", "personal_discards", "explosions", "bangos", "lays",
                          "n_sequences", "blacks_received")}
    lengths = np.bitwise_count(batch.table.seq_mask)
    bonuses = bonus(batch.table.seq_colours)
    turns = batch.turns
    turn_cols = ("seat", "revealed", "exploded", "taken", "destroyed", "laid")
    turn_values = [turns[c].to_numpy() for c in turn_cols]
    bounds = np.searchsorted(turns["game_id"].to_numpy(), batch.game_ids)
    bounds = np.append(bounds, len(turns))
    for i, record in sorted(batch.records().items()):
        gid = int(batch.game_ids[i])
        result = referee.replay_game(record)
        mine = {c: tuple(int(x) for x in v[i]) for c, v in per_seat.items()}
        theirs = {"score": result.scores, "personal_discards": result.personal_discards,
                  "explosions": result.explosions, "bangos": result.bangos, "lays": result.lays,
                  "n_sequences": tuple(len(s) for s in result.sequences),
                  "blacks_received": result.blacks_received}
        for key in mine:
            if mine[key] != theirs[key]:
                raise AssertionError(f"game {gid}: engine {key} {mine[key]} != referee "
                                     f"{theirs[key]}")
        for s in range(n):
            seqs = result.sequences[s]
            ref = tuple((len(q), referee.colour_bonus(q)) for q in seqs)
            eng = tuple((int(lengths[i, s, k]), int(bonuses[i, s, k])) for k in range(len(seqs)))
            if ref != eng:
                raise AssertionError(f"game {gid} seat {s}: engine sequences (length, bonus) "
                                     f"{eng} != referee {ref}")
        lo, hi = bounds[i], bounds[i + 1]
        eng_turns = list(zip(*(v[lo:hi].tolist() for v in turn_values), strict=True))
        ref_turns = [(t.seat, t.revealed, t.exploded, t.taken, t.destroyed, t.laid)
                     for t in result.turns]
        if [tuple(int(x) for x in t) for t in eng_turns] != \
                [tuple(int(x) for x in t) for t in ref_turns]:
            k = next(j for j, (a, b) in enumerate(zip(eng_turns, ref_turns, strict=False))
                     if tuple(map(int, a)) != tuple(map(int, b)))
            eng = dict(zip(turn_cols, eng_turns[k], strict=True))
            ref = dict(zip(turn_cols, ref_turns[k], strict=True))
            raise AssertionError(f"game {gid} turn {k}: engine {eng} != referee {ref}")
    return len(batch.game_ids)


def check_steps(batch: GameBatch, lays_up_to: int = 8) -> int:
    """Drive the step game (``env.py``) with every game of a batch: the first player and
    every card dealt or revealed as chance moves, every bango, draw, take, pick, destruction
    and lay (its spans and colours) as the engine played it, by the seat the engine's record
    names; every move must be the step state's player's and legal there. At the start of
    each slot of an arrangement of at most ``lays_up_to`` cards, the legal spans must be
    those of the laying solver's plain brute force (``laying.enumerate_lays``). At the end
    the state is terminal, its returns the engine's seat scores (BG-8) and each seat's
    personal discards, sequences, explosions, bangos and lays the engine's. Returns the
    games checked."""
    from simulators.bango import env
    from simulators.bango.game import GAME
    from simulators.core.stepcheck import check_same, drive

    config = batch.config
    game = env.BangoSteps(config)
    scores = GAME.units[0].seat_scores({"games": batch.games}, config)
    games = batch.games.sort(["game_id", "seat"])
    n = config.n_players
    per_seat = {c: games[c].to_numpy().reshape(-1, n)
                for c in ("personal_discards", "explosions", "bangos", "lays", "n_sequences")}
    lengths = np.bitwise_count(batch.table.seq_mask)
    for i, record in sorted(batch.records().items()):
        what = f"game {int(batch.game_ids[i])}"
        state = game.new_initial_state()
        drive(state, _game_moves(record, state, what), what,
              lambda s: _spans_difference(s, lays_up_to))
        tb = state.table
        mine = {"terminal": True, "returns": [float(s) for s in scores[i]],
                **{c: [int(x) for x in v[i]] for c, v in per_seat.items()},
                "lengths": [sorted(int(x) for x in lengths[i, s] if x) for s in range(n)]}
        theirs = {"terminal": state.is_terminal(), "returns": state.returns(),
                  "personal_discards": [len(p) for p in tb.personal],
                  "explosions": tb.explosions, "bangos": tb.bangos, "lays": tb.lays,
                  "n_sequences": [len(s) for s in tb.sequences],
                  "lengths": [sorted(len(q) for q in s) for s in tb.sequences]}
        check_same(what, mine, theirs)
    return len(batch.game_ids)


def _spans_difference(state, lays_up_to: int) -> str | None:
    """The step state's legal spans against the brute force of every legal lay (BG-6), at
    the start of a slot of a small arrangement; ``None`` where they agree or are not compared."""
    from collections import Counter

    from simulators.bango import env
    from simulators.bango.laying import enumerate_lays

    if state.phase != env.SPANNING or len(state.lay_pairs) + state.left.total() > lays_up_to:
        return None
    seat, slot = state.lay_seat, state.slot
    hand = list(state.table.hands[seat].elements())
    sequences = state.table.sequences[seat]
    decided = Counter(state.lay_pairs)
    expected = set()
    for lay, _ in enumerate_lays(hand, sequences, state.game.config.free_discard):
        if Counter((k, s) for k, s in lay if s < slot) != decided:
            continue
        values = [R.value_of(k) for k, s in lay if s == slot]
        if slot < len(sequences):
            values += [R.value_of(k) for k in sequences[slot]]
        expected.add(env.span_action(min(values), max(values)) if values else env.CLOSE)
    legal = set(state.legal_actions())
    if legal != expected:
        return (f"seat {seat}'s spans of slot {slot}: step state {sorted(legal)}, brute force "
                f"{sorted(expected)} (BG-6)")
    return None


def _game_moves(record: R.GameRecord, state, what: str):
    """The moves of a game record as (player, action), BG-2..BG-7. A decision the state does
    not ask (a forced one) is checked against the record instead of played; a recorded
    decision the state does not ask at all is yielded anyway, so the drive names it."""
    from simulators.bango import env
    from simulators.core.steps import CHANCE

    n = record.n_players
    yield CHANCE, record.first_player
    stock = list(record.deck[record.removed:])
    reinsert = list(record.reinsert)
    back = set()
    for _ in range(n):  # BG-2, as referee.setup deals it
        while True:
            card = stock.pop(0)
            if R.is_black(card):
                if card not in back:  # a put-back black card coming again is no move
                    yield CHANCE, card
                    back.add(card)
                stock.insert(reinsert.pop(0), card)
                continue
            yield CHANCE, card
            break
    for t, turn in enumerate(record.turns):
        seat = turn.seat
        for bango, go_on in turn.reveals:
            yield CHANCE, stock.pop(0)
            if state.phase == env.BANGO_ASK or bango >= 0:
                yield seat, env.PASS if bango < 0 else env.BANGO + bango
            if state.phase == env.DRAW_ON:
                yield seat, env.DRAW if go_on else env.STOP
            elif go_on != (state.phase == env.REVEAL):
                raise AssertionError(f"{what} turn {t}: the record draws on {go_on}, the step "
                                     f"state is at the {env.PHASE_NAMES[state.phase]} (BG-3)")
        for card in sorted(turn.take):
            yield seat, env.TAKE + card
        if state.phase == env.TAKING:
            yield seat, env.DONE
        for opponent, card, with_card in turn.spoils:
            yield opponent, env.TAKE + card if with_card < 0 else env.BANGO + with_card
        destroys = dict(turn.destroys)
        while state.phase == env.DESTROY:
            card = state.table.centre[state.position]
            yield seat, env.BANGO + destroys.pop(card) if card in destroys else env.TAKE + card
        if destroys:
            raise AssertionError(f"{what} turn {t}: the record destroys "
                                 f"{R.format_cards(destroys)}, never asked by the step state")
        yield from _lay_moves(state, seat, turn.lay, what)
    for seat, lay in enumerate(record.final_lays):
        yield from _lay_moves(state, seat, lay, what)


def _lay_moves(state, seat: int, lay, what: str):
    """A recorded lay (or ``None``) as LAY / NO_LAY, then its spans, colours and CLOSE."""
    from simulators.bango import env

    if state.phase == env.LAY_ASK and state.lay_seat == seat:
        yield seat, env.NO_LAY if lay is None else env.LAY
    elif lay is None:
        return
    if lay is not None and state.phase not in (env.SPANNING, env.PLACING):
        yield seat, env.LAY  # not asked: the drive names the difference
    old = [list(q) for q in state.table.sequences[seat]]
    for slot in range(R.MAX_SEQUENCES):
        if state.phase not in (env.SPANNING, env.PLACING) or state.lay_seat != seat:
            break
        cards = sorted((k for k, s in lay if s == slot), key=R.value_of)
        values = [R.value_of(k) for k in cards]
        if slot < len(old):
            values += [R.value_of(k) for k in old[slot]]
        if not values:
            yield seat, env.CLOSE
            break
        yield seat, env.span_action(min(values), max(values))
        for card in cards:  # ascending values, as the state asks them (one kind held: placed)
            if state.phase == env.PLACING and state.slot == slot and \
                    state.to_place[0] == R.value_of(card):
                yield seat, env.PLACE + card
    if lay is not None:  # the colours the state placed by itself are the record's
        expected = [sorted(old[s] if s < len(old) else [], key=R.value_of) for s in
                    range(R.MAX_SEQUENCES)]
        for card, slot in lay:
            expected[slot].append(card)
        expected = [sorted(q) for q in expected if q]
        placed = [sorted(q) for q in state.table.sequences[seat]]
        if placed != expected:
            raise AssertionError(f"{what}: seat {seat}'s sequences after the lay "
                                 f"{R.format_sequences(placed)}, the record's "
                                 f"{R.format_sequences(expected)} (BG-6)")
