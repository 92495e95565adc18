"""Folders simkit writes into and replaces files in (``report --out``,
``compare --out``): each is marked as simkit's by a small text file, and
``--out`` naming a folder that holds other files without that mark (a
user's own folder, ``/``, a run or a tune) is refused before any work, so
nothing of the user's is replaced."""

from __future__ import annotations

import os
import pathlib

from simkit.base.errors import InputError
from simkit.runs import store

#: The names of others' files a refusal quotes.
_SHOWN = 3
#: What a tune's folder holds (simkit.tune.MANIFEST): a tune's, never a report's.
_TUNE_MANIFEST = "_tune.json"
#: What an adaptation's folder holds (simkit.lab.adapt): compare --adapt --out's own.
_ADAPTATION = "_adapt.json"


def _made_by_compare(entry: os.DirEntry[str]) -> bool:
    """An adaptation folder compare --adapt --out wrote before folders were marked."""
    return entry.is_dir() and os.path.isfile(os.path.join(entry.path, _ADAPTATION))


def check_own(out: store.StrPath, marker: str, command: str) -> pathlib.Path:
    """The folder ``out`` that ``command`` writes into, checked (nothing is
    changed): it may be made here, it is not a simkit run or tune, and it is
    new, empty, or simkit's own (it holds ``marker``)."""
    where = store.check_place(out)
    for kind, name in (("run", store.RUN_MANIFEST), ("tune", _TUNE_MANIFEST)):
        if (where / name).is_file():
            raise InputError(f"--out '{where}' is a simkit {kind} directory: {command} "
                             f"written into it would spoil the {kind}; choose another --out")
    if where.is_dir() and not (where / marker).is_file():
        with os.scandir(where) as entries:
            others = sorted(e.name for e in entries if not _made_by_compare(e))
        if others:
            shown = ", ".join(repr(n) for n in others[:_SHOWN])
            raise InputError(f"--out '{where}' holds files simkit did not write there ({shown}"
                             f"{', ...' if len(others) > _SHOWN else ''}): simkit {command} "
                             f"writes only into a new or empty directory, or one it wrote "
                             f"before (holding {marker}); choose another --out")
    return where


def mark(where: pathlib.Path, marker: str, text: str) -> None:
    """Mark the folder ``where`` as simkit's (``marker`` holding ``text``), once;
    written whole or not at all."""
    if (where / marker).is_file():
        return
    tmp = where / f".{marker}.{os.getpid()}.partial"
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, where / marker)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
