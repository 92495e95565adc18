"""How much skill decides a game: the skill trace.

The game's ladder of players, weakest first: ``random``, ``classic`` (the
heuristic before its play was improved), the default (the policy a
comparison is played with, adapted or not) and, where the game has one, a
player that searches (Pepper's ``expert``).  Each rung meets the one below it
on duplicate deals of whole games (:mod:`simkit.tournament`: two tables, the
seats swapped, the same deals), in the unit's own measure (wins; Pitch:
money per session).  Per deal the stronger *did better* (score 1), as well
(1/2) or worse (0); the rung's **win rate** is the mean score, with a t
interval; a player against itself scores 1/2 on every deal.

The **games to be ahead**: a match of ``n`` duplicate deals, scored deal by
deal, leaves the stronger ahead with 95% probability when ``n`` reaches
``(z * sd / (mean - 1/2))**2`` (``z`` the normal 95% one-sided quantile,
``mean`` and ``sd`` of the per-deal score): the games are ``2 n`` (each deal
is two games).  Infinite (shown as n/a) when the stronger is not ahead on
average.  The more a rule lets the better player win, the higher the win
rates and the fewer the games.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from simkit import tournament
from simkit.base.stats import mean_ci_of
from simkit.engine import Game
from simkit.policy import EXPERT
from simkit.runs.batches import Work, set_threads, steps

Z95_ONE_SIDED = 1.6448536269514722
#: A searching player's rung plays this fraction of the other rungs' deals.
SEARCH_SHARE = 40


def ladder(game: Game, default: str) -> list[str]:
    """The policies of the game's ladder, weakest first (see the module notes);
    ``default`` is the spec of the policy a comparison plays."""
    specs = ["random"]
    if "classic" in game.named_policies:
        specs.append("classic")
    specs.append(default)
    specs += [name for name, cls in game.policies.items() if getattr(cls, "KIND", None) == EXPERT]
    out: list[str] = []
    for s in specs:
        if game.make_policies(s, 1)[0].text() not in [game.make_policies(o, 1)[0].text()
                                                        for o in out]:
            out.append(s)
    return out


def deals(game: Game, stronger: str, count: int) -> int:
    """Duplicate deals of a rung whose stronger player is ``stronger``: fewer
    for a player that searches (thousands of times slower)."""
    if getattr(game.make_policies(stronger, 1)[0].params, "KIND", None) == EXPERT:
        return max(20, count // SEARCH_SHARE)
    return count


def scores(game: Game, rules: Any, weaker: str, stronger: str, count: int, seed: int,
           threads: int | None = None, work: Work | None = None) -> np.ndarray:
    """Per duplicate deal of whole games ``0 .. count-1`` (seed ``seed``): 1 if
    ``stronger`` did better than ``weaker``, 1/2 if as well, 0 if worse."""
    ent = tournament.entrants(game, [stronger, weaker], rules.players)
    run = {"rules": rules.as_dict(), "policies": list(ent.texts),
           "tables": [list(t) for t in ent.tables], "seed": seed}

    def part(first: int, n: int) -> np.ndarray:
        df = tournament.chunk(game.name, "game", run, first, n)
        (d,) = tournament.deal_differences(ent.tables, ent.pairs, "game", df).values()
        return d

    set_threads(threads)
    if work is None:
        d = part(0, count)
    else:
        d = np.concatenate([part(first, n) for first, n in steps(count, work)])
    return np.where(d > 0, 1.0, np.where(d < 0, 0.0, 0.5))


def games_to_lead(x: Any, axis: int = 0) -> np.ndarray:
    """Games (two per duplicate deal) after which the stronger is ahead with 95%
    probability, from per-deal scores along ``axis`` (see the module notes)."""
    x = np.asarray(x, dtype=float)
    edge = np.mean(x, axis=axis) - 0.5
    sd = np.std(x, axis=axis, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = np.where(edge > 0, np.ceil((Z95_ONE_SIDED * sd / edge) ** 2), np.inf)
    return 2 * np.maximum(n, 1)


def rungs(game: Game, default: str) -> list[tuple[str, str]]:
    """``(weaker, stronger)`` of every rung of the ladder."""
    steps_ = ladder(game, default)
    return list(itertools.pairwise(steps_))


def names(weaker: str, stronger: str, default: str) -> str:
    """How a rung reads in a table: ``"the default over classic"``."""
    def name(s: str) -> str:
        return "the default" if s == default else s
    return f"{name(stronger)} over {name(weaker)}"


def interval(x: np.ndarray) -> tuple[float, float, float]:
    """Mean per-deal score and its 95% t interval (the point when all are equal)."""
    if len(x) < 2:
        m = float(np.mean(x)) if len(x) else math.nan
        return m, math.nan, math.nan
    return mean_ci_of(x)

