"""Burraco in numba, the melds: a team's melds as rows of card ids and the
rule book's meld validity (``seeds/burraco.md`` section 3).

A meld row holds its cards, then a summary (the rank or suit of its natural
cards, the places held) that turns most cards away before a full check
(:func:`_fits`).  Validity is decided here from the rule book, independently
of ``melds.py``: a set by its one natural rank and its wild count, a
sequence by trying each way to read its aces and its 2s of the suit and
checking that the natural places with the wild cards fill a run of at most
13 places.  The scalar state of a hand (the ``Z_*`` layout) is here too: the
melds' helpers read it.  The turn logic is :mod:`simkit.burraco.kernel_play`,
the batch drivers :mod:`simkit.burraco.kernel`.
"""

from __future__ import annotations

import enum

import numpy as np

from simkit.base.bits import high_bit, low_bit, popcount
from simkit.base.jit import kernel
from simkit.burraco.rules import R

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
    for m in range(z[Z.MCOUNT + team]):
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
    # a loop, not any(): numba compiles no generator inside any()
    for m in range(z[Z.MCOUNT + team]):  # noqa: SIM110
        if mcards[team, m, M_N] >= 7:
            return True
    return False


class Z(enum.IntEnum):
    """Where the scalar state of a hand sits in its one array ``z`` (kept in one
    array so that helpers can change it, and pass one array, not many: each
    array argument costs reference counting).  Per seat and per team entries
    start at their member: ``z[Z.HN + seat]``, ``z[Z.POZZ + team]``."""

    SP = 0              # the stock's next position
    PN = 1              # the pile's size
    POZZ_NEXT = 2       # the next pozzetto
    TURNS = 3
    KEEP = 4
    CLOSING = 5         # going out
    NTRACE = 6          # the trace's length
    DIRECT_ONLY = 7     # the pozzetto only the direct way
    HN = 8              # per seat: its hand's size
    POZZ = 12           # per team: the turn it took its pozzetto (-1: none)
    WHICH = 14          # per team: which pozzetto it took
    MCOUNT = 16         # per team: how many melds it has
    N = 18              # the array's length
