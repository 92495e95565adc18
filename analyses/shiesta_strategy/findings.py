"""The shiesta-strategy study's findings: plain-language sentences computed from its tables
(:func:`findings`)."""

from __future__ import annotations

import math

import pandas as pd

from analyses.common import Tables, cell, percent, row_at, signed
from analyses.shiesta_strategy.simulate import BASE, POLICIES, RANDOM, SEED_PRESET, STUDY_PLAYERS
from simkit.base.rows import rows_of


def points(d: float, lo: float, hi: float) -> str:
    """A difference of proportions in percentage points with its 95% interval."""
    k = 2 if math.isfinite(hi - lo) and 100 * (hi - lo) < 0.2 else 1
    return (f"{signed(100 * d, k)} points (95% CI {signed(100 * lo, k)} to "
            f"{signed(100 * hi, k)})")


def turns(d: float, lo: float, hi: float) -> str:
    """A difference of mean turns with its 95% interval."""
    return f"{signed(d, 1)} turns (95% CI {signed(lo, 1)} to {signed(hi, 1)})"


def _unordered(rr: pd.DataFrame) -> pd.DataFrame:
    """One row per pair of the round robin (A before B in POLICIES)."""
    order = {lab: i for i, (lab, _) in enumerate(POLICIES)}
    return rr[rr["policy"].map(order) < rr["opponent"].map(order)]


def _versus(lo: float, hi: float, fair: float) -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "untested"
    return "above" if lo > fair else "below" if hi < fair else "consistent with"


def _seats_line(se: pd.DataFrame) -> str | None:
    """1. Seats: every starter's win rate against the fair 1/N, and the weakest seat."""
    starters = se[se["seat"] == 0]
    if not len(starters):
        return None
    parts = [f"{percent(r.win_rate, r.ci_low, r.ci_high, r.games)} with {r.players} players "
             f"({_versus(r.ci_low, r.ci_high, r.fair)} the fair {r.fair:.1%})"
             for r in rows_of(starters)]
    four = se[se["players"] == STUDY_PLAYERS]
    tail = ""
    if len(four):
        worst = row_at(four, four["win_rate"].idxmin())
        tail = (f"; with {STUDY_PLAYERS} players the weakest seat is {worst['seat_name']}, "
                f"{percent(worst['win_rate'], worst['ci_low'], worst['ci_high'])}")
    return "With heuristic players the starter wins " + ", ".join(parts) + tail + "."


def _round_robin_line(rr: pd.DataFrame, sc: pd.DataFrame) -> str | None:
    """2. The round robin: the best and worst policy, and how many pairings differ."""
    if not len(sc):
        return None
    best, worst = row_at(sc, sc["score"].idxmax()), row_at(sc, sc["score"].idxmin())
    pairs = _unordered(rr)
    n_sig = int((pairs["p_value"] < 0.05).sum())
    h = rr[(rr["policy"] == "heuristic")]
    ranked = sc.sort_values("score", ascending=False, kind="stable")
    level = ""
    if len(ranked) > 1:
        second = ranked.iloc[1]
        if second["ci_high"] >= best["ci_low"]:
            inline = percent(second["score"], second["ci_low"], second["ci_high"])
            inline = inline.replace(" (95% CI", ", 95% CI").rstrip(")")
            level = f" (level with {second['policy']} at {inline})"
    text = (f"In the {STUDY_PLAYERS}-player round robin (seats A B A B and B A B A) "
            f"{best['policy']} scores best, winning "
            f"{percent(best['score'], best['ci_low'], best['ci_high'], best['decisive'])} of "
            f"the decisive games at its tables{level}, and {worst['policy']} worst with "
            f"{percent(worst['score'], worst['ci_low'], worst['ci_high'])}; {n_sig} of the "
            f"{len(pairs)} pairings differ from an even split at p < 0.05")
    if len(h) and best["policy"] != "heuristic":
        vs = h[h["opponent"] == best["policy"]]
        if len(vs):
            v = vs.iloc[0]
            text += (f", and the default heuristic takes "
                     f"{percent(v['share'], v['ci_low'], v['ci_high'])} against "
                     f"{best['policy']}")
    return text + "."


def _specials_line(sp: pd.DataFrame) -> str | None:
    """3. Special cards: two of a rank against none, the largest gap first."""
    gaps: list[tuple[float, str, pd.DataFrame]] = []
    for rank, by_k in sp.groupby("rank", sort=False):
        d = by_k.set_index("k")
        if 0 in d.index and 2 in d.index and cell(d, 2, "player_games") > 0:
            gaps.append((cell(d, 2, "win_rate") - cell(d, 0, "win_rate"), str(rank), d))
    if not gaps:
        return None
    gaps.sort(key=lambda g: -g[0])
    _, rank, d = gaps[0]
    a, b = row_at(d, 2), row_at(d, 0)
    text = (f"Of the special cards the {rank} is worth most: a player dealt two {rank}s "
            f"wins {percent(a['win_rate'], a['ci_low'], a['ci_high'], a['player_games'])}"
            f" against {percent(b['win_rate'], b['ci_low'], b['ci_high'])} with none")
    rest = [f"{r}s {signed(100 * g, 1)} points" for g, r, _ in gaps[1:]]
    if rest:
        text += ("; two cards against none: " + ", ".join(rest))
    return text + f" ({STUDY_PLAYERS} heuristic players)."


def _length_line(gl: pd.DataFrame) -> str | None:
    """4. Game length: heuristic against random players, and the longest games."""
    h4 = gl[(gl["policy"] == BASE) & (gl["players"] == STUDY_PLAYERS)]
    r4 = gl[(gl["policy"] == RANDOM) & (gl["players"] == STUDY_PLAYERS)]
    if not (len(h4) and len(r4)):
        return None
    longest = row_at(gl, gl["mean_turns"].idxmax())
    h, r = h4.iloc[0], r4.iloc[0]
    if longest["p99"] < longest["max_turns"]:
        tail = f"99% within {longest['p99']:.0f}"
    else:
        rate = percent(longest["unfinished_rate"], longest["unfinished_ci_low"],
                       longest["unfinished_ci_high"])
        tail = f"{rate} reach the {int(longest['max_turns'])}-turn cap"
    return (
        f"A {STUDY_PLAYERS}-player heuristic game lasts a median {h['median']:.0f} "
        f"turns (90% of games: {h['p90']:.0f} or fewer, 99%: {h['p99']:.0f}; "
        f"mean {h['mean_turns']:.1f}, 95% CI {h['ci_low']:.1f}-{h['ci_high']:.1f}) "
        f"against a median {r['median']:.0f} with random players; the longest games "
        f"are {longest['policy']} {longest['players']}-player games, mean "
        f"{longest['mean_turns']:.1f} turns (95% CI {longest['ci_low']:.1f}-"
        f"{longest['ci_high']:.1f}), median {longest['median']:.0f}, and {tail}.")


def _variants_line(va: pd.DataFrame) -> str | None:
    """5. Variants: which changes game length and the starter's chances most."""
    v = va[va["preset"] != SEED_PRESET].dropna(subset=["turns_diff", "starter_diff"])
    v4 = v[v["players"] == STUDY_PLAYERS]
    if not len(v4):
        return None
    lt = row_at(v4, v4["turns_diff"].abs().idxmax())
    ls = row_at(v4, v4["starter_diff"].abs().idxmax())
    starter_pts = points(ls["starter_diff"], ls["starter_diff_ci_low"],
                         ls["starter_diff_ci_high"])
    text = (f"Of the {STUDY_PLAYERS}-player rule variants, {lt['preset']} changes game "
            f"length most, "
            f"{turns(lt['turns_diff'], lt['turns_diff_ci_low'], lt['turns_diff_ci_high'])} "
            f"on the seed's {lt['mean_turns'] - lt['turns_diff']:.1f}, and {ls['preset']} "
            f"the starter's win rate most, "
            f"{starter_pts} to "
            f"{percent(ls['starter_win_rate'], ls['starter_ci_low'], ls['starter_ci_high'])}")
    for r in rows_of(v[v["players"] != STUDY_PLAYERS]):
        text += (f"; {r.preset} with {r.players} players ({r.rules}) changes game length by "
                 f"{turns(r.turns_diff, r.turns_diff_ci_low, r.turns_diff_ci_high)} and the "
                 f"starter's win rate by "
                 f"{points(r.starter_diff, r.starter_diff_ci_low, r.starter_diff_ci_high)}")
    return text + "."


def _unfinished_line(gl: pd.DataFrame, rr: pd.DataFrame, va: pd.DataFrame) -> str | None:
    """6. Unfinished games: the base rate and the highest of every setting simulated."""
    settings = [(f"{r.policy} {r.players}-player tables", r) for r in rows_of(gl)]
    settings += [(f"{r.policy} against {r.opponent}", r) for r in rows_of(_unordered(rr))]
    settings += [(f"the {r.preset} variant ({r.players} players)", r)
                 for r in rows_of(va[va["preset"] != SEED_PRESET])]
    if not settings:
        return None
    name, top = max(settings, key=lambda s: s[1].unfinished_rate)
    base = gl[(gl["policy"] == BASE) & (gl["players"] == STUDY_PLAYERS)]
    if len(base):
        b = base.iloc[0]
        base_rate = percent(b["unfinished_rate"], b["unfinished_ci_low"],
                            b["unfinished_ci_high"])
        lead = (f"With {STUDY_PLAYERS} heuristic players under the seed's rules "
                f"{base_rate} of the games stop unfinished at the "
                f"{int(b['max_turns'])}-turn cap; the highest rate of all the settings "
                "simulated is ")
    else:
        lead = "The highest unfinished rate of all the settings simulated is "
    rate = percent(top.unfinished_rate, top.unfinished_ci_low, top.unfinished_ci_high,
                   top.games)
    return lead + f"{rate}, in {name}."


def findings(tables: Tables) -> list[str]:
    """Plain-language findings computed from the tables (no number typed in), one
    sentence per part of the study and one on unfinished games."""
    se, rr, sc, sp, gl, va = (tables[k] for k in ("seats", "round_robin", "policy_scores",
                                                  "specials", "game_length", "variants"))
    lines = (_seats_line(se), _round_robin_line(rr, sc), _specials_line(sp), _length_line(gl),
             _variants_line(va), _unfinished_line(gl, rr, va))
    return [line for line in lines if line is not None]
