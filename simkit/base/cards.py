"""Card encoding and text notation, shared by every game.

Inside the engines a card is a small integer whose meaning belongs to the
game's deck (see :class:`Deck`).  Text exists only at the edges: ``"JH"``,
``"10H"`` or ``"TH"``, lower case accepted.

A joker (Burraco) is written ``"JK"`` (``"Joker"`` is read too); it has no rank
or suit, so it is not a :class:`Deck` card and each game encodes it itself.

Suits are ordered clubs, diamonds, hearts, spades (``C D H S``), so the suit of
the same colour as suit ``s`` is ``3 - s`` (clubs/spades black,
diamonds/hearts red).  Ranks are 2..14 with ``J=11, Q=12, K=13, A=14``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from simkit.base.errors import InputError

SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_TEXT = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9",
             10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_OF = {v: k for k, v in RANK_TEXT.items()}
_RANK_OF["T"] = 10
#: Text of a joker; :func:`is_joker_text` also reads ``"JOKER"``, any case.
JOKER_TEXT = "JK"
_JOKER_WORDS = ("JK", "JOKER")


class CardError(InputError):
    """A card text that cannot be read, is not in the deck, or is repeated."""


def same_colour(suit: int) -> int:
    """The other suit of the same colour (clubs<->spades, diamonds<->hearts)."""
    return 3 - suit


def parse_card(text: str) -> tuple[int, int]:
    """Read one card such as ``"JH"``, ``"10h"`` or ``"TS"`` as ``(rank, suit)``."""
    t = text.strip().upper()
    if len(t) < 2 or t[-1] not in SUITS or t[:-1] not in _RANK_OF:
        raise CardError(f"unknown card {text!r}: expected a rank (2-10, T, J, Q, K, A) "
                        f"followed by a suit (C, D, H, S), e.g. 'JH' or '10S'")
    return _RANK_OF[t[:-1]], SUITS.index(t[-1])


def is_joker_text(text: str) -> bool:
    """True for ``"JK"`` or ``"Joker"`` (any case, spaces around ignored)."""
    return text.strip().upper() in _JOKER_WORDS


def format_card(rank: int, suit: int) -> str:
    """Text of a card, e.g. ``format_card(10, 2) == "10H"``."""
    return RANK_TEXT[rank] + SUITS[suit]


@dataclass(frozen=True)
class Deck:
    """A game's deck: which (rank, suit) pairs exist and the integer id of each.

    Card ids are ``suit * len(ranks) + position of rank in ranks``, so a suit's
    cards are contiguous and ordered by rank.
    """

    name: str
    ranks: tuple[int, ...]
    _index: dict[tuple[int, int], int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        idx = {(r, s): s * len(self.ranks) + i
               for s in range(4) for i, r in enumerate(self.ranks)}
        object.__setattr__(self, "_index", idx)

    @property
    def size(self) -> int:
        return 4 * len(self.ranks)

    def card(self, rank: int, suit: int) -> int:
        """Id of the card with this rank and suit."""
        return self._index[(rank, suit)]

    def rank(self, card: int) -> int:
        """The card's printed rank (2..14, the ace 14)."""
        return self.ranks[card % len(self.ranks)]

    def suit(self, card: int) -> int:
        """The card's suit, C D H S = 0..3."""
        return card // len(self.ranks)

    def position(self, card: int) -> int:
        """The card's rank position in the deck, lowest 0.

        >>> d = Deck("Pepper", (9, 10, 11, 12, 13, 14))
        >>> d.position(d.card(11, 2)), d.at(2, 2) == d.card(11, 2)
        (2, True)
        """
        return card % len(self.ranks)

    def at(self, suit: int, position: int) -> int:
        """Id of the card of ``suit`` at rank ``position``."""
        return suit * len(self.ranks) + position

    def text(self, card: int) -> str:
        return format_card(self.rank(card), self.suit(card))

    def describe(self) -> str:
        ranks = " ".join(RANK_TEXT[r] for r in self.ranks)
        return f"the {self.size}-card {self.name} deck ({ranks} of C D H S)"

    def parse(self, text: str) -> int:
        """Id of one card given as text; rejects cards not in this deck."""
        key = parse_card(text)
        if key not in self._index:
            raise CardError(f"card {text.strip()!r} is not in {self.describe()}")
        return self._index[key]

    def parse_hand(self, text: str | list[str]) -> list[int]:
        """Ids of a hand given as ``"JH JD AH"`` (spaces or commas) or a list.

        Unknown and repeated cards are rejected with a message naming them.
        """
        items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
        cards = [self.parse(t) for t in items]
        seen: set[int] = set()
        for t, c in zip(items, cards):
            if c in seen:
                raise CardError(f"duplicate card {t.strip()!r}: each card may appear once")
            seen.add(c)
        return cards

    def parse_held(self, text: str | list[str], need: int, what: str) -> list[int]:
        """Ids of a hand that must hold ``need`` cards (:meth:`parse_hand`);
        another count is an InputError naming ``what`` ("a Pitch hand")."""
        cards = self.parse_hand(text)
        if len(cards) != need:
            raise InputError(f"{what} has {need} cards, got {len(cards)}: "
                             f"{' '.join(self.text(c) for c in cards) or '(none)'}")
        return cards

    def format_hand(self, cards: Iterable[int]) -> str:
        return " ".join(self.text(c) for c in cards)


def mask_of(cards: Iterable[int]) -> int:
    """Bitmask with bit ``c`` set for each card id ``c``."""
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def cards_of(mask: int) -> list[int]:
    """Card ids of the set bits of ``mask``, in increasing order."""
    out = []
    c = 0
    while mask:
        if mask & 1:
            out.append(c)
        mask >>= 1
        c += 1
    return out
