"""What simkit keeps of an adaptation, read back only when it is whole and its
own (simkit/lab/adapt.py): a checksum, bounded reads, one warning and the
adaptation made again otherwise; and a server's kept adaptations tidied."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from simkit.lab import adapt

REQ = adapt.request("pepper", None, "heuristic", ["aggression=-1:1"], seed=1, trials=4,
                    deals=500)


def _kept(tmp_path: pathlib.Path, result: dict) -> pathlib.Path:
    where = tmp_path / REQ.key()
    where.mkdir()
    path = where / adapt.RESULT
    path.write_text(json.dumps({"result": result, "sha256": adapt._digest(result)}))
    return path


def _result(**more) -> dict:
    return {"setting": "heuristic:aggression=0.1", "start": REQ.policy, "changed": True,
            "capped": False, "rounds": 1, "objective": "wins per game", "unit": "game",
            "trace": [], "request": json.loads(json.dumps(adapt.dataclasses.asdict(REQ))),
            **more}


def test_a_whole_kept_adaptation_is_read(tmp_path):
    _kept(tmp_path, _result())
    assert adapt.kept_result(REQ, tmp_path)["setting"] == "heuristic:aggression=0.1"


@pytest.mark.parametrize("damage", ["edited", "string-trace", "fifo", "dev-zero", "nested",
                                    "another"])
def test_a_kept_adaptation_that_is_not_whole_is_not_used(tmp_path, capsys, damage):
    path = _kept(tmp_path, _result())
    if damage == "edited":
        held = json.loads(path.read_text())
        held["result"]["setting"] = "heuristic:aggression=5.5"
        path.write_text(json.dumps(held))
    elif damage == "string-trace":
        bad = _result(trace="not a list")
        path.write_text(json.dumps({"result": bad, "sha256": "0" * 64}))
    elif damage == "fifo":
        path.unlink()
        os.mkfifo(path)
    elif damage == "dev-zero":
        path.unlink()
        path.symlink_to("/dev/zero")
    elif damage == "nested":
        path.write_text("[" * 100_000 + "]" * 100_000)
    else:                       # another adaptation's result under this one's name
        other = _result()
        other["request"]["seed"] = 2
        path.write_text(json.dumps({"result": other, "sha256": adapt._digest(other)}))
    assert adapt.kept_result(REQ, tmp_path) is None
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"simkit: warning: kept adaptation '{path}' is not used")


def test_a_servers_kept_adaptations_are_tidied(tmp_path):
    """Finished adaptations keep their results, not their searches; beyond the
    budget the least recently used go, never one changed in the last hour."""
    for i in range(3):
        d = tmp_path / f"pepper-{i}"
        (d / "round-1").mkdir(parents=True)
        (d / "round-1" / "_study.db").write_bytes(b"x" * 10_000)
        (d / adapt.RESULT).write_text("{}")
        os.utime(d / adapt.RESULT, (1_000 + i, 1_000 + i))
        os.utime(d, (1_000 + i, 1_000 + i))
    busy = tmp_path / "pepper-busy"
    (busy / "round-1").mkdir(parents=True)
    (busy / "round-1" / "_study.db").write_bytes(b"x" * 10_000)
    removed = adapt.tidy(tmp_path, most=10_004)
    assert removed >= 30_000
    assert not list(tmp_path.glob("pepper-[0-9]/round-1"))
    assert (busy / "round-1" / "_study.db").exists()      # under way: kept
    # 10,000 bytes under way and three results of 2: the oldest result goes
    assert sorted(p.name for p in tmp_path.glob("pepper-[0-9]")) == ["pepper-1", "pepper-2"]
