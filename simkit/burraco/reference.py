"""Burraco, the reference engine: ``seeds/burraco.md`` as executable Python.

This module is the rule book in code.  It is written to be read, not to be
fast: every function implements one point of the rule book and names the
section it comes from (``§7`` means section 7 of ``seeds/burraco.md``).  The
numba kernel (``kernel.py``) is written independently from the same rule book
and agrees with this one hand for hand and decision for decision, including
the order in which random numbers are drawn; the differential tests hold the
two together.  Every validity question about a meld is answered by
:mod:`simkit.burraco.melds` (§3).  Nothing here uses numba.

Encoding (§1, ``simkit.burraco.melds``): a card id is 0..107; below 104 its
face is ``id % 52 = suit * 13 + position`` (suits C D H S = 0..3, positions
A = 0, 2 = 1, ..., K = 12), 104..107 are the jokers.  Teams: team 0 is seats
0 and 2, team 1 seats 1 and 3 (a seat's team is ``seat % 2``).  Turns are
numbered from 1 within a hand.

Decision codes (:meth:`HandLog.decision_codes`)
-----------------------------------------------
One int per event of a turn, in the order it happens, each
``seat * 1_000_000 + code`` with ``code`` one of:

=============================  ==========================================================
``1_000 + source``             the draw: source 0 the stock, 1 the whole discard pile
``3_000 + keep``               ``keep`` fixed (0, 1 or 2, §9): before melding, and again
                               right after a pozzetto taken directly
``4_000 + 100 * kind + n``     a new meld of ``n`` cards, kind 0 a set, 1 a sequence;
                               followed by ``n`` codes ``5_000 + card id``, its cards
                               in increasing id
``100_000 + 1_000 * m + id``   card ``id`` added to the team's meld ``m`` (its melds
                               numbered 0, 1, ... in the order they were laid)
``2_000 + 10 * way + number``  the team's pozzetto taken: way 0 directly (the last card
                               melded), 1 on the discard; number 0 the first pozzetto
                               (deal positions 44..54), 1 the second (55..65)
``6_000 + id``                 the discard of card ``id``
``7_000 + id``                 going out: the last card ``id`` discarded (§5)
=============================  ==========================================================

A turn is therefore: the draw; then (unless the draw ended the hand: §5,
``stock_end = stop``) a keep code, the melding codes (a direct pozzetto code
followed by its new keep code where it happens), and the discard (or
going-out) code, followed by a pozzetto code when the discard emptied the
hand.

Points the rule book leaves open, settled here
----------------------------------------------
- §9 "keep = 0": with ``pozzetto = direct`` the discard way is closed, so a
  meld or addition that would leave exactly one card (which the discard would
  then take out of the hand) is not made: with ``keep = 0`` and the direct
  way only, a move must leave 0 or at least 2 cards.  With ``pozzetto = both``
  a player who chose the direct way may still end melding with one card and
  take the pozzetto on the discard (§7 (3)).
- §6 ``untaken_pozzetto = cards``: a team that took no pozzetto loses the
  points of the pozzetto it would have got: the one the other team did not
  take; when neither team took one, the first pozzetto is the starting team's
  (the team of the player left of the dealer) and the second the other's.
- §9 melding step 1 tries the hand's natural cards in increasing id as the
  hand is *now*: after a pozzetto taken directly in the middle of a step, the
  step goes on with the new hand's natural cards of higher id (as a scan of
  the ids 0..107 would).  Steps 2-4 likewise look at the hand as it is when
  each rank, suit or meld comes up.
- §9 step 1 adds the cards one at a time, each judged against the meld as
  it stands after the additions before it.  A meld's reading (clean or
  dirty, §3) is the meld module's: ``read_meld`` when it is laid,
  ``extend``'s after each addition; the score (``table_score``) uses it.
- §9 step 4 "holding no wild card" is judged as the policies see cards: a meld
  holding any 2 or joker holds a wild card, even when the meld module reads a
  2 of the suit as natural in its place.
- §9 discard key: a wild card never "would extend one of the opponents'
  melds" (the first component is for natural cards) and its use to the hand
  is 0.  Ranks and suits count every card, both copies included; places are
  3..14 with the ace 14 (so an ace's neighbours are Q and K).
- §9 "table points this hand" (the going-out choice) are the table's part of
  the score: melded card points plus burraco bonuses (``table_score``).
- §9 draw: "three consecutive places of a suit" means two natural cards of the
  top card's suit in hand at places that make, with the top card's place,
  three consecutive places within 3..14; "three of a rank" means two natural
  cards of the top card's rank in hand (any suits, copies included).
- §9 random discard: every discard other than going out is the policy's, so
  ``random`` draws ``below(hand size)`` even when the hand holds one card (on
  the discard way); going out discards the last card without a draw.
- §7 a draw from the stock that leaves 2 cards ends the hand inside that turn:
  the turn counts (it is in ``turns``).  With ``stock_end = stop`` it has only
  its draw code; with ``stock_end = finish`` the player finishes it as any
  other turn (keep, melding, the discard or going out, a pozzetto), then the
  hand ends: ``closed`` if the player went out, else ``stock``.  The cap
  ends the hand after turn ``max_turns`` unless that turn ended it otherwise.
- ``pozzetto_turn_t`` is the number of the turn in which the team took its
  pozzetto (-1 never; 0 for a hand-written position in which it was taken
  before the position).

Layout: constants; §1 the deal; §6 scoring; §2-§5, §7 the hand
(:class:`Hand`); play_hand and play_game.  The records (Turn, HandLog,
GameLog) are ``reference_records.py``; §9 the policy helpers and the Decider
(every decision, melding included) ``reference_players.py``.  A hand
record's text is ``simkit/burraco/record.py``, its replay ``replay.py``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

from simkit.base import drama
from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.burraco.melds import (
    DECK_SIZE,
    SEQUENCE,
    SET,
    Meld,
    cards_text,
    is_wild,
    points,
    read_meld,
    table_score,
)
from simkit.burraco.policies import make_policies
from simkit.burraco.reference_players import (
    PILE,
    STOCK,
    WILD,
    Add,
    Decider,
    Specs,
    has_burraco,
    is_natural,
    team_of,
)
from simkit.burraco.reference_records import PARTS, TEAMS, Event, GameLog, Turn
from simkit.burraco.reference_records import HandLog as HandLog
from simkit.burraco.rules import (
    HAND,
    PLAYERS,
    POZZETTI,
    STOCK_END,
    BurracoRules,
    Pozzetto,
    StockEnd,
    Tie,
    UntakenPozzetto,
)
from simkit.policy import Policy

#: §1 deal positions: 0..43 the players, then the two pozzetti, the first
#: discard, the stock.
DEALT = HAND * PLAYERS                       # 44
POZZETTO_AT = (DEALT, DEALT + HAND)          # 44, 55
PILE_AT = DEALT + POZZETTI * HAND            # 66
STOCK_AT = PILE_AT + 1                       # 67
#: §6: a team that did not take its pozzetto loses this (``untaken_pozzetto = flat``).
POZZETTO_PENALTY = 100
#: Ways a pozzetto is taken (§4).
DIRECT, ON_DISCARD = 0, 1
WAY_TEXT = ("directly", "on the discard")
#: How a hand ends (§5).
CLOSED, STOCK_OUT, CAP = "closed", "stock", "cap"


# ---------------------------------------------------------------------------
# §1 The deal
# ---------------------------------------------------------------------------

@dataclass
class Deal:
    """Dealt card ids (§1): hands by seat in the order received, the two
    pozzetti, the first card of the discard pile, the stock in drawing order."""

    hands: list[list[int]]
    pozzetti: list[list[int]]
    pile: list[int]
    stock: list[int]


def deal(stream: Stream, dealer: int) -> Deal:
    """Shuffle the 108 ids (Fisher-Yates, ``stream.shuffle``) and deal them (§1).

    Position ``p`` < 44 goes to the seat ``p mod 4 + 1`` places left of the
    dealer; 44..54 the first pozzetto, 55..65 the second, 66 face up on the
    discard pile, 67..107 the stock, drawn from 67 upward.
    """
    deck = list(range(DECK_SIZE))
    stream.shuffle(deck)
    hands: list[list[int]] = [[] for _ in range(PLAYERS)]
    for p in range(DEALT):
        hands[(dealer + 1 + p % PLAYERS) % PLAYERS].append(deck[p])
    pozzetti = [deck[at:at + HAND] for at in POZZETTO_AT]
    return Deal(hands, pozzetti, [deck[PILE_AT]], deck[STOCK_AT:])


# ---------------------------------------------------------------------------
# §6 Scoring
# ---------------------------------------------------------------------------

def score_team(rules: BurracoRules, melds: Sequence[Meld], left: Sequence[int], closed: bool,
               took_pozzetto: bool, untaken: Sequence[int]) -> dict[str, Any]:
    """A team's score for the hand and its parts (§6), with the counts of §8.

    ``melds``: the team's melds; ``left``: the cards in its players' hands;
    ``closed``: it went out; ``took_pozzetto``: it took its pozzetto, else
    ``untaken`` are the cards of the pozzetto it did not take.  Besides the
    score parts (:data:`PARTS`, which sum to ``score``) and the burraco
    counts: ``sets`` and ``sequences`` on the team's table, and ``wilds``, the
    jokers and 2s melded (every 2, as the policies see it, even one the meld
    module reads as natural).
    """
    table = table_score(melds)
    if took_pozzetto:
        pozzetto = 0
    elif rules.untaken_pozzetto is UntakenPozzetto.FLAT:
        pozzetto = -POZZETTO_PENALTY
    else:
        pozzetto = -sum(points(c) for c in untaken)
    parts = {"melded": table["melded_points"],
             "hand_penalty": -sum(points(c) for c in left),
             "clean_burraco": table["clean_burraco"],
             "dirty_burraco": table["dirty_burraco"],
             "burraco_bonus": table["burraco_bonus"],
             "closing_bonus": rules.closing_bonus if closed else 0,
             "pozzetto_penalty": pozzetto,
             "sets": sum(1 for m in melds if m.kind == SET),
             "sequences": sum(1 for m in melds if m.kind == SEQUENCE),
             "wilds": sum(1 for m in melds for c in m.cards if is_wild(c))}
    parts["score"] = sum(parts[k] for k in PARTS)
    return parts


# ---------------------------------------------------------------------------
# §2-§5, §7 A hand
# ---------------------------------------------------------------------------

class HandState(TypedDict, total=False):
    """The melds and the state of a hand-written position (:class:`Hand`'s keyword
    arguments)."""

    melds: Sequence[Sequence[Sequence[int]]]
    dealer: int
    to_move: int | None
    taken: Sequence[int]
    pozzetto_turn: Sequence[int] | None
    turns: int
    check: bool


class Hand:
    """A hand in progress, from a dealt or hand-written position.

    ``hands`` (4 non-empty lists of card ids), ``pozzetti`` (the first and the
    second pozzetto; one already taken is given empty), ``stock`` (drawing
    order, at least 3 cards), ``pile`` (bottom first) and ``melds`` (per team,
    lists of card ids in the order laid; each must make a meld) give the
    cards (``melds`` by keyword).  The other keyword arguments
    (:class:`HandState`) give the state: ``dealer`` (the starter is left of
    it), ``to_move`` (default the
    starter), ``taken`` (per team the number 0/1 of the pozzetto it took,
    -1 none; the first team to take one takes number 0), ``pozzetto_turn``
    and ``turns`` (turns already played, for the cap); ``check`` checks every
    card and meld after each turn.
    ``stream`` serves the random policies.  Play with :meth:`play_turn` or
    :meth:`run`; :meth:`log` gives the record.  The hand applies the rules and
    asks the policies' :class:`Decider` for every decision (the draw, the keep,
    the melding, going out, the discard).  A turn's steps (:meth:`take_draw`,
    :meth:`fix_keep`, :meth:`lay`, :meth:`add`, :meth:`put_discard`,
    :meth:`close_with`, :meth:`end_turn`) also serve a text record's replay,
    which makes the recorded moves instead of the policies
    (``simkit/burraco/record.py``).
    """

    def __init__(self, rules: BurracoRules, policies: Specs, stream: Stream | None,
                 hands: Sequence[Collection[int]],
                 pozzetti: Sequence[Sequence[int]] = ((), ()), stock: Iterable[int] = (),
                 pile: Iterable[int] = (), **state: Unpack[HandState]) -> None:
        melds = state.get("melds", ((), ()))
        dealer, to_move = state.get("dealer", 0), state.get("to_move")
        taken, pozzetto_turn = state.get("taken", (-1, -1)), state.get("pozzetto_turn")
        turns, check = state.get("turns", 0), state.get("check", False)
        rules.check()
        self.rules, self.check = rules, check
        self.decide = Decider(rules, policies, stream)
        self.meld_rules = self.decide.meld_rules
        if len(hands) != PLAYERS or any(len(h) == 0 for h in hands):
            raise InputError(f"a Burraco position has {PLAYERS} hands, none empty")
        if len(pozzetti) != POZZETTI or len(melds) != TEAMS or len(taken) != TEAMS:
            raise InputError("a Burraco position has 2 pozzetti and 2 teams")
        if not 0 <= dealer < PLAYERS:
            raise InputError(f"bad dealer {dealer}: seats are 0 to {PLAYERS - 1}")
        self.dealer = dealer
        self.to_move = (dealer + 1) % PLAYERS if to_move is None else to_move
        if not 0 <= self.to_move < PLAYERS:
            raise InputError(f"bad seat to move {to_move}: seats are 0 to {PLAYERS - 1}")
        self.hands = [{int(c) for c in h} for h in hands]
        self.pozzetti = [list(p) for p in pozzetti]
        self.stock = [int(c) for c in stock]
        self.pile = [int(c) for c in pile]
        if len(self.stock) <= STOCK_END:
            raise InputError(f"the stock must hold more than {STOCK_END} cards")
        self.melds: list[list[Meld]] = [[], []]
        for t in range(TEAMS):
            for cards in melds[t]:
                m = read_meld(cards, self.meld_rules)
                if m is None:
                    raise InputError(f"not a meld: {cards_text(cards)}")
                self.melds[t].append(m)
        self.taken = [int(n) for n in taken]
        numbers = sorted(n for n in self.taken if n >= 0)
        if numbers not in ([], [0], [0, 1]) or any(self.pozzetti[n] for n in numbers):
            raise InputError(f"bad pozzetti taken {taken}: the first team to take one takes "
                             f"number 0, and a taken pozzetto is given empty")
        self.pozzetto_turn = ([0 if n >= 0 else -1 for n in self.taken]
                              if pozzetto_turn is None else list(pozzetto_turn))
        if not 0 <= turns < rules.max_turns:
            raise InputError(f"bad turns {turns}: a hand in play has played 0 to "
                             f"{rules.max_turns - 1} turns (max_turns)")
        self.start_turns = turns
        self.turns: list[Turn] = []
        self.ended, self.closer = "", -1
        self.keep, self.going_out, self.takes = 2, False, 0
        self.events: list[Any] = []
        self.start = ([sorted(h) for h in self.hands], [list(p) for p in self.pozzetti],
                      list(self.pile), list(self.stock),
                      [[m.cards for m in self.melds[t]] for t in range(TEAMS)],
                      list(self.taken))
        cards = self.census()
        if len(cards) != len(set(cards)) or not all(0 <= c < DECK_SIZE for c in cards):
            raise InputError("a card id twice in the position, or outside 0..107")
        self.total = frozenset(cards)
        if check:
            self.check_state()

    # -- bookkeeping -------------------------------------------------------

    def census(self) -> list[int]:
        """Every card: hands, untaken pozzetti, stock, discard pile, melds."""
        out = [c for h in self.hands for c in h]
        out += [c for p in self.pozzetti for c in p] + self.stock + self.pile
        out += [c for team in self.melds for m in team for c in m.cards]
        return out

    def check_state(self) -> None:
        """Every card accounted for exactly once and every meld valid (``check=True``)."""
        cards = self.census()
        assert len(cards) == len(set(cards)), "cards doubled"
        assert set(cards) == self.total, "cards lost"
        for team in self.melds:
            for m in team:
                assert read_meld(m.cards, self.meld_rules) is not None, m.cards
        assert len(self.stock) >= STOCK_END
        if not self.ended:
            assert all(self.hands), "a hand is empty in play"

    def finished(self) -> bool:
        return bool(self.ended)

    def unseen(self, seat: int) -> list[int]:
        """The natural cards ``seat`` cannot see: not in its hand, on the table
        or in the discard pile (§9.1 discard risk)."""
        seen = set(self.hands[seat]) | set(self.pile)
        seen.update(c for team in self.melds for m in team for c in m.cards)
        return [c for c in range(DECK_SIZE) if not WILD[c] and c not in seen]

    # -- §4 the pozzetto -----------------------------------------------------

    def take_pozzetto(self, seat: int, way: int) -> None:
        """The seat's hand is empty: it takes the next pozzetto (§4): the first
        team to take one gets the first, the other the second."""
        team = team_of(seat)
        assert self.taken[team] < 0
        assert not self.hands[seat]
        allowed = {DIRECT: (Pozzetto.BOTH, Pozzetto.DIRECT),
                   ON_DISCARD: (Pozzetto.BOTH, Pozzetto.DISCARD)}[way]
        assert self.rules.pozzetto in allowed, (way, self.rules.pozzetto)
        number = sum(1 for n in self.taken if n >= 0)
        self.hands[seat] = set(self.pozzetti[number])
        self.pozzetti[number] = []
        self.taken[team] = number
        self.pozzetto_turn[team] = self.start_turns + len(self.turns) + 1
        self.takes += 1
        self.events.append((Event.POZZETTO, way, number))

    def untaken_cards(self, team: int) -> list[int]:
        """The pozzetto a team that took none would have got (§6, module docstring)."""
        other = self.taken[1 - team]
        if other >= 0:
            return self.pozzetti[1 - other]
        starting = team_of((self.dealer + 1) % PLAYERS)
        return self.pozzetti[0 if team == starting else 1]

    # -- §9 keep -------------------------------------------------------------

    def fix_keep(self, seat: int) -> None:
        """§9: the fewest cards the player may hold after melding, as its policy
        plans it now (:meth:`Decider.keep`)."""
        self.keep, self.going_out = self.decide.keep(seat, self)
        self.events.append((Event.KEEP, self.keep))

    def close_after_melding(self, seat: int) -> None:
        """§9.1 ``close_after``: with the pozzetto taken and a burraco on the table
        after melding, the player decides to go out on the table as it now is
        (:meth:`Decider.closes_after`); if so, ``keep`` becomes 1 and melding
        goes on."""
        if self.decide.closes_after(seat, self, self.keep):
            self.keep, self.going_out = 1, True
            self.events.append((Event.KEEP, self.keep))
            self.meld(seat)

    def allows(self, seat: int, cards: Sequence[int]) -> bool:
        """May ``cards`` leave the hand for the table under ``keep`` (§9)?"""
        hand = self.hands[seat]
        rest = len(hand) - len(cards)
        if rest < self.keep:
            return False
        if rest == 1:
            (last,) = hand.difference(cards)
            if self.going_out and WILD[last]:
                return False                    # the last card must be natural
            if self.keep == 0 and self.rules.pozzetto is Pozzetto.DIRECT:
                return False                    # the discard could not empty the hand
        return True

    # -- §2 melding ----------------------------------------------------------

    def after_melding(self, seat: int) -> None:
        """§7 (2): a hand emptied by melding takes the pozzetto directly; keep is fixed again."""
        if not self.hands[seat]:
            assert self.keep == 0
            self.take_pozzetto(seat, DIRECT)
            self.fix_keep(seat)

    def lay(self, seat: int, cards: list[int], kind: str) -> None:
        """A new meld of ``cards`` from the hand (§3)."""
        meld = read_meld(cards, self.meld_rules, kind)
        assert meld is not None, cards_text(cards)
        team = team_of(seat)
        self.hands[seat].difference_update(cards)
        self.melds[team].append(meld)
        self.events.append((Event.MELD, kind, tuple(sorted(cards)), len(self.melds[team]) - 1))
        self.after_melding(seat)

    def add(self, seat: int, m: int, card: int, meld: Meld) -> None:
        """``card`` from the hand onto the team's meld ``m``, now read as ``meld`` (§3)."""
        self.hands[seat].remove(card)
        self.melds[team_of(seat)][m] = meld
        self.events.append((Event.ADD, m, card))
        self.after_melding(seat)

    def meld(self, seat: int) -> None:
        """§2 melding: the new melds and additions the player's policy makes
        (:meth:`Decider.melds`), each applied in turn."""
        for move in self.decide.melds(seat, self):
            if isinstance(move, Add):
                self.add(seat, move.meld, move.card, move.new)
            else:
                self.lay(seat, list(move.cards), move.kind)

    # -- §7 a turn -----------------------------------------------------------

    def play_turn(self) -> Turn:
        """Play one turn (§7): draw, meld, discard."""
        assert not self.ended, "the hand is over"
        seat = self.to_move
        self.events = []
        # (1) the draw
        source = self.decide.draw(seat, self.hands[seat], self.pile, self.melds[team_of(seat)])
        last = self.take_draw(seat, source)
        if self.plays_on(last):
            # (2) melding
            self.fix_keep(seat)
            self.meld(seat)
            self.close_after_melding(seat)
            # (3) the discard (or going out, which ends the hand as closed)
            self.discard(seat)
        return self.end_turn(seat, last)

    def take_draw(self, seat: int, source: int) -> bool:
        """§7 (1): the seat draws the stock's top card or takes the whole pile; True
        if the draw leaves two cards in the stock, which makes this turn the last (§5)."""
        if source == PILE:
            assert self.pile, "an empty pile cannot be taken"
            taken, self.pile = self.pile, []
        else:
            taken = [self.stock.pop(0)]
        self.hands[seat].update(taken)
        self.events.append((Event.DRAW, source, tuple(taken)))
        return source == STOCK and len(self.stock) == STOCK_END

    def plays_on(self, last: bool) -> bool:
        """§5, §7: does the turn go on after its draw (``last``: the draw left the
        stock at two)?  With ``stock_end = stop`` the last draw ends play at once."""
        return not (last and self.rules.stock_end is StockEnd.STOP)

    def end_turn(self, seat: int, last: bool) -> Turn:
        """After the turn of ``seat``: the hand ends on the stock (``last``) or the
        cap unless it ended otherwise; play passes left."""
        if last and not self.ended:
            self.ended = STOCK_OUT                          # "finish": after the turn
        turn = Turn(seat, self.events)
        self.turns.append(turn)
        self.events = []
        if not self.ended and self.start_turns + len(self.turns) >= self.rules.max_turns:
            self.ended = CAP
        self.to_move = (seat + 1) % PLAYERS
        if self.check:
            self.check_state()
        return turn

    def discard(self, seat: int) -> None:
        """§7 (3): going out, or the policy's discard (taking the pozzetto if it
        empties the hand)."""
        team = team_of(seat)
        hand = self.hands[seat]
        if self.going_out and len(hand) == 1:
            (card,) = hand
            assert is_natural(card)
            assert self.taken[team] >= 0
            assert has_burraco(self.melds[team])
            self.close_with(seat, card)
            return
        self.put_discard(seat, self.decide.discard(seat, self))

    def put_discard(self, seat: int, card: int) -> None:
        """§7 (3): ``card`` from the hand onto the discard pile; a discard that
        empties the hand takes the pozzetto (§4)."""
        hand = self.hands[seat]
        hand.remove(card)
        self.pile.append(card)
        self.events.append((Event.DISCARD, card))
        if not hand:
            self.take_pozzetto(seat, ON_DISCARD)

    def close_with(self, seat: int, card: int) -> None:
        """§5: the seat goes out, discarding its last card; the hand is closed."""
        self.hands[seat].clear()
        self.pile.append(card)
        self.events.append((Event.OUT, card))
        self.ended, self.closer = CLOSED, seat

    # -- the whole hand ------------------------------------------------------

    def run(self) -> HandLog:
        while not self.ended:
            self.play_turn()
        return self.log()

    def scores(self) -> list[dict[str, Any]]:
        """Each team's score parts (§6) as the hand stands."""
        out = []
        for t in range(TEAMS):
            left = [c for s in range(t, PLAYERS, TEAMS) for c in self.hands[s]]
            closed = self.closer >= 0 and team_of(self.closer) == t
            took = self.taken[t] >= 0
            out.append(score_team(self.rules, self.melds[t], left=left, closed=closed,
                                  took_pozzetto=took,
                                  untaken=[] if took else self.untaken_cards(t)))
        return out

    def log(self) -> HandLog:
        hands, pozzetti, pile, stock, melds, taken = self.start
        return HandLog(
            rules=self.rules, policies=self.decide.policies, dealer=self.dealer,
            start_hands=hands, start_pozzetti=pozzetti, start_pile=pile, start_stock=stock,
            start_melds=melds, start_taken=taken, first_turn=self.start_turns + 1,
            turns=list(self.turns), ended=self.ended, closer=self.closer,
            hands=[sorted(h) for h in self.hands], melds=[list(t) for t in self.melds],
            pozzetti=[list(p) for p in self.pozzetti], taken=list(self.taken),
            pozzetto_turn=list(self.pozzetto_turn), parts=self.scores())


# ---------------------------------------------------------------------------
# Hands and games of a run
# ---------------------------------------------------------------------------

def new_hand(rules: BurracoRules, policies: Specs, stream: Stream, dealer: int,
             check: bool = False) -> Hand:
    """A freshly dealt hand (§1) on ``stream``; the starter is left of ``dealer``."""
    d = deal(stream, dealer)
    hand = Hand(rules, policies, stream, hands=d.hands, pozzetti=d.pozzetti, stock=d.stock,
                pile=d.pile, dealer=dealer, check=check)
    if check:
        assert hand.total == frozenset(range(DECK_SIZE))
    return hand


def play_hand(rules: BurracoRules, policies: Sequence[Policy], seed: int, index: int,
              dealer: int, check: bool = False) -> HandLog:
    """Hand ``index`` of a run with seed ``seed``, dealt by ``dealer`` (§7: a
    run's hand ``i`` is dealt by seat ``i mod 4``), on the stream ``(seed, index)``.

    With ``check`` every card is accounted for and every meld valid after the
    deal and after every turn.
    """
    return new_hand(rules, policies, Stream(seed, index), dealer, check).run()


def game_over(total: Sequence[int], rules: BurracoRules) -> tuple[bool, int, bool]:
    """(over, winning team or -1, shared) after a hand, from the game scores (§6).

    No team at ``target``: not over.  A team at or above it with the higher
    score wins (when only one is there it is the higher).  Both on the same
    score at or above it: another hand (``tie = play_on``) or a shared win.
    """
    if max(total) < rules.target:
        return False, -1, False
    if total[0] != total[1]:
        return True, (0 if total[0] > total[1] else 1), False
    if rules.tie is Tie.SHARED:
        return True, -1, True
    return False, -1, False


def play_game(rules: BurracoRules, policies: Sequence[Policy], seed: int, index: int,
              check: bool = False) -> GameLog:
    """Game ``index`` of a run (§6, §7): the stream ``(seed, index)`` draws the first
    dealer (``below(4)``), then deals and plays hand after hand, the deal passing
    left, until a team reaches ``target``; both there: the higher score wins, a
    tie plays on (``tie = play_on``) or is shared; ``max_hands`` hands without a
    winner leave the game unfinished.  The top after each hand gives who led
    (§8, :func:`simkit.base.drama.drama`)."""
    rules.check()
    policies = make_policies(policies, PLAYERS)
    stream = Stream(seed, index)
    first = stream.below(PLAYERS)
    dealer, total, logs, tops = first, [0, 0], [], []
    winner, shared, unfinished = -1, False, False
    while True:
        log = new_hand(rules, policies, stream, dealer, check).run()
        logs.append(log)
        total = [total[t] + log.score[t] for t in range(TEAMS)]
        tops.append(drama.top(total))
        over, winner, shared = game_over(total, rules)
        if over:
            break
        if len(logs) >= rules.max_hands:
            unfinished = True
            break
        dealer = (dealer + 1) % PLAYERS
    # the winning teams as a bitmask: one bit, both when shared, none unfinished
    winners = 0b11 if shared else (1 << winner if winner >= 0 else 0)
    lead = drama.drama(tops, winners)
    return GameLog(rules=rules, first_dealer=first, hands=logs, score=total, winner=winner,
                   shared=shared, unfinished=unfinished, tops=tops,
                   lead_changes=lead.lead_changes, comeback=lead.comeback, settled=lead.settled)
