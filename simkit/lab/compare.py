"""Rule variants side by side, for any game: ``simkit compare GAME --variant A:
--variant B:key=value [--variant C:...]``, or ``--sweep KEY=V1,V2,...``.

Two to :data:`MAX_VARIANTS` variants play the same deals (the same seed, so
hand or game ``i`` is dealt from the same stream, by the same dealer, under
each).  The first variant is the *base*; each later one is compared with it.
What is compared is each game's own: its spec's ``measures(rules)`` returns
:class:`~simkit.base.measures.Section`\\ s of :class:`~simkit.base.measures.Rate`,
:class:`~simkit.base.measures.Mean` and :class:`~simkit.base.measures.Statistic` measures
(for games with bids one :class:`~simkit.base.measures.BidShares` table of each
contract's share and success rate), the designer's measures among them
(:mod:`simkit.design`); to those the skill trace of the game's ladder is
added (:mod:`simkit.lab.skill`).

**Paired.** Every difference is taken deal by deal: per unit (hand, or
whole game with the same seed) each measure adds ``(x, n)`` to its ratio
under each variant, and :func:`simkit.base.stats.paired_difference` gives the
difference of the two ratios with a paired interval and p-value;
statistics that are not ratios (a median, a largest departure) by a paired
bootstrap.  The share of deals whose records differ at all (every column
but the seats' policies) is reported per later variant; where it is 0 the
rule never changed a deal at this table, and every interval is exactly
``[0, 0]``.  Holm's correction runs over all the tests of one later variant
against the base (``p_holm``), and the verdicts use it.

**Adapted players** (``adapt=True``): before it is compared, each variant's
players are re-fitted to its rules (:mod:`simkit.lab.adapt`); every output names,
per variant, the policies that played.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from simkit import engine
from simkit import games as registry
from simkit.base import rng, stats
from simkit.base.errors import InputError
from simkit.base.measures import RATE_MARGIN, Balance, BidShares, Mean, Rate, Section, Statistic
from simkit.engine import Game
from simkit.lab import findings, skill
from simkit.lab.compare_text import ALPHA as ALPHA
from simkit.lab.compare_text import comparison_json as comparison_json
from simkit.lab.compare_text import format_comparison as format_comparison
from simkit.lab.compare_text import identical_sentence as identical_sentence
from simkit.lab.compare_text import write_tables as write_tables
from simkit.lab.variants import MAX_VARIANTS as MAX_VARIANTS
from simkit.lab.variants import Variant, changes, sweep_keys, sweep_table
from simkit.lab.variants import check_variants as check_variants
from simkit.lab.variants import parse_sweep as parse_sweep
from simkit.lab.variants import parse_variant as parse_variant
from simkit.runs.batches import Work, check_count, set_threads, steps

if TYPE_CHECKING:
    from simkit.lab.adapt import AdaptSettings, Fits
    from simkit.runs.store import StrPath

#: Units per block whose sums are added (the same blocks however the run is cut
#: into steps, so the web app's sums equal the command's to the last bit).
BLOCK = {"hand": 1 << 16, "game": 1 << 12}
#: The skill trace's deals per rung: this fraction of the whole games compared.
SKILL_SHARE = 10


# --- what is measured ------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _Ratio:
    """One ratio estimate: per row ``x(df)`` adds to the numerator and ``n(df)``
    to the denominator (a rate: hits among counted rows; a mean: values)."""

    x: Callable[[pd.DataFrame], np.ndarray]
    n: Callable[[pd.DataFrame], np.ndarray]


def _ratio(m: Rate | Mean) -> _Ratio:
    def counted(df: pd.DataFrame) -> np.ndarray:
        return np.ones(len(df)) if m.of is None else np.asarray(m.of(df), np.float64)
    def value(df: pd.DataFrame) -> np.ndarray:
        # rows not counted add nothing (their value may be NaN)
        c = counted(df)
        x = np.asarray(m.hit(df) if isinstance(m, Rate) else m.value(df), np.float64)
        out: np.ndarray = np.where(c > 0, x, 0.0) * c
        return out
    return _Ratio(value, counted)


def _bid_ratios(m: BidShares) -> list[_Ratio]:
    """Per level: its share of the hands, then its success rate."""
    out = []
    for level in range(m.levels):
        def share(df: pd.DataFrame, level: int = level) -> np.ndarray:
            return np.asarray(df["contract"].to_numpy() == level, np.float64)

        def made(df: pd.DataFrame, level: int = level) -> np.ndarray:
            return np.asarray((df["contract"].to_numpy() == level) & df["made"].to_numpy(bool),
                              np.float64)
        out += [_Ratio(share, lambda df: np.ones(len(df))), _Ratio(made, share)]
    return out


def _ratios(section: Section) -> list[_Ratio]:
    out: list[_Ratio] = []
    for m in section.measures:
        if isinstance(m, BidShares):
            out += _bid_ratios(m)
        elif not isinstance(m, (Statistic, Balance)):
            out.append(_ratio(m))
    return out


def _statistics(section: Section) -> list[Statistic | Balance]:
    """The measures whose units' values are kept whole (not sums)."""
    return [m for m in section.measures if isinstance(m, (Statistic, Balance))]


# --- running -------------------------------------------------------------------------

def _per_unit(values: np.ndarray, index: np.ndarray, first: int, count: int) -> np.ndarray:
    """Rows' values summed per unit ``first .. first+count-1`` (a unit may have
    several rows: a Pitch session's players)."""
    if len(index) == count and (len(index) == 0 or (index[0] == first
                                                    and index[-1] == first + count - 1)):
        return np.asarray(values, np.float64)
    return np.bincount(index - first, weights=values, minlength=count)


def _unit_hashes(df: pd.DataFrame, first: int, count: int) -> np.ndarray:
    """One number per unit that changes when any of its records' columns does
    (but the seats' policies, which name who played, not what happened)."""
    cols = [c for c in df.columns if not str(c).startswith("policy")]
    h: np.ndarray = pd.util.hash_pandas_object(df[cols], index=False).to_numpy(np.uint64)
    index = df[cols[0]].to_numpy(np.int64) - first
    if len(index) == count and np.array_equal(index, np.arange(count)):
        return h
    rank = np.arange(len(h), dtype=np.uint64) - np.searchsorted(index, index).astype(np.uint64)
    out = np.zeros(count, np.uint64)
    with np.errstate(over="ignore"):
        np.add.at(out, index, h * (rank + np.uint64(1)) + np.uint64(0x9E3779B97F4A7C15))
    return out


class _Sums:
    """The paired sums of one kind of unit, for every later variant against the
    base: per ratio the 4-vector and 4x4 cross-products of ``(x_a, n_a, x_b,
    n_b)`` over the units, the units whose ``(x, n)`` differ, the units whose
    records differ, and each statistic's per-unit values."""

    def __init__(self, ratios: int, stats_: int, variants: int, block: int) -> None:
        self.k, self.v, self.block = ratios, variants, block
        self.S = np.zeros((variants, ratios, 4))
        self.M = np.zeros((variants, ratios, 4, 4))
        self.differ = np.zeros((variants, ratios), np.int64)
        self.records_differ = np.zeros(variants, np.int64)
        self.units = 0
        self.held: list[np.ndarray] = []         # (variants, ratios, 2, units) per step
        self.values: list[list[list[np.ndarray]]] = [[[] for _ in range(stats_)]
                                                     for _ in range(variants)]

    def stat_values(self, v: int, k: int) -> np.ndarray:
        """Statistic ``k``'s per-unit values under variant ``v``, the whole run."""
        held = self.values[v][k]
        if len(held) > 1:
            held[:] = [np.concatenate(held)]
        return held[0]

    @functools.cache     # noqa: B019 (one _Sums per comparison: freed with it)
    def stat_interval(self, v: int, k: int, stat: Callable[..., Any],
                      seed: int) -> tuple[float, float, float]:
        """Statistic ``k`` under variant ``v`` with its bootstrap 95% interval."""
        x = self.stat_values(v, k)
        return (float(stat(x, axis=0)), *stats.bootstrap_interval(x, stat, seed=seed))

    def add(self, xn: np.ndarray) -> None:
        self.held.append(xn)
        while sum(h.shape[-1] for h in self.held) >= self.block:
            self._flush(self.block)

    def finish(self) -> None:
        rest = sum(h.shape[-1] for h in self.held)
        if rest:
            self._flush(rest)

    def _flush(self, n: int) -> None:
        both = np.concatenate(self.held, axis=-1)
        block, rest = both[..., :n], both[..., n:]
        self.held = [rest] if rest.shape[-1] else []
        base = block[0]                           # (ratios, 2, n)
        for v in range(1, self.v):
            vec = np.stack([base[:, 0], base[:, 1], block[v, :, 0], block[v, :, 1]], axis=1)
            self.S[v] += vec.sum(axis=-1)
            # every cross-product at once (numpy's own loops, not BLAS: the same sums
            # in the same order on any machine and thread count)
            self.M[v] += np.einsum("kin,kjn->kij", vec, vec)
            self.differ[v] += np.count_nonzero((vec[:, 0] != vec[:, 2])
                                               | (vec[:, 1] != vec[:, 3]), axis=-1)
        self.units += n


def _ranges(count: int, block: int, work: Work | None) -> Iterator[tuple[int, int]]:
    """``(first, n)`` of the run's steps: blocks, or the work's timed steps."""
    if work is not None:
        yield from steps(count, work)
        return
    for first in range(0, count, block):
        yield first, min(block, count - first)


def _play(g: Game, unit: str, sections: list[Section], variants: list[Variant],
          run: engine.RunSettings, work: Work | None) -> _Sums:
    """Every variant on units ``0 .. run.count-1`` of ``unit`` (the deals of
    ``run.seed``), summed in pairs."""
    ratios = [(s, r) for s in sections for r in _ratios(s)]
    statistics = [(s, m) for s in sections for m in _statistics(s)]
    sums = _Sums(len(ratios), len(statistics), len(variants), BLOCK[unit])
    from tqdm import tqdm
    with tqdm(total=run.count, unit=g.unit(unit).label, disable=not run.progress, delay=1.0,
              desc=f"{unit}s, {len(variants)} variants") as bar:
        for first, n in _ranges(run.count, BLOCK[unit], work):
            frames = [engine.simulate(g, unit, dataclasses.replace(
                          run, count=n, rules=v.rules, policy=list(v.texts()), start=first,
                          progress=False))
                      for v in variants]
            hashes = [_unit_hashes(df, first, n) for df in frames]
            for v in range(1, len(variants)):
                sums.records_differ[v] += int(np.count_nonzero(hashes[0] != hashes[v]))
            xn = np.empty((len(variants), len(ratios), 2, n))
            views: dict[tuple[int, str], pd.DataFrame] = {}
            for vi, df in enumerate(frames):
                for s in sections:
                    views[vi, s.name] = s.view(df) if s.view is not None else df
                for k, (s, r) in enumerate(ratios):
                    view = views[vi, s.name]
                    index = view.iloc[:, 0].to_numpy(np.int64)
                    xn[vi, k, 0] = _per_unit(r.x(view), index, first, n)
                    xn[vi, k, 1] = _per_unit(r.n(view), index, first, n)
                for k, (s, m) in enumerate(statistics):
                    sums.values[vi][k].append(np.asarray(m.values(views[vi, s.name]), float))
            sums.add(xn)
            bar.update(n)
    sums.finish()
    return sums


# --- rows ------------------------------------------------------------------------------

def _paired(sums: _Sums, v: int, k: int) -> dict[str, Any]:
    return stats.paired_difference(sums.S[v, k], sums.M[v, k], sums.units, sums.differ[v, k])


def _own(S: np.ndarray, M: np.ndarray, units: int, side: int) -> tuple[float, float, float]:
    """One variant's own ratio and its 95% interval from the paired sums
    (``side`` 0: the base, 1: the other)."""
    i = 2 * side
    return stats.ratio_ci(sx=S[i], sn=S[i + 1], sxx=M[i, i], sxn=M[i, i + 1],
                          snn=M[i + 1, i + 1], units=units)


def _metric_row(m: Rate | Mean, sums: _Sums, v: int, k: int) -> dict[str, Any]:
    c = _paired(sums, v, k)
    (a, a_lo, a_hi), (b, b_lo, b_hi) = (_own(sums.S[v, k], sums.M[v, k], sums.units, s)
                                         for s in (0, 1))
    if isinstance(m, Rate):
        # a rate of 0% or 100% has no spread to show: its exact interval from the count
        (a_lo, a_hi), (b_lo, b_hi) = (_edge(r, lo, hi, sums.S[v, k, 2 * s + 1])
                                      for s, (r, lo, hi) in enumerate(((a, a_lo, a_hi),
                                                                       (b, b_lo, b_hi))))
    return {"metric": m.metric, "kind": "rate" if isinstance(m, Rate) else "mean",
            "a": a, "b": b, "n_a": int(sums.S[v, k, 1]), "n_b": int(sums.S[v, k, 3]),
            "diff": c["diff"], "ci_low": c["lo"], "ci_high": c["hi"], "p_value": c["p_value"],
            "a_low": a_lo, "a_high": a_hi, "b_low": b_lo, "b_high": b_hi,
            "margin": m.margin, "units": sums.units}


def _edge(rate: float, lo: float, hi: float, n: float) -> tuple[float, float]:
    """A rate's interval: the delta method's, or at 0% and 100% (where it has no
    spread) the exact Clopper-Pearson interval of the ``n`` rows counted."""
    if not (rate in (0.0, 1.0) and n >= 1):
        return lo, hi
    low, high = stats.proportion_ci(rate * n, n)
    return float(low), float(high)


def _bid_rows(m: BidShares, sums: _Sums, v: int, k0: int) -> list[dict[str, Any]]:
    rows = []
    for level in range(m.levels):
        k = k0 + 2 * level
        ca, cb = sums.S[v, k, 0], sums.S[v, k, 2]
        if ca == 0 and cb == 0:
            continue
        share, made = _paired(sums, v, k), _paired(sums, v, k + 1)
        row = {"bid": m.text(level) if level else "(thrown in)", "level": level,
               "hands_a": int(ca), "rate_a": share["a"], "hands_b": int(cb),
               "rate_b": share["b"], "diff": share["diff"], "ci_low": share["lo"],
               "ci_high": share["hi"], "p_value": share["p_value"], "margin": m.margin,
               "units": sums.units}
        keys = ("made_a", "made_b", "made_diff", "made_ci_low", "made_ci_high", "made_p_value")
        row.update(dict.fromkeys(keys, math.nan))
        if level:
            row.update(made_a=made["a"], made_b=made["b"], made_diff=made["diff"],
                       made_ci_low=made["lo"], made_ci_high=made["hi"],
                       made_p_value=made["p_value"], made_margin=m.margin)
        rows.append(row)
    return rows


def _balance_row(m: Balance, sums: _Sums, v: int, k: int, seed: int) -> dict[str, Any]:
    """The equal-shares test under the base and under variant ``v``, each on its
    own (``p_a``, ``p_b``), and their effect sizes with the paired difference
    (see :class:`simkit.base.measures.Balance`)."""
    va, vb = sums.stat_values(0, k), sums.stat_values(v, k)
    a, b = (stats.equal_shares(x, seed=seed) for x in (va, vb))
    c = stats.paired_equal_shares(va, vb, seed=seed)
    return {"metric": m.metric, "kind": "rate", "a": c["a"], "b": c["b"],
            "n_a": round(a["decided"]), "n_b": round(b["decided"]), "diff": c["diff"],
            "ci_low": c["lo"], "ci_high": c["hi"], "p_value": c["p_value"], "a_low": c["a_lo"],
            "a_high": c["a_hi"], "b_low": c["b_lo"], "b_high": c["b_hi"],
            "margin": RATE_MARGIN, "units": len(va), "p_a": a["p_value"],
            "p_b": b["p_value"], "g_a": a["g"], "g_b": b["g"]}


def _statistic_row(m: Statistic, sums: _Sums, v: int, k: int, seed: int) -> dict[str, Any]:
    a, b = sums.stat_values(0, k), sums.stat_values(v, k)
    c = stats.paired_bootstrap(a, b, m.stat, seed=seed)
    (va, a_lo, a_hi), (vb, b_lo, b_hi) = (sums.stat_interval(i, k, m.stat, seed)
                                          for i in (0, v))
    return {"metric": m.metric, "kind": "rate" if m.percent else "mean", "a": va, "b": vb,
            "n_a": len(a), "n_b": len(b), "diff": c["diff"], "ci_low": c["lo"],
            "ci_high": c["hi"], "p_value": c["p_value"], "a_low": a_lo, "a_high": a_hi,
            "b_low": b_lo, "b_high": b_hi, "margin": m.margin, "units": len(a)}


def _section_rows(section: Section, sums: _Sums, v: int, offsets: dict[str, int],
                  seed: int) -> list[dict[str, Any]]:
    """The rows of one section for later variant ``v`` (or a bid table)."""
    k, j = offsets["ratio"], offsets["stat"]
    rows = []
    for m in section.measures:
        if isinstance(m, BidShares):
            return _bid_rows(m, sums, v, k)
        if isinstance(m, (Statistic, Balance)):
            rows.append(_balance_row(m, sums, v, j, seed) if isinstance(m, Balance)
                        else _statistic_row(m, sums, v, j, seed))
            j += 1
        else:
            # a measure that counted no row under either (players who joined, where
            # nobody may join) is left out
            if sums.S[v, k, 1] or sums.S[v, k, 3]:
                rows.append(_metric_row(m, sums, v, k))
            k += 1
    return rows


def _skill_rows(g: Game, variants: list[Variant], run: engine.RunSettings,
                work: Work | None,
                memo: dict[tuple[str, ...], np.ndarray]) -> list[list[dict[str, Any]]]:
    """Per later variant, the skill trace's rows (see :mod:`simkit.lab.skill`) on
    ``run.count`` deals of ``run.seed``; ``memo`` keeps each rung's scores for the
    comparison's other plays (a rung of the same players and rules scores alike)."""
    played = [_one_policy(g, v) for v in variants]
    scored = []
    for v, default in zip(variants, played):
        per = {}
        for weaker, stronger in skill.rungs(g, default):
            n = skill.deals(g, stronger, run.count)
            key = (json.dumps(v.rules.as_dict(), sort_keys=True, default=str), weaker,
                   stronger, str(n))
            if key not in memo:
                memo[key] = skill.scores(g, v.rules, weaker, stronger, count=n, seed=run.seed,
                                         threads=run.threads, work=work)
            elif work is not None:
                work.add(n)
            per[skill.names(weaker, stronger, default)] = memo[key]
        scored.append(per)
    out: list[list[dict[str, Any]]] = [[] for _ in variants]
    for vi in range(1, len(variants)):
        for name, b in scored[vi].items():
            a = scored[0].get(name)
            if a is None or len(a) != len(b):
                continue
            S = np.array([a.sum(), len(a), b.sum(), len(b)], float)
            vec = np.stack([a, np.ones_like(a), b, np.ones_like(b)])
            M = vec @ vec.T
            c = stats.paired_difference(S, M, len(a), int(np.count_nonzero(a != b)))
            (ma, la, ha), (mb, lb, hb) = skill.interval(a), skill.interval(b)
            out[vi].append({"metric": f"skill: {name}, win rate on duplicate deals",
                            "kind": "rate", "a": ma, "b": mb, "n_a": len(a), "n_b": len(b),
                            "diff": c["diff"], "ci_low": c["lo"], "ci_high": c["hi"],
                            "p_value": c["p_value"], "a_low": la, "a_high": ha, "b_low": lb,
                            "b_high": hb, "margin": RATE_MARGIN, "units": len(a)})
            out[vi].append(_lead_row(name, a, b, ahead=(la > 0.5, lb > 0.5), seed=run.seed))
    return out


def _lead_row(name: str, a: np.ndarray, b: np.ndarray, ahead: tuple[bool, bool],
              seed: int) -> dict[str, Any]:
    """The games the stronger needs to be ahead, under each variant, and their
    difference: "never" (NaN; JSON null) where the stronger's win rate is not
    shown above 50% (``ahead``: its interval lies above it), and then no
    difference either."""
    ga, gb = (float(skill.games_to_lead(x)) if up else math.nan for x, up in zip((a, b), ahead))
    if np.array_equal(a, b):                # the same on every deal
        t = {"diff": 0.0, "lo": 0.0, "hi": 0.0, "p_value": 1.0}
    elif all(ahead):
        t = stats.paired_bootstrap(a, b, skill.games_to_lead, seed=seed)
    else:
        t = dict.fromkeys(("diff", "lo", "hi", "p_value"), math.nan)
    return {"metric": f"skill: {name}, games for the stronger to be ahead (95%)",
            "kind": "mean", "a": ga if math.isfinite(ga) else math.nan,
            "b": gb if math.isfinite(gb) else math.nan, "n_a": len(a), "n_b": len(b),
            "diff": t["diff"], "ci_low": t["lo"], "ci_high": t["hi"], "p_value": t["p_value"],
            "margin": None, "units": len(a), "never": [not up for up in ahead]}


def _one_policy(g: Game, v: Variant) -> str:
    """The policy every seat of ``v`` plays (the game's default at a mixed table)."""
    texts = set(v.texts())
    return v.texts()[0] if len(texts) == 1 else g.make_policies(None, 1)[0].text()


# --- the comparison -------------------------------------------------------------------

#: Hands and whole games per variant when none are given.
DEFAULT_HANDS, DEFAULT_GAMES = 1_000_000, 20_000
#: What a hand weighs against a whole game in a progress bar (about its share
#: of the game's time).
HAND_WEIGHT = 0.05


@dataclasses.dataclass(frozen=True)
class CompareSettings:
    """The options of :func:`compare` (every one has its default).

    The table: ``players`` (None: the game's default), ``hands`` and
    ``games`` (hands, games played in hands, and whole games per variant;
    None: :data:`DEFAULT_HANDS` and :data:`DEFAULT_GAMES`), ``seed``, and
    ``policy`` (one spec or one per seat; None: the game's default).  The
    run: ``threads``, ``progress``, and ``work``
    (:class:`simkit.runs.batches.Work`: report progress, stop when told).
    ``sweep``: ``KEY=V1,V2,...``, or several crossed into a grid
    (:func:`simkit.lab.variants.check_variants`; a ``sweep`` table then shows
    the headline measures of every variant in one table).  With ``adapt``
    the variants' players are first adapted to their rules, ``adapt_seeds``
    times (None: :data:`simkit.lab.adapt.SEEDS`;
    :func:`simkit.lab.adapt.adapt_variants` with ``params``, kept in ``out``
    or the cache, looked up in ``kept`` too; ``adapt_rounds``,
    ``adapt_trials`` and ``adapt_games`` its sizes, default
    :mod:`simkit.lab.adapt`'s, ``adapt_seed`` its seed, default ``seed``, and
    ``scheduler`` where it plays), and the comparison is played once per
    adaptation on the same deals.  Without ``skill_trace`` no skill trace is
    added.  ``margins`` sets measures' margins of practical equivalence
    (:func:`simkit.lab.findings.with_margins`).
    """

    players: int | None = None
    hands: int | None = None
    games: int | None = None
    seed: int = 0
    policy: Any = None
    threads: int | None = None
    progress: bool = False
    work: Work | None = None
    sweep: str | Sequence[str] | None = None
    adapt: bool = False
    params: Sequence[str] | None = None
    out: StrPath | None = None
    kept: Sequence[StrPath] = ()
    scheduler: str | None = None
    skill_trace: bool = True
    adapt_rounds: int | None = None
    adapt_trials: int | None = None
    adapt_games: int | None = None
    adapt_seed: int | None = None
    adapt_seeds: int | None = None
    margins: Sequence[str] | None = None


def _variants(g: Game, pairs: list[tuple[str, dict[str, Any]]], players: int | None,
              policy: Any, fits: Fits | None, k: int) -> list[Variant]:
    """Each variant as played: ``policy`` at every seat, or (with ``fits``) the
    setting adaptation ``k`` fitted to its rules."""
    rules = [g.make_rules(overrides=ov, players=players) for _, ov in pairs]
    if fits is None:
        pols = g.make_policies(policy, rules[0].players)
        return [Variant(lab, ov, r, tuple(pols)) for (lab, ov), r in zip(pairs, rules)]
    return [Variant(lab, ov, r, tuple(g.make_policies(res["setting"], r.players)), res)
            for (lab, ov), r, res in zip(pairs, rules, fits.results[k])]


def _fit(o: CompareSettings) -> tuple[AdaptSettings, int] | None:
    """The settings of the variants' adaptations and their number (None without
    ``adapt``), checked."""
    from simkit.lab import adapt

    sizes, a_seed = adapt.checked_sizes(o, o.seed, ("rounds", "trials", "games", "seeds"))
    if not o.adapt:
        return None
    return (adapt.AdaptSettings(seed=a_seed, rounds=sizes["rounds"], trials=sizes["trials"],
                                deals=sizes["games"], out=o.out, kept=o.kept,
                                threads=o.threads, scheduler=o.scheduler,
                                progress=o.progress, work=o.work),
            sizes["seeds"] or adapt.SEEDS)


def compare(game: str, variants: Any = None,
            settings: CompareSettings | None = None) -> dict[str, pd.DataFrame]:
    """Play ``hands`` hands (games played in hands) and ``games`` whole games
    under each variant of ``game`` and compare each later variant with the
    first (see the module notes).

    ``variants``: texts for :func:`parse_variant` (or ``(label, dict)``
    pairs); ``settings``: the options (:class:`CompareSettings`; None: every
    default).

    Returns one DataFrame per section of the game's measures (differences
    later minus base; a column ``vs`` names the later variant when there are
    more than two; every row's ``finding``, :mod:`simkit.lab.findings`; with
    ``adapt``, ``by_adaptation``: each adaptation's difference), ``variants``
    (label, changes, policies, adaptation, the share of deals whose records
    differ from the base's, every rule value) and, with ``adapt``,
    ``best_response`` (:func:`simkit.lab.adapt.adapt_variants`).  Each
    table's ``attrs`` hold the game, labels, players, hands, games, seed and
    policies.
    """
    o = CompareSettings() if settings is None else settings
    g = registry.get(game)
    players, seed, work = o.players, o.seed, o.work
    pairs = check_variants(g, variants, o.sweep)
    g.check_players(players)
    rng.run_key(seed)
    base_rules = g.make_rules(overrides=pairs[0][1], players=players)
    sections = findings.with_margins(g.measures(base_rules), o.margins)
    units = list(dict.fromkeys(s.unit for s in sections))
    counts = _counts(g, units, o.hands, o.games)
    run = engine.RunSettings(count=max(200, counts["game"] // SKILL_SHARE), seed=seed,
                             threads=o.threads, progress=o.progress)
    trace = o.skill_trace and "game" in units
    policy = o.policy
    one_play = _effort(g, len(pairs), policy=policy, counts={u: counts[u] for u in units},
                       run=run, trace=trace)
    fits = _fits(g, pairs, o, one_play=one_play)
    set_threads(run.threads)
    plays: list[_Played] = []
    memo: dict[tuple[str, ...], np.ndarray] = {}
    for k in range(len(fits.results) if fits is not None else 1):
        played = _variants(g, pairs, players, policy=policy, fits=fits, k=k)
        sums = {u: _play(g, u, [s for s in sections if s.unit == u], played,
                         run=dataclasses.replace(run, count=counts[u]), work=work)
                for u in units}
        skills = _skill_rows(g, played, run, work, memo) if trace else [[] for _ in played]
        plays.append(_Played(played, sums, _tables(sections, sums, played, skills, seed)))
    labels = tuple(label for label, _ in pairs)
    tables = _merge(plays, labels, adapted=fits is not None)
    tables["variants"] = _variant_table(plays, fits)
    keys = sweep_keys(o.sweep)
    if keys and "design" in tables:
        tables["sweep"] = sweep_table(labels, [ov for _, ov in pairs], keys, tables["design"])
    if fits is not None:
        tables["best_response"] = pd.DataFrame(fits.best_response)
    attrs = _attrs(g, plays, fits, run=run if trace else None,
                   sizes={"hands": counts["hand"] if "hand" in units else None,
                          "games": counts["game"] if "game" in units else None,
                          "seed": int(seed)},
                   headings=_headings(sections, counts))
    for df in tables.values():
        df.attrs.update(attrs)
    return tables


def _headings(sections: list[Section], counts: dict[str, int]) -> dict[str, str]:
    """Each table's heading: its sections', the later ones after a semicolon
    (the design table: whole games; position per hand)."""
    out: dict[str, str] = {}
    for s in sections:
        text = s.heading.format(n=counts[s.unit])
        out[s.shown_in] = f"{out[s.shown_in]}; {text}" if s.shown_in in out else text
    return out


def _attrs(g: Game, plays: list[_Played], fits: Fits | None,
           run: engine.RunSettings | None, sizes: dict[str, int | None],
           headings: dict[str, str]) -> dict[str, Any]:
    """What every table of a comparison carries in its ``attrs``: the game, the
    variants and their changes, the sizes and seed (``sizes``), the policies
    each variant played (per adaptation), their adaptations, the share of
    differing records, the skill trace's deals (``run``) and the sections'
    ``headings``."""
    first = plays[0].variants
    return {"game": g.name, "title": g.title, "labels": tuple(v.label for v in first),
            "changes": tuple(changes(v.overrides) for v in first),
            "players": first[0].rules.players, **sizes,
            "policies": tuple(first[0].texts()),
            "played": {v.label: v.texts() for v in first},
            "played_by_adaptation": {v.label: [p.variants[i].texts() for p in plays]
                                     for i, v in enumerate(first)},
            "adapted": {v.label: fits.summary(i) if fits is not None else None
                        for i, v in enumerate(first)},
            "differing": {v.label: _differing([p.sums for p in plays], vi)
                          for vi, v in enumerate(first) if vi},
            "skill_deals": run.count if run is not None else None, "headings": headings}


def _counts(g: Game, units: list[str], hands: int | None,
            games: int | None) -> dict[str, int]:
    """The hands and whole games each variant plays, checked."""
    if hands is not None and "hand" not in units:
        raise InputError(f"--hands does not apply: {g.title} is compared in whole games only; "
                         "give --games")
    hands = DEFAULT_HANDS if hands is None else hands
    games = DEFAULT_GAMES if games is None else games
    check_count(hands, "--hands")
    check_count(games, "--games")
    return {"hand": hands, "game": games}


def _fits(g: Game, pairs: list[tuple[str, dict[str, Any]]], o: CompareSettings,
          one_play: float) -> Fits | None:
    """The variants' adaptations (None without ``adapt``), the progress bar told
    of them and of the plays that follow (``one_play`` each)."""
    from simkit.lab import adapt

    fit, work = _fit(o), o.work
    if fit is None:
        if work is not None:
            work.expect(one_play)
        return None
    options, seeds = fit
    start = adapt.check(g.name, o.policy)
    rules = [(lab, g.make_rules(overrides=ov, players=o.players)) for lab, ov in pairs]
    if work is not None:
        work.expect(adapt.check_effort(g.name, [r for _, r in rules], start, o.params,
                                       seeds=seeds, settings=options))
        work.expect(seeds * one_play)
    return adapt.adapt_variants(g.name, rules, start, o.params, seeds=seeds, settings=options)


def _effort(g: Game, variants: int, policy: Any, counts: dict[str, int],
            run: engine.RunSettings, trace: bool) -> float:
    """One play of the comparison's units (``counts``; hands weighed by
    :data:`HAND_WEIGHT`) and its skill trace, as a progress bar counts them."""
    out = sum(variants * n * (HAND_WEIGHT if u == "hand" else 1.0) for u, n in counts.items())
    if trace:
        default = g.make_policies(policy, 1)[0].text() if policy is None or isinstance(
            policy, str) else g.make_policies(None, 1)[0].text()
        out += variants * sum(skill.deals(g, stronger, run.count)
                              for _, stronger in skill.rungs(g, default))
    return out


@dataclasses.dataclass
class _Played:
    """One play of the comparison (one per adaptation): the variants as played,
    their paired sums, and the rows of every section per later variant."""

    variants: list[Variant]
    sums: dict[str, _Sums]
    rows: dict[str, list[list[dict[str, Any]]]]


def _differing(sums: list[dict[str, _Sums]], v: int) -> dict[str, float]:
    """Per kind of unit, the largest share (over the adaptations) of units whose
    records differ from the base's."""
    return {u: max(float(s[u].records_differ[v]) / s[u].units if s[u].units else math.nan
                   for s in sums) for u in sums[0]}


def _tables(sections: list[Section], sums: dict[str, _Sums], played: list[Variant],
            skills: list[list[dict[str, Any]]], seed: int) -> dict[str, list[list[dict[str, Any]]]]:
    """Every section's rows for every later variant, with its findings over all
    the tests of that variant against the base (:func:`simkit.lab.findings.fill`)."""
    per: dict[str, list[list[dict[str, Any]]]] = {s.shown_in: [[] for _ in played]
                                                  for s in sections}
    offsets = {u: {"ratio": 0, "stat": 0} for u in sums}
    for s in sections:
        at = dict(offsets[s.unit])
        for v in range(1, len(played)):
            per[s.shown_in][v] += _section_rows(s, sums[s.unit], v, at, seed)
        offsets[s.unit]["ratio"] += len(_ratios(s))
        offsets[s.unit]["stat"] += len(_statistics(s))
    if "design" in per:
        for v in range(1, len(played)):
            per["design"][v] += skills[v]
    for v in range(1, len(played)):
        findings.fill([row for rows in per.values() for row in rows[v]])
    return per


def _merge(plays: list[_Played], labels: tuple[str, ...],
           adapted: bool) -> dict[str, pd.DataFrame]:
    """Each section's table: per later variant, its rows with every
    adaptation's numbers told in one row (:func:`simkit.lab.findings.combined`)."""
    several = len(labels) > 2
    out = {}
    for name in plays[0].rows:
        flat = []
        for v in range(1, len(labels)):
            keyed: dict[Any, list[dict[str, Any] | None]] = {}
            for k, p in enumerate(plays):
                for row in p.rows[name][v]:
                    key = row.get("level", row.get("metric"))
                    keyed.setdefault(key, [None] * len(plays))[k] = row
            for each in keyed.values():
                have = [e for e in each if e is not None]
                full = [e if e is not None else (findings.absent_bid(have[0]) if "level" in have[0]
                                                 else None) for e in each]
                rows = [e for e in full if e is not None]
                vs = {"vs": labels[v]} if several else {}
                flat.append(vs | findings.combined(rows, adapted))
            if name == "bids":
                flat.sort(key=lambda r: (r.get("vs", ""), r["level"]))
        out[name] = pd.DataFrame(flat)
    return out


def _variant_table(plays: list[_Played], fits: Fits | None) -> pd.DataFrame:
    rows = []
    for vi, v in enumerate(plays[0].variants):
        row: dict[str, Any] = {"label": v.label, "changes": changes(v.overrides),
                               "policies": v.texts(),
                               "adapted": fits.summary(vi) if fits is not None else None}
        for u in plays[0].sums:
            shares = [float(p.sums[u].records_differ[vi]) / p.sums[u].units
                      for p in plays if p.sums[u].units]
            row[f"differing_{u}s"] = (max(shares) if vi and shares
                                      else (0.0 if vi == 0 else math.nan))
        rows.append({**row, **v.rules.as_dict()})
    return pd.DataFrame(rows)
