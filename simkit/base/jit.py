"""The one place that holds numba's jit options, and where compiled kernels are kept.

Every kernel in simkit is compiled through :func:`kernel` so that caching,
the error model and parallelism are set consistently.  ``cache=True`` keeps
compiled machine code on disk between runs (first call: seconds; later: ms).
Recursive functions are avoided: caching them has crashed numba here.

The machine code is kept in the user's cache directory (:func:`cache_root`:
``$SIMKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/simkit``, else
``~/.cache/simkit``), never beside the package: files written into an
installed package outlive it (``pip`` removes only what it installed), and
a ``simkit/`` folder left in ``site-packages`` would shadow the next install.

numba checks a cached kernel only against its own source file, but a kernel
inlines functions and reads constants of other modules (a game's solver,
policy parameter layouts, rule codes, the shared bit and stream helpers):
edited alone, those would leave stale machine code in use.  So simkit's
kernels are cached with :class:`_PackageLocator`, whose stamp is a hash of
the modules of the kernel's package that kernels read (:data:`KERNEL_SIDE`,
the same file names in every game folder) and the shared modules they read
(:data:`SHARED`): editing any of them compiles that package's kernels anew,
while editing a reference engine, an advisor or an ``api.py`` does not.  The
cache directory is named by that stamp, so two installs of the same code (a
``pip install .`` and an editable checkout) share one compiled copy, and
installs of different code never overwrite each other's.  Copies unused for
:data:`KEEP_DAYS` days are removed when a new one is made.

numba trusts what it reads back: an entry of the cache cut short or
overwritten (a full disk, a bad copy) raised an ``UnpicklingError`` or
``EOFError`` on every run.  A damaged entry of simkit's kernels is removed and
the kernel compiled again, with one warning (:func:`_repairing`).  A cache
directory simkit cannot make or write (a file where it should be, a
read-only home) is one warning, and the kernels are compiled without a cache
rather than written into the package (numba's own fallback).

Each of those changes to numba (the cache locator, the load and save wrappers,
and the compile-time ones below: the inlined IR made once, blocks copied with
one scope, the serial pipeline's copy propagation; and
:func:`simkit.base.stack.keep_chunks`) is made only where numba's code is the
code it was written and tested for: :func:`_known` compares a fingerprint of
the source of the functions it replaces or leans on with those of the numba
releases simkit was tested with (:data:`PATCHES`).  Any other numba is left as
it is, with one warning per patch naming the speed-up lost; without the
locator, kernels are kept with numba's own (:func:`_numba_keeps`).
``SIMKIT_NO_PATCHES=1`` leaves numba, llvmlite and CPython exactly as they are.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import inspect
import linecache
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numba
from numba import types
from numba.core import caching, compiler, event, ir, ir_utils
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.inline_closurecall import InlineWorker
from numba.core.typed_passes import NopythonRewrites
from numba.extending import overload

from simkit.base import stack

#: The modules of a game's package that its kernels import or read constants from
#: (and every ``kernel_*.py``: a kernel split along its seams, :func:`kernel_side`).
KERNEL_SIDE = ("kernel.py", "tables.py", "solver.py", "expert.py", "policies.py", "rules.py")


def kernel_side(name: str) -> bool:
    """Whether the module file ``name`` of a game's package is one its kernels read."""
    return name in KERNEL_SIDE or (name.startswith("kernel_") and name.endswith(".py"))


#: The modules outside a game's package that kernels (or the modules above) read.
#: Paths relative to the package's top folder.
SHARED = ("base/bits.py", "base/jit.py", "base/rng.py", "policy.py", "base/config.py",
          "base/cards.py", "base/errors.py", "yardstick.py", "base/lead.py", "base/files.py",
          "base/stack.py")
#: A compiled copy not used for this many days is removed when another is made.
KEEP_DAYS = 30
#: Which kernels declared ``inline=True`` numba inlines: ``SIMKIT_INLINE`` unset
#: (or ``declared``), all of them; ``never``, none; else a comma-separated list
#: of functions compiled on their own instead, each a name (``play_hand``: in
#: every module) or ``module:name`` (``pepper.kernel:play_hand``).  For
#: measuring what inlining costs in compile time and gives in speed
#: (``benchmarks/compile_costs.py``); it is part of the kernel cache's stamp,
#: so each choice keeps its own compiled copy.
_INLINE = os.environ.get("SIMKIT_INLINE", "").strip()
_INLINE = "" if _INLINE == "declared" else _INLINE
_NOT_INLINED = frozenset(n.strip() for n in _INLINE.split(",")) \
    if _INLINE not in ("", "never") else frozenset()


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # simkit/
_USED = ".last-used"


def cache_root() -> str:
    """The directory under which simkit keeps compiled kernels."""
    if os.environ.get("SIMKIT_CACHE_DIR"):
        return os.environ["SIMKIT_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "simkit")


@functools.cache
def _package_stamp(folder: str) -> bytes:
    """One hash of ``folder``'s :data:`KERNEL_SIDE` modules and of :data:`SHARED`
    (their contents, not their paths: the same code anywhere has one stamp)."""
    paths = sorted(os.path.join(folder, f) for f in os.listdir(folder) if kernel_side(f))
    paths += [os.path.join(_ROOT, f) for f in SHARED]
    digest = hashlib.sha256(numba.__version__.encode())
    digest.update(_INLINE.encode())     # another inlining compiles other machine code
    digest.update(",".join(sorted(ACTIVE)).encode())    # and another pipeline too
    for path in paths:
        digest.update(os.path.basename(path).encode())
        with open(path, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    return digest.digest()


def _planned_dir(folder: str) -> str:
    """Where the compiled copy of ``folder``'s kernels belongs (not made here)."""
    name = os.path.basename(folder) if folder != _ROOT else "simkit"
    return os.path.join(cache_root(), f"{name}-{_package_stamp(folder).hex()[:20]}")


@functools.cache
def _cache_dir(folder: str) -> str:
    """The compiled copy of ``folder``'s kernels: created, marked as used now,
    and the stale copies beside it removed."""
    return _made_dir(_planned_dir(folder))


def _made_dir(path: str) -> str:
    """The compiled copy ``path`` under :func:`cache_root`: created, marked as used
    now, and the stale copies beside it removed."""
    new = not os.path.isdir(path)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, _USED), "w"):
        pass                        # its time is the copy's last use
    if new:
        _remove_stale(cache_root(), keep=path)
    return path


def _remove_stale(top: str, keep: str) -> None:
    """Remove the compiled copies under ``top`` unused for :data:`KEEP_DAYS` days."""
    old = time.time() - KEEP_DAYS * 86400
    for entry in os.scandir(top):
        marker = os.path.join(entry.path, _USED)
        try:
            if entry.path != keep and entry.is_dir() and os.path.getmtime(marker) < old:
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:             # another process removed it, or no marker
            pass


# --- numba patched only where it is known ---------------------------------------------
# Each patch below replaces or wraps functions of numba's that are not its
# public API, and is right only for the code it was written against.  So each
# names those functions, and is made only when the fingerprint of their source
# (:func:`fingerprint`) is one of the numba releases it was tested with; any
# other numba is left alone, with one warning saying what is lost.  A numba
# release whose fingerprint is new is added here once the full suite and
# ``benchmarks/identical.py`` pass with it.

#: The warnings this process has given (:func:`_warn_once`), by kind.
_WARNED: set[str] = set()


def _warn_once(kind: str, message: str) -> None:
    """One line on stderr, the first time this process meets ``kind`` of trouble
    (with the kernel cache, every kernel would meet it again; a patch left out)."""
    if kind not in _WARNED:
        _WARNED.add(kind)
        print(f"simkit: warning: {message}", file=sys.stderr)


def _source(fn: Any) -> str:
    """The lines of the function ``fn`` (unwrapped) as its file has them: its
    decorators, its signature and the lines indented below it (what
    ``inspect.getsource`` finds, without tokenizing: a few milliseconds for all)."""
    code = inspect.unwrap(getattr(fn, "__func__", fn)).__code__
    lines = linecache.getlines(code.co_filename)[code.co_firstlineno - 1:]
    if not lines:
        raise OSError(f"no source for {code.co_name}")
    base = len(lines[0]) - len(lines[0].lstrip())
    end, body = 1, False
    for i, line in enumerate(lines[1:], 1):
        text = line.strip()
        if not text:
            continue
        if len(line) - len(line.lstrip()) > base:
            body = True
        elif body or not text.startswith((")", "@", "def ", "async def ")):
            break                       # the next statement (a signature's ")" is not)
        end = i + 1
    return "".join(lines[:end])


def fingerprint(targets: tuple[Any, ...]) -> str:
    """A short hash of the source of ``targets``: functions, or classes (their
    methods, by name); empty where some source cannot be read."""
    digest = hashlib.sha256()
    try:
        for target in targets:
            if isinstance(target, type):
                for name, member in sorted(vars(target).items()):
                    fn = getattr(member, "__func__", member)
                    if inspect.isfunction(fn) and fn.__module__ != __name__:   # not ours
                        digest.update(f"{name}:{_source(fn)}".encode())
            else:
                digest.update(_source(target).encode())
    except (AttributeError, OSError, TypeError, ValueError):
        return ""
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Patch:
    """One change simkit makes to numba: what it replaces, in words; what is lost
    without it; and the fingerprints (:func:`fingerprint`) of the numba code it
    was tested on."""
    name: str
    replaces: str
    lost: str
    known: frozenset[str]


#: simkit's patches of numba (:func:`simkit.base.stack.keep_chunks` checks its own).
#: The fingerprints are those of numba 0.68.0 and 0.68.1, the releases tested (the
#: lowest and highest pyproject.toml allows: simkit's kernels index arrays with
#: IntEnum members, which numba types from 0.68.0 on).  Each comment: the
#: releases whose code it is.
PATCHES = {p.name: p for p in [
    Patch("locator", "cache locator classes (caching._CacheLocator, CacheImpl.__init__)",
          "kernels are kept by numba's own stamp, once per simkit source: editing any "
          "kernel module compiles every game's kernels again",
          frozenset({"9c33023935c76ac1"})),    # 0.62.0 to 0.68.1
    Patch("repair", "cache load and save (caching.Cache, IndexDataCacheFile)",
          "a damaged compiled kernel stops every run with numba's error until its cache "
          "folder is removed, and an unwritable one stops the run",
          frozenset({"786151165f4d70e3"})),    # 0.59.0 to 0.68.1
    Patch("inline-once", "InlineWorker.run_untyped_passes",
          "first compiles take longer: an inlined function's IR is made again at every "
          "call site (Pitch's batch kernel: 23 s of its 42 s, 14 s with it)",
          frozenset({"56b551183a8cf866"})),    # 0.59.0 to 0.68.1
    Patch("one-copy", "InlineWorker.inline_ir and ir.Block",
          "first compiles take longer: an inlined function is copied block by block "
          "(Pitch's play: 4.3 s a copy, 0.3 s with it)",
          frozenset({"82c48127cb0c33d0"})),    # 0.59.0 to 0.68.1
    Patch("pipeline", "copy propagation and the nopython pipeline (ir_utils, compiler)",
          "serial kernels keep the copies their inlined calls make, an atomic reference "
          "count each (a play about 17% slower)",
          frozenset({"c4c77cfdacef7ab0"})),    # 0.59.0 to 0.68.1
]}
#: The patches made in this process (:func:`_known`).
ACTIVE: set[str] = set()
#: Each patch's fingerprint of the numba in this process, taken before any was made.
FOUND: dict[str, str] = {}


def _known(name: str, *targets: Any) -> bool:
    """Whether patch ``name`` is made: not under ``SIMKIT_NO_PATCHES``, and only
    where ``targets`` (what it replaces or leans on) have a fingerprint it was
    tested on; otherwise one warning naming what is lost."""
    patch = PATCHES[name]
    FOUND[name] = fingerprint(targets)
    if stack.patches_off():
        return False
    if FOUND[name] not in patch.known:
        _warn_once(name, f"numba {numba.__version__}: its {patch.replaces} are not the "
                         f"code simkit was tested with, so they are left as they are and "
                         f"{patch.lost}")
        return False
    ACTIVE.add(name)
    return True


_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl
# every patch decided before any is made (each fingerprint of numba's own code,
# and the kernel cache's stamp names the patches made)
_known("locator", caching._CacheLocator, _IMPL.__init__)
_known("repair", caching.Cache.load_overload, caching.Cache._load_overload,
       caching.Cache.save_overload, caching.Cache._save_overload, caching.IndexDataCacheFile)
_known("inline-once", InlineWorker.run_untyped_passes, InlineWorker.inline_function,
       InlineWorker.inline_ir)
_known("one-copy", InlineWorker.inline_ir, ir.Block, ir.Scope)
_known("pipeline", ir_utils.copy_propagate, ir_utils.init_copy_propagate_data,
       ir_utils.simplify, compiler.DefaultPassBuilder.define_nopython_pipeline)


class _PackageLocator(caching._CacheLocator):
    """numba's cache for simkit's kernels: in :func:`cache_root`, stamped with
    the whole package (see the module notes).  ``usable`` is False where the
    cache directory cannot be made or written: the kernels are then compiled
    without a cache (:func:`_repairing`)."""

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._folder = os.path.dirname(os.path.abspath(py_file))
        self.usable = True

    def get_cache_path(self) -> str:
        return _cache_dir(self._folder) if self.usable else _planned_dir(self._folder)

    def get_source_stamp(self) -> bytes:
        return _package_stamp(self._folder)

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Callable[..., Any], py_file: str) -> _PackageLocator | None:
        # only simkit's own kernels, and not when the user chose a cache directory
        inside = os.path.abspath(py_file).startswith(_ROOT + os.sep)
        if numba.config.CACHE_DIR or not inside:
            return None
        self = cls(py_func, py_file)
        try:
            self.ensure_cache_path()
        except OSError as e:
            # numba's next choice would be the package's own __pycache__: no cache instead
            _warn_once("place", f"cannot keep compiled kernels in '{_planned_dir(self._folder)}' "
                                f"({_why_not(_planned_dir(self._folder), e)}): compiling "
                                f"without a cache, as every run will; set SIMKIT_CACHE_DIR to "
                                f"a writable directory")
            self.usable = False
        return self


_LOCATORS = _IMPL._locator_classes


def _numba_keeps() -> None:
    """Without :class:`_PackageLocator`, simkit's kernels are kept by numba's own
    locator (each stamped by its own file only) in a folder of
    :func:`cache_root` named by every kernel module of simkit, so that no stale
    machine code is used and none is written into the package; a cache folder
    the user chose (``NUMBA_CACHE_DIR``) is left as it is."""
    if numba.config.CACHE_DIR:
        return
    digest = hashlib.sha256()
    for entry in sorted(os.scandir(_ROOT), key=lambda e: e.name):
        if entry.is_dir() and not entry.name.startswith(("_", ".")):
            digest.update(entry.name.encode() + _package_stamp(entry.path))
    digest.update(_package_stamp(_ROOT))
    with contextlib.suppress(OSError):      # numba's own choice, where it cannot be made
        numba.config.CACHE_DIR = _made_dir(
            os.path.join(cache_root(), f"numba-{digest.hexdigest()[:20]}"))


if "locator" in ACTIVE:
    if _PackageLocator not in _LOCATORS:
        _LOCATORS.insert(0, _PackageLocator)
else:
    _numba_keeps()

def _why_not(path: str, error: OSError) -> str:
    """Why the directory ``path`` cannot be made, in words: the first of it and
    its parents that is a file, or the system's reason."""
    here = path
    while here and not os.path.isdir(here):
        if os.path.lexists(here):
            return f"'{here}' is a file, not a directory"
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return error.strerror or str(error)


def _ours(cache: Any) -> bool:
    """Whether numba's cache ``cache`` is of one of simkit's kernels."""
    path = os.path.abspath(str(cache._py_func.__code__.co_filename))
    return path.startswith(_ROOT + os.sep)


def _forget(cache_file: Any) -> None:
    """Remove a kernel's index and data files from the cache (damaged; another
    process may have removed them already)."""
    index = cache_file._index_name
    base = index[:-len(".nbi")] + "."
    try:
        names = os.listdir(cache_file._cache_path)
    except OSError:
        return
    for name in names:
        if name == index or (name.startswith(base) and name.endswith(".nbc")):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(cache_file._cache_path, name))


def _repairing(load: Callable[..., Any]) -> Callable[..., Any]:
    """numba's ``Cache.load_overload`` for simkit's kernels: an entry that cannot
    be read back (cut short, overwritten: any error unpickling or rebuilding
    it) is removed and compiled again with one warning, and a kernel whose
    cache directory is not usable is compiled without a cache."""
    @functools.wraps(load)
    def loading(self: Any, sig: Any, target_context: Any) -> Any:
        if not _ours(self):
            return load(self, sig, target_context)
        if not getattr(self._impl.locator, "usable", True):
            self.disable()                      # nothing is read or written
            return None
        try:
            return load(self, sig, target_context)
        except Exception as e:                  # what a damaged pickle raises varies
            _forget(self._cache_file)
            entry = self._cache_file._index_name.removesuffix(".nbi")
            _warn_once("damaged", f"a compiled kernel kept in '{self._cache_path}' was "
                                  f"damaged ({entry}: {type(e).__name__}); it was removed "
                                  f"and is compiled again")
            return None
    loading._simkit_repair = True               # type: ignore[attr-defined]
    return loading


def _saving(save: Callable[..., Any]) -> Callable[..., Any]:
    """numba's ``Cache.save_overload`` for simkit's kernels: a cache that cannot
    be written (a full disk, a directory made read-only) is one warning, and
    the run goes on with the kernel it compiled."""
    @functools.wraps(save)
    def saving(self: Any, sig: Any, data: Any) -> None:
        if not _ours(self):
            save(self, sig, data)
            return
        try:
            save(self, sig, data)
        except OSError as e:
            self.disable()
            _warn_once("save", f"cannot keep compiled kernels in '{self._cache_path}' "
                               f"({e.strerror or e}): they are compiled again next time")
    saving._simkit_repair = True                # type: ignore[attr-defined]
    return saving


if "repair" in ACTIVE and not getattr(caching.Cache.load_overload, "_simkit_repair", False):
    caching.Cache.load_overload = _repairing(caching.Cache.load_overload)
    caching.Cache.save_overload = _saving(caching.Cache.save_overload)

_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}


# --- the IR of an inlined function, made once ------------------------------------
# numba inlines a function declared ``inline="always"`` at the level of its IR:
# at every call site it translates the function's bytecode and runs the untyped
# passes over it anew, those passes inlining the function's own inlined callees
# again, all the way down.  A play calls the same small helpers at hundreds of
# sites: Pitch's batch kernel spent 23 of its 42 compile seconds there (14 now).
# The result depends only on the function and two flags, and numba copies it
# before changing it (``InlineWorker.inline_ir``, which numba's own inlining of
# overloads feeds from a cache the same way), so it is made once per function.

_UNTYPED: dict[tuple[Any, bool, bool], Any] = {}


def _untyped_once(run: Callable[..., Any]) -> Callable[..., Any]:
    """numba's ``InlineWorker.run_untyped_passes`` kept per function in :data:`_UNTYPED`."""
    @functools.wraps(run)
    def cached(self: Any, func: Any, enable_ssa: bool = False) -> Any:
        key = (func, enable_ssa, bool(self.flags.no_rewrites))
        if key not in _UNTYPED:
            _UNTYPED[key] = run(self, func, enable_ssa)
        self.flags.enable_ssa = enable_ssa       # as the pass does, hit or miss
        return _UNTYPED[key]
    cached._simkit_once = True                   # type: ignore[attr-defined]
    return cached


if "inline-once" in ACTIVE and not getattr(InlineWorker.run_untyped_passes, "_simkit_once", False):
    InlineWorker.run_untyped_passes = _untyped_once(InlineWorker.run_untyped_passes)


# --- an inlined function's IR copied at once, not block by block -----------------------
# At every call site numba copies the inlined function's IR twice, with one
# ``copy.deepcopy`` per block.  Each of those copies the function's scope again
# (every variable of the function, referred to by every block), and then
# compares each block's scope with the others' to find the one scope.  Pitch's
# play has 450 blocks and 3,771 variables: copied block by block, 4.3 s; at
# once, 0.3 s.  So while numba inlines, the blocks of one scope share one copy
# memo, which is what a single ``deepcopy`` of all the blocks would do.

#: While ``InlineWorker.inline_ir`` runs: a deepcopy memo per scope whose blocks are copied.
_MEMOS: list[dict[int, dict[int, Any]]] = []


def _block_deepcopy(self: ir.Block, memo: dict[int, Any]) -> ir.Block:
    """``copy.deepcopy`` of a numba IR block, sharing :data:`_MEMOS`'s memo when set."""
    if _MEMOS:
        shared = _MEMOS[-1].get(id(self.scope))
        if shared is None or id(self) in shared:     # a block copied again: a new copy
            _MEMOS[-1][id(self.scope)] = shared = memo
        memo = shared
    new = ir.Block.__new__(ir.Block)
    memo[id(self)] = new
    new.__dict__.update(copy.deepcopy(self.__dict__, memo))
    return new


def _memo_per_scope(inline_ir: Callable[..., Any]) -> Callable[..., Any]:
    """numba's ``InlineWorker.inline_ir`` with the memos of :data:`_MEMOS` set."""
    @functools.wraps(inline_ir)
    def inlining(self: Any, *args: Any, **kwargs: Any) -> Any:
        _MEMOS.append({})
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            _MEMOS.pop()
    inlining._simkit_memo = True                 # type: ignore[attr-defined]
    return inlining


if "one-copy" in ACTIVE and not getattr(InlineWorker.inline_ir, "_simkit_memo", False):
    InlineWorker.inline_ir = _memo_per_scope(InlineWorker.inline_ir)
    ir.Block.__deepcopy__ = _block_deepcopy


class _KeepChunks(event.Listener):
    """Keeps Python's frame stack from thrashing (:func:`simkit.base.stack.keep_chunks`)
    from the first compile on: a process that only loads cached kernels is left as is."""

    def on_start(self, ev: Any) -> None:
        stack.keep_chunks()

    def on_end(self, ev: Any) -> None:
        pass


if not stack.patches_off():
    event.register("numba:compile", _KeepChunks())


def inlined(where: str, declared: bool) -> bool:
    """Whether the kernel ``where`` (``module:name``, or a bare name), declared
    ``inline=declared``, is inlined (:data:`_INLINE`)."""
    if not declared or _INLINE == "never":
        return False
    name = where.rpartition(":")[2]
    return not any(n == name or (":" in n and where.endswith(n)) for n in _NOT_INLINED)


def kernel(fn: Callable[..., Any] | None = None, *, parallel: bool = False,
           inline: bool = False) -> Any:
    """Decorator: compile ``fn`` with simkit's standard options.

    ``parallel=True`` is for the outer batch loops that use ``numba.prange``;
    inner per-hand functions stay serial.  ``inline=True`` inlines a function
    into its callers at numba's level, before type inference: for a function
    whose array arguments would otherwise cost reference counting at every
    call.  Its body is then typed again in every kernel that reaches it, which
    is most of a first start's compile time (``benchmarks/compile_costs.py``;
    ``SIMKIT_INLINE`` overrides the choice, :data:`_INLINE`).  Serial kernels
    are compiled with :class:`_Simplifying`, which removes the copies those
    inlined calls make.
    """
    # a numba dispatcher (numba is untyped to mypy), or the decorator making one
    def wrap(f: Callable[..., Any]) -> Any:
        # the parallel pipeline simplifies on its own (and takes no pipeline class)
        serial = {} if parallel or "pipeline" not in ACTIVE else {"pipeline_class": _Simplifying}
        return numba.njit(parallel=parallel,
                          inline="always" if inlined(f"{f.__module__}:{f.__name__}", inline)
                          else "never",
                          **_OPTIONS, **serial)(f)
    return wrap(fn) if fn is not None else wrap


# --- copy propagation for serial kernels ----------------------------------------------
# numba's serial pipeline keeps every copy of a variable it made (an inlined
# call copies each argument into a parameter), and a copy of an array costs an
# atomic reference count up and down; its parallel pipeline propagates the
# copies and removes the dead ones, so the same play ran about 17% slower in a
# serial kernel than inside a ``prange`` body.  Serial kernels get that step too.
#
# Its dead-code step is told that every mutable variable may alias an argument.
# numba's own alias analysis misses some aliases (an array unpacked from a tuple
# of four, ``k, q, out, r = 1, 0, rec, j``), and it drops a store into an array
# it believes dead: the parfor passes' ``simplify`` did exactly that to Pitch's
# records once its session loop picked the record array that way.

def _copy_propagate(blocks: dict[int, Any], typemap: dict[str, Any]) -> dict[int, Any]:
    """The copies live on entry to each block: numba's ``ir_utils.copy_propagate``,
    whose fixed-point loop deep-copies every block's set of copies each round to
    compare the next round with (Pitch's batch kernel: 3.5 of its 19 compile
    seconds, Burraco's 7 of 34).  A round replaces those sets, never changes
    them, so a copy of the dict compares the same."""
    cfg = ir_utils.compute_cfg_from_blocks(blocks)
    entry = cfg.entry_point()
    gen, _, kill, in_copies, out_copies = ir_utils.init_copy_propagate_data(blocks, entry, typemap)
    live: dict[int, Any] = in_copies
    before = None
    after = dict(out_copies)
    while before != after:
        for label in blocks:
            if label == entry:
                continue
            preds = [p for p, _ in cfg.predecessors(label)]
            live[label] = set.intersection(*(out_copies[p] for p in preds))
            out_copies[label] = gen[label] | (live[label] - kill[label])
        before, after = after, dict(out_copies)
    return live


@register_pass(mutates_CFG=True, analysis_only=False)
class _Simplify(FunctionPass):
    """Copy propagation, removal of dead assignments and CFG simplification (the
    steps of numba's ``ir_utils.simplify``, which its parfor passes run) after
    the typed rewrites; no store into an array is ever removed."""
    _name = "simkit_simplify"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        func_ir, typemap = state.func_ir, state.typemap
        in_copies = _copy_propagate(func_ir.blocks, typemap)
        saved = ir_utils.apply_copy_propagate(func_ir.blocks, in_copies,
                                              ir_utils.get_name_var_table(func_ir.blocks),
                                              typemap, state.calltypes)
        renamed = ir_utils.restore_copy_var_names(func_ir.blocks, saved, typemap)
        state.metadata.setdefault("var_rename_map", {}).update(renamed)
        mutable = {v for v in typemap if not ir_utils.is_immutable_type(v, typemap)}
        ir_utils.remove_dead(func_ir.blocks, func_ir.arg_names, func_ir, typemap,
                             alias_map={}, arg_aliases=mutable)
        func_ir.blocks = ir_utils.simplify_CFG(func_ir.blocks)
        return True


class _Simplifying(compiler.CompilerBase):
    """numba's nopython pipeline with :class:`_Simplify` after its typed rewrites."""

    def define_pipelines(self) -> list[Any]:
        pm = compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.add_pass_after(_Simplify, NopythonRewrites)
        pm.finalize()
        return [pm]


def if_given(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A kernel-only stand-in for kernel ``fn``: ``g = if_given(fn)``, then in a
    kernel ``g(flag, otherwise, *args)`` is ``fn(*args)`` when ``flag`` is not
    None, else ``otherwise``.

    Decided when the kernel is compiled, from ``flag``'s type: a kernel called
    with ``flag`` None never compiles ``fn`` at all.  So a costly optional
    player (Pepper's searching expert) is compiled only by the runs that seat
    it, and a newcomer's first command does not wait for it.  (``fn`` is bound
    here rather than passed in: a function passed as a value is a pointer to a
    Python object, and numba cannot cache a kernel holding one.)"""
    def stand_in(flag: object, otherwise: object, *args: object) -> object:
        raise TypeError(f"if_given({fn.__name__}) is for kernels only")

    @overload(stand_in)
    def _choose(flag: object, otherwise: object, *args: object) -> Callable[..., object]:
        # numba requires the implementations' parameters, annotations included,
        # to be the typing function's
        def absent(flag: object, otherwise: object, *args: object) -> object:
            return otherwise

        def given(flag: object, otherwise: object, *args: object) -> object:
            return fn(*args)
        return absent if isinstance(flag, (types.NoneType, types.Omitted)) else given
    return stand_in


# --- the batch loop every game's kernel runs -------------------------------------
# A batch of ``count`` units (hands or games) is cut into blocks of ``size``
# consecutive units (a block, or a fixed group of them, is a *lane*).  A game's
# batch kernel is serial: it plays lanes ``lo .. hi-1`` with its scratch arrays
# allocated once, and :func:`in_lanes` hands ranges of lanes to threads.
#
#     @kernel
#     def _lanes(lo, hi, count, ...):
#         ... scratch ...
#         for b in range(lo, hi):
#             for j in block(b, count, BLOCK):
#                 ... unit j ...
#
#     in_lanes(_lanes, -(-count // BLOCK), count, ...)     # the number of blocks
#
# Threads of Python, not ``numba.prange``: a parallel kernel is compiled twice
# over (a gufunc for its loop body, then the kernel around it), and each of
# the two links in and optimises again the machine code of all its body calls,
# the whole play.  The parallel kernels took 48 of the 254 seconds that every
# kernel took to compile; a serial kernel called from Python is compiled once.

#: Ranges of lanes per thread in a batch: taken as threads become free, so that
#: a thread held up on a shared machine leaves little of the batch to the end
#: (numba's ``prange`` handed out one block at a time); a call of a kernel
#: costs about a microsecond, so even short ranges cost nothing measurable.
PIECES = 64


def in_lanes(lanes: Callable[..., Any], n_lanes: int, *args: Any) -> None:
    """Run the serial kernel ``lanes(lo, hi, *args)`` over lanes ``0 .. n_lanes-1``
    on numba's thread count (:func:`numba.get_num_threads`): one call on one
    thread, else :data:`PIECES` ranges per thread, this thread and its helpers
    each taking the next range as it finishes one.  Kernels release the GIL
    (``nogil``), so the threads run at once; what a lane computes never
    depends on who ran it."""
    threads = max(1, min(numba.get_num_threads(), n_lanes))
    if threads == 1:
        lanes(0, n_lanes, *args)
        return
    pieces = min(n_lanes, PIECES * threads)
    cuts = [n_lanes * k // pieces for k in range(pieces + 1)]
    todo = iter(range(pieces))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                k = next(todo, None)
            if k is None:
                return
            lanes(cuts[k], cuts[k + 1], *args)

    # a pool per call, not one kept: a process forked later (multiprocessing)
    # would inherit a pool whose threads it does not have
    with ThreadPoolExecutor(threads - 1, thread_name_prefix="simkit-lanes") as pool:
        helpers = [pool.submit(work) for _ in range(threads - 1)]
        work()                 # this thread is one of them
        for h in helpers:
            h.result()


@kernel(inline=True)
def blocks(count: int, size: int) -> int:
    """Number of blocks of ``size`` units covering ``count`` units."""
    return (count + size - 1) // size


@kernel(inline=True)
def block(b: int, count: int, size: int) -> range:
    """The units (row indices) of block ``b``."""
    return range(b * size, min(count, (b + 1) * size))
