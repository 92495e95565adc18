"""Differential tests: the numba kernel (simkit/pitch/kernel.py) against the
readable reference engine (simkit/pitch/reference.py).

The two engines share no code; seeds/pitch.md fixes every decision, including
the order of random draws, so they must agree exactly: the deal, every card
played and every column of the hand record, for every player count 2 to 8;
sessions agree player by player, including who led them hand by hand (the
columns top, lead_changes, comeback and settled); fixed-hand deals (the
advisor) agree too.

Sizes: for each player count, 3,000 deals under the seed's rules and 3,000
under ``ALL_VARIANTS``, a rule set in which every hand-level variant differs
from its default at once (so each variant's code runs on 3,000 deals per
player count), and 2,000 under ``STUCK_VARIANTS`` (the same, but with the
forced dealer free to bid any level: ``stuck_bid`` only matters under
``all_pass = forced``, in the hands everyone else passes), half with
heuristic tables and half with tables mixing random players and heuristics
with non-default parameters; plus 600 deals under each named preset alone.
Every call of the auction, every card and every record column is compared.
A mismatch reports the first differing hand with both versions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simkit.pitch import kernel as K
from simkit.pitch import reference as R
from simkit.pitch.api import simulate_sessions, trace_hands
from simkit.pitch.policies import make_policies
from simkit.pitch.record import body
from simkit.pitch.rules import DECK, PRESETS, make_rules

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

SEED = 0x5EED_D1FF
OTHER_SEED = 2                  # seed_key(2) >= 2**63: keys of both signs
PLAYERS = tuple(range(2, 9))
HANDS = 1_500                   # per policy mix: 3,000 deals per (players, rule set)
STUCK_HANDS = 1_000             # STUCK_VARIANTS differs from ALL_VARIANTS only when all pass
PRESET_HANDS = 300              # per policy mix and preset
SESSIONS = 150
CLASSIC_HANDS = 300             # per table, the old heuristic (policies.NAMED["classic"])

#: Every rule that changes a single hand, away from its default.
ALL_VARIANTS = {"low": "dealt", "auction": "open", "steal": "outbid", "all_pass": "redeal",
                "moon_needs": "all", "moon_made": 7, "moon_failed": 9, "game_tie": "all",
                "cents": 25, "moon_dollars": 3}
#: ... and the stuck dealer's variant, which needs ``all_pass = forced`` (the default).
STUCK_VARIANTS = {**{k: v for k, v in ALL_VARIANTS.items() if k != "all_pass"},
                  "stuck_bid": "any"}
VARIANTS = {"seed": {}, "all-variants": ALL_VARIANTS, "stuck-variants": STUCK_VARIANTS}
#: Presets that only change sessions are covered by the session tests.
HAND_PRESETS = [p for p in PRESETS if p not in ("game-to-11", "drop-in")]


def mixed_specs(players: int) -> list[str]:
    """Random seats next to heuristics with non-default parameters (so that the
    kernel's flattened parameters are exercised, and moons get bid)."""
    cycle = ["random", "heuristic:aggression=0.75,moon_rule=run,moon_trumps=4,moon_run=3",
             "heuristic:aggression=-1.25,partner_cover=boss,cash_chance=20,risk_points=4",
             "random", "heuristic:moon_rule=run,moon_trumps=5,moon_run=2,partner_cover=safe",
             "heuristic:moon_run=2,low_value=held,dealer_match=false"]
    return [cycle[s % len(cycle)] for s in range(players)]


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def calls_of(log) -> list[int]:
    """A hand's calls as the kernel traces them: seat * 16 + level."""
    return [b.seat * 16 + b.level for b in log.auction]


def reference_frame(rules, policies, seed: int, start: int, count: int):
    """The reference's hands as (records frame, plays, deals, calls) shaped like
    trace_hands'."""
    N = rules.players
    plays = np.full((count, 48), -1, np.int64)
    deal = np.zeros((count, 8), np.int64)
    calls = np.full((count, K.MAX_CALLS), -1, np.int64)
    rows = []
    for j in range(count):
        log = R.play_hand(rules, policies, seed, start + j, (start + j) % N)
        for s in range(N):
            deal[j, s] = _mask(log.hands[s])
        if log.plays:
            plays[j, :len(log.plays)] = [p.card for p in log.plays]
        calls[j, :len(log.auction)] = calls_of(log)
        rows.append({"hand": start + j, **log.record()})
    return pd.DataFrame(rows), plays, deal, calls


def _show(rules, frame, plays, deal, j) -> str:
    N = rules.players
    lines = [f"dealer {frame['dealer'].iloc[j]}"]
    for s in range(N):
        lines.append(f"seat {s}: " + DECK.format_hand(c for c in range(52) if deal[j, s] >> c & 1))
    cards = [int(c) for c in plays[j] if c >= 0]
    for k in range(0, len(cards), N):
        lines.append(f"trick {k // N + 1}: " + " ".join(DECK.text(c) for c in cards[k:k + N]))
    return "\n".join(lines)


def assert_same_hands(rules, policies, seed: int, start: int, count: int) -> None:
    tr = trace_hands(rules, policies, seed, start, count)
    kern = tr["frame"].drop(columns=[c for c in tr["frame"] if c.startswith("policy_")])
    kern["trump"] = kern["trump"].astype(str)
    ref, plays, deal, calls = reference_frame(rules, policies, seed, start, count)
    assert list(kern.columns) == list(ref.columns)
    bad = np.zeros(count, bool)
    for col in kern.columns:
        bad |= kern[col].to_numpy() != ref[col].to_numpy()
    bad |= (tr["plays"].astype(np.int64) != plays).any(axis=1)
    bad |= (tr["deal"] != deal).any(axis=1)
    bad |= (tr["calls"].astype(np.int64) != calls).any(axis=1)
    if not bad.any():
        return
    j = int(np.argmax(bad))
    diff = [f"{c}: kernel {kern[c].iloc[j]} reference {ref[c].iloc[j]}"
            for c in kern.columns if kern[c].iloc[j] != ref[c].iloc[j]]
    log = R.play_hand(rules, policies, seed, start + j, (start + j) % rules.players)
    diff.append(f"calls: kernel {[int(c) for c in tr['calls'][j] if c >= 0]} "
                f"reference {calls_of(log)}")
    pytest.fail(
        f"{int(bad.sum())} of {count} hands differ; first: hand {start + j} (seed {seed}, "
        f"rules {rules.as_dict()}, policies {[p.text() for p in policies]})\n"
        + "\n".join(diff) + "\n--- kernel ---\n"
        + _show(rules, tr["frame"], tr["plays"], tr["deal"], j)
        + "\n--- reference ---\n" + "\n".join(body(log)))


@pytest.mark.parametrize("variants", list(VARIANTS))
@pytest.mark.parametrize("players", PLAYERS)
def test_hands_agree(players, variants):
    rules = make_rules(overrides=VARIANTS[variants], players=players)
    n = STUCK_HANDS if variants == "stuck-variants" else HANDS
    assert_same_hands(rules, make_policies("heuristic", players), SEED, 0, n)
    assert_same_hands(rules, make_policies(mixed_specs(players), players), OTHER_SEED,
                      10**9, n)


@pytest.mark.parametrize("players", PLAYERS)
def test_classic_agrees(players):
    """The old heuristic (policies.NAMED["classic"]) agrees too, alone and next to
    the new default, under the seed's rules and every variant."""
    from simkit.pitch.policies import NAMED
    for variants, seed in (({}, SEED + 3), (ALL_VARIANTS, SEED + 4)):
        rules = make_rules(overrides=variants, players=players)
        assert_same_hands(rules, make_policies([NAMED["classic"]], players), seed, 0,
                          CLASSIC_HANDS)
        mixed = [NAMED["classic"] if s % 2 else "heuristic" for s in range(players)]
        assert_same_hands(rules, make_policies(mixed, players), seed, 7000, CLASSIC_HANDS)


@pytest.mark.parametrize("preset", HAND_PRESETS)
def test_presets_agree(preset):
    for players in PLAYERS:
        rules = make_rules(preset, players=players)
        assert_same_hands(rules, make_policies("heuristic", players), SEED + 1, 0, PRESET_HANDS)
        assert_same_hands(rules, make_policies(mixed_specs(players), players), SEED + 2,
                          5000, PRESET_HANDS)


def test_all_variants_are_exercised():
    """ALL_VARIANTS and STUCK_VARIANTS really move every hand-level rule off its
    default, and the mixed tables reach the rare cases (thrown-in hands, moons,
    shared Game, stuck dealers bidding above 2, open auctions of several laps)."""
    default = make_rules()
    for variants in (ALL_VARIANTS, STUCK_VARIANTS):
        for key, value in variants.items():
            assert getattr(default, key) != value, key
    for preset in HAND_PRESETS:
        assert set(PRESETS[preset]) <= set(ALL_VARIANTS) | set(STUCK_VARIANTS), preset
    rules = make_rules(overrides=ALL_VARIANTS, players=4)
    tr = trace_hands(rules, make_policies(mixed_specs(4), 4), OTHER_SEED, 10**9, HANDS)
    df = tr["frame"]
    assert (df["pitcher"] < 0).any()
    assert df["moon"].any()
    assert (df["moon"] & df["made"]).any()
    winners = df["game_winners"].to_numpy()
    assert ((winners & (winners - 1)) != 0).any()          # a Game point shared
    assert ((tr["calls"] >= 0).sum(axis=1) > 4).any()      # a second lap
    stuck = make_rules(overrides=STUCK_VARIANTS, players=4)
    df = trace_hands(stuck, make_policies(mixed_specs(4), 4), OTHER_SEED, 10**9,
                     STUCK_HANDS)["frame"]                  # the deals test_hands_agree compares
    assert (df["stuck"] & (df["contract"] > 2)).any()
    assert (df["stuck"] & (df["contract"] == 2)).any()


#: The session columns on who led (seeds/pitch.md 7, simkit/base/drama.py).
LEAD_COLUMNS = ("top", "lead_changes", "comeback", "settled")
SESSION_RULES = [{}, {"leave": 0.1, "join": 0.15, "join_score": "zero", "target": 15,
                      "session_hands": 40},
                 {"leave": 0.2, "join": 0.3, **ALL_VARIANTS},
                 {"leave": 0.1, "join": 0.2, **STUCK_VARIANTS}]


def winners_of(df: pd.DataFrame) -> pd.Series:
    """Per session, the bitmask of the players on ``top``."""
    bits = np.where(df["top"].to_numpy(), np.left_shift(1, df["player"].to_numpy(np.int64)), 0)
    return pd.Series(bits, index=df["session"].to_numpy()).groupby(level=0).sum()


def check_lead_columns(df: pd.DataFrame) -> None:
    """The lead columns agree with the rest of the record: ``top`` marks exactly the
    players seated at the end with the highest score among them; settled is -1
    exactly when more than one is top, else at most the hands played; a
    comeback needs a single top player who did not lead from halfway on."""
    seated = df["left"] == -1
    best = df["score"].where(seated).groupby(df["session"]).transform("max")
    assert (df["top"] == (seated & (df["score"] == best))).all()
    s = df.groupby("session").first()
    assert (winners_of(df) > 0).all()
    n_top = df.groupby("session")["top"].sum()
    assert ((s["settled"] == -1) == (n_top > 1)).all()
    assert (s["settled"] <= s["session_hands"]).all()
    assert (s["settled"] >= -1).all()
    assert (s["lead_changes"] >= 0).all()
    assert (s["lead_changes"] < s["session_hands"]).all()
    assert not (s["comeback"] & (n_top > 1)).any()
    assert (s["settled"][s["comeback"]] >= s["session_hands"][s["comeback"]] // 2).all()


@pytest.mark.parametrize("rules", SESSION_RULES)
@pytest.mark.parametrize("players", [2, 4, 8])
def test_sessions_agree(players, rules):
    check_sessions_agree(players, rules, SESSIONS)


def check_sessions_agree(players, rules, sessions):
    """The kernel's and the reference's rows of ``sessions`` sessions are equal."""
    r = make_rules(overrides=rules, players=players)
    pols = make_policies(mixed_specs(3), 3)
    kern = simulate_sessions(sessions, rules=r, policy=pols, seed=SEED)
    kern["policy"] = kern["policy"].astype(str)
    logs = [R.play_session(r, pols, SEED, k) for k in range(sessions)]
    ref = pd.DataFrame([row for log in logs for row in log.rows()])
    assert list(kern.columns) == list(ref.columns)
    assert set(LEAD_COLUMNS) <= set(kern.columns)
    check_lead_columns(kern)
    # the reference's winners are the top players' bits, and the top after the last hand
    assert [log.winners for log in logs] == winners_of(ref).tolist()
    assert all(log.tops[-1] == log.winners for log in logs)
    assert all(len(log.tops) == len(log.hands) for log in logs)
    for col in kern.columns:
        k, f = kern[col].to_numpy(), ref[col].to_numpy()
        if not (k == f).all():
            i = int(np.argmax(k != f))
            pytest.fail(f"session {kern['session'].iloc[i]} player {kern['player'].iloc[i]}: "
                        f"{col} kernel {k[i]} reference {f[i]}")


def test_long_sessions_agree():
    """Sessions longer than the kernel's first history buffer (64 hands), so that
    it grows and the next sessions of the block reuse the grown one."""
    check_sessions_agree(3, {"session_hands": 150, "leave": 0.02, "join": 0.05}, sessions=20)


def test_lead_columns_are_not_trivial():
    """Over some hundreds of sessions the lead changes hands in most, some end in a
    comeback, the settled hand spreads over the session and some share the top;
    with players leaving and joining too."""
    for rules in ({}, {"leave": 0.1, "join": 0.1}):
        df = simulate_sessions(600, players=4, rules=rules, policy=mixed_specs(4), seed=SEED)
        s = df.groupby("session").first()
        assert (s["lead_changes"] > 0).mean() > 0.5
        assert s["lead_changes"].max() >= 5
        assert 0.05 < s["comeback"].mean() < 0.8
        assert s["settled"].nunique() >= 10
        assert (s["settled"] == 0).any()
        assert (s["settled"] == -1).any()
        assert (s["settled"] == -1).mean() < 0.3
        check_lead_columns(df)


@pytest.mark.parametrize("contract", [0, 2, 3, 4, 5])
@pytest.mark.parametrize(("players", "seat", "dealer"), [(2, 1, 0), (4, 1, 0), (4, 0, 0), (6, 3, 5),
                                                 (8, 7, 2)])
def test_fixed_hands_agree(players, seat, dealer, contract):
    """The advisor's deals: one hand held at one seat, the rest dealt (8.3)."""
    from simkit.pitch.api import fixed_hands, resolve_rules
    hand = DECK.parse_hand("AS 10S 5S KH 2D JC")
    r = resolve_rules(None, players)
    pols = make_policies(mixed_specs(players), players)
    n = 400
    kern = fixed_hands("AS 10S 5S KH 2D JC", contract, n, players=players, seat=seat,
                       dealer=dealer, policy=mixed_specs(players), seed=SEED)
    kern = kern.drop(columns=[f"policy_{s}" for s in range(players)])
    kern["trump"] = kern["trump"].astype(str)
    ref = pd.DataFrame([{"hand": j, **R.play_hand(r, pols, SEED, j, dealer, fixed=(seat, hand),
                                                  contract=contract).record()}
                        for j in range(n)])
    for col in kern.columns:
        k, f = kern[col].to_numpy(), ref[col].to_numpy()
        assert (k == f).all(), (col, int(np.argmax(k != f)))
