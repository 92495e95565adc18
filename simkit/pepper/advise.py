"""What to bid with a Pepper hand: ``simkit advise pepper --hand "JH JD AH KH QH 9S"``.

:func:`advise` evaluates the hand with :func:`simkit.pepper.api.evaluate_hand`
(the hand held fixed at its seat, the unseen cards dealt uniformly, the
hand's side playing each contract with no auction) and ranks the bids.

For each bid it reports the chance to make it with its 95% interval and its
EV: the expected points of the hand's side minus the expected points of an
(average) opponent side, as evaluate_hand's ``ev``.  **Passing is the
reference point**: its EV is defined as 0 and its "chance to make" as 1 (an
interval of [1, 1]).  The cost of letting the opponents have the contract is
not modelled; a bid is recommended only when it gains on average (EV > 0),
the one with the highest EV, ties going to the higher bid: when a higher bid
is as safe it costs nothing and keeps the opponents out of the auction.

With a game score (``score="24:10"``: the hand's side first) each bid also
gets ``p_win``, the chance that the hand's side wins the game: every sampled
deal's outcome moves the score; a score at which the game is over is a win
or a loss at once (tied top sides all win, unless ``tie = play_on``); from
every other score the rest of the game is played out ``games`` times with
:func:`simkit.pepper.api.simulate_games` (from those scores, the next seat
dealing), with the same seed for every score so the comparisons between bids
share their randomness.  Passing counts as a thrown-in hand: the score stays
and the deal passes on.  With a score the recommendation is the bid with the
highest ``p_win`` (ties: the highest EV, then the higher bid).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simkit import engine, stats
from simkit.engine import FixedHand
from simkit.errors import InputError
from simkit.runner import check_count
from simkit.pepper import api
from simkit.pepper.policies import make_policies
from simkit.pepper.rules import PepperRules

#: Values closer than this count as equal when ranking bids (float noise in means).
_TIE = 1e-12


@dataclass(frozen=True)
class Advice(FixedHand):
    """What :func:`advise` found for one hand.

    ``bids`` has one row per bid, ``pass`` first, then ``1`` .. ``T-1``,
    ``ndogo``, ``kubwa``: columns bid, level (0 = pass), p_make, ci_low,
    ci_high, ev, and p_win when a score was given.  ``score`` is the score as
    given (the hand's side first, then the other side, or each other side
    clockwise), ``start`` the same per scoring side (index = side number),
    ``games`` the games played out from each score.  ``reason`` explains the
    recommendation; ``why`` is ``"<bid>: <reason>"``.
    """

    bids: pd.DataFrame
    recommended: str
    reason: str
    rules: PepperRules
    trump: dict
    score: tuple[int, ...] | None = None
    start: tuple[int, ...] | None = None
    games: int | None = None

    @property
    def why(self) -> str:
        return f"{self.recommended}: {self.reason}"


# -- input checks ----------------------------------------------------------------

def parse_score(score, players: int = 4) -> tuple[int, ...]:
    """A game score ``"US:THEM"`` (e.g. ``"24:10"``, ``"-3:12"``) as a tuple of ints.

    The hand's side comes first.  With 3 players ``"US:THEM"`` puts both
    opponents at THEM, and ``"US:A:B"`` gives each opponent, clockwise from
    the hand's seat.  A tuple or list of ints is accepted as well.
    """
    n_sides = 3 if players == 3 else 2
    form = "US:THEM" + (" or US:LEFT:RIGHT" if n_sides == 3 else "")
    bad = InputError(f"bad --score {score!r}: expected {form}, whole numbers such as 24:10 "
                     f"(negative scores allowed, e.g. --score=-6:12)")
    if isinstance(score, str):
        parts = [p.strip() for p in score.split(":")]
        if len(parts) not in (2, n_sides) or any(not p for p in parts):
            raise bad
        try:
            values = tuple(int(p) for p in parts)
        except ValueError:
            raise bad from None
    elif isinstance(score, (tuple, list)):
        if len(score) not in (2, n_sides) or any(
                isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in score):
            raise bad
        values = tuple(int(v) for v in score)
    else:
        raise bad
    return values


def _start_scores(values: tuple[int, ...], rules: PepperRules, seat: int) -> tuple[int, ...]:
    """Scores per side (index = side) from a score given as (us, them[, them2])."""
    side = rules.side_of(seat)
    start = [0] * rules.sides
    start[side] = values[0]
    others = [rules.side_of((seat + k) % rules.players) for k in range(1, rules.players)]
    others = list(dict.fromkeys(s for s in others if s != side))   # clockwise, once each
    for i, s in enumerate(others):
        start[s] = values[1 + i] if len(values) > 2 else values[1]
    top = max(start)
    if top >= rules.target and not (rules.tie == "play_on" and start.count(top) > 1):
        text = ":".join(str(v) for v in values)
        raise InputError(f"bad --score {text!r}: the game ends in the round a side reaches "
                         f"{rules.target} (rule 'target'), so a game in progress has every "
                         f"score below {rules.target}")
    return tuple(start)


# -- the advice ------------------------------------------------------------------

def _win_chances(outcomes, start, rules, pols, side, dealer, games, seed, threads):
    """p_win per bid level (0 = pass) from the per-deal outcomes."""
    S = rules.sides
    base = 128                                   # |score change| <= 4 * 8 = 32 per hand
    start_arr = np.array(start, np.int64)
    weights = base ** np.arange(S, dtype=np.int64)
    codes = {0: np.array([0 + (weights * 64).sum()])}          # pass: no change
    for level, delta in outcomes.items():
        codes[level] = (delta + 64) @ weights
    uniq = np.unique(np.concatenate(list(codes.values())))
    win = {}
    first_dealer = (dealer + 1) % rules.players
    for code in uniq.tolist():
        d = (code // weights) % base - 64
        state = start_arr + d
        top = int(state.max())
        on_top = state == top
        if top >= rules.target and (on_top.sum() == 1 or rules.tie == "shared"):
            win[code] = float(on_top[side])      # over: a win, or a shared win
            continue
        df = api.simulate_games(games, rules=rules, policy=pols, seed=seed, threads=threads,
                                scores=tuple(int(v) for v in state), first_dealer=first_dealer)
        win[code] = float(df[f"win_{side}"].mean())
    out = {}
    for level, c in codes.items():
        u, counts = np.unique(c, return_counts=True)
        out[level] = float(sum(n * win[k] for k, n in zip(u.tolist(), counts.tolist())) / len(c))
    return out


def _pct(p: float) -> str:
    """A percentage with one decimal, more when that would round a non-certain chance to 0 or 100."""
    digits = 1
    while digits < 4 and 0 < p < 1 and round(100 * p, digits) in (0.0, 100.0):
        digits += 1
    return f"{100 * p:.{digits}f}%"


def _choose(bids: pd.DataFrame, samples: int, score_text: str | None) -> tuple[str, str]:
    """(recommended bid, reason)."""
    rows = bids.to_dict("records")
    if score_text is None:
        best = rows[0]                                   # pass, EV 0
        for row in rows[1:]:
            # >= among bids: an equally good higher bid wins the tie (pass never does)
            if row["ev"] > best["ev"] + _TIE or (best["level"] > 0 and
                                                 row["ev"] >= best["ev"] - _TIE):
                best = row
        if best["level"] == 0:
            top = max(rows[1:], key=lambda r: (round(r["ev"], 9), -r["level"]))
            return "pass", f"no bid gains on average (best: {top['bid']} at {top['ev']:+.1f} points)"
        others = [r for r in rows if r is not best]
        tied = [r["bid"] for r in others if abs(r["ev"] - best["ev"]) <= _TIE]
        reason = f"made in {_pct(best['p_make'])} of {samples:,} deals; {best['ev']:+.1f} points"
        if tied:
            return best["bid"], reason + f", the same as {', '.join(tied)} (ties go to the higher bid)"
        # runner-up: the next best EV; among equals the one nearest the recommended bid
        nxt = max(others, key=lambda r: (round(r["ev"], 9), -abs(r["level"] - best["level"])))
        return best["bid"], reason + f" vs {nxt['ev']:+.1f} for {nxt['bid']}"

    def key(r):
        return (round(r["p_win"], 9), round(r["ev"], 9), r["level"])

    best = max(rows, key=key)
    others = [r for r in rows if r is not best]
    reason = f"wins the game from {score_text} in {_pct(best['p_win'])}"
    tied = [r for r in others if abs(r["p_win"] - best["p_win"]) <= _TIE]
    if tied:
        reason += f", the same as {', '.join(r['bid'] for r in tied)}"
        if all(best["ev"] > r["ev"] + _TIE for r in tied):
            reason += ", with the highest EV of these"
        else:
            reason += " (ties go to the higher bid)"
    else:
        nxt = max(others, key=lambda r: (key(r), -abs(r["level"] - best["level"])))
        reason += f" vs {_pct(nxt['p_win'])} for {nxt['bid']}"
    if best["level"] == 0:
        top = max(rows[1:], key=lambda r: (round(r["ev"], 9), -r["level"]))
        reason += f"; passing keeps the score (best EV: {top['bid']} at {top['ev']:+.1f} points)"
    else:
        reason += f"; made in {_pct(best['p_make'])} of {samples:,} deals, {best['ev']:+.1f} points"
    return best["bid"], reason


def advise(hand, players: int = 4, seat: int | None = None, dealer: int = 0,
           samples: int = 100_000, score=None, rules=None, policy=None, seed: int = 0,
           threads: int | None = None, games: int = 10_000) -> Advice:
    """Rank every bid for ``hand`` and recommend one (see the module notes).

    ``seat`` defaults to the seat left of ``dealer`` (the first to bid).
    ``score``: ``"US:THEM"`` or a tuple, the hand's side first; adds p_win per
    bid, each position after the hand played out ``games`` times.  Bad input
    raises :class:`~simkit.errors.InputError` before any simulation.
    """
    if isinstance(players, bool) or players not in (2, 3, 4):
        raise InputError(f"bad player count {players!r}: Pepper is played by 2, 3 or 4 players")
    r = api.resolve_rules(rules, players)
    dealer = engine.check_seat(dealer, "dealer", r.players)
    seat = (dealer + 1) % r.players if seat is None else engine.check_seat(seat, "seat", r.players)
    check_count(samples, "--samples")
    api.parse_hand(hand, r.players)
    pols = make_policies(policy, r.players)
    values = start = None
    if score is not None:
        values = parse_score(score, r.players)
        start = _start_scores(values, r, seat)
        check_count(games, "games per score")

    ev = api.evaluate_hand(hand, players=r.players, seat=seat, dealer=dealer, samples=samples,
                           rules=r, policy=pols, seed=seed, threads=threads)
    b = ev.bids
    table = pd.DataFrame({"bid": ["pass"] + list(b["bid"]),
                          "level": np.r_[0, b["level"].to_numpy()].astype(np.int64),
                          "p_make": np.r_[1.0, b["p_make"].to_numpy(float)],
                          "ci_low": np.r_[1.0, b["ci_low"].to_numpy(float)],
                          "ci_high": np.r_[1.0, b["ci_high"].to_numpy(float)],
                          "ev": np.r_[0.0, b["ev"].to_numpy(float)]})
    score_text = None
    if start is not None:
        p_win = _win_chances(ev.outcomes, start, r, pols, r.side_of(seat), dealer, games, seed, threads)
        table["p_win"] = [p_win[int(v)] for v in table["level"]]
        score_text = ":".join(str(v) for v in values)
    recommended, reason = _choose(table, samples, score_text)
    return Advice(ev.hand, r.players, seat, dealer, samples, table, recommended, reason, r,
                  dict(ev.trump), values, start, games if start is not None else None)


# -- output ----------------------------------------------------------------------

def format_advice(advice: Advice) -> str:
    """The bids as a table, then ``recommended: BID — reason``."""
    a = advice
    has_win = "p_win" in a.bids.columns
    trump = a.trump.get("number"), a.trump.get("all")
    lines = [f"Pepper hand {' '.join(a.hand)}: {a.players} players, seat {a.seat}, "
             f"dealer {a.dealer}; {a.samples:,} deals of the unseen cards",
             f"trump named: {trump[0]} for a number bid, {trump[1]} for ndogo/kubwa"]
    if has_win:
        lines.append(f"score {':'.join(str(v) for v in a.score)} (this hand's side first), "
                     f"target {a.rules.target}; each position after the hand played out "
                     f"{a.games:,} times")
    lines.append("")
    head = f"{'bid':<7}{'made [95% CI]':<30}{'EV':>8}" + (f"{'P(win)':>9}" if has_win else "")
    lines.append(head)
    for row in a.bids.itertuples():
        if row.level == 0:
            made = "(reference)"
        else:
            made = stats.format_estimate(row.p_make, row.ci_low, row.ci_high,
                                         a.samples).split(" (")[0]
        line = f"{row.bid:<7}{made:<30}{row.ev:>+8.2f}"
        if has_win:
            line += f"{100 * row.p_win:>8.1f}%"
        mark = "  <" if row.bid == a.recommended else ""
        lines.append(line + mark)
    lines.append("EV: points for this hand's side minus points for an opponent side, per hand; "
                 "passing is the reference, 0.")
    lines.append(f"recommended: {a.recommended} \u2014 {a.reason}")
    return "\n".join(lines)


def advice_json(advice: Advice) -> dict:
    """The advice as JSON-ready data (plain str, int and float values)."""
    a = advice
    has_win = "p_win" in a.bids.columns
    bids = []
    for row in a.bids.itertuples():
        d = {"bid": str(row.bid), "p_make": float(row.p_make), "ci_low": float(row.ci_low),
             "ci_high": float(row.ci_high), "ev": float(row.ev)}
        if has_win:
            d["p_win"] = float(row.p_win)
        bids.append(d)
    return {"game": "pepper", "players": int(a.players), "hand": list(a.hand),
            "seat": int(a.seat), "dealer": int(a.dealer), "samples": int(a.samples),
            "bids": bids, "recommended": a.recommended}
