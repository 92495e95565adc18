"""What ``simkit search`` prints and draws: the answer and its front as a table
(:func:`format_result`), the ``--json`` shape (:func:`result_json`), the
measures a search can aim at (:func:`list_text`) and the figure of the front
(:func:`figure`: a scatter for two objectives, parallel coordinates for more,
the measure against the searched rule for one)."""

from __future__ import annotations

import math
import pathlib
from collections.abc import Sequence
from typing import Any

from simkit.lab.search_play import RATE, Measure


def list_text(title: str, measures: Sequence[Measure]) -> str:
    """Every measure a search of ``title`` can aim at: key, name, meaning, unit."""
    lines = [f"{title}: the measures a search can aim at (--goal, --minimize, --maximize), "
             "by key or by name", ""]
    for m in measures:
        lines.append(f"  {m.key}")
        lines.append(f"      {m.name}: {m.meaning()}; unit: {m.shown_unit()}")
    lines += ["", "Not searchable: the skill trace's rows (a ladder of tournaments per trial)."]
    return "\n".join(lines)


def list_json(measures: Sequence[Measure]) -> dict[str, Any]:
    """``search GAME --list --json``: every measure's key, name, meaning and unit."""
    return {"measures": [{"key": m.key, "name": m.name, "kind": m.kind, "table": m.section,
                          "unit": m.unit, "meaning": m.meaning(), "margin": m.margin}
                         for m in measures]}


def _num(x: Any, rate: bool) -> str:
    if x is None or not isinstance(x, (int, float)) or not math.isfinite(x):
        return "n/a"
    return f"{100 * x:.2f}%" if rate else f"{x:.3f}"


def _interval(v: dict[str, Any], rate: bool) -> str:
    return (f"{_num(v.get('value'), rate)} [{_num(v.get('ci_low'), rate)}, "
            f"{_num(v.get('ci_high'), rate)}]")


def value_text(res: dict[str, Any], name: str, v: dict[str, Any]) -> str:
    """Goal measure ``name``'s value ``v`` with its 95% interval, as the text
    shows it (a share in %)."""
    return _interval(v, _rates(res).get(name, False))


def _rates(res: dict[str, Any]) -> dict[str, bool]:
    """Per goal measure, whether it reads as a share."""
    return {g["measure"]: g.get("kind", RATE) == RATE for g in res["goals"]}


#: A measure's name longer than this is shown by its key in tables and figures.
LONG_NAME = 32


def _label(res: dict[str, Any], name: str) -> str:
    """A measure as tables and figures head it: its name, or its key if long."""
    if len(name) <= LONG_NAME:
        return name
    return next((g["key"] for g in res["goals"] if g["measure"] == name), name)


def rules_text(rules: dict[str, Any]) -> str:
    """Rule values as --set takes them (``key=value,...``)."""
    return ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                    for k, v in rules.items())


def findings_line(point: dict[str, Any], res: dict[str, Any]) -> str:
    """One line of a point's findings against the base: each goal measure's
    difference with its finding, then how many of every test ended in each word."""
    rates = _rates(res)
    parts = []
    for name, v in point["measures"].items():
        if "finding" not in v:
            continue
        rate = rates.get(name, False)
        scale, unit = (100, " pts") if rate else (1, "")
        diff = v.get("diff")
        shown = ("n/a" if diff is None or not math.isfinite(diff) else
                 f"{scale * diff:+.3g}{unit} [{scale * v['diff_low']:+.3g}, "
                 f"{scale * v['diff_high']:+.3g}]")
        parts.append(f"{_label(res, name)} {v['finding']} ({shown})")
    counted = ", ".join(f"{n} {w}" for w, n in point["findings"].items() if n)
    return "; ".join(parts) + (f"; all tests: {counted}" if counted else "")


def _answer_line(res: dict[str, Any]) -> str:
    """The answer in a sentence: the settings that meet every goal, or the closest."""
    a = res["answer"]
    front = res["tables"]["front"]
    rates = _rates(res)
    if front and not any(g["op"] in ("=", "<=", ">=") for g in res["goals"]):
        return (f"Answer: {len(front)} setting(s) on the front, none beaten on every "
                "objective by another on fresh deals: the choice among them is a trade-off "
                "(the table above)" if res["several"] else
                f"Answer: {rules_text(front[0]['rules'])}, the best setting found")
    if a["met"]:
        best = [p for p in front if p["meets_all"]]
        said = "; ".join(rules_text(p["rules"]) + " (" + ", ".join(
            f"{_label(res, n)} {_interval(v, rates.get(n, False))}"
            for n, v in p["measures"].items())
            + ")" for p in best[:3])
        lead = "meets" if len(best) == 1 else f"{len(best)} front points meet"
        return f"Answer: {said} {lead} every goal" + ("" if len(best) <= 3 else
                                                      f" (and {len(best) - 3} more)")
    c = a["closest"]
    if c is None:
        return "Answer: no setting in the range was played to the end (every trial refused " \
               "or stopped): widen the range or give more --trials"
    far = ", ".join(f"{goal} off by {_num(d, _goal_rate(res, goal))}"
                    for goal, d in c["distance"].items() if d > 0) or "within its interval"
    return (f"Answer: no setting in the range meets the goals; the closest is "
            f"{rules_text(c['rules'])} (trial {c['trial']}: {far})")


def _goal_rate(res: dict[str, Any], goal: str) -> bool:
    g = next((g for g in res["goals"] if g["goal"] == goal), None)
    return g is not None and g.get("kind") == RATE


def format_result(res: dict[str, Any]) -> str:
    """The tables ``simkit search`` prints."""
    units = ", ".join(f"{n:,} {'hands' if u == 'hand' else 'whole games'}"
                      for u, n in res["units"].items())
    pruned = f", {res['pruned']} stopped early" if res.get("pruned") else ""
    lines = [f"{res['game'].capitalize()} rule search, {res['players']} players: "
             f"{len(res['trials'])} trials ({res['sampler']}{pruned}), each on the base's "
             f"{units} (seed {res['seed']})",
             "searched: " + "; ".join(res["searched"]),
             "goals: " + "; ".join(g["goal"] for g in res["goals"]), ""]
    rates = _rates(res)
    base = res["base"]
    lines.append("Base (" + (rules_text(base["rules"]) or "its rules") + "): " + ", ".join(
        f"{_label(res, n)} {_interval(v, rates.get(n, False))}"
        for n, v in base["measures"].items()))
    if base.get("setting"):
        lines.append(f"Players adapted to each setting's rules (--adapt); the base's: "
                     f"{base['setting']}")
    long = [g for g in res["goals"] if len(g["measure"]) > LONG_NAME]
    if long:
        lines.append("keys: " + "; ".join(f"{g['key']} = {g['measure']}" for g in long))
    lines += ["", ("Pareto front" if res["several"] else "Best setting")
              + f", confirmed on fresh deals (seed {res['confirm_seed']}), 95% intervals:"]
    lines += _point_table(res, res["tables"]["front"])
    lines += ["", _answer_line(res)]
    others = res["tables"]["dominated"]
    if others:
        lines += ["", "Dominated or beaten (" + ("on fresh deals where confirmed, else "
                                               if any(d["confirmed"] for d in others) else
                                               "values ") + "on the search's deals):"]
        for d in others[:12]:
            where = "confirmed" if d["confirmed"] else "search"
            vals = ", ".join(
                f"{_label(res, n)} "
                f"{_num(v['value'] if isinstance(v, dict) else v, rates.get(n, False))}"
                for n, v in d["measures"].items())
            lines.append(f"  trial {d.get('trial', d.get('number')):>4}  "
                         f"{rules_text(d['rules']):<24} {vals}  ({where})")
        if len(others) > 12:
            lines.append(f"  ... and {len(others) - 12} more (--json lists them all)")
    return "\n".join(lines)


def _point_table(res: dict[str, Any], points: list[dict[str, Any]]) -> list[str]:
    """A row per point: its rules, every goal measure with its interval, whether
    it meets each goal, then its findings against the base."""
    if not points:
        return ["  (none: no trial was played to the end)"]
    rates = _rates(res)
    names = list(points[0]["measures"])
    rule_w = max(8, *(len(rules_text(p["rules"])) for p in points))
    cells = [[_interval(p["measures"][n], rates.get(n, False)) for n in names] for p in points]
    heads = [_label(res, n) for n in names]
    widths = [max(len(n), *(len(c[i]) for c in cells)) for i, n in enumerate(heads)]
    head = f"  {'trial':>5}  {'rules':<{rule_w}}  " + "  ".join(
        f"{n:<{w}}" for n, w in zip(heads, widths)) + "  meets"
    out = [head]
    for p, row in zip(points, cells):
        meets = "-" if not p["meets"] else "yes" if p["meets_all"] else "no: " + ", ".join(
            g for g, ok in p["meets"].items() if not ok)
        out.append(f"  {p['trial']:>5}  {rules_text(p['rules']):<{rule_w}}  "
                   + "  ".join(f"{c:<{w}}" for c, w in zip(row, widths)) + f"  {meets}")
        out.append(f"  {'':>5}  findings against the base: {findings_line(p, res)}")
        if p.get("setting"):
            out.append(f"  {'':>5}  players adapted to it: {p['setting']}")
    return out


def result_json(res: dict[str, Any]) -> dict[str, Any]:
    """The JSON of ``simkit search --json``: the result, ``tables.front`` a row
    per front point (``rules``, ``measures``: value and 95% interval,
    ``meets``: per goal)."""
    keys = ("game", "players", "seed", "confirm_seed", "policies", "sampler", "units",
            "searched", "goals", "several", "adapted", "base", "trials", "pruned", "tables",
            "answer")
    return {k: res[k] for k in keys} | {"answer_text": _answer_line(res)}


# --- the figure ------------------------------------------------------------------------

def front_figure(res: dict[str, Any]) -> Any:
    """The search's figure (a matplotlib Figure): one objective, the measure
    against the first searched rule; two, the front as a scatter; more, as
    parallel coordinates.  The caller closes it."""
    aims = [g for g in res["goals"] if g["objective"]] or res["goals"]
    return (_scatter(res, aims[:2]) if len(aims) == 2 else
            _parallel(res, aims) if len(aims) > 2 else _one(res, aims[0]))


def figure(res: dict[str, Any], path: pathlib.Path) -> None:
    """Draw the front into the PNG ``path`` (by way of a temporary file)."""
    import matplotlib.pyplot as plt

    from simkit.base.plots import use_file_backend
    from simkit.runs import store

    use_file_backend()
    fig = front_figure(res)
    tmp = store.temporary_path(path)
    try:
        fig.savefig(tmp, format="png", dpi=110)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
        plt.close(fig)


def _aim(goal: dict[str, Any]) -> str:
    """What a goal asks, in a word or two (for an axis)."""
    if goal["op"] in ("min", "max"):
        return "smaller is better" if goal["op"] == "min" else "larger is better"
    text = str(goal["goal"])
    return text[len(goal["measure"]):].strip() if text.lower().startswith(
        str(goal["measure"]).lower()) else text


def _searched(res: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in res["trials"] if t["state"] == "complete" and t["measures"]]


def _one(res: dict[str, Any], goal: dict[str, Any]) -> Any:
    """One objective: the measure against the first searched rule, every trial
    on the search's deals, the confirmed best with its interval."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    name = goal["measure"]
    rule = res["searched"][0].partition("=")[0]
    done = _searched(res)

    def x_of(rules: dict[str, Any]) -> Any:
        v = rules.get(rule)
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)

    ax.scatter([x_of(t["rules"]) for t in done], [t["measures"][name] for t in done],
               color="grey", alpha=0.6, label="trials (search deals)")
    stopped = [t for t in res["trials"] if t["state"] == "pruned" and t["measures"]]
    if stopped:
        ax.scatter([x_of(t["rules"]) for t in stopped], [t["measures"][name] for t in stopped],
                   facecolors="none", edgecolors="grey", alpha=0.6,
                   label="stopped early (fewer deals)")
    for p in res["tables"]["front"]:
        v = p["measures"][name]
        ax.errorbar([x_of(p["rules"])], [v["value"]],
                    yerr=[[v["value"] - v["ci_low"]], [v["ci_high"] - v["value"]]],
                    fmt="o", color="C3", capsize=4, label="best, fresh deals (95%)")
    if goal["op"] in ("=", "<=", ">=") and goal["value"] is not None:
        ax.axhline(goal["value"], color="C0", lw=0.8, ls="--", label=f"goal {goal['goal']}")
    ax.set_xlabel(rule)
    ax.set_ylabel(_label(res, name))
    ax.set_title(f"{res['game'].capitalize()} search: {_label(res, name)}")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def _scatter(res: dict[str, Any], aims: list[dict[str, Any]]) -> Any:
    """Two objectives: every trial (search deals) and the front's points with
    their confirmed intervals on both measures."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5))
    x_name, y_name = aims[0]["measure"], aims[1]["measure"]
    done = _searched(res)
    ax.scatter([t["measures"][x_name] for t in done], [t["measures"][y_name] for t in done],
               color="grey", alpha=0.5, label="trials (search deals)")
    front = sorted(res["tables"]["front"], key=lambda p: p["measures"][x_name]["value"])
    for p in front:
        x, y = p["measures"][x_name], p["measures"][y_name]
        ax.errorbar([x["value"]], [y["value"]],
                    xerr=[[x["value"] - x["ci_low"]], [x["ci_high"] - x["value"]]],
                    yerr=[[y["value"] - y["ci_low"]], [y["ci_high"] - y["value"]]],
                    fmt="o", color="C3", capsize=3)
        ax.annotate(rules_text(p["rules"]), (x["value"], y["value"]), fontsize=7,
                    xytext=(4, 4), textcoords="offset points")
    ax.plot([p["measures"][x_name]["value"] for p in front],
            [p["measures"][y_name]["value"] for p in front], color="C3", lw=0.8,
            label="front, fresh deals (95%)")
    ax.set_xlabel(f"{_label(res, x_name)} ({_aim(aims[0])})")
    ax.set_ylabel(f"{_label(res, y_name)} ({_aim(aims[1])})")
    ax.set_title(f"{res['game'].capitalize()} search: the Pareto front")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def _parallel(res: dict[str, Any], aims: list[dict[str, Any]]) -> Any:
    """Three or more objectives: parallel coordinates, one line per front point
    (each axis scaled to the points' own range, its ends labelled)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(7, 2.2 * len(aims)), 4.8))
    names = [g["measure"] for g in aims]
    front = res["tables"]["front"]
    cols = [[p["measures"][n]["value"] for p in front] for n in names]
    spans = [(min(c), max(c)) if c else (0.0, 1.0) for c in cols]
    for i, p in enumerate(front):
        ys = [(c[i] - lo) / (hi - lo) if hi > lo else 0.5 for c, (lo, hi) in zip(cols, spans)]
        ax.plot(range(len(names)), ys, marker="o", label=rules_text(p["rules"]))
    for j, (lo, hi) in enumerate(spans):
        ax.axvline(j, color="grey", lw=0.8)
        ax.annotate(f"{hi:.3g}", (j, 1.0), xytext=(3, 3), textcoords="offset points", fontsize=7)
        ax.annotate(f"{lo:.3g}", (j, 0.0), xytext=(3, -10), textcoords="offset points",
                    fontsize=7)
    ax.set_xticks(range(len(names)), [f"{_label(res, n)}\n({_aim(g)})"
                                      for n, g in zip(names, aims)], fontsize=7)
    ax.set_yticks([])
    ax.set_title(f"{res['game'].capitalize()} search: the front, fresh deals")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig

