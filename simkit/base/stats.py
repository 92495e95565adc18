"""Intervals and tests for simulation estimates.

Every estimate simkit prints carries its sample size and an interval.  The
distributions come from scipy; this module only chooses the method and handles
the edges (no trials, no variance) the same way everywhere.

- Proportions (bid success, win rate): Clopper-Pearson exact interval.
- Means (payout per hand, score): t interval from sufficient statistics
  (count, sum, sum of squares), so large runs can keep running aggregates.
- Two proportions: Newcombe's hybrid score interval for the difference, and a
  chi-square test without continuity correction (Fisher's exact test when an
  expected cell count is below 5).
- Two means: Welch's t-test and interval.
- Two variants on the same units (paired): the difference of two ratio
  estimates (a rate among the counted units, a mean over them) by the delta
  method from per-unit sums and cross-products (:func:`paired_difference`),
  a paired bootstrap for statistics that are not sums (a median, a maximum:
  :func:`paired_bootstrap`), and Holm's step-down correction over the tests
  of one comparison (:func:`holm`).

The interval functions accept scalars, numpy arrays or pandas Series (which
broadcast against each other) and return the same kind: floats for scalars,
arrays for arrays, Series (with the index of the first Series argument) for
Series.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
from scipy import stats as _st
from scipy.stats.contingency import expected_freq

# Below this relative size the "variance" left by sum_sq - sum * mean is
# rounding error in the sums, not spread in the data: it is taken as zero.
_VAR_RTOL = 64 * np.finfo(float).eps

#: What the interval functions take and give: a number, an array or a Series.
Values: TypeAlias = float | np.ndarray | pd.Series
#: A statistic of the units' values along an axis (``np.median``).
Statistic: TypeAlias = Callable[..., Any]


def _check_level(level: float) -> float:
    level = float(level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1 (exclusive), not {level}")
    return level


def _like(values: np.ndarray, *inputs: object) -> Any:
    """Return ``values`` as a float, ndarray or Series, following the inputs."""
    if values.ndim == 0:
        return float(values)
    for x in inputs:
        if isinstance(x, pd.Series) and values.ndim == 1 and len(x) == len(values):
            return pd.Series(values, index=x.index)
    return values


def _floats(*xs: object) -> tuple[np.ndarray, ...]:
    return np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in xs))


def proportion_ci(k: Values, n: Values, level: float = 0.95) -> tuple[Any, Any]:
    """Clopper-Pearson (exact) interval ``(lo, hi)`` for a proportion ``k / n``.

    ``lo`` is the ``(1 - level) / 2`` quantile of Beta(k, n - k + 1) and ``hi``
    the ``(1 + level) / 2`` quantile of Beta(k + 1, n - k); ``lo = 0`` when
    ``k == 0`` and ``hi = 1`` when ``k == n``.  Both are NaN when ``n == 0``.
    The interval always contains ``k / n`` and covers the true proportion with
    probability at least ``level``.

    ``k`` and ``n`` may be scalars, arrays or Series; they broadcast.

    >>> lo, hi = proportion_ci(3, 10)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0667, 0.6525)
    """
    level = _check_level(level)
    k_in, n_in = k, n
    k, n = _floats(k, n)
    if np.any(n < 0) or np.any(k < 0) or np.any(k > n):
        raise ValueError("proportion_ci needs 0 <= k <= n")
    alpha = 1.0 - level
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = _st.beta.ppf(alpha / 2, k, n - k + 1)
        hi = _st.beta.ppf(1 - alpha / 2, k + 1, n - k)
        p = k / n
    lo = np.where(k == 0, 0.0, lo)
    hi = np.where(k == n, 1.0, hi)
    # Guard the documented containment against last-bit rounding in ppf.
    lo = np.minimum(lo, p)
    hi = np.maximum(hi, p)
    empty = n == 0
    lo = np.where(empty, np.nan, lo)
    hi = np.where(empty, np.nan, hi)
    return _like(lo, k_in, n_in), _like(hi, k_in, n_in)


def _t_interval(n: Any, mean: Any, var: Any, level: float) -> tuple[Any, Any]:
    """Mean +- t(level; n - 1) * sqrt(var / n); NaN for n < 2, width 0 for var 0."""
    alpha = 1.0 - level
    with np.errstate(invalid="ignore", divide="ignore"):
        q = _st.t.ppf(1 - alpha / 2, n - 1)
        half = q * np.sqrt(var / n)
    half = np.where(var == 0, 0.0, half)
    half = np.where(n < 2, np.nan, half)
    return mean - half, mean + half


def _mean_var(n: Any, total: Any, total_sq: Any) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sample variance (ddof=1) from count, sum and sum of squares."""
    n, total, total_sq = (np.asarray(x, dtype=float) for x in (n, total, total_sq))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        ss = total_sq - total * mean
        ss = np.where(ss <= _VAR_RTOL * np.abs(total_sq), 0.0, ss)
        var = ss / (n - 1)
    mean = np.where(n > 0, mean, np.nan)
    var = np.where(n > 1, var, np.nan)
    return mean, var


def mean_ci(n: Values, total: Values, total_sq: Values,
            level: float = 0.95) -> tuple[Any, Any, Any]:
    """Mean and t interval ``(mean, lo, hi)`` from sufficient statistics.

    ``n`` is the number of values, ``total`` their sum and ``total_sq`` the sum
    of their squares.  The interval is ``mean +- t * s / sqrt(n)`` with ``s``
    the sample standard deviation and ``t`` the ``(1 + level) / 2`` quantile of
    Student's t with ``n - 1`` degrees of freedom.  ``lo`` and ``hi`` are NaN
    for ``n < 2`` (``mean`` too for ``n == 0``); when all values are equal,
    ``lo == hi == mean``.

    Sums of squares lose precision when the spread is tiny next to the mean;
    when the values themselves are at hand, :func:`mean_ci_of` is more exact.
    Arguments may be scalars, arrays or Series; they broadcast.
    """
    level = _check_level(level)
    inputs = (n, total, total_sq)
    n, total, total_sq = _floats(*inputs)
    if np.any(n < 0):
        raise ValueError("mean_ci needs n >= 0")
    mean, var = _mean_var(n, total, total_sq)
    lo, hi = _t_interval(n, mean, var, level)
    return _like(mean, *inputs), _like(lo, *inputs), _like(hi, *inputs)


def mean_ci_of(values: Any, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and t interval ``(mean, lo, hi)`` of a 1-D array of values.

    The same interval as :func:`mean_ci` (and as ``scipy.stats.t.interval``),
    computed from the values with a two-pass variance.  NaNs are not dropped:
    they make the result NaN.

    >>> mean, lo, hi = mean_ci_of([1.0, 2.0, 3.0, 4.0])
    >>> mean, round(lo, 3), round(hi, 3)
    (2.5, 0.446, 4.554)
    """
    level = _check_level(level)
    x = np.asarray(values, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"mean_ci_of takes a 1-D array, not {x.ndim}-D")
    n = float(x.size)
    mean = float(np.mean(x)) if x.size else math.nan
    var = float(np.var(x, ddof=1)) if x.size > 1 else math.nan
    lo, hi = _t_interval(np.float64(n), mean, var, level)
    return mean, float(lo), float(hi)


def compare_proportions(k1: float, n1: float, k2: float, n2: float,
                        level: float = 0.95) -> dict[str, Any]:
    """Difference of two proportions ``p1 - p2``, its interval and a p-value.

    The interval is Newcombe's hybrid score interval (method 10 of Newcombe
    1998), built from the Wilson intervals of each proportion
    (``scipy.stats.binomtest(...).proportion_ci(method="wilson")``); unlike the
    Wald interval it keeps a sensible width at 0% and 100%.  The two-sided
    p-value tests ``p1 == p2`` on the 2x2 table: ``scipy.stats.chi2_contingency``
    without continuity correction, or ``scipy.stats.fisher_exact`` when an
    expected cell count is below 5.

    Returns ``dict(diff, lo, hi, p_value, test)`` with ``test`` ``"chi2"`` or
    ``"fisher"``; all NaN (and ``test`` None) if either sample is empty.
    Scalars only.
    """
    level = _check_level(level)
    k1, n1, k2, n2 = (int(v) for v in (k1, n1, k2, n2))
    for k, n in ((k1, n1), (k2, n2)):
        if not 0 <= k <= n:
            raise ValueError("compare_proportions needs 0 <= k <= n")
    if n1 == 0 or n2 == 0:
        return {"diff": math.nan, "lo": math.nan, "hi": math.nan, "p_value": math.nan, "test": None}
    p1, p2 = k1 / n1, k2 / n2
    w1 = _st.binomtest(k1, n1).proportion_ci(confidence_level=level, method="wilson")
    w2 = _st.binomtest(k2, n2).proportion_ci(confidence_level=level, method="wilson")
    diff = p1 - p2
    lo = diff - math.hypot(p1 - w1.low, w2.high - p2)
    hi = diff + math.hypot(w1.high - p1, p2 - w2.low)

    table = np.array([[k1, n1 - k1], [k2, n2 - k2]])
    if expected_freq(table).min() < 5:
        test, p_value = "fisher", float(_st.fisher_exact(table).pvalue)
    else:
        test = "chi2"
        p_value = float(_st.chi2_contingency(table, correction=False).pvalue)
    return {"diff": diff, "lo": float(lo), "hi": float(hi), "p_value": p_value, "test": test}


def compare_means(n1: float, s1: float, ss1: float, n2: float, s2: float, ss2: float,
                  level: float = 0.95) -> dict[str, Any]:
    """Difference of two means ``mean1 - mean2`` by Welch's t-test.

    Each sample is given by its sufficient statistics (count, sum, sum of
    squares).  The p-value is two-sided, from
    ``scipy.stats.ttest_ind_from_stats(equal_var=False)``; the interval is
    ``diff +- t * se`` with ``se = sqrt(v1/n1 + v2/n2)`` and ``t`` from
    Student's t with the Welch-Satterthwaite degrees of freedom.

    Returns ``dict(diff, lo, hi, p_value)``.  NaN apart from ``diff`` if either
    sample has fewer than 2 values.  If both samples have zero variance the
    interval is the point ``diff`` and the p-value is scipy's (NaN when the
    means are equal, 0 otherwise).  Scalars only.
    """
    level = _check_level(level)
    n1, s1, ss1, n2, s2, ss2 = (float(v) for v in (n1, s1, ss1, n2, s2, ss2))
    if n1 < 0 or n2 < 0:
        raise ValueError("compare_means needs n >= 0")
    m1, v1 = (float(x) for x in _mean_var(n1, s1, ss1))
    m2, v2 = (float(x) for x in _mean_var(n2, s2, ss2))
    diff = m1 - m2
    if n1 < 2 or n2 < 2:
        return {"diff": diff, "lo": math.nan, "hi": math.nan, "p_value": math.nan}
    with np.errstate(invalid="ignore", divide="ignore"):
        # scipy-stubs types the counts as integers; scipy takes these float ones
        p_value = float(_st.ttest_ind_from_stats(
            mean1=m1, std1=math.sqrt(v1), nobs1=n1, mean2=m2, std2=math.sqrt(v2), nobs2=n2,  # type: ignore[arg-type]
            equal_var=False).pvalue)
    a1, a2 = v1 / n1, v2 / n2
    se2 = a1 + a2
    if se2 == 0:
        return {"diff": diff, "lo": diff, "hi": diff, "p_value": p_value}
    df = se2 ** 2 / (a1 ** 2 / (n1 - 1) + a2 ** 2 / (n2 - 1))
    half = float(_st.t.ppf(0.5 + level / 2, df)) * math.sqrt(se2)
    return {"diff": diff, "lo": diff - half, "hi": diff + half, "p_value": p_value}


def _format_one(p: float, lo: float, hi: float, n: float, percent: bool,
                digits: int | None) -> str:
    scale, unit = (100.0, "%") if percent else (1.0, "")
    p, lo, hi = p * scale, lo * scale, hi * scale
    if digits is None:
        half = (hi - lo) / 2
        if math.isfinite(half) and half > 0:
            digits = -math.floor(math.log10(half))
            digits = min(max(digits, 1 if percent else 0), 8)
        else:
            digits = 1 if percent else 3

    def num(x: float) -> str:
        return f"{x:.{digits}f}{unit}" if math.isfinite(x) else "n/a"

    n_text = f"{int(n):,}" if math.isfinite(n) else "n/a"
    return f"{num(p)} [{num(lo)}, {num(hi)}] (n={n_text})"


def format_estimate(p: Values, lo: Values, hi: Values, n: Values, percent: bool = True,
                    digits: int | None = None) -> str | list[str] | pd.Series:
    """An estimate as text: ``"81.2% [80.9%, 81.5%] (n=200,000)"``.

    ``percent`` shows proportions as percentages; otherwise the numbers are
    shown as they are (``"0.123 [0.119, 0.127] (n=50,000)"``).  By default the
    number of decimals follows the interval's half-width (one significant
    digit of it, and at least one decimal for percentages); ``digits`` fixes
    it.  NaN shows as ``n/a``.  For array or Series arguments a list (or a
    Series) of strings is returned.

    >>> format_estimate(0.812, 0.809, 0.815, 200_000)
    '81.2% [80.9%, 81.5%] (n=200,000)'
    >>> format_estimate(0.123, 0.119, 0.127, 50_000, percent=False)
    '0.123 [0.119, 0.127] (n=50,000)'
    """
    inputs = (p, lo, hi, n)
    arrays = _floats(*inputs)
    if arrays[0].ndim == 0:
        one, low, high, size = (float(a) for a in arrays)
        return _format_one(one, low, high, size, percent=percent, digits=digits)
    flat = [_format_one(float(a), float(b), float(c), float(d), percent=percent, digits=digits)
            for a, b, c, d in zip(*(a.ravel() for a in arrays))]
    for x in inputs:
        if isinstance(x, pd.Series) and len(x) == len(flat) and arrays[0].ndim == 1:
            return pd.Series(flat, index=x.index)
    return flat


def paired_difference(sums: Any, moments: Any, units: int, differing: int,
                      level: float = 0.95) -> dict[str, float]:
    """``R_b - R_a`` of two ratio estimates measured on the same units, with a
    paired interval and a two-sided p-value.

    Unit ``i`` gives the vector ``v_i = (x_a, n_a, x_b, n_b)``: what it adds to
    the numerator and the denominator of each ratio (a rate: hits and counted
    rows; a mean: the values' sum and count).  ``sums`` is ``sum(v_i)``,
    ``moments`` the 4x4 ``sum(outer(v_i, v_i))`` over the ``units`` units;
    ``R_a = sum x_a / sum n_a``.  By the delta method the difference is the
    mean of ``z_i = (x_b - R_b n_b) / nbar_b - (x_a - R_a n_a) / nbar_a``
    (whose sum is 0), so its variance is ``var(z) / units`` and the interval
    ``diff +- t(units - 1) * se``, the p-value the t-test's.  With one row per
    unit and ``n = 1`` this is the paired t-test of the differences.

    ``differing`` counts the units whose ``(x, n)`` differ between the two:
    when it is 0 the two estimates are the same numbers and the result is
    exactly ``diff = lo = hi = 0`` with p-value 1.

    Returns ``dict(diff, lo, hi, p_value, a, b)``; NaN where a denominator is 0
    or there are fewer than 2 units.
    """
    level = _check_level(level)
    xa, na, xb, nb = (float(v) for v in sums)
    if na <= 0 or nb <= 0:
        return {"diff": math.nan, "lo": math.nan, "hi": math.nan, "p_value": math.nan,
                "a": xa / na if na else math.nan, "b": xb / nb if nb else math.nan}
    ra, rb = xa / na, xb / nb
    if differing == 0:
        return {"diff": 0.0, "lo": 0.0, "hi": 0.0, "p_value": 1.0, "a": ra, "b": ra}
    diff = rb - ra
    if units < 2:
        return {"diff": diff, "lo": math.nan, "hi": math.nan, "p_value": math.nan, "a": ra, "b": rb}
    g = np.array([-units / na, ra * units / na, units / nb, -rb * units / nb])
    ss = float(g @ np.asarray(moments, dtype=float) @ g)
    scale = float(np.abs(g) @ np.abs(np.asarray(moments, dtype=float)) @ np.abs(g))
    var = max(ss, 0.0) / (units - 1)
    if ss <= _VAR_RTOL * scale:
        var = 0.0
    if var == 0.0:
        return {"diff": diff, "lo": diff, "hi": diff, "p_value": 1.0 if diff == 0 else 0.0,
                "a": ra, "b": rb}
    se = math.sqrt(var / units)
    q = float(_st.t.ppf(0.5 + level / 2, units - 1))
    p_value = float(2 * _st.t.sf(abs(diff) / se, units - 1))
    return {"diff": diff, "lo": diff - q * se, "hi": diff + q * se, "p_value": p_value,
            "a": ra, "b": rb}


def ratio_ci(sx: float, sn: float, sxx: float, sxn: float, snn: float, units: int,
             level: float = 0.95) -> tuple[float, float, float]:
    """A ratio estimate ``R = sum x / sum n`` over ``units`` units and its interval
    by the delta method (:func:`paired_difference`'s, for one sample), from the
    sums of ``x``, ``n``, ``x*x``, ``x*n`` and ``n*n``: ``(R, lo, hi)``; the
    point when every unit has the same ratio, NaN without a denominator."""
    level = _check_level(level)
    if sn <= 0:
        return math.nan, math.nan, math.nan
    r = sx / sn
    nbar = sn / units
    ss = (sxx - 2 * r * sxn + r * r * snn) / nbar ** 2
    if units < 2 or ss <= _VAR_RTOL * (sxx + r * r * snn) / nbar ** 2:
        return r, r, r
    half = float(_st.t.ppf(0.5 + level / 2, units - 1)) * math.sqrt(ss / (units - 1) / units)
    return r, r - half, r + half


class Quantile:
    """The ``q`` quantile of the units' values (numpy's linear interpolation),
    as a statistic ``stat(x, axis)``: the bootstraps of this module resample
    it by counts when the values are few distinct numbers (lengths in whole
    hands), with the same distribution as resampling the units.

    >>> float(Quantile(0.5)(np.array([1.0, 2.0, 4.0]), axis=0))
    2.0
    """

    def __init__(self, q: float) -> None:
        self.q = float(q)

    def __call__(self, x: Any, axis: int = 0) -> Any:
        return np.quantile(x, self.q, axis=axis)


class OfSums:
    """A statistic of the column sums of the units' values, ``f(sums)`` with
    ``sums`` of shape ``(..., columns)`` (a ratio of sums, the largest of
    several rates), as a statistic ``stat(x, axis)``: the bootstraps of this
    module resample it by counts when the units' rows are few distinct ones
    (wins by position), with the same distribution as resampling the units.

    >>> float(OfSums(lambda s: s[..., 1] / s[..., 0])(np.array([[1.0, 1.0], [1.0, 0.0]])))
    0.5
    """

    def __init__(self, f: Callable[[np.ndarray], Any]) -> None:
        self.f = f

    def __call__(self, x: Any, axis: int = 0) -> Any:
        return self.f(np.sum(np.asarray(x, dtype=float), axis=axis))


#: Distinct values (or rows, or pairs of them) up to which a statistic is resampled by counts.
_FEW = 4096


def _counted(rows: np.ndarray, seed: int, resamples: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct rows of ``rows`` (units along the first axis) and
    ``resamples`` multinomial draws of how often each is resampled (shape
    ``(resamples, distinct)``), or None when the rows are not few."""
    distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
    if len(distinct) > _FEW:
        return None
    freq = np.bincount(inverse.ravel(), minlength=len(distinct)) / len(rows)
    return distinct, np.random.default_rng(seed).multinomial(len(rows), freq, size=resamples)


def _sums_by_counts(parts: list[np.ndarray], statistic: OfSums, seed: int,
                    resamples: int) -> list[np.ndarray] | None:
    """Bootstrap distributions of ``statistic`` over each of ``parts`` (arrays of
    the same units, resampled together) by counts; None when the rows are not few."""
    widths = [1 if p.ndim == 1 else p.shape[1] for p in parts]
    drawn = _counted(np.column_stack(parts), seed, resamples)
    if drawn is None:
        return None
    distinct, counts = drawn
    sums = counts @ distinct
    out, at = [], 0
    for w in widths:
        block = sums[:, at:at + w]
        out.append(np.asarray(statistic.f(block[:, 0] if w == 1 else block), dtype=float))
        at += w
    return out


def _weighted_quantile(values: np.ndarray, counts: np.ndarray, q: float) -> np.ndarray:
    """Per row of ``counts`` (how often each of the sorted distinct ``values``
    is drawn), the ``q`` quantile of the sample they make, as
    :func:`numpy.quantile` gives it (linear interpolation)."""
    n = counts.sum(axis=1)
    h = q * (n - 1)
    j = np.floor(h)
    cum = np.cumsum(counts, axis=1)
    at = (cum <= j[:, None]).sum(axis=1)                 # order statistic j (from 0)
    after = (cum <= (j + 1)[:, None]).sum(axis=1)        # and j + 1
    top = len(values) - 1
    lo, hi = values[np.minimum(at, top)], values[np.minimum(after, top)]
    out: np.ndarray = lo + (h - j) * (hi - lo)
    return out


def _by_counts(columns: list[np.ndarray], q: float, seed: int,
               resamples: int) -> list[np.ndarray] | None:
    """Bootstrap distributions of the ``q`` quantile of each column (the units
    resampled together), drawn as multinomial counts of the distinct rows;
    None when the rows are not few (:data:`_FEW`)."""
    drawn = _counted(np.column_stack(columns), seed, resamples)
    if drawn is None:
        return None
    distinct, counts = drawn
    out = []
    for c in range(distinct.shape[1]):
        values, which = np.unique(distinct[:, c], return_inverse=True)
        onto = np.zeros((len(distinct), len(values)))
        onto[np.arange(len(distinct)), which.ravel()] = 1.0
        out.append(_weighted_quantile(values, counts @ onto, q))
    return out


def _p_value(dist: np.ndarray) -> float:
    """Twice the smaller share of a bootstrap distribution on either side of 0,
    counted as ``(1 + k) / (B + 1)``: never below ``1 / (B + 1)``, since B
    resamples cannot show a smaller one."""
    b = len(dist)
    below, above = int(np.sum(dist <= 0)), int(np.sum(dist >= 0))
    return min(1.0, 2 * (1 + min(below, above)) / (b + 1))


def paired_bootstrap(a: Any, b: Any, statistic: Statistic, seed: int = 0,
                     resamples: int = 1000, level: float = 0.95) -> dict[str, float]:
    """``statistic(b) - statistic(a)`` for a statistic of the units' values that
    is not a ratio of sums (a median, a quantile, a maximum), with the
    percentile interval and a two-sided p-value from a paired bootstrap
    (the same units resampled for both: ``scipy.stats.bootstrap``, or for a
    :class:`Quantile` or :class:`OfSums` of few distinct rows, multinomial
    counts of the distinct pairs).  ``a`` and ``b`` are arrays whose first axis is the
    unit; ``statistic(x, axis)`` reduces the unit axis ``axis`` (``np.median``
    does).  Identical ``a`` and ``b`` give exactly 0 with p-value 1.  The
    p-value is twice the smaller share of resampled differences on either
    side of 0, never below ``1 / (resamples + 1)``.  Seeded, so the same data
    give the same interval.  Returns ``dict(diff, lo, hi, p_value)``.
    """
    level = _check_level(level)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape == b.shape and np.array_equal(a, b):
        return {"diff": 0.0, "lo": 0.0, "hi": 0.0, "p_value": 1.0}
    with np.errstate(invalid="ignore"):         # two infinities: no difference to tell
        diff = float(statistic(b, axis=0) - statistic(a, axis=0))
    if len(a) < 2 or not math.isfinite(diff):
        return {"diff": diff, "lo": math.nan, "hi": math.nan, "p_value": math.nan}
    fast = None
    if isinstance(statistic, Quantile) and a.ndim == 1:
        fast = _by_counts([a, b], statistic.q, seed, resamples)
    elif isinstance(statistic, OfSums):
        fast = _sums_by_counts([a, b], statistic, seed, resamples)
    if fast is not None:
        dist = fast[1] - fast[0]
    else:
        def of(i: Any, axis: int = -1) -> Any:     # i: resampled unit numbers, (batch, units)
            i = np.asarray(i, dtype=np.int64)
            return statistic(b[i], axis=i.ndim - 1) - statistic(a[i], axis=i.ndim - 1)

        dist = _bootstrap(of, a, seed, resamples, level).bootstrap_distribution
    dist = dist[np.isfinite(dist)]
    if not dist.size:
        return {"diff": diff, "lo": math.nan, "hi": math.nan, "p_value": math.nan}
    lo, hi = (float(np.quantile(dist, q)) for q in ((1 - level) / 2, (1 + level) / 2))
    return {"diff": diff, "lo": min(lo, diff), "hi": max(hi, diff), "p_value": _p_value(dist)}


def _bootstrap(of: Callable[..., Any], units: np.ndarray, seed: int, resamples: int,
               level: float) -> Any:
    """scipy's seeded percentile bootstrap of ``of(resampled unit numbers)`` over the
    units (first axis) of ``units``."""
    # batches keep the resampled copies (batch x units x columns) small
    batch = max(1, min(resamples, 4_000_000 // max(1, units.size)))
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore")     # degenerate resamples: handled by the callers
        return _st.bootstrap((np.arange(len(units)),), of, vectorized=True,
                             n_resamples=resamples, batch=batch, confidence_level=level,
                             method="percentile", rng=np.random.default_rng(seed))


def bootstrap_interval(x: Any, statistic: Statistic, seed: int = 0, resamples: int = 1000,
                       level: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval ``(lo, hi)`` of ``statistic(x, axis)``
    over the units of ``x`` (its first axis), seeded (a :class:`Quantile` of
    few distinct values resampled by counts); the point when every unit is
    alike, NaN for fewer than 2 units."""
    level = _check_level(level)
    x = np.asarray(x, dtype=float)
    point = float(statistic(x, axis=0))
    if len(x) < 2:
        return math.nan, math.nan
    if np.all(x == x[:1]):
        return point, point
    fast = None
    if isinstance(statistic, Quantile) and x.ndim == 1:
        fast = _by_counts([x], statistic.q, seed, resamples)
    elif isinstance(statistic, OfSums):
        fast = _sums_by_counts([x], statistic, seed, resamples)
    if fast is not None:
        lo, hi = (float(np.quantile(fast[0], q)) for q in ((1 - level) / 2, (1 + level) / 2))
        return min(lo, point), max(hi, point)

    def of(i: Any, axis: int = -1) -> Any:
        i = np.asarray(i, dtype=np.int64)
        return statistic(x[i], axis=i.ndim - 1)

    res = _bootstrap(of, x, seed, resamples, level)
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return min(lo, point), max(hi, point)


def _largest_departure(k: int) -> Callable[[np.ndarray], np.ndarray]:
    """The largest gap between a position's wins and its fair share, over the
    decided games, from the column sums of ``[decided, wins 1..k, fair 1..k]``."""
    def largest(sums: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            gap = (sums[..., 1:k + 1] - sums[..., k + 1:]) / sums[..., :1]
        out: np.ndarray = np.max(np.abs(gap), axis=-1)
        return out
    return largest


def equal_shares(values: Any, seed: int = 0, resamples: int = 1000) -> dict[str, float]:
    """A test that positions win their fair shares, from per-unit rows
    ``[decided, win share of positions 1..K, fair share of positions 1..K]``
    (a game nobody won adds 0s): the G-test (log-likelihood ratio,
    ``scipy.stats.power_divergence``) of the positions' wins against their
    expected wins (the fair shares' sums), ``K - 1`` degrees of freedom; and
    as its effect size the largest departure of a position's win rate from
    its fair share, with the bias of that maximum taken off (twice the
    estimate less the mean of its bootstrap resamples, drawn as counts of the
    units' distinct rows, at least 0) and the basic bootstrap interval.
    Returns ``dict(largest, lo, hi, g, p_value, decided)``.

    >>> rows = np.array([[1, 1, 0, 0.5, 0.5]] * 60 + [[1, 0, 1, 0.5, 0.5]] * 40, float)
    >>> r = equal_shares(rows)
    >>> round(r["p_value"], 3), round(r["largest"], 2) <= 0.1
    (0.045, True)
    """
    x = np.asarray(values, dtype=float)
    k = (x.shape[1] - 1) // 2
    total = x.sum(axis=0)
    decided = float(total[0])
    observed, expected = total[1:k + 1], total[k + 1:]
    if decided <= 0 or k < 2:
        return dict.fromkeys(("largest", "lo", "hi", "g", "p_value"), math.nan) | {
            "decided": decided}
    largest = _largest_departure(k)
    point = float(largest(total))
    keep = expected > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # a position with no wins: its term is 0
        g, p = _st.power_divergence(observed[keep], expected[keep] * observed[keep].sum()
                                    / expected[keep].sum(), lambda_="log-likelihood")
    dist = _resampled([x], largest, seed, resamples)[0]
    lo, hi = (float(np.quantile(dist, q)) for q in (0.025, 0.975))
    return {"largest": max(0.0, 2 * point - float(np.mean(dist))),
            "lo": max(0.0, 2 * point - hi), "hi": max(0.0, 2 * point - lo),
            "g": float(g), "p_value": float(p), "decided": decided}


def paired_equal_shares(a: Any, b: Any, seed: int = 0,
                        resamples: int = 1000) -> dict[str, float]:
    """:func:`equal_shares`'s effect size under ``a`` and under ``b`` (the same
    units), each bias-corrected from one paired bootstrap (the units resampled
    together: twice the estimate less the mean of its resamples, with the
    basic interval), and their difference ``b`` minus ``a``: exactly the
    difference of the two corrected values, with its basic interval and a
    two-sided p-value never below ``1 / (resamples + 1)``.  Not clipped at 0:
    a departure no larger than chance shows reads about 0, either side.
    Identical ``a`` and ``b`` give a difference of exactly 0 with p-value 1.
    Returns ``dict(a, a_lo, a_hi, b, b_lo, b_hi, diff, lo, hi, p_value)``."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    largest = _largest_departure((a.shape[1] - 1) // 2)
    pa, pb = float(largest(a.sum(axis=0))), float(largest(b.sum(axis=0)))
    da, db = _resampled([a, b], largest, seed, resamples)
    out: dict[str, float] = {}
    for name, point, dist in (("a", pa, da), ("b", pb, db)):
        d = dist[np.isfinite(dist)]
        if not (math.isfinite(point) and d.size):
            out.update({name: math.nan, f"{name}_lo": math.nan, f"{name}_hi": math.nan})
            continue
        lo, hi = (float(np.quantile(d, q)) for q in (0.025, 0.975))
        out.update({name: 2 * point - float(np.mean(d)), f"{name}_lo": 2 * point - hi,
                    f"{name}_hi": 2 * point - lo})
    if a.shape == b.shape and np.array_equal(a, b):
        return out | {"b": out["a"], "b_lo": out["a_lo"], "b_hi": out["a_hi"], "diff": 0.0,
                      "lo": 0.0, "hi": 0.0, "p_value": 1.0}
    diff = pb - pa
    dist = (db - da)[np.isfinite(db - da)]
    if not math.isfinite(diff) or not dist.size:
        return out | {"diff": math.nan, "lo": math.nan, "hi": math.nan, "p_value": math.nan}
    lo, hi = (float(np.quantile(dist, q)) for q in (0.025, 0.975))
    return out | {"diff": out["b"] - out["a"], "lo": 2 * diff - hi, "hi": 2 * diff - lo,
                  "p_value": _p_value(2 * diff - dist)}   # the basic interval's own test


def _resampled(parts: list[np.ndarray], stat: Callable[[np.ndarray], np.ndarray], seed: int,
               resamples: int) -> list[np.ndarray]:
    """Bootstrap distributions of ``stat`` of the column sums of each of ``parts``
    (the same units resampled together): by counts of the distinct rows, or
    where they are many, by resampling the units."""
    drawn = _sums_by_counts(parts, OfSums(stat), seed, resamples)
    if drawn is not None:
        return drawn
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(parts[0]), size=(resamples, len(parts[0])))
    return [np.asarray([stat(p[i].sum(axis=0)) for i in picks]) for p in parts]


def holm(p_values: Any) -> np.ndarray:
    """Holm's step-down adjustment of the p-values of one family of tests: the
    ``i``-th smallest of ``m`` becomes ``max over j <= i of min(1, (m - j + 1)
    p_(j))`` (Holm 1979).  It controls the chance of any false finding among
    them at the level used, whatever their dependence.  NaN p-values stay NaN
    and do not count in ``m``.

    >>> holm([0.01, 0.04, 0.03, float("nan")]).round(3).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if not ok.size:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    m = len(order)
    adjusted = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(adjusted)
    return out
