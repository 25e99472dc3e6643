"""Compile a module's kernels with numba on first use, once per process.

The project's one compile convention (``docs/adding_a_game.md``, checked by
``tests/core/test_compile_convention.py``): **no module of ``simulators``
imports numba when it is imported.** A compiled kernel is a plain Python
function written in numba's subset; the module that holds it names its
kernels and calls :func:`jit_once` the first time one is needed, which
replaces each by its compiled twin (``cache=True``: compiled once per
install, then loaded from disk). Importing a game, or ``get_game(name)``,
therefore costs no numba import and no compilation.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable, MutableMapping

_COMPILED: set[str] = set()
_LOCK = threading.Lock()


def jit_once(namespace: MutableMapping, names: Iterable[str], inline: Iterable[str] = ()) -> None:
    """Replace ``namespace[name]`` for each of ``names`` by its numba ``njit`` twin, once.

    ``namespace`` is a module's ``globals()`` (or ``vars(module)``): the
    kernels call each other through these globals, so the compiled twins
    find each other. ``inline`` names small helpers compiled with
    ``inline="always"`` (no call, no reference counting per use), e.g. the
    scalar bit helpers of :mod:`simulators.core.bits` a kernel module imports.
    Thread-safe; later calls return at once.
    """
    key = namespace["__name__"]
    if key in _COMPILED:
        return
    with _LOCK:
        if key in _COMPILED:
            return
        import numba

        for name in inline:
            if not hasattr(namespace[name], "py_func"):
                namespace[name] = numba.njit(cache=True, nogil=True,
                                             inline="always")(namespace[name])
        for name in names:
            # a kernel imported from a module whose own jit_once ran first is already its
            # compiled twin: keep it (which module compiles first depends on use order)
            if not hasattr(namespace[name], "py_func"):
                namespace[name] = numba.njit(cache=True, nogil=True)(namespace[name])
        if not all(_on_disk(namespace[name]) for name in names):
            _announce(f"compiling {key}'s kernels (once per install: later runs load them "
                      "from numba's cache)...")
        _COMPILED.add(key)


def _on_disk(kernel) -> bool:
    """Whether numba's on-disk cache holds an index for ``kernel`` (True when unknown: numba's
    cache layout is its own, and a wrong guess must never cost more than a missing line)."""
    try:
        return os.path.exists(kernel._cache._cache_file._index_path)
    except AttributeError:
        return True


def _announce(message: str) -> None:
    """Say on a terminal what happens before the first unit (a cold compile takes seconds
    to a quarter of a minute); silent when stderr is a file or a pipe, as progress bars are."""
    stream = sys.stderr
    if stream is not None and stream.isatty():
        print(f"tapisvert: {message}", file=stream, flush=True)
