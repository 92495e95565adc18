"""Rule-variant comparison (simkit/lab/compare.py) with Pepper's measures: variant
and sweep parsing, 2 to 8 variants, paired differences (exactly [0, 0] when a
rule never changes a deal, never wider than the independent intervals they
replace), Holm's correction, the JSON shape.  The other games' measures are
in test_compare_games.py, the designer's measures in test_design.py and
adapted players in test_adapt.py."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from simkit import games
from simkit.base import stats
from simkit.base.errors import InputError
from simkit.lab import compare as C

SMALL = {"hands": 50_000, "games": 500, "seed": 5}
# The default heuristic almost never passes a hand out (no thrown-in hand in
# 200,000); a cautious one throws in about 13% of 4-player hands.
CAUTIOUS = "heuristic:aggression=-3"
PEPPER = games.get("pepper")


def compare(variants, **kwargs):
    return C.compare("pepper", variants, C.CompareSettings(**kwargs))


@pytest.fixture(scope="module")
def stick_default():
    """Stick-the-dealer with the default players: nobody ever passes a hand out."""
    return compare(["A:", "B:all_pass=stick"], **SMALL)


@pytest.fixture(scope="module")
def stick():
    return compare(["redeal:", "stick:all_pass=stick"], policy=CAUTIOUS, skill_trace=False,
                   **SMALL)


@pytest.mark.parametrize(("text", "want"), [
    ("A:all_pass=stick,auction=one_lap", ("A", {"all_pass": "stick", "auction": "one_lap"})),
    ("A", ("A", {})), ("A:", ("A", {})), (" B : all_pass = stick ", ("B", {"all_pass": "stick"})),
    ("B:ndogo_stake=2,", ("B", {"ndogo_stake": "2"})),
])
def test_parse_variant(text, want):
    assert C.parse_variant(PEPPER, text) == want


@pytest.mark.parametrize(("text", "names"), [
    (":all_pass=stick", ["label"]), ("", ["label"]),
    ("all_pass=stick", ["label", "all_pass=stick"]),
    ("A B:all_pass=stick", ["label"]),
    ("A:nokey=1", ["nokey", "accepted keys"]), ("A:auction=sideways", ["sideways", "auction"]),
    ("A:auction", ["'auction'", "key=value"]), ("A:=3", ["key=value"]),
    ("A:target=0", ["target", "0"]), ("A:players=3", ["--players"]),
    ("A:auction=open,auction=one_lap", ["auction", "twice"]),
])
def test_parse_variant_errors(text, names):
    with pytest.raises(InputError) as e:
        C.parse_variant(PEPPER, text)
    msg = str(e.value)
    assert "\n" not in msg
    for n in names:
        assert n in msg, msg


def test_sweep_makes_one_variant_per_value():
    got = C.check_variants(PEPPER, [], "kubwa_stake=1,2,3,4")
    assert got == [(f"kubwa_stake={v}", {"kubwa_stake": str(v)}) for v in (1, 2, 3, 4)]
    # with a --variant first, it is the base and the sweep changes its rules
    got = C.check_variants(PEPPER, ["open:auction=one_lap"], "kubwa_stake=2,3")
    assert got == [("open", {"auction": "one_lap"}),
                   ("kubwa_stake=2", {"auction": "one_lap", "kubwa_stake": "2"}),
                   ("kubwa_stake=3", {"auction": "one_lap", "kubwa_stake": "3"})]


@pytest.mark.parametrize(("sweep", "match"), [
    ("kubwa_stake=3", "at least two values"), ("kubwa_stake", "KEY=V1,V2"),
    ("kubwa_stake=2,,3", "KEY=V1,V2"), ("kubwa_stake=2,2", "same value"),
    ("kubwa_stake=2,9", "kubwa_stake"), ("nokey=1,2", "nokey"),
])
def test_bad_sweeps(sweep, match):
    with pytest.raises(InputError, match=match):
        C.check_variants(PEPPER, [], sweep)


@pytest.mark.parametrize(("variants", "match"), [
    ([], "2 to 8 variants.*got 0"), (["A"], "got 1"), ("A", "got 1"), (None, "got 0"),
    ([f"V{i}:" for i in range(9)], "got 9"),
    (["A", "A:all_pass=stick"], "label 'A'"),
])
def test_two_to_eight_variants(variants, match):
    with pytest.raises(InputError, match=match):
        compare(variants, hands=10, games=1)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"players": 5}, "player count 5"), ({"hands": 0}, "--hands 0"),
    ({"games": -1}, "--games -1"), ({"seed": -1}, "seed -1"),
    ({"policy": "sloppy"}, "sloppy"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(InputError, match=match):
        compare(["A", "B:all_pass=stick"], **{"hands": 10, "games": 1, **kwargs})


def test_tuple_variants():
    r = compare([("A", {}), ("B", {"auction": "one_lap"})], hands=1_000, games=20,
                skill_trace=False)
    assert r["variants"]["changes"].tolist() == ["seed rules", "auction=one_lap"]
    with pytest.raises(InputError, match="label"):
        compare([("A", {}), (3, {})], hands=10, games=1)


def _intervals(result):
    """Every (diff, lo, hi, p) of a comparison's tables."""
    for name, t in result.items():
        if name == "variants":
            continue
        yield from zip(t["diff"], t["ci_low"], t["ci_high"], t["p_value"])
        if "made_diff" in t:
            yield from ((d, lo, hi, p) for d, lo, hi, p in zip(
                t["made_diff"], t["made_ci_low"], t["made_ci_high"], t["made_p_value"])
                if not math.isnan(d))


def test_a_rule_that_never_comes_up(stick_default):
    """The default players never pass a hand out, so stick-the-dealer changes no
    deal: the share of differing deals is 0 and every interval exactly [0, 0]."""
    r = stick_default
    at = r["variants"].attrs
    assert at["differing"]["B"] == {"hand": 0.0, "game": 0.0}
    rows = list(_intervals(r))
    assert len(rows) > 30
    assert any(name == "design" for name in r)
    for diff, lo, hi, p in rows:
        assert diff == lo == hi == 0.0
        assert p == 1.0
    text = C.format_comparison(r)
    assert "B never changed a deal at this table" in text
    d = C.comparison_json(r)
    assert d["differing_share"] == {"B": 0.0}
    assert d["identical"]["B"].startswith("B never changed a deal")


def test_stick_against_redeal(stick):
    s = stick["scores"].set_index("metric")
    thrown = s.loc["thrown-in rate"]
    assert thrown["a"] > 0.05
    assert thrown["b"] == 0.0
    assert thrown["diff"] == pytest.approx(-thrown["a"])
    assert thrown["diff"] < 0
    assert thrown["ci_high"] < 0
    assert thrown["p_value"] < 1e-6
    assert thrown["p_holm"] < 1e-6
    b = stick["bids"].set_index("bid")
    assert b.loc["(thrown in)", "hands_b"] == 0
    assert b.loc["(thrown in)", "hands_a"] == round(thrown["a"] * SMALL["hands"])
    # the stuck dealers' contracts of 1 appear only under stick
    assert b.loc["1", "hands_b"] > b.loc["1", "hands_a"]
    assert s.loc["bidding side points per played hand", "n_b"] == SMALL["hands"]
    g = stick["games"].set_index("metric")
    assert list(g.index) == ["side 0 win rate", "side 1 win rate", "rounds per game",
                             "unfinished games"]
    at = stick["variants"].attrs
    share = at["differing"]["stick"]
    assert share["hand"] == pytest.approx(thrown["a"])     # exactly the thrown-in deals differ
    for name in ("bids", "scores", "games", "design"):
        t = stick[name]
        ok = t["diff"].isna() | ((t["ci_low"] <= t["diff"]) & (t["diff"] <= t["ci_high"]))
        assert ok.all(), name
        assert (t["p_holm"].isna() | (t["p_holm"] >= t["p_value"] - 1e-15)).all(), name
    text = C.format_comparison(stick)
    assert "redeal = seed rules, stick = all_pass=stick" in text
    assert "verdict: scores: " in text
    assert "lower *" in text
    assert "depends on adaptation" not in text
    assert "(thrown in)" in text
    assert "never changed a deal" not in text
    assert "stick: heuristic:aggression=-3.0 (every seat)" in text


def test_paired_intervals_are_never_wider_than_the_independent_ones(stick):
    """The intervals the comparison gave before it was paired: Newcombe's for
    rates, Welch's for means, from the same counts and sums."""
    pepper = stick["bids"]
    checked = 0
    for r in pepper.itertuples():
        n = SMALL["hands"]
        old = stats.compare_proportions(r.hands_b, n, r.hands_a, n)
        if r.hands_a != r.hands_b:
            assert r.ci_high - r.ci_low <= old["hi"] - old["lo"] + 1e-12, r.bid
            checked += 1
    s = stick["scores"]
    for r in s[s["kind"] == "rate"].itertuples():
        old = stats.compare_proportions(round(r.b * r.n_b), r.n_b, round(r.a * r.n_a), r.n_a)
        assert r.ci_high - r.ci_low <= old["hi"] - old["lo"] + 1e-12, r.metric
        checked += 1
    assert checked >= 4


def test_more_than_two_variants_carry_vs():
    r = compare(["A:", "B:kubwa_stake=3", "C:all_pass=stick"], hands=20_000, games=200,
                seed=2, skill_trace=False)
    for name in ("bids", "scores", "games", "design"):
        assert set(r[name]["vs"]) == {"B", "C"}, name
    at = r["variants"].attrs
    assert at["differing"]["C"] == {"hand": 0.0, "game": 0.0}
    assert at["differing"]["B"]["hand"] > 0                  # Kubwa scores more
    two = compare(["A:", "B:kubwa_stake=3"], hands=20_000, games=200, seed=2,
                  skill_trace=False)
    assert "vs" not in two["scores"]
    mine = r["scores"][r["scores"]["vs"] == "B"].drop(columns=["vs", "p_holm"])
    assert mine.reset_index(drop=True).equals(two["scores"].drop(columns=["p_holm"]))
    d = C.comparison_json(r)
    assert set(d["differing_share"]) == {"B", "C"}
    assert all(row["vs"] in ("B", "C") for row in d["tables"]["design"])


def test_json(stick):
    d = C.comparison_json(stick)
    assert {"game", "players", "hands", "games", "seed", "policies", "labels", "tables",
            "differing_share"} <= set(d)
    assert (d["hands"], d["games"], d["labels"]) == (50_000, 500, ["redeal", "stick"])
    assert set(d["tables"]) == {"variants", "bids", "scores", "games", "design"}
    assert d["tables"]["bids"][0]["bid"] == "(thrown in)"
    assert d["tables"]["bids"][0]["made_a"] is None          # NaN -> null
    for v in d["tables"]["variants"]:
        assert v["policies"] == ["heuristic:" + d["policies"][0].split(":", 1)[1]] * 4
        assert v["adapted"] is None
    rows = d["tables"]["design"]
    assert set(rows[0]) >= {"metric", "a", "b", "diff", "ci_low", "ci_high", "p_value",
                            "p_holm"}
    names = " | ".join(r["metric"] for r in rows)
    for word in ("balance", "completion", "hands per game", "lead changes", "comeback"):
        assert word in names, word
    json.dumps(d, allow_nan=False)


def test_holm_is_over_the_whole_comparison(stick):
    p = np.concatenate([stick[n]["p_value"].to_numpy() for n in ("bids", "scores", "games",
                                                                 "design")]
                       + [stick["bids"]["made_p_value"].to_numpy()])
    got = np.concatenate([stick[n]["p_holm"].to_numpy() for n in ("bids", "scores", "games",
                                                                  "design")]
                         + [stick["bids"]["made_p_holm"].to_numpy()])
    ok = np.isfinite(p)
    assert np.allclose(np.sort(stats.holm(p)[ok]), np.sort(got[ok]))
