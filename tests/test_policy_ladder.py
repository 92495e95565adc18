"""The policy-ladder studies: a tournament per game, findings from its tables,
and the players named with their specs (what every study satisfies, the
report among it, is checked in test_studies.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from analyses import policy_ladder

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pepper(run_study):
    return run_study(policy_ladder.pepper.NAME, 4_000, 3)


def test_tables_and_findings_come_from_the_tournament(pepper):
    t = pepper.tables
    assert list(t) == ["ratings", "pairs", "game_ratings", "game_pairs", "search_ratings",
                       "search_pairs", "search_game_ratings", "search_game_pairs"]
    entrants = policy_ladder.entrants("pepper", policy_ladder.SETUPS["pepper"])
    assert set(t["ratings"]["policy"]) == set(entrants)
    assert "expert" not in entrants                     # it searches: a ladder of its own
    assert entrants[0] == "heuristic"
    assert entrants[-1] == "random"
    assert t["ratings"]["policy"].iloc[-1] == "random"          # last on the ladder
    assert len(t["pairs"]) == len(entrants) * (len(entrants) - 1) // 2
    first = pepper.summary[0]
    top = t["ratings"].iloc[0]
    assert first.startswith("Hands, 4 players, 4,000 duplicate hands per table")
    assert f"{top.policy} +{top.rating:.0f}" in first.replace("\u2212", "-")
    assert any(s.startswith("heuristic against random") and "heuristic is stronger" in s
               for s in pepper.summary)
    # the searching policy's ladder: on 1/SEARCH_SHARE of the deals, against the expert
    # without inference, the heuristic and classic, in hands and in whole games
    search = t["search_ratings"]
    assert set(search["policy"]) == {"expert", "expert:model=voids", "heuristic", "classic"}
    assert (search["deals"] == max(50, 4_000 // policy_ladder.SEARCH_SHARE)).all()
    assert len(t["search_pairs"]) == 6
    games = t["search_game_ratings"]
    assert set(games["policy"]) == set(search["policy"])
    assert (games["unit"] == "game").all()
    assert len(t["search_game_pairs"]) == 6
    for what in ("hands", "whole games"):
        i = pepper.summary.index(next(s for s in pepper.summary
                                      if s.startswith(f"The policies that search, {what}")))
        assert pepper.summary[i + 1].startswith("expert against expert:model=voids: ")
        assert pepper.summary[i + 2].startswith("expert against heuristic: ")
    assert pepper.provenance["search_hands"] == max(50, 4_000 // policy_ladder.SEARCH_SHARE)
    assert pepper.provenance["search_games"] == 20


def test_only_pepper_has_a_policy_that_searches():
    assert policy_ladder.searchers("pepper") == ["expert"]
    for game in ("pitch", "shiesta", "burraco"):
        assert policy_ladder.searchers(game) == []


def test_every_entrant_is_named_with_its_spec(pepper):
    prov = pepper.provenance["policies"]
    assert set(prov) == set(policy_ladder.entrants("pepper", policy_ladder.SETUPS["pepper"])
                            + policy_ladder.search_entrants("pepper"))
    assert prov["random"] == "random"
    assert prov["heuristic"].startswith("heuristic:")
    assert prov["heuristic:aggression=-1"].startswith("heuristic:aggression=-1")
    assert prov["expert"].startswith("expert:")
    assert "worlds=16" in prov["expert"]


def test_upsets_and_disagreements_are_found():
    ratings = pd.DataFrame({"policy": ["x", "y"], "rating": [10.0, -10.0]})
    pairs = pd.DataFrame([{"a": "x", "b": "y", "diff": -2.0, "ci_low": -3.0, "ci_high": -1.0,
                           "p_value": 0.001, "deals": 300, "a_better": 100, "level": 0,
                           "b_better": 200}])
    assert "y, rated below x, does better than it head to head on 200 deals against 100" \
        in policy_ladder._upsets(ratings, pairs, "deal")[0]
    pairs.loc[0, ["a_better", "b_better"]] = [200, 100]
    assert policy_ladder._disagreements(pairs, "points per hand", "deal")[0].startswith(
        "x does better than y on more deals but gets \u22122.000 points per hand")
