"""Chunked runs (simkit/runs/chunks.py): resume after kill -9 or Ctrl-C, refusal of a
different run, identical results on threads and Dask, streaming aggregates."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from simkit.base.errors import InputError
from simkit.bygame import jobs
from simkit.pepper import api
from simkit.pepper.policies import make_policies as pepper_policies
from simkit.pepper.rules import PepperRules
from simkit.runs import chunks, store
from simkit.runs.batches import set_threads

SEED = 7
CLI = [sys.executable, "-m", "simkit.app.cli"]


def spec(players=4, seed=SEED, policies=None):
    rules = PepperRules(players=players).as_dict()
    return {"rules": rules, "policies": policies or ["heuristic"] * players, "seed": seed}


def snapshot(path):
    """Every file in a run directory with its bytes and modification time."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(path.iterdir())}


def contents(path):
    """The files of a run directory and their bytes, bar the manifest (it holds times)."""
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.name != "_manifest.json"}


def same_frame(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """assert_frame_equal, fast on large frames with categorical columns."""
    assert list(a.columns) == list(b.columns)
    assert list(a.dtypes) == list(b.dtypes)
    assert a.equals(b)


def same_run(a, b):
    """Two finished runs hold the same records, part for part, byte for byte."""
    assert contents(a) == contents(b)
    da, ma = store.read_run(a)
    db, mb = store.read_run(b)
    same_frame(da, db)
    for key in ("created_utc", "finished_utc", "git_commit"):
        ma.pop(key), mb.pop(key)
    assert ma == mb
    return da


# --- interruption ------------------------------------------------------------------------

# The real CLI in a child process, held still once part HELD_PART is written: the
# kill then lands mid-run whatever the machine's speed (an unheld run can finish,
# or not have written a part yet, before the signal arrives).  The child says so
# on stdout and waits on stdin; if the test dies first, EOF ends it unfinished.
HELD_PART = 2
HELD_CLI = f"""
import os, signal, sys
from simkit.runs import store
from simkit.app.cli import main

# Ctrl-C as at a terminal: a child inherits an ignored SIGINT from a parent that
# ignores it (some test runs do), and would then never see the test's signal.
signal.signal(signal.SIGINT, signal.default_int_handler)

write_part = store.write_part

def held_write_part(directory, index, *args, **kwargs):
    rows = write_part(directory, index, *args, **kwargs)
    if index == {HELD_PART}:
        print("held", index, flush=True)
        sys.stdin.read()
        os._exit(3)
    return rows

store.write_part = held_write_part
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_kill_9_mid_run_then_rerun_is_identical(tmp_path, cli):
    """kill -9 of a run that has written parts 0..2 of 20 (and no more, by
    construction): the run is left unfinished, a rerun keeps those parts, removes a
    stray temporary, computes the rest and equals an uninterrupted run byte for byte."""
    chunks_ = 20
    argv = ["simulate", "pepper", "--hands", str(1000 * chunks_), "--chunk", "1000",
            "--seed", str(SEED), "--threads", "1", "--no-progress"]
    killed = tmp_path / "killed.parquet"
    proc = subprocess.Popen([sys.executable, "-c", HELD_CLI, *argv, "--out", str(killed)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        line = proc.stdout.readline() if ready else ""
        assert line == f"held {HELD_PART}\n", (
            f"the run was not held at its part {HELD_PART} (does simkit.runs.chunks still write "
            f"parts with store.write_part?): stdout {line!r}, stderr "
            f"{proc.stderr.read() if proc.poll() is not None else ''!r}")
        assert proc.poll() is None
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            f.close()
    assert proc.returncode == -signal.SIGKILL
    # killed mid-run: the first parts are there, the run is not finished
    parts = store.part_indices(killed)
    assert set(range(HELD_PART + 1)) <= parts, parts
    assert len(parts) < chunks_, parts
    manifest = json.loads((killed / "_manifest.json").read_text())
    assert manifest["complete"] is False
    assert manifest["chunks"] == chunks_
    with pytest.raises(InputError, match="not finished"):
        store.read_run(killed)
    # what a kill during a write leaves behind
    stray = killed / ".part-000299.parquet.99999-0123456789ab.tmp"
    stray.write_bytes(b"half a part")
    kept = {i: (killed / store.part_name(i)).stat().st_mtime_ns for i in parts}

    code, out, err = cli(*argv, "--out", str(killed))
    assert code == 0, err
    assert f"{len(parts)} of {chunks_} chunks were already done" in out
    assert not stray.exists()
    # the parts written before the kill were kept, not recomputed
    assert {i: (killed / store.part_name(i)).stat().st_mtime_ns for i in parts} == kept

    whole = tmp_path / "whole.parquet"
    code, out2, err = cli(*argv, "--out", str(whole))
    assert code == 0, err
    df = same_run(killed, whole)
    assert (df["hand"].to_numpy() == np.arange(1000 * chunks_)).all()
    same_frame(pd.read_parquet(killed).sort_values("hand", ignore_index=True),
               pd.read_parquet(whole).sort_values("hand", ignore_index=True))
    assert out.split("\n\n")[0] == out2.split("\n\n")[0]        # the same summary table


@pytest.mark.slow
def test_ctrl_c_keeps_finished_chunks_and_says_how_to_resume(tmp_path):
    """Ctrl-C (SIGINT) while the run is held after its part 2 of 20 (so it lands
    mid-run, however fast the machine): exit code 130, one line saying how many
    chunks are kept and how to resume, and no temporary file left."""
    out = tmp_path / "run.parquet"
    argv = ["simulate", "pepper", "--hands", "20000", "--chunk", "1000", "--seed", "3",
            "--threads", "1", "--no-progress", "--out", str(out)]
    proc = subprocess.Popen([sys.executable, "-c", HELD_CLI, *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        line = proc.stdout.readline() if ready else ""
        assert line == f"held {HELD_PART}\n", line
        assert proc.poll() is None, line
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    k = len(store.part_indices(out))
    assert k == HELD_PART + 1
    assert stderr == (f"simkit: interrupted after {k} of 20 chunks; "
                      f"run the same command again to resume\n")
    assert stdout == ""
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []


def test_interrupted_aggregate_run_resumes_to_the_same_aggregate(tmp_path, monkeypatch):
    job = jobs.job("pepper", "hand", 90_000, spec(players=3), kind="aggregate",
                          chunk=10_000)
    real, calls = chunks.compute_chunk, []

    def flaky(job, index, *args):
        calls.append(index)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return real(job, index, *args)

    monkeypatch.setattr(chunks, "compute_chunk", flaky)
    a = tmp_path / "a.parquet"
    with pytest.raises(chunks.Interrupted) as info:
        chunks.run(job, a)
    assert (info.value.done, info.value.total) == (4, 9)
    assert "interrupted after 4 of 9 chunks; run the same command again" in str(info.value)
    assert store.part_indices(a) == {0, 1, 2, 3}
    monkeypatch.undo()
    result = chunks.run(job, a)
    assert (result.computed, result.resumed, result.units_computed) == (5, 4, 50_000)
    # finished: the merged aggregate replaces the parts
    assert sorted(p.name for p in a.iterdir()) == ["_manifest.json", "aggregate.parquet"]
    b = tmp_path / "b.parquet"
    chunks.run(job, b)
    agg = same_run(a, b)
    pd.testing.assert_frame_equal(agg, pd.read_parquet(a))
    assert agg["hands"].sum() == 90_000
    keys = list(api.AGG_KEYS)
    assert agg[keys].equals(agg[keys].sort_values(keys, ignore_index=True))
    again = chunks.run(job, b)
    assert again.complete_before
    assert again.computed == 0
    pd.testing.assert_frame_equal(again.aggregate, agg)


# --- refusals ------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_different_run_into_the_same_output_is_refused(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = ["simulate", "pepper", "--hands", "4000", "--no-progress", "--out", "x.parquet"]
    code, _, err = cli(*base, "--seed", "7", "--chunk", "1000")
    assert code == 0, err
    before = snapshot(tmp_path / "x.parquet")
    for extra, says in [
        (["--seed", "8"], "seed 7 there, 8 here"),
        (["--seed", "7", "--set", "auction=one_lap"], "rule auction open there, one_lap here"),
        (["--seed", "7", "--policy", "random"],
         f"policies {pepper_policies('heuristic', 1)[0].text()} "
         "at all 4 seats there, random at all 4 seats here"),
        (["--seed", "7", "--players", "3"], "rule players 4 there, 3 here"),
        (["--seed", "7", "--players", "3"], "at all 4 seats there, heuristic"),
        (["--seed", "7", "--chunk", "500"], "chunk size 1,000 there, 500 here"),
        (["--seed", "7", "--aggregate"], "kind records there, aggregate here"),
    ]:
        chunk = [] if "--chunk" in extra else ["--chunk", "1000"]
        code, out, err = cli(*base, *chunk, *extra)
        assert code == 2, (extra, out, err)
        assert out == "", (extra, out, err)
        assert err.startswith("simkit: error: x.parquet holds a different run: "), err
        assert err.endswith("; choose another --out or delete it\n"), err
        assert says in err, err
        assert err.count("\n") == 1
        assert snapshot(tmp_path / "x.parquet") == before
    code, out, err = cli("simulate", "pepper", "--hands", "5000", "--chunk", "1000",
                         "--no-progress", "--out", "x.parquet", "--seed", "7")
    assert code == 2
    assert "4,000 hands there, 5,000 hands here" in err
    # each side's count in its own unit
    code, out, err = cli("simulate", "pepper", "--games", "3000", "--chunk", "1000",
                         "--no-progress", "--out", "x.parquet", "--seed", "7")
    assert code == 2
    assert "4,000 hands there, 3,000 games here" in err
    # in a real process: exit code 2 and one line
    res = subprocess.run(CLI + base + ["--chunk", "1000", "--seed", "9"], capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 2
    assert res.stdout == ""
    assert res.stderr == ("simkit: error: x.parquet holds a different run: seed 7 there, 9 "
                          "here; choose another --out or delete it\n")
    assert snapshot(tmp_path / "x.parquet") == before
    assert sorted(os.listdir(tmp_path)) == ["x.parquet"]


def test_an_output_that_is_not_a_run_is_refused(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "notes.txt").write_text("mine")
    (tmp_path / "empty").mkdir()
    (tmp_path / "file.parquet").write_bytes(b"PAR1")
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    for out, says in [("data", "is not a simkit run (no _manifest.json)"),
                      ("empty", "is not a simkit run"),
                      ("file.parquet", "is a file, not a simkit run directory")]:
        code, stdout, err = cli("simulate", "pepper", "--hands", "100",
                                "--no-progress", "--out", out)
        assert code == 2
        assert stdout == ""
        assert err.startswith(f"simkit: error: {out} exists and "), err
        assert says in err, err
        assert err.count("\n") == 1
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before
    with pytest.raises(InputError, match="not a simkit run"):
        store.read_run(tmp_path / "data")


@pytest.mark.parametrize(("extra", "says"), [
    (["--games", "10", "--aggregate"], "--aggregate works with --hands only"),
    (["--workers", "2"], "--backend dask"),
    (["--backend", "threads", "--scheduler", "tcp://127.0.0.1:8786"], "--backend dask"),
    (["--backend", "dask", "--threads", "1"], "--workers"),
    (["--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"], "one or the other"),
    (["--chunk", "0"], "--chunk"),
    (["--hands", "2000000", "--chunk", "1"], "choose a larger --chunk"),
    (["--backend", "spark"], "spark"),
])
def test_bad_run_options(tmp_path, cli, monkeypatch, extra, says):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("simulate", "pepper", "--no-progress", "--out", "x",
                         *extra)
    assert code == 2, err
    assert out == "", err
    assert says in err, err
    assert err.count("\n") == 1, err
    assert os.listdir(tmp_path) == []


# --- the same results everywhere ---------------------------------------------------------

@pytest.mark.slow      # a Dask cluster
def test_threads_and_dask_give_identical_results(tmp_path):
    from dask.distributed import LocalCluster

    records = jobs.job("pepper", "hand", 120_000, spec(), chunk=25_000)
    games = jobs.job("pepper", "game", 3_000, spec(players=3), chunk=700)
    agg = jobs.job("pepper", "hand", 120_000, spec(players=2), kind="aggregate",
                          chunk=25_000)
    todo = {"records": records, "games": games, "agg": agg}
    for threads in (1, 2):
        for name, job in todo.items():
            chunks.run(job, tmp_path / f"{name}-t{threads}", threads=threads)
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            for name, job in todo.items():
                chunks.run(job, tmp_path / f"{name}-d{workers}", backend="dask",
                           scheduler=cluster.scheduler_address)
    for name in todo:
        for other in ("t2", "d1", "d2"):
            same_run(tmp_path / f"{name}-t1", tmp_path / f"{name}-{other}")
    df, _ = store.read_run(tmp_path / "records-t1")
    pd.testing.assert_frame_equal(df, api.simulate(120_000, seed=SEED), check_categorical=False)
    df, _ = store.read_run(tmp_path / "games-d2")
    pd.testing.assert_frame_equal(df, api.simulate_games(3_000, players=3, seed=SEED),
                                  check_categorical=False)


@pytest.mark.slow      # a Dask cluster
def test_dask_backend_from_the_command_line(tmp_path, cli, monkeypatch):
    """``--backend dask --workers 2`` starts its own local cluster; same summary and data
    as the threads backend, and a resume on threads of a run begun on Dask."""
    monkeypatch.chdir(tmp_path)
    argv = ["simulate", "pepper", "--hands", "60000", "--chunk", "10000", "--seed", "11",
            "--no-progress"]
    code, out_d, err = cli(*argv, "--backend", "dask", "--workers", "2",
                           "--out", "d.parquet")
    assert code == 0, err
    code, out_t, err = cli(*argv, "--out", "t.parquet")
    assert code == 0, err
    assert out_d.split("\n\n")[0] == out_t.split("\n\n")[0]
    same_run(tmp_path / "d.parquet", tmp_path / "t.parquet")
    # a run finished partly on each backend is the same run
    (tmp_path / "d.parquet" / "part-000003.parquet").unlink()
    code, out, err = cli(*argv, "--out", "d.parquet")
    assert code == 0, err
    assert "5 of 6 chunks were already done" in out, err
    same_run(tmp_path / "d.parquet", tmp_path / "t.parquet")


@pytest.mark.slow      # a Dask cluster
def test_a_dask_run_whose_workers_are_gone_stops_in_one_line(tmp_path, monkeypatch, cli):
    """The cluster loses its workers mid-run: the run stops with one line once it
    has had none for NO_WORKERS_TIMEOUT (not waiting forever), keeps the parts
    it wrote, and the same command finishes it on threads."""
    import threading

    from dask.distributed import LocalCluster

    from simkit.base.errors import RunError

    monkeypatch.setattr(chunks, "NO_WORKERS_TIMEOUT", 3.0)
    job = jobs.job("pepper", "hand", 2_000_000, spec(), chunk=20_000)
    out = tmp_path / "R"
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        def retire():
            end = time.monotonic() + 120
            while not (out.is_dir() and store.part_indices(out)) and time.monotonic() < end:
                time.sleep(0.05)
            cluster.scale(0)

        threading.Thread(target=retire, daemon=True).start()
        t0 = time.monotonic()
        with pytest.raises(RunError, match="no workers for 3 s; the finished parts are kept"):
            chunks.run(job, out, backend="dask", scheduler=cluster.scheduler_address)
        assert time.monotonic() - t0 < 90
    kept = store.part_indices(out)
    assert kept
    assert len(kept) < job.chunks
    assert [n for n in os.listdir(out) if n.startswith(".")] == []
    assert store.verify(out) == []
    done = chunks.run(job, out, threads=2)
    assert done.resumed == len(kept)
    assert store.read_manifest(out)["complete"]


# --- streaming aggregates --------------------------------------------------------------

def aggregate_records(df: pd.DataFrame, players: int) -> pd.DataFrame:
    """The aggregate of per-hand records, by pandas: what the kernel computes for
    an aggregate chunk."""
    sides = 2 if players == 4 else players
    bidder = df["bidder"].to_numpy().astype(int)
    seat = (bidder - df["dealer"].to_numpy() + players) % players
    seat = np.where(seat == 0, players, seat)
    seat = np.where(bidder < 0, 0, seat)
    side = np.where(players == 4, bidder % 2, bidder).clip(0)
    scores = df[[f"score_{s}" for s in range(sides)]].to_numpy().astype(np.int64)
    own = np.where(bidder >= 0, scores[np.arange(len(df)), side], 0)
    opp = np.where(bidder >= 0, scores.sum(axis=1) - own, 0)
    g = pd.DataFrame({"contract": df["contract"], "made": df["made"],
                      "bidder_trumps": df["bidder_trumps"], "bidder_bowers": df["bidder_bowers"],
                      "bidder_aces": df["bidder_aces"], "bidder_voids": df["bidder_voids"],
                      "bidder_seat": seat.astype(np.int8), "hands": 1,
                      "bidder_points": own, "bidder_points_sq": own * own,
                      "opponents_points": opp})
    keys = list(api.AGG_KEYS)
    return g.groupby(keys, sort=True).sum().reset_index()


@pytest.mark.parametrize("players", [4, 3, 2])
def test_aggregate_totals_equal_aggregated_records(tmp_path, players):
    s = spec(players=players, seed=players)
    rec = jobs.job("pepper", "hand", 50_000, s, chunk=12_000)
    agg = jobs.job("pepper", "hand", 50_000, s, kind="aggregate", chunk=12_000)
    chunks.run(rec, tmp_path / "rec")
    result = chunks.run(agg, tmp_path / "agg")
    df, _ = store.read_run(tmp_path / "rec")
    expected = aggregate_records(df, players)
    got, manifest = store.read_run(tmp_path / "agg")
    assert manifest["kind"] == "aggregate"
    assert manifest["rows"] == len(got)
    assert manifest["count"] == 50_000
    assert got["hands"].sum() == 50_000
    for frame in (got, result.aggregate):
        pd.testing.assert_frame_equal(frame[expected.columns], expected, check_dtype=False)
    # without an output directory: the same aggregate, merged in memory
    pd.testing.assert_frame_equal(chunks.run(agg).aggregate, got)


def test_aggregate_command_prints_the_records_summary(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["simulate", "pepper", "--hands", "40000", "--chunk", "15000", "--seed", "5",
            "--players", "3", "--no-progress"]
    code, out_a, err = cli(*argv, "--aggregate", "--out", "a.parquet")
    assert code == 0, err
    code, out_r, err = cli(*argv)
    assert code == 0, err
    assert out_a.split("\n\n")[0] == out_r.split("\n\n")[0]
    assert "40,000 aggregated hands" in out_a
    assert "written to a.parquet" in out_a
    assert "40,000 hands" in out_r
    assert "written" not in out_r
    assert sorted(os.listdir(tmp_path)) == ["a.parquet"]


@pytest.mark.parametrize(("unit", "kind"), [("hand", "records"), ("game", "records"),
                                        ("hand", "aggregate")])
def test_chunk_functions_keep_the_thread_count(unit, kind):
    """A chunk runs on the thread count its worker set (Dask workers set one)."""
    import numba
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    set_threads(1)
    job = jobs.job("pepper", unit, 100, spec(), kind=kind)
    job.compute(0, 50)
    assert numba.get_num_threads() == 1


# --- damaged parts: found, reported, repaired ------------------------------------------

def _damage(path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "half":
        data = data[:len(data) // 2]
    elif how == "empty":
        data = bytearray()
    else:                                   # three bytes flipped inside the file
        for k in (len(data) // 3, len(data) // 2, 2 * len(data) // 3):
            data[k] ^= 0x5A
    path.write_bytes(bytes(data))


def _pepper_run(cli, out, *extra):
    code, _, err = cli("simulate", "pepper", "--hands", "4000", "--chunk", "1000",
                       "--seed", str(SEED), "--out", str(out), "--no-progress", *extra)
    assert code == 0, err
    return err


@pytest.mark.parametrize("how", ["half", "empty", "flipped"])
def test_a_damaged_part_is_found_and_repaired(cli, tmp_path, how):
    """A finished part truncated to half, emptied or with three bytes flipped:
    verify names it (exit code 1), read_run refuses the run in one line, and
    the same command again computes that chunk anew, saying so; the run ends
    byte for byte as an undamaged one."""
    ref, run = tmp_path / "ref", tmp_path / "run"
    _pepper_run(cli, ref)
    _pepper_run(cli, run)
    manifest = store.read_manifest(run)
    assert set(manifest["parts"]) == {"0", "1", "2", "3"}
    assert manifest["parts"]["2"] == store.part_record(run, 2)
    _damage(run / store.part_name(2), how)
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "part-000002.parquet is damaged" in out
    assert "part-000001" not in out
    with pytest.raises(InputError, match=r"part-000002\.parquet is damaged.*same command again"):
        store.read_run(run)
    before = snapshot(run)
    assert cli("verify", str(run))[0] == 1
    assert snapshot(run) == before
    err = _pepper_run(cli, run)
    assert err.count("\n") == 1
    assert "part-000002.parquet was damaged" in err
    assert contents(run) == contents(ref)
    same_run(run, ref)
    code, out, _ = cli("verify", str(run))
    assert code == 0
    assert out.strip().endswith("complete: intact")


def test_an_interrupted_run_with_a_damaged_part_finishes(cli, tmp_path):
    """An unfinished run (chunk 3 never written) whose chunk 1 was damaged and
    whose chunks 0 and 2 are not in the manifest (killed between writing a part
    and recording it), 0 cut to half: the rerun computes 0, 1 and 3, keeps 2
    (it reads whole), and ends as an uninterrupted run."""
    ref, run = tmp_path / "ref", tmp_path / "run"
    _pepper_run(cli, ref)
    _pepper_run(cli, run)
    manifest = store.read_manifest(run)
    manifest["complete"] = False
    manifest.pop("rows"), manifest.pop("finished_utc")
    del manifest["parts"]["0"], manifest["parts"]["2"], manifest["parts"]["3"]
    store.write_json_atomic(run / store.RUN_MANIFEST, manifest)
    (run / store.part_name(3)).unlink()
    _damage(run / store.part_name(1), "flipped")
    _damage(run / store.part_name(0), "half")
    kept = (run / store.part_name(2)).stat().st_mtime_ns
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "not finished, 3 of 4 chunks written" in out
    assert "part-000001.parquet is damaged" in out
    # unrecorded, the half part is not taken for one of the run's
    assert "part-000000.parquet is not this run's: it is not readable Parquet" in out
    with pytest.raises(InputError, match="not finished"):
        store.read_run(run)
    err = _pepper_run(cli, run)
    assert "part-000000.parquet was damaged" in err
    assert "part-000001.parquet was damaged" in err
    assert "part-000002" not in err
    assert "part-000003" not in err
    assert (run / store.part_name(2)).stat().st_mtime_ns == kept
    same_run(run, ref)


def test_runs_from_before_checksums_are_taken_as_they_are(cli, tmp_path):
    run = tmp_path / "old"
    _pepper_run(cli, run)
    manifest = store.read_manifest(run)
    # a run as written before checksums: no parts record, and so no run id either
    del manifest["parts"], manifest["run_id"]
    store.write_json_atomic(run / store.RUN_MANIFEST, manifest)
    code, out, _ = cli("verify", str(run))
    assert code == 0
    assert "no checksums recorded" in out
    assert len(store.read_run(run)[0]) == 4000


def test_a_manifest_that_lies_about_its_run_is_damaged(cli, tmp_path):
    """The run id is recomputed from the manifest's own fields: an edited seed,
    rules, policy, count or unit, or a parts record deleted from a run new
    enough to keep one, is a damaged run (one line, exit 1) for verify and
    every reader, not an intact run whose hands are not the stored rows."""
    run = tmp_path / "run"
    _pepper_run(cli, run)
    true = store.read_manifest(run)
    edits = {
        "spec seed": lambda m: m["spec"].update(seed=m["spec"]["seed"] + 1),
        "seed": lambda m: m.update(seed=m["seed"] + 1),
        "rules": lambda m: m["spec"]["rules"].update(target=99),
        "policies": lambda m: m.update(policies=["random"] * 4),
        "count": lambda m: m.update(count=m["count"] - 1),
        "game": lambda m: m.update(game="pitch"),
        "parts": lambda m: m.pop("parts"),
        "parts entry": lambda m: m["parts"].update({"1": "garbage"}),
        "parts sizes": lambda m: m["parts"]["0"].update(bytes=-1),
        "parts key": lambda m: m["parts"].update({"x": m["parts"]["0"]}),
    }
    for name, edit in edits.items():
        m = json.loads(json.dumps(true))
        edit(m)
        store.write_json_atomic(run / store.RUN_MANIFEST, m)
        for argv in (["verify", str(run)], ["show", "--run", str(run), "--hand", "5"]):
            code, out, err = cli(*argv)
            assert code == 1, (name, argv, out, err)
            assert out == "", (name, argv, out, err)
            assert err.startswith("simkit: error: run "), (name, err)
            assert "is damaged" in err, (name, err)
            assert err.count("\n") == 1, (name, err)
    store.write_json_atomic(run / store.RUN_MANIFEST, true)
    assert cli("verify", str(run))[0] == 0


def test_a_directory_where_a_part_belongs_is_one_line_and_kept(cli, tmp_path):
    """verify names it; a rerun refuses to touch it (simkit removes only its own
    files) and changes nothing; once it is moved away the rerun repairs the run."""
    ref, run = tmp_path / "ref", tmp_path / "run"
    _pepper_run(cli, ref)
    _pepper_run(cli, run)
    (run / store.part_name(1)).unlink()
    (run / store.part_name(1)).mkdir()
    (run / store.part_name(1) / "mine.txt").write_text("a user's file")
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "a directory stands where the part belongs" in out
    def files():
        return {p.name: p.is_dir() or p.read_bytes() for p in run.iterdir()}

    before = files()
    code, out, err = cli("simulate", "pepper", "--hands", "4000", "--chunk", "1000", "--seed",
                         str(SEED), "--out", str(run), "--no-progress")
    assert code == 1, err
    assert err.count("\n") == 1, err
    assert "move it away" in err, err
    assert files() == before
    assert (run / store.part_name(1) / "mine.txt").exists()
    (run / store.part_name(1)).rename(tmp_path / "moved")
    _pepper_run(cli, run)
    assert contents(run) == contents(ref)


def test_a_damaged_aggregate_is_computed_again(cli, tmp_path):
    ref, run = tmp_path / "ref", tmp_path / "run"
    _pepper_run(cli, ref, "--aggregate")
    _pepper_run(cli, run, "--aggregate")
    assert store.read_manifest(run)["parts"] == {}
    _damage(run / store.AGGREGATE_FILE, "half")
    code, out, _ = cli("verify", str(run))
    assert code == 1
    assert "aggregate.parquet is damaged" in out
    _pepper_run(cli, run, "--aggregate")
    assert contents(run) == contents(ref)


def test_a_damaged_tournament_part_is_repaired(cli, tmp_path):
    ref, run = tmp_path / "ref", tmp_path / "run"
    argv = ["tournament", "pepper", "--policy", "heuristic", "--policy", "random", "--hands",
            "3000", "--chunk", "1000", "--no-progress", "--json"]
    assert cli(*argv, "--out", str(ref))[0] == 0
    assert cli(*argv, "--out", str(run))[0] == 0
    _damage(run / store.part_name(1), "flipped")
    code, _out, err = cli(*argv, "--out", str(run))
    assert code == 0
    assert "part-000001.parquet was damaged" in err
    for i in range(3):
        name = store.part_name(i)
        assert (run / name).read_bytes() == (ref / name).read_bytes()


def test_verify_needs_a_run(cli, tmp_path):
    code, _out, err = cli("verify", str(tmp_path / "nothing"))
    assert code == 2
    assert err.count("\n") == 1
    assert "not a simkit run directory" in err


# --- one run at a time, and a full disk ----------------------------------------------------

@pytest.mark.slow
def test_a_second_run_on_the_same_out_is_refused_while_the_first_runs(tmp_path, cli):
    """A run held still after its part 2 holds its directory: the same command
    beside it is refused in one line naming the process, touching nothing (it
    would have removed the first's temporaries); kill -9 of the first releases
    the lock, and the same command then finishes the run as an unbroken one."""
    argv = ["simulate", "pepper", "--hands", "6000", "--chunk", "1000", "--seed", str(SEED),
            "--threads", "1", "--no-progress"]
    run = tmp_path / "run.parquet"
    proc = subprocess.Popen([sys.executable, "-c", HELD_CLI, *argv, "--out", str(run)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        line = proc.stdout.readline() if ready else ""
        assert line == f"held {HELD_PART}\n", line
        stray = run / ".part-000003.parquet.99999-0123456789ab.tmp"    # as if being written
        stray.write_bytes(b"half a part")
        before = snapshot(run)
        for _ in range(2):
            code, out, err = cli(*argv, "--out", str(run))
            assert code == 2, err
            assert out == ""
            assert err == (f"simkit: error: --out '{run}' is in use by another simkit run "
                           f"(process {proc.pid}): wait for it to finish, or give another "
                           f"--out\n")
            assert snapshot(run) == before
        assert store.is_held(run)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        proc.kill()
        proc.wait()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            f.close()
    assert not store.is_held(run)       # released with the process
    code, out, err = cli(*argv, "--out", str(run))
    assert code == 0, err
    assert "3 of 6 chunks were already done" in out
    assert not (run / store.RUN_LOCK).exists()
    ref = tmp_path / "ref.parquet"
    assert cli(*argv, "--out", str(ref))[0] == 0
    same_run(run, ref)


def test_a_run_being_created_beside_is_left_alone(tmp_path):
    """A run's directory is made under a hidden name, locked, then renamed: a
    second run removes only such directories left by killed runs (unlocked)."""
    job = chunks.Job.make("demo", "hand", 25, {"seed": 1}, lambda s, c: None, chunk=10)
    out = tmp_path / "x"
    live, dead = tmp_path / ".x.1-live.creating", tmp_path / ".x.2-dead.creating"
    live.mkdir()
    dead.mkdir()
    with store.RunLock(live, "x"), contextlib.ExitStack() as held:
        chunks._create(job, out, held)
        assert store.is_held(out)
        assert live.is_dir()
        assert not dead.exists()
    assert not store.is_held(out)
    assert sorted(os.listdir(out)) == ["_manifest.json"]


@pytest.mark.parametrize(("full", "chunks_kept"), [
    ("part-000002.parquet", {0, 1}),        # Parquet's writer: errno 28 from pyarrow
    ("_manifest.json", {0, 1}),             # the manifest recording part 1
])
def test_a_full_disk_names_the_file_and_leaves_the_run_resumable(tmp_path, cli, monkeypatch,
                                                                 full, chunks_kept):
    """No room left on the disk is not bad input: exit code 1, one line naming
    the file that could not be written and saying the disk is full; no
    temporary is left, and the same command again finishes the run."""
    argv = ["simulate", "pepper", "--hands", "4000", "--chunk", "1000", "--seed", str(SEED),
            "--threads", "1", "--no-progress"]
    run = tmp_path / "run"
    no_room = OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No "
                                    "space left on device")
    write_table, dump = store.pq.write_table, store.json.dump

    def parquet(table, where, **kwargs):
        if full in str(where):
            raise no_room
        return write_table(table, where, **kwargs)

    def manifest(obj, f, **kwargs):
        if full == store.RUN_MANIFEST and "1" in obj.get("parts", {}):
            raise no_room
        return dump(obj, f, **kwargs)

    monkeypatch.setattr(store.pq, "write_table", parquet)
    monkeypatch.setattr(store.json, "dump", manifest)
    code, out, err = cli(*argv, "--out", str(run))
    assert code == 1, err
    assert out == ""
    assert err == (f"simkit: error: cannot write '{run / full}': the disk is full (No space "
                   f"left on device); what was finished is kept: make room and run the same "
                   f"command again to go on\n")
    assert store.part_indices(run) == chunks_kept
    assert [n for n in os.listdir(run) if n.startswith(".")] == []
    assert not store.read_manifest(run)["complete"]
    monkeypatch.undo()
    code, out, err = cli(*argv, "--out", str(run))
    assert code == 0, err
    assert "2 of 4 chunks were already done" in out
    ref = tmp_path / "ref"
    assert cli(*argv, "--out", str(ref))[0] == 0
    same_run(run, ref)
