"""The web app's pages and files: the three pages, the rendered reports under
``/reports/``, the built documentation under ``/docs/`` and the README.

Every page is one shell, ``static/page.html``, filled with the page's own
parts: its title, its style sheet and script (``static/NAME.css``,
``NAME.js``) and what its ``<main>`` holds (``static/NAME.html``).  In a
template, ``{{key}}`` is a value of the page and a line holding only
``{{include NAME}}`` is ``static/NAME.html``, indented as that line is; a
template's leading ``<!-- ... -->`` note is for its readers and is not sent.
"""

from __future__ import annotations

import functools
import pathlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.exceptions import HTTPException

STATIC = pathlib.Path(__file__).resolve().parent / "static"
#: Longest file path under /reports/ (longer: no such report, at once).
MAX_PATH = 1000
#: The documentation site, as ``mkdocs build`` writes it in the checkout.
DOCS_SITE = pathlib.Path(__file__).resolve().parents[3] / "site"


# --- the pages ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Page:
    """One page of the app: ``static/NAME.html`` (its parts), ``NAME.css`` and
    ``NAME.js``, its title, the class of its ``<main>`` and its nav's label."""

    name: str
    title: str
    main: str = "page"
    nav_label: str | None = None


PAGES = {"/": Page("advisor", "Bid advisor", main="page advisor", nav_label="simkit"),
         "/hand": Page("hand", "Hand viewer"),
         "/compare": Page("compare", "Compare rule variants")}

_NOTE = re.compile(r"\A<!--.*?-->\n", re.DOTALL)
_INCLUDE = re.compile(r"^([ \t]*)\{\{include ([a-z_-]+)\}\}\n", re.MULTILINE)
_VALUE = re.compile(r"\{\{([a-z_]+)\}\}")


def _template(name: str) -> str:
    """``static/NAME.html`` without its note, its includes filled in."""
    text = _NOTE.sub("", (STATIC / f"{name}.html").read_text(encoding="utf-8"), count=1)

    def include(m: re.Match[str]) -> str:
        return "".join(m[1] + line if line.strip() else line
                       for line in _template(m[2]).splitlines(keepends=True))

    return _INCLUDE.sub(include, text)


def render(page: Page) -> str:
    """The page as the browser receives it: the shell filled with its parts."""
    nav = f' aria-label="{page.nav_label}"' if page.nav_label else ""
    values = {"title": page.title, "name": page.name, "nav": nav, "main": page.main,
              "parts": _template(page.name)}
    return _VALUE.sub(lambda m: values[m[1]], _template("page"))


pages = APIRouter()


def _page(page: Page) -> Callable[[], Awaitable[HTMLResponse]]:
    async def serve() -> HTMLResponse:
        # read at each request, as files are: an edited page shows on reload
        return HTMLResponse(render(page), headers={"Cache-Control": "no-cache"})
    return serve


for _path, _it in PAGES.items():
    pages.add_api_route(_path, _page(_it), methods=["GET"], include_in_schema=False)


# --- reports and documentation ------------------------------------------------------------

NO_REPORTS = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>simkit reports</title><link rel="stylesheet" href="/static/style.css"></head>
<body><nav class="top"><a class="brand" href="/">simkit</a><a href="/">Advisor</a>
<a href="/hand">Hand viewer</a><a href="/compare">Compare</a>
<a href="/reports/"{reports_here}>Reports</a><a href="/docs/"{docs_here}>Docs</a></nav>
<main class="page"><section class="panel">{body}</section></main>
</body></html>"""
NO_REPORTS_BODY = """<h1>No reports yet</h1>
<p>The reports directory <code>{where}</code> holds no reports yet. Render the studies with
<code>simkit report all</code> (a few minutes), then reload this page.</p>"""
NO_DOCS_BODY = """<h1>The documentation is not built</h1>
<p>The documentation site is built from this checkout with MkDocs:
<code>pip install -e ".[docs]" &amp;&amp; mkdocs build</code> (seconds), then reload this page
(it serves <code>{where}</code>). Until then the <a href="/README.md">README</a> gives the
quick start and the commands.</p>"""


def _note(body: str, here: str) -> HTMLResponse:
    """A page of the app's style saying what is missing (``here``: the tab)."""
    current = ' aria-current="page"'
    return HTMLResponse(NO_REPORTS.format(
        body=body, reports_here=current if here == "reports" else "",
        docs_here=current if here == "docs" else ""))


def _tree(root: pathlib.Path, rel: str, prefix: str, what: str) -> Response:
    """The file ``rel`` under ``root`` served at ``/PREFIX/REL``, a redirect to a
    folder's slash, or a 404 naming ``what`` was not found."""
    found = _report_file(root, rel)
    if found is None:
        if len(rel) > MAX_PATH:
            raise HTTPException(404, f"no {what} {rel[:40]!r}...: a path under /{prefix}/ "
                                     f"is at most {MAX_PATH:,} characters")
        raise HTTPException(404, f"no {what} {rel[:80]!r}")
    path, folder = found
    if folder and rel and not rel.endswith("/"):
        return RedirectResponse(f"/{prefix}/{rel}/")       # so its relative links resolve
    return FileResponse(path)


def _report_file(root: pathlib.Path, rel: str) -> tuple[pathlib.Path, bool] | None:
    """``(file, folder)``: the file under ``root`` that ``rel`` names (a folder:
    its index.html, and ``folder`` True), or None when there is none, ``rel``
    leads outside ``root`` or cannot name a file (too long, a NUL)."""
    if "\x00" in rel or len(rel) > MAX_PATH:
        return None
    try:
        base = root.resolve()
        target = (base / rel).resolve()
        if not target.is_relative_to(base):
            return None
        folder = target.is_dir()
        if folder:
            target = target / "index.html"
        return (target, folder) if target.is_file() else None
    except (OSError, RuntimeError, ValueError):      # e.g. a name too long for the system
        return None


def _is_file(path: pathlib.Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


@functools.cache
def _readme() -> str:
    """The documentation: the checkout's README next to the package (an editable
    install), else the copy the installed package's metadata carries."""
    beside = pathlib.Path(__file__).resolve().parents[3] / "README.md"
    if _is_file(beside):
        return beside.read_text(encoding="utf-8")
    from importlib import metadata

    try:
        # the metadata is an email Message at run time; its stub omits get_payload
        return metadata.metadata("simkit").get_payload() or ""     # type: ignore[attr-defined]
    except metadata.PackageNotFoundError:
        return ""


@pages.get("/README.md", include_in_schema=False)
async def readme() -> PlainTextResponse:
    """The documentation, as text (the reports' and the pages' Docs link)."""
    text = _readme()
    if not text:
        raise HTTPException(404, "no documentation in this install: see simkit --help")
    return PlainTextResponse(text)


def _serve_tree(prefix: str, what: str, missing: str) -> None:
    """``/PREFIX/...``: the files of the directory ``app.state.PREFIX`` (the
    rendered reports, the built documentation), or, while it has no
    index.html, a page of the app's style saying how to make it."""
    async def root() -> RedirectResponse:
        return RedirectResponse(f"/{prefix}/")

    async def files(rel: str, request: Request) -> Response:
        top: pathlib.Path = getattr(request.app.state, prefix)
        if rel in ("", "index.html") and not _is_file(top / "index.html"):
            return _note(missing.format(where=top), prefix)
        return _tree(top, rel, prefix, what)

    pages.add_api_route(f"/{prefix}", root, methods=["GET"], include_in_schema=False)
    pages.add_api_route(f"/{prefix}/{{rel:path}}", files, methods=["GET"],
                        include_in_schema=False)


_serve_tree("reports", "report file", NO_REPORTS_BODY)
_serve_tree("docs", "documentation page", NO_DOCS_BODY)
