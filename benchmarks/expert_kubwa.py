"""Kubwa on strong hands: how much of the perfect-information bound each
declaring side makes, against the same heuristic defenders on the same deals.

    python benchmarks/expert_kubwa.py [--players 4] [--deals 200000] [--seed 0]
                                      [--policy SPEC ...]

The deals are ``simulate``'s first ``--deals`` hands; the strong ones (the
first speaker holds both bowers and three or more trumps of the trump the
heuristic names) are played with the first speaker calling Kubwa.  Only the
deals whose first speaker is seat 0 are kept, so that a table of policies
``[declaring, heuristic, partner, heuristic]`` (4 players; ``[declaring,
heuristic, ...]`` otherwise) puts the declaring side's policy where it
belongs.  Each ``--policy`` (default: heuristic, expert, expert:worlds=64,
and the oracle expert:worlds=0, which sees the real deal and is no player)
plays the declaring side; the defenders play the heuristic.  Prints, per
policy, the rate of every trick with its 95% interval, its share of the
bound (the double-dummy "every trick" with the same trump), and the paired
difference from the heuristic with its interval.
"""

import argparse
import time

import numpy as np

from simkit import stats
from simkit.pepper import api


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--policy", action="append")
    a = ap.parse_args()
    specs = a.policy or ["heuristic", "expert", "expert:worlds=64", "expert:worlds=0"]
    P = a.players
    df = api.plan_deals(a.deals, "kubwa", players=P, seed=a.seed)
    number = df["hand"].to_numpy(np.int64)
    keep = ((df["bidder_bowers"] == 2) & (df["bidder_trumps"] >= 3)).to_numpy() \
        & (number % P == P - 1)                         # the dealer is P-1: seat 0 declares
    numbers = number[keep]
    trump = df["trump"].cat.codes.to_numpy(np.int64)[keep]
    T = 6 if P == 4 else 8
    bound = api.bound_first(numbers, trump, players=P, seed=a.seed, target=T).astype(float)
    print(f"{P} players, {len(numbers):,} strong deals (seat 0 declares Kubwa), seed {a.seed}; "
          f"bound (every card visible, perfect defence): {bound.mean():.3f}")
    base = None
    for spec in specs:
        pols = [spec] + ["heuristic"] * (P - 1)
        if P == 4:
            pols[2] = spec                              # the partner plays the same policy
        t0 = time.perf_counter()
        made = api.plan_deals(0, "kubwa", players=P, policy=pols, seed=a.seed,
                              numbers=numbers)["made"].to_numpy(float)
        took = time.perf_counter() - t0
        base = made if base is None else base
        lo, hi = stats.proportion_ci(int(made.sum()), len(made))
        d, dlo, dhi = stats.mean_ci_of(made - base)
        print(f"{spec:<22} every trick {made.mean():.3f} [{lo:.3f}, {hi:.3f}]  "
              f"of the bound {made.sum() / bound.sum():.3f}  vs {specs[0]} {d:+.3f} "
              f"[{dlo:+.3f}, {dhi:+.3f}]  ({took:.1f} s)")


if __name__ == "__main__":
    main()
