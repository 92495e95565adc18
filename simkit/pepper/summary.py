"""The short table ``simkit simulate pepper`` prints at the end of a run.

Built batch by batch from counts and sums, so it never holds the whole run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit import stats
from simkit.pepper.rules import PepperRules


class Summary:
    """Accumulates per-contract (hands) or per-side (games) totals."""

    def __init__(self, rules: PepperRules, unit: str):
        self.rules, self.unit = rules, unit
        self.parts: list[pd.DataFrame] = []

    def add(self, df: pd.DataFrame) -> None:
        r = self.rules
        if self.unit == "hand":
            side = np.where(r.players == 4, df["bidder"] % 2, df["bidder"]).clip(0)
            scores = df[[f"score_{s}" for s in range(r.sides)]].to_numpy()
            own = scores[np.arange(len(df)), side]
            opp = (scores.sum(axis=1) - own) / (r.sides - 1)
            g = pd.DataFrame({"contract": df["contract"], "made": df["made"],
                              "own": own, "opp": opp}).groupby("contract")
            self.parts.append(g.agg(hands=("made", "size"), made=("made", "sum"),
                                    own=("own", "sum"), opp=("opp", "sum")))
        else:
            cols = {f"win_{s}": "sum" for s in range(r.sides)}
            cols.update(rounds="sum", unfinished="sum", game="size")
            self.parts.append(df.agg(cols).to_frame().T)

    def add_aggregate(self, agg: pd.DataFrame) -> None:
        """Add a merged aggregate table (:func:`simkit.pepper.api.aggregate_hands`)."""
        g = agg.assign(made_hands=agg["hands"].where(agg["made"], 0)).groupby("contract")
        self.parts.append(pd.DataFrame({
            "hands": g["hands"].sum(), "made": g["made_hands"].sum(),
            "own": g["bidder_points"].sum(),
            "opp": g["opponents_points"].sum() / (self.rules.sides - 1)}))

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
                "bidders_points": total["own"] / total["hands"],
                "opponents_points": total["opp"] / total["hands"]})
            thrown = out["bid"] == "(thrown in)"
            out.loc[thrown, ["made", "ci_low", "ci_high", "bidders_points", "opponents_points"]] = np.nan
            return out.reset_index(drop=True)
        games = int(total["game"].iloc[0])
        rows = []
        for s in range(r.sides):
            k = int(total[f"win_{s}"].iloc[0])
            lo, hi = stats.proportion_ci(k, games)
            rows.append({"side": s, "games": games, "win_rate": k / games, "ci_low": lo, "ci_high": hi})
        out = pd.DataFrame(rows)
        out.attrs["mean_rounds"] = total["rounds"].iloc[0] / games
        out.attrs["unfinished"] = int(total["unfinished"].iloc[0])
        return out

    def text(self) -> str:
        t = self.table()
        if self.unit == "hand":
            lines = [f"{'bid':<12}{'hands':>12}{'share':>8}   {'made [95% CI]':<26}{'bidders':>9}{'others':>9}"]
            for row in t.itertuples():
                made = ("" if np.isnan(row.made) else
                        stats.format_estimate(row.made, row.ci_low, row.ci_high, row.hands).split(" (")[0])
                pts = "" if np.isnan(row.bidders_points) else f"{row.bidders_points:+9.2f}{row.opponents_points:+9.2f}"
                lines.append(f"{row.bid:<12}{row.hands:>12,}{row.share:>8.1%}   {made:<26}{pts}")
            lines.append("(bidders/others: mean score change per hand of the bidding side and "
                         "of each other side)")
            return "\n".join(lines)
        lines = [f"{'side':<6}{'games':>10}   win rate [95% CI]"]
        for row in t.itertuples():
            lines.append(f"{row.side:<6}{row.games:>10,}   "
                         + stats.format_estimate(row.win_rate, row.ci_low, row.ci_high, row.games).split(" (")[0])
        lines.append(f"mean rounds per game {t.attrs['mean_rounds']:.2f}; unfinished games "
                     f"{t.attrs['unfinished']:,}; tied sides all count as winners")
        return "\n".join(lines)
