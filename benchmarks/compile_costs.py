"""Where first-start time goes: what each kernel costs to compile, how often
numba types each inlined function again, and what inlining gives in speed.

    python benchmarks/compile_costs.py --static            # seconds: the inlining table
    python benchmarks/compile_costs.py [--modes declared never] [--json > FILE]
    python benchmarks/compile_costs.py --load FILE           # the tables of a saved run

``--static`` reads the kernel modules' source: for every function compiled
``inline=True`` (:func:`simkit.base.jit.kernel`), its lines and how many
copies of its body numba types, summed over every compiled function that
reaches it through inlined calls (a function inlined at 3 sites of a function
that is itself inlined twice is typed 6 times).  Copies times lines is the
share of compile work it makes.

The measured part runs, for each inlining mode (``SIMKIT_INLINE``:
``declared``, as the code says; ``never``, no function inlined; or a list of
function names not inlined), every warm-up step (``simkit.bygame.warm``) in a
fresh process of one thread with an empty kernel cache of its own, and
records numba's compile events: the seconds of each compiled function,
without the functions it compiled on the way (its own share).  Then, on that
cache, ``simkit bench --json`` with one thread: each case's rate as a ratio
to the yardstick of the same run.  Run the modes back to back on an idle
machine; compare ratios, not rates.  ``--load`` takes what ``--json``
printed, or a file ``benchmarks/save_results.py compile_costs`` wrote.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "simkit"


# --- the static table -------------------------------------------------------------------

def _is_inline_kernel(node: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Call) and getattr(d.func, "id", None) == "kernel"
               and any(k.arg == "inline" and getattr(k.value, "value", False)
                       for k in d.keywords)
               for d in node.decorator_list)


def _is_kernel(node: ast.FunctionDef) -> bool:
    return any(getattr(d, "id", None) == "kernel"
               or getattr(getattr(d, "func", None), "id", None) == "kernel"
               for d in node.decorator_list)


def _module_name(path: pathlib.Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def read_kernels() -> tuple[dict[str, dict], dict[str, list[str]]]:
    """Every kernel function (``module:name``) with its lines and whether it is
    inlined, and the kernel functions each one calls (one entry per call site)."""
    funcs: dict[str, dict] = {}
    calls: dict[str, list[str]] = {}
    trees = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        mod = _module_name(path)
        trees[mod] = tree
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and _is_kernel(node):
                funcs[f"{mod}:{node.name}"] = {
                    "lines": node.end_lineno - node.lineno + 1,
                    "inline": _is_inline_kernel(node)}
    for mod, tree in trees.items():
        names: dict[str, str] = {}          # a name in this module -> module:function
        aliases: dict[str, str] = {}        # a module alias -> module
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    key = f"{node.module}:{a.name}"
                    if key in funcs:
                        names[a.asname or a.name] = key
                    elif f"{node.module}.{a.name}" in trees:
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.FunctionDef) and f"{mod}:{node.name}" in funcs:
                names[node.name] = f"{mod}:{node.name}"
        for node in tree.body:
            if not (isinstance(node, ast.FunctionDef) and f"{mod}:{node.name}" in funcs):
                continue
            sites = []
            for c in ast.walk(node):
                if not isinstance(c, ast.Call):
                    continue
                f = c.func
                if isinstance(f, ast.Name) and f.id in names:
                    sites.append(names[f.id])
                elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                        and f.value.id in aliases \
                        and f"{aliases[f.value.id]}:{f.attr}" in funcs:
                    sites.append(f"{aliases[f.value.id]}:{f.attr}")
            calls[f"{mod}:{node.name}"] = sites
    return funcs, calls


def copies(funcs: dict[str, dict], calls: dict[str, list[str]]) -> dict[str, int]:
    """How many times numba types each function's body: once for a function
    compiled on its own (per signature: counted once), and for an inlined one
    once per call site in every copy of its callers."""
    memo: dict[str, int] = {}
    callers: dict[str, list[str]] = collections.defaultdict(list)
    for g, sites in calls.items():
        for f in sites:
            callers[f].append(g)

    def count(f: str, path: tuple[str, ...] = ()) -> int:
        if f in memo:
            return memo[f]
        if not funcs[f]["inline"]:
            n = 1
        else:
            n = sum(count(g, (*path, f)) for g in callers[f] if g not in path)
        memo[f] = n
        return n
    return {f: count(f) for f in funcs}


def static_table() -> list[dict]:
    """One row per kernel function: its lines, inlined or not, call sites and the
    copies of its body numba types; largest share (copies x lines) first."""
    funcs, calls = read_kernels()
    n = copies(funcs, calls)
    sites = collections.Counter(f for s in calls.values() for f in s)
    rows = [{"function": f, "lines": v["lines"], "inline": v["inline"], "sites": sites[f],
             "copies": n[f], "typed_lines": n[f] * v["lines"]} for f, v in funcs.items()]
    return sorted(rows, key=lambda r: -r["typed_lines"])


# --- the measured part -------------------------------------------------------------------

def worker(step: str) -> None:
    """In this process: run warm-up step ``step`` and print its compile events as
    JSON records (function, seconds, own seconds)."""
    from numba.core import event

    from simkit.bygame import warm
    with event.install_recorder("numba:compile") as rec:
        t0 = time.perf_counter()
        warm.main([step])
        wall = time.perf_counter() - t0
    stack: list[list] = []
    out = []
    for t, e in rec.buffer:
        name = e.data["dispatcher"].py_func.__module__ + ":" + \
            e.data["dispatcher"].py_func.__name__
        if e.is_start:
            stack.append([name, t, 0.0])
        else:
            fn, start, nested = stack.pop()
            took = t - start
            if stack:
                stack[-1][2] += took
            out.append({"function": fn, "seconds": took, "own_seconds": took - nested})
    print(json.dumps({"step": step, "wall_s": wall, "compiles": out}))


def measure(mode: str, threads: int = 1) -> dict:
    """Compile every warm-up step with an empty cache in inlining ``mode``, one
    step a process, then ``simkit bench --json`` on that cache."""
    from simkit.bygame import warm
    env = {**os.environ, "SIMKIT_INLINE": mode, "NUMBA_NUM_THREADS": str(threads)}
    steps = []
    with tempfile.TemporaryDirectory() as cache:
        env["SIMKIT_CACHE_DIR"] = cache
        for step in warm.every_step():
            done = subprocess.run([sys.executable, __file__, "--worker", step], env=env,
                                  check=True, capture_output=True, text=True)
            steps.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f"  {mode}: {step} compiled in {steps[-1]['wall_s']:.1f} s", file=sys.stderr)
        bench = subprocess.run([sys.executable, "-m", "simkit.app.cli", "bench", "--json",
                                "--hands", "1000000"], env=env, check=True,
                               capture_output=True, text=True)
    return {"mode": mode, "steps": steps, "bench": json.loads(bench.stdout)}


def _ratios(bench: list[dict]) -> dict[str, float]:
    """Each bench case's rate over the yardstick's, as ``simkit bench`` reports it."""
    return {f"{r['game']} {r['case']} {r['players']}p": r["vs_yardstick"]
            for r in bench if r["threads"] == 1}


def report(results: list[dict]) -> None:
    """Print the per-step and per-kernel compile seconds and the bench ratios, a
    column per mode."""
    # a list of names makes a long label: columns are headed by a short one
    modes = [r["mode"] if len(r["mode"]) <= 11 else f"mode {k + 1}" for k, r in enumerate(results)]
    for label, r in zip(modes, results):
        if label != r["mode"]:
            print(f"{label}: SIMKIT_INLINE={r['mode']}")
    print("compile seconds per warm-up step (one process, one thread, empty cache)")
    print(f"{'step':<18}" + "".join(f"{m:>12}" for m in modes))
    for i, s in enumerate(results[0]["steps"]):
        print(f"{s['step']:<18}" + "".join(f"{r['steps'][i]['wall_s']:>12.1f}" for r in results))
    print(f"{'total':<18}" + "".join(f"{sum(s['wall_s'] for s in r['steps']):>12.1f}"
                                     for r in results))
    print("\nown compile seconds of the costliest functions (first mode's order)")
    own = [collections.Counter() for _ in results]
    for k, r in enumerate(results):
        for s in r["steps"]:
            for c in s["compiles"]:
                own[k][c["function"]] += c["own_seconds"]
    print(f"{'function':<52}" + "".join(f"{m:>12}" for m in modes))
    for fn, _ in own[0].most_common(25):
        print(f"{fn:<52}" + "".join(f"{o[fn]:>12.1f}" for o in own))
    print("\nsimkit bench, one thread: ratio to the yardstick")
    ratios = [_ratios(r["bench"]) for r in results]
    print(f"{'case':<40}" + "".join(f"{m:>12}" for m in modes))
    for case in ratios[0]:
        print(f"{case:<40}" + "".join(f"{r.get(case, float('nan')):>12.3g}" for r in ratios))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--static", action="store_true", help="only the inlining table (seconds)")
    ap.add_argument("--modes", nargs="+", default=["declared", "never"],
                    help="SIMKIT_INLINE values to measure, back to back (default: declared never)")
    ap.add_argument("--top", type=int, default=30, help="rows of the inlining table")
    ap.add_argument("--json", action="store_true", help="print JSON instead of tables")
    ap.add_argument("--load", metavar="FILE", help="print the tables of a saved --json run")
    ap.add_argument("--worker", metavar="STEP", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker)
        return
    if a.load:
        with open(a.load) as f:
            saved = json.load(f)
        report(saved.get("records", saved)["results"])   # as printed, or as saved
        return
    table = static_table()
    if a.static:
        if a.json:
            print(json.dumps(table))
            return
        inl = [r for r in table if r["inline"]]
        print(f"{len(inl)} functions compiled inline=True; their bodies are typed "
              f"{sum(r['copies'] for r in inl):,} times, {sum(r['typed_lines'] for r in inl):,} "
              f"lines in all (the functions compiled on their own: "
              f"{sum(r['lines'] for r in table if not r['inline']):,} lines)")
        print(f"{'function':<52}{'lines':>7}{'sites':>7}{'copies':>8}{'typed':>9}")
        for r in inl[:a.top]:
            print(f"{r['function']:<52}{r['lines']:>7}{r['sites']:>7}{r['copies']:>8}"
                  f"{r['typed_lines']:>9,}")
        return
    results = [measure(m) for m in a.modes]
    if a.json:
        print(json.dumps({"static": table, "results": results}))
    else:
        report(results)


if __name__ == "__main__":
    main()
