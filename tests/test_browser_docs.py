"""The documentation site in a real browser, as ``simkit serve`` serves it under
``/docs/`` (built here with ``mkdocs build --strict``, the docs extra installed):
readable colours (axe-core finds no serious or critical problem at 360 and
1366 px), a named search dialog, nothing fetched from another host (no font
service: the docs work offline), and a way back to the app on every page.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest
from test_browser import _axe, _serve, browser, shots  # noqa: F401  (fixtures)
from test_browser import pytestmark as _needs_browser

try:
    from playwright.sync_api import expect
except ImportError:         # pragma: no cover - skipped by _needs_browser then
    expect = None

ROOT = pathlib.Path(__file__).resolve().parent.parent

pytestmark = [*_needs_browser, pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="the documentation site needs the docs extra (pip install -e '.[docs]')")]

WIDTHS = (1366, 360)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> pathlib.Path:
    """The site as CI builds it (strict: a broken link or anchor fails here too)."""
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                          "-d", str(out)], cwd=ROOT, capture_output=True, text=True,
                         timeout=1200)
    assert run.returncode == 0, run.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def docs_base(site, tmp_path_factory):
    """The app with this site as its /docs/, served by uvicorn in a thread."""
    from simkit.app.web.server import create_app
    app = create_app(str(tmp_path_factory.mktemp("reports")), docs=str(site), warm=False)
    yield from _serve(app)


def _page(browser, width):  # noqa: F811
    context = browser.new_context(viewport={"width": width, "height": 900})
    pg = context.new_page()
    pg.elsewhere = []
    pg.on("request", lambda r: None if re.match(r"^(https?://127\.0\.0\.1[:/]|data:|blob:)", r.url)
          else pg.elsewhere.append(r.url))
    return context, pg


def test_the_built_pages_fetch_no_font_and_name_their_search(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis" not in index
    assert "fonts.gstatic" not in index
    assert 'role="dialog" aria-label="Search the documentation"' in index
    assert '<a class="simkit-app" href="/">' in index
    glossary = (site / "glossary" / "index.html").read_text(encoding="utf-8")
    assert 'id="term-seat"' in glossary
    assert "seeds/&lt;game&gt;" not in glossary
    assert 'href="../games/burraco/#1-players-cards-and-deal"' in glossary


@pytest.mark.parametrize("width", WIDTHS)
def test_the_docs_read_well_and_lead_back_to_the_app(browser, docs_base, shots, width):  # noqa: F811
    """Home, a game's rule book and the glossary: no serious or critical axe
    violation (the header's white on green and the links have 4.5:1 or more),
    nothing fetched from another host; the search opens as a named dialog; the
    bar at the top opens the app."""
    context, pg = _page(browser, width)
    try:
        for path in ("/docs/", "/docs/games/pepper/", "/docs/glossary/"):
            pg.goto(f"{docs_base}{path}")
            expect(pg.locator("h1").first).to_be_visible()
            found = _axe(pg)
            assert found == [], (path, found)
        pg.goto(f"{docs_base}/docs/")
        dialog = pg.get_by_role("dialog", name="Search the documentation")
        expect(dialog).to_have_count(1)
        header = pg.evaluate("""() => { const h = document.querySelector('.md-header');
            const s = getComputedStyle(h); return [s.backgroundColor, s.color]; }""")
        assert header == ["rgb(27, 94, 58)", "rgb(255, 255, 255)"], header
        pg.screenshot(path=shots / f"issue57-docs-{width}.png")
        pg.goto(f"{docs_base}/docs/games/pepper/")
        pg.screenshot(path=shots / f"issue57-docs-pepper-{width}.png")
        pg.get_by_role("link", name="Open the simkit app").click()
        # The app writes its inputs into the address once it has loaded.
        expect(pg).to_have_url(re.compile(re.escape(f"{docs_base}/") + r"(\?.*)?$"))
        expect(pg.locator("h1")).to_have_text("What should I bid?")
        assert pg.elsewhere == [], pg.elsewhere
    finally:
        context.close()
