"""Pitch: Money Game, the reference engine: ``seeds/pitch.md`` as executable Python.

This module is the rule book in code.  It is written to be read, not to be
fast: every function implements one point of the rule book and names the
section it comes from (``§4`` means section 4 of ``seeds/pitch.md``).  The
fast engine (``simkit/pitch/kernel.py``) is written independently from the
same rule book and must agree with this one record for record, including the
order in which random numbers are drawn; the differential tests hold the two
together.  Nothing here uses numba.

Encoding (``simkit.pitch.rules``):

- a card is ``suit * 13 + position`` with suits C D H S = 0..3 and positions
  2 = 0, 3 = 1, ..., 10 = 8, J = 9, Q = 10, K = 11, A = 12;
- a trump is a suit 0..3, or ``NO_TRUMP`` (4) for a thrown-in hand;
- a bid is a level: 0 pass, 2 3 4 numbers, 5 (``MOON``) shoot the moon.

Money is kept in whole units of 1/840 cent (``MONEY_UNITS_PER_CENT``);
``UNITS_PER_DOLLAR`` of them make a dollar.

Layout: records; §2 auction (one lap or open); §4 points; §5 scoring; §7
money; the hand loop; the session loop (§7).  The cards, the deal (§1, and
§8.3 fixed-hand deals) and the play of a trick (§3) are
``simkit/pitch/reference_cards.py``; the players (§8: random, heuristic and
the §8.4 bidding plans) ``simkit/pitch/reference_players.py``; a hand
record's text and its replay ``simkit/pitch/record.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from simkit.base import drama
from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pitch.policies import make_policies
from simkit.pitch.reference_cards import (
    card_of,
    check_players,
    deal,
    deal_fixed,
    game_points_of,
    legal_cards,
    suit_of,
    trick_winner,
)
from simkit.pitch.reference_players import Decider, PolicyDecider, plan_bid
from simkit.pitch.rules import (
    ACE,
    HAND_SIZE,
    JACK,
    KING,
    LEVELS,
    MAX_PLAYERS,
    MAX_SESSION_PLAYERS,
    MONEY_UNITS_PER_CENT,
    MOON,
    NO_TRUMP,
    PASS,
    PLAN_CODES,
    PLAN_PASS,
    PLAN_POLICY,
    TRUMP_TEXT,
    TWO,
    AllPass,
    Auction,
    GameTie,
    JoinScore,
    Low,
    MoonNeeds,
    PitchRules,
    Steal,
    StuckBid,
)
from simkit.policy import Policy
from simkit.records.moves import AtTable, Bid, Play, highest_calls, tricks_of

#: Units of money (1/840 cent) in one dollar.
UNITS_PER_DOLLAR = 100 * MONEY_UNITS_PER_CENT
#: Number bids and the moon, the levels a player may call (§2).
BID_LEVELS = tuple(level for level in LEVELS if level != PASS)


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------

@dataclass
class HandLog(AtTable):
    """Everything that happened in one hand (the §6 hand record, and more).

    ``hands[seat]`` is the seat's dealt hand in deal order.  ``auction`` lists
    every call in order (a stuck dealer's bid is a call; with a fixed
    contract, §8.3, the single call is the fixed seat's contract).  ``plays``
    lists every card in order and ``winners`` each trick's winner.  A
    thrown-in hand has pitcher -1, contract 0, trump ``NO_TRUMP``, no plays
    and zeros everywhere (High, Low and Jack -1).
    """

    rules: PitchRules
    dealer: int
    hands: list[list[int]]
    auction: list[Bid]
    stuck: bool
    contract: int
    pitcher: int
    trump: int
    plays: list[Play]
    winners: list[int]          # per trick
    tricks: list[int]           # per seat
    game_points: list[int]      # game points captured, per seat
    high: int
    low: int
    jack: int
    game_winners: int           # bitmask of seats
    points: list[int]           # per seat, 0..4
    score: list[int]            # score change per seat (§5)
    made: bool
    money_units: list[int]      # the hand as a one-hand session (§7), per seat

    @property
    def thrown_in(self) -> bool:
        """True if nobody bid and the hand was not played (§2, ``all_pass = redeal``)."""
        return self.pitcher < 0

    @property
    def moon(self) -> bool:
        return self.contract == MOON

    def bids(self) -> list[int]:
        """The highest level each seat bid, 0 if it only passed or did not speak (§2)."""
        return highest_calls(self.auction, self.players)

    def tricks_played(self) -> list[list[Play]]:
        """The plays cut into tricks."""
        return tricks_of(self.plays, self.players)

    def pitcher_features(self) -> dict[str, Any]:
        """The pitcher's dealt hand with the trump it led (§6); zeros when thrown in."""
        if self.thrown_in:
            return {"pitcher_trumps": 0, "pitcher_ace": False, "pitcher_king": False,
                    "pitcher_jack": False, "pitcher_two": False, "pitcher_game_points": 0}
        hand = self.hands[self.pitcher]
        t = self.trump
        return {
            "pitcher_trumps": sum(1 for c in hand if suit_of(c) == t),
            "pitcher_ace": card_of(t, ACE) in hand,
            "pitcher_king": card_of(t, KING) in hand,
            "pitcher_jack": card_of(t, JACK) in hand,
            "pitcher_two": card_of(t, TWO) in hand,
            "pitcher_game_points": sum(game_points_of(c) for c in hand),
        }

    def record(self) -> dict[str, Any]:
        """The §6 hand record as plain Python values (the hand number is the caller's)."""
        n = self.players
        rec: dict[str, Any] = {"dealer": self.dealer}
        bids = self.bids() if not self.thrown_in else [0] * n
        for s in range(n):
            rec[f"bid_{s}"] = bids[s]
        rec["pitcher"] = self.pitcher
        rec["contract"] = self.contract
        rec["stuck"] = bool(self.stuck)
        rec["trump"] = TRUMP_TEXT[self.trump]
        for name, values in (("tricks", self.tricks), ("points", self.points),
                             ("score", self.score), ("game_points", self.game_points)):
            for s in range(n):
                rec[f"{name}_{s}"] = int(values[s])
        rec["high"] = self.high
        rec["low"] = self.low
        rec["jack"] = self.jack
        rec["game_winners"] = self.game_winners
        rec["made"] = bool(self.made)
        rec["moon"] = self.moon
        rec.update(self.pitcher_features())
        for s in range(n):
            rec[f"money_{s}"] = self.money_units[s] / UNITS_PER_DOLLAR
        return rec


# ---------------------------------------------------------------------------
# §2 Auction
# ---------------------------------------------------------------------------

def bid_options(rules: PitchRules, is_dealer: bool, high: int) -> list[int]:
    """The legal calls, in the order §8.1 draws from (§2).

    Pass (when allowed), then every allowed level increasing: the steal level
    (the current high bid, for a dealer when ``steal = match``) first, then
    every level above the high bid.  A dealer facing only passes must bid
    under ``all_pass = forced``: exactly 2 (``stuck_bid = two``) or any
    level (``any``); under ``redeal`` it may pass or bid any level.
    """
    higher = [level for level in BID_LEVELS if level > high]
    if not is_dealer:
        return [PASS, *higher]
    if high == PASS:
        if rules.all_pass == AllPass.REDEAL:
            return [PASS, *higher]
        return [2] if rules.stuck_bid == StuckBid.TWO else higher
    steal = [high] if rules.steal == Steal.MATCH else []
    return [PASS, *steal, *higher]


def is_forced(rules: PitchRules, is_dealer: bool, high: int) -> bool:
    """The dealer is stuck: everyone else passed and ``all_pass = forced`` (§2)."""
    return is_dealer and high == PASS and rules.all_pass == AllPass.FORCED


def bid_refusal(rules: PitchRules, is_dealer: bool, high: int, level: int) -> str:
    """Why ``level`` is not a legal call (not in :func:`bid_options`): the rule it
    breaks, with its section (§2); for the one-line errors of a replayed record."""
    if is_forced(rules, is_dealer, high):
        if level == PASS:
            return ("everyone else passed, so the dealer must bid "
                    "(seeds/pitch.md 2, all_pass = forced)")
        return "a stuck dealer bids exactly 2 (seeds/pitch.md 2, stuck_bid = two)"
    if is_dealer and level == high:
        return (f"the dealer may not steal the bid of {rules.bid_text(high)} "
                f"(seeds/pitch.md 2, steal = outbid)")
    if is_dealer and rules.steal == Steal.MATCH and high != PASS:
        return (f"the high bid is {rules.bid_text(high)}: the dealer passes, matches it or "
                f"bids higher (seeds/pitch.md 2)")
    return f"the high bid is {rules.bid_text(high)}: pass or bid higher (seeds/pitch.md 2)"


def high_bid(calls: Sequence[Bid]) -> tuple[int, int]:
    """``(high bid, its bidder)`` after these calls; ``(0, -1)`` if nobody has bid.

    Every bid is at least the high bid (a steal equals it), so the last bid
    made is the standing one.
    """
    for b in reversed(calls):
        if b.level != PASS:
            return b.level, b.seat
    return PASS, -1


def auction_over(rules: PitchRules, calls: Sequence[Bid]) -> bool:
    """Has the auction ended after these calls? (§2)

    Either auction ends at once on a moon bid.  Otherwise:

    - ``one_lap``: when every player has spoken once;
    - ``open``: a pass is final; the auction ends when everyone has passed,
      or when a bid stands and exactly one player has not passed (that player
      holds the bid).
    """
    n = rules.players
    if any(b.level == MOON for b in calls):
        return True
    if rules.auction == Auction.ONE_LAP:
        return len(calls) == n
    passed = {b.seat for b in calls if b.level == PASS}
    some_bid = any(b.level != PASS for b in calls)
    return len(passed) == n or (some_bid and len(passed) == n - 1)


def next_to_speak(rules: PitchRules, dealer: int, calls: Sequence[Bid]) -> int:
    """The seat whose turn it is in an auction that is not over (§2).

    Bidding starts left of the dealer and goes clockwise; in the ``open``
    auction the players who have passed are skipped.
    """
    n = rules.players
    if rules.auction == Auction.ONE_LAP:
        return (dealer + 1 + len(calls)) % n
    passed = {b.seat for b in calls if b.level == PASS}
    seat = (calls[-1].seat + 1) % n if calls else (dealer + 1) % n
    while seat in passed:
        seat = (seat + 1) % n
    return seat


# ---------------------------------------------------------------------------
# §4 The four points
# ---------------------------------------------------------------------------

@dataclass
class Points:
    """Who won which point of a played hand (§4)."""

    high: int
    low: int
    jack: int
    game_points: list[int]
    game_winners: int
    points: list[int]

    @property
    def awarded(self) -> int:
        """How many of the four points were awarded (to anyone)."""
        return (self.high >= 0) + (self.low >= 0) + (self.jack >= 0) + (self.game_winners != 0)


def award_points(rules: PitchRules, hands: Sequence[Sequence[int]], trump: int,
                 tricks: Sequence[Sequence[Play]]) -> Points:
    """The four points of a played hand (§4); only dealt cards count.

    - High: the seat dealt the highest trump dealt;
    - Low: the lowest trump dealt, to the winner of the trick it was played
      in (``low = captured``) or to the seat dealt it (``dealt``);
    - Jack: the winner of the trick holding the jack of trumps, if dealt;
    - Game: the single highest count of game points captured in tricks won
      (ties: nobody, or every tied seat with ``game_tie = all``); not awarded
      if no game points were dealt.
    """
    n = rules.players
    holder = {c: s for s, hand in enumerate(hands) for c in hand}
    won_in = {}                                       # card -> winner of its trick
    game_points = [0] * n
    for trick in tricks:
        w = trick_winner(trick, trump)
        for p in trick:
            won_in[p.card] = w
            game_points[w] += game_points_of(p.card)

    trumps_dealt = sorted(c for c in holder if suit_of(c) == trump)
    high = holder[trumps_dealt[-1]]                   # the pitcher led a trump: never empty
    lowest = trumps_dealt[0]
    low = won_in[lowest] if rules.low == Low.CAPTURED else holder[lowest]
    jack_card = card_of(trump, JACK)
    jack = won_in[jack_card] if jack_card in holder else -1

    game_winners = 0
    top = max(game_points)
    if sum(game_points) > 0:                          # some game points were dealt
        tied = [s for s in range(n) if game_points[s] == top]
        if len(tied) == 1 or rules.game_tie == GameTie.ALL:
            game_winners = sum(1 << s for s in tied)

    points = [0] * n
    for seat in (high, low, jack):
        if seat >= 0:
            points[seat] += 1
    for s in range(n):
        if game_winners >> s & 1:
            points[s] += 1
    return Points(high=high, low=low, jack=jack, game_points=game_points,
                  game_winners=game_winners, points=points)


# ---------------------------------------------------------------------------
# §5 Scoring a hand
# ---------------------------------------------------------------------------

def score_hand(rules: PitchRules, contract: int, pitcher: int, tricks: Sequence[int],
               pts: Points) -> tuple[list[int], bool]:
    """``(score change per seat, made)`` of a played hand (§5).

    A number bid ``b`` is made with at least ``b`` points: the pitcher scores
    its points, else ``-b``.  The moon is made only with all six tricks and
    all four points (``moon_needs = four``) or every point awarded in the
    hand (``all``); it scores ``moon_made`` or ``-moon_failed``.  Every other
    seat scores the points it won.
    """
    score = list(pts.points)
    won = pts.points[pitcher]
    if contract == MOON:
        needed = 4 if rules.moon_needs == MoonNeeds.FOUR else pts.awarded
        made = tricks[pitcher] == HAND_SIZE and won == needed
        score[pitcher] = rules.moon_made if made else -rules.moon_failed
    else:
        made = won >= contract
        score[pitcher] = won if made else -contract
    return score, made


# ---------------------------------------------------------------------------
# §7 Money
# ---------------------------------------------------------------------------

def settle_units(rules: PitchRules, score: int, scores: Sequence[int]) -> int:
    """What a player with ``score`` receives against the ``scores`` of the
    seated players (its own included), in units: ``cents * (s - S/n)`` (§7).

    Exact: ``840`` is divisible by every table size ``n``.
    """
    n, total = len(scores), sum(scores)
    units = rules.cents * MONEY_UNITS_PER_CENT * (n * score - total)
    assert units % n == 0
    return units // n


def moon_units(rules: PitchRules, made: bool) -> int:
    """What each other seated player pays the pitcher of a moon (§7), in units;
    negative when the moon failed (the pitcher pays each of them)."""
    stake = rules.moon_dollars * UNITS_PER_DOLLAR
    return stake if made else -stake


def hand_money(rules: PitchRules, score: Sequence[int], contract: int, pitcher: int,
               made: bool) -> list[int]:
    """Each seat's money for one hand settled as a whole session (§6, §7), in units."""
    n = len(score)
    money = [settle_units(rules, score[s], score) for s in range(n)]
    if contract == MOON:
        each = moon_units(rules, made)
        for s in range(n):
            if s != pitcher:
                money[s] -= each
                money[pitcher] += each
    assert sum(money) == 0
    return money


# ---------------------------------------------------------------------------
# The hand: auction, play, points, scoring
# ---------------------------------------------------------------------------

def run_auction(rules: PitchRules, dealer: int, hands: Sequence[Sequence[int]],
                decide: Decider, plan_seat: int = -1,
                plan: int = PLAN_POLICY) -> tuple[list[Bid], int, int, bool]:
    """The auction (§2): ``(calls, contract, pitcher, stuck)``, pitcher -1 if
    thrown in.

    Starting left of the dealer, clockwise, until :func:`auction_over`: one
    lap (the dealer last) or the open auction (passed players skipped).  The
    standing bid (the last bid made; a dealer's steal equals it) wins.
    ``plan_seat`` (§8.4) calls by :func:`plan_bid` unless its plan is
    ``PLAN_POLICY``; everyone else by its policy.
    """
    calls: list[Bid] = []
    stuck = False
    while not auction_over(rules, calls):
        seat = next_to_speak(rules, dealer, calls)
        high, holder = high_bid(calls)
        is_dealer = seat == dealer
        assert holder != seat, "nobody speaks holding the bid"
        options = bid_options(rules, is_dealer, high)
        if seat == plan_seat and plan != PLAN_POLICY:
            level = plan_bid(rules, plan, options)
        else:
            level = decide.bid(seat, hands[seat], options, is_dealer=is_dealer, high=high)
        assert level in options, (seat, level, options)
        calls.append(Bid(seat, level))
        stuck = stuck or is_forced(rules, is_dealer, high)
    high, pitcher = high_bid(calls)
    return calls, high, pitcher, stuck


def play_tricks(rules: PitchRules, hands: Sequence[Sequence[int]], pitcher: int,
                decide: Decider) -> tuple[int, list[Play], list[int]]:
    """All six tricks (§3): ``(trump, plays in order, winner of each trick)``.

    The pitcher leads first and the suit of that card is trump; each trick's
    winner leads the next.
    """
    n = rules.players
    holding = [list(h) for h in hands]
    plays: list[Play] = []
    winners: list[int] = []
    trump: int | None = None
    leader = pitcher
    for _ in range(HAND_SIZE):
        trick: list[Play] = []
        for i in range(n):
            seat = (leader + i) % n
            led = suit_of(trick[0].card) if trick else None
            legal = legal_cards(holding[seat], led, trump)
            card = decide.play(seat, holding[seat], legal, trick, plays, trump=trump,
                               pitcher=pitcher)
            assert card in legal, (seat, card, legal)
            if trump is None:
                trump = suit_of(card)                 # the pitcher's first lead names trumps
            holding[seat].remove(card)
            trick.append(Play(seat, card))
            plays.append(Play(seat, card))
        assert trump is not None, "the first lead names trumps"
        leader = trick_winner(trick, trump)
        winners.append(leader)
    assert trump is not None
    return trump, plays, winners


def thrown_in_log(rules: PitchRules, dealer: int, hands: Sequence[Sequence[int]],
                  calls: Sequence[Bid]) -> HandLog:
    """The record of a hand nobody bid on (§2 ``redeal``): zeros everywhere."""
    zeros = [0] * rules.players
    return HandLog(rules=rules, dealer=dealer, hands=[list(h) for h in hands],
                   auction=list(calls), stuck=False, contract=0, pitcher=-1, trump=NO_TRUMP,
                   plays=[], winners=[], tricks=zeros, game_points=list(zeros), high=-1,
                   low=-1, jack=-1, game_winners=0, points=list(zeros), score=list(zeros),
                   made=False, money_units=list(zeros))


def play_from(hands: Sequence[Sequence[int]], dealer: int, rules: PitchRules,
              policies: Sequence[Policy | str], stream: Stream, seat: int = -1,
              plan: int = PLAN_POLICY, contract: int = PASS) -> HandLog:
    """Play one dealt hand: auction, tricks, points, scoring, money (§2-§7).

    Random decisions draw from ``stream`` in the order they are made.  With
    ``seat >= 0``: a ``contract`` of 2, 3, 4 or 5 makes that seat the pitcher
    with no auction (§8.3; its recorded bid is the contract); otherwise the
    auction runs with the seat held to ``plan`` (§8.4).
    """
    n = rules.players
    check_players(n)
    if len(hands) != n or any(len(h) != HAND_SIZE for h in hands):
        raise InputError(f"a Pitch deal is {n} hands of {HAND_SIZE} cards")
    if contract not in LEVELS:
        raise InputError(f"bad contract {contract}: expected one of {LEVELS}")
    if contract != PASS and plan != PLAN_POLICY:
        raise InputError("a declared contract has no auction: it takes no bidding plan")
    if plan not in (PLAN_POLICY, *PLAN_CODES):
        raise InputError(f"bad plan {plan}: expected one of {(PLAN_POLICY, *PLAN_CODES)}")
    decide = PolicyDecider(rules, policies, stream)
    return decided_hand(hands, dealer, rules, decide, seat=seat, plan=plan, contract=contract)


def decided_hand(hands: Sequence[Sequence[int]], dealer: int, rules: PitchRules,
                 decide: Decider, seat: int = -1,
                 plan: int = PLAN_POLICY, contract: int = PASS) -> HandLog:
    """:func:`play_from` with every decision asked of ``decide`` (the seat, plan
    and contract unchecked): a :class:`PolicyDecider`, or a decider of its
    interface (a hand record's replay, ``simkit.pitch.record.ScriptDecider``)."""
    n = rules.players
    if seat >= 0 and contract != PASS:
        calls, pitcher, stuck = [Bid(seat, contract)], seat, False
    else:
        calls, contract, pitcher, stuck = run_auction(rules, dealer, hands, decide,
                                                      plan_seat=seat, plan=plan)
    if pitcher < 0:
        return thrown_in_log(rules, dealer, hands, calls)

    trump, plays, winners = play_tricks(rules, hands, pitcher, decide)
    tricks = [winners.count(s) for s in range(n)]
    pts = award_points(rules, hands, trump, [plays[i:i + n] for i in range(0, len(plays), n)])
    score, made = score_hand(rules, contract, pitcher, tricks, pts)
    money = hand_money(rules, score, contract, pitcher, made)
    return HandLog(rules=rules, dealer=dealer, hands=[list(h) for h in hands], auction=calls,
                   stuck=stuck, contract=contract, pitcher=pitcher, trump=trump, plays=plays,
                   winners=winners, tricks=tricks, game_points=pts.game_points, high=pts.high,
                   low=pts.low, jack=pts.jack, game_winners=pts.game_winners,
                   points=pts.points, score=score, made=made, money_units=money)


def play_hand(rules: PitchRules, policies: Sequence[Policy | str], seed: int, index: int,
              dealer: int, fixed: tuple[int, Sequence[int]] | None = None,
              contract: int | None = None) -> HandLog:
    """Hand ``index`` of a run with seed ``seed``: stream ``(seed, index)``, the
    deal (§1), then :func:`play_from`.

    With ``fixed = (seat, cards)`` the advisor's deal (§8.3): a ``contract``
    of 2, 3, 4 or 5 makes the seat the pitcher with no auction; a pass (0 or
    None) is :func:`plan_hand` with the plan ``pass``.
    """
    if fixed is None:
        if contract not in (None, PASS):
            raise InputError("a contract needs a fixed hand")
        stream = Stream(seed, index)
        hands = deal(stream, rules.players, dealer)
        return play_from(hands, dealer, rules, policies, stream)
    seat, cards = fixed
    if contract in (None, PASS):
        return plan_hand(rules, policies, seed, index, dealer=dealer, cards=cards, seat=seat,
                         plan=PLAN_PASS)
    stream = Stream(seed, index)
    hands = deal_fixed(stream, rules.players, dealer, seat, cards)
    return play_from(hands, dealer, rules, policies, stream, seat=seat, contract=contract)


def plan_hand(rules: PitchRules, policies: Sequence[Policy | str], seed: int, index: int,
              dealer: int, cards: Sequence[int], seat: int, plan: int) -> HandLog:
    """Sample ``index`` of the advisor's bidding plans (§8.4): stream ``(seed, index)``,
    the deal with ``seat`` holding ``cards`` (§8.3), then the whole hand with the
    seat held to ``plan`` through the auction and the others bidding by their
    policies."""
    stream = Stream(seed, index)
    hands = deal_fixed(stream, rules.players, dealer, seat, cards)
    return play_from(hands, dealer, rules, policies, stream, seat=seat, plan=plan)


# ---------------------------------------------------------------------------
# §7 Sessions
# ---------------------------------------------------------------------------

#: Who led a session not yet played: nobody.
NO_DRAMA = drama.Drama(0, False, -1)

@dataclass
class Player:
    """One player of a session, numbered in order of arrival (§7)."""

    player: int
    policy: Policy
    seat: int                  # starting seat 1..N (N = the first dealer), 0 if joined
    joined: int                # hands played before joining (0 for starters)
    start_score: int
    score: int
    left: int = -1             # hands played when leaving, -1 if seated at the end
    hands: int = 0
    units: int = 0             # money, in 1/840 cent
    moons_made: int = 0
    moons_failed: int = 0
    pitched: int = 0
    made: int = 0


@dataclass
class SessionLog:
    """One money session (§7).

    ``hands[h]`` is the log of hand ``h`` (seats are positions in
    ``seatings[h]``, the player ids seated for it in seat order);
    ``dealers[h]`` is that hand's dealer position; ``tops[h]`` the bitmask of
    the players of hand ``h`` with the highest score after it, ``winners``
    that of the players seated at the end with the highest final score, and
    ``who_led`` the session's lead changes, comeback and settled hand
    (:func:`simkit.base.drama.drama` of those two).
    """

    index: int
    rules: PitchRules
    first_dealer: int
    players: list[Player]
    hands: list[HandLog] = field(default_factory=list)
    seatings: list[list[int]] = field(default_factory=list)
    dealers: list[int] = field(default_factory=list)
    ended_by_target: bool = False
    tops: list[int] = field(default_factory=list)
    winners: int = 0
    who_led: drama.Drama = NO_DRAMA

    def rows(self) -> list[dict[str, Any]]:
        """One record per player who took part, by player id (§7)."""
        out = []
        for p in self.players:
            out.append({
                "session": self.index, "player": p.player, "policy": p.policy.text(),
                "seat": p.seat, "joined": p.joined, "left": p.left, "hands": p.hands,
                "score": p.score, "money": p.units / UNITS_PER_DOLLAR,
                "moons_made": p.moons_made, "moons_failed": p.moons_failed,
                "pitched": p.pitched, "made": p.made, "top": bool(self.winners >> p.player & 1),
                "session_hands": len(self.hands), "ended_by_target": bool(self.ended_by_target),
                "lead_changes": self.who_led.lead_changes, "comeback": self.who_led.comeback,
                "settled": self.who_led.settled, "first_dealer": self.first_dealer,
            })
        return out


def _score_hand(hand: HandLog, rules: PitchRules, players: list[Player],
                seats: list[int]) -> None:
    """Add a played hand to the seated players' scores and counts (§7); a moon is
    paid for at once, by or to every other seated player."""
    for pos, j in enumerate(seats):
        players[j].score += hand.score[pos]
        players[j].hands += 1
    if hand.thrown_in:
        return
    p = players[seats[hand.pitcher]]
    p.pitched += 1
    p.made += hand.made
    if hand.moon:
        p.moons_made += hand.made
        p.moons_failed += not hand.made
        each = moon_units(rules, hand.made)
        for j in seats:
            if j != p.player:
                players[j].units -= each
                p.units += each


def _leave(stream: Stream, rules: PitchRules, players: list[Player], seats: list[int],
           played: int) -> None:
    """§7: after a hand each player seated before it leaves with chance ``leave``
    (one ``below(1000)`` each, in seat order) while three remain; a leaver is
    settled at once and the others share the payment."""
    for j in list(seats):
        draw = stream.below(1000)
        if draw < rules.leave_permille and len(seats) >= 3:
            scores = [players[k].score for k in seats]
            receives = settle_units(rules, players[j].score, scores)
            share = receives // (len(seats) - 1)
            assert share * (len(seats) - 1) == receives   # 840 divisible by n - 1 too
            for k in seats:
                if k != j:
                    players[k].units -= share
            players[j].units += receives
            players[j].left = played
            seats.remove(j)


def _join(stream: Stream, rules: PitchRules, players: list[Player], seats: list[int],
          policies: Sequence[Policy], played: int) -> None:
    """§7: then one new player joins with chance ``join`` (one ``below(1000)``)
    while a seat is free, at the table's average score (or zero), taking the
    last seat, right of the first."""
    draw = stream.below(1000)
    if draw < rules.join_permille and len(seats) < MAX_PLAYERS \
            and len(players) < MAX_SESSION_PLAYERS:
        scores = [players[k].score for k in seats]
        start = sum(scores) // len(scores) if rules.join_score == JoinScore.AVERAGE else 0
        j = len(players)
        players.append(Player(j, policies[j % len(policies)], seat=0, joined=played,
                              start_score=start, score=start))
        seats.append(j)


def _next_dealer(before: list[int], dealer_id: int, seats: list[int]) -> int:
    """The next dealer's position: the first after the dealer, in the seat order
    before any left, who is still seated (§7)."""
    k = before.index(dealer_id)
    for step in range(1, len(before) + 1):
        candidate = before[(k + step) % len(before)]
        if candidate in seats:
            return seats.index(candidate)
    raise AssertionError("nobody is seated")


def play_session(rules: PitchRules, policies: Sequence[Policy | str], seed: int,
                 index: int) -> SessionLog:
    """Session ``index`` of a run (§7), all from the stream ``(seed, index)``.

    Order of draws: the first dealer (``below(N)``), then each hand's deal and
    its random decisions, then (if another hand follows) the leave draws, one
    ``below(1000)`` per seated player in seat order when ``leave > 0``, and
    one ``below(1000)`` for a join when ``join > 0``.
    """
    stream = Stream(seed, index)
    chosen = make_policies(list(policies), len(policies))   # specs or Policy objects
    N = rules.players
    check_players(N)

    first_dealer = stream.below(N)
    players = [Player(j, chosen[j % len(chosen)], seat=(j - first_dealer - 1) % N + 1,
                      joined=0, start_score=0, score=0) for j in range(N)]
    seats = list(range(N))                  # player ids, in seat order
    dealer = first_dealer                   # a position in ``seats``
    log = SessionLog(index, rules, first_dealer, players)

    while len(log.hands) < rules.session_hands:
        n = len(seats)
        table = rules if n == rules.players else rules.replace(players=n)
        hands = deal(stream, n, dealer)
        hand = play_from(hands, dealer, table, tuple(players[j].policy for j in seats), stream)
        log.hands.append(hand)
        log.seatings.append(list(seats))
        log.dealers.append(dealer)
        _score_hand(hand, rules, players, seats)
        # who leads: among the players of this hand, before anyone leaves or joins
        log.tops.append(drama.top([p.score for p in players], max,
                                  present=[p.player in seats for p in players]))
        played = len(log.hands)
        if rules.target > 0 and any(players[j].score >= rules.target for j in seats):
            log.ended_by_target = True
            break
        if played == rules.session_hands:
            break
        before, dealer_id = list(seats), seats[dealer]
        if rules.leave_permille > 0:
            _leave(stream, rules, players, seats, played)
        if rules.join_permille > 0:
            _join(stream, rules, players, seats, policies=chosen, played=played)
        dealer = _next_dealer(before, dealer_id, seats)

    # -- settle the seated players at the end
    scores = [players[j].score for j in seats]
    for j in seats:
        players[j].units += settle_units(rules, players[j].score, scores)
    best = max(scores)
    log.winners = sum(1 << j for j in seats if players[j].score == best)
    log.who_led = drama.drama(log.tops, log.winners)
    total = sum(p.units for p in players)
    assert total == 0, f"session money does not sum to zero: {total} units"
    return log
