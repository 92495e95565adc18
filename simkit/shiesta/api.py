"""Shiesta from Python: simulate whole games into pandas.

These functions resolve rules, policies, seed and threads once at the edge,
then hand plain arrays to the kernel in ``kernel.py``.  Column meanings are
in seeds/shiesta.md section 5 and in the README.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit import config, rng
from simkit.errors import InputError
from simkit.policy import Policy
from simkit.chunks import spec_args
from simkit.runner import check_count, run_batches, set_threads
from simkit.shiesta import kernel as K
from simkit.shiesta.policies import flatten as flatten_policies
from simkit.shiesta.policies import make_policies
from simkit.shiesta.rules import (MAX_PLAYERS, MIN_PLAYERS, PRESETS, SPECIAL_TEXT, ShiestaRules,
                                  flatten, make_rules)


def resolve_rules(rules=None, players: int | None = None) -> ShiestaRules:
    """Rules from a ShiestaRules, a preset name, a dict of rule values or None (the seed's)."""
    return config.resolve_rules(rules, players, ShiestaRules, make_rules, PRESETS, "Shiesta")


def _setup(players, rules, policy, seed):
    if players is not None and (isinstance(players, bool) or not isinstance(players, (int, np.integer))
                                or not MIN_PLAYERS <= players <= MAX_PLAYERS):
        raise InputError(f"bad player count {players!r}: Shiesta is played by "
                         f"{MIN_PLAYERS} to {MAX_PLAYERS} players")
    r = resolve_rules(rules, players)
    key = rng.run_key(seed)
    pols = make_policies(policy, r.players)
    kinds, params = flatten_policies(pols)
    return r, pols, flatten(r), kinds, params, key


def games_frame(g: np.ndarray, start: int, rules: ShiestaRules,
                policies: tuple[Policy, ...]) -> pd.DataFrame:
    """Game records from the kernel's matrix as a typed DataFrame (seeds/shiesta.md 5)."""
    N = rules.players
    n = g.shape[0]
    cols: dict[str, object] = {"game": np.arange(start, start + n, dtype=np.int64)}
    for s, p in enumerate(policies):
        cols[f"policy_{s}"] = pd.Categorical.from_codes(np.zeros(n, np.int8), [p.text()])
    cols["starter"] = g[:, K.G_STARTER].astype(np.int8)
    cols["winner"] = g[:, K.G_WINNER].astype(np.int8)
    cols["winner_seat"] = g[:, K.G_WINNER_SEAT].astype(np.int8)
    cols["turns"] = g[:, K.G_TURNS].astype(np.int32)
    for s in range(N):
        cols[f"pickups_{s}"] = g[:, K.G_PICKUPS + s].astype(np.int16)
    for i, t in enumerate(SPECIAL_TEXT):
        cols[f"played_{t}"] = g[:, K.G_PLAYED + i].astype(np.int16)
    for s in range(N):
        cols[f"cards_left_{s}"] = g[:, K.G_LEFT + s].astype(np.int16)
    cols["unfinished"] = g[:, K.G_UNFINISHED].astype(bool)
    for s in range(N):
        for i, t in enumerate(SPECIAL_TEXT):
            cols[f"dealt_{t}_{s}"] = g[:, K.G_DEALT + 4 * s + i].astype(np.int8)
    return pd.DataFrame(cols)


def _game_records(rv, kinds, params, key, start, count, trace=False):
    g = np.empty((count, K.N_GCOLS), np.int64)
    moves = np.empty((count if trace else 1, int(rv[-1]) if trace else 1), np.int64)
    K.run_games(start, count, key, rv, kinds, params, g, trace, moves)
    return g, moves


def simulate_games(games: int = 10_000, players: int | None = None, rules=None, policy=None,
                   seed: int = 0, start: int = 0, threads: int | None = None,
                   progress: bool = False) -> pd.DataFrame:
    """Play ``games`` Shiesta games and return one row per game.

    ``rules``: a preset name, a dict of rule values or a ShiestaRules;
    ``policy``: one spec for every seat or one per seat, e.g.
    ``["heuristic:exchange=keep", "random", "heuristic"]``.  Game ``g`` uses
    the stream (seed, g).  ``players`` (3 to 5) overrides the rules' count.
    """
    check_count(games, "games")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
    set_threads(threads)
    frames = [games_frame(g, first, r, pols) for g, first in run_batches(
        lambda s, c: (_game_records(rv, kinds, params, key, s, c)[0], s), games,
        start=start, batch=1 << 17, progress=progress, unit="game")]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def trace_games(rules: ShiestaRules, policies, seed: int, start: int, count: int) -> dict:
    """Games with every move (codes as the reference's ``move_codes``, -1 padded),
    for comparison with the reference engine: ``frame`` and ``moves``."""
    r, pols, rv, kinds, params, key = _setup(None, rules, policies, seed)
    g, moves = _game_records(rv, kinds, params, key, start, count, trace=True)
    return {"frame": games_frame(g, start, r, pols), "moves": moves}


#: Pitch and Pepper aggregate hands; Shiesta is played in whole games only.
AGG_KEYS: tuple[str, ...] = ()


def game_chunk(spec: dict, start: int, count: int) -> pd.DataFrame:
    """Game records ``start .. start+count-1`` of the run described by ``spec``."""
    return simulate_games(count, start=start, **spec_args(spec, make_rules))
