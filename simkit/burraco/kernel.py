"""Burraco in numba: the rules of ``seeds/burraco.md``, arrays in, arrays out.

A hand row is a 0/1 flag per card id followed by the same as two bit words,
so it is walked in increasing id (as the policies require) visiting only its
cards; a team's melds are rows of card ids ending in a summary (the rank or
suit of their natural cards, the places held) that turns most cards away
before a full check.  Meld
validity is decided here from the rule book (section 3), independently of
``melds.py``: a set by its one natural rank and its wild count, a sequence by
trying each way to read its aces and its 2s of the suit and checking that the
natural places with the wild cards fill a run of at most 13 places.  All
decisions are those of seeds/burraco.md section 9.

Entry points: :func:`run_hands` plays hands ``start .. start+count-1`` of a
run (hand ``i`` dealt by seat ``i mod 4``), one random stream each, into hand
records (columns ``H_*``), with an optional trace of every decision;
:func:`run_games` plays whole games (columns ``G_*``).
The readable twin is ``reference.py``; the two never share code.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.bits import high_bit, low_bit, popcount
from simkit.burraco.policies import PARAM, Order
from simkit.burraco.rules import Pozzetto, R, StockEnd, Tie, UntakenPozzetto
from simkit.jit import block, blocks, kernel
from simkit.lead import new_history, note, summary
from simkit.policy import RANDOM
from simkit.rng import bounded, shuffle, start_stream

N_CARDS = 108
FIRST_JOKER = 104
MAXM = 40            # melds per team (108 cards make at most 36 melds)
MAXC = 19            # a meld row: its cards (a sequence holds at most 13), then a summary:
M_N = 13             # how many cards it holds
M_KIND = 14          # MELD_SET or MELD_SEQUENCE
M_WILDS = 15         # its wild cards (jokers and every 2, as the policies see them)
M_KEY = 16           # the rank (set) or suit (sequence) of its natural cards, -1 if none
M_OCC = 17           # sequence: bit q for each natural non-ace card's place q, bit 0 an ace
M_SUM = 18           # kind, key, wild cards and places packed in one word (_fits)
MELD_SET, MELD_SEQUENCE = 0, 1     # a meld row's kind
BLOCK = 64           # hands per prange task
GAME_BLOCK = 4       # whole games per prange task

# hand record columns
H_DEALER, H_TURNS, H_ENDED, H_CLOSER = range(4)
H_SCORE, H_MELDED, H_PENALTY, H_CLEAN, H_DIRTY, H_BONUS, H_CLOSE_BONUS, H_POZZ_PEN, \
    H_POZZ_TURN, H_MELDS, H_SETS, H_SEQUENCES, H_WILDS = (4 + 2 * i for i in range(13))
N_HCOLS = 30
ENDED_CLOSED, ENDED_STOCK, ENDED_CAP = range(3)
# game record columns
G_FIRST_DEALER, G_HANDS, G_SCORE, G_WINNER, G_SHARED, G_UNFINISHED = 0, 1, 2, 4, 5, 6
G_LEAD_CHANGES, G_COMEBACK, G_SETTLED = 7, 8, 9     # who led, hand by hand (simkit.lead)
N_GCOLS = 10


def _points_table() -> np.ndarray:
    pts = np.zeros(N_CARDS, np.int64)
    by_pos = (15, 20, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)
    for c in range(N_CARDS):
        pts[c] = 30 if c >= FIRST_JOKER else by_pos[c % 13]
    return pts


POINTS = _points_table()


@kernel(inline=True)
def _wild(c):
    return c >= FIRST_JOKER or c % 13 == 1


@kernel(inline=True)
def _place(c):
    """A natural card's place for the policies: 3..13, the ace 14."""
    p = c % 13
    return 14 if p == 0 else p + 1


@kernel(inline=True)
def _valid_set(cards, n, rules):
    """(valid, clean) of ``cards[:n]`` as a set (section 3)."""
    if n < 3 or n > 9:
        return False, False
    rank = -1
    jokers = 0
    twos = 0
    for i in range(n):
        c = cards[i]
        if c >= FIRST_JOKER:
            jokers += 1
        elif c % 13 == 1:
            twos += 1
        elif rank < 0:
            rank = c % 13
        elif c % 13 != rank:
            return False, False
    if rank >= 0:
        w = jokers + twos
        return w <= 1, w == 0
    if rules[R.TWOS_SET] and jokers <= 1:
        return True, jokers == 0
    return False, False


@kernel(inline=True)
def _valid_seq_suit(cards, n, rules, s):
    """(valid, clean) of ``cards[:n]`` as a sequence of suit ``s``: the cards
    summed up here, the run judged by :func:`_run_reading`."""
    occ = np.int64(0)             # places 3..13 held by natural non-ace cards
    aces = 0
    twos_s = 0
    wild = 0
    for i in range(n):
        c = cards[i]
        if c >= FIRST_JOKER:
            wild += 1
            continue
        f = c % 52
        p = f % 13
        if p == 1:
            if f // 13 == s:
                twos_s += 1
            else:
                wild += 1
            continue
        if f // 13 != s:
            return False, False
        if p == 0:
            aces += 1
            continue
        bit = np.int64(1) << (p + 1)
        if occ & bit:
            return False, False
        occ |= bit
    if aces > 1:
        return False, False
    return _run_reading(occ, aces, twos_s, wild, rules[R.SEQUENCE_WILDS])


@kernel
def _run_reading(occ, aces, twos_s, wild, max_wilds):
    """(valid, clean) of a sequence whose natural non-ace places are ``occ``
    (bit q for place q), with ``aces`` (0 or 1) aces, ``twos_s`` 2s of its suit
    and ``wild`` other wild cards: each way to read the ace (1 or 14) and a 2
    of the suit (in its place, or wild) is tried.  Scalars only: a call that
    passes arrays costs reference counting."""
    valid = False
    clean = False
    for ace_at in (1, 14):
        if aces == 0 and ace_at == 14:
            continue
        for nat2 in range(2):
            if nat2 == 1 and twos_s == 0:
                continue
            m = occ
            if aces == 1:
                m |= np.int64(1) << ace_at
            if nat2 == 1:
                m |= np.int64(1) << 2
            w = wild + twos_s - nat2
            if m == 0 or w > max_wilds:
                continue
            k = popcount(m)                # places 1..14 held by natural cards
            lo = low_bit(m)
            hi = high_bit(m)
            length = k + w
            if hi - lo + 1 - k <= w and length <= 13 and length >= 3:
                valid = True
                if w == 0:
                    clean = True
    return valid, clean


@kernel(inline=True)
def _valid(cards, n, kind, rules):
    """(valid, clean) of ``cards[:n]`` as a meld of ``kind`` (MELD_SET or MELD_SEQUENCE)."""
    if kind == MELD_SET:
        return _valid_set(cards, n, rules)
    # the suit: that of the natural non-2 cards, else any 2's suit
    suit = -1
    for i in range(n):
        c = cards[i]
        if c < FIRST_JOKER and c % 13 != 1:
            suit = (c % 52) // 13
            break
    if suit >= 0:
        return _valid_seq_suit(cards, n, rules, suit)
    valid = False
    clean = False
    for s in range(4):
        has = False
        for i in range(n):
            c = cards[i]
            if c < FIRST_JOKER and (c % 52) // 13 == s:
                has = True
        if has:
            v, cl = _valid_seq_suit(cards, n, rules, s)
            valid = valid or v
            clean = clean or (v and cl)
    return valid, clean


# Helpers called in the hot loops take scalars, not arrays: an array argument
# (or a row of one, which is a view) costs reference counting at every call,
# inlined or not.

@kernel(inline=True)
def _summary(kind, key, wilds, occ):
    """A meld's ``M_SUM``: its kind, key + 1, wild cards and places in one word."""
    return kind | ((key + 1) << 1) | (wilds << 5) | (occ << 16)


@kernel(inline=True)
def _fits(summary, c):
    """Whether card ``c`` extends the meld of ``summary`` (``M_SUM``; see
    ``M_KEY``): 1 yes, 0 no, -1 only a full check (:func:`_extends`) can tell.

    Another rank or suit, a place already taken, a second ace or a place too far
    from a sequence's to be reached is a no; a natural card of a set's rank
    always fits (8 naturals and a wild card at most); a meld without wild cards
    is a run of natural places that a natural card extends only at either end
    (the ace only above the K)."""
    kind = summary & 1
    key = ((summary >> 1) & 15) - 1
    wilds = (summary >> 5) & 15
    occ = summary >> 16
    if _wild(c) or key < 0:
        return -1
    if kind == MELD_SET:
        return 1 if c % 13 == key else 0
    if (c % 52) // 13 != key:
        return 0
    places = occ & ~np.int64(1)
    if c % 13 == 0:
        if occ & 1:
            return 0
        if wilds == 0:
            return 1 if places != 0 and high_bit(places) == 13 else 0
        return -1
    q = c % 13 + 1
    if (occ >> q) & 1:
        return 0
    if places:
        lo = low_bit(places)
        hi = high_bit(places)
        if wilds == 0:
            return 1 if q == lo - 1 or q == hi + 1 else 0
        if q < lo - 3 or q > hi + 3:
            return 0
    return -1


@kernel(inline=True)
def _extends(mcards, t, m, c, rules, buf):
    """Whether team ``t``'s meld ``m`` with card ``c``
    added is valid, by the full check of the meld (callers ask :func:`_fits`
    first, from the meld's summary)."""
    size = mcards[t, m, M_N]
    for i in range(size):
        buf[i] = mcards[t, m, i]
    buf[size] = c
    ok, _ = _valid(buf, size + 1, mcards[t, m, M_KIND], rules)
    return ok


@kernel
def _table_points(team, mcards, z, rules, buf):
    """Melded card points plus burraco bonuses of a team's table."""
    total = 0
    for m in range(z[Z_MCOUNT + team]):
        n = mcards[team, m, M_N]
        for i in range(n):
            total += POINTS[mcards[team, m, i]]
        if n >= 7:
            for i in range(n):
                buf[i] = mcards[team, m, i]
            _, clean = _valid(buf, n, mcards[team, m, M_KIND], rules)
            total += 200 if clean else 100
    return total


@kernel(inline=True)
def _has_burraco(team, z, mcards):
    for m in range(z[Z_MCOUNT + team]):
        if mcards[team, m, M_N] >= 7:
            return True
    return False


# The scalar state of a hand, kept in one array so that helpers can change it
# (and pass one array, not many: each array argument costs reference
# counting): the stock's next position, the pile's size, the next pozzetto,
# turns, keep, going out, trace length, the direct way only; then per seat
# its hand's size (Z_HN + seat), and per team the turn it took its pozzetto
# (Z_POZZ + team, -1 none), which one it took (Z_WHICH + team) and how many
# melds it has (Z_MCOUNT + team).
Z_SP, Z_PN, Z_POZZ_NEXT, Z_TURNS, Z_KEEP, Z_CLOSING, Z_NTRACE, Z_DIRECT_ONLY = range(8)
Z_HN = 8
Z_POZZ = 12
Z_WHICH = 14
Z_MCOUNT = 16
N_Z = 18


@kernel
def _trace_meld(tr, z, p, kind, cards, n):
    """A new meld's codes: its kind and size, then its cards in increasing id."""
    _trace(tr, z, p * 1_000_000 + 4_000 + 100 * kind + n)
    last = -1
    for _ in range(n):
        nxt = N_CARDS
        for i in range(n):
            if last < cards[i] < nxt:
                nxt = cards[i]
        _trace(tr, z, p * 1_000_000 + 5_000 + nxt)
        last = nxt


@kernel(inline=True)
def _trace(tr, z, code):
    """Append a decision code (see reference.HandLog.decision_codes) when
    tracing (``tr`` longer than 1); codes past the end of ``tr`` are dropped."""
    if tr.shape[0] > 1:
        if z[Z_NTRACE] < tr.shape[0]:
            tr[z[Z_NTRACE]] = code
        z[Z_NTRACE] += 1


@kernel(inline=True)
def _keep_for(p, kind, prm, z, rules, mcards, st, buf, tr):
    """Fix ``keep`` and the going-out choice (section 9) in ``z``, and trace it."""
    _fix_keep(p, kind, prm, z, rules, mcards, st, buf)
    _trace(tr, z, p * 1_000_000 + 3_000 + z[Z_KEEP])


@kernel(inline=True)
def _fix_keep(p, kind, prm, z, rules, mcards, st, buf):
    team = p % 2
    z[Z_CLOSING] = 0
    if z[Z_POZZ + team] < 0:
        way = rules[R.POZZETTO]
        if way == Pozzetto.DIRECT:
            z[Z_KEEP] = 0
        elif way == Pozzetto.DISCARD:
            z[Z_KEEP] = 1
        elif kind == RANDOM:
            z[Z_KEEP] = bounded(st, 2)
        else:
            z[Z_KEEP] = 0
        return
    if prm[PARAM.CLOSE_AFTER] == 0 and _has_burraco(team, z, mcards) and \
            _wants_out(team, kind, prm, rules, mcards, z, st, buf):
        z[Z_KEEP] = 1
        z[Z_CLOSING] = 1
        return
    z[Z_KEEP] = 2


@kernel(inline=True)
def _wants_out(team, kind, prm, rules, mcards, z, st, buf):
    """The going-out choice (section 9): random by a draw, else on table points."""
    if kind == RANDOM:
        return bounded(st, 2) == 1
    ours = _table_points(team, mcards, z, rules, buf)
    theirs = _table_points(1 - team, mcards, z, rules, buf)
    return ours >= theirs - prm[PARAM.CLOSE_MARGIN]


@kernel(inline=True)
def _can_remove(hand, p, removed, k, z):
    """Whether the hand may give up the ``k`` cards in ``removed`` (keep, section 9)."""
    rest = z[Z_HN + p] - k
    if rest < z[Z_KEEP]:
        return False
    if z[Z_KEEP] == 0 and rest == 1 and z[Z_DIRECT_ONLY] == 1:
        return False                  # the discard would empty the hand: no such way
    if rest == 1 and z[Z_CLOSING] == 1:
        for c in range(N_CARDS):          # the one card left must be natural
            if hand[p, c]:
                gone = False
                for i in range(k):
                    if removed[i] == c:
                        gone = True
                if not gone:
                    return not _wild(c)
    return True


@kernel(inline=True)
def _remove_into_meld(hand, z, p, cards, k, team, m, mcards):
    """Move ``cards[:k]`` from the hand onto meld ``m`` (and the team's table
    row, ``TABLE + team``) and refresh the meld's summary."""
    for i in range(k):
        _take(hand, p, cards[i])
        _give(hand, TABLE + team, cards[i])
        mcards[team, m, mcards[team, m, M_N]] = cards[i]
        mcards[team, m, M_N] += 1
    z[Z_HN + p] -= k
    key = -1
    occ = np.int64(0)
    wilds = 0
    for i in range(mcards[team, m, M_N]):
        d = mcards[team, m, i]
        if _wild(d):
            wilds += 1
            continue
        if mcards[team, m, M_KIND] == MELD_SET:
            key = d % 13
        else:
            key = (d % 52) // 13
            occ |= np.int64(1) if d % 13 == 0 else np.int64(1) << (d % 13 + 1)
    mcards[team, m, M_WILDS] = wilds
    mcards[team, m, M_KEY] = key
    mcards[team, m, M_OCC] = occ
    mcards[team, m, M_SUM] = _summary(mcards[team, m, M_KIND], key, wilds, occ)


@kernel
def _after_removal(p, hand, z, deck, kind, prm, rules, mcards, st, buf, tr):
    """An empty hand while melding: the direct pozzetto, then ``keep`` again."""
    if z[Z_HN + p] > 0:
        return
    team = p % 2
    first = 44 + 11 * z[Z_POZZ_NEXT]
    z[Z_POZZ_NEXT] += 1
    z[Z_POZZ + team] = z[Z_TURNS]
    for i in range(11):
        _give(hand, p, deck[first + i])
    z[Z_HN + p] = 11
    _trace(tr, z, p * 1_000_000 + 2_000 + (z[Z_POZZ_NEXT] - 1))
    _keep_for(p, kind, prm, z, rules, mcards, st, buf, tr)


# A hand row is the 0/1 flag of each card id, then the same as two bit words
# (ids 0..63 and 64..107) so that listing the hand visits only its cards.
# Rows 0..3 are the seats' hands; in the same form, rows TABLE + team hold
# each team's melded cards and row PILE the discard pile's (what every seat
# has seen, for the discard's risk).
HW = N_CARDS
TABLE = 4
PILE = 6
HAND_ROWS = 7


def _wild_words() -> np.ndarray:
    words = np.zeros(2, np.int64)
    for c in range(N_CARDS):
        if c >= FIRST_JOKER or c % 13 == 1:
            words[c >> 6] |= np.int64(1) << np.int64(c & 63)
    return words


WILD_WORDS = _wild_words()


def _natural_words() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bit words of the natural cards: all, by rank position, by suit."""
    every = np.zeros(2, np.int64)
    rank = np.zeros((13, 2), np.int64)
    suit = np.zeros((4, 2), np.int64)
    for c in range(FIRST_JOKER):
        if c % 13 == 1:
            continue
        bit = np.int64(1) << np.int64(c & 63)
        every[c >> 6] |= bit
        rank[c % 13, c >> 6] |= bit
        suit[(c % 52) // 13, c >> 6] |= bit
    return every, rank, suit


NATURAL_WORDS, RANK_WORDS, SUIT_WORDS = _natural_words()


def _link_words() -> np.ndarray:
    """LINK_WORDS[face]: the natural cards (both copies) of a natural face's
    rank, or of its suit one or two places away (the discard's use and risk)."""
    def place(c):
        return 14 if c % 13 == 0 else c % 13 + 1
    words = np.zeros((52, 2), np.int64)
    for f in range(52):
        if f % 13 == 1:
            continue
        for c in range(FIRST_JOKER):
            if c % 13 == 1:
                continue
            d = c % 52
            if d % 13 == f % 13 or (d // 13 == f // 13 and 1 <= abs(place(d) - place(f)) <= 2):
                words[f, c >> 6] |= np.int64(1) << np.int64(c & 63)
    return words


LINK_WORDS = _link_words()


@kernel(inline=True)
def _count_in(h0, h1, w0, w1):
    """How many cards of the hand of words ``h0``, ``h1`` are in the set of words
    ``w0``, ``w1``."""
    return popcount(h0 & w0) + popcount(h1 & w1)


@kernel(inline=True)
def _rank_count(h0, h1, r):
    """Natural cards of rank position ``r`` in the hand of words ``h0``, ``h1``."""
    return _count_in(h0, h1, RANK_WORDS[r, 0], RANK_WORDS[r, 1])


@kernel(inline=True)
def _suit_count(h0, h1, s):
    """Natural cards of suit ``s`` in the hand of words ``h0``, ``h1``."""
    return _count_in(h0, h1, SUIT_WORDS[s, 0], SUIT_WORDS[s, 1])


@kernel(inline=True)
def _wild_count(h0, h1):
    """Wild cards in the hand of words ``h0``, ``h1``."""
    return _count_in(h0, h1, WILD_WORDS[0], WILD_WORDS[1])


@kernel(inline=True)
def _any_rank(h0, h1, k):
    """Whether the hand of words ``h0``, ``h1`` holds ``k`` natural cards of some rank."""
    for r in range(13):
        if r != 1 and _rank_count(h0, h1, r) >= k:
            return True
    return False


@kernel(inline=True)
def _any_suit(h0, h1, k):
    """Whether the hand of words ``h0``, ``h1`` holds ``k`` natural cards of some suit."""
    for s in range(4):
        if _suit_count(h0, h1, s) >= k:
            return True
    return False


@kernel(inline=True)
def _next_candidate(h0, h1, last, kind, key):
    """The lowest-id natural card above ``last`` of a hand (words ``h0``, ``h1``)
    that could extend a meld of ``kind`` whose natural cards have rank or suit
    ``key`` (-1: any), or -1."""
    for w in range(2):
        h = h0 if w == 0 else h1
        if key < 0:
            bits = h & NATURAL_WORDS[w]
        elif kind == MELD_SET:
            bits = h & RANK_WORDS[key, w]
        else:
            bits = h & SUIT_WORDS[key, w]
        while bits:
            c = 64 * w + trailing_zeros(bits)
            if c > last:
                return c
            bits &= bits - 1
    return -1


@kernel(inline=True)
def _lowest_wild(h0, h1):
    """The lowest-id wild card of the hand of words ``h0``, ``h1``, or -1."""
    if h0 & WILD_WORDS[0]:
        return trailing_zeros(h0 & WILD_WORDS[0])
    if h1 & WILD_WORDS[1]:
        return 64 + trailing_zeros(h1 & WILD_WORDS[1])
    return -1


@kernel(inline=True)
def _give(hand, p, c):
    hand[p, c] = 1
    hand[p, HW + (c >> 6)] |= np.int64(1) << (c & 63)


@kernel(inline=True)
def _take(hand, p, c):
    hand[p, c] = 0
    hand[p, HW + (c >> 6)] &= ~(np.int64(1) << (c & 63))


@kernel(inline=True)
def _hand_list(hand, p, hl, above):
    """The hand's card ids above ``above``, increasing, into ``hl``; returns how many."""
    n = 0
    for w in range(2):
        bits = hand[p, HW + w]
        while bits:
            c = 64 * w + trailing_zeros(bits)
            bits &= bits - 1
            if c > above:
                hl[n] = c
                n += 1
    return n


@kernel
def _meld(p, hand, z, deck, kind, prm, rules, mcards, st,
          buf, one, tr, hl, at):
    """The melding steps of section 9, repeated until a pass changes nothing.

    Cards are walked in increasing id through ``hl``, a list of the hand's ids;
    a pozzetto taken directly mid-walk is walked on from the current id."""
    team = p % 2
    changed = True
    while changed:
        changed = False
        # 1. natural cards onto the team's melds (the hand's candidates for each meld
        # in increasing id; after a direct pozzetto, the new hand's cards above)
        for m in range(z[Z_MCOUNT + team]):
            last = -1
            while True:
                c = _next_candidate(hand[p, HW], hand[p, HW + 1], last, mcards[team, m, M_KIND],
                                    mcards[team, m, M_KEY])
                if c < 0:
                    break
                last = c
                f = _fits(mcards[team, m, M_SUM], c)
                if f == 1 or (f < 0 and _extends(mcards, team, m, c, rules, buf)):
                    one[0] = c
                    if _can_remove(hand, p, one, 1, z):
                        _remove_into_meld(hand, z, p, one, 1, team, m, mcards)
                        _trace(tr, z, p * 1_000_000 + 100_000 + 1_000 * m + c)
                        changed = True
                        if z[Z_HN + p] == 0:
                            _after_removal(p, hand, z, deck, kind, prm, rules,
                                           mcards, st, buf, tr)
        # 2-3. new melds, sets or sequences first.  Each step is called only when
        # the hand holds enough cards for it: a call passes many arrays, and
        # each costs reference counting.
        for step in range(2):
            if (step == 0) == (prm[PARAM.ORDER] == Order.SETS):
                if _any_rank(hand[p, HW], hand[p, HW + 1], prm[PARAM.OPEN_AT]):
                    changed |= _lay_sets(p, hand, z, deck, kind, prm, rules, mcards,
                                         st, buf, tr)
            elif _any_suit(hand[p, HW], hand[p, HW + 1], prm[PARAM.OPEN_AT]):
                changed |= _lay_runs(p, hand, z, deck, kind, prm, rules, mcards, st, buf, tr, at)
        # 3b. sequences begun with a wild card
        starts = prm[PARAM.WILD_START]
        if starts > 0 and _wild_count(hand[p, HW], hand[p, HW + 1]) >= starts \
                and _any_suit(hand[p, HW], hand[p, HW + 1], 2):
            changed |= _wild_runs(p, hand, z, deck, kind, prm, rules, mcards, st, buf, tr, at)
        # 4. wild cards
        for m in range(z[Z_MCOUNT + team]):
            n = mcards[team, m, M_N]
            if n < prm[PARAM.WILD_AT] or mcards[team, m, M_WILDS] > 0:
                continue
            if n >= prm[PARAM.WILD_GUARD] and not _guard_lets(p, team, n, z, prm, mcards):
                continue
            w = _lowest_wild(hand[p, HW], hand[p, HW + 1])
            if w >= 0 and _extends(mcards, team, m, w, rules, buf):
                one[0] = w
                if _can_remove(hand, p, one, 1, z):
                    _remove_into_meld(hand, z, p, one, 1, team, m, mcards)
                    _trace(tr, z, p * 1_000_000 + 100_000 + 1_000 * m + w)
                    changed = True
                    if z[Z_HN + p] == 0:
                        _after_removal(p, hand, z, deck, kind, prm, rules, mcards,
                                       st, buf, tr)


@kernel(inline=True)
def _new_meld(p, cards, k, meld_kind, hand, z, deck, kind, prm, rules, mcards, st, buf, tr):
    """Lay ``cards[:k]`` from the hand as a new meld, taking the pozzetto if that
    empties the hand."""
    team = p % 2
    m = z[Z_MCOUNT + team]
    z[Z_MCOUNT + team] += 1
    mcards[team, m, M_KIND] = meld_kind
    mcards[team, m, M_N] = 0
    _remove_into_meld(hand, z, p, cards, k, team, m, mcards)
    if tr.shape[0] > 1:
        _trace_meld(tr, z, p, meld_kind, mcards[team, m], k)
    if z[Z_HN + p] == 0:
        _after_removal(p, hand, z, deck, kind, prm, rules, mcards, st, buf, tr)


@kernel
def _lay_sets(p, hand, z, deck, kind, prm, rules, mcards, st,
              buf, tr):
    """Step 2: each rank's natural cards, when there are ``open_at``, as a set."""
    changed = False
    for r in range(13):
        if r == 1 or _rank_count(hand[p, HW], hand[p, HW + 1], r) < prm[PARAM.OPEN_AT]:
            continue
        k = 0
        for w in range(2):
            bits = hand[p, HW + w] & RANK_WORDS[r, w]
            while bits:
                buf[k] = 64 * w + trailing_zeros(bits)
                k += 1
                bits &= bits - 1
        if _can_remove(hand, p, buf, k, z):
            _new_meld(p, buf, k, MELD_SET, hand, z, deck, kind, prm, rules, mcards,
                      st, buf, tr)
            changed = True
    return changed


@kernel(inline=True)
def _places(hand, p, s, at):
    """``at[q]``: the hand's lowest-id natural card of suit ``s`` at place ``q``, or -1."""
    for q in range(15):
        at[q] = -1
    for w in range(2):
        bits = hand[p, HW + w] & SUIT_WORDS[s, w]
        while bits:
            c = 64 * w + trailing_zeros(bits)
            bits &= bits - 1
            q = _place(c)
            if at[q] < 0:
                at[q] = c


@kernel
def _lay_runs(p, hand, z, deck, kind, prm, rules, mcards, st,
              buf, tr, at):
    """Step 3: per suit, the longest run of places (the highest of a tie) while it
    has ``open_at`` cards, as a sequence."""
    changed = False
    for s in range(4):
        while _suit_count(hand[p, HW], hand[p, HW + 1], s) >= prm[PARAM.OPEN_AT]:
            _places(hand, p, s, at)
            best_len = 0
            best_hi = 0
            run = 0
            for q in range(3, 15):
                run = run + 1 if at[q] >= 0 else 0
                if run >= best_len and run > 0:
                    best_len = run
                    best_hi = q
            if best_len < prm[PARAM.OPEN_AT]:
                break
            k = 0
            for q in range(best_hi - best_len + 1, best_hi + 1):
                buf[k] = at[q]
                k += 1
            if not _can_remove(hand, p, buf, k, z):
                break
            _new_meld(p, buf, k, MELD_SEQUENCE, hand, z, deck, kind, prm, rules,
                      mcards, st, buf, tr)
            changed = True
    return changed


@kernel
def _wild_runs(p, hand, z, deck, kind, prm, rules, mcards, st,
               buf, tr, at):
    """Step 3b: per suit, while the hand holds ``wild_start`` wild cards, the two
    natural cards at most two places apart with the highest top place (the closer
    pair first) and the lowest wild card, as a sequence."""
    changed = False
    for s in range(4):
        while True:
            # (a pozzetto taken by a new meld may bring wild cards)
            if _wild_count(hand[p, HW], hand[p, HW + 1]) < prm[PARAM.WILD_START] or \
                    _suit_count(hand[p, HW], hand[p, HW + 1], s) < 2:
                break
            w = _lowest_wild(hand[p, HW], hand[p, HW + 1])
            _places(hand, p, s, at)
            lo = -1
            hi = -1
            for q in range(14, 3, -1):
                if at[q] >= 0:
                    if at[q - 1] >= 0:
                        lo = at[q - 1]
                    elif q - 2 >= 3 and at[q - 2] >= 0:
                        lo = at[q - 2]
                    if lo >= 0:
                        hi = at[q]
                        break
            if hi < 0:
                break
            buf[0] = lo
            buf[1] = hi
            buf[2] = w
            ok, _ = _valid(buf, 3, MELD_SEQUENCE, rules)
            if not ok or not _can_remove(hand, p, buf, 3, z):
                break
            _new_meld(p, buf, 3, MELD_SEQUENCE, hand, z, deck, kind, prm, rules,
                      mcards, st, buf, tr)
            changed = True
    return changed


@kernel(inline=True)
def _guard_lets(p, team, n, z, prm, mcards):
    """Step 4's guard (section 9.1), for a clean meld of ``n`` >= ``wild_guard``
    cards (step 4 itself: a wild card onto a meld holding none, of at least
    ``wild_at`` cards): a wild card only to make the team's first burraco once
    it has its pozzetto with at most three cards in hand, when the hand is
    ending (the stock down to ``end_stock``; with ``end_threat`` the opponents
    able to go out), or to leave at most one card when going out (or, with
    ``pozzetto_wild``, for the pozzetto)."""
    if n == 6 and z[Z_HN + p] <= 3 and z[Z_POZZ + team] >= 0 and not _has_burraco(team, z, mcards):
        return True
    if N_CARDS - z[Z_SP] <= prm[PARAM.END_STOCK]:
        return True
    if prm[PARAM.END_THREAT] and z[Z_POZZ + 1 - team] >= 0 and _has_burraco(1 - team, z, mcards):
        return True
    if z[Z_HN + p] > 2:
        return False
    return z[Z_CLOSING] == 1 or (prm[PARAM.POZZETTO_WILD] and z[Z_POZZ + team] < 0)


@kernel(inline=True)
def _take_pile(p, hand, pile, z, kind, prm, mcards, rules, st, buf, hl):
    """The draw decision (section 9): True to take the discard pile."""
    pn = z[Z_PN]
    if pn == 0:
        return False
    if kind == RANDOM:
        return bounded(st, 2) == 1
    if pn >= prm[PARAM.TAKE_AT]:
        return True
    top = pile[pn - 1]
    if _wild(top):
        return False
    team = p % 2
    for m in range(z[Z_MCOUNT + team]):
        f = _fits(mcards[team, m, M_SUM], top)
        if f == 1 or (f < 0 and _extends(mcards, team, m, top, rules, buf)):
            return True
    same = 0
    near = 0                                   # places held in the top card's suit
    s = (top % 52) // 13
    n = _hand_list(hand, p, hl, -1)
    for i in range(n):
        c = hl[i]
        if not _wild(c):
            if c % 13 == top % 13:
                same += 1
            if (c % 52) // 13 == s:
                near |= 1 << _place(c)
    if same >= 2:
        return True
    q = _place(top)
    for lo in range(q - 2, q + 1):            # three consecutive places holding q
        if lo < 3 or lo + 2 > 14:
            continue
        ok = True
        for x in range(lo, lo + 3):
            if x != q and not (near >> x) & 1:
                ok = False
        if ok:
            return True
    return False


@kernel(inline=True)
def _discard_choice(p, hand, kind, prm, z, mcards, rules, st, buf, hl,
                    unseen):
    """The card to discard (section 9); ``unseen`` (two words) is scratch."""
    if kind == RANDOM:
        return _nth_card(hand, p, bounded(st, z[Z_HN + p]))
    n = _hand_list(hand, p, hl, -1)
    guard = z[Z_PN] >= prm[PARAM.GUARD_PILE]
    if guard:
        # the risk (section 9.1): natural cards not in hand, on the table or in the pile
        for w in range(2):
            seen = hand[p, HW + w] | hand[TABLE, HW + w] | hand[TABLE + 1, HW + w] \
                | hand[PILE, HW + w]
            unseen[w] = NATURAL_WORDS[w] & ~seen
    opp = 1 - p % 2
    best = -1
    best_key = (2, 2, 1 << 30, 1 << 30, 1 << 30, 1 << 30)
    for i in range(n):
        c = hl[i]
        wild = _wild(c)
        feeds = 0
        use = 0
        risk = 0
        if not wild:
            for m in range(z[Z_MCOUNT + opp]):
                f = _fits(mcards[opp, m, M_SUM], c)
                if f == 1 or (f < 0 and _extends(mcards, opp, m, c, rules, buf)):
                    feeds = 1
                    break
            l0 = LINK_WORDS[c % 52, 0]
            l1 = LINK_WORDS[c % 52, 1]
            use = _count_in(hand[p, HW], hand[p, HW + 1], l0, l1) - 1
            if guard:
                risk = popcount(unseen[0] & l0) + popcount(unseen[1] & l1)
        key = (feeds, 1 if wild else 0, risk, use, -POINTS[c], c)
        if key < best_key:
            best_key = key
            best = c
    return best


@kernel(inline=True)
def _nth_card(hand, p, k):
    for c in range(N_CARDS):
        if hand[p, c]:
            if k == 0:
                return c
            k -= 1
    return -1


@kernel(inline=True)
def _deal(st, dealer, deck, hand, pile, z):
    """Shuffle and deal (section 1): eleven cards to each seat from the dealer's
    left, two pozzetti of eleven, one card face up on the discard pile."""
    shuffle(st, deck)
    for q in range(44):
        seat = (dealer + 1 + q % 4) % 4
        _give(hand, seat, deck[q])
        z[Z_HN + seat] += 1
    pile[0] = deck[66]
    _give(hand, PILE, deck[66])
    z[Z_SP] = 67
    z[Z_PN] = 1


@kernel(inline=True)
def _score_team(t, dealer, closer, rules, deck, hand, mcards, z, buf, rec):
    """Team ``t``'s score and its parts (section 6) into ``rec``, and what its
    table holds (section 8): sets, sequences, wild cards (every 2 and joker)."""
    melded = 0
    clean = 0
    dirty = 0
    sets = 0
    sequences = 0
    wilds = 0
    for m in range(z[Z_MCOUNT + t]):
        n = mcards[t, m, M_N]
        if mcards[t, m, M_KIND] == MELD_SET:
            sets += 1
        else:
            sequences += 1
        for i in range(n):
            melded += POINTS[mcards[t, m, i]]
            buf[i] = mcards[t, m, i]
            if _wild(mcards[t, m, i]):
                wilds += 1
        if n >= 7:
            _, cl = _valid(buf, n, mcards[t, m, M_KIND], rules)
            if cl:
                clean += 1
            else:
                dirty += 1
    penalty = 0
    for seat in (t, t + 2):
        for c in range(N_CARDS):
            if hand[seat, c]:
                penalty -= POINTS[c]
    pen = 0
    if z[Z_POZZ + t] < 0:
        if rules[R.UNTAKEN_POZZETTO] == UntakenPozzetto.FLAT:
            pen = -100
        else:   # the one the other team did not take; with none taken, the first
                # is the starting team's (left of the dealer), the second the other's
            if z[Z_WHICH + 1 - t] >= 0:
                which = 1 - z[Z_WHICH + 1 - t]
            else:
                which = 0 if t == (dealer + 1) % 2 else 1
            for i in range(11):
                pen -= POINTS[deck[44 + 11 * which + i]]
    close = rules[R.CLOSING_BONUS] if closer >= 0 and closer % 2 == t else 0
    bonus = 200 * clean + 100 * dirty
    rec[H_MELDED + t] = melded
    rec[H_PENALTY + t] = penalty
    rec[H_CLEAN + t] = clean
    rec[H_DIRTY + t] = dirty
    rec[H_BONUS + t] = bonus
    rec[H_CLOSE_BONUS + t] = close
    rec[H_POZZ_PEN + t] = pen
    rec[H_POZZ_TURN + t] = z[Z_POZZ + t]
    rec[H_MELDS + t] = z[Z_MCOUNT + t]
    rec[H_SETS + t] = sets
    rec[H_SEQUENCES + t] = sequences
    rec[H_WILDS + t] = wilds
    rec[H_SCORE + t] = melded + penalty + bonus + close + pen


@kernel
def play_hand(st, dealer, rules, kinds, params, rec, tr):
    """One hand (seeds/burraco.md sections 1-7) into the record row ``rec``; with a
    trace array longer than 1, every decision code into ``tr`` (-1 after the end)."""
    deck = np.arange(N_CARDS)
    hand = np.zeros((HAND_ROWS, N_CARDS + 2), np.int64)
    pile = np.empty(N_CARDS, np.int64)
    z = np.zeros(N_Z, np.int64)
    _deal(st, dealer, deck, hand, pile, z)
    z[Z_DIRECT_ONLY] = rules[R.POZZETTO] == Pozzetto.DIRECT
    for t in range(2):
        z[Z_POZZ + t] = -1
        z[Z_WHICH + t] = -1
    mcards = np.empty((2, MAXM, MAXC), np.int64)      # a row is set when its meld is laid
    buf = np.zeros(MAXC + 8, np.int64)
    one = np.zeros(1, np.int64)
    hl = np.zeros(N_CARDS, np.int64)
    at = np.zeros(15, np.int64)
    unseen = np.zeros(2, np.int64)
    for c in range(tr.shape[0]):
        tr[c] = -1
    ended = ENDED_CAP
    closer = -1
    last = False                              # this turn's draw left two cards in the stock
    p = (dealer + 1) % 4
    while z[Z_TURNS] < rules[R.MAX_TURNS]:
        z[Z_TURNS] += 1
        team = p % 2
        kind = kinds[p]
        prm = params[p]
        before = z[Z_POZZ_NEXT]
        # --- draw
        take = _take_pile(p, hand, pile, z, kind, prm, mcards, rules, st,
                          buf, hl)
        _trace(tr, z, p * 1_000_000 + 1_000 + (1 if take else 0))
        if take:
            for i in range(z[Z_PN]):
                _give(hand, p, pile[i])
                _take(hand, PILE, pile[i])
            z[Z_HN + p] += z[Z_PN]
            z[Z_PN] = 0
        else:
            _give(hand, p, deck[z[Z_SP]])
            z[Z_HN + p] += 1
            z[Z_SP] += 1
            if N_CARDS - z[Z_SP] == 2:        # section 5: the stock is down to two
                ended = ENDED_STOCK
                if rules[R.STOCK_END] == StockEnd.STOP:
                    break                     # play stops at once
                last = True                   # finish: the hand ends after this turn
        # --- meld
        _keep_for(p, kind, prm, z, rules, mcards, st, buf, tr)
        _meld(p, hand, z, deck, kind, prm, rules, mcards, st,
              buf, one, tr, hl, at)
        if prm[PARAM.CLOSE_AFTER] == 1 and z[Z_KEEP] == 2 and _has_burraco(team, z, mcards) \
                and _wants_out(team, kind, prm, rules, mcards, z, st, buf):
            # the choice to go out taken after melding: keep one card and meld on
            z[Z_KEEP] = 1
            z[Z_CLOSING] = 1
            _trace(tr, z, p * 1_000_000 + 3_000 + 1)
            _meld(p, hand, z, deck, kind, prm, rules, mcards, st,
                  buf, one, tr, hl, at)
        if z[Z_POZZ_NEXT] > before:
            z[Z_WHICH + team] = before
        # --- go out, or discard
        if z[Z_CLOSING] == 1 and z[Z_HN + p] == 1:
            c = _nth_card(hand, p, 0)
            if not _wild(c):
                _take(hand, p, c)
                z[Z_HN + p] = 0
                pile[z[Z_PN]] = c
                _give(hand, PILE, c)
                z[Z_PN] += 1
                _trace(tr, z, p * 1_000_000 + 7_000 + c)
                ended = ENDED_CLOSED
                closer = p
                break
        c = _discard_choice(p, hand, kind, prm, z, mcards, rules, st,
                            buf, hl, unseen)
        _take(hand, p, c)
        z[Z_HN + p] -= 1
        pile[z[Z_PN]] = c
        _give(hand, PILE, c)
        z[Z_PN] += 1
        _trace(tr, z, p * 1_000_000 + 6_000 + c)
        if z[Z_HN + p] == 0:                         # the pozzetto on the discard
            first = 44 + 11 * z[Z_POZZ_NEXT]
            z[Z_WHICH + team] = z[Z_POZZ_NEXT]
            z[Z_POZZ_NEXT] += 1
            z[Z_POZZ + team] = z[Z_TURNS]
            for i in range(11):
                _give(hand, p, deck[first + i])
            z[Z_HN + p] = 11
            _trace(tr, z, p * 1_000_000 + 2_000 + 10 + z[Z_WHICH + team])
        if last:
            break
        p = (p + 1) % 4
    # --- scoring (section 6)
    for c in range(N_HCOLS):
        rec[c] = 0
    rec[H_DEALER] = dealer
    rec[H_TURNS] = z[Z_TURNS]
    rec[H_ENDED] = ended
    rec[H_CLOSER] = closer
    for t in range(2):
        _score_team(t, dealer, closer, rules, deck, hand, mcards, z, buf, rec)


@kernel(parallel=True)
def run_hands(start, count, key, rules, kinds, params, rec, trace, tr):
    """Play hands ``start .. start+count-1`` (stream = hand number, dealer = hand
    mod 4) into ``rec[j]``; with ``trace`` every decision into ``tr[j]``."""
    for b in numba.prange(blocks(count, BLOCK)):
        st = np.empty(2, np.uint64)
        no = np.empty(1, np.int64)
        for j in block(b, count, BLOCK):
            start_stream(st, key, start + j)
            if trace:
                play_hand(st, (start + j) % 4, rules, kinds, params, rec[j], tr[j])
            else:
                play_hand(st, (start + j) % 4, rules, kinds, params, rec[j], no)


@kernel(inline=True)
def _game(st, rules, kinds, params, rec, no, g, hist):
    """One whole game (section 6) into the game row ``g``: the first dealer drawn,
    the deal passing left, until a team reaches the target (both: the higher
    wins; equal: ``tie``) or ``max_hands`` hands were played.  ``hist`` takes
    the top after each hand (:mod:`simkit.lead`); returned, grown if the game
    outlasted it, for the block's next game."""
    dealer = bounded(st, 4)
    g[G_FIRST_DEALER] = dealer
    s0 = 0
    s1 = 0
    hands = 0
    winner = -1
    shared = 0
    unfinished = 0
    while True:
        play_hand(st, dealer, rules, kinds, params, rec, no)
        hands += 1
        s0 += rec[H_SCORE]
        s1 += rec[H_SCORE + 1]
        # the top: the team ahead, both when level
        hist = note(hist, hands - 1, (1 if s0 >= s1 else 0) | (2 if s1 >= s0 else 0))
        if s0 >= rules[R.TARGET] or s1 >= rules[R.TARGET]:
            if s0 != s1:
                winner = 0 if s0 > s1 else 1
                break
            if rules[R.TIE] == Tie.SHARED:
                shared = 1
                break
        if hands >= rules[R.MAX_HANDS]:
            unfinished = 1
            break
        dealer = (dealer + 1) % 4
    g[G_HANDS] = hands
    g[G_SCORE] = s0
    g[G_SCORE + 1] = s1
    g[G_WINNER] = winner
    g[G_SHARED] = shared
    g[G_UNFINISHED] = unfinished
    winners = 3 if shared else (1 << winner if winner >= 0 else 0)
    changes, comeback, settled = summary(hist, hands, winners)
    g[G_LEAD_CHANGES] = changes
    g[G_COMEBACK] = comeback
    g[G_SETTLED] = settled
    return hist


@kernel(parallel=True)
def run_games(start, count, key, rules, kinds, params, grec):
    """Play whole games ``start .. start+count-1`` (stream = game number) into
    ``grec[j]`` (:func:`_game`)."""
    for b in numba.prange(blocks(count, GAME_BLOCK)):
        st = np.empty(2, np.uint64)
        no = np.empty(1, np.int64)
        rec = np.empty(N_HCOLS, np.int64)
        hist = new_history()
        for j in block(b, count, GAME_BLOCK):
            start_stream(st, key, start + j)
            hist = _game(st, rules, kinds, params, rec, no, grec[j], hist)
