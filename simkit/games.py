"""The games simkit plays: one registry line each.

Every game is a package ``simkit/<game>/`` with the same module names:
``rules`` (the rules config ``RULES``, its presets and the option enums
both engines share), ``policies`` (the policy registry), ``reference`` (the
readable engine), ``kernel`` (the numba engine), ``api`` (the Python entry
points and ``SPEC``, the game's :class:`~simkit.engine.GameSpec`) and
``summary`` (the tables ``simkit simulate`` prints); games with bids add
``advise``.  The command line, chunked runs, ``bench``, ``rules`` and
``compare`` reach a game only through :func:`get`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, cast

from simkit.base.errors import InputError

if TYPE_CHECKING:
    from simkit.engine import GameSpec

#: Game name -> the module that holds its ``SPEC``.
REGISTRY = {
    "pepper": "simkit.pepper.api",
    "pitch": "simkit.pitch.api",
    "shiesta": "simkit.shiesta.api",
    "burraco": "simkit.burraco.api",
}
GAMES = tuple(REGISTRY)


def check(game: str) -> str:
    """The game's name in lower case; an unknown game is an InputError."""
    g = str(game).strip().lower()
    if g not in REGISTRY:
        raise InputError(f"unknown game {game!r}: expected one of {', '.join(GAMES)}")
    return g


def get(game: str) -> GameSpec:
    """The :class:`~simkit.engine.GameSpec` of ``game`` (its package imported on first use)."""
    return cast("GameSpec", importlib.import_module(REGISTRY[check(game)]).SPEC)


def specs() -> list[GameSpec]:
    """Every registered game's spec, in registry order."""
    return [get(g) for g in GAMES]
