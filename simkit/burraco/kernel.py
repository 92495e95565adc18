"""Burraco in numba: the rules of ``seeds/burraco.md``, arrays in, arrays out.

This module holds the hand and game loops and the batch drivers; a turn's
steps (the hand rows, melding, the pile, the discard: section 9's decisions)
are :mod:`simkit.burraco.kernel_play`, the meld rows and meld validity
(section 3, decided independently of ``melds.py``) :mod:`simkit.burraco.kernel_melds`.

Entry points: :func:`run_hands` plays hands ``start .. start+count-1`` of a
run (hand ``i`` dealt by seat ``i mod 4``), one random stream each, into hand
records (columns ``H_*``), with an optional trace of every decision;
:func:`run_games` plays whole games (columns ``G_*``); both through
:func:`run_rows`, the plain-Python driver of the batch kernel, with one
:class:`RowsJob`.
The readable twin is ``reference.py``; the two never share code.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from simkit.base.jit import block, in_lanes, kernel
from simkit.base.lead import new_history, note, summary
from simkit.base.rng import bounded, shuffle, start_stream
from simkit.burraco.kernel_melds import (
    M_KIND,
    M_N,
    MAXC,
    MAXM,
    MELD_SET,
    N_CARDS,
    POINTS,
    Z,
    _has_burraco,
    _valid,
    _wild,
)
from simkit.burraco.kernel_play import (
    HAND_ROWS,
    PILE,
    _discard_choice,
    _give,
    _keep_for,
    _meld,
    _nth_card,
    _take,
    _take_pile,
    _trace,
    _wants_out,
)
from simkit.burraco.policies import PARAM
from simkit.burraco.rules import PozzettoCode, R, StockEndCode, TieCode, UntakenPozzettoCode

BLOCK = 64           # hands per block (simkit.base.jit.in_lanes)
GAME_BLOCK = 4       # whole games per block

# hand record columns
H_DEALER, H_TURNS, H_ENDED, H_CLOSER = range(4)
H_SCORE, H_MELDED, H_PENALTY, H_CLEAN, H_DIRTY, H_BONUS, H_CLOSE_BONUS, H_POZZ_PEN, \
    H_POZZ_TURN, H_MELDS, H_SETS, H_SEQUENCES, H_WILDS = (4 + 2 * i for i in range(13))
N_HCOLS = 30
ENDED_CLOSED, ENDED_STOCK, ENDED_CAP = range(3)
# game record columns
G_FIRST_DEALER, G_HANDS, G_SCORE, G_WINNER, G_SHARED, G_UNFINISHED = 0, 1, 2, 4, 5, 6
G_LEAD_CHANGES, G_COMEBACK, G_SETTLED = 7, 8, 9     # who led, hand by hand (simkit.base.lead)
N_GCOLS = 10



@kernel(inline=True)
def _deal(st, dealer, deck, hand, pile, z):
    """Shuffle and deal (section 1): eleven cards to each seat from the dealer's
    left, two pozzetti of eleven, one card face up on the discard pile."""
    shuffle(st, deck)
    for q in range(44):
        seat = (dealer + 1 + q % 4) % 4
        _give(hand, seat, deck[q])
        z[Z.HN + seat] += 1
    pile[0] = deck[66]
    _give(hand, PILE, deck[66])
    z[Z.SP] = 67
    z[Z.PN] = 1


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
    for m in range(z[Z.MCOUNT + t]):
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
    if z[Z.POZZ + t] < 0:
        if rules[R.UNTAKEN_POZZETTO] == UntakenPozzettoCode.FLAT:
            pen = -100
        else:   # the one the other team did not take; with none taken, the first
                # is the starting team's (left of the dealer), the second the other's
            if z[Z.WHICH + 1 - t] >= 0:
                which = 1 - z[Z.WHICH + 1 - t]
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
    rec[H_POZZ_TURN + t] = z[Z.POZZ + t]
    rec[H_MELDS + t] = z[Z.MCOUNT + t]
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
    z = np.zeros(Z.N.value, np.int64)
    _deal(st, dealer, deck, hand, pile, z)
    z[Z.DIRECT_ONLY] = rules[R.POZZETTO] == PozzettoCode.DIRECT
    for t in range(2):
        z[Z.POZZ + t] = -1
        z[Z.WHICH + t] = -1
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
    while z[Z.TURNS] < rules[R.MAX_TURNS]:
        z[Z.TURNS] += 1
        team = p % 2
        kind = kinds[p]
        prm = params[p]
        before = z[Z.POZZ_NEXT]
        # --- draw
        take = _take_pile(p, hand, pile, z, kind, prm, mcards, rules, st,
                          buf, hl)
        _trace(tr, z, p * 1_000_000 + 1_000 + (1 if take else 0))
        if take:
            for i in range(z[Z.PN]):
                _give(hand, p, pile[i])
                _take(hand, PILE, pile[i])
            z[Z.HN + p] += z[Z.PN]
            z[Z.PN] = 0
        else:
            _give(hand, p, deck[z[Z.SP]])
            z[Z.HN + p] += 1
            z[Z.SP] += 1
            if N_CARDS - z[Z.SP] == 2:        # section 5: the stock is down to two
                ended = ENDED_STOCK
                if rules[R.STOCK_END] == StockEndCode.STOP:
                    break                     # play stops at once
                last = True                   # finish: the hand ends after this turn
        # --- meld
        _keep_for(p, kind, prm, z, rules, mcards, st, buf, tr)
        _meld(p, hand, z, deck, kind, prm, rules, mcards, st,
              buf, one, tr, hl, at)
        if prm[PARAM.CLOSE_AFTER] == 1 and z[Z.KEEP] == 2 and _has_burraco(team, z, mcards) \
                and _wants_out(team, kind, prm, rules, mcards, z, st, buf):
            # the choice to go out taken after melding: keep one card and meld on
            z[Z.KEEP] = 1
            z[Z.CLOSING] = 1
            _trace(tr, z, p * 1_000_000 + 3_000 + 1)
            _meld(p, hand, z, deck, kind, prm, rules, mcards, st,
                  buf, one, tr, hl, at)
        if z[Z.POZZ_NEXT] > before:
            z[Z.WHICH + team] = before
        # --- go out, or discard
        if z[Z.CLOSING] == 1 and z[Z.HN + p] == 1:
            c = _nth_card(hand, p, 0)
            if not _wild(c):
                _take(hand, p, c)
                z[Z.HN + p] = 0
                pile[z[Z.PN]] = c
                _give(hand, PILE, c)
                z[Z.PN] += 1
                _trace(tr, z, p * 1_000_000 + 7_000 + c)
                ended = ENDED_CLOSED
                closer = p
                break
        c = _discard_choice(p, hand, kind, prm, z, mcards, rules, st,
                            buf, hl, unseen)
        _take(hand, p, c)
        z[Z.HN + p] -= 1
        pile[z[Z.PN]] = c
        _give(hand, PILE, c)
        z[Z.PN] += 1
        _trace(tr, z, p * 1_000_000 + 6_000 + c)
        if z[Z.HN + p] == 0:                         # the pozzetto on the discard
            first = 44 + 11 * z[Z.POZZ_NEXT]
            z[Z.WHICH + team] = z[Z.POZZ_NEXT]
            z[Z.POZZ_NEXT] += 1
            z[Z.POZZ + team] = z[Z.TURNS]
            for i in range(11):
                _give(hand, p, deck[first + i])
            z[Z.HN + p] = 11
            _trace(tr, z, p * 1_000_000 + 2_000 + 10 + z[Z.WHICH + team])
        if last:
            break
        p = (p + 1) % 4
    # --- scoring (section 6)
    for c in range(N_HCOLS):
        rec[c] = 0
    rec[H_DEALER] = dealer
    rec[H_TURNS] = z[Z.TURNS]
    rec[H_ENDED] = ended
    rec[H_CLOSER] = closer
    for t in range(2):
        _score_team(t, dealer, closer, rules, deck, hand, mcards, z, buf, rec)


@kernel(inline=True)
def _game(st, rules, kinds, params, rec, no, g, hist):
    """One whole game (section 6) into the game row ``g``: the first dealer drawn,
    the deal passing left, until a team reaches the target (both: the higher
    wins; equal: ``tie``) or ``max_hands`` hands were played.  ``hist`` takes
    the top after each hand (:mod:`simkit.base.lead`); returned, grown if the game
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
            if rules[R.TIE] == TieCode.SHARED:
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


@kernel
def _lanes(lo, hi, games, start, units, key, rules, kinds, params, rec, grec, trace, tr):
    """Blocks ``lo .. hi-1`` of hands (``games`` False: hand ``start
    + j`` into ``rec[j]``, with ``trace`` its decisions into ``tr[j]``) or of
    whole games (into ``grec[j]``).  One kernel for both, so that what links in
    the play is compiled once."""
    st = np.empty(2, np.uint64)
    no = np.empty(1, np.int64)
    row = np.empty(N_HCOLS, np.int64)
    hist = new_history()
    size = GAME_BLOCK if games else BLOCK
    for b in range(lo, hi):
        for j in block(b, units, size):
            start_stream(st, key, start + j)
            if games:
                hist = _game(st, rules, kinds, params, row, no, grec[j], hist)
            else:
                play_hand(st, (start + j) % 4, rules, kinds, params, rec[j],
                          tr[j] if trace else no)


_NO_REC = np.empty((1, N_HCOLS), np.int64)
_NO_GAMES = np.empty((1, N_GCOLS), np.int64)
_NO_TRACE = np.empty((1, 1), np.int64)

_Ints = npt.NDArray[np.integer[Any]]    # RowsJob's arrays (their dtypes: the api's)


class RowsJob(NamedTuple):
    """One call of :func:`run_rows`: the fields are, in order, :func:`_lanes`'s
    arguments after ``hi``; a field a kind of run does not use keeps its
    default.

    * ``games``: whole games (into ``grec``), else hands (into ``rec``);
    * ``start``: the number of unit 0, whose stream it is; ``units``: how many;
    * ``key``: the run's key, of which each unit's stream is made;
    * ``rules``, ``kinds``, ``params``: the rules vector, each seat's policy
      and its parameters;
    * ``rec``, ``grec``: hand records, game records;
    * ``trace``, ``tr``: whether hands are traced, and the traces' rows.
    """

    games: bool
    start: int
    units: int
    key: np.uint64
    rules: _Ints
    kinds: _Ints
    params: _Ints
    rec: _Ints = _NO_REC
    grec: _Ints = _NO_GAMES
    trace: bool = False
    tr: _Ints = _NO_TRACE


def run_rows(job: RowsJob) -> None:
    """The batch driver of Burraco: ``job.units`` hands or whole games, blocks
    of them on threads (:func:`simkit.base.jit.in_lanes`), played by the
    serial kernel :func:`_lanes`."""
    size = GAME_BLOCK if job.games else BLOCK
    in_lanes(_lanes, -(-job.units // size), *job)


def run_hands(start: int, count: int, key: np.uint64, rules: _Ints, kinds: _Ints, params: _Ints,
              rec: _Ints, trace: bool, tr: _Ints) -> None:
    """Play hands ``start .. start+count-1`` (stream = hand number, dealer = hand
    mod 4) into ``rec[j]``; with ``trace`` every decision into ``tr[j]``."""
    run_rows(RowsJob(games=False, start=start, units=count, key=key, rules=rules, kinds=kinds,
                     params=params, rec=rec, trace=trace, tr=tr))


def run_games(start: int, count: int, key: np.uint64, rules: _Ints, kinds: _Ints, params: _Ints,
              grec: _Ints) -> None:
    """Play whole games ``start .. start+count-1`` (stream = game number) into
    ``grec[j]`` (:func:`_game`)."""
    run_rows(RowsJob(games=True, start=start, units=count, key=key, rules=rules, kinds=kinds,
                     params=params, grec=grec))
