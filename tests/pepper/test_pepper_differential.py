"""Differential tests: the numba kernel (simkit/pepper/kernel.py) against the
readable reference engine (simkit/pepper/reference.py).

The two engines share no code; seeds/pepper.md fixes every decision, including
the order of random draws, so they must agree exactly: the deal, every auction
call, every card played, and every column of the hand record, for every player
count and every preset that changes a single hand; the outcome of whole
games; and the hands played without an auction (seeds/pepper.md section 9:
``api.fixed_hands`` around a fixed hand, ``api.declare_hands`` with a declared
contract), every record column on 10,000 deals or more per player count and
mode.  A mismatch reports the first differing hand with both versions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simkit.pepper import kernel_columns as KC
from simkit.pepper import record as PR
from simkit.pepper import reference as R
from simkit.pepper.api import declare_hands, fixed_hands, simulate, simulate_games, trace_hands
from simkit.pepper.policies import NAMED, make_policies
from simkit.pepper.rules import DECK, PRESETS, TRUMP_TEXT, make_rules

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

#: Run seeds.
SEED = 0x5EED_D1FF
OTHER_SEED = 2                  # seed_key(2) >= 2**63: keys of both signs
HANDS_PER_TABLE = 1_500        # per policy mix: 3,000 deals per (players, preset)
GAMES = 200

#: Presets that change a single hand (play-on-ties only changes when a game ends).
HAND_PRESETS = [p for p in PRESETS if p != "play-on-ties"]
PLAYERS = (2, 3, 4)



def mixed_specs(players: int) -> list[str]:
    """Random seats next to heuristic seats with non-default parameters (so the
    kernel's flattened parameters are exercised too)."""
    return ["random",
            "heuristic:aggression=0.5,partner_help=0.25",
            "random",
            "heuristic:kubwa_margin=1,draw_trumps=false,aggression=-0.75"][:players]


def record_columns(rules) -> list[tuple[str, int]]:
    """(name, kernel column) of every record field compared."""
    P, S = rules.players, rules.sides
    cols = [("dealer", KC.C_DEALER)]
    cols += [(f"bid_{s}", KC.C_BID + s) for s in range(P)]
    cols += [("calls", KC.C_CALLS), ("contract", KC.C_CONTRACT), ("bidder", KC.C_BIDDER),
             ("stuck", KC.C_STUCK), ("trump", KC.C_TRUMP)]
    cols += [(f"tricks_{s}", KC.C_TRICKS + s) for s in range(P)]
    cols += [(f"side_tricks_{s}", KC.C_SIDE_TRICKS + s) for s in range(S)]
    cols += [(f"score_{s}", KC.C_SCORE + s) for s in range(S)]
    cols += [("made", KC.C_MADE), ("bidder_trumps", KC.C_F_TRUMPS),
             ("bidder_bowers", KC.C_F_BOWERS), ("bidder_aces", KC.C_F_ACES),
             ("bidder_voids", KC.C_F_VOIDS)]
    return cols


def record_row(log) -> tuple:
    """A reference HandLog as the values of :func:`record_columns`, in order."""
    return (log.dealer, *log.highest_bids(), log.calls, log.contract, log.bidder,
            int(log.stuck), log.trump, *log.tricks, *log.side_tricks, *log.score,
            int(log.made), *log.features())


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def reference_arrays(rules, policies, seed: int, start: int, count: int):
    """The reference's hands as arrays shaped like trace_hands' output."""
    P = rules.players
    deal = np.zeros((count, 4), np.int64)
    calls = np.full((count, KC.MAX_CALLS), -1, np.int64)
    plays = np.full((count, 32), -1, np.int64)
    rows = []
    for j in range(count):
        log = R.simulate_hand(rules, policies, seed, start + j)
        d = deal[j]
        for s in range(P):
            d[s] = _mask(log.hands[s])
        if P == 2:
            d[3] = _mask(log.dead)
        c = [b.seat * 16 + b.level for b in log.auction][:KC.MAX_CALLS]
        calls[j, :len(c)] = c
        if log.plays:
            plays[j, :len(log.plays)] = [p.card for p in log.plays]
        rows.append(record_row(log))
    return {"deal": deal, "calls": calls, "plays": plays, "rec": np.array(rows, np.int64)}


def kernel_text(rules, tr: dict, j: int, cols) -> str:
    """The kernel's hand j in words, for a failure message."""
    P = rules.players
    deal = tr["deal"][j]
    lines = [f"dealer: {tr['rec'][j, KC.C_DEALER]}"]
    for s in range(P):
        lines.append(f"seat {s}: {DECK.format_hand(c for c in range(24) if deal[s] >> c & 1)}")
    if P == 2:
        lines.append(f"dead: {DECK.format_hand(c for c in range(24) if deal[3] >> c & 1)}")
    calls = [int(v) for v in tr["calls"][j] if v >= 0]
    lines.append("auction: " + (" ".join(f"{v // 16}:{rules.bid_text(v % 16)}" for v in calls)
                                or "-"))
    t = int(tr["rec"][j, KC.C_TRUMP])
    lines.append(f"trump: {TRUMP_TEXT[t] if 0 <= t < len(TRUMP_TEXT) else t}")
    plays = [int(v) for v in tr["plays"][j] if v >= 0]
    for k in range(0, len(plays), P):
        lines.append(f"trick {k // P + 1}: " + " ".join(DECK.text(c) for c in plays[k:k + P]))
    lines.append("record: " + " ".join(f"{name}={tr['rec'][j, c]}" for name, c in cols))
    return "\n".join(lines)


def assert_same_hands(rules, policies, seed: int, start: int, count: int) -> None:
    cols = record_columns(rules)
    tr = trace_hands(rules, policies, seed, start, count)
    kern = {"deal": tr["deal"], "calls": tr["calls"], "plays": tr["plays"],
            "rec": tr["rec"][:, [c for _, c in cols]].astype(np.int64)}
    ref = reference_arrays(rules, policies, seed, start, count)
    bad = np.zeros(count, bool)
    for key in kern:
        assert kern[key].shape == ref[key].shape, key
        bad |= (kern[key] != ref[key]).any(axis=1)
    if not bad.any():
        return
    j = int(np.argmax(bad))
    parts = [k for k in kern if (kern[k][j] != ref[k][j]).any()]
    diff = [f"{name}: kernel {kern['rec'][j, i]} reference {ref['rec'][j, i]}"
            for i, (name, _) in enumerate(cols) if kern["rec"][j, i] != ref["rec"][j, i]]
    log = R.simulate_hand(rules, policies, seed, start + j)
    pytest.fail(
        f"{int(bad.sum())} of {count} hands differ; first: hand {start + j} "
        f"(seed {seed}, players {rules.players}, rules {rules.as_dict()}, "
        f"policies {[p.text() for p in policies]})\n"
        f"differing parts: {', '.join(parts)}\n" + "\n".join(diff) +
        "\n--- kernel ---\n" + kernel_text(rules, tr, j, cols) +
        "\n--- reference (record) ---\n" + "\n".join(PR.body(log)))


@pytest.mark.parametrize("preset", HAND_PRESETS)
@pytest.mark.parametrize("players", PLAYERS)
def test_hands_agree(players, preset):
    rules = make_rules(preset, players=players)
    # the first HANDS_PER_TABLE indices: the heuristic at every seat
    assert_same_hands(rules, make_policies("heuristic", players), SEED, 0, HANDS_PER_TABLE)
    # the next ones: random seats among (parameterised) heuristic seats
    assert_same_hands(rules, make_policies(mixed_specs(players), players), SEED,
                      HANDS_PER_TABLE, HANDS_PER_TABLE)


CLASSIC_HANDS = 400


@pytest.mark.parametrize("players", PLAYERS)
def test_classic_and_single_fixes_agree(players):
    """The old heuristic (NAMED["classic"]) at every seat, and a table mixing the
    default, classic and each fix turned off, in the default rules."""
    rules = make_rules(players=players)
    assert_same_hands(rules, make_policies(NAMED["classic"], players), SEED, 0, CLASSIC_HANDS)
    assert_same_hands(rules, make_policies(FIXES[:players], players), OTHER_SEED, 0,
                      CLASSIC_HANDS)


@pytest.mark.parametrize("players", PLAYERS)
def test_kubwa_on_the_estimate_agrees(players):
    """``kubwa_est`` low enough to call Kubwa on strong hands that are not sure
    of every trick, under a higher stake."""
    rules = make_rules(overrides={"kubwa_stake": 3}, players=players)
    pols = make_policies("heuristic:kubwa_est=4.5", players)
    df = simulate(CLASSIC_HANDS, rules=rules, policy=pols, seed=SEED, threads=1)
    assert (df["contract"] == rules.kubwa).mean() > (
        simulate(CLASSIC_HANDS, rules=rules, seed=SEED, threads=1)["contract"]
        == rules.kubwa).mean()
    assert_same_hands(rules, pols, SEED, 0, CLASSIC_HANDS)


def test_comparison_catches_a_difference():
    """The comparison itself is live: a reference run under other rules must
    be reported (guards against comparing a thing with itself)."""
    rules = make_rules(players=4)
    other = make_rules("bid-penalty", players=4)
    pols = make_policies("random", 4)
    tr = trace_hands(rules, pols, SEED, 0, 200)
    ref = reference_arrays(other, pols, SEED, 0, 200)
    cols = record_columns(rules)
    assert (tr["deal"] == ref["deal"]).all()
    assert (tr["calls"] == ref["calls"]).all()
    assert (tr["rec"][:, [c for _, c in cols]] != ref["rec"]).any()
    # different seeds: different deals
    ref2 = reference_arrays(rules, pols, OTHER_SEED, 0, 50)
    assert (tr["deal"][:50] != ref2["deal"]).any(axis=1).all()


# --- whole games ----------------------------------------------------------

def assert_same_games(rules, specs, games: int, seed: int, scores=None,
                      first_dealer=None) -> None:
    pols = make_policies(specs, rules.players)
    df = simulate_games(games, rules=rules, policy=pols, seed=seed, threads=1, scores=scores,
                        first_dealer=first_dealer)
    assert list(df["game"]) == list(range(games))
    S = rules.sides
    names = ["first_dealer", "rounds", *(f"score_{s}" for s in range(S)), "winners",
             "unfinished", "lead_changes", "comeback", "settled"]
    kern = np.column_stack([df[n] for n in names]).astype(np.int64)
    ref = np.array([(g.first_dealer, g.rounds, *g.scores, g.winners, int(g.unfinished),
                     *g.drama)
                    for g in (R.play_game(rules, pols, seed, i, scores, first_dealer)
                              for i in range(games))],
                   np.int64)
    bad = (kern != ref).any(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        pytest.fail(f"{int(bad.sum())} of {games} games differ; first: game {i} "
                    f"(seed {seed}, rules {rules.as_dict()}, policies {specs})\n"
                    f"columns {names}\nkernel    {kern[i].tolist()}\nreference {ref[i].tolist()}")


@pytest.mark.parametrize("preset", ["seed", "stick-the-dealer", "play-on-ties"])
@pytest.mark.parametrize("players", PLAYERS)
def test_games_agree(players, preset):
    assert_same_games(make_rules(preset, players=players), "heuristic", GAMES, SEED)


@pytest.mark.parametrize("players", PLAYERS)
def test_mixed_games_agree(players):
    """Random seats, with a low target so that the games end quickly."""
    specs = [["random", "heuristic"], ["random", "heuristic", "random"],
             ["random", "heuristic", "random", "heuristic"]][players - 2]
    rules = make_rules("seed", overrides={"target": 15, "max_rounds": 200}, players=players)
    assert_same_games(rules, specs, GAMES, OTHER_SEED)


def test_unfinished_games_agree():
    """All-random tables rarely reach the target: a small max_rounds leaves
    games unfinished (no winner), which must also agree."""
    rules = make_rules("play-on-ties", overrides={"target": 15, "max_rounds": 12}, players=4)
    pols = make_policies("random", 4)
    df = simulate_games(60, rules=rules, policy=pols, seed=SEED, threads=1)
    assert df["unfinished"].any()
    assert not df["unfinished"].all()
    assert_same_games(rules, "random", 60, SEED)


def test_long_games_agree():
    """Games longer than the kernel's first history of tops (64 rounds,
    simkit.base.lead) grow it, and the shorter games after them in the block reuse
    the grown one."""
    capped = make_rules("seed", overrides={"target": 15, "max_rounds": 100}, players=4)
    df = simulate_games(40, rules=capped, policy="random", seed=SEED, threads=1)
    assert (df["rounds"] > 64).sum() >= 10
    assert (df["rounds"] <= 64).sum() >= 3
    assert_same_games(capped, "random", 40, SEED)
    # finished, so settled and comeback read the rounds past 64 too
    far = make_rules("seed", overrides={"target": 250}, players=3)
    df = simulate_games(30, rules=far, policy="heuristic", seed=SEED, threads=1)
    assert (df["rounds"] > 64).all()
    assert (df["settled"] > 64).sum() >= 5
    assert_same_games(far, "heuristic", 30, SEED)


@pytest.mark.parametrize(("players", "scores"), [(4, (24, 3)), (3, (-5, 20, 28)), (2, (29, 29))])
def test_games_from_a_score_in_progress_agree(players, scores):
    """Games started from given scores and a given first dealer (the advisor's
    and the Kubwa study's "win chance from here")."""
    rules = make_rules("seed", players=players)
    assert_same_games(rules, "heuristic", GAMES, SEED, scores=scores, first_dealer=players - 1)


def test_who_led_is_not_trivial():
    """The games of :func:`test_games_agree` see the lead change hands, comebacks,
    and winners settled at the start, late and in between: the comparisons of
    lead_changes, comeback and settled above are not of zeros."""
    for players in PLAYERS:
        df = simulate_games(GAMES, players=players, policy="heuristic", seed=SEED, threads=1)
        single = df["settled"] >= 0
        assert (df["lead_changes"] > 0).mean() > 0.2, players
        assert df["lead_changes"].max() >= 3, players
        assert 0 < df["comeback"].mean() < 0.5, players
        assert (df.loc[single, "settled"] == 0).any(), players
        assert (df.loc[single, "settled"] >= df.loc[single, "rounds"] // 2).any(), players
        assert df["settled"].nunique() >= 5, players


def _check_who_led(df) -> None:
    """What lead_changes, comeback and settled must satisfy in every game record."""
    rounds, settled = df["rounds"], df["settled"]
    single = df["winners"].map(lambda w: bin(w).count("1") == 1)
    assert ((df["lead_changes"] >= 0) & (df["lead_changes"] < rounds)).all()
    assert ((settled >= -1) & (settled <= rounds)).all()
    assert ((settled == -1) == ~single).all()
    # a comeback winner did not lead after round rounds // 2, so led for good only later
    assert (~df["comeback"] | (single & (settled >= rounds // 2))).all()


def test_who_led_is_consistent():
    """settled is at most the rounds played, and -1 exactly when there is not
    exactly one winner (unfinished games, shared wins); a comeback has a single
    winner, settled no earlier than the halfway point."""
    frames = [simulate_games(1_000, players=players, seed=SEED) for players in PLAYERS]
    capped = make_rules("play-on-ties", overrides={"target": 15, "max_rounds": 12}, players=4)
    frames.append(simulate_games(300, rules=capped, policy="random", seed=SEED))
    frames.append(simulate_games(300, players=2, seed=SEED, scores=(29, 29)))
    df = pd.concat(frames, ignore_index=True)
    assert df["unfinished"].any()
    assert (df["winners"] == 0b11).any()
    _check_who_led(df)


# --- hands without an auction (seeds/pepper.md section 9) -------------------
#
# Neither kernel entry point traces its plays, so every record column is
# compared: the tricks per seat pin down the play closely, the trump and the
# bidder's features the trump choice, the scores the contract.  For tables of
# heuristics, whose auction draws nothing, a declared hand is also played card
# for card like the traced auction hand of the same deal whenever that hand's
# auction was won by the seat left of the dealer with a contract of the same
# kind (a number, or Ndogo/Kubwa: the kind is all the trump choice looks at).

NO_AUCTION_DEALS = 2_000          # per case; five or more cases per player count and mode

#: Fixed hands, by player count: strong and weak, 6 cards for 4 players, 8 for 2 and 3.
#: The strong hands make Kubwa for an all-heuristic table on some deals only
#: (about 25%, 58% and 43%), so that their records depend on the deal; "top"
#: (section 7.2's example) takes every trick unless its declarer does not draw trumps.
FIXED_HANDS = {
    4: {"top": "JH JD AH KH QH AS", "strong": "JH JD AH KH 9S 10C",
        "weak": "9C 9D 9H 9S 10C 10D", "mixed": "AC KC 9D JS QH 10H",
        "sides": "AS KS QS AD KD 9C"},
    3: {"strong": "9D JD QD AD KH AH KS AS", "weak": "9C 9D 9H 9S 10C 10D 10H 10S",
        "mixed": "AC KC QC 9D JS QH 10H AD", "sides": "JD JH AD KD AC AS KS 9H"},
    2: {"strong": "10C JC QC KC JH KH AH AS", "weak": "9C 9D 9H 9S 10C 10D 10H 10S",
        "mixed": "JC 10C AD 9H KH QS 9S AS", "sides": "AC KC QC AD KD AH KH AS"},
}

#: Policy tables: ``mixed`` puts random seats at 0 and 2 and heuristics with
#: non-default parameters at 1 and 3 (see :func:`mixed_specs`).
TUNED = "heuristic:aggression=1.5,draw_trumps=false,partner_help=1"


def _specs(table: str, players: int):
    return {"heuristic": "heuristic", "random": "random", "tuned": TUNED,
            "mixed": mixed_specs(players), "classic": NAMED["classic"],
            "fixes": FIXES[:players]}[table]


#: One seat per fix turned back to its old value, next to the default and classic.
FIXES = ["heuristic:slam_play=simple", NAMED["classic"], "heuristic",
         "heuristic:cover_third=false,ndogo_lower=false"]


def _level(contract: str, players: int) -> int:
    return make_rules(players=players).parse_bid(contract)


# (players, hand, seat, dealer, contract, policy table, rule overrides, seed)
FIXED_CASES = [
    (4, "strong", 1, 0, "kubwa", "heuristic", {}, SEED),
    (4, "top", 3, 2, "ndogo", "mixed", {"ndogo_stake": 2}, OTHER_SEED),
    (4, "weak", 0, 0, "3", "mixed", {"fail": "bid"}, SEED),
    (4, "mixed", 2, 3, "5", "tuned", {"no_trump": False}, OTHER_SEED),
    (4, "sides", 1, 1, "kubwa", "random", {"kubwa_stake": 3, "fail": "bid"}, SEED),
    (4, "strong", 1, 0, "ndogo", "classic", {}, OTHER_SEED),
    (4, "strong", 3, 2, "ndogo", "fixes", {}, SEED),
    (3, "strong", 1, 0, "kubwa", "heuristic", {"kubwa_stake": 4}, SEED),
    (3, "weak", 2, 1, "1", "mixed", {"fail": "bid"}, OTHER_SEED),
    (3, "mixed", 1, 2, "4", "mixed", {"no_trump": False}, SEED),
    (3, "sides", 1, 1, "ndogo", "tuned", {"ndogo_stake": 3}, OTHER_SEED),
    (3, "mixed", 2, 0, "7", "random", {"fail": "bid"}, SEED),
    (2, "strong", 0, 1, "kubwa", "heuristic", {}, SEED),
    (2, "weak", 1, 1, "2", "mixed", {"fail": "bid"}, OTHER_SEED),
    (2, "mixed", 0, 0, "6", "mixed", {"no_trump": False}, SEED),
    (2, "sides", 1, 0, "ndogo", "tuned", {"ndogo_stake": 2, "no_trump": False}, OTHER_SEED),
    (2, "strong", 1, 1, "7", "random", {"fail": "bid", "kubwa_stake": 3}, SEED),
]

# (players, start, contract, policy table, rule overrides, seed)
DECLARE_CASES = [
    (4, 0, "1", "heuristic", {}, SEED),
    (4, 5_000, "3", "mixed", {"fail": "bid"}, OTHER_SEED),
    (4, 10**9, "5", "tuned", {"no_trump": False}, SEED),
    (4, 123, "ndogo", "heuristic", {"ndogo_stake": 2, "fail": "bid"}, OTHER_SEED),
    (4, 77_777, "kubwa", "random", {"kubwa_stake": 3}, SEED),
    (3, 0, "2", "heuristic", {"fail": "bid"}, SEED),
    (3, 5_000, "5", "mixed", {"no_trump": False}, OTHER_SEED),
    (3, 10**9, "7", "random", {"fail": "bid"}, SEED),
    (3, 123, "ndogo", "mixed", {"ndogo_stake": 3}, OTHER_SEED),
    (3, 77_777, "kubwa", "tuned", {"kubwa_stake": 4, "no_trump": False}, SEED),
    (2, 0, "4", "heuristic", {}, SEED),
    (2, 5_000, "1", "mixed", {"fail": "bid"}, OTHER_SEED),
    (2, 10**9, "6", "tuned", {"no_trump": False, "fail": "bid"}, SEED),
    (2, 123, "ndogo", "random", {"ndogo_stake": 2}, OTHER_SEED),
    (2, 77_777, "kubwa", "heuristic", {"kubwa_stake": 3}, SEED),
]


def _case_id(case) -> str:
    return "-".join(str(v) if not isinstance(v, dict) else
                    (",".join(f"{k}={w}" for k, w in v.items()) or "seed")
                    for v in case[:-1])


def assert_same_records(df, logs, rules, policies, first: int, what: str) -> None:
    """Every column of a kernel hand-record frame equals the reference's HandLogs."""
    cols = record_columns(rules)
    names = [name for name, _ in cols]
    policy_cols = [f"policy_{s}" for s in range(rules.players)]
    assert list(df.columns) == ["hand", *names[:1], *policy_cols, *names[1:]], \
        "the record has columns this comparison does not know"
    assert (df["hand"].to_numpy() == np.arange(first, first + len(logs))).all()
    for s, p in enumerate(policies):
        assert set(df[f"policy_{s}"].astype(str)) == {p.text()}
    kern = np.column_stack([df[n].cat.codes if n == "trump" else df[n]
                            for n in names]).astype(np.int64)
    ref = np.array([record_row(log) for log in logs], np.int64)
    assert kern.shape == ref.shape
    bad = (kern != ref).any(axis=1)
    if not bad.any():
        return
    j = int(np.argmax(bad))
    diff = [f"{name}: kernel {kern[j, i]} reference {ref[j, i]}"
            for i, name in enumerate(names) if kern[j, i] != ref[j, i]]
    pytest.fail(
        f"{int(bad.sum())} of {len(logs)} hands differ; first: row {j} ({what}, "
        f"rules {rules.as_dict()}, policies {[p.text() for p in policies]})\n"
        + "\n".join(diff)
        + "\n--- kernel record ---\n" + " ".join(f"{n}={v}" for n, v in zip(names, kern[j]))
        + "\n--- reference (record) ---\n" + "\n".join(PR.body(logs[j])))


@pytest.mark.parametrize("case", FIXED_CASES, ids=_case_id)
def test_fixed_hands_agree(case):
    """api.fixed_hands (kernel run_plan with a contract) against reference.fixed_hand (§9.1)."""
    players, hand, seat, dealer, contract, table, overrides, seed = case
    rules = make_rules(overrides=overrides, players=players)
    pols = make_policies(_specs(table, players), players)
    text = FIXED_HANDS[players][hand]
    level = rules.parse_bid(contract)
    df = fixed_hands(text, contract, NO_AUCTION_DEALS, rules=rules, policy=pols, seat=seat,
                     dealer=dealer, seed=seed, threads=1)
    cards = DECK.parse_hand(text)
    logs = [R.fixed_hand(rules, pols, seed, k, cards, level, seat=seat, dealer=dealer)
            for k in range(NO_AUCTION_DEALS)]
    assert all(sorted(log.hands[seat]) == sorted(cards) for log in logs)
    assert_same_records(df, logs, rules, pols, 0,
                        f"fixed hand {text} at seat {seat}, dealer {dealer}, "
                        f"contract {contract}, seed {seed}")


@pytest.mark.parametrize("case", DECLARE_CASES, ids=_case_id)
def test_declared_hands_agree(case):
    """api.declare_hands (kernel run_first with a contract) against
    reference.declare_hand (§9.2)."""
    players, start, contract, table, overrides, seed = case
    rules = make_rules(overrides=overrides, players=players)
    pols = make_policies(_specs(table, players), players)
    level = rules.parse_bid(contract)
    df = declare_hands(NO_AUCTION_DEALS, contract, rules=rules, policy=pols, seed=seed,
                       start=start, threads=1)
    logs = [R.declare_hand(rules, pols, seed, start + j, level)
            for j in range(NO_AUCTION_DEALS)]
    assert_same_records(df, logs, rules, pols, start,
                        f"declared {contract}, hands {start}.., seed {seed}")
    if any(p.name == "random" for p in pols):
        return
    # heuristic tables: card for card against the traced auction hands that apply
    tr = trace_hands(rules, pols, seed, start, NO_AUCTION_DEALS)
    rec = tr["rec"]
    T = rules.tricks
    left = (rec[:, KC.C_DEALER] + 1) % players
    same = (rec[:, KC.C_BIDDER] == left) & ((rec[:, KC.C_CONTRACT] >= T) == (level >= T))
    if level < T:       # auctions seldom give Ndogo or Kubwa to the seat left of the dealer
        assert same.sum() >= 50, "too few auction hands to compare plays with"
    for j in np.flatnonzero(same):
        log = logs[j]
        plays = [p.card for p in log.plays]

        def why(j=j, log=log) -> str:       # written out only when an assert fails
            return (f"hand {start + j}: declared play differs from the traced auction hand\n"
                    + kernel_text(rules, tr, j, record_columns(rules))
                    + "\n--- reference (record) ---\n" + "\n".join(PR.body(log)))
        assert tr["plays"][j, :len(plays)].tolist() == plays, why()
        assert rec[j, KC.C_TRUMP] == log.trump, why()


def test_no_auction_cases_cover_the_modes():
    """The case tables reach 10,000 deals per player count and mode, every kind
    of contract, declarers of both policies, and the rules that change play
    and scoring."""
    for cases, pos in ((FIXED_CASES, {"contract": 4, "table": 5, "rules": 6, "seat": 2}),
                       (DECLARE_CASES, {"contract": 2, "table": 3, "rules": 4})):
        for players in PLAYERS:
            mine = [c for c in cases if c[0] == players]
            assert len(mine) * NO_AUCTION_DEALS >= 10_000
            T = make_rules(players=players).tricks
            levels = {_level(c[pos["contract"]], players) for c in mine}
            assert {T, T + 1} <= levels
            assert len(levels - {T, T + 1}) >= 2
            assert {"heuristic", "random", "mixed", "tuned"} <= {c[pos["table"]] for c in mine}
            keys = {k for c in mine for k in c[pos["rules"]]}
            assert {"fail", "no_trump"} <= keys
            assert keys & {"ndogo_stake", "kubwa_stake"}
            if "seat" in pos:
                assert len({c[pos["seat"]] for c in mine}) >= 2
                assert len({c[3] for c in mine}) >= 2                   # dealers
                assert {"strong", "weak"} <= {c[1] for c in mine}
                # a random declarer in a mixed table, and a heuristic one
                assert {_specs("mixed", players)[c[2]].split(":")[0]
                        for c in mine if c[5] == "mixed"} == {"random", "heuristic"}
