"""The designer's measures (simkit/design.py) on games whose answers are known
by hand, each game's design frame read from its records, and the skill trace
(simkit/lab/skill.py): a policy against itself scores exactly one half."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from simkit import design, games
from simkit.base.measures import Balance, Mean, Rate, Statistic
from simkit.lab import skill

# six finished-or-not games of a 3-seat game, counted by hand below
FRAME = pd.DataFrame({
    "game": range(6),
    "steps": [4, 6, 8, 10, 12, 30],
    "finished": [True, True, True, True, True, False],
    "decided": [True, True, True, True, True, False],
    "pos_1": [1.0, 1.0, 0.5, 0.0, 1.0, 0.0],
    "pos_2": [0.0, 0.0, 0.5, 1.0, 0.0, 0.0],
    "pos_3": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    "first": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    "lead_changes": [0, 2, 1, 3, 0, 5],
    "single": [True, True, False, True, True, False],
    "comeback": [False, True, False, True, False, False],
    "settled_share": [1.0, 0.5, np.nan, 0.2, 0.75, np.nan],
})


def _values(section, frame):
    """Each measure of ``section`` over ``frame``, as compare computes it."""
    out = {}
    for m in section.measures:
        if isinstance(m, Statistic):
            out[m.metric] = float(m.stat(np.asarray(m.values(frame), float), axis=0))
            continue
        if isinstance(m, Balance):     # per unit: decided, win shares, fair shares
            out[m.metric] = np.asarray(m.values(frame), float)
            continue
        counted = np.ones(len(frame), bool) if m.of is None else np.asarray(m.of(frame), bool)
        x = np.asarray(m.hit(frame) if isinstance(m, Rate) else m.value(frame), float)
        out[m.metric] = float(x[counted].mean())
    return out


def test_hand_counted_measures():
    section = design.section(lambda df: df, ["seat 1", "seat 2", "seat 3 (dealer)"],
                             "seat 3 (dealer)", cap="max_rounds")
    assert section.name == "design"
    assert section.unit == "game"
    v = _values(section, FRAME)
    # five finished games: seat 1 won 3.5 of them, seat 2 1.5, seat 3 none
    assert v["balance: win rate, seat 1"] == pytest.approx(3.5 / 5)
    assert v["balance: win rate, seat 2"] == pytest.approx(1.5 / 5)
    assert v["balance: win rate, seat 3 (dealer)"] == 0.0
    # the G-test's counts: five decided games, wins 3.5 / 1.5 / 0, fair shares 5/3 each
    units = v["balance: equal shares (G-test; effect: the largest departure of a win rate "
              "from its fair share)"]
    assert units.shape == (6, 7)
    assert units.sum(axis=0) == pytest.approx([5, 3.5, 1.5, 0, 5 / 3, 5 / 3, 5 / 3])
    assert v["balance: seat 3 (dealer)'s advantage (win rate minus its fair share)"] == (
        pytest.approx(-1 / 3))
    assert v["completion: games ended before max_rounds"] == pytest.approx(5 / 6)
    assert v["hands per game: mean"] == pytest.approx(70 / 6)
    assert v["hands per game: median"] == 9.0
    assert v["hands per game: 90th percentile"] == pytest.approx(21.0)   # 12 + 0.5 * 18
    assert v["drama: lead changes per game"] == pytest.approx(11 / 6)
    # four games with one winner, two of them comebacks
    assert v["drama: comeback rate (the winner was behind at the halfway point)"] == 0.5
    assert v["drama: share of the game played after the winner led for good"] == (
        pytest.approx((1.0 + 0.5 + 0.2 + 0.75) / 4))
    kinds = {type(m) for m in section.measures}
    assert kinds == {Rate, Mean, Statistic, Balance}


def test_shares_split_ties_and_give_nothing_to_an_unfinished_game():
    got = design.shares(np.array([0b01, 0b11, 0, 0b110]), 3)
    assert got.tolist() == [[1, 0, 0], [0.5, 0.5, 0], [0, 0, 0], [0, 0.5, 0.5]]


def test_lead_columns_settled_share():
    df = pd.DataFrame({"lead_changes": [1, 0, 2], "comeback": [True, False, True],
                       "settled": [3, -1, 0]})
    steps = np.array([4, 5, 10])
    got = design.lead_columns(df, steps, np.array([True, False, True]))
    assert got["settled_share"][0] == 0.25
    assert math.isnan(got["settled_share"][1])
    assert got["settled_share"][2] == 1.0
    assert got["comeback"].tolist() == [True, False, True]


@pytest.mark.parametrize(("game", "players", "kw"), [
    ("pepper", 4, {"games": 300}), ("pepper", 3, {"games": 300}),
    ("shiesta", 4, {"games": 300}), ("burraco", 4, {"games": 30}),
    ("pitch", 4, {"sessions": 100}), ("pitch", 6, {"sessions": 100}),
])
def test_each_games_design_frame(game, players, kw):
    """Read from real records: one row per game, the win shared out, the lead
    columns of :mod:`simkit.base.drama` kept."""
    from importlib import import_module

    g = games.get(game)
    rules = g.resolve_rules(None, players)
    api = import_module(f"simkit.{game}.api")
    fn = api.simulate_sessions if game == "pitch" else api.simulate_games
    df = fn(**kw, players=players, seed=4)
    (section,) = [s for s in g.measures(rules) if s.name == "design"]
    frame = section.view(df)
    count = next(iter(kw.values()))
    assert len(frame) == count
    assert frame.iloc[:, 0].tolist() == list(range(count))
    pos = frame[[c for c in frame.columns if c.startswith("pos_")]].to_numpy()
    won = pos.sum(axis=1)
    assert np.all((won > 1 - 1e-9) | ~frame["finished"].to_numpy() | (game == "pitch"))
    assert np.all(won <= 1 + 1e-9)
    assert set(frame["first"]) <= set(np.unique(pos))
    # a money session always has a result (its top score), even when no target ended it
    assert frame["decided"].all() if game == "pitch" else (
        frame["decided"] == frame["finished"]).all()
    share = frame["settled_share"].to_numpy()
    single = frame["single"].to_numpy(bool)
    assert np.isnan(share[~single]).all()
    assert ((share[single] > 0) & (share[single] <= 1)).all()
    assert frame["lead_changes"].max() > 0
    assert frame["comeback"].any()
    assert not frame["comeback"][~single].any()


def test_a_policy_against_itself_scores_one_half():
    g = games.get("pepper")
    rules = g.resolve_rules(None, 4)
    s = skill.scores(g, rules, "heuristic", "heuristic", 300, seed=3)
    assert len(s) == 300
    assert (s == 0.5).all()
    mean, lo, hi = skill.interval(s)
    assert mean == lo == hi == 0.5
    assert math.isinf(skill.games_to_lead(s))


def test_the_stronger_scores_above_one_half():
    g = games.get("shiesta")
    rules = g.resolve_rules(None, 4)
    s = skill.scores(g, rules, "random", "heuristic", 400, seed=3)
    _mean, lo, _hi = skill.interval(s)
    assert lo > 0.5
    assert set(np.unique(s)) <= {0.0, 0.5, 1.0}


def test_games_to_lead_counted_by_hand():
    # per-deal scores 1, 1, 1, 0: mean 3/4, sd 1/2 (ddof 1): n = ceil((1.645 * 0.5 / 0.25)^2)
    s = np.array([1.0, 1.0, 1.0, 0.0])
    n = math.ceil((skill.Z95_ONE_SIDED * np.std(s, ddof=1) / 0.25) ** 2)
    assert n == 11
    assert skill.games_to_lead(s) == 2 * n
    assert math.isinf(skill.games_to_lead(np.array([0.0, 1.0])))     # no edge


def test_the_ladder():
    assert skill.ladder(games.get("pepper"), "heuristic") == ["random", "classic", "heuristic",
                                                               "expert"]
    assert skill.ladder(games.get("burraco"), "heuristic:take_at=3") == [
        "random", "classic", "heuristic:take_at=3"]
    # a default that is classic itself is one rung
    assert skill.ladder(games.get("shiesta"), "classic") == ["random", "classic"]
