"""Suite-wide setup and the helpers several test files share.

- Before pytest-xdist's workers start, the kernels are compiled once
  (``pytest_configure``).
- Every test leaves numba's thread count at its default (``_all_threads_after``).
- ``workdir``: an empty working directory; ``cli``: the ``simkit`` command run
  in this process, with ``cli.refused(...)`` for the one rule every bad input
  follows.
- ``run_study``: a study's result for given arguments, run once per test
  process and shared by the study contract (test_studies.py) and the study's
  own tests; ``assert_intervals`` for the intervals of their tables.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from analyses import load_study
from simkit.app.cli import main
from simkit.bygame import warm
from simkit.runs.batches import max_threads, set_threads

HERE = Path(__file__).resolve().parent


def _workers(config) -> int:
    n = getattr(config.option, "numprocesses", None)
    if n == "auto":
        return os.cpu_count() or 1
    return int(n or 0)


def pytest_configure(config):
    """In the controller of a run with two or more workers, compile every
    warm-up step of every game (simkit.bygame.warm) in one process per core; the
    workers then load the kernels instead of each compiling them (minutes on
    a fresh checkout)."""
    if hasattr(config, "workerinput") or _workers(config) < 2:
        return
    # the checkout's simkit, which the workers import (python -m pytest from its root)
    path = os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")]))
    warm.warm(warm.every_step(), env={**os.environ, "PYTHONPATH": path})


@pytest.fixture(autouse=True)
def _all_threads_after():
    """Some tests lower numba's thread count; the next test finds the default."""
    yield
    set_threads(None)


# ---------------------------------------------------------------- the command line

@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """An empty temporary working directory: commands write here, and a test
    sees that a refused command wrote nothing."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


class Cli:
    """``simkit ARGV...`` run in this process, its output caught by pytest."""

    def __init__(self, capsys):
        self._capsys = capsys

    def __call__(self, *argv) -> tuple[int, str, str]:
        """(exit code, stdout, stderr) of ``simkit ARGV...``."""
        code = main([str(a) for a in argv])
        out, err = self._capsys.readouterr()
        return code, out, err

    def refused(self, *argv, names=(), seconds: float | None = None) -> str:
        """Run ``simkit ARGV...`` and check it is refused as every bad input
        is: exit code 2, nothing on stdout, one line ``simkit: error: ...`` on
        stderr naming each of ``names``, no traceback, nothing written in the
        working directory (use ``workdir``) and, given ``seconds``, within
        them.  Returns the line."""
        before = sorted(os.listdir())
        started = time.perf_counter()
        code, out, err = self(*argv)
        took = time.perf_counter() - started
        assert code == 2, (argv, code, out, err)
        assert err.startswith("simkit: error: "), (argv, err)
        assert err.endswith("\n"), (argv, err)
        assert err.count("\n") == 1, (argv, err)
        assert "Traceback" not in err, (argv, err)
        assert out == "", (argv, out)
        assert sorted(os.listdir()) == before, (argv, "left files behind")
        for name in names:
            assert name in err, (argv, name, err)
        if seconds is not None:
            assert took < seconds, (argv, took)
        return err


@pytest.fixture
def cli(capsys):
    """The ``simkit`` command (:class:`Cli`)."""
    return Cli(capsys)


# ---------------------------------------------------------------- studies

#: The thread count of shared study runs: two where numba has them, so that
#: comparing with a run on one thread compares one and two threads.
STUDY_THREADS = min(2, max_threads())


@pytest.fixture(scope="session")
def run_study():
    """``run_study(name, hands, seed)``: the result of study ``name`` run with
    these arguments on ``STUDY_THREADS`` threads.  Each run is made once per
    test process (every pytest-xdist worker is one) and shared by the tests
    that ask for it: they must not change it (render a copy).  Its figures
    are closed at once (they can still be saved), so that the shared results
    keep no window open."""
    done = {}

    def run(name: str, hands: int, seed: int):
        key = (name, hands, seed)
        if key not in done:
            done[key] = load_study(name).run(hands=hands, seed=seed, threads=STUDY_THREADS)
            done[key].close()
        return done[key]

    return run


def _assert_intervals(df, est: str, lo: str = "ci_low", hi: str = "ci_high",
                      tol: float = 1e-12) -> None:
    ok = df[lo].notna()
    assert ok.any(), (est, "no interval")
    assert df.loc[ok, hi].notna().all(), (est, hi)
    assert (df.loc[ok, lo] <= df.loc[ok, est] + tol).all(), (est, lo)
    assert (df.loc[ok, est] <= df.loc[ok, hi] + tol).all(), (est, hi)


@pytest.fixture(scope="session")
def assert_intervals():
    """``assert_intervals(df, est, lo="ci_low", hi="ci_high", tol=1e-12)``: the
    table gives some interval ``[lo, hi]`` of column ``est``, both ends or
    neither, and each holds its estimate (up to ``tol``)."""
    return _assert_intervals
