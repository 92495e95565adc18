"""Shiesta in numba: the rules of ``seeds/shiesta.md``, arrays in, arrays out.

Suits do not matter, so a hand or a face-up row is a vector of counts per
rank packed four bits a rank into one int64 (13 ranks, at most 8 copies with
two decks).  The ranks held are then one mask (bit ``4r`` set when rank
``r`` is held) and the legal ranks on a given pile one ``&`` with a table
row.  The face-down rows keep their order (they are played blind, first
card first); the discard pile is a stack of ranks plus its packed counts, so
a pickup is one addition.  All decisions are exactly those of
seeds/shiesta.md section 6.

Entry point: :func:`run_games` plays games ``start .. start+count-1`` of a
run, one random stream each, into game records (columns ``G_*``), in
parallel over blocks, optionally with every move (for the differential
tests).  The readable twin is ``reference.py``; the two never share code.

Who led (``G_LEAD_CHANGES`` .. ``G_SETTLED``, :mod:`simkit.base.lead`): a step is
a turn, and the top after it is the mask of the seats holding the fewest
cards (hand, face-up and face-down rows).  The counts and the top are kept
up to date as one seat's count changes (:func:`_fewer`, :func:`_more`)
rather than found anew each turn.  The turn loop writes each top into the history in place and
stops when it is full, to grow it (:func:`simkit.base.lead.note`) and go on:
``hist = note(...)`` every turn (a call, and the array's reference
counting) made games a third slower, and finding the top anew after each
change of a count another 3 to 5%.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from simkit.base import lead
from simkit.base.bits import low_bit
from simkit.base.jit import block, in_lanes, kernel
from simkit.base.rng import bounded, shuffle, start_stream
from simkit.policy import RANDOM
from simkit.shiesta.policies import PARAM, ExchangeCode, SetsCode
from simkit.shiesta.rules import (
    ROW,
    SEVEN,
    TEN,
    THREE,
    TWO,
    AfterBurnCode,
    AfterPickupCode,
    HigherCode,
    OpeningCode,
    R,
    StarterCode,
    TwoCode,
)

MAXP = 5
BLOCK = 256            # games per block (simkit.base.jit.in_lanes)
# --- game record columns -----------------------------------------------------
G_STARTER = 0
G_WINNER = 1
G_WINNER_SEAT = 2
G_TURNS = 3
G_PICKUPS = 4          # .. 8
G_PLAYED = 9           # 2s, 3s, 7s, 10s played: .. 12
G_LEFT = 13            # .. 17
G_UNFINISHED = 18
G_DEALT = 19           # seat * 4 + (2, 3, 7, 10): .. 38
G_LEAD_CHANGES = 39    # who led (simkit.base.lead); after the dealt counts, which keep their place
G_COMEBACK = 40
G_SETTLED = 41
N_GCOLS = 42

NIB = np.int64(0x1111111111111)            # bit 4r for r = 0..12
_SPECIAL_RANKS = (TWO, THREE, SEVEN, TEN)


def _nib(ranks: Sequence[int]) -> np.int64:
    return np.int64(sum(1 << (4 * r) for r in ranks))


REGULAR_MASK = _nib([2, 3, 4, 5, 6, 7, 9, 10, 11, 12])        # 4 .. 9, J .. A (7 too)
OPEN_MASK = _nib([2, 3, 4, 6, 7, 9, 10, 11, 12])              # regular, not 7
WILD_MASK = _nib([TWO, THREE, TEN])                            # legal on anything


def _legal_table() -> np.ndarray:
    """``LEGAL[higher, top + 1]``: ranks (bit 4r) legal on top rank ``top``
    (-1 = empty pile or a reset 2), for each ``higher`` rule (:data:`HigherCode`)."""
    table = np.zeros((len(HigherCode), 14), np.int64)
    regular = [2, 3, 4, 5, 6, 7, 9, 10, 11, 12]
    for higher in HigherCode:
        eq = higher == HigherCode.EQUAL
        for top in range(-1, 13):
            if top == -1 or top == TWO:
                ok = regular
            elif top == SEVEN:
                ok = [r for r in regular if (r <= SEVEN if eq else r < SEVEN)]
            else:
                ok = [r for r in regular if (r >= top if eq else r > top)]
            table[higher, top + 1] = _nib(ok) | WILD_MASK
    return table


LEGAL = _legal_table()
#: Exchange strength, weakest first: 4 5 6 7 8 9 J Q K A 3 2 10.
STRENGTH = np.array([2, 3, 4, 5, 6, 7, 9, 10, 11, 12, THREE, TWO, TEN], np.int64)


@kernel(inline=True)
def _held(h):
    """Bit 4r set for every rank r with a non-zero count in packed ``h``."""
    return (h | (h >> 1) | (h >> 2) | (h >> 3)) & NIB


@kernel(inline=True)
def _count(h, r):
    return (h >> (4 * r)) & 15


@kernel(inline=True)
def _total(h):
    t = 0
    while h:
        t += h & 15
        h >>= 4
    return t


@kernel(inline=True)
def _top(pile, pile_n, two_rule):
    """The rank deciding what may follow, or -1 (empty pile or a reset 2)."""
    if pile_n == 0:
        return -1
    t = pile[pile_n - 1]
    if t != TWO:
        return t
    if two_rule == TwoCode.RESET:
        return -1
    for i in range(pile_n - 2, -1, -1):           # transparent: the card beneath the 2s
        if pile[i] != TWO:
            return pile[i]
    return -1


@kernel(inline=True)
def _next(seat, dirn, n):
    seat += dirn
    if seat == n:
        return 0
    if seat < 0:
        return n - 1
    return seat


@kernel(inline=True)
def _exchange(seat, hand, up, hsize, kind, params, st, cards):
    """The policy's exchange (6.1, 6.2): rewrites ``hand[seat]`` and ``up[seat]``."""
    both = hand[seat] + up[seat]
    m = hsize + ROW
    if kind == RANDOM:
        n = 0
        for r in range(13):                       # the cards sorted by rank index
            for _ in range(_count(both, r)):
                cards[n] = r
                n += 1
        k = bounded(st, m * (m - 1) * (m - 2) // 6)
        u = np.int64(0)
        done = False
        for i in range(m):                        # the k-th 3-subset in lexicographic order
            for j in range(i + 1, m):
                for l in range(j + 1, m):
                    if k == 0 and not done:
                        u = (np.int64(1) << (4 * cards[i])) + (np.int64(1) << (4 * cards[j])) \
                            + (np.int64(1) << (4 * cards[l]))
                        done = True
                    k -= 1
        up[seat] = u
        hand[seat] = both - u
        return
    u = np.int64(0)
    need = ROW
    for i in range(13):                           # strongest first (up) or weakest first (keep)
        r = STRENGTH[12 - i] if params[PARAM.EXCHANGE] == ExchangeCode.UP else STRENGTH[i]
        take = min(need, _count(both, r))
        u += np.int64(take) << (4 * r)
        need -= take
        if need == 0:
            break
    up[seat] = u
    hand[seat] = both - u


@kernel(inline=True)
def _how_many(src, r, sets, dry):
    """Cards of special rank ``r`` to play (6.2 sets): one, or all held when
    ``sets`` is ALL, or DRY and the draw pile is empty (``dry``)."""
    if sets == SetsCode.ALL or (sets == SetsCode.DRY and dry):
        return _count(src, r)
    return 1


@kernel(inline=True)
def _decide(src, legal, kind, params, st, pile_n, next_total, save, dry):
    """A play from a hand or face-up row with legal ranks ``legal`` (bit 4r):
    returns (rank, count), rank -1 for a pickup (6.1, 6.2)."""
    if legal == 0:
        return -1, 0
    if kind == RANDOM:
        n_opt = 0
        m = legal
        while m:
            r = low_bit(m) >> 2
            m &= m - 1
            n_opt += _count(src, r)
        k = bounded(st, n_opt)
        m = legal
        while m:
            r = low_bit(m) >> 2
            m &= m - 1
            c = _count(src, r)
            if k < c:
                return r, k + 1
            k -= c
        return -1, 0
    three = np.int64(1) << (4 * THREE)
    ten = np.int64(1) << (4 * TEN)
    s3 = params[PARAM.THREE_SETS]
    s2 = params[PARAM.SPECIAL_SETS]
    if legal & three and next_total <= params[PARAM.THREE_AT]:
        return THREE, _how_many(src, THREE, s3, dry)
    burn = params[PARAM.BURN_AT]
    if legal & ten and burn > 0 and pile_n >= burn:
        return TEN, _how_many(src, TEN, s2, dry)
    if save:
        reg = legal & REGULAR_MASK
        if reg:
            r = low_bit(reg) >> 2
            return r, _count(src, r)
        if (legal & three and pile_n >= params[PARAM.STUCK_THREE_PILE]
                and next_total <= params[PARAM.STUCK_THREE_NEXT]):
            return THREE, _how_many(src, THREE, s3, dry)
        if legal & (np.int64(1) << (4 * TWO)):
            return TWO, _how_many(src, TWO, s2, dry)
        if legal & ten:
            return TEN, _how_many(src, TEN, s2, dry)
        return THREE, _how_many(src, THREE, s3, dry)
    r = low_bit(legal) >> 2
    return r, _count(src, r)


@kernel(inline=True)
def _deal(st, N, D, H, deck, down, hand, up, g):
    """Shuffle and deal (1): three face down, three face up, then the hand, one
    card at a time round the table; the specials each seat was dealt into
    ``g``.  Returns the index of the first card left to draw."""
    for c in range(D):
        deck[c] = c
    shuffle(st, deck[:D])
    p = 0
    for k in range(ROW * N):
        down[k % N, k // N] = deck[p] % 13
        p += 1
    for k in range(ROW * N):
        up[k % N] += np.int64(1) << (4 * (deck[p] % 13))
        p += 1
    for k in range(H * N):
        hand[k % N] += np.int64(1) << (4 * (deck[p] % 13))
        p += 1
    for s in range(N):
        both = hand[s] + up[s]
        for r in range(ROW):
            both += np.int64(1) << (4 * down[s, r])
        for i in range(4):
            g[G_DEALT + 4 * s + i] = _count(both, _SPECIAL_RANKS[i])
    return p


@kernel(inline=True)
def _start(st, N, H, rules, kinds, params, hand, up, cards, g):
    """The starter (4.1), every seat's exchange from the starter clockwise (4.2)
    and the opening (4.3).  Returns ``(starter, first seat to play, the rank it
    must open with or -1)``."""
    starter = bounded(st, N) if rules[R.STARTER] == StarterCode.RANDOM else 0
    g[G_STARTER] = starter
    s = starter
    for _ in range(N):
        _exchange(s, hand, up, H, kinds[s], params[s], st, cards)
        s = _next(s, 1, N)
    for k in range(N):
        s = (starter + k) % N
        o = _held(hand[s]) & OPEN_MASK
        if o:
            return starter, s, low_bit(o) >> 2
    return starter, starter, -1


@kernel(inline=True)
def _hand_play(cur, dirn, N, src, legal, forced, hand, up, down_i, kinds, params, st, pile_n,
               dry):
    """(rank, count) the seat plays from its hand or face-up row ``src`` with
    legal ranks ``legal``: the opening's forced rank (4.3: all of them, or a
    random number for a random seat), else its policy's choice (rank -1: it
    picks up)."""
    if forced >= 0:
        k = _count(src, forced)
        if kinds[cur] == RANDOM:
            k = bounded(st, k) + 1
        return forced, k
    nxt = _next(cur, dirn, N)
    nt = _count_all(hand[nxt], up[nxt]) + ROW - down_i[nxt]
    return _decide(src, legal, kinds[cur], params[cur], st, pile_n, nt,
                   params[cur, PARAM.SAVE_SPECIALS] == 1, dry)


@kernel(inline=True)
def _clear(g, hand, up, down_i, left, N, held):
    """A new game: its record row ``g`` zeroed, no card in any seat's hand, face-up
    row or used face-down row, and ``left``, the cards each seat holds, ``held``
    at every seat (the seats beyond the table's ``N`` more than anyone holds)."""
    for c in range(N_GCOLS):
        g[c] = 0
    for s in range(MAXP):
        hand[s] = 0
        up[s] = 0
        down_i[s] = 0
        left[s] = held if s < N else 1 << 20


@kernel(inline=True)
def _source(h, u):
    """Where a seat with hand ``h`` and face-up row ``u`` plays from (4.4), and its
    packed counts: the hand (0) while it holds a card, then the face-up row (1),
    then the face-down row (2, no counts)."""
    if h != 0:
        return 0, h
    if u != 0:
        return 1, u
    return 2, np.int64(0)


@kernel(inline=True)
def _fewest(left):
    """``(fewest, top)``: the fewest cards a seat holds and the mask of the seats
    holding that many, from ``left`` (cards held per seat, every seat beyond the
    table's holding more than anyone)."""
    low = left[0]
    for s in range(1, MAXP):                          # a fixed count: unrolled, no branch
        low = min(low, left[s])
    top = np.int64(0)
    for s in range(MAXP):
        top |= np.int64(left[s] == low) << s
    return low, top


@kernel(inline=True)
def _fewer(left, s, low, top):
    """:func:`_fewest` after seat ``s`` played, from its value before: the seat holds
    as many cards as before or fewer, the others as many, so only it is looked at."""
    c = left[s]
    bit = np.int64(1) << s
    if c < low:
        return c, bit
    if c == low:
        return low, top | bit
    return low, top


@kernel(inline=True)
def _more(left, s, low, top):
    """:func:`_fewest` after seat ``s`` picked up a pile (of one card or more), from
    its value before: the seat leaves the top; only if it was alone there are the
    other seats looked at."""
    top &= ~(np.int64(1) << s)
    if top == 0:
        return _fewest(left)
    return low, top


@kernel(inline=True)
def _record_end(g, turns, winner, starter, N, hand, up, down_i, hist):
    """The game's length, winner, cards left (5) and who led (``hist``, the
    top after each turn) into its record row ``g``."""
    g[G_TURNS] = turns
    g[G_WINNER] = winner
    g[G_WINNER_SEAT] = (winner - starter) % N if winner >= 0 else -1
    g[G_UNFINISHED] = winner < 0
    for s in range(N):
        g[G_LEFT + s] = _count_all(hand[s], up[s]) + ROW - down_i[s]
    winners = np.int64(0)
    if winner >= 0:
        winners = np.int64(1) << winner
    changes, comeback, settled = lead.summary(hist, turns, winners)
    g[G_LEAD_CHANGES] = changes
    g[G_COMEBACK] = comeback
    g[G_SETTLED] = settled


@kernel
def play_game(st, rules, kinds, params, g, moves, trace, deck, down, pile, hand, up, down_i,
              cards, left, hist):
    """One game (seeds/shiesta.md 4) into the record row ``g``; with ``trace`` the
    move codes into ``moves`` (the reference's ``move_codes``).  The arrays after
    ``trace`` are the caller's scratch, made once per block of games; returns
    the history ``hist`` (:func:`simkit.base.lead.note`), grown if the game needed
    more, for the block's next game."""
    N = rules[R.PLAYERS]
    D = 52 * rules[R.N_DECKS]
    H = rules[R.HAND_SIZE]
    higher = rules[R.HIGHER]
    two_rule = rules[R.TWO]
    max_turns = rules[R.MAX_TURNS]
    _clear(g, hand, up, down_i, left, N, 2 * ROW + H)   # left: kept up to date each turn
    draw = _deal(st, N, D, H, deck, down, hand, up, g)
    starter, cur, forced = _start(st, N, H, rules, kinds, params, hand, up, cards, g)
    fewest, leading = _fewest(left)                   # the top, kept as counts change
    # --- turns (4.4)
    dirn = 1
    pile_n = 0
    pile_c = np.int64(0)
    pending = False
    fresh_rule = True          # the next empty pile must open with a regular non-7 card
    turns = 0
    winner = -1
    while winner < 0 and turns < max_turns:
        if turns == hist.shape[0]:                    # full: simkit.base.lead doubles it (the
            hist = lead.note(hist, turns, leading)    # next turn writes its own top there)
        stop = min(max_turns, hist.shape[0])
        while turns < stop:                           # as many turns as it has room for
            turns += 1
            # a pickup: forced by a 3 (extra 0, code rank 15), with no legal set, or of
            # an illegal face-down card (extra = that card, code rank = its rank)
            pick = pending
            extra = np.int64(0)
            code_rank = 15
            pending = False
            source = 0
            r = 0
            k = 0
            if not pick:
                source, src = _source(hand[cur], up[cur])
                top = _top(pile, pile_n, two_rule)
                if source == 2:
                    r = down[cur, down_i[cur]]
                    down_i[cur] += 1
                    k = 1
                    if pile_n > 0 and not (LEGAL[higher, top + 1] >> (4 * r)) & 1:
                        pick = True
                        extra = np.int64(1) << (4 * r)
                        code_rank = r
                else:
                    legal = _held(src) & LEGAL[higher, top + 1]
                    if pile_n == 0 and fresh_rule and legal & OPEN_MASK:
                        legal &= OPEN_MASK
                    r, k = _hand_play(cur, dirn, N, src, legal, forced, hand, up, down_i, kinds,
                                      params, st, pile_n, draw >= D)
                    forced = -1
                    pick = r < 0
            if pick:                                  # the pile (and card) into the hand
                if trace:
                    moves[turns - 1] = (((cur * 4 + 3) * 16 + code_rank) * 128
                                        + min(pile_n + (extra != 0), 127))
                hand[cur] += pile_c + extra
                left[cur] += pile_n                   # a face-down card was held already
                if pile_n:
                    fewest, leading = _more(left, cur, fewest, leading)
                pile_c = np.int64(0)
                pile_n = 0
                g[G_PICKUPS + cur] += 1
                hist[turns - 1] = leading
                if rules[R.OPENING] == OpeningCode.EVERY:
                    fresh_rule = True
                if rules[R.AFTER_PICKUP] == AfterPickupCode.NEXT:
                    cur = _next(cur, dirn, N)
                continue
            left[cur] -= k
            if source == 0:
                hand[cur] -= np.int64(k) << (4 * r)
                while draw < D and _total(hand[cur]) < H:
                    hand[cur] += np.int64(1) << (4 * (deck[draw] % 13))
                    draw += 1
                    left[cur] += 1
            elif source == 1:
                up[cur] -= np.int64(k) << (4 * r)
            if trace:
                moves[turns - 1] = ((cur * 4 + source) * 16 + r) * 128 + k
            for _ in range(k):
                pile[pile_n] = r
                pile_n += 1
            pile_c += np.int64(k) << (4 * r)
            fresh_rule = False                        # the pile is not empty now
            for i in range(4):
                if r == _SPECIAL_RANKS[i]:
                    g[G_PLAYED + i] += k
            fewest, leading = _fewer(left, cur, fewest, leading)
            hist[turns - 1] = leading
            if hand[cur] == 0 and up[cur] == 0 and down_i[cur] == ROW:
                winner = cur
                break
            # --- the card's effect (3)
            if r == THREE:
                pile_n -= k                           # the 3s leave the game
                pile_c -= np.int64(k) << (4 * THREE)
                pending = True
                cur = _next(cur, dirn, N)
            elif r == TEN:
                pile_n = 0
                pile_c = np.int64(0)
                if rules[R.OPENING] == OpeningCode.EVERY:
                    fresh_rule = True
                if rules[R.AFTER_BURN] == AfterBurnCode.NEXT:
                    cur = _next(cur, dirn, N)
            else:
                if r == SEVEN and rules[R.SEVEN_REVERSES] == 1 and k % 2 == 1:
                    dirn = -dirn                      # each 7 reverses: a pair does not
                cur = _next(cur, dirn, N)
    _record_end(g, turns, winner, starter, N, hand, up, down_i, hist)
    return hist


@kernel(inline=True)
def _count_all(a, b):
    return _total(a) + _total(b)


@kernel
def _lanes(lo, hi, start, count, key, rules, kinds, params, grec, trace, moves):
    """Blocks ``lo .. hi-1`` of :func:`run_games` (its arguments)."""
    st = np.empty(2, np.uint64)
    deck = np.empty(104, np.int64)
    down = np.empty((MAXP, ROW), np.int64)
    pile = np.empty(104, np.int64)
    row = np.empty(1, np.int64)
    hand = np.empty(MAXP, np.int64)
    up = np.empty(MAXP, np.int64)
    down_i = np.empty(MAXP, np.int64)
    cards = np.empty(8, np.int64)
    left = np.empty(MAXP, np.int64)
    hist = lead.new_history()
    for b in range(lo, hi):
        for j in block(b, count, BLOCK):
            start_stream(st, key, start + j)
            mv = row
            if trace:
                for t in range(moves.shape[1]):
                    moves[j, t] = -1
                mv = moves[j]
            # one call site, one compiled signature (the trace or a dummy row); not
            # inlined: that compiled 2.6 times as long for about 5% more speed
            hist = play_game(st, rules, kinds, params, grec[j], mv, trace, deck, down, pile,
                             hand, up, down_i, cards, left, hist)


_Ints = npt.NDArray[np.integer[Any]]    # the api's arrays (their dtypes: the api's)


def run_games(start: int, count: int, key: np.uint64, rules: _Ints, kinds: _Ints, params: _Ints,
              grec: _Ints, trace: bool, moves: _Ints) -> None:
    """Play games ``start .. start+count-1`` (stream = game number) into ``grec[j]``;
    with ``trace`` each game's move codes into ``moves[j]`` (padded with -1).
    Blocks of them go to threads (:func:`simkit.base.jit.in_lanes`)."""
    in_lanes(_lanes, -(-count // BLOCK), start, count, key, rules, kinds, params, grec, trace,
             moves)
