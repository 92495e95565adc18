"""Burraco policies: ``random``, ``heuristic`` and ``patient`` (seeds/burraco.md section 9).

``patient`` is the heuristic with defaults that hold cards back to build
clean burracos: new melds need four natural cards, wild cards go only onto a
meld of six (to make a burraco), and the discard pile is taken sooner.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simkit.config import Config, option
from simkit.policy import Policy, RandomParams, seat_policies


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy."""

    what = "heuristic parameter"

    take_at: int = option(5, "take the discard pile when it holds at least this many cards",
                          lo=1, hi=108)
    open_at: int = option(3, "natural cards needed to lay down a new meld", lo=3, hi=9)
    wild_at: int = option(4, "a wild card goes only onto a meld of at least this many cards",
                          lo=2, hi=13)
    close_margin: int = option(0, "go out when the team's table points this hand are at least "
                               "the opponents' minus this", lo=-10_000, hi=10_000)


@dataclasses.dataclass(frozen=True)
class PatientParams(HeuristicParams):
    """Parameters of the ``patient`` policy: the heuristic's, other defaults."""

    what = "patient parameter"

    take_at: int = option(4, "take the discard pile when it holds at least this many cards",
                          lo=1, hi=108)
    open_at: int = option(4, "natural cards needed to lay down a new meld", lo=3, hi=9)
    wild_at: int = option(6, "a wild card goes only onto a meld of at least this many cards",
                          lo=2, hi=13)


POLICIES: dict[str, type] = {"heuristic": HeuristicParams, "patient": PatientParams,
                             "random": RandomParams}


def make_policies(specs, players: int = 4) -> tuple[Policy, ...]:
    """One validated Policy per seat (default: the heuristic at every seat)."""
    return seat_policies(specs, players, POLICIES, default="heuristic")


P_TAKE_AT, P_OPEN_AT, P_WILD_AT, P_CLOSE_MARGIN = range(4)
N_PARAMS = 4


def flatten(policies: tuple[Policy, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(kind per seat: 0 random, 1 heuristic or patient; int64 params per seat).
    ``random`` melds with the heuristic's default parameters (section 9)."""
    kinds = np.array([0 if p.name == "random" else 1 for p in policies], dtype=np.int64)
    params = np.zeros((len(policies), N_PARAMS), dtype=np.int64)
    for s, p in enumerate(policies):
        q = HeuristicParams() if p.name == "random" else p.params
        params[s] = (q.take_at, q.open_at, q.wild_at, q.close_margin)
    return kinds, params
