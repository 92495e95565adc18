"""Shiesta: win rates by seat, a round robin of policies, the value of the
special cards, game length, and what each rule variant changes
(seeds/shiesta.md).

``hands`` (``DEFAULT_HANDS`` by default) is the number of **games** of each
simulated table (Shiesta is played in whole games; the study contract calls
the size ``hands``).  The study plays these tables, in this order:

- the seed's rules with ``heuristic`` at every seat, 3, 4 and 5 players
  (parts 1, 3 and 4, and the baselines of part 5);
- the seed's rules with ``random`` at every seat, 3, 4 and 5 players (part 4);
- the round robin (part 2): for every pair of policies A, B of
  :data:`POLICIES`, two 4-player tables, seats A B A B and B A B A;
- the variants (part 5): every preset of ``simkit.shiesta.rules.PRESETS``
  other than ``seed`` with 4 heuristic players, and ``five-one-deck`` also
  with 5.

Table ``i`` of that order plays games ``i * hands .. (i + 1) * hands - 1`` of
the run's seed, so no two tables share a random stream: every comparison is
between independent samples, as the intervals and tests assume.  Tables are
read in batches and reduced to counts at once, so memory does not grow with
``hands``.  A game that reaches the turn cap (``max_turns``, 1000) is
unfinished: it has no winner and counts as a loss for every seat.

Tables (``ci_low``/``ci_high`` are 95% intervals: Clopper-Pearson for
proportions, t intervals for means, order-statistic intervals for quantiles,
Newcombe for differences of proportions, Welch for differences of means):

- ``seats``: players, seat (0 = the starter, 1 = left of the starter, ...),
  win rate with interval, the fair 1/N, the share of finished games and its
  exact binomial p-value against 1/N, unfinished rate with interval.
- ``round_robin``: policy A, opponent B, A's share of the decisive games of
  the two tables with interval and p-value against 1/2, unfinished rate.
- ``policy_scores``: each policy's share of the decisive games of all its
  round-robin tables, with interval and p-value against 1/2.
- ``specials``: win rate of a player dealt k (0, 1, 2, 3+) cards of rank 2,
  3, 7 or 10 at a 4-player heuristic table.
- ``game_length``: turns per game (mean, median, 90% and 99% quantiles, each
  with interval) for 3-5 players, heuristic and random tables.
- ``turns_histogram``: the share of games in each 10-turn bin of those tables.
- ``variants``: each preset's starter win rate, mean turns and unfinished
  rate, and each one's difference from the seed's rules at the same player
  count.
"""

from __future__ import annotations

import itertools
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import PercentFormatter
from scipy import stats as sst

from analyses.common import (
    Plot,
    Study,
    diff_cols,
    difference_panels,
    errorbar,
    percent,
    player_color,
    proportion,
    signed,
)
from simkit import stats
from simkit.report import StudyResult
from simkit.shiesta.api import simulate_games
from simkit.shiesta.policies import make_policies
from simkit.shiesta.rules import PRESETS, SPECIAL_TEXT, ShiestaRules, make_rules

NAME = "shiesta-strategy"
TITLE = "Shiesta: seats, strategies, special cards and variants"
#: Games per simulated table (45 tables: 3 heuristic and 3 random, 30 round robin, 9 variants).
DEFAULT_HANDS = 200_000

PLAYERS = (3, 4, 5)
STUDY_PLAYERS = 4
BASE = "heuristic"
RANDOM = "random"
#: Round-robin policies: (label, spec).
POLICIES = (
    ("random", "random"),
    ("heuristic", "heuristic"),
    ("keep", "heuristic:exchange=keep"),
    ("spend-specials", "heuristic:save_specials=false"),
    ("burn-at-3", "heuristic:burn_at=3"),
    ("three-at-6", "heuristic:three_at=6"),
)
SEED_PRESET = "seed"
FIVE = "five-one-deck"
#: (preset, players) of part 5, the seed's rules excluded.
VARIANTS = tuple((p, STUDY_PLAYERS) for p in PRESETS if p != SEED_PRESET) + ((FIVE, 5),)
DEALT = ("0", "1", "2", "3+")
QUANTILES = ((0.5, "median"), (0.9, "p90"), (0.99, "p99"))
BIN = 10                              # turns per bin of turns_histogram
BATCH = 1 << 17                       # games per batch read from the engine
LENGTH_POLICIES = (BASE, RANDOM)


def _seat_name(seat: int) -> str:
    if seat == 0:
        return "starter"
    return f"{seat} left of the starter"


def _spec_text(spec: str) -> str:
    return make_policies(spec, 1)[0].text()


# ---------------------------------------------------------------- simulation

class _Table:
    """Counts over one simulated table, filled batch by batch."""

    def __init__(self, players: int, rules: ShiestaRules):
        N = self.players = players
        self.games = self.unfinished = self.longest_finished = 0
        self.max_turns = max_turns = rules.max_turns
        # the deal: cards in the decks, copies of each rank, cards dealt to each player
        self.deck, self.copies, self.dealt = rules.cards, 4 * rules.n_decks, 6 + rules.hand_size
        self.rel_wins = np.zeros(N, np.int64)        # by seat relative to the starter
        self.abs_wins = np.zeros(N, np.int64)        # by seat number
        self.turns = np.zeros(max_turns + 1, np.int64)
        # [rank of SPECIAL_TEXT, k dealt (3 = 3 or more)] over player-games
        self.sp_n = np.zeros((len(SPECIAL_TEXT), len(DEALT)), np.int64)
        self.sp_wins = np.zeros_like(self.sp_n)
        self.sp_unf = np.zeros_like(self.sp_n)

    def add(self, df: pd.DataFrame) -> None:
        N = self.players
        unf = df["unfinished"].to_numpy()
        winner = df["winner"].to_numpy().astype(np.int64)
        seat = df["winner_seat"].to_numpy().astype(np.int64)
        fin = seat >= 0
        self.games += len(df)
        self.unfinished += int(unf.sum())
        self.rel_wins += np.bincount(seat[fin], minlength=N)[:N]
        self.abs_wins += np.bincount(winner[fin], minlength=N)[:N]
        t = df["turns"].to_numpy().astype(np.int64)
        if fin.any():
            self.longest_finished = max(self.longest_finished, int(t[fin].max()))
        turns = np.bincount(t)
        if len(turns) > len(self.turns):
            self.turns = np.pad(self.turns, (0, len(turns) - len(self.turns)))
        self.turns[:len(turns)] += turns
        K = len(DEALT)
        for i, t in enumerate(SPECIAL_TEXT):
            for s in range(N):
                k = np.minimum(df[f"dealt_{t}_{s}"].to_numpy().astype(np.int64), K - 1)
                self.sp_n[i] += np.bincount(k, minlength=K)
                self.sp_wins[i] += np.bincount(k[winner == s], minlength=K)
                self.sp_unf[i] += np.bincount(k[unf], minlength=K)


def _play(players: int, rules: str, policy, games: int, start: int, seed: int, threads,
          progress: bool) -> _Table:
    r = make_rules(rules, players=players)
    t = _Table(players, r)
    done = 0
    while done < games:
        count = min(BATCH, games - done)
        df = simulate_games(count, players=players, rules=rules, policy=policy, seed=seed,
                            start=start + done, threads=threads, progress=progress)
        t.add(df)
        done += count
        del df
    return t


def plan() -> list[tuple]:
    """The simulated tables in stream order: (kind, players, preset, policies, key)."""
    out: list[tuple] = []
    for p in PLAYERS:
        out.append(("base", p, SEED_PRESET, BASE, p))
    for p in PLAYERS:
        out.append(("random", p, SEED_PRESET, RANDOM, p))
    for (la, a), (lb, b) in itertools.combinations(POLICIES, 2):
        out.append(("pair", STUDY_PLAYERS, SEED_PRESET, [a, b, a, b], (la, lb, 0)))
        out.append(("pair", STUDY_PLAYERS, SEED_PRESET, [b, a, b, a], (la, lb, 1)))
    for preset, p in VARIANTS:
        out.append(("variant", p, preset, BASE, (preset, p)))
    return out


def _binom_p(k: int, n: int, p: float) -> float:
    return float(sst.binomtest(int(k), int(n), p).pvalue) if n > 0 else math.nan


def _unf_cols(unfinished: int, games: int) -> dict:
    r, lo, hi = proportion(unfinished, games)
    return {"unfinished": int(unfinished), "unfinished_rate": float(r),
            "unfinished_ci_low": float(lo), "unfinished_ci_high": float(hi)}


# ---------------------------------------------------------------- tables

def _seat_rows(t: _Table) -> list[dict]:
    N, n = t.players, t.games
    finished = n - t.unfinished
    rows = []
    for s in range(N):
        w = int(t.rel_wins[s])
        r, lo, hi = proportion(w, n)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = w / finished if finished else math.nan
        rows.append({"players": N, "seat": s, "seat_name": _seat_name(s), "games": n,
                     "wins": w, "win_rate": float(r), "ci_low": float(lo), "ci_high": float(hi),
                     "fair": 1 / N, "diff": float(r) - 1 / N, "finished": finished,
                     "finished_share": share, "p_value": _binom_p(w, finished, 1 / N),
                     **_unf_cols(t.unfinished, n)})
    return rows


def _pair_rows(la: str, lb: str, t1: _Table, t2: _Table) -> list[dict]:
    """A's and B's rows of one pair: t1 seats A B A B, t2 seats B A B A."""
    a_wins = int(t1.abs_wins[0::2].sum() + t2.abs_wins[1::2].sum())
    b_wins = int(t1.abs_wins[1::2].sum() + t2.abs_wins[0::2].sum())
    games = t1.games + t2.games
    unf = t1.unfinished + t2.unfinished
    decisive = a_wins + b_wins
    p = _binom_p(a_wins, decisive, 0.5)
    rows = []
    for me, other, w in ((la, lb, a_wins), (lb, la, b_wins)):
        r, lo, hi = proportion(w, decisive)
        rows.append({"policy": me, "opponent": other, "players": STUDY_PLAYERS, "tables": 2,
                     "games": games, "decisive": decisive, "wins": w, "share": float(r),
                     "ci_low": float(lo), "ci_high": float(hi), "p_value": p,
                     **_unf_cols(unf, games)})
    return rows


def _score_rows(rr: pd.DataFrame) -> list[dict]:
    rows = []
    for lab, spec in POLICIES:
        d = rr[rr["policy"] == lab]
        w, n = int(d["wins"].sum()), int(d["decisive"].sum())
        games, unf = int(d["games"].sum()), int(d["unfinished"].sum())
        r, lo, hi = proportion(w, n)
        rows.append({"policy": lab, "spec": _spec_text(spec), "opponents": len(d),
                     "tables": int(d["tables"].sum()), "games": games, "decisive": n,
                     "wins": w, "score": float(r), "ci_low": float(lo), "ci_high": float(hi),
                     "p_value": _binom_p(w, n, 0.5),
                     "beats": int((d["ci_low"] > 0.5).sum()),
                     "loses_to": int((d["ci_high"] < 0.5).sum()),
                     **_unf_cols(unf, games)})
    return rows


def _special_rows(t: _Table) -> list[dict]:
    rows = []
    total = t.sp_n.sum(axis=1)
    chance = sst.hypergeom(t.deck, t.copies, t.dealt).pmf(np.arange(t.copies + 1))
    chance = np.append(chance[:len(DEALT) - 1], chance[len(DEALT) - 1:].sum())
    for i, rank in enumerate(SPECIAL_TEXT):
        for k, dealt in enumerate(DEALT):
            n, w = int(t.sp_n[i, k]), int(t.sp_wins[i, k])
            r, lo, hi = proportion(w, n)
            u = int(t.sp_unf[i, k])
            ur, ulo, uhi = proportion(u, n)
            share = n / total[i] if total[i] else math.nan
            rows.append({"rank": rank, "dealt": dealt, "k": k, "players": t.players,
                         "player_games": n, "share_of_players": share,
                         "deal_chance": float(chance[k]), "wins": w, "win_rate": float(r),
                         "ci_low": float(lo), "ci_high": float(hi), "fair": 1 / t.players,
                         "unfinished": u,
                         "unfinished_rate": float(ur), "unfinished_ci_low": float(ulo),
                         "unfinished_ci_high": float(uhi)})
    return rows


def _quantile(hist: np.ndarray, q: float) -> tuple[float, float, float]:
    """The q-quantile (inverse of the empirical CDF) of a histogram of whole
    values and its distribution-free 95% interval from order statistics."""
    n = int(hist.sum())
    if n == 0:
        return math.nan, math.nan, math.nan
    cum = np.cumsum(hist)

    def at(rank):                         # value of the rank-th smallest (1-based)
        return float(np.searchsorted(cum, min(max(int(rank), 1), n)))

    est = max(math.ceil(q * n), 1)
    lo = sst.binom.ppf(0.025, n, q)
    hi = sst.binom.ppf(0.975, n, q) + 1
    return at(est), min(at(lo), at(est)), max(at(hi), at(est))


def _turn_stats(t: _Table) -> dict:
    h = t.turns
    x = np.arange(len(h), dtype=float)
    n = int(h.sum())
    s, ss = float((x * h).sum()), float((x * x * h).sum())
    m, lo, hi = stats.mean_ci(n, s, ss)
    sd = math.sqrt(max(ss - s * s / n, 0.0) / (n - 1)) if n > 1 else math.nan
    out = {"games": n, "mean_turns": float(m), "ci_low": float(lo), "ci_high": float(hi),
           "sd": sd}
    for q, name in QUANTILES:
        e, qlo, qhi = _quantile(h, q)
        out.update({name: e, f"{name}_ci_low": qlo, f"{name}_ci_high": qhi})
    out["max"] = int(np.flatnonzero(h).max()) if n else 0
    out["turn_sum"], out["turn_sum_sq"] = s, ss
    return out


def _length_row(policy: str, t: _Table) -> dict:
    st = _turn_stats(t)
    st.pop("turn_sum"), st.pop("turn_sum_sq")
    return {"policy": policy, "players": t.players, **st,
            "longest_finished": t.longest_finished, "max_turns": t.max_turns,
            **_unf_cols(t.unfinished, t.games)}


def _hist_rows(policy: str, t: _Table) -> list[dict]:
    h = t.turns
    edges = np.arange(0, len(h) + BIN, BIN)
    counts = np.add.reduceat(np.pad(h, (0, edges[-1] - len(h))), edges[:-1])
    r, lo, hi = proportion(counts, np.full(len(counts), t.games))
    return [{"policy": policy, "players": t.players, "turns_from": int(edges[i]),
             "turns_to": int(edges[i + 1] - 1), "games": t.games, "count": int(counts[i]),
             "share": float(r[i]), "ci_low": float(lo[i]), "ci_high": float(hi[i])}
            for i in range(len(counts))]


def _variant_row(preset: str, t: _Table, base: _Table | None) -> dict:
    n = t.games
    k = int(t.rel_wins[0])
    r, lo, hi = proportion(k, n)
    st = _turn_stats(t)
    row = {"preset": preset, "players": t.players,
           "rules": ", ".join(f"{a}={b}" for a, b in PRESETS[preset].items()) or "(the seed's)",
           "games": n, "starter_wins": k, "starter_win_rate": float(r),
           "starter_ci_low": float(lo), "starter_ci_high": float(hi), "fair": 1 / t.players,
           "mean_turns": st["mean_turns"], "turns_ci_low": st["ci_low"],
           "turns_ci_high": st["ci_high"], **_unf_cols(t.unfinished, n)}
    diffs = dict.fromkeys(("starter", "turns", "unfinished"))     # a baseline: no differences
    if base is not None:
        bs = _turn_stats(base)
        diffs = {"starter": stats.compare_proportions(k, n, int(base.rel_wins[0]), base.games),
                 "turns": stats.compare_means(n, st["turn_sum"], st["turn_sum_sq"],
                                              base.games, bs["turn_sum"], bs["turn_sum_sq"]),
                 "unfinished": stats.compare_proportions(t.unfinished, n, base.unfinished,
                                                         base.games)}
    for name, d in diffs.items():
        row.update(diff_cols(name, d))
    return row


def simulate_tables(hands: int = DEFAULT_HANDS, seed: int = 0, progress: bool = False,
                    threads: int | None = None) -> dict[str, pd.DataFrame]:
    """Play every table of the study and return its tables (module docstring)."""
    from tqdm import tqdm

    base: dict[int, _Table] = {}
    rand: dict[int, _Table] = {}
    pairs: dict[tuple, _Table] = {}
    variants: dict[tuple, _Table] = {}
    runs = plan()
    with tqdm(runs, desc=NAME, unit="table", disable=not progress, leave=False,
              dynamic_ncols=True) as bar:
        for i, (kind, players, preset, policy, key) in enumerate(bar):
            bar.set_postfix_str(f"{kind} {key}")
            t = _play(players, preset, policy, hands, i * hands, seed, threads, progress)
            {"base": base, "random": rand, "pair": pairs, "variant": variants}[kind][key] = t

    seat_rows = [r for p in PLAYERS for r in _seat_rows(base[p])]
    rr_rows = []
    for (la, _), (lb, _) in itertools.combinations(POLICIES, 2):
        rr_rows += _pair_rows(la, lb, pairs[(la, lb, 0)], pairs[(la, lb, 1)])
    order = {lab: i for i, (lab, _) in enumerate(POLICIES)}
    rr = (pd.DataFrame(rr_rows)
          .sort_values(["policy", "opponent"], key=lambda c: c.map(order), kind="stable")
          .reset_index(drop=True))
    length_rows, hist_rows = [], []
    for policy, tabs in ((BASE, base), (RANDOM, rand)):
        for p in PLAYERS:
            length_rows.append(_length_row(policy, tabs[p]))
            hist_rows += _hist_rows(policy, tabs[p])
    var_rows = [_variant_row(SEED_PRESET, base[STUDY_PLAYERS], None)]
    var_rows += [_variant_row(pr, variants[(pr, p)], base[p])
                 for pr, p in VARIANTS if p == STUDY_PLAYERS]
    five = [(pr, p) for pr, p in VARIANTS if p != STUDY_PLAYERS]
    if five:
        var_rows.append(_variant_row(SEED_PRESET, base[five[0][1]], None))
        var_rows += [_variant_row(pr, variants[(pr, p)], base[p]) for pr, p in five]
    return {
        "seats": pd.DataFrame(seat_rows),
        "round_robin": rr,
        "policy_scores": pd.DataFrame(_score_rows(rr)),
        "specials": pd.DataFrame(_special_rows(base[STUDY_PLAYERS])),
        "game_length": pd.DataFrame(length_rows),
        "turns_histogram": pd.DataFrame(hist_rows),
        "variants": pd.DataFrame(var_rows),
    }


# ---------------------------------------------------------------- summary

def points(d, lo, hi) -> str:
    """A difference of proportions in percentage points with its 95% interval."""
    k = 2 if math.isfinite(hi - lo) and 100 * (hi - lo) < 0.2 else 1
    return (f"{signed(100 * d, k)} points (95% CI {signed(100 * lo, k)} to "
            f"{signed(100 * hi, k)})")


def turns(d, lo, hi) -> str:
    """A difference of mean turns with its 95% interval."""
    return f"{signed(d, 1)} turns (95% CI {signed(lo, 1)} to {signed(hi, 1)})"


def _unordered(rr: pd.DataFrame) -> pd.DataFrame:
    """One row per pair of the round robin (A before B in POLICIES)."""
    order = {lab: i for i, (lab, _) in enumerate(POLICIES)}
    return rr[rr["policy"].map(order) < rr["opponent"].map(order)]


def _versus(lo, hi, fair) -> str:
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
             for r in starters.itertuples()]
    four = se[se["players"] == STUDY_PLAYERS]
    tail = ""
    if len(four):
        worst = four.loc[four["win_rate"].idxmin()]
        tail = (f"; with {STUDY_PLAYERS} players the weakest seat is {worst['seat_name']}, "
                f"{percent(worst['win_rate'], worst['ci_low'], worst['ci_high'])}")
    return "With heuristic players the starter wins " + ", ".join(parts) + tail + "."


def _round_robin_line(rr: pd.DataFrame, sc: pd.DataFrame) -> str | None:
    """2. The round robin: the best and worst policy, and how many pairings differ."""
    if not len(sc):
        return None
    best, worst = sc.loc[sc["score"].idxmax()], sc.loc[sc["score"].idxmin()]
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
    gaps = []
    for rank, d in sp.groupby("rank", sort=False):
        d = d.set_index("k")
        if 0 in d.index and 2 in d.index and d.loc[2, "player_games"] > 0:
            gaps.append((d.loc[2, "win_rate"] - d.loc[0, "win_rate"], rank, d))
    if not gaps:
        return None
    gaps.sort(key=lambda g: -g[0])
    _, rank, d = gaps[0]
    a, b = d.loc[2], d.loc[0]
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
    longest = gl.loc[gl["mean_turns"].idxmax()]
    h4, r4 = h4.iloc[0], r4.iloc[0]
    if longest["p99"] < longest["max_turns"]:
        tail = f"99% within {longest['p99']:.0f}"
    else:
        rate = percent(longest["unfinished_rate"], longest["unfinished_ci_low"],
                       longest["unfinished_ci_high"])
        tail = f"{rate} reach the {int(longest['max_turns'])}-turn cap"
    return (
        f"A {STUDY_PLAYERS}-player heuristic game lasts a median {h4['median']:.0f} "
        f"turns (90% of games: {h4['p90']:.0f} or fewer, 99%: {h4['p99']:.0f}; "
        f"mean {h4['mean_turns']:.1f}, 95% CI {h4['ci_low']:.1f}-{h4['ci_high']:.1f}) "
        f"against a median {r4['median']:.0f} with random players; the longest games "
        f"are {longest['policy']} {longest['players']}-player games, mean "
        f"{longest['mean_turns']:.1f} turns (95% CI {longest['ci_low']:.1f}-"
        f"{longest['ci_high']:.1f}), median {longest['median']:.0f}, and {tail}.")


def _variants_line(va: pd.DataFrame) -> str | None:
    """5. Variants: which changes game length and the starter's chances most."""
    v = va[va["preset"] != SEED_PRESET].dropna(subset=["turns_diff", "starter_diff"])
    v4 = v[v["players"] == STUDY_PLAYERS]
    if not len(v4):
        return None
    lt = v4.loc[v4["turns_diff"].abs().idxmax()]
    ls = v4.loc[v4["starter_diff"].abs().idxmax()]
    starter_pts = points(ls["starter_diff"], ls["starter_diff_ci_low"],
                         ls["starter_diff_ci_high"])
    text = (f"Of the {STUDY_PLAYERS}-player rule variants, {lt['preset']} changes game "
            f"length most, "
            f"{turns(lt['turns_diff'], lt['turns_diff_ci_low'], lt['turns_diff_ci_high'])} "
            f"on the seed's {lt['mean_turns'] - lt['turns_diff']:.1f}, and {ls['preset']} "
            f"the starter's win rate most, "
            f"{starter_pts} to "
            f"{percent(ls['starter_win_rate'], ls['starter_ci_low'], ls['starter_ci_high'])}")
    for r in v[v["players"] != STUDY_PLAYERS].itertuples():
        text += (f"; {r.preset} with {r.players} players ({r.rules}) changes game length by "
                 f"{turns(r.turns_diff, r.turns_diff_ci_low, r.turns_diff_ci_high)} and the "
                 f"starter's win rate by "
                 f"{points(r.starter_diff, r.starter_diff_ci_low, r.starter_diff_ci_high)}")
    return text + "."


def _unfinished_line(gl: pd.DataFrame, rr: pd.DataFrame, va: pd.DataFrame) -> str | None:
    """6. Unfinished games: the base rate and the highest of every setting simulated."""
    settings = [(f"{r.policy} {r.players}-player tables", r) for r in gl.itertuples()]
    settings += [(f"{r.policy} against {r.opponent}", r) for r in _unordered(rr).itertuples()]
    settings += [(f"the {r.preset} variant ({r.players} players)", r)
                 for r in va[va["preset"] != SEED_PRESET].itertuples()]
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


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings computed from the tables (no number typed in), one
    sentence per part of the study and one on unfinished games."""
    se, rr, sc, sp, gl, va = (tables[k] for k in ("seats", "round_robin", "policy_scores",
                                                  "specials", "game_length", "variants"))
    lines = (_seats_line(se), _round_robin_line(rr, sc), _specials_line(sp), _length_line(gl),
             _variants_line(va), _unfinished_line(gl, rr, va))
    return [line for line in lines if line is not None]


# ---------------------------------------------------------------- figures

def _color(players: int):
    return player_color(players, PLAYERS, 0.4)


def _seats(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    se = tables["seats"]
    fig, ax = plt.subplots(figsize=(8, 5))
    for p, d in se.groupby("players"):
        u = d.iloc[0]
        errorbar(ax, d["seat"] + (p - 4) * 0.05, d["win_rate"], d["ci_low"], d["ci_high"],
                 color=_color(p), label=f"{p} players (unfinished {u['unfinished_rate']:.2%})")
        ax.axhline(1 / p, color=_color(p), ls="--", lw=0.9)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xticks(range(max(PLAYERS)), ["starter"] + [f"+{s}" for s in range(1, max(PLAYERS))])
    ax.set_xlabel("seat, counted clockwise from the starter")
    ax.set_ylabel("win rate")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Win rate by seat, heuristic players (dashed: fair 1/N)")
    fig.tight_layout()
    return fig


def _pairs_panel(fig, ax, rr: pd.DataFrame, labels: list[str]) -> None:
    """A's share of the decisive games against B, as a matrix (n.s.: p >= 0.05)."""
    M = np.full((len(labels), len(labels)), np.nan)
    for r in rr.itertuples():
        M[labels.index(r.policy), labels.index(r.opponent)] = r.share
    dev = np.nanmax(np.abs(M - 0.5)) if np.isfinite(M).any() else 0.1
    im = ax.imshow(M, cmap="RdBu", vmin=0.5 - dev, vmax=0.5 + dev)
    sig = {(r.policy, r.opponent): r.p_value < 0.05 for r in rr.itertuples()}
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            if i != j and math.isfinite(M[i, j]):
                ax.text(j, i, f"{100 * M[i, j]:.1f}%" + ("" if sig.get((a, b)) else "\n(n.s.)"),
                        ha="center", va="center", fontsize=8,
                        color="white" if abs(M[i, j] - 0.5) > 0.6 * dev else "black")
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("opponent B")
    ax.set_ylabel("policy A")
    ax.set_title("A's share of the decisive games, A vs B")
    fig.colorbar(im, ax=ax, format=PercentFormatter(1.0), shrink=0.85)


def _round_robin(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    rr, sc = tables["round_robin"], tables["policy_scores"]
    labels = list(sc["policy"])
    fig, axes = plt.subplots(1, 2, figsize=(14, 5.5), gridspec_kw={"width_ratios": [1.25, 1]})
    _pairs_panel(fig, axes[0], rr, labels)
    ax = axes[1]
    y = np.arange(len(sc))
    sc_lo, sc_hi = sc["ci_low"].to_numpy(float), sc["ci_high"].to_numpy(float)
    s = sc["score"].to_numpy(float)
    ax.errorbar(s, y, xerr=np.nan_to_num(np.vstack([s - sc_lo, sc_hi - s])), fmt="o",
                capsize=3, color="tab:blue")
    ax.axvline(0.5, color="k", lw=0.8)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("share of the decisive games at all its tables")
    ax.set_title("overall score (95% intervals)")
    ax.grid(alpha=0.3)
    fig.suptitle(f"Round robin of policies, {STUDY_PLAYERS} players")
    fig.tight_layout()
    return fig


def _specials(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    sp = tables["specials"]
    fig, ax = plt.subplots(figsize=(8, 5))
    colors = dict(zip(SPECIAL_TEXT, ("tab:blue", "tab:red", "tab:green", "tab:orange")))
    for i, (rank, d) in enumerate(sp.groupby("rank", sort=False)):
        d = d[d["player_games"] > 0]
        errorbar(ax, d["k"] + (i - 1.5) * 0.04, d["win_rate"], d["ci_low"], d["ci_high"],
                 color=colors.get(rank), label=f"{rank}s")
    if len(sp):
        ax.axhline(sp["fair"].iloc[0], color="k", ls="--", lw=0.8)
    ax.set_xticks(range(len(DEALT)), DEALT)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("cards of that rank among the player's 11 dealt cards")
    ax.set_ylabel("win rate")
    ax.grid(alpha=0.3)
    ax.legend(title="rank")
    ax.set_title(f"The value of the special cards ({STUDY_PLAYERS} heuristic players; dashed: "
                 "fair 1/N)")
    fig.tight_layout()
    return fig


def _length_panel(ax, hi: pd.DataFrame, gl: pd.DataFrame, pol: str) -> None:
    """The distribution of game length with policy ``pol``, one line per player count."""
    for p, d in hi[hi["policy"] == pol].groupby("players"):
        q = gl[(gl["policy"] == pol) & (gl["players"] == p)]
        cap = int(q["max_turns"].iloc[0]) if len(q) else None
        body = d[d["turns_to"] < cap] if cap is not None else d
        share = body["share"].where(body["share"] > 0)       # empty bins: gaps
        ax.step(body["turns_from"], share, where="post", color=_color(p), label=f"{p} players")
        last = d[d["turns_to"] >= cap] if cap is not None else d.iloc[:0]
        last = last[last["share"] > 0]
        ax.plot(last["turns_from"], last["share"], "s", color=_color(p), ms=6, mfc="none")
        if len(q):
            q = q.iloc[0]
            for name, ls in (("median", "-"), ("p90", "--"), ("p99", ":")):
                ax.axvline(q[name], color=_color(p), ls=ls, lw=0.9)
    ax.set_yscale("log")
    ax.set_xlabel(f"turns per game ({BIN}-turn bins; squares: games at the turn cap)")
    ax.set_title(f"{pol} players")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def _game_length(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    fig, axes = plt.subplots(1, 2, figsize=(14, 5), sharey=True)
    for ax, pol in zip(axes, LENGTH_POLICIES):
        _length_panel(ax, tables["turns_histogram"], tables["game_length"], pol)
    axes[0].set_ylabel("share of games")
    fig.suptitle("Game length: vertical lines mark the median (solid), 90% (dashed) and 99% "
                 "(dotted) quantiles")
    fig.tight_layout()
    return fig


def _variants(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    va = tables["variants"]
    v = va[va["preset"] != SEED_PRESET]
    return difference_panels(
        v, [f"{r.preset} ({r.players}p)" for r in v.itertuples()],
        [(col, scale, f"difference from the seed's rules: {label}")
         for col, scale, label in (("starter", 100, "starter's win rate (points)"),
                                   ("turns", 1, "mean turns per game"),
                                   ("unfinished", 100, "unfinished rate (points)"))],
        width=16, title="Rule variants against the seed's rules, heuristic players (95% "
                        "intervals; red: p < 0.05)")


FIGURES = (
    Plot("seats", "Win rate of each seat counted from the starter with 3, 4 and 5 heuristic "
         "players (95% Clopper-Pearson intervals); dashed lines are the fair 1/N. The legend "
         "gives each table's unfinished rate.", _seats),
    Plot("round_robin", f"Left: A's share of the decisive games of the two {STUDY_PLAYERS}-player "
         "tables A B A B and B A B A, row A against column B (n.s.: p >= 0.05 against 1/2). "
         "Right: each policy's score over all its tables with 95% intervals; 50% is even.",
         _round_robin),
    Plot("specials", "Win rate of a player by the number of 2s, 3s, 7s and 10s among the 11 "
         f"cards dealt to them, {STUDY_PLAYERS} heuristic players (95% Clopper-Pearson "
         "intervals; dashed: the fair 1/4).", _specials),
    Plot("game_length", "Share of games by length (turns, log scale, 10-turn bins) with "
         "heuristic (left) and random (right) players at every seat, 3 to 5 players, with each "
         "table's median, 90% and 99% quantiles; squares mark the games that reached the turn "
         "cap (unfinished).", _game_length),
    Plot("variants", "Each preset minus the seed's rules at the same player count: the "
         "starter's win rate and the unfinished rate in percentage points, and the mean turns "
         "per game, with 95% intervals (red: p < 0.05).", _variants),
)


# ---------------------------------------------------------------- the study

DESCRIPTIONS = {
    "seats": "One row per player count and seat counted clockwise from the starter (0 = "
             "the starter), the seed's rules, heuristic at every seat. win_rate: wins over "
             "all games (Clopper-Pearson 95%, n = games), so a player count's win rates and "
             "its unfinished_rate sum to 1; fair = 1/N; diff = win_rate - fair; "
             "finished_share: wins over finished games, whose p_value is the two-sided "
             "exact binomial test of finished_share = 1/N. unfinished: games stopped at "
             "the turn cap (rate with Clopper-Pearson 95%).",
    "round_robin": f"One row per ordered pair of policies (A = policy, B = opponent), "
                   f"{STUDY_PLAYERS} players: a table seated A B A B and one seated B A B A, "
                   "each of the run's size. decisive: games of the two tables with a "
                   "winner; wins: those won by one of A's two seats; share = wins / decisive "
                   "(Clopper-Pearson 95%); p_value: two-sided exact binomial test of share "
                   "= 1/2. The (A, B) and (B, A) rows come from the same two tables, so "
                   "their shares sum to 1 and their p-values agree. unfinished: games of "
                   "the two tables stopped at the turn cap.",
    "policy_scores": "One row per policy of the round robin: its share of the decisive "
                     "games over all its tables (two per opponent; it holds half of every "
                     "table's seats, so 1/2 is an even score), Clopper-Pearson 95% and "
                     "exact binomial p-value against 1/2; beats / loses_to: opponents "
                     "whose pairwise interval lies wholly above / below 1/2; unfinished "
                     "over all its tables. spec: the policy's full parameters.",
    "specials": f"{STUDY_PLAYERS} players, the seed's rules, heuristic at every seat. One "
                "row per special rank and number k of it among a player's 11 dealt cards "
                "(3 face down, 3 face up, 5 in hand; 3+ = 3 or 4): player_games = "
                "players so dealt over all games (each game gives one observation per "
                "seat), share_of_players their share and deal_chance its exact "
                "(hypergeometric) chance, a check of the deal rather than an estimate; "
                "win_rate their win rate "
                "(Clopper-Pearson 95%), unfinished_rate the share of them in games "
                "stopped at the turn cap.",
    "game_length": "One row per policy (every seat) and player count under the seed's "
                   "rules: turns per game (a turn is one play or one pickup; unfinished "
                   "games count at the cap, max_turns), mean with 95% t interval and "
                   "standard deviation, the median, 90% and 99% quantiles (the smallest "
                   "value with at least that share of games at or below it) with "
                   "distribution-free 95% order-statistic intervals, the longest game (max) "
                   "and the longest finished game, and the unfinished rate "
                   "(Clopper-Pearson 95%).",
    "turns_histogram": f"The distribution behind game_length: one row per policy, player "
                       f"count and bin of {BIN} turns (turns_from to turns_to inclusive): "
                       "games in the bin, their share of all games (Clopper-Pearson 95%). "
                       "The bin holding max_turns holds the unfinished games.",
    "variants": f"One row per preset (its rule values in rules) and player count, "
                f"heuristic at every seat; the seed's rows are the baselines (the "
                f"{STUDY_PLAYERS}- and 5-player tables of seats). starter_win_rate: the "
                "starter's wins over all games (Clopper-Pearson 95%); mean_turns (95% t); "
                "unfinished_rate (Clopper-Pearson 95%). Each *_diff is the variant minus "
                "the seed's rules with the same player count, with its 95% interval "
                "(Newcombe's hybrid score interval for rates, Welch for mean turns) and "
                "two-sided p-value (chi-square or Fisher; Welch's t); empty on the "
                "baseline rows.",
}


def _notes(hands: int, seed: int) -> list[str]:
    n_tables = len(plan())
    labels = ", ".join(f"{lab} ({_spec_text(spec)})" for lab, spec in POLICIES)
    return [
        "Rules: the seed's defaults (seeds/shiesta.md): one deck for 3-4 players, two for 5, "
        "5 cards in hand, strictly higher, a 2 resets the pile, a 3 makes the next player pick "
        "up, a 7 forces a card below 7, a 10 burns the pile, the starter drawn at random, and "
        "a cap of 1000 turns after which a game is unfinished (no winner).",
        f"Tables: {n_tables} tables of {hands:,} games each, seed {seed}; table i (in the "
        "order seats 3-5, random 3-5, the round-robin pairs, the variants) plays games "
        f"i x {hands:,} onwards, so no two tables share a random stream and every comparison "
        "is between independent samples.",
        "The heuristic (seeds/shiesta.md 6.2) is deterministic: with heuristic players at every "
        "seat a game is fixed by its deal and starter, and a game that comes back to a position "
        "it has been in loops for ever. Its unfinished games are such cycles rather than long "
        "games: compare longest_finished with max_turns in game_length. Seats are counted from "
        "the starter, who is drawn per game independently of the deal.",
        f"Round-robin policies: {labels}. Each pair plays two tables (A B A B and B A B A) so "
        "each policy sits at every seat number equally often; the starter is drawn at random "
        "in every game, so each policy also starts equally often in expectation. Shares are of "
        "decisive games (unfinished games excluded); the random policy draws uniformly among "
        "its legal plays.",
        "Special cards: every seat of every game is one observation, so the observations of "
        "one game are dependent; since at most one player wins a game, the win indicators of "
        "two players in the same group are negatively correlated and the Clopper-Pearson "
        "intervals (which assume independence) are conservative. The counts are of cards "
        "dealt, before the exchange.",
        "Game length counts every turn, plays and pickups alike; the opening is turn 1. "
        "Unfinished games count at the cap, so the quantiles are exact below the cap and a "
        "quantile at the cap means at least that share of games reached it.",
        "Variants: each preset changes one rule of the seed's (see seeds/shiesta.md); "
        f"five-one-deck (one deck, 4 cards in hand) is played with {STUDY_PLAYERS} and with 5 "
        "players and compared with the seed's rules at the same count. With fixed-starter the "
        "starter is always seat 0, so its starter rate should match the seed's.",
    ]


def _provenance(hands: int) -> dict:
    n_tables = len(plan())
    rules = {"seed": make_rules().as_dict() | {"players": list(PLAYERS)},
             "variants": {f"{pr} ({p} players)": make_rules(pr, players=p).as_dict()
                          for pr, p in VARIANTS}}
    policies = {"seats, specials, game length, variants": [_spec_text(BASE), _spec_text(RANDOM)],
                "round robin": {lab: _spec_text(spec) for lab, spec in POLICIES}}
    return dict(games=hands * n_tables, rules=rules, policies=policies, games_per_table=hands,
                tables=n_tables,
                streams="table i plays games i*games_per_table .. (i+1)*games_per_table - 1")


STUDY = Study(NAME, TITLE, DEFAULT_HANDS,
              kernels=("shiesta:games",),
              size="games per table", simulate=simulate_tables,
              findings=findings,
              figures=FIGURES, provenance=_provenance, descriptions=DESCRIPTIONS, notes=_notes)


def run(hands: int | None = None, seed: int = 0, progress: bool = False,
        threads: int | None = None) -> StudyResult:
    """The study: tables, findings, figures, notes and provenance.  ``hands`` is
    the number of games per simulated table."""
    return STUDY.run(hands, seed, progress, threads)
