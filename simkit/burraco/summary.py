"""The short table ``simkit simulate burraco`` prints at the end of a run.

Built chunk by chunk from counts and sums, so it never holds the whole run.
"""

from __future__ import annotations

import pandas as pd

from simkit import stats
from simkit.burraco.rules import BurracoRules


class Summary:
    """Accumulates per-team hand scores and how hands end (hands), or wins (games)."""

    def __init__(self, rules: BurracoRules, unit: str):
        self.rules, self.unit = rules, unit
        self.parts: list[pd.DataFrame] = []

    def add(self, df: pd.DataFrame) -> None:
        if self.unit == "hand":
            row = {"n": len(df)}
            for t in range(2):
                x = df[f"score_{t}"].astype("int64")
                row[f"s{t}"], row[f"q{t}"] = int(x.sum()), int((x * x).sum())
                row[f"clean{t}"] = int(df[f"clean_burraco_{t}"].sum())
                row[f"dirty{t}"] = int(df[f"dirty_burraco_{t}"].sum())
            for e in ("closed", "stock", "cap"):
                row[e] = int((df["ended"] == e).sum())
        else:
            row = {"n": len(df), "w0": int((df["winner"] == 0).sum()),
                   "w1": int((df["winner"] == 1).sum()), "shared": int(df["shared"].sum()),
                   "unfinished": int(df["unfinished"].sum()), "hands": int(df["hands"].sum())}
        self.parts.append(pd.DataFrame([row]))

    def text(self) -> str:
        t = pd.concat(self.parts).sum()
        n = int(t["n"])
        if self.unit == "hand":
            lines = [f"{'team':<6}{'hands':>10}   {'score per hand [95% CI]':<28}"
                     f"{'clean':>8}{'dirty':>8}  (burracos per hand)"]
            for k in range(2):
                m, lo, hi = stats.mean_ci(n, t[f"s{k}"], t[f"q{k}"])
                lines.append(f"{k:<6}{n:>10,}   {m:8.1f} [{lo:.1f}, {hi:.1f}]".ljust(47)
                             + f"{t[f'clean{k}'] / n:>8.3f}{t[f'dirty{k}'] / n:>8.3f}")
            ends = ", ".join(f"{e} {int(t[e]) / n:.1%}" for e in ("closed", "stock", "cap"))
            lines.append(f"hands ended: {ends} (team 0 = seats 0 and 2; the seat left of "
                         f"the dealer starts)")
            return "\n".join(lines)
        lines = [f"{'team':<6}{'games':>10}   win rate [95% CI]"]
        for k in range(2):
            w = int(t[f"w{k}"])
            lo, hi = stats.proportion_ci(w, n)
            lines.append(f"{k:<6}{n:>10,}   " +
                         stats.format_estimate(w / n, lo, hi, n).split(" (")[0])
        lines.append(f"mean hands per game {t['hands'] / n:.2f}; shared {int(t['shared']):,}; "
                     f"unfinished {int(t['unfinished']):,}")
        return "\n".join(lines)
