"""What a game's records are measured by: a tournament's measure of a unit
(:class:`Measure`) and the measures ``simkit compare`` reports (a game's
``measures(rules)``: :class:`Section`\\ s of :class:`Rate`, :class:`Mean`,
:class:`Statistic`, :class:`Balance` and :class:`BidShares`).  Declarations
only: they know no game, and :mod:`simkit.lab.compare` reads them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Measure:
    """What a tournament (:mod:`simkit.tournament`) compares policies by, for
    one unit: ``name`` (``"points"``, ``"wins"``), ``units`` as a reader says
    it (``"points per hand"``) and ``values(df, rules, start, count, slots)``,
    the ``(count, slots)`` array of what each policy slot got in each unit
    ``start ..`` of the records ``df`` (a slot is a seat, or for Pitch
    sessions an arriving player's place in the policy list), which need hold
    only the schema's columns named in ``reads``."""

    name: str
    units: str
    values: Callable[..., Any]
    reads: tuple[str, ...]


def seat_measure(name: str, units: str, column: str,
                 side_of: Callable[..., Any] | None = None) -> Measure:
    """A :class:`Measure` read from one column per seat or side: ``column`` names
    it with ``{seat}`` or ``{side}``/``{team}`` (then ``side_of(rules, seat)``
    gives a seat's side)."""

    def values(df: pd.DataFrame, rules: Any, start: int, count: int,
               slots: int) -> np.ndarray:
        out = np.empty((count, slots), np.float64)
        for s in range(slots):
            side = s if side_of is None else side_of(rules, s)
            out[:, s] = df[column.format(seat=side, side=side, team=side)].to_numpy()
        return out
    return Measure(name, units, values, (column,))


def winner_measure(units: str, column: str, side_of: Callable[..., Any] | None = None,
                   shared: str | None = None) -> Measure:
    """``wins``: 1 to every seat of the side in ``column`` (-1: none won), and
    half to every seat when the bool column ``shared`` says all sides tied."""

    def values(df: pd.DataFrame, rules: Any, start: int, count: int,
               slots: int) -> np.ndarray:
        won = df[column].to_numpy()
        half = 0.5 * df[shared].to_numpy() if shared else 0.0
        out = np.empty((count, slots), np.float64)
        for s in range(slots):
            out[:, s] = (won == (s if side_of is None else side_of(rules, s))) + half
        return out
    return Measure("wins", units, values, (column, shared) if shared else (column,))


# --- what simkit compare compares (a spec's measures) --------------------------------

#: The margin of practical equivalence of a rate or share: a difference within
#: one point of it is "no change" once a test places it there
#: (:mod:`simkit.lab.findings`).
RATE_MARGIN = 0.01


@dataclass(frozen=True)
class Rate:
    """The share of counted rows where ``hit(df)`` is true (``of(df)``: which rows
    count; default every row); ``margin`` is the difference within which the
    rate is practically unchanged (:mod:`simkit.lab.findings`)."""

    metric: str
    hit: Callable[[pd.DataFrame], np.ndarray]
    of: Callable[[pd.DataFrame], np.ndarray] | None = None
    margin: float | None = RATE_MARGIN


@dataclass(frozen=True)
class Mean:
    """The mean of ``value(df)`` over the counted rows (``of(df)``, default all);
    ``margin``, in the measure's own unit, is the difference within which it
    is practically unchanged (None: never said to be)."""

    metric: str
    value: Callable[[pd.DataFrame], np.ndarray]
    of: Callable[[pd.DataFrame], np.ndarray] | None = None
    margin: float | None = None


@dataclass(frozen=True)
class BidShares:
    """Per contract level: its share of the hands (level 0: thrown in) and how
    often it is made; ``margin`` is that of both (a rate's)."""

    levels: int                      # levels 0 .. levels-1
    text: Callable[[int], str]       # a level's name ("3", "kubwa")
    margin: float = RATE_MARGIN


@dataclass(frozen=True)
class Statistic:
    """A statistic of the units that is not a ratio of sums (a median, the
    largest departure of several rates from a fair share): ``values(df)``
    gives each unit's values (one column, or several as a 2-D array, from a
    section's view with one row per unit), ``stat(x, axis)`` reduces them
    along the unit axis ``axis``; ``percent`` says whether it reads as a
    percentage, ``margin`` is as a :class:`Mean`'s.  Compared by a paired bootstrap
    (:func:`simkit.base.stats.paired_bootstrap`)."""

    metric: str
    values: Callable[[pd.DataFrame], np.ndarray]
    stat: Callable[..., Any]
    percent: bool = False
    margin: float | None = None


@dataclass(frozen=True)
class Balance:
    """Whether the positions win their fair shares, for each variant on its
    own: a G-test of the positions' wins against their fair shares, with the
    largest departure of a position's win rate from its fair share,
    bias-corrected, as its effect size (:func:`simkit.base.stats.equal_shares`).
    ``values(df)`` gives per unit ``[decided, the win share of positions 1..K,
    their fair shares 1..K]`` (0 for a game nobody won).  Not a paired
    difference: the positions' win rates are compared pair by pair in their
    own rows."""

    metric: str
    values: Callable[[pd.DataFrame], np.ndarray]


@dataclass(frozen=True)
class Section:
    """One part of the comparison, fed by the run of ``unit``s; ``heading`` may
    use ``{n}``, the number of units per variant.  ``view(df)``, if given,
    turns each batch of records into the frame the measures read, one row
    per unit (the designer's measures: :mod:`simkit.design`).  Its rows
    go into the table ``table`` (default: its own ``name``), which may hold
    several sections (the designer's measures of whole games and of single
    hands)."""

    name: str
    heading: str
    unit: str
    measures: tuple[Any, ...]
    view: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    table: str | None = None

    @property
    def shown_in(self) -> str:
        """The table this section's rows go into."""
        return self.table or self.name
