"""Burraco from Python: simulate hands or whole games into pandas.

The game's contract with the shared engine layer is :class:`GAME`
(a :class:`simkit.engine.Game`): its record schemas and the small
functions that allocate and fill the kernel's arrays.  Column meanings are
in seeds/burraco.md section 8, in the schemas below and in ``simkit rules
burraco``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from simkit import engine
from simkit.base.measures import Section, seat_measure, winner_measure
from simkit.burraco import kernel as K
from simkit.burraco import policies as policies_module
from simkit.burraco import rules as rules_module
from simkit.burraco import summary
from simkit.burraco.rules import BurracoRules
from simkit.burraco.summary import ENDED, GameSummary, HandSummary
from simkit.engine import Column, Each, Game, RecordBook, Table, Unit, WarmStep
from simkit.policy import Policy

if TYPE_CHECKING:
    from simkit.burraco.reference import HandLog
    from simkit.burraco.reference_players import Specs

#: Rules as :func:`simulate` takes them: a preset name, a dict of rule values, the
#: rules themselves or None (the seed's).
Rules = str | dict[str, Any] | BurracoRules | None

HAND_COLUMNS: tuple[Column | Each, ...] = (
    *engine.leading_columns("hand", K.H_DEALER),
    Column("turns", "int16", "turns played", K.H_TURNS),
    Column("ended", "category", "closed (a player went out), stock (a draw left two cards "
           "in the stock; stock_end says if that turn is played out) or cap (max_turns)",
           K.H_ENDED, labels=ENDED),
    Column("closer", "int8", "the seat that went out (-1: none)", K.H_CLOSER),
    Each("team", (
        Column("score_{team}", "int32", "the team's score for the hand: the sum of its "
               "parts (team 0 = seats 0 and 2)", K.H_SCORE),
        Column("melded_{team}", "int32", "points of the cards the team melded", K.H_MELDED),
        Column("hand_penalty_{team}", "int32", "minus the points of the cards left in its "
               "players' hands", K.H_PENALTY),
        Column("clean_burraco_{team}", "int32", "clean burracos (no wild card)", K.H_CLEAN),
        Column("dirty_burraco_{team}", "int32", "dirty burracos", K.H_DIRTY),
        Column("burraco_bonus_{team}", "int32", "200 a clean, 100 a dirty burraco",
               K.H_BONUS),
        Column("closing_bonus_{team}", "int32", "the bonus for going out", K.H_CLOSE_BONUS),
        Column("pozzetto_penalty_{team}", "int32", "the penalty for a pozzetto not taken",
               K.H_POZZ_PEN),
        Column("pozzetto_turn_{team}", "int32", "the turn the team took its pozzetto (-1: "
               "not taken)", K.H_POZZ_TURN),
        Column("melds_{team}", "int32", "melds on the team's table at the end (sets plus "
               "sequences)", K.H_MELDS),
        Column("sets_{team}", "int32", "sets on the team's table at the end", K.H_SETS),
        Column("sequences_{team}", "int32", "sequences on the team's table at the end",
               K.H_SEQUENCES),
        Column("wilds_{team}", "int32", "wild cards on the team's table at the end: jokers "
               "and 2s, every 2 counted (also one melded in its own place in a sequence of "
               "its suit, or in a set of 2s: the policies treat every 2 as wild)", K.H_WILDS),
    )),
)

GAME_COLUMNS: tuple[Column | Each, ...] = (
    engine.index_column("game"),
    engine.dealer_column(K.G_FIRST_DEALER, first=True),
    Column("hands", "int32", "hands played", K.G_HANDS),
    Column("score_{team}", "int32", "the team's final score", K.G_SCORE),
    Column("winner", "int8", "the winning team (-1: shared or unfinished)", K.G_WINNER),
    Column("shared", "bool", "both teams won, level at or above the target (tie = shared)",
           K.G_SHARED),
    engine.unfinished_column(K.G_UNFINISHED, "max_hands"),
    # a team leads after a hand when its total is the higher
    *engine.lead_columns(K.G_LEAD_CHANGES, "team", "hand", "the winning team", "hands"),
)

_NO_TRACE = np.empty((1, 1), np.int64)


def _untraced(table: Table) -> tuple[bool, np.ndarray]:
    return (False, _NO_TRACE)


def _team(rules: BurracoRules, seat: int) -> int:
    """Seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    return seat % 2


def _reference_hand(rules: BurracoRules, policies: Sequence[Policy], seed: int,
                    index: int) -> HandLog:
    from simkit.burraco import reference
    return reference.play_hand(rules, policies, seed, index, index % 4)


class Burraco(Game):
    """Burraco: seeds/burraco.md."""

    name = "burraco"
    title = rules_module.TITLE
    book = rules_module.BOOK
    rules = BurracoRules
    presets = rules_module.PRESETS
    policies = policies_module.POLICIES
    policy_layout = policies_module.LAYOUT
    named_policies = policies_module.NAMED
    players = (4,)
    players_text = "exactly 4 players in two partnerships"
    axes = MappingProxyType({"team": lambda r: range(2)})
    units = MappingProxyType({
        "hand": Unit("hand", "hand", "one row per hand", HAND_COLUMNS, HandSummary,
                     kernel=K.run_hands, width=K.N_HCOLS, dtype=np.int64, extra=_untraced,
                     batch=1 << 16, chunk=1_000_000,
                     measure=seat_measure("points", "points per hand", "score_{team}", _team)),
        "game": Unit("game", "game", "one row per whole game", GAME_COLUMNS, GameSummary,
                     kernel=K.run_games, width=K.N_GCOLS, dtype=np.int64, batch=1 << 14,
                     chunk=100_000,
                     measure=winner_measure("wins per game", "winner", _team, "shared")),
    })
    bench_players = (4,)
    bench_scale = 200

    def record(self) -> RecordBook:
        from simkit.burraco import record
        return record

    def measures(self, rules: Any) -> list[Section]:
        return summary.measures(rules)

    def reference(self, rules: Any, policies: Sequence[Policy], seed: int,
                  index: int) -> object:
        return _reference_hand(rules, policies, seed, index)

    def warm(self) -> Mapping[str, WarmStep]:
        return {"hands": (43, lambda: simulate(hands=20)),
                "games": (1, lambda: simulate_games(games=2))}


#: The game, as the registry (:mod:`simkit.games`) hands it out.
GAME = Burraco()


#: Rules from a rules object, a preset name, a dict of rule values or None (the
#: seed's), with ``players`` (if given) replacing the count.
resolve_rules = GAME.resolve_rules


def simulate(hands: int = 100_000, players: int | None = None, rules: Rules = None,
             policy: Specs = None,
             seed: int = 0, start: int = 0, threads: int | None = None,
             progress: bool = False) -> pd.DataFrame:
    """Play ``hands`` Burraco hands and return one row per hand (:data:`HAND_COLUMNS`).

    Hand ``i`` is dealt by seat ``i mod 4`` from stream (seed, i).  ``rules``: a
    preset name, a dict of rule values or a BurracoRules; ``policy``: one spec
    for every seat or one per seat (``random``, ``heuristic``, ``patient``).
    """
    run = engine.RunSettings(hands, players=players, rules=rules, policy=policy, seed=seed,
                             start=start, threads=threads, progress=progress)
    return engine.simulate(GAME, "hand", run)


def simulate_games(games: int = 10_000, players: int | None = None, rules: Rules = None,
                   policy: Specs = None,
                   seed: int = 0, start: int = 0, threads: int | None = None,
                   progress: bool = False) -> pd.DataFrame:
    """Play ``games`` whole games (to ``target``, the deal rotating; stream (seed, g));
    one row per game (:data:`GAME_COLUMNS`)."""
    run = engine.RunSettings(games, players=players, rules=rules, policy=policy, seed=seed,
                             start=start, threads=threads, progress=progress)
    return engine.simulate(GAME, "game", run)


def trace_hands(rules: BurracoRules, policies: Specs, seed: int, start: int, count: int,
                width: int = 20_000) -> dict[str, Any]:
    """Hands with every decision (codes as the reference's ``decision_codes``,
    -1 padded): ``frame`` and ``codes``."""
    t = engine.setup(GAME, None, rules, policies, seed)
    rec = np.empty((count, K.N_HCOLS), np.int64)
    tr = np.empty((count, width), np.int64)
    K.run_hands(start=start, count=count, key=t.key, rules=t.rv, kinds=t.kinds,
                params=t.params, rec=rec, trace=True, tr=tr)
    frame = engine.frame(HAND_COLUMNS, rec, engine.FrameContext(
        t, np.arange(start, start + count, dtype=np.int64)), GAME.axis_values(t.rules))
    return {"frame": frame, "codes": tr}
