"""The burraco-scoring study's findings: plain-language sentences computed from its tables
(:func:`findings`)."""

from __future__ import annotations

import pandas as pd

from analyses.burraco_scoring.simulate import BASE, POLICIES, SEED_PRESET
from analyses.common import Tables, cell, percent, row_at, signed


def _ci(m: float, lo: float, hi: float, k: int = 0) -> str:
    return f"{m:.{k}f} (95% CI {lo:.{k}f}-{hi:.{k}f})"


def _dci(d: float, lo: float, hi: float, k: int = 0) -> str:
    return f"{signed(d, k)} (95% CI {signed(lo, k)} to {signed(hi, k)})"


def _rate(row: pd.Series, prefix: str = "", n: float | None = None) -> str:
    """The rate ``<prefix>rate`` of ``row`` (``share`` without a prefix) with its
    interval ``<prefix>ci_low`` to ``<prefix>ci_high``."""
    est = row[f"{prefix}rate"] if prefix else row["share"]
    return percent(est, row[f"{prefix}ci_low"], row[f"{prefix}ci_high"], n)


def _change(row: pd.Series, name: str, scale: float = 1) -> str:
    """The difference ``<name>_diff`` of ``row`` times ``scale`` with its interval."""
    return _dci(scale * row[f"{name}_diff"], scale * row[f"{name}_diff_ci_low"],
                scale * row[f"{name}_diff_ci_high"], 1)


def _score_line(sc: pd.DataFrame, pa: pd.DataFrame) -> str:
    """1. A team's hand score and what it is made of."""
    s = row_at(sc.set_index("side"), "team 0")
    p0 = pa[(pa["side"] == "team 0") & (pa["part"] != "score")].set_index("part")
    parts = ", ".join(f"{str(part).replace('_', ' ')} {signed(r['mean'], 1)}"
                      for part, r in p0.iterrows())
    return (f"With four heuristic players a team scores on average "
            f"{_ci(s['mean'], s['ci_low'], s['ci_high'], 1)} points per hand "
            f"(n={int(s['hands']):,} hands; median {s['median']:.0f}, 90% of hands between "
            f"{s['q05']:.0f} and {s['q95']:.0f}), made of {parts}.")


def _burraco_line(bu: pd.DataFrame) -> str:
    """2. Clean and dirty burracos per team and hand."""
    b = bu[(bu["side"] == "team 0")].set_index(["kind", "count"])
    cm, dm = row_at(b, ("clean", "0")), row_at(b, ("dirty", "0"))
    return (f"A team makes {_ci(dm['mean'], dm['mean_ci_low'], dm['mean_ci_high'], 2)} dirty "
            f"burracos per hand but only "
            f"{_ci(cm['mean'], cm['mean_ci_low'], cm['mean_ci_high'], 3)} clean ones; it has "
            f"no clean burraco in {_rate(cm)} of hands and no dirty one in {_rate(dm)}.")


def _ending_line(en: pd.DataFrame, cl: pd.DataFrame, tu: pd.DataFrame) -> str:
    """3. How hands end, which team goes out, and how long a hand lasts."""
    e = en.set_index("ended")
    c = cl.set_index("side")
    t = row_at(tu.set_index("ended"), "all")
    return (f"{_rate(row_at(e, 'closed'), n=cell(e, 'closed', 'hands'))} "
            f"of hands end with a team going out and {_rate(row_at(e, 'stock'))} "
            f"when the stock runs low ({int(cell(e, 'cap', 'count'))} at the turn cap); the "
            f"starting team goes out in {_rate(row_at(c, 'starting'), 'closing_')} "
            f"and the dealing team in {_rate(row_at(c, 'dealing'), 'closing_')}, "
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
    both = row_at(mx.set_index("seating"), "both")
    alt = "; ".join(
        f"{name} players change it by {_change(row_at(p, name), 'score')} points and the closing "
        f"rate by {_change(row_at(p, name), 'closing', 100)} percentage points"
        for name in POLICIES if name != BASE)
    return (f"Heuristic players at every seat score {cell(p, BASE, 'score_mean'):.1f} points "
            f"per team-hand; {alt}; a heuristic team seated against a patient team scores "
            f"{_change(both, 'score')} points per hand relative to it and wins "
            f"{_rate(both, 'heuristic_win_', both['games'])} of the games.")


def _play_line(pl: pd.DataFrame) -> str:
    """5b. How each policy melds: sets, sequences, wild cards, clean burracos."""
    t = pl.set_index(["policy", "measure"])

    def mean(p: str, m: str, k: int = 2) -> str:
        r = row_at(t, (p, m))
        return _ci(r["estimate"], r["ci_low"], r["ci_high"], k)

    def share(p: str, m: str) -> str:
        r = row_at(t, (p, m))
        return percent(r["estimate"], r["ci_low"], r["ci_high"])

    others = "; ".join(f"{p} players {mean(p, 'sets')} sets, {mean(p, 'sequences')} "
                       f"sequences, a sequence share of {share(p, 'sequence_share')} and a "
                       f"clean share of {share(p, 'clean_share')}"
                       for p in POLICIES if p != BASE)
    return (f"Per team-hand, heuristic players lay {mean(BASE, 'sets')} sets and "
            f"{mean(BASE, 'sequences')} sequences, so {share(BASE, 'sequence_share')} of "
            f"their melds are sequences, meld {mean(BASE, 'wilds')} wild cards, and make "
            f"{share(BASE, 'clean_share')} of their burracos clean "
            f"(n={int(cell(t, (BASE, 'sets'), 'hands')):,} hands); {others}.")


def _variant_line(va: pd.DataFrame) -> str | None:
    """6. The rule variant that changes the mean score most, and how many change it."""
    v = va[va["preset"] != SEED_PRESET].dropna(subset=["score_diff"])
    if not len(v):
        return None
    top = row_at(v, v["score_diff"].abs().idxmax())
    sig = v[v["score_p_value"] < 0.05]["preset"].tolist()
    return (f"Of the rule variants, {top['preset']} ({top['rules']}) changes the mean "
            f"score most, {_change(top, 'score')} points per team-hand; "
            + (f"{len(sig)} of {len(v)} change the mean score at p < 0.05 "
               f"({', '.join(sig)})" if sig else
               f"none of the {len(v)} changes the mean score at p < 0.05")
            + f", and {top['preset']} moves the closing rate by "
            f"{_change(top, 'closing', 100)} percentage points.")


def findings(tables: Tables) -> list[str]:
    """Plain-language findings computed from the tables (no number typed in), one
    sentence per part of the study."""
    t = tables
    lines = (_score_line(t["scores"], t["score_parts"]), _burraco_line(t["burracos"]),
             _ending_line(t["endings"], t["closing"], t["turns"]), _game_line(t["games"]),
             _policy_line(t["policies"], t["mixed"]), _play_line(t["play"]),
             _variant_line(t["variants"]))
    return [line for line in lines if line is not None]
