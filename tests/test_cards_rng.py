"""Card notation and the counter-based random streams."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from simkit.base import rng
from simkit.base.cards import CardError, cards_of, format_card, mask_of, parse_card
from simkit.base.errors import InputError
from simkit.pepper.rules import DECK


@pytest.mark.parametrize(("text", "expected"), [
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


def test_a_held_hand_of_the_wrong_size_is_refused_naming_the_game_and_count():
    """What Pepper's and Pitch's advisors check a held hand with."""
    from simkit.pepper.api import parse_hand as pepper_hand
    from simkit.pitch.api import parse_hand as pitch_hand

    with pytest.raises(InputError, match=r"^a 3-player Pepper hand has 8 cards, got 2: JH AH$"):
        pepper_hand("JH AH", 3)
    with pytest.raises(InputError, match=r"^a Pitch hand has 6 cards, got 0: \(none\)$"):
        pitch_hand("")
    assert DECK.parse_held("JH AH", 2, "two cards") == DECK.parse_hand("JH AH")


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


# Published SplitMix64 outputs: the first 8 of the 50 in the test `reference` of
# the Rust crate rand_xoshiro (github.com/rust-random/rngs,
# rand_xoshiro/src/splitmix64.rs), "produced with the reference implementation"
# splitmix64.c by Sebastiano Vigna: state 1477776061723855037, each next() adds
# 0x9e3779b97f4a7c15 to the state and returns the finaliser of the new state.
SPLITMIX64_STATE = 1477776061723855037
SPLITMIX64_OUTPUTS = [
    1985237415132408290, 2979275885539914483, 13511426838097143398, 8488337342461049707,
    15141737807933549159, 17093170987380407015, 16389528042912955399, 13177319091862933652,
]


def _unmix64(z):
    """The inverse of rng.mix64 (a bijection): undo each xor-shift and multiply,
    last step first, so that a run seed can be chosen to give any key."""
    def unxorshift(y, s):
        x = y
        for _ in range(64 // s + 1):      # each pass fixes s more of the top bits
            x = y ^ (x >> s)
        return x
    z = unxorshift(z, 31)
    z = unxorshift(z * pow(rng.M2, -1, 2**64) & rng.MASK64, 27)
    return unxorshift(z * pow(rng.M1, -1, 2**64) & rng.MASK64, 30)


def test_mix64_is_splitmix64s_finaliser():
    """mix64 of the published state advanced by GAMMA is SplitMix64's first output,
    in Python and jitted, and _unmix64 (used below) undoes it."""
    x = (SPLITMIX64_STATE + rng.GAMMA) & rng.MASK64
    assert rng.GAMMA == 0x9E3779B97F4A7C15
    assert rng.mix64(x) == SPLITMIX64_OUTPUTS[0]
    assert int(rng.mix64_jit(np.uint64(x))) == SPLITMIX64_OUTPUTS[0]
    assert _unmix64(rng.mix64(x)) == x


@pytest.mark.parametrize("index", [0, 1, 12_345, 2**44 - 1])
def test_streams_are_splitmix64_known_answers(index):
    """A stream whose start state is the published SplitMix64 state draws exactly the
    published outputs, through the public path (run seed -> key -> stream index ->
    next) in Python and jitted: the key is chosen as STATE - (index << 20) * GAMMA
    and the run seed as its preimage under mix64."""
    key = (SPLITMIX64_STATE - (index << rng.STREAM_BITS) * rng.GAMMA) & rng.MASK64
    seed = _unmix64(key)
    assert rng.seed_key(seed) == key
    assert int(rng.run_key(seed)) == key
    py = rng.Stream(seed, index)
    assert py.state == SPLITMIX64_STATE
    assert [py.next() for _ in SPLITMIX64_OUTPUTS] == SPLITMIX64_OUTPUTS
    jit = rng.new_stream(rng.run_key(seed), index)
    assert int(jit[0]) == SPLITMIX64_STATE
    assert [int(rng.next_u64(jit)) for _ in SPLITMIX64_OUTPUTS] == SPLITMIX64_OUTPUTS


def test_streams_are_fixed_by_seed_and_index():
    a = [rng.Stream(7, 5).next() for _ in range(3)]
    assert a == [rng.Stream(7, 5).next() for _ in range(3)]
    assert rng.Stream(7, 5).next() != rng.Stream(7, 6).next()
    assert rng.Stream(7, 5).next() != rng.Stream(8, 5).next()


def test_bad_stream_index():
    with pytest.raises(ValueError, match="outside"):
        rng.Stream(1, -1)
    with pytest.raises(ValueError, match="outside"):
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


def test_the_bench_yardstick_plays_its_rules():
    """simkit.yardstick's kernel against its rules played here in Python on the
    same streams: deal 24 cards four ways, lowest card of the suit led (else
    the lowest), the highest of the suit led wins and leads."""
    from simkit import yardstick
    from simkit.base.rng import Stream

    def tricks(seed: int, j: int) -> int:
        deck = list(range(24))
        Stream(seed, j).shuffle(deck)
        hands = [sorted(deck[s::4]) for s in range(4)]
        leader, ours = 0, 0
        for _ in range(6):
            plays = []
            for k in range(4):
                seat = (leader + k) % 4
                suit = [c for c in hands[seat] if plays and c // 6 == plays[0][1] // 6]
                card = min(suit or hands[seat])
                hands[seat].remove(card)
                plays.append((seat, card))
            led = plays[0][1] // 6
            leader = max((c, s) for s, c in plays if c // 6 == led)[1]
            ours += leader % 2 == 0
        return ours

    got = yardstick.hands(300, seed=5)
    assert got.tolist() == [tricks(5, j) for j in range(300)]
