"""Throughput measurements behind ``simkit bench`` (the scripts in ``benchmarks/``
use them too).

Each case is timed as the best of a few repetitions, on one thread and on all
threads in the same process, so that the ratio between them is measured under
the same conditions: this machine is shared and noisy.
"""

from __future__ import annotations

import time

import numpy as np

from simkit import rng
from simkit.runner import max_threads, set_threads


def best_rate(fn, units: int, repeats: int = 3) -> float:
    """Units per second of ``fn()`` (which processes ``units``): best of ``repeats``."""
    fn()   # compile / warm caches and pages
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return units / best


def _table(game: str, players: int, policy: str = "heuristic"):
    """(kernel module, flattened rules, policy kinds, policy params, run key) of a
    table of ``players`` playing ``policy`` under the game's default rules."""
    from simkit import games
    rules = games.part(game, "rules")
    pols = games.part(game, "policies")
    kinds, params = pols.flatten(pols.make_policies(policy, players))
    return (games.part(game, "kernel"), rules.flatten(rules.make_rules(players=players)),
            kinds, params, np.uint64(rng.seed_key(1)))


def pepper_hands(players: int, hands: int):
    """A closure playing ``hands`` full Pepper hands into a preallocated matrix."""
    K, rv, kinds, params, key = _table("pepper", players)
    rec = np.empty((hands, K.N_COLS), np.int16)
    no = np.empty((1, 1), np.int64)
    return lambda: K.run_hands(0, hands, key, rv, kinds, params, rec, False, no, no, no)


def pitch_hands(players: int, hands: int):
    """A closure playing ``hands`` full Pitch hands into a preallocated matrix."""
    K, rv, kinds, params, key = _table("pitch", players)
    rec = np.empty((hands, K.N_COLS), np.int16)
    plays, dealt = np.empty((1, 1), np.int8), np.empty((1, 1), np.int64)
    return lambda: K.run_hands(0, hands, key, rv, kinds, params, rec, False, plays, dealt)


def shiesta_games(players: int, games: int):
    """A closure playing ``games`` whole Shiesta games into a preallocated matrix."""
    K, rv, kinds, params, key = _table("shiesta", players)
    g = np.empty((games, K.N_GCOLS), np.int64)
    moves = np.empty((1, 1), np.int64)
    return lambda: K.run_games(0, games, key, rv, kinds, params, g, False, moves)


def burraco_hands(players: int, hands: int):
    """A closure playing ``hands`` full Burraco hands into a preallocated matrix."""
    K, rv, kinds, params, key = _table("burraco", players)
    rec = np.empty((hands, K.N_HCOLS), np.int64)
    tr = np.empty((1, 1), np.int64)
    return lambda: K.run_hands(0, hands, key, rv, kinds, params, rec, False, tr)


CASES = {"pepper": [(p, pepper_hands) for p in (4, 3, 2)],
         "pitch": [(p, pitch_hands) for p in (4, 2, 8)],
         "shiesta": [(p, shiesta_games) for p in (4, 3, 5)],
         "burraco": [(4, burraco_hands)]}
UNITS = {"pepper": "hand", "pitch": "hand", "shiesta": "game", "burraco": "hand"}
#: Units measured per ``--hands``: a Shiesta game is some 60 to 120 turns, a
#: Burraco hand some 45 turns with melds.
SCALE = {"pepper": 1, "pitch": 1, "shiesta": 20, "burraco": 200}


def reference_rate(game: str, players: int, hands: int) -> float:
    """Hands (Shiesta: games) per second of the game's readable reference engine
    with heuristic tables."""
    from simkit import games as registry
    rules = registry.part(game, "rules").make_rules(players=players)
    pols = registry.part(game, "policies").make_policies("heuristic", players)
    ref = registry.part(game, "reference")
    if game == "pepper":
        play = lambda i: ref.simulate_hand(rules, pols, 1, i)          # noqa: E731
    elif game == "shiesta":
        play = lambda i: ref.play_game(1, i, rules, pols)               # noqa: E731
    elif game == "burraco":
        play = lambda i: ref.play_hand(1, i, rules, pols, i % 4)        # noqa: E731
    else:
        play = lambda i: ref.play_hand(1, i, rules, pols, i % players)  # noqa: E731
    t0 = time.perf_counter()
    for i in range(hands):
        play(i)
    return hands / (time.perf_counter() - t0)


def run_bench(games, hands: int = 2_000_000) -> list[dict]:
    """One record per (game, players, threads): 1 thread and all threads."""
    records = []
    top = max_threads()
    for game in games:
        units = max(1, hands // SCALE[game])
        for players, make in CASES[game]:
            run = make(players, units)
            one = None
            for threads in sorted({1, top}):
                set_threads(threads)
                rate = best_rate(run, units)
                one = one or rate
                records.append({"game": game, "players": players, "threads": threads,
                                "unit": UNITS[game], "rate": rate, "ns_per_unit": 1e9 / rate,
                                "policy": "heuristic", "units": units,
                                "speedup_vs_1_thread": rate / one})
    set_threads(None)
    return records
