"""Game-agnostic CFR+: two-player zero-sum games as public trees over private types.

Modules: ``tree`` (:class:`~simulators.core.cfr.tree.PublicTree`, the solver's
input, and ``build_from_lists`` for small games), ``cfrplus`` (CFR+, exact best
response, exploitability; numba kernels compiled on first use through
:func:`simulators.core.jit.jit_once`), ``kuhn`` and ``leduc`` (Kuhn and Leduc
poker: the solver's known-answer games). A game builds its own tree (Truc's:
``simulators/truc/solver/deal.py`` and ``round.py``). Importing this package
does not import numba.
"""

from __future__ import annotations
