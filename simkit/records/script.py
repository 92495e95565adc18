"""Replaying a record's moves, the policies behind them (seeds/records.md,
"Records that stop early"): what every game's scripted decider shares.

A record's replay makes the record's moves in order; where the record stops,
the policies given (if any) go on.  The policies are asked at every
decision, the recorded ones too (their answer then dropped), so that the
random draws they make keep their stream where the run had it: a run's unit
cut anywhere and played out by the run's policies comes out as the run
played it.  Without policies a record that stops early is an error of one
line, and a recorded move left over when the unit is over is another.

Each game's ``record.py`` builds its scripted decider, in the interface of
its reference engine's policy decider, on :class:`Script`: one script per
kind of recorded move (Pepper's calls, trump and cards; Shiesta's and
Burraco's turns).  This module imports nothing of simkit but the errors.

>>> calls = Script(["2", "pass"], None)
>>> calls.take(lambda policies: policies.bid(), "at call 1")
(True, '2')
>>> calls.take(lambda policies: policies.bid(), "at call 2")
(True, 'pass')
>>> calls.take(lambda policies: policies.bid(), "at call 3")
Traceback (most recent call last):
...
simkit.base.errors.InputError: the record stops at call 3: give --policy to play it out
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from simkit.base.errors import InputError

M = TypeVar("M")


def stops(where: str) -> InputError:
    """The error of a record that stops ``where`` (``at trick 4, seat 2 to
    play``) with no policies to play it out."""
    return InputError(f"the record stops {where}: give --policy to play it out")


class Script(Generic[M]):
    """Recorded moves of one kind taken in order, and the policies behind them.

    ``moves`` are the record's moves, in the order made; ``policies`` the
    policy decider of the game's reference engine (or None), drawing from the
    record's stream.  :attr:`taken` counts the moves made so far.
    """

    # policies: the game's reference decider, a class of its own in each game
    def __init__(self, moves: Iterable[M], policies: Any = None) -> None:
        self.moves: list[M] = list(moves)
        self.policies = policies
        self.taken = 0

    @property
    def live(self) -> bool:
        """Are there policies to make the moves the record leaves out?"""
        return self.policies is not None

    def left(self) -> bool:
        """Is a recorded move left?"""
        return self.taken < len(self.moves)

    def ask(self, question: Callable[..., Any]) -> Any:
        """``question(policies)``: the policies' answer at a decision, or None
        without policies.  Asked at every decision, recorded or not, so that
        their random draws stay in step with the run's."""
        return None if self.policies is None else question(self.policies)

    def rest(self, where: str) -> Any:
        """The policies, to make what the record leaves out ``where``; without
        them, the error that the record stops there."""
        if self.policies is None:
            raise stops(where)
        return self.policies

    def next(self, where: str) -> M | None:
        """The next recorded move; None when the record has run out and the
        policies go on (:meth:`rest`: an error without them)."""
        if self.taken < len(self.moves):
            self.taken += 1
            return self.moves[self.taken - 1]
        self.rest(where)
        return None

    def take(self, question: Callable[..., Any], where: str) -> tuple[bool, Any]:
        """A decision: ``(True, move)``, the next recorded move, or ``(False,
        answer)``, the policies' answer once the record has run out (the error
        of :meth:`rest` without policies).  The policies are asked either way
        (:meth:`ask`)."""
        answer = self.ask(question)
        move = self.next(where)
        return (False, answer) if move is None else (True, move)

    def done(self, message: Callable[[M], str]) -> None:
        """The unit is over: a recorded move left is an error, ``message(move)``."""
        if self.taken < len(self.moves):
            raise InputError(message(self.moves[self.taken]))
