"""Burraco: how hand scores are distributed, where the points come from, how
hands end, how long games last, and what the policies and the rule variants
change (seeds/burraco.md).

``hands`` (``DEFAULT_HANDS`` by default) is the number of **hands** of each
simulated hand table; each game table plays ``max(hands // 10, 20)`` whole
games (to ``target``, 2000).  The study plays these tables, in this order
(:func:`plan`):

- ``base``: the seed's rules, ``heuristic`` at every seat (parts 1-3, and the
  baselines of parts 5 and 6);
- ``policy``: the seed's rules with ``patient`` and with ``random`` at every
  seat (part 5, with the ``play`` table);
- ``mixed``: heuristic on seats 0 and 2 against patient on 1 and 3, and the
  seats swapped, as hand tables and as game tables (part 5);
- ``games``: whole games, heuristic at every seat (part 4);
- ``variant``: every preset of ``simkit.burraco.rules.PRESETS`` other than
  ``seed``, heuristic at every seat (part 6).

Table ``i`` of that order starts at the sum of the sizes of the tables before
it, so no two tables share a random stream (hand ``h`` and game ``g`` use the
streams (seed, h) and (seed, g)): every comparison is between independent
samples, as the intervals and tests assume.

Units.  Team 0 holds seats 0 and 2; the seat left of the dealer starts, so
the *starting* team of a hand is team ``(dealer + 1) % 2`` and the other is
the *dealing* team.  Per-team estimates have one observation per hand.
Where a table speaks of a *team-hand* (the policy, play and variant tables) the
observation is the average of the two teams of a hand, so that n is the
number of hands and the observations are independent; its mean is the mean
over team-hands.

Tables (``ci_low``/``ci_high`` are 95% intervals: t intervals for means,
Clopper-Pearson for proportions, order-statistic intervals for quantiles,
Welch for differences of means, Newcombe for differences of proportions;
for a share of melds or burracos, whose units are clustered in hands,
Clopper-Pearson at the effective sample size (:func:`_ratio`); every row has
its sample size):

- ``scores``: hand score per side (team 0, team 1, starting, dealing): mean,
  standard deviation, the 5/25/50/75/95% quantiles, min and max.
- ``score_parts``: the mean of each score part per side; the parts' means
  sum to the score's mean.
- ``score_histogram``: the share of hands in each 50-point score bin, per team.
- ``burracos``: clean and dirty burracos per side and hand: the share with
  0, 1, 2, 3+ and the mean.
- ``endings``: how hands end (closed, stock, cap).
- ``closing``: the rate at which each side goes out, and the starting team's
  rate minus the dealing team's.
- ``turns``: turns per hand, all hands and by ending.
- ``game_length``: hands per game (distribution) and ``games``: the mean and
  quantiles of hands per game and the win rate of the team that starts the
  first hand.
- ``policies``: heuristic, patient and random at every seat: mean score,
  burracos and closing rate per team-hand, with differences from heuristic.
- ``play``: how the same three tables play: sets and sequences laid, the
  share of sequences among the melds, wild cards melded, clean and dirty
  burracos and the clean share of the burracos, per team-hand.
- ``mixed``: a heuristic team against a patient team: the score difference per
  hand and the heuristic team's win rate in games.
- ``variants``: each preset: mean score, clean and dirty burracos and closing
  rate per team-hand, with differences from the seed's rules.
"""

from __future__ import annotations

import math
from functools import partial

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import PercentFormatter
from scipy import stats as sst

from analyses.common import (
    Plot,
    Study,
    diff_cols,
    difference_panels,
    errorbar,
    percent,
    proportion,
    signed,
)
from simkit import stats
from simkit.burraco.api import ENDED, simulate, simulate_games
from simkit.burraco.policies import make_policies
from simkit.burraco.rules import PRESETS
from simkit.report import StudyResult

NAME = "burraco-scoring"
TITLE = "Burraco: scoring distributions"
#: Hands per simulated hand table (12 hand tables; game tables play hands // 10 games).
DEFAULT_HANDS = 30_000

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


def _spec_text(spec) -> str:
    return ",".join(p.text() for p in make_policies(spec, 1 if isinstance(spec, str) else 4)[:4])


def plan(hands: int) -> list[tuple]:
    """The simulated tables in stream order: (kind, key, preset, policy, unit, size, start)."""
    g = games_per_table(hands)
    out: list[tuple] = [("base", BASE, SEED_PRESET, BASE, "hands", hands)]
    out += [("policy", p, SEED_PRESET, p, "hands", hands) for p in POLICIES if p != BASE]
    out += [("mixed", lab, SEED_PRESET, pol, "hands", hands) for lab, pol, _ in MIXED]
    out += [("mixed_games", lab, SEED_PRESET, pol, "games", g) for lab, pol, _ in MIXED]
    out.append(("games", BASE, SEED_PRESET, BASE, "games", g))
    out += [("variant", v, v, BASE, "hands", hands) for v in VARIANTS]
    starts = np.concatenate([[0], np.cumsum([t[-1] for t in out])[:-1]])
    return [t + (int(s),) for t, s in zip(out, starts)]


# ---------------------------------------------------------------- helpers

def _mean(x) -> dict:
    x = np.asarray(x, float)
    m, lo, hi = stats.mean_ci_of(x)
    return {"mean": m, "ci_low": lo, "ci_high": hi}


def _suff(x) -> tuple[float, float, float]:
    x = np.asarray(x, float)
    return float(x.size), float(x.sum()), float((x * x).sum())


def _quantile(sorted_x: np.ndarray, q: float) -> tuple[float, float, float]:
    """The q-quantile (inverse of the empirical CDF) of sorted values and its
    distribution-free 95% interval from order statistics."""
    n = len(sorted_x)
    if n == 0:
        return math.nan, math.nan, math.nan

    def at(rank):                         # the rank-th smallest (1-based)
        return float(sorted_x[min(max(int(rank), 1), n) - 1])

    est = max(math.ceil(q * n), 1)
    lo = sst.binom.ppf(0.025, n, q)
    hi = sst.binom.ppf(0.975, n, q) + 1
    return at(est), min(at(lo), at(est)), max(at(hi), at(est))


def _dist(x, n_label: str = "hands") -> dict:
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
    a, b = df[f"{col}_0"].to_numpy(), df[f"{col}_1"].to_numpy()
    if side == "team 0":
        return a
    if side == "team 1":
        return b
    start0 = (df["dealer"].to_numpy().astype(np.int64) + 1) % 2 == 0
    if side == "starting":
        return np.where(start0, a, b)
    return np.where(start0, b, a)


def _closer_team(df: pd.DataFrame) -> np.ndarray:
    c = df["closer"].to_numpy().astype(np.int64)
    return np.where(c >= 0, c % 2, -1)


def _closes(df: pd.DataFrame, side: str) -> np.ndarray:
    ct = _closer_team(df)
    if side in ("team 0", "team 1"):
        return ct == int(side[-1])
    start = (df["dealer"].to_numpy().astype(np.int64) + 1) % 2
    return ct == (start if side == "starting" else 1 - start)


def _team_hand(df: pd.DataFrame, col: str) -> np.ndarray:
    return (df[f"{col}_0"].to_numpy(float) + df[f"{col}_1"].to_numpy(float)) / 2


def _prop_cols(k, n, prefix="") -> dict:
    r, lo, hi = proportion(k, n)
    return {f"{prefix}rate" if prefix else "share": float(r),
            f"{prefix}ci_low" if prefix else "ci_low": float(lo),
            f"{prefix}ci_high" if prefix else "ci_high": float(hi)}


def _hand_total(df: pd.DataFrame, stems) -> np.ndarray:
    """Per hand: the sum of the columns ``<stem>_<team>`` over the stems and both teams."""
    return sum(df[f"{s}_{t}"].to_numpy(np.int64) for s in stems for t in range(2))


def _ratio(y, x) -> tuple[float, float, float]:
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
        for part in ("score",) + PARTS:
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


def _team_hand_row(df: pd.DataFrame, base: pd.DataFrame | None) -> dict:
    n = len(df)
    row: dict = {"hands": n}
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


def _play_rows(policy: str, df: pd.DataFrame) -> list[dict]:
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


def _mixed_table(hand_tabs: dict, game_tabs: dict) -> pd.DataFrame:
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
        rows.append(_mixed_row(lab, d, sh, sp, k, int((ct == 1 - hteam).sum()), wins, lost,
                               len(g)))
        diffs.append(d)
        n_all += len(df)
        wins_all, lost_all, games_all = wins_all + wins, lost_all + lost, games_all + len(g)
        closes += k
    hs = np.concatenate([h[f"score_{t}"].to_numpy(float)
                         for (lab, _, t), h in zip(MIXED, (hand_tabs[m[0]] for m in MIXED))])
    ps = np.concatenate([h[f"score_{1 - t}"].to_numpy(float)
                         for (lab, _, t), h in zip(MIXED, (hand_tabs[m[0]] for m in MIXED))])
    pc = sum(int((_closer_team(hand_tabs[lab]) == 1 - t).sum()) for lab, _, t in MIXED)
    rows.append(_mixed_row("both", np.concatenate(diffs), hs, ps, closes, pc, wins_all,
                           lost_all, games_all))
    return pd.DataFrame(rows)


def _mixed_row(lab, d, sh, sp, k_h, k_p, wins, lost, games) -> dict:
    n = len(d)
    m = _mean(d)
    row = {"seating": lab, "hands": n,
           "heuristic_score": float(sh.mean()), "patient_score": float(sp.mean()),
           "score_diff": m["mean"], "score_diff_ci_low": m["ci_low"],
           "score_diff_ci_high": m["ci_high"],
           "heuristic_closes": k_h, **_prop_cols(k_h, n, "heuristic_closing_"),
           "patient_closes": k_p, **_prop_cols(k_p, n, "patient_closing_"),
           "games": games, "heuristic_wins": wins, "patient_wins": lost,
           **_prop_cols(wins, games, "heuristic_win_")}
    row["win_p_value"] = (float(sst.binomtest(wins, wins + lost, 0.5).pvalue)
                          if wins + lost else math.nan)
    return row


def _play(kind, preset, policy, unit, size, start, seed, threads, progress):
    f = simulate if unit == "hands" else simulate_games
    return f(size, rules=preset, policy=policy, seed=seed, start=start, threads=threads,
             progress=progress)


def simulate_tables(hands: int = DEFAULT_HANDS, seed: int = 0, progress: bool = False,
                    threads: int | None = None) -> dict[str, pd.DataFrame]:
    """Play every table of the study and return its tables (module docstring)."""
    from tqdm import tqdm

    frames: dict[tuple, pd.DataFrame] = {}
    runs = plan(hands)
    with tqdm(runs, desc=NAME, unit="table", disable=not progress, leave=False,
              dynamic_ncols=True) as bar:
        for kind, key, preset, policy, unit, size, start in bar:
            bar.set_postfix_str(f"{kind} {key}")
            frames[(kind, key)] = _play(kind, preset, policy, unit, size, start, seed, threads,
                                        progress)
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


# ---------------------------------------------------------------- summary

def _ci(m, lo, hi, k=0) -> str:
    return f"{m:.{k}f} (95% CI {lo:.{k}f}-{hi:.{k}f})"


def _dci(d, lo, hi, k=0) -> str:
    return f"{signed(d, k)} (95% CI {signed(lo, k)} to {signed(hi, k)})"


def _rate(row, prefix: str = "", n=None) -> str:
    """The rate ``<prefix>rate`` of ``row`` (``share`` without a prefix) with its
    interval ``<prefix>ci_low`` to ``<prefix>ci_high``."""
    est = row[f"{prefix}rate"] if prefix else row["share"]
    return percent(est, row[f"{prefix}ci_low"], row[f"{prefix}ci_high"], n)


def _change(row, name: str, scale: float = 1) -> str:
    """The difference ``<name>_diff`` of ``row`` times ``scale`` with its interval."""
    return _dci(scale * row[f"{name}_diff"], scale * row[f"{name}_diff_ci_low"],
                scale * row[f"{name}_diff_ci_high"], 1)


def _score_line(sc: pd.DataFrame, pa: pd.DataFrame) -> str:
    """1. A team's hand score and what it is made of."""
    s = sc.set_index("side").loc["team 0"]
    p0 = pa[(pa["side"] == "team 0") & (pa["part"] != "score")].set_index("part")
    parts = ", ".join(f"{part.replace('_', ' ')} {signed(r['mean'], 1)}"
                      for part, r in p0.iterrows())
    return (f"With four heuristic players a team scores on average "
            f"{_ci(s['mean'], s['ci_low'], s['ci_high'], 1)} points per hand "
            f"(n={int(s['hands']):,} hands; median {s['median']:.0f}, 90% of hands between "
            f"{s['q05']:.0f} and {s['q95']:.0f}), made of {parts}.")


def _burraco_line(bu: pd.DataFrame) -> str:
    """2. Clean and dirty burracos per team and hand."""
    b = bu[(bu["side"] == "team 0")].set_index(["kind", "count"])
    cm, dm = b.loc[("clean", "0")], b.loc[("dirty", "0")]
    return (f"A team makes {_ci(dm['mean'], dm['mean_ci_low'], dm['mean_ci_high'], 2)} dirty "
            f"burracos per hand but only "
            f"{_ci(cm['mean'], cm['mean_ci_low'], cm['mean_ci_high'], 3)} clean ones; it has "
            f"no clean burraco in {_rate(cm)} of hands and no dirty one in {_rate(dm)}.")


def _ending_line(en: pd.DataFrame, cl: pd.DataFrame, tu: pd.DataFrame) -> str:
    """3. How hands end, which team goes out, and how long a hand lasts."""
    e = en.set_index("ended")
    c = cl.set_index("side")
    t = tu.set_index("ended").loc["all"]
    return (f"{_rate(e.loc['closed'], n=e.loc['closed', 'hands'])} "
            f"of hands end with a team going out and {_rate(e.loc['stock'])} "
            f"when the stock runs low ({int(e.loc['cap', 'count'])} at the turn cap); the "
            f"starting team goes out in {_rate(c.loc['starting'], 'closing_')} "
            f"and the dealing team in {_rate(c.loc['dealing'], 'closing_')}, "
            f"and a hand lasts a median {t['median']:.0f} turns, a mean of "
            f"{_ci(t['mean'], t['ci_low'], t['ci_high'], 1)}.")


def _game_line(ga: pd.DataFrame) -> str:
    """4. How long a game lasts and how often the first starting team wins."""
    g = ga.iloc[0]
    return (f"A game to 2000 lasts {_ci(g['mean'], g['ci_low'], g['ci_high'], 2)} hands "
            f"(median {g['median']:.0f}, 95% of games within {g['q95']:.0f}; "
            f"n={int(g['games']):,} games), and the team that starts the first hand wins "
            f"{_rate(g, 'starter_win_')}.")


def _policy_line(po: pd.DataFrame, mx: pd.DataFrame) -> str:
    """5. The other policies against heuristic, and a heuristic team against a patient one."""
    p = po.set_index("policy")
    both = mx.set_index("seating").loc["both"]
    alt = "; ".join(
        f"{name} players change it by {_change(p.loc[name], 'score')} points and the closing "
        f"rate by {_change(p.loc[name], 'closing', 100)} percentage points"
        for name in POLICIES if name != BASE)
    return (f"Heuristic players at every seat score {p.loc[BASE, 'score_mean']:.1f} points "
            f"per team-hand; {alt}; a heuristic team seated against a patient team scores "
            f"{_change(both, 'score')} points per hand relative to it and wins "
            f"{_rate(both, 'heuristic_win_', both['games'])} of the games.")


def _play_line(pl: pd.DataFrame) -> str:
    """5b. How each policy melds: sets, sequences, wild cards, clean burracos."""
    t = pl.set_index(["policy", "measure"])

    def mean(p, m, k=2):
        r = t.loc[(p, m)]
        return _ci(r["estimate"], r["ci_low"], r["ci_high"], k)

    def share(p, m):
        r = t.loc[(p, m)]
        return percent(r["estimate"], r["ci_low"], r["ci_high"])

    others = "; ".join(f"{p} players {mean(p, 'sets')} sets, {mean(p, 'sequences')} "
                       f"sequences, a sequence share of {share(p, 'sequence_share')} and a "
                       f"clean share of {share(p, 'clean_share')}"
                       for p in POLICIES if p != BASE)
    return (f"Per team-hand, heuristic players lay {mean(BASE, 'sets')} sets and "
            f"{mean(BASE, 'sequences')} sequences, so {share(BASE, 'sequence_share')} of "
            f"their melds are sequences, meld {mean(BASE, 'wilds')} wild cards, and make "
            f"{share(BASE, 'clean_share')} of their burracos clean "
            f"(n={int(t.loc[(BASE, 'sets'), 'hands']):,} hands); {others}.")


def _variant_line(va: pd.DataFrame) -> str | None:
    """6. The rule variant that changes the mean score most, and how many change it."""
    v = va[va["preset"] != SEED_PRESET].dropna(subset=["score_diff"])
    if not len(v):
        return None
    top = v.loc[v["score_diff"].abs().idxmax()]
    sig = v[v["score_p_value"] < 0.05]["preset"].tolist()
    return (f"Of the rule variants, {top['preset']} ({top['rules']}) changes the mean "
            f"score most, {_change(top, 'score')} points per team-hand; "
            + (f"{len(sig)} of {len(v)} change the mean score at p < 0.05 "
               f"({', '.join(sig)})" if sig else
               f"none of the {len(v)} changes the mean score at p < 0.05")
            + f", and {top['preset']} moves the closing rate by "
            f"{_change(top, 'closing', 100)} percentage points.")


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings computed from the tables (no number typed in), one
    sentence per part of the study."""
    t = tables
    lines = (_score_line(t["scores"], t["score_parts"]), _burraco_line(t["burracos"]),
             _ending_line(t["endings"], t["closing"], t["turns"]), _game_line(t["games"]),
             _policy_line(t["policies"], t["mixed"]), _play_line(t["play"]),
             _variant_line(t["variants"]))
    return [line for line in lines if line is not None]


# ---------------------------------------------------------------- figures

COLORS = {"team 0": "tab:blue", "team 1": "tab:orange", "starting": "tab:green",
          "dealing": "tab:red"}


def _histogram_panel(ax, hi: pd.DataFrame, sc: pd.DataFrame) -> None:
    """The distribution of a team's hand score with its 5%, 50% and 95% quantiles."""
    for side, d in hi.groupby("side", sort=False):
        ax.step(d["score_from"] + BIN / 2, d["share"], where="mid", color=COLORS[side],
                label=side)
        q = sc[sc["side"] == side].iloc[0]
        for name, ls in (("q05", ":"), ("median", "-"), ("q95", ":")):
            ax.axvline(q[name], color=COLORS[side], ls=ls, lw=0.8)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(f"hand score ({BIN}-point bins; lines: 5%, 50%, 95% quantiles)")
    ax.set_ylabel("share of hands")
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title("Distribution of a team's hand score")


def _parts_panel(ax, pa: pd.DataFrame) -> None:
    """The mean score and its parts per side."""
    order = ("score",) + PARTS
    for i, side in enumerate(SIDES):
        d = pa[pa["side"] == side].set_index("part").loc[list(order)]
        y = np.arange(len(order)) + (i - 1.5) * 0.18
        m = d["mean"].to_numpy(float)
        ax.barh(y, m, height=0.18, color=COLORS[side], label=side,
                xerr=np.nan_to_num(np.vstack([m - d["ci_low"], d["ci_high"] - m])), capsize=2)
    ax.set_yticks(np.arange(len(order)), [o.replace("_", " ") for o in order])
    ax.invert_yaxis()
    ax.axvline(0, color="k", lw=0.8)
    ax.set_xlabel("mean points per hand (95% intervals)")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(fontsize=8)
    ax.set_title("The score and its parts")


def _scores(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    fig, axes = plt.subplots(1, 2, figsize=(14, 5), gridspec_kw={"width_ratios": [1.4, 1]})
    _histogram_panel(axes[0], tables["score_histogram"], tables["scores"])
    _parts_panel(axes[1], tables["score_parts"])
    fig.tight_layout()
    return fig


def _burracos(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    bu = tables["burracos"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
    for ax, kind in zip(axes, ("clean", "dirty")):
        for i, side in enumerate(SIDES):
            d = bu[(bu["side"] == side) & (bu["kind"] == kind)]
            x = np.arange(len(COUNTS)) + (i - 1.5) * 0.2
            m = d["share"].to_numpy(float)
            ax.bar(x, m, width=0.2, color=COLORS[side],
                   label=f"{side} (mean {d['mean'].iloc[0]:.3f})",
                   yerr=np.nan_to_num(np.vstack([m - d["ci_low"], d["ci_high"] - m])), capsize=2)
        ax.set_xticks(range(len(COUNTS)), COUNTS)
        ax.set_xlabel(f"{kind} burracos of the team in the hand")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8)
        ax.set_title(f"{kind.capitalize()} burracos per team and hand")
    axes[0].set_ylabel("share of hands")
    fig.tight_layout()
    return fig


def _turns_panel(ax, tu: pd.DataFrame) -> None:
    """Turns per hand, all hands and by ending: 5-95% line, 25-75% box, median, mean."""
    for i, r in enumerate(tu.itertuples()):
        qs = [getattr(r, n) for _, n in QUANTILES]
        ax.plot([qs[0], qs[-1]], [i, i], color="grey")
        ax.plot([qs[1], qs[3]], [i, i], color="tab:blue", lw=6, solid_capstyle="butt")
        ax.plot([qs[2]], [i], "k|", ms=14)
        ax.plot([r.mean], [i], "o", color="tab:red", ms=5)
    ax.set_yticks(range(len(tu)), [f"{r.ended} (n={r.hands:,})" for r in tu.itertuples()])
    ax.invert_yaxis()
    ax.set_xlabel("turns per hand (line 5-95%, box 25-75%, | median, dot mean)")
    ax.grid(alpha=0.3, axis="x")
    ax.set_title("Turns per hand")


def _endings(tables: dict[str, pd.DataFrame]) -> plt.Figure:
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


def _game_length(tables: dict[str, pd.DataFrame]) -> plt.Figure:
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


def _play_figure(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    """Per policy: what a team lays down in a hand (left) and the shares (right)."""
    pl = tables["play"]
    means = [name for name, _, _, den in PLAY if den is None]
    shares = [name for name, _, _, den in PLAY if den is not None]
    fig, axes = plt.subplots(1, 2, figsize=(14, 4.5), gridspec_kw={"width_ratios": [1.6, 1]})
    width = 0.8 / len(POLICIES)
    for ax, names in ((axes[0], means), (axes[1], shares)):
        for i, pol in enumerate(POLICIES):
            d = pl[pl["policy"] == pol].set_index("measure").loc[names]
            y = np.arange(len(names)) + (i - (len(POLICIES) - 1) / 2) * width
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


def _differences(tables: dict[str, pd.DataFrame], key: str, label_col: str, base: str,
                 what: str) -> plt.Figure:
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
         partial(_differences, key="policies", label_col="policy", base=BASE,
                 what="heuristic players")),
    Plot("play", "How the simulated players meld, the seed's rules, the same policy at every "
         "seat. Left: sets, sequences, wild cards and clean and dirty burracos a team has on "
         "the table at the end of a hand (mean per team-hand). Right: the share of sequences "
         "among the melds and of clean burracos among the burracos. 95% intervals.",
         _play_figure),
    Plot("variants", "Each preset against the seed's rules, heuristic players: differences "
         "per team-hand with 95% intervals (red: p < 0.05).",
         partial(_differences, key="variants", label_col="preset", base=SEED_PRESET,
                 what="the seed's rules")),
)


# ---------------------------------------------------------------- the study

def _notes(hands: int, seed: int) -> list[str]:
    runs = plan(hands)
    n_games = games_per_table(hands)
    return [
        f"Every table is simulated from its own random streams: {len(runs)} tables, "
        f"{sum(1 for r in runs if r[4] == 'hands')} of {hands:,} hands and "
        f"{sum(1 for r in runs if r[4] == 'games')} of {n_games:,} games, each starting "
        "where the previous one ended, so the comparisons are between independent samples.",
        "Hands are dealt in turn by seats 0-3 (hand i by seat i mod 4), so teams 0 and 1 "
        "start equally often and should look alike; the starting/dealing split is the "
        "comparison with a real asymmetry.",
        "Per-team intervals treat hands as independent observations. The two teams of one "
        "hand are not independent (one going out ends the other's hand), so policy and "
        "variant tables use the average of the two teams per hand as the observation.",
        "A closed hand earns the closer's team the closing bonus; hands ended by the stock or "
        "the cap score both teams without it (seeds/burraco.md section 5).",
        "Who plays: every number here comes from simulated, rule-based players, not from "
        "people. Each follows a fixed procedure (seeds/burraco.md section 9) with the "
        "parameters given: " + "; ".join(f"{p} = {_spec_text(p)}" for p in POLICIES)
        + " (random makes its choices at random). The play table and figure show how these "
        "players meld: the sets and sequences they lay, the wild cards they use and how "
        "many of their burracos are clean. Real players may choose differently, so their "
        "melds, burracos and scores may differ from these figures.",
    ]


_SIDE = ("side: team 0 (seats 0 and 2), team 1, the starting team (left of the dealer, "
         "team (dealer + 1) % 2) or the dealing team; one observation per hand.")


def _descriptions(hands: int, seed: int) -> dict[str, str]:
    n_games = games_per_table(hands)
    return {
        "scores": "Hand scores, the seed's rules, heuristic at every seat. " + _SIDE + " mean "
                  "with 95% t interval, sd, the 5/25/50/75/95% quantiles (the smallest value "
                  "with at least that share of hands at or below it) with distribution-free "
                  "95% order-statistic intervals, min and max.",
        "score_parts": "The mean of the score (part = score) and of each of its parts per "
                       "side, 95% t intervals; hand_penalty and pozzetto_penalty are "
                       "negative. Each side's parts' means sum to its score's mean.",
        "score_histogram": f"The distribution behind scores, per team: share of hands with a "
                           f"score from score_from to score_to ({BIN}-point bins, "
                           "Clopper-Pearson 95%).",
        "burracos": "Clean and dirty burracos a side makes in a hand. " + _SIDE + " One row per "
                    "side, kind and count (3+ = 3 or more): hands_with, share (Clopper-Pearson "
                    "95%); mean: the kind's mean count per hand (95% t interval), repeated on "
                    "the kind's rows.",
        "endings": "How the base table's hands end: closed (a player went out), stock (two "
                   "cards left in the stock) or cap (max_turns); share with Clopper-Pearson 95%.",
        "closing": "The share of hands in which the side goes out (Clopper-Pearson 95%). "
                   + _SIDE + " vs_dealing_diff (starting row only): the starting team's rate "
                   "minus the dealing team's, Newcombe 95% interval and chi-square p-value "
                   "(the two rates come from the same hands, so the test is approximate).",
        "turns": "Turns per hand, all hands and by how the hand ended: mean (95% t), sd, "
                 "quantiles with order-statistic intervals.",
        "game_length": f"Whole games to 2000, heuristic at every seat ({n_games:,} games): "
                       "the share of games lasting each number of hands (Clopper-Pearson 95%).",
        "games": "Hands per game (mean with 95% t, quantiles with order-statistic intervals); "
                 "starter_win_rate: the share of all games won by the team that starts the "
                 "first hand (team (first_dealer + 1) % 2), Clopper-Pearson 95%, its p-value "
                 "the exact binomial test of 1/2 over the games with a single winner; shared "
                 "and unfinished games (rate with Clopper-Pearson 95%); mean_final_score: the "
                 "two teams' mean final score.",
        "policies": "The seed's rules with the same policy at every seat. Per team-hand (the "
                    "average of the hand's two teams, n = hands): mean score, clean and dirty "
                    "burracos (95% t); closing_rate: the share of hands that end with a player "
                    "going out (Clopper-Pearson 95%); mean_turns. *_diff: the policy minus "
                    "heuristic (Welch 95% intervals and p-values for means, Newcombe and "
                    "chi-square for the closing rate). spec: the policy's full parameters.",
        "play": "How the policies table's players meld (the same tables as policies): one "
                "row per policy and measure, from what each team has on the table at the "
                "end of a hand. per: what the measure counts. For a mean (sets, sequences, "
                "wilds: jokers and 2s melded, every 2 counted; clean_burracos, "
                "dirty_burracos) per = team-hand: total over the table's team-hands, of = "
                "2 x hands, estimate = total / of with the 95% t interval of the per-hand "
                "average of the two teams. For a share (sequence_share: sequences among "
                "melds; clean_share: clean burracos among burracos) per = meld or burraco: "
                "total of the of units, estimate = total / of, and a Clopper-Pearson 95% "
                "interval at the effective sample size (Korn-Graubard: of divided by the "
                "design effect of the hands, at most of), as the units of one hand are not "
                "independent; empty when of is 0.",
        "mixed": "A heuristic team against a patient team, the seed's rules: one row per "
                 "seating and both pooled. score_diff: the heuristic team's hand score minus "
                 "the patient team's (mean per hand, 95% t); heuristic/patient closing rate: "
                 "the share of hands that team goes out (Clopper-Pearson 95%); "
                 f"heuristic_win_rate: the heuristic team's share of the {n_games:,} games per "
                 "seating (Clopper-Pearson 95%), win_p_value the exact binomial test of 1/2 "
                 "over the games with a single winner.",
        "variants": "Every preset, heuristic at every seat, per team-hand as in policies: "
                    "mean score, clean and dirty burracos, closing rate, mean turns, and each "
                    "one's difference from the seed's rules (Welch / Newcombe 95%, p-values). "
                    "shared-ties changes only games, so its row is a check: its differences "
                    "should be consistent with zero.",
    }


def _provenance(hands: int) -> dict:
    runs = plan(hands)
    n_games = games_per_table(hands)
    return dict(hands=hands * sum(1 for r in runs if r[4] == "hands"),
                games=n_games * sum(1 for r in runs if r[4] == "games"),
                rules={p: dict(PRESETS[p]) for p in PRESETS},
                policies={p: _spec_text(p) for p in POLICIES},
                hands_per_table=hands, games_per_table=n_games, tables=len(runs),
                plan=[{"kind": k, "key": key, "preset": pr, "policy": pol, "unit": u,
                       "size": size, "start": st} for k, key, pr, pol, u, size, st in runs])


STUDY = Study(NAME, TITLE, DEFAULT_HANDS,
              kernels=("burraco:hands", "burraco:games"),
              simulate=simulate_tables, findings=findings,
              figures=FIGURES, provenance=_provenance, descriptions=_descriptions, notes=_notes)


def run(hands: int | None = None, seed: int = 0, progress: bool = False,
        threads: int | None = None) -> StudyResult:
    """The study: tables, findings, figures, notes and provenance.  ``hands`` is
    the number of hands per simulated hand table (games: ``hands // 10``)."""
    return STUDY.run(hands, seed, progress, threads)
