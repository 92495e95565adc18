"""The ``simkit`` command.

Every problem with the user's input is an :class:`~simkit.errors.InputError`:
it is printed as one line (``simkit: error: ...``) and the exit code is 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from simkit import games
from simkit.errors import InputError
from simkit.games import GAMES


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message):
        raise InputError(f"{message} (see '{self.prog} --help')")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of at least 1")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 0 to 2**64-1")
    return value


def _game(text: str) -> str:
    try:
        return games.check(text)
    except InputError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _rules_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, help="number of players")
    p.add_argument("--preset", default="seed", help="named rule set (see 'simkit rules GAME')")
    p.add_argument("--rules", metavar="FILE.toml", help="rule values from a TOML file")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                   help="override one rule (repeatable)")
    p.add_argument("--policy", metavar="NAME[:k=v,...]", action="append",
                   help="policy for every seat, or repeat once per seat")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="simkit", description="Monte Carlo simulation of Pepper, Pitch, "
                     "Shiesta and Burraco.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("simulate", help="play hands or whole games, write Parquet, print a summary")
    p.add_argument("game", type=_game)
    _rules_options(p)
    size = p.add_mutually_exclusive_group()
    size.add_argument("--hands", type=_positive, help="hands to play (default 100000; "
                      "Shiesta: games only)")
    size.add_argument("--games", type=_positive, help="whole games to play instead of hands "
                      "(Pitch: money sessions, rules session_hands, target, leave, join)")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--out", metavar="DIR",
                   help="write the run into this directory (e.g. runs/pepper.parquet): "
                        "_manifest.json and one Parquet part per chunk; the same command "
                        "again resumes an interrupted run")
    p.add_argument("--aggregate", action="store_true",
                   help="with --hands: keep only counts and sums per group of hands (bid, "
                        "made, bidder's hand class, seat; Pepper computes them in the kernel); "
                        "memory does not grow with the run")
    p.add_argument("--chunk", type=_positive,
                   help="hands (or games) per chunk, the unit of resuming and of work "
                        "(default: 1000000 hands, 100000 games, 10000000 aggregated hands)")
    p.add_argument("--backend", choices=("threads", "dask"),
                   help="threads (default: this process, all cores) or dask (a local "
                        "dask.distributed cluster, or --scheduler)")
    p.add_argument("--workers", type=_positive,
                   help="--backend dask: local worker processes (default: one per core)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="--backend dask: use this existing cluster (--out must be on a "
                        "filesystem every worker shares)")
    p.add_argument("--threads", type=_positive, help="threads (default: all cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")

    p = sub.add_parser("report", help="run studies and render their HTML reports")
    p.add_argument("studies", nargs="*", metavar="STUDY",
                   help="study names, or 'all' (the default); see 'simkit report --list'")
    p.add_argument("--list", action="store_true", help="list the studies and exit")
    p.add_argument("--hands", type=_positive,
                   help="hands per simulated table (default: each study's own size)")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--out", default="reports", help="output directory (default: reports)")
    p.add_argument("--threads", type=_positive, help="threads (default: all cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")

    p = sub.add_parser("rules", help="print a game's rules, variants and defaults")
    p.add_argument("game", type=_game)

    p = sub.add_parser("bench", help="measure kernel throughput")
    p.add_argument("games", nargs="*", type=_game, help="games to measure (default: all)")
    p.add_argument("--json", action="store_true", help="print JSON records")
    p.add_argument("--hands", type=_positive, default=2_000_000, help="hands per measurement")

    p = sub.add_parser("advise", help="what to bid with a hand: each bid's chance, EV and, "
                       "with --score, chance to win the game")
    p.add_argument("game", type=_game)
    p.add_argument("--hand", required=True, help='the hand, e.g. "JH JD AH KH QH 9S"')
    _rules_options(p)
    p.add_argument("--seat", type=int, help="the hand's seat (default: left of the dealer)")
    p.add_argument("--dealer", type=int, default=0, help="the dealer's seat (default 0)")
    p.add_argument("--samples", type=_positive, default=100_000,
                   help="deals of the unseen cards (default 100000)")
    p.add_argument("--score", metavar="US:THEM",
                   help="game score, the hand's side first (3 players: US:THEM or US:LEFT:RIGHT; "
                        "a negative first score as --score=-6:12): adds each bid's chance to win")
    p.add_argument("--games", type=_positive, default=10_000,
                   help="with --score: games played out from each position (default 10000)")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--threads", type=_positive, help="threads (default: all cores)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("compare", help="two rule variants on the same deals: contracts, "
                       "scores and games, with differences, intervals and p-values")
    p.add_argument("game", type=_game)
    p.add_argument("--variant", metavar="LABEL:key=value[,...]", action="append", default=[],
                   help="a rule variant; exactly two, e.g. --variant A: --variant B:all_pass=stick")
    p.add_argument("--players", type=int, default=4, help="number of players (default 4)")
    p.add_argument("--policy", metavar="NAME[:k=v,...]", action="append",
                   help="policy for every seat, or repeat once per seat")
    p.add_argument("--hands", type=_positive, default=1_000_000,
                   help="hands per variant (default 1000000)")
    p.add_argument("--games", type=_positive, default=20_000,
                   help="whole games per variant (default 20000)")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--threads", type=_positive, help="threads (default: all cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _summary_part(game, rules, unit, df):
    """One chunk's contribution to the summary table (runs where the chunk is made)."""
    summary = games.part(game, "summary").Summary(rules, unit)
    summary.add(df)
    return summary.parts[0]


def _cmd_simulate(a) -> int:
    import functools

    from simkit import chunks

    rules, pols = _rules_and_policies(a)
    units = games.UNITS[a.game]
    if a.aggregate and not hasattr(games.part(a.game, "api"), "agg_chunk"):
        raise InputError(f"--aggregate is not offered for {a.game}: its runs keep one record "
                         f"per {units[0]}")
    if a.hands and "hand" not in units:
        raise InputError(f"{a.game} is played in whole games, not hands: use --games N")
    if a.games or "hand" not in units:
        unit, count = "game", a.games or 100_000
    else:
        unit, count = "hand", a.hands or 100_000
    if a.aggregate and unit == "game":
        raise InputError("--aggregate works with --hands only (aggregates of hands)")
    backend = a.backend or ("dask" if a.scheduler else "threads")
    spec = {"rules": rules.as_dict(), "policies": [p.text() for p in pols], "seed": a.seed}
    job = chunks.Job.make(a.game, unit, count, spec,
                          kind="aggregate" if a.aggregate else "records", chunk=a.chunk)
    reduce = None if a.aggregate else functools.partial(_summary_part, a.game, rules, unit)
    try:
        result = chunks.run(job, a.out, backend=backend, threads=a.threads, workers=a.workers,
                            scheduler=a.scheduler, progress=not a.no_progress, reduce=reduce)
    except chunks.Interrupted as e:
        print(f"simkit: {e}", file=sys.stderr)
        return 130
    summary = games.part(a.game, "summary").Summary(rules, unit)
    if a.aggregate:
        summary.add_aggregate(result.aggregate)
    else:
        summary.parts = result.values
    if result.complete_before:
        print(f"{a.out} already holds this run, complete; nothing to compute\n")
    print(summary.text())
    done = result.units_computed
    rate = done / result.seconds if result.seconds > 0 else float("inf")
    what = "aggregated " if a.aggregate else ""
    unit = "session" if unit == "game" and a.game == "pitch" else unit
    line = f"\n{count:,} {what}{unit}s, seed {a.seed}"
    if result.resumed and not result.complete_before:
        line += (f" ({result.resumed} of {job.chunks} chunks were already done; "
                 f"{done:,} {unit}s computed now)")
    if done:
        line += f", {result.seconds:.2f} s ({rate:,.0f} {unit}s/s)"
    if a.out:
        line += f"; {'in' if result.complete_before else 'written to'} {a.out}"
    print(line)
    return 0


def _rules_and_policies(a):
    """The validated rules and per-seat policies of a command's game options."""
    from simkit.config import parse_assignments
    rules = games.part(a.game, "rules").make_rules(a.preset, a.rules, parse_assignments(a.set),
                                                   a.players)
    return rules, games.part(a.game, "policies").make_policies(a.policy, rules.players)


def _cmd_rules(a) -> int:
    rmod = games.part(a.game, "rules")
    pmod = games.part(a.game, "policies")
    print(f"{rmod.TITLE} rules; the rule book is {rmod.BOOK}\n")
    rows = rmod.RULES.describe()
    w = max(len(r[0]) for r in rows)
    for key, default, accepted, doc in rows:
        print(f"  {key:<{w}}  default {default:<7} ({accepted})\n  {'':<{w}}  {doc}")
    print("\nPresets (--preset NAME):")
    for name, values in rmod.PRESETS.items():
        text = ", ".join(f"{k}={v}" for k, v in values.items()) or "the seed documents' rules"
        print(f"  {name:<18} {text}")
    print("\nPolicies (--policy NAME[:key=value,...]):")
    for name, cls in pmod.POLICIES.items():
        print(f"  {name}")
        for key, default, accepted, doc in cls.describe():
            print(f"    {key} = {default} ({accepted}): {doc}")
    return 0


def _cmd_bench(a) -> int:
    from simkit.bench import run_bench

    records = run_bench(a.games or list(GAMES), hands=a.hands)
    if a.json:
        print(json.dumps(records, indent=1))
    else:
        for r in records:
            print(f"{r['game']:<8} {r['players']}p {r['threads']} thread(s): "
                  f"{r['rate']:>13,.0f} {r['unit']}s/s  ({r['ns_per_unit']:.0f} ns/{r['unit']})")
    return 0


def _cmd_report(a) -> int:
    import importlib

    from analyses import STUDIES
    from simkit.report import run_studies

    if a.list:
        for name, module in STUDIES.items():
            mod = importlib.import_module(module)
            print(f"{name:<18} {mod.TITLE} (default {mod.DEFAULT_HANDS:,} hands per table)")
        return 0
    t0 = time.perf_counter()
    pages = run_studies(a.studies or ["all"], hands=a.hands, seed=a.seed, out=a.out,
                        progress=not a.no_progress, threads=a.threads)
    for page in pages:
        print(page)
    print(f"{len(pages)} report(s) in {time.perf_counter() - t0:.1f} s; index: {a.out}/index.html")
    return 0


def _cmd_advise(a) -> int:
    if not games.has_part(a.game, "advise"):
        raise InputError(f"simkit advise is for games with bids ("
                         f"{', '.join(g for g in GAMES if games.has_part(g, 'advise'))}), "
                         f"not {a.game}")
    rules, pols = _rules_and_policies(a)
    mod = games.part(a.game, "advise")
    advice = mod.advise(a.hand, players=rules.players, seat=a.seat, dealer=a.dealer,
                        samples=a.samples, score=a.score, rules=rules, policy=pols,
                        seed=a.seed, threads=a.threads, games=a.games)
    print(json.dumps(mod.advice_json(advice), indent=1) if a.json else mod.format_advice(advice))
    return 0


def _cmd_compare(a) -> int:
    from simkit.pepper.compare import comparison_json, compare, format_comparison

    if a.game != "pepper":
        raise InputError(f"simkit compare plays Pepper only so far, not {a.game}: compare "
                         f"{a.game} variants with simkit report or simkit simulate --set")
    t0 = time.perf_counter()
    result = compare(a.variant, players=a.players, hands=a.hands, games=a.games, seed=a.seed,
                     policy=a.policy, threads=a.threads, progress=not a.no_progress)
    if a.json:
        print(json.dumps(comparison_json(result), indent=1))
    else:
        print(format_comparison(result))
        print(f"\n{time.perf_counter() - t0:.2f} s")
    return 0


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return {"simulate": _cmd_simulate, "rules": _cmd_rules, "bench": _cmd_bench,
                "advise": _cmd_advise, "compare": _cmd_compare,
                "report": _cmd_report}[args.command](args)
    except InputError as e:
        print(f"simkit: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("simkit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:      # output piped into e.g. `head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
