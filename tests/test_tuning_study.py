"""The tuning studies: a tune per game, its confirmation and what the tuned
player does differently (what every study satisfies is checked in
test_studies.py, at the same size)."""

from __future__ import annotations

import numpy as np
import pytest

from analyses import tuning
from simkit import engine, games, tune
from simkit.base import stats

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pepper(run_study):
    return run_study(tuning.pepper.NAME, 300, 3)


def test_trials_are_the_search(pepper):
    t = pepper.tables["trials"]
    assert list(t["trial"]) == list(range(tuning.TRIALS))
    assert (t["best_so_far"] == t["value"].cummax()).all()
    for s in t["setting"]:
        games.get("pepper").make_policies(s, 1)          # each a spec --policy takes
    imp = pepper.tables["importance"]
    assert set(imp["parameter"]) == {"aggression", "partner_help", "kubwa_margin"}
    assert imp["importance"].sum() == pytest.approx(1.0)


def test_confirmation_meets_the_field_and_policies_outside_it(pepper):
    c = pepper.tables["confirm"]
    setup = tuning.SETUPS["pepper"]
    assert c["setting"].nunique() == tune.CONFIRM_BEST
    # every named setting outside the field (untuned) is met too
    assert set(c["against"]) == {"heuristic", "classic", "untuned", *setup.outside}
    assert set(c.loc[~c["in_field"], "against"]) == {"untuned", *setup.outside}
    assert set(c["unit"]) == {"hand", "game"}
    hands = c[c["unit"] == "hand"]
    assert (hands["deals"] == 300).all()
    assert (c.loc[c["unit"] == "game", "deals"] == 200).all()       # at least 200 games
    t = pepper.tables["trials"]
    best = t.sort_values(["value", "trial"], ascending=[False, True])["setting"].iloc[0]
    assert c["setting"].iloc[0] == best
    ok = c["diff"].notna()
    assert (c.loc[ok, "ci_low"] <= c.loc[ok, "diff"]).all()
    assert (c.loc[ok, "diff"] <= c.loc[ok, "ci_high"]).all()


def test_behaviour_is_the_same_deals_at_both_tables(pepper):
    b = pepper.tables["behaviour"]
    best = b["setting"].iloc[0]
    assert list(b["column"]) == list(tuning.SETUPS["pepper"].behaviour)
    g = games.get("pepper")
    seed = tune.confirm_seed(3)
    base, mine = (engine.simulate(g, "hand",
                                  engine.RunSettings(300, players=4, policy=p, seed=seed))
                  for p in ("heuristic", best))
    assert (base["dealer"] == mine["dealer"]).all()
    row = b[b["column"] == "contract"].iloc[0]
    d, lo, hi = stats.mean_ci_of(mine["contract"].to_numpy(float)
                                 - base["contract"].to_numpy(float))
    assert (row["default"], row["tuned"]) == pytest.approx(
        (base["contract"].mean(), mine["contract"].mean()))
    assert (row["diff"], row["ci_low"], row["ci_high"]) == pytest.approx((d, lo, hi))


def test_findings_say_who_played_and_whether_the_default_changes(pepper):
    text = " ".join(pepper.summary)
    best = pepper.tables["behaviour"]["setting"].iloc[0]
    assert best in text
    assert "tried against heuristic and classic" in text
    for who in ("heuristic:aggression=1", "random"):
        assert f"against {who}, a policy the search never met" in text
    prov = pepper.provenance
    assert set(prov["policies"]) >= {"heuristic", "classic", "heuristic:aggression=1", "random"}
    assert prov["searched"] == list(tuning.SETUPS["pepper"].params)
    # the verdict follows the whole-game interval against the default
    tables = {k: v.copy() for k, v in pepper.tables.items()}
    c = tables["confirm"]
    row = (c["setting"] == best) & (c["against"] == "heuristic") & (c["unit"] == "game")
    for lo, hi, says in ((0.01, 0.2, "a candidate for the default"),
                         (-0.05, 0.2, "the default stays")):
        c.loc[row, ["diff", "ci_low", "ci_high"]] = [(lo + hi) / 2, lo, hi]
        assert says in " ".join(tuning.pepper.findings(tables))


def test_a_game_played_in_whole_games_confirms_in_games_only(run_study):
    res = run_study(tuning.shiesta.NAME, 300, 3)
    c = res.tables["confirm"]
    assert set(c["unit"]) == {"game"}
    assert (c["deals"] == 300).all()
    assert "shiesta --param three_at=0:8" in " ".join(res.notes)
    assert np.isfinite(res.tables["behaviour"]["diff"]).all()
