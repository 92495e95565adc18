"""Pitch policies (seeds/pitch.md §8): ``random`` and the parameterised ``heuristic``.

The heuristic estimates its hand in points from exact chances and bids,
leads and follows as section 8 says; ``reference.py`` and ``kernel.py``
implement it independently.  Here: its parameters, and :data:`PARAM`, where
a kernel's params row holds each.
"""

from __future__ import annotations

import dataclasses
from math import comb

import numpy as np

from simkit.config import Config, layout, option
from simkit.policy import HEURISTIC, RandomParams, policies_maker
from simkit.pitch.rules import HAND_SIZE, MAX_PLAYERS


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy (estimates are in points)."""

    what = "heuristic parameter"
    KIND = HEURISTIC

    aggression: float = option(0.0, "points added to the hand estimate before it is rounded "
                               "to a bid (negative: more cautious)", lo=-4.0, hi=4.0, scale=100)
    moon_run: int = option(4, "bid the moon holding the trumps from the ace down at least "
                           "this deep without a gap (7: never)", lo=1, hi=7)
    moon_trumps: int = option(6, "... and at least this many trumps", lo=1, hi=6)


POLICIES: dict[str, type] = {"heuristic": HeuristicParams, "random": RandomParams}
#: Named settings (``--policy NAME``): specs worth a name, e.g. the older heuristic.
NAMED: dict[str, str] = {}
make_policies = policies_maker(POLICIES, default="heuristic", named=NAMED)

#: Where each heuristic parameter sits in a kernel's params row (the
#: aggression in hundredths of a point, so both engines agree exactly).
PARAM = layout(HeuristicParams, "PARAM")


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
