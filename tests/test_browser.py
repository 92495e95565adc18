"""The pages in a real browser: Playwright driving Debian's Chromium against
``simkit serve``'s app on a free port (uvicorn in a thread).

Each test saves a screenshot of its page into ``$SIMKIT_SCREENSHOTS`` (default:
a pytest temporary directory; never the repository), to look at.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import threading
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from simkit.advice import money as advice_money

CHROMIUM = "/usr/bin/chromium"
try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:         # pragma: no cover - the test extras install it
    sync_playwright = None

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    sync_playwright is None or not (os.path.exists(CHROMIUM) or shutil.which("chromium")),
    reason="the browser tests need playwright (pip install playwright) and Debian's "
           "chromium at /usr/bin/chromium (apt-get install chromium)")]

HAND = ["JH", "JD", "AH", "KH", "9C", "9S"]


# --- the server and the browser -------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from simkit.app.web.server import create_app
    return create_app(str(tmp_path_factory.mktemp("reports")), warm=False)


def _serve(app):
    """Serve ``app`` by uvicorn on a free port, in a thread; yield its address."""
    import uvicorn
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=_free_port(),
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        assert thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{server.config.port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def base(app):
    """The app served on a free port, in a thread."""
    yield from _serve(app)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not errors, errors


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("SIMKIT_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _cli_json(capsys, *argv) -> dict:
    from simkit.app.cli import main
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _advise_button(page):
    return page.get_by_role("button", name="Advise", exact=True)


def _grid_card(page, text: str):
    return page.locator(f'#grid button[data-card="{text}"]')


def _table(page) -> list[dict]:
    """The answer's table as the page holds it: per row the plan and, per
    column, the value and the interval ends (exactly the JSON numbers)."""
    rows = []
    for tr in page.locator("#plans tbody tr").all():
        row = {"bid": tr.get_attribute("data-bid")}
        for td in tr.locator("td[data-key]").all():
            key = td.get_attribute("data-key")
            row[key] = json.loads(td.get_attribute("data-value"))
            row[f"{key} text"] = td.locator(".v").text_content() if row[key] is not None else None
            if td.get_attribute("data-low") is not None:
                row[f"{key} low"] = json.loads(td.get_attribute("data-low"))
                row[f"{key} high"] = json.loads(td.get_attribute("data-high"))
        rows.append(row)
    return rows


def _assert_table_is(page, advice: dict) -> None:
    """The page's table, recommendation and policies are the CLI's JSON."""
    shown = _table(page)
    assert [r["bid"] for r in shown] == [b["bid"] for b in advice["bids"]]
    intervals = {"p_contract": ("contract_low", "contract_high"), "p_make": ("ci_low", "ci_high"),
                 "ev": ("ev_low", "ev_high")}
    for row, want in zip(shown, advice["bids"]):
        for key in ("p_contract", "p_make", "ev_us", "ev_them", "ev"):
            assert row[key] == want[key], (row["bid"], key)
        for key, (lo, hi) in intervals.items():
            assert (row[f"{key} low"], row[f"{key} high"]) == (want[lo], want[hi])
        if advice["game"] == "pitch":                # money one way: +$0.09, as the CLI's table
            assert row["ev text"] == advice_money(want["ev"])
        else:
            assert row["ev text"] == f"{want['ev']:+.2f}"
        if want["p_make"] is not None:
            assert row["p_make text"] == f"{100 * want['p_make']:.1f}%"
    assert page.locator("#recommended").text_content() == advice["recommended"]
    assert page.locator("tr.best").get_attribute("data-bid") == advice["recommended"]
    played = page.locator("#played li code").all_text_contents()
    assert played == advice["policies"]
    chart = page.locator("#chart svg g[data-bid]")
    assert chart.count() == len(advice["bids"])


def _run_advice(page) -> None:
    _advise_button(page).click()
    expect(page.locator("#answer")).to_be_visible(timeout=120_000)


AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"


def _axe(page) -> list[dict]:
    """The serious and critical accessibility violations axe-core (vendored:
    tests/vendor) finds on the page as it is now: ``[{id, impact, help,
    nodes}]`` (nodes: the first few elements' selectors), empty when none."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ["violations"]});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))}));
    }""")
    return [v for v in found if v["impact"] in ("serious", "critical")]


def _phone(browser, width: int = 360, height: int = 800):
    """A page in a phone-sized window (closed with its context by the caller)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    return context, pg


def _glossary_served(page, app) -> None:
    """The glossary the pages read, also while the server under test lacks
    /api/glossary (another part of the work adds it): served from
    simkit.app.glossary for this page only then."""
    if any(getattr(r, "path", "") == "/api/glossary" for r in app.routes):
        return
    from simkit.app import glossary
    body = json.dumps(glossary.as_json())
    page.route("**/api/glossary", lambda route: route.fulfill(
        status=200, content_type="application/json", body=body))


# --- the advisor ----------------------------------------------------------------------------------

def test_clicking_cards_enables_advise_and_bad_cards_get_the_alert(page, base, shots):
    page.goto(f"{base}/?game=pepper")
    # the one element with role="alert" (hidden while empty, so found by its role attribute)
    button, alert = _advise_button(page), page.locator('[role="alert"]')
    expect(button).to_be_disabled()
    for card in HAND:
        expect(button).to_be_disabled()
        _grid_card(page, card).click()
    expect(button).to_be_enabled()
    expect(page.locator("#hand")).to_have_value(" ".join(HAND))
    expect(alert).to_be_empty()
    # a seventh card is refused, naming the count and the card
    _grid_card(page, "QS").click()
    expect(alert).to_contain_text("6 cards")
    expect(alert).to_contain_text("QS")
    expect(page.locator("#hand")).to_have_value(" ".join(HAND))
    expect(_grid_card(page, "QS")).not_to_have_class(re.compile("picked"))
    expect(button).to_be_enabled()
    # a picked card is greyed in the grid; clicking it again drops it
    expect(_grid_card(page, "JH")).to_have_class(re.compile("picked"))
    _grid_card(page, "9S").click()
    expect(button).to_be_disabled()
    expect(page.locator("#hand")).to_have_value(" ".join(HAND[:-1]))
    # typing: a card that is no card, a card twice, one not in the deck
    for text, named in (("JH JD AH KH 9C 1Z", "1Z"), ("JH JD AH KH 9C JH", "JH"),
                        ("JH JD AH KH 9C 2S", "2S")):
        page.locator("#hand").fill(text)
        expect(alert).to_contain_text(named)
        expect(button).to_be_disabled()
    page.locator("#hand").fill("jh jd ah kh 9c 9s")
    expect(alert).to_be_empty()
    expect(button).to_be_enabled()
    expect(_grid_card(page, "9S")).to_have_class(re.compile("picked"))
    page.locator("#hand").fill("JH JD AH KH 9C 1Z")
    page.screenshot(path=shots / "advisor-alert.png", full_page=True)


def test_the_table_is_the_clis_json(page, base, shots, capsys):
    page.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&players=4&seed=1&samples=2000")
    expect(page.locator("#estimate")).to_contain_text("expected time", timeout=20_000)
    _run_advice(page)
    advice = _cli_json(capsys, "advise", "pepper", "--hand", " ".join(HAND), "--players", "4",
                       "--seed", "1", "--samples", "2000")
    _assert_table_is(page, advice)
    expect(page.locator("#reason")).to_contain_text(advice["reason"])
    page.screenshot(path=shots / "advisor.png", full_page=True)


def test_a_long_run_shows_its_percentage_and_cancel_stops_it(page, base, app, shots):
    page.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&players=4&seed=1&samples=2000000")
    button, percent = _advise_button(page), page.locator("#percent")
    expect(button).to_be_enabled()
    before = set(app.state.jobs.jobs)
    started = time.monotonic()
    button.click()
    expect(percent).to_be_visible(timeout=2000)
    expect(percent).to_have_text(re.compile(r"^\d+\.\d%$"))
    assert time.monotonic() - started < 2.0
    expect(percent).not_to_have_text("0.0%", timeout=5000)       # it moves
    expect(page.get_by_role("progressbar")).to_be_visible()
    page.screenshot(path=shots / "advisor-running.png", full_page=True)
    clicked = time.monotonic()
    page.get_by_role("button", name="Cancel").click()
    expect(button).to_be_enabled(timeout=1000)
    assert time.monotonic() - clicked < 1.0
    expect(percent).to_be_hidden()
    # and the work itself stopped on the server
    mine = [job for i, job in list(app.state.jobs.jobs.items()) if i not in before]
    assert len(mine) == 1
    for job in mine:
        job.thread.join(1.5)
        assert not job.thread.is_alive()
        assert job.status == "cancelled"


def test_a_closed_tabs_work_is_stopped(browser, base, app):
    tab = browser.new_page()
    tab.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&players=4&seed=2&samples=2000000")
    before = set(app.state.jobs.jobs)
    _advise_button(tab).click()
    expect(tab.locator("#percent")).not_to_have_text("0.0%", timeout=5000)
    mine = [job for i, job in list(app.state.jobs.jobs.items()) if i not in before]
    assert len(mine) == 1
    assert mine[0].status == "running"
    closed = time.monotonic()
    tab.close(run_before_unload=True)
    mine[0].thread.join(7.0)
    assert not mine[0].thread.is_alive()
    assert mine[0].status == "cancelled"
    assert time.monotonic() - closed < 7.0


def test_a_shared_link_restores_the_inputs_and_the_numbers(browser, page, base, shots, capsys):
    page.goto(f"{base}/")
    page.locator("label[for=game-pitch]").click()
    for card in ("AS", "KS", "QS", "JS", "10S", "9D"):
        _grid_card(page, card).click()
    page.locator("#players").select_option("3")
    page.locator("#dealer").select_option("2")
    page.locator("#seat").select_option("1")
    page.locator("details.group summary", has_text="Rules").click()
    page.locator("#rules-low").select_option("dealt")
    page.locator("details.group summary", has_text="Policies").click()
    page.locator("#policy-0").select_option("classic")
    page.locator("details.group summary", has_text="The run").click()
    page.locator("#samples").fill("1500")
    page.locator("#seed").fill("4")
    _run_advice(page)
    first = _table(page)
    link = page.url
    query = dict(parse_qsl(urlsplit(link).query))
    assert query == {"game": "pitch", "hand": "AS KS QS JS 10S 9D", "players": "3",
                     "seat": "1", "dealer": "2", "set": "low=dealt", "policy": "classic",
                     "samples": "1500", "seed": "4"}
    other = browser.new_page(viewport={"width": 1360, "height": 900})
    try:
        other.goto(link)
        expect(other.locator("#hand")).to_have_value("AS KS QS JS 10S 9D")
        expect(other.locator("#game-pitch")).to_be_checked()
        for sel, value in (("#players", "3"), ("#dealer", "2"), ("#seat", "1"),
                           ("#rules-low", "dealt"), ("#policy-0", "classic"),
                           ("#samples", "1500"), ("#seed", "4")):
            expect(other.locator(sel)).to_have_value(value)
        expect(other.locator("#answer")).to_be_hidden()        # it runs when asked
        _run_advice(other)
        assert _table(other) == first
        assert dict(parse_qsl(urlsplit(other.url).query)) == query
        other.screenshot(path=shots / "advisor-shared.png", full_page=True)
    finally:
        other.close()
    advice = _cli_json(capsys, "advise", "pitch", "--hand", "AS KS QS JS 10S 9D",
                       "--players", "3", "--seat", "1", "--dealer", "2", "--set", "low=dealt",
                       "--policy", "classic", "--samples", "1500", "--seed", "4")
    _assert_table_is(page, advice)


def _focused_card(page) -> str | None:
    return page.evaluate("document.activeElement && document.activeElement.closest('#grid')"
                         " ? document.activeElement.dataset.card : null")


def test_the_deck_by_keyboard_alone_six_cards_in_40_presses(page, base, shots):
    """The deck is one widget: one Tab stop, the arrow keys (and Home, End)
    inside it; Enter or Space picks a card and the focus stays on it. The
    issue's 6-card Pepper hand in at most 40 key presses from the page's
    load, then one key (Ctrl+Enter) advises."""
    page.goto(f"{base}/?game=pepper&samples=2000&seed=1")
    expect(_grid_card(page, "AC")).to_be_visible()
    presses = 0

    def press(key):
        nonlocal presses
        presses += 1
        page.keyboard.press(key)

    while _focused_card(page) is None:              # Tab to the deck: one stop
        press("Tab")
        assert presses < 20, "the deck is not reached by Tab"
    stops = page.locator('#grid button.card[tabindex="0"]')
    expect(stops).to_have_count(1)
    columns = len(page.locator("#grid .row").first.locator("button.card").all())
    for i, card in enumerate(HAND):
        here = _grid_card(page, _focused_card(page))
        r, c = int(here.get_attribute("data-row")), int(here.get_attribute("data-col"))
        there = _grid_card(page, card)
        tr, tc = int(there.get_attribute("data-row")), int(there.get_attribute("data-col"))
        for _ in range(abs(tr - r)):
            press("ArrowDown" if tr > r else "ArrowUp")
        # along the suit: the arrows, or Home / End and the arrows from there
        ways = [(abs(tc - c), []), (1 + tc, ["Home"]), (1 + columns - 1 - tc, ["End"])]
        _, first = min(ways, key=lambda w: w[0])
        for key in first:
            press(key)
        c = 0 if first == ["Home"] else columns - 1 if first == ["End"] else c
        for _ in range(abs(tc - c)):
            press("ArrowRight" if tc > c else "ArrowLeft")
        assert _focused_card(page) == card
        press("Enter" if i % 2 == 0 else "Space")
        expect(there).to_have_attribute("aria-pressed", "true")
        assert _focused_card(page) == card, "the focus left the card just picked"
        expect(stops).to_have_count(1)
    expect(page.locator("#hand")).to_have_value(" ".join(HAND))
    picked = presses
    assert picked <= 40, picked
    (shots / "keyboard-presses.txt").write_text(f"{picked} key presses for {' '.join(HAND)}\n")
    print(f"\n{picked} key presses picked {' '.join(HAND)}")
    # Enter again drops the card, the focus staying; Space picks it back
    page.keyboard.press("Enter")
    expect(_grid_card(page, HAND[-1])).to_have_attribute("aria-pressed", "false")
    assert _focused_card(page) == HAND[-1]
    page.keyboard.press("Space")
    expect(_advise_button(page)).to_be_enabled()
    # Shift+Tab leaves the deck and Tab comes back to the card last visited
    page.keyboard.press("Shift+Tab")
    assert _focused_card(page) is None
    page.keyboard.press("Tab")
    assert _focused_card(page) == HAND[-1]
    page.keyboard.press("Control+Enter")            # one key to advise
    expect(page.locator("#answer")).to_be_visible(timeout=120_000)
    page.screenshot(path=shots / "advisor-keyboard.png", full_page=True)


def test_enter_in_the_text_box_advises(page, base):
    page.goto(f"{base}/?game=pepper&samples=2000&seed=1")
    expect(_grid_card(page, "AC")).to_be_visible()
    page.locator("#hand").focus()
    page.keyboard.type("jh jd ah kh 9c 9s")
    expect(_advise_button(page)).to_be_enabled()
    page.keyboard.press("Enter")
    expect(page.locator("#answer")).to_be_visible(timeout=120_000)
    expect(page.locator("#hand")).to_have_value("JH JD AH KH 9C 9S")      # as the deck writes it


def test_a_shared_link_with_run_runs_on_open(browser, page, base, shots):
    """A link naming a complete question with run=1 (which Copy the link adds)
    opens with the answer; one with an incomplete hand says why it did not run."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&samples=2000&seed=3&run=1")
    expect(page.locator("#answer")).to_be_visible(timeout=120_000)
    expect(page.locator("#recommended")).not_to_be_empty()
    page.get_by_role("button", name="Copy the link").click()
    expect(page.locator("#shared")).to_contain_text("runs it")
    link = page.evaluate("navigator.clipboard.readText()")
    query = dict(parse_qsl(urlsplit(link).query))
    assert query == {"game": "pepper", "hand": " ".join(HAND), "players": "4",
                     "samples": "2000", "seed": "3", "run": "1"}
    other = browser.new_page(viewport={"width": 1366, "height": 900})
    try:
        other.goto(link)
        expect(other.locator("#answer")).to_be_visible(timeout=30_000)
        assert _table(other) == _table(page)
        other.goto(f"{base}/?game=pepper&hand=JH+JD&samples=2000&run=1")
        expect(other.locator("#estimate")).to_contain_text("not complete")
        expect(other.locator("#answer")).to_be_hidden()
    finally:
        other.close()


def test_game_terms_explain_themselves_on_focus_and_click(page, base, app, shots):
    """Every game term on the advisor page is a button: Enter (from the keyboard)
    or a click shows its definition from the glossary, a mouse hover alone does
    not, Escape closes it and gives the focus back."""
    from simkit.app import glossary
    _glossary_served(page, app)
    page.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&samples=2000&seed=1")
    _run_advice(page)
    words = {w.strip().lower() for w in page.locator("button.term").all_text_contents()}
    for w in ("ndogo", "kubwa", "ev", "holds", "made", "95% intervals", "policies", "seat",
              "dealer", "bowers", "plan"):
        assert w in words, (w, sorted(words))
    ev = page.locator("#table-note button.term", has_text="EV")
    box = page.locator(".term-box")
    ev.hover()
    expect(box).to_have_count(0)                    # not on hover alone
    ev.focus()
    page.keyboard.press("Enter")
    expect(box).to_have_count(1)
    expect(box).to_contain_text(glossary.lookup("EV", "pepper").means)
    expect(ev).to_have_attribute("aria-expanded", "true")
    page.screenshot(path=shots / "advisor-term.png")
    page.keyboard.press("Escape")
    expect(box).to_have_count(0)
    assert page.evaluate("document.activeElement.textContent") == "EV"
    kubwa = page.locator("#trump-note button.term", has_text="Kubwa")
    kubwa.click()
    expect(box).to_contain_text(glossary.lookup("Kubwa", "pepper").means)
    page.locator("h1").click()                      # a click elsewhere closes it
    expect(box).to_have_count(0)
    # the plans' boxes explain theirs too
    page.locator("details.group summary", has_text="The run").click()
    page.get_by_role("button", name="what kubwa means").click()
    expect(box).to_contain_text(glossary.lookup("kubwa", "pepper").means)


def test_a_late_estimate_does_not_overwrite_a_field_changed_since(page, base):
    """The server's time estimate for 2000 samples answers late, after the
    field was changed to a number over the limit: the page keeps saying what
    is wrong and shows no expected time (the late answer is dropped)."""
    import time as _time

    def slow(route):
        if "samples=2000" in route.request.url:
            _time.sleep(1.5)
        route.continue_()
    page.route("**/api/estimate*", slow)
    page.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&samples=abc")
    expect(page.locator("#samples-error")).to_contain_text("'abc' is not a whole number")
    with page.expect_request("**/api/estimate*samples=2000*"):
        page.locator("#samples").fill("2000")
    page.locator("#samples").fill(str(10 ** 12))
    expect(page.locator("#samples-error")).to_contain_text("at most")
    page.wait_for_timeout(2500)             # the late answer has come and gone
    expect(page.locator("#estimate")).not_to_contain_text("expected time")
    expect(page.locator("#estimate")).to_contain_text("samples")


def test_field_errors_speak_the_pages_words_on_the_field(page, base, shots):
    """samples=abc: an error on the samples field naming it, no NaN anywhere, the
    hand box not marked, Advise disabled; fixed, the error goes. Over the
    server's limit (/api/limits) says so instead of a time. A score error sits
    on the score field."""
    limit = page.request.get(f"{base}/api/limits").json()["advise"]["samples"]
    page.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&samples=abc")
    error = page.locator("#samples-error")
    expect(error).to_contain_text("samples")
    expect(error).to_contain_text("'abc' is not a whole number")
    expect(page.locator("#samples")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#samples")).to_be_visible()       # its group opened
    expect(page.locator("#hand")).to_have_attribute("aria-invalid", "false")
    expect(page.locator('[role="alert"]')).to_be_empty()
    expect(_advise_button(page)).to_be_disabled()
    assert "NaN" not in page.locator("body").inner_text()
    page.screenshot(path=shots / "advisor-samples-error.png", full_page=True)
    page.locator("#samples").fill("2000")
    expect(error).to_be_empty()
    expect(page.locator("#samples")).to_have_attribute("aria-invalid", "false")
    expect(_advise_button(page)).to_be_enabled()
    expect(page.locator("#estimate")).to_contain_text("expected time", timeout=20_000)
    page.locator("#samples").fill(str(10 ** 12))
    expect(error).to_contain_text(f"at most {limit:,}")
    expect(_advise_button(page)).to_be_disabled()
    expect(page.locator("#estimate")).not_to_contain_text("expected time")
    expect(page.locator("#estimate")).not_to_contain_text("min")
    page.locator("#samples").fill("2000")
    page.locator("#score").fill("20-25")
    expect(page.locator("#score-error")).to_contain_text("score")
    expect(_advise_button(page)).to_be_disabled()
    expect(page.locator("#hand")).to_have_attribute("aria-invalid", "false")
    page.locator("#score").fill("20:25")
    expect(page.locator("#score-error")).to_be_empty()
    expect(_advise_button(page)).to_be_enabled()
    # a field explains itself while it has the focus, or after a tap of its "?"
    doc = page.locator("#samples-help-doc")
    expect(doc).to_be_hidden()
    page.locator("#samples").focus()
    expect(doc).to_be_visible()
    expect(doc).to_contain_text("deals")
    page.locator("#seed").focus()
    expect(doc).to_be_hidden()
    page.get_by_role("button", name="about samples (deals)").click()
    expect(doc).to_be_visible()
    page.locator("h1").click()
    expect(doc).to_be_visible()                      # a tap keeps it until tapped again
    page.get_by_role("button", name="about samples (deals)").click()
    expect(doc).to_be_hidden()
    # a rule's value: the error under that rule, its group opened; fixed, it goes
    page.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&samples=2000&set=target=abc")
    rule_error = page.locator("#rules-target-error")
    expect(rule_error).to_contain_text("target")
    expect(page.locator("#rules-target")).to_be_visible()
    expect(_advise_button(page)).to_be_disabled()
    expect(page.locator("#hand")).to_have_attribute("aria-invalid", "false")
    page.locator("#rules-target").fill("40")
    expect(rule_error).to_be_empty()
    expect(_advise_button(page)).to_be_enabled()
    # a server's sentence in the page's words: no command line, no rule-book numbers
    plain = page.evaluate("""async () => (await import('/static/common.js')).plainError(
        "argument --samples: 'abc' is not a whole number (see 'simkit advise --help')",
        {samples: "samples (deals)"})""")
    assert plain == "samples (deals): 'abc' is not a whole number"


def test_a_score_shows_the_win_chance_with_its_interval_and_why(page, base, shots):
    """20:25 in Pepper: the chance to win the game decides; its column has a 95%
    interval, its chart is drawn, and a sentence says why it, not EV, decides."""
    page.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&score=20:25&samples=2000"
              f"&games=200&seed=1")
    _run_advice(page)
    decides = page.locator("#decides")
    expect(decides).to_be_visible()
    expect(decides).to_contain_text("chance to win the game")
    expect(decides).to_contain_text("not by EV")
    for row in _table(page):
        assert 0 <= row["p_win low"] <= row["p_win"] <= row["p_win high"] <= 1, row
    expect(page.locator("#win-chart svg g[data-bid]")).to_have_count(
        page.locator("#plans tbody tr").count())
    badge = page.locator("#close-badge")
    expect(badge).to_have_text(re.compile("^(clear choice|too close to call)$"))
    expect(page.locator("#headline")).to_contain_text("wins the game")
    page.screenshot(path=shots / "advisor-score.png", full_page=True)


_LAYOUT = """() => {
    const rows = Array.from(document.querySelectorAll('#grid .row')).map((row) =>
        new Set(Array.from(row.querySelectorAll('button.card')).map((b) =>
            b.offsetTop)).size);
    const fonts = Array.from(document.querySelectorAll('svg.chart text')).map((t) => {
        const svg = t.ownerSVGElement;
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return parseFloat(getComputedStyle(t).fontSize) * scale;
    });
    const box = document.getElementById('plans-box').getBoundingClientRect();
    const inner = document.getElementById('plans-box');
    return {scroll: document.documentElement.scrollWidth, rows, fonts,
            table: [box.left, box.right], hidden: inner.scrollWidth - inner.clientWidth};
}"""


@pytest.mark.parametrize("width", [360, 390])
def test_the_advisor_on_a_phone(browser, base, app, shots, width):
    """A phone: nothing scrolls sideways before or with an answer (the table
    scrolls in its own box), each suit on one row, chart words of 11 px or
    more, and no serious or critical accessibility problem (axe-core)."""
    context, pg = _phone(browser, width)
    try:
        _glossary_served(pg, app)
        pg.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&score=20:25&samples=2000"
                f"&games=200&seed=1")
        expect(_advise_button(pg)).to_be_enabled()
        before = pg.evaluate(_LAYOUT)
        assert before["scroll"] <= width, before
        assert before["rows"] == [1, 1, 1, 1], before
        assert _axe(pg) == []
        pg.screenshot(path=shots / f"advisor-{width}.png", full_page=True)
        _run_advice(pg)
        after = pg.evaluate(_LAYOUT)
        assert after["scroll"] <= width, after
        assert after["rows"] == [1, 1, 1, 1], after
        assert after["table"][0] >= 0, after
        assert after["table"][1] <= width, after
        assert after["hidden"] <= 1, after            # a card per plan: no column off-screen
        assert after["fonts"], after["fonts"]
        assert min(after["fonts"]) >= 11, after["fonts"]
        (shots / f"advisor-{width}-layout.json").write_text(json.dumps(after))
        pg.locator("#table-note button.term", has_text="EV").click()     # a term opened
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        assert _axe(pg) == []
        pg.screenshot(path=shots / f"advisor-{width}-answer.png", full_page=True)
        # Pitch's 52 cards: a suit on two lines on a phone, each card a 24 px target
        pg.locator("label[for=game-pitch]").click()
        expect(pg.locator("#answer")).to_be_hidden()           # the other game's answer goes
        assert pg.evaluate(_LAYOUT)["rows"] == [2, 2, 2, 2]
        widths = pg.locator("#grid button.card").evaluate_all(
            "bs => bs.map((b) => b.getBoundingClientRect().width)")
        assert min(widths) >= 24, min(widths)
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        assert _axe(pg) == []
        pg.screenshot(path=shots / f"advisor-{width}-pitch.png", full_page=True)
        assert not pg.errors, pg.errors
    finally:
        context.close()


def test_the_advisor_has_no_serious_accessibility_problem(page, base, app, shots):
    """axe-core at 1366 px, before and with an answer (Pepper with a score, and
    Pitch), and with a field error shown."""
    _glossary_served(page, app)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{base}/?game=pepper&samples=abc")
    expect(page.locator("#samples-error")).not_to_be_empty()
    assert _axe(page) == []
    page.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&score=20:25&samples=2000"
              f"&games=200&seed=1")
    expect(_advise_button(page)).to_be_enabled()
    assert _axe(page) == []
    _run_advice(page)
    assert _axe(page) == []
    after = page.evaluate(_LAYOUT)
    assert after["scroll"] <= 1366, after
    assert min(after["fonts"]) >= 11, after
    page.screenshot(path=shots / "advisor-1366-answer.png", full_page=True)
    page.goto(f"{base}/?game=pitch&hand=AS+KS+QS+JS+10S+9D&samples=2000&seed=1&run=1")
    expect(page.locator("#answer")).to_be_visible(timeout=120_000)
    assert _axe(page) == []
    page.screenshot(path=shots / "advisor-1366-pitch.png", full_page=True)


# --- the hand viewer ------------------------------------------------------------------------

@pytest.mark.parametrize(("game", "seed", "index"), [("pepper", 3, 1), ("pitch", 3, 5),
                                               ("shiesta", 2, 0), ("burraco", 1, 0)])
def test_the_hand_viewer_steps_to_the_records_score(page, base, shots, game, seed, index):
    page.goto(f"{base}/hand?game={game}&seed={seed}&index={index}")
    expect(page.locator("#viewer")).to_be_visible(timeout=20_000)
    record = page.locator("#record").text_content()
    from simkit.app import answers
    view = answers.show(answers.parse("show", [("game", game), ("seed", str(seed)),
                                               ("index", str(index))]))
    assert record == view["record"]                      # exactly as simkit show prints it
    last = int(page.locator("#slider").get_attribute("max"))
    assert last > 0
    pos = page.locator("#pos")
    expect(pos).to_have_text(f"move 0 of {last}")
    expect(page.locator("#felt .seat")).to_have_count(4)
    assert page.locator("#felt .card").count() > 0                 # cards drawn as cards
    page.get_by_role("button", name="Next ▶").click()
    expect(pos).to_have_text(f"move 1 of {last}")
    page.keyboard.press("ArrowLeft")
    expect(pos).to_have_text(f"move 0 of {last}")
    for i in range(1, min(last, 40) + 1):
        page.keyboard.press("ArrowRight")
        expect(pos).to_have_text(f"move {i} of {last}")
        if i < last:
            expect(page.locator("#result")).to_be_hidden()
    page.keyboard.press("End")
    expect(pos).to_have_text(f"move {last} of {last}")
    expect(page.get_by_role("button", name="Next ▶")).to_be_disabled()
    # the end: the record's result lines, as its text states them
    expect(page.locator("#result")).to_be_visible()
    keys = page.locator("#result-list dt").all_text_contents()
    values = page.locator("#result-list dd").all_text_contents()
    stated = dict(line.split(": ", 1) for line in record.splitlines() if ": " in line)
    assert keys, (keys, values)
    assert all(stated[k] == v for k, v in zip(keys, values)), (keys, values)
    assert any("score" in k or k == "winner" for k in keys)
    page.screenshot(path=shots / f"hand-{game}.png", full_page=True)
    page.keyboard.press("Home")
    expect(pos).to_have_text(f"move 0 of {last}")


def test_a_pasted_record_is_replayed_and_a_bad_one_gets_the_alert(page, base, shots):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{base}/hand?game=pitch&seed=3&index=5")
    expect(page.locator("#viewer")).to_be_visible(timeout=20_000)
    record = page.locator("#record").text_content()
    page.get_by_role("button", name="Copy").click()
    expect(page.locator("#copied")).to_have_text("Copied the record.")
    assert page.evaluate("navigator.clipboard.readText()") == record
    page.get_by_role("tab", name="Paste a record").click()
    page.locator("#paste").fill(record.replace("trick 2: ", "trick 2: 9:"))
    page.get_by_role("button", name="Replay").click()
    alert = page.locator('[role="alert"]')
    expect(alert).not_to_be_empty()
    assert "\n" not in alert.text_content().strip()
    page.screenshot(path=shots / "hand-paste-error.png", full_page=True)
    page.locator("#paste").fill(record.split("\ntrick 1:")[0] + "\n")
    page.get_by_role("button", name="Replay").click()
    expect(alert).to_be_empty()
    expect(page.locator("#record")).to_contain_text("trick 6:")


# --- compare --------------------------------------------------------------------------------------

def test_compare_shows_the_measures_of_the_clis_json(page, base, shots, capsys):
    page.goto(f"{base}/compare?game=pitch&variant=A:&variant=B:low=dealt&hands=4000"
              f"&games=10&seed=3")
    expect(page.locator("#rules-b-low")).to_have_value("dealt")
    page.get_by_role("button", name="Compare").click()
    expect(page.locator("#answer section[data-table]").first).to_be_visible(timeout=30_000)
    result = _cli_json(capsys, "compare", "pitch", "--variant", "A:", "--variant",
                       "B:low=dealt", "--hands", "4000", "--games", "10", "--seed", "3")
    for name, rows in result["tables"].items():
        if name == "variants":
            continue
        table = page.locator(f'section[data-table="{name}"] tbody tr')
        expect(table).to_have_count(len(rows))
        for tr, row in zip(table.all(), rows):
            a = json.loads(tr.locator("td[data-a]").get_attribute("data-a"))
            assert a == row.get("a", row.get("rate_a"))
    page.screenshot(path=shots / "compare.png", full_page=True)


def test_compare_a_sweep_shows_every_value_and_the_figures(page, base, shots, capsys):
    """A sweep from the address: one variant per value, each against the first,
    the design table per later value and a figure per measure across them."""
    page.goto(f"{base}/compare?game=pepper&sweep=kubwa_stake=1,2,3&hands=4000&games=200"
              f"&seed=2&skill=0")
    expect(page.locator("#mode-sweep")).to_be_checked()
    expect(page.locator("#sweep-values")).to_have_value("1,2,3")
    expect(page.locator(".variant").first).to_be_hidden()
    page.get_by_role("button", name="Compare").click()
    expect(page.locator("#answer section[data-figures]")).to_be_visible(timeout=120_000)
    result = _cli_json(capsys, "compare", "pepper", "--sweep", "kubwa_stake=1,2,3", "--hands",
                       "4000", "--games", "200", "--seed", "2", "--no-skill")
    assert result["labels"] == ["kubwa_stake=1", "kubwa_stake=2", "kubwa_stake=3"]
    for later in result["labels"][1:]:
        rows = [r for r in result["tables"]["design"] if r["vs"] == later]
        table = page.locator(f'section[data-table="design"][data-later="{later}"] tbody tr')
        expect(table).to_have_count(len(rows))
        for tr, row in zip(table.all(), rows):
            assert json.loads(tr.locator("td[data-b]").get_attribute("data-b")) == row["b"]
    figures = page.locator("section[data-figures] figure")
    assert figures.count() >= 10
    # three points per figure, the sweep's values under them
    first = figures.first.locator("svg")
    assert first.locator("circle").count() == 3
    assert [t.text_content() for t in first.locator("text.tick").all()][-3:] == ["1", "2", "3"]
    page.screenshot(path=shots / "compare-sweep.png", full_page=True)


def test_compare_says_when_a_rule_never_changed_a_deal(page, base, shots):
    """Stick-the-dealer with the default players: nobody passes a hand out, so
    the page says so in one sentence and every difference is 0."""
    page.goto(f"{base}/compare?game=pepper&variant=A:&variant=B:all_pass=stick&hands=4000"
              f"&games=100&seed=2&skill=0")
    expect(page.locator("#rules-b-all_pass")).to_have_value("stick")
    page.get_by_role("button", name="Compare").click()
    note = page.locator('#answer [role="note"]')
    expect(note).to_contain_text("B never changed a deal at this table", timeout=120_000)
    expect(page.locator('#answer section[data-later="B"]').first).to_contain_text(
        "0% of the hands, 0% of the games")
    page.screenshot(path=shots / "compare-identical.png", full_page=True)


def _adapted_compare(page, base) -> None:
    page.goto(f"{base}/compare?game=pepper&variant=A:&variant=B:fail=bid&hands=4000&games=100"
              f"&seed=3&skill=0&adapt=1&adapt-rounds=2&adapt-trials=6&adapt-games=1500"
              f"&adapt-seeds=2")
    expect(page.locator("#adapt")).to_be_checked()
    expect(page.locator("#adapt-trials")).to_have_value("6")
    page.get_by_role("button", name="Compare").click()


@pytest.mark.parametrize("width", [1366, 360])
def test_compare_adapted_players_in_a_job(browser, base, shots, width):
    """The adapted-players switch: a job with progress and Cancel whose bar
    moves while the players are adapted; the answer names each adaptation's
    setting, shows every row's finding with each adaptation's difference, and
    the best-response check, readable on a phone too."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    _adapted_compare(page, base)
    expect(page.locator("#cancel")).to_be_visible()
    seen = set()
    deadline = time.monotonic() + 240
    while not page.locator("#answer section[data-table]").first.is_visible():
        assert time.monotonic() < deadline, "no answer in 4 minutes"
        text = page.locator("#percent").text_content() or ""
        if text.strip():
            seen.add(text.strip())
        time.sleep(0.2)
    # the bar moved through the adaptation: more than a start and an end
    assert len(seen) >= 3, seen
    head = page.locator('#answer section[data-part="played"]')
    expect(head).to_contain_text("adaptation 1:")
    expect(head).to_contain_text("adaptation 2:")
    best = page.locator('#answer section[data-table="best_response"]')
    expect(best).to_contain_text("Best-response check")
    assert best.locator("table").count() == 2
    bids = page.locator('#answer section[data-table="bids"] tbody tr')
    assert bids.count() >= 3
    words = [json.loads(td.get_attribute("data-finding"))
             for td in page.locator('#answer section[data-table="bids"] td[data-finding]').all()]
    assert set(words) <= {"higher", "lower", "no change", "not shown either way",
                          "depends on adaptation"}
    each = page.locator('#answer section[data-table="bids"] td[data-adaptations]').first
    assert len(json.loads(each.get_attribute("data-adaptations"))) == 2
    page.screenshot(path=shots / f"compare-adapted-{width}.png", full_page=True)
    context.close()


def test_compare_by_keyboard_on_a_phone(browser, base, shots):
    """390 px wide: nothing scrolls sideways; a third variant added and removed
    from the keyboard keeps the focus on the page."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    pg = context.new_page()
    pg.goto(f"{base}/compare?game=pitch&variant=A:&variant=B:low=dealt&hands=2000&games=50")
    expect(pg.locator(".variant")).to_have_count(2)
    pg.locator("#add").focus()
    pg.keyboard.press("Enter")
    expect(pg.locator(".variant")).to_have_count(3)
    assert pg.evaluate("document.activeElement.id") == "rules-c-label"
    pg.keyboard.press("Shift+Tab")          # back to the page, not lost
    third = pg.locator(".variant").nth(2)
    third.get_by_role("button", name="Remove").focus()
    pg.keyboard.press("Enter")
    expect(pg.locator(".variant")).to_have_count(2)
    assert pg.evaluate("document.activeElement.tagName") in ("INPUT", "BUTTON")
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    pg.get_by_role("button", name="Compare").click()
    expect(pg.locator("#answer section[data-table]").first).to_be_visible(timeout=120_000)
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    pg.screenshot(path=shots / "compare-phone.png", full_page=True)
    context.close()


def test_compare_of_a_game_in_whole_games_offers_no_hands(page, base, shots):
    """Shiesta is compared in whole games: the hands field is hidden and not sent
    (the command refuses --hands for it), and the comparison runs."""
    page.goto(f"{base}/compare?game=shiesta&variant=A:&variant=B:seven_reverses=true"
              f"&games=200&seed=3")
    expect(page.locator("#hands")).to_be_hidden()
    page.get_by_role("button", name="Compare").click()
    expect(page.locator("#answer section[data-table]").first).to_be_visible(timeout=30_000)
    expect(page.locator('[role="alert"]')).to_be_empty()
    assert "hands=" not in page.url
    page.screenshot(path=shots / "compare-shiesta.png", full_page=True)


# --- compare for designers: errors on their fields, tables that fit, figures, formats ---------

def _compare_box(page, selector: str) -> dict:
    return page.locator(selector).evaluate(
        "e => { const r = e.getBoundingClientRect(); return {top: r.top + scrollY, "
        "bottom: r.bottom + scrollY, left: r.left, right: r.right}; }")


def _compare_no_page_overflow(page) -> None:
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"the page is {width} px wide in a {inner} px window"


def _compare_sticky_column(page, section: str) -> None:
    """The table of ``section`` scrolls in its own box while its first column stays put,
    opaque (so that the scrolled numbers do not show through)."""
    box = page.locator(f"{section} .scroll").first
    first = box.locator("tbody tr").first.locator("td").first
    style = first.evaluate("e => { const s = getComputedStyle(e); "
                           "return [s.position, s.left, s.backgroundColor]; }")
    assert style[0] == "sticky", style
    assert style[1] == "0px", style
    assert style[2] not in ("rgba(0, 0, 0, 0)", "transparent"), style
    wide = box.evaluate("e => e.scrollWidth > e.clientWidth")
    before = first.evaluate("e => e.getBoundingClientRect().left")
    box.evaluate("e => { e.scrollLeft = 200; }")
    after = first.evaluate("e => e.getBoundingClientRect().left")
    assert abs(after - before) < 1, (before, after)
    if wide:            # the other columns did move under it
        second = box.locator("tbody tr").first.locator("td").nth(2)
        assert second.evaluate("e => e.getBoundingClientRect().left") < after + 400
    box.evaluate("e => { e.scrollLeft = 0; }")


COMPARE_NEGATIVE_ZERO = re.compile(r"[−-]0(?:\.0+)?(?![\d.])")
COMPARE_WHOLE_WITH_ZEROS = re.compile(r"(?<![\d.])\d[\d,]*\.0+(?![\d])")


def test_compare_field_errors_sit_on_their_field_on_a_phone(browser, base, shots):
    """At 360 px: a count that is not a whole number, sweep values that are too few,
    an adaptation size above the most: each error on its own field, in the page's words
    (not the command line's), Compare disabled until it is fixed; a refusal of the
    server goes on the field it names (a variant's rule on that variant's editor)."""
    context, pg = _phone(browser)
    pg.goto(f"{base}/compare?game=pitch&variant=A:&variant=B:steal=outbid&hands=2000&games=50"
            f"&skill=0")
    run, alert = pg.get_by_role("button", name="Compare"), pg.locator("#alert")
    expect(run).to_be_enabled()
    pg.locator("#hands").fill("1,000,000")
    error = pg.locator("#hands-error")
    expect(error).to_contain_text("hands per variant")
    expect(error).to_contain_text("not a whole number")
    assert "--hands" not in error.text_content()
    assert "ASCII" not in error.text_content()
    expect(run).to_be_disabled()
    expect(pg.locator("#hands")).to_have_attribute("aria-invalid", "true")
    field, said = _compare_box(pg, "#hands"), _compare_box(pg, "#hands-error")
    assert 0 <= said["top"] - field["bottom"] < 30, (field, said)       # right under its field
    expect(alert).to_be_empty()
    expect(pg.locator("#estimate")).to_contain_text("Compare waits for: hands per variant")
    pg.screenshot(path=shots / "compare-field-error-360.png", full_page=True)
    pg.locator("#hands").fill("2000")
    expect(error).to_be_empty()
    expect(run).to_be_enabled()
    # games and seed too
    pg.locator("#games").fill("0")
    expect(pg.locator("#games-error")).to_contain_text("at least 1")
    expect(run).to_be_disabled()
    pg.locator("#games").fill("50")
    pg.locator("#seed").fill("-1")
    expect(pg.locator("#seed-error")).to_contain_text("not a whole number")
    expect(run).to_be_disabled()
    pg.locator("#seed").fill("3")
    expect(run).to_be_enabled()
    # an adaptation size above the most the page takes
    pg.locator("#adapt").check()
    pg.locator("#adapt-sizes summary").click()
    pg.locator("#adapt-rounds").fill("100")
    expect(pg.locator("#adapt-rounds-error")).to_contain_text("rounds, at most: at most")
    expect(run).to_be_disabled()
    field, said = _compare_box(pg, "#adapt-rounds"), _compare_box(pg, "#adapt-rounds-error")
    assert 0 <= said["top"] - field["bottom"] < 30, (field, said)
    pg.locator("#adapt-rounds").fill("")
    expect(run).to_be_enabled()
    pg.locator("#adapt").uncheck()
    # a sweep's values: two or more, each one the rule takes
    pg.locator("#mode-sweep").check()
    pg.locator("#sweep-key").select_option("moon_made")
    pg.locator("#sweep-values").fill("4")
    expect(pg.locator("#sweep-values-error")).to_contain_text("two or more values")
    expect(run).to_be_disabled()
    pg.locator("#sweep-values").fill("4,x")
    expect(pg.locator("#sweep-values-error")).to_contain_text("'x' is not a number")
    field, said = _compare_box(pg, "#sweep-values"), _compare_box(pg, "#sweep-values-error")
    assert 0 <= said["top"] - field["bottom"] < 30, (field, said)
    pg.locator("#sweep-values").fill("4,8")
    expect(pg.locator("#sweep-values-error")).to_be_empty()
    expect(run).to_be_enabled()
    pg.locator("#mode-variants").check()
    expect(run).to_be_enabled()
    # the server's refusal naming a variant's rule: on that rule's field of that variant
    refusal = ("bad --variant 'B:steal=outbid': bad value 'outbid' for rule 'steal': expected "
               "one of match (see 'simkit compare --help')")
    pg.route("**/api/estimate**", lambda route: route.fulfill(
        status=400, content_type="application/json", body=json.dumps({"error": refusal})))
    pg.locator("#games").fill("60")
    rule_error = pg.locator("#rules-b-steal-error")
    expect(rule_error).to_contain_text("bad value 'outbid'", timeout=10_000)
    assert "--help" not in rule_error.text_content()
    expect(run).to_be_disabled()
    expect(alert).to_be_empty()
    field, said = _compare_box(pg, "#rules-b-steal"), _compare_box(pg, "#rules-b-steal-error")
    assert 0 <= said["top"] - field["bottom"] < 60, (field, said)
    pg.unroute("**/api/estimate**")
    pg.locator("#rules-b-steal").select_option("match")
    expect(rule_error).to_be_empty()
    expect(run).to_be_enabled()
    # a count the server refuses (its limits are the page's): on the field, in its words
    too_many = ("bad games 70: the web app takes at most 60 (the command line, simkit "
                "compare, takes more)")
    pg.route("**/api/estimate**", lambda route: route.fulfill(
        status=400, content_type="application/json", body=json.dumps({"error": too_many})))
    pg.locator("#games").fill("70")
    expect(pg.locator("#games-error")).to_contain_text("games per variant", timeout=10_000)
    expect(pg.locator("#games-error")).to_contain_text("at most 60")
    expect(run).to_be_disabled()
    pg.unroute("**/api/estimate**")
    pg.locator("#games").fill("50")
    expect(pg.locator("#games-error")).to_be_empty()
    expect(run).to_be_enabled()
    _compare_no_page_overflow(pg)
    assert not pg.errors, pg.errors
    context.close()


def test_compare_tables_fit_a_phone_with_the_measure_column_fixed(browser, base, shots):
    """At 360 px the page is never wider than the window: each table scrolls in its own
    box with the measure column fixed; the numbers read as people write them (no
    negative zero, no whole number with decimals); every finding in words, 'within its
    margin' and what would tell shown where they apply, the balance's G-test p-values
    of each variant under its finding; the figures' axes within the values a measure
    can take, the base green as their caption says."""
    context, pg = _phone(browser)
    pg.goto(f"{base}/compare?game=pitch&variant=A:&variant=B:steal=outbid&hands=4000&games=100"
            f"&seed=1&skill=0")
    pg.get_by_role("button", name="Compare").click()
    expect(pg.locator("#answer section[data-figures]")).to_be_visible(timeout=120_000)
    _compare_no_page_overflow(pg)
    for section in ('section[data-table="bids"]', 'section[data-table="design"]'):
        _compare_sticky_column(pg, section)
    for box in pg.locator("#answer .scroll").all():
        inner, outer = box.evaluate("e => [e.getBoundingClientRect().right, "
                                    "e.closest('section').getBoundingClientRect().right]")
        assert inner <= outer + 0.5
    # numbers
    text = pg.locator("#answer").inner_text()
    assert not COMPARE_NEGATIVE_ZERO.findall(text), COMPARE_NEGATIVE_ZERO.findall(text)
    values = [td.text_content()
              for td in pg.locator("#answer td[data-a], #answer td[data-b]").all()]
    assert values
    assert not [v for v in values if COMPARE_WHOLE_WITH_ZEROS.search(v)], values
    hands = pg.locator('section[data-table="sessions"] tr[data-metric="hands per session"] '
                       'td[data-a]')
    expect(hands).to_have_text("20")                              # not "20.00"
    # findings in words; what would tell; the G-test's p-values
    words = {json.loads(td.get_attribute("data-finding"))
             for td in pg.locator("#answer td[data-finding]").all()}
    assert words
    assert words <= {"higher", "lower", "no change", "not shown either way"}, words
    for td in pg.locator('#answer td[data-finding="\\"not shown either way\\""]').all():
        if td.get_attribute("data-needed"):
            assert re.search(r"about [\d,]+ (hands|games|sessions) would tell", td.text_content())
    for td in pg.locator("#answer td[data-within-margin]").all():
        assert "(within its margin)" in td.text_content()
        assert td.locator(".sig").count() == 0
    gtest = pg.locator('section[data-table="design"] '
                       'tr[data-metric^="balance: equal shares (G-test"] td.finding')
    expect(gtest).to_contain_text(re.compile(r"equal shares: A p = [\d.<]+.*, B p = [\d.<]+"))
    # the figures: a rate's axis within 0%-100%, a count's from 0 up, the base green
    hint = pg.locator("section[data-figures] p.hint")
    expect(hint).to_contain_text("in green")
    expect(hint).to_contain_text("in gold")
    checked = 0
    for fig in pg.locator("section[data-figures] figure").all():
        metric = fig.get_attribute("data-metric")
        svg = fig.locator("svg")
        low = json.loads(svg.get_attribute("data-low"))
        high = json.loads(svg.get_attribute("data-high"))
        row = pg.locator(f'section[data-table="design"] tr[data-metric="{metric}"]').first
        rate = row.locator("td[data-a]").text_content().endswith("%")
        if rate and "minus" not in metric:
            assert 0 <= low < high <= 1, (metric, low, high)
            checked += 1
        if re.search(r"lead changes|per game|games for the stronger", metric):
            assert low >= 0, (metric, low)
        for axis in svg.locator("text.axis").all():
            assert not COMPARE_NEGATIVE_ZERO.search(axis.text_content()), axis.text_content()
            assert not re.fullmatch(r"−?\d+\.0+%?", axis.text_content()), axis.text_content()
        base_fill = svg.locator("circle.base").get_attribute("fill")
        assert base_fill == "#1f7a3f"
        line = svg.locator("line.base")
        if line.count():
            assert line.get_attribute("stroke") == base_fill
        assert {c.get_attribute("fill") for c in svg.locator("circle.other").all()} <= {"#b8860b"}
    assert checked >= 3
    completion = pg.locator('section[data-figures] figure[data-metric^="completion"] svg')
    if completion.count():
        assert json.loads(completion.get_attribute("data-high")) <= 1
    pg.screenshot(path=shots / "compare-phone-tables.png", full_page=True)
    assert not pg.errors, pg.errors
    context.close()


def test_compare_a_grid_sweep_shows_its_table_first(browser, base, shots, capsys):
    """Two sweeps make a 2 × 2 grid: the address fills both rules, the answer opens with
    the grid's table (a row per variant, each headline measure's value, interval and
    finding), then each variant against the base, and the figures label every point
    with its values of both rules; at 360 px nothing widens the page."""
    context, pg = _phone(browser)
    pg.goto(f"{base}/compare?game=pitch&sweep=moon_made=4,8&sweep=stuck_bid=two,any&hands=2000"
            f"&games=60&seed=2&skill=0")
    expect(pg.locator("#mode-sweep")).to_be_checked()
    expect(pg.locator("#sweep-key")).to_have_value("moon_made")
    expect(pg.locator("#sweep-values")).to_have_value("4,8")
    expect(pg.locator("#sweep-key-2")).to_have_value("stuck_bid")
    expect(pg.locator("#sweep-values-2")).to_have_value("two,any")
    expect(pg.locator("#grid-count")).to_contain_text("4 variants")
    pg.get_by_role("button", name="Compare").click()
    expect(pg.locator('#answer section[data-table="sweep"]')).to_be_visible(timeout=120_000)
    result = _cli_json(capsys, "compare", "pitch", "--sweep", "moon_made=4,8", "--sweep",
                       "stuck_bid=two,any", "--hands", "2000", "--games", "60", "--seed", "2",
                       "--no-skill")
    rows = pg.locator('#answer section[data-table="sweep"] tbody tr')
    expect(rows).to_have_count(4)
    assert [r.get_attribute("data-variant") for r in rows.all()] == result["labels"]
    for tr, want in zip(rows.all(), result["tables"]["sweep"]):
        cells = tr.locator("td")
        assert cells.nth(0).text_content().startswith(want["moon_made"])
        assert cells.nth(1).text_content() == want["stuck_bid"]
        for td in tr.locator("td[data-measure]").all():
            name = td.get_attribute("data-measure")
            assert json.loads(td.get_attribute("data-value")) == want[name]
            assert json.loads(td.get_attribute("data-finding")) == want[f"{name} finding"]
    # the grid first (after the run's heading), then the variants against the base
    order = pg.locator("#answer > section").evaluate_all(
        "els => els.map(e => e.dataset.table || e.dataset.part || "
        "(e.dataset.later ? 'later' : e.dataset.figures))")
    assert order[:2] == ["head", "sweep"], order
    assert order.index("sweep") < order.index("later") < order.index("design")
    # the figures: each point labelled with its grid values (a line per rule)
    fig = pg.locator("section[data-figures] figure").first
    labels = [[s.text_content() for s in t.locator("tspan").all()]
              for t in fig.locator("text.tick:not(.axis)").all()]
    assert labels == [["4", "two"], ["4", "any"], ["8", "two"], ["8", "any"]], labels
    expect(pg.locator("section[data-figures] p.hint")).to_contain_text("moon_made")
    # the grid's headings explained: lead changes are the glossary's drama, length its duration
    grid = pg.locator('#answer section[data-table="sweep"] thead')
    for word, entry in (("lead changes", "drama"), ("length", "duration")):
        button = grid.locator("button.term", has_text=re.compile(f"^{word}$", re.I))
        expect(button).to_have_count(1)
        button.click()
        expect(grid.locator(".term-box b")).to_have_text(re.compile(f"^{entry}", re.I))
        button.click()
    _compare_no_page_overflow(pg)
    _compare_sticky_column(pg, 'section[data-table="sweep"]')
    pg.screenshot(path=shots / "compare-grid-360.png", full_page=True)
    assert not pg.errors, pg.errors
    context.close()


def test_compare_shows_never_and_a_preset_variant(page, base, shots, capsys):
    """A variant given as a preset's name alone opens on that preset; the skill trace's
    'games for the stronger to be ahead' reads "never" where the stronger never got
    ahead (the JSON's null with never true), not a dash, and its figure leaves it out."""
    page.goto(f"{base}/compare?game=pepper&variant=A:&variant=bid-penalty&hands=4000&games=200"
              f"&seed=0")
    expect(page.locator("#rules-b-label")).to_have_value("bid-penalty")
    expect(page.locator("#rules-b-preset")).to_have_value("bid-penalty")
    page.get_by_role("button", name="Compare").click()
    expect(page.locator('#answer section[data-table="design"]')).to_be_visible(timeout=90_000)
    result = _cli_json(capsys, "compare", "pepper", "--variant", "A:", "--variant", "bid-penalty",
                       "--hands", "4000", "--games", "200", "--seed", "0")
    assert result["labels"] == ["A", "bid-penalty"]
    nevers = [r for r in result["tables"]["design"] if any(r.get("never") or [])]
    assert nevers, "this run has no 'never' to show"
    for r in nevers:
        tr = page.locator(f'section[data-table="design"] tr[data-metric="{r["metric"]}"]')
        for side, never in zip(("a", "b"), r["never"]):
            td = tr.locator(f"td[data-{side}]")
            if never:
                expect(td).to_have_text("never")
            else:
                assert td.text_content() not in ("never", "–")
    page.screenshot(path=shots / "compare-never.png", full_page=True)


def _compare_answer_is(page, result: dict) -> None:
    """The page's jobs answer ``result`` (the run's JSON as the server would give it)."""
    def handle(route):
        if route.request.method == "POST":
            route.fulfill(status=200, content_type="application/json",
                          body=json.dumps({"id": "made-up"}))
        elif route.request.method == "GET":
            route.fulfill(status=200, content_type="application/json",
                          body=json.dumps({"status": "done", "progress": 1, "result": result}))
        else:
            route.fulfill(status=200, content_type="application/json", body="{}")
    page.route("**/api/jobs**", handle)


def test_compare_marks_a_change_within_its_margin_and_explains_its_words(page, base, shots, capsys):
    """A difference told apart from 0 but within the measure's margin is marked so and not
    highlighted; "never" reads "never"; a count's axis stays at 0 or above and a rate's
    within 100% however wide the values; the designer's words open their glossary
    entries (lead changes: drama, position, completion, duration)."""
    result = _cli_json(capsys, "compare", "pitch", "--variant", "A:", "--variant", "B:steal=outbid",
                       "--hands", "2000", "--games", "40", "--seed", "1", "--no-skill")
    small = next(r for r in result["tables"]["hands"] if r["kind"] == "mean")
    small.update(finding="higher", within_margin=True, diff=0.01, ci_low=0.005, ci_high=0.015,
                 p_value=0.0001, p_holm=0.001)
    design = result["tables"]["design"]
    template = next(r for r in design if r["kind"] == "mean")
    design += [
        {**template,
         "metric": "skill: the default over classic, games for the stronger to be ahead (95%)",
         "a": None, "b": 21000.0, "a_low": None, "a_high": None, "b_low": None, "b_high": None,
         "diff": None, "ci_low": None, "ci_high": None, "never": [True, False],
         "finding": "not shown either way", "needed": None},
        {**template,
         "metric": "skill: expert over the default, games for the stronger to be ahead (95%)",
         "a": 12.0, "b": 21000.0, "a_low": None, "a_high": None, "b_low": None, "b_high": None,
         "never": [False, False]},
        {**template, "metric": "completion: games ended before max_rounds", "kind": "rate",
         "a": 1.0, "b": 0.99, "a_low": 0.97, "a_high": 1.0, "b_low": 0.96, "b_high": 1.0},
    ]
    _compare_answer_is(page, result)
    page.goto(f"{base}/compare?game=pitch&variant=A:&variant=B:steal=outbid&hands=2000&games=40"
              f"&seed=1&skill=0")
    page.get_by_role("button", name="Compare").click()
    expect(page.locator("#answer section[data-figures]")).to_be_visible(timeout=30_000)
    tr = page.locator(f'section[data-table="hands"] tr[data-metric="{small["metric"]}"]')
    expect(tr.locator("td.finding")).to_contain_text("higher")
    expect(tr.locator("td.finding")).to_contain_text("(within its margin)")
    assert tr.locator(".sig").count() == 0
    assert {c.get_attribute("fill") for c in tr.locator("svg.diffbar circle").all()} == {"#9a927c"}
    # "never", not a dash; the figure of games to be ahead from 0 up
    never = page.locator('section[data-table="design"] '
                         'tr[data-metric^="skill: the default over classic, games"]')
    expect(never.locator("td[data-a]")).to_have_text("never")
    expect(never.locator("td[data-b]")).to_have_text("21,000")
    for metric in ("skill: the default over classic, games",
                   "skill: expert over the default, games"):
        svg = page.locator(f'section[data-figures] figure[data-metric^="{metric}"] svg')
        assert json.loads(svg.get_attribute("data-low")) >= 0
    expect(page.locator('section[data-figures] '
                        'figure[data-metric^="skill: the default over classic, games"]'
                        ' text.never')).to_have_text("never")
    svg = page.locator('section[data-figures] figure[data-metric^="completion: games ended"] svg')
    assert json.loads(svg.get_attribute("data-high")) <= 1
    assert "100%" in [t.text_content() for t in svg.locator("text.axis").all()]
    # the designer's words, each to its glossary entry
    table = page.locator('section[data-table="design"]')
    for word, entry in (("drama", "drama"), ("position", "position"), ("completion", "completion"),
                        ("hands per game", "duration"), ("balance", "balance")):
        button = table.locator("button.term", has_text=re.compile(f"^{word}$", re.I)).first
        expect(button).to_be_visible()
        button.click()
        box = table.locator(".term-box")
        expect(box).to_be_visible()
        assert box.locator("b").text_content().lower().startswith(entry), (word, box.text_content())
        button.click()
        expect(box).to_have_count(0)
    page.screenshot(path=shots / "compare-within-margin.png", full_page=True)


def test_hand_viewer_number_error_sits_on_its_field(browser, base, shots):
    """The hand number: a wrong one gets its error on the field, in the page's words,
    and Show waits until it is fixed; a refusal of the server goes there too."""
    context, pg = _phone(browser)
    pg.goto(f"{base}/hand?game=pepper&seed=0&index=2")
    expect(pg.locator("#viewer")).to_be_visible(timeout=20_000)
    show, error = pg.get_by_role("button", name="Show"), pg.locator("#index-error")
    pg.locator("#index").fill("1,000")
    expect(error).to_contain_text("hand number: '1,000' is not a whole number")
    expect(show).to_be_disabled()
    expect(pg.locator("#index")).to_have_attribute("aria-invalid", "true")
    field, said = _compare_box(pg, "#index"), _compare_box(pg, "#index-error")
    assert 0 <= said["top"] - field["bottom"] < 30, (field, said)
    expect(pg.locator("#alert")).to_be_empty()
    pg.locator("#index").press("Enter")             # the form does not go with an error
    expect(pg.locator("#alert")).to_be_empty()
    pg.screenshot(path=shots / "hand-number-error-360.png", full_page=True)
    pg.locator("#index").fill("3")
    expect(error).to_be_empty()
    expect(show).to_be_enabled()
    pg.locator("#seed").fill("x")
    expect(pg.locator("#seed-error")).to_contain_text("seed: 'x' is not a whole number")
    expect(show).to_be_disabled()
    pg.locator("#seed").fill("0")
    expect(show).to_be_enabled()
    # the server's refusal naming the hand: on the field, without the command line's words
    refusal = "argument --hand: '3': expected a number from 0 to 2 (see 'simkit show --help')"
    pg.route("**/api/show**", lambda route: route.fulfill(
        status=400, content_type="application/json", body=json.dumps({"error": refusal})))
    show.click()
    expect(error).to_contain_text("hand number", timeout=10_000)
    expect(error).to_contain_text("expected a number from 0 to 2")
    assert "--hand" not in error.text_content()
    assert "--help" not in error.text_content()
    expect(show).to_be_disabled()
    expect(pg.locator("#alert")).to_be_empty()
    pg.unroute("**/api/show**")
    pg.locator("#index").fill("1")
    expect(show).to_be_enabled()
    show.click()
    expect(pg.locator("#viewer")).to_be_visible(timeout=20_000)
    _compare_no_page_overflow(pg)
    assert not pg.errors, pg.errors
    context.close()


def test_every_page_links_to_the_others_and_the_reports(page, base):
    for path in ("/", "/hand", "/compare", "/reports/"):
        page.goto(base + path)
        links = page.locator("nav.top a").evaluate_all(
            "els => els.map(e => new URL(e.href).pathname)")
        assert {"/", "/hand", "/compare", "/reports/", "/docs/"} <= set(links), (path, links)
    page.goto(base + "/README.md")
    assert page.locator("body").text_content().startswith("# simkit")
    page.goto(base + "/docs/")          # the built site, or how to build it
    # (a built page's heading ends in its permalink sign)
    assert page.locator("h1").first.text_content().rstrip("¶") in (
        "simkit", "The documentation is not built")


# --- issue 57: plain answers first, one way to write money, a phone's targets ---------------

#: A six-player Pitch hand that passing and bidding 2 cannot tell apart (3,000 deals, seed 0).
NEAR_TIE = "/?game=pitch&hand=KS+QS+8D+6C+4S+2H&players=6&samples=3000&seed=0"
#: Money as every page writes it: a sign, a dollar sign, cents (a tenth of a cent in a
#: difference judged against 1 cent), or "$0.00".
MONEY = re.compile(r"(?:[+-]\$[0-9]+\.[0-9]{2,3}|\$0\.00)")


def _money_everywhere(text: str) -> None:
    """Every amount of money in ``text`` written the one way (no "+0.088 $", no "$0.1")."""
    assert not re.search(r"[0-9] ?\$", text), text            # "0.088 $"
    for m in re.finditer(r"[+-]?\$[0-9.]+", text):
        assert MONEY.fullmatch(m.group(0).rstrip(".")), (m.group(0), text)


@pytest.mark.parametrize("width", [1366, 360])
def test_a_pitch_near_tie_in_words_with_money_one_way(browser, base, app, shots, width):
    """The six-player Pitch near-tie: the sentence in words first (both plans, too
    close to call), "In numbers:" after it; every amount written +$0.09; the chip
    leans and names both plans instead of saying ADVICE; the moon, far below the
    others, is drawn off the scale so that pass and 2 keep the chart's width."""
    context, pg = _phone(browser, width, 900)
    try:
        _glossary_served(pg, app)
        pg.goto(f"{base}{NEAR_TIE}")
        _run_advice(pg)
        headline = pg.locator("#headline").inner_text()
        assert headline.startswith(
            "Pass or bid 2: too close to call. Passing earns about"), headline
        assert "cent" in headline
        assert not re.search(r"pp|\[|\$ ", headline), headline          # words, not numbers
        reason = pg.locator("#reason").inner_text()
        assert reason.startswith("In numbers: EV "), reason
        _money_everywhere(reason)
        assert "points for them" in reason                              # the unit named
        evs = [r["ev text"] for r in _table(pg)]
        assert all(MONEY.fullmatch(t) for t in evs), evs
        _money_everywhere(pg.locator("#chart svg").inner_html())
        chip = pg.locator("#chip")
        expect(chip).to_have_class(re.compile(r"\bclose\b"))
        expect(chip.locator("small").first).to_have_text("leans to")
        expect(chip.locator(".or")).to_have_text("or 2")
        expect(pg.locator("#recommended")).to_have_text("pass")
        moon = pg.locator('#chart g[data-bid="moon"]')
        expect(moon).to_have_class(re.compile(r"\bfar\b"))
        expect(moon).to_contain_text("off the scale")
        dots = pg.evaluate("""() => Object.fromEntries(Array.from(
            document.querySelectorAll('#chart g[data-bid] circle.dot')).map(
            (c) => [c.parentNode.dataset.bid, c.getBoundingClientRect().x]))""")
        plot = pg.locator("#chart svg").bounding_box()["width"]
        # pass and 2 differ by about a cent: with the moon's -$5.35 on the axis they would lie
        # within a pixel of each other; without it they stand apart
        assert abs(dots["pass"] - dots["2"]) >= 4, (dots, plot)
        ticks = pg.locator("#chart svg > text:not(.axis-label)").all_text_contents()
        assert all(abs(float(t.replace("$", "") or 0)) < 1 for t in ticks), ticks
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        assert _axe(pg) == []
        pg.locator("#answer").scroll_into_view_if_needed()
        pg.screenshot(path=shots / f"issue57-pitch-near-tie-{width}.png", full_page=True)
        assert not pg.errors, pg.errors
    finally:
        context.close()


@pytest.mark.parametrize("width", [1366, 360])
def test_pepper_with_a_score_says_the_chance_in_words_as_the_table_writes_it(
        browser, base, app, shots, width):
    """With a score: "Bid X: it wins the game about N times in 100 more often than
    ..." (or the two plans too close to call) before any number, and each chance in
    the numbers written as the table writes it (one decimal: 45.6%, not 45.55%)."""
    context, pg = _phone(browser, width, 900)
    try:
        _glossary_served(pg, app)
        pg.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}&score=24:10&samples=2000"
                f"&games=200&seed=0")
        _run_advice(pg)
        headline = pg.locator("#headline").inner_text()
        assert re.match(r"^(Pass|Bid \w+)(: it| or (pass|bid \w+): too close to call\. \w+ \w+)"
                        r" wins the game (about [0-9]+ times? in 100 more often|less than 1 time"
                        r" in 100 more often|about as often)", headline), headline
        assert not re.search(r"[0-9]%|pp", headline), headline
        reason = pg.locator("#reason").inner_text()
        shown = {r["p_win text"] for r in _table(pg)}
        chances = re.match(r"In numbers: wins the game in ([0-9.]+%) vs ([0-9.]+%)", reason)
        assert chances, reason
        assert set(chances.groups()) <= shown, (chances.groups(), shown)
        assert not re.search(r"[0-9]\.[0-9]{2}%", reason), reason      # never 45.55%
        assert "points for them" in reason
        assert _axe(pg) == []
        pg.locator("#answer").scroll_into_view_if_needed()
        pg.screenshot(path=shots / f"issue57-pepper-score-{width}.png", full_page=True)
        assert not pg.errors, pg.errors
    finally:
        context.close()


def test_a_repeated_or_unknown_card_is_named_and_the_rest_are_shown(page, base, shots):
    """"JH JH AH" and "JH JX AH KH QH 9S" no longer both read "1 of 6 cards: pick 5
    more" with JH alone in the fan: the count names the card, the fan shows every
    card that reads as one."""
    page.goto(f"{base}/?game=pepper")
    alert, hint = page.locator('[role="alert"]'), page.locator("#count-hint")
    fan = page.locator("#fan button.card")
    page.locator("#hand").fill("JH JH AH")
    expect(alert).to_contain_text("JH is in the hand twice")
    expect(hint).to_have_text("JH is there twice: 2 of 6 cards read")
    expect(fan).to_have_count(2)
    page.locator("#hand").fill("JH JX AH KH QH 9S")
    expect(alert).to_contain_text("JX is not a card")
    expect(hint).to_have_text("JX is not a card: 5 of 6 cards read")
    expect(fan).to_have_count(5)
    expect(_advise_button(page)).to_be_disabled()
    page.locator("#hand").fill("JH 2S AH")
    expect(hint).to_have_text("2S is not a card of this deck: 2 of 6 cards read")
    page.screenshot(path=shots / "issue57-card-errors.png", full_page=True)
    page.locator("#hand").fill("JH JD AH KH QH 9S")
    expect(hint).to_have_text("6 cards: ready")
    expect(alert).to_be_empty()


def test_samples_written_as_the_page_writes_them_are_taken(page, base):
    """"100,000" is what the page writes, so it is taken (and sent as 100000); a
    count below one says so in words, singular where it is one."""
    page.goto(f"{base}/?game=pepper&hand={'+'.join(HAND)}")
    error = page.locator("#samples-error")
    page.locator("#run-group > summary").click()
    page.locator("#samples").fill("100,000")
    expect(error).to_be_empty()
    expect(_advise_button(page)).to_be_enabled()
    expect(page).to_have_url(re.compile(r"[?&]samples=100000(&|$)"))
    expect(page.locator("#run-sub")).to_have_text("100,000 deals, seed 0")
    page.locator("#samples").fill("0")
    expect(error).to_have_text("samples (deals): at least 1 deal")
    page.locator("#samples").fill("-5")
    expect(error).to_have_text("samples (deals): −5 is below 1: give 1 deal or more, e.g. 100,000")
    expect(_advise_button(page)).to_be_disabled()
    page.locator("#seed").fill("-5")
    expect(page.locator("#seed-error")).to_contain_text("seed: −5 is below 0")
    page.locator("#samples").fill("1,00,000")                       # not a grouping
    expect(error).to_contain_text("'1,00,000' is not a whole number")


def test_the_advisor_fits_a_phones_fingers(browser, base, app, shots):
    """At 360 px: the top bar in two rows (not three), every "?" and Pitch's deck
    cards targets of 24 px (WCAG 2.2), the seat's select not cut, the table's
    headings on screen and tappable, each explaining itself."""
    context, pg = _phone(browser, 360, 800)
    try:
        _glossary_served(pg, app)
        pg.goto(f"{base}/?game=pitch&players=6&hand=AS+KS+5D+3C+9H+2S&samples=2000")
        expect(_advise_button(pg)).to_be_enabled()
        rows = pg.evaluate("""() => new Set(Array.from(document.querySelectorAll('nav.top a'))
            .map((a) => Math.round(a.getBoundingClientRect().top))).size""")
        assert rows == 2, rows
        sizes = pg.evaluate("""() => Array.from(document.querySelectorAll(
            'button.help, #grid button.card')).filter((b) => b.offsetParent).map((b) => {
            const r = b.getBoundingClientRect(); return [r.width, r.height]; })""")
        assert sizes
        assert min(min(w, h) for w, h in sizes) >= 24, sorted(sizes)[:3]
        seat = pg.evaluate("""() => { const s = document.getElementById('seat');
            const o = s.options[s.selectedIndex];
            const c = document.createElement('canvas').getContext('2d');
            c.font = getComputedStyle(s).font;
            return [c.measureText(o.text).width, s.clientWidth]; }""")
        assert seat[0] + 30 <= seat[1], seat                 # the text and the arrow fit
        _run_advice(pg)
        head = pg.locator("#plans thead button.term", has_text="EV")
        expect(head).to_be_visible()
        box = head.bounding_box()
        assert box["height"] >= 17, box
        head.click()
        expect(pg.locator("#plans thead .term-box")).to_contain_text("Expected value")
        assert pg.evaluate("document.documentElement.scrollWidth") <= 360
        assert _axe(pg) == []
        pg.screenshot(path=shots / "issue57-advisor-phone-pitch.png", full_page=True)
        assert not pg.errors, pg.errors
    finally:
        context.close()


def test_a_seat_explains_itself_with_a_link_to_the_rule_book(page, base, app):
    """Tapping "seat" showed "(seeds/<game>.md 1)"; now a link to the game's rule book
    section on the documentation site, and no source file's path anywhere."""
    _glossary_served(page, app)
    page.goto(f"{base}/?game=pitch&hand=AS+KS+5D+3C+9H+2S&samples=2000&seed=1")
    _run_advice(page)
    page.locator("#run-note button.term", has_text="seat").click()
    box = page.locator("#run-note .term-box")
    link = box.get_by_role("link", name="Pitch rules §1 Players, deck and deal")
    expect(link).to_have_attribute("href", "/docs/games/pitch/#1-players-deck-and-deal")
    expect(box).not_to_contain_text("seeds/")
    page.locator("#table-note button.term", has_text="95% interval").click()
    box = page.locator("#table-note .term-box")
    expect(box).not_to_contain_text(".py")
    expect(box.get_by_role("link")).to_have_attribute("href", "/docs/glossary/#term-interval")
