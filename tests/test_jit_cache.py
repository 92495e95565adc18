"""The compiled-kernel cache (simkit/base/jit.py) when it is damaged or cannot
be made: a damaged entry is compiled again with one warning, and a cache
directory that is a file is one warning and no cache, never numba's fallback
into the package's own ``__pycache__``."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: A small kernel of simkit's, cached as every kernel is.
CODE = "from simkit.base import jit; print(jit.blocks(10, 3))"


def _run(cache: pathlib.Path) -> subprocess.CompletedProcess[str]:
    """A fresh process calling a kernel, its cache in ``cache``."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SIMKIT_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True,
                          text=True, timeout=300)


def _package_files() -> set[pathlib.Path]:
    return set((ROOT / "simkit").rglob("*.nb[ic]"))


def _entry(cache: pathlib.Path, suffix: str) -> pathlib.Path:
    found = list(cache.rglob(f"jit.blocks-*{suffix}"))
    assert len(found) == 1, found
    return found[0]


@pytest.mark.slow
@pytest.mark.parametrize(("damage", "error"), [
    # the full suite: every damage to either file
    ("data cut", "UnpicklingError"),
    pytest.param("data overwritten", "UnpicklingError", marks=pytest.mark.slow),
    pytest.param("data emptied", "EOFError", marks=pytest.mark.slow),
    pytest.param("index cut", "UnpicklingError", marks=pytest.mark.slow),
    pytest.param("index overwritten", "UnpicklingError", marks=pytest.mark.slow),
    pytest.param("index emptied", "EOFError", marks=pytest.mark.slow),
])
def test_a_damaged_entry_is_compiled_again_with_one_warning(tmp_path, damage, error):
    first = _run(tmp_path)
    assert (first.returncode, first.stdout, first.stderr) == (0, "4\n", "")
    path = _entry(tmp_path, ".nbc" if damage.startswith("data") else ".nbi")
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 3] if damage.endswith("cut") else
                     b"\x80\x05garbage" * 20 if damage.endswith("overwritten") else b"")
    again = _run(tmp_path)
    assert (again.returncode, again.stdout) == (0, "4\n"), again.stderr
    entry = _entry(tmp_path, ".nbi").name.removesuffix(".nbi")
    assert again.stderr == (f"simkit: warning: a compiled kernel kept in '{path.parent}' was "
                            f"damaged ({entry}: {error}); it was removed and is compiled "
                            f"again\n"), again.stderr
    mended = _run(tmp_path)             # written anew: read back without a word
    assert (mended.returncode, mended.stdout, mended.stderr) == (0, "4\n", "")


@pytest.mark.slow
def test_a_cache_directory_that_is_a_file_is_one_warning_and_no_cache(tmp_path):
    """SIMKIT_CACHE_DIR naming a file, or one entry of the cache a file: one
    warning naming it, the kernel runs uncached, and nothing is written into
    the package (numba's next choice was its __pycache__) or anywhere else."""
    before = _package_files()
    afile = tmp_path / "cache"
    afile.write_text("not a directory")
    done = _run(afile)
    assert (done.returncode, done.stdout) == (0, "4\n"), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"simkit: warning: cannot keep compiled kernels in "
                                  f"'{afile}{os.sep}")
    assert f"('{afile}' is a file, not a directory)" in done.stderr
    assert "set SIMKIT_CACHE_DIR to a writable directory" in done.stderr
    assert afile.read_text() == "not a directory"
    cache = tmp_path / "c"
    assert _run(cache).stderr == ""
    (entry,) = cache.iterdir()
    for p in entry.iterdir():
        p.unlink()
    entry.rmdir()
    entry.write_text("an entry that is a file")
    done = _run(cache)
    assert (done.returncode, done.stdout) == (0, "4\n"), done.stderr
    assert f"('{entry}' is a file, not a directory)" in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert sorted(os.listdir(cache)) == [entry.name]
    assert _package_files() == before
