"""Study reports (simkit/report.py): a result rendered to its directory (a page,
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

from simkit import report


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
    assert record["provenance"]["seed"] == 4 and "git_commit" in record["provenance"]
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
