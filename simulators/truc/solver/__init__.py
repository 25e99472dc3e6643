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


def exploitability_table(policies: dict, scores=(0, 0), noise_levels: int = 20):
    """One row per named policy: self-play value, losses per seat and exploitability.

    ``policies`` maps a label to a policy object. Solves (or loads) the deal
    at ``scores`` first; points per deal. Returns a pandas DataFrame.
    """
    import dataclasses

    import pandas as pd

    from simulators.truc.solver.deal import DealSpec
    from simulators.truc.solver.policy_eval import policy_exploitability
    from simulators.truc.solver.solutions import solved_deal

    solved = solved_deal(DealSpec(scores=tuple(scores)))
    rows = []
    for label, policy in policies.items():
        row = dataclasses.asdict(policy_exploitability(solved, policy, noise_levels))
        rows.append({"label": label, **row, "equilibrium_value": solved.value,
                     "equilibrium_exploitability": solved.exploitability})
    return pd.DataFrame(rows)
