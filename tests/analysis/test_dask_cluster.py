"""The Dask cluster recipe of docs/cli.md, run on this machine: a scheduler, two workers, the sweep.

The commands are read from docs/cli.md's ``sh`` block under "Running a study
on a Dask cluster", the scheduler's address put in place of ``SCHEDULER`` and
the sizes scaled down; the sweep must give the table of a local run.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

GUIDE = Path(__file__).parents[2] / "docs" / "cli.md"


def recipe() -> list[str]:
    section = GUIDE.read_text().split("## Running a study on a Dask cluster", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.S).group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow  # 15 s of real scheduler and worker processes; the Dask backend itself is
# checked in the default suite on a LocalCluster (test_studies_identical_on_a_dask_local_cluster)
def test_the_readme_recipe_runs_a_sweep_on_a_local_cluster(tmp_path):
    pytest.importorskip("distributed")
    scheduler_line, worker_line, sweep_line = recipe()
    assert scheduler_line.startswith("dask scheduler") and worker_line.startswith("dask worker")
    assert sweep_line.startswith("tapisvert sweep") and "--backend dask" in sweep_line
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = shutil.which("dask", path=os.pathsep.join([str(Path(sys.executable).parent),
                                                       os.environ.get("PATH", "")]))
    if dask is None:
        pytest.skip("the dask command is not installed")
    scheduler_args = shlex.split(scheduler_line)[2:]
    scheduler_args[scheduler_args.index("--port") + 1] = str(port)
    worker_args = [address if a == "tcp://SCHEDULER:8786" else a
                   for a in shlex.split(worker_line)[2:]]
    logs = [open(tmp_path / name, "w") for name in ("scheduler.log", "worker.log")]  # noqa: SIM115
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", *scheduler_args],
                              stdout=logs[0], stderr=logs[0])]
    try:
        deadline = time.monotonic() + 120
        while True:  # the scheduler is up when its port answers
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert procs[0].poll() is None, (tmp_path / "scheduler.log").read_text()
                assert time.monotonic() < deadline, "the scheduler did not start"
                time.sleep(0.2)
        procs.append(subprocess.Popen([dask, "worker", *worker_args], stdout=logs[1],
                                      stderr=logs[1]))
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        words = [address if w == "tcp://SCHEDULER:8786" else w for w in shlex.split(sweep_line)]
        env = {**os.environ, "TAPISVERT_SCALE": "0.002"}  # 10^7 deals -> 20,000
        on_cluster = subprocess.run([sys.executable, "-m", "analysis.cli", *words[1:], "--json",
                                     "--no-progress"], cwd=tmp_path, env=env,
                                    capture_output=True, text=True, timeout=900)
        assert on_cluster.returncode == 0, on_cluster.stderr
        out_dir = tmp_path / words[words.index("--out-dir") + 1]
        manifest = json.loads((out_dir / "manifest.json").read_text())
        assert manifest["complete"] and manifest["sessions"][-1]["backend"] == "dask"
        cluster_only = ("--backend", "dask", "--scheduler", address)
        local_words = [w for w in words[1:] if w not in cluster_only]
        local_words = local_words[:local_words.index("--out-dir")]
        local = subprocess.run([sys.executable, "-m", "analysis.cli", *local_words, "--json",
                                "--no-progress"], cwd=tmp_path, env=env, capture_output=True,
                               text=True, timeout=900)
        assert local.returncode == 0, local.stderr
        assert json.loads(on_cluster.stdout)["rows"] == json.loads(local.stdout)["rows"]
        assert json.loads(local.stdout)["rows"][0]["n"] == 20_000
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in reversed(procs):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        for log in logs:
            log.close()
