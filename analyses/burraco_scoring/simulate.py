"""The burraco-scoring study's settings and its simulation: the tables it plays and the rows it
reduces them to (:func:`simulate_tables`)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats as sst

from analyses.common import diff_cols, proportion
from simkit.base import stats
from simkit.burraco.api import simulate, simulate_games
from simkit.burraco.policies import make_policies
from simkit.burraco.rules import PRESETS
from simkit.burraco.summary import ENDED
from simkit.engine import RunSettings

NAME = "burraco-scoring"
TITLE = "Burraco: scoring distributions"
#: Hands per simulated hand table (12 hand tables; game tables play hands // 10 games).
DEFAULT_HANDS = 15_000

BASE = "heuristic"
POLICIES = ("heuristic", "patient", "random")
MIXED = (("heuristic on 0 and 2", ["heuristic", "patient", "heuristic", "patient"], 0),
         ("heuristic on 1 and 3", ["patient", "heuristic", "patient", "heuristic"], 1))
SEED_PRESET = "seed"
VARIANTS = tuple(p for p in PRESETS if p != SEED_PRESET)
SIDES = ("team 0", "team 1", "starting", "dealing")
PARTS = ("melded", "hand_penalty", "burraco_bonus", "closing_bonus", "pozzetto_penalty")
COUNTS = ("0", "1", "2", "3+")
QUANTILES = ((0.05, "q05"), (0.25, "q25"), (0.5, "median"), (0.75, "q75"), (0.95, "q95"))
BIN = 50                              # points per bin of score_histogram
MIN_GAMES = 20
#: The play table's measures: (name, what the row counts, the numerator's column
#: stems, the denominator's: None for a mean per team-hand, else a share of them).
PLAY = (("sets", "team-hand", ("sets",), None),
        ("sequences", "team-hand", ("sequences",), None),
        ("sequence_share", "meld", ("sequences",), ("melds",)),
        ("wilds", "team-hand", ("wilds",), None),
        ("clean_burracos", "team-hand", ("clean_burraco",), None),
        ("dirty_burracos", "team-hand", ("dirty_burraco",), None),
        ("clean_share", "burraco", ("clean_burraco",), ("clean_burraco", "dirty_burraco")))


def games_per_table(hands: int) -> int:
    return max(hands // 10, MIN_GAMES)


def _spec_text(spec: str | list[str]) -> str:
    return ",".join(p.text() for p in make_policies(spec, 1 if isinstance(spec, str) else 4)[:4])


def plan(hands: int) -> list[tuple[Any, ...]]:
    """The simulated tables in stream order: (kind, key, preset, policy, unit, size, start)."""
    g = games_per_table(hands)
    out: list[tuple[Any, ...]] = [("base", BASE, SEED_PRESET, BASE, "hands", hands)]
    out += [("policy", p, SEED_PRESET, p, "hands", hands) for p in POLICIES if p != BASE]
    out += [("mixed", lab, SEED_PRESET, pol, "hands", hands) for lab, pol, _ in MIXED]
    out += [("mixed_games", lab, SEED_PRESET, pol, "games", g) for lab, pol, _ in MIXED]
    out.append(("games", BASE, SEED_PRESET, BASE, "games", g))
    out += [("variant", v, v, BASE, "hands", hands) for v in VARIANTS]
    starts = np.concatenate([[0], np.cumsum([t[-1] for t in out])[:-1]])
    return [(*t, int(s)) for t, s in zip(out, starts)]


# ---------------------------------------------------------------- helpers

def _mean(x: ArrayLike) -> dict[str, Any]:
    x = np.asarray(x, float)
    m, lo, hi = stats.mean_ci_of(x)
    return {"mean": m, "ci_low": lo, "ci_high": hi}


def _suff(x: ArrayLike) -> tuple[float, float, float]:
    x = np.asarray(x, float)
    return float(x.size), float(x.sum()), float((x * x).sum())


def _quantile(sorted_x: np.ndarray, q: float) -> tuple[float, float, float]:
    """The q-quantile (inverse of the empirical CDF) of sorted values and its
    distribution-free 95% interval from order statistics."""
    n = len(sorted_x)
    if n == 0:
        return math.nan, math.nan, math.nan

    def at(rank: float) -> float:                         # the rank-th smallest (1-based)
        return float(sorted_x[min(max(int(rank), 1), n) - 1])

    est = max(math.ceil(q * n), 1)
    lo = sst.binom.ppf(0.025, n, q)
    hi = sst.binom.ppf(0.975, n, q) + 1
    return at(est), min(at(lo), at(est)), max(at(hi), at(est))


def _dist(x: ArrayLike, n_label: str = "hands") -> dict[str, Any]:
    """Mean, sd and the QUANTILES of values x, each with its interval."""
    x = np.asarray(x, float)
    out = {n_label: len(x), **_mean(x), "sd": float(np.std(x, ddof=1)) if len(x) > 1 else math.nan}
    s = np.sort(x)
    for q, name in QUANTILES:
        e, lo, hi = _quantile(s, q)
        out.update({name: e, f"{name}_ci_low": lo, f"{name}_ci_high": hi})
    out["min"], out["max"] = float(s[0]), float(s[-1])
    return out


def _side(df: pd.DataFrame, col: str, side: str) -> np.ndarray:
    a: np.ndarray = df[f"{col}_0"].to_numpy()
    b: np.ndarray = df[f"{col}_1"].to_numpy()
    if side == "team 0":
        return a
    if side == "team 1":
        return b
    start0 = (df["dealer"].to_numpy().astype(np.int64) + 1) % 2 == 0
    if side == "starting":
        return np.where(start0, a, b)
    return np.where(start0, b, a)


def _closer_team(df: pd.DataFrame) -> np.ndarray:
    c: np.ndarray = df["closer"].to_numpy().astype(np.int64)
    return np.where(c >= 0, c % 2, -1)


def _closes(df: pd.DataFrame, side: str) -> np.ndarray:
    ct = _closer_team(df)
    if side in ("team 0", "team 1"):
        return np.asarray(ct == int(side[-1]))
    start = (df["dealer"].to_numpy().astype(np.int64) + 1) % 2
    return np.asarray(ct == (start if side == "starting" else 1 - start))


def _team_hand(df: pd.DataFrame, col: str) -> np.ndarray:
    return np.asarray(df[f"{col}_0"].to_numpy(float) + df[f"{col}_1"].to_numpy(float)) / 2


def _prop_cols(k: float, n: float, prefix: str = "") -> dict[str, Any]:
    r, lo, hi = proportion(k, n)
    return {f"{prefix}rate" if prefix else "share": float(r),
            f"{prefix}ci_low" if prefix else "ci_low": float(lo),
            f"{prefix}ci_high" if prefix else "ci_high": float(hi)}


def _hand_total(df: pd.DataFrame, stems: Iterable[str]) -> np.ndarray:
    """Per hand: the sum of the columns ``<stem>_<team>`` over the stems and both teams."""
    return np.asarray(sum(df[f"{s}_{t}"].to_numpy(np.int64) for s in stems for t in range(2)))


def _ratio(y: ArrayLike, x: ArrayLike) -> tuple[float, float, float]:
    """A share of units clustered in hands: ``sum(y) / sum(x)`` with a 95% interval.

    ``y`` and ``x`` are per-hand counts (e.g. sequences and melds).  The units
    of one hand are not independent, so the Clopper-Pearson interval is taken
    at the effective sample size (Korn and Graubard 1998): ``n* = r (1 - r) /
    v`` where ``v`` is the ratio's linearised variance, with hands as the
    independent units (the sample variance of ``(y - r x) / mean(x)`` over
    ``n`` hands, divided by ``n``), capped at ``sum(x)``; ``n* = sum(x)`` when
    ``r`` is 0 or 1.  NaN when ``sum(x)`` is 0.
    """
    y, x = np.asarray(y, float), np.asarray(x, float)
    total = float(x.sum())
    if total == 0:
        return math.nan, math.nan, math.nan
    r = float(y.sum()) / total
    n_eff = total
    if 0 < r < 1 and len(x) > 1:
        v = float(np.var((y - r * x) / x.mean(), ddof=1)) / len(x)
        if v > 0:
            n_eff = min(total, r * (1 - r) / v)
    lo, hi = stats.proportion_ci(r * n_eff, n_eff)
    return r, float(lo), float(hi)


# ---------------------------------------------------------------- tables

def _score_tables(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    n = len(df)
    scores, parts, hist, burr = [], [], [], []
    for side in SIDES:
        scores.append({"side": side, **_dist(_side(df, "score", side))})
        for part in ("score", *PARTS):
            parts.append({"side": side, "part": part, "hands": n,
                          **_mean(_side(df, part, side))})
        for kind in ("clean", "dirty"):
            x = _side(df, f"{kind}_burraco", side).astype(np.int64)
            k = np.bincount(np.minimum(x, len(COUNTS) - 1), minlength=len(COUNTS))
            m = _mean(x)
            for i, c in enumerate(COUNTS):
                burr.append({"side": side, "kind": kind, "count": c, "hands": n,
                             "hands_with": int(k[i]), **_prop_cols(int(k[i]), n),
                             "mean": m["mean"], "mean_ci_low": m["ci_low"],
                             "mean_ci_high": m["ci_high"]})
    lo = min(int(df["score_0"].min()), int(df["score_1"].min()))
    hi = max(int(df["score_0"].max()), int(df["score_1"].max()))
    edges = np.arange(BIN * math.floor(lo / BIN), BIN * math.floor(hi / BIN) + 2 * BIN, BIN)
    for side in SIDES[:2]:
        counts, _ = np.histogram(_side(df, "score", side), bins=edges)
        r, clo, chi = proportion(counts, np.full(len(counts), n))
        hist += [{"side": side, "score_from": int(edges[i]), "score_to": int(edges[i + 1] - 1),
                  "hands": n, "count": int(counts[i]), "share": float(r[i]),
                  "ci_low": float(clo[i]), "ci_high": float(chi[i])} for i in range(len(counts))]
    return {"scores": pd.DataFrame(scores), "score_parts": pd.DataFrame(parts),
            "score_histogram": pd.DataFrame(hist), "burracos": pd.DataFrame(burr)}


def _ending_tables(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    n = len(df)
    ended = df["ended"].astype(str).to_numpy()
    endings = [{"ended": e, "hands": n, "count": int((ended == e).sum()),
                **_prop_cols(int((ended == e).sum()), n)} for e in ENDED]
    closing = []
    for side in SIDES:
        k = int(_closes(df, side).sum())
        row = {"side": side, "hands": n, "closes": k, **_prop_cols(k, n, "closing_")}
        d = None                # only the starting row is compared (with the dealing one)
        if side == "starting":
            d = stats.compare_proportions(k, n, int(_closes(df, "dealing").sum()), n)
        closing.append({**row, **diff_cols("vs_dealing", d)})
    turns = [{"ended": "all", **_dist(df["turns"].to_numpy())}]
    for e in ENDED:
        t = df["turns"].to_numpy()[ended == e]
        if len(t):
            turns.append({"ended": e, **_dist(t)})
    return {"endings": pd.DataFrame(endings), "closing": pd.DataFrame(closing),
            "turns": pd.DataFrame(turns)}


def _game_tables(g: pd.DataFrame) -> dict[str, pd.DataFrame]:
    n = len(g)
    h = g["hands"].to_numpy().astype(np.int64)
    counts = np.bincount(h)
    ks = np.flatnonzero(counts)
    r, lo, hi = proportion(counts[ks], np.full(len(ks), n))
    length = pd.DataFrame({"hands_per_game": ks, "games": n, "count": counts[ks], "share": r,
                           "ci_low": lo, "ci_high": hi})
    start = (g["first_dealer"].to_numpy().astype(np.int64) + 1) % 2
    win = g["winner"].to_numpy().astype(np.int64)
    wins = int((win == start).sum())
    lost = int(((win >= 0) & (win != start)).sum())
    shared, unf = int(g["shared"].sum()), int(g["unfinished"].sum())
    row = {**_dist(h, "games"), "starter_wins": wins, "starter_losses": lost, "shared": shared,
           "unfinished": unf, **_prop_cols(wins, n, "starter_win_")}
    row["starter_win_p_value"] = (float(sst.binomtest(wins, wins + lost, 0.5).pvalue)
                                  if wins + lost else math.nan)
    row.update(_prop_cols(unf, n, "unfinished_"))
    row["mean_final_score"] = float((g["score_0"].mean() + g["score_1"].mean()) / 2)
    return {"game_length": length, "games": pd.DataFrame([row])}


def _team_hand_row(df: pd.DataFrame, base: pd.DataFrame | None) -> dict[str, Any]:
    n = len(df)
    row: dict[str, Any] = {"hands": n}
    metrics = [("score", "score"), ("clean", "clean_burraco"), ("dirty", "dirty_burraco")]
    for name, col in metrics:
        m = _mean(_team_hand(df, col))
        row.update({f"{name}_mean": m["mean"], f"{name}_ci_low": m["ci_low"],
                    f"{name}_ci_high": m["ci_high"]})
    k = int((df["ended"].astype(str) == "closed").sum())
    row.update({"closed": k, **_prop_cols(k, n, "closing_")})
    row["mean_turns"] = float(df["turns"].mean())
    for name, col in metrics:
        d = (stats.compare_means(*_suff(_team_hand(df, col)), *_suff(_team_hand(base, col)))
             if base is not None else None)
        row.update(diff_cols(name, d))
    d = (stats.compare_proportions(k, n, int((base["ended"].astype(str) == "closed").sum()),
                                   len(base)) if base is not None else None)
    row.update(diff_cols("closing", d))
    return row


def _play_rows(policy: str, df: pd.DataFrame) -> list[dict[str, Any]]:
    """The play table's rows of one table (:data:`PLAY`): ``estimate`` is
    ``total / of``; a mean per team-hand has the t interval of the per-hand
    average of the two teams, a share the interval of :func:`_ratio`."""
    n = len(df)
    rows = []
    for name, per, num, den in PLAY:
        y = _hand_total(df, num)
        if den is None:
            of = 2 * n
            m = _mean(y / 2)
            est, lo, hi = m["mean"], m["ci_low"], m["ci_high"]
        else:
            x = _hand_total(df, den)
            of = int(x.sum())
            est, lo, hi = _ratio(y, x)
        rows.append({"policy": policy, "measure": name, "per": per, "hands": n,
                     "total": int(y.sum()), "of": of, "estimate": est, "ci_low": lo,
                     "ci_high": hi})
    return rows


def _mixed_table(hand_tabs: dict[str, Any], game_tabs: dict[str, Any]) -> pd.DataFrame:
    rows = []
    diffs, closes, n_all = [], 0, 0
    wins_all = games_all = lost_all = 0
    for lab, _, hteam in MIXED:
        df, g = hand_tabs[lab], game_tabs[lab]
        sh, sp = df[f"score_{hteam}"].to_numpy(float), df[f"score_{1 - hteam}"].to_numpy(float)
        d = sh - sp
        ct = _closer_team(df)
        k = int((ct == hteam).sum())
        w = g["winner"].to_numpy().astype(np.int64)
        wins, lost = int((w == hteam).sum()), int(((w >= 0) & (w != hteam)).sum())
        rows.append(_mixed_row(lab, d, (sh, sp), (k, int((ct == 1 - hteam).sum())),
                               (wins, lost, len(g))))
        diffs.append(d)
        n_all += len(df)
        wins_all, lost_all, games_all = wins_all + wins, lost_all + lost, games_all + len(g)
        closes += k
    hs = np.concatenate([h[f"score_{t}"].to_numpy(float)
                         for (lab, _, t), h in zip(MIXED, (hand_tabs[m[0]] for m in MIXED))])
    ps = np.concatenate([h[f"score_{1 - t}"].to_numpy(float)
                         for (lab, _, t), h in zip(MIXED, (hand_tabs[m[0]] for m in MIXED))])
    pc = sum(int((_closer_team(hand_tabs[lab]) == 1 - t).sum()) for lab, _, t in MIXED)
    rows.append(_mixed_row("both", np.concatenate(diffs), (hs, ps), (closes, pc),
                           (wins_all, lost_all, games_all)))
    return pd.DataFrame(rows)


def _mixed_row(lab: str, d: np.ndarray, scores: tuple[np.ndarray, np.ndarray],
               closes: tuple[int, int], games: tuple[int, int, int]) -> dict[str, Any]:
    """One seating's row: the heuristic's minus the patient's score per hand ``d``, their
    ``scores``, how often each ``closes`` and the ``games`` (won, lost, played)."""
    sh, sp = scores
    k_h, k_p = closes
    wins, lost, games_n = games
    n = len(d)
    m = _mean(d)
    row = {"seating": lab, "hands": n,
           "heuristic_score": float(sh.mean()), "patient_score": float(sp.mean()),
           "score_diff": m["mean"], "score_diff_ci_low": m["ci_low"],
           "score_diff_ci_high": m["ci_high"],
           "heuristic_closes": k_h, **_prop_cols(k_h, n, "heuristic_closing_"),
           "patient_closes": k_p, **_prop_cols(k_p, n, "patient_closing_"),
           "games": games_n, "heuristic_wins": wins, "patient_wins": lost,
           **_prop_cols(wins, games_n, "heuristic_win_")}
    row["win_p_value"] = (float(sst.binomtest(wins, wins + lost, 0.5).pvalue)
                          if wins + lost else math.nan)
    return row


def _play(unit: str, run: RunSettings) -> pd.DataFrame:
    """One planned table: ``run.count`` hands or games (``unit``)."""
    f = simulate if unit == "hands" else simulate_games
    return f(run.count, rules=run.rules, policy=run.policy, seed=run.seed, start=run.start,
             threads=run.threads, progress=run.progress)


def simulate_tables(hands: int = DEFAULT_HANDS, seed: int = 0, progress: bool = False,
                    threads: int | None = None) -> dict[str, pd.DataFrame]:
    """Play every table of the study and return its tables (module docstring)."""
    from tqdm import tqdm

    frames: dict[tuple[Any, ...], pd.DataFrame] = {}
    runs = plan(hands)
    with tqdm(runs, desc=NAME, unit="table", disable=not progress, leave=False,
              dynamic_ncols=True) as bar:
        for kind, key, preset, policy, unit, size, start in bar:
            bar.set_postfix_str(f"{kind} {key}")
            frames[(kind, key)] = _play(unit, RunSettings(
                count=size, rules=preset, policy=policy, seed=seed, start=start, threads=threads,
                progress=progress))
    base = frames[("base", BASE)]
    out = {**_score_tables(base), **_ending_tables(base), **_game_tables(frames[("games", BASE)])}
    pol = []
    for p in POLICIES:
        df = base if p == BASE else frames[("policy", p)]
        pol.append({"policy": p, "spec": _spec_text(p),
                    **_team_hand_row(df, None if p == BASE else base)})
    out["policies"] = pd.DataFrame(pol)
    out["play"] = pd.DataFrame([r for p in POLICIES for r in _play_rows(
        p, base if p == BASE else frames[("policy", p)])])
    out["mixed"] = _mixed_table({lab: frames[("mixed", lab)] for lab, _, _ in MIXED},
                                {lab: frames[("mixed_games", lab)] for lab, _, _ in MIXED})
    var = [{"preset": SEED_PRESET, "rules": "(the seed's)", **_team_hand_row(base, None)}]
    for v in VARIANTS:
        var.append({"preset": v, "rules": ", ".join(f"{a}={b}" for a, b in PRESETS[v].items()),
                    **_team_hand_row(frames[("variant", v)], base)})
    out["variants"] = pd.DataFrame(var)
    return out
