"""Kubwa on strong hands: how much of the perfect-information bound each
declaring side makes, against the same defenders on the same deals.

    python benchmarks/expert_kubwa.py [--players 4 ...] [--deals 200000] [--seed 0]
                                      [--defenders SPEC ...] [--policy SPEC ...]
                                      [--base SPEC] [--threads N]

The deals are ``simulate``'s first ``--deals`` hands; the strong ones (the
first speaker holds both bowers and three or more trumps of the trump the
heuristic names) are played with the first speaker calling Kubwa.  Only the
deals whose first speaker is seat 0 are kept, so that a table of policies
``[declaring, defender, partner, defender]`` (4 players; ``[declaring,
defender, ...]`` otherwise) puts the declaring side's policy where it
belongs.  Each ``--policy`` (default: heuristic, the expert before
inference ``expert:model=voids``, the expert with inference ``expert``, and
the oracle ``expert:worlds=0``, which sees the real deal and is no player)
plays the declaring side against each ``--defenders`` policy (default:
heuristic and classic; the expert's model of the table is the table's own
policies, so classic defenders are ones it does not expect), for each
``--players`` (default 4; 2 and 3 for the other tables).

Prints, per table and policy: the rate of every trick with its 95%
interval; its share of the bound (the double-dummy "every trick" with the
same trump, every card visible, perfect defence) with a 95% interval (the
delta method on the paired ratio of means); the paired difference from
``--base`` (default ``expert:model=voids``) with its 95% interval; the time.

``--belief N`` adds a diagnostic of the expert's inference on the first
``N`` strong deals of each table (default 0: off), through the reference
expert (``reference_expert.py``, no kernel): at every card where the
declaring side's ``expert`` has more than one candidate it draws (or, with
``enumerate``, lists) the worlds and weighs them as the expert does, and
weighs the true deal too; per trick it prints the mean log-likelihood of
the true deal over the mean world's (nats: the belief's log-probability of
the truth less the uniform belief's, which is exact where the worlds are
enumerated and 0 for ``model=voids``), the share of decisions where the true
deal outweighs the average world, the true deal's weight rank among the
worlds (1 = heaviest of all, 0 = lightest) and, where enumerated, the
belief's log-probability of the true deal beside the uniform one.  No
solver is run: the declaring side plays its heuristic card (the expert's
tie-break) so that the run stays cheap, hence the belief is read along the
heuristic's play, not the expert's; the defenders play the heuristic.
"""

import argparse
import time

import numpy as np

from simkit.base import stats
from simkit.pepper import api

Z95 = 1.959963984540054


def share_of_bound(made: np.ndarray, bound: np.ndarray) -> tuple[float, float, float]:
    """mean(made) / mean(bound) on paired deals with a 95% interval (delta method:
    the variance of ``made - r * bound`` over the deals)."""
    r = made.sum() / bound.sum()
    n = len(made)
    se = np.std(made - r * bound, ddof=1) / (np.sqrt(n) * bound.mean())
    return r, r - Z95 * se, r + Z95 * se


def strong_deals(P: int, deals: int, seed: int, threads):
    """The strong deals' hand numbers (seat 0 declaring) and the heuristic's trump."""
    df = api.plan_deals(deals, "kubwa", players=P, seed=seed, threads=threads)
    number = df["hand"].to_numpy(np.int64)
    keep = ((df["bidder_bowers"] == 2) & (df["bidder_trumps"] >= 3)).to_numpy() \
        & (number % P == P - 1)                         # the dealer is P-1: seat 0 declares
    return number[keep], df["trump"].cat.codes.to_numpy(np.int64)[keep]


def table(P: int, defenders: str, specs: list[str], base_spec: str, numbers, bound, seed,
          threads) -> None:
    """One table: every policy of ``specs`` declaring against ``defenders``."""
    print(f"\n{P} players, defenders {defenders}: {len(numbers):,} strong deals, "
          f"bound {bound.mean():.3f}")
    made_by = {}
    for spec in [base_spec] + [s for s in specs if s != base_spec]:
        pols = [spec] + [defenders] * (P - 1)
        if P == 4:
            pols[2] = spec                              # the partner plays the same policy
        t0 = time.perf_counter()
        made_by[spec] = api.plan_deals(0, "kubwa", players=P, policy=pols, seed=seed,
                                       numbers=numbers, threads=threads)["made"].to_numpy(float)
        made_by[spec + " time"] = time.perf_counter() - t0
    base = made_by[base_spec]
    for spec in specs if base_spec in specs else [base_spec, *specs]:
        made = made_by[spec]
        lo, hi = stats.proportion_ci(int(made.sum()), len(made))
        r, rlo, rhi = share_of_bound(made, bound)
        d, dlo, dhi = stats.mean_ci_of(made - base)
        print(f"  {spec:<30} every trick {made.mean():.3f} [{lo:.3f}, {hi:.3f}]  "
              f"of the bound {r:.3f} [{rlo:.3f}, {rhi:.3f}]  vs {base_spec} {d:+.3f} "
              f"[{dlo:+.3f}, {dhi:+.3f}]  ({made_by[spec + ' time']:.1f} s)")


def _belief_row(decide, seat, hand, trick, view, trump, index) -> dict:
    """The expert's belief at one card (see the module notes) as one row."""
    from simkit.base.rng import Stream
    from simkit.pepper import reference
    from simkit.pepper import reference_expert as rx

    rules, params = decide.rules, decide.policies[seat].params
    holders = rx.world_holders(seat, rules, view, trump)
    unseen = rx.unseen_cards(hand, view)
    model = reference.table_model(rules, decide.policies, trump, params.trust, params.calls,
                                  decide.planned)
    truth = rx.world_weight(seat, rx.real_world(unseen, holders, view), holders, hand, view,
                            trump, rules, model)
    worlds = rx.all_worlds(unseen, holders, trump, params.particles) \
        if params.enumerate else None
    enumerated = worlds is not None
    if worlds is None:
        stream = Stream(7_919, index * 64 + len(view.plays))      # not the hand's stream
        worlds = [rx.sample_world(stream, unseen, holders, trump)
                  for _ in range(params.particles)]
    w = np.array([rx.world_weight(seat, world, holders, hand, view, trump, rules, model)
                  for world in worlds])
    return {"trick": len(view.plays) // rules.players + 1, "enumerated": enumerated,
            "log_ratio": np.log(truth / w.mean()), "above": truth > w.mean(),
            "rank": ((w < truth).sum() + 0.5 * (w == truth).sum()) / len(w),
            "log_p": np.log(truth / w.sum()) if enumerated else np.nan,
            "log_uniform": -np.log(len(w)) if enumerated else np.nan}


def belief(P: int, numbers, seed: int, deals: int, spec: str = "expert") -> None:
    """The inference diagnostic (module notes) on the first ``deals`` of ``numbers``."""
    import pandas as pd

    from simkit.base.rng import Stream
    from simkit.pepper import reference, reference_expert
    from simkit.pepper.policies import make_policies

    rules = api.resolve_rules(None, P)
    pols = [spec] + ["heuristic"] * (P - 1)
    if P == 4:
        pols[2] = spec
    pols = make_policies(pols, P)
    rows: list[dict] = []

    class Watch(reference.PlanDecider):
        index = 0

        def play(self, seat, hand, trick, view, trump):
            params = self.policies[seat].params
            if self.policies[seat].name == "expert" and \
                    len(reference_expert.expert_candidates(hand, trick, view, trump)) > 1:
                rows.append(_belief_row(self, seat, hand, trick, view, trump, self.index))
            return reference.heuristic_card(seat, hand, trick, view, trump, self.rules, params)

    t0 = time.perf_counter()
    for index in numbers[:deals]:
        index = int(index)
        stream, dealer = Stream(seed, index), index % P
        hands, dead = reference.deal(stream, rules, dealer)
        decide = Watch(rules, pols, stream, (dealer + 1) % P, api.parse_plan(rules, "kubwa"))
        decide.index = index
        reference.play_with_decider(rules, dealer, hands, dead, decide)
    df = pd.DataFrame(rows)
    print(f"\n{P} players, the belief of {spec} (declaring, heuristic defenders, along the "
          f"heuristic's play): {min(deals, len(numbers)):,} strong deals, {len(df):,} cards "
          f"with a choice ({time.perf_counter() - t0:.0f} s)")
    for trick, g in df.groupby("trick"):
        e = g[g["enumerated"]]
        _, lo, hi = stats.mean_ci_of(g["log_ratio"].to_numpy()) if len(g) > 1 else \
            (np.nan,) * 3
        print(f"  trick {trick}: {len(g):5,} cards  log-likelihood of the true deal over the "
              f"mean world {g['log_ratio'].mean():+.2f} nats [{lo:+.2f}, {hi:+.2f}] "
              f"(truth above the mean world {g['above'].mean():.0%})  rank among the worlds "
              f"{g['rank'].mean():.2f}  enumerated {len(e) / len(g):.0%}"
              + (f": log P(true deal) {e['log_p'].mean():+.2f} against the uniform "
                 f"{e['log_uniform'].mean():+.2f}" if len(e) else ""))
    print(f"  all tricks: {df['log_ratio'].mean():+.2f} nats, rank {df['rank'].mean():.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, action="append", choices=(2, 3, 4))
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--defenders", action="append")
    ap.add_argument("--policy", action="append")
    ap.add_argument("--base", default="expert:model=voids")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--belief", type=int, default=0, metavar="N",
                    help="the inference diagnostic on the first N strong deals (reference)")
    a = ap.parse_args()
    specs = a.policy or ["heuristic", "expert:model=voids", "expert", "expert:worlds=0"]
    for P in a.players or [4]:
        numbers, trump = strong_deals(P, a.deals, a.seed, a.threads)
        if a.belief:
            belief(P, numbers, a.seed, a.belief)
        T = 6 if P == 4 else 8
        bound = api.bound_first(numbers, trump, players=P, seed=a.seed, target=T,
                                threads=a.threads).astype(float)
        for defenders in a.defenders or ["heuristic", "classic"]:
            table(P, defenders, specs, a.base, numbers, bound, a.seed, a.threads)


if __name__ == "__main__":
    main()
