"""A data frame's rows, for the code that reads tables one row at a time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd


def rows_of(frame: pd.DataFrame) -> Iterator[Any]:
    """``frame.itertuples()``: each row a named tuple with the index first and
    then one field per column.  The fields are typed ``Any``: a column's dtype is
    known only when the frame is built, and pandas-stubs types every field of
    ``itertuples`` as the union of all the scalars pandas holds, which no
    arithmetic accepts.

    >>> [(r.a, r.b) for r in rows_of(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}))]
    [(1, 'x'), (2, 'y')]
    """
    return frame.itertuples()
