"""Pepper with every card visible: the kernel's double-dummy solver (seeds/pepper.md 10).

For a position (the hands that still play, the trump option, the current
trick, the seat to play) and a side R (a set of seats), the *double-dummy
value* is the number of tricks R wins from the position on, the current
trick included, when every seat sees every card, R's seats maximising and
every other seat minimising.  The readable twin is
``reference_solver.py``; the two share no code.

How: a boolean search "can R take at least n tricks" (:func:`_at_least`),
an alpha-beta over single card plays written as a loop over an explicit
stack (numba's cache has crashed on recursive functions), with

- a transposition table of lower and upper bounds on the value of the
  positions at the start of tricks, keyed by the whole position (hands,
  leader, trump, side, players), so entries stay true across searches,
  targets and deals and a thread keeps one table for all its searches;
- equivalent cards tried once: cards of one effective suit in one hand
  with no card still in play ranked between them (cards of completed tricks
  are out of play; the current trick's cards are not);
- promising cards first: a leader's bosses from the top, then low cards; a
  follower's cheapest winning card when the trick is the other side's,
  its lowest cards when its own side wins it;
- cut-offs as soon as R has its n tricks or can no longer reach them, so
  "every trick" stops at the first trick lost.

The most tricks (:func:`dd_value`) is a binary search of such searches,
the table carrying what each one learnt to the next.

Cards are the "play bits" of the trump option (``tables.py``):
within an effective suit a higher bit is a higher card and the trumps are on
top, so "cards that beat the winning card" is one mask.

Its users: :func:`solve_deals` (whole deals, for the tests and the bench),
the perfect-information bound of 9.4 (:func:`bound_fixed`,
:func:`bound_first`) and the expert's search (``expert.py``).
"""

from __future__ import annotations

import numba
import numpy as np

from simkit.base.bits import high_bit, low_bit, next_seat, popcount
from simkit.base.jit import block, blocks, kernel
from simkit.base.rng import start_stream
from simkit.pepper.rules import R
from simkit.pepper.tables import (
    BIT_OF,
    SUIT_BITS,
    SUIT_OF_BIT,
    TRUMP_BITS,
    deal_fixed,
    deal_number,
    to_play_bits,
)

#: Plies of a search: 8 tricks of 4 cards, and the root.
MAXPLY = 33
#: Cards a seat may try at one ply (at most 8 in hand).
MAXMOVES = 8
#: Entries of a transposition table (a power of two).
TT_BITS = 16
TT_SIZE = 1 << TT_BITS

# Per-ply fields of the search stack (a row of ``stack`` per ply).
F_H = 0              # .. 3: the hands (play bits)
F_SEAT = 4           # the seat to play
F_K = 5              # cards already played to the current trick
F_LED = 6            # mask of the led effective suit (0 at a trick's start)
F_BEAT = 7           # cards that beat the card winning the trick so far
F_WSEAT = 8          # the seat winning it so far
F_TABLE = 9          # the current trick's cards
F_NEED = 10          # tricks R still needs from here
F_LEFT = 11          # tricks left, the current one included
F_N = 12             # candidate cards at this ply
F_I = 13             # the next candidate to try
F_SLOT = 14          # transposition-table slot (-1: none)
F_K1 = 15            # the position's key
F_K2 = 16
F_MOVES = 17         # .. 17 + MAXMOVES - 1: the candidates in the order tried
N_FIELDS = F_MOVES + MAXMOVES

#: Odd 64-bit constants mixing a key into a slot (golden ratio; murmur's).
_MIX1 = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xC2B2AE3D27D4EB4F)


def new_table() -> np.ndarray:
    """An empty transposition table: rows (key 1, key 2, bounds), key 1 = -1 empty."""
    tt = np.zeros((TT_SIZE, 3), np.int64)
    tt[:, 0] = -1
    return tt


def new_stack() -> np.ndarray:
    """The search's working rows, one per ply."""
    return np.zeros((MAXPLY, N_FIELDS), np.int64)


@kernel(inline=True)
def _slot(k1, k2):
    """The table slot of a position's key (a 64-bit mix of both words)."""
    x = np.uint64(k1) * _MIX1 ^ np.uint64(k2) * _MIX2
    x ^= x >> np.uint64(29)
    return np.int64(x & np.uint64(TT_SIZE - 1))


@kernel(inline=True)
def candidates(h, legal, live, o, lowest):
    """The cards of ``legal`` worth trying: of each run of ``h``'s cards in an
    effective suit with no other ``live`` card between them (equivalent cards),
    one: the highest, or with ``lowest`` the lowest (the expert's candidates)."""
    out = 0
    for e in range(4):
        own = legal & SUIT_BITS[o, e]
        if own == 0:
            continue
        prev = False
        m = live & SUIT_BITS[o, e]
        while m:
            b = low_bit(m) if lowest else high_bit(m)
            m &= ~(np.int64(1) << b)
            if (h >> b) & 1:
                if not prev and (own >> b) & 1:
                    out |= np.int64(1) << b
                prev = True
            else:
                prev = False
    return out


@kernel(inline=True)
def _push(stack, d, n, m, high_first):
    """Append the play bits of mask ``m`` to ply ``d``'s move list after its first
    ``n`` moves, lowest first (highest first with ``high_first``); the new count."""
    while m:
        b = high_bit(m) if high_first else low_bit(m)
        m &= ~(np.int64(1) << b)
        stack[d, F_MOVES + n] = b
        n += 1
    return n


@kernel(inline=True)
def _order(stack, d, P, o, side):
    """Ply ``d``'s move list: the candidates of the seat to play
    (:func:`candidates`), the promising first."""
    seat = stack[d, F_SEAT]
    h = stack[d, F_H + seat]
    legal = h & stack[d, F_LED]
    if legal == 0:
        legal = h
    live = stack[d, F_TABLE]
    for s in range(P):
        live |= stack[d, F_H + s]
    cands = candidates(h, legal, live, o, False)
    n = 0
    if stack[d, F_K] == 0:
        # bosses (the top live card of their suit), highest first; then the rest, lowest first
        bosses = 0
        for e in range(4):
            suit = live & SUIT_BITS[o, e]
            if suit:
                top = high_bit(suit)
                if (cands >> top) & 1:
                    bosses |= np.int64(1) << top
        n = _push(stack, d, n, bosses, True)
        n = _push(stack, d, n, cands & ~bosses, False)
    else:
        # the cheapest winners first when the other side wins the trick, else the low cards
        own_wins = ((side >> seat) & 1) == ((side >> stack[d, F_WSEAT]) & 1)
        winners = cands & stack[d, F_BEAT]
        first = (cands & ~winners) if own_wins else winners
        n = _push(stack, d, n, first, False)
        n = _push(stack, d, n, cands & ~first, False)
    stack[d, F_N] = n
    stack[d, F_I] = 0


@kernel(inline=True)
def _key(stack, d, P, o, key_tag):
    """The table key of the trick start at ply ``d``: for each effective suit,
    from its highest card down, the seat holding each card still in play (2
    bits a card), the suits' lengths, the leader and ``key_tag``.  Which cards
    are gone does not matter, only the order of those left, so positions that
    differ only in which cards were played share an entry."""
    owners = np.int64(0)
    lengths = np.int64(0)
    for e in range(4):
        n = 0
        for s in range(P):
            m = stack[d, F_H + s] & SUIT_BITS[o, e]
            n += popcount(m)
        lengths |= np.int64(n) << (3 * e)
        live = np.int64(0)
        for s in range(P):
            live |= stack[d, F_H + s]
        m = live & SUIT_BITS[o, e]
        while m:
            b = high_bit(m)
            m &= ~(np.int64(1) << b)
            for s in range(P):
                if (stack[d, F_H + s] >> b) & 1:
                    owners = (owners << 2) | s
                    break
    return owners, lengths | (stack[d, F_SEAT] << 12) | key_tag


@kernel(inline=True)
def _last_winner(stack, d, P, o, trumps):
    """The winner of the last trick from ply ``d``: each seat still to play has one
    card left, which it must play."""
    seat = stack[d, F_SEAT]
    led = stack[d, F_LED]
    beat = stack[d, F_BEAT]
    wseat = stack[d, F_WSEAT]
    for i in range(stack[d, F_K], P):
        b = low_bit(stack[d, F_H + seat])
        if i == 0:
            led = SUIT_BITS[o, SUIT_OF_BIT[o, b]]
        if i == 0 or (beat >> b) & 1:
            beat = (led | trumps) & -(np.int64(2) << b)
            wseat = seat
        seat = next_seat(seat, P)
    return wseat


@kernel(inline=True)
def _descend(stack, d, P, o, side, trumps):
    """Play ply ``d``'s next candidate: ply ``d + 1`` is the position after it
    (the hands, the trick so far, and once the trick is complete its
    winner to lead and the tricks R still needs)."""
    i = stack[d, F_I]
    stack[d, F_I] = i + 1
    b = stack[d, F_MOVES + i]
    seat = stack[d, F_SEAT]
    c = d + 1
    for s in range(4):
        stack[c, F_H + s] = stack[d, F_H + s]
    stack[c, F_H + seat] &= ~(np.int64(1) << b)
    k = stack[d, F_K]
    if k == 0:
        led = SUIT_BITS[o, SUIT_OF_BIT[o, b]]
        stack[c, F_LED] = led
        stack[c, F_BEAT] = (led | trumps) & -(np.int64(2) << b)
        stack[c, F_WSEAT] = seat
        stack[c, F_TABLE] = np.int64(1) << b
    else:
        stack[c, F_LED] = stack[d, F_LED]
        stack[c, F_TABLE] = stack[d, F_TABLE] | (np.int64(1) << b)
        if (stack[d, F_BEAT] >> b) & 1:
            stack[c, F_BEAT] = (stack[d, F_LED] | trumps) & -(np.int64(2) << b)
            stack[c, F_WSEAT] = seat
        else:
            stack[c, F_BEAT] = stack[d, F_BEAT]
            stack[c, F_WSEAT] = stack[d, F_WSEAT]
    if k + 1 == P:
        w = stack[c, F_WSEAT]
        stack[c, F_NEED] = stack[d, F_NEED] - ((side >> w) & 1)
        stack[c, F_LEFT] = stack[d, F_LEFT] - 1
        stack[c, F_K] = 0
        stack[c, F_SEAT] = w
        stack[c, F_LED] = 0
        stack[c, F_BEAT] = 0
        stack[c, F_TABLE] = 0
    else:
        stack[c, F_NEED] = stack[d, F_NEED]
        stack[c, F_LEFT] = stack[d, F_LEFT]
        stack[c, F_K] = k + 1
        stack[c, F_SEAT] = next_seat(seat, P)


@kernel(inline=True)
def _tightened(bounds, need, res):
    """A table entry's bounds (lower | upper << 8) on R's tricks from its
    position, tightened by the answer ``res`` to "at least ``need``?"."""
    lb = bounds & 255
    ub = bounds >> 8
    if res:
        lb = max(lb, need)
    else:
        ub = min(ub, need - 1)
    return lb | (ub << 8)


@kernel
def _at_least(stack, P, o, side, target, tt, key_tag):
    """Can side R (seat mask ``side``) take at least ``target`` tricks from the
    position in ply 0 of ``stack`` (hands, seat, trick state, ``F_LEFT``)?

    ``key_tag`` (trump, side, players) goes into every table key.  A ply is
    entered (decided at once, or its candidates ordered: :func:`_order`), its
    candidates are played one by one into the ply below (:func:`_descend`)
    until one settles it, and its answer is recorded in the table (a trick
    start) and handed to the ply above.  The phases are inlined helpers of
    scalars or single-level ones: deeper, numba counts references to the
    arrays at every ply."""
    trumps = TRUMP_BITS[o]
    stack[0, F_NEED] = target
    d = 0
    fresh = True          # ply d was just entered
    res = False
    while True:
        resolved = False
        if fresh:
            # -- enter ply d: decided at once, or its candidates ordered
            fresh = False
            resolved = True
            need = stack[d, F_NEED]
            left = stack[d, F_LEFT]
            stack[d, F_SLOT] = -1
            if need <= 0:
                res = True
            elif need > left:
                res = False
            elif left == 1:
                # the last trick: every card left is forced
                res = (side >> _last_winner(stack, d, P, o, trumps)) & 1 == 1
            else:
                resolved = False
                if stack[d, F_K] == 0:
                    k1, k2 = _key(stack, d, P, o, key_tag)
                    slot = _slot(k1, k2)
                    stack[d, F_SLOT] = slot
                    stack[d, F_K1] = k1
                    stack[d, F_K2] = k2
                    if tt[slot, 0] == k1 and tt[slot, 1] == k2:
                        if tt[slot, 2] & 255 >= need:          # the lower bound
                            res, resolved = True, True
                        elif tt[slot, 2] >> 8 < need:          # the upper bound
                            res, resolved = False, True
                if not resolved:
                    _order(stack, d, P, o, side)
        if not resolved:
            if stack[d, F_I] < stack[d, F_N]:
                # -- play the next candidate: ply d + 1
                _descend(stack, d, P, o, side, trumps)
                d += 1
                fresh = True
                continue
            # every candidate tried without a cut-off
            res = ((side >> stack[d, F_SEAT]) & 1) == 0
        # -- ply d is decided: res; record it, then hand it to the ply above
        while True:
            slot = stack[d, F_SLOT]
            if slot >= 0:
                if tt[slot, 0] != stack[d, F_K1] or tt[slot, 1] != stack[d, F_K2]:
                    tt[slot, 0] = stack[d, F_K1]           # a new entry: no bounds yet
                    tt[slot, 1] = stack[d, F_K2]
                    tt[slot, 2] = 255 << 8
                tt[slot, 2] = _tightened(tt[slot, 2], stack[d, F_NEED], res)
            if d == 0:
                return res
            d -= 1
            maximising = (side >> stack[d, F_SEAT]) & 1 == 1
            if maximising == res:
                continue          # a cut-off: ply d is decided the same way
            break                 # try ply d's next candidate


@kernel
def _root(stack, hands, P, o, trick_cards, n_trick, to_play):
    """Ply 0 from card-id masks: ``hands[s]`` the cards seat ``s`` holds, the
    current trick's ``n_trick`` cards (ids, in play order, led by the seat
    ``n_trick`` places before ``to_play``).  Returns the tricks left."""
    for s in range(4):
        stack[0, F_H + s] = to_play_bits(hands[s], o) if s < P else 0
    trumps = TRUMP_BITS[o]
    stack[0, F_K] = n_trick
    stack[0, F_SEAT] = to_play
    stack[0, F_LED] = 0
    stack[0, F_BEAT] = 0
    stack[0, F_WSEAT] = to_play
    stack[0, F_TABLE] = 0
    seat = (to_play - n_trick) % P
    for k in range(n_trick):
        b = BIT_OF[o, trick_cards[k]]
        if k == 0:
            led = SUIT_BITS[o, SUIT_OF_BIT[o, b]]
            stack[0, F_LED] = led
            stack[0, F_BEAT] = (led | trumps) & -(np.int64(2) << b)
            stack[0, F_WSEAT] = seat
        elif (stack[0, F_BEAT] >> b) & 1:
            stack[0, F_BEAT] = (stack[0, F_LED] | trumps) & -(np.int64(2) << b)
            stack[0, F_WSEAT] = seat
        stack[0, F_TABLE] |= np.int64(1) << b
        seat = next_seat(seat, P)
    left = popcount(hands[to_play])
    stack[0, F_LEFT] = left
    return left


@kernel(inline=True)
def _tag(P, o, side):
    """The part of a table key naming the search: trump, side and players."""
    return (o << 51) | (side << 54) | (P << 58)


@kernel
def dd_at_least(hands, P, o, trick_cards, n_trick, to_play, side, n, tt, stack):
    """Can side ``side`` (a seat mask) take at least ``n`` tricks from the
    position (see :func:`_root`) with every card visible?"""
    left = _root(stack, hands, P, o, trick_cards, n_trick, to_play)
    if n <= 0:
        return True
    if n > left:
        return False
    return _at_least(stack, P, o, side, n, tt, _tag(P, o, side))


@kernel
def dd_value(hands, P, o, trick_cards, n_trick, to_play, side, tt, stack, guess=-1):
    """The double-dummy value: the most tricks side ``side`` (a seat mask) takes
    from the position (see :func:`_root`), the current trick included.

    A binary search of :func:`_at_least`; with a ``guess`` (0 or more) it
    searches from there up or down a trick at a time, two searches when the
    guess is right."""
    left = _root(stack, hands, P, o, trick_cards, n_trick, to_play)
    tag = _tag(P, o, side)
    if guess >= 0:
        v = min(guess, left)
        if v == 0 or _at_least(stack, P, o, side, v, tt, tag):
            while v < left and _at_least(stack, P, o, side, v + 1, tt, tag):
                v += 1
            return v
        v -= 1
        while v > 0 and not _at_least(stack, P, o, side, v, tt, tag):
            v -= 1
        return v
    lo = 0
    hi = left
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _at_least(stack, P, o, side, mid, tt, tag):
            lo = mid
        else:
            hi = mid - 1
    return lo


#: Deals per parallel task of :func:`solve_deals` (each task clears a table).
SOLVE_BLOCK = 512


@kernel(parallel=True)
def solve_deals(hands, P, o, leader, side, target, out):
    """Row ``i``: ``hands[i, s]`` the card-id mask of seat ``s``, the trump option
    ``o[i]``, ``leader[i]`` to lead the first trick, ``side[i]`` a seat mask.
    ``out[i]``: with ``target[i]`` < 0 the double-dummy value, else 1 if the
    side can take at least ``target[i]`` tricks and 0 if not.  Blocks of rows
    run in parallel, each with its own table."""
    n = hands.shape[0]
    for blk in numba.prange(blocks(n, SOLVE_BLOCK)):
        tt = np.zeros((TT_SIZE, 3), np.int64)
        tt[:, 0] = -1
        stack = np.zeros((MAXPLY, N_FIELDS), np.int64)
        no = np.zeros(4, np.int64)
        for i in block(blk, n, SOLVE_BLOCK):
            if target[i] < 0:
                out[i] = dd_value(hands[i], P, o[i], no, 0, leader[i], side[i], tt, stack)
            else:
                out[i] = 1 if dd_at_least(hands[i], P, o[i], no, 0, leader[i], side[i],
                                          target[i], tt, stack) else 0


@kernel(inline=True)
def side_of(seat, P):
    """A seat's side as a seat mask: its partnership with 4 players."""
    if P == 4:
        return (np.int64(1) << seat) | (np.int64(1) << (seat ^ 2))
    return np.int64(1) << seat


# ---------------------------------------------------------------------------
# The perfect-information bound (seeds/pepper.md 9.4)
# ---------------------------------------------------------------------------

#: Deals per parallel task of the bound's runs (each task clears a table).
BOUND_BLOCK = 256


@kernel(parallel=True)
def bound_fixed(first, count, key, rules, seat, dealer, fixed, out):
    """Samples ``first .. first+count-1`` (row ``j``: sample ``first + j``) of a
    fixed hand (9.1: ``seat`` holds the mask ``fixed``, the rest dealt from
    stream ``(key, sample)`` by :func:`tables.deal_fixed`): ``out[j, o]`` the double-dummy value of
    ``seat``'s side leading the first trick with trump option ``o`` (0..4)."""
    P = rules[R.PLAYERS]
    H = rules[R.HANDS_DEALT]
    side = side_of(seat, P)
    for blk in numba.prange(blocks(count, BOUND_BLOCK)):
        st = np.empty(2, np.uint64)
        hands = np.zeros(4, np.int64)
        rest = np.empty(24 - 24 // H, np.int64)
        tt = np.zeros((TT_SIZE, 3), np.int64)
        tt[:, 0] = -1
        stack = np.zeros((MAXPLY, N_FIELDS), np.int64)
        no = np.zeros(4, np.int64)
        for j in block(blk, count, BOUND_BLOCK):
            start_stream(st, key, first + j)
            deal_fixed(st, seat, dealer, fixed, rules, rest, hands)
            for o in range(5):
                out[j, o] = dd_value(hands, P, o, no, 0, seat, side, tt, stack)


@kernel(parallel=True)
def bound_first(numbers, key, rules, trump, target, out):
    """Hands ``numbers[j]`` dealt as ``run_hands`` deals them: ``out[j]`` the
    double-dummy value of the first speaker's side (the seat left of the
    dealer) leading the first trick with trump option ``trump[j]``; with
    ``target`` > 0 instead 1 if it can take ``target`` tricks, else 0."""
    P = rules[R.PLAYERS]
    count = numbers.shape[0]
    for blk in numba.prange(blocks(count, BOUND_BLOCK)):
        st = np.empty(2, np.uint64)
        deck = np.empty(24, np.int64)
        hands = np.zeros(4, np.int64)
        tt = np.zeros((TT_SIZE, 3), np.int64)
        tt[:, 0] = -1
        stack = np.zeros((MAXPLY, N_FIELDS), np.int64)
        no = np.zeros(4, np.int64)
        for j in block(blk, count, BOUND_BLOCK):
            seat = next_seat(deal_number(st, key, numbers[j], rules, deck, hands), P)
            if target > 0:
                out[j] = 1 if dd_at_least(hands, P, trump[j], no, 0, seat, side_of(seat, P),
                                          target, tt, stack) else 0
            else:
                out[j] = dd_value(hands, P, trump[j], no, 0, seat, side_of(seat, P), tt,
                                  stack)
