"""Compile a module's kernels with numba on first use, once per process.

Modules that hold numba kernels keep them as plain Python functions, so
importing a game does not import numba, and replace them by their compiled
twins (``cache=True``: compiled once per install, then loaded from disk)
the first time a kernel is needed. This is that replacement, shared.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, MutableMapping

_COMPILED: set[str] = set()
_LOCK = threading.Lock()


def jit_once(namespace: MutableMapping, names: Iterable[str]) -> None:
    """Replace ``namespace[name]`` for each of ``names`` by its numba ``njit`` twin, once.

    ``namespace`` is a module's ``globals()`` (or ``vars(module)``): the
    kernels call each other through these globals, so the compiled twins
    find each other. Thread-safe; later calls return at once.
    """
    key = namespace["__name__"]
    if key in _COMPILED:
        return
    with _LOCK:
        if key in _COMPILED:
            return
        import numba

        for name in names:
            namespace[name] = numba.njit(cache=True, nogil=True)(namespace[name])
        _COMPILED.add(key)
