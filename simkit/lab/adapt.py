"""Players re-fitted to rule variants before they are compared:
``simkit compare GAME --variant ... --adapt``.

Real players re-learn their bidding when a penalty, a stake or a payout
changes; a comparison played by players who do not notice the change
measures the scoring arithmetic of the same play, not the game under the new
rule.  So each variant's players are re-fitted to its rules with the tuning
machinery of :mod:`simkit.tune` (Optuna, duplicate deals, confirmation on
fresh deals).

**One adaptation** (:func:`adapt`) fits the policy every seat plays to one
set of rules, in rounds:

1. every seat starts from a given setting (the *field*);
2. a round searches the policy's parameters for the best reply to the field:
   each trial is a candidate at half the seats (one partnership) against the
   field at the others, then the seats swapped, on the same deals (the
   round's seed).  The search is Optuna's: CMA-ES for the numbers, TPE for
   the choices; the field's own setting is the first trial; each trial plays
   its deals in rungs and successive halving stops the weak ones early; the
   number of trials grows with the parameters searched (:func:`trials_for`);
3. if the best trial is the field's own setting, the field needs no change
   and the adaptation ends.  Otherwise each of its changes from the field
   is undone that is not shown to help: the setting with the change plays
   the setting without it on fresh duplicate deals, and the change stays
   only if its interval lies above 0 (so a parameter that cannot matter
   under these rules never moves, and one that barely matters moves in no
   adaptation rather than at random in some).  What is left plays the field
   again on fresh deals, and if its interval there lies above 0 the field
   adopts it and another round starts from it; if not, the field is kept;
4. at most ``rounds`` rounds (:data:`ROUNDS`): an adaptation that adopted a
   setting in its last round stopped at that cap while still improving, and
   says so (``capped``).

The search covers every parameter of the policy (``params`` narrows it, in
``simkit tune``'s ``NAME=LOW:HIGH`` / ``NAME=A,B`` form): a number within its
accepted range, around the field's value (as far either side as the
parameter's ``span`` says, else an eighth of its range; integers 1 to 3; or
where its ``span`` says, as ``(low, high)``), a choice or a true/false
parameter over all its values; each round looks around its own field.  The
objective is the game's unit: whole games won (Shiesta, Pepper, Burraco),
money per session (Pitch), points per hand for a game without whole games.

**A comparison's adaptations** (:func:`adapt_variants`) are symmetric and
repeated:

- every variant, the base included, is adapted with the same budget, and
  round ``r`` of every variant plays the same trial deals (common random
  numbers);
- the base starts from the policy as given, every later variant from the
  base's adapted setting, so what improves the policy under every rule is
  credited to no rule;
- all of it ``seeds`` times (:data:`SEEDS`), each an independent adaptation
  with its own seed (:func:`adaptation_seed`): the comparison is then played
  once per adaptation, and a finding must hold in every one (which setting
  an adaptation lands on is a second source of noise beside the deals);
- **the best-response check**: per adaptation, each variant's setting plays
  every other variant's setting under its own rules, on fresh duplicate
  deals.  A setting that loses to another's under its own rules beyond its
  interval is flagged, and its adaptation goes on from the better setting
  (once).

Every adaptation is kept in a directory: ``out``, or by default ``adapt/``
in simkit's cache directory (:func:`simkit.base.jit.cache_root`), under a
name that hashes everything the result depends on (game, rules, players,
starting setting, searched parameters, sizes, seed and the search's
version).  Its rounds are tunes of their own, resumed as tunes are (the
same trials as an unbroken run); its result, ``_adapt.json``, carries a
checksum of what it holds, and one that does not match is not used.  So
the same comparison again reuses the adaptations in seconds, and Ctrl-C
keeps the finished rounds and trials.  A process adapting holds its folder
(an operating-system lock): a second process wanting the same adaptation
waits for it and reuses its result.  A finished adaptation is also
looked up, read-only, in ``kept`` directories (the studies ship theirs).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import os
import pathlib
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

from simkit import games as registry
from simkit import tune
from simkit.base import rng
from simkit.base.errors import InputError
from simkit.base.files import MAX_JSON_BYTES, read_text
from simkit.runs import store
from simkit.runs.batches import Work, check_count

#: The most rounds of one adaptation (the cap): rarely reached.
ROUNDS = 6
#: Independent adaptations of each variant (``--adapt-seeds``).
SEEDS = 2
#: Duplicate whole games (Pitch: sessions) a trial plays when it is not
#: stopped early, per game; the confirmation and the best-response check
#: play as many fresh ones.
DEALS = {"pepper": 30_000, "pitch": 30_000, "shiesta": 120_000, "burraco": 6_000}
RESULT = "_adapt.json"
#: The lock file of an adaptation under way: a second process wanting the
#: same adaptation waits for the first and reuses its result.
LOCK = "_adapt.lock"
#: How often a process waiting for another's adaptation looks again (and
#: sees whether its own work was stopped).
WAIT_SECONDS = 0.5
#: The folder of kept best-response cells, beside the adaptations.
CELLS = "best-response"
#: An adaptation changed this recently may still be under way: never tidied away.
BUSY_SECONDS = 3600
#: The search's version, in every key: a kept adaptation made by another
#: search is not reused.
VERSION = 2


def trials_for(params: int) -> int:
    """Trials of one round when a search covers ``params`` parameters: enough
    for CMA-ES's generations (its population grows with the dimension) and
    TPE's model of the choices."""
    return 16 + 8 * params


@dataclasses.dataclass(frozen=True)
class Request:
    """What one adaptation depends on (its key): ``policy`` is the setting it
    starts from, ``seed`` its own (:func:`adaptation_seed`)."""

    game: str
    rules: dict[str, Any]
    players: int
    policy: str
    params: tuple[str, ...]
    seed: int
    rounds: int
    trials: int
    deals: int
    unit: str
    recentre: bool
    version: int = VERSION

    def key(self) -> str:
        text = json.dumps(dataclasses.asdict(self), sort_keys=True, default=str)
        return f"{self.game}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def _value_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(round(value, 6)
                                                                  if isinstance(value, float)
                                                                  else value)


def search_space(game: str, policy: str) -> list[str]:
    """Every parameter of ``policy`` as a ``--param`` item around its current
    value (see the module notes)."""
    g = registry.get(game)
    pol = g.make_policies(policy, 1)[0]
    items = []
    for f in dataclasses.fields(pol.params):
        m, value = f.metadata, getattr(pol.params, f.name)
        ftype = f.type if isinstance(f.type, str) else f.type.__name__
        if m.get("choices"):
            items.append(f"{f.name}=" + ",".join(m["choices"]))
        elif ftype == "bool":
            items.append(f"{f.name}=true,false")
        elif m.get("lo") is not None and m.get("hi") is not None:
            lo, hi, span = m["lo"], m["hi"], m.get("span")
            if isinstance(span, tuple):
                low, high = span
            elif ftype == "int":
                half = span or max(1, min(3, (hi - lo) // 8))
                low, high = max(lo, value - half), min(hi, value + half)
            else:
                half = span or (hi - lo) / 8
                low, high = max(lo, round(value - half, 6)), min(hi, round(value + half, 6))
            if low < high:
                items.append(f"{f.name}={_value_text(low)}:{_value_text(high)}")
    return items


def _values(spec: tune.Spec, policy: str) -> dict[str, Any]:
    """The searched parameters' values in ``policy`` (the first trial)."""
    g = registry.get(spec.game)
    params = g.make_policies(policy, 1)[0].params
    out = {}
    for p in spec.params:
        v = getattr(params, p.name)
        if p.kind == "float" and p.step:
            v = round(round(v / p.step) * p.step, 6)
        if p.kind != "choice" and not p.low <= v <= p.high:
            return {}                           # outside the round's range: no start trial
        out[p.name] = v
    return out


def objective(game: str) -> tuple[str, str]:
    """``(unit, measure)``: what an adaptation of ``game`` maximises."""
    g = registry.get(game)
    unit = "game" if "game" in g.units else "hand"
    measure = g.unit(unit).measure
    assert measure is not None, f"{g.name} {unit}s have no measure"
    return unit, measure.units


def check(game: str, policies: str | Sequence[str] | None) -> str:
    """The one policy spec every seat plays, which an adaptation starts from; a
    table of different policies, or one without parameters, is refused."""
    g = registry.get(game)
    specs = [policies] if policies is None or isinstance(policies, str) else list(policies)
    texts = {g.make_policies(s, 1)[0].text() for s in specs}
    if len(texts) > 1:
        raise InputError("--adapt fits one policy that every seat plays: give --policy once")
    spec = str(specs[0] or g.default_policy).strip()
    if not dataclasses.fields(g.make_policies(spec, 1)[0].params):
        raise InputError(f"--adapt needs a policy with parameters to fit; {spec!r} has none")
    return spec


def _hashed(*parts: object) -> int:
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "little") % 2**63


def checked_sizes(given: Any, seed: int,
                  names: Sequence[str] = ("rounds", "trials", "games")
                  ) -> tuple[dict[str, int | None], int]:
    """The adaptation's sizes in settings ``given`` (its ``adapt_rounds`` and
    the rest of ``names``; None: the default), each checked as a count, and
    its seed (``adapt_seed``, default ``seed``), checked: compare's and
    search's settings."""
    sizes: dict[str, int | None] = {what: getattr(given, f"adapt_{what}") for what in names}
    for what, v in sizes.items():
        if v is not None:
            check_count(v, f"--adapt-{what}")
    a_seed = given.adapt_seed
    a_seed = seed if a_seed is None else a_seed
    rng.run_key(a_seed)
    return sizes, a_seed


def adaptation_seed(seed: int, k: int) -> int:
    """The seed of a comparison's ``k``-th independent adaptation (from 0),
    fixed by the comparison's adaptation seed ``seed``."""
    return _hashed("adaptation", seed, k)


def _seed(seed: int, round_: int) -> int:
    """Round ``round_``'s search deals: its own, fixed by the adaptation's seed
    and the same for every variant (common random numbers)."""
    return _hashed("adapt", seed, round_)


def default_place() -> pathlib.Path:
    """Where adaptations are kept without ``out``: simkit's cache directory."""
    from simkit.base.jit import cache_root
    return pathlib.Path(cache_root()) / "adapt"


def request(game: str, rules: Any, policy: str, params: Sequence[str] | None = None,
            seed: int = 0, rounds: int = ROUNDS, trials: int | None = None,
            deals: int | None = None) -> Request:
    """What an adaptation of ``policy`` to ``rules`` depends on (its key)."""
    g = registry.get(game)
    r = g.resolve_rules(rules)
    start = g.make_policies(policy, 1)[0].text()
    items = tuple(params) if params else tuple(search_space(game, start))
    if not items:
        raise InputError(f"--adapt: policy {policy!r} has no parameter to search")
    return Request(g.name, r.as_dict(), r.players, start, items, seed=int(seed),
                   rounds=rounds, trials=trials or trials_for(len(items)),
                   deals=deals or DEALS.get(g.name, 2_000), unit=objective(game)[0],
                   recentre=not params)


def _digest(result: dict[str, Any]) -> str:
    text = json.dumps(result, sort_keys=True, default=store.json_default)
    return hashlib.sha256(text.encode()).hexdigest()


def _read(path: pathlib.Path, req: Request) -> dict[str, Any] | None:
    """The result kept at ``path`` if it is whole and made for ``req``; None if
    there is none; a warning and None if it is damaged or another's."""
    if not path.exists() and not path.is_symlink():
        return None
    try:
        held = json.loads(read_text(str(path), f"adaptation '{path}'", MAX_JSON_BYTES))
        result = held["result"]
        if not isinstance(result, dict) or held.get("sha256") != _digest(result):
            raise ValueError("its checksum does not match what it holds")
        if result.get("request") != json.loads(json.dumps(dataclasses.asdict(req))):
            raise ValueError("it was made for another adaptation")
        registry.get(req.game).make_policies(result["setting"], 1)
        return result
    except (InputError, ValueError, KeyError, TypeError, RecursionError) as e:
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"simkit: warning: kept adaptation '{path}' is not used ({why}); adapting "
              "again", file=sys.stderr)
        return None


def kept_result(req: Request, out: store.StrPath | None = None,
                kept: Sequence[store.StrPath] = ()) -> dict[str, Any] | None:
    """The finished adaptation of ``req`` if one is kept whole (``out`` or the
    cache, and ``kept``), else None."""
    place = pathlib.Path(out) if out is not None else default_place()
    for where in [place, *(pathlib.Path(k) for k in kept)]:
        found = _read(where / req.key() / RESULT, req)
        if found is not None:
            if where == place:
                with contextlib.suppress(OSError):      # used now: tidied last (tidy)
                    os.utime(where / req.key() / RESULT)
            return found
    return None


@dataclasses.dataclass(frozen=True)
class AdaptSettings:
    """The options of :func:`adapt`, :func:`adapt_variants` and
    :func:`check_effort` (every one has its default).

    What the result depends on besides the rules and policy: ``seed`` (for
    :func:`adapt_variants`, the comparison's adaptation seed), and its sizes
    ``rounds``, ``trials`` and ``deals`` (None: :data:`ROUNDS`,
    :func:`trials_for` and the game's :data:`DEALS`).  How it is played:
    ``out`` (where it is kept; None: the cache), ``kept`` (where else it is
    looked up), ``threads``, ``scheduler`` (where it plays), ``progress``
    (progress lines), ``label`` (its name in the progress lines; empty: its
    key) and ``work`` (report progress, stop when told).
    """

    seed: int = 0
    rounds: int | None = None
    trials: int | None = None
    deals: int | None = None
    out: store.StrPath | None = None
    kept: Sequence[store.StrPath] = ()
    threads: int | None = None
    scheduler: str | None = None
    progress: bool = False
    label: str = ""
    work: Work | None = None


def _request_of(game: str, rules: Any, policy: str, params: Sequence[str] | None,
                o: AdaptSettings) -> Request:
    rounds = o.rounds
    return request(game, rules, policy, params, seed=o.seed,
                   rounds=ROUNDS if rounds is None else rounds, trials=o.trials,
                   deals=o.deals)


def effort(req: Request) -> float:
    """The games (or hands) one adaptation of ``req`` is expected to play: two
    rounds, each its trials (two tables; a pruned search plays about a ninth
    of the deals a trial), a few changes tested and a confirmation.  For
    progress bars only."""
    return 2 * (req.trials * 2 * req.deals / 9 + 5 * 2 * req.deals)


def adapt(game: str, rules: Any, policy: str, params: Sequence[str] | None = None,
          settings: AdaptSettings | None = None) -> dict[str, Any]:
    """The setting every seat plays after adapting ``policy`` to ``rules``
    (one adaptation: see the module notes; ``settings``: :class:`AdaptSettings`,
    None: every default), as
    ``{"setting", "start", "changed", "capped", "rounds", "objective",
    "unit", "trace", "request", "reused"}``: ``changed`` says whether the
    setting moved from the start, ``capped`` whether the last round still
    adopted a better one, ``rounds`` counts the rounds played, and ``trace``
    has one entry per round (its best setting, that setting against the field
    on fresh deals with a 95% interval unless the best was the field itself,
    and whether the field adopted it)."""
    o = AdaptSettings() if settings is None else settings
    g = registry.get(game)
    r = g.resolve_rules(rules)
    req = _request_of(game, r, policy, params, o)
    out = o.out
    place = store.check_place(out) if out is not None else default_place()
    work = o.work
    done = kept_result(req, place, o.kept)
    if done is None:
        with _held(place / req.key(), o.label or req.key(), work):
            done = kept_result(req, place)        # finished by the process waited for
            if done is None:
                return _adapt(g, r, req, place / req.key(), o)
    if work is not None:
        work.add(effort(req))
    return {**done, "reused": True}


@contextlib.contextmanager
def _held(where: pathlib.Path, label: str, work: Work | None) -> Iterator[None]:
    """Hold adaptation folder ``where`` for this process: another simkit
    process adapting the same (a second compare, a server job) is waited for,
    not raced (both would write the same rounds).  The lock is the operating
    system's, so it ends with its process however that ends."""
    import fcntl

    where.mkdir(parents=True, exist_ok=True)
    with open(where / LOCK, "a", encoding="ascii") as f:
        said = False
        while True:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not said:
                    print(f"simkit: waiting for another simkit process adapting {label}",
                          file=sys.stderr, flush=True)
                    said = True
                if work is not None:
                    work.check()
                time.sleep(WAIT_SECONDS)
        yield


def _adapt(g: Any, r: Any, req: Request, where: pathlib.Path,
           o: AdaptSettings) -> dict[str, Any]:
    """Play adaptation ``req`` in folder ``where`` (held) and keep its result."""
    game, work = g.name, o.work
    unit, measure = objective(game)
    progress = o.progress
    current, trace = req.policy, []
    for n in range(req.rounds):
        if work is not None:
            work.check()
        items = search_space(game, current) if req.recentre else list(req.params)
        spec = tune.make_spec(game, current, items, [current], tune.SpecSettings(
            players=r.players, rules=r.as_dict(), trials=req.trials, seed=_seed(req.seed, n),
            hands=req.deals if unit == "hand" else None,
            games=req.deals if unit == "game" else None, sampler="auto", prune=True))
        if progress:
            print(f"adapting {o.label or req.key()}: round {n + 1} of at most {req.rounds}",
                  file=sys.stderr, flush=True)
        res = tune.run(spec, tune.TuneOptions(
            out=where / f"round-{n + 1}", threads=o.threads, scheduler=o.scheduler,
            progress=progress, start=_values(spec, current), confirm_only=[], confirm_best=0,
            work=_Trials(work, req) if work is not None else None))
        found = g.make_policies(res["best"]["setting"], 1)[0].text()
        table = _Table(game, r, req, o)
        best, undone = table.simplify(current, found, _hashed("simplify", spec.seed))
        if best == current:
            trace.append({"round": n + 1, "best": found, "undone": undone, "diff": None,
                          "ci_low": None, "ci_high": None, "p_value": None, "games": 0,
                          "adopted": False})
            break
        c = table.versus(best, current, tune.confirm_seed(spec.seed))
        adopted = math.isfinite(c["ci_low"]) and c["ci_low"] > 0
        trace.append({"round": n + 1, "best": best, "found": found, "undone": undone,
                      "diff": c["diff"], "ci_low": c["ci_low"], "ci_high": c["ci_high"],
                      "p_value": c["p_value"], "games": req.deals, "adopted": adopted})
        if not adopted:
            break
        current = best
    result = {"setting": current, "start": req.policy, "changed": current != req.policy,
              "capped": bool(trace) and trace[-1]["adopted"], "rounds": len(trace),
              "objective": measure, "unit": unit, "trace": trace,
              "request": json.loads(json.dumps(dataclasses.asdict(req)))}
    store.write_json_atomic(where / RESULT, {"result": result, "sha256": _digest(result)})
    return {**result, "reused": False}


@dataclasses.dataclass(frozen=True)
class _Table:
    """Where an adaptation's settings meet: the game, its rules, the request's
    deals, and how the tournaments play (``settings``)."""

    game: str
    rules: Any
    req: Request
    settings: AdaptSettings

    def versus(self, own: str, other: str, seed: int) -> dict[str, float]:
        """``own`` against ``other`` on the request's deals of ``seed`` (duplicate):
        the difference (own minus other), its 95% interval and p-value."""
        from simkit import tournament

        if own == other:
            return {"diff": 0.0, "ci_low": 0.0, "ci_high": 0.0, "p_value": 1.0}
        req, o = self.req, self.settings
        res = tournament.run(self.game, [own, other], rules=self.rules, seed=seed,
                             hands=req.deals if req.unit == "hand" else None,
                             games=req.deals if req.unit == "game" else None,
                             threads=o.threads, scheduler=o.scheduler,
                             backend="dask" if o.scheduler else "threads")
        p = res.pairs.iloc[0]
        work = o.work
        if work is not None:
            work.add(2 * req.deals)
        return {k: float(p[k]) for k in ("diff", "ci_low", "ci_high", "p_value")}

    def simplify(self, field: str, best: str, seed: int) -> tuple[str, list[str]]:
        """``best`` with each change from ``field`` undone that is not shown to
        help (see the module notes), in the order of the policy's parameters,
        and the names of those undone."""
        g = registry.get(self.game)
        was, now = (g.make_policies(x, 1)[0].params for x in (field, best))
        undone = []
        work = self.settings.work
        for f in dataclasses.fields(now):
            old = getattr(was, f.name)
            if getattr(now, f.name) == old:
                continue
            if work is not None:
                work.check()
            without = g.make_policies(tune.setting(best, {f.name: old}), 1)[0].text()
            if not self.versus(best, without, seed)["ci_low"] > 0:
                best = without
                undone.append(f.name)
        return best, undone

    def cell(self, own: str, other: str, seed: int) -> dict[str, float]:
        """One best-response cell (:meth:`versus`), kept beside the adaptations
        (``best-response/`` in ``out`` or the cache) under a hash of what it
        depends on, so that the same comparison again does not play it."""
        text = json.dumps([self.game, self.rules.as_dict(), own, other, seed, self.req.deals,
                           VERSION], sort_keys=True, default=str)
        out = self.settings.out
        place = (pathlib.Path(out) if out is not None else default_place()) / CELLS
        name = f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.json"
        for where in [place, *(pathlib.Path(k) / CELLS for k in self.settings.kept)]:
            try:
                held = json.loads(read_text(str(where / name), "a kept best-response cell",
                                            MAX_JSON_BYTES))
                if held["sha256"] == _digest(held["result"]):
                    work = self.settings.work
                    if work is not None:
                        work.add(2 * self.req.deals)
                    return {k: float(held["result"][k])
                            for k in ("diff", "ci_low", "ci_high", "p_value")}
            except (InputError, ValueError, KeyError, TypeError, RecursionError):
                pass                # none kept there, or not whole: looked up elsewhere
        c = self.versus(own, other, seed)
        path = place / name
        place.mkdir(parents=True, exist_ok=True)
        store.write_json_atomic(path, {"result": c, "sha256": _digest(c)})
        return c


def tidy(place: pathlib.Path, most: int) -> int:
    """Keep ``place``'s adaptations within ``most`` bytes: each finished one
    (its ``_adapt.json`` written) keeps only its result, not its searches'
    storage, and beyond ``most`` the least recently used are removed whole
    (a later comparison adapts them again), but none changed in the last
    :data:`BUSY_SECONDS`.  Returns the bytes removed."""
    import shutil

    def size(path: pathlib.Path) -> int:
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())

    removed = 0
    if not place.is_dir():
        return 0
    folders = [d for d in place.iterdir() if d.is_dir() and d.name != CELLS]
    # last used: the result's time (a reuse touches it), else the folder's
    used = {d: max(p.stat().st_mtime for p in (d, d / RESULT) if p.exists()) for d in folders}
    for d in folders:
        if (d / RESULT).is_file():
            for rounds in d.glob("round-*"):
                removed += size(rounds)
                shutil.rmtree(rounds, ignore_errors=True)
    held = sorted(((used[d], d, size(d)) for d in folders if d.exists()), key=lambda t: t[0])
    total = sum(n for _, _, n in held)
    for when, d, n in held:
        if total <= most:
            break
        if time.time() - when < BUSY_SECONDS or _busy(d):
            continue                    # perhaps (or surely) still being adapted
        shutil.rmtree(d, ignore_errors=True)
        total -= n
        removed += n
    return removed


def _busy(where: pathlib.Path) -> bool:
    """Whether a process holds adaptation folder ``where`` now (:func:`_held`)."""
    import fcntl

    try:
        fd = os.open(where / LOCK, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


class _Trials(Work):
    """A round's progress as its share of the adaptation's expected games: a
    tune reports trials; each counts the games a trial plays on average."""

    def __init__(self, outer: Work | None, req: Request) -> None:
        super().__init__(stop=outer.stop if outer is not None else None)
        self.outer, self.req = outer, req

    def expect(self, amount: float) -> None:
        pass

    def add(self, amount: float) -> None:
        if self.outer is not None:
            # a round's trials: about half of what effort() expects of it
            self.outer.add(amount * effort(self.req) / (4 * (self.req.trials + 1)))


# --- a comparison's adaptations ----------------------------------------------------------

@dataclasses.dataclass
class Fits:
    """A comparison's adaptations: ``results[k][v]``, adaptation ``k``'s result
    for variant ``v`` (:func:`adapt`'s, with ``continued_from``: the label of
    the variant whose setting it went on from, or None), and the best-response
    check's rows."""

    labels: list[str]
    results: list[list[dict[str, Any]]]
    best_response: list[dict[str, Any]]

    def settings(self, k: int) -> list[str]:
        """Adaptation ``k``'s setting of every variant."""
        return [r["setting"] for r in self.results[k]]

    def summary(self, v: int) -> dict[str, Any]:
        """Variant ``v``'s adaptations as a comparison's variants table holds
        them: the objective, whether any adaptation changed the setting or
        stopped at the cap, each one's setting, and each one's account."""
        each = [res[v] for res in self.results]
        keep = ("setting", "start", "changed", "capped", "rounds", "trace", "reused",
                "continued_from")
        return {"objective": each[0]["objective"], "unit": each[0]["unit"],
                "seeds": len(each), "setting": each[0]["setting"],
                "settings": [e["setting"] for e in each],
                "changed": any(e["changed"] for e in each),
                "capped": any(e["capped"] for e in each),
                "reused": all(e["reused"] for e in each),
                "rounds": max(e["rounds"] for e in each),
                "by_adaptation": [{k: e.get(k) for k in keep} for e in each]}


def check_effort(game: str, variants: Sequence[Any], policy: str,
                 params: Sequence[str] | None, seeds: int,
                 settings: AdaptSettings | None = None) -> float:
    """The games :func:`adapt_variants` is expected to play (the bases' kept
    adaptations counted too: a progress bar moves past them at once)."""
    o = AdaptSettings() if settings is None else settings
    reqs = [_request_of(game, rules, policy, params, o) for rules in variants]
    return seeds * (sum(effort(r) for r in reqs)
                    + len(variants) * (len(variants) - 1) * 2 * reqs[0].deals)


def adapt_variants(game: str, variants: Sequence[tuple[str, Any]], policy: str,
                   params: Sequence[str] | None = None, seeds: int = SEEDS,
                   settings: AdaptSettings | None = None) -> Fits:
    """Adapt ``policy`` to every variant's rules (``(label, rules)`` pairs, the
    base first), ``seeds`` times, and check each setting's reply to the
    others (see the module notes; ``settings``: :class:`AdaptSettings`, None:
    every default)."""
    o = AdaptSettings() if settings is None else settings
    g = registry.get(game)
    labels = [label for label, _ in variants]
    rules = [g.resolve_rules(r) for _, r in variants]
    results, rows = [], []
    for k in range(seeds):
        one = dataclasses.replace(o, seed=adaptation_seed(o.seed, k))
        named = f" (adaptation {k + 1} of {seeds})" if seeds > 1 else ""
        base = adapt(game, rules[0], policy, params,
                     dataclasses.replace(one, label=labels[0] + named))
        mine = [{**base, "continued_from": None}]
        for label, r in zip(labels[1:], rules[1:]):
            res = adapt(game, r, base["setting"], params,
                        dataclasses.replace(one, label=label + named))
            mine.append({**res, "continued_from": None})
        cells = _best_response(game, rules, labels, mine, k=k, o=o)
        for v in range(len(variants)):
            worst = min((c for c in cells if c["rules"] == labels[v] and c["flagged"]),
                        key=lambda c: c["diff"], default=None)
            if worst is None:
                continue
            w = labels.index(worst["setting_of"])
            res = adapt(game, rules[v], mine[w]["setting"], params,
                        dataclasses.replace(
                            one, label=f"{labels[v]} from {labels[w]}'s setting{named}"))
            mine[v] = {**res, "continued_from": labels[w]}
            again = _best_response(game, rules, labels, mine, k=k, o=o, only=v)
            for c in cells:
                if c["rules"] == labels[v]:
                    c["continued"] = True
            cells += again
        rows += cells
        results.append(mine)
    return Fits(labels, results, rows)


def _best_response(game: str, rules: list[Any], labels: list[str], mine: list[dict[str, Any]],
                   k: int, o: AdaptSettings, only: int | None = None) -> list[dict[str, Any]]:
    """Adaptation ``k``'s best-response cells: under each variant's rules (or
    variant ``only``'s, after its adaptation went on), its setting against
    every other variant's."""
    req = _request_of(game, rules[0], mine[0]["setting"], None, o)
    seed = _hashed("best-response", adaptation_seed(o.seed, k))
    work = o.work
    cells = []
    for v, r in enumerate(rules):
        if only is not None and v != only:
            continue
        for w in range(len(rules)):
            if w == v:
                continue
            if work is not None:
                work.check()
            own, other = mine[v]["setting"], mine[w]["setting"]
            c = _Table(game, r, req, o).cell(own, other, seed)
            cells.append({"adaptation": k + 1, "rules": labels[v], "setting_of": labels[w],
                          "own": own, "other": other, "same": own == other,
                          "games": req.deals, **c,
                          "flagged": math.isfinite(c["ci_high"]) and c["ci_high"] < 0,
                          "continued": False, "after": only is not None})
    return cells


# --- words ------------------------------------------------------------------------------

def format_trace(label: str, res: dict[str, Any]) -> list[str]:
    """The lines that say how one adaptation of variant ``label`` went."""
    how = "reused from an earlier run" if res.get("reused") else \
        f"{res['rounds']} round{'s' if res['rounds'] != 1 else ''}"
    start, came = res.get("start"), res.get("continued_from")
    if came:
        lines = [f"{label}: took {came}'s setting, which beat its own under these rules, and "
                 f"went on from it ({how}; objective: {res['objective']}) -> {res['setting']}"]
    elif not res.get("changed", True):
        lines = [f"{label}: the players needed no change under this rule ({how}; "
                 f"objective: {res['objective']}) -> {res['setting']}"]
    else:
        lines = [f"{label}: adapted ({how}; objective: {res['objective']}) -> "
                 f"{res['setting']}" + (f" (from {start})" if start else "")]
    for t in res["trace"]:
        undone = t.get("undone") or []
        if t["diff"] is None:
            lines.append(f"  round {t['round']}: " + (
                f"no change to {', '.join(undone)} was shown to help on fresh deals: kept"
                if undone else "no setting beat the field on the search's deals: kept"))
            continue
        if undone:
            lines.append(f"  round {t['round']}: changes to {', '.join(undone)} not shown to "
                         "help: undone")
        lo, hi = t["ci_low"], t["ci_high"]
        ci = "" if lo is None or not math.isfinite(lo) else f" [{lo:+.4f}, {hi:+.4f}]"
        verdict = "adopted" if t["adopted"] else "kept the field (not told apart)"
        lines.append(f"  round {t['round']}: best {t['best']} vs the field "
                     f"{t['diff']:+.4f}{ci} on {t['games']:,} fresh deals: {verdict}")
    if res.get("capped"):
        lines.append(f"  warning: stopped at the cap of {res['rounds']} rounds while still "
                     "improving: the players may not have converged (raise --adapt-rounds)")
    return lines
