"""Shared fixtures: policies of every kind, small configs."""

from __future__ import annotations

import pytest

from simulators.bianco_mano import HeuristicPolicy, RandomPolicy

BM_POLICIES = {
    "random": RandomPolicy(),
    "heuristic": HeuristicPolicy(),
}


@pytest.fixture(params=sorted(BM_POLICIES))
def bm_policy(request):
    """Each Bianco Mano policy in turn."""
    return BM_POLICIES[request.param]
