"""The contract between the shared engine layer and a game (simkit/engine.py),
checked for every registered game: the spec is complete and consistent, and
every entry point it declares runs on a tiny input and gives what it promises.
A new game that passes this test works with every command."""

from __future__ import annotations

import dataclasses
import importlib
import pathlib

import numpy as np
import pandas as pd
import pytest

from simkit import engine, games
from simkit.app.cli import main
from simkit.base import config
from simkit.base.config import Config
from simkit.base.errors import InputError
from simkit.bygame import jobs
from simkit.policy import EXPERT, HEURISTIC, RANDOM

ROOT = pathlib.Path(__file__).resolve().parents[1]
SPECS = [games.get(g) for g in games.GAMES]
IDS = [g.name for g in SPECS]
SMALL = {"hand": 40, "game": 6}


def _schema_columns(schema):
    for item in schema:
        yield from (item.columns if isinstance(item, engine.Each) else (item,))


def _expected_dtype(c: engine.Column, series: pd.Series) -> bool:
    if c.dtype == "category":
        return isinstance(series.dtype, pd.CategoricalDtype)
    return series.dtype == np.dtype(c.dtype)


def test_registry_names_every_game_once():
    assert len(set(games.GAMES)) == len(games.GAMES) == len(SPECS)
    for name, spec in zip(games.GAMES, SPECS):
        assert spec.name == name
        assert games.get(name.upper()) is spec


@pytest.mark.parametrize("game", SPECS, ids=IDS)
def test_spec_is_complete(game):
    """Names, rule book, rules, presets, policies and units are all there and agree."""
    assert game.title
    assert (ROOT / game.book).is_file()
    assert game.players
    assert all(isinstance(p, int) for p in game.players)
    assert str(game.players[0]) in game.players_text
    assert issubclass(game.rules, Config)
    assert dataclasses.is_dataclass(game.rules)
    assert game.rules().players in game.players
    assert "seed" in game.presets
    assert game.presets["seed"] == {}
    for name in game.presets:
        rules = game.make_rules(name)
        vec = config.vector(rules)
        assert vec.dtype == np.int64
        assert len(vec) == len(config.layout(game.rules, "R"))
    rules_module = importlib.import_module(f"simkit.{game.name}.rules")
    assert list(rules_module.R) == list(config.layout(game.rules, "R"))
    assert rules_module.RULES is game.rules
    assert "random" in game.policies
    assert game.default_policy in game.policies
    assert game.policy_layout in game.policies.values()
    for name, cls in game.policies.items():
        assert cls.KIND in (RANDOM, HEURISTIC, EXPERT), name
        assert set(cls.keys()) <= set(game.policy_layout.keys()) or name == "random"
    assert game.units
    assert set(game.units) <= {"hand", "game"}
    assert game.bench_unit in game.units
    assert game.bench_players
    assert set(game.bench_players) <= set(game.players)
    for name, unit in game.units.items():
        assert unit.name == name
        assert unit.label
        assert unit.doc
        assert (unit.kernel is None) == (unit.alloc is not None) == (unit.play is not None)
        assert issubclass(unit.summary, engine.Summary)
        assert unit.aggregate is None or (name == "hand" and unit.agg_keys)


@pytest.mark.parametrize("game", SPECS, ids=IDS)
def test_schema_describes_every_column(game):
    """Every column has a dtype and a meaning, reads a kernel column inside the
    record matrix or is derived, and expands to unique names for every count."""
    for unit in game.units.values():
        for c in _schema_columns(unit.schema):
            assert c.dtype, c
            assert c.doc, c
            assert c.name, c
            assert (c.col is None) != (c.derive is None), c.name
            if c.col is not None and unit.kernel is not None:
                assert 0 <= c.col < unit.width, c.name
            if c.dtype == "category" and c.derive is None:
                assert c.labels, c.name
        for players in game.players:
            names = engine.column_names(unit.schema,
                                        game.axis_values(game.make_rules(players=players)))
            assert len(names) == len(set(names)), (unit.name, players)


@pytest.mark.parametrize("game", SPECS, ids=IDS)
def test_every_unit_simulates_as_its_schema_says(game):
    """A tiny run of each unit for every player count: the columns, in order, and
    the dtypes the schema declares; the index is the unit's number, and a unit
    is fixed by the seed and its number (the run in two parts is the same run,
    another seed another); the summary adds up and prints."""
    for unit_name, unit in game.units.items():
        for players in game.players:
            run = engine.RunSettings(SMALL[unit_name], players=players, seed=3, start=5)
            df = engine.simulate(game, unit_name, run)
            rules = game.make_rules(players=players)
            expanded = engine.expand(unit.schema, game.axis_values(rules))
            assert list(df.columns) == [name for name, _ in expanded]
            for name, c in expanded:
                assert _expected_dtype(c, df[name]), (unit_name, name, df[name].dtype)
            index = df.iloc[:, 0].to_numpy()
            assert index.min() == 5
            assert index.max() == 5 + SMALL[unit_name] - 1
            half = SMALL[unit_name] // 2
            parts = [engine.simulate(game, unit_name, dataclasses.replace(run, count=half)),
                     engine.simulate(game, unit_name, dataclasses.replace(
                         run, count=SMALL[unit_name] - half, start=5 + half))]
            pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), df)
            other = engine.simulate(game, unit_name, dataclasses.replace(run, seed=4))
            assert not other.iloc[:, 1:].equals(df.iloc[:, 1:]), (unit_name, players)
            summary = unit.summary(rules)
            summary.add(df)
            assert summary.text().strip()


@pytest.mark.parametrize("game", SPECS, ids=IDS)
def test_chunks_equal_simulate(game):
    """The chunk function of every unit and kind gives what simulate gives."""
    for unit_name, unit in game.units.items():
        rules = game.make_rules()
        pols = game.make_policies(None, rules.players)
        run = {"rules": rules.as_dict(), "policies": [p.text() for p in pols], "seed": 9}
        job = jobs.job(game.name, unit_name, 30, run)
        got = job.compute(10, 20)
        want = engine.simulate(game, unit_name,
                               engine.RunSettings(20, rules=rules, seed=9, start=10))
        pd.testing.assert_frame_equal(got, want)
        if unit.aggregate is not None:
            agg = jobs.job(game.name, unit_name, 300, run, kind="aggregate").compute(0, 200)
            assert list(agg.columns[:len(unit.agg_keys)]) == list(unit.agg_keys)
            assert agg["hands"].sum() == 200


@pytest.mark.parametrize("game", SPECS, ids=IDS)
def test_reference_and_bench_entry_points_run(game):
    """The reference engine plays a unit fixed by (seed, index); what ``simkit
    bench`` times plays the units a run of the same seed records."""
    players = game.bench_players[0]
    rules = game.make_rules(players=players)
    pols = game.make_policies("heuristic", rules.players)
    log = game.reference(rules, pols, 1, 0)
    assert log == game.reference(rules, pols, 1, 0)     # (seed, index) fixes the hand
    assert log != game.reference(rules, pols, 1, 1)     # and another index is another deal
    run = engine.kernel_run(game, players, 3)
    held = dict(zip(run.__code__.co_freevars, (c.cell_contents for c in run.__closure__)))
    table, unit, arrays = held["table"], held["unit"], held["arrays"]
    for a in arrays:
        a[...] = 0                                      # so what run() writes is seen
    assert run() is None
    matrix, index = ((arrays[0], np.arange(3)) if unit.rows is None
                     else unit.rows(arrays, table, 0))
    played = engine.frame(unit.schema, matrix, engine.FrameContext(table, index),
                          game.axis_values(table.rules))
    recorded = engine.simulate(game, game.bench_unit,
                               engine.RunSettings(3, players=players, policy="heuristic", seed=1))
    pd.testing.assert_frame_equal(played, recorded)


@pytest.mark.parametrize("game", SPECS, ids=IDS)
def test_advise_when_offered(game, capsys):
    """Games with bids advise on their example hand; the others refuse in one line."""
    mod = games.advisor(game.name)
    if mod is None:
        assert main(["advise", game.name, "--hand", "AS"]) == 2
        assert "simkit advise is for games with bids" in capsys.readouterr().err
        return
    advice = mod.advise(game.example_hand, samples=300, seed=1)
    assert advice.recommended in set(advice.bids["bid"])
    assert mod.advice_json(advice)["game"] == game.name
    assert game.example_hand.split()[0] in mod.format_advice(advice)


@pytest.mark.parametrize("game", SPECS, ids=IDS)
def test_compare_identical_variants(game):
    """Every measure the game compares, on identical rule sets: no difference."""
    from simkit.lab.compare import CompareSettings, compare, comparison_json, format_comparison
    hands = 300 if "hand" in game.units else None          # Shiesta: whole games only
    result = compare(game.name, ["A:", "B:"], CompareSettings(hands=hands, games=6, seed=2))
    assert "variants" in result
    assert len(result) >= 2
    for name, df in result.items():
        if name == "variants":
            continue
        assert len(df), name
        assert (df["diff"].fillna(0) == 0).all(), name
    text = format_comparison(result)
    assert text.count("verdict: ") == len(result) - 1
    assert comparison_json(result)["game"] == game.name


@pytest.mark.parametrize("game", SPECS, ids=IDS)
def test_rules_command_lists_rules_presets_policies_and_records(game, capsys):
    assert main(["rules", game.name]) == 0
    out = capsys.readouterr().out
    for key in game.rules.keys():  # noqa: SIM118  (a classmethod: the option names)
        assert f"  {key} " in out
    for name in list(game.presets) + list(game.policies) + list(game.named_policies):
        assert name in out
    for unit in game.units.values():
        for c in _schema_columns(unit.schema):
            assert c.describe()[0] in out


@pytest.mark.parametrize("game", SPECS, ids=IDS)
def test_named_policy_settings_are_their_specs(game):
    """A named setting plays exactly its spec; a key after it changes that one value."""
    for name, spec in game.named_policies.items():
        assert name not in game.policies
        (named,), (plain,) = game.make_policies(name, 1), game.make_policies(spec, 1)
        assert named == plain
    for unit in game.units.values():
        assert unit.measure is not None, f"{game.name} {unit.name}s have no tournament measure"


def test_a_named_setting_with_a_change():
    from simkit.pepper.policies import POLICIES
    from simkit.policy import parse_policy
    named = {"old": "heuristic:draw_trumps=false,aggression=-1"}
    p = parse_policy("OLD:aggression=1", POLICIES, named)
    assert p.params.aggression == 1.0
    assert p.params.draw_trumps is False
    with pytest.raises(InputError, match="expected one of heuristic, expert, random, old"):
        parse_policy("nope", POLICIES, named)


@pytest.mark.parametrize("game", SPECS, ids=IDS)
def test_kernel_cache_stamp_covers_what_kernels_read(game):
    """numba's cache is stamped with a package's KERNEL_SIDE modules and the
    SHARED ones (simkit/base/jit.py): those modules import nothing else of simkit,
    so that no edit a kernel depends on can leave stale machine code."""
    import ast

    from simkit.base import jit

    folder = ROOT / "simkit" / game.name
    mods = sorted(m for m in folder.glob("*.py") if jit.kernel_side(m.name))
    shared = {".".join(("simkit", *m.removesuffix(".py").split("/"))) for m in jit.SHARED}
    mods += [ROOT / "simkit" / m for m in jit.SHARED]
    assert (folder / "kernel.py") in mods
    for path in mods:
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [f"{node.module}.{a.name}" for a in node.names]
                     if isinstance(node, ast.ImportFrom)
                     and node.module in ("simkit", "simkit.base", f"simkit.{game.name}")
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                parts = name.split(".")
                if parts[0] != "simkit" or len(parts) == 1:
                    continue
                if len(parts) == 3 and parts[1] == game.name:
                    assert jit.kernel_side(parts[2] + ".py"), f"{path.name} imports {name}"
                else:
                    assert ".".join(parts[:3]) in shared or ".".join(parts[:2]) in shared, \
                        f"{path.name} imports {name}"
