"""Pepper's tricks, the reference side: the card ranking (seeds/pepper.md §2) and
the play of a trick (§4) as plain Python.

The ground that the reference engine (``reference.py``), its double-dummy
solver (``reference_solver.py``) and its expert (``reference_expert.py``)
share; it imports none of them, nor anything of the kernel.  Cards, trump
options and seats are encoded as in ``reference.py`` (``simkit.pepper.rules``):
a card is ``suit * 6 + rank position``, a trump option a suit 0..3 or
``NO_TRUMP``.

Layout: a play (:class:`Play`); card ids and seats (§1); the legal calls and
trump options (§3, which the referee and the players both read); the ranking
of the cards under a trump option (§2, and the discard value of §7.2); tricks
and legal cards (§4); what a seat has seen of the play (:class:`PlayView`, the
suits each seat has shown out of or discarded from).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from simkit.pepper.rules import ACE, DECK, JACK, KING, NINE, NO_TRUMP, QUEEN, TEN, PepperRules
from simkit.records import moves
from simkit.records.moves import Play

# ---------------------------------------------------------------------------
# §1 Card ids and seats
# ---------------------------------------------------------------------------

#: Card ids (§1): a suit C D H S = 0..3 and a rank position 9 10 J Q K A = 0..5
#: make card ``suit * 6 + position``.
card_of = DECK.at
suit_of = DECK.suit
rank_of = DECK.position


def partner_of(seat: int, rules: PepperRules) -> int:
    """The partner, who sits opposite, with 4 players; -1 otherwise (§1)."""
    return (seat + 2) % 4 if rules.players == 4 else -1


def same_side(a: int, b: int, rules: PepperRules) -> bool:
    """True if seats ``a`` and ``b`` score together (the same seat, or partners)."""
    return a == b or (rules.players == 4 and (a - b) % 2 == 0)


# ---------------------------------------------------------------------------
# §3 Calls and trump options
# ---------------------------------------------------------------------------

def bid_options(rules: PepperRules, high: int) -> list[int]:
    """Legal calls (§3.1, in the order §7.1 draws from): pass, then every level
    above the current high bid up to Kubwa, increasing."""
    return [0, *range(high + 1, rules.kubwa + 1)]


def trump_options(rules: PepperRules) -> list[int]:
    """The bidder's choices (§3.3): C, D, H, S, then NT when ``no_trump`` is on."""
    return [0, 1, 2, 3] + ([NO_TRUMP] if rules.no_trump else [])


# ---------------------------------------------------------------------------
# §2 Card ranking
# ---------------------------------------------------------------------------

def is_right_bower(card: int, trump: int) -> bool:
    """The jack of trumps (§2)."""
    return trump != NO_TRUMP and card == card_of(trump, JACK)


def is_left_bower(card: int, trump: int) -> bool:
    """The jack of the other suit of the trump's colour, suit ``3 - trump`` (§2)."""
    return trump != NO_TRUMP and card == card_of(3 - trump, JACK)


def effective_suit(card: int, trump: int) -> int:
    """The printed suit, except that the left bower belongs to trumps (§2)."""
    return trump if is_left_bower(card, trump) else suit_of(card)


def is_trump(card: int, trump: int) -> bool:
    """True if the card's effective suit is the trump suit (never with no trump)."""
    return trump != NO_TRUMP and effective_suit(card, trump) == trump


@functools.cache          # 20 fixed orders, asked for at every decision
def suit_cards(suit: int, trump: int) -> tuple[int, ...]:
    """The cards of an effective suit, highest first (§2).

    Trumps: right bower, left bower, A, K, Q, 10, 9.  Any other suit (every
    suit with no trump): A, K, Q, J, 10, 9, without the left bower.
    """
    if trump != NO_TRUMP and suit == trump:
        return (card_of(trump, JACK), card_of(3 - trump, JACK),
                card_of(trump, ACE), card_of(trump, KING), card_of(trump, QUEEN),
                card_of(trump, TEN), card_of(trump, NINE))
    order = [card_of(suit, r) for r in (ACE, KING, QUEEN, JACK, TEN, NINE)]
    return tuple(c for c in order if not is_left_bower(c, trump))


def trump_position(card: int, trump: int) -> int:
    """Position of a trump from the top, 0 (right bower) .. 6 (nine), §2 / §7.2."""
    return suit_cards(trump, trump).index(card)


def discard_value(card: int, trump: int) -> int:
    """A card's value for discarding (§7.2 "Play").

    A non-trump: its rank position, 9 = 0 .. A = 5 (the deck's rank position,
    also in the suit that lost its jack to the left bower).  A trump: 10 plus
    its position from the bottom: 9 = 10, 10 = 11, Q = 12, K = 13, A = 14,
    left bower = 15, right bower = 16.
    """
    if is_trump(card, trump):
        return 16 - trump_position(card, trump)
    return rank_of(card)


# ---------------------------------------------------------------------------
# §4 Tricks
# ---------------------------------------------------------------------------

def beats(card: int, best: int, trump: int) -> bool:
    """Does ``card`` beat ``best``, the card winning the trick so far? (§4, §7.2)

    It does if it is a trump and ``best`` is not, or if it is of ``best``'s
    effective suit and ranks higher in it.
    """
    if is_trump(card, trump) and not is_trump(best, trump):
        return True
    suit = effective_suit(best, trump)
    if effective_suit(card, trump) != suit:
        return False
    order = suit_cards(suit, trump)
    return order.index(card) < order.index(best)


def winning_play(trick: Sequence[Play], trump: int) -> Play:
    """The play winning a (possibly unfinished) trick so far (§4).

    The highest trump wins; with no trump played, the highest card of the led
    effective suit.  Scanning in play order with :func:`beats` gives exactly
    that, since a card off the led suit that is not a trump never beats.
    """
    return moves.winning_play(trick, lambda card, best: beats(card, best, trump))


def trick_winner(trick: Sequence[Play], trump: int) -> int:
    """The seat that wins a trick (§4)."""
    return winning_play(trick, trump).seat


def legal_cards(hand: Sequence[int], led: int | None, trump: int) -> list[int]:
    """The cards the player may play, in increasing card id (§4).

    ``led`` is the effective suit of the led card, or None when leading.  A
    player must follow the led effective suit if able (the left bower is a
    trump, not a card of its printed suit); otherwise any card is legal.
    """
    if led is not None:
        follow = sorted(c for c in hand if effective_suit(c, trump) == led)
        if follow:
            return follow
    return sorted(hand)


# ---------------------------------------------------------------------------
# What a seat has seen of the play (§4, §7.2)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class PlayView:
    """What a seat knows while playing, besides its hand and the trick: every
    play so far (the current trick included), the contract and its holder,
    the tricks won so far per seat, and the auction's calls (none when the
    contract was declared without one).

    ``holdings`` (every seat's cards now) is not something a player knows:
    only the expert's oracle (§7.3, ``worlds = 0``), which sees every card,
    reads it.  It may be empty where no oracle plays."""

    plays: tuple[Play, ...]
    bidder: int
    contract: int
    tricks: tuple[int, ...]
    holdings: tuple[tuple[int, ...], ...] = ()
    calls: tuple[moves.Bid, ...] = ()

    @property
    def played(self) -> set[int]:
        return {p.card for p in self.plays}


def _off_suit(view: PlayView, rules: PepperRules, trump: int) -> Iterator[tuple[int, int, int]]:
    """Every play so far (the current trick included) of another effective suit
    than the one led: ``(seat, led suit, card)``."""
    n = rules.players
    for i in range(0, len(view.plays), n):
        trick = view.plays[i:i + n]
        led = effective_suit(trick[0].card, trump)
        for p in trick[1:]:
            if effective_suit(p.card, trump) != led:
                yield p.seat, led, p.card


def shown_out(view: PlayView, rules: PepperRules, trump: int) -> list[set[int]]:
    """Per seat, the effective suits it has shown out of: in some trick (the
    current one included) it played a card of another effective suit than
    the one led (§7.2 "Play")."""
    out: list[set[int]] = [set() for _ in range(rules.players)]
    for seat, led, _ in _off_suit(view, rules, trump):
        out[seat].add(led)
    return out


def discarded(view: PlayView, rules: PepperRules, trump: int) -> list[set[int]]:
    """Per seat, the non-trump effective suits it has discarded from: it played a
    card of that suit on a trick led in another effective suit (§7.2 "All tricks")."""
    out: list[set[int]] = [set() for _ in range(rules.players)]
    for seat, _, card in _off_suit(view, rules, trump):
        if not is_trump(card, trump):
            out[seat].add(effective_suit(card, trump))
    return out
