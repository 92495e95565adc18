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

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simkit import stats
from simkit.errors import InputError

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


def plan_list(plans, names: list[str], parse, declarer: bool = False) -> list[str]:
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


def pass_line(table: pd.DataFrame, unit: str = "") -> str:
    """What the others do when the hand passes, e.g. "pass: the opponents take
    the contract in 94.0% of deals, +3.6 for them"."""
    r = table.set_index("bid").loc["pass"]
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


def too_close(table: pd.DataFrame, recommended: str) -> str | None:
    """The plan whose EV interval overlaps the recommended plan's, the best such
    (None when the recommendation stands clear of every other plan)."""
    rows = table.to_dict("records")
    best = next(r for r in rows if r["bid"] == recommended)
    overlap = [r for r in rows if r is not best and r["ev_high"] >= best["ev_low"]
               and best["ev_high"] >= r["ev_low"]]
    return str(max(overlap, key=lambda r: r["ev"])["bid"]) if overlap else None


def choose(table: pd.DataFrame, by: str = "ev", fmt=lambda v: f"{v:+.2f}") -> tuple[str, str]:
    """``(recommended plan, reason)``: the plan with the highest ``by`` (``ev``,
    or ``p_win`` with a score; ties: the higher EV, then the plan that commits
    least, :func:`commitment`: pass, then the lowest bid).

    The reason says how often the recommended plan holds and makes the
    contract, its value against the runner-up, whether that is too close to
    call (their EV intervals overlap, :func:`too_close`) and what passing does.
    """
    rows = table.to_dict("records")

    def key(r):
        return (round(r[by], 9), round(r["ev"], 9), -commitment(r["level"]))

    best = max(rows, key=key)
    others = [r for r in rows if r is not best]
    runner = max(others, key=lambda r: (key(r)[:2], -abs(r["level"] - best["level"])))
    close = too_close(table, best["bid"]) if by == "ev" else None
    shown = (lambda p: f"{100 * p:.2f}%") if by == "p_win" else fmt
    what = "wins the game in " if by == "p_win" else "EV "
    reason = f"{what}{shown(best[by])} vs {shown(runner[by])} for {runner['bid']}"
    if abs(best[by] - runner[by]) <= TIE:
        reason += " (a tie: the higher EV, then the plan that commits least, wins it)"
    elif close is not None:
        reason += f" (too close to call: the 95% intervals of {best['bid']} and {close} overlap)"
    if best["bid"] != "pass" and best["held"] > 0:
        reason += (f"; your side holds the contract in {pct(best['p_contract'])} of deals "
                   f"and makes it in {pct(best['p_make'])} of those")
    if "pass" in set(table["bid"]):
        reason += "; " + pass_line(table)
    return best["bid"], reason


def head_json(a) -> dict:
    """The fields every advisor's JSON shares (``a``: a game's Advice): what a
    plan's value is in (``VALUE``: unit, digits, the EV column's head), the hand,
    seats and samples, the recommendation with its reason, whether it is too
    close to call, the policy of every seat and the rules in force."""
    close = None if a.declarer else too_close(a.bids, a.recommended)
    return {"value": dict(a.VALUE), "players": int(a.players), "hand": list(a.hand),
            "seat": int(a.seat), "dealer": int(a.dealer), "samples": int(a.samples),
            "recommended": a.recommended, "reason": a.reason, "close": close is not None,
            "close_to": close, "mode": "declarer" if a.declarer else "auction",
            "policies": list(a.policies),
            "rules": {k: (v if isinstance(v, (bool, int, float)) else str(v))
                      for k, v in a.rules.as_dict().items()}}


def table_json(table: pd.DataFrame, extra: tuple[str, ...] = ()) -> list[dict]:
    """The plans as JSON-ready rows: bid, p_make (its interval: ci_low, ci_high),
    ev, p_contract, ev_us, ev_them (each with its interval: ``_low``, ``_high``),
    and ``extra`` columns (NaN as None)."""
    def num(v):
        v = float(v)
        return None if np.isnan(v) else v

    keys = ("p_make", "ci_low", "ci_high", "ev", "ev_low", "ev_high", "p_contract",
            "contract_low", "contract_high", "ev_us", "ev_us_low", "ev_us_high", "ev_them",
            "ev_them_low", "ev_them_high") + extra
    return [{"bid": str(r["bid"]), **{k: num(r[k]) for k in keys}}
            for r in table.to_dict("records")]


def format_rows(table: pd.DataFrame, recommended: str, unit: str = "points",
                value_digits: int = 2, with_win: bool = False) -> list[str]:
    """The plans as text lines: contract held, made, points for us and them, EV."""
    head = (f"{'plan':<7}{'holds':>8}{'made [95% CI]':>24}{'us':>8}{'them':>8}"
            f"{'EV [95% CI]':>26}" + (f"{'P(win)':>9}" if with_win else ""))
    lines = [head]
    for r in table.to_dict("records"):
        made = "-" if np.isnan(r["p_make"]) else \
            f"{100 * r['p_make']:.1f}% [{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"
        d = value_digits
        ev = f"{r['ev']:+.{d}f} [{r['ev_low']:+.{d}f}, {r['ev_high']:+.{d}f}]"
        line = (f"{r['bid']:<7}{100 * r['p_contract']:>7.1f}%{made:>24}{r['ev_us']:>+8.2f}"
                f"{r['ev_them']:>+8.2f}{ev:>26}")
        if with_win:
            line += f"{100 * r['p_win']:>8.1f}%"
        lines.append(line + ("  <" if r["bid"] == recommended else ""))
    lines.append(f"holds: deals in which your side holds the contract; made: of those; "
                 f"us, them: points per hand for your side and an average opponent side; "
                 f"EV: {unit} per hand.")
    return lines
