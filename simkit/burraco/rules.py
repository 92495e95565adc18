"""Burraco rules: the frozen, validated config and its named variants.

The rule book is ``seeds/burraco.md``; each option below names what of it it
settles.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from simkit.base import config
from simkit.base.config import Choice, Config, option

TITLE = "Burraco"
BOOK = "seeds/burraco.md"

PLAYERS = 4
HAND = 11                 # cards per player and per pozzetto
POZZETTI = 2
STOCK_END = 2             # the hand ends when the stock is down to this many cards


class Pozzetto(Choice):
    """How a player may take the pozzetto (seeds/burraco.md §4)."""

    BOTH = "both"
    DIRECT = "direct"
    DISCARD = "discard"


class UntakenPozzetto(Choice):
    """What a team that did not take its pozzetto loses (§6)."""

    FLAT = "flat"
    CARDS = "cards"


class StockEnd(Choice):
    """What a draw that leaves two cards in the stock does (§5, §7)."""

    STOP = "stop"
    FINISH = "finish"


class Tie(Choice):
    """Both teams level at or above the target (§6)."""

    PLAY_ON = "play_on"
    SHARED = "shared"


@dataclasses.dataclass(frozen=True)
class BurracoRules(Config):
    """Rules of one Burraco table (see ``seeds/burraco.md``)."""

    what = "rule"

    players: int = option(4, "players: exactly 4, in two partnerships", lo=4, hi=4)
    twos_set: bool = option(False, "a set of 2s (its 2s natural, at most one joker) is allowed")
    sequence_wilds: int = option(1, "wild cards allowed in a sequence (2 makes the seed's "
                                 "'2-2-Joker' valid)", lo=0, hi=2)
    pozzetto: Pozzetto = option(Pozzetto.BOTH, "how a player may take the pozzetto: directly "
                                "on melding the last card, on discarding it, or both")
    untaken_pozzetto: UntakenPozzetto = option(
        UntakenPozzetto.FLAT, "a team that did not take its pozzetto loses 100 (flat) or the "
        "points of its cards (cards)")
    closing_bonus: int = option(100, "points for going out", lo=0, hi=1000)
    stock_end: StockEnd = option(StockEnd.STOP, "a draw from the stock that leaves two cards "
                                 "in it: play stops at once (stop), or the player who drew "
                                 "finishes the turn (melds, discards or goes out) and then the "
                                 "hand ends (finish)")
    max_turns: int = option(500, "turns after which a hand ends as a stalemate (the cap)",
                            lo=10, hi=100_000)
    target: int = option(2000, "a game ends after the hand in which a team reaches this",
                         lo=1, hi=100_000)
    tie: Tie = option(Tie.PLAY_ON, "both teams on the same score at or above the target: "
                      "another hand (play_on) or both win (shared)")
    max_hands: int = option(200, "hands after which a game is recorded as unfinished",
                            lo=1, hi=100_000)


#: The game's rules config (the same name in every game's rules module).
RULES = BurracoRules

#: Named rule sets: the seed's defaults and one preset per documented variant.
PRESETS: dict[str, dict[str, object]] = {
    "seed": {},
    "twos-set": {"twos_set": True},
    "seed-two-two-joker": {"sequence_wilds": 2},
    "pozzetto-direct": {"pozzetto": Pozzetto.DIRECT},
    "pozzetto-discard": {"pozzetto": Pozzetto.DISCARD},
    "pozzetto-cards": {"untaken_pozzetto": UntakenPozzetto.CARDS},
    "shared-ties": {"tie": Tie.SHARED},
    "stock-finish": {"stock_end": StockEnd.FINISH},
}


make_rules = config.rules_maker(BurracoRules, PRESETS, "Burraco")

#: The kernels' names of the options' values: IntEnums, whose members numba reads as
#: constants (:func:`simkit.base.config.codes`).
(PozzettoCode, UntakenPozzettoCode, StockEndCode,
 TieCode) = config.codes(Pozzetto, UntakenPozzetto, StockEnd, Tie)

#: Where each rule sits in the kernels' rules vector (:func:`simkit.base.config.vector`).
R: Any = config.layout(BurracoRules, "R")      # Any: an IntEnum made at run time
