"""Pepper from Python: simulate hands or games into pandas, evaluate a fixed hand.

The game's contract with the shared engine layer is :class:`GAME`
(a :class:`simkit.engine.Game`): its record schemas and the small
functions that allocate and fill the kernels' arrays.  The functions below
resolve rules, policies, seed and threads once at the edge
(:func:`simkit.engine.setup`), then hand plain arrays to ``kernel.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import numpy.typing as npt
import pandas as pd

from simkit import engine
from simkit.base import stats
from simkit.base.cards import mask_of
from simkit.base.errors import InputError
from simkit.base.measures import Section, seat_measure
from simkit.engine import Column, Game, RecordBook, Unit, WarmStep
from simkit.pepper import kernel as K
from simkit.pepper import kernel_columns as KC
from simkit.pepper import policies as policies_module
from simkit.pepper import rules as rules_module
from simkit.pepper import solver, summary
from simkit.pepper.rules import DECK, PLAN_POLICY, TRUMP_TEXT, PepperRules
from simkit.pepper.summary import GameSummary, HandSummary
from simkit.policy import EXPERT, Policy
from simkit.runs.batches import BATCH, Work, check_count, in_steps, set_threads

if TYPE_CHECKING:
    from simkit.pepper.reference import HandLog

# --- record schemas (README "Hand records", seeds/pepper.md 8) ---------------------

HAND_COLUMNS = (
    *engine.leading_columns("hand", KC.C_DEALER),
    Column("bid_{seat}", "int8", "highest level the seat called (0: only passed)", KC.C_BID),
    Column("calls", "int16", "calls in the auction", KC.C_CALLS),
    Column("contract", "int8", "0 thrown in; 1..T-1 numbers, T Ndogo, T+1 Kubwa (T = 6 with "
           "4 players, else 8)", KC.C_CONTRACT),
    Column("bidder", "int8", "the seat holding the contract (-1: thrown in)", KC.C_BIDDER),
    Column("stuck", "bool", "the dealer was stuck with a 1 (stick-the-dealer)", KC.C_STUCK),
    Column("trump", "category", "trump named: C, D, H, S or NT (missing: thrown in)",
           KC.C_TRUMP, labels=TRUMP_TEXT),
    Column("tricks_{seat}", "int8", "tricks the seat won", KC.C_TRICKS),
    Column("side_tricks_{side}", "int8", "tricks the side won (sides: teams 0 = seats 0, 2 "
           "and 1 = seats 1, 3 with 4 players, else one per seat)", KC.C_SIDE_TRICKS),
    Column("score_{side}", "int8", "the side's score change", KC.C_SCORE),
    Column("made", "bool", "the contract was made", KC.C_MADE),
    Column("bidder_trumps", "int8", "trumps in the bidder's dealt hand", KC.C_F_TRUMPS),
    Column("bidder_bowers", "int8", "bowers in the bidder's dealt hand", KC.C_F_BOWERS),
    Column("bidder_aces", "int8", "aces outside trumps in the bidder's hand", KC.C_F_ACES),
    Column("bidder_voids", "int8", "suits outside trumps the bidder was void in", KC.C_F_VOIDS),
)

GAME_COLUMNS = (
    engine.index_column("game"),
    engine.dealer_column(KC.G_FIRST_DEALER, first=True),
    Column("rounds", "int32", "hands played", KC.G_ROUNDS),
    Column("score_{side}", "int32", "the side's final score", KC.G_SCORE),
    Column("winners", "int8", "bitmask of the winning sides (tied top sides all win)",
           KC.G_WINNERS),
    Column("win_{side}", "bool", "the side won",
           derive=lambda g, ctx, s: (g[:, KC.G_WINNERS] >> s) & 1 == 1),
    engine.unfinished_column(KC.G_UNFINISHED, "max_rounds"),
    # a side leads after a round when its score alone is the top (seeds/pepper.md 6)
    *engine.lead_columns(KC.G_LEAD_CHANGES, "side", "round", "the only winning side", "rounds"),
)

#: Group columns of :func:`aggregate_hands` (the axes of ``kernel.AGG_SHAPE``);
#: the other columns are integer totals.
AGG_KEYS = ("contract", "made", "bidder_trumps", "bidder_bowers", "bidder_aces",
            "bidder_voids", "bidder_seat")
AGG_TOTALS = ("hands", "bidder_points", "bidder_points_sq", "opponents_points")

_NO_TRACE = np.empty((1, 1), np.int64)

#: A hand as text (``"JH JD AH KH QH 9S"``) or a list of card texts.
Hand = engine.Hand


def _rules(t: engine.Table) -> PepperRules:
    """A Pepper table's rules."""
    assert isinstance(t.rules, PepperRules), t.rules
    return t.rules


def _search(table: engine.Table) -> bool | None:
    """The kernels' ``search`` argument: None unless a seat plays the expert, so
    that a run without one never compiles the expert's search."""
    return True if (table.kinds == EXPERT).any() else None


def _untraced(table: engine.Table) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray,
                                            bool | None]:
    return (False, _NO_TRACE, _NO_TRACE, _NO_TRACE, _search(table))


def _start(table: engine.Table) -> tuple[np.ndarray, int, bool | None]:
    return (table.options["init"], table.options["first_dealer"], _search(table))


def _game_options(table: engine.Table, scores: Sequence[int] | None = None,
                  first_dealer: int | None = None) -> dict[str, Any]:
    """Starting scores (one per side) and first dealer (None: drawn per game)."""
    r = _rules(table)
    init = np.zeros(3, np.int64)
    if scores is not None:
        scores = list(scores)
        if len(scores) != r.sides or not all(isinstance(x, (int, np.integer)) for x in scores):
            raise InputError(f"bad scores {scores!r}: expected {r.sides} whole numbers, "
                             f"one per side")
        init[:r.sides] = scores
    if first_dealer is None:
        first_dealer = -1
    elif not 0 <= first_dealer < r.players:
        raise InputError(f"bad first dealer {first_dealer}: expected a seat from 0 to "
                         f"{r.players - 1}")
    return {"init": init, "first_dealer": first_dealer}


def _aggregate(t: engine.Table, start: int, count: int) -> pd.DataFrame:
    """Counts and sums per group, computed inside the kernel (see :func:`aggregate_hands`)."""
    agg = np.zeros((K.AGG_LANES, int(np.prod(K.AGG_SHAPE)), K.AGG_STATS), np.int64)
    K.run_hands_agg(start=start, count=count, key=t.key, rules=t.rv, kinds=t.kinds,
                    params=t.params, agg=agg, search=_search(t))
    total = agg.sum(axis=0)
    cells = np.flatnonzero(total[:, 0])
    keys = np.unravel_index(cells, K.AGG_SHAPE)
    cols = {name: k.astype(np.int8) for name, k in zip(AGG_KEYS, keys)}
    cols["made"] = cols["made"].astype(bool)
    for i, name in enumerate(AGG_TOTALS):
        cols[name] = total[cells, i]
    return pd.DataFrame(cols)


def _side(rules: PepperRules, seat: int) -> int:
    """The scoring side of a seat: its team with 4 players, else itself."""
    return seat % rules.sides


def _reference_hand(rules: PepperRules, policies: Sequence[Policy], seed: int,
                    index: int) -> HandLog:
    from simkit.pepper import reference
    return reference.simulate_hand(rules, policies, seed, index)


def _bench_cases(hands: int) -> list[engine.BenchCase]:
    """``simkit bench``'s further Pepper cases: the double-dummy solver on random
    4-player deals, "every trick" and "most tricks" for the side of the leader
    (seat 0) over all five trump options (a deal: five solves), whole hands
    at a table of ``expert`` players (seeds/pepper.md 7.3, 10), and the
    advisor with the expert at every seat: ``simkit advise pepper --hand
    "JH JD AH KH 9C 9S" --policy expert``, every plan (a unit: one sampled
    deal of the unseen cards, played once per plan)."""
    deals = max(1, hands // 4_000)
    rng = np.random.default_rng(1)
    masks = np.zeros((deals * 5, 4), np.int64)
    for i in range(deals):
        order = rng.permutation(DECK.size)
        for s in range(4):
            masks[5 * i:5 * i + 5, s] = sum(1 << int(c) for c in order[6 * s:6 * s + 6])
    trump = np.tile(np.arange(5, dtype=np.int64), deals)
    leader = np.zeros(deals * 5, np.int64)
    side = np.full(deals * 5, 0b0101, np.int64)
    out = np.empty(deals * 5, np.int64)

    def solve(target: int) -> Callable[[], None]:
        targets = np.full(deals * 5, target, np.int64)
        return lambda: solver.solve_deals(hands=masks, P=4, o=trump, leader=leader, side=side,
                                          target=targets, out=out)

    expert = max(1, hands // 4_000)         # 500 by default: two kernel blocks
    samples = max(1, hands // 40_000)       # 50 by default: 400 expert hands

    def advise_expert() -> None:
        # what the advisor plays (every plan on the same deals), without its
        # tables: the advisor sits above this module
        import numba

        for plan in plan_names(resolve_rules(None, 4)):
            plan_hands("JH JD AH KH 9C 9S", plan, samples, players=4, policy="expert",
                       threads=numba.get_num_threads())

    return [engine.BenchCase("double dummy: every trick, 5 trumps", 4, "deal", deals, solve(6)),
            engine.BenchCase("double dummy: most tricks, 5 trumps", 4, "deal", deals,
                             solve(-1)),
            engine.BenchCase("expert (16 worlds) at every seat", 4, "hand", expert,
                             engine.kernel_run(GAME, 4, expert, "expert")),
            engine.BenchCase("advise --policy expert, every plan", 4, "sample", samples,
                             advise_expert)]


class Pepper(Game):
    """Pepper (Pilipili): seeds/pepper.md."""

    name = "pepper"
    title = rules_module.TITLE
    book = rules_module.BOOK
    rules = PepperRules
    presets = rules_module.PRESETS
    policies = policies_module.POLICIES
    policy_layout = policies_module.LAYOUT
    named_policies = policies_module.NAMED
    players = (2, 3, 4)
    axes = MappingProxyType({"side": lambda r: range(r.sides)})
    units = MappingProxyType({
        "hand": Unit("hand", "hand", "one row per hand", HAND_COLUMNS, HandSummary,
                     kernel=K.run_hands, width=KC.N_COLS, dtype=np.int16, extra=_untraced,
                     batch=BATCH, chunk=1_000_000, aggregate=_aggregate, agg_keys=AGG_KEYS,
                     measure=seat_measure("points", "points per hand",
                                          "score_{side}", _side)),
        "game": Unit("game", "game", "one row per whole game", GAME_COLUMNS, GameSummary,
                     kernel=K.run_games, width=KC.N_GCOLS, dtype=np.int64, extra=_start,
                     batch=1 << 16, chunk=100_000, options=_game_options,
                     measure=seat_measure("wins", "wins per game", "win_{side}", _side)),
    })
    bench_players = (4, 3, 2)
    bound = True
    example_hand = "JH JD AH KH QH 9S"

    def record(self) -> RecordBook:
        from simkit.pepper import record
        return record

    def measures(self, rules: Any) -> list[Section]:
        return summary.measures(rules)

    def reference(self, rules: Any, policies: Sequence[Policy], seed: int,
                  index: int) -> object:
        return _reference_hand(rules, policies, seed, index)

    def warm(self) -> Mapping[str, WarmStep]:
        # One kernel plays every kind of run, so a step is a kind of table (with
        # or without the expert), not a kind of run.
        return {"hands": (43, lambda: (simulate(hands=50), declare_hands(hands=50, contract=3),
                                       plan_hands(self.example_hand, "policy", samples=50),
                                       aggregate_hands(hands=50), simulate_games(games=5))),
                "bound": (9, lambda: bound_first(np.arange(4), np.arange(4), target=6)),
                "expert": (52, lambda: (simulate(hands=2, policy="expert"),
                                        declare_hands(hands=2, contract=3, policy="expert"),
                                        simulate_games(games=1, policy="expert")))}

    def bench_cases(self, hands: int) -> list[engine.BenchCase]:
        return _bench_cases(hands)

    def dealt(self, lines: Sequence[str], rules: Any) -> tuple[int, list[str]]:
        from simkit.pepper import record
        return record.deal(lines, rules)


#: The game, as the registry (:mod:`simkit.games`) hands it out.
GAME = Pepper()


#: Rules from a rules object, a preset name, a dict of rule values or None (the
#: seed's), with ``players`` (if given) replacing the count.
resolve_rules = GAME.resolve_rules


def iter_hands(hands: int, batch: int = BATCH,
               **run: Unpack[engine.RunArgs]) -> Iterator[pd.DataFrame]:
    """Hands ``start .. start+hands-1`` as DataFrames of at most ``batch`` rows
    each; ``run``: the keyword arguments of :func:`simulate` (``players``,
    ``rules``, ``policy``, ``seed``, ``start``, ``threads``, ``progress``)."""
    return engine.iterate(GAME, "hand", engine.RunSettings(hands, **run), batch=batch)


def simulate(hands: int = 100_000, players: int | None = None, rules: Any = None,
             policy: Any = None, seed: int = 0, start: int = 0, threads: int | None = None,
             progress: bool = False) -> pd.DataFrame:
    """Play ``hands`` Pepper hands and return one row per hand (:data:`HAND_COLUMNS`).

    ``rules``: a preset name, a dict of rule values or a PepperRules;
    ``policy``: one spec for every seat or one per seat, e.g.
    ``["heuristic:aggression=0.5", "random", "heuristic", "random"]``.
    Hand ``i`` is dealt by seat ``i mod players`` from stream (seed, i).
    ``players`` (2, 3 or 4) overrides the rules' count, which defaults to 4.
    """
    run = engine.RunSettings(hands, players=players, rules=rules, policy=policy, seed=seed,
                             start=start, threads=threads, progress=progress)
    return engine.simulate(GAME, "hand", run)


def simulate_games(games: int = 10_000, scores: Sequence[int] | None = None,
                   first_dealer: int | None = None,
                   **run: Unpack[engine.RunArgs]) -> pd.DataFrame:
    """Play ``games`` whole games and return one row per game (:data:`GAME_COLUMNS`).

    ``scores`` (one per side) starts every game from a score in progress;
    ``first_dealer`` fixes the first dealer (default: drawn per game).
    ``run``: the keyword arguments of :func:`simulate` (``players``,
    ``rules``, ``policy``, ``seed``, ``start``, ``threads``, ``progress``).
    """
    return engine.simulate(GAME, "game", engine.RunSettings(games, **run), scores=scores,
                           first_dealer=first_dealer)


def aggregate_hands(hands: int, players: int | None = None, rules: Any = None,
                    policy: Any = None, seed: int = 0, start: int = 0,
                    threads: int | None = None) -> pd.DataFrame:
    """Counts and sums per group of hands ``start .. start+hands-1``, computed
    inside the kernel: memory does not grow with ``hands``.

    One row per non-empty group of ``AGG_KEYS`` (``bidder_seat``: 1 = left of
    the dealer ... players = the dealer, 0 = thrown in) with ``hands``,
    ``bidder_points`` (sum of the bidding side's score changes),
    ``bidder_points_sq`` (sum of their squares, for intervals) and
    ``opponents_points`` (sum over all other sides).  The same hands as
    :func:`simulate`; tables from different ranges add up (groupby-sum).
    """
    run = engine.RunSettings(hands, players=players, rules=rules, policy=policy, seed=seed,
                             start=start, threads=threads)
    return engine.aggregate(GAME, run)


def _frame(t: engine.Table, rec: np.ndarray, start: int = 0,
           numbers: np.ndarray | None = None) -> pd.DataFrame:
    """Hand records of hands ``start ..`` (or of the hand ``numbers`` given)."""
    if numbers is None:
        numbers = np.arange(start, start + len(rec), dtype=np.int64)
    return engine.frame(HAND_COLUMNS, rec, engine.FrameContext(t, numbers),
                        GAME.axis_values(t.rules))


def _traces(count: int) -> dict[str, np.ndarray]:
    """The kernels' trace arrays for ``count`` hands: ``calls`` (seat * 16 +
    level, -1 padded), ``plays`` (card ids in order, -1 padded) and ``deal``
    (dealt masks by seat; index 3 is the dead hand with 2 players)."""
    return {"calls": np.empty((count, KC.MAX_CALLS), np.int64),
            "plays": np.empty((count, 32), np.int64),
            "deal": np.empty((count, 4), np.int64)}


def trace_hands(rules: PepperRules, policies: Any, seed: int, start: int,
                count: int) -> dict[str, np.ndarray]:
    """Hands with their full action trace, for comparison with the reference.

    Returns ``rec`` (records), ``calls`` (seat * 16 + level, -1 padded),
    ``plays`` (card ids in order, -1 padded) and ``deal`` (dealt masks by seat;
    index 3 is the dead hand with 2 players).
    """
    t = engine.setup(GAME, None, rules, policies, seed)
    rec = np.empty((count, KC.N_COLS), np.int16)
    tr = _traces(count)
    K.run_hands(start=start, count=count, key=t.key, rules=t.rv, kinds=t.kinds,
                params=t.params, rec=rec, trace=True, tr_calls=tr["calls"],
                tr_plays=tr["plays"], tr_deal=tr["deal"], search=_search(t))
    return {"rec": rec, **tr}


def _contract(r: PepperRules, contract: int | str) -> int:
    level = r.parse_bid(contract) if isinstance(contract, str) else int(contract)
    if not 1 <= level <= r.kubwa:
        raise InputError(f"bad contract {contract!r}: expected a bid from 1 to kubwa")
    return level


def declare_hands(hands: int, contract: int | str, numbers: npt.ArrayLike | None = None,
                  **run: Unpack[engine.RunArgs]) -> pd.DataFrame:
    """Deal hands as :func:`simulate` does (same seed, same deals) but skip the
    auction: the seat left of the dealer plays ``contract`` (a level or a bid
    name such as ``"kubwa"``) on every deal.  ``numbers`` (an array of hand
    numbers) plays those deals instead of ``start .. start+hands-1``.
    ``run``: the keyword arguments of :func:`simulate` (``players``,
    ``rules``, ``policy``, ``seed``, ``start``, ``threads``; no ``progress``).

    For studies of what a hand is worth whatever would have been bid.  The
    ``bid_<seat>`` column of a heuristic declarer holds the level it would
    have wanted; the other auction columns are 0.
    """
    return _first_speaker(_contract, contract, numbers, engine.RunSettings(hands, **run))


def _first_speaker(parse: Callable[[PepperRules, Any], int], value: Any,
                   numbers: npt.ArrayLike | None, run: engine.RunSettings) -> pd.DataFrame:
    """Hands ``run.start ..`` (or the hand ``numbers``) dealt as :func:`simulate`
    deals them, with the seat left of the dealer held to ``parse(rules,
    value)``: a declared contract (:func:`_contract`) or a plan
    (:func:`parse_plan`), by kernel ``run_first``."""
    if numbers is None:
        check_count(run.count, "hands")
        hands = np.arange(run.start, run.start + run.count, dtype=np.int64)
    else:
        hands = np.array(numbers, dtype=np.int64)   # writable: one specialisation
    t = engine.setup(GAME, run.players, run.rules, run.policy, run.seed)
    code = parse(_rules(t), value)
    set_threads(run.threads)
    rec = np.empty((len(hands), KC.N_COLS), np.int16)
    plan, contract = (PLAN_POLICY, code) if parse is _contract else (code, 0)
    K.run_first(numbers=hands, key=t.key, rules=t.rv, kinds=t.kinds, params=t.params,
                plan=plan, contract=contract, rec=rec, search=_search(t))
    return _frame(t, rec, numbers=hands)


def hand_size(players: int) -> int:
    """Cards in a Pepper hand: 6 with 4 players, else 8 (seeds/pepper.md 2)."""
    return 6 if players == 4 else 8


def parse_hand(hand: Hand, players: int) -> list[int]:
    """Card ids of a Pepper hand, checking the count for the player count."""
    return DECK.parse_held(hand, hand_size(players), f"a {players}-player Pepper hand")


# --- runs around a fixed hand (seeds/pepper.md 9.1) -------------------------------

#: The keyword arguments of a fixed-hand run, and the settings they make
#: (the engine's, shared with Pitch).
FixedArgs = engine.FixedArgs
FixedSettings = engine.FixedSettings


Held = engine.Held


def _mask(held: Held) -> int:
    """The held cards' mask, the hand checked for the player count (when it is
    first played)."""
    return mask_of(parse_hand(held.hand, _rules(held.table).players))


def fixed_hands(hand: Hand, contract: int | str, samples: int,
                **given: Unpack[FixedArgs]) -> pd.DataFrame:
    """Hand records of ``samples`` deals in which ``seat`` (default: left of the
    dealer) holds ``hand`` and the unseen cards are dealt uniformly (sample
    ``k`` uses stream (seed, k)); ``seat`` plays ``contract`` with no auction.
    The other keyword arguments: :class:`FixedArgs`.

    The deal: the unseen cards in id order are shuffled, then each other hand
    in deal order (the dead hand last with 2 players) takes the next cards.
    The auction columns are 0.  What :func:`evaluate_hand` plays.
    """
    settings = FixedSettings(**given)
    held = engine.held(GAME, hand, samples, settings)
    level = _contract(_rules(held.table), contract)
    set_threads(settings.threads)
    return _frame(held.table, _records(held, PLAN_POLICY, samples, contract=level))


# --- the perfect-information bound (seeds/pepper.md 9.4, 10) ----------------------

def bound_hands(hand: Hand, samples: int, work: Work | None = None,
                **given: Unpack[FixedArgs]) -> np.ndarray:
    """``(samples, 5)``: on the deals of :func:`fixed_hands` (the same seed, the
    same deals), the double-dummy value of ``seat``'s side leading the first
    trick, for each trump option C, D, H, S, NT (section 10): the most tricks
    it takes with every card visible.  The other keyword arguments:
    :class:`FixedArgs` (``policy`` is not read: no policy plays)."""
    settings = replace(FixedSettings(**given), policy=None)
    held = engine.held(GAME, hand, samples, settings)
    fixed = _mask(held)
    set_threads(settings.threads)

    def solve(first: int, count: int) -> np.ndarray:
        out = np.empty((count, 5), np.int64)
        solver.bound_fixed(first=first, count=count, key=held.table.key, rules=held.table.rv,
                           seat=held.seat, dealer=held.dealer, fixed=fixed, out=out)
        return out
    return in_steps(solve, samples, work)


def bound_first(numbers: npt.ArrayLike, trump: npt.ArrayLike,
                players: int | None = None, rules: Any = None, seed: int = 0,
                threads: int | None = None, target: int = 0) -> np.ndarray:
    """On the deals of :func:`simulate` / :func:`declare_hands` (the hand
    ``numbers``): the double-dummy value of the first speaker's side leading the
    first trick with trump option ``trump[i]`` (0..4, one per hand); with a
    ``target`` > 0, 1 where it can take that many tricks and 0 where not."""
    # copies: a read-only array (a pandas column's) would compile another specialisation
    numbers = np.array(numbers, dtype=np.int64)
    t = engine.setup(GAME, players, rules, None, seed)
    trump = np.array(trump, dtype=np.int64)
    if trump.shape != numbers.shape or trump.min(initial=0) < 0 or trump.max(initial=0) > 4:
        raise InputError(f"bad trump options: expected {len(numbers)} values 0 to 4 "
                         f"(C D H S NT)")
    set_threads(threads)
    out = np.empty(len(numbers), np.int64)
    solver.bound_first(numbers=numbers, key=t.key, rules=t.rv, trump=trump, target=target,
                       out=out)
    return out


def make_bound(values: np.ndarray, level: int, rules: PepperRules) -> dict[str, Any]:
    """The bound on making contract ``level`` (9.4) from :func:`bound_hands`'s
    values: the best single trump option (allowed by the rules) and the share
    of deals in which it takes the contract's tricks, with its 95% interval."""
    need = min(level, rules.tricks)
    options = range(5 if rules.no_trump else 4)
    # ties: the trump with the most tricks on average, then the first option
    made = [(int((values[:, o] >= need).sum()), int(values[:, o].sum()), -o) for o in options]
    k, _, o = max(made)
    lo, hi = stats.proportion_ci(k, len(values))
    return {"p_make_bound": k / len(values), "bound_low": lo, "bound_high": hi,
            "bound_trump": TRUMP_TEXT[-o]}


# --- bidding plans (seeds/pepper.md 9.3) -----------------------------------------

def plan_names(rules: Any) -> list[str]:
    """The plans' names under these rules: pass, the ceilings 1 .. T-1, ndogo,
    kubwa (``policy``, the seat's own bidding, is also accepted by :func:`parse_plan`)."""
    r = rules if isinstance(rules, PepperRules) else resolve_rules(rules)
    return ["pass", *(str(level) for level in range(1, r.ndogo)), "ndogo", "kubwa"]


def parse_plan(rules: Any, plan: str | int) -> int:
    """The plan code (``rules.PLAN_POLICY``, ``PLAN_PASS``, a ceiling 1 .. T-1,
    ``T`` Ndogo, ``T+1`` Kubwa) of a plan name (:func:`plan_names` or ``policy``,
    any case) or code; anything else is an InputError naming it."""
    r = rules if isinstance(rules, PepperRules) else resolve_rules(rules)
    code: int | None
    if isinstance(plan, str):
        codes = {name: level for level, name in enumerate(plan_names(r))}
        codes["policy"] = PLAN_POLICY
        code = codes.get(plan.strip().lower())
    elif isinstance(plan, (int, np.integer)) and not isinstance(plan, bool) \
            and PLAN_POLICY <= plan <= r.kubwa:
        code = int(plan)
    else:
        code = None
    if code is None:
        raise InputError(f"bad plan {plan!r}: expected pass, 1 to {r.ndogo - 1}, ndogo, kubwa "
                         f"or policy")
    return code


def _records(held: Held, plan: int, samples: int, contract: int = 0,
             work: Work | None = None) -> np.ndarray:
    """The record matrix of a plan (or, ``contract`` > 0, declared) run, in steps
    with ``work`` (:func:`simkit.runs.batches.in_steps`: the same rows)."""
    return in_steps(lambda first, n: _plan(held, plan, n, contract=contract, first=first)["rec"],
                    samples, work)


def _plan(held: Held, plan: int, samples: int, trace: bool = False, contract: int = 0,
          first: int = 0) -> dict[str, np.ndarray]:
    """The arrays of a plan run of samples ``first .. first+samples-1`` (threads
    already set; a declared ``contract`` > 0 instead of the auction): ``rec``
    and, with ``trace``, ``calls``, ``plays`` and ``deal`` as
    :func:`trace_hands` gives them."""
    t = held.table
    rec = np.empty((samples, KC.N_COLS), np.int16)
    tr = _traces(samples) if trace else dict.fromkeys(("calls", "plays", "deal"), _NO_TRACE)
    K.run_plan(first=first, count=samples, key=t.key, rules=t.rv, kinds=t.kinds,
               params=t.params, seat=held.seat, dealer=held.dealer, fixed=_mask(held),
               plan=plan, contract=contract, rec=rec, trace=trace, tr_calls=tr["calls"],
               tr_plays=tr["plays"], tr_deal=tr["deal"], search=_search(t))
    return {"rec": rec, **tr}


def _plan_run(hand: Hand, plan: str | int, samples: int, given: FixedSettings,
              trace: bool, work: Work | None = None) -> tuple[engine.Table, dict[str, np.ndarray]]:
    """Checked arguments, then :func:`_plan`: ``(table, arrays)`` (without
    ``trace``, only ``rec``, in steps with ``work``)."""
    held = engine.held(GAME, hand, samples, given)
    code = parse_plan(_rules(held.table), plan)
    set_threads(given.threads)
    if trace:
        return held.table, _plan(held, code, samples, trace=True)
    return held.table, {"rec": _records(held, code, samples, work=work)}


def plan_hands(hand: Hand, plan: str | int, samples: int, work: Work | None = None,
               **given: Unpack[FixedArgs]) -> pd.DataFrame:
    """Hand records (the columns of :func:`simulate`) of ``samples`` deals in
    which ``seat`` (default: left of the dealer) holds ``hand`` and bids by
    ``plan`` (:func:`parse_plan`: ``"pass"``, ``"3"``, ``"ndogo"``, ``"kubwa"``,
    ``"policy"`` or a code) while every other seat bids by its policy
    (seeds/pepper.md 9.3).  The whole hand is played under the rules in force;
    the deals are those of :func:`fixed_hands` (sample ``k``: stream (seed, k)).
    ``work`` (:class:`simkit.runs.batches.Work`): report progress, stop when told.
    The other keyword arguments: :class:`FixedArgs`.
    """
    t, arrays = _plan_run(hand, plan, samples, FixedSettings(**given), trace=False, work=work)
    return _frame(t, arrays["rec"])


def plan_deals(hands: int, plan: str | int, numbers: npt.ArrayLike | None = None,
               **run: Unpack[engine.RunArgs]) -> pd.DataFrame:
    """Hand records of the deals :func:`simulate` deals (same seed, same deals),
    each played with the seat left of the dealer, the first to speak, bidding
    by ``plan`` (:func:`parse_plan`) while the other seats bid by their
    policies (seeds/pepper.md 9.3).  Every plan on the same deals: the Kubwa
    study's paired comparisons.  ``numbers``: those hands instead of a range.
    ``run``: the keyword arguments of :func:`simulate` (``players``,
    ``rules``, ``policy``, ``seed``, ``start``, ``threads``; no ``progress``)."""
    return _first_speaker(parse_plan, plan, numbers, engine.RunSettings(hands, **run))


def trace_plan(hand: Hand, plan: str | int, samples: int,
               **given: Unpack[FixedArgs]) -> dict[str, np.ndarray]:
    """:func:`plan_hands` with its full action trace, for comparison with the
    reference: ``rec`` (records), ``calls``, ``plays`` and ``deal`` as
    :func:`trace_hands` gives them.  The other keyword arguments:
    :class:`FixedArgs`."""
    return _plan_run(hand, plan, samples, FixedSettings(**given), trace=True)[1]


@dataclass(frozen=True)
class HandEvaluation(engine.FixedHand):
    """What :func:`evaluate_hand` found for one fixed hand.

    ``tricks``: the distribution of tricks won by the hand's side when it
    plays a number contract (columns tricks, count, share); ``bids``: for each
    bid level, the rate at which it is made with its 95% interval and the
    expected score change of the hand's side and of each opponent side on
    average; ``trump``: the trump chosen for a number bid and for Ndogo/Kubwa;
    ``outcomes``: per bid level, the score change of every side in each
    sampled deal (samples x sides), for the advisor's game chances.
    """

    tricks: pd.DataFrame
    bids: pd.DataFrame
    trump: dict[str, str]
    outcomes: dict[int, np.ndarray]


def _outcomes(r: PepperRules, rv: np.ndarray, side_tricks: dict[str, np.ndarray],
              side: int) -> dict[int, np.ndarray]:
    """Per bid level, every side's score change in each sample (the other sides
    score the tricks they won); the contract's own by :func:`kernel.contract_scores`."""
    out = {}
    for level in range(1, r.kubwa + 1):
        tricks = side_tricks["number" if level < r.tricks else "all"]
        delta = tricks.copy()
        delta[:, side] = K.contract_scores(level, np.ascontiguousarray(tricks[:, side]), rv)
        out[level] = delta
    return out


def evaluate_hand(hand: Hand, samples: int = 10_000, work: Work | None = None,
                  **given: Unpack[FixedArgs]) -> HandEvaluation:
    """Hold ``hand`` fixed at ``seat``, deal the unseen cards uniformly and play
    ``samples`` deals out with the hand's side as declarer.

    The auction is skipped: the seat names its trump (by its policy) for a
    number bid, and separately for Ndogo/Kubwa (whose trump choice may
    differ), and every seat plays by its policy.  Play does not depend on the
    number bid, so one play-out per sample gives every number bid's result.
    By default ``seat`` is the first to bid, left of the dealer.  The other
    keyword arguments: :class:`FixedArgs`.
    """
    settings = FixedSettings(**given)
    held = engine.held(GAME, hand, samples, settings)
    seat, r = held.seat, _rules(held.table)
    cards = parse_hand(hand, r.players)
    set_threads(settings.threads)
    recs = {name: _records(held, PLAN_POLICY, samples, contract=contract, work=work)
            for name, contract in (("number", 1), ("all", r.kubwa))}
    side_tricks = {name: rec[:, KC.C_SIDE_TRICKS:KC.C_SIDE_TRICKS + r.sides].astype(np.int64)
                   for name, rec in recs.items()}
    side = r.side_of(seat)
    outcomes = _outcomes(r, held.table.rv, side_tricks, side)
    counts = np.bincount(side_tricks["number"][:, side], minlength=r.tricks + 1)
    tricks = pd.DataFrame({"tricks": np.arange(r.tricks + 1), "count": counts,
                           "share": counts / samples})
    rows = []
    for level, delta in outcomes.items():
        won = side_tricks["number" if level < r.tricks else "all"][:, side]
        k = int((won >= min(level, r.tricks)).sum())
        lo, hi = stats.proportion_ci(k, samples)
        own = delta[:, side].mean()
        theirs = ((r.tricks - won) / (r.sides - 1)).mean()     # opponents score their tricks
        rows.append({"bid": r.bid_text(level), "level": level, "made": k,
                     "p_make": k / samples, "ci_low": lo, "ci_high": hi,
                     "ev_points": own, "ev_opponents": theirs, "ev": own - theirs})
    trump = {name: TRUMP_TEXT[int(np.bincount(rec[:, KC.C_TRUMP]).argmax())]
             for name, rec in recs.items()}
    return HandEvaluation(hand=tuple(DECK.text(c) for c in cards), players=r.players,
                          seat=seat, dealer=held.dealer, samples=samples, tricks=tricks,
                          bids=pd.DataFrame(rows), trump=trump, outcomes=outcomes)
