"""The pitch-payouts study's figures, each drawn from its tables (:data:`FIGURES`)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from analyses.common import RGBA, Plot, Tables, errorbar, finish, int_groups
from analyses.pitch_payouts.simulate import DROP_IN, PLAYERS, SESSION_HANDS, STUDY_PLAYERS
from simkit.base.rows import rows_of
from simkit.pitch.rules import BIDS

_CMAP = plt.get_cmap("viridis")


def _color(players: int) -> RGBA:
    return _CMAP((players - PLAYERS[0]) / (len(PLAYERS) - 0.5))


def _money_per_hand(tables: Tables) -> Figure:
    mh = tables["money_per_hand"]
    fig, ax = plt.subplots(figsize=(8, 5))
    for p, d in int_groups(mh, "players"):
        errorbar(ax, d["seat"], 100 * d["money"], 100 * d["ci_low"], 100 * d["ci_high"],
                 color=_color(p), label=f"{p} players")
        last = d[d["seat"] == p]
        ax.plot(last["seat"], 100 * last["money"], "s", ms=9, mfc="none", color=_color(p))
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("seat (1 = left of the dealer, first to bid; squares: the dealer)")
    ax.set_ylabel("money per hand (cents)")
    ax.set_xticks(range(1, max(PLAYERS) + 1))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    ax.set_title("Expected money per hand by seat (95% intervals)")
    fig.tight_layout()
    return fig


def _drop_in_panel(ax: Axes, di: pd.DataFrame) -> None:
    """The drop-in groups' money per session, with each group's standard deviation."""
    if len(di):
        x = np.arange(len(di))
        y = 100 * di["money"].to_numpy()
        ax.bar(x, y, color=["tab:blue"] * (len(di) - 2) + ["tab:grey", "tab:orange"])
        errorbar(ax, x, y, 100 * di["ci_low"], 100 * di["ci_high"], color="k", ls="none")
        for xi, r in zip(x, rows_of(di)):
            if math.isfinite(r.money_sd):
                ax.annotate(f"sd {100 * r.money_sd:.0f}", (xi, 0), ha="center", va="bottom",
                            fontsize=7, xytext=(0, 2), textcoords="offset points")
        ax.set_xticks(x, [g.replace("starter, ", "") for g in di["group"]],
                      rotation=30, ha="right", fontsize=8)
        ax.axhline(0, color="k", lw=0.8)
    ax.set_title(f"{STUDY_PLAYERS} players, {DROP_IN}: starters vs joiners")
    ax.set_ylabel("money per session (cents)")


def _money_per_session(tables: Tables) -> Figure:
    ms = tables["money_per_session"]
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.8), gridspec_kw={"width_ratios": [3, 3, 2]})
    for p, d in int_groups(ms, "players"):
        errorbar(axes[0], d["seat"], 100 * d["money"], 100 * d["ci_low"], 100 * d["ci_high"],
                 color=_color(p), label=f"{p} players")
        axes[0].plot(d["seat"], 100 * d["from_hands"], ls=":", marker="x", color=_color(p))
        axes[1].plot(d["seat"], 100 * d["money_sd"], marker="o", color=_color(p),
                     label=f"{p} players")
    axes[0].axhline(0, color="k", lw=0.8)
    axes[0].set_title("mean per session (dotted x: implied by the per-hand table)")
    axes[0].set_ylabel("money per session (cents)")
    axes[1].set_title("risk: standard deviation per session")
    axes[1].set_ylabel("cents")
    axes[1].set_ylim(bottom=0)
    for ax in axes[:2]:
        ax.set_xlabel("starting seat (1 = left of the first dealer)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2, loc="best")
    _drop_in_panel(axes[2], tables["drop_in_sessions"])
    fig.suptitle(f"Money per {SESSION_HANDS}-hand session (95% intervals)")
    fig.tight_layout()
    return fig


def _against_field(fig: Figure, axes: Iterable[Axes], xlabel: str, what: str) -> Figure:
    """Finish a figure of one player against default heuristics: x labels, grids, title."""
    return finish(fig, axes, xlabel,
                  f"{what} against {STUDY_PLAYERS - 1} default heuristics (95% intervals)")


def _aggression(tables: Tables) -> Figure:
    ag = tables["aggression"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    errorbar(axes[0], ag["aggression"], 100 * ag["diff"], 100 * ag["diff_ci_low"],
             100 * ag["diff_ci_high"], color="tab:red", label="difference from aggression 0")
    axes[0].plot(ag["aggression"], 100 * ag["money"], "s--", color="tab:grey", ms=4,
                 label="money per hand")
    axes[0].axhline(0, color="k", lw=0.8)
    axes[0].set_ylabel("cents per hand")
    axes[0].set_title("the player's money per hand")
    axes[0].legend(fontsize=8)
    for col, lo, hi, label, c in (("pitch_rate", "pitch_ci_low", "pitch_ci_high",
                                   "pitch rate (share of hands)", "tab:blue"),
                                  ("made_rate", "made_ci_low", "made_ci_high",
                                   "made rate (share of its contracts)", "tab:green")):
        errorbar(axes[1], ag["aggression"], ag[col], ag[lo], ag[hi], color=c, label=label)
    axes[1].set_ylim(0, 1.02)
    axes[1].yaxis.set_major_formatter(PercentFormatter(1.0))
    axes[1].set_title("how often it pitches and makes its bid")
    axes[1].legend(fontsize=8)
    return _against_field(fig, axes, "the player's aggression (points added to its hand "
                          "estimate)", "One player's bidding aggression")


def _moon_money_panel(ax: Axes, x: np.ndarray, mo: pd.DataFrame) -> None:
    """Money per hand against never bidding the moon, and its standard deviation."""
    errorbar(ax, x, 100 * mo["diff"], 100 * mo["diff_ci_low"], 100 * mo["diff_ci_high"],
             color="tab:red", ls="none", label="money per hand vs never (cents)")
    ax2 = ax.twinx()
    ax2.plot(x, 100 * mo["money_sd"], "d:", color="tab:blue", label="sd per hand (cents)")
    ax2.set_ylabel("standard deviation per hand (cents)", color="tab:blue")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_ylabel("cents per hand against never")
    ax.set_title("money per hand and its risk")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="center left")


def _moon(tables: Tables) -> Figure:
    mo = tables["moon"]
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.6))
    x = np.arange(len(mo))
    labels = [f"{r.setting}\n({r.moon_rule}, {r.moon_trumps}, {r.moon_run})"
              for r in rows_of(mo)]
    errorbar(axes[0], x, mo["success_rate"], mo["success_ci_low"], mo["success_ci_high"],
             color="tab:purple", ls="none")
    for xi, r in zip(x, rows_of(mo)):
        axes[0].annotate(f"{r.moon_bids:,} bids\n{r.per_1000:.3g}/1000", (xi, -0.1),
                         ha="center", va="center", fontsize=7)
    axes[0].set_ylim(-0.18, 1.05)
    axes[0].yaxis.set_major_formatter(PercentFormatter(1.0))
    axes[0].set_title("moon bids made")
    errorbar(axes[1], x, mo["gain_per_bid"], mo["gain_ci_low"], mo["gain_ci_high"],
             color="tab:red", ls="none", label="gain per moon bid (vs never)")
    axes[1].plot(x, mo["money_per_bid"], "s", color="tab:grey", label="money on a moon bid")
    axes[1].axhline(0, color="k", lw=0.8)
    axes[1].set_ylabel("dollars per moon bid")
    axes[1].set_title("value of a moon bid")
    axes[1].legend(fontsize=8)
    _moon_money_panel(axes[2], x, mo)
    for ax in axes:
        ax.set_xticks(x, labels, fontsize=7)
    return _against_field(fig, axes, "the player's (moon_rule, moon_trumps, moon_run)",
                          "Shooting the moon: one player's moon rule")


def _bids(tables: Tables) -> Figure:
    bi = tables["bids"]
    order = list(BIDS[1:])
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.6))
    for p, d in int_groups(bi, "players"):
        d = d[d["hands"] > 0]
        xs = np.array([order.index(b) for b in d["bid"]]) + (p - 5) * 0.04
        errorbar(axes[0], xs, d["rate"], d["ci_low"], d["ci_high"], color=_color(p),
                 label=f"{p} players")
        axes[1].plot(xs, d["share"], "o-", color=_color(p), label=f"{p} players")
        errorbar(axes[2], xs, d["pitcher_money"], d["pitcher_money_ci_low"],
                 d["pitcher_money_ci_high"], color=_color(p), label=f"{p} players")
    axes[0].set_ylim(0, 1.05)
    axes[0].yaxis.set_major_formatter(PercentFormatter(1.0))
    axes[0].set_title("bids made (Clopper-Pearson 95%)")
    axes[1].set_yscale("log")
    axes[1].set_title("share of hands at each contract (log scale)")
    axes[2].set_yscale("symlog", linthresh=0.1)
    axes[2].axhline(0, color="k", lw=0.8)
    axes[2].set_title("pitcher's money per hand (dollars, symlog)")
    for ax in axes:
        ax.set_xticks(range(len(order)), order)
        ax.set_xlabel("contract")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle("Contracts by player count (heuristic players)")
    fig.tight_layout()
    return fig


FIGURES = (
    Plot("money_per_hand",
         "Expected money per hand (cents) by seat relative to the dealer, one line per player "
         "count; squares mark the dealer. Bars are 95% intervals (mostly smaller than the "
         "markers).",
         _money_per_hand),
    Plot("money_per_session",
         f"Left: mean money per {SESSION_HANDS}-hand session by starting seat, with the mean "
         "implied by the per-hand table (dotted). Middle: its standard deviation, the risk of "
         f"a session. Right: {STUDY_PLAYERS}-player {DROP_IN} sessions, starters by seat "
         "(blue), all starters (grey) and players who joined later (orange), with each "
         "group's standard deviation.",
         _money_per_session),
    Plot("aggression",
         "Left: the player's money per hand as its aggression varies (grey) and its paired "
         "difference from aggression 0 (red, 95% intervals). Right: how often it wins the "
         "auction and how often it makes its contract.",
         _aggression),
    Plot("moon",
         "One player's moon rule (moon_trumps, moon_run), the rest default. Left: the share "
         "of its moon bids made (95% Clopper-Pearson), with the number of bids. Middle: its "
         "money on a moon bid and the gain over not bidding the moon on the same deals "
         "(dollars). Right: its money per hand against never bidding the moon (red, cents) "
         "and the standard deviation of its money per hand (blue).",
         _moon),
    Plot("bids",
         "Per contract and player count: share of bids made (left), share of hands at that "
         "contract (middle, log scale) and the pitcher's mean money per hand (right). Bars "
         "are 95% intervals.",
         _bids),
)
