"""Two rule sets side by side, for any game:
``simkit compare GAME --variant A: --variant B:key=value``.

Both variants play the same deals (the same seed, so hand or game ``i`` is
dealt from the same stream, by the same dealer, under both) with the same
policies.  What is compared is each game's own: its spec's ``measures(rules)``
returns :class:`~simkit.engine.Section`\\ s of :class:`~simkit.engine.Rate`
and :class:`~simkit.engine.Mean` measures (and, for games with bids, one
:class:`~simkit.engine.BidShares` table of each contract's share and success
rate).  Each difference is **B - A** with a 95% interval and a
two-sided p-value (:func:`simkit.stats.compare_proportions`: chi-square or
Fisher for rates; :func:`simkit.stats.compare_means`: Welch for means).

The tests treat the two runs as independent samples.  They share their
deals, which usually makes the outcomes positively correlated, so the
intervals and p-values are on the cautious side.  Nothing corrects for the
number of tests: among many differences a few can fall below 5% by chance.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from simkit import engine, rng, stats
from simkit import games as registry
from simkit.engine import BidShares, Rate, Section
from simkit.errors import InputError
from simkit.runner import Work, check_count, steps

ALPHA = 0.05
_LABEL = re.compile(r"^[A-Za-z0-9_.+-]+$")
_FORM = "LABEL or LABEL:key=value[,key=value...], e.g. A: or B:all_pass=stick,auction=one_lap"


def _mask(of, df) -> np.ndarray:
    return np.ones(len(df), bool) if of is None else np.asarray(of(df), bool)


def _add(totals: dict, section: Section, df: pd.DataFrame) -> None:
    """Add one batch of records to the running counts and sums of ``section``."""
    for m in section.measures:
        if isinstance(m, BidShares):
            c = df["contract"].to_numpy(np.int64)
            made = df["made"].to_numpy(bool)
            t = totals.setdefault(m, {"n": 0, "count": np.zeros(m.levels, np.int64),
                                      "made": np.zeros(m.levels, np.int64)})
            t["n"] += len(c)
            t["count"] += np.bincount(c, minlength=m.levels)
            t["made"] += np.bincount(c[made], minlength=m.levels)
            continue
        keep = _mask(m.of, df)
        t = totals.setdefault(m, [0, 0.0, 0.0])
        t[0] += int(keep.sum())
        if isinstance(m, Rate):
            t[1] += int(np.asarray(m.hit(df), bool)[keep].sum())
        else:
            x = np.asarray(m.value(df), np.float64)[keep]
            t[1] += float(x.sum())
            t[2] += float((x * x).sum())


# --- variants -------------------------------------------------------------------------

def _check(game, label, overrides: dict, shown) -> tuple[str, dict]:
    """Validate a label and rule overrides (``shown``: the variant as the user gave it)."""
    if not isinstance(label, str) or not _LABEL.match(label):
        raise InputError(f"bad --variant {shown!r}: the label must be letters, digits or _.+- "
                         f"before the ':'; expected {_FORM}")
    if "players" in overrides:
        raise InputError(f"bad --variant {shown!r}: the player count is the same for both "
                         f"variants; set it with --players")
    try:
        game.make_rules(overrides=overrides)      # unknown keys and bad values raise here
    except InputError as e:
        raise InputError(f"bad --variant {shown!r}: {e}") from None
    return label, dict(overrides)


def parse_variant(game, text: str) -> tuple[str, dict[str, str]]:
    """``"B:all_pass=stick,auction=one_lap"`` -> ``("B", {"all_pass": "stick", ...})``.

    ``"A"`` or ``"A:"`` is the seed's rules.  Keys and values are checked
    with the game's rules; ``players`` is set for both variants at once
    (``--players``), not per variant.
    """
    if not isinstance(text, str):
        raise InputError(f"bad --variant {text!r}: expected {_FORM}")
    label, _, rest = text.strip().partition(":")
    overrides: dict[str, str] = {}
    for part in rest.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise InputError(f"bad --variant {text!r}: {part.strip()!r} is not key=value; "
                             f"expected {_FORM}")
        if key in overrides:
            raise InputError(f"bad --variant {text!r}: rule {key!r} is given twice")
        overrides[key] = value
    return _check(game, label.strip(), overrides, text)


def check_variants(game, variants) -> list[tuple[str, dict]]:
    """Two validated (label, overrides) pairs from texts or (label, dict) pairs."""
    if variants is None or isinstance(variants, (str, tuple)):
        variants = [] if variants is None else [variants]
    out = []
    for v in variants:
        if isinstance(v, str):
            out.append(parse_variant(game, v))
        elif isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], dict):
            out.append(_check(game, v[0], v[1], v))
        else:
            raise InputError(f"bad variant {v!r}: expected {_FORM}")
    if len(out) != 2:
        raise InputError(f"compare needs exactly two variants (--variant A:... --variant B:...), "
                         f"got {len(out)}")
    if out[0][0] == out[1][0]:
        raise InputError(f"the two variants have the same label {out[0][0]!r}: give each its own")
    return out


def _changes(overrides: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in overrides.items()) or "seed rules"


# --- rows -----------------------------------------------------------------------------

def _rate_row(metric, ka, na, kb, nb) -> dict:
    c = stats.compare_proportions(kb, nb, ka, na)
    return {"metric": metric, "kind": "rate", "a": ka / na if na else math.nan,
            "b": kb / nb if nb else math.nan, "n_a": na, "n_b": nb, "diff": c["diff"],
            "ci_low": c["lo"], "ci_high": c["hi"], "p_value": c["p_value"]}


def _mean_row(metric, na, sa, ssa, nb, sb, ssb) -> dict:
    c = stats.compare_means(nb, sb, ssb, na, sa, ssa)
    return {"metric": metric, "kind": "mean", "a": sa / na if na else math.nan,
            "b": sb / nb if nb else math.nan, "n_a": na, "n_b": nb, "diff": c["diff"],
            "ci_low": c["lo"], "ci_high": c["hi"], "p_value": c["p_value"]}


def _bid_rows(m: BidShares, ta: dict, tb: dict) -> list[dict]:
    rows = []
    for level in range(m.levels):
        ca, cb = int(ta["count"][level]), int(tb["count"][level])
        if ca == 0 and cb == 0:
            continue
        share = stats.compare_proportions(cb, tb["n"], ca, ta["n"])
        row = {"bid": m.text(level) if level else "(thrown in)", "level": level,
               "hands_a": ca, "rate_a": ca / ta["n"], "hands_b": cb, "rate_b": cb / tb["n"],
               "diff": share["diff"], "ci_low": share["lo"], "ci_high": share["hi"],
               "p_value": share["p_value"]}
        nan = dict.fromkeys(("made_a", "made_b", "made_diff", "made_ci_low", "made_ci_high",
                             "made_p_value"), math.nan)
        if level:
            ma, mb = int(ta["made"][level]), int(tb["made"][level])
            made = stats.compare_proportions(mb, cb, ma, ca)
            nan.update(made_a=ma / ca if ca else math.nan, made_b=mb / cb if cb else math.nan,
                       made_diff=made["diff"], made_ci_low=made["lo"],
                       made_ci_high=made["hi"], made_p_value=made["p_value"])
        rows.append({**row, **nan})
    return rows


def _section_table(section: Section, ta: dict, tb: dict) -> pd.DataFrame:
    """One table of differences; a measure that counted no row under either
    variant (e.g. players who joined, where nobody may join) is left out."""
    rows = []
    for m in section.measures:
        if isinstance(m, BidShares):
            return pd.DataFrame(_bid_rows(m, ta[m], tb[m]))
        (na, sa, ssa), (nb, sb, ssb) = ta[m], tb[m]
        if na == 0 and nb == 0:
            continue
        rows.append(_rate_row(m.metric, sa, na, sb, nb) if isinstance(m, Rate)
                    else _mean_row(m.metric, na, sa, ssa, nb, sb, ssb))
    return pd.DataFrame(rows)


# --- running ----------------------------------------------------------------------------

def _rebatch(frames, batch: int):
    """``frames`` (consecutive units, in steps of any size) regrouped into the
    batches :func:`engine.iterate` makes, so that the floating-point sums are
    added in the same groups, whatever size the steps took (they follow the
    time each took)."""
    held: list[pd.DataFrame] = []
    rows = 0
    for df in frames:
        held.append(df)
        rows += len(df)
        while rows >= batch:
            both = pd.concat(held, ignore_index=True)
            yield both.iloc[:batch]
            rest = both.iloc[batch:].reset_index(drop=True)
            held, rows = [rest], len(rest)
    if rows:
        yield pd.concat(held, ignore_index=True)


def _totals(game, rules, sections, counts, policy, seed, threads, progress,
            work: Work | None = None) -> dict:
    """Counts and sums of every measure of ``sections`` under ``rules`` (with
    ``work``: in steps, each kind of unit one part of the effort)."""
    totals: dict = {}
    for unit in dict.fromkeys(s.unit for s in sections):
        mine = [s for s in sections if s.unit == unit]
        n = counts[unit]
        if work is None:
            frames = engine.iterate(game, unit, n, rules=rules, policy=policy, seed=seed,
                                    threads=threads, progress=progress)
        else:
            steps_ = (engine.simulate(game, unit, count, rules=rules, policy=policy,
                                      seed=seed, start=first, threads=threads)
                      for first, count in steps(n, work, 1 / n))
            frames = _rebatch(steps_, game.unit(unit).batch)
        for df in frames:
            for s in mine:
                _add(totals, s, df)
    return totals


#: Hands and whole games per variant when none are given.
DEFAULT_HANDS, DEFAULT_GAMES = 1_000_000, 20_000


def compare(game: str, variants, players: int | None = None, hands: int | None = None,
            games: int | None = None, seed: int = 0, policy=None, threads: int | None = None,
            progress: bool = False, work: Work | None = None) -> dict[str, pd.DataFrame]:
    """Play ``hands`` hands (games played in hands) and ``games`` whole games
    under each of two rule variants of ``game``.

    ``variants``: two texts for :func:`parse_variant` (or ``(label, dict)``
    pairs).  Returns one DataFrame per section of the game's measures
    (differences are B - A) and ``variants`` (label, changes and every rule
    value).  Each table's ``attrs`` hold the game, labels, players, hands,
    games, seed and policies.  ``work`` (:class:`simkit.runner.Work`): report
    progress, stop when told.
    """
    g = registry.get(game)
    pairs = check_variants(g, variants)
    g.check_players(players)
    rng.run_key(seed)
    rules = [g.make_rules(overrides=ov, players=players) for _, ov in pairs]
    pols = g.make_policies(policy, rules[0].players)
    sections = g.measures(rules[0])
    if hands is not None and "hand" not in {s.unit for s in sections}:
        raise InputError(f"--hands does not apply: {g.title} is compared in whole games only; "
                         "give --games")
    hands = DEFAULT_HANDS if hands is None else hands
    games = DEFAULT_GAMES if games is None else games
    check_count(hands, "--hands")
    check_count(games, "--games")
    counts = {"hand": hands, "game": games}
    if work is not None:
        work.expect(2 * len({s.unit for s in sections}))
    ta, tb = (_totals(g, r, sections, counts, pols, seed, threads, progress, work)
              for r in rules)
    out = {s.name: _section_table(s, ta, tb) for s in sections}
    out["variants"] = pd.DataFrame([{"label": lab, "changes": _changes(ov), **r.as_dict()}
                                    for (lab, ov), r in zip(pairs, rules)])
    units = {s.unit for s in sections}
    attrs = {"game": g.name, "title": g.title, "labels": tuple(lab for lab, _ in pairs),
             "changes": tuple(_changes(ov) for _, ov in pairs),
             "players": rules[0].players, "hands": hands if "hand" in units else None,
             "games": games if "game" in units else None, "seed": int(seed),
             "policies": tuple(p.text() for p in pols),
             "headings": {s.name: s.heading.format(n=counts[s.unit]) for s in sections}}
    for df in out.values():
        df.attrs.update(attrs)
    return out


# --- text -----------------------------------------------------------------------------

def _p(p: float) -> str:
    if not math.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _sig(p: float) -> bool:
    return math.isfinite(p) and p < ALPHA


def _diff(d, lo, hi, percent: bool) -> str:
    if not math.isfinite(d):
        return "n/a"
    text = stats.format_estimate(d, lo, hi, 1, percent=percent,
                                 digits=None if hi > lo else (2 if percent else 3))
    return ("+" if d > 0 else "") + text.split(" (")[0]


def _val(x: float, percent: bool) -> str:
    if not math.isfinite(x):
        return "n/a"
    return f"{100 * x:.2f}%" if percent else f"{x:.3f}"


def _verdict(name: str, labels, pvals, what: str) -> str:
    p = list(pvals)
    sig = sum(_sig(v) for v in p)
    if sig == 0:
        return f"{name}: no difference between {labels[0]} and {labels[1]} is significant at 5%"
    return (f"{name}: {sig} of {len(p)} {what} differ significantly at 5% between "
            f"{labels[0]} and {labels[1]} (p < 0.05, no correction for multiple tests)")


def _metric_table(df: pd.DataFrame, labels) -> list[str]:
    a, b = labels
    w = max(len(m) for m in df["metric"]) + 2
    wv = max(12, len(a) + 2, len(b) + 2)
    lines = [f"{'':<{w}}{a:>{wv}}{b:>{wv}}   {'B - A [95% CI]':<34}{'p':>8}"]
    for row in df.itertuples():
        pct = row.kind == "rate"
        lines.append(f"{row.metric:<{w}}{_val(row.a, pct):>{wv}}{_val(row.b, pct):>{wv}}   "
                     f"{_diff(row.diff, row.ci_low, row.ci_high, pct):<34}{_p(row.p_value):>8}"
                     + (" *" if _sig(row.p_value) else ""))
    return lines


def _bid_table(bids: pd.DataFrame, labels) -> list[str]:
    la, lb = labels
    w1 = max(9, len(la) + 2, len(lb) + 2)
    w2 = max(11, len(la) + 7, len(lb) + 7)
    lines = [f"{'bid':<13}{la:>{w1}}{lb:>{w1}}   {'B - A [95% CI]':<30}{'p':>8}    "
             f"{'made ' + la:>{w2}}{'made ' + lb:>{w2}}   {'B - A [95% CI]':<30}{'p':>8}"]
    for row in bids.itertuples():
        left = (f"{row.bid:<13}{_val(row.rate_a, True):>{w1}}{_val(row.rate_b, True):>{w1}}   "
                f"{_diff(row.diff, row.ci_low, row.ci_high, True):<30}{_p(row.p_value):>8}"
                + (" * " if _sig(row.p_value) else "   "))
        right = ""
        if row.level:
            right = (f" {_val(row.made_a, True):>{w2}}{_val(row.made_b, True):>{w2}}   "
                     f"{_diff(row.made_diff, row.made_ci_low, row.made_ci_high, True):<30}"
                     f"{_p(row.made_p_value):>8}" + (" *" if _sig(row.made_p_value) else ""))
        lines.append((left + right).rstrip())
    pv = list(bids["p_value"]) + [v for v in bids["made_p_value"] if math.isfinite(v)]
    lines.append("verdict: " + _verdict("contracts", labels, pv, "shares and success rates"))
    return lines


def format_comparison(result: dict[str, pd.DataFrame]) -> str:
    """Every table as text, each with a one-line verdict (5% level)."""
    at = result["variants"].attrs
    labels = at["labels"]
    (la, lb), (ca, cb) = labels, at["changes"]
    lines = [f"{at['title']} rule variants, {at['players']} players, seed {at['seed']}: "
             f"A = {la} ({ca}), B = {lb} ({cb})",
             "B - A with its 95% interval and two-sided p-value; * = significant at 5%"]
    for name, df in result.items():
        if name == "variants":
            continue
        lines += ["", at["headings"][name]]
        if "bid" in df.columns:
            lines += _bid_table(df, labels)
        else:
            lines += _metric_table(df, labels)
            lines.append("verdict: " + _verdict(name, labels, df["p_value"], "measures"))
    lines += ["", "The two variants play the same deals; the tests treat them as independent, "
              "which is cautious."]
    return "\n".join(lines)


def comparison_json(result: dict[str, pd.DataFrame]) -> dict:
    """The comparison as JSON-ready data: the run's settings, then under
    ``tables`` each table as a list of records (NaN as None)."""
    at = result["variants"].attrs

    def records(df):
        out = []
        for rec in df.to_dict("records"):
            out.append({k: (None if isinstance(v, float) and not math.isfinite(v)
                            else v.item() if isinstance(v, np.generic) else v)
                        for k, v in rec.items()})
        return out

    return {"game": at["game"], "players": at["players"], "hands": at["hands"],
            "games": at["games"], "seed": at["seed"], "policies": list(at["policies"]),
            "labels": list(at["labels"]),
            "tables": {name: records(df) for name, df in
                       [("variants", result["variants"])]
                       + [(k, v) for k, v in result.items() if k != "variants"]}}
