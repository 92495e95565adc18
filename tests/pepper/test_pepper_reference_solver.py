"""Tests of the reference double-dummy solver (simkit/pepper/reference_solver.py, §10).

The solver's memo, pruning and merging of equivalent cards are checked
against ``brute_force_value`` (the definition: a plain minimax over every
legal card) on thousands of random small endings, with every trump option,
player count and trick state; the hand-worked positions below have answers
that can be read off the cards.
"""

from __future__ import annotations

import random

import pytest

from simkit.base.errors import InputError
from simkit.pepper import reference_solver as dd
from simkit.pepper.rules import DECK, NO_TRUMP
from simkit.pepper.tricks import Play, effective_suit, legal_cards, suit_cards

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


def cards(text: str) -> list[int]:
    return DECK.parse_hand(text)


def card(text: str) -> int:
    return DECK.parse(text)


def random_position(rng: random.Random, players: int, size: int, trump: int,
                    mid_trick: bool = True):
    """A deal of ``size`` cards a seat from the 24, a random leader and, if
    ``mid_trick``, the first 0 .. players-1 seats of the trick playing random
    legal cards.  Returns ``(hands, trump, trick, to_play, side)``."""
    deck = list(range(24))
    rng.shuffle(deck)
    hands = [deck[i * size:(i + 1) * size] for i in range(players)]
    leader = rng.randrange(players)
    trick: list[Play] = []
    for i in range(rng.randrange(players) if mid_trick else 0):
        seat = (leader + i) % players
        led = effective_suit(trick[0].card, trump) if trick else None
        c = rng.choice(legal_cards(hands[seat], led, trump))
        hands[seat].remove(c)
        trick.append(Play(seat, c))
    to_play = (leader + len(trick)) % players
    if rng.random() < 0.2:                      # any set of seats, even none or all
        side = {s for s in range(players) if rng.random() < 0.5}
    elif players == 4:
        side = {0, 2} if rng.random() < 0.5 else {1, 3}
    else:
        side = {rng.randrange(players)}
    return hands, trump, trick, to_play, side


# --- agreement with the brute force --------------------------------------------

#: (players, cards a seat, positions): 6,000 random endings in all
BRUTE_CASES = [(4, 1, 300), (4, 2, 600), (4, 3, 1200),
               (3, 1, 300), (3, 2, 600), (3, 3, 1000),
               (2, 1, 200), (2, 2, 400), (2, 3, 600), (2, 4, 800)]


@pytest.mark.parametrize(("players", "size", "count"), [
    # the quick tier: the smaller cases; the full suite every one
    case if case[2] <= 600 else pytest.param(*case, marks=pytest.mark.slow)
    for case in BRUTE_CASES])
def test_value_agrees_with_brute_force(players, size, count):
    rng = random.Random(1000 * players + size)
    mid = 0
    for i in range(count):
        pos = random_position(rng, players, size, trump=i % 5)
        mid += bool(pos[2])
        assert dd.value(*pos) == dd.brute_force_value(*pos), pos
    assert mid > count // 3                 # many of them start in the middle of a trick


# --- can_take and every_trick -----------------------------------------------------

def _check_questions(pos):
    hands, to_play = pos[0], pos[3]
    left = len(hands[to_play])
    v = dd.value(*pos)
    assert 0 <= v <= left
    for n in range(-1, left + 2):
        assert dd.can_take(*pos, n) == (v >= n), (pos, n)
    assert dd.every_trick(*pos) == (v == left), pos


@pytest.mark.parametrize("players", [2, 3, 4])
def test_can_take_and_every_trick_on_full_deals(players):
    rng = random.Random(77 + players)
    size = 6 if players == 4 else 8
    for i in range(10):
        _check_questions(random_position(rng, players, size, trump=i % 5, mid_trick=i % 2 == 1))


@pytest.mark.parametrize(("players", "size"), [(4, 4), (3, 5), (2, 6)])
def test_can_take_and_every_trick_on_endings(players, size):
    rng = random.Random(5 * players + size)
    for i in range(40):
        _check_questions(random_position(rng, players, size, trump=i % 5))


def test_every_trick_finds_sweeps():
    """Positions where the side does take every trick (the cases every_trick must not miss)."""
    rng = random.Random(3)
    found = 0
    for i in range(300):
        pos = random_position(rng, 4, 3, trump=i % 5)
        left = len(pos[0][pos[3]])
        if dd.brute_force_value(*pos) == left:
            found += 1
            assert dd.every_trick(*pos)
        else:
            assert not dd.every_trick(*pos)
    assert found > 20


# --- hand-worked positions ----------------------------------------------------------

def test_the_top_six_trumps_take_every_trick():
    """4 players, hearts trump: JH JD AH KH QH 10H are the six highest trumps.
    The holder is void in every other suit, so it trumps any plain lead, and
    the only trump it lacks (9H) it beats: its side takes all six tricks
    whatever the others hold and whoever leads."""
    top = cards("JH JD AH KH QH 10H")
    rest = [c for c in range(24) if c not in top]
    rng = random.Random(6)
    for i in range(20):
        rng.shuffle(rest)
        hands = [top, rest[0:6], rest[6:12], rest[12:18]]
        leader = i % 4
        assert dd.every_trick(hands, HEARTS, [], leader, {0, 2})
        assert dd.value(hands, HEARTS, [], leader, {0, 2}) == 6
        assert dd.value(hands, HEARTS, [], leader, {1, 3}) == 0


def test_no_trump_bosses_take_every_trick():
    """3 players, no trump: seat 0 holds the four aces and nothing else.  Any
    suit led, seat 0 holds a card of it (its ace) and wins; so it takes all
    four tricks whoever leads."""
    aces = cards("AC AD AH AS")
    rest = [c for c in range(24) if c not in aces]
    rng = random.Random(8)
    for _i in range(10):
        rng.shuffle(rest)
        hands = [aces, rest[0:4], rest[4:8]]
        for leader in range(3):
            assert dd.value(hands, NO_TRUMP, [], leader, {0}) == 4
            assert dd.value(hands, NO_TRUMP, [], leader, {1, 2}) == 0


def test_draw_trumps_before_cashing_the_ace():
    """2 players, hearts trump.  Seat 0: AS JH; seat 1: 9H 9C.  Leading AS
    lets seat 1, void in spades, trump it with 9H: one trick.  Leading the
    right bower first draws seat 1's trump (it must follow with 9H), and AS
    is then safe: two tricks.  So the leader must not lead its ace."""
    hands = [cards("AS JH"), cards("9H 9C")]
    assert dd.value(hands, HEARTS, [], 0, {0}) == 2
    assert dd.brute_force_value(hands, HEARTS, [], 0, {0}) == 2
    after_ace = [cards("JH"), cards("9H 9C")]
    assert dd.value(after_ace, HEARTS, [Play(0, card("AS"))], 1, {0}) == 1
    after_jack = [cards("AS"), cards("9H 9C")]
    assert dd.value(after_jack, HEARTS, [Play(0, card("JH"))], 1, {0}) == 2


def test_a_simple_squeeze():
    """4 players, no trump, a three-card ending, South (seat 0) to lead:

        North (2):  AH QH QD          West (1):  KH JH KD
        South (0):  AC 9H 9D          East (3):  9S 10S JS

    (AD and the other clubs are out of play.)  South leads AC and West, out of
    clubs, must let go a heart or a diamond before North plays.  If West
    throws KD, North's QD is good: North throws QH, AH is an entry, QD wins.
    If West throws a heart, North throws QD and takes AH QH, the king falling
    under the ace.  Either way North-South take all three tricks.  Leading
    9H first (no squeeze) gives West time: North wins AH but then QH or QD
    loses to West's king, so only two."""
    hands = [cards("AC 9H 9D"), cards("KH JH KD"), cards("AH QH QD"), cards("9S 10S JS")]
    assert dd.value(hands, NO_TRUMP, [], 0, {0, 2}) == 3
    assert dd.brute_force_value(hands, NO_TRUMP, [], 0, {0, 2}) == 3
    assert dd.value(hands, NO_TRUMP, [], 0, {1, 3}) == 0
    after = [cards("AC 9D"), cards("KH JH KD"), cards("AH QH QD"), cards("9S 10S JS")]
    assert dd.value(after, NO_TRUMP, [Play(0, card("9H"))], 1, {0, 2}) == 2
    after = [cards("9H 9D"), cards("KH JH KD"), cards("AH QH QD"), cards("9S 10S JS")]
    assert dd.value(after, NO_TRUMP, [Play(0, card("AC"))], 1, {0, 2}) == 3


def test_the_dead_hand_does_not_exist():
    """2 players, hearts trump.  Seat 0: KH QH; seat 1: 10H 9H.  The higher
    trumps JH JD AH are in the dead hand, which never plays: KH and QH are
    the two top trumps in play and seat 0 takes both tricks whoever leads.
    (With a third seat holding JH it could not.)"""
    hands = [cards("KH QH"), cards("10H 9H")]
    for leader in (0, 1):
        assert dd.value(hands, HEARTS, [], leader, {0}) == 2
        assert dd.value(hands, HEARTS, [], leader, {1}) == 0
    three = [cards("KH QH"), cards("10H 9H"), cards("JH AC")]
    assert dd.value(three, HEARTS, [], 0, {0}) == 1


def test_the_left_bower_is_a_trump():
    """4 players, diamonds trump, one card each, seat 0 to lead KH.  JH is the
    left bower, a trump and not a heart: seat 1 holding it trumps the hearts
    (unless the right bower JD beats it); without it AH wins the heart trick."""
    hands = [cards("KH"), cards("JH"), cards("AH"), cards("JD")]
    assert dd.value(hands, DIAMONDS, [], 0, {1, 3}) == 1
    hands = [cards("KH"), cards("JH"), cards("AH"), cards("9S")]
    assert dd.value(hands, DIAMONDS, [], 0, {1, 3}) == 1     # JH trumps the hearts
    hands = [cards("KH"), cards("10S"), cards("AH"), cards("9S")]
    assert dd.value(hands, DIAMONDS, [], 0, {0, 2}) == 1     # AH wins a plain heart trick


# --- the two sides -------------------------------------------------------------------

@pytest.mark.parametrize(("players", "size"), [(4, 6), (4, 3), (3, 8), (3, 3), (2, 8), (2, 4)])
def test_the_two_sides_share_the_tricks(players, size):
    """R and the other seats split the tricks left: a zero-sum game."""
    rng = random.Random(11 * players + size)
    for i in range(8 if size >= 6 else 40):
        hands, trump, trick, to_play, side = random_position(rng, players, size, trump=i % 5)
        left = len(hands[to_play])
        other = set(range(players)) - side
        assert dd.value(hands, trump, trick, to_play, side) + \
            dd.value(hands, trump, trick, to_play, other) == left


# --- equivalent cards ---------------------------------------------------------------

def test_equivalent_cards_have_the_same_value_hand_worked():
    """3 players, spades trump, AS and KS already played: QS is now the third
    trump in play below JS and JC, exactly as AS would be.  Swapping QS for AS
    (both out of play around it) changes nothing."""
    base = [cards("JS QS AD"), cards("JC 9S KD"), cards("10S AH QD")]
    swapped = [cards("JS AS AD"), cards("JC 9S KD"), cards("10S AH QD")]
    for leader in range(3):
        for side in ({0}, {1}, {2}):
            assert dd.value(base, SPADES, [], leader, side) == \
                dd.value(swapped, SPADES, [], leader, side)


def test_swapping_a_card_for_an_equivalent_one():
    """A held card may be exchanged for a card of its effective suit that is out of
    play, when every card ranked between them is out of play too: same value."""
    rng = random.Random(21)
    swaps = 0
    for i in range(300):
        players = (2, 3, 4)[i % 3]
        hands, trump, trick, to_play, side = random_position(rng, players, 3, trump=i % 5)
        in_play = {c for h in hands for c in h} | {p.card for p in trick}
        seat = rng.randrange(players)
        if not hands[seat]:
            continue
        held = rng.choice(hands[seat])
        order = suit_cards(effective_suit(held, trump), trump)
        at = order.index(held)
        for step in (-1, 1):                # the nearest out-of-play cards above and below
            j = at + step
            if 0 <= j < len(order) and order[j] not in in_play:
                other = [c if c != held else order[j] for c in hands[seat]]
                moved = [other if s == seat else h for s, h in enumerate(hands)]
                assert dd.value(hands, trump, trick, to_play, side) == \
                    dd.value(moved, trump, trick, to_play, side) == \
                    dd.brute_force_value(moved, trump, trick, to_play, side)
                swaps += 1
    assert swaps > 200


# --- input -----------------------------------------------------------------------------

def test_inputs_are_not_mutated_and_tuples_are_accepted():
    hands = [cards("AS JH 9C"), cards("9H 10C KD"), cards("QS QH QD")]
    copy = [list(h) for h in hands]
    trick = [Play(0, card("AD"))]
    hands_after = [cards("AS JH"), cards("9H 10C KD"), cards("QS QH QD")]
    v = dd.value(hands_after, HEARTS, trick, 1, {0})
    assert dd.value(tuple(tuple(h) for h in hands_after), HEARTS, tuple(trick), 1, [0]) == v
    assert dd.value(hands_after, HEARTS, [(0, card("AD"))], 1, frozenset({0})) == v
    dd.value(hands, HEARTS, [], 0, {0})
    dd.can_take(hands, HEARTS, [], 0, {0}, 2)
    dd.every_trick(hands, HEARTS, [], 0, {0})
    assert hands == copy


H3 = [cards("AS JH 9C"), cards("9H 10C KD"), cards("QS QH QD")]

BAD_INPUTS = [
    ("appears twice", [cards("AS JH"), cards("AS 10C")], HEARTS, [], 0, {0}),
    ("bad card 24", [[0, 24], [1, 2]], HEARTS, [], 0, {0}),
    ("bad card -1", [[0, -1], [1, 2]], HEARTS, [], 0, {0}),
    ("bad card 'AS'", [[0, "AS"], [1, 2]], HEARTS, [], 0, {0}),
    ("in seat 0's hand and in the current trick",
     [cards("AS JH"), cards("9H 10C KD"), cards("QS QH QD")], HEARTS, [Play(0, card("AS"))],
     1, {0}),
    ("seat 1 holds 2 cards", [cards("AS JH 9C"), cards("9H 10C"), cards("QS QH QD")], HEARTS,
     [], 0, {0}),
    ("seat 2 holds 3 cards", H3, HEARTS, [Play(2, card("AD"))], 0, {0}),
    ("seat 2 cannot be to play", [cards("JH 9C"), cards("9H 10C KD"), cards("QS QH QD")],
     HEARTS, [Play(0, card("AS"))], 2, {0}),
    ("bad seat 3 in the side", H3, HEARTS, [], 0, {3}),
    ("bad seat -1 in the side", H3, HEARTS, [], 0, {-1}),
    ("bad side", H3, HEARTS, [], 0, 7),
    ("bad trump option 5", H3, 5, [], 0, {0}),
    ("bad seat to play 3", H3, HEARTS, [], 3, {0}),
    ("1 hands given", [cards("AS")], HEARTS, [], 0, {0}),
    ("5 hands given", [[c] for c in range(5)], HEARTS, [], 0, {0}),
    ("holds 7 cards", [list(range(i * 7, i * 7 + 7)) for i in range(3)] + [[21, 22, 23]],
     HEARTS, [], 0, {0}),
    ("seat 1 played 9C to the trick while holding KD",
     [cards("AS JH"), cards("10C KD"), cards("QS QH QD")], HEARTS,
     [Play(0, card("AD")), Play(1, card("9C"))], 2, {0}),
    ("play 2 of the trick is by seat 2",
     [cards("AS JH"), cards("9H 10C KD"), cards("QS QH")], HEARTS,
     [Play(0, card("AD")), Play(2, card("QD"))], 1, {0}),
    ("a complete trick is over",
     [cards("AS JH"), cards("9H 10C"), cards("QS QH")], HEARTS,
     [Play(0, card("AD")), Play(1, card("KD")), Play(2, card("QD"))], 0, {0}),
]


@pytest.mark.parametrize(("message", "hands", "trump", "trick", "to_play", "side"), BAD_INPUTS,
                         ids=[b[0] for b in BAD_INPUTS])
def test_bad_positions_are_input_errors(message, hands, trump, trick, to_play, side):
    for solve in (dd.value, dd.every_trick, dd.brute_force_value):
        with pytest.raises(InputError, match=message):
            solve(hands, trump, trick, to_play, side)
    with pytest.raises(InputError, match=message):
        dd.can_take(hands, trump, trick, to_play, side, 1)


def test_bad_trick_count():
    with pytest.raises(InputError, match="bad trick count"):
        dd.can_take(H3, HEARTS, [], 0, {0}, 1.5)


def test_empty_hands_are_worth_nothing():
    assert dd.value([[], [], []], NO_TRUMP, [], 1, {1}) == 0
    assert dd.every_trick([[], []], HEARTS, [], 0, {0})
    assert dd.brute_force_value([[], [], [], []], CLUBS, [], 2, {0, 2}) == 0
