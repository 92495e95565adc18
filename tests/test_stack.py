"""simkit/base/stack.py: freed frame-stack chunks are kept, so a loop calling
across a chunk's edge no longer maps fresh memory on every call."""

import os
import subprocess
import sys

import pytest

from simkit.base import stack

pytestmark = pytest.mark.skipif(not stack.NEEDED, reason="this Python keeps its own chunks")

# A fresh interpreter recurses 400 deep (past the first chunk's edge) 20,000
# times and prints its minor page faults in that loop: every chunk mapped anew
# is touched, so each costs at least one fault.
LOOP = """
import resource, sys
from simkit.base import stack
if sys.argv[1] == "keep":
    assert stack.keep_chunks()
def down(n):
    return 0 if n == 0 else 1 + down(n - 1)
down(400)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20000):
    down(400)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before, stack.kept())
"""


def faults(mode: str) -> tuple[int, int]:
    """(page faults of the loop, chunks kept at its end) in a fresh process."""
    out = subprocess.run([sys.executable, "-c", LOOP, mode], capture_output=True, text=True,
                         check=True).stdout.split()
    return int(out[0]), int(out[1])


def test_kept_chunks_end_the_faults():
    thrashing, none = faults("as is")
    kept, count = faults("keep")
    assert none == 0
    assert thrashing >= 20000            # a chunk mapped on every call
    assert kept < 200                    # the same chunks, used again
    assert 1 <= count <= stack.KEEP


def test_installed_once_and_kept_within_bound():
    assert stack.keep_chunks()
    first = stack._INSTALLED[0]
    assert stack.keep_chunks()
    assert stack._INSTALLED[0] is first
    assert 0 <= stack.kept() <= stack.KEEP


def test_first_compile_installs_it(tmp_path):
    # jit.blocks is a kernel: called from Python on an empty cache, it compiles
    code = ("from simkit.base import jit, stack\n"
            "assert not stack._INSTALLED\n"
            "assert jit.blocks(10, 3) == 4 and stack._INSTALLED\n")
    subprocess.run([sys.executable, "-c", code], check=True,
                   env={**os.environ, "SIMKIT_CACHE_DIR": str(tmp_path)})
