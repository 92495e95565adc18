"""The Pepper bid advisor (simkit/pepper/advise.py): forced hands, the JSON
shape, intervals, bad input, the --score option and its win chances."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from simkit.errors import InputError
from simkit.pepper import advise as A
from simkit.pepper import api
from simkit.runner import set_threads

TOP_SIX = "JH JD AH KH QH 10H"        # both bowers, A K Q 10 of hearts: every trick
NINES_TENS = "9C 9D 9H 9S 10C 10D"
BIDS_4P = ["pass", "1", "2", "3", "4", "5", "ndogo", "kubwa"]
BIDS_3P = ["pass", "1", "2", "3", "4", "5", "6", "7", "ndogo", "kubwa"]
JSON_KEYS = {"game", "players", "hand", "seat", "dealer", "samples", "bids", "recommended"}
BID_KEYS = ["bid", "p_make", "ci_low", "ci_high", "ev"]


@pytest.fixture(autouse=True)
def _all_threads_after():
    yield
    set_threads(None)


@pytest.fixture(scope="module")
def top_six():
    return A.advise(TOP_SIX, players=4)


@pytest.fixture(scope="module")
def nines_tens():
    return A.advise(NINES_TENS, players=4, samples=20_000)


def test_top_six_trumps_make_kubwa_surely(top_six):
    b = top_six.bids.set_index("bid")
    assert b.loc["kubwa", "p_make"] == 1.0
    assert b.loc["kubwa", "ci_high"] == 1.0
    assert b.loc["kubwa", "ev"] == 12.0          # +2 x 6, opponents take nothing
    assert top_six.recommended == "kubwa"
    assert top_six.why.startswith("kubwa: made in 100.0% of 100,000 deals; +12.0 points vs +6.0 for ")
    text = A.format_advice(top_six)
    assert "recommended: kubwa \u2014 made in 100.0%" in text
    for bid in BIDS_4P:
        assert f"\n{bid:<7}" in text


def test_nines_and_tens_pass(nines_tens):
    assert nines_tens.recommended == "pass"
    assert (nines_tens.bids["ev"].iloc[1:] < 0).all()
    assert nines_tens.reason.startswith("no bid gains on average (best: 1 at -")


def test_pass_is_the_reference(top_six, nines_tens):
    for a in (top_six, nines_tens):
        p = a.bids.iloc[0]
        assert (p["bid"], p["p_make"], p["ci_low"], p["ci_high"], p["ev"]) == ("pass", 1.0, 1.0, 1.0, 0.0)


def test_matches_evaluate_hand(nines_tens):
    ev = api.evaluate_hand(NINES_TENS, players=4, samples=20_000)
    got = nines_tens.bids.iloc[1:].reset_index(drop=True)
    pd.testing.assert_frame_equal(got[["bid", "p_make", "ci_low", "ci_high", "ev"]],
                                  ev.bids[["bid", "p_make", "ci_low", "ci_high", "ev"]])


def _check_json(d, players, bid_names, samples, with_win=False):
    assert set(d) == JSON_KEYS
    assert d["game"] == "pepper" and d["players"] == players and d["samples"] == samples
    assert isinstance(d["hand"], list) and all(isinstance(c, str) for c in d["hand"])
    assert len(d["hand"]) == (6 if players == 4 else 8)
    assert type(d["seat"]) is int and type(d["dealer"]) is int
    assert [b["bid"] for b in d["bids"]] == bid_names
    for b in d["bids"]:
        assert list(b) == BID_KEYS + (["p_win"] if with_win else [])
        assert all(type(b[k]) is float for k in b if k != "bid")
    assert d["recommended"] in bid_names
    json.dumps(d, allow_nan=False)


def test_json_shape(top_six):
    d = A.advice_json(top_six)
    _check_json(d, 4, BIDS_4P, 100_000)
    assert d["hand"] == TOP_SIX.split()
    assert d["recommended"] == "kubwa" and (d["seat"], d["dealer"]) == (1, 0)
    a3 = A.advise("AC KC AD 9H 10S QH KS 9C", players=3, samples=5_000, seat=2, dealer=2)
    d3 = A.advice_json(a3)
    _check_json(d3, 3, BIDS_3P, 5_000)
    assert (d3["seat"], d3["dealer"]) == (2, 2)


@pytest.mark.parametrize("players, hand", [
    (4, "JH JD AH KH QH 9S"), (4, "AC KC AD 9H 10S QH"),
    (3, "AC KC AD 9H 10S QH KS 9C"), (2, "JS JC AS KS 9D 10D QH AH")])
def test_intervals_contain_estimates(players, hand):
    a = A.advise(hand, players=players, samples=5_000, seed=3)
    b = a.bids
    assert ((b["ci_low"] <= b["p_make"]) & (b["p_make"] <= b["ci_high"])).all()
    assert ((b["ci_low"] >= 0) & (b["ci_high"] <= 1)).all()
    best = b.loc[b["bid"] == a.recommended, "ev"].iloc[0]
    assert best == b["ev"].max()                  # the recommendation has the top EV


def test_default_seat_is_left_of_dealer():
    a = A.advise(TOP_SIX, samples=1_000, dealer=3)
    assert (a.seat, a.dealer) == (0, 3)


@pytest.mark.parametrize("hand, names", [
    ("JH JD AH KH QH", ["6 cards", "got 5"]),
    ("JH JD AH KH QH 10H 9H", ["6 cards", "got 7"]),
    ("JH JD AH KH QH JH", ["duplicate", "JH"]),
    ("JH JD AH KH QH 8H", ["8H", "not in"]),
    ("JH JD AH KH QH XX", ["XX"]),
    ("", ["6 cards", "got 0"]),
])
def test_bad_hands(hand, names):
    with pytest.raises(InputError) as e:
        A.advise(hand, samples=1_000)
    msg = str(e.value)
    assert "\n" not in msg
    for n in names:
        assert n in msg, msg


def test_bad_hand_for_three_players():
    with pytest.raises(InputError, match="8 cards"):
        A.advise(TOP_SIX, players=3)


@pytest.mark.parametrize("kwargs, names", [
    (dict(seat=4), ["seat", "4"]), (dict(seat=-1), ["seat", "-1"]), (dict(seat="1"), ["seat"]),
    (dict(dealer=4), ["dealer", "4"]), (dict(dealer=True), ["dealer"]),
    (dict(samples=0), ["--samples", "0"]), (dict(samples=2.5), ["--samples"]),
    (dict(players=5), ["player", "5"]),
])
def test_bad_arguments(kwargs, names):
    with pytest.raises(InputError) as e:
        A.advise(TOP_SIX, **kwargs)
    for n in names:
        assert n in str(e.value), str(e.value)


# -- --score -----------------------------------------------------------------------

@pytest.mark.parametrize("text, players, want", [
    ("24:10", 4, (24, 10)), (" -6 : 12 ", 4, (-6, 12)), ("0:0", 2, (0, 0)),
    ("3:4", 3, (3, 4)), ("3:4:-5", 3, (3, 4, -5)), ((5, 7), 4, (5, 7)),
])
def test_parse_score(text, players, want):
    assert A.parse_score(text, players) == want


@pytest.mark.parametrize("text, players", [
    ("24-10", 4), ("24:", 4), (":10", 4), ("a:b", 4), ("1.5:2", 4), ("", 4), ("24", 4),
    ("1:2:3", 4), ("1:2:3", 2), ("1:2:3:4", 3), (24, 4), ((1, True), 4), ((1, 2.0), 4),
])
def test_parse_score_errors(text, players):
    with pytest.raises(InputError) as e:
        A.parse_score(text, players)
    assert "--score" in str(e.value) and repr(text) in str(e.value)


def test_score_checked_before_simulation():
    with pytest.raises(InputError, match="--score '24-10'"):
        A.advise(TOP_SIX, score="24-10")
    with pytest.raises(InputError, match="below 30"):
        A.advise(TOP_SIX, score="30:10")
    with pytest.raises(InputError, match="below 30"):
        A.advise(TOP_SIX, score="5:31")


@pytest.fixture
def fake_games(monkeypatch):
    """simulate_games with its real signature; side s wins when its score is
    strictly highest (a deterministic stand-in for played-out games)."""
    calls = []

    def fake(games=10_000, players=None, rules=None, policy=None, seed=0, start=0,
             threads=None, progress=False, scores=None, first_dealer=None):
        calls.append((tuple(scores), first_dealer, games))
        r = api.resolve_rules(rules, players)
        sc = np.array(scores)
        return pd.DataFrame({f"win_{s}": np.full(games, (sc == sc.max()).sum() == 1
                                                 and sc[s] == sc.max())
                             for s in range(r.sides)})

    monkeypatch.setattr(api, "simulate_games", fake)
    return calls


def test_outcomes_are_evaluate_hands_samples():
    """The per-deal outcomes the game chances are computed from average to the
    bid table's expected points (they are the same samples)."""
    for players, hand in ((4, NINES_TENS), (3, "AC KC AD 9H 10S QH KS 9C")):
        r = api.resolve_rules(None, players)
        ev = api.evaluate_hand(hand, players=players, samples=5_000, seed=9)
        side = r.side_of(ev.seat)
        for row in ev.bids.itertuples():
            d = ev.outcomes[row.level]
            assert d.shape == (5_000, r.sides)
            assert d[:, side].mean() == pytest.approx(row.ev_points, abs=1e-12)
            others = np.delete(d, side, axis=1)
            assert others.mean() == pytest.approx(row.ev_opponents, abs=1e-12)


def test_p_win_with_a_score(fake_games):
    a = A.advise(TOP_SIX, score="24:10", samples=5_000, dealer=0, games=100)
    # kubwa takes the hand's side (seat 1: side 1) from 24 to 36: over and won
    b = a.bids.set_index("bid")
    assert b.loc["kubwa", "p_win"] == 1.0
    assert a.recommended == "kubwa"            # every bid wins: the highest EV decides
    assert a.start == (10, 24) and a.score == (24, 10)
    # every position that is not over was played out from the next dealer's deal
    assert fake_games and all(fd == 1 and g == 100 for _, fd, g in fake_games)
    assert ((10, 24), 1, 100) in fake_games        # pass: the score stays
    d = A.advice_json(a)
    _check_json(d, 4, BIDS_4P, 5_000, with_win=True)
    assert "P(win)" in A.format_advice(a)


def test_p_win_mixes_outcomes(fake_games):
    # 9s and 10s from 20:20: a made bid of n leads (own score > 20 + opponents),
    # a failed one trails; pass stays tied (no winner in the stand-in)
    a = A.advise(NINES_TENS, score="20:20", samples=5_000, games=10)
    b = a.bids.set_index("bid")
    ev = api.evaluate_hand(NINES_TENS, samples=5_000)
    tricks = ev.tricks.set_index("tricks")["share"]
    assert b.loc["pass", "p_win"] == 0.0
    # bid 4: made with 4+ tricks (own +w vs +6-w: ahead), failed: -6 vs +6-w (behind)
    assert b.loc["4", "p_win"] == pytest.approx(tricks.loc[4:].sum(), abs=1e-12)
    # bid 1 made with 1 or 2 tricks leaves the side behind or level: only 4+ tricks lead
    assert b.loc["1", "p_win"] == pytest.approx(tricks.loc[4:].sum(), abs=1e-12)
    assert a.recommended == max(b.index, key=lambda k: (round(b.loc[k, "p_win"], 9),
                                                        round(b.loc[k, "ev"], 9),
                                                        -b.index.get_loc(k)))
    assert ((b["p_win"] >= 0) & (b["p_win"] <= 1)).all()


def test_p_win_three_players(fake_games):
    a = A.advise("AC KC AD 9H 10S QH KS 9C", players=3, seat=0, dealer=2, score="10:5:7",
                 samples=2_000, games=10)
    assert a.start == (10, 5, 7)                  # seat 0, then seats 1 and 2 clockwise
    assert all(len(s) == 3 and fd == 0 for s, fd, _ in fake_games)
    assert A.advise("AC KC AD 9H 10S QH KS 9C", players=3, seat=1, score="10:5:7",
                    samples=500, games=10).start == (7, 10, 5)


def test_p_win_real_games():
    """Real played-out games: a sure kubwa from 24:10 wins every game, and from 0:0
    no bid of the 9s and 10s wins always or never."""
    a = A.advise(TOP_SIX, score="24:10", samples=2_000, games=500)
    assert a.bids.set_index("bid").loc["kubwa", "p_win"] == 1.0 and a.recommended == "kubwa"
    b = A.advise(NINES_TENS, score="0:0", samples=2_000, games=500).bids
    assert ((b["p_win"] > 0) & (b["p_win"] < 1)).all()

