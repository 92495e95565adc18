"""How long a comparison with adapted players takes, the first time and again.

    python benchmarks/compare_adapt.py [--game pepper] [--variant A: --variant B:fail=bid]
                                       [--threads N] [-- EXTRA OPTIONS...]

Runs ``simkit compare GAME --variant ... --adapt --out DIR --json`` twice in
child processes with an empty ``DIR`` the first time (every variant adapted:
tuning rounds, each a search and a confirmation on fresh deals) and the same
``DIR`` the second (the kept adaptations reused), the kernels compiled
before either (a warm-up run not timed).  Prints both wall times, each
variant's adapted setting and rounds, and the share of contracts that moved
(for games with bids), so that the figures in the README can be read off.
The target on a 2-core machine: the first run within 5 minutes, the second
within 30 s.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time


def run(argv: list[str]) -> tuple[float, dict]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "simkit.app.cli", *argv], check=True,
                         capture_output=True, text=True).stdout
    return time.perf_counter() - t0, json.loads(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="pepper")
    p.add_argument("--variant", action="append")
    p.add_argument("--threads", type=int)
    p.add_argument("extra", nargs="*", help="more options for simkit compare")
    a = p.parse_args()
    variants = a.variant or ["A:", "B:fail=bid"]
    base = ["compare", a.game, *(f"--variant={v}" for v in variants), "--json",
            "--no-progress", *(["--threads", str(a.threads)] if a.threads else []), *a.extra]
    run([*base, "--hands", "1000", "--games", "100", "--no-skill"])      # compile, untimed
    with tempfile.TemporaryDirectory() as tmp:
        first, res = run([*base, "--adapt", "--out", tmp])
        again, res2 = run([*base, "--adapt", "--out", tmp])
    print(f"simkit compare {a.game} {' '.join('--variant ' + v for v in variants)} --adapt "
          f"(defaults: {res['hands']} hands, {res['games']} games per variant)")
    print(f"  first run (every variant adapted): {first:.1f} s")
    print(f"  second run (kept adaptations):     {again:.1f} s")
    for v in res["tables"]["variants"]:
        ad = v["adapted"]
        print(f"  {v['label']}: {ad['rounds']} round(s), {ad['objective']}: {ad['setting']}")
    if "bids" in res["tables"]:
        for r in res["tables"]["bids"]:
            if r.get("p_holm") is not None and r["p_holm"] < 0.05:
                print(f"  bid {r['bid']}: {100 * r['rate_a']:.2f}% -> {100 * r['rate_b']:.2f}% "
                      f"[{100 * r['ci_low']:+.2f}, {100 * r['ci_high']:+.2f}] points")
    assert res2["tables"]["variants"][1]["adapted"]["reused"], "the second run adapted again"


if __name__ == "__main__":
    main()
