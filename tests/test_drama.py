"""Lead changes, comebacks and the settled step: the readable definitions
(simkit/base/drama.py) on games counted by hand, and the kernels' own code for
them (simkit/base/lead.py) against the definitions on random histories."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.base import drama, lead


def _tops(scores, best=max):
    """The top after every step of cumulative per-side score changes."""
    total = [0] * len(scores[0])
    out = []
    for step in scores:
        total = [a + b for a, b in zip(total, step)]
        out.append(drama.top(total, best))
    return out


# (score changes per hand, winners, expected (lead_changes, comeback, settled)), counted by hand
CASES = [
    # side 0 leads from the first hand to the last: no change, settled at once
    ([(5, 0), (3, 1), (6, 2)], 0b01, (0, False, 0)),
    # 0 leads, 1 takes over (1 change), 0 back on top at the last hand (2 changes);
    # after hand 2 of 4 (the halfway point) side 1 led: a comeback, settled after 3
    ([(4, 0), (0, 6), (0, 1), (9, 0)], 0b01, (2, True, 3)),
    # a level score is no change: 0 leads, then 3:3 (no leader), then 0 again
    ([(3, 0), (0, 3), (2, 0)], 0b01, (0, False, 2)),
    # level at the halfway point is not behind: no comeback
    ([(2, 0), (0, 2), (0, 5), (7, 0)], 0b01, (2, False, 3)),
    # a shared win: no single winner, so neither settled nor comeback
    ([(3, 0), (0, 3)], 0b11, (0, False, -1)),
    # unfinished (no winner)
    ([(1, 0), (0, 2), (3, 0)], 0, (2, False, -1)),
    # three sides; the winner led for the last two of five hands
    ([(2, 1, 0), (0, 3, 0), (0, 0, 5), (4, 0, 0), (3, 0, 0)], 0b001, (3, True, 3)),
]


@pytest.mark.parametrize(("scores", "winners", "expected"), CASES)
def test_hand_counted_games(scores, winners, expected):
    tops = _tops(scores)
    assert tuple(drama.drama(tops, winners)) == expected
    hist = np.array(tops, np.int64)
    assert lead.summary(hist, len(tops), winners) == tuple(int(x) for x in expected)


def test_fewest_is_best():
    """Shiesta's standing: the fewest cards held leads."""
    assert drama.top([3, 1, 1, 4], min) == 0b0110
    assert drama.top([3, 1, 2], min, present=[True, False, True]) == 0b100


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 7), min_size=1, max_size=300), st.integers(0, 7))
def test_kernel_summary_matches_the_definition(tops, winners):
    """Histories longer than the first buffer (64) grow through note()."""
    hist = lead.new_history()
    for k, m in enumerate(tops):
        hist = lead.note(hist, k, m)
    assert lead.summary(hist, len(tops), winners) == tuple(
        int(x) for x in drama.drama(tops, winners))
