"""Shiesta rules: the frozen, validated config and its named variants.

The rule book is ``seeds/shiesta.md``; each option below names what of it
it settles.  Kernels receive the rules as :func:`simkit.base.config.vector`, whose
indices :data:`R` names.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from simkit.base import config
from simkit.base.config import Choice, Config, option
from simkit.base.errors import InputError

TITLE = "Shiesta"
BOOK = "seeds/shiesta.md"

#: Rank indices 0..12 are 2, 3, 4, ..., 10, J, Q, K, A; card id c has rank c % 13.
RANK_TEXT = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
TWO, THREE, SEVEN, TEN = 0, 1, 5, 8
SPECIALS = (TWO, THREE, SEVEN, TEN)
SPECIAL_TEXT = ("2", "3", "7", "10")
#: Regular ranks low to high (10 is special and has no place in the order).
REGULAR = (2, 3, 4, 5, 6, 7, 9, 10, 11, 12)
ROW = 3                  # face-down and face-up cards per player
MIN_PLAYERS, MAX_PLAYERS = 3, 5


class Decks(Choice):
    """How many decks of 52 (seeds/shiesta.md, "1"); the kernels read ``n_decks``,
    never this choice."""

    AUTO = "auto"
    ONE = "1"
    TWO = "2"


class Higher(Choice):
    """What a card must be to follow the top card (seeds/shiesta.md, "2")."""

    STRICT = "strict"
    EQUAL = "equal"


class Two(Choice):
    """What a 2 on top of the pile lets follow (seeds/shiesta.md, "2")."""

    RESET = "reset"
    TRANSPARENT = "transparent"


class AfterBurn(Choice):
    """Who starts the new pile after a 10 burns it (seeds/shiesta.md, "3")."""

    NEXT = "next"
    AGAIN = "again"


class AfterPickup(Choice):
    """Who starts the new pile after a pickup (seeds/shiesta.md, "4.4")."""

    NEXT = "next"
    PICKER = "picker"


class Opening(Choice):
    """Which piles must open with a regular card other than 7 (seeds/shiesta.md, "4.3")."""

    FIRST = "first"
    EVERY = "every"


class Starter(Choice):
    """Who starts: the seed's youngest player (seeds/shiesta.md, "1")."""

    RANDOM = "random"
    FIXED = "fixed"


#: The kernels' names of the options' values: IntEnums, whose members numba reads as
#: constants (:func:`simkit.base.config.codes`).
(HigherCode, TwoCode, AfterBurnCode, AfterPickupCode, OpeningCode,
 StarterCode) = config.codes(Higher, Two, AfterBurn, AfterPickup, Opening, Starter)


@dataclasses.dataclass(frozen=True)
class ShiestaRules(Config):
    """Rules of one Shiesta table (see ``seeds/shiesta.md``)."""

    what = "rule"
    DERIVED = ("n_decks",)

    players: int = option(4, "players, each for themselves", lo=MIN_PLAYERS, hi=MAX_PLAYERS)
    decks: Decks = option(Decks.AUTO, "decks of 52: auto (one for 3-4 players, two for 5, "
                          "whose deal needs 55 cards), 1 or 2")
    hand_size: int = option(5, "cards in hand at the deal and after drawing", lo=3, hi=5)
    higher: Higher = option(Higher.STRICT, "a card must be strictly higher than the top card "
                            "(strict, the seed) or equal or higher (equal)")
    two: Two = option(Two.RESET, "on a 2 anything may be played (reset) or the card beneath "
                      "the 2s decides (transparent)")
    seven_reverses: bool = option(False, "a 7 also reverses the direction of play")
    after_burn: AfterBurn = option(AfterBurn.NEXT, "after a 10 burns the pile the next player "
                                   "starts a new pile (next, the seed) or the burner plays "
                                   "again (again)")
    after_pickup: AfterPickup = option(AfterPickup.NEXT, "after a pickup the next player starts "
                                       "a new pile (next) or the player who picked up does "
                                       "(picker)")
    opening: Opening = option(Opening.FIRST, "no 2, 3, 7 or 10 to start the first pile of the "
                              "game only (first) or every new pile (every)")
    starter: Starter = option(Starter.RANDOM, "the seed's 'youngest player': a seat drawn per "
                              "game (random) or seat 0 (fixed)")
    max_turns: int = option(1000, "turns after which a game is recorded as unfinished",
                            lo=10, hi=1_000_000)

    @property
    def n_decks(self) -> int:
        if self.decks is Decks.AUTO:
            return 2 if self.players == 5 else 1
        return int(self.decks)

    @property
    def cards(self) -> int:
        return 52 * self.n_decks

    def check(self) -> None:
        need = self.players * (2 * ROW + self.hand_size)
        if need > self.cards:
            raise InputError(f"{self.players} players with {self.hand_size} cards in hand need "
                             f"{need} cards, more than the {self.cards} of {self.n_decks} deck(s): "
                             f"set decks=2 or a smaller hand_size")


#: The game's rules config (the same name in every game's rules module).
RULES = ShiestaRules


#: Named rule sets: the seed's defaults and one preset per documented variant.
PRESETS: dict[str, dict[str, Any]] = {
    "seed": {},
    "five-one-deck": {"decks": "1", "hand_size": 4},
    "equal-or-higher": {"higher": "equal"},
    "transparent-two": {"two": "transparent"},
    "seven-reverses": {"seven_reverses": True},
    "burner-again": {"after_burn": "again"},
    "picker-leads": {"after_pickup": "picker"},
    "every-pile": {"opening": "every"},
    "fixed-starter": {"starter": "fixed"},
}


make_rules = config.rules_maker(ShiestaRules, PRESETS, "Shiesta")

#: Where each rule sits in the kernels' rules vector (:func:`simkit.base.config.vector`).
R: Any = config.layout(ShiestaRules, "R")      # Any: an IntEnum made at run time
