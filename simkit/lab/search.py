"""Rule design by search: ``simkit search GAME --rule KEY=LOW:HIGH --goal
"MEASURE=VALUE" [--minimize M] [--maximize M] ...`` finds the rule settings
that meet a designer's goals.

- **What is searched**: rule options (``--rule``, :func:`simkit.lab.search_play.parse_rules`)
  over the base's rules (the rule book with ``--set``), played by the same
  players at every setting.
- **Goals** (:class:`simkit.lab.search_play.Goal`): a target ``M=V`` is an
  objective minimised as ``|M - V|``; ``--minimize`` and ``--maximize`` are
  objectives; ``M<=V`` and ``M>=V`` are Optuna constraints.  A search of
  bounds alone minimises their total shortfall, each in its measure's margins.
- **The engine is Optuna**: one objective with TPE (or CMA-ES,
  ``--sampler cmaes``), several with NSGA-II (or multi-objective TPE).  Trial
  ``n``'s sampler is seeded by the search's seed and ``n`` and given the
  finished trials only, so a search stopped and continued asks what an
  unbroken one asks (as :mod:`simkit.tune`).
- **Paired**: every trial plays the base's deals (the search's seed, units
  ``0 .. n-1``), so trials differ by their rules, not their cards.
- **Pruning** (one objective): a trial plays its deals in rungs, each three
  times the one before; Optuna's successive-halving pruner stops it where
  it is not among the best third of the trials that reached that rung.
- **The answer** is confirmed on fresh deals (:func:`simkit.tune.confirm_seed`
  of the seed), base and setting paired again: for one objective the best
  :data:`CONFIRM_BEST` settings of the search, the best of them on the fresh
  deals the answer; for several the Pareto front (at most
  :data:`MAX_FRONT` points), any point a confirmed point dominates moved
  among the dominated.  Every goal measure gets its 95% interval and every
  point its findings against the base (:mod:`simkit.lab.findings`).  A target
  is met where its interval holds the value or the value lies within the
  measure's margin of it (at most a tenth of the value: :meth:`Goal.tolerance
  <simkit.lab.search_play.Goal.tolerance>`); a bound where the confirmed value keeps it.  No
  setting that meets the goals is an answer too: the closest is named.
- **Storage** (``out``): ``_search.json`` (what was asked), ``_study.db``
  (Optuna's SQLite store, :mod:`simkit.runs.optuna_store`), ``_result.json``
  and ``front.png``: the same command continues a stopped search, or
  reprints a finished one; a damaged or busy store is refused in one line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import pathlib
import time
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from simkit import games as registry
from simkit.base import rng
from simkit.base.errors import InputError
from simkit.base.files import MAX_JSON_BYTES, read_text
from simkit.lab import search_play
from simkit.lab.search_play import Goal, Pairs, Played, Table
from simkit.runs import chunks, optuna_store, store
from simkit.runs.batches import check_count, check_held, set_threads
from simkit.tune import Param, confirm_seed

if TYPE_CHECKING:
    from simkit.lab.adapt import AdaptSettings

MANIFEST, STUDY_DB, RESULT, LOCK, FIGURE = ("_search.json", "_study.db", "_result.json",
                                            "_search.lock", "front.png")
#: Optuna's samplers by name: one objective (tpe, cmaes), several (nsga2, tpe).
SAMPLERS = ("tpe", "cmaes", "nsga2")
DEFAULT_TRIALS = 30
#: Units each trial plays when none are given, before the game's bench scale
#: divides them (at least MIN_UNITS).
DEFAULT_UNITS, MIN_UNITS = {"hand": 200_000, "game": 20_000}, 1_000
#: Settings of a one-objective search confirmed on fresh deals; front points at most.
CONFIRM_BEST, MAX_FRONT = 3, 10
#: Pruning: rungs of a trial's deals, each RUNG_FACTOR times the one before, the
#: first at least MIN_RUNG units.
RUNGS, RUNG_FACTOR, MIN_RUNG = 3, 3, 200
#: The constraints' value of a setting the rules refuse: far from every bound.
REFUSED = 1e9


@dataclasses.dataclass(frozen=True)
class Adapting:
    """How every setting's players are adapted to its rules (``--adapt``,
    :func:`simkit.lab.adapt.adapt`): the policy the base's adaptation starts
    from, the parameters searched (empty: all), the adaptation's sizes (None:
    its defaults) and seed."""

    policy: str
    params: tuple[str, ...] = ()
    rounds: int | None = None
    trials: int | None = None
    games: int | None = None
    seed: int = 0

    def settings(self, out: pathlib.Path | None, table: Table) -> AdaptSettings:
        """:func:`simkit.lab.adapt.adapt`'s settings, its tournaments played
        where the table plays."""
        from simkit.lab.adapt import AdaptSettings

        return AdaptSettings(seed=self.seed, rounds=self.rounds, trials=self.trials,
                             deals=self.games, out=out, threads=table.threads,
                             scheduler=table.scheduler)


@dataclasses.dataclass(frozen=True)
class Spec:
    """What a search was asked, checked: what its manifest keeps."""

    game: str
    players: int
    base: dict[str, Any]                    # the base's rules, every value
    policies: tuple[str, ...]
    params: tuple[Param, ...]
    goals: tuple[Goal, ...]
    counts: tuple[tuple[str, int], ...]     # (unit, units per trial) per kind played
    trials: int
    seed: int
    sampler: str
    adapt: Adapting | None = None

    @property
    def objectives(self) -> list[Goal]:
        """The goals Optuna optimises (targets, minimise, maximise)."""
        return [g for g in self.goals if g.objective]

    @property
    def bounds(self) -> list[Goal]:
        """The goals that are Optuna's constraints (``<=``, ``>=``)."""
        return [g for g in self.goals if not g.objective]

    def directions(self) -> list[Any]:
        """Optuna's direction per objective (one, minimised, for bounds alone)."""
        return [g.direction() for g in self.objectives] or ["minimize"]

    def rungs(self) -> list[dict[str, int]]:
        """The units every trial has played after each rung (one rung for
        several objectives: Optuna prunes only single-objective studies)."""
        least = min(n for _, n in self.counts)
        many = 1 if len(self.directions()) > 1 else next(
            (r for r in range(RUNGS, 1, -1) if least // RUNG_FACTOR ** (r - 1) >= MIN_RUNG), 1)
        return [{u: -(-n // RUNG_FACTOR ** (many - 1 - j)) for u, n in self.counts}
                for j in range(many)]

    def key(self) -> dict[str, Any]:
        """Everything that makes two searches the same (but their trial count)."""
        # as the manifest keeps it: JSON's lists for tuples, strings for choices
        key = {"game": self.game, "players": self.players, "base": self.base,
               "policies": list(self.policies), "params": [p.text() for p in self.params],
               "goals": [g.text for g in self.goals], "counts": [list(c) for c in self.counts],
               "seed": self.seed, "sampler": self.sampler,
               "adapt": None if self.adapt is None else dataclasses.asdict(self.adapt)}
        out: dict[str, Any] = json.loads(json.dumps(key, default=str))
        return out


@dataclasses.dataclass(frozen=True)
class SpecSettings:
    """The options of :func:`make_spec` (every one has its default).

    The base: ``rules`` (a rules object, dict or None: the game's own),
    ``players`` (None: the game's default) and ``policy`` (one spec or one
    per seat; None: the game's default).  The goals: ``goals`` (measure
    goals and bounds), ``minimize`` and ``maximize`` (measures).  The search:
    ``trials`` (None: :data:`DEFAULT_TRIALS`), ``hands``/``games`` per trial
    (None: :data:`DEFAULT_UNITS`), ``seed`` and ``sampler`` (one of
    :data:`SAMPLERS`; None: nsga2 for several objectives, else tpe).  With
    ``adapt`` the players are adapted to every trial's rules
    (:mod:`simkit.lab.adapt`): ``params`` the policy's parameters fitted,
    ``adapt_rounds``, ``adapt_trials`` and ``adapt_games`` its sizes (None:
    the adaptation's defaults) and ``adapt_seed`` its seed (None: ``seed``);
    without ``adapt`` these must not be given."""

    rules: Any = None
    players: int | None = None
    policy: Any = None
    goals: Sequence[str] = ()
    minimize: Sequence[str] = ()
    maximize: Sequence[str] = ()
    trials: int | None = None
    hands: int | None = None
    games: int | None = None
    seed: int = 0
    sampler: str | None = None
    adapt: bool = False
    params: Sequence[str] | None = None
    adapt_rounds: int | None = None
    adapt_trials: int | None = None
    adapt_games: int | None = None
    adapt_seed: int | None = None


def make_spec(game: str, searched: Sequence[str],
              settings: SpecSettings | None = None) -> Spec:
    """A checked :class:`Spec`: the ``searched`` rules (``--rule`` items) and
    the options ``settings`` (:class:`SpecSettings`; None: every default).
    Every bad value is an InputError, before any work."""
    o = SpecSettings() if settings is None else settings
    g = registry.get(game)
    g.check_players(o.players)
    base = g.resolve_rules(o.rules, o.players)
    seed = o.seed
    rng.run_key(seed)
    params = search_play.parse_rules(g, searched)
    goals = search_play.parse_goals(search_play.catalogue(g.measures(base)),
                                    o.goals or (), o.minimize or (), o.maximize or ())
    several = sum(goal.objective for goal in goals) > 1
    sampler = o.sampler or ("nsga2" if several else "tpe")
    if sampler not in SAMPLERS:
        raise InputError(f"bad --sampler {sampler!r}: expected one of " + ", ".join(SAMPLERS))
    if sampler == "cmaes" and (several or any(not goal.objective for goal in goals)):
        raise InputError("--sampler cmaes takes one objective and no bound (<=, >=): give "
                         "--sampler tpe or nsga2")
    pols = g.make_policies(o.policy, base.players)
    trials = o.trials or DEFAULT_TRIALS
    check_count(trials, "--trials")
    return Spec(game=g.name, players=base.players, base=base.as_dict(),
                policies=tuple(p.text() for p in pols), params=params, goals=goals,
                counts=_counts(g, goals, o.hands, o.games), trials=trials,
                seed=seed, sampler=sampler, adapt=_adapting(g, base, seed, o))


def _adapting(g: Any, base: Any, seed: int, o: SpecSettings) -> Adapting | None:
    """The players' adaptation (None without ``adapt``), checked: one policy
    with parameters, the searched parameters, the sizes."""
    from simkit.lab import adapt

    if not o.adapt:
        options = {"params": "--param", "adapt_rounds": "--adapt-rounds",
                   "adapt_trials": "--adapt-trials", "adapt_games": "--adapt-games",
                   "adapt_seed": "--adapt-seed"}
        given = [flag for k, flag in options.items() if getattr(o, k) not in (None, [], ())]
        if given:
            raise InputError(f"{', '.join(given)} apply with --adapt: add it, or drop them")
        return None
    sizes, a_seed = adapt.checked_sizes(o, seed)
    out = Adapting(policy=adapt.check(g.name, o.policy),
                   params=tuple(o.params or ()), seed=a_seed, **sizes)
    if out.params:      # checked before anything is written, as tune checks them
        from simkit import tune

        tune.parse_params(type(g.make_policies(out.policy, 1)[0].params), out.params)
    adapt.request(g.name, base, out.policy, out.params or None, seed=a_seed)
    return out


def _policies(spec: Spec, setting: str) -> tuple[str, ...]:
    """Every seat's policy text when every seat plays ``setting``."""
    g = registry.get(spec.game)
    return tuple(p.text() for p in g.make_policies(setting, spec.players))


def _adapted(s: _Search, rules: Any, trial: Any) -> tuple[str, ...] | None:
    """The policies of players adapted to ``rules`` (None without ``--adapt``),
    warm-started from the base's adapted setting; the adaptation is kept by
    the hash of what it depends on, so a continued search reuses it."""
    spec = s.spec
    if spec.adapt is None or s.base_setting is None:
        return None
    from simkit.lab import adapt

    res = adapt.adapt(spec.game, rules, s.base_setting, spec.adapt.params or None,
                      spec.adapt.settings(s.adapt_out(), s.table))
    trial.set_user_attr("setting", res["setting"])
    trial.set_user_attr("adapt_reused", bool(res.get("reused")))
    return _policies(spec, res["setting"])


def _counts(g: Any, goals: Sequence[Goal], hands: int | None,
            games: int | None) -> tuple[tuple[str, int], ...]:
    """The units a trial plays: of each kind the goals' measures are played in."""
    units = list(dict.fromkeys(goal.measure.unit for goal in goals))
    for given, unit in ((hands, "hand"), (games, "game")):
        if given is not None and unit not in units:
            other = "whole games" if unit == "hand" else "hands"
            raise InputError(f"--{unit}s does not apply: the goals' measures are played in "
                             f"{other}; give --{'games' if unit == 'hand' else 'hands'}")
    out = []
    for u in units:
        n = hands if u == "hand" else games
        if n is None:
            n = max(MIN_UNITS, DEFAULT_UNITS.get(u, DEFAULT_UNITS["game"]) // g.bench_scale)
        # a trial's units are held in memory at once (its records, the base's sums)
        check_held(n, f"--{u}s", u if u in ("hand", "game") else "game")
        out.append((u, int(n)))
    return tuple(out)


# --- the search ------------------------------------------------------------------------

@dataclasses.dataclass
class _Search:
    """A search under way: its spec, table, the base's plays per range (kept:
    every trial plays the same ranges), its studies and folder."""

    spec: Spec
    table: Table
    base_rules: Any
    live: Any
    kept: Any | None = None
    where: pathlib.Path | None = None
    base: dict[tuple[str, int, int, int], Played] = dataclasses.field(default_factory=dict)
    base_setting: str | None = None         # with --adapt: the base's adapted setting

    def adapt_out(self) -> pathlib.Path | None:
        """Where adaptations are kept: in the search's folder, else simkit's cache."""
        return None if self.where is None else self.where / "adapt"

    def base_play(self, unit: str, seed: int, span: tuple[int, int]) -> Played:
        """The base on units ``span`` of ``seed`` (played once)."""
        key = (unit, seed, *span)
        if key not in self.base:
            self.base[key] = search_play.play(self.table, unit, self.base_rules, seed, span)
        return self.base[key]

    def pair(self, setting: tuple[Any, Sequence[str] | None], seed: int,
             upto: dict[str, int], pairs: Pairs, played: dict[str, int]) -> None:
        """Add the play of ``setting`` (rules, and the policies adapted to them or
        None) on units ``played[u] .. upto[u]-1`` to ``pairs``."""
        rules, policies = setting
        for u, n in upto.items():
            span = (played[u], n - played[u])
            if span[1] > 0:
                pairs.add(u, self.base_play(u, seed, span),
                          search_play.play(self.table, u, rules, seed, span,
                                           policies=policies))
            played[u] = n


class RunArgs(TypedDict, total=False):
    """The keyword options of :func:`run` (see there)."""

    out: store.StrPath | None
    threads: int | None
    scheduler: str | None
    progress: bool


def run(spec: Spec, **kw: Unpack[RunArgs]) -> dict[str, Any]:
    """Search, confirm and return the result (see the module notes; the text
    and JSON of it: :mod:`simkit.lab.search_text`); with ``out`` kept there
    and continued from there.  ``threads``: the kernels'; ``scheduler``: a Dask
    cluster's address, whose workers play every trial's deals in chunks (the
    same deals, so the same answer); ``progress``: a bar."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    t0 = time.perf_counter()
    set_threads(kw.get("threads"))          # checked before anything is written
    scheduler = kw.get("scheduler")
    if scheduler is not None:
        chunks.check_scheduler(scheduler)
    g = registry.get(spec.game)
    base_rules = g.make_rules(overrides=spec.base, players=spec.players)
    with contextlib.ExitStack() as held:
        where = _open(spec, kw.get("out"), held)
        if where is not None and (where / RESULT).exists():
            done = _finished(where)
            done.update(complete_before=True, seconds=time.perf_counter() - t0)
            return done
        live = optuna.create_study(directions=spec.directions(), sampler=_sampler(spec, 0),
                                   pruner=_pruner(spec))
        table = Table(g, tuple(g.measures(base_rules)), spec.policies, kw.get("threads"),
                      scheduler)
        s = _Search(spec, table, base_rules, live, where=where)
        if spec.adapt is not None:
            s.base_setting = _base_setting(s)
            s.table = dataclasses.replace(table, policies=_policies(spec, s.base_setting))
        if where is not None:
            s.kept, finished = optuna_store.load(where / STUDY_DB, "simkit-search",
                                                 spec.directions(), "search")
            live.add_trials(finished)
        _trials(s, kw.get("progress", False))
        try:
            result = _result(s)
        except KeyboardInterrupt:       # in the confirmation: every trial is kept
            raise optuna_store.Interrupted(spec.trials, spec.trials, where) from None
        result.update(seconds=time.perf_counter() - t0, complete_before=False)
        if where is not None:
            _keep_result(where, spec, result)
        return result


def _base_setting(s: _Search) -> str:
    """The base's players adapted to its rules (kept as every adaptation is)."""
    from simkit.lab import adapt

    spec = s.spec
    assert spec.adapt is not None
    try:
        res = adapt.adapt(spec.game, s.base_rules, spec.adapt.policy,
                          spec.adapt.params or None,
                          spec.adapt.settings(s.adapt_out(), s.table))
    except KeyboardInterrupt:
        raise optuna_store.Interrupted(0, spec.trials, s.where) from None
    return str(res["setting"])


def _trials(s: _Search, progress: bool) -> None:
    """Play the trials still to play, each kept as it finishes."""
    import optuna
    from tqdm import tqdm

    spec, study = s.spec, s.live
    done = len(study.trials)
    with tqdm(total=spec.trials, initial=done, unit="trial", delay=1.0,
              disable=not progress, desc=f"{spec.game} search") as bar:
        while done < spec.trials:
            study.sampler = _sampler(spec, done)
            trial = study.ask()
            values = {p.name: search_play.suggest(trial, p) for p in spec.params}
            try:
                scores = _play_trial(s, trial, values)
            except KeyboardInterrupt:
                raise optuna_store.Interrupted(done, spec.trials, s.where) from None
            # a trial cut off is never kept: a continued search plays it again
            frozen = (study.tell(trial, scores) if scores is not None
                      else study.tell(trial, state=optuna.trial.TrialState.PRUNED))
            if s.kept is not None:
                optuna_store.keep(s.kept, frozen, s.where or "", "search")
            done += 1
            bar.update(1)
            best = _best_line(study, spec)
            if best:
                bar.set_postfix_str(best)


def _play_trial(s: _Search, trial: Any, values: dict[str, Any]) -> list[float] | None:
    """Play ``trial``'s rules rung by rung on the base's deals; its objectives'
    values, or None where the pruner stopped it or the rules refuse the
    setting (said in the trial's ``refused``)."""
    spec = s.spec
    try:
        rules = s.base_rules.replace(**values)
    except InputError as e:
        trial.set_user_attr("refused", str(e))
        _constrain(trial, spec, [REFUSED] * len(spec.bounds))
        return None
    policies = _adapted(s, rules, trial)
    units = [u for u, _ in spec.counts]
    pairs, played = Pairs(s.table, units), dict.fromkeys(units, 0)
    rungs = spec.rungs()
    scores: list[float] = []
    measured: dict[str, float] = {}
    stopped = False
    for j, upto in enumerate(rungs):
        s.pair((rules, policies), spec.seed, upto, pairs, played)
        pairs.finish()
        measured = {goal.measure.name: pairs.value(goal.measure) for goal in spec.goals}
        scores = _scores(spec, measured)
        trial.set_user_attr("measures", measured)
        trial.set_user_attr("units", dict(upto))
        if len(rungs) > 1:
            trial.report(scores[0], RUNG_FACTOR ** j)
            if j < len(rungs) - 1 and trial.should_prune():
                stopped = True
                break
    _constrain(trial, spec, [goal.violation(measured[goal.measure.name])
                             for goal in spec.bounds])
    return None if stopped else scores


def _constrain(trial: Any, spec: Spec, values: list[float]) -> None:
    """Tell Optuna the bounds' violations (positive: not met; a measure with no
    value counts as far off), once, as the trial ends."""
    kept = [v if math.isfinite(v) else REFUSED for v in values]
    trial.set_user_attr("constraints", kept)
    for goal, v in zip(spec.bounds, kept):
        trial.set_constraint(goal.text, v)


def _scores(spec: Spec, measured: dict[str, float]) -> list[float]:
    """The objectives' values (NaN as infinitely bad); bounds alone: their
    total shortfall, each in its measure's margins."""
    if spec.objectives:
        out = []
        for goal in spec.objectives:
            v = goal.score(measured[goal.measure.name])
            out.append(v if math.isfinite(v) else (-math.inf if goal.op == "max" else math.inf))
        return out
    return [sum(goal.distance(measured[goal.measure.name]) / (goal.measure.margin or 1.0)
                for goal in spec.bounds)]


def _constraints(t: Any) -> Sequence[float]:
    """A finished trial's bounds' violations (positive: not met)."""
    return list(t.user_attrs.get("constraints", []))


def _sampler(spec: Spec, number: int) -> Any:
    """Trial ``number``'s sampler, seeded by the search's seed and the number."""
    import optuna

    seed = int.from_bytes(hashlib.sha256(f"search:{spec.seed}:{number}".encode()).digest()[:4],
                          "little")
    with warnings.catch_warnings():     # Optuna calls these "experimental"
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        # the bounds reach the samplers as each trial's constraints (_constrain)
        tpe = optuna.samplers.TPESampler(seed=seed)
        if spec.sampler == "nsga2":
            return optuna.samplers.NSGAIISampler(
                seed=seed, population_size=max(4, min(50, spec.trials // 4)))
        if spec.sampler == "cmaes":
            return optuna.samplers.CmaEsSampler(
                seed=seed, warn_independent_sampling=False, consider_pruned_trials=True,
                independent_sampler=tpe)
        return tpe


def _pruner(spec: Spec) -> Any:
    import optuna

    if len(spec.rungs()) < 2:
        return optuna.pruners.NopPruner()
    return optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=RUNG_FACTOR,
                                                  min_early_stopping_rate=0)


def _best_line(study: Any, spec: Spec) -> str:
    """The progress bar's note: the best objective so far (one objective)."""
    if len(spec.directions()) > 1:
        return ""
    done = _complete(study)
    if not done:
        return ""
    best = min(done, key=lambda t: _rank(spec, t))
    return f"best {best.values[0]:.4g}"


def _complete(study: Any) -> list[Any]:
    import optuna

    done: list[Any] = study.get_trials(deepcopy=False,
                                       states=(optuna.trial.TrialState.COMPLETE,))
    return done


def _rank(spec: Spec, t: Any) -> tuple[bool, float, int]:
    """A complete trial's place among one objective's: feasible first, then by value."""
    feasible = all(c <= 0 for c in _constraints(t))
    v = t.values[0]
    return (not feasible, -v if spec.directions()[0] == "maximize" else v, t.number)


# --- the answer ------------------------------------------------------------------------

def _rules_of(spec: Spec, t: Any) -> dict[str, Any]:
    """The searched rules' values a trial played (floats without grid noise)."""
    return {p.name: round(v, 6) if isinstance(v, float) else v
            for p, v in ((p, t.params[p.name]) for p in spec.params)}


def _trial_rows(spec: Spec, study: Any) -> list[dict[str, Any]]:
    """Every finished trial: its rules, state and values on the search's deals."""
    import optuna

    states = optuna.trial.TrialState
    rows = []
    for t in study.get_trials(deepcopy=False, states=(states.COMPLETE, states.PRUNED)):
        row: dict[str, Any] = {"number": t.number, "rules": _rules_of(spec, t),
                               "state": "refused" if "refused" in t.user_attrs
                               else t.state.name.lower(),
                               "measures": dict(t.user_attrs.get("measures", {})),
                               "units": dict(t.user_attrs.get("units", {})),
                               "objectives": list(t.values) if t.values else None}
        if "refused" in t.user_attrs:
            row["refused"] = t.user_attrs["refused"]
        if "setting" in t.user_attrs:
            row["setting"] = t.user_attrs["setting"]
            row["adapt_reused"] = t.user_attrs.get("adapt_reused", False)
        rows.append(row)
    return rows


def _candidates(spec: Spec, study: Any) -> list[Any]:
    """The trials confirmed on fresh deals: one objective's best
    :data:`CONFIRM_BEST` settings, or the front (at most :data:`MAX_FRONT`,
    spread along the first objective)."""
    done = _complete(study)
    if len(spec.directions()) == 1:
        ranked = sorted(done, key=lambda t: _rank(spec, t))
    else:
        feasible = [t for t in done if all(c <= 0 for c in _constraints(t))]
        ranked = sorted(_nondominated(spec, feasible or done, lambda t: t.values),
                        key=lambda t: (t.values[0], t.number))
    out, seen = [], set()
    for t in ranked:
        key = json.dumps(_rules_of(spec, t), sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(t)
    if len(spec.directions()) == 1:
        return out[:CONFIRM_BEST]
    if len(out) > MAX_FRONT:
        step = (len(out) - 1) / (MAX_FRONT - 1)
        out = [out[round(i * step)] for i in range(MAX_FRONT)]
    return out


def _nondominated(spec: Spec, items: Sequence[Any], values: Any) -> list[Any]:
    """The items no other dominates (``values(item)``: its objectives)."""
    signs = [-1.0 if d == "maximize" else 1.0 for d in spec.directions()]

    def vec(item: Any) -> list[float]:
        return [s * v for s, v in zip(signs, values(item))]

    def dominates(a: list[float], b: list[float]) -> bool:
        return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))

    vecs = [vec(i) for i in items]
    return [i for i, v in zip(items, vecs) if not any(dominates(w, v) for w in vecs)]


def _confirm(s: _Search, t: Any, fresh: int) -> dict[str, Any]:
    """Trial ``t``'s setting and the base on fresh deals: every goal measure with
    its interval and finding against the base, whether each goal is met."""
    spec = s.spec
    rules = s.base_rules.replace(**t.params)
    setting = t.user_attrs.get("setting")
    policies = None if setting is None else _policies(spec, setting)
    units = [u for u, _ in spec.counts]
    pairs = Pairs(s.table, units)
    s.pair((rules, policies), fresh, dict(spec.counts), pairs, dict.fromkeys(units, 0))
    pairs.finish()
    rows = pairs.rows(s.table, fresh)
    measures, base, meets = {}, {}, {}
    for goal in spec.goals:
        m = goal.measure
        value, lo, hi = pairs.interval(m, 1, fresh)
        measures[m.name] = {"value": value, "ci_low": lo, "ci_high": hi,
                            **(search_play.row_of(m, rows) or {})}
        b, b_lo, b_hi = pairs.interval(m, 0, fresh)
        base[m.name] = {"value": b, "ci_low": b_lo, "ci_high": b_hi}
        if not goal.objective or goal.op == "=":
            meets[goal.text] = bool(goal.met(value, lo, hi))
    scores = _scores(spec, {n: v["value"] for n, v in measures.items()})
    return {"trial": t.number, "rules": _rules_of(spec, t), "setting": setting,
            "measures": measures,
            "meets": meets, "meets_all": all(meets.values()),
            "objectives": scores, "search_objectives": list(t.values),
            "distance": {goal.text: goal.distance(measures[goal.measure.name]["value"])
                         for goal in spec.goals if goal.op in ("=", "<=", ">=")},
            "findings": search_play.base_findings(rows),
            "differing": search_play.differing(pairs), "base": base}


def _result(s: _Search) -> dict[str, Any]:
    """The trials, the confirmed answer and its front (see the module notes)."""
    spec = s.spec
    fresh = confirm_seed(spec.seed)
    candidates = _candidates(spec, s.live)
    confirmed = [_confirm(s, t, fresh) for t in candidates]
    several = len(spec.directions()) > 1
    bounded = [c for c in confirmed if all(c["meets"][g.text] for g in spec.bounds)]
    if several:
        front = _nondominated(spec, bounded or confirmed, lambda c: c["objectives"])
    else:
        pool = bounded or confirmed
        front = [min(pool, key=lambda c: (not c["meets_all"], _signed(spec, c), c["trial"]))
                 ] if pool else []
    on_front = {c["trial"] for c in front}
    dominated = [dict(c, confirmed=True) for c in confirmed if c["trial"] not in on_front]
    trials = _trial_rows(spec, s.live)
    dominated += [dict(t, confirmed=False) for t in trials
                  if t["state"] == "complete" and t["number"] not in
                  {c["trial"] for c in confirmed}]
    base = confirmed[0]["base"] if confirmed else {}
    return {"game": spec.game, "players": spec.players, "seed": spec.seed,
            "confirm_seed": fresh, "policies": list(spec.policies), "sampler": spec.sampler,
            "units": dict(spec.counts), "searched": [p.text() for p in spec.params],
            "goals": [_goal_json(g) for g in spec.goals], "several": several,
            "base": {"rules": {p.name: spec.base[p.name] for p in spec.params},
                     "measures": base, "setting": s.base_setting},
            "adapted": spec.adapt is not None,
            "trials": trials, "pruned": sum(t["state"] == "pruned" for t in trials),
            "tables": {"front": front, "dominated": dominated, "confirmed": confirmed},
            "answer": _answer(front, several)}


def _signed(spec: Spec, c: dict[str, Any]) -> float:
    v = float(c["objectives"][0])
    return -v if spec.directions()[0] == "maximize" else v


def _goal_json(g: Goal) -> dict[str, Any]:
    return {"goal": g.text, "measure": g.measure.name, "key": g.measure.key,
            "kind": g.measure.kind, "op": g.op,
            "value": g.value, "objective": g.objective, "margin": g.measure.margin}


def _answer(front: list[dict[str, Any]], several: bool) -> dict[str, Any]:
    """Whether a confirmed setting meets every goal; if none does, the closest."""
    meeting = [c for c in front if c["meets_all"]]
    if meeting:
        return {"met": True, "settings": [c["rules"] for c in meeting], "closest": None}
    closest = (min(front, key=lambda c: (sum(c["distance"].values()), c["trial"]))
               if front else None)
    return {"met": False, "settings": [],
            "closest": None if closest is None else {"rules": closest["rules"],
                                                     "trial": closest["trial"],
                                                     "distance": closest["distance"]},
            "several": several}


# --- storage ---------------------------------------------------------------------------

def _manifest(spec: Spec) -> dict[str, Any]:
    return {"kind": "search", "spec": spec.key(), "trials": spec.trials}


def _held_manifest(where: pathlib.Path, out: str) -> dict[str, Any]:
    """The search manifest in ``where``, or an InputError: the folder holds no search."""
    try:
        held = json.loads(read_text(str(where / MANIFEST), f"'{where / MANIFEST}'",
                                    MAX_JSON_BYTES))
        if not isinstance(held, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError, InputError):
        raise InputError(f"--out {out!r} is not empty and holds no search ({MANIFEST} missing "
                         "or unreadable): give a new directory") from None
    return held


def _open(spec: Spec, out: store.StrPath | None,
          held: contextlib.ExitStack[Any]) -> pathlib.Path | None:
    """The search's folder, made or checked against what it holds, and locked
    for this search until ``held`` closes."""
    if out is None:
        return None
    where = store.check_place(out)
    if where.exists() and any(p.name != LOCK for p in where.iterdir()):
        kept = _held_manifest(where, str(out))
        if kept.get("kind") != "search" or kept.get("spec") != spec.key():
            raise InputError(f"--out {str(out)!r} holds another search ({MANIFEST}); give a "
                             "new directory, or the same game, rules, goals, players, deals, "
                             "seed and sampler to continue it")
        held.enter_context(optuna_store.lock(where / LOCK, "search"))
        if kept.get("trials") != spec.trials:
            for name in (RESULT, FIGURE):       # more (or fewer) trials: confirm anew
                store.remove_file(where / name)
            store.write_json_atomic(where / MANIFEST, _manifest(spec))
        return where
    where.mkdir(exist_ok=True)
    held.enter_context(optuna_store.lock(where / LOCK, "search"))
    store.write_json_atomic(where / MANIFEST, _manifest(spec))
    return where


def _keep_result(where: pathlib.Path, spec: Spec, result: dict[str, Any]) -> None:
    """Write the figure and the result, the result's checksum going into the
    manifest first: a search stopped between the two leaves no result (it is
    confirmed again), never one the manifest does not vouch for."""
    import os

    from simkit.lab import search_text

    tmp = store.temporary_path(where / RESULT)
    try:
        search_text.figure(result, where / FIGURE)
        store.write_json_atomic(tmp, result)
        store.write_json_atomic(where / MANIFEST,
                                {**_manifest(spec), "result": store.file_digest(tmp)})
        os.replace(tmp, where / RESULT)
    except OSError as e:
        if optuna_store.full(e):
            raise optuna_store.no_room(where, "search") from None
        raise
    finally:
        store.remove_file(tmp)


def kept_result(spec: Spec, where: store.StrPath) -> dict[str, Any] | None:
    """The result of the finished search ``spec`` kept in ``where`` (a search
    shipped with the studies), checked against its manifest; None where the
    folder holds no finished search of this very spec.  Reads only."""
    place = pathlib.Path(where)
    try:
        held = _held_manifest(place, str(place))
    except InputError:
        return None
    if (held.get("kind"), held.get("spec"), held.get("trials")) != (
            "search", spec.key(), spec.trials) or not (place / RESULT).exists():
        return None
    return _finished(place)


def _finished(where: pathlib.Path) -> dict[str, Any]:
    """The result a finished search in ``where`` kept, checked against its manifest."""
    path = where / RESULT
    if _held_manifest(where, str(where)).get("result") != store.file_digest(path):
        raise InputError(optuna_store.damaged(where, RESULT, "it is not the result this search "
                                               "wrote: its size or checksum differs", "search"))
    try:
        done = json.loads(read_text(str(path), f"search result '{path}'", MAX_JSON_BYTES))
    except ValueError:
        done = None
    if not isinstance(done, dict):
        raise InputError(optuna_store.damaged(where, RESULT, "not a JSON object", "search"))
    return done

