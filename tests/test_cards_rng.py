"""Card notation and the counter-based random streams."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from simkit import rng
from simkit.cards import CardError, cards_of, format_card, mask_of, parse_card
from simkit.pepper.rules import DECK


@pytest.mark.parametrize("text, expected", [
    ("JH", (11, 2)), ("10H", (10, 2)), ("TH", (10, 2)), ("th", (10, 2)), ("jh", (11, 2)),
    ("AS", (14, 3)), ("9c", (9, 0)), (" qd ", (12, 1)), ("2C", (2, 0)),
])
def test_parse_card(text, expected):
    assert parse_card(text) == expected


@pytest.mark.parametrize("text", ["", "H", "1H", "11H", "JX", "ZZ", "10", "J♥", "AHS"])
def test_unknown_card_is_rejected_naming_it(text):
    with pytest.raises(CardError, match="unknown card"):
        parse_card(text)


def test_deck_rejects_cards_outside_it_and_duplicates():
    with pytest.raises(CardError, match="'8H' is not in the 24-card Pepper deck"):
        DECK.parse_hand("JH 8H")
    with pytest.raises(CardError, match="duplicate card 'jh'"):
        DECK.parse_hand("JH AH jh")
    assert DECK.parse_hand("JH, 10s 9S") == [
        DECK.card(11, 2), DECK.card(10, 3), DECK.card(9, 3)]


@given(st.sets(st.integers(0, 23)))
def test_text_and_masks_round_trip(cards):
    cards = sorted(cards)
    assert DECK.parse_hand(DECK.format_hand(cards)) == cards
    assert cards_of(mask_of(cards)) == cards
    for c in cards:
        assert DECK.parse(format_card(DECK.rank(c), DECK.suit(c))) == c


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), index=st.integers(0, 2**44 - 1),
       sizes=st.lists(st.integers(1, 2**32), min_size=1, max_size=40))
def test_python_and_jitted_streams_agree(seed, index, sizes):
    py = rng.Stream(seed, index)
    jit = rng.new_stream(np.uint64(rng.seed_key(seed)), index)
    assert [py.below(n) for n in sizes] == [rng.bounded(jit, n) for n in sizes]
    assert py.next() == int(rng.next_u64(jit))
    items = list(range(24))
    arr = np.arange(24)
    py.shuffle(items)
    rng.shuffle(jit, arr)
    assert items == arr.tolist()
    items, arr = list(range(52)), np.arange(52)
    py.sample(items, 24)
    rng.sample(jit, arr, 24)
    assert items == arr.tolist()


def test_streams_are_fixed_by_seed_and_index():
    a = [rng.Stream(7, 5).next() for _ in range(3)]
    assert a == [rng.Stream(7, 5).next() for _ in range(3)]
    assert rng.Stream(7, 5).next() != rng.Stream(7, 6).next()
    assert rng.Stream(7, 5).next() != rng.Stream(8, 5).next()


def test_bad_stream_index():
    with pytest.raises(ValueError):
        rng.Stream(1, -1)
    with pytest.raises(ValueError):
        rng.Stream(1, 2**44)


def test_shuffle_is_uniform():
    """Every card lands in every position with probability 1/24 (seed 11,
    48,000 shuffles; chi-square on the 24 x 24 table, p > 1e-4)."""
    n = 48_000
    counts = np.zeros((24, 24), np.int64)
    for i in range(n):
        deck = np.arange(24)
        rng.shuffle(rng.new_stream(np.uint64(rng.seed_key(11)), i), deck)
        counts[deck, np.arange(24)] += 1
    expected = n / 24
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert stats.chi2.sf(chi2, df=23 * 23) > 1e-4


def test_sample_is_uniform():
    """A 6-card sample of 52 holds each card with chance 6/52, and its first
    position is uniform (seed 12, 26,000 samples, chi-square p > 1e-4)."""
    n = 26_000
    first = np.zeros(52, np.int64)
    held = np.zeros(52, np.int64)
    for i in range(n):
        deck = np.arange(52)
        rng.sample(rng.new_stream(np.uint64(rng.seed_key(12)), i), deck, 6)
        first[deck[0]] += 1
        held[deck[:6]] += 1
    assert stats.chisquare(first).pvalue > 1e-4
    assert stats.chisquare(held).pvalue > 1e-4


def test_bounded_is_unbiased_for_an_awkward_range():
    """below(n) for n = 3 * 2**30 (where a plain modulo would be biased by a
    third): the three thirds of the range are equally likely (seed 5, 30,000
    draws, chi-square p > 1e-4)."""
    s = rng.Stream(5, 0)
    n = 3 * 2**30
    thirds = np.bincount([s.below(n) // 2**30 for _ in range(30_000)], minlength=3)
    assert stats.chisquare(thirds).pvalue > 1e-4
