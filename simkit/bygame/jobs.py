"""A game's runs as resumable chunked jobs: its records, or its aggregates.

:mod:`simkit.runs.chunks` runs a :class:`~simkit.runs.chunks.Job` without knowing what
it computes; this module makes the jobs of ``simkit simulate``: it checks the
game, unit and kind against the game's spec (:mod:`simkit.games`), picks the
unit's chunk size, and hands :mod:`simkit.runs.chunks` the chunk function, which
plays chunk ``start .. start+count-1`` of the run on the game's kernel
(:func:`simkit.engine.simulate` or :func:`simkit.engine.aggregate`).
:mod:`simkit.tournament` checks its jobs here too and hands its own chunk
function.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from simkit import engine, games
from simkit.base.errors import InputError
from simkit.runs import chunks
from simkit.runs.batches import check_count

KINDS = ("records", "aggregate", "tournament")


def job(game: str, unit: str, count: int, spec: Mapping[str, Any], *,
        kind: str = "records", chunk: int | Callable[[engine.Unit], int] | None = None,
        compute: Callable[..., pd.DataFrame] | None = None,
        summary: tuple[str, ...] = ()) -> chunks.Job:
    """The checked :class:`~simkit.runs.chunks.Job` of ``count`` units of ``game``.

    ``spec`` is the run as JSON: ``{"rules": rule values, "policies": one
    text per seat, "seed": int}`` (a tournament adds its ``"tables"``).  Kind
    ``"records"`` and ``"aggregate"`` compute with :func:`records_chunk` and
    :func:`aggregate_chunk`; a tournament gives its own ``compute``.
    ``chunk`` (None: the unit's default; or a function of the unit giving
    it) is the number of units per chunk; ``summary`` the files the caller writes beside
    the finished parts (a tournament's tables and figure), which the manifest
    then records and ``verify`` checks.  Every problem is an :class:`InputError`.
    """
    g = games.get(game)
    if kind not in KINDS:
        raise InputError(f"bad kind {kind!r}: expected one of {', '.join(KINDS)}")
    u = g.unit(unit)
    if kind == "aggregate" and u.aggregate is None:
        if unit == "hand":
            raise InputError(f"--aggregate is not offered for {g.name}: its runs keep one "
                             f"record per {u.label}")
        raise InputError("--aggregate works with --hands only (aggregates of hands)")
    if compute is None:
        if kind == "tournament":
            raise ValueError("a tournament job needs its compute function")
        compute = aggregate_chunk if kind == "aggregate" else records_chunk
    check_count(count, f"number of {unit}s")
    if callable(chunk):
        chunk = chunk(u)
    elif chunk is None:
        chunk = u.agg_chunk if kind == "aggregate" else u.chunk
    job = chunks.Job.make(g.name, unit, count, spec, compute, chunk=chunk, kind=kind,
                          merge=u.agg_keys if kind == "aggregate" else (),
                          preload=(type(g).__module__,), summary=summary)
    # the chunk function reads the spec as the manifest holds it, on every backend
    return dataclasses.replace(job, compute=functools.partial(compute, g.name, unit, job.spec))


def _chunk_run(game: str, run: Mapping[str, Any], start: int,
               count: int) -> tuple[engine.Game, engine.RunSettings]:
    """The game and the settings of :func:`engine.simulate` for a chunk of ``run``,
    on this process's thread count (a Dask worker sets its own)."""
    import numba
    g = games.get(game)
    rules = g.make_rules(overrides=run["rules"])
    return g, engine.RunSettings(count=count, rules=rules, policy=list(run["policies"]),
                                 seed=int(run["seed"]), start=start,
                                 threads=numba.get_num_threads())


def records_chunk(game: str, unit: str, run: Mapping[str, Any], start: int,
                  count: int) -> pd.DataFrame:
    """Units ``start .. start+count-1`` of ``run``: one record per unit."""
    g, settings = _chunk_run(game, run, start, count)
    return engine.simulate(g, unit, settings)


def aggregate_chunk(game: str, unit: str, run: Mapping[str, Any], start: int,
                    count: int) -> pd.DataFrame:
    """Hands ``start .. start+count-1`` of ``run`` as counts and sums per group."""
    g, settings = _chunk_run(game, run, start, count)
    return engine.aggregate(g, settings)
