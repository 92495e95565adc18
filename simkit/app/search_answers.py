"""The web app's rule search: ``simkit search GAME ... --json`` run for a job.

A search's options are checked here as the command checks them
(:func:`spec_of`: :func:`simkit.lab.search.make_spec`, before any work), its
time estimated (:func:`seconds`), and the search itself run as the command
line in a process of its own (:func:`search`): the search has no stop switch
of its own, and a process is stopped at once by ending it, with every core
it used.  Its progress is read from the command's progress bar (trials done
of trials asked).  The measures a search can aim at, per game and players:
:func:`measures` (``simkit search GAME --list --json``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from simkit import games
from simkit.base.errors import InputError
from simkit.runs.batches import Cancelled, Work

#: The command that runs in the search's process (``simkit`` itself).
_MAIN = "import sys; from simkit.app.cli import main; sys.exit(main(sys.argv[1:]))"
#: A progress bar's "done/total [" (tqdm's), as the search prints it on stderr.
_BAR = re.compile(r"(\d+)/(\d+) \[")
#: The share of the progress the trials make (the rest: the confirmation on fresh deals).
TRIALS_SHARE = 0.85
#: Seconds the process has to end after it is asked to, before it is killed.
GRACE = 3.0
#: Seconds a process takes to start (importing, loading compiled kernels): in the estimate.
START = 3.0
#: The options passed on as they are (the repeatable ones once per value).
_PASSED = ("rule", "goal", "minimize", "maximize", "policy", "players", "trials", "hands",
           "games", "seed", "sampler")


def _base_rules(a: argparse.Namespace) -> Any:
    """The base's rules of a search's arguments (as the command reads them:
    :func:`simkit.app.answers.rules_and_policies`, which this module, called
    from there, does not import)."""
    from simkit.base.config import parse_assignments

    g = games.get(a.game)
    g.check_players(a.players)
    return g.make_rules(getattr(a, "preset", "seed"), getattr(a, "rules", None),
                        parse_assignments(getattr(a, "set", None) or []), a.players)


def spec_of(a: argparse.Namespace) -> Any:
    """The checked search (:class:`simkit.lab.search.Spec`) of ``simkit
    search``'s arguments, as the command checks them: every bad value an
    InputError naming it and what is accepted, before any work."""
    from simkit.lab import search

    if not a.rule:
        raise InputError("give a rule to search: rule=KEY=LOW:HIGH (a number) or "
                         "rule=KEY=V1,V2,... (values), e.g. rule=target=20:80")
    if not (a.goal or a.minimize or a.maximize):
        raise InputError("give a goal: goal=MEASURE=VALUE (or <=, >=), minimize=MEASURE or "
                         "maximize=MEASURE, e.g. goal=hands per game: mean=15")
    return search.make_spec(a.game, a.rule, search.SpecSettings(
        rules=_base_rules(a), policy=a.policy, goals=a.goal, minimize=a.minimize,
        maximize=a.maximize, trials=a.trials, hands=a.hands, games=a.games, seed=a.seed,
        sampler=a.sampler))


def argv(a: argparse.Namespace) -> list[str]:
    """The command line of the search asked for (``--json``, its progress on)."""
    out = ["search", a.game]
    for key in _PASSED:
        value = getattr(a, key, None)
        for v in value if isinstance(value, list) else [value]:
            if v is not None:
                out.append(f"--{key}={v}")
    return [*out, "--json"]


def seconds(a: argparse.Namespace, rate: Callable[..., Any]) -> float:
    """How long the search will take: every trial and the base on the trial's
    deals (none stopped early), and the confirmation (each point confirmed
    and the base, on as many fresh deals), at the base's rules' pace;
    ``rate(unit, rules)`` is that pace (:func:`simkit.app.answers._rate`'s)."""
    from simkit.lab import search

    spec = spec_of(a)
    g = games.get(spec.game)
    rules = g.make_rules(overrides=spec.base, players=spec.players)
    confirm = search.MAX_FRONT if len(spec.directions()) > 1 else search.CONFIRM_BEST
    plays = spec.trials + 1 + 2 * min(confirm, spec.trials)
    return START + sum(float(plays * rate(u, rules, n)(n)) for u, n in spec.counts)


def measures(game: str, players: int | None = None) -> dict[str, Any]:
    """What ``simkit search GAME --list --json`` prints: every measure a search
    can aim at (key, name, kind, meaning, margin), for the rule book's rules."""
    from simkit.lab import search_text
    from simkit.lab.search_play import catalogue

    g = games.get(game)
    rules = _base_rules(argparse.Namespace(game=g.name, players=players))
    return {"game": g.name, "players": rules.players,
            **search_text.list_json(catalogue(g.measures(rules)))}


def _read_progress(stream: Any, work: Work | None, said: list[str]) -> None:
    """Read the search's stderr: its bar's trials as progress, the rest kept."""
    buf = ""
    while chunk := stream.read(256):
        buf += chunk
        *parts, buf = re.split(r"[\r\n]", buf)
        for part in parts:
            m = _BAR.search(part)
            if m is None:
                if part.strip():
                    said.append(part.strip())
                continue
            done, total = int(m.group(1)), int(m.group(2))
            if work is not None and work.report is not None and total:
                work.report(TRIALS_SHARE * done / total + (0.05 if done == total else 0.0))
    if buf.strip():
        said.append(buf.strip())


def search(a: argparse.Namespace, work: Work | None = None) -> dict[str, Any]:
    """Exactly what ``simkit search ... --json`` prints for these arguments,
    from a process of its own; ``work``'s stop ends that process at once
    (Cancelled).  A refusal of the command is its InputError line."""
    spec_of(a)
    stop = work.stop if work is not None else threading.Event()
    proc = subprocess.Popen([sys.executable, "-c", _MAIN, *argv(a)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    said: list[str] = []
    out: list[str] = []
    readers = [threading.Thread(target=_read_progress, args=(proc.stderr, work, said),
                                daemon=True),
               threading.Thread(target=lambda: out.append(proc.stdout.read()),  # type: ignore[union-attr]
                                daemon=True)]
    for r in readers:
        r.start()
    try:
        while proc.poll() is None:
            if stop.wait(0.1):
                raise Cancelled("stopped")
    finally:
        if proc.poll() is None:         # stopped, or this thread failed: the process too
            proc.terminate()
            try:
                proc.wait(GRACE)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    for r in readers:
        r.join(GRACE)
    errors = [s for s in said if s.startswith("simkit: error: ")]
    if proc.returncode != 0:
        if errors:
            raise InputError(errors[-1].removeprefix("simkit: error: "))
        raise RuntimeError(f"simkit search exited with {proc.returncode}: "
                           f"{' | '.join(said[-3:])}")
    result: dict[str, Any] = json.loads("".join(out))
    return result
