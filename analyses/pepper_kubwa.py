"""When to bid Pilipili Kubwa (seeds/pepper.md 3, 5).

Method.  Kubwa pays ``kubwa_stake * T`` if the bidding side takes every
trick and loses as much otherwise.  To see what each hand is worth whatever
the table would have bid, every deal is played twice from the same seed with
the seat left of the dealer as declarer (``api.declare_hands``): once with a
number contract (its policy picks the trump for a number bid) and once with
Kubwa (its policy picks the trump for taking every trick).  Play does not
depend on the level bid, so the first play-out scores every number bid and
the second scores Ndogo and Kubwa.  Each option is valued as the points of
the declaring side minus the points of an average opponent side; and, from
whole-game simulations continuing from the resulting scores, as the chance
of winning the game.

Break-even: against Ndogo, Kubwa wins ``(k - n) T`` more when it is made and
loses as much more when it fails, so it pays when P(all tricks) > 1/2.
Against the top number bid (T - 1) on a hand that is sure of T - 1 tricks,
Kubwa pays ``k T (2p - 1)`` against ``T - 1 + p``: break-even
``p* = (k T + T - 1) / (2 k T - 1)`` (17/23 = 0.739 with 4 players, 23/31 =
0.742 with 2 or 3).  The opponents' tricks are the same either way.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analyses.common import Plot, Study
from simkit import stats
from simkit.pepper import api
from simkit.pepper.rules import make_rules
from simkit.report import StudyResult

NAME = "pepper-kubwa"
TITLE = "Pepper: when to bid Pilipili Kubwa"
DEFAULT_HANDS = 1_000_000      # deals per player count (each played twice)
GAMES_PER_STATE = 400          # whole games per (score state, outcome) pair
MIN_CLASS = 200                # hand classes with fewer deals are not reported
POLICY = "heuristic"
PLAYERS = (4, 3, 2)

#: Score states for the win-chance comparison: (label, our score, the leading
#: opponent's score; other opponents at 0).
STATES = (("start of the game", 0, 0), ("we are near 30", 24, 0),
          ("they are near 30", 0, 24), ("close game", 20, 20))


def break_even(players: int, kubwa_stake: int = 2, ndogo_stake: int = 1) -> dict[str, float]:
    """P(all tricks) above which Kubwa beats Ndogo, and the top number bid.

    The second assumes the hand is sure of all but one trick (then the number
    bid always scores T - 1 or T).
    """
    T = 6 if players == 4 else 8
    k = kubwa_stake
    return {"vs_ndogo": 0.5 if k > ndogo_stake else float("nan"),
            "vs_top_number": (k * T + T - 1) / (2 * k * T - 1)}


# ---------------------------------------------------------------- tables

def _side_frame(num: pd.DataFrame, allb: pd.DataFrame, rules) -> pd.DataFrame:
    """Per deal: the declarer's tricks in both play-outs, its wanted level, its
    hand class, and each opponent side's tricks (declarer's side first)."""
    P, T, S = rules.players, rules.tricks, rules.sides
    bidder = num["bidder"].to_numpy()
    own = bidder % 2 if P == 4 else bidder
    side_tricks = lambda df: df[[f"side_tricks_{s}" for s in range(S)]].to_numpy()
    st_num, st_all = side_tricks(num), side_tricks(allb)
    rows = np.arange(len(num))
    opp_order = [(own + i) % S for i in range(1, S)]   # opponents, in seat order
    bids = num[[f"bid_{s}" for s in range(P)]].to_numpy()
    out = pd.DataFrame({
        "won_number": st_num[rows, own], "won_all": st_all[rows, own],
        "wanted": bids[rows, bidder],
        "trumps": allb["bidder_trumps"].to_numpy(), "bowers": allb["bidder_bowers"].to_numpy(),
        "aces": allb["bidder_aces"].to_numpy(), "trump": allb["trump"].astype(str).to_numpy()})
    for i, o in enumerate(opp_order, start=1):
        out[f"opp{i}_number"] = st_num[rows, o]
        out[f"opp{i}_all"] = st_all[rows, o]
    out["all_tricks"] = out["won_all"] == T
    return out


def _outcomes(d: pd.DataFrame, rules) -> dict[str, tuple[np.ndarray, list[np.ndarray]]]:
    """Score change of the declaring side and of each opponent side per option."""
    T, S = rules.tricks, rules.sides
    k, n = rules.kubwa_stake * T, rules.ndogo_stake * T
    fail = lambda level: T if rules.fail == "flat" else level
    w, wa = d["won_number"].to_numpy(), d["won_all"].to_numpy()
    opp_num = [d[f"opp{i}_number"].to_numpy() for i in range(1, S)]
    opp_all = [d[f"opp{i}_all"].to_numpy() for i in range(1, S)]
    top = T - 1
    lower = np.clip(d["wanted"].to_numpy(), 1, T - 1)     # the policy's own number bid
    return {
        "kubwa": (np.where(wa == T, k, -k), opp_all),
        "ndogo": (np.where(wa == T, n, -n), opp_all),
        "top number bid": (np.where(w >= top, w, -fail(top)), opp_num),
        "own lower bid": (np.where(w >= lower, w, -np.where(rules.fail == "flat", T, lower)),
                          opp_num),
    }


def _hand_class(d: pd.DataFrame) -> pd.Series:
    return (d["trumps"].astype(str) + " trumps, " + d["bowers"].astype(str) + " bowers, "
            + d["aces"].astype(str) + " outside aces").where(d["trump"] != "NT", "no trump")


def _win_chances(rules, d, out, label, us, them, seed, threads):
    """Mean chance of winning the game after each option, from score (us, them)."""
    S = rules.sides
    start = np.zeros(S, np.int64)
    start[0] = us
    start[1] = them
    cache: dict[tuple, float] = {}

    def win(scores):
        key = tuple(int(x) for x in scores)
        if key not in cache:
            g = api.simulate_games(GAMES_PER_STATE, rules=rules, policy=POLICY,
                                   seed=seed + 1 + len(cache), scores=key, first_dealer=0,
                                   threads=threads)
            cache[key] = float(g["win_0"].mean())
        return cache[key]

    rows = []
    for option, (own, opps) in out.items():
        after = np.column_stack([start[0] + own] + [start[i] + o for i, o in enumerate(opps, 1)])
        keys, inverse = np.unique(after, axis=0, return_inverse=True)
        p = np.array([win(k) for k in keys])[inverse.ravel()]
        mean, lo, hi = stats.mean_ci_of(p)
        rows.append({"players": rules.players, "state": label, "us": us, "them": them,
                     "option": option, "hands": len(p), "p_win": mean, "ci_low": lo,
                     "ci_high": hi})
    return rows


def _by_class(d: pd.DataFrame, margin: dict[str, np.ndarray], players: int) -> pd.DataFrame:
    """P(all tricks) and each option's value, by hand class (classes of MIN_CLASS+ deals)."""
    g = d.groupby("hand_class")
    cls = g.agg(deals=("all_tricks", "size"), all_tricks=("all_tricks", "sum"))
    for o, m in margin.items():
        cls[f"ev_{o}"] = pd.Series(m, index=d.index).groupby(d["hand_class"]).mean()
    cls = cls[cls["deals"] >= MIN_CLASS].reset_index()
    cls["p_all"] = cls["all_tricks"] / cls["deals"]
    cls["ci_low"], cls["ci_high"] = stats.proportion_ci(cls["all_tricks"], cls["deals"])
    ev_cols = [f"ev_{o}" for o in margin]
    cls["best"] = cls[ev_cols].idxmax(axis=1).str.removeprefix("ev_")
    cls.insert(0, "players", players)
    return cls.sort_values("p_all", ascending=False)


def _overview_row(d: pd.DataFrame, rules, be: dict[str, float]) -> dict:
    k = int(d["all_tricks"].sum())
    lo, hi = stats.proportion_ci(k, len(d))
    return {"players": rules.players, "tricks": rules.tricks,
            "kubwa_points": rules.kubwa_stake * rules.tricks, "deals": len(d),
            "p_all_tricks": k / len(d), "ci_low": lo, "ci_high": hi,
            "break_even_vs_ndogo": be["vs_ndogo"],
            "break_even_vs_top_number": be["vs_top_number"]}


def _thumb_rows(cls: pd.DataFrame, be: dict[str, float], players: int) -> list[dict]:
    """The rule of thumb: hand classes whose whole interval clears a break-even."""
    rows = []
    for c in cls.itertuples():
        if c.ci_low > be["vs_top_number"]:
            verdict = "bid Kubwa"
        elif c.ci_low > be["vs_ndogo"]:
            verdict = "Kubwa rather than Ndogo, but the top number bid pays more"
        else:
            continue
        rows.append({"players": players, "hand_class": c.hand_class, "deals": c.deals,
                     "p_all": c.p_all, "ci_low": c.ci_low, "ci_high": c.ci_high,
                     "verdict": verdict})
    return rows


def _player_count(players: int, hands: int, seed: int, threads) -> dict[str, list]:
    """The rows each table gets from ``hands`` deals with ``players`` players."""
    rules = make_rules(players=players)
    num = api.declare_hands(hands, 1, players, policy=POLICY, seed=seed, threads=threads)
    allb = api.declare_hands(hands, "kubwa", players, policy=POLICY, seed=seed, threads=threads)
    d = _side_frame(num, allb, rules)
    out = _outcomes(d, rules)
    margin = {o: own - sum(opps) / len(opps) for o, (own, opps) in out.items()}
    d["hand_class"] = _hand_class(d)
    be = break_even(players, rules.kubwa_stake, rules.ndogo_stake)
    cls = _by_class(d, margin, players)
    options = []
    for o, m in margin.items():
        mean, lo, hi = stats.mean_ci_of(m)
        options.append({"players": players, "option": o, "deals": len(m),
                        "ev": mean, "ci_low": lo, "ci_high": hi})
    # win chance by score: the hands a strong bidder would consider (wanted >= T-1)
    cand = d["wanted"].to_numpy() >= rules.tricks - 1
    sub = {o: (own[cand], [x[cand] for x in opps]) for o, (own, opps) in out.items()}
    wins = []
    for label, us, them in STATES:
        wins += _win_chances(rules, d[cand], sub, label, us, them, seed, threads)
    return {"overview": [_overview_row(d, rules, be)], "by_hand_class": [cls],
            "options": options, "rule_of_thumb": _thumb_rows(cls, be, players),
            "win_chance_by_score": wins}


def simulate_tables(hands: int = DEFAULT_HANDS, seed: int = 0, progress: bool = False,
                    threads: int | None = None) -> dict[str, pd.DataFrame]:
    """The study's tables from ``hands`` deals per player count of ``PLAYERS``."""
    parts = [_player_count(players, hands, seed, threads) for players in PLAYERS]
    rows = {k: [r for p in parts for r in p[k]] for k in parts[0]}
    return {"overview": pd.DataFrame(rows["overview"]),
            "by_hand_class": pd.concat(rows["by_hand_class"], ignore_index=True),
            "options": pd.DataFrame(rows["options"]),
            "rule_of_thumb": pd.DataFrame(rows["rule_of_thumb"],
                                          columns=["players", "hand_class", "deals", "p_all",
                                                   "ci_low", "ci_high", "verdict"]),
            "win_chance_by_score": pd.DataFrame(rows["win_chance_by_score"])}


# ---------------------------------------------------------------- summary

def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings computed from the tables (none typed in)."""
    overview, thumbs, wins = (tables[k] for k in ("overview", "rule_of_thumb",
                                                  "win_chance_by_score"))
    lines = []
    for r in overview.itertuples():
        lines.append(
            f"With {r.players} players ({r.tricks} tricks, Kubwa worth ±{r.kubwa_points}) the "
            f"declaring side takes every trick on {r.p_all_tricks:.1%} of all deals "
            f"(95% CI {r.ci_low:.1%}-{r.ci_high:.1%}, n={r.deals:,}); Kubwa beats Ndogo when "
            f"that chance is above 50% and beats the top number bid above "
            f"{r.break_even_vs_top_number:.1%}.")
    for players in overview["players"]:
        t = thumbs[(thumbs["players"] == players) & (thumbs["verdict"] == "bid Kubwa")] \
            if len(thumbs) else thumbs
        held = "; ".join(t["hand_class"]) if len(t) else "no hand class clears the break-even"
        lines.append(f"{players} players, bid Kubwa with: {held}.")
    w = wins.pivot_table(index=["players", "state"], columns="option", values="p_win")
    if "kubwa" in w and "own lower bid" in w:
        diff = (w["kubwa"] - w["own lower bid"]).rename("d").reset_index()
        best = diff.loc[diff["d"].idxmax()]
        worst = diff.loc[diff["d"].idxmin()]
        lines.append(
            f"On strong hands the score matters: Kubwa instead of the policy's own bid changes "
            f"the chance of winning the game by {best.d:+.1%} ({best.players} players, "
            f"{best.state}) down to {worst.d:+.1%} ({worst.players} players, {worst.state}).")
    return lines


# ---------------------------------------------------------------- figures

def _p_all_by_hand_class(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    classes, overview = tables["by_hand_class"], tables["overview"]
    fig, axes = plt.subplots(3, 1, figsize=(9, 14))
    for ax, (players, c) in zip(axes, classes.groupby("players", sort=False)):
        c = c.head(15).iloc[::-1]
        err = [c["p_all"] - c["ci_low"], c["ci_high"] - c["p_all"]]
        ax.barh(c["hand_class"], c["p_all"], xerr=err, color="tab:red", alpha=0.7)
        be = overview.set_index("players").loc[players]
        ax.axvline(be["break_even_vs_top_number"], ls="--", color="k",
                   label=f"break-even vs top number bid ({be['break_even_vs_top_number']:.3f})")
        ax.axvline(0.5, ls=":", color="grey", label="break-even vs Ndogo (0.5)")
        ax.set_title(f"{players} players: chance of every trick")
        ax.set_xlim(0, 1)
        ax.tick_params(axis="y", labelsize=7)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def _win_chance_by_score(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    wins = tables["win_chance_by_score"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
    for ax, (players, w) in zip(axes, wins.groupby("players", sort=False)):
        states = list(dict.fromkeys(w["state"]))
        opts = list(dict.fromkeys(w["option"]))
        x = np.arange(len(states))
        for i, o in enumerate(opts):
            r = w[w["option"] == o].set_index("state").loc[states]
            ax.bar(x + i * 0.8 / len(opts), r["p_win"], width=0.8 / len(opts), label=o,
                   yerr=[r["p_win"] - r["ci_low"], r["ci_high"] - r["p_win"]])
        ax.set_xticks(x + 0.4 - 0.4 / len(opts), states, rotation=15, fontsize=8)
        ax.set_title(f"{players} players: chance to win the game")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


FIGURES = (
    Plot("p_all_by_hand_class",
         "Chance that the declaring side takes every trick, by the declarer's hand (trumps, "
         "bowers and aces outside trumps with the trump it names for Kubwa), with 95% "
         "intervals; dashed: the break-even against the top number bid; dotted: against Ndogo.",
         _p_all_by_hand_class),
    Plot("win_chance_by_score",
         "Chance to win the game after bidding each option on the hands where the heuristic "
         "wanted at least the top number bid, from four scores.",
         _win_chance_by_score),
)


# ---------------------------------------------------------------- the study

NOTES = (
    __doc__.split("\n\n", 1)[1].strip(),
    f"Hand classes with fewer than {MIN_CLASS} deals are left out. Win chances: "
    f"{GAMES_PER_STATE} whole games per resulting score, for the hands whose heuristic wanted "
    "at least the top number bid; their intervals cover the spread over hands, not the "
    "game-simulation error (about ±2.5 points).",
)


def _provenance(hands: int) -> dict:
    return dict(hands=hands * 2 * len(PLAYERS),
                rules={p: make_rules(players=p).as_dict() for p in PLAYERS},
                policies=[POLICY], deals_per_player_count=hands,
                games_per_score=GAMES_PER_STATE)


STUDY = Study(NAME, TITLE, DEFAULT_HANDS, simulate=simulate_tables, findings=findings,
              figures=FIGURES, provenance=_provenance, notes=NOTES)


def run(hands: int | None = None, seed: int = 0, progress: bool = False,
        threads: int | None = None) -> StudyResult:
    """The Kubwa study: tables, findings, figures (see the module docstring)."""
    return STUDY.run(hands, seed, progress, threads)
