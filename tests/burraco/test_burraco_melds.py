"""Tests of the Burraco meld rules (simkit/burraco/melds.py) against seeds/burraco.md §3.

Every case is written out by hand with the reason it is valid or not.  Card
ids are given as text (``parse_cards``); where a test needs the exact id of a
card it is worked out here: id = deck * 52 + suit * 13 + position, suits
C D H S = 0..3, positions A = 0, 2 = 1, ..., K = 12, jokers 104..107.  The
property tests at the end compare the module with a brute-force reading that
tries every order of the cards on every run of places.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit.base.cards import CardError
from simkit.base.errors import InputError
from simkit.burraco import melds as M
from simkit.burraco.melds import MeldRules, extend, parse_cards, read_meld, readings, table_score

DEFAULT = MeldRules()
TWOS_SET = MeldRules(twos_set=True)
TWO_WILDS = MeldRules(sequence_wilds=2)
C, D, H, S = 0, 1, 2, 3

FAST = settings(max_examples=300, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def read(text: str, rules: MeldRules = DEFAULT, kind=None):
    return read_meld(parse_cards(text), rules, kind)


def texts(meld) -> str:
    return M.cards_text(meld.cards)


# ---------------------------------------------------------------------------
# §1 Cards
# ---------------------------------------------------------------------------

def test_deck_faces_wilds_and_points():
    faces = [M.face(c) for c in range(108)]
    # Two copies of each of the 52 faces, then four jokers (face 52).
    assert faces[:52] == list(range(52))
    assert faces[52:104] == list(range(52))
    assert faces[104:] == [52] * 4
    # Wild cards: the eight 2s and the four jokers.
    assert sorted(c for c in range(108) if M.is_wild(c)) == \
        [1, 14, 27, 40, 53, 66, 79, 92, 104, 105, 106, 107]
    # Per suit: A 15 + 2 20 + 3..7 5 each (25) + 8..K 10 each (60) = 120;
    # 8 suits of two decks = 960, plus 4 jokers of 30 = 1080.
    assert sum(M.points(c) for c in range(108)) == 1080


@pytest.mark.parametrize(("text", "pts"), [
    ("JK", 30), ("2C", 20), ("2S", 20), ("AH", 15), ("KD", 10), ("QS", 10), ("JC", 10),
    ("10H", 10), ("9S", 10), ("8C", 10), ("7D", 5), ("6H", 5), ("5S", 5), ("4C", 5), ("3D", 5),
])
def test_card_points(text, pts):
    # The seed's table (MAADILI YA KADI): joker 30, 2 = 20, ace 15, K..8 = 10, 7..3 = 5.
    assert M.points(parse_cards(text)[0]) == pts


@pytest.mark.parametrize(("card", "text"), [
    (0, "AC"), (1, "2C"), (9, "10C"), (10, "JC"), (12, "KC"), (13, "AD"), (35, "10H"),
    (39, "AS"), (51, "KS"), (52, "AC"), (103, "KS"), (104, "JK"), (107, "JK"),
])
def test_card_text(card, text):
    assert M.card_text(card) == text
    assert M.card_text(np.int64(card)) == text      # numpy ids are accepted


def test_parse_cards_takes_the_lower_unused_copy():
    assert parse_cards("AS AS") == [39, 91]         # both decks' aces of spades
    assert parse_cards("JK jk Joker JOKER") == [104, 105, 106, 107]
    assert parse_cards("10h, TH") == [35, 87]       # "10" and "T" are the same card
    assert parse_cards(["2c", " 2C "]) == [1, 53]
    assert parse_cards("") == []
    # Every id of the deck in order, written and read back.
    assert parse_cards(M.cards_text(range(108))) == list(range(108))


@pytest.mark.parametrize(("text", "message"), [
    ("AS AS AS", "too many 'AS': .* only two copies of AS"),       # a third copy
    ("10H TH 10h", "too many '10h'"),                               # three tens of hearts
    ("JK JK JK JK JK", "too many 'JK': .* only four jokers"),        # a fifth joker
    ("1S", "unknown card '1S': expected .*'JK' for a joker"),
    ("JX", "unknown card 'JX'"),
    ("KK", "unknown card 'KK'"),
    ("AS Z", "unknown card 'Z'"),
    ("joke", "unknown card 'joke'"),
])
def test_parse_cards_errors_name_the_card_and_what_is_accepted(text, message):
    with pytest.raises(CardError, match=message):
        parse_cards(text)
    assert issubclass(CardError, InputError)        # reaches the user as one line


@pytest.mark.parametrize(("cards", "message"), [
    ([0, 0, 1], "the same card id twice"),
    ([0, 1, 108], "bad Burraco card id 108"),
    ([-1, 0, 1], "bad Burraco card id -1"),
    (["AS", 1, 2], "bad Burraco card id 'AS'"),
    ([0.0, 1, 2], "bad Burraco card id 0.0"),
    ([True, 1, 2], "bad Burraco card id True"),
])
def test_bad_card_ids_are_input_errors(cards, message):
    with pytest.raises(InputError, match=message):
        read_meld(cards)


def test_numpy_ids_are_read_like_ints():
    assert read_meld(np.array(parse_cards("5C 5D 5H"))) == read("5C 5D 5H")


def test_rules_validate_themselves():
    for bad in (3, -1, 1.0, True, "1"):
        with pytest.raises(InputError, match="sequence_wilds"):
            MeldRules(sequence_wilds=bad)
    with pytest.raises(InputError, match="twos_set"):
        MeldRules(twos_set=1)
    with pytest.raises(InputError, match="bad meld kind 'run'"):
        read("5C 5D 5H", kind="run")


# ---------------------------------------------------------------------------
# §3 Sets
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "size", "wilds", "rank"), [
    # 3 to 8 natural cards of one rank: clean.  Two decks, so a rank has 8 copies.
    ("5C 5D 5H", 3, 0, 5),
    ("5C 5C 5D", 3, 0, 5),                      # two 5C: one from each deck
    ("KC KD KH KS", 4, 0, 13),
    ("AC AD AH AS AC", 5, 0, 1),                # aces: rank 1 (A = 1 in this module)
    ("9C 9D 9H 9S 9C 9D", 6, 0, 9),
    ("QC QD QH QS QC QD QH", 7, 0, 12),
    ("3C 3D 3H 3S 3C 3D 3H 3S", 8, 0, 3),       # all eight 3s
    # One wild card, a joker or a 2 of any suit: dirty.
    ("5C 5D JK", 3, 1, 5),                      # the least: two naturals and a wild
    ("5C 5D 2H", 3, 1, 5),
    ("5C 5D 2C", 3, 1, 5),                      # a 2 of the naturals' suit is just as wild
    ("JC JD JH 2S", 4, 1, 11),
    ("10C 10D 10H 10S JK", 5, 1, 10),
    ("8C 8D 8H 8S 8C JK", 6, 1, 8),
    ("7C 7D 7H 7S 7C 7D 2D", 7, 1, 7),
    ("4C 4D 4H 4S 4C 4D 4H JK", 8, 1, 4),
    ("6C 6D 6H 6S 6C 6D 6H 6S JK", 9, 1, 6),    # the largest set: 8 naturals + 1 wild
    ("6C 6D 6H 6S 6C 6D 6H 6S 2C", 9, 1, 6),
])
def test_valid_sets(text, size, wilds, rank):
    m = read(text)
    assert m is not None
    assert m.kind == "set"
    assert ((len(m), m.wilds, m.rank, m.suit, m.first, m.last)
            == (size, wilds, rank, None, None, None))
    assert m.clean == (wilds == 0)
    assert m.burraco == (size >= 7)
    # Layout: the naturals in id order, then the wild card.
    assert sorted(m.cards) == sorted(parse_cards(text))
    assert m.cards[len(m) - wilds:] == m.wild_cards


@pytest.mark.parametrize("text", [
    "6C 6D 6H 6S 6C 6D 6H 6S JK 2C",   # 10 cards: 8 naturals + 2 wilds (two wilds, and over 9)
    "5C 5D JK JK",                     # two wild cards
    "5C 5D 2H JK",                     # two wild cards, a 2 and a joker
    "5C 5D 2H 2S",                     # two wild 2s
    "5C JK 2H",                        # one natural and two wilds
    "JK JK JK",                        # only wild cards
    "2C 2D 2H",                        # only wild cards: no set of 2s by default
    "2C 2D 2H 2S",
    "2C 2D JK",                        # 2s and a joker: still only wild cards
    "5C 5D 6H",                        # mixed ranks
    "5C 6C 7D",                        # mixed ranks (and suits: no sequence either)
    "KC KD AC",
    "5C 5D",                           # two cards: a meld has at least 3
    "5C JK",
    "5C",
])
def test_invalid_sets(text):
    assert read(text) is None
    assert read(text, kind="set") is None


def test_there_are_no_nine_natural_cards_of_a_rank():
    # The 9-card limit is reached only with a wild card: a rank has 8 copies.
    with pytest.raises(CardError, match="too many '6C'"):
        parse_cards("6C 6D 6H 6S 6C 6D 6H 6S 6C")


@pytest.mark.parametrize(("text", "size", "wilds"), [
    # twos_set: a set of 2s, its 2s natural, with at most one joker as wild.
    ("2C 2D 2H", 3, 0),
    ("2C 2C 2D 2H 2S 2S", 6, 0),
    ("2C 2D JK", 3, 1),
    ("2C 2D 2H 2S 2C 2D 2H 2S JK", 9, 1),      # 8 twos + a joker: 9 cards, a dirty burraco
])
def test_twos_set_variant_allows_sets_of_twos(text, size, wilds):
    assert read(text) is None                  # never by default
    m = read(text, TWOS_SET)
    assert (m.kind, m.rank, len(m), m.wilds) == ("set", 2, size, wilds)


@pytest.mark.parametrize("text", [
    "2C 2D 2H 2S 2C 2D 2H 2S JK JK",   # 10 cards and two jokers
    "2C 2D JK JK",                     # two jokers: a set has one wild at most
    "2C JK JK",
    "JK JK JK",                        # no natural 2 at all: only wild cards
    "2C 2D 5H",                        # neither a set of 2s nor a set of 5s (two wilds)
])
def test_twos_set_variant_limits(text):
    assert read(text, TWOS_SET) is None


def test_twos_set_variant_keeps_2s_wild_in_other_sets():
    m = read("5C 5D 2H", TWOS_SET)
    assert (m.rank, m.wilds, M.card_text(m.wild_cards[0])) == (5, 1, "2H")
    assert read("5C 5D 2H JK", TWOS_SET) is None      # still one wild at most


def test_kind_can_be_forced():
    assert read("5C 5D 5H", kind="sequence") is None
    assert read("3S 4S 5S", kind="set") is None
    assert read("5C 5D 5H", kind="set") == read("5C 5D 5H")


# ---------------------------------------------------------------------------
# §3 Sequences
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "suit", "first", "last", "layout", "wilds"), [
    # The ace low (place 1) or high (place 14).
    ("AS 2S 3S", S, 1, 3, "AS 2S 3S", 0),           # low ace; the 2S is natural in its place
    ("QS KS AS", S, 12, 14, "QS KS AS", 0),         # high ace
    ("3H 2H AH", H, 1, 3, "AH 2H 3H", 0),           # order does not matter
    ("4D 5D 6D 7D", D, 4, 7, "4D 5D 6D 7D", 0),
    ("9C JC 10C", C, 9, 11, "9C 10C JC", 0),
    # A 2 of the suit in its own place is natural: clean.
    ("2S 3S 4S", S, 2, 4, "2S 3S 4S", 0),
    # A 2 of another suit in the 2's place is a wild card: dirty.
    ("AS 2H 3S", S, 1, 3, "AS 2H 3S", 1),
    # A gap filled by a joker or by a 2 of another suit.
    ("5S JK 7S", S, 5, 7, "5S JK 7S", 1),
    ("5S 2H 7S", S, 5, 7, "5S 2H 7S", 1),
    ("9H 10H 2C QH KH", H, 9, 13, "9H 10H 2C QH KH", 1),
    # The 2 of the suit away from its own place is a wild card: dirty.
    ("2S 4S 5S", S, 4, 6, "4S 5S 2S", 1),            # on place 2 it would leave the 3 missing
    ("2S 3S 5S", S, 3, 5, "3S 2S 5S", 1),            # natural 2 3 would leave 4 missing:
                                                     # 2S is the 4
    ("2S 5S 6S", S, 5, 7, "5S 6S 2S", 1),
    # The 2 natural in its place beside a wild card.
    ("2S 3S 4S JK", S, 2, 5, "2S 3S 4S JK", 1),
    ("2S 4S 5S JK", S, 2, 5, "2S JK 4S 5S", 1),      # the joker is the 3, the 2 natural
    ("AS 2S 3S 2H", S, 1, 4, "AS 2S 3S 2H", 1),
    # Two 2s of the suit: the lower id is natural on place 2, the other is wild.
    ("2S 2S 3S 4S", S, 2, 5, "2S 3S 4S 2S", 1),
    # A wild card at an end stands at the top; at the bottom when the top is the ace.
    ("5S 6S JK", S, 5, 7, "5S 6S JK", 1),
    ("QS KS JK", S, 12, 14, "QS KS JK", 1),          # the joker is the high ace
    ("QS KS AS JK", S, 11, 14, "JK QS KS AS", 1),    # no place above the ace: the joker is the J
    ("AS 2S JK", S, 1, 3, "AS 2S JK", 1),            # the low ace: the joker is the 3
    ("3D 4D 2D", D, 2, 4, "2D 3D 4D", 0),            # the 2 natural beats 2D as the 5
    # K A 2 looks like a wrap-around; it is valid only as Q K A with the 2 as the queen.
    ("KS AS 2S", S, 12, 14, "2S KS AS", 1),
    ("QS KS AS 2S", S, 11, 14, "2S QS KS AS", 1),    # the 2 cannot follow the ace: it is the J
    # Long sequences: the 13 cards of a suit (A..K, which is also 2..A: the
    # higher reading is kept) and 13 with a wild card.
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", S, 2, 14,
     "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", 0),
    ("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH JK", H, 2, 14,
     "JK 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 1),  # the joker stands for the 2
    ("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC JK", C, 1, 12,
     "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC JK", 1),     # the 2C fixes the ace low: the joker is the Q
])
def test_valid_sequences(text, suit, first, last, layout, wilds):
    m = read(text)
    assert m is not None
    assert m.kind == "sequence"
    assert (m.suit, m.first, m.last, m.rank) == (suit, first, last, None)
    assert texts(m) == layout
    assert m.wilds == wilds
    assert m.clean == (wilds == 0)
    assert len(m) == last - first + 1


@pytest.mark.parametrize("text", [
    "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",   # 14 cards: both aces
    "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS JK",   # 14: the joker would be the second ace
    "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2H",   # 14: no place left for the wild 2H
    "AS 2S 3S KS",                                  # A 2 3 and K: the ace cannot be both
    "KS AS 2S 3S",                                  # wrap-around K A 2 3
    "KS AS 2S JK",                                  # K A 2 needs two wilds (J Q as 2 and joker)
    "QH KH AH 2H 3H",                               # wrap-around
    "5S JK JK",                                     # two wild cards
    "5S 6S JK 2H",                                  # two wild cards, both at an end
    "5S JK 7S 2H",                                  # a gap and an end: two wild cards
    "5S 6S 9S JK",                                  # a gap of two with one wild card
    "5S 8S JK",                                     # the same gap, three cards
    "4S 5S 5S 6S",                                  # two 5S: one place, two naturals
    "4S 5S 5S",
    "4S 5H 6S",                                     # mixed suits
    "4S 5H 6S JK",
    "2H 2S JK",                                     # the seed's 2-2-Joker: two wilds (see below)
    "2S 2S JK",
    "JK JK 2S",
    "2H 2S 2C",                                     # 2s of different suits: one natural, two wild
    "AS 3S 5S",                                     # two gaps
    "5S 6S",                                        # two cards
])
def test_invalid_sequences(text):
    assert read(text, kind="sequence") is None
    assert read(text) is None                       # nor a set


def test_seed_two_two_joker_is_valid_only_with_two_wilds():
    """Seed: "Mbili zinaweza kuhesabiwa kama kadi za asili ... 2-2-Joker ni mlolongo halali".

    2H 2S JK has one natural card at most: the 2 of the sequence's suit on its
    own place 2.  The other 2 and the joker are wild, so the example needs
    two wild cards in a sequence: invalid by default, valid with
    ``sequence_wilds = 2``, read as 2H (natural) then the 2S and the joker on
    places 3 and 4, in hearts (the lower suit of the two it can be read in).
    """
    cards = parse_cards("2H 2S JK")
    assert read_meld(cards) is None
    m = read_meld(cards, TWO_WILDS)
    assert (m.kind, m.suit, m.first, m.last, m.wilds, m.clean) == ("sequence", H, 2, 4, 2, False)
    assert texts(m) == "2H 2S JK"
    assert M.cards_text(m.wild_cards) == "2S JK"
    # Every reading: either 2 natural in its suit, the run A..3 or 2..4.
    assert {(r.suit, r.first, r.last, r.wilds) for r in readings(cards, TWO_WILDS)} == {
        (H, 1, 3, 2), (H, 2, 4, 2), (S, 1, 3, 2), (S, 2, 4, 2)}
    # Two 2s of one suit: one is natural, the other and the joker wild.
    m = read("2S 2S JK", TWO_WILDS)
    assert (m.suit, m.first, m.last, texts(m)) == (S, 2, 4, "2S 2S JK")
    assert m.wild_cards == (92, 104)               # the second deck's 2S and the joker
    # A natural 2 still needs its place: no 2 in the run, three wild cards.
    assert read_meld(cards, TWO_WILDS, kind="set") is None


@pytest.mark.parametrize(("text", "suit", "first", "last", "layout"), [
    ("5S JK JK", S, 5, 7, "5S JK JK"),
    ("5S 6S JK 2H", S, 5, 8, "5S 6S 2H JK"),        # the wild cards fill places in id order
    ("5S JK 7S 2H", S, 5, 8, "5S 2H 7S JK"),
    ("5S 6S 9S JK 2H", S, 5, 9, "5S 6S 2H JK 9S"),  # a gap of two filled by two wilds
    ("KS AS 2S JK", S, 11, 14, "2S JK KS AS"),      # J Q K A: still no wrap-around
    ("2H 2S 2C", C, 2, 4, "2C 2H 2S"),              # clubs: 2C natural, 2H 2S wild
])
def test_two_wilds_variant(text, suit, first, last, layout):
    assert read(text) is None                       # two wilds: invalid by default
    m = read(text, TWO_WILDS)
    assert (m.kind, m.suit, m.first, m.last, texts(m), m.wilds) == \
        ("sequence", suit, first, last, layout, 2)


@pytest.mark.parametrize("text", [
    "5S JK JK JK",              # three wild cards
    "5S 6S JK 2H 2D",
    "KS AS 2S 3S",              # still no wrap-around
    "4S 5S 5S 6S",              # still no duplicates
    "5S 9S JK JK",              # a gap of three
])
def test_two_wilds_variant_limits(text):
    assert read(text, TWO_WILDS) is None


def test_no_wild_sequences_variant():
    rules = MeldRules(sequence_wilds=0)
    assert read("2S 3S 4S", rules).clean            # the 2 in its place is natural
    assert read("5S JK 7S", rules) is None
    assert read("5C 5D JK", rules).wilds == 1        # sets keep their wild card


def test_two_sequences_of_one_suit_stay_separate():
    # Seed: two sequences of one suit may be on the table; never merged or split.
    low, high = parse_cards("3S 4S 5S 7S 8S 9S")[:3], parse_cards("7S 8S 9S")
    a, b = read_meld(low), read_meld(high)
    six = parse_cards("6S")
    # The 6S may go on either meld; each addition changes that meld only.
    assert (extend(a, six).first, extend(a, six).last) == (3, 6)
    assert (extend(b, six).first, extend(b, six).last) == (6, 9)
    # A second copy of the same sequence is its own meld (two decks).
    twin = read_meld(parse_cards("3S 4S 5S 3S 4S 5S")[3:])
    assert twin.cards == (93, 94, 95)
    assert a.cards == (41, 42, 43)
    score = table_score([a, b, twin])
    assert score["melded_points"] == 15 + 25 + 15
    assert score["total"] == 55


# ---------------------------------------------------------------------------
# §3 Clean, dirty, burraco; points
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "clean", "burraco", "pts"), [
    ("3S 4S 5S 6S 7S 8S 9S", True, True, 5 * 5 + 10 + 10),        # 7 naturals: clean burraco
    ("3S 4S 5S JK 7S 8S 9S", False, True, 4 * 5 + 30 + 20),       # joker as the 6: dirty burraco
    ("3S 4S 5S 6S 7S 8S", True, False, 5 * 5 + 10),               # 6 cards: not a burraco
    ("2S 3S 4S 5S 6S 7S 8S", True, True, 20 + 5 * 5 + 10),        # natural 2: still clean
    ("2H 3S 4S 5S 6S 7S 8S", False, True, 20 + 5 * 5 + 10),       # 2H as the 2S: dirty
    ("8C 8C 8D 8D 8H 8H 8S", True, True, 70),                     # a clean burraco set
    ("8C 8C 8D 8D 8H 8H JK", False, True, 60 + 30),               # a dirty burraco set
    ("AS 2S 3S", True, False, 15 + 20 + 5),
    ("QS KS JK", False, False, 10 + 10 + 30),
    ("AC AD AH", True, False, 45),
])
def test_classification_and_points(text, clean, burraco, pts):
    m = read(text)
    assert (m.clean, m.burraco, m.points) == (clean, burraco, pts)


def test_describe():
    assert read("5S 6S JK").describe() == "dirty sequence of spades 5..7: 5S 6S JK"
    assert read("9C 9D 9H").describe() == "clean set of 9: 9C 9D 9H"
    assert read("QD KD AD JD 10D 9D 8D").describe() == \
        "clean burraco sequence of diamonds 8..A: 8D 9D 10D JD QD KD AD"


def test_table_score():
    melds = [read("3S 4S 5S 6S 7S 8S 9S"),          # 45 points, clean burraco
             read("8C 8C 8D 8D 8H 8H JK"),          # 90 points, dirty burraco
             read("5C 5D 5H"),                      # 15 points
             read("QH KH AH 2C JH 10H 9H")]         # 9..K 50 + A 15 + 2C 20 = 85, dirty burraco
    assert (melds[3].first, melds[3].last) == (8, 14)    # the 2C is the 8 below 9 10 J Q K A
    score = table_score(melds)
    assert score == {"melded_points": 45 + 90 + 15 + 85, "clean_burraco": 1, "dirty_burraco": 2,
                     "burraco_bonus": 200 + 100 + 100, "total": 235 + 400}
    assert sum(score[k] for k in ("melded_points", "burraco_bonus")) == score["total"]
    assert table_score([]) == {"melded_points": 0, "clean_burraco": 0, "dirty_burraco": 0,
                               "burraco_bonus": 0, "total": 0}


def test_table_score_rejects_a_card_in_two_melds():
    a = read("5C 5D 5H")
    b = read_meld([a.cards[0], *parse_cards("5S 5S")])
    with pytest.raises(InputError, match="a card in two melds: 5C"):
        table_score([a, b])


# ---------------------------------------------------------------------------
# §3 Adding cards to a meld
# ---------------------------------------------------------------------------

def add(meld, text, rules=DEFAULT):
    """Add cards written as text, taking copies the meld does not hold yet."""
    held = set(meld.cards)
    out = []
    for t in text.split():
        copies = [c for c in range(108) if M.card_text(c) == M.card_text(parse_cards(t)[0])]
        out.append(next(c for c in copies if c not in held and c not in out))
    return extend(meld, out, rules)


def test_a_joker_at_the_end_moves_when_its_card_arrives():
    m = read("5S 6S JK")                       # the joker is the 7
    assert texts(m) == "5S 6S JK"
    m = add(m, "7S")                           # now the joker moves to the 8
    assert (m.first, m.last, texts(m), m.wilds) == (5, 8, "5S 6S 7S JK", 1)


def test_a_joker_in_a_gap_moves_when_its_card_arrives():
    m = read("5S JK 7S")                       # the joker is the 6
    m = add(m, "6S")                           # the joker goes to the top
    assert (m.first, m.last, texts(m)) == (5, 8, "5S 6S 7S JK")


def test_a_wild_2_of_the_suit_becomes_natural_when_its_gap_closes():
    m = read("2S 4S 5S")                       # dirty: the 2S stands for a 3 or a 6
    assert not m.clean
    m = add(m, "3S")                           # 2 3 4 5, the 2 in its place: clean
    assert (m.first, m.last, m.clean, texts(m)) == (2, 5, True, "2S 3S 4S 5S")


@pytest.mark.parametrize(("meld", "cards", "result"), [
    ("QS KS AS", "JS", (11, 14)),               # below Q: fine
    ("QS KS AS", "2S", (11, 14)),               # past the ace the 2 cannot go: it is the wild J
    ("QS KS JK", "AS", (11, 14)),               # the joker was the ace: it becomes the J
    ("JS QS KS AS", "JK", (10, 14)),            # the joker below the J
    ("AS 2S 3S", "4S 5S", (1, 5)),
    ("AS 2S 3S", "JK", (1, 4)),                 # the joker above the 3
    ("5S 6S 7S", "4S 8S JK", (4, 9)),           # several cards at once
])
def test_extend_sequences(meld, cards, result):
    m = add(read(meld), cards)
    assert m is not None
    assert m.kind == "sequence"
    assert (m.first, m.last) == result


@pytest.mark.parametrize(("meld", "cards", "why"), [
    ("QS KS AS", "3S", "past the ace: K A 2 3 would wrap around"),
    ("AS 2S 3S", "KS", "the ace is low: K would need it high as well"),
    ("QS KS AS", "AS", "a second ace: low and high at once"),
    ("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", "JK", "14 cards: no place left"),
    ("5S 6S 7S JK", "2H", "a second wild card"),
    ("5S 6S 7S JK", "JK", "a second wild card"),
    ("5S JK 7S", "9S", "the 8 would need a second wild card"),
    ("5S 6S 7S", "9S", "a gap with no wild card"),
    ("5S 6S 7S", "8H", "another suit"),
    ("5S 6S 7S", "7S", "a second 7S"),
    ("5S 6S 7S", "5C 5D", "a sequence stays a sequence"),
])
def test_extend_sequences_refused(meld, cards, why):
    assert add(read(meld), cards) is None, why


def test_extend_a_second_wild_with_the_two_wilds_variant():
    m = add(read("5S 6S 7S JK"), "2H", TWO_WILDS)
    assert (m.first, m.last, m.wilds) == (5, 9, 2)


def test_extend_the_seed_two_two_joker_in_the_suit_a_natural_card_fixes():
    # 2H 2S JK reads as hearts by the tie-break, but it is a spades sequence
    # just as well: the 3S makes it spades (2S natural, 2H and JK wild).
    m = read("2H 2S JK", TWO_WILDS)
    assert m.suit == H
    m2 = add(m, "3S", TWO_WILDS)
    assert (m2.suit, m2.first, m2.last, texts(m2)) == (S, 2, 5, "2S 3S 2H JK")
    assert add(m, "3D", TWO_WILDS) is None      # diamonds: neither 2 is natural there


def test_extend_a_set_to_nine_and_refuse_the_tenth():
    m = read("8C 8D 8H")
    m = add(m, "8S 8C 8D 8H 8S")               # all eight 8s: 8 cards, clean burraco
    assert (len(m), m.clean, m.burraco) == (8, True, True)
    m = add(m, "JK")                           # the 9th card: one wild card
    assert (len(m), m.wilds, m.burraco) == (9, 1, True)
    assert add(m, "2C") is None                # a 10th: over 9, and a second wild


@pytest.mark.parametrize(("meld", "cards", "why"), [
    ("5C 5D JK", "2H", "a second wild card"),
    ("5C 5D 2H", "JK", "a second wild card"),
    ("5C 5D 5H", "6C", "another rank"),
    ("5C 5D 5H", "6S 7S", "a set stays a set"),
])
def test_extend_sets_refused(meld, cards, why):
    assert add(read(meld), cards) is None, why


def test_extend_a_set_of_twos_with_the_variant():
    m = read("2C 2D 2H", TWOS_SET)
    assert add(m, "2S JK", TWOS_SET).wilds == 1
    assert add(m, "JK JK", TWOS_SET) is None


def test_extend_input_errors():
    m = read("5C 5D 5H")
    with pytest.raises(InputError, match="nothing to add"):
        extend(m, [])
    with pytest.raises(InputError, match="the same card id twice"):
        extend(m, [m.cards[0]])


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

def _places(c: int) -> tuple[int, ...]:
    p = c % 13
    return (1, 14) if p == 0 else (p + 1,)


def brute_force(cards: list[int], rules: MeldRules) -> dict:
    """Every reading, by trying each rank and every order of the cards on every run.

    Returns {(kind, rank or suit, first): wilds} with the fewest wild cards of
    each reading.  Written from §3 without the module's helpers.
    """
    n = len(cards)
    found: dict = {}
    joker = [c >= 104 for c in cards]
    two = [c < 104 and c % 13 == 1 for c in cards]
    if 3 <= n <= 9:
        for rank in range(1, 14):
            naturals = wild = 0
            for c, j, t in zip(cards, joker, two):
                if not j and c % 13 + 1 == rank and (rank != 2 or rules.twos_set):
                    naturals += 1
                elif j or t:
                    wild += 1
                else:
                    break
            else:
                if naturals and wild <= 1:
                    found[("set", rank, None)] = wild
    for s in range(4):
        for first in range(1, 15):
            last = first + n - 1
            if n < 3 or last > 14 or (first == 1 and last == 14):
                continue
            best = None
            for order in permutations(range(n)):
                wild = 0
                for i, k in enumerate(order):
                    c = cards[k]
                    if not joker[k] and (c % 52) // 13 == s and first + i in _places(c):
                        continue                 # natural on its own place
                    if joker[k] or two[k]:
                        wild += 1
                    else:
                        break
                else:
                    if wild <= rules.sequence_wilds and (best is None or wild < best):
                        best = wild
            if best is not None:
                found[("sequence", s, first)] = best
    return found


def _key(m) -> tuple:
    return (m.kind, m.rank if m.kind == "set" else m.suit, m.first)


rules_st = st.builds(MeldRules, twos_set=st.booleans(), sequence_wilds=st.sampled_from([0, 1, 2]))


@st.composite
def small_hands(draw):
    """3 to 5 distinct cards from a pool where melds are likely: one suit's
    run of five ranks (both decks), one rank's eight copies, every 2 and joker."""
    s = draw(st.integers(0, 3))
    low = draw(st.integers(0, 12))
    rank = draw(st.integers(0, 12))
    run = [d * 52 + s * 13 + (low + i) % 13 for d in (0, 1) for i in range(5)]
    same = [d * 52 + t * 13 + rank for d in (0, 1) for t in range(4)]
    wild = [d * 52 + t * 13 + 1 for d in (0, 1) for t in range(4)] + [104, 105, 106, 107]
    pool = sorted(set(run + same + wild))
    return draw(st.lists(st.sampled_from(pool), min_size=3, max_size=5, unique=True))


@FAST
@given(cards=small_hands(), rules=rules_st)
def test_readings_agree_with_brute_force(cards, rules):
    expected = brute_force(cards, rules)
    got = readings(cards, rules)
    assert {_key(m): m.wilds for m in got} == expected
    best = read_meld(cards, rules)
    if not expected:
        assert best is None
        return
    # The best: fewest wilds, a set first, the highest run, the lowest suit.
    order = sorted(expected, key=lambda k: (expected[k], k[0] != "set", -(k[2] or 0), k[1]))
    assert _key(best) == order[0]
    assert best.wilds == expected[order[0]]
    assert best.clean == (min(expected.values()) == 0)


@st.composite
def valid_melds(draw):
    """A meld built to be valid: a set or a sequence of any length, with its wild cards."""
    rules = draw(rules_st)
    kind = draw(st.sampled_from(["set", "sequence"]))
    wilds_pool = [104, 105, 106, 107] + [d * 52 + t * 13 + 1 for d in (0, 1) for t in range(4)]
    if kind == "set":
        if rules.twos_set and draw(st.booleans()):
            copies = [d * 52 + t * 13 + 1 for d in (0, 1) for t in range(4)]
            wilds_pool = [104, 105, 106, 107]
        else:
            rank = draw(st.sampled_from([0, *list(range(2, 13))]))
            copies = [d * 52 + t * 13 + rank for d in (0, 1) for t in range(4)]
        naturals = draw(st.lists(st.sampled_from(copies), min_size=2, max_size=8, unique=True))
        n_wild = draw(st.integers(0 if len(naturals) >= 3 else 1, 1))
    else:
        s = draw(st.integers(0, 3))
        length = draw(st.integers(3, 13))
        first = draw(st.integers(1, 15 - length))       # last place at most 14
        places = list(range(first, first + length))
        n_wild = draw(st.integers(0, min(rules.sequence_wilds, length - 1)))
        wild_places = set(draw(st.lists(st.sampled_from(places), min_size=n_wild,
                                        max_size=n_wild, unique=True)))
        naturals = [draw(st.sampled_from((0, 1))) * 52 + s * 13 + (p - 1) % 13
                    for p in places if p not in wild_places]
    free = [c for c in wilds_pool if c not in naturals]
    wild = draw(st.lists(st.sampled_from(free), min_size=n_wild, max_size=n_wild, unique=True))
    cards = draw(st.permutations(naturals + wild))
    return rules, kind, cards


@FAST
@given(data=valid_melds(), order=st.randoms(use_true_random=False))
def test_valid_melds_stay_valid_under_permutation(data, order):
    rules, kind, cards = data
    m = read_meld(cards, rules)
    assert m is not None
    assert read_meld(cards, rules, kind) is not None
    assert m.points == sum(M.points(c) for c in cards)
    assert sorted(m.cards) == sorted(cards)
    assert set(m.wild_cards) <= set(m.cards)
    shuffled = list(cards)
    order.shuffle(shuffled)
    assert read_meld(shuffled, rules) == m              # the very same reading
    assert read_meld(tuple(reversed(cards)), rules) == m
    assert m.burraco == (len(cards) >= 7)
    if m.kind == "sequence":
        # Layout check: each natural card on its place.
        for i, c in enumerate(m.cards):
            if c not in m.wild_cards:
                assert m.first + i in _places(c)
                assert (c % 52) // 13 == m.suit
