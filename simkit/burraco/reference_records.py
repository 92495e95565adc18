"""Burraco, the reference engine's records: a turn's events and decision codes,
a hand's log and a game's (``seeds/burraco.md`` section 8), as the referee
(:mod:`simkit.burraco.reference`) writes them.  The codes are listed in that
module's docstring.  Nothing here uses numba.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from simkit.burraco.melds import SEQUENCE, SET, Meld
from simkit.burraco.rules import PLAYERS, BurracoRules

TEAMS = 2


class Event(enum.StrEnum):
    """The kind of a turn's event, its first item (:class:`Turn`)."""

    DRAW = "draw"
    KEEP = "keep"
    MELD = "meld"
    ADD = "add"
    POZZETTO = "pozzetto"
    DISCARD = "discard"
    OUT = "out"


#: One event of a turn: its :class:`Event`, then that event's values (:class:`Turn`).
TurnEvent = tuple[Any, ...]

# Decision codes (see the module docstring).
SEAT_CODE = 1_000_000
CODE_DRAW = 1_000
CODE_POZZETTO = 2_000
CODE_KEEP = 3_000
CODE_NEW_MELD = 4_000
CODE_MELD_CARD = 5_000
CODE_DISCARD = 6_000
CODE_GO_OUT = 7_000
CODE_ADD = 100_000
KIND_CODE = {SET: 0, SEQUENCE: 1}


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------

@dataclass
class Turn:
    """One turn: the seat and its events in order.

    Events are tuples: ``("draw", source, cards)`` (cards taken: one from the
    stock, or the whole pile bottom first); ``("keep", keep)``; ``("meld",
    kind, cards, m)`` a new meld (cards in increasing id) that is the team's
    meld ``m``; ``("add", m, card)``; ``("pozzetto", way, number)``;
    ``("discard", card)``; ``("out", card)``.
    """

    seat: int
    events: list[Any]

    def codes(self) -> list[int]:
        """The turn's decision codes (module docstring)."""
        base = self.seat * SEAT_CODE
        out = []
        for e in self.events:
            kind = e[0]
            if kind == Event.DRAW:
                out.append(base + CODE_DRAW + e[1])
            elif kind == Event.KEEP:
                out.append(base + CODE_KEEP + e[1])
            elif kind == Event.MELD:
                cards = e[2]
                out.append(base + CODE_NEW_MELD + 100 * KIND_CODE[e[1]] + len(cards))
                out.extend(base + CODE_MELD_CARD + c for c in cards)
            elif kind == Event.ADD:
                out.append(base + CODE_ADD + 1_000 * e[1] + e[2])
            elif kind == Event.POZZETTO:
                out.append(base + CODE_POZZETTO + 10 * e[1] + e[2])
            elif kind == Event.DISCARD:
                out.append(base + CODE_DISCARD + e[1])
            elif kind == Event.OUT:
                out.append(base + CODE_GO_OUT + e[1])
            else:                                                   # pragma: no cover
                raise AssertionError(f"unknown event {e!r}")
        return out


PARTS = ("melded", "hand_penalty", "burraco_bonus", "closing_bonus", "pozzetto_penalty")


@dataclass
class HandLog:
    """Everything that happened in one hand (the §8 hand record, and more).

    ``start_hands``, ``start_pozzetti``, ``start_pile`` (bottom first) and
    ``start_stock`` (drawing order) are the position the hand started from
    (the deal, §1); ``turns`` every turn in order, the first numbered
    ``first_turn`` (1 unless the position was written in mid-hand);
    ``start_taken`` the pozzetti taken before it.  At the end: ``hands``
    (each seat's cards, increasing), ``melds`` (per team, in the order laid),
    ``pozzetti`` (the untaken ones' cards), ``taken`` (per team the number of
    the pozzetto it took, -1 none) and ``pozzetto_turn``; ``parts`` the score
    parts per team (:func:`score_team`).
    """

    rules: BurracoRules
    policies: tuple[Any, ...]
    dealer: int
    start_hands: list[list[int]]
    start_pozzetti: list[list[int]]
    start_pile: list[int]
    start_stock: list[int]
    start_melds: list[list[tuple[int, ...]]]
    start_taken: list[int]
    first_turn: int
    turns: list[Turn]
    ended: str
    closer: int
    hands: list[list[int]]
    melds: list[list[Meld]]
    pozzetti: list[list[int]]
    taken: list[int]
    pozzetto_turn: list[int]
    parts: list[dict[str, Any]]

    @property
    def starter(self) -> int:
        """The player left of the dealer, who starts (§1)."""
        return (self.dealer + 1) % PLAYERS

    @property
    def score(self) -> list[int]:
        return [p["score"] for p in self.parts]

    def decision_codes(self) -> list[int]:
        """Every turn's codes in order (module docstring)."""
        return [c for t in self.turns for c in t.codes()]

    def record(self) -> dict[str, Any]:
        """The §8 hand record as plain Python values (the hand number is the caller's).

        Per team ``t``: ``score_t`` = ``melded_t + hand_penalty_t +
        burraco_bonus_t + closing_bonus_t + pozzetto_penalty_t`` (asserted);
        ``sets_t + sequences_t`` = ``melds_t`` (asserted).
        """
        rec: dict[str, Any] = {"dealer": int(self.dealer),
                               "turns": self.first_turn - 1 + len(self.turns),
                               "ended": self.ended, "closer": int(self.closer)}
        for t in range(TEAMS):
            p = self.parts[t]
            assert p["score"] == sum(p[k] for k in PARTS), p
            assert p["burraco_bonus"] == 200 * p["clean_burraco"] + 100 * p["dirty_burraco"], p
            rec[f"score_{t}"] = int(p["score"])
            rec[f"melded_{t}"] = int(p["melded"])
            rec[f"hand_penalty_{t}"] = int(p["hand_penalty"])
            rec[f"clean_burraco_{t}"] = int(p["clean_burraco"])
            rec[f"dirty_burraco_{t}"] = int(p["dirty_burraco"])
            rec[f"burraco_bonus_{t}"] = int(p["burraco_bonus"])
            rec[f"closing_bonus_{t}"] = int(p["closing_bonus"])
            rec[f"pozzetto_penalty_{t}"] = int(p["pozzetto_penalty"])
            rec[f"pozzetto_turn_{t}"] = int(self.pozzetto_turn[t])
            rec[f"melds_{t}"] = len(self.melds[t])
            assert p["sets"] + p["sequences"] == len(self.melds[t]), p
            rec[f"sets_{t}"] = int(p["sets"])
            rec[f"sequences_{t}"] = int(p["sequences"])
            rec[f"wilds_{t}"] = int(p["wilds"])
        return rec


@dataclass
class GameLog:
    """A whole game (§6, §8): the first dealer, every hand in order, the result.

    ``winner`` is the winning team, or -1 when the win is shared (``shared``)
    or the game hit ``max_hands`` (``unfinished``).  Who led (§8,
    :mod:`simkit.base.drama`, a hand being a step): ``tops`` is the bitmask of the
    teams on the higher game score after each hand (both when level), and
    ``lead_changes``, ``comeback`` and ``settled`` are read from it.
    """

    rules: BurracoRules
    first_dealer: int
    hands: list[HandLog]
    score: list[int]
    winner: int
    shared: bool
    unfinished: bool
    tops: list[int]
    lead_changes: int
    comeback: bool
    settled: int

    def record(self) -> dict[str, Any]:
        return {"first_dealer": int(self.first_dealer), "hands": len(self.hands),
                "score_0": int(self.score[0]), "score_1": int(self.score[1]),
                "winner": int(self.winner), "shared": bool(self.shared),
                "unfinished": bool(self.unfinished), "lead_changes": int(self.lead_changes),
                "comeback": bool(self.comeback), "settled": int(self.settled)}

    def decision_codes(self) -> list[int]:
        """Every hand's codes in order."""
        return [c for h in self.hands for c in h.decision_codes()]
