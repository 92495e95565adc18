"""Who led a game, hand by hand: lead changes, comebacks, and when the winner
was settled.  The readable definitions, which the reference engines call;
the kernels compute the same with their own code (:mod:`simkit.base.lead`), and
the differential tests hold the two together.

A game is a sequence of *steps* (hands; Shiesta: turns).  After step ``k``
(``k = 1 .. n``) the *top* is the set of sides with the best standing (the
highest score; Shiesta: the fewest cards held), as a bitmask; the *leader*
is the top's only side, or none while sides share the top.  Then:

- **lead changes**: the steps whose leader exists and differs from the most
  recent leader before it (the first leader of a game is no change);
- for a game with exactly one winning side ``w``:

  - **settled**: the steps played before ``w`` led for good, the smallest
    ``s`` such that ``w`` is the leader after every step ``s+1 .. n``
    (``n`` if ``w`` does not lead after the last step); the share of the
    game played after it, ``(n - s) / n``, is how early the game was settled;
  - **comeback**: ``w`` was not in the top at the halfway point, after step
    ``n // 2`` (so a game of one step is never a comeback);

- a game without exactly one winner (unfinished, or a shared win) has
  settled ``-1`` and no comeback.

>>> drama([0b01, 0b10, 0b10, 0b11, 0b01], winners=0b01)
Drama(lead_changes=2, comeback=True, settled=4)
>>> drama([0b01, 0b01], winners=0b11)
Drama(lead_changes=0, comeback=False, settled=-1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple


class Drama(NamedTuple):
    """One game's lead changes, comeback and settled step (see the module notes)."""

    lead_changes: int
    comeback: bool
    settled: int


def top(standings: Sequence[int], best: Callable[[Iterable[int]], int] = max,
        present: Sequence[bool] | None = None) -> int:
    """The bitmask of the sides whose standing is ``best`` (``max``: the highest
    score; ``min``: the fewest cards), among the sides ``present`` (default:
    all)."""
    sides = [s for s in range(len(standings)) if present is None or present[s]]
    value = best(standings[s] for s in sides)
    return sum(1 << s for s in sides if standings[s] == value)


def _leader(mask: int) -> int | None:
    return mask.bit_length() - 1 if mask and mask & (mask - 1) == 0 else None


def drama(tops: Sequence[int], winners: int) -> Drama:
    """The :class:`Drama` of a game from its top after each step (``tops``, one
    bitmask per step) and the bitmask of its winning sides (0: none)."""
    changes, last = 0, None
    for mask in tops:
        leader = _leader(mask)
        if leader is not None:
            changes += last is not None and leader != last
            last = leader
    w = _leader(winners)
    if w is None:
        return Drama(changes, False, -1)
    n = len(tops)
    settled = n
    while settled > 0 and _leader(tops[settled - 1]) == w:
        settled -= 1
    comeback = n >= 2 and not tops[n // 2 - 1] >> w & 1
    return Drama(changes, bool(comeback), settled)
