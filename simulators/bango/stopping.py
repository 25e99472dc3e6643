"""One-turn optimal stopping for Bango's draw: dynamic programming over the unseen cards.

What Neller and Presser did for Pig, for one Bango turn: given the centre,
the player's hand and sequences and the cards he cannot see, the expected
value of stopping now versus drawing on, with every later stop-or-draw choice
of the turn also made optimally. The state is the set of values in the
centre (values are distinct until an explosion), so a turn has at most
2^11 states; the next card is drawn from the unseen cards, each equally
likely (see :func:`~simulators.bango.observations.explosion_probability`).

Card values to the player (the model's utility, in BG-8 points):

* a coloured card that fits his game (:func:`~simulators.bango.policies.fit_values`)
  is worth ``+1`` when he takes it; he leaves other centre cards when he stops;
* stopping with nothing that fits forces him to take one dead card: ``-dead_cost``;
* after an explosion he keeps the exploding card and the blacks (``-black_cost``
  each) and, of the other cards, what the opponents leave: each opponent takes
  one, chosen at random in the model; kept cards count ``+1`` if they fit,
  ``-dead_cost`` if not;
* an explosion on a value he holds may be cancelled by a bango: he then stops.

The recursion, over centre value sets ``M`` that contain the current one::

    V(M) = max(stop(M), sum_{v not in M} p_v V(M + v) + sum_{v in M} p_v boom(M, v))

with ``p_v`` the share of value ``v`` among the unseen cards left. Cards
still to come enter ``stop`` and ``boom`` by their expected colour mix.
The kernel is compiled with numba on first use (``cache=True``).
"""

from __future__ import annotations

import numpy as np

from simulators.bango import rules as R
from simulators.core.jit import jit_once

N_V = R.N_VALUES


def _solve_rows(start, known_take, known_blacks, known_keep, n_known_coloured, holds, fit,
                unseen, unseen_black, stock_left, opponents, dead_cost, black_cost):
    """Per row: (value of stopping now, value of drawing on), by DP over value sets."""
    n_rows = start.shape[0]
    stop_now = np.zeros(n_rows)
    draw_on = np.zeros(n_rows)
    full = (1 << N_V) - 1
    value = np.zeros(1 << N_V)
    for i in range(n_rows):
        s0 = start[i]
        total0 = 0
        for v in range(N_V):
            total0 += unseen[i, v]
        # expected utilities of one future card of value v
        take_v = np.zeros(N_V)
        keep_v = np.zeros(N_V)
        black_v = np.zeros(N_V)
        col_v = np.zeros(N_V)
        for v in range(N_V):
            if unseen[i, v] > 0:
                pb = unseen_black[i, v] / unseen[i, v]
            else:
                pb = 0.0
            pc = 1.0 - pb
            col_v[v] = pc
            black_v[v] = pb
            if fit[i, v]:
                take_v[v] = pc
                keep_v[v] = pc
            else:
                keep_v[v] = -dead_cost * pc
        # visit supersets of s0 from the largest down
        free = full & ~s0
        sub = free
        while True:
            m = s0 | sub
            drawn = 0
            take = known_take[i]
            blacks = float(known_blacks[i])
            keep = known_keep[i]
            coloured = float(n_known_coloured[i])
            for v in range(N_V):
                if (sub >> v) & 1:
                    drawn += 1
                    take += take_v[v]
                    blacks += black_v[v]
                    keep += keep_v[v]
                    coloured += col_v[v]
            stop = take if take > 0.0 else -dead_cost
            if m == 0:
                stop = -1e9  # nothing to take yet: he must draw
            left = total0 - drawn
            if left <= 0 or drawn >= stock_left[i]:
                value[m] = stop
            else:
                go = 0.0
                if coloured > 0:
                    kept_share = max(0.0, coloured - opponents) / coloured
                else:
                    kept_share = 0.0
                for v in range(N_V):
                    if (m >> v) & 1:
                        count = unseen[i, v] - ((sub >> v) & 1)
                        if count <= 0:
                            continue
                        pb = unseen_black[i, v] / unseen[i, v] if unseen[i, v] > 0 else 0.0
                        own = (1.0 - pb) * (1.0 if fit[i, v] else -dead_cost) - pb * black_cost
                        boom = own - black_cost * blacks + kept_share * keep
                        if holds[i, v] and stop > boom:
                            boom = stop
                        go += count * boom
                    else:
                        count = unseen[i, v]
                        if count > 0:
                            go += count * value[m | (1 << v)]
                go /= left
                value[m] = stop if stop > go else go
                if sub == 0:
                    draw_on[i] = go
            if sub == 0:
                stop_now[i] = stop
                break
            sub = (sub - 1) & free
    return stop_now, draw_on


def _kernel():
    """The compiled ``_solve_rows`` (jitted on first use, see core.jit)."""
    jit_once(globals(), ("_solve_rows",))
    return _solve_rows


def warm_up() -> float:
    """Compile (or load from numba's cache) the kernel; seconds spent."""
    import time

    start = time.perf_counter()
    z = np.zeros(1, dtype=np.int64)
    _kernel()(z, np.zeros(1), z, np.zeros(1), z, np.zeros((1, N_V), np.bool_),
              np.zeros((1, N_V), np.bool_), np.ones((1, N_V), np.int64),
              np.zeros((1, N_V), np.int64), np.ones(1, np.int64), 1, 0.5, 1.0)
    return time.perf_counter() - start


def stopping_values(obs, dead_cost: float = 0.5, black_cost: float = 1.0
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(value of stopping now, value of drawing on) for each row of a draw decision."""
    from simulators.bango.observations import centre_mask, per_value
    from simulators.bango.policies import FIT_BIT, fit_values

    n_rows = len(obs.seat)
    rows = np.arange(n_rows)
    fit_mask = fit_values(obs)
    cen = obs.centre.astype(np.int64)
    present = cen >= 0
    black = present & (R.KIND_COLOUR[np.maximum(cen, 0)] == R.BLACK)
    fitting = (FIT_BIT[cen + 1] & fit_mask[:, None]) != 0
    coloured = present & ~black
    known_take = fitting.sum(axis=1).astype(np.float64)
    known_keep = np.where(fitting, 1.0, np.where(coloured, -dead_cost, 0.0)).sum(axis=1)
    seen = obs.hand.astype(np.int16) + obs.public
    unseen_kind = R.KIND_COPIES[None, :] - seen
    np.subtract.at(unseen_kind, (np.repeat(rows, cen.shape[1])[present.ravel()],
                                 cen.ravel()[present.ravel()]), 1)
    unseen = per_value(unseen_kind).astype(np.int64)
    unseen_black = unseen_kind[:, R.N_COLOURED_KINDS:].astype(np.int64)
    held = per_value(obs.hand) > 0
    fit = ((fit_mask[:, None] >> np.arange(N_V)) & 1).astype(bool)
    start = centre_mask(obs.centre).astype(np.int64)
    return _kernel()(start, known_take, black.sum(axis=1).astype(np.int64), known_keep,
                     coloured.sum(axis=1).astype(np.int64), held, fit, unseen, unseen_black,
                     obs.stock_left.astype(np.int64), int(obs.n_players - 1), float(dead_cost),
                     float(black_cost))
