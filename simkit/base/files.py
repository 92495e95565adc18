"""Reading the files a user names: one bounded reader for all of them.

Rules files, records and the JSON a run or a tune keeps are read by
:func:`read_text`: regular files only (a directory, a FIFO, which would wait
forever for a writer, or a device such as ``/dev/zero``, which never ends,
is refused before it is opened), at most a stated number of bytes, UTF-8
(a byte-order mark allowed).  Every failure is one :class:`InputError`
naming the file and what is wrong.  JSON is parsed by :func:`loads_json`
(and read by :func:`read_json`): a few kilobytes of brackets nested
thousands deep exhaust Python's parser (a RecursionError), and are refused
as malformed JSON is.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any

from simkit.base.errors import InputError

#: The largest rules file read (a rules file is a few hundred bytes).
MAX_RULES_BYTES = 1 << 20
#: The largest JSON file of simkit's own read (a run's manifest, a tune's result).
MAX_JSON_BYTES = 64 << 20


def _kind(mode: int) -> str | None:
    """What a file that is not a regular file is, in words (None: a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "it is a directory"
    if stat.S_ISFIFO(mode):
        return "it is a pipe (FIFO), not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "it is a device, not a file"
    if stat.S_ISSOCK(mode):
        return "it is a socket, not a file"
    return "it is not a regular file"


def _say(size: int) -> str:
    return f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"


def read_bytes(path: str, what: str, most: int, *, stdin: bool = False) -> bytes:
    """The bytes of the regular file ``path`` (``-``: standard input, when
    ``stdin``), at most ``most``; else an InputError ``cannot read WHAT: why``.
    ``what`` names the file as the message should, e.g. ``"record 'a.txt'"``."""
    try:
        if stdin and path == "-":
            if sys.stdin is None or sys.stdin.closed:
                raise InputError(f"cannot read {what}: it is closed")
            data = sys.stdin.buffer.read(most + 1)
        else:
            if not str(path).strip():
                raise InputError(f"cannot read {what}: the path is empty")
            kind = _kind(os.stat(path).st_mode)
            if kind is not None:
                raise InputError(f"cannot read {what}: {kind}")
            with open(path, "rb") as f:
                data = f.read(most + 1)
    except InputError:
        raise                   # said already, once (an InputError is a ValueError too)
    except FileNotFoundError:
        raise InputError(f"cannot read {what}: no such file") from None
    except PermissionError:
        raise InputError(f"cannot read {what}: permission denied") from None
    except (OSError, ValueError) as e:      # a name too long, a symlink loop, a NUL...
        reason = getattr(e, "strerror", None) or str(e) or type(e).__name__
        raise InputError(f"cannot read {what}: {reason}") from None
    if len(data) > most:
        raise InputError(f"cannot read {what}: larger than {_say(most)}, far more than any "
                         f"such file")
    return data


def read_text(path: str, what: str, most: int, *, stdin: bool = False) -> str:
    """:func:`read_bytes` as UTF-8 text (a byte-order mark allowed)."""
    data = read_bytes(path, what, most, stdin=stdin)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"cannot read {what}: not UTF-8 text") from None


#: What a text nested too deeply for Python's parsers is refused with.
TOO_DEEP = "nested too deeply (thousands of brackets inside each other)"


def loads_json(text: str) -> Any:
    """``json.loads(text)``, with JSON nested too deeply for Python's parser (a
    RecursionError) a ValueError like any other malformed JSON, whose message
    is one line.

    >>> loads_json("[" * 100_000 + "]" * 100_000)
    Traceback (most recent call last):
    ...
    ValueError: nested too deeply (thousands of brackets inside each other)
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
    except ValueError as e:
        raise ValueError((str(e).splitlines() or [type(e).__name__])[0]) from None


def read_json(path: str, what: str, most: int) -> Any:
    """The JSON value in the file ``path`` (:func:`read_text`, then
    :func:`loads_json`); malformed or too deeply nested JSON is an InputError
    ``cannot read WHAT: not readable JSON (why)``."""
    text = read_text(path, what, most)
    try:
        return loads_json(text)
    except ValueError as e:
        raise InputError(f"cannot read {what}: not readable JSON ({e})") from None
