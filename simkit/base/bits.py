"""Bit and seat helpers shared by every kernel, jitted once.

Hands are bitmasks in the trick games (Pepper 24 bits, Pitch 52), and the
Shiesta and Burraco kernels keep rank masks too: the same few operations on
int64 words recur everywhere.  Each is inlined into its callers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

from simkit.base.jit import kernel


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> tuple[Any, Callable[..., Any]] | None:
    """LLVM's population count (one instruction where the CPU has one)."""
    if not isinstance(x, types.Integer):
        return None

    # numba's typing and code generation objects: untyped to mypy
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])
    return x(x), codegen


@kernel(inline=True)
def popcount(x: int) -> int:
    """Number of set bits of ``x``."""
    return _ctpop(x)


@kernel(inline=True)
def low_bit(m: int) -> int:
    """Index of the lowest set bit of ``m`` (``m`` non-zero)."""
    return trailing_zeros(m)


@kernel(inline=True)
def high_bit(m: int) -> int:
    """Index of the highest set bit of ``m`` (``m`` non-zero, below 2**63)."""
    return 63 - leading_zeros(m)


@kernel(inline=True)
def nth_bit(mask: int, n: int) -> int:
    """Index of the ``n``-th (0-based) set bit of ``mask``, counting from bit 0."""
    for _ in range(n):
        mask &= mask - 1
    return trailing_zeros(mask)


@kernel(inline=True)
def next_seat(seat: int, players: int) -> int:
    """``(seat + 1) % players`` without a division (slow in loops run per hand)."""
    seat += 1
    return 0 if seat == players else seat
