"""Pepper's twin engines stand on layers that import only downwards.

The numba side: kernel_columns (the records' columns) -> tables (card
tables, the deal) -> solver (double dummy) -> expert (7.3) -> kernel_bidding
(the auction) -> kernel_play (the heuristic's play, a trick resolved) ->
kernel_inference (the expert's worlds and card) -> kernel (the drivers).  The
reference side: tricks (§1, §2, §3 calls, §4 primitives) -> reference_solver
-> reference_expert -> reference_players (§7) -> reference.  Each may also read
the shared ground (rules, policies); neither side imports the other, and
every import is at the top of the file, above the code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PEPPER = Path(__file__).resolve().parents[2] / "simkit" / "pepper"
SHARED = ("rules", "policies")
NUMBA_SIDE = ("kernel_columns", "tables", "solver", "expert", "kernel_bidding", "kernel_play",
              "kernel_inference", "kernel")
REFERENCE_SIDE = ("tricks", "reference_solver", "reference_expert", "reference_players",
                  "reference")


def _pepper_imports(name: str) -> list[tuple[str, bool]]:
    """The Pepper modules that module ``name`` imports, each with whether the
    import is a statement at the top level of the file."""
    tree = ast.parse((PEPPER / f"{name}.py").read_text())
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "simkit.pepper":
            found += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("simkit.pepper."):
            found.append((node.module.split(".")[2], id(node) in top))
        elif isinstance(node, ast.Import):
            found += [(a.name.split(".")[2], id(node) in top) for a in node.names
                      if a.name.startswith("simkit.pepper.")]
    return found


@pytest.mark.parametrize("layers", [NUMBA_SIDE, REFERENCE_SIDE], ids=["numba", "reference"])
def test_each_layer_imports_only_the_layers_below_it(layers):
    for i, name in enumerate(layers):
        for imported, at_top in _pepper_imports(name):
            assert at_top, f"{name}.py imports {imported} inside a function"
            assert imported in SHARED or imported in layers[:i], \
                f"{name}.py imports {imported}: it may import {SHARED + layers[:i]}"


@pytest.mark.parametrize("name", SHARED + NUMBA_SIDE + REFERENCE_SIDE)
def test_no_import_below_the_code(name):
    body = ast.parse((PEPPER / f"{name}.py").read_text()).body
    code = [i for i, node in enumerate(body)
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    imports = [i for i, node in enumerate(body) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert not code or max(imports) < min(code), f"{name}.py imports after its code"


def test_the_reference_side_never_reads_numba():
    for name in REFERENCE_SIDE:
        tree = ast.parse((PEPPER / f"{name}.py").read_text())
        modules = [a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                   for a in node.names]
        modules += [node.module or "" for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom)]
        for module in modules:
            assert not module.startswith(("numba", "simkit.base.jit")), \
                f"{name}.py imports {module}"
