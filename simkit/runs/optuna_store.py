"""A search's Optuna study kept in a run folder (``tune --out``, ``search
--out``): the SQLite store checked before it is opened (a damaged one is one
line saying how to start over, one Optuna had not finished making is made
anew), the folder held by one process at a time, and a full disk one line.
``what`` names the command in every message ("tune", "search")."""

from __future__ import annotations

import contextlib
import errno
import pathlib
from collections.abc import Iterator, Sequence
from typing import Any

from simkit.base.errors import InputError, RunError
from simkit.runs import chunks, store

#: The tables Optuna's SQLite store is made of: a store holding some of them and
#: nothing else was cut off while Optuna made it.
_OPTUNA_TABLES = frozenset({
    "studies", "version_info", "study_directions", "study_user_attributes",
    "study_system_attributes", "trials", "trial_user_attributes", "trial_system_attributes",
    "trial_params", "trial_values", "trial_intermediate_values", "trial_heartbeats",
    "alembic_version", "sqlite_sequence"})


class Interrupted(chunks.Interrupted):
    """Ctrl-C during a tune or a search: ``done`` of ``total`` trials finished
    (kept in ``out``, if any)."""

    counts, again = "trials", "continue"


def damaged(where: store.StrPath, name: str, why: str, what: str) -> str:
    """The line refusing a damaged file ``name`` of the run in ``where``."""
    return (f"{what} store '{pathlib.Path(where) / name}' is damaged ({why}): to start over, "
            f"delete '{where}' or give another --out")


def full(e: BaseException) -> bool:
    """Whether ``e`` says the disk (or the database) is full."""
    return (getattr(e, "errno", None) == errno.ENOSPC
            or "disk is full" in str(e) or "No space left" in str(e))


def no_room(where: store.StrPath, what: str) -> RunError:
    """The error of a store that could not be written for want of space."""
    return RunError(f"cannot write the {what} store in '{where}': the disk is full; free "
                    "some space and run the same command again to continue from the trials "
                    "kept")


def check_db(path: pathlib.Path, what: str) -> None:
    """An InputError unless the study store ``path`` is absent, empty, a sound
    SQLite database with Optuna's tables, or one Optuna had not finished
    making when the run was stopped (its tables a part of Optuna's, no trial
    in it): that one is simkit's to remake, and is removed."""
    import sqlite3

    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        return
    trials = 0
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            check = con.execute("PRAGMA quick_check").fetchone()[0]
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master "
                                                "WHERE type = 'table'")}
            if "trials" in tables:
                trials = con.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error as e:
        check, tables = str(e), set()
    if check == "ok" and tables <= _OPTUNA_TABLES and not trials \
            and not {"studies", "trials", "study_directions"} <= tables:
        path.unlink()                   # Optuna was stopped making it: made anew
        return
    if check != "ok" or not {"studies", "trials"} <= tables:
        raise InputError(damaged(path.parent, path.name, check if check != "ok" else
                                 "not an Optuna study", what))


def load(path: pathlib.Path, name: str, directions: Sequence[Any],
         what: str) -> tuple[Any, list[Any]]:
    """The kept study ``name`` in the store ``path`` (made if absent, checked
    first) and its finished trials (complete or pruned), in their order."""
    import optuna

    check_db(path, what)
    try:
        kept = optuna.create_study(study_name=name, storage=f"sqlite:///{path}",
                                   directions=list(directions), load_if_exists=True)
        finished = kept.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,
                                                            optuna.trial.TrialState.PRUNED))
    except Exception as e:          # SQLAlchemy's and Optuna's errors alike
        if full(e):
            raise no_room(path.parent, what) from None
        raise InputError(damaged(path.parent, path.name, str(e).splitlines()[0][:120],
                                 what)) from None
    return kept, finished


def keep(kept: Any, frozen: Any, where: store.StrPath, what: str) -> None:
    """Copy the finished trial ``frozen`` into the kept study (a full disk is
    one line)."""
    try:
        kept.add_trial(frozen)
    except Exception as e:      # SQLAlchemy's errors: the disk, or a bug
        if full(e):
            raise no_room(where, what) from None
        raise


@contextlib.contextmanager
def lock(path: pathlib.Path, what: str) -> Iterator[None]:
    """Hold the run folder of the lock file ``path`` for this process: a second
    run on it is refused (the lock is the operating system's, so it ends with
    the process however it ends)."""
    import fcntl

    with open(path, "a") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(f"--out '{path.parent}' is in use by another simkit {what}: "
                             "wait for it to finish, or give another --out") from None
        yield
