"""Pepper's kernel records: the columns of the matrices the kernels fill.

A hand record (``C_*``, :data:`N_COLS` of them) is one row per hand, a game
record (``G_*``) one row per game; ``api.py`` names them for the tables it
returns.  The bidding writes the auction's columns, the drivers in
``kernel.py`` the rest.
"""

from __future__ import annotations

# --- hand records -------------------------------------------------------------
C_DEALER = 0
C_BID = 1            # .. 4: highest level each seat bid (0 = only passed)
C_CALLS = 5
C_CONTRACT = 6
C_BIDDER = 7
C_STUCK = 8
C_TRUMP = 9
C_TRICKS = 10        # .. 13: tricks per seat
C_SIDE_TRICKS = 14   # .. 16: tricks per side
C_SCORE = 17         # .. 19: score change per side
C_MADE = 20
C_F_TRUMPS = 21
C_F_BOWERS = 22
C_F_ACES = 23
C_F_VOIDS = 24
N_COLS = 25

# --- game records -------------------------------------------------------------
G_FIRST_DEALER = 0
G_ROUNDS = 1
G_SCORE = 2          # .. 4
G_WINNERS = 5        # bitmask of winning sides
G_UNFINISHED = 6
G_LEAD_CHANGES = 7   # who led the game, round by round (simkit.base.lead)
G_COMEBACK = 8
G_SETTLED = 9
N_GCOLS = 10

MAX_CALLS = 64       # trace length for auctions (calls kept per hand)
