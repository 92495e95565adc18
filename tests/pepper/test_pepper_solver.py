"""The kernel's double-dummy solver (simkit/pepper/solver.py) against the
reference solver (simkit/pepper/reference_solver.py) and a brute force
(seeds/pepper.md 10).

The two solvers share no code; both are exact, so they must agree on every
position: full deals (every trump option, any leader, either side) and
endings reached by random legal play, at trick starts and in mid-trick, for
2, 3 and 4 players.  On small endings both equal the brute-force minimax.
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit.base.rng import Stream
from simkit.pepper import reference as R
from simkit.pepper import reference_solver as RS
from simkit.pepper import solver as S

TT = S.new_table()
STACK = S.new_stack()


def _position(stream: Stream, players: int, tricks_played: int, extra: int):
    """A random deal (the dead hand left out with 2 players), then
    ``tricks_played`` whole tricks and ``extra`` more cards of random legal play."""
    deck = list(range(24))
    stream.shuffle(deck)
    per = 6 if players == 4 else 8
    hands = [sorted(deck[s * per:(s + 1) * per]) for s in range(players)]
    trump = stream.below(5)
    seat = stream.below(players)
    trick: list[R.Play] = []
    for _ in range(tricks_played * players + extra):
        led = R.effective_suit(trick[0].card, trump) if trick else None
        legal = R.legal_cards(hands[seat], led, trump)
        card = legal[stream.below(len(legal))]
        hands[seat].remove(card)
        trick.append(R.Play(seat, card))
        seat = (seat + 1) % players
        if len(trick) == players:
            seat = R.trick_winner(trick, trump)
            trick = []
    return hands, trump, trick, seat


def _kernel_args(hands, trick):
    masks = np.zeros(4, np.int64)
    for s, h in enumerate(hands):
        for c in h:
            masks[s] |= 1 << c
    cards = np.zeros(4, np.int64)
    for k, p in enumerate(trick):
        cards[k] = p.card
    return masks, cards


def _kernel_value(hands, trump, trick, to_play, side):
    masks, cards = _kernel_args(hands, trick)
    return int(S.dd_value(masks, len(hands), trump, cards, len(trick), to_play,
                          sum(1 << s for s in side), TT, STACK))


def _kernel_at_least(hands, trump, trick, to_play, side, n):
    masks, cards = _kernel_args(hands, trick)
    return bool(S.dd_at_least(masks, len(hands), trump, cards, len(trick), to_play,
                              sum(1 << s for s in side), n, TT, STACK))


def _sides(players: int, stream: Stream):
    """A partnership with 4 players, else one seat; and now and then any set."""
    if stream.below(4) == 0:
        side = {s for s in range(players) if stream.below(2)}
        return side or {0}
    seat = stream.below(players)
    return {seat, (seat + 2) % 4} if players == 4 else {seat}


@pytest.mark.parametrize(("players", "deals"), [
    pytest.param(4, 600, marks=pytest.mark.slow), pytest.param(3, 200, marks=pytest.mark.slow),
    (2, 400)])
def test_full_deals_agree(players, deals):
    """Every trump option's value and "every trick" for random deals, the
    leader and the side drawn at random; values of a side and the others sum to
    the tricks with 4 and 2 players."""
    stream = Stream(41, players)
    for _i in range(deals):
        hands, trump, trick, seat = _position(stream, players, 0, 0)
        side = _sides(players, stream)
        want = RS.value(hands, trump, trick, seat, side)
        assert _kernel_value(hands, trump, trick, seat, side) == want, (hands, trump, seat, side)
        left = len(hands[seat])
        assert _kernel_at_least(hands, trump, trick, seat, side, left) == (want == left)
        if players != 3:
            others = set(range(players)) - side
            assert _kernel_value(hands, trump, trick, seat, others) == left - want


@pytest.mark.parametrize("players", [  # quick tier: the first; full: all
    p if i == 0 else pytest.param(p, marks=pytest.mark.slow)
    for i, p in enumerate([2, 3, 4])])
def test_endings_agree(players):
    """Positions after random legal play, at trick starts and in mid-trick:
    the value and "at least n" for every n."""
    stream = Stream(42, players)
    tricks = 6 if players == 4 else 8
    for _i in range(1_000):
        played = stream.below(tricks)
        hands, trump, trick, seat = _position(stream, players, played, stream.below(players))
        if not hands[seat]:
            continue
        side = _sides(players, stream)
        want = RS.value(hands, trump, trick, seat, side)
        assert _kernel_value(hands, trump, trick, seat, side) == want, (hands, trump, trick, side)
        for n in range(len(hands[seat]) + 2):
            assert _kernel_at_least(hands, trump, trick, seat, side, n) == (want >= n)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_small_endings_equal_brute_force(players):
    stream = Stream(43, players)
    tricks = 6 if players == 4 else 8
    for _i in range(500):
        left = 1 + stream.below(3)
        hands, trump, trick, seat = _position(stream, players, tricks - left,
                                              stream.below(players))
        side = _sides(players, stream)
        want = RS.brute_force_value(hands, trump, trick, seat, side)
        assert _kernel_value(hands, trump, trick, seat, side) == want


def test_the_top_six_trumps_take_every_trick():
    """Hearts trump, 4 players: JH JD AH KH QH 10H lead and take all six,
    whatever the others hold (every other trump is the 9H)."""
    stream = Stream(44, 0)
    top = [R.DECK.parse(t) for t in ["JH", "JD", "AH", "KH", "QH", "10H"]]
    rest = [c for c in range(24) if c not in top]
    for _ in range(50):
        stream.shuffle(rest)
        hands = [top, rest[0:6], rest[6:12], rest[12:18]]
        assert _kernel_value(hands, 2, [], 0, {0, 2}) == 6


@pytest.mark.slow
def test_solve_deals_matches_one_at_a_time():
    """The parallel batch entry point gives the single-position answers."""
    stream = Stream(45, 0)
    n = 60
    hands = np.zeros((n, 4), np.int64)
    o = np.zeros(n, np.int64)
    leader = np.zeros(n, np.int64)
    side = np.zeros(n, np.int64)
    target = np.zeros(n, np.int64)
    want = []
    for i in range(n):
        h, trump, _trick, seat = _position(stream, 4, 0, 0)
        hands[i] = _kernel_args(h, [])[0]
        o[i], leader[i], side[i] = trump, seat, 0b0101
        target[i] = -1 if i % 2 else 4
        v = RS.value(h, trump, [], seat, {0, 2})
        want.append(v if i % 2 else int(v >= 4))
    out = np.zeros(n, np.int64)
    S.solve_deals(hands, 4, o, leader, side, target, out)
    assert out.tolist() == want
