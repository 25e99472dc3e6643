"""Five Crowns solitaire (FC-8), vectorized over a batch of games.

Eleven face-up hands of 3..13 cards (hand ``h`` has ``h + 3`` cards and that
rank wild) and a 28-card stock. Each move draws the stock top into an open
hand and discards one card of that hand for good; a hand closes as soon as
it melds entirely (at the deal too). The game is won when all eleven close
before the stock runs out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from simulators.core import rng
from simulators.core.dispatch import reject
from simulators.five_crowns import melds
from simulators.five_crowns import rules as R
from simulators.five_crowns.engine import shuffled_decks
from simulators.five_crowns.observations import PlaceObs

I8 = np.int8
STREAM_SOLITAIRE = 6
HAND_SIZES = np.arange(3, 14)
HAND_STARTS = np.concatenate([[0], np.cumsum(HAND_SIZES)[:-1]])
HAND_WILDS = HAND_SIZES  # hand k's wild rank is its size
STOCK_START = int(HAND_SIZES.sum())  # 88


def _closed(hands: np.ndarray) -> np.ndarray:
    """(N, 11) whether each hand melds entirely."""
    n_rows = len(hands)
    wilds = np.tile(HAND_WILDS, n_rows)
    return (melds.min_penalty(hands.reshape(-1, R.N_KINDS), wilds) == 0).reshape(n_rows, 11)


@dataclass(frozen=True)
class SolitaireBatch:
    """Solitaire games: ``table`` (one row per game) and the raw arrays."""

    seed: int
    game_ids: np.ndarray
    decks: np.ndarray
    moves_hand: np.ndarray  # (N, 28), -1 after the game ended
    moves_discard: np.ndarray
    table: pl.DataFrame

    def record(self, i: int) -> R.SolitaireRecord:
        """The replayable record of the batch's i-th game."""
        moves = tuple((int(h), int(d)) for h, d in zip(self.moves_hand[i], self.moves_discard[i],
                                                        strict=True) if h >= 0)
        return R.SolitaireRecord(deck=tuple(int(c) for c in self.decks[i]), moves=moves)


def simulate_solitaire(policy, n_games: int, seed: int = 0, *, first_game: int = 0
                       ) -> SolitaireBatch:
    """Play ``n_games`` solitaire games with ``policy.place`` (FC-8)."""
    if isinstance(n_games, bool) or not isinstance(n_games, int) or n_games < 1:
        raise ValueError(f"n_games must be a positive integer, got {n_games!r}")
    if not callable(getattr(policy, "place", None)):
        raise ValueError(f"policy: {type(policy).__name__} lacks the method place of a "
                         "Five Crowns solitaire policy")
    entropy = rng.root_entropy(seed)
    ids = np.arange(first_game, first_game + n_games, dtype=np.int64)
    decks = rng.draw_per_unit(entropy, ids, STREAM_SOLITAIRE, shuffled_decks)
    hands = np.zeros((n_games, 11, R.N_KINDS), dtype=np.uint8)
    rows = np.arange(n_games)
    for h, (start, size) in enumerate(zip(HAND_STARTS, HAND_SIZES, strict=True)):
        for pos in range(start, start + size):
            hands[rows, h, decks[:, pos]] += 1
    closed = _closed(hands)
    closed_at = np.where(closed, 0, -1).astype(I8)
    n_moves = R.N_CARDS - STOCK_START
    moves_hand = np.full((n_games, n_moves), -1, dtype=I8)
    moves_discard = np.full((n_games, n_moves), -1, dtype=I8)
    for move in range(n_moves):
        active = np.flatnonzero(~closed.all(axis=1))
        if not active.size:
            break
        drawn = decks[active, STOCK_START + move]
        noise = None
        if getattr(policy, "uses_noise", False):
            noise = rng.draw_per_unit(entropy, ids[active], STREAM_SOLITAIRE + 1,
                                      lambda g, size: g.random(size), move)
        obs = PlaceObs(hands[active], closed[active], drawn, n_moves - move, noise)
        hand_no, discard = (np.asarray(a) for a in policy.place(obs))
        m = np.arange(active.size)
        bad = (hand_no < 0) | (hand_no > 10)
        hand_no = np.clip(hand_no, 0, 10).astype(np.intp)
        bad |= closed[active, hand_no]
        chosen = hands[active, hand_no].astype(np.int16)
        chosen[m, drawn] += 1
        discard = discard.astype(np.intp)
        bad |= (discard < 0) | (discard >= R.N_KINDS)
        bad |= chosen[m, np.clip(discard, 0, R.N_KINDS - 1)] == 0
        reject(bad, ids[active], "solitaire move",
               lambda i, h=hand_no, d=discard, m=move: f"{int(h[i])}/{d[i]} at move {m} (FC-8)")
        chosen[m, discard] -= 1
        hands[active, hand_no] = chosen.astype(np.uint8)
        now_closed = melds.min_penalty(chosen.astype(np.uint8), HAND_WILDS[hand_no]) == 0
        closed[active, hand_no] = now_closed
        closed_at[active[now_closed], hand_no[now_closed]] = move + 1
        moves_hand[active, move] = hand_no
        moves_discard[active, move] = discard
    won = closed.all(axis=1)
    columns = {
        "game_id": ids, "seed": np.full(n_games, entropy, dtype=np.int64), "won": won,
        "moves_used": (moves_hand >= 0).sum(axis=1).astype(I8),
        "hands_closed": closed.sum(axis=1).astype(I8),
    }
    for h in range(11):
        columns[f"closed_at_{h}"] = closed_at[:, h]
    return SolitaireBatch(entropy, ids, decks, moves_hand, moves_discard, pl.DataFrame(columns))
