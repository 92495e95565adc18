"""The ``key: value`` lines of text records and logs (seeds/records.md): one
reader for the shared header and every game's own lines.  It imports nothing
of simkit but the errors, so the reference engines may use it."""

from __future__ import annotations

from typing import Iterable

from simkit.errors import InputError


def key_values(lines: Iterable[str]) -> list[tuple[str, str, str]]:
    """Each line that is not blank or a ``#`` comment as ``(key, value, line)``:
    the key lower case with its spaces collapsed (``"Trick  3"`` is ``"trick
    3"``), the value and the line stripped.  A line without ``:`` or with an
    empty key is an InputError naming it."""
    out = []
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key = " ".join(key.lower().split())
        if not sep or not key:
            raise InputError(f"bad record line {line!r}: expected 'key: value'")
        out.append((key, value.strip(), line))
    return out
