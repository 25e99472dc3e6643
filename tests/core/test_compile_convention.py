"""The one compile convention (docs/adding_a_game.md, "When numba compiles").

No module of ``simulators`` imports numba when it is imported: compiled
kernels are plain functions that ``simulators.core.jit.jit_once`` compiles
the first time they are needed. So importing any module, or loading every
game through the registry, leaves numba unimported. Checked in a fresh
interpreter (this test process has long imported numba).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]

PROBE = r"""
import importlib, pkgutil, sys
import simulators
from simulators.core.game import game_names, get_game
from simulators.core.rl import MISSING

names = sorted(m.name for m in pkgutil.walk_packages(simulators.__path__, "simulators.")
               if not m.name.endswith("__main__"))
without_extra = []
for name in names:
    try:
        importlib.import_module(name)
    except ImportError as error:  # an optional extra's module says so, naming the extra
        if str(error) != MISSING:
            raise
        without_extra.append(name)
    if "numba" in sys.modules:
        print("IMPORTS NUMBA", name)
        raise SystemExit(1)
for game in game_names():
    get_game(game)
print(len(names), "modules,", len(game_names()), "games,", "numba" in sys.modules,
      ",".join(without_extra) or "-")
"""


def test_no_module_imports_numba_at_import_time():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    modules, _, games, _, numba_loaded, without_extra = done.stdout.split()
    assert int(modules) > 60 and int(games) == 5
    assert numba_loaded == "False"
    # only the [rl] extra's adapters may be missing, and only where the extra is
    skipped = set() if without_extra == "-" else set(without_extra.split(","))
    assert all(name.startswith("simulators.core.rl.") for name in skipped), skipped
    if importlib.util.find_spec("pettingzoo") and importlib.util.find_spec("pyspiel"):
        assert not skipped


def test_first_use_compiles_and_imports_numba():
    code = ("import sys\nfrom simulators.core import tricks\nassert 'numba' not in sys.modules\n"
            "tricks.warm_up()\nprint('numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)
    assert done.stdout.strip() == "True", done.stderr[-2000:]


def test_a_kernel_imported_already_compiled_is_kept():
    """policy_eval imports lookup's _entry: whichever module compiles first, the other
    keeps the twin (it used to raise when lookup compiled first)."""
    probe = ("from simulators.truc.solver import lookup\n"
             "lookup.kernels()\n"
             "from simulators.truc.solver import policy_eval\n"
             "from simulators.core.jit import jit_once\n"
             "jit_once(vars(policy_eval), ('_entry', '_history', '_scatter'))\n"
             "assert policy_eval._entry is lookup._entry\n"
             "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


COLD_PROBE = r"""
import io, sys
from simulators.core import jit

class Terminal(io.StringIO):
    def isatty(self):
        return True

def announced(stream):
    sys.stderr = stream
    jit._COMPILED.clear()
    import cold_module
    namespace = vars(cold_module)
    namespace["kernel"] = getattr(namespace["kernel"], "py_func", namespace["kernel"])
    jit.jit_once(namespace, ("kernel",))
    assert namespace["kernel"](1) == 2  # compiles (or loads), and writes numba's cache
    sys.stderr = sys.__stderr__
    return stream.getvalue()

import json
print(json.dumps([announced(Terminal()), announced(Terminal()), announced(io.StringIO())]))
"""


def test_a_cold_compile_is_announced_on_a_terminal(tmp_path):
    """Work before the first unit says what it is (issue 34): a kernel with nothing in numba's
    cache is announced on a terminal; once cached, or off a terminal, nothing is said. In a
    fresh interpreter, so that numba reads the empty cache directory given to it."""
    (tmp_path / "cold_module.py").write_text("def kernel(x):\n    return x + 1\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", COLD_PROBE], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    cold = ("tapisvert: compiling cold_module's kernels (once per install: later runs load "
            "them from numba's cache)...\n")
    assert json.loads(done.stdout) == [cold, "", ""]
