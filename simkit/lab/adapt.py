"""Players re-fitted to a rule variant before it is compared:
``simkit compare GAME --variant ... --adapt``.

Real players re-learn their bidding when a penalty, a stake or a payout
changes; a comparison played by players who do not notice the change
measures the scoring arithmetic of the same play, not the game under the new
rule.  So, for one variant's rules, :func:`adapt` fits the policy the table
plays with the tuning machinery of :mod:`simkit.tune` (Optuna, duplicate
deals, confirmation on fresh deals):

1. every seat starts from the given setting (the *field*);
2. a round searches the policy's parameters for the best reply to the field:
   each trial is a candidate at half the seats (one partnership) against the
   field at the others, then the seats swapped, on the same deals (the
   round's seed); the field's own setting is the first trial;
3. the best setting plays the field again on fresh deals; if its interval
   there lies above 0 the field adopts it, and another round starts from it;
   otherwise (the best is not told apart from the field) the field is kept;
4. rounds repeat until the field is kept or ``rounds`` have adopted a new
   setting.

The search covers every parameter of the policy (``params`` narrows it, in
``simkit tune``'s ``NAME=LOW:HIGH`` / ``NAME=A,B`` form): a number within its
accepted range, around the current value (as far either side as the
parameter's ``span`` says, else an eighth of its range; integers 1 to 3; or
where its ``span`` says, as ``(low, high)``), a choice or a true/false
parameter over all its values.  The objective is the game's unit: whole
games won (Shiesta, Pepper, Burraco), money per session (Pitch), points per
hand for a game without whole games.

Every round is a tune of its own, kept in a directory: ``out``, or by
default ``adapt/`` in simkit's cache directory (:func:`simkit.base.jit.cache_root`),
under a name that hashes everything the result depends on (game, rules,
players, policy, searched parameters, sizes and seed).  So the same
comparison again reuses the adapted setting in seconds, and Ctrl-C keeps
the finished rounds and trials.  A finished adaptation is also looked up,
read-only, in ``kept`` directories (the studies ship theirs).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import pathlib
import sys
from collections.abc import Sequence
from typing import Any, TypedDict, Unpack

from simkit import games as registry
from simkit import tune
from simkit.base.errors import InputError
from simkit.runs import store
from simkit.runs.batches import Work

ROUNDS = 3
TRIALS = 24
#: Duplicate whole games per trial, per game (under a second a trial on 2
#: cores); the confirmation plays four times as many.
DEALS = {"pepper": 10_000, "pitch": 10_000, "shiesta": 40_000, "burraco": 2_000}
CONFIRM = 4
RESULT = "_adapt.json"


@dataclasses.dataclass(frozen=True)
class Request:
    """What an adaptation depends on (its key)."""

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


def _seed(seed: int, round_: int) -> int:
    """Round ``round_``'s search deals: its own, fixed by the comparison's seed."""
    digest = hashlib.sha256(f"adapt:{seed}:{round_}".encode()).digest()
    return int.from_bytes(digest[:8], "little") % 2**63


def _find(key: str, places: Sequence[pathlib.Path]) -> dict[str, Any] | None:
    for place in places:
        try:
            found: dict[str, Any] = json.loads((place / key / RESULT)
                                               .read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        return found
    return None


def default_place() -> pathlib.Path:
    """Where adaptations are kept without ``out``: simkit's cache directory."""
    from simkit.base.jit import cache_root
    return pathlib.Path(cache_root()) / "adapt"


def request(game: str, rules: Any, policy: str, params: Sequence[str] | None = None,
            seed: int = 0, rounds: int = ROUNDS, trials: int = TRIALS,
            deals: int | None = None) -> Request:
    """What an adaptation of ``policy`` to ``rules`` depends on (its key)."""
    g = registry.get(game)
    r = g.resolve_rules(rules)
    items = tuple(params) if params else tuple(search_space(game, policy))
    if not items:
        raise InputError(f"--adapt: policy {policy!r} has no parameter to search")
    return Request(g.name, r.as_dict(), r.players, policy, items, seed=int(seed), rounds=rounds,
                   trials=trials, deals=deals or DEALS.get(g.name, 2_000),
                   unit=objective(game)[0])


def kept_result(req: Request, out: store.StrPath | None = None,
                kept: Sequence[store.StrPath] = ()) -> dict[str, Any] | None:
    """The finished adaptation of ``req`` if one is kept (``out`` or the cache,
    and ``kept``), else None."""
    place = pathlib.Path(out) if out is not None else default_place()
    return _find(req.key(), [place, *(pathlib.Path(k) for k in kept)])


class AdaptArgs(TypedDict, total=False):
    """The keyword options of :func:`adapt`: what the result depends on besides
    the rules and policy (``seed``, 0; ``rounds``, ``trials`` and ``deals``,
    None for :data:`ROUNDS`, :data:`TRIALS` and the game's :data:`DEALS`), and
    how it is played: ``out`` (where it is kept), ``kept`` (where else it is
    looked up), ``threads``, ``scheduler``, ``progress``, ``label`` (its name
    in the progress lines) and ``work``."""

    seed: int
    rounds: int | None
    trials: int | None
    deals: int | None
    out: store.StrPath | None
    kept: Sequence[store.StrPath]
    threads: int | None
    scheduler: str | None
    progress: bool
    label: str
    work: Work | None


def adapt(game: str, rules: Any, policy: str, params: Sequence[str] | None = None,
          **kw: Unpack[AdaptArgs]) -> dict[str, Any]:
    """The setting every seat plays after adapting ``policy`` to ``rules``
    (see the module notes; ``kw``: :class:`AdaptArgs`), as ``{"setting",
    "rounds", "objective", "trace", "reused"}``: ``rounds`` counts the rounds
    played, ``trace`` has one entry per round (its best setting, that setting
    against the field on fresh deals with a 95% interval, and whether the field
    adopted it)."""
    unknown = sorted(set(kw) - AdaptArgs.__optional_keys__)
    if unknown:
        raise TypeError(f"adapt() got an unexpected keyword argument {unknown[0]!r}")
    g = registry.get(game)
    r = g.resolve_rules(rules)
    unit, measure = objective(game)
    seed, rounds, trials = kw.get("seed", 0), kw.get("rounds"), kw.get("trials")
    req = request(game, r, policy, params, seed=seed,
                  rounds=ROUNDS if rounds is None else rounds,
                  trials=TRIALS if trials is None else trials, deals=kw.get("deals"))
    key = req.key()
    out = kw.get("out")
    place = store.check_place(out) if out is not None else default_place()
    done = kept_result(req, place, kw.get("kept", ()))
    if done is not None:
        return {**done, "reused": True}
    items, deals = req.params, req.deals
    where = place / key
    where.mkdir(parents=True, exist_ok=True)
    work, progress = kw.get("work"), kw.get("progress", False)
    current, trace = policy, []
    for n in range(req.rounds):
        if work is not None:
            work.check()
        spec = tune.make_spec(game, current, list(items), [current], players=r.players,
                              rules=r.as_dict(), trials=req.trials, seed=_seed(seed, n),
                              hands=deals if unit == "hand" else None,
                              games=deals if unit == "game" else None)
        if progress:
            print(f"adapting {kw.get('label') or key}: round {n + 1} of at most {req.rounds}",
                  file=sys.stderr, flush=True)
        res = tune.run(spec, out=where / f"round-{n + 1}", threads=kw.get("threads"),
                       scheduler=kw.get("scheduler"), progress=progress,
                       confirm_deals=CONFIRM * deals, start=_values(spec, current),
                       confirm_only=[current], confirm_best=1, work=work)
        best = res["best"]["setting"]
        c = res["confirm"]
        adopted = (best != current and c["ci_low"] is not None and c["ci_low"] > 0)
        trace.append({"round": n + 1, "best": best, "diff": c["diff"], "ci_low": c["ci_low"],
                      "ci_high": c["ci_high"], "p_value": c["p_value"], "games": c["hands"],
                      "adopted": adopted})
        if not adopted:
            break
        current = best
    result = {"setting": g.make_policies(current, 1)[0].text(), "rounds": len(trace),
              "objective": measure, "unit": unit, "trace": trace,
              "request": dataclasses.asdict(req)}
    store.write_json_atomic(where / RESULT, result)
    return {**result, "reused": False}


def format_trace(label: str, res: dict[str, Any]) -> list[str]:
    """The lines that say how variant ``label``'s players were adapted."""
    how = "reused from an earlier run" if res.get("reused") else \
        f"{res['rounds']} round{'s' if res['rounds'] != 1 else ''}"
    lines = [f"{label}: adapted ({how}; objective: {res['objective']}) -> {res['setting']}"]
    for t in res["trace"]:
        lo, hi = t["ci_low"], t["ci_high"]
        ci = "" if lo is None or not math.isfinite(lo) else f" [{lo:+.4f}, {hi:+.4f}]"
        diff = "n/a" if t["diff"] is None else f"{t['diff']:+.4f}"
        verdict = "adopted" if t["adopted"] else "kept the field (not told apart)"
        lines.append(f"  round {t['round']}: best {t['best']} vs the field "
                     f"{diff}{ci} on {t['games']:,} fresh deals: {verdict}")
    return lines
