"""Burraco from Python: simulate hands or whole games into pandas.

These functions resolve rules, policies, seed and threads once at the edge,
then hand plain arrays to the kernel in ``kernel.py``.  Column meanings are
in seeds/burraco.md section 8 and in the README.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit import config, rng
from simkit.errors import InputError
from simkit.policy import Policy
from simkit.chunks import spec_args
from simkit.runner import check_count, run_batches, set_threads
from simkit.burraco import kernel as K
from simkit.burraco.policies import flatten as flatten_policies
from simkit.burraco.policies import make_policies
from simkit.burraco.rules import PRESETS, BurracoRules, flatten, make_rules

ENDED = ("closed", "stock", "cap")
#: Score parts per team, in the kernel's column order.
PARTS = (("score", K.H_SCORE), ("melded", K.H_MELDED), ("hand_penalty", K.H_PENALTY),
         ("clean_burraco", K.H_CLEAN), ("dirty_burraco", K.H_DIRTY),
         ("burraco_bonus", K.H_BONUS), ("closing_bonus", K.H_CLOSE_BONUS),
         ("pozzetto_penalty", K.H_POZZ_PEN), ("pozzetto_turn", K.H_POZZ_TURN),
         ("melds", K.H_MELDS))


def resolve_rules(rules=None, players: int | None = None) -> BurracoRules:
    """Rules from a BurracoRules, a preset name, a dict of rule values or None (the seed's)."""
    return config.resolve_rules(rules, players, BurracoRules, make_rules, PRESETS, "Burraco")


def _setup(players, rules, policy, seed):
    if players is not None and players != 4:
        raise InputError(f"bad player count {players!r}: Burraco is played by exactly 4 "
                         f"players in two partnerships")
    r = resolve_rules(rules, players)
    key = rng.run_key(seed)
    pols = make_policies(policy, 4)
    kinds, params = flatten_policies(pols)
    return r, pols, flatten(r), kinds, params, key


def hands_frame(rec: np.ndarray, start: int, policies: tuple[Policy, ...]) -> pd.DataFrame:
    """Hand records from the kernel's matrix as a typed DataFrame (seeds/burraco.md 8)."""
    n = rec.shape[0]
    cols: dict[str, object] = {"hand": np.arange(start, start + n, dtype=np.int64),
                               "dealer": rec[:, K.H_DEALER].astype(np.int8)}
    for s, p in enumerate(policies):
        cols[f"policy_{s}"] = pd.Categorical.from_codes(np.zeros(n, np.int8), [p.text()])
    cols["turns"] = rec[:, K.H_TURNS].astype(np.int16)
    cols["ended"] = pd.Categorical.from_codes(rec[:, K.H_ENDED].astype(np.int8), list(ENDED))
    cols["closer"] = rec[:, K.H_CLOSER].astype(np.int8)
    for t in range(2):
        for name, col in PARTS:
            cols[f"{name}_{t}"] = rec[:, col + t].astype(np.int32)
    return pd.DataFrame(cols)


def _hand_records(rv, kinds, params, key, start, count, trace=False, width=20_000):
    rec = np.empty((count, K.N_HCOLS), np.int64)
    tr = np.empty((count if trace else 1, width if trace else 1), np.int64)
    K.run_hands(start, count, key, rv, kinds, params, rec, trace, tr)
    return rec, tr


def simulate(hands: int = 100_000, players: int | None = None, rules=None, policy=None,
             seed: int = 0, start: int = 0, threads: int | None = None,
             progress: bool = False) -> pd.DataFrame:
    """Play ``hands`` Burraco hands and return one row per hand.

    Hand ``i`` is dealt by seat ``i mod 4`` from stream (seed, i).  ``rules``: a
    preset name, a dict of rule values or a BurracoRules; ``policy``: one spec
    for every seat or one per seat (``random``, ``heuristic``, ``patient``).
    """
    check_count(hands, "hands")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
    set_threads(threads)
    frames = [hands_frame(rec, first, pols) for rec, first in run_batches(
        lambda s, c: (_hand_records(rv, kinds, params, key, s, c)[0], s), hands,
        start=start, batch=1 << 16, progress=progress)]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def trace_hands(rules: BurracoRules, policies, seed: int, start: int, count: int) -> dict:
    """Hands with every decision (codes as the reference's ``decision_codes``,
    -1 padded): ``frame`` and ``codes``."""
    r, pols, rv, kinds, params, key = _setup(None, rules, policies, seed)
    rec, tr = _hand_records(rv, kinds, params, key, start, count, trace=True)
    return {"frame": hands_frame(rec, start, pols), "codes": tr}


def simulate_games(games: int = 10_000, players: int | None = None, rules=None, policy=None,
                   seed: int = 0, start: int = 0, threads: int | None = None,
                   progress: bool = False) -> pd.DataFrame:
    """Play ``games`` whole games (to ``target``, the deal rotating; stream (seed, g))."""
    check_count(games, "games")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
    set_threads(threads)

    def compute(s, c):
        g = np.empty((c, K.N_GCOLS), np.int64)
        K.run_games(s, c, key, rv, kinds, params, g)
        return g, s

    frames = []
    for g, first in run_batches(compute, games, start=start, batch=1 << 14, progress=progress,
                                unit="game"):
        frames.append(pd.DataFrame({
            "game": np.arange(first, first + len(g), dtype=np.int64),
            "first_dealer": g[:, K.G_FIRST_DEALER].astype(np.int8),
            "hands": g[:, K.G_HANDS].astype(np.int32),
            "score_0": g[:, K.G_SCORE].astype(np.int32),
            "score_1": g[:, K.G_SCORE + 1].astype(np.int32),
            "winner": g[:, K.G_WINNER].astype(np.int8),
            "shared": g[:, K.G_SHARED].astype(bool),
            "unfinished": g[:, K.G_UNFINISHED].astype(bool)}))
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


#: Burraco keeps per-hand or per-game records only.
AGG_KEYS: tuple[str, ...] = ()


def hand_chunk(spec: dict, start: int, count: int) -> pd.DataFrame:
    """Hand records ``start .. start+count-1`` of the run described by ``spec``."""
    return simulate(count, start=start, **spec_args(spec, make_rules))


def game_chunk(spec: dict, start: int, count: int) -> pd.DataFrame:
    """Game records ``start .. start+count-1`` of the run described by ``spec``."""
    return simulate_games(count, start=start, **spec_args(spec, make_rules))
