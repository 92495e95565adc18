"""Where the tuned heuristics' offsets come from, derived again, and whether
the tuned defaults still sit at the optimum.

    python benchmarks/tuned_offsets.py [--game pepper|pitch ...] [--players N ...]
                                       [--trials 30] [--seed 0] [--threads N]

For each game and table size two searches over ``aggression=-1.5:1.5``
(``simkit tune``: duplicate deals, the same deals every trial, the best
three confirmed on fresh deals):

- **derive**: the hand-set heuristic (``untuned``) against itself: its best
  ``aggression``, the first step of the table size's offset, printed beside
  the offset in force (``TABLE_OFFSET`` in the game's ``policies.py``,
  seeds/pepper.md 7.2, seeds/pitch.md 8.2), with the best setting's
  confirmed gain over ``untuned`` in whole games.
- **residual**: the tuned default against itself.  Against a tuned table
  the best response may differ from the best against a hand-set one, so a
  residual that wins in whole games beyond its interval is added to the
  offset (with 2 players it was: Pepper +0.13, Pitch +0.04) and this runs
  again; at the offsets in force it finds nothing better, and a clear gain
  here says they should be tuned again (after a change to the hand
  estimate, say).

Prints a line per search: the best setting, the offset in force, and the
confirmed difference in whole games with its 95% interval; the time.
"""

import argparse
import time

from simkit import tune
from simkit.pepper.policies import TABLE_OFFSET as PEPPER
from simkit.pitch.policies import TABLE_OFFSET as PITCH

OFFSETS = {"pepper": PEPPER, "pitch": PITCH}


def search(game: str, base: str, players: int, trials: int, seed: int, threads) -> dict:
    """``simkit tune GAME --policy BASE --against BASE --param aggression=-1.5:1.5``."""
    spec = tune.make_spec(game, base, ["aggression=-1.5:1.5"], [base],
                          tune.SpecSettings(players=players, trials=trials, seed=seed))
    return tune.run(spec, tune.TuneOptions(threads=threads))


def in_games(result: dict, against: str) -> dict:
    """The best setting's confirmation against ``against`` in whole games."""
    best = result["best"]["setting"]
    return next(r for r in result["confirmations"]
                if r["setting"] == best and r["against"] == against and r["unit"] == "game")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", action="append", choices=sorted(OFFSETS))
    ap.add_argument("--players", type=int, action="append")
    ap.add_argument("--trials", type=int, default=tune.DEFAULT_TRIALS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None)
    a = ap.parse_args()
    for game in a.game or sorted(OFFSETS):
        for players in a.players or sorted(OFFSETS[game]):
            for mode, base in (("derive", "untuned"), ("residual", "heuristic")):
                t0 = time.perf_counter()
                res = search(game, base, players, a.trials, a.seed, a.threads)
                c = in_games(res, base)
                found = res["best"]["params"]["aggression"]
                print(f"{game}, {players} players, {mode}: best {res['best']['setting']} "
                      f"(offset in force {OFFSETS[game][players]:+.2f}); against {base} "
                      f"{c['diff']:+.4f} [{c['ci_low']:+.4f}, {c['ci_high']:+.4f}] "
                      f"{c['units']}, {c['hands']:,} games, p = {c['p_value']:.3g}; "
                      f"aggression {found:+.2f}  ({time.perf_counter() - t0:.0f} s)",
                      flush=True)


if __name__ == "__main__":
    main()
