"""Pilipili (Pepper), the reference players: the policies of ``seeds/pepper.md`` §7
as executable Python.

The referee of a hand and a game (``reference.py``) asks a decider for every
call, trump and card; :class:`PolicyDecider` here answers by each seat's
policy: ``random`` (§7.1), the ``heuristic`` (§7.2: its hand estimate, bids,
trump choice, leads and follows, the all-tricks plan) and the ``expert``
(§7.3: its search is ``reference_expert.py``, on the reference solver).
Like the referee, this is written to be read; the kernels (``kernel_*.py``)
must agree with it card for card.  It reads the rules (``rules.py``,
``policies.py``) and the trick primitives of ``tricks.py``, never the
referee, so that the referee can import it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pepper import reference_expert
from simkit.pepper.policies import (
    TABLE_OFFSET,
    ExpertParams,
    HeuristicParams,
    Model,
    PolicyName,
    SlamPlay,
    hundredths,
    make_policies,
)
from simkit.pepper.rules import ACE, KING, NO_TRUMP, QUEEN, PepperRules
from simkit.pepper.tricks import (
    PlayView,
    beats,
    bid_options,
    card_of,
    discard_value,
    discarded,
    effective_suit,
    is_trump,
    legal_cards,
    partner_of,
    same_side,
    shown_out,
    suit_cards,
    trump_options,
    trump_position,
    winning_play,
)
from simkit.policy import Policy
from simkit.records.moves import Bid, Play


def heuristic_params(policy: Policy) -> HeuristicParams:
    """A seat's heuristic parameters (§7.2): a heuristic's, or an expert's, which
    bids, names the trump and breaks ties as its heuristic (§7.3)."""
    params = policy.params
    if not isinstance(params, HeuristicParams):
        raise TypeError(f"policy {policy.name!r} has no heuristic parameters")
    return params


# ---------------------------------------------------------------------------
# §7.2 The heuristic policy
# ---------------------------------------------------------------------------

#: Estimate of a trump held at each position from the top (§7.2), in hundredths.
TRUMP_VALUE = (100, 90, 75, 60, 50, 40, 35)


def run_from_top(cards_high_first: Sequence[int], held: Collection[int]) -> int:
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


def boss(suit: int, trump: int, played: Collection[int]) -> int | None:
    """The highest card of an effective suit not yet played (§7.2), or None.

    ``played`` holds every card on the table, the current trick included; the
    boss may be in anyone's hand, the dead hand included.
    """
    for c in suit_cards(suit, trump):
        if c not in played:
            return c
    return None


def side_boss(held: Collection[int], trump: int, played: Collection[int]) -> int | None:
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
    seen = set(played)
    held = set(hand)
    trumps_held = [c for c in hand if is_trump(c, trump)]
    boss_trump = boss(trump, trump, seen) if trump != NO_TRUMP else None
    holds_boss_trump = boss_trump is not None and boss_trump in held
    if trump != NO_TRUMP and params.draw_trumps and holds_boss_trump:
        outstanding = [c for c in suit_cards(trump, trump) if c not in seen and c not in held]
        if outstanding:
            return min(trumps_held, key=lambda c: trump_position(c, trump))
    b = side_boss(held, trump, seen)
    if b is not None:
        return b
    if boss_trump is not None and holds_boss_trump:
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
        return slam_follow_card(seat=seat, hand=hand, trick=trick, trump=trump, rules=rules,
                                view=view)
    card = lowest(legal, trump)
    if rules.players == 4 and best.seat == partner_of(seat, rules):
        if view is not None and params is not None and params.cover_third \
                and threatened(card=best.card, seat=seat, hand=hand, trick=trick, trump=trump,
                               rules=rules, view=view):
            safe = safe_winners(legal=legal, seat=seat, hand=hand, trick=trick, trump=trump,
                                rules=rules, view=view)
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
            and not threatened(card=c, seat=seat, hand=hand, trick=trick, trump=trump, rules=rules,
                               view=view)]


def highest(cards: Sequence[int], trump: int) -> int:
    """The card of largest discard value, ties to the larger card id."""
    return max(cards, key=lambda c: (discard_value(c, trump), c))


def slam_active(seat: int, view: PlayView, rules: PepperRules, params: HeuristicParams) -> bool:
    """Does the all-tricks plan apply? (§7.2 "All tricks"): ``slam_play = plan``,
    4 players, an Ndogo or Kubwa contract, ``seat`` on the declaring side, and
    that side has won every trick so far."""
    if params.slam_play is not SlamPlay.PLAN or rules.players != 4 or view.contract < rules.ndogo:
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
    safe = safe_winners(legal=legal, seat=seat, hand=hand, trick=trick, trump=trump, rules=rules,
                        view=view)
    if best.seat == partner_of(seat, rules) and \
            not threatened(card=best.card, seat=seat, hand=hand, trick=trick, trump=trump,
                           rules=rules, view=view):
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
    if boss_trump is not None and opp_trumps and holds_boss_trump:
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
    if boss_trump is not None and holds_boss_trump:
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
    return follow_card(seat=seat, hand=hand, trick=trick, trump=trump, rules=rules, params=params,
                       view=view)


# ---------------------------------------------------------------------------
# §7.3 The expert policy: perfect-information Monte Carlo (reference_expert.py)
# ---------------------------------------------------------------------------

def expert_card(seat: int, hand: Sequence[int], trick: Sequence[Play], view: PlayView,
                trump: int, params: ExpertParams, decide: PolicyDecider) -> int:
    """The expert's card (§7.3) at ``decide``'s table (its rules, policies and
    stream): the search of :func:`reference_expert.expert_card` over
    ``params.worlds`` worlds drawn from ``decide.stream``, its tie-break the
    card the heuristic plays here with the expert's parameters
    (:func:`heuristic_card`).  With ``model = table`` the worlds are weighed
    by the table's policies (:func:`table_model`; ``decide.planned``: the
    seat that called by a plan, -1 none)."""
    rules = decide.rules
    hint = heuristic_card(seat=seat, hand=hand, trick=trick, view=view, trump=trump,
                          rules=rules, params=params)
    model = table_model(rules, decide.policies, trump, params.trust, calls=params.calls,
                        planned=decide.planned) \
        if params.model is Model.TABLE and params.worlds > 0 else None
    search = reference_expert.Search(params.worlds, decide.stream, hint, model=model,
                                     particles=params.particles, redraw=params.redraw,
                                     enumerate_few=params.enumerate)
    return reference_expert.expert_card(seat=seat, hand=hand, trick=trick, view=view,
                                        trump=trump, rules=rules, search=search)


def table_model(rules: PepperRules, table: Sequence[Policy], trump: int, trust: float,
                calls: bool = False, planned: int = -1) -> reference_expert.TableModel:
    """The expert's model of the other seats (§7.3 "Inference"): each calls,
    plays and names the trump as the heuristic with its own parameters (an
    expert seat as its heuristic), a random seat says nothing, nor do the
    calls of the seat ``planned`` that called by a plan (§9.3).  ``trust`` is
    rounded to thousandths, as the kernels read it; ``calls``: whether the
    calls are weighed."""
    def play(seat: int, hand: Sequence[int], trick: Sequence[Play], view: PlayView) -> int | None:
        policy = table[seat]
        if policy.name == PolicyName.RANDOM:
            return None
        return heuristic_card(seat=seat, hand=hand, trick=trick, view=view, trump=trump,
                              rules=rules, params=heuristic_params(policy))

    def name(seat: int, hand: Sequence[int], contract: int) -> int | None:
        policy = table[seat]
        if policy.name == PolicyName.RANDOM:
            return None
        return choose_trump(hand, contract, rules, heuristic_params(policy))

    def call(seat: int, hand: Sequence[int], before: Sequence[Bid], high: int) -> int | None:
        policy = table[seat]
        if policy.name == PolicyName.RANDOM or seat == planned:
            return None
        bids = [b for b in before if b.level > 0]
        own_side = bool(bids) and same_side(bids[-1].seat, seat, rules)
        return heuristic_bid(hand, high, rules, heuristic_params(policy), own_side)

    return reference_expert.TableModel(play=play, trump=name,
                                       trump_options=len(trump_options(rules)),
                                       trust=round(trust * 1000) / 1000, call=call,
                                       kubwa=rules.kubwa, calls=calls)


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
            if p.name not in set(PolicyName):
                raise InputError(f"unknown Pepper policy {p.name!r}: "
                                 f"expected random, heuristic or expert")
        self.rules, self.policies, self.stream = rules, tuple(policies), stream
        self.planned = -1                 # a seat calling by a plan (PlanDecider)

    def _random(self, seat: int) -> bool:
        return self.policies[seat].name == PolicyName.RANDOM

    def bid(self, seat: int, hand: Sequence[int], calls: Sequence[Bid], high: int) -> int:
        if self._random(seat):
            options = bid_options(self.rules, high)
            return options[self.stream.below(len(options))]
        bids = [b for b in calls if b.level > 0]
        own_side = bool(bids) and same_side(bids[-1].seat, seat, self.rules)
        return heuristic_bid(hand, high, self.rules, heuristic_params(self.policies[seat]),
                             own_side)

    def trump(self, seat: int, hand: Sequence[int], contract: int) -> int:
        if self._random(seat):
            options = trump_options(self.rules)
            return options[self.stream.below(len(options))]
        return choose_trump(hand, contract, self.rules, heuristic_params(self.policies[seat]))

    def play(self, seat: int, hand: Sequence[int], trick: Sequence[Play],
             view: PlayView, trump: int) -> int:
        if self._random(seat):
            led = effective_suit(trick[0].card, trump) if trick else None
            legal = legal_cards(hand, led, trump)
            return legal[self.stream.below(len(legal))]
        params = heuristic_params(self.policies[seat])
        if isinstance(params, ExpertParams) and self.policies[seat].name == PolicyName.EXPERT:
            return expert_card(seat=seat, hand=hand, trick=trick, view=view, trump=trump,
                               params=params, decide=self)
        return heuristic_card(seat=seat, hand=hand, trick=trick, view=view, trump=trump,
                              rules=self.rules, params=params)
