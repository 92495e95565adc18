"""``simkit compare`` for Pitch, Shiesta and Burraco: each game's own measures,
checked against what the rule change must do on the same deals (Pepper's are
in test_compare.py; every game's identical-variant check in test_contract.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simkit.app.cli import main
from simkit.base.errors import InputError
from simkit.burraco import api as burraco
from simkit.lab import compare as C

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow


def _row(result, table, metric):
    t = result[table].set_index("metric")
    return t.loc[metric]


def test_pitch_redeal_throws_in_what_forced_dealers_played():
    """Under redeal the dealer may pass: some hands are thrown in, none under a
    forced dealer; the same deals, so 2-bids fall by as much.  The forced side
    has stuck_bid = any, so that a stuck dealer bids what it wants, as under
    redeal (under the seed's stuck_bid = two it bids 2 whatever it wants: see
    the next test)."""
    r = C.compare("pitch", ["forced:stuck_bid=any", "redeal:all_pass=redeal"], C.CompareSettings(
        hands=20_000,
        games=300, seed=4, policy="classic"))     # its dealer often passes
    thrown = _row(r, "hands", "thrown-in rate")
    assert thrown["a"] == 0.0
    assert thrown["b"] > 0.01
    assert thrown["p_value"] < 1e-6
    bids = r["bids"].set_index("bid")
    assert bids.loc["(thrown in)", "hands_a"] == 0
    assert bids.loc["(thrown in)", "hands_b"] == round(thrown["b"] * 20_000)
    # only forced dealers' 2s change: every other contract is the same hand for hand
    assert bids.loc["2", "hands_a"] - bids.loc["2", "hands_b"] == bids.loc["(thrown in)",
                                                                         "hands_b"]
    for bid in ("3", "4"):
        assert bids.loc[bid, "hands_a"] == bids.loc[bid, "hands_b"]
    sessions = r["sessions"].set_index("metric")
    assert "money per session ($), players who joined" not in sessions.index   # nobody joins
    assert (sessions.loc[[f"money per session ($), starting seat {k}" for k in range(1, 5)],
                         "n_a"] == 300).all()


def test_pitch_stuck_dealer_bids_two():
    """The seed's stuck_bid = two against any: on the same deals only stuck
    dealers' bids change, from what they wanted (3, 4) down to 2."""
    r = C.compare("pitch", ["two:", "any:stuck_bid=any"], C.CompareSettings(
        hands=20_000, games=50, seed=4,
        policy="classic"))    # the default dealer matches: seldom stuck
    bids = r["bids"].set_index("bid")
    raised = sum(bids.loc[b, "hands_b"] - bids.loc[b, "hands_a"] for b in ("3", "4"))
    assert raised > 0
    assert bids.loc["2", "hands_a"] - bids.loc["2", "hands_b"] == raised


def test_pitch_moon_points_change_only_moon_scores():
    r = C.compare("pitch", ["A:", "B:moon_made=8,moon_failed=8"], C.CompareSettings(
        players=2, hands=30_000,
        games=50, seed=5, policy="heuristic:moon_rule=run,moon_run=3,moon_trumps=4"))
    moons = _row(r, "hands", "moons bid")
    assert moons["a"] == moons["b"] > 0                # the same hands bid the moon
    pts = _row(r, "hands", "pitcher points per pitched hand")
    assert pts["diff"] != 0


def test_shiesta_turn_cap_leaves_games_unfinished():
    r = C.compare("shiesta", ["A:", "short:max_turns=10"], C.CompareSettings(games=2_000, seed=6))
    unfinished = _row(r, "games", "unfinished games")
    assert unfinished["a"] < 0.01
    assert unfinished["b"] > 0.99
    turns = _row(r, "games", "turns per game")
    assert turns["b"] == 10.0
    assert turns["diff"] < -40
    assert turns["p_value"] < 1e-6
    seats = r["games"][r["games"]["metric"].str.startswith("win rate")]
    assert len(seats) == 4
    assert abs(seats["a"].sum() + unfinished["a"] - 1) < 1e-12
    with pytest.raises(InputError, match="auction"):
        C.compare("shiesta", ["A:", "B:auction=open"], C.CompareSettings(games=10))


def test_burraco_closing_bonus_moves_only_the_closers_score():
    """The policies never look at the closing bonus, so the same deals are played
    the same way and each team's score rises by the extra bonus on the hands
    it closed, exactly."""
    hands = 400
    r = C.compare("burraco", ["A:", "B:closing_bonus=300"], C.CompareSettings(
        hands=hands, games=4, seed=7))
    df = burraco.simulate(hands, seed=7)
    for t in (0, 1):
        closed_by_t = ((df["ended"] == "closed") & (df["closer"] % 2 == t)).mean()
        diff = _row(r, "hands", f"score per hand, team {t}")["diff"]
        assert diff == pytest.approx(200 * closed_by_t, abs=1e-9)
        assert _row(r, "hands", f"melded points per hand, team {t}")["diff"] == 0
    ended = _row(r, "hands", "hands ended: closed")
    assert ended["a"] == ended["b"] == pytest.approx((df["ended"] == "closed").mean())


@pytest.mark.parametrize(("game", "variant"), [("pitch", "B:low=dealt"),
                                           ("shiesta", "B:after_burn=again"),
                                           ("burraco", "B:untaken_pozzetto=cards")])
def test_cli_compare_json(game, variant, capsys):
    hands = [] if game == "shiesta" else ["--hands", "300"]       # whole games only
    code = main(["compare", game, "--variant", "A:", "--variant", variant, *hands,
                 "--games", "4", "--seed", "3", "--no-progress", "--json"])
    assert code == 0
    d = json.loads(capsys.readouterr().out)
    assert d["game"] == game
    assert d["labels"] == ["A", "B"]
    assert d["seed"] == 3
    assert "variants" in d["tables"]
    assert len(d["tables"]) >= 2
    for _name, rows in d["tables"].items():
        for row in rows:
            if "diff" in row and row["diff"] is not None:
                assert np.isfinite(row["diff"])


def test_hands_for_a_game_compared_in_whole_games_is_refused(cli):
    """Shiesta is compared in whole games: --hands would be ignored, so it is refused."""
    line = cli.refused("compare", "shiesta", "--variant", "A:seven_reverses=true",
                       "--variant", "B:seven_reverses=false", "--hands", "2000",
                       names=["--hands", "whole games", "--games"])
    assert "does not apply" in line
    with pytest.raises(InputError, match="--hands does not apply"):
        C.compare("shiesta", ["A:seven_reverses=true", "B:seven_reverses=false"], C.CompareSettings(
            hands=2000))


def test_the_web_apps_steps_give_the_commands_sums(monkeypatch):
    """The web app runs a comparison in steps sized by the time each took; its
    sums are added in the command's batches, so both give the same floats."""
    from simkit.runs import batches
    from simkit.runs.batches import Work

    monkeypatch.setattr(batches, "GROW", 0.0)         # steps stay small: other groupings
    args = {"hands": 4000, "games": 10, "seed": 3}
    plain = C.compare("pitch", ["A:", "B:low=dealt"], C.CompareSettings(**args))
    stepped = C.compare("pitch", ["A:", "B:low=dealt"], C.CompareSettings(work=Work(), **args))
    for name, table in plain.items():
        assert table.equals(stepped[name]), name
