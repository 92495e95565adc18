"""The words a comparison states its findings in, each from its own test.

Every row of :func:`simkit.lab.compare.compare` (a later variant against the
base, one measure) ends in one of these words:

- ``higher`` / ``lower``: the paired difference is told apart from 0 at 5%
  after Holm's correction over the comparison's tests (its Holm p-value is
  below :data:`ALPHA`), upward or downward; where the equivalence test also
  places it within its margin, the row says so (``within_margin``): a change
  too small to matter, which no headline states;
- ``no change``: two one-sided tests (TOST) at 5% place the difference
  within the measure's margin of practical equivalence, ``-margin <
  difference < margin``, after Holm's correction over the comparison's
  equivalence tests.  A measure with no margin (the skill trace's
  games-to-lead) is said to be unchanged only where it is the same on every
  deal;
- ``not shown either way``: neither test tells, with the number of deals
  (or games) that would, at the observed variance (:func:`needed`);
- ``depends on adaptation``: with players adapted several times
  (:mod:`simkit.lab.adapt`), the adaptations disagree, one finding a change
  that another does not (a direction, or its absence).  ``higher`` and
  ``lower`` need every adaptation's interval on the same side of 0; ``no
  change`` needs every adaptation's equivalence test (the p-values of a
  row are the largest of its adaptations': an intersection-union test).

A difference that is exactly 0 on every deal (the rule never changed one
at this table) has p = 1, and is ``no change`` whenever its measure has a
margin.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats as st

from simkit.base import stats
from simkit.base.errors import InputError
from simkit.base.measures import BidShares, Rate, Section

#: The level of every test: a difference at 5% after Holm, an equivalence at
#: 5% (two one-sided tests) after Holm.
ALPHA = 0.05
HIGHER, LOWER = "higher", "lower"
SAME, UNSHOWN, DEPENDS = "no change", "not shown either way", "depends on adaptation"
WORDS = (HIGHER, LOWER, SAME, UNSHOWN, DEPENDS)
_Z95 = float(st.norm.ppf(0.975))


def _se(row: dict[str, Any], prefix: str = "") -> float:
    """The standard error a row's 95% interval implies (0 for an exact 0)."""
    lo, hi = row.get(f"{prefix}ci_low"), row.get(f"{prefix}ci_high")
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return math.nan
    return float(hi - lo) / (2 * _Z95)


def equivalence_p(diff: float, se: float, margin: float | None) -> float:
    """The p-value of two one-sided tests that ``-margin < diff < margin``: the
    larger of the two one-sided p-values (normal; NaN without a margin or a
    standard error).  An exact 0 (standard error 0) within the margin gives 0.

    >>> round(equivalence_p(0.001, 0.002, 0.01), 6)
    3e-06
    >>> equivalence_p(0.0, 0.0, 0.01)
    0.0
    """
    if se == 0 and diff == 0:
        return 0.0                  # the same on every deal: within any margin
    if margin is None or not math.isfinite(diff) or not math.isfinite(se):
        return math.nan
    if se == 0:
        return 0.0 if abs(diff) < margin else 1.0
    upper = float(st.norm.cdf((diff - margin) / se))      # H0: diff >= margin
    lower = float(st.norm.sf((diff + margin) / se))       # H0: diff <= -margin
    return max(upper, lower)


def needed(diff: float, se: float, units: int, margin: float | None, tests: int = 1) -> int | None:
    """The deals (or games) that would tell, at the observed variance: enough
    for the difference's interval to leave 0 if it is the true one, or for the
    equivalence test to pass if it lies within the margin, whichever is
    fewer; each at the level Holm's correction asks of the first of
    ``tests`` tests (Bonferroni's).  None where neither could (an exact 0
    without a margin, or no variance).

    >>> needed(0.01, 0.01, 10_000, None)
    38415
    """
    if not (math.isfinite(diff) and math.isfinite(se)) or se <= 0 or units < 2:
        return None
    out = []
    if diff != 0:
        z = float(st.norm.isf(ALPHA / (2 * tests)))
        out.append(units * (z * se / abs(diff)) ** 2)
    if margin is not None and abs(diff) < margin:
        z = float(st.norm.isf(ALPHA / tests))
        out.append(units * (z * se / (margin - abs(diff))) ** 2)
    return max(units + 1, math.ceil(min(out))) if out else None


def word(diff: float, p_holm: float, equivalent_holm: float) -> str:
    """One test's finding from its Holm p-values (difference, equivalence)."""
    if math.isfinite(p_holm) and p_holm < ALPHA and diff != 0:
        return HIGHER if diff > 0 else LOWER
    if math.isfinite(equivalent_holm) and equivalent_holm < ALPHA:
        return SAME
    return UNSHOWN


def combine(words: Sequence[str]) -> str:
    """A row's finding from its adaptations' (see the module notes)."""
    kinds = set(words)
    if len(kinds) == 1:
        return words[0]
    if kinds & {HIGHER, LOWER, SAME}:
        return DEPENDS
    return UNSHOWN


def fill(rows: Sequence[dict[str, Any]]) -> None:
    """Give every test of one comparison family (one later variant against the
    base, one adaptation) its Holm p-values and finding, in place:
    ``p_holm``, ``equivalent_p``, ``equivalent_holm``, ``finding`` and
    ``needed`` (a bid row also ``made_...``).  A row needs ``diff``,
    ``ci_low``, ``ci_high``, ``p_value``, ``margin`` and ``units``."""
    cells = [(row, prefix) for row in rows for prefix in ("", "made_")
             if f"{prefix}p_value" in row]
    for row, prefix in cells:
        se = _se(row, prefix)
        row[f"{prefix}equivalent_p"] = equivalence_p(row[f"{prefix}diff"], se,
                                                     row.get(f"{prefix}margin"))
    for key, holm in (("p_value", "p_holm"), ("equivalent_p", "equivalent_holm")):
        adjusted = stats.holm([row[prefix + key] for row, prefix in cells])
        for (row, prefix), p in zip(cells, adjusted):
            row[prefix + holm] = float(p)
    for row, prefix in cells:
        d = row[f"{prefix}diff"]
        if d == 0 and row[f"{prefix}ci_low"] == row[f"{prefix}ci_high"] == 0:
            row[f"{prefix}p_value"] = row[f"{prefix}p_holm"] = 1.0   # the same on every deal
        row[f"{prefix}finding"] = word(d, row[f"{prefix}p_holm"],
                                       row[f"{prefix}equivalent_holm"])
        # told apart from 0, and yet within its margin: a change too small to matter
        row[f"{prefix}within_margin"] = bool(
            row[f"{prefix}finding"] in (HIGHER, LOWER)
            and row[f"{prefix}equivalent_holm"] < ALPHA)
        row[f"{prefix}needed"] = (None if row[f"{prefix}finding"] != UNSHOWN else
                                  needed(d, _se(row, prefix), int(row.get("units", 0)),
                                         row.get(f"{prefix}margin"), len(cells)))


# --- several adaptations, one row ----------------------------------------------------

#: A row's numbers that are one adaptation's own, and how several are told
#: in one row: each variant's value (their mean, with the span of their
#: intervals), the difference (the mean, with the span of the adaptations'
#: intervals) and its p-values (the largest: an intersection-union test).
_MEAN = ("a", "b", "rate_a", "rate_b", "made_a", "made_b", "diff", "made_diff")
_LOW = ("a_low", "b_low", "ci_low", "made_ci_low")
_HIGH = ("a_high", "b_high", "ci_high", "made_ci_high")
_MOST = ("p_value", "p_holm", "equivalent_p", "equivalent_holm", "made_p_value",
         "made_p_holm", "made_equivalent_p", "made_equivalent_holm", "p_a", "p_b")


def absent_bid(row: dict[str, Any]) -> dict[str, Any]:
    """The row of a contract no hand of an adaptation reached under either
    variant (``row``: another adaptation's): the same share, 0, on every deal."""
    out = {**row, "hands_a": 0, "hands_b": 0, "rate_a": 0.0, "rate_b": 0.0, "diff": 0.0,
           "ci_low": 0.0, "ci_high": 0.0, "p_value": 1.0, "p_holm": 1.0,
           "equivalent_p": 0.0, "equivalent_holm": 0.0, "finding": SAME,
           "needed": None}
    for k in ("made_a", "made_b", "made_diff", "made_ci_low", "made_ci_high", "made_p_value",
              "made_p_holm", "made_equivalent_p", "made_equivalent_holm"):
        if k in out:
            out[k] = math.nan
    if "made_finding" in out:
        out["made_finding"], out["made_needed"] = UNSHOWN, None
    return out


def combined(each: list[dict[str, Any]], adapted: bool) -> dict[str, Any]:
    """One row of a comparison from every adaptation's (see the module notes):
    each variant's value is their mean (with the span of their intervals),
    the difference their mean (with the span of the adaptations' intervals),
    the p-values their largest, the finding :func:`combine`'s, and with
    ``adapted`` ``by_adaptation`` (and ``made_by_adaptation``) lists each
    adaptation's difference, interval, Holm's p and finding."""
    row = dict(each[0])
    if adapted:
        row["by_adaptation"] = (
            [{"diff": e["diff"], "ci_low": e["ci_low"], "ci_high": e["ci_high"],
              "p_holm": e["p_holm"], "finding": e["finding"]} for e in each]
            if "finding" in row else    # a row that compares nothing
            [{"a": e["a"], "b": e["b"]} for e in each])
        if "made_finding" in row:
            row["made_by_adaptation"] = [{"diff": e["made_diff"], "ci_low": e["made_ci_low"],
                                          "ci_high": e["made_ci_high"],
                                          "p_holm": e["made_p_holm"],
                                          "finding": e["made_finding"]} for e in each]
    if len(each) == 1:
        return row
    with np.errstate(invalid="ignore"):
        for key in _MEAN:
            if key in row:
                row[key] = float(np.mean([e[key] for e in each]))
        for keys, pick in ((_LOW, np.min), (_HIGH, np.max), (_MOST, np.max)):
            for key in keys:
                if key in row:
                    row[key] = float(pick([e[key] for e in each]))
    for prefix in ("", "made_"):
        if f"{prefix}finding" not in row:
            continue
        words = [e[f"{prefix}finding"] for e in each]
        row[f"{prefix}finding"] = combine(words)
        row[f"{prefix}within_margin"] = all(e[f"{prefix}within_margin"] for e in each)
        more = [e[f"{prefix}needed"] for e in each]
        row[f"{prefix}needed"] = (max(more) if row[f"{prefix}finding"] == UNSHOWN
                                  and all(n is not None for n in more) else None)
    for key in ("n_a", "n_b", "hands_a", "hands_b"):
        if key in row:
            row[key] = round(float(np.mean([e[key] for e in each])))
    return row


# --- margins -------------------------------------------------------------------------

_MARGIN_FORM = "MEASURE=VALUE, e.g. 'hands per game=0.2' or 'win rate=2%'"


def with_margins(sections: list[Section], items: Sequence[str] | None) -> list[Section]:
    """``sections`` with the margins of practical equivalence ``items`` set
    (``--margin MEASURE=VALUE``, repeatable): every measure whose name holds
    MEASURE (case aside; ``bids`` for the contracts' shares and success rates)
    takes VALUE, in the measure's unit; a rate's as a fraction or in points
    with ``%`` (``2%`` is 0.02).  A MEASURE that names nothing, or a value
    that is not a positive number, is an InputError."""
    out = list(sections)
    for item in items or ():
        name, sep, value = str(item).rpartition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"bad --margin {item!r}: expected {_MARGIN_FORM}")
        text = value.strip()
        percent = text.endswith("%")
        try:
            number = float(text.rstrip("%").strip())
        except ValueError:
            number = math.nan
        if not (math.isfinite(number) and number > 0):
            raise InputError(f"bad --margin {item!r}: {text!r} is not a positive number; "
                             f"expected {_MARGIN_FORM}")
        hit = False
        for i, s in enumerate(out):
            measures = []
            for m in s.measures:
                label = "bids" if isinstance(m, BidShares) else m.metric
                if name.lower() in label.lower() and hasattr(m, "margin"):
                    rate = isinstance(m, (Rate, BidShares)) or getattr(m, "percent", False)
                    if percent and not rate:
                        raise InputError(f"bad --margin {item!r}: {label!r} is not a rate; "
                                         "give its margin in its own unit, without %")
                    if rate and not percent and number > 1:
                        raise InputError(f"bad --margin {item!r}: {label!r} is a rate; give "
                                         "its margin as a fraction (0.02) or in points (2%)")
                    m = dataclasses.replace(m, margin=number / 100 if percent else number)
                    hit = True
                measures.append(m)
            out[i] = dataclasses.replace(s, measures=tuple(measures))
        if not hit:
            names = [("bids" if isinstance(m, BidShares) else m.metric)
                     for s in sections for m in s.measures if hasattr(m, "margin")]
            raise InputError(f"bad --margin {item!r}: no measure is named {name!r}; measures "
                             "include " + ", ".join(repr(n) for n in names[:6]) + ", ...")
    return out
