"""Tests for simkit.store: run directories, single Parquet run files, manifests."""

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
from simkit import store
from simkit.errors import InputError
from simkit.store import (ParquetSink, check_writable, make_manifest,
                          manifest_path, read_run)


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


def test_manifest_path():
    assert str(manifest_path("runs/x.parquet")) == os.path.join("runs", "x.parquet.json")


def test_round_trip_several_row_groups(tmp_path):
    out = tmp_path / "x.parquet"
    chunks = [_chunk(0, 100), _chunk(100, 100), _chunk(200, 100)]
    with ParquetSink(out, _manifest()) as sink:
        for c in chunks:
            sink.write(c)
            # Streams to a hidden temp file; nothing is published early.
            assert not out.exists()
            assert any(n.endswith(".partial") for n in _listing(tmp_path))
    assert _listing(tmp_path) == ["x.parquet", "x.parquet.json"]
    meta = pq.ParquetFile(out).metadata
    assert meta.num_row_groups == 3
    assert meta.row_group(0).column(0).compression == "ZSTD"

    df, manifest = read_run(out)
    pd.testing.assert_frame_equal(df, pd.concat(chunks, ignore_index=True))
    assert manifest["rows"] == 300 == sink.rows
    assert manifest["seed"] == 42

    df2, _ = read_run(out, columns=["score"])
    assert list(df2.columns) == ["score"]


def test_write_accepts_arrow_tables_and_batches(tmp_path):
    out = tmp_path / "x.parquet"
    with ParquetSink(out, _manifest()) as sink:
        sink.write(_chunk(0, 5))
        sink.write(pa.Table.from_pandas(_chunk(5, 5), preserve_index=False))
        sink.write(pa.RecordBatch.from_pandas(_chunk(10, 5), preserve_index=False))
        sink.write(_chunk(15, 0))  # empty chunks are fine
    df, manifest = read_run(out)
    pd.testing.assert_frame_equal(df, _chunk(0, 15))
    assert manifest["rows"] == 15


def test_manifest_content(tmp_path):
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

    out = tmp_path / "x.parquet"
    with ParquetSink(out, m) as sink:
        sink.write(_chunk(0, 3))
    on_disk = json.loads(manifest_path(out).read_text())
    assert on_disk == dict(json.loads(json.dumps(m, default=int)), rows=3)


def test_make_manifest_rejects_unknown_unit():
    with pytest.raises(ValueError, match="unit"):
        make_manifest("pepper", {}, [], 1, "deal", 10)


def test_git_commit_none_outside_checkout_or_without_git(tmp_path, monkeypatch):
    monkeypatch.setattr(simkit, "__file__", str(tmp_path / "simkit" / "__init__.py"))
    (tmp_path / "simkit").mkdir()
    assert store.git_commit() is None
    monkeypatch.undo()
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on PATH
    assert store.git_commit() is None
    assert _manifest()["git_commit"] is None


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_exception_leaves_nothing_and_keeps_previous_run(tmp_path, exc):
    out = tmp_path / "x.parquet"
    with ParquetSink(out, _manifest(run="first")) as sink:
        sink.write(_chunk(0, 10))
    before = out.read_bytes(), manifest_path(out).read_bytes()

    with pytest.raises(exc):
        with ParquetSink(out, _manifest(run="second")) as sink:
            sink.write(_chunk(0, 50))
            raise exc()
    assert _listing(tmp_path) == ["x.parquet", "x.parquet.json"]
    assert (out.read_bytes(), manifest_path(out).read_bytes()) == before
    assert read_run(out)[1]["run"] == "first"


def test_exception_without_previous_run_leaves_empty_directory(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with ParquetSink(tmp_path / "x.parquet", _manifest()) as sink:
            sink.write(_chunk(0, 10))
            1 / 0
    assert _listing(tmp_path) == []


def test_nothing_to_write(tmp_path):
    out = tmp_path / "x.parquet"
    with pytest.raises(InputError, match="nothing to write"):
        with ParquetSink(out, _manifest()):
            pass
    assert _listing(tmp_path) == []


def test_empty_run_with_schema_writes_valid_empty_file(tmp_path):
    out = tmp_path / "x.parquet"
    schema = pa.schema([("hand", pa.int64()), ("score", pa.float64())])
    with ParquetSink(out, _manifest(), schema=schema):
        pass
    df, manifest = read_run(out)
    assert len(df) == 0 and list(df.columns) == ["hand", "score"]
    assert manifest["rows"] == 0


def test_schema_given_converts_dataframes(tmp_path):
    out = tmp_path / "x.parquet"
    schema = pa.schema([("hand", pa.int64()), ("score", pa.float32())])
    with ParquetSink(out, _manifest(), schema=schema) as sink:
        sink.write(pd.DataFrame({"hand": [1, 2], "score": [0.5, 1.5]}))
    assert pq.read_schema(out).field("score").type == pa.float32()


def test_write_outside_with_is_an_error(tmp_path):
    with pytest.raises(RuntimeError):
        ParquetSink(tmp_path / "x.parquet", _manifest()).write(_chunk(0, 1))


def _one_line_error(fn, *args, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        fn(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_check_writable_ok_creates_nothing(tmp_path):
    check_writable(tmp_path / "x.parquet")
    assert _listing(tmp_path) == []


def test_check_writable_missing_directory(tmp_path):
    path = tmp_path / "runs" / "x.parquet"
    message = _one_line_error(check_writable, path)
    assert message == (f"cannot write --out '{path}': "
                       f"directory '{tmp_path / 'runs'}' does not exist")
    assert not (tmp_path / "runs").exists()


def test_check_writable_path_is_a_directory(tmp_path):
    message = _one_line_error(check_writable, tmp_path, what=None)
    assert f"'{tmp_path}'" in message and "is a directory" in message


def test_check_writable_parent_is_a_file(tmp_path):
    (tmp_path / "runs").write_text("")
    message = _one_line_error(check_writable, tmp_path / "runs" / "x.parquet")
    assert "is not a directory" in message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="permissions are not enforced for root")
def test_check_writable_read_only_directory(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        message = _one_line_error(check_writable, ro / "x.parquet")
        assert "is not writable" in message
    finally:
        ro.chmod(0o700)


def test_sink_checks_path_on_enter(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        with ParquetSink(tmp_path / "nope" / "x.parquet", _manifest()):
            pass


def test_read_run_missing_file(tmp_path):
    path = tmp_path / "missing.parquet"
    message = _one_line_error(read_run, path)
    assert f"'{path}'" in message and "does not exist" in message


def test_read_run_not_parquet(tmp_path):
    path = tmp_path / "x.parquet"
    path.write_text("not parquet\nat all\n")
    message = _one_line_error(read_run, path)
    assert f"'{path}'" in message


def test_read_run_missing_manifest_or_column(tmp_path):
    out = tmp_path / "x.parquet"
    with ParquetSink(out, _manifest()) as sink:
        sink.write(_chunk(0, 3))
    assert "no column 'nope'" in _one_line_error(read_run, out, columns=["nope"])
    manifest_path(out).unlink()
    assert "manifest" in _one_line_error(read_run, out)


# --- run directories (written by simkit.chunks) ---------------------------------------

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
    with pytest.raises(ValueError):
        store.part_name(store.MAX_PARTS)


def test_read_run_directory(tmp_path):
    out = _run_dir(tmp_path)
    df, manifest = read_run(out)
    pd.testing.assert_frame_equal(df, _chunk(0, 30))
    assert manifest["complete"] is True and manifest["chunks"] == 3
    pd.testing.assert_frame_equal(pd.read_parquet(out), df)      # pyarrow skips _manifest.json
    df2, _ = read_run(out, columns=["hand"])
    assert list(df2.columns) == ["hand"] and len(df2) == 30
    assert "no column 'nope'" in _one_line_error(read_run, out, columns=["nope"])


def test_read_run_refuses_unfinished_or_damaged_runs(tmp_path):
    out = _run_dir(tmp_path, complete=False)
    (out / store.part_name(2)).unlink()
    message = _one_line_error(read_run, out)
    assert "not finished (2 of 3 chunks written)" in message and "same command" in message
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
    assert _listing(tmp_path) == ["x.parquet"] and path.read_bytes() == first

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
