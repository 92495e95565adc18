"""Every word of the games and of simkit's answers that a card player may not
know, defined once in plain words, with where it comes from.

The entries are kept in ``glossary.toml`` beside this module.  The browser
app shows these definitions where the words appear (a tap or the
keyboard opens them, not only a mouse hover), and the documentation lists
them; both read :func:`as_json`.  A term belongs to the games it names (none:
every game); ``source`` is the rule-book section it comes from
(``seeds/pepper.md 3``) or the part of simkit that defines it.

>>> lookup("Kubwa", "pepper").word
'Pilipili Kubwa'
>>> lookup("kubwa", "pitch") is None
True
"""

from __future__ import annotations

import importlib.resources
import tomllib
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Term:
    """One glossary entry: its key, the word as written, what it means, where it
    comes from, the games it belongs to (empty: all) and other spellings."""

    key: str
    word: str
    means: str
    source: str
    games: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


def _load() -> tuple[Term, ...]:
    """The terms of ``glossary.toml``, in its order (prose is easier to keep in
    a data file than in Python strings)."""
    with importlib.resources.files(__package__).joinpath("glossary.toml").open("rb") as f:
        entries = tomllib.load(f)["term"]
    return tuple(Term(**{**e, "games": tuple(e.get("games", ())),
                         "aliases": tuple(e.get("aliases", ()))}) for e in entries)


TERMS: tuple[Term, ...] = _load()


def lookup(word: str, game: str | None = None) -> Term | None:
    """The term for ``word`` (its key, word or an alias, any case) that belongs to
    ``game`` (or to every game), or None."""
    w = word.strip().lower()
    for t in TERMS:
        if game is not None and t.games and game not in t.games:
            continue
        if w in (t.key, t.word.lower(), *(a.lower() for a in t.aliases)):
            return t
    return None


def for_game(game: str) -> list[Term]:
    """The terms of ``game`` and those of every game."""
    return [t for t in TERMS if not t.games or game in t.games]


def as_json() -> dict:
    """The glossary as the pages and the documentation read it."""
    return {"terms": [asdict(t) for t in TERMS]}
