"""One function behind each answer simkit gives, whichever way it is asked.

The command line (:mod:`simkit.cli`) and the web app (:mod:`simkit.web`)
both call these, so ``simkit advise ... --json`` and ``GET /api/advise?...``
print the same numbers for the same options.  Options arrive as the
command's parsed arguments (an :class:`argparse.Namespace`); the web app
turns a query into them with :func:`parse`, through the command line's own
parser, so every check and every error message is the command's.

Long answers take ``work`` (:class:`simkit.runner.Work`): progress reports
and a stop switch.  :func:`estimate` says how long a run will take before
it starts, from a short timed run of the same table.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import math
import threading
import time
from collections.abc import Callable, Iterable

from simkit import games
from simkit.errors import InputError
from simkit.runner import KERNEL_LOCK, Work

#: The options each answer takes from a query: the command line's long option
#: names (``index`` is ``show``'s ``--hand``, the hand's number in the run).
OPTIONS = {
    "advise": ("hand", "players", "seat", "dealer", "preset", "set", "policy", "score",
               "samples", "seed", "bound", "declarer", "plans", "games"),
    "compare": ("variant", "sweep", "players", "policy", "hands", "games", "seed", "adapt",
                "param", "adapt-rounds", "adapt-trials", "adapt-games", "skill"),
    "show": ("players", "preset", "set", "policy", "seed", "index"),
}
#: Options that may be given more than once (``set=a=1&set=b=2``).
REPEATABLE = ("set", "policy", "variant", "param")
#: Options that are on or off: ``bound=1`` (also true, on, yes; 0, false, off, no).
FLAGS = ("bound", "declarer", "adapt")
#: Options that are on unless turned off: ``skill=0`` is ``--no-skill``.
ON_FLAGS = ("skill",)
_ON, _OFF = ("1", "true", "on", "yes"), ("0", "false", "off", "no", "")


def parse(command: str, params: Iterable[tuple[str, str]]) -> argparse.Namespace:
    """A query's ``(key, value)`` pairs as the parsed arguments of ``simkit
    COMMAND``: checked by the command line's own parser (an InputError names
    any bad value).  Empty values count as not given."""
    from simkit.options import build_parser

    if command not in OPTIONS:
        raise InputError(f"unknown answer {command!r}: expected {', '.join(OPTIONS)}")
    game, argv, seen = None, [], set()
    for key, value in params:
        if key == "game":
            if game is not None:
                raise InputError("the game is given twice: give game=NAME once")
            game = value
            continue
        if key not in OPTIONS[command]:
            raise InputError(f"unknown option {key!r} for {command}: expected game, "
                             f"{', '.join(OPTIONS[command])}")
        if key in seen and key not in REPEATABLE:
            raise InputError(f"option {key!r} is given twice: give it once")
        seen.add(key)
        if key in FLAGS + ON_FLAGS:
            if value.strip().lower() not in _ON + _OFF:
                raise InputError(f"bad {key} {value!r}: expected 1 (or true, on) or 0 "
                                 f"(or false, off)")
            on = value.strip().lower() in _ON
            if key in ON_FLAGS:
                argv += [] if on else [f"--no-{key}"]
            else:
                argv += [f"--{key}"] if on else []
        elif value.strip():
            argv.append(f"--{'hand' if key == 'index' else key}={value}")
    if not game:
        raise InputError(f"give the game: game={'|'.join(games.GAMES)}")
    extra = ["--no-progress"] if command == "compare" else []
    return build_parser().parse_args([command, game, *argv, *extra])


# --- advise ---------------------------------------------------------------------------

def _advisor(game: str):
    """A game's advisor module, or an InputError for games without bids."""
    g = games.get(game)
    if g.advise is None:
        bidding = [s.name for s in games.specs() if s.advise is not None]
        raise InputError(f"simkit advise is for games with bids ({', '.join(bidding)}), "
                         f"not {game}")
    return importlib.import_module(g.advise)


def rules_and_policies(a: argparse.Namespace):
    """The validated rules and per-seat policies of a command's game options."""
    from simkit.config import parse_assignments

    g = games.get(a.game)
    g.check_players(a.players)
    rules = g.make_rules(a.preset, a.rules, parse_assignments(a.set), a.players)
    return rules, g.make_policies(a.policy, rules.players)


def from_record(a: argparse.Namespace) -> None:
    """``advise --from FILE``: the hand, seat, dealer, rules and score from a record,
    into the command's arguments (given both ways, they are refused)."""
    from simkit import record

    given = [f"--{k}" for k in ("hand", "seat", "dealer", "score", "players", "rules")
             if getattr(a, k) is not None] + (["--preset"] if a.preset != "seed" else []) \
        + (["--set"] if a.set else [])
    if given:
        raise InputError(f"--from takes the hand, seat, dealer, rules and score from the "
                         f"record: drop {', '.join(given)}")
    rec = record.parse(record.read_file(a.record))
    if rec.game != a.game:
        raise InputError(f"--from {a.record!r} is a record of {rec.game}, not {a.game}")
    dealer, hands = record.module(rec.game).deal(list(rec.lines), rec.rules)
    P = rec.rules.players
    a.seat = (dealer + 1) % P if rec.seat is None else rec.seat
    a.dealer, a.score, a.players = dealer, rec.score, P
    a.hand = hands[a.seat]
    a.set = [f"{k}={v}" for k, v in rec.rules.as_dict().items() if k != "players"]
    a.preset = rec.preset or "seed"


def advice_of(a: argparse.Namespace, work: Work | None = None):
    """``(advisor module, Advice)`` of ``simkit advise``'s arguments."""
    g = games.get(a.game)
    mod = _advisor(a.game)
    if a.bound and not g.bound:
        bounded = [s.name for s in games.specs() if s.bound]
        raise InputError(f"--bound (the perfect-information bound) needs a double-dummy "
                         f"solver: {', '.join(bounded)}, not {a.game}")
    if getattr(a, "record", None) is not None:
        from_record(a)
    elif a.hand is None:
        raise InputError("give the hand: --hand \"JH JD AH KH QH 9S\", or --from FILE (a record)")
    rules, pols = rules_and_policies(a)
    extra = {"bound": True} if a.bound else {}
    advice = mod.advise(a.hand, players=rules.players, seat=a.seat,
                        dealer=0 if a.dealer is None else a.dealer,
                        samples=a.samples, score=a.score, rules=rules, policy=pols,
                        seed=a.seed, threads=getattr(a, "threads", None), games=a.games,
                        declarer=a.declarer, plans=a.plans, work=work, **extra)
    return mod, advice


def advice_json(mod, advice, a: argparse.Namespace) -> dict:
    """What ``simkit advise --json`` prints: the advisor's JSON and the seed."""
    return {**mod.advice_json(advice), "seed": int(a.seed)}


def advise(a: argparse.Namespace, work: Work | None = None) -> dict:
    """Exactly what ``simkit advise ... --json`` prints for these arguments."""
    mod, advice = advice_of(a, work)
    return advice_json(mod, advice, a)


# --- compare, show, replay ------------------------------------------------------------

def comparison_of(a: argparse.Namespace, work: Work | None = None):
    """The tables of ``simkit compare`` (:func:`simkit.compare.compare`)."""
    from simkit.compare import compare as run

    only = ("param", "out", "scheduler", "adapt_rounds", "adapt_trials", "adapt_games")
    given = [f"--{k.replace('_', '-')}" for k in only if getattr(a, k, None) not in (None, [])]
    if given and not a.adapt:
        raise InputError(f"{', '.join(given)} applies to --adapt only: add --adapt, or drop "
                         f"{'it' if len(given) == 1 else 'them'}")
    return run(a.game, a.variant, players=a.players, hands=a.hands, games=a.games,
               seed=a.seed, policy=a.policy, threads=getattr(a, "threads", None),
               progress=not a.no_progress, work=work, sweep=a.sweep, adapt=a.adapt,
               params=a.param or None, out=getattr(a, "out", None),
               scheduler=getattr(a, "scheduler", None), skill_trace=not a.no_skill,
               adapt_rounds=getattr(a, "adapt_rounds", None),
               adapt_trials=getattr(a, "adapt_trials", None),
               adapt_games=getattr(a, "adapt_games", None))


def compare(a: argparse.Namespace, work: Work | None = None) -> dict:
    """Exactly what ``simkit compare ... --json`` prints for these arguments."""
    from simkit.compare import comparison_json

    return comparison_json(comparison_of(a, work))


def show_args(a: argparse.Namespace) -> tuple:
    """``(game, rules, policy specs, seed, index, preset)`` of ``simkit show
    GAME --hand I ...`` (not ``--run``)."""
    if a.game is None:
        raise InputError("give the game (simkit show pepper --hand 12) or --run DIR")
    if a.hand is None:
        raise InputError("give --hand I: the hand's number in the run (Shiesta: the game's)")
    rules, pols = rules_and_policies(a)
    preset = a.preset if (a.preset != "seed" or not (a.set or a.rules)) else None
    return a.game, rules, [p.text() for p in pols], a.seed or 0, a.hand, preset


def show(a: argparse.Namespace) -> dict:
    """The hand view (:func:`simkit.view.of_run`) of ``simkit show``'s
    arguments: its ``record`` is the text ``simkit show`` prints."""
    from simkit import view

    return view.of_run(*show_args(a))


def replay(text: str, policies: list[str] | None = None) -> dict:
    """The hand view of a record (:func:`simkit.view.of_text`): ``record`` is
    what ``simkit replay`` prints; a bad record is one InputError line."""
    from simkit import view

    return view.of_text(text, policies or None)


# --- what the pages need ----------------------------------------------------------------

def _deck_rows(deck) -> list[list[str]]:
    """A deck's cards, one row per suit (C D H S), highest first."""
    return [[deck.text(deck.card(r, s)) for r in reversed(deck.ranks)] for s in range(4)]


def games_info() -> dict:
    """Everything the pages' forms offer, per game: players, rules, presets,
    policies and their parameters; for the games with an advisor the deck,
    the hand size per player count and the bidding plans."""
    out = []
    for g in games.specs():
        info = {"name": g.name, "title": g.title, "players": list(g.players),
                "default_players": g.make_rules().players, "unit": g.bench_unit,
                "presets": {k: dict(v) for k, v in g.presets.items()},
                "rules": [dict(zip(("key", "default", "accepted", "doc"), map(str, row)))
                          for row in g.rules.describe()],
                "policies": [{"name": name, "params": [
                    dict(zip(("key", "default", "accepted", "doc"), map(str, row)))
                    for row in cls.describe()]} for name, cls in g.policies.items()],
                "named_policies": dict(g.named_policies), "default_policy": g.default_policy,
                "advise": g.advise is not None, "bound": bool(g.bound),
                "example_hand": g.example_hand}
        if g.advise is not None:
            mod = importlib.import_module(g.advise)
            info["deck"] = _deck_rows(mod.DECK)
            info["hand_size"] = {str(p): mod.api.hand_size(p) for p in g.players}
            info["plans"] = {str(p): mod.api.plan_names(g.make_rules(players=p))
                             for p in g.players}
        out.append(info)
    return {"games": out}


# --- how long a run takes ---------------------------------------------------------------

#: A timing run stops growing once it takes this long (seconds).
CALIBRATE = 0.3
_timings: dict = {}
_timings_lock = threading.Lock()


def _timed(run: Callable[[int], object], most: int) -> tuple[int, float]:
    """``(n, seconds)`` of ``run(n)`` for n = 32, 128, ... until it takes
    :data:`CALIBRATE` seconds or reaches ``most`` (a warm run: the first call
    may compile, so it is repeated)."""
    n = min(32, most)
    run(n)
    while True:
        t0 = time.perf_counter()
        run(n)
        took = time.perf_counter() - t0
        if took >= CALIBRATE or n >= most:
            return n, took
        n = min(most, n * 4)


def _per_unit(key, run: Callable[[int], object], most: int) -> float:
    """Seconds per unit of ``run``, measured once per ``key`` (per process)."""
    with _timings_lock:
        if key not in _timings:
            with KERNEL_LOCK:           # not beside another thread's kernels (runner.KERNEL_LOCK)
                n, took = _timed(run, most)
            _timings[key] = took / n
        return _timings[key]


def _say(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {math.ceil(seconds)} s"
    return f"about {seconds / 60:.0f} min"


def estimate(command: str, a: argparse.Namespace) -> dict:
    """How long ``command`` (``advise`` or ``compare``) will take with these
    arguments on this machine: ``{"seconds", "text"}``, from short timed runs
    of the same table (cached per table)."""
    if command == "advise":
        mod = _advisor(a.game)
        quick = argparse.Namespace(**{**vars(a), "score": None})
        key = ("advise", a.game, a.players, a.seat, a.dealer, a.preset, tuple(a.set),
               tuple(a.policy or ()), a.bound, a.declarer, a.plans, a.hand)
        per = _per_unit(key, lambda n: advice_of(
            argparse.Namespace(**{**vars(quick), "samples": n})), a.samples)
        seconds = per * a.samples
        if a.score is not None:
            # each score the hand can leave is played out `games` times (about a dozen)
            gkey = ("games", a.game, a.players, a.preset, tuple(a.set), tuple(a.policy or ()))
            rules, pols = rules_and_policies(a)
            sim = mod.api.simulate_games
            seconds += 12 * a.games * _per_unit(
                gkey, lambda n: sim(n, rules=rules, policy=pols, seed=a.seed), a.games)
    elif command == "compare":
        seconds = _compare_seconds(a)
    else:
        raise InputError(f"no estimate for {command!r}: expected advise or compare")
    return {"seconds": seconds, "text": _say(seconds)}


def _compare_seconds(a: argparse.Namespace) -> float:
    """Every variant's runs (each kind of unit the game's measures read, timed
    under the base's rules), the skill trace, and the adaptations not kept."""
    from simkit import adapt, skill
    from simkit.compare import DEFAULT_GAMES, DEFAULT_HANDS, SKILL_SHARE, check_variants

    g = games.get(a.game)
    variants = check_variants(g, a.variant, a.sweep)
    rules = g.make_rules(overrides=variants[0][1], players=a.players)
    pols = g.make_policies(a.policy, rules.players)
    units = {s.unit for s in g.measures(rules)}
    count = {"hand": a.hands or DEFAULT_HANDS, "game": a.games or DEFAULT_GAMES}

    def per(unit: str, policy=pols) -> float:
        key = ("compare", a.game, unit, a.players, tuple(map(str, policy)))
        return _per_unit(key, functools.partial(_simulate, g, unit, rules=rules, policy=policy,
                                                seed=a.seed), count[unit])

    seconds = sum(len(variants) * count[u] * per(u) for u in units)
    if "game" in units and not a.no_skill:
        # each rung: two tables of a tenth of the games (fewer for a searching player)
        deals = max(200, count["game"] // SKILL_SHARE)
        for weaker, stronger in skill.rungs(g, pols[0].text()):
            n = skill.deals(g, stronger, deals)
            table = [(stronger, weaker)[s % 2] for s in range(rules.players)]
            seconds += len(variants) * 2 * n * per("game", table)
    if a.adapt:
        start = adapt.check(a.game, a.policy)
        for _, ov in variants:
            req = adapt.request(a.game, g.make_rules(overrides=ov, players=a.players), start,
                                a.param or None, a.seed, a.adapt_rounds or adapt.ROUNDS,
                                a.adapt_trials or adapt.TRIALS, a.adapt_games)
            if adapt.kept_result(req) is None:
                # about two rounds: a search, its confirmation, and one that confirms it
                games_ = 2 * (req.trials * 2 * req.deals + 2 * adapt.CONFIRM * req.deals)
                seconds += games_ * per(req.unit)
    return seconds


def _simulate(g, unit: str, n: int, **options) -> object:
    from simkit import engine

    return engine.simulate(g, unit, n, **options)


# --- the first start ------------------------------------------------------------------

def warm_up(report: Callable[[str], None] | None = None) -> None:
    """Run, small, what the pages run (the advisors with the default table and
    Pepper's bound, a hand of every game shown), so that machine code is
    compiled (minutes on a fresh install; seconds once cached) before anyone
    waits for it.  ``report`` is told each step."""
    steps = [("pepper advisor", "advise", [("game", "pepper"), ("hand", "JH JD AH KH 9C 9S"),
                                          ("samples", "64"), ("bound", "1")]),
             ("pitch advisor", "advise", [("game", "pitch"), ("hand", "AS KS QS JS 10S 9S"),
                                         ("samples", "64")])]
    for label, command, params in steps:
        if report:
            report(label)
        advise(parse(command, params), Work())      # in steps, under the kernel lock
    for g in games.specs():
        if report:
            report(f"{g.name} hand viewer")
        show(parse("show", [("game", g.name), ("index", "0")]))
