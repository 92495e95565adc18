"""The words a comparison states its findings in (simkit/lab/findings.py): each
from its own test, checked against hand-made rows whose answer is known."""

from __future__ import annotations

import math

import pytest
from scipy import stats as st

from simkit.lab import findings as F

Z = st.norm.ppf(0.975)


def _row(diff, se, margin=0.01, p=None, units=10_000):
    """A comparison row with a normal 95% interval of standard error ``se``."""
    if p is None:
        p = 1.0 if se == 0 and diff == 0 else 2 * st.norm.sf(abs(diff) / se) if se else 0.0
    return {"diff": diff, "ci_low": diff - Z * se, "ci_high": diff + Z * se, "p_value": p,
            "margin": margin, "units": units}


def test_two_one_sided_tests_by_hand():
    # inside the margin by 5 standard errors on the near side
    assert F.equivalence_p(0.0, 0.002, 0.01) == pytest.approx(st.norm.sf(5.0))
    # exactly at the margin: never shown equivalent
    assert F.equivalence_p(0.01, 0.002, 0.01) == pytest.approx(0.5)
    assert math.isnan(F.equivalence_p(0.0, 0.002, None))
    assert F.equivalence_p(0.0, 0.0, 0.01) == 0.0
    assert F.equivalence_p(0.02, 0.0, 0.01) == 1.0


def test_each_word_from_its_test():
    rows = [_row(0.05, 0.005), _row(-0.05, 0.005), _row(0.0005, 0.001), _row(0.004, 0.01),
            _row(0.0, 0.0), _row(0.0004, 0.001, margin=None)]
    F.fill(rows)
    assert [r["finding"] for r in rows] == [F.HIGHER, F.LOWER, F.SAME, F.UNSHOWN, F.SAME,
                                           F.UNSHOWN]
    # an exact 0 on every deal: p = 1, never a difference
    assert rows[4]["p_value"] == rows[4]["p_holm"] == 1.0
    # what would tell: more units than were played, none for the told ones
    assert rows[3]["needed"] > 10_000
    assert rows[0]["needed"] is None
    assert rows[5]["needed"] > 10_000


def test_holm_runs_over_both_families():
    """Eight equal tests of a difference at p = 0.01: Holm makes each 0.08, so none
    is told apart, though each alone would be."""
    rows = [_row(0.02, 0.02 / st.norm.isf(0.005)) for _ in range(8)]
    F.fill(rows)
    assert all(r["p_holm"] == pytest.approx(0.08) for r in rows)
    assert {r["finding"] for r in rows} == {F.UNSHOWN}


def test_needed_is_about_what_would_tell():
    """At the needed size (variance seen, the standard error shrinking as the
    root of the units) the interval reaches past 0 at the Bonferroni level."""
    n = F.needed(0.01, 0.01, 10_000, None, tests=1)
    se = 0.01 * math.sqrt(10_000 / n)
    assert 0.01 / se == pytest.approx(st.norm.isf(0.025), rel=1e-3)
    # equivalence within a margin: fewer than to show a tiny difference
    assert F.needed(0.001, 0.01, 10_000, 0.01) < F.needed(0.001, 0.01, 10_000, None)


@pytest.mark.parametrize(("words", "want"), [
    ([F.HIGHER, F.HIGHER], F.HIGHER),
    ([F.LOWER, F.LOWER, F.LOWER], F.LOWER),
    ([F.SAME, F.SAME], F.SAME),
    ([F.HIGHER, F.LOWER], F.DEPENDS),
    ([F.HIGHER, F.UNSHOWN], F.DEPENDS),
    ([F.SAME, F.UNSHOWN], F.DEPENDS),
    ([F.UNSHOWN, F.UNSHOWN], F.UNSHOWN),
])
def test_several_adaptations_agree_or_the_row_says_so(words, want):
    assert F.combine(words) == want


def test_a_row_of_several_adaptations():
    """The difference is the adaptations' mean, its interval their span, its
    p-values the largest of theirs (an intersection-union test)."""
    one, two = _row(0.03, 0.005), _row(0.05, 0.005)
    F.fill([one])
    F.fill([two])
    row = F.combined([one, two], adapted=True)
    assert row["diff"] == pytest.approx(0.04)
    assert row["ci_low"] == one["ci_low"]
    assert row["ci_high"] == two["ci_high"]
    assert row["p_holm"] == max(one["p_holm"], two["p_holm"])
    assert row["finding"] == F.HIGHER
    assert [e["diff"] for e in row["by_adaptation"]] == [0.03, 0.05]
