"""A 100,000,000-hand Pepper run (streaming aggregates) on the threads backend
and on a 2-worker local Dask cluster, in the same script.

    python benchmarks/pepper_dask_vs_threads.py [--hands 100000000] [--workers 2] [--repeats 1]

Each run is the whole command, ``simkit simulate pepper --hands N --aggregate
--out DIR`` (plus ``--backend dask --workers 2``), in a child process: start-up,
the Dask cluster's start and stop, and the merge are all included.  Prints JSON
with both times (the best of ``--repeats``, taken alternately), the ratio
dask/threads, and whether the two aggregates are byte-for-byte equal.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def timed_run(out, hands, extra):
    cmd = [sys.executable, "-m", "simkit.app.cli", "simulate", "pepper", "--hands", str(hands),
           "--aggregate", "--seed", "1", "--out", out, "--no-progress", *extra]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=100_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--out", default=None, help="directory for the runs (default: a temp dir)")
    a = ap.parse_args()
    # compile (or load) the kernels once, outside the measurements
    subprocess.run([sys.executable, "-c", "from simkit.pepper import api; "
                    "api.aggregate_hands(1000); api.simulate(1000)"], check=True)
    times = {"threads": [], "dask": []}
    with tempfile.TemporaryDirectory(dir=a.out) as d:
        for r in range(a.repeats):
            for backend, extra in (("threads", []),
                                   ("dask", ["--backend", "dask", "--workers", str(a.workers)])):
                out = os.path.join(d, f"{backend}-{r}.parquet")
                times[backend].append(timed_run(out, a.hands, extra))
        with open(os.path.join(d, "threads-0.parquet", "aggregate.parquet"), "rb") as f:
            t_bytes = f.read()
        with open(os.path.join(d, "dask-0.parquet", "aggregate.parquet"), "rb") as f:
            d_bytes = f.read()
    t, k = min(times["threads"]), min(times["dask"])
    print(json.dumps({"game": "pepper", "hands": a.hands, "mode": "aggregate",
                      "cores": os.cpu_count(), "dask_workers": a.workers,
                      "threads_seconds": t, "dask_seconds": k, "dask_over_threads": k / t,
                      "threads_hands_per_second": a.hands / t,
                      "dask_hands_per_second": a.hands / k,
                      "all_seconds": times, "identical_aggregates": t_bytes == d_bytes},
                     indent=1))


if __name__ == "__main__":
    main()
