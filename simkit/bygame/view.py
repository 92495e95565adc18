"""The hand viewer (seeds/records.md, "The hand viewer's frames"): one record
(a hand; Shiesta: a whole game) as plain dicts that a browser page draws and
steps through move by move.

:func:`of_text` takes a record's text (as ``simkit replay`` does) and
:func:`of_run` a unit of a run (as ``simkit show`` does).  Either returns the
view: the game, its title and players, a label per seat, the completed
record's text, one frame per move and the record's results::

    {"game": "pepper", "title": "Pepper (Pilipili)", "players": 4,
     "seats": ["seat 0 (side 0)", ...], "record": "# simkit record ...\\n...",
     "frames": [{"caption": "the deal: seat 3 deals", "actor": 3,
                 "hands": [["AC", "10C", ...], ...],
                 "areas": [{"title": "Auction", "rows": [{"label": "seat 0",
                            "cards": [], "text": "3", "mark": true}]}, ...],
                 "score": [["side 0 (seats 0, 2)", "0 tricks"], ...]}, ...],
     "result": [["tricks by seat", "1 4 0 1"], ...]}

The frames are each game's ``record.frames(log)``: the reference engine's
log walked move by move (their shared pieces: :mod:`simkit.records.frames`).  The
result is the record's own result lines at its end, as its text states them.
Every value is plain JSON.
"""

from __future__ import annotations

from typing import Any

from simkit import games
from simkit.bygame import record as records
from simkit.records.text import key_values


def of_text(text: str, policies: Any = None) -> dict[str, Any]:
    """The view of a record's text, complete or not, replayed as
    :func:`simkit.bygame.record.replay` replays it (the same checks: a bad record is
    one :class:`~simkit.base.errors.InputError` line; ``policies`` play what it
    leaves out).  Its ``record`` is the completed text ``replay`` returns."""
    return _view(*records.replayed(text, policies))


def of_run(game: str, rules: Any, policies: Any, seed: int, index: int,
           preset: str | None = None) -> dict[str, Any]:
    """The view of unit ``index`` (a hand; Shiesta: a game) of a run (rules,
    policies, seed), played by the reference engine exactly as ``simulate``
    plays it.  Its ``record`` is the text :func:`simkit.bygame.record.show` returns."""
    return _view(*records.played(game, rules, policies, seed, index, preset=preset))


def _view(rec: records.Record, log: Any) -> dict[str, Any]:
    g, mod = games.get(rec.game), records.module(rec.game)
    text = records.render(rec, log)
    keys = set(mod.result_keys(log))
    result = [[key, value] for key, value, _ in key_values(text.splitlines()) if key in keys]
    return {"game": g.name, "title": g.title, "players": rec.rules.players,
            "seats": mod.seat_labels(rec.rules), "record": text, "frames": mod.frames(log),
            "result": result}
