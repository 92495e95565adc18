"""Shiesta: win rates by seat, a round robin of policies, the value of the
special cards, game length, and what each rule variant changes
(seeds/shiesta.md).

``hands`` (``DEFAULT_HANDS`` by default) is the number of **games** of each
simulated table (Shiesta is played in whole games; the study contract calls
the size ``hands``).  The study plays these tables, in this order:

- the seed's rules with ``heuristic`` at every seat, 3, 4 and 5 players
  (parts 1, 3 and 4, and the baselines of part 5);
- the seed's rules with ``random`` at every seat, 3, 4 and 5 players (part 4);
- the round robin (part 2): for every pair of policies A, B of
  :data:`POLICIES`, two 4-player tables, seats A B A B and B A B A;
- the variants (part 5): every preset of ``simkit.shiesta.rules.PRESETS``
  other than ``seed`` with 4 heuristic players, and ``five-one-deck`` also
  with 5.

Table ``i`` of that order plays games ``i * hands .. (i + 1) * hands - 1`` of
the run's seed, so no two tables share a random stream: every comparison is
between independent samples, as the intervals and tests assume.  Tables are
read in batches and reduced to counts at once, so memory does not grow with
``hands``.  A game that reaches the turn cap (``max_turns``, 1000) is
unfinished: it has no winner and counts as a loss for every seat.

Tables (``ci_low``/``ci_high`` are 95% intervals: Clopper-Pearson for
proportions, t intervals for means, order-statistic intervals for quantiles,
Newcombe for differences of proportions, Welch for differences of means):

- ``seats``: players, seat (0 = the starter, 1 = left of the starter, ...),
  win rate with interval, the fair 1/N, the share of finished games and its
  exact binomial p-value against 1/N, unfinished rate with interval.
- ``round_robin``: policy A, opponent B, A's share of the decisive games of
  the two tables with interval and p-value against 1/2, unfinished rate.
- ``policy_scores``: each policy's share of the decisive games of all its
  round-robin tables, with interval and p-value against 1/2.
- ``specials``: win rate of a player dealt k (0, 1, 2, 3+) cards of rank 2,
  3, 7 or 10 at a 4-player heuristic table.
- ``game_length``: turns per game (mean, median, 90% and 99% quantiles, each
  with interval) for 3-5 players, heuristic and random tables.
- ``turns_histogram``: the share of games in each 10-turn bin of those tables.
- ``variants``: each preset's starter win rate, mean turns and unfinished
  rate, and each one's difference from the seed's rules at the same player
  count.
"""

from __future__ import annotations

from typing import Any

from analyses.common import Study, percent
from analyses.shiesta_strategy.figures import FIGURES
from analyses.shiesta_strategy.findings import _unordered, findings, points, turns
from analyses.shiesta_strategy.simulate import (
    BASE,
    BATCH,
    BIN,
    DEALT,
    DEFAULT_HANDS,
    FIVE,
    LENGTH_POLICIES,
    NAME,
    PLAYERS,
    POLICIES,
    QUANTILES,
    RANDOM,
    SEED_PRESET,
    STUDY_PLAYERS,
    TITLE,
    VARIANTS,
    _spec_text,
    plan,
    simulate_tables,
)
from simkit.shiesta.rules import make_rules
from simkit.study import StudyResult

DESCRIPTIONS = {
    "seats": "One row per player count and seat counted clockwise from the starter (0 = "
             "the starter), the seed's rules, heuristic at every seat. win_rate: wins over "
             "all games (Clopper-Pearson 95%, n = games), so a player count's win rates and "
             "its unfinished_rate sum to 1; fair = 1/N; diff = win_rate - fair; "
             "finished_share: wins over finished games, whose p_value is the two-sided "
             "exact binomial test of finished_share = 1/N. unfinished: games stopped at "
             "the turn cap (rate with Clopper-Pearson 95%).",
    "round_robin": f"One row per ordered pair of policies (A = policy, B = opponent), "
                   f"{STUDY_PLAYERS} players: a table seated A B A B and one seated B A B A, "
                   "each of the run's size. decisive: games of the two tables with a "
                   "winner; wins: those won by one of A's two seats; share = wins / decisive "
                   "(Clopper-Pearson 95%); p_value: two-sided exact binomial test of share "
                   "= 1/2. The (A, B) and (B, A) rows come from the same two tables, so "
                   "their shares sum to 1 and their p-values agree. unfinished: games of "
                   "the two tables stopped at the turn cap.",
    "policy_scores": "One row per policy of the round robin: its share of the decisive "
                     "games over all its tables (two per opponent; it holds half of every "
                     "table's seats, so 1/2 is an even score), Clopper-Pearson 95% and "
                     "exact binomial p-value against 1/2; beats / loses_to: opponents "
                     "whose pairwise interval lies wholly above / below 1/2; unfinished "
                     "over all its tables. spec: the policy's full parameters.",
    "specials": f"{STUDY_PLAYERS} players, the seed's rules, heuristic at every seat. One "
                "row per special rank and number k of it among a player's 11 dealt cards "
                "(3 face down, 3 face up, 5 in hand; 3+ = 3 or 4): player_games = "
                "players so dealt over all games (each game gives one observation per "
                "seat), share_of_players their share and deal_chance its exact "
                "(hypergeometric) chance, a check of the deal rather than an estimate; "
                "win_rate their win rate "
                "(Clopper-Pearson 95%), unfinished_rate the share of them in games "
                "stopped at the turn cap.",
    "game_length": "One row per policy (every seat) and player count under the seed's "
                   "rules: turns per game (a turn is one play or one pickup; unfinished "
                   "games count at the cap, max_turns), mean with 95% t interval and "
                   "standard deviation, the median, 90% and 99% quantiles (the smallest "
                   "value with at least that share of games at or below it) with "
                   "distribution-free 95% order-statistic intervals, the longest game (max) "
                   "and the longest finished game, and the unfinished rate "
                   "(Clopper-Pearson 95%).",
    "turns_histogram": f"The distribution behind game_length: one row per policy, player "
                       f"count and bin of {BIN} turns (turns_from to turns_to inclusive): "
                       "games in the bin, their share of all games (Clopper-Pearson 95%). "
                       "The bin holding max_turns holds the unfinished games.",
    "variants": f"One row per preset (its rule values in rules) and player count, "
                f"heuristic at every seat; the seed's rows are the baselines (the "
                f"{STUDY_PLAYERS}- and 5-player tables of seats). starter_win_rate: the "
                "starter's wins over all games (Clopper-Pearson 95%); mean_turns (95% t); "
                "unfinished_rate (Clopper-Pearson 95%). Each *_diff is the variant minus "
                "the seed's rules with the same player count, with its 95% interval "
                "(Newcombe's hybrid score interval for rates, Welch for mean turns) and "
                "two-sided p-value (chi-square or Fisher; Welch's t); empty on the "
                "baseline rows.",
}


def _notes(hands: int, seed: int) -> list[str]:
    n_tables = len(plan())
    labels = ", ".join(f"{lab} ({_spec_text(spec)})" for lab, spec in POLICIES)
    return [
        "Rules: the seed's defaults (seeds/shiesta.md): one deck for 3-4 players, two for 5, "
        "5 cards in hand, strictly higher, a 2 resets the pile, a 3 makes the next player pick "
        "up, a 7 forces a card below 7, a 10 burns the pile, the starter drawn at random, and "
        "a cap of 1000 turns after which a game is unfinished (no winner).",
        f"Tables: {n_tables} tables of {hands:,} games each, seed {seed}; table i (in the "
        "order seats 3-5, random 3-5, the round-robin pairs, the variants) plays games "
        f"i x {hands:,} onwards, so no two tables share a random stream and every comparison "
        "is between independent samples.",
        "The heuristic (seeds/shiesta.md 6.2) is deterministic: with heuristic players at every "
        "seat a game is fixed by its deal and starter, and a game that comes back to a position "
        "it has been in loops for ever. Its unfinished games are such cycles rather than long "
        "games: compare longest_finished with max_turns in game_length. Seats are counted from "
        "the starter, who is drawn per game independently of the deal.",
        f"Round-robin policies: {labels}. Each pair plays two tables (A B A B and B A B A) so "
        "each policy sits at every seat number equally often; the starter is drawn at random "
        "in every game, so each policy also starts equally often in expectation. Shares are of "
        "decisive games (unfinished games excluded); the random policy draws uniformly among "
        "its legal plays.",
        "Special cards: every seat of every game is one observation, so the observations of "
        "one game are dependent; since at most one player wins a game, the win indicators of "
        "two players in the same group are negatively correlated and the Clopper-Pearson "
        "intervals (which assume independence) are conservative. The counts are of cards "
        "dealt, before the exchange.",
        "Game length counts every turn, plays and pickups alike; the opening is turn 1. "
        "Unfinished games count at the cap, so the quantiles are exact below the cap and a "
        "quantile at the cap means at least that share of games reached it.",
        "Variants: each preset changes one rule of the seed's (see seeds/shiesta.md); "
        f"five-one-deck (one deck, 4 cards in hand) is played with {STUDY_PLAYERS} and with 5 "
        "players and compared with the seed's rules at the same count. With fixed-starter the "
        "starter is always seat 0, so its starter rate should match the seed's.",
    ]


def _provenance(hands: int) -> dict[str, Any]:
    n_tables = len(plan())
    rules = {"seed": make_rules().as_dict() | {"players": list(PLAYERS)},
             "variants": {f"{pr} ({p} players)": make_rules(pr, players=p).as_dict()
                          for pr, p in VARIANTS}}
    policies = {"seats, specials, game length, variants": [_spec_text(BASE), _spec_text(RANDOM)],
                "round robin": {lab: _spec_text(spec) for lab, spec in POLICIES}}
    return {"games": hands * n_tables, "rules": rules, "policies": policies,
            "games_per_table": hands, "tables": n_tables,
            "streams": "table i plays games i*games_per_table .. (i+1)*games_per_table - 1"}


STUDY = Study(NAME, TITLE, DEFAULT_HANDS,
              kernels=("shiesta:games",),
              size="games per table", simulate=simulate_tables,
              findings=findings,
              figures=FIGURES, provenance=_provenance, descriptions=DESCRIPTIONS, notes=_notes)


def run(hands: int | None = None, seed: int = 0, progress: bool = False,
        threads: int | None = None) -> StudyResult:
    """The study: tables, findings, figures, notes and provenance.  ``hands`` is
    the number of games per simulated table."""
    return STUDY.run(hands, seed, progress, threads)


#: what the study's package offers: the study contract, its settings and the helpers
#: its tests use
__all__ = ["BASE", "BATCH", "BIN", "DEALT", "DEFAULT_HANDS", "DESCRIPTIONS", "FIGURES",
           "FIVE", "LENGTH_POLICIES", "NAME", "PLAYERS", "POLICIES", "QUANTILES", "RANDOM",
           "SEED_PRESET", "STUDY", "STUDY_PLAYERS", "TITLE", "VARIANTS", "_unordered",
           "findings", "percent", "plan", "points", "run", "simulate_tables", "turns"]
