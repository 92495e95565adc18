"""Differential tests: the numba kernel (simkit/burraco/kernel.py) against the
readable reference engine (simkit/burraco/reference.py).

The two engines share no code (the reference judges melds with
simkit/burraco/melds.py, the kernel with its own checks); seeds/burraco.md
fixes every decision and the order of random draws, so they must agree
exactly: every decision of every turn (draw, keep, each meld and addition
with its cards, pozzetti, discards, going out) and every column of the hand
record; whole games agree too, every column of the game record (who led,
hand by hand, included: lead changes, comeback, settled).

Sizes: 2,000 hands under every rule set (the seed's and each preset), half
with heuristic tables, half with tables mixing random, classic, heuristic
and patient players with other parameters; 500 whole games, and a few games
that are long, unfinished or shared.
"""

from __future__ import annotations

import pytest

from simkit.burraco import reference as R
from simkit.burraco.api import simulate_games, trace_hands
from simkit.burraco.policies import make_policies
from simkit.burraco.record import body
from simkit.burraco.rules import PRESETS, make_rules

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

SEED = 0x5EED_B0CC
OTHER_SEED = 2
HANDS = 1_000                  # per policy mix: 2,000 hands per rule set
GAMES = 250                    # per rule set below: 500 whole games
MIXED = ["random", "heuristic:take_at=3,close_margin=100,end_threat=true", "patient",
         "classic:open_at=4,wild_at=3"]
#: Rule sets: every preset (a rule variant each), and the game-level ones as well.
RULE_SETS = list(PRESETS)


def assert_same_hands(rules, policies, seed: int, start: int, count: int) -> None:
    tr = trace_hands(rules, policies, seed, start, count)
    kern = tr["frame"]
    bad = []
    for j in range(count):
        log = R.play_hand(rules, policies, seed, start + j, (start + j) % 4)
        ref_codes = log.decision_codes()
        ker_codes = [int(x) for x in tr["codes"][j] if x >= 0]
        rec = log.record()
        row = kern.iloc[j]
        diff = {k: (row[k], v) for k, v in rec.items() if row[k] != v}
        if ref_codes != ker_codes or diff:
            bad.append((j, ref_codes, ker_codes, diff, log))
    if not bad:
        return
    j, ref_codes, ker_codes, diff, log = bad[0]
    i = next((i for i, (a, b) in enumerate(zip(ref_codes, ker_codes)) if a != b),
             min(len(ref_codes), len(ker_codes)))
    pytest.fail(f"{len(bad)} of {count} hands differ; first: hand {start + j} (seed {seed}, "
                f"rules {rules.as_dict()}, policies {[p.text() for p in policies]})\n"
                f"record differences (kernel, reference): {diff}\n"
                f"first differing decision {i}: kernel {ker_codes[i - 3:i + 3]} reference "
                f"{ref_codes[i - 3:i + 3]}\n--- reference ---\n" + "\n".join(body(log)))


@pytest.mark.parametrize("preset", RULE_SETS)
def test_heuristic_hands_agree(preset):
    assert_same_hands(make_rules(preset), make_policies("heuristic"), SEED, 0, HANDS)


@pytest.mark.parametrize("preset", RULE_SETS)
def test_mixed_hands_agree(preset):
    assert_same_hands(make_rules(preset), make_policies(MIXED), OTHER_SEED, 10**9, HANDS)


def assert_same_games(rules, policies, seed: int, start: int, count: int):
    """Games ``start .. start+count-1`` agree column by column; returns the kernel's."""
    kern = simulate_games(count, rules=rules, policy=policies, seed=seed, start=start)
    for j in range(count):
        ref = R.play_game(rules, policies, seed, start + j).record()
        assert set(ref) == set(kern.columns) - {"game"}        # every column compared
        row = kern.iloc[j]
        for key, value in ref.items():
            assert row[key] == value, (start + j, key, row[key], value)
    return kern


@pytest.mark.parametrize("preset", ["seed", "shared-ties"])
def test_games_agree(preset):
    rules = make_rules(preset, overrides={"target": 1500})
    assert_same_games(rules, make_policies(MIXED), SEED, 0, GAMES)


@pytest.mark.parametrize("case", [
    # more than 64 hands between even teams: the kernel's history outgrows its
    # first buffer (simkit.base.lead) in the first game of a block, and the block's
    # next games reuse the bigger one
    ("seed", {"target": 35_000}, "heuristic", 0, 5, "hands > 64"),
    # unfinished: no winner, so settled is -1
    ("seed", {"target": 100_000, "max_hands": 3}, MIXED, 0, 20, "unfinished"),
    # game 351 is a shared win in its first hand (test_burraco_reference, the tie rule)
    ("shared-ties", {"target": 1}, "classic", 348, 6, "shared"),
], ids=["long", "unfinished", "shared"])
def test_long_unfinished_and_shared_games_agree(case):
    preset, overrides, policy, start, count, reached = case
    kern = assert_same_games(make_rules(preset, overrides=overrides), make_policies(policy),
                             11, start, count)
    assert kern.eval(reached).any(), reached


def test_the_compared_games_have_drama():
    """Who led is not trivially zero in the games compared above: leads change,
    winners come back, games are settled after different numbers of hands."""
    rules = make_rules("seed", overrides={"target": 1500})
    df = simulate_games(GAMES, rules=rules, policy=make_policies(MIXED), seed=SEED)
    assert (df["lead_changes"] > 0).sum() >= 10
    assert df["lead_changes"].max() >= 2
    assert df["comeback"].sum() >= 10
    assert df["settled"].nunique() >= 3
    assert (df["settled"] > 0).sum() >= 10


def test_mixed_tables_reach_every_ending():
    """The mixed tables reach the rare paths: both pozzetto ways, untaken
    pozzetti, hands ended by the stock and by going out."""
    rules = make_rules("seed")
    df = trace_hands(rules, make_policies(MIXED), OTHER_SEED, 10**9, HANDS)["frame"]
    assert set(df["ended"]) >= {"closed", "stock"}
    assert (df["pozzetto_penalty_0"] < 0).any()
    assert (df["pozzetto_turn_1"] > 0).any()
    assert (df["clean_burraco_0"] + df["clean_burraco_1"] > 0).any()
