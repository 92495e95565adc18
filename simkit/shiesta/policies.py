"""Shiesta policies (seeds/shiesta.md §6): ``random`` and the parameterised ``heuristic``.

The heuristic's exchange, burning, 3s and saving of special cards are set by
the parameters below; :data:`PARAM` and :data:`Exchange` are how the kernel
reads them.  Both engines implement the decisions on their own.
"""

from __future__ import annotations

import dataclasses

from simkit.config import Config, choices, layout, option
from simkit.policy import HEURISTIC, RandomParams, policies_maker


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy."""

    what = "heuristic parameter"
    KIND = HEURISTIC

    exchange: str = option("up", "before play: the three strongest of the 8 cards go face up "
                           "(up) or stay in hand, the three weakest going face up (keep)",
                           choices=("up", "keep"))
    burn_at: int = option(6, "burn with a 10 when the pile holds at least this many cards",
                          lo=1, hi=200)
    three_at: int = option(3, "play a 3 when the next player holds at most this many cards",
                           lo=0, hi=200)
    save_specials: bool = option(True, "play 2, 10 and 3 only when no regular card is legal")


POLICIES: dict[str, type] = {"heuristic": HeuristicParams, "random": RandomParams}
#: Named settings (``--policy NAME``): specs worth a name, e.g. the older heuristic.
NAMED: dict[str, str] = {}
make_policies = policies_maker(POLICIES, default="heuristic", named=NAMED)

#: Where each heuristic parameter sits in a kernel's params row.
PARAM = layout(HeuristicParams, "PARAM")
#: The kernels' names of the options' values.
(Exchange,) = choices(HeuristicParams, "exchange")
