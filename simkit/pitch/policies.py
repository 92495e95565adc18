"""Pitch policies (seeds/pitch.md §8): ``random`` and the parameterised ``heuristic``.

The heuristic estimates its hand in points from exact chances and bids,
leads and follows as section 8 says; ``reference.py`` and ``kernel.py``
implement it independently.  Here: its parameters, and :data:`PARAM`, where
a kernel's params row holds each.
"""

from __future__ import annotations

import dataclasses
from math import comb
from typing import Any

import numpy as np

from simkit.base.config import Choice, Config, codes, layout, option
from simkit.pitch.rules import HAND_SIZE, MAX_PLAYERS
from simkit.policy import HEURISTIC, RandomParams, policies_maker

#: Points the heuristic adds to its hand estimate at each table size (by the
#: number of players) when ``tuned``: the best ``aggression`` of
#: ``simkit tune pitch --players N --param aggression=-1.5:1.5`` against the
#: hand-set heuristic, plus the best the same search finds against the tuned
#: one while it wins in whole sessions beyond its interval;
#: ``benchmarks/tuned_offsets.py`` runs both (seeds/pitch.md 8.2).
#: The optimum differs by table size, so it cannot be one ``aggression``.
TABLE_OFFSET: dict[int, float] = {2: 0.61, 3: -0.09, 4: -0.26, 5: -0.42, 6: -0.36, 7: -0.19,
                                  8: -0.21}


def _offsets_text() -> str:
    """The offsets as ``tuned``'s help states them: from :data:`TABLE_OFFSET`."""
    return ", ".join(f"{v:+.2f} with {n}" for n, v in sorted(TABLE_OFFSET.items()))


class MoonRule(Choice):
    """When the heuristic bids the moon (seeds/pitch.md 8.2)."""

    SURE = "sure"
    RUN = "run"


class LowValue(Choice):
    """How the heuristic's hand estimate values Low (seeds/pitch.md 8.2)."""

    RULES = "rules"
    HELD = "held"


class PartnerCover(Choice):
    """What the heuristic plays when its partner is winning and the pitcher is
    still to play (seeds/pitch.md 8.2)."""

    LOW = "low"
    SAFE = "safe"
    BOSS = "boss"


#: The kernels' names of the options' values: IntEnums, whose members numba reads as
#: constants (:func:`simkit.base.config.codes`).
(MoonRuleCode, LowValueCode, PartnerCoverCode) = codes(MoonRule, LowValue, PartnerCover)


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy (estimates are in points)."""

    what = "heuristic parameter"
    KIND = HEURISTIC

    aggression: float = option(0.0, "points added to the hand estimate before it is rounded "
                               "to a bid (negative: more cautious)", lo=-4.0, hi=4.0, scale=100)
    moon_run: int = option(4, "bid the moon holding the trumps from the ace down at least "
                           "this deep without a gap (7: never)", lo=1, hi=7)
    moon_trumps: int = option(6, "moon_rule=run: ... and at least this many trumps", lo=1, hi=6)
    moon_rule: MoonRule = option(MoonRule.SURE, "when to bid the moon: holding the jack, a run of top trumps "
                            "at least moon_run deep and only trumps and side cards in a run from "
                            "their ace (sure), or moon_trumps trumps with a moon_run run (run, "
                            "the old rule)")
    low_value: LowValue = option(LowValue.RULES, "the Low part of the hand estimate: by the rules in force, "
                            "a capture chance under low=captured (rules), or always as holding "
                            "the lowest trump (held, the old estimate)")
    dealer_match: bool = option(True, "the dealer, whose call ends the auction, bids the least "
                                "level that takes the bid (matching the high bid when it may) "
                                "when its hand is worth that, unless it bids the moon "
                                "(false: its desired bid, the old rule)")
    cash_chance: int = option(50, "lead a boss side card when the chance (in hundredths) that "
                              "no opponent holds a trump is at least this (101: only when every "
                              "trump is seen, the old rule)", lo=0, hi=101)
    partner_cover: PartnerCover = option(PartnerCover.LOW, "partner winning, the pitcher still to play: play the "
                                "lowest card (low; the covers measured weaker), or, when the "
                                "pitcher could beat the partner's card, cover with a card the "
                                "pitcher cannot beat (safe), or (boss, only when the pitcher "
                                "could overtake it in its suit) that or else a side card only "
                                "a trump beats")
    risk_points: int = option(10, "do not win with a card of at least this many game points "
                              "when an opponent still to play could beat it: play the lowest "
                              "card (11: never, the old rule)", lo=1, hi=11)
    tuned: bool = option(True, "add the table size's tuned offset to the hand estimate "
                         f"before it is rounded to a bid (8.2, in points by players: "
                         f"{_offsets_text()}; false: the hand-set estimate, the old rule)")


#: Named settings (``--policy NAME``).  ``classic`` is the heuristic as it
#: was before the fixes of seeds/pitch.md 8.2 and the tuning (every new
#: parameter at its old value); ``untuned`` is the default before the tuning.
NAMED: dict[str, str] = {
    "classic": "heuristic:moon_rule=run,low_value=held,dealer_match=false,cash_chance=101,"
               "partner_cover=low,risk_points=11,tuned=false",
    "untuned": "heuristic:tuned=false",
}

POLICIES: dict[str, type] = {"heuristic": HeuristicParams, "random": RandomParams}
make_policies = policies_maker(POLICIES, default="heuristic", named=NAMED)
#: The parameter layout the kernel reads (every policy's fields fit in it).
LAYOUT = HeuristicParams

#: Where each heuristic parameter sits in a kernel's params row (the
#: aggression in hundredths of a point, so both engines agree exactly).
PARAM: Any = layout(HeuristicParams, "PARAM")      # Any: an IntEnum made at run time


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
