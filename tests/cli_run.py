"""The ``tapisvert`` command run in this process, through :func:`analysis.cli.main`.

A subprocess pays the interpreter, the imports and numba's cache loads again (about 1.5 s,
more on a busy machine); ``main(argv)`` is the same code the entry point calls. So the suite
runs its command lines here, and keeps a handful of real subprocesses for what only a process
shows: the installed entry point, exit codes seen by a shell, ``kill -9``.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from analysis.cli import main

OWN_PACKAGES = ("analysis", "simulators", "tests", "bench")


@contextlib.contextmanager
def _environment(env: Mapping[str, str | None]):
    """``os.environ`` with ``env`` set (a None value removes the variable), then restored."""
    saved = {name: os.environ.get(name) for name in env}
    try:
        for name, value in env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _forget_modules_under(folder: Path, before: set[str]) -> None:
    """Drop modules a command imported from ``folder`` (a user's ``module:Class``), so that
    the next command, in another folder, imports its own ``module`` afresh."""
    installed = Path(sys.prefix).resolve()  # a virtualenv may live in the folder: keep it
    for name in set(sys.modules) - before:
        if name.partition(".")[0] in OWN_PACKAGES:  # a command run from the project's root
            continue  # imports the project: dropped, its classes would lose their globals
        origin = getattr(sys.modules[name], "__file__", None) or ""
        if origin and Path(origin).resolve().is_relative_to(folder) \
                and not Path(origin).resolve().is_relative_to(installed):
            del sys.modules[name]


def run_cli(command: str | Sequence[str], cwd: str | Path | None = None,
            env: Mapping[str, str | None] | None = None) -> subprocess.CompletedProcess:
    """``tapisvert ARGS`` as :func:`analysis.cli.main` in this process, in ``cwd``, with the
    environment variables of ``env`` set for the call; stdout and stderr captured as a
    subprocess's would be. ``command`` is an argument list, or a shell line (``tapisvert``
    first, ``#`` comments dropped)."""
    argv = shlex.split(command, comments=True) if isinstance(command, str) else list(command)
    if argv and argv[0] == "tapisvert":
        argv = argv[1:]
    folder = Path(cwd or os.getcwd()).resolve()
    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    path, modules = list(sys.path), set(sys.modules)
    os.chdir(folder)
    try:
        with _environment(env or {}), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            status = main(argv)
    finally:
        os.chdir(here)
        sys.path[:] = path
        _forget_modules_under(folder, modules)
    return subprocess.CompletedProcess(argv, status, out.getvalue(), err.getvalue())
