"""The variants of a comparison, as given: ``--variant LABEL:key=value,...``,
a preset's name, and ``--sweep KEY=V1,V2,...`` (repeatable: their grid).

:func:`check_variants` turns what the user gave into checked ``(label,
overrides)`` pairs, the base first; :class:`Variant` is one as played.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence
from typing import Any

from simkit.base.errors import InputError
from simkit.engine import Game
from simkit.policy import Policy

MAX_VARIANTS = 8
_LABEL = re.compile(r"^[A-Za-z0-9_.+-]+$")
_FORM = ("LABEL, LABEL:key=value[,key=value...] or a preset's name, e.g. A:, "
         "B:all_pass=stick,auction=one_lap or bid-penalty")
#: The longest label a variant takes (it heads the tables' columns).
MAX_LABEL = 40


def _check(game: Game, label: str, overrides: dict[str, Any], shown: object,
           swept: bool = False) -> tuple[str, dict[str, Any]]:
    """Validate a label and rule overrides (``shown``: the variant as the user gave
    it; ``swept``: a sweep's own ``key=value`` label)."""
    if not swept and (not isinstance(label, str) or not _LABEL.match(label)):
        raise InputError(f"bad --variant {shown!r}: the label must be letters, digits or _.+- "
                         f"before the ':'; expected {_FORM}")
    if not swept and len(label) > MAX_LABEL:
        raise InputError(f"bad --variant {str(shown)[:60]!r}...: the label has {len(label):,} "
                         f"characters; give at most {MAX_LABEL}")
    if "players" in overrides:
        raise InputError(f"bad --variant {shown!r}: the player count is the same for every "
                         f"variant; set it with --players")
    try:
        game.make_rules(overrides=overrides)      # unknown keys and bad values raise here
    except InputError as e:
        raise InputError(f"bad --variant {shown!r}: {e}") from None
    return label, dict(overrides)


def _overrides(game: Game, text: str, rest: str) -> dict[str, Any]:
    """The rule changes after a variant's ``:``: ``key=value`` items, and any
    preset's name (its values first, then the items that follow it)."""
    overrides: dict[str, Any] = {}
    given: set[str] = set()
    for part in rest.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep and key in game.presets and key != "seed":
            overrides.update(game.presets[key])
            continue
        if not sep or not key or not value:
            hint = _near_preset(game, part.strip())
            raise InputError(f"bad --variant {text!r}: {part.strip()!r} is not key=value nor a "
                             f"preset's name{hint}; expected {_FORM}")
        if key in given:
            raise InputError(f"bad --variant {text!r}: rule {key!r} is given twice")
        given.add(key)
        overrides[key] = value
    return overrides


def _near_preset(game: Game, word: str) -> str:
    """A hint naming the game's presets (the closest first), for a word that is
    neither ``key=value`` nor a preset's name."""
    import difflib

    names = [n for n in game.presets if n != "seed"]
    close = difflib.get_close_matches(word, names, n=1)
    return (f" (did you mean the preset {close[0]!r}?)" if close
            else f" (presets: {', '.join(names)})" if names else "")


def parse_variant(game: Game, text: str) -> tuple[str, dict[str, Any]]:
    """``"B:all_pass=stick,auction=one_lap"`` -> ``("B", {"all_pass": "stick", ...})``.

    ``"A"`` or ``"A:"`` is the seed's rules; a preset's name alone
    (``"bid-penalty"``) is that preset, labelled with its name, and after the
    ``:`` it gives its values to the items that follow (``"C:bid-penalty,
    target=50"``).  Keys and values are checked with the game's rules;
    ``players`` is set for every variant at once (``--players``), not per
    variant.

    >>> from simkit import games
    >>> parse_variant(games.get("pepper"), "bid-penalty")
    ('bid-penalty', {'fail': 'bid'})
    """
    if not isinstance(text, str):
        raise InputError(f"bad --variant {text!r}: expected {_FORM}")
    label, colon, rest = text.strip().partition(":")
    label = label.strip()
    if not colon and label in game.presets and label != "seed":
        return _check(game, label, dict(game.presets[label]), text)
    return _check(game, label, _overrides(game, text, rest), text)


_SWEEP_FORM = "KEY=V1,V2,... (at least two values), e.g. kubwa_stake=1,2,3,4"


def parse_sweep(game: Game, text: str) -> tuple[str, list[str]]:
    """``"kubwa_stake=1,2,3"`` -> ``("kubwa_stake", ["1", "2", "3"])``, checked: a
    rule the game has, at least two values, each accepted, no two the same
    value (``true`` and ``yes`` are one)."""
    if not isinstance(text, str):
        raise InputError(f"bad --sweep {text!r}: expected {_SWEEP_FORM}")
    key, sep, values = text.strip().partition("=")
    key = key.strip()
    items = [v.strip() for v in values.split(",")]
    if not sep or not key or not all(items):
        raise InputError(f"bad --sweep {text!r}: expected {_SWEEP_FORM}")
    if len(items) < 2:
        raise InputError(f"bad --sweep {text!r}: a sweep needs at least two values; expected "
                         f"{_SWEEP_FORM}")
    if key == "players":
        raise InputError(f"bad --sweep {text!r}: the player count is the same for every "
                         "variant; set it with --players")
    seen: dict[Any, str] = {}
    for v in items:
        try:
            value = game.make_rules(overrides={key: v}).as_dict()[key]
        except InputError as e:
            raise InputError(f"bad --sweep {text!r}: {e}") from None
        if value in seen:
            raise InputError(f"bad --sweep {text!r}: {seen[value]!r} and {v!r} are the same "
                             "value; give each value once")
        seen[value] = v
    return key, items


def sweep_keys(sweeps: str | Sequence[str] | None) -> list[str]:
    """The rules the sweeps vary, as given (their keys, checked elsewhere)."""
    if sweeps is None or isinstance(sweeps, str):
        sweeps = [] if not sweeps else [sweeps]
    return [str(t).strip().partition("=")[0].strip() for t in sweeps]


def _grid(game: Game, sweeps: Sequence[str],
          base: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """One variant per point of the sweeps' grid (their values crossed, the first
    sweep's slowest), labelled ``key=value[,key=value]``, each the ``base``
    rules with those values."""
    axes = [parse_sweep(game, t) for t in sweeps]
    keys = [k for k, _ in axes]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise InputError(f"--sweep {twice[0]!r} is given twice: give each rule one --sweep")
    out = []
    for point in itertools.product(*(values for _, values in axes)):
        values = dict(zip(keys, point))
        label = ",".join(f"{k}={v}" for k, v in values.items())
        out.append(_check(game, label, {**base, **values}, "--sweep " + " --sweep ".join(sweeps),
                          swept=True))
    return out


def check_variants(game: Game, variants: Any,
                   sweep: str | Sequence[str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The validated ``(label, overrides)`` of a comparison: the variants given
    (texts, or ``(label, dict)`` pairs), then the points of the sweeps' grid
    (``sweep``: one ``KEY=V1,V2,...`` or several, crossed; built on the first
    variant's rules, if any); 2 to :data:`MAX_VARIANTS` in all, the first
    being the base."""
    if variants is None or isinstance(variants, (str, tuple)):
        variants = [] if variants is None else [variants]
    out = []
    for v in variants:
        if isinstance(v, str):
            out.append(parse_variant(game, v))
        elif isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], dict):
            out.append(_check(game, v[0], v[1], v))
        else:
            raise InputError(f"bad variant {v!r}: expected {_FORM}")
    sweeps = [sweep] if isinstance(sweep, str) else list(sweep or [])
    if sweeps:
        grid = _grid(game, sweeps, out[0][1] if out else {})
        if len(out) + len(grid) > MAX_VARIANTS:
            raise InputError(f"the sweeps make {len(grid)} variants"
                             + (f" and {len(out)} more are given" if out else "")
                             + f": a comparison takes at most {MAX_VARIANTS} (each plays every "
                             "deal); sweep fewer values")
        out += grid
    if not 2 <= len(out) <= MAX_VARIANTS:
        raise InputError(f"compare needs 2 to {MAX_VARIANTS} variants (--variant A:... "
                         f"--variant B:..., or --sweep KEY=V1,V2,...), got {len(out)}")
    labels = [label for label, _ in out]
    twice = sorted({lab for lab in labels if labels.count(lab) > 1})
    if twice:
        raise InputError(f"two variants have the label {twice[0]!r}: give each its own")
    return out


#: The measures a sweep's table shows, one column each: a piece of the
#: measure's name (the first that matches, per piece) and the column's name.
HEADLINE = (("advantage (win rate minus", "first position's advantage"),
            ("equal shares", "balance: largest departure"),
            ("completion:", "completion"),
            ("per game: mean", "length"), ("per game (session): mean", "length"),
            ("lead changes per", "lead changes"), ("comeback rate", "comebacks"),
            ("contracts won, the dealer", "the dealer's contracts"),
            ("points per hand, the first player's team", "the first player's points"))


def sweep_table(labels: Sequence[str], overrides: Sequence[dict[str, Any]],
                keys: Sequence[str], design: Any) -> Any:
    """A sweep's table: one row per variant (as given), the swept rules' values,
    then per headline measure (:data:`HEADLINE`) its value with its interval
    and its finding against the base (``design``: the comparison's design
    table)."""
    import pandas as pd

    several = "vs" in design
    picked: dict[str, str] = {}
    for piece, name in HEADLINE:
        hit = next((m for m in dict.fromkeys(design["metric"]) if piece in m), None)
        if hit is not None and name not in picked.values():
            picked[hit] = name
    rows = []
    for i, (label, ov) in enumerate(zip(labels, overrides)):
        row: dict[str, Any] = {"variant": label, **{k: ov.get(k) for k in keys}}
        for metric, name in picked.items():
            mine = design[design["metric"] == metric]
            if i and several:
                mine = mine[mine["vs"] == label]
            if mine.empty:
                continue
            r = mine.iloc[0]
            side = "a" if i == 0 else "b"
            row.update({name: r[side], f"{name} low": r.get(f"{side}_low"),
                        f"{name} high": r.get(f"{side}_high"),
                        f"{name} finding": "base" if i == 0 else r.get("finding")})
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["measures"] = picked
    return out


def changes(overrides: dict[str, Any]) -> str:
    """A variant's rule changes as ``key=value`` text (``"seed rules"`` for none)."""
    return ",".join(f"{k}={v}" for k, v in overrides.items()) or "seed rules"


@dataclasses.dataclass(frozen=True)
class Variant:
    """One variant as played: its label, rule changes and rules, the policy of
    every seat, and its adaptation (None when its players were not adapted)."""

    label: str
    overrides: dict[str, Any]
    rules: Any
    policies: tuple[Policy, ...]
    adapted: dict[str, Any] | None = None

    def texts(self) -> list[str]:
        return [p.text() for p in self.policies]


