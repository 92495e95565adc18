"""The short table ``simkit simulate shiesta`` prints at the end of a run, and
what ``simkit compare shiesta`` compares.

Built chunk by chunk from counts and sums (:class:`simkit.engine.Summary`),
so it never holds the whole run.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from simkit import design
from simkit.base import stats
from simkit.base.measures import Mean, Rate, Section
from simkit.engine import Summary
from simkit.shiesta.rules import ShiestaRules


class GameSummary(Summary):
    """Wins by seat relative to the starter, turns and unfinished games."""

    def part(self, df: pd.DataFrame) -> pd.DataFrame:
        N = self.rules.players
        wins = [int((df["winner_seat"] == k).sum()) for k in range(N)]
        return pd.DataFrame([{
            "games": len(df), "unfinished": int(df["unfinished"].sum()),
            "turns": int(df["turns"].sum()),
            "turns_sq": int((df["turns"].astype("int64") ** 2).sum()),
            **{f"win_{k}": w for k, w in enumerate(wins)}}])

    def text(self) -> str:
        t = self.total().iloc[0]
        n = int(t["games"])
        lines = [f"{'seat':<22}{'games':>10}   win rate [95% CI]"]
        for k in range(self.rules.players):
            w = int(t[f"win_{k}"])
            lo, hi = stats.proportion_ci(w, n)
            name = seat_name(k)
            estimate = stats.format_estimate(w / n, lo, hi, n)
            assert isinstance(estimate, str)                # one estimate: one text
            lines.append(f"{name:<22}{n:>10,}   " + estimate.split(" (")[0])
        mean, lo, hi = stats.mean_ci(n, t["turns"], t["turns_sq"])
        u = int(t["unfinished"])
        ulo, uhi = stats.proportion_ci(u, n)
        lines.append(f"turns per game {mean:.1f} (95% CI {lo:.1f}-{hi:.1f}); unfinished "
                     f"{u:,} ({u / n:.3%}, 95% CI {ulo:.3%}-{uhi:.3%}) at the "
                     f"{self.rules.max_turns}-turn cap")
        return "\n".join(lines)


def seat_name(k: int) -> str:
    """A seat counted from the game's starter, in words."""
    return "the starter" if k == 0 else f"{k} left of the starter"


def _won_by(k: int) -> Callable[[pd.DataFrame], np.ndarray]:
    """Which games seat ``k`` counted from the starter won."""
    return lambda df: df["winner_seat"].to_numpy() == k


def measures(rules: ShiestaRules) -> list[Section]:
    """What ``simkit compare shiesta`` compares (:mod:`simkit.lab.compare`): each
    seat's win rate counted from the starter, game length, unfinished games."""
    return [Section("games", "Games ({n:,} whole games)", "game", (
        *(Rate(f"win rate, {seat_name(k)}", _won_by(k)) for k in range(rules.players)),
        Mean("turns per game", lambda df: df["turns"].to_numpy(), margin=0.1),
        Mean("pickups per game", lambda df: df[[c for c in df.columns
                                                if c.startswith("pickups_")]].sum(axis=1)
                                        .to_numpy(),
             margin=0.1),
        Rate("unfinished games", lambda df: df["unfinished"].to_numpy()))),
        _design(rules)]


def _design(rules: ShiestaRules) -> Section:
    """The designer's measures (:mod:`simkit.design`): every seat counted from
    the starter, the starter's edge; lengths in turns."""
    P = rules.players

    def frame(df: pd.DataFrame) -> pd.DataFrame:
        seat = df["winner_seat"].to_numpy(np.int64)
        finished = ~df["unfinished"].to_numpy(bool)
        pos = {f"pos_{k + 1}": (seat == k).astype(np.float64) for k in range(P)}
        steps = df["turns"].to_numpy(np.int64)
        return pd.DataFrame({"game": df["game"].to_numpy(), "steps": steps, "finished": finished,
                             "decided": finished,
                             **pos, "first": pos["pos_1"],
                             **design.lead_columns(df, steps, finished)})

    return design.section(frame, [seat_name(k) for k in range(P)], "the starter",
                          steps="turns", cap="max_turns")
