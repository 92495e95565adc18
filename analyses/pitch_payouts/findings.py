"""The pitch-payouts study's findings: plain-language sentences computed from its tables
(:func:`findings`)."""

from __future__ import annotations

import math

import pandas as pd

from analyses.common import Tables, percent, row_at, signed
from analyses.pitch_payouts.simulate import DROP_IN, SESSION_HANDS, STUDY_PLAYERS
from simkit.base import stats
from simkit.base.rows import rows_of


def _digits(lo: float, hi: float, scale: float = 1.0, most: int = 4) -> int:
    """Decimals that show one significant digit of an interval's half-width."""
    half = scale * (hi - lo) / 2
    if not (math.isfinite(half) and half > 0):
        return 2
    return int(min(max(-math.floor(math.log10(half)), 0), most))


def cents(x: float, lo: float, hi: float, n: float | None = None) -> str:
    """Dollars shown as signed cents with their 95% interval (and n)."""
    k = _digits(lo, hi, 100)
    tail = f", n={int(n):,}" if n is not None else ""
    return (f"{signed(100 * x, k)} cents (95% CI {signed(100 * lo, k)} to {signed(100 * hi, k)}"
            f"{tail})")


def dollars(x: float, lo: float, hi: float, n: float | None = None) -> str:
    """Dollars, signed, with their 95% interval (and n)."""
    k = max(_digits(lo, hi), 2)
    tail = f", n={int(n):,}" if n is not None else ""
    if math.isfinite(lo) and math.isfinite(hi):
        ci = f"95% CI {signed(lo, k)} to {signed(hi, k)}"
    else:
        ci = "no interval"
    return f"{signed(x, k)} dollars ({ci}{tail})"


def _pct_ci(p: float, lo: float, hi: float) -> str:
    """"81.2%, 95% CI 80.9-81.5%" (without n)."""
    return percent(p, lo, hi).replace(" (95% CI", ", 95% CI").rstrip(")")


def _share(p: float) -> str:
    """A share of hands: one decimal of a percent, or two significant digits when small."""
    return f"{100 * p:.1f}%" if p >= 0.001 else f"{100 * p:.2g}%"


def _per_bid(row: pd.Series, col: str, ci: str) -> str:
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


def _high_low(df: pd.DataFrame, col: str = "money") -> tuple[pd.Series, pd.Series]:
    """The rows with the highest and the lowest ``col``."""
    return row_at(df, df[col].idxmax()), row_at(df, df[col].idxmin())


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
    gp = int(gaps.index[int(gaps.argmax())])
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
    first, later = st.iloc[0], jo.iloc[0]
    return (
        f"With players dropping in and out ({DROP_IN}: leave 5%, join 10% after each "
        f"hand), the {STUDY_PLAYERS} starters average "
        f"{cents(first['money'], first['ci_low'], first['ci_high'], first['players'])} per session "
        f"and the players who joined later "
        f"{cents(later['money'], later['ci_low'], later['ci_high'], later['players'])} in "
        f"{later['hands_played']:.1f} hands on average "
        f"({signed(100 * later['money_per_hand'], 2)} against "
        f"{signed(100 * first['money_per_hand'], 2)} cents per hand played).")


def _aggression_line(ag: pd.DataFrame) -> str | None:
    """4. Aggression: the best setting against aggression 0, paired on the same deals."""
    N = STUDY_PLAYERS
    if not len(ag):
        return None
    zero = ag[ag["aggression"] == 0].iloc[0]
    others = ag[ag["aggression"] != 0]
    top = row_at(others, others["diff"].idxmax())
    one = ag[ag["aggression"] == 1.0]
    extra = ""
    if len(one):
        plus1 = one.iloc[0]
        extra = (f"; at aggression +1 it pitches "
                 f"{plus1['pitch_rate']:.0%} of hands instead of {zero['pitch_rate']:.0%}, "
                 f"makes {plus1['made_rate']:.0%} instead of {zero['made_rate']:.0%} of its "
                 f"bids and changes its money by "
                 f"{cents(plus1['diff'], plus1['diff_ci_low'], plus1['diff_ci_high'])} a hand")
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
             f"{percent(r.rate, r.ci_low, r.ci_high, r.hands)}" for r in rows_of(b4)]
    return f"With {STUDY_PLAYERS} players the contracts are " + "; ".join(parts) + "."


def findings(tables: Tables) -> list[str]:
    """Plain-language findings computed from the tables (no number typed in), one
    sentence per part of the study."""
    lines = (_seats_line(tables["money_per_hand"]), _sessions_line(tables["money_per_session"]),
             _drop_in_line(tables["drop_in_sessions"]), _aggression_line(tables["aggression"]),
             _moon_line(tables["moon"]), _bids_line(tables["bids"]))
    return [line for line in lines if line is not None]
