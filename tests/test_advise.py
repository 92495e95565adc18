"""The bid advisors (simkit/advice.py, simkit/pepper/advise.py,
simkit/pitch/advise.py): every bidding plan played through the whole auction,
forced answers, the JSON shape, intervals, bad input, the --score option and
its win chances, and the older no-auction figures (--declarer)."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from simkit import advice
from simkit.app.cli import main
from simkit.base import stats
from simkit.base.errors import InputError
from simkit.pepper import advise as A
from simkit.pepper import api
from simkit.pitch import advise as PA
from simkit.pitch import api as pitch_api

TOP_SIX = "JH JD AH KH QH 10H"        # both bowers, A K Q 10 of hearts: every trick
NINES_TENS = "9C 9D 9H 9S 10C 10D"
FOUR_JACKS = "JH JD JC JS AH AD"      # no other hand can be sure of every trick
BIDS_4P = ["pass", "1", "2", "3", "4", "5", "ndogo", "kubwa"]
BIDS_3P = ["pass", "1", "2", "3", "4", "5", "6", "7", "ndogo", "kubwa"]
JSON_KEYS = {"game", "players", "hand", "seat", "dealer", "samples", "bids", "recommended",
             "says", "reason", "close", "close_to", "mode", "policies", "rules", "value",
             "threshold", "identical", "decided_by", "decides"}
BID_KEYS = ["bid", "p_make", "ci_low", "ci_high", "ev", "ev_low", "ev_high", "p_contract",
            "contract_low", "contract_high", "ev_us", "ev_us_low", "ev_us_high", "ev_them",
            "ev_them_low", "ev_them_high"]
DECLARER_KEYS = ["bid", "p_make", "ci_low", "ci_high", "ev"]
#: A heuristic that never bids a number (Kubwa only with every trick sure).
SILENT = "heuristic:aggression=-6,partner_help=0"


@pytest.fixture(scope="module")
def top_six():
    return A.advise(TOP_SIX, players=4, samples=20_000)


@pytest.fixture(scope="module")
def nines_tens():
    return A.advise(NINES_TENS, players=4, samples=20_000)


# -- Pepper: every plan through the auction -----------------------------------------

def test_top_six_trumps_kubwa_forced(top_six):
    """The first to speak bids Kubwa and nothing outbids it; it takes every trick."""
    b = top_six.bids.set_index("bid")
    assert list(b.index) == BIDS_4P
    k = b.loc["kubwa"]
    assert (k["p_contract"], k["p_make"], k["ci_high"], k["ev_us"], k["ev_them"], k["ev"]) == \
        (1.0, 1.0, 1.0, 12.0, 0.0, 12.0)
    assert top_six.recommended == "kubwa"
    assert top_six.why.startswith("kubwa: EV +12.00 points vs ")
    assert "pass: the opponents take the contract in" in top_six.reason
    text = A.format_advice(top_six)
    assert "recommended: kubwa \u2014 EV +12.00" in text
    assert "policies by seat: 0 heuristic, 1 heuristic (this hand), 2 heuristic, 3 heuristic" \
        in text
    for bid in BIDS_4P:
        assert f"\n{bid:<7}" in text


def test_plan_rows_are_the_plan_runs(nines_tens):
    """Each row is computed from api.plan_hands' records of that plan."""
    r = api.resolve_rules(None, 4)
    b = nines_tens.bids.set_index("bid")
    for name in ("pass", "3", "kubwa"):
        df = api.plan_hands(NINES_TENS, name, 20_000, players=4, seat=1, dealer=0)
        held = df["bidder"].isin([1, 3])
        us, them = df["score_1"].mean(), df["score_0"].mean()
        row = b.loc[name]
        assert row["held"] == held.sum()
        assert row["p_contract"] == held.mean()
        if held.any():
            assert row["p_make"] == df.loc[held, "made"].mean()
        assert (row["ev_us"], row["ev_them"]) == pytest.approx((us, them), abs=1e-12)
        assert row["ev"] == pytest.approx(us - them, abs=1e-12)
        assert row["ev_low"] <= row["ev"] <= row["ev_high"]
    assert r.side_of(1) == 1


def test_passing_is_measured_not_zero(nines_tens):
    """Passing with 9s and 10s: the opponents take the contract and score."""
    p = nines_tens.bids.set_index("bid").loc["pass"]
    assert p["ev_them"] > 1.0
    assert p["ev"] < 0
    assert p["p_contract"] + p["p_thrown"] <= 1
    assert p["p_thrown"] == 0
    assert nines_tens.recommended == max(
        nines_tens.bids.to_dict("records"),
        key=lambda r: (round(r["ev"], 9), -r["level"]))["bid"]      # ties: commit least


def test_everybody_passes_redeal_pass_is_thrown_in():
    pols = [SILENT, "heuristic", SILENT, SILENT]
    a = A.advise(FOUR_JACKS, players=4, samples=3_000, policy=pols, rules={"all_pass": "redeal"},
                 plans="pass,1")
    p = a.bids.set_index("bid").loc["pass"]
    assert (p["p_thrown"], p["p_contract"], p["ev_us"], p["ev_them"], p["ev"]) == \
        (1.0, 0.0, 0.0, 0.0, 0.0)
    assert np.isnan(p["p_make"])
    assert json.loads(json.dumps(A.advice_json(a)))["bids"][0]["p_make"] is None


def test_stick_the_dealer_passing_dealer_plays_one():
    pols = [SILENT, SILENT, SILENT, "heuristic"]
    df = api.plan_hands(FOUR_JACKS, "pass", 3_000, players=4, seat=3, dealer=3, policy=pols,
                        rules={"all_pass": "stick"})
    assert (df["contract"] == 1).all()
    assert (df["bidder"] == 3).all()
    assert df["stuck"].all()
    a = A.advise(FOUR_JACKS, players=4, seat=3, dealer=3, samples=3_000, policy=pols,
                 rules={"all_pass": "stick"}, plans=["pass", "kubwa"])
    assert a.bids.set_index("bid").loc["pass", "p_contract"] == 1.0


def test_json_shape(top_six):
    d = A.advice_json(top_six)
    _check_json(d, 4, BIDS_4P, 20_000)
    assert d["hand"] == TOP_SIX.split()
    assert d["mode"] == "auction"
    assert d["policies"] == ["heuristic"] * 4
    assert d["recommended"] == "kubwa"
    assert (d["seat"], d["dealer"]) == (1, 0)
    a3 = A.advise("AC KC AD 9H 10S QH KS 9C", players=3, samples=2_000, seat=2, dealer=2)
    d3 = A.advice_json(a3)
    _check_json(d3, 3, BIDS_3P, 2_000)
    assert (d3["seat"], d3["dealer"]) == (2, 2)


def _check_json(d, players, bid_names, samples, with_win=False, keys=BID_KEYS):
    assert set(d) == JSON_KEYS | {"trump"} | ({"score", "games"} if with_win else set())
    assert d["game"] == "pepper"
    assert d["players"] == players
    assert d["samples"] == samples
    assert isinstance(d["hand"], list)
    assert all(isinstance(c, str) for c in d["hand"])
    assert len(d["hand"]) == (6 if players == 4 else 8)
    assert type(d["seat"]) is int
    assert type(d["dealer"]) is int
    assert [b["bid"] for b in d["bids"]] == bid_names
    for b in d["bids"]:
        assert list(b) == keys + (["p_win", "p_win_low", "p_win_high"] if with_win else [])
        assert all(b[k] is None or type(b[k]) is float for k in b if k != "bid")
    assert d["recommended"] in bid_names
    json.dumps(d, allow_nan=False)


@pytest.mark.parametrize(("players", "hand"), [
    (4, "JH JD AH KH QH 9S"), (4, "AC KC AD 9H 10S QH"),
    (3, "AC KC AD 9H 10S QH KS 9C"), (2, "JS JC AS KS 9D 10D QH AH")])
def test_intervals_contain_estimates(players, hand):
    a = A.advise(hand, players=players, samples=2_000, seed=3)
    b = a.bids
    held = b["held"] > 0
    assert ((b["ci_low"] <= b["p_make"]) & (b["p_make"] <= b["ci_high"]))[held].all()
    assert ((b["contract_low"] <= b["p_contract"]) & (b["p_contract"] <= b["contract_high"])).all()
    assert ((b["ev_low"] <= b["ev"]) & (b["ev"] <= b["ev_high"])).all()
    assert np.allclose(b["ev"], b["ev_us"] - b["ev_them"])
    best = b.loc[b["bid"] == a.recommended, "ev"].iloc[0]
    assert best == b["ev"].max()                  # the recommendation has the top EV


def test_default_seat_is_left_of_dealer():
    a = A.advise(TOP_SIX, samples=500, dealer=3, plans="pass,kubwa")
    assert (a.seat, a.dealer) == (0, 3)
    assert list(a.bids["bid"]) == ["pass", "kubwa"]


def test_policy_plan_is_the_seats_own_bidding():
    """--plans may add ``policy``: the row of the plain auction around the hand."""
    a = A.advise(NINES_TENS, samples=2_000, plans="policy,pass")
    assert list(a.bids["bid"]) == ["pass", "policy"]
    df = api.plan_hands(NINES_TENS, "policy", 2_000, players=4)
    row = a.bids.set_index("bid").loc["policy"]
    assert row["level"] == -1
    assert row["ev_us"] == pytest.approx(df["score_1"].mean(), abs=1e-12)
    assert "trump named" not in A.format_advice(a)


@pytest.mark.parametrize(("plans", "words"), [
    ("pass,9", ["9", "pass, 1 to 5, ndogo, kubwa"]), ("kubwa", ["two or more", "policy"]),
    ("pass,pass", ["two or more"]), ("pass,huge", ["huge"]),
])
def test_bad_plans(plans, words):
    with pytest.raises(InputError) as e:
        A.advise(TOP_SIX, samples=100, plans=plans)
    assert "\n" not in str(e.value)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_bad_plans_and_seats_on_the_command_line(capsys):
    for argv, word in ((["--plans", "pass,9"], "9"), (["--seat", "4"], "seat"),
                       (["--dealer", "-1"], "dealer"), (["--plans", "pass,kubwa", "--declarer"],
                                                        "--declarer")):
        assert main(["advise", "pepper", "--hand", TOP_SIX, "--samples", "100", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert word in err, err
    assert main(["advise", "pitch", "--hand", "AS KS QS JS TS 9S", "--plans", "pass,ndogo"]) == 2
    assert "ndogo" in capsys.readouterr().err
    # Pitch's plan codes are Python's: the command line names only what it takes
    assert main(["advise", "pitch", "--hand", "AS KS QS JS TS 9S", "--plans", "pass,5"]) == 2
    err = capsys.readouterr().err
    assert "'5'" in err
    assert "pass, 2, 3, 4, moon" in err
    assert "codes" not in err


# -- Pepper: the no-auction figures (--declarer) -------------------------------------

@pytest.fixture(scope="module")
def top_six_declarer():
    return A.advise(TOP_SIX, players=4, samples=20_000, declarer=True)


def test_declarer_top_six_make_kubwa_surely(top_six_declarer):
    a = top_six_declarer
    b = a.bids.set_index("bid")
    assert (b.loc["kubwa", "p_make"], b.loc["kubwa", "ci_high"], b.loc["kubwa", "ev"]) == \
        (1.0, 1.0, 12.0)
    assert a.recommended == "kubwa"
    assert a.declarer
    assert a.why.startswith("kubwa: as declarer with no auction, made in 100.0% of 20,000 deals")
    assert "passing is the reference, 0." in A.format_advice(a)
    p = a.bids.iloc[0]
    assert ((p["bid"], p["p_make"], p["ci_low"], p["ci_high"], p["ev"])
            == ("pass", 1.0, 1.0, 1.0, 0.0))
    d = A.advice_json(a)
    assert d["mode"] == "declarer"
    assert [list(x) for x in d["bids"]] == [DECLARER_KEYS] * 8


def test_declarer_matches_evaluate_hand():
    a = A.advise(NINES_TENS, players=4, samples=5_000, declarer=True)
    assert a.recommended == "pass"
    ev = api.evaluate_hand(NINES_TENS, players=4, samples=5_000)
    got = a.bids.iloc[1:].reset_index(drop=True)
    pd.testing.assert_frame_equal(got[DECLARER_KEYS], ev.bids[DECLARER_KEYS])


@pytest.mark.parametrize(("hand", "names"), [
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


@pytest.mark.parametrize(("kwargs", "names"), [
    ({"seat": 4}, ["seat", "4"]), ({"seat": -1}, ["seat", "-1"]), ({"seat": "1"}, ["seat"]),
    ({"dealer": 4}, ["dealer", "4"]), ({"dealer": True}, ["dealer"]),
    ({"samples": 0}, ["--samples", "0"]), ({"samples": 2.5}, ["--samples"]),
    ({"players": 5}, ["player", "5"]),
])
def test_bad_arguments(kwargs, names):
    with pytest.raises(InputError) as e:
        A.advise(TOP_SIX, **kwargs)
    for n in names:
        assert n in str(e.value), str(e.value)


# -- --score -----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "players", "want"), [
    ("24:10", 4, (24, 10)), (" -6 : 12 ", 4, (-6, 12)), ("0:0", 2, (0, 0)),
    ("3:4", 3, (3, 4)), ("3:4:-5", 3, (3, 4, -5)), ((5, 7), 4, (5, 7)),
])
def test_parse_score(text, players, want):
    assert A.parse_score(text, players) == want


@pytest.mark.parametrize(("text", "players"), [
    ("24-10", 4), ("24:", 4), (":10", 4), ("a:b", 4), ("1.5:2", 4), ("", 4), ("24", 4),
    ("1:2:3", 4), ("1:2:3", 2), ("1:2:3:4", 3), (24, 4), ((1, True), 4), ((1, 2.0), 4),
])
def test_parse_score_errors(text, players):
    with pytest.raises(InputError) as e:
        A.parse_score(text, players)
    assert "--score" in str(e.value)
    assert repr(text) in str(e.value)


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

    def fake(games=10_000, scores=None, first_dealer=None, **run):
        calls.append((tuple(scores), first_dealer, games))
        r = api.resolve_rules(run.get("rules"), run.get("players"))
        sc = np.array(scores)
        return pd.DataFrame({f"win_{s}": np.full(games, (sc == sc.max()).sum() == 1
                                                 and sc[s] == sc.max())
                             for s in range(r.sides)})

    monkeypatch.setattr(api, "simulate_games", fake)
    return calls


def test_p_win_with_a_score(fake_games):
    a = A.advise(TOP_SIX, score="24:10", samples=2_000, dealer=0, games=100)
    # kubwa takes the hand's side (seat 1: side 1) from 24 to 36: over and won
    b = a.bids.set_index("bid")
    assert b.loc["kubwa", "p_win"] == 1.0
    assert a.recommended == "kubwa"
    assert a.start == (10, 24)
    assert a.score == (24, 10)
    # every position that is not over was played out from the next dealer's deal
    assert fake_games
    assert all(fd == 1 and g == 100 for _, fd, g in fake_games)
    d = A.advice_json(a)
    _check_json(d, 4, BIDS_4P, 2_000, with_win=True)
    assert "P(win)" in A.format_advice(a)
    with pytest.raises(InputError, match="--declarer"):
        A.advise(TOP_SIX, score="24:10", declarer=True)


def test_p_win_is_the_mean_over_the_plans_deals(fake_games):
    """p_win of a plan: the stand-in's verdict on each deal's resulting score, averaged."""
    a = A.advise(NINES_TENS, score="20:20", samples=2_000, games=10, plans="pass,3,kubwa")
    b = a.bids.set_index("bid")
    for name in ("pass", "3", "kubwa"):
        df = api.plan_hands(NINES_TENS, name, 2_000, players=4)
        us, them = 20 + df["score_1"], 20 + df["score_0"]
        # the stand-in: strictly ahead wins; a side over 30 alone wins at once
        assert b.loc[name, "p_win"] == pytest.approx((us > them).mean(), abs=1e-12)
    assert ((b["p_win"] >= 0) & (b["p_win"] <= 1)).all()
    assert a.recommended == max(b.index, key=lambda k: (round(b.loc[k, "p_win"], 9),
                                                        round(b.loc[k, "ev"], 9),
                                                        -b.loc[k, "level"]))


def test_p_win_three_players(fake_games):
    a = A.advise("AC KC AD 9H 10S QH KS 9C", players=3, seat=0, dealer=2, score="10:5:7",
                 samples=1_000, games=10, plans="pass,kubwa")
    assert a.start == (10, 5, 7)                  # seat 0, then seats 1 and 2 clockwise
    assert all(len(s) == 3 and fd == 0 for s, fd, _ in fake_games)
    assert A.advise("AC KC AD 9H 10S QH KS 9C", players=3, seat=1, score="10:5:7",
                    samples=500, games=10, plans="pass,kubwa").start == (7, 10, 5)


def test_passing_at_20_27_loses_the_game_on_the_hand():
    """The issue's example: passing with a weak hand at 20:27 hands the side at 27
    the contract; played out, the game is mostly lost at once (not 17% won)."""
    a = A.advise("9H TH 9C TC 9D QS", score="20:27", samples=2_000, games=300,
                 plans="pass,3")
    p = a.bids.set_index("bid").loc["pass"]
    assert p["p_contract"] < 0.35
    assert p["p_win"] < 0.13


def test_p_win_real_games():
    """Real played-out games: a sure kubwa from 24:10 wins every game, and from 0:0
    no plan of the 9s and 10s wins always or never."""
    a = A.advise(TOP_SIX, score="24:10", samples=1_000, games=300, plans="3,kubwa")
    assert a.bids.set_index("bid").loc["kubwa", "p_win"] == 1.0
    assert a.recommended == "kubwa"
    b = A.advise(NINES_TENS, score="0:0", samples=1_000, games=300, plans="pass,2,kubwa").bids
    assert ((b["p_win"] > 0) & (b["p_win"] < 1)).all()


# -- Pitch ---------------------------------------------------------------------------

PITCH_BIDS = ["pass", "2", "3", "4", "moon"]


def test_pitch_moon_and_rags():
    a = PA.advise("AS KS QS JS TS 9S", samples=5_000, seed=7)
    b = a.bids.set_index("bid")
    assert list(b.index) == PITCH_BIDS
    assert a.recommended == "moon"
    assert (b.loc["moon", "p_contract"], b.loc["moon", "p_make"]) == (1.0, 1.0)
    j = PA.advice_json(a)
    assert set(j) == JSON_KEYS
    assert j["game"] == "pitch"
    assert j["mode"] == "auction"
    assert [list(x) for x in j["bids"]] == [[*BID_KEYS, "points"]] * 5
    assert "pass: the opponents take the contract in" in a.reason
    rags = PA.advise("2C 3D 4H 5S 7C 8D", samples=5_000, seed=7)
    assert rags.recommended == "pass"
    r = rags.bids.set_index("bid")
    assert r.loc["pass", "p_contract"] == 0.0
    assert r.loc["moon", "p_make"] == 0.0
    # money is the ranking value; points are the seat's own
    df = pitch_api.plan_hands("2C 3D 4H 5S 7C 8D", "pass", 5_000, seat=1, dealer=0, seed=7)
    assert r.loc["pass", "ev"] == pytest.approx(df["money_1"].mean(), abs=1e-12)
    assert r.loc["pass", "points"] == pytest.approx(df["score_1"].mean(), abs=1e-12)


def test_pitch_stuck_dealer_passing_bids_two():
    silent = "heuristic:aggression=-4,moon_run=7"
    a = PA.advise("2C 3D 4H 5S 7C 8D", players=4, seat=0, dealer=0, samples=2_000,
                  policy=["heuristic", silent, silent, silent], plans="pass,3")
    p = a.bids.set_index("bid").loc["pass"]
    assert p["p_contract"] == 1.0
    df = pitch_api.plan_hands("2C 3D 4H 5S 7C 8D", "pass", 2_000, players=4, seat=0, dealer=0,
                              policy=["heuristic", silent, silent, silent])
    assert (df["contract"] == 2).all()
    assert (df["pitcher"] == 0).all()


def test_pitch_declarer_figures():
    a = PA.advise("AS KS QS JS TS 9S", samples=2_000, declarer=True)
    assert a.declarer
    assert a.recommended == "moon"
    assert "as pitcher with no auction" in PA.format_advice(a)
    j = PA.advice_json(a)
    assert j["mode"] == "declarer"
    assert [list(x) for x in j["bids"]] == \
        [["bid", "p_make", "ci_low", "ci_high", "ev", "points"]] * 5


# --- ties, closeness, and runs in steps (the browser app's runs) ---------------------

def test_a_tie_goes_to_the_plan_that_commits_least():
    """With 3 players the others outbid every number this hand could call, so
    pass, 1, 2 and 3 give the same deals the same outcome: pass, the plan
    that commits least, is recommended (it was 3, the highest tied bid)."""
    a = A.advise("9C 10C 9D 10D 9H 10H 9S 10S", players=3, samples=3_000, seed=0)
    b = a.bids.set_index("bid")
    assert b.loc["pass", "ev"] == b.loc["1", "ev"] == b.loc["3", "ev"]
    assert a.recommended == "pass"
    assert "commits least" in a.reason
    # the rows that are the same on every deal get a note saying why
    d = A.advice_json(a)
    same = d["identical"][0]
    assert same["plans"] == ["pass", "1", "2", "3"]
    assert "the others always bid higher than 3" in same["note"]
    assert "3,000 deals" in same["note"]
    assert "same on every deal: pass, 1, 2 and 3" in A.format_advice(a)
    # and the verdict is judged against the plans that differ, not against pass's twins
    assert d["threshold"]["vs"] not in ("1", "2", "3")


def test_too_close_to_call_names_the_plan_and_the_threshold():
    d = A.advice_json(A.advise(FOUR_JACKS, samples=300, seed=2))
    assert d["threshold"]["by"] == "ev"
    assert d["threshold"]["value"] == A.MATTERS == 0.05
    assert d["value"]["matters"] == 0.05
    t = d["threshold"]
    assert t["low"] <= t["diff"] <= t["high"]
    if d["close"]:
        assert d["close_to"] == t["vs"]
        assert t["low"] <= 0.05
        assert "too close to call" in d["reason"]
        assert "0.05 points per hand" in d["reason"]
    else:
        assert t["low"] > 0.05
        assert "clear choice" in d["reason"]


# --- the verdict: clear only beyond a difference a player would act on --------------

def _outcome(values, holds=None):
    v = np.asarray(values, float)
    h = np.ones(len(v), bool) if holds is None else np.asarray(holds, bool)
    return advice.PlanOutcome(h, h, ~h, v, np.zeros(len(v)), v)


def _verdict(plans, measure):
    table = advice.plan_table({name: (level, o) for name, (level, o) in plans.items()})
    return advice.choose(table, {n: o for n, (_, o) in plans.items()}, measure)


def test_a_difference_under_the_threshold_is_too_close_to_call():
    """The issue's Pitch example: +0.088 $ against +0.084 $ a hand, measured very
    precisely, is still too close to call: under a cent a hand."""
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 0.001, 200_000)
    plans = {"pass": (0, _outcome(np.full(200_000, -0.05))),
             "2": (2, _outcome(0.084 + noise)), "3": (3, _outcome(0.088 + noise))}
    v = _verdict(plans, PA.EV_MEASURE)
    assert v.recommended == "3"
    assert not v.clear
    assert v.vs == "2"
    assert 0.0039 < v.low <= v.diff <= v.high < 0.0041           # sure, and too small
    assert "too close to call" in v.reason
    assert "1 cent per hand" in v.reason
    assert "no player would act on" in v.reason
    # in words first: both plans, and why the difference does not settle it
    assert v.says == ("Bid 3 or bid 2: too close to call. Bidding 3 earns about 4 cents more "
                      "every 10 hands than bidding 2: surely less than 1 cent per hand apart, "
                      "too little to act on")
    # the numbers after the words, money written one way: +$0.09, a difference to 1/10 cent
    assert "EV +$0.09 vs +$0.08 for 2" in v.reason
    assert "by +$0.004 [+$0.004, +$0.004]" in v.reason
    # a cent and a half more, as sure: a clear choice
    plans["3"] = (3, _outcome(0.099 + noise))
    v = _verdict(plans, PA.EV_MEASURE)
    assert v.clear
    assert v.vs == "2"
    assert v.low > PA.MATTERS
    assert "a clear choice" in v.reason
    assert "1 cent per hand" in v.reason


def test_a_large_but_uncertain_difference_is_too_close_to_call():
    """Pepper: ahead by 0.2 points a hand, but the interval of the (paired)
    difference reaches below 0.05: too close, the threshold named."""
    rng = np.random.default_rng(1)
    a = rng.normal(0, 5, 2_000)
    plans = {"pass": (0, _outcome(a)), "3": (3, _outcome(a + 0.2 + rng.normal(0, 3, 2_000)))}
    v = _verdict(plans, A.EV_MEASURE)
    assert v.recommended == "3"
    assert not v.clear
    assert v.low < 0.05 < v.high
    assert "reaches below 0.05 points per hand" in v.reason
    # the same difference on the same deals with little noise of its own: clear
    plans["3"] = (3, _outcome(a + 0.2 + rng.normal(0, 0.1, 2_000)))
    v = _verdict(plans, A.EV_MEASURE)
    assert v.clear
    assert v.low > 0.05


def test_identical_rows_do_not_make_a_choice_close():
    """Pass and 1 the same on every deal: the verdict is judged against 3 alone,
    and pass (which commits least) stands for 1."""
    base = np.linspace(-1, 1, 1_000)
    plans = {"pass": (0, _outcome(base + 1)), "1": (1, _outcome(base + 1)),
             "3": (3, _outcome(base - 1))}
    v = _verdict(plans, A.EV_MEASURE)
    assert v.recommended == "pass"
    assert v.clear
    assert v.vs == "3"
    assert v.identical == [{"plans": ["pass", "1"], "note": v.identical[0]["note"]}]
    assert "never stood" in v.identical[0]["note"]
    assert "commits least" in v.reason


# --- the chance to win the game: its interval ------------------------------------

def test_win_chance_interval_is_a_proportion():
    """Every deal ends the game at once (chances 0 or 1): the interval is exactly
    Clopper-Pearson's over the deals."""
    codes = {"a": np.array([1] * 70 + [2] * 30), "b": np.array([1] * 40 + [2] * 60)}
    win = advice.WinChances(codes, {1: 1.0, 2: 0.0}, {1: 0, 2: 0})
    p, lo, hi = win.estimate("a")
    assert p == 0.7
    assert (lo, hi) == pytest.approx(tuple(float(x) for x in stats.proportion_ci(70, 100)))
    d, dlo, dhi = win.difference("a", "b")
    assert d == pytest.approx(0.3)
    assert dlo < 0.3 < dhi


def test_win_chance_interval_counts_the_games_played():
    """One position, played out 100 or 100,000 times: the interval is the games'
    proportion (the deals all lead there), narrower with more games."""
    codes = {"a": np.full(5_000, 7)}
    few = advice.WinChances(codes, {7: 0.4}, {7: 100})
    many = advice.WinChances(codes, {7: 0.4}, {7: 100_000})
    p, lo, hi = few.estimate("a")
    assert p == pytest.approx(0.4)
    assert (lo, hi) == pytest.approx(tuple(float(x) for x in stats.proportion_ci(40, 100)))
    _, lo2, hi2 = many.estimate("a")
    assert lo < lo2 < 0.4 < hi2 < hi
    assert hi2 - lo2 < 0.01
    # two plans reaching the same position share its noise: their difference is exact
    both = advice.WinChances({"a": codes["a"], "b": codes["a"]}, {7: 0.4}, {7: 100})
    assert both.difference("a", "b") == (0.0, 0.0, 0.0)


def test_win_chance_interval_covers_played_out_games():
    """Positions 0.3 and 0.6 reached half the time each, games of 200 per
    position drawn at random: the 95% interval covers the true 0.45 about 95% of
    the time."""
    rng = np.random.default_rng(5)
    codes = {"a": np.array([1, 2] * 500)}
    hits = 0
    for _ in range(400):
        chance = {1: rng.binomial(200, 0.3) / 200, 2: rng.binomial(200, 0.6) / 200}
        _, lo, hi = advice.WinChances(codes, chance, {1: 200, 2: 200}).estimate("a")
        hits += lo <= 0.45 <= hi
    assert 0.91 <= hits / 400 <= 0.99


def test_a_score_gets_win_chance_intervals_and_says_why_it_decides(fake_games):
    a = A.advise(NINES_TENS, score="20:20", samples=2_000, games=10, plans="pass,3,kubwa")
    b = a.bids
    assert ((b["p_win_low"] <= b["p_win"]) & (b["p_win"] <= b["p_win_high"])).all()
    # the stand-in's positions are won or lost outright: a proportion over the deals
    for r in b.to_dict("records"):
        k = round(r["p_win"] * 2_000)
        lo, hi = stats.proportion_ci(k, 2_000)
        assert (r["p_win_low"], r["p_win_high"]) == pytest.approx((float(lo), float(hi)))
    d = A.advice_json(a)
    assert d["decided_by"] == "p_win"
    assert d["threshold"]["text"] == "1 percentage point"
    assert d["decides"].startswith("With the score 20:20 the plan is chosen by its chance to "
                                   "win the game, not by EV")
    assert "reaches 30" in d["decides"]
    text = A.format_advice(a)
    assert "P(win) [95% CI]" in text
    assert d["decides"] in text
    assert "1 percentage point" in d["reason"]


def test_the_game_phase_reports_progress(fake_games):
    """With a score the progress goes on through the games played out: it stays
    under 1 until they are done (it was 100% from the end of the plans)."""
    from simkit.runs.batches import Work
    seen = []
    A.advise(NINES_TENS, score="20:20", samples=2_000, games=2_000, plans="pass,3,kubwa",
             work=Work(report=seen.append))
    assert seen[-1] == pytest.approx(1.0)
    assert all(f < 1.0 for f in seen[:-1])            # not done before the last game
    # the plans are 6,000 deals of a larger run: the games report most of the way
    assert sum(f > 0.5 for f in seen) > 10


@pytest.mark.parametrize(("game", "hand"), [("pepper", TOP_SIX), ("pitch", "AS KS QS JS 10S 9S")])
def test_work_in_steps_gives_the_same_answer(game, hand):
    """A run in steps (progress reported, a stop checked between steps) plays
    the same deals as one call: the same table, and progress ends at 1."""
    from simkit.runs.batches import Work
    mod = A if game == "pepper" else PA
    seen = []
    whole = mod.advice_json(mod.advise(hand, samples=5_000, seed=3))
    stepped = mod.advice_json(mod.advise(hand, samples=5_000, seed=3,
                                         work=Work(report=seen.append)))
    assert stepped == whole
    assert len(seen) > 8
    assert seen == sorted(seen)
    assert seen[-1] == pytest.approx(1.0)


def test_a_stopped_run_raises_cancelled():
    import threading

    from simkit.runs.batches import Cancelled, Work
    stop = threading.Event()
    work = Work(report=lambda f: stop.set() if f > 0.1 else None, stop=stop)
    with pytest.raises(Cancelled):
        A.advise(TOP_SIX, samples=50_000, work=work)
    assert 0.1 < work.done / work.total < 1


# --- the advice in words, and one way to write money -------------------------------------

def test_money_is_written_one_way():
    assert advice.money(0.088) == "+$0.09"
    assert advice.money(-5.351) == "-$5.35"
    assert advice.money(3) == "+$3.00"
    assert advice.money(-0.001) == advice.money(0.0) == "$0.00"       # no "-$0.00"
    assert advice.money(0.0123, 3) == "+$0.012"
    assert advice.points(1.0) == "+1.0 point"
    assert advice.points(-3.64) == "-3.6 points"


def test_the_advice_says_in_words_what_to_do_then_the_numbers():
    """Issue 57: "Bid Kubwa: it wins the game about 2 times in 100 more often than
    bidding 5" comes first; the chances in the numbers are written as the table
    writes them (45.6%, not 45.55%)."""
    win = advice.win_measure()
    assert advice.says("kubwa", "5", 0.0233, 0.0309, True, win) == \
        "Bid Kubwa: it wins the game about 2 times in 100 more often than bidding 5"
    assert advice.says("pass", "3", 0.31, 0.5, True, A.EV_MEASURE) == \
        "Pass: it scores about 3 points more every 10 hands than bidding 3"
    assert advice.says("2", "moon", 1.5, 1.6, True, PA.EV_MEASURE) == \
        "Bid 2: it earns about $1.50 a hand more than shooting the moon"
    close = advice.says("kubwa", "ndogo", 0.004, 0.02, False, win)
    assert close.startswith("Bid Kubwa or bid Ndogo: too close to call. Bidding Kubwa wins "
                            "the game less than 1 time in 100 more often than bidding Ndogo")
    assert close.endswith("but it may be less than 1 percentage point (the luck of the deals)")
    assert win.fmt(0.4555) == "45.6%"
    rng = np.random.default_rng(3)
    n = 50_000
    base = rng.normal(0, 1, n)
    plans = {"pass": (0, _outcome(base - 0.5)), "5": (5, _outcome(base)),
             "kubwa": (9, _outcome(base + 0.8))}
    v = _verdict(plans, A.EV_MEASURE)
    assert v.clear
    assert v.recommended == "kubwa"
    assert v.says == "Bid Kubwa: it scores about 8 points more every 10 hands than bidding 5"
    assert v.reason.startswith("EV +0.80 points vs +0.00 points for 5")
    assert "+0.80 points [+0.80 points, +0.80 points]" in v.reason


def test_the_cli_and_the_json_say_the_advice_in_words(capsys):
    d = PA.advice_json(PA.advise(["AS", "KS", "5D", "3C", "9H", "2S"], players=6,
                                 samples=400, seed=1))
    assert d["says"].split(":")[0] in {"Pass", "Bid 2", "Bid 3", "Bid 4", "Shoot the moon"} \
        or "too close to call" in d["says"]
    assert not re.search(r"[0-9] \$", d["reason"])          # never "+0.088 $"
    assert re.search(r"[+-]\$[0-9]+\.[0-9]{2}\b", d["reason"])
    assert "points for them" in d["reason"]                 # the unit named
    text = PA.format_advice(PA.advise(["AS", "KS", "5D", "3C", "9H", "2S"], players=6,
                                      samples=400, seed=1))
    assert f"advice: {d['says']}." in text
