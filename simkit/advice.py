"""Advice from bidding plans, once for every game with bids.

The advisors (``simkit advise GAME``) hold one hand at one seat, deal the
unseen cards many times and play each **bidding plan** (pass, a ceiling
level, the top bids) through the whole auction against the other seats'
policies: each game's ``api.plan_hands`` plays them.  A game's advisor
turns each plan's hand records into a :class:`PlanOutcome` (per deal: did
the hand's side hold the contract, did it make it, the points of the hand's
side and of an average opponent side, the value the plans are ranked by);
this module turns those into the table of estimates with their 95%
intervals, picks the recommendation and says why, the same way for every
game.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from simkit.base import stats
from simkit.base.errors import InputError

#: Values closer than this count as equal when ranking plans (float noise in means).
TIE = 1e-12

#: Columns of :func:`plan_table`, in order (``p_win`` is added with a score).
COLUMNS = ("bid", "level", "deals", "p_contract", "contract_low", "contract_high", "held",
           "p_make", "ci_low", "ci_high", "ev_us", "ev_them", "ev", "ev_low", "ev_high")


@dataclass(frozen=True)
class PlanOutcome:
    """One plan played on every sampled deal (arrays of one value per deal).

    ``holds``: the hand's side held the contract; ``made``: that contract was
    made (read where ``holds``); ``thrown``: nobody held a contract (the hand
    was thrown in); ``us`` / ``them``: the score change of the hand's side and
    of an average opponent side; ``value``: what plans are ranked by (points
    us minus them, or money).
    """

    holds: np.ndarray
    made: np.ndarray
    thrown: np.ndarray
    us: np.ndarray
    them: np.ndarray
    value: np.ndarray


def plan_list(plans: str | Sequence[str] | None, names: list[str], parse: Callable[[str], Any],
              declarer: bool = False) -> list[str]:
    """The plans to play, in the game's order: every plan of ``names`` when
    ``plans`` is None, else the ones given (a list, or text such as
    ``"pass,3,kubwa"``; ``policy``, the seat's own bidding, may be added),
    each checked by ``parse`` (which raises InputError).  The no-auction
    figures (``declarer``) have no plans to choose."""
    if plans is None:
        return list(names)
    if declarer:
        raise InputError("--plans are played through the auction: leave out --declarer")
    given = [p.strip() for p in plans.split(",")] if isinstance(plans, str) else list(plans)
    levels = {parse(n): n for n in [*names, "policy"]}
    chosen = {parse(p) for p in given}
    if len(chosen) < 2:
        raise InputError(f"bad --plans {plans!r}: give two or more plans to compare, "
                         f"from {', '.join(names)} and policy")
    return [n for lv, n in levels.items() if lv in chosen]


def plan_table(plans: dict[str, tuple[int, PlanOutcome]]) -> pd.DataFrame:
    """One row per plan (``{name: (level, outcome)}``, in the order given).

    ``p_contract`` is the share of deals in which the hand's side held the
    contract (``held`` of ``deals``); ``p_make`` the share of those in which
    it was made (NaN when it never held one); ``ev_us`` / ``ev_them`` the
    mean score changes; ``ev`` the mean ranking value with its interval.
    """
    rows = []
    for name, (level, o) in plans.items():
        n = len(o.holds)
        held = int(o.holds.sum())
        made = int((o.holds & o.made).sum())
        c_lo, c_hi = stats.proportion_ci(held, n)
        m_lo, m_hi = stats.proportion_ci(made, held)
        ev, ev_lo, ev_hi = stats.mean_ci_of(o.value)
        _, us_lo, us_hi = stats.mean_ci_of(o.us)
        _, them_lo, them_hi = stats.mean_ci_of(o.them)
        rows.append({"bid": name, "level": level, "deals": n, "p_contract": held / n,
                     "contract_low": c_lo, "contract_high": c_hi, "held": held,
                     "p_make": made / held if held else float("nan"),
                     "ci_low": m_lo, "ci_high": m_hi,
                     "ev_us": float(o.us.mean()), "ev_them": float(o.them.mean()),
                     "ev_us_low": us_lo, "ev_us_high": us_hi,
                     "ev_them_low": them_lo, "ev_them_high": them_hi,
                     "ev": ev, "ev_low": ev_lo, "ev_high": ev_hi,
                     "p_thrown": float(o.thrown.mean())})
    return pd.DataFrame(rows)


def pct(p: float) -> str:
    """A percentage with one decimal, more when that would round a non-certain
    chance to 0 or 100."""
    digits = 1
    while digits < 4 and 0 < p < 1 and round(100 * p, digits) in (0.0, 100.0):
        digits += 1
    return f"{100 * p:.{digits}f}%"


def money(v: float, digits: int = 2) -> str:
    """Money as every page and table writes it: a sign, a dollar sign and
    cents, e.g. ``+$0.09``, ``-$1.20`` (``digits`` 3 where a tenth of a cent
    matters, e.g. a difference judged against 1 cent); ``$0.00`` when it
    rounds to nothing."""
    text = f"{abs(v):.{digits}f}"
    if float(text) == 0:
        return f"${text}"
    return f"{'-' if v < 0 else '+'}${text}"


def points(v: float, digits: int = 1) -> str:
    """Points with their sign and their unit, e.g. ``+3.6 points``."""
    return f"{v:+.{digits}f} point{'' if round(abs(v), digits) == 1 else 's'}"


def pass_line(table: pd.DataFrame, unit: str = " points") -> str:
    """What the others do when the hand passes, e.g. "pass: the opponents take
    the contract in 94.0% of deals, +3.6 points for them"."""
    r = cast("pd.Series[Any]", table.set_index("bid").loc["pass"])   # one row: bids are unique
    theirs = 1.0 - r["p_contract"] - r["p_thrown"]
    text = f"pass: the opponents take the contract in {pct(theirs)} of deals, " \
           f"{r['ev_them']:+.1f}{unit} for them"
    if r["p_contract"] > 0:
        text += f" (your side plays it in {pct(r['p_contract'])})"
    if r["p_thrown"] > 0:
        text += f"; thrown in: {pct(r['p_thrown'])}"
    return text


def commitment(level: int) -> int:
    """How much a plan commits, for breaking ties: pass (0) least, then each
    bid by its level; ``policy`` (the seat's own bidding, level < 0) last."""
    return level if level >= 0 else 1 << 30


# -- the chance to win the game, with its interval ------------------------------------

#: The smallest difference in the chance to win the game a player would act on:
#: 1 percentage point.
WIN_MATTERS = 0.01
_Z = 1.959963984540054          # the normal quantile of a two-sided 95% interval


@dataclass(frozen=True)
class WinChances:
    """Each plan's chance to win the game, from the positions its deals leave.

    ``codes[plan]``: per sampled deal, the code of the position (the scores)
    the hand leaves; ``chance[code]``: the share of games won from it (1 or 0
    at once when the game is over there); ``games[code]``: the games played
    out from it (0 when it is over).  Every plan reads the same estimate of
    a position (the same games, one seed for every score), so two plans that
    reach it share its noise.
    """

    codes: dict[str, np.ndarray]
    chance: dict[int, float]
    games: dict[int, int]

    def _per_position(self, name: str
                      ) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
        """(positions, deal -> position index, chance, games) of a plan."""
        u, inv = np.unique(self.codes[name], return_inverse=True)
        keys = u.tolist()
        return (keys, inv, np.array([self.chance[k] for k in keys], float),
                np.array([self.games[k] for k in keys], float))

    def estimate(self, name: str) -> tuple[float, float, float]:
        """``(p_win, low, high)``: the mean over the deals of each position's
        chance, and its 95% interval.  Two sources of noise add up: which
        positions the sampled deals reach (the variance of the per-deal
        chance over ``n`` deals) and the games played from each position (a
        proportion over ``games``: ``w (1 - w) / games``, weighted by the
        square of the position's share of the deals).  Their sum gives the
        effective number of games ``n_eff = p (1 - p) / var``, and the
        interval is Clopper-Pearson's for ``p n_eff`` wins of ``n_eff``
        (:func:`simkit.base.stats.proportion_ci`); when every deal ends the game at
        once it is exactly the interval of a proportion over the deals."""
        _, inv, w, g = self._per_position(name)
        n = len(inv)
        per_deal = w[inv]
        p = float(per_deal.mean())
        share = np.bincount(inv, minlength=len(w)) / n
        played = g > 0
        var = float(per_deal.var()) / n + float(
            np.sum(share[played] ** 2 * w[played] * (1 - w[played]) / g[played]))
        n_eff = p * (1 - p) / var if var > 0 and 0 < p < 1 else float(n)
        lo, hi = stats.proportion_ci(p * n_eff, n_eff)
        return p, float(lo), float(hi)

    def difference(self, a: str, b: str) -> tuple[float, float, float]:
        """``(p_win(a) - p_win(b), low, high)``, paired over the same deals, with
        each position's game noise counted once (normal 95% interval)."""
        ka, ia, wa, _ = self._per_position(a)
        kb, ib, wb, _ = self._per_position(b)
        n = len(ia)
        d = wa[ia] - wb[ib]
        diff = float(d.mean())
        net: dict[int, float] = {}
        for keys, inv, sign in ((ka, ia, 1.0), (kb, ib, -1.0)):
            for k, c in zip(keys, np.bincount(inv, minlength=len(keys)).tolist()):
                net[k] = net.get(k, 0.0) + sign * c / n
        noise = sum(s * s * self.chance[k] * (1 - self.chance[k]) / self.games[k]
                    for k, s in net.items() if self.games[k] > 0)
        half = _Z * float(np.sqrt(float(d.var(ddof=1)) / n + noise)) if n > 1 else float("nan")
        return diff, diff - half, diff + half


def with_win_chances(table: pd.DataFrame, win: WinChances) -> pd.DataFrame:
    """``table`` with ``p_win`` and its interval ``p_win_low``-``p_win_high``
    (:meth:`WinChances.estimate`) per plan."""
    est = [win.estimate(name) for name in table["bid"]]
    table["p_win"] = [e[0] for e in est]
    table["p_win_low"] = [e[1] for e in est]
    table["p_win_high"] = [e[2] for e in est]
    return table


# -- the recommendation ----------------------------------------------------------------

@dataclass(frozen=True)
class Measure:
    """What plans are ranked by and the smallest difference in it a player would
    act on: ``by`` (a column: ``ev`` or ``p_win``), ``matters`` (in the column's
    units), ``text`` (the threshold in words, e.g. "0.05 points per hand"),
    ``fmt`` (a value as the reason shows it), ``diff`` (a difference) and
    ``words`` (a difference in a player's words, the verb first: "wins the game
    about 2 times in 100 more often")."""

    by: str
    matters: float
    text: str
    fmt: Callable[[float], str]
    diff: Callable[[float], str]
    words: Callable[[float], str] = lambda d: f"is better by {d:+.2f}"


def _times_in_100(d: float) -> str:
    n = round(100 * d)
    if n <= 0:
        return ("wins the game about as often" if d < 0.002 else
                "wins the game less than 1 time in 100 more often")
    return f"wins the game about {n} time{'s' if n > 1 else ''} in 100 more often"


def per_hands(d: float, one: str, many: str, verb: str) -> str:
    """A difference per hand in words, scaled to whole units: "scores about 3
    points more every 10 hands" (``one``/``many``: the unit's names)."""
    if d < 0.0005:
        return f"{verb} about the same"
    n = next((n for n in (1, 10, 100) if d * n >= 0.95), 1000)
    k = round(d * n)
    unit = one if k == 1 else many
    return (f"{verb} about {k} {unit} a hand more" if n == 1 else
            f"{verb} about {k} {unit} more every {n:,} hands")


def win_measure() -> Measure:
    """The chance to win the game: a difference under 1 percentage point does not count.
    A chance is written as the table writes it (one decimal)."""
    return Measure("p_win", WIN_MATTERS, "1 percentage point", fmt=pct,
                   diff=lambda d: f"{100 * d:+.2f} pp", words=_times_in_100)


def same_outcome(a: PlanOutcome, b: PlanOutcome) -> bool:
    """The two plans gave the same result on every deal (contract, make, scores)."""
    return all(np.array_equal(x, y) for x, y in
               zip((a.holds, a.made, a.thrown, a.us, a.them, a.value),
                   (b.holds, b.made, b.thrown, b.us, b.them, b.value)))


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def identical_plans(table: pd.DataFrame, outcomes: dict[str, PlanOutcome]) -> list[dict[str, Any]]:
    """Groups of two or more plans with the same result on every deal, each
    ``{"plans": [...], "note": why}`` (the plans in the table's order; the
    first commits least).  Pass with the lowest bids: the others always bid
    higher, so those bids never stood; two ceilings: the auction never went
    past the lower one."""
    rows = [r for r in table.to_dict("records") if r["bid"] in outcomes]
    rows.sort(key=lambda r: commitment(r["level"]))
    groups: list[list[dict[Hashable, Any]]] = []
    for r in rows:
        for g in groups:
            if same_outcome(outcomes[g[0]["bid"]], outcomes[r["bid"]]):
                g.append(r)
                break
        else:
            groups.append([r])
    order = {str(b): i for i, b in enumerate(table["bid"])}
    out = []
    for g in groups:
        if len(g) < 2:
            continue
        names = sorted((str(r["bid"]) for r in g), key=order.__getitem__)
        n = int(g[0]["deals"])
        first, rest = str(g[0]["bid"]), [str(r["bid"]) for r in g[1:]]
        numbers = all(r["level"] > 0 for r in g[1:]) and all(
            str(r["bid"]).isdigit() for r in g[1:])
        if first == "pass" and numbers:
            top = rest[-1]
            bids = _and(rest).replace(" and ", " or ")
            why = (f"{_and(names)} gave the same result on every one of the {n:,} deals: "
                   f"the others always bid higher than {top}, so a bid of {bids} "
                   f"never stood and each ended as passing did")
        elif numbers and str(g[0]["bid"]).isdigit():
            why = (f"{_and(names)} gave the same result on every one of the {n:,} deals: the "
                   f"auction never needed a bid above {first}, so the higher "
                   f"{'ceiling was' if len(rest) == 1 else 'ceilings were'} never used")
        else:
            why = (f"{_and(names)} gave the same result on every one of the {n:,} deals "
                   f"(the same contract, the same play, the same score)")
        out.append({"plans": names, "note": why})
    return out


@dataclass(frozen=True)
class Verdict:
    """The recommendation and why: ``clear`` when the recommended plan beats
    every other plan (but those with the same result on every deal) by an
    interval wholly above ``measure.matters``; else ``vs`` is the plan it is
    too close to.  ``diff``, ``low``, ``high``: the paired difference
    (recommended minus ``vs``, or the nearest plan when clear) and its 95%
    interval; ``identical``: :func:`identical_plans`."""

    recommended: str
    reason: str
    clear: bool
    vs: str | None
    diff: float | None
    low: float | None
    high: float | None
    measure: Measure
    identical: list[dict[str, Any]]
    says: str = ""

    def json(self) -> dict[str, Any]:
        def num(v: float | None) -> float | None:
            return None if v is None or v != v else float(v)

        return {"by": self.measure.by, "value": float(self.measure.matters),
                "text": self.measure.text, "vs": self.vs, "diff": num(self.diff),
                "low": num(self.low), "high": num(self.high)}


#: Plans named as a player says them in a sentence.
PLAN_NAMES = {"ndogo": "Ndogo", "kubwa": "Kubwa"}


def plan_name(plan: str) -> str:
    """A plan as a sentence names it ("Kubwa", "5", "pass")."""
    return PLAN_NAMES.get(plan, plan)


def _doing(plan: str) -> str:
    """A plan as what a player does: "passing", "bidding 5", "bidding Kubwa"."""
    if plan == "pass":
        return "passing"
    if plan == "policy":
        return "bidding as the seat's policy would"
    if plan == "moon":
        return "shooting the moon"
    return f"bidding {plan_name(plan)}"


def _advice(plan: str) -> str:
    """A plan as advice: "Pass", "Bid 5", "Bid as the seat's policy would"."""
    doing = _doing(plan)
    if not doing.startswith("bidding"):
        return doing.replace("passing", "pass").replace("shooting", "shoot").capitalize()
    return "Bid" + doing[len("bidding"):]


def says(best: str, vs: str, d: float, hi: float, clear: bool, measure: Measure) -> str:
    """The advice in a player's words, before any number: "Bid Kubwa: it wins the
    game about 2 times in 100 more often than bidding 5", or, too close to call,
    which two plans and why the difference does not settle it."""
    than = _doing(vs)
    words = measure.words(max(d, 0.0))
    if "about as often" in words or "about the same" in words:
        clause = words.replace("about as often", "about as often as").replace(
            "about the same", "about the same as") + f" {than}"
    else:
        clause = f"{words} than {than}"
    if clear:
        return f"{_advice(best)}: it {clause}"
    subject = _doing(best)
    subject = subject[0].upper() + subject[1:]
    other = _advice(vs)
    head = (f"{_advice(best)} or {other[0].lower()}{other[1:]}: too close to call. "
            f"{subject} {clause}")
    if hi < measure.matters:
        return f"{head}: surely less than {measure.text} apart, too little to act on"
    return f"{head}, but it may be less than {measure.text} (the luck of the deals)"


def _difference(outcomes: dict[str, PlanOutcome], win: WinChances | None, by: str, a: str,
                b: str) -> tuple[float, float, float]:
    if by == "p_win":
        assert win is not None
        return win.difference(a, b)
    return stats.mean_ci_of(outcomes[a].value - outcomes[b].value)


def choose(table: pd.DataFrame, outcomes: dict[str, PlanOutcome], measure: Measure,
           win: WinChances | None = None) -> Verdict:
    """The recommended plan and why (:class:`Verdict`): the plan with the
    highest ``measure.by`` (``ev``, or ``p_win`` with a score; ties: the
    higher EV, then the plan that commits least, :func:`commitment`: pass,
    then the lowest bid).

    It is a **clear choice** only when, against every other plan (but those
    that gave the same result on every deal), the 95% interval of the paired
    difference (the same deals; :meth:`WinChances.difference` for ``p_win``)
    lies wholly above ``measure.matters``, the smallest difference a player
    would act on; otherwise it is **too close to call**, and the reason names
    the plan, the difference with its interval and the threshold.  The reason
    also says how often the recommended plan holds and makes the contract and
    what passing does.
    """
    rows = table.to_dict("records")
    by = measure.by

    def key(r: dict[Hashable, Any]) -> tuple[float, float, int]:
        return (round(r[by], 9), round(r["ev"], 9), -commitment(r["level"]))

    best = max(rows, key=key)
    identical = identical_plans(table, outcomes)
    twins = next((set(g["plans"]) for g in identical if best["bid"] in g["plans"]),
                 {best["bid"]})
    others = [r for r in rows if r["bid"] not in twins] or [r for r in rows if r is not best]
    runner = max(others, key=lambda r: (key(r)[:2], -abs(r["level"] - best["level"])))
    diffs = {r["bid"]: _difference(outcomes, win, by, best["bid"], r["bid"]) for r in others}
    short = [r for r in others if not diffs[r["bid"]][1] > measure.matters]
    vs = max(short, key=key)["bid"] if short else min(
        others, key=lambda r: diffs[r["bid"]][0])["bid"]
    d, lo, hi = diffs[vs]
    span = f"{measure.diff(d)} [{measure.diff(lo)}, {measure.diff(hi)}]"
    what = "wins the game in " if by == "p_win" else "EV "
    reason = f"{what}{measure.fmt(best[by])} vs {measure.fmt(runner[by])} for {runner['bid']}"
    if abs(best[by] - runner[by]) <= TIE:
        reason += " (a tie: the higher EV, then the plan that commits least, wins it)"
    if not short:
        reason += (f"; a clear choice: it beats every other plan by more than "
                   f"{measure.text} (the smallest difference worth acting on), the nearest, "
                   f"{vs}, by {span}")
    elif hi < measure.matters:
        reason += (f"; too close to call: better than {vs} by {span}, less than "
                   f"{measure.text}, a difference no player would act on")
    else:
        reason += (f"; too close to call: better than {vs} by {span}, and that 95% interval "
                   f"reaches below {measure.text}, the smallest difference worth acting on")
    if len(twins) > 1:
        same = [b for b in table["bid"] if b in twins and b != best["bid"]]
        reason += (f" ({_and(same)} gave the same result on every deal: {best['bid']}, "
                   f"which commits least, stands for {'it' if len(same) == 1 else 'them'})")
    if best["bid"] != "pass" and best["held"] > 0:
        reason += (f"; your side holds the contract in {pct(best['p_contract'])} of deals "
                   f"and makes it in {pct(best['p_make'])} of those")
    if "pass" in set(table["bid"]):
        reason += "; " + pass_line(table)
    words = says(str(best["bid"]), str(vs), d, hi=hi, clear=not short, measure=measure)
    return Verdict(recommended=str(best["bid"]), reason=reason, clear=not short, vs=str(vs),
                   diff=d, low=lo, high=hi, measure=measure, identical=identical, says=words)


def decides_line(table: pd.DataFrame, recommended: str, score: str, target: int,
                 fmt: Callable[[float], str] = lambda v: points(v, 2)) -> str:
    """Why the chance to win the game, not EV, chooses with a score, and what EV
    alone would have chosen when that differs."""
    text = (f"With the score {score} the plan is chosen by its chance to win the game, "
            f"not by EV: the game ends when a side reaches {target}, so what counts is "
            f"getting there first, not points per hand; near the end a plan that can end the "
            f"game, or stop the others ending it, is worth more than its points")
    rows = table.to_dict("records")
    by_ev = max(rows, key=lambda r: (round(r["ev"], 9), -commitment(r["level"])))
    if by_ev["bid"] != recommended:
        best = next(r for r in rows if r["bid"] == recommended)
        text += (f". EV alone would choose {by_ev['bid']} ({fmt(by_ev['ev'])} a hand, "
                 f"against {fmt(best['ev'])} for {recommended}), but {recommended} wins the "
                 f"game more often ({pct(best['p_win'])} against {pct(by_ev['p_win'])})")
    return text + "."


# a: a game's Advice (each advisor has its own class)
def head_json(a: Any) -> dict[str, Any]:
    """The fields every advisor's JSON shares (``a``: a game's Advice): what a
    plan's value is in (``VALUE``: unit, digits, the EV column's head, and
    ``matters``, the smallest difference in it worth acting on), the hand,
    seats and samples, the recommendation with its reason, whether it is too
    close to call (``close``, ``close_to``: :func:`choose`'s verdict; ``says``:
    the advice in a player's words, before any number), the
    ``threshold`` it was judged by and the paired difference (``by``,
    ``value``, ``text``, ``vs``, ``diff``, ``low``, ``high``), the plans
    that gave the same result on every deal (``identical``: their names and
    a note why), what decides (``decided_by``: ``ev`` or ``p_win``, and
    ``decides``, the sentence why, with a score), the policy of every seat
    and the rules in force."""
    vd = getattr(a, "verdict", None)
    close = None if vd is None or vd.clear else vd.vs
    return {"value": dict(a.VALUE), "players": int(a.players), "hand": list(a.hand),
            "seat": int(a.seat), "dealer": int(a.dealer), "samples": int(a.samples),
            "recommended": a.recommended, "says": None if vd is None else vd.says,
            "reason": a.reason,
            "close": vd is not None and not vd.clear, "close_to": close,
            "threshold": None if vd is None else vd.json(),
            "identical": [] if vd is None else [dict(g) for g in vd.identical],
            "decided_by": "ev" if vd is None else vd.measure.by,
            "decides": getattr(a, "decides", None),
            "mode": "declarer" if a.declarer else "auction",
            "policies": list(a.policies),
            "rules": {k: (v if isinstance(v, (bool, int, float)) else str(v))
                      for k, v in a.rules.as_dict().items()}}


def notes(a: Any) -> list[str]:
    """The lines under an advisor's table: the plans that played the same, what
    decides with a score, and the threshold of a clear choice."""
    v = getattr(a, "verdict", None)
    if v is None:
        return []
    lines = [f"same on every deal: {g['note']}." for g in v.identical]
    if getattr(a, "decides", None):
        lines.append(a.decides)
    lines.append(f"clear choice: the best plan beats every other by a 95% interval wholly "
                 f"above {v.measure.text}; otherwise too close to call.")
    return lines


def table_json(table: pd.DataFrame, extra: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The plans as JSON-ready rows: bid, p_make (its interval: ci_low, ci_high),
    ev, p_contract, ev_us, ev_them (each with its interval: ``_low``, ``_high``),
    and ``extra`` columns (NaN as None)."""
    def num(v: object) -> float | None:
        x = float(v)  # type: ignore[arg-type]  # a table cell: a number or NaN
        return None if np.isnan(x) else x

    keys = ("p_make", "ci_low", "ci_high", "ev", "ev_low", "ev_high", "p_contract",
            "contract_low", "contract_high", "ev_us", "ev_us_low", "ev_us_high", "ev_them",
            "ev_them_low", "ev_them_high", *extra)
    return [{"bid": str(r["bid"]), **{k: num(r[k]) for k in keys}}
            for r in table.to_dict("records")]


def _signed(x: float, digits: int) -> str:
    return f"{x:+.{digits}f}"


def format_rows(table: pd.DataFrame, recommended: str, unit: str = "points",
                value_digits: int = 2, with_win: bool = False,
                value: Callable[[float], str] | None = None) -> list[str]:
    """The plans as text lines: contract held, made, points for us and them, EV
    (written by ``value``, e.g. :func:`money`, else signed to ``value_digits``)."""
    head = (f"{'plan':<7}{'holds':>8}{'made [95% CI]':>24}{'us':>8}{'them':>8}"
            f"{'EV [95% CI]':>26}" + (f"{'P(win) [95% CI]':>24}" if with_win else ""))
    lines = [head]
    for r in table.to_dict("records"):
        made = "-" if np.isnan(r["p_make"]) else \
            f"{100 * r['p_make']:.1f}% [{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"
        v = value or functools.partial(_signed, digits=value_digits)
        ev = f"{v(r['ev'])} [{v(r['ev_low'])}, {v(r['ev_high'])}]"
        line = (f"{r['bid']:<7}{100 * r['p_contract']:>7.1f}%{made:>24}{r['ev_us']:>+8.2f}"
                f"{r['ev_them']:>+8.2f}{ev:>26}")
        if with_win:
            win = f"{100 * r['p_win']:.1f}% [{100 * r['p_win_low']:.1f}, " \
                  f"{100 * r['p_win_high']:.1f}]"
            line += f"{win:>24}"
        lines.append(line + ("  <" if r["bid"] == recommended else ""))
    lines.append(f"holds: deals in which your side holds the contract; made: of those; "
                 f"us, them: points per hand for your side and an average opponent side; "
                 f"EV: {unit} per hand.")
    return lines
