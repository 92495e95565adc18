"""The Pitch payouts study on small seeded runs: its tables, exact money
identities, and its findings (what every study satisfies, determinism and the
report among it, is checked in test_studies.py)."""

from __future__ import annotations

import copy
import re

import numpy as np
import pandas as pd
import pytest

from analyses import pitch_payouts as pp
from simkit.pitch import api

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

SEED = 7
HANDS = 3000
TINY = 20                      # the study contract's run far too small (test_studies.py)
TABLES = {"money_per_hand", "money_per_session", "drop_in_sessions", "aggression", "moon",
          "bids"}

# (estimate, low, high) column triples of each table
INTERVALS = {
    "money_per_hand": [("money", "ci_low", "ci_high"),
                       ("pitch_rate", "pitch_ci_low", "pitch_ci_high")],
    "money_per_session": [("money", "ci_low", "ci_high"),
                          ("p_loss", "loss_ci_low", "loss_ci_high")],
    "drop_in_sessions": [("money", "ci_low", "ci_high"), ("p_loss", "loss_ci_low", "loss_ci_high"),
                         ("money_per_hand", "per_hand_ci_low", "per_hand_ci_high")],
    "aggression": [("money", "ci_low", "ci_high"), ("diff", "diff_ci_low", "diff_ci_high"),
                   ("pitch_rate", "pitch_ci_low", "pitch_ci_high"),
                   ("made_rate", "made_ci_low", "made_ci_high")],
    "moon": [("money", "ci_low", "ci_high"), ("per_1000", "per_1000_ci_low", "per_1000_ci_high"),
             ("success_rate", "success_ci_low", "success_ci_high"),
             ("diff", "diff_ci_low", "diff_ci_high"),
             ("money_per_bid", "per_bid_ci_low", "per_bid_ci_high"),
             ("gain_per_bid", "gain_ci_low", "gain_ci_high")],
    "bids": [("rate", "ci_low", "ci_high"),
             ("pitcher_points", "pitcher_points_ci_low", "pitcher_points_ci_high"),
             ("pitcher_score", "pitcher_score_ci_low", "pitcher_score_ci_high"),
             ("pitcher_money", "pitcher_money_ci_low", "pitcher_money_ci_high")],
}


@pytest.fixture(scope="module")
def result(run_study):
    return run_study(pp.NAME, HANDS, SEED)


@pytest.fixture(scope="module")
def tables(result):
    return result.tables


def test_shape(result):
    assert pp.NAME == "pitch-payouts"
    assert set(result.tables) == TABLES
    assert set(result.figures) == {"money_per_hand", "money_per_session", "aggression", "moon",
                                   "bids"}
    prov = result.provenance
    assert prov["hands_per_table"] == HANDS
    assert prov["sessions_per_table"] == pp.sessions_for(HANDS)


@pytest.mark.parametrize("table", sorted(INTERVALS))
def test_intervals_contain_estimates(tables, table, assert_intervals):
    df = tables[table]
    for est, lo, hi in INTERVALS[table]:
        if table == "moon" and df[lo].isna().all():
            # a moon rule that bids rarely (the default moon_rule=sure) may bid no moon
            # at all in the small test tables
            assert (df["moon_bids"] == 0).all(), (table, est)
            continue
        assert_intervals(df, est, lo, hi)


def test_sizes(tables):
    mh = tables["money_per_hand"]
    assert sorted(mh["players"].unique()) == list(pp.PLAYERS)
    for p, g in mh.groupby("players"):
        assert list(g["seat"]) == list(range(1, p + 1))
        assert g["seat_name"].iloc[-1] == "dealer"
    assert (mh["hands"] == HANDS).all()
    # forced dealer: no hand is thrown in, so exactly one seat pitches every hand
    assert (mh.groupby("players")["pitched"].sum() == HANDS).all()

    ms = tables["money_per_session"]
    assert (ms["sessions"] == pp.sessions_for(HANDS)).all()
    assert (ms.groupby("players").size() == pd.Series({p: p for p in pp.PLAYERS})).all()

    di = tables["drop_in_sessions"].set_index("group")
    starters = [f"starter, seat {k}" for k in range(1, pp.STUDY_PLAYERS + 1)]
    assert (di.loc[starters, "players"] == pp.sessions_for(HANDS)).all()
    assert di.loc["all starters", "players"] == pp.STUDY_PLAYERS * pp.sessions_for(HANDS)

    ag = tables["aggression"]
    assert list(ag["aggression"]) == list(pp.AGGRESSION)
    assert (ag["hands"] == HANDS).all()
    mo = tables["moon"]
    assert list(zip(mo["moon_rule"], mo["moon_trumps"], mo["moon_run"])) == \
        [m[:3] for m in pp.MOON_SETTINGS]
    assert (mo["hands"] == HANDS).all()

    bi = tables["bids"]
    assert list(bi["bid"].unique()) == ["2", "3", "4", "moon"]
    assert (bi.groupby("players")["hands"].sum() == HANDS).all()
    assert np.allclose(bi.groupby("players")["share"].sum(), 1.0)
    assert (bi["made"] <= bi["hands"]).all()
    assert (bi["stuck"] <= bi["hands"]).all()


def test_money_sums_to_zero(tables):
    """Exact: every hand's and every session's money sums to zero over the players."""
    mh = tables["money_per_hand"]
    assert np.abs(mh.groupby("players")["money"].sum()).max() < 1e-9
    ms = tables["money_per_session"]
    assert np.abs(ms.groupby("players")["money"].sum()).max() < 1e-9
    di = tables["drop_in_sessions"].set_index("group")
    total = sum(di.loc[g, "money"] * di.loc[g, "players"] for g in ("all starters", "joined later")
                if di.loc[g, "players"] > 0)
    assert abs(total) < 1e-6
    # two players: each hand one wins exactly what the other loses
    two = mh[mh["players"] == 2].set_index("seat")
    assert two.loc[1, "money"] == pytest.approx(-two.loc[2, "money"], abs=1e-12)
    assert two.loc[1, "money_sd"] == pytest.approx(two.loc[2, "money_sd"], rel=1e-9)
    assert two.loc[1, "pitch_rate"] + two.loc[2, "pitch_rate"] == pytest.approx(1.0)


def test_exact_rows(tables):
    ag = tables["aggression"].set_index("aggression")
    zero = ag.loc[0.0]
    assert zero["diff"] == 0
    assert zero["diff_ci_low"] == zero["diff_ci_high"] == 0
    mo = tables["moon"]
    never = mo.iloc[0]
    assert (never["moon_rule"], never["moon_trumps"], never["moon_run"]) == ("run", 6, 7)
    assert never["moon_bids"] == 0
    assert never["diff"] == 0
    assert np.isnan(never["success_rate"])
    # the aggression-0 row and the default-moon row are the same all-heuristic table
    default = mo[mo["setting"] == "default"].iloc[0]
    assert default["money"] == ag.loc[0.0, "money"]
    four = tables["money_per_hand"]
    assert ag.loc[0.0, "pitched"] == pytest.approx(HANDS * ag.loc[0.0, "pitch_rate"])
    # 20 hands: with 2, 4 or 5 players every seat deals equally often in a session
    ms = tables["money_per_session"]
    assert np.abs(ms[ms["players"].isin([2, 4, 5])]["from_hands"]).max() < 1e-9
    implied = pp._from_hands(four, 3, 20)
    m3 = four[four["players"] == 3]["money"].to_numpy()
    # 20 = 6 * 3 + 2: seat k sits once more at seats k and k - 1 than at the third
    assert implied == pytest.approx([6 * m3.sum() + m3[0] + m3[2], 6 * m3.sum() + m3[1] + m3[0],
                                     6 * m3.sum() + m3[2] + m3[1]])


@pytest.mark.parametrize("players", [2, 4, 8])
def test_forced_moon_money(players):
    """A player who bids the moon on any ace (the old moon_rule=run with moon_trumps=1,
    moon_run=1): a made moon
    pays (players - 1) dollars plus 10 cents for each of its 4 points above the average."""
    spec = ["heuristic:moon_rule=run,moon_trumps=1,moon_run=1"] + ["heuristic"] * (players - 1)
    df = api.simulate(4000, players=players, policy=spec, seed=SEED)
    moon = df[(df["contract"] == 5) & (df["pitcher"] == 0)]
    made, failed = moon[moon["made"]], moon[~moon["made"]]
    assert len(made) > 0
    assert len(failed) > 0
    assert np.allclose(made["money_0"], (players - 1) * (1 + 0.4 / players), atol=1e-12)
    assert (made["tricks_0"] == 6).all()
    assert (made["score_0"] == 4).all()
    assert (failed["score_0"] == -4).all()
    # the study's bookkeeping of seat 0 agrees with the frame
    t = pp._play(players, spec, 4000, SEED, None, False, keep=True)
    assert t.s0["moon_bids"] == len(moon)
    assert t.s0["moons_made"] == len(made)
    assert np.array_equal(t.money0, df["money_0"].to_numpy())


def test_summary_comes_from_tables(result):
    tables = result.tables
    assert 4 <= len(result.summary) <= 6
    # the seat sentence names the 4-player table's best seat and its value
    four = tables["money_per_hand"].query("players == 4")
    best = four.loc[four["money"].idxmax()]
    text = pp.cents(best["money"], best["ci_low"], best["ci_high"], best["hands"])
    assert text in result.summary[0]
    # change the table and the sentence follows
    changed = copy.deepcopy(tables)
    mh = changed["money_per_hand"]
    row = mh.index[(mh["players"] == 4) & (mh["seat"] == 2)][0]
    mh.loc[row, ["money", "ci_low", "ci_high"]] = [0.5, 0.49, 0.51]
    lines = pp.findings(changed)
    assert "seat 2 gains most, +50 cents (95% CI +49 to +51, n=3,000)" in lines[0]
    assert lines[1:] == result.summary[1:]
    # every amount in the aggression sentence is a (rounded) difference from its table
    ag = tables["aggression"]
    line = next(s for s in result.summary if "ggression" in s)
    found = re.findall(r"([+\u2212]\d+\.\d+) cents \(95% CI ([+\u2212]\d+\.\d+) to "
                       r"([+\u2212]\d+\.\d+)", line)
    assert found
    for text in found:
        est, lo, hi = (float(x.replace("\u2212", "-")) for x in text)
        k = len(text[0].split(".")[1])
        hits = ag[(np.round(100 * ag["diff"], k) == est)
                  & (np.round(100 * ag["diff_ci_low"], k) == lo)
                  & (np.round(100 * ag["diff_ci_high"], k) == hi)]
        assert len(hits) == 1, text
    # the bid sentence quotes the 4-player success rates
    bids = tables["bids"].query("players == 4 and hands > 0")
    for r in bids.itertuples():
        assert pp.percent(r.rate, r.ci_low, r.ci_high, r.hands) in result.summary[-1]


def test_tiny_run_works(run_study):
    """A run far too small to see a moon bid still gives every sentence, on the
    fewest sessions."""
    res = run_study(pp.NAME, TINY, SEED)
    assert len(res.summary) >= 4
    assert res.provenance["sessions_per_table"] == pp.MIN_SESSIONS
