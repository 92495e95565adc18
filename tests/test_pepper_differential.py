"""Differential tests: the numba kernel (simkit/pepper/kernel.py) against the
readable reference engine (simkit/pepper/reference.py).

The two engines share no code; seeds/pepper.md fixes every decision, including
the order of random draws, so they must agree exactly: the deal, every auction
call, every card played, and every column of the hand record, for every player
count and every preset that changes a single hand; and the outcome of whole
games.  A mismatch reports the first differing hand with both versions.
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit.pepper import kernel as K
from simkit.pepper import reference as R
from simkit.pepper.api import simulate_games, trace_hands
from simkit.pepper.policies import make_policies
from simkit.pepper.rules import DECK, PRESETS, TRUMP_TEXT, make_rules

#: Run seeds.
SEED = 0x5EED_D1FF
OTHER_SEED = 2                  # seed_key(2) >= 2**63: keys of both signs
HANDS_PER_TABLE = 5_000        # per policy mix: 10,000 deals per (players, preset)
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
    cols = [("dealer", K.C_DEALER)]
    cols += [(f"bid_{s}", K.C_BID + s) for s in range(P)]
    cols += [("calls", K.C_CALLS), ("contract", K.C_CONTRACT), ("bidder", K.C_BIDDER),
             ("stuck", K.C_STUCK), ("trump", K.C_TRUMP)]
    cols += [(f"tricks_{s}", K.C_TRICKS + s) for s in range(P)]
    cols += [(f"side_tricks_{s}", K.C_SIDE_TRICKS + s) for s in range(S)]
    cols += [(f"score_{s}", K.C_SCORE + s) for s in range(S)]
    cols += [("made", K.C_MADE), ("bidder_trumps", K.C_F_TRUMPS),
             ("bidder_bowers", K.C_F_BOWERS), ("bidder_aces", K.C_F_ACES),
             ("bidder_voids", K.C_F_VOIDS)]
    return cols


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def reference_arrays(rules, policies, seed: int, start: int, count: int):
    """The reference's hands as arrays shaped like trace_hands' output."""
    P = rules.players
    deal = np.zeros((count, 4), np.int64)
    calls = np.full((count, K.MAX_CALLS), -1, np.int64)
    plays = np.full((count, 32), -1, np.int64)
    rows = []
    for j in range(count):
        log = R.simulate_hand(rules, policies, seed, start + j)
        d = deal[j]
        for s in range(P):
            d[s] = _mask(log.hands[s])
        if P == 2:
            d[3] = _mask(log.dead)
        c = [b.seat * 16 + b.level for b in log.auction][:K.MAX_CALLS]
        calls[j, :len(c)] = c
        if log.plays:
            plays[j, :len(log.plays)] = [p.card for p in log.plays]
        rows.append((log.dealer, *log.highest_bids(), log.calls, log.contract, log.bidder,
                     int(log.stuck), log.trump, *log.tricks, *log.side_tricks, *log.score,
                     int(log.made), *log.features()))
    return {"deal": deal, "calls": calls, "plays": plays, "rec": np.array(rows, np.int64)}


def kernel_text(rules, tr: dict, j: int, cols) -> str:
    """The kernel's hand j in words, for a failure message."""
    P = rules.players
    deal = tr["deal"][j]
    lines = [f"dealer: {tr['rec'][j, K.C_DEALER]}"]
    for s in range(P):
        lines.append(f"seat {s}: {DECK.format_hand(c for c in range(24) if deal[s] >> c & 1)}")
    if P == 2:
        lines.append(f"dead: {DECK.format_hand(c for c in range(24) if deal[3] >> c & 1)}")
    calls = [int(v) for v in tr["calls"][j] if v >= 0]
    lines.append("auction: " + (" ".join(f"{v // 16}:{rules.bid_text(v % 16)}" for v in calls)
                                or "-"))
    t = int(tr["rec"][j, K.C_TRUMP])
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
        "\n--- reference (format_log) ---\n" + R.format_log(log))


@pytest.mark.parametrize("preset", HAND_PRESETS)
@pytest.mark.parametrize("players", PLAYERS)
def test_hands_agree(players, preset):
    rules = make_rules(preset, players=players)
    # indices 0..4999: the heuristic at every seat
    assert_same_hands(rules, make_policies("heuristic", players), SEED, 0, HANDS_PER_TABLE)
    # indices 5000..9999: random seats among (parameterised) heuristic seats
    assert_same_hands(rules, make_policies(mixed_specs(players), players), SEED,
                      HANDS_PER_TABLE, HANDS_PER_TABLE)


def test_comparison_catches_a_difference():
    """The comparison itself is live: a reference run under other rules must
    be reported (guards against comparing a thing with itself)."""
    rules = make_rules(players=4)
    other = make_rules("bid-penalty", players=4)
    pols = make_policies("random", 4)
    tr = trace_hands(rules, pols, SEED, 0, 200)
    ref = reference_arrays(other, pols, SEED, 0, 200)
    cols = record_columns(rules)
    assert (tr["deal"] == ref["deal"]).all() and (tr["calls"] == ref["calls"]).all()
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
    kern = np.column_stack([df["first_dealer"], df["rounds"],
                            *(df[f"score_{s}"] for s in range(S)),
                            df["winners"], df["unfinished"]]).astype(np.int64)
    ref = np.array([(g.first_dealer, g.rounds, *g.scores, g.winners, int(g.unfinished))
                    for g in (R.play_game(rules, pols, seed, i, scores, first_dealer)
                              for i in range(games))],
                   np.int64)
    bad = (kern != ref).any(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        names = ["first_dealer", "rounds", *(f"score_{s}" for s in range(S)), "winners",
                 "unfinished"]
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
    assert df["unfinished"].any() and not df["unfinished"].all()
    assert_same_games(rules, "random", 60, SEED)


@pytest.mark.parametrize("players, scores", [(4, (24, 3)), (3, (-5, 20, 28)), (2, (29, 29))])
def test_games_from_a_score_in_progress_agree(players, scores):
    """Games started from given scores and a given first dealer (the advisor's
    and the Kubwa study's "win chance from here")."""
    rules = make_rules("seed", players=players)
    assert_same_games(rules, "heuristic", GAMES, SEED, scores=scores, first_dealer=players - 1)
