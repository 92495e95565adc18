"""Pitch's cards, the reference side: card ids and the deal (seeds/pitch.md
§1, and the advisor's deals of §8.3), game points (§4) and the play of a
trick (§3) as plain Python.

The ground that the reference engine (``reference.py``) and its players
(``reference_players.py``) share; it imports neither, nor anything of the
kernel.  A card is ``suit * 13 + position`` with suits C D H S = 0..3 and
positions 2 = 0, 3 = 1, ..., 10 = 8, J = 9, Q = 10, K = 11, A = 12
(``simkit.pitch.rules.DECK``).
"""

from __future__ import annotations

from collections.abc import Sequence

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pitch.rules import DECK, GAME_POINTS, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS
from simkit.records import moves
from simkit.records.moves import Play

#: Card ids (§1): a suit C D H S = 0..3 and a rank position 2 = 0, ..., 10 = 8,
#: J = 9, Q = 10, K = 11, A = 12 make card ``suit * 13 + position``.
card_of = DECK.at
suit_of = DECK.suit
position_of = DECK.position


def game_points_of(card: int) -> int:
    """Game points of a card (§4): A 4, K 3, Q 2, J 1, 10 10, others 0."""
    return GAME_POINTS[position_of(card)]


# ---------------------------------------------------------------------------
# §1 The deal
# ---------------------------------------------------------------------------

def check_players(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InputError(f"Pitch is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")


def deal(stream: Stream, players: int, dealer: int) -> list[list[int]]:
    """Deal six cards to each seat (§1); returns the hands by seat, in deal order.

    Only the dealt cards are drawn: the deck in id order goes through a
    forward Fisher-Yates shuffle stopped after ``6N`` steps
    (``stream.sample``).  The card at position ``p`` goes to hand ``p mod N``;
    hand ``r`` belongs to the seat ``r + 1`` places left of the dealer.
    """
    check_players(players)
    deck = list(range(DECK.size))
    dealt = HAND_SIZE * players
    stream.sample(deck, dealt)
    hands: list[list[int]] = [[] for _ in range(players)]
    for p in range(dealt):
        r = p % players
        hands[(dealer + 1 + r) % players].append(deck[p])
    return hands


def deal_fixed(stream: Stream, players: int, dealer: int, seat: int,
               cards: Sequence[int]) -> list[list[int]]:
    """The advisor's deal (§8.3): ``seat`` holds ``cards``; the rest is dealt as in §1.

    The other 46 cards, in id order, go through ``6(N - 1)`` forward
    Fisher-Yates steps; position ``p`` goes to the ``(p mod (N - 1))``-th of
    the other seats counted clockwise from left of the dealer.
    """
    check_players(players)
    cards = [int(c) for c in cards]
    if len(cards) != HAND_SIZE or len(set(cards)) != HAND_SIZE \
            or not all(0 <= c < DECK.size for c in cards):
        raise InputError(f"a fixed Pitch hand is {HAND_SIZE} distinct cards, got "
                         + " ".join(str(c) for c in cards))
    if not 0 <= seat < players:
        raise InputError(f"bad seat {seat}: seats are 0 to {players - 1}")
    rest = [c for c in range(DECK.size) if c not in cards]
    dealt = HAND_SIZE * (players - 1)
    stream.sample(rest, dealt)
    clockwise = [(dealer + 1 + i) % players for i in range(players)]
    others = [s for s in clockwise if s != seat]
    hands: list[list[int]] = [[] for _ in range(players)]
    hands[seat] = list(cards)
    for p in range(dealt):
        hands[others[p % (players - 1)]].append(rest[p])
    return hands


# ---------------------------------------------------------------------------
# §3 Play: legal cards and trick winners
# ---------------------------------------------------------------------------

def legal_cards(hand: Sequence[int], led: int | None, trump: int | None) -> list[int]:
    """The cards a player may play, in increasing card id (§3).

    ``led`` is the suit of the led card (None when leading: any card).  A
    player holding a card of the led suit may play any card of that suit or
    any trump (trumping is allowed even when able to follow); a player with
    none of the led suit may play any card.
    """
    if led is not None and any(suit_of(c) == led for c in hand):
        return sorted(c for c in hand if suit_of(c) == led or suit_of(c) == trump)
    return sorted(hand)


def beats(card: int, best: int, trump: int) -> bool:
    """Does ``card`` beat ``best``, the card winning the trick so far? (§3, §8.2)

    It does if it is a trump and ``best`` is not, or it is of ``best``'s suit
    and higher.
    """
    if suit_of(card) == trump and suit_of(best) != trump:
        return True
    return suit_of(card) == suit_of(best) and position_of(card) > position_of(best)


def winning_play(trick: Sequence[Play], trump: int) -> Play:
    """The play winning a (possibly unfinished) trick so far (§3).

    The highest trump wins; with no trump in it, the highest card of the led
    suit.  Scanning in play order with :func:`beats` gives exactly that: a
    card neither trump nor of the winning card's suit never beats.
    """
    return moves.winning_play(trick, lambda card, best: beats(card, best, trump))


def trick_winner(trick: Sequence[Play], trump: int) -> int:
    """The seat winning a (possibly unfinished) trick so far (§3)."""
    return winning_play(trick, trump).seat

