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

Layout: records; §1 deal; §3 auction and trump; §5 scoring; §7 policies
(random, heuristic, expert); the hand loop with the play of §4; hands without an
auction (§9: a fixed hand, a declared contract); bidding plans (§9.3: a
fixed hand whose seat bids by a plan); and the game loop (§6).  A hand's
text record, its reader and its replay are in ``record.py``.

Two lower modules hold parts of the rule book, and their names are imported
here: ``tricks.py`` the card ids and seats of §1, the card ranking of §2 and
the trick primitives of §4 (:class:`Play`, :func:`effective_suit`,
:func:`trick_winner`, :func:`legal_cards`, ...), which the reference solver
(``reference_solver.py``, §10) shares; ``reference_expert.py`` the expert's
search (§7.3: its candidates, worlds, goal and choice), on that solver.
:func:`expert_card` here gives it the heuristic's card as its tie-break.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from simkit import drama
from simkit.errors import InputError
from simkit.moves import AtTable, Bid, highest_calls
from simkit.pepper import reference_expert
from simkit.pepper.policies import (
    TABLE_OFFSET,
    ExpertParams,
    HeuristicParams,
    hundredths,
    make_policies,
)
from simkit.pepper.rules import (
    ACE,
    DECK,
    KING,
    NO_TRUMP,
    PLAN_PASS,
    PLAN_POLICY,
    QUEEN,
    TRUMP_TEXT,
    PepperRules,
)
from simkit.pepper.tricks import (
    Play,
    PlayView,
    beats,
    card_of,
    discard_value,
    discarded,
    effective_suit,
    is_left_bower,
    is_right_bower,
    is_trump,
    legal_cards,
    partner_of,
    rank_of,
    same_side,
    shown_out,
    suit_cards,
    suit_of,
    trick_winner,
    trump_position,
    winning_play,
)
from simkit.policy import Policy
from simkit.rng import Stream

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
    settled round, :mod:`simkit.drama`)."""

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


def bid_options(rules: PepperRules, high: int) -> list[int]:
    """Legal calls (§3.1, in the order §7.1 draws from): pass, then every level
    above the current high bid up to Kubwa, increasing."""
    return [0] + list(range(high + 1, rules.kubwa + 1))


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
    if rules.auction == "open":
        passed = {b.seat for b in calls if b.level == 0}
        if len(passed) == n:
            return True
        return some_bid and len(passed) == n - 1
    if rules.auction == "one_lap":
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
    if rules.auction != "open":
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
    if rules.all_pass == "stick":
        return 1, dealer, True
    return 0, -1, False


def trump_options(rules: PepperRules) -> list[int]:
    """The bidder's choices (§3.3): C, D, H, S, then NT when ``no_trump`` is on."""
    return [0, 1, 2, 3] + ([NO_TRUMP] if rules.no_trump else [])


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
        score[side] = won if made else -(T if rules.fail == "flat" else contract)
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
# §7.2 The heuristic policy
# ---------------------------------------------------------------------------

#: Estimate of a trump held at each position from the top (§7.2), in hundredths.
TRUMP_VALUE = (100, 90, 75, 60, 50, 40, 35)


def run_from_top(cards_high_first: Sequence[int], held) -> int:
    """How many of these cards the hand holds consecutively from the first."""
    count = 0
    for c in cards_high_first:
        if c not in held:
            break
        count += 1
    return count


def estimate(hand: Sequence[int], trump_option: int, rules: PepperRules,
             params: HeuristicParams) -> tuple[int, int]:
    """``(est, sure)`` of a hand for one trump option (§7.2 "Hand estimate").

    ``est`` is in hundredths of a trick and, with 4 players, includes
    ``partner_help``; ``sure`` counts the tricks the hand is certain of when
    it leads.
    """
    held = set(hand)
    est = 0
    if trump_option == NO_TRUMP:
        sure = 0
        for s in range(4):
            ace, king, queen = (card_of(s, r) in held for r in (ACE, KING, QUEEN))
            if ace:
                est += 90
            if king:
                est += 70 if ace else 30
            if queen and ace and king:
                est += 50
            sure += run_from_top(suit_cards(s, NO_TRUMP), held)
    else:
        t = trump_option
        trumps = suit_cards(t, t)
        n = sum(1 for c in trumps if c in held)
        est += sum(TRUMP_VALUE[p] for p, c in enumerate(trumps) if c in held)
        est += 20 * max(0, n - 2)
        side_runs = 0
        for s in range(4):
            if s == t:
                continue
            cards = suit_cards(s, t)          # no jack in the left bower's suit
            ace, king = card_of(s, ACE) in held, card_of(s, KING) in held
            if ace:
                est += 80
            if king:
                est += 50 if ace else 20
            if n >= 1 and not any(c in held for c in cards):
                est += 30                     # a void to ruff
            side_runs += run_from_top(cards, held)
        top = run_from_top(trumps, held)
        out = 7 - n
        sure = n + side_runs if top >= out else top
    if rules.players == 4:
        est += hundredths(params.partner_help)
    return est, sure


def desired_level(hand: Sequence[int], rules: PepperRules, params: HeuristicParams) -> int:
    """The level D the heuristic wants to reach (§7.2 "Bidding").

    With the best ``est`` and best ``sure`` over the allowed trump options
    (each maximised separately): Kubwa if ``sure >= T - kubwa_margin`` or
    ``est >= kubwa_est`` (in hundredths); else
    Ndogo if ``est + aggression >= 100 T``; else ``(est + aggression) // 100``
    (floor division) clamped to ``0 .. T-1``.  With ``tuned`` the table
    size's ``TABLE_OFFSET`` is added to ``aggression``.
    """
    T = rules.tricks
    values = [estimate(hand, o, rules, params) for o in trump_options(rules)]
    best_est = max(e for e, _ in values)
    best_sure = max(s for _, s in values)
    aggression = hundredths(params.aggression)
    if params.tuned:
        aggression += hundredths(TABLE_OFFSET[rules.players])
    if best_sure >= T - params.kubwa_margin or best_est >= hundredths(params.kubwa_est):
        return rules.kubwa
    if best_est + aggression >= 100 * T:
        return rules.ndogo
    return min(max((best_est + aggression) // 100, 0), T - 1)


def ndogo_is_dominated(rules: PepperRules) -> bool:
    """Ndogo made pays no more than T-1 made with every trick, and a failed Ndogo
    loses at least as much as a failed T-1 (§5): true when ``ndogo_stake`` is 1."""
    return rules.ndogo_stake == 1


def heuristic_bid(hand: Sequence[int], high: int, rules: PepperRules,
                  params: HeuristicParams, high_is_own_side: bool = False) -> int:
    """The heuristic's call (§7.2 "Bidding").

    Bid D if it is above the current high bid, else pass, also over the
    partner: the partner is raised only to a higher D.  With ``ndogo_lower``
    and a D of Ndogo while Ndogo is dominated (:func:`ndogo_is_dominated`):
    call T-1 if it is above the high bid; else call Ndogo if the high bid is
    T-1 held by another side (``high_is_own_side`` false); else pass.
    """
    d = desired_level(hand, rules, params)
    if params.ndogo_lower and d == rules.ndogo and ndogo_is_dominated(rules):
        lower = rules.ndogo - 1
        if lower > high:
            return lower
        if high == lower and not high_is_own_side:
            return rules.ndogo
        return 0
    return d if d > high else 0


def choose_trump(hand: Sequence[int], contract: int, rules: PepperRules,
                 params: HeuristicParams) -> int:
    """The heuristic's trump (§7.2 "Trump choice").

    The option with the highest ``est``; for Ndogo or Kubwa, the highest
    ``sure`` first and then the highest ``est``.  Ties go to the earlier
    option in the order C, D, H, S, NT (NT only when allowed).
    """
    best_option, best_key = -1, None
    for option in trump_options(rules):
        est, sure = estimate(hand, option, rules, params)
        key = (sure, est) if contract >= rules.ndogo else (est,)
        if best_key is None or key > best_key:     # strict: ties keep the earlier
            best_option, best_key = option, key
    return best_option


def lowest(cards: Sequence[int], trump: int) -> int:
    """The card of smallest discard value, ties to the smaller card id (§7.2)."""
    return min(cards, key=lambda c: (discard_value(c, trump), c))


def boss(suit: int, trump: int, played) -> int | None:
    """The highest card of an effective suit not yet played (§7.2), or None.

    ``played`` holds every card on the table, the current trick included; the
    boss may be in anyone's hand, the dead hand included.
    """
    for c in suit_cards(suit, trump):
        if c not in played:
            return c
    return None


def side_boss(held, trump: int, played) -> int | None:
    """The boss card of a side suit that ``held`` holds, if any: the lowest
    suit's first (§7.2, the lead)."""
    for s in range(4):
        if trump != NO_TRUMP and s == trump:
            continue
        b = boss(s, trump, played)
        if b is not None and b in held:
            return b
    return None


def lead_card(hand: Sequence[int], trump: int, played: Sequence[int],
              params: HeuristicParams) -> int:
    """The heuristic's lead (§7.2 "Play", leading): the first rule that applies.

    1. with a trump suit, ``draw_trumps`` on, the boss trump held and some
       trump outstanding (neither played nor held): the highest trump held;
    2. a non-trump card that is the boss of its effective suit (lowest suit
       first, C < D < H < S);
    3. the boss trump, if held;
    4. the lowest non-trump card; with only trumps, the lowest trump.
    """
    played = set(played)
    held = set(hand)
    trumps_held = [c for c in hand if is_trump(c, trump)]
    boss_trump = boss(trump, trump, played) if trump != NO_TRUMP else None
    holds_boss_trump = boss_trump is not None and boss_trump in held
    if trump != NO_TRUMP and params.draw_trumps and holds_boss_trump:
        outstanding = [c for c in suit_cards(trump, trump) if c not in played and c not in held]
        if outstanding:
            return min(trumps_held, key=lambda c: trump_position(c, trump))
    b = side_boss(held, trump, played)
    if b is not None:
        return b
    if holds_boss_trump:
        return boss_trump
    others = [c for c in hand if not is_trump(c, trump)]
    return lowest(others if others else trumps_held, trump)


def follow_card(seat: int, hand: Sequence[int], trick: Sequence[Play], trump: int,
                rules: PepperRules, params: HeuristicParams | None = None,
                view: PlayView | None = None) -> int:
    """The heuristic's card when following (§7.2 "Play", following).

    1. with 4 players, if the partner's card is winning the trick so far:
       with ``cover_third``, if an opponent still to play may beat it
       (:func:`threatened`), the cheapest legal card that beats it and that
       nobody still to play may beat; otherwise, and without
       ``cover_third``, the lowest legal card (never overtake the partner);
    2. if a legal card beats the winning card: the lowest such card;
    3. the lowest legal card;
    4. with ``keep_guards``, a defender whose card is a discard (off the led
       suit, not beating the winning card) discards the lowest legal card that
       is neither a trump nor one of its :func:`guards`, if it has one.

    ``view`` (what the seat has seen, :class:`PlayView`) is needed for
    ``cover_third`` and for the all-tricks play (:func:`slam_follow_card`);
    without it (or without ``params``) the old rules apply.
    """
    led = effective_suit(trick[0].card, trump)
    legal = legal_cards(hand, led, trump)
    best = winning_play(trick, trump)
    if view is not None and params is not None and slam_active(seat, view, rules, params):
        return slam_follow_card(seat, hand, trick, trump, rules, view)
    card = lowest(legal, trump)
    if rules.players == 4 and best.seat == partner_of(seat, rules):
        if view is not None and params is not None and params.cover_third \
                and threatened(best.card, seat, hand, trick, trump, rules, view):
            safe = safe_winners(legal, seat, hand, trick, trump, rules, view)
            if safe:
                card = lowest(safe, trump)
    else:
        winners = [c for c in legal if beats(c, best.card, trump)]
        if winners:
            card = lowest(winners, trump)
    if view is not None and params is not None and params.keep_guards \
            and not same_side(seat, view.bidder, rules) \
            and effective_suit(card, trump) != led and not beats(card, best.card, trump):
        spare = [c for c in legal if not is_trump(c, trump)
                 and c not in guards(seat, hand, trump, rules, view)]
        if spare:
            card = lowest(spare, trump)
    return card


def guards(seat: int, hand: Sequence[int], trump: int, rules: PepperRules,
           view: PlayView) -> set[int]:
    """A defender's guards (§7.2 "Play", ``keep_guards``): in each side suit (not
    trumps), its highest card if a lower card of that suit is unseen (neither
    played nor in its hand) and some seat of the declaring side has not shown
    out of the suit: a card that beats one of the declaring side's possible
    losers."""
    voids = shown_out(view, rules, trump)
    declaring = [s for s in range(rules.players) if same_side(s, view.bidder, rules)]
    out = set()
    for suit in range(4):
        held = [c for c in suit_cards(suit, trump) if c in hand]
        if suit == trump or not held or all(suit in voids[s] for s in declaring):
            continue
        order = suit_cards(suit, trump)
        if any(order.index(c) > order.index(held[0])
               for c in unseen(suit, trump, hand, view)):
            out.add(held[0])
    return out


# --- what a seat has seen, and the play for every trick (§7.2) ----------------

def unseen(suit: int, trump: int, hand: Sequence[int], view: PlayView) -> list[int]:
    """The cards of an effective suit neither played nor in the seat's hand, highest first."""
    played = view.played
    return [c for c in suit_cards(suit, trump) if c not in played and c not in hand]


def threatened(card: int, seat: int, hand: Sequence[int], trick: Sequence[Play], trump: int,
               rules: PepperRules, view: PlayView) -> bool:
    """May an opponent still to play in this trick beat ``card``? (§7.2 "Play")

    ``card`` is of the led effective suit, or a trump on another suit's lead.
    An opponent of ``seat`` still to play (after ``seat``) may beat it if:

    - ``card`` is of the led suit, a higher card of that suit is unseen
      (neither played nor in the seat's hand) and the opponent has not shown
      out of the led suit; or the led suit is not trumps, the opponent has
      shown out of it but not out of trumps, and some trump is unseen;
    - ``card`` is a trump on another lead: a higher trump is unseen and the
      opponent has shown out of the led suit but not out of trumps.
    """
    n = rules.players
    led = effective_suit(trick[0].card, trump)
    suit = effective_suit(card, trump)
    order = suit_cards(suit, trump)
    higher = any(order.index(c) < order.index(card) for c in unseen(suit, trump, hand, view))
    trumps_unseen = trump != NO_TRUMP and bool(unseen(trump, trump, hand, view))
    voids = shown_out(view, rules, trump)
    leader = trick[0].seat
    me = (seat - leader) % n
    for k in range(me + 1, n):
        opp = (leader + k) % n
        if same_side(opp, seat, rules):
            continue
        v = voids[opp]
        if suit == led:
            if higher and led not in v:
                return True
            if trump != NO_TRUMP and led != trump and led in v and trump not in v \
                    and trumps_unseen:
                return True
        elif higher and led in v and trump not in v:
            return True
    return False


def safe_winners(legal: Sequence[int], seat: int, hand: Sequence[int], trick: Sequence[Play],
                 trump: int, rules: PepperRules, view: PlayView) -> list[int]:
    """The legal cards that beat the winning card and that no opponent still to
    play may beat (:func:`threatened`)."""
    best = winning_play(trick, trump)
    return [c for c in legal if beats(c, best.card, trump)
            and not threatened(c, seat, hand, trick, trump, rules, view)]


def highest(cards: Sequence[int], trump: int) -> int:
    """The card of largest discard value, ties to the larger card id."""
    return max(cards, key=lambda c: (discard_value(c, trump), c))


def slam_active(seat: int, view: PlayView, rules: PepperRules, params: HeuristicParams) -> bool:
    """Does the all-tricks plan apply? (§7.2 "All tricks"): ``slam_play = plan``,
    4 players, an Ndogo or Kubwa contract, ``seat`` on the declaring side, and
    that side has won every trick so far."""
    if params.slam_play != "plan" or rules.players != 4 or view.contract < rules.ndogo:
        return False
    if not same_side(seat, view.bidder, rules):
        return False
    return all(t == 0 for s, t in enumerate(view.tricks) if not same_side(s, seat, rules))


def slam_follow_card(seat: int, hand: Sequence[int], trick: Sequence[Play], trump: int,
                     rules: PepperRules, view: PlayView) -> int:
    """Following under the all-tricks plan (§7.2 "All tricks"), the first that applies:

    1. the partner's card wins and no opponent still to play may beat it:
       if ``seat`` is the declarer, trumps were led and a legal card beats the
       partner's card safely (:func:`safe_winners`), the cheapest such card
       (take the lead back); otherwise, with no card of the led suit, the
       lowest non-trump card of the suits whose boss the seat does not hold
       (keep the winners; the partner reads such a discard as "no winner
       here"); otherwise the lowest legal card;
    2. the cheapest legal card that beats the winning card safely;
    3. the highest legal card that beats the winning card;
    4. the lowest legal card.
    """
    led = effective_suit(trick[0].card, trump)
    legal = legal_cards(hand, led, trump)
    best = winning_play(trick, trump)
    safe = safe_winners(legal, seat, hand, trick, trump, rules, view)
    if best.seat == partner_of(seat, rules) and \
            not threatened(best.card, seat, hand, trick, trump, rules, view):
        if seat == view.bidder and trump != NO_TRUMP and led == trump and safe:
            return lowest(safe, trump)
        if not any(effective_suit(c, trump) == led for c in hand):
            played = view.played
            spare = [c for c in hand if not is_trump(c, trump)
                     and boss(effective_suit(c, trump), trump, played) not in hand]
            if spare:
                return lowest(spare, trump)
        return lowest(legal, trump)
    if safe:
        return lowest(safe, trump)
    winners = [c for c in legal if beats(c, best.card, trump)]
    if winners:
        return highest(winners, trump)
    return lowest(legal, trump)


def slam_lead_card(seat: int, hand: Sequence[int], trump: int, rules: PepperRules,
                   view: PlayView) -> int:
    """Leading under the all-tricks plan (§7.2 "All tricks"), the first that applies.
    Opponents *may hold trumps* if there is a trump suit, some trump is unseen
    and not both opponents have shown out of trumps.

    1. opponents may hold trumps and the seat holds the boss trump: lead its
       highest trump (draw trumps from the top);
    2. a non-trump boss held: lead it (lowest suit first, C < D < H < S);
    3. with a trump suit, opponents holding no trumps, some trump unseen and
       the partner not shown out of trumps: the lowest card of the suits the
       partner has shown out of (the partner ruffs), if the seat holds any;
    4. the declarer holding a non-trump card: its lowest non-trump card of
       the suits the partner has not discarded from (:func:`discarded`), or
       if there are none, its lowest non-trump card (a loser led to the
       partner, the trumps kept to take the lead back);
    5. the declarer's partner holding a trump: its lowest trump (the lead
       goes back to the declarer, who overtakes);
    6. the boss trump if held; else the lowest non-trump card; with only
       trumps, the lowest trump.
    """
    played = view.played
    voids = shown_out(view, rules, trump)
    partner = partner_of(seat, rules)
    opponents = [(seat + 1) % 4, (seat + 3) % 4]
    trumps_held = [c for c in hand if is_trump(c, trump)]
    others = [c for c in hand if not is_trump(c, trump)]
    trumps_unseen = trump != NO_TRUMP and bool(unseen(trump, trump, hand, view))
    opp_trumps = trumps_unseen and not all(trump in voids[o] for o in opponents)
    boss_trump = boss(trump, trump, played) if trump != NO_TRUMP else None
    holds_boss_trump = boss_trump is not None and boss_trump in hand
    if opp_trumps and holds_boss_trump:
        return boss_trump
    b = side_boss(hand, trump, played)
    if b is not None:
        return b
    if trump != NO_TRUMP and not opp_trumps and trumps_unseen and trump not in voids[partner]:
        ruff = [c for c in others if effective_suit(c, trump) in voids[partner]]
        if ruff:
            return lowest(ruff, trump)
    if seat == view.bidder and others:
        thrown = discarded(view, rules, trump)[partner]
        fresh = [c for c in others if effective_suit(c, trump) not in thrown]
        return lowest(fresh if fresh else others, trump)
    if seat != view.bidder and trumps_held:
        return lowest(trumps_held, trump)
    if holds_boss_trump:
        return boss_trump
    return lowest(others if others else trumps_held, trump)


def heuristic_card(seat: int, hand: Sequence[int], trick: Sequence[Play], view: PlayView,
                   trump: int, rules: PepperRules, params: HeuristicParams) -> int:
    """The card the heuristic (§7.2, its all-tricks plan included) plays here
    with these parameters: the heuristic's own play, and the expert's
    tie-break (§7.3 "The choice").  It draws nothing."""
    if not trick:
        if slam_active(seat, view, rules, params):
            return slam_lead_card(seat, hand, trump, rules, view)
        return lead_card(hand, trump, [p.card for p in view.plays], params)
    return follow_card(seat, hand, trick, trump, rules, params, view)


# ---------------------------------------------------------------------------
# §7.3 The expert policy: perfect-information Monte Carlo (reference_expert.py)
# ---------------------------------------------------------------------------

def expert_card(seat: int, hand: Sequence[int], trick: Sequence[Play], view: PlayView,
                trump: int, rules: PepperRules, params: ExpertParams, stream: Stream,
                table: Sequence[Policy] = (), planned: int = -1) -> int:
    """The expert's card (§7.3): the search of :func:`reference_expert.expert_card`
    over ``params.worlds`` worlds, its tie-break the card the heuristic plays
    here with the expert's parameters (:func:`heuristic_card`).  With
    ``model = table`` the worlds are weighed by the table's policies
    ``table`` (:func:`table_model`; ``planned``: the seat that called by a
    plan, -1 none)."""
    hint = heuristic_card(seat, hand, trick, view, trump, rules, params)
    model = table_model(rules, table, trump, params.trust, params.calls, planned) \
        if params.model == "table" and params.worlds > 0 else None
    return reference_expert.expert_card(seat, hand, trick, view, trump, rules, params.worlds,
                                        stream, hint, model, params.particles, params.redraw,
                                        params.enumerate)


def table_model(rules: PepperRules, table: Sequence[Policy], trump: int, trust: float,
                calls: bool = False, planned: int = -1) -> reference_expert.TableModel:
    """The expert's model of the other seats (§7.3 "Inference"): each calls,
    plays and names the trump as the heuristic with its own parameters (an
    expert seat as its heuristic), a random seat says nothing, nor do the
    calls of the seat ``planned`` that called by a plan (§9.3).  ``trust`` is
    rounded to thousandths, as the kernels read it; ``calls``: whether the
    calls are weighed."""
    def play(seat, hand, trick, view):
        policy = table[seat]
        if policy.name == "random":
            return None
        return heuristic_card(seat, hand, trick, view, trump, rules, policy.params)

    def name(seat, hand, contract):
        policy = table[seat]
        if policy.name == "random":
            return None
        return choose_trump(hand, contract, rules, policy.params)

    def call(seat, hand, before, high):
        policy = table[seat]
        if policy.name == "random" or seat == planned:
            return None
        bids = [b for b in before if b.level > 0]
        own_side = bool(bids) and same_side(bids[-1].seat, seat, rules)
        return heuristic_bid(hand, high, rules, policy.params, own_side)

    return reference_expert.TableModel(play, name, len(trump_options(rules)),
                                       round(trust * 1000) / 1000, call, rules.kubwa, calls)


# ---------------------------------------------------------------------------
# Who decides: the seats' policies (§7), or a recorded log (replay)
# ---------------------------------------------------------------------------

class PolicyDecider:
    """Decisions by each seat's policy (§7).

    ``policies`` holds one Policy (or policy spec such as ``"random"``) per
    seat, or a single one for every seat.

    ``random`` draws one ``stream.below(n)`` per decision, in decision order
    (§7.1); ``heuristic`` follows §7.2 and never draws; ``expert`` bids and
    names the trump as the heuristic, with the heuristic's parameters, and
    plays by §7.3 (:func:`expert_card`), drawing its worlds' shuffles from
    ``stream`` when it has more than one candidate (the oracle,
    ``worlds = 0``, draws nothing).
    """

    def __init__(self, rules: PepperRules, policies: Sequence[Policy], stream: Stream):
        policies = make_policies(list(policies), rules.players)   # specs or Policy objects
        for p in policies:
            if p.name not in ("random", "heuristic", "expert"):
                raise InputError(f"unknown Pepper policy {p.name!r}: "
                                 f"expected random, heuristic or expert")
        self.rules, self.policies, self.stream = rules, tuple(policies), stream
        self.planned = -1                 # a seat calling by a plan (PlanDecider)

    def _random(self, seat: int) -> bool:
        return self.policies[seat].name == "random"

    def bid(self, seat: int, hand: Sequence[int], calls: Sequence[Bid], high: int) -> int:
        if self._random(seat):
            options = bid_options(self.rules, high)
            return options[self.stream.below(len(options))]
        bids = [b for b in calls if b.level > 0]
        own_side = bool(bids) and same_side(bids[-1].seat, seat, self.rules)
        return heuristic_bid(hand, high, self.rules, self.policies[seat].params, own_side)

    def trump(self, seat: int, hand: Sequence[int], contract: int) -> int:
        if self._random(seat):
            options = trump_options(self.rules)
            return options[self.stream.below(len(options))]
        return choose_trump(hand, contract, self.rules, self.policies[seat].params)

    def play(self, seat: int, hand: Sequence[int], trick: Sequence[Play],
             view: PlayView, trump: int) -> int:
        if self._random(seat):
            led = effective_suit(trick[0].card, trump) if trick else None
            legal = legal_cards(hand, led, trump)
            return legal[self.stream.below(len(legal))]
        params = self.policies[seat].params
        if self.policies[seat].name == "expert":
            return expert_card(seat, hand, trick, view, trump, self.rules, params, self.stream,
                               self.policies, self.planned)
        return heuristic_card(seat, hand, trick, view, trump, self.rules, params)


# ---------------------------------------------------------------------------
# The phases of a hand
# ---------------------------------------------------------------------------

def _auction(rules, dealer, hands, decide) -> tuple[list[Bid], int, int, bool]:
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


def _name_trump(rules, bidder, hand, contract, decide) -> int:
    """§3.3 with the given decider: the bidder names a trump suit or NT."""
    trump = decide.trump(bidder, hand, contract)
    if trump not in trump_options(rules):
        allowed = " ".join(TRUMP_TEXT[o] for o in trump_options(rules))
        shown = TRUMP_TEXT[trump] if 0 <= trump <= NO_TRUMP else str(trump)
        raise InputError(f"trump {shown} is not allowed: expected one of {allowed}")
    return trump


def _play_tricks(rules, hands, bidder, trump, decide, contract=0,
                 calls=()) -> tuple[list[Play], list[int]]:
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
            led = effective_suit(trick[0].card, trump) if trick else None
            legal = legal_cards(holding[seat], led, trump)
            view = PlayView(tuple(plays), bidder, contract, tuple(tricks),
                            tuple(tuple(h) for h in holding), tuple(calls))
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


def _thrown_in(rules, dealer, hands, dead, calls) -> HandLog:
    """The record of a hand nobody bid on (§3.2 redeal)."""
    return HandLog(rules, dealer, [list(h) for h in hands], list(dead), list(calls), False,
                   0, -1, -1, [], [0] * rules.players, [0] * rules.sides, [0] * rules.sides,
                   False, 0, 0, 0, 0)


def _played_hand(rules, dealer, hands, dead, calls, stuck, contract, bidder, trump,
                 plays, tricks) -> HandLog:
    """The record of a played hand: scores (§5) and the bidder's features (§8)."""
    side_tricks, score, made = score_hand(rules, contract, bidder, tricks)
    features = bidder_features(hands[bidder], trump)
    return HandLog(rules, dealer, [list(h) for h in hands], list(dead), list(calls), stuck,
                   contract, bidder, trump, plays, tricks, side_tricks, score, made, *features)


def play_with_decider(rules, dealer, hands, dead, decide) -> HandLog:
    """Auction, trump, play and scoring of one dealt hand (§3-§5), every decision
    asked of ``decide`` (the policies, a bidding plan or a record's script)."""
    calls, contract, bidder, stuck = _auction(rules, dealer, hands, decide)
    if bidder < 0:
        return _thrown_in(rules, dealer, hands, dead, calls)
    trump = _name_trump(rules, bidder, hands[bidder], contract, decide)
    plays, tricks = _play_tricks(rules, hands, bidder, trump, decide, contract, calls)
    return _played_hand(rules, dealer, hands, dead, calls, stuck, contract, bidder, trump,
                        plays, tricks)


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
    return _play_tricks(rules, hands, bidder, trump, PolicyDecider(rules, policies, stream),
                        contract)


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
    return play_hand(rules, policies, dealer, hands, dead, stream)


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


def play_declared(rules: PepperRules, policies: Sequence[Policy], dealer: int,
                  hands: Sequence[Sequence[int]], dead: Sequence[int], declarer: int,
                  contract: int, stream: Stream, wanted: int = -1) -> HandLog:
    """Play one dealt hand in which ``declarer`` holds ``contract`` with no
    auction (§9): the declarer names the trump by its policy (§3.3, §7), leads
    the first trick (§4), and the hand is scored as if it had won the bid (§5).

    The record has no calls, is not stuck, and has ``wanted`` (§9.2) as given.
    """
    _check_seat(declarer, rules, "declarer")
    _check_contract(contract, rules)
    decide = PolicyDecider(rules, policies, stream)
    trump = _name_trump(rules, declarer, hands[declarer], contract, decide)
    plays, tricks = _play_tricks(rules, hands, declarer, trump, decide, contract)
    log = _played_hand(rules, dealer, hands, dead, [], False, contract, declarer, trump,
                       plays, tricks)
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
    return play_declared(rules, policies, dealer, hands, dead, seat, contract, stream)


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
    wanted = desired_level(hands[declarer], rules, policy.params) \
        if policy.name != "random" else -1              # the expert bids as the heuristic
    return play_declared(rules, policies, dealer, hands, dead, declarer, contract, stream,
                         wanted)


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
        if rules.auction == "one_lap":
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
    if rules.tie == "play_on" and len(leaders) > 1:
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
    and its winners (:func:`simkit.drama.drama`).
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
        log = play_hand(rules, policies, dealer, hands, dead, stream)
        logs.append(log)
        scores = [a + b for a, b in zip(scores, log.score)]
        tops.append(drama.top(scores))
        dealer = (dealer + 1) % rules.players
        winners = game_winners(rules, scores)
        if winners:
            break
    return GameResult(first_dealer, len(logs), scores, winners, winners == 0,
                      drama.drama(tops, winners), logs)
