"""The ``simkit`` command.

Every problem with the user's input is an :class:`~simkit.errors.InputError`:
it is printed as one line (``simkit: error: ...``) and the exit code is 2.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time

from simkit import answers, engine, games
from simkit.errors import InputError


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message):
        raise InputError(f"{message} (see '{self.prog} --help')")


def _integer(text: str) -> int:
    """A whole number as typed: ASCII digits, a sign allowed (``int`` would also
    take other scripts' digits, ``"１０"``, and underscores)."""
    if not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(text)


def _whole(text: str, lo: int) -> int:
    value = _integer(text)
    if value < lo:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of at least {lo}")
    return value


def _positive(text: str) -> int:
    return _whole(text, 1)


def _index(text: str) -> int:
    return _whole(text, 0)


def _seed(text: str) -> int:
    value = _integer(text)
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 0 to 2**64-1")
    return value


def _port(text: str) -> int:
    value = _integer(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a port from 1 to 65535")
    return value


def _game(text: str) -> str:
    try:
        return games.check(text)
    except InputError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _rules_options(p: argparse.ArgumentParser,
                   policy_help: str = "policy for every seat, or repeat once per seat") -> None:
    p.add_argument("--players", type=_integer, help="number of players")
    p.add_argument("--preset", default="seed", help="named rule set (see 'simkit rules GAME')")
    p.add_argument("--rules", metavar="FILE.toml", help="rule values from a TOML file")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                   help="override one rule (repeatable)")
    p.add_argument("--policy", metavar="NAME[:k=v,...]", action="append", help=policy_help)


def _backend_options(p: argparse.ArgumentParser) -> None:
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


def _run_options(p: argparse.ArgumentParser, *, progress: bool = True,
                 json_out: bool = False) -> None:
    """--seed and --threads, and --no-progress and --json where the command has them."""
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--threads", type=_positive, help="threads (default: all cores)")
    if progress:
        p.add_argument("--no-progress", action="store_true", help="no progress bar")
    if json_out:
        p.add_argument("--json", action="store_true", help="print JSON")


def _simulate_parser(sub) -> None:
    p = sub.add_parser("simulate", help="play hands or whole games, write Parquet, print a summary")
    p.add_argument("game", type=_game)
    _rules_options(p)
    size = p.add_mutually_exclusive_group()
    size.add_argument("--hands", type=_positive, help="hands to play (default 100000; "
                      "for games played in hands)")
    size.add_argument("--games", type=_positive, help="whole games to play instead of hands "
                      "(what a game's records count: see 'simkit rules GAME')")
    _run_options(p)
    p.add_argument("--out", metavar="DIR",
                   help="write the run into this directory (e.g. runs/pepper.parquet): "
                        "_manifest.json and one Parquet part per chunk; the same command "
                        "again resumes an interrupted run")
    p.add_argument("--aggregate", action="store_true",
                   help="with --hands: keep only counts and sums per group of hands (bid, "
                        "made, bidder's hand class, seat); memory does not grow with the run")
    _backend_options(p)


def _tournament_parser(sub) -> None:
    p = sub.add_parser("tournament", help="policies against each other on duplicate deals: "
                       "ratings, pairwise differences, a figure")
    p.add_argument("game", type=_game)
    _rules_options(p, "an entrant (repeat: at least two); a policy plays every seat of "
                      "its side at its tables")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--hands", type=_positive, help="deals every table plays (default "
                      "100000; for games played in hands)")
    size.add_argument("--games", type=_positive, help="whole games every table plays instead "
                      "(default 20000 for games played only in whole games)")
    _run_options(p, json_out=True)
    p.add_argument("--out", metavar="DIR", help="keep the run here (one Parquet part per "
                   "chunk: each table's measure per deal), with _ratings.parquet, "
                   "_pairs.parquet and _ratings.png; the same command again resumes")
    _backend_options(p)


def _report_parser(sub) -> None:
    p = sub.add_parser("report", help="run studies and render their HTML reports")
    p.add_argument("studies", nargs="*", metavar="STUDY",
                   help="study names, or 'all' (the default); see 'simkit report --list'")
    p.add_argument("--list", action="store_true", help="list the studies and exit")
    p.add_argument("--hands", type=_positive,
                   help="hands per simulated table (default: each study's own size)")
    p.add_argument("--out", default="reports", help="output directory (default: reports)")
    _run_options(p)


def _advise_parser(sub) -> None:
    p = sub.add_parser("advise", help="what to bid with a hand: each bidding plan played "
                       "through the whole auction, its EV and, with --score, chance to win")
    p.add_argument("game", type=_game)
    p.add_argument("--hand", help='the hand, e.g. "JH JD AH KH QH 9S"')
    p.add_argument("--from", dest="record", metavar="FILE",
                   help="take the hand, seat, dealer, rules and score from a text record "
                        "(its 'seat' line, else the seat left of the dealer; its 'score' line)")
    _rules_options(p)
    p.add_argument("--seat", type=_integer, help="the hand's seat (default: left of the dealer)")
    p.add_argument("--dealer", type=_integer, help="the dealer's seat (default 0)")
    p.add_argument("--samples", type=_positive, default=100_000,
                   help="deals of the unseen cards (default 100000)")
    p.add_argument("--score", metavar="US:THEM",
                   help="game score, the hand's side first (3 players: US:THEM or US:LEFT:RIGHT; "
                        "a negative first score as --score=-6:12): adds each bid's chance to win")
    p.add_argument("--games", type=_positive, default=10_000,
                   help="with --score: games played out from each position (default 10000)")
    p.add_argument("--plans", metavar="LIST",
                   help="bidding plans to play, comma-separated (default: all; e.g. "
                        "pass,3,kubwa)")
    p.add_argument("--declarer", action="store_true",
                   help="the older figures: each contract played by this hand's side with no "
                        "auction (what the hand is worth if it plays it)")
    p.add_argument("--bound", action="store_true",
                   help="add each contract's perfect-information bound: made as declarer "
                        "with every card visible, the best single trump (pepper)")
    _run_options(p, progress=False, json_out=True)


def _compare_parser(sub) -> None:
    p = sub.add_parser("compare", help="two rule variants on the same deals: each game's "
                       "measures, with differences, intervals and p-values")
    p.add_argument("game", type=_game)
    p.add_argument("--variant", metavar="LABEL:key=value[,...]", action="append", default=[],
                   help="a rule variant; exactly two, e.g. --variant A: --variant B:all_pass=stick")
    p.add_argument("--players", type=_integer,
                   help="number of players (default: the rules' own, 4)")
    p.add_argument("--policy", metavar="NAME[:k=v,...]", action="append",
                   help="policy for every seat, or repeat once per seat")
    p.add_argument("--hands", type=_positive, default=1_000_000,
                   help="hands per variant, for games played in hands (default 1000000)")
    p.add_argument("--games", type=_positive, default=20_000,
                   help="whole games per variant (default 20000)")
    _run_options(p, json_out=True)


def _record_parsers(sub) -> None:
    p = sub.add_parser("show", help="one hand (Shiesta: game) as a run plays it, as a text "
                       "record (seeds/records.md)")
    p.add_argument("game", type=_game, nargs="?", help="the game (with --run: the run's)")
    _rules_options(p)
    p.add_argument("--seed", type=_seed, help="the run's seed (default 0)")
    p.add_argument("--hand", type=_index, help="the hand's number in the run (Shiesta: the "
                   "game's)")
    p.add_argument("--run", metavar="DIR", help="take the game, rules, policies and seed from "
                   "a finished run's manifest")
    p.add_argument("--where", metavar="EXPR", help="with --run: the hands whose records "
                   "match this pandas query, e.g. \"contract == 7 and not made\"")
    p.add_argument("--limit", type=_positive, default=5,
                   help="with --where: at most this many records (default 5)")
    p = sub.add_parser("replay", help="replay a text record with the reference engine, "
                       "checking every move and the score; print it completed")
    p.add_argument("file", help="the record ('-': standard input)")
    p.add_argument("--policy", metavar="NAME[:k=v,...]", action="append",
                   help="play the moves the record leaves out with this policy (every "
                        "seat, or once per seat); default: the record's own policy lines")


def build_parser() -> argparse.ArgumentParser:
    names = [g.capitalize() for g in games.GAMES]
    parser = _Parser(prog="simkit", description="Monte Carlo simulation of "
                     f"{', '.join(names[:-1])} and {names[-1]}.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _simulate_parser(sub)
    _report_parser(sub)
    p = sub.add_parser("rules", help="print a game's rules, variants, defaults and records")
    p.add_argument("game", type=_game)
    p = sub.add_parser("bench", help="measure kernel throughput")
    p.add_argument("games", nargs="*", type=_game, help="games to measure (default: all)")
    p.add_argument("--json", action="store_true", help="print JSON records")
    p.add_argument("--hands", type=_positive, default=2_000_000, help="hands per measurement")
    _advise_parser(sub)
    _compare_parser(sub)
    _tournament_parser(sub)
    _record_parsers(sub)
    p = sub.add_parser("serve", help="the browser app on this machine: click a hand for "
                       "advice, step through any hand, compare rule variants")
    p.add_argument("--port", type=_port, default=8765, help="port (default 8765)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--open", action="store_true", help="open the app in a web browser")
    p.add_argument("--reports", metavar="DIR", default="reports",
                   help="the rendered reports served at /reports/ (default: reports)")
    p = sub.add_parser("verify", help="check a run directory's parts against the sizes and "
                       "checksums its manifest recorded; nothing is changed")
    p.add_argument("run", metavar="RUN", help="the run directory (simulate or tournament --out)")
    return parser


def _summary_part(game, rules, unit, df):
    """One chunk's contribution to the summary table (runs where the chunk is made)."""
    summary = games.get(game).unit(unit).summary(rules)
    summary.add(df)
    return summary.parts[0]


def _run_unit(g, a) -> tuple[str, int]:
    """(unit, count) of a simulate command: --hands or --games, checked against the game."""
    if a.hands:
        g.unit("hand")                      # a game played in whole games refuses hands
        return "hand", a.hands
    if a.games or "hand" not in g.units:
        g.unit("game")
        return "game", a.games or 100_000
    return "hand", 100_000


def _cmd_simulate(a) -> int:
    import functools

    from simkit import chunks, runs

    g = games.get(a.game)
    rules, pols = answers.rules_and_policies(a)
    unit, count = _run_unit(g, a)
    backend = a.backend or ("dask" if a.scheduler else "threads")
    spec = {"rules": rules.as_dict(), "policies": [p.text() for p in pols], "seed": a.seed}
    job = runs.job(a.game, unit, count, spec,
                   kind="aggregate" if a.aggregate else "records", chunk=a.chunk)
    reduce = None if a.aggregate else functools.partial(_summary_part, a.game, rules, unit)
    try:
        result = chunks.run(job, a.out, backend=backend, threads=a.threads, workers=a.workers,
                            scheduler=a.scheduler, progress=not a.no_progress, reduce=reduce)
    except chunks.Interrupted as e:
        print(f"simkit: {e}", file=sys.stderr)
        return 130
    _say_repaired(result.repaired)
    summary = g.unit(unit).summary(rules)
    if a.aggregate:
        summary.add_aggregate(result.aggregate)
    else:
        summary.parts = result.values
    if result.complete_before:
        print(f"{a.out} already holds this run, complete; nothing to compute\n")
    print(summary.text())
    print(_run_line(a, g.unit(unit).label, count, job, result))
    return 0


def _say_repaired(repaired: dict) -> None:
    """On stderr: the damaged parts a rerun found and computed again."""
    from simkit import store
    for i, why in sorted(repaired.items()):
        print(f"simkit: {store.part_name(i)} was damaged ({why}): computed again",
              file=sys.stderr)


def _cmd_verify(a) -> int:
    from simkit import store
    path = a.run
    manifest = store.read_manifest(path) if store.is_run_dir(path) else None
    if manifest is None:
        raise InputError(f"cannot verify '{path}': not a simkit run directory "
                         f"(no {store.RUN_MANIFEST})")
    problems = store.verify(path, manifest)
    chunks = int(manifest.get("chunks", 0))
    written = len(store.part_indices(path) & set(range(chunks)))
    state = ("complete" if manifest.get("complete") else
             f"not finished, {written} of {chunks} chunks written")
    what = (f"{path}: {manifest.get('game')} {manifest.get('kind')}, "
            f"{int(manifest.get('count', 0)):,} {manifest.get('unit')}s, {state}")
    if not problems:
        checked = "no checksums recorded (an older run)" if "parts" not in manifest else "intact"
        print(f"{what}: {checked}")
        return 0
    print(f"{what}: damaged")
    for line in problems:
        print(f"  {line}")
    print("run the same command again to repair it: the damaged chunks are computed again")
    return 1


def _run_line(a, label: str, count: int, job, result) -> str:
    """The line after the summary: what was computed, how fast, where it went."""
    done = result.units_computed
    rate = done / result.seconds if result.seconds > 0 else float("inf")
    what = "aggregated " if a.aggregate else ""
    line = f"\n{count:,} {what}{label}s, seed {a.seed}"
    if result.resumed and not result.complete_before:
        line += (f" ({result.resumed} of {job.chunks} chunks were already done; "
                 f"{done:,} {label}s computed now)")
    if done:
        line += f", {result.seconds:.2f} s ({rate:,.0f} {label}s/s)"
    if a.out:
        line += f"; {'in' if result.complete_before else 'written to'} {a.out}"
    return line


def _cmd_rules(a) -> int:
    g = games.get(a.game)
    print(f"{g.title} rules; the rule book is {g.book}\n")
    rows = g.rules.describe()
    w = max(len(r[0]) for r in rows)
    for key, default, accepted, doc in rows:
        print(f"  {key:<{w}}  default {default:<7} ({accepted})\n  {'':<{w}}  {doc}")
    print("\nPresets (--preset NAME):")
    for name, values in g.presets.items():
        text = ", ".join(f"{k}={v}" for k, v in values.items()) or "the seed documents' rules"
        print(f"  {name:<18} {text}")
    print("\nPolicies (--policy NAME[:key=value,...]):")
    for name, cls in g.policies.items():
        print(f"  {name}")
        for key, default, accepted, doc in cls.describe():
            print(f"    {key} = {default} ({accepted}): {doc}")
    if g.named_policies:
        print("\nNamed settings (--policy NAME, or NAME:key=value,... to change one):")
        for name, spec in g.named_policies.items():
            print(f"  {name:<18} {spec}")
    for unit in g.units.values():
        print(f"\n{unit.label.capitalize()} records (--{unit.name}s; {unit.doc}):")
        cols = [c for item in unit.schema
                for c in (item.columns if isinstance(item, engine.Each) else (item,))]
        shown = [c.describe() for c in cols]
        w = max(len(name) for name, _, _ in shown)
        for name, dtype, doc in shown:
            print(f"  {name:<{w}}  {dtype:<9} {doc}")
    return 0


def _cmd_bench(a) -> int:
    from simkit.bench import run_bench

    records = run_bench(a.games or list(games.GAMES), hands=a.hands)
    if a.json:
        print(json.dumps(records, indent=1))
    else:
        for r in records:
            print(f"{r['game']:<8} {r['case']:<32} {r['players']}p {r['threads']} thread(s): "
                  f"{r['rate']:>13,.0f} {r['unit']}s/s  ({r['ns_per_unit']:,.0f} ns/{r['unit']})")
    return 0


def _studies():
    """The studies package (installed beside simkit)."""
    try:
        import analyses
    except ModuleNotFoundError as e:
        if e.name != "analyses":
            raise
        raise InputError("the studies package 'analyses' is not importable: run from the "
                         "simkit source tree or install simkit with its analyses") from None
    return analyses


def _cmd_report(a) -> int:
    analyses = _studies()
    if a.list:
        for name in analyses.STUDIES:
            mod = analyses.load_study(name)
            print(f"{name:<21} {mod.TITLE} (default {mod.DEFAULT_HANDS:,} {mod.STUDY.size})")
        return 0
    t0 = time.perf_counter()
    pages = analyses.run_studies(a.studies or ["all"], hands=a.hands, seed=a.seed, out=a.out,
                        progress=not a.no_progress, threads=a.threads)
    for page in pages:
        print(page)
    print(f"{len(pages)} report(s) in {time.perf_counter() - t0:.1f} s; index: {a.out}/index.html")
    return 0


def _cmd_advise(a) -> int:

    mod, advice = answers.advice_of(a)
    print(json.dumps(answers.advice_json(mod, advice, a), indent=1) if a.json
          else mod.format_advice(advice))
    return 0


def _cmd_show(a) -> int:
    from simkit import record
    if a.run is None:
        if a.where is not None and a.game is not None:
            raise InputError("--where reads a run's records: give --run DIR")
        print(record.show(*answers.show_args(a)), end="")
        return 0
    given = [f"--{k}" for k in ("seed", "players", "rules", "policy")
             if getattr(a, k) not in (None, [])] + (["--preset"] if a.preset != "seed" else []) \
        + (["--set"] if a.set else [])
    if given:
        raise InputError(f"--run takes the rules, policies and seed from the run: "
                         f"drop {', '.join(given)}")
    game, rules, pols, seed, numbers = record.run_units(a.run, a.hand, a.where, a.limit)
    if a.game is not None and a.game != game:
        raise InputError(f"run '{a.run}' is a run of {game}, not {a.game}")
    print("\n".join(record.show(game, rules, pols, seed, n) for n in numbers), end="")
    return 0


def _cmd_replay(a) -> int:
    from simkit import record
    print(record.replay(record.read_file(a.file), a.policy), end="")
    return 0


def _cmd_compare(a) -> int:
    from simkit.compare import comparison_json, format_comparison

    t0 = time.perf_counter()
    result = answers.comparison_of(a)
    if a.json:
        print(json.dumps(comparison_json(result), indent=1))
    else:
        print(format_comparison(result))
        print(f"\n{time.perf_counter() - t0:.2f} s")
    return 0


def _cmd_tournament(a) -> int:
    from simkit import chunks
    from simkit.tournament import format_result, result_json, run

    rules, _ = answers.rules_and_policies(argparse.Namespace(**{**vars(a), "policy": None}))
    backend = a.backend or ("dask" if a.scheduler else "threads")
    try:
        res = run(a.game, a.policy or [], rules=rules, hands=a.hands, games=a.games,
                  seed=a.seed, threads=a.threads, backend=backend, workers=a.workers,
                  scheduler=a.scheduler, out=a.out, chunk_size=a.chunk,
                  progress=not a.no_progress)
    except chunks.Interrupted as e:
        print(f"simkit: {e}", file=sys.stderr)
        return 130
    _say_repaired(res.repaired)
    if a.json:
        print(json.dumps(result_json(res), indent=1))
        return 0
    print(format_result(res))
    where = f"; {'in' if res.complete_before else 'written to'} {a.out}" if a.out else ""
    print(f"\n{res.seconds:.2f} s{where}")
    return 0


def _cmd_serve(a) -> int:
    from simkit.web.server import serve

    serve(host=a.host, port=a.port, open_browser=a.open, reports=a.reports)
    return 0


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return {"simulate": _cmd_simulate, "rules": _cmd_rules, "bench": _cmd_bench,
                "advise": _cmd_advise, "compare": _cmd_compare,
                "tournament": _cmd_tournament, "report": _cmd_report, "show": _cmd_show,
                "replay": _cmd_replay, "verify": _cmd_verify,
                "serve": _cmd_serve}[args.command](args)
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
