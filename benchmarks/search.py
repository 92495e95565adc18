"""How long a rule search takes: issue 55's 30-trial, one-objective Pepper search.

    python benchmarks/search.py [--trials 30] [--threads N] [--json] [--save]

Runs ``simkit search pepper --rule target=20:80 --goal "hands per game:
mean=15" --trials 30 --json`` (default players, default sizes: 20,000 whole
games a trial, pruned in rungs) in a child process, after an untimed
warm-up search of two small trials that compiles or loads the kernels.
Prints the wall time, the trials stopped early by the pruner, the games the
trials played against what they would have played unpruned, the answer and
its confirmed interval, and whether the target (issue 55: within 3 minutes
on a 2-core machine) is met.  ``--json`` prints the same as one record;
``--save`` also keeps it, dated and with the machine, in
``benchmarks/results/search.json``, which the Performance page shows.

``--adapt``: instead, a search of Kubwa's stake (``bids_kubwa_share>=1%``,
the shortest games) with every setting's players adapted at the default
sizes, twice on the same ``--out`` (the second reuses every adaptation and
trial): both wall times and the seconds per trial; ``--save`` keeps
``benchmarks/results/search_adapt.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET_SECONDS = 180
GOAL = "hands per game: mean=15"


def run(argv: list[str]) -> tuple[float, dict]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "simkit.app.cli", *argv], check=True,
                         capture_output=True, text=True, cwd=ROOT).stdout
    return time.perf_counter() - t0, json.loads(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", type=int, default=30)
    p.add_argument("--threads", type=int)
    p.add_argument("--json", action="store_true", help="print one JSON record")
    p.add_argument("--save", action="store_true",
                   help="keep the record in benchmarks/results/search.json")
    p.add_argument("--adapt", action="store_true",
                   help="instead: an adapted search (see adapted()), first and again")
    a = p.parse_args()
    if a.adapt:
        adapted(a)
        return
    base = ["search", "pepper", "--rule", "target=20:80", "--goal", GOAL, "--json",
            "--no-progress", *(["--threads", str(a.threads)] if a.threads else [])]
    run([*base, "--trials", "2", "--games", "300"])            # compile, untimed
    seconds, res = run([*base, "--trials", str(a.trials)])
    played = sum(t["units"].get("game", 0) for t in res["trials"])
    full = len(res["trials"]) * res["units"]["game"]
    best = res["tables"]["front"][0]
    v = best["measures"]["hands per game: mean"]
    record = {"command": f'simkit search pepper --rule target=20:80 --goal "{GOAL}" '
                         f"--trials {a.trials}",
              "trials": len(res["trials"]), "pruned": res["pruned"],
              "games_per_trial": res["units"]["game"], "games_played": played,
              "games_unpruned": full, "seconds": round(seconds, 1),
              "seconds_per_trial": round(seconds / max(1, len(res["trials"])), 2),
              "best": best["rules"], "mean": round(v["value"], 3),
              "ci": [round(v["ci_low"], 3), round(v["ci_high"], 3)],
              "target_s": TARGET_SECONDS, "target_met": seconds < TARGET_SECONDS}
    if a.save:
        _save(record, "search.json", "python benchmarks/search.py --json")
    if a.json:
        print(json.dumps(record))
        return
    print(record["command"])
    print(f"  {seconds:.1f} s for {record['trials']} trials ({record['pruned']} stopped early "
          f"by the pruner; {played:,} games played of {full:,} unpruned), confirmation "
          "included")
    print(f"  answer: {best['rules']}: mean {v['value']:.3f} [{v['ci_low']:.3f}, "
          f"{v['ci_high']:.3f}] hands per game")
    print(f"  target: within {TARGET_SECONDS} s: {'met' if record['target_met'] else 'MISSED'}")


ADAPT_GOALS = ["--rule", "kubwa_stake=1:4", "--goal", "bids_kubwa_share>=1%", "--minimize",
               "hands per game: mean"]


def adapted(a: argparse.Namespace) -> None:
    """``--adapt``: a search of Kubwa's stake for short games with Kubwa still bid
    on 1% of hands, every setting's players adapted at the default sizes, in a
    child process with an empty ``--out``, then again on the same folder (every
    adaptation and trial kept): both wall times, seconds per trial, the
    adaptations made, and the answer."""
    import tempfile

    argv = ["search", "pepper", *ADAPT_GOALS, "--trials", str(a.trials), "--adapt", "--json",
            "--no-progress", *(["--threads", str(a.threads)] if a.threads else [])]
    run(["search", "pepper", *ADAPT_GOALS, "--trials", "2", "--games", "300", "--hands",
         "3000", "--json", "--no-progress"])                     # compile, untimed
    with tempfile.TemporaryDirectory() as tmp:
        first, res = run([*argv, "--out", tmp])
        adaptations = len(list((pathlib.Path(tmp) / "adapt").iterdir()))
        again, _ = run([*argv, "--out", tmp])
    front = res["tables"]["front"]
    record = {"command": "simkit search pepper " + " ".join(
                  f'"{x}"' if " " in x else x for x in ADAPT_GOALS)
              + f" --trials {a.trials} --adapt",
              "trials": len(res["trials"]), "pruned": res["pruned"],
              "adaptations": adaptations, "first_s": round(first, 1),
              "per_trial_s": round(first / max(1, len(res["trials"])), 1),
              "again_s": round(again, 1),
              "answer": res["answer_text"],
              "settings": {json.dumps(t["rules"]): t.get("setting") for t in res["trials"]},
              "front": [p["rules"] for p in front]}
    if a.save:
        _save(record, "search_adapt.json", f"python benchmarks/search.py --adapt --trials "
                                            f"{a.trials} --save")
    print(json.dumps(record, indent=None if a.json else 1))


def _save(record: dict, name: str, command: str) -> None:
    """Keep ``record``, dated and with the machine, in ``benchmarks/results/NAME``."""
    from save_results import machine  # beside this script

    kept = {"measured_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "machine": machine(), "command": command, "records": record}
    path = ROOT / "benchmarks" / "results" / name
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(kept, indent=1) + "\n")
    tmp.replace(path)


if __name__ == "__main__":
    main()
