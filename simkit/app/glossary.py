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

import functools
import importlib.resources
import pathlib
import re
import tomllib
import unicodedata
from dataclasses import asdict, dataclass
from typing import Any


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


# --- where a term comes from, as links a reader can follow ---------------------------------

#: The rule books (``seeds/``, beside the package in the repository) and the
#: documentation site's page of each, as ``simkit serve`` serves it (``/docs/``).
SEEDS = pathlib.Path(__file__).resolve().parents[2] / "seeds"
DOCS = "/docs/"
BOOKS = {"pepper": ("Pepper rules", "games/pepper/"), "pitch": ("Pitch rules", "games/pitch/"),
         "shiesta": ("Shiesta rules", "games/shiesta/"),
         "burraco": ("Burraco rules", "games/burraco/"),
         "records": ("the record format", "reference/records/")}
#: The games a placeholder source (``seeds/<game>.md 1``) stands for.
GAMES = ("pepper", "pitch", "shiesta", "burraco")
_REF = re.compile(r"seeds/(\w+|<game>)\.md(?: ([0-9](?:[0-9., ]*[0-9])?))?")
_COMMAND = re.compile(r"^simkit ([a-z]+)\b")
_HEADING = re.compile(r"^#+ ([0-9]+(?:\.[0-9]+)*)\.? +(.+?)\s*$", re.M)


def slug(text: str) -> str:
    """A heading's anchor as the documentation site writes it (Python-Markdown's
    ``toc`` slugify): "3.1 Auction" -> "31-auction"."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_text).strip().lower())


@functools.cache
def sections(book: str) -> dict[str, tuple[str, str]]:
    """The numbered sections of the rule book ``seeds/BOOK.md``: number -> (its
    title, its anchor on the site); empty when the book is not at hand (a wheel)."""
    path = SEEDS / f"{book}.md"
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    return {m.group(1): (re.sub(r"[`*]", "", m.group(2)), slug(f"{m.group(1)} {m.group(2)}"))
            for m in _HEADING.finditer(text)}


def links(term: Term, game: str | None = None) -> list[dict[str, str]]:
    """Where ``term`` comes from as links into the documentation site, for a reader
    of ``game`` (a placeholder ``seeds/<game>.md`` becomes that game's rule book):
    each rule-book section cited (``{"text": "Pepper rules §3.1 Auction", "href":
    "/docs/games/pepper/#31-auction"}``), the command reference for a command, and
    else the term's entry in the site's glossary.  Never a source file's path."""
    out: list[dict[str, str]] = []
    for m in _REF.finditer(term.source):
        book = game if m.group(1) == "<game>" else m.group(1)
        if book not in BOOKS:
            continue
        name, page = BOOKS[book]
        numbers = [n for n in re.split(r"[,\s]+", m.group(2) or "") if n]
        known = sections(book)
        for n in numbers or [""]:
            if n in known:
                title, anchor = known[n]
                out.append({"text": f"{name} §{n} {title}", "href": f"{DOCS}{page}#{anchor}"})
            else:
                out.append({"text": name, "href": f"{DOCS}{page}"})
    command = _COMMAND.match(term.source)
    if command and not out:
        out.append({"text": f"simkit {command.group(1)} in the command reference",
                    "href": f"{DOCS}reference/cli/#simkit-{command.group(1)}"})
    if not out:
        out.append({"text": "the glossary", "href": f"{DOCS}glossary/#term-{term.key}"})
    return out


def as_json() -> dict[str, Any]:
    """The glossary as the pages and the documentation read it; each term with
    ``links``: per game it belongs to, where it comes from (:func:`links`)."""
    return {"terms": [{**asdict(t), "links": {g: links(t, g) for g in (t.games or GAMES)}}
                      for t in TERMS]}
