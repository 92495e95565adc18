"""``--where``: a condition on a run's records, in a small language of its own.

A condition names columns of the records, numbers, strings and ``True`` /
``False``, and combines them with comparisons (``==``, ``!=``, ``<``, ``<=``,
``>``, ``>=``, chained as ``2 <= contract < 5``), ``in`` / ``not in`` a
list, arithmetic (``+ - * / // %`` and a sign), ``and``, ``or``, ``not`` and
parentheses.  Nothing else: no attribute, call, subscript, ``@`` or any name
that is not a column, so a condition can only read the columns it names
(pandas' own ``DataFrame.eval`` reaches the caller's globals through ``@``).

The text is parsed with Python's own parser (:mod:`ast`, which only builds a
tree and runs nothing); the tree is checked node by node against the list
above and then evaluated on the columns as numpy arrays.  A column compared
with a value it can never hold (``trump == 3``, ``trump == 'X'`` where
``trump`` holds ``'C'``, ``'D'``, ...; ``made == 2``; ``contract == 'x'``) is
refused, as comparing it the other way (``trump < 3``) is, instead of
matching nothing.  :func:`named` says which columns a condition reads, so
that a run is read a few columns and a batch of rows at a time.

>>> import pandas as pd
>>> df = pd.DataFrame({"contract": [1, 7, 7], "made": [True, True, False]})
>>> select(df, "contract == 7 and not made").tolist()
[False, False, True]
>>> select(df, "contract in [1, 2] or contract * 2 > 20").tolist()
[True, False, False]
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from simkit.base.errors import InputError

#: The longest condition taken (characters) and its deepest nesting.
MAX_CHARS = 1000
MAX_DEPTH = 40
#: The values of a column a refusal names at most.
_SHOWN = 12

_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge}
_ARITH: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_SIGN: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_WORDS = {ast.Attribute: "an attribute (a.b)", ast.Call: "a call f(...)",
          ast.Subscript: "a subscript a[...]", ast.Pow: "a power (**)",
          ast.Lambda: "a lambda", ast.IfExp: "an if-else", ast.Dict: "a dict",
          ast.Set: "a set", ast.ListComp: "a comprehension",
          ast.GeneratorExp: "a comprehension", ast.Starred: "a starred value",
          ast.NamedExpr: "an assignment (:=)", ast.BitAnd: "a bitwise &",
          ast.BitOr: "a bitwise |", ast.BitXor: "a bitwise ^", ast.Invert: "a bitwise ~",
          ast.LShift: "a shift", ast.RShift: "a shift", ast.Is: "'is'", ast.IsNot: "'is not'",
          ast.JoinedStr: "an f-string", ast.MatMult: "a matrix product (@)"}


def _refuse(where: str, why: str, columns: Iterable[object]) -> InputError:
    return InputError(f"bad --where {where!r}: {why} (a condition takes the columns "
                      f"{', '.join(map(str, columns))}, numbers, 'text', comparisons, in [...], "
                      f"+ - * / // %, and, or, not, parentheses)")


def named(where: str) -> set[str]:
    """The names a condition reads (its columns, if it is one; nothing if it
    does not parse, which :func:`select` then says).

    >>> sorted(named("contract == 7 and not made or trump in ['H']"))
    ['contract', 'made', 'trump']
    """
    if len(where) > MAX_CHARS:
        return set()
    try:
        tree = ast.parse(where.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def select(df: pd.DataFrame, where: str, unit: str = "record",
           columns: Sequence[str] | None = None) -> pd.Series:
    """The rows of ``df`` where the condition ``where`` is true, as a boolean
    Series (an InputError names what is wrong with a condition: a name that is
    not a column, a construct outside the language, a column compared with a
    value it never holds, a value that is not true or false for each row,
    each ``unit``).  ``columns``: every column of the records, where ``df``
    holds only those the condition reads (:func:`named`), for the messages."""
    columns = list(df.columns) if columns is None else list(columns)
    if len(where) > MAX_CHARS:
        raise _refuse(where[:40] + "...", f"a condition is at most {MAX_CHARS:,} characters",
                      columns)
    if "@" in where:
        raise _refuse(where, "'@' names something outside the records", columns)
    try:
        tree = ast.parse(where.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        why = e.msg if isinstance(e, SyntaxError) else str(e) or type(e).__name__
        raise _refuse(where, f"not a condition ({why.splitlines()[0] if why else 'syntax'})",
                      columns) from None
    ev = _Evaluator(df, where, columns)
    with np.errstate(all="ignore"):     # x / 0 is inf or nan, as in pandas: not an error
        value = ev.eval(tree.body, 0)
    if isinstance(value, np.ndarray) and value.shape == (len(df),) and value.dtype == bool:
        return pd.Series(value, index=df.index)
    raise _refuse(where, f"a condition must be true or false for each {unit} (e.g. "
                  "\"contract == 7 and not made\"), and this is not", columns)


class _Evaluator:
    """The checked tree evaluated on the columns (numpy arrays)."""

    def __init__(self, df: pd.DataFrame, where: str, columns: list[str]) -> None:
        self.df, self.where, self.columns = df, where, columns
        self.held = set(df.columns)

    def fail(self, why: str) -> InputError:
        return _refuse(self.where, why, self.columns)

    # a column (an array) or a constant (a number, a text)
    def eval(self, node: ast.AST, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} deep")
        d = depth + 1
        if isinstance(node, ast.Name):
            if node.id not in self.held:
                raise self.fail(f"{node.id!r} is not a column of the records")
            return self.df[node.id].to_numpy()
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, (bool, float, str)):
                return v
            if isinstance(v, int):
                if not -(2 ** 63) <= v < 2 ** 63:
                    raise self.fail(f"the number {str(v)[:20]}... is too large")
                return v
            raise self.fail(f"{type(v).__name__} values are not part of a condition")
        if isinstance(node, ast.BoolOp):
            parts = [self._bool(self.eval(v, d)) for v in node.values]
            join = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            out = parts[0]
            for p in parts[1:]:
                out = join(out, p)
            return out
        if isinstance(node, ast.UnaryOp):
            value = self.eval(node.operand, d)
            if isinstance(node.op, ast.Not):
                return np.logical_not(self._bool(value))
            if type(node.op) in _SIGN:
                return _SIGN[type(node.op)](self._number(value))
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            return _ARITH[type(node.op)](self._number(self.eval(node.left, d)),
                                         self._number(self.eval(node.right, d)))
        if isinstance(node, ast.Compare):
            compared: np.ndarray | None = None
            left, left_node = self.eval(node.left, d), node.left
            right: Any
            for op, right_node in zip(node.ops, node.comparators):
                if isinstance(op, (ast.In, ast.NotIn)):
                    right = self._list(right_node, d)
                    for value in right:
                        self._comparable(left_node, left, None, value, exact=True)
                    hit = np.isin(left, right)
                    step = hit if isinstance(op, ast.In) else np.logical_not(hit)
                    right = None
                elif type(op) in _COMPARE:
                    right = self.eval(right_node, d)
                    self._comparable(left_node, left, right_node, right,
                                     exact=isinstance(op, (ast.Eq, ast.NotEq)))
                    try:
                        step = _COMPARE[type(op)](left, right)
                    except TypeError:
                        raise self.fail("it compares values of different kinds "
                                        "(a number with text?)") from None
                else:
                    raise self.fail(f"{_WORDS.get(type(op), type(op).__name__)} is not "
                                    f"part of a condition")
                step = np.asarray(step)
                compared = step if compared is None else np.logical_and(compared, step)
                left, left_node = right, right_node
            return compared
        raise self.fail(f"{_WORDS.get(type(node), type(node).__name__)} is not part of a "
                        f"condition" if not isinstance(node, (ast.BinOp, ast.UnaryOp)) else
                        f"{_WORDS.get(type(node.op), type(node.op).__name__)} is not part of "
                        f"a condition")

    def _comparable(self, a_node: ast.AST, a: Any, b_node: ast.AST | None, b: Any,
                    exact: bool) -> None:
        """Refuse a comparison that can never hold, whatever the records say:
        text with a number, or (``exact``: ==, !=, in) a column with a value
        it never holds."""
        for node, other in ((a_node, b), (b_node, a)):
            if isinstance(node, ast.Name) and not isinstance(other, np.ndarray):
                why = self._never(node.id, other, exact)
                if why is not None:
                    raise self.fail(why)
        if (_kind(a) == "text") != (_kind(b) == "text"):
            raise self.fail("it compares text with a number: they are never equal and "
                            "have no order")

    def _never(self, name: str, value: Any, exact: bool) -> str | None:
        """Why the column ``name`` never compares with the value ``value``, or None."""
        col = self.df[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            known = [str(c) for c in col.cat.categories]
            if not isinstance(value, str) or (exact and value not in known):
                shown = ", ".join(repr(c) for c in known[:_SHOWN])
                more = ", ..." if len(known) > _SHOWN else ""
                return (f"{name} holds one of {shown}{more} (in quotes), never {value!r}")
        elif pd.api.types.is_bool_dtype(col.dtype):
            if isinstance(value, str) or (exact and value not in (0, 1)):
                return f"{name} is true or false (True, False), never {value!r}"
        elif pd.api.types.is_numeric_dtype(col.dtype):
            if isinstance(value, str):
                return f"{name} holds numbers, never the text {value!r}"
            if (exact and pd.api.types.is_integer_dtype(col.dtype) and isinstance(value, float)
                    and not value.is_integer()):
                return f"{name} holds whole numbers, never {value!r}"
        elif not isinstance(value, str):
            return f"{name} holds text (in quotes), never the number {value!r}"
        return None

    def _list(self, node: ast.AST, depth: int) -> list[Any]:
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise self.fail("'in' takes a list of values, as in contract in [5, 6]")
        values = [self.eval(e, depth + 1) for e in node.elts]
        if any(isinstance(v, np.ndarray) for v in values):
            raise self.fail("the list after 'in' holds values, not columns")
        return values

    def _bool(self, value: object) -> np.ndarray:
        if isinstance(value, np.ndarray):
            if value.dtype != bool:
                raise self.fail("and, or and not take conditions (true or false), not "
                                "numbers")
            return value
        if isinstance(value, bool):
            return np.full(len(self.df), value)
        raise self.fail("and, or and not take conditions (true or false), not numbers")

    def _number(self, value: np.ndarray | float | str) -> np.ndarray | np.float64 | np.int64:
        if isinstance(value, np.ndarray):
            if not (np.issubdtype(value.dtype, np.number) or value.dtype == bool):
                raise self.fail("arithmetic takes numbers, not text")
            return value.astype(np.int64) if value.dtype == bool else value
        if isinstance(value, str):
            raise self.fail("arithmetic takes numbers, not text")
        return np.float64(value) if isinstance(value, float) else np.int64(value)


def _kind(value: object) -> str:
    """``"text"``, ``"bool"`` or ``"number"``: what a column or a constant holds."""
    if isinstance(value, np.ndarray):
        if value.dtype == bool:
            return "bool"
        return "number" if np.issubdtype(value.dtype, np.number) else "text"
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    return "text" if isinstance(value, str) else "number"
