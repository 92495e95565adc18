"""The tuning study of each game: which settings of its heuristic play best.

One study per game (``pepper-tuning``, ...), all made here by :class:`Tuning`
from a :class:`Setup`.  Each runs :func:`simkit.tune.run`: ``TRIALS``
settings of a few of the heuristic's parameters, chosen by Optuna's TPE
sampler, each played against a field of two policies on the same duplicate
deals; then the best three settings played again on fresh deals against
the default heuristic, the field, the game's named settings and policies the
search never met (``Setup.outside``).  Last, the best setting at every seat
and the default at every seat play the same fresh deals, and the record
columns of ``Setup.behaviour`` are compared deal by deal: what the tuned
player does differently.

``hands`` (``Setup.default`` by default) is the number of duplicate deals
every trial plays against each policy of the field: hands for games played in
hands (their confirmation also plays a twentieth as many whole games, at
least 200), whole games for Shiesta.

Tables (every difference with its 95% t interval):

- ``trials``: each trial's setting, its value (the mean difference against the
  field, the game's measure) and the best value so far;
- ``importance``: each parameter's PED-ANOVA importance (adding up to 1);
- ``confirm``: each confirmed setting against each opponent, in hands and in
  whole games;
- ``behaviour``: per record column, the default's mean, the best setting's,
  and the paired difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analyses.common import GameStudy, Plot, Study, Tables, signed
from simkit import engine, games, tune
from simkit.base import stats
from simkit.base.rows import rows_of

#: Settings each study tries.
TRIALS = 30


@dataclass(frozen=True)
class Setup:
    """A game's tuning: the table size, the parameters searched (``--param``
    texts), the field every trial plays, the policies only the confirmation
    meets, the record columns compared, and the default deals per trial."""

    players: int
    params: tuple[str, ...]
    field: tuple[str, ...]
    outside: tuple[str, ...]
    behaviour: tuple[str, ...]
    default: int


SETUPS = {
    "pepper": Setup(
        players=4, params=("aggression=-1:1", "partner_help=0:1.5", "kubwa_margin=0:2"),
        field=("heuristic", "classic"), outside=("heuristic:aggression=1", "random"),
        behaviour=("contract", "calls", "stuck", "made", "score_0", "score_1"), default=20_000),
    "pitch": Setup(
        players=4, params=("aggression=-1.5:1.5", "cash_chance=20:101", "risk_points=5:11",
                           "partner_cover=low,safe,boss"),
        field=("heuristic", "classic"), outside=("heuristic:aggression=1", "random"),
        behaviour=("contract", "stuck", "made", "moon", "score_0", "score_1"), default=20_000),
    "shiesta": Setup(
        players=4, params=("three_at=0:8", "burn_at=0:10", "stuck_three_pile=0:10",
                           "special_sets=one,dry,all"),
        field=("heuristic", "classic"), outside=("heuristic:exchange=keep", "random"),
        behaviour=("turns", "pickups_0", "played_2", "played_3", "played_10"), default=2_000),
    "burraco": Setup(
        players=4, params=("take_at=1:8", "wild_at=3:8", "guard_pile=1:20",
                           "order=sequences,sets"),
        field=("heuristic", "patient"), outside=("classic", "heuristic:end_threat=true"),
        behaviour=("turns", "score_0", "melds_0", "clean_burraco_0", "dirty_burraco_0",
                   "wilds_0"), default=1_000),
}


def behaviour(game: str, setup: Setup, setting: str, deals: int, seed: int,
              threads: int | None) -> pd.DataFrame:
    """The record columns of ``setup.behaviour`` with the default heuristic at
    every seat and with ``setting`` at every seat, on the same ``deals``
    units of ``seed``: each table's mean and the paired difference."""
    g = games.get(game)
    unit = "hand" if "hand" in g.units else "game"
    cols = list(setup.behaviour)
    base, tuned = (engine.simulate(g, unit, engine.RunSettings(
                       deals, players=setup.players, policy=p, seed=seed, threads=threads))
                   for p in (g.default_policy, setting))
    rows = []
    for c in cols:
        x, y = base[c].to_numpy(float), tuned[c].to_numpy(float)
        d, lo, hi = stats.mean_ci_of(y - x)
        rows.append({"column": c, "default": float(x.mean()), "tuned": float(y.mean()),
                     "diff": d, "ci_low": lo, "ci_high": hi, unit + "s": deals})
    return pd.DataFrame(rows)


def _interval(d: float, lo: float, hi: float, k: int = 4) -> str:
    return f"{signed(d, k)} (95% CI {signed(lo, k)} to {signed(hi, k)})"


@dataclass
class Tuning(GameStudy):
    """The tuning study of one game (the study contract of :mod:`analyses`)."""

    setup: Setup

    def __post_init__(self) -> None:
        g = games.get(self.game)
        self.NAME = f"{self.game}-tuning"
        self.TITLE = f"{g.title}: the heuristic's parameters, tuned on duplicate deals"
        self.DEFAULT_HANDS = self.setup.default
        unit = "hands" if "hand" in g.units else "games"
        self.STUDY = Study(self.NAME, self.TITLE, self.DEFAULT_HANDS, simulate=self.simulate_tables,
                           findings=self.findings, figures=self._plots(),
                           provenance=self._provenance, descriptions=self._descriptions(),
                           notes=self._notes,
                           size=f"duplicate {unit} per trial and opponent",
                           kernels=[f"{self.game}:{s}" for s in ("hands", "games", "sessions")
                                    if s in g.warm()])

    def spec(self, hands: int, seed: int) -> tune.Spec:
        by_hand = "hand" in games.get(self.game).units      # Shiesta plays whole games
        return tune.make_spec(self.game, "heuristic", self.setup.params, self.setup.field,
                              tune.SpecSettings(
                                  players=self.setup.players, trials=TRIALS, seed=seed,
                                  also=self.setup.outside, hands=hands if by_hand else None,
                                  games=None if by_hand else hands))

    def simulate_tables(self, hands: int, seed: int, progress: bool,
                        threads: int | None) -> dict[str, pd.DataFrame]:
        res = tune.run(self.spec(hands, seed), tune.TuneOptions(threads=threads, progress=progress))
        names = [p.partition("=")[0] for p in self.setup.params]
        trials = pd.DataFrame([{"trial": t["number"], **{n: t["params"][n] for n in names},
                                "setting": tune.setting("heuristic", t["params"]),
                                "value": t["value"]} for t in res["trials"]])
        trials["best_so_far"] = trials["value"].cummax()
        importance = pd.DataFrame({"parameter": list(res["importance"]),
                                   "importance": list(res["importance"].values())})
        confirm = pd.DataFrame(res["confirmations"]).rename(columns={"hands": "deals"})
        best = res["best"]["setting"]
        unit = res["unit"]
        deals = int(confirm.loc[confirm["unit"] == unit, "deals"].iloc[0])
        acts = behaviour(self.game, self.setup, best, deals=deals, seed=res["confirm_seed"],
                         threads=threads)
        return {"trials": trials, "importance": importance.sort_values(
                "importance", ascending=False, kind="stable").reset_index(drop=True),
                "confirm": confirm, "behaviour": acts.assign(setting=best)}

    def findings(self, tables: Tables) -> list[str]:
        trials, confirm = tables["trials"], tables["confirm"]
        top = trials.sort_values(["value", "trial"], ascending=[False, True]).iloc[0]
        units = confirm["units"].iloc[0]
        best = top["setting"]
        default = games.get(self.game).default_policy
        out = [f"{len(trials)} settings of {', '.join(self.setup.params)} tried against "
               f"{' and '.join(self.setup.field)}; the best, {best} (trial {top['trial']}), "
               f"scored {signed(top['value'], 4)} {units} against them on the searched "
               "deals."]
        mine = confirm[confirm["setting"] == best]
        for r in rows_of(mine):
            if r.diff is None or not math.isfinite(r.diff):
                continue
            verdict = ("better" if r.ci_low > 0 else "worse" if r.ci_high < 0
                       else "not told apart")
            where = "" if r.in_field else ", a policy the search never met"
            out.append(f"Confirmed on {r.deals:,} fresh {'games' if r.unit == 'game' else 'deals'}"
                       f" against {r.against}{where}: {_interval(r.diff, r.ci_low, r.ci_high)}"
                       f" {r.units}: {verdict}.")
        whole = mine[(mine["against"] == default) & (mine["unit"] == "game")]
        if len(whole):
            r = whole.iloc[0]
            out.append("In whole games against the default the best setting is "
                       + ("better beyond its interval: a candidate for the default."
                          if r["ci_low"] > 0 else "not better beyond its interval: the "
                          "default stays."))
        imp = tables["importance"]
        out.append("Importance (PED-ANOVA): " + ", ".join(
            f"{r.parameter} {r.importance:.2f}" for r in rows_of(imp)) + ".")
        acts = tables["behaviour"]
        moved = [f"{r.column} {r.default:.3f} -> {r.tuned:.3f} "
                 f"({_interval(r.diff, r.ci_low, r.ci_high, 3)})"
                 for r in rows_of(acts) if r.ci_low > 0 or r.ci_high < 0]
        out.append(f"Played at every seat, {best} against the default at every seat on the "
                   "same deals: " + ("; ".join(moved) if moved else "no column compared "
                                     "moved beyond its interval") + ".")
        return out

    def _plots(self) -> tuple[Plot, ...]:
        return (Plot("trace", "The search: each trial's value (its mean difference against "
                     "the field on the searched deals) and the best so far.", _trace),
                Plot("importance", "Each parameter's importance (PED-ANOVA: how differently "
                     "it is spread among the best tenth of the trials).", _importance),
                Plot("confirm", "The best settings on fresh deals against each opponent, "
                     "with 95% intervals (hollow: not in the field).", _confirm))

    def _provenance(self, hands: int) -> dict[str, Any]:
        g = games.get(self.game)
        names = dict.fromkeys([g.default_policy, *self.setup.field, *g.named_policies,
                               *self.setup.outside])
        return {"hands": hands if "hand" in g.units else None,
                "games": None if "hand" in g.units else hands,
                "rules": g.resolve_rules(None, self.setup.players).as_dict(),
                "policies": {n: g.make_policies(n, 1)[0].text() for n in names},
                "tuned": "heuristic", "searched": list(self.setup.params), "trials": TRIALS,
                "sampler": "tpe", "players": self.setup.players, "per_trial": True}

    def _descriptions(self) -> dict[str, Any]:
        return {
            "trials": "One row per trial: its parameters, the setting as --policy takes it, "
                      "its value (mean difference against the field, the game's measure, "
                      "on the searched deals) and the best value so far.",
            "importance": "One row per parameter: its PED-ANOVA importance over the trials.",
            "confirm": "One row per confirmed setting, opponent and unit: the difference "
                       "setting minus opponent on fresh deals, its 95% t interval and "
                       "p-value, the deals, and whether the opponent was in the field.",
            "behaviour": "One row per record column: its mean with the default at every seat "
                         "and with the best setting at every seat on the same fresh deals, "
                         "and the paired difference with its 95% t interval."}

    def _notes(self, hands: int, seed: int) -> list[str]:
        s = self.spec(hands, seed)
        return [
            "Every trial plays the same deals (seed " + str(seed) + "), so trials differ "
            "by their play; the confirmation's deals come from seed "
            f"{tune.confirm_seed(seed)}, never searched.",
            "The best of many trials on the same deals is flattered by them: compare its "
            "searched value with its confirmed one.",
            "Rerun: simkit tune " + self.game + " " + " ".join(
                f"--param {p.text()}" for p in s.params) + " " + " ".join(
                f"--against {a}" for a in s.against) + " " + " ".join(
                f"--confirm-against {a}" for a in s.also)
            + f" --trials {TRIALS} --{s.unit}s {hands} --seed {seed}.",
        ]


def _trace(tables: Tables) -> Figure:
    t = tables["trials"]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.scatter(t["trial"], t["value"], s=14, color="tab:blue", label="trial")
    ax.step(t["trial"], t["best_so_far"], where="post", color="tab:red", label="best so far")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("trial")
    ax.set_ylabel(f"{tables['confirm']['units'].iloc[0]}: mean difference\nagainst the field")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def _importance(tables: Tables) -> Figure:
    imp = tables["importance"]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(imp) + 1.5))
    y = np.arange(len(imp))[::-1]
    ax.barh(y, imp["importance"], color="tab:blue")
    ax.set_yticks(y, imp["parameter"])
    ax.set_xlabel("importance (adds up to 1)")
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig


def _confirm(tables: Tables) -> Figure:
    c = tables["confirm"].dropna(subset=["diff"])
    units = list(dict.fromkeys(c["unit"]))
    ranks = {s: ("best", "2nd", "3rd")[i] if i < 3 else f"{i + 1}th"
             for i, s in enumerate(dict.fromkeys(c["setting"]))}
    fig, axes = plt.subplots(1, len(units), figsize=(4.5 * len(units) + 2,
                                                     0.35 * len(c) / len(units) + 2.6),
                             squeeze=False, sharey=True)
    for ax, unit in zip(axes[0], units):
        part = c[c["unit"] == unit]
        y = np.arange(len(part))[::-1]
        d = part["diff"].to_numpy(float)
        err = [d - part["ci_low"].to_numpy(float), part["ci_high"].to_numpy(float) - d]
        ax.errorbar(d, y, xerr=err, fmt="none", ecolor="grey", capsize=3)
        filled = part["in_field"].to_numpy(bool)
        ax.scatter(d[filled], y[filled], color="tab:blue", zorder=3)
        ax.scatter(d[~filled], y[~filled], facecolors="white", edgecolors="tab:blue", zorder=3)
        ax.set_yticks(y, [f"{ranks[s]} vs {a}" for s, a in
                          zip(part["setting"], part["against"])], fontsize=8)
        ax.axvline(0, color="k", lw=0.8)
        ax.set_xlabel(f"{part['units'].iloc[0]}, setting minus opponent")
        ax.grid(alpha=0.3)
    fig.suptitle("\n".join(f"{r}: {s}" for s, r in ranks.items()), fontsize=8)
    fig.tight_layout()
    return fig


pepper = Tuning("pepper", SETUPS["pepper"])
pitch = Tuning("pitch", SETUPS["pitch"])
shiesta = Tuning("shiesta", SETUPS["shiesta"])
burraco = Tuning("burraco", SETUPS["burraco"])
