"""Tests of the Shiesta reference engine (simkit/shiesta/reference.py) against seeds/shiesta.md.

The property tests replay every game with a referee written here from the
rule book, independently of the engine's helpers: it rebuilds the deal from
the stream, the exchange, and then each move from the move list alone
(who is to move, from which source, whether the set is legal on the pile
as the referee keeps it, drawing, the special cards, pickups, the win and
the turn cap), and re-derives every policy decision, random draws included.
Scenario positions are written out by hand; their expected outcome is
worked out from the rule book in the comments.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit.base import drama
from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.shiesta import reference as R
from simkit.shiesta.policies import NAMED, make_policies
from simkit.shiesta.record import body
from simkit.shiesta.rules import (
    PRESETS,
    AfterBurn,
    AfterPickup,
    Higher,
    Opening,
    Starter,
    Two,
    make_rules,
)

SOME = settings(max_examples=300, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])

# rank indices, spelled out again (rules.py: 2 = 0, ..., 10 = 8, ..., A = 12)
TEXT = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
N2, N3, N4, N5, N6, N7, N8, N9, N10, NJ, NQ, NK, NA = range(13)
ORDER = ["4", "5", "6", "7", "8", "9", "J", "Q", "K", "A"]                       # §2, low to high
STRONG = ["4", "5", "6", "7", "8", "9", "J", "Q", "K", "A", "3", "2", "10"]   # §6, weakest first
SPECIAL = {N2, N3, N10}
HAND, UP, DOWN, PICKUP = 0, 1, 2, 3

POLICY_SPECS = ["random", "heuristic", "heuristic:exchange=keep",
                "heuristic:burn_at=1,three_at=0", "heuristic:burn_at=12,three_at=8",
                "heuristic:save_specials=false", "heuristic:exchange=keep,save_specials=false,"
                "burn_at=3,three_at=20", NAMED["classic"],
                "heuristic:three_sets=all,special_sets=all,stuck_three_pile=0,"
                "stuck_three_next=200", "heuristic:three_sets=dry,burn_at=6,stuck_three_pile=9"]

seeds = st.integers(0, 2**64 - 1)
indices = st.integers(0, 2**30)
presets = st.sampled_from(sorted(PRESETS))


@st.composite
def tables(draw):
    """(rules, policies): 3-5 players, a preset (or every key drawn at once), any
    mix of seat policies."""
    n = draw(st.integers(3, 5))
    if draw(st.booleans()):
        rules = make_rules(draw(presets), players=n)
    else:
        keys = {"decks": draw(st.sampled_from(["auto", "1", "2"])),
                "hand_size": draw(st.integers(3, 5)),
                "higher": draw(st.sampled_from(["strict", "equal"])),
                "two": draw(st.sampled_from(["reset", "transparent"])),
                "seven_reverses": draw(st.booleans()),
                "after_burn": draw(st.sampled_from(["next", "again"])),
                "after_pickup": draw(st.sampled_from(["next", "picker"])),
                "opening": draw(st.sampled_from(["first", "every"])),
                "starter": draw(st.sampled_from(["random", "fixed"]))}
        if n == 5 and keys["decks"] == "1":
            keys["hand_size"] = min(keys["hand_size"], 4)
        rules = make_rules(players=n, overrides=keys)
    specs = [draw(st.sampled_from(POLICY_SPECS)) for _ in range(n)]
    return rules, make_policies(specs, n)


def ranks(text):
    return [TEXT.index(w) for w in text.split()]


def level(rank):
    return ORDER.index(TEXT[rank])


# --- the referee: the rule book written out again --------------------------

def goes_on(rank, pile, rules):
    """§2: may a card of ``rank`` go on ``pile`` (bottom first)?"""
    if rank in SPECIAL:
        return True
    stack = list(pile)
    if stack and stack[-1] == N2:
        if rules.two == Two.RESET:
            return True
        while stack and stack[-1] == N2:
            stack.pop()
    if not stack:
        return True
    top = stack[-1]
    same = rules.higher == Higher.EQUAL and rank == top
    if TEXT[top] == "7":
        return level(rank) < level(top) or same
    return level(rank) > level(top) or same


def opens(rank):
    """§4.3: a pile may be opened with a regular card other than 7."""
    return TEXT[rank] not in ("2", "3", "7", "10")


def legal_set_ranks(held, pile, rules):
    """§4.4: ranks of a hand or face-up row playable now (after the opening)."""
    have = sorted(r for r in held if held[r] > 0)
    if not pile and rules.opening == Opening.EVERY and any(opens(r) for r in have):
        return [r for r in have if opens(r)]
    return [r for r in have if goes_on(r, pile, rules)]


def expected_exchange(policy, cards, replay):
    """§6: (face-up multiset) of the exchange of ``cards`` (ranks)."""
    if policy.name == "random":
        ordered = sorted(cards)
        pick = list(combinations(range(len(ordered)), 3))[replay.below(comb(len(ordered), 3))]
        return Counter(ordered[p] for p in pick)
    ordered = sorted(cards, key=lambda r: STRONG.index(TEXT[r]))
    return Counter(ordered[-3:] if policy.params.exchange == "up" else ordered[:3])


def expected_heuristic(p, held, legal, pile_size, next_cards, dry):
    """§6.2 rules 2-6: (rank, count) or None for a pickup; ``dry``: the draw
    pile is empty (sets of specials)."""
    def special(r):
        sets = p.three_sets if r == N3 else p.special_sets
        return (r, held[r] if sets == "all" or (sets == "dry" and dry) else 1)

    if N3 in legal and next_cards <= p.three_at:
        return special(N3)
    if N10 in legal and p.burn_at and pile_size >= p.burn_at:
        return special(N10)
    if p.save_specials:
        regular = [r for r in legal if r not in SPECIAL]
        if regular:
            low = min(regular, key=level)
            return (low, held[low])
        stuck3 = pile_size >= p.stuck_three_pile and next_cards <= p.stuck_three_next
        for r in ((N3,) if stuck3 else ()) + (N2, N10, N3):
            if r in legal:
                return special(r)
        return None
    if legal:
        return (min(legal), held[min(legal)])
    return None


def referee(rules, log, policies=None, replay=None):
    """Replay ``log`` from its deal and check every rule; with ``policies`` and
    the ``replay`` stream (positioned after the starter draw) also every
    decision of the policies."""
    Referee(rules, log, policies, replay).run()
    return check_record(rules, log)


class Referee:
    """The referee's own table for :func:`referee`, in ranks: each seat's hand,
    face-up and face-down rows, the draw pile, the pile, the cards out of
    play, who moves next and which way, and the counts the record gives."""

    def __init__(self, rules, log, policies, replay):
        self.rules, self.log, self.policies, self.replay = rules, log, policies, replay
        self.n = rules.players
        self.down = [[c % 13 for c in row] for row in log.dealt_down]
        self.hand = [Counter(c % 13 for c in h) for h in log.dealt_hand]
        self.up = [Counter(c % 13 for c in row) for row in log.dealt_up]
        self.draw = [c % 13 for c in log.draw_pile]
        self.pile, self.out = [], Counter()
        self.to_move, self.direction, self.forced = log.starter, 1, False
        self.pickups, self.played, self.tops = [0] * self.n, Counter(), []

    def census(self):
        """Every card of every deck is somewhere, once."""
        total = Counter(self.out) + Counter(self.pile) + Counter(self.draw)
        for s in range(self.n):
            total += self.hand[s] + self.up[s] + Counter(self.down[s])
        assert all(total[r] == 4 * self.rules.n_decks for r in range(13)), total

    def cards(self, s):
        return sum(self.hand[s].values()) + sum(self.up[s].values()) + len(self.down[s])

    def run(self):
        log, n = self.log, self.n
        self.census()
        self.exchange()
        self.census()
        for k, m in enumerate(log.moves):
            assert not (k and self.cards(log.moves[k - 1].seat) == 0), "play went on after a win"
            # (held, legal ranks) when the seat chose, to check against its policy
            decision = self.opening(m) if k == 0 else self.turn(m)
            if decision is not None and self.policies is not None:
                self.check_decision(k, m, *decision)
            self.apply(m)
            self.census()
            fewest = min(self.cards(s) for s in range(n))     # who leads: the fewest cards
            self.tops.append(sum(1 << s for s in range(n) if self.cards(s) == fewest))
        self.result()

    def exchange(self):
        """§4.2 the exchange, from the starter clockwise."""
        log, hand, up = self.log, self.hand, self.up
        for i in range(self.n):
            s = (log.starter + i) % self.n
            together = list(hand[s].elements()) + list(up[s].elements())
            if self.policies is not None:
                assert Counter(log.up_after[s]) == expected_exchange(self.policies[s], together,
                                                                     self.replay)
            assert len(log.up_after[s]) == 3
            assert Counter(log.up_after[s]) + Counter(log.hand_after[s]) == Counter(together)
            up[s], hand[s] = Counter(log.up_after[s]), Counter(log.hand_after[s])

    def opening(self, m):
        """§4.3 the opening: who opens, with which rank, and (the random policy
        drawing) how many; returns the decision to check when nobody can open."""
        log, n = self.log, self.n
        candidates = [(log.starter + i) % n for i in range(n)]
        holders = [s for s in candidates
                   if any(opens(r) and self.hand[s][r] for r in self.hand[s])]
        seat = holders[0] if holders else log.starter
        held = self.hand[seat]
        assert (m.seat, m.source) == (seat, HAND)
        assert log.opener == seat
        if not holders:
            assert held[m.rank] >= m.count >= 1
            return (held, sorted(r for r in held if held[r]))
        rank = min((r for r in held if held[r] and opens(r)), key=level)
        assert m.rank == rank
        assert 1 <= m.count <= held[rank]
        if self.policies is not None:
            if self.policies[seat].name == "random":
                assert m.count == self.replay.below(held[rank]) + 1
            else:
                assert m.count == held[rank]
        return None

    def turn(self, m):
        """§4.4 a turn after the opening: the seat to move, its source, a legal
        set or a pickup; returns the decision to check, if the seat had one."""
        pile = self.pile
        if self.forced:
            # -- §3: the player after a 3 picks up, whatever the pile
            assert (m.seat, m.source, m.rank, m.count) == (self.to_move, PICKUP, 15, len(pile))
            return None
        seat = self.to_move
        assert m.seat == seat
        if sum(self.hand[seat].values()):
            src = HAND
        elif sum(self.up[seat].values()):
            src = UP
        else:
            src = DOWN
        if src == DOWN:
            turned = self.down[seat][0]
            if goes_on(turned, pile, self.rules):
                assert (m.source, m.rank, m.count) == (DOWN, turned, 1)
            else:
                assert (m.source, m.rank, m.count) == (PICKUP, turned, len(pile) + 1)
            return None
        held = self.hand[seat] if src == HAND else self.up[seat]
        legal = legal_set_ranks(held, pile, self.rules)
        if m.source == PICKUP:
            assert not legal, "picked up holding a legal set"
            assert (m.rank, m.count) == (15, len(pile))
        else:
            assert m.source == src
            assert m.rank in legal
            assert 1 <= m.count <= held[m.rank]
        return (held, legal)

    def check_decision(self, k, m, held, legal):
        """§6: move ``k`` is the one its seat's policy makes from ``held``, where
        ``legal`` are the ranks it may play (the random policy drawing)."""
        p = self.policies[m.seat]
        got = None if m.source == PICKUP else (m.rank, m.count)
        if p.name == "random":
            options = [(r, c) for r in legal for c in range(1, held[r] + 1)]
            want = options[self.replay.below(len(options))] if options else None
        else:
            want = expected_heuristic(p.params, held, legal, len(self.pile),
                                      self.cards((m.seat + self.direction) % self.n),
                                      not self.draw)
        assert got == want, (k, got, want)

    def apply(self, m):
        """The move ``m`` on the referee's table, and who moves next."""
        self.forced = False
        s = m.seat
        if m.source == PICKUP:
            if m.rank != 15:                                  # the face-down card
                self.hand[s][self.down[s].pop(0)] += 1
            for r in self.pile:
                self.hand[s][r] += 1
            self.pile = []
            self.pickups[s] += 1
            after = (s if self.rules.after_pickup == AfterPickup.PICKER
                     else (s + self.direction) % self.n)
            self.to_move = after
            return
        if m.source == DOWN:
            self.down[s].pop(0)
        else:
            held = self.hand[s] if m.source == HAND else self.up[s]
            held[m.rank] -= m.count
        drawn = 0
        if m.source == HAND:
            while sum(self.hand[s].values()) < self.rules.hand_size and self.draw:
                self.hand[s][self.draw.pop(0)] += 1
                drawn += 1
        assert m.drawn == drawn
        self.played[m.rank] += m.count
        self.to_move = self.special(m)
        if self.to_move is None:
            self.to_move = (s + self.direction) % self.n

    def special(self, m):
        """§3 the played set's effect on the pile: a 3 out of play and a forced
        pickup, a 10 burning the pile, a 7 reversing; the seat to move when
        the rules say (after a burn, ``again``), else None: the next seat."""
        if m.rank == N3:
            self.out[N3] += m.count
            self.forced = True
        elif m.rank == N10:
            self.out.update(self.pile)
            self.out[N10] += m.count
            self.pile = []
            if self.rules.after_burn == AfterBurn.AGAIN:
                return m.seat
        else:
            self.pile += [m.rank] * m.count
            if m.rank == N7 and self.rules.seven_reverses:
                for _ in range(m.count):
                    self.direction = -self.direction
        return None

    def result(self):
        """§4.5-§4.6 the win or the turn cap, and the counts the record gives."""
        log, rules, n = self.log, self.rules, self.n
        finished = bool(log.moves) and self.cards(log.moves[-1].seat) == 0
        if finished:
            assert log.winner == log.moves[-1].seat
            assert not log.unfinished
            assert log.turns <= rules.max_turns
        else:
            assert log.winner == -1
            assert log.unfinished
            assert log.turns == rules.max_turns
        assert log.pickups == self.pickups
        assert [log.played[r] for r in range(13)] == [self.played[r] for r in range(13)]
        assert log.cards_left == [self.cards(s) for s in range(n)]
        assert log.tops == self.tops
        led = drama.drama(self.tops, 1 << log.winner if finished else 0)
        rec = log.record()
        assert (rec["lead_changes"], rec["comeback"], rec["settled"]) == tuple(led)


def check_record(rules, log):
    """§5: the record's keys, types and values."""
    n = rules.players
    rec = log.record()
    keys = ["starter", "winner", "winner_seat", "turns"] + [f"pickups_{s}" for s in range(n)] \
        + ["played_2", "played_3", "played_7", "played_10"] \
        + [f"cards_left_{s}" for s in range(n)] + ["unfinished"] \
        + ["lead_changes", "comeback", "settled"] \
        + [f"dealt_{t}_{s}" for t in ("2", "3", "7", "10") for s in range(n)]
    assert sorted(rec) == sorted(keys)
    for key, value in rec.items():
        assert type(value) is (bool if key in ("unfinished", "comeback") else int), key
    assert rec["turns"] == len(log.moves) == len(log.move_codes())
    assert 0 <= rec["lead_changes"] < max(rec["turns"], 1)
    if rec["unfinished"]:
        assert rec["winner"] == rec["winner_seat"] == -1
        assert rec["turns"] == rules.max_turns
        assert rec["settled"] == -1
        assert not rec["comeback"]
    else:
        assert rec[f"cards_left_{rec['winner']}"] == 0
        assert rec["winner_seat"] == (rec["winner"] - rec["starter"]) % n
        # the winner holds no card after the last turn, so it leads then at least
        assert 0 <= rec["settled"] < rec["turns"]
    for t, r in (("2", N2), ("3", N3), ("7", N7), ("10", N10)):
        dealt = [rec[f"dealt_{t}_{s}"] for s in range(n)]
        assert sum(dealt) <= 4 * rules.n_decks
        for s in range(n):
            seat_cards = log.dealt_down[s] + log.dealt_up[s] + log.dealt_hand[s]
            assert len(seat_cards) == 6 + rules.hand_size
            assert dealt[s] == sum(1 for c in seat_cards if c % 13 == r)
        assert rec[f"played_{t}"] == sum(m.count for m in log.moves
                                         if m.source != PICKUP and m.rank == r)
    for m, code in zip(log.moves, log.move_codes()):
        assert code == ((m.seat * 4 + m.source) * 16 + m.rank) * 128 + min(m.count, 127)
        assert code % 128 == min(m.count, 127)
        assert code // 128 % 16 == m.rank
        assert code // 2048 % 4 == m.source
        assert code // 8192 == m.seat
        assert m.rank != 15 or m.source == PICKUP
    return rec


def replay_deal(seed, index, rules, log):
    """§1 written out: Fisher-Yates with the stream's below(), then the deal and
    the starter; returns the stream positioned for the policies' draws."""
    stream = Stream(seed, index)
    deck = list(range(52 * rules.n_decks))
    for j in range(len(deck) - 1, 0, -1):
        k = stream.below(j + 1)
        deck[j], deck[k] = deck[k], deck[j]
    n = rules.players
    for p, card in enumerate(deck):
        if p < 3 * n:
            assert log.dealt_down[p % n][p // n] == card
        elif p < 6 * n:
            assert log.dealt_up[p % n][(p - 3 * n) // n] == card
        elif p < (6 + rules.hand_size) * n:
            assert log.dealt_hand[p % n][(p - 6 * n) // n] == card
    assert log.draw_pile == deck[(6 + rules.hand_size) * n:]
    starter = stream.below(n) if rules.starter == Starter.RANDOM else 0
    assert log.starter == starter
    return stream


# --- hypothesis properties -------------------------------------------------

@pytest.mark.slow      # whole games refereed move by move
@SOME
@given(tables(), seeds, indices)
def test_game_follows_the_rule_book(table, seed, index):
    """Every card accounted for, only legal plays, the policies' decisions and
    draws, the win or the cap, the record."""
    rules, policies = table
    game = R.new_game(rules, policies, seed, index, check=True)
    log = game.run()
    replay = replay_deal(seed, index, rules, log)
    referee(rules, log, policies, replay)
    # the policies drew exactly what the referee drew, in the same order
    assert (game.decide.stream.state, game.decide.stream.spare) == (replay.state, replay.spare)
    assert R.play_game(rules, policies, seed, index) == log                # deterministic
    text = "\n".join(body(log))
    assert sum(line.startswith("turn ") for line in text.splitlines()) == log.turns
    assert f"starter: {log.starter}" in text


@settings(max_examples=100, deadline=None, database=None)
@given(tables(), seeds, indices, st.integers(10, 40))
def test_turn_cap(table, seed, index, cap):
    """§4.6: a game reaching max_turns stops unfinished with exactly that many turns."""
    rules, policies = table
    rules = rules.replace(max_turns=cap)
    log = R.play_game(rules, policies, seed, index, check=True)
    referee(rules, log, policies, replay_deal(seed, index, rules, log))
    assert log.turns <= cap
    assert log.unfinished == (log.turns == cap and log.winner < 0)


# --- hand-written positions ------------------------------------------------

#: The keywords of :func:`game` that place cards or say where the game stands.
PLACES = ("up", "down", "draw", "pile", "opened", "to_move", "starter")


def game(hands, players=None, policies="heuristic", stream=None, preset="seed", **kw):
    """A position after the exchange: ``hands``, and ``up``, ``down`` (per seat),
    ``draw`` and ``pile`` in ``kw``, are rank texts; ``opened``, ``to_move`` and
    ``starter`` say where the game stands; the other keywords are rule values."""
    at = {k: kw.pop(k) for k in PLACES if k in kw}
    n = players or len(hands)
    rules = make_rules(preset, players=n, overrides=kw or None)
    up = at.get("up") or [""] * n
    down = at.get("down") or [""] * n
    position = R.Position([ranks(d) for d in down], [ranks(u) for u in up],
                          [ranks(h) for h in hands], draw=ranks(at.get("draw", "")),
                          starter=at.get("starter", 0), pile=ranks(at.get("pile", "")),
                          to_move=at.get("to_move", 0), exchanged=True,
                          opened=at.get("opened", True))
    return R.Game(rules, make_policies(policies, n), stream or Stream(0, 0), position, check=True)


class Scripted(Stream):
    """A stream whose below() answers from a script (and records the bounds asked)."""

    def __init__(self, answers):
        super().__init__(0, 0)
        self.answers, self.asked = list(answers), []

    def below(self, n):
        self.asked.append(n)
        value = self.answers.pop(0)
        assert 0 <= value < n
        return value


def play(g, turns=1):
    return [g.play_turn() for _ in range(turns)]


def test_strict_vs_equal():
    """§2: on an 8 a strictly higher regular rank; with higher = equal, an 8 too."""
    strict = game(["8 9 J", "4 4", "4 4"], pile="8")
    assert R.legal_ranks(strict.hand[0], strict.pile, strict.rules) == [N9, NJ]
    (m,) = play(strict)
    assert (m.source, m.rank, m.count) == (HAND, N9, 1)
    equal = game(["8 9 J", "4 4", "4 4"], pile="8", higher="equal")
    assert R.legal_ranks(equal.hand[0], equal.pile, equal.rules) == [N8, N9, NJ]
    (m,) = play(equal)
    assert (m.rank, m.count) == (N8, 1)
    # nothing higher: a pickup of the whole pile
    g = game(["4 5 K", "4", "4"], pile="6 8 A")
    (m,) = play(g)
    assert (m.seat, m.source, m.rank, m.count) == (0, PICKUP, 15, 3)
    assert g.hand[0][NA] == 1
    assert g.pile == []


def test_seven():
    """§2: below 7 on a 7 (7 itself only with equal); a 7 goes on 4-6, not on 8."""
    g = game(["4 6 7 8", "4", "4"], pile="5 7")
    assert R.legal_ranks(g.hand[0], g.pile, g.rules) == [N4, N6]
    assert play(g)[0].rank == N4
    g = game(["7 8", "4", "4"], pile="7", higher="equal")
    assert R.legal_ranks(g.hand[0], g.pile, g.rules) == [N7]
    g = game(["7 8", "4", "4"], pile="7")
    assert play(g)[0].source == PICKUP                    # 7 on 7 only with equal
    g = game(["7 K", "4", "4"], pile="8")
    assert R.legal_ranks(g.hand[0], g.pile, g.rules) == [NK]
    g = game(["7", "4", "4"], pile="6")
    assert R.legal_ranks(g.hand[0], g.pile, g.rules) == [N7]
    g = game(["2 3 10 8", "4", "4"], pile="7")           # specials go on anything
    assert R.legal_ranks(g.hand[0], g.pile, g.rules) == [N2, N3, N10]


def test_two_reset_vs_transparent():
    """§2: on a 2, anything (reset) or the card beneath the 2s decides (transparent)."""
    reset = game(["5", "4", "4"], pile="9 2")
    assert play(reset)[0].rank == N5
    clear = game(["5", "4", "4"], pile="9 2 2", two="transparent")
    assert play(clear)[0] == R.Move(0, PICKUP, 15, 3)
    clear = game(["8 4", "4", "4"], pile="7 2", two="transparent")
    assert R.legal_ranks(clear.hand[0], clear.pile, clear.rules) == [N4]
    clear = game(["8 4 7", "4", "4"], pile="2 2", two="transparent")   # nothing beneath
    assert R.legal_ranks(clear.hand[0], clear.pile, clear.rules) == [N4, N7, N8]
    # a 2 may go on anything, and is wild only for what follows
    g = game(["2 4", "4", "4"], pile="A")
    assert play(g)[0].rank == N2
    assert g.pile == [NA, N2]


def test_three_forces_a_pickup_and_leaves_the_game():
    """§3: the 3s leave the game; the next player's whole turn is picking up."""
    g = game(["3 3 4", "5 9 K", "6"], pile="8 K", draw="J", after_pickup="next")
    (m,) = play(g)                       # only the 3s are legal on a K: one 3 (rule 5)
    assert (m.seat, m.rank, m.count, m.drawn) == (0, N3, 1, 1)
    assert g.out[N3] == 1
    assert g.pile == [N8, NK]
    assert g.must_pick_up
    (m,) = play(g)                       # seat 1 holds a 9 that would go on an 8: irrelevant
    assert m == R.Move(1, PICKUP, 15, 2)
    assert g.to_move == 2
    assert g.pile == []
    assert g.pickups == [0, 1, 0]
    assert g.log().played[N3] == 1
    # on an empty pile, and with the picker leading; a seat playing face down still picks up
    g = game(["3 J", "", "6"], down=["", "A", ""], after_pickup="picker")
    play(g)
    (m,) = play(g)
    assert m == R.Move(1, PICKUP, 15, 0)
    assert g.down[1] == [NA]
    assert g.to_move == 1
    # heuristic rule 2: a 3 when the next player holds at most three_at cards
    g = game(["3 4 9", "8 8 8", "6"], pile="5",
             policies=["heuristic:three_at=3", "heuristic", "heuristic"])
    assert play(g)[0].rank == N3
    g = game(["3 4 9", "8 8 8 8", "6"], pile="5",
             policies=["heuristic:three_at=3", "heuristic", "heuristic"])
    assert play(g)[0].rank == N9


def test_ten_burns_and_who_starts():
    """§3: the pile and the 10s leave the game; the next player or the burner starts."""
    for after, mover in (("next", 1), ("again", 0)):
        g = game(["10 4 4", "9", "6"], pile="5 6 Q", after_burn=after)
        (m,) = play(g)                   # nothing regular goes on a Q: one 10 (rule 5)
        assert (m.rank, m.count) == (N10, 1)
        assert g.pile == []
        assert g.out[N10] == 1
        assert sum(g.out) == 4
        assert g.to_move == mover
        (m,) = play(g)
        assert m.seat == mover
        if after == "again":
            assert (m.rank, m.count) == (N4, 2)         # the burner plays again on nothing
    # heuristic rule 3: burn when the pile holds at least burn_at cards
    pols = ["heuristic:burn_at=3", "heuristic", "heuristic"]
    g = game(["10 9", "4", "4"], pile="4 5 6", policies=pols)
    assert play(g)[0].rank == N10
    g = game(["10 9", "4", "4"], pile="5 6", policies=pols)
    assert play(g)[0].rank == N9


def test_heuristic_specials_order_and_save_specials():
    """§6.2 rule 5: a 2, else a 10, else a 3; save_specials = false plays the lowest index."""
    g = game(["2 3 10 4", "5 5 5 5", "5"], pile="A")     # next holds 4 > three_at: no 3
    assert play(g)[0].rank == N2
    g = game(["3 10 4", "5 5 5 5", "5"], pile="A")
    assert play(g)[0].rank == N10
    g = game(["2 2 6 9 9", "5", "5"], pile="5",
             policies=["heuristic:save_specials=false", "heuristic", "heuristic"])
    assert (play(g)[0].rank, g.moves[0].count) == (N2, 2)
    g = game(["3 3 6", "5 5 5 5", "5"], pile="5",
             policies=["heuristic:save_specials=false", "heuristic", "heuristic"])
    assert play(g)[0] == R.Move(0, HAND, N3, 2)        # lowest rank index, all its cards


def test_after_pickup_next_vs_picker():
    """§4.4: after a pickup the next player, or the picker, starts a new pile."""
    for after, mover in (("next", 1), ("picker", 0)):
        g = game(["4", "5", "6"], pile="A", after_pickup=after)
        assert play(g)[0] == R.Move(0, PICKUP, 15, 1)
        assert g.to_move == mover
        assert g.pile == []


def test_opening_first_vs_every():
    """§4.3: the lowest regular card other than 7; skipped starters make no move;
    ``every`` restricts every empty pile, ``first`` only the first card."""
    g = game(["2 7 10 3", "9 5 5 K 7", "4 8"], opened=False, starter=0)
    (m,) = play(g)
    assert m == R.Move(1, HAND, N5, 2)
    assert g.opener == 1
    assert g.to_move == 2
    assert [x for x in body(g.log()) if x.startswith(("starter", "turn 1:"))] == \
        ["starter: 0", "turn 1: seat 1 plays 5 5 from hand"]            # seat 0 skipped
    # random count: below(held) + 1
    s = Scripted([0])
    g = game(["6 6 6 4 4", "9", "8"], opened=False, policies="random", stream=s)
    assert play(g)[0] == R.Move(0, HAND, N4, 1)
    assert s.asked == [2]
    # nobody holds an opener: the starter opens with any legal play (heuristic: 7s first)
    g = game(["2 7 7", "3 10", "2"], opened=False, starter=0)
    assert play(g)[0] == R.Move(0, HAND, N7, 2)
    # later empty piles: free under first, restricted under every
    pols = ["heuristic:save_specials=false", "heuristic", "heuristic"]
    first = game(["2 5 7", "4", "4"], policies=pols)
    assert R.legal_ranks(first.hand[0], [], first.rules) == [N2, N5, N7]
    assert play(first)[0].rank == N2
    every = game(["2 5 7", "4", "4"], policies=pols, opening="every")
    assert R.legal_ranks(every.hand[0], [], every.rules) == [N5]
    assert play(every)[0].rank == N5
    every = game(["2 7 10", "4", "4"], opening="every")        # no opener held: anything
    assert R.legal_ranks(every.hand[0], [], every.rules) == [N2, N7, N10]
    # a pile of a 2 is not empty: no restriction on it
    every = game(["7 5", "4", "4"], pile="2", opening="every")
    assert R.legal_ranks(every.hand[0], every.pile, every.rules) == [N5, N7]
    # a face-down card may start any pile
    every = game(["", "4", "4"], down=["10 K", "", ""], opening="every")
    assert play(every)[0] == R.Move(0, DOWN, N10, 1)


def test_seven_reverses():
    """§3: a 7 reverses the direction (per 7 played: two 7s cancel out)."""
    for rev, count, mover in ((False, 1, 2), (True, 1, 0), (True, 2, 2)):
        g = game(["4", " ".join(["7"] * count) + " A", "9", "9"], pile="4",
                 to_move=1, seven_reverses=rev)
        (m,) = play(g)
        assert (m.seat, m.rank, m.count) == (1, N7, count)
        assert g.to_move == mover
        assert g.direction == (-1 if rev and count % 2 else 1)


def test_drawing_back_to_hand_size():
    """§4.4: after playing from the hand, draw up to hand_size (or what is left)."""
    g = game(["4 9 9", "5", "5"], draw="5 6 8 J")
    (m,) = play(g)
    assert (m.rank, m.drawn) == (N4, 3)
    assert R.ranks_in(g.hand[0]) == [N5, N6, N8, N9, N9]
    assert g.draw == [NJ]
    g = game(["4 5 6 8 9 J Q", "5", "5"], draw="K")           # above hand_size: no draw
    assert play(g)[0].drawn == 0
    assert g.draw == [NK]
    g = game(["4 9", "5", "5"], draw="K", hand_size=3)
    assert play(g)[0].drawn == 1
    assert g.draw == []


def test_face_up_only_after_the_hand_is_empty():
    """§4.4: the face-up row is the source only when the hand is empty."""
    g = game(["4", "5", "5"], up=["A A", "", ""], pile="K")
    assert play(g)[0] == R.Move(0, PICKUP, 15, 1)
    assert g.up[0][NA] == 2
    assert g.hand[0][NK] == 1
    g = game(["", "5", "5"], up=["A A 4", "", ""], down=["9", "", ""], pile="K")
    assert play(g)[0] == R.Move(0, UP, NA, 2)
    assert g.down[0] == [N9]


def test_blind_face_down_card():
    """§4.4: the first face-down card is turned; legal: played; else picked up with the pile."""
    g = game(["", "4", "5", "6"], down=["9 4 K", "", "", ""], pile="8")
    assert play(g)[0] == R.Move(0, DOWN, N9, 1)
    assert g.down[0] == [N4, NK]
    assert g.pile == [N8, N9]
    g.to_move = 0
    assert play(g)[0] == R.Move(0, PICKUP, N4, 3)            # the 4 with the 8 and the 9
    assert R.ranks_in(g.hand[0]) == [N4, N8, N9]
    assert g.down[0] == [NK]
    assert g.pickups[0] == 1
    assert g.log().played[N4] == 0
    assert g.log().move_codes()[-1] == ((0 * 4 + 3) * 16 + N4) * 128 + 3


def test_the_win():
    """§4.5: the first player with no card wins at once; records follow."""
    g = game(["", "4 4", "5"], down=["A", "", ""], pile="5", starter=2)
    log = g.run()
    assert log.winner == 0
    assert log.turns == 1
    assert not log.unfinished
    rec = log.record()
    assert rec["winner_seat"] == 1
    assert rec["cards_left_0"] == 0
    assert rec["cards_left_1"] == 2
    assert rec["turns"] == 1
    # a last card that burns still wins
    g = game(["", "4 4", "5"], up=["10", "", ""], pile="5")
    log = g.run()
    assert log.winner == 0
    assert log.played[N10] == 1


def test_who_led():
    """§5: after each turn the seats holding the fewest cards lead (simkit/base/drama.py)."""
    g = game(["4 A", "5 Q", "J J J"], pile="K")
    log = g.run()
    # seat 0 plays its A on the K (1, 2, 3 cards: seat 0 leads); seat 1 holds nothing
    # higher and picks up the K and the A (1, 4, 3); seat 2 starts a new pile with its
    # three Js and wins (1, 4, 0): one lead change, seat 2 behind at the halfway point
    # (after turn 1 of 3) and leading only after the last turn
    assert [m.seat for m in log.moves] == [0, 1, 2]
    assert log.winner == 2
    assert log.tops == [0b001, 0b001, 0b100]
    rec = log.record()
    assert (rec["lead_changes"], rec["comeback"], rec["settled"]) == (1, True, 2)
    # a tie for the fewest cards is no leader: 1, 1, 3 cards after the first turn
    g = game(["4 A", "5", "J J J"], pile="K")
    assert g.play_turn() == R.Move(0, HAND, NA, 1)
    assert g.log().tops == [0b011]


def test_turn_cap_tiny():
    """§4.6: with max_turns = 10 a long game stops unfinished after 10 turns."""
    rules = make_rules(players=4, overrides={"max_turns": 10})
    pols = make_policies("heuristic", 4)
    log = R.play_game(rules, pols, 3, 0, check=True)
    assert log.unfinished
    assert log.turns == 10
    assert log.winner == -1
    rec = log.record()
    assert (rec["winner"], rec["winner_seat"], rec["unfinished"]) == (-1, -1, True)
    assert {"unfinished: yes", "turns: 10", "winner: none"} <= set(body(log))


def test_exchange_up_keep_and_random_subsets():
    """§6: up puts the 3 strongest face up, keep the 3 weakest; random picks the k-th
    3-subset of the sorted positions, lexicographically."""
    cards = ranks("4 K 2 9 10 3 A 5")
    assert R.heuristic_exchange(cards, "up") == (sorted([N3, N2, N10]),
                                                   sorted(ranks("4 5 9 K A")))
    assert R.heuristic_exchange(cards, "keep") == (sorted([N4, N5, N9]),
                                                     sorted(ranks("K A 3 2 10")))
    for m in (6, 7, 8):
        assert list(R.subsets(m)) == list(combinations(range(m), 3))
    assert R.subsets(8)[0] == (0, 1, 2)
    assert R.subsets(8)[1] == (0, 1, 3)
    assert R.subsets(8)[55] == (5, 6, 7)
    assert len(R.subsets(8)) == 56
    ordered = sorted(cards)                      # 2 3 4 5 9 10 K A
    assert R.random_exchange(cards, 0)[0] == ordered[:3]
    assert R.random_exchange(cards, 6)[0] == [ordered[0], ordered[2], ordered[3]]
    # in a game: from the starter clockwise, one draw per random seat
    s = Scripted([55, 7])
    rules = make_rules(players=3)
    g = R.Game(rules, make_policies(["random", "heuristic:exchange=keep", "random"], 3), s,
               R.Position([[], [], []], [ranks("4 9 A"), ranks("2 3 10"), ranks("K K K")],
                          [ranks("5 6 7 8 J"), ranks("4 5 6 Q A"), ranks("4 4 4 5 5")],
                          starter=2))
    g.exchange()
    assert s.asked == [56, 56]
    assert R.ranks_in(g.up[2]) == ranks("K K K")   # starter first, draw 55: positions 5 6 7
    assert R.ranks_in(g.up[0]) == ranks("4 6 8")   # draw 7: positions 0 2 4 of 4 5 6 7 8 9 J A
    assert R.ranks_in(g.up[1]) == ranks("4 5 6")   # keep: the three weakest
    assert g.log().up_after == [R.ranks_in(g.up[s]) for s in range(3)]


def test_five_players_two_decks_vs_five_one_deck():
    """§1: 5 players take two decks by default; five-one-deck: one deck, 4 in hand."""
    two = make_rules(players=5)
    log = R.play_game(two, make_policies("heuristic", 5), 11, 4, check=True)
    assert two.n_decks == 2
    assert len(log.draw_pile) == 104 - 55
    assert sorted(log.draw_pile + [c for s in range(5) for c in log.dealt_down[s]
                                   + log.dealt_up[s] + log.dealt_hand[s]]) == list(range(104))
    one = make_rules("five-one-deck", players=5)
    log = R.play_game(one, make_policies("random", 5), 11, 4, check=True)
    assert one.n_decks == 1
    assert one.hand_size == 4
    assert len(log.draw_pile) == 2
    assert all(len(log.hand_after[s]) == 4 for s in range(5))
    # the random exchange of 7 cards draws below(35)
    s = Scripted([34] * 5)
    d = R.deal(Stream(1, 1), one)
    g = R.Game(one, make_policies("random", 5), s, R.Position(d.down, d.up, d.hands, d.draw))
    g.exchange()
    assert s.asked == [35] * 5
    with pytest.raises(InputError):
        make_rules(players=5, overrides={"decks": "1"})
    with pytest.raises(InputError):
        make_rules(players=2)


def test_deal_positions():
    """§1: down, up, hand in turn, position p to seat p mod N; the starter draw follows."""
    rules = make_rules(players=3, overrides={"hand_size": 3})
    stream = Stream(5, 9)
    d = R.deal(stream, rules)
    deck = list(range(52))
    Stream(5, 9).shuffle(deck)
    assert d.down == [deck[0:9:3], deck[1:9:3], deck[2:9:3]]
    assert d.up == [deck[9:18:3], deck[10:18:3], deck[11:18:3]]
    assert d.hands == [deck[18:27:3], deck[19:27:3], deck[20:27:3]]
    assert d.draw == deck[27:]
    pols = make_policies("random", 3)
    assert R.play_game(rules, pols, 5, 9).starter == stream.below(3)     # right after the shuffle
    assert R.play_game(rules.replace(starter="fixed"), pols, 5, 9).starter == 0


def test_move_codes_and_format():
    assert R.Move(2, PICKUP, 15, 200).code() == ((2 * 4 + 3) * 16 + 15) * 128 + 127
    assert R.Move(1, UP, NA, 2).code() == ((1 * 4 + 1) * 16 + 12) * 128 + 2
    assert R.parse_ranks("10 j a") == [N10, NJ, NA]
    with pytest.raises(InputError):
        R.parse_ranks("1")
