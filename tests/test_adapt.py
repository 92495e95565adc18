"""Players adapted to rule variants (simkit/lab/adapt.py) before they are compared:
a rule change that should change a decision does change it, every variant is
adapted alike (the base too; later variants from the base's setting), several
times, and a finding holds only where the adaptations agree; the search finds
the same setting from different seeds where the optimum is known; a setting
that loses to another variant's under its own rules is flagged and adapted on;
an adaptation that needed no change says so; a kept adaptation is checked and
reused, and a stopped one resumes to the unbroken one's result."""

from __future__ import annotations

import json
import os

import pytest

from simkit import games, tournament
from simkit.base.errors import InputError
from simkit.lab import adapt, compare, findings

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

# small rounds: each test stays well under a minute on 2 cores
QUICK = {"adapt_rounds": 2, "adapt_trials": 12, "adapt_games": 3_000}
#: The known optimum: with Ndogo paying twice, ``ndogo_lower`` cannot matter
#: (it only acts at an Ndogo stake of 1), neither can ``kubwa_est`` from 7 up
#: (a four-player hand with the partner's 0.75 never estimates 7 tricks), and
#: ``cover_third`` must (the heuristic with it wins 2.5 games in 100 more).
KNOWN = {"ndogo_stake": 2}
KNOWN_START = "heuristic:cover_third=false,ndogo_lower=false"
KNOWN_PARAMS = ["cover_third=true,false", "ndogo_lower=true,false", "kubwa_est=7:12"]


@pytest.fixture(scope="module")
def pepper(tmp_path_factory):
    out = tmp_path_factory.mktemp("adapt")
    return out, compare.compare("pepper", ["A:", "B:fail=bid"], compare.CompareSettings(
        adapt=True, out=out,
        hands=100_000, games=500, seed=1, skill_trace=False, **QUICK))


def test_every_variant_is_adapted_alike_and_more_than_once(pepper):
    _, r = pepper
    at = r["variants"].attrs
    a, b = at["adapted"]["A"], at["adapted"]["B"]
    assert a["objective"] == b["objective"] == "wins per game"
    assert a["seeds"] == b["seeds"] == adapt.SEEDS
    for k in range(adapt.SEEDS):
        one_a, one_b = a["by_adaptation"][k], b["by_adaptation"][k]
        # the base from the policy as given, the later variant from the base's setting
        assert one_a["start"] == games.get("pepper").make_policies("heuristic", 1)[0].text()
        assert one_b["start"] == one_a["setting"] or one_b["continued_from"] == "A"
        assert at["played_by_adaptation"]["B"][k] == [one_b["setting"]] * 4
    # each adaptation has its own seed, so its own trial deals and samplers
    assert len({adapt.adaptation_seed(1, k) for k in range(adapt.SEEDS)}) == adapt.SEEDS


def test_rows_carry_each_adaptation_and_a_finding_that_holds_in_all(pepper):
    _, r = pepper
    for name in ("bids", "scores", "games"):
        for row in r[name].to_dict("records"):
            each = row["by_adaptation"]
            assert len(each) == adapt.SEEDS
            words = [e["finding"] for e in each]
            assert row["finding"] == findings.combine(words)
            if row["finding"] in (findings.HIGHER, findings.LOWER):
                side = 1 if row["finding"] == findings.HIGHER else -1
                assert all(side * e["ci_low"] > 0 or side * e["ci_high"] < 0 for e in each)
            assert row["ci_low"] == min(e["ci_low"] for e in each)
            assert row["ci_high"] == max(e["ci_high"] for e in each)
            assert row["p_holm"] == max(e["p_holm"] for e in each)
    d = compare.comparison_json(r)
    json.dumps(d, allow_nan=False)
    for v in d["tables"]["variants"]:
        assert v["adapted"] is not None               # the base too
        assert len(v["adapted"]["by_adaptation"]) == adapt.SEEDS
    assert {"rules", "setting_of", "adaptation", "diff", "ci_low", "ci_high", "flagged"} <= \
        set(d["tables"]["best_response"][0])
    assert len(d["tables"]["best_response"]) >= 2 * adapt.SEEDS
    text = compare.format_comparison(r)
    assert "A, adaptation 1 of 2:" in text
    assert "Best-response check" in text
    assert "depends on adaptation" in text or "finding" in text


def test_a_cheaper_failure_is_bid_more_boldly_in_every_adaptation(pepper):
    """Under fail=bid a failed 5 costs 5, not 6: in each adaptation B's players bid 5s
    at least as often as A's (never fewer)."""
    _, r = pepper
    five = r["bids"].set_index("bid").loc["5"]
    assert five["finding"] in (findings.HIGHER, findings.SAME, findings.DEPENDS,
                               findings.UNSHOWN)
    assert all(e["finding"] != findings.LOWER for e in five["by_adaptation"])


def test_a_kept_adaptation_is_reused_and_checked(pepper, capsys):
    out, r = pepper
    again = compare.compare("pepper", ["A:", "B:fail=bid"], compare.CompareSettings(
        adapt=True, out=out,
        hands=2_000, games=20, seed=1, skill_trace=False, **QUICK))
    at, first = again["variants"].attrs, r["variants"].attrs
    for label in ("A", "B"):
        assert at["adapted"][label]["reused"] is True
        assert at["adapted"][label]["settings"] == first["adapted"][label]["settings"]
    kept = sorted(out.glob(f"*/{adapt.RESULT}"))
    assert len(kept) >= 2 * adapt.SEEDS
    # a kept directory is read too (the studies ship theirs)
    moved = compare.compare("pepper", ["A:", "B:fail=bid"], compare.CompareSettings(
        adapt=True, kept=[out],
        out=out.parent / "elsewhere", hands=2_000, games=20, seed=1,
        skill_trace=False, **QUICK))
    assert moved["variants"].attrs["adapted"]["B"]["reused"] is True
    # an edited result is not trusted: one warning, and it is made again
    held = json.loads(kept[0].read_text())
    held["result"]["setting"] = "heuristic:aggression=5.5"
    kept[0].write_text(json.dumps(held))
    req = adapt.Request(**{**held["result"]["request"],
                           "params": tuple(held["result"]["request"]["params"])})
    capsys.readouterr()
    assert adapt.kept_result(req, out) is None
    assert "is not used (its checksum does not match" in capsys.readouterr().err


def test_the_search_finds_the_known_optimum_from_any_seed(tmp_path):
    """A parameter that cannot matter under the rules (two of them) never moves;
    one that must, moves to its better value; the same setting from three seeds."""
    g = games.get("pepper")
    rules = g.make_rules(overrides=KNOWN)
    want = g.make_policies("heuristic:ndogo_lower=false", 1)[0].text()
    got = []
    for seed in (1, 2, 3):
        res = adapt.adapt("pepper", rules, KNOWN_START, KNOWN_PARAMS, adapt.AdaptSettings(
            seed=seed, trials=12, deals=4_000, out=tmp_path))
        got.append(res["setting"])
        assert res["changed"] is True
        assert not res["capped"]
        assert res["trace"][0]["adopted"] is True
    assert got == [want] * 3


def test_a_setting_that_needs_no_change_says_so(tmp_path):
    """Started from the known optimum, nothing beats it: the players needed no
    change, and no line sets the field against itself."""
    g = games.get("pepper")
    best = g.make_policies("heuristic:ndogo_lower=false", 1)[0].text()
    res = adapt.adapt("pepper", g.make_rules(overrides=KNOWN), best, KNOWN_PARAMS,
                      adapt.AdaptSettings(seed=4, trials=12, deals=4_000, out=tmp_path))
    assert res["changed"] is False
    assert res["setting"] == best
    text = "\n".join(adapt.format_trace("B", res))
    assert "the players needed no change under this rule" in text
    assert "vs the field" not in text


def test_an_adaptation_stopped_at_its_cap_says_so(tmp_path):
    """One round that adopts a better setting is at its cap while still
    improving: a warning in the trace's words and in the JSON."""
    r = compare.compare("pepper", ["A:ndogo_stake=2", "B:ndogo_stake=2,fail=bid"],
                        compare.CompareSettings(
        adapt=True, policy=KNOWN_START, params=KNOWN_PARAMS, out=tmp_path, hands=2_000,
        games=50, skill_trace=False, adapt_rounds=1, adapt_trials=8,
        adapt_games=3_000, adapt_seeds=1))
    a = r["variants"].attrs["adapted"]["A"]
    assert a["capped"] is True
    assert "stopped at the cap of 1 rounds while still improving" in compare.format_comparison(r)
    assert any(w.startswith("A: an adaptation stopped at its cap")
               for w in compare.comparison_json(r)["warnings"])


def test_a_setting_that_loses_under_its_own_rules_is_flagged_and_adapted_on(monkeypatch):
    """The best-response check: A's players (cover_third off) lose to B's under
    A's own rules; A's adaptation goes on from B's setting."""
    g = games.get("pepper")
    weak, strong = (g.make_policies(s, 1)[0].text()
                    for s in ("heuristic:cover_third=false", "heuristic"))
    calls = []

    def canned(game, rules, policy, params=None, settings=None):
        calls.append((dict(rules.as_dict()), policy))
        fail = rules.as_dict()["fail"] == "bid"
        setting = strong if fail or policy == strong else weak
        return {"setting": setting, "start": policy, "changed": setting != policy,
                "capped": False, "rounds": 1, "objective": "wins per game", "unit": "game",
                "trace": [], "request": {}, "reused": False}

    monkeypatch.setattr(adapt, "adapt", canned)
    rules = [("A", g.make_rules()), ("B", g.make_rules(overrides={"fail": "bid"}))]
    fits = adapt.adapt_variants("pepper", rules, "heuristic:cover_third=false", seeds=1,
                                settings=adapt.AdaptSettings(deals=6_000))
    rows = fits.best_response
    first = [r for r in rows if r["rules"] == "A" and not r["after"]]
    assert first[0]["flagged"]
    assert first[0]["continued"]
    assert first[0]["ci_high"] < 0
    after = [r for r in rows if r["rules"] == "A" and r["after"]]
    assert after
    assert not after[0]["flagged"]
    assert fits.results[0][0]["continued_from"] == "B"
    assert fits.results[0][0]["setting"] == strong
    assert calls[-1][1] == strong                  # went on from B's setting


@pytest.mark.parametrize("stop_at", [2, 7])
def test_a_stopped_adaptation_resumes_to_the_unbroken_result(tmp_path, monkeypatch, stop_at):
    """Ctrl-C at the stop_at-th tournament (in a search, or in a round's tests),
    then the same adaptation: the unbroken one's result, trial for trial."""
    g = games.get("pepper")
    args = {"seed": 3, "trials": 6, "deals": 2_000, "rounds": 2}
    rules = g.make_rules(overrides=KNOWN)
    unbroken = adapt.adapt("pepper", rules, KNOWN_START, KNOWN_PARAMS, adapt.AdaptSettings(
        out=tmp_path / "a",
        **args))
    real, calls = tournament.run, []

    def flaky(*a, **kw):
        calls.append(1)
        if len(calls) == stop_at:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(tournament, "run", flaky)
    with pytest.raises((KeyboardInterrupt, Exception)) as stopped:
        adapt.adapt("pepper", rules, KNOWN_START, KNOWN_PARAMS, adapt.AdaptSettings(
            out=tmp_path / "b", **args))
    assert "interrupt" in type(stopped.value).__name__.lower()
    monkeypatch.setattr(tournament, "run", real)
    resumed = adapt.adapt("pepper", rules, KNOWN_START, KNOWN_PARAMS, adapt.AdaptSettings(
        out=tmp_path / "b",
        **args))
    assert {**resumed, "reused": None} == {**unbroken, "reused": None}


def test_search_space_covers_every_parameter():
    items = adapt.search_space("pepper", "heuristic")
    names = [i.partition("=")[0] for i in items]
    params = games.get("pepper").make_policies("heuristic", 1)[0].params
    assert set(names) == set(params.as_dict())
    assert "slam_play=plan,simple" in items
    assert "draw_trumps=true,false" in items
    assert adapt.trials_for(len(items)) == 16 + 8 * len(items)


@pytest.mark.parametrize(("policy", "match"), [
    (["heuristic", "random", "heuristic", "random"], "give --policy once"),
    ("random", "has none"),
])
def test_refused(policy, match):
    with pytest.raises(InputError, match=match):
        compare.compare("pepper", ["A:", "B:fail=bid"], compare.CompareSettings(
            adapt=True, policy=policy,
            hands=10, games=1))


def test_adapt_options_need_adapt(cli):
    cli.refused("compare", "pepper", "--variant", "A:", "--variant", "B:fail=bid",
                "--param", "aggression=-1:1", names=["--param", "--adapt"])
    cli.refused("compare", "pepper", "--variant", "A:", "--variant", "B:fail=bid",
                "--adapt-seeds", "3", names=["--adapt-seeds", "--adapt"])
    cli.refused("compare", "pepper", "--variant", "A:", "--variant", "B:fail=bid", "--adapt",
                "--adapt-trials", "1000000000000", names=["--adapt-trials", "100,000"])
    cli.refused("compare", "pepper", "--variant", "A:", "--variant", "B:fail=bid", "--adapt",
                "--adapt-rounds", "51", names=["--adapt-rounds", "50"])


def test_a_stopped_adaptation_keeps_its_trials(tmp_path):
    """Stopped mid-round (Cancel on the page; Ctrl-C alike), the finished trials
    stay kept, and the same adaptation again goes on from them."""
    import threading

    import optuna

    from simkit.runs.batches import Cancelled, Work

    stop = threading.Event()
    work = Work(report=lambda f: stop.set() if f >= 0.05 else None, stop=stop)
    work.expect(adapt.effort(adapt.request("shiesta", None, "heuristic", ["three_at=0:6"],
                                           seed=3, trials=6, deals=500, rounds=1)))
    args = {"seed": 3, "out": tmp_path, "trials": 6, "deals": 500, "rounds": 1}
    with pytest.raises(Cancelled):
        adapt.adapt("shiesta", None, "heuristic", ["three_at=0:6"], adapt.AdaptSettings(
            work=work, **args))
    (db,) = tmp_path.glob("*/round-1/_study.db")
    study = optuna.load_study(study_name="simkit-tune", storage=f"sqlite:///{db}")
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert 0 < len(done) < 6
    res = adapt.adapt("shiesta", None, "heuristic", ["three_at=0:6"], adapt.AdaptSettings(**args))
    assert res["rounds"] == 1
    assert res["reused"] is False
    study = optuna.load_study(study_name="simkit-tune", storage=f"sqlite:///{db}")
    assert [t.params for t in study.trials[:len(done)]] == [t.params for t in done]


def test_two_adapting_the_same_at_once_play_it_once(tmp_path, capsys):
    """A second process (here a thread: the lock is per open file) wanting an
    adaptation under way waits for it and reuses its result, and a tidy
    leaves the held folder alone."""
    import threading

    g = games.get("pepper")
    rules = g.make_rules(overrides=KNOWN)
    args = {"seed": 5, "trials": 4, "deals": 1_000, "rounds": 1, "out": tmp_path}
    req = adapt.request("pepper", rules, KNOWN_START, KNOWN_PARAMS, seed=5, trials=4,
                        deals=1_000, rounds=1)
    where = tmp_path / req.key()
    got: list[dict] = []
    with adapt._held(where, "first", None):
        second = threading.Thread(target=lambda: got.append(adapt.adapt(
            "pepper", rules, KNOWN_START, KNOWN_PARAMS, adapt.AdaptSettings(**args))))
        second.start()
        second.join(timeout=2)
        assert second.is_alive()                   # waiting, not racing
        assert adapt._busy(where)
        old = 2 * adapt.BUSY_SECONDS
        os.utime(where, (where.stat().st_atime - old, where.stat().st_mtime - old))
        assert adapt.tidy(tmp_path, 0) == 0
        assert where.is_dir()
        first = adapt._adapt(g, g.resolve_rules(rules), req, where,
                             adapt.AdaptSettings(**args))
    second.join(timeout=60)
    assert len(got) == 1
    assert got[0]["reused"] is True
    assert got[0]["setting"] == first["setting"]
    assert "waiting for another simkit process adapting" in capsys.readouterr().err
    assert not adapt._busy(where)
