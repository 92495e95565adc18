"""Pepper throughput: kernel on 1 and all threads, the reference engine, ratios.

    python benchmarks/pepper_throughput.py [--hands 2000000] [--reference-hands 3000]

Prints one JSON record per measurement (same shape as `simkit bench --json`).
"""

import argparse
import json
import time

from simkit.bench import run_bench
from simkit.pepper import reference
from simkit.pepper.policies import make_policies
from simkit.pepper.rules import make_rules


def reference_rate(players: int, hands: int) -> float:
    rules = make_rules(players=players)
    pols = make_policies("heuristic", players)
    t0 = time.perf_counter()
    for i in range(hands):
        reference.simulate_hand(rules, pols, 1, i)
    return hands / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=2_000_000)
    ap.add_argument("--reference-hands", type=int, default=3_000)
    a = ap.parse_args()
    records = run_bench(["pepper"], hands=a.hands)
    for players in (4, 3, 2):
        ref = reference_rate(players, a.reference_hands)
        one = next(r for r in records if r["players"] == players and r["threads"] == 1)
        records.append({"game": "pepper", "players": players, "threads": 1, "unit": "hand",
                        "engine": "reference", "rate": ref, "ns_per_unit": 1e9 / ref,
                        "kernel_over_reference": one["rate"] / ref})
    print(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
