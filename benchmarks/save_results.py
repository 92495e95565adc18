"""Measure and keep the figures the documentation's performance page shows.

    python benchmarks/save_results.py bench          # simkit bench --json (minutes)
    python benchmarks/save_results.py first_start    # benchmarks/first_start.py --report --json
    python benchmarks/save_results.py compile_costs  # benchmarks/compile_costs.py (minutes)
    python benchmarks/save_results.py compare_adapt  # benchmarks/compare_adapt.py (minutes)
    python benchmarks/save_results.py adapt_convergence  # adaptations from two seeds (minutes)

Each writes ``benchmarks/results/NAME.json``: the command's JSON records with
when, where and how they were measured.  The documentation inserts its tables
from these files when the site is built (``docs/hooks.py``), so a figure is
never typed by hand; rerun this on a quiet machine to bring them up to date.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
COMMANDS = {
    "bench": [sys.executable, "-m", "simkit.app.cli", "bench", "--json"],
    "first_start": [sys.executable, str(ROOT / "benchmarks" / "first_start.py"), "--report",
                    "--json"],
    "compile_costs": [sys.executable, str(ROOT / "benchmarks" / "compile_costs.py"),
                      "--modes", "declared", "--json"],
    "compare_adapt": [sys.executable, str(ROOT / "benchmarks" / "compare_adapt.py"), "--json"],
    "adapt_convergence": [sys.executable, str(ROOT / "benchmarks" / "adapt_convergence.py"),
                          "--json"],
}
SHOWN = {"bench": "simkit bench --json",
         "first_start": "python benchmarks/first_start.py --report --json",
         "compile_costs": "python benchmarks/compile_costs.py --modes declared --json",
         "compare_adapt": "python benchmarks/compare_adapt.py --json",
         "adapt_convergence": "python benchmarks/adapt_convergence.py --json"}


def machine() -> str:
    """This machine in a few words: cores, memory, processor, Python."""
    gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{os.cpu_count()} cores, {gib:.0f} GiB, {cpu}, "
            f"Python {platform.python_version()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name", choices=sorted(COMMANDS))
    a = ap.parse_args()
    started = datetime.datetime.now(datetime.UTC)
    out = subprocess.run(COMMANDS[a.name], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout
    result = {"measured_utc": started.isoformat(timespec="seconds"), "machine": machine(),
              "command": SHOWN[a.name], "records": json.loads(out)}
    path = ROOT / "benchmarks" / "results" / f"{a.name}.json"
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n")
    tmp.replace(path)
    records = result["records"]
    print(f"wrote {path.relative_to(ROOT)}: "
          + (f"{len(records)} records" if isinstance(records, list) else "one record"))


if __name__ == "__main__":
    main()
