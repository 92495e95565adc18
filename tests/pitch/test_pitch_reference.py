"""Tests of the Pitch reference engine (simkit/pitch/reference.py) against seeds/pitch.md.

The checks below recompute what they check independently (legal cards,
trick winners, the four points, the §5 scores, the §7 money) rather than
calling the engine's own helpers, so that a slip in the engine is not
repeated in its test.  Scenario hands are written out by hand and their
expected outcome is worked out from the rule book in the comments.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pitch import reference as R
from simkit.pitch import reference_players as H
from simkit.pitch.policies import NAMED, make_policies
from simkit.pitch.record import body
from simkit.pitch.rules import (
    DECK,
    PRESETS,
    AllPass,
    Auction,
    GameTie,
    JoinScore,
    Low,
    MoonNeeds,
    Steal,
    StuckBid,
    make_rules,
)

FAST = settings(max_examples=300, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=100, deadline=None, database=None,
               suppress_health_check=[HealthCheck.too_slow])

POLICY_SPECS = ["random", "heuristic", "heuristic:aggression=1.5",
                "heuristic:aggression=-0.75,moon_run=2,moon_trumps=4",
                "heuristic:moon_run=7,aggression=3"]
UNITS_PER_DOLLAR = 84000            # 100 cents x 840 units

seeds = st.integers(0, 2**64 - 1)
indices = st.integers(0, 2**30)
player_counts = st.integers(2, 8)
presets = st.sampled_from(sorted(PRESETS))


@st.composite
def tables(draw, players=player_counts):
    """(rules, policies) for a random player count, preset and seat policies."""
    n = draw(players)
    rules = make_rules(draw(presets), players=n)
    specs = [draw(st.sampled_from(POLICY_SPECS)) for _ in range(n)]
    return rules, make_policies(specs, n)


def cards(text):
    return DECK.parse_hand(text)


# --- independent re-statements of the rules -------------------------------

def suit(card):
    return card // 13


def pos(card):
    return card % 13


def gp(card):
    """§4: A 4, K 3, Q 2, J 1, 10 10."""
    return {8: 10, 9: 1, 10: 2, 11: 3, 12: 4}.get(card % 13, 0)


def may_play(holding, card, led, trump):
    """§3: holding the led suit: that suit or a trump; otherwise anything."""
    if card not in holding:
        return False
    if led is None or not any(suit(c) == led for c in holding):
        return True
    return suit(card) in (led, trump)


def winner_of(trick, trump):
    """§3: the highest trump, else the highest card of the led suit."""
    led = suit(trick[0].card)

    def strength(card):
        if suit(card) == trump:
            return 200 + pos(card)
        if suit(card) == led:
            return 100 + pos(card)
        return 0
    return max(trick, key=lambda p: strength(p.card)).seat


def expected_points(rules, hands, trump, tricks):
    """§4 written out again: (high, low, jack, game points, game winners, points)."""
    n = rules.players
    holder = {c: s for s, h in enumerate(hands) for c in h}
    taken_by = {}
    captured = [0] * n
    for trick in tricks:
        w = winner_of(trick, trump)
        for p in trick:
            taken_by[p.card] = w
            captured[w] += gp(p.card)
    trumps = sorted(c for c in holder if suit(c) == trump)
    high = holder[trumps[-1]]
    low = taken_by[trumps[0]] if rules.low == Low.CAPTURED else holder[trumps[0]]
    jack = taken_by.get(trump * 13 + 9, -1)
    best = max(captured)
    tied = [s for s in range(n) if captured[s] == best]
    if sum(captured) == 0 or (len(tied) > 1 and rules.game_tie == GameTie.NONE):
        game = 0
    else:
        game = sum(1 << s for s in tied)
    points = [(high == s) + (low == s) + (jack == s) + (game >> s & 1) for s in range(n)]
    return high, low, jack, captured, game, points


def expected_score(rules, contract, pitcher, tricks, points, awarded):
    """§5 written out again: (scores, made)."""
    score = list(points)
    if contract == 5:
        need = 4 if rules.moon_needs == MoonNeeds.FOUR else awarded
        made = tricks[pitcher] == 6 and points[pitcher] == need
        score[pitcher] = rules.moon_made if made else -rules.moon_failed
    else:
        made = points[pitcher] >= contract
        score[pitcher] = points[pitcher] if made else -contract
    return score, made


def expected_money(rules, score, contract, pitcher, made):
    """§7 for one hand, with fractions: cents * (s - S/n), then the moon dollars."""
    n, S = len(score), sum(score)
    money = [Fraction(rules.cents * 840) * (s - Fraction(S, n)) for s in score]
    if contract == 5:
        each = rules.moon_dollars * UNITS_PER_DOLLAR * (1 if made else -1)
        for s in range(n):
            if s != pitcher:
                money[s] -= each
                money[pitcher] += each
    assert all(m.denominator == 1 for m in money)
    return [int(m) for m in money]


def q_table(n):
    m = 6 * (n - 1)
    return [100 * comb(46 - k, m) // comb(46, m) for k in range(13)]


def est(hand, s, n):
    """§8.2 "Hand estimate", written out again."""
    q = q_table(n)
    mine = sorted(pos(c) for c in hand if suit(c) == s)
    value = q[12 - mine[-1]] + 3 * q[mine[0]] // 4
    if 9 in mine:
        value += 85 if {10, 11, 12} & set(mine) else 55
    elif 12 in mine:
        value += (100 - q[1]) * 40 // 100
    g = sum(gp(c) for c in hand)
    return value + min(90, 100 * g // (8 * n) + 5 * len(mine))


RECORD_KEYS_FIXED = ["dealer", "pitcher", "contract", "stuck", "trump", "high", "low", "jack",
                     "game_winners", "made", "moon", "pitcher_trumps", "pitcher_ace",
                     "pitcher_king", "pitcher_jack", "pitcher_two", "pitcher_game_points"]
PER_SEAT = ["bid", "tricks", "points", "score", "game_points", "money"]


def auction_ended(rules, calls):
    """§2, restated: a moon ends either auction; one lap ends after n calls; the
    open auction when all have passed, or a bid stands and one has not passed."""
    n = rules.players
    if any(b.level == 5 for b in calls):
        return True
    if rules.auction == Auction.ONE_LAP:
        return len(calls) == n
    passed = {b.seat for b in calls if b.level == 0}
    return len(passed) == n or (len(passed) == n - 1 and any(b.level for b in calls))


def check_auction(rules, log, fixed_seat=-1):
    """§2: the order of speakers (one lap, or open with passed players skipped),
    legal calls, the end of the auction, the contract and the stuck flag;
    ``fixed_seat`` is held to the plan pass (§8.4)."""
    n = rules.players
    calls = log.auction
    high, pitcher, stuck = 0, -1, False
    passed = set()
    speaker = log.dealer
    for i, b in enumerate(calls):
        assert not auction_ended(rules, calls[:i]), "a call after the auction ended"
        speaker = (speaker + 1) % n
        while rules.auction == Auction.OPEN and speaker in passed:
            speaker = (speaker + 1) % n
        assert b.seat == speaker
        assert b.seat != pitcher
        is_dealer = b.seat == log.dealer
        forced = is_dealer and high == 0 and rules.all_pass == AllPass.FORCED
        stuck = stuck or forced
        if b.level == 0:
            assert not forced, "a forced dealer must bid"
            passed.add(b.seat)
        else:
            assert b.level in (2, 3, 4, 5)
            if forced and rules.stuck_bid == StuckBid.TWO:
                assert b.level == 2, "a stuck dealer bids exactly 2"
            steal = (is_dealer and rules.steal == Steal.MATCH and high > 0 and b.level == high)
            assert b.level > high or steal
            high, pitcher = b.level, b.seat
        if b.seat == fixed_seat:
            assert b.level == (2 if forced else 0)
    assert auction_ended(rules, calls)
    assert len(calls) <= 16
    if rules.auction == Auction.ONE_LAP and high < 5:
        assert len(calls) == n
    assert (log.contract, log.pitcher, log.stuck) == (high, pitcher, stuck)
    # each seat's recorded bid is the highest level it bid
    rec = log.record()
    for s in range(n):
        assert rec[f"bid_{s}"] == max([b.level for b in calls if b.seat == s], default=0)


def check_record(rules, log):
    rec = log.record()
    n = rules.players
    keys = set(RECORD_KEYS_FIXED) | {f"{k}_{s}" for k in PER_SEAT for s in range(n)}
    assert set(rec) == keys
    for k, v in rec.items():
        if k.startswith("money_"):
            assert type(v) is float
        elif k == "trump":
            assert v in ("C", "D", "H", "S", "-")
        elif k in ("stuck", "made", "moon", "pitcher_ace", "pitcher_king", "pitcher_jack",
                   "pitcher_two"):
            assert type(v) is bool
        else:
            assert type(v) is int, k
    return rec


def check_hand(rules, log, fixed_seat=-1, fixed_contract=0):
    """Every invariant of one hand's record (§1-§7)."""
    dealt = check_deal(rules, log)
    if fixed_seat >= 0 and fixed_contract >= 2:
        assert log.auction == [R.Bid(fixed_seat, fixed_contract)]
        assert (log.contract, log.pitcher, log.stuck) == (fixed_contract, fixed_seat, False)
    else:
        check_auction(rules, log, fixed_seat)
    rec = check_record(rules, log)
    assert rec[f"bid_{max(log.pitcher, 0)}"] == (log.contract if log.pitcher >= 0 else 0)
    if log.pitcher < 0:         # thrown in: only possible under redeal
        check_thrown_in(rules, log, rec)
        return
    trump, tricks, trick_list = check_tricks(rules, log, rec, dealt)
    points, awarded = check_points(rules, log, dealt, trump, trick_list)
    check_score_and_money(rules, log, rec, tricks, points, awarded)
    check_pitcher_hand(log, rec, trump)


def check_deal(rules, log):
    """§1: 6 distinct cards per seat, 52 - 6N undealt; returns the dealt cards."""
    n = rules.players
    assert all(len(h) == 6 for h in log.hands)
    dealt = [c for h in log.hands for c in h]
    assert len(set(dealt)) == 6 * n
    assert all(0 <= c < 52 for c in dealt)
    assert 52 - len(set(dealt)) == 52 - 6 * n
    return dealt


def check_thrown_in(rules, log, rec):
    """§2 redeal: a hand everybody passed is not played and scores nothing."""
    assert rules.all_pass == AllPass.REDEAL
    assert all(b.level == 0 for b in log.auction)
    assert log.plays == []
    assert log.contract == 0
    assert not log.made
    assert not log.stuck
    assert rec["trump"] == "-"
    assert (rec["high"], rec["low"], rec["jack"]) == (-1, -1, -1)
    for k, v in rec.items():
        if k not in ("dealer", "pitcher", "trump", "high", "low", "jack"):
            assert v == 0, k
            assert not v, k


def check_tricks(rules, log, rec, dealt):
    """§3: each dealt card played once by its seat, the pitch setting trump, every
    play legal, turn order, the winner leading next; returns the trump suit,
    the tricks per seat and the tricks as played."""
    n = rules.players
    assert len(log.plays) == 6 * n
    assert sorted(p.card for p in log.plays) == sorted(dealt)
    for s in range(n):
        assert sorted(p.card for p in log.plays if p.seat == s) == sorted(log.hands[s])
    assert log.plays[0].seat == log.pitcher
    trump = suit(log.plays[0].card)
    assert log.trump == trump
    assert rec["trump"] == "CDHS"[trump]

    holding = [set(h) for h in log.hands]
    leader = log.pitcher
    tricks = [0] * n
    trick_list = []
    for k in range(6):
        trick = log.plays[k * n:(k + 1) * n]
        assert [p.seat for p in trick] == [(leader + i) % n for i in range(n)]
        led = None
        for p in trick:
            assert may_play(holding[p.seat], p.card, led, trump), (k, p)
            holding[p.seat].remove(p.card)
            led = suit(trick[0].card)
        leader = winner_of(trick, trump)
        assert log.winners[k] == leader
        tricks[leader] += 1
        trick_list.append(trick)
    assert tricks == log.tricks
    assert sum(tricks) == 6
    return trump, tricks, trick_list


def check_points(rules, log, dealt, trump, trick_list):
    """§4: the four points, only from dealt cards; returns the points per seat
    and how many of the four were awarded."""
    high, low, jack, captured, game, points = expected_points(rules, log.hands, trump, trick_list)
    assert (log.high, log.low, log.jack, log.game_points, log.game_winners, log.points) == \
        (high, low, jack, captured, game, points)
    assert all(0 <= p <= 4 for p in points)
    awarded = (high >= 0) + (low >= 0) + (jack >= 0) + (game != 0)
    assert sum(points) == awarded + max(0, bin(game).count("1") - 1)
    if rules.game_tie == GameTie.NONE:
        assert sum(points) <= 4
    if trump * 13 + 9 not in dealt:
        assert jack == -1
        assert awarded <= 3
    if not any(gp(c) for c in dealt):
        assert game == 0
        assert sum(captured) == 0
    return points, awarded


def check_score_and_money(rules, log, rec, tricks, points, awarded):
    """§5 the scores and §7 the one-hand money."""
    n = rules.players
    score, made = expected_score(rules, log.contract, log.pitcher, tricks, points, awarded)
    assert (log.score, log.made) == (score, made)
    assert rec["moon"] == (log.contract == 5)
    money = expected_money(rules, score, log.contract, log.pitcher, made)
    assert log.money_units == money
    assert sum(money) == 0
    assert [rec[f"money_{s}"] for s in range(n)] == [m / UNITS_PER_DOLLAR for m in money]


def check_pitcher_hand(log, rec, trump):
    """§6: the pitcher's dealt hand as the record gives it (trumps, A K J 2, game points)."""
    hand = log.hands[log.pitcher]
    assert rec["pitcher_trumps"] == sum(1 for c in hand if suit(c) == trump) >= 1
    assert rec["pitcher_ace"] == (trump * 13 + 12 in hand)
    assert rec["pitcher_king"] == (trump * 13 + 11 in hand)
    assert rec["pitcher_jack"] == (trump * 13 + 9 in hand)
    assert rec["pitcher_two"] == (trump * 13 in hand)
    assert rec["pitcher_game_points"] == sum(gp(c) for c in hand)


# --- hypothesis properties: hands -----------------------------------------

@FAST
@given(tables(), seeds, indices, st.integers(0, 7))
def test_hand_invariants(table, seed, index, dealer):
    rules, policies = table
    dealer %= rules.players
    log = R.play_hand(rules, policies, seed, index, dealer)
    assert log.dealer == dealer
    check_hand(rules, log)
    assert R.play_hand(rules, policies, seed, index, dealer) == log       # deterministic
    text = "\n".join(body(log))
    assert f"dealer: {dealer}" in text
    assert sum(line.startswith("trick ") for line in text.splitlines()) == len(log.winners)
    for s in range(rules.players):
        assert f"seat {s}: {DECK.format_hand(log.hands[s])}" in text


@FAST
@given(seeds, indices, player_counts, st.integers(0, 7))
def test_deal_follows_section_1(seed, index, players, dealer):
    dealer %= players
    hands = R.deal(Stream(seed, index), players, dealer)
    # the forward Fisher-Yates of §1, written out with the stream's below()
    stream = Stream(seed, index)
    deck = list(range(52))
    for p in range(6 * players):
        q = p + stream.below(52 - p)
        deck[p], deck[q] = deck[q], deck[p]
    want = [[] for _ in range(players)]
    for p in range(6 * players):
        want[(dealer + 1 + p % players) % players].append(deck[p])
    assert hands == want


@pytest.mark.slow
@FAST
@given(tables(), seeds, indices, st.integers(0, 7), st.integers(0, 7),
       st.sampled_from([0, 0, 2, 3, 4, 5]), st.randoms(use_true_random=False))
def test_fixed_hand_deals(table, seed, index, dealer, seat, contract, rnd):
    """§8.3: the fixed hand stays; the rest is dealt around it; contract or a forced pass."""
    rules, policies = table
    n = rules.players
    dealer, seat = dealer % n, seat % n
    fixed = rnd.sample(range(52), 6)
    log = R.play_hand(rules, policies, seed, index, dealer, fixed=(seat, fixed), contract=contract)
    assert log.hands[seat] == fixed
    if contract == 0:
        assert log == R.plan_hand(rules, policies, seed, index, dealer, fixed, seat, 0)
    stream = Stream(seed, index)
    rest = [c for c in range(52) if c not in fixed]
    stream.sample(rest, 6 * (n - 1))
    others = [(dealer + 1 + i) % n for i in range(n) if (dealer + 1 + i) % n != seat]
    for p in range(6 * (n - 1)):
        assert log.hands[others[p % (n - 1)]][p // (n - 1)] == rest[p]
    check_hand(rules, log, fixed_seat=seat, fixed_contract=contract)


class Counting(Stream):
    draws = 0

    def below(self, n):
        self.draws += 1
        return super().below(n)


@FAST
@given(tables(), seeds, indices)
def test_random_draws_once_per_decision_heuristic_never(table, seed, index):
    """§8.1: one below(n) per random decision (even with one option); the heuristic never draws."""
    rules, policies = table
    stream = Counting(seed, index)
    dealer = index % rules.players
    hands = R.deal(stream, rules.players, dealer)
    assert stream.draws == 6 * rules.players
    stream.draws = 0
    log = R.play_from(hands, dealer, rules, policies, stream)
    rnd = [p.name == "random" for p in policies]
    assert stream.draws == sum(rnd[b.seat] for b in log.auction) + sum(rnd[p.seat]
                                                                         for p in log.plays)


@FEW
@given(seeds, indices, player_counts, st.integers(0, 7))
def test_random_options_in_rule_book_order(seed, index, players, dealer):
    """§8.1: an all-random table replays from the stream, options in the documented order."""
    dealer %= players
    rules = make_rules(players=players)
    stream = Stream(seed, index)
    hands = R.deal(stream, players, dealer)
    log = R.play_from(hands, dealer, rules, make_policies("random", players), stream)
    replay = Stream(seed, index)
    R.deal(replay, players, dealer)
    high = 0
    for b in log.auction:
        is_dealer = b.seat == dealer
        if is_dealer and high == 0:
            options = [2]                                    # stuck: exactly 2 (the seed)
        else:
            options = [0] + ([high] if is_dealer and high else []) + \
                [lv for lv in (2, 3, 4, 5) if lv > high]
        assert b.level == options[replay.below(len(options))]
        high = max(high, b.level)
    holding = [set(h) for h in hands]
    for k in range(0, len(log.plays), players):
        trick = log.plays[k:k + players]
        led = suit(trick[0].card)
        trump = suit(log.plays[0].card)
        for i, p in enumerate(trick):
            legal = sorted(c for c in holding[p.seat]
                           if may_play(holding[p.seat], c, None if i == 0 else led, trump))
            assert p.card == legal[replay.below(len(legal))]
            holding[p.seat].remove(p.card)


# --- the heuristic ---------------------------------------------------------

def test_unseen_table_and_estimate_worked_example():
    """§8.2 by hand, 2 players (m = 6): Q = 100 C(46-k, 6) // C(46, 6)."""
    assert H.unseen_chance(2) == (100, 86, 75, 65, 56, 48, 40, 34, 29, 24, 20, 17, 14)
    for n in range(2, 9):
        assert list(H.unseen_chance(n)) == q_table(n)
    hand = cards("AS 5H 9D 9C 8C 7C")            # game points g = 4
    # S: High Q[0] 100, Low 3*Q[12]//4 = 10, Jack (ace) (100-86)*40//100 = 5, Game 25+5 = 30
    assert H.estimate(hand, 3, 2) == 145
    # C: High Q[12-7] = 48, Low 3*Q[5]//4 = 36, Game 25+15 = 40
    assert H.estimate(hand, 0, 2) == 124
    assert H.estimate(hand, 2, 2) == 24 + 48 + 30       # 5H
    assert H.estimate(hand, 1, 2) == 48 + 25 + 30       # 9D
    assert H.hand_suit(hand, 2) == (3, 145)
    p = make_policies(NAMED["classic"], 1)[0].params      # the old estimate and moon rule
    assert H.desired_bid(hand, 2, p) == 0                 # (145 + 50) // 100 = 1: pass
    assert H.desired_bid(hand, 2, p.replace(aggression=0.05)) == 2     # 200 // 100: halves up
    assert H.desired_bid(hand, 2, p.replace(aggression=0.04)) == 0     # 199 // 100 = 1
    assert H.desired_bid(hand, 2, p.replace(aggression=1.04)) == 2     # 299 // 100 = 2
    assert H.desired_bid(hand, 2, p.replace(aggression=1.05)) == 3
    assert H.desired_bid(hand, 2, p.replace(aggression=2.6)) == 4      # v = 4
    assert H.desired_bid(hand, 2, p.replace(aggression=-1.96)) == 0    # v = -1
    # six trumps from the ace down: the moon at moon_run 4, not at 7
    six = cards("AS KS QS JS 5S 2S")
    assert H.desired_bid(six, 4, p) == 5
    # ace run 4 < 5: N = 4, Q[0] 100 + Low 75 + Jack 85 + Game min(90, 1000 // 32 + 30) = 321
    assert H.estimate(six, 3, 4) == 321
    assert H.desired_bid(six, 4, p.replace(moon_run=5)) == 3
    assert H.desired_bid(six, 4, p.replace(moon_run=7)) == 3
    assert H.desired_bid(cards("AS KS QS 10S 5S 2S"), 4, p.replace(moon_run=3)) == 5
    five = cards("AS KS QS JS 5S 2H")                      # five spades: no moon at moon_trumps 6
    assert H.desired_bid(five, 4, p.replace(moon_run=1)) != 5
    assert H.desired_bid(five, 4, p.replace(moon_trumps=5)) == 5
    assert H.desired_bid(five, 4, p.replace(moon_trumps=5, moon_run=5)) != 5


@FAST
@given(player_counts, st.randoms(use_true_random=False))
def test_estimate_matches_restatement(n, rnd):
    hand = rnd.sample(range(52), 6)
    for s in range(4):
        if any(suit(c) == s for c in hand):
            assert H.estimate(hand, s, n) == est(hand, s, n)
    best = max(est(hand, s, n) for s in range(4) if any(suit(c) == s for c in hand))
    first = min(s for s in range(4) if any(suit(c) == s for c in hand)
                and est(hand, s, n) == best)
    assert H.hand_suit(hand, n) == (first, best)


def test_heuristic_play_rules():
    """§8.2 leading and following, one rule at a time (spades trump), classic parameters."""
    S = 3
    P = R.Play
    old = make_policies(NAMED["classic"], 1)[0].params

    def lead(hand, played, params):
        return H.lead_card(H.PlayView(seat=0, hand=hand, pitcher=0, played=played), S, params)

    def follow(seat, legal, trick, params):
        return H.follow_card(H.PlayView(seat=seat, hand=(), pitcher=0), legal, trick, S, params)

    # leading 2: boss trump held while a trump is out -> the highest trump
    assert lead(cards("KS 3S 4H"), cards("AS 2S"), old) == DECK.parse("KS")
    # leading 3: no trump outstanding (all played or held) -> a boss side card, lowest suit
    played = [c for c in range(39, 52) if c not in cards("3S")] + cards("AH")
    assert lead(cards("3S KH AD 4C"), played, old) == DECK.parse("AD")
    # leading 4: the lowest card; a 10 costs 168, a 9 costs 7, a trump 1000+
    assert lead(cards("10C 9D 2S"), [], old) == DECK.parse("9D")
    # following 1: partner (1) winning, pitcher (0) has played -> feed the most game points
    trick = [P(0, DECK.parse("5H")), P(1, DECK.parse("AH"))]
    assert follow(2, cards("10H 2H JS"), trick, old) == DECK.parse("JS")   # JS 1 + 20
    assert follow(2, cards("10H 2H"), trick, old) == DECK.parse("10H")
    # following 2: partner winning, pitcher still to play -> the lowest
    trick = [P(1, DECK.parse("AH"))]
    assert follow(2, cards("10H 2H 5S"), trick, old) == DECK.parse("2H")
    # following 3: the cheapest winner, a non-trump before any trump
    trick = [P(0, DECK.parse("5H"))]
    assert follow(1, cards("KH 7H 2S"), trick, old) == DECK.parse("7H")
    assert follow(1, cards("3H 4S 2S"), trick, old) == DECK.parse("2S")
    # following 4: nothing wins -> the lowest (the 2H, not the 10H)
    assert (follow(1, cards("10H 2H"), [P(0, DECK.parse("AH"))], old)
            == DECK.parse("2H"))


# --- forced outcomes --------------------------------------------------------

ACE_TO_NINE = cards("AS KS QS JS 10S 9S")


@pytest.mark.parametrize("players", range(2, 9))
def test_ace_to_nine_moon_always_made(players):
    """A K Q J 10 9 of spades as pitcher with the moon: made in every deal (default rules)."""
    rules = make_rules(players=players)
    specs = ["heuristic", "heuristic", "heuristic:aggression=2", "random"] * 2
    policies = make_policies(specs[:players], players)
    for i in range(200):
        seat, dealer = i % players, (i // players) % players
        log = R.play_hand(rules, policies, 99, i, dealer, fixed=(seat, ACE_TO_NINE), contract=5)
        assert log.pitcher == seat
        assert log.contract == 5
        assert log.trump == 3
        assert log.tricks[seat] == 6
        assert log.points[seat] == 4
        assert log.made
        assert log.score[seat] == rules.moon_made
        assert log.money_units[seat] == (players - 1) * (UNITS_PER_DOLLAR + 4 * 840 * 10 // players)


# --- hand-written scenarios, one per rule and variant ----------------------

def two(seat0, seat1, rules, contract=2, dealer=1, policies="heuristic"):
    """A two-player hand from written hands; seat 0 pitches ``contract`` (no auction)."""
    hands = [cards(seat0), cards(seat1)]
    return R.play_from(hands, dealer, rules, make_policies(policies, 2), Stream(1, 1),
                       seat=0, contract=contract)


# Seat 0 leads AS (spades trump) and seat 1 must give up its 2S, the lowest
# trump dealt; seat 0 then draws with KS, QS and wins every trick (3C 4C 5D
# are never beaten: seat 1 holds only hearts).  High and Game (20 points)
# are seat 0's; Jack is not dealt.
LOW_HANDS = ("AS KS QS 3C 4C 5D", "2S 7H 8H 9H 10H JH")


def test_low_captured_vs_dealt():
    rules = make_rules(players=2)
    log = two(*LOW_HANDS, rules)
    assert [p.card for p in log.plays[:2]] == cards("AS 2S")
    assert log.tricks == [6, 0]
    assert (log.high, log.jack) == (0, -1)
    assert log.low == 0
    assert log.points == [3, 0]
    assert log.score == [3, 0]
    assert log.made
    dealt = two(*LOW_HANDS, make_rules("low-dealt", players=2))
    assert dealt.plays == log.plays
    assert dealt.low == 1
    assert dealt.points == [2, 1]
    assert dealt.score == [2, 1]
    assert dealt.made
    # 10 cents a point against the average: 3 - 1.5 -> 15 cents, 2 - 1.5 -> 5 cents
    assert log.money_units == [12600, -12600]
    assert dealt.money_units == [4200, -4200]


def test_moon_needs_four_vs_all():
    """LOW_HANDS as a moon: six tricks and three points, the jack not dealt."""
    four = two(*LOW_HANDS, make_rules(players=2), contract=5)
    assert four.tricks == [6, 0]
    assert four.points == [3, 0]
    assert not four.made
    assert four.score == [-4, 0]
    # -4 against an average of -2: -$0.20; the failed moon pays the other $1
    assert four.record()["money_0"] == -1.2
    assert four.record()["money_1"] == 1.2
    every = two(*LOW_HANDS, make_rules("moon-all-points", players=2), contract=5)
    assert every.made
    assert every.score == [4, 0]
    assert every.record()["money_0"] == 1.2
    # with low = dealt, Low is seat 1's: not every point awarded, so it fails
    lost = two(*LOW_HANDS, make_rules(players=2, overrides={"moon_needs": "all", "low": "dealt"}),
               contract=5)
    assert lost.low == 1
    assert not lost.made
    assert lost.score == [-4, 1]


# The jack dealt too: AS KS QS JS draw trumps, 3C 4C are never beaten.
MOON_HANDS = ("AS KS QS JS 3C 4C", "2S 7H 8H 9H 10H 5D")


def test_moon_made_and_failed_values():
    made = two(*MOON_HANDS, make_rules(players=2), contract=5)
    assert made.tricks == [6, 0]
    assert made.points == [4, 0]
    assert made.made
    assert made.score == [4, 0]
    assert made.record()["moon"]
    assert made.money_units == [16800 + 84000, -16800 - 84000]
    eight = two(*MOON_HANDS, make_rules("moon-eight", players=2), contract=5)
    assert eight.made
    assert eight.score == [8, 0]
    odd = make_rules(players=2, overrides={"moon_made": 7, "moon_failed": 3, "moon_dollars": 2})
    assert two(*MOON_HANDS, odd, contract=5).score == [7, 0]
    failed = two(*LOW_HANDS, odd, contract=5)
    assert not failed.made
    assert failed.score == [-3, 0]
    # -3 against -1.5: -$0.15, and $2 to the other player
    assert failed.money_units == [-12600 - 168000, 12600 + 168000]
    eight_failed = two(*LOW_HANDS, make_rules("moon-eight", players=2), contract=5)
    assert eight_failed.score == [-8, 0]


def test_all_tricks_and_points_is_no_moon_unless_bid():
    log = two(*MOON_HANDS, make_rules(players=2), contract=2)
    assert log.tricks == [6, 0]
    assert log.points == [4, 0]
    assert log.made
    assert log.score == [4, 0]
    assert not log.record()["moon"]
    assert log.money_units == [16800, -16800]          # no moon dollars


# Seat 0 leads KS (all spades); seat 1 must play AS and wins 7 game points
# (K 3 + A 4).  Seat 1 then leads 7C, seat 0 ruffs with 2S and wins the rest,
# capturing seat 1's KH and AH: 7 game points too.  High (AS) is seat 1's,
# Low (2S, won by seat 0) is seat 0's, Jack is not dealt.
TIE_HANDS = ("KS 2S 3S 4S 5S 6S", "AS AH KH 7C 8C 9C")


def test_game_tie_none_vs_all():
    none = two(*TIE_HANDS, make_rules(players=2))
    assert [p.card for p in none.plays[:4]] == cards("KS AS 7C 2S")
    assert none.game_points == [7, 7]
    assert none.tricks == [5, 1]
    assert (none.high, none.low, none.jack, none.game_winners) == (1, 0, -1, 0)
    assert none.points == [1, 1]
    assert not none.made
    assert none.score == [-2, 1]
    assert none.money_units == [-12600, 12600]
    tie_all = two(*TIE_HANDS, make_rules("game-tie-all", players=2))
    assert tie_all.game_winners == 0b11
    assert tie_all.points == [2, 2]
    assert tie_all.made
    assert tie_all.score == [2, 2]
    assert tie_all.money_units == [0, 0]


def test_trumping_allowed_while_able_to_follow():
    # §3: holding the led suit, a player may play that suit or any trump
    S, H = 3, 2
    assert R.legal_cards(cards("4H 5S 10D"), H, S) == cards("4H 5S")
    assert R.legal_cards(cards("10D 5S 2C"), H, S) == sorted(cards("10D 5S 2C"))
    assert R.legal_cards(cards("4H 5S 10D"), S, S) == cards("5S")       # trumps led
    assert R.legal_cards(cards("4H 10D"), S, S) == sorted(cards("4H 10D"))
    # in play: seat 0 leads AS (its estimate is highest in spades: 145 against
    # 124 in clubs), then its lowest card, 5H; seat 1 holds 4H, which cannot
    # win, and ruffs with 5S, its cheapest winner
    log = two("AS 5H 9D 9C 8C 7C", "2S 5S 4H 10D 10C JC", make_rules(players=2))
    assert log.plays[:4] == [R.Play(0, DECK.parse("AS")), R.Play(1, DECK.parse("2S")),
                             R.Play(0, DECK.parse("5H")), R.Play(1, DECK.parse("5S"))]
    assert log.winners[:2] == [0, 1]
    check_hand(make_rules(players=2), log, fixed_seat=0, fixed_contract=2)


def aggression_for(hand, n, want):
    """The aggression (points) that makes the heuristic's desired bid ``want`` (2..4)."""
    suit_est = max(est(hand, s, n) for s in range(4) if any(suit(c) == s for c in hand))
    return (want * 100 - suit_est) / 100              # v = (est + aggression + 50) // 100


def heuristic_table(hands, wants):
    n = len(hands)
    classic = NAMED["classic"]            # the old estimate, which aggression_for restates
    return make_policies([f"{classic},moon_run=7,aggression={aggression_for(h, n, w)}"
                          if w else f"{classic},aggression=-4,moon_run=7"
                          for h, w in zip(hands, wants)], n)


STEAL_HANDS = [cards("AS 5H 9D 9C 8C 7C"), cards("2S 5S 4H 10D 10C JC"),
               cards("KS 2H 3D 4C QC 6C")]


def test_dealer_steal_match_vs_outbid():
    # three players, dealer 2: seat 0 wants 2, seat 1 passes, the dealer wants 2 too
    policies = heuristic_table(STEAL_HANDS, [2, 0, 2])
    match = R.play_from(STEAL_HANDS, 2, make_rules(players=3), policies, Stream(2, 2))
    assert match.auction == [R.Bid(0, 2), R.Bid(1, 0), R.Bid(2, 2)]
    assert (match.pitcher, match.contract, match.stuck) == (2, 2, False)
    assert [match.record()[f"bid_{s}"] for s in range(3)] == [2, 0, 2]
    outbid = R.play_from(STEAL_HANDS, 2, make_rules("steal-outbid", players=3), policies,
                         Stream(2, 2))
    assert outbid.auction == [R.Bid(0, 2), R.Bid(1, 0), R.Bid(2, 0)]
    assert (outbid.pitcher, outbid.contract) == (0, 2)
    # a dealer wanting more simply bids higher, under either rule
    higher = heuristic_table(STEAL_HANDS, [2, 0, 3])
    for preset in ("seed", "steal-outbid"):
        log = R.play_from(STEAL_HANDS, 2, make_rules(preset, players=3), higher, Stream(2, 2))
        assert log.auction[-1] == R.Bid(2, 3)
        assert log.pitcher == 2
    # a moon ends the auction: nobody after it speaks
    moon_hands = [cards("AH KH QH JH 7H 8H"), *STEAL_HANDS[1:]]
    log = R.play_from(moon_hands, 2, make_rules(players=3), make_policies("heuristic", 3),
                      Stream(2, 2))
    assert log.auction == [R.Bid(0, 5)]
    assert log.contract == 5
    # the options a random player draws from (§8.1)
    rules = make_rules(players=3)
    assert R.bid_options(rules, True, 2) == [0, 2, 3, 4, 5]
    assert R.bid_options(rules.replace(steal="outbid"), True, 2) == [0, 3, 4, 5]
    assert R.bid_options(rules, False, 3) == [0, 4, 5]
    assert R.bid_options(rules, True, 0) == [2]                         # stuck: exactly 2
    assert R.bid_options(rules.replace(stuck_bid="any"), True, 0) == [2, 3, 4, 5]
    assert R.bid_options(rules.replace(all_pass="redeal"), True, 0) == [0, 2, 3, 4, 5]


def test_forced_dealer_vs_redeal():
    hands = R.deal(Stream(5, 5), 4, 3)
    passers = make_policies("heuristic:aggression=-4,moon_run=7", 4)   # est + 50 - 400 < 100
    forced = R.play_from(hands, 3, make_rules(players=4), passers, Stream(5, 6))
    assert forced.auction == [R.Bid(0, 0), R.Bid(1, 0), R.Bid(2, 0), R.Bid(3, 2)]
    assert forced.stuck
    assert (forced.pitcher, forced.contract) == (3, 2)
    rec = forced.record()
    assert rec["stuck"] is True
    assert rec["bid_3"] == 2
    assert rec["trump"] != "-"
    check_hand(make_rules(players=4), forced)
    # a random stuck dealer: options [2] under the seed's stuck_bid = two (one draw
    # all the same), 2, 3, 4 and moon under stuck_bid = any
    mixed = passers[:3] + make_policies("random", 1)
    for seed in range(20):
        stream = Counting(seed, 6)
        log = R.play_from(hands, 3, make_rules(players=4), mixed, stream)
        assert log.stuck
        assert log.auction[-1] == R.Bid(3, 2)
        assert stream.draws == 1 + 6                    # the bid, then six plays
        log = R.play_from(hands, 3, make_rules("stuck-any", players=4), mixed, Stream(seed, 6))
        assert log.stuck
        assert log.auction[-1].level == [2, 3, 4, 5][Stream(seed, 6).below(4)]
    # a heuristic stuck dealer wanting 4 bids 2 (two) or 4 (any)
    wants_four = passers[:3] + make_policies("heuristic:aggression=4,moon_run=7", 1)
    assert R.play_from(hands, 3, make_rules(players=4), wants_four, Stream(5, 6)).contract == 2
    log = R.play_from(hands, 3, make_rules("stuck-any", players=4), wants_four, Stream(5, 6))
    assert log.contract == 2
    assert log.stuck
    old = passers[:3] + make_policies("heuristic:aggression=4,moon_run=7,dealer_match=false", 1)
    log = R.play_from(hands, 3, make_rules("stuck-any", players=4), old, Stream(5, 6))
    assert log.contract == 4
    assert log.stuck
    thrown = R.play_from(hands, 3, make_rules("redeal", players=4), passers, Stream(5, 6))
    assert thrown.thrown_in
    assert thrown.auction == [R.Bid(s, 0) for s in range(4)]
    rec = thrown.record()
    assert (rec["pitcher"], rec["contract"], rec["trump"], rec["stuck"]) == (-1, 0, "-", False)
    assert rec["money_0"] == 0.0
    assert rec["made"] is False
    assert rec["high"] == -1
    check_hand(make_rules("redeal", players=4), thrown)
    assert "contract: none" in body(thrown)
    # §8.4 plan pass: the seat passes, but bids 2 when it is the stuck dealer
    stuck_fixed = R.play_from(hands, 3, make_rules(players=4), passers, Stream(5, 6),
                              seat=3, plan=0)
    assert stuck_fixed.auction[3] == R.Bid(3, 2)
    assert stuck_fixed.stuck
    eager = make_policies("heuristic:aggression=4,moon_run=7", 4)      # everyone wants 4
    log = R.play_from(hands, 3, make_rules(players=4), eager, Stream(5, 6), seat=1, plan=0)
    assert log.auction == [R.Bid(0, 4), R.Bid(1, 0), R.Bid(2, 0), R.Bid(3, 4)]   # a steal
    assert log.pitcher == 3


def test_open_auction_laps():
    """§2 open: a pass is final, passed seats are skipped, the dealer steals at each
    of its turns, and the auction ends with one player left holding the bid."""
    rules = make_rules("open-auction", players=3)
    # dealer 2: seat 0 wants 3, seat 1 wants 2, the dealer wants 3 (moons never)
    hands = STEAL_HANDS
    policies = heuristic_table(hands, [3, 2, 3])
    log = R.play_from(hands, 2, rules, policies, Stream(2, 2))
    # 0 bids 3; 1 passes (2 is not higher); the dealer steals at 3; 0 cannot go higher
    assert log.auction == [R.Bid(0, 3), R.Bid(1, 0), R.Bid(2, 3), R.Bid(0, 0)]
    assert (log.pitcher, log.contract, log.stuck) == (2, 3, False)
    check_hand(rules, log)
    # one lap: the same first three calls, and the auction is over
    lap = R.play_from(hands, 2, make_rules(players=3), policies, Stream(2, 2))
    assert lap.auction == log.auction[:3]
    assert (lap.pitcher, lap.contract) == (2, 3)
    # a seat speaks again: seat 0 wants 4 after the dealer's steal at 2
    wants = heuristic_table(hands, [2, 0, 2])
    log = R.play_from(hands, 2, rules, wants, Stream(2, 2))
    assert log.auction == [R.Bid(0, 2), R.Bid(1, 0), R.Bid(2, 2), R.Bid(0, 0)]
    # §8.4 ceilings at seat 0: its least legal bid while that is within the
    # ceiling.  Against a dealer wanting 4: 2, the dealer 4, then 5 > 4: a pass
    greedy = heuristic_table(hands, [2, 0, 4])
    log = R.play_from(hands, 2, rules, greedy, Stream(2, 2), seat=0, plan=4)
    assert log.auction == [R.Bid(0, 2), R.Bid(1, 0), R.Bid(2, 4), R.Bid(0, 0)]
    stealer = heuristic_table(hands, [2, 0, 2])
    calls = []
    for plan in (2, 3, 4):
        log = R.play_from(hands, 2, rules, stealer, Stream(2, 2), seat=0, plan=plan)
        calls.append(log.auction)
        check_hand(rules, log)
    # against a dealer wanting 2, who steals at 2 and passes once the bid is 3
    assert calls[0] == [R.Bid(0, 2), R.Bid(1, 0), R.Bid(2, 2), R.Bid(0, 0)]
    assert calls[1] == [R.Bid(0, 2), R.Bid(1, 0), R.Bid(2, 2), R.Bid(0, 3), R.Bid(2, 0)]
    assert calls[2] == calls[1]
    # the recorded bid is each seat's highest
    log = R.play_from(hands, 2, rules, greedy, Stream(2, 2), seat=0, plan=5)
    assert log.auction == [R.Bid(0, 5)]
    assert log.record()["bid_0"] == 5


def test_bad_inputs():
    rules = make_rules(players=2)
    with pytest.raises(InputError):
        R.deal(Stream(1, 1), 9, 0)
    with pytest.raises(InputError):
        R.play_hand(rules, make_policies("heuristic", 2), 1, 1, 0, fixed=(0, [1, 2, 3]),
                    contract=2)
    with pytest.raises(InputError):
        R.play_hand(rules, make_policies("heuristic", 2), 1, 1, 0, fixed=(0, ACE_TO_NINE),
                    contract=1)


# --- sessions (§7) ----------------------------------------------------------

def replay_money(rules, log):
    """§7 settlement recomputed from the hands and who sat where:
    (units, final scores, starting scores), by player.

    Also checks the seatings: after each hand but the last, leavers go (only
    while 3 or more sit), then at most one newcomer takes the last seat.
    """
    units: dict[int, Fraction] = {}
    score: dict[int, int] = dict.fromkeys(log.seatings[0], 0)
    start = dict(score)
    for j in log.seatings[0]:
        units[j] = Fraction(0)
    per_unit = rules.cents * 840
    for h, (hand, seats) in enumerate(zip(log.hands, log.seatings)):
        assert 2 <= len(seats) <= 8
        assert hand.rules.players == len(seats)
        for i, j in enumerate(seats):
            score[j] += hand.score[i]
        if hand.contract == 5:
            each = rules.moon_dollars * UNITS_PER_DOLLAR * (1 if hand.made else -1)
            pitcher = seats[hand.pitcher]
            for j in seats:
                if j != pitcher:
                    units[j] -= each
                    units[pitcher] += each
        if h + 1 == len(log.hands):
            break
        nxt = log.seatings[h + 1]
        current = list(seats)
        for j in [j for j in seats if j not in nxt]:             # leavers, in seat order
            assert len(current) >= 3
            n, S = len(current), sum(score[k] for k in current)
            receives = per_unit * (score[j] - Fraction(S, n))
            units[j] += receives
            for k in current:
                if k != j:
                    units[k] -= receives / (n - 1)
            current.remove(j)
        joiners = [j for j in nxt if j not in seats]
        assert len(joiners) <= 1
        assert nxt == current + joiners
        for j in joiners:
            assert j == max(units) + 1
            S = sum(score[k] for k in current)
            score[j] = start[j] = S // len(current) if rules.join_score == JoinScore.AVERAGE else 0
            units[j] = Fraction(0)
    last = log.seatings[-1]
    S = sum(score[k] for k in last)
    for j in last:
        units[j] += per_unit * (score[j] - Fraction(S, len(last)))
    assert all(u.denominator == 1 for u in units.values())
    assert sum(units.values()) == 0
    return {j: int(u) for j, u in units.items()}, score, start


def check_session(rules, policies, log, seed, index):
    N = rules.players
    rows = log.rows()
    assert [r["player"] for r in rows] == list(range(len(rows)))
    assert 1 <= len(log.hands) <= rules.session_hands
    assert len(rows) <= 32
    assert log.first_dealer == Stream(seed, index).below(N)
    assert log.seatings[0] == list(range(N))
    assert log.dealers[0] == log.first_dealer
    units, score, start = replay_money(rules, log)
    assert sum(units.values()) == 0
    # the dealer passes to the first player after it, in the old seat order, still seated
    for h in range(1, len(log.hands)):
        before, after = log.seatings[h - 1], log.seatings[h]
        d = before[log.dealers[h - 1]]
        k = before.index(d)
        nxt = next(before[(k + i) % len(before)] for i in range(1, len(before) + 1)
                   if before[(k + i) % len(before)] in after)
        assert after[log.dealers[h]] == nxt
    # the end: the cap, or the first hand at whose end a seated score reached the target
    running = dict(start)
    reached = []
    for hand, seats in zip(log.hands, log.seatings):
        for i, j in enumerate(seats):
            running[j] += hand.score[i]
        reached.append(rules.target > 0 and any(running[j] >= rules.target for j in seats))
    assert not any(reached[:-1])
    assert log.ended_by_target == reached[-1]
    if not reached[-1]:
        assert len(log.hands) == rules.session_hands
    for r in rows:
        j = r["player"]
        sat = [h for h, s in enumerate(log.seatings) if j in s]
        assert r["session"] == index
        assert r["policy"] == policies[j % len(policies)].text()
        assert r["hands"] == len(sat) >= 1
        assert sat == list(range(sat[0], sat[-1] + 1))
        assert r["joined"] == sat[0]
        assert r["left"] == (-1 if j in log.seatings[-1] else sat[-1] + 1)
        assert r["seat"] == ((j - log.first_dealer - 1) % N + 1 if j < N else 0)
        assert r["score"] == score[j]
        assert r["money"] == units[j] / UNITS_PER_DOLLAR
        mine = [(hand, s.index(j)) for hand, s in zip(log.hands, log.seatings)
                if j in s and hand.pitcher == s.index(j)]
        assert r["pitched"] == len(mine)
        assert r["made"] == sum(h.made for h, _ in mine)
        assert r["moons_made"] == sum(h.made for h, _ in mine if h.contract == 5)
        assert r["moons_failed"] == sum(not h.made for h, _ in mine if h.contract == 5)
        assert (r["session_hands"], r["ended_by_target"], r["first_dealer"]) == \
            (len(log.hands), log.ended_by_target, log.first_dealer)
    for hand in log.hands:
        check_hand(hand.rules, hand)


@pytest.mark.slow
@FEW
@given(tables(), seeds, st.integers(0, 2**20), st.integers(1, 12),
       st.tuples(st.sampled_from([0.0, 0.05, 0.3]), st.sampled_from([0.0, 0.1, 0.6])),
       st.sampled_from([0, 0, 4]), st.integers(1, 4), st.sampled_from(["average", "zero"]))
def test_session_invariants(table, seed, index, hands, churn, target, n_policies, join_score):
    rules, policies = table
    leave, join = churn
    rules = rules.replace(session_hands=hands, leave=leave, join=join, target=target,
                          join_score=join_score)
    policies = policies[:n_policies]
    log = R.play_session(rules, policies, seed, index)
    check_session(rules, policies, log, seed, index)
    assert R.play_session(rules, policies, seed, index).rows() == log.rows()


def independent_session(seed, index, rules, policies):
    """§7's order of draws, driven again here: (seatings, dealers, hand logs)."""
    stream = Stream(seed, index)
    seats = list(range(rules.players))
    count = rules.players
    dealer = stream.below(rules.players)
    seatings, dealers, logs = [], [], []
    for h in range(rules.session_hands):
        n = len(seats)
        table = rules.replace(players=n)
        hands = R.deal(stream, n, dealer)
        logs.append(R.play_from(hands, dealer, table,
                                tuple(policies[j % len(policies)] for j in seats), stream))
        seatings.append(list(seats))
        dealers.append(dealer)
        if h + 1 == rules.session_hands:
            break
        before, d = list(seats), seats[dealer]
        if rules.leave > 0:
            for j in before:
                if stream.below(1000) < round(rules.leave * 1000) and len(seats) >= 3:
                    seats.remove(j)
        if rules.join > 0 and stream.below(1000) < round(rules.join * 1000) \
                and len(seats) < 8 and count < 32:
            seats.append(count)
            count += 1
        k = before.index(d)
        dealer = seats.index(next(before[(k + i) % len(before)]
                                  for i in range(1, len(before) + 1)
                                  if before[(k + i) % len(before)] in seats))
    return seatings, dealers, logs


@pytest.mark.slow
@FEW
@given(seeds, st.integers(0, 2**20), player_counts, st.sampled_from([0.0, 0.1, 0.4]),
       st.sampled_from([0.0, 0.2, 0.7]))
def test_session_draw_order(seed, index, players, leave, join):
    rules = make_rules(players=players, overrides={"session_hands": 8, "leave": leave,
                                                   "join": join})
    policies = make_policies(["random", "heuristic", "heuristic:aggression=1"], 3)
    log = R.play_session(rules, policies, seed, index)
    seatings, dealers, logs = independent_session(seed, index, rules, policies)
    assert (log.seatings, log.dealers, log.hands) == (seatings, dealers, logs)


def test_session_without_churn_is_consecutive_hands():
    rules = make_rules(players=5, overrides={"session_hands": 7})
    policies = make_policies(["heuristic", "random"], 2)
    log = R.play_session(rules, policies, 3, 4)
    stream = Stream(3, 4)
    dealer = stream.below(5)
    assert log.first_dealer == dealer
    for h in range(7):
        hands = R.deal(stream, 5, dealer)
        pol = tuple(policies[j % 2] for j in range(5))
        assert log.hands[h] == R.play_from(hands, dealer, rules, pol, stream)
        dealer = (dealer + 1) % 5
    rows = log.rows()
    assert [r["seat"] for r in rows][log.first_dealer] == 5          # the first dealer is N
    assert all(r["hands"] == 7 and r["left"] == -1 and r["joined"] == 0 for r in rows)
    assert [r["policy"] for r in rows] == [policies[j % 2].text() for j in range(5)]
    assert rows[1]["policy"] == "random"
    assert rows[0]["policy"].startswith("heuristic:")


def find_session(rules, policies, want, tries=300):
    for i in range(tries):
        log = R.play_session(rules, policies, 17, i)
        if want(log):
            return i, log
    raise AssertionError("no such session")


def test_leaving_player_is_settled_at_once():
    rules = make_rules(players=5, overrides={"session_hands": 10, "leave": 0.15})
    policies = make_policies(["heuristic", "random"], 2)
    i, log = find_session(rules, policies, lambda lg: any(r["left"] > 0 for r in lg.rows()))
    # the first to leave (earliest hand, then seat order): nobody has been settled before
    row = min((r for r in log.rows() if r["left"] > 0),
              key=lambda r: (r["left"], log.seatings[r["left"] - 1].index(r["player"])))
    j, h = row["player"], row["left"] - 1          # left after hand h
    seats = log.seatings[h]
    assert all(log.seatings[k] == log.seatings[0] for k in range(h + 1))
    # the table's scores at the end of hand h
    scores = {k: sum(lg.score[s.index(k)] for lg, s in zip(log.hands[:h + 1], log.seatings[:h + 1])
                     if k in s) for k in seats}
    n, S = len(seats), sum(scores[k] for k in seats)
    moons = sum((1 if lg.made else -1) * ((len(s) - 1) if s[lg.pitcher] == j else -1)
                for lg, s in zip(log.hands[:h + 1], log.seatings[:h + 1])
                if lg.contract == 5 and j in s)
    expect = Fraction(10 * 840 * (n * scores[j] - S), n) + moons * UNITS_PER_DOLLAR
    assert expect.denominator == 1
    assert row["money"] == int(expect) / UNITS_PER_DOLLAR
    assert row["score"] == scores[j]
    check_session(rules, policies, log, 17, i)


def test_join_score_average_vs_zero():
    rules = make_rules(players=3, overrides={"session_hands": 12, "join": 0.3})
    policies = make_policies("heuristic", 1)
    i, avg = find_session(rules, policies, lambda lg: len(lg.rows()) > 3
                          and lg.rows()[3]["joined"] >= 3)
    zero = R.play_session(rules.replace(join_score="zero"), policies, 17, i)
    # the same draws and the same cards: only the starting score differs
    assert zero.seatings == avg.seatings
    assert [(h.hands, h.auction, h.plays, h.score) for h in zero.hands] == \
        [(h.hands, h.auction, h.plays, h.score) for h in avg.hands]
    h = avg.rows()[3]["joined"]
    seated = avg.seatings[h - 1]
    scores = [sum(lg.score[s.index(k)] for lg, s in zip(avg.hands[:h], avg.seatings[:h]))
              for k in seated]
    start = sum(scores) // len(scores)                   # rounded down
    assert avg.rows()[3]["score"] - zero.rows()[3]["score"] == start
    assert avg.players[3].start_score == start
    assert zero.players[3].start_score == 0
    check_session(rules, policies, avg, 17, i)
    check_session(rules.replace(join_score="zero"), policies, zero, 17, i)


def test_target_ends_the_session():
    rules = make_rules("game-to-11", players=4)
    policies = make_policies("heuristic", 1)
    for i in range(5):
        log = R.play_session(rules, policies, 8, i)
        assert log.ended_by_target
        assert len(log.hands) < 200
        assert max(r["score"] for r in log.rows()) >= 11
        check_session(rules, policies, log, 8, i)
    capped = rules.replace(session_hands=2)
    log = R.play_session(capped, policies, 8, 0)
    assert len(log.hands) == 2
    assert not log.ended_by_target
    assert all(r["session_hands"] == 2 for r in log.rows())


@FEW
@given(seeds, st.integers(0, 2**20), player_counts)
def test_first_dealer_draw(seed, index, players):
    rules = make_rules(players=players, overrides={"session_hands": 1})
    log = R.play_session(rules, make_policies("random", 1), seed, index)
    fd = Stream(seed, index).below(players)
    assert log.first_dealer == fd
    assert log.hands[0].dealer == fd
    seats = [r["seat"] for r in log.rows()]
    assert seats[fd] == players
    assert seats[(fd + 1) % players] == 1
    assert sorted(seats) == list(range(1, players + 1))
    # one hand: the session's money is that hand's one-hand money
    assert [r["money"] for r in log.rows()] == [m / UNITS_PER_DOLLAR
                                                 for m in log.hands[0].money_units]
