"""The one engine layer every game plugs into.

A game is a subclass of :class:`Game` (in its ``api`` module, registered in
:mod:`simkit.games`): its name and title, player counts, rules class and
presets, policy registry, and one :class:`Unit` per kind of record it makes
(``"hand"``, ``"game"``), each with its record schema (:class:`Column`) and
the kernel that fills its record matrix; and typed methods for the rest
(rules and policies made, the reference engine, records as a
:class:`RecordBook`, the measures ``simkit compare`` reports, the warm-up
steps).  From that, this module does once what every game needs:

- :func:`setup` resolves rules, policies and seed into a :class:`Table`
  (the kernels' vectors: :func:`simkit.base.config.vector`,
  :func:`simkit.policy.vectors`, :func:`simkit.base.rng.run_key`);
- :func:`iterate` / :func:`simulate` play a run in batches on the game's
  kernel and turn each batch into a typed DataFrame with :func:`frame`,
  which reads the schema;
- the command line, chunked runs, ``simkit bench``, ``simkit rules`` and
  ``simkit compare`` read only the :class:`Game`.

Adding a game: docs/how-it-works.md, "Adding a game" (and
tests/test_new_game.py, which follows it).
"""

from __future__ import annotations

import abc
import dataclasses
import itertools
import string
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeAlias, TypedDict

import numpy as np
import pandas as pd

from simkit.base import config, rng, stats
from simkit.base.cards import Deck
from simkit.base.errors import InputError
from simkit.base.measures import Measure, Section
from simkit.policy import Policy, seat_policies, vectors
from simkit.runs.batches import check_count, check_held, run_batches, set_threads

# --- record schemas -------------------------------------------------------------

#: The values of each ``{axis}`` a schema may name (``seat``: 0 .. players-1).
Axes: TypeAlias = Mapping[str, Sequence[Any]]

@dataclass(frozen=True)
class Column:
    """One column of a record table, or one per value of each ``{axis}`` in its name.

    ``name`` like ``"bid_{seat}"`` expands over the game's axes (``seat``:
    0 .. players-1; others as the spec declares), outer axis first in the
    order of ``axes`` (default: as they appear in the name).  Its values come
    from the kernel's record matrix, column ``col`` plus the expansion's flat
    index, converted to ``dtype`` (``"bool"``; ``"category"`` reads codes of
    ``labels``, -1 being missing); or from ``derive(matrix, ctx, *values)``
    for columns the matrix does not hold (see :class:`FrameContext`).
    """

    name: str
    dtype: str
    doc: str
    col: int | None = None
    labels: tuple[str, ...] | None = None
    derive: Callable[..., Any] | None = None
    axes: tuple[str, ...] | None = None

    def axis_names(self) -> tuple[str, ...]:
        if self.axes is not None:
            return self.axes
        return tuple(dict.fromkeys(f for _, f, _, _ in string.Formatter().parse(self.name) if f))

    def describe(self) -> tuple[str, str, str]:
        """(name with ``<axis>`` placeholders, dtype, meaning) for ``simkit rules``."""
        shown = self.name
        for a in self.axis_names():
            shown = shown.replace("{" + a + "}", f"<{a}>")
        return shown, self.dtype, self.doc


@dataclass(frozen=True)
class Each:
    """Columns repeated as a group for every value of ``axis`` (the group's
    columns name the axis: ``Each("team", (Column("score_{team}", ...), ...))``
    gives score_0, melded_0, ..., score_1, melded_1, ...)."""

    axis: str
    columns: tuple[Column, ...]


def index_column(name: str, doc: str | None = None) -> Column:
    """The unit's number in the run (hand ``i`` is stream ``(seed, i)``)."""
    doc = doc or (f"the {name}'s number i in the run: " + (
        "dealt by seat i mod players from stream (seed, i)" if name == "hand"
        else "played from stream (seed, i)"))
    return Column(name, "int64", doc, derive=lambda m, ctx: ctx.index)


def dealer_column(col: int, first: bool = False) -> Column:
    """``dealer`` (or ``first_dealer``: who dealt a game's first hand)."""
    if first:
        return Column("first_dealer", "int8", "the seat that dealt the first hand", col)
    return Column("dealer", "int8", "the dealing seat", col)


def unfinished_column(col: int, cap: str) -> Column:
    """``unfinished``: the run stopped at the rule ``cap`` (a game or hand never hangs)."""
    return Column("unfinished", "bool", f"the {cap} cap was reached", col)


def lead_columns(col: int, side: str, step: str, winner: str, length: str,
                 none: str = "no single winner") -> tuple[Column, ...]:
    """Who led a game, step by step (:mod:`simkit.base.drama`), from kernel columns
    ``col`` .. ``col + 2``: ``lead_changes``, ``comeback`` and ``settled``.
    ``side`` names who may lead (``"team"``), ``step`` a step (``"hand"``),
    ``winner`` the game's only winner, ``length`` the column of its steps
    and ``none`` when ``settled`` is -1."""
    return (
        Column("lead_changes", "int32", f"times the lead passed to another {side}", col),
        Column("comeback", "bool", f"{winner} was behind at the halfway point, after {step} "
               f"{length} // 2", col + 1),
        Column("settled", "int32", f"{step}s played before {winner} led for good (-1: "
               f"{none})", col + 2))


def leading_columns(unit: str, dealer: int | None = None) -> tuple[Column, ...]:
    """The columns a unit's records start with: its number, the dealing seat
    (kernel column ``dealer``, when the unit has one) and each seat's policy."""
    head: tuple[Column, ...] = (index_column(unit),)
    if dealer is not None:
        head += (dealer_column(dealer),)
    return (*head, policy_column())


def policy_column() -> Column:
    """``policy_<seat>``: the seat's policy as given (a one-category column)."""
    return Column("policy_{seat}", "category", "the seat's policy, NAME[:key=value,...]",
                  derive=lambda m, ctx, s: pd.Categorical.from_codes(
                      np.zeros(len(ctx.index), np.int8), pd.Index([ctx.table.policies[s].text()])))


#: A unit's record schema: its columns, some in groups repeated per axis value.
Schema: TypeAlias = Sequence["Column | Each"]


@dataclass
class FrameContext:
    """What a derived column may read besides the matrix: the table, each row's
    unit number (``index``) and a cache for values several columns share."""

    table: Table
    index: np.ndarray
    cache: dict[str, Any] = field(default_factory=dict)

    def once(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]


def _expand(item: Column | Each, axes: Axes, fixed: dict[str, Any]
            ) -> Iterator[tuple[str, Column, tuple[Any, ...], int]]:
    """Yield ``(name, column, axis values, flat offset)`` for every expanded column."""
    if isinstance(item, Each):
        for v in axes[item.axis]:
            for c in item.columns:
                yield from _expand(c, axes, {**fixed, item.axis: v})
        return
    order = item.axis_names()
    grids = [[fixed[a]] if a in fixed else list(axes[a]) for a in order]
    for combo in itertools.product(*grids):
        flat = 0
        for a, v in zip(order, combo):
            values = list(axes[a])
            flat = flat * len(values) + values.index(v)
        yield item.name.format(**dict(zip(order, combo))), item, combo, flat


def expand(schema: Schema, axes: Axes) -> list[tuple[str, Column]]:
    """Every column of ``schema`` for these axis values: ``(name, its Column)``."""
    return [(name, c) for item in schema for name, c, *_ in _expand(item, axes, {})]


def column_names(schema: Schema, axes: Axes) -> list[str]:
    """The expanded column names of ``schema`` for these axis values."""
    return [name for name, _ in expand(schema, axes)]


def frame(schema: Schema, matrix: np.ndarray, ctx: FrameContext, axes: Axes) -> pd.DataFrame:
    """The typed DataFrame of a kernel record matrix, column by column as the
    schema says."""
    cols: dict[str, object] = {}
    for item in schema:
        for name, c, values, flat in _expand(item, axes, {}):
            if c.derive is not None:
                x = c.derive(matrix, ctx, *values)
                cols[name] = x if c.dtype == "category" else np.asarray(x).astype(c.dtype,
                                                                                  copy=False)
            else:
                assert c.col is not None, f"column {name} has neither col nor derive"
                data = matrix[:, c.col + flat]
                if c.dtype == "category":
                    assert c.labels is not None, f"category column {name} has no labels"
                    cols[name] = pd.Categorical.from_codes(data.astype(np.int8), pd.Index(c.labels))
                else:
                    cols[name] = data.astype(c.dtype)
    return pd.DataFrame(cols)


# --- a game's contract --------------------------------------------------------------

@dataclass(frozen=True)
class Table:
    """One table's resolved setup, as the kernels take it: the rules and their
    vector, the policy per seat (Pitch sessions: per arriving player) with
    their kinds and parameter matrix, the run key, and unit options (e.g.
    Pepper's starting scores)."""

    rules: config.Config
    policies: tuple[Policy, ...]
    rv: np.ndarray
    kinds: np.ndarray
    params: np.ndarray
    key: np.uint64
    options: Mapping[str, Any] = field(default_factory=dict)


def _no_extra(table: Table) -> tuple[Any, ...]:
    return ()


@dataclass(frozen=True)
class Unit:
    """One kind of record a game makes.

    ``name`` is what ``--hands``/``--games`` count (``"hand"`` or ``"game"``),
    ``label`` what one is called in messages (Pitch's games are money
    sessions: ``"session"``); ``doc`` says what a row is.  ``kernel`` plays
    units ``start .. start+count-1`` into a record matrix of ``width``
    columns of ``dtype``: every unit kernel is called as ``kernel(start, count, key,
    rules, kinds, params, out, *extra(table))``.  A unit whose kernel fills
    several arrays gives ``alloc(table, count)`` and ``play(table, start,
    arrays)`` instead, and ``rows(arrays, table, first)`` to turn them into
    ``(matrix, index)`` for :func:`frame`.  ``options(table, **kw)``
    validates extra keyword arguments of the game's simulate function into
    ``table.options``.  ``summary`` is the class of the table ``simkit
    simulate`` prints.  ``aggregate(table, start, count)`` (hands only) gives
    counts and sums per group of ``agg_keys`` that add up across chunks.
    """

    name: str
    label: str
    doc: str
    schema: Schema
    summary: type
    kernel: Callable[..., None] | None = None
    width: int = 0
    dtype: Any = np.int64
    extra: Callable[[Table], tuple[Any, ...]] = _no_extra
    alloc: Callable[[Table, int], tuple[np.ndarray, ...]] | None = None
    play: Callable[[Table, int, Any], None] | None = None
    rows: Callable[[Any, Table, int], tuple[np.ndarray, np.ndarray]] | None = None
    batch: int = 1 << 20
    chunk: int = 1_000_000
    options: Callable[..., dict[str, Any]] | None = None
    per_player: bool = False
    aggregate: Callable[[Table, int, int], pd.DataFrame] | None = None
    agg_keys: tuple[str, ...] = ()
    agg_chunk: int = 10_000_000
    measure: Measure | None = None

    def arrays(self, table: Table, count: int) -> tuple[np.ndarray, ...]:
        """The kernel's output arrays for ``count`` units."""
        if self.alloc is not None:
            arrays: tuple[np.ndarray, ...] = self.alloc(table, count)
            return arrays
        return (np.empty((count, self.width), self.dtype),)

    def fill(self, table: Table, start: int, arrays: tuple[np.ndarray, ...]) -> None:
        """Play units ``start ..`` into ``arrays`` (from :meth:`arrays`)."""
        if self.play is not None:
            self.play(table, start, arrays)
            return
        out = arrays[0]
        assert self.kernel is not None, f"unit {self.name} has neither kernel nor play"
        self.kernel(start, len(out), table.key, table.rv, table.kinds, table.params, out,
                    *self.extra(table))


@dataclass(frozen=True)
class BenchCase:
    """A further ``simkit bench`` case of a game: ``run()`` processes ``units``
    of ``unit`` (deals solved, hands played by a searching policy) for a table
    of ``players``; ``case`` names it in the output."""

    case: str
    players: int
    unit: str
    units: int
    run: Callable[[], object]


class RecordBook(Protocol):
    """The module of a game's text records (``simkit/GAME/record.py``), as
    :mod:`simkit.bygame.record` and :mod:`simkit.bygame.view` read it: what
    one record holds (``UNIT``: ``"hand"`` or ``"game"``), unit ``index`` of a
    run played by the reference engine, its lines, their replay, and the
    view's results, seat labels and frames."""

    UNIT: str

    def play(self, rules: Any, policies: Sequence[Policy], seed: int, index: int) -> Any: ...

    def body(self, log: Any) -> list[str]: ...

    def replay(self, lines: Sequence[str], rules: Any, policies: Sequence[Policy] | None,
               seed: int, index: int) -> Any: ...

    def result_keys(self, log: Any) -> list[str]: ...

    def seat_labels(self, rules: Any) -> list[str]: ...

    def frames(self, log: Any) -> list[dict[str, Any]]: ...


class Advisor(Protocol):
    """The module of a game's advisor (``simkit/GAME/advise.py``, games with
    bids), as ``simkit advise`` and the app read it: the game's deck, its
    hand size per player count and bidding plans per rules, ``advise(hand,
    **options)`` and its answer as text and as JSON."""

    DECK: Deck
    advise: Callable[..., Any]

    def format_advice(self, advice: Any) -> str: ...

    def advice_json(self, advice: Any) -> dict[str, Any]: ...

    def hand_size(self, players: int) -> int: ...

    def plan_names(self, rules: Any) -> list[str]: ...


#: A kernel step :mod:`simkit.bygame.warm` compiles ahead: its cold compile
#: time in seconds (one thread, benchmarks/compile_costs.py) and a small run
#: that compiles it.
WarmStep: TypeAlias = tuple[float, Callable[[], object]]


class Game(abc.ABC):
    """A game simkit plays: one subclass per game in its ``api`` module, whose
    one instance ``GAME`` the registry (:mod:`simkit.games`) hands out.

    The class attributes say what the game is: ``name``, ``title``, ``book``
    (its rule book in ``seeds/``), ``players`` (the counts it is played by),
    ``rules`` (its rules class) and ``presets``, ``policies`` (the policy
    registry), ``policy_layout`` (the parameter layout its kernel reads),
    ``named_policies`` (settings worth a name, ``classic``: the older
    heuristic) and ``default_policy``; ``units``, one :class:`Unit` per kind
    of record (``"hand"``, ``"game"``); ``axes``, the values of each
    ``{axis}`` a schema may name besides ``seat``; what ``simkit bench``
    plays (``bench_unit``, ``bench_players``, ``bench_scale``); for games
    with bids ``bound`` (the advisor can add the perfect-information bound)
    and ``example_hand``.  The methods give what takes code; the abstract
    ones every game writes, the others a game with bids (the advisor, the
    deal of a record) or further bench cases overrides.  Adding a game:
    docs/how-it-works.md, "Adding a game".
    """

    name: ClassVar[str]
    title: ClassVar[str]
    book: ClassVar[str]
    players: ClassVar[tuple[int, ...]]
    #: How the counts read in messages; by default from ``players``
    #: ("2, 3 or 4 players", "2 to 8 players").
    players_text: ClassVar[str] = ""
    rules: ClassVar[type[config.Config]]
    presets: ClassVar[Mapping[str, Mapping[str, Any]]]
    policies: ClassVar[Mapping[str, type[config.Config]]]
    policy_layout: ClassVar[type[config.Config]]
    default_policy: ClassVar[str] = "heuristic"
    named_policies: ClassVar[Mapping[str, str]] = {}
    units: ClassVar[Mapping[str, Unit]]
    axes: ClassVar[Mapping[str, Callable[[Any], Sequence[Any]]]] = {}
    bench_unit: ClassVar[str] = "hand"
    bench_players: ClassVar[tuple[int, ...]] = ()
    bench_scale: ClassVar[int] = 1
    bound: ClassVar[bool] = False
    example_hand: ClassVar[str] = ""

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if not cls.players_text and "players" in cls.__dict__:
            p = cls.players
            text = (f"exactly {p[0]}" if len(p) == 1 else
                    f"{p[0]} to {p[-1]}" if len(p) > 3 else
                    ", ".join(map(str, p[:-1])) + f" or {p[-1]}")
            cls.players_text = f"{text} players"

    # --- made from the class attributes ----------------------------------------------

    def make_rules(self, preset: str = "seed", file: str | None = None,
                   overrides: Mapping[str, Any] | None = None,
                   players: int | None = None) -> Any:
        """Rules from a preset, then a TOML file, then ``key=value`` overrides, then
        ``players`` (:func:`simkit.base.config.make_rules` over ``rules`` and
        ``presets``)."""
        return config.make_rules(self.rules, self.presets, self.name.capitalize(), preset,
                                 file=file, overrides=None if overrides is None
                                 else dict(overrides), players=players)

    def make_policies(self, specs: Any, players: int) -> tuple[Policy, ...]:
        """One validated :class:`~simkit.policy.Policy` per seat from a spec, or one
        per seat, of ``policies`` and ``named_policies`` (default:
        ``default_policy`` at every seat)."""
        return seat_policies(specs, players, self.policies, self.default_policy,
                             self.named_policies)

    # --- what every game writes ---------------------------------------------------

    @abc.abstractmethod
    def reference(self, rules: Any, policies: Sequence[Policy], seed: int,
                  index: int) -> object:
        """Unit ``index`` of ``bench_unit`` played by the readable reference engine
        (``simkit bench`` and the contract tests)."""

    @abc.abstractmethod
    def record(self) -> RecordBook:
        """The module of the game's text records (imported when first used)."""

    @abc.abstractmethod
    def measures(self, rules: Any) -> list[Section]:
        """What ``simkit compare`` compares under these rules (:mod:`simkit.lab.compare`)."""

    @abc.abstractmethod
    def warm(self) -> Mapping[str, WarmStep]:
        """The kernel steps :mod:`simkit.bygame.warm` compiles ahead, by name."""

    # --- what a game with bids, or further bench cases, overrides -----------------

    def advisor(self) -> Advisor | None:
        """The module of ``simkit advise`` (games with bids), or None."""
        return None

    def dealt(self, lines: Sequence[str], rules: Any) -> tuple[int, list[str]]:
        """``(dealer, each seat's hand)`` of a record's lines, for ``simkit advise
        --from`` (games with an advisor)."""
        raise InputError(f"{self.name} has no advisor to read a record's deal for")

    def bench_cases(self, hands: int) -> list[BenchCase]:
        """The game's further ``simkit bench`` cases (a solver, a searching
        policy) beside the kernel's hands."""
        return []

    # --- what every game shares ---------------------------------------------------

    def unit(self, name: str) -> Unit:
        """The unit ``name``; a unit the game does not play is an InputError."""
        if name not in self.units:
            if name == "hand":
                raise InputError(f"{self.name} is played in whole games, not hands: "
                                 f"use --games N")
            raise InputError(f"bad unit {name!r}: {self.name} records "
                             + " or ".join(f"{u}s" for u in self.units))
        return self.units[name]

    def axis_values(self, rules: Any) -> dict[str, Sequence[Any]]:
        """The values of every axis a schema may name, for these rules."""
        out: dict[str, Sequence[Any]] = {"seat": range(rules.players)}
        out.update({k: f(rules) for k, f in self.axes.items()})
        return out

    def check_players(self, players: object) -> None:
        """Nothing for a player count the game is played by (or None); an
        InputError naming the counts otherwise."""
        if players is not None and (isinstance(players, bool)
                                    or not isinstance(players, (int, np.integer))
                                    or players not in self.players):
            raise InputError(f"bad player count {players!r}: {self.name.capitalize()} is "
                             f"played by {self.players_text}")

    def resolve_rules(self, rules: Any = None, players: int | None = None) -> Any:
        """Rules from a rules object, a preset name, a dict of rule values or None
        (the seed's), with ``players`` (if given) replacing the count."""
        self.check_players(players)
        return config.resolve_rules(rules, players, self.rules, self.make_rules,
                                    presets=self.presets, game=self.title)

    def __repr__(self) -> str:
        return f"<game {self.name}>"


def check_seat(value: object, what: str, players: int) -> int:
    """A seat number (``what``: "seat", "dealer") for ``players`` players, or an
    InputError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or not 0 <= value < players:
        raise InputError(f"bad {what} {value!r}: expected a seat from 0 to {players - 1} "
                         f"with {players} players")
    return int(value)


@dataclass(frozen=True)
class FixedHand:
    """What an evaluation of one hand held at one seat is about: the hand (as
    text), the player count, the seat and dealer, and the deals sampled."""

    hand: tuple[str, ...]
    players: int
    seat: int
    dealer: int
    samples: int


class FixedArgs(TypedDict, total=False):
    """The keyword arguments of a run around a fixed hand, as the games with an
    advisor take them (``fixed_hands``, ``plan_hands``, ``evaluate_hand``, their
    ``advise``): the table (``players``, ``rules``, ``policy``: as ``simulate``
    takes them), who holds the hand (``seat``; default: left of the dealer) and
    who deals (``dealer``, default 0), the ``seed`` and the ``threads``."""

    players: int | None
    seat: int | None
    dealer: int
    rules: Any
    policy: Any
    seed: int
    threads: int | None


@dataclass(frozen=True)
class FixedSettings:
    """:class:`FixedArgs` as given, with their defaults: ``FixedSettings(**given)``
    refuses a name that is not one of them, as a signature would."""

    players: int | None = None
    seat: int | None = None
    dealer: int = 0
    rules: Any = None
    policy: Any = None
    seed: int = 0
    threads: int | None = None


Hand: TypeAlias = "str | list[str]"


@dataclass(frozen=True)
class Held:
    """A run around a fixed hand, checked: the table, the hand as given (the
    game parses it, checking its count, when it plays it), its seat and the
    dealer."""

    table: Table
    hand: Hand
    seat: int
    dealer: int


def held(game: Game, hand: Hand, samples: int, given: FixedSettings) -> Held:
    """The checked arguments of a run of ``samples`` deals around a fixed hand
    (the seat by default left of the dealer)."""
    check_held(samples, "--samples", "sample")
    t = setup(game, given.players, given.rules, given.policy, given.seed)
    players = int(t.rules.players)  # type: ignore[attr-defined]  # every game's rules have it
    dealer = check_seat(given.dealer, "dealer", players)
    seat = (dealer + 1) % players if given.seat is None \
        else check_seat(given.seat, "seat", players)
    return Held(t, hand, seat, dealer)


# --- running a game -------------------------------------------------------------------

class RunArgs(TypedDict, total=False):
    """The keyword arguments that say how a run is played, as the games' public
    functions take them (``simulate(hands, players=3, seed=7)``): the fields of
    :class:`RunSettings` but its count."""

    players: int | None
    rules: Any
    policy: Any
    seed: int
    start: int
    threads: int | None
    progress: bool


@dataclass(frozen=True)
class RunSettings:
    """What a run is: who plays (``players``, ``rules``: a rules object, preset
    name, dict of rule values or None for the seed's; ``policy``: one spec or one
    per seat), which units (``count`` of them from ``start``, each fixed by
    ``seed`` and its index), and how it is played (``threads``, ``progress``)."""

    count: int
    players: int | None = None
    rules: Any = None
    policy: Any = None
    seed: int = 0
    start: int = 0
    threads: int | None = None
    progress: bool = False


def setup(game: Game, players: int | None = None, rules: Any = None, policy: Any = None,
          seed: int = 0,
          per_player: bool = False) -> Table:
    """The :class:`Table` of one run: rules, policies and seed checked and
    turned into the kernels' vectors.  With ``per_player`` (Pitch sessions) a
    list of policy specs is kept as given, one per arriving player in turn."""
    r = game.resolve_rules(rules, players)
    key = rng.run_key(seed)
    if per_player and not isinstance(policy, (str, Policy)) and policy:
        pols = game.make_policies(policy, len(policy))
    else:
        pols = game.make_policies(policy, r.players)
    kinds, params = vectors(pols, game.policy_layout)
    return Table(rules=r, policies=pols, rv=config.vector(r), kinds=kinds, params=params,
                 key=key)


def only_columns(schema: Schema, names: Collection[str]) -> tuple[Column | Each, ...]:
    """The items of ``schema`` named in ``names`` (column names as the schema
    writes them, ``"score_{side}"``), looking inside :class:`Each` groups."""
    out: list[Column | Each] = []
    for item in schema:
        if isinstance(item, Each):
            inner = tuple(c for c in item.columns if c.name in names)
            if inner:
                out.append(Each(item.axis, inner))
        elif item.name in names:
            out.append(item)
    return tuple(out)


def records(game: Game, unit: Unit, table: Table, start: int, count: int,
            columns: Collection[str] | None = None) -> pd.DataFrame:
    """Units ``start .. start+count-1`` as one DataFrame (one kernel call);
    ``columns`` (schema names) builds only those."""
    arrays = unit.arrays(table, count)
    unit.fill(table, start, arrays)
    if unit.rows is None:
        matrix, index = arrays[0], np.arange(start, start + count, dtype=np.int64)
    else:
        matrix, index = unit.rows(arrays, table, start)
    schema = unit.schema if columns is None else only_columns(unit.schema, columns)
    return frame(schema, matrix, FrameContext(table, index), game.axis_values(table.rules))


def iterate(game: Game, unit_name: str, run: RunSettings, batch: int | None = None,
            columns: Sequence[str] | None = None, **options: Any) -> Iterator[pd.DataFrame]:
    """Units ``run.start .. run.start+run.count-1`` as DataFrames of at most
    ``batch`` rows (``columns``: only these schema names, e.g. what a tournament
    measures)."""
    unit = game.unit(unit_name)
    check_count(run.count, f"{unit.label}s")
    table = setup(game, run.players, run.rules, run.policy, run.seed,
                  per_player=unit.per_player)
    if unit.options is not None:
        table = dataclasses.replace(table, options=unit.options(table, **options))
    elif options:
        raise TypeError(f"unexpected options {', '.join(options)} for {game.name} {unit.name}s")
    set_threads(run.threads)
    yield from run_batches(lambda s, c: records(game, unit, table, s, c, columns=columns),
                           run.count,
                           start=run.start, batch=batch or unit.batch, progress=run.progress,
                           unit=unit.label)


def simulate(game: Game, unit_name: str, run: RunSettings,
             columns: Sequence[str] | None = None, **options: Any) -> pd.DataFrame:
    """Play ``run.count`` units and return one DataFrame (see :func:`iterate`)."""
    parts = list(iterate(game, unit_name, run, columns=columns, **options))
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]


def aggregate(game: Game, run: RunSettings) -> pd.DataFrame:
    """Counts and sums per group of hands ``run.start .. run.start+run.count-1``
    (the game's ``agg_keys``); tables of different ranges add up (groupby-sum)."""
    unit = game.unit("hand")
    if unit.aggregate is None:
        raise InputError(f"--aggregate is not offered for {game.name}: its runs keep one "
                         f"record per {unit.label}")
    check_count(run.count, "hands")
    table = setup(game, run.players, run.rules, run.policy, run.seed)
    set_threads(run.threads)
    return unit.aggregate(table, run.start, run.count)


def kernel_run(game: Game, players: int, units: int,
               policy: str = "heuristic") -> Callable[[], None]:
    """A closure playing ``units`` of the game's bench unit (full hands, or whole
    games) into arrays allocated once: what ``simkit bench`` times."""
    table = setup(game, players, None, policy, seed=1)
    unit = game.unit(game.bench_unit)
    arrays = unit.arrays(table, units)
    return lambda: unit.fill(table, 0, arrays)


# --- summaries ------------------------------------------------------------------------

class Summary:
    """The short table ``simkit simulate`` prints, built chunk by chunk from small
    per-chunk parts (counts and sums), so it never holds the whole run: a game
    implements :meth:`part` (one chunk's totals) and :meth:`text`."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.parts: list[pd.DataFrame] = []

    def add(self, df: pd.DataFrame) -> None:
        self.parts.append(self.part(df))

    def add_aggregate(self, agg: pd.DataFrame) -> None:
        raise InputError("this game's summary is made from records, not aggregates")

    def part(self, df: pd.DataFrame) -> pd.DataFrame:
        raise NotImplementedError

    def total(self) -> pd.DataFrame:
        """The parts added up (by index, so per-group parts add group by group)."""
        return pd.concat(self.parts).groupby(level=0).sum()

    def text(self) -> str:
        raise NotImplementedError


def bid_table(total: pd.DataFrame, bid_text: Callable[[int], str],
              **means: pd.Series) -> pd.DataFrame:
    """Per contract level (``total``'s index; 0: thrown in) with its ``hands`` and
    ``made`` counts: the share of hands, the success rate with its 95%
    interval, and each of ``means`` (a total over the level's hands) per hand."""
    n = total["hands"].sum()
    lo, hi = stats.proportion_ci(total["made"], total["hands"])
    out = pd.DataFrame({
        "bid": [bid_text(int(v)) if v else "(thrown in)" for v in total.index],
        "hands": total["hands"], "share": total["hands"] / n,
        "made": total["made"] / total["hands"], "ci_low": lo, "ci_high": hi,
        **{name: x / total["hands"] for name, x in means.items()}})
    out.loc[out["bid"] == "(thrown in)", ["made", "ci_low", "ci_high", *means]] = np.nan
    return out.reset_index(drop=True)
