"""The variant study of each game: the rule book against every named variant
of ``seeds/<game>.md``, played by players adapted to each variant's rules.

One study per game (``pepper-variants``, ...), all made here by
:class:`Variants`.  Each runs :func:`simkit.lab.compare.compare` with ``adapt``:
before a variant is played, the default heuristic is re-fitted to its rules
(:mod:`simkit.lab.adapt`: tuning rounds on duplicate deals until no change beats
the field; the rule book's players first, every variant's from theirs), so a
rule that pays more for a bid is bid more, as real players would.  This is
done :data:`simkit.lab.adapt.SEEDS` times, each adaptation independent, and
the comparison played once per adaptation: a finding is stated only where
every adaptation agrees (:mod:`simkit.lab.findings`).  The rule book (the
base, ``rule-book``) and up to seven variants play the same deals in one
comparison (a game with more variants is compared in several, each against
the same base: :func:`parts`); every difference is paired, deal by deal, with
Holm's correction over each variant's tests.

The adaptations take minutes to hours; their results are kept in
``analyses/adapted/`` (one ``_adapt.json`` per adaptation, named by a hash of
what it depends on: rules, table size, starting setting, searched
parameters, sizes, seed; and the best-response check's cells in
``best-response/``) and reused, so the study itself takes seconds.
``python -m analyses.variants GAME...`` runs the adaptations again and keeps
them there (after a change to a policy or to the search, which changes the
keys).

``hands`` (``Setup.default``) is the hands each variant plays (games played in
hands), and ``hands // per_game`` its whole games (Shiesta: ``hands`` whole
games); the skill trace plays a tenth of the games per rung.

Tables (every difference later minus base on the same deals, with its 95%
interval, p-value and Holm's p-value):

- ``variants``: each variant, its rule changes, the settings its players
  adapted to (one per adaptation, with its rounds and whether it reached
  the cap), and the share of hands and games whose records differ from the
  rule book's;
- ``measures``: the game's own measures (contracts, scores, wins, lengths);
- ``design``: the designer's measures (balance, completion, duration, drama,
  each position's result per hand, the skill trace), with each variant's
  own value and interval;
- ``bids`` (games with bids): each contract's share and success rate;
- ``best_response``: per adaptation, under each variant's rules, its
  adapted setting against the rule book's (and the rule book's against
  each variant's), flagged where it loses.

Every row carries its ``finding`` (higher, lower, no change, not shown either
way, depends on adaptation), and each adaptation's difference.
"""

from __future__ import annotations

import math
import pathlib
import sys
import textwrap
from dataclasses import dataclass, field
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analyses.common import GameStudy, Plot, Study, Tables, signed
from simkit import games
from simkit.base.rows import rows_of
from simkit.lab import compare, findings

#: The kept adaptations the studies reuse (shipped with the package).
KEPT = pathlib.Path(__file__).resolve().parent / "adapted"
BASE = "rule-book"
#: The adaptations' seed, whatever the report's: the players are part of the
#: table, adapted once; the report's seed draws the deals they are compared on.
ADAPT_SEED = 0
#: The designer's measures drawn across the variants (when the game has them).
SHOWN = ("hands per game: mean", "turns per game: mean", "hands per game (session): mean",
         "drama: lead changes per", "drama: comeback rate", "drama: share of the game",
         "balance: largest departure", "skill: the default over classic, win rate")


@dataclass(frozen=True)
class Setup:
    """A game's variant study: the table size, the default hands per variant,
    hands per whole game of work (0: whole games only) and the presets left
    out (with the reason in the rule book)."""

    players: int
    default: int
    per_game: int
    skip: tuple[str, ...] = field(default=())


SETUPS = {
    "pepper": Setup(4, 100_000, 40),
    "pitch": Setup(4, 100_000, 100),
    # five-one-deck is the five-player game with one deck
    "shiesta": Setup(4, 20_000, 0, skip=("five-one-deck",)),
    "burraco": Setup(4, 20_000, 20),
}


def variants_of(game: str, setup: Setup) -> list[tuple[str, dict[str, Any]]]:
    """The rule book and every named variant (preset) of ``game``."""
    g = games.get(game)
    return [(BASE, {})] + [(name, dict(values)) for name, values in g.presets.items()
                           if name != "seed" and name not in setup.skip]


def parts(game: str, setup: Setup) -> list[list[tuple[str, dict[str, Any]]]]:
    """The comparisons the study plays: the rule book and up to seven variants
    in each (the most one comparison takes)."""
    every = variants_of(game, setup)
    base, rest = every[0], every[1:]
    step = compare.MAX_VARIANTS - 1
    return [[base, *rest[i:i + step]] for i in range(0, len(rest), step)]


def _rows(result: dict[str, pd.DataFrame], name: str) -> pd.DataFrame:
    t = result[name]
    if "vs" not in t:
        t = t.assign(vs=result["variants"]["label"].iloc[1])
    return t.assign(table=name)


@dataclass
class Variants(GameStudy):
    """The variant study of one game (the study contract of :mod:`analyses`)."""

    setup: Setup
    played: dict[str, Any] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        g = games.get(self.game)
        self.NAME = f"{self.game}-variants"
        self.TITLE = f"{g.title}: what each rule variant changes, played by adapted players"
        self.DEFAULT_HANDS = self.setup.default
        unit = "hands" if self.setup.per_game else "games"
        self.STUDY = Study(self.NAME, self.TITLE, self.DEFAULT_HANDS, simulate=self.simulate_tables,
                           findings=self.findings, figures=self._plots(),
                           provenance=self._provenance, descriptions=self._descriptions(),
                           notes=self._notes,
                           size=f"{unit} per variant",
                           # the skill trace's searching player too (Pepper's expert)
                           kernels=[f"{self.game}:{s}" for s in ("hands", "games", "sessions",
                                                                 "expert") if s in g.warm()])

    def sizes(self, hands: int) -> dict[str, Any]:
        if not self.setup.per_game:
            return {"games": hands}
        return {"hands": hands, "games": max(200, hands // self.setup.per_game)}

    def simulate_tables(self, hands: int, seed: int, progress: bool,
                        threads: int | None) -> dict[str, pd.DataFrame]:
        played = [compare.compare(self.game, part, compare.CompareSettings(
                      players=self.setup.players, seed=seed, adapt=True, adapt_seed=ADAPT_SEED,
                      kept=[KEPT / self.game], threads=threads, progress=progress,
                      **self.sizes(hands)))
                  for part in parts(self.game, self.setup)]
        variants = pd.concat([played[0]["variants"].iloc[:1]]
                             + [p["variants"].iloc[1:] for p in played], ignore_index=True)
        g = games.get(self.game)
        self.played = {r.label: " / ".join(dict.fromkeys(
                           g.make_policies(s, 1)[0].label() for s in r.adapted["settings"]))
                       for r in rows_of(variants)}
        names = [n for n in played[0] if n not in ("variants", "design", "bids",
                                                   "best_response")]
        tables = {
            "variants": _variant_rows(self.game, variants),
            "measures": pd.concat([_rows(p, n) for p in played for n in names],
                                  ignore_index=True),
            "design": pd.concat([_rows(p, "design") for p in played], ignore_index=True),
            "best_response": pd.concat([p["best_response"] for p in played],
                                       ignore_index=True).drop_duplicates(
                subset=["adaptation", "rules", "setting_of", "after"]),
        }
        if "bids" in played[0]:
            tables["bids"] = pd.concat([_rows(p, "bids") for p in played], ignore_index=True)
        return tables

    def findings(self, tables: Tables) -> list[str]:
        v = tables["variants"]
        base = v.iloc[0]
        both = pd.concat([tables["measures"], tables["design"]], ignore_index=True)
        later = [(r, both[both["vs"] == r.variant]) for r in rows_of(v.iloc[1:])]
        kinds = {r.variant: _effect(r, mine) for r, mine in later}
        moved = [name for name, kind in kinds.items() if kind == "moves"]
        depends = [name for name, kind in kinds.items() if kind == "depends"]
        never = [name for name, kind in kinds.items() if kind == "never"]
        seeds = len(base["settings"])
        # the headline first: the index's card shows it
        head = (f"Of {len(kinds)} variants, each played by players adapted to it {seeds} "
                f"times independently, {len(moved)} move a measure in every adaptation "
                "(higher or lower after Holm's correction)"
                + (f" ({', '.join(moved)})" if moved else "")
                + (f"; for {len(depends)} the change depends on the adaptation "
                   f"({', '.join(depends)})" if depends else "")
                + (f"; {len(never)} never changed a deal ({', '.join(never)})" if never else "")
                + ".")
        out = [head, f"The rule book's players: {base['played']} ({base['adaptation']})."]
        capped = [r.variant for r in rows_of(v) if r.capped]
        if capped:
            out.append("An adaptation stopped at its cap of rounds while still improving "
                       f"({', '.join(capped)}): those players may not have converged.")
        out += [_finding(r, mine) for r, mine in later]
        return out

    def _plots(self) -> tuple[Plot, ...]:
        return (Plot("design", "The designer's measures under each variant, each with its 95% "
                     "interval (the rule book first, in green).", _design_figure),
                Plot("differences", "Each variant against the rule book on the same deals: the "
                     "paired difference of the designer's measures with its 95% interval; red "
                     "where Holm's p is below 0.05.", _difference_figure))

    def _provenance(self, hands: int) -> dict[str, Any]:
        from simkit.lab import adapt

        g = games.get(self.game)
        rules = {name: g.resolve_rules(ov, self.setup.players).as_dict()
                 for name, ov in variants_of(self.game, self.setup)}
        policies = dict(self.played) or {BASE: g.default_policy}
        return dict(**dict(self.sizes(hands).items()), rules=rules,
                    policies=policies, players=self.setup.players, adapted_from="heuristic",
                    adaptations=adapt.SEEDS, kept=f"analyses/adapted/{self.game}",
                    per_variant=True)

    def _descriptions(self) -> dict[str, Any]:
        g = games.get(self.game)
        measures = g.measures
        if measures is None:
            raise ValueError(f"{self.game} declares no measures")
        bids = any(s.name == "bids" for s in measures(g.resolve_rules(None,
                                                                      self.setup.players)))
        out = {
            "variants": "One row per variant: its rule changes, the settings its players "
                        "adapted to (every seat; one per adaptation), how (rounds, whether an "
                        "adaptation reached the cap), and the share of hands and games whose "
                        "records differ from the rule book's (the most of any adaptation).",
            "measures": "One row per variant and measure of the game's own tables: the rule "
                        "book's value (a), the variant's (b), the paired difference b - a with "
                        "its 95% interval (with several adaptations: their mean, and the span "
                        "of their intervals), p-value, Holm's p-value, the finding, and each "
                        "adaptation's difference (by_adaptation).",
            "best_response": "One row per adaptation and pair: under the rules of one variant, "
                             "its adapted setting against another's on fresh duplicate deals "
                             "(own minus other, with its 95% interval), flagged where it loses.",
            "design": "One row per variant and designer's measure: the same columns, with "
                      "each side's own 95% interval (a_low, a_high, b_low, b_high).",
            "bids": "One row per variant and contract: its share of the hands and its success "
                    "rate under the rule book and the variant, with paired differences."}
        return out if bids else {k: v for k, v in out.items() if k != "bids"}

    def _notes(self, hands: int, seed: int) -> list[str]:
        names = [n for n, _ in variants_of(self.game, self.setup)[1:]]
        return [
            "Every variant plays the same deals as the rule book (seed " + str(seed) + "); "
            "each difference is paired deal by deal, and Holm's correction runs over all the "
            "tests of one variant.",
            "The players are the default heuristic adapted to each variant's rules: "
            "tuning rounds of every parameter against a field playing the current setting "
            "(the rule book's players from the default, every variant's from the rule "
            "book's), each change kept only where it is shown to help, the best adopted when "
            "it wins on fresh deals beyond its interval; several times, each adaptation "
            "independent, and a finding stated only where every adaptation agrees. A variant "
            "played by players who do not notice the change measures only its arithmetic.",
            "Rerun one: simkit compare " + self.game + f" --players {self.setup.players} "
            f"--variant {BASE}: --variant {names[0]}:" + ",".join(
                f"{k}={v}" for k, v in games.get(self.game).presets[names[0]].items())
            + " --adapt " + " ".join(f"--{k} {v}" for k, v in self.sizes(hands).items())
            + f" --seed {seed}.",
        ]


def _variant_rows(game: str, variants: pd.DataFrame) -> pd.DataFrame:
    g = games.get(game)
    rows = []
    for r in rows_of(variants):
        a = r.adapted
        each = a["by_adaptation"]
        how = "; ".join(
            f"adaptation {k + 1}: " + ("kept from an earlier run" if e["reused"] else
                                       f"{e['rounds']} round{'s' if e['rounds'] != 1 else ''}")
            + ("" if e["changed"] else ", no change needed")
            + (", stopped at the cap" if e["capped"] else "") for k, e in enumerate(each))
        row = {"variant": r.label, "changes": r.changes,
               "played": " / ".join(dict.fromkeys(g.make_policies(s, 1)[0].label()
                                                  for s in a["settings"])),
               "adaptation": how, "objective": a["objective"], "settings": a["settings"],
               "capped": a["capped"]}
        for col in variants.columns:
            if col.startswith("differing_"):
                row[col] = getattr(r, col)
        rows.append(row)
    return pd.DataFrame(rows)


def _fmt(row: pd.Series, x: float) -> str:
    if not math.isfinite(x):
        return "n/a"
    return f"{100 * x:+.1f} pp" if row["kind"] == "rate" else signed(x, 2)


def _never(v: Any) -> bool:
    shares = [getattr(v, c) for c in ("differing_hands", "differing_games")
              if hasattr(v, c) and getattr(v, c) is not None and math.isfinite(getattr(v, c))]
    return bool(shares) and max(shares) == 0


def _effect(v: Any, mine: pd.DataFrame) -> str:
    """"never" (no deal's record differs), "moves" (a measure higher or lower in
    every adaptation), "depends" (a measure whose change depends on the
    adaptation) or "none"."""
    if _never(v):
        return "never"
    if _told(mine).any():
        return "moves"
    return "depends" if (mine["finding"] == findings.DEPENDS).any() else "none"


def _told(mine: pd.DataFrame) -> pd.Series:
    """The rows that tell a change that matters: higher or lower in every
    adaptation, and not within the measure's margin."""
    within = mine["within_margin"].fillna(False).astype(bool) if "within_margin" in mine \
        else pd.Series(False, index=mine.index)
    return mine["finding"].isin([findings.HIGHER, findings.LOWER]) & ~within


def _span(r: pd.Series) -> str:
    """A row's difference: each adaptation's, with the span of their intervals."""
    each = r["by_adaptation"]
    diffs = " / ".join(_fmt(r, e["diff"]) for e in each)
    return f"{diffs} (95% CI {_fmt(r, r['ci_low'])} to {_fmt(r, r['ci_high'])})"


def _finding(v: Any, mine: pd.DataFrame) -> str:
    """One sentence per variant, from its rows' findings: what moves in every
    adaptation, what depends on the adaptation, and the balance's finding."""
    head = f"{v.variant} ({v.changes}; players adapted to {v.played})"
    if _never(v):
        return f"{head}: never changed a deal at this table."
    told = mine[_told(mine)]
    told = told.assign(strength=(told["diff"].abs() / (told["ci_high"] - told["ci_low"])
                                 .abs().clip(lower=1e-12)))
    # a measure in the game's own table and again among the designer's (turns per
    # game and its mean) is said once
    top = (told.sort_values("strength", ascending=False)
           .drop_duplicates(subset=["diff", "ci_low", "ci_high"]).head(3))
    said = [f"{r['metric']} {r['finding']}, {_span(r)}" for _, r in top.iterrows()]
    depends = mine[mine["finding"] == findings.DEPENDS]["metric"].drop_duplicates().tolist()
    balance = mine[mine["metric"].str.startswith(("balance", "position"))]
    words = set(balance["finding"])
    if _told(balance).any():
        calm = "balance and position: " + "; ".join(
            f"{r['metric'].split(': ', 1)[1]} {r['finding']}" for _, r in
            balance[_told(balance)].head(2).iterrows())
    elif words == {findings.SAME}:
        calm = "balance and position: no change (every measure within its margin)"
    elif findings.DEPENDS in words:
        calm = "balance and position: depends on adaptation"
    else:
        calm = "balance and position: not shown either way"
    parts_ = ["; ".join(said) if said else "no measure moves in every adaptation"]
    if depends:
        parts_.append(f"depends on adaptation: {', '.join(depends[:4])}"
                      + (f" and {len(depends) - 4} more" if len(depends) > 4 else ""))
    return f"{head}: " + "; ".join(parts_) + f"; {calm}."


def _pick(design: pd.DataFrame) -> list[str]:
    metrics = list(dict.fromkeys(design["metric"]))
    return [m for m in metrics if any(m.startswith(s) for s in SHOWN)]


def _design_figure(tables: Tables) -> Figure:
    design, v = tables["design"], tables["variants"]
    labels = list(v["variant"])
    shown = _pick(design)
    cols = 3
    rows = math.ceil(len(shown) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(15, 3.6 * rows + 0.6), squeeze=False)
    for ax, metric in zip(axes.ravel(), shown):
        mine = design[design["metric"] == metric]
        first = mine.iloc[0]
        vals = [(first["a"], first.get("a_low"), first.get("a_high"))]
        for lab in labels[1:]:
            r = mine[mine["vs"] == lab]
            vals.append((r["b"].iloc[0], r["b_low"].iloc[0], r["b_high"].iloc[0])
                        if len(r) else (np.nan,) * 3)
        y = np.arange(len(vals))[::-1]
        x = np.array([a for a, _, _ in vals], float)
        lo = np.array([b for _, b, _ in vals], float)
        hi = np.array([c for _, _, c in vals], float)
        scale = 100 if first["kind"] == "rate" else 1
        ax.errorbar(x * scale, y, xerr=np.nan_to_num([x * scale - lo * scale,
                                                      hi * scale - x * scale]),
                    fmt="none", ecolor="grey", capsize=3)
        ax.scatter(x * scale, y, c=["tab:green"] + ["tab:orange"] * (len(vals) - 1), zorder=3)
        ax.axvline(x[0] * scale, color="tab:green", lw=0.8, ls="--")
        ax.set_yticks(y, labels, fontsize=8)
        ax.set_title(textwrap.fill(metric, 48), fontsize=9)
        ax.set_xlabel("%" if scale == 100 else "")
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(shown):]:
        ax.axis("off")
    fig.tight_layout()
    return fig


def _difference_figure(tables: Tables) -> Figure:
    from analyses.common import difference_panels

    design = tables["design"]
    shown = [m for m in _pick(design) if not m.startswith("skill")][:4]
    labels = list(tables["variants"]["variant"])[1:]
    rows = []
    for lab in labels:
        row = {}
        for i, metric in enumerate(shown):
            r = design[(design["vs"] == lab) & (design["metric"] == metric)]
            def get(c: str, r: pd.DataFrame = r) -> float:
                return float(r[c].iloc[0]) if len(r) else np.nan
            row.update({f"m{i}_diff": get("diff"), f"m{i}_diff_ci_low": get("ci_low"),
                        f"m{i}_diff_ci_high": get("ci_high"), f"m{i}_p_value": get("p_holm")})
        rows.append(row)
    panels = [(f"m{i}", 100.0 if design[design["metric"] == m]["kind"].iloc[0] == "rate"
               else 1.0, textwrap.fill(m + ": variant - rule book", 40))
              for i, m in enumerate(shown)]
    return difference_panels(pd.DataFrame(rows), labels, panels, 4.6 * len(panels),
                             "Each variant against the rule book (95% intervals; red: Holm's "
                             "p < 0.05)")


def keep(game: str, seed: int = ADAPT_SEED, progress: bool = True) -> list[pathlib.Path]:
    """Adapt the players to the rule book and to every variant of ``game`` as
    the study does (its comparisons, its seed, :data:`simkit.lab.adapt.SEEDS`
    adaptations, the best-response checks) and keep the results in
    :data:`KEPT`: every ``_adapt.json`` and best-response cell, not the
    searches' storage.  What was kept before for ``game`` is replaced."""
    import shutil
    import tempfile

    from simkit.lab import adapt

    setup = SETUPS[game]
    g = games.get(game)
    where = KEPT / game
    with tempfile.TemporaryDirectory() as tmp:
        for part in parts(game, setup):
            rules = [(label, g.resolve_rules(ov, setup.players)) for label, ov in part]
            fits = adapt.adapt_variants(game, rules, g.default_policy, settings=adapt.AdaptSettings(
                seed=seed, out=tmp, progress=progress))
            if progress:
                for (label, _), *each in zip(rules, *fits.results):
                    print(f"{game} {label}: " + " | ".join(e["setting"] for e in each),
                          file=sys.stderr)
        shutil.rmtree(where, ignore_errors=True)
        out = []
        for found in sorted(pathlib.Path(tmp).glob(f"*/{adapt.RESULT}")) + sorted(
                pathlib.Path(tmp).glob(f"{adapt.CELLS}/*.json")):
            target = where / found.relative_to(tmp)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(found, target)
            out.append(target)
    return out


pepper = Variants("pepper", SETUPS["pepper"])
pitch = Variants("pitch", SETUPS["pitch"])
shiesta = Variants("shiesta", SETUPS["shiesta"])
burraco = Variants("burraco", SETUPS["burraco"])


if __name__ == "__main__":
    for name in sys.argv[1:] or list(SETUPS):
        keep(name)
