"""The one place that holds numba's jit options.

Every kernel in simkit is compiled through :func:`kernel` so that caching,
the error model and parallelism are set consistently.  ``cache=True`` keeps
compiled machine code on disk between runs (first call: seconds; later: ms).
Recursive functions are avoided: caching them has crashed numba here.

numba checks a cached kernel only against its own source file, but a kernel
inlines functions and reads constants of other modules (a game's solver,
policy parameter layouts, rule codes, the shared bit and stream helpers):
edited alone, those would leave stale machine code in use.  So simkit's
kernels are cached with :class:`_PackageLocator`, whose stamp covers the
modules of the kernel's package that kernels read (:data:`KERNEL_SIDE`, the
same file names in every game folder) and the shared modules they read
(:data:`SHARED`): editing any of them compiles that package's kernels anew,
while editing a reference engine, an advisor or an ``api.py`` does not.
"""

import functools
import hashlib
import os

import numba
from numba.core import caching

#: The modules of a game's package that its kernels import or read constants from.
KERNEL_SIDE = ("kernel.py", "tables.py", "solver.py", "expert.py", "policies.py", "rules.py")
#: The modules outside a game's package that kernels (or the modules above) read.
SHARED = ("bits.py", "jit.py", "rng.py", "policy.py", "config.py", "cards.py", "errors.py")
_ROOT = os.path.dirname(os.path.abspath(__file__))


@functools.lru_cache(maxsize=None)
def _package_stamp(folder: str) -> bytes:
    """One hash of ``folder``'s :data:`KERNEL_SIDE` modules and of :data:`SHARED`."""
    paths = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f in KERNEL_SIDE)
    paths += [os.path.join(_ROOT, f) for f in SHARED]
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.encode())
        with open(path, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    return digest.digest()


class _PackageLocator(caching.InTreeCacheLocator):
    """numba's in-tree cache (beside the source), stamped with the whole package."""

    def get_source_stamp(self):
        return _package_stamp(os.path.dirname(os.path.abspath(self._py_file)))

    @classmethod
    def from_function(cls, py_func, py_file):
        # only simkit's own kernels, and not when the user chose a cache directory
        inside = os.path.abspath(py_file).startswith(_ROOT + os.sep)
        if numba.config.CACHE_DIR or not inside:
            return None
        return super().from_function(py_func, py_file)


_LOCATORS = (getattr(caching, "CacheImpl", None) or caching._CacheImpl)._locator_classes
if _PackageLocator not in _LOCATORS:
    _LOCATORS.insert(0, _PackageLocator)

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
