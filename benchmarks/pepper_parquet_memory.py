"""Peak memory and time of writing 10,000,000 Pepper hands to Parquet.

    python benchmarks/pepper_parquet_memory.py [--hands 10000000] [--chunk N] [--out DIR]

Runs the CLI in a child process and reads the child's peak resident set size
from getrusage, so the measurement includes everything the command loads.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=10_000_000)
    ap.add_argument("--chunk", type=int, default=None, help="hands per chunk (default: simkit's)")
    ap.add_argument("--out", default=None, help="directory for the run (default: a temp dir)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.out) as d:
        out = os.path.join(d, "pepper.parquet")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "simkit.app.cli", "simulate", "pepper", "--hands",
                        str(a.hands), "--seed", "1", "--out", out, "--no-progress",
                        *(["--chunk", str(a.chunk)] if a.chunk else [])],
                       check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        size = sum(os.path.getsize(os.path.join(out, n)) for n in os.listdir(out))
    print(json.dumps({"game": "pepper", "hands": a.hands, "seconds": wall,
                      "hands_per_second": a.hands / wall, "peak_rss_mb": peak_kb / 1024,
                      "parquet_mb": size / 2**20}, indent=1))


if __name__ == "__main__":
    main()
