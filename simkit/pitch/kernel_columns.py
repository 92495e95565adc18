"""The columns of Pitch's kernel records: a hand's row (``C_*``), and a money
session's per-player (``F_*``) and per-session (``S_*``) fields.  Shared by
:mod:`simkit.pitch.kernel`, :mod:`simkit.pitch.kernel_sessions` and the api
that turns records into DataFrames."""

from __future__ import annotations

# --- a hand's record row ---------------------------------------------------------
C_DEALER = 0
C_BID = 1            # .. 8: the level each seat bid (0 = passed or silent)
C_PITCHER = 9        # -1: thrown in
C_CONTRACT = 10
C_STUCK = 11
C_TRUMP = 12         # 0..3, 4 = thrown in
C_TRICKS = 13        # .. 20
C_POINTS = 21        # .. 28
C_SCORE = 29         # .. 36
C_GP = 37            # .. 44: game points captured
C_HIGH = 45          # seat or -1
C_LOW = 46
C_JACK = 47
C_GAME = 48          # bitmask of seats
C_MADE = 49
C_F_TRUMPS = 50      # the pitcher's dealt hand, with the trump it led
C_F_ACE = 51
C_F_KING = 52
C_F_JACK = 53
C_F_TWO = 54
C_F_GP = 55
N_COLS = 56

# session records: per player (res[j, player, F_*]) and per session (sres[j, S_*]);
# F_TOP: seated at the end with the top score; S_LEAD_CHANGES .. S_SETTLED: lead.summary's
F_SEAT, F_JOINED, F_LEFT, F_HANDS, F_SCORE, F_MONEY, F_MOONS_MADE, F_MOONS_FAILED, \
    F_PITCHED, F_MADE, F_TOP = range(11)
N_FIELDS = 11
S_PLAYERS, S_HANDS, S_TARGET, S_FIRST_DEALER, S_IMBALANCE, S_LEAD_CHANGES, S_COMEBACK, \
    S_SETTLED = range(8)
N_SFIELDS = 8
