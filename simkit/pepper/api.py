"""Pepper from Python: simulate hands or games into pandas, evaluate a fixed hand.

These functions resolve rules, policies, seed and threads once at the edge,
then hand plain arrays to the kernels in ``kernel.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np
import pandas as pd

from simkit import config, rng, stats
from simkit.errors import InputError
from simkit.policy import Policy
from simkit.chunks import spec_args
from simkit.runner import BATCH, check_count, run_batches, set_threads
from simkit.pepper import kernel as K
from simkit.pepper.policies import flatten as flatten_policies
from simkit.pepper.policies import make_policies
from simkit.pepper.rules import DECK, PRESETS, TRUMP_TEXT, PepperRules, flatten, make_rules


def resolve_rules(rules=None, players: int | None = None) -> PepperRules:
    """Rules from a PepperRules, a preset name, a dict of overrides or None (the seed's)."""
    return config.resolve_rules(rules, players, PepperRules, make_rules, PRESETS, "Pepper")


def _setup(players, rules, policy, seed):
    if players is not None and (isinstance(players, bool) or players not in (2, 3, 4)):
        raise InputError(f"bad player count {players!r}: Pepper is played by 2, 3 or 4 players")
    r = resolve_rules(rules, players)
    pols = make_policies(policy, r.players)
    key = rng.run_key(seed)
    kinds, params = flatten_policies(pols)
    return r, pols, flatten(r), kinds, params, key


def hands_frame(rec: np.ndarray, start: int, rules: PepperRules,
                policies: tuple[Policy, ...]) -> pd.DataFrame:
    """Hand records from the kernel's matrix as a typed DataFrame (columns in README)."""
    P, S = rules.players, rules.sides
    n = rec.shape[0]
    cols: dict[str, object] = {"hand": np.arange(start, start + n, dtype=np.int64),
                               "dealer": rec[:, K.C_DEALER].astype(np.int8)}
    for s, p in enumerate(policies):
        cols[f"policy_{s}"] = pd.Categorical.from_codes(np.zeros(n, np.int8), [p.text()])
    for s in range(P):
        cols[f"bid_{s}"] = rec[:, K.C_BID + s].astype(np.int8)
    cols["calls"] = rec[:, K.C_CALLS].astype(np.int16)
    cols["contract"] = rec[:, K.C_CONTRACT].astype(np.int8)
    cols["bidder"] = rec[:, K.C_BIDDER].astype(np.int8)
    cols["stuck"] = rec[:, K.C_STUCK].astype(bool)
    cols["trump"] = pd.Categorical.from_codes(rec[:, K.C_TRUMP].astype(np.int8), list(TRUMP_TEXT))
    for s in range(P):
        cols[f"tricks_{s}"] = rec[:, K.C_TRICKS + s].astype(np.int8)
    for s in range(S):
        cols[f"side_tricks_{s}"] = rec[:, K.C_SIDE_TRICKS + s].astype(np.int8)
    for s in range(S):
        cols[f"score_{s}"] = rec[:, K.C_SCORE + s].astype(np.int8)
    cols["made"] = rec[:, K.C_MADE].astype(bool)
    cols["bidder_trumps"] = rec[:, K.C_F_TRUMPS].astype(np.int8)
    cols["bidder_bowers"] = rec[:, K.C_F_BOWERS].astype(np.int8)
    cols["bidder_aces"] = rec[:, K.C_F_ACES].astype(np.int8)
    cols["bidder_voids"] = rec[:, K.C_F_VOIDS].astype(np.int8)
    return pd.DataFrame(cols)


def _hand_records(rv, kinds, params, key, start, count) -> np.ndarray:
    rec = np.empty((count, K.N_COLS), np.int16)
    no_trace = np.empty((1, 1), np.int64)
    K.run_hands(start, count, key, rv, kinds, params, rec, False, no_trace, no_trace, no_trace)
    return rec


def iter_hands(hands: int, players: int | None = None, rules=None, policy=None, seed: int = 0,
               start: int = 0, threads: int | None = None, batch: int = BATCH,
               progress: bool = False) -> Iterator[pd.DataFrame]:
    """Hands ``start .. start+hands-1`` as DataFrames of at most ``batch`` rows each."""
    check_count(hands, "hands")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
    set_threads(threads)
    for rec, first in run_batches(lambda s, c: (_hand_records(rv, kinds, params, key, s, c), s),
                                  hands, start=start, batch=batch, progress=progress):
        yield hands_frame(rec, first, r, pols)


def simulate(hands: int = 100_000, players: int | None = None, rules=None, policy=None,
             seed: int = 0, start: int = 0, threads: int | None = None,
             progress: bool = False) -> pd.DataFrame:
    """Play ``hands`` Pepper hands and return one row per hand.

    ``rules``: a preset name, a dict of rule values or a PepperRules;
    ``policy``: one spec for every seat or one per seat, e.g.
    ``["heuristic:aggression=0.5", "random", "heuristic", "random"]``.
    Hand ``i`` is dealt by seat ``i mod players`` from stream (seed, i).
    ``players`` (2, 3 or 4) overrides the rules' count, which defaults to 4.
    """
    parts = list(iter_hands(hands, players, rules, policy, seed, start, threads,
                            progress=progress))
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]


def simulate_games(games: int = 10_000, players: int | None = None, rules=None, policy=None,
                   seed: int = 0, start: int = 0, threads: int | None = None,
                   progress: bool = False, scores=None,
                   first_dealer: int | None = None) -> pd.DataFrame:
    """Play ``games`` whole games and return one row per game.

    ``scores`` (one per side) starts every game from a score in progress;
    ``first_dealer`` fixes the first dealer (default: drawn per game).
    Columns: game, first_dealer, rounds, score_<side> (final), winners
    (bitmask of winning sides; several when tied), win_<side> (bool), unfinished.
    """
    check_count(games, "games")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
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
    set_threads(threads)

    def compute(s, c):
        g = np.empty((c, K.N_GCOLS), np.int64)
        K.run_games(s, c, key, rv, kinds, params, init, first_dealer, g)
        return s, g

    frames = []
    for first, g in run_batches(compute, games, start=start, batch=1 << 16,
                                progress=progress, unit="game"):
        cols = {"game": np.arange(first, first + len(g), dtype=np.int64),
                "first_dealer": g[:, K.G_FIRST_DEALER].astype(np.int8),
                "rounds": g[:, K.G_ROUNDS].astype(np.int32)}
        for s in range(r.sides):
            cols[f"score_{s}"] = g[:, K.G_SCORE + s].astype(np.int32)
        cols["winners"] = g[:, K.G_WINNERS].astype(np.int8)
        for s in range(r.sides):
            cols[f"win_{s}"] = (g[:, K.G_WINNERS] >> s) & 1 == 1
        cols["unfinished"] = g[:, K.G_UNFINISHED].astype(bool)
        frames.append(pd.DataFrame(cols))
    return pd.concat(frames, ignore_index=True)


def trace_hands(rules: PepperRules, policies, seed: int, start: int, count: int) -> dict:
    """Hands with their full action trace, for comparison with the reference.

    Returns ``rec`` (records), ``calls`` (seat * 16 + level, -1 padded),
    ``plays`` (card ids in order, -1 padded) and ``deal`` (dealt masks by seat;
    index 3 is the dead hand with 2 players).
    """
    r, pols, rv, kinds, params, key = _setup(None, rules, policies, seed)
    rec = np.empty((count, K.N_COLS), np.int16)
    calls = np.empty((count, K.MAX_CALLS), np.int64)
    plays = np.empty((count, 32), np.int64)
    deal = np.empty((count, 4), np.int64)
    K.run_hands(start, count, key, rv, kinds, params, rec, True, calls, plays, deal)
    return {"rec": rec, "calls": calls, "plays": plays, "deal": deal}


def declare_hands(hands: int, contract: int | str, players: int | None = None, rules=None,
                  policy=None, seed: int = 0, start: int = 0,
                  threads: int | None = None) -> pd.DataFrame:
    """Deal hands as :func:`simulate` does (same seed, same deals) but skip the
    auction: the seat left of the dealer plays ``contract`` (a level or a bid
    name such as ``"kubwa"``) on every deal.

    For studies of what a hand is worth whatever would have been bid.  The
    ``bid_<seat>`` column of a heuristic declarer holds the level it would
    have wanted; the other auction columns are 0.
    """
    check_count(hands, "hands")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
    level = r.parse_bid(contract) if isinstance(contract, str) else int(contract)
    if not 1 <= level <= r.kubwa:
        raise InputError(f"bad contract {contract!r}: expected a bid from 1 to kubwa")
    set_threads(threads)
    rec = np.empty((hands, K.N_COLS), np.int16)
    K.run_declare(start, hands, key, rv, kinds, params, level, rec)
    return hands_frame(rec, start, r, pols)



def fixed_hands(hand, contract: int | str, samples: int, players: int | None = None,
                seat: int | None = None, dealer: int = 0, rules=None, policy=None,
                seed: int = 0, threads: int | None = None) -> pd.DataFrame:
    """Hand records of ``samples`` deals in which ``seat`` (default: left of the
    dealer) holds ``hand`` and the unseen cards are dealt uniformly (sample
    ``k`` uses stream (seed, k)); ``seat`` plays ``contract`` with no auction.

    The deal: the unseen cards in id order are shuffled, then each other hand
    in deal order (the dead hand last with 2 players) takes the next cards.
    The auction columns are 0.  What :func:`evaluate_hand` plays.
    """
    check_count(samples, "--samples")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
    if not 0 <= dealer < r.players:
        raise InputError(f"bad dealer {dealer}: expected a seat from 0 to {r.players - 1}")
    if seat is None:
        seat = (dealer + 1) % r.players
    if not 0 <= seat < r.players:
        raise InputError(f"bad seat {seat}: expected a seat from 0 to {r.players - 1}")
    level = r.parse_bid(contract) if isinstance(contract, str) else int(contract)
    if not 1 <= level <= r.kubwa:
        raise InputError(f"bad contract {contract!r}: expected a bid from 1 to kubwa")
    fixed = 0
    for c in parse_hand(hand, r.players):
        fixed |= 1 << c
    set_threads(threads)
    rec = np.empty((samples, K.N_COLS), np.int16)
    K.run_fixed(samples, key, rv, kinds, params, seat, dealer, fixed, level, rec)
    return hands_frame(rec, 0, r, pols)

#: Group columns of :func:`aggregate_hands` / :func:`agg_chunk` (the axes of
#: ``kernel.AGG_SHAPE``); the other columns are integer totals.
AGG_KEYS = ("contract", "made", "bidder_trumps", "bidder_bowers", "bidder_aces",
            "bidder_voids", "bidder_seat")
AGG_TOTALS = ("hands", "bidder_points", "bidder_points_sq", "opponents_points")


def aggregate_hands(hands: int, players: int | None = None, rules=None, policy=None,
                    seed: int = 0, start: int = 0, threads: int | None = None) -> pd.DataFrame:
    """Counts and sums per group of hands ``start .. start+hands-1``, computed
    inside the kernel: memory does not grow with ``hands``.

    One row per non-empty group of ``AGG_KEYS`` (``bidder_seat``: 1 = left of
    the dealer ... players = the dealer, 0 = thrown in) with ``hands``,
    ``bidder_points`` (sum of the bidding side's score changes),
    ``bidder_points_sq`` (sum of their squares, for intervals) and
    ``opponents_points`` (sum over all other sides).  The same hands as
    :func:`simulate`; tables from different ranges add up (groupby-sum).
    """
    check_count(hands, "hands")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
    set_threads(threads)
    agg = np.zeros((K.AGG_LANES, int(np.prod(K.AGG_SHAPE)), K.AGG_STATS), np.int64)
    K.run_hands_agg(start, hands, key, rv, kinds, params, agg)
    total = agg.sum(axis=0)
    cells = np.flatnonzero(total[:, 0])
    keys = np.unravel_index(cells, K.AGG_SHAPE)
    cols = {name: k.astype(np.int8) for name, k in zip(AGG_KEYS, keys)}
    cols["made"] = cols["made"].astype(bool)
    for i, name in enumerate(AGG_TOTALS):
        cols[name] = total[cells, i]
    return pd.DataFrame(cols)


def hand_chunk(spec: dict, start: int, count: int) -> pd.DataFrame:
    """Hand records ``start .. start+count-1`` of the run described by ``spec``
    (``{"rules": rule values, "policies": one text per seat, "seed": int}``):
    the unit of work of a chunked run (``simkit.chunks``)."""
    return simulate(count, start=start, **spec_args(spec, make_rules))


def game_chunk(spec: dict, start: int, count: int) -> pd.DataFrame:
    """Game records ``start .. start+count-1`` of the run described by ``spec``."""
    return simulate_games(count, start=start, **spec_args(spec, make_rules))


def agg_chunk(spec: dict, start: int, count: int) -> pd.DataFrame:
    """Aggregates of hands ``start .. start+count-1`` of the run described by ``spec``."""
    return aggregate_hands(count, start=start, **spec_args(spec, make_rules))


@dataclass(frozen=True)
class HandEvaluation:
    """What :func:`evaluate_hand` found for one fixed hand.

    ``tricks``: the distribution of tricks won by the hand's side when it
    plays a number contract (columns tricks, count, share); ``bids``: for each
    bid level, the rate at which it is made with its 95% interval and the
    expected score change of the hand's side and of each opponent side on
    average; ``trump``: the trump chosen for a number bid and for Ndogo/Kubwa.
    """

    hand: tuple[str, ...]
    players: int
    seat: int
    dealer: int
    samples: int
    tricks: pd.DataFrame
    bids: pd.DataFrame
    trump: dict


def parse_hand(hand, players: int) -> list[int]:
    """Card ids of a Pepper hand, checking the count for the player count."""
    cards = DECK.parse_hand(hand)
    need = 6 if players == 4 else 8
    if len(cards) != need:
        raise InputError(f"a {players}-player Pepper hand has {need} cards, got {len(cards)}: "
                         f"{' '.join(DECK.text(c) for c in cards) or '(none)'}")
    return cards


def evaluate_hand(hand, players: int | None = None, seat: int | None = None, dealer: int = 0,
                  samples: int = 10_000, rules=None, policy=None, seed: int = 0,
                  threads: int | None = None) -> HandEvaluation:
    """Hold ``hand`` fixed at ``seat``, deal the unseen cards uniformly and play
    ``samples`` deals out with the hand's side as declarer.

    The auction is skipped: the seat names its trump (by its policy) for a
    number bid, and separately for Ndogo/Kubwa (whose trump choice may
    differ), and every seat plays by its policy.  Play does not depend on the
    number bid, so one play-out per sample gives every number bid's result.
    By default ``seat`` is the first to bid, left of the dealer.
    """
    check_count(samples, "--samples")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
    if not 0 <= dealer < r.players:
        raise InputError(f"bad dealer {dealer}: expected a seat from 0 to {r.players - 1}")
    if seat is None:
        seat = (dealer + 1) % r.players
    if not 0 <= seat < r.players:
        raise InputError(f"bad seat {seat}: expected a seat from 0 to {r.players - 1}")
    cards = parse_hand(hand, r.players)
    fixed = 0
    for c in cards:
        fixed |= 1 << c
    set_threads(threads)
    T, side = r.tricks, r.side_of(seat)
    out = {}
    for name, contract in (("number", 1), ("all", r.kubwa)):
        rec = np.empty((samples, K.N_COLS), np.int16)
        K.run_fixed(samples, key, rv, kinds, params, seat, dealer, fixed, contract, rec)
        out[name] = rec
    won = out["number"][:, K.C_SIDE_TRICKS + side].astype(np.int64)
    won_all = out["all"][:, K.C_SIDE_TRICKS + side].astype(np.int64)
    counts = np.bincount(won, minlength=T + 1)
    tricks = pd.DataFrame({"tricks": np.arange(T + 1), "count": counts,
                           "share": counts / samples})
    rows = []
    opp_sides = [s for s in range(r.sides) if s != side]
    for level in range(1, r.kubwa + 1):
        w = won if level < T else won_all
        made = w >= min(level, T)
        if level < T:
            fail = T if r.fail == "flat" else level
            own = np.where(made, w, -fail)
        else:
            stake = (r.ndogo_stake if level == T else r.kubwa_stake) * T
            own = np.where(made, stake, -stake)
        theirs = (T - w) / len(opp_sides)          # opponents score their tricks
        k = int(made.sum())
        lo, hi = stats.proportion_ci(k, samples)
        rows.append({"bid": r.bid_text(level), "level": level, "made": k,
                     "p_make": k / samples, "ci_low": lo, "ci_high": hi,
                     "ev_points": own.mean(), "ev_opponents": theirs.mean(),
                     "ev": own.mean() - theirs.mean()})
    trump = {name: TRUMP_TEXT[int(np.bincount(rec[:, K.C_TRUMP]).argmax())]
             for name, rec in out.items()}
    return HandEvaluation(tuple(DECK.text(c) for c in cards), r.players, seat, dealer,
                          samples, tricks, pd.DataFrame(rows), trump)
