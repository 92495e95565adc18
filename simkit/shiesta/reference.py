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
§2 legality; §6 policies; §3-§5 the game (:class:`Game`); play_game.  A game
record's text and its replay are ``simkit/shiesta/record.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from math import comb

from simkit import drama
from simkit.errors import InputError
from simkit.policy import Policy
from simkit.rng import Stream
from simkit.shiesta.policies import make_policies
from simkit.shiesta.rules import RANK_TEXT, REGULAR, ROW, SEVEN, TEN, THREE, TWO, ShiestaRules

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
#: The exchange's strength order, weakest first (§6): 4 5 6 7 8 9 J Q K A 3 2 10.
STRENGTH_ORDER = tuple(REGULAR) + (THREE, TWO, TEN)
STRENGTH = {rank: k for k, rank in enumerate(STRENGTH_ORDER)}


def rank_of(card: int) -> int:
    """The rank index of card id ``card`` (§1): ``card mod 13``."""
    return card % RANKS


def counts_of(ranks) -> list[int]:
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


def format_ranks(ranks) -> str:
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
        """Lead changes, comeback and settled turn (:mod:`simkit.drama`): a step is a
        turn, the top the seats holding the fewest cards, the winners the winner."""
        return drama.drama(self.tops, 1 << self.winner if self.winner >= 0 else 0)

    def dealt(self, seat: int) -> list[int]:
        """The ranks of the seat's 3 + 3 + hand_size dealt cards."""
        return [rank_of(c) for c in
                self.dealt_down[seat] + self.dealt_up[seat] + self.dealt_hand[seat]]

    def move_codes(self) -> list[int]:
        """One int per turn, in order (:meth:`Move.code`)."""
        return [m.code() for m in self.moves]

    def record(self) -> dict:
        """The §5 game record as plain Python values (the game number is the caller's)."""
        n = self.players
        rec: dict = {"starter": int(self.starter), "winner": int(self.winner),
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
    return stream.below(rules.players) if rules.starter == "random" else 0


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
    if rules.two == "reset":
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
    equal = rules.higher == "equal"
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
    if not pile and rules.opening == "every":
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
# §6 Policies
# ---------------------------------------------------------------------------

@cache
def subsets(m: int, size: int = ROW) -> tuple[tuple[int, ...], ...]:
    """Every ``size``-subset of positions ``0 .. m-1`` in lexicographic order (§6.1):
    ``(0, 1, 2), (0, 1, 3), ...``.  Built by hand, not by itertools, to read
    as the rule book does: a subset's first position, then the rest after it."""
    def from_(start: int, k: int):
        if k == 0:
            yield ()
            return
        for first in range(start, m - k + 1):
            for rest in from_(first + 1, k - 1):
                yield (first,) + rest
    return tuple(from_(0, size))


def random_exchange(cards: Sequence[int], draw: int) -> tuple[list[int], list[int]]:
    """(face up, hand) of the random exchange (§6.1): the cards sorted by rank,
    the ``draw``-th 3-subset of their positions goes face up."""
    cards = sorted(cards)
    chosen = subsets(len(cards))[draw]
    up = [cards[p] for p in chosen]
    hand = [cards[p] for p in range(len(cards)) if p not in chosen]
    return up, hand


def heuristic_exchange(cards: Sequence[int], how: str) -> tuple[list[int], list[int]]:
    """(face up, hand) of the heuristic exchange (§6.2): ``up`` puts the three
    strongest face up, ``keep`` the three weakest (strength order of §6)."""
    by_strength = sorted(cards, key=lambda r: STRENGTH[r])
    if how == "up":
        up, hand = by_strength[-ROW:], by_strength[:-ROW]
    else:
        up, hand = by_strength[:ROW], by_strength[ROW:]
    return sorted(up), sorted(hand)


def play_options(counts: Sequence[int], legal: Sequence[int]) -> list[tuple[int, int]]:
    """The random policy's options (§6.1): (rank, count) for every legal rank
    increasing and every count from 1 to the number held."""
    return [(r, k) for r in legal for k in range(1, counts[r] + 1)]


def special_count(rank: int, counts: Sequence[int], sets: str, draw_empty: bool) -> int:
    """How many cards of a special ``rank`` the heuristic plays (§6.2, the
    ``special_sets`` / ``three_sets`` option ``sets``): all it holds with
    ``all``, or with ``dry`` once the draw pile is empty; else one."""
    if sets == "all" or (sets == "dry" and draw_empty):
        return counts[rank]
    return 1


def heuristic_play(params, counts: Sequence[int], legal: Sequence[int], pile_size: int,
                   next_cards: int, draw_empty: bool = False) -> tuple[int, int] | None:
    """The heuristic's turn (§6.2, rules 2-6; rule 1, the opening, is
    :meth:`Decider.opening`): (rank, count), or None to pick up.
    ``draw_empty``: the draw pile is empty (for the sets of specials)."""
    def threes() -> tuple[int, int]:
        return THREE, special_count(THREE, counts, params.three_sets, draw_empty)

    def others(rank: int) -> tuple[int, int]:                          # a 2 or a 10
        return rank, special_count(rank, counts, params.special_sets, draw_empty)

    if THREE in legal and next_cards <= params.three_at:                # rule 2
        return threes()
    if TEN in legal and params.burn_at > 0 and pile_size >= params.burn_at:   # rule 3
        return others(TEN)
    if params.save_specials:
        regular = [r for r in legal if r in REGULAR]                    # rule 4
        if regular:
            return regular[0], counts[regular[0]]
        if (THREE in legal and pile_size >= params.stuck_three_pile     # rule 5
                and next_cards <= params.stuck_three_next):
            return threes()
        if TWO in legal:
            return others(TWO)
        if TEN in legal:
            return others(TEN)
        if THREE in legal:
            return threes()
    elif legal:                                                         # rule 4, every rank
        return legal[0], counts[legal[0]]
    return None                                                         # rule 6


class Decider:
    """Decisions by each seat's policy (§6).

    ``random`` draws one ``stream.below(n)`` per decision, in decision order
    (also when there is a single option); ``heuristic`` never draws.  A
    pickup with no legal set, a forced pickup and a face-down card are no
    decisions: they never reach this class.
    """

    def __init__(self, rules: ShiestaRules, policies: Sequence[Policy], stream: Stream):
        policies = make_policies(list(policies), rules.players)   # specs or Policy objects
        for p in policies:
            if p.name not in ("random", "heuristic"):
                raise InputError(f"unknown Shiesta policy {p.name!r}: "
                                 f"expected random or heuristic")
        self.rules, self.policies, self.stream = rules, tuple(policies), stream

    def _random(self, seat: int) -> bool:
        return self.policies[seat].name == "random"

    def exchange(self, seat: int, cards: Sequence[int]) -> tuple[list[int], list[int]]:
        """(face up, hand) from the seat's hand and face-up row together (§4.2)."""
        if self._random(seat):
            return random_exchange(cards, self.stream.below(comb(len(cards), ROW)))
        return heuristic_exchange(cards, self.policies[seat].params.exchange)

    def opening(self, seat: int, held: int) -> int:
        """How many cards of the forced opening rank to play, of ``held`` (§4.3)."""
        if self._random(seat):
            return self.stream.below(held) + 1
        return held                                                     # rule 1

    def play(self, seat: int, counts: Sequence[int], legal: Sequence[int], pile_size: int,
             next_cards: int, draw_empty: bool = False) -> tuple[int, int] | None:
        """(rank, count) to play from ``counts``, or None to pick up the pile."""
        if self._random(seat):
            options = play_options(counts, legal)
            if not options:
                return None
            return options[self.stream.below(len(options))]
        return heuristic_play(self.policies[seat].params, counts, legal, pile_size, next_cards,
                              draw_empty)


# ---------------------------------------------------------------------------
# §3-§4 The game
# ---------------------------------------------------------------------------

class Game:
    """A game in progress (§4), from a dealt (or hand-written) position.

    ``down``, ``up``, ``hands`` (per seat) and ``draw`` are card ids or
    ranks (only ``c % 13`` is kept).  ``pile`` (ranks, bottom first),
    ``to_move``, ``direction`` (+1 clockwise, -1 anticlockwise),
    ``must_pick_up`` (a 3 was just played), ``exchanged`` and ``opened`` let
    a test start in the middle of a game; by default the game starts before
    the exchange.  Play with :meth:`exchange`, :meth:`play_turn` or
    :meth:`run`; :meth:`log` gives the record so far.  ``decider`` replaces
    the policies' :class:`Decider` (a record's replay: ``simkit/shiesta/record.py``).
    """

    def __init__(self, rules: ShiestaRules, policies: Sequence[Policy], stream: Stream,
                 down, up, hands, draw=(), starter: int = 0, *, pile=(),
                 to_move: int | None = None, direction: int = 1, must_pick_up: bool = False,
                 exchanged: bool = False, opened: bool = False, check: bool = False,
                 decider=None):
        n = rules.players
        if not (len(down) == len(up) == len(hands) == n):
            raise InputError(f"a Shiesta position has {n} seats")
        self.rules, self.n, self.check = rules, n, check
        self.decide = Decider(rules, policies, stream) if decider is None else decider
        self.dealt = ([list(r) for r in down], [list(r) for r in up], [list(h) for h in hands],
                      list(draw))
        self.down = [[rank_of(c) for c in row] for row in down]    # first card turned first
        self.up = [counts_of(row) for row in up]
        self.hand = [counts_of(h) for h in hands]
        self.draw = [rank_of(c) for c in draw]                      # drawn from the front
        self.pile = [rank_of(c) for c in pile]                      # bottom first
        self.out = [0] * RANKS                                      # out of the game
        self.starter = starter
        self.to_move = starter if to_move is None else to_move
        self.direction = direction
        self.must_pick_up = must_pick_up
        self.exchanged, self.opened = exchanged, opened
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
            assert len(up) == ROW and sorted(up + hand) == sorted(cards)
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
        choice = self.decide.play(seat, counts, legal, len(self.pile),
                                  self.cards_of(self.next_seat(seat)), not self.draw)
        if choice is None:
            assert not legal, f"seat {seat} picked up holding legal ranks {legal}"
            return self._pick_up(seat, PICKED)
        rank, count = choice
        assert rank in legal and 1 <= count <= counts[rank], (rank, count, legal)
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
            return seat if self.rules.after_burn == "again" else self.next_seat(seat)
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
        self.to_move = seat if self.rules.after_pickup == "picker" else self.next_seat(seat)
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

def new_game(rules: ShiestaRules, policies: Sequence[Policy], seed: int, index: int,
             check: bool = False) -> Game:
    """Game ``index`` of a run with seed ``seed``, dealt and ready for the exchange:
    the stream ``(seed, index)`` shuffles, then draws the starter (§1, §5)."""
    stream = Stream(seed, index)
    d = deal(stream, rules)
    starter = draw_starter(stream, rules)
    game = Game(rules, policies, stream, d.down, d.up, d.hands, d.draw, starter, check=check)
    if check:
        assert game.total == [4 * rules.n_decks] * RANKS, game.total
    return game


def play_game(rules: ShiestaRules, policies: Sequence[Policy], seed: int, index: int,
              check: bool = False) -> GameLog:
    """Play game ``index`` of a run with seed ``seed`` to the end (§1-§5).

    With ``check`` every card is accounted for after the deal, the exchange
    and every turn, and every play is asserted legal.
    """
    return new_game(rules, policies, seed, index, check).run()
