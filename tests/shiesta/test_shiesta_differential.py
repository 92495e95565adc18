"""Differential tests: the numba kernel (simkit/shiesta/kernel.py) against the
readable reference engine (simkit/shiesta/reference.py).

The two engines share no code; seeds/shiesta.md fixes every decision,
including the order of random draws, so they must agree exactly: every move
of every game (who played which rank how many times from where, every
pickup) and every column of the game record, who led among them
(lead_changes, comeback, settled: the kernel's simkit/base/lead.py against the
reference's simkit/base/drama.py, on the top after every turn).

Sizes: for each player count 3, 4 and 5, 4,000 games under the seed's rules
and 4,000 under ``ALL_VARIANTS``, a rule set in which every variant differs
from its default at once (so each variant's code runs in 4,000 games per
player count), half with heuristic tables and half with tables mixing random
players and heuristics with other parameters; plus 500 games per player count
under each named preset alone; and 300 games per player count and rule set
(the seed's, ALL_VARIANTS) with every seat on ``NAMED["classic"]`` (the
heuristic as it was before its stuck-3, sets-of-specials and burn changes).
A mismatch reports the first differing game with the reference's log.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simkit.shiesta import reference as R
from simkit.shiesta.api import trace_games
from simkit.shiesta.policies import NAMED, make_policies
from simkit.shiesta.record import body
from simkit.shiesta.rules import PRESETS, make_rules

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

SEED = 0x5EED_5E57
OTHER_SEED = 2                  # seed_key(2) >= 2**63: keys of both signs
PLAYERS = (3, 4, 5)
GAMES = 2_000                   # per policy mix: 4,000 games per (players, rule set)
PRESET_GAMES = 250              # per policy mix and preset
CLASSIC_GAMES = 300             # NAMED["classic"], per (players, rule set)
WHO_LED = ("lead_changes", "comeback", "settled")     # compared like every other column

#: Every rule away from its default (two decks also for 3 and 4 players).
ALL_VARIANTS = {"decks": "2", "hand_size": 4, "higher": "equal", "two": "transparent",
                "seven_reverses": True, "after_burn": "again", "after_pickup": "picker",
                "opening": "every", "starter": "fixed", "max_turns": 400}


def mixed_specs(players: int) -> list[str]:
    cycle = ["random", "heuristic:exchange=keep,burn_at=3,three_sets=all,special_sets=one",
             "heuristic:save_specials=false", "random",
             "heuristic:three_at=8,burn_at=12,three_sets=dry,special_sets=all,"
             "stuck_three_pile=0,stuck_three_next=200"]
    return cycle[:players]


def reference_frame(rules, policies, seed: int, start: int, count: int):
    width = rules.max_turns
    moves = np.full((count, width), -1, np.int64)
    rows = []
    for j in range(count):
        log = R.play_game(rules, policies, seed, start + j)
        codes = log.move_codes()
        moves[j, :len(codes)] = codes
        rows.append({"game": start + j, **log.record()})
    return pd.DataFrame(rows), moves


def assert_same_games(rules, policies, seed: int, start: int, count: int) -> None:
    tr = trace_games(rules, policies, seed, start, count)
    kern = tr["frame"].drop(columns=[c for c in tr["frame"] if c.startswith("policy_")])
    ref, moves = reference_frame(rules, policies, seed, start, count)
    assert sorted(kern.columns) == sorted(ref.columns)
    assert set(WHO_LED) <= set(kern.columns)
    ref = ref[list(kern.columns)]
    bad = (tr["moves"] != moves).any(axis=1)
    for col in kern.columns:
        bad |= kern[col].to_numpy() != ref[col].to_numpy()
    if not bad.any():
        return
    j = int(np.argmax(bad))
    diff = [f"{c}: kernel {kern[c].iloc[j]} reference {ref[c].iloc[j]}"
            for c in kern.columns if kern[c].iloc[j] != ref[c].iloc[j]]
    first = int(np.argmax(tr["moves"][j] != moves[j]))
    log = R.play_game(rules, policies, seed, start + j)
    pytest.fail(
        f"{int(bad.sum())} of {count} games differ; first: game {start + j} (seed {seed}, "
        f"rules {rules.as_dict()}, policies {[p.text() for p in policies]})\n"
        + "\n".join(diff) + f"\nfirst differing move: {first} (kernel {tr['moves'][j, first]}, "
        f"reference {moves[j, first]})\n--- reference ---\n" + "\n".join(body(log)))


@pytest.mark.parametrize("variants", ["seed", "all-variants"])
@pytest.mark.parametrize("players", PLAYERS)
def test_games_agree(players, variants):
    values = ALL_VARIANTS if variants == "all-variants" else {}
    rules = make_rules(overrides=values, players=players)
    assert_same_games(rules, make_policies("heuristic", players), SEED, 0, GAMES)
    assert_same_games(rules, make_policies(mixed_specs(players), players), OTHER_SEED,
                      10**9, GAMES)


@pytest.mark.parametrize("players", PLAYERS)
def test_classic_agrees(players):
    """The old heuristic (NAMED["classic"]) under the seed's rules and under
    ALL_VARIANTS: both engines still play it move for move."""
    for values, seed in (({}, SEED + 3), (ALL_VARIANTS, SEED + 4)):
        rules = make_rules(overrides=values, players=players)
        assert_same_games(rules, make_policies(NAMED["classic"], players), seed, 0, CLASSIC_GAMES)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_presets_agree(preset):
    for players in PLAYERS:
        if preset == "five-one-deck" and players != 5:
            continue
        rules = make_rules(preset, players=players)
        assert_same_games(rules, make_policies("heuristic", players), SEED + 1, 0, PRESET_GAMES)
        assert_same_games(rules, make_policies(mixed_specs(players), players), SEED + 2,
                          7_000, PRESET_GAMES)


def test_all_variants_are_exercised():
    """ALL_VARIANTS moves every rule off its default, and the
    tables reach the rare cases: unfinished games, every special played."""
    default = make_rules()
    for key, value in ALL_VARIANTS.items():
        assert getattr(default, key) != value, key
    rules = make_rules(overrides=ALL_VARIANTS, players=4)
    df = trace_games(rules, make_policies(mixed_specs(4), 4), OTHER_SEED, 10**9, GAMES)["frame"]
    assert df["unfinished"].any()
    assert not df["unfinished"].all()
    for r in ("2", "3", "7", "10"):
        assert df[f"played_{r}"].sum() > 0, r


def test_who_led_is_not_trivial():
    """The lead passes in most games, some winners come back, games settle at
    different turns; long games grow the kernel's history (64 turns at first)
    within a block of games, and the two engines still agree on them."""
    for players in PLAYERS:
        rules = make_rules(players=players)
        policies = make_policies("heuristic", players)
        df = trace_games(rules, policies, SEED + 5, 0, 600)["frame"]
        done = df[~df["unfinished"]]
        assert (df["lead_changes"] > 0).mean() > 0.5, players
        assert df["lead_changes"].max() >= 5
        assert 0.05 < done["comeback"].mean() < 0.95, players
        assert done["settled"].nunique() > 20
        assert (done["settled"] < done["turns"] - 1).any()
        assert (df["turns"] > 128).any()
        assert_same_games(rules, policies, SEED + 5, 0, 600)


def test_settled_is_within_the_game():
    """settled counts turns played before the winner led for good: at most the
    game's turns, and -1 exactly for the unfinished games (no winner)."""
    tables = [(make_rules(overrides=ALL_VARIANTS, players=4), mixed_specs(4)),
              (make_rules(players=3), "heuristic"),
              (make_rules(players=5, overrides={"max_turns": 60}), "random")]
    unfinished = 0
    for rules, policy in tables:
        policies = make_policies(policy, rules.players)
        df = trace_games(rules, policies, OTHER_SEED, 10**9, GAMES)["frame"]
        assert ((df["settled"] == -1) == df["unfinished"]).all()
        assert (df["settled"] <= df["turns"]).all()
        assert (df["settled"] >= -1).all()
        assert not df.loc[df["unfinished"], "comeback"].any()
        unfinished += df["unfinished"].sum()
    assert unfinished >= 100
