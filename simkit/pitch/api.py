"""Pitch from Python: simulate hands or money sessions into pandas, evaluate a fixed hand.

These functions resolve rules, policies, seed and threads once at the edge,
then hand plain arrays to the kernels in ``kernel.py``.  Column meanings are
in seeds/pitch.md sections 6 and 7 and in the README.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np
import pandas as pd

from simkit import config, rng, stats
from simkit.errors import InputError
from simkit.policy import Policy
from simkit.chunks import spec_args
from simkit.runner import BATCH, check_count, run_batches, set_threads
from simkit.pitch import kernel as K
from simkit.pitch.policies import flatten as flatten_policies
from simkit.pitch.policies import make_policies
from simkit.pitch.rules import (BIDS, DECK, HAND_SIZE, LEVELS, MAX_PLAYERS, MIN_PLAYERS,
                                MONEY_UNITS_PER_CENT, PRESETS, TRUMP_TEXT, PitchRules, flatten,
                                make_rules)

#: Money units (1/840 cent) per dollar.
UNITS_PER_DOLLAR = 100 * MONEY_UNITS_PER_CENT


def resolve_rules(rules=None, players: int | None = None) -> PitchRules:
    """Rules from a PitchRules, a preset name, a dict of rule values or None (the seed's)."""
    return config.resolve_rules(rules, players, PitchRules, make_rules, PRESETS, "Pitch")


def _setup(players, rules, policy, seed, per_player=False):
    if players is not None and (isinstance(players, bool) or not isinstance(players, (int, np.integer))
                                or not MIN_PLAYERS <= players <= MAX_PLAYERS):
        raise InputError(f"bad player count {players!r}: Pitch is played by "
                         f"{MIN_PLAYERS} to {MAX_PLAYERS} players")
    r = resolve_rules(rules, players)
    key = rng.run_key(seed)
    if per_player and not isinstance(policy, (str, Policy)) and policy is not None \
            and len(policy) > 0:
        pols = make_policies(policy, len(policy))      # player j plays policy j mod P
    else:
        pols = make_policies(policy, r.players)
    kinds, params = flatten_policies(pols)
    return r, pols, flatten(r), kinds, params, key


def hand_money(scores: np.ndarray, pitcher: np.ndarray, contract: np.ndarray, made: np.ndarray,
               rules: PitchRules) -> np.ndarray:
    """Money per seat (dollars) of hands settled as one-hand sessions (seeds/pitch.md 7):
    ``cents`` per point above the table's average, plus the moon payments."""
    n = scores.shape[1]
    s = scores.astype(np.int64)
    units = rules.cents * (MONEY_UNITS_PER_CENT // n) * (n * s - s.sum(axis=1, keepdims=True))
    moon = np.flatnonzero(contract == 5)
    if len(moon):
        pay = rules.moon_dollars * UNITS_PER_DOLLAR * np.where(made[moon], 1, -1)
        units[moon] -= pay[:, None]
        units[moon, pitcher[moon]] += pay * n
    return units / UNITS_PER_DOLLAR


def hands_frame(rec: np.ndarray, start: int, rules: PitchRules,
                policies: tuple[Policy, ...]) -> pd.DataFrame:
    """Hand records from the kernel's matrix as a typed DataFrame (seeds/pitch.md 6)."""
    N = rules.players
    n = rec.shape[0]
    cols: dict[str, object] = {"hand": np.arange(start, start + n, dtype=np.int64),
                               "dealer": rec[:, K.C_DEALER].astype(np.int8)}
    for s, p in enumerate(policies):
        cols[f"policy_{s}"] = pd.Categorical.from_codes(np.zeros(n, np.int8), [p.text()])
    for s in range(N):
        cols[f"bid_{s}"] = rec[:, K.C_BID + s].astype(np.int8)
    cols["pitcher"] = rec[:, K.C_PITCHER].astype(np.int8)
    cols["contract"] = rec[:, K.C_CONTRACT].astype(np.int8)
    cols["stuck"] = rec[:, K.C_STUCK].astype(bool)
    cols["trump"] = pd.Categorical.from_codes(rec[:, K.C_TRUMP].astype(np.int8), list(TRUMP_TEXT))
    for name, col in (("tricks", K.C_TRICKS), ("points", K.C_POINTS), ("score", K.C_SCORE),
                      ("game_points", K.C_GP)):
        for s in range(N):
            cols[f"{name}_{s}"] = rec[:, col + s].astype(np.int8)
    cols["high"] = rec[:, K.C_HIGH].astype(np.int8)
    cols["low"] = rec[:, K.C_LOW].astype(np.int8)
    cols["jack"] = rec[:, K.C_JACK].astype(np.int8)
    cols["game_winners"] = rec[:, K.C_GAME].astype(np.int16)
    cols["made"] = rec[:, K.C_MADE].astype(bool)
    cols["moon"] = rec[:, K.C_CONTRACT] == 5
    cols["pitcher_trumps"] = rec[:, K.C_F_TRUMPS].astype(np.int8)
    for name, col in (("ace", K.C_F_ACE), ("king", K.C_F_KING), ("jack", K.C_F_JACK),
                      ("two", K.C_F_TWO)):
        cols[f"pitcher_{name}"] = rec[:, col].astype(bool)
    cols["pitcher_game_points"] = rec[:, K.C_F_GP].astype(np.int8)
    money = hand_money(rec[:, K.C_SCORE:K.C_SCORE + N], rec[:, K.C_PITCHER].astype(np.int64),
                       rec[:, K.C_CONTRACT], rec[:, K.C_MADE].astype(bool), rules)
    for s in range(N):
        cols[f"money_{s}"] = money[:, s]
    return pd.DataFrame(cols)


def _hand_records(rv, kinds, params, key, start, count, trace=False):
    rec = np.empty((count, K.N_COLS), np.int16)
    n = count if trace else 1
    plays = np.full((n, 48), -1, np.int8)
    dealt = np.zeros((n, MAX_PLAYERS), np.int64)
    K.run_hands(start, count, key, rv, kinds, params, rec, trace, plays, dealt)
    return rec, plays, dealt


def iter_hands(hands: int, players: int | None = None, rules=None, policy=None, seed: int = 0,
               start: int = 0, threads: int | None = None, batch: int = BATCH,
               progress: bool = False) -> Iterator[pd.DataFrame]:
    """Hands ``start .. start+hands-1`` as DataFrames of at most ``batch`` rows each."""
    check_count(hands, "hands")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
    set_threads(threads)
    for rec, first in run_batches(
            lambda s, c: (_hand_records(rv, kinds, params, key, s, c)[0], s),
            hands, start=start, batch=batch, progress=progress):
        yield hands_frame(rec, first, r, pols)


def simulate(hands: int = 100_000, players: int | None = None, rules=None, policy=None,
             seed: int = 0, start: int = 0, threads: int | None = None,
             progress: bool = False) -> pd.DataFrame:
    """Play ``hands`` Pitch hands and return one row per hand.

    ``rules``: a preset name, a dict of rule values or a PitchRules;
    ``policy``: one spec for every seat or one per seat, e.g.
    ``["heuristic:aggression=0.5", "random", "heuristic", "heuristic"]``.
    Hand ``i`` is dealt by seat ``i mod players`` from stream (seed, i).
    ``players`` (2 to 8) overrides the rules' count, which defaults to 4.
    """
    parts = list(iter_hands(hands, players, rules, policy, seed, start, threads,
                            progress=progress))
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]


def trace_hands(rules: PitchRules, policies, seed: int, start: int, count: int) -> dict:
    """Hands with their plays, for comparison with the reference engine:
    ``frame`` (as :func:`simulate`), ``plays`` (card ids in play order, -1
    padded) and ``deal`` (dealt masks by seat)."""
    r, pols, rv, kinds, params, key = _setup(None, rules, policies, seed)
    rec, plays, dealt = _hand_records(rv, kinds, params, key, start, count, trace=True)
    return {"frame": hands_frame(rec, start, r, pols), "plays": plays, "deal": dealt}


SESSION_COLUMNS = ("session", "player", "policy", "seat", "joined", "left", "hands", "score",
                   "money", "moons_made", "moons_failed", "pitched", "made", "session_hands",
                   "ended_by_target", "first_dealer")


def _sessions_frame(res, sres, first, pols) -> pd.DataFrame:
    if (sres[:, K.S_IMBALANCE] != 0).any():
        bad = first + int(np.flatnonzero(sres[:, K.S_IMBALANCE])[0])
        raise AssertionError(f"money of session {bad} does not sum to zero")
    n_ever = sres[:, K.S_PLAYERS]
    took_part = np.arange(res.shape[1])[None, :] < n_ever[:, None]
    sess, player = np.nonzero(took_part)
    rows = res[sess, player]
    texts = [p.text() for p in pols]
    names = list(dict.fromkeys(texts))                  # each policy text once
    code_of = np.array([names.index(t) for t in texts], np.int8)
    return pd.DataFrame({
        "session": (first + sess).astype(np.int64),
        "player": player.astype(np.int8),
        "policy": pd.Categorical.from_codes(code_of[player % len(pols)], names),
        "seat": rows[:, K.F_SEAT].astype(np.int8),
        "joined": rows[:, K.F_JOINED].astype(np.int16),
        "left": rows[:, K.F_LEFT].astype(np.int16),
        "hands": rows[:, K.F_HANDS].astype(np.int16),
        "score": rows[:, K.F_SCORE].astype(np.int32),
        "money": rows[:, K.F_MONEY] / UNITS_PER_DOLLAR,
        "moons_made": rows[:, K.F_MOONS_MADE].astype(np.int16),
        "moons_failed": rows[:, K.F_MOONS_FAILED].astype(np.int16),
        "pitched": rows[:, K.F_PITCHED].astype(np.int16),
        "made": rows[:, K.F_MADE].astype(np.int16),
        "session_hands": sres[sess, K.S_HANDS].astype(np.int16),
        "ended_by_target": sres[sess, K.S_TARGET].astype(bool),
        "first_dealer": sres[sess, K.S_FIRST_DEALER].astype(np.int8),
    })


def simulate_sessions(sessions: int = 10_000, players: int | None = None, rules=None,
                      policy=None, seed: int = 0, start: int = 0, threads: int | None = None,
                      progress: bool = False) -> pd.DataFrame:
    """Play ``sessions`` money sessions (seeds/pitch.md 7); one row per player per session.

    Session ``k`` uses stream (seed, k).  Player ``j`` (in order of arrival)
    plays policy ``j mod P`` of the ``P`` policies given (any number of them).  Money is checked to sum to zero in every
    session (an AssertionError otherwise).
    """
    check_count(sessions, "sessions")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed, per_player=True)
    set_threads(threads)

    def compute(s, c):
        res = np.empty((c, K.MAX_SESSION_PLAYERS, K.N_FIELDS), np.int64)
        sres = np.empty((c, K.N_SFIELDS), np.int64)
        K.run_sessions(s, c, key, rv, kinds, params, res, sres)
        return s, res, sres

    frames = [_sessions_frame(res, sres, first, pols)
              for first, res, sres in run_batches(lambda s, c: compute(s, c), sessions,
                                                  start=start, batch=1 << 15,
                                                  progress=progress, unit="session")]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


#: Group columns of :func:`agg_chunk` and the totals summed per group.
AGG_KEYS = ("contract", "made", "pitcher_trumps", "pitcher_seat")
AGG_TOTALS = ("hands", "pitcher_score", "pitcher_score_sq", "pitcher_money", "others_score")


def aggregate_frame(df: pd.DataFrame, rules: PitchRules) -> pd.DataFrame:
    """Counts and sums per group of ``AGG_KEYS`` of a hands frame (``pitcher_seat``:
    1 = left of the dealer ... players = the dealer, 0 = thrown in); tables of
    different hand ranges add up (groupby-sum)."""
    N = rules.players
    p = df["pitcher"].to_numpy().astype(np.int64)
    rows = np.arange(len(df))
    scores = df[[f"score_{s}" for s in range(N)]].to_numpy().astype(np.int64)
    money = df[[f"money_{s}" for s in range(N)]].to_numpy()
    thrown = p < 0
    own = np.where(thrown, 0, scores[rows, p.clip(0)])
    seat = np.where(thrown, 0, (p - df["dealer"].to_numpy() - 1) % N + 1)
    g = pd.DataFrame({"contract": df["contract"], "made": df["made"],
                      "pitcher_trumps": df["pitcher_trumps"], "pitcher_seat": seat.astype(np.int8),
                      "hands": 1, "pitcher_score": own, "pitcher_score_sq": own * own,
                      "pitcher_money": np.where(thrown, 0.0, money[rows, p.clip(0)]),
                      "others_score": scores.sum(axis=1) - own})
    return g.groupby(list(AGG_KEYS), as_index=False, observed=True)[list(AGG_TOTALS)].sum()


def hand_chunk(spec: dict, start: int, count: int) -> pd.DataFrame:
    """Hand records ``start .. start+count-1`` of the run described by ``spec``
    (``{"rules": rule values, "policies": one text per seat, "seed": int}``)."""
    return simulate(count, start=start, **spec_args(spec, make_rules))


def game_chunk(spec: dict, start: int, count: int) -> pd.DataFrame:
    """Session records (a Pitch "game" is a money session) ``start .. start+count-1``."""
    return simulate_sessions(count, start=start, **spec_args(spec, make_rules))


def agg_chunk(spec: dict, start: int, count: int) -> pd.DataFrame:
    """Aggregates (:data:`AGG_KEYS`) of hands ``start .. start+count-1``."""
    args = spec_args(spec, make_rules)
    return aggregate_frame(simulate(count, start=start, **args), args["rules"])


# --- a fixed hand --------------------------------------------------------------

def parse_hand(hand) -> list[int]:
    """Card ids of a six-card Pitch hand; anything else is an InputError."""
    cards = DECK.parse_hand(hand)
    if len(cards) != HAND_SIZE:
        raise InputError(f"a Pitch hand has {HAND_SIZE} cards, got {len(cards)}: "
                         f"{' '.join(DECK.text(c) for c in cards) or '(none)'}")
    return cards


@dataclass(frozen=True)
class HandEvaluation:
    """What :func:`evaluate_hand` found for one fixed hand.

    ``bids`` has one row per bid (pass, 2, 3, 4, moon): made (count) and
    p_make with its 95% interval (a pass counts as made in every sample),
    points (mean score change of the seat) and money (mean dollars per hand)
    with their 95% intervals, and pitched (the share of samples in which the
    seat was the pitcher: 1 for a bid; for a pass, when it was a stuck dealer).
    ``trump`` is the suit the seat most often leads as pitcher of a 2 bid.
    """

    hand: tuple[str, ...]
    players: int
    seat: int
    dealer: int
    samples: int
    bids: pd.DataFrame
    trump: str


def evaluate_hand(hand, players: int | None = None, seat: int | None = None, dealer: int = 0,
                  samples: int = 10_000, rules=None, policy=None, seed: int = 0,
                  threads: int | None = None) -> HandEvaluation:
    """Hold ``hand`` fixed at ``seat``, deal the unseen cards uniformly (seeds/pitch.md
    8.3) and play ``samples`` deals out for each bid.

    For a bid the seat is the pitcher with that contract and there is no
    auction (the others do not get to outbid or steal); the seat then leads
    by its policy.  For ``pass`` the others bid by their policies (a stuck
    dealer bids 2).  The same samples (streams) serve every bid.  Money is
    per hand as a one-hand session.  By default ``seat`` is the first to bid,
    left of the dealer.
    """
    check_count(samples, "--samples")
    r, pols, rv, kinds, params, key = _setup(players, rules, policy, seed)
    N = r.players
    for what, v in (("dealer", dealer), ("seat", seat)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))
                              or not 0 <= v < N):
            raise InputError(f"bad {what} {v!r}: expected a seat from 0 to {N - 1}")
    if seat is None:
        seat = (dealer + 1) % N
    cards = parse_hand(hand)
    fixed = 0
    for c in cards:
        fixed |= 1 << c
    set_threads(threads)
    rows = []
    trump = "-"
    for text, level in zip(BIDS, LEVELS):
        rec = np.empty((samples, K.N_COLS), np.int16)
        K.run_fixed(samples, key, rv, kinds, params, seat, dealer, np.int64(fixed), level, rec)
        df = hands_frame(rec, 0, r, pols)
        points = df[f"score_{seat}"].to_numpy().astype(np.float64)
        money = df[f"money_{seat}"].to_numpy()
        if level:
            made = int(df["made"].sum())
            trump = trump if level != 2 else str(df["trump"].mode().iloc[0])
        else:
            made = samples
        lo, hi = stats.proportion_ci(made, samples)
        pm, plo, phi = stats.mean_ci_of(points)
        mm, mlo, mhi = stats.mean_ci_of(money)
        rows.append({"bid": text, "level": level, "made": made, "p_make": made / samples,
                     "ci_low": lo, "ci_high": hi, "points": pm, "points_low": plo,
                     "points_high": phi, "money": mm, "money_low": mlo, "money_high": mhi,
                     "pitched": float((df["pitcher"] == seat).mean())})
    return HandEvaluation(tuple(DECK.text(c) for c in cards), N, seat, dealer, samples,
                          pd.DataFrame(rows), trump)
