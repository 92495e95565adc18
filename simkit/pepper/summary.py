"""The short tables ``simkit simulate pepper`` prints at the end of a run.

Built chunk by chunk from counts and sums (:class:`simkit.engine.Summary`),
so they never hold the whole run.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from simkit import design
from simkit.base import stats
from simkit.base.measures import BidShares, Mean, Rate, Section
from simkit.base.rows import rows_of
from simkit.engine import Summary, bid_table
from simkit.pepper.rules import PepperRules


def made_text(p: float, lo: float, hi: float, n: int) -> str:
    """A success rate with its interval, without the count: ``81.2% [80.9%, 81.5%]``."""
    text = stats.format_estimate(p, lo, hi, n)
    assert isinstance(text, str), text                # one estimate: one text
    return text.split(" (")[0]


class HandSummary(Summary):
    """Per contract: its share of hands, success rate and mean score changes."""

    def part(self, df: pd.DataFrame) -> pd.DataFrame:
        r = self.rules
        side = np.where(r.players == 4, df["bidder"] % 2, df["bidder"]).clip(0)
        scores = df[[f"score_{s}" for s in range(r.sides)]].to_numpy()
        own = scores[np.arange(len(df)), side]
        opp = (scores.sum(axis=1) - own) / (r.sides - 1)
        g = pd.DataFrame({"contract": df["contract"], "made": df["made"],
                          "own": own, "opp": opp}).groupby("contract")
        return g.agg(hands=("made", "size"), made=("made", "sum"), own=("own", "sum"),
                     opp=("opp", "sum"))

    def add_aggregate(self, agg: pd.DataFrame) -> None:
        """Add a merged aggregate table (:func:`simkit.pepper.api.aggregate_hands`)."""
        g = agg.assign(made_hands=agg["hands"].where(agg["made"], 0)).groupby("contract")
        self.parts.append(pd.DataFrame({
            "hands": g["hands"].sum(), "made": g["made_hands"].sum(),
            "own": g["bidder_points"].sum(),
            "opp": g["opponents_points"].sum() / (self.rules.sides - 1)}))

    def table(self) -> pd.DataFrame:
        total = self.total()
        return bid_table(total, self.rules.bid_text, bidders_points=total["own"],
                         opponents_points=total["opp"])

    def text(self) -> str:
        lines = [f"{'bid':<12}{'hands':>12}{'share':>8}   {'made [95% CI]':<26}"
                 f"{'bidders':>9}{'others':>9}"]
        for row in rows_of(self.table()):
            made = "" if np.isnan(row.made) else made_text(row.made, row.ci_low,
                                                          row.ci_high, row.hands)
            pts = ("" if np.isnan(row.bidders_points) else
                   f"{row.bidders_points:+9.2f}{row.opponents_points:+9.2f}")
            lines.append(f"{row.bid:<12}{row.hands:>12,}{row.share:>8.1%}   {made:<26}{pts}")
        lines.append("(bidders/others: mean score change per hand of the bidding side and "
                     "of each other side)")
        return "\n".join(lines)


class GameSummary(Summary):
    """Per side: its win rate (a win shared by tied sides counts evenly to each,
    as in every table of simkit); the mean game length and the unfinished
    games."""

    def part(self, df: pd.DataFrame) -> pd.DataFrame:
        share = design.shares(df["winners"].to_numpy(np.int64), self.rules.sides)
        out = {f"win_{s}": float(share[:, s].sum()) for s in range(self.rules.sides)}
        out.update(rounds=int(df["rounds"].sum()), unfinished=int(df["unfinished"].sum()),
                   game=len(df))
        return pd.DataFrame([out])

    def table(self) -> pd.DataFrame:
        total = self.total()
        games = int(total["game"].iloc[0])
        rows = []
        for s in range(self.rules.sides):
            k = float(total[f"win_{s}"].iloc[0])
            lo, hi = stats.proportion_ci(k, games)
            rows.append({"side": s, "games": games, "win_rate": k / games,
                         "ci_low": lo, "ci_high": hi})
        out = pd.DataFrame(rows)
        out.attrs["mean_rounds"] = total["rounds"].iloc[0] / games
        out.attrs["unfinished"] = int(total["unfinished"].iloc[0])
        return out

    def text(self) -> str:
        t = self.table()
        lines = [f"{'side':<6}{'games':>10}   win rate [95% CI]"]
        for row in rows_of(t):
            lines.append(f"{row.side:<6}{row.games:>10,}   "
                         + made_text(row.win_rate, row.ci_low, row.ci_high, row.games))
        lines.append(f"mean rounds per game {t.attrs['mean_rounds']:.2f}; unfinished games "
                     f"{t.attrs['unfinished']:,}; a win shared by tied sides counts evenly to "
                     "each")
        return "\n".join(lines)


def _bidder_and_others(df: pd.DataFrame, rules: PepperRules) -> tuple[np.ndarray, np.ndarray]:
    """Per hand: the bidding side's score change and an opponent side's (mean of
    the others); 0 for thrown-in hands, which the measures leave out."""
    side = np.where(rules.players == 4, df["bidder"] % 2, df["bidder"]).clip(0)
    scores = df[[f"score_{s}" for s in range(rules.sides)]].to_numpy(np.float64)
    own = scores[np.arange(len(df)), side]
    return own, (scores.sum(axis=1) - own) / (rules.sides - 1)


def _win_share(rules: PepperRules, side: int) -> Callable[[pd.DataFrame], np.ndarray]:
    """Per game, ``side``'s share of the win (tied top sides split it evenly)."""
    def share(df: pd.DataFrame) -> np.ndarray:
        out: np.ndarray = design.shares(df["winners"].to_numpy(np.int64), rules.sides)[:, side]
        return out
    return share


def _column(name: str) -> Callable[[pd.DataFrame], np.ndarray]:
    """The values of column ``name``."""
    return lambda df: df[name].to_numpy()


def measures(rules: PepperRules) -> list[Section]:
    """What ``simkit compare pepper`` compares (:mod:`simkit.lab.compare`)."""

    def played(df: pd.DataFrame) -> np.ndarray:
        contract: np.ndarray = df["contract"].to_numpy()
        return contract > 0

    return [
        Section("bids", "Contracts: share of {n:,} hands and success rate", "hand",
                (BidShares(rules.kubwa + 1, rules.bid_text),)),
        Section("scores", "Scores per played hand ({n:,} hands)", "hand", (
            Mean("bidding side points per played hand",
                 lambda df: _bidder_and_others(df, rules)[0], played, margin=0.05),
            Mean("opponent side points per played hand",
                 lambda df: _bidder_and_others(df, rules)[1], played, margin=0.05),
            Rate("contracts made", _column("made"), played),
            Mean(f"mean contract level (tricks bid; Ndogo counts {rules.ndogo}, "
                 f"Kubwa {rules.kubwa})", _column("contract"), played, margin=0.05),
            Rate("thrown-in rate", lambda df: ~played(df)))),
        Section("games", "Games ({n:,} whole games; a win shared by tied sides counts evenly "
                "to each)", "game", (
            *(Rate(f"side {s} win rate", _win_share(rules, s)) for s in range(rules.sides)),
            Mean("rounds per game", _column("rounds"), margin=0.1),
            Rate("unfinished games", _column("unfinished")))),
        _design(rules),
        _position(rules),
    ]


def _position(rules: PepperRules) -> Section:
    """Each position's points per hand and share of the contracts, counted from
    the hand's dealer: with partners the dealer's side and the other, else
    every seat from the dealer's left (:func:`simkit.design.position`)."""
    P, S = rules.players, rules.sides
    teams = S < P

    def points(df: pd.DataFrame) -> np.ndarray:
        dealer = df["dealer"].to_numpy(np.int64)
        scores = df[[f"score_{s}" for s in range(S)]].to_numpy(np.float64)
        rows = np.arange(len(df))
        sides = ([dealer % 2, 1 - dealer % 2] if teams else
                 [(dealer + k) % P for k in range(1, P + 1)])
        return np.column_stack([scores[rows, side] for side in sides])

    def holder(df: pd.DataFrame) -> np.ndarray:
        dealer, bidder = (df[c].to_numpy(np.int64) for c in ("dealer", "bidder"))
        played = df["contract"].to_numpy() > 0
        pos = np.where(bidder % 2 == dealer % 2, 0, 1) if teams else (bidder - dealer - 1) % P
        return np.where(played & (bidder >= 0), pos, -1)

    names = (["the dealer's side", "the other side"] if teams else
             [f"seat {k} left of the dealer" for k in range(1, P)] + ["the dealer"])
    return design.position(names, [("points per hand", points, 0.05)], holder)


def _design(rules: PepperRules) -> Section:
    """The designer's measures (:mod:`simkit.design`): with partners the two
    sides (the first dealer's first), else every seat counted from the first
    dealer's left; the first dealer's side's edge; lengths in hands."""
    P, S = rules.players, rules.sides
    teams = S < P

    def frame(df: pd.DataFrame) -> pd.DataFrame:
        fd = df["first_dealer"].to_numpy(np.int64)
        winners = df["winners"].to_numpy(np.int64)
        share = design.shares(winners, S)
        rows = np.arange(len(df))
        if teams:
            pos = [share[rows, fd % 2], share[rows, 1 - fd % 2]]
        else:
            pos = [share[rows, (fd + k) % P] for k in range(1, P + 1)]
        steps = df["rounds"].to_numpy(np.int64)
        finished = ~df["unfinished"].to_numpy(bool)
        single = finished & (winners > 0) & (winners & (winners - 1) == 0)
        return pd.DataFrame({"game": df["game"].to_numpy(), "steps": steps, "finished": finished,
                             "decided": finished,
                             **{f"pos_{k + 1}": p for k, p in enumerate(pos)},
                             "first": pos[0] if teams else pos[-1],
                             **design.lead_columns(df, steps, single)})

    names = (["the first dealer's side", "the other side"] if teams else
             [f"seat {k} left of the first dealer" for k in range(1, P)] + ["the first dealer"])
    return design.section(frame, names, "the first dealer's side" if teams else
                          "the first dealer", cap="max_rounds")
