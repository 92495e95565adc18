"""The study contract (analyses/__init__.py), checked for every study in
``analyses.STUDIES``, and the study registry: names, ``run_studies`` (rendered by
``report.render_all``).

Every study follows the skeleton (:class:`analyses.common.Study`); refuses a
bad size, seed or thread count with one InputError line before any work (and
``simkit report`` with exit code 2); returns its tables, figures, findings,
notes and provenance in the documented shape, the findings computed from the
tables; renders to a page, a PNG per figure, a CSV per table equal to it and
a ``study.json``, linked from the index; gives the same tables and findings on
one and two threads, other tables for another seed, and every table and
finding even for a run far too small to estimate anything.

What is particular to a study (its statistics against exact values, its
findings' wording) is tested in its own file: test_pepper_studies.py,
test_pitch_studies.py, test_shiesta_studies.py, test_burraco_studies.py and
test_policy_ladder.py.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
import subprocess
import sys
from html import escape

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.figure import Figure
from pandas.api.types import is_numeric_dtype

import analyses
from analyses import common, load_study, pepper_bids, resolve_studies, run_studies
from simkit.app.report import render, render_all, render_index
from simkit.base.errors import InputError

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

NAMES = list(analyses.STUDIES)
#: (hands, seed) of each study's run here; for a study whose own test file runs
#: it too, the same, so that a test process runs it once for both (conftest.run_study).
SIZES = {
    "pepper-bids": (20_000, 11),
    "pepper-kubwa": (1_000, 5),         # (its own tests' 30,000 take a minute to replay)
    "pepper-variants": (20_000, 5),
    "pitch-variants": (20_000, 5),
    "shiesta-variants": (2_000, 5),
    "burraco-variants": (400, 5),
    "pitch-payouts": (3_000, 7),
    "shiesta-strategy": (2_000, 11),
    "burraco-scoring": (400, 5),
    "pepper-policy-ladder": (4_000, 3),
    # a ladder plays at least 50 whole games per table whatever the size
    "pitch-policy-ladder": (20, 3),
    "burraco-policy-ladder": (20, 3),
}
#: Of a study not listed above.
SMALL = (300, 3)
#: A run far too small to estimate anything (the study files use it too).
TINY = 20
#: Tables that may be empty (and so the same for another seed): pepper-kubwa's
#: rules of thumb list the hand classes where Kubwa pays with an interval clear
#: of zero (none in a small run), and the strong classes the expert played
#: often enough.
MAY_BE_EMPTY = {("pepper-kubwa", "rule_of_thumb"), ("pepper-kubwa", "rule_of_thumb_searching")}
#: Tables read from kept files that name their own seed (the variant studies'
#: best-response cells, kept beside the adapted players): the same for any
#: study seed.
SEED_FREE = {(f"{g}-variants", "best_response") for g in ("pepper", "pitch", "shiesta",
                                                          "burraco")}
#: Tables that may come out the same for another seed: a rule search's goals
#: (the question's, and whether the answer meets each: usually yes for both), and
#: Pitch's rule book, whose sessions without a target all last 20 hands.
MAY_BE_SAME = {(f"{g}-rule-search", "goals") for g in ("pepper", "pitch", "shiesta",
                                                       "burraco")} | {("pitch-rule-search",
                                                                       "base")}
#: Studies whose tables have no descriptions on the page yet.
UNDESCRIBED = {"pepper-kubwa"}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FILE_NAME = r"[A-Za-z0-9][A-Za-z0-9_-]*"

BAD_ARGUMENTS = [
    ({"hands": 0}, r"bad --hands 0"), ({"hands": -1}, r"bad --hands -1"),
    ({"hands": 2.5}, r"bad --hands 2.5"), ({"hands": True}, r"bad --hands True"),
    ({"seed": -1}, r"bad --seed -1"), ({"seed": 2**64}, r"bad --seed"),
    ({"seed": "x"}, r"bad --seed 'x'"), ({"seed": True}, r"bad --seed True"),
    ({"threads": 0}, r"bad thread count 0"), ({"threads": 10_000}, r"bad thread count"),
    ({"threads": 1.5}, r"bad thread count 1.5"), ({"threads": True}, r"bad thread count"),
]


def size(name: str) -> tuple[int, int]:
    return SIZES.get(name, SMALL)


def must_not_run(*args, **kwargs):
    raise AssertionError("the study simulated")


def _hidden(directory):
    return [p.name for p in directory.iterdir() if p.name.startswith(".")]


def _snapshot(directory):
    return {p.relative_to(directory).as_posix(): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------- the contract

@pytest.mark.parametrize("name", NAMES)
def test_follows_the_skeleton(name):
    mod = load_study(name)
    study = mod.STUDY
    assert isinstance(study, common.Study)
    assert (study.name, study.title, study.default_hands) == (mod.NAME, mod.TITLE,
                                                              mod.DEFAULT_HANDS)
    assert name == mod.NAME
    assert isinstance(mod.DEFAULT_HANDS, int)
    assert mod.TITLE
    assert study.simulate == mod.simulate_tables
    assert study.findings == mod.findings
    names = [plot.name for plot in study.figures]
    assert names
    assert len(set(names)) == len(names)
    for plot in study.figures:
        assert isinstance(plot, common.Plot)
        assert plot.caption
        assert callable(plot.draw)
        assert re.fullmatch(FILE_NAME, plot.name)


@pytest.mark.parametrize("name", NAMES)
def test_refuses_bad_arguments_before_any_work(name):
    mod = load_study(name)
    guarded = dataclasses.replace(mod.STUDY, simulate=must_not_run)
    for kwargs, match in BAD_ARGUMENTS:
        for run in (guarded.run, mod.run):          # the module's run is the skeleton's
            with pytest.raises(InputError, match=match) as e:
                run(**{"hands": 10, **kwargs})
            assert "\n" not in str(e.value), kwargs


@pytest.mark.parametrize("name", NAMES)
def test_simkit_report_refuses_bad_arguments(name, workdir, cli, monkeypatch):
    monkeypatch.setattr(load_study(name), "run", must_not_run)
    cli.refused("report", name, "--hands", "0", "--no-progress", names=["--hands"])
    cli.refused("report", name, "--seed", "-1", "--no-progress", names=["--seed"])
    cli.refused("report", name, "--threads", "10000", "--no-progress", names=["thread"])


def check_result(name, result):
    """The result's tables, figures, findings, notes and provenance."""
    mod, (hands, seed) = load_study(name), size(name)
    assert (result.name, result.title) == (mod.NAME, mod.TITLE)
    assert result.tables
    assert result.figures
    assert result.notes
    for key, df in result.tables.items():
        assert re.fullmatch(FILE_NAME, key), key
        assert isinstance(df, pd.DataFrame), key
        assert len(df.columns) > 0, key
        assert len(df) > 0 or (name, key) in MAY_BE_EMPTY, key
    assert all(isinstance(d, str) and d for d in result.descriptions.values())
    described = set(result.descriptions) == set(result.tables)
    assert described != (name in UNDESCRIBED), f"every table described: {described}"
    assert set(result.descriptions) <= set(result.tables)
    assert list(result.figures) == [plot.name for plot in mod.STUDY.figures]
    assert result.captions == {plot.name: plot.caption for plot in mod.STUDY.figures}
    for key, fig in result.figures.items():
        assert isinstance(fig, Figure), key
        assert fig.axes, key
    # the findings: sentences computed from the tables
    assert result.summary
    assert all(isinstance(s, str) and s for s in result.summary)
    assert result.summary == mod.findings(result.tables)
    assert all(isinstance(n, str) and n for n in result.notes)
    prov = result.provenance
    assert prov["seed"] == seed
    assert prov["policies"]
    assert prov["rules"]
    for key in ("simkit_version", "git_commit", "run_time_s", "created_utc"):
        assert key in prov, key
    assert {"python", "numpy", "numba"} <= set(prov["versions"])
    # the page's header gives the hands or games played in all
    assert prov.get("hands", 0) >= hands or prov.get("games", 0) >= hands, prov


def check_report(name, result, out):
    """The result rendered into ``out``: its page, figures, tables, record and
    the index's link."""
    page = render(copy.copy(result), out)
    render_index(out)
    assert page == out / name / "index.html"
    text = page.read_text(encoding="utf-8")
    assert f"<title>{escape(result.title)}</title>" in text
    images = re.findall(r'<img src="([^"]+)"', text)
    assert images == [f"{key}.png" for key in result.figures]
    for src in images:
        data = (page.parent / src).read_bytes()
        assert data.startswith(PNG_MAGIC), src
        assert len(data) > 1000, src
    assert text.index("Findings") < text.index("<img")          # the findings come first
    for line in result.summary:
        assert escape(line) in text, line
    policies = result.provenance["policies"]
    assert "Played by simulated players" in text
    for spec in ([*policies, *policies.values()] if isinstance(policies, dict) else policies):
        assert escape(str(spec)) in text, spec
    for key, table in result.tables.items():
        assert f'href="{key}.csv"' in text
        assert_same_csv(page.parent / f"{key}.csv", table)
    seed = size(name)[1]
    assert "Provenance" in text
    assert f"&quot;seed&quot;: {seed}," in text
    record = json.loads((page.parent / "study.json").read_text())
    assert (record["name"], record["title"], record["summary"]) == (name, result.title,
                                                                     result.summary)
    assert record["tables"] == list(result.tables)
    assert record["figures"] == list(result.figures)
    assert record["provenance"]["seed"] == seed
    index = (out / "index.html").read_text(encoding="utf-8")
    assert f'href="{name}/index.html"' in index
    assert escape(result.title) in index
    assert not _hidden(out)


def assert_same_csv(path, table):
    back = pd.read_csv(path)
    assert list(back.columns) == [str(c) for c in table.columns], path
    expected = table.reset_index(drop=True)
    for col in expected.columns:
        if not is_numeric_dtype(expected[col]):          # text: "4" reads back as 4
            expected[col] = expected[col].astype(str)
            back[col] = back[col].astype(str)
    pd.testing.assert_frame_equal(back, expected, check_dtype=False, rtol=1e-12, obj=path.name)


def _nan_alike(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its columns of lists or dicts written out: two NaN
    objects inside a dict are not equal (a dict compares its values by ``==``),
    their text is."""
    out = table.copy()
    for col in out.columns:
        if out[col].map(lambda x: isinstance(x, (list, dict))).any():
            out[col] = out[col].map(repr)
    return out


def check_seed_alone(name, result):
    """The same tables and findings on one thread as on two (the shared run),
    other tables for another seed."""
    mod, (hands, seed) = load_study(name), size(name)
    one = mod.STUDY.simulate(hands, seed, False, 1)
    assert list(one) == list(result.tables)
    for key, table in one.items():
        pd.testing.assert_frame_equal(_nan_alike(table), _nan_alike(result.tables[key]),
                                      check_exact=True, obj=key)
    assert mod.findings(one) == result.summary
    other = mod.STUDY.simulate(hands, seed + 1, False, None)
    assert list(other) == list(one)
    for key, table in other.items():
        if (name, key) in SEED_FREE:
            pd.testing.assert_frame_equal(_nan_alike(table), _nan_alike(one[key]), obj=key)
            continue
        assert not table.equals(one[key]) or ((name, key) in MAY_BE_EMPTY and table.empty) \
            or (name, key) in MAY_BE_SAME, key


@pytest.mark.parametrize("name", NAMES)
def test_result_report_and_determinism(name, run_study, tmp_path):
    result = run_study(name, *size(name))
    check_result(name, result)
    check_report(name, result, tmp_path)
    check_seed_alone(name, result)


@pytest.mark.parametrize("name", NAMES)
def test_a_tiny_run_gives_every_table_figure_and_finding(name, run_study):
    mod = load_study(name)
    tiny = run_study(name, TINY, size(name)[1])
    assert list(tiny.tables) == list(run_study(name, *size(name)).tables)
    assert list(tiny.figures) == [plot.name for plot in mod.STUDY.figures]
    assert tiny.summary
    assert tiny.summary == mod.findings(tiny.tables)


# ---------------------------------------------------------------- the registry

def test_study_names():
    assert resolve_studies("all") == NAMES
    assert resolve_studies(None) == NAMES
    assert resolve_studies(["pepper-bids", "all", "PEPPER-BIDS"]) == NAMES
    assert resolve_studies("pitch") == [n for n in NAMES if n.startswith("pitch-")]


def test_importing_studies_keeps_the_backend():
    """simkit.app.report and the studies choose no backend at import; use_file_backend does."""
    code = ("import importlib, matplotlib, analyses\n"
            "import simkit.app.report as report\n"
            "for m in analyses.STUDIES.values(): importlib.import_module(m.partition(':')[0])\n"
            "print(matplotlib.get_backend())\n"
            "report.use_file_backend()\n"
            "print(matplotlib.get_backend())\n")
    env = {**os.environ, "MPLBACKEND": "pdf"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert [b.lower() for b in out] == ["pdf", "agg"]


def test_draw_closes_the_figures_drawn_when_one_fails():
    drawn = []

    def one(tables):
        drawn.append(plt.figure())
        return drawn[-1]

    def broken(tables):
        raise ValueError("cannot draw")

    plots = (common.Plot("one", "One.", one), common.Plot("two", "Two.", broken))
    with pytest.raises(ValueError, match="cannot draw"):
        common.draw(plots, {})
    assert drawn
    assert drawn[0].number not in plt.get_fignums()


#: The cheapest study, for the tests of run_studies.
QUICK = "shiesta-policy-ladder"


def test_run_studies_end_to_end(tmp_path):
    out = tmp_path / "reports"                     # created: its parent exists
    pages = render_all(run_studies([QUICK], hands=50, seed=3, progress=False), out)
    assert pages == [out / QUICK / "index.html"]
    assert pages[0].is_file()
    assert f'href="{QUICK}/index.html"' in (out / "index.html").read_text()
    prov = json.loads((out / QUICK / "study.json").read_text())["provenance"]
    assert prov["seed"] == 3
    assert prov["games"] == 50


def test_a_failing_study_leaves_the_previous_report(tmp_path, monkeypatch):
    out = tmp_path / "reports"
    render_all(run_studies([QUICK], hands=50, seed=3, progress=False), out)
    before = _snapshot(out)

    def broken(**kwargs):
        raise RuntimeError("study broke")

    monkeypatch.setattr(load_study(QUICK), "run", broken)
    with pytest.raises(RuntimeError, match="study broke"):
        render_all(run_studies([QUICK], hands=50, progress=False), out)
    assert _snapshot(out) == before
    assert not _hidden(out)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"names": ["pepper-bid"]}, r"unknown study 'pepper-bid': expected pepper-bids.* or all"),
    ({"names": ["pepper-bids", "nope"]}, r"unknown study 'nope'"),
    ({"names": ["pepper-bids"], "hands": 0}, r"bad --hands 0"),
    ({"names": ["pepper-bids"], "hands": -5}, r"bad --hands -5"),
    ({"names": ["pepper-bids"], "seed": -1}, r"bad --seed -1"),
    ({"names": ["pepper-bids"], "threads": 10_000}, r"bad thread count"),
])
def test_bad_input_is_refused_before_any_work(kwargs, match, tmp_path, monkeypatch):
    monkeypatch.setattr(pepper_bids, "run", must_not_run)
    with pytest.raises(InputError, match=match):
        render_all(run_studies(progress=False, **kwargs), tmp_path / "r")
    assert not (tmp_path / "r").exists()


def test_unwritable_out_is_refused_before_any_work(tmp_path, monkeypatch):
    monkeypatch.setattr(pepper_bids, "run", must_not_run)
    with pytest.raises(InputError, match="does not exist"):
        render_all(run_studies(["pepper-bids"], progress=False), tmp_path / "missing" / "reports")
    assert not (tmp_path / "missing").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="not a directory"):
        render_all(run_studies(["pepper-bids"], progress=False), tmp_path / "file")
    with pytest.raises(InputError, match=r"bad --hands 1\.5"):
        render_all(run_studies("pepper-bids", hands=1.5, progress=False), tmp_path)
