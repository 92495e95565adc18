"""The structure the code promises (README, "What is in the box"): layers that
read top-down, with no import loop anywhere in ``simkit/`` and ``analyses/``.
The layers are one table here (``LAYERS``): every module is in exactly one,
no import runs up, and docs/how-it-works.md's table of layers says the same.

Imports are read from the source (every ``import``, at the top of a module
or inside a function, and every module a registry names for
``importlib.import_module``), so a lazy import that closes a loop is caught
as surely as a top-level one.
"""

from __future__ import annotations

import ast
import functools
import pathlib
import re

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


@functools.cache        # parsed once, when a check first needs it (not in every worker)
def _trees() -> dict[str, ast.Module]:
    """Every module's syntax tree."""
    return {name: ast.parse(path.read_text()) for name, path in MODULES.items()}


@functools.cache          # the graph's fixed point asks again for the same modules
def _named(name: str) -> frozenset[str]:
    """Modules named by string constants in module ``name`` (registries:
    analyses.STUDIES; the games registry names its games by typed lazy imports)."""
    tree = _trees()[name]
    return frozenset({node.value.partition(":")[0] for node in ast.walk(tree)
                      if isinstance(node, ast.Constant) and isinstance(node.value, str)
                      and node.value.partition(":")[0] in MODULES} - {name})


def _static(name: str) -> tuple[set[str], bool]:
    """The modules of simkit and analyses that module ``name`` imports by name,
    anywhere in it, and whether it calls ``importlib.import_module``."""
    path = MODULES[name]
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out, dynamic = set(), False
    for node in ast.walk(_trees()[name]):
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


@functools.cache
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




def _under(name: str, rooms: tuple[str, ...]) -> bool:
    return any(name == r or name.startswith(r + ".") for r in rooms)


def _cycle() -> list[str] | None:
    """One import loop, as the modules around it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(_graph()[m]):
            if state.get(n) == 1:
                return [*stack[stack.index(n):], n]
            if n not in state and (found := visit(n)):
                return found
        state[m] = 2
        stack.pop()
        return None

    for m in sorted(_graph()):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_import_loop():
    loop = _cycle()
    assert loop is None, "import loop: " + " -> ".join(loop)


#: The layers, from the top, each with the folders (``pkg/room/``) and
#: modules (``pkg/module.py``) it holds.  A module imports its own layer and
#: the layers below it, never one above; every module of ``simkit/`` and
#: ``analyses/`` is in exactly one layer.  The table "The layers" of
#: docs/how-it-works.md lists the same layers with the same folders and
#: modules, in the same order (test_the_docs_list_the_layers_of_the_code).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the ways in", ("simkit/app/",)),
    ("the studies", ("analyses/",)),
    ("the variant lab", ("simkit/lab/",)),
    ("the tools",
     ("simkit/tournament.py", "simkit/tune.py", "simkit/bench.py", "simkit/yardstick.py",
      "simkit/study.py")),
    ("by a game's name", ("simkit/bygame/", "simkit/games.py")),
    ("the games", ("simkit/pepper/", "simkit/pitch/", "simkit/shiesta/", "simkit/burraco/")),
    ("the engine layer",
     ("simkit/engine.py", "simkit/design.py", "simkit/policy.py", "simkit/advice.py")),
    ("records", ("simkit/records/",)),
    ("the run machinery", ("simkit/runs/",)),
    ("the base", ("simkit/base/", "simkit/__init__.py")),
)
GAME_LAYER = "the games"


def _holds(entry: str, module: str) -> bool:
    """Whether a LAYERS entry (a folder ``a/b/`` or a module ``a/b.py``)
    holds ``module`` (dotted)."""
    if entry.endswith("/"):
        room = entry.rstrip("/").replace("/", ".")
        return module == room or module.startswith(room + ".")
    return module == entry.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def _layers_of(module: str) -> list[int]:
    """The positions in LAYERS (0 the top) of the layers that hold ``module``."""
    return [i for i, (_, where) in enumerate(LAYERS) if any(_holds(e, module) for e in where)]


def _exists(entry: str) -> bool:
    return any(_holds(entry, m) for m in MODULES)


LAYER = {m: found[0] for m in MODULES if len(found := _layers_of(m)) == 1}


def test_every_module_is_in_exactly_one_layer():
    assert "simkit" in LAYER
    assert "analyses.common" in LAYER
    left_out = sorted(m for m in MODULES if not _layers_of(m))
    assert not left_out, f"in no layer of LAYERS: {left_out}"
    twice = {m: [LAYERS[i][0] for i in found] for m in MODULES
             if len(found := _layers_of(m)) > 1}
    assert not twice, f"in more than one layer: {twice}"


def test_every_entry_of_the_layers_names_a_module_or_folder():
    entries = [e for _, where in LAYERS for e in where]
    assert len(entries) == len(set(entries)), entries
    stale = [e for e in entries if not _exists(e)]
    assert not stale, f"no such module or folder: {stale}"


def test_imports_run_down_the_layers():
    """No module imports (at its top, inside a function, or through a
    registry's string) a module of a higher layer; its own layer and those
    below are its to use."""
    assert _graph()["simkit.app.cli"]
    assert _graph()["simkit.pepper.api"]
    up = [f"{m} ({LAYERS[LAYER[m]][0]}) imports {n} ({LAYERS[LAYER[n]][0]})"
          for m in sorted(_graph()) for n in sorted(_graph()[m])
          if m in LAYER and n in LAYER and LAYER[n] < LAYER[m]]
    assert not up, "\n".join(up)


def test_a_game_never_reaches_another_game():
    """The games are peers in one layer: none imports another's package,
    directly or through a module of its own."""
    rooms = [e.rstrip("/").replace("/", ".") for e in dict(LAYERS)[GAME_LAYER]]
    assert sorted(rooms) == sorted(f"simkit.{g}" for g in games.GAMES)
    crossed = {}
    for room in rooms:
        others = tuple(r for r in rooms if r != room)
        for m in MODULES:
            if _under(m, (room,)) and (hit := sorted(n for n in _reaches(_graph(), m)
                                                     if _under(n, others))):
                crossed[m] = hit
    assert not crossed, crossed


def _doc_layers() -> list[tuple[str, tuple[str, ...]]]:
    """The rows of the table in docs/how-it-works.md's "The layers": each
    layer's name and the paths its "where" names."""
    text = (ROOT / "docs" / "how-it-works.md").read_text(encoding="utf-8")
    section = text.split("\n## The layers\n", 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    head = lines.index("| layer | where | what it does |")
    rows = []
    for line in lines[head + 2:]:
        if not line.startswith("|"):
            break
        name, where, _ = (cell.strip() for cell in line.strip("|").split("|", 2))
        rows.append((name, tuple(re.findall(r"`([^`]+)`", where))))
    return rows


def test_the_docs_list_the_layers_of_the_code():
    """how-it-works.md's layer table is checked against LAYERS: the same
    layers in the same order, each with the same folders and modules."""
    assert _doc_layers() == [(name, tuple(where)) for name, where in LAYERS]


def test_only_the_command_line_imports_the_studies():
    """Within the top layer, too, only ``app/cli.py`` reaches ``analyses/``."""
    for m in MODULES:
        if m.startswith("simkit") and m != "simkit.app.cli":
            assert not any(n.startswith("analyses") for n in _reaches(_graph(), m)), m


#: What a module may not reach, directly or through others, beyond the
#: layers (each target is in the module's own layer or one below it).
BELOW = {
    # the ways in: one function behind each answer, under the command line and the web app
    "simkit.app.answers": ("simkit.app.cli", "simkit.app.web", "simkit.app.web.server"),
    "simkit.app.options": ("simkit.app.cli", "simkit.app.answers", "simkit.app.web"),
    # the reports render what a study returns, knowing no game
    "simkit.app.report": ("simkit.engine", "simkit.games", "simkit.tournament", "simkit.app.cli"),
    # the engine runs batches; chunked runs are bygame/'s (a job is a chunk function)
    "simkit.engine": ("simkit.runs.chunks",),
    "simkit.runs.store": ("simkit.runs.chunks",),
}


@pytest.mark.parametrize("module", sorted(BELOW))
def test_a_module_never_reaches_what_its_layer_keeps_apart(module):
    reached = _reaches(_graph(), module)
    assert not [m for m in BELOW[module] if m in reached], module


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
        assert not (_reaches(_graph(), m) & numba_side), m
    for m in numba_side & set(MODULES):
        assert not (_reaches(_graph(), m) & reference_side), m


def test_compiled_kernels_are_kept_outside_the_package():
    """numba's cache goes to the user's cache directory (simkit/base/jit.py), so that
    an install leaves nothing in site-packages that would outlive it."""
    from simkit.pepper import api
    api.simulate(hands=10)
    package = pathlib.Path(simkit.__file__).parent
    assert not list(package.rglob("*.nbi"))
    assert list(pathlib.Path(jit.cache_root()).rglob("*.nbi"))


def _too_long(name: str) -> list[str]:
    """Functions longer than 80 lines (120 for a numba kernel) in module ``name``."""
    out, path = [], MODULES[name]
    for node in ast.walk(_trees()[name]):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            jitted = any("kernel" in ast.unparse(d) for d in node.decorator_list)
            length = node.end_lineno - node.lineno + 1
            if length > (120 if jitted else 80):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    return out


def test_no_function_is_too_long_to_read():
    long = [f for m in sorted(MODULES) for f in _too_long(m)]
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


def _plain() -> list[str]:
    """The modules without numba kernels."""
    return sorted(name for name, tree in _trees().items() if not _jitted(tree))


def test_no_module_is_too_long_to_find_ones_way_in():
    long = []
    for name, path in sorted(MODULES.items()):
        lines = path.read_text().count("\n")
        most = MAX_KERNEL_LINES if _jitted(_trees()[name]) else MAX_LINES
        if lines > most:
            long.append(f"{path.relative_to(ROOT)}: {lines} lines (at most {most})")
    assert not long, "\n".join(long)


def test_simkits_top_holds_few_modules():
    top = sorted(p.name for p in (ROOT / "simkit").glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top


def test_functions_outside_kernels_take_few_parameters():
    many = []
    for name in _plain():
        for node in ast.walk(_trees()[name]):
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
    for name in _plain():
        for node in ast.walk(_trees()[name]):
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
