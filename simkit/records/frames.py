"""The pieces of the hand viewer's frames that every game shares (seeds/records.md,
"The hand viewer's frames"): a frame, its areas and rows, card lists, score
labels, and the walk of a trick-taking hand (Pepper, Pitch).

Each game's ``record.frames(log)`` walks a finished log move by move and builds
one frame per move with these; :mod:`simkit.bygame.view` puts the frames of a record
together with its text.  A base module: the game record modules import it, so
it imports nothing of simkit (the registry above would close an import loop).

Every value is plain JSON: strings, numbers, booleans, lists and dicts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any


def row(label: str, cards: Iterable[str] = (), text: str = "",
        mark: bool = False) -> dict[str, Any]:
    """One row of an area: a label, cards (their text), a short text, and ``mark``
    for the row to pick out (a trick's winner, the move just made)."""
    return {"label": label, "cards": list(cards), "text": text, "mark": bool(mark)}


def area(title: str, rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Something on the table: a title and its rows."""
    return {"title": title, "rows": list(rows)}


def frame(caption: str, actor: int | None, hands: Sequence[Sequence[str]],
          areas: Iterable[dict[str, Any] | None],
          score: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The state after one move: what it was (``caption``, one sentence), who made
    it (``actor``, a seat or None), every seat's cards, the areas on the table
    (None: left out) and the running score, ``(label, value)`` lines."""
    return {"caption": caption,
            "actor": None if actor is None or actor < 0 else int(actor),
            "hands": [list(h) for h in hands],
            "areas": [a for a in areas if a is not None],
            "score": [[label, value] for label, value in score]}


def texts(cards: Iterable[int], text: Callable[[int], str],
          key: Callable[[int], Any] | None = None) -> list[str]:
    """The cards' texts in the order ``key`` sorts the cards (None: as given)."""
    return [text(c) for c in (sorted(cards, key=key) if key else cards)]


def plural(n: int, word: str) -> str:
    """``1 trick``, ``3 tricks``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def group_label(word: str, number: int, seats: Sequence[int]) -> str:
    """A side or team with its seats: ``side 0 (seats 0, 2)``."""
    return f"{word} {number} (seat{'s' if len(seats) > 1 else ''} " \
        f"{', '.join(map(str, seats))})"


class TrickHand:
    """A trick-taking hand (Pepper, Pitch) walked move by move: the cards each seat
    holds, the calls so far, the trick on the table and the tricks each seat won.

    ``hands`` are the dealt card ids by seat; ``text`` writes a card, ``key``
    sorts a hand.  ``moved`` is the kind of the last move (``"call"``,
    ``"play"``, or None for another), which decides the rows marked.
    """

    def __init__(self, hands: Sequence[Sequence[int]], text: Callable[[int], str],
                 key: Callable[[int], Any]):
        self.held = [list(h) for h in hands]
        self.text, self.key = text, key
        self.calls: list[tuple[int, str]] = []
        self.trick: list[tuple[int, int]] = []
        self.number = 0                     # the trick on the table, from 1 (0: none yet)
        self.winner: int | None = None      # its winner, once complete
        self.won = [0] * len(hands)
        self.moved: str | None = None

    def hands(self) -> list[list[str]]:
        """Each seat's cards as they are now, sorted."""
        return [texts(h, self.text, self.key) for h in self.held]

    def call(self, seat: int, said: str) -> None:
        """A call of the auction, as the record writes it (``3``, ``pass``)."""
        self.calls.append((seat, said))
        self.moved = "call"

    def play(self, seat: int, card: int) -> None:
        """A card from the seat's hand to the trick (a new trick after a complete one)."""
        if not self.trick or self.winner is not None:
            self.trick, self.winner = [], None
            self.number += 1
        self.held[seat].remove(card)
        self.trick.append((seat, card))
        self.moved = "play"

    def win(self, seat: int) -> None:
        """The trick on the table is complete and ``seat`` won it."""
        self.winner = seat
        self.won[seat] += 1

    def auction(self) -> dict[str, Any]:
        """The calls in order, the one just made marked."""
        last = len(self.calls) - 1 if self.moved == "call" else -1
        return area("Auction", [row(f"seat {s}", text=said, mark=k == last)
                                for k, (s, said) in enumerate(self.calls)])

    def table(self) -> dict[str, Any] | None:
        """The trick on the table (None before the first card): who led, each card
        in play order, the card just played marked, or the winner once complete."""
        if not self.trick:
            return None
        rows = []
        for k, (seat, card) in enumerate(self.trick):
            done = self.winner is not None
            mark = seat == self.winner if done else k == len(self.trick) - 1
            rows.append(row(f"seat {seat}" + (" (led)" if k == 0 else ""), [self.text(card)],
                            "wins" if done and seat == self.winner else "", mark))
        return area(f"Trick {self.number}", rows)

    def tricks_won(self) -> dict[str, Any]:
        """How many tricks each seat has won, the winner of the last trick marked."""
        done = self.moved == "play" and self.winner is not None
        return area("Tricks won", [row(f"seat {s}", text=plural(n, "trick"),
                                       mark=done and s == self.winner)
                                   for s, n in enumerate(self.won)])
