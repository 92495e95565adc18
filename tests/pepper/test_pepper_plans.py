"""Bidding plans (seeds/pepper.md 9.3): one seat held to a plan through the
whole auction, every other seat bidding by its policy.

Differential: the kernel (``api.trace_plan`` / ``api.plan_hands``, kernel
``run_plan``) against the reference (``reference.plan_hand``) on the deal,
every auction call, every card played and every record column, for every
plan (``policy`` included), every player count, every auction variant and
both ``all_pass`` rules, at tables mixing random and heuristic seats with
non-default parameters.  Then answers the rule book forces (a Kubwa plan
with the top six hearts, a pass plan at a table that never bids), two
identities (a plan that calls what the policy calls changes nothing; a
Kubwa plan opening the auction is the fixed-hand Kubwa of 9.1), the plans on
simulate's deals (``api.plan_deals``, the Kubwa study's), and the parsing of
plan names.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simkit.base.errors import InputError
from simkit.pepper import kernel_columns as KC
from simkit.pepper import record as PR
from simkit.pepper import reference as R
from simkit.pepper.api import (
    fixed_hands,
    parse_plan,
    plan_deals,
    plan_hands,
    plan_names,
    simulate,
    trace_plan,
)
from simkit.pepper.policies import make_policies
from simkit.pepper.rules import DECK, PLAN_PASS, PLAN_POLICY, TRUMP_TEXT, Auction, make_rules

SEED = 0x91A7
DEALS = 240                      # per (table, plan): 186 cases, about 45,000 deals

PLAYERS = (2, 3, 4)
AUCTIONS = ("open", "one_lap", "reentry")
ALL_PASS = ("redeal", "stick")

#: Policy tables, cut to the player count: random seats beside heuristics with
#: non-default parameters, so that both kinds sit at the plan seat and around it.
MIXED = ["random", "heuristic:aggression=0.5,partner_help=0.25", "random",
         "heuristic:kubwa_margin=1,draw_trumps=false,aggression=-0.75"]
TUNED = ["heuristic:aggression=1", "random", "heuristic:partner_help=0.25,kubwa_margin=2",
         "heuristic:draw_trumps=false"]

#: Fixed hands by player count: strong, weak, mixed.
HANDS = {
    4: ["JH JD AH KH 9S 10C", "9C 9D 9H 9S 10C 10D", "AC KC 9D JS QH 10H"],
    3: ["9D JD QD AD KH AH KS AS", "9C 9D 9H 9S 10C 10D 10H 10S", "AC KC QC 9D JS QH 10H AD"],
    2: ["10C JC QC KC JH KH AH AS", "9C 9D 9H 9S 10C 10D 10H 10S", "JC 10C AD 9H KH QS 9S AS"],
}

#: Scoring and trump variants, rotated over the tables.
EXTRA = [{}, {"fail": "bid"}, {"no_trump": False}, {"ndogo_stake": 2, "kubwa_stake": 3}]

TABLES = [(p, a, ap) for p in PLAYERS for a in AUCTIONS for ap in ALL_PASS]


def table(players: int, auction: str, all_pass: str) -> dict:
    """One table's rules, policies, fixed hand, plan seat and dealer (varied over
    the tables so that the plan seat is random at some and heuristic at others)."""
    i = TABLES.index((players, auction, all_pass))
    rules = make_rules(overrides={"auction": auction, "all_pass": all_pass,
                                  **EXTRA[i % len(EXTRA)]}, players=players)
    specs = (MIXED if i % 2 == 0 else TUNED)[:players]
    return {"rules": rules, "specs": specs, "pols": make_policies(specs, players),
            "hand": HANDS[players][i % 3], "seat": i % players,
            "dealer": (i // 2 + 1) % players}


def plan_cases() -> list:
    """Every table and plan; the quick tier plays every eighth case (marked slow
    otherwise), the full suite all of them."""
    cases = [(players, auction, all_pass, name)
             for players, auction, all_pass in TABLES
             for name in ["policy", *plan_names(make_rules(players=players))]]
    return [pytest.param(*case, id="{}p-{}-{}-{}".format(*case),
                         marks=() if i % 8 == 0 else pytest.mark.slow)
            for i, case in enumerate(cases)]


# --- the comparison ------------------------------------------------------------

def _mask(cards) -> int:
    return sum(1 << c for c in cards)


def record_names(rules) -> list[str]:
    P, S = rules.players, rules.sides
    return ["dealer", *(f"bid_{s}" for s in range(P)), "calls", "contract", "bidder", "stuck",
            "trump", *(f"tricks_{s}" for s in range(P)), *(f"side_tricks_{s}" for s in range(S)),
            *(f"score_{s}" for s in range(S)), "made", "bidder_trumps", "bidder_bowers",
            "bidder_aces", "bidder_voids"]


def record_row(log) -> tuple:
    """A reference HandLog as the values of :func:`record_names`, in order."""
    return (log.dealer, *log.highest_bids(), log.calls, log.contract, log.bidder,
            int(log.stuck), log.trump, *log.tricks, *log.side_tricks, *log.score,
            int(log.made), *log.features())


def reference_arrays(rules, logs) -> dict:
    """The reference's hands shaped like ``trace_plan``'s arrays, and their records."""
    n = len(logs)
    deal = np.zeros((n, 4), np.int64)
    calls = np.full((n, KC.MAX_CALLS), -1, np.int64)
    plays = np.full((n, 32), -1, np.int64)
    for j, log in enumerate(logs):
        for s in range(rules.players):
            deal[j, s] = _mask(log.hands[s])
        if rules.players == 2:
            deal[j, 3] = _mask(log.dead)
        c = [b.seat * 16 + b.level for b in log.auction]
        calls[j, :len(c)] = c
        plays[j, :len(log.plays)] = [p.card for p in log.plays]
    return {"deal": deal, "calls": calls, "plays": plays,
            "rec": np.array([record_row(log) for log in logs], np.int64)}


def plan_columns(rules) -> list[int]:
    """The kernel record's columns in the order of :func:`record_names`."""
    P, S = rules.players, rules.sides
    return [KC.C_DEALER, *(KC.C_BID + s for s in range(P)), KC.C_CALLS, KC.C_CONTRACT,
            KC.C_BIDDER, KC.C_STUCK, KC.C_TRUMP, *(KC.C_TRICKS + s for s in range(P)),
            *(KC.C_SIDE_TRICKS + s for s in range(S)), *(KC.C_SCORE + s for s in range(S)),
            KC.C_MADE, KC.C_F_TRUMPS, KC.C_F_BOWERS, KC.C_F_ACES, KC.C_F_VOIDS]


def kernel_text(rules, tr: dict, j: int) -> str:
    """The kernel's deal j in words, for a failure message."""
    P = rules.players
    lines = [f"seat {s}: {DECK.format_hand(c for c in range(24) if tr['deal'][j, s] >> c & 1)}"
             for s in range(P)]
    calls = [int(v) for v in tr["calls"][j] if v >= 0]
    lines.append("auction: " + (" ".join(f"{v // 16}:{rules.bid_text(v % 16)}" for v in calls)
                                or "-"))
    t = int(tr["rec"][j, KC.C_TRUMP])
    lines.append(f"trump: {TRUMP_TEXT[t] if 0 <= t < 5 else '-'}")
    plays = [DECK.text(int(v)) for v in tr["plays"][j] if v >= 0]
    lines += [f"trick {k // P + 1}: " + " ".join(plays[k:k + P]) for k in range(0, len(plays), P)]
    return "\n".join(lines)


def assert_same(rules, kern: dict, ref: dict, logs, what: str) -> None:
    """Every array of ``kern`` equals ``ref``; else fail with the first differing deal."""
    bad = np.zeros(len(logs), bool)
    for key in kern:
        assert kern[key].shape == ref[key].shape, key
        bad |= (kern[key] != ref[key]).any(axis=1)
    if not bad.any():
        return
    j = int(np.argmax(bad))
    parts = [k for k in kern if (kern[k][j] != ref[k][j]).any()]
    names = record_names(rules)
    diff = [f"{n}: kernel {kern['rec'][j, i]} reference {ref['rec'][j, i]}"
            for i, n in enumerate(names) if kern["rec"][j, i] != ref["rec"][j, i]]
    trace = f"\n--- kernel ---\n{kernel_text(rules, kern, j)}" if "calls" in kern else ""
    pytest.fail(f"{int(bad.sum())} of {len(logs)} deals differ; first: sample {j} ({what})\n"
                f"differing: {', '.join(parts)}\n" + "\n".join(diff) + trace
                + "\n--- reference (record) ---\n" + "\n".join(PR.body(logs[j])))


def frame_records(df, rules) -> np.ndarray:
    names = record_names(rules)
    return np.column_stack([df[n].cat.codes if n == "trump" else df[n]
                            for n in names]).astype(np.int64)


def check_plan_calls(rules, logs, seat: int, plan: int) -> None:
    """The plan seat's calls, read from the reference logs, keep the rule's
    words (9.3), independently of :func:`reference.plan_bid`."""
    T, one_lap = rules.tricks, rules.auction == Auction.ONE_LAP
    for log in logs:
        high = 0
        for b in log.auction:
            if b.seat == seat and plan == PLAN_PASS:
                assert b.level == 0
            elif b.seat == seat and 1 <= plan < T:               # a ceiling
                assert b.level <= plan
                assert (b.level > 0) == (high < plan)
                assert b.level in (0, plan if one_lap else high + 1)
            elif b.seat == seat and plan >= T:                   # ndogo, kubwa
                assert b.level == (plan if high < plan else T + 1)
            high = max(high, b.level)


# --- reference against kernel -----------------------------------------------------

@pytest.mark.parametrize(("players", "auction", "all_pass", "name"), plan_cases())
def test_plans_agree(players, auction, all_pass, name):
    """Deal, calls, plays (trace_plan) and every record column (plan_hands)."""
    t = table(players, auction, all_pass)
    rules, pols, seat, dealer = t["rules"], t["pols"], t["seat"], t["dealer"]
    plan = parse_plan(rules, name)
    kw = {"rules": rules, "policy": pols, "seat": seat, "dealer": dealer, "seed": SEED,
          "threads": 1}
    tr = trace_plan(t["hand"], name, DEALS, **kw)
    df = plan_hands(t["hand"], name, DEALS, **kw)
    cards = DECK.parse_hand(t["hand"])
    logs = [R.plan_hand(rules, pols, SEED, k, cards, plan, seat=seat, dealer=dealer)
            for k in range(DEALS)]
    what = (f"plan {name} at seat {seat} ({t['specs'][seat]}), dealer {dealer}, "
            f"hand {t['hand']}, rules {rules.as_dict()}, policies {t['specs']}")
    names = record_names(rules)
    assert list(df.columns) == ["hand", "dealer", *(f"policy_{s}" for s in range(players)),
                                *names[1:]]
    assert (df["hand"] == np.arange(DEALS)).all()
    ref = reference_arrays(rules, logs)
    kern = {"deal": tr["deal"], "calls": tr["calls"], "plays": tr["plays"],
            "rec": tr["rec"][:, plan_columns(rules)].astype(np.int64)}
    assert_same(rules, kern, ref, logs, what)
    assert_same(rules, {"rec": frame_records(df, rules)}, {"rec": ref["rec"]}, logs,
                what + ", plan_hands")
    assert all(sorted(log.hands[seat]) == sorted(cards) for log in logs)
    check_plan_calls(rules, logs, seat, plan)
    # the plan keeps its bounds, and is exercised: the top ceiling, Ndogo and
    # Kubwa bid on some deals (a low ceiling may always be outbid first)
    bids = df[f"bid_{seat}"].to_numpy()
    if plan == PLAN_PASS:
        assert (bids == 0).all()
    elif 1 <= plan < rules.tricks:
        assert (bids <= plan).all()
        assert (plan < rules.tricks - 1 or (bids > 0).any())
    elif plan >= rules.tricks:
        assert (bids > 0).any()
        assert (bids[bids > 0] >= plan).all()


@pytest.mark.parametrize(("players", "auction"), [(4, "open"), (3, "one_lap"), (2, "reentry")])
@pytest.mark.parametrize("name", ["pass", "2", "ndogo", "kubwa", "policy"])
def test_plan_deals_agree(players, auction, name):
    """plan_deals (the Kubwa study's runs: simulate's deals, the first speaker on
    a plan) against reference.plan_deal, every record column; ``policy`` is the
    plain simulation."""
    rules = make_rules(overrides={"auction": auction}, players=players)
    pols = make_policies(MIXED[:players], players)
    df = plan_deals(300, name, rules=rules, policy=pols, seed=SEED, start=7, threads=1)
    logs = [R.plan_deal(rules, pols, SEED, 7 + k, parse_plan(rules, name)) for k in range(300)]
    ref = np.array([record_row(log) for log in logs], np.int64)
    assert_same(rules, {"rec": frame_records(df, rules)}, {"rec": ref}, logs,
                f"plan_deals {name}, {players} players, {auction}")
    if name == "policy":
        plain = simulate(300, rules=rules, policy=pols, seed=SEED, start=7, threads=1)
        pd.testing.assert_frame_equal(df, plain)
    seat = (df["dealer"] + 1) % players
    bids = df.to_numpy()[np.arange(300), df.columns.get_indexer([f"bid_{s}" for s in seat])]
    if name == "kubwa":
        assert (df["contract"] == rules.kubwa).all()
        assert (df["bidder"] == seat).all()
        assert (bids == rules.kubwa).all()
    if name == "pass":
        assert (bids == 0).all()


def test_comparison_catches_a_difference():
    """The comparison is live: the kernel's ceiling-3 plan is not the
    reference's ceiling-2 plan, though their deals are the same."""
    t = table(4, "open", "redeal")
    rules, pols = t["rules"], t["pols"]
    tr = trace_plan(t["hand"], "3", 200, rules=rules, policy=pols, seat=t["seat"],
                    dealer=t["dealer"], seed=SEED, threads=1)
    logs = [R.plan_hand(rules, pols, SEED, k, DECK.parse_hand(t["hand"]), 2, seat=t["seat"],
                        dealer=t["dealer"]) for k in range(200)]
    ref = reference_arrays(rules, logs)
    assert (tr["deal"] == ref["deal"]).all()
    assert (tr["calls"] != ref["calls"]).any()


def test_plan_hands_replay():
    """A plan hand is an ordinary hand: its log replays (every call and card legal
    and in turn, the results recomputed), and it does not depend on threads."""
    rules = make_rules(overrides={"auction": "reentry", "all_pass": "stick"}, players=4)
    pols = make_policies(MIXED, 4)
    cards = DECK.parse_hand(HANDS[4][2])
    for k in range(60):
        for plan in (PLAN_PASS, 3, rules.ndogo):
            log = R.plan_hand(rules, pols, SEED, k, cards, plan, seat=2, dealer=3)
            lines = PR.body(log)
            assert PR.body(PR.replay(lines, rules, None, 0, 0)) == lines
    kw = {"rules": rules, "policy": pols, "seat": 2, "dealer": 3, "seed": SEED}
    one = plan_hands(HANDS[4][2], "2", 10_000, threads=1, **kw)
    two = plan_hands(HANDS[4][2], "2", 10_000, threads=2, **kw)
    assert one.equals(two)


# --- forced answers ---------------------------------------------------------------

TOP_HEARTS = "JH JD AH KH QH 10H"


@pytest.mark.parametrize("auction", AUCTIONS)
@pytest.mark.parametrize("own", ["heuristic", "heuristic:draw_trumps=false,aggression=-3"])
def test_kubwa_plan_with_the_top_six_hearts(auction, own):
    """The seat left of the dealer speaks first, so a Kubwa plan is the first
    call and ends the auction (3.1); the seat then holds every trump but the
    nine of hearts above it, names hearts (7.2, highest ``sure``) and takes
    all six tricks, whatever the others hold or play."""
    rules = make_rules(overrides={"auction": auction, "all_pass": "stick"}, players=4)
    for dealer in (0, 3):
        seat = (dealer + 1) % 4
        specs = list(MIXED)
        specs[seat] = own
        df = plan_hands(TOP_HEARTS, "kubwa", 500, rules=rules, policy=specs, dealer=dealer,
                        seed=SEED, threads=1)
        assert (df["calls"] == 1).all()
        assert (df[f"bid_{seat}"] == rules.kubwa).all()
        assert (df["contract"] == rules.kubwa).all()
        assert (df["bidder"] == seat).all()
        assert (df["trump"] == "H").all()
        assert df["made"].all()
        assert (df[f"tricks_{seat}"] == 6).all()
        assert (df[f"score_{seat % 2}"] == 2 * 6).all()
        assert (df[f"score_{1 - seat % 2}"] == 0).all()


#: The plan seat holds every ace and a jack of each colour: no other hand has an
#: ace (no run from the top of a side suit or at no trump), nor the right bower
#: of clubs or diamonds, nor both bowers of spades or hearts, so its ``sure`` is
#: at most 1 (7.2); and its ``est`` stays under 600, which ``aggression = -6``
#: turns into a desired level of 0.  So every other seat passes at every turn.
NO_BIDS = {4: "AC AD AH AS JC JD", 3: "AC AD AH AS JC JD 9H 9S", 2: "AC AD AH AS JC JD 9H 9S"}
SILENT = "heuristic:aggression=-6,kubwa_margin=0"


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("auction", AUCTIONS)
def test_pass_plan_at_a_silent_table(players, auction):
    """Nobody bids: with ``all_pass = redeal`` the hand is thrown in (contract
    0, every score 0); with ``stick`` the plan seat, as the dealer, is stuck
    with 1 (3.2), and plays it."""
    rules = make_rules(overrides={"auction": auction}, players=players)
    n = 400
    kw = {"rules": rules, "policy": SILENT, "seed": SEED, "threads": 1}
    tr = trace_plan(NO_BIDS[players], "pass", n, **kw)
    calls = tr["calls"][:, :players]
    assert (calls % 16 == 0).all()
    assert (tr["calls"][:, players:] == -1).all()
    df = plan_hands(NO_BIDS[players], "pass", n, **kw)
    assert ((df["contract"] == 0).all())
    assert ((df["bidder"] == -1).all())
    assert ((df["calls"] == players).all())
    assert not df["stuck"].any()
    assert df["trump"].isna().all()
    for s in range(rules.sides):
        assert (df[f"score_{s}"] == 0).all()
    stick = rules.replace(all_pass="stick")
    for dealer in range(players):
        df = plan_hands(NO_BIDS[players], "pass", n, rules=stick, policy=SILENT, seat=dealer,
                        dealer=dealer, seed=SEED, threads=1)
        assert (df["contract"] == 1).all()
        assert (df["bidder"] == dealer).all()
        assert df["stuck"].all()
        assert (df["calls"] == players).all()
        assert (df[[f"bid_{s}" for s in range(players)]] == 0).all().all()
        if players == 4:    # it names clubs (7.2: C and D tie) and leads the right bower
            assert df["made"].all()
            assert (df["trump"] == "C").all()


# --- identities -----------------------------------------------------------------

@pytest.mark.parametrize(("players", "auction"), [(4, "open"), (4, "reentry"), (3, "one_lap"),
                                              (2, "open")])
def test_a_plan_calling_what_the_policy_calls_changes_nothing(players, auction):
    """On each deal where the plan's calls are exactly the heuristic plan seat's
    own calls, the record and the play are those of the ``policy`` plan; where
    they differ, the auctions first part at a call of the plan seat (the other
    seats, random ones included, are undisturbed until then).  The three fixed
    hands give the plan seat desired levels (7.2) from 1 to 6; it deals, so it
    speaks last in the first lap."""
    rules = make_rules(overrides={"auction": auction, "all_pass": "stick"}, players=players)
    specs = ["heuristic:aggression=0.5", "random", "heuristic", "random"][:players]
    seat, n = 0, 400
    kw = {"rules": rules, "policy": specs, "seat": seat, "dealer": seat, "seed": SEED, "threads": 1}
    same_total = differ_total = 0
    for hand in HANDS[players]:
        base = trace_plan(hand, "policy", n, **kw)
        for name in plan_names(rules):
            tr = trace_plan(hand, name, n, **kw)
            same = (tr["calls"] == base["calls"]).all(axis=1)
            assert (tr["deal"] == base["deal"]).all()
            for key in ("rec", "plays"):
                assert (tr[key][same] == base[key][same]).all(), (hand, name, key)
            for j in np.flatnonzero(~same):
                k = int(np.argmax(tr["calls"][j] != base["calls"][j]))
                first = base["calls"][j, k] if base["calls"][j, k] >= 0 else tr["calls"][j, k]
                assert first // 16 == seat, (hand, name, j, tr["calls"][j], base["calls"][j])
            same_total += same.sum()
            differ_total += (~same).sum()
    assert same_total >= 500, (same_total, differ_total)
    assert differ_total >= 500, (same_total, differ_total)


@pytest.mark.parametrize(("players", "specs"), [(4, MIXED), (3, ["random", "heuristic", "random"]),
                                            (2, ["random", "random"])])
def test_opening_kubwa_plan_is_the_fixed_hand_kubwa(players, specs):
    """The seat left of the dealer opens, so a Kubwa plan is one call that draws
    nothing: every draw after the deal (a random seat's trump and cards) and
    so the whole play and score are those of the fixed-hand Kubwa contract of
    9.1 on the same deal (fixed_hands, sample k from the same stream)."""
    rules = make_rules(players=players)
    n = 2_000
    kw = {"rules": rules, "policy": specs, "dealer": 1, "seed": SEED, "threads": 1}
    plan = plan_hands(HANDS[players][2], "kubwa", n, **kw)
    fixed = fixed_hands(HANDS[players][2], "kubwa", n, **kw)
    seat = 2 % players
    assert (plan["calls"] == 1).all()
    assert (plan[f"bid_{seat}"] == rules.kubwa).all()
    auction = ["calls", *(f"bid_{s}" for s in range(players))]
    pd.testing.assert_frame_equal(plan.drop(columns=auction), fixed.drop(columns=auction))


# --- plan names -----------------------------------------------------------------

def test_plan_names_and_codes():
    r4, r3 = make_rules(players=4), make_rules(players=3)
    assert plan_names(r4) == ["pass", "1", "2", "3", "4", "5", "ndogo", "kubwa"]
    assert plan_names(r3) == ["pass", *"1234567", "ndogo", "kubwa"]
    assert plan_names(None) == plan_names(r4)
    assert [parse_plan(r4, n) for n in plan_names(r4)] == list(range(8))
    assert [parse_plan(r3, n) for n in plan_names(r3)] == list(range(10))
    assert parse_plan(r4, "policy") == PLAN_POLICY == -1
    assert PLAN_PASS == 0
    assert parse_plan(r4, " KuBwa ") == 7
    assert parse_plan(r3, "NDOGO") == 8
    assert parse_plan(r4, "Pass") == 0
    assert parse_plan(r4, "POLICY") == -1
    assert [parse_plan(r4, v) for v in (-1, 0, 3, 6, 7, np.int64(5))] == [-1, 0, 3, 6, 7, 5]


@pytest.mark.parametrize(("players", "plan"), [(4, "9"), (4, "6"), (4, "0"), (4, 8), (4, -2),
                                           (4, True), (4, 2.0), (4, None), (4, "ndogo kubwa"),
                                           (3, "8"), (2, "double"), (3, "")])
def test_bad_plans(players, plan):
    rules = make_rules(players=players)
    with pytest.raises(InputError) as e:
        parse_plan(rules, plan)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"bad plan {plan!r}: expected pass, "
                                              f"1 to {rules.tricks - 1}, ndogo, kubwa or policy")
    with pytest.raises(InputError):
        plan_hands(HANDS[players][0], plan, 10, rules=rules)


def test_bad_plan_message_names_the_value():
    with pytest.raises(InputError, match=r"^bad plan '9': expected pass, 1 to 5, ndogo, kubwa "
                                         r"or policy$"):
        parse_plan(make_rules(players=4), "9")


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"samples": 0}, "--samples"), ({"seat": 4}, "seat"), ({"dealer": -1}, "dealer"),
    ({"hand": "JH JD AH"}, "6 cards"), ({"hand": "JH JD AH KH QH QH"}, "duplicate")])
def test_plan_hands_checks_its_arguments(kwargs, words):
    args = {"hand": TOP_HEARTS, "plan": "3", "samples": 10, **kwargs}
    with pytest.raises(InputError, match=words):
        plan_hands(args.pop("hand"), args.pop("plan"), args.pop("samples"), players=4, **args)


def test_reference_plan_checks():
    rules = make_rules(players=4)
    pols = make_policies("heuristic", 4)
    cards = DECK.parse_hand(TOP_HEARTS)
    for bad in (-2, 8):
        with pytest.raises(InputError, match="bad plan"):
            R.plan_hand(rules, pols, 0, 0, cards, bad)
    with pytest.raises(InputError):
        R.plan_bid(rules, PLAN_POLICY, 0)
    # the rule's words, at a few high bids
    assert [R.plan_bid(rules, 3, h) for h in range(8)] == [1, 2, 3, 0, 0, 0, 0, 0]
    assert [R.plan_bid(rules, 6, h) for h in range(7)] == [6, 6, 6, 6, 6, 6, 7]
    assert [R.plan_bid(rules, 7, h) for h in range(7)] == [7] * 7
    one_lap = make_rules(overrides={"auction": "one_lap"}, players=4)
    assert [R.plan_bid(one_lap, 3, h) for h in range(8)] == [3, 3, 3, 0, 0, 0, 0, 0]
