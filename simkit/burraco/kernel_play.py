"""Burraco in numba, a turn: the hand rows, the trace of decisions, the keep,
melding (section 9 steps 1-4), taking the pile and the discard
(``seeds/burraco.md`` sections 2-5, 7 and 9).

A hand row is a 0/1 flag per card id followed by the same as two bit words,
so it is walked in increasing id (as the policies require) visiting only its
cards.  The melds are :mod:`simkit.burraco.kernel_melds`; the hand and game
loops and the batch drivers :mod:`simkit.burraco.kernel`.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.base.bits import popcount
from simkit.base.jit import kernel
from simkit.base.rng import bounded
from simkit.burraco.kernel_melds import (
    FIRST_JOKER,
    M_KEY,
    M_KIND,
    M_N,
    M_OCC,
    M_SUM,
    M_WILDS,
    MELD_SEQUENCE,
    MELD_SET,
    N_CARDS,
    POINTS,
    Z,
    _extends,
    _fits,
    _has_burraco,
    _place,
    _summary,
    _table_points,
    _valid,
    _wild,
)
from simkit.burraco.policies import PARAM, OrderCode
from simkit.burraco.rules import PozzettoCode, R
from simkit.policy import RANDOM


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
        if z[Z.NTRACE] < tr.shape[0]:
            tr[z[Z.NTRACE]] = code
        z[Z.NTRACE] += 1


@kernel(inline=True)
def _keep_for(p, kind, prm, z, rules, mcards, st, buf, tr):
    """Fix ``keep`` and the going-out choice (section 9) in ``z``, and trace it."""
    _fix_keep(p, kind, prm, z, rules, mcards, st, buf)
    _trace(tr, z, p * 1_000_000 + 3_000 + z[Z.KEEP])


@kernel(inline=True)
def _fix_keep(p, kind, prm, z, rules, mcards, st, buf):
    team = p % 2
    z[Z.CLOSING] = 0
    if z[Z.POZZ + team] < 0:
        way = rules[R.POZZETTO]
        if way == PozzettoCode.DIRECT:
            z[Z.KEEP] = 0
        elif way == PozzettoCode.DISCARD:
            z[Z.KEEP] = 1
        elif kind == RANDOM:
            z[Z.KEEP] = bounded(st, 2)
        else:
            z[Z.KEEP] = 0
        return
    if prm[PARAM.CLOSE_AFTER] == 0 and _has_burraco(team, z, mcards) and \
            _wants_out(team, kind, prm, rules, mcards, z, st, buf):
        z[Z.KEEP] = 1
        z[Z.CLOSING] = 1
        return
    z[Z.KEEP] = 2


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
    rest = z[Z.HN + p] - k
    if rest < z[Z.KEEP]:
        return False
    if z[Z.KEEP] == 0 and rest == 1 and z[Z.DIRECT_ONLY] == 1:
        return False                  # the discard would empty the hand: no such way
    if rest == 1 and z[Z.CLOSING] == 1:
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
    z[Z.HN + p] -= k
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
    if z[Z.HN + p] > 0:
        return
    team = p % 2
    first = 44 + 11 * z[Z.POZZ_NEXT]
    z[Z.POZZ_NEXT] += 1
    z[Z.POZZ + team] = z[Z.TURNS]
    for i in range(11):
        _give(hand, p, deck[first + i])
    z[Z.HN + p] = 11
    _trace(tr, z, p * 1_000_000 + 2_000 + (z[Z.POZZ_NEXT] - 1))
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
    def place(c: int) -> int:
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
    # a loop, not any(): numba compiles no generator inside any()
    for r in range(13):  # noqa: SIM110
        if r != 1 and _rank_count(h0, h1, r) >= k:
            return True
    return False


@kernel(inline=True)
def _any_suit(h0, h1, k):
    """Whether the hand of words ``h0``, ``h1`` holds ``k`` natural cards of some suit."""
    # a loop, not any(): numba compiles no generator inside any()
    for s in range(4):  # noqa: SIM110
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


@kernel(inline=True)
def _lay_one(c, p, team, m, hand, z, deck, kind, prm, rules, mcards, st, buf, one, tr):
    """Lay card ``c`` from seat ``p``'s hand onto its team's meld ``m`` if the
    hand may give it up (keep, section 9), and take the direct pozzetto if
    that empties the hand.  Whether it was laid."""
    one[0] = c
    if not _can_remove(hand, p, one, 1, z):
        return False
    _remove_into_meld(hand, z, p, one, 1, team, m, mcards)
    _trace(tr, z, p * 1_000_000 + 100_000 + 1_000 * m + c)
    if z[Z.HN + p] == 0:
        _after_removal(p, hand, z, deck, kind, prm, rules, mcards, st, buf, tr)
    return True


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
        for m in range(z[Z.MCOUNT + team]):
            last = -1
            while True:
                c = _next_candidate(hand[p, HW], hand[p, HW + 1], last, mcards[team, m, M_KIND],
                                    mcards[team, m, M_KEY])
                if c < 0:
                    break
                last = c
                f = _fits(mcards[team, m, M_SUM], c)
                if f == 1 or (f < 0 and _extends(mcards, team, m, c, rules, buf)):
                    changed |= _lay_one(c, p, team, m, hand, z, deck, kind, prm, rules,
                                        mcards, st, buf, one, tr)
        # 2-3. new melds, sets or sequences first.  Each step is called only when
        # the hand holds enough cards for it: a call passes many arrays, and
        # each costs reference counting.
        for step in range(2):
            if (step == 0) == (prm[PARAM.ORDER] == OrderCode.SETS):
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
        for m in range(z[Z.MCOUNT + team]):
            n = mcards[team, m, M_N]
            if n < prm[PARAM.WILD_AT] or mcards[team, m, M_WILDS] > 0:
                continue
            if n >= prm[PARAM.WILD_GUARD] and not _guard_lets(p, team, n, z, prm, mcards):
                continue
            w = _lowest_wild(hand[p, HW], hand[p, HW + 1])
            if w >= 0 and _extends(mcards, team, m, w, rules, buf):
                changed |= _lay_one(w, p, team, m, hand, z, deck, kind, prm, rules,
                                    mcards, st, buf, one, tr)


@kernel(inline=True)
def _new_meld(p, cards, k, meld_kind, hand, z, deck, kind, prm, rules, mcards, st, buf, tr):
    """Lay ``cards[:k]`` from the hand as a new meld, taking the pozzetto if that
    empties the hand."""
    team = p % 2
    m = z[Z.MCOUNT + team]
    z[Z.MCOUNT + team] += 1
    mcards[team, m, M_KIND] = meld_kind
    mcards[team, m, M_N] = 0
    _remove_into_meld(hand, z, p, cards, k, team, m, mcards)
    if tr.shape[0] > 1:
        _trace_meld(tr, z, p, meld_kind, mcards[team, m], k)
    if z[Z.HN + p] == 0:
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
    if n == 6 and z[Z.HN + p] <= 3 and z[Z.POZZ + team] >= 0 and not _has_burraco(team, z, mcards):
        return True
    if N_CARDS - z[Z.SP] <= prm[PARAM.END_STOCK]:
        return True
    if prm[PARAM.END_THREAT] and z[Z.POZZ + 1 - team] >= 0 and _has_burraco(1 - team, z, mcards):
        return True
    if z[Z.HN + p] > 2:
        return False
    return z[Z.CLOSING] == 1 or (prm[PARAM.POZZETTO_WILD] and z[Z.POZZ + team] < 0)


@kernel(inline=True)
def _take_pile(p, hand, pile, z, kind, prm, mcards, rules, st, buf, hl):
    """The draw decision (section 9): True to take the discard pile."""
    pn = z[Z.PN]
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
    for m in range(z[Z.MCOUNT + team]):
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
        return _nth_card(hand, p, bounded(st, z[Z.HN + p]))
    n = _hand_list(hand, p, hl, -1)
    guard = z[Z.PN] >= prm[PARAM.GUARD_PILE]
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
            for m in range(z[Z.MCOUNT + opp]):
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
