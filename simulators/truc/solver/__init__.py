"""Truc solved as it is played: CFR+ on the deal with the card call, over the scores.

The game-agnostic solver (the public tree over private hands, CFR+, best
response, exploitability, and the Kuhn and Leduc known-answer games) lives in
:mod:`simulators.core.cfr`. Modules here: ``deal`` (one Truc deal's card
play as such a tree), ``round`` (the card call in front of it, TR-2, and the
exact five-hand measure), ``manche`` (states solved for points or the chance
of the manche; the equity table), ``command`` (``tapisvert solve truc``),
``solutions`` (solved deals and states cached on disk),
``policy_eval`` (any policy as a strategy; its exploitability), ``lookup``
(the compiled walk used by :class:`simulators.truc.equilibrium.EquilibriumPolicy`).
See ``docs/truc_solver.md``. Importing this package does not import numba.
"""

from __future__ import annotations

