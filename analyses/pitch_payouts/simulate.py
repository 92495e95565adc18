"""The pitch-payouts study's settings and its simulation: the tables it plays and the rows it
reduces them to (:func:`simulate_tables`)."""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import pandas as pd

from analyses.common import proportion
from simkit.base import stats
from simkit.base.stats import Values
from simkit.pitch.api import iter_hands, simulate_sessions
from simkit.pitch.policies import MoonRule
from simkit.pitch.rules import BIDS, LEVELS, MOON, PitchRules, make_rules

NAME = "pitch-payouts"
TITLE = "Pitch: Money Game: expected payouts"
#: Hands per simulated hand table (18 tables); sessions per session table are
#: ``hands // session_hands`` (8 tables of 20-hand sessions).
DEFAULT_HANDS = 400_000

PLAYERS = tuple(range(2, 9))
BASE = "heuristic"
AGGRESSION = (-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0)
#: Seat 0's moon settings (moon_rule, moon_trumps, moon_run, label); the first is
#: the baseline.  ``sure`` (the default) ignores moon_trumps; ``run`` is the rule
#: of the classic heuristic (6 trumps, top 4).
MoonSetting = tuple[MoonRule, int, int, str]
MOON_SETTINGS: tuple[MoonSetting, ...] = (
    (MoonRule.RUN, 6, 7, "never"), (MoonRule.SURE, 6, 4, "default"),
    (MoonRule.SURE, 6, 3, "sure, top 3"), (MoonRule.RUN, 6, 4, "classic: 6 trumps, top 4"),
    (MoonRule.RUN, 6, 3, "6 trumps, top 3"), (MoonRule.RUN, 5, 4, "5 trumps, top 4"),
    (MoonRule.RUN, 5, 3, "5 trumps, top 3"), (MoonRule.RUN, 4, 3, "4 trumps, top 3"))
DEFAULT_MOON = (MoonRule.SURE, 6, 4)
STUDY_PLAYERS = 4                  # table size of parts 3 and 4 and of the drop-in sessions
DROP_IN = "drop-in"
MIN_SESSIONS = 20
BATCH = 1 << 18                    # hands per batch read from the engine
#: Hands per money session under the seed's rules.
SESSION_HANDS = cast(PitchRules, make_rules()).session_hands

_LEVELS = LEVELS[1:]               # 2, 3, 4, 5 (moon)


def _seat_name(seat: int, players: int) -> str:
    if seat == players:
        return "dealer"
    return {1: "1st (left of dealer)", 2: "2nd", 3: "3rd"}.get(seat, f"{seat}th")


def _heuristic(**params: object) -> str:
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
        self.money0: np.ndarray | None = np.empty(hands) if keep else None
        self.moon0: np.ndarray | None = np.zeros(hands, bool) if keep else None

    def kept(self) -> tuple[np.ndarray, np.ndarray]:
        """Seat 0's money and whether it bid the moon, hand by hand (played with ``keep``)."""
        if self.money0 is None or self.moon0 is None:
            raise ValueError("this table did not keep seat 0's hands")
        return self.money0, self.moon0

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

        def pick(name: str) -> np.ndarray:
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
        if self.money0 is not None and self.moon0 is not None:
            self.money0[first:first + n] = m0
            self.moon0[first:first + n] = moon


def _play(players: int, policy: str | list[str], hands: int, seed: int, threads: int | None,
          progress: bool, keep: bool = False) -> _Table:
    t = _Table(players, hands, keep)
    first = 0
    for df in iter_hands(hands, players=players, policy=policy, seed=seed, threads=threads,
                         batch=BATCH, progress=progress):
        t.add(df, first)
        first += len(df)
        del df
    return t


def _sd(n: Values, total: Values, total_sq: Values) -> np.ndarray:
    """Sample standard deviation (ddof=1) from count, sum and sum of squares."""
    n, total, total_sq = (np.asarray(x, dtype=float) for x in (n, total, total_sq))
    with np.errstate(invalid="ignore", divide="ignore"):
        ss = np.maximum(total_sq - total * total / n, 0.0)
        return np.where(n > 1, np.sqrt(ss / (n - 1)), np.nan)


def _paired(diff: np.ndarray) -> tuple[float, float, float]:
    if len(diff) == 0:
        return math.nan, math.nan, math.nan
    return stats.mean_ci_of(diff)


# ---------------------------------------------------------------- tables

def _seat_rows(t: _Table) -> list[dict[str, Any]]:
    N, n = t.players, t.hands
    m, lo, hi = stats.mean_ci(np.full(N, n, float), t.seat_sum, t.seat_sq)
    sd = _sd(np.full(N, n, float), t.seat_sum, t.seat_sq)
    pr, plo, phi = proportion(t.seat_pitched, np.full(N, n))
    return [{"players": N, "seat": s + 1, "seat_name": _seat_name(s + 1, N), "hands": n,
             "money": m[s], "ci_low": lo[s], "ci_high": hi[s], "money_sd": float(sd[s]),
             "pitched": int(t.seat_pitched[s]), "pitch_rate": pr[s], "pitch_ci_low": plo[s],
             "pitch_ci_high": phi[s]} for s in range(N)]


def _bid_rows(t: _Table) -> list[dict[str, Any]]:
    L = t.lev
    rows = []
    for level in _LEVELS:
        n = round(float(L["hands"][level]))
        made = round(float(L["made"][level]))
        rate, lo, hi = proportion(made, n)
        row = {"players": t.players, "bid": BIDS[LEVELS.index(level)], "level": level,
               "hands": n, "share": n / t.hands, "stuck": round(float(L["stuck"][level])),
               "made": made, "rate": float(rate), "ci_low": lo, "ci_high": hi}
        for name, key in (("points", "pts"), ("score", "score"), ("money", "money")):
            m, mlo, mhi = stats.mean_ci(n, L[key][level], L[f"{key}_sq"][level])
            row.update({f"pitcher_{name}": m, f"pitcher_{name}_ci_low": mlo,
                        f"pitcher_{name}_ci_high": mhi})
        rows.append(row)
    return rows


def _seat0_cols(t: _Table) -> dict[str, Any]:
    s0, n = t.s0, t.hands
    m, lo, hi = stats.mean_ci(n, s0["money"], s0["money_sq"])
    return {"hands": n, "money": m, "ci_low": lo, "ci_high": hi,
            "money_sd": float(_sd(n, s0["money"], s0["money_sq"]))}


def _aggression_row(a: float, t: _Table, base: _Table) -> dict[str, Any]:
    s0 = t.s0
    d, dlo, dhi = _paired(t.kept()[0] - base.kept()[0])
    pr, plo, phi = proportion(s0["pitched"], t.hands)
    mr, mlo, mhi = proportion(s0["made"], s0["pitched"])
    return {"aggression": a, **_seat0_cols(t), "diff": d, "diff_ci_low": dlo,
            "diff_ci_high": dhi, "pitched": int(s0["pitched"]), "pitch_rate": float(pr),
            "pitch_ci_low": plo, "pitch_ci_high": phi, "made": int(s0["made"]),
            "made_rate": float(mr), "made_ci_low": mlo, "made_ci_high": mhi}


def _moon_row(setting: MoonSetting, t: _Table, never: _Table) -> dict[str, Any]:
    rule, trumps, run, label = setting
    s0, n = t.s0, t.hands
    bids = int(s0["moon_bids"])
    per, plo, phi = proportion(bids, n)
    sr, slo, shi = proportion(s0["moons_made"], bids)
    money0, moon0 = t.kept()
    diff = money0 - never.kept()[0]
    d, dlo, dhi = _paired(diff)
    mpb, mlo, mhi = stats.mean_ci(bids, s0["moon_money"], s0["moon_money_sq"])
    g, glo, ghi = _paired(diff[moon0])
    return {"setting": label, "moon_rule": str(rule), "moon_trumps": trumps, "moon_run": run,
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


def _session_rows(s: pd.DataFrame, players: int, implied: np.ndarray) -> list[dict[str, Any]]:
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


def _drop_in_rows(s: pd.DataFrame) -> list[dict[str, Any]]:
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
    aggr_rows: dict[float, dict[str, Any]] = {}
    moon_rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    base: _Table | None = None
    never: _Table | None = None
    t: _Table | None = None
    s: pd.DataFrame | None = None
    sessions = sessions_for(hands)
    with tqdm(runs, desc=NAME, unit="table", disable=not progress, leave=False,
              dynamic_ncols=True) as bar:
        for kind, what in bar:
            bar.set_postfix_str(f"{kind} {what}")
            # what: a player count (players, sessions, drop-in), an aggression or a
            # moon setting, as kind says
            if kind == "players":
                assert isinstance(what, int)
                t = _play(what, BASE, hands=hands, seed=seed, threads=threads, progress=progress,
                          keep=what == N4)
                seat_rows += _seat_rows(t)
                bid_rows += _bid_rows(t)
                if what == N4:
                    base = t
                    aggr_rows[0.0] = _aggression_row(0.0, base, base)
            elif kind == "aggression":
                assert isinstance(what, float)
                t = _play(N4, _seat0(_heuristic(aggression=what)), hands=hands, seed=seed,
                          threads=threads, progress=progress, keep=True)
                assert base is not None     # the 4-player table of PLAYERS comes first
                aggr_rows[what] = _aggression_row(what, t, base)
            elif kind == "moon":
                assert isinstance(what, tuple)
                rule, trumps, run, _ = what
                t = _play(N4, _seat0(_heuristic(moon_rule=rule, moon_trumps=trumps,
                                                moon_run=run)), hands=hands,
                          seed=seed, threads=threads, progress=progress, keep=True)
                assert base is not None     # the 4-player table of PLAYERS comes first
                if never is None:           # MOON_SETTINGS[0], the baseline, comes first
                    never = t
                    default = next(m for m in MOON_SETTINGS if m[:3] == DEFAULT_MOON)
                    moon_rows[default] = _moon_row(default, base, never)
                moon_rows[what] = _moon_row(what, t, never)
            elif kind == "sessions":
                assert isinstance(what, int)
                s = simulate_sessions(sessions, players=what, policy=BASE, seed=seed,
                                      start=hands, threads=threads, progress=progress)
                implied = _from_hands(pd.DataFrame(seat_rows), what, SESSION_HANDS)
                sess_rows += _session_rows(s, what, implied)
            else:
                assert isinstance(what, int)
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
