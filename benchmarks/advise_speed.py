"""How fast the Pepper advisor evaluates a hand: 100,000 deals of the unseen cards.

    python benchmarks/advise_speed.py [--hand "JH JD AH KH QH 9S"] [--samples 100000]
                                      [--repeats 5] [--threads N]

Times ``simkit.pepper.advise.advise`` (every bidding plan played through the
whole auction on ``--samples`` deals, no ``--score``), the same with
``declarer=True`` (the no-auction figures) and
``simkit.pepper.api.evaluate_hand`` (the simulation those run) on the same
hand, after one warm-up call each (numba compiles or loads the kernels then).
Prints JSON with the best of ``--repeats`` runs, all the runs, samples per
second, and whether the advisor met its target: 100,000 samples for every plan
in under 2 seconds on one core (``--threads 1``, the default here).
"""

import argparse
import json
import os
import time

from simkit.pepper import advise as A
from simkit.pepper import api

TARGET_SECONDS = 2.0        # for 100,000 samples of every plan, on one core


def best_of(repeats, fn):
    """All the wall times of ``repeats`` calls of ``fn``, best first."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hand", default="JH JD AH KH QH 9S")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1, help="default: one core")
    a = ap.parse_args()
    cases = {
        "advise": lambda n: A.advise(a.hand, players=a.players, samples=n, threads=a.threads),
        "advise_declarer": lambda n: A.advise(a.hand, players=a.players, samples=n,
                                              threads=a.threads, declarer=True),
        "evaluate_hand": lambda n: api.evaluate_hand(a.hand, players=a.players, samples=n,
                                                     threads=a.threads),
    }
    record = {"game": "pepper", "hand": a.hand, "players": a.players, "samples": a.samples,
              "threads": a.threads, "cores": os.cpu_count(), "repeats": a.repeats}
    for name, fn in cases.items():
        fn(1_000)           # warm-up: compile or load the kernels outside the timing
        times = best_of(a.repeats, lambda fn=fn: fn(a.samples))
        record[name] = {"best_seconds": times[0], "all_seconds": times,
                        "samples_per_second": a.samples / times[0]}
    # the target scales with --samples: 100,000 samples per TARGET_SECONDS
    budget = TARGET_SECONDS * a.samples / 100_000
    record["target"] = (f"100,000 samples of every plan in under {TARGET_SECONDS:g} s "
                        f"(threads: {a.threads})")
    record["target_met"] = record["advise"]["best_seconds"] < budget
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
