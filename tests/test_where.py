"""``--where`` (simkit/records/where.py): the conditions it takes give pandas' answers,
and no text reaches anything but the columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.base.errors import InputError
from simkit.records.where import select

DF = pd.DataFrame({"contract": np.array([1, 5, 7, 7, 0], dtype=np.int8),
                   "made": [True, False, True, False, False],
                   "score_0": np.array([3, -6, 12, -12, 0], dtype=np.int16),
                   "trump": ["H", "S", "N", "C", "H"]})


@pytest.mark.parametrize("where", [
    "contract == 7 and not made", "contract in [1, 5] or score_0 < -6",
    "2 <= contract < 7", "not (made or contract == 0)", "score_0 * 2 + 1 > 5",
    "score_0 // 4 == -3", "score_0 % 5 == 2", "-score_0 > 5", "trump == 'H'",
    "trump not in ['N', 'S']", "contract != 7", "score_0 / 4 >= 0.75", "made == True",
])
def test_the_same_rows_as_pandas(where):
    assert select(DF, where).tolist() == DF.eval(where).tolist()


#: Names a condition might try to reach: the module's, builtins, pandas'.
OUTSIDE = ["os", "pd", "np", "__import__", "eval", "open", "globals", "select", "DF",
           "__builtins__", "sys", "exit"]
PIECES = ["contract", "made", "score_0", "trump", *OUTSIDE, "1", "7", "'H'", "(", ")", "[", "]",
          ",", ".", "==", "<", "+", "*", "and", "or", "not", "in", "@", "lambda", ":", "**",
          "__class__", "system", "'id'", "if", "else", ";", "=", " "]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12))
def test_no_text_reaches_a_name_outside_the_columns(pieces):
    """Whatever the text, the answer is a boolean per row or one InputError;
    text naming anything outside the columns is always refused."""
    where = " ".join(pieces)
    refused = None
    try:
        out = select(DF, where)
    except InputError as e:
        refused = str(e)
    if refused is not None:
        assert refused.startswith("bad --where")
        assert "\n" not in refused
        return
    assert out.dtype == bool
    assert len(out) == len(DF)
    assert not any(p in OUTSIDE or p in ("@", ".", "lambda", "**") for p in pieces), where
