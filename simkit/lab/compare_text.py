"""A comparison of rule variants as text and as JSON: the tables
:func:`simkit.lab.compare.compare` returns, every row with its finding
(:mod:`simkit.lab.findings`) and each table with a one-line count of them
(``simkit compare`` and ``--json``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from simkit import games as registry
from simkit.base import stats
from simkit.lab import findings

#: The level at which a difference is significant (after Holm's correction).
ALPHA = findings.ALPHA


def _p(p: float) -> str:
    if not math.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _found(word: object) -> bool:
    """A row told apart from its base (starred)."""
    return word in (findings.HIGHER, findings.LOWER)


def _diff(d: float, lo: float, hi: float, percent: bool) -> str:
    if not math.isfinite(d):
        return "n/a"
    if d == lo == hi == 0:
        return "0 [0, 0]"
    text = stats.format_estimate(d, lo, hi, 1, percent=percent,
                                 digits=None if hi > lo else (2 if percent else 3))
    assert isinstance(text, str)                # one estimate: one text
    return ("+" if d > 0 else "") + text.split(" (")[0]


def _each(row: Any, percent: bool, prefix: str = "") -> str:
    """The difference with its interval; with several adaptations, each one's
    difference and the span of their intervals."""
    each = getattr(row, f"{prefix}by_adaptation", None)
    d, lo, hi = (getattr(row, f"{prefix}{k}") for k in ("diff", "ci_low", "ci_high"))
    if not isinstance(each, list) or len(each) < 2:
        return _diff(d, lo, hi, percent)
    scale, unit = (100, "") if percent else (1, "")
    parts = [("n/a" if e["diff"] is None or not math.isfinite(e["diff"])
              else f"{scale * e['diff']:+.2f}{unit}") for e in each]
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return " / ".join(parts)
    return " / ".join(parts) + f" [{scale * lo:+.2f}, {scale * hi:+.2f}]"


def _val(x: float, percent: bool) -> str:
    if not math.isfinite(x):
        return "n/a"
    return f"{100 * x:.2f}%" if percent else f"{x:.3f}"


def _verdict(name: str, words: Iterable[str], what: str) -> str:
    """How many of a table's tests ended in each finding."""
    counted = dict.fromkeys(findings.WORDS, 0)
    for w in words:
        if isinstance(w, str):
            counted[w] += 1
    said = [f"{n} {w}" for w, n in counted.items() if n]
    return f"{name}: " + (", ".join(said) or "nothing compared") + f" ({what}; 5%, Holm)"


def _needed(row: Any, prefix: str, unit: str) -> str:
    n = getattr(row, f"{prefix}needed", None)
    if getattr(row, f"{prefix}finding", None) != findings.UNSHOWN or n is None \
            or not math.isfinite(n):
        return ""
    return f" (about {int(n):,} {unit}s would tell)"


def _metric_table(df: pd.DataFrame, labels: Sequence[str], unit: str) -> list[str]:
    a, b = labels
    w = max(len(m) for m in df["metric"]) + 2
    wv = max(12, len(a) + 2, len(b) + 2)
    head = "later - base [95% CI]" + (" per adaptation" if "by_adaptation" in df else "")
    wd = max(34, len(head) + 2)
    lines = [f"{'':<{w}}{a:>{wv}}{b:>{wv}}   {head:<{wd}}{'p Holm':>8}  finding"]
    for row in df.itertuples():
        pct = row.kind == "rate"
        lines.append(f"{row.metric:<{w}}{_val(row.a, pct):>{wv}}{_val(row.b, pct):>{wv}}   "
                     f"{_each(row, pct):<{wd}}{_p(row.p_holm):>8}  {row.finding}"
                     + (" *" if _found(row.finding) else "") + _needed(row, "", unit))
    return lines


def _bid_table(bids: pd.DataFrame, labels: Sequence[str]) -> list[str]:
    la, lb = labels
    w1 = max(9, len(la) + 2, len(lb) + 2)
    w2 = max(11, len(la) + 7, len(lb) + 7)
    wd = 44 if "by_adaptation" in bids else 30
    lines = [f"{'bid':<13}{la:>{w1}}{lb:>{w1}}   {'later - base [95% CI]':<{wd}}{'finding':<24}"
             f"{'made ' + la:>{w2}}{'made ' + lb:>{w2}}   {'later - base [95% CI]':<{wd}}"
             "finding"]
    for row in bids.itertuples():
        left = (f"{row.bid:<13}{_val(row.rate_a, True):>{w1}}{_val(row.rate_b, True):>{w1}}   "
                f"{_each(row, True):<{wd}}"
                + f"{row.finding + (' *' if _found(row.finding) else ''):<24}")
        right = ""
        if row.level:
            made = getattr(row, "made_finding", "")
            right = (f"{_val(row.made_a, True):>{w2}}{_val(row.made_b, True):>{w2}}   "
                     f"{_each(row, True, 'made_'):<{wd}}"
                     + str(made) + (" *" if _found(made) else ""))
        lines.append((left + right).rstrip())
    words = list(bids["finding"]) + [w for w in bids.get("made_finding", []) if isinstance(w, str)]
    lines.append("verdict: " + _verdict("contracts", words, "shares and success rates"))
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
    for label, each in at["played_by_adaptation"].items():
        for k, texts in enumerate(each):
            short = [g.make_policies(t, 1)[0].label() for t in texts]
            shown = short[0] if len(set(texts)) == 1 else " | ".join(short)
            note = "every seat" if len(set(texts)) == 1 else "per seat"
            which = f", adaptation {k + 1}" if len(each) > 1 else ""
            lines.append(f"  {label}{which}: {shown} ({note})")
    return lines


def _adaptation_lines(result: dict[str, pd.DataFrame]) -> list[str]:
    """How each variant's players were adapted, and the best-response check."""
    from simkit.lab.adapt import format_trace

    at = result["variants"].attrs
    lines: list[str] = []
    for label, res in at["adapted"].items():
        if res is None:
            continue
        each = res["by_adaptation"]
        for k, one in enumerate(each):
            name = label + (f", adaptation {k + 1} of {len(each)}" if len(each) > 1 else "")
            lines += format_trace(name, {**one, "objective": res["objective"]})
    best = result.get("best_response")
    if best is not None and not best.empty:
        lines += ["", "Best-response check: under each variant's rules, its adapted setting "
                  "against another variant's, on the same fresh duplicate deals (own minus "
                  f"other, {res['objective']}, 95% CI, {int(best['games'].iloc[0]):,} deals):"]
        for r in best.itertuples():
            verdict = ""
            if r.flagged:
                verdict = (": loses, flagged: its adaptation went on from that setting"
                           if r.continued else ": loses, flagged")
            elif r.continued:
                verdict = " (before its adaptation went on)"
            when = " after going on" if r.after else ""
            ci = "" if not math.isfinite(r.ci_low) else f" [{r.ci_low:+.4f}, {r.ci_high:+.4f}]"
            said = "the same setting" if r.same else f"{r.diff:+.4f}{ci}{verdict}"
            lines.append(f"  adaptation {r.adaptation}, under {r.rules}'s rules{when}, "
                         f"{r.rules}'s setting vs {r.setting_of}'s: {said}")
    return lines


def format_comparison(result: dict[str, pd.DataFrame]) -> str:
    """Every table as text, each row with its finding and each table with a
    count of them (5% level, Holm)."""
    at = result["variants"].attrs
    labels, changes = at["labels"], at["changes"]
    adapted = any(res is not None for res in at["adapted"].values())
    lines = [f"{at['title']} rule variants, {at['players']} players, seed {at['seed']}: "
             + ", ".join(f"{lab} = {ch}" for lab, ch in zip(labels, changes))
             + f" (base: {labels[0]})",
             "Each later variant against the base on the same deals: the paired difference "
             "with its 95% interval, Holm's p over", "that comparison's tests, and the finding: "
             "higher or lower (told apart from 0), no change (within its margin,",
             "by two one-sided tests), not shown either way"
             + (", or depends on adaptation (the adaptations disagree; each is played on the"
                " same deals)." if adapted else "."),
             "* = higher or lower.", "", "Played by:", *_policies_lines(result)]
    lines += _adaptation_lines(result)
    several = len(labels) > 2
    units = {"hands": "hand", "bids": "hand", "scores": "hand"}
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
            if name in ("variants", "best_response") or df.empty:
                continue
            part = df[df["vs"] == later] if several else df
            if part.empty:
                continue
            lines += ["", at["headings"][name]]
            if "bid" in part.columns:
                lines += _bid_table(part, pair)
            else:
                lines += _metric_table(part, pair, units.get(name, "game"))
                lines.append("verdict: " + _verdict(name, part["finding"], "measures"))
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
    adapted = [label for label, res in at["adapted"].items() if res and res["capped"]]
    return {"game": at["game"], "players": at["players"], "hands": at["hands"],
            "games": at["games"], "seed": at["seed"], "policies": list(at["policies"]),
            "labels": list(at["labels"]),
            "warnings": [f"{label}: an adaptation stopped at its cap of rounds while still "
                         "improving: its players may not have converged" for label in adapted],
            "differing_share": {lab: clean(d[first_unit]) for lab, d in at["differing"].items()},
            "identical": {lab: identical_sentence(at["labels"][0], lab, d)
                          for lab, d in at["differing"].items()},
            "skill_deals": at["skill_deals"],
            "tables": {name: records(df) for name, df in
                       [("variants", result["variants"])]
                       + [(k, v) for k, v in result.items() if k != "variants"]}}
