"""Pitch: Money Game: expected payouts by seat, per session, for bidding
aggression and for shooting the moon (seeds/pitch.md).

``hands`` (``DEFAULT_HANDS`` by default) is the number of hands of each
simulated table.  The study plays:

- one table of ``hands`` hands per player count 2 to 8, the ``heuristic``
  policy at every seat (parts 1 and 5; the 4-player table also serves as the
  ``aggression = 0`` row of part 3 and the default-moon row of part 4);
- six more 4-player tables for part 3, seat 0 playing ``heuristic`` with
  aggression -1, -0.5, 0.5, 1, 1.5 and 2 against three default heuristics;
- five more 4-player tables for part 4, seat 0 playing ``heuristic`` with the
  moon settings (moon_rule, moon_trumps, moon_run) of :data:`MOON_SETTINGS`
  other than the default;
- ``hands // session_hands`` (at least :data:`MIN_SESSIONS`) money sessions
  of the seed's rules (20 hands, no target) per player count 2 to 8, and as
  many 4-player sessions of the ``drop-in`` preset (part 2).

Every hand table uses the run's seed, so hand ``i`` of every 4-player table
is the same deal (dealt by seat ``i mod 4``): the variants of seat 0 are
compared hand by hand (paired differences, common random numbers).  The
sessions use streams ``hands, hands + 1, ...`` of the same seed, disjoint
from the hand tables'.  Hand tables are read in batches and reduced to sums
at once, so memory does not grow with ``hands``.

Tables (money in dollars; ``ci_low``/``ci_high`` are 95% intervals: t
intervals for means, Clopper-Pearson for proportions):

- ``money_per_hand``: players, seat (1 = left of the dealer, the first to bid
  ... players = the dealer), seat_name, hands, money, ci_low, ci_high,
  money_sd, pitched, pitch_rate, pitch_ci_low, pitch_ci_high.
- ``money_per_session``: players, seat (1 = left of the first dealer ...
  players = the first dealer), sessions, money, ci_low, ci_high, money_sd,
  losing (sessions with money < 0), p_loss, loss_ci_low, loss_ci_high,
  from_hands (the session mean implied by ``money_per_hand``).
- ``drop_in_sessions``: 4 players, preset ``drop-in``: group (starting seat
  1-4, all starters, joined later), players, hands_played, money, ci_low,
  ci_high, money_sd, p_loss (with interval), money_per_hand (per hand played,
  a ratio with a linearised interval).
- ``aggression``: seat 0's aggression; hands, money, ci_low, ci_high,
  money_sd, diff (money per hand minus that at aggression 0, paired per hand)
  with diff_ci_low/high, pitched, pitch_rate (with interval), made, made_rate
  (with interval).
- ``moon``: seat 0's moon_rule, moon_trumps and moon_run; moon_bids, per_1000 (with
  interval), moons_made, success_rate (with interval), money per hand (with
  interval) and its money_sd, diff (paired against never bidding the moon,
  with interval), money_per_bid (seat 0's money on its moon bids) and
  gain_per_bid (the paired difference on those hands), each with interval.
- ``bids``: players, bid (2, 3, 4, moon), level, hands, share (of all hands),
  stuck (hands the dealer was forced to bid), made, rate (with interval), and
  the pitcher's points won, score change and money per hand at that bid,
  each with interval.
"""

from __future__ import annotations

from typing import Any

from analyses.common import Study, percent
from analyses.pitch_payouts.figures import FIGURES
from analyses.pitch_payouts.findings import cents, dollars, findings
from analyses.pitch_payouts.simulate import (
    AGGRESSION,
    BASE,
    BATCH,
    DEFAULT_HANDS,
    DEFAULT_MOON,
    DROP_IN,
    MIN_SESSIONS,
    MOON_SETTINGS,
    NAME,
    PLAYERS,
    SESSION_HANDS,
    STUDY_PLAYERS,
    TITLE,
    _from_hands,
    _heuristic,
    _play,
    sessions_for,
    simulate_tables,
)
from simkit.pitch.policies import make_policies
from simkit.pitch.rules import make_rules
from simkit.study import StudyResult

DESCRIPTIONS = {
    "money_per_hand": "One row per player count and seat relative to the dealer (1 = left "
                      "of the dealer, the first to bid; the last seat is the dealer), every "
                      "seat heuristic. money: mean dollars per hand with each hand settled "
                      "as a one-hand session (95% t interval, n = hands); money_sd its "
                      "standard deviation; pitch_rate the share of hands that seat won the "
                      "auction (Clopper-Pearson 95%).",
    "money_per_session": f"One row per player count and starting seat (1 = left of the "
                         f"first dealer ... the first dealer) of {SESSION_HANDS}-hand money "
                         "sessions under the seed's rules (no target, nobody leaves): mean "
                         "money per session (95% t interval, n = sessions), its standard "
                         "deviation (the risk) and the share of sessions that seat lost "
                         "money (Clopper-Pearson). from_hands: the mean implied by "
                         "money_per_hand (a session's money is the sum of its hands' money, "
                         "the seat moving one place each hand): a check, not an estimate.",
    "drop_in_sessions": f"{STUDY_PLAYERS}-player sessions of the {DROP_IN} preset (after "
                        "each hand every player leaves with chance 5% while 3 or more are "
                        "seated, then one joins with chance 10%): one row per group of "
                        "players (n = players in the group over all sessions): starters by "
                        "starting seat, all starters, and players who joined later. "
                        "hands_played: mean hands each played; money: mean dollars per "
                        "player (95% t interval); money_per_hand: total money over total "
                        "hands played (linearised 95% interval).",
    "aggression": f"Seat 0 plays heuristic with the given aggression against "
                  f"{STUDY_PLAYERS - 1} default heuristics on the same deals (hand i dealt "
                  f"by seat i mod {STUDY_PLAYERS}, so seat 0 sits at every position equally "
                  "often). money: seat 0's mean dollars per hand (95% t); diff: paired "
                  "per-hand difference from aggression 0 (95% t interval on the "
                  "differences); pitch_rate: share of hands seat 0 won the auction; "
                  "made_rate: share of those contracts made (Clopper-Pearson 95%).",
    "moon": f"Seat 0 plays heuristic with moon_rule, moon_trumps and moon_run as given "
            "(sure: bid the moon holding the jack, the trumps from the ace down at least "
            "moon_run deep and side cards only in runs from their aces; run: holding at "
            "least moon_trumps cards of its suit of which the top moon_run run down from "
            f"the ace) against {STUDY_PLAYERS - 1} default heuristics, same deals. "
            "moon_bids and per_1000 (Clopper-Pearson): its moon bids; success_rate: moons "
            "made; money and money_sd: its dollars per hand and their standard deviation; "
            "diff: paired per-hand difference from never bidding the moon; money_per_bid: "
            "its mean money on the hands it bid the moon; gain_per_bid: the paired "
            "difference on those hands (what the moon bid added over what the same player "
            "would have done without it). 95% t intervals.",
    "bids": "One row per player count and contract, all seats heuristic: hands at that "
            "contract and their share of all hands, stuck (the dealer was forced to bid "
            "after everyone passed), made and the rate made (Clopper-Pearson 95%); the "
            "pitcher's points won (0-4), score change and money per hand at that contract "
            "(95% t intervals).",
}


def _notes(hands: int, seed: int) -> list[str]:
    sessions = sessions_for(hands)
    return [
        "Rules: the seed's defaults (seeds/pitch.md): one lap of bidding, the dealer may steal "
        "by matching the high bid and must bid exactly 2 when everyone else passed, Low to "
        "whoever captures it, no Game point on a tie, a moon needs all six tricks and the four "
        "points and scores +-4; money 10 cents per point against the table's average score and "
        "1 dollar from (to) every other player for a made (failed) moon.",
        "Money per hand is each hand settled as if it were a whole session (the engine's "
        "money_s columns); it sums to zero over the seats of every hand, so each player "
        "count's seat means in money_per_hand sum to zero.",
        f"Hand tables: {hands:,} hands each, seed {seed}; hand i is dealt by seat i mod "
        "players, so every seat deals equally often; seats are then counted from the dealer. "
        "All tables of one player count share the seed and therefore the deals: the "
        "aggression and moon variants of seat 0 are compared hand by hand (paired "
        "differences; the t interval of the per-hand differences). The aggression-0 row and "
        "the default-moon row are the all-heuristic 4-player table of money_per_hand.",
        f"Sessions: {sessions:,} sessions per table ({SESSION_HANDS} hands each, hands // "
        f"{SESSION_HANDS}, at least {MIN_SESSIONS}) from streams {hands:,} onwards of the same "
        "seed, disjoint from the hand tables'. The first dealer is drawn at random; the "
        "starting seat is counted from it. Without anyone leaving a session's money is the "
        "sum of its hands' money, which gives the from_hands column; with a number of players "
        f"dividing {SESSION_HANDS} every seat deals equally often and the starting seat is "
        "worth nothing in expectation.",
        "Drop-in sessions: a joining player starts with the seated players' average score "
        "rounded down (join_score = average) and takes the last seat; those who leave are paid "
        "at once against the average of the players then seated.",
        "The heuristic's hand estimate is at most 3.50 points (High 1.00, Low 0.75, Jack "
        "0.85, Game 0.90), so with default aggression it bids 4 only on near-perfect hands "
        "and, from 7 players on, never (the Game estimate falls with the player count); bids "
        "of 2 include the dealer's forced bids (column stuck).",
        "Intervals: Clopper-Pearson exact for proportions; t intervals from count, sum and sum "
        "of squares for means (simkit.base.stats); paired differences use the t interval of the "
        "per-hand differences. Moon bids are rare: with the default rule a few per 100,000 "
        "hands, so its rows rest on few bids.",
    ]


def _provenance(hands: int) -> dict[str, Any]:
    sessions = sessions_for(hands)
    hand_tables = (len(PLAYERS) + len([a for a in AGGRESSION if a != 0])
                   + len([m for m in MOON_SETTINGS if m[:3] != DEFAULT_MOON]))
    session_tables = len(PLAYERS) + 1
    rules = {"hand tables": make_rules().as_dict() | {"players": list(PLAYERS)},
             "sessions": make_rules().as_dict() | {"players": list(PLAYERS)},
             DROP_IN: make_rules(DROP_IN, players=STUDY_PLAYERS).as_dict()}
    specs = ([_heuristic(aggression=a) for a in AGGRESSION if a != 0]
             + [_heuristic(moon_rule=m, moon_trumps=t, moon_run=r) for m, t, r, _ in MOON_SETTINGS
                if (m, t, r) != DEFAULT_MOON])
    policies = {"field": make_policies(BASE, 1)[0].text(),
                "seat 0 variants": [make_policies(s, 1)[0].text() for s in specs]}
    return {"hands": hands * hand_tables + sessions * SESSION_HANDS * len(PLAYERS),
            "games": sessions * session_tables, "rules": rules, "policies": policies,
            "hands_per_table": hands, "hand_tables": hand_tables,
            "sessions_per_table": sessions, "session_tables": session_tables}


STUDY = Study(NAME, TITLE, DEFAULT_HANDS,
              kernels=("pitch:hands", "pitch:sessions"),
              simulate=simulate_tables, findings=findings,
              figures=FIGURES, provenance=_provenance, descriptions=DESCRIPTIONS, notes=_notes)


def run(hands: int | None = None, seed: int = 0, progress: bool = False,
        threads: int | None = None) -> StudyResult:
    """The study: tables, findings, figures, notes and provenance."""
    return STUDY.run(hands, seed, progress, threads)


#: what the study's package offers: the study contract, its settings and the helpers
#: its tests use
__all__ = ["AGGRESSION", "BASE", "BATCH", "DEFAULT_HANDS", "DEFAULT_MOON", "DESCRIPTIONS",
           "DROP_IN", "FIGURES", "MIN_SESSIONS", "MOON_SETTINGS", "NAME", "PLAYERS",
           "SESSION_HANDS", "STUDY", "STUDY_PLAYERS", "TITLE", "_from_hands", "_play",
           "cents", "dollars", "findings", "percent", "run", "sessions_for", "simulate_tables"]
