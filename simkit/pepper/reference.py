"""Pilipili (Pepper), the reference engine: ``seeds/pepper.md`` as executable Python.

This module is the rule book in code.  It is written to be read, not to be
fast: every function implements one point of the rule book and names the
section it comes from (``§3.1`` means section 3.1 of ``seeds/pepper.md``).
The fast engine (``simkit/pepper/kernel.py``) must agree with it card for
card, including the order in which random numbers are drawn; the
differential tests hold the two together.  Nothing here uses numba.

Encoding (``simkit.pepper.rules``):

- a card is ``suit * 6 + rank position`` with suits C D H S = 0..3 and rank
  positions 9 10 J Q K A = 0..5;
- a trump option is a suit 0..3 or ``NO_TRUMP`` (4);
- a bid is a level: 0 pass, ``1 .. T-1`` numbers, ``T`` Ndogo, ``T+1`` Kubwa,
  where ``T = rules.tricks`` (6 with four players, else 8).

Layout: records; §1 deal; §3 auction and trump; §5 scoring; the hand loop
with the play of §4; hands without an auction (§9: a fixed hand, a declared
contract); bidding plans (§9.3: a fixed hand whose seat bids by a plan); and
the game loop (§6).  The players, the policies of §7 (random, heuristic,
expert) and :class:`PolicyDecider`, are in ``reference_players.py``.  A
hand's text record, its reader and its replay are in ``record.py``.

Two lower modules hold parts of the rule book, and their names are imported
here: ``tricks.py`` the card ids and seats of §1, the card ranking of §2 and
the trick primitives of §4 (:class:`Play`, :func:`effective_suit`,
:func:`trick_winner`, :func:`legal_cards`, ...), which the reference solver
(``reference_solver.py``, §10) shares; ``reference_expert.py`` the expert's
search (§7.3: its candidates, worlds, goal and choice), on that solver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from simkit.base import drama
from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pepper.policies import PolicyName, make_policies
from simkit.pepper.reference_players import PolicyDecider, desired_level, heuristic_params

# the players' names that callers outside the package read through this module
from simkit.pepper.reference_players import heuristic_card as heuristic_card
from simkit.pepper.reference_players import table_model as table_model
from simkit.pepper.rules import (
    ACE,
    DECK,
    NO_TRUMP,
    PLAN_PASS,
    PLAN_POLICY,
    TRUMP_TEXT,
    AllPass,
    Auction,
    Fail,
    PepperRules,
    Tie,
)
from simkit.pepper.tricks import (
    PlayView,
    bid_options,
    effective_suit,
    is_left_bower,
    is_right_bower,
    is_trump,
    legal_cards,
    rank_of,
    suit_of,
    trick_winner,
    trump_options,
)
from simkit.policy import Policy
from simkit.records.moves import AtTable, Bid, Play, highest_calls

SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades", "no trump")


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------

@dataclass
class HandLog(AtTable):
    """Everything that happened in one hand (the §8 hand record, and more).

    ``hands[seat]`` is the seat's dealt hand in deal order; ``dead`` is the dead
    hand of the two-player game (empty otherwise).  ``auction`` lists every
    call; the stuck dealer's forced 1 (§3.2) is not a call: ``stuck`` says so.
    A thrown-in hand has contract 0, bidder -1, trump -1, no plays, zero
    tricks and scores, ``made`` False and zero features.  The features
    describe the bidder's dealt hand with the chosen trump (§8).

    A hand played without an auction (§9) has an empty ``auction`` and its
    declarer as ``bidder``; ``wanted`` is then the level a heuristic declarer
    of a declared contract would have bid (§7.2 D, §9.2), recorded as its
    bid by :meth:`highest_bids`.  It is -1 everywhere else.
    """

    rules: PepperRules
    dealer: int
    hands: list[list[int]]
    dead: list[int]
    auction: list[Bid]
    stuck: bool
    contract: int
    bidder: int
    trump: int
    plays: list[Play]
    tricks: list[int]          # per seat
    side_tricks: list[int]     # per side
    score: list[int]           # score change per side
    made: bool
    trumps_held: int
    bowers_held: int
    aces_outside: int
    voids_outside: int
    wanted: int = -1

    @property
    def thrown_in(self) -> bool:
        """True if everyone passed and the hand was not played (§3.2 redeal)."""
        return self.bidder < 0

    @property
    def calls(self) -> int:
        """Number of auction calls (the stuck dealer's forced bid is not one)."""
        return len(self.auction)

    def highest_bids(self) -> list[int]:
        """The highest level each seat called (0 if it only passed), §8; with
        no auction (§9.2), the level a heuristic declarer wanted."""
        best = highest_calls(self.auction, self.rules.players)
        if self.wanted >= 0:
            best[self.bidder] = max(best[self.bidder], self.wanted)
        return best

    def features(self) -> tuple[int, int, int, int]:
        """(trumps held, bowers held, aces outside trumps, voids outside trumps)."""
        return (self.trumps_held, self.bowers_held, self.aces_outside, self.voids_outside)


@dataclass
class GameResult:
    """One whole game (§6, §8): ``winners`` has bit ``s`` set for each winning side;
    ``drama``: who led it, round by round (its lead changes, comeback and
    settled round, :mod:`simkit.base.drama`)."""

    first_dealer: int
    rounds: int
    scores: list[int]
    winners: int
    unfinished: bool
    drama: drama.Drama
    hands: list[HandLog] = field(default_factory=list)


# ---------------------------------------------------------------------------
# §1 Players, deck and deal
# ---------------------------------------------------------------------------

def deal(stream: Stream, rules: PepperRules, dealer: int) -> tuple[list[list[int]], list[int]]:
    """Shuffle and deal (§1); returns ``(hands_by_seat, dead_hand)``.

    The deck in id order 0..23 is shuffled with ``stream.shuffle`` (Fisher-Yates
    from the top).  The card in shuffled position ``p`` goes to hand
    ``p mod H`` (H = 3 with two players, else the number of players); hand
    ``r`` belongs to seat ``(dealer + 1 + r) mod players``.  With two players
    hand 2 is the dead hand; otherwise the dead hand is empty.  Each hand
    keeps its cards in the order dealt.
    """
    deck = list(range(DECK.size))
    stream.shuffle(deck)
    n_hands = rules.hands_dealt
    dealt: list[list[int]] = [[] for _ in range(n_hands)]
    for position, card in enumerate(deck):
        dealt[position % n_hands].append(card)
    hands: list[list[int]] = [[] for _ in range(rules.players)]
    for r in range(rules.players):
        hands[(dealer + 1 + r) % rules.players] = dealt[r]
    dead = dealt[2] if rules.players == 2 else []
    return hands, dead


# ---------------------------------------------------------------------------
# §3 Bids, auction and trump
# ---------------------------------------------------------------------------

def high_bid(calls: Sequence[Bid]) -> int:
    """The current high bid (0 if nobody has bid yet).  Bids only ever rise."""
    return max((b.level for b in calls), default=0)


def auction_over(rules: PepperRules, dealer: int, calls: Sequence[Bid]) -> bool:
    """Has the auction ended after these calls? (§3.1)

    Any variant ends at once on a Kubwa bid.  Otherwise:

    - ``open``: a pass is final; the auction ends when everyone has passed, or
      when a bid has been made and exactly one player has not passed (that
      player is the high bidder);
    - ``one_lap``: when every player has spoken once;
    - ``reentry``: when a bid has been followed by ``players - 1`` passes in a
      row, or, with no bid at all, after ``players`` passes in a row.
    """
    n = rules.players
    if any(b.level == rules.kubwa for b in calls):
        return True
    some_bid = any(b.level > 0 for b in calls)
    if rules.auction is Auction.OPEN:
        passed = {b.seat for b in calls if b.level == 0}
        if len(passed) == n:
            return True
        return some_bid and len(passed) == n - 1
    if rules.auction is Auction.ONE_LAP:
        return len(calls) == n
    # reentry
    if not some_bid:
        return len(calls) >= n
    last_bid = max(i for i, b in enumerate(calls) if b.level > 0)
    return len(calls) - 1 - last_bid >= n - 1


def next_to_speak(rules: PepperRules, dealer: int, calls: Sequence[Bid]) -> int:
    """The seat whose turn it is in an auction that is not over (§3.1).

    Bidding starts left of the dealer and goes clockwise.  In the ``open``
    auction players who have passed are skipped; in ``one_lap`` and
    ``reentry`` everyone speaks in turn.
    """
    n = rules.players
    if rules.auction is not Auction.OPEN:
        return (dealer + 1 + len(calls)) % n
    passed = {b.seat for b in calls if b.level == 0}
    seat = (calls[-1].seat + 1) % n if calls else (dealer + 1) % n
    while seat in passed:
        seat = (seat + 1) % n
    return seat


def auction_result(rules: PepperRules, dealer: int, calls: Sequence[Bid]) -> tuple[int, int, bool]:
    """``(contract, bidder, stuck)`` of a finished auction (§3.1, §3.2).

    The last bid is the highest (bids only rise) and wins.  If everyone
    passed: with ``all_pass = redeal`` the hand is thrown in ``(0, -1, False)``;
    with ``stick`` the dealer is stuck with the lowest bid ``(1, dealer, True)``.
    """
    bids = [b for b in calls if b.level > 0]
    if bids:
        return bids[-1].level, bids[-1].seat, False
    if rules.all_pass is AllPass.STICK:
        return 1, dealer, True
    return 0, -1, False



# ---------------------------------------------------------------------------
# §5 Scoring
# ---------------------------------------------------------------------------

def score_hand(rules: PepperRules, contract: int, bidder: int,
               tricks: Sequence[int]) -> tuple[list[int], list[int], bool]:
    """``(tricks per side, score change per side, made)`` of a played hand (§5).

    The bidding side (the bidder's team with 4 players, else the bidder) made
    a number bid ``n`` if it won at least ``n`` tricks and then scores the
    tricks it won; failing costs ``T`` (``fail = flat``) or ``n``
    (``fail = bid``).  Ndogo and Kubwa need every trick and win or lose their
    stake times ``T``.  Every other side scores one per trick it won.
    """
    T = rules.tricks
    side_tricks = [0] * rules.sides
    for seat, won in enumerate(tricks):
        side_tricks[rules.side_of(seat)] += won
    score = list(side_tricks)
    side = rules.side_of(bidder)
    won = side_tricks[side]
    if contract >= rules.ndogo:
        stake = (rules.kubwa_stake if contract == rules.kubwa else rules.ndogo_stake) * T
        made = won == T
        score[side] = stake if made else -stake
    else:
        made = won >= contract
        score[side] = won if made else -(T if rules.fail is Fail.FLAT else contract)
    return side_tricks, score, made


def bidder_features(hand: Sequence[int], trump: int) -> tuple[int, int, int, int]:
    """The bidder's hand with the chosen trump (§8).

    ``(trumps held, bowers held 0-2, aces outside trumps, void effective
    suits outside trumps)``; with no trump: ``(0, 0, all aces, suits with no
    card)``.
    """
    if trump == NO_TRUMP:
        aces = sum(1 for c in hand if rank_of(c) == ACE)
        voids = sum(1 for s in range(4) if not any(suit_of(c) == s for c in hand))
        return 0, 0, aces, voids
    trumps = sum(1 for c in hand if is_trump(c, trump))
    bowers = sum(1 for c in hand if is_right_bower(c, trump) or is_left_bower(c, trump))
    aces = sum(1 for c in hand if rank_of(c) == ACE and suit_of(c) != trump)
    voids = sum(1 for s in range(4) if s != trump
                and not any(effective_suit(c, trump) == s for c in hand))
    return trumps, bowers, aces, voids


# ---------------------------------------------------------------------------
# The phases of a hand
# ---------------------------------------------------------------------------

#: Every seat's cards, by seat.
Hands = Sequence[Sequence[int]]
#: Where a trick has no led suit yet (an index past the suits' words).
NO_SUIT = NO_TRUMP


class Decider(Protocol):
    """Who makes a hand's decisions: the seats' policies (:class:`PolicyDecider`),
    a bidding plan (:class:`PlanDecider`) or a record's script."""

    def bid(self, seat: int, hand: Sequence[int], calls: Sequence[Bid], high: int) -> int: ...

    def trump(self, seat: int, hand: Sequence[int], contract: int) -> int: ...

    def play(self, seat: int, hand: Sequence[int], trick: Sequence[Play], view: PlayView,
             trump: int) -> int: ...


@dataclass(frozen=True)
class Dealt:
    """A dealt hand: its dealer, every seat's cards and the dead hand (§1)."""

    dealer: int
    hands: Hands
    dead: Sequence[int]


@dataclass(frozen=True)
class Held:
    """A contract held: its level, its holder and the trump named (§3)."""

    contract: int
    bidder: int
    trump: int


def _auction(rules: PepperRules, dealer: int, hands: Hands,
             decide: Decider) -> tuple[list[Bid], int, int, bool]:
    """§3.1-3.2 with the given decider: ``(calls, contract, bidder, stuck)``."""
    calls: list[Bid] = []
    while not auction_over(rules, dealer, calls):
        seat = next_to_speak(rules, dealer, calls)
        high = high_bid(calls)
        level = decide.bid(seat, hands[seat], calls, high)
        if level not in bid_options(rules, high):
            called = rules.bid_text(level) if 0 <= level <= rules.kubwa else str(level)
            raise InputError(f"seat {seat} calls {called} but the high bid is "
                             f"{rules.bid_text(high)}: pass or bid higher, up to kubwa")
        calls.append(Bid(seat, level))
    contract, bidder, stuck = auction_result(rules, dealer, calls)
    return calls, contract, bidder, stuck


def _name_trump(rules: PepperRules, bidder: int, hand: Sequence[int], contract: int,
                decide: Decider) -> int:
    """§3.3 with the given decider: the bidder names a trump suit or NT."""
    trump = decide.trump(bidder, hand, contract)
    if trump not in trump_options(rules):
        allowed = " ".join(TRUMP_TEXT[o] for o in trump_options(rules))
        shown = TRUMP_TEXT[trump] if 0 <= trump <= NO_TRUMP else str(trump)
        raise InputError(f"trump {shown} is not allowed: expected one of {allowed}")
    return trump


def _play_tricks(rules: PepperRules, hands: Hands, bidder: int, trump: int, decide: Decider,
                 contract: int = 0, calls: Sequence[Bid] = ()) -> tuple[list[Play], list[int]]:
    """§4 with the given decider: ``(plays in order, tricks per seat)``.  The
    contract (0: none given, played as a number bid) and the auction's
    ``calls`` are part of what the players see (:class:`PlayView`)."""
    n = rules.players
    holding = [list(h) for h in hands[:n]]
    plays: list[Play] = []
    tricks = [0] * n
    leader = bidder                                   # the bidder leads first
    for number in range(1, rules.tricks + 1):
        trick: list[Play] = []
        for i in range(n):
            seat = (leader + i) % n
            led = effective_suit(trick[0].card, trump) if trick else NO_SUIT
            legal = legal_cards(holding[seat], led if trick else None, trump)
            view = PlayView(plays=tuple(plays), bidder=bidder, contract=contract,
                            tricks=tuple(tricks), holdings=tuple(tuple(h) for h in holding),
                            calls=tuple(calls))
            card = decide.play(seat, holding[seat], trick, view, trump)
            if card not in holding[seat]:
                raise InputError(f"trick {number}: seat {seat} plays {DECK.text(card)}, "
                                 f"which it does not hold (seeds/pepper.md 4)")
            if card not in legal:
                raise InputError(f"trick {number}: seat {seat} plays {DECK.text(card)} but must "
                                 f"follow {SUIT_WORDS[led]} with one of {DECK.format_hand(legal)} "
                                 f"(seeds/pepper.md 4)")
            holding[seat].remove(card)
            trick.append(Play(seat, card))
            plays.append(Play(seat, card))
        leader = trick_winner(trick, trump)           # the winner leads next
        tricks[leader] += 1
    return plays, tricks


def _thrown_in(rules: PepperRules, dealt: Dealt, calls: Sequence[Bid]) -> HandLog:
    """The record of a hand nobody bid on (§3.2 redeal)."""
    return HandLog(rules=rules, dealer=dealt.dealer, hands=[list(h) for h in dealt.hands],
                   dead=list(dealt.dead), auction=list(calls), stuck=False, contract=0, bidder=-1,
                   trump=-1, plays=[], tricks=[0] * rules.players, side_tricks=[0] * rules.sides,
                   score=[0] * rules.sides, made=False, trumps_held=0, bowers_held=0,
                   aces_outside=0, voids_outside=0)


def _played_hand(rules: PepperRules, dealt: Dealt, calls: Sequence[Bid], stuck: bool,
                 held: Held, plays: list[Play], tricks: list[int]) -> HandLog:
    """The record of a played hand: scores (§5) and the bidder's features (§8)."""
    side_tricks, score, made = score_hand(rules, held.contract, held.bidder, tricks)
    trumps, bowers, aces, voids = bidder_features(dealt.hands[held.bidder], held.trump)
    return HandLog(rules=rules, dealer=dealt.dealer, hands=[list(h) for h in dealt.hands],
                   dead=list(dealt.dead), auction=list(calls), stuck=stuck,
                   contract=held.contract, bidder=held.bidder, trump=held.trump, plays=plays,
                   tricks=tricks, side_tricks=side_tricks, score=score, made=made,
                   trumps_held=trumps, bowers_held=bowers, aces_outside=aces, voids_outside=voids)


def play_with_decider(rules: PepperRules, dealer: int, hands: Hands, dead: Sequence[int],
                      decide: Decider) -> HandLog:
    """Auction, trump, play and scoring of one dealt hand (§3-§5), every decision
    asked of ``decide`` (the policies, a bidding plan or a record's script)."""
    dealt = Dealt(dealer, hands, dead)
    calls, contract, bidder, stuck = _auction(rules, dealer, hands, decide)
    if bidder < 0:
        return _thrown_in(rules, dealt, calls)
    trump = _name_trump(rules, bidder, hands[bidder], contract, decide)
    plays, tricks = _play_tricks(rules=rules, hands=hands, bidder=bidder, trump=trump,
                                 decide=decide, contract=contract, calls=calls)
    return _played_hand(rules=rules, dealt=dealt, calls=calls, stuck=stuck,
                        held=Held(contract, bidder, trump), plays=plays, tricks=tricks)


def run_auction(rules: PepperRules, policies: Sequence[Policy], dealer: int,
                hands: Sequence[Sequence[int]], stream: Stream) -> tuple[list[Bid], int, int, bool]:
    """The auction by the seats' policies (§3.1, §3.2, §7).

    Returns ``(calls, contract, bidder, stuck)``; bidder -1 if thrown in.
    """
    return _auction(rules, dealer, hands, PolicyDecider(rules, policies, stream))


def name_trump(rules: PepperRules, policies: Sequence[Policy], bidder: int,
               hand: Sequence[int], contract: int, stream: Stream) -> int:
    """The bidder's trump by its policy (§3.3, §7)."""
    return _name_trump(rules, bidder, hand, contract, PolicyDecider(rules, policies, stream))


def play_tricks(rules: PepperRules, policies: Sequence[Policy], hands: Sequence[Sequence[int]],
                bidder: int, trump: int, stream: Stream,
                contract: int = 0) -> tuple[list[Play], list[int]]:
    """All tricks of a hand by the seats' policies (§4, §7); the bidder leads first.
    ``contract`` (0: a number bid) decides whether the all-tricks play applies.

    Returns ``(plays in order, tricks won per seat)``.
    """
    return _play_tricks(rules=rules, hands=hands, bidder=bidder, trump=trump,
                        decide=PolicyDecider(rules, policies, stream), contract=contract)


def play_hand(rules: PepperRules, policies: Sequence[Policy], dealer: int,
              hands: Sequence[Sequence[int]], dead: Sequence[int], stream: Stream) -> HandLog:
    """Play one dealt hand: auction, trump, the tricks, scoring (§3-§5, §7).

    ``policies`` has one :class:`~simkit.policy.Policy` per seat.  Random
    decisions draw from ``stream`` in the order they are made.
    """
    return play_with_decider(rules, dealer, hands, dead, PolicyDecider(rules, policies, stream))


def simulate_hand(rules: PepperRules, policies: Sequence[Policy], seed: int, index: int) -> HandLog:
    """Hand number ``index`` of a hand-by-hand run (§1): stream ``(seed, index)``,
    dealer ``index mod players``, deal, then :func:`play_hand`."""
    stream = Stream(seed, index)
    dealer = index % rules.players
    hands, dead = deal(stream, rules, dealer)
    return play_hand(rules=rules, policies=policies, dealer=dealer, hands=hands, dead=dead,
                     stream=stream)


# ---------------------------------------------------------------------------
# §9 Hands without an auction: a fixed hand, a declared contract
# ---------------------------------------------------------------------------

def _check_seat(seat: int, rules: PepperRules, what: str) -> None:
    if not 0 <= seat < rules.players:
        raise InputError(f"bad {what} {seat}: seats are 0 to {rules.players - 1}")


def _check_contract(contract: int, rules: PepperRules) -> None:
    if not 1 <= contract <= rules.kubwa:
        raise InputError(f"bad contract {contract}: a declared contract is a bid "
                         f"from 1 to kubwa ({rules.kubwa})")


def deal_fixed(stream: Stream, rules: PepperRules, dealer: int, seat: int,
               cards: Sequence[int]) -> tuple[list[list[int]], list[int]]:
    """The advisor's deal (§9.1); returns ``(hands_by_seat, dead_hand)`` as :func:`deal`.

    ``seat`` holds ``cards`` (T of them, in the order given).  The unseen
    cards, in id order, are shuffled with ``stream.shuffle`` (the Fisher-Yates
    shuffle of §1).  Then the other hands, in deal order, take the shuffled
    cards in consecutive blocks of T: hand ``r`` belongs to seat
    ``(dealer + 1 + r) mod players`` as in §1, the fixed seat's own hand is
    skipped, and with two players hand 2, the dead hand, comes last.
    """
    _check_seat(dealer, rules, "dealer")
    _check_seat(seat, rules, "seat")
    cards = [int(c) for c in cards]
    T = rules.tricks
    if len(cards) != T or len(set(cards)) != T or not all(0 <= c < DECK.size for c in cards):
        raise InputError(f"a fixed {rules.players}-player Pepper hand is {T} distinct cards, "
                         f"got {' '.join(str(c) for c in cards) or 'none'}")
    unseen = [c for c in range(DECK.size) if c not in cards]
    stream.shuffle(unseen)
    hands: list[list[int]] = [[] for _ in range(rules.players)]
    hands[seat] = cards
    dead: list[int] = []
    taken = 0
    for r in range(rules.hands_dealt):
        owner = (dealer + 1 + r) % rules.players if r < rules.players else None   # None: dead
        if owner == seat:
            continue
        block = unseen[taken:taken + T]
        taken += T
        if owner is None:
            dead = block
        else:
            hands[owner] = block
    return hands, dead


def play_declared(rules: PepperRules, policies: Sequence[Policy], dealt: Dealt, declarer: int,
                  contract: int, stream: Stream, wanted: int = -1) -> HandLog:
    """Play one ``dealt`` hand in which ``declarer`` holds ``contract`` with no
    auction (§9): the declarer names the trump by its policy (§3.3, §7), leads
    the first trick (§4), and the hand is scored as if it had won the bid (§5).

    The record has no calls, is not stuck, and has ``wanted`` (§9.2) as given.
    """
    _check_seat(declarer, rules, "declarer")
    _check_contract(contract, rules)
    decide = PolicyDecider(rules, policies, stream)
    trump = _name_trump(rules, declarer, dealt.hands[declarer], contract, decide)
    plays, tricks = _play_tricks(rules=rules, hands=dealt.hands, bidder=declarer, trump=trump,
                                 decide=decide, contract=contract)
    log = _played_hand(rules=rules, dealt=dealt, calls=[], stuck=False,
                       held=Held(contract, declarer, trump), plays=plays, tricks=tricks)
    log.wanted = wanted
    return log


def fixed_hand(rules: PepperRules, policies: Sequence[Policy], seed: int, index: int,
               cards: Sequence[int], contract: int, seat: int | None = None,
               dealer: int = 0) -> HandLog:
    """Sample number ``index`` of a fixed-hand run (§9.1): stream ``(seed, index)``;
    ``seat`` (default: left of ``dealer``) holds ``cards`` and the rest is
    dealt by :func:`deal_fixed`; then ``seat`` plays ``contract`` with no
    auction (:func:`play_declared`).

    Not replayable by :func:`replay`, which needs an auction.
    """
    if seat is None:
        seat = (dealer + 1) % rules.players
    _check_contract(contract, rules)
    stream = Stream(seed, index)
    hands, dead = deal_fixed(stream, rules, dealer, seat, cards)
    return play_declared(rules, policies, Dealt(dealer, hands, dead), seat, contract,
                         stream=stream)


def declare_hand(rules: PepperRules, policies: Sequence[Policy], seed: int, index: int,
                 contract: int) -> HandLog:
    """Hand number ``index`` of a declared-contract run (§9.2): dealt exactly as
    :func:`simulate_hand` deals it (stream ``(seed, index)``, dealer
    ``index mod players``), then, with no auction, the seat left of the
    dealer plays ``contract`` (:func:`play_declared`).

    A heuristic declarer's ``wanted`` is the level D it would have bid with
    its hand (§7.2 "Bidding"); it draws nothing.  So is an expert's, which
    bids as the heuristic (§7.3).  A random declarer has none.
    """
    _check_contract(contract, rules)
    stream = Stream(seed, index)
    dealer = index % rules.players
    hands, dead = deal(stream, rules, dealer)
    declarer = (dealer + 1) % rules.players
    policy = make_policies(list(policies), rules.players)[declarer]
    wanted = desired_level(hands[declarer], rules, heuristic_params(policy)) \
        if policy.name != PolicyName.RANDOM else -1              # the expert bids as the heuristic
    return play_declared(rules, policies, Dealt(dealer, hands, dead), declarer, contract,
                         stream=stream, wanted=wanted)


# ---------------------------------------------------------------------------
# §9.3 Bidding plans: one seat bids by a plan, the others by their policies
# ---------------------------------------------------------------------------

def _check_plan(plan: int, rules: PepperRules) -> None:
    if isinstance(plan, bool) or not PLAN_POLICY <= plan <= rules.kubwa:
        raise InputError(f"bad plan {plan!r}: a plan is {PLAN_POLICY} (policy), "
                         f"{PLAN_PASS} (pass), 1 to {rules.kubwa} (a ceiling, ndogo, kubwa)")


def plan_bid(rules: PepperRules, plan: int, high: int) -> int:
    """The plan seat's call when the high bid is ``high`` (§9.3 "Bidding plans").

    - pass (``PLAN_PASS``): pass at every turn;
    - a ceiling ``L`` (1 .. T-1): bid the lowest legal level, ``high + 1``,
      if it is at most ``L``, else pass; with ``auction = one_lap``, where
      the seat speaks once, bid ``L`` itself if it is above ``high``, else
      pass.  Who holds the high bid (the partner, say) does not matter;
    - ndogo or kubwa (T, T+1): call the plan's level if it is above ``high``,
      else the highest bid, Kubwa, if it is above ``high``, else pass.

    ``PLAN_POLICY`` has no call of its own: the seat's policy bids
    (:class:`PlanDecider`).  The plan draws nothing from the stream.
    """
    _check_plan(plan, rules)
    if plan == PLAN_POLICY:
        raise InputError("the policy plan has no call of its own: the seat's policy bids")
    if plan == PLAN_PASS:
        return 0
    if plan < rules.ndogo:                            # a ceiling
        if rules.auction is Auction.ONE_LAP:
            return plan if plan > high else 0
        return high + 1 if high + 1 <= plan else 0
    for level in (plan, rules.kubwa):                 # ndogo or kubwa
        if level > high:
            return level
    return 0


class PlanDecider(PolicyDecider):
    """The seats' policies (§7), except that ``seat`` calls by ``plan`` in the
    auction (:func:`plan_bid`, §9.3); it names the trump and plays by its
    policy.  With ``PLAN_POLICY`` this is a plain :class:`PolicyDecider`."""

    def __init__(self, rules: PepperRules, policies: Sequence[Policy], stream: Stream,
                 seat: int, plan: int):
        super().__init__(rules, policies, stream)
        _check_seat(seat, rules, "plan seat")
        _check_plan(plan, rules)
        self.seat, self.plan = seat, plan
        self.planned = seat if plan != PLAN_POLICY else -1

    def bid(self, seat: int, hand: Sequence[int], calls: Sequence[Bid], high: int) -> int:
        if seat == self.seat and self.plan != PLAN_POLICY:
            return plan_bid(self.rules, self.plan, high)
        return super().bid(seat, hand, calls, high)


def plan_hand(rules: PepperRules, policies: Sequence[Policy], seed: int, index: int,
              cards: Sequence[int], plan: int, seat: int | None = None,
              dealer: int = 0) -> HandLog:
    """Sample number ``index`` of a bidding-plan run (§9.3): stream ``(seed, index)``;
    ``seat`` (default: left of ``dealer``) holds ``cards`` and the rest is
    dealt by :func:`deal_fixed` (§9.1); then the whole hand is played (§3-§5)
    with ``seat`` calling by ``plan`` (:class:`PlanDecider`) and every other
    decision by the seats' policies.  Replayable by :func:`replay`, like any
    hand with an auction.
    """
    if seat is None:
        seat = (dealer + 1) % rules.players
    _check_plan(plan, rules)
    stream = Stream(seed, index)
    hands, dead = deal_fixed(stream, rules, dealer, seat, cards)
    decide = PlanDecider(rules, policies, stream, seat, plan)
    return play_with_decider(rules, dealer, hands, dead, decide)


def plan_deal(rules: PepperRules, policies: Sequence[Policy], seed: int, index: int,
              plan: int) -> HandLog:
    """Hand number ``index`` dealt exactly as :func:`simulate_hand` deals it
    (stream ``(seed, index)``, dealer ``index mod players``), then played with
    the seat left of the dealer, the first to speak, calling by ``plan``
    (§9.3; the Kubwa study)."""
    _check_plan(plan, rules)
    stream = Stream(seed, index)
    dealer = index % rules.players
    hands, dead = deal(stream, rules, dealer)
    decide = PlanDecider(rules, policies, stream, (dealer + 1) % rules.players, plan)
    return play_with_decider(rules, dealer, hands, dead, decide)


# ---------------------------------------------------------------------------
# §6 Game
# ---------------------------------------------------------------------------

def game_winners(rules: PepperRules, scores: Sequence[int]) -> int:
    """Bitmask of the winning sides if the game ends with these scores, else 0 (§6).

    The game ends once some side has reached the target; the sides on the top
    score win (``tie = shared``), or, with ``tie = play_on``, another round is
    played while two or more sides share the top score.
    """
    top = max(scores)
    if top < rules.target:
        return 0
    leaders = [s for s, v in enumerate(scores) if v == top]
    if rules.tie is Tie.PLAY_ON and len(leaders) > 1:
        return 0
    return sum(1 << s for s in leaders)


def play_game(rules: PepperRules, policies: Sequence[Policy], seed: int, index: int,
              scores: Sequence[int] | None = None, first_dealer: int | None = None) -> GameResult:
    """Game number ``index`` of a whole-game run (§6).

    One stream ``(seed, index)`` serves the whole game: unless ``first_dealer``
    is given, its first draw, ``below(players)``, picks the first dealer; then
    each round deals from it, bids, plays and scores.  The deal passes left
    after every round, thrown-in hands included.  ``scores`` starts the game
    from a given score per side (a game in progress).  After ``max_rounds``
    rounds a game that has not ended is unfinished, with no winner.

    Who led: after each round the top is the sides on the highest score; the
    game's lead changes, comeback and settled round follow from those tops
    and its winners (:func:`simkit.base.drama.drama`).
    """
    stream = Stream(seed, index)
    if first_dealer is None:
        first_dealer = stream.below(rules.players)
    dealer = first_dealer
    scores = list(scores) if scores is not None else [0] * rules.sides
    logs: list[HandLog] = []
    tops: list[int] = []
    winners = 0
    while len(logs) < rules.max_rounds:
        hands, dead = deal(stream, rules, dealer)
        log = play_hand(rules=rules, policies=policies, dealer=dealer, hands=hands, dead=dead,
                        stream=stream)
        logs.append(log)
        scores = [a + b for a, b in zip(scores, log.score)]
        tops.append(drama.top(scores))
        dealer = (dealer + 1) % rules.players
        winners = game_winners(rules, scores)
        if winners:
            break
    return GameResult(first_dealer=first_dealer, rounds=len(logs), scores=scores, winners=winners,
                      unfinished=winners == 0, drama=drama.drama(tops, winners), hands=logs)
