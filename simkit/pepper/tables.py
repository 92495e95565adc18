"""Pepper's card tables and the deal, for the numba engine (seeds/pepper.md 1, 2).

The ground that the kernel (``kernel.py``), its double-dummy solver
(``solver.py``) and the expert (``expert.py``) share; it imports none of them.

Hands are 24-bit masks (bit = card id, see ``rules.DECK``).  For each trump
option (0..3 = C D H S, 4 = no trump) the tables give a card's effective suit
and rank (:data:`EFF`, :data:`VALUE`, :data:`SUITMASK`), and a relabelling of
the cards into "play bits" ordered by rank within the option, trumps on top
(:data:`RELABEL`, :data:`CARD_OF`, :data:`BIT_OF`, :data:`SUIT_BITS`,
:data:`SUIT_OF_BIT`, :data:`TRUMP_BITS`, :func:`to_play_bits`): the lowest
card of a set, a suit's boss and the cards that beat the winning card are then
single bit operations.

The deal (§1): :func:`deal` shuffles and deals a hand, :func:`deal_number`
deals hand ``number`` of a run as the kernel's runs deal it, and
:func:`deal_fixed` deals the other hands around a fixed one (9.1).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from simkit.base.jit import kernel
from simkit.base.rng import shuffle, start_stream
from simkit.pepper.rules import R

Int64s = npt.NDArray[np.int64]


def _tables() -> tuple[Int64s, Int64s, Int64s]:
    """EFF[o, c] (effective suit), VALUE[o, c] (rank within it; trumps 10..16 so
    that any trump beats any other card) and SUITMASK[o, e] (cards of effective
    suit e), for trump option o."""
    eff = np.zeros((5, 24), np.int64)
    value = np.zeros((5, 24), np.int64)
    suitmask = np.zeros((5, 4), np.int64)
    trump_value = {0: 10, 1: 11, 3: 12, 4: 13, 5: 14}   # 9 10 Q K A of trumps
    for o in range(5):
        for c in range(24):
            s, r = divmod(c, 6)
            if o < 4 and r == 2 and s in (o, 3 - o):
                eff[o, c], value[o, c] = o, (16 if s == o else 15)
            elif o < 4 and s == o:
                eff[o, c], value[o, c] = o, trump_value[r]
            else:
                eff[o, c], value[o, c] = s, r
            suitmask[o, eff[o, c]] |= 1 << c
    return eff, value, suitmask


EFF, VALUE, SUITMASK = _tables()
NT = 4


def _play_tables() -> tuple[Int64s, Int64s, Int64s, Int64s, Int64s, Int64s]:
    """Per trump option, a relabelling of the 24 cards as "play bits" sorted by
    (value, id): the lowest set bit of a mask is then its lowest card, an
    effective suit's highest set bit its boss, and the trumps (values >= 10)
    occupy the top bits.  Masks are relabelled a byte at a time through RELABEL.
    """
    relabel = np.zeros((5, 3, 256), np.int64)
    card_of = np.zeros((5, 24), np.int64)     # play bit -> card id
    bit_of = np.zeros((5, 24), np.int64)      # card id -> play bit
    suit_bits = np.zeros((5, 4), np.int64)    # effective suit -> play-bit mask
    suit_of_bit = np.zeros((5, 24), np.int64)
    trump_bits = np.zeros(5, np.int64)
    for o in range(5):
        cards = sorted(range(24), key=lambda c: (VALUE[o, c], c))
        for b, c in enumerate(cards):
            card_of[o, b], bit_of[o, c] = c, b
            suit_bits[o, EFF[o, c]] |= 1 << b
            suit_of_bit[o, b] = EFF[o, c]
        if o < NT:
            trump_bits[o] = suit_bits[o, o]
        for k in range(3):
            for byte in range(256):
                for i in range(8):
                    if byte >> i & 1:
                        relabel[o, k, byte] |= 1 << bit_of[o, 8 * k + i]
    return relabel, card_of, bit_of, suit_bits, suit_of_bit, trump_bits


RELABEL, CARD_OF, BIT_OF, SUIT_BITS, SUIT_OF_BIT, TRUMP_BITS = _play_tables()


@kernel(inline=True)
def to_play_bits(h, o):
    """The card-id mask ``h`` relabelled into play bits for trump option ``o``."""
    return RELABEL[o, 0, h & 255] | RELABEL[o, 1, (h >> 8) & 255] | RELABEL[o, 2, (h >> 16) & 255]


@kernel(inline=True)
def deal(st, dealer, rules, deck, hands):
    """Shuffle and deal (seeds/pepper.md 1) into ``hands[seat]``; hands[3] gets the
    dead hand with 2 players.  Returns nothing; masks are written in place."""
    P = rules[R.PLAYERS]
    H = rules[R.HANDS_DEALT]
    for c in range(24):
        deck[c] = c
    shuffle(st, deck)
    for s in range(4):
        hands[s] = 0
    r = 0
    for p in range(24):   # card p to hand p mod H, hand r to seat dealer+1+r
        if r < P:
            seat = dealer + 1 + r
            if seat >= P:
                seat -= P
        else:
            seat = 3
        hands[seat] |= 1 << deck[p]
        r += 1
        if r == H:
            r = 0


@kernel(inline=True)
def deal_number(st, key, number, rules, deck, hands):
    """Hand ``number`` of a run as :func:`deal` deals it: stream ``(key, number)``,
    the dealer seat ``number mod players``, which is returned."""
    start_stream(st, key, number)
    dealer = number % rules[R.PLAYERS]
    deal(st, dealer, rules, deck, hands)
    return dealer


@kernel(inline=True)
def deal_fixed(st, seat, dealer, fixed, rules, rest, hands):
    """A deal in which ``seat`` holds the cards of mask ``fixed``: the unseen cards
    in id order are shuffled, then each other hand in deal order (the dead hand
    last with 2 players) takes the next block of cards."""
    P = rules[R.PLAYERS]
    H = rules[R.HANDS_DEALT]
    per_hand = 24 // H
    own = (seat - dealer - 1) % P           # the fixed seat's place in the deal
    n = 0
    for c in range(24):
        if not (fixed >> c) & 1:
            rest[n] = c
            n += 1
    shuffle(st, rest)
    for s in range(4):
        hands[s] = 0
    hands[seat] = fixed
    p = 0
    for r in range(H):
        if r == own:
            continue
        s = (dealer + 1 + r) % P if r < P else 3
        for _ in range(per_hand):
            hands[s] |= 1 << rest[p]
            p += 1
