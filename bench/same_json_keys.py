"""Every ``--json`` document of the documented commands has the same keys as in another
checkout (users' scripts read them).

    git worktree add /tmp/base aec6498
    python bench/same_json_keys.py --base /tmp/base

Takes the ``tapisvert`` commands of the README's and the docs' bash blocks in both
checkouts (the union), adds ``--json`` where a command lacks it, runs each with both
checkouts' code at ``TAPISVERT_SCALE=0.01`` in a fresh directory, and compares the set of
key paths of the two documents (a list's items merged: ``rows[].mean``). A command that
prints no JSON in either checkout (``report``, ``games``) is listed as skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ("README.md", "docs/cli.md", "docs/fidelity.md", "docs/benchmarks.md")
RUN = "import sys; sys.path.insert(0, sys.argv[1]); from analysis.cli import main; " \
      "sys.exit(main(sys.argv[2:]))"


def commands(checkout: Path) -> list[str]:
    found = []
    for name in DOCUMENTS:
        path = checkout / name
        if not path.exists():
            continue
        for block in re.findall(r"```bash\n(.*?)```", path.read_text(), flags=re.S):
            for line in block.splitlines():
                line = line.split(" #")[0].strip()
                if "tapisvert " in line and not line.startswith("#"):
                    found.append(line[line.index("tapisvert "):])
    return found


def key_paths(value, prefix: str = "") -> set[str]:
    if isinstance(value, dict):
        out = {f"{prefix}{k}" for k in value}
        for k, v in value.items():
            out |= key_paths(v, f"{prefix}{k}.")
        return out
    if isinstance(value, list):
        out = set()
        for item in value:
            out |= key_paths(item, prefix.rstrip(".") + "[].")
        return out
    return set()


def run(checkout: Path, argv: list[str]) -> dict | None:
    with tempfile.TemporaryDirectory() as cwd:
        env = {**os.environ, "TAPISVERT_SCALE": "0.01"}
        done = subprocess.run([sys.executable, "-c", RUN, str(checkout), *argv], cwd=cwd,
                              env=env, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        return None
    try:
        return json.loads(done.stdout)
    except ValueError:
        return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True)
    args = parser.parse_args(argv)
    lines = list(dict.fromkeys(commands(ROOT) + commands(args.base)))
    same = differ = skipped = 0
    for line in lines:
        words = shlex.split(line)[1:]
        if "--json" not in words:
            words.append("--json")
        here, there = run(ROOT, words), run(args.base, words)
        if here is None and there is None:
            skipped += 1
            print(f"skipped (no JSON in either): {line}")
            continue
        if here is None or there is None:
            differ += 1
            print(f"DIFF only {'the base' if here is None else 'this checkout'} prints JSON: "
                  f"{line}")
            continue
        a, b = key_paths(here), key_paths(there)
        if a == b:
            same += 1
        else:
            differ += 1
            print(f"DIFF {line}\n  added: {sorted(a - b)}\n  removed: {sorted(b - a)}")
    print(f"{len(lines)} documented commands: {same} with the same JSON keys, {differ} "
          f"different, {skipped} without JSON (against {args.base})")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
