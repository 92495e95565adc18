"""The policy ladder of each game: how strong each simulated player is.

One study per game (``pepper-policy-ladder``, ...), all made here by
:class:`Ladder`.  Each plays a tournament (:mod:`simkit.tournament`) of the
game's entrants at the seed's rules: the default ``heuristic``, every named
setting of the game (``classic``: the heuristic as it was before its play was
improved, and the others ``simkit rules GAME`` lists), the game's other
policies, a few parameter settings, and ``random``.  Every pair meets at two
tables on the same deals with the seats swapped, so the cards cancel out.

``hands`` (``DEFAULT_HANDS`` by default) is the number of duplicate deals
every table plays: hands for games played in hands (then also
``hands // games_per_hand`` whole games per table), whole games for Shiesta.

Tables (95% intervals; ratings are Bradley-Terry on who did better on each
duplicate deal, Elo scale, mean 0; differences are the game's own measure,
first minus second, with t intervals and p-values):

- ``ratings`` / ``pairs``: the ladder of hands (Shiesta: of games);
- ``game_ratings`` / ``game_pairs``: the ladder of whole games, measured in
  wins (Pitch: dollars per money session), for games played in hands;
- ``search_ratings`` / ``search_pairs``: for a game with a policy that
  searches (Pepper's ``expert``, thousands of times slower than the
  heuristic), a ladder of hands of those policies, the game's other settings
  of them (Pepper: ``expert:model=voids``, the expert without inference), the
  default heuristic and ``classic``, on ``hands // SEARCH_SHARE`` duplicate
  deals per table;
- ``search_game_ratings`` / ``search_game_pairs``: the same entrants in whole
  games, ``hands // (SEARCH_SHARE * SEARCH_GAME_SHARE)`` per table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import binomtest

from analyses.common import GameStudy, Plot, Study, Tables, signed
from simkit import games, tournament
from simkit.base.rows import rows_of
from simkit.policy import EXPERT

#: A searching policy's ladder plays this fraction of the main ladder's deals.
SEARCH_SHARE = 100
#: ... and this fraction of its own deals' number in whole games (a game is
#: about ten hands: SEARCH_GAME_SHARE // 10 times less work than its hands).
#: With four searching entrants (Pepper: expert and expert:model=voids) this
#: keeps the section's cost near what three took at 1/50 in hands only.
SEARCH_GAME_SHARE = 40


@dataclass(frozen=True)
class Setup:
    """A game's ladder: the table size, the extra specs beyond the game's
    policies and named settings, the default deals per table, how many
    hands' worth of work a whole game is (whole games per table =
    hands // per_game; 0: the game is played in whole games only), and the
    other settings of its searching policies in their own ladder."""

    players: int
    extra: tuple[str, ...]
    default: int
    per_game: int
    search_extra: tuple[str, ...] = ()


SETUPS = {
    # the expert without inference beside the expert (seeds/pepper.md 7.3)
    "pepper": Setup(4, ("heuristic:aggression=-1", "heuristic:aggression=1"), 80_000, 10,
                    ("expert:model=voids",)),
    "pitch": Setup(4, ("heuristic:aggression=-1", "heuristic:aggression=1"), 100_000, 40),
    "shiesta": Setup(4, ("heuristic:exchange=keep",), 50_000, 0),
    # the settings that trade clean burracos for points (seeds/burraco.md 9.1)
    "burraco": Setup(4, ("heuristic:end_threat=true", "heuristic:pozzetto_wild=true",
                         "heuristic:end_stock=3"), 8_000, 8),
}


def searchers(game: str) -> list[str]:
    """The game's policies that search (params ``KIND`` EXPERT): too slow for the
    main ladder's size, they play a ladder of their own."""
    return [p for p, cls in games.get(game).policies.items()
            if getattr(cls, "KIND", None) == EXPERT]


def entrants(game: str, setup: Setup) -> list[str]:
    """The default heuristic, the named settings, the other policies but those
    that search, the extra specs and random, in that order."""
    g = games.get(game)
    others = [p for p in g.policies
              if p not in (g.default_policy, "random", *searchers(game))]
    return [g.default_policy, *g.named_policies, *others, *setup.extra, "random"]


def search_entrants(game: str) -> list[str]:
    """The searching policies' ladder: them, their other settings (the game's
    ``Setup.search_extra``), the default heuristic and classic."""
    g = games.get(game)
    named = ["classic"] if "classic" in g.named_policies else []
    extra = SETUPS[game].search_extra if game in SETUPS else ()
    return [*searchers(game), *extra, g.default_policy, *named]


def _ranked(ratings: pd.DataFrame) -> str:
    return ", ".join(f"{r.policy} {signed(r.rating, 0)} ({signed(r.ci_low, 0)} to "
                     f"{signed(r.ci_high, 0)})" for r in rows_of(ratings))


def _pair(pairs: pd.DataFrame, a: str, b: str) -> Any:
    """The pair (a, b) as a row with the difference a - b, or None."""
    for r in rows_of(pairs):
        if (r.a, r.b) == (a, b):
            return r.diff, r.ci_low, r.ci_high, r.p_value, r.a_better, r.b_better, r.deals
        if (r.a, r.b) == (b, a):
            return (-r.diff, -r.ci_high, -r.ci_low, r.p_value, r.b_better, r.a_better,
                    r.deals)
    return None


def _digits(lo: float, hi: float) -> int:
    """Decimals enough to tell an interval's ends apart (2 to 4)."""
    half = (hi - lo) / 2
    return 2 if not half > 0 else min(4, max(2, 1 - math.floor(math.log10(half))))


def _against(pairs: pd.DataFrame, a: str, b: str, units: str, word: str) -> str:
    d, lo, hi, p, better, worse, n = _pair(pairs, a, b)
    digits = _digits(lo, hi)
    text = (f"{a} against {b}: {signed(d, digits)} {units} (95% CI {signed(lo, digits)} to "
            f"{signed(hi, digits)}, p = {p:.2g}; better on {better / n:.0%} of the {word}s, "
            f"worse on {worse / n:.0%})")
    if lo > 0 or hi < 0:
        return text + f": {a} is {'stronger' if lo > 0 else 'weaker'}"
    return text + ": not told apart at this size"


def _disagreements(pairs: pd.DataFrame, units: str, word: str) -> list[str]:
    """Pairs where the one that does better on more deals gets less on average,
    the difference's interval excluding 0."""
    out = []
    for r in rows_of(pairs):
        if r.a_better == r.b_better or not (r.ci_low > 0 or r.ci_high < 0):
            continue
        more, fewer = (r.a, r.b) if r.a_better > r.b_better else (r.b, r.a)
        d = r.diff if more == r.a else -r.diff
        if d < 0:
            out.append(f"{more} does better than {fewer} on more {word}s but gets "
                       f"{signed(d, 3)} {units} on average against it: it wins small and "
                       f"loses big.")
    return out


def _upsets(ratings: pd.DataFrame, pairs: pd.DataFrame, word: str) -> list[str]:
    """Pairs where the lower-rated policy does better head to head, on clearly
    more deals (binomial test of better against worse, p < 0.05): a cycle the
    one-number ratings cannot show."""
    rank = {p: i for i, p in enumerate(ratings["policy"])}
    out = []
    for r in rows_of(pairs):
        low, high = (r.a, r.b) if rank[r.a] > rank[r.b] else (r.b, r.a)
        won, lost = (r.a_better, r.b_better) if low == r.a else (r.b_better, r.a_better)
        if won > lost and binomtest(won, won + lost).pvalue < 0.05:
            out.append(f"Not a strict ladder: {low}, rated below {high}, does better than it "
                       f"head to head on {won:,} {word}s against {lost:,}.")
    return out


@dataclass
class Ladder(GameStudy):
    """The ladder study of one game (the study contract of :mod:`analyses`)."""

    setup: Setup

    def __post_init__(self) -> None:
        g = games.get(self.game)
        self.NAME = f"{self.game}-policy-ladder"
        self.TITLE = f"{g.title}: the policy ladder, on duplicate deals"
        self.DEFAULT_HANDS = self.setup.default
        unit = "hands" if "hand" in g.units else "games"
        self.STUDY = Study(self.NAME, self.TITLE, self.DEFAULT_HANDS, simulate=self.simulate_tables,
                           findings=self.findings, figures=self._plots(),
                           provenance=self._provenance, descriptions=self._descriptions,
                           notes=self._notes,
                           size=f"duplicate {unit} per table",
                           kernels=[f"{self.game}:{s}" for s in ("hands", "games", "sessions",
                                                                  "expert") if s in g.warm()])

    # the units of the hand ladder and, for games played in hands, of whole games;
    # the searching policies' ladder of hands
    def _sizes(self, hands: int) -> list[tuple[str, dict[str, Any]]]:
        if "hand" not in games.get(self.game).units:
            return [("", {"games": hands})]
        sizes = [("", {"hands": hands}),
                 ("game_", {"games": max(50, hands // self.setup.per_game)})]
        if searchers(self.game):
            sizes += [("search_", {"hands": max(50, hands // SEARCH_SHARE)}),
                      ("search_game_", {"games": max(
                          20, hands // (SEARCH_SHARE * SEARCH_GAME_SHARE))})]
        return sizes

    def _entrants(self, prefix: str) -> list[str]:
        return search_entrants(self.game) if prefix.startswith("search_") else \
            entrants(self.game, self.setup)

    def simulate_tables(self, hands: int, seed: int, progress: bool,
                        threads: int | None) -> dict[str, pd.DataFrame]:
        tables = {}
        for prefix, size in self._sizes(hands):
            res = tournament.run(self.game, self._entrants(prefix),
                                 players=self.setup.players, seed=seed, threads=threads,
                                 progress=progress, **size)
            ratings = res.ratings.assign(spec=[dict(zip(res.entrants.given,
                                                        res.entrants.texts))[p]
                                               for p in res.ratings["policy"]])
            unit = "game" if "games" in size else "hand"
            tables[f"{prefix}ratings"] = ratings.assign(deals=res.deals, unit=unit,
                                                        measure=res.units)
            tables[f"{prefix}pairs"] = res.pairs.assign(measure=res.units)
        return tables

    def findings(self, tables: Tables) -> list[str]:
        out = []
        for prefix in ("", "game_", "search_", "search_game_"):
            if f"{prefix}ratings" not in tables:
                continue
            ratings, pairs = tables[f"{prefix}ratings"], tables[f"{prefix}pairs"]
            units = ratings["measure"].iloc[0]
            n, unit = int(ratings["deals"].iloc[0]), ratings["unit"].iloc[0]
            what = {"": unit.capitalize() + "s", "game_": "Whole games",
                    "search_": "The policies that search, hands",
                    "search_game_": "The policies that search, whole games"}[prefix]
            out.append(f"{what}, {self.setup.players} players, {n:,} duplicate {unit}s per "
                       f"table: the ladder from the top (Elo-scale rating, 95% CI): "
                       + _ranked(ratings) + ".")
            if prefix.startswith("search_"):
                out += [_against(pairs, s, other, units, unit) + "."
                        for s in searchers(self.game)
                        for other in (*self.setup.search_extra,
                                      games.get(self.game).default_policy)]
                continue
            named = games.get(self.game).named_policies
            if "classic" in named:
                out.append(_against(pairs, "heuristic", "classic", units, unit)
                           + " (classic is the heuristic before its play was improved).")
            top = ratings["policy"].iloc[0]
            if top != "random":
                out.append(_against(pairs, top, "random", units, unit) + ".")
            out += _upsets(ratings, pairs, unit) + _disagreements(pairs, units, unit)
        return out

    def _plots(self) -> tuple[Plot, ...]:
        plots = []
        for prefix, size in self._sizes(self.DEFAULT_HANDS):
            what = {"game_": "whole games", "search_": "hands of the policies that search",
                    "search_game_": "whole games of the policies that search"
                    }.get(prefix, "games" if "games" in size else "hands")
            plots.append(Plot(f"{prefix}ladder", f"The ladder of {what}: each policy's rating "
                              "with its 95% interval (left) and each pair's difference in the "
                              "game's measure, first minus second, with its interval (right).",
                              self._drawer(prefix)))
        return tuple(plots)

    def _drawer(self, prefix: str) -> Callable[[Tables], Figure]:
        def draw(tables: Tables) -> Figure:
            r, p = tables[f"{prefix}ratings"], tables[f"{prefix}pairs"]
            what = ("whole games" if r["unit"].iloc[0] == "game" else "hands") + \
                (", the policies that search" if prefix.startswith("search_") else "")
            fig: Figure = tournament.figure(r, p, f"{games.get(self.game).title}, "
                                            f"{self.setup.players} players, {what}",
                                            r["measure"].iloc[0], int(r["deals"].iloc[0]))
            return fig
        return draw

    def _provenance(self, hands: int) -> dict[str, Any]:
        g = games.get(self.game)
        sizes = dict(self._sizes(hands))
        everyone = dict.fromkeys(entrants(self.game, self.setup)
                                 + (search_entrants(self.game) if "search_" in sizes else []))
        pols = {e: g.make_policies(e, 1)[0].text() for e in everyone}
        extra = {"search_hands": sizes["search_"]["hands"],
                 "search_games": sizes["search_game_"]["games"]} if "search_" in sizes else {}
        return dict(hands=sizes[""].get("hands"), games=(sizes.get("game_") or sizes[""])
                    .get("games"), rules=g.resolve_rules(None, self.setup.players).as_dict(),
                    policies=pols, players=self.setup.players, per_table=True, **extra)

    def _descriptions(self, hands: int, seed: int) -> dict[str, Any]:
        ratings = ("One row per policy, best first: its Bradley-Terry rating on the Elo "
                   "scale (mean 0) from who did better on each duplicate deal, its 95% "
                   "interval, the full spec, the deals per table and the measure.")
        pairs = ("One row per pair: the mean of the measure per seat of the first minus "
                 "the second over the two tables of each deal, its 95% t interval and "
                 "p-value, and on how many deals each did better or they were level.")
        out = {"ratings": ratings, "pairs": pairs}
        if "hand" in games.get(self.game).units:
            out.update({"game_ratings": ratings.replace("deal", "game"),
                        "game_pairs": pairs.replace("deal", "game")})
        if searchers(self.game):
            search = ratings.replace("One row per policy", "The policies that search, their "
                                     "other settings, the default heuristic and classic: "
                                     "one row per policy")
            out.update({"search_ratings": search, "search_pairs": pairs,
                        "search_game_ratings": search.replace("deal", "game"),
                        "search_game_pairs": pairs.replace("deal", "game")})
        return out

    def _notes(self, hands: int, seed: int) -> list[str]:
        g = games.get(self.game)
        named = "; ".join(f"{k} = {v}" for k, v in g.named_policies.items())
        return [
            "Duplicate deals: both tables of a pair play unit i from stream (seed, i); the "
            "policies' seats are swapped between them, the dealer rotates with i.",
            "Ratings add one draw to every pair, so that a policy winning every deal keeps "
            "a finite rating; with this many deals the effect is negligible.",
            "A rating says how often a policy does better deal by deal; a pair's "
            "difference says by how much on average. They can disagree when a policy "
            "wins small and loses big.",
            f"Named settings: {named}." if named else "The game has no named settings.",
            *([f"Policies that search ({', '.join(searchers(self.game))}) play a ladder of "
               "their own against their other settings ("
               + (", ".join(self.setup.search_extra) or "none")
               + f"), the default heuristic and classic, on 1/{SEARCH_SHARE} of the deals "
               f"(they are thousands of times slower) in hands, and on 1/{SEARCH_GAME_SHARE} "
               "of those in whole games."]
              if searchers(self.game) else []),
            "Rerun any pair: simkit tournament " + self.game + " --policy A --policy B "
            f"--players {self.setup.players} --seed {seed}.",
        ]


pepper = Ladder("pepper", SETUPS["pepper"])
pitch = Ladder("pitch", SETUPS["pitch"])
shiesta = Ladder("shiesta", SETUPS["shiesta"])
burraco = Ladder("burraco", SETUPS["burraco"])
