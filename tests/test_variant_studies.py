"""The variant study of every game (analyses/variants.py) on small seeded runs:
the rule book against every named variant, played by the kept adapted
players; its tables, findings and provenance.  What every study satisfies
(determinism, the report) is checked in test_studies.py, with these sizes."""

from __future__ import annotations

import pandas as pd
import pytest
from test_studies import size

from analyses import variants
from simkit import games

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

GAMES = ["pepper", "pitch", "shiesta", "burraco"]


@pytest.fixture(scope="module", params=GAMES)
def study(request, run_study):
    name = f"{request.param}-variants"
    return request.param, run_study(name, *size(name))


def test_every_variant_played_by_adapted_players(study):
    game, result = study
    v = result.tables["variants"]
    names = [n for n, _ in variants.variants_of(game, variants.SETUPS[game])]
    assert list(v["variant"]) == names
    assert names[0] == variants.BASE
    assert len(names) == 1 + len(games.get(game).presets) - 1 - len(variants.SETUPS[game].skip)
    assert v["objective"].notna().all()
    # the kept adaptations, every one of them: the study adapted nothing itself
    from simkit.lab import adapt
    for how in v["adaptation"]:
        assert how.count("kept from an earlier run") == adapt.SEEDS, how
    assert all(len(s) == adapt.SEEDS for s in v["settings"])
    assert result.provenance["policies"] == dict(zip(v["variant"], v["played"]))
    best = result.tables["best_response"]
    assert set(best["rules"]) == set(names)


def test_tables_pair_each_variant_with_the_rule_book(study, assert_intervals):
    _game, result = study
    from simkit.lab import findings
    labels = list(result.tables["variants"]["variant"])
    for name in ("measures", "design"):
        t = result.tables[name]
        assert set(t["vs"]) == set(labels[1:]), name
        assert_intervals(t.dropna(subset=["diff"]), "diff")
        assert (t["p_holm"].dropna() >= t["p_value"].dropna() - 1e-12).all()
        assert set(t["finding"]) <= set(findings.WORDS)
        for row in t.itertuples():
            assert row.finding == findings.combine([e["finding"] for e in row.by_adaptation])
    design = result.tables["design"]
    text = " | ".join(design["metric"])
    for word in ("balance", "completion", "per game", "lead changes", "comeback", "skill"):
        assert word in text, word


def test_findings_name_every_variant(study):
    _game, result = study
    labels = list(result.tables["variants"]["variant"])
    head, players, *each = result.summary
    assert players.startswith("The rule book's players:")
    v = result.tables["variants"]
    if v["capped"].any():
        assert each[0].startswith("An adaptation stopped at its cap")
        each = each[1:]
    assert len(each) == len(labels) - 1
    for label, line in zip(labels[1:], each):
        assert line.startswith(label + " ("), line
    never = []
    for row, line in zip(v.iloc[1:].itertuples(), each):
        unchanged = max(getattr(row, c) for c in v.columns if c.startswith("differing_")) == 0
        assert ("never changed a deal" in line) == unchanged, line
        never += [row.variant] if unchanged else []
    # the headline counts them: the variants that move a measure in every adaptation,
    # those that never matter
    both = pd.concat([result.tables["measures"], result.tables["design"]])
    # a change within the measure's margin is not counted as one that matters
    within = both["within_margin"].fillna(False).astype(bool)
    told = both["finding"].isin(["higher", "lower"]) & ~within
    moved = [label for label in labels[1:] if told[both["vs"] == label].any()]
    from simkit.lab import adapt
    assert head.startswith(f"Of {len(labels) - 1} variants, each played by players adapted "
                           f"to it {adapt.SEEDS} times independently, {len(moved)} move a "
                           "measure in every adaptation"), head
    assert (f"{len(never)} never changed a deal ({', '.join(never)})" in head) == bool(never)


def test_pepper_stick_the_dealer_never_comes_up(run_study):
    """The default players (and the rule book's adapted ones) never pass a hand
    out: stick-the-dealer changes no deal, every interval is exactly [0, 0]."""
    result = run_study("pepper-variants", *size("pepper-variants"))
    d = result.tables["design"]
    stick = d[d["vs"] == "stick-the-dealer"]
    assert len(stick)
    assert (stick["diff"] == 0).all()
    assert (stick["ci_low"] == 0).all()
    assert (stick["ci_high"] == 0).all()
