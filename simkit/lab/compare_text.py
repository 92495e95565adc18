"""A comparison of rule variants as text and as JSON: the tables
:func:`simkit.lab.compare.compare` returns, every row with its finding
(:mod:`simkit.lab.findings`) and each table with a one-line count of them
(``simkit compare`` and ``--json``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from simkit import games as registry
from simkit.base.rows import rows_of
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


def _decimals(half: float, least: int = 0) -> int:
    """Decimals that show one significant digit of an interval's half-width."""
    if not (math.isfinite(half) and half > 0):
        return least
    return max(least, min(6, -math.floor(math.log10(half))))


def _signed(x: float, decimals: int, unit: str = "") -> str:
    """``x`` with its sign, never a negative zero: a value that rounds to 0 but
    is not 0 gets the decimals it needs."""
    if x == 0:
        return "0" + unit
    while round(x, decimals) == 0 and decimals < 9:
        decimals += 1
    return f"{x:+.{decimals}f}".replace("-", "\u2212") + unit


def _diff(d: float, lo: float, hi: float, percent: bool) -> str:
    """A difference with its interval, rates in percentage points, with the
    decimals the interval asks for."""
    if not math.isfinite(d):
        return "n/a"
    if d == lo == hi == 0:
        return "0 [0, 0]"
    scale, unit = (100, " pp") if percent else (1, "")
    half = (hi - lo) / 2 * scale if math.isfinite(lo) and math.isfinite(hi) else math.nan
    k = _decimals(half, 1 if percent else 0)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return _signed(d * scale, k, unit)
    return (f"{_signed(d * scale, k, unit)} [{_signed(lo * scale, k)}, "
            f"{_signed(hi * scale, k)}]")


def _each(row: Any, percent: bool, prefix: str = "") -> str:
    """The difference with its interval; with several adaptations, each one's
    difference and the span of their intervals."""
    each = getattr(row, f"{prefix}by_adaptation", None)
    d, lo, hi = (getattr(row, f"{prefix}{k}") for k in ("diff", "ci_low", "ci_high"))
    if not isinstance(each, list) or len(each) < 2:
        return _diff(d, lo, hi, percent)
    scale, unit = (100, " pp") if percent else (1, "")
    half = (hi - lo) / 2 * scale if math.isfinite(lo) and math.isfinite(hi) else math.nan
    k = _decimals(half, 1 if percent else 0)
    parts = [("n/a" if e["diff"] is None or not math.isfinite(e["diff"])
              else _signed(scale * e["diff"], k)) for e in each]
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return " / ".join(parts) + unit
    return " / ".join(parts) + f"{unit} [{_signed(scale * lo, k)}, {_signed(scale * hi, k)}]"


def _val(x: float, percent: bool, never: bool = False) -> str:
    """A value as people read it: a rate in percent, a whole number without
    decimals, else three significant decimals at most."""
    if never:
        return "never"
    if not math.isfinite(x):
        return "n/a"
    if percent:
        return f"{100 * x:.2f}%"
    if float(x).is_integer():
        return f"{x:,.0f}"
    a = abs(x)
    return f"{x:,.{1 if a >= 100 else 2 if a >= 10 else 3}f}"


def _word(row: Any, prefix: str = "") -> str:
    """A row's finding, starred when it tells a difference, and marked when that
    difference lies within the measure's margin."""
    word = getattr(row, f"{prefix}finding", "")
    if not isinstance(word, str):
        return ""
    if _found(word):
        word += " *" + (" (within its margin)" if getattr(row, f"{prefix}within_margin", False)
                        else "")
    return word


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
    for row in rows_of(df):
        pct = row.kind == "rate"
        never = getattr(row, "never", None)
        never = never if isinstance(never, list) else [False, False]
        lines.append(f"{row.metric:<{w}}{_val(row.a, pct, never[0]):>{wv}}"
                     f"{_val(row.b, pct, never[1]):>{wv}}   "
                     f"{_each(row, pct):<{wd}}{_p(row.p_holm):>8}  {_word(row)}"
                     + _needed(row, "", unit))
    return lines


def _bid_table(bids: pd.DataFrame, labels: Sequence[str]) -> list[str]:
    la, lb = labels
    w1 = max(9, len(la) + 2, len(lb) + 2)
    w2 = max(11, len(la) + 7, len(lb) + 7)
    wd = 44 if "by_adaptation" in bids else 30
    lines = [f"{'bid':<13}{la:>{w1}}{lb:>{w1}}   {'later - base [95% CI]':<{wd}}{'finding':<24}"
             f"{'made ' + la:>{w2}}{'made ' + lb:>{w2}}   {'later - base [95% CI]':<{wd}}"
             "finding"]
    for row in rows_of(bids):
        left = (f"{row.bid:<13}{_val(row.rate_a, True):>{w1}}{_val(row.rate_b, True):>{w1}}   "
                f"{_each(row, True):<{wd}}" + f"{_word(row):<24}")
        right = ""
        if row.level:
            right = (f"{_val(row.made_a, True):>{w2}}{_val(row.made_b, True):>{w2}}   "
                     f"{_each(row, True, 'made_'):<{wd}}" + _word(row, "made_"))
        lines.append((left + right).rstrip())
    words = list(bids["finding"]) + [w for w in bids.get("made_finding", []) if isinstance(w, str)]
    lines.append("verdict: " + _verdict("contracts", words, "shares and success rates"))
    return lines


def _equal_shares(part: pd.DataFrame, labels: Sequence[str]) -> list[str]:
    """The equal-shares test of each variant on its own (the balance row's)."""
    if "p_a" not in part:
        return []
    out = []
    for row in rows_of(part[part["p_a"].notna()]):
        out.append(f"equal shares of the wins, each variant on its own (G-test): "
                   f"{labels[0]} p = {_p(row.p_a)}, {labels[1]} p = {_p(row.p_b)}; the row "
                   "above gives each one's largest departure from a fair share, less its "
                   "bias")
    return out


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


#: The tables of a comparison that are not rows of one later variant against the base.
_NOT_PER_VARIANT = ("variants", "best_response", "sweep")


def _sweep_lines(result: dict[str, pd.DataFrame]) -> list[str]:
    """The sweep's table: a row per variant, a column per headline measure (its
    value and interval, and its finding against the base)."""
    t = result.get("sweep")
    if t is None or t.empty:
        return []
    names = list(t.attrs.get("measures", {}).values())
    keys = [c for c in t.columns if c != "variant" and not any(
        c == n or c.startswith(n + " ") for n in names)]
    lines = ["", "The grid, one row per variant (each measure's value [95% CI] and its "
             "finding against the base):"]
    head = f"{'variant':<28}" + "".join(f"{k:>12}" for k in keys)
    cells = []
    for r in t.to_dict("records"):
        row = f"{str(r['variant'])[:27]:<28}" + "".join(f"{r[k]!s:>12}" for k in keys)
        parts = []
        for n in names:
            if n not in r or r[n] is None or not math.isfinite(float(r[n])):
                parts.append(f"{n}: n/a")
                continue
            pct = "length" not in n and "lead changes" not in n and "points" not in n
            lo, hi = r.get(f"{n} low"), r.get(f"{n} high")
            # an interval has both ends or neither: hi is there when lo is
            ci = ("" if lo is None or not math.isfinite(lo) else
                  f" [{_val(lo, pct)}, {_val(hi, pct)}]")  # type: ignore[arg-type]
            word = r.get(f"{n} finding")
            parts.append(f"{n} {_val(r[n], pct)}{ci}" + ("" if word == "base" else f" {word}"))
        cells.append((row, parts))
    lines.append(head)
    for row, parts in cells:
        lines.append(row)
        lines += [f"    {p}" for p in parts]
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
        for r in rows_of(best):
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
             + ", ".join(lab if lab == ch else f"{lab} = {ch}" for lab, ch in zip(labels, changes))
             + f" (base: {labels[0]})",
             "Each later variant against the base on the same deals: the paired difference "
             "with its 95% interval, Holm's p over", "that comparison's tests, and the finding: "
             "higher or lower (told apart from 0), no change (within its margin,",
             "by two one-sided tests), not shown either way"
             + (", or depends on adaptation (the adaptations disagree; each is played on the"
                " same deals)." if adapted else "."),
             "* = higher or lower.", "", "Played by:", *_policies_lines(result)]
    lines += _adaptation_lines(result)
    lines += _sweep_lines(result)
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
            if name in _NOT_PER_VARIANT or df.empty:
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
                lines += _equal_shares(part, pair)
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

    def records(df: pd.DataFrame) -> list[dict[Hashable, Any]]:
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


#: The file marking a folder ``compare --out`` wrote (:mod:`simkit.runs.owned`).
MARKER = "simkit-compare.txt"


def write_tables(result: dict[str, pd.DataFrame], where: Any) -> list[str]:
    """Every table of a comparison as a CSV file in the directory ``where``
    (``simkit compare --out``): ``variants.csv``, one per section, ``sweep.csv``
    and ``best_response.csv`` where there are; lists and objects in a cell as
    JSON.  Returns the files' names."""
    import json
    import pathlib

    from simkit.runs import owned, store

    where = pathlib.Path(where)
    where.mkdir(parents=True, exist_ok=True)
    owned.mark(where, MARKER, "This directory holds the tables (and adaptations) written by "
               "'simkit compare --out'. simkit writes them only into a new or empty "
               "directory, or one holding this file.\n")
    names = []
    for name, df in result.items():
        flat = df.copy()
        for col in flat.columns:
            if flat[col].map(lambda v: isinstance(v, (list, dict))).any():
                flat[col] = flat[col].map(lambda v: json.dumps(v, default=str)
                                          if isinstance(v, (list, dict)) else v)
        store.write_csv_atomic(where / f"{name}.csv", flat)
        names.append(f"{name}.csv")
    return names
