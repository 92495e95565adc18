"""Burraco, the reference engine's players: the policies of ``seeds/burraco.md``
section 9 as readable Python (the rules, the state and the referee are
:mod:`simkit.burraco.reference`).

Cards as the policies see them (every 2 is wild, §9); the draw, the keep,
the melding steps 1-4 (with 3b, §9.1), going out and the discard, each
decided by :class:`Decider` on the :class:`~simkit.burraco.reference.Hand`
as it stands (:class:`Table`: what a player sees of it).  The hand applies
each decision by the rules (§2-§4).  The card tables and :func:`extended` (a
meld with one card more, §3) are here because both the players and the hand
ask them.  Nothing here uses numba.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from simkit.base.rng import Stream
from simkit.burraco.melds import (
    BURRACO_SIZE,
    DECK_SIZE,
    SEQUENCE,
    SET,
    Meld,
    MeldRules,
    extend,
    is_wild,
    points,
    position,
    read_meld,
    suit,
    table_score,
)
from simkit.burraco.policies import HeuristicParams, Order, make_policies
from simkit.burraco.rules import PLAYERS, BurracoRules, Pozzetto
from simkit.policy import RANDOM, Policy


class Table(Protocol):
    """What a player sees of the hand in play (:class:`simkit.burraco.reference.Hand`)."""

    hands: list[set[int]]
    melds: list[list[Meld]]
    pile: list[int]
    stock: list[int]
    taken: list[int]
    takes: int
    going_out: bool

    def allows(self, seat: int, cards: Sequence[int]) -> bool: ...

    def unseen(self, seat: int) -> list[int]: ...


#: A table's policies as :func:`simkit.burraco.policies.make_policies` takes them: one
#: spec for every seat or one per seat (None: the default).
Specs = str | Policy | Sequence[str | Policy] | None
#: Draw sources.
STOCK, PILE = 0, 1
#: §9 sets are tried for the ranks A, 3, 4, ..., K: positions 0, 2, 3, ..., 12.
SET_POSITIONS = (0, *range(2, 13))
#: §9 places as the policies see them: 3..13 for 3..K, 14 for the ace.
LOWEST_PLACE, ACE_PLACE = 3, 14


def team_of(seat: int) -> int:
    """Team 0 is seats 0 and 2, team 1 seats 1 and 3 (§1)."""
    return seat % 2


def meld_rules_of(rules: BurracoRules) -> MeldRules:
    """The meld variants (§3) of a table's rules."""
    return MeldRules(twos_set=bool(rules.twos_set), sequence_wilds=int(rules.sequence_wilds))


#: Per card id: wild (a joker or a 2, §1), rank position, suit (-1 for a joker).
WILD = tuple(is_wild(c) for c in range(DECK_SIZE))
POSITION = tuple(-1 if c >= 104 else position(c) for c in range(DECK_SIZE))
SUIT = tuple(-1 if c >= 104 else suit(c) for c in range(DECK_SIZE))


def cannot_extend(meld: Meld, card: int) -> bool:
    """A quick test that a *natural* ``card`` cannot join ``meld`` (never wrong
    the other way: :func:`extended` asks the meld module otherwise).

    A set's natural cards share one rank and there are at most 9 cards; a
    set without a natural card (a set of 2s, ``twos_set``) would read a natural
    newcomer with its 2s as wild cards, more than one.  A sequence holding a
    natural card is of that card's suit, two naturals of one face would need
    one place, and (without aces, whose place can change) a natural card more
    places beyond the naturals than the meld has wild cards, plus one, would
    leave a gap.
    """
    naturals = [c for c in meld.cards if not WILD[c]]
    if meld.kind == SET:
        return len(meld.cards) >= 9 or not naturals or POSITION[naturals[0]] != POSITION[card]
    if naturals and SUIT[naturals[0]] != SUIT[card]:
        return True
    if any(c % 52 == card % 52 for c in naturals):
        return True
    if not naturals or POSITION[card] == 0 or any(POSITION[c] == 0 for c in naturals):
        return False                    # an ace may sit at either end: ask the meld module
    # without aces every natural has one place (position + 1); the new reading's run
    # covers them all with the meld's wild cards (at most one each) in the gaps
    places = [POSITION[c] + 1 for c in naturals]
    wilds = len(meld.cards) - len(naturals)
    q = POSITION[card] + 1
    return q > max(places) + 1 + wilds or q < min(places) - 1 - wilds


@lru_cache(maxsize=1 << 18)
def _extend_one(meld: Meld, card: int, rules: MeldRules) -> Meld | None:
    return extend(meld, (card,), rules)


def extended(meld: Meld, card: int, rules: MeldRules) -> Meld | None:
    """``meld`` with ``card`` added, or None (§3, :func:`melds.extend`).

    The meld module decides; a natural card that :func:`cannot_extend` is
    turned down without asking it, and its answers are cached (the same
    question comes up pass after pass and turn after turn).
    """
    if not WILD[card] and cannot_extend(meld, card):
        return None
    return _extend_one(meld, card, rules)



# ---------------------------------------------------------------------------
# §9 Policy helpers (cards as the policies see them: every 2 is wild)
# ---------------------------------------------------------------------------

def is_natural(c: int) -> bool:
    """Not wild: neither a joker nor a 2 (§9)."""
    return not WILD[c]


def place(c: int) -> int:
    """A natural card's place for the policies (§9): 3..13 for 3..K, 14 for the ace."""
    p = POSITION[c]
    return ACE_PLACE if p == 0 else p + 1


def holds_wild(meld: Meld) -> bool:
    """Does the meld hold a 2 or a joker (a wild card as the policies see it, §9)?"""
    return any(WILD[c] for c in meld.cards)


def table_points(melds: Sequence[Meld]) -> int:
    """A team's table points this hand: melded points plus burraco bonuses (§9)."""
    return table_score(melds)["total"]


def has_burraco(melds: Sequence[Meld]) -> bool:
    return any(len(m) >= BURRACO_SIZE for m in melds)


def makes_three(top: int, hand: Iterable[int]) -> bool:
    """§9 draw: does the natural ``top`` make, with the hand's natural cards,
    three of a rank or three consecutive places of its suit?"""
    naturals = [c for c in hand if is_natural(c)]
    if sum(1 for c in naturals if POSITION[c] == POSITION[top]) >= 2:
        return True
    held = {place(c) for c in naturals if SUIT[c] == SUIT[top]}
    p = place(top)
    for low in (p - 2, p - 1, p):
        if low >= LOWEST_PLACE and low + 2 <= ACE_PLACE \
                and all(q in held for q in range(low, low + 3) if q != p):
            return True
    return False


def heuristic_takes_pile(params: HeuristicParams, hand: Iterable[int], pile: Sequence[int],
                         own_melds: Sequence[Meld], meld_rules: MeldRules) -> bool:
    """§9 draw: take the discard pile (True) or draw from the stock (False)."""
    if not pile:
        return False
    top = pile[-1]
    if is_natural(top):
        if any(extended(m, top, meld_rules) is not None for m in own_melds):
            return True
        if makes_three(top, hand):
            return True
    return len(pile) >= params.take_at


def set_cards(hand: Iterable[int], pos: int) -> list[int]:
    """The hand's natural cards of rank position ``pos``, increasing (§9 step 2)."""
    return sorted(c for c in hand if not WILD[c] and POSITION[c] == pos)


def runs(hand: Iterable[int], s: int) -> list[list[int]]:
    """§9 step 3: the hand's natural cards of suit ``s`` at distinct places (the
    lower id of two copies), cut into runs of consecutive places, each run its
    card ids from the lowest place up; runs from the lowest up."""
    at: dict[int, int] = {}
    for c in sorted(hand):
        if not WILD[c] and SUIT[c] == s:
            at.setdefault(place(c), c)
    out: list[list[int]] = []
    for p in sorted(at):
        if out and place(out[-1][-1]) == p - 1:
            out[-1].append(at[p])
        else:
            out.append([at[p]])
    return out


def longest_run(hand: Iterable[int], s: int) -> list[int]:
    """The longest run of suit ``s`` (ties: the highest), [] if none (§9 step 3)."""
    best: list[int] = []
    for r in runs(hand, s):                  # lowest first: ">=" keeps the highest of a tie
        if len(r) >= len(best):
            best = r
    return best


def wild_pair(hand: Iterable[int], s: int) -> list[int]:
    """§9.1 step 3b: two natural cards of suit ``s`` at most two places apart,
    the pair with the highest top place (ties: the closer pair), the lower id
    of two copies; [] if none."""
    at: dict[int, int] = {}
    for c in sorted(hand):
        if not WILD[c] and SUIT[c] == s:
            at.setdefault(place(c), c)
    for q in range(ACE_PLACE, LOWEST_PLACE, -1):
        if q in at:
            for p in (q - 1, q - 2):
                if p in at:
                    return [at[p], at[q]]
    return []


def linked(a: int, b: int) -> bool:
    """Natural cards that can meet in a meld: one rank, or one suit at most two
    places apart (§9: the discard key's use and risk)."""
    if POSITION[a] == POSITION[b]:
        return True
    return SUIT[a] == SUIT[b] and 1 <= abs(place(a) - place(b)) <= 2


def discard_key(card: int, hand: Iterable[int], opp_melds: Sequence[Meld], meld_rules: MeldRules,
                unseen: Sequence[int] | None = None) -> tuple[int, ...]:
    """§9 discard key, smallest discarded first: (feeds the opponents, wild, risk,
    use, -points, id); ``risk`` (§9.1) counts the ``unseen`` natural cards
    :func:`linked` to it, 0 when ``unseen`` is None."""
    if WILD[card]:
        return (0, 1, 0, 0, -points(card), card)
    feeds = int(any(extended(m, card, meld_rules) is not None for m in opp_melds))
    use = sum(1 for c in hand if c != card and not WILD[c] and linked(c, card))
    risk = 0 if unseen is None else sum(1 for u in unseen if linked(u, card))
    return (feeds, 0, risk, use, -points(card), card)


def heuristic_discard(hand: Sequence[int], opp_melds: Sequence[Meld], meld_rules: MeldRules,
                      unseen: Sequence[int] | None = None) -> int:
    """The card with the smallest :func:`discard_key` (§9)."""
    return min(hand, key=lambda c: discard_key(c, hand, opp_melds, meld_rules, unseen))


@dataclass(frozen=True)
class Lay:
    """A melding decision (§9): lay ``cards`` from the hand as a new meld of ``kind``."""

    cards: tuple[int, ...]
    kind: str


@dataclass(frozen=True)
class Add:
    """A melding decision (§9): add ``card`` from the hand to the team's meld
    number ``meld`` (from 0), which then reads as ``new`` (§3)."""

    meld: int
    card: int
    new: Meld


class Decider:
    """Decisions by each seat's policy (§9).

    ``random`` draws one ``stream.below(n)`` per decision it makes, in this
    order within a turn: the draw (only with a non-empty pile), the pozzetto
    way (only with ``pozzetto = both`` and the team's pozzetto not taken),
    going out (only with the pozzetto taken and a burraco), the discard
    (``below(hand size)``, also for a single card; not when going out).
    ``heuristic`` and ``patient`` never draw.

    The player's plan for melding (:meth:`keep`, :meth:`closes_after`) and its
    melding itself (:meth:`melds`, §9 steps 1-4, the random policy melding as
    the default heuristic) are decided here too, on the :class:`Hand` as it
    stands; the hand applies each decision by the rules (§2-§4).
    """

    def __init__(self, rules: BurracoRules, policies: Specs, stream: Stream | None) -> None:
        policies = make_policies(policies, PLAYERS)
        self.rules, self.policies, self.stream = rules, tuple(policies), stream
        self.meld_rules = meld_rules_of(rules)
        # the random policy melds as the default heuristic (§9); the others by their own
        self.melding = tuple(p.params if isinstance(p.params, HeuristicParams)
                             else HeuristicParams() for p in self.policies)

    def below(self, n: int) -> int:
        """A random policy's draw: ``below(n)`` on the stream (a hand replayed
        from its log, which asks no policy, has none)."""
        assert self.stream is not None, "a random policy needs a stream"
        return self.stream.below(n)

    def is_random(self, seat: int) -> bool:
        return self.policies[seat].params.KIND == RANDOM

    def draw(self, seat: int, hand: Iterable[int], pile: Sequence[int],
             own_melds: Sequence[Meld]) -> int:
        """STOCK or PILE (§9 draw)."""
        if self.is_random(seat):
            return self.below(2) if pile else STOCK
        params = self.melding[seat]
        return PILE if heuristic_takes_pile(params, hand, pile, own_melds,
                                            self.meld_rules) else STOCK

    def direct(self, seat: int) -> bool:
        """With ``pozzetto = both``: the direct way (True) or on the discard (§9)."""
        if self.is_random(seat):
            return self.below(2) == 0
        return True

    def go_out(self, seat: int, own_melds: Sequence[Meld], opp_melds: Sequence[Meld]) -> bool:
        """Choose to go out if it can (§9), the team having its pozzetto and a burraco."""
        if self.is_random(seat):
            return self.below(2) == 1
        margin = self.melding[seat].close_margin
        return table_points(own_melds) >= table_points(opp_melds) - margin

    def discard(self, seat: int, table: Table) -> int:
        """The card to discard (§9), from the seat's hand on ``table``; with a pile
        of at least ``guard_pile`` cards the heuristic guards against the
        natural cards the seat has not seen (§9.1)."""
        cards = sorted(table.hands[seat])
        if self.is_random(seat):
            return cards[self.below(len(cards))]
        guard = len(table.pile) >= self.melding[seat].guard_pile
        return heuristic_discard(cards, table.melds[1 - team_of(seat)], self.meld_rules,
                                 table.unseen(seat) if guard else None)

    # -- §9 keep: the plan for melding -----------------------------------------

    def keep(self, seat: int, table: Table) -> tuple[int, bool]:
        """§9: ``(keep, going_out)``, the fewest cards the player means to hold
        after melding and whether it means to go out, on ``table`` as it is."""
        team = team_of(seat)
        if table.taken[team] < 0:
            way = self.rules.pozzetto
            direct = way is Pozzetto.DIRECT or (way is Pozzetto.BOTH and self.direct(seat))
            return (0 if direct else 1), False
        if has_burraco(table.melds[team]) and not self.melding[seat].close_after and \
                self.go_out(seat, table.melds[team], table.melds[1 - team]):
            return 1, True
        return 2, False

    def closes_after(self, seat: int, table: Table, keep: int) -> bool:
        """§9.1 ``close_after``: does the player, holding to ``keep`` with the table
        as it is after melding, choose to go out?"""
        team = team_of(seat)
        return self.melding[seat].close_after and keep == 2 \
            and has_burraco(table.melds[team]) \
            and self.go_out(seat, table.melds[team], table.melds[1 - team])

    # -- §9 melding ------------------------------------------------------------

    def melds(self, seat: int, table: Table) -> Iterator[Lay | Add]:
        """§9 melding, both policies: passes of steps 1-4 until one changes
        nothing.  Each new meld or addition is yielded for ``table`` to apply
        (which may take a pozzetto, §4) before the next is chosen from the
        table as it then is; every move leaves the hand as ``table.allows``."""
        params = self.melding[seat]
        own = table.melds[team_of(seat)]
        hands = table.hands                     # hands[seat] may be replaced by a pozzetto
        changed = True
        while changed:
            changed = False
            # 1. additions: each meld in order, the hand's natural cards by increasing id
            for m in range(len(own)):
                order = sorted(c for c in hands[seat] if is_natural(c))
                i, takes = 0, table.takes
                while i < len(order):
                    c = order[i]
                    i += 1
                    new = extended(own[m], c, self.meld_rules)
                    if new is not None and table.allows(seat, (c,)):
                        yield Add(m, c, new)
                        changed = True
                        if table.takes != takes:          # a pozzetto: go on from it
                            order = sorted(x for x in hands[seat] if is_natural(x) and x > c)
                            i, takes = 0, table.takes
            # 2-3. new melds: sets and sequences, in the policy's order
            if params.order is Order.SETS:
                changed |= yield from self._sets(seat, table, params)
                changed |= yield from self._sequences(seat, table, params)
            else:
                changed |= yield from self._sequences(seat, table, params)
                changed |= yield from self._sets(seat, table, params)
            # 3b. sequences started with a wild card (§9.1)
            if params.wild_start > 0:
                changed |= yield from self._wild_starts(seat, table, params)
            # 4. wild cards: the lowest-id wild onto each meld without one
            for m in range(len(own)):
                if not self.wild_fits(seat, table, own[m], params):
                    continue
                wilds = [c for c in hands[seat] if WILD[c]]
                if not wilds:
                    break
                w = min(wilds)
                new = extended(own[m], w, self.meld_rules)
                if new is not None and table.allows(seat, (w,)):
                    yield Add(m, w, new)
                    changed = True

    def _sets(self, seat: int, table: Table, params: HeuristicParams) -> Generator[Lay, None, bool]:
        """§9 step 2: for each rank A, 3, ..., K, its natural cards as a new set."""
        changed = False
        for pos in SET_POSITIONS:
            cards = set_cards(table.hands[seat], pos)
            if len(cards) >= params.open_at and table.allows(seat, cards):
                yield Lay(tuple(cards), SET)
                changed = True
        return changed

    def _sequences(self, seat: int, table: Table,
                   params: HeuristicParams) -> Generator[Lay, None, bool]:
        """§9 step 3: suits C D H S, the longest run again and again."""
        changed = False
        for s in range(4):
            while True:
                run = longest_run(table.hands[seat], s)
                if len(run) < params.open_at or not table.allows(seat, run):
                    break
                yield Lay(tuple(run), SEQUENCE)
                changed = True
        return changed

    def _wild_starts(self, seat: int, table: Table,
                     params: HeuristicParams) -> Generator[Lay, None, bool]:
        """§9.1 step 3b: for each suit C D H S, while the hand holds at least
        ``wild_start`` wild cards, two natural cards of the suit at most two
        places apart (:func:`wild_pair`) and the lowest-id wild card make a
        new sequence."""
        changed = False
        for s in range(4):
            while True:
                hand = table.hands[seat]
                wilds = [c for c in hand if WILD[c]]
                pair = wild_pair(hand, s)
                if len(wilds) < params.wild_start or not pair:
                    break
                cards = [*pair, min(wilds)]
                if read_meld(cards, self.meld_rules, SEQUENCE) is None \
                        or not table.allows(seat, cards):
                    break
                yield Lay(tuple(cards), SEQUENCE)
                changed = True
        return changed

    def wild_fits(self, seat: int, table: Table, meld: Meld, params: HeuristicParams) -> bool:
        """§9 step 4 with the guard of §9.1: may a wild card go onto ``meld``?

        Only onto a meld without one, of at least ``wild_at`` cards.  Onto one
        of at least ``wild_guard`` cards (a clean burraco in the making) only
        when the hand is ending (:meth:`ending`); when it makes the team's
        first burraco once the team has its pozzetto and the player holds at
        most three cards (the burraco it needs to go out); or when the player
        is going out and the wild card leaves at most one card in hand (with
        ``pozzetto_wild`` also to empty the hand for the pozzetto)."""
        n = len(meld)
        if holds_wild(meld) or n < params.wild_at:
            return False
        if n < params.wild_guard:
            return True
        team = team_of(seat)
        hand = table.hands[seat]
        if n == BURRACO_SIZE - 1 and len(hand) <= 3 and table.taken[team] >= 0 \
                and not has_burraco(table.melds[team]):
            return True
        if self.ending(seat, table, params):
            return True
        if len(hand) > 2:
            return False
        return table.going_out or (params.pozzetto_wild and table.taken[team] < 0)

    def ending(self, seat: int, table: Table, params: HeuristicParams) -> bool:
        """§9.1: the hand is ending: the stock holds at most ``end_stock`` cards, or
        (``end_threat``) the opponents have their pozzetto and a burraco."""
        if len(table.stock) <= params.end_stock:
            return True
        other = 1 - team_of(seat)
        return params.end_threat and table.taken[other] >= 0 and has_burraco(table.melds[other])
