"""The short table ``simkit simulate pitch`` prints at the end of a run.

Built chunk by chunk from counts and sums, so it never holds the whole run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit import stats
from simkit.pitch.rules import PitchRules


class Summary:
    """Accumulates per-contract (hands) or per-starting-seat (sessions) totals."""

    def __init__(self, rules: PitchRules, unit: str):
        self.rules, self.unit = rules, unit
        self.parts: list[pd.DataFrame] = []

    def add(self, df: pd.DataFrame) -> None:
        if self.unit == "hand":
            from simkit.pitch.api import aggregate_frame
            self.add_aggregate(aggregate_frame(df, self.rules))
        else:
            x = df.assign(money_sq=df["money"] ** 2, n=1)
            self.parts.append(x.groupby("seat")[["n", "money", "money_sq", "score"]].sum())

    def add_aggregate(self, agg: pd.DataFrame) -> None:
        """Add an aggregate table (:func:`simkit.pitch.api.aggregate_frame`)."""
        g = agg.assign(made_hands=agg["hands"].where(agg["made"], 0)).groupby("contract")
        self.parts.append(pd.DataFrame({
            "hands": g["hands"].sum(), "made": g["made_hands"].sum(),
            "own": g["pitcher_score"].sum(), "money": g["pitcher_money"].sum(),
            "others": g["others_score"].sum()}))

    def table(self) -> pd.DataFrame:
        r = self.rules
        total = pd.concat(self.parts).groupby(level=0).sum()
        if self.unit == "hand":
            n = total["hands"].sum()
            lo, hi = stats.proportion_ci(total["made"], total["hands"])
            out = pd.DataFrame({
                "bid": [r.bid_text(int(v)) if v else "(thrown in)" for v in total.index],
                "hands": total["hands"], "share": total["hands"] / n,
                "made": total["made"] / total["hands"], "ci_low": lo, "ci_high": hi,
                "pitcher_points": total["own"] / total["hands"],
                "others_points": total["others"] / total["hands"] / (r.players - 1),
                "pitcher_money": total["money"] / total["hands"]})
            thrown = out["bid"] == "(thrown in)"
            out.loc[thrown, ["made", "ci_low", "ci_high", "pitcher_points", "others_points",
                             "pitcher_money"]] = np.nan
            return out.reset_index(drop=True)
        mean, lo, hi = stats.mean_ci(total["n"], total["money"], total["money_sq"])
        return pd.DataFrame({"seat": total.index, "players": total["n"], "money": mean,
                             "ci_low": lo, "ci_high": hi,
                             "score": total["score"] / total["n"]}).reset_index(drop=True)

    def text(self) -> str:
        t = self.table()
        if self.unit == "hand":
            lines = [f"{'bid':<12}{'hands':>12}{'share':>8}   {'made [95% CI]':<26}"
                     f"{'pitcher':>9}{'others':>9}{'money $':>9}"]
            for row in t.itertuples():
                made = ("" if np.isnan(row.made) else stats.format_estimate(
                    row.made, row.ci_low, row.ci_high, row.hands).split(" (")[0])
                pts = ("" if np.isnan(row.pitcher_points) else
                       f"{row.pitcher_points:+9.2f}{row.others_points:+9.2f}"
                       f"{row.pitcher_money:+9.3f}")
                lines.append(f"{row.bid:<12}{row.hands:>12,}{row.share:>8.1%}   {made:<26}{pts}")
            lines.append("(pitcher/others: mean score change per hand of the pitcher and of "
                         "each other player; money: the pitcher's, per hand)")
            return "\n".join(lines)
        lines = [f"{'seat':<6}{'players':>10}   {'money $ per session [95% CI]':<34}{'score':>8}"]
        for row in t.itertuples():
            seat = "joined" if row.seat == 0 else str(row.seat)
            lines.append(f"{seat:<6}{row.players:>10,}   {row.money:+.3f} "
                         f"[{row.ci_low:+.3f}, {row.ci_high:+.3f}]".ljust(47)
                         + f"{row.score:>8.2f}")
        lines.append("(seat: 1 = left of the first dealer ... the first dealer last; money "
                     "sums to zero in every session)")
        return "\n".join(lines)
