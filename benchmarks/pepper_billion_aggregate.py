"""1,000,000,000 Pepper hands in streaming-aggregate mode: time and peak memory.

    python benchmarks/pepper_billion_aggregate.py [--hands 1000000000] [--out DIR]

Runs ``simkit simulate pepper --hands N --aggregate --out DIR`` (threads
backend, all cores) in a child process and reads the child's peak resident set
size from getrusage, so the measurement includes everything the command loads.
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
    ap.add_argument("--hands", type=int, default=1_000_000_000)
    ap.add_argument("--out", default=None, help="directory for the run (default: a temp dir)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.out) as d:
        out = os.path.join(d, "pepper.parquet")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "simkit.app.cli", "simulate", "pepper", "--hands",
                        str(a.hands), "--aggregate", "--seed", "1", "--out", out,
                        "--no-progress"], check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        with open(os.path.join(out, "_manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        size = sum(os.path.getsize(os.path.join(out, n)) for n in os.listdir(out))
    print(json.dumps({"game": "pepper", "hands": a.hands, "mode": "aggregate",
                      "seconds": wall, "hands_per_second": a.hands / wall,
                      "peak_rss_mb": peak_kb / 1024, "groups": manifest["rows"],
                      "chunks": manifest["chunks"], "output_kb": size / 1024}, indent=1))


if __name__ == "__main__":
    main()
