"""Burraco record notation (seeds/burraco.md 10): how a record writes cards
(``AS``, ``AS'``, ``JK''``), the actions of its turns as read
(:class:`Action`, :class:`RecordedTurn`, :class:`Written`) and the parts of
its result lines.  Both the record format (:mod:`simkit.burraco.record`) and
its replay (:mod:`simkit.burraco.replay`) speak it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from simkit.base.cards import CardError, is_joker_text, parse_card
from simkit.base.errors import InputError
from simkit.burraco.melds import DECK_SIZE, FIRST_JOKER, JOKER_FACE, card_text, face, is_joker
from simkit.burraco.reference import DIRECT, WAY_TEXT
from simkit.burraco.reference_players import PILE, STOCK
from simkit.burraco.rules import BOOK

#: The mark of a later copy of a card: ``AS'``, ``JK''``.
PRIME = "'"

# Actions of a turn (the keys of their lines).
DRAW, KEEP, MELD, ADD, POZZETTO, DISCARD, GO_OUT = \
    "draw", "keep", "meld", "add", "pozzetto", "discard", "go out"
#: Actions that end a turn.
ENDS = (DISCARD, GO_OUT)
SOURCE_WORDS = {"stock": STOCK, "pile": PILE}
WAYS = {text: way for way, text in enumerate(WAY_TEXT)}


# ---------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------

def copy_of(c: int) -> int:
    """Which copy of its face a card is: 0 or 1 (the two decks), 0..3 for the jokers."""
    return c - FIRST_JOKER if is_joker(c) else c // 52


def text(c: int) -> str:
    """A card in the record's notation: ``AS``, ``AS'``, ``JK''``."""
    return card_text(c) + PRIME * copy_of(c)


def texts(cards: Sequence[int]) -> str:
    return " ".join(text(c) for c in cards)


def hand_text(cards: Iterable[int]) -> str:
    """A hand's cards by suit and rank (C D H S, A 2 .. K, jokers last), copies together."""
    return texts(sorted(cards, key=lambda c: (face(c), c)))


@dataclass(frozen=True)
class Card:
    """A card as a record writes it: its face (0..51, 52 a joker) and its copy,
    or None when written without primes (any copy)."""

    face: int
    copy: int | None
    written: str

    def matches(self, c: int) -> bool:
        return face(c) == self.face and (self.copy is None or copy_of(c) == self.copy)


def read_card(word: str, where: str) -> Card:
    """One card of a record; ``where`` names the line for the error."""
    base = word.rstrip(PRIME)
    primes = len(word) - len(base)
    if is_joker_text(base):
        f, copies = JOKER_FACE, DECK_SIZE - FIRST_JOKER
    else:
        try:
            rank, suit = parse_card(base)
        except CardError:
            raise InputError(f"{where}: unknown card {word!r}: expected a rank (A, 2-10 or T, "
                             f"J, Q, K) and a suit (C, D, H, S), e.g. 'AS' or '10H', or 'JK' "
                             f"for a joker, a prime marking a later copy: AS', JK'' "
                             f"({BOOK} 10)") from None
        f, copies = suit * 13 + (0 if rank == 14 else rank - 1), 2
    if primes >= copies:
        raise InputError(f"{where}: unknown card {word!r}: the deck has {copies} copies of it, "
                         f"written {base.upper()} to {base.upper() + PRIME * (copies - 1)} "
                         f"({BOOK} 10)")
    return Card(f, primes if primes else None, word)


def read_cards(value: str, where: str) -> tuple[Card, ...]:
    return tuple(read_card(w, where) for w in value.replace(",", " ").split())


def written(cards: Sequence[Card]) -> str:
    return " ".join(c.written for c in cards)


def pick(cards: Sequence[Card], pool: Iterable[int]) -> list[int] | Card:
    """The ids of ``cards`` among ``pool``, in order: each card written with
    primes takes its copy, then each without the lowest copy left; or the
    first card ``pool`` cannot give."""
    free = sorted(pool)
    ids: dict[int, int] = {}
    for i in sorted(range(len(cards)), key=lambda i: cards[i].copy is None):
        hit = next((c for c in free if cards[i].matches(c)), None)
        if hit is None:
            return cards[i]
        free.remove(hit)
        ids[i] = hit
    return [ids[i] for i in range(len(cards))]


@dataclass(frozen=True)
class Action:
    """One action of a recorded turn as its line gives it.

    ``cards``: the cards drawn (may be left out), laid, added or discarded;
    ``source``: the draw's (STOCK or PILE); ``meld``: ``(team, number)`` of a
    new meld or of the meld added to (numbers from 1); ``kind``: a new meld's
    ``set`` or ``sequence`` (None: whichever the cards make); ``number``: the
    keep, or the pozzetto taken (1 or 2) with its ``way``.
    """

    key: str
    line: str
    cards: tuple[Card, ...] = ()
    source: int = STOCK
    meld: tuple[int, int] = (0, 0)
    kind: str | None = None
    number: int = 0
    way: int = DIRECT


@dataclass(frozen=True)
class RecordedTurn:
    number: int
    seat: int
    actions: tuple[Action, ...]


@dataclass(frozen=True)
class Written:
    """A record's lines, read: the dealer, the deal (card ids), the turns and
    the results stated (``(key, value, {column: value})``, §8 columns)."""

    dealer: int
    hands: tuple[tuple[int, ...], ...]
    pozzetti: tuple[tuple[int, ...], ...]
    pile: tuple[int, ...]
    stock: tuple[int, ...]
    turns: tuple[RecordedTurn, ...]
    results: tuple[tuple[str, str, dict[str, Any]], ...]


#: The per-team result lines made of ``name value`` parts: the separator and,
#: for each name, its §8 column (``_t`` the team).
RESULT_PARTS = {
    "score": (" + ", {"melded": "melded", "hands": "hand_penalty", "burracos": "burraco_bonus",
                      "closing": "closing_bonus", "pozzetto": "pozzetto_penalty"}),
    "burracos": (", ", {"clean": "clean_burraco", "dirty": "dirty_burraco"}),
    "table": (", ", {"sets": "sets", "sequences": "sequences", "wild cards": "wilds"}),
}
