"""The shared kernel machinery: a costly optional call compiled only when used."""

import copy

import numba
import numpy as np
import pytest
from numba.core import compiler

from simkit.base import jit
from simkit.pepper import api as pepper_api


def _toy():
    """A fresh costly function, its stand-in and a kernel calling it (uncached:
    a test must see what this process compiles)."""
    @numba.njit
    def costly(a, b):
        return a * b + 1

    searched = jit.if_given(costly)

    @numba.njit(inline="always")
    def card(search, x):
        return searched(search, x, x, 3)

    @numba.njit
    def run(n, search):
        out = np.zeros(n, np.int64)
        for i in range(n):
            out[i] = card(search, i)
        return out
    return costly, run


def test_if_given_without_a_flag_never_compiles_the_call():
    costly, run = _toy()
    assert list(run(4, None)) == [0, 1, 2, 3]        # the fallback, the call untouched
    assert costly.signatures == []
    assert list(run(4, True)) == [1, 4, 7, 10]       # now it is compiled, and called
    assert len(costly.signatures) == 1
    assert len(run.signatures) == 2                  # one specialisation each way


def test_if_given_is_for_kernels_only():
    stand_in = jit.if_given(numba.njit(lambda a: a))
    with pytest.raises(TypeError, match="for kernels only"):
        stand_in(True, 0, 1)


@pytest.mark.parametrize(("policy", "search"), [
    ("heuristic", None), ("classic", None), ("random", None),
    (["heuristic", "expert", "heuristic", "heuristic"], True),
    ("expert:model=voids", True),
])
def test_pepper_kernels_search_only_with_an_expert_seated(policy, search):
    """Pepper's kernels compile the expert's search only for tables that seat it."""
    from simkit import engine

    table = engine.setup(pepper_api.GAME, 4, None, policy, seed=0)
    assert pepper_api._search(table) is search
    assert pepper_api._untraced(table)[-1] is search


def test_serial_kernels_propagate_copies():
    """Serial kernels get the parallel pipeline's copy propagation: the copies an
    inlined call makes of its array arguments, each an atomic reference count
    up and down, are gone from the machine code."""
    import re

    def toy():
        @numba.njit
        def twice(a, i):
            return a[i] * 2

        @numba.njit(inline="always")
        def add(a, b, i):
            if a[i] > b[i]:
                return twice(a, i)
            return b[i] + twice(b, i)

        def run(a, b):
            s = 0
            for i in range(a.shape[0]):
                c = a if i % 2 else b
                s += add(c, b, i) + add(b, c, i)
            return s
        return run

    a, b = np.arange(5), np.arange(5)[::-1].copy()
    plain = numba.njit(toy())
    simplified = numba.njit(pipeline_class=jit._Simplifying)(toy())
    assert plain(a, b) == simplified(a, b) == 66

    def increfs(fn):
        ir = next(iter(fn.overloads.values())).library.get_llvm_str()
        return len(re.findall(r"call void @NRT_incref", ir))
    assert increfs(simplified) < increfs(plain)
    # and simkit's serial kernels are compiled so (the parallel pipeline does it itself)
    assert jit.kernel(toy())._compiler.pipeline_class is jit._Simplifying
    assert jit.kernel(toy(), parallel=True)._compiler.pipeline_class is not jit._Simplifying


def test_copy_propagation_finds_what_numbas_does(monkeypatch):
    """simkit's copy propagation (a cheaper copy in its fixed-point loop) finds
    the same copies live into every block as numba's ``copy_propagate``."""
    from numba.core import ir_utils
    found = []

    def both(blocks, typemap):
        ours = propagate(blocks, typemap)
        found.append((ours, ir_utils.copy_propagate(blocks, typemap)[0]))
        return ours
    propagate = jit._copy_propagate
    monkeypatch.setattr(jit, "_copy_propagate", both)

    def run(a, n):
        s, b = 0, a
        for i in range(n):
            c = b
            while i > 2:
                d = c if i % 2 else a
                s += d[i]
                i -= 2
            s -= c[0]
        return s
    a = np.arange(9)
    assert numba.njit(pipeline_class=jit._Simplifying)(run)(a, 9) == run(a, 9) == 58
    assert len(found) == 1
    ours, numbas = found[0]
    assert ours == numbas
    assert sum(len(v) for v in ours.values()) > 0


def test_serial_kernels_keep_stores_through_unseen_aliases():
    """The dead-code step of that pipeline keeps every store into an array.
    numba's alias analysis does not see that ``out`` below is ``rec`` (picked
    out of a tuple of four, which Python builds and unpacks), so its own
    ``simplify`` dropped these stores as dead: Pitch's records lost their
    last columns that way once."""
    @numba.njit(inline="always")
    def write(rec, j, v):
        rec[j, 0] = v
        rec[j, 1] = 2 * v + rec[j, 0]

    def pick(rec, row, first):
        for j in range(rec.shape[0]):
            if first:
                k, q, out, r = 1, 0, rec, j
            else:
                k, q, out, r = 2, 0, row, 0
            write(out, r, j + k + q)

    rec, row = np.zeros((3, 2), np.int64), np.zeros((1, 2), np.int64)
    jit.kernel(pick)(rec, row, True)
    assert rec.tolist() == [[1, 3], [2, 6], [3, 9]]


def test_an_inlined_function_is_translated_once():
    """The IR of a function numba inlines is made once and copied at each call
    site (numba copies it before changing it), and the kernels that inline it
    three times, in two places, compute what Python does."""
    @numba.njit(inline="always")
    def helper(a, i):
        a[i] += 1
        return a[i] * 2

    def twice(a):
        return helper(a, 0) + helper(a, 1)

    def thrice(a):
        return helper(a, 0) - helper(a, 0) + helper(a, 1)

    made = jit.InlineWorker.run_untyped_passes
    assert made._simkit_once
    a = np.zeros(2, np.int64)
    assert jit.kernel(twice)(a) == 4
    assert jit.kernel(thrice)(a) == 4 - 6 + 4
    assert a.tolist() == [3, 2]
    assert [k for k in jit._UNTYPED if k[0] is helper.py_func] == [(helper.py_func, False, False)]


def test_inlined_blocks_are_copied_with_one_scope():
    """While numba inlines, the blocks of one function share one copy of its
    scope (as one deepcopy of all of them would); outside, a block is copied
    alone, as before; and a kernel inlining a branching function computes what
    Python does."""
    def branchy(a, i):
        if a[i] > 0:
            a[i] -= 1
        else:
            a[i] += 2
        return a[i]

    blocks = list(compiler.run_frontend(branchy).blocks.values())
    assert len(blocks) > 2
    assert len({id(b.scope) for b in blocks}) == 1
    alone = [copy.deepcopy(b) for b in blocks]
    assert len({id(b.scope) for b in alone}) == len(blocks)
    jit._MEMOS.append({})
    try:
        shared = [copy.deepcopy(b) for b in blocks]
        again = [copy.deepcopy(b) for b in blocks]
    finally:
        jit._MEMOS.pop()
    assert len({id(b.scope) for b in shared}) == 1
    assert again[0].scope is again[-1].scope
    assert again[0].scope is not shared[0].scope      # a second copy shares nothing
    assert again[0].body is not shared[0].body
    assert again[0].body[0] is not shared[0].body[0]
    assert shared[0].scope is not blocks[0].scope
    assert [str(b) for b in shared] == [str(b) for b in blocks]
    assert sorted(shared[0].scope.localvars._con) == sorted(blocks[0].scope.localvars._con)

    assert jit.InlineWorker.inline_ir._simkit_memo
    inlined = numba.njit(inline="always")(branchy)

    def both(a):
        return inlined(a, 0) * 10 + inlined(a, 1)

    a = np.array([1, 0], np.int64)
    assert jit.kernel(both)(a) == 0 * 10 + 2
    assert a.tolist() == [0, 2]
    assert not jit._MEMOS


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("n_lanes", [0, 1, 2, 5, 24, 25, 1000])
def test_in_lanes_runs_every_lane_once(monkeypatch, threads, n_lanes):
    """Every lane is run exactly once, whatever the thread count; each call gets
    a range of lanes, at most PIECES of them per thread."""
    @jit.kernel
    def mark(lo, hi, out, calls):
        for lane in range(lo, hi):
            out[lane] += 1
        calls[lo] += 1

    monkeypatch.setattr(numba, "get_num_threads", lambda: threads)
    out, calls = np.zeros(n_lanes, np.int64), np.zeros(n_lanes + 1, np.int64)
    jit.in_lanes(mark, n_lanes, out, calls)
    assert (out == 1).all()
    assert calls.sum() == (1 if threads == 1 or n_lanes <= 1
                           else min(n_lanes, jit.PIECES * threads))


@pytest.mark.parametrize(("mode", "want"), [
    ("", {"_a": True, "_b": True, "_plain": False}),
    pytest.param("declared", {"_a": True, "_b": True, "_plain": False}, marks=pytest.mark.slow),
    pytest.param("never", {"_a": False, "_b": False, "_plain": False}, marks=pytest.mark.slow),
    pytest.param("_a, _z", {"_a": False, "_b": True, "_plain": False}, marks=pytest.mark.slow),
    pytest.param("m.kernel:_b", {"_a": True, "_b": False, "_plain": False},
                 marks=pytest.mark.slow),
    pytest.param("other.kernel:_b", {"_a": True, "_b": True, "_plain": False},
                 marks=pytest.mark.slow),
])
def test_simkit_inline_chooses_what_is_inlined_and_stamps_the_cache(mode, want):
    """SIMKIT_INLINE (what benchmarks/compile_costs.py measures with): the
    functions declared inline=True that numba inlines, and a kernel-cache
    stamp of its own for each choice."""
    import json
    import os
    import subprocess
    import sys

    code = ("import json; from simkit.base import jit; "
            "print(json.dumps([{n: jit.inlined('simkit.m.kernel:' + n, n != '_plain')"
            " for n in ('_a', '_b', '_plain')},"
            " jit._package_stamp(jit._ROOT + '/pepper').hex()]))")
    env = {**os.environ, "SIMKIT_INLINE": mode}
    got, stamp = json.loads(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                           capture_output=True, text=True).stdout)
    assert got == want
    others = {"": "never", "declared": "never", "never": "", "_a, _z": "", "m.kernel:_b": "",
              "other.kernel:_b": ""}
    env["SIMKIT_INLINE"] = others[mode]
    _, other = json.loads(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                         capture_output=True, text=True).stdout)
    assert stamp != other
