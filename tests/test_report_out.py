"""Where ``simkit report`` writes (simkit/app/report.py): only into a new or
empty directory or one it wrote before, which holds ``simkit-reports.txt``,
so that ``--out`` naming a user's own folder never has its files replaced;
the repository's own ``reports/`` is one of simkit's."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pandas as pd
import pytest

from simkit.app import report
from simkit.base.errors import InputError

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _study(title: str = "Demo") -> report.StudyResult:
    return report.StudyResult("demo", title, summary=["One finding."],
                              tables={"t": pd.DataFrame({"x": [1, 2]})}, provenance={"seed": 1})


def test_a_reports_folder_is_marked_and_written_again(tmp_path):
    """A new folder, and an empty one, are taken and marked; a marked one is
    written again."""
    for out in (tmp_path / "new", tmp_path / "empty"):
        if out.name == "empty":
            out.mkdir()
        report.render(_study(), out)
        report.render_index(out)
        assert (out / report.MARKER).read_text() == report._MARKER_TEXT
        report.render(_study("Demo again"), out)
        report.render_index(out)
        assert "Demo again" in (out / "demo" / "index.html").read_text()
        assert sorted(os.listdir(out)) == ["demo", "index.html", report.MARKER, "style.css"]


@pytest.mark.parametrize("theirs", ["index.html", "photo.jpg", "demo"])
def test_a_folder_simkit_did_not_write_is_never_written_into(tmp_path, theirs):
    """A folder holding anything else, without the marker, is refused before
    anything is written: by render, render_index and the check the command
    makes first."""
    out = tmp_path / "site"
    out.mkdir()
    if theirs == "demo":
        (out / theirs).mkdir()
        (out / theirs / "index.html").write_text("a user's page")
    else:
        (out / theirs).write_text("a user's file")
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    for write in (lambda: report.render(_study(), out), lambda: report.render_index(out),
                  lambda: report.check_out(out)):
        with pytest.raises(InputError, match=rf"--out '{out}' holds files simkit did not write "
                                             rf"there \('{theirs}'\).*simkit-reports\.txt"):
            write()
        assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_the_repositorys_reports_folder_is_simkits(tmp_path):
    """``reports/`` (tracked, written by ``simkit report all``) holds the marker,
    so a fresh clone's ``simkit report all`` writes into it: its tracked files
    and the marker, copied, take a report and an index."""
    assert (ROOT / "reports" / report.MARKER).read_text() == report._MARKER_TEXT
    assert report.check_out(ROOT / "reports") == ROOT / "reports"
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "reports"], cwd=ROOT, timeout=30,
                                capture_output=True, check=True).stdout.decode().split("\0")
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout")
    clone = tmp_path / "reports"
    for name in [n for n in listed if n] + [f"reports/{report.MARKER}"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, tmp_path / name)
    report.render(_study(), clone)
    assert 'href="demo/index.html"' in report.render_index(clone).read_text()


@pytest.mark.parametrize("kind", ["run", "tune"])
def test_a_run_or_a_tune_is_never_a_reports_folder(tmp_path, kind):
    out = tmp_path / kind
    out.mkdir()
    (out / ("_manifest.json" if kind == "run" else "_tune.json")).write_text("{}")
    with pytest.raises(InputError, match=rf"--out '{out}' is a simkit {kind} directory: "
                                         rf"report written into it would spoil the {kind}"):
        report.check_out(out)


def test_compare_out_writes_only_into_a_folder_of_its_own(tmp_path, workdir, cli):
    """``compare --out``: a new folder takes the tables and its marker and is
    written again; a user's folder (a file of theirs, no marker) and a
    simulate run are refused in one line, exit 2, with nothing written."""
    base = ["compare", "pepper", "--variant", "A:", "--variant", "B:fail=bid",
            "--hands", "2000", "--no-skill", "--no-progress"]
    out = tmp_path / "tables"
    for _ in range(2):
        assert cli(*base, "--out", str(out))[0] == 0
        assert (out / "simkit-compare.txt").is_file()
        assert (out / "variants.csv").is_file()
    theirs = tmp_path / "mine"
    theirs.mkdir()
    (theirs / "variants.csv").write_text("my own table")
    cli.refused(*base, "--out", str(theirs), names=[f"--out '{theirs}'", "'variants.csv'",
                                                      "simkit-compare.txt"])
    assert os.listdir(theirs) == ["variants.csv"]
    assert (theirs / "variants.csv").read_text() == "my own table"
    run = tmp_path / "run"
    assert cli("simulate", "pepper", "--hands", "1000", "--out", str(run),
               "--no-progress")[0] == 0
    before = sorted(os.listdir(run))
    cli.refused(*base, "--out", str(run), names=["is a simkit run directory", "spoil the run"])
    assert sorted(os.listdir(run)) == before
