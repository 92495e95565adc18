"""Pepper rules: the frozen, validated config and its named variants.

The rule book is ``seeds/pepper.md``; each option below names the section of
it that it settles.  Kernels receive the rules as :func:`simkit.base.config.vector`,
whose indices :data:`R` names.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from simkit.base import config
from simkit.base.cards import Deck
from simkit.base.config import Choice, Config, option
from simkit.base.errors import InputError

TITLE = "Pepper (Pilipili)"
BOOK = "seeds/pepper.md"

#: 9 10 J Q K A in each suit; card id = suit * 6 + position (9=0 ... A=5).
DECK = Deck("Pepper", (9, 10, 11, 12, 13, 14))
NINE, TEN, JACK, QUEEN, KING, ACE = range(6)
NO_TRUMP = 4
TRUMP_TEXT = ("C", "D", "H", "S", "NT")


class Auction(Choice):
    """How the auction runs (seeds/pepper.md §3.1)."""

    OPEN = "open"
    ONE_LAP = "one_lap"
    REENTRY = "reentry"


class AllPass(Choice):
    """What happens when everyone passes (seeds/pepper.md §3.2)."""

    REDEAL = "redeal"
    STICK = "stick"


class Fail(Choice):
    """What a failed number bid loses (seeds/pepper.md §5)."""

    FLAT = "flat"
    BID = "bid"


class Tie(Choice):
    """Several sides on the same top score at the end (seeds/pepper.md §6)."""

    SHARED = "shared"
    PLAY_ON = "play_on"


@dataclasses.dataclass(frozen=True)
class PepperRules(Config):
    """Rules of one Pepper table (see ``seeds/pepper.md``)."""

    what = "rule"
    DERIVED = ("tricks", "hands_dealt", "sides")

    players: int = option(4, "players: 4 (two teams of two), 3, or 2 (with a dead third hand)", lo=2, hi=4)
    auction: Auction = option(Auction.OPEN, "open: laps until all but one have passed, a pass is final; "
                          "one_lap: each player speaks once; reentry: laps, a passed player may bid again")
    all_pass: AllPass = option(AllPass.REDEAL, "everyone passes: redeal (the deal passes on) or "
                           "stick (the dealer plays the lowest bid, 1)")
    no_trump: bool = option(True, "the bidder may name no trump")
    fail: Fail = option(Fail.FLAT, "a failed number bid loses the hand size (flat: 6, or 8 with 2-3 players) "
                       "or the bid itself (bid)")
    ndogo_stake: int = option(1, "Pilipili Ndogo wins or loses this many times the hand size", lo=1, hi=4)
    kubwa_stake: int = option(2, "Pilipili Kubwa wins or loses this many times the hand size", lo=1, hi=4)
    target: int = option(30, "a game ends in the round in which a side reaches this score", lo=1, hi=10_000)
    tie: Tie = option(Tie.SHARED, "several sides on the same top score at the end: all win (shared) "
                      "or play another round (play_on)")
    max_rounds: int = option(1000, "rounds after which a game is recorded as unfinished", lo=1, hi=1_000_000)

    @property
    def tricks(self) -> int:
        """Tricks in a hand (= cards per player): 6 with 4 players, else 8."""
        return 6 if self.players == 4 else 8

    @property
    def hands_dealt(self) -> int:
        """Hands dealt, the dead hand included: 3 for 2 players."""
        return 3 if self.players == 2 else self.players

    @property
    def sides(self) -> int:
        """Scoring sides: two teams with 4 players, else one per player."""
        return 2 if self.players == 4 else self.players

    @property
    def ndogo(self) -> int:
        """Bid level of Pilipili Ndogo (levels 1 .. tricks-1 are numbers)."""
        return self.tricks

    @property
    def kubwa(self) -> int:
        """Bid level of Pilipili Kubwa, the top bid."""
        return self.tricks + 1

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.players == 4 else seat

    def bid_text(self, level: int) -> str:
        if level == 0:
            return "pass"
        if level == self.ndogo:
            return "ndogo"
        if level == self.kubwa:
            return "kubwa"
        return str(level)

    def parse_bid(self, text: str) -> int:
        t = text.strip().lower()
        names = {self.bid_text(v): v for v in range(self.kubwa + 1)}
        if t not in names:
            raise InputError(f"unknown bid {text!r}: expected one of " + ", ".join(names))
        return names[t]


#: The game's rules config (the same name in every game's rules module).
RULES = PepperRules


#: Named rule sets: the seed's defaults and one preset per documented variant.
PRESETS: dict[str, dict[str, Any]] = {
    "seed": {},
    "stick-the-dealer": {"all_pass": "stick"},
    "one-lap": {"auction": "one_lap"},
    "reentry": {"auction": "reentry"},
    "trumps-only": {"no_trump": False},
    "bid-penalty": {"fail": "bid"},
    "ndogo-double": {"ndogo_stake": 2},
    "kubwa-triple": {"kubwa_stake": 3},
    "play-on-ties": {"tie": "play_on"},
}


make_rules = config.rules_maker(PepperRules, PRESETS, "Pepper")

#: The kernels' names of the options' values: IntEnums, whose members numba reads as
#: constants (:func:`simkit.base.config.codes`).
(AuctionCode, AllPassCode, FailCode, TieCode) = config.codes(Auction, AllPass, Fail, Tie)

#: Where each rule sits in the kernels' rules vector (:func:`simkit.base.config.vector`).
R: Any = config.layout(PepperRules, "R")      # Any: an IntEnum made at run time


# --- bidding plans (seeds/pepper.md §9.3) ---------------------------------------
#
# A plan holds one seat to a way of bidding while every other seat bids by its
# policy.  Both engines read a plan as one integer:
#
# - PLAN_POLICY (-1): no plan, the seat bids by its own policy;
# - PLAN_PASS (0): the seat passes at every turn;
# - 1 .. T-1: a ceiling L, the seat bids the lowest legal level while it is at most L;
# - T (``rules.ndogo``) and T+1 (``rules.kubwa``): the seat calls Ndogo or Kubwa,
#   or Kubwa over an Ndogo.
#
# (T = ``rules.tricks``.)  ``simkit.pepper.api.parse_plan`` reads their names.

#: The plan seat bids by its own policy (no plan; §9.3).
PLAN_POLICY = -1
#: The plan seat passes at every turn (§9.3).
PLAN_PASS = 0
