"""Counter-based random numbers: (run seed, stream index) fixes a whole stream.

Draw ``k`` of stream ``i`` under run seed ``s`` is::

    mix64(key(s) + ((i << 20) | k) * GAMMA)        (all mod 2**64)

where ``mix64`` is SplitMix64's finaliser (a bijection of 64-bit words) and
``key(s) = mix64(s)``.  Because ``GAMMA`` is odd, distinct ``(i, k)`` pairs
with ``k < 2**20`` and ``i < 2**44`` map to distinct inputs, so within a run no
two streams ever share a draw.  A stream is simply the SplitMix64 sequence
started at ``key + (i << 20) * GAMMA``: the state is one 64-bit word that
advances by ``GAMMA``.

A hand (or a whole game) owns one stream, indexed by its number in the run.
Nothing depends on threads, chunking or workers: any hand can be replayed
from (seed, index) alone.

Two implementations live here and are tested against each other: the plain
Python :class:`Stream` (used by the reference engines) and the jitted
``stream_start`` / ``next_u64`` / ``bounded`` (used by the kernels).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simkit.base.jit import kernel

GAMMA = 0x9E3779B97F4A7C15
M1 = 0xBF58476D1CE4E5B9
M2 = 0x94D049BB133111EB
MASK64 = (1 << 64) - 1
STREAM_BITS = 20          # draws per stream: 2**20
MAX_STREAMS = 1 << 44     # stream indices per run


def mix64(z: int) -> int:
    """SplitMix64 finaliser on Python ints."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * M1) & MASK64
    z = ((z ^ (z >> 27)) * M2) & MASK64
    return z ^ (z >> 31)


def seed_key(seed: int) -> int:
    """The 64-bit key of a run seed (any non-negative int below 2**64)."""
    return mix64(int(seed))


def run_key(seed: object) -> np.uint64:
    """:func:`seed_key` of a checked run seed, typed for the kernels (a plain int
    would be typed by numba from its value); a bad seed is an InputError."""
    from simkit.base.errors import InputError
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise InputError(f"bad seed {seed!r}: expected a whole number from 0 to 2**64-1")
    return np.uint64(seed_key(int(seed)))


class Stream:
    """One hand's (or game's) random stream, in plain Python.

    ``next()`` returns 64 random bits; ``below(n)`` an unbiased integer in
    ``[0, n)`` (Lemire's multiply-and-reject on the top 32 bits);
    ``shuffle(list)`` an unbiased Fisher-Yates shuffle in place.
    """

    def __init__(self, seed: int, index: int) -> None:
        if not 0 <= index < MAX_STREAMS:
            raise ValueError(f"stream index {index} outside [0, 2**44)")
        self.state = (seed_key(seed) + (index << STREAM_BITS) * GAMMA) & MASK64
        self.spare: int | None = None   # the low half of the last draw, not yet used

    def next(self) -> int:
        """The next 64-bit draw (drops a pending 32-bit half)."""
        self.spare = None
        self.state = (self.state + GAMMA) & MASK64
        return mix64(self.state)

    def next32(self) -> int:
        """The next 32-bit word: the high half of a draw, then its low half."""
        if self.spare is not None:
            word, self.spare = self.spare, None
            return word
        x = self.next()
        self.spare = x & 0xFFFFFFFF
        return x >> 32

    def below(self, n: int) -> int:
        m = self.next32() * n
        low = m & 0xFFFFFFFF
        if low < n:
            threshold = (0x100000000 - n) % n
            while low < threshold:
                m = self.next32() * n
                low = m & 0xFFFFFFFF
        return m >> 32

    def shuffle(self, items: list[Any]) -> None:
        for j in range(len(items) - 1, 0, -1):
            k = self.below(j + 1)
            items[j], items[k] = items[k], items[j]

    def sample(self, items: list[Any], k: int) -> None:
        """Forward Fisher-Yates stopped after ``k`` steps: ``items[:k]`` become a
        uniform random sample in random order, drawing only ``k`` numbers."""
        n = len(items)
        for p in range(k):
            q = p + self.below(n - p)
            items[p], items[q] = items[q], items[p]


# --- jitted twins ---------------------------------------------------------
# uint64 constants are spelled out as np.uint64 so that numba never mixes
# signed and unsigned integers (which it would promote to float64).
_GAMMA = np.uint64(GAMMA)
_M1 = np.uint64(M1)
_M2 = np.uint64(M2)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(0x100000000)


@kernel
def mix64_jit(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@kernel
def stream_start(key: np.uint64, index: int) -> np.uint64:
    """State of stream ``index`` for a run whose :func:`seed_key` is ``key``."""
    return np.uint64(key) + (np.uint64(index) << np.uint64(STREAM_BITS)) * _GAMMA


@kernel
def new_stream(key: np.uint64, index: int) -> np.ndarray:
    """A stream as a 2-word array: [state, pending low half | 2**32 or 0]."""
    st = np.empty(2, np.uint64)
    start_stream(st, key, index)
    return st


@kernel
def start_stream(st: np.ndarray, key: np.uint64, index: int) -> None:
    """Point the 2-word stream ``st`` at stream ``index`` of the run keyed ``key``."""
    st[0] = stream_start(key, index)
    st[1] = np.uint64(0)


@kernel
def next_u64(st: np.ndarray) -> np.uint64:
    """Advance the stream ``st`` and return 64 random bits (drops a pending half)."""
    s = st[0] + _GAMMA
    st[0] = s
    st[1] = np.uint64(0)
    out: np.uint64 = mix64_jit(s)
    return out


@kernel
def next_u32(st: np.ndarray) -> np.uint64:
    """The next 32-bit word: the high half of a draw, then its low half."""
    spare = st[1]
    if spare:
        st[1] = np.uint64(0)
        word: np.uint64 = spare & _LOW32
        return word
    x = next_u64(st)
    st[1] = (x & _LOW32) | _TWO32
    high: np.uint64 = x >> _S32
    return high


@kernel
def bounded(st: np.ndarray, n: int) -> np.int64:
    """Unbiased integer in ``[0, n)`` for ``1 <= n <= 2**32``; same as ``Stream.below``."""
    nn = np.uint64(n)
    m = next_u32(st) * nn
    low = m & _LOW32
    if low < nn:
        threshold = (_TWO32 - nn) % nn
        while low < threshold:
            m = next_u32(st) * nn
            low = m & _LOW32
    return np.int64(m >> _S32)


@kernel
def shuffle(st: np.ndarray, items: np.ndarray) -> None:
    """Fisher-Yates shuffle of ``items`` in place; same as ``Stream.shuffle``."""
    for j in range(items.shape[0] - 1, 0, -1):
        k = bounded(st, j + 1)
        t = items[j]
        items[j] = items[k]
        items[k] = t


@kernel
def sample(st: np.ndarray, items: np.ndarray, k: int) -> None:
    """Forward Fisher-Yates stopped after ``k`` steps; same as ``Stream.sample``."""
    n = items.shape[0]
    for p in range(k):
        q = p + bounded(st, n - p)
        t = items[p]
        items[p] = items[q]
        items[q] = t
