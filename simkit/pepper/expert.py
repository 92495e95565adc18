"""The expert policy in numba (seeds/pepper.md 7.3): perfect-information Monte Carlo.

At a card with more than one candidate, the expert deals the cards it cannot
see into worlds that agree with what it has seen (each seat's card count,
the suits it has shown out of), values every candidate in every world with
the double-dummy solver (``solver.py``) and plays the card that does best
over the worlds by the choice of 7.3.  :func:`expert_card` reads in phases:

1. the candidates (the lowest of each group of equivalent cards,
   :func:`solver.candidates`);
2. the worlds, all drawn before any solve (:func:`_draw_worlds`);
3. the goal: the declaring side's contract while it is open, else the
   player's own side's tricks (:func:`_goal`);
4. the choice: while the contract is open each candidate's count of worlds
   that reach the goal (:func:`_successes`), then the total value of the
   candidates tied on the best count (:func:`_totals`); once it is decided,
   every candidate's total.

The kernel (``kernel.py``) calls :func:`expert_card` for the expert's seats,
with the card its heuristic would play as the tie-break.  Cards are play bits
(``tables.py``).  The readable twin is ``reference_expert.py``; the two share
no code.
"""

from __future__ import annotations

import numpy as np

from simkit.base.bits import low_bit, next_seat, popcount
from simkit.base.jit import kernel
from simkit.base.rng import shuffle
from simkit.pepper.solver import TT_SIZE, candidates, dd_at_least, dd_value, side_of
from simkit.pepper.tables import BIT_OF, CARD_OF, EFF, SUIT_BITS, SUIT_OF_BIT, TRUMP_BITS

#: Deals of the unseen cards tried for a world before the constrained deal.
WORLD_TRIES = 20
#: Tables the expert keeps per hand in play (entries; a power of two).
EXPERT_TT = TT_SIZE
#: The weight of the heaviest world in the vote (7.3 Inference): weights are
#: integers, so that sums and comparisons are exact in both engines.
WEIGHT_ONE = 1024
#: The most deals of the unseen cards, before the voids, that ``enumerate`` lists.
ENUMERATE_MAX = 4096


@kernel(inline=True)
def _dealable(room, allowed, cnt, n_holders):
    """Whether the cards left (``cnt`` per effective suit) fit the holders'
    ``room``, each taking only its ``allowed`` suits: for every set of suits,
    its cards are no more than the room of the holders that may take one."""
    for S in range(1, 16):
        need = 0
        for e in range(4):
            if (S >> e) & 1:
                need += cnt[e]
        cap = 0
        for x in range(n_holders):
            if allowed[x] & S:
                cap += room[x]
        if need > cap:
            return False
    return True


@kernel
def _world(st, unseen, n_u, arr, holder, size, allowed, n_holders, o, out):
    """Deal the ``n_u`` unseen card ids to the holders (7.3 Worlds) into
    ``out[seat]`` (card-id masks), drawing from ``st``."""
    for _t in range(WORLD_TRIES):
        for i in range(n_u):
            arr[i] = unseen[i]
        shuffle(st, arr[:n_u])
        ok = True
        p = 0
        for x in range(n_holders):
            for _ in range(size[x]):
                if (allowed[x] >> EFF[o, arr[p]]) & 1 == 0:
                    ok = False
                p += 1
        if ok:
            p = 0
            for x in range(n_holders):
                out[holder[x]] = 0
                for _ in range(size[x]):
                    out[holder[x]] |= np.int64(1) << arr[p]
                    p += 1
            return
    # the last shuffle's order, each card to the first holder that can take it
    # and leave the rest dealable
    room = np.empty(4, np.int64)
    cnt = np.zeros(4, np.int64)
    for x in range(n_holders):
        room[x] = size[x]
        out[holder[x]] = 0
    for i in range(n_u):
        cnt[EFF[o, arr[i]]] += 1
    for i in range(n_u):
        c = arr[i]
        e = EFF[o, c]
        cnt[e] -= 1
        for x in range(n_holders):
            if room[x] > 0 and (allowed[x] >> e) & 1:
                room[x] -= 1
                if _dealable(room, allowed, cnt, n_holders):
                    out[holder[x]] |= np.int64(1) << c
                    break
                room[x] += 1


@kernel(inline=True)
def _card_ids(m, o):
    """The card-id mask of the play bits ``m``."""
    ids = np.int64(0)
    while m:
        b = low_bit(m)
        m &= m - 1
        ids |= np.int64(1) << CARD_OF[o, b]
    return ids


@kernel
def _holders(seat, hands, P, o, unplayed, voids):
    """``(unseen, n_u, holder, size, allowed, n_holders)``: the card ids the player
    cannot see, in increasing id, and the holders (7.3 Worlds): the other
    seats from the player's left, then the two-player dead hand, each with its
    card count and the effective suits it has not shown out of."""
    unseen_bits = unplayed & ~hands[seat]
    unseen = np.empty(24, np.int64)
    n_u = 0
    for c in range(24):
        if (unseen_bits >> BIT_OF[o, c]) & 1:
            unseen[n_u] = c
            n_u += 1
    holder = np.empty(4, np.int64)
    size = np.empty(4, np.int64)
    allowed = np.empty(4, np.int64)
    n_holders = 0
    x = seat
    for _ in range(P - 1):
        x = next_seat(x, P)
        holder[n_holders] = x
        size[n_holders] = popcount(hands[x])
        allowed[n_holders] = 15 & ~((voids >> (4 * x)) & 15)
        n_holders += 1
    if P == 2:
        holder[n_holders] = 3
        size[n_holders] = popcount(hands[3])
        allowed[n_holders] = 15
        n_holders += 1
    return unseen, n_u, holder, size, allowed, n_holders


@kernel(inline=True)
def _next_combination(idx, k, n):
    """Advance ``idx[:k]`` (increasing positions below ``n``) to the next
    combination in lexicographic order; False after the last."""
    i = k - 1
    while i >= 0 and idx[i] == n - k + i:
        i -= 1
    if i < 0:
        return False
    idx[i] += 1
    for m in range(i + 1, k):
        idx[m] = idx[m - 1] + 1
    return True


@kernel
def _fits(cards, n, allowed, o):
    """Whether the card ids ``cards[:n]`` are all of effective suits in ``allowed``,
    and their card-id mask."""
    mask = np.int64(0)
    for i in range(n):
        if (allowed >> EFF[o, cards[i]]) & 1 == 0:
            return False, mask
        mask |= np.int64(1) << cards[i]
    return True, mask


@kernel
def enumerate_worlds(seat, hands, P, o, unplayed, voids, limit):
    """Every deal of the unseen cards that fits the holders' voids (7.3 Worlds,
    enumerated), as :func:`draw_worlds`' rows, if there are at most ``limit``
    and at most :data:`ENUMERATE_MAX` deals before the voids; else no row.
    Order: the first holder's cards as combinations of the unseen cards'
    positions (increasing id) in lexicographic order, then the second's of
    the positions left, the last holder taking the rest."""
    unseen, n_u, holder, size, allowed, n_holders = _holders(seat, hands, P, o, unplayed, voids)
    none = np.zeros((0, 4), np.int64)
    total = 1.0
    left = n_u
    for x in range(n_holders - 1):
        for i in range(size[x]):
            total = total * (left - i) / (i + 1)
        left -= size[x]
    if total > ENUMERATE_MAX:
        return none
    out = np.zeros((limit, 4), np.int64)
    own_ids = _card_ids(hands[seat], o)
    n_out = 0
    a = np.arange(size[0])
    rest = np.empty(24, np.int64)
    part = np.empty(24, np.int64)
    b = np.empty(24, np.int64)
    last = np.empty(24, np.int64)
    while True:
        for i in range(size[0]):
            part[i] = unseen[a[i]]
        ok0, m0 = _fits(part, size[0], allowed[0], o)
        if ok0:
            n_r = 0
            i = 0
            for p in range(n_u):
                if i < size[0] and a[i] == p:
                    i += 1
                else:
                    rest[n_r] = unseen[p]
                    n_r += 1
            k1 = size[1] if n_holders == 3 else 0
            for i in range(k1):
                b[i] = i
            while True:
                for i in range(k1):
                    part[i] = rest[b[i]]
                ok1, m1 = _fits(part, k1, allowed[1], o)
                n_l = 0
                i = 0
                for p in range(n_r):
                    if i < k1 and b[i] == p:
                        i += 1
                    else:
                        last[n_l] = rest[p]
                        n_l += 1
                ok2, m2 = _fits(last, n_l, allowed[n_holders - 1], o)
                if ok1 and ok2:
                    if n_out == limit:
                        return none
                    out[n_out, holder[0]] = m0
                    if n_holders == 3:
                        out[n_out, holder[1]] = m1
                    out[n_out, holder[n_holders - 1]] = m2
                    out[n_out, seat] = own_ids
                    n_out += 1
                if not _next_combination(b, k1, n_r):
                    break
        if not _next_combination(a, size[0], n_u):
            break
    return out[:n_out].copy()


@kernel
def thin(weight, n):
    """Whether the effective sample size of the weights, (sum w)^2 / sum w^2, is
    below half of ``n`` (all weights 0 counts as thin), in the reference's order
    of sums."""
    s = 0.0
    s2 = 0.0
    for w in range(weight.shape[0]):
        s += weight[w]
        s2 += weight[w] * weight[w]
    return s == 0.0 or 2.0 * s * s < n * s2


@kernel
def draw_worlds(seat, hands, P, o, unplayed, voids, worlds, st):
    """The worlds (7.3 Worlds), all drawn before any solve: row ``w`` holds every
    seat's card-id mask in world ``w``, the player's own hand and the cards it
    cannot see dealt to the holders by :func:`_world`, drawing from ``st``.
    ``worlds`` 0 is the oracle (for measuring, never a real player): one
    world, the real deal, nothing drawn."""
    if worlds == 0:
        world = np.zeros((1, 4), np.int64)
        for s in range(4):
            world[0, s] = _card_ids(hands[s], o)
        return world
    unseen, n_u, holder, size, allowed, n_holders = _holders(seat, hands, P, o, unplayed, voids)
    own_ids = _card_ids(hands[seat], o)
    arr = np.empty(24, np.int64)
    world = np.zeros((worlds, 4), np.int64)
    for w in range(worlds):
        _world(st, unseen, n_u, arr, holder, size, allowed, n_holders, o, world[w])
        world[w, seat] = own_ids
    return world


@kernel(inline=True)
def _goal(seat, P, T, tricks, bidder, contract):
    """What the player plays for (7.3 The value of a candidate): ``(open, ours,
    side, goal)``.  ``open``: the contract is neither made nor beaten;
    ``ours``: the player is on the declaring side; ``side``: the seat mask
    whose tricks count (the declaring side while open, else the player's
    own); ``goal``: the tricks the declaring side still needs."""
    decl = side_of(bidder, P)
    need = contract if contract < T else T
    won = 0
    done = 0
    for s in range(P):
        done += tricks[s]
        if (decl >> s) & 1:
            won += tricks[s]
    is_open = won < need and done - won <= T - need
    ours = (decl >> seat) & 1 == 1
    side = decl if is_open else side_of(seat, P)
    return is_open, ours, side, need - won


@kernel(inline=True)
def _trick_ids(tbits, n_trick, o):
    """The current trick's card ids in play order (room for the card to come)."""
    trick_ids = np.zeros(4, np.int64)
    for k in range(n_trick):
        trick_ids[k] = CARD_OF[o, tbits[k]]
    return trick_ids


@kernel
def _after(b, seat, world, w, ids, trick_ids, n_trick, P, o, side, tt, stack, goal):
    """World ``w`` after ``seat`` plays the play bit ``b`` to the trick of
    ``trick_ids[:n_trick]``: with ``goal`` < 0 the double-dummy value of
    ``side`` from there, the current trick included; else that value if it is
    below ``goal``, and ``goal`` if it is at least ``goal`` (one "at least"
    search).  ``ids`` is scratch for the hands."""
    c = CARD_OF[o, b]
    for s in range(4):
        ids[s] = world[w, s]
    ids[seat] &= ~(np.int64(1) << c)
    if n_trick + 1 == P:
        # the card completes the trick: its winner leads next
        win = BIT_OF[o, trick_ids[0]]
        led_or_trump = SUIT_BITS[o, SUIT_OF_BIT[o, win]] | TRUMP_BITS[o]
        wseat = (seat - n_trick) % P
        s_ = wseat
        for k in range(1, P):
            s_ = next_seat(s_, P)
            bb = BIT_OF[o, trick_ids[k]] if k < n_trick else b
            if ((led_or_trump & -(np.int64(2) << win)) >> bb) & 1:
                win = bb
                wseat = s_
        took = (side >> wseat) & 1
        if goal >= 0:
            return goal if took >= goal or dd_at_least(ids, P, o, trick_ids, 0, wseat, side,
                                                        goal - took, tt, stack) else 0
        return took + dd_value(ids, P, o, trick_ids, 0, wseat, side, tt, stack)
    trick_ids[n_trick] = c
    if goal >= 0:
        return goal if dd_at_least(ids, P, o, trick_ids, n_trick + 1, next_seat(seat, P), side,
                                   goal, tt, stack) else 0
    return dd_value(ids, P, o, trick_ids, n_trick + 1, next_seat(seat, P), side, tt, stack)


@kernel
def _successes(cand, seat, world, q, trick_ids, n_trick, P, o, side, goal, ours, tt, stack):
    """Per candidate, the weight ``q`` of the worlds in which the declaring side's
    tricks from here reach ``goal`` (for a declaring-side player, ``ours``) or
    fall short (for a defender): one "at least" search each, world by world.
    The count stops as soon as the leading candidate can no longer be caught
    by the weight left: the card chosen is the same."""
    n_c = cand.shape[0]
    n_w = world.shape[0]
    succ = np.zeros(n_c, np.int64)
    ids = np.empty(4, np.int64)
    left = q.sum()
    for w in range(n_w):
        left -= q[w]
        for i in range(n_c):
            v = _after(cand[i], seat, world, w, ids, trick_ids, n_trick, P, o, side, tt, stack,
                       goal)
            if (v >= goal) == ours:
                succ[i] += q[w]
        top = 0
        second = -1
        for i in range(n_c):
            if succ[i] > top:
                second = top
                top = succ[i]
            elif succ[i] > second:
                second = succ[i]
        if top > second + left:
            break
    return succ


@kernel
def _totals(cand, keep, seat, world, q, trick_ids, n_trick, P, o, side, tt, stack):
    """Per candidate of the mask ``keep`` (bit ``i``: ``cand[i]``), its
    double-dummy value for ``side`` over the worlds, each times its weight
    ``q``; 0 for the others."""
    n_c = cand.shape[0]
    total = np.zeros(n_c, np.int64)
    ids = np.empty(4, np.int64)
    for i in range(n_c):
        if (keep >> i) & 1:
            for w in range(world.shape[0]):
                total[i] += q[w] * _after(cand[i], seat, world, w, ids, trick_ids, n_trick, P,
                                          o, side, tt, stack, -1)
    return total


@kernel(inline=True)
def _same_group(c, x, h, live, o):
    """Whether the player's cards ``c`` and ``x`` (play bits) are equivalent for it
    (7.3 Candidates): one effective suit, no live card between them but its own."""
    if x < 0 or SUIT_OF_BIT[o, c] != SUIT_OF_BIT[o, x]:
        return False
    lo = min(c, x)
    hi = max(c, x)
    between = live & SUIT_BITS[o, SUIT_OF_BIT[o, c]] & ~h
    mask = (-(np.int64(2) << lo)) & ((np.int64(1) << hi) - 1)
    return (between & mask) == 0


@kernel
def expert_candidates(h, o, tbits, n_trick, unplayed):
    """The expert's candidates (7.3 Candidates) as a play-bit mask: the legal
    cards of ``h``, the lowest of each group of equivalent cards."""
    led = SUIT_BITS[o, SUIT_OF_BIT[o, tbits[0]]] if n_trick > 0 else np.int64(0)
    table = np.int64(0)
    for k in range(n_trick):
        table |= np.int64(1) << tbits[k]
    legal = h & led
    if legal == 0:
        legal = h
    return candidates(h, legal, unplayed | table, o, True)


@kernel
def keep_heaviest(world, weight, n):
    """The ``n`` heaviest worlds of ``world`` (7.3 Inference), heaviest first,
    ties in draw order, and their integer weights: each world's weight over
    the heaviest's, in 1024ths, rounded (0 if it is that light).  If every
    weight is 0 (a trust of 0 and a surprise in every world) they count alike."""
    n_w = world.shape[0]
    taken = np.zeros(n_w, np.bool_)
    kept = np.zeros((n, 4), np.int64)
    q = np.zeros(n, np.int64)
    top = 0.0
    for k in range(n):
        best = -1
        for w in range(n_w):
            if not taken[w] and (best < 0 or weight[w] > weight[best]):
                best = w
        taken[best] = True
        kept[k] = world[best]
        if k == 0:
            top = weight[best]
        q[k] = np.int64(weight[best] / top * WEIGHT_ONE + 0.5) if top > 0.0 else WEIGHT_ONE
    return kept, q


@kernel
def expert_choice(cands, seat, h, P, T, o, tbits, n_trick, unplayed, tricks, bidder, contract,
                  world, q, tt, stack, hint):
    """The expert's card (seeds/pepper.md 7.3), as a play bit, among the
    candidate mask ``cands`` (more than one) over the worlds ``world`` (rows of
    card-id masks) weighted by ``q``; ``hint`` is the card the heuristic would
    play there (its tie-break).

    ``h``: the player's cards in play bits; ``tbits[:n_trick]`` the current
    trick's cards in play order; ``unplayed``: the cards not yet on the table;
    ``tricks``: tricks won per seat.  ``tt`` and ``stack`` are the solver's
    table and stack (``solver.py``)."""
    table = np.int64(0)
    for k in range(n_trick):
        table |= np.int64(1) << tbits[k]
    live = unplayed | table              # cards not in a completed trick
    is_open, ours, side, goal = _goal(seat, P, T, tricks, bidder, contract)
    # the candidates, lowest first (ties keep the lowest)
    cand = np.empty(popcount(cands), np.int64)
    m = cands
    for i in range(cand.shape[0]):
        cand[i] = low_bit(m)
        m &= m - 1
    n_c = cand.shape[0]
    trick_ids = _trick_ids(tbits, n_trick, o)
    # While the contract is open, each candidate's weight of worlds that reach
    # the goal decides, then the heuristic's card, then the total value (only
    # of the candidates tied on the best count); once it is decided, the total
    # value, then the heuristic's card.
    keep = (np.int64(1) << n_c) - 1
    if is_open:
        succ = _successes(cand, seat, world, q, trick_ids, n_trick, P, o, side, goal, ours, tt,
                          stack)
        top = succ.max()
        keep = 0
        for i in range(n_c):
            if succ[i] == top:
                keep |= np.int64(1) << i
        if popcount(keep) == 1:
            return cand[low_bit(keep)]
        for i in range(n_c):
            if (keep >> i) & 1 and _same_group(cand[i], hint, h, live, o):
                return cand[i]
    total = _totals(cand, keep, seat, world, q, trick_ids, n_trick, P, o, side, tt, stack)
    best = -1
    best_t = 0
    heuristic = False
    for i in range(n_c):
        if (keep >> i) & 1 == 0:
            continue
        t = -total[i] if is_open and not ours else total[i]
        mine = not is_open and _same_group(cand[i], hint, h, live, o)
        if best < 0 or t > best_t or (t == best_t and mine and not heuristic):
            best = cand[i]
            best_t = t
            heuristic = mine
    return best
