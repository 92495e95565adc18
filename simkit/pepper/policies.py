"""Pepper policies (seeds/pepper.md §7): ``random`` and the parameterised ``heuristic``.

Their decisions are written twice, readably in ``reference.py`` and fast in
``kernel.py``, held together by the differential tests; this module holds
the parameters, which the kernels read as rows indexed by :data:`PARAM`
(trick estimates in hundredths).
"""

from __future__ import annotations

import dataclasses

from simkit.config import Config, layout, option
from simkit.policy import HEURISTIC, RandomParams, policies_maker


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy (estimates are in tricks; the
    kernels read them in hundredths, so both engines agree exactly)."""

    what = "heuristic parameter"
    KIND = HEURISTIC

    aggression: float = option(0.0, "tricks added to the hand estimate before it is rounded down "
                               "to a bid (negative: more cautious)", lo=-6.0, hi=6.0, scale=100)
    partner_help: float = option(0.75, "tricks expected from the partner (4 players only)",
                                 lo=0.0, hi=6.0, scale=100)
    kubwa_margin: int = option(0, "bid Kubwa when sure tricks fall short of all by at most this", lo=0, hi=8)
    draw_trumps: bool = option(True, "lead the top trump while opponents may still hold trumps")


POLICIES: dict[str, type] = {"heuristic": HeuristicParams, "random": RandomParams}
#: Named settings (``--policy NAME``): specs worth a name, e.g. the older heuristic.
NAMED: dict[str, str] = {}
make_policies = policies_maker(POLICIES, default="heuristic", named=NAMED)

#: Where each heuristic parameter sits in a kernel's params row.
PARAM = layout(HeuristicParams, "PARAM")


def hundredths(tricks: float) -> int:
    """Trick estimates are integers in hundredths, so both engines agree exactly."""
    return int(round(tricks * 100))
