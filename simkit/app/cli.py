"""The ``simkit`` command.

Every problem with the user's input is an :class:`~simkit.base.errors.InputError`:
it is printed as one line (``simkit: error: ...``) and the exit code is 2.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import json
import math
import os
import signal
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, cast

from simkit import engine, games
from simkit.app import answers
from simkit.app.options import build_parser
from simkit.base.errors import InputError, RunError

if TYPE_CHECKING:
    from types import ModuleType

    import pandas as pd

    from simkit.base.config import Config
    from simkit.runs.chunks import Job, RunResult


def _summary_part(game: str, rules: Any, unit: str, df: pd.DataFrame) -> Any:
    """One chunk's contribution to the summary table (runs where the chunk is made)."""
    summary = games.get(game).unit(unit).summary(rules)
    summary.add(df)
    return summary.parts[0]


def _run_unit(g: engine.Game, a: argparse.Namespace) -> tuple[str, int]:
    """(unit, count) of a simulate command: --hands or --games, checked against the game."""
    if a.hands:
        g.unit("hand")                      # a game played in whole games refuses hands
        return "hand", a.hands
    if a.games or "hand" not in g.units:
        g.unit("game")
        return "game", a.games or 100_000
    return "hand", 100_000


def _cmd_simulate(a: argparse.Namespace) -> int:
    import functools

    from simkit.bygame import jobs
    from simkit.runs import chunks

    g = games.get(a.game)
    rules, pols = answers.rules_and_policies(a)
    unit, count = _run_unit(g, a)
    backend = a.backend or ("dask" if a.scheduler else "threads")
    spec = {"rules": rules.as_dict(), "policies": [p.text() for p in pols], "seed": a.seed}
    job = jobs.job(a.game, unit, count=count, spec=spec,
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


def _say_repaired(repaired: dict[int, str]) -> None:
    """On stderr: the damaged parts a rerun found and computed again."""
    from simkit.runs import store
    for i, why in sorted(repaired.items()):
        print(f"simkit: {store.part_name(i)} was damaged ({why}): computed again",
              file=sys.stderr)


def _finite(obj: object) -> object:
    """``obj`` with every NaN or infinite float as None: ``--json`` output is
    strict JSON (``null`` for no value), which ``NaN`` is not."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _json(obj: object) -> str:
    """What every ``--json`` prints: strict JSON, indented."""
    return json.dumps(_finite(obj), indent=1, allow_nan=False)


def _cmd_verify(a: argparse.Namespace) -> int:
    from simkit.runs import store
    path = a.run
    manifest = store.read_manifest(path) if store.is_run_dir(path) else None
    if manifest is None:
        raise InputError(f"cannot verify '{path}': not a simkit run directory "
                         f"(no {store.RUN_MANIFEST})")
    problems = store.verify(path, manifest)
    chunks = store.expected_chunks(manifest)
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
    if store.stray_files(path):
        print("move the files that are not part of the run out of it, then run the same "
              "command again to repair the rest")
    else:
        print("run the same command again to repair it: the damaged chunks are computed "
              "again, the manifest and summary files written again")
    return 1


def _run_line(a: argparse.Namespace, label: str, count: int, job: Job,
              result: RunResult) -> str:
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


def _described(cls: type) -> list[tuple[str, str, str, str]]:
    """The rows of a game's rules or a policy's parameters (a
    :class:`~simkit.base.config.Config`, which :class:`~simkit.engine.Game`
    holds as a plain type)."""
    return cast("type[Config]", cls).describe()


def _cmd_rules(a: argparse.Namespace) -> int:
    g = games.get(a.game)
    print(f"{g.title} rules; the rule book is {g.book}\n")
    rows = _described(g.rules)
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
        for key, default, accepted, doc in _described(cls):
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


def _cmd_glossary(a: argparse.Namespace) -> int:
    from simkit.app import glossary

    terms = glossary.for_game(a.game) if a.game else list(glossary.TERMS)
    if a.json:
        print(json.dumps({"terms": [dataclasses.asdict(t) for t in terms]}, indent=1))
        return 0
    for t in terms:
        games_text = ", ".join(t.games) if t.games else "every game"
        also = f"; also {', '.join(t.aliases)}" if t.aliases else ""
        print(f"{t.word} ({games_text}{also})")
        # where it comes from in the reader's words (a rule book's section), never a path
        where = "; ".join(link["text"] for link in glossary.links(t, a.game))
        print(textwrap.fill(f"{t.means} [{where}]", width=88, initial_indent="  ",
                            subsequent_indent="  "))
    return 0


def _cmd_bench(a: argparse.Namespace) -> int:
    from simkit.bench import run_bench

    records = run_bench(a.games or list(games.GAMES), hands=a.hands)
    if a.json:
        print(_json(records))
    else:
        for r in records:
            print(f"{r['game']:<8} {r['case']:<32} {r['players']}p {r['threads']} thread(s): "
                  f"{r['rate']:>13,.0f} {r['unit']}s/s  ({r['ns_per_unit']:,.0f} ns/{r['unit']})"
                  f"  {r['vs_yardstick']:.4f}x yardstick  {r['speedup_vs_1_thread']:.2f}x 1 thread")
    return 0


def _studies() -> ModuleType:
    """The studies package (installed beside simkit)."""
    try:
        import analyses
    except ModuleNotFoundError as e:
        if e.name != "analyses":
            raise
        raise InputError("the studies package 'analyses' is not importable: run from the "
                         "simkit source tree or install simkit with its analyses") from None
    return analyses


def _cmd_report(a: argparse.Namespace) -> int:
    analyses = _studies()
    if a.list:
        for name in analyses.STUDIES:
            mod = analyses.load_study(name)
            print(f"{name:<21} {mod.TITLE} (default {mod.DEFAULT_HANDS:,} {mod.STUDY.size})")
        return 0
    if "all" in a.studies and len(a.studies) > 1:
        others = [n for n in a.studies if n != "all"]
        raise InputError(f"'all' with study names ({', '.join(others)}): give 'all' alone (every "
                         f"study) or the names alone")
    t0 = time.perf_counter()
    from simkit.app import report

    report.check_out(a.out)             # before any work, as every argument
    pages = report.render_all(analyses.run_studies(a.studies or ["all"], hands=a.hands,
                                                   seed=a.seed, progress=not a.no_progress,
                                                   threads=a.threads), a.out)
    for page in pages:
        print(page)
    print(f"{len(pages)} report(s) in {time.perf_counter() - t0:.1f} s; index: {a.out}/index.html")
    return 0


def _cmd_advise(a: argparse.Namespace) -> int:

    mod, advice = answers.advice_of(a)
    print(_json(answers.advice_json(mod, advice, a)) if a.json
          else mod.format_advice(advice))
    return 0


def _cmd_show(a: argparse.Namespace) -> int:
    from simkit.bygame import record
    if a.run is None and a.where is not None and a.game is not None:
        raise InputError("--where reads a run's records: give --run DIR")
    if a.where is not None and a.hand is not None:
        raise InputError("give --hand (one hand) or --where (the hands that match), not both")
    if a.limit is not None and a.where is None:
        raise InputError("--limit applies to --where: drop it, or give --where EXPR")
    if a.run is None:
        print(record.show(**answers.show_args(a).kwargs()), end="")
        return 0
    given = [f"--{k}" for k in ("seed", "players", "rules", "policy")
             if getattr(a, k) not in (None, [])] + (["--preset"] if a.preset != "seed" else []) \
        + (["--set"] if a.set else [])
    if given:
        raise InputError(f"--run takes the rules, policies and seed from the run: "
                         f"drop {', '.join(given)}")
    game, rules, pols, seed, numbers = record.run_units(a.run, a.hand, a.where,
                                                             a.limit or 5)
    if a.game is not None and a.game != game:
        raise InputError(f"run '{a.run}' is a run of {game}, not {a.game}")
    print("\n".join(record.show(game, rules, pols, seed, n) for n in numbers), end="")
    return 0


def _cmd_replay(a: argparse.Namespace) -> int:
    from simkit.bygame import record
    print(record.replay(record.read_file(a.file), a.policy), end="")
    return 0


def _cmd_compare(a: argparse.Namespace) -> int:
    from simkit.lab.compare import comparison_json, format_comparison, write_tables
    from simkit.runs import chunks

    t0 = time.perf_counter()
    try:
        result = answers.comparison_of(a)
    except chunks.Interrupted as e:     # Ctrl-C while adapting: its rounds and trials kept
        print(f"simkit: {e}", file=sys.stderr)
        return 130
    if a.out:
        write_tables(result, a.out)
    if a.json:
        print(_json(comparison_json(result)))
    else:
        print(format_comparison(result))
        print(f"\n{time.perf_counter() - t0:.2f} s")
    return 0


def _cmd_tournament(a: argparse.Namespace) -> int:
    from simkit.runs import chunks
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
        print(_json(result_json(res)))
        return 0
    print(format_result(res))
    where = f"; {'in' if res.complete_before else 'written to'} {a.out}" if a.out else ""
    print(f"\n{res.seconds:.2f} s{where}")
    return 0


def _cmd_tune(a: argparse.Namespace) -> int:
    from simkit import tune

    if a.policy and len(a.policy) > 1:
        raise InputError("tune takes one --policy (the one tuned); the field is --against")
    rules, _ = answers.rules_and_policies(argparse.Namespace(**{**vars(a), "policy": None}))
    policy = a.policy[0] if a.policy else None
    tune.check_unfixed(policy, a.param)
    spec = tune.make_spec(a.game, policy=policy, params=a.param, against=a.against,
                          settings=tune.SpecSettings(
                              players=rules.players, rules=rules, hands=a.hands, games=a.games,
                              trials=a.trials, seed=a.seed, sampler=a.sampler,
                              also=a.confirm_against, prune=a.prune))
    return _trials_answer(a, lambda: tune.run(spec, tune.TuneOptions(
        out=a.out, threads=a.threads, scheduler=a.scheduler, progress=not a.no_progress)),
                          tune.result_json, tune.format_result)


def _trials_answer(a: argparse.Namespace, run: Callable[[], dict[str, Any]],
                   as_json: Callable[[dict[str, Any]], Any],
                   as_text: Callable[[dict[str, Any]], str]) -> int:
    """Run a tune or a search and print its result (JSON or text, with its time
    and where it is kept); Ctrl-C: one line and exit code 130."""
    from simkit.runs import chunks

    try:
        res = run()
    except chunks.Interrupted as e:
        print(f"simkit: {e}", file=sys.stderr)
        return 130
    if a.json:
        print(_json(as_json(res)))
        return 0
    print(as_text(res))
    where = f"; {'in' if res['complete_before'] else 'written to'} {a.out}" if a.out else ""
    print(f"\n{res.get('seconds', 0.0):.2f} s{where}")
    return 0


def _cmd_search(a: argparse.Namespace) -> int:
    from simkit.lab import search, search_text
    from simkit.lab.search_play import catalogue

    g = games.get(a.game)
    rules, _ = answers.rules_and_policies(argparse.Namespace(**{**vars(a), "policy": None}))
    if a.list:
        measures = catalogue(g.measures(rules))
        print(_json(search_text.list_json(measures)) if a.json
              else search_text.list_text(g.title, measures))
        return 0
    spec = search.make_spec(a.game, a.rule, search.SpecSettings(
        rules=rules, policy=a.policy, goals=a.goal, minimize=a.minimize, maximize=a.maximize,
        trials=a.trials, hands=a.hands, games=a.games, seed=a.seed, sampler=a.sampler,
        adapt=a.adapt, params=a.param or None, adapt_rounds=a.adapt_rounds,
        adapt_trials=a.adapt_trials, adapt_games=a.adapt_games, adapt_seed=a.adapt_seed))
    return _trials_answer(a, lambda: search.run(spec, out=a.out, threads=a.threads,
                                                scheduler=a.scheduler,
                                                progress=not a.no_progress),
                          search_text.result_json, search_text.format_result)


def _cmd_serve(a: argparse.Namespace) -> int:
    from simkit.app.web.server import serve

    reports = "reports" if a.reports is None else a.reports
    if a.reports is not None and not os.path.isdir(a.reports):
        # the default may be missing (the app says how to render the reports); a
        # directory named on purpose must be one
        what = "does not exist" if not os.path.exists(a.reports) else "is not a directory"
        raise InputError(f"bad --reports {a.reports!r}: it {what}; give the directory the "
                         f"reports were rendered into (simkit report --out DIR)")
    if a.reports is not None and not os.path.isfile(os.path.join(a.reports, "index.html")):
        # named on purpose, it must hold what /reports/ serves: the index of rendered reports
        what = "is empty" if not os.listdir(a.reports) else "holds no rendered reports"
        raise InputError(f"bad --reports {a.reports!r}: it {what} (no index.html); give the "
                         f"directory the reports were rendered into (simkit report --out DIR)")
    serve(host=a.host, port=a.port, open_browser=a.open, reports=reports,
          allow_hosts=a.allow_host)
    return 0


#: Signals that stop a command as Ctrl-C does: cleanly, keeping only what a
#: rerun resumes from; the exit code is 128 + the signal's number.
STOP_SIGNALS = ("SIGTERM", "SIGHUP")


class _Stop:
    """The stop signal received while a command ran (0: none)."""

    signum = 0


def _stop(signum: int, frame: FrameType | None) -> None:
    _Stop.signum = signum
    raise KeyboardInterrupt     # the same unwinding as Ctrl-C: temporaries removed


@contextlib.contextmanager
def _stop_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP handled as Ctrl-C while a command runs (in the main
    thread; the handlers before are put back after)."""
    _Stop.signum = 0
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before: dict[int, Any] = {}
    for name in STOP_SIGNALS:
        if hasattr(signal, name):
            sig = getattr(signal, name)
            before[sig] = signal.signal(sig, _stop)
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


#: The longest error line printed, ``simkit: error: `` included: a value quoted
#: from a huge bad input is cut.
MAX_ERROR = 500


def _short(message: str) -> str:
    """An error message as one line of at most :data:`MAX_ERROR` characters.

    >>> _short("bad value 'x" + "0" * 900 + "'")[:20], len(_short("y" * 900))
    ("bad value 'x00000000", 500)
    """
    line = " ".join(message.split("\n"))
    if len(line) <= MAX_ERROR:
        return line
    keep = (MAX_ERROR - 5) // 2
    return line[:keep] + " ... " + line[-(MAX_ERROR - 5 - keep):]


def main(argv: Sequence[str] | None = None) -> int:
    with _stop_signals():
        code = _main(argv)
    if _Stop.signum and code == 130:
        code = 128 + _Stop.signum
    return code


def _main(argv: Sequence[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return {"simulate": _cmd_simulate, "rules": _cmd_rules, "bench": _cmd_bench,
                "glossary": _cmd_glossary,
                "advise": _cmd_advise, "compare": _cmd_compare,
                "tournament": _cmd_tournament, "tune": _cmd_tune, "report": _cmd_report,
                "search": _cmd_search,
                "show": _cmd_show,
                "replay": _cmd_replay, "verify": _cmd_verify,
                "serve": _cmd_serve}[args.command](args)
    except InputError as e:
        print(_short(f"simkit: error: {e}"), file=sys.stderr)
        return 2
    except RunError as e:
        print(_short(f"simkit: error: {e}"), file=sys.stderr)
        return 1
    except PermissionError as e:      # e.g. a part made unreadable (chmod 000)
        print(f"simkit: error: cannot use '{e.filename}': permission denied"
              if e.filename else f"simkit: error: permission denied ({e})", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("simkit: " + (f"stopped by {signal.Signals(_Stop.signum).name}"
                            if _Stop.signum else "interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:      # output piped into e.g. `head`
        sys.stderr.close()
        return 0
    except OSError as e:              # a path the system refuses: a symlink loop, a name
        name = str(e.filename or "")  # too long, a file where a directory should be ...
        if e.errno in (errno.ENOSPC, errno.EDQUOT):     # not bad input: code 1, as a run's
            print(_short(f"simkit: error: cannot write{f' {name!r}' if name else ''}: the "
                         f"disk is full ({os.strerror(e.errno)})"), file=sys.stderr)
            return 1
        shown = name if len(name) <= 80 else f"{name[:40]}...{name[-20:]} ({len(name):,} chars)"
        why = e.strerror or str(e) or type(e).__name__
        print(_short(f"simkit: error: cannot use '{shown}': {why}" if name else
                     f"simkit: error: {why}"), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
