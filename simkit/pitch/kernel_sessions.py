"""Pitch's money sessions in numba (seeds/pitch.md 7): the steps between the
hands of a session, which :mod:`simkit.pitch.kernel` plays in the same loop
as its hands.  Players are numbered in order of arrival and sit at table
positions ``seats``; ``res`` is a session's per-player record (``F_*``),
``sres`` its own (``S_*``)."""

from __future__ import annotations

import numpy as np

from simkit.base import lead
from simkit.base.jit import kernel
from simkit.base.rng import bounded
from simkit.pitch.kernel_columns import (
    C_CONTRACT,
    C_MADE,
    C_PITCHER,
    C_SCORE,
    F_HANDS,
    F_JOINED,
    F_LEFT,
    F_MADE,
    F_MONEY,
    F_MOONS_FAILED,
    F_MOONS_MADE,
    F_PITCHED,
    F_SCORE,
    F_SEAT,
    F_TOP,
    N_FIELDS,
    S_COMEBACK,
    S_FIRST_DEALER,
    S_HANDS,
    S_IMBALANCE,
    S_LEAD_CHANGES,
    S_PLAYERS,
    S_SETTLED,
    S_TARGET,
)
from simkit.pitch.rules import (
    MAX_PLAYERS,
    MAX_SESSION_PLAYERS,
    MONEY_UNITS_PER_CENT,
    MOON,
    JoinScoreCode,
    R,
)


@kernel(inline=True)
def settle_hand(row, n, seats, score, res, moon_units):
    """Add the hand in ``row[0]`` to the seated players' scores, counts and moon
    money (7); returns the top score."""
    top = -(1 << 40)
    for i in range(n):
        p = seats[i]
        score[p] += row[0, C_SCORE + i]
        res[p, F_HANDS] += 1
        top = max(top, score[p])
    pitcher = row[0, C_PITCHER]
    if pitcher >= 0:
        pl = seats[pitcher]
        res[pl, F_PITCHED] += 1
        res[pl, F_MADE] += row[0, C_MADE]
        if row[0, C_CONTRACT] == MOON:
            sign = 1 if row[0, C_MADE] else -1
            res[pl, F_MOONS_MADE if sign == 1 else F_MOONS_FAILED] += 1
            for i in range(n):
                if i != pitcher:
                    res[seats[i], F_MONEY] -= sign * moon_units
                    res[pl, F_MONEY] += sign * moon_units
    return top


@kernel(inline=True)
def leave(st, hand, old, old_n, n, seats, score, seated, res, rules):
    """Each player seated before the hand (``old``) leaves with chance ``leave``
    while three remain, settled at once against the table's average, the
    others sharing the payment (7); returns the players left."""
    cents = rules[R.CENTS]
    unit = MONEY_UNITS_PER_CENT
    for i in range(old_n):
        p = old[i]
        u = bounded(st, 1000)
        if u < rules[R.LEAVE] and n >= 3:
            total = 0
            for k in range(n):
                total += score[seats[k]]
            amount = cents * (unit // n) * (n * score[p] - total)
            share = cents * (unit // (n * (n - 1))) * (n * score[p] - total)
            res[p, F_MONEY] += amount
            m = 0
            for k in range(n):
                q = seats[k]
                if q != p:
                    res[q, F_MONEY] -= share
                    seats[m] = q
                    m += 1
            n = m
            seated[p] = False
            res[p, F_LEFT] = hand + 1
    return n


@kernel(inline=True)
def join(st, hand, n, ever, seats, score, seated, res, rules):
    """A new player joins with chance ``join`` while a seat is free (7); returns
    the players seated and the players there have ever been."""
    u = bounded(st, 1000)
    if u < rules[R.JOIN] and n < MAX_PLAYERS and ever < MAX_SESSION_PLAYERS:
        p = ever
        ever += 1
        if rules[R.JOIN_SCORE] == JoinScoreCode.AVERAGE:
            total = 0
            for k in range(n):
                total += score[seats[k]]
            score[p] = total // n
        seats[n] = p
        n += 1
        seated[p] = True
        res[p, F_JOINED] = hand + 1
        res[p, F_SEAT] = 0
    return n, ever


@kernel(inline=True)
def open_session(st, rules, res, sres, seats, seated, score):
    """A money session's start (seeds/pitch.md 7): ``res`` cleared, everyone
    seated at zero, the first dealer drawn; returns that dealer."""
    n = rules[R.PLAYERS]
    for f in range(res.shape[0]):
        for k in range(N_FIELDS):
            res[f, k] = 0
        res[f, F_LEFT] = -1
    for p in range(MAX_SESSION_PLAYERS):
        score[p] = 0
        seated[p] = False
    d = bounded(st, n)
    sres[S_FIRST_DEALER] = d
    for i in range(n):
        seats[i] = i
        seated[i] = True
        res[i, F_SEAT] = (i - d - 1) % n + 1
    return d


@kernel(inline=True)
def seat_policies(n, seats, kinds, params, pk, pp):
    """The policies of the seated players, by table position: players take the
    table's policies in turn (player ``p``: policy ``p`` mod their number)."""
    for i in range(n):
        q = seats[i] % kinds.shape[0]
        pk[i] = kinds[q]
        for k in range(params.shape[1]):
            pp[i, k] = params[q, k]


@kernel(inline=True)
def between_hands(st, hand, d, n, ever, seats, old, score, seated, res, rules):
    """Players leave, then one may join; then the deal passes left to the next
    player of the hand still seated (7).  Returns ``(dealer, seated, ever)``."""
    old_n = n
    for i in range(n):
        old[i] = seats[i]
    if rules[R.LEAVE] > 0:
        n = leave(st, hand, old, old_n, n, seats, score, seated, res, rules)
    if rules[R.JOIN] > 0:
        n, ever = join(st, hand, n, ever, seats, score, seated, res, rules)
    for k in range(1, old_n + 1):
        cand = old[(d + k) % old_n]
        if seated[cand]:
            for i in range(n):
                if seats[i] == cand:
                    d = i
            break
    return d, n, ever


@kernel(inline=True)
def close_session(n, ever, played, by_target, seats, score, res, sres, rules, hist):
    """Settle everyone still seated against the table's average (7) and write the
    session's record ``sres``."""
    unit = MONEY_UNITS_PER_CENT
    cents = rules[R.CENTS]
    total = 0
    best = -(1 << 40)
    for k in range(n):
        total += score[seats[k]]
        best = max(best, score[seats[k]])
    winners = np.int64(0)
    for k in range(n):
        p = seats[k]
        res[p, F_MONEY] += cents * (unit // n) * (n * score[p] - total)
        if score[p] == best:
            res[p, F_TOP] = 1
            winners |= np.int64(1) << p
    imbalance = 0
    for p in range(ever):
        res[p, F_SCORE] = score[p]
        imbalance += res[p, F_MONEY]
    sres[S_PLAYERS] = ever
    sres[S_HANDS] = played
    sres[S_TARGET] = by_target
    sres[S_IMBALANCE] = imbalance
    changes, comeback, settled = lead.summary(hist, played, winners)
    sres[S_LEAD_CHANGES] = changes
    sres[S_COMEBACK] = comeback
    sres[S_SETTLED] = settled
