"""The short table ``simkit simulate shiesta`` prints at the end of a run.

Built chunk by chunk from counts and sums, so it never holds the whole run.
"""

from __future__ import annotations

import pandas as pd

from simkit import stats
from simkit.shiesta.rules import ShiestaRules


class Summary:
    """Accumulates wins by seat relative to the starter, turns and unfinished games."""

    def __init__(self, rules: ShiestaRules, unit: str):
        self.rules, self.unit = rules, unit
        self.parts: list[pd.DataFrame] = []

    def add(self, df: pd.DataFrame) -> None:
        N = self.rules.players
        wins = [int((df["winner_seat"] == k).sum()) for k in range(N)]
        self.parts.append(pd.DataFrame([{
            "games": len(df), "unfinished": int(df["unfinished"].sum()),
            "turns": int(df["turns"].sum()), "turns_sq": int((df["turns"].astype("int64") ** 2).sum()),
            **{f"win_{k}": w for k, w in enumerate(wins)}}]))

    def text(self) -> str:
        t = pd.concat(self.parts).sum()
        n = int(t["games"])
        lines = [f"{'seat':<22}{'games':>10}   win rate [95% CI]"]
        for k in range(self.rules.players):
            w = int(t[f"win_{k}"])
            lo, hi = stats.proportion_ci(w, n)
            name = "the starter" if k == 0 else f"{k} left of the starter"
            lines.append(f"{name:<22}{n:>10,}   " +
                         stats.format_estimate(w / n, lo, hi, n).split(" (")[0])
        mean, lo, hi = stats.mean_ci(n, t["turns"], t["turns_sq"])
        u = int(t["unfinished"])
        ulo, uhi = stats.proportion_ci(u, n)
        lines.append(f"turns per game {mean:.1f} (95% CI {lo:.1f}-{hi:.1f}); unfinished "
                     f"{u:,} ({u / n:.3%}, 95% CI {ulo:.3%}-{uhi:.3%}) at the "
                     f"{self.rules.max_turns}-turn cap")
        return "\n".join(lines)
