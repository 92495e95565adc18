"""Runs that cannot lie: a run's manifest checked against itself and its
folder, each part against its own record of its run and chunk, a
tournament's summary files against the manifest; what a rerun repairs and
what it refuses (issue "runs that cannot lie": the probe's commands)."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit.base.errors import InputError
from simkit.runs import store

ARGV = ["simulate", "pepper", "--hands", "5000", "--chunk", "1000", "--no-progress"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The true run (seed 3) and one of another seed (4), made once."""
    from simkit.app.cli import main

    base = tmp_path_factory.mktemp("runs")
    for seed, name in ((3, "true"), (4, "other")):
        assert main([*ARGV, "--seed", str(seed), "--out", str(base / name)]) == 0
    return base


def _copy(runs, tmp_path):
    shutil.copytree(runs / "true", tmp_path / "R")
    return tmp_path / "R"


def _edit(run, **changes):
    m = store.read_manifest(run)
    for k, v in changes.items():
        if v is None:
            m.pop(k, None)
        else:
            m[k] = v
    store.write_json_atomic(run / store.RUN_MANIFEST, m)
    return m


def _rerun(cli, run, seed=3):
    code, _out, err = cli(*ARGV, "--seed", str(seed), "--out", str(run))
    assert code == 0, err
    return err


def _is_true(run, runs):
    pd.testing.assert_frame_equal(pd.read_parquet(run), pd.read_parquet(runs / "true"))
    assert store.verify(run) == []


def test_parts_carry_their_run_and_chunk(runs):
    m = store.read_manifest(runs / "true")
    assert m["run_id"]
    assert m["chunks"] == 5
    assert m["summary_files"] == []
    for i in range(5):
        meta = store.part_meta(runs / "true" / store.part_name(i))
        assert meta == {"run": m["run_id"], "index": i, "start": 1000 * i, "count": 1000}
    assert store.read_manifest(runs / "other")["run_id"] != m["run_id"]


def test_a_wrong_chunk_count_is_found_and_repaired(cli, runs, tmp_path):
    run = _copy(runs, tmp_path)
    _edit(run, chunks=3)
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "the manifest says 3 chunks where its count 5000 in chunks of " \
        "1000 makes 5" in out
    with pytest.raises(InputError, match="says 3 chunks"):
        store.read_run(run)
    code, _, err = cli("show", "pepper", "--run", str(run), "--hand", "4500")
    assert code == 2
    assert "says 3 chunks" in err
    _rerun(cli, run)
    assert store.read_manifest(run)["chunks"] == 5
    _is_true(run, runs)


def test_an_extra_part_is_found_and_removed(cli, runs, tmp_path):
    run = _copy(runs, tmp_path)
    shutil.copy(run / store.part_name(4), run / store.part_name(5))
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "part-000005.parquet is not part of this run" in out
    _rerun(cli, run)
    assert not (run / store.part_name(5)).exists()
    _is_true(run, runs)


def test_a_foreign_part_is_never_adopted(cli, runs, tmp_path):
    """A part of the seed-4 run put in place of part 1, its entry dropped and
    the run marked unfinished (as if killed before recording it)."""
    run = _copy(runs, tmp_path)
    shutil.copy(runs / "other" / store.part_name(1), run / store.part_name(1))
    m = store.read_manifest(run)
    del m["parts"]["1"]
    _edit(run, parts=m["parts"], complete=False)
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "part-000001.parquet is not this run's: it belongs to another run" in out
    err = _rerun(cli, run)
    assert "part-000001.parquet was damaged" in err
    _is_true(run, runs)


def test_a_foreign_part_with_a_forged_record_is_found(cli, runs, tmp_path):
    run = _copy(runs, tmp_path)
    shutil.copy(runs / "other" / store.part_name(2), run / store.part_name(2))
    m = store.read_manifest(run)
    m["parts"]["2"] = store.part_record(run, 2)          # size and checksum made to match
    _edit(run, parts=m["parts"])
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "part-000002.parquet is damaged: it belongs to another run" in out
    shutil.copy(run / store.part_name(3), run / store.part_name(2))   # another chunk's
    m["parts"]["2"] = store.part_record(run, 2)
    _edit(run, parts=m["parts"])
    assert "part-000002.parquet is damaged: it holds chunk 3, not chunk 2" in cli(
        "verify", str(run))[1]
    _rerun(cli, run)
    _is_true(run, runs)


def test_edited_rows_are_found_and_rewritten(cli, runs, tmp_path):
    run = _copy(runs, tmp_path)
    m = store.read_manifest(run)
    m["parts"]["3"]["rows"] = 999
    _edit(run, parts=m["parts"], rows=4000)
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "part-000003.parquet is damaged: it holds 1000 rows where the manifest records 999" \
        in out
    assert "the manifest's total of 4000 rows is not its parts' 4,999" in out
    _rerun(cli, run)
    assert store.read_manifest(run)["rows"] == 5000
    _is_true(run, runs)


def test_a_stray_file_is_named_and_the_rerun_refused(cli, runs, tmp_path):
    run = _copy(runs, tmp_path)
    (run / "notes.parquet").write_bytes(b"x")
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "'notes.parquet' is not part of this run" in out
    assert "move the files that are not part of the run out of it" in out
    before = sorted(p.name for p in run.iterdir())
    code, out, err = cli(*ARGV, "--seed", "3", "--out", str(run))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "holds 'notes.parquet', which is not part of this run" in err
    assert sorted(p.name for p in run.iterdir()) == before
    (run / "_notes.txt").write_text("kept")            # pandas skips _ and . names
    (run / "notes.parquet").unlink()
    assert store.verify(run) == []


TOURNAMENT = ["tournament", "pepper", "--policy", "heuristic", "--policy", "random",
              "--hands", "3000", "--chunk", "1000", "--no-progress"]


def test_a_tournament_checks_and_rebuilds_its_summary_files(cli, tmp_path):
    run = tmp_path / "T"
    assert cli(*TOURNAMENT, "--out", str(run))[0] == 0
    m = store.read_manifest(run)
    names = ["_ratings.parquet", "_pairs.parquet", "_ratings.png"]
    assert m["summary_files"] == names
    assert set(m["files"]) == set(names)
    good = {n: (run / n).read_bytes() for n in names}
    (run / "_ratings.parquet").write_bytes(b"garbage")
    (run / "_pairs.parquet").unlink()
    (run / "_ratings.png").unlink()
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "_ratings.parquet is damaged" in out
    assert "_pairs.parquet is missing" in out
    assert "_ratings.png is missing" in out
    assert cli(*TOURNAMENT, "--out", str(run))[0] == 0
    assert {n: (run / n).read_bytes() for n in names} == good
    assert cli("verify", str(run))[1].strip().endswith("complete: intact")
    # a finished, whole tournament only reads: its summary is printed again
    # without writing anything (it may be read-only)
    before = {p.name: p.stat().st_mtime_ns for p in run.iterdir()}
    code, out, _ = cli(*TOURNAMENT, "--out", str(run))
    assert code == 0
    assert "; in " in out
    assert {p.name: p.stat().st_mtime_ns for p in run.iterdir()} == before


@pytest.mark.slow
def test_a_tournament_killed_before_its_summary_says_so(cli, tmp_path):
    run = tmp_path / "T"
    assert cli(*TOURNAMENT, "--out", str(run))[0] == 0
    _edit(run, files=None)
    (run / "_pairs.parquet").unlink()
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "_pairs.parquet is not recorded" in out
    assert cli(*TOURNAMENT, "--out", str(run))[0] == 0
    assert store.verify(run) == []


# --- any damage: verify never calls intact a run whose data are not the true run's ----

# the subtle ones (a part swapped in with its record forged to match) listed twice
FORGED = st.tuples(st.sampled_from(["foreign", "swap"]), st.integers(0, 4), st.integers(0, 4),
                   st.just(True))
DAMAGE = st.lists(st.one_of(
    FORGED, FORGED,
    st.tuples(st.just("chunks"), st.integers(0, 9)),
    st.tuples(st.just("rows"), st.integers(0, 9000)),
    st.tuples(st.just("part_rows"), st.integers(0, 4), st.integers(0, 2000)),
    st.tuples(st.just("extra"), st.integers(0, 4), st.integers(5, 8)),
    st.tuples(st.sampled_from(["foreign", "swap"]), st.integers(0, 4), st.integers(0, 4),
              st.booleans()),
    st.tuples(st.just("delete"), st.integers(0, 4)),
    st.tuples(st.just("unrecord"), st.integers(0, 4)),
    st.tuples(st.just("incomplete"),),
), min_size=1, max_size=4)


def _apply(run, other, op) -> None:
    m = store.read_manifest(run)
    parts = m.get("parts") or {}
    kind, *args = op
    if kind == "chunks":
        m["chunks"] = args[0]
    elif kind == "rows":
        m["rows"] = args[0]
    elif kind == "part_rows" and str(args[0]) in parts:
        parts[str(args[0])]["rows"] = args[1]
    elif kind == "extra" and (run / store.part_name(args[0])).exists():
        shutil.copy(run / store.part_name(args[0]), run / store.part_name(args[1]))
    elif kind in ("foreign", "swap"):
        src = other / store.part_name(args[0]) if kind == "foreign" else \
            run / store.part_name(args[1])
        dst = run / store.part_name(args[0])
        if src.exists() and src != dst:
            shutil.copy(src, dst)
            if args[-1]:                               # the record forged to match
                parts[str(args[0])] = store.part_record(run, args[0])
    elif kind == "delete":
        store.remove_file(run / store.part_name(args[0]))
    elif kind == "unrecord":
        parts.pop(str(args[0]), None)
    elif kind == "incomplete":
        m["complete"] = False
    m["parts"] = parts
    store.write_json_atomic(run / store.RUN_MANIFEST, m)


@pytest.mark.slow
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(damage=DAMAGE)
def test_verify_never_calls_a_changed_run_intact(runs, tmp_path_factory, damage):
    """Random damage to the manifest and the folder: whenever verify finds
    nothing wrong with a finished run, reading it gives exactly the true run,
    and pandas.read_parquet of the folder does too."""
    run = tmp_path_factory.mktemp("damage") / "R"
    shutil.copytree(runs / "true", run)
    for op in damage:
        _apply(run, runs / "other", op)
    problems = store.verify(run)
    manifest = store.read_manifest(run)
    if problems or not manifest.get("complete"):
        if manifest.get("complete"):
            with pytest.raises(InputError):
                store.read_run(run)
        return
    truth = pd.read_parquet(runs / "true")
    pd.testing.assert_frame_equal(store.read_run(run)[0], truth)
    pd.testing.assert_frame_equal(pd.read_parquet(run), truth)
    assert json.loads((run / store.RUN_MANIFEST).read_text())["chunks"] == 5


def test_an_unreadable_manifest_says_how_to_start_over(cli, runs, tmp_path):
    run = _copy(runs, tmp_path)
    (run / store.RUN_MANIFEST).write_text("{not json")
    for argv in ([*ARGV, "--seed", "3", "--out", str(run)], ["verify", str(run)]):
        code, _out, err = cli(*argv)
        assert code == 2
        assert err.count("\n") == 1
        assert "not readable JSON" in err
        assert "to start over, delete" in err
