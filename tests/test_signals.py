"""SIGTERM and SIGHUP stop a command as Ctrl-C does: cleanly, nothing left but
what a rerun resumes from, one line on stderr, exit code 128 + the signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from simkit.runs import store

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")]


def _start(*argv, cwd):
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    return subprocess.Popen([sys.executable, "-m", "simkit.app.cli", *argv], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(check, seconds=120.0):
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def test_sigterm_stops_a_run_like_ctrl_c(tmp_path):
    run = tmp_path / "R"
    argv = ["simulate", "pepper", "--hands", "6000000", "--chunk", "100000", "--out", str(run),
            "--no-progress"]
    p = _start(*argv, cwd=tmp_path)
    _wait_for(lambda: run.is_dir() and len(store.part_indices(run)) >= 2)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 128 + signal.SIGTERM, err
    assert err.count("\n") == 1
    assert err.startswith("simkit: interrupted after ")
    assert "run the same command again to resume" in err
    assert [n for n in os.listdir(run) if n.startswith(".")] == []      # no temporaries
    assert store.verify(run) == []
    done = subprocess.run([sys.executable, "-m", "simkit.app.cli", *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert store.read_manifest(run)["complete"]
    assert store.verify(run) == []


def test_sighup_stops_a_report_leaving_nothing_half_written(tmp_path):
    out = tmp_path / "reports"
    p = _start("report", "pepper-bids", "--hands", "3000000", "--out", str(out),
               "--no-progress", "--threads", "1", cwd=tmp_path)
    time.sleep(8)                   # loading the kernels, then into the study
    assert p.poll() is None, "the study finished before the signal: make it larger"
    p.send_signal(signal.SIGHUP)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 128 + signal.SIGHUP, err
    assert err.strip().splitlines()[-1] == "simkit: stopped by SIGHUP"
    left = [str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
            if p.name.startswith(".")]
    assert left == []
