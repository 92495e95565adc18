"""The rule-search study of each game: a question a designer of the game asks
of its rule book's numeric options, answered by ``simkit search``
(:func:`simkit.lab.search.run`) with the rule book's players.

One study per game (``pepper-rule-search``, ...), made here by
:class:`RuleSearch` from a :class:`Question`:

- Pepper: which target makes a game last 12 hands on average, the first
  dealer's side winning at most 2 points above its fair share?
- Pitch: which session target (with the 20-hand cap) makes a money session
  last 12 hands, and does the steal rule matter to it?  (Moons are not
  searched: the rule book's players bid a moon on about 0.01% of hands
  whatever it pays, since they do not weigh the payout; a search with
  ``--adapt`` refits them, at minutes per trial.)
- Shiesta: which deck and hand size give the shortest game with the
  starter's advantage nearest zero?  Two objectives: the answer is a front.
- Burraco: which target makes a game last three hands?

``hands`` (the question's ``units`` by default) is the number of deals
every trial plays and every answer is confirmed on: whole games here, as
every question is about whole games.

The searches at their default size and seed 0 are shipped finished in
``analyses/searched/<game>/`` (what ``simkit search --out`` keeps: what was
asked and the result, with its checksum in the manifest).  The study reads
the result there when it is the very search asked (the same rules, goals,
players, deals, seed and trials) and searches anew otherwise: about a minute
per game on 2 cores.  ``python -m analyses.rule_search [GAME ...]`` searches
and keeps them again.

Tables:

- ``answer``: the answer in words, the deals, and whether the search was the
  shipped one;
- ``front``: a row per point of the answer (the best setting, or the Pareto
  front), confirmed on fresh deals: its rules; per goal measure its value
  with the 95% interval, the paired difference from the rule book with its
  interval and the finding; whether every goal is met; the findings of every
  test against the rule book in a line;
- ``trials``: every trial on the search's deals: its rules, its state
  (complete, pruned: stopped early by successive halving, refused: the
  rules refuse the setting), the deals it played and each goal measure;
- ``goals``: each goal, and whether a point of the answer meets it;
- ``base``: the rule book's value of every goal measure on the fresh deals.
"""

from __future__ import annotations

import pathlib
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from analyses.common import GameStudy, Plot, Study, Tables
from simkit import games
from simkit.base.rows import rows_of
from simkit.lab import search, search_text

#: The searches shipped finished (one folder per game).
KEPT = pathlib.Path(__file__).resolve().parent / "searched"
#: The files of a search's folder that are shipped (the result and what vouches for it).
SHIPPED = (search.MANIFEST, search.RESULT)


@dataclass(frozen=True)
class Question:
    """A game's search: the question in words, the rules searched (``--rule``
    items), the goals (``--goal``), the objectives, the trials and the deals
    per trial (whole games), and why the question is asked this way."""

    text: str
    rules: tuple[str, ...]
    goals: tuple[str, ...]
    minimize: tuple[str, ...] = ()
    trials: int = 30
    units: int = 20_000
    why: str = ""


QUESTIONS = {
    "pepper": Question(
        "Which target makes a game last 12 hands on average, the first dealer's side "
        "winning at most 2 points above its fair share?",
        rules=("target=10:60",),
        goals=("hands_per_game_mean=12", "balance_the_first_dealers_sides_advantage<=2%")),
    "pitch": Question(
        "Which session target makes a money session (at most 20 hands) last 12 hands on "
        "average, under either steal rule?",
        rules=("target=5:40", "steal=match,outbid"), goals=("hands_per_game_mean=12",),
        why="Moons are not searched: the rule book's players bid a moon on about 0.01% of "
            "hands whatever it pays (they do not weigh the payout), so moon_made and "
            "moon_failed move nothing they do; simkit search --adapt refits them."),
    "shiesta": Question(
        "Which deck and hand size give the shortest game with the starter's advantage "
        "nearest zero?",
        rules=("hand_size=3:5", "decks=1,2"),
        goals=("balance_the_starters_advantage=0",), minimize=("turns_per_game_mean",),
        trials=12, units=4_000,
        why="Two objectives: no one setting is best at both, so the answer is the Pareto "
            "front, the settings no other beats at both."),
    "burraco": Question(
        "Which target makes a game last three hands on average?",
        rules=("target=500:3000",), goals=("hands_per_game_mean=3",), units=2_000),
}


def _value(cell: dict[str, Any], k: str) -> float:
    return float(cell[k]) if cell.get(k) is not None else float("nan")


def _front_rows(res: dict[str, Any]) -> pd.DataFrame:
    rows = []
    for kind in ("front", "dominated"):
        for p in res["tables"][kind]:
            if kind == "dominated" and not p.get("confirmed"):
                continue
            row: dict[str, Any] = {"point": "answer" if kind == "front" else "beaten",
                                   "trial": p["trial"], **p["rules"]}
            for name, m in p["measures"].items():
                row.update({name: _value(m, "value"), f"{name} ci_low": _value(m, "ci_low"),
                            f"{name} ci_high": _value(m, "ci_high"),
                            f"{name} diff": _value(m, "diff"),
                            f"{name} diff_low": _value(m, "diff_low"),
                            f"{name} diff_high": _value(m, "diff_high"),
                            f"{name} finding": m.get("finding")})
            row["meets_all"] = bool(p["meets_all"])
            row["against the rule book"] = search_text.findings_line(p, res)
            rows.append(row)
    return pd.DataFrame(rows)


def _trial_rows(res: dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame([{"trial": t["number"], **t["rules"], "state": t["state"],
                          **{f"units_{u}": n for u, n in (t.get("units") or {}).items()},
                          **(t.get("measures") or {})} for t in res["trials"]])


@dataclass
class RuleSearch(GameStudy):
    """The rule-search study of one game (the study contract of :mod:`analyses`)."""

    setup: Question
    #: Whether the last search was the shipped one, read back (the provenance says so).
    reused: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        g = games.get(self.game)
        self.NAME = f"{self.game}-rule-search"
        self.TITLE = f"{g.title}: rule settings searched for a designer's goals"
        self.DEFAULT_HANDS = self.setup.units
        self.STUDY = Study(self.NAME, self.TITLE, self.DEFAULT_HANDS,
                           simulate=self.simulate_tables, findings=self.findings,
                           figures=(Plot("front", "The search: each trial's value on the "
                                         "searched deals, the answer confirmed on fresh "
                                         "deals with its 95% interval.", self.figure),),
                           provenance=self._provenance, descriptions=DESCRIPTIONS,
                           notes=self._notes, size="whole games per trial",
                           # the steps whose kernels play whole games (Pepper's: its hands')
                           kernels=[f"{self.game}:{s}" for s in ("hands", "games", "sessions")
                                    if s in g.warm()])

    def spec(self, units: int, seed: int) -> search.Spec:
        """The search this study asks."""
        q = self.setup
        return search.make_spec(self.game, q.rules, search.SpecSettings(
            goals=q.goals, minimize=q.minimize, trials=q.trials, games=units, seed=seed))

    def search(self, units: int, seed: int, progress: bool = False,
               threads: int | None = None) -> dict[str, Any]:
        """The search's result: the shipped one where it is this search, else searched."""
        spec = self.spec(units, seed)
        kept = search.kept_result(spec, KEPT / self.game)
        res = kept if kept is not None else search.run(spec, threads=threads,
                                                       progress=progress)
        self.reused = kept is not None
        return search_text.result_json(res) | {"reused": self.reused}

    def simulate_tables(self, hands: int, seed: int, progress: bool,
                        threads: int | None) -> dict[str, pd.DataFrame]:
        res = self.search(hands, seed, progress, threads)
        met = {g: any(p["meets"].get(g) for p in res["tables"]["front"])
               for g in (x["goal"] for x in res["goals"])}
        goals = pd.DataFrame([{**g, "met": met[g["goal"]] if g["op"] in ("=", "<=", ">=")
                               else None} for g in res["goals"]])
        base = pd.DataFrame([{"rules": search_text.rules_text(res["base"]["rules"]),
                              "measure": name, **m} for name, m in
                             res["base"]["measures"].items()])
        answer = pd.DataFrame([{"answer": res["answer_text"].removeprefix("Answer: "),
                                "games": sum(res["units"].values()),
                                "confirm_seed": str(res["confirm_seed"]),
                                "shipped": res["reused"]}])
        return {"answer": answer, "front": _front_rows(res), "goals": goals, "base": base,
                "trials": _trial_rows(res)}

    def figure(self, tables: Tables) -> Figure:
        """The search's figure (:func:`simkit.lab.search_text.front_figure`),
        from the tables."""
        goals = tables["goals"].to_dict("records")
        names = [g["measure"] for g in goals]
        rules = [r.partition("=")[0] for r in self.setup.rules]
        trials = [{"rules": {k: t[k] for k in rules}, "state": t["state"],
                   "measures": {n: t[n] for n in names if n in t and pd.notna(t[n])}}
                  for t in tables["trials"].to_dict("records")]
        front = [{"rules": {k: p[k] for k in rules},
                  "measures": {n: {"value": p[n], "ci_low": p[f"{n} ci_low"],
                                   "ci_high": p[f"{n} ci_high"]} for n in names}}
                 for p in tables["front"].to_dict("records") if p["point"] == "answer"]
        fig: Figure = search_text.front_figure({
            "game": self.game, "goals": goals, "searched": list(self.setup.rules),
            "trials": trials, "tables": {"front": front}})
        return fig

    def findings(self, tables: Tables) -> list[str]:
        answer, trials = tables["answer"].iloc[0], tables["trials"]
        pruned = int((trials["state"] == "pruned").sum())
        lite = {"goals": tables["goals"].to_dict("records")}
        rules = [r.partition("=")[0] for r in self.setup.rules]
        names = list(tables["goals"]["measure"])
        out = [f"{self.setup.text} {answer['answer']}.",
               f"{len(trials)} settings tried ({pruned} stopped early), each on the rule "
               f"book's {answer['games']:,} whole games; the answer confirmed on as many "
               "fresh ones" + (" (the search shipped with simkit, read back)."
                               if answer["shipped"] else "."),
               f"The rule book ({tables['base']['rules'].iloc[0]}): " + "; ".join(
                   f"{r.measure} {search_text.value_text(lite, r.measure, r._asdict())}"
                   for r in rows_of(tables["base"])) + "."]
        for p in tables["front"].to_dict("records"):
            if p["point"] != "answer":
                continue
            out.append(search_text.rules_text({k: p[k] for k in rules}) + ": " + "; ".join(
                f"{n} " + search_text.value_text(lite, n, {
                    "value": p[n], "ci_low": p[f"{n} ci_low"], "ci_high": p[f"{n} ci_high"]})
                for n in names) + ". Against the rule book on the same deals: "
                + p["against the rule book"] + ".")
        if self.setup.why:
            out.append(self.setup.why)
        return out

    def _provenance(self, hands: int) -> dict[str, Any]:
        g = games.get(self.game)
        spec = self.spec(hands, 0)
        return {"games": hands, "rules": spec.base, "players": spec.players,
                "policies": {g.default_policy: spec.policies[0]}, "searched": list(
                    self.setup.rules), "goals": [*self.setup.goals, *(
                        f"minimize {m}" for m in self.setup.minimize)],
                "trials": self.setup.trials, "sampler": spec.sampler, "per_trial": True,
                "kept": f"analyses/searched/{self.game}", "reused": self.reused}

    def _notes(self, hands: int, seed: int) -> list[str]:
        q = self.setup
        return [
            "Every trial plays the rule book's deals (seed " + str(seed) + "), so trials "
            "differ by their rules, not their cards; the answer is confirmed on fresh deals "
            "and compared with the rule book on those same deals.",
            "The players are the rule book's (the default heuristic at every seat), not "
            "refitted to each setting: what a rule changes in how people play is not "
            "measured here (simkit search --adapt).",
            "A target is met where the confirmed 95% interval holds it, or the value is "
            "within the measure's margin of it (at most a tenth of the target).",
            "Rerun: simkit search " + self.game + " " + " ".join(
                f"--rule {r}" for r in q.rules) + " " + " ".join(
                f'--goal "{x}"' for x in q.goals) + "".join(
                f" --minimize {m}" for m in q.minimize)
            + f" --trials {q.trials} --games {hands} --seed {seed}.",
        ]


DESCRIPTIONS = {
    "front": "One row per point of the answer (and each confirmed setting it beat): its "
             "rules; per goal measure the value on fresh deals with its 95% interval, the "
             "paired difference from the rule book with its interval, and the finding; "
             "whether every goal is met.",
    "trials": "One row per trial on the search's deals: its rules, its state (complete; "
              "pruned: stopped early; refused: the rules refuse it), the deals it played and "
              "each goal measure.",
    "answer": "The answer in words, the whole games every trial played (and the answer "
              "was confirmed on), the fresh deals' seed, and whether the search was the one "
              "shipped with simkit, read back.",
    "goals": "One row per goal: as given, its measure, kind (a target =, a bound <= or >=, "
             "an objective min), value, margin, and whether a point of the answer meets it.",
    "base": "The rule book's value of every goal measure on the fresh deals, with its 95% "
            "interval.",
}


def keep(game: str, seed: int = 0) -> pathlib.Path:
    """Search ``game``'s question at the default size and seed and keep its
    result in :data:`KEPT` (the files of :data:`SHIPPED`)."""
    study = STUDIES[game]
    spec = study.spec(study.DEFAULT_HANDS, seed)
    with tempfile.TemporaryDirectory() as tmp:
        search.run(spec, out=tmp, progress=True)
        place = KEPT / game
        place.mkdir(parents=True, exist_ok=True)
        for name in SHIPPED:
            shutil.copyfile(pathlib.Path(tmp) / name, place / name)
    return place


STUDIES = {game: RuleSearch(game, q) for game, q in QUESTIONS.items()}
pepper, pitch, shiesta, burraco = (STUDIES[g] for g in ("pepper", "pitch", "shiesta", "burraco"))


if __name__ == "__main__":
    for name in sys.argv[1:] or list(QUESTIONS):
        print(keep(name))
