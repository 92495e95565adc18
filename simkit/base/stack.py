"""Python's frame stack kept from thrashing while numba compiles.

CPython 3.11 and 3.12 keep the frames of Python calls in chunks of 16 KiB,
each asked of the operating system when a call needs it and given back as
soon as the call that opened it returns.  A loop that calls across a chunk's
edge over and over maps and unmaps a chunk on every call (CPython issue
gh-142183, mended in 3.13 and 3.14 by keeping one chunk per thread).
numba's compiler makes such calls: it copies its IR with ``copy.deepcopy``,
recursing and returning millions of times, and whether one of its
recursion depths falls on a chunk's edge depends on how deep the call that
started the compile was.  ``simkit simulate burraco``'s first start mapped
and unmapped 3.4 million chunks: 21 s of system time, against 3 s in its
warm-up step, which compiles the same kernels from a shallower call.

:func:`keep_chunks` mends it as CPython 3.13 does: it wraps the interpreter's
arena allocator (``PyObject_SetArenaAllocator``, which CPython asks for these
chunks) so that up to :data:`KEEP` freed chunks are kept for the next call
instead of given back.  Every other request goes to the allocator it wraps,
so memory it handed out before is freed by it as before.  The wrapper is a
few lines of LLVM IR, compiled by llvmlite (numba's own code generator) in
milliseconds; it must be machine code, since Python code cannot run while
the interpreter is making room for a frame.  :mod:`simkit.base.jit` installs
it when numba first compiles in the process, so a process that only loads
cached kernels is left as it is.  CPython calls the arena allocator with the
GIL held (or, at exit, from the one thread left), so the list of kept chunks
needs no lock.

Like every patch of simkit's (:mod:`simkit.base.jit`), it is made only where
it is known: on the CPythons that need it (:data:`NEEDED`), with an llvmlite
of the range it was tested with (:data:`LLVMLITE`), and not at all under
``SIMKIT_NO_PATCHES=1`` (:func:`patches_off`).  With another llvmlite it is
left out, with one warning naming what that costs.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Any

import llvmlite
import llvmlite.binding as llvm

#: The size of one chunk of CPython's frame stack (``DATA_STACK_CHUNK_SIZE``).
CHUNK = 16 * 1024
#: At most this many freed chunks are kept (1 MiB).
KEEP = 64
#: Whether this interpreter gives back its chunks on every return.
NEEDED = (sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] < (3, 13)
          and ctypes.sizeof(ctypes.c_void_p) == 8)
#: The llvmlite releases the machine code below was built and tested with: from
#: the first to before the second (pyproject.toml's range, through numba's pins).
LLVMLITE = ((0, 50), (0, 51))
#: What a first compile loses where the allocator is left as CPython has it.
LOST = ("a first compile from a deep call maps and unmaps frame-stack memory "
        "millions of times (simkit simulate burraco's first start: 21 s of system "
        "time more)")


def patches_off() -> bool:
    """Whether ``SIMKIT_NO_PATCHES`` asks for numba, llvmlite and CPython exactly
    as they are: every patch of simkit's left out (any value but empty or 0)."""
    return os.environ.get("SIMKIT_NO_PATCHES", "").strip() not in ("", "0")


def version(text: str) -> tuple[int, ...]:
    """A release's leading numbers: ``"0.45.1rc1"`` is (0, 45, 1)."""
    numbers = []
    for part in text.split("."):
        digits = part[:len(part) - len(part.lstrip("0123456789"))]
        if not digits:
            break
        numbers.append(int(digits))
        if digits != part:
            break
    return tuple(numbers)


def _known() -> bool:
    """Whether this llvmlite is one :data:`LLVMLITE` names; else one warning."""
    if LLVMLITE[0] <= version(llvmlite.__version__) < LLVMLITE[1]:
        return True
    print(f"simkit: warning: llvmlite {llvmlite.__version__} is not one simkit was tested "
          f"with ({'.'.join(map(str, LLVMLITE[0]))} up to before "
          f"{'.'.join(map(str, LLVMLITE[1]))}): CPython's frame stack is left as it is, "
          f"so {LOST}", file=sys.stderr)
    return False


class _Arena(ctypes.Structure):
    """CPython's ``PyObjectArenaAllocator``."""
    _fields_ = [("ctx", ctypes.c_void_p), ("alloc", ctypes.c_void_p), ("free", ctypes.c_void_p)]


# alloc(ctx, size) and free(ctx, ptr, size) with CPython's signatures: a chunk
# of CHUNK bytes comes from, and goes back to, the kept list while it has one
# (alloc) or room (free); anything else goes to the wrapped allocator.
_IR = """
@kept = internal global [{keep} x i8*] zeroinitializer
@count = internal global i64 0

define i8* @alloc(i8* %ctx, i64 %size) {{
entry:
  %n = load i64, i64* @count
  %chunk = icmp eq i64 %size, {chunk}
  %have = icmp ugt i64 %n, 0
  %reuse = and i1 %chunk, %have
  br i1 %reuse, label %pop, label %wrapped
pop:
  %i = sub i64 %n, 1
  store i64 %i, i64* @count
  %slot = getelementptr [{keep} x i8*], [{keep} x i8*]* @kept, i64 0, i64 %i
  %p = load i8*, i8** %slot
  ret i8* %p
wrapped:
  %f = inttoptr i64 {alloc} to i8* (i8*, i64)*
  %c = inttoptr i64 {ctx} to i8*
  %q = call i8* %f(i8* %c, i64 %size)
  ret i8* %q
}}

define void @free(i8* %ctx, i8* %ptr, i64 %size) {{
entry:
  %n = load i64, i64* @count
  %chunk = icmp eq i64 %size, {chunk}
  %room = icmp ult i64 %n, {keep}
  %keep = and i1 %chunk, %room
  br i1 %keep, label %push, label %wrapped
push:
  %slot = getelementptr [{keep} x i8*], [{keep} x i8*]* @kept, i64 0, i64 %n
  store i8* %ptr, i8** %slot
  %m = add i64 %n, 1
  store i64 %m, i64* @count
  ret void
wrapped:
  %f = inttoptr i64 {free} to void (i8*, i8*, i64)*
  %c = inttoptr i64 {ctx} to i8*
  call void %f(i8* %c, i8* %ptr, i64 %size)
  ret void
}}
"""

#: What :func:`keep_chunks` made: the execution engine holding the machine
#: code, and both allocators.
_INSTALLED: list[Any] = []
#: Not empty once :func:`keep_chunks` has found it must leave CPython alone.
_LEFT_OUT: list[bool] = []


def keep_chunks() -> bool:
    """Keep freed frame-stack chunks for reuse (see the module's docstring), once
    per process; whether they are kept.  Does nothing where CPython does not
    need it (:data:`NEEDED`), under ``SIMKIT_NO_PATCHES`` or with an llvmlite
    it was not tested with (:data:`LLVMLITE`: one warning, once)."""
    if _INSTALLED or _LEFT_OUT or not NEEDED:
        return bool(_INSTALLED)
    if patches_off() or not _known():
        _LEFT_OUT.append(True)
        return False
    wrapped = _Arena()
    ctypes.pythonapi.PyObject_GetArenaAllocator(ctypes.byref(wrapped))
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(_IR.format(keep=KEEP, chunk=CHUNK, ctx=wrapped.ctx or 0,
                                            alloc=wrapped.alloc, free=wrapped.free))
    engine = llvm.create_mcjit_compiler(
        module, llvm.Target.from_default_triple().create_target_machine())
    engine.finalize_object()
    keeping = _Arena(wrapped.ctx, engine.get_function_address("alloc"),
                     engine.get_function_address("free"))
    _INSTALLED.extend([engine, module, wrapped, keeping])
    # CPython calls the allocator until the very end of the process, after it
    # has cleared every module: the engine must never be freed
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(engine))
    ctypes.pythonapi.PyObject_SetArenaAllocator(ctypes.byref(keeping))
    return True


def kept() -> int:
    """How many freed chunks are kept now (0 before :func:`keep_chunks`)."""
    if not _INSTALLED:
        return 0
    return ctypes.c_int64.from_address(_INSTALLED[0].get_global_value_address("count")).value
