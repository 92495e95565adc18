"""Resumable chunked runs: a map over index ranges, with threads or Dask and progress.

A :class:`Job` is ``count`` units (hands, games, deals) cut into chunks of
fixed index ranges: chunk ``i`` covers indices ``[i*chunk, min((i+1)*chunk,
count))``.  Its ``compute(start, count)``, a picklable function, makes one
chunk's table; nothing here knows what it computes.  The job's identity
(``game``, ``unit``, ``kind`` and ``spec``: what the run is, as JSON) goes
into the run's manifest and is compared on resume.  The callers hand their
own compute functions: :mod:`simkit.bygame.jobs` for a game's records and
aggregates, :mod:`simkit.tournament` for its tables of duplicate deals.  Every
unit's random stream depends only on (seed, index), so a chunk's result
depends only on (job, start, count): never on the backend, the thread count,
the worker or the order in which chunks finish.

A job with ``merge`` keys (kind ``"aggregate"``) makes tables of counts and
sums per group that add up across chunks: they are merged as they come
(groupby-sum), and the run ends with one merged table.

With an output directory ``OUT`` (layout in :mod:`simkit.runs.store`) the manifest
is written first, then each finished chunk's part, atomically.  Running the
same job again computes only the missing chunks; a different job pointed at
``OUT`` is refused (:class:`~simkit.base.errors.InputError`) and nothing there is
touched.  Aggregate runs end by merging their parts into
``OUT/aggregate.parquet`` (and removing the parts).

Backends:

``threads``
    chunks one after another in this process, each on all numba threads (or
    ``threads``).
``dask``
    each chunk is a task on a ``dask.distributed`` cluster: a local one
    (``workers`` processes of one thread each) or an existing one
    (``scheduler="tcp://host:8786"``).  A task computes its chunk in the worker
    and writes the part itself, so ``OUT`` must be on a filesystem that every
    worker and this process see at the same path.

Memory: one chunk's records per worker at a time (the results sent back are
small reductions); aggregate runs hold one aggregate table.

Local Dask workers are processes started by :mod:`multiprocessing`: a script
that calls :func:`run` with ``backend="dask"`` must do so under
``if __name__ == "__main__":``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import logging
import os
import pathlib
import shutil
import signal
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeAlias, TypedDict, Unpack

import pandas as pd

from simkit.base.errors import InputError, RunError
from simkit.runs import store
from simkit.runs.batches import MAX_HELD, check_count, check_held, set_threads

BACKENDS = ("threads", "dask")
#: More local Dask workers than this per core only thrash (each is a process).
WORKERS_PER_CORE = 4
_IDENTITY = ("game", "unit", "kind", "count", "chunk")

#: What a run applies to each chunk's records where they are made.
Reduce: TypeAlias = Callable[[pd.DataFrame], Any]
#: What a run does with a finished chunk: ``step(index, rows, value, digest)``.
Step: TypeAlias = Callable[[int, int, Any, "dict[str, Any] | None"], None]
#: A Dask client (dask is optional, and untyped here).
Client: TypeAlias = Any


class ChunkArgs(TypedDict, total=False):
    """How a chunked run is carried out: :func:`run`'s keyword options
    ``backend``, ``threads``, ``workers``, ``scheduler`` and ``progress``."""

    backend: str
    threads: int | None
    workers: int | None
    scheduler: str | None
    progress: bool


class JobParts(TypedDict, total=False):
    """The optional parts of a :class:`Job` (:meth:`Job.make`): ``merge`` keys,
    ``preload`` modules and ``summary`` files."""

    merge: Iterable[str]
    preload: Iterable[str]
    summary: Iterable[str]


def cores() -> int:
    """CPU cores available to this process."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not on Linux
        return os.cpu_count() or 1


@dataclasses.dataclass(frozen=True)
class Job:
    """What a run computes: ``count`` units in chunks of ``chunk``, each made by
    ``compute(start, count)``.

    ``game``, ``unit``, ``kind`` and ``spec`` say what the run is: they are
    stored in the manifest and compared on resume, so ``spec`` must be
    JSON-serialisable (``{"rules": rule values, "policies": one text per seat,
    "seed": int}``, and whatever else the compute function reads).
    ``compute`` must be picklable for the Dask backend (a module-level
    function, or a :func:`functools.partial` of one); it is not part of the
    identity.  ``merge`` (kind ``"aggregate"``) are the group keys by which
    chunks' tables add up; ``preload`` the modules a local Dask worker imports
    once, before any task.  Build with :meth:`make`, which validates.

    >>> job = Job.make("demo", "hand", 25, {"seed": 1}, lambda s, c: None, chunk=10)
    >>> job.chunks, [job.bounds(i) for i in range(job.chunks)]
    (3, [(0, 10), (10, 10), (20, 5)])
    """

    game: str
    unit: str
    kind: str
    spec: Mapping[str, Any]
    count: int
    chunk: int
    compute: Callable[[int, int], pd.DataFrame] = dataclasses.field(compare=False, repr=False)
    merge: tuple[str, ...] = ()
    preload: tuple[str, ...] = ()
    summary: tuple[str, ...] = ()

    @classmethod
    def make(cls, game: str, unit: str, count: int, spec: Mapping[str, Any],
             compute: Callable[..., pd.DataFrame], *, chunk: int,
             kind: str = "records", **parts: Unpack[JobParts]) -> Job:
        """A checked job: ``count`` and ``chunk`` in range (a chunk is held in
        memory), no more parts than a run directory takes, ``merge`` keys
        exactly for kind ``"aggregate"``."""
        merge = tuple(parts.get("merge", ()))
        if (kind == "aggregate") != bool(merge):
            raise ValueError(f"kind {kind!r} with merge keys {tuple(merge)}: aggregate jobs, "
                             f"and only they, merge their chunks")
        check_count(count, f"number of {unit}s")
        if kind == "aggregate":         # played in batches: only the sums are held
            check_count(chunk, "--chunk", MAX_HELD)
        else:
            check_held(chunk, "--chunk", "hand" if unit == "hand" else "game")
        n = -(-count // chunk)
        if n > store.MAX_PARTS:
            raise InputError(f"--chunk {chunk} makes {n:,} chunks of {count:,} {unit}s, more "
                             f"than {store.MAX_PARTS:,}: choose a larger --chunk")
        # the spec as it reads back from the manifest (tuples -> lists, numpy -> int)
        spec = json.loads(json.dumps(dict(spec), default=store.json_default))
        return cls(game=game, unit=unit, kind=kind, spec=spec, count=int(count),
                   chunk=int(chunk), compute=compute, merge=merge,
                   preload=tuple(parts.get("preload", ())),
                   summary=tuple(parts.get("summary", ())))

    @property
    def chunks(self) -> int:
        return -(-self.count // self.chunk)

    def bounds(self, index: int) -> tuple[int, int]:
        """``(start, count)`` of chunk ``index``."""
        start = index * self.chunk
        return start, min(self.chunk, self.count - start)

    def identity(self) -> dict[str, Any]:
        """What a manifest on disk must match for this job to resume it."""
        return {"game": self.game, "unit": self.unit, "kind": self.kind, "spec": self.spec,
                "count": self.count, "chunk": self.chunk}

    def manifest(self, **extra: Any) -> dict[str, Any]:
        """A new manifest for this job (``"complete": false``): with its
        ``run_id``, which each part carries, and the ``summary_files`` the
        finished run must have beside its parts (written by the caller and
        recorded with :func:`store.record_files`)."""
        s = self.spec
        return store.make_manifest(self.game, s.get("rules", {}), s.get("policies", []),
                                   seed=s.get("seed", 0), unit=self.unit, count=self.count,
                                   layout=store.LAYOUT, kind=self.kind, chunk=self.chunk,
                                   chunks=self.chunks, spec=self.spec, complete=False,
                                   parts={}, run_id=store.run_id(self.identity()),
                                   summary_files=list(self.summary), **extra)


def compute_chunk(job: Job, index: int, out: str | None = None,
                  reduce: Reduce | None = None,
                  threads: int | None = None) -> tuple[int, int, Any, dict[str, Any] | None]:
    """Compute chunk ``index`` of ``job``: the unit of work of every backend.

    Writes the part into the run directory ``out`` (if given) and returns
    ``(index, rows, value, digest)``: ``value`` is the chunk's table for an
    aggregate job, otherwise ``reduce(records)`` (None without ``reduce``), so
    that records never have to travel back; ``digest`` the part's rows, size
    and checksum as written (:func:`store.file_digest`), which the manifest
    records.  ``threads`` sets numba's thread count first.
    """
    if threads is not None:
        set_threads(threads)
    start, count = job.bounds(index)
    df = job.compute(start, count)
    digest = None
    if out is not None:
        store.write_part(out, index, df, {"run": store.run_id(job.identity()),
                                          "index": index, "start": start, "count": count})
        # hashed where it was written: the bytes a later check will read
        digest = store.part_record(out, index)
    value = df if job.merge else reduce(df) if reduce is not None else None
    return index, len(df), value, digest


def merge_aggregates(total: pd.DataFrame | None, part: pd.DataFrame,
                     keys: Iterable[str]) -> pd.DataFrame:
    """Add an aggregate table to a running total (groupby-sum, sorted by the keys).

    >>> a = pd.DataFrame({"bid": [1, 2], "hands": [3, 4]})
    >>> merge_aggregates(a, pd.DataFrame({"bid": [2], "hands": [1]}), ["bid"])
       bid  hands
    0    1      3
    1    2      5
    """
    both = part if total is None else pd.concat([total, part], ignore_index=True)
    return both.groupby(list(keys), sort=True, observed=True).sum().reset_index()


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run; ``done`` of ``total`` chunks are finished (and kept
    in ``out``, if any)."""

    def __init__(self, done: int, total: int, out: pathlib.Path | str | None = None) -> None:
        super().__init__(done, total, out)
        self.done, self.total, self.out = done, total, out

    #: What ``done`` and ``total`` count, and what running the command again does.
    counts, again = "chunks", "resume"

    def __str__(self) -> str:
        if self.out is None:
            return (f"interrupted after {self.done} of {self.total} {self.counts} "
                    f"(without --out nothing is kept)")
        return (f"interrupted after {self.done} of {self.total} {self.counts}; "
                f"run the same command again to {self.again}")


@dataclasses.dataclass
class RunResult:
    """What :func:`run` did.

    ``computed``: chunks computed in this call; ``resumed``: chunks found
    finished in ``out``; ``complete_before``: the run was already complete,
    nothing was computed; ``repaired``: chunks whose parts were damaged (not
    as the manifest recorded them), computed again, with why.  ``values``:
    for records, ``reduce`` of every chunk's records in chunk order (None
    without ``reduce``); ``aggregate``: for aggregates, the merged table.
    ``units_computed`` counts the hands or games computed in this call.
    """

    job: Job
    out: pathlib.Path | None
    manifest: dict[str, Any] | None
    computed: int
    resumed: int
    complete_before: bool
    rows: int
    values: list[Any] | None
    aggregate: pd.DataFrame | None
    units_computed: int
    seconds: float
    repaired: dict[int, str] = dataclasses.field(default_factory=dict)


# --- the output directory ------------------------------------------------------------

def _describe(value: object) -> str:
    if isinstance(value, (list, tuple)):
        if len(value) > 1 and all(v == value[0] for v in value):
            return f"{value[0]} at all {len(value)} seats"
        return "[" + ", ".join(map(str, value)) + "]"
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _differences(there: Mapping[str, Any], here: Mapping[str, Any]) -> list[str]:
    """What differs between the manifest on disk and this job, in words."""
    diffs = []
    for key in _IDENTITY[:3]:
        if there.get(key) != here[key]:
            diffs.append(f"{key} {there.get(key)} there, {here[key]} here")
    a, b = there.get("spec") or {}, here["spec"]
    for key in sorted(set(a) | set(b), key=lambda k: (k != "seed", k)):
        if a.get(key) == b.get(key):
            continue
        if isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
            ra, rb = a[key], b[key]
            word = "rule" if key == "rules" else key
            for k in sorted(set(ra) | set(rb)):
                if ra.get(k) != rb.get(k):
                    diffs.append(f"{word} {k} {ra.get(k)} there, {rb.get(k)} here")
        else:
            diffs.append(f"{key} {_describe(a.get(key))} there, {_describe(b.get(key))} here")
    for key, word in (("count", f"{here['unit']}s"), ("chunk", "chunk size")):
        if there.get(key) != here[key]:
            if key == "count":        # each side in its own unit
                diffs.append(f"{_describe(there.get(key))} {there.get('unit')}s there, "
                             f"{_describe(here[key])} {word} here")
            else:
                diffs.append(f"{word} {_describe(there.get(key))} there, "
                             f"{_describe(here[key])} here")
    return diffs


def check_out(job: Job, out: store.StrPath) -> dict[str, Any] | None:
    """Check that ``job`` may write to the run directory ``out``; nothing is changed.

    Returns the manifest already there (same job: the run resumes or is
    complete) or None (``out`` does not exist yet; its parent directory must).
    Raises :class:`InputError` if ``out`` is a file, a directory that is not a
    simkit run, or a run of a different job (naming what differs).
    """
    if out is not None and pathlib.Path(out).exists() and not pathlib.Path(out).is_dir():
        raise InputError(f"{out} exists and is a file, not a simkit run directory; "
                         f"choose another --out or delete it")
    path = pathlib.Path(out) if out is not None else None
    if path is not None and store.is_run_dir(path) and (store.read_manifest(path) or {}).get(
            "complete"):
        out = path              # finished: only read (it may be read-only), unless damaged
    else:
        out = store.check_place(out)
    if not out.exists():
        return None
    manifest = store.read_manifest(out)
    if manifest is None or manifest.get("layout") != store.LAYOUT:
        raise InputError(f"{out} exists and is not a simkit run (no {store.RUN_MANIFEST}); "
                         f"choose another --out or delete it")
    diffs = _differences(manifest, job.identity())
    if diffs:
        raise InputError(f"{out} holds a different run: {'; '.join(diffs)}; "
                         f"choose another --out or delete it")
    stray = store.stray_files(out)
    if stray:
        raise InputError(f"{out} holds '{stray[0]}', which is not part of this run (pandas."
                         f"read_parquet of the run would read it): move it out of {out}")
    return manifest


def _create(job: Job, out: pathlib.Path, held: contextlib.ExitStack[Any]) -> dict[str, Any]:
    """Create the run directory with its manifest in one step: the manifest is
    written into a hidden sibling directory, locked (:class:`store.RunLock`)
    until ``held`` closes, which is then renamed to ``out``."""
    for stale in out.parent.glob(f".{out.name}.*.creating"):
        if not store.is_held(stale):                    # left by a killed run
            shutil.rmtree(stale, ignore_errors=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}-{uuid.uuid4().hex[:12]}.creating")
    manifest = job.manifest()
    try:
        tmp.mkdir()
        lock = held.enter_context(store.RunLock(tmp, str(out)))
        store.write_json_atomic(tmp / store.RUN_MANIFEST, manifest)
        os.rename(tmp, out)
        lock.moved(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if out.exists():
            raise InputError(f"{out} appeared while this run was starting; "
                             f"choose another --out") from None
        if out.is_symlink():            # it leads nowhere, or to itself
            raise InputError(f"cannot create --out '{out}': it is a symbolic link to "
                             f"'{os.readlink(out)}', which is not a directory; give a "
                             f"directory") from None
        raise
    return manifest


def _finish(job: Job, out: pathlib.Path, manifest: dict[str, Any], rows: int,
            aggregate: pd.DataFrame | None) -> dict[str, Any]:
    manifest = dict(manifest, complete=True, rows=rows, chunks=job.chunks,
                    finished_utc=datetime.datetime.now(datetime.UTC)
                                         .isoformat(timespec="seconds"))
    if aggregate is not None:
        store.write_parquet_atomic(out / store.AGGREGATE_FILE, aggregate)
        manifest["groups"] = len(aggregate)
        manifest["aggregate_file"] = store.file_digest(out / store.AGGREGATE_FILE)
        manifest["parts"] = {}              # the parts go once the aggregate is written
    store.write_json_atomic(out / store.RUN_MANIFEST, manifest)
    if aggregate is not None:
        _remove_parts(out)
    return manifest


def _remove_parts(out: pathlib.Path) -> None:
    for i in store.part_indices(out):
        with contextlib.suppress(FileNotFoundError):
            (out / store.part_name(i)).unlink()


# --- running -------------------------------------------------------------------------

def _check_backend(backend: str, threads: int | None, workers: int | None,
                   scheduler: str | None) -> int | None:
    """Check the backend options together; returns the thread count to use
    (threads backend: set now; Dask: None, each worker runs one thread)."""
    if backend not in BACKENDS:
        raise InputError(f"bad backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if backend == "threads":
        if workers is not None or scheduler is not None:
            raise InputError("--workers and --scheduler need --backend dask")
        return set_threads(threads)
    if threads is not None:
        raise InputError("--threads is for the threads backend; with --backend dask "
                         "use --workers (each worker runs one thread)")
    if workers is not None and scheduler is not None:
        raise InputError("--workers starts a local cluster; with --scheduler the "
                         "cluster's own workers are used: give one or the other")
    most = WORKERS_PER_CORE * cores()
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or not 1 <= workers <= most):
        raise InputError(f"bad --workers {workers!r}: expected a whole number from 1 to "
                         f"{most} ({WORKERS_PER_CORE} local worker processes per core)")
    return None


def run(job: Job, out: store.StrPath | None = None, *, backend: str = "threads",
        threads: int | None = None, workers: int | None = None, scheduler: str | None = None,
        progress: bool = False, reduce: Reduce | None = None) -> RunResult:
    """Run ``job``, writing into the run directory ``out`` if given.

    ``reduce`` (picklable, for records) is applied to every chunk's records
    where they are made; its results come back in :attr:`RunResult.values`.
    Options and ``out`` are checked before any work starts (InputError).
    Ctrl-C raises :class:`Interrupted`, after the finished parts are kept and
    any temporary removed.
    """
    t0 = time.perf_counter()
    threads = _check_backend(backend, threads, workers, scheduler)
    manifest = None
    where: pathlib.Path | None = None
    if out is not None:
        manifest = check_out(job, out)      # messages name the path as given
        where = pathlib.Path(out).absolute()
    with contextlib.ExitStack() as held:
        if manifest is not None:
            assert where is not None                # a manifest was read from it
            assert out is not None
            if manifest.get("complete") and not store.verify(where, manifest):
                # finished and whole: only read (it may be read-only), so not locked
                return _complete_result(job, where, manifest, reduce, t0,
                                        tidy=not store.is_held(where))
            # one run at a time writes here: a second would remove the first's temporaries
            held.enter_context(store.RunLock(where, str(out)))
            manifest = check_out(job, out) or manifest      # as the run before left it
            if manifest.get("complete"):
                if not store.verify(where, manifest):
                    return _complete_result(job, where, manifest, reduce, t0, tidy=True)
                # files deleted or damaged since: redo what is missing or not as written
                if job.merge:
                    store.remove_file(where / store.AGGREGATE_FILE)
                    manifest = dict(manifest, parts={})
                manifest = dict(manifest, complete=False)

        # a cluster that does not answer leaves nothing behind: it is reached first
        with _session(backend, job, workers, scheduler) as client:
            manifest, done, repaired = _open(job, where, manifest, held)
            todo = [i for i in range(job.chunks) if i not in done]
            got = _Results(job, where, manifest, reduce)
            try:
                _compute(job, todo, done, got, client=client, threads=threads,
                         progress=progress)
                if where is not None:
                    assert got.manifest is not None
                    _wait_visible(where, todo)
                    got.read_back(done)
                    got.manifest = _finish(job, where, got.manifest, got.row_count(),
                                           got.total)
            except KeyboardInterrupt:
                if where is not None:
                    store.remove_temporaries(where)
                    finished = len(store.part_indices(where) & set(range(job.chunks)))
                else:
                    finished = got.finished_now
                raise Interrupted(finished, job.chunks, where) from None

    return RunResult(
        job, where, got.manifest, computed=len(todo), resumed=len(done), complete_before=False,
        rows=got.row_count(), values=got.in_order(), aggregate=got.total,
        units_computed=sum(job.bounds(i)[1] for i in todo),
        seconds=time.perf_counter() - t0, repaired=repaired)


class _Results:
    """What a run's chunks return, gathered as they finish: the rows, the
    merged aggregate or each chunk's reduction, and the manifest, which records
    each part as soon as it is written (a later run trusts exactly these)."""

    def __init__(self, job: Job, out: pathlib.Path | None, manifest: dict[str, Any] | None,
                 reduce: Reduce | None) -> None:
        self.job, self.out, self.manifest, self.reduce = job, out, manifest, reduce
        self.rows, self.finished_now = 0, 0
        self.total: pd.DataFrame | None = None
        self.values: dict[int, Any] = {}

    def take(self, index: int, n_rows: int, value: Any,
             digest: dict[str, Any] | None = None) -> None:
        if digest is not None:          # a part written into the run directory
            assert self.out is not None
            assert self.manifest is not None
            self.manifest = dict(self.manifest, parts={**self.manifest["parts"],
                                                       str(index): digest})
            store.write_json_atomic(self.out / store.RUN_MANIFEST, self.manifest)
        self.rows += n_rows
        if self.job.merge:
            self.total = merge_aggregates(self.total, value, self.job.merge)
        elif self.reduce is not None:
            self.values[index] = value

    def read_back(self, done: Iterable[int]) -> None:
        """The chunks an earlier run finished, read from their parts."""
        assert self.out is not None
        for i in sorted(done):
            df = pd.read_parquet(self.out / store.part_name(i))
            self.take(i, len(df), df if self.job.merge else
                      self.reduce(df) if self.reduce is not None else None)

    def row_count(self) -> int:
        return self.rows if self.total is None else len(self.total)

    def in_order(self) -> list[Any] | None:
        if self.job.merge or self.reduce is None:
            return None
        return [self.values[i] for i in range(self.job.chunks)]


def _compute(job: Job, todo: list[int], done: set[int], got: _Results, client: Client,
             threads: int | None, progress: bool) -> None:
    """Compute the chunks ``todo`` (in this process, or on the Dask cluster of
    ``client``) into ``got``, with a progress bar over the whole run."""
    from tqdm import tqdm
    bar = tqdm(total=job.count, initial=sum(job.bounds(i)[1] for i in done), unit=job.unit,
               unit_scale=True, delay=2.0, disable=not progress, leave=False,
               dynamic_ncols=True, desc=f"{job.game} {job.kind}", file=sys.stderr)
    out = None if got.out is None else str(got.out)
    with bar:
        def step(index: int, n_rows: int, value: Any, digest: dict[str, Any] | None) -> None:
            got.take(index, n_rows, value, digest)
            got.finished_now += 1
            bar.update(job.bounds(index)[1])

        if client is None:
            for i in todo:
                step(*compute_chunk(job, i, out, got.reduce, threads))
        else:
            _run_dask(client, job, todo, out=out, reduce=got.reduce, step=step)


def _open(job: Job, out: pathlib.Path | None, manifest: dict[str, Any] | None,
          held: contextlib.ExitStack[Any]) -> tuple[dict[str, Any] | None, set[int],
                                                    dict[int, str]]:
    """Create the run directory, locked until ``held`` closes (or tidy the one
    being resumed, locked already); returns its manifest, the chunks already
    finished there, and the damaged parts (removed, to be computed again)
    with why."""
    if out is None:
        return None, set(), {}
    if manifest is None:
        return _create(job, out, held), set(), {}
    store.remove_temporaries(out)
    found = store.part_indices(out)
    for i in found - set(range(job.chunks)):     # beyond the run: never one of its parts
        store.remove_file(out / store.part_name(i))
    present = found & set(range(job.chunks))
    damaged = store.damaged_parts(out, manifest, present)
    # parts written but not recorded (the run stopped in between, or it is from
    # before parts were recorded) are kept if they read whole, and recorded now
    parts = dict(manifest.get("parts") or {})
    for i in store.unrecorded_parts(manifest, present):
        record = store.whole_part(out, i, job.bounds(i)[1], manifest)
        if record is None:
            damaged[i] = ("not a whole part of this run (the run stopped before recording "
                          "it, or it came from elsewhere)")
        else:
            parts[str(i)] = record
    for i in damaged:               # checked before anything is removed
        path = out / store.part_name(i)
        if path.is_dir() and not path.is_symlink():
            raise RunError(f"run '{out}' has a directory where {path.name} belongs: move it "
                           f"away (simkit removes only its own files), then run the same "
                           f"command again")
    for i in damaged:
        store.remove_file(out / store.part_name(i))
        parts.pop(str(i), None)
    if parts != manifest.get("parts"):
        manifest = dict(manifest, parts=parts)
        store.write_json_atomic(out / store.RUN_MANIFEST, manifest)
    return manifest, present - set(damaged), damaged


def _complete_result(job: Job, out: pathlib.Path, manifest: dict[str, Any],
                     reduce: Reduce | None, t0: float, tidy: bool) -> RunResult:
    """A complete run: nothing to compute; values read back from disk.  With
    ``tidy`` (no other run holds the directory) stray temporaries are removed."""
    if tidy:
        store.remove_temporaries(out)
    aggregate, values = None, None
    if job.merge:
        aggregate = pd.read_parquet(out / store.AGGREGATE_FILE)
        _remove_parts(out)            # left if a run died between its last two steps
    elif reduce is not None:
        values = [reduce(pd.read_parquet(out / store.part_name(i))) for i in range(job.chunks)]
    return RunResult(job, out, manifest, computed=0, resumed=job.chunks, complete_before=True,
                     rows=int(manifest.get("rows", 0)), values=values, aggregate=aggregate,
                     units_computed=0, seconds=time.perf_counter() - t0)


def _wait_visible(out: pathlib.Path, todo: list[int], timeout: float = 30.0) -> None:
    """Every part computed by a worker must be visible here (shared filesystem)."""
    deadline = time.monotonic() + timeout
    while True:
        missing = [i for i in todo if not (out / store.part_name(i)).is_file()]
        if not missing:
            return
        if time.monotonic() > deadline:
            raise InputError(f"{len(missing)} part(s) written by the workers are not in "
                             f"'{out}' here (e.g. {store.part_name(missing[0])}): --out must "
                             f"be on a filesystem shared by this machine and every worker, "
                             f"at the same path")
        time.sleep(0.2)


@contextlib.contextmanager
def _environ(**values: str) -> Iterator[None]:
    """Set environment variables while local worker processes start (they inherit
    them); restore them after."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _preload_forkserver(job: Job) -> None:
    """Local workers fork from multiprocessing's fork server, a clean process
    started for them (unlike a fork of this one, safe with threads).  Have it
    import the libraries and the job's modules once, so that no worker pays for
    the imports: numba and the kernels are imported there, never run.  With
    ``NUMBA_NUM_THREADS=1`` set (see :func:`_environ`), numba in every worker
    has one thread.  Best effort: on failure the workers import for themselves.
    """
    try:
        from distributed.utils import get_mp_context
        ctx = get_mp_context()      # distributed sets its own preload list here, once
        ctx.set_forkserver_preload(["distributed", "numpy", "pandas", "pyarrow",
                                    "simkit.runs.chunks", *job.preload])
    except Exception:               # pragma: no cover - depends on distributed's internals
        pass


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Start worker processes with SIGINT ignored (inherited through exec): Ctrl-C
    in a terminal reaches the whole process group, and this process, not each
    worker, stops the run (and the cluster)."""
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:              # not the main thread: signals are not ours
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def check_scheduler(scheduler: str) -> None:
    """An InputError unless the Dask cluster at ``scheduler`` answers: for a
    command to ask before it writes anything."""
    with _session("dask", None, None, scheduler):
        pass


@contextlib.contextmanager
def _session(backend: str, job: Job | None, workers: int | None,
             scheduler: str | None) -> Iterator[Client]:
    """The Dask client a run's chunks go to (None on the threads backend): a
    local cluster of ``workers`` processes, or the cluster at ``scheduler``;
    closed when the run ends."""
    if backend != "dask":
        yield None
        return
    try:
        import dask
        from dask.distributed import Client, LocalCluster
    except ImportError as e:
        raise InputError(f"--backend dask needs dask.distributed ({e}); "
                         f"pip install 'dask[distributed]'") from None
    cluster = client = None
    try:
        if scheduler is not None:
            try:
                client = Client(scheduler, timeout="15s")
            except (OSError, TimeoutError, ValueError) as e:
                raise InputError(f"cannot connect to --scheduler {scheduler}: "
                                 f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
                                 ) from None
        else:
            # NUMBA_NUM_THREADS=1: one numba thread per single-threaded worker
            # process, even where a chunk function resets numba's thread count.
            with _workers_ignore_ctrl_c(), _environ(NUMBA_NUM_THREADS="1"), dask.config.set(
                    {"distributed.worker.multiprocessing-method": "forkserver"}):
                assert job is not None          # a local cluster is made for a job
                _preload_forkserver(job)
                cluster = LocalCluster(n_workers=workers or cores(), threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       silence_logs=logging.ERROR)
            client = Client(cluster)
        yield client
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


#: A Dask run stops, in one line, once its cluster has had no worker this long (s).
NO_WORKERS_TIMEOUT = 60.0
#: How often a Dask run looks at its cluster while no chunk finishes (s).
DASK_POLL = 1.0


def _run_dask(client: Client, job: Job, todo: list[int], out: str | None,
              reduce: Reduce | None, step: Step) -> None:
    """Run the chunks ``todo`` as tasks on the cluster of ``client``.  A task
    that fails on a worker, or a cluster left without workers for
    :data:`NO_WORKERS_TIMEOUT`, ends the run with a :class:`RunError` (the
    finished parts stay for a rerun) instead of waiting forever."""
    from dask.distributed import wait
    token = uuid.uuid4().hex[:12]
    futures = [client.submit(compute_chunk, job, i, out=out, reduce=reduce, threads=1, pure=False,
                             key=f"simkit-{job.game}-{token}-{i:06d}")
               for i in todo]
    pending, alone_since = set(futures), None
    try:
        while pending:
            try:
                done = wait(list(pending), timeout=DASK_POLL, return_when="FIRST_COMPLETED").done
            except TimeoutError:
                done = set()
            taken = False
            for fut in done:
                if fut.status == "error":
                    e = fut.exception()
                    raise RunError(f"a chunk failed on the Dask workers: {type(e).__name__}: "
                                   f"{str(e).splitlines()[0] if str(e) else ''}")
                try:
                    # bounded: a result held by a worker that has since gone is
                    # computed again, which needs a worker
                    result = fut.result(timeout=DASK_POLL)
                except TimeoutError:
                    continue
                pending.discard(fut)
                fut.release()
                step(*result)
                taken = True
            if not taken and done:
                time.sleep(DASK_POLL)       # finished futures whose data went with a worker
            if taken or client.scheduler_info().get("workers"):
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since > NO_WORKERS_TIMEOUT:
                raise RunError(f"the Dask cluster has had no workers for "
                               f"{NO_WORKERS_TIMEOUT:.0f} s; the finished parts are kept: "
                               "start workers (or drop --backend dask) and run the same "
                               "command again")
    finally:
        with contextlib.suppress(Exception):
            client.cancel(futures)
