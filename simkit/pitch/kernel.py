"""Pitch in numba: the rules of ``seeds/pitch.md``, arrays in, arrays out.

Hands are 52-bit masks (bit = card id = suit * 13 + rank position, see
``rules.DECK``), so a suit is a 13-bit field, the highest or lowest card of a
set is one bit scan, and the cards that beat the winning card are a mask.
Seats are table positions 0..n-1; whole sessions map positions to players.
All decisions are exactly those of seeds/pitch.md section 8.

Entry points (:func:`run_hands`, :func:`run_plan` and :func:`run_sessions`,
which call the one batch kernel through :func:`run_rows`, its plain-Python
driver, with one :class:`RowsJob`):

* :func:`run_hands` plays hands ``start .. start+count-1`` of a run, one per
  stream, into a record matrix (columns ``C_*``), blocks of them on threads.
* :func:`run_sessions` plays whole money sessions (seeds/pitch.md 7), one
  stream each, into per-player and per-session records.
* :func:`run_plan` holds one hand at one seat (the advisor, 8.3): the seat is
  held to a bidding plan through the auction (8.4), or declared pitcher.
* :func:`play_hand` is the single-hand core they share.

The readable twin is ``reference.py``; the two never share code.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from simkit.base import lead
from simkit.base.bits import high_bit, low_bit, next_seat, nth_bit, popcount
from simkit.base.jit import block, in_lanes, kernel
from simkit.base.rng import bounded, sample, start_stream
from simkit.pitch.kernel_columns import (
    C_BID,
    C_CONTRACT,
    C_DEALER,
    C_F_ACE,
    C_F_GP,
    C_F_JACK,
    C_F_KING,
    C_F_TRUMPS,
    C_F_TWO,
    C_GAME,
    C_GP,
    C_HIGH,
    C_JACK,
    C_LOW,
    C_MADE,
    C_PITCHER,
    C_POINTS,
    C_SCORE,
    C_STUCK,
    C_TRICKS,
    C_TRUMP,
    N_COLS,
)
from simkit.pitch.kernel_sessions import (
    between_hands,
    close_session,
    open_session,
    seat_policies,
    settle_hand,
)
from simkit.pitch.policies import (
    PARAM,
    TABLE_OFFSET,
    LowValueCode,
    MoonRuleCode,
    PartnerCoverCode,
    unseen_table,
)
from simkit.pitch.rules import (
    ACE,
    GAME_POINTS,
    JACK,
    KING,
    MAX_PLAYERS,
    MAX_SESSION_PLAYERS,
    MONEY_UNITS_PER_CENT,
    MOON,
    PLAN_MOON,
    PLAN_PASS,
    PLAN_POLICY,
    TEN,
    TWO,
    AllPassCode,
    AuctionCode,
    GameTieCode,
    LowCode,
    MoonNeedsCode,
    R,
    StealCode,
    StuckBidCode,
)
from simkit.policy import RANDOM, by_players

BLOCK = 4096          # hands per block (of lanes, simkit.base.jit.in_lanes)
MAX_CALLS = 16        # the longest auction: 8 passes, 4 raises (to 2, 3, 4, 5), 4 steals
SESSION_BLOCK = 64    # sessions per block
MAXP = 8

SUIT = np.array([0x1FFF << (13 * s) for s in range(4)], np.int64)
_ALL = np.int64((1 << 52) - 1)


def _rank_mask(pos: int) -> int:
    return sum(1 << (13 * s + pos) for s in range(4))


TENS, JACKS, QUEENS, KINGS, ACES = (np.int64(_rank_mask(p)) for p in (TEN, JACK, 10, KING, ACE))
GP = np.array([GAME_POINTS[c % 13] for c in range(52)], np.int64)
POS = np.array([c % 13 for c in range(52)], np.int64)
SUIT_OF = np.array([c // 13 for c in range(52)], np.int64)
Q = unseen_table()
OFFSET = by_players(TABLE_OFFSET, MAX_PLAYERS)   # the tuned offset by number of players, 8.2


@kernel(inline=True)
def _game_points(m):
    return (10 * popcount(m & TENS) + popcount(m & JACKS) + 2 * popcount(m & QUEENS)
            + 3 * popcount(m & KINGS) + 4 * popcount(m & ACES))


#: ``COST[t, c]``: how much giving card ``c`` away hurts with trump ``t`` (8.2).
COST = np.array([[1000 + c % 13 if c // 13 == t else 16 * GAME_POINTS[c % 13] + c % 13
                  for c in range(52)] for t in range(4)], np.int64)


@kernel(inline=True)
def _cost(c, t):
    return COST[t, c]


@kernel(inline=True)
def _lowest(m, t):
    best = -1
    best_cost = 1 << 30
    while m:
        c = low_bit(m)
        m &= m - 1
        k = _cost(c, t)
        if k < best_cost:
            best_cost = k
            best = c
    return best


@kernel(inline=True)
def _feed(m, t):
    """Most feed value (game points, +20 for the jack of trumps), ties to the lowest."""
    best = -1
    best_key = -(1 << 30)
    jack = 13 * t + JACK
    while m:
        c = low_bit(m)
        m &= m - 1
        fv = GP[c] + (20 if c == jack else 0)
        k = fv * 4096 - _cost(c, t)
        if k > best_key:
            best_key = k
            best = c
    return best


def _suit_estimates(captured: bool) -> np.ndarray:
    """``EST[N, bits]``: the High + Low + Jack part of a suit's estimate (8.2) for
    every 13-bit pattern of cards held in it, with N players (0 if none held);
    Low valued as held, or (``captured``) as a capture chance."""
    bits = np.arange(1 << 13)
    held = (bits[:, None] >> np.arange(13)) & 1 == 1
    top = np.where(held, np.arange(13), -1).max(axis=1)
    bot = np.where(held, np.arange(13), 13).min(axis=1)
    jack = held[:, JACK]
    over = held[:, JACK + 1:].any(axis=1)
    est = np.zeros((Q.shape[0], 1 << 13), np.int64)
    for n in range(2, Q.shape[0]):
        q = Q[n]
        qh = q[12 - top.clip(0)]
        qb = q[bot.clip(max=12)]
        # Low as a capture chance, or as held
        e = (qh + (qh * (95 - qb // 5) + (100 - qh) * 40) // 100 if captured
             else qh + (3 * qb) // 4)
        e = e + np.where(jack, np.where(over, 85, 55),
                         np.where(held[:, ACE], ((100 - q[1]) * 40) // 100, 0))
        est[n] = np.where(bits > 0, e, 0)
    return est


#: ``EST[model, N, bits]``: model 0 Low as held, 1 Low as a capture chance.
EST = np.stack([_suit_estimates(False),
                _suit_estimates(True)]).astype(np.int32)   # small: numba caches it
#: ``COMB[a, b]``: the binomial coefficient, 0 when b > a.
COMB = np.array([[0 if b > a else __import__("math").comb(a, b) for b in range(53)]
                 for a in range(53)], np.int64)


@kernel(inline=True)
def _low_model(params, rules):
    """1: Low valued as a capture chance (low_value = rules under low = captured)."""
    return 1 if (params[PARAM.LOW_VALUE] == LowValueCode.RULES
                 and rules[R.LOW] == LowCode.CAPTURED) else 0


@kernel(inline=True)
def _hand_suit(h, n_players, model):
    """(the hand's suit, its estimate in hundredths) per seeds/pitch.md 8.2."""
    game = (100 * _game_points(h)) // (8 * n_players)
    best = -1
    best_est = -1
    for s in range(4):
        bits = (h >> (13 * s)) & 0x1FFF
        if bits == 0:
            continue
        est = EST[model, n_players, bits] + min(90, game + 5 * popcount(bits))
        if est > best_est:
            best_est = est
            best = s
    return best, best_est


@kernel(inline=True)
def _desired(h, n_players, params, rules):
    """(the heuristic's desired level: 0 pass, 2, 3, 4 or 5 the moon; the hand's suit)."""
    s, est = _hand_suit(h, n_players, _low_model(params, rules))
    bits = (h >> (13 * s)) & 0x1FFF
    gaps = ~bits & 0x1FFF              # run = cards held from the ace down without a gap
    run = 12 if gaps == 0 else 12 - high_bit(gaps)
    if params[PARAM.MOON_RULE] == MoonRuleCode.SURE:
        ok = (bits >> JACK) & 1 == 1 and run >= params[PARAM.MOON_RUN]
        if rules[R.LOW] == LowCode.DEALT and not bits & 1:
            ok = False
        for o in range(4):
            if o == s:
                continue
            b = (h >> (13 * o)) & 0x1FFF
            if b and b + (b & -b) != 0x2000:      # not a run up to the ace
                ok = False
        if ok:
            return 5, s
    elif popcount(bits) >= params[PARAM.MOON_TRUMPS] and run >= params[PARAM.MOON_RUN]:
        return 5, s
    x = est + params[PARAM.AGGRESSION]
    if params[PARAM.TUNED]:
        x += OFFSET[n_players]
    v = (x + 50) // 100
    if v >= 4:
        return 4, s
    if v >= 2:
        return v, s
    return 0, s


@kernel(inline=True)
def _choose_bid(seat, is_dealer, high, hands, n_players, rules, kinds, params, st, work):
    """One auction decision (seeds/pitch.md 2 and 8); returns the level (0 = pass).
    A heuristic seat's hand suit goes to ``work[W_SUIT, seat]``."""
    forced = is_dealer and high == 0 and rules[R.ALL_PASS] == AllPassCode.FORCED
    only_two = forced and rules[R.STUCK_BID] == StuckBidCode.TWO
    steal = is_dealer and high > 0 and rules[R.STEAL] == StealCode.MATCH
    if kinds[seat] == RANDOM:
        if only_two:
            bounded(st, 1)             # one draw per decision, even with one option
            return 2
        lo = high if steal else max(2, high + 1)
        n_opt = 6 - lo + (0 if forced else 1)
        k = bounded(st, n_opt)
        if forced:
            return lo + k
        return 0 if k == 0 else lo + k - 1
    d, suit = _desired(hands[seat], n_players, params[seat], rules)
    work[W_SUIT, seat] = suit
    if only_two:
        return 2
    if params[seat, PARAM.DEALER_MATCH] and is_dealer and d >= 2 and d != MOON:
        if steal:
            least = high
        elif forced or high == 0:
            least = 2
        else:
            least = high + 1
        ends = rules[R.AUCTION] == AuctionCode.ONE_LAP or high == 0 or steal
        if ends and least <= d and least <= MOON:
            return least
    if forced:
        return max(d, 2)
    if d > high:
        return d
    if steal and d == high:
        return high
    return 0


@kernel(inline=True)
def _plan_bid(plan, is_dealer, high, rules):
    """The call of a seat held to a bidding plan (8.4): ``PLAN_PASS``, a ceiling
    2..4 or ``PLAN_MOON``; never a random draw."""
    if is_dealer and high == 0 and rules[R.ALL_PASS] == AllPassCode.FORCED:
        if plan == PLAN_PASS or rules[R.STUCK_BID] == StuckBidCode.TWO:
            return 2
        if plan == PLAN_MOON or rules[R.AUCTION] == AuctionCode.ONE_LAP:
            return plan
        return 2                       # open: the least bid, within every ceiling
    if plan == PLAN_PASS:
        return 0
    if plan == PLAN_MOON:
        return MOON                    # nobody speaks after a moon: always above the high bid
    steal = is_dealer and high > 0 and rules[R.STEAL] == StealCode.MATCH
    if rules[R.AUCTION] == AuctionCode.OPEN:
        lo = high if steal else max(2, high + 1)
        return lo if lo <= plan else 0
    return plan if plan > high or (steal and plan == high) else 0


@kernel(inline=True)
def _beaters(legal, w, t):
    """Cards of ``legal`` that beat the winning card ``w`` with trump ``t``."""
    ws = SUIT_OF[w]
    above = SUIT[ws] & ~((np.int64(2) << w) - 1)      # same suit, higher
    if ws == t:
        return legal & above
    return (legal & SUIT[t]) | (legal & above)


@kernel(inline=True)
def _lead(h, t, played, first, hand_suit, seat, pitcher, N, tvoid, cash_chance):
    """The heuristic's lead (8.2).  ``tvoid``: seats known to hold no trump."""
    if first:
        return high_bit(h & SUIT[hand_suit])
    tm = SUIT[t]
    unplayed = tm & ~played
    outstanding = unplayed & ~h
    if unplayed and (h >> high_bit(unplayed)) & 1 and outstanding:
        return high_bit(h & tm)
    if outstanding and cash_chance > 100:
        return _lowest(h, t)       # trumps are out and cashing is never chanced
    boss = -1                  # a side suit's highest unplayed card, held
    for s in range(4):
        if s == t:
            continue
        u = SUIT[s] & ~played
        if u and (h >> high_bit(u)) & 1:
            boss = high_bit(u)
            break
    if boss < 0:
        return _lowest(h, t)
    cash = not outstanding
    if not cash and cash_chance <= 100:
        k = popcount(h)
        u = popcount(outstanding)
        n_void = 0
        n_opp = 0
        for o in range(N):
            if o == seat:
                continue
            void = (tvoid >> o) & 1
            n_void += void
            if not void and (seat == pitcher or o == pitcher):
                n_opp += 1
        pool = 52 - k - popcount(played) - n_void * k
        r = n_opp * k
        cash = (100 * COMB[pool - u, r]) // COMB[pool, r] >= cash_chance
    return boss if cash else _lowest(h, t)


@kernel(inline=True)
def _beatable(c, t, unseen, opp, free):
    """Could an opponent to come beat card ``c`` were it winning (8.2)?  ``opp``:
    an opponent is to come; ``free``: one of them is not known void in trumps."""
    if not opp:
        return False
    cs = SUIT_OF[c]
    higher = (unseen & SUIT[cs] & ~((np.int64(2) << c) - 1)) != 0
    if cs == t:
        return higher and free
    return higher or free


@kernel(inline=True)
def _to_come(seat, pitcher, after, N, tvoid):
    """(an opponent of ``seat`` is still to play, one of them is not known to be
    void in trumps), of the ``after`` players after ``seat`` in this trick."""
    opp = False
    free = False
    o = seat
    for _ in range(after):
        o += 1
        if o == N:
            o = 0
        if seat == pitcher or o == pitcher:
            opp = True
            if not (tvoid >> o) & 1:
                free = True
    return opp, free


@kernel(inline=True)
def _follow(legal, w, t, partner_wins, pitcher_played, unseen, seat, pitcher, after, N, tvoid,
            cover, risk):
    """The heuristic's card when following (8.2); who is still to come is looked
    at only when a rule needs it."""
    if partner_wins:
        if pitcher_played:
            return _feed(legal, t)
        if cover == PartnerCoverCode.LOW:
            return _lowest(legal, t)
        opp, free = _to_come(seat, pitcher, after, N, tvoid)
        if not _beatable(w, t, unseen, opp, free):
            return _lowest(legal, t)
        ws = SUIT_OF[w]
        if cover == PartnerCoverCode.BOSS and ws != t and not (
                unseen & SUIT[ws] & ~((np.int64(2) << w) - 1)):
            return _lowest(legal, t)       # only a trump beats it: no cover helps
        safe = np.int64(0)
        tops = np.int64(0)
        m = _beaters(legal, w, t)
        while m:
            c = low_bit(m)
            m &= m - 1
            if not _beatable(c, t, unseen, opp, free):
                safe |= np.int64(1) << c
            elif SUIT_OF[c] != t and GP[c] < risk and not (
                    unseen & SUIT[SUIT_OF[c]] & ~((np.int64(2) << c) - 1)):
                tops |= np.int64(1) << c
        if safe:
            plain = safe & ~SUIT[t]
            return low_bit(plain) if plain else low_bit(safe)
        if cover == PartnerCoverCode.BOSS and tops:
            return low_bit(tops)                   # one suit: the winning card's
        return _lowest(legal, t)
    b = _beaters(legal, w, t)
    if b:
        plain = b & ~SUIT[t]
        c = low_bit(plain) if plain else low_bit(b)
        if GP[c] >= risk:
            opp, free = _to_come(seat, pitcher, after, N, tvoid)
            if _beatable(c, t, unseen, opp, free):
                return _lowest(legal, t)
        return c
    return _lowest(legal, t)


@kernel(inline=True)
def deal(st, dealer, n_players, deck, hands):
    """Deal 6 cards each (seeds/pitch.md 1) into ``hands[position]``."""
    for c in range(52):
        deck[c] = c
    sample(st, deck, 6 * n_players)
    for s in range(n_players):
        hands[s] = 0
    r = 0
    for p in range(6 * n_players):
        seat = dealer + 1 + r
        if seat >= n_players:
            seat -= n_players
        hands[seat] |= np.int64(1) << deck[p]
        r += 1
        if r == n_players:
            r = 0


W_DEALT, W_WON, W_TRICKS, W_POINTS, W_GP, W_SUIT = range(6)


@kernel(inline=True)
def _auction(dealer, hands, N, rules, kinds, params, st, rec, j, work, seat, plan, trace,
             tr_calls):
    """The auction (2) from the dealer's left, clockwise: one lap (the dealer last)
    or open (a pass is final; it ends when all have passed, or a bid stands and
    one player has not passed); a moon ends either.  ``seat`` (if >= 0) is held
    to ``plan`` unless that is ``PLAN_POLICY`` (8.4).  Each seat's highest bid
    goes to ``rec[j]``; with ``trace`` each call (seat * 16 + level) to
    ``tr_calls[j]``.  Returns ``(high, pitcher)``; the pitcher is -1 when the
    hand is thrown in."""
    one_lap = rules[R.AUCTION] == AuctionCode.ONE_LAP
    high = 0
    pitcher = -1
    s = dealer
    passed = 0
    active = N
    calls = 0
    while True:
        s += 1
        if s == N:
            s = 0
        if (passed >> s) & 1:
            continue
        is_dealer = s == dealer
        if is_dealer and high == 0 and rules[R.ALL_PASS] == AllPassCode.FORCED:
            rec[j, C_STUCK] = 1
        if s == seat and plan != PLAN_POLICY:
            level = _plan_bid(plan, is_dealer, high, rules)
        else:
            level = _choose_bid(s, is_dealer, high, hands, N, rules, kinds, params, st, work)
        if trace:
            tr_calls[j, calls] = s * 16 + level
        calls += 1
        if level > 0:
            high = level
            pitcher = s
            if level > rec[j, C_BID + s]:
                rec[j, C_BID + s] = level
            if level == MOON:
                break
        else:
            passed |= 1 << s
            active -= 1
        if one_lap:
            if calls == N:
                break
        elif active == 0 or (active == 1 and high > 0):
            break
    if trace:
        for k in range(calls, tr_calls.shape[1]):
            tr_calls[j, k] = -1
    return high, pitcher


@kernel(inline=True)
def _play_tricks(pitcher, hands, N, kinds, params, hand_suit, st, work, rec, j, trace,
                 tr_plays):
    """The play (3): six tricks, the pitcher's first lead naming trumps; tricks
    and won cards per seat into ``work``.  Returns the trump suit and the cards
    played (all those dealt)."""
    played = np.int64(0)
    t = -1
    tvoid = 0                  # seats known to hold no trump (showed out on a trump lead)
    leader = pitcher
    n_play = 0
    for trick in range(6):
        seat = leader
        w_card = -1
        w_seat = -1
        led = -1
        pitcher_played = False
        cards = np.int64(0)
        for k in range(N):
            h = hands[seat]
            if k == 0:
                if kinds[seat] == RANDOM:
                    c = nth_bit(h, bounded(st, popcount(h)))
                else:
                    c = _lead(h, t, played, trick == 0, hand_suit, seat, pitcher, N, tvoid,
                              params[seat, PARAM.CASH_CHANCE])
                if trick == 0:
                    t = SUIT_OF[c]
                led = SUIT_OF[c]
                w_card = c
                w_seat = seat
            else:
                legal = h & (SUIT[led] | SUIT[t]) if h & SUIT[led] else h
                if kinds[seat] == RANDOM:
                    c = nth_bit(legal, bounded(st, popcount(legal)))
                else:
                    partner = seat != pitcher and w_seat != pitcher
                    c = _follow(legal, w_card, t, partner, pitcher_played, _ALL & ~played & ~h,
                                seat, pitcher, N - 1 - k, N, tvoid,
                                params[seat, PARAM.PARTNER_COVER],
                                params[seat, PARAM.RISK_POINTS])
                cs = SUIT_OF[c]
                ws = SUIT_OF[w_card]
                if led == t and cs != t:
                    tvoid |= 1 << seat
                if (cs == t and ws != t) or (cs == ws and c > w_card):
                    w_card = c
                    w_seat = seat
            if seat == pitcher:
                pitcher_played = True
            bit = np.int64(1) << c
            hands[seat] = h & ~bit
            played |= bit
            cards |= bit
            if trace:
                tr_plays[j, n_play] = c
            n_play += 1
            seat += 1
            if seat == N:
                seat = 0
        work[W_TRICKS, w_seat] += 1
        work[W_WON, w_seat] |= cards
        leader = w_seat
    return t, played


@kernel(inline=True)
def _four_points(t, played, N, rules, work, rec, j):
    """High, Low, Jack and Game (4) into ``rec[j]`` and points per seat into ``work``."""
    jack = 13 * t + JACK
    trumps_dealt = played & SUIT[t]            # every dealt card was played
    hi_card = high_bit(trumps_dealt)
    lo_card = low_bit(trumps_dealt)
    gp_total = 0
    gp_top = 0
    n_top = 0
    for s in range(N):
        work[W_POINTS, s] = 0
        gp = _game_points(work[W_WON, s])
        work[W_GP, s] = gp
        gp_total += gp
        if gp > gp_top:
            gp_top = gp
            n_top = 1
        elif gp == gp_top:
            n_top += 1
        dealt = work[W_DEALT, s]
        won = work[W_WON, s]
        if (dealt >> hi_card) & 1:
            rec[j, C_HIGH] = s
        if ((dealt if rules[R.LOW] == LowCode.DEALT else won) >> lo_card) & 1:
            rec[j, C_LOW] = s
        if (won >> jack) & 1:
            rec[j, C_JACK] = s
    work[W_POINTS, rec[j, C_HIGH]] += 1
    work[W_POINTS, rec[j, C_LOW]] += 1
    if rec[j, C_JACK] >= 0:
        work[W_POINTS, rec[j, C_JACK]] += 1
    game = 0
    if gp_total > 0 and (n_top == 1 or rules[R.GAME_TIE] == GameTieCode.ALL):
        for s in range(N):
            if work[W_GP, s] == gp_top:
                game |= 1 << s
                work[W_POINTS, s] += 1
    rec[j, C_GAME] = game


@kernel(inline=True)
def _score(high, pitcher, t, N, rules, work, rec, j):
    """The contract and every seat's score change (5), and the pitcher's dealt
    hand with the trump it led (6)."""
    total = 0
    for s in range(N):
        total += work[W_POINTS, s]
    pts = work[W_POINTS, pitcher]
    if high == MOON:
        need = 4 if rules[R.MOON_NEEDS] == MoonNeedsCode.FOUR else total
        made = work[W_TRICKS, pitcher] == 6 and pts == need
        own = rules[R.MOON_MADE] if made else -rules[R.MOON_FAILED]
    else:
        made = pts >= high
        own = pts if made else -high
    for s in range(N):
        rec[j, C_TRICKS + s] = work[W_TRICKS, s]
        rec[j, C_POINTS + s] = work[W_POINTS, s]
        rec[j, C_GP + s] = work[W_GP, s]
        rec[j, C_SCORE + s] = own if s == pitcher else work[W_POINTS, s]
    rec[j, C_TRUMP] = t
    rec[j, C_MADE] = made
    dp = work[W_DEALT, pitcher]
    rec[j, C_F_TRUMPS] = popcount(dp & SUIT[t])
    rec[j, C_F_ACE] = (dp >> (13 * t + ACE)) & 1
    rec[j, C_F_KING] = (dp >> (13 * t + KING)) & 1
    rec[j, C_F_JACK] = (dp >> (13 * t + JACK)) & 1
    rec[j, C_F_TWO] = (dp >> (13 * t + TWO)) & 1
    rec[j, C_F_GP] = _game_points(dp)


@kernel(inline=True)
def play_hand(dealer, hands, n_players, rules, kinds, params, st, rec, j, work,
              seat, plan, contract, trace, tr_plays, tr_calls):
    """Auction, play and scoring of one dealt hand into ``rec[j]``.

    ``hands`` (masks per table position) is consumed; ``work`` is a (6, 8)
    scratch array.  ``contract`` >= 2 makes ``seat`` the pitcher with no
    auction (8.3); otherwise the auction runs with ``seat`` (if >= 0) held to
    ``plan`` (8.4; ``PLAN_POLICY``: its policy bids).  With ``trace`` the
    calls and the cards played go to row ``j`` of ``tr_calls`` and ``tr_plays``.
    """
    N = n_players
    for c in range(N_COLS):
        rec[j, c] = 0
    rec[j, C_DEALER] = dealer
    rec[j, C_PITCHER] = -1
    rec[j, C_TRUMP] = 4
    rec[j, C_HIGH] = -1
    rec[j, C_LOW] = -1
    rec[j, C_JACK] = -1
    if contract >= 2:
        high = contract
        pitcher = seat
        rec[j, C_BID + seat] = contract
        if trace:
            tr_calls[j, 0] = seat * 16 + contract
            for k in range(1, tr_calls.shape[1]):
                tr_calls[j, k] = -1
    else:
        high, pitcher = _auction(dealer, hands, N, rules, kinds, params, st, rec, j, work,
                                 seat, plan, trace, tr_calls)
    if pitcher < 0:
        return
    rec[j, C_PITCHER] = pitcher
    rec[j, C_CONTRACT] = high
    for s in range(N):
        work[W_DEALT, s] = hands[s]
        work[W_WON, s] = 0
        work[W_TRICKS, s] = 0
    hand_suit = 0
    if kinds[pitcher] != RANDOM:
        if pitcher == seat:        # maybe no bidding decision: the hand suit is not known yet
            hand_suit, _ = _hand_suit(hands[pitcher], N, _low_model(params[pitcher], rules))
        else:
            hand_suit = work[W_SUIT, pitcher]
    t, played = _play_tricks(pitcher, hands, N, kinds, params, hand_suit, st, work, rec, j,
                             trace, tr_plays)
    _four_points(t, played, N, rules, work, rec, j)
    _score(high, pitcher, t, N, rules, work, rec, j)


@kernel(inline=True)
def _scratch():
    """Per-task working arrays: stream, deck, hands, work, a one-row record, an
    empty trace."""
    return (np.empty(2, np.uint64), np.empty(52, np.int64), np.empty(MAXP, np.int64),
            np.empty((6, MAXP), np.int64), np.empty((1, N_COLS), np.int16),
            np.empty((1, 1), np.int8))


@kernel(inline=True)
def deal_fixed(st, seat, fixed, N, others, n_others, rest, hands):
    """A deal in which ``seat`` holds the cards of mask ``fixed`` (8.3): six of the
    unseen cards (in id order, sampled) to each other seat in turn, ``others``
    being those seats clockwise from the dealer's left."""
    n = 0
    for c in range(52):
        if not (fixed >> c) & 1:
            rest[n] = c
            n += 1
    sample(st, rest, 6 * n_others)
    for s in range(N):
        hands[s] = 0
    hands[seat] = fixed
    r = 0
    for p in range(6 * n_others):
        hands[others[r]] |= np.int64(1) << rest[p]
        r += 1
        if r == n_others:
            r = 0


class Rows(IntEnum):
    """What :func:`run_rows` plays in each unit and where it writes it."""
    HANDS = 0       # hand start + j, dealt by seat (start + j) mod players, into rec[j]
    PLAN = 1        # sample start + j around a fixed hand, into rec[j] (run_plan)
    SESSIONS = 2    # money session start + j, into res[j] and sres[j] (run_sessions)


@kernel
def _block(b, how, start, units, key, rules, kinds, params, seat, dealer, fixed, plan,
           contract, rec, res, sres, trace, tr_plays, tr_deal, tr_calls):
    """Block ``b`` of :func:`run_rows` (after ``b``, the fields of :class:`RowsJob`).
    The play is called once, below: a session (``how`` SESSIONS) is a loop of
    hands around that one call, so that it is compiled once for every kind of
    run."""
    N = rules[R.PLAYERS]
    sessions = how == Rows.SESSIONS
    st, deck, hands, work, row, _ = _scratch()
    rest = np.empty(46, np.int64)
    others = np.empty(MAXP, np.int64)
    n_others = 0
    for r in range(N):                    # other seats clockwise from left of the dealer
        s = (dealer + 1 + r) % N
        if s != seat:
            others[n_others] = s
            n_others += 1
    seats = np.empty(MAXP, np.int64)      # a session's players by table position
    old = np.empty(MAXP, np.int64)
    pk = np.empty(MAXP, np.int64)         # ... and their policies
    pp = np.empty((MAXP, params.shape[1]), np.int64)
    score = np.zeros(MAX_SESSION_PLAYERS, np.int64)
    seated = np.zeros(MAX_SESSION_PLAYERS, np.bool_)
    hist = lead.new_history()             # one per block, kept when a long session grows it
    moon_units = rules[R.MOON_DOLLARS] * 100 * MONEY_UNITS_PER_CENT
    size = SESSION_BLOCK if sessions else BLOCK
    d = dealer if how == Rows.PLAN else (start + b * size) % N   # hand i: dealt by seat i mod N
    for j in block(b, units, size):
        start_stream(st, key, start + j)
        n = N
        ever = N
        n_hands = 0
        by_target = 0
        if sessions:
            d = open_session(st, rules, res[j], sres[j], seats, seated, score)
        while True:
            if sessions:
                seat_policies(n, seats, kinds, params, pk, pp)
                deal(st, d, n, deck, hands)
                hk, hp, out, r = pk, pp, row, 0
            else:
                if how == Rows.PLAN:
                    deal_fixed(st, seat, fixed, N, others, n_others, rest, hands)
                else:
                    deal(st, d, N, deck, hands)
                    if trace:
                        for s in range(N):
                            tr_deal[j, s] = hands[s]
                hk, hp, out, r = kinds, params, rec, j
            play_hand(d, hands, n, rules, hk, hp, st, out, r, work, seat, plan, contract,
                      trace, tr_plays, tr_calls)
            if not sessions:
                if how == Rows.HANDS:
                    d = next_seat(d, N)
                break
            n_hands += 1
            top = settle_hand(row, n, seats, score, res[j], moon_units)
            mask = np.int64(0)            # the top among the players of the hand (7)
            for i in range(n):
                if score[seats[i]] == top:
                    mask |= np.int64(1) << seats[i]
            hist = lead.note(hist, n_hands - 1, mask)
            if rules[R.TARGET] > 0 and top >= rules[R.TARGET]:
                by_target = 1
                break
            if n_hands == rules[R.SESSION_HANDS]:
                break
            d, n, ever = between_hands(st, n_hands - 1, d, n, ever, seats, old, score,
                                        seated, res[j], rules)
        if sessions:
            close_session(n, ever, n_hands, by_target, seats, score, res[j], sres[j], rules,
                           hist)


@kernel
def _lanes(lo, hi, how, start, units, key, rules, kinds, params, seat, dealer, fixed, plan,
           contract, rec, res, sres, trace, tr_plays, tr_deal, tr_calls):
    """Blocks ``lo .. hi-1`` of :func:`run_rows` (its arguments).  A block is a
    call (of :func:`_block`), not a loop here: with the blocks' loop around
    the play in one function, hands ran about 3% slower."""
    for b in range(lo, hi):
        _block(b, how, start, units, key, rules, kinds, params, seat, dealer, fixed, plan,
               contract, rec, res, sres, trace, tr_plays, tr_deal, tr_calls)


_NO_DEAL = np.empty((1, 1), np.int64)
_NO_PLAYS = np.empty((1, 1), np.int8)
_NO_REC = np.empty((1, N_COLS), np.int16)
_NO_RES = np.empty((1, 1, 1), np.int64)
_NO_SRES = np.empty((1, 1), np.int64)

_Ints = npt.NDArray[np.integer[Any]]    # RowsJob's arrays (their dtypes: the api's)


class RowsJob(NamedTuple):
    """One call of :func:`run_rows`: which units, at which table, into which
    arrays.  The fields are, in order, :func:`_block`'s arguments after
    ``b``; a field a kind of run does not use keeps its default.

    * ``how``: the kind of unit (:class:`Rows`); ``start``: the number of unit
      0, whose stream it is; ``units``: how many;
    * ``key``: the run's key, of which each unit's stream is made;
    * ``rules``, ``kinds``, ``params``: the rules vector, each seat's policy
      and its parameters;
    * ``seat``, ``dealer``, ``fixed``: ``PLAN``'s held seat, its dealer and the
      mask of the held cards;
    * ``plan``, ``contract``: how the held seat calls (8.4; ``PLAN_POLICY``: by
      its policy), or, >= 2, the bid it holds as pitcher with no auction;
    * ``rec``: hand records; ``res``, ``sres``: ``SESSIONS``'s records per
      player and per session;
    * ``trace``, ``tr_plays``, ``tr_deal``, ``tr_calls``: whether hands are
      traced, and the traces' rows (:func:`run_hands`).
    """

    how: Rows
    start: int
    units: int
    key: np.uint64
    rules: _Ints
    kinds: _Ints
    params: _Ints
    seat: int = -1
    dealer: int = 0
    fixed: int | np.int64 = 0
    plan: int = PLAN_POLICY
    contract: int = 0
    rec: _Ints = _NO_REC
    res: _Ints = _NO_RES
    sres: _Ints = _NO_SRES
    trace: bool = False
    tr_plays: _Ints = _NO_PLAYS
    tr_deal: _Ints = _NO_DEAL
    tr_calls: _Ints = _NO_PLAYS


def run_rows(job: RowsJob) -> None:
    """The one batch driver of Pitch: ``job.units`` units, each a hand (or a
    whole money session, seeds/pitch.md 7) as ``job.how`` (:class:`Rows`)
    deals and records it, unit ``j`` on stream ``start + j``, played by the
    serial kernel :func:`_lanes`.  Hands of a run: hand ``i`` dealt by seat
    ``i mod players``, into ``rec``.  Plan samples: deals in which ``seat``
    holds the cards of mask ``fixed`` and the others are dealt from the rest
    (8.3), then ``seat`` held to ``contract`` (>= 2: the pitcher, no auction)
    or ``plan`` (8.4), into ``rec``.  Sessions: into ``res[j]`` (players x
    F_*) and ``sres[j]`` (S_*).  One kernel, not three: the play is most of a
    kernel's compile time, and the branches on ``how`` cost nothing
    measurable per hand.  :func:`run_hands`, :func:`run_plan` and
    :func:`run_sessions` are its entry points; the blocks go to threads
    (:func:`simkit.base.jit.in_lanes`)."""
    size = SESSION_BLOCK if job.how == Rows.SESSIONS else BLOCK
    # the kind as a plain int: the kernels' one compiled type for it
    in_lanes(_lanes, -(-job.units // size), int(job.how), *job[1:])


def run_hands(start: int, count: int, key: np.uint64, rules: _Ints, kinds: _Ints, params: _Ints,
              rec: _Ints, trace: bool, tr_plays: _Ints, tr_deal: _Ints, tr_calls: _Ints) -> None:
    """Play hands ``start .. start+count-1`` (stream = hand number) into ``rec[j]``;
    hand ``i`` is dealt by seat ``i mod players``.  With ``trace`` the plays
    (``tr_plays[j]``, card ids in order), dealt masks (``tr_deal[j]``) and calls
    (``tr_calls[j]``, seat * 16 + level, -1 padded) too."""
    run_rows(RowsJob(how=Rows.HANDS, start=start, units=count, key=key, rules=rules,
                     kinds=kinds, params=params, rec=rec, trace=trace, tr_plays=tr_plays,
                     tr_deal=tr_deal, tr_calls=tr_calls))


def run_plan(first: int, count: int, key: np.uint64, rules: _Ints, kinds: _Ints, params: _Ints,
             seat: int, dealer: int, fixed: int | np.int64, plan: int, contract: int,
             rec: _Ints, trace: bool,
             tr_plays: _Ints, tr_calls: _Ints) -> None:
    """Samples ``first .. first+count-1`` (row ``j``: sample ``first + j``; stream =
    sample number): deals in which ``seat`` holds the
    cards of mask ``fixed`` and the others are dealt from the rest (8.3), then
    play each: ``contract`` >= 2 makes ``seat`` the pitcher with no auction
    (8.3); ``contract`` 0 runs the auction with ``seat`` held to ``plan`` (8.4).
    With ``trace`` the calls and plays as in :func:`run_hands`."""
    run_rows(RowsJob(how=Rows.PLAN, start=first, units=count, key=key, rules=rules,
                     kinds=kinds, params=params, seat=seat, dealer=dealer, fixed=fixed,
                     plan=plan, contract=contract, rec=rec, trace=trace, tr_plays=tr_plays,
                     tr_calls=tr_calls))


def run_sessions(start: int, count: int, key: np.uint64, rules: _Ints, kinds: _Ints, params: _Ints,
                 res: _Ints, sres: _Ints) -> None:
    """Play sessions ``start .. start+count-1`` (stream = session number) into
    ``res[j]`` (players x F_*) and ``sres[j]`` (S_*)."""
    run_rows(RowsJob(how=Rows.SESSIONS, start=start, units=count, key=key, rules=rules,
                     kinds=kinds, params=params, res=res, sres=sres))
