"""Properties of the Burraco kernel through its API (simkit/burraco/api.py,
simkit/burraco/kernel.py) against seeds/burraco.md.

Decision-for-decision agreement with the reference engine (which also checks
every card and every meld after every turn) is in
test_burraco_differential.py; here: reproducibility across threads and start
offsets, record invariants under every preset and policy mix (every score
equals the sum of its parts), the kernel's meld checks against the meld
module on random card groups, and bad input.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simkit.base.config import vector
from simkit.burraco import api, melds
from simkit.burraco import kernel_melds as KM
from simkit.burraco.rules import PRESETS, UntakenPozzetto, make_rules
from simkit.runs.batches import max_threads

SEED = 20261129
MIXED = ["random", "patient", "heuristic:take_at=2", "heuristic:close_margin=-200"]


@pytest.mark.skipif(max_threads() < 2, reason="numba's thread pool has a single thread")
def test_same_hands_and_games_on_one_and_two_threads():
    kw = {"rules": "pozzetto-cards", "policy": MIXED, "seed": SEED}
    pd.testing.assert_frame_equal(api.simulate(1_500, threads=1, **kw),
                                  api.simulate(1_500, threads=2, **kw))
    pd.testing.assert_frame_equal(api.simulate_games(200, threads=1, **kw),
                                  api.simulate_games(200, threads=2, **kw))


def test_start_offsets():
    whole = api.simulate(1_200, seed=SEED)
    tail = api.simulate(400, seed=SEED, start=800)
    pd.testing.assert_frame_equal(whole.iloc[800:].reset_index(drop=True), tail)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_hand_records_add_up(preset):
    rules = make_rules(preset)
    for policy in ("heuristic", MIXED):
        df = api.simulate(1_500, rules=rules, policy=policy, seed=SEED)
        for t in range(2):
            parts = (df[f"melded_{t}"] + df[f"hand_penalty_{t}"] + df[f"burraco_bonus_{t}"]
                     + df[f"closing_bonus_{t}"] + df[f"pozzetto_penalty_{t}"])
            assert (df[f"score_{t}"] == parts).all()
            assert (df[f"burraco_bonus_{t}"] == 200 * df[f"clean_burraco_{t}"]
                    + 100 * df[f"dirty_burraco_{t}"]).all()
            assert (df[f"hand_penalty_{t}"] <= 0).all()
            assert (df[f"melded_{t}"] >= 0).all()
            # what the table holds: sets and sequences make the melds; at most the
            # 12 wild cards of the deck (4 jokers, 8 twos), each burraco a meld
            assert (df[f"sets_{t}"] + df[f"sequences_{t}"] == df[f"melds_{t}"]).all()
            assert (df[f"sets_{t}"] >= 0).all()
            assert (df[f"sequences_{t}"] >= 0).all()
            assert (df[f"clean_burraco_{t}"] + df[f"dirty_burraco_{t}"]
                    <= df[f"melds_{t}"]).all()
            assert df[f"wilds_{t}"].between(0, 12).all()
            untaken = df[f"pozzetto_turn_{t}"] < 0
            assert (df.loc[~untaken, f"pozzetto_penalty_{t}"] == 0).all()
            if rules.untaken_pozzetto == UntakenPozzetto.FLAT:
                assert (df.loc[untaken, f"pozzetto_penalty_{t}"] == -100).all()
            else:
                assert (df.loc[untaken, f"pozzetto_penalty_{t}"] < 0).all()
            # going out needs the team's pozzetto and a burraco, and pays the bonus
            closed = (df["ended"] == "closed") & (df["closer"] % 2 == t)
            assert (df.loc[closed, f"pozzetto_turn_{t}"] > 0).all()
            assert (df.loc[closed, f"clean_burraco_{t}"] + df.loc[closed, f"dirty_burraco_{t}"]
                    > 0).all()
            assert (df.loc[closed, f"closing_bonus_{t}"] == rules.closing_bonus).all()
            assert (df.loc[~closed, f"closing_bonus_{t}"] == 0).all()
        assert (df["wilds_0"] + df["wilds_1"] <= 12).all()
        assert ((df["ended"] == "closed") == (df["closer"] >= 0)).all()
        assert (df.loc[df["ended"] == "cap", "turns"] == rules.max_turns).all()


def test_who_led_in_whole_games():
    """``settled`` is at most ``hands`` (less: the winner leads after the last
    hand) and -1 exactly without a single winner (shared, unfinished); a
    comeback needs a single winner, a lead change and a game unsettled at
    halfway.  Games won, unfinished (``max_hands`` 3) and shared (target 1:
    game 351 of seed 11 is, test_burraco_reference)."""
    df = pd.concat([
        api.simulate_games(300, rules=make_rules(overrides={"target": 3000}), policy=MIXED,
                           seed=SEED),
        api.simulate_games(50, rules=make_rules(overrides={"target": 100_000, "max_hands": 3}),
                           seed=SEED),
        api.simulate_games(100, rules=make_rules("shared-ties", overrides={"target": 1}),
                           policy="classic", seed=11, start=300)])
    assert df["shared"].any()
    assert df["unfinished"].any()
    assert (df["winner"] >= 0).any()
    one = df["winner"] >= 0
    assert (one == ~(df["shared"] | df["unfinished"])).all()
    assert (df["settled"] <= df["hands"]).all()
    assert ((df["settled"] == -1) == ~one).all()
    assert (df.loc[one, "settled"] < df.loc[one, "hands"]).all()
    back = df[df["comeback"]]
    assert len(back)
    assert (back["winner"] >= 0).all()
    assert (back["lead_changes"] >= 1).all()
    assert (back["settled"] >= back["hands"] // 2).all()


@pytest.mark.slow
def test_kernel_meld_checks_agree_with_the_meld_module():
    """The kernel's set and sequence checks (its own code) against melds.read_meld
    on 20,000 random groups of 3 to 9 cards drawn near one suit or rank, under
    both wild-card variants (seed fixed)."""
    rng = np.random.default_rng(SEED)
    buf = np.zeros(KM.MAXC + 8, np.int64)
    for rules in (make_rules(), make_rules(overrides={"twos_set": True, "sequence_wilds": 2})):
        rv = vector(rules)
        mr = melds.MeldRules(twos_set=rules.twos_set, sequence_wilds=rules.sequence_wilds)
        for _ in range(10_000):
            n = int(rng.integers(3, 10))
            if rng.random() < 0.5:        # around a suit: a run with wild cards mixed in
                s = int(rng.integers(4))
                pool = [s * 13 + k + 52 * d for k in range(13) for d in range(2)]
            else:                         # around a rank
                r = int(rng.integers(13))
                pool = [r + 13 * s + 52 * d for s in range(4) for d in range(2)]
            pool += [104, 105, 106, 107] + [1 + 13 * s for s in range(4)]
            cards = [int(c) for c in rng.choice(sorted(set(pool)), size=n, replace=False)]
            for kind, name in ((KM.MELD_SET, "set"), (KM.MELD_SEQUENCE, "sequence")):
                buf[:n] = cards
                ok, clean = KM._valid(buf, n, kind, rv)
                m = melds.read_meld(cards, mr, kind=name)
                assert ok == (m is not None), (cards, name)
                if ok:
                    assert clean == m.clean, (cards, name)


@pytest.mark.parametrize(("argv", "words"), [
    (["simulate", "burraco", "--players", "3"], ["3", "exactly 4"]),
    (["simulate", "burraco", "--set", "pozzetto=never"], ["never", "pozzetto"]),
    (["simulate", "burraco", "--set", "sequence_wilds=3"], ["3", "sequence_wilds"]),
    (["simulate", "burraco", "--set", "target=0"], ["0", "target"]),
    (["simulate", "burraco", "--policy", "patient:open_at=2"], ["2", "open_at"]),
    (["simulate", "burraco", "--preset", "steal-outbid"], ["steal-outbid"]),
    (["simulate", "burraco", "--hands", "10", "--aggregate"], ["--aggregate"]),
    (["advise", "burraco", "--hand", "AS"], ["advise"]),
])
def test_bad_burraco_input_is_one_line_exit_2_and_writes_nothing(workdir, cli, argv, words):
    cli.refused(*argv, *(["--out", "x"] if argv[0] == "simulate" else []), names=words)


def test_cli_simulate_and_rules(workdir, cli):
    argv = ["simulate", "burraco", "--hands", "2000", "--no-progress", "--out", "h"]
    code, out, err = cli(*argv)
    assert code == 0, err
    assert "2,000 hands" in out
    assert "closed" in out
    assert "sets / sequences per hand" in out
    from simkit.runs.store import read_run
    df, man = read_run(workdir / "h")
    assert man["game"] == "burraco"
    assert len(df) == 2_000
    pd.testing.assert_frame_equal(df, api.simulate(2_000), check_categorical=False)
    code, out, err = cli("simulate", "burraco", "--games", "100", "--no-progress")
    assert code == 0
    assert "100 games" in out
    assert "win rate" in out
    code, out, err = cli("rules", "burraco")
    assert code == 0
    for key in ("twos_set", "sequence_wilds", "pozzetto", "untaken_pozzetto", "stock_end",
                "max_turns", "target", "tie", "take_at", "open_at", "wild_at", "patient",
                *PRESETS):
        assert key in out, key
    for column in ("sets_<team>", "sequences_<team>", "wilds_<team>"):
        assert column in out, column


def test_compare_measures_count_sets_sequences_and_wild_cards():
    from simkit.burraco.summary import measures
    hands = next(s for s in measures(make_rules()) if s.name == "hands")
    names = {m.metric for m in hands.measures}
    for label in ("sets per hand", "sequences per hand", "wild cards melded per hand"):
        assert {f"{label}, team {t}" for t in (0, 1)} <= names, label
