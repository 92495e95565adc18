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

Layout: constants; records (Turn, HandLog, GameLog); §1 the deal; §6 scoring;
§9 policy helpers and the Decider (every decision, melding included); §2-§5,
§7 the hand (:class:`Hand`); play_hand and play_game.  A hand record's text
and its replay are ``simkit/burraco/record.py``.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from simkit import drama
from simkit.burraco.melds import (
    BURRACO_SIZE,
    DECK_SIZE,
    SEQUENCE,
    SET,
    Meld,
    MeldRules,
    cards_text,
    extend,
    is_wild,
    points,
    position,
    read_meld,
    suit,
    table_score,
)
from simkit.burraco.policies import HeuristicParams, make_policies
from simkit.burraco.rules import HAND, PLAYERS, POZZETTI, STOCK_END, BurracoRules
from simkit.errors import InputError
from simkit.policy import Policy
from simkit.rng import Stream

TEAMS = 2
#: §1 deal positions: 0..43 the players, then the two pozzetti, the first
#: discard, the stock.
DEALT = HAND * PLAYERS                       # 44
POZZETTO_AT = (DEALT, DEALT + HAND)          # 44, 55
PILE_AT = DEALT + POZZETTI * HAND            # 66
STOCK_AT = PILE_AT + 1                       # 67
#: §6: a team that did not take its pozzetto loses this (``untaken_pozzetto = flat``).
POZZETTO_PENALTY = 100
#: Draw sources.
STOCK, PILE = 0, 1
#: Ways a pozzetto is taken (§4).
DIRECT, ON_DISCARD = 0, 1
WAY_TEXT = ("directly", "on the discard")
#: How a hand ends (§5).
CLOSED, STOCK_OUT, CAP = "closed", "stock", "cap"
#: §9 sets are tried for the ranks A, 3, 4, ..., K: positions 0, 2, 3, ..., 12.
SET_POSITIONS = (0,) + tuple(range(2, 13))
#: §9 places as the policies see them: 3..13 for 3..K, 14 for the ace.
LOWEST_PLACE, ACE_PLACE = 3, 14

# Decision codes (see the module docstring).
SEAT_CODE = 1_000_000
CODE_DRAW = 1_000
CODE_POZZETTO = 2_000
CODE_KEEP = 3_000
CODE_NEW_MELD = 4_000
CODE_MELD_CARD = 5_000
CODE_DISCARD = 6_000
CODE_GO_OUT = 7_000
CODE_ADD = 100_000
KIND_CODE = {SET: 0, SEQUENCE: 1}


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
# Records
# ---------------------------------------------------------------------------

@dataclass
class Turn:
    """One turn: the seat and its events in order.

    Events are tuples: ``("draw", source, cards)`` (cards taken: one from the
    stock, or the whole pile bottom first); ``("keep", keep)``; ``("meld",
    kind, cards, m)`` a new meld (cards in increasing id) that is the team's
    meld ``m``; ``("add", m, card)``; ``("pozzetto", way, number)``;
    ``("discard", card)``; ``("out", card)``.
    """

    seat: int
    events: list

    def codes(self) -> list[int]:
        """The turn's decision codes (module docstring)."""
        base = self.seat * SEAT_CODE
        out = []
        for e in self.events:
            kind = e[0]
            if kind == "draw":
                out.append(base + CODE_DRAW + e[1])
            elif kind == "keep":
                out.append(base + CODE_KEEP + e[1])
            elif kind == "meld":
                cards = e[2]
                out.append(base + CODE_NEW_MELD + 100 * KIND_CODE[e[1]] + len(cards))
                out.extend(base + CODE_MELD_CARD + c for c in cards)
            elif kind == "add":
                out.append(base + CODE_ADD + 1_000 * e[1] + e[2])
            elif kind == "pozzetto":
                out.append(base + CODE_POZZETTO + 10 * e[1] + e[2])
            elif kind == "discard":
                out.append(base + CODE_DISCARD + e[1])
            elif kind == "out":
                out.append(base + CODE_GO_OUT + e[1])
            else:                                                   # pragma: no cover
                raise AssertionError(f"unknown event {e!r}")
        return out


PARTS = ("melded", "hand_penalty", "burraco_bonus", "closing_bonus", "pozzetto_penalty")


@dataclass
class HandLog:
    """Everything that happened in one hand (the §8 hand record, and more).

    ``start_hands``, ``start_pozzetti``, ``start_pile`` (bottom first) and
    ``start_stock`` (drawing order) are the position the hand started from
    (the deal, §1); ``turns`` every turn in order, the first numbered
    ``first_turn`` (1 unless the position was written in mid-hand);
    ``start_taken`` the pozzetti taken before it.  At the end: ``hands``
    (each seat's cards, increasing), ``melds`` (per team, in the order laid),
    ``pozzetti`` (the untaken ones' cards), ``taken`` (per team the number of
    the pozzetto it took, -1 none) and ``pozzetto_turn``; ``parts`` the score
    parts per team (:func:`score_team`).
    """

    rules: BurracoRules
    policies: tuple
    dealer: int
    start_hands: list[list[int]]
    start_pozzetti: list[list[int]]
    start_pile: list[int]
    start_stock: list[int]
    start_melds: list[list[tuple[int, ...]]]
    start_taken: list[int]
    first_turn: int
    turns: list[Turn]
    ended: str
    closer: int
    hands: list[list[int]]
    melds: list[list[Meld]]
    pozzetti: list[list[int]]
    taken: list[int]
    pozzetto_turn: list[int]
    parts: list[dict]

    @property
    def starter(self) -> int:
        """The player left of the dealer, who starts (§1)."""
        return (self.dealer + 1) % PLAYERS

    @property
    def score(self) -> list[int]:
        return [p["score"] for p in self.parts]

    def decision_codes(self) -> list[int]:
        """Every turn's codes in order (module docstring)."""
        return [c for t in self.turns for c in t.codes()]

    def record(self) -> dict:
        """The §8 hand record as plain Python values (the hand number is the caller's).

        Per team ``t``: ``score_t`` = ``melded_t + hand_penalty_t +
        burraco_bonus_t + closing_bonus_t + pozzetto_penalty_t`` (asserted);
        ``sets_t + sequences_t`` = ``melds_t`` (asserted).
        """
        rec: dict = {"dealer": int(self.dealer), "turns": self.first_turn - 1 + len(self.turns),
                     "ended": self.ended, "closer": int(self.closer)}
        for t in range(TEAMS):
            p = self.parts[t]
            assert p["score"] == sum(p[k] for k in PARTS), p
            assert p["burraco_bonus"] == 200 * p["clean_burraco"] + 100 * p["dirty_burraco"], p
            rec[f"score_{t}"] = int(p["score"])
            rec[f"melded_{t}"] = int(p["melded"])
            rec[f"hand_penalty_{t}"] = int(p["hand_penalty"])
            rec[f"clean_burraco_{t}"] = int(p["clean_burraco"])
            rec[f"dirty_burraco_{t}"] = int(p["dirty_burraco"])
            rec[f"burraco_bonus_{t}"] = int(p["burraco_bonus"])
            rec[f"closing_bonus_{t}"] = int(p["closing_bonus"])
            rec[f"pozzetto_penalty_{t}"] = int(p["pozzetto_penalty"])
            rec[f"pozzetto_turn_{t}"] = int(self.pozzetto_turn[t])
            rec[f"melds_{t}"] = len(self.melds[t])
            assert p["sets"] + p["sequences"] == len(self.melds[t]), p
            rec[f"sets_{t}"] = int(p["sets"])
            rec[f"sequences_{t}"] = int(p["sequences"])
            rec[f"wilds_{t}"] = int(p["wilds"])
        return rec


@dataclass
class GameLog:
    """A whole game (§6, §8): the first dealer, every hand in order, the result.

    ``winner`` is the winning team, or -1 when the win is shared (``shared``)
    or the game hit ``max_hands`` (``unfinished``).  Who led (§8,
    :mod:`simkit.drama`, a hand being a step): ``tops`` is the bitmask of the
    teams on the higher game score after each hand (both when level), and
    ``lead_changes``, ``comeback`` and ``settled`` are read from it.
    """

    rules: BurracoRules
    first_dealer: int
    hands: list[HandLog]
    score: list[int]
    winner: int
    shared: bool
    unfinished: bool
    tops: list[int]
    lead_changes: int
    comeback: bool
    settled: int

    def record(self) -> dict:
        return {"first_dealer": int(self.first_dealer), "hands": len(self.hands),
                "score_0": int(self.score[0]), "score_1": int(self.score[1]),
                "winner": int(self.winner), "shared": bool(self.shared),
                "unfinished": bool(self.unfinished), "lead_changes": int(self.lead_changes),
                "comeback": bool(self.comeback), "settled": int(self.settled)}

    def decision_codes(self) -> list[int]:
        """Every hand's codes in order."""
        return [c for h in self.hands for c in h.decision_codes()]


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
               took_pozzetto: bool, untaken: Sequence[int]) -> dict:
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
    elif rules.untaken_pozzetto == "flat":
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


def makes_three(top: int, hand) -> bool:
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


def heuristic_takes_pile(params, hand, pile: Sequence[int], own_melds: Sequence[Meld],
                         meld_rules: MeldRules) -> bool:
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


def set_cards(hand, pos: int) -> list[int]:
    """The hand's natural cards of rank position ``pos``, increasing (§9 step 2)."""
    return sorted(c for c in hand if not WILD[c] and POSITION[c] == pos)


def runs(hand, s: int) -> list[list[int]]:
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


def longest_run(hand, s: int) -> list[int]:
    """The longest run of suit ``s`` (ties: the highest), [] if none (§9 step 3)."""
    best: list[int] = []
    for r in runs(hand, s):                  # lowest first: ">=" keeps the highest of a tie
        if len(r) >= len(best):
            best = r
    return best


def wild_pair(hand, s: int) -> list[int]:
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


def discard_key(card: int, hand, opp_melds: Sequence[Meld], meld_rules: MeldRules,
                unseen=None) -> tuple:
    """§9 discard key, smallest discarded first: (feeds the opponents, wild, risk,
    use, -points, id); ``risk`` (§9.1) counts the ``unseen`` natural cards
    :func:`linked` to it, 0 when ``unseen`` is None."""
    if WILD[card]:
        return (0, 1, 0, 0, -points(card), card)
    feeds = int(any(extended(m, card, meld_rules) is not None for m in opp_melds))
    use = sum(1 for c in hand if c != card and not WILD[c] and linked(c, card))
    risk = 0 if unseen is None else sum(1 for u in unseen if linked(u, card))
    return (feeds, 0, risk, use, -points(card), card)


def heuristic_discard(hand, opp_melds: Sequence[Meld], meld_rules: MeldRules,
                      unseen=None) -> int:
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

    def __init__(self, rules: BurracoRules, policies, stream: Stream):
        policies = make_policies(policies, PLAYERS)
        self.rules, self.policies, self.stream = rules, tuple(policies), stream
        self.meld_rules = meld_rules_of(rules)
        self.melding = tuple(HeuristicParams() if p.name == "random" else p.params
                             for p in self.policies)

    def is_random(self, seat: int) -> bool:
        return self.policies[seat].name == "random"

    def draw(self, seat: int, hand, pile, own_melds) -> int:
        """STOCK or PILE (§9 draw)."""
        if self.is_random(seat):
            return self.stream.below(2) if pile else STOCK
        params = self.policies[seat].params
        return PILE if heuristic_takes_pile(params, hand, pile, own_melds,
                                            self.meld_rules) else STOCK

    def direct(self, seat: int) -> bool:
        """With ``pozzetto = both``: the direct way (True) or on the discard (§9)."""
        if self.is_random(seat):
            return self.stream.below(2) == 0
        return True

    def go_out(self, seat: int, own_melds, opp_melds) -> bool:
        """Choose to go out if it can (§9), the team having its pozzetto and a burraco."""
        if self.is_random(seat):
            return self.stream.below(2) == 1
        margin = self.policies[seat].params.close_margin
        return table_points(own_melds) >= table_points(opp_melds) - margin

    def discard(self, seat: int, table: Hand) -> int:
        """The card to discard (§9), from the seat's hand on ``table``; with a pile
        of at least ``guard_pile`` cards the heuristic guards against the
        natural cards the seat has not seen (§9.1)."""
        cards = sorted(table.hands[seat])
        if self.is_random(seat):
            return cards[self.stream.below(len(cards))]
        guard = len(table.pile) >= self.policies[seat].params.guard_pile
        return heuristic_discard(cards, table.melds[1 - team_of(seat)], self.meld_rules,
                                 table.unseen(seat) if guard else None)

    # -- §9 keep: the plan for melding -----------------------------------------

    def keep(self, seat: int, table: Hand) -> tuple[int, bool]:
        """§9: ``(keep, going_out)``, the fewest cards the player means to hold
        after melding and whether it means to go out, on ``table`` as it is."""
        team = team_of(seat)
        if table.taken[team] < 0:
            way = self.rules.pozzetto
            direct = way == "direct" or (way == "both" and self.direct(seat))
            return (0 if direct else 1), False
        if has_burraco(table.melds[team]) and not self.melding[seat].close_after and \
                self.go_out(seat, table.melds[team], table.melds[1 - team]):
            return 1, True
        return 2, False

    def closes_after(self, seat: int, table: Hand, keep: int) -> bool:
        """§9.1 ``close_after``: does the player, holding to ``keep`` with the table
        as it is after melding, choose to go out?"""
        team = team_of(seat)
        return self.melding[seat].close_after and keep == 2 \
            and has_burraco(table.melds[team]) \
            and self.go_out(seat, table.melds[team], table.melds[1 - team])

    # -- §9 melding ------------------------------------------------------------

    def melds(self, seat: int, table: Hand) -> Iterator[Lay | Add]:
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
            if params.order == "sets":
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

    def _sets(self, seat: int, table: Hand, params) -> Generator[Lay, None, bool]:
        """§9 step 2: for each rank A, 3, ..., K, its natural cards as a new set."""
        changed = False
        for pos in SET_POSITIONS:
            cards = set_cards(table.hands[seat], pos)
            if len(cards) >= params.open_at and table.allows(seat, cards):
                yield Lay(tuple(cards), SET)
                changed = True
        return changed

    def _sequences(self, seat: int, table: Hand, params) -> Generator[Lay, None, bool]:
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

    def _wild_starts(self, seat: int, table: Hand, params) -> Generator[Lay, None, bool]:
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
                cards = pair + [min(wilds)]
                if read_meld(cards, self.meld_rules, SEQUENCE) is None \
                        or not table.allows(seat, cards):
                    break
                yield Lay(tuple(cards), SEQUENCE)
                changed = True
        return changed

    def wild_fits(self, seat: int, table: Hand, meld: Meld, params) -> bool:
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

    def ending(self, seat: int, table: Hand, params) -> bool:
        """§9.1: the hand is ending: the stock holds at most ``end_stock`` cards, or
        (``end_threat``) the opponents have their pozzetto and a burraco."""
        if len(table.stock) <= params.end_stock:
            return True
        other = 1 - team_of(seat)
        return params.end_threat and table.taken[other] >= 0 and has_burraco(table.melds[other])


# ---------------------------------------------------------------------------
# §2-§5, §7 A hand
# ---------------------------------------------------------------------------

class Hand:
    """A hand in progress, from a dealt or hand-written position.

    ``hands`` (4 non-empty lists of card ids), ``pozzetti`` (the first and the
    second pozzetto; one already taken is given empty), ``stock`` (drawing
    order, at least 3 cards), ``pile`` (bottom first) and ``melds`` (per team,
    lists of card ids in the order laid; each must make a meld) give the
    cards.  ``dealer`` (the starter is left of it), ``to_move`` (default the
    starter), ``taken`` (per team the number 0/1 of the pozzetto it took,
    -1 none; the first team to take one takes number 0), ``pozzetto_turn``
    and ``turns`` (turns already played, for the cap) give the state.
    ``stream`` serves the random policies.  Play with :meth:`play_turn` or
    :meth:`run`; :meth:`log` gives the record.  The hand applies the rules and
    asks the policies' :class:`Decider` for every decision (the draw, the keep,
    the melding, going out, the discard).  A turn's steps (:meth:`take_draw`,
    :meth:`fix_keep`, :meth:`lay`, :meth:`add`, :meth:`put_discard`,
    :meth:`close_with`, :meth:`end_turn`) also serve a text record's replay,
    which makes the recorded moves instead of the policies
    (``simkit/burraco/record.py``).
    """

    def __init__(self, rules: BurracoRules, policies, stream: Stream, hands, pozzetti=((), ()),
                 stock=(), pile=(), melds=((), ()), *, dealer: int = 0,
                 to_move: int | None = None, taken=(-1, -1), pozzetto_turn=None,
                 turns: int = 0, check: bool = False):
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
        self.hands = [set(int(c) for c in h) for h in hands]
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
        self.events: list = []
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
        assert len(cards) == len(set(cards)) and set(cards) == self.total, "cards lost or doubled"
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
        assert self.taken[team] < 0 and not self.hands[seat]
        allowed = {DIRECT: ("both", "direct"), ON_DISCARD: ("both", "discard")}[way]
        assert self.rules.pozzetto in allowed, (way, self.rules.pozzetto)
        number = sum(1 for n in self.taken if n >= 0)
        self.hands[seat] = set(self.pozzetti[number])
        self.pozzetti[number] = []
        self.taken[team] = number
        self.pozzetto_turn[team] = self.start_turns + len(self.turns) + 1
        self.takes += 1
        self.events.append(("pozzetto", way, number))

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
        self.events.append(("keep", self.keep))

    def close_after_melding(self, seat: int) -> None:
        """§9.1 ``close_after``: with the pozzetto taken and a burraco on the table
        after melding, the player decides to go out on the table as it now is
        (:meth:`Decider.closes_after`); if so, ``keep`` becomes 1 and melding
        goes on."""
        if self.decide.closes_after(seat, self, self.keep):
            self.keep, self.going_out = 1, True
            self.events.append(("keep", self.keep))
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
            if self.keep == 0 and self.rules.pozzetto == "direct":
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
        self.events.append(("meld", kind, tuple(sorted(cards)), len(self.melds[team]) - 1))
        self.after_melding(seat)

    def add(self, seat: int, m: int, card: int, meld: Meld) -> None:
        """``card`` from the hand onto the team's meld ``m``, now read as ``meld`` (§3)."""
        self.hands[seat].remove(card)
        self.melds[team_of(seat)][m] = meld
        self.events.append(("add", m, card))
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
        self.events.append(("draw", source, tuple(taken)))
        return source == STOCK and len(self.stock) == STOCK_END

    def plays_on(self, last: bool) -> bool:
        """§5, §7: does the turn go on after its draw (``last``: the draw left the
        stock at two)?  With ``stock_end = stop`` the last draw ends play at once."""
        return not (last and self.rules.stock_end == "stop")

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
            assert is_natural(card) and self.taken[team] >= 0 and has_burraco(self.melds[team])
            self.close_with(seat, card)
            return
        self.put_discard(seat, self.decide.discard(seat, self))

    def put_discard(self, seat: int, card: int) -> None:
        """§7 (3): ``card`` from the hand onto the discard pile; a discard that
        empties the hand takes the pozzetto (§4)."""
        hand = self.hands[seat]
        hand.remove(card)
        self.pile.append(card)
        self.events.append(("discard", card))
        if not hand:
            self.take_pozzetto(seat, ON_DISCARD)

    def close_with(self, seat: int, card: int) -> None:
        """§5: the seat goes out, discarding its last card; the hand is closed."""
        self.hands[seat].clear()
        self.pile.append(card)
        self.events.append(("out", card))
        self.ended, self.closer = CLOSED, seat

    # -- the whole hand ------------------------------------------------------

    def run(self) -> HandLog:
        while not self.ended:
            self.play_turn()
        return self.log()

    def scores(self) -> list[dict]:
        """Each team's score parts (§6) as the hand stands."""
        out = []
        for t in range(TEAMS):
            left = [c for s in range(t, PLAYERS, TEAMS) for c in self.hands[s]]
            closed = self.closer >= 0 and team_of(self.closer) == t
            took = self.taken[t] >= 0
            out.append(score_team(self.rules, self.melds[t], left, closed, took,
                                  [] if took else self.untaken_cards(t)))
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

def new_hand(rules: BurracoRules, policies, stream: Stream, dealer: int,
             check: bool = False) -> Hand:
    """A freshly dealt hand (§1) on ``stream``; the starter is left of ``dealer``."""
    d = deal(stream, dealer)
    hand = Hand(rules, policies, stream, d.hands, d.pozzetti, d.stock, d.pile,
                dealer=dealer, check=check)
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
    if rules.tie == "shared":
        return True, -1, True
    return False, -1, False


def play_game(rules: BurracoRules, policies: Sequence[Policy], seed: int, index: int,
              check: bool = False) -> GameLog:
    """Game ``index`` of a run (§6, §7): the stream ``(seed, index)`` draws the first
    dealer (``below(4)``), then deals and plays hand after hand, the deal passing
    left, until a team reaches ``target``; both there: the higher score wins, a
    tie plays on (``tie = play_on``) or is shared; ``max_hands`` hands without a
    winner leave the game unfinished.  The top after each hand gives who led
    (§8, :func:`simkit.drama.drama`)."""
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
    return GameLog(rules, first, logs, total, winner, shared, unfinished, tops,
                   *drama.drama(tops, winners))
