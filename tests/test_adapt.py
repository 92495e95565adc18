"""Players adapted to a rule variant (simkit/lab/adapt.py) before it is compared:
a rule change that should change a decision does change it (Pepper: a failed
bid losing only its own value makes 5s worth bidding; Pitch: a moon worth 100
points makes moons worth bidding), the setting is kept and reused, and a
comparison names the adapted policies it played."""

from __future__ import annotations

import json

import pytest

from simkit.base.errors import InputError
from simkit.lab import adapt, compare

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

# small rounds: each test stays well under a minute on 2 cores
QUICK = {"adapt_rounds": 2, "adapt_trials": 12}


@pytest.fixture(scope="module")
def pepper(tmp_path_factory):
    out = tmp_path_factory.mktemp("adapt")
    return out, compare.compare("pepper", ["A:", "B:fail=bid"], adapt=True, out=out,
                                hands=100_000, games=500, seed=1, skill_trace=False,
                                adapt_games=4_000, **QUICK)


def test_a_cheaper_failure_is_bid_more_boldly(pepper):
    _, r = pepper
    at = r["variants"].attrs
    a, b = at["adapted"]["A"], at["adapted"]["B"]
    assert a["objective"] == b["objective"] == "wins per game"
    assert a["setting"] != b["setting"]
    assert at["played"]["B"] == [b["setting"]] * 4
    bids = r["bids"].set_index("bid")
    assert bids.loc["5", "ci_low"] > 0            # B bids 5 significantly more often
    text = compare.format_comparison(r)
    assert "B: adapted" in text
    assert "round 1: best" in text
    d = compare.comparison_json(r)
    for v in d["tables"]["variants"]:
        assert set(v["adapted"]) >= {"rounds", "objective", "setting"}
        assert v["policies"] == [v["adapted"]["setting"]] * 4
    json.dumps(d, allow_nan=False)


def test_a_kept_adaptation_is_reused(pepper):
    out, r = pepper
    again = compare.compare("pepper", ["A:", "B:fail=bid"], adapt=True, out=out,
                            hands=2_000, games=20, seed=1, skill_trace=False,
                            adapt_games=4_000, **QUICK)
    at, first = again["variants"].attrs, r["variants"].attrs
    for label in ("A", "B"):
        assert at["adapted"][label]["reused"] is True
        assert at["adapted"][label]["setting"] == first["adapted"][label]["setting"]
    keys = sorted(p.name for p in out.iterdir())
    assert len(keys) == 2
    assert all((out / k / adapt.RESULT).exists() for k in keys)
    # a kept directory is read too (the studies ship theirs)
    moved = compare.compare("pepper", ["A:", "B:fail=bid"], adapt=True, kept=[out],
                            out=out.parent / "elsewhere", hands=2_000, games=20, seed=1,
                            skill_trace=False, adapt_games=4_000, **QUICK)
    assert moved["variants"].attrs["adapted"]["B"]["reused"] is True


def test_a_richer_moon_is_bid_more_often(tmp_path):
    r = compare.compare("pitch", ["A:", "B:moon_made=100"], adapt=True, out=tmp_path,
                        params=["moon_run=1:7"], hands=400_000, games=200, seed=2,
                        skill_trace=False, adapt_games=3_000, adapt_rounds=2,
                        adapt_trials=10)
    at = r["variants"].attrs
    assert at["adapted"]["A"]["objective"] == "dollars per session"
    assert at["adapted"]["A"]["setting"] != at["adapted"]["B"]["setting"]
    moons = r["hands"].set_index("metric").loc["moons bid"]
    assert moons["b"] > moons["a"]
    assert moons["ci_low"] > 0


def test_search_space_covers_every_parameter():
    items = adapt.search_space("pepper", "heuristic")
    names = [i.partition("=")[0] for i in items]
    from simkit import games
    params = games.get("pepper").make_policies("heuristic", 1)[0].params
    assert set(names) == set(params.as_dict())
    assert "slam_play=plan,simple" in items
    assert "draw_trumps=true,false" in items


@pytest.mark.parametrize(("policy", "match"), [
    (["heuristic", "random", "heuristic", "random"], "give --policy once"),
    ("random", "has none"),
])
def test_refused(policy, match):
    with pytest.raises(InputError, match=match):
        compare.compare("pepper", ["A:", "B:fail=bid"], adapt=True, policy=policy,
                        hands=10, games=1)


def test_adapt_options_need_adapt(cli):
    cli.refused("compare", "pepper", "--variant", "A:", "--variant", "B:fail=bid",
                "--param", "aggression=-1:1", names=["--param", "--adapt"])


def test_a_stopped_adaptation_keeps_its_trials(tmp_path):
    """Stopped mid-round (Cancel on the page; Ctrl-C alike), the finished trials
    stay kept, and the same adaptation again goes on from them."""
    import threading

    import optuna

    from simkit.runs.batches import Cancelled, Work

    stop = threading.Event()
    work = Work(report=lambda f: stop.set() if f >= 0.4 else None, stop=stop)
    args = {"seed": 3, "out": tmp_path, "trials": 6, "deals": 500, "rounds": 1}
    with pytest.raises(Cancelled):
        adapt.adapt("shiesta", None, "heuristic", ["three_at=0:6"], work=work, **args)
    (db,) = tmp_path.glob("*/round-1/_study.db")
    study = optuna.load_study(study_name="simkit-tune", storage=f"sqlite:///{db}")
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert 0 < len(done) < 6
    res = adapt.adapt("shiesta", None, "heuristic", ["three_at=0:6"], **args)
    assert res["rounds"] == 1
    assert res["reused"] is False
    study = optuna.load_study(study_name="simkit-tune", storage=f"sqlite:///{db}")
    assert [t.params for t in study.trials[:len(done)]] == [t.params for t in done]
