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
