"""Pitch hand records: one hand as plain text that people can read and write,
replayed by the reference engine (seeds/pitch.md 9): its text, its reader and
its replay.

A record is the shared header (the game, the rules, the seed and hand index
of a run, each seat's policy: written and read by ``simkit.bygame.record``) and a
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
here or by hand) and replays them with the reference engine, a
:class:`ScriptDecider` making the recorded decisions, each checked to be
legal in turn, and the policies, when given, what the record leaves out
(:mod:`simkit.records.script`); every result stated is checked against the
replay's.  :func:`deal` gives ``simkit advise --from`` the deal alone.
Anything wrong is an :class:`~simkit.base.errors.InputError` of one line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, TypeVar

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pitch.reference import UNITS_PER_DOLLAR, HandLog, bid_refusal, decided_hand, play_hand
from simkit.pitch.reference_cards import deal as deal_cards
from simkit.pitch.reference_cards import game_points_of, suit_of, trick_winner
from simkit.pitch.reference_players import PolicyDecider
from simkit.pitch.rules import DECK, HAND_SIZE, MOON, PASS, TRUMP_TEXT, PitchRules
from simkit.policy import Policy
from simkit.records.frames import TrickHand, area, frame, plural, row
from simkit.records.moves import Bid, Play
from simkit.records.script import Script
from simkit.records.text import key_values, numbers, seat_list, seat_number, seat_or_nobody, yes_no

T = TypeVar("T")

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
SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")


@dataclass(frozen=True)
class Record:
    """A record's body as read: the deal, the recorded decisions, and the
    results it states (``results[key] = (text as written, value read)``)."""

    dealer: int
    hands: tuple[tuple[int, ...], ...]
    calls: tuple[Bid, ...]
    plays: tuple[Play, ...]
    winners: tuple[int | None, ...]             # per recorded trick; None: not stated
    results: dict[str, Any]


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def play(rules: PitchRules, policies: Sequence[Policy], seed: int, index: int) -> HandLog:
    """Hand ``index`` of a run with these rules, policies (one per seat) and seed,
    as ``simkit simulate pitch`` plays it (dealt by seat ``index mod N``, §1),
    by the reference engine."""
    return play_hand(rules, policies, seed, index, index % rules.players)


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
# Reading values (simkit.records.text's readers; each raises InputError saying what is accepted)
# ---------------------------------------------------------------------------

def _contract(text: str, rules: PitchRules, what: str) -> int:
    """A bid level; ``none`` (or ``-``) for a thrown-in hand: 0."""
    t = text.strip().lower()
    if t in ("none", "-"):
        return PASS
    try:
        return rules.parse_bid(t)
    except InputError as err:
        raise InputError(f"{what}: {err}") from None


def _trump(text: str, rules: PitchRules, what: str) -> int:
    t = text.strip().upper()
    if t not in TRUMP_TEXT:
        raise InputError(f"bad {what} {text.strip()!r}: expected C, D, H, S or - (thrown in)")
    return TRUMP_TEXT.index(t)


def _amount(item: str, what: str) -> Decimal:
    m = re.fullmatch(r"([+-]?)\$?([0-9]+(?:\.[0-9]*)?|\.[0-9]+)", item)
    if not m:
        raise InputError(f"bad {what} {item!r}: expected dollars, e.g. +$0.15 or -$1.0333")
    return -Decimal(m.group(2)) if m.group(1) == "-" else Decimal(m.group(2))


def _amounts(text: str, rules: PitchRules, what: str) -> tuple[Any, ...]:
    """One amount of money per seat, separated by spaces."""
    items = text.split()
    if len(items) != rules.players:
        raise InputError(f"bad {what} {text.strip()!r}: expected {rules.players} amounts of "
                         f"money, one per seat")
    return tuple(_amount(item, what) for item in items)


def _flag(text: str, rules: PitchRules, what: str) -> bool:
    return yes_no(text, what)


def _someone(text: str, rules: PitchRules, what: str) -> int:
    """A seat, or ``-`` (also ``none``) for nobody: -1."""
    return seat_or_nobody(text, rules.players, what)


def _numbers(text: str, rules: PitchRules, what: str) -> tuple[Any, ...]:
    """One whole number per seat."""
    return tuple(numbers(text, rules.players, what))


def _seats(text: str, rules: PitchRules, what: str) -> int:
    """Seats separated by spaces, or ``-`` for nobody, as a bitmask."""
    mask = 0
    for s in seat_list(text, rules.players, what):
        mask |= 1 << s
    return mask


#: How each result line is read: two texts of a line mean the same when they read the same.
READERS: dict[str, Callable[[str, PitchRules, str], object]] = {
    "stuck": _flag, "pitcher": _someone, "contract": _contract, "trump": _trump,
    "tricks by seat": _numbers, "game points by seat": _numbers, "high": _someone,
    "low": _someone, "jack": _someone, "game won by": _seats,
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


def _reading(key: str, read: Callable[..., T], *args: Any) -> T:
    """``read(*args)``, an error naming the record line it comes from."""
    try:
        return read(*args)
    except InputError as err:
        raise InputError(f"{key}: {err}") from None


def _call(item: str, rules: PitchRules) -> Bid:
    who, sep, call = item.partition(":")
    if not sep:
        raise InputError(f"bad call {item!r}: expected seat:call, e.g. 1:pass, 2:3 or 3:moon")
    return Bid(seat_number(who, rules.players), rules.parse_bid(call))


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
        who, sep, card = item.partition(":")
        if not sep:
            raise InputError(f"bad play {item!r}: expected seat:card, e.g. 2:JH or 0:10S")
        plays.append(Play(seat_number(who, rules.players), DECK.parse(card)))
    if len(plays) > n or (len(plays) < n and not last):
        raise InputError(f"{len(plays)} plays, but a trick is one card from each of the {n} "
                         f"seats (seeds/pitch.md 3)")
    if not arrow:
        return plays, None
    if len(plays) < n:
        raise InputError(f"it names a winner but has only {len(plays)} of its {n} plays")
    return plays, seat_number(winner, rules.players, "winner")


def _check_deal(hands: Sequence[Sequence[int]]) -> None:
    """Six cards to each seat, no card twice (§1)."""
    holder: dict[int, int] = {}
    for s, hand in enumerate(hands):
        if len(hand) != HAND_SIZE:
            raise InputError(f"seat {s} holds {len(hand)} cards: each seat is dealt "
                             f"{HAND_SIZE} (seeds/pitch.md 1)")
        for c in hand:
            if c in holder:
                raise InputError(f"{DECK.text(c)} is dealt twice, to seat {holder[c]} and "
                                 f"seat {s} (seeds/pitch.md 1)")
            holder[c] = s


def read(lines: Sequence[str], rules: PitchRules) -> Record:
    """Read a record's body lines: their form, the deal (§1) and the values
    stated.  Nothing is replayed (see :func:`replay`)."""
    fields, trick_lines = _lines(lines, rules)
    for key in ("dealer", *(f"seat {s}" for s in range(rules.players))):
        if key not in fields:
            raise InputError(f"the record has no {key!r} line: a record gives the dealer and "
                             f"every seat's hand")
    dealer = seat_number(fields["dealer"], rules.players, "dealer")
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
    results = {key: (fields[key], READERS[key](fields[key], rules, key))
               for key in READERS if key in fields}
    return Record(dealer=dealer, hands=tuple(tuple(h) for h in hands), calls=tuple(calls),
                  plays=tuple(plays), winners=tuple(winners), results=results)


# ---------------------------------------------------------------------------
# Replaying
# ---------------------------------------------------------------------------

def _a_suit(suit: int) -> str:
    return "a " + SUIT_WORDS[suit][:-1]


class ScriptDecider:
    """The record's calls and cards, in the interface of the reference's
    :class:`PolicyDecider`, each checked to be made in turn and to be legal
    (§2, §3) before the hand goes on; at each lead the winner the record names
    for the trick before is checked.  ``policies`` (a :class:`PolicyDecider`,
    or None) make what the record leaves out and are asked at every recorded
    decision too (:class:`simkit.records.script.Script`): a random seat's draw for a
    recorded call or card is made and dropped (§8.1)."""

    def __init__(self, rules: PitchRules, rec: Record, policies: PolicyDecider | None = None):
        self.rules, self.hands, self.winners = rules, [list(h) for h in rec.hands], rec.winners
        self.calls = Script(rec.calls, policies)
        self.plays = Script(rec.plays, policies)
        self.cut_auction = False               # the policies finished the auction

    def _auction_done(self) -> None:
        """The auction is over: the record has no call left, and no play after a cut auction."""
        self.calls.done(lambda _: f"the auction is over after call {self.calls.taken}, but "
                                  f"the record has {len(self.calls.moves)} calls "
                                  f"(seeds/pitch.md 2)")
        if self.cut_auction and self.plays.moves:
            raise InputError(f"the record's auction stops after call {len(self.calls.moves)}, "
                             f"before it ends, but the record has tricks")

    def _check_winner(self, k: int, winner: int) -> None:
        """Trick ``k`` was won by ``winner``: the record must not name another."""
        said = self.winners[k - 1] if k <= len(self.winners) else None
        if said is not None and said != winner:
            raise InputError(f"trick {k}: the record says seat {said} wins it, but seat "
                             f"{winner} does (seeds/pitch.md 3)")

    def _whereabouts(self, card: int, plays: Sequence[Play]) -> str:
        """Where a card that a seat does not hold is: played, dealt to another, not dealt."""
        n = self.rules.players
        for i, p in enumerate(plays):
            if p.card == card:
                return f"seat {p.seat} already played it in trick {i // n + 1}"
        for s, hand in enumerate(self.hands):
            if card in hand:
                return f"it was dealt to seat {s}"
        return "it was not dealt"

    def bid(self, seat: int, hand: Sequence[int], options: Sequence[int],
            is_dealer: bool = False, high: int = PASS) -> int:
        """The next recorded call, checked to be by ``seat`` and among ``options`` (§2)."""
        k = self.calls.taken + 1
        recorded, b = self.calls.take(lambda p: p.bid(seat, hand, options, is_dealer, high),
                                      f"at auction call {k}, seat {seat} to speak")
        if not recorded:
            self.cut_auction = True
            answer: int = b                           # the policies' call
            return answer
        if b.seat != seat:
            raise InputError(f"auction call {k} is by seat {b.seat}, but it is seat {seat}'s "
                             f"turn (seeds/pitch.md 2)")
        if b.level not in options:
            call = "passes" if b.level == PASS else f"bids {self.rules.bid_text(b.level)}"
            raise InputError(f"auction call {k}: seat {seat} {call}, but "
                             f"{bid_refusal(self.rules, is_dealer, high, b.level)}")
        level: int = b.level
        return level

    def play(self, seat: int, hand: Sequence[int], legal: Sequence[int], trick: Sequence[Play],
             plays: Sequence[Play], trump: int | None, pitcher: int) -> int:
        """The next recorded card, checked to be by ``seat``, held and legal (§3);
        at each lead, the winner the record names for the trick before is checked."""
        n = self.rules.players
        t = len(plays) // n + 1                       # the trick being played
        if not plays:
            self._auction_done()
        elif not trick:
            assert trump is not None, "the first lead names trumps"
            self._check_winner(t - 1, trick_winner(plays[-n:], trump))
        recorded, p = self.plays.take(
            lambda d: d.play(seat, hand, legal, trick, plays, trump=trump, pitcher=pitcher),
            f"at trick {t}, seat {seat} to play")
        if not recorded:
            answer: int = p                           # the policies' card
            return answer
        card = DECK.text(p.card)
        if p.seat != seat:
            why = ("the pitcher leads the first trick" if not plays else
                   f"the winner of trick {t - 1} leads" if not trick else
                   "play goes clockwise")
            raise InputError(f"trick {t}: the record has seat {p.seat} play {card}, but it is "
                             f"seat {seat}'s turn: {why} (seeds/pitch.md 3)")
        if p.card not in hand:
            raise InputError(f"trick {t}: seat {seat} plays {card}, but "
                             f"{self._whereabouts(p.card, plays)}: a seat plays only the cards "
                             f"it holds (seeds/pitch.md 3)")
        if p.card not in legal:
            led = suit_of(trick[0].card)
            may = _a_suit(led) + ("" if led == trump else " or a trump")
            raise InputError(f"trick {t}: seat {seat} plays {card} but holds {_a_suit(led)}, "
                             f"the suit led: it must play {may} (seeds/pitch.md 3)")
        played: int = p.card
        return played

    def finish(self, log: HandLog) -> None:
        """The hand is over: the record must have nothing left, and the winner it
        names for the last trick must be right."""
        self._auction_done()
        if log.thrown_in:
            if self.plays.moves:
                raise InputError("everyone passed and the hand is thrown in (all_pass = "
                                 "redeal), but the record has tricks (seeds/pitch.md 2)")
            return
        self._check_winner(len(log.winners), log.winners[-1])
        self.plays.done(lambda _: f"the hand is over after trick {len(log.winners)}, but the "
                                  f"record goes on to trick "
                                  f"{self.plays.taken // self.rules.players + 1} "
                                  f"(seeds/pitch.md 3)")


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
    own = None
    if policies is not None:
        stream = Stream(seed, index)
        deal_cards(stream, rules.players, rec.dealer)  # the run's deal draws first; unused
        own = PolicyDecider(rules, policies, stream)
    script = ScriptDecider(rules, rec, own)
    log = decided_hand(rec.hands, rec.dealer, rules, script)
    script.finish(log)
    said = outcome(log)
    for key, (text, value) in rec.results.items():
        if READERS[key](said[key], rules, key) != value:
            raise InputError(f"the record says {key} {text}, but the replay gives {said[key]}")
    return log


def deal(lines: Sequence[str], rules: PitchRules) -> tuple[int, list[str]]:
    """The dealer and each seat's dealt cards (as text) as the lines give them,
    for ``simkit advise --from``: the lines are read and the deal checked (§1),
    nothing is replayed."""
    rec = read(lines, rules)
    return rec.dealer, [DECK.format_hand(h) for h in rec.hands]


# ---------------------------------------------------------------------------
# The hand viewer's frames (seeds/records.md)
# ---------------------------------------------------------------------------

def _by_suit(card: int) -> tuple[int, int]:
    """A hand's order on the screen: by suit (C D H S), high cards first."""
    return DECK.suit(card), -DECK.position(card)


def _call_text(rules: PitchRules, level: int) -> str:
    return {PASS: "passes", MOON: "shoots the moon"}.get(level, f"bids {rules.bid_text(level)}")


def _auction_end(log: HandLog) -> str:
    """What the last call settles (§2)."""
    if log.thrown_in:
        return "everyone has passed: the hand is thrown in"
    said = "the moon" if log.moon else log.rules.bid_text(log.contract)
    return f"seat {log.pitcher} pitches for {said}" + \
        (", stuck as the dealer" if log.stuck else "")


def _points_area(log: HandLog) -> dict[str, Any]:
    """Who won High, Low, Jack and Game (§4)."""
    def who(seats: Iterable[int]) -> str:
        return ", ".join(f"seat {s}" for s in seats) or "nobody"
    return area("Points", [
        row("high", text=who([log.high] if log.high >= 0 else [])),
        row("low", text=who([log.low] if log.low >= 0 else [])),
        row("jack", text=who([log.jack] if log.jack >= 0 else [])),
        row("game", text=who(s for s in range(log.players) if log.game_winners >> s & 1))])


def frames(log: HandLog) -> list[dict[str, Any]]:
    """The hand viewer's frames (:mod:`simkit.bygame.view`), from the log: the deal, then
    one frame per call and each card, each with the hands, the auction, the
    pitcher, contract and trump once known, the trick on the table, the tricks
    won and each seat's tricks and game points captured (with its points and
    score once the hand is over, and who won High, Low, Jack and Game)."""
    r, n = log.rules, log.players
    table = TrickHand(log.hands, DECK.text, _by_suit)
    captured = [0] * n                          # game points in the tricks won (§4)
    known: dict[str, str] = {}                  # the contract's lines, once known
    out: list[dict[str, Any]] = []

    def snap(caption: str, actor: int, over: bool = False) -> None:
        contract = area("Contract", [row(k, text=v) for k, v in known.items()]) \
            if known else None
        score = [(f"seat {s}", f"{plural(table.won[s], 'trick')}, "
                  f"{plural(captured[s], 'game point')}"
                  + (f", {plural(log.points[s], 'point')}, score {log.score[s]:+d}"
                     if over else "")) for s in range(n)]
        points = _points_area(log) if over and not log.thrown_in else None
        out.append(frame(caption, actor, table.hands(),
                         [table.auction(), contract, table.table(), table.tricks_won(), points],
                         score))

    snap(f"the deal: seat {log.dealer} deals", log.dealer)
    for k, bid in enumerate(log.auction, start=1):
        table.call(bid.seat, r.bid_text(bid.level))
        caption = f"seat {bid.seat} {_call_text(r, bid.level)}"
        last = k == len(log.auction)
        if last:
            caption += "; " + _auction_end(log)
            known["pitcher"] = "nobody: thrown in" if log.thrown_in else f"seat {log.pitcher}"
            if not log.thrown_in:
                known["contract"] = r.bid_text(log.contract)
        snap(caption, bid.seat, over=last and log.thrown_in)
    if log.thrown_in:
        return out
    for number, (trick, winner) in enumerate(zip(log.tricks_played(), log.winners), start=1):
        for k, p in enumerate(trick):
            table.play(p.seat, p.card)
            caption = f"seat {p.seat} {'plays' if k else 'leads'} {DECK.text(p.card)}"
            if number == 1 and k == 0:
                known["trump"] = TRUMP_TEXT[log.trump]
                caption = f"seat {p.seat} pitches {DECK.text(p.card)}: " \
                    f"{SUIT_WORDS[log.trump]} are trump"
            if k == n - 1:
                table.win(winner)
                captured[winner] += sum(game_points_of(q.card) for q in trick)
                caption += f", seat {winner} wins trick {number}"
            over = number == len(log.winners) and k == n - 1
            if over:
                caption += "; the bid is " + ("made" if log.made else "lost")
            snap(caption, p.seat, over)
    return out


def result_keys(log: HandLog) -> list[str]:
    """The keys of the result lines at the record's end (after the last trick)."""
    return list(PLAY_RESULTS)


def seat_labels(rules: PitchRules) -> list[str]:
    """``seat 0``: every seat plays for itself."""
    return [f"seat {s}" for s in range(rules.players)]
