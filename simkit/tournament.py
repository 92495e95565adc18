"""Policies against each other on duplicate deals:
``simkit tournament GAME --policy A --policy B ...``.

Every pair of entrants ``(a, b)`` meets at two tables: ``a`` at the even
seats and ``b`` at the odd ones (with 4 Pepper players or in Burraco: ``a``
as one partnership, ``b`` as the other), then the seats swapped.  Both
tables play the same deals (the same seed: unit ``i`` comes from stream
``(seed, i)`` whatever the policies), so each seat's cards are played once by
``a`` and once by ``b`` and the luck of the deal cancels, as in duplicate
bridge.  The dealer rotates with the unit's number, so every policy sits in
every position.

The measure is the unit's own (:class:`simkit.base.measures.Measure`): points per
hand (Pepper, Burraco), dollars per hand or per session (Pitch), wins per
game (whole games; Shiesta).  Per deal, ``d`` is the mean a seat of ``a``
got minus the mean a seat of ``b`` got, over both tables; the pair's
difference is the mean of ``d`` over the deals, with a t interval and a
two-sided t-test p-value (the deals are independent, the two tables of a
deal are paired through ``d``).

Ratings: each deal of a pair is a game between ``a`` and ``b`` (``d > 0``:
``a`` won, ``d < 0``: ``b`` won, ``d == 0``: a draw counted half to each),
and the Bradley-Terry model is fitted to those results by maximum
likelihood, with one extra draw per pair so that a policy that wins every
deal still has a finite rating.  Ratings are on the Elo scale (400 points:
10 to 1 odds per deal) and centred: their mean is 0.  Their 95% intervals
are +-1.96 standard errors from the inverse Fisher information (a
pseudo-inverse, for the centred ratings).

A tournament is a resumable chunked run (:mod:`simkit.runs.chunks`) of kind
``"tournament"``: a chunk (:func:`chunk`) plays its deals at every table, and its records
(one row per table and deal: ``table``, the unit's number, ``value_<slot>``)
are what ``--out`` keeps, with the tables of results beside them.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import pathlib
import time
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import numpy as np
import pandas as pd
import scipy.stats as st

from simkit import engine
from simkit import games as registry
from simkit.base import measures
from simkit.base.errors import InputError
from simkit.base.rows import rows_of
from simkit.bygame import jobs
from simkit.runs import chunks, store

ELO = 400.0 / math.log(10.0)        # Elo points per unit of log-odds
Z95 = 1.959963984540054
#: Files beside the deals in ``--out`` (``_`` keeps them out of ``read_parquet(OUT)``).
RATINGS_FILE, PAIRS_FILE, FIGURE_FILE = "_ratings.parquet", "_pairs.parquet", "_ratings.png"
SUMMARY_FILES = (RATINGS_FILE, PAIRS_FILE, FIGURE_FILE)
_PAIR_SUMS = ("deals", "sum", "sum_sq", "wins", "draws", "losses")


@dataclasses.dataclass(frozen=True)
class Entrants:
    """The policies of a tournament, as given and as parsed, and its tables.

    ``tables[t]`` gives, per seat, the entrant playing it; ``pairs[t]`` the
    pair ``(i, j)`` (``i < j``) table ``t`` belongs to.
    """

    given: tuple[str, ...]
    texts: tuple[str, ...]
    tables: tuple[tuple[int, ...], ...]
    pairs: tuple[tuple[int, int], ...]


def entrants(game: engine.Game, specs: Sequence[str], players: int) -> Entrants:
    """Parse the entrants' specs and lay out the tables (two per pair)."""
    if specs is None or len(specs) < 2:
        raise InputError("a tournament needs at least two policies: give --policy once "
                         "for each entrant")
    given = tuple(str(s).strip() for s in specs)
    texts = tuple(game.make_policies(s, 1)[0].text() for s in given)
    tables, pairs = [], []
    for i in range(len(given)):
        for j in range(i + 1, len(given)):
            for first, second in ((i, j), (j, i)):
                tables.append(tuple(first if s % 2 == 0 else second for s in range(players)))
                pairs.append((i, j))
    return Entrants(given, texts, tuple(tables), tuple(pairs))


def chunk(game: str, unit: str, run: Mapping[str, Any], start: int, count: int) -> pd.DataFrame:
    """Units ``start ..`` at every table of the run (counted from the run's
    ``first`` unit, if it has one): one row per (table, unit) with each slot's
    measure (see the module notes).  The chunk function of a tournament's job,
    on this process's thread count (a Dask worker sets its own)."""
    import numba
    g = registry.get(game)
    start += int(run.get("first", 0))
    rules = g.make_rules(overrides=run["rules"])
    measure = _measure(g, unit)
    policies = run["policies"]
    frames = []
    for t, table in enumerate(run["tables"]):
        settings = engine.RunSettings(count, rules=rules, seed=int(run["seed"]),
                                      policy=[policies[e] for e in table], start=start,
                                      threads=numba.get_num_threads())
        df = engine.simulate(g, unit, settings, columns=measure.reads)
        values = measure.values(df, rules, start, count, len(table))
        cols = {"table": np.full(count, t, np.int16),
                unit: np.arange(start, start + count, dtype=np.int64)}
        cols.update({f"value_{s}": values[:, s] for s in range(len(table))})
        frames.append(pd.DataFrame(cols))
    return pd.concat(frames, ignore_index=True)


def deal_differences(tables: Sequence[Sequence[int]], pairs: Sequence[tuple[int, int]],
                     unit: str, df: pd.DataFrame) -> dict[tuple[int, int], np.ndarray]:
    """Per pair ``(a, b)``, ``d`` of every deal of one chunk's records, in the
    order of the units' numbers (see the module notes)."""
    slots = len(tables[0])
    out = {}
    for pair in sorted(set(pairs)):
        a = pair[0]
        diff, seats = None, 0
        for t in [t for t, p in enumerate(pairs) if p == pair]:
            part = df[df["table"] == t].sort_values(unit)
            v = part[[f"value_{s}" for s in range(slots)]].to_numpy()
            sign = np.array([1.0 if e == a else -1.0 for e in tables[t]])
            term = v @ sign
            diff = term if diff is None else diff + term
            seats += int((np.array(tables[t]) == a).sum())
        assert diff is not None, f"pair {pair} has no table"
        out[pair] = np.round(diff / seats, 9)       # sums in another order: no float noise
    return out


def pair_sums(tables: Sequence[Sequence[int]], pairs: Sequence[tuple[int, int]], unit: str,
              df: pd.DataFrame) -> pd.DataFrame:
    """Per pair, what adds up across chunks: deals, the sum of ``d`` and of its
    squares, and ``a``'s wins, draws and losses (one chunk's records)."""
    rows = []
    for (a, b), d in deal_differences(tables, pairs, unit, df).items():
        rows.append({"a": a, "b": b, "deals": len(d), "sum": float(d.sum()),
                     "sum_sq": float((d * d).sum()), "wins": int((d > 0).sum()),
                     "draws": int((d == 0).sum()), "losses": int((d < 0).sum())})
    return pd.DataFrame(rows)


def bradley_terry(k: int, results: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Centred Bradley-Terry log-strengths and their standard errors from the
    pairs' wins, draws and losses (a draw is half a win each; one extra draw
    per pair)."""
    won = np.zeros((k, k))
    for r in rows_of(results):
        won[r.a, r.b] += r.wins + 0.5 * (r.draws + 1)
        won[r.b, r.a] += r.losses + 0.5 * (r.draws + 1)
    games_ = won + won.T
    total = won.sum(axis=1)
    p = np.ones(k)
    for _ in range(10_000):             # Hunter's MM iteration: monotone, converges
        denom = (games_ / (p[:, None] + p[None, :])).sum(axis=1)
        new = total / denom
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < 1e-13:
            p = new
            break
        p = new
    theta = np.log(p)
    q = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))   # P(i beats j)
    info = -games_ * q * q.T
    info[np.diag_indices(k)] = -info.sum(axis=1)
    cov = np.linalg.pinv(info)
    return theta - theta.mean(), np.sqrt(np.clip(np.diag(cov), 0.0, None))


@dataclasses.dataclass
class Result:
    """A tournament's tables: ``ratings`` (one row per entrant) and ``pairs``
    (one row per pair, the difference being ``a`` minus ``b``), with what was played."""

    game: str
    players: int
    unit: str
    measure: str
    units: str
    deals: int
    seed: int
    rules: Any
    entrants: Entrants
    ratings: pd.DataFrame
    pairs: pd.DataFrame
    seconds: float = 0.0
    complete_before: bool = False
    repaired: dict[int, str] = dataclasses.field(default_factory=dict)


def results(ent: Entrants, sums: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(ratings, pairs)`` from the pairs' sums added over the chunks."""
    sums = sums.groupby(["a", "b"], as_index=False)[list(_PAIR_SUMS)].sum()
    rows = []
    for r in rows_of(sums):
        n, mean = r.deals, r.sum / r.deals
        var = max(r.sum_sq - r.sum * mean, 0.0) / (n - 1) if n > 1 else math.nan
        if var < 1e-12 * max(r.sum_sq, 1.0):
            var = 0.0
        se = math.sqrt(var / n) if n > 1 else math.nan
        if se == 0.0:
            lo = hi = float(mean)
            p = 1.0 if mean == 0 else 0.0
        else:
            half = float(st.t.ppf(0.975, n - 1)) * se
            lo, hi = mean - half, mean + half
            p = float(2 * st.t.sf(abs(mean) / se, n - 1))
        rows.append({"a": ent.given[r.a], "b": ent.given[r.b], "diff": mean, "ci_low": lo,
                     "ci_high": hi, "p_value": p, "deals": int(n), "a_better": int(r.wins),
                     "level": int(r.draws), "b_better": int(r.losses)})
    theta, theta_se = bradley_terry(len(ent.given), sums)
    ratings = pd.DataFrame({"policy": list(ent.given), "rating": theta * ELO,
                            "ci_low": (theta - Z95 * theta_se) * ELO,
                            "ci_high": (theta + Z95 * theta_se) * ELO})
    ratings = ratings.sort_values("rating", ascending=False, kind="stable")
    return ratings.reset_index(drop=True), pd.DataFrame(rows)


def _measure(game: engine.Game, unit: str) -> measures.Measure:
    """What a tournament of ``game``'s ``unit``s compares policies by."""
    measure = game.unit(unit).measure
    if measure is None:
        raise InputError(f"{game.name} {unit}s have no measure a tournament compares by")
    return measure


def _unit_and_count(game: engine.Game, hands: int | None,
                    games_: int | None) -> tuple[str, int]:
    if hands is not None and games_ is not None:
        raise InputError("give --hands or --games, not both")
    if hands is not None:
        game.unit("hand")
        return "hand", hands
    if games_ is not None or "hand" not in game.units:
        game.unit("game")
        return "game", games_ or 20_000
    return "hand", 100_000


class TournamentArgs(chunks.ChunkArgs, total=False):
    """The keyword options of :func:`run` besides the deals: the table
    (``players``, ``rules``), the deals' ``seed`` and ``first`` deal (0: the
    deals are units ``first .. first+count-1`` of the seed), and the chunked
    run (``out``, ``chunk_size`` and :class:`~simkit.runs.chunks.ChunkArgs`)."""

    players: int | None
    rules: Any
    seed: int
    first: int
    out: store.StrPath | None
    chunk_size: int | None


def run(game: str, policies: Sequence[str], *, hands: int | None = None,
        games: int | None = None, **options: Unpack[TournamentArgs]) -> Result:
    """Play a tournament (see the module notes) and return its :class:`Result`.

    ``hands`` (or ``games``) are the deals every table plays (default 100,000
    hands, or 20,000 games for games played in whole games).  ``options``
    (:class:`TournamentArgs`): ``players``; ``rules``, a rules object, preset
    name or dict of rule values; ``seed`` (0) and ``first`` (0), the deals'
    seed and first unit; ``threads``, ``backend``
    ("threads" or "dask"), ``workers``, ``scheduler``, ``chunk_size`` and
    ``progress``, how the run is carried out; with ``out`` the run is kept
    (and resumed) there, with the result tables and the figure.
    """
    unknown = sorted(set(options) - TournamentArgs.__optional_keys__)
    if unknown:
        raise TypeError(f"run() got an unexpected keyword argument {unknown[0]!r}")
    players, rules, seed = options.get("players"), options.get("rules"), options.get("seed", 0)
    out, chunk_size = options.get("out"), options.get("chunk_size")
    t0 = time.perf_counter()
    g = registry.get(game)
    r = g.resolve_rules(rules, players)
    unit, count = _unit_and_count(g, hands, games)
    ent = entrants(g, policies, r.players)
    spec = {"rules": r.as_dict(), "policies": list(ent.texts),
            "tables": [list(t) for t in ent.tables], "seed": seed}
    first = options.get("first", 0)
    if first:
        spec["first"] = int(first)      # absent at 0: earlier run directories stay valid
    job = jobs.job(g.name, unit, count, spec, kind="tournament",
                   chunk=chunk_size if chunk_size is not None else
                   lambda u: max(1_000, u.chunk // len(ent.tables)),
                   compute=chunk, summary=SUMMARY_FILES)
    reduce = functools.partial(pair_sums, ent.tables, ent.pairs, unit)
    result = chunks.run(job, out, backend=options.get("backend", "threads"),
                        threads=options.get("threads"), workers=options.get("workers"),
                        scheduler=options.get("scheduler"),
                        progress=options.get("progress", False), reduce=reduce)
    assert result.values is not None            # the reduced chunks, with reduce
    ratings, pairs = results(ent, pd.concat(result.values, ignore_index=True))
    measure = _measure(g, unit)
    res = Result(game=g.name, players=r.players, unit=unit, measure=measure.name,
                 units=measure.units, deals=count, seed=seed, rules=r, entrants=ent,
                 ratings=ratings, pairs=pairs, seconds=time.perf_counter() - t0,
                 complete_before=result.complete_before, repaired=result.repaired)
    if out is not None and (not result.complete_before
                            or store.summary_problems(out, result.manifest or {})):
        write(res, pathlib.Path(out))
    return res


def write(res: Result, out: pathlib.Path) -> None:
    """The result tables and the figure into the run directory ``out``, recorded
    in its manifest (so that ``verify`` checks them).  A finished run whose
    files are whole is not written again: it may be read-only."""
    store.write_parquet_atomic(out / RATINGS_FILE, res.ratings)
    store.write_parquet_atomic(out / PAIRS_FILE, res.pairs)
    from simkit.base.plots import use_file_backend
    use_file_backend()
    fig = figure(res.ratings, res.pairs, f"{res.game.capitalize()}, {res.players} players",
                 res.units, res.deals)
    tmp = store.temporary_path(out / FIGURE_FILE)
    try:
        fig.savefig(tmp, format="png", dpi=110)
        tmp.replace(out / FIGURE_FILE)
    finally:
        tmp.unlink(missing_ok=True)
        import matplotlib.pyplot as plt
        plt.close(fig)
    store.record_files(out, SUMMARY_FILES)


def figure(ratings: pd.DataFrame, pairs: pd.DataFrame, title: str, units: str,
           deals: int) -> Any:
    """Ratings with their intervals (left) and the pairwise differences (right)."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.45 * max(len(ratings), len(pairs))
                                                     + 2.2),
                                      gridspec_kw={"width_ratios": [1, 1.3]})
    for ax, df, y_text, color in (
            (left, ratings, ratings["policy"], "C0"),
            (right, pairs, [f"{a}  vs  {b}" for a, b in zip(pairs["a"], pairs["b"])], "C1")):
        x = df["rating" if ax is left else "diff"].to_numpy(float)
        y = np.arange(len(df))[::-1]
        ax.errorbar(x, y, xerr=[x - df["ci_low"], df["ci_high"] - x], fmt="o", color=color,
                    capsize=3)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_yticks(y, y_text, fontsize=9 if ax is left else 8)
        ax.grid(alpha=0.3)
    left.set_xlabel("rating (Elo scale, mean 0), 95% interval")
    left.set_title(f"{title}: ratings")
    right.set_xlabel(f"{units}: first minus second, 95% interval")
    right.set_title(f"pairs, {deals:,} duplicate deals each")
    fig.tight_layout()
    return fig


def result_json(res: Result) -> dict[str, Any]:
    """The JSON of ``simkit tournament --json`` (specs exactly as given)."""
    return {"game": res.game, "players": res.players, "measure": res.measure,
            "units": res.units,
            "ratings": [{"policy": r.policy, "rating": float(r.rating),
                         "ci_low": float(r.ci_low), "ci_high": float(r.ci_high)}
                        for r in rows_of(res.ratings)],
            "pairs": [{"a": r.a, "b": r.b, "diff": float(r.diff), "ci_low": float(r.ci_low),
                       "ci_high": float(r.ci_high), "p_value": float(r.p_value)}
                      for r in rows_of(res.pairs)]}


def format_result(res: Result) -> str:
    """The tables ``simkit tournament`` prints."""
    label = "games" if res.unit == "game" else "hands"
    lines = [f"{res.game.capitalize()} tournament, {res.players} players, "
             f"{res.deals:,} duplicate deals per table, {len(res.entrants.tables)} tables "
             f"({res.deals * len(res.entrants.tables):,} {label}), seed {res.seed}",
             f"measure: {res.units}", "", "Ratings (Elo scale, mean 0; from who did better "
             "on each duplicate deal):"]
    w = max(len(p) for p in res.ratings["policy"])
    for r in rows_of(res.ratings):
        lines.append(f"  {r.policy:<{w}}  {r.rating:+8.1f}  [{r.ci_low:+8.1f}, {r.ci_high:+8.1f}]")
    lines += ["", f"Pairs ({res.units}, first minus second; better/level/worse deals):"]
    for r in rows_of(res.pairs):
        lines.append(f"  {r.a} vs {r.b}: {r.diff:+.4f} [{r.ci_low:+.4f}, {r.ci_high:+.4f}], "
                     f"p = {r.p_value:.3g}; {r.a_better:,}/{r.level:,}/{r.b_better:,}")
    lines += ["", "Policies: " + "; ".join(f"{g} = {t}" for g, t in
                                          zip(res.entrants.given, res.entrants.texts))]
    return "\n".join(lines)
