"""Bidding plans (seeds/pitch.md 8.4): one seat held to a plan through the whole
auction, the numba kernel (``run_plan`` through ``api.trace_plans`` and
``api.plan_hands``) against the reference (``reference.plan_hand``).

The differential cases cover every plan (``policy`` included) under one lap
and the open auction, forced and redeal, ``stuck_bid`` two and any, steal by
matching or outbidding, 2 to 8 players, the advised seat anywhere (the dealer
included), heuristic and mixed random/heuristic tables: 128 deals per case,
every call, every card and every record column compared.  Then forced
answers (a stuck dealer bids exactly 2; a table that never bids), the
identity of a plan with the seat's own policy where they call the same, the
plan seat never drawing from the stream, and bad input.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.pitch import api
from simkit.pitch import kernel as K
from simkit.pitch import reference as R
from simkit.pitch.policies import make_policies
from simkit.pitch.record import body
from simkit.pitch.rules import (
    DECK,
    PLAN_CODES,
    PLAN_MOON,
    PLAN_NAMES,
    PLAN_PASS,
    PLAN_POLICY,
    Auction,
    StuckBid,
    make_rules,
)

SEED = 0x91A7
DEALS = 128
PLANS = (PLAN_POLICY, *PLAN_CODES)
#: A table that never bids: est + 50 - 400 < 100, and never the moon.
NEVER = "heuristic:aggression=-4,moon_run=7"

#: Rule sets: every auction rule in a few combinations (one lap / open, forced /
#: redeal, stuck_bid two / any, steal match / outbid).
RULE_SETS = {
    "seed": {},
    "open": {"auction": "open"},
    "open-stuck-any-outbid": {"auction": "open", "stuck_bid": "any", "steal": "outbid"},
    "lap-stuck-any": {"stuck_bid": "any"},
    "lap-redeal-outbid": {"all_pass": "redeal", "steal": "outbid"},
    "open-redeal": {"auction": "open", "all_pass": "redeal", "low": "dealt"},
}
#: (players, seat, dealer, held hand): strong, middling and weak hands, the
#: advised seat first to speak, in the middle, and the dealer.
TABLES = [
    (2, 0, 0, "AS KS QS 10S 4S 2H"),
    (3, 1, 0, "AH 10H 4H KC 2S 9D"),
    (4, 3, 3, "KD QD 3D 10C 5H 7S"),
    (4, 2, 1, "2C 3D 4H 5S 7C 8D"),
    (6, 5, 5, "AC JC 10C 2C QH 9S"),
    (8, 4, 6, "JH 10D 9S 3C 6D AH"),
]


def mixed(players: int) -> list[str]:
    cycle = ["random", "heuristic:aggression=0.75,moon_trumps=4,moon_run=3", "random",
             "heuristic:aggression=-0.5", "heuristic:moon_trumps=5,moon_run=2,aggression=1.5"]
    return [cycle[s % len(cycle)] for s in range(players)]


def calls_of(log) -> list[int]:
    return [b.seat * 16 + b.level for b in log.auction]


def reference_plans(rules, policies, cards, seat, dealer, plan, seed, count):
    """The reference's deals as (records frame, calls, plays) shaped like trace_plans'."""
    calls = np.full((count, K.MAX_CALLS), -1, np.int64)
    plays = np.full((count, 48), -1, np.int64)
    rows = []
    for j in range(count):
        log = R.plan_hand(rules, policies, seed, j, dealer, cards, seat, plan)
        calls[j, :len(log.auction)] = calls_of(log)
        if log.plays:
            plays[j, :len(log.plays)] = [p.card for p in log.plays]
        rows.append({"hand": j, **log.record()})
    return pd.DataFrame(rows), calls, plays


def kernel_plans(rules, policies, hand, seat, dealer, plan, seed, count):
    tr = api.trace_plans(rules, policies, hand, plan, seat, dealer, seed, count)
    frame = tr["frame"].drop(columns=[c for c in tr["frame"] if c.startswith("policy_")])
    frame["trump"] = frame["trump"].astype(str)
    return frame, tr["calls"].astype(np.int64), tr["plays"].astype(np.int64)


def assert_same_plans(rules, policies, hand, seat, dealer, plan, seed=SEED, count=DEALS):
    cards = DECK.parse_hand(hand)
    kern, kcalls, kplays = kernel_plans(rules, policies, hand, seat, dealer, plan, seed, count)
    ref, rcalls, rplays = reference_plans(rules, policies, cards, seat, dealer, plan, seed, count)
    assert list(kern.columns) == list(ref.columns)
    bad = (kcalls != rcalls).any(axis=1) | (kplays != rplays).any(axis=1)
    for col in kern.columns:
        bad |= kern[col].to_numpy() != ref[col].to_numpy()
    if bad.any():
        j = int(np.argmax(bad))
        log = R.plan_hand(rules, policies, seed, j, dealer, cards, seat, plan)
        diff = [f"{c}: kernel {kern[c].iloc[j]} reference {ref[c].iloc[j]}"
                for c in kern.columns if kern[c].iloc[j] != ref[c].iloc[j]]
        pytest.fail(f"{int(bad.sum())} of {count} deals differ; first: sample {j}, plan {plan}, "
                    f"seat {seat}, dealer {dealer}, rules {rules.as_dict()}\n" + "\n".join(diff)
                    + f"\ncalls: kernel {[int(c) for c in kcalls[j] if c >= 0]} "
                    f"reference {calls_of(log)}\n--- reference ---\n" + "\n".join(body(log)))
    return kern, kcalls


@pytest.mark.parametrize(("plan", "rule_set"), [
    # the quick tier plays every eighth case (marked slow otherwise), the full suite all
    pytest.param(plan, rule_set, id=f"{plan}-{rule_set}",
                 marks=() if i % 8 == 0 else pytest.mark.slow)
    for i, (plan, rule_set) in enumerate(itertools.product(PLANS, RULE_SETS))])
def test_plans_agree(plan, rule_set):
    """Every plan under every rule set, on a table of each size in TABLES (mixed
    random/heuristic tables and all-heuristic tables in turn)."""
    for k, (players, seat, dealer, hand) in enumerate(TABLES):
        rules = make_rules(overrides=RULE_SETS[rule_set], players=players)
        specs = mixed(players) if k % 2 == 0 else "heuristic:aggression=0.5,moon_run=3"
        assert_same_plans(rules, make_policies(specs, players), hand, seat, dealer, plan,
                          seed=SEED + k)


def test_plan_cases_are_reached():
    """The differential cases reach what they are meant to check: the plan seat
    stealing, speaking twice in the open auction, stuck, and winning the bid."""
    rules = make_rules("open-auction", players=4)
    pols = make_policies(mixed(4), 4)
    frame, calls = assert_same_plans(rules, pols, "KD QD 3D 10C 5H 7S", 3, 3, 3, count=400)
    seat_calls = (calls >= 0) & (calls // 16 == 3)
    assert (seat_calls.sum(axis=1) >= 2).any()                      # a second turn
    assert (frame["pitcher"] == 3).any()
    assert (frame["pitcher"] != 3).any()
    steals = [j for j in range(400) for i in range(1, K.MAX_CALLS)
              if calls[j, i] >= 0 and calls[j, i] // 16 == 3 and calls[j, i] % 16 > 0
              and calls[j, i] % 16 == max((c % 16 for c in calls[j, :i] if c >= 0), default=0)]
    assert steals
    # the plan seat as a stuck dealer (two players: the other seat often passes)
    frame, _ = assert_same_plans(make_rules("stuck-any", players=2), make_policies(mixed(2), 2),
                                 "KD QD 3D 10C 5H 7S", 1, 1, 4, count=200)
    assert (frame["stuck"] & (frame["contract"] == 4)).any()


# --- forced answers -------------------------------------------------------------------

@pytest.mark.parametrize(("preset", "policy"), [  # quick tier: the first; full: all
    c if i == 0 else pytest.param(*c, marks=pytest.mark.slow)
    for i, c in enumerate(itertools.product(["seed", "open-auction", "steal-outbid"],
                                            ["untuned", "random"]))])
def test_stuck_dealer_bids_exactly_two(preset, policy):
    """seeds/pitch.md 2: under the default stuck_bid = two a stuck dealer's contract
    is 2, whatever its policy wants; under stuck-any a random one bids higher too.
    Kernel: every seat bidding by its policy (the plan ``policy``) around a weak
    hand held at seat 0; reference: ordinary hands.  (The untuned heuristic: the
    tuned one bids more heads-up, so this dealer is never stuck.)"""
    for players in (2, 3):
        dealer = players - 1
        df = api.plan_hands("2C 3D 4H 5S 7C 8D", "policy", 3_000, players=players, seat=0,
                            dealer=dealer, rules=preset, policy=policy, seed=SEED)
        stuck = df[df["stuck"]]
        assert len(stuck) > 50
        assert (stuck["contract"] == 2).all()
        assert (stuck["pitcher"] == dealer).all()
        assert (stuck[f"bid_{dealer}"] == 2).all()
        rules = make_rules(preset, players=players)
        # (the classic heuristic: the new one bids on more hands, so fewer are stuck)
        from simkit.pitch.policies import NAMED
        pols = make_policies(NAMED["classic"] if policy == "untuned" else policy, players)
        logs = [R.play_hand(rules, pols, SEED, j, j % players) for j in range(300)]
        stuck = [log for log in logs if log.stuck]
        assert len(stuck) > 5
        assert all(log.contract == 2 and log.pitcher == log.dealer for log in stuck)
    anyb = api.plan_hands("2C 3D 4H 5S 7C 8D", "policy", 3_000, players=3, seat=0, dealer=2,
                          rules=make_rules(preset).replace(stuck_bid="any"), policy="random",
                          seed=SEED)
    assert (anyb.loc[anyb["stuck"], "contract"] > 2).any()


@pytest.mark.parametrize("rules", [{}, {"auction": "open"}, {"stuck_bid": "any"},
                                   {"auction": "open", "stuck_bid": "any", "steal": "outbid"}])
@pytest.mark.parametrize("players", [2, 5])
def test_pass_as_dealer_against_a_table_that_never_bids(rules, players):
    """8.4: the advised seat is the dealer, nobody else ever bids, and the plan
    pass makes it bid exactly 2 (forced), and throws every deal in (redeal)."""
    dealer = players - 1
    common = {"players": players, "seat": dealer, "dealer": dealer, "policy": NEVER, "seed": SEED}
    df = api.plan_hands("AS KS QS JS 10S 9S", "pass", 500, rules=rules, **common)
    assert (df["contract"] == 2).all()
    assert (df["pitcher"] == dealer).all()
    assert df["stuck"].all()
    assert (df[f"bid_{dealer}"] == 2).all()
    assert (df[[f"bid_{s}" for s in range(players - 1)]] == 0).all().all()
    redeal = api.plan_hands("AS KS QS JS 10S 9S", "pass", 500, rules={**rules,
                            "all_pass": "redeal"}, **common)
    assert (redeal["pitcher"] == -1).all()
    assert (redeal["contract"] == 0).all()
    assert (redeal[[f"score_{s}" for s in range(players)]] == 0).all().all()
    assert (redeal[[f"money_{s}" for s in range(players)]] == 0).all().all()
    assert not redeal["stuck"].any()
    assert (redeal["trump"] == "-").all()
    # the other plans against the same table: a ceiling L bids L in one lap
    # (2 when stuck under two, or in the open auction), the moon the moon (2
    # when stuck under two)
    r = make_rules(overrides=rules, players=players)
    for plan in ("2", "3", "4", "moon"):
        df = api.plan_hands("AS KS QS JS 10S 9S", plan, 200, rules=rules, **common)
        level = 5 if plan == "moon" else int(plan)
        if r.stuck_bid == StuckBid.TWO:
            want = 2
        elif plan == "moon" or r.auction == Auction.ONE_LAP:
            want = level
        else:
            want = 2
        assert (df["contract"] == want).all(), plan
        assert (df["pitcher"] == dealer).all(), plan
        thrown = api.plan_hands("AS KS QS JS 10S 9S", plan, 200, rules={**rules,
                                "all_pass": "redeal"}, **common)
        want = level if plan == "moon" or r.auction == Auction.ONE_LAP else 2
        assert (thrown["contract"] == want).all(), plan
        assert not thrown["stuck"].any(), plan


# --- identity with the policy plan ---------------------------------------------------

@pytest.mark.parametrize("rule_set", ["seed", "open", "open-stuck-any-outbid",
                                      "lap-redeal-outbid"])
def test_plan_equals_policy_where_they_call_the_same(rule_set):
    """On every deal where the seat's own (heuristic) policy makes exactly the
    calls a plan makes, the hand is the same to the last column; the plans
    do differ from the policy on other deals."""
    players, seat, dealer, hand = 4, 2, 1, "KD QD 3D 10C 5H 7S"
    rules = make_rules(overrides=RULE_SETS[rule_set], players=players)
    specs = mixed(players)
    from simkit.pitch.policies import NAMED
    specs[seat] = NAMED["classic"] + ",aggression=0.75"      # calls that vary with the deal
    pols = make_policies(specs, players)
    n = 600
    base, bcalls, bplays = kernel_plans(rules, pols, hand, seat, dealer, PLAN_POLICY, SEED, n)

    def own(calls):
        """The seat's own calls on each deal."""
        return [[int(x) for x in row if x >= 0 and x // 16 == seat] for row in calls]

    same_somewhere = differ_somewhere = False
    for plan in PLAN_CODES:
        df, calls, plays = kernel_plans(rules, pols, hand, seat, dealer, plan, SEED, n)
        same = np.array([a == b for a, b in zip(own(calls), own(bcalls))])
        assert (calls[same] == bcalls[same]).all()
        assert (plays[same] == bplays[same]).all()
        for col in df.columns:
            assert (df[col].to_numpy()[same] == base[col].to_numpy()[same]).all(), (plan, col)
        same_somewhere |= same.any()
        differ_somewhere |= (~same).any()
    assert same_somewhere
    assert differ_somewhere


def test_plan_seat_never_draws():
    """8.4: a seat held to a plan makes no random draw for its calls, even with
    the random policy; its plays still draw."""
    rules = make_rules("open-auction", players=4)
    pols = make_policies("random", 4)
    cards = DECK.parse_hand("AH 10H 4H KC 2S 9D")

    class Counting(Stream):
        draws = 0

        def below(self, n):
            self.draws += 1
            return super().below(n)

    for plan in PLAN_CODES:
        for j in range(40):
            stream = Counting(SEED, j)
            hands = R.deal_fixed(stream, 4, 3, 1, cards)
            stream.draws = 0
            log = R.play_from(hands, 3, rules, pols, stream, seat=1, plan=plan)
            others = sum(1 for b in log.auction if b.seat != 1)
            assert stream.draws == others + len(log.plays)
            assert log == R.plan_hand(rules, pols, SEED, j, 3, cards, 1, plan)


# --- the API ---------------------------------------------------------------------------

def test_plan_hands_is_the_one_mechanism_of_a_pass():
    """fixed_hands' pass (what evaluate_hand plays for pass) is the plan pass."""
    kw = {"players": 5, "seat": 2, "dealer": 4, "policy": mixed(5), "seed": SEED}
    a = api.plan_hands("AH 10H 4H KC 2S 9D", "pass", 300, **kw)
    b = api.fixed_hands("AH 10H 4H KC 2S 9D", "pass", 300, **kw)
    pd.testing.assert_frame_equal(a, b)
    c = api.plan_hands("AH 10H 4H KC 2S 9D", 0, 300, **kw)
    pd.testing.assert_frame_equal(a, c)
    record = R.plan_hand(make_rules(players=5), make_policies(mixed(5), 5), SEED, 0, 4,
                         DECK.parse_hand("AH 10H 4H KC 2S 9D"), 2, PLAN_PASS).record()
    assert [c for c in a.columns if not c.startswith("policy_")] == ["hand", *record]
    assert [c for c in a.columns if c.startswith("policy_")] == [f"policy_{s}" for s in range(5)]
    ev = api.evaluate_hand("AH 10H 4H KC 2S 9D", samples=300, **kw)
    row = ev.bids.set_index("bid").loc["pass"]
    assert row["points"] == pytest.approx(a["score_2"].mean())
    assert row["pitched"] == pytest.approx((a["pitcher"] == 2).mean())


def test_parse_plan_and_names():
    rules = make_rules()
    assert api.plan_names(rules) == ["pass", "2", "3", "4", "moon"] == list(PLAN_NAMES)
    assert [api.parse_plan(rules, p) for p in ("policy", "pass", "2", "3", "4", "moon")] \
        == [PLAN_POLICY, PLAN_PASS, 2, 3, 4, PLAN_MOON]
    assert [api.parse_plan(rules, p) for p in (-1, 0, 2, 3, 4, 5, np.int64(4))] \
        == [-1, 0, 2, 3, 4, 5, 4]
    assert api.parse_plan(rules, " Moon ") == 5
    for bad in ("6", "five", "", "1", 1, 6, -2, True, 2.0, None, "ceiling"):
        with pytest.raises(InputError) as e:
            api.parse_plan(rules, bad)
        msg = str(e.value)
        assert "\n" not in msg, msg
        assert repr(bad) in msg, msg
        assert "policy, pass, 2, 3, 4, moon" in msg


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"plan": "sometimes"}, ["sometimes", "moon"]),
    ({"plan": 1}, ["1", "pass"]),
    ({"hand": "AS KS QS"}, ["6 cards", "3"]),
    ({"hand": "AS KS QS JS TS XX"}, ["XX"]),
    ({"seat": 4}, ["seat", "4"]),
    ({"dealer": -1}, ["dealer", "-1"]),
    ({"players": 9}, ["9", "2 to 8"]),
    ({"samples": 0}, ["samples"]),
    ({"rules": {"auction": "laps"}}, ["laps", "auction"]),
    ({"rules": {"stuck_bid": "three"}}, ["three", "stuck_bid"]),
])
def test_plan_hands_rejects_bad_input(kwargs, words):
    args = {"hand": "AS KS QS JS TS 9S", "plan": "pass", "samples": 100}
    args.update(kwargs)
    with pytest.raises(InputError) as e:
        api.plan_hands(**args)
    for w in words:
        assert w in str(e.value)
