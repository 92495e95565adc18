"""The shiesta-strategy study's settings and its simulation: the tables it plays and the rows it
reduces them to (:func:`simulate_tables`)."""

from __future__ import annotations

import itertools
import math
from typing import Any, cast

import numpy as np
import pandas as pd
from scipy import stats as sst

from analyses.common import diff_cols, proportion
from simkit.base import stats
from simkit.engine import RunSettings
from simkit.shiesta.api import simulate_games
from simkit.shiesta.policies import make_policies
from simkit.shiesta.rules import PRESETS, SPECIAL_TEXT, ShiestaRules, make_rules

NAME = "shiesta-strategy"
TITLE = "Shiesta: seats, strategies, special cards and variants"
#: Games per simulated table (45 tables: 3 heuristic and 3 random, 30 round robin, 9 variants).
DEFAULT_HANDS = 80_000

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
VARIANTS = (*tuple((p, STUDY_PLAYERS) for p in PRESETS if p != SEED_PRESET), (FIVE, 5))
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
    return str(make_policies(spec, 1)[0].text())


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
        for i, text in enumerate(SPECIAL_TEXT):
            for s in range(N):
                k = np.minimum(df[f"dealt_{text}_{s}"].to_numpy().astype(np.int64), K - 1)
                self.sp_n[i] += np.bincount(k, minlength=K)
                self.sp_wins[i] += np.bincount(k[winner == s], minlength=K)
                self.sp_unf[i] += np.bincount(k[unf], minlength=K)


def _play(run: RunSettings) -> _Table:
    """The sums of one table: ``run.count`` games from stream ``run.start``, in batches."""
    players = int(run.players or STUDY_PLAYERS)
    r = cast(ShiestaRules, make_rules(run.rules, players=players))
    t = _Table(players, r)
    done = 0
    while done < run.count:
        count = min(BATCH, run.count - done)
        df = simulate_games(count, players=players, rules=run.rules, policy=run.policy,
                            seed=run.seed, start=run.start + done, threads=run.threads,
                            progress=run.progress)
        t.add(df)
        done += count
        del df
    return t


def plan() -> list[tuple[Any, ...]]:
    """The simulated tables in stream order: (kind, players, preset, policies, key)."""
    out: list[tuple[Any, ...]] = []
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


def _unf_cols(unfinished: int, games: int) -> dict[str, Any]:
    r, lo, hi = proportion(unfinished, games)
    return {"unfinished": int(unfinished), "unfinished_rate": float(r),
            "unfinished_ci_low": float(lo), "unfinished_ci_high": float(hi)}


# ---------------------------------------------------------------- tables

def _seat_rows(t: _Table) -> list[dict[str, Any]]:
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


def _pair_rows(la: str, lb: str, t1: _Table, t2: _Table) -> list[dict[str, Any]]:
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


def _score_rows(rr: pd.DataFrame) -> list[dict[str, Any]]:
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


def _special_rows(t: _Table) -> list[dict[str, Any]]:
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

    def at(rank: float) -> float:                         # value of the rank-th smallest (1-based)
        return float(np.searchsorted(cum, min(max(int(rank), 1), n)))

    est = max(math.ceil(q * n), 1)
    lo = sst.binom.ppf(0.025, n, q)
    hi = sst.binom.ppf(0.975, n, q) + 1
    return at(est), min(at(lo), at(est)), max(at(hi), at(est))


def _turn_stats(t: _Table) -> dict[str, Any]:
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


def _length_row(policy: str, t: _Table) -> dict[str, Any]:
    st = _turn_stats(t)
    st.pop("turn_sum"), st.pop("turn_sum_sq")
    return {"policy": policy, "players": t.players, **st,
            "longest_finished": t.longest_finished, "max_turns": t.max_turns,
            **_unf_cols(t.unfinished, t.games)}


def _hist_rows(policy: str, t: _Table) -> list[dict[str, Any]]:
    h = t.turns
    edges = np.arange(0, len(h) + BIN, BIN)
    counts = np.add.reduceat(np.pad(h, (0, edges[-1] - len(h))), edges[:-1])
    r, lo, hi = proportion(counts, np.full(len(counts), t.games))
    return [{"policy": policy, "players": t.players, "turns_from": int(edges[i]),
             "turns_to": int(edges[i + 1] - 1), "games": t.games, "count": int(counts[i]),
             "share": float(r[i]), "ci_low": float(lo[i]), "ci_high": float(hi[i])}
            for i in range(len(counts))]


def _variant_row(preset: str, t: _Table, base: _Table | None) -> dict[str, Any]:
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
                 "turns": stats.compare_means(n1=n, s1=st["turn_sum"], ss1=st["turn_sum_sq"],
                                              n2=base.games, s2=bs["turn_sum"],
                                              ss2=bs["turn_sum_sq"]),
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
    pairs: dict[tuple[Any, ...], _Table] = {}
    variants: dict[tuple[Any, ...], _Table] = {}
    by_kind: dict[str, dict[Any, _Table]] = {"base": base, "random": rand, "pair": pairs,
                                          "variant": variants}
    runs = plan()
    with tqdm(runs, desc=NAME, unit="table", disable=not progress, leave=False,
              dynamic_ncols=True) as bar:
        for i, (kind, players, preset, policy, key) in enumerate(bar):
            bar.set_postfix_str(f"{kind} {key}")
            t = _play(RunSettings(count=hands, players=players, rules=preset, policy=policy,
                                  seed=seed, start=i * hands, threads=threads,
                                  progress=progress))
            by_kind[kind][key] = t

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
