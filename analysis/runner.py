"""Run an experiment in chunks, in parallel, streaming results to disk; resume after a crash.

Layout of a run directory::

    manifest.json             experiment, seed entropy, chunking, version, git commit, timings
    deals/part-000000.parquet one file per finished chunk and table (unit ids k*chunk_size…)
    games/part-000000.parquet (whole-game runs only)

Chunk ``k`` plays units ``k * chunk_size`` up to the next chunk. Every unit
draws its random numbers from its own ``SeedSequence`` child (see
``simulators.core.rng``), so the tables do not depend on the chunk size, the
order chunks finish in, or ``n_jobs``. A chunk's files appear by atomic
rename only once complete; a run killed at any moment and started again
with the same command keeps the finished chunks and plays only the others,
so the final table is identical to an uninterrupted run. Workers return
their tables to this process, which writes them: the same code runs on a
local process pool (joblib's ``loky``) or on a Dask cluster
(``backend="dask"``), and memory stays bounded by a few chunks in flight.

Every study runs on this one executor. ``simulate`` keeps the tables
(:func:`run`, :func:`run_until`); ``compare``, ``sweep``, ``odds`` and
``solve`` are a :class:`Study` whose workers reduce each chunk to a few
additive sums (counts, sums, sums of squares, cross-products, cluster
totals), written as ``sums/part-*.parquet`` (:func:`map_chunks`), and may
keep a per-unit table beside them (``solve``'s value of each deal,
``Study.tables``). Both kinds share the
manifest, the resume, the backends and the sequential stopping rule.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
from joblib import Parallel, delayed, parallel_config

from analysis.experiment import Experiment
from simulators.core.files import atomic_path, temporary_beside, write_atomically
from simulators.core.rng import root_entropy

MANIFEST = "manifest.json"
SUMS = "sums"  # a study's per-chunk sums: one table of (key, value) rows per chunk
BACKENDS = ("loky", "threading", "dask")
# Dask's own default connect timeout: a loaded machine or a busy scheduler can take seconds
# to answer, and an unreachable address is then reported after this long
DASK_CONNECT_TIMEOUT = "30s"


@dataclass(frozen=True)
class RunResult:
    """A run directory and its manifest; tables are read lazily from the parts."""

    path: Path
    manifest: dict[str, Any]
    upto: int | None = None  # only chunks below this (a sequential checkpoint), None: all

    @property
    def experiment(self) -> Experiment:
        """The experiment this run played."""
        return Experiment.from_dict(self.manifest["experiment"])

    def parts(self, table: str = "deals") -> list[Path]:
        """Finished part files of one table, in chunk order."""
        parts = sorted((self.path / table).glob("part-*.parquet"))
        if self.upto is None:
            return parts
        return [p for p in parts if int(p.stem.split("-")[1]) < self.upto]

    def scan(self, table: str = "deals") -> pl.LazyFrame:
        """Lazy concatenation of a table's parts, in unit order."""
        parts = self.parts(table)
        if not parts:
            raise ValueError(f"run {str(self.path)!r} has no finished {table!r} chunks")
        return pl.scan_parquet(parts)

    def table(self, table: str = "deals") -> pl.DataFrame:
        """A whole table in memory."""
        return self.scan(table).collect()


def load(path: str | Path) -> RunResult:
    """Open an existing run directory."""
    path = Path(path)
    try:
        manifest = json.loads((path / MANIFEST).read_text())
    except FileNotFoundError:
        raise ValueError(f"{str(path)!r} is not a tapisvert run directory "
                         f"(no {MANIFEST})") from None
    return RunResult(path, manifest)


def _write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    write_atomically(path / MANIFEST, json.dumps(manifest, indent=2) + "\n")


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent,
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tapisvert")
    except PackageNotFoundError:
        return "unknown"


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def check_n_jobs(n_jobs: Any, backend: str = "loky") -> int:
    """``n_jobs`` if usable: -1 (every core) or 1..cores; any positive count on Dask.

    More local processes than cores only adds memory and contention (and
    tens of thousands would exhaust the machine), so they are refused.
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int):
        raise ValueError(f"n_jobs must be an integer, got {n_jobs!r}")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be -1 (every core) or a positive number of workers, "
                         f"got {n_jobs}")
    cores = usable_cores()
    if backend != "dask" and n_jobs > cores:
        raise ValueError(f"n_jobs {n_jobs} is more than the {cores} core(s) this machine can "
                         f"use: give at most {cores} (or -1), or use a Dask cluster")
    return n_jobs


def workers(n_jobs: int) -> int:
    """Number of workers ``n_jobs`` means (-1: every usable core)."""
    return usable_cores() if n_jobs == -1 else max(1, n_jobs)


_WATCHED: list[int] = []


def tie_to_parent(owner: int, period: float = 0.5) -> None:
    """In a worker process started by ``owner``: exit as soon as ``owner`` is gone.

    joblib's process pool outlives a parent killed with SIGKILL (its workers
    finish their chunk and wait for more for minutes); a daemon thread that
    notices the parent has changed (the orphan is adopted by another
    process) ends the worker at once. Does nothing in the owner itself
    (threading backend) or on a remote worker (Dask).
    """
    if _WATCHED or os.getpid() == owner or os.getppid() != owner:
        return
    _WATCHED.append(owner)

    def watch() -> None:
        while os.getppid() == owner:
            time.sleep(period)
        os._exit(1)

    import threading

    threading.Thread(target=watch, name="tapisvert-parent-watch", daemon=True).start()


class Study:
    """Arms played on the same units, each chunk reduced by the worker to additive sums.

    A subclass (``analysis.compare``, ``analysis.odds``) sets ``kind``,
    ``arms`` (experiments on the same units: same game, unit, size and seed)
    and implements :meth:`reduce_chunk`; it must pickle (it is shipped to
    worker processes or a Dask cluster). :meth:`to_dict` is what a resumed
    run checks: the same study, possibly with a larger size.
    """

    kind: str = "study"
    arms: tuple[Experiment, ...] = ()
    # per-unit tables a chunk keeps beside its sums (a study that reports one row per unit):
    # :meth:`reduce_chunk` then returns ``(sums, {table: frame})``
    tables: tuple[str, ...] = ()

    @property
    def base(self) -> Experiment:
        """The first arm: game, unit, size and seed of the study."""
        return self.arms[0]

    @property
    def size(self) -> int:
        return self.base.size

    @property
    def label(self) -> str:
        """The progress bar's name: the game's."""
        return self.base.game.name

    @property
    def unit_names(self) -> tuple[str, str]:
        """What a unit is called, plural and singular (``("deals", "deal")``)."""
        return self.base.unit.name, self.base.unit.singular

    @property
    def seed(self) -> int:
        return self.base.seed

    @property
    def default_chunk(self) -> int:
        """Units per chunk: a fifth of the unit's default, as every arm plays each unit."""
        return max(1, self.base.unit.default_chunk // 5)

    def settings(self) -> dict[str, Any]:
        """Plain values that, with the arms, define the study (seats, question…)."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        """Plain form for the manifest; ``size`` is the one key a resume may change."""
        return {"kind": self.kind, "size": self.size,
                "arms": [{k: v for k, v in a.to_dict().items() if k != "size"}
                         for a in self.arms], **self.settings()}

    def reduce_chunk(self, first: int, count: int
                     ) -> dict[str, float] | tuple[dict[str, float], dict[str, pl.DataFrame]]:
        """Worker: play units ``first .. first + count - 1`` under every arm; additive sums
        (and, for a study with :attr:`tables`, those tables' rows of these units)."""
        raise NotImplementedError


class _Job:
    """What a plan runs: an experiment's tables (simulate) or a study's sums."""

    def __init__(self, work: Experiment | Study):
        self.work = work
        self.is_study = isinstance(work, Study)
        self.size, self.seed = work.size, work.seed
        self.label = work.label if self.is_study else work.game.name
        if self.is_study:
            self.unit_name, self.unit_singular = work.unit_names
            self.parts, default = (SUMS, *work.tables), work.default_chunk
        else:
            self.unit_name, self.unit_singular = work.unit.name, work.unit.singular
            self.parts, default = tuple(work.unit.tables), work.unit.default_chunk
        arms = work.arms if self.is_study else (work,)
        hints = [p.units_per_chunk for arm in arms for p in arm.policies
                 if getattr(p, "units_per_chunk", None)]
        # a slow policy asks for small chunks, so several processes share even a small run
        self.default_chunk = min([default, *hints])
        self.key = "study" if self.is_study else "experiment"

    def spec(self) -> dict[str, Any]:
        return self.work.to_dict()

    @staticmethod
    def normalized(key: str, held: dict[str, Any]) -> dict[str, Any]:
        """A manifest's spec as this version writes it (an experiment spelled with defaults)."""
        return Experiment.from_dict(held).to_dict() if key == "experiment" else held


def _reduce_chunk(study: Study, chunk: int, first: int, count: int, owner: int | None = None):
    """Worker: one chunk of a study reduced to its sums; (chunk, {"sums": frame, and the
    study's own tables}, seconds)."""
    if owner is not None:
        tie_to_parent(owner)
    start = time.perf_counter()
    sums, tables = study.reduce_chunk(first, count), {}
    if study.tables:
        sums, tables = sums
    frame = pl.DataFrame({"key": list(sums), "value": [float(v) for v in sums.values()]},
                         schema={"key": pl.String, "value": pl.Float64})
    return chunk, {SUMS: frame, **tables}, time.perf_counter() - start


def _play_chunk(experiment: Experiment, chunk: int, first: int, count: int,
                write_to: dict[str, str] | None = None, owner: int | None = None):
    """Worker: play one chunk; returns (chunk, tables or temporary files, seconds).

    With ``write_to`` (table -> part path, on a disk this worker shares with
    the parent) each table is written next to its final name and the paths
    of the temporary files are returned; the parent only renames them.
    """
    if owner is not None:
        tie_to_parent(owner)
    start = time.perf_counter()
    tables = experiment.play(first, count)
    if write_to is not None:
        written = {}
        for name, final in write_to.items():
            tmp = temporary_beside(final)
            tables[name].write_parquet(tmp)
            written[name] = str(tmp)
        tables = written
    return chunk, tables, time.perf_counter() - start


@dataclass
class _Plan:
    """Chunking of a run and which chunks are already on disk."""

    path: Path
    job: _Job
    chunk_size: int
    tables: tuple[str, ...]
    manifest: dict[str, Any]

    @property
    def n_chunks(self) -> int:
        return -(-self.job.size // self.chunk_size)

    def bounds(self, chunk: int) -> tuple[int, int]:
        first = chunk * self.chunk_size
        return first, min(self.chunk_size, self.job.size - first)

    def part(self, table: str, chunk: int) -> Path:
        return self.path / table / f"part-{chunk:06d}.parquet"

    def done(self, chunk: int) -> bool:
        return all(self.part(t, chunk).exists() for t in self.tables)

    def save(self, chunk: int, tables: dict[str, pl.DataFrame | str]) -> None:
        for name in self.tables:  # a chunk counts as done only once all its tables exist
            table = tables[name]
            if isinstance(table, str):  # written by the worker: just move it into place
                os.replace(table, self.part(name, chunk))
            else:
                with atomic_path(self.part(name, chunk)) as tmp:
                    table.write_parquet(tmp)

    def sums(self, chunk: int) -> dict[str, float]:
        """A finished study chunk's sums."""
        frame = pl.read_parquet(self.part(SUMS, chunk))
        return dict(zip(frame["key"].to_list(), frame["value"].to_list(), strict=True))


def differences(held: dict[str, Any], wanted: dict[str, Any], prefix: str = "") -> list[str]:
    """``key: run has X, this command Y`` for every leaf that differs between two experiments."""
    out = []
    for key in sorted(set(held) | set(wanted), key=str):
        a, b = held.get(key, "(absent)"), wanted.get(key, "(absent)")
        name = f"{prefix}{key}"
        if isinstance(a, dict) and isinstance(b, dict):
            out += differences(a, b, f"{name}.")
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(
                isinstance(x, dict) for x in a + b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                out += differences(x, y, f"{name}[{i}].")
        elif a != b:
            out.append(f"{name}: the run has {a!r}, this command {b!r}")
    return out


def _read_manifest(out_dir: Path, key: str = "experiment") -> dict[str, Any]:
    try:
        manifest = json.loads((out_dir / MANIFEST).read_text())
        manifest["chunk_size"]  # noqa: B018 (a key every run has)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{str(out_dir / MANIFEST)!r} is damaged ({type(exc).__name__}); "
                         "delete the directory to start again") from None
    if key not in manifest:
        other = "a study (compare, sweep, odds)" if "study" in manifest else "a simulate run"
        raise ValueError(f"{str(out_dir)!r} holds {other}; use another directory")
    return manifest


def _drop_unreadable_parts(plan: _Plan) -> int:
    """Delete part files whose Parquet footer cannot be read (a truncated copy, a full
    disk): their chunks are played again, identically. Returns how many chunks."""
    import pyarrow.parquet as pq

    bad = set()
    for chunk in range(plan.n_chunks):
        for table in plan.tables:
            part = plan.part(table, chunk)
            if part.exists():
                try:
                    pq.read_metadata(part)
                except (OSError, ValueError):
                    bad.add(chunk)
    for chunk in bad:
        for table in plan.tables:
            plan.part(table, chunk).unlink(missing_ok=True)
    return len(bad)


def _reopen(job: _Job, out_dir: Path, chunk_size: int | None) -> _Plan:
    """Reopen a run directory for the same experiment or study, possibly with a larger size."""
    tables = job.parts
    manifest = _read_manifest(out_dir, job.key)
    held = dict(manifest[job.key])
    # Compare as plain values: a command that spells out a default (--players 4) is the
    # same experiment; the size may grow (extend a finished run).
    held_norm = job.normalized(job.key, held)
    wanted = job.spec()
    diff = differences({**held_norm, "size": None}, {**wanted, "size": None})
    if diff:
        raise ValueError(f"{str(out_dir)!r} holds a different {job.key} ({'; '.join(diff)}); "
                         "use another directory or delete it")
    if chunk_size is not None and chunk_size != manifest["chunk_size"]:
        raise ValueError(f"chunk_size {chunk_size} differs from the run in {str(out_dir)!r} "
                         f"({manifest['chunk_size']}); omit it to resume")
    old_size, size, chunk = held["size"], job.size, manifest["chunk_size"]
    if size < old_size:
        raise ValueError(f"{str(out_dir)!r} holds a run of {old_size} "
                         f"{job.unit_name}; give that size to resume it, a larger one "
                         "to extend it, or use another directory")
    for table in tables:  # a killed writer may have left a temporary file
        (out_dir / table).mkdir(exist_ok=True)
        for stale in (out_dir / table).glob(".part-*.tmp"):
            stale.unlink()
    plan = _Plan(out_dir, job, chunk, tables, manifest)
    replayed = _drop_unreadable_parts(plan)
    if replayed:
        print(f"tapisvert: {replayed} damaged chunk file(s) in {str(out_dir)!r} will be played "
              "again", file=sys.stderr)
    if size > old_size:  # extend: the old last chunk was short, it is played again in full
        if old_size % chunk:
            for table in tables:
                plan.part(table, old_size // chunk).unlink(missing_ok=True)
        manifest = {**manifest, job.key: wanted, "n_chunks": plan.n_chunks,
                    "complete": False, "extended_from": old_size}
        _write_manifest(out_dir, manifest)
        plan.manifest = manifest
    return plan


def _only_a_killed_start(out_dir: Path) -> bool:
    """True when ``out_dir`` holds nothing, or only what a run killed before its
    manifest was in place leaves: its own temporary manifest file."""
    return all(p.is_file() and p.name.startswith(f".{MANIFEST}.") and p.name.endswith(".tmp")
               for p in out_dir.iterdir())


def check_run_dir(out_dir: Path) -> None:
    """Refuse a directory that could not hold a run, before any work: not a run and not
    empty, a file, or a place where nothing can be created."""
    if out_dir.exists():
        if not out_dir.is_dir():
            raise ValueError(f"{str(out_dir)!r} is a file, not a run directory")
        if not (out_dir / MANIFEST).exists() and not _only_a_killed_start(out_dir):
            raise ValueError(f"{str(out_dir)!r} exists and is not an empty directory or a run")
    check_writable(out_dir)


def check_writable(path: Path) -> None:
    """Refuse a path where nothing can be created: probe its nearest existing folder."""
    path = Path(path).absolute()
    folder = path if path.is_dir() else path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"cannot create {str(path)!r}: {str(folder)!r} is a file")
    try:
        tempfile.TemporaryDirectory(dir=folder, prefix=".tapisvert-probe-").cleanup()
    except OSError as exc:
        raise ValueError(f"cannot write in {str(folder)!r} ({exc.strerror or exc})") from None


def _prepare(job: _Job, out_dir: Path, chunk_size: int | None) -> _Plan:
    """Create or reopen a run directory; refuse one that holds another experiment or study.

    The directory is made absolute first: the workers write their parts there, and a worker
    process of a pool started earlier may sit in another working directory."""
    tables, out_dir = job.parts, Path(out_dir).absolute()
    if (out_dir / MANIFEST).exists():
        return _reopen(job, out_dir, chunk_size)
    chunk_size = job.default_chunk if chunk_size is None else chunk_size
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    check_run_dir(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob(f".{MANIFEST}.*.tmp"):
        stale.unlink()
    manifest = {
        job.key: job.spec(),
        "seed_entropy": root_entropy(job.seed),
        "chunk_size": chunk_size,
        "n_chunks": -(-job.size // chunk_size),
        "tables": list(tables),
        "package_version": _package_version(),
        "git_commit": _git_commit(),
        "python": sys.version.split()[0],
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "sessions": [],
        "complete": False,
    }
    _write_manifest(out_dir, manifest)  # first: a run killed from here on can be resumed
    for table in tables:
        (out_dir / table).mkdir(exist_ok=True)
    return _Plan(out_dir, job, chunk_size, tables, manifest)


def _execute(plan: _Plan, chunks: Iterable[int], n_jobs: int, backend: str,
             on_chunk: Callable[[int], None]) -> tuple[int, float]:
    """Play the given chunks in parallel and write each as it finishes."""
    work = plan.job.work
    local = backend != "dask"  # remote workers may not see this disk: ship the tables back

    def targets(c):
        return {t: str(plan.part(t, c)) for t in plan.tables} if local else None

    owner = os.getpid()
    if plan.job.is_study:  # a few sums per chunk: the parent writes them
        tasks = [delayed(_reduce_chunk)(work, c, *plan.bounds(c), owner) for c in chunks]
    else:
        tasks = [delayed(_play_chunk)(work, c, *plan.bounds(c), targets(c), owner)
                 for c in chunks]
    if not tasks:
        return 0, 0.0
    busy = 0.0
    with parallel_config(backend=backend, n_jobs=n_jobs):
        for chunk, tables, seconds in Parallel(return_as="generator_unordered")(tasks):
            plan.save(chunk, tables)
            busy += seconds
            on_chunk(chunk)
    return len(tasks), busy


def _progress_bar(plan: _Plan, progress: bool | None):
    """One bar over the whole run (every arm of a study plays each unit), with its ETA."""
    from tqdm.auto import tqdm

    done = sum(plan.bounds(c)[1] for c in range(plan.n_chunks) if plan.done(c))
    enabled = sys.stderr.isatty() if progress is None else progress
    # k/M only for large runs: a small costly run reads "16/400 deals", not "16.0/400"
    return tqdm(total=plan.job.size, initial=done, unit=plan.job.unit_singular,
                unit_scale=plan.job.size >= 10_000, disable=not enabled, desc=plan.job.label,
                file=sys.stderr)


def _register_loky_backend() -> str:
    """joblib's loky backend, also capping polars' thread pool in each worker.

    joblib gives every worker ``cores // n_jobs`` threads for OpenMP and BLAS
    through environment variables; polars (which writes the Parquet parts)
    reads its own, so without this two workers on two cores oversubscribe
    them (measured: 1.61x instead of 1.88x for n_jobs=2, bench/runner.py).
    """
    from joblib import register_parallel_backend
    from joblib._parallel_backends import LokyBackend

    class PolarsAwareLokyBackend(LokyBackend):
        MAX_NUM_THREADS_VARS = [*LokyBackend.MAX_NUM_THREADS_VARS, "POLARS_MAX_THREADS"]

    register_parallel_backend("tapisvert-loky", PolarsAwareLokyBackend)
    return "tapisvert-loky"


class _Backend:
    """Context for a joblib backend; for Dask, connects a client to ``scheduler``."""

    def __init__(self, backend: str, scheduler: str | None):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        self.backend, self.scheduler, self.client = backend, scheduler, None

    def __enter__(self) -> str:
        if self.backend == "loky":
            return _register_loky_backend()
        if self.backend == "dask":
            try:
                from distributed import Client, get_client
            except ImportError:
                raise ValueError("backend 'dask' needs the dask extra: "
                                 "pip install 'tapisvert[dask]'") from None
            if self.scheduler:
                _refuse_closed_port(self.scheduler)
                try:
                    self.client = Client(self.scheduler, timeout=DASK_CONNECT_TIMEOUT)
                except (OSError, TimeoutError) as exc:
                    raise ValueError(f"cannot reach the Dask scheduler at {self.scheduler!r} "
                                     f"({type(exc).__name__})") from None
            else:
                try:
                    get_client()
                except ValueError:
                    raise ValueError("backend 'dask' needs a scheduler address or a running "
                                     "distributed.Client") from None
        return self.backend

    def __exit__(self, *exc) -> None:
        if self.client is not None:
            self.client.close()


def _refuse_closed_port(scheduler: str) -> None:
    """A ``tcp://host:port`` scheduler whose port refuses connections is refused at once:
    distributed's client retries a refused port until its 30 s timeout."""
    host, sep, port = scheduler.removeprefix("tcp://").rpartition(":")
    if not scheduler.startswith("tcp://") or not sep or not port.isdigit():
        return  # another protocol, or no port: the client's own connect decides
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except ConnectionRefusedError:
        raise ValueError(f"cannot reach the Dask scheduler at {scheduler!r} (connection "
                         "refused)") from None
    except OSError:
        pass  # slow or unresolved: the client's own timeout decides


def _chunks_in_order(plan: _Plan, n_jobs: int, backend: str, scheduler: str | None,
                     progress: bool | None, stop: Callable[[int], bool] | None
                     ) -> tuple[int, float, int | None]:
    """Play every missing chunk; with ``stop``, in waves, checking ``stop(k)`` after each
    prefix of ``k`` chunks in chunk order (the same checkpoints whatever ``n_jobs`` and the
    backend) and deleting what a wave played beyond the first prefix where it holds.
    Returns (chunks played, worker seconds, stopping prefix or None)."""
    ran, busy, reached = 0, 0.0, None
    if stop is None:
        wave = plan.n_chunks
    else:
        wave = workers(n_jobs) if backend != "dask" else max(2, n_jobs)
    session = _Session(plan, n_jobs, backend)
    with _Backend(backend, scheduler) as name, _progress_bar(plan, progress) as bar:
        def finished(chunk: int) -> None:
            bar.update(plan.bounds(chunk)[1])
            session.chunk_done()

        for first in range(0, plan.n_chunks, wave):
            last = min(first + wave, plan.n_chunks)
            chunks = [c for c in range(first, last) if not plan.done(c)]
            r, b = _execute(plan, chunks, n_jobs, name, finished)
            ran, busy = ran + r, busy + b
            if stop is None:
                continue
            reached = next((k for k in range(first + 1, last + 1) if stop(k)), None)
            if reached is not None:
                break
    if reached is not None:  # forget what a larger wave played beyond the checkpoint
        for chunk in range(reached, plan.n_chunks):
            for table in plan.tables:
                plan.part(table, chunk).unlink(missing_ok=True)
    return ran, busy, reached


class _Session:
    """This session's entry in the manifest, kept up to date as chunks finish (at most once a
    second), so that a session killed with SIGKILL still counts, with the chunks it wrote."""

    def __init__(self, plan: _Plan, n_jobs: int, backend: str):
        self.plan, self.start, self.written = plan, time.perf_counter(), 0.0
        self.entry = {"started": datetime.now(UTC).isoformat(timespec="seconds"),
                      "finished": None, "chunks_run": 0, "wall_seconds": 0.0,
                      "n_jobs": n_jobs, "backend": backend}
        plan.manifest = {**plan.manifest,
                         "sessions": [*plan.manifest.get("sessions", []), self.entry]}
        self.save()

    def save(self) -> None:
        self.entry["wall_seconds"] = round(time.perf_counter() - self.start, 3)
        self.written = time.perf_counter()
        _write_manifest(self.plan.path, self.plan.manifest)

    def chunk_done(self) -> None:
        self.entry["chunks_run"] += 1
        if time.perf_counter() - self.written >= 1.0:
            self.save()


def run(experiment: Experiment, out_dir: str | Path, *, n_jobs: int = 1,
        chunk_size: int | None = None, backend: str = "loky", scheduler: str | None = None,
        progress: bool | None = None) -> RunResult:
    """Play an experiment into ``out_dir``, resuming whatever is already there.

    Parameters
    ----------
    n_jobs : worker processes (joblib semantics: -1 = all cores).
    chunk_size : units per chunk (default 50,000 deals or 5,000 games); fixed
        by the first call on a directory.
    backend : ``"loky"`` (local processes, default), ``"threading"`` or
        ``"dask"`` (``scheduler`` = a ``distributed`` scheduler address, or a
        client already running in this process).
    progress : show a progress bar (default: when stderr is a terminal).
    """
    check_n_jobs(n_jobs, backend)
    plan = _prepare(_Job(experiment), Path(out_dir), chunk_size)
    start = time.perf_counter()
    ran, busy, _ = _chunks_in_order(plan, n_jobs, backend, scheduler, progress, None)
    return _finish(plan, ran, busy, time.perf_counter() - start, n_jobs, backend)


def _finish(plan: _Plan, ran: int, busy: float, wall: float, n_jobs: int, backend: str,
            **extra) -> RunResult:
    manifest = dict(plan.manifest)
    units = sum(plan.bounds(c)[1] for c in range(plan.n_chunks) if plan.done(c))
    sessions = [dict(s) for s in manifest.get("sessions", [])]
    if not sessions or sessions[-1].get("finished") is not None:
        sessions.append({})  # the entry _Session opened is the last one, unfinished
    sessions[-1].update({"finished": datetime.now(UTC).isoformat(timespec="seconds"),
                         "chunks_run": ran, "wall_seconds": round(wall, 3),
                         "worker_seconds": round(busy, 3), "n_jobs": n_jobs,
                         "backend": backend})
    manifest["sessions"] = sessions
    manifest["units_done"] = units
    manifest["complete"] = all(plan.done(c) for c in range(plan.n_chunks))
    manifest.update(extra)
    _write_manifest(plan.path, manifest)
    return RunResult(plan.path, manifest)


def sessions_text(manifest: dict[str, Any]) -> str:
    """'in 3.2 s' for one session, 'in 9.1 s over 2 sessions (this one 3.2 s)' after a resume."""
    sessions = manifest.get("sessions", [])
    if not sessions:
        return "in 0.0 s"
    total = sum(s["wall_seconds"] for s in sessions)
    if len(sessions) == 1:
        return f"in {total:.1f} s"
    cut = sum(s.get("finished") is None for s in sessions[:-1])
    killed = f", {cut} of them interrupted" if cut else ""
    return (f"in {total:.1f} s over {len(sessions)} sessions{killed} (this one "
            f"{sessions[-1]['wall_seconds']:.1f} s)")


def run_until(experiment: Experiment, out_dir: str | Path,
              estimate: Callable[[RunResult], Any], half_width: float, *, n_jobs: int = 1,
              chunk_size: int | None = None, backend: str = "loky",
              scheduler: str | None = None, progress: bool | None = None) -> RunResult:
    """Sequential mode: play chunks in order until ``estimate`` is precise enough.

    ``experiment.size`` is the budget. The stopping rule is checked at every
    chunk boundary in chunk order — after chunk 0, after chunks 0-1, … — on
    that prefix only: ``estimate(result)`` gets a :class:`RunResult` limited to
    the prefix and must return an object with ``low`` and ``high``; the run
    stops at the first prefix where ``(high - low) / 2 <= half_width``, or
    when the budget is spent. Workers play a wave of chunks at a time, but
    the checkpoints do not depend on ``n_jobs`` (only on the chunk size), so
    the stopping point and the tables are the same for any number of
    workers; chunks played beyond the stopping point are deleted. The
    manifest records the stopping point and whether the target was reached.
    """
    if not half_width > 0:
        raise ValueError(f"half_width must be positive, got {half_width!r}")
    check_n_jobs(n_jobs, backend)
    out_dir = Path(out_dir)
    plan = _prepare(_Job(experiment), out_dir, chunk_size)

    def precise(k: int) -> bool:
        result = estimate(RunResult(out_dir, plan.manifest, upto=k))
        return (result.high - result.low) / 2 <= half_width

    start = time.perf_counter()
    ran, busy, reached = _chunks_in_order(plan, n_jobs, backend, scheduler, progress, precise)
    stop = {"stopped_after_chunks": reached, "target_half_width": half_width,
            "precision_reached": reached is not None}
    return _finish(plan, ran, busy, time.perf_counter() - start, n_jobs, backend, sequential=stop)


@dataclass(frozen=True)
class StudyResult:
    """A study's sums over its chunks (in chunk order) and its manifest."""

    path: Path | None
    manifest: dict[str, Any]
    totals: dict[str, float]
    units: int
    target_reached: bool | None  # None without a stopping rule
    tables: dict[str, pl.DataFrame] = dataclasses.field(default_factory=dict)  # Study.tables


def _concat_parts(parts: list[pl.DataFrame]) -> pl.DataFrame:
    """A table's chunk parts end to end; a part without rows adds nothing (a chunk may have
    nothing to record, and then no columns to give it: e.g. deals nobody took)."""
    kept = [p for p in parts if p.height] or parts[:1]
    return pl.concat(kept)


def map_chunks(study: Study, out_dir: str | Path | None = None, *, n_jobs: int = 1,
               chunk_size: int | None = None, backend: str = "loky",
               scheduler: str | None = None, progress: bool | None = None,
               stop: Callable[[dict[str, float]], bool] | None = None) -> StudyResult:
    """Play a study's chunks (resuming what ``out_dir`` holds) and add up their sums.

    Each worker plays one chunk under every arm and returns only the sums of
    :meth:`Study.reduce_chunk`; the parent writes them (``sums/part-*``) and
    adds them in chunk order, so memory stays flat in the number of units and
    the totals are the same whatever ``n_jobs``, the backend or a resume.
    Without ``out_dir`` the parts go to a temporary directory. ``stop`` is the
    sequential rule: ``stop(totals of chunks 0..k-1)`` is checked at every
    chunk boundary in chunk order and the study ends at the first prefix
    where it holds (or when ``study.size`` units are spent).
    """
    check_n_jobs(n_jobs, backend)
    if out_dir is None:
        with tempfile.TemporaryDirectory(prefix="tapisvert-study-") as scratch:
            result = map_chunks(study, Path(scratch) / "study", n_jobs=n_jobs,
                                chunk_size=chunk_size, backend=backend, scheduler=scheduler,
                                progress=progress, stop=stop)
            return dataclasses.replace(result, path=None)
    out_dir = Path(out_dir)
    plan = _prepare(_Job(study), out_dir, chunk_size)
    prefix: list[dict[str, float]] = [{}]  # prefix[k]: totals of chunks 0..k-1

    def totals(k: int) -> dict[str, float]:
        while len(prefix) <= k:
            chunk_sums = plan.sums(len(prefix) - 1)
            prefix.append({key: prefix[-1].get(key, 0.0) + chunk_sums.get(key, 0.0)
                           for key in prefix[-1].keys() | chunk_sums.keys()})
        return prefix[k]

    rule = None if stop is None else (lambda k: stop(totals(k)))
    start = time.perf_counter()
    ran, busy, reached = _chunks_in_order(plan, n_jobs, backend, scheduler, progress, rule)
    extra = {}
    if stop is not None:
        extra["sequential"] = {"stopped_after_chunks": reached,
                               "precision_reached": reached is not None}
    result = _finish(plan, ran, busy, time.perf_counter() - start, n_jobs, backend, **extra)
    used = reached if reached is not None else plan.n_chunks
    if not all(plan.done(c) for c in range(used)):
        raise RuntimeError(f"{str(out_dir)!r}: chunks are missing after the run")
    tables = {t: _concat_parts([pl.read_parquet(plan.part(t, c)) for c in range(used)])
              for t in study.tables}  # read now: a temporary directory is about to go
    return StudyResult(out_dir, result.manifest, totals(used),
                       sum(plan.bounds(c)[1] for c in range(used)),
                       None if stop is None else reached is not None, tables)
