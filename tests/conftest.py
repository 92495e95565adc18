"""Suite-wide setup: compile the kernels once before pytest-xdist's workers start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _workers(config) -> int:
    n = getattr(config.option, "numprocesses", None)
    if n == "auto":
        return os.cpu_count() or 1
    return int(n or 0)


def pytest_configure(config):
    """In the controller of a run with two or more workers, fill numba's
    cache (tests/warm_kernels.py) in two processes at once; the workers then
    load the kernels instead of each compiling them (minutes on a fresh
    checkout)."""
    if hasattr(config, "workerinput") or _workers(config) < 2:
        return
    from warm_kernels import SPLIT
    # the checkout's simkit, which the workers import (python -m pytest from its root)
    path = os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "PYTHONPATH": path}
    procs = [subprocess.Popen([sys.executable, str(HERE / "warm_kernels.py"), *group],
                              cwd=HERE.parent, env=env) for group in SPLIT]
    for p in procs:
        if p.wait() != 0:
            raise RuntimeError(f"compiling the kernels failed: {p.args}")
