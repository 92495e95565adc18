"""The shiesta-strategy study's figures, each drawn from its tables (:data:`FIGURES`)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from analyses.common import (
    RGBA,
    Plot,
    Tables,
    difference_panels,
    errorbar,
    finish,
    int_groups,
    player_color,
)
from analyses.shiesta_strategy.simulate import (
    BIN,
    DEALT,
    LENGTH_POLICIES,
    PLAYERS,
    SEED_PRESET,
    STUDY_PLAYERS,
)
from simkit.base.rows import rows_of
from simkit.shiesta.rules import SPECIAL_TEXT


def _color(players: int) -> RGBA:
    return player_color(players, PLAYERS, 0.4)


def _seats(tables: Tables) -> Figure:
    se = tables["seats"]
    fig, ax = plt.subplots(figsize=(8, 5))
    for p, d in int_groups(se, "players"):
        u = d.iloc[0]
        errorbar(ax, d["seat"] + (p - 4) * 0.05, d["win_rate"], d["ci_low"], d["ci_high"],
                 color=_color(p), label=f"{p} players (unfinished {u['unfinished_rate']:.2%})")
        ax.axhline(1 / p, color=_color(p), ls="--", lw=0.9)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xticks(range(max(PLAYERS)), ["starter"] + [f"+{s}" for s in range(1, max(PLAYERS))])
    ax.set_xlabel("seat, counted clockwise from the starter")
    ax.set_ylabel("win rate")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Win rate by seat, heuristic players (dashed: fair 1/N)")
    fig.tight_layout()
    return fig


def _pairs_panel(fig: Figure, ax: Axes, rr: pd.DataFrame, labels: list[str]) -> None:
    """A's share of the decisive games against B, as a matrix (n.s.: p >= 0.05)."""
    M = np.full((len(labels), len(labels)), np.nan)
    for r in rows_of(rr):
        M[labels.index(r.policy), labels.index(r.opponent)] = r.share
    dev = np.nanmax(np.abs(M - 0.5)) if np.isfinite(M).any() else 0.1
    im = ax.imshow(M, cmap="RdBu", vmin=0.5 - dev, vmax=0.5 + dev)
    sig = {(r.policy, r.opponent): r.p_value < 0.05 for r in rows_of(rr)}
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            if i != j and math.isfinite(M[i, j]):
                ax.text(j, i, f"{100 * M[i, j]:.1f}%" + ("" if sig.get((a, b)) else "\n(n.s.)"),
                        ha="center", va="center", fontsize=8,
                        color="white" if abs(M[i, j] - 0.5) > 0.6 * dev else "black")
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("opponent B")
    ax.set_ylabel("policy A")
    ax.set_title("A's share of the decisive games, A vs B")
    fig.colorbar(im, ax=ax, format=PercentFormatter(1.0), shrink=0.85)


def _round_robin(tables: Tables) -> Figure:
    rr, sc = tables["round_robin"], tables["policy_scores"]
    labels = list(sc["policy"])
    fig, axes = plt.subplots(1, 2, figsize=(14, 5.5), gridspec_kw={"width_ratios": [1.25, 1]})
    _pairs_panel(fig, axes[0], rr, labels)
    ax = axes[1]
    y = np.arange(len(sc))
    sc_lo, sc_hi = sc["ci_low"].to_numpy(float), sc["ci_high"].to_numpy(float)
    s = sc["score"].to_numpy(float)
    ax.errorbar(s, y, xerr=np.nan_to_num(np.vstack([s - sc_lo, sc_hi - s])), fmt="o",
                capsize=3, color="tab:blue")
    ax.axvline(0.5, color="k", lw=0.8)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_title("overall score (95% intervals)")
    return finish(fig, [ax], "share of the decisive games at all its tables",
                  f"Round robin of policies, {STUDY_PLAYERS} players")


def _specials(tables: Tables) -> Figure:
    sp = tables["specials"]
    fig, ax = plt.subplots(figsize=(8, 5))
    colors = dict(zip(SPECIAL_TEXT, ("tab:blue", "tab:red", "tab:green", "tab:orange")))
    for i, (rank, d) in enumerate(sp.groupby("rank", sort=False)):
        d = d[d["player_games"] > 0]
        errorbar(ax, d["k"] + (i - 1.5) * 0.04, d["win_rate"], d["ci_low"], d["ci_high"],
                 color=colors.get(str(rank)), label=f"{rank}s")
    if len(sp):
        ax.axhline(sp["fair"].iloc[0], color="k", ls="--", lw=0.8)
    ax.set_xticks(range(len(DEALT)), DEALT)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("cards of that rank among the player's 11 dealt cards")
    ax.set_ylabel("win rate")
    ax.grid(alpha=0.3)
    ax.legend(title="rank")
    ax.set_title(f"The value of the special cards ({STUDY_PLAYERS} heuristic players; dashed: "
                 "fair 1/N)")
    fig.tight_layout()
    return fig


def _length_panel(ax: Axes, hi: pd.DataFrame, gl: pd.DataFrame, pol: str) -> None:
    """The distribution of game length with policy ``pol``, one line per player count."""
    for p, d in int_groups(hi[hi["policy"] == pol], "players"):
        q = gl[(gl["policy"] == pol) & (gl["players"] == p)]
        cap = int(q["max_turns"].iloc[0]) if len(q) else None
        body = d[d["turns_to"] < cap] if cap is not None else d
        share = body["share"].where(body["share"] > 0)       # empty bins: gaps
        ax.step(body["turns_from"], share, where="post", color=_color(p), label=f"{p} players")
        last = d[d["turns_to"] >= cap] if cap is not None else d.iloc[:0]
        last = last[last["share"] > 0]
        ax.plot(last["turns_from"], last["share"], "s", color=_color(p), ms=6, mfc="none")
        if len(q):
            qs = q.iloc[0]
            for name, ls in (("median", "-"), ("p90", "--"), ("p99", ":")):
                ax.axvline(qs[name], color=_color(p), ls=ls, lw=0.9)
    ax.set_yscale("log")
    ax.set_xlabel(f"turns per game ({BIN}-turn bins; squares: games at the turn cap)")
    ax.set_title(f"{pol} players")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def _game_length(tables: Tables) -> Figure:
    fig, axes = plt.subplots(1, 2, figsize=(14, 5), sharey=True)
    for ax, pol in zip(axes, LENGTH_POLICIES):
        _length_panel(ax, tables["turns_histogram"], tables["game_length"], pol)
    axes[0].set_ylabel("share of games")
    fig.suptitle("Game length: vertical lines mark the median (solid), 90% (dashed) and 99% "
                 "(dotted) quantiles")
    fig.tight_layout()
    return fig


def _variants(tables: Tables) -> Figure:
    va = tables["variants"]
    v = va[va["preset"] != SEED_PRESET]
    return difference_panels(
        v, [f"{r.preset} ({r.players}p)" for r in rows_of(v)],
        [(col, scale, f"difference from the seed's rules: {label}")
         for col, scale, label in (("starter", 100, "starter's win rate (points)"),
                                   ("turns", 1, "mean turns per game"),
                                   ("unfinished", 100, "unfinished rate (points)"))],
        width=16, title="Rule variants against the seed's rules, heuristic players (95% "
                        "intervals; red: p < 0.05)")


FIGURES = (
    Plot("seats", "Win rate of each seat counted from the starter with 3, 4 and 5 heuristic "
         "players (95% Clopper-Pearson intervals); dashed lines are the fair 1/N. The legend "
         "gives each table's unfinished rate.", _seats),
    Plot("round_robin", f"Left: A's share of the decisive games of the two {STUDY_PLAYERS}-player "
         "tables A B A B and B A B A, row A against column B (n.s.: p >= 0.05 against 1/2). "
         "Right: each policy's score over all its tables with 95% intervals; 50% is even.",
         _round_robin),
    Plot("specials", "Win rate of a player by the number of 2s, 3s, 7s and 10s among the 11 "
         f"cards dealt to them, {STUDY_PLAYERS} heuristic players (95% Clopper-Pearson "
         "intervals; dashed: the fair 1/4).", _specials),
    Plot("game_length", "Share of games by length (turns, log scale, 10-turn bins) with "
         "heuristic (left) and random (right) players at every seat, 3 to 5 players, with each "
         "table's median, 90% and 99% quantiles; squares mark the games that reached the turn "
         "cap (unfinished).", _game_length),
    Plot("variants", "Each preset minus the seed's rules at the same player count: the "
         "starter's win rate and the unfinished rate in percentage points, and the mean turns "
         "per game, with 95% intervals (red: p < 0.05).", _variants),
)
