"""numba patched only where it is known (simkit/base/jit.py, simkit/base/stack.py):
each patch is made only where numba's code is the code it was tested on, any
other numba is left alone with one warning naming what is lost, and
``SIMKIT_NO_PATCHES=1`` leaves numba as it is and computes the same."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from simkit.base import jit, stack

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: A small program of kernels: a serial one inlining a helper (the inlining
#: patches, and the pipeline's copy propagation, with an alias numba's own
#: analysis misses), a cached kernel of simkit's, and which patches are in place.
PROGRAM = '''
import json, sys
import numpy as np
from numba.core import caching, ir
from numba.core.inline_closurecall import InlineWorker
from simkit.base import jit, stack

@jit.kernel(inline=True)
def write(rec, j, v):
    if v % 3:
        rec[j, 0] = v
    else:
        rec[j, 0] = -v
    rec[j, 1] = 2 * v + rec[j, 0]

@jit.kernel
def pick(rec, row, first):
    total = 0
    for j in range(rec.shape[0]):
        if first:
            k, q, out, r = 1, 0, rec, j
        else:
            k, q, out, r = 2, 0, row, 0
        write(out, r, j + k + q)
        total += out[r, 1]
    return total

rec, row = np.zeros((7, 2), np.int64), np.zeros((1, 2), np.int64)
results = [int(pick(rec, row, True)), int(pick(rec, row, False)), rec.tolist(), row.tolist(),
           jit.blocks(10, 3), jit.blocks(11, 4)]
made = {"inline-once": getattr(InlineWorker.run_untyped_passes, "_simkit_once", False),
        "one-copy": "__deepcopy__" in vars(ir.Block),
        "locator": jit._PackageLocator in jit._LOCATORS,
        "repair": getattr(caching.Cache.load_overload, "_simkit_repair", False),
        "pipeline": pick._compiler.pipeline_class is jit._Simplifying,
        "stack": bool(stack._INSTALLED)}
print(json.dumps({"results": results, "made": made, "active": sorted(jit.ACTIVE)}))
'''


def _run(folder: pathlib.Path, env: dict[str, str], before: str = "") -> tuple[dict, str]:
    """(what :data:`PROGRAM` printed, its stderr) in a fresh process, its kernel
    cache in ``folder``; ``before`` is run before simkit is imported."""
    script = folder / "program.py"
    script.write_text(before + PROGRAM)
    env = {**{k: v for k, v in os.environ.items()
              if k not in ("NUMBA_CACHE_DIR", "SIMKIT_NO_PATCHES")},
           "SIMKIT_CACHE_DIR": str(folder / "cache"), **env,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=600, cwd=folder)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def test_every_patch_is_made_with_the_numba_tested():
    """The numba installed is one the patches were tested on: each is made, and
    the fingerprint it found is one it knows."""
    if stack.patches_off():
        pytest.skip("SIMKIT_NO_PATCHES is set")
    assert set(jit.PATCHES) == jit.ACTIVE
    for name, patch in jit.PATCHES.items():
        assert jit.FOUND[name] in patch.known, name
    assert stack._known()


@pytest.mark.slow
def test_no_patches_leaves_numba_as_it_is_and_computes_the_same(tmp_path):
    """SIMKIT_NO_PATCHES=1: no patch is made (numba's functions, its cache
    locators and pipeline, CPython's allocator as they are), nothing is said,
    and the kernels compute what the patched ones do."""
    (tmp_path / "patched").mkdir()
    (tmp_path / "plain").mkdir()
    before = set((ROOT / "simkit").rglob("*.nb[ic]"))
    patched, said = _run(tmp_path / "patched", {})
    assert said == ""
    assert patched["active"] == sorted(jit.PATCHES)
    assert patched["made"] == {"inline-once": True, "one-copy": True, "locator": True,
                               "repair": True, "pipeline": True, "stack": stack.NEEDED}
    plain, said = _run(tmp_path / "plain", {"SIMKIT_NO_PATCHES": "1"})
    assert said == ""
    assert plain["active"] == []
    assert not any(plain["made"].values()), plain["made"]
    assert plain["results"] == patched["results"]
    assert patched["results"][2][:3] == [[1, 3], [2, 6], [-3, 3]]
    # numba keeps them (its own locator) under simkit's cache folder, not in the package
    assert [p.name.startswith("numba-") for p in (tmp_path / "plain" / "cache").iterdir()] \
        == [True]
    assert set((ROOT / "simkit").rglob("*.nb[ic]")) == before


@pytest.mark.slow
def test_a_numba_not_known_is_left_alone_with_one_warning(tmp_path):
    """Where numba's code is not what a patch was tested on (here: two of the
    functions replaced, changed before simkit is imported), that patch is not
    made, with one warning naming the speed-up lost, and the others still are;
    the kernels compute the same, and are still kept between runs."""
    before = ("from numba.core import caching\n"
              "from numba.core.inline_closurecall import InlineWorker\n"
              "_run = InlineWorker.run_untyped_passes\n"
              "def changed(self, func, enable_ssa=False):\n"
              "    return _run(self, func, enable_ssa)\n"
              "InlineWorker.run_untyped_passes = changed\n"
              "_ensure = caching._CacheLocator.ensure_cache_path\n"
              "def ensure(self):\n"
              "    return _ensure(self)\n"
              "caching._CacheLocator.ensure_cache_path = ensure\n")
    (tmp_path / "all").mkdir()
    (tmp_path / "some").mkdir()
    patched, _ = _run(tmp_path / "all", {})
    some, said = _run(tmp_path / "some", {}, before)
    assert some["active"] == sorted(set(jit.PATCHES) - {"inline-once", "locator"})
    assert not some["made"]["inline-once"]
    assert not some["made"]["locator"]
    assert some["made"]["one-copy"]
    assert some["made"]["pipeline"]
    lines = said.splitlines()
    assert len(lines) == 2, said
    assert lines[0].startswith("simkit: warning: numba ")
    assert "cache locator" in lines[0]
    assert jit.PATCHES["locator"].lost in lines[0]
    assert "InlineWorker.run_untyped_passes" in lines[1]
    assert lines[1].endswith(jit.PATCHES["inline-once"].lost)
    assert some["results"] == patched["results"]
    kept = sorted(p.name for p in (tmp_path / "some" / "cache").rglob("*.nb[ic]"))
    assert kept
    again, said = _run(tmp_path / "some", {}, before)      # read back, not compiled
    assert again["results"] == patched["results"]
    assert len(said.splitlines()) == 2
    assert not again["made"]["stack"]                       # nothing was compiled
    assert sorted(p.name for p in (tmp_path / "some" / "cache").rglob("*.nb[ic]")) == kept


def test_a_fingerprint_is_of_the_code():
    """A function's fingerprint changes with its code, not with where it is
    defined or with patches simkit adds to a class; a function whose source
    cannot be read has none (so no patch leans on it)."""
    def one(a):
        return a + 1

    def other(a):
        return a + 2

    class Thing:
        def method(self):
            return 1

    assert jit.fingerprint((one,)) == jit.fingerprint((one,))
    assert jit.fingerprint((one,)) != jit.fingerprint((other,))
    assert len(jit.fingerprint((Thing,))) == 16
    namespace: dict = {}
    exec("def made(a):\n    return a\n", namespace)
    assert jit.fingerprint((namespace["made"],)) == ""
    from numba.core import ir
    assert jit.FOUND["one-copy"] == jit.fingerprint(
        (jit.InlineWorker.inline_ir, ir.Block, ir.Scope))       # __deepcopy__ is simkit's


def test_an_llvmlite_not_known_keeps_cpythons_allocator_with_one_warning(monkeypatch, capsys):
    monkeypatch.setattr(stack, "LLVMLITE", ((9, 0), (9, 1)))
    assert not stack._known()
    said = capsys.readouterr().err
    assert said.count("\n") == 1
    assert said.startswith("simkit: warning: llvmlite ")
    assert said.rstrip().endswith(stack.LOST)
    assert stack.version("0.45.1rc1") == (0, 45, 1)
    assert stack.version("0.50.0") == (0, 50, 0)
    assert stack.version("1.dev0") == (1,)


def test_pyproject_allows_the_llvmlite_releases_tested():
    """pyproject.toml's llvmlite bounds are stack.LLVMLITE's, and its numba ones a
    range the patches' fingerprints were taken in (0.68)."""
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    spec = {d.split(">")[0].split("<")[0]: d for d in deps}
    low, high = (".".join(map(str, v)) for v in stack.LLVMLITE)
    assert spec["llvmlite"] == f"llvmlite>={low},<{high}"
    assert spec["numba"] == "numba>=0.68,<0.69"
