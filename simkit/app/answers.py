"""One function behind each answer simkit gives, whichever way it is asked.

The command line (:mod:`simkit.app.cli`) and the web app (:mod:`simkit.app.web`)
both call these, so ``simkit advise ... --json`` and ``GET /api/advise?...``
print the same numbers for the same options.  Options arrive as the
command's parsed arguments (an :class:`argparse.Namespace`); the web app
turns a query into them with :func:`parse`, through the command line's own
parser, so every check and every error message is the command's.

Long answers take ``work`` (:class:`simkit.runs.batches.Work`): progress reports
and a stop switch.  :func:`estimate` says how long a run will take before
it starts, from a short timed run of the same table.

The web app takes less than the command line: :func:`parse` also holds a
query to :func:`limits` (the most samples, hands, games... a request may
name), refuses empty values, and :func:`check` runs every check an answer
runs before its first simulation, so a bad request is refused before any
work starts.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Unpack, cast

from simkit import games
from simkit.base.errors import InputError
from simkit.runs.batches import KERNEL_LOCK, WAIT, Cancelled, Work

if TYPE_CHECKING:
    from simkit.base.cards import Deck
    from simkit.base.config import Config
    from simkit.engine import Advisor, Game, RunArgs
    from simkit.lab.adapt import Request

#: The options each answer takes from a query: the command line's long option
#: names (``index`` is ``show``'s ``--hand``, the hand's number in the run).
OPTIONS = {
    "advise": ("hand", "players", "seat", "dealer", "preset", "set", "policy", "score",
               "samples", "seed", "bound", "declarer", "plans", "games"),
    "compare": ("variant", "sweep", "players", "policy", "hands", "games", "seed", "adapt",
                "param", "adapt-rounds", "adapt-trials", "adapt-games", "adapt-seeds", "skill",
                "margin"),
    "show": ("players", "preset", "set", "policy", "seed", "index"),
    "search": ("rule", "goal", "minimize", "maximize", "players", "policy", "trials", "hands",
               "games", "seed", "sampler"),
}
#: Options that may be given more than once (``set=a=1&set=b=2``).
REPEATABLE = ("set", "policy", "variant", "param", "margin", "sweep", "rule", "goal",
              "minimize", "maximize")
#: Options that are on or off: ``bound=1`` (also true, on, yes; 0, false, off, no).
FLAGS = ("bound", "declarer", "adapt")
#: Options that are on unless turned off: ``skill=0`` is ``--no-skill``.
ON_FLAGS = ("skill",)
_ON, _OFF = ("1", "true", "on", "yes"), ("0", "false", "off", "no")


@functools.cache
def limits() -> dict[str, Any]:
    """The most each size a web request names may be, per answer (the command
    line takes more: :data:`simkit.runs.batches.MAX_COUNT`, ``MAX_HELD``): small
    enough that one request neither holds the machine for long nor fills its
    memory.  ``plans`` counts the names in the list, ``variants`` the
    variants and sweep values together, ``adapt-games`` is per game (each
    game's default: a tuning trial of about a second, so that a stop is seen
    soon).  JSON-ready; ``GET /api/limits`` states it."""
    from simkit.base.rng import MAX_STREAMS
    from simkit.lab.adapt import DEALS
    from simkit.lab.compare import MAX_VARIANTS

    return {"advise": {"samples": 2_000_000, "games": 50_000, "plans": 16,
                       "score": SCORE_TEXT},
            "compare": {"hands": 5_000_000, "games": 200_000, "variants": MAX_VARIANTS,
                        "adapt-rounds": 8, "adapt-trials": 128, "adapt-seeds": 4,
                        "adapt-games": {g: DEALS.get(g, 2_000) for g in games.GAMES}},
            "show": {"index": MAX_STREAMS - 1},
            "search": {"trials": 200, "hands": 1_000_000, "games": 50_000}}


#: A web request's score: each value within this many times the game's target
#: either way (at least :data:`SCORE_FLOOR`), so that the games played out
#: from it last about as long as games from the start.
SCORE_TARGETS, SCORE_FLOOR = 2, 100
SCORE_TEXT = (f"each value at most {SCORE_TARGETS} times the game's target either way "
              f"(at least {SCORE_FLOOR})")


def _score_within(a: argparse.Namespace) -> None:
    """An InputError for a score further from 0 than :data:`SCORE_TEXT` allows."""
    if getattr(a, "score", None) is None:
        return
    rules, _ = rules_and_policies(a)
    most = max(SCORE_FLOOR, SCORE_TARGETS * int(getattr(rules, "target", 0) or 0))
    for part in str(a.score).split(":"):
        try:
            value = int(part)
        except ValueError:
            return                      # the advisor's own check names a bad score
        if abs(value) > most:
            raise InputError(f"bad score {a.score!r}: the web app takes scores within "
                             f"{most:,} either way ({SCORE_TARGETS} times the game's target, "
                             f"at least {SCORE_FLOOR}; the command line takes more)")


def _within(command: str, a: argparse.Namespace) -> None:
    """An InputError naming the first size of ``a`` over :func:`limits` (the
    count of variants is :func:`check`'s: ``compare.check_variants`` names it)."""
    for key, most in limits()[command].items():
        if key == "variants":
            continue
        if key == "score":
            _score_within(a)
            continue
        value = getattr(a, {"index": "hand"}.get(key, key).replace("-", "_"))
        if key == "plans" and value is not None:
            value = len(value.split(","))
        where = ""
        if isinstance(most, dict):
            most, where = most[a.game], f" for {a.game}"
        if value is not None and value > most:
            shown = f"{value:,}" + (" names" if key == "plans" else "")
            raise InputError(f"bad {key} {shown}: the web app takes at most {most:,}{where} "
                             f"(the command line, simkit {command}, takes more)")


def parse(command: str, params: Iterable[tuple[str, str]]) -> argparse.Namespace:
    """A query's ``(key, value)`` pairs as the parsed arguments of ``simkit
    COMMAND``: checked by the command line's own parser and held to
    :func:`limits` (an InputError names any bad value).  An empty value is
    refused (leave an option out for its default), flags included."""
    from simkit.app.options import build_parser

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
        if not value.strip():
            raise InputError(f"empty {key}: give {key} a value, or leave it out for its "
                             f"default")
        if key in FLAGS + ON_FLAGS:
            if value.strip().lower() not in _ON + _OFF:
                raise InputError(f"bad {key} {value!r}: expected 1 (or true, on) or 0 "
                                 f"(or false, off)")
            on = value.strip().lower() in _ON
            if key in ON_FLAGS:
                argv += [] if on else [f"--no-{key}"]
            else:
                argv += [f"--{key}"] if on else []
        else:
            argv.append(f"--{'hand' if key == 'index' else key}={value}")
    if not game:
        raise InputError(f"give the game: game={'|'.join(games.GAMES)}")
    extra = ["--no-progress"] if command == "compare" else []
    a = build_parser().parse_args([command, game, *argv, *extra])
    _within(command, a)
    return a


# --- advise ---------------------------------------------------------------------------

def _advisor(game: str) -> Advisor:
    """A game's advisor, or an InputError for games without bids."""
    mod = games.advisor(game)
    if mod is None:
        bidding = [g for g in games.GAMES if games.REGISTRY[g].advisor is not None]
        raise InputError(f"simkit advise is for games with bids ({', '.join(bidding)}), "
                         f"not {game}")
    return mod


def rules_and_policies(a: argparse.Namespace) -> tuple[Any, tuple[Any, ...]]:
    """The validated rules and per-seat policies of a command's game options."""
    from simkit.base.config import parse_assignments

    g = games.get(a.game)
    g.check_players(a.players)
    rules = g.make_rules(a.preset, a.rules, parse_assignments(a.set), a.players)
    return rules, g.make_policies(a.policy, rules.players)


def from_record(a: argparse.Namespace) -> None:
    """``advise --from FILE``: the hand, seat, dealer, rules and score from a record,
    into the command's arguments (given both ways, they are refused)."""
    from simkit.bygame import record

    given = [f"--{k}" for k in ("hand", "seat", "dealer", "score", "players", "rules")
             if getattr(a, k) is not None] + (["--preset"] if a.preset != "seed" else []) \
        + (["--set"] if a.set else [])
    if given:
        raise InputError(f"--from takes the hand, seat, dealer, rules and score from the "
                         f"record: drop {', '.join(given)}")
    rec = record.parse(record.read_file(a.record))
    if rec.game != a.game:
        raise InputError(f"--from {a.record!r} is a record of {rec.game}, not {a.game}")
    dealer, hands = games.get(rec.game).dealt(list(rec.lines), rec.rules)
    P = rec.rules.players
    a.seat = (dealer + 1) % P if rec.seat is None else rec.seat
    a.dealer, a.score, a.players = dealer, rec.score, P
    a.hand = hands[a.seat]
    a.set = [f"{k}={v}" for k, v in rec.rules.as_dict().items() if k != "players"]
    a.preset = rec.preset or "seed"


def advice_of(a: argparse.Namespace, work: Work | None = None) -> tuple[Advisor, Any]:
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
    if a.games is not None and a.score is None:
        raise InputError(f"--games {a.games} plays games out from a score: give the score "
                         f"too (--score US:THEM), or drop --games")
    extra = {"bound": True} if a.bound else {}
    if a.games is not None:
        extra["games"] = a.games
    advice = mod.advise(a.hand, players=rules.players, seat=a.seat,
                        dealer=0 if a.dealer is None else a.dealer,
                        samples=a.samples, score=a.score, rules=rules, policy=pols,
                        seed=a.seed, threads=getattr(a, "threads", None),
                        declarer=a.declarer, plans=a.plans, work=work, **extra)
    return mod, advice


def advice_json(mod: Advisor, advice: Any, a: argparse.Namespace) -> dict[str, Any]:
    """What ``simkit advise --json`` prints: the advisor's JSON and the seed."""
    return {**mod.advice_json(advice), "seed": int(a.seed)}


def advise(a: argparse.Namespace, work: Work | None = None) -> dict[str, Any]:
    """Exactly what ``simkit advise ... --json`` prints for these arguments."""
    mod, advice = advice_of(a, work)
    return advice_json(mod, advice, a)


# --- compare, show, replay ------------------------------------------------------------

def comparison_of(a: argparse.Namespace, work: Work | None = None) -> Any:
    """The tables of ``simkit compare`` (:func:`simkit.lab.compare.compare`)."""
    from simkit.lab.compare import CompareSettings
    from simkit.lab.compare import compare as run

    only = ("param", "scheduler", "adapt_rounds", "adapt_trials", "adapt_games", "adapt_seeds")
    given = [f"--{k.replace('_', '-')}" for k in only if getattr(a, k, None) not in (None, [])]
    if given and not a.adapt:
        raise InputError(f"{', '.join(given)} applies to --adapt only: add --adapt, or drop "
                         f"{'it' if len(given) == 1 else 'them'}")
    if getattr(a, "out", None) is not None:
        from simkit.lab.compare_text import MARKER
        from simkit.runs import owned
        # before any work: the tables (and adaptations) go there, into no one else's folder
        owned.check_own(a.out, MARKER, "compare")
    return run(a.game, a.variant, CompareSettings(
        players=a.players, hands=a.hands, games=a.games, seed=a.seed, policy=a.policy,
        threads=getattr(a, "threads", None), progress=not a.no_progress, work=work,
        sweep=a.sweep, adapt=a.adapt, params=a.param or None, out=getattr(a, "out", None),
        scheduler=getattr(a, "scheduler", None), skill_trace=not a.no_skill,
        adapt_rounds=getattr(a, "adapt_rounds", None),
        adapt_trials=getattr(a, "adapt_trials", None),
        adapt_games=getattr(a, "adapt_games", None),
        adapt_seeds=getattr(a, "adapt_seeds", None), margins=a.margin or None))


def compare(a: argparse.Namespace, work: Work | None = None) -> dict[str, Any]:
    """Exactly what ``simkit compare ... --json`` prints for these arguments."""
    from simkit.lab.compare import comparison_json

    return comparison_json(comparison_of(a, work))


@dataclass(frozen=True)
class ShowArgs:
    """What ``simkit show GAME --hand I`` shows: the arguments of
    :func:`simkit.bygame.record.show` and :func:`simkit.bygame.view.of_run`."""

    game: str
    rules: Any
    policies: list[str]
    seed: int
    index: int
    preset: str | None

    def kwargs(self) -> dict[str, Any]:
        """The arguments by name, as those functions take them."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def show_args(a: argparse.Namespace) -> ShowArgs:
    """``(game, rules, policy specs, seed, index, preset)`` of ``simkit show
    GAME --hand I ...`` (not ``--run``)."""
    if a.game is None:
        raise InputError("give the game (simkit show pepper --hand 12) or --run DIR")
    if a.hand is None:
        raise InputError("give --hand I: the hand's number in the run (Shiesta: the game's)")
    rules, pols = rules_and_policies(a)
    preset = a.preset if (a.preset != "seed" or not (a.set or a.rules)) else None
    return ShowArgs(game=a.game, rules=rules, policies=[p.text() for p in pols],
                    seed=a.seed or 0, index=a.hand, preset=preset)


def show(a: argparse.Namespace) -> dict[str, Any]:
    """The hand view (:func:`simkit.bygame.view.of_run`) of ``simkit show``'s
    arguments: its ``record`` is the text ``simkit show`` prints."""
    from simkit.bygame import view

    return view.of_run(**show_args(a).kwargs())


def replay(text: str, policies: list[str] | None = None) -> dict[str, Any]:
    """The hand view of a record (:func:`simkit.bygame.view.of_text`): ``record`` is
    what ``simkit replay`` prints; a bad record is one InputError line."""
    from simkit.bygame import view

    return view.of_text(text, policies or None)


# --- checked before any work ----------------------------------------------------------

class _Checked(Exception):
    """A dry run (:func:`check`) reached the answer's first announcement of effort."""


class _DryRun(Work):
    """The work of a dry run: it ends the answer where the answer first
    announces its effort (:meth:`Work.expect`) or checks for a stop, which
    every answer does after all its checks and before its first simulation."""

    def expect(self, amount: float) -> None:
        raise _Checked

    def check(self) -> None:
        raise _Checked


def check(command: str, a: argparse.Namespace) -> None:
    """Every check the answer of ``command`` runs before its first simulation,
    run now, in a fraction of a second (an InputError names a bad value): the
    rules, the policies, the hand, seat, dealer, score and plans of advise,
    the variants and sizes of compare (and with ``adapt``, the policy, the
    searched parameters and each variant's adaptation), the rules, policies
    and seed of show.  The web app calls it before it starts a job, so a bad
    value is refused at once, not reported by a failed job."""
    if command == "show":
        show_args(a)
        return
    if command == "search":
        from simkit.app import search_answers

        search_answers.spec_of(a)
        return
    if command not in ("advise", "compare"):
        raise InputError(f"nothing to check for {command!r}: expected advise, compare, search "
                         f"or show")
    dry = argparse.Namespace(**vars(a))
    if command == "compare" and a.adapt:
        dry.adapt, dry.param = False, []
        dry.adapt_rounds = dry.adapt_trials = dry.adapt_games = dry.adapt_seeds = None
    with contextlib.suppress(_Checked):
        (advise if command == "advise" else compare)(dry, _DryRun())
    if command == "compare" and a.adapt:
        _check_adapt(a)


def _adapt_request(a: argparse.Namespace, rules: Any, policy: str, seed: int) -> Request:
    """The adaptation of ``policy`` to ``rules`` that the command's ``--param`` and
    ``--adapt-*`` options ask for (:func:`simkit.lab.adapt.request`)."""
    from simkit.lab import adapt

    return adapt.request(a.game, rules, policy=policy, params=a.param or None, seed=seed,
                         rounds=a.adapt_rounds or adapt.ROUNDS, trials=a.adapt_trials,
                         deals=a.adapt_games)


def _check_adapt(a: argparse.Namespace) -> None:
    """What an adaptation checks: the one policy with parameters it fits, and
    the parameters searched (as ``simkit tune`` reads them), for every variant."""
    from simkit import tune
    from simkit.lab import adapt
    from simkit.lab.compare import check_variants

    g = games.get(a.game)
    start = adapt.check(a.game, a.policy)
    for _, overrides in check_variants(g, a.variant, a.sweep):
        rules = g.make_rules(overrides=overrides, players=a.players)
        req = _adapt_request(a, rules, start, a.seed)
        tune.make_spec(a.game, policy=start, params=list(req.params), against=[start],
                       settings=tune.SpecSettings(
                           players=rules.players, rules=rules.as_dict(), trials=req.trials,
                           seed=0, hands=req.deals if req.unit == "hand" else None,
                           games=req.deals if req.unit == "game" else None))


# --- what the pages need ----------------------------------------------------------------

def _deck_rows(deck: Deck) -> list[list[str]]:
    """A deck's cards, one row per suit (C D H S), highest first."""
    return [[deck.text(deck.card(r, s)) for r in reversed(deck.ranks)] for s in range(4)]


def _described(cls: type) -> list[tuple[str, str, str, str]]:
    """The rows of a game's rules or a policy's parameters (a
    :class:`~simkit.base.config.Config`, which :class:`~simkit.engine.Game`
    holds as a plain type)."""
    return cast("type[Config]", cls).describe()


def games_info() -> dict[str, Any]:
    """Everything the pages' forms offer, per game: players, rules, presets,
    policies and their parameters; for the games with an advisor the deck,
    the hand size per player count and the bidding plans."""
    out = []
    for g in games.specs():
        info = {"name": g.name, "title": g.title, "players": list(g.players),
                "default_players": g.make_rules().players, "unit": g.bench_unit,
                "presets": {k: dict(v) for k, v in g.presets.items()},
                "rules": [dict(zip(("key", "default", "accepted", "doc"), map(str, row)))
                          for row in _described(g.rules)],
                "policies": [{"name": name, "params": [
                    dict(zip(("key", "default", "accepted", "doc"), map(str, row)))
                    for row in _described(cls)]} for name, cls in g.policies.items()],
                "named_policies": dict(g.named_policies), "default_policy": g.default_policy,
                "advise": games.REGISTRY[g.name].advisor is not None, "bound": g.bound,
                "example_hand": g.example_hand}
        mod = games.advisor(g.name)
        if mod is not None:
            info["deck"] = _deck_rows(mod.DECK)
            info["hand_size"] = {str(p): mod.hand_size(p) for p in g.players}
            info["plans"] = {str(p): mod.plan_names(g.make_rules(players=p))
                             for p in g.players}
        out.append(info)
    return {"games": out}


# --- how long a run takes ---------------------------------------------------------------

#: A timing run grows until the units' share of its time shows above the fixed
#: cost of a call by this much (seconds), or it reaches the run's own size.
CALIBRATE = 0.3
#: Timings kept per process (the oldest is forgotten first).
KEEP_TIMINGS = 1024
_timings: dict[tuple[object, ...], _Rate] = {}
_timings_lock = threading.Lock()


@dataclass(frozen=True)
class _Rate:
    """The time of a run of n units: ``fixed + per * n`` seconds, measured up to
    ``upto`` units; ``sure`` once the units' share showed above the fixed cost
    (else a larger run is measured again)."""

    fixed: float
    per: float
    upto: int
    sure: bool

    def __call__(self, n: int) -> float:
        return self.fixed + self.per * n


def _time(run: Callable[[int], object], n: int) -> float:
    t0 = time.perf_counter()
    run(n)
    return time.perf_counter() - t0


def _timed(run: Callable[[int], object], most: int,
           stop: threading.Event | None = None) -> _Rate:
    """The :class:`_Rate` of ``run``: timed at 32 units (after a first call,
    which may compile) and at up to 8 times more, and more, until the larger run
    takes :data:`CALIBRATE` seconds more than the small one or reaches
    ``most``.  A call has a fixed cost (an advice's setup: a quarter of a
    second) that a rate per unit alone would multiply by the run's size.
    Once ``stop`` is set, Cancelled before the next timing run."""
    def timed(n: int) -> float:
        if stop is not None and stop.is_set():
            raise Cancelled("stopped")
        return _time(run, n)

    small = min(32, most)
    timed(small)
    t_small = timed(small)
    n, t = small, t_small
    while n < most and t < t_small + CALIBRATE:
        grew = t - t_small      # aim at a little over CALIBRATE: a step too far costs seconds
        n = min(most, int(n * (8 if grew <= 0 else min(8, max(2, 1.5 * CALIBRATE / grew)))))
        t = timed(n)
    per = max(t - t_small, 0.0) / (n - small) if n > small else t_small / small
    return _Rate(max(t_small - per * small, 0.0), per, n, t >= t_small + CALIBRATE)


def _hold(lock: threading.Lock, stop: threading.Event | None) -> None:
    """Acquire ``lock``, looking at ``stop`` while waiting (Cancelled once set)."""
    while not lock.acquire(timeout=WAIT):
        if stop is not None and stop.is_set():
            raise Cancelled("stopped")


def _rate(key: tuple[object, ...], run: Callable[[int], object], most: int,
          stop: threading.Event | None = None) -> _Rate:
    """The :class:`_Rate` of ``run``, measured once per ``key`` (per process),
    again for a larger run when the first was too small to be sure.  Once
    ``stop`` is set, Cancelled (a server shutting down does not wait for it)."""
    _hold(_timings_lock, stop)
    try:
        known = _timings.get(key)
        if known is None or not (known.sure or known.upto >= most):
            _hold(KERNEL_LOCK, stop)    # not beside another thread's kernels (batches.KERNEL_LOCK)
            try:
                _timings[key] = _timed(run, most, stop)
            finally:
                KERNEL_LOCK.release()
            while len(_timings) > KEEP_TIMINGS:
                del _timings[next(iter(_timings))]
        return _timings[key]
    finally:
        _timings_lock.release()


def _say(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {math.ceil(seconds)} s"
    return f"about {seconds / 60:.0f} min"


def estimate(command: str, a: argparse.Namespace,
             stop: threading.Event | None = None) -> dict[str, Any]:
    """How long ``command`` (``advise`` or ``compare``) will take with these
    arguments on this machine: ``{"seconds", "text"}``, from short timed runs
    of the same table (cached per table).  Once ``stop`` is set, the timing
    runs end (Cancelled)."""
    if command == "advise":
        mod = _advisor(a.game)
        quick = argparse.Namespace(**{**vars(a), "score": None, "games": None})
        key = ("advise", a.game, a.players, a.seat, a.dealer, a.preset, tuple(a.set),
               tuple(a.policy or ()), a.bound, a.declarer, a.plans, a.hand)
        seconds = _rate(key, lambda n: advice_of(
            argparse.Namespace(**{**vars(quick), "samples": n})), a.samples, stop)(a.samples)
        if a.score is not None:
            # each score the hand can leave is played out `games` times (about a dozen)
            gkey = ("games", a.game, a.players, a.preset, tuple(a.set), tuple(a.policy or ()))
            rules, pols = rules_and_policies(a)
            from simkit import engine
            g = games.get(a.game)
            n_games = a.games or getattr(mod, "GAMES", 10_000)
            rate = _rate(gkey, lambda n: engine.simulate(g, "game", engine.RunSettings(
                n, rules=rules, policy=pols, seed=a.seed)), n_games, stop)
            seconds += 12 * rate(n_games)
    elif command == "compare":
        seconds = _compare_seconds(a, stop)
    elif command == "search":
        seconds = _search_seconds(a, stop)
    else:
        raise InputError(f"no estimate for {command!r}: expected advise, compare or search")
    return {"seconds": seconds, "text": _say(seconds)}


def _compare_seconds(a: argparse.Namespace, stop: threading.Event | None = None) -> float:
    """Every variant's runs (each kind of unit the game's measures read, each
    variant timed under its own rules: a rule may make a game much longer),
    the skill trace, and the adaptations not kept; played once per
    adaptation.  Every timing is kept under all it depends on: the game, the
    unit, the rules, the table and the policies."""
    from simkit.lab import adapt, skill
    from simkit.lab.compare import DEFAULT_GAMES, DEFAULT_HANDS, SKILL_SHARE, check_variants

    g = games.get(a.game)
    variants = check_variants(g, a.variant, a.sweep)
    all_rules = [g.make_rules(overrides=ov, players=a.players) for _, ov in variants]
    pols = g.make_policies(a.policy, all_rules[0].players)
    units = {s.unit for s in g.measures(all_rules[0])}
    count = {"hand": a.hands or DEFAULT_HANDS, "game": a.games or DEFAULT_GAMES}

    def rate(unit: str, policy: Sequence[object] = pols, most: int | None = None,
             rules: Any = all_rules[0]) -> _Rate:
        """The rate of ``unit``s at this table under ``rules``, timed up to the
        run's size."""
        key = ("compare", a.game, unit, json.dumps(rules.as_dict(), sort_keys=True, default=str),
               tuple(map(str, policy)))
        return _rate(key, functools.partial(_simulate, game=g, unit=unit, rules=rules,
                                            policy=policy, seed=a.seed), most or count[unit], stop)

    seconds = sum(rate(u, rules=r)(count[u]) for u in units for r in all_rules)
    if "game" in units and not a.no_skill:
        # each rung: two tables of a tenth of the games (fewer for a searching player)
        deals = max(200, count["game"] // SKILL_SHARE)
        for weaker, stronger in skill.rungs(g, pols[0].text()):
            n = skill.deals(g, stronger, deals)
            table = [(stronger, weaker)[s % 2] for s in range(all_rules[0].players)]
            seconds += sum(2 * rate("game", table, n, rules=r)(n) for r in all_rules)
    if a.adapt:
        seconds *= a.adapt_seeds or adapt.SEEDS
        seconds += _adapt_seconds(a, g, [ov for _, ov in variants], rate)
    return seconds


def _search_seconds(a: argparse.Namespace, stop: threading.Event | None = None) -> float:
    """A search's time (:func:`simkit.app.search_answers.seconds`), each kind of
    unit timed at the base's rules and players, kept as compare's timings are."""
    from simkit.app import search_answers

    g = games.get(a.game)
    pols = g.make_policies(a.policy, g.resolve_rules(None, a.players).players)

    def rate(unit: str, rules: Any, most: int) -> _Rate:
        key = ("compare", a.game, unit, json.dumps(rules.as_dict(), sort_keys=True, default=str),
               tuple(map(str, pols)))
        return _rate(key, functools.partial(_simulate, game=g, unit=unit, rules=rules,
                                            policy=pols, seed=a.seed), most, stop)

    return search_answers.seconds(a, rate)


def search(a: argparse.Namespace, work: Work | None = None) -> dict[str, Any]:
    """Exactly what ``simkit search ... --json`` prints for these arguments."""
    from simkit.app import search_answers

    return search_answers.search(a, work)


def _adapt_seconds(a: argparse.Namespace, g: Game, variants: list[dict[str, Any]],
                   rate: Callable[..., _Rate]) -> float:
    """The adaptations not kept (each adaptation's base first: a later variant's
    start is the base's setting, known once the base is kept), and the
    best-response checks."""
    from simkit.lab import adapt

    start = adapt.check(a.game, a.policy)
    rules = [g.make_rules(overrides=ov, players=a.players) for ov in variants]
    seconds = 0.0
    for k in range(a.adapt_seeds or adapt.SEEDS):
        def req(i: int, policy: str, k: int = k) -> adapt.Request:
            return _adapt_request(a, rules[i], policy, adapt.adaptation_seed(a.seed, k))
        base = req(0, start)
        kept = adapt.kept_result(base)
        todo = [base] if kept is None else []
        for i in range(1, len(rules)):
            later = req(i, kept["setting"]) if kept is not None else base
            if kept is None or adapt.kept_result(later) is None:
                todo.append(later)
        games_ = sum(adapt.effort(r) for r in todo)
        games_ += len(rules) * (len(rules) - 1) * 2 * base.deals
        seconds += rate(base.unit, most=base.deals)(round(games_))
    return seconds


def _simulate(n: int, *, game: Game, unit: str, **options: Unpack[RunArgs]) -> object:
    """``n`` units at ``game``'s table (a timing run)."""
    from simkit import engine

    return engine.simulate(game, unit, engine.RunSettings(n, **options))


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
