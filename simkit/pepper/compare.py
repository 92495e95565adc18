"""Two Pepper rule sets side by side: ``simkit compare pepper --variant A: --variant B:all_pass=stick``.

Both variants play the same hands (the same seed, so hand ``i`` is dealt
from the same stream and by the same dealer under both) and the same games,
with the same policies.  Three tables, each difference being **B - A** with
a 95% interval and a two-sided p-value:

- ``bids``: per contract (and thrown-in hands), the share of hands ending in
  it and the rate at which it is made (:func:`simkit.stats.compare_proportions`);
- ``scores``: per played hand, the mean score change of the bidding side and
  of an opponent side, the rate of contracts made and the mean contract level
  (Welch, :func:`simkit.stats.compare_means`), and the thrown-in rate;
- ``games``: each side's win rate, the mean rounds per game and the rate of
  unfinished games.

The tests treat the two runs as independent samples.  They share their deals,
which usually makes the outcomes positively correlated, so the intervals and
p-values are on the cautious side.  Nothing corrects for the number of tests:
among many differences a few can fall below 5% by chance.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from simkit import stats
from simkit.errors import InputError
from simkit.runner import check_count
from simkit.pepper import api
from simkit.pepper.policies import make_policies
from simkit.pepper.rules import PepperRules, make_rules

ALPHA = 0.05
_LABEL = re.compile(r"^[A-Za-z0-9_.+-]+$")
_FORM = "LABEL or LABEL:key=value[,key=value...], e.g. A: or B:all_pass=stick,auction=one_lap"


def _check(label, overrides: dict, shown) -> tuple[str, dict]:
    """Validate a label and rule overrides (``shown``: the variant as the user gave it)."""
    if not isinstance(label, str) or not _LABEL.match(label):
        raise InputError(f"bad --variant {shown!r}: the label must be letters, digits or _.+- "
                         f"before the ':'; expected {_FORM}")
    if "players" in overrides:
        raise InputError(f"bad --variant {shown!r}: the player count is the same for both "
                         f"variants; set it with --players")
    try:
        make_rules(overrides=overrides)      # unknown keys and bad values raise here
    except InputError as e:
        raise InputError(f"bad --variant {shown!r}: {e}") from None
    return label, dict(overrides)


def parse_variant(text: str) -> tuple[str, dict[str, str]]:
    """``"B:all_pass=stick,auction=one_lap"`` -> ``("B", {"all_pass": "stick", "auction": "one_lap"})``.

    ``"A"`` or ``"A:"`` is the seed's rules.  Keys and values are checked with
    :func:`simkit.pepper.rules.make_rules`; ``players`` is set for both
    variants at once (``--players``), not per variant.
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
    return _check(label.strip(), overrides, text)


def _variants(variants) -> list[tuple[str, dict]]:
    """Two validated (label, overrides) pairs from texts or (label, dict) pairs."""
    if variants is None or isinstance(variants, (str, tuple)):
        variants = [] if variants is None else [variants]
    out = []
    for v in variants:
        if isinstance(v, str):
            out.append(parse_variant(v))
        elif isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], dict):
            out.append(_check(v[0], v[1], v))
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


# -- running ---------------------------------------------------------------------

def _hand_totals(rules: PepperRules, hands, policy, seed, threads, progress) -> dict:
    """Counts and exact sums (float64 of integers and halves) over ``hands`` hands."""
    L, P, S = rules.kubwa + 1, rules.players, rules.sides
    t = {"hands": 0, "count": np.zeros(L, np.int64), "made": np.zeros(L, np.int64),
         "played": 0, "made_all": 0}
    for k in ("own", "opp", "level"):
        t[k], t[k + "_sq"] = 0.0, 0.0
    for df in api.iter_hands(hands, rules=rules, policy=policy, seed=seed, threads=threads,
                             progress=progress):
        c = df["contract"].to_numpy(np.int64)
        made = df["made"].to_numpy(bool)
        t["hands"] += len(c)
        t["count"] += np.bincount(c, minlength=L)
        t["made"] += np.bincount(c[made], minlength=L)
        played = c > 0
        bidder = df["bidder"].to_numpy(np.int64)[played]
        side = bidder % 2 if P == 4 else bidder
        scores = df[[f"score_{s}" for s in range(S)]].to_numpy(np.float64)[played]
        own = scores[np.arange(len(side)), side]
        opp = (scores.sum(axis=1) - own) / (S - 1)
        lvl = c[played].astype(np.float64)
        t["played"] += int(played.sum())
        t["made_all"] += int(made[played].sum())
        for k, x in (("own", own), ("opp", opp), ("level", lvl)):
            t[k] += float(x.sum())
            t[k + "_sq"] += float((x * x).sum())
    return t


def _game_totals(rules: PepperRules, games, policy, seed, threads, progress) -> dict:
    df = api.simulate_games(games, rules=rules, policy=policy, seed=seed, threads=threads,
                            progress=progress)
    rounds = df["rounds"].to_numpy(np.float64)
    return {"games": len(df), "wins": [int(df[f"win_{s}"].sum()) for s in range(rules.sides)],
            "rounds": float(rounds.sum()), "rounds_sq": float((rounds * rounds).sum()),
            "unfinished": int(df["unfinished"].sum())}


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


def compare(variants, players: int = 4, hands: int = 1_000_000, games: int = 20_000,
            seed: int = 0, policy=None, threads: int | None = None,
            progress: bool = False) -> dict[str, pd.DataFrame]:
    """Play ``hands`` hands and ``games`` games under each of two rule variants.

    ``variants``: two texts for :func:`parse_variant` (or ``(label, dict)``
    pairs).  Returns the DataFrames ``bids``, ``scores``, ``games`` (see the
    module notes; differences are B - A) and ``variants`` (label, changes and
    every rule value).  Each table's ``attrs`` hold labels, players, hands,
    games and seed.
    """
    pairs = _variants(variants)
    if isinstance(players, bool) or players not in (2, 3, 4):
        raise InputError(f"bad player count {players!r}: Pepper is played by 2, 3 or 4 players")
    check_count(hands, "--hands")
    check_count(games, "--games")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise InputError(f"bad seed {seed!r}: expected a whole number from 0 to 2**64-1")
    rules = [make_rules(overrides=ov, players=players) for _, ov in pairs]
    pols = make_policies(policy, players)
    (la, _), (lb, _) = pairs

    ht = [_hand_totals(r, hands, pols, seed, threads, progress) for r in rules]
    gt = [_game_totals(r, games, pols, seed, threads, progress) for r in rules]
    r0 = rules[0]
    ha, hb = ht

    rows = []
    for level in range(r0.kubwa + 1):
        ca, cb = int(ha["count"][level]), int(hb["count"][level])
        if ca == 0 and cb == 0:
            continue
        share = stats.compare_proportions(cb, hb["hands"], ca, ha["hands"])
        row = {"bid": r0.bid_text(level) if level else "(thrown in)", "level": level,
               "hands_a": ca, "rate_a": ca / ha["hands"], "hands_b": cb, "rate_b": cb / hb["hands"],
               "diff": share["diff"], "ci_low": share["lo"], "ci_high": share["hi"],
               "p_value": share["p_value"]}
        ma, mb = int(ha["made"][level]), int(hb["made"][level])
        if level:
            made = stats.compare_proportions(mb, cb, ma, ca)
            row.update(made_a=ma / ca if ca else math.nan, made_b=mb / cb if cb else math.nan,
                       made_diff=made["diff"], made_ci_low=made["lo"], made_ci_high=made["hi"],
                       made_p_value=made["p_value"])
        else:
            row.update(made_a=math.nan, made_b=math.nan, made_diff=math.nan,
                       made_ci_low=math.nan, made_ci_high=math.nan, made_p_value=math.nan)
        rows.append(row)
    bids = pd.DataFrame(rows)

    scores = pd.DataFrame([
        _mean_row("bidding side points per hand", ha["played"], ha["own"], ha["own_sq"],
                  hb["played"], hb["own"], hb["own_sq"]),
        _mean_row("opponent side points per hand", ha["played"], ha["opp"], ha["opp_sq"],
                  hb["played"], hb["opp"], hb["opp_sq"]),
        _rate_row("contracts made", ha["made_all"], ha["played"], hb["made_all"], hb["played"]),
        _mean_row("mean contract level", ha["played"], ha["level"], ha["level_sq"],
                  hb["played"], hb["level"], hb["level_sq"]),
        _rate_row("thrown-in rate", int(ha["count"][0]), ha["hands"],
                  int(hb["count"][0]), hb["hands"]),
    ])

    ga, gb = gt
    grows = [_rate_row(f"side {s} win rate", ga["wins"][s], ga["games"], gb["wins"][s], gb["games"])
             for s in range(r0.sides)]
    grows.append(_mean_row("rounds per game", ga["games"], ga["rounds"], ga["rounds_sq"],
                           gb["games"], gb["rounds"], gb["rounds_sq"]))
    grows.append(_rate_row("unfinished games", ga["unfinished"], ga["games"],
                           gb["unfinished"], gb["games"]))
    games_t = pd.DataFrame(grows)

    variants_t = pd.DataFrame([{"label": lab, "changes": _changes(ov), **r.as_dict()}
                               for (lab, ov), r in zip(pairs, rules)])
    attrs = {"labels": (la, lb), "changes": tuple(_changes(ov) for _, ov in pairs),
             "players": players, "hands": hands, "games": games, "seed": int(seed),
             "policies": tuple(p.text() for p in pols)}
    out = {"bids": bids, "scores": scores, "games": games_t, "variants": variants_t}
    for df in out.values():
        df.attrs.update(attrs)
    return out


# -- text ------------------------------------------------------------------------

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


def format_comparison(result: dict[str, pd.DataFrame]) -> str:
    """The three tables as text, each with a one-line verdict (5% level)."""
    bids, scores, games = result["bids"], result["scores"], result["games"]
    at = bids.attrs
    la, lb = at["labels"]
    ca, cb = at["changes"]
    lines = [f"Pepper rule variants, {at['players']} players, seed {at['seed']}: "
             f"A = {la} ({ca}), B = {lb} ({cb})",
             "B - A with its 95% interval and two-sided p-value; * = significant at 5%", "",
             f"Contracts: share of {at['hands']:,} hands and success rate"]
    w1 = max(9, len(la) + 2, len(lb) + 2)
    w2 = max(11, len(la) + 7, len(lb) + 7)
    lines.append(f"{'bid':<13}{la:>{w1}}{lb:>{w1}}   {'B - A [95% CI]':<30}{'p':>8}    "
                 f"{'made ' + la:>{w2}}{'made ' + lb:>{w2}}   {'B - A [95% CI]':<30}{'p':>8}")
    for row in bids.itertuples():
        left = (f"{row.bid:<13}{_val(row.rate_a, True):>{w1}}{_val(row.rate_b, True):>{w1}}   "
                f"{_diff(row.diff, row.ci_low, row.ci_high, True):<30}{_p(row.p_value):>8}"
                + (" * " if _sig(row.p_value) else "   "))
        if row.level:
            right = (f" {_val(row.made_a, True):>{w2}}{_val(row.made_b, True):>{w2}}   "
                     f"{_diff(row.made_diff, row.made_ci_low, row.made_ci_high, True):<30}"
                     f"{_p(row.made_p_value):>8}" + (" *" if _sig(row.made_p_value) else ""))
        else:
            right = ""
        lines.append((left + right).rstrip())
    pv = list(bids["p_value"]) + [v for v in bids["made_p_value"] if math.isfinite(v)]
    lines.append("verdict: " + _verdict("contracts", (la, lb), pv,
                                        "shares and success rates"))
    lines += ["", f"Scores per played hand ({at['hands']:,} hands)"]
    lines += _metric_table(scores, (la, lb))
    lines.append("verdict: " + _verdict("scores", (la, lb), scores["p_value"], "measures"))
    lines += ["", f"Games ({at['games']:,} whole games; tied top sides all win)"]
    lines += _metric_table(games, (la, lb))
    lines.append("verdict: " + _verdict("games", (la, lb), games["p_value"], "measures"))
    lines += ["", "The two variants play the same deals; the tests treat them as independent, "
              "which is cautious."]
    return "\n".join(lines)


def comparison_json(result: dict[str, pd.DataFrame]) -> dict:
    """The comparison as JSON-ready data: the run's settings, then under
    ``tables`` each table as a list of records (NaN as None)."""
    at = result["bids"].attrs

    def records(df):
        out = []
        for rec in df.to_dict("records"):
            out.append({k: (None if isinstance(v, float) and not math.isfinite(v)
                            else v.item() if isinstance(v, np.generic) else v)
                        for k, v in rec.items()})
        return out

    return {"game": "pepper", "players": at["players"], "hands": at["hands"],
            "games": at["games"], "seed": at["seed"], "policies": list(at["policies"]),
            "labels": list(at["labels"]),
            "tables": {name: records(result[name])
                       for name in ("variants", "bids", "scores", "games")}}
