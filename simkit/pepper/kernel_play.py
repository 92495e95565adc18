"""Pepper in numba, the card play (seeds/pepper.md 4, 7.2 Play): the heuristic's
leads and follows, its all-tricks plan, third-hand cover and guards, and the
resolution of a trick card by card (:func:`card_played`).

Once the trump is named the hands are relabelled into "play bits" ordered by
rank within the trump option (``tables.py``), so that the lowest card of a
set, a suit's boss and the cards that beat the winning card are single bit
operations.  ``voids`` and ``thrown`` pack 4 bits per seat: the effective
suits it has shown out of, and the non-trump suits it has discarded from.
The readable twin is ``reference_players.py``.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.base.bits import high_bit, low_bit
from simkit.base.jit import kernel
from simkit.pepper.policies import PARAM, SlamPlayCode
from simkit.pepper.tables import NT, SUIT_BITS, SUIT_OF_BIT, TRUMP_BITS
from simkit.policy import RANDOM


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


@kernel
def roles(P, T, contract, bidder, kinds, params):
    """``(plan_seats, cover_seats)``: the seats of the declaring side that play
    the all-tricks plan in this contract, and the seats that cover as third
    hand (7.2; 4 players only, else none)."""
    plan_seats = 0
    cover_seats = 0
    if P == 4:
        slam = contract >= T
        for s in range(4):
            if kinds[s] != RANDOM:
                plans = params[s, PARAM.SLAM_PLAY] == SlamPlayCode.PLAN
                if slam and ((s ^ bidder) & 1) == 0 and plans:
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
def heuristic_play(h, legal, k, seat, o, unplayed, voids, thrown, leader, P, win_seat, win_bit,
                   beat, led_e, bidder, lost, plan_seats, cover_seats, params):
    """The heuristic's card (7.2) in play bits for the ``k``-th play of a trick:
    the all-tricks plan's while the declaring side has lost no trick (``lost``)
    for the seats of ``plan_seats``, covering as third hand for the seats of
    ``cover_seats`` (both from :func:`roles`), a discard that keeps the guards
    with keep_guards (a defender).  The table's heuristic seats play it, and
    the expert's model of them (7.3 Inference) replays it in each world."""
    plan = lost == 0 and (plan_seats >> seat) & 1 == 1
    cover = (cover_seats >> seat) & 1 == 1
    draw_trumps = params[seat, PARAM.DRAW_TRUMPS]
    guard = params[seat, PARAM.KEEP_GUARDS] == 1 and _defends(seat, bidder, P)
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
def card_played(b, k, seat, h, o, hands, unplayed, led_e, led_bits, voids, thrown, beat,
                win_seat, win_bit, track):
    """``seat``, holding ``h``, plays play bit ``b``, the ``k``-th card of the
    trick (§4), and the trick is resolved so far: the card leaves the seat's
    hand (``hands``, in place) and ``unplayed``; the first card names the led
    suit (``led_e``, its cards ``led_bits``); with ``track``, a card off the led
    suit shows the seat out of it (``voids``) and, if it is not a trump, is a
    discard from its own suit (``thrown``; both 4 bits per seat, 7.2 Play); a
    card that beats the winning card wins so far (``win_seat``, ``win_bit``;
    ``beat``: the play bits that beat it).  The table's play and the expert's
    replay of it (7.3 Inference) both resolve their tricks here.  Returns
    ``(unplayed, led_e, led_bits, voids, thrown, beat, win_seat, win_bit)``."""
    trumps = TRUMP_BITS[o]
    hands[seat] = h & ~(1 << b)
    unplayed &= ~(1 << b)
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
    return unplayed, led_e, led_bits, voids, thrown, beat, win_seat, win_bit
