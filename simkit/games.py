"""The games simkit plays, and where each keeps its parts.

Every game is a package ``simkit/<game>/`` with the same module names:
``rules`` (``TITLE``, ``BOOK``, ``RULES`` the rules config class, ``PRESETS``,
``make_rules``, ``flatten``),
``policies`` (``POLICIES``, ``make_policies``), ``reference`` (the readable
engine), ``kernel`` (the numba engine), ``api`` (simulation entry points and
the chunk functions of :mod:`simkit.chunks`), ``summary`` (``Summary``, the
table ``simkit simulate`` prints) and ``advise`` (``advise``,
``format_advice``, ``advice_json``; only games with bids have it).  The
command line and the chunked runs reach a game only through :func:`part`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from simkit.errors import InputError

GAMES = ("pepper", "pitch", "shiesta", "burraco")
#: What each game's runs count: hands and whole games (Pitch: money sessions),
#: or whole games only.
UNITS = {"pepper": ("hand", "game"), "pitch": ("hand", "game"), "shiesta": ("game",),
         "burraco": ("hand", "game")}


def check(game: str) -> str:
    """The game's name in lower case; an unknown game is an InputError."""
    g = str(game).strip().lower()
    if g not in GAMES:
        raise InputError(f"unknown game {game!r}: expected one of {', '.join(GAMES)}")
    return g


def part(game: str, module: str) -> ModuleType:
    """The module ``simkit.<game>.<module>`` (imported on first use)."""
    return importlib.import_module(f"simkit.{check(game)}.{module}")


def has_part(game: str, module: str) -> bool:
    """Whether the game has the module (e.g. only games with bids have ``advise``)."""
    import importlib.util
    return importlib.util.find_spec(f"simkit.{check(game)}.{module}") is not None
