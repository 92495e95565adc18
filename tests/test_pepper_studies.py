"""The Kubwa and rule-variant studies on small seeded runs, their rendered
reports, and bad input to `report`, `advise` and `compare` on the command line."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from analyses import pepper_kubwa, pepper_variants
from simkit import report
from simkit.cli import main
from simkit.pepper.rules import make_rules

SEED = 5
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def kubwa():
    return pepper_kubwa.run(hands=30_000, seed=SEED)


@pytest.fixture(scope="module")
def variants():
    return pepper_variants.run(hands=20_000, seed=SEED)


def assert_intervals(df, est, lo="ci_low", hi="ci_high"):
    ok = df[lo].notna()
    assert (df.loc[ok, lo] <= df.loc[ok, est] + 1e-12).all()
    assert (df.loc[ok, est] <= df.loc[ok, hi] + 1e-12).all()


@pytest.mark.parametrize("players, kubwa_stake, expected", [
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


def test_kubwa_tables(kubwa):
    t = kubwa.tables
    assert list(t) == ["overview", "plans", "by_hand_class", "all_tricks", "all_tricks_strong",
                       "rule_of_thumb", "preemption", "win_chance_by_score"]
    ov = t["overview"]
    assert list(ov["players"]) == [4, 3, 2]
    assert ov["p_all_tricks"].between(0, 1).all()
    assert_intervals(ov, "p_all_tricks")
    assert (ov["deals"] == 30_000).all() and (ov["strong_hands"] > 0).all()
    plans = t["plans"]
    for players in (4, 3, 2):
        p = plans[plans["players"] == players].set_index("bid")
        T = 6 if players == 4 else 8
        assert list(p.index) == ["pass", *map(str, range(1, T)), "ndogo", "kubwa", "policy"]
        # the first speaker's Kubwa ends the auction at once: it always holds the contract,
        # and its success rate is the overview's chance of every trick
        assert p.loc["kubwa", "p_contract"] == 1.0 and p.loc["kubwa", "p_thrown"] == 0
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
    assert "kubwa" not in set(pre["plan"]) and "pass" not in set(pre["plan"])
    assert pre["p_outbid"].between(0, 1).all()
    assert_intervals(pre, "p_outbid")
    ok = pre["outbid"] > 0
    assert np.allclose((pre["p_outbid"] * pre["cost_when_outbid"])[ok],
                       pre["preemption_value"][ok], atol=1e-9)
    wins = t["win_chance_by_score"]
    assert wins["p_win"].between(0, 1).all()
    assert_intervals(wins, "p_win")
    assert set(wins["state"]) == {s[0] for s in pepper_kubwa.STATES}
    assert "policy" in set(wins["plan"]) and "kubwa" in set(wins["plan"])
    assert any("heuristic policy" in line for line in kubwa.summary)


def test_kubwa_all_tricks_three_ways(kubwa):
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
    assert (pooled["deals"] <= pepper_kubwa.EXPERT_DEALS).all() and (pooled["deals"] > 0).all()
    assert_intervals(pooled, "expert_gain", "gain_low", "gain_high")
    assert np.allclose(pooled["p_expert"] - pooled["p_heuristic"], pooled["expert_gain"])
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
    assert len(six) > 0 and six["made"].all()


def test_variant_tables(variants):
    diffs = variants.tables["differences"]
    for col in ("comparison", "policy", "metric", "a", "b", "diff", "ci_low", "ci_high",
                "p_value", "significant"):
        assert col in diffs
    assert_intervals(diffs, "diff")
    assert diffs["p_value"].between(0, 1).all()
    titles = set(diffs["comparison"])
    assert any("stick the dealer" in t for t in titles)
    assert any("one lap" in t for t in titles)
    # a cautious table throws hands in under redeal and never under stick-the-dealer
    cautious = diffs[(diffs["comparison"] == "stick the dealer vs redeal (cautious heuristic)")
                     & (diffs["metric"] == "thrown-in rate")].iloc[0]
    assert cautious["a"] > 0 and cautious["b"] == 0 and cautious["significant"]


@pytest.mark.parametrize("which", ["kubwa", "variants"])
def test_reports_render(which, kubwa, variants, tmp_path):
    result = {"kubwa": kubwa, "variants": variants}[which]
    page = report.render(result, tmp_path)
    html = page.read_text()
    images = re.findall(r'<img src="([^"]+)"', html)
    assert len(images) == len(result.figures) > 0
    for src in images:
        data = (page.parent / src).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 1000
    for name, table in result.tables.items():
        back = pd.read_csv(page.parent / f"{name}.csv")
        assert list(back.columns) == [str(c) for c in table.columns]
        assert len(back) == len(table)
    for line in result.summary:
        assert line.split(":")[0][:20] in html.replace("&#x27;", "'")


@pytest.mark.parametrize("argv, names", [
    (["report", "nosuch"], ["nosuch"]),
    (["report", "all", "--hands", "0"], ["0"]),
    (["report", "pepper-kubwa", "--out", "missing/dir/x"], ["missing"]),
    (["advise", "pepper", "--hand", "JH JD AH KH QH 8H"], ["8H"]),
    (["advise", "pepper", "--hand", "JH JD AH KH QH"], ["6 cards"]),
    (["advise", "pepper", "--hand", "JH JD AH KH QH JH"], ["duplicate"]),
    (["advise", "pepper", "--hand", "JH JD AH KH QH 9S", "--score", "x:y"], ["x:y"]),
    (["compare", "pepper", "--variant", "A:"], ["two"]),
    (["compare", "pepper", "--variant", "A:", "--variant", "B:auction=sideways"], ["sideways"]),
    (["compare", "pepper", "--variant", "A:", "--variant", "B:nokey=1"], ["nokey"]),
])
def test_bad_input_is_one_line_and_exit_2(argv, names, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simkit: error:")
    for n in names:
        assert n in lines[0]
    assert not any(tmp_path.iterdir())


def test_rules_used_are_the_seed_defaults(kubwa):
    assert kubwa.provenance["rules"][4] == make_rules(players=4).as_dict()
