"""Compile kernels ahead of a long job, in parallel processes.

numba compiles a kernel at its first call and keeps the machine code on disk
(:mod:`simkit.base.jit`).  Compiling is single-threaded and slow (minutes for
everything ``simkit report all`` runs), so on a fresh install a job that
compiles one kernel after another leaves every core but one idle.  Each game
names its *warm-up steps* (``Game.warm``: a step runs a small job that
compiles a group of its kernels, with its cold compile time measured on a
2-core machine); :func:`warm` runs the steps a job will need in as many
processes as there are cores, the longest first, so that the job itself then
loads every kernel from the cache.  On a warm cache each process only loads
its kernels: a few seconds.

A step is named ``GAME:STEP`` (``pepper:hands``); ``python -m simkit.bygame.warm
STEP...`` runs steps in this process (what the worker processes run).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from simkit import games


def every_step() -> list[str]:
    """Every warm-up step of every game, as ``GAME:STEP`` names."""
    return [f"{g.name}:{s}" for g in games.specs() for s in g.warm()]


def _step(name: str) -> tuple[float, Callable[[], Any]]:
    game, _, step = name.partition(":")
    if game not in games.GAMES or step not in games.get(game).warm():
        raise ValueError(f"unknown warm-up step {name!r}: expected one of "
                         f"{', '.join(every_step())}")
    return games.get(game).warm()[step]


def groups(names: Iterable[str], processes: int) -> list[list[str]]:
    """``names`` split into at most ``processes`` groups of about equal compile
    time (longest first, each to the least loaded group).

    >>> groups(["shiesta:games", "burraco:hands", "burraco:games"], 2)
    [['burraco:hands'], ['shiesta:games', 'burraco:games']]
    """
    names = sorted(dict.fromkeys(names), key=lambda n: -_step(n)[0])
    load = [0.0] * max(1, min(processes, len(names)))
    out: list[list[str]] = [[] for _ in load]
    for n in names:
        i = load.index(min(load))
        out[i].append(n)
        load[i] += _step(n)[0]
    return [g for g in out if g]


def warm(names: Iterable[str], processes: int | None = None,
         env: Mapping[str, str] | None = None) -> None:
    """Run the warm-up steps ``names`` in ``processes`` worker processes (default:
    the cores), one thread each, and wait for them.  A step that fails raises
    ``RuntimeError`` with the worker's last line of error; an interrupt stops
    the workers."""
    todo = groups(names, processes or os.cpu_count() or 1)
    env = {**(env or os.environ), "NUMBA_NUM_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, "-m", "simkit.bygame.warm", *g], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for g in todo]
    try:
        for group, p in zip(todo, procs):
            _, err = p.communicate()
            if p.returncode != 0:
                last = (err or "").strip().splitlines()[-1:] or [f"exit code {p.returncode}"]
                raise RuntimeError(f"compiling the kernels failed ({' '.join(group)}): "
                                   f"{last[0]}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def main(argv: list[str]) -> None:
    """Run the named warm-up steps in this process."""
    for name in argv:
        _step(name)[1]()


if __name__ == "__main__":
    main(sys.argv[1:])
