"""What to bid with a Pepper hand: ``simkit advise pepper --hand "JH JD AH KH QH 9S"``.

:func:`advise` holds the hand at its seat, deals the unseen cards
``samples`` times and plays every **bidding plan** (seeds/pepper.md 9.3:
``pass``, a ceiling at each number level, ``ndogo``, ``kubwa``) through the
whole auction, the other seats bidding by their policies
(:func:`simkit.pepper.api.plan_hands`; every plan on the same deals).  For
each plan (:mod:`simkit.advice`): how often the hand's side holds the
contract and makes it, the points of the hand's side and of an average
opponent side, and EV, their difference, with 95% intervals.  Passing is
measured like every other plan: the others take the contract and score.
The recommendation is the plan with the highest EV (ties: the plan that
commits least, pass, then the lowest bid); it is a *clear choice* only when
it beats every other plan by a paired 95% interval wholly above
:data:`MATTERS` (0.05 points per hand), else *too close to call*
(:func:`simkit.advice.choose`).  Plans that gave the same result on every
deal (pass and the bids the others always outbid) are noted as such.

With a game score (``score="24:10"``: the hand's side first) each plan also
gets ``p_win``, the chance that the hand's side wins the game: every sampled
deal's outcome moves the score; a score at which the game is over is a win
or a loss at once (tied top sides all win, unless ``tie = play_on``); from
every other score the rest of the game is played out ``games`` times with
:func:`simkit.pepper.api.simulate_games` (the next seat dealing), with the
same seed for every score so the plans share their randomness.  Then the
recommendation is the plan with the highest ``p_win`` (its 95% interval
``p_win_low``-``p_win_high``: :meth:`simkit.advice.WinChances.estimate`),
a clear choice only by more than 1 percentage point, and ``decides`` says
why the chance to win, not EV, decides.  The games report their progress
as they go (``work``), after the plans'.

``declarer=True`` gives the older figures instead
(:func:`simkit.pepper.api.evaluate_hand`): each contract played by the
hand's side with no auction, passing as the reference point (EV 0): what
the hand is worth if it plays a contract, not what bidding it brings.

``bound=True`` adds, for every contract level, the perfect-information bound
(seeds/pepper.md 9.4): the chance of making it as declarer, leading, when
every card is visible, with the best single trump over the same deals
(``p_make_bound``, its 95% interval ``bound_low``-``bound_high`` and that
trump, ``bound_trump``): no declaring side does better against defenders who see
every card too (weaker defenders may give more).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Unpack

import numpy as np
import pandas as pd

from simkit import advice, engine
from simkit.advice import PlanOutcome, pct
from simkit.base.errors import InputError
from simkit.base.rows import rows_of
from simkit.engine import FixedHand
from simkit.pepper import api

# What the app reads of every advisor (simkit.engine.Advisor):
from simkit.pepper.api import hand_size as hand_size
from simkit.pepper.api import plan_names as plan_names
from simkit.pepper.policies import make_policies
from simkit.pepper.rules import DECK as DECK
from simkit.pepper.rules import PepperRules, Tie
from simkit.pepper.summary import made_text
from simkit.runs.batches import Work, check_count, check_held, in_steps

#: The smallest difference in EV a player would act on: 0.05 points per hand (a
#: point every 20 hands; a game to 30 lasts about 8 to 10 hands).  A plan is a
#: clear choice only when it beats every other by more than this.
MATTERS = 0.05

#: EV, the points of a hand (us minus them), judged by :data:`MATTERS`.
EV_MEASURE = advice.Measure("ev", MATTERS, f"{MATTERS} points per hand",
                            fmt=lambda v: advice.points(v, 2), diff=lambda d: advice.points(d, 2),
                            words=lambda d: advice.per_hands(d, "point", "points", "scores"))


@dataclass(frozen=True)
class Advice(FixedHand):
    """What :func:`advise` found for one hand.

    ``bids`` has one row per plan: ``pass``, ``1`` .. ``T-1``, ``ndogo``,
    ``kubwa`` with the columns of :func:`simkit.advice.plan_table` (and
    ``p_win`` with a score); with ``declarer`` the older table (bid, level,
    p_make, ci_low, ci_high, ev; passing the reference).  ``score`` is the
    score as given (the hand's side first), ``start`` the same per scoring
    side (index = side number), ``games`` the games played out from each
    score.  ``policies`` are the seats' policy specs.  ``reason`` explains
    the recommendation; ``why`` is ``"<bid>: <reason>"``.
    """

    #: What a plan's value (EV) is in, and the digits it is shown with.
    VALUE: ClassVar[dict[str, Any]] = {"unit": "points (us minus them)", "digits": 2,
                                       "head": "EV", "matters": MATTERS}

    bids: pd.DataFrame
    recommended: str
    reason: str
    rules: PepperRules
    trump: dict[str, Any]
    policies: tuple[str, ...]
    score: tuple[int, ...] | None = None
    start: tuple[int, ...] | None = None
    games: int | None = None
    declarer: bool = False
    bound: bool = False
    verdict: advice.Verdict | None = None
    decides: str | None = None

    @property
    def why(self) -> str:
        return f"{self.recommended}: {self.reason}"


# -- input checks ----------------------------------------------------------------

#: The largest game score ``--score`` takes either way (a game is to 30 or so).
MAX_SCORE = 1_000_000
#: Games played out from each score a hand can leave (``--games``'s default).
GAMES = 10_000


def parse_score(score: str | Sequence[int], players: int = 4) -> tuple[int, ...]:
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
        if not all(p.lstrip("+-").isascii() and p.lstrip("+-").isdigit() for p in parts):
            raise bad                   # int() would take other scripts' digits too
        if any(len(p.lstrip("+-")) > 12 for p in parts):      # past MAX_SCORE at once
            raise InputError(f"bad --score {score[:24]!r}...: scores are at most "
                             f"{MAX_SCORE:,} either way")
        values = tuple(int(p) for p in parts)
    elif isinstance(score, (tuple, list)):
        if len(score) not in (2, n_sides) or any(
                isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in score):
            raise bad
        values = tuple(int(v) for v in score)
    else:
        raise bad
    if any(abs(v) > MAX_SCORE for v in values):
        raise InputError(f"bad --score {score!r}: scores are at most {MAX_SCORE:,} either way")
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
    if top >= rules.target and not (rules.tie is Tie.PLAY_ON and start.count(top) > 1):
        text = ":".join(str(v) for v in values)
        raise InputError(f"bad --score {text!r}: the game ends in the round a side reaches "
                         f"{rules.target} (rule 'target'), so a game in progress has every "
                         f"score below {rules.target}")
    return tuple(start)


# -- the advice ------------------------------------------------------------------

#: Hands a game played out from a position lasts, roughly, per point still to go
#: to the target (a hand moves the leader's score about 3 to 6): the game
#: phase's share of a run's progress, next to the plans' one hand per deal.
HANDS_PER_POINT = 1 / 6


def _game_effort(state: Sequence[int] | np.ndarray, rules: PepperRules) -> float:
    """The effort of one game played out from ``state``, in hands."""
    return 1.0 + max(0, rules.target - int(max(state))) * HANDS_PER_POINT


#: Positions a hand leaves, about (the game phase's share before they are known).
POSITIONS = 12


def _win_chances(outcomes: dict[str, np.ndarray], start: tuple[int, ...], rules: PepperRules,
                 side: int, common: api.FixedArgs, games: int, work: Work | None = None,
                 reserved: float = 0.0) -> advice.WinChances:
    """Each plan's positions and each position's chance to win (:class:`~simkit.
    advice.WinChances`) for the hand's ``side`` from the per-deal score
    changes (deals x sides) of each, the games played out at the table of
    ``common`` (its policies, seed and threads; the seat left of its dealer
    deals first).  With ``work`` the games report their effort
    (:func:`_game_effort` per game), replacing the ``reserved`` share
    announced before the plans."""
    S = rules.sides
    base = 128                                   # |score change| <= 4 * 8 = 32 per hand
    start_arr = np.array(start, np.int64)
    weights = base ** np.arange(S, dtype=np.int64)
    codes = {name: (delta + 64) @ weights for name, delta in outcomes.items()}
    win: dict[int, float] = {}
    played: dict[int, int] = {}
    first_dealer = (common.get("dealer", 0) + 1) % rules.players
    states = {code: start_arr + (code // weights) % base - 64
              for code in np.unique(np.concatenate(list(codes.values()))).tolist()}

    def over(state: np.ndarray) -> bool:
        top = int(state.max())
        return top >= rules.target and ((state == top).sum() == 1 or rules.tie is Tie.SHARED)

    if work is not None:
        work.expect(sum(games * _game_effort(s, rules) for s in states.values()
                        if not over(s)) - reserved)
    for code, state in states.items():
        if over(state):
            win[code] = float((state == int(state.max()))[side])   # a win, or a shared win
            played[code] = 0
            continue
        scores = tuple(int(v) for v in state)

        def play(first: int, n: int, scores: tuple[int, ...] = scores) -> np.ndarray:
            won: np.ndarray = api.simulate_games(
                n, rules=rules, policy=common.get("policy"), seed=common.get("seed", 0),
                start=first, threads=common.get("threads"), scores=scores,
                first_dealer=first_dealer)[f"win_{side}"].to_numpy()
            return won

        won = in_steps(play, games, work, _game_effort(state, rules))
        win[code] = float(won.mean())
        played[code] = games
    return advice.WinChances(codes, win, played)


def _outcome(df: pd.DataFrame, r: PepperRules, side: int) -> tuple[PlanOutcome, np.ndarray]:
    """A plan's per-deal outcome for the hand's ``side``, and every side's score change."""
    scores = df[[f"score_{s}" for s in range(r.sides)]].to_numpy(np.int64)
    bidder = df["bidder"].to_numpy(np.int64)
    holds = (bidder >= 0) & ((bidder % 2 if r.players == 4 else bidder) == side)
    us = scores[:, side].astype(float)
    them = (scores.sum(axis=1) - scores[:, side]) / (r.sides - 1)
    return PlanOutcome(holds=holds, made=df["made"].to_numpy(bool), thrown=bidder < 0, us=us,
                       them=them, value=us - them), scores


def _trump(df: pd.DataFrame, seat: int) -> str:
    """The trump the seat names most often when it holds the contract ('-': never)."""
    named = df.loc[df["bidder"] == seat, "trump"]
    return str(named.mode().iloc[0]) if len(named) else "-"


def _declarer_choice(bids: pd.DataFrame, samples: int) -> tuple[str, str]:
    """(recommended bid, reason) of the no-auction figures: passing is EV 0."""
    rows = bids.to_dict("records")
    best = rows[0]
    for row in rows[1:]:
        # strictly better only: a tie goes to the plan that commits least (pass first)
        if row["ev"] > best["ev"] + advice.TIE:
            best = row
    if best["level"] == 0:
        top = max(rows[1:], key=lambda r: (round(r["ev"], 9), -r["level"]))
        return "pass", f"no bid gains on average as declarer (best: {top['bid']} at " \
                       f"{advice.points(top['ev'])} a hand)"
    return best["bid"], (f"as declarer with no auction, made in {pct(best['p_make'])} of "
                         f"{samples:,} deals; {advice.points(best['ev'])} a hand")


def _declarer_table(ev: api.HandEvaluation) -> pd.DataFrame:
    b = ev.bids
    return pd.DataFrame({"bid": ["pass", *b["bid"]],
                         "level": np.r_[0, b["level"].to_numpy()].astype(np.int64),
                         "p_make": np.r_[1.0, b["p_make"].to_numpy(float)],
                         "ci_low": np.r_[1.0, b["ci_low"].to_numpy(float)],
                         "ci_high": np.r_[1.0, b["ci_high"].to_numpy(float)],
                         "ev": np.r_[0.0, b["ev"].to_numpy(float)]})


def _play_plans(hand: api.Hand, names: Sequence[str], samples: int, common: api.FixedArgs,
                work: Work | None) -> tuple[dict[str, tuple[int, PlanOutcome]],
                                            dict[str, np.ndarray], dict[str, str]]:
    """Every plan of ``names`` played on the same deals at the table of
    ``common`` (:func:`simkit.pepper.api.plan_hands`): per plan its code and
    outcome for the hand's side, and every side's score change per deal; and
    the trump the hand's seat names for a number bid and for ndogo/kubwa."""
    r: PepperRules = common["rules"]
    seat = common["seat"]
    assert seat is not None, "advise gives the seat"
    side = r.side_of(seat)
    played: dict[str, tuple[int, PlanOutcome]] = {}
    deltas: dict[str, np.ndarray] = {}
    trump: dict[str, str] = {}
    for name in names:
        df = api.plan_hands(hand, name, samples, work=work, **common)
        outcome, deltas[name] = _outcome(df, r, side)
        played[name] = (api.parse_plan(r, name), outcome)
        kubwa = r.bid_text(r.kubwa)
        if name in (r.bid_text(r.tricks - 1), kubwa):
            trump["number" if name != kubwa else "all"] = _trump(df, seat)
    return played, deltas, trump


def advise(hand: api.Hand, samples: int = 100_000, score: str | Sequence[int] | None = None,
           games: int = GAMES, declarer: bool = False, plans: str | Sequence[str] | None = None,
           bound: bool = False, work: Work | None = None,
           **given: Unpack[api.FixedArgs]) -> Advice:
    """Rank every bidding plan for ``hand`` and recommend one (see the module notes).

    ``given``: the table, seat, dealer, seed and threads
    (:class:`simkit.pepper.api.FixedArgs`; ``players`` defaults to 4 here);
    ``seat`` defaults to the seat left of ``dealer`` (the first to bid; the
    dealer speaks last).  ``score``: ``"US:THEM"`` or a tuple, the hand's
    side first; adds p_win per plan, each position after the hand played out
    ``games`` times.  ``plans``: the plans to play (names or levels; default
    every plan).  ``declarer``: the no-auction figures instead.  ``bound``:
    add the perfect-information bound per contract level.  ``work``
    (:class:`simkit.runs.batches.Work`): report progress, stop when told.  Bad input
    raises :class:`~simkit.base.errors.InputError` before any simulation.
    """
    settings = api.FixedSettings(**given)
    players = settings.players if "players" in given else 4
    api.GAME.check_players(players)
    r = api.resolve_rules(settings.rules, players)
    dealer = engine.check_seat(settings.dealer, "dealer", r.players)
    seat = (dealer + 1) % r.players if settings.seat is None else \
        engine.check_seat(settings.seat, "seat", r.players)
    check_held(samples, "--samples", "sample")
    cards = tuple(DECK.text(c) for c in api.parse_hand(hand, r.players))
    pols = make_policies(settings.policy, r.players)
    texts = tuple(p.label() for p in pols)
    names = advice.plan_list(plans, api.plan_names(r), lambda p: api.parse_plan(r, p),
                             declarer)
    values = start = None
    if score is not None:
        if declarer:
            raise InputError("--score needs the whole auction: leave out --declarer")
        values = parse_score(score, r.players)
        start = _start_scores(values, r, seat)
        check_count(games, "games per score")
    common = api.FixedArgs(players=r.players, seat=seat, dealer=dealer, rules=r, policy=pols,
                           seed=settings.seed, threads=settings.threads)
    reserved = 0.0
    if start is not None:
        reserved = games * POSITIONS * _game_effort(start, r)
    if work is not None:
        work.expect(samples * ((2 if declarer else len(names)) + bound) + reserved)
    if declarer:
        ev = api.evaluate_hand(hand, samples=samples, work=work, **common)
        table = _declarer_table(ev)
        recommended, reason = _declarer_choice(table, samples)
        if bound:
            _add_bound(table, hand, samples, common, work)
        return Advice(hand=cards, players=r.players, seat=seat, dealer=dealer,
                      samples=samples, bids=table, recommended=recommended, reason=reason, rules=r,
                      trump=dict(ev.trump), policies=texts, declarer=True, bound=bound)

    side = r.side_of(seat)
    played, deltas, trump = _play_plans(hand, names, samples, common, work)
    table = advice.plan_table(played)
    outcomes = {name: o for name, (_, o) in played.items()}
    win, measure, decides = None, EV_MEASURE, None
    if start is not None:
        win = _win_chances(deltas, start, r, side=side, common=common, games=games, work=work,
                           reserved=reserved)
        advice.with_win_chances(table, win)
        measure = advice.win_measure()
    verdict = advice.choose(table, outcomes, measure, win)
    if values is not None:
        decides = advice.decides_line(table, verdict.recommended,
                                      ":".join(str(v) for v in values), r.target)
    if bound:
        _add_bound(table, hand, samples, common, work)
    return Advice(hand=cards, players=r.players, seat=seat, dealer=dealer, samples=samples,
                  bids=table, recommended=verdict.recommended, reason=verdict.reason, rules=r,
                  trump=trump, policies=texts, score=values, start=start,
                  games=games if start is not None else None, bound=bound, verdict=verdict,
                  decides=decides)


def _add_bound(table: pd.DataFrame, hand: api.Hand, samples: int, common: api.FixedArgs,
               work: Work | None = None) -> None:
    """The bound columns (module notes) for the rows that are contract levels, on
    the deals of ``common`` (its table, seat, dealer, seed and threads);
    ``pass`` and ``policy`` get NaN and ''."""
    r: PepperRules = common["rules"]
    values = api.bound_hands(hand, samples, work=work, **common)
    rows: list[dict[str, Any]] = [api.make_bound(values, int(level), r) if level >= 1 else
            {"p_make_bound": np.nan, "bound_low": np.nan, "bound_high": np.nan,
             "bound_trump": ""} for level in table["level"]]
    for key in ("p_make_bound", "bound_low", "bound_high", "bound_trump"):
        table[key] = [row[key] for row in rows]


# -- output ----------------------------------------------------------------------

def _head(a: Advice) -> list[str]:
    lines = [f"Pepper hand {' '.join(a.hand)}: {a.players} players, seat {a.seat}, "
             f"dealer {a.dealer}; {a.samples:,} deals of the unseen cards",
             "policies by seat: " + ", ".join(
                 f"{s} {p}" + (" (this hand)" if s == a.seat else "")
                 for s, p in enumerate(a.policies))]
    if a.declarer:
        lines.append("as declarer with no auction: each contract played by this hand's side")
    else:
        lines.append("every plan played through the whole auction "
                     f"({a.rules.auction} auction, all pass: {a.rules.all_pass})")
    if a.trump:
        trump = a.trump.get("number", "-"), a.trump.get("all", "-")
        lines.append(f"trump named: {trump[0]} for a number bid, {trump[1]} for ndogo/kubwa")
    if a.score is not None:
        lines.append(f"score {':'.join(str(v) for v in a.score)} (this hand's side first), "
                     f"target {a.rules.target}; each position after the hand played out "
                     f"{a.games:,} times")
    return [*lines, ""]


def format_advice(advice_: Advice) -> str:
    """The plans as a table, then ``recommended: BID — reason``."""
    a = advice_
    lines = _head(a)
    if a.declarer:
        bound = f"{'bound [95% CI]':>26}" if a.bound else ""
        lines.append(f"{'bid':<7}{'made [95% CI]':<30}{'EV':>8}{bound}")
        for row in rows_of(a.bids):
            made = "(reference)" if row.level == 0 else made_text(
                row.p_make, row.ci_low, row.ci_high, a.samples)
            mark = "  <" if row.bid == a.recommended else ""
            extra = f"{_bound_text(row._asdict()):>26}" if a.bound else ""
            lines.append(f"{row.bid:<7}{made:<30}{row.ev:>+8.2f}{extra}{mark}")
        lines.append("EV: points for this hand's side minus points for an opponent side, "
                     "per hand; passing is the reference, 0.")
    else:
        rows = advice.format_rows(a.bids, a.recommended, unit=a.VALUE["unit"],
                                  with_win="p_win" in a.bids.columns)
        if a.bound:
            head, body, foot = rows[0], rows[1:-1], rows[-1]
            marks = [line.endswith("  <") for line in body]
            body = [line[:-3] if m else line for line, m in zip(body, marks)]
            rows = [head + f"{'bound [95% CI]':>26}"]
            for line, m, r in zip(body, marks, a.bids.to_dict("records")):
                rows.append(line + f"{_bound_text(r):>26}" + ("  <" if m else ""))
            rows.append(foot)
        lines += rows
    if a.bound:
        lines.append("bound: made as declarer, leading, with every card visible and the best "
                     "single trump over these deals (the perfect-information bound, no "
                     "policy playing): no declaring side does better against defenders who see "
                     "every card.")
    lines += advice.notes(a)
    if a.verdict is not None:
        lines.append(f"advice: {a.verdict.says}.")
    lines.append(f"recommended: {a.recommended} \u2014 {a.reason}")
    return "\n".join(lines)


def _bound_text(row: dict[Hashable, Any]) -> str:
    """``61.2% [60.9, 61.5] H``: the bound of a row, '-' for pass and policy."""
    p = row["p_make_bound"]
    if p != p:                          # NaN
        return "-"
    return (f"{100 * p:.1f}% [{100 * row['bound_low']:.1f}, {100 * row['bound_high']:.1f}] "
            f"{row['bound_trump']}")


def advice_json(advice_: Advice) -> dict[str, Any]:
    """The advice as JSON-ready data (plain str, int, float and None values); ``trump``
    is the suit the hand's seat names most often when it holds the contract
    (``number``: for a number bid, ``all``: for Ndogo or Kubwa; ``-``: never)."""
    a = advice_
    extra: tuple[str, ...] = (("p_win", "p_win_low", "p_win_high")
                              if "p_win" in a.bids.columns else ())
    if a.bound:
        extra += ("p_make_bound", "bound_low", "bound_high")
    if a.declarer:
        bids = [{"bid": str(r["bid"]), "p_make": float(r["p_make"]),
                 "ci_low": float(r["ci_low"]), "ci_high": float(r["ci_high"]),
                 "ev": float(r["ev"]),
                 **{k: (None if r[k] != r[k] else float(r[k])) for k in extra}}
                for r in a.bids.to_dict("records")]
    else:
        bids = advice.table_json(a.bids, extra)
    if a.bound:
        for row, r in zip(bids, a.bids.to_dict("records")):
            row["bound_trump"] = r["bound_trump"] or None
    out = {"game": "pepper", **advice.head_json(a), "bids": bids,
           "trump": {str(k): str(v) for k, v in a.trump.items()}}
    if a.score is not None:
        out["score"] = list(a.score)
        out["games"] = int(a.games or 0)
    return out
