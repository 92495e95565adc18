"""Who led a game, for the kernels: each game keeps the bitmask of the sides at
the top after every step, and its lead changes, comeback and settled step are
read from that history at its end.  The definitions are
:mod:`simkit.base.drama`'s (which the reference engines call); this is the
kernels' own code for them, held to it by the differential tests.

A kernel starts a game's history with :func:`new_history` (one per block of
games, reused), adds each step's top with ``hist = note(hist, n, mask)``
(the array grows by doubling when full, so a game capped at a million hands
costs memory only if it lasts that long) and ends with :func:`summary`.
"""

from __future__ import annotations

import numpy as np

from simkit.base.bits import high_bit, popcount
from simkit.base.jit import kernel


@kernel
def new_history() -> np.ndarray:
    """An empty history for a block's games (grown as needed)."""
    return np.empty(64, np.int64)


@kernel
def note(hist: np.ndarray, n: int, mask: int) -> np.ndarray:
    """``hist`` with step ``n``'s top ``mask`` at index ``n``: the same array, or
    a copy twice as long when it is full."""
    if n >= hist.shape[0]:
        bigger = np.empty(2 * hist.shape[0], np.int64)
        bigger[:n] = hist[:n]
        hist = bigger
    hist[n] = mask
    return hist


@kernel
def summary(hist: np.ndarray, n: int, winners: int) -> tuple[int, int, int]:
    """``(lead_changes, comeback, settled)`` of a game of ``n`` steps whose tops
    are ``hist[:n]`` and whose winning sides are ``winners`` (a bitmask, 0:
    none); comeback is 0 or 1, settled -1 without exactly one winner."""
    changes = 0
    last = -1
    for k in range(n):
        m = hist[k]
        if popcount(m) == 1:
            leader = high_bit(m)
            if last >= 0 and leader != last:
                changes += 1
            last = leader
    if popcount(winners) != 1:
        return changes, 0, -1
    settled = n
    while settled > 0 and hist[settled - 1] == winners:
        settled -= 1
    comeback = 0
    if n >= 2 and (hist[n // 2 - 1] & winners) == 0:
        comeback = 1
    return changes, comeback, settled
