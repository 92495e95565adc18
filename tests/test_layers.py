"""The structure the code promises (README, "What is in the box"): layers that
read top-down, with no import loop anywhere in ``simkit/`` and ``analyses/``.

Imports are read from the source (every ``import``, at the top of a module
or inside a function, and every module a registry names for
``importlib.import_module``), so a lazy import that closes a loop is caught
as surely as a top-level one.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import simkit
from simkit import games
from simkit.base import jit

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("simkit", "analyses")


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


MODULES = _modules()


def _named(name: str) -> set[str]:
    """Modules named by string constants in module ``name`` (registries:
    games.REGISTRY, a spec's ``record`` and ``advise``, analyses.STUDIES)."""
    tree = ast.parse(MODULES[name].read_text())
    return {node.value.partition(":")[0] for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value.partition(":")[0] in MODULES} - {name}


def _static(name: str) -> tuple[set[str], bool]:
    """The modules of simkit and analyses that module ``name`` imports by name,
    anywhere in it, and whether it calls ``importlib.import_module``."""
    path = MODULES[name]
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out, dynamic = set(), False
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[:len(here) - node.level + 1] + ([base] if base else []))
            out |= {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                    for a in node.names}
        elif isinstance(node, ast.Attribute) and node.attr == "import_module":
            dynamic = True
    return {m for m in out if m in MODULES and m != name}, dynamic


def _graph() -> dict[str, set[str]]:
    """Every module's imports; a module that calls ``importlib.import_module``
    may import any module named by a string in the modules it reaches (a
    registry's entries), found by iterating to a fixed point."""
    static = {m: _static(m) for m in MODULES}
    graph = {m: set(imports) for m, (imports, _) in static.items()}
    changed = True
    while changed:
        changed = False
        for m, (_, dynamic) in static.items():
            if not dynamic:
                continue
            named = set().union(*(_named(n) for n in _reaches(graph, m) | {m})) - {m}
            if not named <= graph[m]:
                graph[m] |= named
                changed = True
    return graph


def _reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for n in graph[todo.pop()] - seen:
            seen.add(n)
            todo.append(n)
    return seen


GRAPH = _graph()


def _cycle() -> list[str] | None:
    """One import loop, as the modules around it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(GRAPH[m]):
            if state.get(n) == 1:
                return [*stack[stack.index(n):], n]
            if n not in state and (found := visit(n)):
                return found
        state[m] = 2
        stack.pop()
        return None

    for m in sorted(GRAPH):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_import_loop():
    loop = _cycle()
    assert loop is None, "import loop: " + " -> ".join(loop)


def test_the_library_never_imports_the_studies():
    """Only the command line (the top layer) imports the studies' package."""
    for m in MODULES:
        if m.startswith("simkit") and m != "simkit.app.cli":
            assert not any(n.startswith("analyses") for n in _reaches(GRAPH, m)), m


#: What each shared module may not reach, directly or through others: the
#: layers from the command line down (cli; studies; compare, tournament,
#: record, bench, runs; games and the engine; chunks; the base modules).
BELOW = {
    "simkit.app.answers": ("simkit.app.cli", "simkit.app.web", "simkit.app.web.server"),
    "simkit.app.options": ("simkit.app.cli", "simkit.app.answers", "simkit.app.web"),
    "simkit.runs.chunks": ("simkit.engine", "simkit.games", "simkit.bygame.jobs",
                           "simkit.tournament"),
    "simkit.engine": ("simkit.games", "simkit.runs.chunks", "simkit.bygame.jobs",
                      "simkit.tournament", "simkit.lab.compare", "simkit.app.report",
                      "simkit.bygame.record", "simkit.bench", "simkit.app.cli"),
    "simkit.app.report": ("simkit.engine", "simkit.games", "simkit.tournament", "simkit.app.cli"),
    "simkit.runs.store": ("simkit.engine", "simkit.games", "simkit.runs.chunks"),
}


@pytest.mark.parametrize("module", sorted(BELOW))
def test_a_lower_layer_never_reaches_a_higher_one(module):
    reached = _reaches(GRAPH, module)
    assert not [m for m in BELOW[module] if m in reached], module


#: The rooms below the ways in (the command line, the web app, the reports):
#: none of their modules reaches ``simkit.app``.  What a study returns and
#: checks lives in ``simkit.study``, the figures' backend in ``simkit.base.plots``.
BELOW_THE_APP = ("analyses", "simkit.lab", "simkit.tournament", "simkit.tune", "simkit.study",
                 "simkit.engine", "simkit.games", "simkit.bygame", "simkit.runs",
                 "simkit.records", "simkit.base")


def test_nothing_below_the_app_reaches_it():
    low = [m for m in MODULES if m.startswith(BELOW_THE_APP)]
    assert "analyses.common" in low
    assert "simkit.tournament" in low
    reach = {m: sorted(n for n in _reaches(GRAPH, m) if n.startswith("simkit.app"))
             for m in low}
    assert not {m: r for m, r in reach.items() if r}


#: The rooms that know no game, and what none of their modules may reach: a
#: game's package, the registry, the engine layer and every room above.
GAME_FREE = ("simkit.base", "simkit.runs", "simkit.records")
ABOVE_THE_GAMES = ("simkit.games", "simkit.engine", "simkit.design", "simkit.bygame",
                   "simkit.lab", "simkit.app", "simkit.tournament", "simkit.tune",
                   "simkit.study", "simkit.bench", "analyses",
                   *(f"simkit.{g}" for g in games.GAMES))
#: What a game's package may not reach: the rooms above the games.
ABOVE_A_GAME = ("simkit.games", "simkit.bygame", "simkit.lab", "simkit.app",
                "simkit.tournament", "simkit.tune", "simkit.study", "simkit.bench",
                "analyses")


def _under(name: str, rooms: tuple[str, ...]) -> bool:
    return any(name == r or name.startswith(r + ".") for r in rooms)


def test_the_rooms_below_the_games_know_no_game():
    """base/, runs/ and records/ never reach a game, the registry or any room
    above: what needs a game by its name (a record's game, a game's runs) is
    bygame/'s work."""
    low = [m for m in MODULES if _under(m, GAME_FREE)]
    assert "simkit.runs.chunks" in low
    assert "simkit.records.text" in low
    up = {m: sorted(n for n in _reaches(GRAPH, m) if _under(n, ABOVE_THE_GAMES))
          for m in low}
    assert not {m: r for m, r in up.items() if r}


@pytest.mark.parametrize("game", games.GAMES)
def test_a_game_never_reaches_a_room_above_the_games(game):
    """A game's package uses the engine's contract, the designer's measures and
    the rooms below; never the registry, the lab, the studies or the app."""
    mine = [m for m in MODULES if _under(m, (f"simkit.{game}",))]
    up = {m: sorted(n for n in _reaches(GRAPH, m) if _under(n, ABOVE_A_GAME)) for m in mine}
    assert not {m: r for m, r in up.items() if r}


@pytest.mark.parametrize("game", games.GAMES)
def test_the_two_engines_of_a_game_are_written_independently(game):
    """The reference side (reference engine, its solver and expert, records)
    never reaches the numba side (kernel and what only kernels import), nor
    the other way round; rules and policy layouts are the shared ground."""
    folder = f"simkit.{game}."
    numba_side = {m for m in MODULES if m.startswith(folder)
                  and jit.kernel_side(m.removeprefix(folder) + ".py")} \
        - {f"{folder}rules", f"{folder}policies"}
    reference_side = {m for m in MODULES if m.startswith(f"{folder}reference")
                      or m in (f"{folder}record", f"{folder}replay")}
    for m in reference_side:
        assert not (_reaches(GRAPH, m) & numba_side), m
    for m in numba_side & set(MODULES):
        assert not (_reaches(GRAPH, m) & reference_side), m


def test_compiled_kernels_are_kept_outside_the_package():
    """numba's cache goes to the user's cache directory (simkit/base/jit.py), so that
    an install leaves nothing in site-packages that would outlive it."""
    from simkit.pepper import api
    api.simulate(hands=10)
    package = pathlib.Path(simkit.__file__).parent
    assert not list(package.rglob("*.nbi"))
    assert list(pathlib.Path(jit.cache_root()).rglob("*.nbi"))


def _too_long(path: pathlib.Path) -> list[str]:
    """Functions longer than 80 lines (120 for a numba kernel) in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            jitted = any("kernel" in ast.unparse(d) for d in node.decorator_list)
            length = node.end_lineno - node.lineno + 1
            if length > (120 if jitted else 80):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    return out


def test_no_function_is_too_long_to_read():
    long = [f for m in sorted(MODULES.values()) for f in _too_long(m)]
    assert not long, "\n".join(long)


# --- rooms a newcomer can find (issue 40) --------------------------------------------

#: Lines a module may hold: a plain module, and a module of numba kernels.
MAX_LINES, MAX_KERNEL_LINES = 800, 1_000
#: Modules side by side at simkit's top; the rest live in rooms by role.
MAX_TOP_MODULES = 15
#: Parameters of a function outside the numba kernels, and arguments a call
#: outside them may pass by position.
MAX_PARAMETERS, MAX_POSITIONAL = 8, 5


def _jitted(tree: ast.Module) -> bool:
    """Whether a module holds numba kernels (functions under ``@kernel``)."""
    return any(isinstance(node, ast.FunctionDef)
               and any("kernel" in ast.unparse(d) for d in node.decorator_list)
               for node in ast.walk(tree))


TREES = {name: ast.parse(path.read_text()) for name, path in MODULES.items()}
PLAIN = sorted(name for name, tree in TREES.items() if not _jitted(tree))


def test_no_module_is_too_long_to_find_ones_way_in():
    long = []
    for name, path in sorted(MODULES.items()):
        lines = path.read_text().count("\n")
        most = MAX_KERNEL_LINES if _jitted(TREES[name]) else MAX_LINES
        if lines > most:
            long.append(f"{path.relative_to(ROOT)}: {lines} lines (at most {most})")
    assert not long, "\n".join(long)


def test_simkits_top_holds_few_modules():
    top = sorted(p.name for p in (ROOT / "simkit").glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top


def test_functions_outside_kernels_take_few_parameters():
    many = []
    for name in PLAIN:
        for node in ast.walk(TREES[name]):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                if count > MAX_PARAMETERS:
                    many.append(f"{name}:{node.lineno} {node.name} ({count} parameters)")
    assert not many, "\n".join(many)


#: Calls whose arguments are a contract by position: a unit's batch kernel,
#: whichever game's (its numba kernel names its parameters in its own way, so
#: the engine passes them in the order engine.Unit documents).
POSITIONAL_CALLS = {("simkit.engine", "self.kernel")}
#: Calls of functions that take a list of like things (``*choices``), where no
#: keyword could name one: a game's option enums made kernel IntEnums.
LIST_CALLS = {"config.codes", "codes"}


def test_long_calls_outside_kernels_name_their_arguments():
    """A call passing more than five arguments passes them by keyword, so that
    a reader (and a reordered signature) cannot mistake one for another."""
    long = []
    for name in PLAIN:
        for node in ast.walk(TREES[name]):
            if isinstance(node, ast.Call) and (name, ast.unparse(node.func)) \
                    not in POSITIONAL_CALLS and ast.unparse(node.func) not in LIST_CALLS:
                given = [a for a in node.args if not isinstance(a, ast.Starred)]
                if len(given) > MAX_POSITIONAL:
                    long.append(f"{name}:{node.lineno} {ast.unparse(node.func)} "
                                f"({len(given)} by position)")
    assert not long, "\n".join(long)


def test_every_folder_of_code_is_a_package():
    """A folder of modules without ``__init__.py`` would import (as a namespace
    package) but be left out of a built wheel and of the API pages."""
    for pkg in PACKAGES:
        for folder in {p.parent for p in (ROOT / pkg).rglob("*.py")}:
            assert (folder / "__init__.py").is_file(), folder.relative_to(ROOT)
