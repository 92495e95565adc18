"""Pepper in numba: the rules of ``seeds/pepper.md``, arrays in, arrays out.

Hands are 24-bit masks (bit = card id, see ``rules.DECK``).  Once the trump
is named, the hands are relabelled into "play bits" ordered by rank within
the trump option (0..3 = C D H S, 4 = no trump), trumps on top, so that the
lowest card of a set, a suit's boss and the cards that beat the winning card
are single bit operations (``tables.py``).  The heuristic's hand estimates are per-suit table
lookups.  All decisions are exactly those of seeds/pepper.md section 7.

Entry points: :func:`run_rows`, the plain-Python driver of the one batch
kernel (:func:`_lanes`, jitted through ``simkit.base.jit.kernel``), which takes
one :class:`RowsJob`, and the Python functions that call it for each kind of
run:

* :func:`run_hands` plays hands ``start .. start+count-1`` of a run, one per
  stream, into a record matrix (columns ``C_*``), in parallel over blocks.
* :func:`run_hands_agg` plays the same hands into per-group counts and sums.
* :func:`run_games` plays whole games (one stream per game) into game records.
* :func:`run_plan` plays around a fixed hand: a declared contract with no
  auction, or the auction with the hand's seat bidding by a plan (the advisor,
  seeds/pepper.md 9.1 and 9.3); :func:`run_first` the same two for the first
  speaker on the deals of :func:`run_hands` (the studies).
* :func:`play_hand` / :func:`play_contract` are the single-hand core.

Around them: the auction is ``kernel_bidding.py``, the heuristic's card play
and the resolution of a trick ``kernel_play.py``, and what an expert seat
(7.3) infers, with its search, ``kernel_inference.py`` (on ``expert.py`` and
the double-dummy solver of ``solver.py``).  The card tables, play bits and
the deal are in ``tables.py``; the record columns in ``kernel_columns.py``.
The readable twin is ``reference.py`` with ``reference_players.py``; the two
never share code.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.base.bits import next_seat, nth_bit, popcount
from simkit.base.jit import block, if_given, in_lanes, kernel
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
    N_GCOLS,
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

BLOCK = 256          # hands or games per block (a lane: simkit.base.jit.in_lanes)
EXPERT_BLOCK = 4     # hands or games per block at a table that seats the expert: its hands
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
def _bid_hand(dealer, hands, rules, kinds, params, st, recs, j, desired, plan_seat, plan,
              trace, tr_calls, tr_plays, ps):
    """The auction of :func:`play_hand`, its calls in ``ps[0]``: ``(contract, holder,
    planned)``, the contract 0 when the hand is thrown in (row ``j`` then
    complete)."""
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
    then the expert's search is not even compiled (``kernel_inference.searched``)."""
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
                                 tricks, bidder, contract, rules, kinds, params, st, tt, stack,
                                 hist, n_hist, auction, planned)
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


@kernel(inline=True)
def play_hand(seat, dealer, contract, plan, wanted, hands, rules, kinds, params, st, rec, j,
              desired, tricks, trace, tr_calls, tr_plays, no_calls, ps, search):
    """Auction, trump, play and scoring of one dealt hand into row ``j`` of ``rec``.

    ``hands[seat]`` are the dealt masks (consumed).  Random-policy seats draw
    from ``st``.  With ``contract`` > 0, ``seat`` plays it with no auction (the
    auction columns 0; with ``wanted``, a heuristic declarer's ``C_BID`` column
    holds the level it would have wanted); otherwise the whole auction, with
    ``seat`` (-1: none) calling by ``plan`` (seeds/pepper.md 9.3, codes in
    ``rules.py``; ``PLAN_POLICY``: by its policy).  With ``trace`` the calls
    (seat * 16 + level) and the cards played are written to row ``j`` of
    ``tr_calls`` / ``tr_plays``.  Rows are indexed rather than sliced: a slice
    is a new array and costs reference counting.  ``ps``, ``search``: the
    play's scratch and the expert's switch (:func:`_play_tricks`).  The play
    is compiled in once: :func:`_lane` calls this at one place."""
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


@kernel
def _play_apart(seat, dealer, contract, plan, wanted, hands, rules, kinds, params, st, rec, j,
                desired, tricks, trace, tr_calls, tr_plays, no_calls, ps, search):
    """:func:`play_hand` compiled on its own, for the runs that seat the expert.
    Their time is the search, where a call costs nothing measurable; and their
    specialization of :func:`_lanes` then does not type the play a second
    time (the expert's warm-up step compiled in 66 s instead of 91).  numba
    drops a branch on ``x is None`` only where ``x`` is None, so two arguments
    of :func:`_lane` choose: ``whole`` None drops the inlined play,
    ``search`` None drops the call."""
    play_hand(seat, dealer, contract, plan, wanted, hands, rules, kinds, params, st, rec, j,
              desired, tricks, trace, tr_calls, tr_plays, no_calls, ps, search)


#: In a kernel, ``_play_searched(search, None, <play_hand's arguments>)`` is
#: :func:`_play_apart`'s call where ``search`` is given; where it is None, nothing.
_play_searched = if_given(_play_apart)


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


class Rows(IntEnum):
    """What :func:`run_rows` deals and where it writes each unit."""
    HANDS = 0       # hand start + j, dealt by stream, into rec[j] (run_hands)
    AGG = 1         # the same hands, into per-group counts and sums (run_hands_agg)
    FIRST = 2       # hand numbers[j]; the first to speak held to contract or plan (run_first)
    PLAN = 3        # sample start + j around a fixed hand (run_plan)
    GAMES = 4       # game start + j, one stream for all its hands, into grec[j] (run_games)


@kernel(inline=True)
def _game_round(scores, row, rules, hist, rounds):
    """Add the hand in ``row[0]`` to a game's ``scores`` (seeds/pepper.md 6):
    ``(hist, over, winners)``, ``hist`` the top after each round
    (:mod:`simkit.base.lead`, grown if the game outlasted it), ``over`` once a
    side alone (or, with shared ties, any) is at the target."""
    top = -1 << 30
    for s in range(rules[R.SIDES]):
        scores[s] += row[0, C_SCORE + s]
        top = max(top, scores[s])
    # the sides on the top score: the round's top, and the winners once at the target
    mask = 0
    for s in range(rules[R.SIDES]):
        if scores[s] == top:
            mask |= 1 << s
    hist = note(hist, rounds, mask)
    if top >= rules[R.TARGET]:
        return hist, popcount(mask) == 1 or rules[R.TIE] == TieCode.SHARED, mask
    return hist, False, 0


@kernel(inline=True)
def _game_record(g, scores, rounds, over, winners, hist):
    """A finished (or unfinished: out of rounds) game's record ``g``."""
    g[G_ROUNDS] = rounds
    for s in range(3):
        g[G_SCORE + s] = scores[s]
    g[G_WINNERS] = winners if over else 0
    g[G_UNFINISHED] = 0 if over else 1
    changes, comeback, settled = summary(hist, rounds, g[G_WINNERS])
    g[G_LEAD_CHANGES] = changes
    g[G_COMEBACK] = comeback
    g[G_SETTLED] = settled


@kernel
def _lane(lane, n_lanes, n_blocks, size, how, units, key, rules, kinds, params, search, start,
          numbers, seat, dealer, fixed, plan, contract, rec, agg, grec, init, trace, tr_calls,
          tr_plays, tr_deal, whole):
    """The work of lane ``lane`` of :func:`run_rows` (after ``size``, the fields
    of :class:`RowsJob` and ``whole``): every ``n_lanes``-th block of ``size``
    units from block ``lane``."""
    P = rules[R.PLAYERS]
    S = rules[R.SIDES]
    H = rules[R.HANDS_DEALT]
    st, deck, hands, desired, tricks, row, _ = _scratch()
    ps = _play_scratch(kinds)
    rest = np.empty(24 - 24 // H, np.int64)
    no_calls = np.full(1, -1, np.int64)
    hist = new_history()
    scores = init.copy()
    out = row if how == Rows.AGG or how == Rows.GAMES else rec
    for b in range(lane, n_blocks, n_lanes):
        for j in block(b, units, size):
            d = dealer
            rounds = 0
            if how == Rows.GAMES:
                start_stream(st, key, start + j)
                d = bounded(st, P) if dealer < 0 else dealer
                grec[j, G_FIRST_DEALER] = d
                scores[:] = init
            over = False
            winners = 0
            while True:
                held = -1
                if how == Rows.PLAN:
                    start_stream(st, key, start + j)
                    deal_fixed(st, seat, dealer, fixed, rules, rest, hands)
                    held = seat
                elif how == Rows.GAMES:
                    deal(st, d, rules, deck, hands)
                else:
                    d = deal_number(st, key, numbers[j] if how == Rows.FIRST else start + j,
                                    rules, deck, hands)
                    if how == Rows.FIRST:
                        held = next_seat(d, P)
                if trace:
                    for s in range(4):
                        tr_deal[j, s] = hands[s]
                r = 0 if how == Rows.AGG or how == Rows.GAMES else j
                if whole is None:
                    _play_searched(search, None, held, d, contract, plan, how == Rows.FIRST,
                                   hands, rules, kinds, params, st, out, r, desired, tricks,
                                   trace, tr_calls, tr_plays, no_calls, ps, search)
                else:
                    play_hand(held, d, contract, plan, how == Rows.FIRST, hands, rules,
                              kinds, params, st, out, r, desired, tricks, trace, tr_calls,
                              tr_plays, no_calls, ps, search)
                if how == Rows.AGG:
                    _agg_add(out, d, P, S, agg, lane)
                if how != Rows.GAMES:
                    break
                d = next_seat(d, P)
                hist, over, winners = _game_round(scores, row, rules, hist, rounds)
                rounds += 1
                if over or rounds >= rules[R.MAX_ROUNDS]:
                    break
            if how == Rows.GAMES:
                _game_record(grec[j], scores, rounds, over, winners, hist)


@kernel
def _lanes(lo, hi, n_lanes, n_blocks, size, how, units, key, rules, kinds, params, search,
           start, numbers, seat, dealer, fixed, plan, contract, rec, agg, grec, init, trace,
           tr_calls, tr_plays, tr_deal, whole):
    """Lanes ``lo .. hi-1`` of :func:`run_rows` (its arguments, as :func:`_lane`'s).
    A lane is a call (of :func:`_lane`), not a loop here: with the lanes' loop
    around the play in one function, hands ran 2-4% slower."""
    for lane in range(lo, hi):
        _lane(lane, n_lanes, n_blocks, size, how, units, key, rules, kinds, params, search,
              start, numbers, seat, dealer, fixed, plan, contract, rec, agg, grec, init, trace,
              tr_calls, tr_plays, tr_deal, whole)


_Ints = npt.NDArray[np.integer[Any]]    # RowsJob's arrays (their dtypes: the api's)

_NONE = np.empty(0, np.int64)
_NO_TRACE = np.empty((1, 1), np.int64)
_NO_AGG = np.empty((1, 1, AGG_STATS), np.int64)
_NO_REC = np.empty((1, N_COLS), np.int16)
_NO_GAMES = np.empty((1, N_GCOLS), np.int64)
_NO_INIT = np.zeros(3, np.int64)


class RowsJob(NamedTuple):
    """One call of :func:`run_rows`: which units, at which table, into which
    arrays.  The fields are, in order, :func:`_lane`'s arguments after
    ``size`` (``whole`` is made from ``search``); a field a kind of run does
    not use keeps its default.

    * ``how``: the kind of unit (:class:`Rows`); ``units``: how many;
    * ``key``: the run's key, of which each unit's stream is made;
    * ``rules``, ``kinds``, ``params``: the rules vector, each seat's policy
      and its parameters;
    * ``search``: None unless a seat plays the expert (the api's ``_search``);
    * ``start``: the number of unit 0 (not ``FIRST``); ``numbers``: the hand
      numbers of ``FIRST``;
    * ``seat``, ``dealer``, ``fixed``: ``PLAN``'s held seat, its dealer and the
      mask of the held cards (``dealer`` is also ``GAMES``'s first dealer, < 0:
      drawn per game);
    * ``plan``, ``contract``: how the held seat (``PLAN``, ``FIRST``) calls
      (``PLAN_POLICY``: by its policy), or, > 0, the contract it plays with no
      auction;
    * ``rec``, ``agg``, ``grec``: hand records, ``AGG``'s counts and sums, game
      records; ``init``: the games' starting scores;
    * ``trace``, ``tr_calls``, ``tr_plays``, ``tr_deal``: whether hands are
      traced, and the traces' rows (:func:`run_hands`).
    """

    how: Rows
    units: int
    key: np.uint64
    rules: _Ints
    kinds: _Ints
    params: _Ints
    search: bool | None
    start: int = 0
    numbers: _Ints = _NONE
    seat: int = -1
    dealer: int = -1
    fixed: int | np.int64 = 0
    plan: int = PLAN_POLICY
    contract: int = 0
    rec: _Ints = _NO_REC
    agg: _Ints = _NO_AGG
    grec: _Ints = _NO_GAMES
    init: _Ints = _NO_INIT
    trace: bool = False
    tr_calls: _Ints = _NO_TRACE
    tr_plays: _Ints = _NO_TRACE
    tr_deal: _Ints = _NO_TRACE


def run_rows(job: RowsJob) -> None:
    """The one batch driver of Pepper: ``job.units`` units, each a hand (or a
    whole game of hands) as ``job.how`` (:class:`Rows`) deals and records it,
    played by the serial kernel :func:`_lanes`.  The Python functions below
    are its entry points.  One kernel, not five: the play is most of a
    kernel's compile time, and it is compiled in once, at the one call of
    :func:`play_hand`; the branches on ``how`` cost nothing measurable per
    hand.

    Work goes to threads in lanes (:func:`simkit.base.jit.in_lanes`); a lane
    takes every ``n_lanes``-th block of units (with ``AGG``, ``agg.shape[0]``
    lanes, so that the split never depends on the thread count; otherwise a
    lane per block).  Each unit's stream depends only on (key, its number).
    ``whole`` (:func:`_play_apart`): None when a seat plays the expert (the
    play is called, not inlined), else True."""
    size = BLOCK if job.search is None else EXPERT_BLOCK
    n_blocks = -(-job.units // size)
    n_lanes = job.agg.shape[0] if job.how == Rows.AGG else n_blocks
    whole = None if job.search is not None else True
    # the kind as a plain int: the kernels' one compiled type for it
    in_lanes(_lanes, n_lanes, n_lanes, n_blocks, size, int(job.how), *job[1:], whole)


def run_hands(start: int, count: int, key: np.uint64, rules: _Ints, kinds: _Ints, params: _Ints,
              rec: _Ints, trace: bool, tr_calls: _Ints, tr_plays: _Ints, tr_deal: _Ints,
              search: bool | None) -> None:
    """Play hands ``start .. start+count-1`` (stream = hand number, dealer = hand
    number mod players) into ``rec[j]``; with ``trace`` the calls (seat * 16 +
    level), the cards played and the dealt masks into row ``j`` of ``tr_calls``,
    ``tr_plays``, ``tr_deal``.  ``search``: None unless a seat plays the expert
    (the api's ``_search``); every kernel takes it.  Results depend on (key,
    hand number) only, never on threads or blocks."""
    run_rows(RowsJob(how=Rows.HANDS, units=count, key=key, rules=rules, kinds=kinds,
                     params=params, search=search, start=start, rec=rec, trace=trace,
                     tr_calls=tr_calls, tr_plays=tr_plays, tr_deal=tr_deal))


def run_hands_agg(start: int, count: int, key: np.uint64, rules: _Ints, kinds: _Ints,
                  params: _Ints, agg: _Ints, search: bool | None) -> None:
    """Play hands ``start .. start+count-1`` like :func:`run_hands` but keep only
    counts and sums per group: ``agg[lane, cell, stat]`` (cells in C order of
    ``AGG_SHAPE``).  Sums are integers, so the totals over lanes are exact
    whatever thread ran which lane."""
    run_rows(RowsJob(how=Rows.AGG, units=count, key=key, rules=rules, kinds=kinds,
                     params=params, search=search, start=start, agg=agg))


def run_first(numbers: _Ints, key: np.uint64, rules: _Ints, kinds: _Ints, params: _Ints, plan: int,
              contract: int, rec: _Ints, search: bool | None) -> None:
    """Deal hands ``numbers[j]`` (any hand numbers: a run's range, or the deals a
    study picked) as :func:`run_hands` deals them, into ``rec[j]``; the seat left
    of the dealer, the first to speak, is held to ``contract`` or ``plan``.

    With ``contract`` > 0 the auction is skipped and that seat plays it (9.2):
    every deal is played whatever its strength, so rates by hand class are not
    biased by who would have bid; a heuristic declarer's ``C_BID`` column holds
    the level it would have wanted (7.2, D).  Otherwise the hand is played,
    auction included, with that seat calling by ``plan`` (9.3).
    """
    run_rows(RowsJob(how=Rows.FIRST, units=numbers.shape[0], key=key, rules=rules, kinds=kinds,
                     params=params, search=search, numbers=numbers, plan=plan,
                     contract=contract, rec=rec))


def run_plan(first: int, count: int, key: np.uint64, rules: _Ints, kinds: _Ints, params: _Ints,
             seat: int, dealer: int, fixed: int | np.int64, plan: int, contract: int,
             rec: _Ints, trace: bool,
             tr_calls: _Ints, tr_plays: _Ints, tr_deal: _Ints, search: bool | None) -> None:
    """Samples ``first .. first+count-1`` (row ``j`` is sample ``first + j``): deals
    in which ``seat`` holds the cards of mask ``fixed`` and the other hands are
    dealt uniformly from the rest (stream = sample number, :func:`deal_fixed`).
    With ``contract`` > 0, ``seat`` plays it with no auction (9.1; the auction
    columns stay 0); otherwise the whole hand is played, auction included, with
    ``seat`` calling by ``plan`` (9.3; ``PLAN_POLICY``: by its policy).  Rows of
    ``rec`` are hand records; with ``trace`` the calls, plays and dealt masks as
    :func:`run_hands` traces them."""
    run_rows(RowsJob(how=Rows.PLAN, units=count, key=key, rules=rules, kinds=kinds,
                     params=params, search=search, start=first, seat=seat, dealer=dealer,
                     fixed=fixed, plan=plan, contract=contract, rec=rec, trace=trace,
                     tr_calls=tr_calls, tr_plays=tr_plays, tr_deal=tr_deal))


def run_games(start: int, count: int, key: np.uint64, rules: _Ints, kinds: _Ints, params: _Ints,
              grec: _Ints, init: _Ints, first_dealer: int, search: bool | None) -> None:
    """Play whole games ``start .. start+count-1`` (stream = game number) into ``grec[j]``,
    each from scores ``init`` (int64[3]) with ``first_dealer`` (< 0: drawn per game)."""
    run_rows(RowsJob(how=Rows.GAMES, units=count, key=key, rules=rules, kinds=kinds,
                     params=params, search=search, start=start, dealer=first_dealer,
                     grec=grec, init=init))
