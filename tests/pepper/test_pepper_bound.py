"""The perfect-information bound (seeds/pepper.md 9.4): the kernel's runs of
the double-dummy solver on the advisor's and the studies' deals against the
reference engine's deals and solver, forced answers, the advisor's
``--bound`` and the Kubwa study's comparison of heuristic, expert and bound."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simkit.app.cli import main
from simkit.base.rng import Stream
from simkit.pepper import advise as A
from simkit.pepper import api
from simkit.pepper import reference as R
from simkit.pepper import reference_solver as RS
from simkit.pepper.rules import DECK, TRUMP_TEXT, make_rules

SEED = 11
HEARTS = TRUMP_TEXT.index("H")


def _side(seat: int, players: int) -> set[int]:
    return {seat, seat ^ 2} if players == 4 else {seat}


@pytest.mark.parametrize(("players", "hand", "seat", "dealer"), [
    # the quick tier solves the two-player hand; the full suite every table
    pytest.param(4, "JH JD AH KH 9C AS", 1, 0, marks=pytest.mark.slow),
    pytest.param(4, "AC KC 10D 9H QS 9S", 3, 1, marks=pytest.mark.slow),
    pytest.param(3, "JS JC AS KS 9D 10D QH AH", 2, 0, marks=pytest.mark.slow),
    (2, "AD KD QD JD JH 9S 10C AC", 0, 1)])
def test_bound_hands_are_the_reference_solvers_values(players, hand, seat, dealer):
    """Every sample's value, for every trump option, equals the reference
    solver's on the reference engine's deal of that sample (9.1)."""
    rules = make_rules(players=players)
    cards = DECK.parse_hand(hand)
    n = 12
    values = api.bound_hands(hand, n, players=players, seat=seat, dealer=dealer, seed=SEED,
                             threads=1)
    assert values.shape == (n, 5)
    for k in range(n):
        hands, _dead = R.deal_fixed(Stream(SEED, k), rules, dealer, seat, cards)
        assert sorted(hands[seat]) == sorted(cards)
        for o in range(5):
            assert values[k, o] == RS.value(hands, o, [], seat, _side(seat, players)), (k, o)


@pytest.mark.parametrize("players", [4, 3, 2])
def test_bound_first_is_the_reference_solvers_value(players):
    """On simulate's deals (any hand numbers, any trump), the value and the
    "at least target" answer of the first speaker's side, leading."""
    rules = make_rules(players=players)
    numbers = np.array([0, 7, 13, 402, 9_999, 123_456], np.int64)
    trump = np.array([0, 1, 2, 3, 4, 2], np.int64)
    values = api.bound_first(numbers, trump, players=players, seed=SEED, threads=1)
    every = api.bound_first(numbers, trump, players=players, seed=SEED, threads=1,
                            target=rules.tricks)
    for n, o, v, e in zip(numbers, trump, values, every):
        dealer = int(n) % players
        hands, _dead = R.deal(Stream(SEED, int(n)), rules, dealer)
        seat = (dealer + 1) % players
        want = RS.value(hands, int(o), [], seat, _side(seat, players))
        assert v == want, n
        assert e == (want >= rules.tricks), n
    assert set(np.unique(every)) <= {0, 1}


def test_bound_of_the_top_six_trumps_is_certain():
    """JH JD AH KH QH 10H with hearts: six sure tricks, whoever holds the rest."""
    rules = make_rules(players=4)
    values = api.bound_hands("JH JD AH KH QH 10H", 200, players=4, seed=SEED)
    assert (values[:, HEARTS] == 6).all()
    for level in (1, 5, rules.parse_bid("kubwa")):
        b = api.make_bound(values, level, rules)
        assert b["p_make_bound"] == 1.0
        assert b["bound_trump"] == "H"
        assert b["bound_low"] < 1.0 == b["bound_high"]


def test_make_bound_takes_the_best_single_trump():
    """A hand-made table of values: the bound is the best *single* trump over the
    deals (the trump is named before the deal is seen), not the best per deal;
    ties go to the trump with the most tricks on average; no-trump only when
    the rules allow it."""
    values = np.array([[6, 1, 1, 1, 1],      # C  D  H  S  NT
                       [1, 6, 1, 5, 1],
                       [1, 1, 1, 5, 6],
                       [6, 1, 1, 5, 6]])
    rules = make_rules(players=4)
    # six tricks: C and NT in 2 deals of 4 each, and 14 tricks in all each: the first
    # option; taking the best trump deal by deal would give 4 of 4
    b = api.make_bound(values, 6, rules)
    assert b["p_make_bound"] == 0.5
    assert b["bound_trump"] == "C"
    b5 = api.make_bound(values, 5, rules)
    assert b5["p_make_bound"] == 0.75
    assert b5["bound_trump"] == "S"
    values[0, 4] = 2                         # NT: 2 of 4 with 15 tricks beats C's 14
    assert api.make_bound(values, 6, rules)["bound_trump"] == "NT"
    no_nt = make_rules(overrides={"no_trump": False}, players=4)
    assert api.make_bound(values, 6, no_nt)["bound_trump"] == "C"
    values[:, 4] = 6
    assert api.make_bound(values, 6, rules)["p_make_bound"] == 1.0
    assert api.make_bound(values, 6, no_nt)["p_make_bound"] == 0.5


def test_oracle_tables_take_every_trick_exactly_when_the_bound_says():
    """A table of oracles (expert with worlds = 0, seeing the real deal) plays
    Kubwa to its double-dummy value: made on exactly the deals where the bound
    says every trick can be taken, with the trump the oracle named."""
    for players in (4, 3, 2):
        rules = make_rules(players=players)
        numbers = np.arange(0, 4_000, 13, dtype=np.int64)
        df = api.plan_deals(0, "kubwa", players=players, policy="expert:worlds=0", seed=SEED,
                            numbers=numbers)
        trump = df["trump"].cat.codes.to_numpy(np.int64)
        bound = api.bound_first(numbers, trump, players=players, seed=SEED,
                                target=rules.tricks)
        assert (df["made"].to_numpy() == bound.astype(bool)).all(), players
        assert 0 < bound.sum() < len(bound)


def test_bad_trump_options_are_refused():
    with pytest.raises(Exception, match="bad trump options"):
        api.bound_first(np.arange(3), np.array([0, 5, 1]), players=4)
    with pytest.raises(Exception, match="bad trump options"):
        api.bound_first(np.arange(3), np.array([0, 1]), players=4)


# --- the advisor's --bound ------------------------------------------------------

def test_advice_with_the_bound(capsys):
    hand = "JH JD AH KH QH 9S"
    plain = A.advise(hand, samples=600, seed=SEED)
    a = A.advise(hand, samples=600, seed=SEED, bound=True)
    # the bound adds columns and changes nothing else
    assert a.recommended == plain.recommended
    assert a.bids[plain.bids.columns].equals(plain.bids)
    values = api.bound_hands(hand, 600, players=4, seed=SEED)
    rules = make_rules(players=4)
    for row in a.bids.itertuples():
        if row.level < 1:
            assert np.isnan(row.p_make_bound)
            assert row.bound_trump == ""
            continue
        want = api.make_bound(values, int(row.level), rules)
        assert row.p_make_bound == want["p_make_bound"]
        assert row.bound_trump == want["bound_trump"]
        assert row.bound_low <= row.p_make_bound <= row.bound_high
    # the bound of a lower level is never below that of a higher one
    levels = a.bids[a.bids["level"] >= 1].sort_values("level")
    assert (np.diff(levels["p_make_bound"].to_numpy()) <= 1e-12).all()
    d = A.advice_json(a)
    for b in d["bids"]:
        assert {"p_make_bound", "bound_low", "bound_high", "bound_trump"} <= set(b)
        if b["bid"] == "pass":
            assert b["p_make_bound"] is None
            assert b["bound_trump"] is None
        else:
            assert type(b["p_make_bound"]) is float
            assert b["bound_trump"] in TRUMP_TEXT
    json.dumps(d, allow_nan=False)
    text = A.format_advice(a)
    assert "bound [95% CI]" in text
    assert "perfect-information bound" in text
    kubwa = a.bids.set_index("bid").loc["kubwa"]
    assert f"{100 * kubwa.p_make_bound:.1f}% [" in text


def test_bound_on_the_command_line(capsys):
    code = main(["advise", "pepper", "--hand", "JH JD AH KH QH 9S", "--samples", "300",
                 "--bound", "--json", "--declarer"])
    out, err = capsys.readouterr()
    assert code == 0, err
    d = json.loads(out)
    assert d["mode"] == "declarer"
    assert all("p_make_bound" in b for b in d["bids"])
    code = main(["advise", "pitch", "--hand", "AS KS QS JS 10S 9S", "--bound"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "--bound" in err
    assert "pepper" in err
