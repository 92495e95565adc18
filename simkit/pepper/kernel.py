"""Pepper in numba: the rules of ``seeds/pepper.md``, arrays in, arrays out.

Hands are 24-bit masks (bit = card id, see ``rules.DECK``).  Once the trump
is named, the hands are relabelled into "play bits" ordered by rank within
the trump option (0..3 = C D H S, 4 = no trump), trumps on top, so that the
lowest card of a set, a suit's boss and the cards that beat the winning card
are single bit operations (``tables.py``).  The heuristic's hand estimates are per-suit table
lookups.  All decisions are exactly those of seeds/pepper.md section 7.

Entry points (all jitted through ``simkit.jit.kernel``):

* :func:`run_hands` plays hands ``start .. start+count-1`` of a run, one per
  stream, into a record matrix (columns ``C_*``), in parallel over blocks.
* :func:`run_hands_agg` plays the same hands into per-group counts and sums.
* :func:`run_games` plays whole games (one stream per game) into game records.
* :func:`run_plan` plays around a fixed hand: a declared contract with no
  auction, or the auction with the hand's seat bidding by a plan (the advisor,
  seeds/pepper.md 9.1 and 9.3); :func:`run_first` the same two for the first
  speaker on the deals of :func:`run_hands` (the studies).
* :func:`play_hand` / :func:`play_contract` are the single-hand core they use.

The card tables, play bits and the deal are in ``tables.py``; an expert seat
(7.3) plays by ``expert.py``, which searches with the double-dummy solver of
``solver.py``.  The readable twin is ``reference.py``; the two never share
code.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.bits import high_bit, low_bit, next_seat, nth_bit, popcount
from simkit.jit import block, blocks, if_given, kernel
from simkit.lead import new_history, note, summary
from simkit.pepper.expert import (
    EXPERT_TT,
    WEIGHT_ONE,
    draw_worlds,
    enumerate_worlds,
    expert_candidates,
    expert_choice,
    keep_heaviest,
    thin,
)
from simkit.pepper.policies import PARAM, TABLE_OFFSET, Model, SlamPlay
from simkit.pepper.rules import PLAN_PASS, PLAN_POLICY, AllPass, Auction, Fail, R, Tie
from simkit.pepper.solver import MAXPLY, N_FIELDS
from simkit.pepper.tables import (
    BIT_OF,
    CARD_OF,
    NT,
    SUIT_BITS,
    SUIT_OF_BIT,
    SUITMASK,
    TRUMP_BITS,
    deal,
    deal_fixed,
    deal_number,
    to_play_bits,
)
from simkit.policy import EXPERT, RANDOM, by_players
from simkit.rng import bounded, start_stream

# the tuned offset (hundredths of a trick) by number of players, 7.2
OFFSET = by_players(TABLE_OFFSET, 4)

# --- record columns ---------------------------------------------------------
C_DEALER = 0
C_BID = 1            # .. 4: highest level each seat bid (0 = only passed)
C_CALLS = 5
C_CONTRACT = 6
C_BIDDER = 7
C_STUCK = 8
C_TRUMP = 9
C_TRICKS = 10        # .. 13: tricks per seat
C_SIDE_TRICKS = 14   # .. 16: tricks per side
C_SCORE = 17         # .. 19: score change per side
C_MADE = 20
C_F_TRUMPS = 21
C_F_BOWERS = 22
C_F_ACES = 23
C_F_VOIDS = 24
N_COLS = 25

G_FIRST_DEALER = 0
G_ROUNDS = 1
G_SCORE = 2          # .. 4
G_WINNERS = 5        # bitmask of winning sides
G_UNFINISHED = 6
G_LEAD_CHANGES = 7   # who led the game, round by round (simkit.lead)
G_COMEBACK = 8
G_SETTLED = 9
N_GCOLS = 10

MAX_CALLS = 64       # trace length for auctions
BLOCK = 256          # hands per prange task
GAME_BLOCK = 256     # whole games per prange task
EXPERT_BLOCK = 4     # hands or games per task at a table that seats the expert: its hands
                     # take milliseconds, and blocks of 256 left a thread idle for seconds


def _estimate_tables():
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
def _desired(h, rules, params, seat):
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
def _choose_trump(h, contract, rules):
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
def _held_boss(h, left):
    """The boss of ``left`` (a suit's unplayed cards) if the hand holds it, else -1."""
    if left:
        b = high_bit(left)
        if (h >> b) & 1:
            return b
    return -1


@kernel(inline=True)
def _side_boss(h, o, unplayed):
    """A card of the hand that is the boss (the highest unplayed card) of its
    suit, trumps excepted, the suits in order; -1 if none."""
    for e in range(4):
        if e != o:
            b = _held_boss(h, SUIT_BITS[o, e] & unplayed)
            if b >= 0:
                return b
    return -1


@kernel(inline=True)
def _lead(h, o, unplayed, draw_trumps):
    """The heuristic's lead in play bits (seeds/pepper.md 7.2, leading)."""
    trumps = TRUMP_BITS[o]
    boss_trump = _held_boss(h, trumps & unplayed)
    if boss_trump >= 0 and draw_trumps and trumps & unplayed & ~h:
        return boss_trump
    b = _side_boss(h, o, unplayed)
    if b >= 0:
        return b
    if boss_trump >= 0:
        return boss_trump
    side = h & ~trumps
    return low_bit(side if side else h)


@kernel(inline=True)
def _follow(legal, beat, partner_wins):
    """The heuristic's card when following, in play bits (seeds/pepper.md 7.2).

    ``beat`` is the set of play bits that would beat the card winning so far.
    """
    winners = legal & beat
    if winners and not partner_wins:
        return low_bit(winners)
    return low_bit(legal)


@kernel(inline=True)
def _threat(b, o, h, unplayed, led_e, voids, seat, leader, k, P):
    """May an opponent still to play (after position ``k`` of the trick) beat
    play bit ``b``? (seeds/pepper.md 7.2 Play: shown out, unseen cards)
    ``voids`` packs 4 bits per seat: the effective suits it has shown out of."""
    e = SUIT_OF_BIT[o, b]
    unseen = unplayed & ~h
    higher = SUIT_BITS[o, e] & unseen & -(2 << b)
    trumps_unseen = TRUMP_BITS[o] & unseen
    for j in range(k + 1, P):
        s = leader + j
        if s >= P:
            s -= P
        if ((s ^ seat) & 1) == 0:
            continue                    # the partner (only 4 players use this)
        v = (voids >> (4 * s)) & 15
        led_out = (v >> led_e) & 1
        trump_out = (v >> o) & 1 if o < NT else 1
        if e == led_e:
            if higher and not led_out:
                return True
            if o < NT and led_e != o and led_out and not trump_out and trumps_unseen:
                return True
        elif higher and led_out and not trump_out:
            return True
    return False


@kernel(inline=True)
def _safe(legal, beat, o, h, unplayed, led_e, voids, seat, leader, k, P):
    """The legal cards (play bits) that beat the winning card and that no
    opponent still to play may beat."""
    out = 0
    m = legal & beat
    while m:
        b = trailing_zeros(m)
        m &= m - 1
        if not _threat(b, o, h, unplayed, led_e, voids, seat, leader, k, P):
            out |= 1 << b
    return out


@kernel
def _cover(b, legal, beat, o, h, unplayed, led_e, voids, seat, leader, k, P, win_bit):
    """cover_third (seeds/pepper.md 7.2 following rule 1): the partner's card
    (``win_bit``) wins; if an opponent still to play may beat it, the cheapest
    safe winner, if any; otherwise ``b``, the lowest legal card."""
    if _threat(win_bit, o, h, unplayed, led_e, voids, seat, leader, k, P):
        safe = _safe(legal, beat, o, h, unplayed, led_e, voids, seat, leader, k, P)
        if safe:
            return low_bit(safe)
    return b


@kernel
def _slam_lead(h, o, unplayed, voids, thrown, seat, declarer):
    """The all-tricks plan's lead in play bits (seeds/pepper.md 7.2 All tricks)."""
    trumps = TRUMP_BITS[o]
    unseen = unplayed & ~h
    partner = seat ^ 2
    o1 = (seat + 1) & 3
    o2 = (seat + 3) & 3
    trumps_unseen = (trumps & unseen) != 0
    both_out = o < NT and ((voids >> (4 * o1 + o)) & 1) == 1 and ((voids >> (4 * o2 + o)) & 1) == 1
    opp_trumps = trumps_unseen and not both_out
    boss_trump = _held_boss(h, trumps & unplayed)
    if opp_trumps and boss_trump >= 0:
        return boss_trump
    b = _side_boss(h, o, unplayed)
    if b >= 0:
        return b
    side = h & ~trumps
    if o < NT and not opp_trumps and trumps_unseen and ((voids >> (4 * partner + o)) & 1) == 0:
        ruff = 0
        for e in range(4):
            if e != o and (voids >> (4 * partner + e)) & 1:
                ruff |= side & SUIT_BITS[o, e]
        if ruff:
            return low_bit(ruff)
    if seat == declarer and side:
        fresh = side
        for e in range(4):
            if (thrown >> (4 * partner + e)) & 1:
                fresh &= ~SUIT_BITS[o, e]
        return low_bit(fresh if fresh else side)
    if seat != declarer and h & trumps:
        return low_bit(h & trumps)
    if boss_trump >= 0:
        return boss_trump
    return low_bit(side if side else h)


@kernel
def _slam_follow(legal, beat, o, h, unplayed, led_e, voids, seat, leader, k, P, win_seat,
                 win_bit, declarer):
    """The all-tricks plan's card when following (seeds/pepper.md 7.2 All tricks)."""
    safe = _safe(legal, beat, o, h, unplayed, led_e, voids, seat, leader, k, P)
    if win_seat == (seat ^ 2) and not _threat(win_bit, o, h, unplayed, led_e, voids, seat,
                                                leader, k, P):
        if seat == declarer and o < NT and led_e == o and safe:
            return low_bit(safe)
        if h & SUIT_BITS[o, led_e] == 0:
            spare = 0
            for e in range(4):
                if e == o:
                    continue
                left = SUIT_BITS[o, e] & unplayed
                if left and (h >> high_bit(left)) & 1 == 0:
                    spare |= h & SUIT_BITS[o, e]
            if spare:
                return low_bit(spare)
        return low_bit(legal)
    if safe:
        return low_bit(safe)
    winners = legal & beat
    if winners:
        return high_bit(winners)
    return low_bit(legal)


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
        if rules[R.AUCTION] == Auction.ONE_LAP:
            return plan if plan > high else 0
        return high + 1 if high < plan else 0
    if plan > high:
        return plan
    return T + 1 if T + 1 > high else 0


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
        desired[seat] = _desired(hands[seat], rules, params, seat)
    return _heuristic_call(seat, high, high_seat, desired[seat], rules, params)


@kernel(inline=True)
def _heuristic_call(seat, high, high_seat, d, rules, params):
    """The heuristic's call (7.2 Bidding) with desired level ``d`` over ``high``
    held by ``high_seat``: the table's heuristic seats call it, and the
    expert's model of them (7.3 Inference) replays it in each world."""
    T = rules[R.TRICKS]
    if d == T and params[seat, PARAM.NDOGO_LOWER] and rules[R.NDOGO_STAKE] == 1:
        # Ndogo pays no more than T-1 made with every trick: call T-1 instead,
        # Ndogo only over another side's T-1 (seeds/pepper.md 7.2 Bidding)
        if T - 1 > high:
            return T - 1
        own = high_seat == seat or (rules[R.PLAYERS] == 4 and high_seat == (seat ^ 2))
        if high == T - 1 and not own:
            return T
        return 0
    return d if d > high else 0


@kernel(inline=True)
def _auction(dealer, hands, rules, kinds, params, st, recs, j, desired, plan_seat, plan,
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
        if mode == Auction.OPEN and (passed >> seat) & 1:
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
        if mode == Auction.OPEN:
            if active == 0 or (active == 1 and high > 0):
                break
        elif mode == Auction.ONE_LAP:
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


@kernel(inline=True)
def _thrown_in(recs, j, trace, tr_plays):
    """Row ``j`` of a hand everyone passed and nobody plays (§3.2, redeal)."""
    recs[j, C_CONTRACT] = 0
    recs[j, C_BIDDER] = -1
    recs[j, C_TRUMP] = -1
    recs[j, C_MADE] = 0
    for s in range(4):
        recs[j, C_TRICKS + s] = 0
    for s in range(3):
        recs[j, C_SIDE_TRICKS + s] = 0
        recs[j, C_SCORE + s] = 0
    recs[j, C_F_TRUMPS] = 0
    recs[j, C_F_BOWERS] = 0
    recs[j, C_F_ACES] = 0
    recs[j, C_F_VOIDS] = 0
    if trace:
        for k in range(tr_plays.shape[1]):
            tr_plays[j, k] = -1


@kernel(inline=True)
def play_hand(dealer, hands, rules, kinds, params, st, recs, j, desired, tricks,
              plan_seat, plan, trace, tr_calls, tr_plays, ps, search):
    """Auction, trump, play and scoring of one dealt hand into row ``j`` of ``recs``.

    ``hands[seat]`` are the dealt masks (consumed).  Random-policy seats draw from
    ``st``.  ``plan_seat`` (-1 in ordinary runs) calls by ``plan`` (seeds/pepper.md
    9.3, codes in ``rules.py``; ``PLAN_POLICY``: by its policy).  With ``trace`` the calls
    (seat * 16 + level) and the cards played are written to row ``j`` of ``tr_calls`` /
    ``tr_plays``.  Rows are
    indexed rather than sliced: a slice is a new array and costs reference counting.
    ``ps``, ``search``: the play's scratch and the expert's switch (:func:`_play_tricks`).
    """
    high, high_seat, planned = _bid_hand(dealer, hands, rules, kinds, params, st, recs, j,
                                         desired, plan_seat, plan, trace, tr_calls, tr_plays,
                                         ps)
    if high > 0:
        play_contract(high_seat, high, hands, rules, kinds, params, st, recs, j, tricks,
                      trace, tr_plays, ps[0], planned, ps, search)


@kernel(inline=True)
def _bid_hand(dealer, hands, rules, kinds, params, st, recs, j, desired, plan_seat, plan,
              trace, tr_calls, tr_plays, ps):
    """The auction of :func:`play_hand`, its calls in ``ps[0]``: ``(contract, holder,
    planned)``, the contract 0 when the hand is thrown in (row ``j`` then
    complete).  Kernels that may also skip the auction call this and
    :func:`play_contract` at one place each, so that the play, the largest
    part of a kernel, is compiled into it once."""
    recs[j, C_DEALER] = dealer
    high, high_seat = _auction(dealer, hands, rules, kinds, params, st, recs, j, desired,
                               plan_seat, plan, trace, tr_calls, ps[0])
    recs[j, C_STUCK] = 0
    if high == 0:
        if rules[R.ALL_PASS] == AllPass.REDEAL:
            _thrown_in(recs, j, trace, tr_plays)
            return 0, -1, -1
        high = 1
        high_seat = dealer
        recs[j, C_STUCK] = 1
    return high, high_seat, plan_seat if plan != PLAN_POLICY else -1


@kernel(inline=True)
def _bidder_features(hb, o, recs, j):
    """The bidder's dealt hand with trump option ``o`` (§8): trumps, bowers,
    aces and voids outside trumps."""
    if o < NT:
        tm = SUITMASK[o, o]
        recs[j, C_F_TRUMPS] = popcount(hb & tm)
        recs[j, C_F_BOWERS] = ((hb >> (6 * o + 2)) & 1) + ((hb >> (6 * (3 - o) + 2)) & 1)
    else:
        recs[j, C_F_TRUMPS] = 0
        recs[j, C_F_BOWERS] = 0
    aces = 0
    voids = 0
    for e in range(4):
        if e == o:
            continue
        aces += (hb >> (6 * e + 5)) & 1
        if hb & SUITMASK[o, e] == 0:
            voids += 1
    recs[j, C_F_ACES] = aces
    recs[j, C_F_VOIDS] = voids


@kernel
def _roles(P, T, contract, bidder, kinds, params):
    """``(plan_seats, cover_seats)``: the seats of the declaring side that play
    the all-tricks plan in this contract, and the seats that cover as third
    hand (7.2; 4 players only, else none)."""
    plan_seats = 0
    cover_seats = 0
    if P == 4:
        slam = contract >= T
        for s in range(4):
            if kinds[s] != RANDOM:
                if slam and ((s ^ bidder) & 1) == 0 and params[s, PARAM.SLAM_PLAY] == SlamPlay.PLAN:
                    plan_seats |= 1 << s
                if params[s, PARAM.COVER_THIRD]:
                    cover_seats |= 1 << s
    return plan_seats, cover_seats


@kernel(inline=True)
def _guards(h, o, unplayed, voids, bidder, P):
    """A defender's guards (7.2 Play, ``keep_guards``) as play bits: in each side
    suit, its highest card if a lower card of the suit is unseen and some seat
    of the declaring side has not shown out of it."""
    declaring = (1 << bidder) | ((1 << (bidder ^ 2)) if P == 4 else 0)
    out = np.int64(0)
    for e in range(4):
        held = h & SUIT_BITS[o, e]
        if e == o or held == 0:
            continue
        open_suit = False
        for s in range(P):
            if (declaring >> s) & 1 and (voids >> (4 * s + e)) & 1 == 0:
                open_suit = True
        g = high_bit(held)
        if open_suit and SUIT_BITS[o, e] & unplayed & ~h & ((np.int64(1) << g) - 1):
            out |= np.int64(1) << g
    return out


@kernel(inline=True)
def _defends(seat, bidder, P):
    """Whether ``seat`` is not on the declaring side."""
    return (seat ^ bidder) & 1 == 1 if P == 4 else seat != bidder


@kernel(inline=True)
def _heuristic_play(h, legal, k, seat, o, unplayed, voids, thrown, leader, P, win_seat, win_bit,
                    beat, led_e, bidder, plan, cover, draw_trumps, guard):
    """The heuristic's card (7.2) in play bits for the ``k``-th play of a trick:
    the all-tricks plan's with ``plan``, covering as third hand with ``cover``,
    a discard that keeps the guards with ``guard`` (keep_guards, a defender).
    The table's heuristic seats play it, and the expert's model of them
    (7.3 Inference) replays it in each world."""
    if k == 0:
        if plan:
            return _slam_lead(h, o, unplayed, voids, thrown, seat, bidder)
        return _lead(h, o, unplayed, draw_trumps)
    if plan:
        return _slam_follow(legal, beat, o, h, unplayed, led_e, voids, seat, leader, k, P,
                            win_seat, win_bit, bidder)
    b = _follow(legal, beat, P == 4 and win_seat == seat ^ 2)
    if k < P - 1 and cover and win_seat == seat ^ 2:
        b = _cover(b, legal, beat, o, h, unplayed, led_e, voids, seat, leader, k, P, win_bit)
    if guard and SUIT_OF_BIT[o, b] != led_e and (beat >> b) & 1 == 0:
        spare = legal & ~TRUMP_BITS[o] & ~_guards(h, o, unplayed, voids, bidder, P)
        if spare:
            b = low_bit(spare)
    return b


@kernel(inline=True)
def _factor(match, n, eps):
    """P(action) under the model (7.3 Inference): ``(1 - eps)`` on the model's
    action, ``eps`` spread over the ``n`` legal actions."""
    return (1.0 - eps) + eps / n if match else eps / n


@kernel
def _play_likelihood(like, dealt, me, hist, n_hist, bidder, contract, o, P, T, kinds, params,
                     eps):
    """``like`` times the likelihood of the cards played so far (``hist[0, :n_hist]``, play
    bits in order; ``hist[1]`` the seats that played them) in a world whose
    seats were dealt ``dealt`` (card ids): the hand replayed from the first
    lead, every play of a seat other than ``me`` that is not random weighed
    against the heuristic's card there (:func:`_heuristic_play`, an expert
    seat's heuristic included)."""
    hands = np.zeros(4, np.int64)
    for s in range(P):
        hands[s] = to_play_bits(dealt[s], o)
    plan_seats, cover_seats = _roles(P, T, contract, bidder, kinds, params)
    trumps = TRUMP_BITS[o]
    unplayed = (1 << 24) - 1
    voids = 0
    thrown = 0
    lost = 0
    leader = bidder
    i = 0
    while i < n_hist:
        seat = leader
        win_seat = -1
        led_bits = 0
        led_e = 0
        win_bit = 0
        beat = 0
        for k in range(P):
            if i == n_hist:
                return like
            b = hist[0, i]
            i += 1
            h = hands[seat]
            legal = h & led_bits
            if legal == 0:
                legal = h
            if seat != me and kinds[seat] != RANDOM:
                m = _heuristic_play(h, legal, k, seat, o, unplayed, voids, thrown, leader, P,
                                    win_seat, win_bit, beat, led_e, bidder,
                                    lost == 0 and (plan_seats >> seat) & 1 == 1,
                                    (cover_seats >> seat) & 1 == 1,
                                    params[seat, PARAM.DRAW_TRUMPS],
                                    params[seat, PARAM.KEEP_GUARDS] == 1
                                    and _defends(seat, bidder, P))
                like *= _factor(m == b, popcount(legal), eps)
            hands[seat] = h & ~(1 << b)
            unplayed &= ~(1 << b)
            if k == 0:
                led_e = SUIT_OF_BIT[o, b]
                led_bits = SUIT_BITS[o, led_e]
            elif SUIT_OF_BIT[o, b] != led_e:
                voids |= 1 << (4 * seat + led_e)
                if (trumps >> b) & 1 == 0:
                    thrown |= 1 << (4 * seat + SUIT_OF_BIT[o, b])
            if k == 0 or (beat >> b) & 1:
                beat = (led_bits | trumps) & -(2 << b)
                win_seat = seat
                win_bit = b
            seat = next_seat(seat, P)
        if P == 4 and (win_seat ^ bidder) & 1:
            lost += 1
        leader = win_seat
    return like


@kernel
def _call_likelihood(dealt, me, auction, planned, rules, kinds, params, eps):
    """The likelihood of the calls ``auction`` (seat * 16 + level, -1 ends) in a
    world whose seats were dealt ``dealt`` (card ids): every call of a seat
    other than ``me``, not random and not ``planned``, weighed against the
    heuristic's call there (:func:`_heuristic_call`) over the legal calls."""
    kubwa = rules[R.TRICKS] + 1
    like = 1.0
    high = 0
    high_seat = -1
    for i in range(auction.shape[0]):
        if auction[i] < 0:
            break
        seat = auction[i] // 16
        lvl = auction[i] % 16
        if seat != me and seat != planned and kinds[seat] != RANDOM:
            d = _desired(dealt[seat], rules, params, seat)
            m = _heuristic_call(seat, high, high_seat, d, rules, params)
            like *= _factor(m == lvl, kubwa - high + 1, eps)
        if lvl > 0:
            high = lvl
            high_seat = seat
    return like


@kernel
def _world_weights(world, me, hist, n_hist, bidder, contract, o, rules, kinds, params, auction,
                   planned):
    """Each world's weight (7.3 Inference): the likelihood, under the table's
    own policies softened by the expert's ``trust``, of the other seats' calls
    (with ``calls``), of the bidder's trump and of every card the other seats
    have played.  The factors multiply in the order of the hand, as the
    reference multiplies them."""
    P = rules[R.PLAYERS]
    T = rules[R.TRICKS]
    eps = params[me, PARAM.TRUST] / 1000.0
    n_options = 5 if rules[R.NO_TRUMP] else 4
    weight = np.ones(world.shape[0])
    dealt = np.empty(4, np.int64)
    for w in range(world.shape[0]):
        for s in range(4):
            dealt[s] = world[w, s]
        for i in range(n_hist):
            dealt[hist[1, i]] |= np.int64(1) << CARD_OF[o, hist[0, i]]
        like = 1.0
        if params[me, PARAM.CALLS]:
            like = _call_likelihood(dealt, me, auction, planned, rules, kinds, params, eps)
        if bidder != me and kinds[bidder] != RANDOM:
            named = _choose_trump(dealt[bidder], contract, rules)
            like *= _factor(named == o, n_options, eps)
        weight[w] = _play_likelihood(like, dealt, me, hist, n_hist, bidder, contract, o, P, T,
                                     kinds, params, eps)
    return weight


@kernel
def _weighed_worlds(seat, hands, P, o, unplayed, voids, bidder, contract, rules, kinds, params,
                    st, hist, n_hist, auction, planned):
    """``model=table``'s worlds and their weights (7.3 Inference): with
    ``enumerate``, every deal that fits the voids when they are at most
    ``particles`` (``expert.enumerate_worlds``; nothing drawn); else
    ``particles`` drawn worlds, and ``particles`` more while the effective
    sample size of the weights is below half of ``particles``, at most
    ``redraw`` times."""
    n = params[seat, PARAM.PARTICLES]
    if params[seat, PARAM.ENUMERATE]:
        world = enumerate_worlds(seat, hands, P, o, unplayed, voids, n)
        if world.shape[0] > 0:
            return world, _world_weights(world, seat, hist, n_hist, bidder, contract, o, rules,
                                         kinds, params, auction, planned)
    world = draw_worlds(seat, hands, P, o, unplayed, voids, n, st)
    weight = _world_weights(world, seat, hist, n_hist, bidder, contract, o, rules, kinds,
                            params, auction, planned)
    for _r in range(params[seat, PARAM.REDRAW]):
        if not thin(weight, n):
            break
        more = draw_worlds(seat, hands, P, o, unplayed, voids, n, st)
        world = np.concatenate((world, more))
        weight = np.concatenate((weight, _world_weights(more, seat, hist, n_hist, bidder,
                                                        contract, o, rules, kinds, params,
                                                        auction, planned)))
    return world, weight


@kernel
def _expert_play(seat, hands, P, T, o, tbits, k, unplayed, voids, tricks, bidder, contract,
                 rules, kinds, params, st, tt, stack, hint, hist, n_hist, auction, planned):
    """The expert's card (7.3) in play bits; ``hint`` is its heuristic's card.
    With one candidate nothing is drawn.  Otherwise it draws its worlds
    (``expert.draw_worlds``): ``worlds`` of them with ``model=voids``, alike;
    with ``model=table``, the worlds of :func:`_weighed_worlds`, of which the
    ``worlds`` heaviest are solved, each with its weight
    (``expert.keep_heaviest``)."""
    cands = expert_candidates(hands[seat], o, tbits, k, unplayed)
    if popcount(cands) == 1:
        return low_bit(cands)
    worlds = params[seat, PARAM.WORLDS]
    table = worlds > 0 and params[seat, PARAM.MODEL] == Model.TABLE
    if table:
        world, weight = _weighed_worlds(seat, hands, P, o, unplayed, voids, bidder, contract,
                                        rules, kinds, params, st, hist, n_hist, auction, planned)
        world, q = keep_heaviest(world, weight, min(worlds, world.shape[0]))
    else:
        world = draw_worlds(seat, hands, P, o, unplayed, voids, worlds, st)
        q = np.full(world.shape[0], WEIGHT_ONE, np.int64)
    return expert_choice(cands, seat, hands[seat], P, T, o, tbits, k, unplayed, tricks, bidder,
                         contract, world, q, tt, stack, hint)


#: The expert's card where the kernel was called with ``search`` (else the hint).
_searched = if_given(_expert_play)


@kernel(inline=True)
def _play_tricks(bidder, contract, o, hands, P, T, kinds, params, st, tricks, j, trace,
                 tr_plays, rules, auction, planned, ps, search):
    """The play (§4), in play bits (see _play_tables): tricks won per seat into
    ``tricks``; the bidder leads the first trick.  ``voids`` packs, 4 bits per
    seat, the effective suits each seat has shown out of (7.2 Play); ``lost``
    counts the tricks the declaring side has not won (the all-tricks plan
    applies while it is 0).  ``ps``: the scratch of :func:`_play_scratch`,
    made once per block.  ``search``: None when no seat plays the expert, and
    then the expert's search is not even compiled (``jit.if_given``)."""
    for s in range(P):
        hands[s] = to_play_bits(hands[s], o)
    trumps = TRUMP_BITS[o]
    unplayed = (1 << 24) - 1
    leader = bidder
    n_played = 0
    voids = 0
    thrown = 0      # 4 bits per seat: the non-trump suits it has discarded from
    lost = 0
    # the expert (7.3) needs every seat's voids, the current trick's cards and
    # the plays so far, and keeps a transposition table for the hand
    expert = False
    for s in range(P):
        if kinds[s] == EXPERT:
            expert = True
    track = P == 4 or expert
    for s in range(P):
        if kinds[s] != RANDOM and params[s, PARAM.KEEP_GUARDS]:
            track = True
    _, tbits, hist, tt, stack = ps
    n_hist = 0
    if expert:
        tt[:, 0] = -1       # a transposition table for each hand
    plan_seats, cover_seats = _roles(P, T, contract, bidder, kinds, params)
    for _t in range(T):
        seat = leader
        win_seat = -1
        led_bits = 0
        led_e = 0
        win_bit = 0
        beat = 0        # play bits that beat the winning card: higher in its suit, or trumps
        for k in range(P):
            h = hands[seat]
            legal = h & led_bits
            if legal == 0:
                legal = h
            if kinds[seat] == RANDOM:
                # uniform over the legal cards in card-id order (7.1)
                ids = 0
                m = legal
                while m:
                    ids |= 1 << CARD_OF[o, trailing_zeros(m)]
                    m &= m - 1
                b = BIT_OF[o, nth_bit(ids, bounded(st, popcount(ids)))]
            else:
                b = _heuristic_play(h, legal, k, seat, o, unplayed, voids, thrown, leader, P,
                                    win_seat, win_bit, beat, led_e, bidder,
                                    lost == 0 and (plan_seats >> seat) & 1 == 1,
                                    (cover_seats >> seat) & 1 == 1,
                                    params[seat, PARAM.DRAW_TRUMPS],
                                    params[seat, PARAM.KEEP_GUARDS] == 1
                                    and _defends(seat, bidder, P))
                if kinds[seat] == EXPERT:
                    b = _searched(search, b, seat, hands, P, T, o, tbits, k, unplayed, voids,
                                  tricks, bidder, contract, rules, kinds, params, st, tt,
                                  stack, b, hist, n_hist, auction, planned)
            hands[seat] = h & ~(1 << b)
            unplayed &= ~(1 << b)
            tbits[k] = b
            if expert:
                hist[0, n_hist] = b
                hist[1, n_hist] = seat
                n_hist += 1
            if trace:
                tr_plays[j, n_played] = CARD_OF[o, b]
                n_played += 1
            if k == 0:
                led_e = SUIT_OF_BIT[o, b]
                led_bits = SUIT_BITS[o, led_e]
            elif track and SUIT_OF_BIT[o, b] != led_e:
                voids |= 1 << (4 * seat + led_e)
                if (trumps >> b) & 1 == 0:
                    thrown |= 1 << (4 * seat + SUIT_OF_BIT[o, b])
            if k == 0 or (beat >> b) & 1:
                # trumps sit above every other card, so one mask covers both ways to win
                beat = (led_bits | trumps) & -(2 << b)
                win_seat = seat
                win_bit = b
            seat = next_seat(seat, P)
        tricks[win_seat] += 1
        if P == 4 and (win_seat ^ bidder) & 1:
            lost += 1
        leader = win_seat
    if trace:
        for k in range(n_played, tr_plays.shape[1]):
            tr_plays[j, k] = -1


@kernel(inline=True)
def contract_score(contract, won, tricks, fail, ndogo_stake, kubwa_stake):
    """§5: the score change of the side holding ``contract`` that won ``won`` of the
    hand's ``tricks`` tricks (the other sides score the tricks they won).

    A number bid made scores the tricks won, failed loses the hand size
    (``Fail.FLAT``) or the bid (``Fail.BID``); Ndogo and Kubwa win or lose
    their stake times the hand size.  The one copy of this rule outside the
    reference engine: the kernels and the Python entry points call it."""
    if contract < tricks:
        if won >= contract:
            return won
        return -tricks if fail == Fail.FLAT else -contract
    stake = ndogo_stake if contract == tricks else kubwa_stake
    return stake * tricks if won >= tricks else -stake * tricks


@kernel
def contract_scores(contract, won, rules):
    """:func:`contract_score` of ``contract`` for each entry of the array ``won``
    under the rules vector ``rules``."""
    out = np.empty(won.shape[0], np.int64)
    for i in range(won.shape[0]):
        out[i] = contract_score(contract, won[i], rules[R.TRICKS], rules[R.FAIL],
                                rules[R.NDOGO_STAKE], rules[R.KUBWA_STAKE])
    return out


@kernel(inline=True)
def play_contract(bidder, high, hands, rules, kinds, params, st, recs, j, tricks,
                  trace, tr_plays, auction, planned, ps, search):
    """Trump, play and scoring once ``bidder`` holds contract ``high`` (§3.3, 4, 5).
    ``auction``: the calls (``_auction``; -1 first: none); ``planned``: the seat
    that called by a plan (-1: none), whose calls say nothing of its cards."""
    P = rules[R.PLAYERS]
    T = rules[R.TRICKS]
    for s in range(4):
        tricks[s] = 0
    recs[j, C_CONTRACT] = high
    recs[j, C_BIDDER] = bidder
    # -- trump (3.3)
    if kinds[bidder] == RANDOM:
        o = bounded(st, 5 if rules[R.NO_TRUMP] else 4)
    else:
        o = _choose_trump(hands[bidder], high, rules)
    recs[j, C_TRUMP] = o
    _bidder_features(hands[bidder], o, recs, j)
    _play_tricks(bidder, high, o, hands, P, T, kinds, params, st, tricks, j, trace, tr_plays,
                 rules, auction, planned, ps, search)
    # -- scoring (5)
    for s in range(3):
        recs[j, C_SIDE_TRICKS + s] = 0
        recs[j, C_SCORE + s] = 0
    for s in range(4):
        recs[j, C_TRICKS + s] = tricks[s]
        if s < P:
            side = s % 2 if P == 4 else s
            recs[j, C_SIDE_TRICKS + side] += tricks[s]
    bs = bidder % 2 if P == 4 else bidder
    won = recs[j, C_SIDE_TRICKS + bs]
    recs[j, C_MADE] = won >= (high if high < T else T)
    delta = contract_score(high, won, T, rules[R.FAIL], rules[R.NDOGO_STAKE],
                           rules[R.KUBWA_STAKE])
    for s in range(rules[R.SIDES]):
        recs[j, C_SCORE + s] = delta if s == bs else recs[j, C_SIDE_TRICKS + s]


@kernel(inline=True)
def _block_size(size, search):
    """Units per prange task: ``size``, or :data:`EXPERT_BLOCK` when a seat
    plays the expert (``search`` given).  No hand depends on its block."""
    return size if search is None else EXPERT_BLOCK


@kernel(inline=True)
def _scratch():
    """Per-task working arrays: stream, deck, hands, desired levels, tricks, a
    one-row record and an empty trace (for calls made without tracing)."""
    return (np.empty(2, np.uint64), np.empty(24, np.int64), np.empty(4, np.int64),
            np.empty(4, np.int64), np.empty(4, np.int64), np.empty((1, N_COLS), np.int16),
            np.empty((1, 1), np.int64))


@kernel(inline=True)
def _play_scratch(kinds):
    """Per-task working arrays of the play (:func:`play_hand`): the auction's
    calls, the current trick's cards, and, full size only when a seat plays
    the expert, the plays so far (play bits, seats), its transposition table
    and its search stack."""
    expert = False
    for s in range(kinds.shape[0]):
        if kinds[s] == EXPERT:
            expert = True
    return (np.empty(MAX_CALLS, np.int64), np.zeros(4, np.int64),
            np.zeros((2, 24 if expert else 1), np.int64),
            np.zeros((EXPERT_TT if expert else 1, 3), np.int64),
            np.zeros((MAXPLY if expert else 1, N_FIELDS), np.int64))


@kernel(parallel=True)
def run_hands(start, count, key, rules, kinds, params, rec, trace, tr_calls, tr_plays, tr_deal,
              search):
    """Play hands ``start .. start+count-1`` (stream = hand number) into ``rec[j]``.

    Blocks of hands go to threads through ``prange``; each hand's stream depends
    only on (key, hand number), so results do not depend on threads or blocks.
    ``search``: None unless a seat plays the expert (the api's ``_search``);
    every kernel below takes it.
    """
    P = rules[R.PLAYERS]
    size = _block_size(BLOCK, search)
    for b in numba.prange(blocks(count, size)):
        st, deck, hands, desired, tricks, _, _ = _scratch()
        ps = _play_scratch(kinds)
        dealer = (start + b * size) % P       # hand i is dealt by seat i mod P
        for j in block(b, count, size):
            start_stream(st, key, start + j)
            deal(st, dealer, rules, deck, hands)
            if trace:
                for s in range(4):
                    tr_deal[j, s] = hands[s]
            play_hand(dealer, hands, rules, kinds, params, st, rec, j, desired, tricks,
                      -1, PLAN_POLICY, trace, tr_calls, tr_plays, ps, search)
            dealer = next_seat(dealer, P)


@kernel
def _game(st, rules, kinds, params, init, first_dealer, grec, row, deck, hands, desired,
          tricks, no_trace, ps, hist, search):
    """One game (seeds/pepper.md 6) from scores ``init``; ``first_dealer`` < 0 draws one.
    ``hist`` holds the top after each round (:mod:`simkit.lead`); returns it,
    grown if the game outlasted it, for the block's next game."""
    P = rules[R.PLAYERS]
    n_sides = rules[R.SIDES]
    target = rules[R.TARGET]
    dealer = bounded(st, P) if first_dealer < 0 else first_dealer
    grec[G_FIRST_DEALER] = dealer
    scores = init.copy()
    rounds = 0
    unfinished = 1
    winners = 0
    while rounds < rules[R.MAX_ROUNDS]:
        deal(st, dealer, rules, deck, hands)
        play_hand(dealer, hands, rules, kinds, params, st, row, 0, desired, tricks,
                  -1, PLAN_POLICY, False, no_trace, no_trace, ps, search)
        dealer = next_seat(dealer, P)
        top = -1 << 30
        for s in range(n_sides):
            scores[s] += row[0, C_SCORE + s]
            top = max(top, scores[s])
        # the sides on the top score: the round's top, and the winners once at the target
        mask = 0
        for s in range(n_sides):
            if scores[s] == top:
                mask |= 1 << s
        hist = note(hist, rounds, mask)
        rounds += 1
        if top >= target:
            winners = mask
            if popcount(mask) == 1 or rules[R.TIE] == Tie.SHARED:
                unfinished = 0
                break
    grec[G_ROUNDS] = rounds
    for s in range(3):
        grec[G_SCORE + s] = scores[s]
    grec[G_WINNERS] = winners if unfinished == 0 else 0
    grec[G_UNFINISHED] = unfinished
    changes, comeback, settled = summary(hist, rounds, grec[G_WINNERS])
    grec[G_LEAD_CHANGES] = changes
    grec[G_COMEBACK] = comeback
    grec[G_SETTLED] = settled
    return hist


@kernel(parallel=True)
def run_games(start, count, key, rules, kinds, params, grec, init, first_dealer, search):
    """Play whole games ``start .. start+count-1`` (stream = game number) into ``grec[j]``,
    each from scores ``init`` (int64[3]) with ``first_dealer`` (< 0: drawn per game)."""
    size = _block_size(GAME_BLOCK, search)
    for b in numba.prange(blocks(count, size)):
        st, deck, hands, desired, tricks, row, no_trace = _scratch()
        ps = _play_scratch(kinds)
        hist = new_history()
        for j in block(b, count, size):
            start_stream(st, key, start + j)
            hist = _game(st, rules, kinds, params, init, first_dealer, grec[j], row, deck,
                         hands, desired, tricks, no_trace, ps, hist, search)


@kernel(inline=True)
def _held(seat, dealer, contract, plan, wanted, hands, rules, kinds, params, st, rec, j, desired,
          tricks, trace, tr_calls, tr_plays, no_calls, ps, search):
    """Row ``j``: the dealt hand with ``seat`` held to ``contract`` > 0, played with
    no auction (the auction columns 0; with ``wanted``, a heuristic declarer's
    ``C_BID`` column holds the level it would have wanted), or else calling by
    ``plan`` through the whole auction.  The play is compiled in once."""
    calls = no_calls
    if contract > 0:
        for s in range(C_TRUMP):
            rec[j, s] = 0
        rec[j, C_DEALER] = dealer
        if wanted and kinds[seat] != RANDOM:
            rec[j, C_BID + seat] = _desired(hands[seat], rules, params, seat)
        if trace:
            for k in range(MAX_CALLS):
                tr_calls[j, k] = -1
        high, holder, planned = contract, seat, -1
    else:
        high, holder, planned = _bid_hand(dealer, hands, rules, kinds, params, st, rec, j,
                                          desired, seat, plan, trace, tr_calls, tr_plays, ps)
        calls = ps[0]
    if high > 0:
        play_contract(holder, high, hands, rules, kinds, params, st, rec, j, tricks, trace,
                      tr_plays, calls, planned, ps, search)


@kernel(parallel=True)
def run_plan(first, count, key, rules, kinds, params, seat, dealer, fixed, plan, contract, rec,
             trace, tr_calls, tr_plays, tr_deal, search):
    """Samples ``first .. first+count-1`` (row ``j`` is sample ``first + j``): deals
    in which ``seat`` holds the cards of mask ``fixed`` and the other hands are
    dealt uniformly from the rest (stream = sample number, :func:`deal_fixed`).
    With ``contract`` > 0, ``seat`` plays it with no auction (9.1; the auction
    columns stay 0); otherwise the whole hand is played, auction included, with
    ``seat`` calling by ``plan`` (9.3; ``PLAN_POLICY``: by its policy).  Rows of
    ``rec`` are hand records; with ``trace`` the calls, plays and dealt masks as
    :func:`run_hands` traces them."""
    H = rules[R.HANDS_DEALT]
    size = _block_size(BLOCK, search)
    for b in numba.prange(blocks(count, size)):
        st, _, hands, desired, tricks, _, _ = _scratch()
        ps = _play_scratch(kinds)
        rest = np.empty(24 - 24 // H, np.int64)
        no_calls = np.full(1, -1, np.int64)
        for j in block(b, count, size):
            start_stream(st, key, first + j)
            deal_fixed(st, seat, dealer, fixed, rules, rest, hands)
            if trace:
                for s in range(4):
                    tr_deal[j, s] = hands[s]
            _held(seat, dealer, contract, plan, False, hands, rules, kinds, params, st, rec, j,
                  desired, tricks, trace, tr_calls, tr_plays, no_calls, ps, search)


@kernel(parallel=True)
def run_first(numbers, key, rules, kinds, params, plan, contract, rec, search):
    """Deal hands ``numbers[j]`` (any hand numbers: a run's range, or the deals a
    study picked) as :func:`run_hands` deals them, into ``rec[j]``; the seat left
    of the dealer, the first to speak, is held to ``contract`` or ``plan``.

    With ``contract`` > 0 the auction is skipped and that seat plays it (9.2):
    every deal is played whatever its strength, so rates by hand class are not
    biased by who would have bid; a heuristic declarer's ``C_BID`` column holds
    the level it would have wanted (7.2, D).  Otherwise the hand is played,
    auction included, with that seat calling by ``plan`` (9.3).
    """
    P = rules[R.PLAYERS]
    count = numbers.shape[0]
    size = _block_size(BLOCK, search)
    for b in numba.prange(blocks(count, size)):
        st, deck, hands, desired, tricks, _, no_trace = _scratch()
        ps = _play_scratch(kinds)
        no_calls = np.full(1, -1, np.int64)
        for j in block(b, count, size):
            dealer = deal_number(st, key, numbers[j], rules, deck, hands)
            seat = next_seat(dealer, P)
            _held(seat, dealer, contract, plan, True, hands, rules, kinds, params, st, rec, j,
                  desired, tricks, False, no_trace, no_trace, no_calls, ps, search)


# --- streaming aggregates ----------------------------------------------------
#: Group axes of :func:`run_hands_agg`: contract level, made, bidder's trumps,
#: bowers, outside aces, outside voids, bidder's seat counted from the dealer
#: (1 = left of the dealer ... P = the dealer; 0 = thrown in).
AGG_SHAPE = (10, 2, 8, 3, 5, 4, 5)
AGG_STATS = 4        # hands, bidder side points, their squares, opponents' points
AGG_LANES = 8        # fixed, so the split of work never depends on the thread count


@kernel(inline=True)
def _agg_add(rec, dealer, P, S, agg, lane):
    """Add the hand in ``rec[0]`` to its group's counts and sums."""
    bidder = rec[0, C_BIDDER]
    own = 0
    opp = 0
    seat = 0
    if bidder >= 0:
        seat = (bidder - dealer + P) % P
        if seat == 0:
            seat = P
        bs = bidder % 2 if P == 4 else bidder
        for s in range(S):
            if s == bs:
                own = rec[0, C_SCORE + s]
            else:
                opp += rec[0, C_SCORE + s]
    cell = rec[0, C_CONTRACT]
    cell = cell * 2 + rec[0, C_MADE]
    cell = cell * 8 + rec[0, C_F_TRUMPS]
    cell = cell * 3 + rec[0, C_F_BOWERS]
    cell = cell * 5 + rec[0, C_F_ACES]
    cell = cell * 4 + rec[0, C_F_VOIDS]
    cell = cell * 5 + seat
    agg[lane, cell, 0] += 1
    agg[lane, cell, 1] += own
    agg[lane, cell, 2] += own * own
    agg[lane, cell, 3] += opp


@kernel(parallel=True)
def run_hands_agg(start, count, key, rules, kinds, params, agg, search):
    """Play hands ``start .. start+count-1`` like :func:`run_hands` but keep only
    counts and sums per group: ``agg[lane, cell, stat]`` (cells in C order of
    ``AGG_SHAPE``).  Sums are integers, so the totals over lanes are exact
    whatever thread ran which lane.  Lanes, not blocks, go to threads: each
    lane takes every ``n_lanes``-th block."""
    P = rules[R.PLAYERS]
    S = rules[R.SIDES]
    size = _block_size(BLOCK, search)
    n_blocks = blocks(count, size)
    n_lanes = agg.shape[0]
    for lane in numba.prange(n_lanes):
        st, deck, hands, desired, tricks, rec, no_trace = _scratch()
        ps = _play_scratch(kinds)
        for b in range(lane, n_blocks, n_lanes):
            dealer = (start + b * size) % P
            for j in block(b, count, size):
                start_stream(st, key, start + j)
                deal(st, dealer, rules, deck, hands)
                play_hand(dealer, hands, rules, kinds, params, st, rec, 0, desired, tricks,
                          -1, PLAN_POLICY, False, no_trace, no_trace, ps, search)
                _agg_add(rec, dealer, P, S, agg, lane)
                dealer = next_seat(dealer, P)
