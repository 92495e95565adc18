"""Helpers shared by the studies: argument checks, proportions with their
intervals, number formatting for summary sentences, interval error bars."""

from __future__ import annotations

import math

import numpy as np

from simkit import stats
from simkit.errors import InputError
from simkit.runner import check_count


def check_args(hands, seed) -> None:
    """A study's size and seed, or an InputError naming the bad one."""
    check_count(hands, "--hands")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise InputError(f"bad --seed {seed!r}: expected a whole number from 0 to 2**64-1")


def proportion(k, n):
    """``(k / n, lo, hi)`` with the Clopper-Pearson 95% interval; NaN where n is 0."""
    lo, hi = stats.proportion_ci(k, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(k, float) / np.asarray(n, float), lo, hi


def signed(x: float, k: int) -> str:
    """``x`` with ``k`` decimals, its sign always shown (a true minus sign)."""
    return f"{x:+.{k}f}".replace("-", "\u2212") if math.isfinite(x) else "n/a"


def percent(p, lo, hi, n=None) -> str:
    """A proportion as a percentage with its 95% interval (and n): enough decimals
    to tell the interval's ends apart, two significant digits for rates below 1%."""
    if not math.isfinite(p):
        return f"n/a (n={int(n or 0):,})"
    k = 1
    if 0 < 100 * p < 1:
        k = min(1 - math.floor(math.log10(100 * p)), 4)
    while k < 4 and math.isfinite(lo) and round(100 * lo, k) == round(100 * hi, k) and hi > lo:
        k += 1
    tail = f", n={int(n):,}" if n is not None else ""
    return f"{100 * p:.{k}f}% (95% CI {100 * lo:.{k}f}-{100 * hi:.{k}f}%{tail})"


def errorbar(ax, x, y, lo, hi, **kw):
    """Points at ``y`` with bars from ``lo`` to ``hi`` (missing ends drawn as none)."""
    y, lo, hi = (np.asarray(v, float) for v in (y, lo, hi))
    yerr = np.nan_to_num(np.vstack([y - lo, hi - y]))
    return ax.errorbar(x, y, yerr=yerr, capsize=3, marker="o", ms=4, **kw)
