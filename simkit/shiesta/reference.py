"""Shiesta, the reference engine: ``seeds/shiesta.md`` as executable Python.

This module is the rule book in code.  It is written to be read, not to be
fast: every function implements one point of the rule book and names the
section it comes from (``§4`` means section 4 of ``seeds/shiesta.md``).  The
fast engine (``simkit/shiesta/kernel.py``) is written independently from the
same rule book and must agree with this one game for game and move for move,
including the order in which random numbers are drawn; the differential
tests hold the two together.  Nothing here uses numba.

Encoding (``simkit.shiesta.rules``): suits do not matter, so once dealt a
card is only its rank index 0..12 (2, 3, 4, ..., 10, J, Q, K, A); card id
``c`` of the ``52 × decks`` has rank ``c % 13``.  A hand or a face-up row is
kept as 13 counts (how many cards of each rank), a face-down row as its ranks
in the order dealt, the draw pile as its ranks in drawing order, the discard
pile as its ranks from the bottom up.

A turn is recorded as a :class:`Move`; its :meth:`Move.code` is
``((seat * 4 + source) * 16 + rank) * 128 + count`` with the sources
``HAND``, ``UP``, ``DOWN`` (a play) and ``PICKUP``.

Layout: constants; records (Move, GameLog); §1 the deal and the starter;
§2 legality; §3-§5 the game (:class:`Position`, :class:`Game`); play_game.
The §6 policies (:class:`Decider`) are ``simkit/shiesta/reference_players.py``;
a game record's text and its replay ``simkit/shiesta/record.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from simkit.base import drama
from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.policy import Policy
from simkit.shiesta.reference_players import STRENGTH as STRENGTH
from simkit.shiesta.reference_players import STRENGTH_ORDER as STRENGTH_ORDER
from simkit.shiesta.reference_players import Decider, Decides
from simkit.shiesta.reference_players import heuristic_exchange as heuristic_exchange
from simkit.shiesta.reference_players import heuristic_play as heuristic_play
from simkit.shiesta.reference_players import play_options as play_options
from simkit.shiesta.reference_players import random_exchange as random_exchange
from simkit.shiesta.reference_players import special_count as special_count
from simkit.shiesta.reference_players import subsets as subsets
from simkit.shiesta.rules import (
    RANK_TEXT,
    REGULAR,
    ROW,
    SEVEN,
    TEN,
    THREE,
    TWO,
    AfterBurn,
    AfterPickup,
    Higher,
    Opening,
    ShiestaRules,
    Starter,
    Two,
)

RANKS = 13
#: Sources of a move (``Move.source``); the first three are plays.
HAND, UP, DOWN, PICKUP = 0, 1, 2, 3
SOURCE_TEXT = ("hand", "face-up", "face-down", "pickup")
#: ``Move.rank`` of an ordinary pickup (no legal set, or forced by a 3).
PICKED = 15
#: The largest count a move code holds.
MAX_CODE_COUNT = 127
#: The specials a record counts (§5), in record order.
RECORDED = ((TWO, "2"), (THREE, "3"), (SEVEN, "7"), (TEN, "10"))
#: Ranks that may open a pile (§4.3): the regular ranks other than 7, low to high.
OPENERS = tuple(r for r in REGULAR if r != SEVEN)


def rank_of(card: int) -> int:
    """The rank index of card id ``card`` (§1): ``card mod 13``."""
    return card % RANKS


def counts_of(ranks: Iterable[int]) -> list[int]:
    """13 counts, one per rank, of a collection of ranks (or card ids)."""
    out = [0] * RANKS
    for c in ranks:
        out[rank_of(c)] += 1
    return out


def ranks_in(counts: Sequence[int]) -> list[int]:
    """The ranks of a counts list, one per card, increasing."""
    return [r for r in range(RANKS) for _ in range(counts[r])]


def parse_ranks(text: str) -> list[int]:
    """``"4 4 10 K"`` -> ``[2, 2, 8, 11]`` (for hand-written positions)."""
    out = []
    for word in text.split():
        w = word.upper()
        if w not in RANK_TEXT:
            raise InputError(f"bad rank {word!r}: expected one of {' '.join(RANK_TEXT)}")
        out.append(RANK_TEXT.index(w))
    return out


def format_ranks(ranks: Iterable[int]) -> str:
    return " ".join(RANK_TEXT[rank_of(r)] for r in ranks) or "-"


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Move:
    """One turn (§4.4).

    A play (``source`` ``HAND``, ``UP`` or ``DOWN``) puts ``count`` cards of
    ``rank`` on the pile; ``drawn`` cards were then drawn (plays from the
    hand only).  A pickup (``source == PICKUP``) took ``count`` cards into
    the hand; ``rank`` is ``PICKED`` for an ordinary pickup, or the rank of
    the face-down card that turned out illegal (``count`` includes it).
    """

    seat: int
    source: int
    rank: int
    count: int
    drawn: int = 0

    @property
    def is_play(self) -> bool:
        return self.source != PICKUP

    def code(self) -> int:
        """``((seat * 4 + source) * 16 + rank) * 128 + min(count, 127)``."""
        return ((self.seat * 4 + self.source) * 16 + self.rank) * 128 \
            + min(self.count, MAX_CODE_COUNT)


@dataclass
class GameLog:
    """Everything that happened in one game (the §5 record, and more).

    ``dealt_down``, ``dealt_up`` and ``dealt_hand`` are each seat's dealt
    cards in the order received (card ids; ranks for a hand-written
    position), ``draw_pile`` the undealt cards in drawing order.
    ``up_after`` and ``hand_after`` are each seat's face-up row and hand
    after the exchange (ranks, increasing).  ``opener`` made turn 1; the
    seats from the starter up to it (clockwise, exclusive) were skipped.
    ``moves`` lists every turn in order; ``tops[k]`` is the bitmask of the
    seats holding the fewest cards after turn ``k + 1`` (who led: :attr:`who_led`).
    """

    rules: ShiestaRules
    starter: int
    dealt_down: list[list[int]]
    dealt_up: list[list[int]]
    dealt_hand: list[list[int]]
    draw_pile: list[int]
    up_after: list[list[int]]
    hand_after: list[list[int]]
    opener: int
    moves: list[Move]
    winner: int
    pickups: list[int]
    played: list[int]          # cards played onto the pile, per rank
    cards_left: list[int]      # hand + face-up + face-down at the end, per seat
    unfinished: bool
    tops: list[int] = field(default_factory=list)

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def turns(self) -> int:
        return len(self.moves)

    @property
    def winner_seat(self) -> int:
        """The winner counted clockwise from the starter (0 = the starter); -1 if none."""
        return (self.winner - self.starter) % self.players if self.winner >= 0 else -1

    @property
    def who_led(self) -> drama.Drama:
        """Lead changes, comeback and settled turn (:mod:`simkit.base.drama`): a step is a
        turn, the top the seats holding the fewest cards, the winners the winner."""
        return drama.drama(self.tops, 1 << self.winner if self.winner >= 0 else 0)

    def dealt(self, seat: int) -> list[int]:
        """The ranks of the seat's 3 + 3 + hand_size dealt cards."""
        return [rank_of(c) for c in
                self.dealt_down[seat] + self.dealt_up[seat] + self.dealt_hand[seat]]

    def move_codes(self) -> list[int]:
        """One int per turn, in order (:meth:`Move.code`)."""
        return [m.code() for m in self.moves]

    def record(self) -> dict[str, Any]:
        """The §5 game record as plain Python values (the game number is the caller's)."""
        n = self.players
        rec: dict[str, Any] = {"starter": int(self.starter), "winner": int(self.winner),
                     "winner_seat": int(self.winner_seat), "turns": int(self.turns)}
        for s in range(n):
            rec[f"pickups_{s}"] = int(self.pickups[s])
        for rank, text in RECORDED:
            rec[f"played_{text}"] = int(self.played[rank])
        for s in range(n):
            rec[f"cards_left_{s}"] = int(self.cards_left[s])
        rec["unfinished"] = bool(self.unfinished)
        led = self.who_led
        rec.update(lead_changes=int(led.lead_changes), comeback=bool(led.comeback),
                   settled=int(led.settled))
        for rank, text in RECORDED:
            for s in range(n):
                rec[f"dealt_{text}_{s}"] = self.dealt(s).count(rank)
        return rec


# ---------------------------------------------------------------------------
# §1 Players, cards, deal and starter
# ---------------------------------------------------------------------------

@dataclass
class Deal:
    """Dealt card ids (§1): rows and hands by seat, in the order received."""

    down: list[list[int]]
    up: list[list[int]]
    hands: list[list[int]]
    draw: list[int]


def deal(stream: Stream, rules: ShiestaRules) -> Deal:
    """Shuffle all ``52 × decks`` card ids and deal them (§1).

    Positions ``0 .. 3N-1`` go face down, the next ``3N`` face up, the next
    ``hand_size × N`` to the hands, position ``p`` to seat ``p mod N``; the
    rest is the draw pile, drawn from its lowest position upward.
    """
    rules.check()
    n = rules.players
    deck = list(range(rules.cards))
    stream.shuffle(deck)
    down: list[list[int]] = [[] for _ in range(n)]
    up: list[list[int]] = [[] for _ in range(n)]
    hands: list[list[int]] = [[] for _ in range(n)]
    rows = ROW * n
    dealt = 2 * rows + rules.hand_size * n
    for p in range(dealt):
        if p < rows:
            down[p % n].append(deck[p])
        elif p < 2 * rows:
            up[p % n].append(deck[p])
        else:
            hands[p % n].append(deck[p])
    return Deal(down, up, hands, deck[dealt:])


def draw_starter(stream: Stream, rules: ShiestaRules) -> int:
    """The starter (§1): ``below(N)`` right after the shuffle, or seat 0 when fixed."""
    return stream.below(rules.players) if rules.starter is Starter.RANDOM else 0


# ---------------------------------------------------------------------------
# §2 Ranks and the pile
# ---------------------------------------------------------------------------

def deciding_rank(pile: Sequence[int], rules: ShiestaRules) -> int | None:
    """The rank that decides what may follow on ``pile`` (§2); None: anything may.

    An empty pile: None.  A 2 on top: None under ``two = reset``; under
    ``transparent`` the first card below the 2s that is not a 2 (None if
    there is none).  Otherwise the top card.  (3s and 10s never lie on the
    pile: §3 takes them out of the game.)
    """
    if not pile:
        return None
    if pile[-1] != TWO:
        return pile[-1]
    if rules.two is Two.RESET:
        return None
    for rank in reversed(pile):
        if rank != TWO:
            return rank
    return None


def may_follow(rank: int, top: int | None, rules: ShiestaRules) -> bool:
    """May a card of ``rank`` go on a pile decided by ``top`` (§2)?

    2, 3 and 10 go on anything; on nothing (None) anything goes; on a 7 a
    regular rank below 7 (or 7 itself with ``higher = equal``); on any other
    regular rank a strictly higher regular rank (or equal, with ``equal``).
    Regular ranks compare by rank index, which is their order (10 is not one).
    """
    if rank in (TWO, THREE, TEN) or top is None:
        return True
    assert top in REGULAR, f"{RANK_TEXT[top]} cannot decide a pile"
    equal = rules.higher is Higher.EQUAL
    if top == SEVEN:
        return rank < SEVEN or (equal and rank == SEVEN)
    return rank > top or (equal and rank == top)


def legal_ranks(counts: Sequence[int], pile: Sequence[int], rules: ShiestaRules) -> list[int]:
    """The *legal ranks* of a source (§6): ranks held there that may be played
    now, increasing, for a play from the hand or the face-up row after the
    game's opening (§2, §4.3).

    With ``opening = every`` an empty pile must be started with a regular
    card other than 7 when the source holds one.
    """
    held = [r for r in range(RANKS) if counts[r] > 0]
    if not pile and rules.opening is Opening.EVERY:
        openers = [r for r in held if r in OPENERS]
        if openers:
            return openers
    top = deciding_rank(pile, rules)
    return [r for r in held if may_follow(r, top, rules)]


def opening_rank(counts: Sequence[int]) -> int | None:
    """The lowest regular rank other than 7 in a hand (§4.3), None if none."""
    for r in OPENERS:
        if counts[r] > 0:
            return r
    return None


# ---------------------------------------------------------------------------
# §3-§4 The game
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Position:
    """Where a :class:`Game` starts (§1, §4): ``down``, ``up``, ``hands`` (per
    seat) and ``draw`` are card ids or ranks (only ``c % 13`` is kept), the
    ``starter`` the seat that starts.  By default the game starts before the
    exchange; ``pile`` (ranks, bottom first), ``to_move``, ``direction`` (+1
    clockwise, -1 anticlockwise), ``must_pick_up`` (a 3 was just played),
    ``exchanged`` and ``opened`` let a test start in the middle of a game."""

    down: Sequence[Sequence[int]]
    up: Sequence[Sequence[int]]
    hands: Sequence[Sequence[int]]
    draw: Sequence[int] = ()
    starter: int = 0
    pile: Sequence[int] = ()
    to_move: int | None = None
    direction: int = 1
    must_pick_up: bool = False
    exchanged: bool = False
    opened: bool = False


class Game:
    """A game in progress (§4), from a dealt (or hand-written) :class:`Position`.

    Play with :meth:`exchange`, :meth:`play_turn` or :meth:`run`; :meth:`log`
    gives the record so far.  ``decider`` replaces the policies'
    :class:`Decider` (a record's replay: ``simkit/shiesta/record.py``), which
    then need no ``stream``.
    """

    def __init__(self, rules: ShiestaRules, policies: Sequence[Policy | str],
                 stream: Stream | None, position: Position, *, check: bool = False,
                 decider: Decides | None = None) -> None:
        n = rules.players
        at = position
        if not (len(at.down) == len(at.up) == len(at.hands) == n):
            raise InputError(f"a Shiesta position has {n} seats")
        self.rules, self.n, self.check = rules, n, check
        if decider is None:
            if stream is None:
                raise TypeError("a game its policies decide needs their stream")
            decider = Decider(rules, policies, stream)
        self.decide: Decides = decider
        self.dealt = ([list(r) for r in at.down], [list(r) for r in at.up],
                      [list(h) for h in at.hands], list(at.draw))
        self.down = [[rank_of(c) for c in row] for row in at.down]  # first card turned first
        self.up = [counts_of(row) for row in at.up]
        self.hand = [counts_of(h) for h in at.hands]
        self.draw = [rank_of(c) for c in at.draw]                   # drawn from the front
        self.pile = [rank_of(c) for c in at.pile]                   # bottom first
        self.out = [0] * RANKS                                      # out of the game
        self.starter = at.starter
        self.to_move = at.starter if at.to_move is None else at.to_move
        self.direction = at.direction
        self.must_pick_up = at.must_pick_up
        self.exchanged, self.opened = at.exchanged, at.opened
        self.opener = -1                                            # set by the opening
        self.up_after = [ranks_in(c) for c in self.up]
        self.hand_after = [ranks_in(c) for c in self.hand]
        self.moves: list[Move] = []
        self.tops: list[int] = []           # after each turn: the seats with the fewest cards
        self.winner = -1
        self.pickups = [0] * n
        self.played = [0] * RANKS
        self.total = self.census()          # per rank: what must stay accounted for
        if check:
            self.check_cards()

    # -- bookkeeping -------------------------------------------------------

    def census(self) -> list[int]:
        """Per rank: hands + face-up + face-down + draw pile + discard pile + out."""
        total = list(self.out)
        for s in range(self.n):
            for r in range(RANKS):
                total[r] += self.hand[s][r] + self.up[s][r]
            for r in self.down[s]:
                total[r] += 1
        for r in self.draw + self.pile:
            total[r] += 1
        return total

    def check_cards(self) -> None:
        """Every card accounted for (``check=True``)."""
        assert self.census() == self.total, (self.census(), self.total)
        assert all(min(c) >= 0 for c in self.hand + self.up)
        assert not any(r in (THREE, TEN) for r in self.pile), self.pile

    def cards_of(self, seat: int) -> int:
        """Cards a seat still holds: hand, face-up and face-down rows (§4.5)."""
        return sum(self.hand[seat]) + sum(self.up[seat]) + len(self.down[seat])

    def next_seat(self, seat: int) -> int:
        """The next player in the current direction (§4.4)."""
        return (seat + self.direction) % self.n

    def source(self, seat: int) -> int:
        """§4.4: the hand if it holds a card, else the face-up row, else the face-down row."""
        if sum(self.hand[seat]):
            return HAND
        if sum(self.up[seat]):
            return UP
        return DOWN

    def opener_seat(self) -> int:
        """§4.3: the starter, or the first player clockwise from it holding a
        regular card other than 7 in hand; the starter if nobody does."""
        for i in range(self.n):
            seat = (self.starter + i) % self.n
            if opening_rank(self.hand[seat]) is not None:
                return seat
        return self.starter

    def player(self) -> int:
        """Who plays the next turn: the opener (§4.3), then ``to_move`` (§4.4)."""
        return self.to_move if self.opened else self.opener_seat()

    def finished(self) -> bool:
        """A winner, or the turn cap reached (§4.5, §4.6)."""
        return self.winner >= 0 or len(self.moves) >= self.rules.max_turns

    # -- §4.2 the exchange -------------------------------------------------

    def exchange(self) -> None:
        """Each player, from the starter clockwise, rearranges hand and face-up row."""
        for i in range(self.n):
            seat = (self.starter + i) % self.n
            cards = ranks_in(self.hand[seat]) + ranks_in(self.up[seat])
            up, hand = self.decide.exchange(seat, cards)
            assert len(up) == ROW
            assert sorted(up + hand) == sorted(cards)
            self.up[seat], self.hand[seat] = counts_of(up), counts_of(hand)
        self.exchanged = True
        self.up_after = [ranks_in(c) for c in self.up]
        self.hand_after = [ranks_in(c) for c in self.hand]
        if self.check:
            self.check_cards()

    # -- one turn ----------------------------------------------------------

    def play_turn(self) -> Move:
        """Play one turn (§4.3-§4.5) and return it."""
        assert not self.finished(), "the game is over"
        if not self.opened:
            move = self._opening()
        elif self.must_pick_up:                                 # §3: after a 3
            self.must_pick_up = False
            move = self._pick_up(self.to_move, PICKED)
        else:
            seat = self.to_move
            source = self.source(seat)
            move = self._blind(seat) if source == DOWN else self._choose(seat, source)
        self.moves.append(move)
        self.tops.append(drama.top([self.cards_of(s) for s in range(self.n)], min))
        if self.check:
            self.check_cards()
        return move

    def _opening(self) -> Move:
        """§4.3: the starter, or the first player clockwise holding one, plays the
        lowest regular rank other than 7 in hand (the count is the policy's);
        if nobody holds one the starter opens with any legal play."""
        self.opened = True
        seat = self.opener = self.opener_seat()
        rank = opening_rank(self.hand[seat])
        if rank is None:
            return self._choose(seat, HAND)
        count = self.decide.opening(seat, self.hand[seat][rank])
        assert 1 <= count <= self.hand[seat][rank], (count, rank)
        return self._play(seat, HAND, rank, count)

    def _choose(self, seat: int, source: int) -> Move:
        """§4.4, from the hand or the face-up row: a legal set, or the pickup
        when there is none."""
        counts = self.hand[seat] if source == HAND else self.up[seat]
        legal = legal_ranks(counts, self.pile, self.rules)
        choice = self.decide.play(seat, counts, legal, pile_size=len(self.pile),
                                  next_cards=self.cards_of(self.next_seat(seat)),
                                  draw_empty=not self.draw)
        if choice is None:
            assert not legal, f"seat {seat} picked up holding legal ranks {legal}"
            return self._pick_up(seat, PICKED)
        rank, count = choice
        assert rank in legal, (rank, count, legal)
        assert 1 <= count <= counts[rank], (rank, count, legal)
        return self._play(seat, source, rank, count)

    def _blind(self, seat: int) -> Move:
        """§4.4, from the face-down row: turn its first card; played if legal
        (no opening restriction), else it and the pile go to the hand."""
        rank = self.down[seat].pop(0)
        if may_follow(rank, deciding_rank(self.pile, self.rules), self.rules):
            return self._play(seat, DOWN, rank, 1, turned=True)
        self.hand[seat][rank] += 1
        return self._pick_up(seat, rank, extra=1)

    def _play(self, seat: int, source: int, rank: int, count: int, turned: bool = False) -> Move:
        """Put ``count`` cards of ``rank`` on the pile, draw back (from the hand
        only), apply the card's effect (§3) and see whether the player won."""
        if not turned:
            counts = self.hand[seat] if source == HAND else self.up[seat]
            counts[rank] -= count
        drawn = self._draw_up(seat) if source == HAND else 0
        self.played[rank] += count
        nxt = self._effect(seat, rank, count)
        self.to_move = nxt
        if self.cards_of(seat) == 0:                            # §4.5: wins at once
            self.winner = seat
        return Move(seat, source, rank, count, drawn)

    def _draw_up(self, seat: int) -> int:
        """§4.4: draw until the hand holds ``hand_size`` cards or the draw pile is empty."""
        drawn = 0
        while sum(self.hand[seat]) < self.rules.hand_size and self.draw:
            self.hand[seat][self.draw.pop(0)] += 1
            drawn += 1
        return drawn

    def _effect(self, seat: int, rank: int, count: int) -> int:
        """The played cards' effect (§3); returns who moves next.

        3: the 3s leave the game and the next player must pick up the pile.
        10: the pile and the 10s leave the game; the next player starts a
        new pile, or the burner plays again (``after_burn = again``).
        Anything else lands on the pile; each 7 reverses the direction
        when ``seven_reverses``.
        """
        if rank == THREE:
            self.out[THREE] += count
            self.must_pick_up = True
            return self.next_seat(seat)
        if rank == TEN:
            for r in self.pile:
                self.out[r] += 1
            self.out[TEN] += count
            self.pile = []
            return seat if self.rules.after_burn is AfterBurn.AGAIN else self.next_seat(seat)
        self.pile.extend([rank] * count)
        if rank == SEVEN and self.rules.seven_reverses and count % 2 == 1:
            self.direction = -self.direction
        return self.next_seat(seat)

    def _pick_up(self, seat: int, rank: int, extra: int = 0) -> Move:
        """§4.4: the whole pile goes into the hand and the turn ends; the next
        player (or, with ``after_pickup = picker``, the picker) starts a new
        pile.  ``extra`` is the face-down card already put in the hand."""
        for r in self.pile:
            self.hand[seat][r] += 1
        count = len(self.pile) + extra
        self.pile = []
        self.pickups[seat] += 1
        picker = self.rules.after_pickup is AfterPickup.PICKER
        self.to_move = seat if picker else self.next_seat(seat)
        return Move(seat, PICKUP, rank, count)

    # -- the whole game ----------------------------------------------------

    def run(self) -> GameLog:
        """The exchange (if not done), then turns until a win or the turn cap."""
        if not self.exchanged:
            self.exchange()
        while not self.finished():
            self.play_turn()
        return self.log()

    def log(self) -> GameLog:
        down, up, hands, draw = self.dealt
        return GameLog(
            rules=self.rules, starter=self.starter, dealt_down=down, dealt_up=up,
            dealt_hand=hands, draw_pile=draw, up_after=[list(r) for r in self.up_after],
            hand_after=[list(h) for h in self.hand_after], opener=self.opener,
            moves=list(self.moves), winner=self.winner, pickups=list(self.pickups),
            played=list(self.played), cards_left=[self.cards_of(s) for s in range(self.n)],
            unfinished=self.winner < 0, tops=list(self.tops))


# ---------------------------------------------------------------------------
# A game of a run
# ---------------------------------------------------------------------------

def new_game(rules: ShiestaRules, policies: Sequence[Policy | str], seed: int, index: int,
             check: bool = False) -> Game:
    """Game ``index`` of a run with seed ``seed``, dealt and ready for the exchange:
    the stream ``(seed, index)`` shuffles, then draws the starter (§1, §5)."""
    stream = Stream(seed, index)
    d = deal(stream, rules)
    starter = draw_starter(stream, rules)
    game = Game(rules, policies, stream, Position(d.down, d.up, d.hands, d.draw, starter),
                check=check)
    if check:
        assert game.total == [4 * rules.n_decks] * RANKS, game.total
    return game


def play_game(rules: ShiestaRules, policies: Sequence[Policy | str], seed: int, index: int,
              check: bool = False) -> GameLog:
    """Play game ``index`` of a run with seed ``seed`` to the end (§1-§5).

    With ``check`` every card is accounted for after the deal, the exchange
    and every turn, and every play is asserted legal.
    """
    return new_game(rules, policies, seed, index, check).run()
