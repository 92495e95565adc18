"""The measures a game designer asks of a rule variant, for every game:
balance, completion and duration, drama (and, in :mod:`simkit.lab.skill`, how
much skill decides).  Our words for what Ludii's evaluation metrics and
Browne's criteria for automated game design measure.

Each game turns a batch of its whole-game records (Pitch: money sessions)
into a *design frame*, one row per game, with these columns (the game's
``summary.py`` says how):

- ``game``: the game's number in the run; ``steps``: its length in hands
  (Shiesta: turns); ``finished``: it ended before the rules' cap;
  ``decided``: it has a result (a game that reached the cap has none; a
  Pitch session always has one, its top score);
- ``pos_1 .. pos_K``: the share of the win that went to each position (a
  seat counted from the first dealer, or from the starter; with partners,
  a side), a tie split evenly, 0 each in an unfinished game;
  ``first``: the share of the position whose edge the game reports (the
  first dealer's side, the starter);
- ``lead_changes``, ``single`` (exactly one winning side), ``comeback`` and
  ``settled_share`` (the share of the game played after the winner led for
  good; NaN unless ``single``), from the records' lead columns
  (:mod:`simkit.base.drama`).

:func:`section` makes the ``design`` table of :mod:`simkit.lab.compare` from it:

- **balance**: each position's win rate (over decided games), the largest
  departure of any of them from a fair share (``1 / K``), and the first
  position's advantage (its win rate minus the fair share);
- **completion**: games that ended before the cap; **duration**: steps per
  game, mean, median and 90th percentile;
- **drama**: lead changes per game, the comeback rate (games won by a side
  that was behind at the halfway point, among games with one winner) and
  how early the winner was settled (the share of the game played after the
  winner led for good).

Every seat deals (or starts) in turn, so over a game or a session a
position's per-hand edge cancels: the balance of whole games cannot see
it.  :func:`position` adds, to the same ``design`` table, each position's
result per hand, counted from the hand's dealer (or its first player): its
points per hand (Pitch: money too) and, in the bidding games, its share of
the contracts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from simkit.base.measures import Balance, Mean, Rate, Section, Statistic
from simkit.base.stats import Quantile


def _finished(df: pd.DataFrame) -> np.ndarray:
    return np.asarray(df["finished"].to_numpy(bool))


def _decided(df: pd.DataFrame) -> np.ndarray:
    return np.asarray(df["decided"].to_numpy(bool))


def _single(df: pd.DataFrame) -> np.ndarray:
    return np.asarray(df["single"].to_numpy(bool))


def section(frame: Callable[[pd.DataFrame], pd.DataFrame], positions: Sequence[str],
            first: str, steps: str = "hands", unit: str = "game",
            cap: str = "the cap") -> Section:
    """The ``design`` section of a game's comparison (see the module notes).

    ``frame(df)`` makes the design frame of a batch of the game's whole-game
    records; ``positions`` names its ``pos_1 .. pos_K`` (``"seat 1 (left of
    the first dealer)"``), ``first`` the position of ``first`` (``"the first
    dealer's side"``; its fair share the frame's ``fair_first``, else
    ``1 / K``), ``steps`` what a game's length counts, ``unit`` what a game is
    called (``"session"``) and ``cap`` what stops an unfinished one.  A frame
    may give each position's fair share of a game, ``fair_1 .. fair_K``
    (players who joined a money session); else each is ``1 / K``.
    """
    K = len(positions)
    per = "game" if unit == "game" else f"game ({unit})"
    pos = [f"pos_{k + 1}" for k in range(K)]

    def fairs(df: pd.DataFrame) -> np.ndarray:
        if "fair_1" in df:
            given: np.ndarray = df[[f"fair_{k + 1}" for k in range(K)]].to_numpy(np.float64)
            return given
        return np.full((len(df), K), 1.0 / K)

    def win_values(df: pd.DataFrame) -> np.ndarray:
        f = df["decided"].to_numpy(np.float64)
        return np.column_stack([f] + [df[c].to_numpy(np.float64) * f for c in pos]
                               + [fairs(df) * f[:, None]])

    def advantage(df: pd.DataFrame) -> np.ndarray:
        fair = (df["fair_first"].to_numpy(np.float64) if "fair_first" in df
                else np.full(len(df), 1.0 / K))
        out: np.ndarray = df["first"].to_numpy(np.float64) - fair
        return out

    def share(column: str) -> Callable[[pd.DataFrame], np.ndarray]:
        return lambda df: df[column].to_numpy(np.float64)

    measures: list[Any] = [
        *(Rate(f"balance: win rate, {name}", share(c), _decided)
          for name, c in zip(positions, pos)),
        Balance("balance: equal shares (G-test; effect: the largest departure of a win "
                "rate from its fair share)", win_values),
        Rate(f"balance: {first}'s advantage (win rate minus its fair share)", advantage,
             _decided),
        Rate(f"completion: {unit}s ended before {cap}", _finished),
        Mean(f"{steps} per {per}: mean", lambda df: df["steps"].to_numpy(np.float64),
             margin=0.1),
        # a quantile of whole steps moves by whole steps: within half of one, none
        Statistic(f"{steps} per {per}: median", lambda df: df["steps"].to_numpy(np.float64),
                  Quantile(0.5), margin=0.5),
        Statistic(f"{steps} per {per}: 90th percentile",
                  lambda df: df["steps"].to_numpy(np.float64), Quantile(0.9), margin=0.5),
        Mean(f"drama: lead changes per {unit}",
             lambda df: df["lead_changes"].to_numpy(np.float64), margin=0.1),
        Rate("drama: comeback rate (the winner was behind at the halfway point)",
             lambda df: df["comeback"].to_numpy(bool), _single),
        Rate("drama: share of the game played after the winner led for good",
             lambda df: df["settled_share"].to_numpy(np.float64), _single),
    ]
    return Section("design", f"The designer's measures ({{n:,}} whole {unit}s)", "game",
                   tuple(measures), view=frame)


def position(names: Sequence[str], results: Sequence[tuple[str, Callable[[pd.DataFrame],
                                                                       np.ndarray], float]],
             holder: Callable[[pd.DataFrame], np.ndarray] | None = None,
             counted: str = "hands") -> Section:
    """The ``position`` rows of the ``design`` table, from the hands' records
    (see the module notes): ``names`` the positions, counted from the hand's
    dealer; per ``(what, values, margin)`` of ``results``, ``values(df)`` gives
    each hand's result of every position as a ``(hands, positions)`` array,
    ``what`` its name and unit and ``margin`` its margin of practical
    equivalence; ``holder(df)``, each hand's position holding the contract (-1
    for none), gives each position's share of the contracts."""
    def column(values: Callable[[pd.DataFrame], np.ndarray],
               k: int) -> Callable[[pd.DataFrame], np.ndarray]:
        return lambda df: values(df)[:, k]

    def held(k: int) -> Callable[[pd.DataFrame], np.ndarray]:
        assert holder is not None
        return lambda df: holder(df) == k

    measures: list[Rate | Mean] = []
    for what, values, margin in results:
        for k, name in enumerate(names):
            measures.append(Mean(f"position: {what}, {name}", column(values, k), margin=margin))
    if holder is not None:
        for k, name in enumerate(names):
            measures.append(Rate(f"position: share of the contracts won, {name}", held(k),
                                 lambda df: holder(df) >= 0))
    return Section("position", f"position per hand ({{n:,}} {counted})", "hand",
                   tuple(measures), table="design")


def lead_columns(df: pd.DataFrame, steps: np.ndarray, single: np.ndarray) -> dict[str, Any]:
    """The design frame's drama columns from records with ``lead_changes``,
    ``comeback`` and ``settled`` (one row per game): ``settled_share`` is
    ``(steps - settled) / steps`` for games with one winner, else NaN."""
    settled = df["settled"].to_numpy(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(single & (steps > 0), (steps - settled) / steps, np.nan)
    return {"lead_changes": df["lead_changes"].to_numpy(np.int64), "single": single,
            "comeback": df["comeback"].to_numpy(bool) & single, "settled_share": share}


def shares(winners: np.ndarray, sides: int) -> np.ndarray:
    """Each side's share of the win, ``(games, sides)``, from a bitmask of the
    winning sides per game (a tie split evenly; 0 for a game nobody won)."""
    bits = (winners[:, None] >> np.arange(sides)) & 1
    count = bits.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, bits / np.maximum(count, 1), 0.0)
