"""Properties of the Shiesta kernel through its API (simkit/shiesta/api.py,
simkit/shiesta/kernel.py) against seeds/shiesta.md.

Move-for-move agreement with the reference engine (which also checks that
every card is accounted for after every turn) is in
test_shiesta_differential.py; here: reproducibility (threads, batches, start
offsets), invariants of the game records under every preset and policy mix,
the deal's exact special-card counts, and bad input.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from simkit.runs.batches import max_threads
from simkit.shiesta import api
from simkit.shiesta.rules import PRESETS, Starter, make_rules

SEED = 20261129
PLAYERS = (3, 4, 5)
MIXED = ["random", "heuristic:exchange=keep", "heuristic:save_specials=false", "random",
         "heuristic:burn_at=2,three_at=9"]


@pytest.mark.skipif(max_threads() < 2, reason="numba's thread pool has a single thread")
@pytest.mark.parametrize("players", [  # quick tier: the first; full: all
    p if i == 0 else pytest.param(p, marks=pytest.mark.slow)
    for i, p in enumerate(PLAYERS)])
def test_same_games_on_one_and_two_threads(players):
    kw = {"players": players, "rules": "seven-reverses", "policy": MIXED[:players], "seed": SEED}
    pd.testing.assert_frame_equal(api.simulate_games(20_000, threads=1, **kw),
                                  api.simulate_games(20_000, threads=2, **kw))


def test_start_offsets_and_seeds():
    whole = api.simulate_games(6_000, seed=SEED)
    tail = api.simulate_games(2_000, seed=SEED, start=4_000)
    pd.testing.assert_frame_equal(whole.iloc[4_000:].reset_index(drop=True), tail)
    assert not api.simulate_games(1_000, seed=SEED + 1).equals(whole.iloc[:1_000])


@pytest.mark.parametrize("players", PLAYERS)
def test_game_invariants_every_preset(players):
    """Under every preset and policy mix (seed fixed, 3,000 games each), the game
    records keep what seeds/shiesta.md guarantees: a winner or the turn cap, one
    seat out, the deal's sizes, specials dealt to the winner played, 3s and 10s
    played at most once each, and no card made."""
    for preset in PRESETS:
        rules = make_rules(preset, players=players) if preset != "five-one-deck" or players == 5 \
            else None
        if rules is None:
            continue
        for policy in ("heuristic", MIXED[:players]):
            df = api.simulate_games(3_000, players=players, rules=rules, policy=policy, seed=SEED)
            N = players
            done = ~df["unfinished"]
            # a winner, or the unfinished flag at the turn cap: never both, never neither
            assert ((df["winner"] >= 0) == done).all()
            assert (df.loc[~done, "turns"] == rules.max_turns).all()
            assert (df.loc[done, "turns"] <= rules.max_turns).all()
            left = df[[f"cards_left_{s}" for s in range(N)]].to_numpy()
            w = df["winner"].to_numpy()
            assert (left[done.to_numpy(), w[done.to_numpy()]] == 0).all()
            assert (left[~done.to_numpy()] > 0).all()
            assert ((df["winner_seat"] - (df["winner"] - df["starter"]) % N)[done] == 0).all()
            if rules.starter == Starter.FIXED:
                assert (df["starter"] == 0).all()
            # the winner wins at once (4.5): in a finished game exactly one seat is out
            assert ((left == 0).sum(axis=1) == done).all()
            # turn 1 is the opening, a play; every other turn is a play or one pickup
            pickups = df[[f"pickups_{s}" for s in range(N)]].sum(axis=1)
            assert (pickups <= df["turns"] - 1).all()
            copies, size = 4 * rules.n_decks, 6 + rules.hand_size
            undealt = rules.cards - N * size
            dealt = {r: df[[f"dealt_{r}_{s}" for s in range(N)]].to_numpy()
                     for r in ("2", "3", "7", "10")}
            # the deal: a seat's specials fit in its 3 + 3 + hand_size cards, and every
            # copy not in the draw pile went to a seat (this bites when nearly all
            # cards are dealt, as in five-one-deck)
            assert (sum(dealt.values()) <= size).all()
            for _r, d in dealt.items():
                assert (d.sum(axis=1) <= copies).all()
                assert (d.sum(axis=1) >= copies - undealt).all()
            # a card leaves a seat only by being played (a pickup goes to the picker),
            # so the winner played every special it was dealt, at least once
            won = done.to_numpy()
            for r, d in dealt.items():
                assert (df[f"played_{r}"].to_numpy()[won] >= d[won, w[won]]).all(), r
            # 3s and 10s leave the game when played (3): each copy is played at most
            # once, and no card is made: cards still held + 3s and 10s gone <= the decks
            assert (df["played_3"] <= copies).all()
            assert (df["played_10"] <= copies).all()
            assert (left.sum(axis=1) + df["played_3"] + df["played_10"] <= rules.cards).all()
            # who led (simkit/base/drama.py): the winner led for good by the last turn at
            # the latest, and an unfinished game has no winner to settle on
            assert ((df["settled"] == -1) == ~done).all()
            assert (df["settled"] < df["turns"]).all()


@pytest.mark.parametrize("players", PLAYERS)
def test_dealt_special_counts_are_hypergeometric(players):
    """A seat's count of 10s among its 11 dealt cards follows the hypergeometric
    law C(K,k) C(D-K, 11-k) / C(D, 11), with D = 52 per deck and K = 4 per deck
    (seed fixed, 40,000 games, chi-square p > 1e-4)."""
    rules = make_rules(players=players)
    D, K, n = rules.cards, 4 * rules.n_decks, 11
    df = api.simulate_games(40_000, players=players, policy="random", seed=SEED + players)
    observed = np.bincount(df["dealt_10_0"], minlength=K + 1)[:K + 1]
    expected = np.array([comb(K, k) * comb(D - K, n - k) / comb(D, n) for k in range(K + 1)])
    expected *= len(df)
    keep = expected > 5                    # small cells pooled into one
    obs, exp = observed[keep], expected[keep]
    if (~keep).any():
        obs, exp = np.r_[obs, observed[~keep].sum()], np.r_[exp, expected[~keep].sum()]
    assert stats.chisquare(obs, exp).pvalue > 1e-4
    # and the starter is uniform over the seats
    assert stats.chisquare(np.bincount(df["starter"], minlength=players)).pvalue > 1e-4


@pytest.mark.parametrize(("argv", "words"), [
    (["simulate", "shiesta", "--players", "2"], ["2", "players"]),
    (["simulate", "shiesta", "--players", "6"], ["6", "players"]),
    (["simulate", "shiesta", "--hands", "10"], ["--games"]),
    (["simulate", "shiesta", "--set", "higher=lower"], ["lower", "higher"]),
    (["simulate", "shiesta", "--set", "decks=1", "--players", "5"], ["55", "decks"]),
    (["simulate", "shiesta", "--set", "max_turns=0"], ["0", "max_turns"]),
    (["simulate", "shiesta", "--preset", "moon-eight"], ["moon-eight"]),
    (["simulate", "shiesta", "--policy", "heuristic:exchange=sideways"], ["sideways"]),
    (["simulate", "shiesta", "--games", "10", "--aggregate"], ["--aggregate"]),
    (["advise", "shiesta", "--hand", "AS"], ["advise"]),
])
def test_bad_shiesta_input_is_one_line_exit_2_and_writes_nothing(workdir, cli, argv, words):
    cli.refused(*argv, *(["--out", "x"] if argv[0] == "simulate" else []), names=words)


def test_cli_simulate_and_rules(workdir, cli):
    code, out, err = cli("simulate", "shiesta", "--games", "20000", "--players", "3",
                         "--no-progress", "--out", "g")
    assert code == 0, err
    assert "20,000 games" in out
    assert "the starter" in out
    assert "unfinished" in out
    from simkit.runs.store import read_run
    df, man = read_run(workdir / "g")
    assert man["game"] == "shiesta"
    assert man["unit"] == "game"
    assert len(df) == 20_000
    pd.testing.assert_frame_equal(df, api.simulate_games(20_000, players=3),
                                  check_categorical=False)
    code, out, err = cli("rules", "shiesta")
    assert code == 0
    for key in ("decks", "hand_size", "higher", "two", "seven_reverses", "after_burn",
                "after_pickup", "opening", "starter", "max_turns", "exchange", "burn_at",
                *PRESETS):
        assert key in out, key
