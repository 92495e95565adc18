"""Pepper's expert policy, the reference side: seeds/pepper.md §7.3 in plain Python.

A player that searches: at a card with more than one candidate it deals the
cards it cannot see into worlds that agree with what it has seen, values
each candidate in each world with the double-dummy solver
(``reference_solver.py``, §10) and plays the card that does best over the
worlds.  The pieces, in the order of §7.3: the candidates
(:func:`expert_candidates`), the worlds (:func:`world_holders`,
:func:`sample_world`, :func:`constrained_deal`, the oracle's
:func:`real_world`), the goal (:func:`expert_goal`), the value of a
candidate in a world (:func:`candidate_value`) and the choice
(:func:`expert_card`).

The reference engine (``reference.py``) calls :func:`expert_card` for the
expert's seats with the card its heuristic would play there (§7.2), the
choice's tie-break.  This module uses the trick primitives of ``tricks.py``
and nothing of the reference engine above it; its numba twin is
``expert.py``, with which it shares no code.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pepper import reference_solver
from simkit.pepper.rules import DECK, PepperRules
from simkit.pepper.tricks import (
    PlayView,
    discard_value,
    effective_suit,
    legal_cards,
    same_side,
    shown_out,
    suit_cards,
    trick_winner,
)
from simkit.records.moves import Bid, Play

#: Plain shuffles tried for a world before the constrained deal (§7.3 Worlds, step 1).
WORLD_TRIES = 20

#: The holder label of the two-player dead hand in a world (not a seat).
DEAD = -1

#: The heaviest kept world's weight in the vote (§7.3 "Inference").
WEIGHT_ONE = 1024

#: The most deals of the unseen cards, before the voids, that enumeration lists.
ENUMERATE_MAX = 4096


def cards_held(seat: int, rules: PepperRules, view: PlayView) -> int:
    """How many cards ``seat`` holds now: the hand size less the cards it has
    put on the table (§1, §4)."""
    return rules.tricks - sum(1 for p in view.plays if p.seat == seat)


def equivalent(a: int, b: int, hand: Sequence[int], trick: Sequence[Play], view: PlayView,
               trump: int) -> bool:
    """Are the player's cards ``a`` and ``b`` *equivalent for it*? (§7.3
    "Candidates"): of one effective suit, with every card of that suit ranked
    between them either the player's own (then all three are one group) or
    played in an *earlier* trick.  A card of the current trick, and any unseen
    card (the two-player dead hand's included), separates them."""
    suit = effective_suit(a, trump)
    if effective_suit(b, trump) != suit:
        return False
    order = suit_cards(suit, trump)
    lo, hi = sorted((order.index(a), order.index(b)))
    earlier = {p.card for p in view.plays[:len(view.plays) - len(trick)]}
    return all(c in hand or c in earlier for c in order[lo + 1:hi])


def expert_candidates(hand: Sequence[int], trick: Sequence[Play], view: PlayView,
                      trump: int) -> list[int]:
    """The expert's candidates (§7.3 "Candidates"), lowest first (discard
    value, then card id, as :func:`lowest`).

    The legal cards (§4), with equivalent cards (:func:`equivalent`) merged:
    walking each suit upwards, a held card starts a new group unless the
    last card still in play below it (not played in an earlier trick) is also
    held.  Of each group the candidate is the lowest card.
    """
    led = effective_suit(trick[0].card, trump) if trick else None
    legal = legal_cards(hand, led, trump)
    earlier = {p.card for p in view.plays[:len(view.plays) - len(trick)]}
    held = set(hand)
    candidates = []
    for suit in sorted({effective_suit(c, trump) for c in legal}):
        previous_held = False            # walking the suit upwards: the last card in play was ours
        for c in reversed(suit_cards(suit, trump)):
            if c in held:
                if not previous_held:
                    candidates.append(c)  # the lowest card of a new group
                previous_held = True
            elif c not in earlier:
                previous_held = False     # a card still in play (unseen or in this trick)
    return sorted(candidates, key=lambda c: (discard_value(c, trump), c))


@dataclass(frozen=True)
class Holder:
    """A hand the expert deals unseen cards to (§7.3 "Worlds"): the seat
    (:data:`DEAD` for the two-player dead hand), how many cards it receives,
    and the effective suits it may not hold (those it has shown out of)."""

    seat: int
    size: int
    barred: frozenset[int]

    def may_hold(self, suit: int) -> bool:
        return suit not in self.barred


def world_holders(seat: int, rules: PepperRules, view: PlayView, trump: int) -> list[Holder]:
    """The holders of §7.3 "Worlds", in holder order: the other seats that play,
    starting left of ``seat``, each receiving as many cards as it now holds
    and barred from the effective suits it has shown out of (§7.2, the
    current trick included); with 2 players the dead hand last, receiving its
    8 cards and barred from nothing."""
    voids = shown_out(view, rules, trump)
    n = rules.players
    holders = [Holder(s, cards_held(s, rules, view), frozenset(voids[s]))
               for s in ((seat + k) % n for k in range(1, n))]
    if n == 2:
        holders.append(Holder(DEAD, rules.tricks, frozenset()))
    return holders


def unseen_cards(hand: Sequence[int], view: PlayView) -> list[int]:
    """U of §7.3: the cards neither in the hand nor played (the current trick
    included), in increasing card id."""
    played = view.played
    return [c for c in range(DECK.size) if c not in played and c not in hand]


def dealable(rest: Sequence[int], room: Sequence[int], holders: Sequence[Holder],
             trump: int) -> bool:
    """Can the cards ``rest`` still be dealt into the ``room`` left with each
    holder, every holder taking only suits it may hold? (§7.3 Worlds, step 2)

    For every set S of effective suits, the cards of ``rest`` in S must be no
    more than the room left with the holders that may hold a suit of S.
    """
    per_suit = [0] * 4
    for c in rest:
        per_suit[effective_suit(c, trump)] += 1
    for mask in range(1, 16):
        suits = [e for e in range(4) if mask >> e & 1]
        cards = sum(per_suit[e] for e in suits)
        space = sum(r for r, h in zip(room, holders) if any(h.may_hold(e) for e in suits))
        if cards > space:
            return False
    return True


def fits(world: Sequence[Sequence[int]], holders: Sequence[Holder], trump: int) -> bool:
    """No holder holds a card of a suit it has shown out of."""
    return all(h.may_hold(effective_suit(c, trump)) for h, cards in zip(holders, world)
               for c in cards)


def constrained_deal(order: Sequence[int], holders: Sequence[Holder],
                     trump: int) -> list[list[int]]:
    """Step 2 of §7.3 "Worlds": the cards in ``order`` (the twentieth shuffle)
    handed out in that order, each to the first holder, in holder order, that
    has room, may hold its suit, and leaves the rest dealable (:func:`dealable`).

    Such a holder always exists: the rest was dealable before this card (the
    real deal shows it at the start), so some complete deal of it gives this
    card to some holder, and giving it there leaves the rest dealable.
    """
    room = [h.size for h in holders]
    world: list[list[int]] = [[] for _ in holders]
    for i, c in enumerate(order):
        suit = effective_suit(c, trump)
        rest = order[i + 1:]
        for x, h in enumerate(holders):
            if room[x] == 0 or not h.may_hold(suit):
                continue
            room[x] -= 1
            if dealable(rest, room, holders, trump):
                world[x].append(c)
                break
            room[x] += 1
        else:
            raise AssertionError(f"{DECK.text(c)} fits no holder: the position is impossible")
    return world


def sample_world(stream: Stream, unseen: Sequence[int], holders: Sequence[Holder],
                 trump: int) -> list[list[int]]:
    """One world (§7.3 "Worlds"): the cards of ``unseen`` (in increasing card
    id) dealt to the holders, one list per holder in holder order.

    1. Up to :data:`WORLD_TRIES` times: shuffle a fresh copy of ``unseen``
       (``stream.shuffle``, the Fisher-Yates of §1) and give the first cards
       to the first holder, the next to the second, and so on; the first such
       deal in which no holder holds a suit it has shown out of is the world.
    2. Otherwise the twentieth shuffle's cards go out by
       :func:`constrained_deal`.
    """
    order: list[int] = []
    for _ in range(WORLD_TRIES):
        order = list(unseen)
        stream.shuffle(order)
        world, start = [], 0
        for h in holders:
            world.append(order[start:start + h.size])
            start += h.size
        if fits(world, holders, trump):
            return world
    return constrained_deal(order, holders, trump)


def real_world(unseen: Sequence[int], holders: Sequence[Holder],
               view: PlayView) -> list[list[int]]:
    """The oracle's one world (§7.3, ``worlds = 0``): the real deal, every
    holder's cards as they are (``view.holdings``); the two-player dead hand
    holds the rest of ``unseen``.  Nothing is drawn."""
    if not view.holdings:
        raise InputError("the expert's oracle (worlds=0) sees the real deal, "
                         "but this play has none to show it")
    world = [sorted(view.holdings[h.seat]) if h.seat != DEAD else [] for h in holders]
    dealt = {c for cards in world for c in cards}
    for h, cards in zip(holders, world):
        if h.seat == DEAD:
            cards.extend(c for c in unseen if c not in dealt)
    return world


@dataclass(frozen=True)
class ExpertGoal:
    """What the expert plays for (§7.3 "The value of a candidate").

    ``open``: the contract is neither made nor beaten; ``side``: the seats
    whose double-dummy value counts (the declaring side while open, the
    player's own side once decided); ``declaring``: the player is on the
    declaring side; ``won``: the declaring side's tricks so far; ``need``:
    the contract level (T for Ndogo and Kubwa).
    """

    open: bool
    side: frozenset[int]
    declaring: bool
    won: int
    need: int


def expert_goal(seat: int, rules: PepperRules, view: PlayView) -> ExpertGoal:
    """The goal of §7.3.  The declaring side is the bidder's partnership with 4
    players, the bidder alone otherwise; ``need`` is the contract, T for Ndogo
    and Kubwa.  The contract is *decided* once the declaring side has won
    ``need`` tricks or can no longer: the other seats have won more than
    ``T - need`` tricks between them."""
    T = rules.tricks
    seats = range(rules.players)
    declarers = frozenset(s for s in seats if same_side(s, view.bidder, rules))
    need = min(view.contract, T)
    won = sum(view.tricks[s] for s in declarers)
    lost = sum(view.tricks) - won
    is_open = won < need and lost <= T - need
    own = frozenset(s for s in seats if same_side(s, seat, rules))
    return ExpertGoal(is_open, declarers if is_open else own, seat in declarers, won, need)


def seat_hands(world: Sequence[Sequence[int]], holders: Sequence[Holder],
               players: int) -> list[list[int]]:
    """A world's hands by seat (§7.3 "Worlds"): each holder's cards at its seat,
    the dead hand left out, the player's own seat empty."""
    hands: list[list[int]] = [[] for _ in range(players)]
    for h, cards in zip(holders, world):
        if h.seat != DEAD:
            hands[h.seat] = list(cards)
    return hands


def candidate_value(seat: int, card: int, own: Sequence[int], world: Sequence[Sequence[int]],
                    trick: Sequence[Play], trump: int, side: frozenset[int]) -> int:
    """The double-dummy value (§10) for ``side`` of the position after ``seat``
    plays ``card`` in a world (§7.3 "The value of a candidate in a world"),
    the world's hands by seat (:func:`seat_hands`).

    The position has every hand that plays (the world's, and the player's own
    ``own`` without ``card``; the dead hand takes no part) and the current
    trick with ``card`` added, the current trick counted.  If ``card``
    completes the trick, the position is the start of the next trick with the
    trick's winner to lead, and the completed trick adds 1 if its winner is
    on the side.
    """
    n = len(world)
    hands = [list(h) for h in world]
    hands[seat] = [c for c in own if c != card]
    after = [*trick, Play(seat, card)]
    if len(after) < n:
        return reference_solver.value(hands, trump, after, (seat + 1) % n, side)
    winner = trick_winner(after, trump)
    took = 1 if winner in side else 0
    return took + reference_solver.value(hands, trump, [], winner, side)


@dataclass(frozen=True)
class TableModel:
    """What the expert believes each other seat does (§7.3 "Inference"): the
    table's own policies.  ``play(seat, hand, trick, view)`` is the card the
    seat's policy plays there, ``trump(seat, hand, contract)`` the trump it
    names with its dealt hand, ``call(seat, hand, calls, high)`` its call
    after ``calls`` (``None`` from any of them: a seat whose choice says
    nothing of its cards, random or calling by a plan); ``trump_options`` is
    how many options the rules allow, ``kubwa`` the highest level; ``trust``
    is epsilon; ``calls``: whether the calls are weighed."""

    play: Callable[[int, Sequence[int], Sequence[Play], PlayView], int | None]
    trump: Callable[[int, Sequence[int], int], int | None]
    trump_options: int
    trust: float
    call: Callable[[int, Sequence[int], Sequence[Bid], int], int | None] | None = None
    kubwa: int = 0
    calls: bool = False


def action_probability(is_model: bool, legal: int, trust: float) -> float:
    """P(action) under the model (§7.3 "Inference"): ``1 - trust`` on the
    model's action, ``trust`` spread evenly over the ``legal`` actions."""
    return (1.0 - trust) + trust / legal if is_model else trust / legal


def world_weight(seat: int, world: Sequence[Sequence[int]], holders: Sequence[Holder],
                 own: Sequence[int], view: PlayView, trump: int, rules: PepperRules,
                 model: TableModel) -> float:
    """The likelihood of what the other seats did, in a world (§7.3
    "Inference"): with ``model.calls`` every call of the auction (its legal
    calls: pass and every level above the high bid), then the bidder's trump,
    then every card played so far, in play order, each by
    :func:`action_probability` against the model's choice with the cards the
    seat held then in this world (what it holds in the world and what it has
    played since).  The player's own actions and those the
    model says nothing of (None) count 1."""
    n = rules.players
    dealt = seat_hands(world, holders, n)
    dealt[seat] = list(own)
    for p in view.plays:
        dealt[p.seat].append(p.card)
    like = 1.0
    if model.calls and model.call is not None:
        high = 0
        for i, b in enumerate(view.calls):
            if b.seat != seat:
                called = model.call(b.seat, dealt[b.seat], view.calls[:i], high)
                if called is not None:
                    like *= action_probability(called == b.level, model.kubwa - high + 1,
                                               model.trust)
            high = max(high, b.level)
    if view.bidder != seat:
        named = model.trump(view.bidder, dealt[view.bidder], view.contract)
        if named is not None:
            like *= action_probability(named == trump, model.trump_options, model.trust)
    holding = [list(h) for h in dealt]
    tricks = [0] * n
    trick: list[Play] = []
    for i, p in enumerate(view.plays):
        if p.seat != seat:
            past = PlayView(view.plays[:i], view.bidder, view.contract, tuple(tricks))
            card = model.play(p.seat, holding[p.seat], trick, past)
            if card is not None:
                led = effective_suit(trick[0].card, trump) if trick else None
                legal = legal_cards(holding[p.seat], led, trump)
                like *= action_probability(card == p.card, len(legal), model.trust)
        holding[p.seat].remove(p.card)
        trick.append(p)
        if len(trick) == n:
            tricks[trick_winner(trick, trump)] += 1
            trick = []
    return like


def thin(weights: Sequence[float], n: int) -> bool:
    """Is the effective sample size of the weights, (sum w)^2 / sum w^2, below
    half of ``n``? (§7.3 "Inference"; all weights 0 counts as thin.)  The sums
    run in order, as the kernel's do."""
    s = s2 = 0.0
    for w in weights:
        s += w
        s2 += w * w
    return s == 0.0 or 2.0 * s * s < n * s2


def all_worlds(unseen: Sequence[int], holders: Sequence[Holder], trump: int,
               limit: int) -> list[list[list[int]]] | None:
    """Every world that fits the holders' voids (§7.3 "Worlds", enumerated), or
    None if there are more than ``limit`` or more than :data:`ENUMERATE_MAX`
    deals before the voids.  Order: the first holder's cards as combinations
    of ``unseen`` (increasing id) in lexicographic order, then the second's
    of the cards left, the last holder taking the rest.  Nothing is drawn."""
    total, left = 1, len(unseen)
    for h in holders[:-1]:
        total *= math.comb(left, h.size)
        left -= h.size
    if total > ENUMERATE_MAX:
        return None
    out: list[list[list[int]]] = []

    def deal_from(rest: list[int], x: int, world: list[list[int]]) -> bool:
        if x == len(holders) - 1:
            world = [*world, rest]
            if fits(world, holders, trump):
                if len(out) == limit:
                    return False
                out.append(world)
            return True
        for part in itertools.combinations(rest, holders[x].size):
            if not deal_from([c for c in rest if c not in part], x + 1, [*world, list(part)]):
                return False
        return True

    return out if deal_from(list(unseen), 0, []) else None


def heaviest(deals: list[Any], weights: Sequence[float], n: int) -> tuple[list[Any], list[int]]:
    """The ``n`` heaviest worlds (§7.3 "Inference"), heaviest first, ties in
    draw order, and their weights in the vote: each world's weight over the
    heaviest's, in 1024ths, rounded half up (integers, so that sums are exact);
    if every weight is 0 (trust 0 and a surprise in every world), 1024 each."""
    order = sorted(range(len(deals)), key=lambda w: -weights[w])[:n]
    top = weights[order[0]]
    q = [int(weights[w] / top * WEIGHT_ONE + 0.5) if top > 0 else WEIGHT_ONE for w in order]
    return [deals[w] for w in order], q


@dataclass(frozen=True)
class Search:
    """How the expert searches at one card (§7.3): ``worlds`` worlds, drawn from
    ``stream``; ``hint`` is the card the heuristic (§7.2, its all-tricks plan
    included) plays here with the expert's parameters: the heuristic's card
    of "The choice"; the worlds are weighed by ``model`` (None:
    ``model=voids``), ``particles`` of them drawn, redrawn at most ``redraw``
    times, or listed with ``enumerate_few`` (:func:`expert_card`)."""

    worlds: int
    stream: Stream
    hint: int
    model: TableModel | None = None
    particles: int = 0
    redraw: int = 0
    enumerate_few: bool = False


def expert_card(seat: int, hand: Sequence[int], trick: Sequence[Play], view: PlayView,
                trump: int, rules: PepperRules, search: Search) -> int:
    """The expert's card (§7.3), searched as ``search`` says (:class:`Search`).

    With one candidate (:func:`expert_candidates`) it is played and nothing is
    drawn.  Otherwise worlds are drawn (:func:`sample_world`), all of them
    before the first solve: without a ``model`` (``model=voids``) ``worlds``
    of them, each of weight 1; with one, ``particles`` of them, weighed by
    :func:`world_weight`, and ``particles`` more while the weights are
    :func:`thin`, at most ``redraw`` times; or, with ``enumerate_few``, every
    world that fits if :func:`all_worlds` lists them; of these the
    ``worlds`` heaviest are kept with their weights (:func:`heaviest`).  With
    ``worlds = 0`` (the oracle) the one world is the real deal
    (:func:`real_world`) and nothing is drawn.
    Every candidate is valued in every world (:func:`candidate_value`).  The
    choice (§7.3 "The choice"), where a candidate *is* the heuristic's card
    ``hint`` when the two are equivalent for the player, and a world counts
    with its weight:

    - contract open: the most weight of worlds in which the declaring side's
      tricks so far plus the value reach ``need`` (for a declaring-side
      player) or do not (for a defender); ties: the heuristic's card if it
      is among them; then the most weighted value in total over the worlds
      for a declaring-side player, the least for a defender;
    - contract decided: the most weighted value in total; ties: the
      heuristic's card if it is among them;
    - remaining ties: the lowest candidate (discard value, then card id).
    """
    candidates = expert_candidates(hand, trick, view, trump)
    if len(candidates) == 1:
        return candidates[0]
    holders = world_holders(seat, rules, view, trump)
    unseen = unseen_cards(hand, view)
    worlds, particles = search.worlds, search.particles
    if worlds == 0:
        deals, q = [real_world(unseen, holders, view)], [WEIGHT_ONE]
    elif search.model is None:
        deals = [sample_world(search.stream, unseen, holders, trump) for _ in range(worlds)]
        q = [WEIGHT_ONE] * worlds
    else:
        model = search.model

        def weight(world: Sequence[Sequence[int]]) -> float:
            return world_weight(seat=seat, world=world, holders=holders, own=hand, view=view,
                                trump=trump, rules=rules, model=model)

        drawn = all_worlds(unseen, holders, trump, particles) if search.enumerate_few else None
        if drawn is not None:
            weights = [weight(world) for world in drawn]
        else:
            drawn, weights = [], []
            for rounds in range(search.redraw + 1):
                if rounds > 0 and not thin(weights, particles):
                    break
                more = [sample_world(search.stream, unseen, holders, trump)
                        for _ in range(particles)]
                drawn += more
                weights += [weight(world) for world in more]
        deals, q = heaviest(drawn, weights, worlds)
    goal = expert_goal(seat, rules, view)
    by_seat = [seat_hands(world, holders, rules.players) for world in deals]
    best, best_key = -1, None
    key: tuple[int, bool, int] | tuple[int, bool]
    for card in candidates:                       # lowest first: strict ">" keeps the lowest
        values = [candidate_value(seat=seat, card=card, own=hand, world=world, trick=trick,
                                  trump=trump, side=goal.side) for world in by_seat]
        total = sum(v * w for v, w in zip(values, q))
        is_hint = equivalent(a=card, b=search.hint, hand=hand, trick=trick, view=view,
                             trump=trump)
        if goal.open:
            wanted = sum(w for v, w in zip(values, q)
                         if (goal.won + v >= goal.need) == goal.declaring)
            key = (wanted, is_hint, total if goal.declaring else -total)
        else:
            key = (total, is_hint)
        if best_key is None or key > best_key:
            best, best_key = card, key
    return best
