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

Layout: records; §1 deal (and §8.3 fixed-hand deals); §3 card play helpers;
§2 auction (one lap or open, and §8.4 bidding plans); §4 points; §5 scoring;
§7 money; §8 policies (random, heuristic); the hand loop; the session loop
(§7).  A hand record's text and its replay are ``simkit/pitch/record.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from math import comb

from simkit import drama, moves
from simkit.errors import InputError
from simkit.moves import AtTable, Bid, Play, highest_calls, tricks_of
from simkit.pitch.policies import TABLE_OFFSET, HeuristicParams, make_policies
from simkit.pitch.rules import (
    ACE,
    DECK,
    GAME_POINTS,
    HAND_SIZE,
    JACK,
    KING,
    LEVELS,
    MAX_PLAYERS,
    MAX_SESSION_PLAYERS,
    MIN_PLAYERS,
    MONEY_UNITS_PER_CENT,
    MOON,
    NO_TRUMP,
    PASS,
    PLAN_CODES,
    PLAN_MOON,
    PLAN_PASS,
    PLAN_POLICY,
    QUEEN,
    TRUMP_TEXT,
    TWO,
    PitchRules,
)
from simkit.policy import Policy
from simkit.rng import Stream

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

    def pitcher_features(self) -> dict:
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

    def record(self) -> dict:
        """The §6 hand record as plain Python values (the hand number is the caller's)."""
        n = self.players
        rec: dict = {"dealer": self.dealer}
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
# §1 Players, deck and deal
# ---------------------------------------------------------------------------

#: Card ids (§1): a suit C D H S = 0..3 and a rank position 2 = 0, ..., 10 = 8,
#: J = 9, Q = 10, K = 11, A = 12 make card ``suit * 13 + position``.
card_of = DECK.at
suit_of = DECK.suit
position_of = DECK.position


def game_points_of(card: int) -> int:
    """Game points of a card (§4): A 4, K 3, Q 2, J 1, 10 10, others 0."""
    return GAME_POINTS[position_of(card)]


def check_players(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InputError(f"Pitch is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")


def deal(stream: Stream, players: int, dealer: int) -> list[list[int]]:
    """Deal six cards to each seat (§1); returns the hands by seat, in deal order.

    Only the dealt cards are drawn: the deck in id order goes through a
    forward Fisher-Yates shuffle stopped after ``6N`` steps
    (``stream.sample``).  The card at position ``p`` goes to hand ``p mod N``;
    hand ``r`` belongs to the seat ``r + 1`` places left of the dealer.
    """
    check_players(players)
    deck = list(range(DECK.size))
    dealt = HAND_SIZE * players
    stream.sample(deck, dealt)
    hands: list[list[int]] = [[] for _ in range(players)]
    for p in range(dealt):
        r = p % players
        hands[(dealer + 1 + r) % players].append(deck[p])
    return hands


def deal_fixed(stream: Stream, players: int, dealer: int, seat: int,
               cards: Sequence[int]) -> list[list[int]]:
    """The advisor's deal (§8.3): ``seat`` holds ``cards``; the rest is dealt as in §1.

    The other 46 cards, in id order, go through ``6(N - 1)`` forward
    Fisher-Yates steps; position ``p`` goes to the ``(p mod (N - 1))``-th of
    the other seats counted clockwise from left of the dealer.
    """
    check_players(players)
    cards = [int(c) for c in cards]
    if len(cards) != HAND_SIZE or len(set(cards)) != HAND_SIZE \
            or not all(0 <= c < DECK.size for c in cards):
        raise InputError(f"a fixed Pitch hand is {HAND_SIZE} distinct cards, got "
                         + " ".join(str(c) for c in cards))
    if not 0 <= seat < players:
        raise InputError(f"bad seat {seat}: seats are 0 to {players - 1}")
    rest = [c for c in range(DECK.size) if c not in cards]
    dealt = HAND_SIZE * (players - 1)
    stream.sample(rest, dealt)
    clockwise = [(dealer + 1 + i) % players for i in range(players)]
    others = [s for s in clockwise if s != seat]
    hands: list[list[int]] = [[] for _ in range(players)]
    hands[seat] = list(cards)
    for p in range(dealt):
        hands[others[p % (players - 1)]].append(rest[p])
    return hands


# ---------------------------------------------------------------------------
# §3 Play: legal cards and trick winners
# ---------------------------------------------------------------------------

def legal_cards(hand: Sequence[int], led: int | None, trump: int | None) -> list[int]:
    """The cards a player may play, in increasing card id (§3).

    ``led`` is the suit of the led card (None when leading: any card).  A
    player holding a card of the led suit may play any card of that suit or
    any trump (trumping is allowed even when able to follow); a player with
    none of the led suit may play any card.
    """
    if led is not None and any(suit_of(c) == led for c in hand):
        return sorted(c for c in hand if suit_of(c) == led or suit_of(c) == trump)
    return sorted(hand)


def beats(card: int, best: int, trump: int) -> bool:
    """Does ``card`` beat ``best``, the card winning the trick so far? (§3, §8.2)

    It does if it is a trump and ``best`` is not, or it is of ``best``'s suit
    and higher.
    """
    if suit_of(card) == trump and suit_of(best) != trump:
        return True
    return suit_of(card) == suit_of(best) and position_of(card) > position_of(best)


def winning_play(trick: Sequence[Play], trump: int) -> Play:
    """The play winning a (possibly unfinished) trick so far (§3).

    The highest trump wins; with no trump in it, the highest card of the led
    suit.  Scanning in play order with :func:`beats` gives exactly that: a
    card neither trump nor of the winning card's suit never beats.
    """
    return moves.winning_play(trick, lambda card, best: beats(card, best, trump))


def trick_winner(trick: Sequence[Play], trump: int) -> int:
    return winning_play(trick, trump).seat


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
        return [PASS] + higher
    if high == PASS:
        if rules.all_pass == "redeal":
            return [PASS] + higher
        return [2] if rules.stuck_bid == "two" else higher
    steal = [high] if rules.steal == "match" else []
    return [PASS] + steal + higher


def is_forced(rules: PitchRules, is_dealer: bool, high: int) -> bool:
    """The dealer is stuck: everyone else passed and ``all_pass = forced`` (§2)."""
    return is_dealer and high == PASS and rules.all_pass == "forced"


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
    if is_dealer and rules.steal == "match" and high != PASS:
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
    if rules.auction == "one_lap":
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
    if rules.auction == "one_lap":
        return (dealer + 1 + len(calls)) % n
    passed = {b.seat for b in calls if b.level == PASS}
    seat = (calls[-1].seat + 1) % n if calls else (dealer + 1) % n
    while seat in passed:
        seat = (seat + 1) % n
    return seat


def plan_bid(rules: PitchRules, plan: int, options: Sequence[int]) -> int:
    """The call of a seat held to a bidding plan (§8.4), among the legal ``options``.

    - ``pass`` (0): passes wherever it may; a stuck dealer bids its least
      legal bid, 2;
    - the moon (5): the highest legal call: the moon, except that a stuck
      dealer under ``stuck_bid = two`` bids 2 (a moon ends the auction, so
      the seat never speaks twice);
    - a ceiling L (2, 3, 4), open auction: its least legal bid (the steal
      level for a dealer who may steal, else one above the high bid, at
      least 2) if that is at most L, else a pass; a stuck dealer's least
      legal bid is 2;
    - a ceiling L, one lap: L if L is a legal call (above the high bid, or
      equal to it for a dealer who may steal), else a pass; a stuck dealer
      bids L when it may (``stuck_bid = any``), else 2.
    """
    bids = [level for level in options if level != PASS]
    if plan == PLAN_PASS:
        return PASS if PASS in options else min(bids)
    if plan == PLAN_MOON:
        return max(bids)
    if rules.auction == "open":
        least = min(bids)
        return least if least <= plan else PASS
    if plan in options:
        return plan
    return PASS if PASS in options else min(bids)


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
    low = won_in[lowest] if rules.low == "captured" else holder[lowest]
    jack_card = card_of(trump, JACK)
    jack = won_in[jack_card] if jack_card in holder else -1

    game_winners = 0
    top = max(game_points)
    if sum(game_points) > 0:                          # some game points were dealt
        tied = [s for s in range(n) if game_points[s] == top]
        if len(tied) == 1 or rules.game_tie == "all":
            game_winners = sum(1 << s for s in tied)

    points = [0] * n
    for seat in (high, low, jack):
        if seat >= 0:
            points[seat] += 1
    for s in range(n):
        if game_winners >> s & 1:
            points[s] += 1
    return Points(high, low, jack, game_points, game_winners, points)


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
        needed = 4 if rules.moon_needs == "four" else pts.awarded
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
    seated players (its own included), in units: ``cents × (s - S/n)`` (§7).

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
# §8.2 The heuristic policy
# ---------------------------------------------------------------------------

@cache
def unseen_chance(players: int) -> tuple[int, ...]:
    """``Q[k]`` (§8.2): hundredths, rounded down, of the chance that none of
    ``k`` given unseen cards went to another player, for k = 0..12.

    ``m = 6(N - 1)`` of the 46 unseen cards go to the others.
    """
    m = HAND_SIZE * (players - 1)
    unseen = DECK.size - HAND_SIZE
    return tuple((100 * comb(unseen - k, m)) // comb(unseen, m) for k in range(13))


def hundredths(points: float) -> int:
    """A parameter in points as whole hundredths (§8.2)."""
    return int(round(points * 100))


def estimate(hand: Sequence[int], suit: int, players: int, low: str = "held") -> int:
    """``est(s)``, in hundredths of a point, of a hand with ``suit`` as trump (§8.2).

    The hand must hold at least one card of ``suit``.  ``low`` is how the Low
    point is valued: ``held`` (the chance of holding the lowest trump dealt,
    times 3/4) or ``captured`` (the chance of capturing it, §8.2).
    """
    q = unseen_chance(players)
    held = [position_of(c) for c in hand if suit_of(c) == suit]
    n = len(held)
    top, bot = max(held), min(held)
    high = q[12 - top]                                # the 12 - top higher cards are all out
    if low == "captured":
        # the first trump lead, if it holds, draws every other player's lowest trump
        qh, qb = q[12 - top], q[bot]
        low_part = (qh * (95 - qb // 5) + (100 - qh) * 40) // 100
    else:
        low_part = (3 * q[bot]) // 4                  # the bot lower cards are all out
    if JACK in held:
        jack = 85 if any(p in held for p in (QUEEN, KING, ACE)) else 55
    elif ACE in held:
        jack = ((100 - q[1]) * 40) // 100             # the jack is out, and the ace may catch it
    else:
        jack = 0
    g = sum(game_points_of(c) for c in hand)          # the whole hand
    game = min(90, (100 * g) // (8 * players) + 5 * n)
    return high + low_part + jack + game


def low_model(params: HeuristicParams, low_rule: str) -> str:
    """How the estimate values Low (§8.2, ``low_value``): a capture chance when
    ``low_value = rules`` and Low goes by capture, else as held."""
    return "captured" if params.low_value == "rules" and low_rule == "captured" else "held"


def hand_suit(hand: Sequence[int], players: int, low: str = "held") -> tuple[int, int]:
    """``(suit, est)``: the held suit of highest estimate, ties to the lower suit (§8.2)."""
    best_suit, best_est = -1, None
    for s in range(4):
        if not any(suit_of(c) == s for c in hand):
            continue
        est = estimate(hand, s, players, low)
        if best_est is None or est > best_est:        # strict: ties keep the lower suit
            best_suit, best_est = s, est
    return best_suit, best_est


def ace_run(hand: Sequence[int], suit: int) -> int:
    """How many cards of ``suit`` the hand holds consecutively from the ace down."""
    run = 0
    for position in range(ACE, -1, -1):
        if card_of(suit, position) not in hand:
            break
        run += 1
    return run


def sure_moon(hand: Sequence[int], suit: int, params: HeuristicParams, low_rule: str) -> bool:
    """``moon_rule = sure`` (§8.2): the jack of ``suit`` held, a run of at least
    ``moon_run`` from its ace down, and every card of another suit in a run from
    that suit's ace (all higher cards of its suit held); under ``low = dealt``
    also the two of ``suit``."""
    if card_of(suit, JACK) not in hand or ace_run(hand, suit) < params.moon_run:
        return False
    if low_rule == "dealt" and card_of(suit, TWO) not in hand:
        return False
    for c in hand:
        if suit_of(c) != suit and any(card_of(suit_of(c), p) not in hand
                                      for p in range(position_of(c) + 1, ACE + 1)):
            return False
    return True


def desired_bid(hand: Sequence[int], players: int, params: HeuristicParams,
                low_rule: str = "captured") -> int:
    """The heuristic's desired bid (§8.2 "Bidding").

    The moon by ``moon_rule``: ``sure`` (:func:`sure_moon`) or ``run`` (at
    least ``moon_trumps`` cards of the hand's suit and a run held from its ace
    down at least ``moon_run`` long); else ``v = (est + aggression + 50) //
    100`` (the estimate rounded to the nearest point, halves up; floor
    division): 4 if ``v >= 4``, v if 2 or 3, else a pass.  With ``tuned`` the
    table size's ``TABLE_OFFSET`` is added to ``aggression``.  ``low_rule`` is
    the rule ``low`` in force.
    """
    suit, est = hand_suit(hand, players, low_model(params, low_rule))
    if params.moon_rule == "sure":
        if sure_moon(hand, suit, params, low_rule):
            return MOON
    else:
        held = sum(1 for c in hand if suit_of(c) == suit)
        if held >= params.moon_trumps and ace_run(hand, suit) >= params.moon_run:
            return MOON
    aggression = hundredths(params.aggression)
    if params.tuned:
        aggression += hundredths(TABLE_OFFSET[players])
    v = (est + aggression + 50) // 100
    if v >= 4:
        return 4
    if v in (2, 3):
        return v
    return PASS


def heuristic_bid(hand: Sequence[int], players: int, params: HeuristicParams,
                  options: Sequence[int], rules: PitchRules | None = None,
                  is_dealer: bool = False, high: int = PASS) -> int:
    """The heuristic's call on its turn (§8.2 "Bidding"), among the legal ``options``.

    With ``dealer_match``, a dealer whose call ends the auction (one lap; or
    everyone else has passed; or it may steal) and whose desired bid is a
    number at least its least legal bid calls that least bid.  Otherwise its
    desired bid if that is a legal call: higher than the current high bid, or
    equal to it for a dealer who may steal, or, for a stuck dealer, a level it
    may bid (any level under ``stuck_bid = any``, only 2 under ``two``).
    Otherwise it passes; a stuck dealer, who may not pass, bids 2.
    """
    rules = rules if rules is not None else PitchRules(players=players)
    want = desired_bid(hand, players, params, rules.low)
    if params.dealer_match and is_dealer and want not in (PASS, MOON):
        least = min(level for level in options if level != PASS)
        ends = rules.auction == "one_lap" or high == PASS or rules.steal == "match"
        if ends and least <= want:
            return least
    if want in options:
        return want
    return PASS if PASS in options else 2


def cost(card: int, trump: int) -> int:
    """How much giving a card away hurts (§8.2): a trump 1000 + its position;
    any other card 16 × its game points + its position."""
    if suit_of(card) == trump:
        return 1000 + position_of(card)
    return 16 * game_points_of(card) + position_of(card)


def lowest(cards: Sequence[int], trump: int) -> int:
    """The card of least cost, ties to the smaller id (§8.2)."""
    return min(cards, key=lambda c: (cost(c, trump), c))


def cheapest_winner(cards: Sequence[int], trump: int) -> int:
    """The card of least ``position + (100 if trump)``, ties to the smaller id (§8.2)."""
    return min(cards, key=lambda c: (position_of(c) + (100 if suit_of(c) == trump else 0), c))


def feed_value(card: int, trump: int) -> int:
    """Game points, + 20 for the jack of trumps (§8.2 following, rule 1)."""
    return game_points_of(card) + (20 if card == card_of(trump, JACK) else 0)


def boss(suit: int, played) -> int | None:
    """The highest card of a suit not yet played (held by anyone, or not dealt), §8.2."""
    for position in range(ACE, -1, -1):
        c = card_of(suit, position)
        if c not in played:
            return c
    return None


def trump_voids(plays: Sequence[Play], players: int, trump: int | None) -> set[int]:
    """Seats known to hold no trump (§8.2): each played a non-trump to a trick led
    with a trump (§3: a player holding a trump must play one then)."""
    voids: set[int] = set()
    if trump is None:
        return voids
    for i, p in enumerate(plays):
        lead = plays[i - i % players]
        if suit_of(lead.card) == trump and suit_of(p.card) != trump:
            voids.add(p.seat)
    return voids


def unseen_cards(hand: Sequence[int], played: Sequence[int]) -> list[int]:
    """The cards a seat has not seen: neither in its hand nor played."""
    seen = set(hand) | set(played)
    return [c for c in range(DECK.size) if c not in seen]


def no_trump_chance(hand: Sequence[int], played: Sequence[int], trump: int, players: int,
                    seat: int, pitcher: int, voids: set[int]) -> int:
    """Hundredths, rounded down, of the chance that no opponent of the leader
    ``seat`` holds a trump (§8.2 "Leading"), at a lead.

    The opponents are every other seat for the pitcher, the pitcher for a
    non-pitcher; those known void are left out.  The ``u`` unseen trumps lie
    at random among the ``pool`` unseen cards that are not in a void player's
    hand (every other seat holds as many cards as the leader; the undealt
    cards are in the pool); the opponents hold ``r`` of them:
    ``C(pool - u, r) / C(pool, r)``.
    """
    k = len(hand)
    u = sum(1 for c in unseen_cards(hand, played) if suit_of(c) == trump)
    others = [s for s in range(players) if s != seat]
    void_others = sum(1 for s in others if s in voids)
    pool = DECK.size - k - len(played) - void_others * k
    opponents = others if seat == pitcher else [pitcher]
    r = k * sum(1 for s in opponents if s not in voids)
    return (100 * comb(pool - u, r)) // comb(pool, r)


def lead_card(hand: Sequence[int], played: Sequence[int], trump: int | None,
              players: int, params: HeuristicParams | None = None, seat: int = 0,
              pitcher: int = 0, voids: set[int] | frozenset = frozenset(),
              low_rule: str = "captured") -> int:
    """The heuristic's lead (§8.2 "Leading"): the first rule that applies.

    ``trump`` is None for the pitcher's first lead (which names trumps).

    1. the pitcher's first lead: the highest card of the hand's suit;
    2. holding the boss trump while a trump is outstanding (neither played
       nor held): the highest trump;
    3. with no trump outstanding, or the chance that no opponent holds a
       trump (:func:`no_trump_chance`) at least ``cash_chance``, holding a
       non-trump card that is the boss of its suit: that card (of the lowest
       suit, if several);
    4. the lowest card.
    """
    params = params if params is not None else HeuristicParams()
    if trump is None:
        suit, _ = hand_suit(hand, players, low_model(params, low_rule))
        return max((c for c in hand if suit_of(c) == suit), key=position_of)
    played = set(played)
    outstanding = [card_of(trump, p) for p in range(13)
                   if card_of(trump, p) not in played and card_of(trump, p) not in hand]
    boss_trump = boss(trump, played)
    if boss_trump is not None and boss_trump in hand and outstanding:
        return max((c for c in hand if suit_of(c) == trump), key=position_of)
    if not outstanding or no_trump_chance(hand, played, trump, players, seat, pitcher,
                                          set(voids)) >= params.cash_chance:
        for s in range(4):
            if s == trump:
                continue
            b = boss(s, played)
            if b is not None and b in hand:
                return b
    return lowest(hand, trump)


def beatable(card: int, trump: int, unseen: set[int], opponents: Sequence[int],
             voids: set[int]) -> bool:
    """Could an opponent still to play beat ``card`` if it were winning? (§8.2)

    Yes if an unseen card of its suit is higher, or, for a non-trump, if an
    opponent to play is not known void in trumps; a trump only to a higher
    unseen trump held by an opponent not known void.
    """
    if not opponents:
        return False
    s = suit_of(card)
    higher = any(suit_of(c) == s and position_of(c) > position_of(card) for c in unseen)
    free = any(o not in voids for o in opponents)
    if s == trump:
        return higher and free
    return higher or free


def follow_card(seat: int, legal: Sequence[int], trick: Sequence[Play], trump: int,
                pitcher: int, params: HeuristicParams | None = None,
                hand: Sequence[int] = (), played: Sequence[int] = (),
                voids: set[int] | frozenset = frozenset(), players: int = 4) -> int:
    """The heuristic's card when following (§8.2 "Following"), among the legal cards.

    The non-pitchers are partners against the pitcher.  ``hand`` and
    ``played`` (every card on the table, this trick's included) say which
    cards are unseen; ``voids`` who showed out of trumps.  The opponents to
    come: the seats still to play to this trick for the pitcher; the pitcher,
    if still to play, for a non-pitcher.

    1. a non-pitcher whose partner is winning, the pitcher having played:
       the legal card of most feed value, ties to the lowest;
    2. a non-pitcher whose partner is winning, the pitcher still to play:
       the lowest legal card, unless (``partner_cover`` safe or boss) the
       pitcher could beat the partner's card: then the cheapest winner among
       the cards that beat it and that the pitcher cannot beat; else (boss)
       the cheapest winner among the non-trumps that beat it, are the boss of
       their suit and have fewer than ``risk_points`` game points; else the
       lowest legal card;
    3. if a legal card beats the winning card: the cheapest such winner,
       unless it has at least ``risk_points`` game points and an opponent to
       come could beat it: then the lowest legal card;
    4. the lowest legal card.
    """
    params = params if params is not None else HeuristicParams()
    best = winning_play(trick, trump)
    leader = trick[0].seat
    to_come = [(leader + k) % players for k in range(len(trick) + 1, players)]
    opponents = to_come if seat == pitcher else [s for s in to_come if s == pitcher]
    unseen = set(unseen_cards(hand, played))
    voids = set(voids)
    winners = [c for c in legal if beats(c, best.card, trump)]
    if seat != pitcher and best.seat != pitcher:      # a partner is winning
        if any(p.seat == pitcher for p in trick):
            return min(legal, key=lambda c: (-feed_value(c, trump), cost(c, trump), c))
        if params.partner_cover == "low" or not beatable(best.card, trump, unseen, opponents,
                                                         voids):
            return lowest(legal, trump)
        if params.partner_cover == "boss" and suit_of(best.card) != trump and not any(
                suit_of(u) == suit_of(best.card) and position_of(u) > position_of(best.card)
                for u in unseen):
            return lowest(legal, trump)               # only a trump beats it: no cover helps
        safe = [c for c in winners if not beatable(c, trump, unseen, opponents, voids)]
        if safe:
            return cheapest_winner(safe, trump)
        if params.partner_cover == "boss":
            tops = [c for c in winners if suit_of(c) != trump
                    and game_points_of(c) < params.risk_points
                    and not any(suit_of(u) == suit_of(c) and position_of(u) > position_of(c)
                                for u in unseen)]
            if tops:
                return cheapest_winner(tops, trump)
        return lowest(legal, trump)
    if winners:
        w = cheapest_winner(winners, trump)
        if game_points_of(w) >= params.risk_points and beatable(w, trump, unseen, opponents,
                                                                voids):
            return lowest(legal, trump)
        return w
    return lowest(legal, trump)


# ---------------------------------------------------------------------------
# §8 Who decides: each seat's policy
# ---------------------------------------------------------------------------

class PolicyDecider:
    """Decisions by each seat's policy (§8).

    ``random`` draws one ``stream.below(n)`` per decision, in decision order,
    over the options in the §8.1 order (also when there is one option);
    ``heuristic`` follows §8.2 and never draws.
    """

    def __init__(self, rules: PitchRules, policies: Sequence[Policy], stream: Stream):
        policies = make_policies(list(policies), rules.players)   # specs or Policy objects
        for p in policies:
            if p.name not in ("random", "heuristic"):
                raise InputError(f"unknown Pitch policy {p.name!r}: expected random or heuristic")
        self.rules, self.policies, self.stream = rules, tuple(policies), stream

    def _random(self, seat: int) -> bool:
        return self.policies[seat].name == "random"

    def bid(self, seat: int, hand: Sequence[int], options: Sequence[int],
            is_dealer: bool = False, high: int = PASS) -> int:
        if self._random(seat):
            return options[self.stream.below(len(options))]
        return heuristic_bid(hand, self.rules.players, self.policies[seat].params, options,
                             self.rules, is_dealer, high)

    def play(self, seat: int, hand: Sequence[int], legal: Sequence[int], trick: Sequence[Play],
             plays: Sequence[Play], trump: int | None, pitcher: int) -> int:
        """``plays``: every card played so far, this trick's included, with its seat."""
        if self._random(seat):
            return legal[self.stream.below(len(legal))]
        n = self.rules.players
        params = self.policies[seat].params
        played = [p.card for p in plays]
        voids = trump_voids(plays, n, trump)
        if not trick:
            return lead_card(hand, played, trump, n, params, seat, pitcher, voids,
                             self.rules.low)
        return follow_card(seat, legal, trick, trump, pitcher, params, hand, played, voids, n)


# ---------------------------------------------------------------------------
# The hand: auction, play, points, scoring
# ---------------------------------------------------------------------------

def run_auction(rules: PitchRules, dealer: int, hands: Sequence[Sequence[int]],
                decide: PolicyDecider, plan_seat: int = -1,
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
            level = decide.bid(seat, hands[seat], options, is_dealer, high)
        assert level in options, (seat, level, options)
        calls.append(Bid(seat, level))
        stuck = stuck or is_forced(rules, is_dealer, high)
    high, pitcher = high_bid(calls)
    return calls, high, pitcher, stuck


def play_tricks(rules: PitchRules, hands: Sequence[Sequence[int]], pitcher: int,
                decide: PolicyDecider) -> tuple[int, list[Play], list[int]]:
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
            card = decide.play(seat, holding[seat], legal, trick, plays, trump, pitcher)
            assert card in legal, (seat, card, legal)
            if trump is None:
                trump = suit_of(card)                 # the pitcher's first lead names trumps
            holding[seat].remove(card)
            trick.append(Play(seat, card))
            plays.append(Play(seat, card))
        leader = trick_winner(trick, trump)
        winners.append(leader)
    return trump, plays, winners


def thrown_in_log(rules: PitchRules, dealer: int, hands, calls) -> HandLog:
    """The record of a hand nobody bid on (§2 ``redeal``): zeros everywhere."""
    n = rules.players
    return HandLog(rules, dealer, [list(h) for h in hands], list(calls), False, 0, -1, NO_TRUMP,
                   [], [], [0] * n, [0] * n, -1, -1, -1, 0, [0] * n, [0] * n, False, [0] * n)


def play_from(hands: Sequence[Sequence[int]], dealer: int, rules: PitchRules,
              policies: Sequence[Policy], stream: Stream, seat: int = -1,
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
    return decided_hand(hands, dealer, rules, decide, seat, plan, contract)


def decided_hand(hands: Sequence[Sequence[int]], dealer: int, rules: PitchRules,
                 decide: PolicyDecider, seat: int = -1,
                 plan: int = PLAN_POLICY, contract: int = PASS) -> HandLog:
    """:func:`play_from` with every decision asked of ``decide`` (the seat, plan
    and contract unchecked): a :class:`PolicyDecider`, or a decider of its
    interface (a hand record's replay, ``simkit.pitch.record.ScriptDecider``)."""
    n = rules.players
    if seat >= 0 and contract != PASS:
        calls, pitcher, stuck = [Bid(seat, contract)], seat, False
    else:
        calls, contract, pitcher, stuck = run_auction(rules, dealer, hands, decide, seat, plan)
    if pitcher < 0:
        return thrown_in_log(rules, dealer, hands, calls)

    trump, plays, winners = play_tricks(rules, hands, pitcher, decide)
    tricks = [winners.count(s) for s in range(n)]
    pts = award_points(rules, hands, trump, [plays[i:i + n] for i in range(0, len(plays), n)])
    score, made = score_hand(rules, contract, pitcher, tricks, pts)
    money = hand_money(rules, score, contract, pitcher, made)
    return HandLog(rules, dealer, [list(h) for h in hands], calls, stuck, contract, pitcher,
                   trump, plays, winners, tricks, pts.game_points, pts.high, pts.low, pts.jack,
                   pts.game_winners, pts.points, score, made, money)


def play_hand(rules: PitchRules, policies: Sequence[Policy], seed: int, index: int,
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
        return plan_hand(rules, policies, seed, index, dealer, cards, seat, PLAN_PASS)
    stream = Stream(seed, index)
    hands = deal_fixed(stream, rules.players, dealer, seat, cards)
    return play_from(hands, dealer, rules, policies, stream, seat, contract=contract)


def plan_hand(rules: PitchRules, policies: Sequence[Policy], seed: int, index: int,
              dealer: int, cards: Sequence[int], seat: int, plan: int) -> HandLog:
    """Sample ``index`` of the advisor's bidding plans (§8.4): stream ``(seed, index)``,
    the deal with ``seat`` holding ``cards`` (§8.3), then the whole hand with the
    seat held to ``plan`` through the auction and the others bidding by their
    policies."""
    stream = Stream(seed, index)
    hands = deal_fixed(stream, rules.players, dealer, seat, cards)
    return play_from(hands, dealer, rules, policies, stream, seat, plan)


# ---------------------------------------------------------------------------
# §7 Sessions
# ---------------------------------------------------------------------------

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
    (:func:`simkit.drama.drama` of those two).
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
    who_led: drama.Drama = drama.Drama(0, False, -1)

    def rows(self) -> list[dict]:
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


def _score_hand(hand, rules: PitchRules, players: list, seats: list[int]) -> None:
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


def _leave(stream: Stream, rules: PitchRules, players: list, seats: list[int],
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


def _join(stream: Stream, rules: PitchRules, players: list, seats: list[int],
          policies: list, played: int) -> None:
    """§7: then one new player joins with chance ``join`` (one ``below(1000)``)
    while a seat is free, at the table's average score (or zero), taking the
    last seat, right of the first."""
    draw = stream.below(1000)
    if draw < rules.join_permille and len(seats) < MAX_PLAYERS \
            and len(players) < MAX_SESSION_PLAYERS:
        scores = [players[k].score for k in seats]
        start = sum(scores) // len(scores) if rules.join_score == "average" else 0
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


def play_session(rules: PitchRules, policies: Sequence[Policy], seed: int,
                 index: int) -> SessionLog:
    """Session ``index`` of a run (§7), all from the stream ``(seed, index)``.

    Order of draws: the first dealer (``below(N)``), then each hand's deal and
    its random decisions, then (if another hand follows) the leave draws, one
    ``below(1000)`` per seated player in seat order when ``leave > 0``, and
    one ``below(1000)`` for a join when ``join > 0``.
    """
    stream = Stream(seed, index)
    policies = list(policies)
    policies = list(make_policies(policies, len(policies)))   # specs or Policy objects
    N = rules.players
    check_players(N)

    first_dealer = stream.below(N)
    players = [Player(j, policies[j % len(policies)], seat=(j - first_dealer - 1) % N + 1,
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
            _join(stream, rules, players, seats, policies, played)
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
