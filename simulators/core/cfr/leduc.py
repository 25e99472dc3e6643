"""Leduc poker (OpenSpiel's ``leduc_poker``) as a :class:`~.tree.PublicTree`.

Six cards (J, Q, K twice), ante 1, one private card each, then a board card
(a public chance node); two betting rounds with raises of 2 then 4, at most
two raises a round, player 0 first in each round, fold only facing a bet; a
pair with the board wins, else the higher card, equal cards split. Used by
``bench/truc_solver.py`` to time the solver beside OpenSpiel's C++ CFR+ on
the same game, and as a second known value (about -0.0856 for player 0).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from simulators.core.cfr.tree import CHANCE, TERMINAL, PublicTree, build_from_lists

FOLD, CALL, RAISE = 0, 1, 2
RANKS = 3
RAISE_SIZE = (2, 4)
MAX_RAISES = 2


def _weights():
    """Deal odds (context 0) and deal x board odds (context 1 + board rank), and showdowns."""
    w0 = np.array([[(2 / 6) * (2 - (i == j)) / 5 for j in range(RANKS)] for i in range(RANKS)])
    weight = [w0]
    sign = [np.zeros_like(w0)]
    for board in range(RANKS):
        odds = np.array([[(2 - (i == board) - (j == board)) / 4 for j in range(RANKS)]
                         for i in range(RANKS)])
        weight.append(w0 * odds)
        s = np.sign(np.subtract.outer(np.arange(RANKS), np.arange(RANKS))).astype(float)
        s[board, :], s[:, board] = 1.0, -1.0
        s[board, board] = 0.0
        sign.append(s)
    return np.array(weight), np.array(sign)


def leduc_tree() -> PublicTree:
    """The public tree of Leduc poker (player 0's value is about -0.0856)."""
    # state: (round, board, contributions, raises, actions this round, player to act)
    rows = []  # (player, parent, action, payoff, showdown, context)
    queue = deque([(-1, -1, ("act", 0, -1, (1, 1), 0, 0, 0))])
    while queue:
        parent, action, st = queue.popleft()
        node = len(rows)
        kind = st[0]
        if kind == "fold":
            _, folder, board, contrib = st
            pay = contrib[1] if folder == 1 else -contrib[0]
            rows.append((TERMINAL, parent, action, float(pay), False, board + 1))
            continue
        if kind == "showdown":
            _, board, contrib = st
            rows.append((TERMINAL, parent, action, float(contrib[0]), True, board + 1))
            continue
        if kind == "board":
            _, contrib = st
            rows.append((CHANCE, parent, action, 0.0, False, 0))
            for board in range(RANKS):
                queue.append((node, 10 + board, ("act", 1, board, contrib, 0, 0, 0)))
            continue
        _, rnd, board, contrib, raises, acted, p = st
        rows.append((p, parent, action, 0.0, False, 0))
        q = 1 - p
        if contrib[p] < contrib[q]:
            queue.append((node, FOLD, ("fold", p, board, contrib)))
        called = (max(contrib),) * 2
        if acted >= 1:  # a check or call that closes the round
            nxt = ("board", called) if rnd == 0 else ("showdown", board, called)
        else:
            nxt = ("act", rnd, board, called, raises, acted + 1, q)
        queue.append((node, CALL, nxt))
        if raises < MAX_RAISES:
            bet = list(called)
            bet[p] += RAISE_SIZE[rnd]
            queue.append((node, RAISE, ("act", rnd, board, tuple(bet), raises + 1, acted + 1, q)))
    player, parent, action, payoff, showdown, context = map(list, zip(*rows, strict=True))
    weight, sign = _weights()
    cards = list(range(RANKS))
    return build_from_lists(player, parent, action, payoff, showdown, [(cards, cards)] * len(rows),
                            weight, sign, action_names=("fold", "call", "raise"),
                            type_names=(("J", "Q", "K"),) * 2, context=context)
