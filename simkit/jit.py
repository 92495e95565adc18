"""The one place that holds numba's jit options.

Every kernel in simkit is compiled through :func:`kernel` so that caching,
the error model and parallelism are set consistently.  ``cache=True`` keeps
compiled machine code on disk between runs (first call: seconds; later: ms).
Recursive functions are avoided: caching them has crashed numba here.

numba checks a cached kernel only against its own source file, but a kernel
reads constants of other modules (policy parameter layouts, rule codes) when
it is compiled: after editing those modules alone, delete the cached machine
code (``find simkit -name '*.nb*' -delete``).  A fresh install or checkout
always compiles anew.
"""

import numba

_OPTIONS = dict(cache=True, error_model="numpy", nogil=True)


def kernel(fn=None, *, parallel=False, inline=False):
    """Decorator: compile ``fn`` with simkit's standard options.

    ``parallel=True`` is for the outer batch loops that use ``numba.prange``;
    inner per-hand functions stay serial.  ``inline=True`` inlines a function
    into its callers at numba's level: for a large function called once per
    hand, whose array arguments would otherwise cost reference counting.
    """
    def wrap(f):
        return numba.njit(parallel=parallel, inline="always" if inline else "never",
                          **_OPTIONS)(f)
    return wrap(fn) if fn is not None else wrap


# --- the batch loop every parallel kernel runs ------------------------------------
# A batch of ``count`` units (hands or games) is cut into blocks of ``size``
# consecutive units; ``numba.prange`` hands the blocks to threads, and a block
# allocates its scratch arrays once.  Every parallel kernel loops the same way:
#
#     for b in numba.prange(blocks(count, BLOCK)):
#         ... per-block scratch ...
#         for j in block(b, count, BLOCK):
#             ... unit j ...

@kernel(inline=True)
def blocks(count, size):
    """Number of blocks of ``size`` units covering ``count`` units."""
    return (count + size - 1) // size


@kernel(inline=True)
def block(b, count, size):
    """The units (row indices) of block ``b``."""
    return range(b * size, min(count, (b + 1) * size))
