"""Shared fixtures: policies of every kind, small configs."""

from __future__ import annotations

import pytest

from simulators.bianco_mano import HeuristicPolicy, RandomPolicy

BM_POLICIES = {
    "random": RandomPolicy(),
    "heuristic": HeuristicPolicy(),
}


@pytest.fixture(scope="session")
def dask_scheduler():
    """The address of a two-process Dask ``LocalCluster``, started once per test process
    (each start costs seconds) and shared by every test that runs a study on Dask."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=":0", processes=True) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(params=sorted(BM_POLICIES))
def bm_policy(request):
    """Each Bianco Mano policy in turn."""
    return BM_POLICIES[request.param]


def pytest_sessionstart(session):
    """Before pytest-xdist starts its workers (``-n``), compile the numba kernels once, in
    two processes side by side (``tests/compile_kernels.py``): a fresh install otherwise
    compiles each in every worker. The seconds it took are printed."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    config = session.config
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    # one BLAS thread per worker (the workers inherit this environment): with a worker per
    # core, OpenBLAS's own threads would spin against the other worker's (joblib's loky
    # workers already get cores / n_jobs threads each)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    began = time.perf_counter()
    script = Path(__file__).with_name("compile_kernels.py")
    runs = [subprocess.Popen([sys.executable, str(script), str(k)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for k in (0, 1)]
    for run in runs:
        out, err = run.communicate()
        if run.returncode:  # the tests that use the kernel will say what is wrong
            print(f"tests/compile_kernels.py failed: {err.strip().splitlines()[-1:]}")
    print(f"numba kernels compiled or loaded in {time.perf_counter() - began:.1f} s, before "
          "the workers start (tests/compile_kernels.py)")
