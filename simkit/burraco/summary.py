"""The short tables ``simkit simulate burraco`` prints at the end of a run, and
what ``simkit compare burraco`` compares.

Built chunk by chunk from counts and sums (:class:`simkit.engine.Summary`),
so they never hold the whole run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from simkit import design
from simkit.base import stats
from simkit.base.measures import Mean, Rate, Section
from simkit.engine import Summary

if TYPE_CHECKING:
    from simkit.burraco.rules import BurracoRules

ENDED = ("closed", "stock", "cap")


class HandSummary(Summary):
    """Per team: score per hand, clean and dirty burracos, sets and sequences;
    how hands end."""

    def part(self, df: pd.DataFrame) -> pd.DataFrame:
        row = {"n": len(df)}
        for t in range(2):
            x = df[f"score_{t}"].astype("int64")
            row[f"s{t}"], row[f"q{t}"] = int(x.sum()), int((x * x).sum())
            row[f"clean{t}"] = int(df[f"clean_burraco_{t}"].sum())
            row[f"dirty{t}"] = int(df[f"dirty_burraco_{t}"].sum())
            row[f"sets{t}"] = int(df[f"sets_{t}"].sum())
            row[f"sequences{t}"] = int(df[f"sequences_{t}"].sum())
        for e in ENDED:
            row[e] = int((df["ended"] == e).sum())
        return pd.DataFrame([row])

    def text(self) -> str:
        t = self.total().iloc[0]
        n = int(t["n"])
        lines = [f"{'team':<6}{'hands':>10}   {'score per hand [95% CI]':<28}"
                 f"{'clean':>8}{'dirty':>8}  (burracos per hand)"]
        for k in range(2):
            m, lo, hi = stats.mean_ci(n, t[f"s{k}"], t[f"q{k}"])
            lines.append(f"{k:<6}{n:>10,}   {m:8.1f} [{lo:.1f}, {hi:.1f}]".ljust(47)
                         + f"{t[f'clean{k}'] / n:>8.3f}{t[f'dirty{k}'] / n:>8.3f}")
        melds = []
        for k in range(2):
            sets, seqs = int(t[f"sets{k}"]), int(t[f"sequences{k}"])
            share = f"{seqs / (sets + seqs):.1%}" if sets + seqs else "n/a"
            melds.append(f"team {k} {sets / n:.2f} / {seqs / n:.2f} ({share} sequences)")
        lines.append("sets / sequences per hand: " + "; ".join(melds))
        ends = ", ".join(f"{e} {int(t[e]) / n:.1%}" for e in ENDED)
        lines.append(f"hands ended: {ends} (team 0 = seats 0 and 2; the seat left of "
                     f"the dealer starts)")
        return "\n".join(lines)


class GameSummary(Summary):
    """Per team: its win rate (a shared game counts half to each team, as in
    every table of simkit); hands per game, shared and unfinished games."""

    def part(self, df: pd.DataFrame) -> pd.DataFrame:
        half = 0.5 * df["shared"].to_numpy(np.float64)
        return pd.DataFrame([{
            "n": len(df), "w0": float((df["winner"] == 0).sum() + half.sum()),
            "w1": float((df["winner"] == 1).sum() + half.sum()),
            "shared": int(df["shared"].sum()),
            "unfinished": int(df["unfinished"].sum()), "hands": int(df["hands"].sum())}])

    def text(self) -> str:
        t = self.total().iloc[0]
        n = int(t["n"])
        lines = [f"{'team':<6}{'games':>10}   win rate [95% CI]"]
        for k in range(2):
            w = float(t[f"w{k}"])
            lo, hi = stats.proportion_ci(w, n)
            estimate = str(stats.format_estimate(w / n, lo, hi, n))   # one value: its text
            lines.append(f"{k:<6}{n:>10,}   " + estimate.split(" (")[0])
        lines.append(f"mean hands per game {t['hands'] / n:.2f}; shared {int(t['shared']):,} "
                     f"(half a win to each team); unfinished {int(t['unfinished']):,}")
        return "\n".join(lines)


#: The per-team columns' stems, in the order of the hand records (score parts, then
#: pozzetto turn and counts).
PARTS = ("score", "melded", "hand_penalty", "clean_burraco", "dirty_burraco",
         "burraco_bonus", "closing_bonus", "pozzetto_penalty", "pozzetto_turn", "melds",
         "sets", "sequences", "wilds")


def measures(rules: BurracoRules) -> list[Section]:
    """What ``simkit compare burraco`` compares (:mod:`simkit.lab.compare`): each
    team's score per hand and its parts (in points: the cards left in hand and
    the pozzetto penalty count negative), burracos, sets, sequences and wild
    cards melded, how hands end; games won, their length.  A shared game
    (``tie=shared``: both teams win) counts half a win to each team, as in
    every table (and in "shared games"): the two win rates and the
    unfinished games add to 100%."""

    def column(name: str) -> Callable[[pd.DataFrame], np.ndarray]:
        return lambda df: df[name].to_numpy()

    def per_team(part: str, label: str, margin: float) -> list[Mean]:
        return [Mean(f"{label}, team {t}", column(f"{part}_{t}"), margin=margin)
                for t in range(2)]

    def ended(e: str) -> Callable[[pd.DataFrame], np.ndarray]:
        return lambda df: (df["ended"] == e).to_numpy()

    hand_measures: list[Mean | Rate] = []
    # margins: 5 points a hand (a card's worth); a twentieth of a meld a hand
    for part, label, margin in (
            ("score", "score per hand", 5.0), ("melded", "melded points per hand", 5.0),
            ("hand_penalty", "points of cards left in hand per hand", 5.0),
            ("burraco_bonus", "burraco bonus points per hand", 5.0),
            ("clean_burraco", "clean burracos per hand", 0.05),
            ("dirty_burraco", "dirty burracos per hand", 0.05),
            ("pozzetto_penalty", "pozzetto penalty points per hand", 5.0),
            ("sets", "sets per hand", 0.05), ("sequences", "sequences per hand", 0.05),
            ("wilds", "wild cards melded per hand", 0.05)):
        hand_measures += per_team(part, label, margin)
    hand_measures += [Rate(f"hands ended: {e}", ended(e)) for e in ENDED]
    hand_measures.append(Mean("turns per hand", lambda df: df["turns"].to_numpy(), margin=0.1))
    return [
        Section("hands", "Hands ({n:,} per variant; team 0 = seats 0 and 2)", "hand",
                tuple(hand_measures)),
        Section("games", "Games ({n:,} whole games to the target)", "game", (
            *(Rate(f"team {t} win rate (a shared game: half to each)", _won(t))
              for t in range(2)),
            Mean("hands per game", lambda df: df["hands"].to_numpy(), margin=0.1),
            Rate("shared games", lambda df: df["shared"].to_numpy()),
            Rate("unfinished games", lambda df: df["unfinished"].to_numpy()))),
        design.section(_design_frame, ["the first dealer's team", "the other team"],
                       "the first dealer's team", cap="max_hands"),
        design.position(["the first player's team", "the dealer's team"],
                        [("points per hand", _team_points, 5.0)]),
    ]


def _won(team: int) -> Callable[[pd.DataFrame], np.ndarray]:
    """Per game, ``team``'s share of the win: 1, half of a shared game, or 0."""
    def share(df: pd.DataFrame) -> np.ndarray:
        out: np.ndarray = ((df["winner"] == team).to_numpy(np.float64)
                           + 0.5 * df["shared"].to_numpy(np.float64))
        return out
    return share


def _team_points(df: pd.DataFrame) -> np.ndarray:
    """Per hand, the score of the first player's team (the dealer's left: the
    other team than the dealer's) and of the dealer's team."""
    dealer = df["dealer"].to_numpy(np.int64)
    scores = df[["score_0", "score_1"]].to_numpy(np.float64)
    rows = np.arange(len(df))
    return np.column_stack([scores[rows, 1 - dealer % 2], scores[rows, dealer % 2]])


def _design_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The design frame (:mod:`simkit.design`): the two teams, the first
    dealer's first; lengths in hands."""
    fd = df["first_dealer"].to_numpy(np.int64)
    winner = df["winner"].to_numpy(np.int64)
    shared = df["shared"].to_numpy(bool)
    winners = np.where(winner >= 0, 1 << winner.clip(0), np.where(shared, 0b11, 0))
    share = design.shares(winners, 2)
    rows = np.arange(len(df))
    first, other = share[rows, fd % 2], share[rows, 1 - fd % 2]
    steps = df["hands"].to_numpy(np.int64)
    finished = ~df["unfinished"].to_numpy(bool)
    single = finished & (winner >= 0)
    return pd.DataFrame({"game": df["game"].to_numpy(), "steps": steps, "finished": finished,
                         "decided": finished,
                         "pos_1": first, "pos_2": other, "first": first,
                         **design.lead_columns(df, steps, single)})
