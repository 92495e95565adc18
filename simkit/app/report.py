"""Studies rendered as reports: one self-contained HTML page per study, with
its figures (PNG), its tables (CSV) and the provenance that produced them.

A *study* (a module under ``analyses/``, listed in ``analyses.STUDIES``)
simulates, aggregates with pandas and returns a :class:`StudyResult`.
:func:`render` writes it to ``<out>/<name>/``::

    index.html     title, summary, figures with captions, tables, notes, provenance
    study.json     name, title, summary, figures and captions, tables, provenance
                   (read by render_index)
    <figure>.png   one per figure
    <table>.csv    one per table, complete (the page shows at most 60 rows)

:func:`render_index` writes ``<out>/index.html`` linking every study found
under ``<out>``; :func:`render_all` renders results as they come (what
``simkit report`` does with :func:`analyses.run_studies`: the library never
imports the studies), then the index.  :func:`check_out` checks a reports
directory.  What a study returns, and the checks of its arguments, are
:mod:`simkit.study`'s.

A report is replaced as a whole: everything is written into a hidden
temporary directory beside the target and swapped in only when complete, so
a study or render that fails leaves the previous report as it was and no
half-written files.

A reports directory is simkit's: every directory a report is written into
holds :data:`MARKER`, and a report is written only into a new or empty
directory or one that holds it (:func:`check_out`), so that ``--out`` naming
a folder of the user's own (or ``/``) never has its ``index.html`` replaced.
"""

from __future__ import annotations

import contextlib
import html
import json
import math
import os
import pathlib
import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from simkit.base.errors import InputError
from simkit.base.plots import use_file_backend as use_file_backend
from simkit.runs import owned, store
from simkit.runs.store import json_default
from simkit.study import StudyResult as StudyResult
from simkit.study import check_args as check_args
from simkit.study import provenance

#: Rows of a table shown on the page; the CSV always holds all of them.
MAX_HTML_ROWS = 60
FIGURE_DPI = 110
STUDY_FILE = "study.json"
PAGE_FILE = "index.html"
#: The file every directory simkit writes reports into holds: a directory
#: holding other files without it is not written into (:func:`check_out`).
MARKER = "simkit-reports.txt"
_MARKER_TEXT = ("This directory holds reports rendered by 'simkit report'. simkit writes "
                "reports only into a new or empty directory, or one holding this file.\n")

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


def _completed(record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` with the code-version and time fields :func:`provenance` adds
    filled in where a study left them out."""
    out = dict(record)
    if not {"simkit_version", "git_commit", "versions", "created_utc"} <= out.keys():
        std = provenance(seed=out.get("seed", 0))
        for key in ("simkit_version", "git_commit", "versions", "created_utc"):
            out.setdefault(key, std[key])
    return out




def _check_result(result: StudyResult) -> None:
    if not isinstance(result, StudyResult):
        raise TypeError(f"render takes a StudyResult, not {type(result).__name__}")
    if not _SLUG.match(result.name):
        raise ValueError(f"bad study name {result.name!r}: lower-case letters, digits and '-'")
    for kind, items in (("table", result.tables), ("figure", result.figures)):
        for key in items:
            if not _FILE_NAME.match(key):
                raise ValueError(f"bad {kind} name {key!r}: letters, digits, '_' and '-'")
    for key, df in result.tables.items():
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"table {key!r} is a {type(df).__name__}, not a DataFrame")
    for key, fig in result.figures.items():
        if not isinstance(fig, Figure):
            raise TypeError(f"figure {key!r} is a {type(fig).__name__}, not a matplotlib Figure")


# ---------------------------------------------------------------- HTML

#: The browser app's style sheets (simkit serve), copied once into the reports
#: directory as :data:`STYLE_FILE`, which every page links: a report looks like
#: the app also when opened from disk, and the pages do not repeat it.
STYLE_FILES = ("style.css", "report.css")
STYLE_FILE = "style.css"
#: The app's pages the header links back to (served by ``simkit serve``).
APP_LINKS = (("/", "Advisor"), ("/hand", "Hand viewer"), ("/compare", "Compare"))
#: The documentation site, as ``simkit serve`` serves it (built by mkdocs).
DOCS_URL = "/docs/"


def _css() -> str:
    static = pathlib.Path(__file__).resolve().parent / "web" / "static"
    return "\n".join((static / name).read_text(encoding="utf-8") for name in STYLE_FILES)


def _header(up: str, here: str) -> str:
    """The app's top bar: the app's pages, all reports (``up``: the way to the
    reports directory, "" or "../") and the docs; ``here`` is "index" or "study"."""
    links = ['<a class="brand" href="/">simkit<span class="suits" aria-hidden="true">'
             '♠<span class="r">♥</span>♣<span class="r">♦</span></span></a>']
    links += [f'<a href="{href}">{text}</a>' for href, text in APP_LINKS]
    current = ' aria-current="page"' if here == "index" else ""
    links.append(f'<a href="{up}{PAGE_FILE}"{current}>Reports</a>')
    links.append(f'<a class="docs" href="{DOCS_URL}">Docs</a>')
    return f'<nav class="top" aria-label="simkit">{"".join(links)}</nav>'


def _mark(out_dir: pathlib.Path) -> None:
    """Mark ``out_dir`` as a reports directory (:data:`MARKER`), once."""
    owned.mark(out_dir, MARKER, _MARKER_TEXT)


def _write_style(out_dir: pathlib.Path) -> None:
    """The app's style sheets as ``<out_dir>/style.css`` (replaced atomically)."""
    tmp = out_dir / f".{STYLE_FILE}.{os.getpid()}.partial"
    try:
        _write_text(tmp, _css())
        os.replace(tmp, out_dir / STYLE_FILE)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _head(title: str, up: str) -> str:
    """The page's head; ``up``: the way to the reports directory ("" or "../")."""
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{_esc(title)}</title><link rel=\"stylesheet\" href=\"{up}{STYLE_FILE}\">"
            f"</head><body>")


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _cell(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        x = float(v)
        if math.isnan(x):
            return ""
        return f"{x:,.0f}" if x.is_integer() and abs(x) >= 1000 else f"{x:.4f}"
    return str(v)


def _meta(name: str, prov: Mapping[str, Any]) -> str:
    """One line: the study's name, sizes, seed and creation time."""
    meta = [f"<code>{_esc(name)}</code>"]
    for key in ("hands", "games", "seed", "created_utc"):
        if key in prov:
            v = prov[key]
            text = f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else v
            meta.append(f"{key.replace('_', ' ')} {_esc(text)}")
    return " &middot; ".join(meta)


def _players(prov: Mapping[str, Any]) -> str:
    """Who played: every figure of a study is what these simulated players do."""
    pols = prov.get("policies")
    if isinstance(pols, Mapping):
        items = [f"{k}: {v}" if str(k) != str(v) else str(v) for k, v in pols.items()]
    elif isinstance(pols, (list, tuple)):
        items = [str(p) for p in pols]
    else:
        items = [str(pols)]
    return ("<section class=\"panel players\"><b>Played by simulated players:</b> "
            + "; ".join(f"<code>{_esc(i)}</code>" for i in items)
            + ". Every figure here is what these policies do at these tables; people "
              "playing the same cards may do better or worse.</section>")


def _table_html(df: pd.DataFrame, name: str = "") -> str:
    shown = df.head(MAX_HTML_ROWS)
    head = "".join(f"<th>{_esc(c)}</th>" for c in shown.columns)
    rows = []
    for rec in shown.itertuples(index=False, name=None):
        rows.append("<tr>" + "".join(f"<td>{_esc(_cell(v))}</td>" for v in rec) + "</tr>")
    return (f'<div class="scroll" role="region" tabindex="0" aria-label="table {_esc(name)}">'
            f'<table class="data"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _page(result: StudyResult) -> str:
    r = result
    parts = [_head(r.title, "../"), _header("../", "study"), '<main class="page report">',
             '<header class="heading"><p class="crumbs"><a href="../index.html">'
             '&larr; All reports</a></p>',
             f"<h1>{_esc(r.title)}</h1>",
             f"<p class=\"meta\">study {_meta(r.name, r.provenance)}</p></header>"]
    if r.summary:
        parts.append("<section class=\"panel summary\"><h2>Findings</h2><ul>"
                     + "".join(f"<li>{_esc(s)}</li>" for s in r.summary) + "</ul></section>")
    if r.provenance.get("policies"):
        parts.append(_players(r.provenance))
    if r.figures:
        parts.append("<section class=\"panel report-figures\"><h2>Figures</h2>")
        for i, key in enumerate(r.figures, 1):
            cap = r.captions.get(key, key)
            # the figure links to itself at full size: on a phone a 2,000 px figure is
            # shown 316 px wide, too small to read, and opens to be zoomed
            parts.append(f"<figure id=\"fig-{_esc(key)}\"><a class=\"full\" "
                         f"href=\"{_esc(key)}.png\"><img src=\"{_esc(key)}.png\" "
                         f"alt=\"{_esc(cap)}\"></a><figcaption><b>Figure {i}.</b> {_esc(cap)} "
                         f"<a href=\"{_esc(key)}.png\">Open at full size</a>"
                         f"</figcaption></figure>")
        parts.append("</section>")
    if r.tables:
        parts.append("<section class=\"panel tables\"><h2>Tables</h2>")
        for key, df in r.tables.items():
            parts.append(f"<h3 id=\"table-{_esc(key)}\">{_esc(key)}</h3>")
            if key in r.descriptions:
                parts.append(f"<p class=\"table-note\">{_esc(r.descriptions[key])}</p>")
            more = (f"first {MAX_HTML_ROWS} of {len(df):,} rows; "
                    if len(df) > MAX_HTML_ROWS else f"{len(df):,} rows; ")
            parts.append(f"<p class=\"muted\">{more}full table: "
                         f"<a href=\"{_esc(key)}.csv\">{_esc(key)}.csv</a></p>")
            parts.append(_table_html(df, key))
        parts.append("</section>")
    if r.notes:
        parts.append("<section class=\"panel notes\"><h2>Method notes</h2><ul>"
                     + "".join(f"<li>{_esc(n)}</li>" for n in r.notes) + "</ul></section>")
    parts.append("<section class=\"panel\"><h2>Provenance</h2>"
                 "<pre class=\"provenance\" tabindex=\"0\" role=\"region\" "
                 "aria-label=\"provenance\">"
                 + _esc(json.dumps(r.provenance, indent=2, default=json_default))
                 + "</pre></section></main></body></html>\n")
    return "\n".join(parts)


# ---------------------------------------------------------------- writing

def _write_text(path: pathlib.Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def _swap_in(tmp: pathlib.Path, target: pathlib.Path) -> None:
    """Put the complete directory ``tmp`` at ``target``, replacing what was there.

    Two renames: the old report moves aside, the new one moves in, then the
    old one is deleted.  Should the second rename fail, the old one is moved
    back.
    """
    old = None
    if target.exists() or target.is_symlink():
        if not target.is_dir() or target.is_symlink():
            raise InputError(f"cannot write report '{target}': it exists and is not a directory")
        old = target.with_name(f".{target.name}.old-{os.getpid()}-{time.monotonic_ns()}")
        os.rename(target, old)
    try:
        os.rename(tmp, target)
    except BaseException:
        if old is not None:
            os.rename(old, target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def render(result: StudyResult, out_dir: store.StrPath) -> pathlib.Path:
    """Write ``result`` to ``<out_dir>/<name>/`` and return the page's path.

    Files: ``index.html``, ``study.json``, ``<figure>.png`` for each figure
    and ``<table>.csv`` for each table (``out_dir`` is created if its parent
    exists).  The figures are closed afterwards, also on failure.  The
    directory is built beside the target under a hidden name and swapped in
    when complete: on any error the previous report is untouched and the
    temporary directory is removed.
    """
    out_dir = pathlib.Path(out_dir)
    try:
        _check_result(result)
        result.provenance = _completed(result.provenance)
        out_dir = check_out(out_dir)
        out_dir.mkdir(exist_ok=True)
        _mark(out_dir)
        target = out_dir / result.name
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".{result.name}.", suffix=".partial",
                                            dir=out_dir))
        try:
            for key, fig in result.figures.items():
                fig.savefig(tmp / f"{key}.png", dpi=FIGURE_DPI, bbox_inches="tight",
                            facecolor="white")
            for key, df in result.tables.items():
                df.to_csv(tmp / f"{key}.csv", index=False)
            record = {"name": result.name, "title": result.title, "summary": list(result.summary),
                      "figures": list(result.figures), "captions": dict(result.captions),
                      "tables": list(result.tables),
                      "provenance": result.provenance}
            _write_text(tmp / STUDY_FILE,
                        json.dumps(record, indent=2, default=json_default) + "\n")
            _write_text(tmp / PAGE_FILE, _page(result))
            os.chmod(tmp, 0o755)            # mkdtemp makes it private
            _write_style(out_dir)
            _swap_in(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    finally:
        result.close()
    return target / PAGE_FILE


def _read_study(d: pathlib.Path) -> dict[str, Any]:
    """A study's ``study.json``, or {} where it is missing or not a JSON object
    (bounded, and deep nesting is malformed JSON: :mod:`simkit.base.files`)."""
    from simkit.base.files import MAX_JSON_BYTES, read_json
    try:
        record = read_json(str(d / STUDY_FILE), f"'{d / STUDY_FILE}'", MAX_JSON_BYTES)
    except InputError:
        return {}
    return record if isinstance(record, dict) else {}


def _first_sentence(text: str, most: int = 220) -> str:
    """The first sentence of ``text`` (at most ``most`` characters, cut at a word)."""
    m = re.match(r"(.+?[.!?])(\s|$)", text.strip())
    first = m.group(1) if m else text.strip()
    if len(first) > most:
        first = first[:most].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return first


def _card(d: pathlib.Path, rec: Mapping[str, Any]) -> str:
    """One study on the index: its first figure as a thumbnail, its title (the link)
    and its first finding in one sentence, then its name and sizes."""
    title = rec.get("title") or d.name
    prov, summary = rec.get("provenance"), rec.get("summary")
    prov = prov if isinstance(prov, dict) else {}
    summary = [s for s in summary if isinstance(s, str)] if isinstance(summary, list) else []
    figures, captions = rec.get("figures"), rec.get("captions")
    figures = figures if isinstance(figures, list) else []
    captions = captions if isinstance(captions, dict) else {}
    thumb = next((f for f in figures if isinstance(f, str) and _FILE_NAME.match(f)
                  and (d / f"{f}.png").is_file()), None)
    if thumb:
        alt = captions.get(thumb) if isinstance(captions.get(thumb), str) else ""
        img = (f'<img class="thumb" src="{_esc(d.name)}/{_esc(thumb)}.png" loading="lazy" '
               f'alt="{_esc(alt)}">')
    else:
        img = '<div class="thumb none" aria-hidden="true">♠</div>'
    finding = (f'<p class="finding">{_esc(_first_sentence(summary[0]))}</p>' if summary
               else "")
    return (f'<li class="report-card" data-study="{_esc(d.name)}">{img}<div class="body">'
            f'<h2><a href="{_esc(d.name)}/{PAGE_FILE}">{_esc(title)}</a></h2>{finding}'
            f'<p class="meta">{_meta(d.name, prov)}</p></div></li>')


def render_index(out_dir: store.StrPath) -> pathlib.Path:
    """Write ``<out_dir>/index.html`` linking every ``<out_dir>/<study>/index.html``.

    A card per study: its first figure as a thumbnail, its title (the link) and
    its first finding in a sentence, from its ``study.json`` (a study without
    one is listed by its directory name).  Written atomically.
    """
    out_dir = pathlib.Path(out_dir)
    if not out_dir.is_dir():
        raise InputError(f"cannot write the report index in '{out_dir}': not a directory")
    check_out(out_dir)                  # its index.html is simkit's to replace
    _mark(out_dir)
    cards = []
    for d in sorted(p for p in out_dir.iterdir()
                    if p.is_dir() and not p.name.startswith(".") and (p / PAGE_FILE).is_file()):
        cards.append(_card(d, _read_study(d)))
    body = (f'<ul class="report-cards">{"".join(cards)}</ul>' if cards
            else '<p class="empty-reports">No reports yet: render them with '
                 '<code>simkit report all</code>.</p>')
    n = len(cards)
    _write_style(out_dir)
    page = (_head("simkit reports", "") + _header("", "index")
            + '<main class="page report"><header class="heading"><h1>Reports</h1>'
            f"<p>{n} stud{'y' if n == 1 else 'ies'}, each a page of findings, figures and "
            "tables with the seed, sample sizes, rules, policies and code version that made "
            f"them. Open one for the whole study.</p></header>{body}</main></body></html>\n")
    path = out_dir / PAGE_FILE
    tmp = out_dir / f".{PAGE_FILE}.{os.getpid()}.partial"
    try:
        _write_text(tmp, page)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    return path


def render_all(results: Iterable[StudyResult], out: store.StrPath) -> list[pathlib.Path]:
    """Render each result as it comes into ``out`` (checked first, made if its
    parent exists), then the index; return the study pages.  Should a study
    fail, its previous report stays as it was, and those rendered before it
    are indexed."""
    where = check_out(out)
    where.mkdir(exist_ok=True)
    pages: list[pathlib.Path] = []
    try:
        for result in results:
            pages.append(render(result, where))
    except BaseException:
        if pages:
            with contextlib.suppress(Exception):
                render_index(where)
        raise
    render_index(where)
    return pages


def check_out(out: store.StrPath) -> pathlib.Path:
    """The reports directory ``out``, checked (nothing is changed): it may be
    created here; it is not a simkit run or tune directory (reports written
    into one would spoil it); and it is new, empty or simkit's own (it holds
    :data:`MARKER`), since a report replaces the ``index.html`` and the
    study folders it finds there (:func:`simkit.runs.owned.check_own`)."""
    return owned.check_own(out, MARKER, "report")
