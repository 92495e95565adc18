"""Kernel throughput on 1 and all threads, the reference engine, and their ratios.

    python benchmarks/throughput.py [GAME ...] [--hands 2000000] [--reference-hands 3000]

GAME is any registered game (default: every game).  Prints one JSON record per
measurement (the shape of `simkit bench --json`), then the reference
engine's rate for each player count with the kernel/reference ratio.
"""

import argparse
import json

from simkit import games
from simkit.bench import reference_rate, run_bench


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("games", nargs="*", default=list(games.GAMES))
    ap.add_argument("--hands", type=int, default=2_000_000)
    ap.add_argument("--reference-hands", type=int, default=3_000)
    a = ap.parse_args()
    records = run_bench(a.games, hands=a.hands)
    for name in a.games:
        game = games.get(name)
        for players in game.bench_players:
            ref = reference_rate(game, players, a.reference_hands)
            one = next(r for r in records if r["game"] == game.name and r["players"] == players
                       and r["threads"] == 1 and r.get("case") == "heuristic")
            records.append({"game": game.name, "players": players, "threads": 1,
                            "unit": game.bench_unit,
                            "engine": "reference", "rate": ref, "ns_per_unit": 1e9 / ref,
                            "kernel_over_reference": one["rate"] / ref})
    print(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
