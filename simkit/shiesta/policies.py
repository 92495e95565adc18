"""Shiesta policies: ``random`` and the parameterised ``heuristic``.

This module holds the policies' parameters and their flattening for the
kernel.  The decisions themselves are defined in ``seeds/shiesta.md``
(section 6) and implemented twice: readably in ``reference.py`` and fast in
``kernel.py``; the differential tests hold the two together.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simkit.config import Config, option
from simkit.policy import Policy, RandomParams, seat_policies

EXCHANGES = ("up", "keep")


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy."""

    what = "heuristic parameter"

    exchange: str = option("up", "before play: the three strongest of the 8 cards go face up "
                           "(up) or stay in hand, the three weakest going face up (keep)",
                           choices=EXCHANGES)
    burn_at: int = option(6, "burn with a 10 when the pile holds at least this many cards",
                          lo=1, hi=200)
    three_at: int = option(3, "play a 3 when the next player holds at most this many cards",
                           lo=0, hi=200)
    save_specials: bool = option(True, "play 2, 10 and 3 only when no regular card is legal")


POLICIES: dict[str, type] = {"heuristic": HeuristicParams, "random": RandomParams}
POLICY_CODES = {"random": 0, "heuristic": 1}

P_EXCHANGE, P_BURN_AT, P_THREE_AT, P_SAVE = range(4)
N_PARAMS = 4


def make_policies(specs, players: int) -> tuple[Policy, ...]:
    """One validated Policy per seat (default: the heuristic at every seat)."""
    return seat_policies(specs, players, POLICIES, default="heuristic")


def flatten(policies: tuple[Policy, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(kind per seat, int64 params per seat) for the kernels."""
    kinds = np.array([POLICY_CODES[p.name] for p in policies], dtype=np.int64)
    params = np.zeros((len(policies), N_PARAMS), dtype=np.int64)
    for s, p in enumerate(policies):
        if p.name == "heuristic":
            q = p.params
            params[s] = (EXCHANGES.index(q.exchange), q.burn_at, q.three_at, int(q.save_specials))
    return kinds, params
