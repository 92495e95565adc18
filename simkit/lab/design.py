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
  (:mod:`simkit.lab.drama`).

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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from simkit.base.stats import OfSums, Quantile
from simkit.engine import Mean, Rate, Section, Statistic


def _finished(df: pd.DataFrame) -> np.ndarray:
    return np.asarray(df["finished"].to_numpy(bool))


def _decided(df: pd.DataFrame) -> np.ndarray:
    return np.asarray(df["decided"].to_numpy(bool))


def _single(df: pd.DataFrame) -> np.ndarray:
    return np.asarray(df["single"].to_numpy(bool))


def _departure(fair: float) -> OfSums:
    """The largest departure of a position's win rate from ``fair``: values are
    ``[decided, pos_1 * decided, ...]`` per game (a statistic of their sums)."""
    def of(sums: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = sums[..., 1:] / sums[..., :1]
        largest: np.ndarray = np.max(np.abs(rates - fair), axis=-1)
        return largest
    return OfSums(of)


def section(frame: Callable[[pd.DataFrame], pd.DataFrame], positions: Sequence[str],
            first: str, steps: str = "hands", unit: str = "game",
            cap: str = "the cap") -> Section:
    """The ``design`` section of a game's comparison (see the module notes).

    ``frame(df)`` makes the design frame of a batch of the game's whole-game
    records; ``positions`` names its ``pos_1 .. pos_K`` (``"seat 1 (left of
    the first dealer)"``), ``first`` the position of ``first`` (``"the first
    dealer's side"``), ``steps`` what a game's length counts, ``unit`` what a
    game is called (``"session"``) and ``cap`` what stops an unfinished one.
    """
    K = len(positions)
    fair = 1.0 / K
    per = "game" if unit == "game" else f"game ({unit})"
    pos = [f"pos_{k + 1}" for k in range(K)]

    def win_values(df: pd.DataFrame) -> np.ndarray:
        f = df["decided"].to_numpy(np.float64)
        return np.column_stack([f] + [df[c].to_numpy(np.float64) * f for c in pos])

    def share(column: str) -> Callable[[pd.DataFrame], np.ndarray]:
        return lambda df: df[column].to_numpy(np.float64)

    measures: list = [
        *(Rate(f"balance: win rate, {name}", share(c), _decided)
          for name, c in zip(positions, pos)),
        Statistic("balance: largest departure of a win rate from a fair share",
                  win_values, _departure(fair), percent=True, margin=0.01),
        Rate(f"balance: {first}'s advantage (win rate minus {fair:.0%})",
             lambda df: df["first"].to_numpy(np.float64) - fair, _decided),
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


def lead_columns(df: pd.DataFrame, steps: np.ndarray, single: np.ndarray) -> dict:
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
