"""simkit.bygame.warm: the kernels compiled ahead in parallel processes, and the
warm-up steps every game and study names."""

from __future__ import annotations

import pytest

from analyses import STUDIES, load_study
from simkit import games
from simkit.bygame import warm


def test_every_study_names_known_steps_of_its_own_game():
    known = set(warm.every_step())
    for name in STUDIES:
        kernels = list(load_study(name).STUDY.kernels)
        assert kernels, f"{name} names no kernels to compile ahead"
        assert set(kernels) <= known, name
        assert {k.split(":")[0] for k in kernels} == {name.split("-")[0]}, name


def test_every_game_has_steps_with_compile_times():
    for g in games.specs():
        assert g.warm(), g.name
        for step, (seconds, fn) in g.warm().items():
            assert seconds > 0, (g.name, step)
            assert callable(fn), (g.name, step)


def test_groups_balance_by_compile_time_and_keep_every_step_once():
    names = warm.every_step()
    for processes in (1, 2, 3):
        split = warm.groups(names + names[:2], processes)
        assert len(split) == min(processes, len(names))
        flat = [n for g in split for n in g]
        assert sorted(flat) == sorted(names)
        load = [sum(warm._step(n)[0] for n in g) for g in split]
        longest = max(warm._step(n)[0] for n in names)
        # greedy longest-first: no group exceeds another by more than the longest step
        assert max(load) - min(load) <= longest


def test_unknown_step_is_refused():
    with pytest.raises(ValueError, match="unknown warm-up step 'pepper:nosuch'"):
        warm.groups(["pepper:nosuch"], 2)
    with pytest.raises(ValueError, match="'chess:hands'"):
        warm.groups(["chess:hands"], 2)


@pytest.mark.slow      # compiles a game's kernels
def test_warm_runs_steps_in_worker_processes(tmp_path):
    """Into an empty kernel cache: the workers compile the steps' kernels and
    keep them there (Shiesta's, the quickest to compile)."""
    import os

    warm.warm(["shiesta:games"], processes=1, env={**os.environ,
                                                   "SIMKIT_CACHE_DIR": str(tmp_path)})
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("shiesta-")]
    assert len(kept) == 1
    assert any(f.suffix == ".nbi" for f in kept[0].rglob("*"))
    assert not any(p.name.startswith(("pepper-", "pitch-", "burraco-"))
                   for p in tmp_path.iterdir())


def test_a_failing_worker_is_one_error_naming_its_steps(monkeypatch):
    # a worker that cannot import simkit fails; the error names its steps
    monkeypatch.setattr(warm.sys, "executable", "/bin/false")
    with pytest.raises(RuntimeError, match=r"compiling the kernels failed \(shiesta:games\)"):
        warm.warm(["shiesta:games"], processes=1)
