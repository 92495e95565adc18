"""simkit tournament: duplicate deals, pairwise differences, Bradley-Terry ratings."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from simkit import engine, games, tournament
from simkit.app.cli import main
from simkit.runs import store
from simkit.runs.batches import set_threads

#: (game, players, size) of the small seeded tournaments run below.
SMALL = {"pepper": (4, {"hands": 20_000}), "pitch": (4, {"hands": 20_000}),
         "shiesta": (3, {"games": 2_000}), "burraco": (4, {"hands": 300})}


@pytest.fixture(scope="module")
def ladders():
    """heuristic, random and random again (an entrant given twice) in every game."""
    out = {}
    for game, (players, size) in SMALL.items():
        out[game] = tournament.run(game, ["random", "heuristic", "random"], players=players,
                                   seed=5, **size)
    return out


def _rating(res, policy):
    return res.ratings.set_index("policy").loc[policy]


@pytest.mark.parametrize("game", list(SMALL))
def test_heuristic_beats_random_and_ratings_are_centred(ladders, game):
    res = ladders[game]
    assert res.ratings["rating"].sum() == pytest.approx(0.0, abs=1e-6)   # centred: mean 0
    assert (res.ratings["ci_low"] < res.ratings["rating"]).all()
    assert (res.ratings["rating"] < res.ratings["ci_high"]).all()
    assert ((res.pairs["ci_low"] <= res.pairs["diff"])
            & (res.pairs["diff"] <= res.pairs["ci_high"])).all()
    assert res.ratings["policy"].iloc[0] == "heuristic"
    for row in res.pairs.itertuples():
        if "heuristic" in (row.a, row.b):
            sign = 1 if row.a == "heuristic" else -1
            assert sign * row.ci_low > 0 or sign * row.ci_high < 0
            assert sign * row.diff > 0
            assert row.p_value < 1e-6


@pytest.mark.parametrize("game", list(SMALL))
def test_random_against_itself_is_level(ladders, game):
    """The same policy at every seat of both tables plays the same games: the deals
    really are duplicated, so the difference is exactly 0 and the ratings equal."""
    res = ladders[game]
    same = res.pairs[(res.pairs["a"] == "random") & (res.pairs["b"] == "random")].iloc[0]
    assert same["ci_low"] <= 0 <= same["ci_high"]
    assert same["diff"] == 0
    r = res.ratings[res.ratings["policy"] == "random"]["rating"].to_numpy()
    assert r[0] == pytest.approx(r[1], abs=1e-6)


def test_order_of_the_policies_does_not_matter():
    a = tournament.run("pepper", ["heuristic", "random", "heuristic:aggression=-1"],
                       players=3, hands=8_000, seed=2)
    b = tournament.run("pepper", ["heuristic:aggression=-1", "heuristic", "random"],
                       players=3, hands=8_000, seed=2)
    ra, rb = (r.ratings.set_index("policy").sort_index() for r in (a, b))
    pd.testing.assert_frame_equal(ra, rb, rtol=1e-9)
    pa = a.pairs.set_index(["a", "b"])
    for row in b.pairs.itertuples():
        key = (row.a, row.b) if (row.a, row.b) in pa.index else (row.b, row.a)
        sign = 1 if key == (row.a, row.b) else -1
        assert pa.loc[key, "diff"] == pytest.approx(sign * row.diff, rel=1e-12, abs=1e-12)


def test_tables_seat_each_policy_as_a_partnership():
    g = games.get("pepper")
    ent = tournament.entrants(g, ["heuristic", "random", "heuristic:aggression=1"], 4)
    assert len(ent.tables) == 6                        # 3 pairs, 2 tables each
    assert ent.tables[0] == (0, 1, 0, 1)
    assert ent.tables[1] == (1, 0, 1, 0)
    three = tournament.entrants(g, ["heuristic", "random"], 3)
    assert three.tables == ((0, 1, 0), (1, 0, 1))


def test_the_duplicate_difference_by_hand():
    """d per deal = (a's seats over both tables) / seats - (b's) / seats."""
    tables, pairs = ((0, 1, 0), (1, 0, 1)), ((0, 1), (0, 1))
    df = pd.DataFrame({"table": [0, 0, 1, 1], "hand": [7, 8, 7, 8],
                       "value_0": [3.0, 0.0, 1.0, 2.0], "value_1": [-1.0, 4.0, 5.0, 0.0],
                       "value_2": [2.0, 1.0, 0.0, 0.0]})
    s = tournament.pair_sums(tables, pairs, "hand", df).iloc[0]
    # hand 7: a = 3 + 2 + 5 = 10, b = -1 + 1 + 0 = 0 over 3 seats each -> d = 10/3
    # hand 8: a = 0 + 1 + 0 = 1, b = 4 + 2 + 0 = 6 -> d = -5/3
    assert s["deals"] == 2
    assert s["wins"] == 1
    assert s["losses"] == 1
    assert s["draws"] == 0
    assert s["sum"] == pytest.approx(10 / 3 - 5 / 3)
    assert s["sum_sq"] == pytest.approx(100 / 9 + 25 / 9)


def test_bradley_terry_matches_the_two_player_formula():
    """Two entrants: the rating gap is ELO * ln((w + 1/2) / (l + 1/2)) (one draw
    added) and each rating's standard error is 1 / (2 sqrt(n p q))."""
    res = pd.DataFrame([{"a": 0, "b": 1, "deals": 110, "sum": 0.0, "sum_sq": 0.0,
                         "wins": 70, "draws": 10, "losses": 30}])
    theta, se = tournament.bradley_terry(2, res)
    w, l, n = 70 + 5 + 0.5, 30 + 5 + 0.5, 111
    assert theta[0] - theta[1] == pytest.approx(math.log(w / l), rel=1e-9)
    assert theta.sum() == pytest.approx(0.0, abs=1e-12)
    p = w / n
    assert se[0] == pytest.approx(1 / (2 * math.sqrt(n * p * (1 - p))), rel=1e-6)


def test_same_result_for_any_threads_and_chunks(tmp_path):
    runs = []
    for threads, size in ((1, 3_000), (2, 7_000), (2, None)):
        runs.append(tournament.run("pitch", ["heuristic", "random"], players=5, hands=12_000,
                                   seed=9, threads=threads, chunk_size=size))
    set_threads(None)
    for r in runs[1:]:
        pd.testing.assert_frame_equal(r.pairs, runs[0].pairs)
        pd.testing.assert_frame_equal(r.ratings, runs[0].ratings)


def test_resume_and_parquet(tmp_path):
    out = tmp_path / "t"
    full = tournament.run("shiesta", ["heuristic", "random"], players=4, games=1_200, seed=3,
                          out=out, chunk_size=400)
    df = pd.read_parquet(out)                       # the per-deal values
    assert len(df) == 2 * 1_200
    assert set(df["table"]) == {0, 1}
    assert pd.read_parquet(out / tournament.RATINGS_FILE).equals(full.ratings)
    assert (out / tournament.FIGURE_FILE).stat().st_size > 0
    (out / store.part_name(1)).unlink()             # an interrupted run: one chunk missing
    again = tournament.run("shiesta", ["heuristic", "random"], players=4, games=1_200, seed=3,
                           out=out, chunk_size=400)
    pd.testing.assert_frame_equal(again.pairs, full.pairs)
    done = tournament.run("shiesta", ["heuristic", "random"], players=4, games=1_200, seed=3,
                          out=out, chunk_size=400)
    assert done.complete_before


def test_pitch_sessions_are_measured_in_money():
    res = tournament.run("pitch", ["heuristic", "random"], players=3, games=300, seed=1)
    assert res.units == "dollars per session"
    assert res.pairs["diff"].iloc[0] > 0


def test_json_is_exactly_the_documented_shape(capsys):
    code = main(["tournament", "burraco", "--policy", "heuristic", "--policy",
                 "heuristic:wild_at=13", "--hands", "200", "--json", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["game", "players", "measure", "units", "ratings", "pairs"]
    assert [r["policy"] for r in data["ratings"]] != []
    assert {r["policy"] for r in data["ratings"]} == {"heuristic", "heuristic:wild_at=13"}
    assert all(list(r) == ["policy", "rating", "ci_low", "ci_high"] for r in data["ratings"])
    assert [list(p) for p in data["pairs"]] == [["a", "b", "diff", "ci_low", "ci_high",
                                                  "p_value"]]
    assert data["pairs"][0]["a"] == "heuristic"


@pytest.mark.parametrize(("argv", "names"), [
    (["--policy", "heuristic"], ["at least two"]),
    (["--policy", "heuristic", "--policy", "bogus"], ["bogus"]),
    (["--policy", "heuristic", "--policy", "random", "--players", "9"], ["9"]),
])
def test_bad_input_is_one_line(capsys, argv, names):
    code = main(["tournament", "pepper", "--hands", "100", "--no-progress", *argv])
    _out, err = capsys.readouterr()
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert all(n in err for n in names)


def test_measures_read_the_right_columns():
    """One hand by hand: Pepper's 4-player measure is each seat's team score."""
    g = games.get("pepper")
    df = engine.simulate(g, "hand", engine.RunSettings(50, players=4, seed=4))
    v = g.unit("hand").measure.values(df, g.resolve_rules(None, 4), 0, 50, 4)
    np.testing.assert_array_equal(v[:, 0], df["score_0"])
    np.testing.assert_array_equal(v[:, 3], df["score_1"])


@pytest.mark.slow
def test_dask_backend_gives_the_same_tournament(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["tournament", "pepper", "--players", "2", "--policy", "heuristic", "--policy",
            "random", "--hands", "6000", "--chunk", "2000", "--json", "--no-progress"]
    code = main([*argv, "--backend", "dask", "--workers", "1", "--out", "d"])
    out_d, err = capsys.readouterr()
    assert code == 0, err
    assert main(argv) == 0
    out_t, err = capsys.readouterr()
    assert json.loads(out_d) == json.loads(out_t)
    set_threads(None)
