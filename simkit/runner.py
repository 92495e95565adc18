"""Batch execution shared by every game: threads, batches, progress.

A run of N hands (or games) is cut into batches of consecutive indices; each
batch is one call of a game's parallel kernel (which spreads it over
``numba.prange`` blocks).  Every hand's random stream depends only on (seed,
hand index), so the batch size and the thread count never change a result.

Long runs are cut into chunks one level up, in :mod:`simkit.chunks`: each
chunk is written as it finishes (so an interrupted run resumes), and chunks
can run on this process's threads or as tasks on a Dask cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from simkit.errors import InputError

BATCH = 1 << 20      # hands per kernel call: ~50 MB of records, a fraction of a second
T = TypeVar("T")


def max_threads() -> int:
    import numba
    return numba.config.NUMBA_NUM_THREADS


def set_threads(threads: int | None) -> int:
    """Run kernels on ``threads`` threads (default: all); returns the number used.

    numba fixes the pool size at import (``NUMBA_NUM_THREADS``); this can only
    lower it.
    """
    import numba
    top = max_threads()
    if threads is None:
        threads = top
    if not 1 <= threads <= top:
        raise InputError(f"bad thread count {threads}: expected 1 to {top} on this machine "
                         f"(NUMBA_NUM_THREADS={top})")
    numba.set_num_threads(threads)
    return threads


#: The most hands, games or samples any command plays: a run directory holds at
#: most 1,000,000 parts of a 1,000,000-unit chunk.
MAX_COUNT = 10 ** 12
#: The most a command that holds every unit in memory at once takes (the
#: advisor's samples, a benchmark's hands, a study's tables): about 5 GB of
#: records at Pepper's 50 bytes a hand.
MAX_HELD = 10 ** 8


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
