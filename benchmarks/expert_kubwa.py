"""Kubwa on strong hands: how much of the perfect-information bound each
declaring side makes, against the same defenders on the same deals.

    python benchmarks/expert_kubwa.py [--players 4 ...] [--deals 200000] [--seed 0]
                                      [--defenders SPEC ...] [--policy SPEC ...]
                                      [--base SPEC] [--threads N]

The deals are ``simulate``'s first ``--deals`` hands; the strong ones (the
first speaker holds both bowers and three or more trumps of the trump the
heuristic names) are played with the first speaker calling Kubwa.  Only the
deals whose first speaker is seat 0 are kept, so that a table of policies
``[declaring, defender, partner, defender]`` (4 players; ``[declaring,
defender, ...]`` otherwise) puts the declaring side's policy where it
belongs.  Each ``--policy`` (default: heuristic, the expert before
inference ``expert:model=voids``, the expert with inference ``expert``, and
the oracle ``expert:worlds=0``, which sees the real deal and is no player)
plays the declaring side against each ``--defenders`` policy (default:
heuristic and classic; the expert's model of the table is the table's own
policies, so classic defenders are ones it does not expect), for each
``--players`` (default 4; 2 and 3 for the other tables).

Prints, per table and policy: the rate of every trick with its 95%
interval; its share of the bound (the double-dummy "every trick" with the
same trump, every card visible, perfect defence) with a 95% interval (the
delta method on the paired ratio of means); the paired difference from
``--base`` (default ``expert:model=voids``) with its 95% interval; the time.
"""

import argparse
import time

import numpy as np

from simkit import stats
from simkit.pepper import api

Z95 = 1.959963984540054


def share_of_bound(made: np.ndarray, bound: np.ndarray) -> tuple[float, float, float]:
    """mean(made) / mean(bound) on paired deals with a 95% interval (delta method:
    the variance of ``made - r * bound`` over the deals)."""
    r = made.sum() / bound.sum()
    n = len(made)
    se = np.std(made - r * bound, ddof=1) / (np.sqrt(n) * bound.mean())
    return r, r - Z95 * se, r + Z95 * se


def strong_deals(P: int, deals: int, seed: int, threads):
    """The strong deals' hand numbers (seat 0 declaring) and the heuristic's trump."""
    df = api.plan_deals(deals, "kubwa", players=P, seed=seed, threads=threads)
    number = df["hand"].to_numpy(np.int64)
    keep = ((df["bidder_bowers"] == 2) & (df["bidder_trumps"] >= 3)).to_numpy() \
        & (number % P == P - 1)                         # the dealer is P-1: seat 0 declares
    return number[keep], df["trump"].cat.codes.to_numpy(np.int64)[keep]


def table(P: int, defenders: str, specs: list[str], base_spec: str, numbers, bound, seed,
          threads) -> None:
    """One table: every policy of ``specs`` declaring against ``defenders``."""
    print(f"\n{P} players, defenders {defenders}: {len(numbers):,} strong deals, "
          f"bound {bound.mean():.3f}")
    made_by = {}
    for spec in [base_spec] + [s for s in specs if s != base_spec]:
        pols = [spec] + [defenders] * (P - 1)
        if P == 4:
            pols[2] = spec                              # the partner plays the same policy
        t0 = time.perf_counter()
        made_by[spec] = api.plan_deals(0, "kubwa", players=P, policy=pols, seed=seed,
                                       numbers=numbers, threads=threads)["made"].to_numpy(float)
        made_by[spec + " time"] = time.perf_counter() - t0
    base = made_by[base_spec]
    for spec in specs if base_spec in specs else [base_spec] + specs:
        made = made_by[spec]
        lo, hi = stats.proportion_ci(int(made.sum()), len(made))
        r, rlo, rhi = share_of_bound(made, bound)
        d, dlo, dhi = stats.mean_ci_of(made - base)
        print(f"  {spec:<30} every trick {made.mean():.3f} [{lo:.3f}, {hi:.3f}]  "
              f"of the bound {r:.3f} [{rlo:.3f}, {rhi:.3f}]  vs {base_spec} {d:+.3f} "
              f"[{dlo:+.3f}, {dhi:+.3f}]  ({made_by[spec + ' time']:.1f} s)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, action="append", choices=(2, 3, 4))
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--defenders", action="append")
    ap.add_argument("--policy", action="append")
    ap.add_argument("--base", default="expert:model=voids")
    ap.add_argument("--threads", type=int, default=None)
    a = ap.parse_args()
    specs = a.policy or ["heuristic", "expert:model=voids", "expert", "expert:worlds=0"]
    for P in a.players or [4]:
        numbers, trump = strong_deals(P, a.deals, a.seed, a.threads)
        T = 6 if P == 4 else 8
        bound = api.bound_first(numbers, trump, players=P, seed=a.seed, target=T,
                                threads=a.threads).astype(float)
        for defenders in a.defenders or ["heuristic", "classic"]:
            table(P, defenders, specs, a.base, numbers, bound, a.seed, a.threads)


if __name__ == "__main__":
    main()
