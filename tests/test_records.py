"""Text records (seeds/records.md): the shared header, ``simkit show`` (also
from a run directory, with ``--where``), ``simkit replay`` and ``advise
--from``, on the command line; Pepper's own lines round trip and agree with
the kernel's records.  Each other game's lines are tested in
tests/test_<game>_record.py."""

from __future__ import annotations

import re

import pytest

from simkit import games
from simkit.app.cli import main
from simkit.base.errors import InputError
from simkit.bygame import record
from simkit.pepper import api as pepper
from simkit.pepper import reference as R
from simkit.pepper.rules import TRUMP_TEXT, make_rules

SEED = 31


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, out, err, *names):
    assert code == 2, (out, err)
    assert out == "", (out, err)
    assert err.startswith("simkit: error: "), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    for name in names:
        assert name in err, (name, err)


# --- Pepper: show, replay, and the kernel's records -----------------------------------

def _pepper_row_of(log) -> dict:
    """What a hand's record says, in the kernel's record columns."""
    r = log.rules
    bids = [max([b.level for b in log.auction if b.seat == s], default=0)
            for s in range(r.players)]
    row = {"dealer": log.dealer, "calls": len(log.auction), "contract": log.contract,
           "bidder": log.bidder, "stuck": log.stuck, "made": log.made,
           "trump": TRUMP_TEXT[log.trump] if log.trump >= 0 else None,
           **{f"bid_{s}": bids[s] for s in range(r.players)},
           **{f"tricks_{s}": log.tricks[s] for s in range(r.players)},
           **{f"score_{s}": log.score[s] for s in range(r.sides)}}
    if log.bidder >= 0:
        row.update(zip(("bidder_trumps", "bidder_bowers", "bidder_aces", "bidder_voids"),
                       log.features()))
    return row


@pytest.mark.parametrize(("players", "preset", "policy"), [
    (4, "seed", "heuristic"), pytest.param(3, "seed", "heuristic", marks=pytest.mark.slow),
    pytest.param(2, "seed", "heuristic", marks=pytest.mark.slow),
    (4, "stick-the-dealer", "random"), pytest.param(3, "one-lap", "classic",
                                                    marks=pytest.mark.slow)])
def test_pepper_show_replays_to_itself_and_equals_the_run(players, preset, policy):
    """For 150 seeded hands a table: the record replays to exactly itself, and
    what it says equals the kernel's row of the same hand of a run."""
    rules = make_rules(preset, players=players)
    n = 150
    df = pepper.simulate(hands=n, rules=rules, policy=policy, seed=SEED, threads=1)
    for i in range(n):
        text = record.show("pepper", rules, [policy], SEED, i, preset)
        assert record.replay(text) == text, text
        rec = record.parse(text)
        assert (rec.seed, rec.index, rec.preset) == (SEED, i, preset)
        _assert_row(record.module("pepper").replay(list(rec.lines), rules, None, SEED, i),
                    df.iloc[i], text)


def test_pepper_record_of_the_deal_alone_is_played_out_by_the_policies(capsys, tmp_path):
    """Cut a run's hand after the deal: replayed with the run's own policies (the
    header's policy lines, or --policy) it comes out as the run played it."""
    rules = make_rules(players=4)
    for i in range(12):
        text = record.show("pepper", rules, ["heuristic:aggression=1", "random"] * 2, SEED, i)
        deal_only = "\n".join(line for line in text.splitlines()
                              if not line.split(":")[0].startswith(
                                  ("auction", "stuck", "contract", "trump", "trick", "tricks",
                                   "score", "made", "bidder", "dead")))
        assert record.replay(deal_only) == text
        mid = "\n".join(line for line in text.splitlines()
                        if not line.startswith(("trick 4", "trick 5", "trick 6", "tricks",
                                                "score", "made")))
        assert record.replay(mid) == text
    # without policies the cut record is refused, naming where it stops
    bare = "\n".join(line for line in deal_only.splitlines() if not line.startswith("policy"))
    path = tmp_path / "deal.txt"
    path.write_text(bare)
    one_line_error(*run(capsys, "replay", str(path)), "the record stops", "--policy")
    code, out, err = run(capsys, "replay", str(path), "--policy", "heuristic")
    assert code == 0, err
    assert "made:" in out
    assert out.count("policy ") == 4


#: A hand written by a person: 3 players, hearts, every card legal, no results.
HAND_WRITTEN = """\
game: pepper
rules: players=3
dealer: 2
seat 0: JH JD AH KH QH 10H 9H AS
seat 1: 9C 10C QC KC AC 9D 10D QD
seat 2: JC JS KS QS 10S 9S KD AD
auction: 0:kubwa
trump: H
trick 1: 0:JH 1:9C 2:JC
trick 2: 0:JD 1:10C 2:JS
trick 3: 0:AH 1:QC 2:KS
trick 4: 0:KH 1:KC 2:QS
trick 5: 0:QH 1:AC 2:10S
trick 6: 0:10H 1:9D 2:9S
trick 7: 0:9H 1:10D 2:KD
trick 8: 0:AS 1:QD 2:AD
"""


def test_a_hand_written_record_is_completed(capsys, tmp_path):
    path = tmp_path / "kubwa.txt"
    path.write_text(HAND_WRITTEN)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0, err
    assert "contract: kubwa by 0" in out
    assert "made: yes" in out
    assert "score by side: +16 +0 +0" in out
    assert "trick 8: 0:AS 1:QD 2:AD -> 0" in out
    # the completed record replays to itself
    path.write_text(out)
    assert run(capsys, "replay", str(path))[1] == out


@pytest.mark.parametrize(("change", "names"), [
    (("trick 8: 0:AS 1:QD 2:AD", "trick 8: 0:AS 1:QD 2:KD"), ["KD", "does not hold"]),
    (("trick 3: 0:AH 1:QC 2:KS", "trick 3: 0:AS 1:QC 2:KD"), ["trick 3", "must follow"]),
    (("trump: H", "trump: H\nscore by side: +16 +1 +0"), ["score by side", "+16 +0 +0"]),
    (("seat 0: JH", "seat 0: ZZ"), ["ZZ"]),
    (("trick 8: 0:AS 1:QD 2:AD\n", ""), ["the record stops", "--policy"]),
    (("trump: H", "trump: H\nbonus: 3"), ["unknown record line", "bonus"]),
    (("game: pepper", "game: poker"), ["poker"]),
    (("rules: players=3", "rules: players=5"), ["player count", "5"]),
    (("auction: 0:kubwa", "auction: 1:kubwa"), ["seat 1", "seat 0's turn"]),
])
def test_bad_records_are_one_line_errors(capsys, tmp_path, change, names):
    """A card played twice (or not held), a revoke, a wrong score, a bad card,
    a truncated file, an unknown line, an unknown game, a bad player count, a
    call out of turn: one line naming the move, exit code 2."""
    old, new = change
    assert old in HAND_WRITTEN
    path = tmp_path / "bad.txt"
    path.write_text(HAND_WRITTEN.replace(old, new))
    one_line_error(*run(capsys, "replay", str(path)), *names)


def test_unreadable_record_files(capsys, tmp_path):
    one_line_error(*run(capsys, "replay", str(tmp_path / "none.txt")), "no such file")
    one_line_error(*run(capsys, "replay", str(tmp_path)), "directory")
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00game")
    one_line_error(*run(capsys, "replay", str(tmp_path / "bin")), "not UTF-8")
    (tmp_path / "empty").write_text("")
    one_line_error(*run(capsys, "replay", str(tmp_path / "empty")), "no 'game' line")



@pytest.mark.slow
def test_record_input_is_bounded(capsys, tmp_path, monkeypatch):
    """/dev/zero, a file over the cap, a closed or non-UTF-8 standard input: one
    line each, read no further than the cap; a byte-order mark is taken."""
    import io
    import os
    import subprocess
    import sys

    from simkit.bygame import record

    if os.path.exists("/dev/zero"):     # endless: refused before it is read
        one_line_error(*run(capsys, "replay", "/dev/zero"), "/dev/zero", "a device")
    os.mkfifo(tmp_path / "fifo")        # would wait forever for a writer
    one_line_error(*run(capsys, "replay", str(tmp_path / "fifo")), "a pipe (FIFO)")
    (tmp_path / "big").write_bytes(b"x" * (record.MAX_RECORD_BYTES + 1))
    one_line_error(*run(capsys, "replay", str(tmp_path / "big")), "larger than 4 MiB")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"game: pepp\xe9r\n")))
    one_line_error(*run(capsys, "replay", "-"), "standard input", "not UTF-8")
    monkeypatch.setattr(sys, "stdin", None)
    one_line_error(*run(capsys, "replay", "-"), "standard input", "closed")
    closed = subprocess.run([sys.executable, "-m", "simkit.app.cli", "replay", "-"], stdin=None,
                            preexec_fn=lambda: os.close(0), capture_output=True, text=True,
                            timeout=120)
    assert closed.returncode == 2
    assert "standard input: it is closed" in closed.stderr
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbf" + HAND_WRITTEN.encode())
    code, out, err = run(capsys, "replay", str(tmp_path / "bom.txt"))
    assert code == 0, err
    assert out.startswith("# simkit record"), err


def test_an_error_quoting_a_huge_value_stays_short(capsys):
    code, out, err = run(capsys, "show", "pepper", "--hand", "1", "--policy", "x" * 100_000)
    one_line_error(code, out, err, "unknown policy", " ... ")
    assert len(err) <= len("simkit: error: ") + 501


def test_a_hand_number_beyond_the_streams_is_refused(capsys):
    from simkit.base.rng import MAX_STREAMS

    for game in ("pepper", "pitch", "shiesta", "burraco"):
        one_line_error(*run(capsys, "show", game, "--hand", str(MAX_STREAMS)),
                       str(MAX_STREAMS), str(MAX_STREAMS - 1))

# --- show: options, and runs ------------------------------------------------------------

def test_show_prints_what_the_options_say(capsys):
    code, out, err = run(capsys, "show", "pepper", "--hand", "5", "--seed", "9",
                         "--players", "3", "--preset", "one-lap", "--policy", "classic")
    assert code == 0, err
    rec = record.parse(out)
    assert (rec.game, rec.seed, rec.index, rec.preset) == ("pepper", 9, 5, "one-lap")
    assert rec.rules == make_rules("one-lap", players=3)
    assert rec.policies == tuple([rec.policies[0]] * 3)
    assert "cover_third=False" in rec.policies[0]                  # classic, in full
    log = R.simulate_hand(rec.rules, list(rec.policies), 9, 5)
    assert out.endswith("\n".join(record.module("pepper").body(log)) + "\n")


@pytest.mark.parametrize(("argv", "names"), [
    (["show", "pepper"], ["--hand"]),
    (["show", "--hand", "3"], ["give the game"]),
    (["show", "pepper", "--hand", "-1"], ["-1"]),
    (["show", "pepper", "--hand", "1", "--where", "made"], ["--run"]),
    (["show", "pepper", "--hand", "1", "--players", "5"], ["player count"]),
    (["show", "pepper", "--hand", "1", "--policy", "psychic"], ["psychic"]),
])
def test_bad_show_arguments(capsys, argv, names):
    one_line_error(*run(capsys, *argv), *names)


@pytest.fixture(scope="module")
def pepper_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "pepper"
    assert main(["simulate", "pepper", "--hands", "3000", "--seed", str(SEED), "--players", "3",
                 "--policy", "heuristic:aggression=1", "--out", str(out), "--no-progress"]) == 0
    return out


def _assert_row(log, row, text):
    for key, value in _pepper_row_of(log).items():
        if key == "trump" and log.trump < 0:
            continue
        assert row[key] == value, (key, row[key], value, text)


@pytest.mark.slow
def test_show_from_a_run(capsys, pepper_run):
    """Records of a run's hands, read from its directory: each replays to itself
    and says what the run's Parquet row says."""
    from simkit.runs.store import read_run
    df, _ = read_run(pepper_run)
    code, out, err = run(capsys, "show", "--run", str(pepper_run), "--hand", "17")
    assert code == 0, err
    assert out == record.show("pepper", make_rules(players=3), ["heuristic:aggression=1"],
                              SEED, 17)
    for i in range(0, 3000, 20):
        game, rules, pols, seed, numbers = record.run_units(str(pepper_run), i, None, 1)
        text = record.show(game, rules, pols, seed, numbers[0])
        assert record.replay(text) == text
        rec = record.parse(text)
        _assert_row(record.module("pepper").replay(list(rec.lines), rules, None, seed, i),
                    df.iloc[i], text)
    # --where: the first K matching hands, in run order, each equal to its row
    code, out, err = run(capsys, "show", "--run", str(pepper_run), "--where",
                         "contract == 5 and not made", "--limit", "3")
    assert code == 0, err
    texts = ["# simkit" + t for t in out.split("# simkit")[1:]]
    hit = df.query("contract == 5 and not made")
    assert len(texts) == min(3, len(hit)) > 0
    for text, (_, row) in zip(texts, hit.iterrows()):
        rec = record.parse(text)
        assert rec.index == row["hand"]
        log = record.module("pepper").replay(list(rec.lines), rec.rules, None, SEED, rec.index)
        assert log.contract == 5
        assert not log.made
        assert list(log.score) == [row[f"score_{s}"] for s in range(3)]


@pytest.mark.parametrize(("argv", "names"), [
    (["--where", "contract ==="], ["bad --where", "contract"]),
    (["--where", "colour == 3"], ["bad --where", "colour"]),
    (["--where", "contract == 99"], ["no hand", "matches"]),
    (["--hand", "3000"], ["--hand 3000", "0 to 2999"]),
    ([], ["--hand", "--where"]),
    (["--seed", "3", "--hand", "1"], ["drop --seed"]),
    (["--where", "contract + 1"], ["'contract + 1'", "true or false for each hand"]),
    (["--where", "contract"], ["true or false for each hand"]),
    (["--where", "made", "--hand", "3"], ["--hand", "--where", "not both"]),
    (["--hand", "3", "--limit", "2"], ["--limit applies to --where"]),
    # nothing but the columns: pandas' eval reached the module's globals through @
    (["--where", 'contract > 0 and @pd.io.common.os.system("id") == 0'],
     ["'@' names something outside the records"]),
    (["--where", "__import__('os').system('id') == 0"], ["a call f(...)"]),
    (["--where", "made.__class__ == 1"], ["an attribute"]),
    (["--where", "contract ** 99 > 0"], ["a power"]),
    (["--where", "(" * 5000 + "made" + ")" * 5000], ["at most 1,000 characters"]),
    (["--where", "contract == " + "9" * 5000], ["at most 1,000 characters"]),
    (["--where", "contract == 99999999999999999999"], ["too large"]),
    (["--where", "made and 3"], ["and, or and not take conditions"]),
    # a column compared with a value it never holds: refused, as trump < 3 was,
    # not matching nothing silently; the line names the values it holds
    (["--where", "trump == 3"], ["trump holds one of", "'H'", "'NT'", "never 3"]),
    (["--where", "trump < 3"], ["trump holds one of", "'H'", "never 3"]),
    (["--where", "3 != trump"], ["trump holds one of", "never 3"]),
    (["--where", "trump == 'X'"], ["trump holds one of", "never 'X'"]),
    (["--where", "trump in ['H', 'hearts']"], ["trump holds one of", "never 'hearts'"]),
    (["--where", "made == 2"], ["made is true or false", "never 2"]),
    (["--where", "contract == 'five'"], ["contract holds numbers", "'five'"]),
    (["--where", "contract == 4.5"], ["contract holds whole numbers", "never 4.5"]),
    (["--where", "contract + 1 == 'x'"], ["compares text with a number"]),
])
def test_bad_run_arguments(capsys, pepper_run, argv, names):
    one_line_error(*run(capsys, "show", "--run", str(pepper_run), *argv), *names)


def test_where_reads_a_run_a_few_columns_and_rows_at_a_time(tmp_path, monkeypatch):
    """``show --run --where`` never holds the run: it reads the columns the
    condition names (and the hand's number), a batch of rows at a time, part
    after part, and stops at the limit-th match; it finds what pandas finds
    in the whole run."""
    import pandas as pd
    import pyarrow.parquet as pq

    from simkit.runs import store

    out = tmp_path / "run"
    assert main(["simulate", "pepper", "--hands", "3000", "--chunk", "1000", "--seed",
                 str(SEED), "--out", str(out), "--no-progress"]) == 0
    df = pd.read_parquet(out)

    def whole(*args, **kwargs):
        raise AssertionError("the whole run was read")

    batches = []
    iter_batches = pq.ParquetFile.iter_batches

    def counted(self, *args, **kwargs):
        for batch in iter_batches(self, *args, **kwargs):
            batches.append((batch.num_rows, tuple(sorted(batch.schema.names))))
            yield batch

    monkeypatch.setattr(store, "read_run", whole)
    monkeypatch.setattr(pq, "read_table", whole)
    monkeypatch.setattr(pq.ParquetFile, "iter_batches", counted)
    monkeypatch.setattr(record, "BATCH_ROWS", 100)
    where = "contract == 4 and not made"
    *_, numbers = record.run_units(str(out), None, where, 3)
    assert numbers == df.query(where)["hand"].head(3).tolist()
    assert {names for _, names in batches} == {("contract", "hand", "made")}
    assert max(rows for rows, _ in batches) == 100
    assert len(batches) == numbers[-1] // 100 + 1           # no batch past the third match
    batches.clear()
    *_, numbers = record.run_units(str(out), None, "trump == 'NT' or bidder_voids > 2", 10_000)
    assert numbers == df.query("trump == 'NT' or bidder_voids > 2")["hand"].tolist()
    assert len(numbers) > 0
    assert len(batches) == 30                               # 3 parts of 1000 rows
    assert record.run_units(str(out), 2999, None, 1)[-1] == [2999]
    with pytest.raises(InputError, match=r"bad --hand 3000: run .* has hands 0 to 2999"):
        record.run_units(str(out), 3000, None, 1)


def test_show_needs_a_run_of_hand_records(capsys, tmp_path):
    agg = tmp_path / "agg"
    assert main(["simulate", "pepper", "--hands", "500", "--aggregate", "--out", str(agg),
                 "--no-progress"]) == 0
    capsys.readouterr()
    one_line_error(*run(capsys, "show", "--run", str(agg), "--hand", "1"), "aggregate")
    one_line_error(*run(capsys, "show", "--run", str(tmp_path / "nothing"), "--hand", "1"),
                   "does not exist")


# --- advise --from -----------------------------------------------------------------------

def test_advise_from_a_record(capsys, tmp_path):
    """The hand, seat, dealer, rules and score come from the record: the same
    advice as giving them by hand."""
    text = record.show("pepper", make_rules(players=4), ["heuristic"], SEED, 6)
    rec = record.parse(text)
    path = tmp_path / "hand.txt"
    path.write_text(text + "seat: 2\nscore: 24:10\n")
    code, out, err = run(capsys, "advise", "pepper", "--from", str(path), "--samples", "400",
                         "--games", "50", "--json")
    assert code == 0, err
    _, hands = record.module("pepper").deal(list(rec.lines), rec.rules)
    dealer = 6 % 4
    code2, out2, err2 = run(capsys, "advise", "pepper", "--hand", hands[2], "--seat", "2",
                            "--dealer", str(dealer), "--score", "24:10", "--samples", "400",
                            "--games", "50", "--json")
    assert code2 == 0, err2
    assert out == out2
    one_line_error(*run(capsys, "advise", "pepper", "--from", str(path), "--seat", "1"),
                   "drop --seat")
    one_line_error(*run(capsys, "advise", "pepper"), "--hand", "--from")
    one_line_error(*run(capsys, "advise", "pitch", "--from", str(path)), "pepper", "pitch")


def test_every_game_has_a_record_module():
    for name in games.GAMES:
        mod = record.module(name)
        assert mod.UNIT in games.get(name).units
        for fn in ("play", "body", "replay"):
            assert callable(getattr(mod, fn)), (name, fn)
        if games.advisor(name) is not None:
            assert callable(getattr(mod, "deal", None)), name


def test_header_errors():
    text = record.show("pepper", make_rules(), ["heuristic"], 1, 1, "seed")
    for bad, words in [(text.replace("index: 1", "index: x"), "index"),
                       (text.replace("policy 3:", "policy 7:"), "seats"),
                       (text + "seed: 4\n", "two 'seed' lines"),
                       (text.replace("index: 1", "index: 1_0"), "index '1_0'"),
                       (text.replace("seed: 1", "seed: ١"), "seed"),
                       (text.replace("rules: preset=seed", "rules: preset=seed preset=seed"),
                        "twice"),
                       (text.replace("rules: preset=seed", "rules: preset=nope"), "nope"),
                       (text + "seat: 9\n", "seat")]:
        with pytest.raises(InputError, match=words):
            record.replay(bad)


@pytest.mark.parametrize(("game", "key"), [("pepper", "dealer"), ("pitch", "dealer"),
                                       ("shiesta", "starter"), ("burraco", "dealer")])
def test_a_seat_is_written_either_way_in_every_game(game, key):
    """``2`` or ``seat 2`` (seeds/records.md): the same record, in every game; a
    seat off the table is one line naming it."""
    rules = games.get(game).make_rules()
    text = record.show(game, rules, ["heuristic"], SEED, 1)
    line = re.compile(rf"^{key}: (\d+)$", re.MULTILINE)
    assert line.search(text)
    assert record.replay(line.sub(rf"{key}: Seat \1", text)) == text
    with pytest.raises(InputError, match=rf"bad {key} 'seat 9': expected a seat from 0 to "
                                         rf"{rules.players - 1}"):
        record.replay(line.sub(f"{key}: seat 9", text))


def test_policy_on_a_complete_record_is_refused(capsys, tmp_path):
    """Every move of a complete record is in it: --policy would play none, and
    its policy lines must keep saying who played."""
    code, out, _ = run(capsys, "show", "pepper", "--hand", "3", "--policy", "random")
    assert code == 0
    (tmp_path / "r.txt").write_text(out)
    one_line_error(*run(capsys, "replay", str(tmp_path / "r.txt"), "--policy", "heuristic"),
                   "complete", "drop --policy")
    code, again, _ = run(capsys, "replay", str(tmp_path / "r.txt"))
    assert code == 0
    assert "policy 0: random" in again
    cut = out.split("\ntrick 3")[0] + "\n"           # cut: the policy plays the rest
    (tmp_path / "cut.txt").write_text(cut)
    code, done, _ = run(capsys, "replay", str(tmp_path / "cut.txt"), "--policy", "heuristic")
    assert code == 0
    assert "trick 6:" in done


def test_a_file_the_user_may_not_read_is_one_line(capsys, tmp_path, monkeypatch):
    """A part made unreadable (chmod 000; root reads it anyway, so the refusal is
    simulated): verify, show --run and a rerun end in one line naming it."""
    from simkit.runs import store

    out = tmp_path / "R"
    assert main(["simulate", "pepper", "--hands", "300", "--chunk", "100", "--out", str(out),
                 "--no-progress"]) == 0
    capsys.readouterr()
    part = out / store.part_name(1)
    real = store.file_digest

    def refuse(path):
        if str(path) == str(part):
            raise PermissionError(13, "Permission denied", str(part))
        return real(path)

    monkeypatch.setattr(store, "file_digest", refuse)
    for argv in (["verify", str(out)], ["show", "--run", str(out), "--hand", "1"],
                 ["simulate", "pepper", "--hands", "300", "--chunk", "100", "--out", str(out),
                  "--no-progress"]):
        one_line_error(*run(capsys, *argv), "part-000001.parquet", "permission denied")


@pytest.mark.parametrize("score", ["abc", "１:2", "12", "1:2:3:4", "1_0:2"])
def test_a_records_score_line_follows_the_command_lines_rules(capsys, tmp_path, score):
    code, out, _ = run(capsys, "show", "pepper", "--hand", "3")
    bad = out.replace("index: 3\n", f"index: 3\nscore: {score}\n")
    (tmp_path / "r.txt").write_text(bad)
    one_line_error(*run(capsys, "replay", str(tmp_path / "r.txt")), "bad score", "US:THEM")
    good = out.replace("index: 3\n", "index: 3\nscore: 12:-6\n")
    (tmp_path / "g.txt").write_text(good)
    code, again, _ = run(capsys, "replay", str(tmp_path / "g.txt"))
    assert code == 0
    assert "score: 12:-6\n" in again
