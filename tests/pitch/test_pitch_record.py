"""Tests of Pitch hand records (simkit/pitch/record.py, seeds/pitch.md 9).

A record's body is written by ``body`` and read back by ``replay``, which
replays it with the reference engine.  The tests: every hand ``play`` gives
survives the round trip unchanged (every player count, the seed's rules,
every variant at once, random tables, thrown-in hands); what a record says
equals the kernel's row for the same hand; a record cut short is played out
by the policies exactly as the run played it; and records written out by
hand below are accepted, completed, or refused with one line naming the
step.  The hand-written hand's results are worked out from the rule book in
the comments, not by the engine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pitch import reference as R
from simkit.pitch.api import simulate
from simkit.pitch.policies import make_policies
from simkit.pitch.record import UNIT, body, deal, play, replay
from simkit.pitch.rules import make_rules

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_pitch_differential import ALL_VARIANTS, STUCK_VARIANTS, mixed_specs

SEED = 0x5EED_4EC0
PLAYERS = tuple(range(2, 9))
HANDS = 150                    # per player count, the seed's rules, heuristic table
VARIANT_HANDS = 30             # per player count and table, rules off their defaults
KERNEL_HANDS = 100             # per player count and table, against simulate()
CAUTIOUS = "heuristic:aggression=-1.5"     # passes on most hands: thrown in under redeal


def round_trip(rules, policies, seed: int, start: int, count: int) -> list:
    """Play hands ``start ..``, check each record's round trip; return the logs."""
    logs = []
    for i in range(start, start + count):
        log = play(rules, policies, seed, i)
        lines = body(log)
        back = replay(lines, rules, None, seed, i)
        assert back == log, (i, lines)
        assert body(back) == lines, i
        logs.append(log)
    return logs


def test_unit_and_the_shared_header():
    """A record is one hand, and its lines never take a key of the shared header
    (simkit.bygame.record), which takes those lines out before the body is read."""
    from simkit.bygame import record as shared
    assert UNIT == "hand"
    rules = make_rules(overrides=ALL_VARIANTS, players=3)
    specs = mixed_specs(3)
    for i in range(3):
        keys = {line.split(":")[0] for line in body(play(rules, make_policies(specs, 3),
                                                         SEED, i))}
        assert not keys & set(shared.HEADER)
        assert not any(k.startswith("policy") for k in keys)
        text = shared.show("pitch", rules, specs, SEED, i)
        assert shared.replay(text) == text


@pytest.mark.parametrize("players", [  # quick tier: the first; full: all
    p if i == 0 else pytest.param(p, marks=pytest.mark.slow)
    for i, p in enumerate(PLAYERS)])
def test_round_trip(players):
    rules = make_rules(players=players)
    round_trip(rules, make_policies("heuristic", players), SEED, 0, HANDS)
    round_trip(rules, make_policies("random", players), SEED + 1, 0, VARIANT_HANDS)
    logs = []
    for variants in (ALL_VARIANTS, STUCK_VARIANTS):
        varied = make_rules(overrides=variants, players=players)
        logs += round_trip(varied, make_policies(mixed_specs(players), players), SEED + 2,
                           10**6, VARIANT_HANDS)
    cautious = make_rules(overrides=ALL_VARIANTS, players=players)
    logs += round_trip(cautious, make_policies(CAUTIOUS, players), SEED + 3, 0, VARIANT_HANDS)
    assert any(log.thrown_in for log in logs)
    assert any(log.moon for log in logs)
    assert any(len(log.auction) > players for log in logs)       # an open auction's second lap


def cut(lines: list[str], players: int, calls: int, plays: int) -> list[str]:
    """A record stopped early: the deal, the first ``calls`` calls and the first
    ``plays`` cards (the last trick possibly unfinished), with no results."""
    keep = [line for line in lines if line.startswith(("dealer:", "seat "))]
    auction = next(line for line in lines if line.startswith("auction:")).split()[1:]
    keep.append("auction: " + " ".join(auction[:calls]))
    cards = [item for line in lines if line.startswith("trick ")
             for item in line.partition(": ")[2].split("->")[0].split()]
    for k in range(0, plays, players):
        keep.append(f"trick {k // players + 1}: " + " ".join(cards[k:min(k + players, plays)]))
    return keep


@pytest.mark.parametrize("players", [2, 4, 5, 8])
def test_cut_record_played_out_by_the_policies(players):
    """A record of ``play`` cut anywhere and replayed with the same policies and
    (seed, index) is the same hand: the random seats' recorded decisions use up
    their draws, so the policies go on drawing where the run did."""
    rules = make_rules(overrides=ALL_VARIANTS, players=players)
    specs = ["random" if s % 2 == 0 else spec for s, spec in enumerate(mixed_specs(players))]
    policies = make_policies(specs, players)
    for i in range(40):
        log = play(rules, policies, SEED + 4, i)
        lines = body(log)
        points = [(0, 0), (len(log.auction) // 2, 0), (len(log.auction), 0)]
        if log.plays:
            points += [(len(log.auction), k) for k in (1, players, len(log.plays) // 2 + 1,
                                                       len(log.plays) - 1)]
        for calls, plays in points:
            short = cut(lines, players, calls, plays)
            assert replay(short, rules, policies, SEED + 4, i) == log, (i, calls, plays)
            if (calls, plays) != (len(log.auction), len(log.plays)):
                with pytest.raises(InputError, match="give --policy to play it out"):
                    replay(short, rules, None, SEED + 4, i)
        assert replay(lines, rules, policies, SEED + 4, i) == log        # nothing to fill in


# --- the record against the kernel's rows -------------------------------------

LEVEL = {"pass": 0, "2": 2, "3": 3, "4": 4, "moon": 5}


def row_of(lines: list[str], players: int) -> dict:
    """What a record says, read here independently of record.py, as the columns
    of simulate()'s row (money as dollars)."""
    said = dict(line.split(": ", 1) for line in lines)
    bids = [0] * players
    for item in said["auction"].split():
        seat, call = item.split(":")
        bids[int(seat)] = max(bids[int(seat)], LEVEL[call])
    row = {f"bid_{s}": bids[s] for s in range(players)}
    row["pitcher"] = -1 if said["pitcher"] == "-" else int(said["pitcher"])
    row["contract"] = 0 if said["contract"] == "none" else LEVEL[said["contract"]]
    row["stuck"] = said["stuck"] == "yes"
    row["trump"] = said["trump"]
    for key, column in (("tricks", "tricks"), ("game points", "game_points"),
                        ("points", "points"), ("score", "score")):
        for s, value in enumerate(said[f"{key} by seat"].split()):
            row[f"{column}_{s}"] = int(value)
    for key in ("high", "low", "jack"):
        row[key] = -1 if said[key] == "-" else int(said[key])
    row["game_winners"] = sum(1 << int(s) for s in said["game won by"].split() if s != "-")
    row["made"] = said["made"] == "yes"
    for s, amount in enumerate(said["money by seat"].split()):
        row[f"money_{s}"] = float(amount.replace("$", ""))
    return row


@pytest.mark.parametrize("players", [  # quick tier: the first; full: all
    p if i == 0 else pytest.param(p, marks=pytest.mark.slow)
    for i, p in enumerate(PLAYERS)])
def test_record_matches_the_kernel_row(players):
    """simulate()'s row i (the numba kernel) says what the record of hand i says."""
    for variants, specs, seed in (({}, ["heuristic"] * players, SEED + 5),
                                  (ALL_VARIANTS, mixed_specs(players), SEED + 6)):
        rules = make_rules(overrides=variants, players=players)
        frame = simulate(hands=KERNEL_HANDS, rules=rules, policy=specs, seed=seed)
        policies = make_policies(specs, players)
        for i in range(KERNEL_HANDS):
            said = row_of(body(play(rules, policies, seed, i)), players)
            row = frame.iloc[i]
            for column, value in said.items():
                if column.startswith("money_"):
                    assert abs(row[column] - value) <= 0.00005 + 1e-12, (i, column)
                else:
                    assert row[column] == value, (i, column, row[column], value)


# --- records written by hand ---------------------------------------------------
#
# Four players, seat 3 deals; one lap from seat 0.  Seat 0 bids 3, the others
# pass: seat 0 pitches 3 and leads AS, so spades are trumps (3).
#   trick 1: AS 2S 10S 3S: all hold spades and must play one; AS wins.
#   trick 2: KS QS JS, seat 3 has no spade left (5H); KS wins, the jack with it.
#   trick 3: 4S, nobody else has a trump: 4S wins.
#   trick 4: seat 0 leads 9H; 10H KH AH follow; AH (seat 3) wins and leads.
#   trick 5: QD 3D 5D 9D: QD wins.   trick 6: JC 7C 8C 4H: JC wins.
# Points (4): High is AS (dealt to seat 0); Low is 2S, the lowest trump dealt,
# captured by seat 0 in trick 1; Jack: JS, won by seat 0 in trick 2.  Game:
# seat 0 took AS 10S KS QS JS (4 + 10 + 3 + 2 + 1 = 20), seat 3 took 10H KH
# AH QD JC (10 + 3 + 4 + 2 + 1 = 20): a tie, nobody scores Game (game_tie
# = none).  Seat 0 made 3 with 3 points (5): +3, the others 0.  Money (7): the
# average is 3/4; seat 0 gets 10 cents x (3 - 3/4) = $0.225, each other pays
# 10 cents x 3/4 = $0.075.

HAND = """\
dealer: 3
seat 0: AS KS 4S 9H 3D 7C
seat 1: QS 2S 10H 5D 8C 6C
seat 2: JS 10S 9D KH 2C 4H
seat 3: 3S AH QD 7D JC 5H
auction: 0:3 1:pass 2:pass 3:pass
stuck: no
pitcher: 0
contract: 3
trump: S
trick 1: 0:AS 1:2S 2:10S 3:3S -> 0
trick 2: 0:KS 1:QS 2:JS 3:5H -> 0
trick 3: 0:4S 1:6C 2:2C 3:7D -> 0
trick 4: 0:9H 1:10H 2:KH 3:AH -> 3
trick 5: 3:QD 0:3D 1:5D 2:9D -> 3
trick 6: 3:JC 0:7C 1:8C 2:4H -> 3
tricks by seat: 3 0 0 3
game points by seat: 20 0 0 20
high: 0
low: 0
jack: 0
game won by: -
points by seat: 3 0 0 0
score by seat: +3 +0 +0 +0
made: yes
money by seat: +$0.225 -$0.075 -$0.075 -$0.075
""".splitlines()

RULES4 = make_rules(players=4)
RESULT_START = HAND.index("tricks by seat: 3 0 0 3")


def edited(**lines: str) -> list[str]:
    """HAND with the lines of the given keys (``trick_3`` for 'trick 3')
    replaced; a value of None drops the line."""
    out = []
    for line in HAND:
        key = line.split(":")[0].replace(" ", "_")
        if key in lines:
            if lines[key] is not None:
                out.append(f"{line.split(':')[0]}: {lines[key]}")
        else:
            out.append(line)
    return out


def test_hand_written_record_is_accepted():
    log = replay(HAND, RULES4, None, 0, 0)
    assert body(log) == HAND
    assert log.score == [3, 0, 0, 0]
    assert log.game_winners == 0
    assert log.winners == [0, 0, 0, 3, 3, 3]


def test_hand_written_record_any_case_with_comments():
    """Keys and cards in any case, 10 as T, spaces, comments and blank lines."""
    messy = ["# a hand from Tuesday", ""] + [
        line.upper().replace("10", "T").replace(": ", " :  ") for line in HAND[:13]] + [
        "", "Trick 4: 0:9h 1:th 2:kh 3:ah", *HAND[14:RESULT_START], "# no results"]
    assert body(replay(messy, RULES4, None, 0, 0)) == HAND


def test_record_without_results_is_completed():
    bare = [line for line in HAND[:RESULT_START] if not line.startswith(
        ("stuck", "pitcher", "contract", "trump"))]
    bare = [line.split(" ->")[0] for line in bare]              # no trick winners either
    assert body(replay(bare, RULES4, None, 0, 0)) == HAND


def test_deal_and_auction_are_played_out_by_policies():
    """Only the deal and the auction: the heuristic plays the hand, card for card
    as the engine plays a declared contract of 3 by seat 0 on this deal."""
    policies = make_policies("heuristic", 4)
    short = HAND[:6]
    log = replay(short, RULES4, policies, 9, 4)
    assert body(log)[:6] == short
    assert len(log.plays) == 24
    hands = [log.hands[s] for s in range(4)]
    declared = R.play_from(hands, 3, RULES4, policies, Stream(9, 4), seat=0, contract=3)
    assert (log.plays, log.score, log.money_units) == (declared.plays, declared.score,
                                                       declared.money_units)
    # only the deal: the policies bid too
    assert len(replay(HAND[:5], RULES4, policies, 9, 4).auction) == 4


def test_the_rule_book_example_is_what_play_gives():
    """seeds/pitch.md 9 shows the record of hand 3 of seed 7 (four players, the
    seed's rules, the heuristic at every seat)."""
    book = (Path(__file__).resolve().parents[2] / "seeds" / "pitch.md").read_text()
    example = book.split("## 9. Hand records as text")[1].split("```")[1].strip().splitlines()
    assert example == body(play(RULES4, make_policies("heuristic", 4), 7, 3))


def test_deal_for_advise():
    """advise --from takes the dealer and the hands; the deal is checked, the
    moves are not (a revoke does not matter here)."""
    assert deal(edited(trick_4="0:9H 1:8C 2:KH 3:AH"), RULES4) == (
        3, ["AS KS 4S 9H 3D 7C", "QS 2S 10H 5D 8C 6C", "JS 10S 9D KH 2C 4H",
            "3S AH QD 7D JC 5H"])
    with pytest.raises(InputError, match="AS is dealt twice"):
        deal(edited(seat_2="JS 10S 9D KH AS 4H"), RULES4)


def test_thrown_in_record():
    redeal = make_rules("redeal", players=4)
    passed = [*HAND[:5], "auction: 0:pass 1:pass 2:pass 3:pass"]
    log = replay(passed, redeal, None, 0, 0)
    assert log.thrown_in
    assert body(log)[6:10] == ["stuck: no", "pitcher: -", "contract: none",
                                                 "trump: -"]
    with pytest.raises(InputError, match=r"thrown in .* but the record has tricks"):
        replay(passed + HAND[10:11], redeal, None, 0, 0)


BAD = {
    "card played twice": (
        edited(trick_3="0:AS 1:6C 2:2C 3:7D -> 0"),
        "trick 3: seat 0 plays AS, but seat 0 already played it in trick 1"),
    "card of another seat": (
        edited(trick_3="0:6C 1:4S 2:2C 3:7D -> 0"),
        "trick 3: seat 0 plays 6C, but it was dealt to seat 1"),
    "revoke": (
        edited(trick_4="0:9H 1:8C 2:KH 3:AH -> 3"),
        "trick 4: seat 1 plays 8C but holds a heart, the suit led: it must play a heart or "
        "a trump (seeds/pitch.md 3)"),
    "revoke in trumps": (
        edited(trick_1="0:AS 1:10H 2:10S 3:3S -> 0"),
        "trick 1: seat 1 plays 10H but holds a spade, the suit led: it must play a spade "
        "(seeds/pitch.md 3)"),
    "out of turn in a trick": (
        edited(trick_5="0:3D 3:QD 1:5D 2:9D -> 3"),
        "trick 5: the record has seat 0 play 3D, but it is seat 3's turn: the winner of "
        "trick 4 leads"),
    "wrong trick winner": (
        edited(trick_2="0:KS 1:QS 2:JS 3:5H -> 2"),
        "trick 2: the record says seat 2 wins it, but seat 0 does"),
    "wrong score": (
        edited(score_by_seat="+2 +0 +0 +0"),
        "the record says score by seat +2 +0 +0 +0, but the replay gives +3 +0 +0 +0"),
    "wrong money": (
        edited(money_by_seat="+$0.22 -$0.075 -$0.075 -$0.075"),
        "the record says money by seat +$0.22 -$0.075 -$0.075 -$0.075, but the replay gives "
        "+$0.225"),
    "wrong trump": (
        edited(trump="H"), "the record says trump H, but the replay gives S"),
    "wrong game": (
        edited(game_won_by="0"), "the record says game won by 0, but the replay gives -"),
    "bad card in the deal": (
        edited(seat_2="JS 10S 9D KH ZZ 4H"), "seat 2: unknown card 'ZZ'"),
    "bad card in a trick": (
        edited(trick_6="3:JC 0:7C 1:8C 2:ZZ -> 3"), "trick 6: unknown card 'ZZ'"),
    "card dealt twice": (
        edited(seat_2="JS 10S 9D KH AS 4H"),
        "AS is dealt twice, to seat 0 and seat 2 (seeds/pitch.md 1)"),
    "short hand": (
        edited(seat_2="JS 10S 9D KH 4H"),
        "seat 2 holds 5 cards: each seat is dealt 6 (seeds/pitch.md 1)"),
    "bid out of turn": (
        edited(auction="1:pass 0:3 2:pass 3:pass"),
        "auction call 1 is by seat 1, but it is seat 0's turn"),
    "bid too low": (
        edited(auction="0:3 1:2 2:pass 3:pass"),
        "auction call 2: seat 1 bids 2, but the high bid is 3: pass or bid higher "
        "(seeds/pitch.md 2)"),
    "stuck dealer passes": (
        edited(auction="0:pass 1:pass 2:pass 3:pass"),
        "auction call 4: seat 3 passes, but everyone else passed, so the dealer must bid"),
    "unknown bid": (
        edited(auction="0:3 1:7 2:pass 3:pass"), "auction call 2: unknown bid '7'"),
    "call after the auction": (
        edited(auction="0:3 1:pass 2:pass 3:pass 0:4"),
        "the auction is over after call 4, but the record has 5 calls"),
    "trick after the hand": (
        [*HAND[:RESULT_START], "trick 7: 3:2H 0:3H 1:4H 2:5H"],
        "the hand is over after trick 6, but the record goes on to trick 7"),
    "plays after the hand": (
        edited(trick_6="3:JC 0:7C 1:8C 2:4H 3:2H"), "trick 6: 5 plays, but a trick is one card"),
    "truncated": (
        [*HAND[:13], "trick 4: 0:9H 1:10H"],
        "the record stops at trick 4, seat 2 to play: give --policy to play it out"),
    "truncated auction": (
        edited(auction="0:3 1:pass"),
        "the record stops at auction call 3, seat 2 to speak: give --policy to play it out"),
    "unknown line": (
        [*HAND, "bonus: 3"], "unknown record line 'bonus'"),
    "not key: value": (
        [*HAND[:3], "AS KS 4S", *HAND[3:]], "bad record line 'AS KS 4S': expected 'key: value'"),
    "no dealer": (
        edited(dealer=None), "the record has no 'dealer' line"),
    "twice the same line": (
        [*HAND, "made: yes"], "the record has two 'made' lines"),
    "seat beyond the table": (
        [*HAND, "seat 4: 2H 3H 4H 5H 6H 7H"], "the rules have 4 players"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_record_is_refused_in_one_line(case):
    lines, message = BAD[case]
    with pytest.raises(InputError) as err:
        replay(lines, RULES4, None, 0, 0)
    text = str(err.value)
    assert "\n" not in text
    assert message in text, text


def test_truncated_record_with_policies_is_not_an_error():
    """The same cut that is refused without policies is played out with them."""
    policies = make_policies("heuristic", 4)
    log = replay([*HAND[:13], "trick 4: 0:9H 1:10H"], RULES4, policies, 0, 0)
    assert log.plays[:14] == replay(HAND, RULES4, None, 0, 0).plays[:14]
    assert len(log.plays) == 24


def test_plays_after_a_cut_auction_are_refused():
    """With policies, an auction cut short cannot be followed by recorded tricks:
    the policies' calls may give another pitcher."""
    with pytest.raises(InputError, match="auction stops after call 2, before it ends"):
        replay(edited(auction="0:3 1:pass"), RULES4, make_policies("heuristic", 4), 0, 0)


def test_other_variants_refuse_with_their_rule():
    outbid = make_rules("steal-outbid", players=4)
    with pytest.raises(InputError, match=r"auction call 4: seat 3 bids 3, but the dealer may "
                                         r"not steal the bid of 3 \(seeds/pitch.md 2, "
                                         r"steal = outbid\)"):
        replay(edited(auction="0:3 1:pass 2:pass 3:3"), outbid, None, 0, 0)
    with pytest.raises(InputError, match=r"a stuck dealer bids exactly 2 \(seeds/pitch.md 2, "
                                         r"stuck_bid = two\)"):
        replay(edited(auction="0:pass 1:pass 2:pass 3:3"), RULES4, None, 0, 0)
    steal = edited(auction="0:3 1:pass 2:pass 3:2")
    with pytest.raises(InputError, match="the dealer passes, matches it or bids higher"):
        replay(steal, RULES4, None, 0, 0)
