"""The moves of the trick games' reference engines, as small frozen records.

Pepper and Pitch log a hand as its auction (:class:`Bid`: a seat's call)
and its play (:class:`Play`: a card a seat put on the table); what a log of
them says is read here once.  The numba kernels never import this module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Bid:
    """One call of the auction: ``level`` 0 is a pass."""

    seat: int
    level: int


@dataclass(frozen=True)
class Play:
    """One card put on the table by ``seat``."""

    seat: int
    card: int


class AtTable:
    """A log of one hand that holds its ``rules``: its players are theirs."""

    rules: Any

    @property
    def players(self) -> int:
        return int(self.rules.players)


def winning_play(trick: Sequence[Play], beats: Callable[[int, int], bool]) -> Play:
    """The play winning a (possibly unfinished) trick so far: scanned in play
    order, a card takes the lead from the best so far when ``beats(card,
    best)`` (each game's ranking says when).

    >>> winning_play([Play(0, 3), Play(1, 9), Play(2, 5)], lambda a, b: a > b).seat
    1
    """
    best = trick[0]
    for p in trick[1:]:
        if beats(p.card, best.card):
            best = p
    return best


def highest_calls(auction: Sequence[Bid], players: int) -> list[int]:
    """The highest level each seat called (0 if it only passed or did not speak).

    >>> highest_calls([Bid(1, 2), Bid(2, 0), Bid(1, 3)], 3)
    [0, 3, 0]
    """
    best = [0] * players
    for b in auction:
        best[b.seat] = max(best[b.seat], b.level)
    return best


def tricks_of(plays: Sequence[Play], players: int) -> list[list[Play]]:
    """The plays of a hand cut into tricks of ``players`` cards (the last may be
    unfinished).

    >>> [[p.card for p in t] for t in tricks_of([Play(0, 5), Play(1, 7), Play(1, 2)], 2)]
    [[5, 7], [2]]
    """
    return [list(plays[i:i + players]) for i in range(0, len(plays), players)]
