"""What to bid with a Pitch hand: ``simkit advise pitch --hand "AS KS QS JS TS 9S"``.

:func:`advise` evaluates the hand with :func:`simkit.pitch.api.evaluate_hand`
(the hand held at its seat, the unseen cards dealt uniformly, the seat
pitching each contract with no auction, or passing while the others bid) and
ranks the bids by **expected money per hand**: each player's money for a hand
is that hand settled as a one-hand session (10 cents per point above the
table's average, the moon's dollars), the same for every bid, so passing is
compared on the same footing.  The recommendation is the bid with the most
expected money; ties go to the higher bid.  JSON has the shape of Pepper's
advice: ``ev`` is the expected money in dollars, with ``points`` (expected
score change) added.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from simkit import stats
from simkit.engine import FixedHand
from simkit.errors import InputError
from simkit.pitch import api
from simkit.pitch.rules import PitchRules

#: Values closer than this count as equal when ranking bids (float noise in means).
_TIE = 1e-12


@dataclass(frozen=True)
class Advice(FixedHand):
    """What :func:`advise` found for one hand: ``bids`` has one row per bid (pass,
    2, 3, 4, moon) with p_make and its interval, ev (expected money, $) and
    its interval, points; ``trump`` is the suit the seat leads as pitcher."""

    bids: pd.DataFrame
    recommended: str
    reason: str
    rules: PitchRules
    trump: str


def advise(hand, players: int | None = None, seat: int | None = None, dealer: int = 0,
           samples: int = 100_000, rules=None, policy=None, seed: int = 0,
           threads: int | None = None, score=None, games=None) -> Advice:
    """Each bid's chance, expected points and money for ``hand``, and the best bid."""
    if score is not None:
        raise InputError("--score is not used by Pitch: a money session has no target to "
                         "win; the advice ranks bids by expected money per hand")
    r = api.resolve_rules(rules, players)
    ev = api.evaluate_hand(hand, players=r.players, seat=seat, dealer=dealer, samples=samples,
                           rules=r, policy=policy, seed=seed, threads=threads)
    b = ev.bids
    table = pd.DataFrame({"bid": b["bid"], "level": b["level"],
                          "p_make": b["p_make"].where(b["level"] > 0, 1.0),
                          "ci_low": b["ci_low"].where(b["level"] > 0, 1.0),
                          "ci_high": b["ci_high"].where(b["level"] > 0, 1.0),
                          "ev": b["money"], "ev_low": b["money_low"], "ev_high": b["money_high"],
                          "points": b["points"], "pitched": b["pitched"]})
    best = table["ev"].max()
    top = table[table["ev"] >= best - _TIE]
    choice = top.iloc[-1]
    others = table[table["bid"] != choice["bid"]]
    runner = others.loc[others["ev"].idxmax()]
    reason = (f"the most expected money, {choice['ev']:+.3f} $ per hand "
              f"(next: {runner['bid']} at {runner['ev']:+.3f} $)")
    return Advice(ev.hand, ev.players, ev.seat, ev.dealer, ev.samples, table,
                  str(choice["bid"]), reason, r, ev.trump)


def format_advice(advice: Advice) -> str:
    """The bids as a table, then ``recommended: BID — reason``."""
    a = advice
    lines = [f"Pitch hand {' '.join(a.hand)}: {a.players} players, seat {a.seat}, "
             f"dealer {a.dealer}; {a.samples:,} deals of the unseen cards",
             f"as pitcher it leads {a.trump} (trump)", "",
             f"{'bid':<7}{'made [95% CI]':<30}{'points':>8}{'money $ [95% CI]':>28}"]
    for row in a.bids.itertuples():
        made = ("(others bid)" if row.level == 0 else
                stats.format_estimate(row.p_make, row.ci_low, row.ci_high, a.samples).split(" (")[0])
        money = f"{row.ev:+.3f} [{row.ev_low:+.3f}, {row.ev_high:+.3f}]"
        mark = "  <" if row.bid == a.recommended else ""
        lines.append(f"{row.bid:<7}{made:<30}{row.points:>+8.2f}{money:>28}{mark}")
    lines.append(f"points: the seat's expected score change; money: per hand, {a.rules.cents} "
                 f"cents a point against the table's average plus ${a.rules.moon_dollars} a "
                 f"moon from each other player.")
    lines.append(f"recommended: {a.recommended} \u2014 {a.reason}")
    return "\n".join(lines)


def advice_json(advice: Advice) -> dict:
    """The advice as JSON-ready data, in the shape of Pepper's (plain values)."""
    a = advice
    bids = [{"bid": str(row.bid), "p_make": float(row.p_make), "ci_low": float(row.ci_low),
             "ci_high": float(row.ci_high), "ev": float(row.ev), "points": float(row.points)}
            for row in a.bids.itertuples()]
    return {"game": "pitch", "players": int(a.players), "hand": list(a.hand),
            "seat": int(a.seat), "dealer": int(a.dealer), "samples": int(a.samples),
            "bids": bids, "recommended": a.recommended}
