"""The Burraco scoring study on a small seeded run: its tables, exact identities
(scores are the sum of their parts, quantiles ordered, ended shares sum to 1,
closing rates add up to the closed share), the bookkeeping against the
engine's frames, and its findings (what every study satisfies, determinism and
the report among it, is checked in test_studies.py)."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

from analyses import burraco_scoring as bs
from simkit.base import stats
from simkit.burraco.api import simulate, simulate_games

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

SEED = 5
HANDS = 400
TINY = 20                      # the study contract's run far too small (test_studies.py)
TABLES = {"scores", "score_parts", "score_histogram", "burracos", "endings", "closing", "turns",
          "game_length", "games", "policies", "play", "mixed", "variants"}
FIGURES = {"scores", "burracos", "endings", "game_length", "policies", "play", "variants"}
Q = [name for _, name in bs.QUANTILES]
DIFFS = [(f"{m}_diff", f"{m}_diff_ci_low", f"{m}_diff_ci_high")
         for m in ("score", "clean", "dirty", "closing")]
TEAM_HAND = [("score_mean", "score_ci_low", "score_ci_high"),
             ("clean_mean", "clean_ci_low", "clean_ci_high"),
             ("dirty_mean", "dirty_ci_low", "dirty_ci_high"),
             ("closing_rate", "closing_ci_low", "closing_ci_high")]
DIST = [("mean", "ci_low", "ci_high")] + [(q, f"{q}_ci_low", f"{q}_ci_high") for q in Q]
INTERVALS = {
    "scores": DIST,
    "score_parts": [("mean", "ci_low", "ci_high")],
    "score_histogram": [("share", "ci_low", "ci_high")],
    "burracos": [("share", "ci_low", "ci_high"), ("mean", "mean_ci_low", "mean_ci_high")],
    "endings": [("share", "ci_low", "ci_high")],
    "closing": [("closing_rate", "closing_ci_low", "closing_ci_high"),
                ("vs_dealing_diff", "vs_dealing_diff_ci_low", "vs_dealing_diff_ci_high")],
    "turns": DIST,
    "game_length": [("share", "ci_low", "ci_high")],
    "games": [*DIST, ("starter_win_rate", "starter_win_ci_low", "starter_win_ci_high"),
              ("unfinished_rate", "unfinished_ci_low", "unfinished_ci_high")],
    "policies": TEAM_HAND + DIFFS,
    "play": [("estimate", "ci_low", "ci_high")],
    "mixed": [("score_diff", "score_diff_ci_low", "score_diff_ci_high"),
              ("heuristic_closing_rate", "heuristic_closing_ci_low", "heuristic_closing_ci_high"),
              ("patient_closing_rate", "patient_closing_ci_low", "patient_closing_ci_high"),
              ("heuristic_win_rate", "heuristic_win_ci_low", "heuristic_win_ci_high")],
    "variants": TEAM_HAND + DIFFS,
}
N_COLUMN = {"scores": "hands", "score_parts": "hands", "score_histogram": "hands",
            "burracos": "hands", "endings": "hands", "closing": "hands", "turns": "hands",
            "game_length": "games", "games": "games", "policies": "hands", "play": "hands",
            "mixed": "hands", "variants": "hands"}


@pytest.fixture(scope="module")
def result(run_study):
    return run_study(bs.NAME, HANDS, SEED)


@pytest.fixture(scope="module")
def tables(result):
    return result.tables


def _base_frame():
    kind, _key, preset, pol, unit, size, start = bs.plan(HANDS)[0]
    assert (kind, unit, start) == ("base", "hands", 0)
    return simulate(size, rules=preset, policy=pol, seed=SEED, start=start)


def test_shape(result):
    assert (bs.NAME, bs.TITLE) == ("burraco-scoring", "Burraco: scoring distributions")
    assert set(result.tables) == TABLES
    for name, df in result.tables.items():
        assert N_COLUMN[name] in df.columns, name
        assert (df[N_COLUMN[name]] > 0).all(), name
    assert set(result.figures) == FIGURES
    prov = result.provenance
    assert prov["hands_per_table"] == HANDS
    assert prov["games_per_table"] == bs.games_per_table(HANDS)
    assert prov["tables"] == len(bs.plan(HANDS)) == 3 + 2 + 2 + 1 + len(bs.VARIANTS)
    assert "hands" in bs.__doc__.split("\n\n")[1]
    assert list(result.tables["policies"]["policy"]) == list(bs.POLICIES)
    assert list(result.tables["variants"]["preset"]) == [bs.SEED_PRESET, *bs.VARIANTS]


@pytest.mark.parametrize("table", sorted(INTERVALS))
def test_intervals_contain_estimates(tables, table, assert_intervals):
    for est, lo, hi in INTERVALS[table]:
        assert_intervals(tables[table], est, lo, hi, tol=1e-9)


def test_streams_are_disjoint():
    runs = bs.plan(HANDS)
    spans = sorted((r[-1], r[-1] + r[-2]) for r in runs)
    assert spans[0][0] == 0
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert len({(r[0], r[1]) for r in runs}) == len(runs)


def test_exact_identities(tables):
    """Each holds exactly (up to float rounding), whatever the random numbers."""
    pa = tables["score_parts"]
    for _, d in pa.groupby("side"):
        d = d.set_index("part")
        assert d.loc["score", "mean"] == pytest.approx(d.loc[list(bs.PARTS), "mean"].sum(),
                                                       abs=1e-9)
    sc = tables["scores"].set_index("side")
    assert (pa[pa["part"] == "score"].set_index("side")["mean"] == sc["mean"]).all()
    for df in (tables["scores"], tables["turns"], tables["games"]):
        vals = df[["min", *Q, "max"]].to_numpy()
        assert (np.diff(vals, axis=1) >= 0).all()
    # team 0 and team 1 are the starting and dealing teams rearranged
    assert sc.loc["team 0", "mean"] + sc.loc["team 1", "mean"] == pytest.approx(
        sc.loc["starting", "mean"] + sc.loc["dealing", "mean"], abs=1e-9)

    bu = tables["burracos"]
    for _, d in bu.groupby(["side", "kind"]):
        assert list(d["count"]) == list(bs.COUNTS)
        assert d["hands_with"].sum() == HANDS
        assert d["share"].sum() == pytest.approx(1.0, abs=1e-12)
    # the burraco bonus is 200 per clean and 100 per dirty burraco
    means = bu.drop_duplicates(["side", "kind"]).set_index(["side", "kind"])["mean"]
    for side in bs.SIDES:
        bonus = pa[(pa["side"] == side) & (pa["part"] == "burraco_bonus")]["mean"].iloc[0]
        assert bonus == pytest.approx(200 * means[(side, "clean")] + 100 * means[(side, "dirty")],
                                      abs=1e-9)

    hi = tables["score_histogram"]
    assert (hi.groupby("side")["count"].sum() == HANDS).all()
    assert (hi["score_to"] - hi["score_from"] == bs.BIN - 1).all()

    en = tables["endings"].set_index("ended")
    assert list(en.index) == ["closed", "stock", "cap"]
    assert en["count"].sum() == HANDS
    assert en["share"].sum() == pytest.approx(1.0, abs=1e-12)
    cl = tables["closing"].set_index("side")
    closed = en.loc["closed", "count"]
    assert cl.loc["team 0", "closes"] + cl.loc["team 1", "closes"] == closed
    assert cl.loc["starting", "closes"] + cl.loc["dealing", "closes"] == closed
    # closing bonus mean is 100 x the closing rate (default closing_bonus)
    for side in bs.SIDES:
        cb = pa[(pa["side"] == side) & (pa["part"] == "closing_bonus")]["mean"].iloc[0]
        assert cb == pytest.approx(100 * cl.loc[side, "closing_rate"], abs=1e-9)
    tu = tables["turns"].set_index("ended")
    assert tu.loc["all", "hands"] == HANDS
    assert tu.drop(index="all")["hands"].sum() == HANDS
    assert (tu.drop(index="all")["hands"] == en.loc[tu.index[1:], "count"]).all()

    gl, ga = tables["game_length"], tables["games"].iloc[0]
    n_games = bs.games_per_table(HANDS)
    assert gl["count"].sum() == n_games == ga["games"]
    assert (gl["hands_per_game"] * gl["count"]).sum() / n_games == pytest.approx(ga["mean"])
    assert ga["starter_wins"] + ga["starter_losses"] + ga["shared"] + ga["unfinished"] \
        == n_games

    po = tables["policies"].set_index("policy")
    va = tables["variants"].set_index("preset")
    for t, base in ((po, bs.BASE), (va, bs.SEED_PRESET)):
        b = t.loc[base]
        assert b[[c for c, _, _ in DIFFS]].isna().all()
        o = t.drop(index=base)
        for m in ("score", "clean", "dirty"):
            assert np.allclose(o[f"{m}_diff"], o[f"{m}_mean"] - b[f"{m}_mean"])
        assert np.allclose(o["closing_diff"], o["closing_rate"] - b["closing_rate"])
    # the base table is shared by parts 1, 5 and 6
    assert po.loc[bs.BASE, "score_mean"] == pytest.approx(sc.loc[["team 0", "team 1"],
                                                                 "mean"].mean())
    assert va.loc[bs.SEED_PRESET].drop("rules").equals(po.loc[bs.BASE].drop("spec"))
    assert po.loc[bs.BASE, "closed"] == closed

    mx = tables["mixed"].set_index("seating")
    rows = mx.drop(index="both")
    for col in ("hands", "games", "heuristic_wins", "patient_wins", "heuristic_closes",
                "patient_closes"):
        assert mx.loc["both", col] == rows[col].sum()
    assert np.allclose(mx["score_diff"], mx["heuristic_score"] - mx["patient_score"])

    pl = tables["play"]
    assert list(pl["policy"].unique()) == list(bs.POLICIES)
    means = [name for name, _, _, den in bs.PLAY if den is None]
    for pol, d in pl.groupby("policy", sort=False):
        d = d.set_index("measure")
        assert list(d.index) == [name for name, *_ in bs.PLAY]
        assert (d["hands"] == HANDS).all()
        assert np.allclose(d["estimate"], d["total"] / d["of"])
        assert (d.loc[means, "of"] == 2 * HANDS).all()
        # the shares are of the melds (sets + sequences) and of the burracos
        assert d.loc["sequence_share", "total"] == d.loc["sequences", "total"]
        assert d.loc["sequence_share", "of"] == d.loc[["sets", "sequences"], "total"].sum()
        assert d.loc["clean_share", "total"] == d.loc["clean_burracos", "total"]
        assert d.loc["clean_share", "of"] == d.loc[["clean_burracos", "dirty_burracos"],
                                                    "total"].sum()
        assert d.loc[["sequence_share", "clean_share"], ["ci_low", "ci_high"]].stack() \
            .between(0, 1).all()
        # the same tables as the policies table: the same burracos per team-hand
        for m, col in (("clean_burracos", "clean_mean"), ("dirty_burracos", "dirty_mean")):
            assert d.loc[m, "estimate"] == pytest.approx(po.loc[pol, col], rel=1e-12)


def test_bookkeeping_matches_frames(tables):
    """The study's numbers agree with the engine's records of the same streams."""
    df = _base_frame()
    sc = tables["scores"].set_index("side")
    assert sc.loc["team 1", "mean"] == pytest.approx(df["score_1"].mean(), rel=1e-12)
    assert sc.loc["team 0", "median"] == np.quantile(df["score_0"], 0.5, method="inverted_cdf")
    assert sc.loc["team 0", "q95"] == np.quantile(df["score_0"], 0.95, method="inverted_cdf")
    start = (df["dealer"] + 1) % 2
    starting = np.where(start == 0, df["score_0"], df["score_1"])
    assert sc.loc["starting", "mean"] == pytest.approx(starting.mean(), rel=1e-12)
    cl = tables["closing"].set_index("side")
    assert cl.loc["starting", "closes"] == ((df["closer"] >= 0)
                                            & (df["closer"] % 2 == start)).sum()
    bu = tables["burracos"].set_index(["side", "kind", "count"])
    assert bu.loc[("team 0", "dirty", "3+"), "hands_with"] == (df["dirty_burraco_0"] >= 3).sum()

    runs = bs.plan(HANDS)
    _kind, _key, preset, pol, _unit, size, start_g = next(r for r in runs if r[0] == "games")
    g = simulate_games(size, rules=preset, policy=pol, seed=SEED, start=start_g)
    ga = tables["games"].iloc[0]
    assert ga["mean"] == pytest.approx(g["hands"].mean(), rel=1e-12)
    assert ga["starter_wins"] == (g["winner"] == (g["first_dealer"] + 1) % 2).sum()

    lab, pols, hteam = bs.MIXED[1]
    r = next(r for r in runs if r[0] == "mixed" and r[1] == lab)
    m = simulate(r[5], policy=pols, seed=SEED, start=r[6])
    pl = tables["play"].set_index(["policy", "measure"])
    for measure, col in (("sets", "sets"), ("sequences", "sequences"), ("wilds", "wilds"),
                         ("clean_burracos", "clean_burraco")):
        assert pl.loc[(bs.BASE, measure), "total"] == (df[f"{col}_0"] + df[f"{col}_1"]).sum()
    assert pl.loc[(bs.BASE, "sequence_share"), "of"] == (df["melds_0"] + df["melds_1"]).sum()

    row = tables["mixed"].set_index("seating").loc[lab]
    assert row["score_diff"] == pytest.approx((m[f"score_{hteam}"]
                                               - m[f"score_{1 - hteam}"]).mean(), rel=1e-12)


def test_summary_comes_from_tables(result):
    tables = result.tables
    assert 4 <= len(result.summary) <= 7
    s = tables["scores"].set_index("side").loc["team 0"]
    assert f"{s['mean']:.1f} (95% CI {s['ci_low']:.1f}-{s['ci_high']:.1f})" in result.summary[0]
    assert f"median {s['median']:.0f}" in result.summary[0]
    en = tables["endings"].set_index("ended").loc["closed"]
    assert bs.percent(en["share"], en["ci_low"], en["ci_high"], en["hands"]) in result.summary[2]
    g = tables["games"].iloc[0]
    assert bs.percent(g["starter_win_rate"], g["starter_win_ci_low"],
                      g["starter_win_ci_high"]) in result.summary[3]
    play = next(line for line in result.summary if line.startswith("Per team-hand"))
    for pol in bs.POLICIES:
        r = tables["play"].set_index(["policy", "measure"]).loc[(pol, "sequence_share")]
        assert bs.percent(r["estimate"], r["ci_low"], r["ci_high"]) in play, pol
    # change a table and its sentence follows, the others stay
    changed = copy.deepcopy(tables)
    sc = changed["scores"]
    sc.loc[sc["side"] == "team 0", ["mean", "ci_low", "ci_high"]] = [123.4, 120.0, 126.8]
    lines = bs.findings(changed)
    assert "123.4 (95% CI 120.0-126.8)" in lines[0]
    assert lines[1:] == result.summary[1:]
    va = changed["variants"]
    va.loc[va["preset"] == "twos-set", ["score_diff", "score_diff_ci_low",
                                        "score_diff_ci_high"]] = [999.0, 998.0, 1000.0]
    line = bs.findings(changed)[-1]
    assert "twos-set (twos_set=True) changes the mean score most, +999.0 (95% CI +998.0 to " \
           "+1000.0)" in line


def test_shares_of_units_clustered_in_hands():
    """bs._ratio: one unit per hand is about Clopper-Pearson on the units; units
    counted twice per hand give the same interval (no extra information); no
    unit gives NaN, no success an interval from 0."""
    b = np.random.default_rng(1).random(500) < 0.3
    r, lo, hi = bs._ratio(b, np.ones(500))
    clo, chi = stats.proportion_ci(int(b.sum()), 500)
    assert r == b.mean()
    assert lo == pytest.approx(clo, abs=2e-3)
    assert hi == pytest.approx(chi, abs=2e-3)
    assert bs._ratio(2 * b, np.full(500, 2)) == pytest.approx((r, lo, hi), rel=1e-12)
    assert all(np.isnan(bs._ratio([0, 0], [0, 0])))
    r, lo, hi = bs._ratio([0, 0, 0], [1, 2, 3])
    assert (r, lo) == (0, 0)
    assert hi == pytest.approx(stats.proportion_ci(0, 6)[1])


#: How each sentence of the summary opens, one per part of the study, in order.
SENTENCES = ("With four heuristic players a team scores on average ", "A team makes ",
             " of hands end with a team going out and ", "A game to 2000 lasts ",
             "Heuristic players at every seat score ", "Per team-hand, heuristic players lay ",
             "Of the rule variants, ")


def test_tiny_run_works(run_study):
    """A run far too small for most estimates still gives every sentence: one per
    part of the study, in order, each a whole sentence."""
    summary = run_study(bs.NAME, TINY, SEED).summary
    assert len(summary) == len(SENTENCES), summary
    for line, opening in zip(summary, SENTENCES):
        assert opening in line, (opening, line)
        assert line.endswith("."), line
