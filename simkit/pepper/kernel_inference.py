"""Pepper in numba, what the expert infers (seeds/pepper.md 7.3 Inference): the
worlds it draws or enumerates, each weighed by the likelihood of the other
seats' calls, trump and cards under the table's own policies, and its card,
searched over the heaviest of them (``expert.py``, on the double-dummy
solver of ``solver.py``).

The readable twin is ``reference_players.py`` (:func:`table_model`,
:func:`expert_card`) with ``reference_expert.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import types
from numba.extending import overload

from simkit.base.bits import low_bit, next_seat, popcount
from simkit.base.jit import kernel
from simkit.pepper.expert import (
    WEIGHT_ONE,
    draw_worlds,
    enumerate_worlds,
    expert_candidates,
    expert_choice,
    keep_heaviest,
    thin,
)
from simkit.pepper.kernel_bidding import choose_trump, desired_level, heuristic_call
from simkit.pepper.kernel_play import card_played, heuristic_play, roles
from simkit.pepper.policies import PARAM, ModelCode
from simkit.pepper.rules import R
from simkit.pepper.tables import CARD_OF, to_play_bits
from simkit.policy import RANDOM


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
    against the heuristic's card there (:func:`heuristic_play`, an expert
    seat's heuristic included)."""
    hands = np.zeros(4, np.int64)
    for s in range(P):
        hands[s] = to_play_bits(dealt[s], o)
    plan_seats, cover_seats = roles(P, T, contract, bidder, kinds, params)
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
                m = heuristic_play(h, legal, k, seat, o, unplayed, voids, thrown, leader, P,
                                   win_seat, win_bit, beat, led_e, bidder, lost, plan_seats,
                                   cover_seats, params)
                like *= _factor(m == b, popcount(legal), eps)
            unplayed, led_e, led_bits, voids, thrown, beat, win_seat, win_bit = card_played(
                b, k, seat, h, o, hands, unplayed, led_e, led_bits, voids, thrown, beat,
                win_seat, win_bit, True)
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
    heuristic's call there (:func:`heuristic_call`) over the legal calls."""
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
            d = desired_level(dealt[seat], rules, params, seat)
            m = heuristic_call(seat, high, high_seat, d, rules, params)
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
            named = choose_trump(dealt[bidder], contract, rules)
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
def _expert_play(hint, seat, hands, P, T, o, tbits, k, unplayed, voids, tricks, bidder,
                 contract, rules, kinds, params, st, tt, stack, hist, n_hist, auction, planned):
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
    table = worlds > 0 and params[seat, PARAM.MODEL] == ModelCode.TABLE
    if table:
        world, weight = _weighed_worlds(seat, hands, P, o, unplayed, voids, bidder, contract,
                                        rules, kinds, params, st, hist, n_hist, auction, planned)
        world, q = keep_heaviest(world, weight, min(worlds, world.shape[0]))
    else:
        world = draw_worlds(seat, hands, P, o, unplayed, voids, worlds, st)
        q = np.full(world.shape[0], WEIGHT_ONE, np.int64)
    return expert_choice(cands, seat, hands[seat], P, T, o, tbits, k, unplayed, tricks, bidder,
                         contract, world, q, tt, stack, hint)


def searched(search: object, hint: object, *args: object) -> object:
    """In a kernel, the expert's card: ``_expert_play(hint, *args)`` where the
    kernel was called with ``search``, else ``hint`` (its heuristic's card),
    and the search is then not compiled at all.  ``jit.if_given``, but the
    fallback passed on as the first argument, so that a call names the hint
    once."""
    raise TypeError("searched is for kernels only")


@overload(searched)
def _searched(search: object, hint: object, *args: object) -> Callable[..., object]:
    # numba requires the implementations' parameters, annotations included, to be
    # the typing function's
    def absent(search: object, hint: object, *args: object) -> object:
        return hint

    def given(search: object, hint: object, *args: object) -> object:
        return _expert_play(hint, *args)
    return absent if isinstance(search, (types.NoneType, types.Omitted)) else given
