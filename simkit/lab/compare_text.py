"""A comparison of rule variants as text and as JSON: the tables
:func:`simkit.lab.compare.compare` returns, each with a one-line verdict at
the 5% level after Holm's correction (``simkit compare`` and ``--json``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from simkit import games as registry
from simkit.base import stats

#: The level at which a difference is significant (after Holm's correction).
ALPHA = 0.05


def _p(p: float) -> str:
    if not math.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _sig(p: float) -> bool:
    return math.isfinite(p) and p < ALPHA


def _diff(d: float, lo: float, hi: float, percent: bool) -> str:
    if not math.isfinite(d):
        return "n/a"
    if d == lo == hi == 0:
        return "0 [0, 0]"
    text = stats.format_estimate(d, lo, hi, 1, percent=percent,
                                 digits=None if hi > lo else (2 if percent else 3))
    assert isinstance(text, str)                # one estimate: one text
    return ("+" if d > 0 else "") + text.split(" (")[0]


def _val(x: float, percent: bool) -> str:
    if not math.isfinite(x):
        return "n/a"
    return f"{100 * x:.2f}%" if percent else f"{x:.3f}"


def _verdict(name: str, labels: Sequence[str], holm_p: Iterable[float], what: str) -> str:
    p = [v for v in holm_p if math.isfinite(v)]
    sig = sum(_sig(v) for v in p)
    if sig == 0:
        return (f"{name}: no difference between {labels[0]} and {labels[1]} is significant "
                "at 5% (Holm)")
    return (f"{name}: {sig} of {len(p)} {what} differ significantly at 5% between "
            f"{labels[0]} and {labels[1]} (Holm's correction over the comparison's tests)")


def _metric_table(df: pd.DataFrame, labels: Sequence[str]) -> list[str]:
    a, b = labels
    w = max(len(m) for m in df["metric"]) + 2
    wv = max(12, len(a) + 2, len(b) + 2)
    lines = [f"{'':<{w}}{a:>{wv}}{b:>{wv}}   {'later - base [95% CI]':<34}{'p':>8}"
             f"{'p Holm':>8}"]
    for row in df.itertuples():
        pct = row.kind == "rate"
        lines.append(f"{row.metric:<{w}}{_val(row.a, pct):>{wv}}{_val(row.b, pct):>{wv}}   "
                     f"{_diff(row.diff, row.ci_low, row.ci_high, pct):<34}{_p(row.p_value):>8}"
                     f"{_p(row.p_holm):>8}" + (" *" if _sig(row.p_holm) else ""))
    return lines


def _bid_table(bids: pd.DataFrame, labels: Sequence[str]) -> list[str]:
    la, lb = labels
    w1 = max(9, len(la) + 2, len(lb) + 2)
    w2 = max(11, len(la) + 7, len(lb) + 7)
    lines = [f"{'bid':<13}{la:>{w1}}{lb:>{w1}}   {'later - base [95% CI]':<30}{'p Holm':>8}    "
             f"{'made ' + la:>{w2}}{'made ' + lb:>{w2}}   {'later - base [95% CI]':<30}"
             f"{'p Holm':>8}"]
    for row in bids.itertuples():
        left = (f"{row.bid:<13}{_val(row.rate_a, True):>{w1}}{_val(row.rate_b, True):>{w1}}   "
                f"{_diff(row.diff, row.ci_low, row.ci_high, True):<30}{_p(row.p_holm):>8}"
                + (" * " if _sig(row.p_holm) else "   "))
        right = ""
        if row.level:
            right = (f" {_val(row.made_a, True):>{w2}}{_val(row.made_b, True):>{w2}}   "
                     f"{_diff(row.made_diff, row.made_ci_low, row.made_ci_high, True):<30}"
                     f"{_p(row.made_p_holm):>8}" + (" *" if _sig(row.made_p_holm) else ""))
        lines.append((left + right).rstrip())
    pv = list(bids["p_holm"]) + [v for v in bids["made_p_holm"] if math.isfinite(v)]
    lines.append("verdict: " + _verdict("contracts", labels, pv, "shares and success rates"))
    return lines


def identical_sentence(base: str, later: str, differing: dict[str, float]) -> str | None:
    """The sentence for a later variant that played every deal exactly as the
    base (None if some deal differed)."""
    if any(share != 0 for share in differing.values()):
        return None
    return (f"{later} never changed a deal at this table: every hand and game was played "
            f"and scored exactly as under {base}, so every difference is exactly 0 [0, 0].")


def _policies_lines(result: dict[str, pd.DataFrame]) -> list[str]:
    at = result["variants"].attrs
    g = registry.get(at["game"])
    lines = []
    for label, texts in at["played"].items():
        short = [g.make_policies(t, 1)[0].label() for t in texts]
        shown = short[0] if len(set(texts)) == 1 else " | ".join(short)
        note = "every seat" if len(set(texts)) == 1 else "per seat"
        lines.append(f"  {label}: {shown} ({note})")
    return lines


def format_comparison(result: dict[str, pd.DataFrame]) -> str:
    """Every table as text, each with a one-line verdict (5% level, Holm)."""
    from simkit.lab.adapt import format_trace

    at = result["variants"].attrs
    labels, changes = at["labels"], at["changes"]
    lines = [f"{at['title']} rule variants, {at['players']} players, seed {at['seed']}: "
             + ", ".join(f"{lab} = {ch}" for lab, ch in zip(labels, changes))
             + f" (base: {labels[0]})",
             "Each later variant against the base on the same deals: the paired difference "
             "with its 95% interval,", "p-value and Holm's p over that comparison's tests; "
             "* = significant at 5% after Holm.", "", "Played by:", *_policies_lines(result)]
    for label, res in at["adapted"].items():
        if res is not None:
            lines += format_trace(label, res)
    several = len(labels) > 2
    for later in labels[1:]:
        pair = (labels[0], later)
        share = at["differing"][later]
        lines += ["", f"=== {later} against {labels[0]} ===",
                  "records that differ from the base: " + ", ".join(
                      f"{100 * s:.2f}% of the {u}s" for u, s in share.items())]
        same = identical_sentence(labels[0], later, share)
        if same:
            lines.append(same)
        for name, df in result.items():
            if name == "variants" or df.empty:
                continue
            part = df[df["vs"] == later] if several else df
            if part.empty:
                continue
            lines += ["", at["headings"][name]]
            if "bid" in part.columns:
                lines += _bid_table(part, pair)
            else:
                lines += _metric_table(part, pair)
                lines.append("verdict: " + _verdict(name, pair, part["p_holm"], "measures"))
    if at.get("skill_deals"):
        lines += ["", f"Skill trace: each rung of the ladder against the one below on "
                  f"{at['skill_deals']:,} duplicate deals of whole games (fewer for a player "
                  "that searches); a win rate of 50% means skill does not show."]
    return "\n".join(lines)


def comparison_json(result: dict[str, pd.DataFrame]) -> dict[str, Any]:
    """The comparison as JSON-ready data: the run's settings, then under
    ``tables`` each table as a list of records (NaN as None)."""
    at = result["variants"].attrs

    def clean(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, np.generic):
            return clean(v.item())
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        return v

    def records(df: pd.DataFrame) -> list[dict[str, Any]]:
        return [{k: clean(v) for k, v in rec.items()} for rec in df.to_dict("records")]

    first_unit = "hand" if at["hands"] is not None else "game"
    return {"game": at["game"], "players": at["players"], "hands": at["hands"],
            "games": at["games"], "seed": at["seed"], "policies": list(at["policies"]),
            "labels": list(at["labels"]),
            "differing_share": {lab: clean(d[first_unit]) for lab, d in at["differing"].items()},
            "identical": {lab: identical_sentence(at["labels"][0], lab, d)
                          for lab, d in at["differing"].items()},
            "skill_deals": at["skill_deals"],
            "tables": {name: records(df) for name, df in
                       [("variants", result["variants"])]
                       + [(k, v) for k, v in result.items() if k != "variants"]}}
