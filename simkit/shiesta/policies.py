"""Shiesta policies (seeds/shiesta.md §6): ``random`` and the parameterised ``heuristic``.

The heuristic's exchange, burning, 3s and saving of special cards are set by
the parameters below; :data:`PARAM`, :data:`ExchangeCode` and :data:`SetsCode`
are how the kernel reads them.  Both engines implement the decisions on their own.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from simkit.base.config import Choice, Config, codes, layout, option
from simkit.policy import HEURISTIC, RandomParams, policies_maker


class PolicyName(Choice):
    """Shiesta's policies (seeds/shiesta.md §6): the names :data:`POLICIES` registers."""

    HEURISTIC = "heuristic"
    RANDOM = "random"


class Exchange(Choice):
    """Which cards the heuristic puts face up in the exchange (seeds/shiesta.md, "6.2")."""

    UP = "up"
    KEEP = "keep"


class Sets(Choice):
    """How many 2s or 10s (``special_sets``) or 3s (``three_sets``) the heuristic
    plays at once (seeds/shiesta.md, "6.2")."""

    ONE = "one"
    DRY = "dry"
    ALL = "all"


#: The kernels' names of the options' values: IntEnums, whose members numba reads as
#: constants (:func:`simkit.base.config.codes`).
ExchangeCode, SetsCode = codes(Exchange, Sets)


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy."""

    what = "heuristic parameter"
    KIND = HEURISTIC

    exchange: Exchange = option(Exchange.UP, "before play: the three strongest of the 8 cards "
                                "go face up (up) or stay in hand, the three weakest going "
                                "face up (keep)")
    burn_at: int = option(0, "burn with a 10 before anything else when the pile holds at "
                          "least this many cards; 0 (default): never, a 10 waits until no "
                          "regular card is legal (the old heuristic: 6)", lo=0, hi=200)
    three_at: int = option(3, "play a 3 when the next player holds at most this many cards",
                           lo=0, hi=200)
    save_specials: bool = option(True, "play 2, 10 and 3 only when no regular card is legal")
    stuck_three_pile: int = option(4, "with no regular card legal, play a 3 before a 2 or a "
                                   "10 when the pile holds at least this many cards and the "
                                   "next player at most stuck_three_next", lo=0, hi=200)
    stuck_three_next: int = option(8, "see stuck_three_pile; 0: never, the old order 2, 10, "
                                   "3 when no regular card is legal", lo=0, hi=200)
    special_sets: Sets = option(Sets.DRY, "how many 2s or 10s to play at once: one, all of "
                                "them once the draw pile is empty (dry, default), or always "
                                "all (the old heuristic: one)")
    three_sets: Sets = option(Sets.ONE, "how many 3s to play at once: one (default; each 3 "
                              "makes the next player pick up again), all once the draw pile "
                              "is empty (dry), or always all")

POLICIES: dict[str, type[Config]] = {PolicyName.HEURISTIC: HeuristicParams,
                                     PolicyName.RANDOM: RandomParams}
#: Named settings (``--policy NAME``): ``classic`` is the heuristic as it was
#: before the stuck-3, sets-of-specials and no-early-burn changes.
NAMED: dict[str, str] = {
    "classic": "heuristic:burn_at=6,stuck_three_next=0,special_sets=one",
}
make_policies = policies_maker(POLICIES, default=PolicyName.HEURISTIC, named=NAMED)
#: The parameter layout the kernel reads (every policy's fields fit in it).
LAYOUT = HeuristicParams

#: Where each heuristic parameter sits in a kernel's params row.
PARAM: Any = layout(HeuristicParams, "PARAM")      # Any: an IntEnum made at run time
