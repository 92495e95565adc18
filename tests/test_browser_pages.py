"""The hand viewer, compare and the rendered reports in a real browser (Playwright
driving Chromium, as tests/test_browser.py does, whose fixtures these tests share):
every hand opens at its first move, a refused paste clears the table, the record
wraps, the tabs follow the WAI-ARIA tabs pattern, the step controls stay beside the
table on a phone, game terms explain themselves, compare names its units and says
why win rates do not add up to 100%, the reports have the app's style and header
and an index of cards; at 360 and 1366 px nothing scrolls sideways and axe-core
finds no serious or critical problem.  Screenshots go to the ``shots`` directory.
"""

from __future__ import annotations

import json
import re

import pytest
from test_browser import _axe, app, base, browser, page, shots  # noqa: F401  (fixtures)
from test_browser import pytestmark as _needs_browser

try:
    from playwright.sync_api import expect
except ImportError:         # pragma: no cover - skipped by _needs_browser then
    expect = None

#: skipped as test_browser.py is: without playwright or Chromium
pytestmark = _needs_browser

WIDTHS = (1366, 360)

#: The page's width, its widest element's right edge, and the sizes of the chart words.
LAYOUT = """() => ({
    scroll: document.documentElement.scrollWidth,
    fonts: Array.from(document.querySelectorAll('svg text')).map((t) => {
        const svg = t.ownerSVGElement;
        if (!svg.viewBox.baseVal || !svg.viewBox.baseVal.width) return 99;
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return parseFloat(getComputedStyle(t).fontSize) * scale;
    }),
})"""


def _glossary(page, app):  # noqa: F811
    """Serve the glossary to this page while the server under test lacks
    /api/glossary (another part of the work adds it)."""
    if any(getattr(r, "path", "") == "/api/glossary" for r in app.routes):
        return
    from simkit.app import glossary
    body = json.dumps(glossary.as_json())
    page.route("**/api/glossary", lambda route: route.fulfill(
        status=200, content_type="application/json", body=body))


def _sized(browser, width, height=800):  # noqa: F811
    """A page of ``width`` px (and its context, to close), collecting page errors."""
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    return context, pg


def _pos(pg):
    return pg.locator("#pos")


def _last(pg) -> int:
    return int(pg.locator("#slider").get_attribute("max"))


def _show(pg, game=None, index=None):
    if game:
        pg.locator("#game").select_option(game)
    if index is not None:
        pg.locator("#index").fill(str(index))
    pg.get_by_role("button", name="Show").click()


# --- the hand viewer ------------------------------------------------------------------------------

def test_every_newly_shown_hand_opens_at_its_first_move(page, base, app, shots):  # noqa: F811
    """After End on one hand: the next hand, another game and a pasted record each
    open at move 0; a shared address's step still opens at that step."""
    _glossary(page, app)
    page.goto(f"{base}/hand?game=pepper&seed=3&index=1&step=5")
    expect(_pos(page)).to_have_text(re.compile(r"^move 5 of \d+$"), timeout=20_000)
    page.keyboard.press("End")
    expect(_pos(page)).to_have_text(f"move {_last(page)} of {_last(page)}")
    assert "step=" in page.url
    _show(page, index=2)                                   # the next hand
    expect(page.locator("#index")).to_have_value("2")
    expect(_pos(page)).to_have_text(re.compile(r"^move 0 of \d+$"))
    assert "step=" not in page.url
    assert "index=2" in page.url
    page.get_by_role("button", name="Last »").click()
    expect(_pos(page)).to_have_text(f"move {_last(page)} of {_last(page)}")
    _show(page, game="pitch", index=5)                     # another game
    expect(page.locator("#felt .seat")).to_have_count(4)
    expect(_pos(page)).to_have_text(re.compile(r"^move 0 of \d+$"))
    record = page.locator("#record").text_content()
    assert record.startswith("# simkit record")
    assert "game: pitch" in record
    page.keyboard.press("End")
    expect(_pos(page)).to_have_text(f"move {_last(page)} of {_last(page)}")
    page.get_by_role("tab", name="Paste a record").click()
    page.locator("#paste").fill(record)                    # a pasted record
    page.get_by_role("button", name="Replay").click()
    expect(_pos(page)).to_have_text(re.compile(r"^move 0 of \d+$"))
    expect(page.locator("#caption")).not_to_be_empty()


def test_a_refused_paste_clears_the_table(page, base, app, shots):  # noqa: F811
    """A record the server refuses: the message alone, no earlier hand under it."""
    _glossary(page, app)
    page.goto(f"{base}/hand?game=pitch&seed=3&index=5")
    expect(page.locator("#viewer")).to_be_visible(timeout=20_000)
    record = page.locator("#record").text_content()
    page.get_by_role("tab", name="Paste a record").click()
    page.locator("#paste").fill(record.replace("trick 2: ", "trick 2: 9:"))
    page.get_by_role("button", name="Replay").click()
    expect(page.locator("#alert")).not_to_be_empty()
    expect(page.locator("#viewer")).to_be_hidden()
    expect(page.locator("#record-panel")).to_be_hidden()
    assert page.locator("#felt .card").count() == 0
    assert page.locator("#record").text_content() == ""
    page.keyboard.press("End")                             # no hand to step through
    page.screenshot(path=shots / "pages-hand-refused.png", full_page=True)
    page.locator("#paste").fill(record)                    # fixed: the hand comes back
    page.get_by_role("button", name="Replay").click()
    expect(page.locator("#alert")).to_be_empty()
    expect(page.locator("#viewer")).to_be_visible()
    expect(_pos(page)).to_have_text(re.compile(r"^move 0 of \d+$"))


def test_the_tabs_follow_the_arrow_keys(page, base, app):  # noqa: F811
    """The WAI-ARIA tabs pattern: one tab in the Tab order (roving tabindex),
    Left/Right/Home/End move to a tab and choose it; those keys do not step the hand."""
    _glossary(page, app)
    page.goto(f"{base}/hand?game=pepper&seed=3&index=1")
    expect(_pos(page)).to_have_text(re.compile(r"^move 0 of"), timeout=20_000)
    run, paste = page.locator("#tab-run"), page.locator("#tab-paste")
    assert (run.get_attribute("tabindex"), paste.get_attribute("tabindex")) == ("0", "-1")
    run.focus()

    def chosen(tab):
        other = paste if tab is run else run
        expect(tab).to_be_focused()
        expect(tab).to_have_attribute("aria-selected", "true")
        expect(tab).to_have_attribute("tabindex", "0")
        expect(other).to_have_attribute("aria-selected", "false")
        expect(other).to_have_attribute("tabindex", "-1")
        expect(page.locator("#from-run")).to_be_visible() if tab is run else \
            expect(page.locator("#from-paste")).to_be_visible()

    page.keyboard.press("ArrowRight")
    chosen(paste)
    page.keyboard.press("ArrowRight")          # wraps round
    chosen(run)
    page.keyboard.press("ArrowLeft")
    chosen(paste)
    page.keyboard.press("Home")
    chosen(run)
    page.keyboard.press("End")
    chosen(paste)
    expect(_pos(page)).to_have_text(re.compile(r"^move 0 of"))    # the hand did not step
    page.keyboard.press("Tab")                  # out of the tab list, into its panel
    assert page.evaluate("document.activeElement.id") == "paste"
    page.keyboard.press("Shift+Tab")
    expect(paste).to_be_focused()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_hand_viewer_fits_and_keeps_its_controls_by_the_table(browser, base, app, shots,  # noqa: F811
                                                                   width):
    """360 and 1366 px: no sideways scrolling with any game's hand, the record's long
    lines wrapped in its box, the caption and the step buttons in sight wherever the
    table is scrolled to (and next to each other), game terms explained on a tap, and
    no serious or critical accessibility problem."""
    context, pg = _sized(browser, width, 800 if width < 700 else 900)
    try:
        _glossary(pg, app)
        for game, seed, index in (("pepper", 3, 1), ("pitch", 3, 5), ("shiesta", 2, 0),
                                  ("burraco", 1, 0)):
            pg.goto(f"{base}/hand?game={game}&seed={seed}&index={index}")
            expect(_pos(pg)).to_have_text(re.compile(r"^move 0 of"), timeout=20_000)
            pg.keyboard.press("End")
            assert pg.evaluate("document.documentElement.scrollWidth") <= width, game
            rec = pg.evaluate("""() => { const r = document.getElementById('record');
                return {scroll: r.scrollWidth, client: r.clientWidth,
                        ws: getComputedStyle(r).whiteSpace,
                        lines: r.textContent.split('\\n').length,
                        height: r.scrollHeight,
                        line: parseFloat(getComputedStyle(r).lineHeight)}; }""")
            assert rec["scroll"] <= rec["client"], rec
            assert rec["ws"] == "pre-wrap", rec
            assert rec["height"] > rec["lines"] * rec["line"], rec    # long lines wrapped
            # scrolled down to the south seat: the caption and Next still in sight
            pg.locator("#felt .slot-s").scroll_into_view_if_needed()
            pg.keyboard.press("Home")
            boxes = pg.evaluate("""() => ['caption', 'next', 'prev'].map((id) => {
                const b = document.getElementById(id).getBoundingClientRect();
                return [b.top, b.bottom]; })""")
            height = pg.viewport_size["height"]
            assert all(top >= 0 and bottom <= height for top, bottom in boxes), (game, boxes)
            assert boxes[1][0] - boxes[0][1] < 80, boxes          # next to each other
            assert pg.evaluate("document.documentElement.scrollWidth") <= width, game
            pg.screenshot(path=shots / f"pages-hand-{game}-{width}.png", full_page=True)
            if width < 700 and game == "pepper":
                pg.screenshot(path=shots / f"pages-hand-{game}-{width}-scrolled.png")
        # a game term in the help text explains itself on a tap, and from the keyboard
        pozzetti = pg.locator("#help button.term", has_text="pozzetti")
        pozzetti.click()
        box = pg.locator(".term-box")
        expect(box).to_contain_text("spare hand")
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        pg.keyboard.press("Escape")
        expect(box).to_have_count(0)
        expect(pozzetti).to_be_focused()
        pg.keyboard.press("Enter")
        expect(box).to_contain_text("spare hand")
        # the hand's own words too: Burraco's last move names melds, the pozzetto
        pg.keyboard.press("Escape")
        pg.locator("#felt").click(position={"x": 5, "y": 5})
        pg.keyboard.press("End")
        marked = {t.strip().lower() for t in pg.locator("#viewer button.term").all_text_contents()}
        assert marked & {"pozzetti", "pozzetto", "burracos", "closed", "closer", "melds"}, marked
        violations = _axe(pg)
        assert violations == [], violations
        assert not pg.errors, pg.errors
    finally:
        context.close()


def test_the_hand_viewers_terms_in_pepper_and_pitch(page, base, app):  # noqa: F811
    """Pitch's pitcher, Pepper's made: buttons that show the glossary's words."""
    _glossary(page, app)
    page.goto(f"{base}/hand?game=pitch&seed=3&index=5")
    expect(_pos(page)).to_have_text(re.compile(r"^move 0 of"), timeout=20_000)
    page.keyboard.press("End")
    pitcher = page.locator("#felt button.term", has_text=re.compile("^pitcher$", re.I)).first
    pitcher.click()
    expect(page.locator(".term-box")).to_contain_text("won the auction")
    page.goto(f"{base}/hand?game=pepper&seed=3&index=1")
    expect(_pos(page)).to_have_text(re.compile(r"^move 0 of"), timeout=20_000)
    page.keyboard.press("End")
    made = page.locator("#result-list button.term", has_text="made")
    made.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".term-box")).to_contain_text("makes it")


# --- compare -------------------------------------------------------------------------------------

@pytest.mark.parametrize("width", WIDTHS)
def test_compare_names_its_units_and_says_why_win_rates_fall_short(browser, base, app, shots,  # noqa: F811
                                                                    width):
    """Pepper, whose tied sides split a win evenly: the base's win rates add up to
    100%, and where games are cut short a note under the games table gives each
    variant's total and why; the legend's highlight is the colour of the bold
    differences and of their bars; terms explained; Burraco's cards left in hand are
    points.  At both widths: no sideways scrolling, chart words of 11 px or more,
    no serious or critical accessibility problem."""
    context, pg = _sized(browser, width, 800 if width < 700 else 900)
    try:
        _glossary(pg, app)
        pg.goto(f"{base}/compare?game=pepper&variant=A:&variant=B:max_rounds=4&hands=2000"
                f"&games=300&seed=1&skill=0")
        expect(pg.locator("#rules-b-max_rounds")).to_have_value("4")       # the page is ready
        pg.get_by_role("button", name="Compare").click()
        games = pg.locator('section[data-table="games"]')
        expect(games).to_be_visible(timeout=120_000)
        note = games.locator(".sum-note")
        expect(note).to_contain_text("less than 100% because a game nobody finished counts "
                                     "for no side")
        totals = json.loads(note.get_attribute("data-sum"))
        assert abs(totals[0] - 1) < 1e-9, totals         # a shared win split, not doubled
        assert totals[1] < 1, totals
        rates = [json.loads(x) for x in games.locator(
            'tr[data-metric$="win rate"] td[data-b]').evaluate_all(
            "els => els.map(e => e.dataset.b)")]
        assert abs(sum(rates) - totals[1]) < 1e-9
        # the legend names the colour the highlights have
        legend = pg.locator("#answer .panel .hint .sig").first
        expect(legend).to_have_text("bold green")
        colour = legend.evaluate("e => getComputedStyle(e).color")
        sig = pg.locator("#answer table.data span.sig")
        assert sig.count() > 0                   # games cut short: fewer rounds per game
        assert set(sig.evaluate_all("els => els.map(e => getComputedStyle(e).color)")) == {colour}
        bar = sig.first.locator("xpath=ancestor::tr").locator("svg.diffbar circle")
        assert bar.evaluate("c => getComputedStyle(c).fill") == colour
        # the words explained: the contract level's Ndogo and Kubwa, Holm's p
        words = {w.strip() for w in pg.locator("#answer button.term").all_text_contents()}
        assert {"Ndogo", "Kubwa", "Holm's p", "95% CI"} <= words, words
        layout = pg.evaluate(LAYOUT)
        assert layout["scroll"] <= width, layout
        assert layout["fonts"], layout["fonts"]
        assert min(layout["fonts"]) >= 11, layout["fonts"]
        pg.locator("#answer button.term", has_text="Kubwa").first.click()
        expect(pg.locator(".term-box")).to_contain_text("highest bid")
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        violations = _axe(pg)
        assert violations == [], violations
        pg.screenshot(path=shots / f"pages-compare-pepper-{width}.png", full_page=True)
        # Burraco: the cards left in hand are points, and negative
        pg.goto(f"{base}/compare?game=burraco&variant=A:&variant=B:closing_bonus=200"
                f"&hands=100&games=10&seed=1&skill=0")
        expect(pg.locator("#rules-b-closing_bonus")).to_have_value("200")
        pg.get_by_role("button", name="Compare").click()
        row = pg.locator('section[data-table="hands"] tr[data-metric="points of cards left in '
                         'hand per hand, team 0"]')
        expect(row).to_be_visible(timeout=120_000)
        assert json.loads(row.locator("td[data-a]").get_attribute("data-a")) < 0
        assert pg.locator('tr[data-metric="cards left in hand per hand, team 0"]').count() == 0
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        violations = _axe(pg)
        assert violations == [], violations
        pg.screenshot(path=shots / f"pages-compare-burraco-{width}.png", full_page=True)
        assert not pg.errors, pg.errors
    finally:
        context.close()


# --- the reports ----------------------------------------------------------------------------------

def _render_reports(where):
    """Two small studies (one with a wide table, one without a figure) and the index."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from simkit.app import report
    report.use_file_backend()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(["pass", "1", "2", "3", "4", "5", "Ndogo", "Kubwa"], [3, 1, 1, 10, 52, 20, 8, 5])
    ax.set_xlabel("bid")
    ax.set_ylabel("share of hands (%)")
    wide = pd.DataFrame({f"column {i}": [i * 1.5, i * 2.25, i * 3.125] for i in range(16)})
    report.render(report.StudyResult(
        "demo-bids", "Demo: how often is each bid made?",
        summary=["With the heuristic at every seat a bid of 4 is made 88.1% of the time "
                 "(95% CI 88.0-88.2%, n=5,000). A second sentence the card leaves out.",
                 "A second finding."],
        tables={"wide": wide}, figures={"shares": fig},
        captions={"shares": "The share of hands each bid wins."},
        descriptions={"wide": "Sixteen columns: wider than a phone."},
        notes=["A method note naming a long policy: heuristic:" + ",".join(
            f"parameter_{i}={i / 7:.4f}" for i in range(40))],
        provenance={"seed": 1, "hands": 3000, "policies": ["heuristic"],
                    "rules": {f"rule_{i}": i for i in range(60)}}), where)   # a long one
    report.render(report.StudyResult(
        "demo-plain", "Demo: a study without a figure", summary=["Nothing to draw."],
        tables={"t": pd.DataFrame({"x": [1, 2]})}, provenance={"seed": 2}), where)
    report.render_index(where)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_reports_look_like_the_app_and_link_back(browser, base, app, shots, width):  # noqa: F811
    """The index: a card per study (its thumbnail, its title as the link, its first
    finding in a sentence); a report: the app's top bar and style, links to the
    app's pages, all reports and the docs; a table wider than a phone scrolls in
    its own box.  No sideways scrolling, no serious or critical axe violation."""
    _render_reports(app.state.reports)
    context, pg = _sized(browser, width, 800 if width < 700 else 900)
    try:
        pg.goto(f"{base}/reports/")
        cards = pg.locator("li.report-card")
        expect(cards).to_have_count(2)
        first = cards.first
        expect(first.locator("h2 a")).to_have_text("Demo: how often is each bid made?")
        expect(first.locator(".finding")).to_have_text(
            "With the heuristic at every seat a bid of 4 is made 88.1% of the time "
            "(95% CI 88.0-88.2%, n=5,000).")
        thumb = first.locator("img.thumb")
        expect(thumb).to_have_attribute("alt", "The share of hands each bid wins.")
        thumb.scroll_into_view_if_needed()
        pg.wait_for_function("img => img.complete && img.naturalWidth > 0",
                             arg=thumb.element_handle())
        expect(cards.nth(1).locator(".thumb.none")).to_have_count(1)
        links = pg.locator("nav.top a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
        assert {"/", "/hand", "/compare", "index.html"} <= set(links), links
        assert "/docs/" in links, links                     # the site, not the raw README
        style = pg.evaluate("""() => ({
            nav: getComputedStyle(document.querySelector('nav.top')).borderBottomColor,
            card: getComputedStyle(document.querySelector('.report-card')).backgroundColor})""")
        assert style == {"nav": "rgb(179, 138, 36)", "card": "rgb(253, 249, 239)"}, style
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        violations = _axe(pg)
        assert violations == [], violations
        pg.screenshot(path=shots / f"pages-reports-index-{width}.png", full_page=True)
        # a tap anywhere on the card opens the report
        b = first.locator(".finding").bounding_box()
        pg.mouse.click(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
        expect(pg).to_have_url(re.compile(r"/reports/demo-bids/(index\.html)?$"))
        expect(pg.locator("h1")).to_have_text("Demo: how often is each bid made?")
        links = pg.locator("nav.top a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
        assert {"/", "/hand", "/compare", "../index.html"} <= set(links), links
        assert pg.locator("section.panel.summary li").count() == 2
        # the figure loads (waited for: a busy machine serves it later than the page)
        pg.wait_for_function("() => { const i = document.querySelector('figure img'); "
                             "return i && i.complete && i.naturalWidth > 0; }", timeout=15_000)
        table = pg.locator("div.scroll table.data")
        expect(table).to_have_count(1)
        fits = pg.evaluate("""() => { const s = document.querySelector('div.scroll');
            return {page: document.documentElement.scrollWidth,
                    box: s.getBoundingClientRect().right,
                    inner: s.scrollWidth, outer: s.clientWidth}; }""")
        assert fits["page"] <= width, fits
        assert fits["box"] <= width, fits
        if width < 700:
            assert fits["inner"] > fits["outer"], fits      # the table scrolls in its box
        assert pg.locator("pre.provenance").evaluate(
            "p => p.scrollHeight > p.clientHeight")          # it scrolls: reachable by keyboard
        violations = _axe(pg)
        assert violations == [], violations
        pg.screenshot(path=shots / f"pages-report-{width}.png", full_page=True)
        # the figure opens at full size: its own PNG, wider than a phone, to zoom into
        shown = pg.locator("figure img").evaluate("i => i.getBoundingClientRect().width")
        pg.locator("figure a.full").click()
        expect(pg).to_have_url(re.compile(r"/reports/demo-bids/shares\.png$"))
        natural = pg.evaluate("document.images[0].naturalWidth")
        if width < 700:                                      # more than the phone showed
            assert natural > shown, (natural, shown)
            assert natural > width, natural
        pg.screenshot(path=shots / f"pages-report-figure-{width}.png")
        pg.go_back()
        expect(pg.get_by_role("link", name="Open at full size")).to_have_attribute(
            "href", "shares.png")
        # the docs link opens the documentation site that simkit serve serves
        pg.locator("nav.top a", has_text="Docs").click()
        expect(pg).to_have_url(re.compile(re.escape(f"{base}/docs/") + r"$"))
        assert "README" not in pg.url
        pg.go_back()
        pg.get_by_role("link", name="All reports").click()
        expect(cards).to_have_count(2)
        pg.locator("nav.top a", has_text="Compare").click()
        # the page may write its inputs into the address as soon as it opens
        expect(pg).to_have_url(re.compile(re.escape(f"{base}/compare") + r"(\?.*)?$"))
        assert not pg.errors, pg.errors
    finally:
        context.close()


# --- issue 57: the hand viewer's money, counter and focus -------------------------------------

@pytest.mark.parametrize("width", WIDTHS)
def test_the_hand_viewer_writes_money_one_way_and_keeps_its_counter_and_focus(
        browser, base, app, shots, width):  # noqa: F811
    """Pitch's money by seat was "-$0.1 +$0 +$0.2 -$0.1": now +$0.10 (at least the cents,
    every digit the record states).  On a phone the slider sits under the counter,
    not over it; "« First" and "Last »", disabling themselves, hand the focus on
    instead of dropping it to the page."""
    context, pg = _sized(browser, width)
    try:
        _glossary(pg, app)
        pg.goto(f"{base}/hand?game=pitch&seed=3&index=5")
        expect(pg.locator("#viewer")).to_be_visible(timeout=120_000)
        pg.locator("#last").focus()
        pg.keyboard.press("Enter")
        expect(pg.locator("#result")).to_be_visible()
        assert pg.evaluate("document.activeElement.id") == "prev"
        result = dict(zip(pg.locator("#result-list dt").all_inner_texts(),
                          pg.locator("#result-list dd").all_inner_texts()))
        money = result["money by seat"].split()
        assert money, result
        for amount in money:
            assert re.fullmatch(r"(?:[+-]\$[0-9]+\.[0-9]{2,4}|\$0\.00)", amount), money
        pos, slider = pg.locator("#pos"), pg.locator("#slider")
        a, b = pos.bounding_box(), slider.bounding_box()
        apart = (a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"]
                 or a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"])
        assert apart, (a, b)
        assert pos.evaluate("p => p.scrollWidth <= p.clientWidth + 1"), pos.inner_text()
        pg.screenshot(path=shots / f"issue57-hand-pitch-{width}.png", full_page=True)
        pg.locator("#first").focus()
        pg.keyboard.press("Enter")
        expect(pg.locator("#first")).to_be_disabled()
        assert pg.evaluate("document.activeElement.id") == "next"
        assert not pg.errors, pg.errors
    finally:
        context.close()
