"""What a rule search reads and how one setting is played: the measures it can
aim at (:func:`catalogue`), the ``--rule`` and ``--goal`` items checked
(:func:`parse_rules`, :func:`parse_goals`), and the play of one rule setting
on a range of deals paired with the base's (:class:`Pairs`).

The measures are a comparison's own (:mod:`simkit.lab.compare`): every row of
the game's tables and of the design table, by the name ``compare --json``
gives it (``metric``; a contract's share of the hands and success rate as
``bids: NAME share`` and ``bids: NAME made``) or by a short key made from that
name.  The skill trace's rows are not searched: each would be a ladder of
tournaments per trial.

**Paired.**  A setting plays units ``first .. first+n-1`` of the search's seed,
the same units the base plays; the base's per-unit sums are played once per
range and kept (:class:`BaseCache`), and each setting's are added to them in
compare's paired sums, so every interval and finding is the comparison's.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from simkit import engine
from simkit.base import measures, stats
from simkit.base.config import _accepted, _coerce
from simkit.base.errors import InputError
from simkit.base.measures import Balance, BidShares, Rate, Section, Statistic
from simkit.engine import Game
from simkit.lab import compare, findings
from simkit.tune import Param

#: A measure's kinds: a share (shown in %) or a mean in its own unit.
RATE, MEAN = "rate", "mean"
_GOAL_FORM = ("'MEASURE=VALUE', 'MEASURE<=VALUE' or 'MEASURE>=VALUE', e.g. "
              "'hands per game: mean=15' or 'bids_kubwa_share>=1%'")
_RULE_FORM = "KEY=LOW:HIGH (a number) or KEY=V1,V2,... (choices), e.g. target=20:80"


@dataclasses.dataclass(frozen=True)
class Measure:
    """One measure a search may aim at: its name (as ``compare --json`` rows
    give it), short key, kind, the section and kind of unit it is played in,
    and where its numbers sit in the paired sums (``ratio``: its index among
    the unit's ratios; ``stat``: among the unit's statistics)."""

    name: str
    key: str
    kind: str
    section: str
    unit: str
    margin: float | None
    ratio: int | None = None
    stat: int | None = None
    source: Any = dataclasses.field(default=None, compare=False, repr=False)
    level: int | None = None            # a contract's level (bids)
    made: bool = False                  # its success rate, not its share

    def meaning(self) -> str:
        """What the measure is, in a few words, for ``--list``."""
        what = "share" if self.kind == RATE else "mean"
        per = {"hand": "hands", "game": "whole games"}.get(self.unit, f"{self.unit}s")
        return f"{what} over {per} ({self.section} table)"

    def shown_unit(self) -> str:
        """The measure's unit as a goal gives it."""
        return "a share: 0.01 or 1%" if self.kind == RATE else "its own unit (a mean)"


def _slug(name: str) -> str:
    """A short key from a measure's name: lower case, words joined by ``_``,
    what stands in brackets and apostrophes left out."""
    text = re.sub(r"\([^)]*\)", " ", name.lower()).replace("'", "")
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_")


def catalogue(sections: Sequence[Section]) -> list[Measure]:
    """Every measure of ``sections`` a search may aim at, in the comparison's order."""
    out: list[Measure] = []
    counters: dict[str, dict[str, int]] = {}
    for s in sections:
        at = counters.setdefault(s.unit, {"ratio": 0, "stat": 0})
        for m in s.measures:
            if isinstance(m, BidShares):
                for level in range(1, m.levels):
                    try:
                        text = m.text(level)
                    except (ValueError, IndexError, KeyError):
                        continue        # a level no contract has (Pitch's are not 0, 1, 2 ...)
                    k = at["ratio"] + 2 * level
                    share = Measure(name=f"bids: {text} share", key="", kind=RATE,
                                    section=s.shown_in, unit=s.unit, margin=m.margin,
                                    ratio=k, source=m, level=level)
                    out += [share, dataclasses.replace(share, name=f"bids: {text} made",
                                                       ratio=k + 1, made=True)]
                at["ratio"] += 2 * m.levels
            elif isinstance(m, (Statistic, Balance)):
                kind = MEAN if isinstance(m, Statistic) and not m.percent else RATE
                margin = m.margin if isinstance(m, Statistic) else measures.RATE_MARGIN
                out.append(Measure(name=m.metric, key="", kind=kind, section=s.shown_in,
                                   unit=s.unit, margin=margin, stat=at["stat"], source=m))
                at["stat"] += 1
            else:
                out.append(Measure(name=m.metric, key="",
                                   kind=RATE if isinstance(m, Rate) else MEAN,
                                   section=s.shown_in, unit=s.unit, margin=m.margin,
                                   ratio=at["ratio"], source=m))
                at["ratio"] += 1
    keys: dict[str, int] = {}
    for m in out:
        keys[_slug(m.name)] = keys.get(_slug(m.name), 0) + 1
    return [dataclasses.replace(m, key=_slug(m.name) if keys[_slug(m.name)] == 1
                                else f"{m.section}_{_slug(m.name)}") for m in out]


def find(measures: Sequence[Measure], text: str, what: str) -> Measure:
    """The measure named ``text`` (its name or short key, case aside), or an
    InputError naming the closest and saying where the list is."""
    t = text.strip().lower()
    for m in measures:
        if t in (m.name.lower(), m.key):
            return m
    names = [m.name.lower() for m in measures] + [m.key for m in measures]
    close = difflib.get_close_matches(t, names, n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise InputError(f"bad {what}: no measure is named {text.strip()!r}{hint}; see "
                     "'simkit search GAME --list' for every measure and its key")


# --- what is searched ------------------------------------------------------------------

def parse_rules(g: Game, items: Sequence[str]) -> tuple[Param, ...]:
    """The ``--rule`` items as :class:`simkit.tune.Param` s: ``KEY=LOW:HIGH`` for a
    number (every value of the range accepted), ``KEY=V1,V2,...`` for choices
    (numbers too), each value checked against its rule's accepted values (a
    setting the rules' cross-checks refuse is a trial refused, not bad input)."""
    fields = {f.name: f for f in dataclasses.fields(g.rules)}
    if not items:
        raise InputError(f"give at least one --rule {_RULE_FORM}; the rules are "
                         + ", ".join(k for k in fields if k != "players"))
    out: dict[str, Param] = {}
    for item in items:
        key, eq, spec = str(item).partition("=")
        key, spec = key.strip(), spec.strip()
        if not eq or not key or not spec:
            raise InputError(f"bad --rule {item!r}: expected {_RULE_FORM}")
        if key == "players":
            raise InputError(f"bad --rule {item!r}: the player count is the table's; set it "
                             "with --players")
        if key not in fields:
            raise InputError(f"bad --rule {item!r}: unknown rule {key!r}; accepted keys are "
                             + ", ".join(k for k in fields if k != "players"))
        if key in out:
            raise InputError(f"bad --rule {item!r}: rule {key!r} is given twice")
        out[key] = _one_rule(fields[key], str(item), spec)
    return tuple(out.values())


def _one_rule(f: dataclasses.Field[Any], item: str, spec: str) -> Param:
    ftype = f.type if isinstance(f.type, str) else f.type.__name__
    number = ftype in ("int", "float")
    if ":" in spec:
        if not number:
            raise InputError(f"bad --rule {item!r}: rule {f.name!r} is a choice, not a range; "
                             f"give its values as {f.name}=A,B ({_accepted(f)})")
        lo_text, _, hi_text = spec.partition(":")
        low, high = (_coerce(f, t.strip(), "rule") for t in (lo_text, hi_text))
        if not low < high:
            raise InputError(f"bad --rule {item!r}: the range's low end must be below its high "
                             "end")
        lo_ok, hi_ok = f.metadata.get("lo"), f.metadata.get("hi")
        if (lo_ok is not None and low < lo_ok) or (hi_ok is not None and high > hi_ok):
            raise InputError(f"bad --rule {item!r}: the range leaves the accepted values of "
                             f"rule {f.name!r} ({_accepted(f)})")
        scale = f.metadata.get("scale")
        step = 1.0 / scale if ftype == "float" and scale else None
        return Param(f.name, ftype, low, high, step)
    values: list[Any] = []
    lo_ok, hi_ok = f.metadata.get("lo"), f.metadata.get("hi")
    for t in spec.split(","):
        # each value on its own: a setting the rules' cross-checks refuse (too few
        # cards for the hand) is a trial refused, not bad input
        value = _coerce(f, t.strip(), "rule")
        if (lo_ok is not None and value < lo_ok) or (hi_ok is not None and value > hi_ok):
            raise InputError(f"bad --rule {item!r}: {t.strip()!r} is not an accepted value of "
                             f"rule {f.name!r} ({_accepted(f)})")
        if value not in values:
            values.append(value)
    if len(values) < 2:
        raise InputError(f"bad --rule {item!r}: give at least two different values, or a "
                         "range LOW:HIGH")
    return Param(f.name, "choice", choices=tuple(values))


def suggest(trial: Any, p: Param) -> Any:
    """Trial ``trial``'s value of the searched rule ``p``."""
    if p.kind == "choice":
        return trial.suggest_categorical(p.name, [_plain(c) for c in p.choices])
    if p.kind == "int":
        return trial.suggest_int(p.name, int(p.low), int(p.high))
    return trial.suggest_float(p.name, p.low, p.high, step=p.step)


def _plain(value: Any) -> Any:
    """A choice as Optuna stores it (a str, int, float or bool)."""
    return value if isinstance(value, (bool, int, float)) else str(value)


# --- goals -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Goal:
    """One goal: a target (``=``), a bound (``<=``, ``>=``: a constraint) or an
    objective (``min``, ``max``) on one measure; ``text`` as shown."""

    text: str
    measure: Measure
    op: str
    value: float | None = None

    @property
    def objective(self) -> bool:
        """Whether the goal is one of the search's objectives (not a bound)."""
        return self.op in ("=", "min", "max")

    def direction(self) -> str:
        """Optuna's direction for this objective (a target is |M - V|, minimised)."""
        return "maximize" if self.op == "max" else "minimize"

    def score(self, value: float) -> float:
        """The objective's value for the measure's ``value``."""
        if self.op == "=":
            assert self.value is not None
            return abs(value - self.value)
        return value

    def violation(self, value: float) -> float:
        """How far ``value`` is from meeting a bound (positive: not met)."""
        assert self.value is not None
        return value - self.value if self.op == "<=" else self.value - value

    def met(self, value: float, lo: float, hi: float) -> bool | None:
        """Whether the confirmed ``value`` (interval ``lo``, ``hi``) meets the goal:
        a bound by its value; a target where its interval holds the target or
        the value is within its :meth:`tolerance`; None for an objective."""
        if not math.isfinite(value):
            return False
        if self.op in ("<=", ">="):
            return self.violation(value) <= 0
        if self.op == "=":
            assert self.value is not None
            return bool(lo <= self.value <= hi) or abs(value - self.value) <= self.tolerance()
        return None

    def tolerance(self) -> float:
        """How near a target's value counts as on it: the measure's margin, but
        never more than a tenth of the target (a 1-point margin would call a
        share of 0.01% on a target of 1%)."""
        assert self.value is not None
        margin = self.measure.margin or 0.0
        return min(margin, abs(self.value) / 10) if self.value else margin

    def distance(self, value: float) -> float:
        """How far the value is from meeting the goal (0 where it does)."""
        if self.op == "=":
            return self.score(value)
        if self.op in ("<=", ">="):
            return max(0.0, self.violation(value))
        return 0.0


_GOAL = re.compile(r"^(?P<m>.*?)\s*(?P<op><=|>=|=)\s*(?P<v>[^=<>]*)$", re.S)


def parse_goals(measures: Sequence[Measure], goals: Sequence[str], minimize: Sequence[str],
                maximize: Sequence[str]) -> tuple[Goal, ...]:
    """The goals, objectives first in the order given: ``--goal`` items
    (targets and bounds), then ``--minimize`` and ``--maximize``; a rate's value
    as a fraction or with ``%``."""
    out: list[Goal] = []
    for item in goals:
        found = _GOAL.match(str(item).strip())
        if found is None or not found["m"] or not found["v"].strip():
            raise InputError(f"bad --goal {item!r}: expected {_GOAL_FORM}")
        m = find(measures, found["m"], f"--goal {item!r}")
        out.append(Goal(str(item).strip(), m, found["op"], _goal_value(m, item,
                                                                       found["v"].strip())))
    for op, items in (("min", minimize), ("max", maximize)):
        for item in items:
            m = find(measures, str(item), f"--{op}imize {item!r}")
            out.append(Goal(f"{op}imize {m.name}", m, op))
    if not out:
        raise InputError(f"give at least one --goal {_GOAL_FORM}, --minimize MEASURE or "
                         "--maximize MEASURE")
    aims = [g.measure.name for g in out if g.objective]
    twice = next((n for n in aims if aims.count(n) > 1), None)
    if twice is not None:
        raise InputError(f"measure {twice!r} is aimed at twice (a target, --minimize or "
                         "--maximize): give one aim per measure")
    return tuple(sorted(out, key=lambda g: not g.objective))


def _goal_value(m: Measure, item: str, text: str) -> float:
    percent = text.endswith("%")
    try:
        number = float(text.rstrip("%").strip())
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise InputError(f"bad --goal {item!r}: {text!r} is not a number; expected {_GOAL_FORM}")
    if percent and m.kind != RATE:
        raise InputError(f"bad --goal {item!r}: {m.name!r} is not a share; give its value in "
                         "its own unit, without %")
    if m.kind == RATE and not percent and abs(number) > 1:
        raise InputError(f"bad --goal {item!r}: {m.name!r} is a share; give it as a fraction "
                         "(0.01) or in points (1%)")
    return number / 100 if percent else number


# --- playing ---------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Table:
    """Who plays a search's settings: the game, its sections (the base's
    measures), the players' policies as texts, and how the kernels run."""

    game: Game
    sections: tuple[Section, ...]
    policies: tuple[str, ...]
    threads: int | None = None
    scheduler: str | None = None        # a Dask cluster that plays the deals

    def of(self, unit: str) -> list[Section]:
        """The sections played in ``unit``s."""
        return [s for s in self.sections if s.unit == unit]


@dataclasses.dataclass
class Played:
    """One rule setting's numbers on units ``first .. first+n-1`` of one kind:
    per ratio each unit's ``(x, n)``, each statistic's per-unit values, and a
    hash per unit of its records."""

    xn: np.ndarray
    values: list[np.ndarray]
    hashes: np.ndarray


def play(table: Table, unit: str, rules: Any, seed: int, span: tuple[int, int], *,
         policies: Sequence[str] | None = None) -> Played:
    """``rules`` at the table on units ``span = (first, n)`` of ``seed``, played
    by the table's policies or ``policies`` (players adapted to ``rules``)."""
    first, n = span
    sections = table.of(unit)
    ratios = [(s, r) for s in sections for r in compare._ratios(s)]
    statistics = [(s, m) for s in sections for m in compare._statistics(s)]
    df = _records(table, unit, rules, seed, span=span, policies=list(policies or table.policies))
    views: dict[str, pd.DataFrame] = {s.name: s.view(df) if s.view is not None else df
                                      for s in sections}
    xn = np.empty((len(ratios), 2, n))
    for k, (s, r) in enumerate(ratios):
        view = views[s.name]
        index = view.iloc[:, 0].to_numpy(np.int64)
        xn[k, 0] = compare._per_unit(r.x(view), index, first, n)
        xn[k, 1] = compare._per_unit(r.n(view), index, first, n)
    values = [np.asarray(m.values(views[s.name]), float) for s, m in statistics]
    return Played(xn, values, compare._unit_hashes(df, first, n))


def _records(table: Table, unit: str, rules: Any, seed: int, *, span: tuple[int, int],
             policies: list[str]) -> pd.DataFrame:
    """The records of units ``span = (first, n)``: played here on the table's
    threads, or in chunks on its Dask cluster (the same records: every unit is
    fixed by the seed and its number)."""
    first, n = span
    if table.scheduler is None:
        return engine.simulate(table.game, unit, engine.RunSettings(
            count=n, rules=rules, policy=policies, seed=seed, start=first,
            threads=table.threads))
    from simkit.bygame import jobs
    from simkit.runs import chunks

    job = jobs.job(table.game.name, unit, n, {"rules": rules.as_dict(), "policies": policies,
                                              "seed": seed, "first": first},
                   compute=_span_chunk)
    got = chunks.run(job, backend="dask", scheduler=table.scheduler, reduce=_as_is)
    assert got.values is not None
    frames: list[pd.DataFrame] = got.values
    return pd.concat(frames, ignore_index=True)


def _span_chunk(game: str, unit: str, run: dict[str, Any], start: int,
                count: int) -> pd.DataFrame:
    """A chunk of a search's span, on a worker: its units counted from the span's first."""
    from simkit.bygame import jobs

    return jobs.records_chunk(game, unit, run, int(run["first"]) + start, count)


def _as_is(df: pd.DataFrame) -> pd.DataFrame:
    """A chunk's records, brought back whole (the reduction that keeps them)."""
    return df


class Pairs:
    """A setting's paired sums against the base, per kind of unit (compare's
    :class:`simkit.lab.compare._Sums`, the base as variant 0), added to range by
    range."""

    def __init__(self, table: Table, units: Sequence[str]) -> None:
        self.sums: dict[str, compare._Sums] = {}
        for u in units:
            ratios = sum(len(compare._ratios(s)) for s in table.of(u))
            statistics = sum(len(compare._statistics(s)) for s in table.of(u))
            self.sums[u] = compare._Sums(ratios, statistics, 2, compare.BLOCK[u])

    def add(self, unit: str, base: Played, setting: Played) -> None:
        """Add one range of units played by the base and the setting."""
        sums = self.sums[unit]
        sums.add(np.stack([base.xn, setting.xn]))
        for k, (a, b) in enumerate(zip(base.values, setting.values)):
            sums.values[0][k].append(a)
            sums.values[1][k].append(b)
        sums.records_differ[1] += int(np.count_nonzero(base.hashes != setting.hashes))

    def finish(self) -> None:
        """Fold in the units still held: call before reading."""
        for s in self.sums.values():
            s.finish()

    def value(self, m: Measure, side: int = 1) -> float:
        """The measure's value under the setting (``side`` 1) or the base (0),
        on the units added so far (no interval: quick, for the trials)."""
        sums = self.sums[m.unit]
        if m.ratio is not None:
            x, n = sums.S[1, m.ratio, 2 * side], sums.S[1, m.ratio, 2 * side + 1]
            return float(x / n) if n else math.nan
        assert m.stat is not None
        x = sums.stat_values(side, m.stat)
        if isinstance(m.source, Balance):
            return float(stats.equal_shares(x)["largest"])
        return float(m.source.stat(x, axis=0))

    def interval(self, m: Measure, side: int, seed: int) -> tuple[float, float, float]:
        """The measure's value and 95% interval under ``side`` (see :meth:`value`)."""
        sums = self.sums[m.unit]
        if m.ratio is not None:
            value, lo, hi = compare._own(sums.S[1, m.ratio], sums.M[1, m.ratio], sums.units,
                                         side)
            if m.kind == RATE:
                lo, hi = compare._edge(value, lo, hi, sums.S[1, m.ratio, 2 * side + 1])
            return float(value), float(lo), float(hi)
        assert m.stat is not None
        x = sums.stat_values(side, m.stat)
        if isinstance(m.source, Balance):
            r = stats.equal_shares(x, seed=seed)
            return float(r["largest"]), float(r["lo"]), float(r["hi"])
        return sums.stat_interval(side, m.stat, m.source.stat, seed)

    def rows(self, table: Table, seed: int) -> list[dict[str, Any]]:
        """Every row the comparison of the setting with the base gives for the
        units played, with its finding (:func:`simkit.lab.findings.fill`)."""
        sections = [s for s in table.sections if s.unit in self.sums]
        per = compare._tables(sections, self.sums, [None, None],  # type: ignore[list-item]
                              [[], []], seed)
        return [row for rows in per.values() for row in rows[1]]


def differing(pairs: Pairs) -> dict[str, float]:
    """Per kind of unit, the share whose records differ from the base's."""
    return {u: float(s.records_differ[1]) / s.units if s.units else math.nan
            for u, s in pairs.sums.items()}


def row_of(m: Measure, rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The comparison's numbers of ``m`` against the base: difference, interval
    and finding (None for a contract no deal reached)."""
    prefix = "made_" if m.made else ""
    for row in rows:
        if (m.level is not None and row.get("level") == m.level) or (
                m.level is None and row.get("metric") == m.name):
            if f"{prefix}finding" not in row:
                return None
            return {"diff": row[f"{prefix}diff"], "diff_low": row[f"{prefix}ci_low"],
                    "diff_high": row[f"{prefix}ci_high"], "finding": row[f"{prefix}finding"]}
    return None


def base_findings(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """How many of the comparison's tests ended in each finding."""
    out = dict.fromkeys(findings.WORDS, 0)
    for row in rows:
        for prefix in ("", "made_"):
            word = row.get(f"{prefix}finding")
            if isinstance(word, str) and word in out:
                out[word] += 1
    return out
