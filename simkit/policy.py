"""Named, parameterised policies: parsing ``NAME[:key=value,...]`` specs per seat.

Each game lists its policies in a registry ``{name: ParamsClass}`` where the
class is a :class:`~simkit.config.Config` of the policy's parameters (an empty
one for ``random``).  A table takes one spec for every seat or one per seat.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from simkit.config import Config, parse_assignments
from simkit.errors import InputError


@dataclasses.dataclass(frozen=True)
class RandomParams(Config):
    """``random`` has no parameters: uniform over legal actions (every game)."""

    what = "random-policy parameter"


@dataclass(frozen=True)
class Policy:
    """A policy name with its validated parameters."""

    name: str
    params: Config

    def text(self) -> str:
        vals = ",".join(f"{k}={v}" for k, v in self.params.as_dict().items())
        return self.name + (":" + vals if vals else "")


def parse_policy(spec: "str | Policy", registry: dict[str, type]) -> Policy:
    """``"heuristic:aggression=0.5"`` -> Policy; unknown names and keys are InputErrors."""
    if isinstance(spec, Policy):
        return spec
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in registry:
        raise InputError(f"unknown policy {name!r}: expected one of " + ", ".join(registry))
    return Policy(name, registry[name].build(parse_assignments([rest], "policy parameter")))


def seat_policies(specs, players: int, registry: dict[str, type],
                  default: str) -> tuple[Policy, ...]:
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
    return tuple(parse_policy(s, registry) for s in specs)
