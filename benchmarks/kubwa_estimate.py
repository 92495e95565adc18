"""Does a higher Kubwa stake make a Kubwa on the hand estimate pay?

    python benchmarks/kubwa_estimate.py [--hands 2000000] [--games 200000]
                                        [--stakes 2 3 4] [--est 5.5 5.75 6.0]

The heuristic bids Kubwa on a count of sure tricks (seeds/pepper.md 7.2), a
rule that cannot follow a change of stake: a hand one trick short of certain
is bid the same whatever Kubwa pays.  ``kubwa_est`` lets it also bid Kubwa
when its hand estimate (with the partner's help) reaches a number of
tricks: strong hands whose chance of every trick might cross the break-even
of a higher stake.  For each ``kubwa_stake`` and each threshold this plays
``heuristic`` against ``heuristic:kubwa_est=X`` on duplicate deals with 4
players (``simkit tournament``), in points per hand and in whole games, and
prints the difference with its 95% interval (positive: the threshold
loses).  Adapted players (``simkit compare --adapt``) search ``kubwa_est``
too, from 5.5 up.
"""

import argparse
import time

from simkit import tournament


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=2_000_000)
    p.add_argument("--games", type=int, default=200_000)
    p.add_argument("--stakes", type=int, nargs="+", default=[2, 3, 4])
    p.add_argument("--est", type=float, nargs="+", default=[5.5, 5.75, 6.0])
    a = p.parse_args()
    t0 = time.perf_counter()
    print(f"heuristic minus heuristic:kubwa_est=X, 4 players, duplicate deals "
          f"({a.hands:,} hands; {a.games:,} whole games), 95% intervals")
    print(f"{'stake':>5} {'X':>5}  {'points per hand':<30}{'wins per game':<30}")
    for stake in a.stakes:
        for est in a.est:
            cells = []
            for unit, n in (("hands", a.hands), ("games", a.games)):
                res = tournament.run("pepper", ["heuristic", f"heuristic:kubwa_est={est}"],
                                     rules={"kubwa_stake": stake}, players=4, **{unit: n})
                r = res.pairs.iloc[0]
                cells.append(f"{r['diff']:+.4f} [{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]")
            print(f"{stake:>5} {est:>5}  {cells[0]:<30}{cells[1]:<30}")
    print(f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
