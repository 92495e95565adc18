"""Rule-variant comparison (simkit/compare.py) with Pepper's measures: variant
parsing, the two-variant requirement, identical variants, stick-the-dealer
against redeal.  The other games' measures are in test_compare_games.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simkit import compare as C
from simkit import games
from simkit.errors import InputError

SMALL = dict(hands=50_000, games=500, seed=5)
# The default heuristic almost never passes a hand out (no thrown-in hand in
# 200,000); a cautious one throws in about 13% of 4-player hands.
CAUTIOUS = "heuristic:aggression=-3"
PEPPER = games.get("pepper")


def compare(*args, **kwargs):
    return C.compare("pepper", *args, **kwargs)


@pytest.fixture(scope="module")
def same():
    return compare(["A", "B:"], policy=CAUTIOUS, **SMALL)


@pytest.fixture(scope="module")
def stick():
    return compare(["redeal:", "stick:all_pass=stick"], policy=CAUTIOUS, **SMALL)


@pytest.mark.parametrize("text, want", [
    ("A:all_pass=stick,auction=one_lap", ("A", {"all_pass": "stick", "auction": "one_lap"})),
    ("A", ("A", {})), ("A:", ("A", {})), (" B : all_pass = stick ", ("B", {"all_pass": "stick"})),
    ("B:ndogo_stake=2,", ("B", {"ndogo_stake": "2"})),
])
def test_parse_variant(text, want):
    assert C.parse_variant(PEPPER, text) == want


@pytest.mark.parametrize("text, names", [
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


@pytest.mark.parametrize("variants, match", [
    ([], "exactly two variants.*got 0"), (["A"], "exactly two.*got 1"), ("A", "got 1"),
    (None, "got 0"), (["A", "B", "C:all_pass=stick"], "got 3"),
    (["A", "A:all_pass=stick"], "same label 'A'"),
])
def test_two_variants_required(variants, match):
    with pytest.raises(InputError, match=match):
        compare(variants, hands=10, games=1)


@pytest.mark.parametrize("kwargs, match", [
    (dict(players=5), "player count 5"), (dict(hands=0), "--hands 0"),
    (dict(games=-1), "--games -1"), (dict(seed=-1), "seed -1"),
    (dict(policy="sloppy"), "sloppy"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(InputError, match=match):
        compare(["A", "B:all_pass=stick"], **{"hands": 10, "games": 1, **kwargs})


def test_tuple_variants():
    r = compare([("A", {}), ("B", {"auction": "one_lap"})], hands=1_000, games=20)
    assert r["variants"]["changes"].tolist() == ["seed rules", "auction=one_lap"]
    with pytest.raises(InputError, match="label"):
        compare([("A", {}), (3, {})], hands=10, games=1)


def _all_rows(result):
    b = result["bids"]
    yield from zip(b["diff"], b["p_value"])
    yield from ((d, p) for d, p in zip(b["made_diff"], b["made_p_value"]) if not math.isnan(d))
    for name in ("scores", "games"):
        yield from zip(result[name]["diff"], result[name]["p_value"])


def test_identical_variants(same):
    assert set(same) == {"bids", "scores", "games", "variants"}
    rows = list(_all_rows(same))
    assert len(rows) > 10
    for diff, p in rows:
        assert diff == 0.0
        assert p == 1.0 or math.isnan(p)
    b = same["bids"]
    assert (b["hands_a"] == b["hands_b"]).all() and b["hands_a"].sum() == SMALL["hands"]
    assert (b["ci_low"] <= 0).all() and (b["ci_high"] >= 0).all()
    text = C.format_comparison(same)
    assert text.count("verdict: ") == 3
    assert text.count("is significant at 5%") == 3          # "no difference ... is significant"


def test_stick_against_redeal(stick):
    s = stick["scores"].set_index("metric")
    thrown = s.loc["thrown-in rate"]
    assert thrown["a"] > 0.05 and thrown["b"] == 0.0        # the stuck dealer always plays
    assert thrown["diff"] == -thrown["a"] and thrown["diff"] < 0
    assert thrown["ci_high"] < 0 and thrown["p_value"] < 1e-6
    b = stick["bids"].set_index("bid")
    assert b.loc["(thrown in)", "hands_b"] == 0
    assert b.loc["(thrown in)", "hands_a"] == round(thrown["a"] * SMALL["hands"])
    # the stuck dealers' contracts of 1 appear only under stick
    assert b.loc["1", "hands_b"] > b.loc["1", "hands_a"]
    assert s.loc["bidding side points per hand", "n_b"] == SMALL["hands"]
    g = stick["games"].set_index("metric")
    assert list(g.index) == ["side 0 win rate", "side 1 win rate", "rounds per game",
                             "unfinished games"]
    assert (g["n_a"] == SMALL["games"]).all()
    # every interval holds its difference
    for name in ("bids", "scores", "games"):
        t = stick[name]
        ok = t["diff"].isna() | ((t["ci_low"] <= t["diff"]) & (t["diff"] <= t["ci_high"]))
        assert ok.all(), name
    text = C.format_comparison(stick)
    assert "A = redeal (seed rules), B = stick (all_pass=stick)" in text
    assert "verdict: scores: " in text and "differ significantly at 5%" in text
    assert "(thrown in)" in text


def test_three_players_games_table():
    r = compare(["A", "B:tie=play_on"], players=3, hands=2_000, games=200, seed=1)
    g = r["games"]
    assert g["metric"].tolist()[:3] == ["side 0 win rate", "side 1 win rate", "side 2 win rate"]
    assert np.isfinite(g["a"]).all()


def test_json(stick):
    import json
    d = C.comparison_json(stick)
    assert set(d) == {"game", "players", "hands", "games", "seed", "policies", "labels", "tables"}
    assert (d["hands"], d["games"], d["labels"]) == (50_000, 500, ["redeal", "stick"])
    assert set(d["tables"]) == {"variants", "bids", "scores", "games"}
    assert d["tables"]["bids"][0]["bid"] == "(thrown in)"
    assert d["tables"]["bids"][0]["made_a"] is None          # NaN -> null
    json.dumps(d, allow_nan=False)
