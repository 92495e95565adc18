"""What a study is made of, below the command line that renders it: its
result (:class:`StudyResult`: findings, tables, figures, notes, provenance),
the check of its size, seed and threads, and its provenance record.  The
studies (``analyses/``) build on this; :mod:`simkit.app.report` renders it."""

from __future__ import annotations

import datetime
import time
from dataclasses import dataclass, field
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

import simkit
from simkit.base.errors import InputError
from simkit.runs.batches import MAX_HELD, check_count, max_threads
from simkit.runs.store import library_versions


def check_args(hands: int | None, seed: int, threads: int | None = None) -> None:
    """A study's size, seed and thread count, or an InputError naming the bad one.

    ``hands`` is a whole number of at least 1, or None (each study's default);
    ``seed`` a whole number from 0 to 2**64-1; ``threads`` None (all) or 1 to
    the threads numba has on this machine.  Nothing is changed: the thread
    count is only checked here and applied by the game's engine.
    """
    if hands is not None:
        check_count(hands, "--hands", MAX_HELD)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise InputError(f"bad --seed {seed!r}: expected a whole number from 0 to 2**64-1")
    if threads is not None:
        top = max_threads()
        if (isinstance(threads, bool) or not isinstance(threads, (int, np.integer))
                or not 1 <= threads <= top):
            raise InputError(f"bad thread count {threads!r}: expected 1 to {top} on this "
                             f"machine (NUMBA_NUM_THREADS={top})")


@dataclass
class StudyResult:
    """What a study returns, ready to render.

    ``name`` is the slug of the report's directory (``"pepper-bids"``);
    ``summary`` a few short plain-language findings (shown first);
    ``tables`` maps a file name to a DataFrame (written to ``<name>.csv``);
    ``figures`` maps a file name to a matplotlib Figure (``<name>.png``);
    ``captions`` maps a figure name to the text shown under the figure;
    ``descriptions`` maps a table name to the text shown above the table
    (what a row is, what the columns mean); ``notes`` are method notes;
    ``provenance`` says how the numbers were made (see :func:`provenance`;
    :func:`simkit.app.report.render` fills in the code versions and creation
    time if missing).
    Tables and figures appear on the page in their dict order.
    """

    name: str
    title: str
    summary: list[str] = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    captions: dict[str, str] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)

    def close(self) -> None:
        """Close the figures (render does this; call it when not rendering)."""
        for fig in self.figures.values():
            if isinstance(fig, Figure):
                plt.close(fig)


def provenance(*, seed: int, hands: int | None = None, games: int | None = None,
               rules: Any = None, policies: Any = None, started: float | None = None,
               **extra: Any) -> dict[str, Any]:
    """The provenance record of a study.

    ``seed``, the sizes (``hands`` and/or ``games``: per simulated table, say
    so in ``extra`` when it matters), ``rules`` and ``policies`` as plain
    JSON-able values; ``started`` is a :func:`time.perf_counter` reading taken
    when the study began (the run time is measured up to this call).  Adds the
    simkit version, git commit, library versions and the UTC creation time;
    ``extra`` keywords are added as they are.
    """
    from simkit.runs.store import git_commit

    record: dict[str, Any] = {"seed": int(seed)}
    if hands is not None:
        record["hands"] = int(hands)
    if games is not None:
        record["games"] = int(games)
    record["rules"] = rules
    record["policies"] = policies
    record.update(extra)
    record["simkit_version"] = simkit.__version__
    record["git_commit"] = git_commit()
    record["versions"] = library_versions("numpy", "numba", "pandas", "scipy", "matplotlib")
    if started is not None:
        record["run_time_s"] = round(time.perf_counter() - started, 2)
    record["created_utc"] = (datetime.datetime.now(datetime.UTC)
                             .isoformat(timespec="seconds"))
    return record
