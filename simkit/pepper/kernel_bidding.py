"""Pepper in numba, the auction (seeds/pepper.md 3.1-3.2, 7.2 Bidding, 9.3):
the heuristic's hand estimates, its desired level and trump, a bidding plan's
calls, and the auction loop that asks every seat in turn.

A hand is a 24-bit mask of card ids (``rules.DECK``); the heuristic's
estimate is a sum of per-suit table lookups (:func:`_estimate_tables`).  The
readable twin is ``reference_players.py`` (the decisions) and
``reference.py`` (the auction); the differential tests hold them together.
"""

from __future__ import annotations

import numpy as np

from simkit.base.bits import next_seat
from simkit.base.jit import kernel
from simkit.base.rng import bounded
from simkit.pepper.kernel_columns import C_BID, C_CALLS, MAX_CALLS
from simkit.pepper.policies import PARAM, TABLE_OFFSET
from simkit.pepper.rules import PLAN_PASS, PLAN_POLICY, AuctionCode, R
from simkit.pepper.tables import NT
from simkit.policy import RANDOM, by_players

# the tuned offset (hundredths of a trick) by number of players, 7.2
OFFSET = by_players(TABLE_OFFSET, 4)


def _estimate_tables() -> tuple[np.ndarray, ...]:
    """Per-suit pieces of the heuristic's estimate (seeds/pepper.md 7.2).

    A suit is seen as its 6-bit pattern (bit r = rank position r held).  The
    trump suit adds the left bower as bit 6.
    """
    worth = [100, 90, 75, 60, 50, 40, 35]
    trump_from_top = [2, 6, 5, 4, 3, 1, 0]          # bits: RB, LB, A, K, Q, 10, 9
    t_est = np.zeros(128, np.int64)
    t_top = np.zeros(128, np.int64)
    t_count = np.zeros(128, np.int64)
    for p in range(128):
        held = [p >> b & 1 for b in trump_from_top]
        n = sum(held)
        t_est[p] = sum(w for w, h in zip(worth, held) if h) + 20 * max(0, n - 2)
        top = 0
        while top < 7 and held[top]:
            top += 1
        t_top[p], t_count[p] = top, n
    s_est = np.zeros(64, np.int64)      # side suit: ace and king
    s_run = np.zeros(64, np.int64)      # A K Q J 10 9 held from the top
    s_run_nj = np.zeros(64, np.int64)   # the left bower's suit: A K Q 10 9
    nt_est = np.zeros(64, np.int64)
    for p in range(64):
        ace, king, queen = p >> 5 & 1, p >> 4 & 1, p >> 3 & 1
        s_est[p] = 80 * ace + (50 if ace else 20) * king
        nt_est[p] = 90 * ace + (70 if ace else 30) * king + 50 * (ace and king and queen)
        for table, ranks in ((s_run, (5, 4, 3, 2, 1, 0)), (s_run_nj, (5, 4, 3, 1, 0))):
            run = 0
            while run < len(ranks) and p >> ranks[run] & 1:
                run += 1
            table[p] = run
    return t_est, t_top, t_count, s_est, s_run, s_run_nj, nt_est


T_EST, T_TOP, T_COUNT, S_EST, S_RUN, S_RUN_NJ, NT_EST = _estimate_tables()


@kernel(inline=True)
def _suit_sums(h):
    """Sums over the four suits' 6-bit patterns that every trump option shares."""
    p0 = h & 63
    p1 = (h >> 6) & 63
    p2 = (h >> 12) & 63
    p3 = (h >> 18) & 63
    side_all = S_EST[p0] + S_EST[p1] + S_EST[p2] + S_EST[p3]
    run_all = S_RUN[p0] + S_RUN[p1] + S_RUN[p2] + S_RUN[p3]
    void_all = (p0 == 0) + (p1 == 0) + (p2 == 0) + (p3 == 0)
    nt_est = NT_EST[p0] + NT_EST[p1] + NT_EST[p2] + NT_EST[p3]
    return side_all, run_all, void_all, nt_est


@kernel(inline=True)
def _estimate(h, o, side_all, run_all, void_all):
    """(est in hundredths of a trick, sure tricks) of hand h with trump suit o
    (seeds/pepper.md 7.2), from the suit sums of :func:`_suit_sums`.  No trump
    is ``nt_est`` and ``run_all`` there; the callers keep it out of their loop
    over the suits so that the loop unrolls with constant shifts."""
    pt = (h >> (6 * o)) & 63
    pl = (h >> (18 - 6 * o)) & 63          # the left bower's suit, 3 - o
    plj = pl & ~4                          # ... without its jack
    tp = pt | ((pl >> 2) & 1) << 6
    n = T_COUNT[tp]
    voids = void_all - (pt == 0) - (pl == 0) + (plj == 0)
    est = T_EST[tp] + side_all - S_EST[pt] + (30 * voids if n > 0 else 0)
    top = T_TOP[tp]
    runs = run_all - S_RUN[pt] - S_RUN[pl] + S_RUN_NJ[plj]
    return est, (n + runs if top >= 7 - n else top)


@kernel(inline=True)
def desired_level(h, rules, params, seat):
    """The heuristic's desired bid level for hand h (seeds/pepper.md 7.2)."""
    T = rules[R.TRICKS]
    side_all, run_all, void_all, nt_est = _suit_sums(h)
    best_est = -1
    best_sure = -1
    if rules[R.NO_TRUMP]:
        best_est = nt_est
        best_sure = run_all
    for o in range(4):
        est, sure = _estimate(h, o, side_all, run_all, void_all)
        best_est = max(best_est, est)
        best_sure = max(best_sure, sure)
    if rules[R.PLAYERS] == 4:
        best_est += params[seat, PARAM.PARTNER_HELP]
    if best_sure >= T - params[seat, PARAM.KUBWA_MARGIN] \
            or best_est >= params[seat, PARAM.KUBWA_EST]:
        return T + 1
    x = best_est + params[seat, PARAM.AGGRESSION]
    if params[seat, PARAM.TUNED]:
        x += OFFSET[rules[R.PLAYERS]]
    if x >= 100 * T:
        return T
    return min(max(x // 100, 0), T - 1)


@kernel
def choose_trump(h, contract, rules):
    """The heuristic's trump option for hand h and the contract won."""
    T = rules[R.TRICKS]
    side_all, run_all, void_all, nt_est = _suit_sums(h)
    best = 0
    best_est = -1
    best_sure = -1
    for o in range(5 if rules[R.NO_TRUMP] else 4):
        if o == NT:
            est, sure = nt_est, run_all
        else:
            est, sure = _estimate(h, o, side_all, run_all, void_all)
        if contract >= T:
            better = sure > best_sure or (sure == best_sure and est > best_est)
        else:
            better = est > best_est
        if better:
            best, best_est, best_sure = o, est, sure
    return best


@kernel(inline=True)
def _plan_bid(plan, high, rules):
    """The plan seat's call over ``high`` (seeds/pepper.md 9.3; plan codes in
    ``rules.py``): pass; a ceiling bids ``high + 1`` while that is at most the
    ceiling (one_lap: the ceiling itself if above ``high``); Ndogo/Kubwa call
    their level if above ``high``, else Kubwa if above ``high``.  No draw."""
    T = rules[R.TRICKS]
    if plan == PLAN_PASS:
        return 0
    if plan < T:
        if rules[R.AUCTION] == AuctionCode.ONE_LAP:
            return plan if plan > high else 0
        return high + 1 if high < plan else 0
    if plan > high:
        return plan
    return T + 1 if high < T + 1 else 0


@kernel(inline=True)
def _decide_bid(seat, high, high_seat, hands, desired, rules, kinds, params, st, plan_seat,
                plan):
    """One auction call: 0 = pass, else a level above ``high``.  ``plan_seat``
    (-1: none) calls by ``plan`` unless that is ``PLAN_POLICY``."""
    kubwa = rules[R.TRICKS] + 1
    if seat == plan_seat and plan != PLAN_POLICY:
        return _plan_bid(plan, high, rules)
    if kinds[seat] == RANDOM:
        k = bounded(st, kubwa - high + 1)
        return 0 if k == 0 else high + k
    if desired[seat] < 0:
        desired[seat] = desired_level(hands[seat], rules, params, seat)
    return heuristic_call(seat, high, high_seat, desired[seat], rules, params)


@kernel(inline=True)
def heuristic_call(seat, high, high_seat, d, rules, params):
    """The heuristic's call (7.2 Bidding) with desired level ``d`` over ``high``
    held by ``high_seat``: the table's heuristic seats call it, and the
    expert's model of them (7.3 Inference) replays it in each world."""
    T = rules[R.TRICKS]
    if d == T and params[seat, PARAM.NDOGO_LOWER] and rules[R.NDOGO_STAKE] == 1:
        # Ndogo pays no more than T-1 made with every trick: call T-1 instead,
        # Ndogo only over another side's T-1 (seeds/pepper.md 7.2 Bidding)
        if high < T - 1:
            return T - 1
        own = high_seat == seat or (rules[R.PLAYERS] == 4 and high_seat == (seat ^ 2))
        if high == T - 1 and not own:
            return T
        return 0
    return d if d > high else 0


@kernel(inline=True)
def hold_auction(dealer, hands, rules, kinds, params, st, recs, j, desired, plan_seat, plan,
             trace, tr_calls, auction):
    """The auction (§3.1): every call, into row ``j`` and into ``auction`` (seat * 16
    + level, -1 after the last: what the expert weighs, 7.3 Inference); returns
    ``(high, high_seat)`` (``high`` 0: everyone passed).  ``plan_seat`` (-1: none)
    calls by ``plan`` (9.3)."""
    P = rules[R.PLAYERS]
    kubwa = rules[R.TRICKS] + 1
    mode = rules[R.AUCTION]
    for s in range(4):
        desired[s] = -1
        recs[j, C_BID + s] = 0
    high = 0
    high_seat = -1
    calls = 0
    seat = next_seat(dealer, P)
    passed = 0                    # open: seats out of the auction
    active = P
    consec = 0                    # passes in a row since the last bid
    while True:
        if mode == AuctionCode.OPEN and (passed >> seat) & 1:
            seat = next_seat(seat, P)
            continue
        lvl = _decide_bid(seat, high, high_seat, hands, desired, rules, kinds, params, st,
                          plan_seat, plan)
        if trace and calls < MAX_CALLS:
            tr_calls[j, calls] = seat * 16 + lvl
        if calls < MAX_CALLS:
            auction[calls] = seat * 16 + lvl
        calls += 1
        if lvl > 0:
            high = lvl
            high_seat = seat
            recs[j, C_BID + seat] = max(recs[j, C_BID + seat], lvl)
            consec = 0
            if lvl == kubwa:
                break
        else:
            passed |= 1 << seat
            active -= 1
            consec += 1
        if mode == AuctionCode.OPEN:
            if active == 0 or (active == 1 and high > 0):
                break
        elif mode == AuctionCode.ONE_LAP:
            if calls == P:
                break
        elif (high > 0 and consec == P - 1) or (high == 0 and consec == P):
            break
        seat = next_seat(seat, P)
    recs[j, C_CALLS] = calls
    if calls < MAX_CALLS:
        auction[calls] = -1
    if trace:
        for k in range(calls, MAX_CALLS):
            tr_calls[j, k] = -1
    return high, high_seat
