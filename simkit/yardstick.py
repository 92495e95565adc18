"""The bare deal-and-play yardstick ``simkit bench`` measures every game against.

A machine's speed changes from run to run (this one is shared); a game's
rate divided by the yardstick's, measured in the same run, does not.  The
yardstick is the least a trick game's kernel does per hand: start the
hand's counter-based stream, shuffle a 24-card deck, deal four hands of six
as bit masks, and play six tricks in which every seat plays its lowest card
of the suit led (else its lowest card), the highest card of the suit led
winning and leading the next trick.  No auction, no policy, no scoring: the
rules and heuristics of a real game are what its ratio to this measures.
"""

from __future__ import annotations

import numba
import numpy as np

from simkit.base.bits import low_bit
from simkit.base.jit import block, blocks, kernel
from simkit.base.rng import shuffle, start_stream

#: Hands per parallel block (as the games' kernels).
BLOCK = 1024
_SUIT = (1 << 6) - 1          # the six cards of one suit, lowest first


@kernel(inline=True)
def _hand(st: np.ndarray, key: np.uint64, j: int, deck: np.ndarray,
          hands: np.ndarray) -> int:
    """Hand ``j``: deal, then six tricks; returns the tricks seat 0's side took."""
    start_stream(st, key, j)
    for c in range(24):
        deck[c] = c
    shuffle(st, deck)
    for s in range(4):
        hands[s] = 0
    for p in range(24):
        hands[p & 3] |= 1 << deck[p]
    leader, ours = 0, 0
    for _ in range(6):
        led, best, winner = -1, -1, leader
        for k in range(4):
            seat = (leader + k) & 3
            h = hands[seat]
            follow = h & (_SUIT << (6 * led)) if led >= 0 else 0
            card = low_bit(follow if follow else h)
            hands[seat] = h & ~(1 << card)
            if led < 0:
                led = card // 6
            if card // 6 == led and card > best:
                best, winner = card, seat
        leader = winner
        ours += 1 - (winner & 1)
    return ours


@kernel(parallel=True)
def run(count: int, key: np.uint64, out: np.ndarray) -> None:
    """Play hands ``0 .. count-1``; ``out[j]``: the tricks seat 0's side took."""
    for b in numba.prange(blocks(count, BLOCK)):
        st = np.empty(2, np.uint64)
        deck = np.empty(24, np.int64)
        hands = np.empty(4, np.int64)
        for j in block(b, count, BLOCK):
            out[j] = _hand(st, key, j, deck, hands)


def hands(count: int, seed: int = 0) -> np.ndarray:
    """The yardstick's ``count`` hands: the tricks seat 0's side took in each
    (every hand deals all 24 cards, so the two sides' tricks sum to 6)."""
    from simkit.base.rng import run_key

    out = np.empty(count, np.int64)
    run(count, run_key(seed), out)
    return out
