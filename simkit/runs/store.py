"""Run output on disk, and the manifest that says how it was made.

A run is a directory ``OUT`` (the ``--out`` path, e.g. ``runs/pepper.parquet``;
see :mod:`simkit.runs.chunks`, which writes it)::

    OUT/_manifest.json         game, unit, kind, spec (rules, policies, seed),
                               count, chunk size, versions, git commit, time;
                               "parts": each written part's rows, size and
                               SHA-256; "complete": true and "rows" once finished
    OUT/part-000000.parquet    records of units [0, chunk), then [chunk, 2*chunk) ...
    OUT/aggregate.parquet      kind "aggregate": the merged aggregate (its
                               per-chunk parts are removed once it is written)

Every file is written to a hidden temporary name in its directory and moved
into place with ``os.replace``, so a file that exists is complete.
``pandas.read_parquet(OUT)`` reads a run (pyarrow skips the ``_`` and ``.``
files); :func:`read_run` reads it with its manifest and refuses unfinished
runs and damaged ones: a part whose size or checksum is not the one the
manifest recorded when it was written (:func:`damaged_parts`, and
:func:`verify` for ``simkit verify``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import errno
import hashlib
import importlib.metadata
import json
import os
import pathlib
import platform
import re
import subprocess
import tempfile
import uuid
from collections.abc import Iterable, Iterator, Mapping
from types import TracebackType
from typing import IO, Any, Literal, NoReturn, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

import simkit
from simkit.base.errors import InputError, RunError
from simkit.base.files import MAX_JSON_BYTES, loads_json, read_text

#: A path as the callers give it: text or a path object.
StrPath: TypeAlias = str | os.PathLike[str]

#: A Parquet codec, as pyarrow names them.
Codec: TypeAlias = Literal["gzip", "brotli", "lz4", "zstd", "snappy", "none"]

COMPRESSION: Codec = "zstd"
_GIT_TIMEOUT_S = 5.0

LAYOUT = "simkit-chunks/1"          # the manifest's "layout" in a run directory
PART_KEY = "simkit.part"             # a part's own record of its run and chunk (Parquet metadata)
RUN_MANIFEST = "_manifest.json"
RUN_LOCK = "_run.lock"               # held by the one run writing the directory (RunLock)
AGGREGATE_FILE = "aggregate.parquet"
PART_DIGITS = 6
MAX_PARTS = 10 ** PART_DIGITS
_PART_RE = re.compile(rf"part-(\d{{{PART_DIGITS}}})\.parquet")
# temporaries: "." + final name + "." + pid-random + ".tmp"
_TMP_RE = re.compile(rf"\.(part-\d{{{PART_DIGITS}}}\.parquet|{re.escape(AGGREGATE_FILE)}"
                     rf"|{re.escape(RUN_MANIFEST)})\.[0-9a-f-]+\.tmp")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def library_versions(*libs: str) -> dict[str, str | None]:
    """Python's version and each named distribution's, for provenance records."""
    return {"python": platform.python_version(), **{lib: _version(lib) for lib in libs}}


def git_commit() -> str | None:
    """The commit of the git checkout holding the simkit source, or None.

    None when simkit is not in a git checkout (e.g. installed from a wheel),
    git is missing or slow, or anything else goes wrong; never raises.
    """
    here = pathlib.Path(simkit.__file__).resolve().parent

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=here, capture_output=True,
                              text=True, timeout=_GIT_TIMEOUT_S)

    try:
        head = git("rev-parse", "--verify", "HEAD")
        if head.returncode != 0:
            return None
        # Guard against a simkit installed inside some unrelated repository
        # (a virtualenv in a project tree): the package must be tracked.
        if git("ls-files", "--error-unmatch", "--", "__init__.py").returncode != 0:
            return None
        return head.stdout.strip() or None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def make_manifest(game: str, rules: Mapping[str, Any], policies: list[str],
                  seed: int, unit: str, count: int, **extra: Any) -> dict[str, Any]:
    """The provenance record of one run.

    ``rules`` is the rule config as a mapping (a config dataclass is accepted
    too), ``policies`` the policy names in seat order, ``unit`` what the run
    counts (a game's unit: ``"hand"`` or ``"game"``) and ``count`` how many of
    them were simulated.  Keyword
    arguments are added as they are (e.g. ``players=4``, ``backend="numba"``).
    :mod:`simkit.runs.chunks` adds ``complete`` and ``rows`` when the run is finished.
    """
    if dataclasses.is_dataclass(rules) and not isinstance(rules, type):
        rules = dataclasses.asdict(rules)
    manifest = {
        "game": game,
        "rules": dict(rules),
        "policies": list(policies),
        "seed": int(seed),
        "unit": unit,
        "count": int(count),
        "simkit_version": simkit.__version__,
        "git_commit": git_commit(),
        "versions": library_versions("numpy", "numba", "pandas", "pyarrow"),
        "created_utc": datetime.datetime.now(datetime.UTC)
                               .isoformat(timespec="seconds"),
    }
    manifest.update(extra)
    return manifest


def json_default(obj: object) -> Any:
    """JSON for the numpy values, paths and configs that end up in manifests and
    report provenance (``json.dumps(..., default=json_default)``)."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (pathlib.PurePath, datetime.date)):
        return str(obj)
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    if isinstance(obj, tuple):
        return list(obj)
    if hasattr(obj, "as_dict"):                 # simkit configs
        return obj.as_dict()
    raise TypeError(f"value of type {type(obj).__name__} is not JSON serialisable")


def _fsync(path: pathlib.Path) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def check_place(path: StrPath, what: str = "--out") -> pathlib.Path:
    """The directory ``path`` an output goes into, checked before any work: it is a
    writable directory, or it can be created (its parent exists and takes a new
    directory: tried, not guessed, so that /proc or a read-only mount is caught).
    Nothing is left behind; a problem is an InputError naming ``what``."""
    if not str(path).strip():
        raise InputError(f"{what} '' names no directory: give a path such as runs/x")
    path = pathlib.Path(path)
    where = path if path.exists() else path.parent
    if path.exists() and not path.is_dir():
        raise InputError(f"cannot write {what} '{path}': it is a file, not a directory")
    if not where.is_dir():
        raise InputError(f"cannot write {what} '{path}': directory '{where}' does not exist")
    if where is path:               # there already: asked, not tried, so it stays untouched
        if not os.access(path, os.W_OK | os.X_OK):
            raise InputError(f"cannot write {what} '{path}': the directory is not writable")
        return path
    try:
        probe = tempfile.mkdtemp(prefix=".simkit-probe-", dir=where)
        os.rmdir(probe)
    except OSError as e:
        raise InputError(f"cannot write {what} '{path}': directory '{where}' takes no new "
                         f"files ({e.strerror})") from None
    return path


def remove_file(path: pathlib.Path) -> None:
    """Remove a file if it is there."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


#: The system's ways of saying there is no room left: a full disk, a quota reached.
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


@contextlib.contextmanager
def room_for(path: StrPath) -> Iterator[None]:
    """Around the writing of ``path``: a disk with no room left (or a quota
    reached) is a :class:`RunError` naming the file, not bad input; what was
    finished before stays, for the same command to resume from."""
    try:
        yield
    except OSError as e:
        if e.errno not in DISK_FULL:
            raise
        raise RunError(f"cannot write '{path}': the disk is full ({os.strerror(e.errno)}); "
                       f"what was finished is kept: make room and run the same command "
                       f"again to go on") from None


# --- run directories ------------------------------------------------------------

def part_name(index: int) -> str:
    """File name of chunk ``index``'s part.

    >>> part_name(42)
    'part-000042.parquet'
    """
    if not 0 <= index < MAX_PARTS:
        raise ValueError(f"part index {index} out of range 0..{MAX_PARTS - 1}")
    return f"part-{index:0{PART_DIGITS}d}.parquet"


def part_index(name: str) -> int | None:
    """The chunk index of a part file name, or None for any other name.

    >>> part_index("part-000042.parquet"), part_index("_manifest.json")
    (42, None)
    """
    m = _PART_RE.fullmatch(name)
    return int(m.group(1)) if m else None


def temporary_path(final: StrPath) -> pathlib.Path:
    """A hidden temporary name beside ``final``, unique to this process and call."""
    final = pathlib.Path(final)
    return final.with_name(f".{final.name}.{os.getpid()}-{uuid.uuid4().hex[:12]}.tmp")


def is_temporary(name: str) -> bool:
    """True for the names :func:`temporary_path` makes for run files."""
    return _TMP_RE.fullmatch(name) is not None


def write_json_atomic(path: StrPath, obj: object) -> None:
    """Write ``obj`` as JSON to ``path`` by way of a temporary file and ``os.replace``."""
    path = pathlib.Path(path)
    tmp = temporary_path(path)
    try:
        with room_for(path), open(tmp, "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2, default=json_default)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        remove_file(tmp)
        raise


def write_csv_atomic(path: StrPath, data: pd.DataFrame) -> None:
    """Write ``data`` as CSV (no index) to ``path`` by way of a temporary file and
    ``os.replace``: a reader sees the old file or the whole new one."""
    path = pathlib.Path(path)
    tmp = temporary_path(path)
    try:
        with room_for(path):
            data.to_csv(tmp, index=False)
            _fsync(tmp)
        os.replace(tmp, path)
    except BaseException:
        remove_file(tmp)
        raise


def write_parquet_atomic(path: StrPath, data: pd.DataFrame | pa.Table,
                         compression: Codec = COMPRESSION) -> int:
    """Write ``data`` to the Parquet file ``path`` atomically; returns the row count.

    The file is written to a hidden temporary name in the same directory,
    synced, and moved into place; an error or interrupt removes the temporary.
    The same data always gives the same bytes.
    """
    path = pathlib.Path(path)
    table = (pa.Table.from_pandas(data, preserve_index=False)
             if isinstance(data, pd.DataFrame) else data)
    tmp = temporary_path(path)
    try:
        with room_for(path):
            pq.write_table(table, tmp, compression=compression)
            _fsync(tmp)
        os.replace(tmp, path)
    except BaseException:
        remove_file(tmp)
        raise
    return int(table.num_rows)


def run_id(identity: Mapping[str, Any]) -> str:
    """The SHA-256 of a run's identity (the JSON of what a resumed run must
    match: game, unit, kind, spec, count, chunk size): its manifest's
    ``run_id``, and what each of its parts carries."""
    text = json.dumps(identity, sort_keys=True, default=json_default)
    return hashlib.sha256(text.encode()).hexdigest()


def write_part(directory: StrPath, index: int, data: pd.DataFrame | pa.Table,
               meta: Mapping[str, Any] | None = None) -> int:
    """Write chunk ``index``'s part into the run directory, atomically, with
    ``meta`` (its run's id and its chunk: :func:`part_meta`) in the Parquet
    file's own metadata, so that a part copied from another run or another
    chunk is told apart from a true one."""
    table = (pa.Table.from_pandas(data, preserve_index=False)
             if isinstance(data, pd.DataFrame) else data)
    if meta is not None:
        table = table.replace_schema_metadata({
            **(table.schema.metadata or {}),
            PART_KEY.encode(): json.dumps(dict(meta), sort_keys=True).encode()})
    return write_parquet_atomic(pathlib.Path(directory) / part_name(index), table)


def part_meta(path: StrPath) -> dict[str, Any] | None:
    """What a part says of itself (``{"run", "index", "start", "count"}``), or
    None: no such record (a part from before parts carried one), or not
    readable Parquet."""
    try:
        raw = (pq.read_schema(os.fspath(path)).metadata or {}).get(PART_KEY.encode())
        meta = loads_json(raw.decode("utf-8")) if raw is not None else None
    except (OSError, ValueError, pa.ArrowException):
        return None
    return meta if isinstance(meta, dict) else None


def part_rows(path: StrPath) -> int | None:
    """The rows a Parquet file holds by its footer, or None if unreadable."""
    try:
        return int(pq.read_metadata(os.fspath(path)).num_rows)
    except (OSError, pa.ArrowException):
        return None


def file_digest(path: StrPath) -> dict[str, Any]:
    """A file's size and SHA-256: what the manifest records of each part."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return {"bytes": size, "sha256": digest.hexdigest()}


def part_record(directory: StrPath, index: int) -> dict[str, Any]:
    """What the manifest records of a part: its rows, size and checksum."""
    path = pathlib.Path(directory) / part_name(index)
    return {"rows": pq.read_metadata(path).num_rows, **file_digest(path)}


def _damage(path: pathlib.Path, want: Mapping[str, Any]) -> str | None:
    """Why the file ``path`` is not the one recorded as ``want``, or None."""
    if path.is_dir():
        return "a directory stands where the part belongs (move it away)"
    if not path.is_file():
        return "missing"
    got = file_digest(path)
    if got["bytes"] != want["bytes"]:
        return f"{got['bytes']:,} bytes where {want['bytes']:,} were written"
    if got["sha256"] != want["sha256"]:
        return "its checksum is not the one written"
    return None


def _stranger(path: pathlib.Path, manifest: Mapping[str, Any], index: int) -> str | None:
    """Why the part at ``path`` is not chunk ``index`` of the manifest's run by
    its own record (:func:`part_meta`), or None.  A manifest without a
    ``run_id`` (an older run) has nothing to check against."""
    if "run_id" not in manifest:
        return None
    meta = part_meta(path)
    if meta is None:
        if part_rows(path) is None:
            return "it is not readable Parquet"
        return "it carries no record of its run: not written by this run"
    if meta.get("run") != manifest["run_id"]:
        return "it belongs to another run"
    if meta.get("index") != index:
        return f"it holds chunk {meta.get('index')}, not chunk {index}"
    return None


def damaged_parts(directory: StrPath, manifest: Mapping[str, Any],
                  indices: Iterable[int]) -> dict[int, str]:
    """Of the parts ``indices`` the manifest has a record of, those that are not
    as written, with why: a size or checksum other than the record's, rows
    other than the recorded rows, or a part of another run or chunk."""
    recorded = manifest.get("parts") or {}
    directory = pathlib.Path(directory)
    out = {}
    for i in sorted(indices):
        if str(i) in recorded:
            path, want = directory / part_name(i), recorded[str(i)]
            why = _damage(path, want)
            if why is None and part_rows(path) != want.get("rows"):
                why = (f"it holds {part_rows(path)} rows where the manifest records "
                       f"{want.get('rows')}")
            why = why or _stranger(path, manifest, i)
            if why is not None:
                out[i] = why
    return out


def unrecorded_parts(manifest: Mapping[str, Any], indices: Iterable[int]) -> list[int]:
    """Of the parts ``indices``, those the manifest has no record of: written by a
    run that stopped before recording them, or by one from before parts were
    recorded (no ``"parts"`` at all)."""
    recorded = manifest.get("parts") or {}
    return [i for i in sorted(indices) if str(i) not in recorded]


def whole_part(directory: StrPath, index: int, rows: int,
               manifest: Mapping[str, Any]) -> dict[str, Any] | None:
    """The record of an unrecorded part if it reads whole as Parquet with ``rows``
    rows and is chunk ``index`` of the manifest's run by its own record (a
    rerun then keeps it), else None."""
    path = pathlib.Path(directory) / part_name(index)
    if _stranger(path, manifest, index) is not None:
        return None
    try:
        if pq.read_table(path).num_rows != rows:
            return None
    except (OSError, pa.ArrowException):
        return None
    return part_record(directory, index)


def part_indices(directory: StrPath) -> set[int]:
    """Indices of the finished parts in a run directory."""
    found = set()
    with os.scandir(directory) as it:
        for entry in it:
            i = part_index(entry.name)
            if i is not None:
                found.add(i)
    return found


def remove_temporaries(directory: StrPath) -> int:
    """Remove stray temporaries (from a killed run) in a run directory; returns how many."""
    n = 0
    with os.scandir(directory) as it:
        names = [e.name for e in it if is_temporary(e.name)]
    for name in names:
        remove_file(pathlib.Path(directory) / name)
        n += 1
    return n


#: Tries to lock a lock file that the run before removed as it was opened.
_LOCK_TRIES = 5


class RunLock:
    """One run at a time in a run directory: an operating-system lock
    (``fcntl.flock``) on its :data:`RUN_LOCK` file, taken on entering (a
    second run is refused in one line) and released on leaving, or by the
    system with the process however it ends.  The file is removed on release,
    under the lock: a run that locks it after that opens the new one.
    :meth:`moved` follows the directory to a new name."""

    def __init__(self, directory: StrPath, out: str) -> None:
        self.path = pathlib.Path(directory) / RUN_LOCK
        self.out = out
        self._file: IO[str] | None = None

    def __enter__(self) -> RunLock:
        import fcntl

        for _ in range(_LOCK_TRIES):
            f = open(self.path, "a", encoding="ascii")
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.close()
                who = _holder(self.path)
                raise InputError(f"--out '{self.out}' is in use by another simkit run"
                                 f"{f' (process {who})' if who else ''}: wait for it to "
                                 f"finish, or give another --out") from None
            if self._current(f):
                self._file = f
                with contextlib.suppress(OSError):      # who holds it: for the message only
                    f.truncate(0)
                    f.write(f"{os.getpid()}\n")
                    f.flush()
                return self
            f.close()                   # removed by the run before: open the new one
        raise InputError(f"--out '{self.out}' is being started and stopped by other simkit "
                         f"runs: wait for them, or give another --out")

    def moved(self, directory: StrPath) -> None:
        """The directory holding the lock file has been renamed to ``directory``."""
        self.path = pathlib.Path(directory) / RUN_LOCK

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                if self._current(self._file):
                    self.path.unlink()
            self._file.close()          # and with it the lock
            self._file = None

    def _current(self, f: IO[str]) -> bool:
        """Whether ``f`` is the lock file now in the directory."""
        try:
            return os.path.samestat(os.fstat(f.fileno()), os.stat(self.path))
        except OSError:
            return False


def _holder(path: pathlib.Path) -> str | None:
    """The process number the holder of a lock wrote in its file, if any."""
    with contextlib.suppress(OSError, ValueError):
        text = path.read_text(encoding="ascii").strip()
        return text if text.isdigit() and len(text) < 12 else None
    return None


def is_held(directory: StrPath) -> bool:
    """Whether a run holds the directory's :class:`RunLock` now (nothing is
    created or changed)."""
    import fcntl

    try:
        fd = os.open(pathlib.Path(directory) / RUN_LOCK, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        return isinstance(e, BlockingIOError)
    finally:
        os.close(fd)                    # and any lock taken here with it
    return False


def read_manifest(directory: StrPath) -> dict[str, Any] | None:
    """The manifest of a run directory; None if it has none.

    A manifest that is not a JSON object raises :class:`InputError`.
    """
    mpath = pathlib.Path(directory) / RUN_MANIFEST
    if not mpath.is_file():
        return None
    again = f"to start over, delete '{directory}' or choose another --out"
    try:
        text = read_text(str(mpath), f"manifest '{mpath}'", MAX_JSON_BYTES)
    except InputError as e:             # it names the manifest already
        raise InputError(f"{e}; {again}") from None
    try:
        manifest = loads_json(text)     # deep nesting too: one line, not a RecursionError
    except ValueError as e:
        raise InputError(f"manifest '{mpath}' is not readable JSON ({e}); {again}") from None
    if not isinstance(manifest, dict):
        raise InputError(f"manifest '{mpath}' is not a JSON object; to start over, delete "
                         f"'{directory}' or choose another --out")
    why = identity_problem(manifest)
    if why is not None:
        raise RunError(f"run '{directory}' is damaged: {why}, so the manifest cannot say "
                       f"what the stored rows are; to start over, delete '{directory}' or "
                       f"choose another --out")
    return manifest


#: The manifest fields a run's id is the hash of (:func:`run_id`).
IDENTITY = ("game", "unit", "kind", "spec", "count", "chunk")


def identity_problem(manifest: Mapping[str, Any]) -> str | None:
    """Why a manifest's description of its run cannot be trusted, or None.

    A run with a ``run_id`` (every run since parts carried one) is checked:
    the id recomputed from its identity fields (:data:`IDENTITY`) must be
    the stored one, the ``rules``, ``policies`` and ``seed`` it shows must be
    its spec's, and it must keep its ``parts`` record.  An edited seed, rules
    or policy would otherwise pass as intact, and ``show --run`` would print
    hands that are not the stored rows."""
    if "run_id" not in manifest:
        return None
    identity = {k: manifest.get(k) for k in IDENTITY}
    try:
        same = run_id(identity) == manifest["run_id"]
    except (TypeError, ValueError):
        same = False
    if not same:
        return (f"its manifest's fields ({', '.join(IDENTITY)}) do not give its run_id "
                f"(edited after the run was written)")
    spec = manifest.get("spec")
    if isinstance(spec, Mapping):
        for key in ("rules", "policies", "seed"):
            if key in spec and key in manifest and manifest[key] != spec[key]:
                return f"its manifest's {key} is not its spec's (the run's identity)"
    if not isinstance(manifest.get("parts"), Mapping):
        return "its manifest keeps no record of its parts, as every run with a run_id does"
    for key, part in manifest["parts"].items():
        if not _is_part_record(key, part):
            return (f"its manifest's record of part {str(key)[:20]!r} is not a part's record "
                    f"(rows, bytes and sha256)")
    return None


def _is_part_record(key: object, part: object) -> bool:
    """Whether ``key: part`` reads as a manifest's record of a part (:func:`part_record`)."""
    def count(v: object) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0
    return (isinstance(key, str) and key.isascii() and key.isdigit()
            and isinstance(part, Mapping) and count(part.get("rows"))
            and count(part.get("bytes")) and isinstance(part.get("sha256"), str))


def is_run_dir(path: StrPath) -> bool:
    """True if ``path`` is a run directory (it holds :data:`RUN_MANIFEST`)."""
    path = pathlib.Path(path)
    return path.is_dir() and (path / RUN_MANIFEST).is_file()


def open_run(path: StrPath) -> tuple[dict[str, Any], list[pathlib.Path]]:
    """A finished run, checked (as :func:`read_run` checks it; its files are
    hashed a block at a time) but not read: ``(manifest, files)``, its parts
    in order or its aggregate, for a reader that takes them in pieces."""
    path = pathlib.Path(path)

    def fail(reason: str) -> NoReturn:
        raise InputError(f"cannot read run '{path}': {reason}")

    if not path.exists():
        fail("it does not exist")
    if not path.is_dir() or not (path / RUN_MANIFEST).is_file():
        fail(f"not a simkit run directory (no {RUN_MANIFEST})")
    manifest = read_manifest(path)      # its errors name the manifest, and say what to do
    if manifest is None:
        fail(f"no {RUN_MANIFEST}")
    if not manifest.get("complete"):
        n = manifest.get("chunks", "?")
        k = len(part_indices(path))
        fail(f"the run is not finished ({k} of {n} chunks written); run the same "
             f"command again to finish it")
    if manifest.get("kind") == "aggregate":
        files = [path / AGGREGATE_FILE]
    else:
        files = [path / part_name(i) for i in range(expected_chunks(manifest))]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        fail(f"{', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''} missing; run "
             f"the same command again to write {'them' if len(missing) > 1 else 'it'}")
    stray = stray_files(path)
    if stray:
        fail(f"'{stray[0]}' is not part of the run, but pandas.read_parquet of it would read "
             f"it: move it out of '{path}'")
    problems = verify(path, manifest)
    if problems:
        fail(f"{problems[0]}{f' (and {len(problems) - 1} more)' if len(problems) > 1 else ''}"
             f"; run the same command again to repair it")
    return manifest, files


def read_run(path: StrPath,
             columns: list[str] | None = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Read a finished run: ``(records, manifest)``.

    ``path`` is a run directory (see the module docstring): the records are its
    parts in order, or for kind ``"aggregate"`` the merged aggregate.
    ``columns`` reads only those columns.
    A missing, unfinished or unreadable run raises :class:`InputError` naming
    the path (:func:`open_run`).
    """
    manifest, files = open_run(path)

    def fail(reason: str) -> NoReturn:
        raise InputError(f"cannot read run '{path}': {reason}")

    try:
        names = pq.read_schema(files[0]).names
    except (OSError, pa.ArrowException) as e:
        fail(f"'{files[0].name}' is not a readable Parquet file ({_one_line(e)})")
    unknown = [c for c in columns or () if c not in names]
    if unknown:
        fail(f"no column {', '.join(map(repr, unknown))}; columns are {', '.join(names)}")
    try:
        tables = [pq.read_table(f, columns=columns) for f in files]
        table = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
    except (OSError, pa.ArrowException) as e:
        fail(f"not readable Parquet ({_one_line(e)})")
    return table.to_pandas(), manifest


def expected_chunks(manifest: Mapping[str, Any]) -> int:
    """The chunks of a run by its count and chunk size (what its ``chunks``
    must say), or its ``chunks`` where those are not whole numbers."""
    count, chunk = manifest.get("count"), manifest.get("chunk")
    if (isinstance(count, int) and isinstance(chunk, int) and not isinstance(count, bool)
            and count > 0 and chunk > 0):
        return -(-count // chunk)
    chunks = manifest.get("chunks", 0)
    return chunks if isinstance(chunks, int) and chunks >= 0 else 0


def stray_files(path: StrPath) -> list[str]:
    """Entries of a run directory that are not a run's files but that
    ``pandas.read_parquet`` of the directory would read (any name not
    starting with ``_`` or ``.``, other than the parts and the aggregate)."""
    with os.scandir(path) as it:
        names = sorted(e.name for e in it)
    return [n for n in names if not n.startswith(("_", ".")) and part_index(n) is None
            and n != AGGREGATE_FILE]


def record_files(path: StrPath, names: Iterable[str]) -> dict[str, Any]:
    """Record the size and checksum of the run's summary files ``names`` in its
    manifest (``"files"``), which :func:`verify` then checks; returns the
    manifest."""
    path = pathlib.Path(path)
    manifest = read_manifest(path) or {}
    files = {**(manifest.get("files") or {}), **{n: file_digest(path / n) for n in names}}
    manifest = dict(manifest, files=files)
    write_json_atomic(path / RUN_MANIFEST, manifest)
    return manifest


def summary_problems(path: StrPath, manifest: Mapping[str, Any]) -> list[str]:
    """What is wrong with the summary files a finished run names
    (``"summary_files"``: a tournament's tables and figure), one line each."""
    path = pathlib.Path(path)
    files = manifest.get("files") or {}
    out = []
    for name in manifest.get("summary_files") or ():
        if name not in files:
            out.append(f"{name} is not recorded (the run stopped before writing it)")
            continue
        why = _damage(path / name, files[name])
        if why is not None:
            out.append(f"{name} is {why}" if why == "missing" else f"{name} is damaged: {why}")
    return out


def verify(path: StrPath, manifest: Mapping[str, Any] | None = None) -> list[str]:
    """What is wrong with the run at ``path``, one line each (nothing: the run
    is whole).  The manifest against itself (its chunks against its count
    and chunk size, its rows against its parts'), every part against its
    record (size, checksum, rows) and against its own record of its run and
    chunk, parts missing or beyond the run's chunks, files that are no part of
    it but that ``pandas.read_parquet`` would read, and the summary files of
    a finished run.  Changes nothing."""
    path = pathlib.Path(path)
    manifest = manifest if manifest is not None else read_manifest(path) or {}
    out = [f"'{n}' is not part of this run, but pandas.read_parquet of the run would read "
           "it" for n in stray_files(path)]
    if manifest.get("kind") == "aggregate" and manifest.get("complete"):
        if "aggregate_file" not in manifest:
            return out                    # written before the file was recorded
        why = _damage(path / AGGREGATE_FILE, manifest["aggregate_file"])
        return out + ([f"{AGGREGATE_FILE} is damaged: {why}"] if why else [])
    chunks = expected_chunks(manifest)
    if manifest.get("chunks") != chunks:
        out.append(f"the manifest says {manifest.get('chunks')!r} chunks where its count "
                   f"{manifest.get('count')!r} in chunks of {manifest.get('chunk')!r} "
                   f"makes {chunks}")
    found = part_indices(path)
    present = found & set(range(chunks))
    out += [f"{part_name(i)} is damaged: {why}"
            for i, why in damaged_parts(path, manifest, present).items()]
    out += [f"{part_name(i)} is not this run's: {why}" for i in unrecorded_parts(manifest, present)
            if (why := _stranger(path / part_name(i), manifest, i)) is not None]
    out += [f"{part_name(i)} is not part of this run (its {chunks} chunks end at "
            f"{part_name(chunks - 1) if chunks else 'none'})" for i in sorted(found - present)]
    if manifest.get("complete"):
        out += [f"{part_name(i)} is missing" for i in sorted(set(range(chunks)) - present)]
        if "parts" in manifest:
            parts = manifest.get("parts") or {}
            out += [f"{part_name(i)} is not in the manifest"
                    for i in unrecorded_parts(manifest, present)]
            total = sum(int(r.get("rows", 0)) for k, r in parts.items()
                        if k.isdigit() and int(k) < chunks)
            if manifest.get("rows") != total:
                out.append(f"the manifest's total of {manifest.get('rows')!r} rows is not "
                           f"its parts' {total:,}")
        out += summary_problems(path, manifest)
    return out


def _one_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return lines[0] if lines else type(e).__name__
