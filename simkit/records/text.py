"""The ``key: value`` lines of text records (seeds/records.md) and the readers
of their values: one reader for the shared header and every game's own lines,
one rule for whole numbers, seats and ranges.  It imports nothing of simkit
but the errors, so the reference engines may use it.

Every reader raises an :class:`InputError` of one line that names the value
and what would be accepted:

>>> whole("12", "turn", 1)
12
>>> whole("1.5", "turn", 1)
Traceback (most recent call last):
...
simkit.base.errors.InputError: bad turn '1.5': expected a whole number of at least 1
>>> (seat_number("seat 2", 4, "dealer"), seat_number("3", 4, "dealer"),
...  seat_or_nobody("-", 4, "pitcher"))
(2, 3, -1)
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from simkit.base.errors import InputError

#: How a record writes "nobody" where a seat could stand (a thrown-in hand's
#: pitcher, an unfinished game's winner).
NOBODY = ("-", "none")

# at most 30 digits: every seed and score is far shorter, and Python refuses to read
# more than 4,300
_WHOLE = re.compile(r"[+-]?[0-9]{1,30}")
#: One seat in a list of seats: ``2`` or ``seat 2``.
_SEAT_ITEM = re.compile(r"(?:seat\s+)?\S+", re.IGNORECASE)


def key_values(lines: Iterable[str]) -> list[tuple[str, str, str]]:
    """Each line that is not blank or a ``#`` comment as ``(key, value, line)``:
    the key lower case with its spaces collapsed (``"Trick  3"`` is ``"trick
    3"``), the value and the line stripped.  A line without ``:`` or with an
    empty key is an InputError naming it.

    >>> key_values(["# a comment", "", "Trick  3 : 0:JH 1:9H"])
    [('trick 3', '0:JH 1:9H', 'Trick  3 : 0:JH 1:9H')]
    """
    out = []
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key = " ".join(key.lower().split())
        if not sep or not key:
            raise InputError(f"bad record line {line!r}: expected 'key: value'")
        out.append((key, value.strip(), line))
    return out


def _accepted(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"a whole number from {lo} to {hi}"
    if lo is not None:
        return f"a whole number of at least {lo}"
    if hi is not None:
        return f"a whole number of at most {hi}"
    return "a whole number"


def whole(text: str, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """A whole number written in ASCII digits with an optional sign, from ``lo``
    to ``hi`` (either may be None: no bound); ``what`` names it in the error.

    >>> whole("+3", "score"), whole("-0", "score")
    (3, 0)
    """
    t = text.strip()
    value = int(t) if _WHOLE.fullmatch(t) else None
    if value is None or (lo is not None and value < lo) or (hi is not None and value > hi):
        raise InputError(f"bad {what} {t!r}: expected {_accepted(lo, hi)}")
    return value


def seat_number(text: str, players: int, what: str = "seat") -> int:
    """A seat of a table of ``players``, written ``2`` or ``seat 2`` (any case).

    >>> seat_number("Seat 1", 3)
    1
    """
    t = text.strip()
    words = t.split()
    number = words[1] if len(words) == 2 and words[0].lower() == "seat" else t
    try:
        return whole(number, what, 0, players - 1)
    except InputError:
        raise InputError(f"bad {what} {t!r}: expected a seat from 0 to {players - 1} "
                         f"(written 2 or 'seat 2')") from None


def seat_or_nobody(text: str, players: int, what: str = "seat") -> int:
    """A seat (:func:`seat_number`), or ``-`` or ``none`` for nobody: -1."""
    if text.strip().lower() in NOBODY:
        return -1
    try:
        return seat_number(text, players, what)
    except InputError:
        raise InputError(f"bad {what} {text.strip()!r}: expected a seat from 0 to "
                         f"{players - 1} (written 2 or 'seat 2'), or - for nobody") from None


def seat_list(text: str, players: int, what: str = "seats") -> list[int]:
    """Seats separated by spaces (each :func:`seat_number`), or ``-`` or ``none`` for nobody.

    >>> seat_list("0 seat 2", 4), seat_list("none", 4)
    ([0, 2], [])
    """
    if text.strip().lower() in NOBODY:
        return []
    return [seat_number(item, players, what) for item in _SEAT_ITEM.findall(text)]


def numbers(text: str, n: int, what: str, lo: int | None = None,
            hi: int | None = None) -> list[int]:
    """``n`` whole numbers separated by spaces, each from ``lo`` to ``hi``
    (:func:`whole`): one per seat, or per side.

    >>> numbers("+3 -2 0", 3, "score by seat")
    [3, -2, 0]
    """
    items = text.split()
    if len(items) != n:
        raise InputError(f"bad {what} {text.strip()!r}: expected {n} whole numbers "
                         f"({_accepted(lo, hi)} each)")
    return [whole(item, what, lo, hi) for item in items]


def yes_no(text: str, what: str) -> bool:
    """``yes`` (True) or ``no`` (False), any case."""
    t = text.strip().lower()
    if t not in ("yes", "no"):
        raise InputError(f"bad {what} {text.strip()!r}: expected yes or no")
    return t == "yes"
