"""Pepper rule variants against the seed's rules (seeds/pepper.md, every variant).

Each comparison plays the same deals (same seed) under two rule sets with
``simkit.compare`` and reports B - A with a 95% interval and a
two-sided p-value.  Some rules only matter with some players: the shipped
heuristic bids on every hand with 4 players and never raises a bid it has
made, so stick-the-dealer and the auction forms are also compared with a
cautious heuristic (``aggression=-3``, which passes weak hands) and with
tables that mix random and heuristic players.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from analyses.common import Plot, Study
from simkit.compare import compare
from simkit.report import StudyResult

NAME = "pepper-variants"
TITLE = "Pepper: what each rule variant changes"
DEFAULT_HANDS = 500_000          # hands per rule set per comparison
GAMES_PER_HAND = 0.01            # whole games per rule set: 1% of the hands
CAUTIOUS = "heuristic:aggression=-3"
MIXED = ["heuristic", "random", "heuristic", "random"]

#: (title, variant A, variant B, policy)
COMPARISONS = (
    ("stick the dealer vs redeal (heuristic)", "redeal:", "stick:all_pass=stick", "heuristic"),
    ("stick the dealer vs redeal (cautious heuristic)", "redeal:", "stick:all_pass=stick",
     CAUTIOUS),
    ("one lap vs open auction (heuristic)", "open:", "one-lap:auction=one_lap", "heuristic"),
    ("one lap vs open auction (mixed random/heuristic)", "open:", "one-lap:auction=one_lap",
     MIXED),
    ("re-entry vs open auction (mixed random/heuristic)", "open:", "reentry:auction=reentry",
     MIXED),
    ("no trump forbidden vs allowed", "allowed:", "trumps-only:no_trump=false", "heuristic"),
    ("failed bid loses the bid vs 6", "flat:", "bid-penalty:fail=bid", "heuristic"),
    ("Kubwa x3 vs x2", "x2:", "x3:kubwa_stake=3", "heuristic"),
)
METRICS = ("thrown-in rate", "contracts made", "bidding side points per hand",
           "opponent side points per hand", "mean contract level", "side 0 win rate",
           "rounds per game")


# ---------------------------------------------------------------- tables

def _games(hands: int) -> int:
    """Whole games per rule set and comparison."""
    return max(200, int(hands * GAMES_PER_HAND))


def _policy_text(policy) -> str:
    return policy if isinstance(policy, str) else "/".join(policy)


def simulate_tables(hands: int = DEFAULT_HANDS, seed: int = 0, progress: bool = False,
                    threads: int | None = None) -> dict[str, pd.DataFrame]:
    """Every comparison in ``COMPARISONS`` with 4 players: the differences of
    ``METRICS`` and the contracts under each rule set."""
    rows, bids = [], []
    for title, a, b, policy in COMPARISONS:
        res = compare("pepper", [a, b], players=4, hands=hands, games=_games(hands), seed=seed,
                      policy=policy, threads=threads, progress=progress)
        policy_text = _policy_text(policy)
        for table in ("scores", "games"):
            t = res[table]
            for r in t[t["metric"].isin(METRICS)].itertuples():
                rows.append({"comparison": title, "policy": policy_text, "metric": r.metric,
                             "a": r.a, "b": r.b, "n_a": r.n_a, "n_b": r.n_b, "diff": r.diff,
                             "ci_low": r.ci_low, "ci_high": r.ci_high, "p_value": r.p_value,
                             "significant": bool(r.p_value < 0.05)})
        bids.append(res["bids"].assign(comparison=title, policy=policy_text))
    return {"differences": pd.DataFrame(rows), "contracts": pd.concat(bids, ignore_index=True)}


# ---------------------------------------------------------------- summary

def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Per comparison, its clearest difference (none typed in)."""
    diffs = tables["differences"]
    lines = []
    for title, d in diffs.groupby("comparison", sort=False):
        sig = d[d["significant"]]
        if sig.empty:
            lines.append(f"{title}: no measured difference (all p >= 0.05).")
            continue
        top = sig.loc[(sig["diff"].abs() / (sig["ci_high"] - sig["ci_low"]).abs()
                       .clip(lower=1e-12)).idxmax()]
        pct = top.metric.endswith("rate") or top.metric == "contracts made"
        fmt = (lambda x: f"{x:+.1%}") if pct else (lambda x: f"{x:+.2f}")
        lines.append(f"{title}: {top.metric} {fmt(top['diff'])} "
                     f"(95% CI {fmt(top.ci_low)} to {fmt(top.ci_high)}), "
                     f"{len(sig)} of {len(d)} measures differ at 5%.")
    return lines


# ---------------------------------------------------------------- figures

def _differences(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    diffs = tables["differences"]
    shown = ("contracts made", "bidding side points per hand", "side 0 win rate", "rounds per game")
    fig, axes = plt.subplots(1, len(shown), figsize=(18, 5.5), sharey=True)
    titles = list(dict.fromkeys(diffs["comparison"]))
    for ax, metric in zip(axes, shown):
        d = diffs[diffs["metric"] == metric].set_index("comparison").reindex(titles)
        y = range(len(titles))
        for i, r in zip(y, d.itertuples()):
            color = "tab:red" if r.significant else "tab:grey"
            ax.errorbar([r.diff], [i], xerr=[[r.diff - r.ci_low], [r.ci_high - r.diff]],
                        fmt="o", color=color, capsize=3)
        ax.axvline(0, color="k", lw=0.8)
        ax.set_title(f"{metric}: B - A")
        ax.set_yticks(list(y), titles, fontsize=8)
        ax.invert_yaxis()
    fig.suptitle("Rule variants against the seed's rules (95% intervals; red: p < 0.05)")
    fig.tight_layout()
    return fig


FIGURES = (
    Plot("differences", "Each rule variant (B) against the seed's rule (A) on the same deals: "
         "B - A with its 95% interval; red where p < 0.05.", _differences),
)


# ---------------------------------------------------------------- the study

def _notes(hands: int, seed: int) -> list[str]:
    return [__doc__.split("\n\n", 1)[1].strip(),
            f"{hands:,} hands and {_games(hands):,} whole games per rule set and comparison, "
            "4 players. The two rule sets play the same deals; the tests treat them as "
            "independent samples, which is cautious."]


def _provenance(hands: int) -> dict:
    return dict(hands=hands * 2 * len(COMPARISONS), games=_games(hands) * 2 * len(COMPARISONS),
                rules={t: [a, b] for t, a, b, _ in COMPARISONS},
                policies=sorted({_policy_text(p) for *_, p in COMPARISONS}), players=4)


STUDY = Study(NAME, TITLE, DEFAULT_HANDS,
              kernels=("pepper:hands",),
              simulate=simulate_tables, findings=findings,
              figures=FIGURES, provenance=_provenance, notes=_notes)


def run(hands: int | None = None, seed: int = 0, progress: bool = False,
        threads: int | None = None) -> StudyResult:
    """Every comparison in ``COMPARISONS`` with 4 players (see the module docstring)."""
    return STUDY.run(hands, seed, progress, threads)
