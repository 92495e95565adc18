"""Pitch policies: ``random`` and the parameterised ``heuristic``.

This module holds the policies' parameters and their flattening for the
kernel.  The decisions themselves are defined in ``seeds/pitch.md`` (section
8) and implemented twice: readably in ``reference.py`` and fast in
``kernel.py``; the differential tests hold the two together.
"""

from __future__ import annotations

import dataclasses
from math import comb

import numpy as np

from simkit.config import Config, option
from simkit.policy import Policy, RandomParams, seat_policies
from simkit.pitch.rules import HAND_SIZE, MAX_PLAYERS


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy (estimates are in points)."""

    what = "heuristic parameter"

    aggression: float = option(0.0, "points added to the hand estimate before it is rounded "
                               "to a bid (negative: more cautious)", lo=-4.0, hi=4.0)
    moon_run: int = option(4, "bid the moon holding the trumps from the ace down at least "
                           "this deep without a gap (7: never)", lo=1, hi=7)
    moon_trumps: int = option(6, "... and at least this many trumps", lo=1, hi=6)


POLICIES: dict[str, type] = {"heuristic": HeuristicParams, "random": RandomParams}
POLICY_CODES = {"random": 0, "heuristic": 1}

# Index of each heuristic parameter in a kernel's params row.
P_AGGRESSION, P_MOON_RUN, P_MOON_TRUMPS = range(3)
N_PARAMS = 3


def hundredths(points: float) -> int:
    """Estimates are integers in hundredths of a point, so both engines agree exactly."""
    return int(round(points * 100))


def make_policies(specs, players: int) -> tuple[Policy, ...]:
    """One validated Policy per seat (default: the heuristic at every seat)."""
    return seat_policies(specs, players, POLICIES, default="heuristic")


def flatten(policies: tuple[Policy, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(kind per seat, int64 params per seat) for the kernels."""
    kinds = np.array([POLICY_CODES[p.name] for p in policies], dtype=np.int64)
    params = np.zeros((len(policies), N_PARAMS), dtype=np.int64)
    for s, p in enumerate(policies):
        if p.name == "heuristic":
            params[s] = (hundredths(p.params.aggression), p.params.moon_run,
                         p.params.moon_trumps)
    return kinds, params


def unseen_table() -> np.ndarray:
    """``Q[N, k]``: hundredths (rounded down) of the chance that none of ``k`` given
    unseen cards went to another player, with ``N`` players (seeds/pitch.md 8.2)."""
    unseen = 52 - HAND_SIZE
    q = np.zeros((MAX_PLAYERS + 1, 13), np.int64)
    for n in range(2, MAX_PLAYERS + 1):
        m = HAND_SIZE * (n - 1)
        for k in range(13):
            q[n, k] = (100 * comb(unseen - k, m)) // comb(unseen, m)
    return q
