"""The exact baseline of Truc: equilibrium of one deal by CFR+, and exploitability.

Modules: ``tree`` (a game as a public tree over private hands), ``cfr``
(CFR+, best response, exploitability; numba), ``deal`` (one Truc deal as
such a tree), ``kuhn`` and ``leduc`` (known-answer games for the same
solver), ``solutions`` (solved deals cached on disk, hand values),
``policy_eval`` (any policy as a strategy; its exploitability), ``lookup``
(the compiled walk used by :class:`simulators.truc.equilibrium.EquilibriumPolicy`).
See ``docs/truc_solver.md``. Importing this package does not import numba.
"""

from __future__ import annotations

