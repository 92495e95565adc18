"""Throughput measurements behind ``simkit bench`` (the scripts in ``benchmarks/``
use them too).

Each case is timed as the best of a few repetitions, on one thread and on all
threads in the same process, so that the ratio between them is measured under
the same conditions: this machine is shared and noisy.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from simkit import games
from simkit.engine import BenchCase, Game, kernel_run
from simkit.runs.batches import check_held, max_threads, set_threads

#: Timed runs of each case at each thread count, interleaved (1, all, 1, all, ...).
REPEATS = 5


def best_rates(fn: Callable[[], object], units: int, thread_counts: Iterable[int],
               repeats: int = REPEATS) -> dict[int, float]:
    """Units per second of ``fn()`` (which processes ``units``) at each of
    ``thread_counts``: the best of ``repeats`` runs, the thread counts taking
    turns, so that a burst of other work on this shared machine slows runs of
    every count alike instead of the ones measured while it lasted."""
    best: dict[int, float] = {}
    for threads in thread_counts:
        set_threads(threads)
        fn()   # compile / warm caches and pages
        best[threads] = float("inf")
    for _ in range(repeats):
        for threads in thread_counts:
            set_threads(threads)
            t0 = time.perf_counter()
            fn()
            best[threads] = min(best[threads], time.perf_counter() - t0)
    return {threads: units / t for threads, t in best.items()}


def reference_rate(game: Game, players: int, units: int) -> float:
    """Units (hands, or Shiesta games) per second of the game's readable
    reference engine at a heuristic table."""
    rules = game.make_rules(players=players)
    pols = game.make_policies("heuristic", players)
    t0 = time.perf_counter()
    for i in range(units):
        game.reference(rules, pols, 1, i)
    return units / (time.perf_counter() - t0)


def _yardstick_case(hands: int) -> BenchCase:
    """The bare deal-and-play hands (:mod:`simkit.yardstick`) every rate is divided by."""
    from simkit import yardstick
    from simkit.base.rng import run_key

    out = np.empty(hands, np.int64)
    key = run_key(0)
    return BenchCase("yardstick", 4, "hand", hands, lambda: yardstick.run(hands, key, out))


def run_bench(names: Iterable[str], hands: int = 2_000_000) -> list[dict[str, Any]]:
    """One record per (game, case, players, threads): 1 thread and all threads,
    the bare yardstick (:mod:`simkit.yardstick`) first.  ``vs_yardstick`` is a
    rate over the yardstick's at the same thread count, in the same run: a
    ratio that holds on a busy machine, where rates alone do not.

    A game measures ``hands // bench_scale`` of its bench unit for each of its
    ``bench_players`` counts (its spec says which: a Shiesta game or a Burraco
    hand is many Pepper hands' worth of work), case ``heuristic``; then its
    further cases (``Game.bench_cases``: Pepper's double-dummy solver and
    its searching player), sized from ``hands`` by the game."""
    check_held(hands, "--hands", "bench")
    cases = [("-", _yardstick_case(hands))]
    for name in names:
        game = games.get(name)
        units = max(1, hands // game.bench_scale)
        cases += [(game.name, BenchCase("heuristic", players, game.bench_unit, units,
                                        kernel_run(game, players, units)))
                  for players in game.bench_players]
        cases += [(game.name, c) for c in game.bench_cases(hands)]
    records: list[dict[str, Any]] = []
    yard: dict[int, float] = {}
    for name, c in cases:
        rates = best_rates(c.run, c.units, sorted({1, max_threads()}))
        one = rates[1]
        for threads, rate in rates.items():
            yard.setdefault(threads, rate)          # the yardstick is measured first
            records.append({"game": name, "case": c.case, "players": c.players,
                            "threads": threads, "unit": c.unit, "rate": rate,
                            "ns_per_unit": 1e9 / rate, "units": c.units,
                            "speedup_vs_1_thread": rate / one,
                            "vs_yardstick": rate / yard[threads]})
    set_threads(None)
    return records
