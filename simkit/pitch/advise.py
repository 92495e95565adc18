"""What to bid with a Pitch hand: ``simkit advise pitch --hand "AS KS QS JS TS 9S"``.

:func:`advise` holds the hand at its seat, deals the unseen cards
``samples`` times and plays every **bidding plan** (seeds/pitch.md 8.4:
``pass``, a ceiling at 2, 3 or 4, ``moon``) through the whole auction, the
other seats bidding by their policies (:func:`simkit.pitch.api.plan_hands`;
every plan on the same deals), then the play and the score.  For each plan
(:mod:`simkit.advice`): how often the seat becomes the pitcher and makes its
bid, its points and an average other player's, and EV, the **expected money
per hand** (the hand settled as a one-hand session: 10 cents per point above
the table's average, the moon's dollars), with 95% intervals.  Passing is
measured like every other plan.  The recommendation is the plan with the most
expected money; ties go to the plan that commits least (pass, then the lowest bid).
It is a *clear choice* only when it beats every other plan by a paired 95%
interval wholly above :data:`MATTERS` (1 cent per hand), else *too close to
call* (:func:`simkit.advice.choose`).

``declarer=True`` gives the older figures instead
(:func:`simkit.pitch.api.evaluate_hand`): each bid played as pitcher with no
auction (nobody outbids or steals), and passing with the auction played.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Unpack

import numpy as np
import pandas as pd

from simkit import advice, engine
from simkit.advice import PlanOutcome
from simkit.base.errors import InputError
from simkit.base.rows import rows_of
from simkit.engine import FixedHand
from simkit.pitch import api

# What the app reads of every advisor (simkit.engine.Advisor):
from simkit.pitch.api import hand_size as hand_size
from simkit.pitch.api import plan_names as plan_names
from simkit.pitch.policies import make_policies
from simkit.pitch.rules import DECK as DECK
from simkit.pitch.rules import LEVELS, PLAN_CEILINGS, PitchRules
from simkit.pitch.summary import made_text
from simkit.runs.batches import Work, check_held

#: The smallest difference in expected money a player would act on: 1 cent per
#: hand (a dollar, one moon's stake, every hundred hands).  A plan is a clear
#: choice only when it beats every other by more than this.
MATTERS = 0.01

#: Expected money per hand, judged by :data:`MATTERS`.
def _cents(d: float) -> str:
    """A difference in money per hand in words: "earns about 9 cents a hand more"."""
    if d >= 0.995:
        return f"earns about {advice.money(d).lstrip('+')} a hand more"
    return advice.per_hands(100 * d, "cent", "cents", "earns")


EV_MEASURE = advice.Measure("ev", MATTERS, "1 cent per hand", fmt=advice.money,
                            diff=lambda d: advice.money(d, 3), words=_cents)


@dataclass(frozen=True)
class Advice(FixedHand):
    """What :func:`advise` found for one hand: ``bids`` has one row per plan (pass,
    2, 3, 4, moon) with the columns of :func:`simkit.advice.plan_table` (``ev``
    in dollars) and ``points`` (the seat's expected score change); with
    ``declarer`` the older table (p_make and its interval as pitcher with no
    auction, ev and its interval, points).  ``trump`` is the suit the seat
    leads most often as pitcher; ``policies`` the seats' policy specs."""

    #: What a plan's value (EV) is in, and the digits it is shown with.
    VALUE: ClassVar[dict[str, Any]] = {"unit": "dollars", "digits": 2, "head": "EV ($)",
                                       "matters": MATTERS}

    bids: pd.DataFrame
    recommended: str
    reason: str
    rules: PitchRules
    trump: str
    policies: tuple[str, ...]
    declarer: bool = False
    verdict: advice.Verdict | None = None


def _outcome(df: pd.DataFrame, seat: int, players: int) -> PlanOutcome:
    """A plan's per-deal outcome for the seat: points, and money as the value."""
    scores = df[[f"score_{s}" for s in range(players)]].to_numpy(np.int64)
    pitcher = df["pitcher"].to_numpy(np.int64)
    us = scores[:, seat].astype(float)
    them = (scores.sum(axis=1) - scores[:, seat]) / (players - 1)
    return PlanOutcome(holds=pitcher == seat, made=df["made"].to_numpy(bool),
                       thrown=pitcher < 0, us=us, them=them,
                       value=df[f"money_{seat}"].to_numpy(float))


def _declarer(ev: api.HandEvaluation, rules: PitchRules, texts: tuple[str, ...]) -> Advice:
    """The no-auction figures of :func:`simkit.pitch.api.evaluate_hand`, ranked by money."""
    b = ev.bids
    table = pd.DataFrame({"bid": b["bid"], "level": b["level"],
                          "p_make": b["p_make"].where(b["level"] > 0, 1.0),
                          "ci_low": b["ci_low"].where(b["level"] > 0, 1.0),
                          "ci_high": b["ci_high"].where(b["level"] > 0, 1.0),
                          "ev": b["money"], "ev_low": b["money_low"], "ev_high": b["money_high"],
                          "points": b["points"], "pitched": b["pitched"]})
    top = table[table["ev"] >= table["ev"].max() - advice.TIE]
    choice = top.iloc[0]            # a tie goes to the plan that commits least
    others = table[table["bid"] != choice["bid"]]
    runner = others.loc[others["ev"].idxmax()]
    reason = (f"as pitcher with no auction, the most expected money, "
              f"{advice.money(choice['ev'])} a hand (next: {runner['bid']} at "
              f"{advice.money(runner['ev'])})")
    return Advice(hand=ev.hand, players=ev.players, seat=ev.seat, dealer=ev.dealer,
                  samples=ev.samples, bids=table, recommended=str(choice["bid"]),
                  reason=reason, rules=rules, trump=ev.trump, policies=texts, declarer=True)


def advise(hand: api.Hand, samples: int = 100_000, score: Any = None, games: Any = None,
           declarer: bool = False, plans: Any = None, work: Work | None = None,
           **given: Unpack[api.FixedArgs]) -> Advice:
    """Each plan's chance to pitch and make it, points and money for ``hand``,
    and the best plan (see the module notes).  ``given``: the table, seat,
    dealer, seed and threads (:class:`simkit.pitch.api.FixedArgs`); ``seat``
    defaults to the seat left of ``dealer`` (the dealer speaks last);
    ``plans`` the plans to play (default: every plan); ``work``
    (:class:`simkit.runs.batches.Work`): report progress, stop when told.
    ``score`` and ``games`` (other games' advisors) are refused.  Bad input
    raises :class:`~simkit.base.errors.InputError` before any simulation."""
    if score is not None:
        raise InputError("--score is not used by Pitch: a money session has no target to "
                         "win; the advice ranks bids by expected money per hand")
    settings = api.FixedSettings(**given)
    r = api.resolve_rules(settings.rules, settings.players)
    N = r.players
    dealer = engine.check_seat(settings.dealer, "dealer", N)
    seat = settings.seat
    seat = (dealer + 1) % N if seat is None else engine.check_seat(seat, "seat", N)
    check_held(samples, "--samples", "sample")
    cards = tuple(DECK.text(c) for c in api.parse_hand(hand))
    names = advice.plan_list(plans, api.plan_names(r), lambda p: api.parse_plan(r, p),
                             declarer)
    pols = make_policies(settings.policy, N)
    texts = tuple(p.label() for p in pols)
    common = api.FixedArgs(players=N, seat=seat, dealer=dealer, rules=r, policy=pols,
                           seed=settings.seed, threads=settings.threads)
    if work is not None:
        work.expect(samples * (len(LEVELS) if declarer else len(names)))
    if declarer:
        return _declarer(api.evaluate_hand(hand, samples=samples, work=work, **common), r,
                         texts)
    played: dict[str, tuple[int, PlanOutcome]] = {}
    trump = "-"
    for name in names:
        df = api.plan_hands(hand, name, samples, work=work, **common)
        code = api.parse_plan(r, name)
        played[name] = (code, _outcome(df, seat, N))
        led = df.loc[df["pitcher"] == seat, "trump"]
        if code == PLAN_CEILINGS[0] and len(led):     # as pitcher of the least bid, 2
            trump = str(led.mode().iloc[0])
    table = advice.plan_table(played)
    table["points"] = table["ev_us"]
    verdict = advice.choose(table, {name: o for name, (_, o) in played.items()}, EV_MEASURE)
    return Advice(hand=cards, players=N, seat=seat, dealer=dealer, samples=samples, bids=table,
                  recommended=verdict.recommended, reason=verdict.reason, rules=r, trump=trump,
                  policies=texts, verdict=verdict)


def format_advice(advice_: Advice) -> str:
    """The plans as a table, then ``recommended: BID — reason``."""
    a = advice_
    lines = [f"Pitch hand {' '.join(a.hand)}: {a.players} players, seat {a.seat}, "
             f"dealer {a.dealer}; {a.samples:,} deals of the unseen cards",
             "policies by seat: " + ", ".join(
                 f"{s} {p}" + (" (this hand)" if s == a.seat else "")
                 for s, p in enumerate(a.policies)),
             ("as pitcher with no auction for each bid; pass plays the auction" if a.declarer
              else f"every plan played through the whole auction ({a.rules.auction}, "
                   f"stuck dealer bids {a.rules.stuck_bid}, steal: {a.rules.steal})"),
             f"as pitcher it leads {a.trump} (trump)", ""]
    if a.declarer:
        lines.append(f"{'bid':<7}{'made [95% CI]':<30}{'points':>8}{'money [95% CI]':>28}")
        for row in rows_of(a.bids):
            made = ("(others bid)" if row.level == 0 else
                    made_text(row.p_make, row.ci_low, row.ci_high, a.samples))
            money = (f"{advice.money(row.ev)} [{advice.money(row.ev_low)}, "
                     f"{advice.money(row.ev_high)}]")
            mark = "  <" if row.bid == a.recommended else ""
            lines.append(f"{row.bid:<7}{made:<30}{row.points:>+8.2f}{money:>28}{mark}")
    else:
        lines += advice.format_rows(a.bids, a.recommended, unit=a.VALUE["unit"],
                                    value=advice.money)
    lines.append(f"money: per hand, {a.rules.cents} cents a point against the table's average "
                 f"plus ${a.rules.moon_dollars} a moon from each other player.")
    lines += advice.notes(a)
    if a.verdict is not None:
        lines.append(f"advice: {a.verdict.says}.")
    lines.append(f"recommended: {a.recommended} \u2014 {a.reason}")
    return "\n".join(lines)


def advice_json(advice_: Advice) -> dict[str, Any]:
    """The advice as JSON-ready data, in the shape of Pepper's (plain values)."""
    a = advice_
    if a.declarer:
        bids = [{"bid": str(r.bid), "p_make": float(r.p_make), "ci_low": float(r.ci_low),
                 "ci_high": float(r.ci_high), "ev": float(r.ev), "points": float(r.points)}
                for r in rows_of(a.bids)]
    else:
        bids = advice.table_json(a.bids, ("points",))
    return {"game": "pitch", **advice.head_json(a), "bids": bids}
