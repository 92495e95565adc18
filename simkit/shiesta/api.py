"""Shiesta from Python: simulate whole games into pandas.

The game's contract with the shared engine layer is :class:`GAME`
(a :class:`simkit.engine.Game`): its record schema and the small functions
that allocate and fill the kernel's arrays.  Column meanings are in
seeds/shiesta.md section 5, in the schema below and in ``simkit rules shiesta``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from simkit import engine
from simkit.base.measures import Section, winner_measure
from simkit.engine import Column, Game, RecordBook, Table, Unit, WarmStep
from simkit.policy import Policy
from simkit.shiesta import kernel as K
from simkit.shiesta import policies as policies_module
from simkit.shiesta import rules as rules_module
from simkit.shiesta import summary
from simkit.shiesta.rules import MAX_PLAYERS, MIN_PLAYERS, SPECIAL_TEXT, ShiestaRules
from simkit.shiesta.summary import GameSummary

if TYPE_CHECKING:
    from simkit.shiesta.reference import GameLog

GAME_COLUMNS = (
    *engine.leading_columns("game"),
    Column("starter", "int8", "the seat that started", K.G_STARTER),
    Column("winner", "int8", "the seat that went out first (-1: unfinished)", K.G_WINNER),
    Column("winner_seat", "int8", "the winner counted from the starter: 0 the starter, 1 "
           "the next seat clockwise, ... (-1: unfinished)", K.G_WINNER_SEAT),
    Column("turns", "int32", "turns played (plays and pickups)", K.G_TURNS),
    Column("pickups_{seat}", "int16", "piles the seat picked up", K.G_PICKUPS),
    Column("played_{r}", "int16", "cards of rank r played onto the pile (2s and 7s can come "
           "back through pickups and be played again)", K.G_PLAYED),
    Column("cards_left_{seat}", "int16", "cards the seat held at the end", K.G_LEFT),
    engine.unfinished_column(K.G_UNFINISHED, "max_turns"),
    # a seat leads after a turn when it alone holds the fewest cards (seeds/shiesta.md 5)
    *engine.lead_columns(K.G_LEAD_CHANGES, side="seat", step="turn", winner="the winner",
                         length="turns", none="unfinished"),
    Column("dealt_{r}_{seat}", "int8", "cards of rank r among the seat's 11 dealt cards",
           K.G_DEALT, axes=("seat", "r")),
)


_NO_MOVES = np.empty((1, 1), np.int64)


def _untraced(table: Table) -> tuple[bool, np.ndarray]:
    return (False, _NO_MOVES)


def _reference_game(rules: ShiestaRules, policies: Sequence[Policy], seed: int,
                    index: int) -> GameLog:
    from simkit.shiesta import reference
    return reference.play_game(rules, policies, seed, index)


class Shiesta(Game):
    """Shiesta: seeds/shiesta.md."""

    name = "shiesta"
    title = rules_module.TITLE
    book = rules_module.BOOK
    rules = ShiestaRules
    presets = rules_module.PRESETS
    policies = policies_module.POLICIES
    policy_layout = policies_module.LAYOUT
    named_policies = policies_module.NAMED
    players = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    axes = MappingProxyType({"r": lambda r: SPECIAL_TEXT})
    units = MappingProxyType({"game": Unit(name="game", label="game", doc="one row per whole game",
                          schema=GAME_COLUMNS, summary=GameSummary, kernel=K.run_games,
                          width=K.N_GCOLS, dtype=np.int64, extra=_untraced, batch=1 << 17,
                          chunk=100_000, measure=winner_measure("wins per game", "winner"))})
    bench_unit = "game"
    bench_players = (4, 3, 5)
    bench_scale = 20

    def record(self) -> RecordBook:
        from simkit.shiesta import record
        return record

    def measures(self, rules: Any) -> list[Section]:
        return summary.measures(rules)

    def reference(self, rules: Any, policies: Sequence[Policy], seed: int,
                  index: int) -> object:
        return _reference_game(rules, policies, seed, index)

    def warm(self) -> Mapping[str, WarmStep]:
        return {"games": (10, lambda: simulate_games(games=20))}


#: The game, as the registry (:mod:`simkit.games`) hands it out.
GAME = Shiesta()


#: Rules from a rules object, a preset name, a dict of rule values or None (the
#: seed's), with ``players`` (if given) replacing the count.
resolve_rules = GAME.resolve_rules


def simulate_games(games: int = 10_000, players: int | None = None,
                   rules: ShiestaRules | str | dict[str, Any] | None = None,
                   policy: str | Policy | Sequence[str | Policy] | None = None, seed: int = 0,
                   start: int = 0, threads: int | None = None,
                   progress: bool = False) -> pd.DataFrame:
    """Play ``games`` Shiesta games and return one row per game (:data:`GAME_COLUMNS`).

    ``rules``: a preset name, a dict of rule values or a ShiestaRules;
    ``policy``: one spec for every seat or one per seat, e.g.
    ``["heuristic:exchange=keep", "random", "heuristic"]``.  Game ``g`` uses
    the stream (seed, g).  ``players`` (3 to 5) overrides the rules' count.
    """
    run = engine.RunSettings(games, players=players, rules=rules, policy=policy, seed=seed,
                             start=start, threads=threads, progress=progress)
    return engine.simulate(GAME, "game", run)


def trace_games(rules: ShiestaRules, policies: Sequence[str | Policy] | None, seed: int,
                start: int, count: int) -> dict[str, Any]:
    """Games with every move (codes as the reference's ``move_codes``, -1 padded),
    for comparison with the reference engine: ``frame`` and ``moves``."""
    t = engine.setup(GAME, None, rules, policies, seed)
    g = np.empty((count, K.N_GCOLS), np.int64)
    assert isinstance(t.rules, ShiestaRules)
    moves = np.empty((count, t.rules.max_turns), np.int64)
    K.run_games(start=start, count=count, key=t.key, rules=t.rv, kinds=t.kinds, params=t.params,
                grec=g, trace=True, moves=moves)
    frame = engine.frame(GAME_COLUMNS, g, engine.FrameContext(
        t, np.arange(start, start + count, dtype=np.int64)), GAME.axis_values(t.rules))
    return {"frame": frame, "moves": moves}
