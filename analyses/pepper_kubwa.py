"""When to bid Pilipili Kubwa, from the whole table (seeds/pepper.md 3, 5, 9.3).

Method.  Every deal is dealt as ``simulate`` deals it (hand ``i``, dealer
``i mod players``) and played once for each **bidding plan** of the seat left
of the dealer, the first to speak (``api.plan_deals``): ``pass``, a ceiling
at each number level, ``ndogo``, ``kubwa``, and ``policy`` (the heuristic's
own bidding).  Every other seat bids and plays by the heuristic, through the
whole auction under the seed's rules: a low plan can be outbid, Kubwa ends the
auction.  A plan's value on a deal is the score change of the first
speaker's side minus that of an average opponent side; the same deals serve
every plan, so differences between plans are paired.

Hand class: the first speaker's trumps, bowers and aces outside trumps with
the trump it names when it plays Kubwa.  Per class: Kubwa's value against the
best other plan and against the heuristic's own bidding (paired differences
with 95% intervals).  The rule of thumb lists the classes where Kubwa beats
every other plan with an interval clear of zero.

Pre-emption: on the strong hands (the heuristic wanted at least T - 2: 4 of
6 tricks, 6 of 8), how often a lower plan lost the contract to the
opponents, and what that cost against bidding Kubwa on the same deal.  Win
chances: from four scores, the rest of each game played out from the score
each plan's deal leaves (strong hands only).

All tricks, three ways (seeds/pepper.md 7.3, 9.4): per hand class, the
chance that the first speaker's side takes every trick in Kubwa when it plays
by the heuristic, when it plays by the ``expert`` (on the strong hands: two
bowers and three or more trumps), the other seats playing the heuristic
both times, and the perfect-information bound on the same deals (every card
visible, the trump the heuristic named: no declaring side does better
against defenders who see every card, though weaker defenders may give
more); the ratios to the bound say how much of what the cards allow each
player gets.  On the first ``DEFENCE_DEALS`` of the strong deals both play
again against defenders who search (the expert at the defending seats), and
the findings say, against the break-even with the top number bid, whether
the rule of thumb for a player who searches differs from the heuristic's.
Per strong hand class (rare ones included: up to ``PER_CLASS`` deals of each
from all the deals), that rule of thumb: the expert's and the heuristic's
every-trick rates on the same deals, each against that break-even (Kubwa
above it with its whole interval, the top number bid below it).

Break-even without an auction: against Ndogo, Kubwa wins ``(k - n) T`` more
when it is made and loses as much more when it fails, so it pays when P(all
tricks) > 1/2; against the top number bid (T - 1) on a hand sure of T - 1
tricks it pays above ``p* = (k T + T - 1) / (2 k T - 1)`` (17/23 = 0.739 with
4 players, 23/31 = 0.742 with 2 or 3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from analyses.common import Plot, Study, Tables, int_groups, row_at, signed
from simkit import advice
from simkit.base import stats
from simkit.base.rows import rows_of
from simkit.pepper import api
from simkit.pepper.rules import PepperRules, make_rules
from simkit.study import StudyResult

NAME = "pepper-kubwa"
TITLE = "Pepper: when to bid Pilipili Kubwa"
DEFAULT_HANDS = 200_000        # deals per player count, each played with every plan
#: Bytes a deal holds while the study runs: every plan's outcome of it (peak
#: memory grew by 890 bytes a deal from 20,000 to 200,000 deals, 2026-12-04).
HELD_BYTES = 1_200
GAMES_PER_STATE = 400          # whole games per resulting score
MIN_CLASS = 200                # hand classes with fewer deals are not reported
POLICY = "heuristic"
PLAYERS = (4, 3, 2)
#: The heuristic's own bidding, played beside the fixed plans.
OWN = "policy"
#: Strong hands: the heuristic wanted at least T - STRONG (pre-emption, win chances).
STRONG = 2
#: Deals per player count given the perfect-information bound, and the most strong
#: deals (two bowers, three or more trumps) the expert plays: it searches, so it is
#: slow (seeds/pepper.md 7.3).
BOUND_DEALS = 100_000
EXPERT_DEALS = 2_000
EXPERT = "expert"
#: Of those, the deals also played against defenders who search (the expert at
#: the defending seats), by the heuristic and by the expert declaring.
DEFENCE_DEALS = 1_000
#: The rule of thumb for a player who searches: strong hand classes with at least
#: MIN_SEARCHED of all the deals, the expert playing the first PER_CLASS of each.
MIN_SEARCHED = 50
PER_CLASS = 300

#: Score states for the win-chance comparison: (label, our score, the leading
#: opponent's score; other opponents at 0).
STATES = (("start of the game", 0, 0), ("we are near 30", 24, 0),
          ("they are near 30", 0, 24), ("close game", 20, 20))


def break_even(players: int, kubwa_stake: int = 2, ndogo_stake: int = 1) -> dict[str, float]:
    """P(all tricks) above which Kubwa beats Ndogo, and the top number bid, with
    no auction.  The second assumes the hand is sure of all but one trick (then
    the number bid always scores T - 1 or T)."""
    T = 6 if players == 4 else 8
    k = kubwa_stake
    return {"vs_ndogo": 0.5 if k > ndogo_stake else float("nan"),
            "vs_top_number": (k * T + T - 1) / (2 * k * T - 1)}


# ---------------------------------------------------------------- per deal

def _hand_class(df: pd.DataFrame) -> pd.Series:
    """The bidder's hand class (the Kubwa run: the first speaker is the bidder)."""
    return (df["bidder_trumps"].astype(str) + " trumps, " + df["bidder_bowers"].astype(str)
            + " bowers, " + df["bidder_aces"].astype(str) + " outside aces"
            ).where(df["trump"].astype(str) != "NT", "no trump")


def _plan_runs(rules: PepperRules, hands: int, seed: int,
               threads: int | None) -> tuple[dict[str, Any], pd.DataFrame]:
    """Every plan on the same deals: ``{plan: (level, PlanOutcome, score changes)}``
    for the first speaker's side, and per deal its hand class, wanted level and
    whether Kubwa took every trick."""
    P, S = rules.players, rules.sides
    runs: dict[str, Any] = {}
    deals, wanted = None, None
    for name in [*api.plan_names(rules), OWN]:
        df = api.plan_deals(hands, name, players=P, policy=POLICY, seed=seed, threads=threads)
        dealer = df["dealer"].to_numpy(np.int64)
        seat = (dealer + 1) % P
        side = seat % 2 if P == 4 else seat
        scores = df[[f"score_{s}" for s in range(S)]].to_numpy(np.int64)
        rows = np.arange(len(df))
        us = scores[rows, side].astype(float)
        them = (scores.sum(axis=1) - us) / (S - 1)
        bidder = df["bidder"].to_numpy(np.int64)
        holds = (bidder >= 0) & ((bidder % 2 if P == 4 else bidder) == side)
        outcome = advice.PlanOutcome(holds=holds, made=df["made"].to_numpy(bool),
                                     thrown=bidder < 0, us=us, them=them, value=us - them)
        # score changes with the first speaker's side first, then the others in seat order
        order = np.stack([(side + k) % S for k in range(S)], axis=1)
        runs[name] = (api.parse_plan(rules, name), outcome,
                      np.take_along_axis(scores, order, axis=1))
        if name == "kubwa":
            deals = pd.DataFrame({"hand_class": _hand_class(df),
                                  "all_tricks": df["made"].to_numpy(bool),
                                  "number": df["hand"].to_numpy(np.int64),
                                  "trump": df["trump"].cat.codes.to_numpy(np.int64),
                                  "strong": ((df["bidder_bowers"] == 2)
                                             & (df["bidder_trumps"] >= 3)).to_numpy()})
        if name == OWN:
            bids = df[[f"bid_{s}" for s in range(P)]].to_numpy()
            wanted = bids[rows, seat]
    if deals is None or wanted is None:
        raise RuntimeError(f"the plans {api.plan_names(rules)} have no kubwa")
    deals["wanted"] = wanted
    return runs, deals


def _rules(players: int) -> PepperRules:
    """The seed's rules for ``players`` (``make_rules`` is typed to give a Config)."""
    return cast(PepperRules, make_rules(players=players))


# ---------------------------------------------------------------- tables

def _paired(d: np.ndarray, groups: pd.Series | None = None) -> Any:
    """Mean of paired differences ``d`` with its 95% interval, overall or per group."""
    if groups is None:
        return stats.mean_ci_of(d)
    g = pd.DataFrame({"d": d, "sq": d * d, "g": groups.to_numpy()}).groupby("g", sort=False)
    return stats.mean_ci(g["d"].size(), g["d"].sum(), g["sq"].sum())


def _by_class(runs: dict[str, Any], deals: pd.DataFrame, players: int) -> pd.DataFrame:
    """Per hand class: P(all tricks), Kubwa's value, the best other plan's, the
    heuristic's own, and Kubwa's paired advantage over each."""
    cls = deals.groupby("hand_class", sort=False)["all_tricks"].agg(["size", "sum"])
    cls.columns = ["deals", "all_tricks"]
    value = pd.DataFrame({n: r[1].value for n, r in runs.items()})
    means = value.groupby(deals["hand_class"], sort=False).mean()
    others = [n for n in runs if n not in ("kubwa", OWN)]
    cls["ev_kubwa"], cls["ev_policy"] = means["kubwa"], means[OWN]
    cls["best_other"] = means[others].idxmax(axis=1)
    cls["ev_best_other"] = means[others].max(axis=1)
    best = cls["best_other"].reindex(deals["hand_class"]).to_numpy()
    other = value[others].to_numpy()[np.arange(len(value)),
                                     [others.index(b) for b in best]]
    k = value["kubwa"].to_numpy()
    for col, d in (("kubwa_vs_best", k - other), ("kubwa_vs_policy", k - value[OWN].to_numpy())):
        m, lo, hi = _paired(d, deals["hand_class"])
        cls[col], cls[f"{col}_low"], cls[f"{col}_high"] = m, lo, hi
    cls = cls[cls["deals"] >= MIN_CLASS].reset_index()
    cls["p_all"] = cls["all_tricks"] / cls["deals"]
    cls["ci_low"], cls["ci_high"] = stats.proportion_ci(cls["all_tricks"], cls["deals"])
    cls.insert(0, "players", players)
    return cls.sort_values("p_all", ascending=False)


def _expert_made(rules: PepperRules, numbers: np.ndarray, seed: int, threads: int | None,
                 declaring: str = EXPERT,
                 defending: str = POLICY) -> np.ndarray:
    """Whether Kubwa took every trick on deals ``numbers`` when the first speaker's
    side plays ``declaring`` (the expert) and the other seats ``defending`` (the
    heuristic, as in the heuristic's runs, or the expert: defenders who search);
    the first speaker's seat turns with the dealer: one run per seat."""
    P = rules.players
    first = (numbers % P + 1) % P
    made = np.zeros(len(numbers), bool)
    for seat in range(P):
        rows = np.flatnonzero(first == seat)
        if not len(rows):
            continue
        pols = [declaring if rules.side_of(s) == rules.side_of(seat) else defending
                for s in range(P)]
        df = api.plan_deals(0, "kubwa", players=P, policy=pols, seed=seed, threads=threads,
                            numbers=numbers[rows])
        made[rows] = df["made"].to_numpy(bool)
    return made


def _searching_defence(rules: PepperRules, same: pd.DataFrame, seed: int,
                       threads: int | None) -> dict[str, Any]:
    """On the first ``DEFENCE_DEALS`` of the expert's strong deals: every trick
    against defenders who search (the expert at the defending seats), the
    heuristic declaring and the expert declaring, beside the same deals
    against the heuristic's defence (paired)."""
    part = same.iloc[:DEFENCE_DEALS]
    if len(part) < 2:
        return {"defence_deals": len(part)}
    numbers = part["number"].to_numpy()
    h = _expert_made(rules, numbers, seed=seed, threads=threads, declaring=POLICY,
                     defending=EXPERT).astype(float)
    e = _expert_made(rules, numbers, seed=seed, threads=threads, declaring=EXPERT,
                     defending=EXPERT).astype(float)
    h0, e0 = part["all_tricks"].to_numpy(float), part["expert"].to_numpy(float)
    out = {"defence_deals": len(part), "p_heuristic_vs_heuristic": h0.mean(),
           "p_expert_vs_heuristic": e0.mean(), "p_heuristic_vs_expert": h.mean(),
           "p_expert_vs_expert": e.mean()}
    for name, d in (("searching_gain", e - h), ("defence_cost", e - e0)):
        m, lo, hi = stats.mean_ci_of(d)
        out.update({name: m, f"{name}_low": lo, f"{name}_high": hi})
    return out


def _verdict(k: int, n: int, be: float) -> str:
    """Kubwa against the top number bid on a class where ``k`` of ``n`` deals took
    every trick: clear of the break-even ``be`` either way, or not told apart."""
    lo, hi = stats.proportion_ci(k, n)
    return "bid Kubwa" if lo > be else "bid the top number" if hi < be else "not told apart"


def _searching_thumbs(rules: PepperRules, deals: pd.DataFrame, seed: int,
                      threads: int | None) -> list[dict[str, Any]]:
    """The rule of thumb for a player who searches, per strong hand class with at
    least ``MIN_SEARCHED`` deals among all the study's deals (rare strong classes
    included): on the first ``PER_CLASS`` deals of each, the heuristic and the
    expert declaring on the same deals (the defenders playing the heuristic),
    each every-trick rate against the break-even with the top number bid."""
    be = break_even(rules.players, rules.kubwa_stake, rules.ndogo_stake)["vs_top_number"]
    strong = deals[deals["strong"]]
    picked = pd.concat([g.head(PER_CLASS) for _, g in strong.groupby("hand_class", sort=False)
                        if len(g) >= MIN_SEARCHED] or [strong.iloc[:0]])
    made = _expert_made(rules, picked["number"].to_numpy(), seed, threads)
    picked = picked.assign(expert=made)
    rows = []
    for cls, g in picked.groupby("hand_class", sort=False):
        row = {"players": rules.players, "hand_class": cls, "deals": len(g), "break_even": be}
        for name, x in (("heuristic", g["all_tricks"]), ("expert", g["expert"])):
            k, n = int(x.sum()), len(x)
            lo, hi = stats.proportion_ci(k, n)
            row.update({f"p_{name}": k / n, f"{name}_low": lo, f"{name}_high": hi,
                        name: _verdict(k, n, be)})
        row["differs"] = row["heuristic"] != row["expert"]
        rows.append(row)
    return sorted(rows, key=lambda r: -r["p_expert"])


def _three_ways(rules: PepperRules, deals: pd.DataFrame, seed: int,
                threads: int | None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """P(every trick in Kubwa) on the first ``BOUND_DEALS`` deals with the
    heuristic declaring, with the expert declaring (the strong deals, at most
    ``EXPERT_DEALS``) and the perfect-information bound: per hand class (each
    player's share of the bound taken on its own deals), and the strong deals
    pooled, where both players played the same deals (paired)."""
    deals = deals.iloc[:BOUND_DEALS].copy()
    deals["bound"] = api.bound_first(deals["number"], deals["trump"], players=rules.players,
                                     seed=seed, threads=threads,
                                     target=rules.tricks).astype(bool)
    strong = deals.index[deals["strong"]][:EXPERT_DEALS]
    deals["expert"] = np.nan
    deals.loc[strong, "expert"] = _expert_made(rules, deals.loc[strong, "number"].to_numpy(),
                                               seed, threads).astype(float)
    rows = []
    for cls, g in deals.groupby("hand_class", sort=False):
        if len(g) < MIN_CLASS:
            continue
        row = {"players": rules.players, "hand_class": cls, "strong": bool(g["strong"].all())}
        played = g[g["expert"].notna()]
        for name, x in (("heuristic", g["all_tricks"]), ("bound", g["bound"]),
                        ("expert", played["expert"] == 1)):
            n, k = len(x), int(x.sum())
            lo, hi = stats.proportion_ci(k, n) if n else (np.nan, np.nan)
            row.update({f"{name}_deals": n, f"p_{name}": k / n if n else np.nan,
                        f"{name}_low": lo, f"{name}_high": hi})
        for name, made, bound in (("heuristic", g["all_tricks"], g["bound"]),
                                  ("expert", played["expert"] == 1, played["bound"])):
            row[f"{name}_of_bound"] = made.sum() / bound.sum() if bound.sum() else np.nan
        rows.append(row)
    # a small run may leave no class with MIN_CLASS deals: an empty table, same columns
    columns = ["players", "hand_class", "strong"] + [
        part for name in ("heuristic", "bound", "expert")
        for part in (f"{name}_deals", f"p_{name}", f"{name}_low", f"{name}_high")] + [
        "heuristic_of_bound", "expert_of_bound"]
    by_class = pd.DataFrame(rows, columns=columns).sort_values("p_bound", ascending=False)
    same = deals.loc[strong]
    h, e, b = (same["all_tricks"].to_numpy(float), same["expert"].to_numpy(float),
               same["bound"].to_numpy(float))
    gain, lo, hi = stats.mean_ci_of(e - h) if len(same) > 1 else (np.nan,) * 3
    pooled = {"players": rules.players, "deals": len(same), "p_heuristic": h.mean(),
              "p_expert": e.mean(), "p_bound": b.mean(), "expert_gain": gain,
              "gain_low": lo, "gain_high": hi,
              "heuristic_of_bound": h.sum() / b.sum() if b.sum() else np.nan,
              "expert_of_bound": e.sum() / b.sum() if b.sum() else np.nan,
              **_searching_defence(rules, same, seed, threads)}
    return by_class, pooled


def _thumb_rows(cls: pd.DataFrame) -> list[dict[str, Any]]:
    """The rule of thumb: classes where Kubwa beats every other plan (or at least
    the heuristic's own bidding) with an interval clear of zero."""
    rows = []
    for c in rows_of(cls):
        if c.kubwa_vs_best_low > 0:
            verdict = "bid Kubwa"
        elif c.kubwa_vs_policy_low > 0:
            verdict = f"Kubwa beats the heuristic's own bid, but {c.best_other} pays more"
        else:
            continue
        rows.append({"players": c.players, "hand_class": c.hand_class, "deals": c.deals,
                     "p_all": c.p_all, "kubwa_vs_best": c.kubwa_vs_best,
                     "kubwa_vs_best_low": c.kubwa_vs_best_low, "verdict": verdict})
    return rows


def _preemption(runs: dict[str, Any], strong: np.ndarray, players: int) -> list[dict[str, Any]]:
    """On the strong hands: how often each lower plan lost the contract to the
    opponents, and what that cost against Kubwa on the same deals."""
    k = runs["kubwa"][1].value[strong]
    rows = []
    for name, (level, o, _) in runs.items():
        if name in ("kubwa", "pass"):
            continue
        outbid = (~o.holds & ~o.thrown)[strong]
        n, m = int(strong.sum()), int(outbid.sum())
        lo, hi = stats.proportion_ci(m, n)
        d = k - o.value[strong]
        cost, c_lo, c_hi = stats.mean_ci_of(d[outbid]) if m else (np.nan,) * 3
        pre, p_lo, p_hi = stats.mean_ci_of(np.where(outbid, d, 0.0))
        rows.append({"players": players, "plan": name, "level": level, "hands": n,
                     "outbid": m, "p_outbid": m / n if n else np.nan, "ci_low": lo,
                     "ci_high": hi, "cost_when_outbid": cost, "cost_low": c_lo,
                     "cost_high": c_hi, "preemption_value": pre, "preemption_low": p_lo,
                     "preemption_high": p_hi})
    return rows


def _win_chances(rules: PepperRules, runs: dict[str, Any], strong: np.ndarray, seed: int,
                 threads: int | None) -> list[dict[str, Any]]:
    """Chance to win the game after each plan on the strong hands, from each of
    :data:`STATES`; the rest of the game played out from the resulting score."""
    cache: dict[tuple[Any, ...], float] = {}

    def win(scores: Iterable[float]) -> float:
        key = tuple(int(x) for x in scores)
        if key not in cache:
            g = api.simulate_games(GAMES_PER_STATE, rules=rules, policy=POLICY,
                                   seed=seed + 1 + len(cache), scores=key, first_dealer=0,
                                   threads=threads)
            cache[key] = float(g["win_0"].mean())
        return cache[key]

    rows = []
    for label, us, them in STATES:
        start = np.zeros(rules.sides, np.int64)
        start[:2] = us, them
        for name, (_, _, delta) in runs.items():
            keys, inverse = np.unique(start + delta[strong], axis=0, return_inverse=True)
            p = np.array([win(k) for k in keys])[inverse.ravel()]
            mean, lo, hi = stats.mean_ci_of(p)
            rows.append({"players": rules.players, "state": label, "us": us, "them": them,
                         "plan": name, "hands": len(p), "p_win": mean, "ci_low": lo,
                         "ci_high": hi})
    return rows


def _player_count(players: int, hands: int, seed: int, threads: int | None) -> dict[str, list[Any]]:
    """The rows each table gets from ``hands`` deals with ``players`` players."""
    rules = _rules(players)
    runs, deals = _plan_runs(rules, hands, seed, threads)
    strong = deals["wanted"].to_numpy() >= rules.tricks - STRONG
    plans = advice.plan_table({n: r[:2] for n, r in runs.items()})
    plans.insert(0, "players", players)
    be = break_even(players, rules.kubwa_stake, rules.ndogo_stake)
    k = int(deals["all_tricks"].sum())
    lo, hi = stats.proportion_ci(k, len(deals))
    overview = {"players": players, "tricks": rules.tricks,
                "kubwa_points": rules.kubwa_stake * rules.tricks, "deals": len(deals),
                "strong_hands": int(strong.sum()), "p_all_tricks": k / len(deals),
                "ci_low": lo, "ci_high": hi, "break_even_vs_ndogo": be["vs_ndogo"],
                "break_even_vs_top_number": be["vs_top_number"]}
    cls = _by_class(runs, deals, players)
    return {"overview": [overview], "plans": [plans], "by_hand_class": [cls],
            **dict(zip(("all_tricks", "all_tricks_strong"),
                       ([x] for x in _three_ways(rules, deals, seed, threads)))),
            "rule_of_thumb_searching": _searching_thumbs(rules, deals, seed, threads),
            "rule_of_thumb": _thumb_rows(cls), "preemption": _preemption(runs, strong, players),
            "win_chance_by_score": _win_chances(rules, runs, strong, seed, threads)}


THUMB_COLUMNS = ["players", "hand_class", "deals", "p_all", "kubwa_vs_best",
                 "kubwa_vs_best_low", "verdict"]
SEARCHING_THUMB_COLUMNS = ["players", "hand_class", "deals", "break_even"] + [
    part for name in ("heuristic", "expert")
    for part in (f"p_{name}", f"{name}_low", f"{name}_high", name)] + ["differs"]


def simulate_tables(hands: int = DEFAULT_HANDS, seed: int = 0, progress: bool = False,
                    threads: int | None = None) -> dict[str, pd.DataFrame]:
    """The study's tables from ``hands`` deals per player count of ``PLAYERS``."""
    parts = [_player_count(players, hands, seed, threads) for players in PLAYERS]
    rows = {k: [r for p in parts for r in p[k]] for k in parts[0]}
    return {"overview": pd.DataFrame(rows["overview"]),
            "plans": pd.concat(rows["plans"], ignore_index=True),
            "by_hand_class": pd.concat(rows["by_hand_class"], ignore_index=True),
            "all_tricks": pd.concat(rows["all_tricks"], ignore_index=True),
            "all_tricks_strong": pd.DataFrame(rows["all_tricks_strong"]),
            "rule_of_thumb": pd.DataFrame(rows["rule_of_thumb"], columns=THUMB_COLUMNS),
            "rule_of_thumb_searching": pd.DataFrame(rows["rule_of_thumb_searching"],
                                                    columns=SEARCHING_THUMB_COLUMNS),
            "preemption": pd.DataFrame(rows["preemption"]),
            "win_chance_by_score": pd.DataFrame(rows["win_chance_by_score"])}


# ---------------------------------------------------------------- summary

def findings(tables: Tables) -> list[str]:
    """Plain-language findings computed from the tables (none typed in)."""
    overview, plans, thumbs, pre, wins = (tables[k] for k in (
        "overview", "plans", "rule_of_thumb", "preemption", "win_chance_by_score"))
    lines = []
    for r in rows_of(overview):
        p = plans[plans["players"] == r.players].set_index("bid")
        best = p.drop(["kubwa", OWN])["ev"].idxmax()
        lines.append(
            f"With {r.players} players ({r.tricks} tricks, Kubwa worth ±{r.kubwa_points}) the "
            f"first speaker's side takes every trick after bidding Kubwa on {r.p_all_tricks:.1%} "
            f"of all deals (95% CI {r.ci_low:.1%}-{r.ci_high:.1%}, n={r.deals:,}); over all "
            f"deals the heuristic's own bidding is worth {p.loc[OWN, 'ev']:+.2f} points a hand, "
            f"the best fixed plan ({best}) {p.loc[best, 'ev']:+.2f}, Kubwa "
            f"{p.loc['kubwa', 'ev']:+.2f}.")
        t = thumbs[(thumbs["players"] == r.players) & (thumbs["verdict"] == "bid Kubwa")]
        held = "; ".join(t["hand_class"]) if len(t) else "no hand class clears every other plan"
        lines.append(f"{r.players} players, bid Kubwa with: {held}.")
        q = pre[pre["players"] == r.players].set_index("plan")
        top = str(r.tricks - 1)
        if OWN in q.index and top in q.index:
            own, num = q.loc[OWN], q.loc[top]
            verdict = "pays" if own.preemption_low > 0 else \
                "does not pay" if own.preemption_high < 0 else "is a wash"
            lines.append(
                f"{r.players} players, pre-emption: on the {int(own.hands):,} strong hands the "
                f"heuristic's own bid is outbid in {own.p_outbid:.1%} of deals (the top number "
                f"bid, {top}, in {num.p_outbid:.1%}); on those deals Kubwa instead changes the "
                f"result by {signed(own.cost_when_outbid, 2)} points, "
                f"{signed(own.preemption_value, 2)} per strong hand: pre-emption {verdict}.")
    w = wins.pivot_table(index=["players", "state"], columns="plan", values="p_win")
    if "kubwa" in w and OWN in w:
        diff = (w["kubwa"] - w[OWN]).rename("d").reset_index()
        best, worst = row_at(diff, diff["d"].idxmax()), row_at(diff, diff["d"].idxmin())
        lines.append(
            f"On strong hands the score matters: Kubwa instead of the heuristic's own bidding "
            f"changes the chance of winning the game by {best.d:+.1%} ({best.players} players, "
            f"{best.state}) down to {worst.d:+.1%} ({worst.players} players, {worst.state}).")
    for r in rows_of(tables["all_tricks_strong"]):
        if not r.deals:
            continue
        verdict = ("the two make exactly the same deals, so the rule of thumb above holds for "
                   "a player that searches too" if r.gain_low == r.gain_high == 0 else
                   "the expert takes every trick more often, so the rule of thumb above, made "
                   "with the heuristic, undersells strong hands to a player that searches"
                   if r.gain_low > 0 else
                   "the expert takes every trick less often" if r.gain_high < 0 else
                   "the two are not told apart at this size, so the rule of thumb above holds "
                   "for a player that searches too")
        lines.append(
            f"{r.players} players, Kubwa on {r.deals:,} strong hands (two bowers and three or "
            f"more trumps), the same deals for both, the defenders playing the heuristic: the "
            f"side takes every trick in {r.p_heuristic:.1%} playing the heuristic and "
            f"{r.p_expert:.1%} playing the expert ({signed(100 * r.expert_gain, 1)} points, 95% "
            f"CI {signed(100 * r.gain_low, 1)} to {signed(100 * r.gain_high, 1)}): {verdict}. "
            f"With every card visible and perfect defence it would in {r.p_bound:.1%}"
            + (f" (the heuristic makes {r.heuristic_of_bound:.2f} of that, the expert "
               f"{r.expert_of_bound:.2f})" if r.p_bound > 0 else "")
            + (": these defenders give away more than perfect ones would."
               if max(r.p_heuristic, r.p_expert) > r.p_bound else "."))
    be = overview.set_index("players")["break_even_vs_top_number"]
    lines += [_searching_line(r, be[r.players]) for r in rows_of(tables["all_tricks_strong"])
              if r.deals and getattr(r, "defence_deals", 0) > 1]
    searched = tables["rule_of_thumb_searching"]
    lines += [_searching_thumb_line(players, be[players], t)
              for players, t in int_groups(searched, "players", sort=False)]
    lines.append(f"Every other seat bid and played by the {POLICY} policy; the first "
                 f"speaker played its cards by it too, except in the all-tricks comparison's "
                 f"{EXPERT} column, where the first speaker's side played by {EXPERT}, and "
                 f"against searching defenders, where the defending seats played by {EXPERT}; "
                 f"the bound has no policy.")
    return lines


def _clears(p: float, n: int, be: float) -> str:
    """Where an every-trick rate of ``n`` deals stands against the break-even ``be``."""
    lo, hi = stats.proportion_ci(round(p * n), n)
    return "above it" if lo > be else "below it" if hi < be else "not told apart from it"


def _searching_line(r: pd.Series, be: float) -> str:
    """The strong hands against defenders who search, and where the rule of thumb
    for a player who searches differs from the heuristic's, in plain words."""
    n = r.defence_deals
    where = {name: _clears(getattr(r, f"p_{name}"), n, be) for name in (
        "heuristic_vs_heuristic", "expert_vs_heuristic", "heuristic_vs_expert",
        "expert_vs_expert")}
    if where["expert_vs_expert"] == where["heuristic_vs_heuristic"]:
        rule = ("so on these hands the rule of thumb is the same for a player who searches "
                "against defenders who search as for the heuristic against the heuristic")
    else:
        rule = (f"so here the rule of thumb differs: the heuristic at a heuristic table is "
                f"{where['heuristic_vs_heuristic']}, a player who searches against defenders "
                f"who search {where['expert_vs_expert']}")
    cost = r.defence_cost_high < 0
    return (
        f"{r.players} players, the same strong hands against defenders who search (the "
        f"expert at the defending seats), {n:,} deals: the side takes every trick in "
        f"{r.p_heuristic_vs_expert:.1%} playing the heuristic and {r.p_expert_vs_expert:.1%} "
        f"playing the expert ({signed(100 * r.searching_gain, 1)} points, 95% CI "
        f"{signed(100 * r.searching_gain_low, 1)} to {signed(100 * r.searching_gain_high, 1)}); "
        f"against heuristic defenders these deals give {r.p_heuristic_vs_heuristic:.1%} and "
        f"{r.p_expert_vs_heuristic:.1%}: searching defenders "
        + (f"cost the searching declarer {-100 * r.defence_cost:.1f} points (95% CI "
           f"{-100 * r.defence_cost_high:.1f} to {-100 * r.defence_cost_low:.1f})" if cost else
           f"change the searching declarer's rate by {signed(100 * r.defence_cost, 1)} points "
           f"(95% CI {signed(100 * r.defence_cost_low, 1)} to "
           f"{signed(100 * r.defence_cost_high, 1)})")
        + ". Against the break-even with the "
        f"top number bid ({be:.3f}): the heuristic against the heuristic is "
        f"{where['heuristic_vs_heuristic']}, the expert against the heuristic "
        f"{where['expert_vs_heuristic']}, the heuristic against searching defenders "
        f"{where['heuristic_vs_expert']}, the expert against them {where['expert_vs_expert']}; "
        + rule + ".")


def _searching_thumb_line(players: int, be: float, t: pd.DataFrame) -> str:
    """Per strong hand class, the rule of thumb for a player who searches beside
    the heuristic's on the same deals, in plain words."""
    def classes(col: str) -> str:
        picked = t.loc[t[col] == "bid Kubwa", "hand_class"]
        return "; ".join(picked) if len(picked) else "no strong class"

    differs = t[t["differs"]]
    where = ("the two rules agree on every strong class" if differs.empty else
             "the rules differ on " + "; ".join(
                 f"{r.hand_class} (the heuristic: {r.heuristic}, {r.p_heuristic:.1%}; "
                 f"a player who searches: {r.expert}, {r.p_expert:.1%}, 95% CI "
                 f"{r.expert_low:.1%}-{r.expert_high:.1%})" for r in rows_of(differs)))
    return (f"{players} players, the rule of thumb for a player who searches (the expert "
            f"declaring, the defenders playing the heuristic), per strong hand class against "
            f"the break-even with the top number bid ({be:.3f}), the same deals for both: "
            f"a player who searches bids Kubwa with {classes('expert')}; the heuristic, by the "
            f"same measure, with {classes('heuristic')}; {where}.")


# ---------------------------------------------------------------- figures

def _by_class_panels(table: pd.DataFrame, top: int, title: str, height: float,
                     draw: Callable[[Axes, np.ndarray, pd.DataFrame], None]) -> Figure:
    """One panel per player count, stacked: the first ``top`` hand classes as rows
    (best at the top), ``draw(ax, y, rows)`` drawing the bars."""
    fig, axes = plt.subplots(3, 1, figsize=(9, height))
    for ax, (players, c) in zip(axes, int_groups(table, "players", sort=False)):
        c = c.head(top).iloc[::-1]
        y = np.arange(len(c))
        draw(ax, y, c)
        ax.set_yticks(y, c["hand_class"], fontsize=7)
        ax.set_title(f"{players} players: {title}")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def _value_bars(ax: Axes, y: np.ndarray, c: pd.DataFrame) -> None:
    for i, (col, label, color) in enumerate((
            ("ev_kubwa", "Kubwa", "tab:red"), ("ev_best_other", "best other plan", "tab:blue"),
            ("ev_policy", "heuristic's own bidding", "tab:grey"))):
        ax.barh(y + (i - 1) * 0.27, c[col], height=0.27, color=color, label=label)
    d = c["kubwa_vs_best"].to_numpy()
    err = [d - c["kubwa_vs_best_low"], c["kubwa_vs_best_high"] - d]
    ax.errorbar(d, y, xerr=err, fmt="k.", ms=4, capsize=2,
                label="Kubwa minus best other (95% CI)")
    ax.axvline(0, color="k", lw=0.8)


def _value_by_hand_class(tables: Tables) -> Figure:
    return _by_class_panels(tables["by_hand_class"], 15,
                            "points a hand by the first speaker's hand", 15, _value_bars)


def _per_player_count(table: pd.DataFrame,
                      draw: Callable[[Axes, int, pd.DataFrame], None]) -> Figure:
    """One panel per player count, side by side: ``draw(ax, players, rows)``."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
    for ax, (players, rows) in zip(axes, int_groups(table, "players", sort=False)):
        draw(ax, players, rows)
        ax.set_ylim(0, 1)
    fig.tight_layout()
    return fig


def _preemption_panel(ax: Axes, players: int, q: pd.DataFrame) -> None:
    x = np.arange(len(q))
    ax.bar(x, q["p_outbid"], yerr=[q["p_outbid"] - q["ci_low"], q["ci_high"] - q["p_outbid"]],
           color="tab:orange")
    ax.set_xticks(x, q["plan"], fontsize=8)
    ax.set_title(f"{players} players: strong hands outbid, by plan")


def _win_chance_panel(ax: Axes, players: int, w: pd.DataFrame) -> None:
    states = list(dict.fromkeys(w["state"]))
    opts = ["kubwa", "ndogo", str((6 if players == 4 else 8) - 1), OWN]
    x = np.arange(len(states))
    for i, o in enumerate(opts):
        r = w[w["plan"] == o].set_index("state").loc[states]
        ax.bar(x + i * 0.8 / len(opts), r["p_win"], width=0.8 / len(opts), label=o,
               yerr=[r["p_win"] - r["ci_low"], r["ci_high"] - r["p_win"]])
    ax.set_xticks(x + 0.4 - 0.4 / len(opts), states, rotation=15, fontsize=8)
    ax.set_title(f"{players} players: chance to win the game (strong hands)")
    ax.legend(fontsize=7)


def _three_ways_bars(ax: Axes, y: np.ndarray, c: pd.DataFrame) -> None:
    for i, (name, color) in enumerate((("heuristic", "tab:grey"), ("expert", "tab:green"),
                                       ("bound", "tab:purple"))):
        p = c[f"p_{name}"].to_numpy(float)
        err = [p - c[f"{name}_low"], c[f"{name}_high"] - p]
        ax.barh(y + (i - 1) * 0.27, p, height=0.27, color=color, label=name,
                xerr=err, error_kw={"lw": 0.8})
    ax.set_xlim(0, 1)


def _three_ways_figure(tables: Tables) -> Figure:
    return _by_class_panels(tables["all_tricks"], 12,
                            "P(every trick in Kubwa) by the first speaker's hand", 14,
                            _three_ways_bars)


FIGURES = (
    Plot("all_tricks",
         "The chance of every trick in Kubwa by the first speaker's hand, its side playing by "
         "the heuristic, by the expert (strong hands only), the defenders by the heuristic, and "
         "the perfect-information bound on the same deals (every card visible, the trump the "
         "heuristic named), with 95% intervals.", _three_ways_figure),
    Plot("value_by_hand_class",
         "Points a hand for the first speaker's side (minus an average opponent side), by its "
         "hand (trumps, bowers and aces outside trumps with the trump it names for Kubwa): "
         "Kubwa, the best other plan and the heuristic's own bidding, every plan played "
         "through the whole auction; black: Kubwa minus the best other plan, 95% interval.",
         _value_by_hand_class),
    Plot("preemption",
         "Pre-emption: on the strong hands (the heuristic wanted at least T - 2 tricks), the "
         "share of deals in which each lower plan lost the contract to the "
         "opponents, with 95% intervals. Kubwa is never outbid.",
         lambda t: _per_player_count(t["preemption"], _preemption_panel)),
    Plot("win_chance_by_score",
         "Chance to win the game after each plan on the strong hands, from four scores.",
         lambda t: _per_player_count(t["win_chance_by_score"], _win_chance_panel)),
)


# ---------------------------------------------------------------- the study

NOTES = (
    __doc__.split("\n\n", 1)[1].strip(),
    f"Hand classes with fewer than {MIN_CLASS} deals are left out. Win chances: "
    f"{GAMES_PER_STATE} whole games per resulting score; their intervals cover the spread "
    "over hands, not the game-simulation error (about ±2.5 points).",
)


def _provenance(hands: int) -> dict[str, Any]:
    plans = sum(len(api.plan_names(make_rules(players=p))) + 1 for p in PLAYERS)
    return {"hands": hands * plans,
            "rules": {p: make_rules(players=p).as_dict() for p in PLAYERS},
            "policies": [POLICY, EXPERT], "deals_per_player_count": hands,
            "bound_deals": min(hands, BOUND_DEALS), "expert_strong_deals": EXPERT_DEALS,
            "plan_seat": "left of the dealer (the first to speak)",
            "games_per_score": GAMES_PER_STATE}


STUDY = Study(NAME, TITLE, DEFAULT_HANDS,
              kernels=("pepper:hands", "pepper:bound", "pepper:expert"),
              size="deals per player count, each played with "
              "every plan", simulate=simulate_tables, findings=findings,
              figures=FIGURES, provenance=_provenance, notes=NOTES)


def run(hands: int | None = None, seed: int = 0, progress: bool = False,
        threads: int | None = None) -> StudyResult:
    """The Kubwa study: tables, findings, figures (see the module docstring)."""
    return STUDY.run(hands, seed, progress, threads)
