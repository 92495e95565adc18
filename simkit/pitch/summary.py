"""The short tables ``simkit simulate pitch`` prints at the end of a run, and
what ``simkit compare pitch`` compares.

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
from simkit.pitch.rules import PitchRules

#: Group columns of :func:`aggregate_frame` and the totals summed per group.
AGG_KEYS = ("contract", "made", "pitcher_trumps", "pitcher_seat")
AGG_TOTALS = ("hands", "pitcher_score", "pitcher_score_sq", "pitcher_money", "others_score")


def made_text(p: float, lo: float, hi: float, n: int) -> str:
    """A success rate with its interval, without the count: ``81.2% [80.9%, 81.5%]``."""
    text = stats.format_estimate(p, lo, hi, n)
    assert isinstance(text, str), text                # one estimate: one text
    return text.split(" (")[0]


def aggregate_frame(df: pd.DataFrame, rules: PitchRules) -> pd.DataFrame:
    """Counts and sums per group of ``AGG_KEYS`` of a hands frame (``pitcher_seat``:
    1 = left of the dealer ... players = the dealer, 0 = thrown in); tables of
    different hand ranges add up (groupby-sum)."""
    N = rules.players
    p = df["pitcher"].to_numpy().astype(np.int64)
    rows = np.arange(len(df))
    scores = df[[f"score_{s}" for s in range(N)]].to_numpy().astype(np.int64)
    money = df[[f"money_{s}" for s in range(N)]].to_numpy()
    thrown = p < 0
    own = np.where(thrown, 0, scores[rows, p.clip(0)])
    seat = np.where(thrown, 0, (p - df["dealer"].to_numpy() - 1) % N + 1)
    g = pd.DataFrame({"contract": df["contract"], "made": df["made"],
                      "pitcher_trumps": df["pitcher_trumps"], "pitcher_seat": seat.astype(np.int8),
                      "hands": 1, "pitcher_score": own, "pitcher_score_sq": own * own,
                      "pitcher_money": np.where(thrown, 0.0, money[rows, p.clip(0)]),
                      "others_score": scores.sum(axis=1) - own})
    return g.groupby(list(AGG_KEYS), as_index=False, observed=True)[list(AGG_TOTALS)].sum()


class HandSummary(Summary):
    """Per contract: its share, success rate, the pitcher's and others' points and
    the pitcher's money per hand."""

    def add(self, df: pd.DataFrame) -> None:
        self.add_aggregate(aggregate_frame(df, self.rules))

    def add_aggregate(self, agg: pd.DataFrame) -> None:
        """Add an aggregate table (:func:`aggregate_frame`)."""
        g = agg.assign(made_hands=agg["hands"].where(agg["made"], 0)).groupby("contract")
        self.parts.append(pd.DataFrame({
            "hands": g["hands"].sum(), "made": g["made_hands"].sum(),
            "own": g["pitcher_score"].sum(), "money": g["pitcher_money"].sum(),
            "others": g["others_score"].sum()}))

    def table(self) -> pd.DataFrame:
        total = self.total()
        return bid_table(total, self.rules.bid_text, pitcher_points=total["own"],
                         others_points=total["others"] / (self.rules.players - 1),
                         pitcher_money=total["money"])

    def text(self) -> str:
        lines = [f"{'bid':<12}{'hands':>12}{'share':>8}   {'made [95% CI]':<26}"
                 f"{'pitcher':>9}{'others':>9}{'money $':>9}"]
        for row in rows_of(self.table()):
            made = ("" if np.isnan(row.made) else
                    made_text(row.made, row.ci_low, row.ci_high, row.hands))
            pts = ("" if np.isnan(row.pitcher_points) else
                   f"{row.pitcher_points:+9.2f}{row.others_points:+9.2f}"
                   f"{row.pitcher_money:+9.3f}")
            lines.append(f"{row.bid:<12}{row.hands:>12,}{row.share:>8.1%}   {made:<26}{pts}")
        lines.append("(pitcher/others: mean score change per hand of the pitcher and of "
                     "each other player; money: the pitcher's, per hand)")
        return "\n".join(lines)


class SessionSummary(Summary):
    """Per starting seat (0: players who joined): money per session with its
    interval, and the mean final score."""

    def part(self, df: pd.DataFrame) -> pd.DataFrame:
        x = df.assign(money_sq=df["money"] ** 2, n=1)
        return x.groupby("seat")[["n", "money", "money_sq", "score"]].sum()

    def table(self) -> pd.DataFrame:
        total = self.total()
        mean, lo, hi = stats.mean_ci(total["n"], total["money"], total["money_sq"])
        return pd.DataFrame({"seat": total.index, "players": total["n"], "money": mean,
                             "ci_low": lo, "ci_high": hi,
                             "score": total["score"] / total["n"]}).reset_index(drop=True)

    def text(self) -> str:
        lines = [f"{'seat':<6}{'players':>10}   {'money $ per session [95% CI]':<34}{'score':>8}"]
        for row in rows_of(self.table()):
            seat = "joined" if row.seat == 0 else str(row.seat)
            lines.append(f"{seat:<6}{row.players:>10,}   {row.money:+.3f} "
                         f"[{row.ci_low:+.3f}, {row.ci_high:+.3f}]".ljust(47)
                         + f"{row.score:>8.2f}")
        lines.append("(seat: 1 = left of the first dealer ... the first dealer last; money "
                     "sums to zero in every session)")
        return "\n".join(lines)


def measures(rules: PitchRules) -> list[Section]:
    """What ``simkit compare pitch`` compares (:mod:`simkit.lab.compare`): bids, the
    pitcher's points and money per hand, moons; money per session by starting
    seat, session length."""
    N = rules.players

    def pitched(df: pd.DataFrame) -> np.ndarray:
        pitcher: np.ndarray = df["pitcher"].to_numpy()
        return pitcher >= 0

    def pitcher_value(column: str) -> Callable[[pd.DataFrame], np.ndarray]:
        def value(df: pd.DataFrame) -> np.ndarray:
            p = df["pitcher"].to_numpy().clip(0)
            by_seat: np.ndarray = df[[f"{column}_{s}" for s in range(N)]].to_numpy()
            own: np.ndarray = by_seat[np.arange(len(df)), p]
            return own
        return value

    def seat_money(k: int) -> Mean:
        # a cent a hand of the session
        return Mean(f"money per session ($), starting seat {k}" if k else
                    "money per session ($), players who joined", lambda df: df["money"].to_numpy(),
                    lambda df: df["seat"].to_numpy() == k, margin=0.01 * rules.session_hands)

    return [
        Section("bids", "Contracts: share of {n:,} hands and success rate", "hand",
                (BidShares(6, rules.bid_text),)),
        Section("hands", "Per pitched hand ({n:,} hands)", "hand", (
            Mean("pitcher points per pitched hand", pitcher_value("score"), pitched,
                 margin=0.05),
            Mean("pitcher money per pitched hand ($)", pitcher_value("money"), pitched,
                 margin=0.01),
            Rate("contracts made", lambda df: df["made"].to_numpy(), pitched),
            Rate("moons bid", lambda df: df["moon"].to_numpy(), pitched),
            Rate("thrown-in rate", lambda df: ~pitched(df)))),
        Section("sessions", "Money sessions ({n:,} per variant; one row per player)", "game", (
            *(seat_money(k) for k in range(1, N + 1)),
            seat_money(0),
            Mean("hands per session", lambda df: df["session_hands"].to_numpy(),
                 lambda df: df["player"].to_numpy() == 0, margin=0.1),
            Rate("sessions ended by the target", lambda df: df["ended_by_target"].to_numpy(),
                 lambda df: df["player"].to_numpy() == 0))),
        _design(rules),
        _position(rules),
    ]


def _design(rules: PitchRules) -> Section:
    """The designer's measures (:mod:`simkit.design`) of money sessions: the
    players by starting seat (seat N: the first dealer), and with players who
    join, those players as one more position; a win is the top score at the
    end (a tie splits it evenly); a session is finished when a target ended it
    before its last hand.  Each position's fair share of a session is that of
    the players seated at its end (every one of them alike): ``1 / N`` for
    each starting seat when nobody joins or leaves."""
    N = rules.players
    joins = rules.join > 0

    def frame(df: pd.DataFrame) -> pd.DataFrame:
        session = df["session"].to_numpy(np.int64)
        first = session.min() if len(df) else 0
        count = session.max() - first + 1 if len(df) else 0
        index = session - first
        top = df["top"].to_numpy(bool)
        tops = np.bincount(index, weights=top, minlength=count)
        share = np.where(top, 1.0 / np.maximum(tops[index], 1), 0.0)
        seat = df["seat"].to_numpy(np.int64)
        seated = (df["left"].to_numpy(np.int64) < 0).astype(np.float64)
        at_end = np.maximum(np.bincount(index, weights=seated, minlength=count), 1)
        seats = list(range(1, N + 1)) + ([0] if joins else [])
        pos, fair = {}, {}
        for k, s in enumerate(seats, start=1):
            mine = seat == s
            pos[f"pos_{k}"] = np.bincount(index, weights=share * mine, minlength=count)
            fair[f"fair_{k}"] = np.bincount(index, weights=seated * mine,
                                            minlength=count) / at_end
        head = df[df["player"].to_numpy() == 0]
        steps = head["session_hands"].to_numpy(np.int64)
        single = tops[head["session"].to_numpy(np.int64) - first] == 1
        return pd.DataFrame({"session": head["session"].to_numpy(), "steps": steps,
                             "finished": head["ended_by_target"].to_numpy(bool),
                             "decided": np.ones(len(head), bool), **pos, **fair,
                             "first": pos[f"pos_{N}"], "fair_first": fair[f"fair_{N}"],
                             **design.lead_columns(head, steps, single)})

    names = ([f"starting seat {k}" for k in range(1, N)]
             + [f"starting seat {N} (the first dealer)"]
             + (["players who joined"] if joins else []))
    return design.section(frame, names, "the first dealer", unit="session",
                          cap="the last hand (by the target)")


def _position(rules: PitchRules) -> Section:
    """Each seat's points and money per hand and share of the contracts, counted
    from the hand's dealer's left, the dealer last
    (:func:`simkit.design.position`)."""
    N = rules.players

    def by_seat(column: str) -> Callable[[pd.DataFrame], np.ndarray]:
        def values(df: pd.DataFrame) -> np.ndarray:
            dealer = df["dealer"].to_numpy(np.int64)
            seats = df[[f"{column}_{s}" for s in range(N)]].to_numpy(np.float64)
            rows = np.arange(len(df))
            return np.column_stack([seats[rows, (dealer + k) % N] for k in range(1, N + 1)])
        return values

    def holder(df: pd.DataFrame) -> np.ndarray:
        dealer, pitcher = (df[c].to_numpy(np.int64) for c in ("dealer", "pitcher"))
        return np.where(pitcher >= 0, (pitcher - dealer - 1) % N, -1)

    names = [f"seat {k} left of the dealer" for k in range(1, N)] + ["the dealer"]
    return design.position(names, [("points per hand", by_seat("score"), 0.05),
                                   ("money per hand ($)", by_seat("money"), 0.01)], holder)
