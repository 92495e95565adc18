"""Named, parameterised policies: parsing ``NAME[:key=value,...]`` specs per seat.

Each game lists its policies in a registry ``{name: ParamsClass}`` where the
class is a :class:`~simkit.base.config.Config` of the policy's parameters (an empty
one for ``random``).  A table takes one spec for every seat or one per seat.

A params class says which decision code its policy runs in the kernels
(``KIND``: 0 random, 1 the heuristic, 2 a searching policy); :func:`vectors` turns a table's
policies into the kinds and the parameter matrix the kernels read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simkit.base.config import Config, parse_assignments, vector
from simkit.base.errors import InputError

#: The decision codes the kernels switch on (a params class's ``KIND``):
#: uniform random, a game's heuristic, a policy that searches (Pepper's expert).
RANDOM, HEURISTIC, EXPERT = 0, 1, 2


@dataclasses.dataclass(frozen=True)
class RandomParams(Config):
    """``random`` has no parameters: uniform over legal actions (every game)."""

    what = "random-policy parameter"
    KIND = RANDOM


@dataclass(frozen=True)
class Policy:
    """A policy name with its validated parameters."""

    name: str
    params: Config

    def text(self) -> str:
        """The full spec, every parameter spelled out (what manifests store)."""
        vals = ",".join(f"{k}={v}" for k, v in self.params.as_dict().items())
        return self.name + (":" + vals if vals else "")

    def label(self) -> str:
        """The spec with only the parameters that differ from their defaults
        (``heuristic``, ``heuristic:aggression=-1.0``): for people to read."""
        default = type(self.params)().as_dict()
        vals = ",".join(f"{k}={v}" for k, v in self.params.as_dict().items()
                        if v != default[k])
        return self.name + (":" + vals if vals else "")


def parse_policy(spec: str | Policy, registry: Mapping[str, type[Config]],
                 named: Mapping[str, str] | None = None) -> Policy:
    """``"heuristic:aggression=0.5"`` -> Policy; unknown names and keys are InputErrors.

    ``named`` maps a game's named settings to specs (``"classic"`` ->
    ``"heuristic:cover=false"``): a named setting is its spec, with any
    ``key=value`` given after it (``classic:aggression=1``) applied on top.
    """
    if isinstance(spec, Policy):
        return spec
    named = named or {}
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    values = {}
    if name in named:
        name, _, base = named[name].partition(":")
        values = parse_assignments([base], "policy parameter")
    if name not in registry:
        raise InputError(f"unknown policy {name!r}: expected one of "
                         + ", ".join([*registry, *named]))
    values.update(parse_assignments([rest], "policy parameter"))
    return Policy(name, registry[name].build(values))


def seat_policies(specs: Any, players: int, registry: Mapping[str, type[Config]], default: str,
                  named: Mapping[str, str] | None = None) -> tuple[Policy, ...]:
    """One Policy per seat from ``None``, one spec (every seat) or one spec per seat."""
    if specs is None or (not isinstance(specs, str) and len(specs) == 0):
        specs = [default]
    if isinstance(specs, (str, Policy)):
        specs = [specs]
    specs = list(specs)
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise InputError(f"got {len(specs)} policies for {players} players: "
                         f"give one for every seat or one per seat")
    return tuple(parse_policy(s, registry, named) for s in specs)


def policies_maker(registry: Mapping[str, type[Config]], default: str, players: int | None = None,
                   named: Mapping[str, str] | None = None) -> Callable[..., tuple[Policy, ...]]:
    """A game's ``make_policies(specs, players)``: :func:`seat_policies` over its
    registry and named settings, ``default`` at every seat when no spec is
    given; ``players`` is the count a game with one table size need not be told."""
    fixed = players

    def make(specs: Any, players: int | None = fixed) -> tuple[Policy, ...]:
        if players is None:
            raise TypeError("make_policies needs the number of players")
        return seat_policies(specs, players, registry, default, named)
    make.__doc__ = f"One validated Policy per seat (default: {default} at every seat)."
    return make


def vectors(policies: Sequence[Policy], layout_cls: type[Config]) -> tuple[np.ndarray, np.ndarray]:
    """``(kinds, params)`` for the kernels: each seat's decision code (its params
    class's ``KIND``) and a row of ``layout_cls``'s fields as integers
    (:func:`simkit.base.config.vector`).  A policy fills the fields it has; the
    others keep ``layout_cls``'s defaults (what ``random`` plays with where a
    game's random player still needs them, e.g. Burraco's greedy melding)."""
    kinds = np.array([p.params.KIND for p in policies], dtype=np.int64)
    rows = []
    for p in policies:
        keys = layout_cls.keys()
        own = {k: v for k, v in p.params.as_dict().items() if k in keys}
        rows.append(vector(layout_cls.build(own)))
    return kinds, np.array(rows, dtype=np.int64).reshape(len(policies), -1)


def by_players(values: Mapping[int, float], players: int) -> np.ndarray:
    """A constant that depends on the table size (``{players: value}``, such as a
    heuristic's tuned offsets) as the array a kernel indexes by the number of
    players, ``0 .. players``, in whole hundredths (0 where none is given)."""
    return np.array([round(100 * values.get(n, 0.0)) for n in range(players + 1)], np.int64)
