"""Burraco hand records (seeds/burraco.md 10): the game's lines of a ``simkit
show`` / ``simkit replay`` record (the shared header: :mod:`simkit.record`).

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
(:class:`reference.Hand`): a :class:`Replay` takes the recorded turns in
order (:class:`simkit.script.Script`) and applies each recorded action,
checked against the rule book first, and the policies (when given) play
whatever the record leaves out.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass

from simkit.burraco import reference as R
from simkit.burraco.melds import (
    DECK_SIZE,
    FIRST_JOKER,
    JOKER_FACE,
    MIN_MELD,
    SEQUENCE,
    SET,
    card_text,
    face,
    is_joker,
    read_meld,
)
from simkit.burraco.reference import (
    CAP,
    CLOSED,
    DIRECT,
    PILE,
    STOCK,
    STOCK_OUT,
    TEAMS,
    WAY_TEXT,
    WILD,
    Hand,
    HandLog,
    has_burraco,
    team_of,
)
from simkit.burraco.rules import HAND, PLAYERS, POZZETTI, BurracoRules
from simkit.cards import CardError, is_joker_text, parse_card
from simkit.errors import InputError
from simkit.frames import area, frame, group_label, plural, row
from simkit.policy import Policy
from simkit.rng import Stream
from simkit.script import Script
from simkit.text import key_values, seat_number, seat_or_nobody, whole

UNIT = "hand"
BOOK = "seeds/burraco.md"
#: The mark of a later copy of a card: ``AS'``, ``JK''``.
PRIME = "'"
#: Cards in the stock after the deal (§1).
STOCK_CARDS = DECK_SIZE - PLAYERS * HAND - POZZETTI * HAND - 1

# Actions of a turn (the keys of their lines).
DRAW, KEEP, MELD, ADD, POZZETTO, DISCARD, GO_OUT = \
    "draw", "keep", "meld", "add", "pozzetto", "discard", "go out"
#: Actions that end a turn.
ENDS = (DISCARD, GO_OUT)
SOURCE_WORDS = {"stock": STOCK, "pile": PILE}
WAYS = {text: way for way, text in enumerate(WAY_TEXT)}

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
# Cards
# ---------------------------------------------------------------------------

def copy_of(c: int) -> int:
    """Which copy of its face a card is: 0 or 1 (the two decks), 0..3 for the jokers."""
    return c - FIRST_JOKER if is_joker(c) else c // 52


def text(c: int) -> str:
    """A card in the record's notation: ``AS``, ``AS'``, ``JK''``."""
    return card_text(c) + PRIME * copy_of(c)


def texts(cards: Sequence[int]) -> str:
    return " ".join(text(c) for c in cards)


def hand_text(cards) -> str:
    """A hand's cards by suit and rank (C D H S, A 2 .. K, jokers last), copies together."""
    return texts(sorted(cards, key=lambda c: (face(c), c)))


@dataclass(frozen=True)
class Card:
    """A card as a record writes it: its face (0..51, 52 a joker) and its copy,
    or None when written without primes (any copy)."""

    face: int
    copy: int | None
    written: str

    def matches(self, c: int) -> bool:
        return face(c) == self.face and (self.copy is None or copy_of(c) == self.copy)


def read_card(word: str, where: str) -> Card:
    """One card of a record; ``where`` names the line for the error."""
    base = word.rstrip(PRIME)
    primes = len(word) - len(base)
    if is_joker_text(base):
        f, copies = JOKER_FACE, DECK_SIZE - FIRST_JOKER
    else:
        try:
            rank, suit = parse_card(base)
        except CardError:
            raise InputError(f"{where}: unknown card {word!r}: expected a rank (A, 2-10 or T, "
                             f"J, Q, K) and a suit (C, D, H, S), e.g. 'AS' or '10H', or 'JK' "
                             f"for a joker, a prime marking a later copy: AS', JK'' "
                             f"({BOOK} 10)") from None
        f, copies = suit * 13 + (0 if rank == 14 else rank - 1), 2
    if primes >= copies:
        raise InputError(f"{where}: unknown card {word!r}: the deck has {copies} copies of it, "
                         f"written {base.upper()} to {base.upper() + PRIME * (copies - 1)} "
                         f"({BOOK} 10)")
    return Card(f, primes if primes else None, word)


def read_cards(value: str, where: str) -> tuple[Card, ...]:
    return tuple(read_card(w, where) for w in value.replace(",", " ").split())


def written(cards: Sequence[Card]) -> str:
    return " ".join(c.written for c in cards)


def pick(cards: Sequence[Card], pool) -> tuple[list[int] | None, Card | None]:
    """The ids of ``cards`` among ``pool``, in order: each card written with
    primes takes its copy, then each without the lowest copy left.  ``(ids,
    None)``, or ``(None, card)`` for the first card ``pool`` cannot give."""
    free = sorted(pool)
    ids: dict[int, int] = {}
    for i in sorted(range(len(cards)), key=lambda i: cards[i].copy is None):
        hit = next((c for c in free if cards[i].matches(c)), None)
        if hit is None:
            return None, cards[i]
        free.remove(hit)
        ids[i] = hit
    return [ids[i] for i in range(len(cards))], None


# ---------------------------------------------------------------------------
# Reading a record
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Action:
    """One action of a recorded turn as its line gives it.

    ``cards``: the cards drawn (may be left out), laid, added or discarded;
    ``source``: the draw's (STOCK or PILE); ``meld``: ``(team, number)`` of a
    new meld or of the meld added to (numbers from 1); ``kind``: a new meld's
    ``set`` or ``sequence`` (None: whichever the cards make); ``number``: the
    keep, or the pozzetto taken (1 or 2) with its ``way``.
    """

    key: str
    line: str
    cards: tuple[Card, ...] = ()
    source: int = STOCK
    meld: tuple[int, int] = (0, 0)
    kind: str | None = None
    number: int = 0
    way: int = DIRECT


@dataclass(frozen=True)
class RecordedTurn:
    number: int
    seat: int
    actions: tuple[Action, ...]


@dataclass(frozen=True)
class Written:
    """A record's lines, read: the dealer, the deal (card ids), the turns and
    the results stated (``(key, value, {column: value})``, §8 columns)."""

    dealer: int
    hands: tuple[tuple[int, ...], ...]
    pozzetti: tuple[tuple[int, ...], ...]
    pile: tuple[int, ...]
    stock: tuple[int, ...]
    turns: tuple[RecordedTurn, ...]
    results: tuple[tuple[str, str, dict], ...]


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
    ids, bad = pick([c for g in groups for c in g], range(DECK_SIZE))
    if bad is not None:
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
    return Written(dealer, tuple(map(tuple, groups[:PLAYERS])),
                   tuple(map(tuple, groups[PLAYERS:PLAYERS + POZZETTI])),
                   tuple(groups[-2]), tuple(groups[-1]),
                   tuple(RecordedTurn(n, s, tuple(a)) for n, s, a in turns), results)


# ---------------------------------------------------------------------------
# Results (every line optional)
# ---------------------------------------------------------------------------

#: The per-team result lines made of ``name value`` parts: the separator and,
#: for each name, its §8 column (``_t`` the team).
_PARTS = {
    "score": (" + ", {"melded": "melded", "hands": "hand_penalty", "burracos": "burraco_bonus",
                      "closing": "closing_bonus", "pozzetto": "pozzetto_penalty"}),
    "burracos": (", ", {"clean": "clean_burraco", "dirty": "dirty_burraco"}),
    "table": (", ", {"sets": "sets", "sequences": "sequences", "wild cards": "wilds"}),
}


def outcome(log: HandLog) -> dict:
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
        for what, (sep, names) in _PARTS.items():
            parts = sep.join(f"{name} {res[f'{col}_{t}']}" for name, col in names.items())
            lines.append((f"team {t} {what}",
                          f"{res[f'score_{t}']} = {parts}" if what == "score" else parts))
            if what == "score":
                n, turn = res[f"pozzetto_{t}"], res[f"pozzetto_turn_{t}"]
                lines.append((f"team {t} pozzetto", f"{n} on turn {turn}" if n else "none"))
    return lines


def _parts(key: str, value: str, t: int, sep: str, names: dict) -> dict:
    out: dict = {}
    for item in filter(None, (i.strip() for i in value.split(sep.strip()))):
        name, _, number = item.rpartition(" ")
        name = " ".join(name.lower().split())
        if name not in names or names[name] + f"_{t}" in out:
            raise InputError(f"bad {key!r} line part {item!r}: expected each of "
                             f"{', '.join(names)} at most once, with its number")
        out[f"{names[name]}_{t}"] = whole(number, f"{name} in {key!r}", -10**6, 10**6)
    return out


def _read_result(key: str, value: str) -> dict:
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
    sep, names = _PARTS[what]
    if what != "score":
        return _parts(key, v, t, sep, names)
    score, eq, rest = v.partition("=")
    return {f"score_{t}": whole(score.strip(), key, -10**6, 10**6),
            **(_parts(key, rest, t, sep, names) if eq else {})}


def results(lines: Sequence[str]) -> dict:
    """The results a record's lines state, by §8 column (``pozzetto_t`` besides)."""
    out: dict = {}
    for _, _, values in read(lines).results:
        out.update(values)
    return out


def check_results(stated, log: HandLog) -> None:
    """Every result the record states must be the replay's."""
    actual = outcome(log)
    said = dict(result_lines(log))
    for key, value, values in stated:
        if any(actual[col] != v for col, v in values.items()):
            raise InputError(f"the record says {key}: {value}, but the replay gives "
                             f"{key}: {said[key]}")


# ---------------------------------------------------------------------------
# Replaying
# ---------------------------------------------------------------------------

class Replay(Hand):
    """A hand replayed from a record (:class:`reference.Hand`).

    Each recorded turn's actions are checked against the rule book and
    applied in order; turns the record leaves out (and the rest of a turn cut
    short) are the policies' (``live``), or an error without them.  With
    policies, every recorded decision is asked of the seat's policy too,
    answer dropped (:class:`simkit.script.Script`), so that the stream stays
    where the run had it; a turn cut short is played by the policy from its
    start when the record's part of it is what the policy plays: a run's
    hand cut anywhere comes out as the run played it.
    """

    def __init__(self, rules: BurracoRules, policies, stream: Stream, rec: Written):
        super().__init__(rules, policies, stream, rec.hands, rec.pozzetti, rec.stock, rec.pile,
                         dealer=rec.dealer)
        self.script = Script(rec.turns, None if policies is None else self.decide)
        self.where, self.recording = "", False
        self.planned, self.keep_fixed, self.took = (2, False), False, None

    @property
    def live(self) -> bool:
        """Are there policies to play what the record leaves out?"""
        return self.script.live

    def fail(self, message: str) -> InputError:
        return InputError(f"{self.where}: {message}")

    # -- turns ---------------------------------------------------------------

    def play_turn(self) -> R.Turn:
        number, seat = len(self.turns) + 1, self.to_move
        where = f"at turn {number}, seat {seat} to play"
        rec = self.script.next(where)
        if rec is None:                                 # the policies' turn
            return super().play_turn()
        self.check_seat(rec)
        if not rec.actions:                             # a turn line alone: theirs too
            self.script.rest(where)
            return super().play_turn()
        cut = self.live and not any(a.key in ENDS for a in rec.actions)
        trial = copy.deepcopy(self) if cut else None
        turn, prefix = self.play_recorded(seat, list(rec.actions))
        if trial is not None and prefix is not None:
            own = Hand.play_turn(trial)
            if own.events[:prefix] == turn.events[:prefix]:
                self.__dict__.update(trial.__dict__)     # the policy's own turn: the run's
                return own
        return turn

    def check_seat(self, rec: RecordedTurn) -> None:
        self.where = f"turn {rec.number}"
        if rec.seat != self.to_move:
            raise self.fail(f"the record has seat {rec.seat} playing, but it is seat "
                            f"{self.to_move}'s turn: play passes left ({BOOK} 1, 7)")

    def play_recorded(self, seat: int, actions: list[Action]) -> tuple[R.Turn, int | None]:
        """A recorded turn; the number of its events the record gave, when the
        policy finished it (else None)."""
        self.events, self.recording, prefix = [], True, None
        draw = actions.pop(0)
        if draw.key != DRAW:
            raise self.fail(f"seat {seat} {_verb(draw)} before drawing: a turn starts with "
                            f"the draw ({BOOK} 2)")
        last = self.take_draw(seat, self.recorded_draw(seat, draw))
        if self.plays_on(last):
            if self.play_actions(seat, actions):
                prefix = len(self.events)
                self.finish(seat)
        elif actions:
            raise self.fail(f"the hand ends with seat {seat}'s draw, which leaves two cards "
                            f"in the stock ({BOOK} 5), but the record goes on with "
                            f"{actions[0].line!r}")
        self.recording = False
        return self.end_turn(seat, last), prefix

    def play_actions(self, seat: int, actions: list[Action]) -> bool:
        """Apply a turn's actions after the draw; True if they stop before its end
        (the policy to finish it)."""
        self.keep_fixed, self.took, done = False, None, False
        self.planned = self.script.ask(lambda d: d.keep(seat, self))    # the policy's keep
        for a in actions:
            took, self.took = self.took, None
            if a.key == POZZETTO and (took or not done):
                self.recorded_pozzetto(seat, a, took)
            elif done:
                over = (f"the hand is over: seat {seat} went out" if self.ended else
                        f"seat {seat}'s turn is over with its discard")
                raise self.fail(f"{over}, but the record goes on with {a.line!r}")
            elif a.key == DRAW:
                raise self.fail(f"seat {seat} draws again: a turn has one draw ({BOOK} 2)")
            elif a.key == KEEP:
                self.recorded_keep(seat, a)
            elif a.key == MELD:
                self.recorded_meld(seat, a)
            elif a.key == ADD:
                self.recorded_add(seat, a)
            else:
                self.recorded_end(seat, a)
                done = True
        if not done:
            self.script.rest(f"inside {self.where}, before seat {seat} discards")
        return not done

    def finish(self, seat: int) -> None:
        """The policy finishes a turn the record cuts short: its keep (unless the
        record gave one after the last pozzetto taken), melding, the discard."""
        self.recording = False
        if not self.keep_fixed:
            self.keep, self.going_out = self.planned
            self.events.append(("keep", self.keep))
        self.meld(seat)
        self.close_after_melding(seat)
        team, hand = team_of(seat), self.hands[seat]
        if len(hand) == 1:                  # the record left one card: only going out ends
            (card,) = hand                  # the turn once the team has its pozzetto
            if self.taken[team] >= 0 and has_burraco(self.melds[team]) and not WILD[card]:
                self.going_out = True
            elif self.taken[team] >= 0 or self.rules.pozzetto == "direct":
                raise self.fail(f"seat {seat} is left holding one card, {text(card)}, which "
                                f"it can neither discard nor go out with ({BOOK} 4, 5)")
        self.discard(seat)

    def after_melding(self, seat: int) -> None:
        """§4, §7 (2): a hand emptied by a recorded meld takes the pozzetto
        directly (the policy plans its keep again, as after any pozzetto)."""
        if not self.recording:
            super().after_melding(seat)
        elif not self.hands[seat]:
            self.take_pozzetto(seat, DIRECT)
            self.took, self.keep_fixed = self.events[-1], False
            self.planned = self.script.ask(lambda d: d.keep(seat, self))

    # -- the actions ---------------------------------------------------------

    def recorded_keep(self, seat: int, a: Action) -> None:
        """§9: the player's plan, the fewest cards it keeps after melding (0: it
        means to take the pozzetto directly; 1 with the pozzetto taken: to go out)."""
        team = team_of(seat)
        if a.number == 0 and (self.taken[team] >= 0 or self.rules.pozzetto == "discard"):
            raise self.fail(f"seat {seat} keeps 0, but it cannot take a pozzetto directly: "
                            + ("its team has one" if self.taken[team] >= 0 else
                               "pozzetto = discard") + f" ({BOOK} 4, 9)")
        self.keep, self.keep_fixed = a.number, True
        self.going_out = a.number == 1 and self.taken[team] >= 0 and has_burraco(self.melds[team])
        self.events.append(("keep", a.number))

    def recorded_draw(self, seat: int, a: Action) -> int:
        """§2 (1), §7: the stock's top card, or the whole discard pile."""
        self.script.ask(lambda d: d.draw(seat, self.hands[seat], self.pile,
                                         self.melds[team_of(seat)]))
        if a.source == STOCK:
            top = self.stock[0]
            if len(a.cards) > 1 or (a.cards and not a.cards[0].matches(top)):
                raise self.fail(f"seat {seat} draws {written(a.cards)} from the stock, but "
                                f"its top card is {text(top)}: a draw from the stock takes "
                                f"its top card ({BOOK} 2)")
            return STOCK
        if not self.pile:
            raise self.fail(f"seat {seat} takes the discard pile, but it is empty ({BOOK} 7)")
        if a.cards and (len(a.cards) != len(self.pile)
                        or not all(w.matches(c) for w, c in zip(a.cards, self.pile))):
            raise self.fail(f"seat {seat} takes the discard pile as {written(a.cards)}, but it "
                            f"holds {texts(self.pile)} (bottom first): the pile is taken "
                            f"whole ({BOOK} 2, 7)")
        return PILE

    def from_hand(self, seat: int, a: Action) -> list[int]:
        """The ids of the action's cards in the seat's hand."""
        ids, bad = pick(a.cards, self.hands[seat])
        if bad is None:
            return ids
        held = sum(1 for c in self.hands[seat] if bad.matches(c))
        why = ("which it does not hold" if len(a.cards) == 1 else
               f"but holds only {held} {bad.written}" if held else
               f"but does not hold {bad.written}")
        raise self.fail(f"seat {seat} {_verb(a)}, {why} ({self.whereabouts(bad)})")

    def whereabouts(self, card: Card) -> str:
        """Where the cards written ``card`` are: ``8H in meld 0.1, 8H' in the stock``."""
        places = [(f"seat {s}'s hand", h) for s, h in enumerate(self.hands)]
        places += [(f"meld {t}.{i + 1}", m.cards) for t in range(TEAMS)
                   for i, m in enumerate(self.melds[t])]
        places += [(f"pozzetto {n + 1}", p) for n, p in enumerate(self.pozzetti)]
        places += [("the stock", self.stock), ("the discard pile", self.pile)]
        return ", ".join(f"{text(c)} in {name}" for name, cards in places
                         for c in sorted(cards) if card.matches(c))

    def check_emptying(self, seat: int, a: Action, cards: int) -> None:
        """§2, §4: melding may empty the hand only to take the pozzetto directly."""
        if len(self.hands[seat]) > cards:
            return
        if self.taken[team_of(seat)] >= 0:
            raise self.fail(f"seat {seat} {_verb(a)} and empties its hand, but its team has "
                            f"taken its pozzetto: a hand is emptied only to take the "
                            f"pozzetto, or by the last discard, going out ({BOOK} 2, 5)")
        if self.rules.pozzetto == "discard":
            raise self.fail(f"seat {seat} {_verb(a)} and empties its hand, but with pozzetto "
                            f"= discard the pozzetto is taken only on the discard ({BOOK} 4)")

    def recorded_meld(self, seat: int, a: Action) -> None:
        """§3: a new meld from the hand, named as the team's next."""
        team, (t, n) = team_of(seat), a.meld
        nxt = len(self.melds[team]) + 1
        if (t, n) != (team, nxt):
            raise self.fail(f"seat {seat} lays meld {t}.{n}, but the next meld of its team "
                            f"(team {team}) is {team}.{nxt} ({BOOK} 10)")
        cards = self.from_hand(seat, a)
        meld = read_meld(cards, self.meld_rules, a.kind)
        if meld is None:
            what = f"a {a.kind}" if a.kind else "a meld (a set or a sequence)"
            few = f": a meld has at least {MIN_MELD} cards" if len(cards) < MIN_MELD else ""
            raise self.fail(f"seat {seat} lays {written(a.cards)}, which is not {what}{few} "
                            f"({BOOK} 3)")
        self.check_emptying(seat, a, len(cards))
        self.lay(seat, cards, meld.kind)

    def recorded_add(self, seat: int, a: Action) -> None:
        """§2, §3: cards added one at a time, in the order written, to a meld of the
        seat's own team; each must leave it valid."""
        team, (t, n) = team_of(seat), a.meld
        if t != team:
            raise self.fail(f"seat {seat} {_verb(a)}, a meld of the other team: a player adds "
                            f"only to its own team's melds ({BOOK} 2)")
        if n > len(self.melds[team]):
            raise self.fail(f"seat {seat} {_verb(a)}, but team {team} has "
                            f"{len(self.melds[team])} melds ({BOOK} 10)")
        for card in self.from_hand(seat, a):
            meld = self.melds[team][n - 1]
            new = R.extended(meld, card, self.meld_rules)
            if new is None:
                raise self.fail(f"seat {seat} {_verb(a)}, but {meld.kind} {texts(meld.cards)} "
                                f"with {text(card)} is not a valid {meld.kind} ({BOOK} 3)")
            self.check_emptying(seat, a, 1)
            self.add(seat, n - 1, card, new)

    def recorded_pozzetto(self, seat: int, a: Action, took) -> None:
        """§4: a pozzetto line names the one the seat just took (it is taken
        when the hand empties; the line may be left out)."""
        said = f"seat {seat} takes pozzetto {a.number} {WAY_TEXT[a.way]}"
        if took is None:
            raise self.fail(f"{said}, but it has not just emptied its hand: a pozzetto is "
                            f"taken when a melding or a discard empties the hand of a player "
                            f"whose team has none ({BOOK} 4)")
        _, way, number = took
        if (a.way, a.number) != (way, number + 1):
            raise self.fail(f"{said}, but the one it takes is pozzetto {number + 1}, "
                            f"{WAY_TEXT[way]}: pozzetto 1 goes to the first team to take one, "
                            f"and a hand emptied by melding takes it directly ({BOOK} 4)")

    def recorded_end(self, seat: int, a: Action) -> None:
        """§2 (3), §4, §5: the discard (taking the pozzetto if it empties the
        hand), or going out."""
        team, hand = team_of(seat), self.hands[seat]
        # the policy's going-out choice (§9.1) and its discard
        self.script.ask(lambda d: d.closes_after(seat, self, self.planned[0]))
        if a.key == DISCARD:
            self.script.ask(lambda d: d.discard(seat, self))
        (card,) = self.from_hand(seat, a)
        if a.key == GO_OUT:
            why = ("it holds more cards: going out discards the last card" if len(hand) > 1
                   else "its team has not taken its pozzetto" if self.taken[team] < 0
                   else "its team has no burraco" if not has_burraco(self.melds[team])
                   else "the last card may not be a wild card" if WILD[card] else "")
            if why:
                raise self.fail(f"seat {seat} goes out discarding {text(card)}, but {why} "
                                f"({BOOK} 5)")
            self.close_with(seat, card)
            return
        if len(hand) == 1 and self.taken[team] >= 0:
            raise self.fail(f"seat {seat} discards its last card, {text(card)}, but its team "
                            f"has taken its pozzetto: that is going out, written 'go out: "
                            f"{text(card)}' ({BOOK} 5)")
        if len(hand) == 1 and self.rules.pozzetto == "direct":
            raise self.fail(f"seat {seat} discards its last card, {text(card)}, but with "
                            f"pozzetto = direct the pozzetto is taken only directly: a hand is "
                            f"emptied only to take the pozzetto or to go out ({BOOK} 4)")
        self.put_discard(seat, card)
        if not hand:
            self.took = self.events[-1]

    def check_over(self) -> None:
        """Turns recorded after the hand is over are an error."""
        how = {CLOSED: f"seat {self.closer} went out",
               STOCK_OUT: "the stock is down to two cards",
               CAP: f"the turn cap, max_turns = {self.rules.max_turns}"}[self.ended]
        self.script.done(lambda rec: f"the hand is over after turn {len(self.turns)} ({how}), "
                                     f"but the record goes on with turn {rec.number}")


def _verb(a: Action) -> str:
    """What an action does, for messages: ``lays 7C 7D 7H``, ``adds 8S to meld 0.1``."""
    cards = written(a.cards)
    if a.key in (MELD, ADD):
        t, n = a.meld
        return f"lays {cards}" if a.key == MELD else f"adds {cards} to meld {t}.{n}"
    return {DRAW: "draws", KEEP: f"keeps {a.number}", POZZETTO: "takes a pozzetto",
            DISCARD: f"discards {cards}", GO_OUT: f"goes out discarding {cards}"}[a.key]


# ---------------------------------------------------------------------------
# The interface of simkit.record
# ---------------------------------------------------------------------------

def play(rules: BurracoRules, policies: Sequence[Policy], seed: int, index: int) -> HandLog:
    """Hand ``index`` of a run with these rules, policies and seed, exactly as
    ``simkit simulate burraco`` plays it (§7: dealt by seat ``index mod 4``)."""
    return R.play_hand(rules, policies, seed, index, index % PLAYERS)


def _event_line(event: tuple, team: int, rules) -> str:
    kind = event[0]
    if kind == "draw":
        return f"draw: {'stock' if event[1] == STOCK else 'pile'} {texts(event[2])}"
    if kind == "meld":
        meld = read_meld(event[2], R.meld_rules_of(rules), event[1])
        return f"meld {team}.{event[3] + 1}: {meld.kind} {texts(meld.cards)}"
    if kind == "add":
        return f"add {team}.{event[1] + 1}: {text(event[2])}"
    if kind == "pozzetto":
        return f"pozzetto: {event[2] + 1} {WAY_TEXT[event[1]]}"
    if kind == "keep":
        return f"keep: {event[1]}"
    return f"{DISCARD if kind == 'discard' else GO_OUT}: {text(event[1])}"


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

    The deal is checked (§1), then every recorded action in turn (:class:`Replay`);
    with ``policies`` whatever the record leaves out is played by them, drawing
    from the stream ``(seed, index)`` after its deal, and without them a record
    that stops early is an error, as are turns after the hand is over.  Every
    result the record states must be the replay's.  Without policies the log's
    ``policies`` is empty.
    """
    rec = read(lines)
    stream = Stream(seed, index)
    R.deal(stream, rec.dealer)                  # only the stream's position matters
    hand = Replay(rules, policies, stream, rec)
    log = hand.run()
    hand.check_over()
    check_results(rec.results, log)
    if policies is None:
        log.policies = ()
    return log


# ---------------------------------------------------------------------------
# The hand viewer's frames (seeds/records.md)
# ---------------------------------------------------------------------------

class _Walk(Hand):
    """The reference engine's hand moved by a finished log's events, for
    :func:`frames`: each event is made with the hand's own step (the draw, a
    meld, an addition, the discard, going out), and a hand emptied by melding
    takes its pozzetto at once (§4) without asking a policy its next keep."""

    def __init__(self, log: HandLog):
        super().__init__(log.rules, None, None, log.start_hands, log.start_pozzetti,
                         log.start_stock, log.start_pile, log.start_melds, dealer=log.dealer,
                         to_move=log.turns[0].seat if log.turns else None,
                         taken=log.start_taken, turns=log.first_turn - 1)
        self.last = False                   # the turn's draw left two cards in the stock

    def after_melding(self, seat: int) -> None:
        if not self.hands[seat]:
            self.take_pozzetto(seat, DIRECT)

    def make(self, seat: int, event: tuple) -> tuple[str, set]:
        """Make one event of the log (not a keep, not a pozzetto): its caption and
        what it touched on the table (``"stock"``, ``"pile"``, ``(team, meld)``)."""
        kind, team = event[0], team_of(seat)
        if kind == "draw":
            self.last = self.take_draw(seat, event[1])
            if event[1] == STOCK:
                return f"seat {seat} draws {texts(event[2])} from the stock", {"stock"}
            return f"seat {seat} takes the discard pile, {texts(event[2])}", {"pile"}
        if kind == "meld":
            self.lay(seat, list(event[2]), event[1])
            meld = self.melds[team][event[3]]
            return (f"seat {seat} lays meld {team}.{event[3] + 1}, {meld.kind} "
                    f"{texts(meld.cards)}", {(team, event[3])})
        if kind == "add":
            m, card = event[1], event[2]
            self.add(seat, m, card, R.extended(self.melds[team][m], card, self.meld_rules))
            return f"seat {seat} adds {text(card)} to meld {team}.{m + 1}", {(team, m)}
        if kind == "discard":
            self.put_discard(seat, event[1])
            return f"seat {seat} discards {text(event[1])}", {"pile"}
        self.close_with(seat, event[1])
        return f"seat {seat} goes out, discarding {text(event[1])}", {"pile"}


def _by_face(c: int) -> tuple[int, int]:
    """A hand's order, as its deal line (:func:`hand_text`): C D H S, A 2 .. K, jokers last."""
    return face(c), c


def _pozzetto_text(hand: Hand, number: int) -> str:
    for t in range(TEAMS):
        if hand.taken[t] == number:
            turn = hand.pozzetto_turn[t]
            return f"taken by team {t}" + (f" on turn {turn}" if turn > 0 else "")
    return plural(len(hand.pozzetti[number]), "card")


def _snapshot(hand: Hand, caption: str, actor: int, touched: set) -> dict:
    """A frame of ``hand`` as it stands: every meld (the one ``touched`` marked,
    with its burraco), the discard pile, the stock, the pozzetti and each team's
    score if the hand ended now, written as its record line (§6)."""
    areas = [area(f"Team {t} melds",
                  [row(f"{t}.{m + 1} {meld.kind}", [text(c) for c in meld.cards],
                       ("clean burraco" if meld.clean else "dirty burraco") if meld.burraco
                       else "", (t, m) in touched)
                   for m, meld in enumerate(hand.melds[t])]) for t in range(TEAMS)]
    areas.append(area("Table", [
        row("discard pile", [text(c) for c in hand.pile], plural(len(hand.pile), "card"),
            "pile" in touched),
        row("stock", text=plural(len(hand.stock), "card"), mark="stock" in touched)]))
    areas.append(area("Pozzetti", [row(f"pozzetto {n + 1}", text=_pozzetto_text(hand, n),
                                       mark=("pozzetto", n) in touched)
                                   for n in range(POZZETTI)]))
    sep, names = _PARTS["score"]
    score = [(group_label("team", t, range(t, PLAYERS, TEAMS)),
              f"{p['score']} = " + sep.join(f"{name} {p[col]}" for name, col in names.items()))
             for t, p in enumerate(hand.scores())]
    return frame(caption, actor, [[text(c) for c in sorted(h, key=_by_face)] for h in hand.hands],
                 areas, score)


def frames(log: HandLog) -> list[dict]:
    """The hand viewer's frames (:mod:`simkit.view`): the deal, then one frame per
    draw, meld, addition and discard (or going out), a pozzetto taken shown
    with the move that emptied the hand; each state the reference engine's as
    it makes the log's events again (:class:`_Walk`).  A keep is a plan, not a
    move: it has no frame."""
    hand = _Walk(log)
    ends = {CLOSED: "seat {} went out", STOCK_OUT: "the stock is down to two cards",
            CAP: "the turn cap is reached"}
    out = [_snapshot(hand, f"the deal: seat {log.dealer} deals", log.dealer, set())]
    for number, turn in enumerate(log.turns, start=log.first_turn):
        events = [e for e in turn.events if e[0] != "keep"]
        for i, event in enumerate(events):
            if event[0] == "pozzetto":
                continue                    # taken with the move before it
            caption, touched = hand.make(turn.seat, event)
            took = events[i + 1] if i + 1 < len(events) else None
            if took and took[0] == "pozzetto":
                caption += f" and takes pozzetto {took[2] + 1} {WAY_TEXT[took[1]]}"
                touched.add(("pozzetto", took[2]))
            if all(e[0] == "pozzetto" for e in events[i + 1:]):
                hand.end_turn(turn.seat, hand.last)
                if hand.turns[-1].events != events:
                    raise AssertionError(f"turn {number} of the hand's log does not replay")
                if hand.ended:
                    caption += "; the hand is over: " + ends[hand.ended].format(hand.closer)
            out.append(_snapshot(hand, f"turn {number}: {caption}", turn.seat, touched))
    return out


def result_keys(log: HandLog) -> list[str]:
    """The keys of the result lines at the record's end (after the last turn)."""
    return [key for key, _ in result_lines(log)]


def seat_labels(rules) -> list[str]:
    """``seat 0 (team 0)``: partners sit opposite, seat s in team s % 2."""
    return [f"seat {s} (team {s % 2})" for s in range(rules.players)]
