"""Everything a user reads from simkit, reduced to one digest per case: to show
that a change of structure changed nothing a user sees.

Runs, in one process, through the ``simkit`` command itself:

- ``simulate`` of every game at every player count it is played by, in each
  unit it records (hands, games, Pitch's sessions), with the default policy
  and with ``random`` and ``classic`` (Pepper's ``expert`` too), and the
  aggregate runs: the printed summary (its timing line dropped) and every
  record of the run's Parquet parts (values, dtypes and column order);
- ``show`` of the first units of every game and player count (the same
  policies), and ``replay`` of each record shown;
- ``advise --json`` for Pepper (2, 3 and 4 players, ``--bound``, the expert)
  and Pitch; ``compare --json``, ``tournament --json`` and ``rules`` of every
  game.

::

    python benchmarks/identical.py --write before.json      # on the old commit
    python benchmarks/identical.py --check before.json      # on the new one

``--check`` prints each case that differs and exits 1 if any does;
``--save DIR`` also keeps every output as a file, to diff by hand.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import pathlib
import re
import sys
import tempfile
import time

# before numba is imported: two threads, as on the machine the figures are for
os.environ.setdefault("NUMBA_NUM_THREADS", "2")

import pandas as pd

from simkit import games
from simkit.app import cli

# (units of each kind per game): small, so the whole script runs in minutes
SIZES = {"pepper": {"hands": 3000, "games": 150},
         "pitch": {"hands": 3000, "games": 40},
         "shiesta": {"games": 300},
         "burraco": {"hands": 150, "games": 6}}
POLICIES = {"pepper": ["heuristic", "random", "classic", "expert:worlds=4"],
            "pitch": ["heuristic", "random", "classic"],
            "shiesta": ["heuristic", "random", "classic"],
            "burraco": ["heuristic", "random", "classic"]}
# the dropped timing: "2,000 hands, seed 3, 103.33 s (19 hands/s)"
_TIMING = re.compile(r"[0-9.,]+ s \([0-9.,]+ \w+/s\)|in [0-9.,]+ s")


def _command(argv: list[str]) -> str:
    """What ``simkit ARGV`` prints (stdout, then stderr), failing loudly."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    if code:
        raise SystemExit(f"simkit {' '.join(argv)} exited {code}: {err.getvalue().strip()}")
    return _TIMING.sub("<time>", out.getvalue())


def _frame_text(df: pd.DataFrame) -> bytes:
    """A DataFrame's columns, dtypes and values, byte for byte."""
    head = json.dumps([[str(c), str(t)] for c, t in df.dtypes.items()]).encode()
    return head + pd.util.hash_pandas_object(df, index=False).to_numpy().tobytes()


def _run_text(path: pathlib.Path) -> bytes:
    parts = sorted(path.glob("*.parquet"))
    return b"".join(_frame_text(pd.read_parquet(p)) for p in parts)


def cases(tmp: pathlib.Path):
    """Yield ``(name, bytes)`` for every case."""
    for g in games.GAMES:
        spec = games.get(g)
        yield f"rules {g}", _command(["rules", g]).encode()
        for players in spec.players:
            for unit, count in SIZES[g].items():
                if unit == "hands" and "hand" not in spec.units:
                    continue
                for pol in POLICIES[g]:
                    if pol.startswith("expert") and unit == "games":
                        continue
                    n = count // 10 if pol.startswith("expert") else count
                    out = tmp / f"{g}-{players}-{unit}-{pol}"
                    argv = ["simulate", g, "--players", str(players), f"--{unit}", str(n),
                            "--policy", pol, "--seed", "11", "--chunk", str(max(1, n // 3)),
                            "--no-progress", "--out", str(out)]
                    text = _command(argv).replace(str(out), "<out>").encode()
                    yield " ".join(argv[:-2]), text + _run_text(out)
            if "hand" in spec.units and spec.unit("hand").aggregate is not None:
                out = tmp / f"{g}-{players}-aggregate"
                argv = ["simulate", g, "--players", str(players), "--hands", "20000",
                        "--aggregate", "--seed", "5", "--no-progress", "--out", str(out)]
                text = _command(argv).replace(str(out), "<out>").encode()
                yield " ".join(argv[:-2]), text + _run_text(out)
            shown = POLICIES[g][:3] + (["expert:worlds=4"] if g == "pepper" else [])
            for pol in shown:
                for index in range(3):
                    argv = ["show", g, "--players", str(players), "--policy", pol,
                            "--seed", "11", "--hand", str(index)]
                    record = _command(argv)
                    yield " ".join(argv), record.encode()
                    path = tmp / "record.txt"
                    path.write_text(record)
                    yield "replay of " + " ".join(argv), _command(["replay", str(path)]).encode()
    hand = {4: "JH JD AH KH 9C 9S", 3: "JH JD AH KH 9C 9S QH 10H", 2: "JH JD AH KH 9C 9S QH 10H"}
    for players, extra, samples in ((4, ["--bound"], "3000"), (3, [], "3000"), (2, [], "3000"),
                                    (4, ["--policy", "expert:worlds=4"], "300")):
        argv = ["advise", "pepper", "--hand", hand[players], "--players", str(players),
                "--samples", samples, "--seed", "2", "--json", *extra]
        yield " ".join(argv), _command(argv).encode()
    argv = ["advise", "pepper", "--hand", hand[4], "--samples", "2000", "--score", "7:3",
            "--games", "300", "--json"]
    yield " ".join(argv), _command(argv).encode()
    for players in (4, 6):
        argv = ["advise", "pitch", "--hand", "AS KS QS 2S 5H 9D", "--players", str(players),
                "--samples", "3000", "--seed", "2", "--json"]
        yield " ".join(argv), _command(argv).encode()
    for g, variants in (("pepper", ["auction=one_lap"]), ("pitch", ["low=dealt"]),
                        ("shiesta", ["higher=equal"]), ("burraco", ["stock_end=finish"])):
        n = {"pepper": "20000", "pitch": "20000", "shiesta": "2000", "burraco": "200"}[g]
        unit = "--games" if g == "shiesta" else "--hands"
        argv = ["compare", g, "--variant", "A:", "--variant", "B:" + variants[0], unit, n,
                "--seed", "4", "--json", "--no-progress"]
        yield " ".join(argv), _command(argv).encode()
        argv = ["tournament", g, "--policy", "heuristic", "--policy", "classic",
                unit, str(int(n) // 4), "--seed", "4", "--json", "--no-progress",
                "--out", str(tmp / f"tournament-{g}")]
        yield " ".join(argv[:-2]), _command(argv).replace(str(tmp), "<tmp>").encode()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--write", metavar="FILE", help="write every case's digest")
    what.add_argument("--check", metavar="FILE", help="compare with the digests in FILE")
    p.add_argument("--save", metavar="DIR", help="also keep every output here")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    digests: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in cases(pathlib.Path(tmp)):
            digests[name] = hashlib.sha256(data).hexdigest()
            if args.save:
                keep = pathlib.Path(args.save) / (re.sub(r"[^\w.=-]+", "_", name)[:150] + ".out")
                keep.parent.mkdir(parents=True, exist_ok=True)
                keep.write_bytes(data)
            print(f"{digests[name][:12]}  {name}", file=sys.stderr)
    print(f"{len(digests)} cases in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if args.write:
        pathlib.Path(args.write).write_text(json.dumps(digests, indent=1) + "\n")
        return 0
    before = json.loads(pathlib.Path(args.check).read_text())
    differ = [k for k in before if digests.get(k) != before[k]]
    for k in differ:
        print(("missing  " if k not in digests else "differs  ") + k)
    for k in digests.keys() - before.keys():
        print("new      " + k)
    print(f"{len(before) - len(differ)} of {len(before)} cases identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
