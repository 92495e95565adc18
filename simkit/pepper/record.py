"""Pepper hand records (seeds/pepper.md 11): the game's lines of a ``simkit
show`` / ``simkit replay`` record (the shared header: :mod:`simkit.bygame.record`),
their reader and their replay by the reference engine.

After the header, one fact per ``key: value`` line (hand 2 of seed 4, three
players)::

    dealer: 2
    seat 0: AS 9C 10C KS JD AC QD QH      (each seat's dealt hand, in deal order)
    ...
    dead: -                               (the dead hand with 2 players, or -)
    auction: 0:3 1:pass 2:pass            (seat:call, or -)
    stuck: no
    contract: 3 by 0                      (or: none)
    trump: D                              (C D H S NT, or -)
    trick 1: 0:JD 1:9D 2:AD -> 0          (seat:card in play order -> winner)
    ...
    tricks by seat: 3 2 3
    tricks by side: 3 2 3
    score by side: +3 +2 +3
    made: yes
    bidder hand: trumps=2 bowers=1 aces=2 voids=0

:func:`play` plays hand ``index`` of a run, :func:`body` writes its lines,
:func:`read` reads lines (as written here or by hand) and :func:`replay`
replays them with the reference engine: a :class:`ScriptDecider` makes the
recorded calls, trump and cards, each checked to be made in turn (the
reference checks they are legal), and the policies, when given, what the
record leaves out (:mod:`simkit.records.script`).  :func:`deal` gives ``simkit
advise --from`` the deal alone.  Anything wrong is an
:class:`~simkit.base.errors.InputError` of one line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pepper.reference import SUIT_WORDS, HandLog, play_with_decider, simulate_hand
from simkit.pepper.reference import deal as deal_cards
from simkit.pepper.reference_players import PolicyDecider
from simkit.pepper.rules import DECK, NO_TRUMP, TRUMP_TEXT, PepperRules
from simkit.pepper.tricks import PlayView, trick_winner
from simkit.policy import Policy
from simkit.records.frames import TrickHand, area, frame, group_label, plural, row, texts
from simkit.records.moves import Bid, Play, tricks_of
from simkit.records.script import Script
from simkit.records.text import key_values, numbers, seat_number, whole, yes_no

UNIT = "hand"
BOOK = "seeds/pepper.md"

#: The lines of a record that state results (every one optional for a replay).
RESULTS = ("stuck", "contract", "tricks by seat", "tricks by side", "score by side", "made",
           "bidder hand")
_FEATURES = ("trumps", "bowers", "aces", "voids")


@dataclass(frozen=True)
class Record:
    """A record's lines as read: the deal, the recorded decisions (``trump`` -1
    when none is named), the winner each trick line names (None where it names
    none) and the results stated, ``{key: (text as written, value read)}``."""

    dealer: int
    hands: tuple[tuple[int, ...], ...]
    dead: tuple[int, ...]
    calls: tuple[Bid, ...]
    trump: int
    plays: tuple[Play, ...]
    winners: tuple[int | None, ...]
    results: dict[str, Any]


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def play(rules: PepperRules, policies: Sequence[Policy], seed: int, index: int) -> HandLog:
    """Hand ``index`` of a run, as ``simkit simulate pepper`` plays it (§1)."""
    return simulate_hand(rules, policies, seed, index)


def outcome(log: HandLog) -> dict[str, str]:
    """The text of every result line of a hand's record, by key."""
    r = log.rules
    return {
        "stuck": "yes" if log.stuck else "no",
        "contract": "none" if log.bidder < 0 else f"{r.bid_text(log.contract)} by {log.bidder}",
        "tricks by seat": " ".join(str(t) for t in log.tricks),
        "tricks by side": " ".join(str(t) for t in log.side_tricks),
        "score by side": " ".join(f"{s:+d}" for s in log.score),
        "made": "yes" if log.made else "no",
        "bidder hand": " ".join(f"{name}={value}"
                                for name, value in zip(_FEATURES, log.features())),
    }


def body(log: HandLog) -> list[str]:
    """The record's lines after the shared header: the deal, the auction and its
    outcome, the trump, every trick with its winner, the results."""
    r = log.rules
    said = outcome(log)
    lines = [f"dealer: {log.dealer}"]
    lines += [f"seat {s}: {DECK.format_hand(log.hands[s])}" for s in range(r.players)]
    lines.append(f"dead: {DECK.format_hand(log.dead) or '-'}")
    lines.append("auction: " + (" ".join(f"{b.seat}:{r.bid_text(b.level)}"
                                         for b in log.auction) or "-"))
    lines += [f"stuck: {said['stuck']}", f"contract: {said['contract']}",
              f"trump: {'-' if log.bidder < 0 else TRUMP_TEXT[log.trump]}"]
    for k, trick in enumerate(tricks_of(log.plays, r.players), start=1):
        text = " ".join(f"{p.seat}:{DECK.text(p.card)}" for p in trick)
        if len(trick) == r.players:
            text += f" -> {trick_winner(trick, log.trump)}"
        lines.append(f"trick {k}: {text}")
    lines += [f"{key}: {said[key]}" for key in RESULTS[2:]]
    return lines


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

def _contract(text: str, rules: PepperRules, what: str) -> tuple[int, int]:
    """``3 by 1`` (the contract and its holder), or ``none``: ``(0, -1)``."""
    t = text.strip().lower()
    if t == "none":
        return 0, -1
    bid, sep, holder = t.partition(" by ")
    if not sep:
        raise InputError(f"bad {what} {t!r}: expected e.g. '3 by 1' or 'none'")
    return rules.parse_bid(bid), seat_number(holder, rules.players, "bidder")


def _features(text: str, rules: PepperRules, what: str) -> tuple[int, ...]:
    """``trumps=N bowers=N aces=N voids=N`` (§8)."""
    feats: dict[str, int | None] = {}
    for item in text.split():
        key, sep, value = item.partition("=")
        feats[key] = whole(value, f"{what} {key}", 0) if sep else None
    if set(feats) != set(_FEATURES) or None in feats.values():
        raise InputError(f"bad {what} {text.strip()!r}: expected trumps=N bowers=N aces=N "
                         f"voids=N")
    return tuple(feats[name] or 0 for name in _FEATURES)       # none is None here


#: How each result line is read: two texts of a line mean the same when they read the same.
READERS: dict[str, Callable[[str, PepperRules, str], object]] = {
    "stuck": lambda t, r, what: yes_no(t, what),
    "contract": _contract,
    "tricks by seat": lambda t, r, what: numbers(t, r.players, what, 0),
    "tricks by side": lambda t, r, what: numbers(t, r.sides, what, 0),
    "score by side": lambda t, r, what: numbers(t, r.sides, what),
    "made": lambda t, r, what: yes_no(t, what),
    "bidder hand": _features,
}


def _fields(lines: Sequence[str], rules: PepperRules) -> tuple[dict[str, str], list[str]]:
    """The ``key: value`` lines by key, and the trick lines' values in order."""
    known = {"dealer", "dead", "auction", "trump", *RESULTS,
             *(f"seat {s}" for s in range(rules.players))}
    fields: dict[str, str] = {}
    tricks: list[str] = []
    for key, value, _ in key_values(lines):
        if key.startswith("trick "):
            number = whole(key[6:], "trick number", 1)
            if number != len(tricks) + 1:
                raise InputError(f"trick lines out of order: trick {number} where trick "
                                 f"{len(tricks) + 1} belongs")
            tricks.append(value)
            continue
        if key not in known:
            raise InputError(f"unknown record line {key!r}")
        if key in fields:
            raise InputError(f"the record has two {key!r} lines")
        fields[key] = value
    return fields, tricks


def _need(fields: dict[str, str], key: str) -> str:
    if key not in fields:
        raise InputError(f"the record has no {key!r} line")
    return fields[key]


def _check_deal(rules: PepperRules, hands: Sequence[Sequence[int]], dead: Sequence[int]) -> None:
    """A deal must give each seat a full hand and use every card once (§1)."""
    for s, hand in enumerate(hands):
        if len(hand) != rules.tricks:
            raise InputError(f"seat {s} holds {len(hand)} cards: each hand has "
                             f"{rules.tricks} with {rules.players} players")
    want_dead = 8 if rules.players == 2 else 0
    if len(dead) != want_dead:
        raise InputError(f"the dead hand has {len(dead)} cards: expected {want_dead} "
                         f"with {rules.players} players")
    seen: dict[int, str] = {}
    for where, hand in [(f"seat {s}", h) for s, h in enumerate(hands)] + [("the dead hand", dead)]:
        for c in hand:
            if c in seen:
                raise InputError(f"{DECK.text(c)} is dealt twice ({seen[c]} and {where})")
            seen[c] = where


def _deal(fields: dict[str, str], rules: PepperRules) -> tuple[int, list[Any], list[Any]]:
    """The dealer, the hands and the dead hand, checked (§1).  A record written by
    hand may leave out the dead hand of a 3- or 4-player game."""
    dealer = seat_number(_need(fields, "dealer"), rules.players, "dealer")
    hands = [DECK.parse_hand(_need(fields, f"seat {s}")) for s in range(rules.players)]
    dead_text = fields.get("dead", "-") if rules.players > 2 else _need(fields, "dead")
    dead = [] if dead_text in ("-", "") else DECK.parse_hand(dead_text)
    _check_deal(rules, hands, dead)
    return dealer, hands, dead


def _calls(text: str, rules: PepperRules) -> list[Bid]:
    """An auction line's calls, ``seat:call`` (``-`` or nothing: none)."""
    calls = []
    for item in ([] if text in ("-", "") else text.split()):
        who, sep, bid = item.partition(":")
        if not sep:
            raise InputError(f"bad auction call {item!r}: "
                             f"expected seat:call, e.g. 2:pass or 3:kubwa")
        calls.append(Bid(seat_number(who, rules.players, "auction seat"), rules.parse_bid(bid)))
    return calls


def _trump(text: str) -> int:
    """A trump named, ``C D H S NT``; ``-`` or nothing: none named (-1)."""
    t = text.upper()
    if t in ("-", ""):
        return -1
    if t not in TRUMP_TEXT:
        raise InputError(f"bad trump {t!r}: expected C, D, H, S, NT or -")
    return TRUMP_TEXT.index(t)


def _tricks(trick_lines: Sequence[str], rules: PepperRules) -> tuple[list[Play], list[Any]]:
    """The trick lines' plays in order, and the winner each names (or None)."""
    plays: list[Play] = []
    winners: list[int | None] = []
    for k, text in enumerate(trick_lines, start=1):
        cards, arrow, winner = text.partition("->")
        winners.append(seat_number(winner, rules.players, "trick winner") if arrow else None)
        for item in cards.split():
            who, sep, card = item.partition(":")
            if not sep:
                raise InputError(f"bad play {item!r} in trick {k}: expected seat:card, e.g. 2:JH")
            plays.append(Play(seat_number(who, rules.players, "playing seat"), DECK.parse(card)))
    return plays, winners


def read(lines: Sequence[str], rules: PepperRules) -> Record:
    """Read a record's lines (after the shared header): their form, the deal (§1)
    and the values they state.  Nothing is replayed (see :func:`replay`)."""
    fields, trick_lines = _fields(lines, rules)
    dealer, hands, dead = _deal(fields, rules)
    calls = _calls(fields.get("auction", ""), rules)
    trump = _trump(fields.get("trump", "-"))
    plays, winners = _tricks(trick_lines, rules)
    results = {key: (fields[key], READERS[key](fields[key], rules, key))
               for key in RESULTS if key in fields}
    return Record(dealer=dealer, hands=tuple(map(tuple, hands)), dead=tuple(dead),
                  calls=tuple(calls), trump=trump, plays=tuple(plays), winners=tuple(winners),
                  results=results)


def parse(lines: Sequence[str], rules: PepperRules) -> HandLog:
    """A record's lines read back into a HandLog as recorded: every line must be
    there.  Nothing is replayed: use :func:`replay` to check the moves and
    recompute the results."""
    fields, _ = _fields(lines, rules)
    for key in ("dead", "auction", "trump", *RESULTS):
        _need(fields, key)
    rec = read(lines, rules)
    res = {key: value for key, (_, value) in rec.results.items()}
    contract, bidder = res["contract"]
    trumps, bowers, aces, voids = res["bidder hand"]
    return HandLog(rules=rules, dealer=rec.dealer, hands=list(map(list, rec.hands)),
                   dead=list(rec.dead), auction=list(rec.calls), stuck=res["stuck"],
                   contract=contract, bidder=bidder, trump=rec.trump, plays=list(rec.plays),
                   tricks=res["tricks by seat"], side_tricks=res["tricks by side"],
                   score=res["score by side"], made=res["made"], trumps_held=trumps,
                   bowers_held=bowers, aces_outside=aces, voids_outside=voids)


def deal(lines: Sequence[str], rules: PepperRules) -> tuple[int, list[str]]:
    """The dealer and each seat's cards (as text) as the lines give them, for
    ``advise --from``: the deal is checked, nothing is replayed."""
    fields, _ = _fields(lines, rules)
    dealer, hands, _ = _deal(fields, rules)
    return dealer, [DECK.format_hand(h) for h in hands]


# ---------------------------------------------------------------------------
# Replaying
# ---------------------------------------------------------------------------

class ScriptDecider:
    """The record's calls, trump and cards, in the interface of the reference's
    :class:`PolicyDecider`, each checked to come from the seat whose turn it
    is; the legality of each is the reference's check.  ``policies`` (a
    :class:`PolicyDecider`, or None) make what the record leaves out and are
    asked at every recorded decision too (:class:`simkit.records.script.Script`)."""

    def __init__(self, rules: PepperRules, rec: Record, policies: PolicyDecider | None = None):
        self.rules = rules
        self.calls: Script[Bid] = Script(rec.calls, policies)
        self.trumps: Script[int] = Script([rec.trump] if rec.trump >= 0 else [], policies)
        self.plays: Script[Play] = Script(rec.plays, policies)

    @staticmethod
    def _take(script: Script[Any], question: Callable[[PolicyDecider], int], where: str,
              seat: int, name: Callable[[Any], str]) -> tuple[bool, Any]:
        """:meth:`Script.take`, a recorded move checked to be by ``seat`` (``name(move)``
        names it in the error)."""
        recorded, move = script.take(question, where)
        if recorded and move.seat != seat:
            raise InputError(f"{name(move)} is by seat {move.seat}, but it is seat {seat}'s "
                             f"turn")
        return recorded, move

    def bid(self, seat: int, hand: Sequence[int], calls: Sequence[Bid], high: int) -> int:
        recorded, b = self._take(self.calls, lambda p: p.bid(seat, hand, calls, high),
                                 f"at auction call {len(calls) + 1}, seat {seat} to speak",
                                 seat, lambda _: f"auction call {self.calls.taken}")
        level: int = b.level if recorded else b
        return level

    def auction_done(self) -> None:
        """The auction is over: the record must have no call left."""
        self.calls.done(lambda _: f"the auction is over after call {self.calls.taken}, "
                                  f"but the record has {len(self.calls.moves)} calls")

    def trump(self, seat: int, hand: Sequence[int], contract: int) -> int:
        self.auction_done()
        if not self.trumps.moves and self.plays.moves:
            raise InputError(f"seat {seat} won the bid but the record names no trump")
        _, trump = self.trumps.take(lambda p: p.trump(seat, hand, contract),
                                    f"at the trump, which seat {seat} names")
        named: int = trump
        return named

    def play(self, seat: int, hand: Sequence[int], trick: Sequence[Play], view: PlayView,
             trump: int) -> int:
        number = len(view.plays) // self.rules.players + 1
        recorded, p = self._take(self.plays, lambda d: d.play(seat, hand, trick, view, trump),
                                 f"at trick {number}, seat {seat} to play", seat,
                                 lambda p: f"play {self.plays.taken} ({DECK.text(p.card)})")
        card: int = p.card if recorded else p
        return card

    def finish(self, log: HandLog) -> None:
        """The hand is over: the record must have nothing left."""
        self.auction_done()
        if log.bidder < 0 and (self.trumps.moves or self.plays.moves):
            raise InputError("everyone passed and the hand is thrown in, "
                             "but the record names a trump or has plays")
        self.plays.done(lambda _: f"all {self.rules.tricks} tricks are over after play "
                                  f"{self.plays.taken}, but the record has "
                                  f"{len(self.plays.moves)} plays")


def replay(lines: Sequence[str], rules: PepperRules, policies: Sequence[Policy] | None,
           seed: int, index: int) -> HandLog:
    """Replay a record's lines under ``rules`` and return the completed HandLog.

    The deal is checked (full hands, each card once), then every call, the
    trump and every card are checked to be legal and made in turn, and the
    auction and play must be complete with nothing left over.  Contract,
    tricks, scores and features are recomputed; the results the record states
    (all optional) must agree.  Any problem raises InputError.

    With ``policies`` the decisions the record leaves out (it may stop after
    the deal, or anywhere in the auction or play) are made by them, drawing
    from stream ``(seed, index)`` after a deal from it, as hand ``index`` of a
    run (:func:`simulate_hand`) would: a run's hand cut short and played out
    by the same policies comes out the same.
    """
    rec = read(lines, rules)
    own = None
    if policies is not None:
        stream = Stream(seed, index)
        deal_cards(stream, rules, index % rules.players)      # the run's draws before play
        own = PolicyDecider(rules, policies, stream)
    script = ScriptDecider(rules, rec, own)
    log = play_with_decider(rules, rec.dealer, [list(h) for h in rec.hands], list(rec.dead), script)
    script.finish(log)
    for k, (trick, w) in enumerate(zip(tricks_of(log.plays, rules.players), rec.winners),
                                   start=1):
        if w is not None and w != trick_winner(trick, log.trump):
            raise InputError(f"trick {k}: the record says seat {w} wins, "
                             f"but seat {trick_winner(trick, log.trump)} does")
    said = outcome(log)
    for key, (text, value) in rec.results.items():
        if READERS[key](said[key], rules, key) != value:
            raise InputError(f"the record says {key}: {text}, but the replay gives "
                             f"{said[key]}")
    return log


# ---------------------------------------------------------------------------
# The hand viewer's frames (seeds/records.md)
# ---------------------------------------------------------------------------

def _by_suit(card: int) -> tuple[int, int]:
    """A hand's order on the screen: by suit (C D H S), high cards first."""
    return DECK.suit(card), -DECK.position(card)


def _contract_text(log: HandLog) -> str:
    if log.thrown_in:
        return "none: thrown in"
    return f"{log.rules.bid_text(log.contract)} by seat {log.bidder}" + \
        (" (stuck)" if log.stuck else "")


def _auction_end(log: HandLog) -> str:
    """What the last call settles (§3.1, §3.2)."""
    if log.thrown_in:
        return "everyone has passed: the hand is thrown in"
    if log.stuck:
        return f"everyone has passed: seat {log.bidder}, the dealer, is stuck with 1"
    return f"seat {log.bidder} wins the auction with {log.rules.bid_text(log.contract)}"


def frames(log: HandLog) -> list[dict[str, Any]]:
    """The hand viewer's frames (:mod:`simkit.bygame.view`), from the log: the deal, then
    one frame per call, the trump and each card, each with the hands, the
    auction, the contract once known, the dead hand, the trick on the table,
    the tricks won and each side's tricks (with its score once the hand is over)."""
    r, n = log.rules, log.rules.players
    table = TrickHand(log.hands, DECK.text, _by_suit)
    sides = [[s for s in range(n) if r.side_of(s) == k] for k in range(r.sides)]
    labels = [group_label("side", k, seats) if len(seats) > 1 else f"seat {k}"
              for k, seats in enumerate(sides)]
    dead = area("Dead hand", [row("dead", texts(log.dead, DECK.text, _by_suit))]) \
        if log.dead else None
    known: dict[str, str] = {}              # the contract's lines, once known
    out: list[dict[str, Any]] = []

    def snap(caption: str, actor: int, over: bool = False) -> None:
        contract = area("Contract", [row(k, text=v) for k, v in known.items()]) \
            if known else None
        score = [(labels[k], plural(sum(table.won[s] for s in seats), "trick")
                  + (f", score {log.score[k]:+d}" if over else ""))
                 for k, seats in enumerate(sides)]
        out.append(frame(caption, actor, table.hands(),
                         [table.auction(), contract, dead, table.table(), table.tricks_won()],
                         score))

    if not log.auction and not log.thrown_in:           # a declared contract (§9)
        known["contract"] = _contract_text(log)
    snap(f"the deal: seat {log.dealer} deals", log.dealer)
    for k, bid in enumerate(log.auction, start=1):
        said = r.bid_text(bid.level)
        table.call(bid.seat, said)
        caption = f"seat {bid.seat} " + ("passes" if bid.level == 0 else f"bids {said}")
        if k == len(log.auction):
            caption += "; " + _auction_end(log)
            known["contract"] = _contract_text(log)
        snap(caption, bid.seat, over=log.thrown_in and k == len(log.auction))
    if log.thrown_in:
        return out
    table.moved = None
    known["trump"] = TRUMP_TEXT[log.trump]
    snap(f"seat {log.bidder} names " + ("no trump" if log.trump == NO_TRUMP else
                                        f"{SUIT_WORDS[log.trump]} trump"), log.bidder)
    tricks = tricks_of(log.plays, n)
    for number, trick in enumerate(tricks, start=1):
        for k, p in enumerate(trick):
            table.play(p.seat, p.card)
            caption = f"seat {p.seat} {'leads' if k == 0 else 'plays'} {DECK.text(p.card)}"
            if k == n - 1:
                table.win(trick_winner(trick, log.trump))
                caption += f", seat {table.winner} wins trick {number}"
            over = number == len(tricks) and k == n - 1
            if over:
                caption += "; the contract is " + ("made" if log.made else "lost")
            snap(caption, p.seat, over)
    return out


def result_keys(log: HandLog) -> list[str]:
    """The keys of the result lines at the record's end (after the last trick)."""
    return [k for k in RESULTS if k not in ("stuck", "contract")]


def seat_labels(rules: PepperRules) -> list[str]:
    """``seat 0``, with the seat's side where two seats share one (4 players)."""
    return [f"seat {s}" + (f" (side {rules.side_of(s)})" if rules.sides < rules.players else "")
            for s in range(rules.players)]
