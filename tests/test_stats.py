"""Tests for simkit.base.stats: known values, invariants, coverage, agreement with scipy."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from simkit.base.stats import (
    compare_means,
    compare_proportions,
    format_estimate,
    mean_ci,
    mean_ci_of,
    proportion_ci,
)

# --- proportion_ci -----------------------------------------------------------

def test_proportion_ci_known_values():
    lo, hi = proportion_ci(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(1 - 0.025 ** (1 / 10), rel=1e-12)
    lo, hi = proportion_ci(10, 10)
    assert lo == pytest.approx(0.025 ** (1 / 10), rel=1e-12)
    assert hi == 1.0
    # Textbook value: 5 of 10, 95% exact interval.
    assert proportion_ci(5, 10) == pytest.approx((0.187086, 0.812914), abs=1e-6)
    # 99% for k = 0: 1 - (alpha/2)^(1/n).
    assert proportion_ci(0, 20, level=0.99)[1] == pytest.approx(1 - 0.005 ** (1 / 20))


def test_proportion_ci_empty_is_nan():
    lo, hi = proportion_ci(0, 0)
    assert math.isnan(lo)
    assert math.isnan(hi)


def test_proportion_ci_rejects_bad_input():
    with pytest.raises(ValueError, match="0 <= k <= n"):
        proportion_ci(11, 10)
    with pytest.raises(ValueError, match="level must be between 0 and 1"):
        proportion_ci(1, 10, level=1.0)


def test_proportion_ci_vectorised():
    k = np.array([0, 3, 10, 0, 7])
    n = np.array([10, 10, 10, 0, 1000])
    lo, hi = proportion_ci(k, n)
    assert isinstance(lo, np.ndarray)
    assert lo.shape == (5,)
    for i in range(5):
        np.testing.assert_equal((lo[i], hi[i]), proportion_ci(int(k[i]), int(n[i])))
    s = pd.Series([1, 2, 3], index=["a", "b", "c"])
    lo, hi = proportion_ci(s, 10)
    assert isinstance(lo, pd.Series)
    assert list(lo.index) == ["a", "b", "c"]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 10**7), frac=st.floats(0, 1),
       level=st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99, 0.999]))
def test_proportion_ci_contains_estimate(n, frac, level):
    k = round(frac * n)
    lo, hi = proportion_ci(k, n, level)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


@pytest.mark.parametrize("n", [10, 57, 200])
def test_proportion_ci_exact_coverage_at_least_level(n):
    # Coverage computed exactly from the binomial pmf: no tolerance needed,
    # since Clopper-Pearson is guaranteed conservative.
    k = np.arange(n + 1)
    lo, hi = proportion_ci(k, n)
    for p in np.linspace(0.005, 0.995, 67):
        covered = (lo <= p) & (p <= hi)
        assert sps.binom.pmf(k, n, p)[covered].sum() >= 0.95 - 1e-12


def test_proportion_ci_simulated_coverage():
    # 4000 replications per p at a fixed seed: the standard error of an
    # estimated coverage of 0.95 is 0.0034; allow 0.012 (about 3.5 SE).
    rng = np.random.default_rng(20240607)
    reps, n = 4000, 40
    for p in (0.03, 0.2, 0.5, 0.81):
        k = rng.binomial(n, p, size=reps)
        lo, hi = proportion_ci(k, n)
        coverage = np.mean((lo <= p) & (p <= hi))
        assert coverage >= 0.95 - 0.012, (p, coverage)


# --- mean_ci -----------------------------------------------------------------

@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
@pytest.mark.parametrize("size", [2, 3, 30, 1000])
def test_mean_ci_matches_scipy_t_interval(size, level):
    rng = np.random.default_rng(size)
    x = rng.normal(3.0, 2.0, size)
    expected = sps.t.interval(level, size - 1, loc=x.mean(), scale=sps.sem(x))
    mean, lo, hi = mean_ci(size, x.sum(), (x * x).sum(), level)
    assert mean == pytest.approx(x.mean(), rel=1e-12)
    assert (lo, hi) == pytest.approx(expected, rel=1e-9)
    mean, lo, hi = mean_ci_of(x, level)
    assert mean == pytest.approx(x.mean(), rel=1e-12)
    assert (lo, hi) == pytest.approx(expected, rel=1e-12)


def test_mean_ci_vectorised():
    rng = np.random.default_rng(7)
    samples = [rng.integers(-4, 5, size) for size in (2, 5, 40)]
    n = pd.Series([len(x) for x in samples], index=["a", "b", "c"])
    total = pd.Series([x.sum() for x in samples], index=n.index)
    total_sq = pd.Series([(x * x).sum() for x in samples], index=n.index)
    mean, lo, hi = mean_ci(n, total, total_sq)
    assert isinstance(lo, pd.Series)
    assert list(lo.index) == ["a", "b", "c"]
    for key, x in zip(n.index, samples):
        assert (mean[key], lo[key], hi[key]) == pytest.approx(mean_ci_of(x))


def test_mean_ci_edges():
    mean, lo, hi = mean_ci(1, 2.5, 6.25)
    assert mean == 2.5
    assert math.isnan(lo)
    assert math.isnan(hi)
    assert all(math.isnan(v) for v in mean_ci(0, 0, 0))
    for value in (0.1, 7.0, -3.3):
        x = np.full(9, value)
        mean, lo, hi = mean_ci(9, x.sum(), (x * x).sum())
        assert lo == hi == mean == pytest.approx(value)
        mean, lo, hi = mean_ci_of(x)
        assert lo == hi == mean


# --- compare_proportions -----------------------------------------------------

def test_compare_proportions_chi2_against_scipy():
    r = compare_proportions(812, 1000, 780, 1000)
    table = [[812, 188], [780, 220]]
    assert r["test"] == "chi2"
    assert r["p_value"] == pytest.approx(
        sps.chi2_contingency(table, correction=False).pvalue, rel=1e-12)
    assert r["diff"] == pytest.approx(0.032)
    assert r["lo"] < r["diff"] < r["hi"]


def test_compare_proportions_fisher_for_small_counts():
    r = compare_proportions(1, 12, 6, 11)
    assert r["test"] == "fisher"
    assert r["p_value"] == pytest.approx(
        sps.fisher_exact([[1, 11], [6, 5]]).pvalue, rel=1e-12)
    r = compare_proportions(0, 50, 0, 60)
    assert (r["diff"], r["p_value"]) == (0.0, 1.0)
    assert r["lo"] < 0 < r["hi"]


def test_compare_proportions_newcombe_known_value():
    # Newcombe (1998), Statistics in Medicine 17:873, table II example (a):
    # 56/70 vs 48/80, method 10 interval 0.0524 to 0.3339.
    r = compare_proportions(56, 70, 48, 80)
    assert r["diff"] == pytest.approx(0.2)
    assert (r["lo"], r["hi"]) == pytest.approx((0.0524, 0.3339), abs=1e-4)


def test_compare_proportions_empty():
    r = compare_proportions(0, 0, 3, 10)
    assert all(math.isnan(r[key]) for key in ("diff", "lo", "hi", "p_value"))


# --- compare_means -----------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2, 3])
def test_compare_means_against_scipy_welch(seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(1.0, 1.0, 40 + 10 * seed)
    b = rng.normal(1.3, 2.5, 25)
    r = compare_means(len(a), a.sum(), (a * a).sum(), len(b), b.sum(), (b * b).sum())
    direct = sps.ttest_ind(a, b, equal_var=False)
    assert r["diff"] == pytest.approx(a.mean() - b.mean(), rel=1e-9)
    assert r["p_value"] == pytest.approx(direct.pvalue, rel=1e-9)
    from_stats = sps.ttest_ind_from_stats(a.mean(), a.std(ddof=1), len(a),
                                          b.mean(), b.std(ddof=1), len(b), equal_var=False)
    assert r["p_value"] == pytest.approx(from_stats.pvalue, rel=1e-9)
    ci = direct.confidence_interval(0.95)
    assert (r["lo"], r["hi"]) == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_compare_means_edges():
    r = compare_means(1, 1.0, 1.0, 5, 5.0, 5.0)
    assert r["diff"] == 0.0
    assert math.isnan(r["lo"])
    assert math.isnan(r["p_value"])
    r = compare_means(5, 5.0, 5.0, 5, 10.0, 20.0)  # all 1s vs all 2s
    assert r["diff"] == r["lo"] == r["hi"] == -1.0


# --- format_estimate ---------------------------------------------------------

def test_format_estimate():
    assert format_estimate(0.812, 0.809, 0.815, 200_000) == "81.2% [80.9%, 81.5%] (n=200,000)"
    assert format_estimate(0.8123, 0.8121, 0.8125, 10**7) == \
        "81.23% [81.21%, 81.25%] (n=10,000,000)"
    assert format_estimate(0.123, 0.119, 0.127, 50_000, percent=False) == \
        "0.123 [0.119, 0.127] (n=50,000)"
    assert format_estimate(0.5, 0.4, 0.6, 100, digits=2) == "50.00% [40.00%, 60.00%] (n=100)"
    assert format_estimate(1.0, math.nan, math.nan, 1) == "100.0% [n/a, n/a] (n=1)"


def test_format_estimate_vectorised():
    k = pd.Series([812, 100], index=["x", "y"])
    n = pd.Series([1000, 200], index=["x", "y"])
    lo, hi = proportion_ci(k, n)
    text = format_estimate(k / n, lo, hi, n)
    assert list(text.index) == ["x", "y"]
    assert text["x"] == format_estimate(0.812, lo["x"], hi["x"], 1000)
    assert format_estimate(np.array([0.5]), np.array([0.4]), np.array([0.6]), 10) == \
        ["50.0% [40.0%, 60.0%] (n=10)"]


# --- paired differences, Holm, the paired bootstrap ----------------------------------------

def _sums(xa, na, xb, nb):
    v = np.stack([xa, na, xb, nb]).astype(float)
    return v.sum(axis=1), v @ v.T


def test_paired_difference_of_means_is_the_paired_t_test():
    from simkit.base.stats import paired_difference
    rng = np.random.default_rng(3)
    a = rng.normal(0, 1, 500)
    b = a + 0.05 + rng.normal(0, 0.2, 500)
    one = np.ones(500)
    r = paired_difference(*_sums(a, one, b, one), 500, 500)
    t = sps.ttest_rel(b, a)
    assert r["diff"] == pytest.approx(np.mean(b - a))
    assert r["p_value"] == pytest.approx(t.pvalue, rel=1e-9)
    ci = t.confidence_interval()
    assert (r["lo"], r["hi"]) == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_paired_difference_of_rates_among_counted_units():
    """A success rate among the hands that bid (a ratio): by the delta method it
    is the paired mean of z = (x - R n) / nbar, checked by hand here."""
    from simkit.base.stats import paired_difference
    rng = np.random.default_rng(4)
    na = (rng.random(2000) < 0.4).astype(float)
    nb = np.where(rng.random(2000) < 0.9, na, 1 - na)
    xa = na * (rng.random(2000) < 0.8)
    xb = nb * (rng.random(2000) < 0.7)
    r = paired_difference(*_sums(xa, na, xb, nb), 2000, 2000)
    ra, rb = xa.sum() / na.sum(), xb.sum() / nb.sum()
    z = (xb - rb * nb) / nb.mean() - (xa - ra * na) / na.mean()
    se = np.std(z, ddof=1) / math.sqrt(2000)
    q = sps.t.ppf(0.975, 1999)
    assert r["diff"] == pytest.approx(rb - ra)
    assert (r["lo"], r["hi"]) == pytest.approx((rb - ra - q * se, rb - ra + q * se))


def test_paired_difference_with_nothing_differing_is_exactly_zero():
    from simkit.base.stats import paired_difference
    x = np.array([1.0, 0, 2, 5])
    r = paired_difference(*_sums(x, np.ones(4), x, np.ones(4)), 4, 0)
    assert r["diff"] == r["lo"] == r["hi"] == 0.0
    assert r["p_value"] == 1.0


def test_ratio_ci():
    from simkit.base.stats import ratio_ci
    x, n = np.array([1.0, 2, 3]), np.array([2.0, 4, 6])          # the same ratio everywhere
    assert ratio_ci(x.sum(), n.sum(), x @ x, x @ n, n @ n, 3) == (0.5, 0.5, 0.5)
    y = np.array([1.0, 0, 1, 1, 0, 1])                          # a mean: the t interval
    r, lo, hi = ratio_ci(y.sum(), 6, y @ y, y.sum(), 6, 6)
    ci = sps.t.interval(0.95, 5, loc=y.mean(), scale=sps.sem(y))
    assert (r, lo, hi) == pytest.approx((y.mean(), *ci))


def test_holm_by_hand():
    from simkit.base.stats import holm
    # sorted 0.01, 0.02, 0.03, 0.5: x4, x3, x2, x1 -> 0.04, 0.06, 0.06 (monotone), 0.5
    got = holm([0.03, 0.5, 0.01, 0.02])
    assert got.tolist() == pytest.approx([0.06, 0.5, 0.04, 0.06])
    assert holm([]).size == 0
    assert np.isnan(holm([math.nan])).all()


def test_paired_bootstrap():
    from simkit.base.stats import paired_bootstrap
    rng = np.random.default_rng(5)
    a = rng.integers(5, 15, 3000).astype(float)
    assert paired_bootstrap(a, a, np.median) == {"diff": 0.0, "lo": 0.0, "hi": 0.0, "p_value": 1.0}
    b = a + 2
    r = paired_bootstrap(a, b, np.median, seed=1)
    assert r["diff"] == 2.0
    assert r["lo"] == r["hi"] == 2.0
    assert r["p_value"] == pytest.approx(2 / 1001)     # never below 1 / (B + 1), twice
    c = a + rng.normal(0, 3, 3000)
    r1, r2 = (paired_bootstrap(a, c, np.median, seed=2) for _ in range(2))
    assert r1 == r2
    assert r1["lo"] <= r1["diff"] <= r1["hi"]


@pytest.mark.slow
def test_a_quantile_of_few_values_is_resampled_by_counts_alike():
    """A quantile of whole numbers is resampled as multinomial counts of the
    distinct pairs: the same distribution as resampling the units, so its
    interval and p-value agree with scipy's resampling within the bootstraps'
    own noise, and each resample's quantile is numpy's."""
    from simkit.base.stats import Quantile, _weighted_quantile, bootstrap_interval, paired_bootstrap
    rng = np.random.default_rng(11)
    a = rng.integers(5, 30, 4000).astype(float)
    b = np.where(rng.random(4000) < 0.3, a + rng.integers(-2, 4, 4000), a)
    for q in (0.5, 0.9):
        fast = paired_bootstrap(a, b, Quantile(q), seed=3, resamples=4000)
        slow = paired_bootstrap(a, b, lambda x, axis, q=q: np.quantile(x, q, axis=axis), seed=3,
                                resamples=4000)
        assert fast["diff"] == slow["diff"]
        assert fast["lo"] == pytest.approx(slow["lo"], abs=1.0)
        assert fast["hi"] == pytest.approx(slow["hi"], abs=1.0)
        lo, hi = bootstrap_interval(a, Quantile(q), seed=4, resamples=4000)
        assert lo <= np.quantile(a, q) <= hi
    values = np.array([1.0, 3.0, 4.0, 9.0])
    counts = np.array([[2, 0, 1, 3], [1, 1, 1, 1]])
    for q in (0.0, 0.25, 0.5, 0.9, 1.0):
        want = [np.quantile(np.repeat(values, c), q) for c in counts]
        assert _weighted_quantile(values, counts, q).tolist() == pytest.approx(want)


@pytest.mark.slow
def test_a_statistic_of_sums_of_few_rows_is_resampled_by_counts_alike():
    """The largest departure of win rates (a statistic of column sums) over
    games whose rows are few distinct ones: resampled by counts, its interval
    agrees with scipy's resampling of the units within the bootstraps' noise."""
    from simkit.base.stats import OfSums, bootstrap_interval, paired_bootstrap
    rng = np.random.default_rng(12)
    won_a = rng.choice(4, 6000, p=[0.28, 0.24, 0.24, 0.24])
    won_b = np.where(rng.random(6000) < 0.7, won_a, rng.choice(4, 6000))
    a = np.column_stack([np.ones(6000), *(won_a == k for k in range(4))]).astype(float)
    b = np.column_stack([np.ones(6000), *(won_b == k for k in range(4))]).astype(float)

    def largest(sums):
        return np.max(np.abs(sums[..., 1:] / sums[..., :1] - 0.25), axis=-1)

    fast = paired_bootstrap(a, b, OfSums(largest), seed=5, resamples=4000)
    slow = paired_bootstrap(a, b, lambda x, axis: largest(np.sum(x, axis=axis)), seed=5,
                            resamples=4000)
    assert fast["diff"] == pytest.approx(slow["diff"])
    assert fast["lo"] == pytest.approx(slow["lo"], abs=0.004)
    assert fast["hi"] == pytest.approx(slow["hi"], abs=0.004)
    lo, hi = bootstrap_interval(a, OfSums(largest), seed=6, resamples=4000)
    assert lo <= largest(a.sum(axis=0)) <= hi
