"""Study reports (simkit/report.py), the skeleton every study follows
(analyses/common.py) and the Pepper bid study (analyses/pepper_bids.py).

The study runs once on a small seeded sample; the tests check its tables
(documented columns, rates in [0, 1], every interval around its estimate,
totals that agree), the files a report consists of (CSV equal to the tables,
every image on the page present and a PNG, the index linking the study), that
a failing study or render leaves the previous report untouched, that bad
input is refused before any work, that every study module follows the
skeleton, and that importing a study leaves matplotlib's backend alone.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import analyses
from analyses import common, pepper_bids
from simkit import report
from simkit.errors import InputError
from simkit.runner import set_threads

HANDS = 20_000
SEED = 11
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

COLUMNS = {
    "overview": ["players", "policy", "hands", "thrown_in", "contracts", "no_trump", "made",
                 "rate", "ci_low", "ci_high"],
    "success_by_bid": ["players", "policy", "bid", "level", "hands", "share", "made", "rate",
                       "ci_low", "ci_high", "bidders_points", "bidders_ci_low",
                       "bidders_ci_high", "opponents_points", "opponents_ci_low",
                       "opponents_ci_high"],
    "success_by_feature": ["players", "policy", "feature", "value", "bid", "level", "hands",
                           "made", "rate", "ci_low", "ci_high"],
    "success_by_seat": ["players", "policy", "seat", "bid", "level", "hands", "made", "rate",
                        "ci_low", "ci_high"],
    "heatmap_trumps_bowers": ["players", "policy", "trumps", "bowers", "hands", "made", "rate",
                              "ci_low", "ci_high"],
}
BIDS = {str(i) for i in range(1, 8)} | {"ndogo", "kubwa"}


@pytest.fixture(autouse=True)
def _all_threads_after():
    yield
    set_threads(None)


@pytest.fixture(scope="module")
def study():
    """(result, a copy of its tables) of one small seeded run."""
    result = pepper_bids.run(hands=HANDS, seed=SEED)
    tables = {k: v.copy() for k, v in result.tables.items()}
    return result, tables


@pytest.fixture(scope="module")
def rendered(study, tmp_path_factory):
    """(out dir, page, tables) of the study rendered; render must close its figures."""
    import matplotlib.pyplot as plt

    result, tables = study
    assert {f.number for f in result.figures.values()} <= set(plt.get_fignums())
    out = tmp_path_factory.mktemp("reports")
    page = report.render(result, out)
    report.render_index(out)
    assert not plt.get_fignums()
    return out, page, tables


def _snapshot(directory):
    return {p.relative_to(directory).as_posix(): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def _hidden(directory):
    return [p.name for p in directory.iterdir() if p.name.startswith(".")]


# ---------------------------------------------------------------- tables

def test_tables_have_the_documented_columns(study):
    _, tables = study
    assert list(tables) == list(COLUMNS)
    for name, cols in COLUMNS.items():
        assert list(tables[name].columns) == cols, name
        assert len(tables[name]) > 0, name
        for col in cols:
            assert f"{col}" in pepper_bids.__doc__, f"column {col} of {name} is not documented"
    for name in COLUMNS:
        t = tables[name]
        assert set(t["players"]) == {2, 3, 4}
        assert set(t["policy"]) == set(pepper_bids.POLICIES)


def test_rates_are_proportions_inside_their_intervals(study):
    _, tables = study
    for name, t in tables.items():
        assert (t["made"] <= t[("contracts" if name == "overview" else "hands")]).all()
        assert t["rate"].between(0, 1).all(), name
        assert (t["ci_low"] <= t["rate"]).all() and (t["rate"] <= t["ci_high"]).all(), name
        assert (t["ci_low"] >= 0).all() and (t["ci_high"] <= 1).all(), name
        np.testing.assert_allclose(
            t["rate"], t["made"] / t["contracts" if name == "overview" else "hands"])
    sb = tables["success_by_bid"]
    for who in ("bidders", "opponents"):
        ok = sb[f"{who}_ci_low"].notna()
        assert (sb.loc[ok, f"{who}_ci_low"] <= sb.loc[ok, f"{who}_points"] + 1e-12).all()
        assert (sb.loc[ok, f"{who}_points"] <= sb.loc[ok, f"{who}_ci_high"] + 1e-12).all()
    assert sb["share"].between(0, 1).all()


def test_tables_add_up(study):
    _, tables = study
    ov = tables["overview"].set_index(["players", "policy"])
    assert (ov["hands"] == HANDS).all()
    assert (ov["thrown_in"] + ov["contracts"] == ov["hands"]).all()
    sb = tables["success_by_bid"]
    by_bid = sb.groupby(["players", "policy"])[["hands", "made"]].sum()
    assert (by_bid["hands"] == ov["contracts"].reindex(by_bid.index)).all()
    assert (by_bid["made"] == ov["made"].reindex(by_bid.index)).all()
    shares = sb.groupby(["players", "policy"])["share"].sum()
    np.testing.assert_allclose(shares, (ov["contracts"] / ov["hands"]).reindex(shares.index))
    seats = tables["success_by_seat"].groupby(["players", "policy", "level"])["hands"].sum()
    assert seats.equals(sb.set_index(["players", "policy", "level"])["hands"].reindex(seats.index))
    suit = ov["contracts"] - ov["no_trump"]
    heat = tables["heatmap_trumps_bowers"].groupby(["players", "policy"])["hands"].sum()
    assert (heat == suit.reindex(heat.index)).all()
    sf = tables["success_by_feature"]
    assert (sf["hands"] >= pepper_bids.MIN_CELL).all()
    per_feature = sf.groupby(["players", "policy", "feature"])["hands"].sum()
    assert (per_feature <= suit.reindex(per_feature.droplevel("feature").index).to_numpy()).all()


def test_table_values_are_in_range(study):
    _, tables = study
    for name in ("success_by_bid", "success_by_feature", "success_by_seat"):
        t = tables[name]
        assert set(t["bid"]) <= BIDS, name
    seat = tables["success_by_seat"]
    assert ((seat["seat"] >= 1) & (seat["seat"] <= seat["players"])).all()
    sf = tables["success_by_feature"]
    assert set(sf["feature"]) <= set(pepper_bids.FEATURES)
    limits = {"trumps": 7, "bowers": 2, "aces": 4, "voids": 3}
    assert (sf["value"] <= sf["feature"].map(limits)).all()
    heat = tables["heatmap_trumps_bowers"]
    assert (heat["bowers"] <= heat["trumps"]).all() and (heat["trumps"] >= 1).all()


def test_same_seed_same_tables_whatever_the_threads():
    a = pepper_bids.simulate_tables(hands=3_000, seed=5, threads=1)
    b = pepper_bids.simulate_tables(hands=3_000, seed=5)
    c = pepper_bids.simulate_tables(hands=3_000, seed=6)
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name])
    assert not a["success_by_bid"].equals(c["success_by_bid"])


def test_summary_is_computed_from_the_tables(study):
    result, tables = study
    assert 3 <= len(result.summary) <= 6
    sb = tables["success_by_bid"]
    top = sb[(sb["players"] == 4) & (sb["policy"] == pepper_bids.POLICIES[0])]
    top = top.loc[top["hands"].idxmax()]
    assert pepper_bids._pct(top["rate"], top["ci_low"], top["ci_high"], top["hands"],
                            " of the time") in result.summary[0]
    assert f"n={int(top['hands']):,}" in result.summary[0]


def test_provenance(study):
    result, _ = study
    prov = result.provenance
    assert prov["seed"] == SEED
    assert prov["hands"] == 6 * HANDS and prov["hands_per_table"] == HANDS
    assert set(prov["policies"]) == set(pepper_bids.POLICIES)
    assert set(prov["rules"]) == {2, 3, 4}
    for key in ("simkit_version", "git_commit", "run_time_s", "created_utc"):
        assert key in prov
    assert {"python", "numpy", "numba"} <= set(prov["versions"])


# ---------------------------------------------------------------- files

def test_csv_files_equal_the_tables(rendered):
    out, _, tables = rendered
    for name, table in tables.items():
        back = pd.read_csv(out / pepper_bids.NAME / f"{name}.csv")
        assert list(back.columns) == list(table.columns)
        expected = table.copy()
        for col in expected.columns:
            if expected[col].dtype == object:         # text: "4" reads back as 4
                expected[col] = expected[col].astype(str)
                back[col] = back[col].astype(str)
        pd.testing.assert_frame_equal(back, expected, check_dtype=False, rtol=1e-12)


def test_page_shows_summary_figures_and_tables(rendered):
    out, page, tables = rendered
    assert page == out / pepper_bids.NAME / "index.html"
    text = page.read_text(encoding="utf-8")
    assert "<title>" + pepper_bids.TITLE in text
    images = re.findall(r'<img src="([^"]+)"', text)
    assert len(images) >= 4
    for src in images:
        png = page.parent / src
        assert png.is_file() and png.stat().st_size > 1000, src
        assert png.read_bytes()[:8] == PNG_MAGIC, src
    for name in tables:
        assert f'href="{name}.csv"' in text
    first_figure = text.index("<img")
    assert text.index("<ul>") < first_figure             # the findings come first
    assert "Provenance" in text
    record = json.loads((page.parent / "study.json").read_text())
    assert record["name"] == pepper_bids.NAME and record["title"] == pepper_bids.TITLE
    assert not _hidden(out)


def test_index_links_the_study(rendered):
    out, _, _ = rendered
    text = (out / "index.html").read_text(encoding="utf-8")
    assert f'href="{pepper_bids.NAME}/index.html"' in text
    assert pepper_bids.TITLE.replace("?", "") in text


def test_render_replaces_the_whole_report(tmp_path):
    a = report.StudyResult("demo", "Demo", tables={"old": pd.DataFrame({"x": [1]})})
    b = report.StudyResult("demo", "Demo 2", tables={"new": pd.DataFrame({"x": [2]})})
    report.render(a, tmp_path)
    report.render(b, tmp_path)
    files = {p.name for p in (tmp_path / "demo").iterdir()}
    assert files == {"index.html", "study.json", "new.csv"}
    assert not _hidden(tmp_path)


def test_a_failing_render_leaves_the_previous_report(tmp_path):
    import matplotlib.pyplot as plt
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


# ---------------------------------------------------------------- run_studies

def test_run_studies_end_to_end(tmp_path):
    out = tmp_path / "reports"                     # created: its parent exists
    pages = analyses.run_studies(["pepper-bids"], hands=2_000, seed=3, out=out, progress=False)
    assert pages == [out / "pepper-bids" / "index.html"]
    assert pages[0].is_file()
    assert 'href="pepper-bids/index.html"' in (out / "index.html").read_text()
    prov = json.loads((out / "pepper-bids" / "study.json").read_text())["provenance"]
    assert prov["seed"] == 3 and prov["hands_per_table"] == 2_000


def test_a_failing_study_leaves_the_previous_report(rendered, tmp_path, monkeypatch):
    src, _, _ = rendered
    out = tmp_path / "reports"
    shutil.copytree(src, out)
    before = _snapshot(out)

    def broken(**kwargs):
        raise RuntimeError("study broke")

    monkeypatch.setattr(pepper_bids, "run", broken)
    with pytest.raises(RuntimeError, match="study broke"):
        analyses.run_studies(["pepper-bids"], hands=1_000, out=out, progress=False)
    assert _snapshot(out) == before
    assert not _hidden(out)


def test_study_names():
    assert analyses.resolve_studies("all") == list(analyses.STUDIES)
    assert analyses.resolve_studies(None) == list(analyses.STUDIES)
    assert analyses.resolve_studies(["pepper-bids", "all", "PEPPER-BIDS"]) == list(analyses.STUDIES)
    for name in analyses.STUDIES:
        mod = analyses.load_study(name)
        assert mod.NAME == name and isinstance(mod.DEFAULT_HANDS, int) and mod.TITLE


BAD_ARGUMENTS = [
    (dict(hands=0), r"bad --hands 0"), (dict(hands=-1), r"bad --hands -1"),
    (dict(hands=2.5), r"bad --hands 2.5"), (dict(hands=True), r"bad --hands True"),
    (dict(seed=-1), r"bad --seed -1"), (dict(seed=2**64), r"bad --seed"),
    (dict(seed="x"), r"bad --seed 'x'"), (dict(seed=True), r"bad --seed True"),
    (dict(threads=0), r"bad thread count 0"), (dict(threads=10_000), r"bad thread count"),
    (dict(threads=1.5), r"bad thread count 1.5"), (dict(threads=True), r"bad thread count"),
]


@pytest.mark.parametrize("name", list(analyses.STUDIES))
def test_every_study_follows_the_skeleton(name):
    mod = analyses.load_study(name)
    study = mod.STUDY
    assert isinstance(study, common.Study)
    assert (study.name, study.title, study.default_hands) == (mod.NAME, mod.TITLE,
                                                              mod.DEFAULT_HANDS)
    assert study.simulate == mod.simulate_tables and study.findings == mod.findings
    names = [plot.name for plot in study.figures]
    assert names and len(set(names)) == len(names)
    for plot in study.figures:
        assert isinstance(plot, common.Plot) and plot.caption and callable(plot.draw)
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", plot.name)


@pytest.mark.parametrize("name", list(analyses.STUDIES))
def test_every_study_refuses_bad_arguments_before_any_work(name):
    mod = analyses.load_study(name)

    def must_not_run(*args):
        raise AssertionError("the study simulated")

    guarded = dataclasses.replace(mod.STUDY, simulate=must_not_run)
    for kwargs, match in BAD_ARGUMENTS:
        with pytest.raises(InputError, match=match):
            guarded.run(**{"hands": 10, **kwargs})
    with pytest.raises(InputError, match="bad --hands 0"):
        mod.run(hands=0)                      # the module's run is the skeleton's


def test_draw_closes_the_figures_drawn_when_one_fails():
    import matplotlib.pyplot as plt

    drawn = []

    def one(tables):
        drawn.append(plt.figure())
        return drawn[-1]

    def broken(tables):
        raise ValueError("cannot draw")

    plots = (common.Plot("one", "One.", one), common.Plot("two", "Two.", broken))
    with pytest.raises(ValueError, match="cannot draw"):
        common.draw(plots, {})
    assert drawn and drawn[0].number not in plt.get_fignums()


def test_importing_studies_keeps_the_backend():
    """simkit.report and the studies choose no backend at import; use_file_backend does."""
    code = ("import importlib, matplotlib, analyses\n"
            "import simkit.report as report\n"
            "for m in analyses.STUDIES.values(): importlib.import_module(m.partition(':')[0])\n"
            "print(matplotlib.get_backend())\n"
            "report.use_file_backend()\n"
            "print(matplotlib.get_backend())\n")
    env = {**os.environ, "MPLBACKEND": "pdf"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert [b.lower() for b in out] == ["pdf", "agg"]


@pytest.mark.parametrize("kwargs, match", [
    (dict(names=["pepper-bid"]), r"unknown study 'pepper-bid': expected pepper-bids.* or all"),
    (dict(names=["pepper-bids", "nope"]), r"unknown study 'nope'"),
    (dict(names=["pepper-bids"], hands=0), r"bad --hands 0"),
    (dict(names=["pepper-bids"], hands=-5), r"bad --hands -5"),
    (dict(names=["pepper-bids"], seed=-1), r"bad --seed -1"),
    (dict(names=["pepper-bids"], threads=10_000), r"bad thread count"),
])
def test_bad_input_is_refused_before_any_work(kwargs, match, tmp_path, monkeypatch):
    def must_not_run(**kw):
        raise AssertionError("the study ran")

    monkeypatch.setattr(pepper_bids, "run", must_not_run)
    with pytest.raises(InputError, match=match):
        analyses.run_studies(out=tmp_path / "r", progress=False, **kwargs)
    assert not (tmp_path / "r").exists()


def test_unwritable_out_is_refused_before_any_work(tmp_path, monkeypatch):
    def must_not_run(**kw):
        raise AssertionError("the study ran")

    monkeypatch.setattr(pepper_bids, "run", must_not_run)
    with pytest.raises(InputError, match="does not exist"):
        analyses.run_studies(["pepper-bids"], out=tmp_path / "missing" / "reports", progress=False)
    assert not (tmp_path / "missing").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="not a directory"):
        analyses.run_studies(["pepper-bids"], out=tmp_path / "file", progress=False)
    with pytest.raises(InputError, match="bad --hands 1.5"):
        analyses.run_studies("pepper-bids", hands=1.5, out=tmp_path, progress=False)


def test_the_study_refuses_bad_sizes():
    for hands in (0, -1, 2.5):
        with pytest.raises(InputError, match="bad --hands"):
            pepper_bids.run(hands=hands)
