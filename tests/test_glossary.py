"""The glossary (simkit/app/glossary.py): every word the pages use is defined once,
in plain words, with a rule-book section that exists."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from simkit import games
from simkit.app import glossary

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: Words the pages show that a card player may not know, by game.
USED = {
    "pepper": ["Ndogo", "Kubwa", "bowers", "EV", "holds", "made", "pp", "pass", "thrown in",
               "plan", "95% interval", "chance to win", "policy", "dealer", "seat"],
    "pitch": ["moon", "pitcher", "stuck", "steal", "session", "EV", "holds", "made", "Jack"],
    "shiesta": ["pile", "pickup", "burn", "starter", "specials"],
    "burraco": ["pozzetto", "meld", "burraco", "clean", "dirty", "wild", "going out"],
}


def test_keys_are_unique_and_entries_complete():
    keys = [t.key for t in glossary.TERMS]
    assert len(keys) == len(set(keys))
    for t in glossary.TERMS:
        assert t.word, t.key
        assert t.means.endswith("."), t.key
        assert t.source, t.key
        assert set(t.games) <= set(games.GAMES), t.key


@pytest.mark.parametrize("game", list(USED))
def test_every_word_the_pages_use_is_defined(game):
    for word in USED[game]:
        assert glossary.lookup(word, game) is not None, (game, word)


def test_the_rule_book_sections_exist():
    """``seeds/pepper.md 3.1`` names a heading numbered 3.1 in that file."""
    for t in glossary.TERMS:
        m = re.match(r"seeds/(\w+)\.md ([\d., ]+)$", t.source)
        if not m:
            continue
        text = (ROOT / "seeds" / f"{m.group(1)}.md").read_text()
        for number in re.split(r",\s*", m.group(2).strip()):
            assert re.search(rf"^#+ {re.escape(number)}\.? ", text, re.M), (t.key, number)


def test_a_games_words_do_not_leak_into_another():
    assert glossary.lookup("pozzetto", "pepper") is None
    assert glossary.lookup("bid", "pepper").source.startswith("seeds/pepper.md")
    assert glossary.lookup("bid", "pitch").source.startswith("seeds/pitch.md")
    assert {t.key for t in glossary.for_game("shiesta")} >= {"pile", "ev", "seat"}
    assert len(glossary.as_json()["terms"]) == len(glossary.TERMS)


def test_the_glossary_command_prints_a_games_terms(capsys):
    from simkit.app.cli import main

    assert main(["glossary", "burraco", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["terms"]
    assert [t["key"] for t in printed] == [t.key for t in glossary.for_game("burraco")]
    assert "pozzetto" in {t["key"] for t in printed}
    assert "kubwa" not in {t["key"] for t in printed}
    assert main(["glossary", "pepper"]) == 0
    text = capsys.readouterr().out
    assert "Pilipili Kubwa (pepper; also Kubwa)" in text
    # where each term comes from, in the reader's words: the rule book's sections
    assert "[Pepper rules §3 Bids; Pepper rules §5 Scoring]" in " ".join(text.split())
    assert "seeds/" not in text
    assert main(["glossary", "poker"]) == 2
    assert "unknown game 'poker'" in capsys.readouterr().err


def test_the_entries_are_read_from_the_data_file_a_wheel_ships():
    """``glossary.toml`` holds every term, in order, and is package data."""
    import tomllib

    path = ROOT / "simkit" / "app" / "glossary.toml"
    entries = tomllib.loads(path.read_text())["term"]
    assert [e["key"] for e in entries] == [t.key for t in glossary.TERMS]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "glossary.toml" in pyproject["tool"]["setuptools"]["package-data"]["simkit.app"]


def test_every_term_links_where_it_comes_from_never_a_placeholder_or_a_path():
    """Issue 57: seat and dealer showed "(seeds/<game>.md 1)", others a source file's
    path.  Each term of each game now links to its rule book's section on the
    documentation site (the anchor the site gives that heading), the command
    reference, or the glossary's entry."""
    terms = glossary.as_json()["terms"]
    for t in terms:
        assert set(t["links"]) == set(t["games"] or glossary.GAMES), t["key"]
        for game, links in t["links"].items():
            assert links, (t["key"], game)
            for link in links:
                assert "<game>" not in link["text"] + link["href"], (t["key"], game)
                assert not re.search(r"\.py\b|seeds/", link["text"]), (t["key"], link)
                assert link["href"].startswith("/docs/"), link
    seat = next(t for t in terms if t["key"] == "seat")
    assert seat["links"]["pitch"] == [{"text": "Pitch rules §1 Players, deck and deal",
                                       "href": "/docs/games/pitch/#1-players-deck-and-deal"}]
    assert seat["links"]["burraco"][0]["href"] == "/docs/games/burraco/#1-players-cards-and-deal"
    interval = next(t for t in terms if t["key"] == "interval")
    assert interval["links"]["pepper"] == [{"text": "the glossary",
                                            "href": "/docs/glossary/#term-interval"}]
    holds = next(t for t in terms if t["key"] == "holds")
    assert holds["links"]["pepper"][0]["href"] == "/docs/reference/cli/#simkit-advise"


def test_a_section_link_is_the_anchor_the_site_gives_its_heading():
    """The anchors follow Python-Markdown's toc slugs, which the strict site build checks
    (docs/hooks.py links the docs' glossary the same way)."""
    assert glossary.slug("3.1 Auction") == "31-auction"
    assert glossary.slug("9.3 Bidding plans (the advisor)") == "93-bidding-plans-the-advisor"
    assert glossary.slug("7.2 `heuristic`") == "72-heuristic"
    kubwa = glossary.lookup("Kubwa", "pepper")
    assert [x["href"] for x in glossary.links(kubwa, "pepper")] == [
        "/docs/games/pepper/#3-bids", "/docs/games/pepper/#5-scoring"]


def test_burracos_second_deck_mark_is_explained():
    t = glossary.lookup("'", "burraco")
    assert t is glossary.lookup("second deck", "burraco")
    assert "4C'" in t.means
    assert "two decks" in t.means
    assert glossary.lookup("second deck", "pepper") is None
