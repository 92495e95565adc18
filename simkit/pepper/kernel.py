"""Pepper in numba: the rules of ``seeds/pepper.md``, arrays in, arrays out.

Hands are 24-bit masks (bit = card id, see ``rules.DECK``).  Once the trump
is named, the hands are relabelled into "play bits" ordered by rank within
the trump option (0..3 = C D H S, 4 = no trump), trumps on top, so that the
lowest card of a set, a suit's boss and the cards that beat the winning card
are single bit operations (``tables.py``).  The heuristic's hand estimates are per-suit table
lookups.  All decisions are exactly those of seeds/pepper.md section 7.

Entry points (all jitted through ``simkit.base.jit.kernel``):

* :func:`run_hands` plays hands ``start .. start+count-1`` of a run, one per
  stream, into a record matrix (columns ``C_*``), in parallel over blocks.
* :func:`run_hands_agg` plays the same hands into per-group counts and sums.
* :func:`run_games` plays whole games (one stream per game) into game records.
* :func:`run_plan` plays around a fixed hand: a declared contract with no
  auction, or the auction with the hand's seat bidding by a plan (the advisor,
  seeds/pepper.md 9.1 and 9.3); :func:`run_first` the same two for the first
  speaker on the deals of :func:`run_hands` (the studies).
* :func:`play_hand` / :func:`play_contract` are the single-hand core they use.

Around them: the auction is ``kernel_bidding.py``, the heuristic's card play
and the resolution of a trick ``kernel_play.py``, and what an expert seat
(7.3) infers, with its search, ``kernel_inference.py`` (on ``expert.py`` and
the double-dummy solver of ``solver.py``).  The card tables, play bits and
the deal are in ``tables.py``; the record columns in ``kernel_columns.py``.
The readable twin is ``reference.py`` with ``reference_players.py``; the two
never share code.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.base.bits import next_seat, nth_bit, popcount
from simkit.base.jit import block, blocks, kernel
from simkit.base.lead import new_history, note, summary
from simkit.base.rng import bounded, start_stream
from simkit.pepper.expert import EXPERT_TT
from simkit.pepper.kernel_bidding import choose_trump, desired_level, hold_auction
from simkit.pepper.kernel_columns import (
    C_BID,
    C_BIDDER,
    C_CONTRACT,
    C_DEALER,
    C_F_ACES,
    C_F_BOWERS,
    C_F_TRUMPS,
    C_F_VOIDS,
    C_MADE,
    C_SCORE,
    C_SIDE_TRICKS,
    C_STUCK,
    C_TRICKS,
    C_TRUMP,
    G_COMEBACK,
    G_FIRST_DEALER,
    G_LEAD_CHANGES,
    G_ROUNDS,
    G_SCORE,
    G_SETTLED,
    G_UNFINISHED,
    G_WINNERS,
    MAX_CALLS,
    N_COLS,
)
from simkit.pepper.kernel_inference import searched
from simkit.pepper.kernel_play import card_played, heuristic_play, roles
from simkit.pepper.policies import PARAM
from simkit.pepper.rules import PLAN_POLICY, AllPassCode, FailCode, R, TieCode
from simkit.pepper.solver import MAXPLY, N_FIELDS
from simkit.pepper.tables import (
    BIT_OF,
    CARD_OF,
    NT,
    SUITMASK,
    deal,
    deal_fixed,
    deal_number,
    to_play_bits,
)
from simkit.policy import EXPERT, RANDOM

BLOCK = 256          # hands per prange task
GAME_BLOCK = 256     # whole games per prange task
EXPERT_BLOCK = 4     # hands or games per task at a table that seats the expert: its hands
                     # take milliseconds, and blocks of 256 left a thread idle for seconds


@kernel(inline=True)
def _thrown_in(recs, j, trace, tr_plays):
    """Row ``j`` of a hand everyone passed and nobody plays (§3.2, redeal)."""
    recs[j, C_CONTRACT] = 0
    recs[j, C_BIDDER] = -1
    recs[j, C_TRUMP] = -1
    recs[j, C_MADE] = 0
    for s in range(4):
        recs[j, C_TRICKS + s] = 0
    for s in range(3):
        recs[j, C_SIDE_TRICKS + s] = 0
        recs[j, C_SCORE + s] = 0
    recs[j, C_F_TRUMPS] = 0
    recs[j, C_F_BOWERS] = 0
    recs[j, C_F_ACES] = 0
    recs[j, C_F_VOIDS] = 0
    if trace:
        for k in range(tr_plays.shape[1]):
            tr_plays[j, k] = -1


@kernel(inline=True)
def play_hand(dealer, hands, rules, kinds, params, st, recs, j, desired, tricks,
              plan_seat, plan, trace, tr_calls, tr_plays, ps, search):
    """Auction, trump, play and scoring of one dealt hand into row ``j`` of ``recs``.

    ``hands[seat]`` are the dealt masks (consumed).  Random-policy seats draw from
    ``st``.  ``plan_seat`` (-1 in ordinary runs) calls by ``plan`` (seeds/pepper.md
    9.3, codes in ``rules.py``; ``PLAN_POLICY``: by its policy).  With ``trace`` the calls
    (seat * 16 + level) and the cards played are written to row ``j`` of ``tr_calls`` /
    ``tr_plays``.  Rows are
    indexed rather than sliced: a slice is a new array and costs reference counting.
    ``ps``, ``search``: the play's scratch and the expert's switch (:func:`_play_tricks`).
    """
    high, high_seat, planned = _bid_hand(dealer, hands, rules, kinds, params, st, recs, j,
                                         desired, plan_seat, plan, trace, tr_calls, tr_plays,
                                         ps)
    if high > 0:
        play_contract(high_seat, high, hands, rules, kinds, params, st, recs, j, tricks,
                      trace, tr_plays, ps[0], planned, ps, search)


@kernel(inline=True)
def _bid_hand(dealer, hands, rules, kinds, params, st, recs, j, desired, plan_seat, plan,
              trace, tr_calls, tr_plays, ps):
    """The auction of :func:`play_hand`, its calls in ``ps[0]``: ``(contract, holder,
    planned)``, the contract 0 when the hand is thrown in (row ``j`` then
    complete).  Kernels that may also skip the auction call this and
    :func:`play_contract` at one place each, so that the play, the largest
    part of a kernel, is compiled into it once."""
    recs[j, C_DEALER] = dealer
    high, high_seat = hold_auction(dealer, hands, rules, kinds, params, st, recs, j, desired,
                               plan_seat, plan, trace, tr_calls, ps[0])
    recs[j, C_STUCK] = 0
    if high == 0:
        if rules[R.ALL_PASS] == AllPassCode.REDEAL:
            _thrown_in(recs, j, trace, tr_plays)
            return 0, -1, -1
        high = 1
        high_seat = dealer
        recs[j, C_STUCK] = 1
    return high, high_seat, plan_seat if plan != PLAN_POLICY else -1


@kernel(inline=True)
def _bidder_features(hb, o, recs, j):
    """The bidder's dealt hand with trump option ``o`` (§8): trumps, bowers,
    aces and voids outside trumps."""
    if o < NT:
        tm = SUITMASK[o, o]
        recs[j, C_F_TRUMPS] = popcount(hb & tm)
        recs[j, C_F_BOWERS] = ((hb >> (6 * o + 2)) & 1) + ((hb >> (6 * (3 - o) + 2)) & 1)
    else:
        recs[j, C_F_TRUMPS] = 0
        recs[j, C_F_BOWERS] = 0
    aces = 0
    voids = 0
    for e in range(4):
        if e == o:
            continue
        aces += (hb >> (6 * e + 5)) & 1
        if hb & SUITMASK[o, e] == 0:
            voids += 1
    recs[j, C_F_ACES] = aces
    recs[j, C_F_VOIDS] = voids


@kernel(inline=True)
def _play_tricks(bidder, contract, o, hands, P, T, kinds, params, st, tricks, j, trace,
                 tr_plays, rules, auction, planned, ps, search):
    """The play (§4), in play bits (``tables.py``): tricks won per seat into
    ``tricks``; the bidder leads the first trick.  ``voids`` packs, 4 bits per
    seat, the effective suits each seat has shown out of (7.2 Play); ``lost``
    counts the tricks the declaring side has not won (the all-tricks plan
    applies while it is 0).  ``ps``: the scratch of :func:`_play_scratch`,
    made once per block.  ``search``: None when no seat plays the expert, and
    then the expert's search is not even compiled (``jit.if_given``)."""
    for s in range(P):
        hands[s] = to_play_bits(hands[s], o)
    unplayed = (1 << 24) - 1
    leader = bidder
    n_played = 0
    voids = 0
    thrown = 0      # 4 bits per seat: the non-trump suits it has discarded from
    lost = 0
    # the expert (7.3) needs every seat's voids, the current trick's cards and
    # the plays so far, and keeps a transposition table for the hand
    expert = False
    for s in range(P):
        if kinds[s] == EXPERT:
            expert = True
    track = P == 4 or expert
    for s in range(P):
        if kinds[s] != RANDOM and params[s, PARAM.KEEP_GUARDS]:
            track = True
    _, tbits, hist, tt, stack = ps
    n_hist = 0
    if expert:
        tt[:, 0] = -1       # a transposition table for each hand
    plan_seats, cover_seats = roles(P, T, contract, bidder, kinds, params)
    for _t in range(T):
        seat = leader
        win_seat = -1
        led_bits = 0
        led_e = 0
        win_bit = 0
        beat = 0        # play bits that beat the winning card: higher in its suit, or trumps
        for k in range(P):
            h = hands[seat]
            legal = h & led_bits
            if legal == 0:
                legal = h
            if kinds[seat] == RANDOM:
                # uniform over the legal cards in card-id order (7.1)
                ids = 0
                m = legal
                while m:
                    ids |= 1 << CARD_OF[o, trailing_zeros(m)]
                    m &= m - 1
                b = BIT_OF[o, nth_bit(ids, bounded(st, popcount(ids)))]
            else:
                b = heuristic_play(h, legal, k, seat, o, unplayed, voids, thrown, leader, P,
                                   win_seat, win_bit, beat, led_e, bidder, lost, plan_seats,
                                   cover_seats, params)
                if kinds[seat] == EXPERT:
                    b = searched(search, b, seat, hands, P, T, o, tbits, k, unplayed, voids,
                                  tricks, bidder, contract, rules, kinds, params, st, tt,
                                  stack, b, hist, n_hist, auction, planned)
            tbits[k] = b
            if expert:
                hist[0, n_hist] = b
                hist[1, n_hist] = seat
                n_hist += 1
            if trace:
                tr_plays[j, n_played] = CARD_OF[o, b]
                n_played += 1
            unplayed, led_e, led_bits, voids, thrown, beat, win_seat, win_bit = card_played(
                b, k, seat, h, o, hands, unplayed, led_e, led_bits, voids, thrown, beat,
                win_seat, win_bit, track)
            seat = next_seat(seat, P)
        tricks[win_seat] += 1
        if P == 4 and (win_seat ^ bidder) & 1:
            lost += 1
        leader = win_seat
    if trace:
        for k in range(n_played, tr_plays.shape[1]):
            tr_plays[j, k] = -1


@kernel(inline=True)
def contract_score(contract, won, tricks, fail, ndogo_stake, kubwa_stake):
    """§5: the score change of the side holding ``contract`` that won ``won`` of the
    hand's ``tricks`` tricks (the other sides score the tricks they won).

    A number bid made scores the tricks won, failed loses the hand size
    (``FailCode.FLAT``) or the bid (``FailCode.BID``); Ndogo and Kubwa win or lose
    their stake times the hand size.  The one copy of this rule outside the
    reference engine: the kernels and the Python entry points call it."""
    if contract < tricks:
        if won >= contract:
            return won
        return -tricks if fail == FailCode.FLAT else -contract
    stake = ndogo_stake if contract == tricks else kubwa_stake
    return stake * tricks if won >= tricks else -stake * tricks


@kernel
def contract_scores(contract, won, rules):
    """:func:`contract_score` of ``contract`` for each entry of the array ``won``
    under the rules vector ``rules``."""
    out = np.empty(won.shape[0], np.int64)
    for i in range(won.shape[0]):
        out[i] = contract_score(contract, won[i], rules[R.TRICKS], rules[R.FAIL],
                                rules[R.NDOGO_STAKE], rules[R.KUBWA_STAKE])
    return out


@kernel(inline=True)
def play_contract(bidder, high, hands, rules, kinds, params, st, recs, j, tricks,
                  trace, tr_plays, auction, planned, ps, search):
    """Trump, play and scoring once ``bidder`` holds contract ``high`` (§3.3, 4, 5).
    ``auction``: the calls (``hold_auction``; -1 first: none); ``planned``: the seat
    that called by a plan (-1: none), whose calls say nothing of its cards."""
    P = rules[R.PLAYERS]
    T = rules[R.TRICKS]
    for s in range(4):
        tricks[s] = 0
    recs[j, C_CONTRACT] = high
    recs[j, C_BIDDER] = bidder
    # -- trump (3.3)
    if kinds[bidder] == RANDOM:
        o = bounded(st, 5 if rules[R.NO_TRUMP] else 4)
    else:
        o = choose_trump(hands[bidder], high, rules)
    recs[j, C_TRUMP] = o
    _bidder_features(hands[bidder], o, recs, j)
    _play_tricks(bidder, high, o, hands, P, T, kinds, params, st, tricks, j, trace, tr_plays,
                 rules, auction, planned, ps, search)
    # -- scoring (5)
    for s in range(3):
        recs[j, C_SIDE_TRICKS + s] = 0
        recs[j, C_SCORE + s] = 0
    for s in range(4):
        recs[j, C_TRICKS + s] = tricks[s]
        if s < P:
            side = s % 2 if P == 4 else s
            recs[j, C_SIDE_TRICKS + side] += tricks[s]
    bs = bidder % 2 if P == 4 else bidder
    won = recs[j, C_SIDE_TRICKS + bs]
    recs[j, C_MADE] = won >= (high if high < T else T)
    delta = contract_score(high, won, T, rules[R.FAIL], rules[R.NDOGO_STAKE],
                           rules[R.KUBWA_STAKE])
    for s in range(rules[R.SIDES]):
        recs[j, C_SCORE + s] = delta if s == bs else recs[j, C_SIDE_TRICKS + s]


@kernel(inline=True)
def _block_size(size, search):
    """Units per prange task: ``size``, or :data:`EXPERT_BLOCK` when a seat
    plays the expert (``search`` given).  No hand depends on its block."""
    return size if search is None else EXPERT_BLOCK


@kernel(inline=True)
def _scratch():
    """Per-task working arrays: stream, deck, hands, desired levels, tricks, a
    one-row record and an empty trace (for calls made without tracing)."""
    return (np.empty(2, np.uint64), np.empty(24, np.int64), np.empty(4, np.int64),
            np.empty(4, np.int64), np.empty(4, np.int64), np.empty((1, N_COLS), np.int16),
            np.empty((1, 1), np.int64))


@kernel(inline=True)
def _play_scratch(kinds):
    """Per-task working arrays of the play (:func:`play_hand`): the auction's
    calls, the current trick's cards, and, full size only when a seat plays
    the expert, the plays so far (play bits, seats), its transposition table
    and its search stack."""
    expert = False
    for s in range(kinds.shape[0]):
        if kinds[s] == EXPERT:
            expert = True
    return (np.empty(MAX_CALLS, np.int64), np.zeros(4, np.int64),
            np.zeros((2, 24 if expert else 1), np.int64),
            np.zeros((EXPERT_TT if expert else 1, 3), np.int64),
            np.zeros((MAXPLY if expert else 1, N_FIELDS), np.int64))


@kernel(parallel=True)
def run_hands(start, count, key, rules, kinds, params, rec, trace, tr_calls, tr_plays, tr_deal,
              search):
    """Play hands ``start .. start+count-1`` (stream = hand number) into ``rec[j]``.

    Blocks of hands go to threads through ``prange``; each hand's stream depends
    only on (key, hand number), so results do not depend on threads or blocks.
    ``search``: None unless a seat plays the expert (the api's ``_search``);
    every kernel below takes it.
    """
    P = rules[R.PLAYERS]
    size = _block_size(BLOCK, search)
    for b in numba.prange(blocks(count, size)):
        st, deck, hands, desired, tricks, _, _ = _scratch()
        ps = _play_scratch(kinds)
        dealer = (start + b * size) % P       # hand i is dealt by seat i mod P
        for j in block(b, count, size):
            start_stream(st, key, start + j)
            deal(st, dealer, rules, deck, hands)
            if trace:
                for s in range(4):
                    tr_deal[j, s] = hands[s]
            play_hand(dealer, hands, rules, kinds, params, st, rec, j, desired, tricks,
                      -1, PLAN_POLICY, trace, tr_calls, tr_plays, ps, search)
            dealer = next_seat(dealer, P)


@kernel
def _game(st, rules, kinds, params, init, first_dealer, grec, row, deck, hands, desired,
          tricks, no_trace, ps, hist, search):
    """One game (seeds/pepper.md 6) from scores ``init``; ``first_dealer`` < 0 draws one.
    ``hist`` holds the top after each round (:mod:`simkit.base.lead`); returns it,
    grown if the game outlasted it, for the block's next game."""
    P = rules[R.PLAYERS]
    n_sides = rules[R.SIDES]
    target = rules[R.TARGET]
    dealer = bounded(st, P) if first_dealer < 0 else first_dealer
    grec[G_FIRST_DEALER] = dealer
    scores = init.copy()
    rounds = 0
    unfinished = 1
    winners = 0
    while rounds < rules[R.MAX_ROUNDS]:
        deal(st, dealer, rules, deck, hands)
        play_hand(dealer, hands, rules, kinds, params, st, row, 0, desired, tricks,
                  -1, PLAN_POLICY, False, no_trace, no_trace, ps, search)
        dealer = next_seat(dealer, P)
        top = -1 << 30
        for s in range(n_sides):
            scores[s] += row[0, C_SCORE + s]
            top = max(top, scores[s])
        # the sides on the top score: the round's top, and the winners once at the target
        mask = 0
        for s in range(n_sides):
            if scores[s] == top:
                mask |= 1 << s
        hist = note(hist, rounds, mask)
        rounds += 1
        if top >= target:
            winners = mask
            if popcount(mask) == 1 or rules[R.TIE] == TieCode.SHARED:
                unfinished = 0
                break
    grec[G_ROUNDS] = rounds
    for s in range(3):
        grec[G_SCORE + s] = scores[s]
    grec[G_WINNERS] = winners if unfinished == 0 else 0
    grec[G_UNFINISHED] = unfinished
    changes, comeback, settled = summary(hist, rounds, grec[G_WINNERS])
    grec[G_LEAD_CHANGES] = changes
    grec[G_COMEBACK] = comeback
    grec[G_SETTLED] = settled
    return hist


@kernel(parallel=True)
def run_games(start, count, key, rules, kinds, params, grec, init, first_dealer, search):
    """Play whole games ``start .. start+count-1`` (stream = game number) into ``grec[j]``,
    each from scores ``init`` (int64[3]) with ``first_dealer`` (< 0: drawn per game)."""
    size = _block_size(GAME_BLOCK, search)
    for b in numba.prange(blocks(count, size)):
        st, deck, hands, desired, tricks, row, no_trace = _scratch()
        ps = _play_scratch(kinds)
        hist = new_history()
        for j in block(b, count, size):
            start_stream(st, key, start + j)
            hist = _game(st, rules, kinds, params, init, first_dealer, grec[j], row, deck,
                         hands, desired, tricks, no_trace, ps, hist, search)


@kernel(inline=True)
def _held(seat, dealer, contract, plan, wanted, hands, rules, kinds, params, st, rec, j, desired,
          tricks, trace, tr_calls, tr_plays, no_calls, ps, search):
    """Row ``j``: the dealt hand with ``seat`` held to ``contract`` > 0, played with
    no auction (the auction columns 0; with ``wanted``, a heuristic declarer's
    ``C_BID`` column holds the level it would have wanted), or else calling by
    ``plan`` through the whole auction.  The play is compiled in once."""
    calls = no_calls
    if contract > 0:
        for s in range(C_TRUMP):
            rec[j, s] = 0
        rec[j, C_DEALER] = dealer
        if wanted and kinds[seat] != RANDOM:
            rec[j, C_BID + seat] = desired_level(hands[seat], rules, params, seat)
        if trace:
            for k in range(MAX_CALLS):
                tr_calls[j, k] = -1
        high, holder, planned = contract, seat, -1
    else:
        high, holder, planned = _bid_hand(dealer, hands, rules, kinds, params, st, rec, j,
                                          desired, seat, plan, trace, tr_calls, tr_plays, ps)
        calls = ps[0]
    if high > 0:
        play_contract(holder, high, hands, rules, kinds, params, st, rec, j, tricks, trace,
                      tr_plays, calls, planned, ps, search)


@kernel(parallel=True)
def run_plan(first, count, key, rules, kinds, params, seat, dealer, fixed, plan, contract, rec,
             trace, tr_calls, tr_plays, tr_deal, search):
    """Samples ``first .. first+count-1`` (row ``j`` is sample ``first + j``): deals
    in which ``seat`` holds the cards of mask ``fixed`` and the other hands are
    dealt uniformly from the rest (stream = sample number, :func:`deal_fixed`).
    With ``contract`` > 0, ``seat`` plays it with no auction (9.1; the auction
    columns stay 0); otherwise the whole hand is played, auction included, with
    ``seat`` calling by ``plan`` (9.3; ``PLAN_POLICY``: by its policy).  Rows of
    ``rec`` are hand records; with ``trace`` the calls, plays and dealt masks as
    :func:`run_hands` traces them."""
    H = rules[R.HANDS_DEALT]
    size = _block_size(BLOCK, search)
    for b in numba.prange(blocks(count, size)):
        st, _, hands, desired, tricks, _, _ = _scratch()
        ps = _play_scratch(kinds)
        rest = np.empty(24 - 24 // H, np.int64)
        no_calls = np.full(1, -1, np.int64)
        for j in block(b, count, size):
            start_stream(st, key, first + j)
            deal_fixed(st, seat, dealer, fixed, rules, rest, hands)
            if trace:
                for s in range(4):
                    tr_deal[j, s] = hands[s]
            _held(seat, dealer, contract, plan, False, hands, rules, kinds, params, st, rec, j,
                  desired, tricks, trace, tr_calls, tr_plays, no_calls, ps, search)


@kernel(parallel=True)
def run_first(numbers, key, rules, kinds, params, plan, contract, rec, search):
    """Deal hands ``numbers[j]`` (any hand numbers: a run's range, or the deals a
    study picked) as :func:`run_hands` deals them, into ``rec[j]``; the seat left
    of the dealer, the first to speak, is held to ``contract`` or ``plan``.

    With ``contract`` > 0 the auction is skipped and that seat plays it (9.2):
    every deal is played whatever its strength, so rates by hand class are not
    biased by who would have bid; a heuristic declarer's ``C_BID`` column holds
    the level it would have wanted (7.2, D).  Otherwise the hand is played,
    auction included, with that seat calling by ``plan`` (9.3).
    """
    P = rules[R.PLAYERS]
    count = numbers.shape[0]
    size = _block_size(BLOCK, search)
    for b in numba.prange(blocks(count, size)):
        st, deck, hands, desired, tricks, _, no_trace = _scratch()
        ps = _play_scratch(kinds)
        no_calls = np.full(1, -1, np.int64)
        for j in block(b, count, size):
            dealer = deal_number(st, key, numbers[j], rules, deck, hands)
            seat = next_seat(dealer, P)
            _held(seat, dealer, contract, plan, True, hands, rules, kinds, params, st, rec, j,
                  desired, tricks, False, no_trace, no_trace, no_calls, ps, search)


# --- streaming aggregates ----------------------------------------------------
#: Group axes of :func:`run_hands_agg`: contract level, made, bidder's trumps,
#: bowers, outside aces, outside voids, bidder's seat counted from the dealer
#: (1 = left of the dealer ... P = the dealer; 0 = thrown in).
AGG_SHAPE = (10, 2, 8, 3, 5, 4, 5)
AGG_STATS = 4        # hands, bidder side points, their squares, opponents' points
AGG_LANES = 8        # fixed, so the split of work never depends on the thread count


@kernel(inline=True)
def _agg_add(rec, dealer, P, S, agg, lane):
    """Add the hand in ``rec[0]`` to its group's counts and sums."""
    bidder = rec[0, C_BIDDER]
    own = 0
    opp = 0
    seat = 0
    if bidder >= 0:
        seat = (bidder - dealer + P) % P
        if seat == 0:
            seat = P
        bs = bidder % 2 if P == 4 else bidder
        for s in range(S):
            if s == bs:
                own = rec[0, C_SCORE + s]
            else:
                opp += rec[0, C_SCORE + s]
    cell = rec[0, C_CONTRACT]
    cell = cell * 2 + rec[0, C_MADE]
    cell = cell * 8 + rec[0, C_F_TRUMPS]
    cell = cell * 3 + rec[0, C_F_BOWERS]
    cell = cell * 5 + rec[0, C_F_ACES]
    cell = cell * 4 + rec[0, C_F_VOIDS]
    cell = cell * 5 + seat
    agg[lane, cell, 0] += 1
    agg[lane, cell, 1] += own
    agg[lane, cell, 2] += own * own
    agg[lane, cell, 3] += opp


@kernel(parallel=True)
def run_hands_agg(start, count, key, rules, kinds, params, agg, search):
    """Play hands ``start .. start+count-1`` like :func:`run_hands` but keep only
    counts and sums per group: ``agg[lane, cell, stat]`` (cells in C order of
    ``AGG_SHAPE``).  Sums are integers, so the totals over lanes are exact
    whatever thread ran which lane.  Lanes, not blocks, go to threads: each
    lane takes every ``n_lanes``-th block."""
    P = rules[R.PLAYERS]
    S = rules[R.SIDES]
    size = _block_size(BLOCK, search)
    n_blocks = blocks(count, size)
    n_lanes = agg.shape[0]
    for lane in numba.prange(n_lanes):
        st, deck, hands, desired, tricks, rec, no_trace = _scratch()
        ps = _play_scratch(kinds)
        for b in range(lane, n_blocks, n_lanes):
            dealer = (start + b * size) % P
            for j in block(b, count, size):
                start_stream(st, key, start + j)
                deal(st, dealer, rules, deck, hands)
                play_hand(dealer, hands, rules, kinds, params, st, rec, 0, desired, tricks,
                          -1, PLAN_POLICY, False, no_trace, no_trace, ps, search)
                _agg_add(rec, dealer, P, S, agg, lane)
                dealer = next_seat(dealer, P)
