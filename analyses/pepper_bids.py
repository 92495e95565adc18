"""Pepper bid success: how often is each contract made, and what in the
bidder's hand and seat makes it more likely?

For 2, 3 and 4 players under the seed's rules (seeds/pepper.md), two tables
are simulated, each of ``hands`` hands (``DEFAULT_HANDS`` by default, so the
study plays 6 x that many): one with the ``heuristic`` policy at every seat,
and one with ``heuristic:aggression=1.0`` at every seat, which bids one trick
more on the same cards and so spreads the contracts over more levels.  Both
tables of a player count use the same seed, hence the same deals.

Each hand is classified by its contract, by the bidder's seat relative to the
dealer and by the bidder's hand with the trump it chose (trumps held, bowers,
aces outside trumps, void suits outside trumps).  Counts and score sums are
accumulated batch by batch into one grid of cells (``np.bincount`` on the
small integer columns), so memory does not grow with the number of hands;
every table is a sum over that grid.

Tables (rates are proportions in [0, 1]; ``ci_low``/``ci_high`` the 95%
Clopper-Pearson interval; point columns the mean score change per hand with
a 95% t interval):

- ``overview``: players, policy, hands (all dealt), thrown_in (everyone
  passed), contracts (hands played), no_trump (contracts played without a
  trump), made, rate, ci_low, ci_high.
- ``success_by_bid``: players, policy, bid ("1".."7", "ndogo", "kubwa"),
  level (the engine's bid level), hands, share (of all hands dealt), made,
  rate, ci_low, ci_high, bidders_points (mean score change of the bidding
  side), bidders_ci_low, bidders_ci_high, opponents_points (mean score change
  of each other side, averaged over the other sides), opponents_ci_low,
  opponents_ci_high.
- ``success_by_feature``: players, policy, feature (trumps, bowers, aces,
  voids), value, bid, level, hands, made, rate, ci_low, ci_high; contracts
  with a trump suit only, cells with fewer than 30 hands left out.
- ``success_by_seat``: players, policy, seat (1 = left of the dealer, ...,
  ``players`` = the dealer), bid, level, hands, made, rate, ci_low, ci_high.
- ``heatmap_trumps_bowers``: players, policy, trumps, bowers, hands, made,
  rate, ci_low, ci_high: all contracts with a trump suit, pooled.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import partial
from typing import Any, cast

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from analyses.common import Plot, Study, Tables, errorbar, int_groups, row_at
from simkit.base import stats
from simkit.base.rows import rows_of
from simkit.pepper.api import iter_hands
from simkit.pepper.policies import make_policies
from simkit.pepper.rules import PepperRules, make_rules
from simkit.study import StudyResult

NAME = "pepper-bids"
TITLE = "Pepper: how often is each bid made?"
#: Hands per simulated table; the study runs 6 tables (3 player counts x 2 policies).
DEFAULT_HANDS = 4_000_000

PLAYERS = (4, 3, 2)
POLICIES = ("heuristic", "heuristic:aggression=1.0")
FEATURES = ("trumps", "bowers", "aces", "voids")
FEATURE_TEXT = {"trumps": "trumps held", "bowers": "bowers held",
                "aces": "aces outside trumps", "voids": "void suits outside trumps"}
MIN_CELL = 30            # smallest cell shown in success_by_feature and in the figures
#: The simulated tables: (players, policy), in study order.
RUNS = tuple((p, pol) for p in PLAYERS for pol in POLICIES)

# The grid of cells: no-trump contract (0/1), seat (0 = no bidder, 1..4), trumps,
# bowers, aces, voids, contract level.
_DIMS = (2, 5, 9, 3, 5, 5, 10)
_KEYS = ("nt", "seat", "trumps", "bowers", "aces", "voids", "level")
_NT = 4                  # code of NT in the trump column (C, D, H, S, NT)
_SUMS = ("hands", "made", "own", "own_sq", "opp", "opp_sq")


# ---------------------------------------------------------------- tables

def _rules(players: int) -> PepperRules:
    """The seed's rules for ``players`` (``make_rules`` is typed to give a Config)."""
    return cast(PepperRules, make_rules(players=players))


def _cell_index(df: pd.DataFrame, players: int,
                sides: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each hand's cell in the grid, whether it was made, and the score change of
    the bidding side and of the average other side."""
    level = df["contract"].to_numpy()
    bidder = df["bidder"].to_numpy().astype(np.int32)
    seat = np.where(bidder >= 0, (bidder - df["dealer"].to_numpy() - 1) % players + 1, 0)
    nt = (df["trump"].cat.codes.to_numpy() == _NT) & (level > 0)
    keys = (nt, seat, df["bidder_trumps"].to_numpy(), df["bidder_bowers"].to_numpy(),
            df["bidder_aces"].to_numpy(), df["bidder_voids"].to_numpy(), level)
    idx = np.zeros(len(df), np.int32)
    for key, dim, name in zip(keys, _DIMS, _KEYS):
        if len(df) and not 0 <= key.min() <= key.max() < dim:
            raise RuntimeError(f"{name} out of range 0..{dim - 1}: {key.min()}..{key.max()}")
        idx *= dim
        idx += key
    scores = df[[f"score_{s}" for s in range(sides)]].to_numpy(np.int16)
    side = np.where(bidder >= 0, bidder % 2 if players == 4 else bidder, 0)
    own = np.take_along_axis(scores, side[:, None], axis=1)[:, 0].astype(np.float64)
    opp = (scores.sum(axis=1, dtype=np.float64) - own) / (sides - 1)
    return idx, df["made"].to_numpy(np.float64), own, opp


def _tally(players: int, policy: str, hands: int, seed: int, threads: int | None,
           progress: bool) -> pd.DataFrame:
    """Run one table and return its non-empty cells: the keys and the sums."""
    rules = _rules(players)
    sides = rules.sides
    size = int(np.prod(_DIMS))
    acc = np.zeros((len(_SUMS), size))
    for df in iter_hands(hands, players=players, policy=policy, seed=seed, threads=threads,
                         progress=progress):
        idx, made, own, opp = _cell_index(df, players, sides)
        del df                              # free the batch before the next one is made
        for i, w in enumerate((None, made, own, own * own, opp, opp * opp)):
            acc[i] += np.bincount(idx, weights=w, minlength=size)
    nz = np.flatnonzero(acc[0])
    cells = pd.DataFrame({k: v.astype(np.int8) for k, v in zip(_KEYS, np.unravel_index(nz, _DIMS))})
    for i, name in enumerate(_SUMS):
        cells[name] = acc[i, nz]
    for name in ("hands", "made"):
        cells[name] = cells[name].round().astype(np.int64)
    cells.insert(0, "policy", policy)
    cells.insert(0, "players", players)
    return cells


def _rates(df: pd.DataFrame) -> pd.DataFrame:
    lo, hi = stats.proportion_ci(df["made"].to_numpy(), df["hands"].to_numpy())
    df["rate"] = df["made"] / df["hands"]
    df["ci_low"], df["ci_high"] = lo, hi
    return df


def _points(df: pd.DataFrame) -> pd.DataFrame:
    n = df["hands"].to_numpy(float)
    for who, s, ss in (("bidders", "own", "own_sq"), ("opponents", "opp", "opp_sq")):
        m, lo, hi = stats.mean_ci(n, df[s].to_numpy(), df[ss].to_numpy())
        df[f"{who}_points"], df[f"{who}_ci_low"], df[f"{who}_ci_high"] = m, lo, hi
    return df


def _bid_text(players: int, level: Iterable[int]) -> list[str]:
    rules = _rules(players)
    return [rules.bid_text(int(v)) for v in level]


def _with_bid(df: pd.DataFrame) -> pd.DataFrame:
    bid = pd.Series("", index=df.index, dtype=object)
    for p, g in int_groups(df, "players"):
        bid.loc[g.index] = np.array(_bid_text(p, g["level"]), dtype=object)
    pos = list(df.columns).index("level")
    df.insert(pos, "bid", bid)
    return df


def _order(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Players 4, 3, 2 and policies in study order, then the other keys ascending."""
    df = df.assign(_p=-df["players"], _q=df["policy"].map({p: i for i, p in enumerate(POLICIES)}))
    return (df.sort_values(["_p", "_q", *keys], kind="stable")
              .drop(columns=["_p", "_q"]).reset_index(drop=True))


def build_tables(cells: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The study's tables from the cells of every simulated table."""
    by = ["players", "policy"]
    sums = list(_SUMS)
    total = cells.groupby(by, sort=False)["hands"].sum().rename("all_hands")
    bids = cells[cells["level"] > 0]

    ov = (bids.groupby(by, sort=False)[["hands", "made"]].sum()
              .rename(columns={"hands": "contracts"}))
    ov = ov.join(bids[bids["nt"] == 1].groupby(by, sort=False)["hands"].sum().rename("no_trump"))
    ov = total.to_frame("hands").join(ov).fillna(0).astype(np.int64).reset_index()
    ov.insert(3, "thrown_in", ov["hands"] - ov["contracts"])
    ov.insert(5, "no_trump", ov.pop("no_trump"))
    lo, hi = stats.proportion_ci(ov["made"].to_numpy(), ov["contracts"].to_numpy())
    with np.errstate(invalid="ignore", divide="ignore"):
        ov["rate"] = ov["made"] / ov["contracts"]
    ov["ci_low"], ov["ci_high"] = lo, hi
    overview = _order(ov, [])

    sb = bids.groupby([*by, "level"], sort=False)[sums].sum().reset_index()
    sb = sb.join(total, on=by)
    sb.insert(4, "share", sb["hands"] / sb.pop("all_hands"))
    sb = _points(_rates(sb))
    success_by_bid = _order(_with_bid(sb), ["level"])[
        ["players", "policy", "bid", "level", "hands", "share", "made", "rate", "ci_low",
         "ci_high", "bidders_points", "bidders_ci_low", "bidders_ci_high", "opponents_points",
         "opponents_ci_low", "opponents_ci_high"]]

    suits = bids[bids["nt"] == 0]
    parts = []
    for f in FEATURES:
        g = suits.groupby([*by, f, "level"], sort=False)[["hands", "made"]].sum().reset_index()
        g = g.rename(columns={f: "value"})
        g.insert(2, "feature", f)
        parts.append(g[g["hands"] >= MIN_CELL])
    sf = _rates(_with_bid(pd.concat(parts, ignore_index=True)))
    sf["_f"] = sf["feature"].map({f: i for i, f in enumerate(FEATURES)})
    success_by_feature = _order(sf, ["_f", "value", "level"]).drop(columns="_f")[
        ["players", "policy", "feature", "value", "bid", "level", "hands", "made", "rate",
         "ci_low", "ci_high"]]

    ss = bids.groupby([*by, "seat", "level"], sort=False)[["hands", "made"]].sum().reset_index()
    success_by_seat = _order(_rates(_with_bid(ss)), ["seat", "level"])[
        ["players", "policy", "seat", "bid", "level", "hands", "made", "rate", "ci_low", "ci_high"]]

    hm = suits.groupby([*by, "trumps", "bowers"], sort=False)[["hands", "made"]].sum().reset_index()
    heatmap = _order(_rates(hm), ["trumps", "bowers"])[
        ["players", "policy", "trumps", "bowers", "hands", "made", "rate", "ci_low", "ci_high"]]

    for t in (overview, success_by_bid, success_by_feature, success_by_seat, heatmap):
        t["players"] = t["players"].astype(np.int64)
    return {"overview": overview, "success_by_bid": success_by_bid,
            "success_by_feature": success_by_feature, "success_by_seat": success_by_seat,
            "heatmap_trumps_bowers": heatmap}


def simulate_tables(hands: int = DEFAULT_HANDS, seed: int = 0, progress: bool = False,
                    threads: int | None = None) -> dict[str, pd.DataFrame]:
    """Simulate the six tables (``hands`` each) and return the study's tables."""
    from tqdm import tqdm

    cells = []
    with tqdm(RUNS, desc=NAME, unit="table", disable=not progress, leave=False,
              dynamic_ncols=True) as bar:
        for p, pol in bar:
            bar.set_postfix_str(f"{p} players, {pol}")
            cells.append(_tally(p, pol, hands=hands, seed=seed, threads=threads, progress=progress))
    return build_tables(pd.concat(cells, ignore_index=True))


# ---------------------------------------------------------------- summary

def _digits(lo: float, hi: float) -> int:
    """Decimals of a percentage: the fewest (1 to 3) that tell an interval's ends apart."""
    k = 1
    while k < 3 and round(100 * lo, k) == round(100 * hi, k) and hi > lo:
        k += 1
    return k


def _pct(rate: float, lo: float, hi: float, n: float, what: str = "") -> str:
    k = _digits(lo, hi)
    return (f"{100 * rate:.{k}f}%{what} (95% CI {100 * lo:.{k}f}-{100 * hi:.{k}f}%, "
            f"n={int(n):,})")


def _diff(d: dict[str, Any], sign: str = "+") -> str:
    """A difference of proportions in percentage points with its interval."""
    k = _digits(d["lo"], d["hi"])
    return (f"{100 * d['diff']:{sign}.{k}f} points, 95% CI {100 * d['lo']:{sign}.{k}f} to "
            f"{100 * d['hi']:{sign}.{k}f}")


def _bid_phrase(bid: str) -> str:
    return f"Pilipili {bid.capitalize()}" if bid in ("ndogo", "kubwa") else f"a bid of {bid}"


def _top_bid(sb: pd.DataFrame, players: int, policy: str) -> pd.Series | None:
    rows = sb[(sb["players"] == players) & (sb["policy"] == policy)]
    return None if rows.empty else row_at(rows, rows["hands"].idxmax())


def _seat_text(seat: int, players: int) -> str:
    if seat == players:
        return "the dealer (the last to bid)"
    if seat == 1:
        return "the first bidder (left of the dealer)"
    return f"the {['', 'first', 'second', 'third'][seat]} bidder"


def _common_bids(sb: pd.DataFrame) -> str | None:
    """How often each player count's most common contract is made."""
    base = POLICIES[0]
    parts = []
    for p in PLAYERS:
        top = _top_bid(sb, p, base)
        if top is not None:
            parts.append(f"with {p} players {_bid_phrase(top['bid'])} (the most common "
                         f"contract, {top['share']:.0%} of hands) is made "
                         + _pct(top["rate"], top["ci_low"], top["ci_high"], top["hands"],
                                " of the time"))
    if not parts:
        return None
    return f"With the {base} policy at every seat, " + "; ".join(parts) + "."


def _bolder(ov: pd.DataFrame) -> str | None:
    """What bidding one trick higher on the same cards does to the share made."""
    base, bold = POLICIES
    parts = []
    for p in PLAYERS:
        a = ov[(ov["players"] == p) & (ov["policy"] == base)]
        b = ov[(ov["players"] == p) & (ov["policy"] == bold)]
        if a.empty or b.empty or not a["contracts"].iloc[0] or not b["contracts"].iloc[0]:
            continue
        ra, rb = a.iloc[0], b.iloc[0]
        d = stats.compare_proportions(rb["made"], rb["contracts"], ra["made"], ra["contracts"])
        parts.append(f"{ra['rate']:.1%} to {rb['rate']:.1%} with {p} players "
                     f"({_diff(d)})")
    if not parts:
        return None
    return (f"Bidding one trick higher on the same cards ({bold}) changes the share "
            "of contracts made from " + ", ".join(parts) + ".")


def _spreads(sf: pd.DataFrame, top: pd.Series) -> dict[str, tuple[Any, ...]]:
    """Per feature with two or more values (cells of 1%+ of the contract's hands): the
    spread of the rate at the contract ``top``, and its lowest and highest rows."""
    cell = sf[(sf["players"] == top["players"]) & (sf["policy"] == POLICIES[0])
              & (sf["level"] == top["level"])]
    big = cell[cell["hands"] >= max(MIN_CELL, 0.01 * top["hands"])]
    spreads = {}
    for f, g in big.groupby("feature"):
        if len(g) >= 2:
            lo_row, hi_row = row_at(g, g["rate"].idxmin()), row_at(g, g["rate"].idxmax())
            spreads[f] = (hi_row["rate"] - lo_row["rate"], lo_row, hi_row)
    return spreads


def _widest(spreads: dict[str, tuple[Any, ...]]) -> str:
    return max(spreads, key=lambda k: spreads[k][0])


def _feature(top: pd.Series, spreads: dict[str, tuple[Any, ...]]) -> str | None:
    """The feature of the bidder's hand that moves the success rate most."""
    if not spreads:
        return None
    f = _widest(spreads)
    _, lo_row, hi_row = spreads[f]
    others = [f"{FEATURE_TEXT[k]} {100 * v[0]:.0f}" for k, v in
              sorted(spreads.items(), key=lambda kv: -kv[1][0]) if k != f]
    return (
        f"What matters most for {_bid_phrase(top['bid'])} with {top['players']} players is "
        f"the number of {FEATURE_TEXT[f]}: it is made "
        f"{_pct(lo_row['rate'], lo_row['ci_low'], lo_row['ci_high'], lo_row['hands'])} "
        f"with {int(lo_row['value'])} and "
        f"{_pct(hi_row['rate'], hi_row['ci_low'], hi_row['ci_high'], hi_row['hands'])} "
        f"with {int(hi_row['value'])}"
        + (f"; the other features move it less (largest gaps, in percentage points: "
           f"{', '.join(others)})" if others else "")
        + ".")


def _seat(ss: pd.DataFrame, top: pd.Series, spreads: dict[str, tuple[Any, ...]]) -> str | None:
    """The bidder's seat: the best and worst seat at the contract ``top``."""
    seats = ss[(ss["players"] == top["players"]) & (ss["policy"] == POLICIES[0])
               & (ss["level"] == top["level"]) & (ss["hands"] >= MIN_CELL)]
    if len(seats) < 2:
        return None
    lo_row = row_at(seats, seats["rate"].idxmin())
    hi_row = row_at(seats, seats["rate"].idxmax())
    d = stats.compare_proportions(hi_row["made"], hi_row["hands"],
                                  lo_row["made"], lo_row["hands"])
    clear = d["p_value"] < 0.01
    if spreads:
        f = _widest(spreads)
        than = "less" if d["diff"] < spreads[f][0] else "more"
        lead = f"The bidder's seat matters {than} than the number of {FEATURE_TEXT[f]}"
    else:
        lead = "By seat"
    players = int(top["players"])
    p_text = "< 0.001" if d["p_value"] < 0.001 else f"= {d['p_value']:.3f}"
    return (
        f"{lead}: with {players} players {_bid_phrase(top['bid'])} is made "
        f"{hi_row['rate']:.1%} of the time by {_seat_text(int(hi_row['seat']), players)} "
        f"and {lo_row['rate']:.1%} by {_seat_text(int(lo_row['seat']), players)}, "
        f"a difference of {_diff(d, '')} ({'a clear' if clear else 'no clear'} "
        f"seat effect, p {p_text}).")


def _points_of(top: pd.Series) -> str:
    """What the contract ``top`` is worth to the bidders and to each opponent side."""
    return (
        f"On average {_bid_phrase(top['bid'])} with {top['players']} players changes the "
        f"bidders' score by {top['bidders_points']:+.2f} points per hand (95% CI "
        f"{top['bidders_ci_low']:+.2f} to {top['bidders_ci_high']:+.2f}) and each "
        f"opponent side's by {top['opponents_points']:+.2f}; a failed number bid costs "
        f"{_rules(int(top['players'])).tricks} points.")


def findings(tables: Tables) -> list[str]:
    """Plain-language findings computed from the tables (none typed in): the most
    common contracts, bidding higher, and for the most common 4-player contract
    what in the hand and the seat matters and what it is worth."""
    sb = tables["success_by_bid"]
    out = [_common_bids(sb), _bolder(tables["overview"])]
    top = _top_bid(sb, PLAYERS[0], POLICIES[0])
    if top is not None:
        spreads = _spreads(tables["success_by_feature"], top)
        out += [_feature(top, spreads), _seat(tables["success_by_seat"], top, spreads),
                _points_of(top)]
    return [line for line in out if line is not None]


# ---------------------------------------------------------------- figures

_COLORS = {4: "tab:blue", 3: "tab:orange", 2: "tab:green"}
_BID_ORDER = [str(i) for i in range(1, 8)] + ["ndogo", "kubwa"]


def _bids_used(bids: Iterable[str]) -> list[str]:
    """The contracts in ``bids``, low to high: the categories of a bid axis."""
    used = set(bids)
    return [b for b in _BID_ORDER if b in used] or ["1"]


def _xpos(bids: Iterable[str], order: list[str]) -> np.ndarray:
    return np.array([order.index(b) for b in bids], dtype=float)


def _bid_axis(ax: Axes, order: list[str]) -> None:
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels(order)
    ax.set_xlim(-0.5, len(order) - 0.5)
    ax.set_xlabel("contract")


def _rate_bars(ax: Axes, x: np.ndarray, d: pd.DataFrame, **kw: Any) -> None:
    """The success rates of the rows ``d`` with their intervals."""
    errorbar(ax, x, d["rate"], d["ci_low"], d["ci_high"], **kw)


def _bid_panels(tables: Tables
                ) -> tuple[Figure, list[str], list[tuple[Axes, str, dict[int, pd.DataFrame]]]]:
    """A figure with one panel per policy over one contract axis, for the
    contracts of MIN_CELL+ hands: the figure, the axis order, and for each
    panel (axis, policy, {players: rows} of the player counts with rows)."""
    sb = tables["success_by_bid"]
    sb = sb[sb["hands"] >= MIN_CELL]
    order = _bids_used(sb["bid"])
    fig, axes = plt.subplots(1, len(POLICIES), figsize=(6 * len(POLICIES), 4.4),
                             sharey=True, squeeze=False)
    panels: list[tuple[Axes, str, dict[int, pd.DataFrame]]] = []
    for ax, pol in zip(axes[0], POLICIES):
        rows = sb[sb["policy"] == pol]
        by_players = {p: rows[rows["players"] == p] for p in PLAYERS}
        panels.append((ax, pol, {p: d for p, d in by_players.items() if len(d)}))
    return fig, order, panels


def _success_by_bid(tables: Tables) -> Figure:
    fig, order, panels = _bid_panels(tables)
    for ax, pol, by_players in panels:
        for p, d in by_players.items():
            _rate_bars(ax, _xpos(d["bid"], order) + (p - 3) * 0.06, d, color=_COLORS[p],
                       label=f"{p} players")
        _bid_axis(ax, order)
        ax.set_title(f"policy {pol}")
        ax.set_ylim(0, 1.02)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left")
    panels[0][0].set_ylabel("contracts made")
    fig.suptitle("Share of contracts made, by contract (95% intervals)")
    fig.tight_layout()
    return fig


def _success_by_feature(tables: Tables, policy: str) -> Figure:
    sf = tables["success_by_feature"]
    d0 = sf[sf["policy"] == policy]
    fig, axes = plt.subplots(len(PLAYERS), len(FEATURES), figsize=(16, 3.4 * len(PLAYERS)),
                             sharey="row", squeeze=False)
    cmap = plt.get_cmap("viridis")
    for i, p in enumerate(PLAYERS):
        dp = d0[d0["players"] == p]
        order = _bids_used(dp["bid"])
        bottom = max(0.0, math.floor(10 * dp["ci_low"].min() - 0.3) / 10) if len(dp) else 0.0
        for j, f in enumerate(FEATURES):
            ax = axes[i, j]
            d1 = dp[dp["feature"] == f]
            values = sorted(d1["value"].unique())
            for v in values:
                d = d1[d1["value"] == v]
                _rate_bars(ax, _xpos(d["bid"], order), d, color=cmap(0.9 * v / max(max(values), 1)),
                           label=str(v), lw=1.3)
            _bid_axis(ax, order)
            ax.set_ylim(bottom, 1.01)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
            ax.grid(alpha=0.3)
            ax.set_title(f"{p} players: {FEATURE_TEXT[f]}", fontsize=10)
            if values:
                ax.legend(title=f, fontsize=7, title_fontsize=7, loc="best", ncol=2)
            if j == 0:
                ax.set_ylabel("contracts made")
    fig.suptitle(f"Share of contracts made by contract and the bidder's hand (policy {policy}; "
                 f"cells of {MIN_CELL}+ hands)")
    fig.tight_layout()
    return fig


def _heatmap_trumps_bowers(tables: Tables) -> Figure:
    hm = tables["heatmap_trumps_bowers"]
    hm = hm[hm["hands"] >= MIN_CELL]
    top_t = int(hm["trumps"].max()) if len(hm) else 0
    low_t = int(hm["trumps"].min()) if len(hm) else 0
    fig, axes = plt.subplots(len(POLICIES), len(PLAYERS), figsize=(4.6 * len(PLAYERS),
                             0.55 * (top_t - low_t + 1) * len(POLICIES) + 1.5), squeeze=False)
    for i, pol in enumerate(POLICIES):
        for j, p in enumerate(PLAYERS):
            ax = axes[i, j]
            d = hm[(hm["policy"] == pol) & (hm["players"] == p)]
            grid = np.full((top_t + 1, 3), np.nan)
            grid[d["trumps"].to_numpy(int), d["bowers"].to_numpy(int)] = d["rate"]
            im = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto", origin="lower")
            for row in rows_of(d):
                ax.text(row.bowers, row.trumps, f"{row.rate:.0%}\nn={row.hands:,}",
                        ha="center", va="center", fontsize=6.5,
                        color="white" if row.rate >= 0.9 or row.rate <= 0.15 else "black")
            ax.set_xticks(range(3))
            ax.set_yticks(range(low_t, top_t + 1))
            ax.set_ylim(low_t - 0.5, top_t + 0.5)
            ax.set_xlabel("bowers held")
            ax.set_ylabel("trumps held")
            ax.set_title(f"{p} players, {pol}", fontsize=10)
    fig.colorbar(im, ax=axes, shrink=0.8, format=PercentFormatter(1.0), label="contracts made")
    fig.suptitle("Chance to make the contract by the bidder's trumps and bowers "
                 "(all contracts with a trump suit)")
    return fig


def _points_by_bid(tables: Tables) -> Figure:
    fig, order, panels = _bid_panels(tables)
    for ax, pol, by_players in panels:
        for p, d in by_players.items():
            x = _xpos(d["bid"], order) + (p - 3) * 0.06
            for who, ls, mk in (("bidders", "-", "o"), ("opponents", "--", "s")):
                m = d[f"{who}_points"]
                yerr = np.vstack([m - d[f"{who}_ci_low"], d[f"{who}_ci_high"] - m])
                ax.errorbar(x, m, yerr=np.nan_to_num(yerr), color=_COLORS[p], ls=ls, marker=mk,
                            ms=4, capsize=3, label=f"{p} players, {who}")
        ax.axhline(0, color="k", lw=0.8)
        _bid_axis(ax, order)
        ax.set_title(f"policy {pol}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2, loc="upper left")
    panels[0][0].set_ylabel("mean score change per hand")
    fig.suptitle("Mean score change per hand: bidding side (solid) and each opponent side "
                 "(dashed), 95% intervals")
    fig.tight_layout()
    return fig


FIGURES = (
    Plot("success_by_bid",
         "Share of contracts made for each contract, by player count (colours); left: the "
         "heuristic policy, right: the same policy bidding one trick higher. Bars are 95% "
         f"Clopper-Pearson intervals; contracts with fewer than {MIN_CELL} hands are not drawn.",
         _success_by_bid),
    Plot("success_by_feature",
         f"Policy {POLICIES[0]}: share of contracts made by contract, one row per player count "
         "and one panel per feature of the bidder's hand; each line is one value of the "
         "feature (darker = fewer).",
         partial(_success_by_feature, policy=POLICIES[0])),
    Plot("success_by_feature_2", f"The same for policy {POLICIES[1]}.",
         partial(_success_by_feature, policy=POLICIES[1])),
    Plot("heatmap_trumps_bowers",
         "Chance to make the contract (all contracts with a trump suit pooled) by the number "
         "of trumps (rows) and bowers (columns) in the bidder's hand, one row of panels per "
         "policy; each cell gives the rate and the number of hands (cells of "
         f"{MIN_CELL}+ hands).",
         _heatmap_trumps_bowers),
    Plot("points_by_bid",
         "Mean score change per hand by contract: the bidding side (solid) and each opponent "
         "side on average (dashed), by player count, with 95% intervals.",
         _points_by_bid),
)


# ---------------------------------------------------------------- the study

DESCRIPTIONS = {
    "overview": "Every hand dealt per player count and policy: hands thrown in (everyone "
                "passed), contracts played, and the share of contracts made (rate, 95% CI).",
    "success_by_bid": "Per contract: hands, share of all hands dealt, contracts made and the "
                      "rate (95% CI); bidders_points is the bidding side's mean score change "
                      "per hand, opponents_points that of each other side on average (95% "
                      "t intervals).",
    "success_by_feature": "Per contract and one feature of the bidder's hand with its chosen "
                          "trump (trumps held, bowers held, aces outside trumps, void suits "
                          f"outside trumps); contracts with a trump suit, cells of {MIN_CELL}+ "
                          "hands.",
    "success_by_seat": "Per contract and the bidder's seat counted clockwise from the dealer "
                       "(1 = left of the dealer, the first to bid; the last = the dealer).",
    "heatmap_trumps_bowers": "All contracts with a trump suit pooled, by the trumps and bowers "
                             "in the bidder's hand.",
}


def _notes(hands: int, seed: int) -> list[str]:
    return [
        "Rules: the seed's defaults (seeds/pepper.md) for each player count: open auction, "
        "a thrown-in hand when everyone passes, no-trump contracts allowed, a failed number bid "
        "costs the hand size, Ndogo 1x and Kubwa 2x the hand size.",
        f"Each player count is simulated twice on the same deals (seed {seed}, hands 0 to "
        f"{hands - 1:,}; hand i dealt by seat i mod players): once with the {POLICIES[0]} policy "
        f"at every seat and once with {POLICIES[1]} at every seat. Each row gives its policy.",
        "A contract's success rate describes the hands on which that policy chose that contract: "
        "it is not the chance that an arbitrary hand makes that bid.",
        "Rates use Clopper-Pearson exact 95% intervals; mean score changes use t intervals from "
        "the count, sum and sum of squares (simkit.base.stats). Differences of rates (summary) use "
        "Newcombe's interval and a chi-square test, which treat the two samples as independent; "
        "for the two policies, played on the same deals, they are conservative.",
        "Bidder features are computed with the trump the bidder chose: trumps held (bowers "
        "included), bowers held (0-2), aces outside trumps, void suits outside trumps. "
        "No-trump contracts (column no_trump of the overview) count in overview, success_by_bid "
        "and success_by_seat, but not in success_by_feature or the trumps x bowers heatmap.",
        f"Feature cells with fewer than {MIN_CELL} hands are left out of success_by_feature, and "
        f"cells with fewer than {MIN_CELL} hands are not drawn in the figures; the other tables "
        "keep every non-empty cell.",
    ]


def _provenance(hands: int) -> dict[str, Any]:
    return {"hands": hands * len(RUNS),
            "rules": {p: make_rules(players=p).as_dict() for p in PLAYERS},
            "policies": {pol: make_policies(pol, 1)[0].text() for pol in POLICIES},
            "hands_per_table": hands,
            "tables": [{"players": p, "policy": pol} for p, pol in RUNS]}


STUDY = Study(NAME, TITLE, DEFAULT_HANDS,
              kernels=("pepper:hands",),
              size="hands per table, 6 tables",
              simulate=simulate_tables, findings=findings,
              figures=FIGURES, provenance=_provenance, descriptions=DESCRIPTIONS, notes=_notes)


def run(hands: int | None = None, seed: int = 0, progress: bool = False,
        threads: int | None = None) -> StudyResult:
    """The study: tables, findings, figures, notes and provenance."""
    return STUDY.run(hands, seed, progress, threads)
