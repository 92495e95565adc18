"""Pitch hand records: one hand as plain text that people can read and write,
replayed by the reference engine (seeds/pitch.md 9).

A record is the shared header (the game, the rules, the seed and hand index
of a run, each seat's policy: written and read by ``simkit.record``) and a
body, one fact per ``key: value`` line (hand 3 of seed 7, four players)::

    dealer: 3
    seat 0: 6S AC 7D 6C 5D QS            (each seat's dealt hand, one line each)
    ...
    auction: 0:2 1:pass 2:pass 3:pass    (seat:call, in order)
    stuck: no
    pitcher: 0
    contract: 2
    trump: C
    trick 1: 0:AC 1:8C 2:3C 3:4H -> 0    (seat:card in play order -> winner)
    ...
    score by seat: +2 +0 +1 +0
    made: yes
    money by seat: +$0.125 -$0.075 +$0.025 -$0.075

This module writes and reads the body: :func:`play` plays hand ``index`` of
a run, :func:`body` writes its lines, :func:`replay` reads lines (as written
here or by hand) and replays them with the reference engine, every decision
checked to be legal in turn and every result stated checked against the
replay's; :func:`deal` gives ``simkit advise --from`` the deal alone.
Anything wrong is an :class:`~simkit.errors.InputError` of one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Callable, Sequence

from simkit.errors import InputError
from simkit.pitch.reference import (UNITS_PER_DOLLAR, Bid, HandLog, Play, PolicyDecider,
                                    ScriptDecider, decided_hand, play_hand)
from simkit.pitch.reference import deal as deal_cards
from simkit.pitch.rules import DECK, HAND_SIZE, PASS, TRUMP_TEXT, PitchRules
from simkit.policy import Policy
from simkit.rng import Stream
from simkit.text import key_values

#: A record is one hand.
UNIT = "hand"

#: Result lines written after the auction, then (after the tricks) those of the play.
AUCTION_RESULTS = ("stuck", "pitcher", "contract", "trump")
PLAY_RESULTS = ("tricks by seat", "game points by seat", "high", "low", "jack",
                "game won by", "points by seat", "score by seat", "made", "money by seat")
#: Every line of a body, in the order :func:`body` writes them ("seat N" and
#: "trick N" stand for one line per seat and per trick).
KEYS = ("dealer", "seat N", "auction", *AUCTION_RESULTS, "trick N", *PLAY_RESULTS)
_CENT_HUNDREDTHS = Decimal("0.0001")          # money is written to 1/100 cent


@dataclass(frozen=True)
class Record:
    """A record's body as read: the deal, the recorded decisions, and the
    results it states (``results[key] = (text as written, value read)``)."""

    dealer: int
    hands: tuple[tuple[int, ...], ...]
    calls: tuple[Bid, ...]
    plays: tuple[Play, ...]
    winners: tuple[int | None, ...]             # per recorded trick; None: not stated
    results: dict


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def play(rules: PitchRules, policies: Sequence[Policy], seed: int, index: int) -> HandLog:
    """Hand ``index`` of a run with these rules, policies (one per seat) and seed,
    as ``simkit simulate pitch`` plays it (dealt by seat ``index mod N``, §1),
    by the reference engine."""
    return play_hand(seed, index, rules, policies, index % rules.players)


def dollars_text(units: int) -> str:
    """Money in units of 1/840 cent as signed dollars to 1/100 cent: ``+$0.15``, ``-$1``."""
    amount = (Decimal(abs(units)) / UNITS_PER_DOLLAR).quantize(_CENT_HUNDREDTHS, ROUND_HALF_UP)
    return ("-" if units < 0 else "+") + "$" + f"{amount:f}".rstrip("0").rstrip(".")


def _seat_text(seat: int) -> str:
    return "-" if seat < 0 else str(seat)


def _yes_no_text(flag: bool) -> str:
    return "yes" if flag else "no"


def outcome(log: HandLog) -> dict[str, str]:
    """The text of every result line of a hand's record, by key (a thrown-in
    hand: pitcher, trump, High, Low, Jack and Game ``-``, contract ``none``)."""
    r = log.rules
    return {
        "stuck": _yes_no_text(log.stuck),
        "pitcher": _seat_text(log.pitcher),
        "contract": "none" if log.thrown_in else r.bid_text(log.contract),
        "trump": TRUMP_TEXT[log.trump],
        "tricks by seat": " ".join(str(t) for t in log.tricks),
        "game points by seat": " ".join(str(g) for g in log.game_points),
        "high": _seat_text(log.high),
        "low": _seat_text(log.low),
        "jack": _seat_text(log.jack),
        "game won by": " ".join(str(s) for s in range(r.players)
                                if log.game_winners >> s & 1) or "-",
        "points by seat": " ".join(str(p) for p in log.points),
        "score by seat": " ".join(f"{s:+d}" for s in log.score),
        "made": _yes_no_text(log.made),
        "money by seat": " ".join(dollars_text(u) for u in log.money_units),
    }


def body(log: HandLog) -> list[str]:
    """The record's lines after the shared header: the dealer, each seat's dealt
    hand, the auction, its outcome (stuck, pitcher, contract, trump), every
    trick (plays as seat:card, then its winner), and the results (tricks,
    game points, High, Low, Jack, Game, points, score change, made, money)."""
    r = log.rules
    said = outcome(log)
    lines = [f"dealer: {log.dealer}"]
    lines += [f"seat {s}: {DECK.format_hand(log.hands[s])}" for s in range(r.players)]
    lines.append("auction: " + (" ".join(f"{b.seat}:{r.bid_text(b.level)}"
                                         for b in log.auction) or "-"))
    lines += [f"{key}: {said[key]}" for key in AUCTION_RESULTS]
    for k, (trick, winner) in enumerate(zip(log.tricks_played(), log.winners), start=1):
        plays = " ".join(f"{p.seat}:{DECK.text(p.card)}" for p in trick)
        lines.append(f"trick {k}: {plays} -> {winner}")
    lines += [f"{key}: {said[key]}" for key in PLAY_RESULTS]
    return lines


# ---------------------------------------------------------------------------
# Reading values (each raises InputError saying what is accepted)
# ---------------------------------------------------------------------------

def _int(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise InputError(f"bad {what} {text.strip()!r}: expected a whole number") from None


def _seat(text: str, rules: PitchRules, what: str = "seat") -> int:
    seat = _int(text, what)
    if not 0 <= seat < rules.players:
        raise InputError(f"bad {what} {seat}: seats are 0 to {rules.players - 1}")
    return seat


def _seat_or_none(text: str, rules: PitchRules) -> int:
    """A seat, or ``-`` (also ``none``) for nobody: -1."""
    return -1 if text.strip().lower() in ("-", "none") else _seat(text, rules)


def _flag(text: str, rules: PitchRules) -> bool:
    t = text.strip().lower()
    if t not in ("yes", "no"):
        raise InputError(f"bad value {text.strip()!r}: expected yes or no")
    return t == "yes"


def _contract(text: str, rules: PitchRules) -> int:
    """A bid level; ``none`` (or ``-``) for a thrown-in hand: 0."""
    t = text.strip().lower()
    return PASS if t in ("none", "-") else rules.parse_bid(t)


def _trump(text: str, rules: PitchRules) -> int:
    t = text.strip().upper()
    if t not in TRUMP_TEXT:
        raise InputError(f"bad trump {text.strip()!r}: expected C, D, H, S or - (thrown in)")
    return TRUMP_TEXT.index(t)


def _per_seat(text: str, rules: PitchRules, read: Callable[[str], object], what: str) -> tuple:
    """One value per seat, separated by spaces."""
    items = text.split()
    if len(items) != rules.players:
        raise InputError(f"bad value {text.strip()!r}: expected {rules.players} {what}, "
                         f"one per seat")
    return tuple(read(item) for item in items)


def _numbers(text: str, rules: PitchRules) -> tuple:
    return _per_seat(text, rules, lambda t: _int(t, "number"), "whole numbers")


def _amount(item: str) -> Decimal:
    m = re.fullmatch(r"([+-]?)\$?(\d+(?:\.\d*)?|\.\d+)", item)
    if not m:
        raise InputError(f"bad amount {item!r}: expected dollars, e.g. +$0.15 or -$1.0333")
    return -Decimal(m.group(2)) if m.group(1) == "-" else Decimal(m.group(2))


def _amounts(text: str, rules: PitchRules) -> tuple:
    return _per_seat(text, rules, _amount, "amounts of money")


def _seats(text: str, rules: PitchRules) -> int:
    """Seats separated by spaces, or ``-`` for nobody, as a bitmask."""
    if text.strip().lower() in ("-", "none"):
        return 0
    mask = 0
    for item in text.split():
        mask |= 1 << _seat(item, rules)
    return mask


#: How each result line is read: two texts of a line mean the same when they read the same.
READERS: dict[str, Callable[[str, PitchRules], object]] = {
    "stuck": _flag, "pitcher": _seat_or_none, "contract": _contract, "trump": _trump,
    "tricks by seat": _numbers, "game points by seat": _numbers, "high": _seat_or_none,
    "low": _seat_or_none, "jack": _seat_or_none, "game won by": _seats,
    "points by seat": _numbers,
    "score by seat": _numbers, "made": _flag, "money by seat": _amounts,
}


# ---------------------------------------------------------------------------
# Reading a body
# ---------------------------------------------------------------------------

def _lines(lines: Sequence[str], rules: PitchRules) -> tuple[dict[str, str], list[str]]:
    """The ``key: value`` lines by key (keys lower case, spaces collapsed), and
    the trick lines' values in order; blank lines and ``#`` comments skipped."""
    fields: dict[str, str] = {}
    tricks: list[str] = []
    for key, value, line in key_values(lines):
        word, _, number = key.partition(" ")
        if word in ("seat", "trick") and number.isdigit():
            if word == "seat" and int(number) >= rules.players:
                raise InputError(f"bad record line {line!r}: the rules have {rules.players} "
                                 f"players, seats 0 to {rules.players - 1}")
            if word == "trick":
                if int(number) != len(tricks) + 1:
                    raise InputError(f"bad record line {line!r}: trick {len(tricks) + 1} "
                                     f"belongs here")
                tricks.append(value)
                continue
        elif key not in READERS and key not in ("dealer", "auction"):
            raise InputError(f"unknown record line {key!r}: a Pitch record's lines are "
                             + ", ".join(KEYS) + " (seeds/pitch.md 9)")
        if key in fields:
            raise InputError(f"the record has two {key!r} lines")
        fields[key] = value
    return fields, tricks


def _reading(key: str, read: Callable, *args):
    """``read(*args)``, an error naming the record line it comes from."""
    try:
        return read(*args)
    except InputError as err:
        raise InputError(f"{key}: {err}") from None


def _call(item: str, rules: PitchRules) -> Bid:
    seat, sep, call = item.partition(":")
    if not sep:
        raise InputError(f"bad call {item!r}: expected seat:call, e.g. 1:pass, 2:3 or 3:moon")
    return Bid(_seat(seat, rules), rules.parse_bid(call))


def _auction(text: str, rules: PitchRules) -> list[Bid]:
    """The calls of an auction line (``-`` or nothing: none yet)."""
    items = text.split() if text != "-" else []
    return [_reading(f"auction call {k}", _call, item, rules)
            for k, item in enumerate(items, start=1)]


def _trick(text: str, rules: PitchRules, last: bool) -> tuple[list[Play], int | None]:
    """One trick line: its plays, and the winner it names (or None)."""
    n = rules.players
    cards, arrow, winner = text.partition("->")
    plays = []
    for item in cards.split():
        seat, sep, card = item.partition(":")
        if not sep:
            raise InputError(f"bad play {item!r}: expected seat:card, e.g. 2:JH or 0:10S")
        plays.append(Play(_seat(seat, rules), DECK.parse(card)))
    if len(plays) > n or (len(plays) < n and not last):
        raise InputError(f"{len(plays)} plays, but a trick is one card from each of the {n} "
                         f"seats (seeds/pitch.md 3)")
    if not arrow:
        return plays, None
    if len(plays) < n:
        raise InputError(f"it names a winner but has only {len(plays)} of its {n} plays")
    return plays, _seat(winner, rules, "winner")


def _check_deal(hands: Sequence[Sequence[int]]) -> None:
    """Six cards to each seat, no card twice (§1)."""
    holder: dict[int, int] = {}
    for seat, hand in enumerate(hands):
        if len(hand) != HAND_SIZE:
            raise InputError(f"seat {seat} holds {len(hand)} cards: each seat is dealt "
                             f"{HAND_SIZE} (seeds/pitch.md 1)")
        for c in hand:
            if c in holder:
                raise InputError(f"{DECK.text(c)} is dealt twice, to seat {holder[c]} and "
                                 f"seat {seat} (seeds/pitch.md 1)")
            holder[c] = seat


def read(lines: Sequence[str], rules: PitchRules) -> Record:
    """Read a record's body lines: their form, the deal (§1) and the values
    stated.  Nothing is replayed (see :func:`replay`)."""
    fields, trick_lines = _lines(lines, rules)
    for key in ("dealer", *(f"seat {s}" for s in range(rules.players))):
        if key not in fields:
            raise InputError(f"the record has no {key!r} line: a record gives the dealer and "
                             f"every seat's hand")
    dealer = _reading("dealer", _seat, fields["dealer"], rules)
    hands = [_reading(f"seat {s}", DECK.parse_hand, fields[f"seat {s}"])
             for s in range(rules.players)]
    _check_deal(hands)
    calls = _auction(fields.get("auction", ""), rules)
    plays: list[Play] = []
    winners: list[int | None] = []
    for k, text in enumerate(trick_lines, start=1):
        trick, winner = _reading(f"trick {k}", _trick, text, rules, k == len(trick_lines))
        plays += trick
        winners.append(winner)
    results = {key: (fields[key], _reading(key, READERS[key], fields[key], rules))
               for key in READERS if key in fields}
    return Record(dealer, tuple(tuple(h) for h in hands), tuple(calls), tuple(plays),
                  tuple(winners), results)


# ---------------------------------------------------------------------------
# Replaying
# ---------------------------------------------------------------------------

def replay(lines: Sequence[str], rules: PitchRules, policies: Sequence[Policy] | None,
           seed: int, index: int) -> HandLog:
    """Replay a record's body lines with the reference engine and return the
    completed HandLog.

    Blank lines and ``#`` comments are skipped; keys are case-insensitive.
    The deal is checked (§1); every recorded call and card is applied in turn
    and must be legal (§2, §3); the results the record states (all optional)
    must equal the replay's.  Where the record stops early, ``policies`` (one
    per seat) decide the rest, drawing from the stream ``(seed, index)``
    after the deal's draws, as the run did; without them that is an error.
    Any problem is an InputError of one line naming the step.
    """
    rec = read(lines, rules)
    fallback = None
    if policies is not None:
        stream = Stream(seed, index)
        deal_cards(stream, rules.players, rec.dealer)  # the run's deal draws first; unused
        fallback = PolicyDecider(rules, policies, stream)
    script = ScriptDecider(rules, rec.hands, rec.calls, rec.plays, rec.winners, fallback)
    log = decided_hand(rec.hands, rec.dealer, rules, script)
    script.finish(log)
    said = outcome(log)
    for key, (text, value) in rec.results.items():
        if READERS[key](said[key], rules) != value:
            raise InputError(f"the record says {key} {text}, but the replay gives {said[key]}")
    return log


def deal(lines: Sequence[str], rules: PitchRules) -> tuple[int, list[str]]:
    """The dealer and each seat's dealt cards (as text) as the lines give them,
    for ``simkit advise --from``: the lines are read and the deal checked (§1),
    nothing is replayed."""
    rec = read(lines, rules)
    return rec.dealer, [DECK.format_hand(h) for h in rec.hands]
