"""Pitch's players, the reference side: the ``random`` and ``heuristic``
policies of seeds/pitch.md §8 as plain Python, and :class:`PolicyDecider`,
which asks each seat's policy for its calls and cards.

Every function implements one point of §8 and names it; the kernel
(``simkit/pitch/kernel.py``) implements the same decisions independently and
the differential tests hold the two together.  The referee that asks for the
decisions is ``reference.py``; the cards and tricks both read are
``reference_cards.py``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence, Set
from dataclasses import dataclass
from functools import cache
from math import comb
from typing import Protocol

from simkit.base.config import Choice
from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pitch.policies import (
    POLICIES,
    TABLE_OFFSET,
    HeuristicParams,
    LowValue,
    MoonRule,
    PartnerCover,
    make_policies,
)
from simkit.pitch.reference_cards import (
    beats,
    card_of,
    game_points_of,
    position_of,
    suit_of,
    winning_play,
)
from simkit.pitch.rules import (
    ACE,
    DECK,
    HAND_SIZE,
    JACK,
    KING,
    MOON,
    PASS,
    PLAN_MOON,
    PLAN_PASS,
    QUEEN,
    TWO,
    Auction,
    Low,
    PitchRules,
    Steal,
)
from simkit.policy import Policy, RandomParams
from simkit.records.moves import Play


class LowModel(Choice):
    """How the hand estimate values the Low point (§8.2, ``low_value``): as the
    chance of holding the lowest trump dealt, or of capturing it."""

    HELD = "held"
    CAPTURED = "captured"


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
    return round(points * 100)


def estimate(hand: Sequence[int], suit: int, players: int, low: LowModel = LowModel.HELD) -> int:
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
    if low == LowModel.CAPTURED:
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


def low_model(params: HeuristicParams, low_rule: Low) -> LowModel:
    """How the estimate values Low (§8.2, ``low_value``): a capture chance when
    ``low_value = rules`` and Low goes by capture, else as held."""
    if params.low_value == LowValue.RULES and low_rule == Low.CAPTURED:
        return LowModel.CAPTURED
    return LowModel.HELD


def hand_suit(hand: Sequence[int], players: int,
              low: LowModel = LowModel.HELD) -> tuple[int, int]:
    """``(suit, est)``: the held suit of highest estimate, ties to the lower suit (§8.2)."""
    best_suit, best_est = -1, -1                      # every estimate is at least 0
    for s in range(4):
        if not any(suit_of(c) == s for c in hand):
            continue
        est = estimate(hand, s, players, low)
        if est > best_est:                            # strict: ties keep the lower suit
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


def sure_moon(hand: Sequence[int], suit: int, params: HeuristicParams, low_rule: Low) -> bool:
    """``moon_rule = sure`` (§8.2): the jack of ``suit`` held, a run of at least
    ``moon_run`` from its ace down, and every card of another suit in a run from
    that suit's ace (all higher cards of its suit held); under ``low = dealt``
    also the two of ``suit``."""
    if card_of(suit, JACK) not in hand or ace_run(hand, suit) < params.moon_run:
        return False
    if low_rule == Low.DEALT and card_of(suit, TWO) not in hand:
        return False
    for c in hand:
        if suit_of(c) != suit and any(card_of(suit_of(c), p) not in hand
                                      for p in range(position_of(c) + 1, ACE + 1)):
            return False
    return True


def desired_bid(hand: Sequence[int], players: int, params: HeuristicParams,
                low_rule: Low = Low.CAPTURED) -> int:
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
    if params.moon_rule == MoonRule.SURE:
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
        ends = rules.auction == Auction.ONE_LAP or high == PASS or rules.steal == Steal.MATCH
        if ends and least <= want:
            return least
    if want in options:
        return want
    return PASS if PASS in options else 2


def cost(card: int, trump: int) -> int:
    """How much giving a card away hurts (§8.2): a trump 1000 + its position;
    any other card 16 * its game points + its position."""
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


def boss(suit: int, played: Collection[int]) -> int | None:
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


def unseen_cards(hand: Collection[int], played: Collection[int]) -> list[int]:
    """The cards a seat has not seen: neither in its hand nor played."""
    seen = set(hand) | set(played)
    return [c for c in range(DECK.size) if c not in seen]


@dataclass(frozen=True)
class PlayView:
    """What a seat knows at its turn to play (§8.2): who it is, its ``hand``,
    the ``pitcher``, the table size, every card ``played`` so far (this
    trick's included) and the seats known void in trumps (:func:`trump_voids`)."""

    seat: int
    hand: Sequence[int]
    pitcher: int
    players: int = 4
    played: Collection[int] = ()
    voids: Set[int] = frozenset()

    def unseen(self) -> list[int]:
        """The cards the seat has not seen (:func:`unseen_cards`)."""
        return unseen_cards(self.hand, self.played)


def no_trump_chance(view: PlayView, trump: int) -> int:
    """Hundredths, rounded down, of the chance that no opponent of the leader
    ``view.seat`` holds a trump (§8.2 "Leading"), at a lead.

    The opponents are every other seat for the pitcher, the pitcher for a
    non-pitcher; those known void are left out.  The ``u`` unseen trumps lie
    at random among the ``pool`` unseen cards that are not in a void player's
    hand (every other seat holds as many cards as the leader; the undealt
    cards are in the pool); the opponents hold ``r`` of them:
    ``C(pool - u, r) / C(pool, r)``.
    """
    k = len(view.hand)
    u = sum(1 for c in view.unseen() if suit_of(c) == trump)
    others = [s for s in range(view.players) if s != view.seat]
    void_others = sum(1 for s in others if s in view.voids)
    pool = DECK.size - k - len(view.played) - void_others * k
    opponents = others if view.seat == view.pitcher else [view.pitcher]
    r = k * sum(1 for s in opponents if s not in view.voids)
    return (100 * comb(pool - u, r)) // comb(pool, r)


def lead_card(view: PlayView, trump: int | None, params: HeuristicParams | None = None,
              low_rule: Low = Low.CAPTURED) -> int:
    """The heuristic's lead (§8.2 "Leading"): the first rule that applies.

    ``trump`` is None for the pitcher's first lead (which names trumps);
    ``low_rule`` is the rule ``low`` in force.

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
    hand = view.hand
    if trump is None:
        suit, _ = hand_suit(hand, view.players, low_model(params, low_rule))
        return max((c for c in hand if suit_of(c) == suit), key=position_of)
    played = set(view.played)
    outstanding = [card_of(trump, p) for p in range(13)
                   if card_of(trump, p) not in played and card_of(trump, p) not in hand]
    boss_trump = boss(trump, played)
    if boss_trump is not None and boss_trump in hand and outstanding:
        return max((c for c in hand if suit_of(c) == trump), key=position_of)
    if not outstanding or no_trump_chance(view, trump) >= params.cash_chance:
        for s in range(4):
            if s == trump:
                continue
            b = boss(s, played)
            if b is not None and b in hand:
                return b
    return lowest(hand, trump)


def higher_unseen(card: int, unseen: Collection[int]) -> bool:
    """Is a card of ``card``'s suit higher than it among the ``unseen`` cards?"""
    s = suit_of(card)
    return any(suit_of(c) == s and position_of(c) > position_of(card) for c in unseen)


def beatable(card: int, trump: int, unseen: Collection[int], opponents: Sequence[int],
             voids: Set[int]) -> bool:
    """Could an opponent still to play beat ``card`` if it were winning? (§8.2)

    Yes if an unseen card of its suit is higher, or, for a non-trump, if an
    opponent to play is not known void in trumps; a trump only to a higher
    unseen trump held by an opponent not known void.
    """
    if not opponents:
        return False
    higher = higher_unseen(card, unseen)
    free = any(o not in voids for o in opponents)
    if suit_of(card) == trump:
        return higher and free
    return higher or free


def follow_card(view: PlayView, legal: Sequence[int], trick: Sequence[Play], trump: int,
                params: HeuristicParams | None = None) -> int:
    """The heuristic's card when following (§8.2 "Following"), among the legal cards.

    The non-pitchers are partners against the pitcher.  The ``view``'s hand
    and played cards (every card on the table, this trick's included) say
    which cards are unseen; its voids who showed out of trumps.  The
    opponents to come: the seats still to play to this trick for the pitcher;
    the pitcher, if still to play, for a non-pitcher.

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
    seat, pitcher, players = view.seat, view.pitcher, view.players
    best = winning_play(trick, trump)
    leader = trick[0].seat
    to_come = [(leader + k) % players for k in range(len(trick) + 1, players)]
    opponents = to_come if seat == pitcher else [s for s in to_come if s == pitcher]
    unseen = set(view.unseen())
    voids = set(view.voids)
    winners = [c for c in legal if beats(c, best.card, trump)]
    if seat != pitcher and best.seat != pitcher:      # a partner is winning
        if any(p.seat == pitcher for p in trick):
            return min(legal, key=lambda c: (-feed_value(c, trump), cost(c, trump), c))
        cover = params.partner_cover
        if cover == PartnerCover.LOW or not beatable(best.card, trump, unseen, opponents, voids):
            return lowest(legal, trump)
        if cover == PartnerCover.BOSS and suit_of(best.card) != trump \
                and not higher_unseen(best.card, unseen):
            return lowest(legal, trump)               # only a trump beats it: no cover helps
        safe = [c for c in winners if not beatable(c, trump, unseen, opponents, voids)]
        if safe:
            return cheapest_winner(safe, trump)
        if cover == PartnerCover.BOSS:
            tops = [c for c in winners if suit_of(c) != trump
                    and game_points_of(c) < params.risk_points
                    and not higher_unseen(c, unseen)]
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
# §8.4 Bidding plans
# ---------------------------------------------------------------------------

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
    if rules.auction == Auction.OPEN:
        least = min(bids)
        return least if least <= plan else PASS
    if plan in options:
        return plan
    return PASS if PASS in options else min(bids)


# ---------------------------------------------------------------------------
# §8 Who decides: each seat's policy
# ---------------------------------------------------------------------------

class Decider(Protocol):
    """Who makes a hand's decisions, as the referee (``reference.py``) asks for
    them: :class:`PolicyDecider`, or a hand record's replay
    (``simkit.pitch.record.ScriptDecider``)."""

    def bid(self, seat: int, hand: Sequence[int], options: Sequence[int],
            is_dealer: bool = False, high: int = PASS) -> int:
        """``seat``'s call among the legal ``options`` (§2)."""
        ...

    def play(self, seat: int, hand: Sequence[int], legal: Sequence[int], trick: Sequence[Play],
             plays: Sequence[Play], trump: int | None, pitcher: int) -> int:
        """``seat``'s card among the ``legal`` ones (§3); ``plays``: every card
        played so far, this trick's included, with its seat."""
        ...


class PolicyDecider:
    """Decisions by each seat's policy (§8).

    ``random`` draws one ``stream.below(n)`` per decision, in decision order,
    over the options in the §8.1 order (also when there is one option);
    ``heuristic`` follows §8.2 and never draws.
    """

    def __init__(self, rules: PitchRules, policies: Sequence[Policy | str], stream: Stream):
        chosen = make_policies(list(policies), rules.players)   # specs or Policy objects
        for p in chosen:
            if p.name not in POLICIES:
                raise InputError(f"unknown Pitch policy {p.name!r}: expected random or heuristic")
        self.rules, self.policies, self.stream = rules, tuple(chosen), stream

    def _heuristic(self, seat: int) -> HeuristicParams | None:
        """The seat's heuristic parameters; None for a random seat."""
        params = self.policies[seat].params
        if isinstance(params, RandomParams):
            return None
        assert isinstance(params, HeuristicParams), params
        return params

    def bid(self, seat: int, hand: Sequence[int], options: Sequence[int],
            is_dealer: bool = False, high: int = PASS) -> int:
        params = self._heuristic(seat)
        if params is None:
            return options[self.stream.below(len(options))]
        return heuristic_bid(hand, self.rules.players, params, options,
                             rules=self.rules, is_dealer=is_dealer, high=high)

    def play(self, seat: int, hand: Sequence[int], legal: Sequence[int], trick: Sequence[Play],
             plays: Sequence[Play], trump: int | None, pitcher: int) -> int:
        """``plays``: every card played so far, this trick's included, with its seat."""
        params = self._heuristic(seat)
        if params is None:
            return legal[self.stream.below(len(legal))]
        n = self.rules.players
        view = PlayView(seat=seat, hand=hand, pitcher=pitcher, players=n,
                        played=[p.card for p in plays], voids=trump_voids(plays, n, trump))
        if not trick:
            return lead_card(view, trump, params, self.rules.low)
        assert trump is not None, "the first lead names trumps"
        return follow_card(view, legal, trick, trump, params)
