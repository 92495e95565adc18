"""The Shiesta strategy study on small seeded runs: its tables, exact identities
(win rates and the unfinished rate sum to 1, round-robin shares of the same
tables sum to 1, one winner per finished game), the bookkeeping against the
engine's frames, and its findings (what every study satisfies, determinism and
the report among it, is checked in test_studies.py)."""

from __future__ import annotations

import copy
import itertools
import math
import re

import numpy as np
import pytest

from analyses import shiesta_strategy as ss
from simkit.shiesta.api import simulate_games
from simkit.shiesta.rules import PRESETS

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

SEED = 11
HANDS = 2000
TINY = 20                      # the study contract's run far too small (test_studies.py)
TABLES = {"seats", "round_robin", "policy_scores", "specials", "game_length", "turns_histogram",
          "variants"}
FIGURES = {"seats", "round_robin", "specials", "game_length", "variants"}
N_POL = len(ss.POLICIES)
N4 = ss.STUDY_PLAYERS

# (estimate, low, high) column triples of each table
UNF = ("unfinished_rate", "unfinished_ci_low", "unfinished_ci_high")
INTERVALS = {
    "seats": [("win_rate", "ci_low", "ci_high"), UNF],
    "round_robin": [("share", "ci_low", "ci_high"), UNF],
    "policy_scores": [("score", "ci_low", "ci_high"), UNF],
    "specials": [("win_rate", "ci_low", "ci_high"), UNF],
    "game_length": [("mean_turns", "ci_low", "ci_high"), ("median", "median_ci_low",
                                                          "median_ci_high"),
                    ("p90", "p90_ci_low", "p90_ci_high"), ("p99", "p99_ci_low", "p99_ci_high"),
                    UNF],
    "turns_histogram": [("share", "ci_low", "ci_high")],
    "variants": [("starter_win_rate", "starter_ci_low", "starter_ci_high"),
                 ("mean_turns", "turns_ci_low", "turns_ci_high"), UNF,
                 ("starter_diff", "starter_diff_ci_low", "starter_diff_ci_high"),
                 ("turns_diff", "turns_diff_ci_low", "turns_diff_ci_high"),
                 ("unfinished_diff", "unfinished_diff_ci_low", "unfinished_diff_ci_high")],
}
# the sample size column of each table
N_COLUMN = {"seats": "games", "round_robin": "decisive", "policy_scores": "decisive",
            "specials": "player_games", "game_length": "games", "turns_histogram": "games",
            "variants": "games"}


@pytest.fixture(scope="module")
def result(run_study):
    return run_study(ss.NAME, HANDS, SEED)


@pytest.fixture(scope="module")
def tables(result):
    return result.tables


def test_shape(result):
    assert ss.NAME == "shiesta-strategy"
    assert set(result.tables) == TABLES
    for name, df in result.tables.items():
        assert N_COLUMN[name] in df.columns, name
    assert set(result.figures) == FIGURES
    prov = result.provenance
    assert prov["games_per_table"] == HANDS
    assert prov["tables"] == len(ss.plan()) == 6 + 2 * math.comb(N_POL, 2) + len(ss.VARIANTS)
    assert prov["games"] == HANDS * prov["tables"]
    assert "games" in ss.__doc__.split("\n\n")[1]         # the docstring says what hands counts


@pytest.mark.parametrize("table", sorted(INTERVALS))
def test_intervals_contain_estimates(tables, table, assert_intervals):
    for est, lo, hi in INTERVALS[table]:
        assert_intervals(tables[table], est, lo, hi)


def test_sizes(tables):
    se = tables["seats"]
    assert sorted(se["players"].unique()) == list(ss.PLAYERS)
    for p, g in se.groupby("players"):
        assert list(g["seat"]) == list(range(p))
        assert g["seat_name"].iloc[0] == "starter"
    assert (se["games"] == HANDS).all()

    rr = tables["round_robin"]
    labels = [lab for lab, _ in ss.POLICIES]
    assert len(rr) == N_POL * (N_POL - 1)
    assert set(zip(rr["policy"], rr["opponent"])) == set(itertools.permutations(labels, 2))
    assert (rr["games"] == 2 * HANDS).all()
    assert (rr["tables"] == 2).all()
    assert (rr["decisive"] + rr["unfinished"] == rr["games"]).all()

    sc = tables["policy_scores"]
    assert list(sc["policy"]) == labels
    assert (sc["opponents"] == N_POL - 1).all()
    assert (sc["games"] == 2 * HANDS * (N_POL - 1)).all()
    assert (sc["decisive"] + sc["unfinished"] == sc["games"]).all()

    sp = tables["specials"]
    assert list(sp["rank"].unique()) == ["2", "3", "7", "10"]
    assert (sp.groupby("rank")["player_games"].sum() == N4 * HANDS).all()
    assert np.allclose(sp.groupby("rank")["share_of_players"].sum(), 1.0)
    assert np.allclose(sp.groupby("rank")["deal_chance"].sum(), 1.0)

    gl = tables["game_length"]
    assert len(gl) == len(ss.PLAYERS) * len(ss.LENGTH_POLICIES)
    assert (gl["games"] == HANDS).all()
    assert (gl["longest_finished"] <= gl["max"]).all()
    assert (gl["max"] <= gl["max_turns"]).all()
    assert ((gl["unfinished"] == 0) <= (gl["longest_finished"] == gl["max"])).all()
    hi = tables["turns_histogram"]
    assert (hi.groupby(["policy", "players"])["count"].sum() == HANDS).all()
    assert (hi["turns_to"] - hi["turns_from"] == ss.BIN - 1).all()

    va = tables["variants"]
    assert (va["games"] == HANDS).all()
    want = {(ss.SEED_PRESET, N4), (ss.SEED_PRESET, 5)} | set(ss.VARIANTS)
    assert set(zip(va["preset"], va["players"])) == want
    assert set(PRESETS) <= set(va["preset"])


def test_exact_identities(tables):
    """Each holds exactly, whatever the random numbers."""
    se = tables["seats"]
    for p, g in se.groupby("players"):
        assert g["wins"].sum() + g["unfinished"].iloc[0] == HANDS
        assert g["win_rate"].sum() + g["unfinished_rate"].iloc[0] == pytest.approx(1.0, abs=1e-12)
        assert (g["unfinished"] == g["unfinished"].iloc[0]).all()
        assert (g["fair"] == 1 / p).all()

    rr = tables["round_robin"].set_index(["policy", "opponent"])
    for (a, b), row in rr.iterrows():
        back = rr.loc[(b, a)]
        assert row["share"] + back["share"] == pytest.approx(1.0, abs=1e-12)
        assert row["wins"] + back["wins"] == row["decisive"] == back["decisive"]
        assert row["p_value"] == back["p_value"]
        assert row["unfinished"] == back["unfinished"]
    sc = tables["policy_scores"].set_index("policy")
    byp = tables["round_robin"].groupby("policy")[["wins", "decisive", "unfinished"]].sum()
    for lab, _ in ss.POLICIES:
        assert sc.loc[lab, "wins"] == byp.loc[lab, "wins"]
        assert sc.loc[lab, "decisive"] == byp.loc[lab, "decisive"]
    # every decisive game of a pair's tables is won by A or by B: the scores average 1/2
    # weighted by decisive games
    assert (sc["wins"].sum() == sc["decisive"].sum() / 2)

    # one winner per finished game: the specials' wins per rank are the 4-player table's
    sp = tables["specials"]
    four = se[se["players"] == N4]
    assert (sp.groupby("rank")["wins"].sum() == four["wins"].sum()).all()
    assert (sp.groupby("rank")["unfinished"].sum() == N4 * four["unfinished"].iloc[0]).all()

    gl = tables["game_length"].set_index(["policy", "players"])
    va = tables["variants"].set_index(["preset", "players"])
    for p in ss.PLAYERS:
        assert gl.loc[(ss.BASE, p), "unfinished"] == se[se["players"] == p]["unfinished"].iloc[0]
        # unfinished games end at the cap: the cap's bin holds them all
        h = tables["turns_histogram"].query("policy == @ss.BASE and players == @p")
        cap = gl.loc[(ss.BASE, p), "max_turns"]
        in_cap = h[(h["turns_from"] <= cap) & (h["turns_to"] >= cap)]["count"].sum()
        assert in_cap >= gl.loc[(ss.BASE, p), "unfinished"]
    for p in (N4, 5):
        base = va.loc[(ss.SEED_PRESET, p)]
        starter = se[(se["players"] == p) & (se["seat"] == 0)].iloc[0]
        assert base["starter_wins"] == starter["wins"]
        assert base["mean_turns"] == gl.loc[(ss.BASE, p), "mean_turns"]
        assert base[["starter_diff", "turns_diff", "unfinished_diff"]].isna().all()
        others = va.xs(p, level="players").drop(index=ss.SEED_PRESET)
        assert np.allclose(others["starter_diff"], others["starter_win_rate"]
                           - base["starter_win_rate"])
        assert np.allclose(others["turns_diff"], others["mean_turns"] - base["mean_turns"])


def test_deal_matches_hypergeometric(tables):
    """The share of players dealt k special cards is close to its exact chance."""
    sp = tables["specials"]
    p, n = sp["deal_chance"], sp["player_games"].groupby(sp["rank"]).transform("sum")
    assert (np.abs(sp["share_of_players"] - p) < 5 * np.sqrt(p * (1 - p) / n) + 1e-9).all()


def test_bookkeeping_matches_frames(tables):
    """The study's counts agree with the engine's game records of the same streams."""
    plan = ss.plan()
    i4 = plan.index(("base", N4, ss.SEED_PRESET, ss.BASE, N4))
    df = simulate_games(HANDS, players=N4, seed=SEED, start=i4 * HANDS)
    se = tables["seats"].query("players == @N4")
    counts = df["winner_seat"].value_counts()
    assert list(se["wins"]) == [counts.get(s, 0) for s in range(N4)]
    gl = tables["game_length"].set_index(["policy", "players"]).loc[(ss.BASE, N4)]
    assert gl["mean_turns"] == pytest.approx(df["turns"].mean(), rel=1e-12)
    assert gl["median"] == np.quantile(df["turns"], 0.5, method="inverted_cdf")
    assert gl["p99"] == np.quantile(df["turns"], 0.99, method="inverted_cdf")
    sp = tables["specials"].set_index(["rank", "k"])
    k10 = np.minimum(df[[f"dealt_10_{s}" for s in range(N4)]].to_numpy(), 3)
    won = df["winner"].to_numpy()[:, None] == np.arange(N4)
    assert sp.loc[("10", 2), "player_games"] == (k10 == 2).sum()
    assert sp.loc[("10", 2), "wins"] == ((k10 == 2) & won).sum()

    # one round-robin pair: random against heuristic
    (la, a), (lb, b) = ss.POLICIES[0], ss.POLICIES[1]
    i = plan.index(("pair", N4, ss.SEED_PRESET, [a, b, a, b], (la, lb, 0)))
    t1 = simulate_games(HANDS, players=N4, policy=[a, b, a, b], seed=SEED, start=i * HANDS)
    t2 = simulate_games(HANDS, players=N4, policy=[b, a, b, a], seed=SEED,
                        start=(i + 1) * HANDS)
    a_wins = t1["winner"].isin([0, 2]).sum() + t2["winner"].isin([1, 3]).sum()
    row = tables["round_robin"].query("policy == @la and opponent == @lb").iloc[0]
    assert row["wins"] == a_wins
    assert row["unfinished"] == t1["unfinished"].sum() + t2["unfinished"].sum()


def test_streams_are_disjoint():
    plan = ss.plan()
    assert len(set(map(repr, plan))) == len(plan)
    kinds = [k for k, *_ in plan]
    assert kinds == sorted(kinds, key=["base", "random", "pair", "variant"].index)


def test_summary_comes_from_tables(result):
    tables = result.tables
    assert 4 <= len(result.summary) <= 6
    # the seat sentence quotes every starter's win rate
    for r in tables["seats"].query("seat == 0").itertuples():
        assert ss.percent(r.win_rate, r.ci_low, r.ci_high, r.games) in result.summary[0]
    # the round-robin sentence names the best and worst scores
    sc = tables["policy_scores"]
    best, worst = sc.loc[sc["score"].idxmax()], sc.loc[sc["score"].idxmin()]
    line = next(s for s in result.summary if "round robin" in s)
    assert ss.percent(best["score"], best["ci_low"], best["ci_high"], best["decisive"]) in line
    assert ss.percent(worst["score"], worst["ci_low"], worst["ci_high"]) in line
    rr = tables["round_robin"]
    n_sig = int((ss._unordered(rr)["p_value"] < 0.05).sum())
    assert f"{n_sig} of the {math.comb(N_POL, 2)} pairings" in line
    # every turn difference in the variants sentence is a (rounded) row of its table
    va = tables["variants"]
    line = next(s for s in result.summary if "variants" in s)
    found = re.findall(r"([+\u2212]\d+\.\d) turns \(95% CI ([+\u2212]\d+\.\d) to "
                       r"([+\u2212]\d+\.\d)\)", line)
    assert found
    for text in found:
        est, lo, hi = (float(x.replace("\u2212", "-")) for x in text)
        hits = va[(np.round(va["turns_diff"], 1) == est)
                  & (np.round(va["turns_diff_ci_low"], 1) == lo)
                  & (np.round(va["turns_diff_ci_high"], 1) == hi)]
        assert len(hits) == 1, text
    # the length sentence quotes the 4-player heuristic median
    h4 = tables["game_length"].query("policy == @ss.BASE and players == @N4").iloc[0]
    line = next(s for s in result.summary if "median" in s)
    assert f"median {h4['median']:.0f} turns" in line
    # change a table and its sentence follows, the others stay
    changed = copy.deepcopy(tables)
    se = changed["seats"]
    row = se.index[(se["players"] == N4) & (se["seat"] == 0)][0]
    se.loc[row, ["win_rate", "ci_low", "ci_high"]] = [0.5, 0.49, 0.51]
    lines = ss.findings(changed)
    assert "50.0% (95% CI 49.0-51.0%, n=2,000) with 4 players (above the fair 25.0%)" in lines[0]
    assert lines[1:] == result.summary[1:]
    va2 = changed["variants"]
    row = va2.index[(va2["preset"] == "every-pile")][0]
    va2.loc[row, ["turns_diff", "turns_diff_ci_low", "turns_diff_ci_high"]] = [500.0, 499.0, 501.0]
    line = next(s for s in ss.findings(changed) if "variants" in s)
    assert "every-pile changes game length most, +500.0 turns (95% CI +499.0 to +501.0)" in line


def test_tiny_run_works(run_study):
    """A run far too small for most estimates still gives every sentence."""
    res = run_study(ss.NAME, TINY, SEED)
    assert len(res.summary) >= 4
    assert (res.tables["seats"]["games"] == TINY).all()
