"""Shiesta, the reference players: the policies of ``seeds/shiesta.md`` §6 as
executable Python.

The reference game (``reference.py``) asks a decider for every decision: each
seat's exchange (§4.2), how many cards of the forced opening rank it plays
(§4.3) and its plays (§4.4).  :class:`Decider` here answers by each seat's
policy: ``random`` (§6.1) and the parameterised ``heuristic`` (§6.2).  Like
the game, this is written to be read; the kernel (``kernel.py``) must agree
with it move for move, random draws included.  It reads the rules
(``rules.py``, ``policies.py``), never the game, so that the game can import it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from math import comb
from typing import Protocol

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.policy import Policy
from simkit.shiesta.policies import (
    POLICIES,
    Exchange,
    HeuristicParams,
    PolicyName,
    Sets,
    make_policies,
)
from simkit.shiesta.rules import REGULAR, ROW, TEN, THREE, TWO, ShiestaRules

#: The exchange's strength order, weakest first (§6): 4 5 6 7 8 9 J Q K A 3 2 10.
STRENGTH_ORDER = (*REGULAR, THREE, TWO, TEN)
STRENGTH = {rank: k for k, rank in enumerate(STRENGTH_ORDER)}



@cache
def subsets(m: int, size: int = ROW) -> tuple[tuple[int, ...], ...]:
    """Every ``size``-subset of positions ``0 .. m-1`` in lexicographic order (§6.1):
    ``(0, 1, 2), (0, 1, 3), ...``.  Built by hand, not by itertools, to read
    as the rule book does: a subset's first position, then the rest after it."""
    def from_(start: int, k: int) -> Iterator[tuple[int, ...]]:
        if k == 0:
            yield ()
            return
        for first in range(start, m - k + 1):
            for rest in from_(first + 1, k - 1):
                yield (first, *rest)
    return tuple(from_(0, size))


def random_exchange(cards: Sequence[int], draw: int) -> tuple[list[int], list[int]]:
    """(face up, hand) of the random exchange (§6.1): the cards sorted by rank,
    the ``draw``-th 3-subset of their positions goes face up."""
    cards = sorted(cards)
    chosen = subsets(len(cards))[draw]
    up = [cards[p] for p in chosen]
    hand = [cards[p] for p in range(len(cards)) if p not in chosen]
    return up, hand


def heuristic_exchange(cards: Sequence[int], how: Exchange) -> tuple[list[int], list[int]]:
    """(face up, hand) of the heuristic exchange (§6.2): ``up`` puts the three
    strongest face up, ``keep`` the three weakest (strength order of §6)."""
    by_strength = sorted(cards, key=lambda r: STRENGTH[r])
    if how == Exchange.UP:
        up, hand = by_strength[-ROW:], by_strength[:-ROW]
    else:
        up, hand = by_strength[:ROW], by_strength[ROW:]
    return sorted(up), sorted(hand)


def play_options(counts: Sequence[int], legal: Sequence[int]) -> list[tuple[int, int]]:
    """The random policy's options (§6.1): (rank, count) for every legal rank
    increasing and every count from 1 to the number held."""
    return [(r, k) for r in legal for k in range(1, counts[r] + 1)]


def special_count(rank: int, counts: Sequence[int], sets: Sets, draw_empty: bool) -> int:
    """How many cards of a special ``rank`` the heuristic plays (§6.2, the
    ``special_sets`` / ``three_sets`` option ``sets``): all it holds with
    ``all``, or with ``dry`` once the draw pile is empty; else one."""
    if sets == Sets.ALL or (sets == Sets.DRY and draw_empty):
        return counts[rank]
    return 1


def heuristic_play(params: HeuristicParams, counts: Sequence[int], legal: Sequence[int],
                   pile_size: int, next_cards: int,
                   draw_empty: bool = False) -> tuple[int, int] | None:
    """The heuristic's turn (§6.2, rules 2-6; rule 1, the opening, is
    :meth:`Decider.opening`): (rank, count), or None to pick up.
    ``draw_empty``: the draw pile is empty (for the sets of specials)."""
    def threes() -> tuple[int, int]:
        return THREE, special_count(THREE, counts, params.three_sets, draw_empty)

    def others(rank: int) -> tuple[int, int]:                          # a 2 or a 10
        return rank, special_count(rank, counts, params.special_sets, draw_empty)

    if THREE in legal and next_cards <= params.three_at:                # rule 2
        return threes()
    if TEN in legal and params.burn_at > 0 and pile_size >= params.burn_at:   # rule 3
        return others(TEN)
    if params.save_specials:
        regular = [r for r in legal if r in REGULAR]                    # rule 4
        if regular:
            return regular[0], counts[regular[0]]
        if (THREE in legal and pile_size >= params.stuck_three_pile     # rule 5
                and next_cards <= params.stuck_three_next):
            return threes()
        if TWO in legal:
            return others(TWO)
        if TEN in legal:
            return others(TEN)
        if THREE in legal:
            return threes()
    elif legal:                                                         # rule 4, every rank
        return legal[0], counts[legal[0]]
    return None                                                         # rule 6


class Decides(Protocol):
    """What the game asks of a decider: :class:`Decider` (the policies), a
    record's replay (``record.py``) and the viewer's walk through a log."""

    def exchange(self, seat: int, cards: Sequence[int]) -> tuple[list[int], list[int]]: ...

    def opening(self, seat: int, held: int) -> int: ...

    def play(self, seat: int, counts: Sequence[int], legal: Sequence[int], pile_size: int,
             next_cards: int, draw_empty: bool = False) -> tuple[int, int] | None: ...


class Decider:
    """Decisions by each seat's policy (§6).

    ``random`` draws one ``stream.below(n)`` per decision, in decision order
    (also when there is a single option); ``heuristic`` never draws.  A
    pickup with no legal set, a forced pickup and a face-down card are no
    decisions: they never reach this class.
    """

    def __init__(self, rules: ShiestaRules, policies: Sequence[Policy | str],
                 stream: Stream) -> None:
        policies = make_policies(list(policies), rules.players)   # specs or Policy objects
        for p in policies:
            if p.name not in POLICIES:
                raise InputError(f"unknown Shiesta policy {p.name!r}: "
                                 f"expected random or heuristic")
        self.rules, self.policies, self.stream = rules, tuple(policies), stream

    def _random(self, seat: int) -> bool:
        return self.policies[seat].name == PolicyName.RANDOM

    def _heuristic(self, seat: int) -> HeuristicParams:
        """The seat's heuristic parameters (a seat that is not ``random``)."""
        params = self.policies[seat].params
        assert isinstance(params, HeuristicParams), params
        return params

    def exchange(self, seat: int, cards: Sequence[int]) -> tuple[list[int], list[int]]:
        """(face up, hand) from the seat's hand and face-up row together (§4.2)."""
        if self._random(seat):
            return random_exchange(cards, self.stream.below(comb(len(cards), ROW)))
        return heuristic_exchange(cards, self._heuristic(seat).exchange)

    def opening(self, seat: int, held: int) -> int:
        """How many cards of the forced opening rank to play, of ``held`` (§4.3)."""
        if self._random(seat):
            return self.stream.below(held) + 1
        return held                                                     # rule 1

    def play(self, seat: int, counts: Sequence[int], legal: Sequence[int], pile_size: int,
             next_cards: int, draw_empty: bool = False) -> tuple[int, int] | None:
        """(rank, count) to play from ``counts``, or None to pick up the pile."""
        if self._random(seat):
            options = play_options(counts, legal)
            if not options:
                return None
            return options[self.stream.below(len(options))]
        return heuristic_play(self._heuristic(seat), counts=counts, legal=legal,
                              pile_size=pile_size, next_cards=next_cards, draw_empty=draw_empty)
