"""Pitch from Python: simulate hands or money sessions into pandas, evaluate a fixed hand.

The game's contract with the shared engine layer is :class:`GAME`
(a :class:`simkit.engine.Game`): its record schemas and the small
functions that allocate and fill the kernels' arrays.  Column meanings are in
seeds/pitch.md sections 6 and 7, in the schemas below and in ``simkit rules
pitch``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import pandas as pd

from simkit import engine
from simkit.base import stats
from simkit.base.cards import mask_of
from simkit.base.errors import InputError
from simkit.base.measures import Measure, Section, seat_measure
from simkit.engine import Column, Game, RecordBook, Unit, WarmStep
from simkit.pitch import kernel as K
from simkit.pitch import kernel_columns as KC
from simkit.pitch import policies as policies_module
from simkit.pitch import rules as rules_module
from simkit.pitch import summary
from simkit.pitch.rules import (
    BIDS,
    DECK,
    HAND_SIZE,
    LEVELS,
    MAX_PLAYERS,
    MAX_SESSION_PLAYERS,
    MIN_PLAYERS,
    MONEY_UNITS_PER_CENT,
    MOON,
    PASS,
    PLAN_CODES,
    PLAN_NAMES,
    PLAN_PASS,
    PLAN_POLICY,
    TRUMP_TEXT,
    PitchRules,
)
from simkit.pitch.summary import AGG_KEYS, HandSummary, SessionSummary, aggregate_frame
from simkit.policy import Policy
from simkit.runs.batches import BATCH, Work, in_steps, set_threads

if TYPE_CHECKING:
    from simkit.pitch.reference import HandLog

def _rules(t: engine.Table) -> PitchRules:
    """A Pitch table's rules."""
    assert isinstance(t.rules, PitchRules), t.rules
    return t.rules


#: A hand as text (``"AS KS QS JS TS 9S"``) or a list of card texts.
Hand = engine.Hand
#: The hand ``simkit advise pitch`` shows by default.
EXAMPLE_HAND = "AS KS QS JS TS 9S"
#: Money units (1/840 cent) per dollar.
UNITS_PER_DOLLAR = 100 * MONEY_UNITS_PER_CENT


def hand_money(scores: np.ndarray, pitcher: np.ndarray, contract: np.ndarray, made: np.ndarray,
               rules: PitchRules) -> np.ndarray:
    """Money per seat (dollars) of hands settled as one-hand sessions (seeds/pitch.md 7):
    ``cents`` per point above the table's average, plus the moon payments."""
    n = scores.shape[1]
    s = scores.astype(np.int64)
    units = rules.cents * (MONEY_UNITS_PER_CENT // n) * (n * s - s.sum(axis=1, keepdims=True))
    moon = np.flatnonzero(contract == MOON)
    if len(moon):
        pay = rules.moon_dollars * UNITS_PER_DOLLAR * np.where(made[moon], 1, -1)
        units[moon] -= pay[:, None]
        units[moon, pitcher[moon]] += pay * n
    dollars: np.ndarray = units / UNITS_PER_DOLLAR
    return dollars


def _money(rec: np.ndarray, ctx: engine.FrameContext, s: int) -> np.ndarray:
    """Column ``money_<s>`` of the hands' one-hand-session money (computed once)."""
    rules = _rules(ctx.table)
    N = rules.players
    money: np.ndarray = ctx.once("money", lambda: hand_money(
        rec[:, KC.C_SCORE:KC.C_SCORE + N], rec[:, KC.C_PITCHER].astype(np.int64),
        rec[:, KC.C_CONTRACT], rec[:, KC.C_MADE].astype(bool), rules))
    seat: np.ndarray = money[:, s]
    return seat


# --- record schemas (seeds/pitch.md 6 and 7) ----------------------------------------

HAND_COLUMNS = (
    *engine.leading_columns("hand", KC.C_DEALER),
    Column("bid_{seat}", "int8", "the seat's highest bid: 2, 3, 4, 5 = moon (0: only "
           "passed, or silent)",
           KC.C_BID),
    Column("pitcher", "int8", "the seat that won the bid (-1: thrown in)", KC.C_PITCHER),
    Column("contract", "int8", "the winning bid (0: thrown in)", KC.C_CONTRACT),
    Column("stuck", "bool", "the dealer was forced to bid", KC.C_STUCK),
    Column("trump", "category", "the suit the pitcher led first: C, D, H, S (- thrown in)",
           KC.C_TRUMP, labels=TRUMP_TEXT),
    Column("tricks_{seat}", "int8", "tricks the seat won", KC.C_TRICKS),
    Column("points_{seat}", "int8", "points (High, Low, Jack, Game) the seat scored",
           KC.C_POINTS),
    Column("score_{seat}", "int8", "the seat's score change", KC.C_SCORE),
    Column("game_points_{seat}", "int8", "game points in the cards the seat won", KC.C_GP),
    Column("high", "int8", "the seat scoring High (-1: none)", KC.C_HIGH),
    Column("low", "int8", "the seat scoring Low (-1: none)", KC.C_LOW),
    Column("jack", "int8", "the seat scoring Jack (-1: the jack of trumps was not dealt)",
           KC.C_JACK),
    Column("game_winners", "int16", "bitmask of the seats scoring Game", KC.C_GAME),
    Column("made", "bool", "the pitcher made the contract", KC.C_MADE),
    Column("moon", "bool", "the contract was shoot the moon",
           derive=lambda rec, ctx: rec[:, KC.C_CONTRACT] == MOON),
    Column("pitcher_trumps", "int8", "trumps in the pitcher's dealt hand", KC.C_F_TRUMPS),
    Column("pitcher_ace", "bool", "the pitcher was dealt the ace of trumps", KC.C_F_ACE),
    Column("pitcher_king", "bool", "... the king of trumps", KC.C_F_KING),
    Column("pitcher_jack", "bool", "... the jack of trumps", KC.C_F_JACK),
    Column("pitcher_two", "bool", "... the two of trumps", KC.C_F_TWO),
    Column("pitcher_game_points", "int8", "game points in the pitcher's dealt hand",
           KC.C_F_GP),
    Column("money_{seat}", "float64", "the seat's money for the hand settled as a one-hand "
           "session, in dollars", derive=_money),
)

# A session's rows are read from one matrix per (session, player): the
# player's fields (kernel.F_*), then the session's (kernel.S_*), then the player.
_S0 = KC.N_FIELDS
_PLAYER = KC.N_FIELDS + KC.N_SFIELDS


def _session_policy(m: np.ndarray, ctx: engine.FrameContext) -> pd.Categorical[str]:
    texts = [p.text() for p in ctx.table.policies]
    names = list(dict.fromkeys(texts))                  # each policy text once
    code_of = np.array([names.index(t) for t in texts], np.int8)
    return pd.Categorical.from_codes(code_of[m[:, _PLAYER] % len(texts)], pd.Index(names))


SESSION_COLUMNS = (
    engine.index_column("session", "the session's number in the run (stream (seed, session))"),
    Column("player", "int8", "the player, in order of arrival (player j plays policy j mod "
           "the number of policies given)", _PLAYER),
    Column("policy", "category", "the player's policy", derive=_session_policy),
    Column("seat", "int8", "starting seat: 1 = left of the first dealer ... the first "
           "dealer; 0 = joined later", KC.F_SEAT),
    Column("joined", "int16", "hands played before the player joined", KC.F_JOINED),
    Column("left", "int16", "hands played when the player left (-1: stayed)", KC.F_LEFT),
    Column("hands", "int16", "hands the player played", KC.F_HANDS),
    Column("score", "int32", "the player's final score", KC.F_SCORE),
    Column("money", "float64", "the player's money, in dollars (sums to zero per session)",
           derive=lambda m, ctx: m[:, KC.F_MONEY] / UNITS_PER_DOLLAR),
    Column("moons_made", "int16", "moons the player shot", KC.F_MOONS_MADE),
    Column("moons_failed", "int16", "moons the player failed", KC.F_MOONS_FAILED),
    Column("pitched", "int16", "hands the player pitched", KC.F_PITCHED),
    Column("made", "int16", "contracts the player made", KC.F_MADE),
    Column("top", "bool", "the player was seated at the end with the session's highest "
           "score (ties: every player on it)", KC.F_TOP),
    Column("session_hands", "int16", "hands in the session", _S0 + KC.S_HANDS),
    Column("ended_by_target", "bool", "a player reached the target", _S0 + KC.S_TARGET),
    # a player leads after a hand when its score alone is the top (seeds/pitch.md 7)
    *engine.lead_columns(_S0 + KC.S_LEAD_CHANGES, "player", "hand",
                         winner="the only top player at the end", length="session_hands",
                         none="tied at the top"),
    Column("first_dealer", "int8", "the first dealer's seat", _S0 + KC.S_FIRST_DEALER),
)

_NO_PLAYS = np.empty((1, 1), np.int8)
_NO_DEAL = np.empty((1, 1), np.int64)


def _untraced(table: engine.Table) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray]:
    return (False, _NO_PLAYS, _NO_DEAL, _NO_PLAYS)


def _session_arrays(table: engine.Table, count: int) -> tuple[np.ndarray, np.ndarray]:
    return (np.empty((count, MAX_SESSION_PLAYERS, KC.N_FIELDS), np.int64),
            np.empty((count, KC.N_SFIELDS), np.int64))


def _play_sessions(t: engine.Table, start: int, arrays: tuple[np.ndarray, np.ndarray]) -> None:
    res, sres = arrays
    K.run_sessions(start=start, count=len(res), key=t.key, rules=t.rv, kinds=t.kinds,
                   params=t.params, res=res, sres=sres)


def _session_rows(arrays: tuple[np.ndarray, np.ndarray], table: engine.Table,
                  first: int) -> tuple[np.ndarray, np.ndarray]:
    """One row per player who took part in each session; money must sum to zero."""
    res, sres = arrays
    if (sres[:, KC.S_IMBALANCE] != 0).any():
        bad = first + int(np.flatnonzero(sres[:, KC.S_IMBALANCE])[0])
        raise AssertionError(f"money of session {bad} does not sum to zero")
    took_part = np.arange(res.shape[1])[None, :] < sres[:, KC.S_PLAYERS][:, None]
    sess, player = np.nonzero(took_part)
    matrix = np.hstack([res[sess, player], sres[sess], player[:, None]])
    return matrix, (first + sess).astype(np.int64)


def _session_money(df: pd.DataFrame, rules: PitchRules, start: int, count: int,
                   slots: int) -> np.ndarray:
    """Each policy slot's money per session: the players who played policy j
    (player j, j + slots, ... in order of arrival) added up."""
    out = np.zeros((count, slots), np.float64)
    np.add.at(out, (df["session"].to_numpy() - start, df["player"].to_numpy() % slots),
              df["money"].to_numpy())
    return out


def _aggregate(t: engine.Table, start: int, count: int) -> pd.DataFrame:
    """Counts and sums per group of hands (:func:`summary.aggregate_frame`)."""
    return aggregate_frame(engine.records(GAME, GAME.unit("hand"), t, start, count), _rules(t))


def _reference_hand(rules: PitchRules, policies: Sequence[Policy], seed: int,
                    index: int) -> HandLog:
    from simkit.pitch import reference
    return reference.play_hand(rules, policies, seed, index, index % rules.players)


class Pitch(Game):
    """Pitch: Money Game: seeds/pitch.md."""

    name = "pitch"
    title = rules_module.TITLE
    book = rules_module.BOOK
    rules = PitchRules
    presets = rules_module.PRESETS
    policies = policies_module.POLICIES
    policy_layout = policies_module.LAYOUT
    named_policies = policies_module.NAMED
    players = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    units = MappingProxyType({
        "hand": Unit("hand", "hand", "one row per hand", HAND_COLUMNS, HandSummary,
                     kernel=K.run_hands, width=KC.N_COLS, dtype=np.int16, extra=_untraced,
                     batch=BATCH, chunk=1_000_000, aggregate=_aggregate, agg_keys=AGG_KEYS,
                     measure=seat_measure("money", "dollars per hand", "money_{seat}")),
        "game": Unit("game", "session", "one row per player per money session",
                     SESSION_COLUMNS, SessionSummary, alloc=_session_arrays,
                     play=_play_sessions, rows=_session_rows, batch=1 << 15, chunk=100_000,
                     per_player=True,
                     measure=Measure("money", "dollars per session", _session_money,
                                     ("session", "player", "money"))),
    })
    bench_players = (4, 2, 8)
    example_hand = EXAMPLE_HAND

    def record(self) -> RecordBook:
        from simkit.pitch import record
        return record

    def measures(self, rules: Any) -> list[Section]:
        return summary.measures(rules)

    def reference(self, rules: Any, policies: Sequence[Policy], seed: int,
                  index: int) -> object:
        return _reference_hand(rules, policies, seed, index)

    def warm(self) -> Mapping[str, WarmStep]:
        return {"hands": (32, lambda: (simulate(hands=50),
                                       plan_hands(EXAMPLE_HAND, "policy", samples=50))),
                "sessions": (1, lambda: simulate_sessions(sessions=5))}

    def dealt(self, lines: Sequence[str], rules: Any) -> tuple[int, list[str]]:
        from simkit.pitch import record
        return record.deal(lines, rules)


#: The game, as the registry (:mod:`simkit.games`) hands it out.
GAME = Pitch()


#: Rules from a rules object, a preset name, a dict of rule values or None (the
#: seed's), with ``players`` (if given) replacing the count.
resolve_rules = GAME.resolve_rules


def iter_hands(hands: int, batch: int = BATCH,
               **run: Unpack[engine.RunArgs]) -> Iterator[pd.DataFrame]:
    """Pitch hands ``start .. start+hands-1`` in DataFrames of ``batch`` rows
    or fewer, as :func:`simulate` makes them; ``run``: the keyword arguments of
    :func:`simulate` (``players``, ``rules``, ``policy``, ``seed``, ``start``,
    ``threads``, ``progress``)."""
    return engine.iterate(GAME, "hand", engine.RunSettings(hands, **run), batch=batch)


def simulate(hands: int = 100_000, players: int | None = None, rules: Any = None,
             policy: Any = None,
             seed: int = 0, start: int = 0, threads: int | None = None,
             progress: bool = False) -> pd.DataFrame:
    """Play ``hands`` Pitch hands, one row each (:data:`HAND_COLUMNS`), with
    ``players`` (2 to 8; default the rules', 4) at the table.

    ``rules`` is a preset name, a dict of rule values or a PitchRules, and
    ``policy`` one spec for all or one per seat (e.g. ``["heuristic:aggression=1",
    "random"] * 2``).  Hand ``i`` comes from stream (seed, i), the deal
    passing left with each hand (see :func:`simkit.engine.simulate`).
    """
    run = engine.RunSettings(hands, players=players, rules=rules, policy=policy, seed=seed,
                             start=start, threads=threads, progress=progress)
    return engine.simulate(GAME, "hand", run)


def simulate_sessions(sessions: int = 10_000, players: int | None = None, rules: Any = None,
                      policy: Any = None, seed: int = 0, start: int = 0, threads: int | None = None,
                      progress: bool = False) -> pd.DataFrame:
    """Play ``sessions`` money sessions (seeds/pitch.md 7); one row per player per
    session (:data:`SESSION_COLUMNS`).

    Session ``k`` uses stream (seed, k).  Player ``j`` (in order of arrival)
    plays policy ``j mod P`` of the ``P`` policies given (any number of them).
    Money is checked to sum to zero in every session (an AssertionError otherwise).
    """
    run = engine.RunSettings(sessions, players=players, rules=rules, policy=policy, seed=seed,
                             start=start, threads=threads, progress=progress)
    return engine.simulate(GAME, "game", run)


def trace_hands(rules: PitchRules, policies: Any, seed: int, start: int,
                count: int) -> dict[str, Any]:
    """Hands with their calls and plays, for comparison with the reference engine:
    ``frame`` (as :func:`simulate`), ``calls`` (seat * 16 + level in call
    order, -1 padded), ``plays`` (card ids in play order, -1 padded) and
    ``deal`` (dealt masks by seat)."""
    t = engine.setup(GAME, None, rules, policies, seed)
    rec = np.empty((count, KC.N_COLS), np.int16)
    plays = np.full((count, 48), -1, np.int8)
    calls = np.full((count, K.MAX_CALLS), -1, np.int8)
    dealt = np.zeros((count, MAX_PLAYERS), np.int64)
    K.run_hands(start=start, count=count, key=t.key, rules=t.rv, kinds=t.kinds,
                params=t.params, rec=rec, trace=True, tr_plays=plays, tr_deal=dealt,
                tr_calls=calls)
    return {"frame": _frame(t, rec, start), "calls": calls, "plays": plays, "deal": dealt}


def _frame(t: engine.Table, rec: np.ndarray, start: int = 0) -> pd.DataFrame:
    return engine.frame(HAND_COLUMNS, rec, engine.FrameContext(
        t, np.arange(start, start + len(rec), dtype=np.int64)), GAME.axis_values(t.rules))


# --- a fixed hand --------------------------------------------------------------

def hand_size(players: int) -> int:
    """Cards in a Pitch hand: 6 at any table (seeds/pitch.md)."""
    return HAND_SIZE


def parse_hand(hand: Hand) -> list[int]:
    """Card ids of a six-card Pitch hand; anything else is an InputError."""
    return DECK.parse_held(hand, HAND_SIZE, "a Pitch hand")


#: The keyword arguments of a fixed-hand run, and the settings they make
#: (the engine's, shared with Pepper).
FixedArgs = engine.FixedArgs
FixedSettings = engine.FixedSettings


Held = engine.Held


def _fixed_table(hand: Hand, samples: int, given: FixedSettings) -> Held:
    """The checked arguments of a fixed-hand run (:func:`simkit.engine.held`),
    the hand's cards checked too before anything is played."""
    held = engine.held(GAME, hand, samples, given)
    parse_hand(hand)
    return held


def _fixed_run(held: Held, plan: int, contract: int, traced: tuple[bool, np.ndarray, np.ndarray]
               ) -> Callable[[int, int], np.ndarray]:
    """The kernel's run of samples ``first .. first+count-1`` around a fixed hand:
    the seat declared pitcher of ``contract`` (>= 2, no auction) or held to
    ``plan`` through the auction; ``traced``: the kernel's trace arguments."""
    t = held.table
    trace, plays, calls = traced
    fixed = np.int64(mask_of(parse_hand(held.hand)))

    def run(first: int, count: int) -> np.ndarray:
        rec = np.empty((count, KC.N_COLS), np.int16)
        K.run_plan(first=first, count=count, key=t.key, rules=t.rv, kinds=t.kinds,
                   params=t.params, seat=held.seat, dealer=held.dealer,
                   fixed=fixed, plan=plan, contract=contract, rec=rec,
                   trace=trace, tr_plays=plays, tr_calls=calls)
        return rec
    return run


def _fixed(held: Held, samples: int, plan: int = PLAN_POLICY, contract: int = PASS,
           work: Work | None = None) -> pd.DataFrame:
    """The hand records of ``samples`` deals around a fixed hand (:func:`_fixed_run`),
    in steps with ``work`` (:func:`simkit.runs.batches.in_steps`: the same rows)."""
    run = _fixed_run(held, plan, contract, (False, _NO_PLAYS, _NO_PLAYS))
    return _frame(held.table, in_steps(run, samples, work))


def fixed_hands(hand: Hand, contract: int | str, samples: int,
                **given: Unpack[FixedArgs]) -> pd.DataFrame:
    """Hand records of ``samples`` deals in which ``seat`` (default: left of the
    dealer) holds ``hand`` and the unseen cards are dealt uniformly (8.3;
    sample ``k`` uses stream (seed, k)).  ``contract`` 2, 3, 4 or moon makes
    the seat the pitcher with no auction; ``pass`` (0) is the bidding plan
    ``pass`` (:func:`plan_hands`).  What :func:`evaluate_hand` plays.  The
    other keyword arguments: :class:`FixedArgs`."""
    settings = FixedSettings(**given)
    held = _fixed_table(hand, samples, settings)
    level = _rules(held.table).parse_bid(contract) if isinstance(contract, str) \
        else int(contract)
    if level not in LEVELS:
        raise InputError(f"bad contract {contract!r}: expected one of {', '.join(BIDS)}")
    set_threads(settings.threads)
    if level == PASS:
        return _fixed(held, samples, plan=PLAN_PASS)
    return _fixed(held, samples, contract=level)


# --- bidding plans (seeds/pitch.md 8.4) ----------------------------------------------

def plan_names(rules: PitchRules | None = None) -> list[str]:
    """The bidding plans an advised seat can be held to, by name (8.4):
    ``["pass", "2", "3", "4", "moon"]`` (``policy`` is also accepted by
    :func:`parse_plan`: the seat bids by its own policy)."""
    return list(PLAN_NAMES)


def parse_plan(rules: PitchRules | None, plan: str | int) -> int:
    """A bidding plan's code (8.4): ``"policy"`` -1, ``"pass"`` 0, ``"2"``, ``"3"``,
    ``"4"`` (ceilings), ``"moon"`` 5, or one of those codes as an int.
    Anything else is an InputError."""
    names = {"policy": PLAN_POLICY, **dict(zip(PLAN_NAMES, PLAN_CODES))}
    codes = (PLAN_POLICY, *PLAN_CODES)
    if isinstance(plan, str) and plan.strip().lower() in names:
        return names[plan.strip().lower()]
    if isinstance(plan, (int, np.integer)) and not isinstance(plan, bool) and plan in codes:
        return int(plan)
    # the codes are Python's alone: as text, "5" is not the moon (a bid of 5 is no plan)
    codes_too = "" if isinstance(plan, str) else \
        " (or the codes " + ", ".join(map(str, codes)) + ")"
    raise InputError(f"unknown Pitch bidding plan {plan!r}: expected one of "
                     + ", ".join(names) + codes_too)


def plan_hands(hand: Hand, plan: str | int, samples: int,
               work: Work | None = None, **given: Unpack[FixedArgs]) -> pd.DataFrame:
    """Hand records (as :func:`simulate`'s) of ``samples`` deals in which ``seat``
    (default: left of the dealer) holds ``hand`` and the unseen cards are dealt
    uniformly (8.3; sample ``k`` uses stream (seed, k)), the seat held to the
    bidding ``plan`` (:func:`parse_plan`) through the whole auction under the
    rules in force while every other seat bids by its policy (8.4); then the
    play and scoring as usual.  ``work`` (:class:`simkit.runs.batches.Work`): report
    progress, stop when told.  The other keyword arguments: :class:`FixedArgs`."""
    settings = FixedSettings(**given)
    held = _fixed_table(hand, samples, settings)
    code = parse_plan(_rules(held.table), plan)
    set_threads(settings.threads)
    return _fixed(held, samples, plan=code, work=work)


def trace_plans(rules: PitchRules, policies: Any, hand: Hand, plan: int,
                seat: int, dealer: int, seed: int, count: int) -> dict[str, Any]:
    """:func:`plan_hands` (arguments unchecked) with the calls and plays, as
    :func:`trace_hands` gives them (without the deal), for comparison with the
    reference engine."""
    t = engine.setup(GAME, None, rules, policies, seed)
    plays = np.full((count, 48), -1, np.int8)
    calls = np.full((count, K.MAX_CALLS), -1, np.int8)
    run = _fixed_run(Held(t, hand, seat, dealer), plan, PASS, (True, plays, calls))
    return {"frame": _frame(t, run(0, count)), "calls": calls, "plays": plays}


@dataclass(frozen=True)
class HandEvaluation(engine.FixedHand):
    """What :func:`evaluate_hand` found for one fixed hand.

    ``bids`` has one row per bid (pass, 2, 3, 4, moon): made (count) and
    p_make with its 95% interval (a pass counts as made in every sample),
    points (mean score change of the seat) and money (mean dollars per hand)
    with their 95% intervals, and pitched (the share of samples in which the
    seat was the pitcher: 1 for a bid; for a pass, when it was a stuck dealer).
    ``trump`` is the suit the seat most often leads as pitcher of a 2 bid.
    """

    bids: pd.DataFrame
    trump: str


def evaluate_hand(hand: Hand, samples: int = 10_000, work: Work | None = None,
                  **given: Unpack[FixedArgs]) -> HandEvaluation:
    """Hold ``hand`` fixed at ``seat``, deal the unseen cards uniformly (seeds/pitch.md
    8.3) and play ``samples`` deals out for each bid.

    For a bid the seat is the pitcher with that contract and there is no
    auction (the others do not get to outbid or steal); the seat then leads
    by its policy.  For ``pass`` the others bid by their policies (a stuck
    dealer bids 2).  The same samples (streams) serve every bid.  Money is
    per hand as a one-hand session.  By default ``seat`` is the first to bid,
    left of the dealer.  The other keyword arguments: :class:`FixedArgs`.
    """
    settings = FixedSettings(**given)
    held = _fixed_table(hand, samples, settings)
    seat = held.seat
    set_threads(settings.threads)
    rows = []
    trump = "-"
    for text, level in zip(BIDS, LEVELS):
        df = (_fixed(held, samples, contract=level, work=work) if level
              else _fixed(held, samples, plan=PLAN_PASS, work=work))
        points = df[f"score_{seat}"].to_numpy().astype(np.float64)
        money = df[f"money_{seat}"].to_numpy()
        if level:
            made = int(df["made"].sum())
            trump = trump if level != 2 else str(df["trump"].mode().iloc[0])
        else:
            made = samples
        lo, hi = stats.proportion_ci(made, samples)
        pm, plo, phi = stats.mean_ci_of(points)
        mm, mlo, mhi = stats.mean_ci_of(money)
        rows.append({"bid": text, "level": level, "made": made, "p_make": made / samples,
                     "ci_low": lo, "ci_high": hi, "points": pm, "points_low": plo,
                     "points_high": phi, "money": mm, "money_low": mlo, "money_high": mhi,
                     "pitched": float((df["pitcher"] == seat).mean())})
    return HandEvaluation(hand=tuple(DECK.text(c) for c in parse_hand(held.hand)),
                          players=_rules(held.table).players, seat=seat, dealer=held.dealer,
                          samples=samples, bids=pd.DataFrame(rows), trump=trump)
