"""Every shell command of the README, run verbatim in a fresh temporary directory.

The README says that ``TAPISVERT_SCALE`` multiplies every size; the commands
run with ``TAPISVERT_SCALE=0.002`` so the whole set takes seconds, not hours.
Each ``tapisvert`` line runs through :func:`analysis.cli.main` in this process
(tests/cli_run.py: the same code as the entry point, without a new interpreter
per line); the slow conformance line runs as the shell would.
Commands that are not ``tapisvert`` itself are listed in ``NOT_RUN_HERE``
with the reason (and where they are exercised instead).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.cli_run import run_cli

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
# the README is a guide; the full command-line reference and the long recipes live in docs/,
# and their commands are run here the same way
DOCUMENTS = (README, ROOT / "docs" / "cli.md", ROOT / "docs" / "fidelity.md",
             ROOT / "docs" / "benchmarks.md")
SCALE = "0.002"

NOT_RUN_HERE = {
    "pip install": "installs the project (the suite runs on that install); the command after "
                   "&& is run here",
    "python -m pytest": "the test suite itself",
    "python bench/harness.py": "a benchmark that rewrites docs/performance.md; its --quick "
                               "smoke test runs in the suite",
    "python -m simulators.core.conformance": "large replays: the Bianco Mano line runs in the "
                                             "slow test below, the command's own tests in "
                                             "tests/core/test_conformance_cli.py",
    "python -m simulators.truc.solver": "solves deals (minutes): the slow tests of "
                                        "tests/truc/test_solver.py",
    "python bench/": "benchmarks: they print figures; bench/harness.py --quick runs in the suite",
}


def shell_lines() -> list[str]:
    """Every command line of the documents' ``bash`` blocks (comments kept: bash drops them)."""
    lines = []
    text = "\n".join(document.read_text() for document in DOCUMENTS)
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        lines += [line.strip() for line in block.splitlines() if line.strip()
                  and not line.strip().startswith("#")]
    return lines


# tapisvert commands another test runs as written (a smaller --scale), so not again here
RUN_ELSEWHERE = {
    "tapisvert report all --n-jobs 2": "tests/analysis/test_report_defects.py builds every "
                                       "report with it and reads each for defects",
}


def tapisvert_commands(*, all_of_them: bool = False) -> list[str]:
    """The tapisvert commands: whole lines, or the part after ``&&`` of an install line;
    without those of ``RUN_ELSEWHERE`` unless ``all_of_them``."""
    found = []
    for line in shell_lines():
        if line.startswith("tapisvert "):
            found.append(line)
        elif "&& tapisvert " in line:
            found.append(line[line.index("tapisvert "):])
    found = list(dict.fromkeys(found))  # a command shown in two documents runs once
    return found if all_of_them else [c for c in found if _command(c) not in RUN_ELSEWHERE]


def _command(line: str) -> str:
    """A command line without its comment and spacing."""
    return " ".join(line.split("#")[0].split())


def run_here(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TAPISVERT_SCALE": SCALE}
    env.pop("TAPISVERT_DEBUG", None)
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)


def test_every_readme_command_is_run_or_accounted_for():
    guide = (ROOT / "docs" / "cli.md").read_text()
    assert "TAPISVERT_SCALE" in guide  # the CLI guide says how the sizes are made smaller
    commands = tapisvert_commands(all_of_them=True)
    assert len(commands) >= 15
    from test_report_defects import README_REPORT_ALL
    shown = {_command(c) for c in commands}
    for command in RUN_ELSEWHERE:  # still in the documents, and run as written elsewhere
        assert command in shown, f"{command} is no longer in the documents"
    assert " ".join(README_REPORT_ALL) in RUN_ELSEWHERE
    for line in shell_lines():
        assert line.startswith("tapisvert ") or any(
            line.startswith(prefix) for prefix in NOT_RUN_HERE), f"README command not run: {line}"


def test_readme_is_a_guide_whose_links_resolve():
    """At most 300 lines (issue 34: logs and long tables live in docs/), and every relative
    link of the README and of the documents it hands over to points at a file that exists."""
    assert len(README.read_text().splitlines()) <= 300
    for document in DOCUMENTS:
        for target in re.findall(r"\]\(([^)#]+)\)", document.read_text()):
            if "://" not in target:
                assert (document.parent / target).exists(), f"{document.name}: {target}"


@pytest.mark.parametrize("command", tapisvert_commands())
def test_readme_command(command, tmp_path):
    done = run_cli(command, tmp_path, env={"TAPISVERT_SCALE": SCALE, "TAPISVERT_DEBUG": None})
    assert done.returncode == 0, f"{command}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr
    words = command.split()
    if words[1] in ("simulate", "compare", "sweep"):
        assert f"TAPISVERT_SCALE={float(SCALE):g}" in done.stdout
    if "--out" in words:
        assert (tmp_path / words[words.index("--out") + 1]).stat().st_size > 0
    if "--out-dir" in words:
        assert (tmp_path / words[words.index("--out-dir") + 1] / "manifest.json").exists()
    if words[1] == "report":
        assert list((tmp_path / "reports").glob("*.html"))


@pytest.mark.slow
def test_readme_crosscheck_command(tmp_path):
    for line in shell_lines():
        if line.startswith("python -m simulators.core.conformance bianco-mano"):
            done = run_here(line, tmp_path)
            assert done.returncode == 0, done.stderr[-3000:]
