"""The Pepper studies on small seeded runs: the bid study's tables (documented
columns, rates in [0, 1], every interval around its estimate, totals that
agree) and findings, the Kubwa study's break-even and tables (what every
study satisfies, determinism and the report among it, is checked in
test_studies.py; the variant studies in test_variant_studies.py)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from analyses import pepper_bids, pepper_kubwa
from simkit.pepper.rules import PepperRules

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

SEED = 5
KUBWA_HANDS = 30_000
BIDS_HANDS, BIDS_SEED = 20_000, 11

COLUMNS = {
    "overview": ["players", "policy", "hands", "thrown_in", "contracts", "no_trump", "made",
                 "rate", "ci_low", "ci_high"],
    "success_by_bid": ["players", "policy", "bid", "level", "hands", "share", "made", "rate",
                       "ci_low", "ci_high", "bidders_points", "bidders_ci_low",
                       "bidders_ci_high", "opponents_points", "opponents_ci_low",
                       "opponents_ci_high"],
    "success_by_feature": ["players", "policy", "feature", "value", "bid", "level", "hands",
                           "made", "rate", "ci_low", "ci_high"],
    "success_by_seat": ["players", "policy", "seat", "bid", "level", "hands", "made", "rate",
                        "ci_low", "ci_high"],
    "heatmap_trumps_bowers": ["players", "policy", "trumps", "bowers", "hands", "made", "rate",
                              "ci_low", "ci_high"],
}
BIDS = {str(i) for i in range(1, 8)} | {"ndogo", "kubwa"}


@pytest.fixture(scope="module")
def bids(run_study):
    """A copy of the bid study's tables, and its findings."""
    result = run_study(pepper_bids.NAME, BIDS_HANDS, BIDS_SEED)
    return {k: v.copy() for k, v in result.tables.items()}, result.summary


@pytest.fixture(scope="module")
def kubwa(run_study):
    return run_study(pepper_kubwa.NAME, KUBWA_HANDS, SEED)


# ---------------------------------------------------------------- the bid study

def test_tables_have_the_documented_columns(bids):
    tables, _ = bids
    assert list(tables) == list(COLUMNS)
    for name, cols in COLUMNS.items():
        assert list(tables[name].columns) == cols, name
        assert len(tables[name]) > 0, name
        for col in cols:
            assert f"{col}" in pepper_bids.__doc__, f"column {col} of {name} is not documented"
    for name in COLUMNS:
        t = tables[name]
        assert set(t["players"]) == {2, 3, 4}
        assert set(t["policy"]) == set(pepper_bids.POLICIES)


def test_rates_are_proportions_inside_their_intervals(bids):
    tables, _ = bids
    for name, t in tables.items():
        assert (t["made"] <= t[("contracts" if name == "overview" else "hands")]).all()
        assert t["rate"].between(0, 1).all(), name
        assert (t["ci_low"] <= t["rate"]).all(), name
        assert (t["rate"] <= t["ci_high"]).all(), name
        assert (t["ci_low"] >= 0).all(), name
        assert (t["ci_high"] <= 1).all(), name
        np.testing.assert_allclose(
            t["rate"], t["made"] / t["contracts" if name == "overview" else "hands"])
    sb = tables["success_by_bid"]
    for who in ("bidders", "opponents"):
        ok = sb[f"{who}_ci_low"].notna()
        assert (sb.loc[ok, f"{who}_ci_low"] <= sb.loc[ok, f"{who}_points"] + 1e-12).all()
        assert (sb.loc[ok, f"{who}_points"] <= sb.loc[ok, f"{who}_ci_high"] + 1e-12).all()
    assert sb["share"].between(0, 1).all()


def test_tables_add_up(bids):
    tables, _ = bids
    ov = tables["overview"].set_index(["players", "policy"])
    assert (ov["hands"] == BIDS_HANDS).all()
    assert (ov["thrown_in"] + ov["contracts"] == ov["hands"]).all()
    sb = tables["success_by_bid"]
    by_bid = sb.groupby(["players", "policy"])[["hands", "made"]].sum()
    assert (by_bid["hands"] == ov["contracts"].reindex(by_bid.index)).all()
    assert (by_bid["made"] == ov["made"].reindex(by_bid.index)).all()
    shares = sb.groupby(["players", "policy"])["share"].sum()
    np.testing.assert_allclose(shares, (ov["contracts"] / ov["hands"]).reindex(shares.index))
    seats = tables["success_by_seat"].groupby(["players", "policy", "level"])["hands"].sum()
    assert seats.equals(sb.set_index(["players", "policy", "level"])["hands"].reindex(seats.index))
    suit = ov["contracts"] - ov["no_trump"]
    heat = tables["heatmap_trumps_bowers"].groupby(["players", "policy"])["hands"].sum()
    assert (heat == suit.reindex(heat.index)).all()
    sf = tables["success_by_feature"]
    assert (sf["hands"] >= pepper_bids.MIN_CELL).all()
    per_feature = sf.groupby(["players", "policy", "feature"])["hands"].sum()
    assert (per_feature <= suit.reindex(per_feature.droplevel("feature").index).to_numpy()).all()


def test_table_values_are_in_range(bids):
    tables, _ = bids
    for name in ("success_by_bid", "success_by_feature", "success_by_seat"):
        t = tables[name]
        assert set(t["bid"]) <= BIDS, name
    seat = tables["success_by_seat"]
    assert ((seat["seat"] >= 1) & (seat["seat"] <= seat["players"])).all()
    sf = tables["success_by_feature"]
    assert set(sf["feature"]) <= set(pepper_bids.FEATURES)
    limits = {"trumps": 7, "bowers": 2, "aces": 4, "voids": 3}
    assert (sf["value"] <= sf["feature"].map(limits)).all()
    heat = tables["heatmap_trumps_bowers"]
    assert (heat["bowers"] <= heat["trumps"]).all()
    assert (heat["trumps"] >= 1).all()


def test_summary_is_computed_from_the_tables(bids):
    tables, summary = bids
    assert 3 <= len(summary) <= 6
    sb = tables["success_by_bid"]
    top = sb[(sb["players"] == 4) & (sb["policy"] == pepper_bids.POLICIES[0])]
    top = top.loc[top["hands"].idxmax()]
    assert pepper_bids._pct(top["rate"], top["ci_low"], top["ci_high"], top["hands"],
                            " of the time") in summary[0]
    assert f"n={int(top['hands']):,}" in summary[0]


def test_provenance(run_study):
    prov = run_study(pepper_bids.NAME, BIDS_HANDS, BIDS_SEED).provenance
    assert prov["hands"] == 6 * BIDS_HANDS
    assert prov["hands_per_table"] == BIDS_HANDS
    assert set(prov["policies"]) == set(pepper_bids.POLICIES)
    assert set(prov["rules"]) == {2, 3, 4}


# ---------------------------------------------------------------- Kubwa and the variants

@pytest.mark.parametrize(("players", "kubwa_stake", "expected"), [
    (4, 2, Fraction(17, 23)), (3, 2, Fraction(23, 31)), (2, 2, Fraction(23, 31)),
    (4, 3, Fraction(23, 35)),
])
def test_break_even_is_the_closed_form(players, kubwa_stake, expected):
    """k T (2p - 1) = T - 1 + p  =>  p* = (kT + T - 1) / (2kT - 1); against Ndogo 1/2."""
    be = pepper_kubwa.break_even(players, kubwa_stake)
    assert be["vs_top_number"] == pytest.approx(float(expected), abs=1e-15)
    assert be["vs_ndogo"] == 0.5
    # at p*, bidding Kubwa and the top number bid are worth the same
    T, k, p = (6 if players == 4 else 8), kubwa_stake, be["vs_top_number"]
    assert k * T * (2 * p - 1) == pytest.approx(T - 1 + p)


def test_kubwa_tables(kubwa, assert_intervals):
    t = kubwa.tables
    assert list(t) == ["overview", "plans", "by_hand_class", "all_tricks", "all_tricks_strong",
                       "rule_of_thumb", "rule_of_thumb_searching", "preemption",
                       "win_chance_by_score"]
    ov = t["overview"]
    assert list(ov["players"]) == [4, 3, 2]
    assert ov["p_all_tricks"].between(0, 1).all()
    assert_intervals(ov, "p_all_tricks")
    assert (ov["deals"] == KUBWA_HANDS).all()
    assert (ov["strong_hands"] > 0).all()
    plans = t["plans"]
    for players in (4, 3, 2):
        p = plans[plans["players"] == players].set_index("bid")
        T = 6 if players == 4 else 8
        assert list(p.index) == ["pass", *map(str, range(1, T)), "ndogo", "kubwa", "policy"]
        # the first speaker's Kubwa ends the auction at once: it always holds the contract,
        # and its success rate is the overview's chance of every trick
        assert p.loc["kubwa", "p_contract"] == 1.0
        assert p.loc["kubwa", "p_thrown"] == 0
        assert p.loc["kubwa", "p_make"] == ov.set_index("players").loc[players, "p_all_tricks"]
        assert_intervals(p, "ev", "ev_low", "ev_high")
    cls = t["by_hand_class"]
    assert (cls["deals"] >= pepper_kubwa.MIN_CLASS).all()
    assert cls["p_all"].between(0, 1).all()
    assert_intervals(cls, "p_all")
    # the paired differences are the differences of the class means
    assert np.allclose(cls["ev_kubwa"] - cls["ev_policy"], cls["kubwa_vs_policy"], atol=1e-9)
    assert np.allclose(cls["ev_kubwa"] - cls["ev_best_other"], cls["kubwa_vs_best"], atol=1e-9)
    assert_intervals(cls, "kubwa_vs_best", "kubwa_vs_best_low", "kubwa_vs_best_high")
    assert not cls["best_other"].isin(["kubwa", "policy"]).any()
    thumbs = t["rule_of_thumb"]
    assert (thumbs.loc[thumbs["verdict"] == "bid Kubwa", "kubwa_vs_best_low"] > 0).all()
    pre = t["preemption"]
    assert "kubwa" not in set(pre["plan"])
    assert "pass" not in set(pre["plan"])
    assert pre["p_outbid"].between(0, 1).all()
    assert_intervals(pre, "p_outbid")
    ok = pre["outbid"] > 0
    assert np.allclose((pre["p_outbid"] * pre["cost_when_outbid"])[ok],
                       pre["preemption_value"][ok], atol=1e-9)
    wins = t["win_chance_by_score"]
    assert wins["p_win"].between(0, 1).all()
    assert_intervals(wins, "p_win")
    assert set(wins["state"]) == {s[0] for s in pepper_kubwa.STATES}
    assert "policy" in set(wins["plan"])
    assert "kubwa" in set(wins["plan"])
    assert any("heuristic policy" in line for line in kubwa.summary)


def test_kubwa_all_tricks_three_ways(kubwa, assert_intervals):
    """Heuristic, expert and the perfect-information bound: rates with their
    intervals, on the same deals."""
    t = kubwa.tables["all_tricks"]
    assert set(t["players"]) == {4, 3, 2}
    for name in ("heuristic", "bound", "expert"):
        ok = t[f"{name}_deals"] > 0
        assert t.loc[ok, f"p_{name}"].between(0, 1).all()
        assert_intervals(t[ok], f"p_{name}", f"{name}_low", f"{name}_high")
    # heuristic and bound on the same deals of each class; the expert on the strong ones
    assert (t["heuristic_deals"] == t["bound_deals"]).all()
    assert (t["bound_deals"] <= pepper_kubwa.BOUND_DEALS).all()
    assert (t.loc[~t["strong"], "expert_deals"] == 0).all()
    assert (t.loc[t["strong"], "expert_deals"] > 0).all()
    pooled = kubwa.tables["all_tricks_strong"].set_index("players")
    assert list(pooled.index) == [4, 3, 2]
    assert (pooled["deals"] <= pepper_kubwa.EXPERT_DEALS).all()
    assert (pooled["deals"] > 0).all()
    assert_intervals(pooled, "expert_gain", "gain_low", "gain_high")
    assert np.allclose(pooled["p_expert"] - pooled["p_heuristic"], pooled["expert_gain"])
    # against defenders who search, on the first DEFENCE_DEALS of the same deals
    assert (pooled["defence_deals"] == np.minimum(pooled["deals"],
                                                  pepper_kubwa.DEFENCE_DEALS)).all()
    assert_intervals(pooled, "searching_gain", "searching_gain_low", "searching_gain_high")
    assert_intervals(pooled, "defence_cost", "defence_cost_low", "defence_cost_high")
    assert np.allclose(pooled["p_expert_vs_expert"] - pooled["p_heuristic_vs_expert"],
                       pooled["searching_gain"])
    assert np.allclose(pooled["p_expert_vs_expert"] - pooled["p_expert_vs_heuristic"],
                       pooled["defence_cost"])
    # the rule of thumb for a player who searches: verdicts follow the intervals
    thumb = kubwa.tables["rule_of_thumb_searching"]
    for name in ("heuristic", "expert"):
        assert_intervals(thumb, f"p_{name}", f"{name}_low", f"{name}_high")
        above, below = thumb[f"{name}_low"] > thumb["break_even"], \
            thumb[f"{name}_high"] < thumb["break_even"]
        assert ((thumb[name] == "bid Kubwa") == above).all()
        assert ((thumb[name] == "bid the top number") == below).all()
    assert (thumb["differs"] == (thumb["heuristic"] != thumb["expert"])).all()
    assert thumb["deals"].between(pepper_kubwa.MIN_SEARCHED, pepper_kubwa.PER_CLASS).all()
    # every strong class of the by-class table has a row (it has at least MIN_CLASS deals)
    strong = t[t["strong"]]
    assert set(map(tuple, strong[["players", "hand_class"]].to_numpy())) <= \
        set(map(tuple, thumb[["players", "hand_class"]].to_numpy()))
    assert sum("rule of thumb for a player who searches" in line
               for line in kubwa.summary) == thumb["players"].nunique()
    searching = [line for line in kubwa.summary if "against defenders who search" in line]
    assert len(searching) == 3
    assert all("rule of thumb" in line for line in searching)
    assert any("strong hands" in line and "playing the expert" in line
               for line in kubwa.summary)
    assert "expert" in kubwa.provenance["policies"]


def test_kubwa_forced_hands_take_every_trick():
    """Deals where the first speaker holds the six top trumps (4 players) and
    bids Kubwa are made every time, whatever the others hold."""
    from simkit.pepper import api
    d = api.plan_deals(100_000, "kubwa", players=4, seed=SEED)
    assert (d["contract"] == 7).all()
    six = d[d["bidder_trumps"] == 6]
    assert len(six) > 0
    assert six["made"].all()


def test_rules_used_are_the_seed_defaults(kubwa):
    """The Kubwa study plays under the seed's rules, every rule at its rule-book
    default with only the player count set, and its provenance says so."""
    defaults = {f.name: f.default for f in dataclasses.fields(PepperRules)}
    for players in pepper_kubwa.PLAYERS:
        seed = {**defaults, "players": players}
        assert pepper_kubwa._rules(players).as_dict() == seed
        assert kubwa.provenance["rules"][players] == seed
