"""The ``simkit`` command line (simkit/app/cli.py).

Bad input must give exit code 2 and exactly one line on stderr
(``simkit: error: ...``) naming the bad value, with no traceback and no
output file.  Good runs write a Parquet file and its manifest, reproducibly.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from simkit import __version__
from simkit.pepper.policies import HeuristicParams
from simkit.pepper.rules import PRESETS, PepperRules
from simkit.runs.batches import max_threads

SEED = 7

HAND_COLUMNS_4P = (
    ["hand", "dealer"] + [f"policy_{s}" for s in range(4)] + [f"bid_{s}" for s in range(4)]
    + ["calls", "contract", "bidder", "stuck", "trump"] + [f"tricks_{s}" for s in range(4)]
    + ["side_tricks_0", "side_tricks_1", "score_0", "score_1", "made",
       "bidder_trumps", "bidder_bowers", "bidder_aces", "bidder_voids"])
GAME_COLUMNS_3P = (["game", "first_dealer", "rounds", "score_0", "score_1", "score_2",
                    "winners", "win_0", "win_1", "win_2", "unfinished", "lead_changes",
                    "comeback", "settled"])


@pytest.fixture
def workdir(workdir):
    """The empty working directory (conftest.py) with a few rule files."""
    (workdir / "bad.toml").write_text('[rules\nauction = "open"\n')
    (workdir / "badvalue.toml").write_text('[rules]\nauction = "sideways"\n')
    return workdir


BAD_INPUT = [
    (["--players", "5"], ["5", "players"]),
    (["--hands", "-3"], ["-3", "--hands"]),
    (["--hands", "0"], ["'0'", "--hands"]),
    (["--games", "0"], ["'0'", "--games"]),
    (["--hands", "many"], ["many"]),
    (["--seed", "-1"], ["-1", "--seed"]),
    (["--seed", str(2**64)], [str(2**64)]),
    (["--set", "nokey=1"], ["nokey"]),
    (["--set", "auction=sideways"], ["sideways", "auction"]),
    (["--set", "players=9"], ["9", "players"]),
    (["--set", "target=0"], ["0", "target"]),
    (["--set", "auction"], ["auction"]),
    (["--preset", "nosuch"], ["nosuch"]),
    (["--rules", "missing.toml"], ["missing.toml"]),
    (["--rules", "bad.toml"], ["bad.toml", "TOML"]),
    (["--rules", "badvalue.toml"], ["sideways"]),
    (["--policy", "nosuch"], ["nosuch"]),
    (["--policy", "heuristic:aggression=lots"], ["lots", "aggression"]),
    (["--policy", "heuristic:bluff=1"], ["bluff"]),
    (["--policy", "random", "--policy", "heuristic"], ["2 policies"]),
    (["--threads", "99"], ["99"]),
    (["--threads", "0"], ["'0'"]),
    (["--hands", "10", "--games", "10"], ["--games", "--hands"]),
]


@pytest.mark.parametrize(("extra", "names"), BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_is_one_line_and_exit_2(workdir, cli, extra, names):
    cli.refused("simulate", "pepper", "--no-progress", "--out", "x.parquet", *extra,
                names=names)                    # and nothing written, no partial file


@pytest.mark.parametrize(("argv", "names"), [
    (["report", "nosuch"], ["nosuch"]),
    (["report", "all", "--hands", "0"], ["0"]),
    (["report", "pepper-kubwa", "--out", "missing/dir/x"], ["missing"]),
    (["advise", "pepper", "--hand", "JH JD AH KH QH 8H"], ["8H"]),
    (["advise", "pepper", "--hand", "JH JD AH KH QH"], ["6 cards"]),
    (["advise", "pepper", "--hand", "JH JD AH KH QH JH"], ["duplicate"]),
    (["advise", "pepper", "--hand", "JH JD AH KH QH 9S", "--score", "x:y"], ["x:y"]),
    (["compare", "pepper", "--variant", "A:"], ["2 to 8"]),
    (["compare", "pepper", "--variant", "A:", "--variant", "B:auction=sideways"], ["sideways"]),
    (["compare", "pepper", "--variant", "A:", "--variant", "B:nokey=1"], ["nokey"]),
])
def test_bad_input_to_other_commands(workdir, cli, argv, names):
    cli.refused(*argv, names=names)


def test_out_into_a_missing_directory(workdir, cli):
    cli.refused("simulate", "pepper", "--hands", "100", "--no-progress",
                "--out", "nodir/x.parquet", names=["nodir"])
    assert sorted(os.listdir(workdir)) == ["bad.toml", "badvalue.toml"]


def test_out_is_a_directory(workdir, cli):
    (workdir / "d.parquet").mkdir()
    cli.refused("simulate", "pepper", "--hands", "100", "--no-progress", "--out", "d.parquet",
                names=["d.parquet"])


@pytest.mark.parametrize(("argv", "names"), [
    (["simulate", "poker"], ["poker"]),
    (["bench", "poker"], ["poker"]),
    (["rules", "poker"], ["poker"]),
    (["frobnicate"], ["frobnicate"]),
    ([], []),
])
def test_unknown_game_or_command(workdir, cli, argv, names):
    cli.refused(*argv, names=names)


@pytest.mark.parametrize(("game", "hand", "names"), [
    ("pepper", "JH JD AH KH QH 8H", ["'8H'", "24-card Pepper deck"]),   # a card, not Pepper's
    ("pepper", "JH JD AH KH QH ZZ", ["unknown card 'ZZ'"]),
    ("pitch", "JH JD AH KH QH 1H", ["unknown card '1H'"]),
    ("pitch", "JH JD AH KH QH XS", ["unknown card 'XS'"]),
])
def test_advise_unknown_card(workdir, cli, game, hand, names):
    """simkit advise rejects a card that is not in the game's deck with exit 2 and
    one line naming it, before any simulation, and writes nothing."""
    cli.refused("advise", game, "--hand", hand, "--samples", "1000", names=names)


@pytest.mark.parametrize("text", ["rules = 5\n", 'rules = "one_lap"\n'])
def test_rules_file_with_a_non_table_rules_key(workdir, cli, text):
    (workdir / "r.toml").write_text(text)
    cli.refused("simulate", "pepper", "--hands", "100", "--no-progress", "--rules", "r.toml",
                names=["r.toml"])


@pytest.mark.parametrize("key", ["aggression", "partner_help"])
def test_policy_parameter_nan(workdir, cli, key):
    cli.refused("simulate", "pepper", "--hands", "100", "--no-progress",
                "--policy", f"heuristic:{key}=nan", names=["nan"])


def test_real_process_exit_code_and_stderr(tmp_path):
    """The installed entry point, in a real process: exit 2, one stderr line, no traceback."""
    exe = shutil.which("simkit")
    cmd = [exe] if exe else [sys.executable, "-m", "simkit.app.cli"]
    res = subprocess.run([*cmd, "simulate", "pepper", "--players", "5", "--no-progress",
                          "--out", str(tmp_path / "x.parquet")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 2
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1, res.stderr
    assert res.stderr.endswith("\n"), res.stderr
    assert lines[0].startswith("simkit: error: ")
    assert "5" in lines[0]
    assert "Traceback" not in res.stderr
    assert list(tmp_path.iterdir()) == []


# --- good runs ------------------------------------------------------------

def read_run(path):
    """A run directory as pandas and pyarrow read it: the parts in order, and the manifest."""
    df = pd.read_parquet(path)
    with open(os.path.join(path, "_manifest.json"), encoding="utf-8") as f:
        return df, json.load(f)


REPRODUCIBLE_KEYS = ("game", "rules", "policies", "seed", "unit", "count", "rows",
                     "simkit_version", "versions")


def test_simulate_hands_writes_parquet_and_manifest(workdir, cli):
    argv = ["simulate", "pepper", "--hands", "20000", "--seed", str(SEED), "--no-progress"]
    (workdir / "tmp").mkdir()
    code, out, err = cli(*argv, "--out", "tmp/x.parquet", "--chunk", "7000")
    assert code == 0, err
    assert sorted(os.listdir(workdir / "tmp")) == ["x.parquet"]
    assert sorted(os.listdir(workdir / "tmp" / "x.parquet")) == [
        "_manifest.json", "part-000000.parquet", "part-000001.parquet", "part-000002.parquet"]
    df, man = read_run(workdir / "tmp" / "x.parquet")
    assert len(df) == 20_000
    assert list(df.columns) == HAND_COLUMNS_4P
    assert (df["hand"].to_numpy() == np.arange(20_000)).all()
    assert man["game"] == "pepper"
    assert man["unit"] == "hand"
    assert man["count"] == 20_000
    assert man["rows"] == 20_000
    assert man["seed"] == SEED
    assert man["complete"] is True
    assert (man["kind"], man["chunk"], man["chunks"]) == ("records", 7000, 3)
    assert man["spec"] == {"rules": man["rules"], "policies": man["policies"], "seed": SEED}
    assert man["rules"] == PepperRules().as_dict()
    assert len(man["policies"]) == 4
    assert all(p.startswith("heuristic") for p in man["policies"])
    assert man["simkit_version"] == __version__
    assert "20,000 hands" in out
    assert "seed 7" in out
    # the summary's hand counts add up to the run
    assert "made" in out
    assert "kubwa" in out

    # the same command again gives the same records and manifest (bar the clock),
    # whatever the chunk size
    code, out2, err = cli(*argv, "--out", "tmp/y.parquet")
    assert code == 0, err
    df2, man2 = read_run(workdir / "tmp" / "y.parquet")
    pd.testing.assert_frame_equal(df, df2)
    assert {k: man[k] for k in REPRODUCIBLE_KEYS} == {k: man2[k] for k in REPRODUCIBLE_KEYS}
    assert out2.split("\n\n")[0] == out.split("\n\n")[0]       # the same summary table
    # and the same command into the finished run does nothing and says so
    before = {p: os.stat(p).st_mtime_ns for p in (workdir / "tmp" / "x.parquet").iterdir()}
    code, out3, err = cli(*argv, "--out", "tmp/x.parquet", "--chunk", "7000")
    assert code == 0, err
    assert "already holds this run" in out3
    assert "20,000 hands" in out3
    assert out3.split("\n\n")[1] == out.split("\n\n")[0]
    assert {p: os.stat(p).st_mtime_ns for p in (workdir / "tmp" / "x.parquet").iterdir()} == before
    assert sorted(os.listdir(workdir / "tmp")) == ["x.parquet", "y.parquet"]
    # store.read_run reads the layout too
    from simkit.runs.store import read_run as store_read_run
    df3, man3 = store_read_run(workdir / "tmp" / "x.parquet")
    pd.testing.assert_frame_equal(df, df3)
    assert man3 == man

    # the records are the API's
    from simkit.pepper import api
    pd.testing.assert_frame_equal(df, api.simulate(20_000, seed=SEED), check_categorical=False)


def test_simulate_without_out_prints_summary_only(workdir, cli):
    code, out, err = cli("simulate", "pepper", "--hands", "5000", "--players", "2",
                         "--no-progress")
    assert code == 0, err
    assert "5,000 hands" in out
    assert "written" not in out
    assert sorted(os.listdir(workdir)) == ["bad.toml", "badvalue.toml"]


def test_simulate_games(workdir, cli):
    code, out, err = cli("simulate", "pepper", "--games", "300", "--players", "3",
                         "--seed", str(SEED), "--no-progress", "--out", "g.parquet")
    assert code == 0, err
    df, man = read_run(workdir / "g.parquet")
    assert len(df) == 300
    assert list(df.columns) == GAME_COLUMNS_3P
    assert man["unit"] == "game"
    assert man["count"] == 300
    assert man["rules"]["players"] == 3
    assert not df["unfinished"].any()
    assert (df["winners"] > 0).all()
    assert "300 games" in out
    assert "win rate" in out


def test_rules_file_is_applied(workdir, cli):
    (workdir / "file.toml").write_text('[rules]\nauction = "one_lap"\n')
    code, _, err = cli("simulate", "pepper", "--hands", "3000", "--no-progress",
                       "--rules", "file.toml", "--out", "r.parquet")
    assert code == 0, err
    df, man = read_run(workdir / "r.parquet")
    assert man["rules"]["auction"] == "one_lap"
    assert (df["calls"] <= 4).all()               # one lap: each player speaks once
    # --set overrides the file, --players overrides both, the preset comes first
    code, _out, err = cli("simulate", "pepper", "--hands", "3000", "--no-progress",
                         "--preset", "kubwa-triple", "--rules", "file.toml",
                         "--set", "auction=reentry,fail=bid", "--players", "3",
                         "--policy", "random", "--policy", "heuristic:aggression=1",
                         "--policy", "random", "--out", "s.parquet")
    assert code == 0, err
    _, man = read_run(workdir / "s.parquet")
    r = man["rules"]
    assert (r["auction"], r["fail"], r["kubwa_stake"], r["players"]) == ("reentry", "bid", 3, 3)
    assert man["policies"][0] == "random"
    assert man["policies"][1].startswith("heuristic:aggression=1")


def test_rules_command_lists_every_key_and_preset(cli):
    code, out, err = cli("rules", "pepper")
    assert code == 0
    assert err == ""
    for key in PepperRules.keys():  # noqa: SIM118  (a classmethod: the option names)
        assert key in out, key
    for name in PRESETS:
        assert name in out, name
    for key in HeuristicParams.keys():  # noqa: SIM118  (a classmethod: the option names)
        assert key in out, key
    assert "random" in out
    assert "heuristic" in out


@pytest.mark.slow
def test_bench_json(cli):
    code, out, err = cli("bench", "pepper", "--json", "--hands", "20000")
    assert code == 0, err
    records = json.loads(out)
    assert isinstance(records, list)
    assert records
    assert records[0]["case"] == "yardstick"
    assert records[0]["vs_yardstick"] == 1.0
    for r in records:
        assert {"game", "case", "players", "threads", "unit", "rate", "vs_yardstick"} <= set(r)
        assert r["rate"] > 0
        assert r["vs_yardstick"] > 0
        assert 1 <= r["threads"] <= max_threads()
    records = [r for r in records if r["case"] != "yardstick"]
    assert {r["game"] for r in records} == {"pepper"}
    # the kernel's hands, then the double-dummy solver's deals, the expert's hands
    # and the advisor's samples with the expert
    cases = {(r["case"], r["unit"]) for r in records}
    assert cases == {("heuristic", "hand"), ("double dummy: every trick, 5 trumps", "deal"),
                     ("double dummy: most tricks, 5 trumps", "deal"),
                     ("expert (16 worlds) at every seat", "hand"),
                     ("advise --policy expert, every plan", "sample")}
    records = [r for r in records if r["case"] == "heuristic"]
    assert {r["players"] for r in records} == {2, 3, 4}
    assert any(r["threads"] == 1 for r in records)
    assert {(r["players"], r["threads"]) for r in records} == \
        {(p, t) for p in (2, 3, 4) for t in {1, max_threads()}}


@pytest.mark.parametrize("argv", [
    ["tournament", "pepper", "--policy", "heuristic", "--policy", "random", "--hands", "1"],
    ["tournament", "burraco", "--policy", "heuristic", "--policy", "random", "--games", "1"],
])
def test_json_is_strict_json_without_a_value(cli, argv):
    """A one-deal tournament has no interval: ``null``, never ``NaN``."""
    code, out, _ = cli(*argv, "--json", "--no-progress")

    def no_constant(name):
        raise ValueError(f"not JSON: {name}")

    pairs = json.loads(out, parse_constant=no_constant)["pairs"]
    assert code == 0
    assert pairs[0]["ci_low"] is None
    assert pairs[0]["p_value"] is None
