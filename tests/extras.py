"""Tests that need an optional extra (``pip install -e ".[rl]"``…) skip without it.

The README's own commands install ``.[dev]`` only, so such a test must skip there with a
one-line reason naming the extra; it carries the ``extras`` marker, which the README's second
step (and CI's) runs once the extras are installed: ``python -m pytest -m extras``. With
``TAPISVERT_EXTRAS_INSTALLED=1`` in the environment (that second step) a missing module is a
failure, not a skip, so a broken install cannot pass as skipped tests.
"""

from __future__ import annotations

import importlib
import os

import pytest

INSTALLED_VARIABLE = "TAPISVERT_EXTRAS_INSTALLED"


def require_extra(extra: str, *modules: str) -> None:
    """Skip the calling test unless every module of ``modules`` imports."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as error:
            if os.environ.get(INSTALLED_VARIABLE):
                raise
            pytest.skip(f"needs the optional extra [{extra}] "
                        f"(pip install -e \".[{extra}]\"): {type(error).__name__}: {error}")


RL_MODULES = ("pettingzoo", "gymnasium", "pyspiel")


def require_rl() -> None:
    """Skip unless the ``[rl]`` extra (PettingZoo, Gymnasium, OpenSpiel) is installed."""
    require_extra("rl", *RL_MODULES)
