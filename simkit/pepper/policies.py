"""Pepper policies: ``random`` and the parameterised ``heuristic``.

This module holds the policies' parameters and their flattening for the
kernel.  The decisions themselves are defined in ``seeds/pepper.md``
("Policies") and implemented twice: readably in ``reference.py`` and fast in
``kernel.py``; the differential tests hold the two together.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simkit.config import Config, option
from simkit.policy import Policy, RandomParams, seat_policies


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy (estimates are in tricks)."""

    what = "heuristic parameter"

    aggression: float = option(0.0, "tricks added to the hand estimate before it is rounded down "
                               "to a bid (negative: more cautious)", lo=-6.0, hi=6.0)
    partner_help: float = option(0.75, "tricks expected from the partner (4 players only)", lo=0.0, hi=6.0)
    kubwa_margin: int = option(0, "bid Kubwa when sure tricks fall short of all by at most this", lo=0, hi=8)
    draw_trumps: bool = option(True, "lead the top trump while opponents may still hold trumps")


POLICIES: dict[str, type] = {"heuristic": HeuristicParams, "random": RandomParams}
POLICY_CODES = {"random": 0, "heuristic": 1}

# Index of each heuristic parameter in a kernel's params row (hundredths of a trick).
P_AGGRESSION, P_PARTNER_HELP, P_KUBWA_MARGIN, P_DRAW_TRUMPS = range(4)
N_PARAMS = 4


def hundredths(tricks: float) -> int:
    """Trick estimates are integers in hundredths, so both engines agree exactly."""
    return int(round(tricks * 100))


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
            params[s] = (hundredths(q.aggression), hundredths(q.partner_help),
                         q.kubwa_margin, int(q.draw_trumps))
    return kinds, params
