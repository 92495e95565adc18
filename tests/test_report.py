"""Study reports (simkit/app/report.py): a result rendered to its directory (a page,
a PNG per figure, a CSV per table, ``study.json``) and linked from the index;
a render replaces the whole previous report, a failing one leaves it
untouched, and every render closes the result's figures.

Every study's own report is checked in test_studies.py (the study contract).
"""

from __future__ import annotations

import json

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from simkit.app import report


def _snapshot(directory):
    return {p.relative_to(directory).as_posix(): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def _hidden(directory):
    return [p.name for p in directory.iterdir() if p.name.startswith(".")]


def test_render_writes_the_report_and_closes_its_figures(tmp_path):
    report.use_file_backend()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    result = report.StudyResult("demo", "Demo", summary=["One finding."],
                                tables={"t": pd.DataFrame({"x": [1, 2]})}, figures={"f": fig},
                                provenance={"seed": 4, "policies": ["heuristic"]})
    page = report.render(result, tmp_path)
    assert not plt.fignum_exists(fig.number)
    assert page == tmp_path / "demo" / "index.html"
    assert {p.name for p in page.parent.iterdir()} == {"index.html", "study.json", "t.csv",
                                                         "f.png"}
    record = json.loads((page.parent / "study.json").read_text())
    assert record["provenance"]["seed"] == 4
    assert "git_commit" in record["provenance"]
    report.render_index(tmp_path)
    assert 'href="demo/index.html"' in (tmp_path / "index.html").read_text()
    assert not _hidden(tmp_path)


def test_render_replaces_the_whole_report(tmp_path):
    a = report.StudyResult("demo", "Demo", tables={"old": pd.DataFrame({"x": [1]})})
    b = report.StudyResult("demo", "Demo 2", tables={"new": pd.DataFrame({"x": [2]})})
    report.render(a, tmp_path)
    report.render(b, tmp_path)
    files = {p.name for p in (tmp_path / "demo").iterdir()}
    assert files == {"index.html", "study.json", "new.csv"}
    assert not _hidden(tmp_path)


def test_a_failing_render_leaves_the_previous_report(tmp_path):
    report.render(report.StudyResult("demo", "Demo", tables={"t": pd.DataFrame({"x": [1]})}),
                  tmp_path)
    before = _snapshot(tmp_path)
    fig = plt.figure()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    fig.savefig = broken
    bad = report.StudyResult("demo", "Demo", tables={"t": pd.DataFrame({"x": [2]})},
                             figures={"f": fig})
    with pytest.raises(OSError, match="disk full"):
        report.render(bad, tmp_path)
    assert _snapshot(tmp_path) == before
    assert not _hidden(tmp_path)
    assert not plt.get_fignums()


def _tags(page_html: str, tag: str) -> list[dict]:
    """The attributes of every ``tag`` element of a page."""
    from html.parser import HTMLParser

    found = []

    class P(HTMLParser):
        def handle_starttag(self, t, attrs):
            if t == tag:
                found.append(dict(attrs))

    P().feed(page_html)
    return found


def test_a_report_has_the_apps_style_and_its_header(tmp_path):
    """A report page: the app's style sheets, copied once beside the reports (so
    that a page opened from disk looks the same), the app's top bar with the
    app's pages, all reports and the docs, each part in a panel, tables as the
    app draws them, scrolling in their box."""
    report.use_file_backend()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    page = report.render(report.StudyResult(
        "demo", "Demo", summary=["One finding."], tables={"t": pd.DataFrame({"x": [1, 2]})},
        figures={"f": fig}, captions={"f": "A line."}, descriptions={"t": "Two rows."},
        notes=["A note."], provenance={"seed": 4, "policies": ["heuristic"]}), tmp_path)
    text = page.read_text()
    static = report.pathlib.Path(report.__file__).parent / "web" / "static"
    style = (tmp_path / "style.css").read_text()
    for name in report.STYLE_FILES:
        assert (static / name).read_text() in style          # as the app has it
    assert [t["href"] for t in _tags(text, "link")] == ["../style.css"]   # nothing from elsewhere
    hrefs = [a.get("href") for a in _tags(text, "a")]
    assert hrefs[:4] == ["/", "/", "/hand", "/compare"]     # the brand, then the app's pages
    # the docs are the site simkit serve serves, not the README as raw text
    assert {"../index.html", "/docs/", "t.csv"} <= set(hrefs)
    assert not any("README" in h for h in hrefs)
    # each figure links to itself at full size (a phone shows it too small to read)
    assert hrefs.count("f.png") == 2
    assert '<a class="full" href="f.png"><img src="f.png" alt="A line."></a>' in text
    assert "Open at full size" in text
    assert any(n.get("class") == "top" for n in _tags(text, "nav"))
    assert _tags(text, "main")[0]["class"] == "page report"
    panels = [s["class"] for s in _tags(text, "section")]
    assert panels == ["panel summary", "panel players", "panel report-figures", "panel tables",
                      "panel notes", "panel"]
    assert _tags(text, "table")[0]["class"] == "data"
    scroll = [d for d in _tags(text, "div") if d.get("class") == "scroll"]
    assert scroll
    assert scroll[0]["tabindex"] == "0"
    assert scroll[0]["role"] == "region"
    assert _tags(text, "img")[0] == {"src": "f.png", "alt": "A line."}
    record = json.loads((page.parent / "study.json").read_text())
    assert record["captions"] == {"f": "A line."}


def test_the_index_is_a_grid_of_cards(tmp_path):
    """The index: a card per study, its first figure as the thumbnail (its
    caption as the words), its title the link, its first finding in one
    sentence; a study without a figure, or without study.json, still gets a card."""
    report.use_file_backend()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    long = "Bidding " + "very " * 80 + "high loses."
    report.render(report.StudyResult(
        "a-first", "First", summary=["It is made 88.1% of the time (95% CI 88.0-88.2%). "
                                     "A second sentence.", "Another finding."],
        figures={"f": fig}, captions={"f": "A line."}, provenance={"seed": 1, "hands": 500}),
        tmp_path)
    report.render(report.StudyResult("b-plain", "Plain", summary=[long],
                                     tables={"t": pd.DataFrame({"x": [1]})}), tmp_path)
    (tmp_path / "c-bare").mkdir()
    (tmp_path / "c-bare" / "index.html").write_text("<p>old</p>")
    text = report.render_index(tmp_path).read_text()
    cards = [li for li in _tags(text, "li") if li.get("class") == "report-card"]
    assert [c["data-study"] for c in cards] == ["a-first", "b-plain", "c-bare"]
    assert [u["class"] for u in _tags(text, "ul")] == ["report-cards"]
    imgs = _tags(text, "img")
    assert imgs == [{"class": "thumb", "src": "a-first/f.png", "loading": "lazy", "alt": "A line."}]
    assert text.count('class="thumb none"') == 2
    assert [a["href"] for a in _tags(text, "a")][-3:] == [
        "a-first/index.html", "b-plain/index.html", "c-bare/index.html"]
    assert ('<p class="finding">It is made 88.1% of the time (95% CI 88.0-88.2%).</p>'
            in text)
    assert "A second sentence" not in text
    assert "Another finding" not in text
    finding = text.split('data-study="b-plain"')[1].split('<p class="finding">')[1].split("</p>")[0]
    assert finding.endswith("…")
    assert len(finding) <= 221
    assert finding.startswith("Bidding very")
    assert ">c-bare</a></h2>" in text
    assert report.STYLE_FILES
    assert '<nav class="top"' in text
    assert 'aria-current="page"' in text
