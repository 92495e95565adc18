"""Pitch: Money Game: expected payouts by seat, per session, for bidding
aggression and for shooting the moon (seeds/pitch.md).

``hands`` (``DEFAULT_HANDS`` by default) is the number of hands of each
simulated table.  The study plays:

- one table of ``hands`` hands per player count 2 to 8, the ``heuristic``
  policy at every seat (parts 1 and 5; the 4-player table also serves as the
  ``aggression = 0`` row of part 3 and the default-moon row of part 4);
- six more 4-player tables for part 3, seat 0 playing ``heuristic`` with
  aggression -1, -0.5, 0.5, 1, 1.5 and 2 against three default heuristics;
- five more 4-player tables for part 4, seat 0 playing ``heuristic`` with the
  moon settings (moon_rule, moon_trumps, moon_run) of :data:`MOON_SETTINGS`
  other than the default;
- ``hands // session_hands`` (at least :data:`MIN_SESSIONS`) money sessions
  of the seed's rules (20 hands, no target) per player count 2 to 8, and as
  many 4-player sessions of the ``drop-in`` preset (part 2).

Every hand table uses the run's seed, so hand ``i`` of every 4-player table
is the same deal (dealt by seat ``i mod 4``): the variants of seat 0 are
compared hand by hand (paired differences, common random numbers).  The
sessions use streams ``hands, hands + 1, ...`` of the same seed, disjoint
from the hand tables'.  Hand tables are read in batches and reduced to sums
at once, so memory does not grow with ``hands``.

Tables (money in dollars; ``ci_low``/``ci_high`` are 95% intervals: t
intervals for means, Clopper-Pearson for proportions):

- ``money_per_hand``: players, seat (1 = left of the dealer, the first to bid
  ... players = the dealer), seat_name, hands, money, ci_low, ci_high,
  money_sd, pitched, pitch_rate, pitch_ci_low, pitch_ci_high.
- ``money_per_session``: players, seat (1 = left of the first dealer ...
  players = the first dealer), sessions, money, ci_low, ci_high, money_sd,
  losing (sessions with money < 0), p_loss, loss_ci_low, loss_ci_high,
  from_hands (the session mean implied by ``money_per_hand``).
- ``drop_in_sessions``: 4 players, preset ``drop-in``: group (starting seat
  1-4, all starters, joined later), players, hands_played, money, ci_low,
  ci_high, money_sd, p_loss (with interval), money_per_hand (per hand played,
  a ratio with a linearised interval).
- ``aggression``: seat 0's aggression; hands, money, ci_low, ci_high,
  money_sd, diff (money per hand minus that at aggression 0, paired per hand)
  with diff_ci_low/high, pitched, pitch_rate (with interval), made, made_rate
  (with interval).
- ``moon``: seat 0's moon_rule, moon_trumps and moon_run; moon_bids, per_1000 (with
  interval), moons_made, success_rate (with interval), money per hand (with
  interval) and its money_sd, diff (paired against never bidding the moon,
  with interval), money_per_bid (seat 0's money on its moon bids) and
  gain_per_bid (the paired difference on those hands), each with interval.
- ``bids``: players, bid (2, 3, 4, moon), level, hands, share (of all hands),
  stuck (hands the dealer was forced to bid), made, rate (with interval), and
  the pitcher's points won, score change and money per hand at that bid,
  each with interval.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import PercentFormatter

from analyses.common import Plot, Study, errorbar, percent, proportion, signed
from simkit import stats
from simkit.pitch.api import iter_hands, simulate_sessions
from simkit.pitch.policies import make_policies
from simkit.pitch.rules import BIDS, LEVELS, MOON, make_rules
from simkit.report import StudyResult

NAME = "pitch-payouts"
TITLE = "Pitch: Money Game: expected payouts"
#: Hands per simulated hand table (18 tables); sessions per session table are
#: ``hands // session_hands`` (8 tables of 20-hand sessions).
DEFAULT_HANDS = 1_000_000

PLAYERS = tuple(range(2, 9))
BASE = "heuristic"
AGGRESSION = (-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0)
#: Seat 0's moon settings (moon_rule, moon_trumps, moon_run, label); the first is
#: the baseline.  ``sure`` (the default) ignores moon_trumps; ``run`` is the rule
#: of the classic heuristic (6 trumps, top 4).
MOON_SETTINGS = (("run", 6, 7, "never"), ("sure", 6, 4, "default"),
                 ("sure", 6, 3, "sure, top 3"), ("run", 6, 4, "classic: 6 trumps, top 4"),
                 ("run", 6, 3, "6 trumps, top 3"), ("run", 5, 4, "5 trumps, top 4"),
                 ("run", 5, 3, "5 trumps, top 3"), ("run", 4, 3, "4 trumps, top 3"))
DEFAULT_MOON = ("sure", 6, 4)
STUDY_PLAYERS = 4                  # table size of parts 3 and 4 and of the drop-in sessions
DROP_IN = "drop-in"
MIN_SESSIONS = 20
BATCH = 1 << 18                    # hands per batch read from the engine
SESSION_HANDS = make_rules().session_hands   # hands per money session under the seed's rules

_LEVELS = LEVELS[1:]               # 2, 3, 4, 5 (moon)


def _seat_name(seat: int, players: int) -> str:
    if seat == players:
        return "dealer"
    return {1: "1st (left of dealer)", 2: "2nd", 3: "3rd"}.get(seat, f"{seat}th")


def _heuristic(**params) -> str:
    return BASE + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")


def _seat0(spec: str, players: int = STUDY_PLAYERS) -> list[str]:
    return [spec] + [BASE] * (players - 1)


# ---------------------------------------------------------------- simulation

class _Table:
    """Sums over one hand table, filled batch by batch."""

    def __init__(self, players: int, hands: int, keep: bool):
        N = players
        self.players, self.hands = N, 0
        self.seat_sum, self.seat_sq = np.zeros(N), np.zeros(N)
        self.seat_pitched = np.zeros(N, np.int64)
        # per contract level 0..5: hands, made, stuck, points, score, money (+ squares)
        self.lev = {k: np.zeros(6) for k in ("hands", "made", "stuck", "pts", "pts_sq",
                                              "score", "score_sq", "money", "money_sq")}
        self.s0 = dict.fromkeys(("money", "money_sq", "pitched", "made", "moon_bids",
                                 "moons_made", "moon_money", "moon_money_sq"), 0.0)
        self.money0 = np.empty(hands) if keep else None
        self.moon0 = np.zeros(hands, bool) if keep else None

    def add(self, df: pd.DataFrame, first: int) -> None:
        N, n = self.players, len(df)
        dealer = df["dealer"].to_numpy().astype(np.int64)
        money = df[[f"money_{s}" for s in range(N)]].to_numpy()
        rel = np.take_along_axis(money, (dealer[:, None] + np.arange(1, N + 1)) % N, axis=1)
        self.hands += n
        self.seat_sum += rel.sum(axis=0)
        self.seat_sq += (rel * rel).sum(axis=0)

        p = df["pitcher"].to_numpy().astype(np.int64)
        played = p >= 0
        rows = np.arange(n)
        pc = p.clip(0)
        self.seat_pitched += np.bincount(((p - dealer - 1) % N)[played], minlength=N)
        level = df["contract"].to_numpy().astype(np.int64)
        made = df["made"].to_numpy()

        def pick(name):
            return np.where(played, df[[f"{name}_{s}" for s in range(N)]]
                            .to_numpy()[rows, pc].astype(np.float64), 0.0)

        pts, score = pick("points"), pick("score")
        pmoney = np.where(played, money[rows, pc], 0.0)
        for key, w in (("hands", None), ("made", made.astype(np.float64)),
                       ("stuck", df["stuck"].to_numpy().astype(np.float64)),
                       ("pts", pts), ("pts_sq", pts * pts), ("score", score),
                       ("score_sq", score * score), ("money", pmoney),
                       ("money_sq", pmoney * pmoney)):
            self.lev[key] += np.bincount(level, weights=w, minlength=6)[:6]

        m0 = money[:, 0]
        mine = p == 0
        moon = mine & (level == MOON)
        s0 = self.s0
        s0["money"] += m0.sum()
        s0["money_sq"] += (m0 * m0).sum()
        s0["pitched"] += int(mine.sum())
        s0["made"] += int((mine & made).sum())
        s0["moon_bids"] += int(moon.sum())
        s0["moons_made"] += int((moon & made).sum())
        s0["moon_money"] += m0[moon].sum()
        s0["moon_money_sq"] += (m0[moon] ** 2).sum()
        if self.money0 is not None:
            self.money0[first:first + n] = m0
            self.moon0[first:first + n] = moon


def _play(players: int, policy, hands: int, seed: int, threads, progress, keep=False) -> _Table:
    t = _Table(players, hands, keep)
    first = 0
    for df in iter_hands(hands, players=players, policy=policy, seed=seed, threads=threads,
                         batch=BATCH, progress=progress):
        t.add(df, first)
        first += len(df)
        del df
    return t


def _sd(n, total, total_sq):
    """Sample standard deviation (ddof=1) from count, sum and sum of squares."""
    n, total, total_sq = (np.asarray(x, dtype=float) for x in (n, total, total_sq))
    with np.errstate(invalid="ignore", divide="ignore"):
        ss = np.maximum(total_sq - total * total / n, 0.0)
        return np.where(n > 1, np.sqrt(ss / (n - 1)), np.nan)


def _paired(diff: np.ndarray):
    if len(diff) == 0:
        return math.nan, math.nan, math.nan
    return stats.mean_ci_of(diff)


# ---------------------------------------------------------------- tables

def _seat_rows(t: _Table) -> list[dict]:
    N, n = t.players, t.hands
    m, lo, hi = stats.mean_ci(np.full(N, n, float), t.seat_sum, t.seat_sq)
    sd = _sd(np.full(N, n, float), t.seat_sum, t.seat_sq)
    pr, plo, phi = proportion(t.seat_pitched, np.full(N, n))
    return [{"players": N, "seat": s + 1, "seat_name": _seat_name(s + 1, N), "hands": n,
             "money": m[s], "ci_low": lo[s], "ci_high": hi[s], "money_sd": float(sd[s]),
             "pitched": int(t.seat_pitched[s]), "pitch_rate": pr[s], "pitch_ci_low": plo[s],
             "pitch_ci_high": phi[s]} for s in range(N)]


def _bid_rows(t: _Table) -> list[dict]:
    L = t.lev
    rows = []
    for level in _LEVELS:
        n = int(round(L["hands"][level]))
        made = int(round(L["made"][level]))
        rate, lo, hi = proportion(made, n)
        row = {"players": t.players, "bid": BIDS[LEVELS.index(level)], "level": level,
               "hands": n, "share": n / t.hands, "stuck": int(round(L["stuck"][level])),
               "made": made, "rate": float(rate), "ci_low": lo, "ci_high": hi}
        for name, key in (("points", "pts"), ("score", "score"), ("money", "money")):
            m, mlo, mhi = stats.mean_ci(n, L[key][level], L[f"{key}_sq"][level])
            row.update({f"pitcher_{name}": m, f"pitcher_{name}_ci_low": mlo,
                        f"pitcher_{name}_ci_high": mhi})
        rows.append(row)
    return rows


def _seat0_cols(t: _Table) -> dict:
    s0, n = t.s0, t.hands
    m, lo, hi = stats.mean_ci(n, s0["money"], s0["money_sq"])
    return {"hands": n, "money": m, "ci_low": lo, "ci_high": hi,
            "money_sd": float(_sd(n, s0["money"], s0["money_sq"]))}


def _aggression_row(a: float, t: _Table, base: _Table) -> dict:
    s0 = t.s0
    d, dlo, dhi = _paired(t.money0 - base.money0)
    pr, plo, phi = proportion(s0["pitched"], t.hands)
    mr, mlo, mhi = proportion(s0["made"], s0["pitched"])
    return {"aggression": a, **_seat0_cols(t), "diff": d, "diff_ci_low": dlo,
            "diff_ci_high": dhi, "pitched": int(s0["pitched"]), "pitch_rate": float(pr),
            "pitch_ci_low": plo, "pitch_ci_high": phi, "made": int(s0["made"]),
            "made_rate": float(mr), "made_ci_low": mlo, "made_ci_high": mhi}


def _moon_row(setting, t: _Table, never: _Table) -> dict:
    rule, trumps, run, label = setting
    s0, n = t.s0, t.hands
    bids = int(s0["moon_bids"])
    per, plo, phi = proportion(bids, n)
    sr, slo, shi = proportion(s0["moons_made"], bids)
    diff = t.money0 - never.money0
    d, dlo, dhi = _paired(diff)
    mpb, mlo, mhi = stats.mean_ci(bids, s0["moon_money"], s0["moon_money_sq"])
    g, glo, ghi = _paired(diff[t.moon0])
    return {"setting": label, "moon_rule": rule, "moon_trumps": trumps, "moon_run": run,
            **_seat0_cols(t),
            "moon_bids": bids, "per_1000": 1000 * float(per), "per_1000_ci_low": 1000 * plo,
            "per_1000_ci_high": 1000 * phi, "moons_made": int(s0["moons_made"]),
            "success_rate": float(sr), "success_ci_low": slo, "success_ci_high": shi,
            "diff": d, "diff_ci_low": dlo, "diff_ci_high": dhi,
            "money_per_bid": mpb, "per_bid_ci_low": mlo, "per_bid_ci_high": mhi,
            "gain_per_bid": g, "gain_ci_low": glo, "gain_ci_high": ghi}


def _from_hands(per_hand: pd.DataFrame, players: int, session_hands: int) -> np.ndarray:
    """Mean session money by starting seat implied by the money per hand by seat: in
    hand h (0-based) the player starting at seat k sits at seat ((k - h - 1) mod N) + 1,
    and a session's money (no one leaving) is the sum of its hands' money."""
    m = per_hand[per_hand["players"] == players].set_index("seat")["money"]
    k = np.arange(1, players + 1)
    return np.array([sum(m[(s - h - 1) % players + 1] for h in range(session_hands))
                     for s in k])


def _session_rows(s: pd.DataFrame, players: int, implied: np.ndarray) -> list[dict]:
    rows = []
    for seat in range(1, players + 1):
        x = s.loc[s["seat"] == seat, "money"].to_numpy()
        m, lo, hi = stats.mean_ci_of(x)
        loss = int((x < 0).sum())
        pl, llo, lhi = proportion(loss, len(x))
        rows.append({"players": players, "seat": seat, "seat_name": _seat_name(seat, players),
                     "sessions": len(x), "money": m, "ci_low": lo, "ci_high": hi,
                     "money_sd": float(np.std(x, ddof=1)) if len(x) > 1 else math.nan,
                     "losing": loss, "p_loss": float(pl), "loss_ci_low": llo,
                     "loss_ci_high": lhi, "from_hands": float(implied[seat - 1])})
    return rows


def _drop_in_rows(s: pd.DataFrame) -> list[dict]:
    groups = [(f"starter, seat {k}", s["seat"] == k) for k in range(1, STUDY_PLAYERS + 1)]
    groups += [("all starters", s["seat"] > 0), ("joined later", s["seat"] == 0)]
    rows = []
    for name, mask in groups:
        g = s[mask]
        x = g["money"].to_numpy()
        h = g["hands"].to_numpy().astype(float)
        m, lo, hi = stats.mean_ci_of(x)
        loss = int((x < 0).sum())
        pl, llo, lhi = proportion(loss, len(x))
        if len(x):
            r = x.sum() / h.sum()
            # ratio estimate: linearised interval of sum(money) / sum(hands)
            _, rlo, rhi = stats.mean_ci_of(r + (x - r * h) / h.mean())
        else:
            r = rlo = rhi = math.nan
        rows.append({"group": name, "players": len(x),
                     "hands_played": float(h.mean()) if len(h) else math.nan,
                     "money": m, "ci_low": lo, "ci_high": hi,
                     "money_sd": float(np.std(x, ddof=1)) if len(x) > 1 else math.nan,
                     "losing": loss, "p_loss": float(pl), "loss_ci_low": llo,
                     "loss_ci_high": lhi, "money_per_hand": r, "per_hand_ci_low": rlo,
                     "per_hand_ci_high": rhi})
    return rows


def sessions_for(hands: int) -> int:
    """Sessions per session table for a run of ``hands`` hands per hand table."""
    return max(hands // SESSION_HANDS, MIN_SESSIONS)


def simulate_tables(hands: int = DEFAULT_HANDS, seed: int = 0, progress: bool = False,
                    threads: int | None = None) -> dict[str, pd.DataFrame]:
    """Play every table of the study and return its tables (module docstring)."""
    from tqdm import tqdm

    N4 = STUDY_PLAYERS
    moons = [m for m in MOON_SETTINGS if m[:3] != DEFAULT_MOON]
    runs = ([("players", p) for p in PLAYERS]
            + [("aggression", a) for a in AGGRESSION if a != 0]
            + [("moon", m) for m in moons]
            + [("sessions", p) for p in PLAYERS] + [("drop-in", N4)])
    seat_rows, bid_rows, sess_rows, drop_rows = [], [], [], []
    aggr_rows: dict[float, dict] = {}
    moon_rows: dict[tuple, dict] = {}
    base = never = None
    sessions = sessions_for(hands)
    with tqdm(runs, desc=NAME, unit="table", disable=not progress, leave=False,
              dynamic_ncols=True) as bar:
        for kind, what in bar:
            bar.set_postfix_str(f"{kind} {what}")
            if kind == "players":
                t = _play(what, BASE, hands, seed, threads, progress, keep=what == N4)
                seat_rows += _seat_rows(t)
                bid_rows += _bid_rows(t)
                if what == N4:
                    base = t
                    aggr_rows[0.0] = _aggression_row(0.0, base, base)
            elif kind == "aggression":
                t = _play(N4, _seat0(_heuristic(aggression=what)), hands, seed, threads,
                          progress, keep=True)
                aggr_rows[what] = _aggression_row(what, t, base)
            elif kind == "moon":
                rule, trumps, run, _ = what
                t = _play(N4, _seat0(_heuristic(moon_rule=rule, moon_trumps=trumps,
                                                moon_run=run)), hands,
                          seed, threads, progress, keep=True)
                if never is None:           # MOON_SETTINGS[0], the baseline, comes first
                    never = t
                    default = next(m for m in MOON_SETTINGS if m[:3] == DEFAULT_MOON)
                    moon_rows[default] = _moon_row(default, base, never)
                moon_rows[what] = _moon_row(what, t, never)
            elif kind == "sessions":
                s = simulate_sessions(sessions, players=what, policy=BASE, seed=seed,
                                      start=hands, threads=threads, progress=progress)
                implied = _from_hands(pd.DataFrame(seat_rows), what, SESSION_HANDS)
                sess_rows += _session_rows(s, what, implied)
            else:
                s = simulate_sessions(sessions, players=what, rules=DROP_IN, policy=BASE,
                                      seed=seed, start=hands, threads=threads,
                                      progress=progress)
                drop_rows = _drop_in_rows(s)
            t = s = None                    # free each table before the next
    return {
        "money_per_hand": pd.DataFrame(seat_rows),
        "money_per_session": pd.DataFrame(sess_rows),
        "drop_in_sessions": pd.DataFrame(drop_rows),
        "aggression": pd.DataFrame([aggr_rows[a] for a in AGGRESSION]),
        "moon": pd.DataFrame([moon_rows[m] for m in MOON_SETTINGS]),
        "bids": pd.DataFrame(bid_rows),
    }


# ---------------------------------------------------------------- summary

def _digits(lo, hi, scale: float = 1.0, most: int = 4) -> int:
    """Decimals that show one significant digit of an interval's half-width."""
    half = scale * (hi - lo) / 2
    if not (math.isfinite(half) and half > 0):
        return 2
    return int(min(max(-math.floor(math.log10(half)), 0), most))


def cents(x, lo, hi, n=None) -> str:
    """Dollars shown as signed cents with their 95% interval (and n)."""
    k = _digits(lo, hi, 100)
    tail = f", n={int(n):,}" if n is not None else ""
    return (f"{signed(100 * x, k)} cents (95% CI {signed(100 * lo, k)} to {signed(100 * hi, k)}"
            f"{tail})")


def dollars(x, lo, hi, n=None) -> str:
    """Dollars, signed, with their 95% interval (and n)."""
    k = max(_digits(lo, hi), 2)
    tail = f", n={int(n):,}" if n is not None else ""
    if math.isfinite(lo) and math.isfinite(hi):
        ci = f"95% CI {signed(lo, k)} to {signed(hi, k)}"
    else:
        ci = "no interval"
    return f"{signed(x, k)} dollars ({ci}{tail})"


def _pct_ci(p, lo, hi) -> str:
    """"81.2%, 95% CI 80.9-81.5%" (without n)."""
    return percent(p, lo, hi).replace(" (95% CI", ", 95% CI").rstrip(")")


def _share(p) -> str:
    """A share of hands: one decimal of a percent, or two significant digits when small."""
    return f"{100 * p:.1f}%" if p >= 0.001 else f"{100 * p:.2g}%"


def _per_bid(row, col: str, ci: str) -> str:
    """Dollars per moon bid with its interval; a sample of equal values says so."""
    x, lo, hi = row[col], row[f"{ci}_ci_low"], row[f"{ci}_ci_high"]
    if math.isfinite(lo) and lo == hi:
        return f"{signed(x, 2)} dollars (all {int(row['moon_bids'])} alike)"
    return dollars(x, lo, hi)


def _seat_phrase(seat: int, players: int) -> str:
    if seat == players:
        return f"the dealer (seat {seat})"
    if seat == 1:
        return "seat 1, left of the dealer"
    return f"seat {seat}"


def _high_low(df: pd.DataFrame, col: str = "money"):
    """The rows with the highest and the lowest ``col``."""
    return df.loc[df[col].idxmax()], df.loc[df[col].idxmin()]


def _seats_line(mh: pd.DataFrame) -> str | None:
    """1. Seats, per hand: the best and worst seat, and where the dealer stands."""
    N = STUDY_PLAYERS
    four = mh[mh["players"] == N]
    if not len(four):
        return None
    best, worst = _high_low(four)
    bests = mh.loc[mh.groupby("players")["money"].idxmax()]
    dealer_best = bests[bests["seat"] == bests["players"]]
    if len(dealer_best) == len(bests):
        hi_row, lo_row = _high_low(dealer_best)
        tail = (f"; the dealer's seat is the best at every player count from "
                f"{int(bests['players'].min())} to {int(bests['players'].max())}, from "
                f"{signed(100 * lo_row['money'], 2)} cents a hand with "
                f"{int(lo_row['players'])} players to {signed(100 * hi_row['money'], 2)} "
                f"with {int(hi_row['players'])}")
    else:
        tail = (f"; the dealer's seat is the best in {len(dealer_best)} of {len(bests)} "
                "player counts")
    return (f"Per hand with {N} players, {_seat_phrase(int(best['seat']), N)} gains most, "
            f"{cents(best['money'], best['ci_low'], best['ci_high'], best['hands'])}, and "
            f"{_seat_phrase(int(worst['seat']), N)} loses most, "
            f"{cents(worst['money'], worst['ci_low'], worst['ci_high'])}{tail}.")


def _sessions_line(ms: pd.DataFrame) -> str | None:
    """2. Sessions: the starting seat against the spread of a session."""
    s4 = ms[ms["players"] == STUDY_PLAYERS]
    if not len(s4):
        return None
    hi_row, lo_row = _high_low(s4)
    gaps = ms.groupby("players")["money"].agg(lambda x: x.max() - x.min())
    gp = int(gaps.idxmax())
    g_hi, g_lo = _high_low(ms[ms["players"] == gp])
    sd = s4["money_sd"].mean()
    losing, n = int(s4["losing"].sum()), int(s4["sessions"].sum())
    little = hi_row["money"] - lo_row["money"] < 0.1 * sd
    return (
        f"Over a {SESSION_HANDS}-hand session with {STUDY_PLAYERS} players the starting "
        f"seat matters {'little' if little else 'somewhat'} (seat means from "
        f"{signed(100 * lo_row['money'], 1)} to {signed(100 * hi_row['money'], 1)} cents, "
        f"n={int(s4['sessions'].iloc[0]):,} sessions each) next to the risk: a standard "
        f"deviation of {100 * sd:.0f} cents per session, and "
        f"{percent(losing / n, *stats.proportion_ci(losing, n))} "
        f"of player-sessions lose money; the starting seat matters most with {gp} "
        f"players, seat {int(g_hi['seat'])} "
        f"{cents(g_hi['money'], g_hi['ci_low'], g_hi['ci_high'])} against seat "
        f"{int(g_lo['seat'])} {cents(g_lo['money'], g_lo['ci_low'], g_lo['ci_high'])}.")


def _drop_in_line(di: pd.DataFrame) -> str | None:
    """3. Drop-in sessions: the starters against those who joined later."""
    st = di[di["group"] == "all starters"]
    jo = di[di["group"] == "joined later"]
    if not (len(st) and len(jo) and jo["players"].iloc[0] > 0):
        return None
    st, jo = st.iloc[0], jo.iloc[0]
    return (
        f"With players dropping in and out ({DROP_IN}: leave 5%, join 10% after each "
        f"hand), the {STUDY_PLAYERS} starters average "
        f"{cents(st['money'], st['ci_low'], st['ci_high'], st['players'])} per session "
        f"and the players who joined later "
        f"{cents(jo['money'], jo['ci_low'], jo['ci_high'], jo['players'])} in "
        f"{jo['hands_played']:.1f} hands on average "
        f"({signed(100 * jo['money_per_hand'], 2)} against "
        f"{signed(100 * st['money_per_hand'], 2)} cents per hand played).")


def _aggression_line(ag: pd.DataFrame) -> str | None:
    """4. Aggression: the best setting against aggression 0, paired on the same deals."""
    N = STUDY_PLAYERS
    if not len(ag):
        return None
    zero = ag[ag["aggression"] == 0].iloc[0]
    others = ag[ag["aggression"] != 0]
    top = others.loc[others["diff"].idxmax()]
    one = ag[ag["aggression"] == 1.0]
    extra = ""
    if len(one):
        one = one.iloc[0]
        extra = (f"; at aggression +1 it pitches "
                 f"{one['pitch_rate']:.0%} of hands instead of {zero['pitch_rate']:.0%}, "
                 f"makes {one['made_rate']:.0%} instead of {zero['made_rate']:.0%} of its "
                 f"bids and changes its money by "
                 f"{cents(one['diff'], one['diff_ci_low'], one['diff_ci_high'])} a hand")
    if top["diff_ci_high"] < 0:
        lead = (f"Aggression 0 is the best setting against a default field ({N} players): "
                f"every other setting tried loses money against it; the nearest, "
                f"aggression {top['aggression']:+g}, changes the player's money by")
    elif top["diff_ci_low"] > 0:
        lead = (f"Bidding {'more' if top['aggression'] > 0 else 'less'} aggressively pays "
                f"against a default field ({N} players): aggression "
                f"{top['aggression']:+g} changes the player's money by")
    else:
        lead = (f"No setting tried clearly beats aggression 0 against a default field "
                f"({N} players): the best, aggression {top['aggression']:+g}, changes the "
                "player's money by")
    return (f"{lead} {cents(top['diff'], top['diff_ci_low'], top['diff_ci_high'], top['hands'])} "
            f"per hand (paired on the same deals){extra}.")


def _moon_line(mo: pd.DataFrame) -> str | None:
    """5. The moon: the default rule's bids and value, and the loosest rule tried."""
    dm = mo[mo["setting"] == "default"]
    if not (len(dm) and len(mo)):
        return None
    d, loose = dm.iloc[0], mo.iloc[-1]
    text = (f"The default moon bid (only when sure: the jack, the trumps from the ace down "
            f"at least {d['moon_run']} deep, side cards only in runs from their aces) comes "
            f"{d['per_1000']:.3g} times per 1,000 hands")
    if d["moon_bids"] > 0:
        text += (f" and is made {int(d['moons_made']):,} of {int(d['moon_bids']):,} times "
                 f"({_pct_ci(*d[['success_rate', 'success_ci_low', 'success_ci_high']])}); "
                 f"a moon bid earns {_per_bid(d, 'money_per_bid', 'per_bid')}, "
                 f"{_per_bid(d, 'gain_per_bid', 'gain')} more than the same player bidding "
                 "without the moon on the same deals")
    if loose["moon_bids"] > 0 and loose["setting"] != "default":
        text += (f"; the loosest rule tried ({loose['setting']}) bids it "
                 f"{loose['per_1000']:.3g} times per 1,000 hands but makes only "
                 f"{int(loose['moons_made']):,} of {int(loose['moon_bids']):,} "
                 f"({_pct_ci(*loose[['success_rate', 'success_ci_low', 'success_ci_high']])}), "
                 f"so each moon bid changes the player's money by "
                 f"{_per_bid(loose, 'gain_per_bid', 'gain')}")
    return text + "."


def _bids_line(bi: pd.DataFrame) -> str | None:
    """6. Contracts: each one's share of hands and success rate with 4 players."""
    b4 = bi[(bi["players"] == STUDY_PLAYERS) & (bi["hands"] > 0)]
    if not len(b4):
        return None
    parts = [f"{r.bid} in {_share(r.share)} of hands, made "
             f"{percent(r.rate, r.ci_low, r.ci_high, r.hands)}" for r in b4.itertuples()]
    return f"With {STUDY_PLAYERS} players the contracts are " + "; ".join(parts) + "."


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings computed from the tables (no number typed in), one
    sentence per part of the study."""
    lines = (_seats_line(tables["money_per_hand"]), _sessions_line(tables["money_per_session"]),
             _drop_in_line(tables["drop_in_sessions"]), _aggression_line(tables["aggression"]),
             _moon_line(tables["moon"]), _bids_line(tables["bids"]))
    return [line for line in lines if line is not None]


# ---------------------------------------------------------------- figures

_CMAP = plt.get_cmap("viridis")


def _color(players: int):
    return _CMAP((players - PLAYERS[0]) / (len(PLAYERS) - 0.5))


def _money_per_hand(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    mh = tables["money_per_hand"]
    fig, ax = plt.subplots(figsize=(8, 5))
    for p, d in mh.groupby("players"):
        errorbar(ax, d["seat"], 100 * d["money"], 100 * d["ci_low"], 100 * d["ci_high"],
                 color=_color(p), label=f"{p} players")
        last = d[d["seat"] == p]
        ax.plot(last["seat"], 100 * last["money"], "s", ms=9, mfc="none", color=_color(p))
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("seat (1 = left of the dealer, first to bid; squares: the dealer)")
    ax.set_ylabel("money per hand (cents)")
    ax.set_xticks(range(1, max(PLAYERS) + 1))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    ax.set_title("Expected money per hand by seat (95% intervals)")
    fig.tight_layout()
    return fig


def _drop_in_panel(ax, di: pd.DataFrame) -> None:
    """The drop-in groups' money per session, with each group's standard deviation."""
    if len(di):
        x = np.arange(len(di))
        y = 100 * di["money"].to_numpy()
        ax.bar(x, y, color=["tab:blue"] * (len(di) - 2) + ["tab:grey", "tab:orange"])
        errorbar(ax, x, y, 100 * di["ci_low"], 100 * di["ci_high"], color="k", ls="none")
        for xi, r in zip(x, di.itertuples()):
            if math.isfinite(r.money_sd):
                ax.annotate(f"sd {100 * r.money_sd:.0f}", (xi, 0), ha="center", va="bottom",
                            fontsize=7, xytext=(0, 2), textcoords="offset points")
        ax.set_xticks(x, [g.replace("starter, ", "") for g in di["group"]],
                      rotation=30, ha="right", fontsize=8)
        ax.axhline(0, color="k", lw=0.8)
    ax.set_title(f"{STUDY_PLAYERS} players, {DROP_IN}: starters vs joiners")
    ax.set_ylabel("money per session (cents)")


def _money_per_session(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    ms = tables["money_per_session"]
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.8), gridspec_kw={"width_ratios": [3, 3, 2]})
    for p, d in ms.groupby("players"):
        errorbar(axes[0], d["seat"], 100 * d["money"], 100 * d["ci_low"], 100 * d["ci_high"],
                 color=_color(p), label=f"{p} players")
        axes[0].plot(d["seat"], 100 * d["from_hands"], ls=":", marker="x", color=_color(p))
        axes[1].plot(d["seat"], 100 * d["money_sd"], marker="o", color=_color(p),
                     label=f"{p} players")
    axes[0].axhline(0, color="k", lw=0.8)
    axes[0].set_title("mean per session (dotted x: implied by the per-hand table)")
    axes[0].set_ylabel("money per session (cents)")
    axes[1].set_title("risk: standard deviation per session")
    axes[1].set_ylabel("cents")
    axes[1].set_ylim(bottom=0)
    for ax in axes[:2]:
        ax.set_xlabel("starting seat (1 = left of the first dealer)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2, loc="best")
    _drop_in_panel(axes[2], tables["drop_in_sessions"])
    fig.suptitle(f"Money per {SESSION_HANDS}-hand session (95% intervals)")
    fig.tight_layout()
    return fig


def _against_field(fig, axes, xlabel: str, what: str) -> plt.Figure:
    """Finish a figure of one player against default heuristics: x labels, grids, title."""
    for ax in axes:
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{what} against {STUDY_PLAYERS - 1} default heuristics (95% intervals)")
    fig.tight_layout()
    return fig


def _aggression(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    ag = tables["aggression"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    errorbar(axes[0], ag["aggression"], 100 * ag["diff"], 100 * ag["diff_ci_low"],
             100 * ag["diff_ci_high"], color="tab:red", label="difference from aggression 0")
    axes[0].plot(ag["aggression"], 100 * ag["money"], "s--", color="tab:grey", ms=4,
                 label="money per hand")
    axes[0].axhline(0, color="k", lw=0.8)
    axes[0].set_ylabel("cents per hand")
    axes[0].set_title("the player's money per hand")
    axes[0].legend(fontsize=8)
    for col, lo, hi, label, c in (("pitch_rate", "pitch_ci_low", "pitch_ci_high",
                                   "pitch rate (share of hands)", "tab:blue"),
                                  ("made_rate", "made_ci_low", "made_ci_high",
                                   "made rate (share of its contracts)", "tab:green")):
        errorbar(axes[1], ag["aggression"], ag[col], ag[lo], ag[hi], color=c, label=label)
    axes[1].set_ylim(0, 1.02)
    axes[1].yaxis.set_major_formatter(PercentFormatter(1.0))
    axes[1].set_title("how often it pitches and makes its bid")
    axes[1].legend(fontsize=8)
    return _against_field(fig, axes, "the player's aggression (points added to its hand "
                          "estimate)", "One player's bidding aggression")


def _moon_money_panel(ax, x, mo: pd.DataFrame) -> None:
    """Money per hand against never bidding the moon, and its standard deviation."""
    errorbar(ax, x, 100 * mo["diff"], 100 * mo["diff_ci_low"], 100 * mo["diff_ci_high"],
             color="tab:red", ls="none", label="money per hand vs never (cents)")
    ax2 = ax.twinx()
    ax2.plot(x, 100 * mo["money_sd"], "d:", color="tab:blue", label="sd per hand (cents)")
    ax2.set_ylabel("standard deviation per hand (cents)", color="tab:blue")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_ylabel("cents per hand against never")
    ax.set_title("money per hand and its risk")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="center left")


def _moon(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    mo = tables["moon"]
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.6))
    x = np.arange(len(mo))
    labels = [f"{r.setting}\n({r.moon_rule}, {r.moon_trumps}, {r.moon_run})"
              for r in mo.itertuples()]
    errorbar(axes[0], x, mo["success_rate"], mo["success_ci_low"], mo["success_ci_high"],
             color="tab:purple", ls="none")
    for xi, r in zip(x, mo.itertuples()):
        axes[0].annotate(f"{r.moon_bids:,} bids\n{r.per_1000:.3g}/1000", (xi, -0.1),
                         ha="center", va="center", fontsize=7)
    axes[0].set_ylim(-0.18, 1.05)
    axes[0].yaxis.set_major_formatter(PercentFormatter(1.0))
    axes[0].set_title("moon bids made")
    errorbar(axes[1], x, mo["gain_per_bid"], mo["gain_ci_low"], mo["gain_ci_high"],
             color="tab:red", ls="none", label="gain per moon bid (vs never)")
    axes[1].plot(x, mo["money_per_bid"], "s", color="tab:grey", label="money on a moon bid")
    axes[1].axhline(0, color="k", lw=0.8)
    axes[1].set_ylabel("dollars per moon bid")
    axes[1].set_title("value of a moon bid")
    axes[1].legend(fontsize=8)
    _moon_money_panel(axes[2], x, mo)
    for ax in axes:
        ax.set_xticks(x, labels, fontsize=7)
    return _against_field(fig, axes, "the player's (moon_rule, moon_trumps, moon_run)",
                          "Shooting the moon: one player's moon rule")


def _bids(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    bi = tables["bids"]
    order = list(BIDS[1:])
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.6))
    for p, d in bi.groupby("players"):
        d = d[d["hands"] > 0]
        xs = np.array([order.index(b) for b in d["bid"]]) + (p - 5) * 0.04
        errorbar(axes[0], xs, d["rate"], d["ci_low"], d["ci_high"], color=_color(p),
                 label=f"{p} players")
        axes[1].plot(xs, d["share"], "o-", color=_color(p), label=f"{p} players")
        errorbar(axes[2], xs, d["pitcher_money"], d["pitcher_money_ci_low"],
                 d["pitcher_money_ci_high"], color=_color(p), label=f"{p} players")
    axes[0].set_ylim(0, 1.05)
    axes[0].yaxis.set_major_formatter(PercentFormatter(1.0))
    axes[0].set_title("bids made (Clopper-Pearson 95%)")
    axes[1].set_yscale("log")
    axes[1].set_title("share of hands at each contract (log scale)")
    axes[2].set_yscale("symlog", linthresh=0.1)
    axes[2].axhline(0, color="k", lw=0.8)
    axes[2].set_title("pitcher's money per hand (dollars, symlog)")
    for ax in axes:
        ax.set_xticks(range(len(order)), order)
        ax.set_xlabel("contract")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle("Contracts by player count (heuristic players)")
    fig.tight_layout()
    return fig


FIGURES = (
    Plot("money_per_hand",
         "Expected money per hand (cents) by seat relative to the dealer, one line per player "
         "count; squares mark the dealer. Bars are 95% intervals (mostly smaller than the "
         "markers).",
         _money_per_hand),
    Plot("money_per_session",
         f"Left: mean money per {SESSION_HANDS}-hand session by starting seat, with the mean "
         "implied by the per-hand table (dotted). Middle: its standard deviation, the risk of "
         f"a session. Right: {STUDY_PLAYERS}-player {DROP_IN} sessions, starters by seat "
         "(blue), all starters (grey) and players who joined later (orange), with each "
         "group's standard deviation.",
         _money_per_session),
    Plot("aggression",
         "Left: the player's money per hand as its aggression varies (grey) and its paired "
         "difference from aggression 0 (red, 95% intervals). Right: how often it wins the "
         "auction and how often it makes its contract.",
         _aggression),
    Plot("moon",
         "One player's moon rule (moon_trumps, moon_run), the rest default. Left: the share "
         "of its moon bids made (95% Clopper-Pearson), with the number of bids. Middle: its "
         "money on a moon bid and the gain over not bidding the moon on the same deals "
         "(dollars). Right: its money per hand against never bidding the moon (red, cents) "
         "and the standard deviation of its money per hand (blue).",
         _moon),
    Plot("bids",
         "Per contract and player count: share of bids made (left), share of hands at that "
         "contract (middle, log scale) and the pitcher's mean money per hand (right). Bars "
         "are 95% intervals.",
         _bids),
)


# ---------------------------------------------------------------- the study

DESCRIPTIONS = {
    "money_per_hand": "One row per player count and seat relative to the dealer (1 = left "
                      "of the dealer, the first to bid; the last seat is the dealer), every "
                      "seat heuristic. money: mean dollars per hand with each hand settled "
                      "as a one-hand session (95% t interval, n = hands); money_sd its "
                      "standard deviation; pitch_rate the share of hands that seat won the "
                      "auction (Clopper-Pearson 95%).",
    "money_per_session": f"One row per player count and starting seat (1 = left of the "
                         f"first dealer ... the first dealer) of {SESSION_HANDS}-hand money "
                         "sessions under the seed's rules (no target, nobody leaves): mean "
                         "money per session (95% t interval, n = sessions), its standard "
                         "deviation (the risk) and the share of sessions that seat lost "
                         "money (Clopper-Pearson). from_hands: the mean implied by "
                         "money_per_hand (a session's money is the sum of its hands' money, "
                         "the seat moving one place each hand): a check, not an estimate.",
    "drop_in_sessions": f"{STUDY_PLAYERS}-player sessions of the {DROP_IN} preset (after "
                        "each hand every player leaves with chance 5% while 3 or more are "
                        "seated, then one joins with chance 10%): one row per group of "
                        "players (n = players in the group over all sessions): starters by "
                        "starting seat, all starters, and players who joined later. "
                        "hands_played: mean hands each played; money: mean dollars per "
                        "player (95% t interval); money_per_hand: total money over total "
                        "hands played (linearised 95% interval).",
    "aggression": f"Seat 0 plays heuristic with the given aggression against "
                  f"{STUDY_PLAYERS - 1} default heuristics on the same deals (hand i dealt "
                  f"by seat i mod {STUDY_PLAYERS}, so seat 0 sits at every position equally "
                  "often). money: seat 0's mean dollars per hand (95% t); diff: paired "
                  "per-hand difference from aggression 0 (95% t interval on the "
                  "differences); pitch_rate: share of hands seat 0 won the auction; "
                  "made_rate: share of those contracts made (Clopper-Pearson 95%).",
    "moon": f"Seat 0 plays heuristic with moon_rule, moon_trumps and moon_run as given "
            "(sure: bid the moon holding the jack, the trumps from the ace down at least "
            "moon_run deep and side cards only in runs from their aces; run: holding at "
            "least moon_trumps cards of its suit of which the top moon_run run down from "
            f"the ace) against {STUDY_PLAYERS - 1} default heuristics, same deals. "
            "moon_bids and per_1000 (Clopper-Pearson): its moon bids; success_rate: moons "
            "made; money and money_sd: its dollars per hand and their standard deviation; "
            "diff: paired per-hand difference from never bidding the moon; money_per_bid: "
            "its mean money on the hands it bid the moon; gain_per_bid: the paired "
            "difference on those hands (what the moon bid added over what the same player "
            "would have done without it). 95% t intervals.",
    "bids": "One row per player count and contract, all seats heuristic: hands at that "
            "contract and their share of all hands, stuck (the dealer was forced to bid "
            "after everyone passed), made and the rate made (Clopper-Pearson 95%); the "
            "pitcher's points won (0-4), score change and money per hand at that contract "
            "(95% t intervals).",
}


def _notes(hands: int, seed: int) -> list[str]:
    sessions = sessions_for(hands)
    return [
        "Rules: the seed's defaults (seeds/pitch.md): one lap of bidding, the dealer may steal "
        "by matching the high bid and must bid exactly 2 when everyone else passed, Low to "
        "whoever captures it, no Game point on a tie, a moon needs all six tricks and the four "
        "points and scores +-4; money 10 cents per point against the table's average score and "
        "1 dollar from (to) every other player for a made (failed) moon.",
        "Money per hand is each hand settled as if it were a whole session (the engine's "
        "money_s columns); it sums to zero over the seats of every hand, so each player "
        "count's seat means in money_per_hand sum to zero.",
        f"Hand tables: {hands:,} hands each, seed {seed}; hand i is dealt by seat i mod "
        "players, so every seat deals equally often; seats are then counted from the dealer. "
        "All tables of one player count share the seed and therefore the deals: the "
        "aggression and moon variants of seat 0 are compared hand by hand (paired "
        "differences; the t interval of the per-hand differences). The aggression-0 row and "
        "the default-moon row are the all-heuristic 4-player table of money_per_hand.",
        f"Sessions: {sessions:,} sessions per table ({SESSION_HANDS} hands each, hands // "
        f"{SESSION_HANDS}, at least {MIN_SESSIONS}) from streams {hands:,} onwards of the same "
        "seed, disjoint from the hand tables'. The first dealer is drawn at random; the "
        "starting seat is counted from it. Without anyone leaving a session's money is the "
        "sum of its hands' money, which gives the from_hands column; with a number of players "
        f"dividing {SESSION_HANDS} every seat deals equally often and the starting seat is "
        "worth nothing in expectation.",
        "Drop-in sessions: a joining player starts with the seated players' average score "
        "rounded down (join_score = average) and takes the last seat; those who leave are paid "
        "at once against the average of the players then seated.",
        "The heuristic's hand estimate is at most 3.50 points (High 1.00, Low 0.75, Jack "
        "0.85, Game 0.90), so with default aggression it bids 4 only on near-perfect hands "
        "and, from 7 players on, never (the Game estimate falls with the player count); bids "
        "of 2 include the dealer's forced bids (column stuck).",
        "Intervals: Clopper-Pearson exact for proportions; t intervals from count, sum and sum "
        "of squares for means (simkit.stats); paired differences use the t interval of the "
        "per-hand differences. Moon bids are rare: with the default rule a few per 100,000 "
        "hands, so its rows rest on few bids.",
    ]


def _provenance(hands: int) -> dict:
    sessions = sessions_for(hands)
    hand_tables = (len(PLAYERS) + len([a for a in AGGRESSION if a != 0])
                   + len([m for m in MOON_SETTINGS if m[:3] != DEFAULT_MOON]))
    session_tables = len(PLAYERS) + 1
    rules = {"hand tables": make_rules().as_dict() | {"players": list(PLAYERS)},
             "sessions": make_rules().as_dict() | {"players": list(PLAYERS)},
             DROP_IN: make_rules(DROP_IN, players=STUDY_PLAYERS).as_dict()}
    specs = ([_heuristic(aggression=a) for a in AGGRESSION if a != 0]
             + [_heuristic(moon_rule=m, moon_trumps=t, moon_run=r) for m, t, r, _ in MOON_SETTINGS
                if (m, t, r) != DEFAULT_MOON])
    policies = {"field": make_policies(BASE, 1)[0].text(),
                "seat 0 variants": [make_policies(s, 1)[0].text() for s in specs]}
    return dict(hands=hands * hand_tables + sessions * SESSION_HANDS * len(PLAYERS),
                games=sessions * session_tables, rules=rules, policies=policies,
                hands_per_table=hands, hand_tables=hand_tables, sessions_per_table=sessions,
                session_tables=session_tables)


STUDY = Study(NAME, TITLE, DEFAULT_HANDS,
              kernels=("pitch:hands", "pitch:sessions"),
              simulate=simulate_tables, findings=findings,
              figures=FIGURES, provenance=_provenance, descriptions=DESCRIPTIONS, notes=_notes)


def run(hands: int | None = None, seed: int = 0, progress: bool = False,
        threads: int | None = None) -> StudyResult:
    """The study: tables, findings, figures, notes and provenance."""
    return STUDY.run(hands, seed, progress, threads)
