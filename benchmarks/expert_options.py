"""An expert option against the expert without it, in whole hands (auction
included), paired on the same deals.

    python benchmarks/expert_options.py [--players 4 ...] [--hands 4000] [--seed 5]
                                        [--policy SPEC] [--base SPEC] [--others SPEC]
                                        [--threads N]

Seat 0 (and its partner, seat 2, with 4 players) plays ``--policy`` (default
``expert:calls=true``) or ``--base`` (default ``expert``); the other seats
play ``--others`` (default heuristic).  The deals and the auctions are the
same in both runs (the expert bids as the heuristic), so the runs differ only
where the option changes a card.  Prints per player count: the hands in
which the card play differed, and the paired mean of seat 0's side's score
less the mean of the other sides' (per hand), with its 95% interval; the time.
"""

import argparse
import time

import numpy as np

from simkit.base import stats
from simkit.pepper import api


def margin(df, P: int) -> np.ndarray:
    """Seat 0's side's score less the mean of the other sides', per hand."""
    if P == 4:
        return (df["score_0"] - df["score_1"]).to_numpy(float)
    others = sum(df[f"score_{s}"].to_numpy(float) for s in range(1, P)) / (P - 1)
    return df["score_0"].to_numpy(float) - others


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, action="append", choices=(2, 3, 4))
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--policy", default="expert:calls=true")
    ap.add_argument("--base", default="expert")
    ap.add_argument("--others", default="heuristic")
    ap.add_argument("--threads", type=int, default=None)
    a = ap.parse_args()
    for P in a.players or [4]:
        runs = {}
        for spec in (a.base, a.policy):
            pols = [spec] + [a.others] * (P - 1)
            if P == 4:
                pols[2] = spec
            t0 = time.perf_counter()
            df = api.simulate(a.hands, players=P, policy=pols, seed=a.seed, threads=a.threads)
            runs[spec] = (df, time.perf_counter() - t0)
        base, pol = runs[a.base][0], runs[a.policy][0]
        cols = [f"tricks_{s}" for s in range(P)]
        changed = (base[cols].to_numpy() != pol[cols].to_numpy()).any(axis=1)
        d, lo, hi = stats.mean_ci_of(margin(pol, P) - margin(base, P))
        print(f"{P} players, {a.hands:,} hands (seed {a.seed}), others {a.others}: "
              f"{a.policy} vs {a.base}: tricks differ in {changed.sum():,} hands; "
              f"score margin {d:+.4f} [{lo:+.4f}, {hi:+.4f}] per hand  "
              f"({runs[a.base][1]:.0f} s, {runs[a.policy][1]:.0f} s)")


if __name__ == "__main__":
    main()
