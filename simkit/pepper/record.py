"""Pepper hand records (seeds/pepper.md 11): the game's lines of a ``simkit
show`` / ``simkit replay`` record (the shared header: :mod:`simkit.record`).

The lines are the reference engine's text log (:func:`reference.format_log`)
without its own title and rules line, which the shared header carries:
the dealer, each seat's cards and the dead hand, the auction, the contract
and trump, every trick with its winner, and the results.
"""

from __future__ import annotations

from typing import Sequence

from simkit.pepper import reference as R
from simkit.pepper.rules import DECK, PepperRules
from simkit.policy import Policy

UNIT = "hand"
#: The text log's lines the shared header replaces.
_OWN_HEAD = 2


def play(rules: PepperRules, policies: Sequence[Policy], seed: int, index: int) -> R.HandLog:
    """Hand ``index`` of a run, as ``simkit simulate pepper`` plays it (§1)."""
    return R.simulate_hand(rules, policies, seed, index)


def body(log: R.HandLog) -> list[str]:
    """The record's lines after the shared header."""
    return R.format_log(log).splitlines()[_OWN_HEAD:]


def _text(lines: Sequence[str], rules: PepperRules) -> str:
    """The reference's text log: the header's rules, then the lines."""
    return "\n".join([R.rules_line(rules), *lines]) + "\n"


def replay(lines: Sequence[str], rules: PepperRules, policies: Sequence[Policy] | None,
           seed: int, index: int) -> R.HandLog:
    """Replay the lines under ``rules`` (:func:`reference.replay`): every call,
    the trump and every card checked, the results stated checked, and with
    ``policies`` the decisions the lines leave out made by them."""
    return R.replay(_text(lines, rules), policies, seed, index)


def deal(lines: Sequence[str], rules: PepperRules) -> tuple[int, list[str]]:
    """The dealer and each seat's cards (as text) as the lines give them, for
    ``advise --from``: the deal is checked, nothing is replayed."""
    _, dealer, hands, _ = R.read_deal(_text(lines, rules))
    return dealer, [DECK.format_hand(h) for h in hands]
