"""Burraco: how hand scores are distributed, where the points come from, how
hands end, how long games last, and what the policies and the rule variants
change (seeds/burraco.md).

``hands`` (``DEFAULT_HANDS`` by default) is the number of **hands** of each
simulated hand table; each game table plays ``max(hands // 10, 20)`` whole
games (to ``target``, 2000).  The study plays these tables, in this order
(:func:`plan`):

- ``base``: the seed's rules, ``heuristic`` at every seat (parts 1-3, and the
  baselines of parts 5 and 6);
- ``policy``: the seed's rules with ``patient`` and with ``random`` at every
  seat (part 5, with the ``play`` table);
- ``mixed``: heuristic on seats 0 and 2 against patient on 1 and 3, and the
  seats swapped, as hand tables and as game tables (part 5);
- ``games``: whole games, heuristic at every seat (part 4);
- ``variant``: every preset of ``simkit.burraco.rules.PRESETS`` other than
  ``seed``, heuristic at every seat (part 6).

Table ``i`` of that order starts at the sum of the sizes of the tables before
it, so no two tables share a random stream (hand ``h`` and game ``g`` use the
streams (seed, h) and (seed, g)): every comparison is between independent
samples, as the intervals and tests assume.

Units.  Team 0 holds seats 0 and 2; the seat left of the dealer starts, so
the *starting* team of a hand is team ``(dealer + 1) % 2`` and the other is
the *dealing* team.  Per-team estimates have one observation per hand.
Where a table speaks of a *team-hand* (the policy, play and variant tables) the
observation is the average of the two teams of a hand, so that n is the
number of hands and the observations are independent; its mean is the mean
over team-hands.

Tables (``ci_low``/``ci_high`` are 95% intervals: t intervals for means,
Clopper-Pearson for proportions, order-statistic intervals for quantiles,
Welch for differences of means, Newcombe for differences of proportions;
for a share of melds or burracos, whose units are clustered in hands,
Clopper-Pearson at the effective sample size (:func:`_ratio`); every row has
its sample size):

- ``scores``: hand score per side (team 0, team 1, starting, dealing): mean,
  standard deviation, the 5/25/50/75/95% quantiles, min and max.
- ``score_parts``: the mean of each score part per side; the parts' means
  sum to the score's mean.
- ``score_histogram``: the share of hands in each 50-point score bin, per team.
- ``burracos``: clean and dirty burracos per side and hand: the share with
  0, 1, 2, 3+ and the mean.
- ``endings``: how hands end (closed, stock, cap).
- ``closing``: the rate at which each side goes out, and the starting team's
  rate minus the dealing team's.
- ``turns``: turns per hand, all hands and by ending.
- ``game_length``: hands per game (distribution) and ``games``: the mean and
  quantiles of hands per game and the win rate of the team that starts the
  first hand.
- ``policies``: heuristic, patient and random at every seat: mean score,
  burracos and closing rate per team-hand, with differences from heuristic.
- ``play``: how the same three tables play: sets and sequences laid, the
  share of sequences among the melds, wild cards melded, clean and dirty
  burracos and the clean share of the burracos, per team-hand.
- ``mixed``: a heuristic team against a patient team: the score difference per
  hand and the heuristic team's win rate in games.
- ``variants``: each preset: mean score, clean and dirty burracos and closing
  rate per team-hand, with differences from the seed's rules.
"""

from __future__ import annotations

from typing import Any

from analyses.burraco_scoring.figures import COLORS, FIGURES, PLAY_LABELS, POLICY_COLORS
from analyses.burraco_scoring.findings import findings
from analyses.burraco_scoring.simulate import (
    BASE,
    BIN,
    COUNTS,
    DEFAULT_HANDS,
    MIN_GAMES,
    MIXED,
    NAME,
    PARTS,
    PLAY,
    POLICIES,
    QUANTILES,
    SEED_PRESET,
    SIDES,
    TITLE,
    VARIANTS,
    _ratio,
    _spec_text,
    games_per_table,
    plan,
    simulate_tables,
)
from analyses.common import Study, percent
from simkit.burraco.rules import PRESETS
from simkit.study import StudyResult


def _notes(hands: int, seed: int) -> list[str]:
    runs = plan(hands)
    n_games = games_per_table(hands)
    return [
        f"Every table is simulated from its own random streams: {len(runs)} tables, "
        f"{sum(1 for r in runs if r[4] == 'hands')} of {hands:,} hands and "
        f"{sum(1 for r in runs if r[4] == 'games')} of {n_games:,} games, each starting "
        "where the previous one ended, so the comparisons are between independent samples.",
        "Hands are dealt in turn by seats 0-3 (hand i by seat i mod 4), so teams 0 and 1 "
        "start equally often and should look alike; the starting/dealing split is the "
        "comparison with a real asymmetry.",
        "Per-team intervals treat hands as independent observations. The two teams of one "
        "hand are not independent (one going out ends the other's hand), so policy and "
        "variant tables use the average of the two teams per hand as the observation.",
        "A closed hand earns the closer's team the closing bonus; hands ended by the stock or "
        "the cap score both teams without it (seeds/burraco.md section 5).",
        "Who plays: every number here comes from simulated, rule-based players, not from "
        "people. Each follows a fixed procedure (seeds/burraco.md section 9) with the "
        "parameters given: " + "; ".join(f"{p} = {_spec_text(p)}" for p in POLICIES)
        + " (random makes its choices at random). The play table and figure show how these "
        "players meld: the sets and sequences they lay, the wild cards they use and how "
        "many of their burracos are clean. Real players may choose differently, so their "
        "melds, burracos and scores may differ from these figures.",
    ]


_SIDE = ("side: team 0 (seats 0 and 2), team 1, the starting team (left of the dealer, "
         "team (dealer + 1) % 2) or the dealing team; one observation per hand.")


def _descriptions(hands: int, seed: int) -> dict[str, str]:
    n_games = games_per_table(hands)
    return {
        "scores": "Hand scores, the seed's rules, heuristic at every seat. " + _SIDE + " mean "
                  "with 95% t interval, sd, the 5/25/50/75/95% quantiles (the smallest value "
                  "with at least that share of hands at or below it) with distribution-free "
                  "95% order-statistic intervals, min and max.",
        "score_parts": "The mean of the score (part = score) and of each of its parts per "
                       "side, 95% t intervals; hand_penalty and pozzetto_penalty are "
                       "negative. Each side's parts' means sum to its score's mean.",
        "score_histogram": f"The distribution behind scores, per team: share of hands with a "
                           f"score from score_from to score_to ({BIN}-point bins, "
                           "Clopper-Pearson 95%).",
        "burracos": "Clean and dirty burracos a side makes in a hand. " + _SIDE + " One row per "
                    "side, kind and count (3+ = 3 or more): hands_with, share (Clopper-Pearson "
                    "95%); mean: the kind's mean count per hand (95% t interval), repeated on "
                    "the kind's rows.",
        "endings": "How the base table's hands end: closed (a player went out), stock (two "
                   "cards left in the stock) or cap (max_turns); share with Clopper-Pearson 95%.",
        "closing": "The share of hands in which the side goes out (Clopper-Pearson 95%). "
                   + _SIDE + " vs_dealing_diff (starting row only): the starting team's rate "
                   "minus the dealing team's, Newcombe 95% interval and chi-square p-value "
                   "(the two rates come from the same hands, so the test is approximate).",
        "turns": "Turns per hand, all hands and by how the hand ended: mean (95% t), sd, "
                 "quantiles with order-statistic intervals.",
        "game_length": f"Whole games to 2000, heuristic at every seat ({n_games:,} games): "
                       "the share of games lasting each number of hands (Clopper-Pearson 95%).",
        "games": "Hands per game (mean with 95% t, quantiles with order-statistic intervals); "
                 "starter_win_rate: the share of all games won by the team that starts the "
                 "first hand (team (first_dealer + 1) % 2), Clopper-Pearson 95%, its p-value "
                 "the exact binomial test of 1/2 over the games with a single winner; shared "
                 "and unfinished games (rate with Clopper-Pearson 95%); mean_final_score: the "
                 "two teams' mean final score.",
        "policies": "The seed's rules with the same policy at every seat. Per team-hand (the "
                    "average of the hand's two teams, n = hands): mean score, clean and dirty "
                    "burracos (95% t); closing_rate: the share of hands that end with a player "
                    "going out (Clopper-Pearson 95%); mean_turns. *_diff: the policy minus "
                    "heuristic (Welch 95% intervals and p-values for means, Newcombe and "
                    "chi-square for the closing rate). spec: the policy's full parameters.",
        "play": "How the policies table's players meld (the same tables as policies): one "
                "row per policy and measure, from what each team has on the table at the "
                "end of a hand. per: what the measure counts. For a mean (sets, sequences, "
                "wilds: jokers and 2s melded, every 2 counted; clean_burracos, "
                "dirty_burracos) per = team-hand: total over the table's team-hands, of = "
                "2 x hands, estimate = total / of with the 95% t interval of the per-hand "
                "average of the two teams. For a share (sequence_share: sequences among "
                "melds; clean_share: clean burracos among burracos) per = meld or burraco: "
                "total of the of units, estimate = total / of, and a Clopper-Pearson 95% "
                "interval at the effective sample size (Korn-Graubard: of divided by the "
                "design effect of the hands, at most of), as the units of one hand are not "
                "independent; empty when of is 0.",
        "mixed": "A heuristic team against a patient team, the seed's rules: one row per "
                 "seating and both pooled. score_diff: the heuristic team's hand score minus "
                 "the patient team's (mean per hand, 95% t); heuristic/patient closing rate: "
                 "the share of hands that team goes out (Clopper-Pearson 95%); "
                 f"heuristic_win_rate: the heuristic team's share of the {n_games:,} games per "
                 "seating (Clopper-Pearson 95%), win_p_value the exact binomial test of 1/2 "
                 "over the games with a single winner.",
        "variants": "Every preset, heuristic at every seat, per team-hand as in policies: "
                    "mean score, clean and dirty burracos, closing rate, mean turns, and each "
                    "one's difference from the seed's rules (Welch / Newcombe 95%, p-values). "
                    "shared-ties changes only games, so its row is a check: its differences "
                    "should be consistent with zero.",
    }


def _provenance(hands: int) -> dict[str, Any]:
    runs = plan(hands)
    n_games = games_per_table(hands)
    return {"hands": hands * sum(1 for r in runs if r[4] == "hands"),
            "games": n_games * sum(1 for r in runs if r[4] == "games"),
            "rules": {p: dict(PRESETS[p]) for p in PRESETS},
            "policies": {p: _spec_text(p) for p in POLICIES},
            "hands_per_table": hands, "games_per_table": n_games, "tables": len(runs),
            "plan": [{"kind": k, "key": key, "preset": pr, "policy": pol, "unit": u,
                   "size": size, "start": st} for k, key, pr, pol, u, size, st in runs]}


STUDY = Study(NAME, TITLE, DEFAULT_HANDS,
              kernels=("burraco:hands", "burraco:games"),
              simulate=simulate_tables, findings=findings,
              figures=FIGURES, provenance=_provenance, descriptions=_descriptions, notes=_notes)


def run(hands: int | None = None, seed: int = 0, progress: bool = False,
        threads: int | None = None) -> StudyResult:
    """The study: tables, findings, figures, notes and provenance.  ``hands`` is
    the number of hands per simulated hand table (games: ``hands // 10``)."""
    return STUDY.run(hands, seed, progress, threads)


#: what the study's package offers: the study contract, its settings and the helpers
#: its tests use
__all__ = ["BASE", "BIN", "COLORS", "COUNTS", "DEFAULT_HANDS", "FIGURES", "MIN_GAMES",
           "MIXED", "NAME", "PARTS", "PLAY", "PLAY_LABELS", "POLICIES", "POLICY_COLORS",
           "QUANTILES", "SEED_PRESET", "SIDES", "STUDY", "TITLE", "VARIANTS", "_ratio",
           "findings", "games_per_table", "percent", "plan", "run", "simulate_tables"]
