"""How long a comparison with adapted players takes, the first time and again.

    python benchmarks/compare_adapt.py [--game pepper] [--variant A: --variant B:fail=bid]
                                       [--threads N] [--json] [-- EXTRA OPTIONS...]

Runs ``simkit compare GAME --variant ... --adapt --out DIR --json`` twice in
child processes with an empty ``DIR`` the first time (every variant adapted,
``--adapt-seeds`` times: tuning rounds, each a pruned search, its changes
tested and a confirmation on fresh deals, then the best-response check) and
the same ``DIR`` the second (the kept adaptations reused: the comparison is
still played once per adaptation), the kernels compiled before either (a
warm-up run not timed).  Prints both wall times, each adaptation's setting
and rounds, and the contract shares with their findings (for games with
bids); ``--json`` prints the same as one record, which
``save_results.py compare_adapt`` keeps for the variants guide and the
Performance page.  The targets on a 2-core machine (issue 52): the first
run within 4 minutes, the second within 20 s.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time


def run(argv: list[str]) -> tuple[float, dict]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "simkit.app.cli", *argv], check=True,
                         capture_output=True, text=True).stdout
    return time.perf_counter() - t0, json.loads(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="pepper")
    p.add_argument("--variant", action="append")
    p.add_argument("--threads", type=int)
    p.add_argument("--json", action="store_true", help="print one JSON record")
    p.add_argument("extra", nargs="*", help="more options for simkit compare")
    a = p.parse_args()
    variants = a.variant or ["A:", "B:fail=bid"]
    base = ["compare", a.game, *(f"--variant={v}" for v in variants), "--json",
            "--no-progress", *(["--threads", str(a.threads)] if a.threads else []), *a.extra]
    run([*base, "--hands", "1000", "--games", "100", "--no-skill"])      # compile, untimed
    with tempfile.TemporaryDirectory() as tmp:
        first, res = run([*base, "--adapt", "--out", tmp])
        again, res2 = run([*base, "--adapt", "--out", tmp])
    assert all(v["adapted"]["reused"] for v in res2["tables"]["variants"]), \
        "the second run adapted again"
    command = (f"simkit compare {a.game} {' '.join('--variant ' + v for v in variants)} "
               "--adapt")
    record = {"command": command, "hands": res["hands"], "games": res["games"],
              "first_s": round(first, 1), "again_s": round(again, 1),
              "adaptations": {v["label"]: [{"setting": e["setting"], "rounds": e["rounds"],
                                            "changed": e["changed"], "capped": e["capped"]}
                                           for e in v["adapted"]["by_adaptation"]]
                              for v in res["tables"]["variants"]},
              "bids": [{"bid": r["bid"], "a": r["rate_a"], "b": r["rate_b"],
                        "diffs": [e["diff"] for e in r["by_adaptation"]],
                        "finding": r["finding"]} for r in res["tables"].get("bids", [])]}
    if a.json:
        print(json.dumps(record))
        return
    print(f"{command} (defaults: {res['hands']} hands, {res['games']} games per variant)")
    print(f"  first run (every variant adapted): {first:.1f} s")
    print(f"  second run (kept adaptations):     {again:.1f} s")
    for label, each in record["adaptations"].items():
        for k, e in enumerate(each):
            print(f"  {label}, adaptation {k + 1}: {e['rounds']} round(s)"
                  + (" (capped)" if e["capped"] else "") + f": {e['setting']}")
    for r in record["bids"]:
        diffs = " / ".join(f"{100 * d:+.2f}" for d in r["diffs"])
        print(f"  bid {r['bid']}: {100 * r['a']:.2f}% -> {100 * r['b']:.2f}% ({diffs} points): "
              f"{r['finding']}")


if __name__ == "__main__":
    main()
