"""Burraco policies: ``random``, ``heuristic`` and ``patient`` (seeds/burraco.md section 9).

The heuristic plays for clean burracos (section 9.1): sequences before sets,
wild cards kept off clean melds of five or more unless they complete the
burraco the team needs, empty the hand or the hand is ending, wild cards
starting sequences, the decision to go out taken after melding, and
discards that mind the pile.  ``classic`` is the heuristic before those
changes, kept so that the two can be compared (``simkit tournament burraco
--policy heuristic --policy classic``).

``patient`` is the heuristic with defaults that hold cards back to build
clean burracos: new melds need four natural cards, wild cards go only onto a
meld of six (to make a burraco), and the discard pile is taken sooner.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from simkit.base.config import Choice, Config, codes, layout, option
from simkit.policy import HEURISTIC, RandomParams, policies_maker


class Order(Choice):
    """Which new melds the heuristic lays first (seeds/burraco.md §9.1)."""

    SEQUENCES = "sequences"
    SETS = "sets"


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy.  ``random`` melds with their
    defaults (section 9): the kernel reads this class's fields for every seat."""

    what = "heuristic parameter"
    KIND = HEURISTIC

    # adapted players search from 2: a table taking every single card (take_at 1) never
    # draws from the stock, and its hands run to the turn cap (seeds/burraco.md 9)
    take_at: int = option(2, "take the discard pile when it holds at least this many cards",
                          lo=1, hi=108, span=(2, 5))
    open_at: int = option(3, "natural cards needed to lay down a new meld", lo=3, hi=9)
    wild_at: int = option(5, "a wild card goes only onto a meld of at least this many cards",
                          lo=2, hi=13)
    close_margin: int = option(0, "go out when the team's table points this hand are at least "
                               "the opponents' minus this", lo=-10_000, hi=10_000)
    order: Order = option(Order.SEQUENCES, "which new melds are laid first: sequences, or "
                          "sets (classic)")
    wild_guard: int = option(5, "a wild card goes onto a clean meld of at least this many cards "
                             "only to make the burraco the team needs to go out or when the "
                             "hand is ending (14: never held back)", lo=3, hi=14)
    end_stock: int = option(2, "the hand is ending when the stock holds at most this many cards "
                            "(2: only the last turn under stock_end=finish)",
                            lo=2, hi=41)
    end_threat: bool = option(False, "the hand is also ending when the opponents could go out "
                              "(their pozzetto taken and a burraco on the table)")
    pozzetto_wild: bool = option(False, "a wild card may spoil a clean meld to empty the hand "
                                 "for the pozzetto")
    wild_start: int = option(1, "start a sequence from two cards of a suit and a wild card when "
                             "the hand holds at least this many wild cards (0: never)",
                             lo=0, hi=12)
    close_after: bool = option(True, "decide whether to go out after melding, on the table as "
                               "it then is (false: before melding)")
    guard_pile: int = option(1, "from this many cards in the discard pile, discard the card "
                             "the opponents are least likely to use (109: never)", lo=1, hi=109)


@dataclasses.dataclass(frozen=True)
class PatientParams(HeuristicParams):
    """Parameters of the ``patient`` policy: the heuristic's, other defaults."""

    what = "patient parameter"

    take_at: int = option(4, "take the discard pile when it holds at least this many cards",
                          lo=1, hi=108, span=(2, 7))
    open_at: int = option(4, "natural cards needed to lay down a new meld", lo=3, hi=9)
    wild_at: int = option(6, "a wild card goes only onto a meld of at least this many cards",
                          lo=2, hi=13)


POLICIES: dict[str, type] = {"heuristic": HeuristicParams, "patient": PatientParams,
                             "random": RandomParams}


#: Named settings (``--policy NAME``): ``classic`` is the heuristic before it
#: played for clean burracos (seeds/burraco.md 9.1).
NAMED: dict[str, str] = {
    "classic": "heuristic:take_at=5,wild_at=4,order=sets,wild_guard=14,wild_start=0,"
               "close_after=false,guard_pile=109",
}
make_policies = policies_maker(POLICIES, default="heuristic", players=4, named=NAMED)
#: The parameter layout the kernel reads (every policy's fields fit in it).
LAYOUT = HeuristicParams

#: Where each parameter sits in a kernel's params row.
PARAM: Any = layout(HeuristicParams, "PARAM")      # Any: an IntEnum made at run time

#: The kernels' names of the options' values: IntEnums, whose members numba reads as
#: constants (:func:`simkit.base.config.codes`).
(OrderCode,) = codes(Order)
