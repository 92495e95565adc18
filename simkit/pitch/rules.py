"""Pitch: Money Game rules: the frozen, validated config and its named variants.

The rule book is ``seeds/pitch.md``; each option below names what of it it
settles.  Kernels receive the rules as :func:`simkit.base.config.vector`, whose
indices :data:`R` names.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from simkit.base import config
from simkit.base.cards import Deck
from simkit.base.config import Choice, Config, option
from simkit.base.errors import InputError

TITLE = "Pitch: Money Game"
BOOK = "seeds/pitch.md"

#: 2 .. A in each suit; card id = suit * 13 + position (2 = 0 ... 10 = 8, J = 9, A = 12).
DECK = Deck("Pitch", tuple(range(2, 15)))
TEN, JACK, QUEEN, KING, ACE = 8, 9, 10, 11, 12
TWO = 0
#: Game points of each rank position: 10 = 10, A = 4, K = 3, Q = 2, J = 1.
GAME_POINTS = (0, 0, 0, 0, 0, 0, 0, 0, 10, 1, 2, 3, 4)
HAND_SIZE = 6
MIN_PLAYERS, MAX_PLAYERS = 2, 8
#: Bid levels: 0 pass, 2 3 4 numbers, 5 shoot the moon.
PASS, MOON = 0, 5
BIDS = ("pass", "2", "3", "4", "moon")
LEVELS = (0, 2, 3, 4, 5)
TRUMP_TEXT = ("C", "D", "H", "S", "-")
#: Bidding plans (seeds/pitch.md §8.4): what one seat is held to through the auction.
#: A plan is an int: ``PLAN_POLICY`` (the seat bids by its own policy), ``PLAN_PASS``,
#: a ceiling 2, 3 or 4 (``PLAN_CEILINGS``), or ``PLAN_MOON``.
PLAN_POLICY, PLAN_PASS, PLAN_MOON = -1, 0, 5
PLAN_CEILINGS = (2, 3, 4)
PLAN_NAMES = ("pass", "2", "3", "4", "moon")
PLAN_CODES = (PLAN_PASS, *PLAN_CEILINGS, PLAN_MOON)
NO_TRUMP = 4             # the trump code of a thrown-in hand
#: Money is kept in whole units of 1/840 cent: 840 is divisible by 1..8.
MONEY_UNITS_PER_CENT = 840
MAX_SESSION_PLAYERS = 32


class Low(Choice):
    """Who scores Low (seeds/pitch.md 4)."""

    CAPTURED = "captured"
    DEALT = "dealt"


class Auction(Choice):
    """How the auction runs (seeds/pitch.md 2)."""

    ONE_LAP = "one_lap"
    OPEN = "open"


class Steal(Choice):
    """Whether the dealer may take the bid by matching it (seeds/pitch.md 2)."""

    MATCH = "match"
    OUTBID = "outbid"


class AllPass(Choice):
    """What happens when everyone before the dealer passes (seeds/pitch.md 2)."""

    FORCED = "forced"
    REDEAL = "redeal"


class StuckBid(Choice):
    """What a dealer forced to bid may bid (seeds/pitch.md 2)."""

    TWO = "two"
    ANY = "any"


class MoonNeeds(Choice):
    """What a moon must take to be made (seeds/pitch.md 5)."""

    FOUR = "four"
    ALL = "all"


class GameTie(Choice):
    """Who scores Game on a tie (seeds/pitch.md 4)."""

    NONE = "none"
    ALL = "all"


class JoinScore(Choice):
    """A new player's starting score (seeds/pitch.md 7)."""

    AVERAGE = "average"
    ZERO = "zero"


#: The kernels' names of the options' values: IntEnums, whose members numba reads as
#: constants (:func:`simkit.base.config.codes`).
(LowCode, AuctionCode, StealCode, AllPassCode, StuckBidCode, MoonNeedsCode, GameTieCode,
 JoinScoreCode) = config.codes(Low, Auction, Steal, AllPass, StuckBid, MoonNeeds, GameTie,
                               JoinScore)



@dataclasses.dataclass(frozen=True)
class PitchRules(Config):
    """Rules of one Pitch table and its money sessions (see ``seeds/pitch.md``)."""

    what = "rule"

    players: int = option(4, "players, each for themselves (6 cards each)", lo=MIN_PLAYERS, hi=MAX_PLAYERS)
    low: Low = option(Low.CAPTURED, "Low goes to whoever wins the lowest trump in a trick "
                      "(captured, the seed) or to whoever was dealt it (dealt)")
    auction: Auction = option(Auction.ONE_LAP, "one lap from left of the dealer, the dealer last "
                              "(one_lap, the usual reading of the seed), or laps until all but one "
                              "have passed, a pass being final (open)")
    steal: Steal = option(Steal.MATCH, "the dealer may take the bid by matching the high bid (match, "
                          "the seed) or must bid higher like everyone (outbid)")
    all_pass: AllPass = option(AllPass.FORCED, "everyone else passes: the dealer must bid (forced, the "
                               "seed; see stuck_bid), or may pass and the hand is thrown in "
                               "(redeal)")
    stuck_bid: StuckBid = option(StuckBid.TWO, "a dealer forced to bid (all_pass = forced) bids exactly 2 "
                                 "(two, the seed) or any bid of 2 or more (any)")
    moon_needs: MoonNeeds = option(MoonNeeds.FOUR, "a moon needs all six tricks and all four points (four) or "
                                   "every point awarded in the hand (all)")
    moon_made: int = option(4, "points a made moon scores", lo=0, hi=100)
    moon_failed: int = option(4, "points a failed moon loses", lo=0, hi=100)
    game_tie: GameTie = option(GameTie.NONE, "a tie for the Game point: nobody scores it (none) or every "
                               "tied player does (all)")
    session_hands: int = option(20, "hands in a money session (a cap, when a target is set)",
                                lo=1, hi=5000)
    target: int = option(0, "a session ends after a hand in which a player reaches this score "
                         "(0: no target)", lo=0, hi=1000)
    leave: float = option(0.0, "chance that each player leaves after a hand (used in whole thousandths)",
                          lo=0.0, hi=1.0, scale=1000)
    join: float = option(0.0, "chance that a new player joins after a hand (used in whole thousandths)",
                         lo=0.0, hi=1.0, scale=1000)
    join_score: JoinScore = option(JoinScore.AVERAGE, "a new player's starting score: the seated "
                                   "players' average rounded down, or zero")
    cents: int = option(10, "cents paid per point above or below the average score", lo=0, hi=1000)
    moon_dollars: int = option(1, "dollars each other player pays for a made moon "
                               "(the pitcher pays each as much for a failed one)", lo=0, hi=100)

    @property
    def tricks(self) -> int:
        return HAND_SIZE

    @property
    def sides(self) -> int:
        """Scoring sides: every player for themselves."""
        return self.players

    @property
    def leave_permille(self) -> int:
        return round(self.leave * 1000)

    @property
    def join_permille(self) -> int:
        return round(self.join * 1000)

    @staticmethod
    def bid_text(level: int) -> str:
        return BIDS[LEVELS.index(level)]

    @staticmethod
    def parse_bid(text: str) -> int:
        t = text.strip().lower()
        if t not in BIDS:
            raise InputError(f"unknown bid {text!r}: expected one of " + ", ".join(BIDS))
        return LEVELS[BIDS.index(t)]


#: The game's rules config (the same name in every game's rules module).
RULES = PitchRules


#: Named rule sets: the seed's defaults and one preset per documented variant.
PRESETS: dict[str, dict[str, Any]] = {
    "seed": {},
    "low-dealt": {"low": "dealt"},
    "steal-outbid": {"steal": "outbid"},
    "redeal": {"all_pass": "redeal"},
    "stuck-any": {"stuck_bid": "any"},
    "open-auction": {"auction": "open"},
    "moon-all-points": {"moon_needs": "all"},
    "moon-eight": {"moon_made": 8, "moon_failed": 8},
    "game-tie-all": {"game_tie": "all"},
    "game-to-11": {"target": 11, "session_hands": 200},
    "drop-in": {"leave": 0.05, "join": 0.1},
}


make_rules = config.rules_maker(PitchRules, PRESETS, "Pitch")

#: Where each rule sits in the kernels' rules vector (:func:`simkit.base.config.vector`;
#: ``leave`` and ``join`` in thousandths).
R: Any = config.layout(PitchRules, "R")      # Any: an IntEnum made at run time
