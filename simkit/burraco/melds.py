"""Burraco melds: cards, sets, sequences, additions and the table score
(``seeds/burraco.md`` §3, §6).

This module is the meld rule book in code, written to be read and to be
exact; the numba kernel (``kernel.py``) has its own meld checks, tested against
this module on random card groups.  Each
function names the rule point it implements (``§3`` is section 3 of
``seeds/burraco.md``, which follows the seed ``003_c98505c7ec80040f.txt``,
"AINA ZA MELDS").

Encoding (§1):

- a card id ``c`` is 0..107; below 104 its face is ``c % 52 = suit * 13 +
  position`` with suits C D H S = 0..3 and positions A = 0, 2 = 1, ...,
  10 = 9, J = 10, Q = 11, K = 12 (ids ``f`` and ``f + 52`` are the two copies
  of face ``f``); 104..107 are the four jokers, face 52;
- wild cards: the jokers and every 2;
- in a sequence a card stands on a *place*: A low = 1, 2 = 2, ..., K = 13,
  A high = 14.  A set's ``rank`` uses the same numbers (A = 1, J = 11,
  Q = 12, K = 13).

A *reading* of some cards says which kind of meld they make, where each card
stands and which cards count as wild.  :func:`readings` lists every valid
reading; :func:`read_meld` keeps the best one.  The best reading is, in order:

1. the one with the fewest wild cards (so a clean reading beats a dirty one,
   and a 2 of the sequence's suit stands in its own place when it can);
2. a set before a sequence (never needed with the seed's rules: a card group
   that is both is always a cleaner set);
3. for a sequence, the highest run of places: a wild card not needed inside the
   sequence stands at its top end, or at its bottom end when the top is the
   ace (``5S 6S JK`` is 5..7 with the joker as the 7; ``QS KS JK`` is Q K A);
4. the lowest suit (C D H S) -- only sequences made of nothing but 2s and
   jokers, possible with ``sequence_wilds = 2``, can be read in two suits.

Inside a reading, ties between identical cards go to the lower id (the lower
of two 2s of the suit is the natural one) and the wild cards fill the empty
places in increasing id order, so a reading depends only on the set of cards,
never on their order.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from simkit.base.cards import JOKER_TEXT, CardError, format_card, is_joker_text, parse_card
from simkit.base.errors import InputError

#: Cards in the Burraco deck: two 52-card decks and four jokers (§1).
DECK_SIZE = 108
FIRST_JOKER = 104
#: The face of every joker.
JOKER_FACE = 52
#: Rank positions within a suit (face % 13).
ACE, TWO, KING = 0, 1, 12
#: Points of a non-joker card by rank position A, 2, 3, ..., K (§1): ace 15, 2 = 20,
#: 3..7 = 5, 8..K = 10; a joker is 30.
POSITION_POINTS = (15, 20, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)
JOKER_POINTS = 30

SET, SEQUENCE = "set", "sequence"
KINDS = (SET, SEQUENCE)
#: A meld has at least 3 cards; a set at most 9; a sequence at most 13 (A..K or
#: 2..A: the ace is low or high, never both); 7 or more make a burraco (§3).
MIN_MELD = 3
MAX_SET = 9
MAX_SEQUENCE = 13
BURRACO_SIZE = 7
#: Table bonuses per burraco (§6).
CLEAN_BURRACO_BONUS = 200
DIRTY_BURRACO_BONUS = 100

#: Places of a sequence: A low = 1 ... K = 13, A high = 14.
LOW_ACE_PLACE, HIGH_ACE_PLACE = 1, 14
_RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
_SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")


# ---------------------------------------------------------------------------
# §1 Cards
# ---------------------------------------------------------------------------

def face(c: int) -> int:
    """Face of a card: ``suit * 13 + position`` (0..51), or 52 for a joker."""
    return JOKER_FACE if c >= FIRST_JOKER else c % 52


def is_joker(c: int) -> bool:
    return c >= FIRST_JOKER


def suit(c: int) -> int:
    """Suit 0..3 (C D H S) of a card that is not a joker."""
    return face(c) // 13


def position(c: int) -> int:
    """Rank position of a card that is not a joker: A = 0, 2 = 1, ..., K = 12."""
    return face(c) % 13


def is_wild(c: int) -> bool:
    """Jokers and every 2 are wild cards (§1); whether a 2 is *read* as wild
    depends on the meld it is in (§3)."""
    return is_joker(c) or position(c) == TWO


def points(c: int) -> int:
    """Card points (§1): joker 30, 2 = 20, ace 15, K Q J 10 9 8 = 10, 7 6 5 4 3 = 5."""
    return JOKER_POINTS if is_joker(c) else POSITION_POINTS[position(c)]


def _check_id(c: Any) -> int:          # Any: whatever a caller passes as a card id
    """A card id as a plain int (numpy integers accepted); anything else is an InputError."""
    try:
        if isinstance(c, bool):
            raise TypeError
        n = operator.index(c)
    except TypeError:
        raise InputError(f"bad Burraco card id {c!r}: card ids are integers 0 to "
                         f"{DECK_SIZE - 1}") from None
    if not 0 <= n < DECK_SIZE:
        raise InputError(f"bad Burraco card id {n}: card ids are 0 to {DECK_SIZE - 1}")
    return n


def card_text(c: int) -> str:
    """Text of a card: ``"AS"``, ``"10H"``, ``"JK"`` for a joker (both copies read alike)."""
    c = _check_id(c)
    if is_joker(c):
        return JOKER_TEXT
    # simkit.base.cards numbers ranks 2..14 with the ace 14.
    rank = 14 if position(c) == ACE else position(c) + 1
    return format_card(rank, suit(c))


def cards_text(cards: Iterable[int]) -> str:
    """Text of several cards, space separated, in the given order."""
    return " ".join(card_text(c) for c in cards)


_ACCEPTED = ("a rank (A, 2-10 or T, J, Q, K) followed by a suit (C, D, H, S), "
             "e.g. 'AS' or '10H', or 'JK' for a joker")


def _copies(text: str) -> tuple[int, ...]:
    """The ids of every copy of the card written ``text``: two per face, four jokers."""
    if is_joker_text(text):
        return tuple(range(FIRST_JOKER, DECK_SIZE))
    try:
        rank, s = parse_card(text)
    except CardError:
        raise CardError(f"unknown card {text.strip()!r}: expected {_ACCEPTED}") from None
    f = s * 13 + (ACE if rank == 14 else rank - 1)
    return (f, f + 52)


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Ids of cards written ``"AS 10H JK"`` (spaces or commas) or given as a list of texts.

    Each text takes the lowest id of its card not taken yet, so ``"AS AS"`` is
    both decks' aces of spades and ``"JK JK"`` two jokers.  An unknown card or
    more copies than the deck holds (two of each card, four jokers) is an
    :class:`~simkit.base.errors.InputError` naming it.
    """
    items = text.replace(",", " ").split() if isinstance(text, str) else [str(t) for t in text]
    taken: set[int] = set()
    out = []
    for t in items:
        copies = _copies(t)
        free = [c for c in copies if c not in taken]
        if not free:
            what = "four jokers" if is_joker(copies[0]) else f"two copies of {card_text(copies[0])}"
            raise CardError(f"too many {t.strip()!r}: the 108-card Burraco deck has only {what}")
        taken.add(free[0])
        out.append(free[0])
    return out


# ---------------------------------------------------------------------------
# §3 Rules and the meld record
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class MeldRules:
    """The meld variants of §3.

    ``twos_set``: allow a set of 2s (its 2s natural, at most one joker as its
    wild); default False: 2s are wild, so there is no set of 2s.
    ``sequence_wilds``: the most wild cards a sequence may hold; default 1
    (the seed's rule), 2 makes the seed's example "2-2-Joker" valid, 0 forbids
    wild cards in sequences.
    """

    twos_set: bool = False
    sequence_wilds: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.twos_set, bool):
            raise InputError(f"bad twos_set {self.twos_set!r}: expected true or false")
        if isinstance(self.sequence_wilds, bool) or not isinstance(self.sequence_wilds, int) \
                or not 0 <= self.sequence_wilds <= 2:
            raise InputError(f"bad sequence_wilds {self.sequence_wilds!r}: expected 0, 1 or 2")


DEFAULT_RULES = MeldRules()


@dataclass(frozen=True)
class Meld:
    """One reading of a meld (§3).

    ``cards`` are in layout order: for a sequence the card on each place from
    ``first`` to ``last`` (places A low = 1 ... A high = 14), for a set its
    natural cards in id order and then its wild card.  ``wild_cards`` are the
    cards read as wild.  A set has a ``rank`` (A = 1, 2..10, J = 11, Q = 12,
    K = 13) and no suit; a sequence has a ``suit`` (0..3, C D H S) and its
    ``first`` and ``last`` places, and no rank.
    """

    kind: str
    cards: tuple[int, ...]
    wild_cards: tuple[int, ...]
    rank: int | None = None
    suit: int | None = None
    first: int | None = None
    last: int | None = None

    @property
    def wilds(self) -> int:
        """Number of cards read as wild."""
        return len(self.wild_cards)

    @property
    def clean(self) -> bool:
        """Pulito: read without any wild card (§3)."""
        return not self.wild_cards

    @property
    def burraco(self) -> bool:
        """A meld of 7 or more cards, clean or dirty (§3)."""
        return len(self.cards) >= BURRACO_SIZE

    @property
    def points(self) -> int:
        """Card points of the meld's cards (§1)."""
        return sum(points(c) for c in self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    @property
    def text(self) -> str:
        """The cards in layout order, e.g. ``"5S 6S JK"``."""
        return cards_text(self.cards)

    def describe(self) -> str:
        """E.g. ``"dirty sequence of spades 5..7: 5S 6S JK"`` or ``"clean set of 9: 9C 9D 9H"``."""
        state = ("clean " if self.clean else "dirty ") + ("burraco " if self.burraco else "")
        if self.kind == SET:
            assert self.rank is not None                  # a set has its rank
            what = f"set of {_place_name(self.rank)}"
        else:
            assert self.suit is not None                  # a sequence has its suit and places
            assert self.first is not None
            assert self.last is not None
            what = (f"sequence of {_SUIT_WORDS[self.suit]} "
                    f"{_place_name(self.first)}..{_place_name(self.last)}")
        return f"{state}{what}: {self.text}"


def _place_name(place: int) -> str:
    return _RANK_NAMES.get(place, "A" if place == HIGH_ACE_PLACE else str(place))


# ---------------------------------------------------------------------------
# §3 Readings: sets
# ---------------------------------------------------------------------------

def _set_reading(cards: tuple[int, ...], rules: MeldRules) -> Meld | None:
    """The reading of ``cards`` as a set, or None (§3 Set).

    Cards of one rank, any suits (two decks: repeats allowed), at most one wild
    card, at most 9 cards, never only wild cards.  With ``twos_set`` a group of
    2s is a set whose 2s are natural and whose only possible wild is a joker.
    """
    if not MIN_MELD <= len(cards) <= MAX_SET:
        return None
    naturals = sorted(c for c in cards if not is_wild(c))
    if naturals:
        wild = sorted(c for c in cards if is_wild(c))
    elif rules.twos_set:
        # Nothing but 2s and jokers: a set of 2s, if there is a 2 at all.
        naturals = sorted(c for c in cards if not is_joker(c))
        wild = sorted(c for c in cards if is_joker(c))
        if not naturals:
            return None
    else:
        return None                        # only wild cards, or a "set of 2s"
    if len({position(c) for c in naturals}) != 1 or len(wild) > 1:
        return None
    return Meld(SET, tuple(naturals + wild), tuple(wild), rank=position(naturals[0]) + 1)


# ---------------------------------------------------------------------------
# §3 Readings: sequences
# ---------------------------------------------------------------------------

def _places(c: int) -> tuple[int, ...]:
    """The places a natural card may stand on: the ace 1 or 14, others position + 1."""
    p = position(c)
    return (LOW_ACE_PLACE, HIGH_ACE_PLACE) if p == ACE else (p + 1,)


def _sequence_reading(cards: tuple[int, ...], rules: MeldRules, s: int,
                      first: int) -> Meld | None:
    """The reading of ``cards`` as the sequence of suit ``s`` on places
    ``first .. first + len - 1``, or None (§3 Sequence).

    Every card that is not wild must be of suit ``s`` and stand on its own
    place (the ace on 1 or 14, whichever the run holds); the lowest 2 of suit
    ``s`` stands on place 2 as a natural card when the run holds place 2 (any
    other reading of it would cost a wild card); every other 2 and every joker
    is wild and fills an empty place.  At most ``rules.sequence_wilds`` wild
    cards.
    """
    last = first + len(cards) - 1
    run = range(first, last + 1)
    on_place: dict[int, int] = {}
    wild: list[int] = []
    for c in sorted(cards):
        natural_two = not is_joker(c) and position(c) == TWO and suit(c) == s
        if is_wild(c) and not (natural_two and 2 in run and 2 not in on_place):
            wild.append(c)
            continue
        if suit(c) != s:
            return None                    # a natural card of another suit
        place = [p for p in _places(c) if p in run]
        if not place or place[0] in on_place:
            return None                    # out of the run, or a second card for one place
        on_place[place[0]] = c
    if len(wild) > rules.sequence_wilds:
        return None
    # n cards on n places: the wild cards exactly fill the empty places.
    empty = [p for p in run if p not in on_place]
    on_place.update(zip(empty, wild))
    return Meld(SEQUENCE, tuple(on_place[p] for p in run), tuple(wild),
                suit=s, first=first, last=last)


def _sequence_readings(cards: tuple[int, ...], rules: MeldRules,
                       suits: Iterable[int] = range(4)) -> Iterator[Meld]:
    """Every reading of ``cards`` as a sequence of one of ``suits`` (§3 Sequence).

    The run of places lies within 1..14 and holds at most 13 of them, so it
    never holds both aces: no wrap-around (K A 2) and no sequence running past
    an ace.
    """
    n = len(cards)
    if not MIN_MELD <= n <= MAX_SEQUENCE:
        return
    for s in suits:
        for first in range(LOW_ACE_PLACE, HIGH_ACE_PLACE - n + 2):
            meld = _sequence_reading(cards, rules, s, first)
            if meld is not None:
                yield meld


# ---------------------------------------------------------------------------
# §3 Reading a meld, adding to it
# ---------------------------------------------------------------------------

def _check_cards(cards: Iterable[int]) -> tuple[int, ...]:
    out = tuple(_check_id(c) for c in cards)
    if len(set(out)) != len(out):
        dup = sorted({c for c in out if out.count(c) > 1})
        raise InputError("the same card id twice in one meld: "
                         + ", ".join(f"{c} ({card_text(c)})" for c in dup))
    return out


def _check_kind(kind: str | None) -> None:
    if kind is not None and kind not in KINDS:
        raise InputError(f"bad meld kind {kind!r}: expected 'set', 'sequence' or None (either)")


def _best_first(meld: Meld) -> tuple[int, ...]:
    """Sort key of readings, best first (see the module docstring)."""
    if meld.kind == SET:
        return (meld.wilds, 0, 0, 0)
    assert meld.first is not None                         # a sequence has its places, suit
    assert meld.suit is not None
    return (meld.wilds, 1, -meld.first, meld.suit)


def readings(cards: Iterable[int], rules: MeldRules = DEFAULT_RULES,
             kind: str | None = None) -> list[Meld]:
    """Every valid reading of ``cards`` as one meld (§3), best first; [] if none.

    ``kind`` restricts the readings to sets (``"set"``) or sequences
    (``"sequence"``).
    """
    cards = _check_cards(cards)
    _check_kind(kind)
    found = []
    if kind in (None, SET):
        meld = _set_reading(cards, rules)
        if meld is not None:
            found.append(meld)
    if kind in (None, SEQUENCE):
        found.extend(_sequence_readings(cards, rules))
    return sorted(found, key=_best_first)


def read_meld(cards: Iterable[int], rules: MeldRules = DEFAULT_RULES,
              kind: str | None = None) -> Meld | None:
    """The best valid reading of ``cards`` as one meld (§3), or None if they make none.

    Clean readings come before dirty ones, so ``meld.clean`` tells whether
    *some* reading needs no wild card.  ``kind`` forces a set or a sequence.
    The result does not depend on the order of ``cards``.
    """
    found = readings(cards, rules, kind)
    return found[0] if found else None


def extend(meld: Meld, cards: Iterable[int], rules: MeldRules = DEFAULT_RULES) -> Meld | None:
    """``meld`` with ``cards`` added, or None if that is not allowed (§3).

    The meld's cards and the new ones, judged as a whole, must make a meld of
    the same kind -- a set stays a set (of its rank, since it has two natural
    cards), a sequence stays a sequence of its suit.  Wild cards may be read
    anew: a joker standing at an end moves when the card it stood for
    arrives, a 2 of the suit read as wild becomes natural when its place
    opens.  (The suit of a sequence made only of 2s and jokers, possible with
    ``sequence_wilds = 2``, is open until a natural card fixes it: any suit in
    which the old cards were a valid sequence is "its suit".)  The new cards
    join this meld only: two melds are never merged, whatever their cards.
    """
    added = _check_cards(cards)
    if not added:
        raise InputError("nothing to add to the meld: give at least one card")
    whole = _check_cards(meld.cards + added)
    if meld.kind == SET:
        return _set_reading(whole, rules)
    assert meld.suit is not None                          # a sequence has its suit
    suits = {meld.suit} | {m.suit for m in _sequence_readings(meld.cards, rules)
                           if m.suit is not None}
    found = sorted(_sequence_readings(whole, rules, sorted(suits)), key=_best_first)
    return found[0] if found else None


# ---------------------------------------------------------------------------
# §6 The table's part of a team's score
# ---------------------------------------------------------------------------

def table_score(melds: Iterable[Meld]) -> dict[str, int]:
    """The table's part of a team's score (§6), as its parts.

    ``melded_points``: the card points of every melded card; ``clean_burraco``
    and ``dirty_burraco``: how many burracos of each sort; ``burraco_bonus``:
    200 per clean and 100 per dirty burraco; ``total``: melded points plus the
    bonus.  Cards in hand, going out and the pozzetto are the engine's to add.
    """
    melds = list(melds)
    seen: set[int] = set()
    for m in melds:
        shared = seen.intersection(m.cards)
        if shared:
            raise InputError("a card in two melds: " + cards_text(sorted(shared)))
        seen.update(m.cards)
    melded = sum(m.points for m in melds)
    clean = sum(1 for m in melds if m.burraco and m.clean)
    dirty = sum(1 for m in melds if m.burraco and not m.clean)
    bonus = CLEAN_BURRACO_BONUS * clean + DIRTY_BURRACO_BONUS * dirty
    return {"melded_points": melded, "clean_burraco": clean, "dirty_burraco": dirty,
            "burraco_bonus": bonus, "total": melded + bonus}
