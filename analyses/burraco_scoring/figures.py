"""The burraco-scoring study's figures, each drawn from its tables (:data:`FIGURES`)."""

from __future__ import annotations

from functools import partial

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from analyses.burraco_scoring import simulate as sim
from analyses.common import Plot, Tables, difference_panels, errorbar
from simkit.base.rows import rows_of

COLORS = {"team 0": "tab:blue", "team 1": "tab:orange", "starting": "tab:green",
          "dealing": "tab:red"}


def _histogram_panel(ax: Axes, hi: pd.DataFrame, sc: pd.DataFrame) -> None:
    """The distribution of a team's hand score with its 5%, 50% and 95% quantiles."""
    for side, d in hi.groupby("side", sort=False):
        ax.step(d["score_from"] + sim.BIN / 2, d["share"], where="mid", color=COLORS[str(side)],
                label=side)
        q = sc[sc["side"] == side].iloc[0]
        for name, ls in (("q05", ":"), ("median", "-"), ("q95", ":")):
            ax.axvline(q[name], color=COLORS[str(side)], ls=ls, lw=0.8)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(f"hand score ({sim.BIN}-point bins; lines: 5%, 50%, 95% quantiles)")
    ax.set_ylabel("share of hands")
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title("Distribution of a team's hand score")


def _parts_panel(ax: Axes, pa: pd.DataFrame) -> None:
    """The mean score and its parts per side."""
    order = ("score", *sim.PARTS)
    for i, side in enumerate(sim.SIDES):
        d = pa[pa["side"] == side].set_index("part").loc[list(order)]
        y = np.arange(len(order)) + (i - 1.5) * 0.18
        m = d["mean"].to_numpy(float)
        ax.barh(y, m, height=0.18, color=COLORS[str(side)], label=side,
                xerr=np.nan_to_num(np.vstack([m - d["ci_low"], d["ci_high"] - m])), capsize=2)
    ax.set_yticks(np.arange(len(order)), [o.replace("_", " ") for o in order])
    ax.invert_yaxis()
    ax.axvline(0, color="k", lw=0.8)
    ax.set_xlabel("mean points per hand (95% intervals)")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(fontsize=8)
    ax.set_title("The score and its parts")


def _scores(tables: Tables) -> Figure:
    fig, axes = plt.subplots(1, 2, figsize=(14, 5), gridspec_kw={"width_ratios": [1.4, 1]})
    _histogram_panel(axes[0], tables["score_histogram"], tables["scores"])
    _parts_panel(axes[1], tables["score_parts"])
    fig.tight_layout()
    return fig


def _burracos(tables: Tables) -> Figure:
    bu = tables["burracos"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
    for ax, kind in zip(axes, ("clean", "dirty")):
        for i, side in enumerate(sim.SIDES):
            d = bu[(bu["side"] == side) & (bu["kind"] == kind)]
            x = np.arange(len(sim.COUNTS)) + (i - 1.5) * 0.2
            m = d["share"].to_numpy(float)
            ax.bar(x, m, width=0.2, color=COLORS[str(side)],
                   label=f"{side} (mean {d['mean'].iloc[0]:.3f})",
                   yerr=np.nan_to_num(np.vstack([m - d["ci_low"], d["ci_high"] - m])), capsize=2)
        ax.set_xticks(range(len(sim.COUNTS)), sim.COUNTS)
        ax.set_xlabel(f"{kind} burracos of the team in the hand")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8)
        ax.set_title(f"{kind.capitalize()} burracos per team and hand")
    axes[0].set_ylabel("share of hands")
    fig.tight_layout()
    return fig


def _turns_panel(ax: Axes, tu: pd.DataFrame) -> None:
    """Turns per hand, all hands and by ending: 5-95% line, 25-75% box, median, mean."""
    for i, r in enumerate(rows_of(tu)):
        qs = [getattr(r, n) for _, n in sim.QUANTILES]
        ax.plot([qs[0], qs[-1]], [i, i], color="grey")
        ax.plot([qs[1], qs[3]], [i, i], color="tab:blue", lw=6, solid_capstyle="butt")
        ax.plot([qs[2]], [i], "k|", ms=14)
        ax.plot([r.mean], [i], "o", color="tab:red", ms=5)
    ax.set_yticks(range(len(tu)), [f"{r.ended} (n={r.hands:,})" for r in rows_of(tu)])
    ax.invert_yaxis()
    ax.set_xlabel("turns per hand (line 5-95%, box 25-75%, | median, dot mean)")
    ax.grid(alpha=0.3, axis="x")
    ax.set_title("Turns per hand")


def _endings(tables: Tables) -> Figure:
    en, cl = tables["endings"], tables["closing"]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    ax = axes[0]
    errorbar(ax, np.arange(len(en)), en["share"], en["ci_low"], en["ci_high"], ls="none")
    ax.set_xticks(range(len(en)), en["ended"])
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.set_title("How hands end")
    ax = axes[1]
    errorbar(ax, np.arange(len(cl)), cl["closing_rate"], cl["closing_ci_low"],
             cl["closing_ci_high"], ls="none")
    ax.set_xticks(range(len(cl)), cl["side"])
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.grid(alpha=0.3)
    ax.set_title("Share of hands in which the side goes out")
    _turns_panel(axes[2], tables["turns"])
    fig.tight_layout()
    return fig


def _game_length(tables: Tables) -> Figure:
    gl, ga = tables["game_length"], tables["games"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.bar(gl["hands_per_game"], gl["share"], color="tab:blue",
           yerr=np.nan_to_num(np.vstack([gl["share"] - gl["ci_low"],
                                         gl["ci_high"] - gl["share"]])), capsize=3)
    ax.axvline(ga["mean"].iloc[0], color="tab:red", ls="--", label="mean")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("hands per game to 2000")
    ax.set_ylabel("share of games")
    ax.grid(alpha=0.3, axis="y")
    ax.legend()
    ax.set_title("Game length, heuristic players")
    fig.tight_layout()
    return fig


POLICY_COLORS = {"heuristic": "tab:blue", "patient": "tab:green", "random": "tab:grey"}
PLAY_LABELS = {"sets": "sets", "sequences": "sequences", "wilds": "wild cards",
               "clean_burracos": "clean burracos", "dirty_burracos": "dirty burracos",
               "sequence_share": "sequences\namong melds", "clean_share": "clean among\nburracos"}


def _play_figure(tables: Tables) -> Figure:
    """Per policy: what a team lays down in a hand (left) and the shares (right)."""
    pl = tables["play"]
    means = [name for name, _, _, den in sim.PLAY if den is None]
    shares = [name for name, _, _, den in sim.PLAY if den is not None]
    fig, axes = plt.subplots(1, 2, figsize=(14, 4.5), gridspec_kw={"width_ratios": [1.6, 1]})
    width = 0.8 / len(sim.POLICIES)
    for ax, names in ((axes[0], means), (axes[1], shares)):
        for i, pol in enumerate(sim.POLICIES):
            d = pl[pl["policy"] == pol].set_index("measure").loc[names]
            y = np.arange(len(names)) + (i - (len(sim.POLICIES) - 1) / 2) * width
            m = d["estimate"].to_numpy(float)
            ax.barh(y, m, height=width, color=POLICY_COLORS.get(pol, f"C{i}"), label=pol,
                    xerr=np.nan_to_num(np.vstack([m - d["ci_low"], d["ci_high"] - m])),
                    capsize=2)
        ax.set_yticks(np.arange(len(names)), [PLAY_LABELS[n] for n in names])
        ax.invert_yaxis()
        ax.grid(alpha=0.3, axis="x")
        ax.legend(fontsize=8)
    axes[0].set_xlabel("mean per team-hand (95% intervals)")
    axes[0].set_title("What a team lays down in a hand")
    axes[1].xaxis.set_major_formatter(PercentFormatter(1.0))
    axes[1].set_xlabel("share (95% intervals)")
    axes[1].set_title("Sequences among melds, clean among burracos")
    fig.tight_layout()
    return fig


def _differences(tables: Tables, key: str, label_col: str, base: str,
                 what: str) -> Figure:
    """The rows of table ``key`` other than ``base`` against ``base`` (``what``)."""
    t = tables[key]
    v = t[t[label_col] != base]
    return difference_panels(
        v, list(v[label_col]),
        [(col, scale, f"difference: {label}")
         for col, scale, label in (("score", 1, "mean score per team-hand"),
                                   ("clean", 1, "clean burracos per team-hand"),
                                   ("dirty", 1, "dirty burracos per team-hand"),
                                   ("closing", 100, "closing rate (points)"))],
        width=17, title=f"{key.capitalize()} against {what} (95% intervals; red: p < 0.05)")


FIGURES = (
    Plot("scores", "Left: the share of hands with each team score, heuristic players, with the "
         "5%, 50% and 95% quantiles. Right: the mean score and its parts per side (95% "
         "intervals); the parts sum to the score.", _scores),
    Plot("burracos", "The share of hands in which a side makes 0, 1, 2 or 3+ clean (left) or "
         "dirty (right) burracos, with 95% intervals; the legend gives the mean.", _burracos),
    Plot("endings", "Left: how hands end. Middle: the share of hands in which each side goes "
         "out. Right: turns per hand, all hands and by ending.", _endings),
    Plot("game_length", "Hands per game to 2000 with heuristic players (95% intervals; "
         "dashed: the mean).", _game_length),
    Plot("policies", "Patient and random players at every seat against heuristic players: "
         "differences per team-hand with 95% intervals (red: p < 0.05).",
         partial(_differences, key="policies", label_col="policy", base=sim.BASE,
                 what="heuristic players")),
    Plot("play", "How the simulated players meld, the seed's rules, the same policy at every "
         "seat. Left: sets, sequences, wild cards and clean and dirty burracos a team has on "
         "the table at the end of a hand (mean per team-hand). Right: the share of sequences "
         "among the melds and of clean burracos among the burracos. 95% intervals.",
         _play_figure),
    Plot("variants", "Each preset against the seed's rules, heuristic players: differences "
         "per team-hand with 95% intervals (red: p < 0.05).",
         partial(_differences, key="variants", label_col="preset", base=sim.SEED_PRESET,
                 what="the seed's rules")),
)
