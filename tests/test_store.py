"""Tests for simkit.runs.store: run directories and manifests."""

import datetime
import json
import os
import re
import subprocess

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import simkit
from simkit.base.errors import InputError
from simkit.bygame import jobs
from simkit.runs import store
from simkit.runs.store import make_manifest, read_run


def _manifest(**extra):
    return make_manifest("pepper", {"players": 4, "stick_the_dealer": True},
                         ["greedy", "random"], 42, "hand", 300, **extra)


def _chunk(start, size):
    i = np.arange(start, start + size)
    return pd.DataFrame({"hand": i.astype(np.int64),
                         "bid": (i % 7).astype(np.int8),
                         "made": i % 3 == 0,
                         "score": i * 0.5})


def _listing(directory):
    return sorted(p.name for p in directory.iterdir())


def test_manifest_content():
    m = _manifest(players=np.int64(4), backend="numba")
    assert m["game"] == "pepper"
    assert m["rules"] == {"players": 4, "stick_the_dealer": True}
    assert m["policies"] == ["greedy", "random"]
    assert (m["seed"], m["unit"], m["count"]) == (42, "hand", 300)
    assert m["simkit_version"] == simkit.__version__
    assert set(m["versions"]) == {"python", "numpy", "numba", "pandas", "pyarrow"}
    assert m["versions"]["numpy"] == np.__version__
    assert m["versions"]["pyarrow"] == pa.__version__
    created = datetime.datetime.fromisoformat(m["created_utc"])
    assert created.utcoffset() == datetime.timedelta(0)
    assert m["backend"] == "numba"
    assert m["git_commit"] is None or re.fullmatch(r"[0-9a-f]{40}", m["git_commit"])
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=os.path.dirname(simkit.__file__), timeout=5)
    except (OSError, subprocess.SubprocessError):
        head = None
    if head is not None and head.returncode == 0:
        assert m["git_commit"] == head.stdout.strip()
    assert json.loads(json.dumps(m, default=store.json_default))["count"] == 300


def test_a_run_of_an_unknown_unit_is_refused_before_its_manifest():
    """The game's spec says what a run may count (store keeps no unit list)."""
    with pytest.raises(InputError, match="bad unit 'deal': pepper records hands or games"):
        jobs.job("pepper", "deal", 10, {})
    with pytest.raises(InputError, match="shiesta is played in whole games"):
        jobs.job("shiesta", "hand", 10, {})


def test_git_commit_none_outside_checkout_or_without_git(tmp_path, monkeypatch):
    monkeypatch.setattr(simkit, "__file__", str(tmp_path / "simkit" / "__init__.py"))
    (tmp_path / "simkit").mkdir()
    assert store.git_commit() is None
    monkeypatch.undo()
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on PATH
    assert store.git_commit() is None
    assert _manifest()["git_commit"] is None


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def _one_line_error(fn, *args, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        fn(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="permissions are not enforced for root")
def test_read_run_missing_file(tmp_path):
    path = tmp_path / "missing.parquet"
    message = _one_line_error(read_run, path)
    assert f"'{path}'" in message
    assert "does not exist" in message


def test_read_run_not_parquet(tmp_path):
    path = tmp_path / "x.parquet"
    path.write_text("not parquet\nat all\n")
    message = _one_line_error(read_run, path)
    assert f"'{path}'" in message


# --- run directories (written by simkit.runs.chunks) ---------------------------------------

def _run_dir(tmp_path, parts=3, size=10, complete=True, kind="records"):
    out = tmp_path / "run.parquet"
    out.mkdir()
    for i in range(parts):
        store.write_part(out, i, _chunk(i * size, size))
    manifest = make_manifest("pepper", {"players": 4}, ["random"] * 4, 1, "hand", parts * size,
                             layout=store.LAYOUT, kind=kind, chunk=size, chunks=parts,
                             complete=complete, rows=parts * size)
    store.write_json_atomic(out / store.RUN_MANIFEST, manifest)
    return out


def test_part_names():
    assert store.part_name(0) == "part-000000.parquet"
    assert store.part_name(123456) == "part-123456.parquet"
    assert store.part_index("part-000042.parquet") == 42
    for name in ("part-42.parquet", "_manifest.json", ".part-000001.parquet.1-ab.tmp",
                 "part-000001.parquet.tmp", "aggregate.parquet"):
        assert store.part_index(name) is None, name
    with pytest.raises(ValueError, match="out of range"):
        store.part_name(store.MAX_PARTS)


def test_read_run_directory(tmp_path):
    out = _run_dir(tmp_path)
    df, manifest = read_run(out)
    pd.testing.assert_frame_equal(df, _chunk(0, 30))
    assert manifest["complete"] is True
    assert manifest["chunks"] == 3
    pd.testing.assert_frame_equal(pd.read_parquet(out), df)      # pyarrow skips _manifest.json
    df2, _ = read_run(out, columns=["hand"])
    assert list(df2.columns) == ["hand"]
    assert len(df2) == 30
    assert "no column 'nope'" in _one_line_error(read_run, out, columns=["nope"])


def test_read_run_refuses_unfinished_or_damaged_runs(tmp_path):
    out = _run_dir(tmp_path, complete=False)
    (out / store.part_name(2)).unlink()
    message = _one_line_error(read_run, out)
    assert "not finished (2 of 3 chunks written)" in message
    assert "same command" in message
    (tmp_path / "b").mkdir()
    out2 = _run_dir(tmp_path / "b")
    (out2 / store.part_name(1)).unlink()
    assert "part-000001.parquet missing" in _one_line_error(read_run, out2)
    (out2 / store.RUN_MANIFEST).unlink()
    assert "not a simkit run" in _one_line_error(read_run, out2)


def test_read_run_aggregate(tmp_path):
    out = tmp_path / "agg.parquet"
    out.mkdir()
    agg = pd.DataFrame({"contract": np.array([1, 2], np.int8), "hands": [5, 7]})
    store.write_parquet_atomic(out / store.AGGREGATE_FILE, agg)
    store.write_json_atomic(out / store.RUN_MANIFEST,
                            {"layout": store.LAYOUT, "kind": "aggregate", "complete": True,
                             "chunks": 4, "rows": 2})
    df, manifest = read_run(out)
    pd.testing.assert_frame_equal(df, agg)
    assert manifest["kind"] == "aggregate"


def test_atomic_writes_leave_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "x.parquet"
    store.write_parquet_atomic(path, _chunk(0, 5))
    first = path.read_bytes()
    store.write_parquet_atomic(path, _chunk(0, 5))
    assert path.read_bytes() == first                  # same data, same bytes
    assert _listing(tmp_path) == ["x.parquet"]

    def broken(table, where, **kw):
        with open(where, "wb") as f:
            f.write(b"half")
        raise KeyboardInterrupt

    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(KeyboardInterrupt):
        store.write_parquet_atomic(path, _chunk(0, 50))
    assert _listing(tmp_path) == ["x.parquet"]
    assert path.read_bytes() == first

    store.write_json_atomic(tmp_path / "m.json", {"a": np.int64(1), "b": (1, 2)})
    assert json.loads((tmp_path / "m.json").read_text()) == {"a": 1, "b": [1, 2]}
    assert _listing(tmp_path) == ["m.json", "x.parquet"]


def test_remove_temporaries_only_removes_ours(tmp_path):
    ours = [store.temporary_path(tmp_path / store.part_name(3)).name,
            store.temporary_path(tmp_path / store.RUN_MANIFEST).name,
            store.temporary_path(tmp_path / store.AGGREGATE_FILE).name]
    theirs = [".hidden", "notes.tmp", ".part-000001.parquet.tmp", "part-000001.parquet"]
    for name in ours + theirs:
        (tmp_path / name).write_text("")
    assert all(store.is_temporary(n) for n in ours)
    assert store.remove_temporaries(tmp_path) == 3
    assert _listing(tmp_path) == sorted(theirs)
    assert store.part_indices(tmp_path) == {1}
