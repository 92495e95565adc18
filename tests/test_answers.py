"""simkit.app.answers: one function behind each answer, for the command line and
the web app alike (a query's options checked by the command's own parser)."""

from __future__ import annotations

import json
import time

import pytest

from simkit.app import answers
from simkit.app.cli import main
from simkit.base.errors import InputError


def _cli_json(capsys, argv) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_advise_is_the_cli_json(capsys):
    q = [("game", "pepper"), ("hand", "JH JD AH KH 9C 9S"), ("samples", "2000"),
         ("seed", "1"), ("bound", "1")]
    got = answers.advise(answers.parse("advise", q))
    want = _cli_json(capsys, ["advise", "pepper", "--hand", "JH JD AH KH 9C 9S",
                              "--samples", "2000", "--seed", "1", "--bound", "--json"])
    assert got == want
    assert got["seed"] == 1
    assert got["policies"]


def test_pitch_advise_and_repeated_options(capsys):
    q = [("game", "pitch"), ("hand", "AS KS QS 2S 3H 4D"), ("samples", "1000"),
         ("policy", "heuristic"), ("players", "3"), ("set", "stuck_bid=any"),
         ("declarer", "0")]
    got = answers.advise(answers.parse("advise", q))
    want = _cli_json(capsys, ["advise", "pitch", "--hand", "AS KS QS 2S 3H 4D", "--samples",
                              "1000", "--policy", "heuristic", "--players", "3", "--set",
                              "stuck_bid=any", "--json"])
    assert got == want


@pytest.mark.slow
def test_compare_is_the_cli_json(capsys):
    q = [("game", "pepper"), ("variant", "A:"), ("variant", "B:all_pass=stick"),
         ("hands", "3000"), ("games", "50"), ("seed", "2")]
    got = answers.compare(answers.parse("compare", q))
    want = _cli_json(capsys, ["compare", "pepper", "--variant", "A:", "--variant",
                              "B:all_pass=stick", "--hands", "3000", "--games", "50",
                              "--seed", "2", "--json", "--no-progress"])
    assert got == want


def _parsed_and_advised(command, params):
    answers.advise(answers.parse(command, params))


@pytest.mark.parametrize(("command", "params", "words"), [
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
        _parsed_and_advised(command, params)
    assert "\n" not in str(e.value)


def test_games_info_covers_every_game():
    info = answers.games_info()["games"]
    by = {g["name"]: g for g in info}
    assert set(by) == {"pepper", "pitch", "shiesta", "burraco"}
    assert by["pepper"]["hand_size"] == {"2": 8, "3": 8, "4": 6}
    assert [len(r) for r in by["pepper"]["deck"]] == [6, 6, 6, 6]
    assert by["pepper"]["bound"]
    assert by["pepper"]["plans"]["4"] == ["pass", "1", "2", "3", "4", "5", "ndogo", "kubwa"]
    assert by["pitch"]["deck"][3][0] == "AS"
    assert not by["shiesta"]["advise"]
    assert all(g["policies"] and g["rules"] for g in info)
    json.dumps(info)


def test_estimate_is_a_fixed_cost_and_a_cost_per_sample():
    """An advice has a fixed cost (its setup) and a cost per sample: a small
    run is not estimated as its fixed cost times its size."""
    a = answers.parse("advise", [("game", "pepper"), ("hand", "JH JD AH KH 9C 9S"),
                                 ("samples", "100000")])
    e = {}
    # the largest first: the smaller ones then read the same timing (a larger
    # run may be timed again, which a busy machine would make differ)
    for n in (200_000, 50_000, 100_000, 1000):
        a.samples = n
        e[n] = answers.estimate("advise", a)
    assert e[200_000]["seconds"] - e[100_000]["seconds"] == pytest.approx(
        2 * (e[100_000]["seconds"] - e[50_000]["seconds"]))
    assert 0 < e[1000]["seconds"] < e[50_000]["seconds"]
    assert e[1000]["text"]
    timing = answers._timed(lambda n: time.sleep(0.2 + n * 1e-4), 100_000)
    assert timing.sure
    assert timing.fixed == pytest.approx(0.2, abs=0.05)
    assert timing.per == pytest.approx(1e-4, rel=0.2)


def test_compare_estimate_counts_every_variant(monkeypatch):
    # the accounting, not the machine's speed: every timing run takes 0.1 s + 1 ms a unit
    monkeypatch.setattr(answers, "_timed", lambda run, most, stop=None: answers._Rate(
        fixed=0.1, per=1e-3, upto=most, sure=True))
    monkeypatch.setattr(answers, "_timings", {})
    q = [("game", "shiesta"), ("variant", "A:"), ("variant", "B:"), ("games", "200"),
         ("skill", "0")]
    a = answers.parse("compare", q)
    one = answers.estimate("compare", a)["seconds"]
    a.games = 2_000
    ten = answers.estimate("compare", a)["seconds"]
    assert ten > one
    a.variant = ["A:", "B:", "C:", "D:"]
    assert answers.estimate("compare", a)["seconds"] == pytest.approx(2 * ten)
    # the skill trace's tournaments come on top
    a.no_skill = False
    assert answers.estimate("compare", a)["seconds"] > 2 * ten
    with pytest.raises(InputError, match="2 to 8 variants"):
        answers.estimate("compare", answers.parse("compare", q[:2]))


# --- the web app's bounds: checked before any work ------------------------------------------

HAND = ("hand", "JH JD AH KH 9C 9S")


def _size_options() -> dict:
    """Each answer's options that name a size (a count the run plays or holds; a
    score sets how long each game played out from it lasts)."""
    return {"advise": {"samples", "games", "plans", "score"},
            "compare": {"hands", "games", "variants", "adapt-rounds", "adapt-trials",
                        "adapt-games", "adapt-seeds"},
            "show": {"index"},
            "search": {"trials", "hands", "games"}}


def test_every_size_a_query_names_has_a_stated_bound():
    lim = answers.limits()
    assert {k: set(v) for k, v in lim.items()} == _size_options()
    json.dumps(lim)
    # no more than the command line takes
    from simkit.runs.batches import MAX_COUNT, MAX_HELD
    assert lim["advise"]["samples"] <= MAX_HELD
    assert lim["compare"]["hands"] <= MAX_COUNT


@pytest.mark.parametrize(("command", "params", "name"), [
    ("advise", [("game", "pepper"), HAND, ("samples", str(10 ** 12))], "samples"),
    ("advise", [("game", "pepper"), HAND, ("score", "1:1"), ("games", str(10 ** 12))],
     "games"),
    ("advise", [("game", "pepper"), HAND, ("plans", ",".join(["pass"] * 17))], "plans"),
    ("compare", [("game", "pepper"), ("variant", "A:"), ("variant", "B:"),
                 ("hands", str(10 ** 12))], "hands"),
    ("compare", [("game", "burraco"), ("variant", "A:"), ("variant", "B:"),
                 ("games", str(10 ** 9))], "games"),
    ("compare", [("game", "pitch"), ("variant", "A:"), ("variant", "B:"), ("adapt", "1"),
                 ("adapt-games", str(10 ** 7))], "adapt-games"),     # within the CLI's cap
])
def test_a_size_over_the_web_bound_is_refused_by_parse(command, params, name):
    """The query is refused in parse, before anything is estimated or run."""
    t0 = time.perf_counter()
    with pytest.raises(InputError, match=f"bad {name} .*at most") as e:
        answers.parse(command, params)
    assert "\n" not in str(e.value)
    assert time.perf_counter() - t0 < 1.0


@pytest.mark.parametrize("key", ["players", "samples", "seed", "score", "hand", "bound"])
def test_an_empty_value_is_refused_not_a_silent_default(key):
    params = [("game", "pepper"), HAND, (key, "")] if key != "hand" else \
        [("game", "pepper"), ("hand", "  ")]
    with pytest.raises(InputError, match=f"empty {key}: give {key} a value"):
        answers.parse("advise", params)


@pytest.mark.parametrize(("command", "params", "word"), [
    ("advise", [("game", "pepper"), HAND, ("seat", "-1")], "-1"),
    ("advise", [("game", "pepper"), HAND, ("seat", "4")], "4"),
    ("advise", [("game", "pepper"), HAND, ("dealer", "7")], "7"),
    ("advise", [("game", "pepper"), HAND, ("score", "banana")], "banana"),
    ("advise", [("game", "pepper"), HAND, ("plans", "pass,moon")], "moon"),
    ("advise", [("game", "pepper"), HAND, ("policy", "genius")], "genius"),
    ("advise", [("game", "pepper"), ("hand", "JH JD AH KH 9C")], "6"),
    ("compare", [("game", "pepper"), ("variant", "A:"), ("variant", "B:fail=sometimes")],
     "sometimes"),
    ("compare", [("game", "burraco"), ("variant", "A:"), ("variant", "B:"), ("adapt", "1"),
                 ("param", "nonsense")], "nonsense"),
    ("show", [("game", "pitch"), ("index", "1"), ("policy", "genius")], "genius"),
])
def test_check_runs_every_check_before_any_work(command, params, word):
    """check() refuses what the answer would refuse, at once: the largest run
    the web app takes is checked in well under its seconds of work."""
    sizes = {"advise": [("samples", "2000000")], "compare": [("hands", "5000000")],
             "show": []}[command]
    a = answers.parse(command, params + sizes)
    t0 = time.perf_counter()
    with pytest.raises(InputError, match=word) as e:
        answers.check(command, a)
    assert "\n" not in str(e.value)
    assert time.perf_counter() - t0 < 2.0


def test_check_passes_a_good_query_without_running_it():
    for command, params in (
            ("advise", [("game", "pepper"), HAND, ("samples", "2000000"), ("score", "1:1"),
                        ("games", "50000"), ("bound", "1")]),
            ("compare", [("game", "pepper"), ("variant", "A:"), ("variant", "B:fail=bid"),
                         ("hands", "5000000"), ("games", "200000")])):
        a = answers.parse(command, params)
        t0 = time.perf_counter()
        answers.check(command, a)
        assert time.perf_counter() - t0 < 2.0, command
