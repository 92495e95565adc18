"""Burraco hand records (seeds/burraco.md 10): the game's lines of a ``simkit
show`` / ``simkit replay`` record (the shared header: :mod:`simkit.bygame.record`).

The notation (cards, the actions as read) is :mod:`simkit.burraco.notation`.
A record is one hand from its deal, one fact per ``key: value`` line: the
dealer; each seat's 11 cards, the two pozzetti, the first face-up card and the
stock in drawing order; then every turn, a ``turn N: seat S`` line followed by
one line per action (the draw, the player's ``keep``, each new meld and each
card added, a pozzetto taken, the discard or going out); then the results.
Melds are named by team and number: ``0.2`` is team 0's second meld.

Cards are written as everywhere in simkit (``AS``, ``10H``, ``JK``), with a
prime for a later copy: ``AS'`` is the second deck's ace of spades (id
``f + 52``), ``JK'``, ``JK''``, ``JK'''`` the jokers 105..107.  A card written
without primes is any copy: in the deal the lowest copy that no other line
names, in a move the lowest copy the seat holds (or the card that is there:
the stock's top card, the pile's).  The primes matter only to replay a run's
hand exactly: the policies break ties by card id (§9).

:func:`replay` plays the hand again with the reference engine
(:class:`reference.Hand`): a :class:`~simkit.burraco.replay.Replay` takes the
recorded turns in order (:class:`simkit.records.script.Script`) and applies each recorded action,
checked against the rule book first, and the policies (when given) play
whatever the record leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.burraco import reference as R
from simkit.burraco import replay as walk
from simkit.burraco.melds import DECK_SIZE, SEQUENCE, SET, read_meld
from simkit.burraco.notation import (
    DISCARD,
    DRAW,
    GO_OUT,
    KEEP,
    POZZETTO,
    RESULT_PARTS,
    SOURCE_WORDS,
    WAYS,
    Action,
    Card,
    RecordedTurn,
    Written,
    hand_text,
    pick,
    read_cards,
    text,
    texts,
)
from simkit.burraco.reference import CAP, CLOSED, STOCK_OUT, WAY_TEXT
from simkit.burraco.reference_players import STOCK, meld_rules_of, team_of
from simkit.burraco.reference_records import TEAMS, Event, HandLog, TurnEvent
from simkit.burraco.rules import HAND, PLAYERS, POZZETTI, BurracoRules
from simkit.policy import Policy
from simkit.records.text import key_values, seat_number, seat_or_nobody, whole

UNIT = "hand"
BOOK = "seeds/burraco.md"
#: Cards in the stock after the deal (§1).
STOCK_CARDS = DECK_SIZE - PLAYERS * HAND - POZZETTI * HAND - 1


_TURN_KEY = re.compile(r"turn (\d+)")
_MELD_KEY = re.compile(r"(meld|add) (\d+)\.(\d+)")
_TEAM_KEY = re.compile(r"team ([01]) (score|burracos|pozzetto|table)")
_DEAL_KEYS = ("dealer", *(f"seat {s}" for s in range(PLAYERS)),
              *(f"pozzetto {n + 1}" for n in range(POZZETTI)), "discard pile", "stock")
_RESULT_KEYS = ("ended", "closer", "turns")
_KEYS_TEXT = ("the deal: dealer, seat N, pozzetto N, discard pile, stock; turns: turn N, "
              "draw, keep, meld T.N, add T.N, pozzetto, discard, go out; results: ended, "
              "closer, turns, team T score, team T burracos, team T pozzetto, team T table")



# ---------------------------------------------------------------------------
# Reading a record
# ---------------------------------------------------------------------------


def _action(key: str, value: str, line: str, turn: int) -> Action:
    """An action line of turn ``turn`` (its key matched an action)."""
    try:
        return _read_action(key, value, line)
    except InputError as e:
        raise InputError(f"turn {turn}: {e}") from None


def _read_action(key: str, value: str, line: str) -> Action:
    where = repr(line)
    words = value.split()
    m = _MELD_KEY.fullmatch(key)
    if m:
        meld = (whole(m[2], "team", 0, TEAMS - 1), whole(m[3], "meld number", 1, DECK_SIZE))
        kind = words[0].lower() if words and words[0].lower() in (SET, SEQUENCE) else None
        cards = read_cards(" ".join(words[1:] if kind else words), where)
        if not cards:
            raise InputError(f"{where} has no cards: expected e.g. '{m[1]} 0.1: 7C 7D 7H'")
        return Action(m[1], line, cards, meld=meld, kind=kind)
    if key == DRAW:
        if not words or words[0].lower() not in SOURCE_WORDS:
            raise InputError(f"bad draw {where}: expected 'draw: stock' (and the card drawn) "
                             f"or 'draw: pile' (and its cards, bottom first) ({BOOK} 10)")
        return Action(key, line, read_cards(" ".join(words[1:]), where),
                      source=SOURCE_WORDS[words[0].lower()])
    if key == KEEP:
        return Action(key, line, number=whole(value, "keep", 0, 2))
    if key == POZZETTO:
        way = " ".join(words[1:]).lower()
        if len(words) < 2 or way not in WAYS:
            raise InputError(f"bad pozzetto {where}: expected 'pozzetto: 1 directly' or "
                             f"'pozzetto: 2 on the discard' ({BOOK} 10)")
        return Action(key, line, number=whole(words[0], "pozzetto", 1, POZZETTI),
                      way=WAYS[way])
    cards = read_cards(value, where)                            # a discard, going out
    if len(cards) != 1:
        raise InputError(f"bad {key} {where}: expected one card, e.g. '{key}: 9C'")
    return Action(key, line, cards)


def _deal(fields: dict[str, str]) -> tuple[list[list[int]], int]:
    """The deal's cards by line (seats, pozzetti, pile, stock: ids) and the dealer."""
    for key in _DEAL_KEYS:
        if key not in fields:
            raise InputError(f"the record has no {key!r} line: a record starts with the "
                             f"deal ({BOOK} 10)")
    dealer = seat_number(fields["dealer"], PLAYERS, "dealer")
    sizes = [HAND] * (PLAYERS + POZZETTI) + [1, STOCK_CARDS]
    groups = []
    for key, size in zip(_DEAL_KEYS[1:], sizes):
        cards = read_cards(fields[key], f"the deal's {key!r} line")
        if len(cards) != size:
            raise InputError(f"the deal's {key!r} line has {len(cards)} cards: it gets {size} "
                             f"({BOOK} 1)")
        groups.append(cards)
    ids = pick([c for g in groups for c in g], range(DECK_SIZE))
    if isinstance(ids, Card):
        bad = ids
        often = "twice" if bad.copy is not None else "more often than the deck holds it"
        raise InputError(f"the deal has {bad.written} {often}: the deck holds two copies of "
                         f"each card (AS and AS'), four jokers (JK to JK''') ({BOOK} 1)")
    out, at = [], 0
    for g in groups:
        out.append(ids[at:at + len(g)])
        at += len(g)
    return out, dealer


def read(lines: Sequence[str]) -> Written:
    """A record's lines (after the shared header) read and checked for form, and
    its deal for the cards (§1); nothing is replayed."""
    fields: dict[str, str] = {}
    turns: list[tuple[int, int, list[Action]]] = []
    for key, value, line in key_values(lines):
        m = _TURN_KEY.fullmatch(key)
        if m:
            number = int(m[1])
            if number != len(turns) + 1:
                raise InputError(f"turn lines out of order: turn {number} where turn "
                                 f"{len(turns) + 1} belongs")
            turns.append((number, seat_number(value, PLAYERS, f"seat of turn {number}"), []))
        elif key in (DRAW, KEEP, POZZETTO, DISCARD, GO_OUT) or _MELD_KEY.fullmatch(key):
            if not turns:
                raise InputError(f"the line {line!r} comes before any turn: a turn starts "
                                 f"with 'turn 1: seat S' ({BOOK} 10)")
            turns[-1][2].append(_action(key, value, line, turns[-1][0]))
        elif key in _DEAL_KEYS or key in _RESULT_KEYS or _TEAM_KEY.fullmatch(key):
            if key in fields:
                raise InputError(f"the record has two {key!r} lines")
            fields[key] = value
        else:
            raise InputError(f"unknown record line {key!r} in {line!r}: expected {_KEYS_TEXT} "
                             f"({BOOK} 10)")
    groups, dealer = _deal(fields)
    results = tuple((key, fields[key], _read_result(key, fields[key]))
                    for key in fields if key not in _DEAL_KEYS)
    return Written(dealer=dealer, hands=tuple(map(tuple, groups[:PLAYERS])),
                   pozzetti=tuple(map(tuple, groups[PLAYERS:PLAYERS + POZZETTI])),
                   pile=tuple(groups[-2]), stock=tuple(groups[-1]),
                   turns=tuple(RecordedTurn(n, s, tuple(a)) for n, s, a in turns),
                   results=results)


# ---------------------------------------------------------------------------
# Results (every line optional)
# ---------------------------------------------------------------------------


def outcome(log: HandLog) -> dict[str, Any]:
    """The hand's results by §8 column, with ``pozzetto_t``: the number (1, 2)
    of the pozzetto team ``t`` took, 0 none."""
    out = log.record()
    out.update({f"pozzetto_{t}": log.taken[t] + 1 for t in range(TEAMS)})
    return out


def result_lines(log: HandLog) -> list[tuple[str, str]]:
    """Every result line's key and value (a hand from any position)."""
    res = outcome(log)
    closer = res["closer"]
    lines = [("ended", res["ended"]), ("closer", f"seat {closer}" if closer >= 0 else "none"),
             ("turns", str(res["turns"]))]
    for t in range(TEAMS):
        for what, (sep, names) in RESULT_PARTS.items():
            parts = sep.join(f"{name} {res[f'{col}_{t}']}" for name, col in names.items())
            lines.append((f"team {t} {what}",
                          f"{res[f'score_{t}']} = {parts}" if what == "score" else parts))
            if what == "score":
                n, turn = res[f"pozzetto_{t}"], res[f"pozzetto_turn_{t}"]
                lines.append((f"team {t} pozzetto", f"{n} on turn {turn}" if n else "none"))
    return lines


def _parts(key: str, value: str, t: int, sep: str, names: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in filter(None, (i.strip() for i in value.split(sep.strip()))):
        name, _, number = item.rpartition(" ")
        name = " ".join(name.lower().split())
        if name not in names or names[name] + f"_{t}" in out:
            raise InputError(f"bad {key!r} line part {item!r}: expected each of "
                             f"{', '.join(names)} at most once, with its number")
        out[f"{names[name]}_{t}"] = whole(number, f"{name} in {key!r}", -10**6, 10**6)
    return out


def _read_result(key: str, value: str) -> dict[str, Any]:
    """A result line's values by §8 column."""
    v = value.strip().lower()
    if key == "ended":
        if v not in (CLOSED, STOCK_OUT, CAP):
            raise InputError(f"bad ended {value!r}: expected closed, stock or cap")
        return {"ended": v}
    if key == "closer":
        return {"closer": seat_or_nobody(v, PLAYERS, "closer")}
    if key == "turns":
        return {"turns": whole(v, "turns", 1, 10**6)}
    t, what = int(key[5]), key[7:]
    if what == "pozzetto":
        if v == "none":
            return {f"pozzetto_{t}": 0, f"pozzetto_turn_{t}": -1}
        n, _, turn = v.partition(" on turn ")
        out = {f"pozzetto_{t}": whole(n, f"pozzetto in {key!r}", 1, POZZETTI)}
        if turn:
            out[f"pozzetto_turn_{t}"] = whole(turn, f"turn in {key!r}", 1, 10**6)
        return out
    sep, names = RESULT_PARTS[what]
    if what != "score":
        return _parts(key, v, t, sep, names)
    score, eq, rest = v.partition("=")
    return {f"score_{t}": whole(score.strip(), key, -10**6, 10**6),
            **(_parts(key, rest, t, sep, names) if eq else {})}


def results(lines: Sequence[str]) -> dict[str, Any]:
    """The results a record's lines state, by §8 column (``pozzetto_t`` besides)."""
    out: dict[str, Any] = {}
    for _, _, values in read(lines).results:
        out.update(values)
    return out


def check_results(stated: Sequence[tuple[str, str, dict[str, Any]]], log: HandLog) -> None:
    """Every result the record states must be the replay's."""
    actual = outcome(log)
    said = dict(result_lines(log))
    for key, value, values in stated:
        if any(actual[col] != v for col, v in values.items()):
            raise InputError(f"the record says {key}: {value}, but the replay gives "
                             f"{key}: {said[key]}")


# ---------------------------------------------------------------------------
# The interface of simkit.bygame.record
# ---------------------------------------------------------------------------

def play(rules: BurracoRules, policies: Sequence[Policy], seed: int, index: int) -> HandLog:
    """Hand ``index`` of a run with these rules, policies and seed, exactly as
    ``simkit simulate burraco`` plays it (§7: dealt by seat ``index mod 4``)."""
    return R.play_hand(rules, policies, seed, index, index % PLAYERS)


def _event_line(event: TurnEvent, team: int, rules: BurracoRules) -> str:
    kind = event[0]
    if kind == Event.DRAW:
        return f"draw: {'stock' if event[1] == STOCK else 'pile'} {texts(event[2])}"
    if kind == Event.MELD:
        meld = read_meld(event[2], meld_rules_of(rules), event[1])
        assert meld is not None, event                 # a logged meld reads as one
        return f"meld {team}.{event[3] + 1}: {meld.kind} {texts(meld.cards)}"
    if kind == Event.ADD:
        return f"add {team}.{event[1] + 1}: {text(event[2])}"
    if kind == Event.POZZETTO:
        return f"pozzetto: {event[2] + 1} {WAY_TEXT[event[1]]}"
    if kind == Event.KEEP:
        return f"keep: {event[1]}"
    return f"{DISCARD if kind == Event.DISCARD else GO_OUT}: {text(event[1])}"


def body(log: HandLog) -> list[str]:
    """The record's lines after the shared header: the deal, every turn, the results."""
    if log.first_turn != 1 or any(log.start_melds) or max(log.start_taken) >= 0:
        raise InputError("a Burraco record starts from the deal: this hand started in play")
    lines = [f"dealer: {log.dealer}"]
    lines += [f"seat {s}: {hand_text(h)}" for s, h in enumerate(log.start_hands)]
    lines += [f"pozzetto {n + 1}: {texts(p)}" for n, p in enumerate(log.start_pozzetti)]
    lines += [f"discard pile: {texts(log.start_pile)}", f"stock: {texts(log.start_stock)}"]
    for number, turn in enumerate(log.turns, start=1):
        lines.append(f"turn {number}: seat {turn.seat}")
        lines += [_event_line(e, team_of(turn.seat), log.rules) for e in turn.events]
    lines += [f"{key}: {value}" for key, value in result_lines(log)]
    return lines


def replay(lines: Sequence[str], rules: BurracoRules, policies: Sequence[Policy] | None,
           seed: int, index: int) -> HandLog:
    """Replay a record's lines with the reference engine and return the completed HandLog.

    The deal is checked (§1), then every recorded action in turn
    (:class:`simkit.burraco.replay.Replay`);
    with ``policies`` whatever the record leaves out is played by them, drawing
    from the stream ``(seed, index)`` after its deal, and without them a record
    that stops early is an error, as are turns after the hand is over.  Every
    result the record states must be the replay's.  Without policies the log's
    ``policies`` is empty.
    """
    rec = read(lines)
    stream = Stream(seed, index)
    R.deal(stream, rec.dealer)                  # only the stream's position matters
    hand = walk.Replay(rules, policies, stream, rec)
    log = hand.run()
    hand.check_over()
    check_results(rec.results, log)
    if policies is None:
        log.policies = ()
    return log


def frames(log: HandLog) -> list[dict[str, Any]]:
    """The hand viewer's frames (:mod:`simkit.bygame.view`):
    :func:`simkit.burraco.replay.frames`."""
    return walk.frames(log)


def result_keys(log: HandLog) -> list[str]:
    """The keys of the result lines at the record's end (after the last turn)."""
    return [key for key, _ in result_lines(log)]


def seat_labels(rules: BurracoRules) -> list[str]:
    """``seat 0 (team 0)``: partners sit opposite, seat s in team s % 2."""
    return [f"seat {s} (team {s % 2})" for s in range(rules.players)]
