"""The hand viewer's frames (simkit/bygame/view.py, each game's ``record.frames``,
seeds/records.md "The hand viewer's frames"): for every game, units of runs
as views: the schema exactly, plain JSON, the first frame's hands the deal
of the record's seat lines, the last frame's hands and score the record's
results, every card a card of the game, the cards conserved at every frame
where the game conserves them; ``of_text`` of a record is ``replay``'s text,
a record cut short comes out as the run played it, a bad record is refused
as ``replay`` refuses it."""

from __future__ import annotations

import functools
import json
import re
from collections import Counter

import pytest

from simkit import games
from simkit.base.errors import InputError
from simkit.burraco import record as burraco_record
from simkit.bygame import record, view
from simkit.pepper.rules import DECK as PEPPER_DECK
from simkit.pitch.rules import DECK as PITCH_DECK
from simkit.records.text import key_values
from simkit.shiesta.rules import RANK_TEXT

#: (game, players or None for the game's only count, preset, seed, index)
UNITS = [
    ("pepper", 4, "seed", 3, 0), ("pepper", 4, "stick-the-dealer", 8, 5),
    ("pepper", 3, "seed", 5, 2), ("pepper", 2, "seed", 1, 3),
    ("pitch", 4, "seed", 3, 1), ("pitch", 2, "seed", 9, 4), ("pitch", 7, "seed", 2, 0),
    ("shiesta", 4, "seed", 1, 3), ("shiesta", 3, "seed", 4, 0), ("shiesta", 5, "seed", 2, 1),
    ("burraco", None, "seed", 1, 0), ("burraco", None, "seed", 6, 2),
]
CARDS = {
    "pepper": {PEPPER_DECK.text(c) for c in range(PEPPER_DECK.size)},
    "pitch": {PITCH_DECK.text(c) for c in range(PITCH_DECK.size)},
    "shiesta": set(RANK_TEXT),
    "burraco": {burraco_record.text(c) for c in range(108)},
}


def _rules(game, players, preset):
    return games.get(game).make_rules(preset, None, {}, players)


def _lines(text: str) -> dict[str, str]:
    return {key: value for key, value, _ in key_values(text.splitlines())}


def _count(text: str) -> int:
    """``3 cards`` -> 3."""
    return int(text.split()[0])


def _cards(f: dict) -> list[str]:
    return [c for h in f["hands"] for c in h] + \
        [c for a in f["areas"] for r in a["rows"] for c in r["cards"]]


@functools.cache
def _view(unit: tuple) -> tuple:
    """``(rules, view)`` of a unit of a run, made once per test process."""
    game, players, preset, seed, index = unit
    rules = _rules(game, players, preset)
    return rules, view.of_run(game, rules, None, seed, index, preset)


def _units(*names: str) -> list:
    return [pytest.param(u, id="-".join(map(str, u))) for u in UNITS if u[0] in names]


@pytest.fixture(params=_units(*games.GAMES))
def unit(request):
    game, _, preset, seed, index = request.param
    rules, v = _view(request.param)
    return game, rules, seed, index, preset, v


def test_the_view_is_plain_json_in_the_schema(unit):
    game, rules, seed, index, preset, v = unit
    assert json.loads(json.dumps(v)) == v
    assert list(v) == ["game", "title", "players", "seats", "record", "frames", "result"]
    assert (v["game"], v["title"], v["players"]) == (game, games.get(game).title, rules.players)
    assert len(v["seats"]) == rules.players
    assert all(s.startswith(f"seat {k}")
                                                    for k, s in enumerate(v["seats"]))
    assert v["record"] == record.show(game, rules, None, seed, index, preset)
    assert v["frames"]
    assert v["result"]
    said = _lines(v["record"])
    assert all(len(pair) == 2 and said[pair[0]] == pair[1] for pair in v["result"])
    for f in v["frames"]:
        assert list(f) == ["caption", "actor", "hands", "areas", "score"]
        assert isinstance(f["caption"], str)
        assert f["caption"]
        assert f["actor"] is None or 0 <= f["actor"] < rules.players
        assert len(f["hands"]) == rules.players
        for a in f["areas"]:
            assert list(a) == ["title", "rows"]
            assert a["title"]
            for r in a["rows"]:
                assert list(r) == ["label", "cards", "text", "mark"]
                assert isinstance(r["label"], str)
                assert isinstance(r["text"], str)
                assert isinstance(r["mark"], bool)
        assert f["score"]
        assert all(len(line) == 2 and all(isinstance(x, str) for x in line)
                                  for line in f["score"])
        assert set(_cards(f)) <= CARDS[game], set(_cards(f)) - CARDS[game]
    assert v["frames"][0]["caption"].startswith("the deal")


def test_the_first_frame_holds_the_deal(unit):
    game, _rules, *_, v = unit
    said = _lines(v["record"])
    line = "seat {} hand" if game == "shiesta" else "seat {}"
    for s, hand in enumerate(v["frames"][0]["hands"]):
        dealt = said[line.format(s)].split()
        if game == "burraco":
            assert hand == dealt                    # the record's order: by suit, then rank
        else:
            assert Counter(hand) == Counter(dealt)


def _area(f: dict, title: str) -> dict:
    return next(a for a in f["areas"] if a["title"] == title)


def _trick_game_checks(v, rules):
    """Pepper and Pitch: each frame's hands and the cards played in the tricks so
    far are the deal, each card once; each complete trick's marked row is the
    winner its record line names; the last frame's tricks won are the record's."""
    said = _lines(v["record"])
    deal = Counter(c for s in range(rules.players) for c in said[f"seat {s}"].split())
    winners = [int(line.rpartition("->")[2]) for key, line in said.items()
               if re.fullmatch(r"trick \d+", key)]
    played: dict[str, list[str]] = {}
    for f in v["frames"]:
        tricks = [a for a in f["areas"] if a["title"].startswith("Trick ")]
        for a in tricks:
            played[a["title"]] = [c for r in a["rows"] for c in r["cards"]]
            if len(a["rows"]) == rules.players:
                (marked,) = [r for r in a["rows"] if r["mark"]]
                number = int(a["title"].split()[1])
                assert marked["label"].startswith(f"seat {winners[number - 1]}")
        held = Counter(c for h in f["hands"] for c in h)
        assert held + Counter(c for cs in played.values() for c in cs) == deal
    last = v["frames"][-1]
    won = [_count(r["text"]) for r in _area(last, "Tricks won")["rows"]]
    assert won == [int(t) for t in said["tricks by seat"].split()]
    return said, last


@pytest.mark.parametrize("unit", _units("pepper", "pitch"))
def test_pepper_and_pitch_conserve_the_cards_and_end_as_recorded(unit):
    game = unit[0]
    rules, v = _view(unit)
    said, last = _trick_game_checks(v, rules)
    values = [value for _, value in last["score"]]
    if game == "pepper":
        assert [_count(x) for x in values] == [int(t) for t in said["tricks by side"].split()]
        assert [x.rpartition("score ")[2] for x in values] == said["score by side"].split()
        if rules.players == 2:
            assert _area(last, "Dead hand")["rows"][0]["cards"]
    else:
        numbers = [re.findall(r"[+-]?\d+", x) for x in values]
        assert [n[1] for n in numbers] == said["game points by seat"].split()
        assert [n[2] for n in numbers] == said["points by seat"].split()
        assert [n[3] for n in numbers] == said["score by seat"].split()
    if said.get("contract") != "none":
        assert last["hands"] == [[] for _ in range(rules.players)]


@pytest.mark.parametrize("unit", _units("shiesta"))
def test_shiesta_conserves_the_cards_and_ends_as_recorded(unit):
    rules, v = _view(unit)
    said = _lines(v["record"])
    for f in v["frames"]:
        pile = {r["label"]: r for r in _area(f, "Pile")["rows"]}
        on_table = sum(len(r["cards"]) for r in _area(f, "Rows")["rows"])
        total = sum(map(len, f["hands"])) + on_table + len(pile["pile"]["cards"]) + \
            _count(pile["draw pile"]["text"]) + _count(pile["out of the game"]["text"])
        assert total == 52 * rules.n_decks
    left = [re.findall(r"\d+", value) for _, value in v["frames"][-1]["score"]]
    assert [n[0] for n in left] == said["cards left"].split()
    assert [n[1] for n in left] == said["pickups"].split()
    winner = said["winner"]
    if winner != "none":
        assert v["frames"][-1]["hands"][int(winner.split()[1])] == []


@pytest.mark.parametrize("unit", _units("burraco"))
def test_burraco_conserves_the_cards_and_ends_as_recorded(unit):
    game, _, _, seed, index = unit
    rules, v = _view(unit)
    said = _lines(v["record"])
    for f in v["frames"]:
        cards = _cards(f)
        assert len(cards) == len(set(cards))                # every copy of a card is its own
        table = {r["label"]: r for r in _area(f, "Table")["rows"]}
        untaken = [r["text"] for r in _area(f, "Pozzetti")["rows"] if "taken" not in r["text"]]
        assert len(cards) + _count(table["stock"]["text"]) + sum(map(_count, untaken)) == 108
    last = v["frames"][-1]
    assert [value for _, value in last["score"]] == [said[f"team {t} score"] for t in (0, 1)]
    log = burraco_record.play(rules, games.get(game).make_policies(None, 4), seed, index)
    assert last["hands"] == [burraco_record.hand_text(h).split() for h in log.hands]
    for t in (0, 1):
        assert [r["cards"] for r in _area(last, f"Team {t} melds")["rows"]] == \
            [[burraco_record.text(c) for c in m.cards] for m in log.melds[t]]


def test_of_text_is_the_replay(unit):
    """A record's view is its replay's text and the run's frames; a record cut
    after its deal, played out by its policy lines (or by the policies given),
    comes out as the run played it."""
    game, _rules, _seed, _index, _preset, v = unit
    text = v["record"]
    assert view.of_text(text) == v
    assert view.of_text(text)["record"] == record.replay(text)
    lines = text.splitlines()
    move = next(k for k, line in enumerate(lines)
                if re.match(r"(auction|turn 1|seat \d+ puts face up):", line))
    cut = "\n".join(lines[:move]) + "\n"
    assert view.of_text(cut) == v
    bare = "\n".join(line for line in lines[:move] if not line.startswith("policy ")) + "\n"
    assert view.of_text(bare, [games.get(game).default_policy]) == v


def _bad(text: str) -> tuple[str, str]:
    """What ``replay`` and ``of_text`` say of a bad record: one line each."""
    with pytest.raises(InputError) as replayed:
        record.replay(text)
    with pytest.raises(InputError) as viewed:
        view.of_text(text)
    return str(replayed.value), str(viewed.value)


@pytest.mark.parametrize("game", games.GAMES)
def test_a_bad_record_is_refused_as_replay_refuses_it(game):
    rules = games.get(game).make_rules()
    text = record.show(game, rules, None, 2, 0)
    lines = [line for line in text.splitlines() if not line.startswith("policy ")]
    first = next(k for k, line in enumerate(lines) if line.startswith(
        {"pepper": "trick 1:", "pitch": "trick 1:", "shiesta": "turn 1:",
         "burraco": "discard:"}[game]))
    stops = "\n".join(lines[:first]) + "\n"     # no policy lines to play out the rest
    wrong = {"pepper": "trick 1: 0:XX", "pitch": "trick 1: 0:AS 1:AS",
             "shiesta": "turn 1: seat 0 plays Z", "burraco": "discard: JK''''"}[game]
    garbled = "\n".join([*lines[:first], wrong, *lines[first + 1:]]) + "\n"
    for bad in (stops, garbled, text.replace(f"game: {game}", "game: bridge")):
        replayed, viewed = _bad(bad)
        assert viewed == replayed
        assert "\n" not in viewed


@pytest.mark.parametrize(("game", "preset"), [("pepper", "seed"), ("pitch", "redeal")])
def test_thrown_in_hands_end_with_the_auction(game, preset):
    """A hand everyone passes (written so) is thrown in: its frames end with the
    last call, the hands as dealt, every score +0."""
    rules = _rules(game, 4, preset)
    text = record.show(game, rules, None, 3, 3, preset)      # dealt by seat 3
    lines = [line for line in text.splitlines() if not line.startswith("policy ")]
    deal = lines[:next(k for k, line in enumerate(lines) if line.startswith("auction:"))]
    v = view.of_text("\n".join([*deal, "auction: 0:pass 1:pass 2:pass 3:pass"]) + "\n")
    assert [f["actor"] for f in v["frames"]] == [3, 0, 1, 2, 3]
    assert v["frames"][-1]["hands"] == v["frames"][0]["hands"]
    assert all(value.endswith("score +0") for _, value in v["frames"][-1]["score"])
    assert "thrown in" in v["frames"][-1]["caption"]
    assert not any(re.fullmatch(r"Trick \d+", a["title"]) for f in v["frames"] for a in f["areas"])
