"""The games simkit plays: one registry entry each.

Every game is a package ``simkit/<game>/`` with the same module names:
``rules`` (the rules config, its presets and the option enums both engines
share), ``policies`` (the policy registry), ``reference`` (the readable
engine), ``kernel`` (the numba engine), ``record`` (its text records),
``summary`` (the tables ``simkit simulate`` prints and the measures
``simkit compare`` compares) and ``api`` (the Python entry points and
``GAME``, the game's typed :class:`~simkit.engine.Game`); games with bids add
``advise``, the advisor, which sits above ``api`` and so is registered here
beside it.  The command line, chunked runs, ``bench``, ``rules`` and
``compare`` reach a game only through :func:`get` (and :func:`advisor`).

Each entry is a typed loader that imports the game's package on first use,
so that ``simkit --help`` imports no game, and mypy checks every game's
wiring: a ``GAME`` that is not a :class:`~simkit.engine.Game`, or an advisor
module without what :class:`~simkit.engine.Advisor` names, fails the type
check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simkit.base.errors import InputError

if TYPE_CHECKING:
    from simkit.engine import Advisor, Game


def _pepper() -> Game:
    from simkit.pepper.api import GAME
    return GAME


def _pepper_advisor() -> Advisor:
    from simkit.pepper import advise
    return advise


def _pitch() -> Game:
    from simkit.pitch.api import GAME
    return GAME


def _pitch_advisor() -> Advisor:
    from simkit.pitch import advise
    return advise


def _shiesta() -> Game:
    from simkit.shiesta.api import GAME
    return GAME


def _burraco() -> Game:
    from simkit.burraco.api import GAME
    return GAME


@dataclass(frozen=True)
class Entry:
    """A registered game: its loader, and its advisor's (games with bids)."""

    game: Callable[[], Game]
    advisor: Callable[[], Advisor] | None = None


#: Game name -> its entry, in the order the games are listed everywhere.
REGISTRY: dict[str, Entry] = {
    "pepper": Entry(_pepper, _pepper_advisor),
    "pitch": Entry(_pitch, _pitch_advisor),
    "shiesta": Entry(_shiesta),
    "burraco": Entry(_burraco),
}
GAMES = tuple(REGISTRY)


def check(game: str) -> str:
    """The game's name in lower case; an unknown game is an InputError."""
    g = str(game).strip().lower()
    if g not in REGISTRY:
        raise InputError(f"unknown game {game!r}: expected one of {', '.join(GAMES)}")
    return g


def get(game: str) -> Game:
    """The :class:`~simkit.engine.Game` called ``game`` (its package imported on first use)."""
    return REGISTRY[check(game)].game()


def advisor(game: str) -> Advisor | None:
    """The advisor of ``game`` (``simkit advise``: games with bids), or None."""
    load = REGISTRY[check(game)].advisor
    return None if load is None else load()


def specs() -> list[Game]:
    """Every registered game, in registry order."""
    return [get(g) for g in GAMES]
