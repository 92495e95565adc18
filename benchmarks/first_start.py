"""What a newcomer waits for: each command as the first one after an install,
with nothing compiled yet.

    python benchmarks/first_start.py [--report] [--json]

Each command runs in a fresh process with an empty compiled-kernel cache of
its own (``SIMKIT_CACHE_DIR`` pointed at a new temporary directory), so its
time includes every compilation it triggers, as on a fresh install; then it
runs again on that cache (the second start).  The commands: ``simkit advise
pepper --hand "JH JD AH KH 9C 9S"`` and ``simkit simulate GAME`` of 1,000
hands (Shiesta: games) for every game; with ``--report`` also ``simkit report
all`` (minutes).  First of all, the kernels ``simkit report all`` compiles
before its first study: every warm-up step in two processes
(:func:`simkit.bygame.warm.warm`), as on this 2-core machine.  Prints a table
(``--json``: records) of first and second start in seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from simkit import games

#: The warm-up of ``simkit report all`` (its kernels, two processes), as Python's arguments.
WARM = ["-c", "from simkit.bygame import warm; warm.warm(warm.every_step(), 2)"]


def commands(report: bool) -> list[tuple[str, list[str]]]:
    """(label, Python's arguments) of each command measured.  The commands run
    as the ``simkit`` script runs them (``main()`` called from an import).
    Run as ``python -m simkit.app.cli``, a first Pepper command once took
    about 13 s longer, as numba's compile started deeper in Python's frame
    stack (:mod:`simkit.base.stack`); now both take the same time."""
    cli = ["-c", "import sys; from simkit.app.cli import main; sys.exit(main())"]
    out = [("report all's kernels, 2 processes", WARM),
           ("advise pepper", [*cli, "advise", "pepper", "--hand", "JH JD AH KH 9C 9S"])]
    for name in games.GAMES:
        unit = games.get(name).bench_unit
        out.append((f"simulate {name}", [*cli, "simulate", name, f"--{unit}s", "1000",
                                         "--no-progress"]))
    if report:
        out.append(("report all", [*cli, "report", "all", "--no-progress"]))
    return out


def timed(argv: list[str], cache: str, cwd: str) -> float:
    """Wall seconds of ``python ARGV`` with compiled kernels kept in ``cache``."""
    env = {**os.environ, "SIMKIT_CACHE_DIR": cache}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *argv], cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--report", action="store_true", help="also time simkit report all")
    ap.add_argument("--json", action="store_true", help="print JSON records")
    a = ap.parse_args()
    records = []
    for label, argv in commands(a.report):
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as cwd:
            first = timed(argv, cache, cwd)
            second = timed(argv, cache, cwd)
        records.append({"command": label, "first_s": first, "second_s": second})
        if not a.json:
            print(f"{label:<18} first start {first:7.1f} s   second {second:6.1f} s", flush=True)
    if a.json:
        print(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
