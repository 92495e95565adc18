"""simkit tune: the parameter search, its confirmation, its storage and its errors."""

import json

import pytest

from simkit import games, tournament, tune
from simkit.app.cli import main
from simkit.base.errors import InputError
from simkit.pepper.policies import HeuristicParams as PepperParams
from simkit.shiesta.policies import HeuristicParams as ShiestaParams

SEARCH = ["tune", "pepper", "--param", "aggression=-1:1", "--param", "kubwa_margin=0:2",
          "--hands", "400", "--no-progress"]


def _strict(text):
    def no_constant(name):
        raise ValueError(f"not JSON: {name}")
    return json.loads(text, parse_constant=no_constant)


def _run(capsys, argv):
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_params_parsed_by_kind():
    ps = tune.parse_params(PepperParams, ["aggression=-0.5:1.25", "kubwa_margin=0:3",
                                          "slam_play=plan,simple", "keep_guards=true,false"])
    assert [(p.name, p.kind) for p in ps] == [("aggression", "float"), ("kubwa_margin", "int"),
                                              ("slam_play", "choice"), ("keep_guards", "choice")]
    assert ps[0].low == -0.5
    assert ps[0].high == 1.25
    assert ps[0].step == 0.01
    assert ps[2].choices == ("plan", "simple")
    assert ps[3].choices == (True, False)
    assert tune.parse_params(ShiestaParams, ["three_at=0:6"])[0].kind == "int"


@pytest.mark.parametrize(("item", "says"), [
    ("nope=1:2", "unknown heuristic parameter 'nope'"),
    ("aggression=-9:1", "leaves the accepted values"),
    ("kubwa_margin=0:9", "an integer from 0 to 8"),
    ("kubwa_margin=0.5:2", "bad value '0.5'"),
    ("slam_play=0:1", "is a choice, not a range"),
    ("keep_guards=0:1", "is a choice, not a range"),
    ("slam_play=plan,wild", "bad value 'wild'"),
    ("aggression=0.5,1", "is a number"),
    ("aggression=1:1", "low end must be below"),
    ("draw_trumps=true", "at least two values"),
    ("aggression", "expected NAME=LOW:HIGH"),
])
def test_bad_params_are_one_clear_error(item, says):
    with pytest.raises(InputError, match=says.replace("(", r"\(")):
        tune.parse_params(PepperParams, [item])


def test_bad_input_exits_2_and_leaves_nothing(capsys, tmp_path):
    out = tmp_path / "t"
    for extra in (["--param", "nope=1:2"], ["--param", "slam_play=0:1"],
                  ["--param", "aggression=0:1", "--param", "aggression=0:2"],
                  ["--param", "aggression=0:1", "--against", "bogus"],
                  ["--param", "aggression=0:1", "--policy", "heuristic", "--policy", "random"],
                  ["--param", "aggression=0:1", "--policy", "heuristic:aggression=1"],
                  ["--param", "keep_guards=true,false", "--policy", "classic:keep_guards=true"],
                  ["--param", "aggression=0:1", "--trials", "100001"],
                  []):
        rc, text, err = _run(capsys, ["tune", "pepper", *extra, "--out", str(out)])
        assert rc == 2
        assert text == ""
        assert err.startswith("simkit: error: ")
        assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_setting_is_a_policy_spec_with_fixed_values_kept():
    s = tune.setting("heuristic:draw_trumps=false,aggression=2", {"aggression": 0.3100000001,
                                                                  "slam_play": "simple"})
    assert s == "heuristic:draw_trumps=false,aggression=0.31,slam_play=simple"
    p = games.get("pepper").make_policies(s, 1)[0]
    assert (p.params.aggression, p.params.draw_trumps, p.params.slam_play) == (0.31, False,
                                                                                "simple")


def test_tune_json_best_and_confirmation(capsys):
    rc, text, _ = _run(capsys, [*SEARCH, "--trials", "4", "--seed", "5", "--json"])
    assert rc == 0
    res = _strict(text)
    assert set(res) >= {"game", "policy", "trials", "best", "confirm"}
    assert [t["number"] for t in res["trials"]] == [0, 1, 2, 3]
    best = res["best"]
    assert best["value"] == max(t["value"] for t in res["trials"])
    # the best setting plays as printed, and its value is its duplicate-deal
    # difference against the field on the search's deals (seed 5)
    again = tournament.run("pepper", [best["setting"], "heuristic"], hands=400, seed=5)
    assert again.pairs["diff"][0] == pytest.approx(best["value"], abs=1e-12)
    assert set(res["confirm"]) == {"against", "diff", "ci_low", "ci_high", "p_value", "hands"}
    assert res["confirm"]["against"] == "heuristic"
    assert res["confirm"]["hands"] == 400
    c = res["confirm"]
    assert c["ci_low"] <= c["diff"] <= c["ci_high"]
    assert 0 <= c["p_value"] <= 1
    # confirmed on other deals, also against a policy outside the field, in games too
    rows = res["confirmations"]
    assert {r["against"] for r in rows} == {"heuristic", "classic", "untuned"}
    assert {r["unit"] for r in rows} == {"hand", "game"}
    assert any(not r["in_field"] for r in rows)
    fresh = tournament.run("pepper", [best["setting"], "heuristic"], hands=400,
                           seed=tune.confirm_seed(5))
    assert fresh.pairs["diff"][0] == pytest.approx(c["diff"], abs=1e-12)
    assert tune.confirm_seed(5) != 5


def test_every_trial_plays_the_same_deals():
    """Two trials of the same setting score the same: the deals are the seed's."""
    spec = tune.make_spec("shiesta", "heuristic", ["three_at=0:6"], ["classic"],
                          tune.SpecSettings(games=300))
    deals, how = tune.Deals(seed=0, unit="game", count=300), tune.TuneOptions()
    a, _ = tune._trial_value(spec, "heuristic:three_at=2", deals, how)
    b, _ = tune._trial_value(spec, "heuristic:three_at=2", deals, how)
    assert a == b


@pytest.mark.slow
def test_stored_tune_continues_and_reprints(capsys, tmp_path):
    out = str(tmp_path / "t")
    rc, first, _ = _run(capsys, [*SEARCH, "--trials", "2", "--out", out, "--json"])
    assert rc == 0
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == [
        tune.RESULT, tune.STUDY_DB, tune.MANIFEST, tune.LOCK]
    rc, more, _ = _run(capsys, [*SEARCH, "--trials", "4", "--out", out, "--json"])
    a, b = _strict(first), _strict(more)
    assert len(b["trials"]) == 4
    assert b["trials"][:2] == a["trials"]
    rc, again, _ = _run(capsys, [*SEARCH, "--trials", "4", "--out", out, "--json"])
    assert _strict(again) == b
    rc, text, _ = _run(capsys, [*SEARCH, "--trials", "4", "--out", out])
    assert "; in " in text
    assert "Best: trial" in text
    # another search into the same directory is refused; nothing changes
    before = (tmp_path / "t" / tune.MANIFEST).read_text()
    rc, _, err = _run(capsys, [*SEARCH, "--trials", "4", "--seed", "9", "--out", out])
    assert rc == 2
    assert "holds another tune" in err
    assert (tmp_path / "t" / tune.MANIFEST).read_text() == before


@pytest.mark.slow
@pytest.mark.parametrize("stop_at", [  # quick tier: the first; full: all
    p if i == 0 else pytest.param(p, marks=pytest.mark.slow)
    for i, p in enumerate([3, 1, 5])])
def test_an_interrupted_tune_continues_to_the_unbroken_result(capsys, tmp_path, monkeypatch,
                                                              stop_at):
    """Ctrl-C at the stop_at-th tournament (the 5th: in the confirmation), then
    the same command: the trials asked and the result are the unbroken run's
    (each trial's sampler is seeded by its number, and a trial cut off is
    played again under that number)."""
    argv = [*SEARCH, "--trials", "4", "--sampler", "auto", "--json"]
    rc, text, _ = _run(capsys, argv)
    unbroken = _strict(text)
    out = str(tmp_path / "t")
    real = tournament.run
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == stop_at:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(tournament, "run", flaky)
    rc, _, err = _run(capsys, [*argv[:-1], "--out", out])
    assert rc == 130
    assert "interrupted" in err
    if stop_at <= 4:
        assert f"interrupted after {stop_at - 1} of 4 trials" in err
    else:           # in the confirmation, with --out: every trial kept, and it says so
        assert "interrupted after 4 of 4 trials; run the same command again" in err
    assert "without --out" not in err
    assert not (tmp_path / "t" / tune.RESULT).exists()
    monkeypatch.setattr(tournament, "run", real)
    rc, text, _ = _run(capsys, [*argv, "--out", out])
    assert rc == 0
    assert _strict(text) == unbroken


def test_cmaes_sampler_and_choices(capsys):
    rc, text, _ = _run(capsys, ["tune", "shiesta", "--param", "three_at=0:6",
                                "--param", "special_sets=one,dry,all", "--games", "200",
                                "--trials", "3", "--sampler", "cmaes", "--no-progress",
                                "--json"])
    res = _strict(text)
    assert rc == 0
    assert len(res["trials"]) == 3
    assert all(t["params"]["special_sets"] in ("one", "dry", "all") for t in res["trials"])
    assert res["best"]["setting"].startswith("heuristic:three_at=")


@pytest.mark.slow
def test_a_trial_left_running_by_a_killed_tune_is_played_anew(capsys, tmp_path):
    """kill -9 mid-trial (or an earlier simkit) leaves a trial RUNNING in the
    SQLite study: the same command leaves it out and plays the trials still
    missing, reaching the unbroken run's result."""
    import optuna

    rc, text, _ = _run(capsys, [*SEARCH, "--trials", "3", "--json"])
    unbroken = _strict(text)
    out = tmp_path / "t"
    rc, _, _ = _run(capsys, [*SEARCH, "--trials", "2", "--out", str(out)])
    (out / tune.RESULT).unlink()                  # as if killed before confirming
    study = optuna.load_study(study_name="simkit-tune",
                              storage=f"sqlite:///{out / tune.STUDY_DB}")
    study.ask()                                   # trial 2, never told
    rc, text, _ = _run(capsys, [*SEARCH, "--trials", "3", "--out", str(out), "--json"])
    res = _strict(text)
    assert rc == 0
    assert [t["number"] for t in res["trials"]] == [0, 1, 2]
    assert res == unbroken
    states = [t.state.name for t in optuna.load_study(
        study_name="simkit-tune", storage=f"sqlite:///{out / tune.STUDY_DB}").get_trials()]
    assert states == ["COMPLETE", "COMPLETE", "RUNNING", "COMPLETE"]


def _finished(capsys, tmp_path):
    out = tmp_path / "t"
    rc, text, _ = _run(capsys, [*SEARCH, "--trials", "2", "--out", str(out), "--json"])
    assert rc == 0
    return out, text


def test_a_second_tune_on_the_same_out_is_refused(capsys, tmp_path):
    import fcntl

    out, _ = _finished(capsys, tmp_path)
    (out / tune.RESULT).unlink()                  # so the next run would search again
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with open(out / tune.LOCK, "a") as f:         # as another tune holds it
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        rc, text, err = _run(capsys, [*SEARCH, "--trials", "3", "--out", str(out)])
    assert rc == 2
    assert text == ""
    assert len(err.strip().splitlines()) == 1
    assert "is in use by another simkit tune" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


@pytest.mark.parametrize("damage", ["edited", "garbage", "truncated db", "garbage db"])
def test_a_damaged_store_is_refused_saying_how_to_start_over(capsys, tmp_path, damage):
    out, text = _finished(capsys, tmp_path)
    result, db = out / tune.RESULT, out / tune.STUDY_DB
    if damage == "edited":
        res = json.loads(result.read_text())
        res["best"]["value"] = 99.0               # still valid JSON, not what was written
        result.write_text(json.dumps(res))
    elif damage == "garbage":
        result.write_text("{not json")
    else:
        result.unlink()                           # so the store is read to continue
        data = db.read_bytes()
        db.write_bytes(data[: len(data) // 3] if damage == "truncated db" else b"x" * 5000)
    rc, text, err = _run(capsys, [*SEARCH, "--trials", "2", "--out", str(out)])
    assert rc == 2
    assert text == ""
    assert len(err.strip().splitlines()) == 1
    assert "is damaged" in err
    assert f"delete '{out}'" in err


@pytest.mark.slow      # waits out the 15 s connect timeout
def test_an_unreachable_scheduler_leaves_nothing_behind(capsys, tmp_path):
    out = tmp_path / "t"
    rc, _text, err = _run(capsys, [*SEARCH, "--trials", "2", "--out", str(out),
                                  "--scheduler", "tcp://127.0.0.1:9"])
    assert rc == 2
    assert "cannot connect to --scheduler" in err
    assert not out.exists()


def test_a_store_optuna_had_not_finished_making_is_made_anew(capsys, tmp_path):
    """Stopped while Optuna made its store (only its first tables written): the
    same command makes it anew and runs, instead of calling it damaged."""
    import sqlite3

    out = tmp_path / "t"
    out.mkdir()
    spec = tune.make_spec("pepper", None, ["aggression=-1:1"], None,
                          tune.SpecSettings(hands=400, trials=2))
    (out / tune.MANIFEST).write_text(json.dumps({"kind": "tune", "spec": spec.key(),
                                                 "trials": 2}))
    con = sqlite3.connect(out / tune.STUDY_DB)
    con.execute("CREATE TABLE studies (study_id INTEGER PRIMARY KEY, study_name VARCHAR)")
    con.execute("CREATE TABLE version_info (version_info_id INTEGER PRIMARY KEY, "
                "schema_version INTEGER, library_version VARCHAR)")
    con.commit()
    con.close()
    rc, text, err = _run(capsys, ["tune", "pepper", "--param", "aggression=-1:1", "--hands",
                                  "400", "--trials", "2", "--no-progress", "--out", str(out),
                                  "--json"])
    assert rc == 0, err
    assert len(_strict(text)["trials"]) == 2


def test_a_full_disk_is_one_line_not_a_damaged_store(capsys, tmp_path, monkeypatch):
    """The disk fills while a tune writes its store: one line saying so, exit 1
    (not bad input), and the store is not called damaged."""
    import optuna

    def full(self, trial):
        raise sqlite3_error("(sqlite3.OperationalError) database or disk is full")

    def sqlite3_error(text):
        import sqlite3
        return sqlite3.OperationalError(text)

    monkeypatch.setattr(optuna.study.Study, "add_trial", full)
    rc, _, err = _run(capsys, [*SEARCH, "--trials", "2", "--out", str(tmp_path / "t")])
    assert rc == 1
    assert err.strip().splitlines() == [err.strip()]
    assert "the disk is full" in err
    assert "damaged" not in err
