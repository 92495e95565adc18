"""Whether adaptations from different seeds land on players of the same
strength: the search finds the same optimum, within noise.

    python benchmarks/adapt_convergence.py [--game pepper] [--variant A: --variant B:fail=bid]
                                           [--seeds 1 3] [--deals N] [--json]

For each comparison seed (``--seeds``), adapts the policy to every variant as
``simkit compare --adapt`` does (:func:`simkit.lab.adapt.adapt_variants`, with
its default ``--adapt-seeds`` adaptations each), then, under each variant's
rules, plays every pair of the settings its adaptations landed on against
each other on fresh duplicate deals (``--deals``, default four times a
trial's): the difference in the game's measure (wins per game, or money per
session) with its 95% interval.  Settings that play within noise of each
other have intervals that reach 0, or differences below the search's own
resolution (the half-width of a trial's interval at its full deals), which
is printed beside them.  ``--json`` prints one record, which
``save_results.py adapt_convergence`` keeps for the variants guide.
"""

import argparse
import itertools
import json
import math
import tempfile
import time

from simkit import games, tournament
from simkit.lab import adapt


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="pepper")
    p.add_argument("--variant", action="append")
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 3])
    p.add_argument("--deals", type=int)
    p.add_argument("--json", action="store_true", help="print one JSON record")
    a = p.parse_args()
    g = games.get(a.game)
    from simkit.lab.compare import check_variants
    pairs = check_variants(g, a.variant or ["A:", "B:fail=bid"])
    rules = [(label, g.make_rules(overrides=ov)) for label, ov in pairs]
    start = adapt.check(a.game, None)
    settings: dict[str, list[dict]] = {label: [] for label, _ in rules}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in a.seeds:
            fits = adapt.adapt_variants(a.game, rules, start, adapt.AdaptSettings(
                seed=seed, out=tmp))
            for k, each in enumerate(fits.results):
                for (label, _), res in zip(rules, each):
                    settings[label].append({"seed": seed, "adaptation": k + 1,
                                            "setting": res["setting"]})
    seconds = time.perf_counter() - t0
    req = adapt.request(a.game, rules[0][1], start)
    deals = a.deals or 4 * req.deals
    unit = req.unit
    rows = []
    for label, r in rules:
        for x, y in itertools.combinations(settings[label], 2):
            if x["setting"] == y["setting"]:
                diff = lo = hi = 0.0
            else:
                res = tournament.run(a.game, [x["setting"], y["setting"]], rules=r, seed=987_654,
                                     hands=deals if unit == "hand" else None,
                                     games=deals if unit == "game" else None)
                pair = res.pairs.iloc[0]
                diff, lo, hi = (float(pair[k]) for k in ("diff", "ci_low", "ci_high"))
            rows.append({"rules": label, "a": x, "b": y, "diff": diff, "ci_low": lo,
                         "ci_high": hi})
    # the search's resolution: a trial's 95% half-width at its full deals, from the
    # pairs' spread (the intervals above are on `deals` deals)
    half = [(r["ci_high"] - r["ci_low"]) / 2 * math.sqrt(deals / req.deals) for r in rows
            if r["ci_high"] > r["ci_low"]]
    resolution = max(half) if half else 0.0
    within = [r for r in rows if r["ci_low"] <= 0 <= r["ci_high"] or abs(r["diff"]) <= resolution]
    record = {"game": a.game, "variants": [f"{label}:{','.join(f'{k}={v}' for k, v in ov.items())}"
                                           for label, ov in pairs],
              "seeds": a.seeds, "seeds_text": " and ".join(map(str, a.seeds)),
              "adapt_seeds": adapt.SEEDS, "deals": deals,
              "search_deals": req.deals, "objective": adapt.objective(a.game)[1],
              "adapt_seconds": round(seconds, 1), "resolution": round(resolution, 4),
              "pairs": len(rows), "within_noise": len(within),
              "largest": round(max((abs(r["diff"]) for r in rows), default=0.0), 4),
              "rows": rows}
    if a.json:
        print(json.dumps(record))
        return
    print(f"{a.game}: adaptations from seeds {a.seeds} ({adapt.SEEDS} each, {seconds:.0f} s), "
          f"each pair of settings on {deals:,} fresh duplicate deals under its variant's rules "
          f"({record['objective']}, first minus second, 95% CI):")
    for r in rows:
        x, y = r["a"], r["b"]
        print(f"  {r['rules']}: seed {x['seed']}#{x['adaptation']} vs seed {y['seed']}"
              f"#{y['adaptation']}: {r['diff']:+.4f} [{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]")
    print(f"within noise (interval reaches 0, or within the search's resolution "
          f"+-{resolution:.4f}): {len(within)} of {len(rows)}; largest difference "
          f"{record['largest']:.4f}")


if __name__ == "__main__":
    main()
