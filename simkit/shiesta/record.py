"""Shiesta game records (seeds/shiesta.md, "Game records"): the game's lines of a
``simkit show`` / ``simkit replay`` record (the shared header: :mod:`simkit.bygame.record`).

A record is one whole game, one fact per ``key: value`` line: the deal (each
seat's face-down row, face-up row and hand, the draw pile in drawing order),
the starter, the three cards each seat put face up in the exchange, every
turn, and the results.  Suits do not matter in Shiesta (§1): the reference
engine keeps only ranks once the cards are dealt, so a record writes ranks
(``2 .. 10 J Q K A``, ``T`` read as 10), and with two decks the two copies of
a rank are the same card.

:func:`replay` plays the recorded game again with the reference engine
(:class:`reference.Game`), a :class:`ScriptDecider` making the recorded
decisions and the policies, when given, what the record leaves out
(:mod:`simkit.records.script`).  Before the engine plays a turn it is checked
against the rule book (:func:`check_turn`); after, what the line says about
it (cards drawn, cards picked up, the special cards' effects) against what
the engine did.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.policy import Policy
from simkit.records.frames import area, frame, plural
from simkit.records.frames import row as table_row
from simkit.records.script import Script
from simkit.records.text import key_values, numbers, seat_number, seat_or_nobody, whole, yes_no
from simkit.shiesta import reference as R
from simkit.shiesta import rules as rules_module
from simkit.shiesta.reference import DOWN, HAND, PICKED, PICKUP, UP, GameLog, Move
from simkit.shiesta.reference_players import Decider
from simkit.shiesta.rules import RANK_TEXT, ROW, ShiestaRules, Starter

UNIT = "game"
BOOK = "seeds/shiesta.md"

#: The special cards' effects (§3) a play's line names.
BURNS, NEXT_PICKS_UP, REVERSES = "burns the pile", "the next player picks up", \
    "reverses the direction"
SOURCE_WORDS = {"hand": HAND, "face-up": UP, "up": UP, "face-down": DOWN, "down": DOWN}
WHERE = {HAND: "its hand", UP: "its face-up row", DOWN: "its face-down row"}
#: Why a seat plays from a source (§4.4), for messages.
WHY_SOURCE = {HAND: "its hand holds cards", UP: "its hand is empty and its face-up row is not",
              DOWN: "its hand and face-up row are empty"}
_SEAT_KEY = re.compile(r"seat (\S+) (down|up|hand|puts face up)$")


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One recorded turn as its line gives it; what the line leaves out is None.

    A play (``pickup`` false) puts ``count`` cards of ``rank`` on the pile
    from ``source``.  A pickup takes ``count`` cards into the hand; ``rank``
    is the face-down card turned, when the line names one.
    """

    number: int
    text: str
    seat: int
    pickup: bool
    rank: int | None = None
    count: int | None = None
    source: int | None = None
    drawn: int | None = None
    effects: frozenset[str] = frozenset()

    def cards(self) -> tuple[int, int]:
        """(rank, count) of a play, which its line always gives."""
        assert self.rank is not None, self.text
        assert self.count is not None, self.text
        return self.rank, self.count

    def doing(self) -> str:
        """The step in words, for messages: ``seat 2 plays 9 9``."""
        if not self.pickup:
            rank, count = self.cards()
            return f"seat {self.seat} plays {R.format_ranks([rank] * count)}"
        if self.rank is not None:
            return f"seat {self.seat} turns {RANK_TEXT[self.rank]} and picks up"
        return f"seat {self.seat} picks up"


@dataclass(frozen=True)
class Record:
    """A record's lines as read: the deal (ranks, each seat's rows and hand in
    the order dealt), the starter, the face-up rows chosen in the exchange
    (by seat, those recorded), the turns, and the results it states
    (key -> (text, value))."""

    down: tuple[tuple[int, ...], ...]
    up: tuple[tuple[int, ...], ...]
    hand: tuple[tuple[int, ...], ...]
    draw: tuple[int, ...]
    starter: int
    ups: dict[int, list[int]]
    steps: tuple[Step, ...]
    results: dict[str, tuple[str, Any]]


# ---------------------------------------------------------------------------
# Reading values
# ---------------------------------------------------------------------------

def _seat(text: str, rules: ShiestaRules, what: str = "seat") -> int:
    """``2`` or ``seat 2``: a seat of the table."""
    return seat_number(text, rules.players, what)


def _rank(word: str) -> int:
    w = word.upper()
    if w == "T":
        return rules_module.TEN
    if w not in RANK_TEXT:
        raise InputError(f"bad card {word!r}: expected a rank 2-10 (or T), J, Q, K or A; "
                         f"a record writes ranks only, suits do not matter ({BOOK} 1)")
    return RANK_TEXT.index(w)


def _ranks(words: Sequence[str]) -> list[int]:
    """Rank words (``-`` alone: none)."""
    return [] if list(words) == ["-"] else [_rank(w) for w in words]


def _counts(text: str, rules: ShiestaRules, what: str) -> list[int]:
    """One count per seat."""
    return numbers(text, rules.players, what, 0)


# ---------------------------------------------------------------------------
# The results (§5): key, the log's value, how it is written and read
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Result:
    """A result line: ``value`` from the log, written by ``write``, read by
    ``read(text, rules, key)``; the values are of each result's own type."""

    key: str
    value: Callable[[GameLog], Any]
    write: Callable[[Any], str]
    read: Callable[[str, ShiestaRules, str], Any]


def _spaced(values: Iterable[object]) -> str:
    return " ".join(str(v) for v in values)


def _count(text: str, rules: ShiestaRules, what: str) -> int:
    return whole(text, what, 0)


def _played(rank: int) -> Callable[[GameLog], int]:
    """The cards of ``rank`` played onto the pile in a game (§5)."""
    return lambda log: log.played[rank]


RESULTS = (
    Result("turns", lambda log: log.turns, str, _count),
    Result("winner", lambda log: log.winner, lambda w: f"seat {w}" if w >= 0 else "none",
           lambda t, r, what: seat_or_nobody(t, r.players, what)),
    Result("unfinished", lambda log: log.unfinished, lambda u: "yes" if u else "no",
           lambda t, r, what: yes_no(t, what)),
    Result("pickups", lambda log: list(log.pickups), _spaced, _counts),
    Result("cards left", lambda log: list(log.cards_left), _spaced, _counts),
    *(Result(f"{text}s played", _played(rank), str, _count)
      for rank, text in R.RECORDED),
)
_RESULT = {res.key: res for res in RESULTS}


# ---------------------------------------------------------------------------
# Turns
# ---------------------------------------------------------------------------

def effects(move: Move, rules: ShiestaRules) -> tuple[str, ...]:
    """The effects of a play (§3) its line names: a 10 burns the pile, a 3
    makes the next player pick up, an odd number of 7s reverses the direction
    with ``seven_reverses``."""
    if move.source == PICKUP:
        return ()
    if move.rank == rules_module.TEN:
        return (BURNS,)
    if move.rank == rules_module.THREE:
        return (NEXT_PICKS_UP,)
    if move.rank == rules_module.SEVEN and rules.seven_reverses and move.count % 2 == 1:
        return (REVERSES,)
    return ()


def turn_text(move: Move, rules: ShiestaRules) -> str:
    """A turn's value, e.g. ``seat 2 plays 9 9 from hand, draws 2``."""
    if move.source == PICKUP:
        took = f"picks up {move.count} card{'' if move.count == 1 else 's'}"
        if move.rank == PICKED:
            return f"seat {move.seat} {took}"
        return f"seat {move.seat} turns {RANK_TEXT[move.rank]} from face-down, {took}"
    parts = [f"seat {move.seat} plays {R.format_ranks([move.rank] * move.count)} "
             f"from {R.SOURCE_TEXT[move.source]}"]
    if move.drawn:
        parts.append(f"draws {move.drawn}")
    return ", ".join(parts + list(effects(move, rules)))


def _source(words: list[str]) -> tuple[list[str], int | None]:
    """Split ``9 9 from face-up`` into the cards and the source (None: not said)."""
    lower = [w.lower() for w in words]
    if "from" not in lower:
        return words, None
    at = lower.index("from")
    name = "-".join(lower[at + 1:])
    if name not in SOURCE_WORDS:
        raise InputError(f"bad source {' '.join(words[at + 1:])!r}: expected hand, face-up "
                         f"or face-down")
    return words[:at], SOURCE_WORDS[name]


def _picked(words: list[str]) -> int | None:
    """``picks up [N] [cards]`` after its first two words: N, or None."""
    if words and words[-1].lower() in ("card", "cards"):
        words = words[:-1]
    if len(words) > 1:
        raise InputError(f"bad pickup {' '.join(words)!r}: expected 'picks up N cards'")
    return whole(words[0], "card count", 0) if words else None


def read_turn(number: int, text: str, rules: ShiestaRules) -> Step:
    """A turn line's value as a :class:`Step` (the forms are in the rule book)."""
    core, *clauses = [p.split() for p in text.split(",")]
    lower = [w.lower() for w in core]
    if lower[:1] == ["seat"]:
        core, lower = core[1:], lower[1:]
    if len(core) < 2:
        raise InputError(f"bad turn {text!r}: expected e.g. 'seat 1 plays 9 9', "
                         f"'seat 1 picks up' or 'seat 1 turns J, picks up'")
    seat = _seat(core[0], rules)
    step: dict[str, Any] = {"pickup": False}
    if lower[1] == "plays" or lower[1:3] == ["opens", "with"]:
        cards, step["source"] = _source(core[3 if lower[1] == "opens" else 2:])
        ranks = _ranks(cards)
        if not ranks:
            raise InputError(f"bad turn {text!r}: it plays no card")
        if len(set(ranks)) > 1:
            raise InputError(f"bad set {R.format_ranks(ranks)!r}: a set is cards of one "
                             f"rank ({BOOK} 2)")
        step.update(rank=ranks[0], count=len(ranks))
    elif lower[1] == "turns":
        cards, source = _source(core[2:])
        if len(cards) != 1 or source not in (None, DOWN):
            raise InputError(f"bad turn {text!r}: expected 'seat {seat} turns J from "
                             f"face-down, picks up N cards'")
        if not clauses or [w.lower() for w in clauses[0][:2]] != ["picks", "up"]:
            raise InputError(f"bad turn {text!r}: a face-down card turned and not played "
                             f"is picked up: expected '..., picks up N cards' ({BOOK} 4.4)")
        step.update(pickup=True, rank=_rank(cards[0]), source=DOWN,
                    count=_picked(clauses.pop(0)[2:]))
    elif lower[1:3] == ["picks", "up"]:
        step.update(pickup=True, count=_picked(core[3:]))
    else:
        raise InputError(f"bad turn {text!r}: expected 'seat {seat} plays ...', "
                         f"'seat {seat} picks up ...' or 'seat {seat} turns ...'")
    said = set()
    for words in clauses:
        clause = " ".join(words).lower()
        if clause in (BURNS, NEXT_PICKS_UP, REVERSES) and not step["pickup"]:
            said.add(clause)
        elif clause.startswith("draws ") and len(words) == 2 and not step["pickup"]:
            step["drawn"] = whole(words[1], "number of cards drawn", 0)
        else:
            raise InputError(f"bad part {' '.join(words)!r} of turn {text!r}: expected "
                             f"'draws N', '{BURNS}', '{NEXT_PICKS_UP}' or '{REVERSES}' "
                             f"after a play")
    return Step(number, text, seat, effects=frozenset(said), **step)


# ---------------------------------------------------------------------------
# Reading a record
# ---------------------------------------------------------------------------

def _lines(lines: Sequence[str]) -> list[tuple[str, str]]:
    """``(key, value)`` of each line (:func:`simkit.records.text.key_values`)."""
    return [(key, value) for key, value, _ in key_values(lines)]


def read(lines: Sequence[str], rules: ShiestaRules) -> Record:
    """The record's lines (after the shared header) as a :class:`Record`, the deal
    checked (:func:`check_deal`).  Nothing is replayed."""
    n = rules.players
    rows: dict[str, list[list[int] | None]] = {
        "down": [None] * n, "up": [None] * n, "hand": [None] * n, "puts face up": [None] * n}
    fields: dict[str, str] = {}
    steps: list[Step] = []
    results: dict[str, tuple[str, Any]] = {}
    for key, value in _lines(lines):
        seat_key = _SEAT_KEY.match(key)
        turn = key.startswith("turn ") and key[5:].isdigit()
        if not (turn or seat_key or key in _RESULT or key in ("draw pile", "starter")):
            raise InputError(f"unknown record line {key!r}: expected seat N down, up, hand or "
                             f"puts face up, draw pile, starter, turn N or a result "
                             f"({', '.join(_RESULT)})")
        if key in fields:
            raise InputError(f"the record has two {key!r} lines")
        fields[key] = value
        try:                                        # a bad value: name its line
            if turn:
                if int(key[5:]) != len(steps) + 1:
                    raise InputError(f"out of order: turn {len(steps) + 1} belongs here")
                steps.append(read_turn(len(steps) + 1, value, rules))
            elif seat_key:
                seat = _seat(seat_key.group(1), rules)
                rows[seat_key.group(2)][seat] = _ranks(value.split())
            elif key in _RESULT:
                results[key] = (value, _RESULT[key].read(value, rules, key))
        except InputError as e:
            raise InputError(f"{key}: {e}") from None
    dealt: dict[str, tuple[tuple[int, ...], ...]] = {}
    for what in ("down", "up", "hand"):
        for seat, row in enumerate(rows[what]):
            if row is None:
                raise InputError(f"the record has no 'seat {seat} {what}' line")
        dealt[what] = tuple(tuple(row) for row in rows[what] if row is not None)
    if "draw pile" not in fields:
        raise InputError("the record has no 'draw pile' line")
    draw = _ranks(fields["draw pile"].split())
    if "starter" in fields:
        starter = _seat(fields["starter"], rules, "starter")
    elif rules.starter is Starter.FIXED:
        starter = 0
    else:
        raise InputError("the record has no 'starter' line (only starter = fixed may "
                         "leave it out: seat 0 starts)")
    if rules.starter is Starter.FIXED and starter != 0:
        raise InputError(f"starter {starter}: with starter = fixed seat 0 starts ({BOOK} 1)")
    rec = Record(down=dealt["down"], up=dealt["up"], hand=dealt["hand"], draw=tuple(draw),
                 starter=starter,
                 ups={s: up for s, up in enumerate(rows["puts face up"]) if up is not None},
                 steps=tuple(steps), results=results)
    check_deal(rec, rules)
    return rec


def check_deal(rec: Record, rules: ShiestaRules) -> None:
    """§1: each seat dealt 3 face down, 3 face up and ``hand_size`` in hand, and
    the whole deck (``52 × decks`` cards, ``4 × decks`` of each rank) dealt."""
    rules.check()
    for seat in range(rules.players):
        for what, row, size in (("down", rec.down[seat], ROW), ("up", rec.up[seat], ROW),
                                ("hand", rec.hand[seat], rules.hand_size)):
            if len(row) != size:
                raise InputError(f"seat {seat} {what}: {len(row)} cards, but each seat is "
                                 f"dealt {size} there ({BOOK} 1)")
    dealt = [c for rows in (rec.down, rec.up, rec.hand) for row in rows for c in row]
    total = R.counts_of(dealt + list(rec.draw))
    copies = 4 * rules.n_decks
    decks = "one deck of 52" if rules.n_decks == 1 else f"{rules.n_decks} decks of 52"
    over = [r for r in range(R.RANKS) if total[r] > copies]          # a card twice first
    if over:
        raise InputError(f"the deal has {total[over[0]]} cards of rank {RANK_TEXT[over[0]]}, "
                         f"but {decks} have {copies} ({BOOK} 1)")
    short = [r for r in range(R.RANKS) if total[r] < copies]
    if short:
        raise InputError(f"the deal has {total[short[0]]} cards of rank "
                         f"{RANK_TEXT[short[0]]}: the whole of {decks} is dealt, {copies} of "
                         f"each rank ({BOOK} 1)")


# ---------------------------------------------------------------------------
# Replaying
# ---------------------------------------------------------------------------

class ScriptDecider:
    """The recorded decisions, in the interface of :class:`reference.Decider`.

    ``ups`` holds the face-up rows the record gives for the exchange, by seat;
    ``turns`` the recorded turns, taken in order by :func:`replay`, which
    checks each before the engine plays it and sets :attr:`step`, the turn
    being replayed.  ``policies`` (a :class:`reference.Decider`, or None)
    choose an exchange the record leaves out and are asked at every decision
    too (:class:`simkit.records.script.Script`): their answer to a recorded one is
    dropped, their random draws kept in step.
    """

    def __init__(self, rec: Record, policies: Decider | None) -> None:
        self.ups = {s: Script([up], policies) for s, up in rec.ups.items()}
        self.turns = Script(rec.steps, policies)
        self.policies = policies
        self.step: Step | None = None

    def exchange(self, seat: int, cards: Sequence[int]) -> tuple[list[int], list[int]]:
        script = self.ups.get(seat, Script([], self.policies))
        recorded, up = script.take(lambda p: p.exchange(seat, cards),
                                   f"at the exchange, seat {seat} to choose its face-up cards")
        if not recorded:
            chosen: tuple[list[int], list[int]] = up      # the policies' (face up, hand)
            return chosen
        up, hand = list(up), list(cards)
        if len(up) != ROW:
            raise InputError(f"seat {seat} puts face up {len(up)} cards: the face-up row "
                             f"holds {ROW} ({BOOK} 4.2)")
        for rank in up:
            if rank not in hand:
                raise InputError(f"seat {seat} puts face up {R.format_ranks(up)}, but its "
                                 f"hand and face-up row hold {_holding(cards, rank)} "
                                 f"({BOOK} 4.2)")
            hand.remove(rank)
        return sorted(up), sorted(hand)

    def _recorded(self) -> Step:
        """The turn being replayed (:func:`replay` sets it before each turn)."""
        assert self.step is not None, "no recorded turn is being replayed"
        return self.step

    def opening(self, seat: int, held: int) -> int:
        self.turns.ask(lambda p: p.opening(seat, held))
        return self._recorded().cards()[1]

    def play(self, seat: int, counts: Sequence[int], legal: Sequence[int], pile_size: int,
             next_cards: int, draw_empty: bool = False) -> tuple[int, int] | None:
        self.turns.ask(lambda p: p.play(seat, counts, legal, pile_size=pile_size,
                                        next_cards=next_cards, draw_empty=draw_empty))
        step = self._recorded()
        return None if step.pickup else step.cards()


def _holding(ranks: Sequence[int], rank: int) -> str:
    """``no K`` or ``only K K``: the cards of ``rank`` among ``ranks``."""
    have = [r for r in ranks if r == rank]
    return f"only {R.format_ranks(have)}" if have else f"no {RANK_TEXT[rank]}"


def _a(rank: int) -> str:
    text = RANK_TEXT[rank]
    return f"an {text}" if text in ("8", "A") else f"a {text}"


def _on_pile(pile: Sequence[int], rules: ShiestaRules) -> str:
    """``on a 9`` (or ``on a 2 over a 9``, a transparent 2): what decides the pile."""
    top = R.deciding_rank(pile, rules)
    if top is None:                 # anything may follow: an empty pile, or 2s alone
        return "on a 2" if pile else "on an empty pile"
    if pile and pile[-1] != top:
        return f"on a 2 over {_a(top)}"
    return f"on {_a(top)}"


def _either(ranks: Sequence[int]) -> str:
    """``J, Q or K``."""
    texts = [RANK_TEXT[r] for r in ranks]
    return " or ".join(filter(None, [", ".join(texts[:-1]), texts[-1]]))


def _takes(top: int | None, rules: ShiestaRules) -> str:
    """``J, Q, K, A, 2, 3 or 10``: every rank that may go on ``top`` (§2)."""
    ranks = (*rules_module.REGULAR, rules_module.TWO, rules_module.THREE, rules_module.TEN)
    return _either([r for r in ranks if R.may_follow(r, top, rules)])


def over(game: R.Game, step: Step) -> str:
    """The error of a turn recorded after the game is over (§4.5, §4.6)."""
    why = (f"seat {game.winner} went out ({BOOK} 4.5)" if game.winner >= 0 else
           f"the turn cap max_turns = {game.rules.max_turns} is reached ({BOOK} 4.6)")
    return f"turn {step.number}: the game is over after turn {len(game.moves)}: {why}"


def check_turn(game: R.Game, step: Step) -> None:
    """Raise InputError if ``step`` is not a legal next turn of ``game`` (§2-§4):
    whose turn it is, a pickup forced by a 3, the source played from, the
    face-down card turned, cards held, the opening and the rank on the pile."""
    k, doing = step.number, step.doing()
    if game.finished():
        raise InputError(over(game, step))
    seat = game.player()
    if step.seat != seat:
        why = (f"seat {seat} opens: the starter, or the first seat clockwise from it with a "
               f"regular card other than 7 in hand ({BOOK} 4.3)" if k == 1 else
               f"it is seat {seat}'s turn ({BOOK} 4.4)")
        raise InputError(f"turn {k} is played by seat {step.seat}, but {why}")
    if game.opened and game.must_pick_up:
        if not step.pickup or step.rank is not None:
            raise InputError(f"turn {k}: {doing}, but must pick up the pile after the 3 of "
                             f"turn {k - 1} ({BOOK} 3)")
        return
    source = game.source(seat) if game.opened else HAND
    if step.source is not None and step.source != source:
        raise InputError(f"turn {k}: {doing} from {WHERE[step.source]}, but "
                         f"{WHY_SOURCE[source]}: it plays from {WHERE[source]} ({BOOK} 4.4)")
    if source == DOWN:
        _check_blind(game, step, seat)
    else:
        _check_choice(game, step, seat, source)


def _check_blind(game: R.Game, step: Step, seat: int) -> None:
    """§4.4: the face-down row's first card is turned; played if legal, else picked up."""
    k, doing, card = step.number, step.doing(), game.down[seat][0]
    if step.rank is not None and step.rank != card:
        raise InputError(f"turn {k}: {doing}, but the first card of its face-down row is "
                         f"{RANK_TEXT[card]} ({BOOK} 4.4)")
    top = R.deciding_rank(game.pile, game.rules)
    legal = R.may_follow(card, top, game.rules)
    if step.pickup and legal:
        raise InputError(f"turn {k}: {doing}, but its face-down {RANK_TEXT[card]} may go "
                         f"{_on_pile(game.pile, game.rules)} and is played ({BOOK} 4.4)")
    if not step.pickup and not legal:
        raise InputError(f"turn {k}: {doing} from its face-down row "
                         f"{_on_pile(game.pile, game.rules)}, which takes "
                         f"{_takes(top, game.rules)}: the card and the pile go to the hand "
                         f"({BOOK} 4.4)")
    if not step.pickup and step.count != 1:
        raise InputError(f"turn {k}: {doing}, but the face-down row is played one card a "
                         f"turn ({BOOK} 4.4)")


def _check_choice(game: R.Game, step: Step, seat: int, source: int) -> None:
    """§4.3-§4.4, from the hand or the face-up row: a legal set held there, or a
    pickup with none."""
    rules, k, doing = game.rules, step.number, step.doing()
    counts = game.hand[seat] if source == HAND else game.up[seat]
    forced = None if game.opened else R.opening_rank(counts)
    legal = [forced] if forced is not None else R.legal_ranks(counts, game.pile, rules)
    if step.pickup:
        if legal:
            raise InputError(f"turn {k}: {doing}, but may play {_either(legal)} from "
                             f"{WHERE[source]}: a player picks up only with no legal set "
                             f"({BOOK} 4.4)")
        return
    rank, count = step.cards()
    if counts[rank] < count:
        raise InputError(f"turn {k}: {doing} from {WHERE[source]}, which holds "
                         f"{_holding(R.ranks_in(counts), rank)} ({BOOK} 4.4)")
    if rank in legal:
        return
    if forced is not None:
        raise InputError(f"turn {k}: {doing}, but the game opens with the opener's lowest "
                         f"regular card other than 7, {_a(forced)} ({BOOK} 4.3)")
    if not game.pile:
        raise InputError(f"turn {k}: {doing} on an empty pile, which with opening = every "
                         f"must be started with a regular card other than 7 when "
                         f"{WHERE[source]} holds one ({BOOK} 4.3)")
    raise InputError(f"turn {k}: {doing} {_on_pile(game.pile, rules)}, which takes "
                     f"{_takes(R.deciding_rank(game.pile, rules), rules)} ({BOOK} 2)")


def check_facts(step: Step, move: Move, rules: ShiestaRules) -> None:
    """What the turn's line says beyond the decision (cards drawn or picked up,
    the face-down card, the effects) must be what the engine did (§3, §4.4)."""
    done = read_turn(step.number, turn_text(move, rules), rules)
    wrong = [f for f in ("rank", "count", "source", "drawn")
             if getattr(step, f) is not None and getattr(step, f) != getattr(done, f)]
    if wrong or not step.effects <= done.effects:
        raise InputError(f"turn {step.number}: the record says {step.text!r}, but the replay "
                         f"gives {done.text!r} ({BOOK} {'4.4' if wrong else '3'})")


def _policy_decider(rules: ShiestaRules, policies: Sequence[Policy | str], seed: int,
                    index: int) -> Decider:
    """The policies deciding with game ``index``'s stream, after its deal's draws
    (the shuffle and the starter, §5)."""
    stream = Stream(seed, index)
    R.deal(stream, rules)
    R.draw_starter(stream, rules)
    return Decider(rules, policies, stream)


def _by_rank(log: GameLog) -> GameLog:
    """The log with its dealt cards as ranks, as a record gives them (§1)."""
    def ranks(rows: Iterable[Iterable[int]]) -> list[list[int]]:
        return [[R.rank_of(c) for c in row] for row in rows]
    return dataclasses.replace(log, dealt_down=ranks(log.dealt_down), dealt_up=ranks(log.dealt_up),
                               dealt_hand=ranks(log.dealt_hand),
                               draw_pile=[R.rank_of(c) for c in log.draw_pile])


# ---------------------------------------------------------------------------
# The interface of simkit.bygame.record
# ---------------------------------------------------------------------------

def play(rules: ShiestaRules, policies: Sequence[Policy | str], seed: int, index: int) -> GameLog:
    """Game ``index`` of a run with these rules, policies and seed, exactly as
    ``simkit simulate shiesta`` plays it (:func:`reference.play_game`), its
    dealt cards given as ranks (a card is only its rank once dealt, §1)."""
    return _by_rank(R.play_game(rules, policies, seed, index))


def body(log: GameLog) -> list[str]:
    """The record's lines after the shared header: the deal, the starter, the
    exchange (from the starter clockwise), every turn, the results."""
    n = log.players
    lines = []
    for seat in range(n):
        for what, rows in (("down", log.dealt_down), ("up", log.dealt_up),
                           ("hand", log.dealt_hand)):
            lines.append(f"seat {seat} {what}: {R.format_ranks(rows[seat])}")
    lines.append(f"draw pile: {R.format_ranks(log.draw_pile)}")
    lines.append(f"starter: {log.starter}")
    for i in range(n):
        seat = (log.starter + i) % n
        lines.append(f"seat {seat} puts face up: {R.format_ranks(log.up_after[seat])}")
    for k, move in enumerate(log.moves, start=1):
        lines.append(f"turn {k}: {turn_text(move, log.rules)}")
    lines += [f"{res.key}: {res.write(res.value(log))}" for res in RESULTS]
    return lines


def replay(lines: Sequence[str], rules: ShiestaRules, policies: Sequence[Policy | str] | None,
           seed: int, index: int) -> GameLog:
    """Replay a record's lines (after the shared header) with the reference engine
    and return the completed GameLog.

    The deal is checked (§1), then the exchange and every turn in order
    (:func:`check_turn`, :func:`check_facts`); with ``policies`` the turns the
    record leaves out are played by them (drawing from the stream ``(seed,
    index)`` after its deal, asked at every recorded decision too), without
    them a record that stops early is an error, as are turns after the game
    is over.  Every result the record states must be the replay's.
    """
    rec = read(lines, rules)
    own = None if policies is None else _policy_decider(rules, policies, seed, index)
    script = ScriptDecider(rec, own)
    game = R.Game(rules, (), None, R.Position(rec.down, rec.up, rec.hand, rec.draw, rec.starter),
                  decider=script)
    game.exchange()
    while not game.finished():
        step = script.turns.next(f"at turn {len(game.moves) + 1}, seat {game.player()} "
                                 f"to play")
        if step is None:                                    # the policies play the rest
            assert own is not None                          # without them next() raised
            game.decide = own
            break
        check_turn(game, step)
        script.step = step
        check_facts(step, game.play_turn(), rules)
    script.turns.done(lambda step: over(game, step))
    log = game.run()
    for key, (text, said) in rec.results.items():
        res = _RESULT[key]
        if said != res.value(log):
            raise InputError(f"the record says {key}: {text}, but the replay gives "
                             f"{key}: {res.write(res.value(log))}")
    return log


# ---------------------------------------------------------------------------
# The hand viewer's frames (seeds/records.md)
# ---------------------------------------------------------------------------

class _Logged:
    """A finished game's own decisions, in the interface of :class:`reference.Decider`:
    the engine plays them again to rebuild every state for :func:`frames`.
    ``move`` is the turn about to be played."""

    def __init__(self, log: GameLog) -> None:
        self.log = log
        self.move = Move(0, PICKUP, PICKED, 0)

    def exchange(self, seat: int, cards: Sequence[int]) -> tuple[list[int], list[int]]:
        return list(self.log.up_after[seat]), list(self.log.hand_after[seat])

    def opening(self, seat: int, held: int) -> int:
        return self.move.count

    def play(self, seat: int, counts: Sequence[int], legal: Sequence[int], pile_size: int,
             next_cards: int, draw_empty: bool = False) -> tuple[int, int] | None:
        return None if self.move.source == PICKUP else (self.move.rank, self.move.count)


def _texts(ranks: Sequence[int]) -> list[str]:
    return [RANK_TEXT[r] for r in ranks]


def _snapshot(game: R.Game, caption: str, actor: int | None, ups: Sequence[Sequence[int]],
              hands: Sequence[Sequence[int]], source: int = PICKUP,
              on_pile: bool = False) -> dict[str, Any]:
    """A frame of ``game`` as it stands, with these face-up rows and hands (during
    the exchange some seats have made theirs, the others not yet): the pile
    (marked when cards went on it), the draw pile and the cards out of the
    game, every seat's rows (the one ``actor`` played from, ``source``,
    marked) and the cards each seat has left and its pickups."""
    n = game.n
    pile = [table_row("pile", _texts(game.pile), plural(len(game.pile), "card"), on_pile),
            table_row("draw pile", text=plural(len(game.draw), "card")),
            table_row("out of the game", text=plural(sum(game.out), "card"))]
    if game.rules.seven_reverses:
        pile.append(table_row("direction", text="clockwise" if game.direction > 0 else
                              "anticlockwise"))
    rows = []
    for s in range(n):
        rows += [table_row(f"seat {s} face up", _texts(ups[s]),
                           mark=actor == s and source == UP),
                 table_row(f"seat {s} face down", _texts(game.down[s]),
                           mark=actor == s and source == DOWN)]
    left = [len(hands[s]) + len(ups[s]) + len(game.down[s]) for s in range(n)]
    score = [(f"seat {s}", f"{plural(left[s], 'card')} left, {plural(game.pickups[s], 'pickup')}")
             for s in range(n)]
    return frame(caption, actor, [_texts(h) for h in hands],
                 [area("Pile", pile), area("Rows", rows)], score)


def frames(log: GameLog) -> list[dict[str, Any]]:
    """The hand viewer's frames (:mod:`simkit.bygame.view`): the deal, each seat's
    exchange (§4.2) and every turn, each state the reference engine's as it
    plays the log's decisions again (:class:`_Logged`)."""
    rules, n = log.rules, log.players
    decider = _Logged(log)
    game = R.Game(rules, (), None, R.Position(log.dealt_down, log.dealt_up, log.dealt_hand,
                                              log.draw_pile, log.starter), decider=decider)
    ups = [R.ranks_in(c) for c in game.up]
    hands = [R.ranks_in(c) for c in game.hand]
    out = [_snapshot(game, f"the deal: seat {log.starter} starts", None, ups, hands)]
    for i in range(n):
        seat = (log.starter + i) % n
        ups[seat], hands[seat] = list(log.up_after[seat]), list(log.hand_after[seat])
        out.append(_snapshot(game, f"seat {seat} puts {R.format_ranks(ups[seat])} face up",
                             actor=seat, ups=ups, hands=hands, source=UP))
    game.exchange()
    for k, move in enumerate(log.moves, start=1):
        decider.move = move
        if game.play_turn() != move:
            raise AssertionError(f"turn {k} of the game's log does not replay")
        caption = f"turn {k}: {turn_text(move, rules)}"
        if k == len(log.moves):
            caption += "; " + (f"seat {game.winner} has no cards left and wins"
                               if game.winner >= 0 else
                               "the turn cap is reached: the game is unfinished")
        out.append(_snapshot(game, caption, actor=move.seat,
                             ups=[R.ranks_in(c) for c in game.up],
                             hands=[R.ranks_in(c) for c in game.hand], source=move.source,
                             on_pile=move.is_play
                             and move.rank not in (rules_module.THREE, rules_module.TEN)))
    return out


def result_keys(log: GameLog) -> list[str]:
    """The keys of the result lines at the record's end (after the last turn)."""
    return [res.key for res in RESULTS]


def seat_labels(rules: ShiestaRules) -> list[str]:
    """``seat 0``: every seat plays for itself."""
    return [f"seat {s}" for s in range(rules.players)]
