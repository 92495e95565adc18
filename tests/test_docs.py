"""The documentation cannot go stale: every command it shows parses with the
command's own parser, every subcommand and option is in the generated
reference, its Python examples run, and the README stays short.

(``mkdocs build --strict``, run by ``.ci/run``, checks the links and pages.)
"""

from __future__ import annotations

import doctest
import importlib.util
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

from simkit.app.options import build_parser
from simkit.base.errors import InputError

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").rglob("*.md"))
TEXTS = [ROOT / "README.md", *PAGES]
SHELL = ("sh", "bash", "shell", "console")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)


def _blocks(path: pathlib.Path, langs) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(path.read_text(encoding="utf-8"))
            if m.group(1) in langs]


def _commands(path: pathlib.Path) -> list[list[str]]:
    """Every ``simkit ...`` command in the shell blocks of ``path``, as argv
    (continued lines joined, ``&&`` chains split, comments dropped)."""
    out = []
    for block in _blocks(path, SHELL):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.removeprefix("$ ").strip()
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words[:1] == ["simkit"]:
                    out.append(words[1:])
    return out


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_readme_is_short_and_opens_with_the_quick_start():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    first = _blocks(ROOT / "README.md", SHELL)[0].strip().splitlines()
    assert first == ['pip install . && simkit report all',
                     'pip install -e ".[test]" && python -m pytest']


@pytest.mark.parametrize("path", TEXTS, ids=[str(p.relative_to(ROOT)) for p in TEXTS])
def test_every_command_shown_parses(path):
    parser = build_parser()
    for argv in _commands(path):
        try:
            parser.parse_args(argv)
        except InputError as e:
            pytest.fail(f"{path.relative_to(ROOT)}: simkit {shlex.join(argv)}: {e}")


def test_the_docs_show_commands():
    """Every subcommand of simkit, and a run of every game, is shown as a command
    a reader can copy from the README or the docs."""
    import argparse

    from simkit import games

    shown = [argv for p in TEXTS for argv in _commands(p)]
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = set(sub.choices) - {argv[0] for argv in shown if argv}
    assert not missing, f"no command shown for: simkit {', simkit '.join(sorted(missing))}"
    simulated = {argv[1] for argv in shown if argv[:1] == ["simulate"] and len(argv) > 1}
    assert set(games.GAMES) <= simulated, set(games.GAMES) - simulated


def test_every_subcommand_and_option_is_in_the_reference():
    import argparse

    assert "{{ cli }}" in (ROOT / "docs" / "reference" / "cli.md").read_text()
    text = _hooks().cli()
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        assert f"## `simkit {name}`" in text, name
        for action in p._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}`" in text, (name, option)


def test_every_mark_in_the_docs_is_known():
    hooks = _hooks()
    for page in PAGES:
        for m in hooks.MARK.finditer(page.read_text(encoding="utf-8")):
            assert m.group(1) in hooks.GENERATORS, (page, m.group(0))


def _example_pages() -> list:
    """Every text; those whose ```python blocks run simulations (each block a
    fresh process, seconds a page) are marked slow, but for the Python
    reference and how-it-works: the quick tier runs those two."""
    quick = {ROOT / "docs" / "reference" / "python.md", ROOT / "docs" / "how-it-works.md"}
    return [pytest.param(p, id=str(p.relative_to(ROOT)),
                         marks=pytest.mark.slow if p not in quick and any(
                             m.group(1) == "python" for m in FENCE.finditer(p.read_text(
                                 encoding="utf-8"))) else ())
            for p in TEXTS]


@pytest.mark.parametrize("path", _example_pages())
def test_the_python_examples_run(path, tmp_path):
    """``>>>`` examples as doctests; every ```python block of a page, in order,
    in a fresh process (in an empty directory: nothing is left behind)."""
    res = doctest.testfile(str(path), module_relative=False, verbose=False,
                           optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0
    code = "\n\n".join(b for b in _blocks(path, ("python",)) if ">>>" not in b)
    if code:
        run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                             text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-2000:]


def test_the_compile_table_sums_each_games_steps_from_the_two_measured_runs():
    """The Performance page's compile table: a row per game with the seconds of
    its warm-up steps in each saved run of benchmarks/compile_costs.py (summed
    here again from the files), and an ``all`` row that adds them up."""
    import json

    text = _hooks().compile_costs()
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")[1:]
            for line in text.splitlines() if line.startswith("| ")}
    sums = []
    for name in ("compile_costs_before", "compile_costs"):
        d = json.loads((ROOT / "benchmarks" / "results" / f"{name}.json").read_text())
        run = next(r for r in d["records"]["results"] if r["mode"] == "declared")
        per: dict[str, float] = {}
        for s in run["steps"]:
            per[s["step"].split(":")[0]] = per.get(s["step"].split(":")[0], 0.0) + s["wall_s"]
        sums.append(per)
    for game in ("pepper", "pitch", "shiesta", "burraco"):
        assert [float(c.strip(" |")) for c in rows[game]] == \
            [round(sums[0][game]), round(sums[1][game])], game
    assert float(rows["all"][0]) == round(sum(sums[0].values()))
    assert "pepper 4p, ratio to the yardstick" in rows
