"""Pepper double dummy, the reference solver: ``seeds/pepper.md`` section 10 in plain Python.

A *position* is the hands of the seats that play (with two players the dead
hand is simply absent), the trump option, the current trick (the plays made
to it so far, in order) and the seat to play.  Its *double-dummy value* for a
side R (a set of seats) is the number of tricks R's seats win from the
position on, the current trick included, when every card is visible, R's
seats play to win as many tricks as they can and every other seat plays to
let R win as few as it can, all tricks being played out under §4.

This module is the readable twin of the kernel's solver
(``simkit/pepper/solver.py``); the differential tests hold the two together.
It shares no code with it.  It stands on the trick primitives of
``simkit.pepper.tricks`` (effective suits, card order, trick winners, legal
cards), which the reference engine uses too; the reference engine's expert
(``reference_expert.py``) calls it.

How it is computed
------------------

The search answers one question, "can R take at least ``n`` tricks from
here?", by a depth-first search over card plays: a seat of R needs one card
that answers yes, any other seat one card that answers no, so the search
stops at the first card that settles it.  :func:`value` asks the question
for a few ``n`` (a bisection between 0 and the tricks left).

Three things make it fast enough without making it clever:

- **A memo at trick starts.**  At the start of a trick the rest of the hand
  depends only on the cards still held and on the leader, not on how the
  position was reached.  Better: it depends only on the *order* of the cards
  still held within each effective suit, so the memo key lists, for each
  effective suit from its highest card down, which seat holds each card still
  in play (cards played earlier are skipped), plus the leader.  The memo
  keeps a lower and an upper bound on the tricks R takes from that trick
  start; every answered question tightens one of them and later questions,
  for any ``n``, reuse them.
- **Equivalent cards.**  Two cards of one effective suit in the same hand
  are equivalent when every card of that suit ranked between them is out of
  play (played in an earlier trick, or in the dead hand); a card of the
  current trick separates them.  Playing either leads to positions with the
  same memo key, so only one of each group (the lowest) is tried.
- **Move ordering.**  Cards likely to settle the question come first: the
  cheapest card that wins the trick when an opponent is winning it, low
  cards when a partner is winning it or it cannot be won, and the top card
  of a suit (then low cards) when leading.

:func:`brute_force_value` is the definition itself (a plain minimax over
every legal card, no memo, no pruning, no merging), kept for the tests.

The memo lives in one search object per call; nothing is kept between calls
except the five small per-trump tables of card facts.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Sequence
from typing import Any

from simkit.base.errors import InputError
from simkit.pepper.rules import DECK, NO_TRUMP, TRUMP_TEXT
from simkit.pepper.tricks import (
    beats,
    effective_suit,
    is_trump,
    legal_cards,
    suit_cards,
    trick_winner,
    winning_play,
)
from simkit.records.moves import Play

__all__ = ["brute_force_value", "can_take", "every_trick", "value"]

CARDS = 24          # card ids 0..23 (§1)
OUT = -1            # holder of a card out of play: played in an earlier trick, or never in play
IN_TRICK = -2       # holder of a card lying in the current trick


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

def value(hands: Sequence[Sequence[int]], trump: int, trick: Sequence[Play], to_play: int,
          side: Iterable[int]) -> int:
    """The double-dummy value of the position for side R = ``side`` (§10).

    ``hands[seat]`` holds the card ids of each seat that plays (2 to 4 seats);
    ``trick`` the plays already made to the current trick, in order (empty at
    a trick start, when ``to_play`` is the leader); ``side`` a set of seats.
    Returns the tricks R wins from here on, the current trick included.
    """
    search = _Search(*_checked(hands, trump, trick, to_play, side))
    lo, hi = 0, search.tricks_left
    while lo < hi:                       # bisect: the value is in [lo, hi]
        mid = (lo + hi + 1) // 2
        if search.can_take(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def can_take(hands: Sequence[Sequence[int]], trump: int, trick: Sequence[Play], to_play: int,
             side: Iterable[int], n: int) -> bool:
    """``value(...) >= n``, computed by a search that stops as soon as it is settled."""
    need = _whole(n)
    if need is None:
        raise InputError(f"bad trick count n={n!r}: expected a whole number")
    return _Search(*_checked(hands, trump, trick, to_play, side)).can_take(need)


def every_trick(hands: Sequence[Sequence[int]], trump: int, trick: Sequence[Play], to_play: int,
                side: Iterable[int]) -> bool:
    """Can the side take every remaining trick, the current one included?

    The search fails at the first trick R loses, so this is much faster than
    :func:`value`.
    """
    search = _Search(*_checked(hands, trump, trick, to_play, side))
    return search.can_take(search.tricks_left)


def brute_force_value(hands: Sequence[Sequence[int]], trump: int, trick: Sequence[Play],
                      to_play: int, side: Iterable[int]) -> int:
    """The same value as :func:`value` by a plain minimax over every legal card.

    No memo, no pruning, no merging of equivalent cards: the definition of
    §10 and nothing else.  The work grows like the product of the hands' legal
    choices, so it is only for small endings (the tests).
    """
    return _minimax(*_checked(hands, trump, trick, to_play, side))


def _minimax(hands: list[list[int]], trump: int, trick: list[Play], seat: int,
             side: frozenset[int]) -> int:
    """Tricks R wins from here with ``seat`` to play to ``trick``."""
    players = len(hands)
    if len(trick) == players:                       # the trick is complete: score it
        winner = trick_winner(trick, trump)
        won = 1 if winner in side else 0
        if not hands[winner]:                       # that was the last trick
            return won
        return won + _minimax(hands, trump, [], winner, side)
    if not trick and not hands[seat]:               # no cards at all: nothing left to win
        return 0
    led = effective_suit(trick[0].card, trump) if trick else None
    outcomes = []
    for card in legal_cards(hands[seat], led, trump):
        rest = [[c for c in hand if c != card] if s == seat else hand
                for s, hand in enumerate(hands)]
        outcomes.append(_minimax(rest, trump, [*trick, Play(seat, card)],
                                 (seat + 1) % players, side))
    return max(outcomes) if seat in side else min(outcomes)


# ---------------------------------------------------------------------------
# Card facts for one trump option, from the trick primitives (tricks.py)
# ---------------------------------------------------------------------------

class _Facts:
    """Per-trump tables of the §2 card facts, so that the search looks them up.

    ``suit[c]`` is the effective suit of card ``c``; ``order[s]`` the cards of
    effective suit ``s`` highest first; ``rank[c]`` the position of ``c`` in
    its suit's order (0 = highest); ``trump[c]`` whether ``c`` is a trump;
    ``beats[c][b]`` whether ``c`` beats ``b``, the card winning a trick so far.
    """

    def __init__(self, trump: int):
        self.suit = [effective_suit(c, trump) for c in range(CARDS)]
        self.order = [suit_cards(s, trump) for s in range(4)]
        self.rank = [self.order[self.suit[c]].index(c) for c in range(CARDS)]
        self.trump = [is_trump(c, trump) for c in range(CARDS)]
        self.beats = [[beats(c, b, trump) if c != b else False for b in range(CARDS)]
                      for c in range(CARDS)]


@functools.cache            # five small tables, one per trump option
def _facts(trump: int) -> _Facts:
    return _Facts(trump)


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------

class _Search:
    """One position's search: the cards' whereabouts, the side, and the memo.

    The state is mutated as cards are played and restored when the search
    backs up: ``holder[c]`` is the seat holding card ``c``, ``IN_TRICK`` for a
    card of the current trick, or ``OUT``; ``count[seat][suit]`` is how many
    cards of each effective suit a seat holds (to know at once whether it can
    follow); ``trick`` lists the current trick's cards.
    """

    def __init__(self, hands: list[list[int]], trump: int, trick: list[Play], to_play: int,
                 side: frozenset[int]):
        facts = _facts(trump)
        self.facts = facts
        self.players = len(hands)
        self.side = side
        self.holder = [OUT] * CARDS
        self.count = [[0] * 4 for _ in hands]
        for seat, hand in enumerate(hands):
            for c in hand:
                self.holder[c] = seat
                self.count[seat][facts.suit[c]] += 1
        for p in trick:
            self.holder[p.card] = IN_TRICK
        self.trick = [p.card for p in trick]
        self.start = (to_play, trick, trump)
        self.tricks_left = len(hands[to_play])
        # memo key -> (lo, hi): bounds on the tricks R wins from that trick start on
        self.bounds: dict[tuple[Any, ...], tuple[int, int]] = {}

    # --- the question at the root --------------------------------------------

    def can_take(self, n: int) -> bool:
        """Can R take at least ``n`` tricks from the root position on?"""
        to_play, trick, trump = self.start
        if not trick:
            return self._from_trick_start(to_play, n, self.tricks_left)
        best = winning_play(trick, trump)
        led = self.facts.suit[trick[0].card]
        return self._play(seat=to_play, led=led, best_seat=best.seat, best_card=best.card, n=n,
                          left=self.tricks_left)

    # --- trick starts: the memo -----------------------------------------------

    def _key(self, leader: int) -> tuple[Any, ...]:
        """Who holds each card still in play, suit by suit from the top, and who leads.

        Two trick starts with the same key have the same value: only the order
        of the cards in play within each effective suit matters (§2, §4).
        """
        holder = self.holder
        return (leader, *(tuple(h for c in order if (h := holder[c]) != OUT)
                          for order in self.facts.order))

    def _from_trick_start(self, leader: int, n: int, left: int) -> bool:
        """Can R take ``n`` of the ``left`` tricks still to play, ``leader`` to lead?"""
        if n <= 0:
            return True
        if n > left:
            return False
        if left == 1:                        # one card each: the play is forced
            return self._last_trick(leader) == 1
        key = self._key(leader)
        lo, hi = self.bounds.get(key, (0, left))
        if lo >= n:
            return True
        if hi < n:
            return False
        result = self._play(seat=leader, led=None, best_seat=-1, best_card=-1, n=n, left=left)
        self.bounds[key] = (n, hi) if result else (lo, n - 1)
        return result

    def _last_trick(self, leader: int) -> int:
        """1 if R wins the last trick (every seat holds one card, so no choice is left)."""
        holder, beats = self.holder, self.facts.beats
        cards = [OUT] * self.players
        for c in range(CARDS):
            if holder[c] >= 0:
                cards[holder[c]] = c
        best_seat = leader
        for i in range(1, self.players):
            seat = (leader + i) % self.players
            if beats[cards[seat]][cards[best_seat]]:
                best_seat = seat
        return 1 if best_seat in self.side else 0

    # --- within a trick -------------------------------------------------------

    def _play(self, seat: int, led: int | None, best_seat: int, best_card: int, n: int,
              left: int) -> bool:
        """Can R take ``n`` of the ``left`` tricks (this one included), ``seat`` to play?

        ``led`` is the trick's effective suit (None when ``seat`` leads);
        ``best_seat`` and ``best_card`` the play winning the trick so far.
        """
        facts, holder, trick = self.facts, self.holder, self.trick
        maximising = seat in self.side
        count = self.count[seat]
        next_seat = (seat + 1) % self.players
        for card in self._candidates(seat, led, best_seat, best_card):
            # play the card
            suit = facts.suit[card]
            holder[card] = IN_TRICK
            count[suit] -= 1
            trick.append(card)
            if led is None:
                answer = self._play(seat=next_seat, led=suit, best_seat=seat, best_card=card, n=n,
                                    left=left)
            else:
                if facts.beats[card][best_card]:
                    new_seat, new_card = seat, card
                else:
                    new_seat, new_card = best_seat, best_card
                if len(trick) < self.players:
                    answer = self._play(seat=next_seat, led=led, best_seat=new_seat,
                                        best_card=new_card, n=n, left=left)
                else:
                    answer = self._after_trick(new_seat, n, left)
            # take it back
            trick.pop()
            count[suit] += 1
            holder[card] = seat
            if answer == maximising:         # R found a way, or the others found a defence
                return answer
        return not maximising

    def _after_trick(self, winner: int, n: int, left: int) -> bool:
        """The trick is complete: score it and go on from the next trick start."""
        holder, finished = self.holder, self.trick
        for c in finished:
            holder[c] = OUT
        self.trick = []
        won = 1 if winner in self.side else 0
        answer = self._from_trick_start(winner, n - won, left - 1)
        self.trick = finished
        for c in finished:
            holder[c] = IN_TRICK
        return answer

    def _candidates(self, seat: int, led: int | None, best_seat: int,
                    best_card: int) -> list[int]:
        """The cards worth trying for ``seat``, most promising first.

        Legal cards (§4) with equivalent cards merged: walking a suit from its
        lowest card up, a held card starts a new group unless the last card in
        play below it is also this seat's (cards out of play do not separate
        two cards; a card of the current trick or of another hand does).
        """
        facts, holder = self.facts, self.holder
        if led is not None and self.count[seat][led]:
            suits: Iterable[int] = (led,)
        else:
            suits = range(4)
        cards = []
        for s in suits:
            if not self.count[seat][s]:
                continue
            previous_mine = False
            for c in reversed(facts.order[s]):
                h = holder[c]
                if h == seat:
                    if not previous_mine:
                        cards.append(c)
                    previous_mine = True
                elif h != OUT:
                    previous_mine = False
        if len(cards) == 1:
            return cards

        rank, is_trump_card = facts.rank, facts.trump

        def low_first(c: int) -> tuple[bool, int]:
            return (is_trump_card[c], -rank[c])      # keep trumps, then keep high cards

        if led is None:
            # lead the top card in play of a suit first (it wins unless trumped), then low cards
            tops = [c for c in cards if self._is_top(c)]
            others = sorted((c for c in cards if c not in tops), key=low_first)
            return tops + others
        winners = sorted((c for c in cards if facts.beats[c][best_card]), key=low_first)
        losers = sorted((c for c in cards if not facts.beats[c][best_card]), key=low_first)
        if (best_seat in self.side) == (seat in self.side):
            return losers + winners                  # a partner is winning: play low
        return winners + losers                      # win as cheaply as possible

    def _is_top(self, card: int) -> bool:
        """Is ``card`` the highest card still in play of its effective suit?"""
        for c in self.facts.order[self.facts.suit[card]]:
            if c == card:
                return True
            if self.holder[c] != OUT:
                return False
        return False


# ---------------------------------------------------------------------------
# Input checks
# ---------------------------------------------------------------------------

def _text(card: int) -> str:
    return DECK.text(card)


def _whole(x: Any) -> int | None:
    """``x`` as a plain int if it is a whole number (a Python or numpy integer, not a
    bool), else None."""
    if isinstance(x, bool):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def _seat(x: Any, players: int) -> int | None:
    """``x`` as a seat of ``players`` if it is one (:func:`_whole`), else None."""
    seat = _whole(x)
    return seat if seat is not None and 0 <= seat < players else None


# The checks below take what the caller gave (Any: anything at all) and
# return it checked and typed, or raise InputError naming it.

def _checked(hands: Any, trump: Any, trick: Any, to_play: Any, side: Any
             ) -> tuple[list[list[int]], int, list[Play], int, frozenset[int]]:
    """Validate a position; returns ``(hands, trump, trick, to_play, side)`` as fresh
    lists of plain ints, a list of Play and a frozenset.  Raises InputError.

    In order: the trump option, the hands, the current trick (its plays in
    turn and following suit), the seat to play, the hands' sizes, the side."""
    option = _whole(trump)
    if option is None or not 0 <= option <= NO_TRUMP:
        raise InputError(f"bad trump option {trump!r}: expected 0-3 (C D H S) or 4 (no trump)")
    where: dict[int, str] = {}            # card id -> where it was given: each card once
    held = _checked_hands(hands, where)
    plays = _checked_trick(trick, held, option, where)
    seat = _checked_to_play(to_play, plays, len(held))
    _check_sizes(held, plays, seat)
    return held, option, plays, seat, _checked_side(side, len(held))


def _card_id(c: Any, place: str, where: dict[int, str]) -> int:
    """``c`` as a card id seen in ``place``, once only over ``where``."""
    card = _whole(c)
    if card is None or not 0 <= card < CARDS:
        raise InputError(f"bad card {c!r} in {place}: expected a card id 0..23")
    if card in where:
        raise InputError(f"{_text(card)} (card {card}) appears twice: in {where[card]} and in "
                         f"{place}")
    where[card] = place
    return card


def _checked_hands(hands: Any, where: dict[int, str]) -> list[list[int]]:
    """One list of card ids per seat that plays, 2 to 4 seats."""
    try:
        given = [list(h) for h in hands]
    except TypeError:
        raise InputError(f"bad hands {hands!r}: expected one list of card ids per seat") from None
    players = len(given)
    if not 2 <= players <= 4:
        raise InputError(f"{players} hands given: expected one per seat that plays, 2 to 4")
    return [[_card_id(c, f"seat {s}'s hand", where) for c in hand] for s, hand in enumerate(given)]


def _checked_trick(trick: Any, hands: list[list[int]], trump: int,
                   where: dict[int, str]) -> list[Play]:
    """The current trick's plays: fewer than a whole trick, by the seats in
    turn, each following the led suit if its hand could (§4)."""
    players = len(hands)
    plays: list[Play] = []
    for i, p in enumerate(trick):
        if isinstance(p, Play):
            seat, card = p.seat, p.card
        else:
            try:
                seat, card = p
            except (TypeError, ValueError):
                raise InputError(f"bad play {p!r} in the trick: "
                                 f"expected Play(seat, card)") from None
        who = _seat(seat, players)
        if who is None:
            raise InputError(f"bad seat {seat!r} in the trick: expected 0..{players - 1}")
        plays.append(Play(who, _card_id(card, f"the current trick (play {i + 1})", where)))
    if len(plays) >= players:
        raise InputError(f"the current trick has {len(plays)} plays: a complete trick is over, "
                         f"at most {players - 1} with {players} players")
    for i, p in enumerate(plays[1:], start=1):
        want = (plays[0].seat + i) % players
        if p.seat != want:
            raise InputError(f"play {i + 1} of the trick is by seat {p.seat}: "
                             f"seat {want} plays after seat {plays[i - 1].seat}")
    if plays:
        led = effective_suit(plays[0].card, trump)
        for p in plays[1:]:
            if effective_suit(p.card, trump) != led:
                held = [c for c in hands[p.seat] if effective_suit(c, trump) == led]
                if held:
                    raise InputError(
                        f"seat {p.seat} played {_text(p.card)} to the trick while holding "
                        f"{_text(held[0])}: it had to follow the led suit ({TRUMP_TEXT[led]})")
    return plays


def _checked_to_play(to_play: Any, plays: list[Play], players: int) -> int:
    """The seat to play: the one after the trick's last play."""
    seat = _seat(to_play, players)
    if seat is None:
        raise InputError(f"bad seat to play {to_play!r}: expected 0..{players - 1}")
    if plays and seat != (plays[-1].seat + 1) % players:
        raise InputError(f"seat {seat} cannot be to play: seat {(plays[-1].seat + 1) % players} "
                         f"plays after seat {plays[-1].seat}")
    return seat


def _check_sizes(hands: list[list[int]], plays: list[Play], to_play: int) -> None:
    """Every hand as large as the seat to play's, less the card of a seat that
    has played to the trick; no more than a hand's cards (§1)."""
    players = len(hands)
    left = len(hands[to_play])
    if left > (6 if players == 4 else 8):
        raise InputError(f"seat {to_play} holds {left} cards: at most {6 if players == 4 else 8} "
                         f"with {players} players")
    if plays and left == 0:
        raise InputError(f"seat {to_play} holds no card but has to play to the trick")
    played = {p.seat for p in plays}
    for seat, hand in enumerate(hands):
        want = left - 1 if seat in played else left
        if len(hand) != want:
            state = "has played to the current trick" if seat in played else "is still to play"
            raise InputError(f"seat {seat} holds {len(hand)} cards: it {state}, so it should "
                             f"hold {want} (seat {to_play}, to play, holds {left})")


def _checked_side(side: Any, players: int) -> frozenset[int]:
    """The side R as a frozenset of seats that play."""
    try:
        given = list(side)
    except TypeError:
        raise InputError(f"bad side {side!r}: expected a set of seats") from None
    seats = []
    for s in given:
        seat = _seat(s, players)
        if seat is None:
            raise InputError(f"bad seat {s!r} in the side: the seats that play are "
                             f"0..{players - 1}")
        seats.append(seat)
    return frozenset(seats)
