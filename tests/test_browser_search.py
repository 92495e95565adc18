"""The compare page's search mode in a real browser (Chromium through
Playwright, as tests/test_browser.py drives it): the rules and goals picked
with the mouse and with the keyboard alone, a small search run as a job, its
front table and figure, a front point's link to a full comparison, a phone's
width, axe, and Cancel.

Screenshots go into the ``shots`` directory (``$SIMKIT_SCREENSHOTS``) and, to
look at, into ``/tmp/search-shots``.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from test_browser import _axe, _serve, browser, pytestmark, shots  # noqa: F401

from simkit.app.web.server import create_app

try:
    from playwright.sync_api import expect
except ImportError:         # pragma: no cover - pytestmark skips these tests then
    expect = None

LOOK = Path("/tmp/search-shots")
#: A small search: a few settings of Pepper's target, a few hundred games each.
SMALL = ("game=pepper&rule=target%3D20%3A60&goal=hands+per+game%3A+mean%3D12"
         "&trials=5&games=600&seed=0")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app(str(tmp_path_factory.mktemp("reports")), warm=False)


@pytest.fixture(scope="module")
def base(app):
    yield from _serve(app)


def _shot(pg, shots: Path, name: str) -> None:  # noqa: F811  (shots: the fixture's name)
    pg.screenshot(path=shots / name, full_page=True)
    LOOK.mkdir(parents=True, exist_ok=True)
    shutil.copy(shots / name, LOOK / name)


def _page(browser, width: int, height: int):  # noqa: F811  (browser: the fixture's name)
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    return context, pg, errors


def _answer(pg) -> None:
    """Wait for the search's answer: the front table and its figure."""
    expect(pg.locator('#s-answer section[data-table="front"]')).to_be_visible(timeout=90_000)
    expect(pg.locator("#s-estimate")).to_have_text("done")


def _check_answer(pg) -> list[dict]:
    """The front table: the base first, then each point with its value, interval,
    met or not, and a link; the figure has the trials and the answer."""
    rows = pg.locator('#s-answer section[data-table="front"] tbody tr')
    assert rows.count() >= 2
    assert rows.first.get_attribute("data-point") == "base"
    point = rows.nth(1)
    rules = json.loads(point.get_attribute("data-rules"))
    assert 20 <= rules["target"] <= 60
    cell = point.locator("td[data-measure]")
    assert cell.locator(".ci").text_content().startswith("[")
    assert point.locator("td[data-met]").text_content() in ("met", "not met")
    svg = pg.locator("#s-answer svg.search-figure")
    expect(svg).to_be_visible()
    assert svg.locator("circle.trial").count() >= 3
    assert svg.locator("circle.front").count() == 1
    assert "hands per game: mean" in svg.get_attribute("aria-label")
    expect(pg.locator('#s-answer [data-part="head"]')).to_contain_text("at every setting")
    return [rules]


def _follows_link(pg, rules: dict, keyboard: bool) -> None:
    """The point's link opens compare mode with that setting as variant B."""
    link = pg.locator('#s-answer section[data-table="front"] tbody tr').nth(1).get_by_role("link")
    q = dict(parse_qsl(urlsplit(link.get_attribute("href")).query))
    assert q["game"] == "pepper"
    assert q["games"] == "600"
    if keyboard:
        link.focus()
        pg.keyboard.press("Enter")
    else:
        link.click()
    expect(pg.locator(".variant")).to_have_count(2)
    assert pg.locator("#page-compare").is_checked()
    assert not pg.locator("#compare-mode").is_hidden()
    expect(pg.locator("#rules-b-target")).to_have_value(str(rules["target"]))
    expect(pg.locator("#rules-a-target")).to_have_value("30")
    expect(pg.get_by_role("button", name="Compare")).to_be_enabled()


def test_search_with_the_mouse(browser, base, shots):  # noqa: F811
    """Search mode picked, a rule's range and a goal chosen with the mouse, a
    small search run: the front table and figure, and a point's comparison."""
    context, pg, errors = _page(browser, 1366, 900)
    pg.goto(f"{base}/compare")
    pg.get_by_text("search rule settings that meet goals").click()
    expect(pg.locator("#search-mode")).to_be_visible()
    expect(pg.locator("#compare-mode")).to_be_hidden()
    pg.locator("#s-rule-1").select_option("target")
    pg.locator("#s-rule-1-lo").click()
    pg.locator("#s-rule-1-lo").fill("20")
    pg.locator("#s-rule-1-hi").fill("60")
    goal = pg.locator(".search-goal").first
    goal.get_by_label("measure").select_option("hands per game: mean")
    goal.get_by_label("aim").select_option("=")
    goal.get_by_label("value").fill("12")
    pg.locator("#s-trials").fill("5")
    expect(pg.locator("#s-hands-field")).to_be_hidden()     # a measure of whole games
    pg.locator("#s-games").fill("600")
    # the address holds every input
    q = parse_qsl(pg.evaluate("location.search").lstrip("?"))
    assert ("mode", "search") in q
    assert ("rule", "target=20:60") in q
    assert ("goal", "hands per game: mean=12") in q
    assert ("games", "600") in q
    expect(pg.locator("#s-estimate")).to_contain_text("expected time")
    pg.get_by_role("button", name="Search", exact=True).click()
    _answer(pg)
    rules = _check_answer(pg)
    _shot(pg, shots, "search-1366.png")
    _follows_link(pg, rules[0], keyboard=False)
    assert not errors, errors
    context.close()


def test_search_with_the_keyboard_alone(browser, base, shots):  # noqa: F811
    """The same from the keyboard: the mode switch by its arrow keys, the
    fields typed into, Search and the point's link by Enter."""
    context, pg, errors = _page(browser, 1366, 900)
    pg.goto(f"{base}/compare")
    expect(pg.locator(".variant")).to_have_count(2)
    pg.locator("#page-compare").focus()
    pg.keyboard.press("ArrowDown")              # the radio group: to "search"
    expect(pg.locator("#search-mode")).to_be_visible()
    assert pg.locator("#page-search").is_checked()
    pg.locator("#s-rule-1").focus()
    pg.keyboard.press("Home")                   # the first rule, a choice: its values show
    expect(pg.locator("#s-rule-1-values")).to_be_visible()
    pg.keyboard.type("target")                  # the select's type-ahead
    expect(pg.locator("#s-rule-1")).to_have_value("target")
    expect(pg.locator("#s-rule-1-lo")).to_be_visible()
    pg.keyboard.press("Tab")                    # from
    pg.keyboard.press("Control+a")
    pg.keyboard.type("20")
    pg.keyboard.press("Tab")                    # to
    pg.keyboard.press("Control+a")
    pg.keyboard.type("60")
    measure = pg.locator(".search-goal select").first
    measure.focus()
    pg.keyboard.press("Home")
    pg.keyboard.type("hands per game: mean")
    expect(measure).to_have_value("hands per game: mean")
    pg.keyboard.press("Tab")                    # aim: equal to, as it is
    pg.keyboard.press("Tab")                    # value
    pg.keyboard.type("12")
    pg.locator("#s-trials").focus()
    pg.keyboard.press("Control+a")
    pg.keyboard.type("5")
    pg.locator("#s-games").focus()
    pg.keyboard.type("600")
    expect(pg.locator("#s-run")).to_be_enabled()
    pg.locator("#s-run").focus()
    pg.keyboard.press("Enter")
    _answer(pg)
    rules = _check_answer(pg)
    _follows_link(pg, rules[0], keyboard=True)
    assert not errors, errors
    context.close()


def test_search_on_a_phone(browser, base, shots):  # noqa: F811
    """360 px wide, opened from a shared address: nothing scrolls sideways, the
    targets are 24 px or more, axe finds nothing serious, before and after the
    answer."""
    context, pg, errors = _page(browser, 360, 740)
    pg.goto(f"{base}/compare?mode=search&{SMALL}")
    expect(pg.locator("#search-mode")).to_be_visible()
    expect(pg.locator("#s-rule-1-lo")).to_have_value("20")
    expect(pg.locator(".search-goal input").first).to_have_value("12")
    expect(pg.locator("#s-run")).to_be_enabled()
    assert pg.evaluate("document.scrollingElement.scrollWidth") <= 360
    assert _axe(pg) == []
    pg.locator("#s-run").click()
    _answer(pg)
    _check_answer(pg)
    assert pg.evaluate("document.scrollingElement.scrollWidth") <= 360
    # (a glossary word inside a sentence is an inline target, which WCAG exempts)
    small = pg.evaluate("""() => Array.from(document.querySelectorAll(
        '#search-mode button:not(.term), #search-mode a, #search-mode select, '
        + '#search-mode input[type=text], .page-mode label')).filter((b) => b.offsetParent)
        .map((b) => {
        const r = b.getBoundingClientRect();
        return [b.id || b.textContent.trim().slice(0, 30), r.width, r.height]; })
        .filter(([, w, h]) => Math.min(w, h) < 24)""")
    assert small == [], small
    # the figure's words stay readable: the SVG is not squeezed below its drawn size
    width = pg.evaluate("document.querySelector('svg.search-figure').getBoundingClientRect().width")
    assert width >= 280, width
    assert _axe(pg) == []
    _shot(pg, shots, "search-360.png")
    assert not errors, errors
    context.close()


def test_cancel_stops_a_running_search(browser, base, app, shots):  # noqa: F811
    """A long search: its bar shows, Cancel stops it at once, and the server's
    run (the search's process) ends."""
    context, pg, errors = _page(browser, 1366, 900)
    big = SMALL.replace("trials=5", "trials=200").replace("games=600", "games=50000")
    pg.goto(f"{base}/compare?mode=search&{big}")
    expect(pg.locator("#s-run")).to_be_enabled()
    pg.locator("#s-run").click()
    expect(pg.locator("#s-cancel")).to_be_visible()
    expect(pg.locator("#s-progress")).to_be_visible()
    time.sleep(1.5)
    assert app.state.runs.running == 1
    pg.locator("#s-cancel").click()
    expect(pg.locator("#s-estimate")).to_have_text("cancelled")
    expect(pg.locator("#s-cancel")).to_be_hidden()
    expect(pg.locator("#s-run")).to_be_enabled()
    deadline = time.monotonic() + 10
    while app.state.runs.running:
        assert time.monotonic() < deadline, "the search went on after Cancel"
        time.sleep(0.1)
    assert pg.locator("#s-answer").is_hidden()
    assert not errors, errors
    context.close()
