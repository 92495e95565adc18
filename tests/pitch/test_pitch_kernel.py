"""Properties and exact values of the Pitch kernel through its API
(simkit/pitch/api.py, simkit/pitch/kernel.py) against seeds/pitch.md.

Card-for-card agreement with the reference engine is in
test_pitch_differential.py; here: reproducibility (threads, batches, start
offsets), invariants over many hands and sessions, deal probabilities against
their exact values, forced outcomes of fixed hands and the advisor, and bad
input.  Statistical checks run at fixed seeds with the tolerance stated next
to each.
"""

from __future__ import annotations

import json
from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from simkit.base.errors import InputError
from simkit.pitch import api
from simkit.pitch.advise import advice_json, advise
from simkit.pitch.rules import DECK, PRESETS
from simkit.runs.batches import max_threads

SEED = 20261129
PLAYERS = tuple(range(2, 9))
MIXED = ["random", "heuristic:aggression=1", "heuristic", "random",
         "heuristic:moon_trumps=4,moon_run=3", "heuristic", "random", "heuristic:aggression=-1"]


def mixed(players):
    return MIXED[:players]


needs_two_threads = pytest.mark.skipif(max_threads() < 2,
                                       reason="numba's thread pool has a single thread")


# --- reproducibility --------------------------------------------------------

@needs_two_threads
@pytest.mark.parametrize("players", [  # quick tier: the first; full: all
    p if i == 0 else pytest.param(p, marks=pytest.mark.slow)
    for i, p in enumerate([2, 5, 8])])
def test_hands_and_sessions_same_on_one_and_two_threads(players):
    kw = {"players": players, "rules": "redeal", "policy": mixed(players), "seed": SEED}
    a = api.simulate(30_000, threads=1, **kw)
    b = api.simulate(30_000, threads=2, **kw)
    pd.testing.assert_frame_equal(a, b)
    kw["rules"] = {"leave": 0.1, "join": 0.1}
    a = api.simulate_sessions(3_000, threads=1, **kw)
    b = api.simulate_sessions(3_000, threads=2, **kw)
    pd.testing.assert_frame_equal(a, b)


def test_batches_and_start_offsets_do_not_change_hands():
    whole = api.simulate(20_000, seed=SEED, policy=mixed(4))
    parts = pd.concat(api.iter_hands(20_000, seed=SEED, policy=mixed(4), batch=3_001),
                      ignore_index=True)
    pd.testing.assert_frame_equal(whole, parts)
    tail = api.simulate(5_000, seed=SEED, policy=mixed(4), start=15_000)
    pd.testing.assert_frame_equal(whole.iloc[15_000:].reset_index(drop=True), tail)
    s = api.simulate_sessions(400, seed=SEED)
    t = api.simulate_sessions(100, seed=SEED, start=300)
    pd.testing.assert_frame_equal(s[s["session"] >= 300].reset_index(drop=True), t)
    assert not api.simulate(1_000, seed=SEED + 1).equals(whole.iloc[:1_000])


# --- invariants ---------------------------------------------------------------

@pytest.mark.parametrize("players", [  # quick tier: the first; full: all
    p if i == 0 else pytest.param(p, marks=pytest.mark.slow)
    for i, p in enumerate(PLAYERS)])
def test_hand_invariants_every_preset(players):
    for preset in PRESETS:
        for policy in ("heuristic", mixed(players)):
            df = api.simulate(4_000, players=players, rules=preset, policy=policy, seed=SEED)
            N = players
            played = df["pitcher"] >= 0
            tricks = df[[f"tricks_{s}" for s in range(N)]].sum(axis=1)
            assert (tricks[played] == 6).all()
            assert (tricks[~played] == 0).all()
            points = df[[f"points_{s}" for s in range(N)]].to_numpy()
            total = points.sum(axis=1)
            assert (points >= 0).all()
            assert (points <= 4).all()
            if PRESETS[preset].get("game_tie") != "all":
                assert (total <= 4).all()
            # High and Low are always awarded in a played hand; Jack only when dealt
            assert (df.loc[played, "high"] >= 0).all()
            assert (df.loc[played, "low"] >= 0).all()
            assert (total[played] >= 2).all()
            gp = df[[f"game_points_{s}" for s in range(N)]].sum(axis=1)
            assert (gp <= 80).all()
            assert ((df["game_winners"] == 0) | played).all()
            # scores: others score their points; the pitcher per seeds/pitch.md 5
            rows = np.flatnonzero(played)
            p = df["pitcher"].to_numpy()[rows]
            scores = df[[f"score_{s}" for s in range(N)]].to_numpy()[rows]
            pts = points[rows]
            others = np.ones_like(scores, bool)
            others[np.arange(len(rows)), p] = False
            assert (scores[others] == pts[others]).all()
            own = scores[np.arange(len(rows)), p]
            contract = df["contract"].to_numpy()[rows]
            made = df["made"].to_numpy()[rows]
            num = contract < 5
            assert (own[num & made] == pts[np.arange(len(rows)), p][num & made]).all()
            assert (own[num & ~made] == -contract[num & ~made]).all()
            # money sums to zero in every hand
            money = df[[f"money_{s}" for s in range(N)]].to_numpy()
            assert np.abs(money.sum(axis=1)).max() < 1e-9
            if PRESETS[preset].get("all_pass") == "redeal":
                assert (df.loc[~played, "contract"] == 0).all()
            else:
                assert played.all()


def test_no_jack_point_without_the_jack_dealt():
    """With 2 players 12 of 52 cards are dealt: the jack of trumps is often not
    dealt, and then nobody wins the Jack point (seeds/pitch.md 4)."""
    df = api.simulate(20_000, players=2, seed=SEED)
    trace = api.trace_hands(api.resolve_rules(None, 2), None, SEED, 0, 20_000)
    dealt = trace["deal"][:, 0] | trace["deal"][:, 1]
    trump = df["trump"].cat.codes.to_numpy().astype(np.int64)
    jack_dealt = (dealt >> (13 * trump + 9)) & 1 == 1
    assert (~jack_dealt).sum() > 5_000
    assert (df["jack"].to_numpy()[~jack_dealt] == -1).all()
    assert (df["jack"].to_numpy()[jack_dealt] >= 0).all()


@pytest.mark.parametrize("rules", [{}, {"leave": 0.15, "join": 0.2},
                                   {"target": 11, "session_hands": 100, "join": 0.3}])
def test_sessions_are_zero_sum_and_consistent(rules):
    df = api.simulate_sessions(3_000, players=4, rules=rules, policy=mixed(4), seed=SEED)
    g = df.groupby("session")
    assert g["money"].sum().abs().max() < 1e-9
    assert (g["player"].count() >= 4).all()
    starters = df[df["joined"] == 0]
    assert (g["seat"].apply(lambda s: sorted(s[s > 0])) .map(tuple) == (1, 2, 3, 4)).all()
    assert (starters["seat"] > 0).all()
    assert (df.loc[df["joined"] > 0, "seat"] == 0).all()
    assert (df["hands"] <= df["session_hands"]).all()
    assert (df["made"] <= df["pitched"]).all()
    if rules.get("target"):
        ended = df.groupby("session")[["score", "ended_by_target"]].agg(
            {"score": "max", "ended_by_target": "first"})
        assert (ended.loc[ended["ended_by_target"], "score"] >= 11).all()
    else:
        assert (df["session_hands"] == 20).all()


# --- exact values -----------------------------------------------------------------

@pytest.mark.parametrize("players", PLAYERS)
def test_a_card_is_dealt_with_chance_6n_over_52(players):
    """Each card is dealt with chance 6N/52 and lands in a given seat with chance
    6/52 (seed fixed, 20,000 deals: chi-square p > 1e-4 on the 52 counts, and
    every card's rate within 5 standard errors of 6N/52)."""
    n = 20_000
    tr = api.trace_hands(api.resolve_rules(None, players), "random", SEED, 0, n)
    deal = tr["deal"][:, :players]
    bits = ((deal[:, :, None] >> np.arange(52)) & 1).astype(np.int64)   # hand, seat, card
    dealt = bits.sum(axis=(0, 1))
    p = 6 * players / 52
    assert np.abs(dealt / n - p).max() < 5 * np.sqrt(p * (1 - p) / n)
    seat0 = bits[:, 0, :].sum(axis=0)
    assert stats.chisquare(seat0).pvalue > 1e-4
    assert (bits.sum(axis=2) == 6).all()
    assert (bits.sum(axis=1) <= 1).all()


def test_chance_of_holding_the_ace_of_a_suit_with_k_of_it():
    """Two players: seat 0 holds exactly k spades with the ace of spades among them
    with chance C(12,k-1)C(39,6-k)/C(52,6), and k spades without it with chance
    C(12,k)C(39,6-k)/C(52,6) (so the ace is held in k/13 of the hands with k
    spades; 20,000 deals, seed fixed, chi-square on the 14 cells p > 1e-4)."""
    n = 20_000
    tr = api.trace_hands(api.resolve_rules(None, 2), None, SEED + 5, 0, n)
    first_spade = DECK.parse("2S")          # spades are ids 2S .. AS, one bit each
    ace = DECK.parse("AS")
    hands = [int(m) for m in tr["deal"][:, 0]]
    spades = np.array([bin(m >> first_spade).count("1") for m in hands])
    has_ace = np.array([(m >> ace) & 1 for m in hands])
    observed = np.bincount(2 * spades + has_ace, minlength=14)       # cell 2k + ace held
    expected = np.zeros(14)
    for k in range(7):
        expected[2 * k] = comb(12, k) * comb(39, 6 - k)
        expected[2 * k + 1] = comb(12, k - 1) * comb(39, 6 - k) if k else 0
    expected *= n / comb(52, 6)
    assert expected.sum() == pytest.approx(n)
    keep = expected > 5                      # small cells pooled into one
    obs = np.r_[observed[keep], observed[~keep].sum()]
    exp = np.r_[expected[keep], expected[~keep].sum()]
    assert stats.chisquare(obs, exp).pvalue > 1e-4


@pytest.mark.parametrize("players", PLAYERS)
def test_top_six_spades_shoot_the_moon_every_time(players):
    ev = api.evaluate_hand("AS KS QS JS TS 9S", players=players, samples=3_000, seed=SEED)
    moon = ev.bids.set_index("bid").loc["moon"]
    assert moon["made"] == 3_000
    assert moon["points"] == 4
    assert moon["money"] == pytest.approx(0.1 * (4 - 4 / players) + (players - 1))
    assert ev.trump == "S"


def test_advisor_recommends_the_moon_and_passes_on_rags():
    a = advise("AS KS QS JS TS 9S", samples=5_000, seed=SEED)
    assert a.recommended == "moon"
    j = advice_json(a)
    assert [b["bid"] for b in j["bids"]] == ["pass", "2", "3", "4", "moon"]
    assert set(j) == {"game", "players", "hand", "seat", "dealer", "samples", "bids",
                      "recommended", "reason", "close", "close_to", "mode", "policies", "rules",
                      "value", "threshold", "identical", "decided_by", "decides", "says"}
    assert j["game"] == "pitch"
    assert j["seat"] == 1
    assert j["hand"][4] == "10S"
    rags = advise("2C 3D 4H 5S 7C 8D", samples=5_000, seed=SEED)
    assert rags.recommended == "pass"
    made = rags.bids.set_index("bid")["p_make"]
    assert made["4"] < 0.01
    assert made["moon"] == 0


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"hand": "AS KS QS"}, ["6 cards", "3"]),
    ({"hand": "AS KS QS JS TS XX"}, ["XX"]),
    ({"hand": "AS AS QS JS TS 9S"}, ["duplicate", "AS"]),
    ({"hand": "AS KS QS JS TS 9S", "players": 9}, ["9", "2 to 8"]),
    ({"hand": "AS KS QS JS TS 9S", "seat": 4}, ["seat", "4"]),
    ({"hand": "AS KS QS JS TS 9S", "dealer": -1}, ["dealer", "-1"]),
    ({"hand": "AS KS QS JS TS 9S", "rules": {"low": "held"}}, ["held", "low"]),
])
def test_evaluate_hand_rejects_bad_input(kwargs, words):
    with pytest.raises(InputError) as e:
        api.evaluate_hand(samples=100, **kwargs)
    for w in words:
        assert w in str(e.value)


# --- command line -------------------------------------------------------------------

@pytest.mark.parametrize(("argv", "words"), [
    (["simulate", "pitch", "--players", "9"], ["9", "players"]),
    (["simulate", "pitch", "--players", "1"], ["1", "players"]),
    (["simulate", "pitch", "--set", "low=held"], ["held", "low"]),
    (["simulate", "pitch", "--set", "leave=2"], ["2", "leave"]),
    (["simulate", "pitch", "--set", "moon_made=-1"], ["-1", "moon_made"]),
    (["simulate", "pitch", "--preset", "kubwa-triple"], ["kubwa-triple"]),
    (["simulate", "pitch", "--policy", "heuristic:moon_run=9"], ["9", "moon_run"]),
    (["advise", "pitch", "--hand", "AS KS QS JS TS"], ["6 cards"]),
    (["advise", "pitch", "--hand", "AS KS QS JS TS 1S"], ["1S"]),
    (["advise", "pitch", "--hand", "AS KS QS JS TS 9S", "--players", "9"], ["9"]),
    (["advise", "pitch", "--hand", "AS KS QS JS TS 9S", "--score", "3:4"], ["--score"]),
    (["compare", "pitch", "--variant", "A:", "--variant", "B:low=sideways"], ["sideways"]),
])
def test_bad_pitch_input_is_one_line_exit_2_and_writes_nothing(workdir, cli, argv, words):
    cli.refused(*argv, *(["--out", "x"] if argv[0] == "simulate" else []), names=words)


@pytest.mark.slow
def test_cli_simulate_sessions_advise_and_rules(workdir, cli):
    code, out, err = cli("simulate", "pitch", "--hands", "30000", "--players", "5",
                         "--no-progress", "--out", "h")
    assert code == 0, err
    assert "30,000 hands" in out
    assert "moon" in out
    from simkit.runs.store import read_run
    df, man = read_run(workdir / "h")
    assert man["game"] == "pitch"
    assert len(df) == 30_000
    pd.testing.assert_frame_equal(df, api.simulate(30_000, players=5), check_categorical=False)
    code, out, err = cli("simulate", "pitch", "--games", "500", "--preset", "drop-in",
                         "--no-progress")
    assert code == 0, err
    assert "500 sessions" in out
    assert "joined" in out
    code, out, err = cli("simulate", "pitch", "--hands", "20000", "--aggregate",
                         "--no-progress")
    assert code == 0, err
    code, out, err = cli("advise", "pitch", "--hand", "AS KS QS JS TS 9S",
                         "--samples", "2000", "--json")
    assert code == 0, err
    assert json.loads(out)["recommended"] == "moon"
    code, out, err = cli("rules", "pitch")
    assert code == 0
    for key in ("low", "auction", "steal", "all_pass", "stuck_bid", "moon_needs", "moon_made",
                "game_tie", "session_hands", "leave", "join", "moon_trumps", *PRESETS):
        assert key in out, key
