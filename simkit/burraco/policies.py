"""Burraco policies: ``random``, ``heuristic`` and ``patient`` (seeds/burraco.md section 9).

``patient`` is the heuristic with defaults that hold cards back to build
clean burracos: new melds need four natural cards, wild cards go only onto a
meld of six (to make a burraco), and the discard pile is taken sooner.
"""

from __future__ import annotations

import dataclasses

from simkit.config import Config, layout, option
from simkit.policy import HEURISTIC, RandomParams, policies_maker


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy.  ``random`` melds with their
    defaults (section 9): the kernel reads this class's fields for every seat."""

    what = "heuristic parameter"
    KIND = HEURISTIC

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


#: Named settings (``--policy NAME``): specs worth a name, e.g. the older heuristic.
NAMED: dict[str, str] = {}
make_policies = policies_maker(POLICIES, default="heuristic", players=4, named=NAMED)

#: Where each parameter sits in a kernel's params row.
PARAM = layout(HeuristicParams, "PARAM")
