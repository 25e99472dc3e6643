"""Kuhn poker as a :class:`~.tree.PublicTree`: the solver's known-answer check.

Three cards J < Q < K, one each, ante 1; player 0 checks or bets 1, and so
on (Kuhn 1950). The game value for player 0 is -1/18.
"""

from __future__ import annotations

import numpy as np

from simulators.core.cfr.tree import TERMINAL, PublicTree, build_from_lists

KUHN_VALUE = -1.0 / 18.0
PASS, BET = 0, 1


def kuhn_tree() -> PublicTree:
    """The public tree of Kuhn poker (9 nodes, 12 information sets)."""
    # (player, parent, action, payoff, showdown), breadth-first
    nodes = [
        (0, -1, -1, 0.0, False),        # 0 root: player 0 checks or bets
        (1, 0, PASS, 0.0, False),       # 1 check: player 1 checks or bets
        (1, 0, BET, 0.0, False),        # 2 bet: player 1 folds or calls
        (TERMINAL, 1, PASS, 1.0, True),   # 3 check-check: showdown for 1
        (0, 1, BET, 0.0, False),        # 4 check-bet: player 0 folds or calls
        (TERMINAL, 2, PASS, 1.0, False),  # 5 bet-fold: player 0 wins 1
        (TERMINAL, 2, BET, 2.0, True),    # 6 bet-call: showdown for 2
        (TERMINAL, 4, PASS, -1.0, False),  # 7 check-bet-fold: player 0 loses 1
        (TERMINAL, 4, BET, 2.0, True),    # 8 check-bet-call: showdown for 2
    ]
    cards = [0, 1, 2]
    weight = (1.0 - np.eye(3)) / 6.0
    sign = np.sign(np.subtract.outer(cards, cards)).astype(float)
    player, parent, action, payoff, showdown = map(list, zip(*nodes, strict=True))
    return build_from_lists(player, parent, action, payoff, showdown,
                            [(cards, cards)] * len(nodes), weight, sign,
                            action_names=("pass", "bet"),
                            type_names=(("J", "Q", "K"), ("J", "Q", "K")))
