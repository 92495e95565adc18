"""Tuned players: ``simkit tune GAME --policy heuristic --param NAME=LOW:HIGH ...``.

A search over a policy's parameters, each trial scored against a field of
policies on duplicate deals, the best settings then confirmed on deals the
search never saw.

- **The search** is Optuna's, maximising the trial's value: the mean, over
  the field's policies, of the candidate's duplicate-deal difference
  against each (a :mod:`simkit.tournament` of the two: seats swapped, the
  game's own measure).  Every trial plays the same evaluation deals (the
  run's seed), so two trials differ by their play, not by their cards.  A
  float parameter is searched on the grid its kernel reads (hundredths for
  ``scale=100``), so the printed setting is exactly what was played.  The
  samplers (:data:`SAMPLERS`): ``tpe`` (the default), ``cmaes`` and
  ``auto``, CMA-ES for the numbers (with margins where some are integers)
  and TPE for the choices.
- **Pruning** (``prune``): a trial plays its deals in rungs, each three
  times the one before (the last is the whole ``deals``); Optuna's
  successive-halving pruner stops it at a rung where it is not among the
  best third of the trials that reached that rung.  As every trial plays
  the same deals in the same order, trials are compared at a rung on the
  same deals.  The best setting is the best of the trials that played every
  rung.
- **Confirmation.** The best :data:`CONFIRM_BEST` settings play again on
  fresh deals (seed :func:`confirm_seed`, never searched) against the
  game's default policy, every policy of the field, and the game's named
  settings outside the field (policies the search never saw): a 95% t
  interval and p-value per pair, in the search's unit and, where the game
  has both, in whole games too.
- **Storage.** With ``out`` the search lives in that directory: ``_tune.json``
  (what was asked: a tune's manifest), ``_study.db`` (Optuna's SQLite
  storage: every finished trial), and ``_result.json`` once confirmed.  The
  same command again continues a stopped search from its finished trials or,
  once finished, reprints its result; a different search into the same
  directory is refused.
- **Resumes reproduce.** Trial ``n``'s sampler is seeded by the search's
  seed and ``n``, and is given the finished trials only (a trial cut off is
  not kept: it is played again under its own number), so a search stopped
  and continued asks for the same settings, and reaches the same result,
  as one that ran through.
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
from collections.abc import Hashable, Sequence
from typing import Any

from simkit import games as registry
from simkit import tournament
from simkit.base.errors import InputError
from simkit.base.files import MAX_JSON_BYTES, read_text
from simkit.runs import chunks, optuna_store, store
from simkit.runs.batches import KERNEL_LOCK, Work

#: Settings confirmed on fresh deals after the search.
CONFIRM_BEST = 3
MANIFEST, STUDY_DB, RESULT, LOCK = "_tune.json", "_study.db", "_result.json", "_tune.lock"
SAMPLERS = ("tpe", "cmaes", "auto")
#: Pruning: each rung plays this many times the deals of the one before, and
#: keeps (about) this share of the trials that reach it.
RUNG_FACTOR = 3
#: Rungs of a pruned search (fewer when its first would play under MIN_RUNG deals).
RUNGS, MIN_RUNG = 4, 200
#: Evaluation deals per trial when none are given: hands (games for a game
#: played only in whole games), before the game's bench scale divides them.
DEFAULT_HANDS = 20_000
DEFAULT_TRIALS = 30


@dataclasses.dataclass(frozen=True)
class Param:
    """One searched parameter: a float or integer range, or a list of choices."""

    name: str
    kind: str                       # "float", "int" or "choice"
    low: float = 0.0
    high: float = 0.0
    step: float | None = None
    choices: tuple[Any, ...] = ()

    def text(self) -> str:
        if self.kind == "choice":
            return f"{self.name}=" + ",".join(_show(c) for c in self.choices)
        return f"{self.name}={_show(self.low)}:{_show(self.high)}"


def _show(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _fields(params_cls: Any) -> dict[str, dataclasses.Field[Any]]:
    return {f.name: f for f in dataclasses.fields(params_cls)}


def parse_params(params_cls: Any, items: Sequence[str]) -> tuple[Param, ...]:
    """The ``--param`` items (``NAME=LOW:HIGH`` for a number, ``NAME=A,B,...``
    for a choice or a true/false parameter) as :class:`Param` s, checked
    against the policy's parameters and their accepted values."""
    from simkit.base.config import _accepted, _coerce

    fields = _fields(params_cls)
    what = params_cls.what
    if not items:
        raise InputError("give at least one --param NAME=LOW:HIGH (or NAME=A,B for a choice); "
                         f"the {what}s are " + ", ".join(fields))
    out: dict[str, Param] = {}
    for item in items:
        name, eq, spec = str(item).partition("=")
        name, spec = name.strip(), spec.strip()
        if not eq or not name or not spec:
            raise InputError(f"bad --param {item!r}: expected NAME=LOW:HIGH or NAME=A,B,...")
        if name not in fields:
            raise InputError(f"unknown {what} {name!r}: accepted keys are " + ", ".join(fields))
        if name in out:
            raise InputError(f"--param {name!r} is given twice")
        f = fields[name]
        m = f.metadata
        ftype = f.type if isinstance(f.type, str) else f.type.__name__
        is_choice = m.get("choices") is not None or ftype == "bool"
        if ":" in spec:
            if is_choice:
                raise InputError(f"bad --param {item!r}: {what} {name!r} is a choice, not a "
                                 f"range: give its values as {name}=A,B (accepted: "
                                 f"{_accepted(f)})")
            lo_text, _, hi_text = spec.partition(":")
            low, high = (_coerce(f, t, what) for t in (lo_text, hi_text))
            if not low < high:
                raise InputError(f"bad --param {item!r}: the range's low end must be below "
                                 "its high end")
            lo_ok, hi_ok = m.get("lo"), m.get("hi")
            if (lo_ok is not None and low < lo_ok) or (hi_ok is not None and high > hi_ok):
                raise InputError(f"bad --param {item!r}: the range leaves the accepted "
                                 f"values of {what} {name!r} ({_accepted(f)})")
            step = 1.0 / m["scale"] if ftype == "float" and m.get("scale") else None
            out[name] = Param(name, "int" if ftype == "int" else "float", low, high, step)
            continue
        values = []
        for t in spec.split(","):
            value = _coerce(f, t.strip(), what)
            if m.get("choices") is not None and value not in m["choices"]:
                raise InputError(f"bad value {t.strip()!r} for {what} {name!r}: expected "
                                 f"{_accepted(f)}")
            if value not in values:
                values.append(value)
        if not is_choice:
            raise InputError(f"bad --param {item!r}: {what} {name!r} is a number: give a "
                             f"range as {name}=LOW:HIGH ({_accepted(f)})")
        if len(values) < 2:
            raise InputError(f"bad --param {item!r}: a choice needs at least two values")
        out[name] = Param(name, "choice", choices=tuple(values))
    return tuple(out.values())


def _suggest(trial: Any, p: Param) -> Any:
    if p.kind == "choice":
        return trial.suggest_categorical(p.name, list(p.choices))
    if p.kind == "int":
        return trial.suggest_int(p.name, int(p.low), int(p.high))
    return trial.suggest_float(p.name, p.low, p.high, step=p.step)


def importances(spec: Spec, trials: list[Any]) -> dict[str, float]:
    """Each searched parameter's importance, adding up to 1: Optuna's PED-ANOVA,
    how differently the parameter is spread among the best tenth of the trials
    than among all of them (deterministic; no model fitted).  Zero for every
    parameter when the values do not vary or there are fewer than two trials."""
    import optuna

    names = [p.name for p in spec.params]
    if len(trials) < 2 or len({t.value for t in trials}) < 2:
        return dict.fromkeys(names, 0.0)
    if len(names) == 1:
        return {names[0]: 1.0}
    evaluator = optuna.importance.PedAnovaImportanceEvaluator()
    study = optuna.create_study(direction="maximize")
    study.add_trials(trials)
    got = optuna.importance.get_param_importances(study, evaluator=evaluator)
    return {n: float(got.get(n, 0.0)) for n in names}


def setting(base: str, values: dict[str, Any]) -> str:
    """The policy spec ``--policy`` accepts: ``base`` with ``values`` set (floats
    rounded to the grid they were searched on, so the text is what played)."""
    name, _, fixed = base.partition(":")
    parts = [kv for kv in fixed.split(",") if kv.strip()
             and kv.partition("=")[0].strip() not in values]
    for k, v in values.items():
        parts.append(f"{k}={_show(round(v, 6) if isinstance(v, float) else v)}")
    return name + (":" + ",".join(parts) if parts else "")


def confirm_seed(seed: int) -> int:
    """The seed of the confirmation's deals: fixed by the search's seed, never
    equal to it (so never the deals searched on)."""
    return (seed ^ 0x5EED_C0F1_2A11_7E57) % 2**64


@dataclasses.dataclass
class Spec:
    """What a tune was asked, checked: what its manifest keeps."""

    game: str
    policy: str
    params: tuple[Param, ...]
    against: tuple[str, ...]
    players: int
    rules: dict[str, Any]
    unit: str
    deals: int
    trials: int
    seed: int
    sampler: str
    also: tuple[str, ...] = ()      # confirmation opponents beyond the default, field, named
    prune: bool = False

    def key(self) -> dict[str, Any]:
        key = {"game": self.game, "policy": self.policy,
               "params": [p.text() for p in self.params], "against": list(self.against),
               "players": self.players, "rules": self.rules, "unit": self.unit,
               "deals": self.deals, "seed": self.seed, "sampler": self.sampler,
               "also": list(self.also)}
        if self.prune:
            key["prune"] = True     # absent otherwise: earlier stores stay valid
        return key

    def rungs(self) -> list[int]:
        """The deals a trial has played at each rung (one rung without pruning)."""
        out = [self.deals]
        while self.prune and len(out) < RUNGS and out[0] // RUNG_FACTOR >= MIN_RUNG:
            out.insert(0, out[0] // RUNG_FACTOR)
        return out


def check_unfixed(policy: str | None, params: Sequence[str]) -> None:
    """An InputError if a searched ``--param`` is also set by name in the tuned
    ``--policy`` (after its ``:``): the command line refuses the contradiction.
    (:func:`make_spec` searches it from there, as :mod:`simkit.lab.adapt` wants; a
    named setting's own values may be searched: that tunes the setting.)"""
    from simkit.base.config import parse_assignments

    fixed = parse_assignments([str(policy or "").partition(":")[2]], "policy parameter")
    for item in params:
        name = str(item).partition("=")[0].strip()
        if name in fixed:
            raise InputError(f"--param {name} is searched, and --policy {policy!r} fixes it: "
                             f"drop it from one of them")


@dataclasses.dataclass(frozen=True)
class SpecSettings:
    """The options of :func:`make_spec` (every one has its default): the table
    (``players``, ``rules``), the evaluation deals (``hands`` or ``games``; by
    default :data:`DEFAULT_HANDS` over the game's bench scale), ``trials``
    (None: :data:`DEFAULT_TRIALS`), ``seed``, ``sampler`` (one of
    :data:`SAMPLERS`), ``also`` (more opponents for the confirmation) and
    ``prune`` (stop weak trials early: see the module notes)."""

    players: int | None = None
    rules: Any = None
    hands: int | None = None
    games: int | None = None
    trials: int | None = None
    seed: int = 0
    sampler: str = "tpe"
    also: Sequence[str] | None = None
    prune: bool = False


def make_spec(game: str, policy: str | None, params: Sequence[str], against: Sequence[str] | None,
              settings: SpecSettings | None = None) -> Spec:
    """A checked :class:`Spec` (every bad value is an InputError, before any work;
    ``settings``: :class:`SpecSettings`, None: every default)."""
    o = SpecSettings() if settings is None else settings
    g = registry.get(game)
    r = g.resolve_rules(o.rules, o.players)
    sampler, hands, games = o.sampler, o.hands, o.games
    if sampler not in SAMPLERS:
        raise InputError(f"bad --sampler {sampler!r}: expected one of " + ", ".join(SAMPLERS))
    base = g.make_policies(policy or "heuristic", 1)[0]
    tuned = parse_params(type(base.params), params)
    field = tuple(str(s).strip() for s in (against or [g.make_policies(None, 1)[0].name]))
    extra = tuple(str(s).strip() for s in o.also or ())
    for s in field + extra:
        g.make_policies(s, 1)
    if hands is None and games is None:
        scaled = max(1_000, DEFAULT_HANDS // g.bench_scale)
        if "hand" in g.units:
            hands = scaled
        else:
            games = scaled
    unit, deals = tournament._unit_and_count(g, hands, games)
    return Spec(game=g.name, policy=str(policy or "heuristic").strip(), params=tuned,
                against=field, players=r.players, rules=r.as_dict(), unit=unit, deals=deals,
                trials=o.trials or DEFAULT_TRIALS, seed=o.seed,
                sampler=sampler, also=extra, prune=o.prune)


@dataclasses.dataclass(frozen=True)
class Deals:
    """The duplicate deals a setting plays on: ``count`` hands or whole games
    (``unit``) of ``seed``, from its unit ``first`` on."""

    seed: int
    unit: str
    count: int
    first: int = 0


@dataclasses.dataclass(frozen=True)
class TuneOptions:
    """How a tune is carried out: :func:`run`'s options, with their defaults.

    ``out``: where the tune is kept and resumed from.  ``threads``,
    ``scheduler`` and ``progress``: how the trials' tournaments are played (a
    scheduler's workers play them with ``out``), and ``confirm_deals``
    (None: the search's deals) how many fresh deals the confirmation plays.
    ``start`` (parameter values) is the search's first trial;
    ``confirm_only`` (policy specs) replaces the confirmation's opponents,
    and ``confirm_best`` the number of settings confirmed (0: none, and
    ``confirm`` is None: :mod:`simkit.lab.adapt` confirms what it adopts
    itself).  ``work``: progress (one unit per trial) and a stop checked
    between trials; the trials' kernels then take turns with other threads'
    (``batches.KERNEL_LOCK``).
    """

    out: store.StrPath | None = None
    threads: int | None = None
    scheduler: str | None = None
    progress: bool = False
    confirm_deals: int | None = None
    start: dict[str, Any] | None = None
    confirm_only: Sequence[str] | None = None
    confirm_best: int = CONFIRM_BEST
    work: Work | None = None

    def table_args(self) -> chunks.ChunkArgs:
        """How each tournament of the tune plays: in this process, or on the
        scheduler's workers."""
        return {"threads": self.threads, "scheduler": self.scheduler,
                "backend": "dask" if self.scheduler else "threads"}


def _trial_value(spec: Spec, candidate: str, deals: Deals,
                 how: TuneOptions) -> tuple[float, list[dict[Hashable, Any]]]:
    """The candidate's mean difference against the field on ``deals`` (and the
    pairs' rows)."""
    rows = [_versus(spec, candidate, opponent, deals, how).pairs.iloc[0].to_dict()
            for opponent in spec.against]
    return float(sum(r["diff"] for r in rows) / len(rows)), rows


def _play_trial(spec: Spec, trial: Any, candidate: str, how: TuneOptions) -> float | None:
    """Play ``trial`` (the setting ``candidate``) rung by rung on the search's
    deals, reporting its value at each: the value on every deal, or None if
    the pruner stopped it."""
    rungs = spec.rungs()
    sums, played = [0.0] * len(spec.against), 0
    for j, upto in enumerate(rungs):
        part = Deals(seed=spec.seed, unit=spec.unit, count=upto - played, first=played)
        for i, opponent in enumerate(spec.against):
            sums[i] += float(_versus(spec, candidate, opponent, part, how).pairs.iloc[0]["diff"]
                             ) * part.count
        played = upto
        value = sum(sums) / len(sums) / played
        if len(rungs) > 1:
            trial.report(value, RUNG_FACTOR ** j)
            if j < len(rungs) - 1 and trial.should_prune():
                return None
    return value


def _versus(spec: Spec, candidate: str, opponent: str, deals: Deals,
            how: TuneOptions) -> tournament.Result:
    """``candidate`` against ``opponent`` on ``deals``."""
    return tournament.run(spec.game, [candidate, opponent], rules=spec.rules,
                          players=spec.players, seed=deals.seed, first=deals.first,
                          hands=deals.count if deals.unit == "hand" else None,
                          games=deals.count if deals.unit == "game" else None,
                          **how.table_args())


def _sampler(spec: Spec, number: int) -> Any:
    """Trial ``number``'s sampler: seeded by the search's seed and the number, so
    that a resumed search asks what an unbroken one asks (see the module notes)."""
    import optuna

    seed = int.from_bytes(hashlib.sha256(f"tune:{spec.seed}:{number}".encode()).digest()[:4],
                          "little")
    tpe = optuna.samplers.TPESampler(seed=seed)
    if spec.sampler == "tpe":
        return tpe
    margin = any(p.kind == "int" for p in spec.params)
    with warnings.catch_warnings():     # margins are "experimental" in Optuna's words
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.CmaEsSampler(
            seed=seed, warn_independent_sampling=False, consider_pruned_trials=spec.prune,
            with_margin=margin and sum(p.kind != "choice" for p in spec.params) > 1,
            independent_sampler=tpe if spec.sampler == "auto" else None)


def _pruner(spec: Spec) -> Any:
    import optuna

    if len(spec.rungs()) < 2:
        return optuna.pruners.NopPruner()
    return optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=RUNG_FACTOR,
                                                  min_early_stopping_rate=0)


def _confirm_field(spec: Spec) -> list[str]:
    """Who the best settings meet on fresh deals: the game's default, the field,
    the named settings outside the field, and ``also``."""
    g = registry.get(spec.game)
    out: list[str] = []
    for s in [g.make_policies(None, 1)[0].name, *spec.against, *g.named_policies, *spec.also]:
        text = g.make_policies(s, 1)[0].text()
        if text not in [g.make_policies(o, 1)[0].text() for o in out]:
            out.append(s)
    return out


def run(spec: Spec, options: TuneOptions | None = None) -> dict[str, Any]:
    """Search, confirm and return the result (the ``--json`` shape, see the
    module notes); with ``options.out`` kept there and resumed from there
    (``options``: :class:`TuneOptions`, None: every default).
    """
    import optuna

    how = TuneOptions() if options is None else options
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    t0 = time.perf_counter()
    if how.scheduler is not None and how.out is not None:
        chunks.check_scheduler(how.scheduler)   # before anything is written
    with contextlib.ExitStack() as held:
        where = _open(spec, how.out, held)
        if where is not None and (where / RESULT).exists():
            kept = _finished(where)
            kept.update(complete_before=True, seconds=time.perf_counter() - t0)
            return kept
        return _search(spec, _study(spec, where), where, t0, how)


@dataclasses.dataclass
class _Studies:
    """A search's Optuna studies: the one it asks, in memory, and the SQLite store
    its finished trials are copied into (None without ``out``)."""

    live: Any
    kept: Any | None


def _study(spec: Spec, where: pathlib.Path | None) -> _Studies:
    """The search's studies: the store in ``where``, checked first (a damaged
    store is an InputError saying how to start over), and a study in memory
    holding its finished trials, in their order."""
    import optuna

    live = optuna.create_study(direction="maximize", sampler=_sampler(spec, 0),
                               pruner=_pruner(spec))
    if where is None:
        return _Studies(live, None)
    kept, finished = optuna_store.load(where / STUDY_DB, "simkit-tune", ["maximize"], "tune")
    live.add_trials(finished)
    return _Studies(live, kept)


def _search(spec: Spec, studies: _Studies, where: pathlib.Path | None, t0: float,
            how: TuneOptions) -> dict[str, Any]:
    """The trials still to play, then the confirmation: :func:`run`'s work."""
    import optuna

    study = studies.live
    work = how.work
    done = len(study.trials)
    if how.start is not None and not done:
        study.enqueue_trial(how.start)
    lock = KERNEL_LOCK if work is not None else contextlib.nullcontext()
    if work is not None:
        work.expect(spec.trials + 1)
        work.add(done)
    from tqdm import tqdm
    with tqdm(total=spec.trials, initial=done, unit="trial", delay=2.0,
              disable=not how.progress) as bar:
        while done < spec.trials:
            if work is not None:
                work.check()
            study.sampler = _sampler(spec, done)
            trial = study.ask()
            values = {p.name: _suggest(trial, p) for p in spec.params}
            try:
                with lock:
                    value = _play_trial(spec, trial, setting(spec.policy, values), how)
            except KeyboardInterrupt:
                raise optuna_store.Interrupted(done, spec.trials, where) from None
            # a trial cut off is never kept: a continued search plays it again
            frozen = (study.tell(trial, value) if value is not None
                      else study.tell(trial, state=optuna.trial.TrialState.PRUNED))
            if studies.kept is not None:
                optuna_store.keep(studies.kept, frozen, where or "", "tune")
            done += 1
            bar.update(1)
            best = _best_value(study)
            if best is not None:
                bar.set_postfix(best=f"{best:+.4f}")
            if work is not None:
                work.add(1)
    with lock:
        try:
            result = _result(spec, study, how)
        except KeyboardInterrupt:       # in the confirmation: every trial is kept
            raise optuna_store.Interrupted(done, spec.trials, where) from None
    if work is not None:
        work.add(1)
    result["seconds"] = time.perf_counter() - t0
    result["complete_before"] = False
    if where is not None:
        _keep_result(where, spec, result)
    return result


def _best_value(study: Any) -> float | None:
    import optuna

    values = [t.value for t in study.get_trials(deepcopy=False,
                                                states=(optuna.trial.TrialState.COMPLETE,))]
    return max(values) if values else None


def _keep_result(where: pathlib.Path, spec: Spec, result: dict[str, Any]) -> None:
    """Write the result, its checksum going into the manifest first: a tune
    stopped between the two leaves no result (it is confirmed again), never
    a result the manifest does not vouch for."""
    import os

    tmp = store.temporary_path(where / RESULT)
    try:
        store.write_json_atomic(tmp, result)
        store.write_json_atomic(where / MANIFEST,
                                {**_manifest(spec), "result": store.file_digest(tmp)})
        os.replace(tmp, where / RESULT)
    except OSError as e:
        if optuna_store.full(e):
            raise optuna_store.no_room(where, "tune") from None
        raise
    finally:
        store.remove_file(tmp)


def _manifest(spec: Spec) -> dict[str, Any]:
    return {"kind": "tune", "spec": spec.key(), "trials": spec.trials}


def _finished(where: pathlib.Path) -> dict[str, Any]:
    """The result a finished tune in ``where`` kept (a bounded read; a file that
    is not a JSON object is an InputError saying how to start over)."""
    path = where / RESULT
    kept = _held_manifest(where, str(where)).get("result")
    if kept != store.file_digest(path):
        raise InputError(optuna_store.damaged(where, RESULT, "it is not the result this tune "
                                               "wrote: its size or checksum differs", "tune"))
    try:
        done = json.loads(read_text(str(path), f"tune result '{path}'", MAX_JSON_BYTES))
    except ValueError:
        done = None
    if not isinstance(done, dict):
        raise InputError(optuna_store.damaged(where, RESULT, "not a JSON object", "tune"))
    return done


def _held_manifest(where: pathlib.Path, out: str) -> dict[str, Any]:
    """The tune manifest in ``where``, or an InputError: the directory holds no tune."""
    try:
        held = json.loads(read_text(str(where / MANIFEST), f"'{where / MANIFEST}'",
                                    MAX_JSON_BYTES))
        if not isinstance(held, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError, InputError):
        raise InputError(f"--out {out!r} is not empty and holds no tune ({MANIFEST} missing "
                         f"or unreadable): give a new directory") from None
    return held


def _open(spec: Spec, out: store.StrPath | None,
          held: contextlib.ExitStack[Any]) -> pathlib.Path | None:
    """The run directory, made or checked against what it holds, and locked
    for this tune until ``held`` closes."""
    if out is None:
        return None
    where = store.check_place(out)
    manifest = _manifest(spec)
    if where.exists() and any(p.name != LOCK for p in where.iterdir()):
        kept = _held_manifest(where, str(out))
        if kept.get("kind") != "tune" or kept.get("spec") != spec.key():
            raise InputError(f"--out {str(out)!r} holds another tune ({MANIFEST}); give a "
                             "new directory, or the same game, policy, params, field, rules, "
                             "deals, seed and sampler to continue it")
        held.enter_context(optuna_store.lock(where / LOCK, "tune"))
        if kept.get("trials") != spec.trials:
            if (where / RESULT).exists():
                (where / RESULT).unlink()       # more (or fewer) trials: confirm anew
            store.write_json_atomic(where / MANIFEST, manifest)
        return where
    where.mkdir(exist_ok=True)
    held.enter_context(optuna_store.lock(where / LOCK, "tune"))
    store.write_json_atomic(where / MANIFEST, manifest)
    return where


def _result(spec: Spec, study: Any, how: TuneOptions) -> dict[str, Any]:
    """The search's trials and best settings, those confirmed on fresh deals
    (``how.confirm_deals`` of them, default the search's) against
    ``how.confirm_only`` (default :func:`_confirm_field`)."""
    import optuna

    states = optuna.trial.TrialState
    finished = [t for t in study.get_trials(deepcopy=False)
                if t.state in (states.COMPLETE, states.PRUNED)]
    trials = [t for t in finished if t.state == states.COMPLETE]
    rungs = spec.rungs()
    rows = [{"number": t.number, "params": _clean(t.params), "value": float(t.value),
             **({"deals": rungs[len(t.intermediate_values) - 1],
                 "pruned": t.state == states.PRUNED} if spec.prune else {})}
            for t in finished]
    ranked: list[tuple[Any, str]] = []
    seen: set[str] = set()
    for t in sorted(trials, key=lambda t: (-t.value, t.number)):
        s = setting(spec.policy, t.params)
        if s not in seen:
            seen.add(s)
            ranked.append((t, s))
    best_t, best_s = ranked[0]
    fresh = confirm_seed(spec.seed)
    g = registry.get(spec.game)
    confirm_deals = how.confirm_deals or spec.deals
    units = [(spec.unit, confirm_deals)]
    if spec.unit == "hand" and "game" in g.units:
        units.append(("game", max(200, confirm_deals // 20)))
    confirm = []
    opponents = (list(how.confirm_only) if how.confirm_only is not None
                 else _confirm_field(spec))
    for t, s in ranked[:how.confirm_best]:
        for opponent in opponents:
            for unit, deals in units:
                res = _versus(spec, s, opponent, Deals(seed=fresh, unit=unit, count=deals), how)
                p = res.pairs.iloc[0]
                confirm.append({"setting": s, "trial": t.number, "against": opponent,
                                "in_field": opponent in spec.against, "unit": unit,
                                "units": res.units, "diff": _num(p["diff"]),
                                "ci_low": _num(p["ci_low"]), "ci_high": _num(p["ci_high"]),
                                "p_value": _num(p["p_value"]), "hands": int(p["deals"])})
    default = g.make_policies(None, 1)[0].name
    first = default if default in opponents or not opponents else opponents[0]
    main = next((c for c in confirm if c["setting"] == best_s and c["against"] == first
                 and c["unit"] == spec.unit), None)
    return {"game": spec.game, "policy": spec.policy, "players": spec.players,
            "unit": spec.unit, "deals": spec.deals, "seed": spec.seed,
            "sampler": spec.sampler, "against": list(spec.against),
            "params": [p.text() for p in spec.params],
            "trials": rows,
            "best": {"params": _clean(best_t.params), "setting": best_s,
                     "value": float(best_t.value), "trial": best_t.number},
            "confirm": None if main is None else {k: main[k] for k in (
                "against", "diff", "ci_low", "ci_high", "p_value", "hands")},
            "importance": importances(spec, trials),
            "confirmations": confirm, "confirm_seed": fresh}


def _clean(params: dict[str, Any]) -> dict[str, Any]:
    """Parameter values as played: floats without the grid's rounding noise."""
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in params.items()}


def _num(x: Any) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def format_result(res: dict[str, Any]) -> str:
    """The tables ``simkit tune`` prints."""
    label = "games" if res["unit"] == "game" else "hands"
    lines = [f"{res['game'].capitalize()} tune of {res['policy']}, {res['players']} players: "
             f"{len(res['trials'])} trials ({res['sampler']}), each on the same "
             f"{res['deals']:,} duplicate deals ({label}, seed {res['seed']}) against "
             + ", ".join(res["against"]),
             "searched: " + "; ".join(res["params"]), "",
             "Trials (value: mean difference against the field, candidate minus field):"]
    names = list(res["trials"][0]["params"]) if res["trials"] else []
    for t in res["trials"]:
        params = ", ".join(f"{k}={_show(t['params'].get(k))}" for k in names)
        pruned = f"  (stopped at {t['deals']:,} deals)" if t.get("pruned") else ""
        lines.append(f"  {t['number']:>4}  {t['value']:+.4f}  {params}{pruned}")
    b = res["best"]
    ranked = sorted(res["importance"].items(), key=lambda kv: -kv[1])
    lines += ["", "Importance (PED-ANOVA, adds up to 1): "
              + ", ".join(f"{k} {v:.2f}" for k, v in ranked)]
    lines += ["", f"Best: trial {b['trial']}, {b['value']:+.4f} on the search's deals",
              f"  --policy {b['setting']}", "",
              f"Confirmed on fresh deals (seed {res['confirm_seed']}), setting minus "
              "opponent, 95% interval:"]
    for c in res["confirmations"]:
        note = "" if c["in_field"] else "  (not in the field)"
        lo, hi = c["ci_low"], c["ci_high"]
        interval = "" if lo is None else f" [{lo:+.4f}, {hi:+.4f}]"
        p = "" if c["p_value"] is None else f", p = {c['p_value']:.3g}"
        diff = "n/a" if c["diff"] is None else f"{c['diff']:+.4f}"
        lines.append(f"  {c['setting']} vs {c['against']}: {diff}{interval}{p}; "
                     f"{c['hands']:,} {'games' if c['unit'] == 'game' else 'deals'}, "
                     f"{c['units']}{note}")
    return "\n".join(lines)


def result_json(res: dict[str, Any]) -> dict[str, Any]:
    """The JSON of ``simkit tune --json``."""
    return {k: res[k] for k in ("game", "policy", "trials", "best", "confirm",
                                "confirmations", "importance")}
