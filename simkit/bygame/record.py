"""Plain-text records of single hands (Shiesta: whole games): ``simkit show``
and ``simkit replay`` (seeds/records.md).

A record is text with one fact per ``key: value`` line, easy to read and to
write by hand: a header shared by every game, then the game's own lines
(``simkit/<game>/record.py``, documented in each game's rule book), which
give the deal, the auction, every play and the score::

    # simkit record (seeds/records.md)
    game: pepper
    rules: preset=seed players=4 auction=open ...
    seed: 7
    index: 12
    policy 0: heuristic:aggression=0.0,...
    ...

``rules`` holds every rule key (``preset=NAME`` first when a preset was
named); ``seed`` and ``index`` say which unit of which run it is, when it
came from one; ``policy N`` who played seat N. ``seat`` and ``score`` are
optional lines for ``simkit advise --from``: whose hand it is and the game
score before it (as ``--score`` takes it, the seat's side first).

Each game's ``record`` module provides ``UNIT`` (``"hand"`` or ``"game"``),
``play(rules, policies, seed, index)`` (the reference engine's unit exactly
as a run plays it), ``body(log)`` (its lines) and ``replay(lines, rules,
policies, seed, index)`` (the reference engine replays the lines, checking
every move and every result they state, the policies making any moves
missing; a problem is one :class:`InputError` line naming the move); and
for the hand viewer (:mod:`simkit.bygame.view`) ``frames(log)`` (the state after
each move), ``result_keys(log)`` (the result lines at the record's end) and
``seat_labels(rules)``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from simkit import games
from simkit.base.errors import InputError
from simkit.base.rng import MAX_STREAMS
from simkit.records.text import key_values, seat_number, whole

if TYPE_CHECKING:
    from simkit.engine import Game, RecordBook

TITLE = "# simkit record (seeds/records.md)"
#: The header's keys; ``policy N`` lines besides.
HEADER = ("game", "rules", "seed", "index", "seat", "score")
#: A record's ``score`` line: as ``--score`` takes it (the advisor checks the rest).
_SCORE = re.compile(r"[+-]?[0-9]{1,7}(:[+-]?[0-9]{1,7}){1,2}")


@dataclass(frozen=True)
class Record:
    """A record as read: the header's values (None where a line is absent) and
    the game's own lines, untouched."""

    game: str
    rules: Any                  # the game's rules config
    preset: str | None
    seed: int | None
    index: int | None
    policies: tuple[str, ...] | None
    seat: int | None
    score: str | None
    lines: tuple[str, ...]


def module(game: str) -> RecordBook:
    """A game's record module (``simkit/<game>/record.py``), as its Game gives it."""
    return games.get(game).record()


def _value(v: object) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def render(rec: Record, log: Any) -> str:
    """The record's text: the header from ``rec``, the game's lines from ``log``."""
    rules = rec.rules
    items = ([f"preset={rec.preset}"] if rec.preset else []) + \
        [f"{k}={_value(v)}" for k, v in rules.as_dict().items()]
    lines = [TITLE, f"game: {rec.game}", "rules: " + " ".join(items)]
    for key in ("seed", "index", "seat", "score"):
        if getattr(rec, key) is not None:
            lines.append(f"{key}: {getattr(rec, key)}")
    for seat, spec in enumerate(rec.policies or ()):
        lines.append(f"policy {seat}: {spec}")
    return "\n".join(lines + module(rec.game).body(log)) + "\n"


def show(game: str, rules: Any, policies: Any, seed: int, index: int,
         preset: str | None = None) -> str:
    """Unit ``index`` of a run (rules, policies, seed) as a record: the reference
    engine plays it exactly as ``simulate`` does."""
    return render(*played(game, rules, policies, seed, index, preset=preset))


def played(game: str, rules: Any, policies: Any, seed: int, index: int,
           preset: str | None = None) -> tuple[Record, Any]:
    """``(record header, log)`` of unit ``index`` of a run, as :func:`show` plays it."""
    g = games.get(game)
    pols = g.make_policies(policies, rules.players)
    log = module(game).play(rules, pols, seed, index)
    return Record(game=g.name, rules=rules, preset=preset, seed=seed, index=index,
                  policies=tuple(p.text() for p in pols), seat=None, score=None,
                  lines=()), log


def _rules(g: Game, text: str | None) -> tuple[Any, str | None]:
    """The header's rules line: ``preset=NAME`` (optional) and ``key=value`` items."""
    if text is None:
        return g.make_rules(), None
    values: dict[str, str] = {}
    preset: str | None = None
    for item in text.split():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"bad rules item {item!r} in the record: expected key=value")
        if key in values or (key == "preset" and preset is not None):
            raise InputError(f"the record's rules name {key!r} twice")
        if key == "preset":
            preset = value
        else:
            values[key] = value
    count = values.pop("players", None)
    players = None if count is None else whole(count, "player count", 1)
    if players is not None:
        g.check_players(players)
    return g.make_rules(preset or "seed", None, values, players=players), preset


def parse(text: str) -> Record:
    """Split a record into its header (checked: a known game, valid rules and
    policies) and the game's lines.  Blank lines and ``#`` comments are
    dropped; keys are case-insensitive."""
    head: dict[str, str] = {}
    pols: dict[int, str] = {}
    body: list[str] = []
    for key, value, line in key_values(text.splitlines()):
        if key in HEADER:
            if key in head:
                raise InputError(f"the record has two {key!r} lines")
            head[key] = value
        elif key.startswith("policy "):
            number = whole(key[7:], "policy seat", 0)
            if number in pols:
                raise InputError(f"the record has two 'policy {number}' lines")
            pols[number] = value
        else:
            body.append(line)
    if "game" not in head:
        raise InputError("the record has no 'game' line: expected e.g. 'game: pepper' first")
    g = games.get(games.check(head["game"].lower()))
    rules, preset = _rules(g, head.get("rules"))
    policies = None
    if pols:
        if sorted(pols) != list(range(rules.players)):
            raise InputError(f"the record names policies for seats {sorted(pols)}: expected "
                             f"one 'policy N' line for each seat 0 to {rules.players - 1}")
        policies = tuple(pols[s] for s in range(rules.players))
        g.make_policies(list(policies), rules.players)          # checked now
    seed = whole(head["seed"], "seed", 0, 2**64 - 1) if "seed" in head else None
    index = whole(head["index"], "index", 0, MAX_STREAMS - 1) if "index" in head else None
    own = seat_number(head["seat"], rules.players) if "seat" in head else None
    score = head.get("score")
    if score is not None and not _SCORE.fullmatch(score.strip()):
        raise InputError(f"bad score {score!r}: expected the game score as US:THEM in whole "
                         "numbers written in ASCII digits (e.g. 12:-6; with 3 players "
                         "US:LEFT:RIGHT too), as --score takes it")
    return Record(game=g.name, rules=rules, preset=preset, seed=seed, index=index,
                  policies=policies, seat=own, score=score, lines=tuple(body))


def replay(text: str, policies: Any = None) -> str:
    """Replay a record with the reference engine and return it completed: every
    move checked, every result it states checked, results it leaves out
    written in.  ``policies`` (specs, one or one per seat) play any moves the
    record leaves out; by default the record's own ``policy`` lines do."""
    return render(*replayed(text, policies))


def replayed(text: str, policies: Any = None) -> tuple[Record, Any]:
    """``(record header, log)`` of a record replayed as :func:`replay` replays it."""
    rec = parse(text)
    g = games.get(rec.game)
    if policies:
        try:
            module(rec.game).replay(list(rec.lines), rec.rules, None, rec.seed or 0,
                                    rec.index or 0)
        except InputError:
            pass                # it stops early: the given policies play the rest
        else:
            raise InputError("the record is complete: every move is in it, so --policy "
                             "would play none (and its policy lines say who played): "
                             "drop --policy")
    specs = policies or (list(rec.policies) if rec.policies else None)
    pols = g.make_policies(specs, rec.rules.players) if specs else None
    log = module(rec.game).replay(list(rec.lines), rec.rules, pols,
                                  rec.seed or 0, rec.index or 0)
    if pols is not None:
        rec = dataclasses.replace(rec, policies=tuple(p.text() for p in pols))
    return rec, log


#: The largest record read (a Burraco game's record is some tens of kilobytes).
MAX_RECORD_BYTES = 4 << 20


def read_file(path: str) -> str:
    """A record file's text ('-': standard input), UTF-8 (a byte-order mark
    allowed), at most :data:`MAX_RECORD_BYTES`, from a regular file
    (:func:`simkit.base.files.read_text`); anything else is an InputError naming
    the file."""
    from simkit.base.files import read_text

    what = "a record from standard input" if path == "-" else f"record {path!r}"
    return read_text(path, what, MAX_RECORD_BYTES, stdin=True)


#: Rows of a run ``show --where`` reads at a time (of the columns it names).
BATCH_ROWS = 1 << 16


def run_units(path: str, index: int | None, where: str | None,
              limit: int) -> tuple[str, Any, list[str], int, list[int]]:
    """The units of a finished run to show: ``(game, rules, policy specs, seed,
    numbers)``, the unit ``index`` or the first ``limit`` whose records match
    the condition ``where`` (:mod:`simkit.records.where`: the columns only).
    The run is checked whole (:func:`simkit.runs.store.open_run`) but never
    held: a condition reads only the columns it names, :data:`BATCH_ROWS`
    rows at a time, and stops at the ``limit``-th match."""
    from simkit.runs.store import open_run
    manifest, files = open_run(path)
    game = manifest["game"]
    g = games.get(game)
    unit = module(game).UNIT
    if manifest.get("kind") != "records" or manifest.get("unit") != unit:
        raise InputError(f"run '{path}' holds {manifest.get('kind')} of "
                         f"{manifest.get('unit')}s: simkit show reads runs of {g.name} "
                         f"{unit} records")
    spec = manifest["spec"]
    rules = g.make_rules(overrides=spec["rules"])
    if where is None:
        if index is None:
            raise InputError("give --hand I (the unit's number) or --where EXPR with --run")
        count = _parquet(path, lambda: sum(_rows(f) for f in files))
        if not 0 <= index < count:
            raise InputError(f"bad --hand {index}: run '{path}' has {unit}s 0 to {count - 1}")
        return game, rules, spec["policies"], spec["seed"], [index]
    numbers = _parquet(path, lambda: _matching(files, where, unit, limit))
    if not numbers:
        raise InputError(f"no {unit} of run '{path}' matches --where {where!r}")
    return game, rules, spec["policies"], spec["seed"], numbers


def _rows(path: Any) -> int:
    """The rows of a Parquet file, by its footer."""
    import pyarrow.parquet as pq
    return int(pq.read_metadata(path).num_rows)


def _matching(files: list[Any], where: str, unit: str, limit: int) -> list[int]:
    """The numbers (column ``unit``) of the first ``limit`` records of ``files``
    where ``where`` holds, read a batch of the columns it names at a time."""
    import pyarrow.parquet as pq

    from simkit.records.where import named, select
    columns = pq.read_schema(files[0]).names
    wanted = [c for c in columns if c in named(where) or c == unit]
    found: list[int] = []
    for path in files:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS, columns=wanted):
            df = batch.to_pandas()
            hit = df[unit].to_numpy()[select(df, where, unit, columns).to_numpy()]
            found += [int(n) for n in hit[:limit - len(found)]]
            if len(found) >= limit:
                return found
    return found


def _parquet(path: str, read: Callable[[], Any]) -> Any:
    """``read()``, a read of the run ``path``'s Parquet files: a file that
    cannot be read is an InputError naming the run."""
    import pyarrow as pa
    try:
        return read()
    except (OSError, pa.ArrowException) as e:
        first = (str(e).splitlines() or [type(e).__name__])[0]
        raise InputError(f"cannot read run '{path}': not readable Parquet ({first})") from None
