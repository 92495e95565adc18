"""Batch execution shared by every game: threads, batches, progress.

A run of N hands (or games) is cut into batches of consecutive indices; each
batch is one call of a game's batch kernel, whose blocks go to threads
(:func:`simkit.base.jit.in_lanes`).  Every hand's random stream depends only
on (seed, hand index), so the batch size and the thread count never change a
result.

Long runs are cut into chunks one level up, in :mod:`simkit.runs.chunks`: each
chunk is written as it finishes (so an interrupted run resumes), and chunks
can run on this process's threads or as tasks on a Dask cluster.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import numpy as np

from simkit.base.errors import InputError

BATCH = 1 << 20      # hands per kernel call: ~50 MB of records, a fraction of a second
T = TypeVar("T")


def max_threads() -> int:
    import numba
    return int(numba.config.NUMBA_NUM_THREADS)


def set_threads(threads: int | None) -> int:
    """Run kernels on ``threads`` threads (default: all); returns the number used.

    numba fixes the pool size at import (``NUMBA_NUM_THREADS``); this can only
    lower it.  The count is numba's (:func:`numba.set_num_threads`), which
    :func:`simkit.base.jit.in_lanes` reads for the games' kernels and numba's
    own ``prange`` loops (the solver's, the yardstick's) use.  Work is handed
    out as threads become free (``set_parallel_chunksize(1)`` for the
    ``prange`` loops), not split in equal halves up front: on a shared machine
    a thread that is held up leaves the other idle at the end for less time
    (the results do not depend on which thread plays a block).
    """
    import numba
    top = max_threads()
    if threads is None:
        threads = top
    if not 1 <= threads <= top:
        raise InputError(f"bad thread count {threads}: expected 1 to {top} on this machine "
                         f"(NUMBA_NUM_THREADS={top})")
    numba.set_num_threads(threads)
    numba.set_parallel_chunksize(1)     # thread-local: set where the kernels are called
    return threads


#: The most hands, games or samples any command plays: a run directory holds at
#: most 1,000,000 parts of a 1,000,000-unit chunk.
MAX_COUNT = 10 ** 12
#: The most a command that holds every unit in memory at once takes (the
#: advisor's samples, a benchmark's hands, a study's tables): about 5 GB of
#: records at Pepper's 50 bytes a hand.
MAX_HELD = 10 ** 8


#: Bytes one unit takes while a command holds them all, measured as peak memory
#: over ten times the count, with room to spare (2026-12-04): the advisor's
#: sample of a fixed hand through every plan (Pepper 455, Pitch 562), a
#: benchmark's hand (154), a chunk's record of a hand (Burraco 228, Pitch 240)
#: or of a game (Pitch 3,700).  An aggregated chunk is played in batches and
#: holds only its sums.
HELD_BYTES = {"sample": 700, "bench": 200, "hand": 400, "game": 5_000}


def memory_bytes() -> int:
    """The memory this process may use: the machine's, or its container's
    limit (cgroup v2 ``memory.max``) where that is lower."""
    import os
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            text = f.read(64).strip()
        if text.isdigit():
            total = min(total, int(text))
    except OSError:
        pass
    return total


def held_most(unit: str | int) -> int:
    """The most units one command holds at once, each of ``unit`` bytes (or a
    key of :data:`HELD_BYTES`): what fits in half of :func:`memory_bytes`, and
    at most :data:`MAX_HELD`."""
    each = HELD_BYTES[unit] if isinstance(unit, str) else unit
    return max(1, min(MAX_HELD, memory_bytes() // 2 // each))


def check_held(n: int, what: str, unit: str | int) -> int:
    """``n`` units held in memory at once (``unit``: as :func:`held_most`),
    from 1 to :func:`held_most`, or an InputError saying what the machine holds."""
    each = HELD_BYTES[unit] if isinstance(unit, str) else unit
    most = held_most(each)
    if isinstance(n, int) and not isinstance(n, bool) and n > most:
        raise InputError(f"bad {what} {n:,}: at most {most:,} on this machine (they are held "
                         f"in memory at once, about {each:,} bytes each, in half "
                         f"of its {memory_bytes() / 2**30:.1f} GiB)")
    return check_count(n, what, MAX_HELD)


def check_count(n: int, what: str = "--hands", most: int = MAX_COUNT) -> int:
    """A number of hands, games or samples from 1 to ``most``, or an InputError
    naming it: every command checks its counts here, before any work."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= most:
        shown = f"{n:,}" if isinstance(n, int) and not isinstance(n, bool) else repr(n)
        raise InputError(f"bad {what} {shown}: expected a whole number from 1 to {most:,}"
                         + ("" if most == MAX_COUNT else " (it is held in memory at once)"))
    return n


def run_batches(compute: Callable[[int, int], T], total: int, *, start: int = 0,
                batch: int = BATCH, progress: bool = False, unit: str = "hand",
                desc: str | None = None) -> Iterator[T]:
    """Yield ``compute(first_index, count)`` for consecutive batches covering
    ``start .. start+total-1``.

    With ``progress`` a bar appears once the run has taken two seconds, so
    short runs stay quiet.
    """
    from tqdm import tqdm

    check_count(batch, "batch size")
    with tqdm(total=total, unit=unit, unit_scale=True, delay=2.0, disable=not progress,
              desc=desc, leave=False, dynamic_ncols=True) as bar:
        done = 0
        while done < total:
            count = min(batch, total - done)
            yield compute(start + done, count)
            done += count
            bar.update(count)


# --- work that reports progress and can be stopped (the web app's runs) -----------

class Cancelled(Exception):
    """Raised inside a run whose :class:`Work` was stopped."""


#: Kernel calls of work run from several threads (two browser tabs) take turns:
#: numba's thread pool is not to be entered from two threads at once.
KERNEL_LOCK = threading.Lock()
#: Step sizes of :func:`in_steps` adapt so that one step takes between these
#: (seconds): progress shows at least once a second and a stop is seen within one.
GROW, SHRINK = 0.25, 0.6


class Work:
    """A run's progress reports and its stop switch, passed as ``work=`` to the
    functions that accept it (the advisors, :func:`simkit.lab.compare.compare`).

    ``report(fraction)`` is called as the run goes (0 to 1; at least once a
    second on this machine); once ``stop`` (a :class:`threading.Event`) is set,
    the run raises :class:`Cancelled` at its next step.  A run announces its
    total effort with :meth:`expect` (in any unit, e.g. deals played) and
    moves it on with :meth:`add`.
    """

    def __init__(self, report: Callable[[float], None] | None = None,
                 stop: threading.Event | None = None):
        self.report = report
        self.stop = stop or threading.Event()
        self.total = 0.0
        self.done = 0.0

    def expect(self, amount: float) -> None:
        """Add ``amount`` to the run's total effort."""
        self.total += amount

    def add(self, amount: float) -> None:
        """``amount`` of the effort is done: report the new fraction."""
        self.done += amount
        if self.report is not None and self.total > 0:
            self.report(min(1.0, self.done / self.total))

    def check(self) -> None:
        """Raise :class:`Cancelled` if the work was stopped."""
        if self.stop.is_set():
            raise Cancelled("stopped")


#: Seconds between looks at the stop switch while waiting for :data:`KERNEL_LOCK`.
WAIT = 0.05


def steps(count: int, work: Work, weight: float = 1.0) -> Iterator[tuple[int, int]]:
    """``(first, n)`` steps covering units ``0 .. count-1``, each computed by the
    caller while this holds :data:`KERNEL_LOCK`; between steps, a stop is
    checked (also while waiting for the lock, behind other runs' steps) and
    ``weight`` of effort per unit reported.  A step starts at 64 units and
    doubles while it takes under :data:`GROW` seconds, halving over
    :data:`SHRINK`."""
    first, step = 0, 64
    while first < count:
        work.check()
        n = min(step, count - first)
        t0 = time.perf_counter()
        while not KERNEL_LOCK.acquire(timeout=WAIT):
            work.check()
        try:
            yield first, n
        finally:
            KERNEL_LOCK.release()
        took = time.perf_counter() - t0
        first += n
        work.add(n * weight)
        if took < GROW:
            step *= 2
        elif took > SHRINK and step > 1:
            step //= 2


def in_steps(compute: Callable[[int, int], np.ndarray], count: int, work: Work | None,
             weight: float = 1.0) -> np.ndarray:
    """``compute(first, n)`` over units ``0 .. count-1``: one call without
    ``work``; with it, in :func:`steps` whose rows are concatenated (every
    unit's stream depends on its number alone, so the result is the same)."""
    if work is None:
        return compute(0, count)
    return np.concatenate([compute(first, n) for first, n in steps(count, work, weight)])
