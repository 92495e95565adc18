"""Bad input, as a careless or unlucky user gives it, to every subcommand and
game: one line on stderr naming the value, exit code 2, no traceback, nothing
written, within seconds.  First the cases found by hand (each one crashed,
hung, was accepted silently or left a file behind before it was fixed), then
a property test (hypothesis) that injects one generated bad argument into a
valid command line."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit import games

HUGE = str(2 ** 70)
#: Every refusal comes within seconds (conftest.Cli.refused checks the rest).
SECONDS = 5.0


HAND = ["--hand", "JH JD AH KH QH 9S"]
FOUND = [
    # counts: every command checks them the same way, before any work
    (["advise", "pepper", *HAND, "--samples", "1180591620717411303424"], ["--samples"]),
    (["advise", "pepper", *HAND, "--samples", "1000000000000"], ["--samples", "on this machine"]),
    (["advise", "pitch", "--hand", "AS KS QS JS 10S 9S", "--samples", "1000000000000"],
     ["--samples"]),
    (["bench", "pepper", "--hands", HUGE], ["--hands"]),
    (["bench", "burraco", "--hands", str(10 ** 13)], ["--hands"]),
    (["compare", "pepper", "--variant", "a:", "--variant", "b:all_pass=stick", "--hands", HUGE],
     ["--hands"]),
    (["compare", "pepper", "--variant", "a:", "--variant", "b:all_pass=stick", "--games", HUGE],
     ["--games"]),
    (["advise", "pepper", *HAND, "--score", "1:2", "--games", HUGE], ["games"]),
    (["report", "burraco-scoring", "--hands", HUGE, "--out", "reports"], ["--hands"]),
    (["simulate", "pepper", "--hands", "100", "--chunk", HUGE], ["--chunk"]),
    (["tournament", "pepper", "--policy", "heuristic", "--policy", "random", "--hands", HUGE],
     ["hands"]),
    # counts held in memory at once: capped by what the machine holds (a
    # count the probe found to exhaust memory, and more than any machine's cap)
    (["advise", "pepper", *HAND, "--samples", "300000000"],
     ["--samples 300,000,000", "on this machine", "bytes each"]),
    (["advise", "pitch", "--hand", "AS KS QS JS 10S 9S", "--samples", "300000000"],
     ["--samples", "on this machine"]),
    (["bench", "pepper", "--hands", "300000000"], ["--hands 300,000,000", "on this machine"]),
    (["simulate", "pepper", "--hands", "300000000", "--chunk", "300000000"],
     ["--chunk 300,000,000", "on this machine"]),
    (["report", "pepper-kubwa", "--hands", "300000000", "--out", "r"],
     ["--hands for pepper-kubwa", "on this machine"]),
    # workers, bounded
    (["simulate", "pepper", "--hands", "100", "--backend", "dask", "--workers",
      "1180591620717411303424"], ["--workers"]),
    # paths that cannot be created
    (["simulate", "pepper", "--hands", "100", "--out", "/proc/x"], ["/proc/x"]),
    (["simulate", "pepper", "--hands", "100", "--out", "/sys/x"], ["/sys/x"]),
    (["report", "pepper-kubwa", "--hands", "100", "--out", "/proc/x"], ["/proc/x"]),
    (["report", "pepper-kubwa", "--hands", "100", "--out", "/sys/x"], ["/sys/x"]),
    (["simulate", "pepper", "--hands", "100", "--out", ""], ["--out ''"]),
    (["report", "pepper-kubwa", "--hands", "100", "--out", ""], ["--out ''"]),
    # scores
    (["advise", "pepper", *HAND, "--score=-99999999999999999999:0"], ["--score"]),
    (["advise", "pepper", *HAND, "--score", "\uff12\uff14:\uff11\uff10"], ["--score"]),
    # numbers as ASCII digits only, and not thousands of them (Python's int-string limit)
    (["simulate", "pepper", "--hands", " 10", "--no-progress"], ["' 10'", "ASCII digits"]),
    (["simulate", "pepper", "--hands", "10 ", "--no-progress"], ["'10 '", "ASCII digits"]),
    (["simulate", "pepper", "--hands", "+10", "--no-progress"], ["'+10'", "ASCII digits"]),
    (["show", "pepper", "--hand", "1", "--seed", "+5"], ["'+5'", "ASCII digits"]),
    (["simulate", "pepper", "--hands", "9" * 5000], ["at most 30 digits"]),
    (["simulate", "pepper", "--hands", "10", "--preset", "x" * 2000], ["preset", " ... "]),
    # counts with a stated cap
    (["tune", "pepper", "--param", "aggression=0:1", "--trials", "1000000000000"],
     ["--trials", "1 to 100,000"]),
    # a trial's deals: capped for tune and adaptation alike, no --chunk named (neither has one)
    (["tune", "pepper", "--param", "aggression=0:1", "--games", "1000000000000"],
     ["--games", "1 to 100,000,000", "every trial"]),
    (["tune", "pepper", "--param", "aggression=0:1", "--hands", "1000000000000"],
     ["--hands", "1 to 100,000,000"]),
    (["compare", "pepper", "--variant", "A:", "--variant", "B:fail=bid", "--adapt",
      "--adapt-games", "1000000000000"], ["--adapt-games", "1 to 100,000,000"]),
    (["compare", "pepper", "--variant", "A:", "--variant", "B:fail=bid", "--adapt",
      "--adapt-rounds", "1000"], ["--adapt-rounds", "1 to 50"]),
    (["show", "pepper", "--run", "r", "--where", "made", "--limit", "1000000000001"],
     ["--limit", "1 to 10,000"]),
    # contradictions and directories that are not there
    (["report", "all", "pepper-bids", "--hands", "100"], ["'all' with study names",
                                                         "pepper-bids"]),
    (["serve", "--reports", "/nonexistent", "--port", "1"], ["--reports", "does not exist"]),
    (["serve", "--reports", "/etc/passwd", "--port", "1"], ["--reports", "not a directory"]),
    (["serve", "--reports", "", "--port", "1"], ["--reports ''", "does not exist"]),
    # a folder that is not simkit's: its files are never replaced by a report
    (["report", "pepper-kubwa", "--hands", "100", "--out", "/"], ["--out '/'"]),
    (["report", "pepper-kubwa", "--hands", "100", "--out", "/etc"], ["--out '/etc'"]),
    # files that never end or never start: refused before they are read
    (["simulate", "pepper", "--hands", "100", "--rules", "/dev/zero"], ["/dev/zero", "device"]),
    (["simulate", "pepper", "--hands", "100", "--rules", "/dev/urandom"], ["device"]),
    (["advise", "pepper", *HAND, "--rules", "/dev/zero"], ["device"]),
    (["simulate", "pepper", "--hands", "100", "--rules", "/"], ["a directory"]),
    # contradictions: an option given twice, or two that disagree
    (["simulate", "pepper", "--hands", "10", "--seed", "1", "--seed", "2"],
     ["--seed is given twice", "give it once"]),
    (["simulate", "pepper", "--hands", "10", "--out", "a", "--out", "b"], ["--out", "twice"]),
    (["simulate", "pepper", "--hands", "10", "--preset", "seed", "--preset", "reentry"],
     ["--preset", "twice"]),
    (["advise", "pepper", *HAND, *HAND], ["--hand", "twice"]),
    (["simulate", "pepper", "--hands", "10", "--set", "players=3", "--players", "4"],
     ["--players and --set players", "once"]),
    (["advise", "pepper", *HAND, "--games", "100"], ["--games 100", "--score"]),
    (["tune", "pepper", "--param", "aggression=0:1", "--policy", "heuristic:aggression=1"],
     ["--param aggression", "fixes it"]),
    # accepted silently before
    (["simulate", "pepper", "--hands", "10", "--rules", ""], ["--rules ''"]),
    (["simulate", "pepper", "--hands", "10", "--policy", "heuristic:aggression=1,aggression=2"],
     ["aggression", "twice"]),
    (["simulate", "pepper", "--hands", "10", "--policy", "random:aggression=1"],
     ["aggression", "there are none"]),
]


def test_paths_the_system_refuses_are_one_line(workdir, cli):
    """A symlink loop or a dangling symlink as --out, names too long for the
    system, and numbers past Python's int-string limit: one line, exit 2,
    nothing left behind (no traceback)."""
    os.symlink("loop", "loop")
    os.symlink("nowhere/x", "dangling")
    for out, to in (("loop", "'loop'"), ("dangling", "'nowhere/x'")):
        cli.refused("simulate", "pepper", "--hands", "100", "--out", out, "--no-progress",
                    names=[f"--out '{os.path.abspath(out)}'", "symbolic link to " + to])
    cli.refused("simulate", "pepper", "--hands", "100", "--out", "a" * 300, "--no-progress",
                names=["(300 chars)", "File name too long"])
    for argv in (["verify", "a" * 100_000], ["show", "--run", "a" * 100_000, "--hand", "1"]):
        cli.refused(*argv, names=["(100,000 chars)", "File name too long"])
    cli.refused("advise", "pepper", *HAND, "--score=" + "9" * 5000 + ":0",
                names=["--score", "at most 1,000,000"])


def test_a_fifo_as_rules_is_refused_at_once(workdir, cli):
    os.mkfifo("pipe.toml")
    line = cli.refused("simulate", "pepper", "--hands", "100", "--rules", "pipe.toml",
                       names=["pipe.toml", "a pipe (FIFO)"], seconds=SECONDS)
    # said once: "cannot read rules file 'pipe.toml': cannot read rules file ..." before
    assert line == ("simkit: error: cannot read rules file 'pipe.toml': it is a pipe (FIFO), "
                    "not a file\n")


def test_a_rules_file_too_large_or_with_a_huge_number(workdir, cli):
    from simkit.base.files import MAX_RULES_BYTES
    with open("big.toml", "w") as f:
        f.write("# " + "x" * MAX_RULES_BYTES + "\n")
    cli.refused("simulate", "pepper", "--hands", "100", "--rules", "big.toml",
                names=["big.toml", "larger than 1 MiB"], seconds=SECONDS)
    with open("huge.toml", "w") as f:
        f.write("target = " + "9" * 5000 + "\n")
    cli.refused("simulate", "pepper", "--hands", "100", "--rules", "huge.toml",
                names=["huge.toml"], seconds=SECONDS)


@pytest.mark.parametrize(("argv", "names"), FOUND, ids=[" ".join(a)[:60] for a, _ in FOUND])
def test_the_cases_found_by_hand(workdir, cli, argv, names):
    line = cli.refused(*argv, names=names, seconds=SECONDS)
    assert len(line.rstrip("\n")) <= 500, len(line)      # the prefix counts too


def test_rules_files(workdir, cli):
    (workdir / "binary.toml").write_bytes(b"\xff\xfe\x00\x01target = 3")
    (workdir / "latin1.toml").write_bytes("# r\xe8gles\ntarget = 20\n".encode("latin-1"))
    (workdir / "both.toml").write_text("target = 20\n[rules]\ntarget = 25\n")
    base = ["simulate", "pepper", "--hands", "10", "--rules"]
    cli.refused(*base, "binary.toml", names=["binary.toml", "UTF-8"], seconds=SECONDS)
    cli.refused(*base, "latin1.toml", names=["latin1.toml", "UTF-8"], seconds=SECONDS)
    cli.refused(*base, "both.toml", names=["both.toml", "target"], seconds=SECONDS)
    cli.refused("show", "pepper", "--hand", "1", "--rules", "binary.toml", names=["UTF-8"],
                seconds=SECONDS)


def test_input_nested_too_deeply_is_one_line(workdir, cli):
    """Brackets nested thousands deep (a few kilobytes) exhaust Python's parsers:
    a rules file of inline arrays or tables, and a run's manifest read by
    verify, show --run and a resume, are each one line, never a RecursionError."""
    (workdir / "arrays.toml").write_text("a = " + "[" * 5000 + "1" + "]" * 5000 + "\n")
    (workdir / "tables.toml").write_text("a = " + "{b = " * 5000 + "1" + "}" * 5000 + "\n")
    for name in ("arrays.toml", "tables.toml"):
        cli.refused("simulate", "pepper", "--hands", "10", "--rules", name,
                    names=[f"rules file '{name}'", "nested too deeply"], seconds=SECONDS)
    code, _, err = cli("simulate", "pepper", "--hands", "100", "--out", "run", "--no-progress")
    assert code == 0, err
    (workdir / "run" / "_manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    for argv in (["verify", "run"], ["show", "--run", "run", "--hand", "1"],
                 ["simulate", "pepper", "--hands", "100", "--out", "run", "--no-progress"]):
        cli.refused(*argv, names=["_manifest.json", "nested too deeply", "to start over"],
                    seconds=SECONDS)


def test_a_report_into_a_folder_simkit_did_not_write_is_refused(workdir, cli):
    """A folder holding a user's own files (no simkit-reports.txt) is never
    written into: its index.html stays; an empty one is taken."""
    (workdir / "site").mkdir()
    (workdir / "site" / "index.html").write_text("<h1>my own page</h1>")
    cli.refused("report", "pepper-kubwa", "--hands", "100", "--out", "site",
                names=["--out 'site'", "'index.html'", "simkit-reports.txt"], seconds=SECONDS)
    assert os.listdir(workdir / "site") == ["index.html"]
    assert (workdir / "site" / "index.html").read_text() == "<h1>my own page</h1>"


def test_serve_needs_a_folder_of_rendered_reports(workdir, cli):
    """``serve --reports DIR`` named on purpose: DIR must hold the reports' index."""
    (workdir / "empty").mkdir()
    (workdir / "notes").mkdir()
    (workdir / "notes" / "a.txt").write_text("mine")
    cli.refused("serve", "--reports", "empty", "--port", "1",
                names=["--reports 'empty'", "it is empty", "simkit report --out"])
    cli.refused("serve", "--reports", "notes", "--port", "1",
                names=["--reports 'notes'", "holds no rendered reports", "index.html"])


def test_a_report_into_a_run_directory_is_refused(workdir, cli):
    code, _, err = cli("simulate", "pepper", "--hands", "200", "--out", "run", "--no-progress")
    assert code == 0, err
    before = sorted(os.listdir(workdir / "run"))
    cli.refused("report", "pepper-kubwa", "--hands", "100", "--out", "run",
                names=["run directory"], seconds=SECONDS)
    assert sorted(os.listdir(workdir / "run")) == before


@pytest.mark.slow      # waits out the 15 s connect timeout
def test_an_unreachable_scheduler_creates_nothing(workdir, cli):
    """The cluster is asked first: a scheduler that does not answer leaves no
    run directory (within its connection timeout, 15 s)."""
    cli.refused("simulate", "pepper", "--hands", "100", "--backend", "dask", "--scheduler",
                "tcp://127.0.0.1:9", "--out", "new", names=["--scheduler"], seconds=30)


def test_messages_that_no_longer_mislead(workdir, cli):
    code, _, err = cli("simulate", "pepper", "--hands", "3000", "--out", "r", "--no-progress")
    assert code == 0, err
    err = cli.refused("simulate", "pepper", "--hands", "3000", "--players", "3", "--out", "r",
                      "--no-progress", names=["at all 4 seats there"], seconds=SECONDS)
    assert "at all 3 seats here" in err
    cli.refused("simulate", "pepper", "--games", "30", "--out", "r", "--no-progress",
                names=["3,000 hands there, 30 games here"], seconds=SECONDS)


# --- the property test ---------------------------------------------------------------

#: A valid command per subcommand and game (fast to refuse, slow to run): one
#: argument of each is replaced by a generated bad value.
def _valid(command: str, game: str) -> list[str] | None:
    g = games.get(game)
    players = str(g.players[0])
    if command == "simulate":
        return ["simulate", game, "--players", players, "--seed", "1", "--no-progress"]
    if command == "tournament":
        return ["tournament", game, "--players", players, "--policy", "heuristic",
                "--policy", "random", "--no-progress"]
    if command == "compare":
        return ["compare", game, "--variant", "a:", "--variant", "b:", "--players", players,
                "--no-progress"]
    if command == "show":
        return ["show", game, "--hand", "3", "--players", players]
    if command == "advise" and games.advisor(game) is not None:
        return ["advise", game, "--hand", g.example_hand]
    if command == "bench":
        return ["bench", game]
    if command == "report":
        return ["report", "pepper-kubwa", "--out", "reports"]
    if command in ("replay", "verify"):
        return [command]
    if command == "tune":
        param = {"pepper": "aggression=0:1", "pitch": "aggression=0:1",
                 "shiesta": "three_at=0:4", "burraco": "take_at=1:4"}[game]
        return ["tune", game, "--param", param, "--trials", "1", "--no-progress"]
    return None


#: Bad values by the option they go to.
BAD = {
    "--hands": st.sampled_from(["0", "-5", "1.5", "ten", "", HUGE, "\uff11\uff10", "1e6"]),
    "--games": st.sampled_from(["0", "-1", "x", HUGE]),
    "--seed": st.sampled_from(["-1", str(2 ** 64), "seed", "1.0", ""]),
    "--players": st.sampled_from(["0", "1", "9", "-4", "four", "99999999999999999999"]),
    "--threads": st.sampled_from(["0", "-2", "999999", "x"]),
    "--chunk": st.sampled_from(["0", "-1", HUGE, "big"]),
    "--policy": st.sampled_from(["psychic", "heuristic:nope=1", "heuristic:aggression=x",
                                 "random:aggression=1", ":", "heuristic:aggression",
                                 "heuristic:aggression=1,aggression=2"]),
    "--set": st.sampled_from(["colour=red", "auction=sideways", "target", "=3", "target=-1x"]),
    "--preset": st.sampled_from(["nope", "", "SEED!"]),
    "--rules": st.sampled_from(["missing.toml", "", "/proc/nothing.toml", "."]),
    "--out": st.sampled_from(["/proc/x", "/sys/x", "", "no/such/dir/x", "afile"]),
    "--workers": st.sampled_from(["0", "-1", HUGE]),
    "--sweep": st.sampled_from(["nokey=1,2", "target", "=1,2", "players=2,3", "target=x,y",
                                "target=5"]),
    "--param": st.sampled_from(["nope=1:2", "aggression", "x=", "aggression=2:1"]),
    "--adapt-games": st.sampled_from(["0", "-1", "x", HUGE]),
    "--adapt-trials": st.sampled_from(["0", "many"]),
    "--adapt-rounds": st.sampled_from(["-3", "1.5"]),
    # the positional argument of replay (a record file) and verify (a run)
    "FILE": st.sampled_from(["missing.txt", ".", "/proc/none", "afile", "binary"]),
}
COMMANDS = ["simulate", "tournament", "compare", "show", "advise", "bench", "report", "replay",
            "verify", "tune"]
#: Options each command takes.
TAKES = {
    "simulate": ["--hands", "--games", "--seed", "--players", "--threads", "--chunk", "--policy",
                 "--set", "--preset", "--rules", "--out", "--workers"],
    "tournament": ["--hands", "--seed", "--players", "--threads", "--chunk", "--set",
                   "--preset", "--rules", "--out"],
    "compare": ["--hands", "--games", "--seed", "--players", "--threads", "--policy", "--sweep",
                "--param", "--adapt-games", "--adapt-trials", "--adapt-rounds", "--out"],
    "show": ["--seed", "--players", "--policy", "--set", "--preset", "--rules"],
    "advise": ["--seed", "--players", "--threads", "--policy", "--set", "--preset", "--rules"],
    "bench": ["--hands"],
    "report": ["--hands", "--seed", "--threads", "--out"],
    "replay": ["FILE"],
    "verify": ["FILE"],
    "tune": ["--hands", "--games", "--seed", "--players", "--threads", "--policy", "--set",
             "--preset", "--rules", "--out"],
}


@settings(max_examples=160, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_one_bad_argument_is_one_line_and_exit_2(workdir, cli, data):
    command = data.draw(st.sampled_from(COMMANDS), label="command")
    game = data.draw(st.sampled_from(list(games.GAMES)), label="game")
    argv = _valid(command, game)
    if argv is None:                    # a game without bids has no advisor
        cli.refused("advise", game, *HAND, names=["advise"], seconds=SECONDS)
        return
    option = data.draw(st.sampled_from(TAKES[command]), label="option")
    value = data.draw(BAD[option], label="value")
    if value == "afile":
        (workdir / "afile").write_text("mine")
    if value == "binary":
        (workdir / "binary").write_bytes(b"\xff\xfe\x00game: pepper")
    if option == "FILE":                 # a file that is no record, or no run
        cli.refused(*argv, value, seconds=SECONDS)
        return
    if option == "--workers":
        argv = [*argv, "--backend", "dask"]
    if option in argv:
        i = argv.index(option)
        argv = argv[:i] + argv[i + 2:]
    if option == "--games" and command in ("simulate",):
        argv = [a for a in argv if a != "--hands"]
    cli.refused(*argv, option, value, seconds=SECONDS)


@pytest.mark.parametrize(("option", "value"), [
    ("--hands", "0"), ("--games", "x"), ("--seed", "-1"), ("--players", "9"),
    ("--threads", "999999"), ("--policy", "psychic"), ("--set", "colour=red"),
    ("--preset", "nope"), ("--rules", "missing.toml"), ("--out", "/proc/x"),
    ("--trials", "0"), ("--sampler", "grid"), ("--against", "psychic"),
    ("--confirm-against", "heuristic:nope=1"),
])
def test_tune_refuses_each_bad_option(workdir, cli, option, value):
    """Every option of ``simkit tune`` (the property test above draws it rarely)."""
    argv = _valid("tune", "pepper")
    cli.refused(*argv, option, value, seconds=SECONDS)


def test_the_memory_caps_follow_the_machine(monkeypatch):
    """A count held in memory at once is capped by half the machine's memory
    over the bytes one unit takes, and never above MAX_HELD."""
    from simkit.base.errors import InputError
    from simkit.runs import batches

    assert 2**28 < batches.memory_bytes() < 2**50
    monkeypatch.setattr(batches, "memory_bytes", lambda: 8 * 2**30)
    most = 8 * 2**30 // 2 // batches.HELD_BYTES["sample"]
    assert batches.held_most("sample") == most == 6_135_667
    assert batches.check_held(most, "--samples", "sample") == most
    with pytest.raises(InputError, match=r"bad --samples 6,135,668: at most 6,135,667 on this "
                                         r"machine \(.*700 bytes each, in half of its 8.0 GiB"):
        batches.check_held(most + 1, "--samples", "sample")
    monkeypatch.setattr(batches, "memory_bytes", lambda: 2**60)
    assert batches.held_most(1) == batches.MAX_HELD
