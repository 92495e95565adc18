"""simkit.answers: one function behind each answer, for the command line and
the web app alike (a query's options checked by the command's own parser)."""

from __future__ import annotations

import json

import pytest

from simkit import answers
from simkit.cli import main
from simkit.errors import InputError


def _cli_json(capsys, argv) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_advise_is_the_cli_json(capsys):
    q = [("game", "pepper"), ("hand", "JH JD AH KH 9C 9S"), ("samples", "2000"),
         ("seed", "1"), ("bound", "1")]
    got = answers.advise(answers.parse("advise", q))
    want = _cli_json(capsys, ["advise", "pepper", "--hand", "JH JD AH KH 9C 9S",
                              "--samples", "2000", "--seed", "1", "--bound", "--json"])
    assert got == want and got["seed"] == 1 and got["policies"]


def test_pitch_advise_and_repeated_options(capsys):
    q = [("game", "pitch"), ("hand", "AS KS QS 2S 3H 4D"), ("samples", "1000"),
         ("policy", "heuristic"), ("players", "3"), ("set", "stuck_bid=any"),
         ("declarer", "0"), ("score", "")]
    got = answers.advise(answers.parse("advise", q))
    want = _cli_json(capsys, ["advise", "pitch", "--hand", "AS KS QS 2S 3H 4D", "--samples",
                              "1000", "--policy", "heuristic", "--players", "3", "--set",
                              "stuck_bid=any", "--json"])
    assert got == want


def test_compare_is_the_cli_json(capsys):
    q = [("game", "pepper"), ("variant", "A:"), ("variant", "B:all_pass=stick"),
         ("hands", "3000"), ("games", "50"), ("seed", "2")]
    got = answers.compare(answers.parse("compare", q))
    want = _cli_json(capsys, ["compare", "pepper", "--variant", "A:", "--variant",
                              "B:all_pass=stick", "--hands", "3000", "--games", "50",
                              "--seed", "2", "--json", "--no-progress"])
    assert got == want


@pytest.mark.parametrize("command, params, words", [
    ("advise", [("hand", "JH")], "give the game"),
    ("advise", [("game", "pepper"), ("hand", "JH JD AH KH 9C 1Z")], "1Z"),
    ("advise", [("game", "pepper"), ("colour", "red")], "unknown option 'colour'"),
    ("advise", [("game", "pepper"), ("seed", "1"), ("seed", "2")], "given twice"),
    ("advise", [("game", "pepper"), ("bound", "maybe")], "bad bound 'maybe'"),
    ("advise", [("game", "shiesta"), ("hand", "AS")], "games with bids"),
    ("advise", [("game", "pepper"), ("hand", "JH"), ("samples", "-3")], "-3"),
    ("show", [("game", "chess"), ("index", "1")], "chess"),
    ("ask", [("game", "pepper")], "unknown answer 'ask'"),
])
def test_bad_queries_are_one_line(command, params, words):
    with pytest.raises(InputError, match=words) as e:
        a = answers.parse(command, params)
        answers.advise(a)
    assert "\n" not in str(e.value)


def test_games_info_covers_every_game():
    info = answers.games_info()["games"]
    by = {g["name"]: g for g in info}
    assert set(by) == {"pepper", "pitch", "shiesta", "burraco"}
    assert by["pepper"]["hand_size"] == {"2": 8, "3": 8, "4": 6}
    assert [len(r) for r in by["pepper"]["deck"]] == [6, 6, 6, 6] and by["pepper"]["bound"]
    assert by["pepper"]["plans"]["4"] == ["pass", "1", "2", "3", "4", "5", "ndogo", "kubwa"]
    assert by["pitch"]["deck"][3][0] == "AS" and not by["shiesta"]["advise"]
    assert all(g["policies"] and g["rules"] for g in info)
    json.dumps(info)


def test_estimate_scales_with_samples():
    a = answers.parse("advise", [("game", "pepper"), ("hand", "JH JD AH KH 9C 9S"),
                                 ("samples", "1000")])
    small = answers.estimate("advise", a)
    a.samples = 100_000
    big = answers.estimate("advise", a)
    assert big["seconds"] == pytest.approx(100 * small["seconds"])
    assert small["text"] and big["text"]


def test_compare_estimate_counts_every_variant():
    q = [("game", "shiesta"), ("variant", "A:"), ("variant", "B:"), ("games", "200"),
         ("skill", "0")]
    a = answers.parse("compare", q)
    one = answers.estimate("compare", a)["seconds"]
    a.games = 2_000
    assert answers.estimate("compare", a)["seconds"] == pytest.approx(10 * one)
    a.variant = ["A:", "B:", "C:", "D:"]
    assert answers.estimate("compare", a)["seconds"] == pytest.approx(20 * one)
    # the skill trace's tournaments come on top
    a.no_skill = False
    assert answers.estimate("compare", a)["seconds"] > 20 * one
    with pytest.raises(InputError, match="2 to 8 variants"):
        answers.estimate("compare", answers.parse("compare", q[:2]))
