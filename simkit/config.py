"""Frozen, self-validating configs for rules and policy parameters.

A game declares its rules (or a policy its parameters) as a frozen dataclass
deriving from :class:`Config`, each field made with :func:`option`, which
records the accepted values and a one-line description.  Values are checked in
``__post_init__``; a bad one raises :class:`~simkit.errors.InputError` naming the
key, the value and what is accepted.  Configs load from TOML files and from
``key=value`` strings (``--set`` on the command line).
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from typing import Any

from simkit.errors import InputError


def option(default, doc: str, *, choices=None, lo=None, hi=None):
    """A config field with its default, description and accepted values."""
    return dataclasses.field(default=default, metadata=dict(
        doc=doc, choices=tuple(choices) if choices else None, lo=lo, hi=hi))


def _accepted(f) -> str:
    m = f.metadata
    if m.get("choices"):
        return "one of " + ", ".join(str(c) for c in m["choices"])
    if f.type in (bool, "bool"):
        return "true or false"
    lo, hi = m.get("lo"), m.get("hi")
    kind = "an integer" if f.type in (int, "int") else "a number"
    if lo is not None and hi is not None:
        return f"exactly {lo}" if lo == hi else f"{kind} from {lo} to {hi}"
    if lo is not None:
        return f"{kind} >= {lo}"
    return kind


def _coerce(f, value, what: str):
    """Convert ``value`` (from TOML or text) to the field's type or raise InputError."""
    ftype = f.type if isinstance(f.type, str) else f.type.__name__
    bad = InputError(f"bad value {value!r} for {what} {f.name!r}: expected {_accepted(f)}")
    if ftype == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "yes", "1", "false", "no", "0"):
            return value.lower() in ("true", "yes", "1")
        raise bad
    if ftype == "int":
        if isinstance(value, bool):
            raise bad
        if isinstance(value, int):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            raise bad from None
    if ftype == "float":
        if isinstance(value, bool):
            raise bad
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise bad from None
        if not math.isfinite(number):      # NaN would slip past every range check
            raise bad
        return number
    if ftype == "str":
        return str(value).strip().lower()
    raise TypeError(f"unsupported config field type {ftype}")


@dataclasses.dataclass(frozen=True)
class Config:
    """Base for frozen configs; subclasses are frozen dataclasses of options."""

    what = "setting"   # used in messages: "rule", "heuristic parameter", ...

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = _coerce(f, getattr(self, f.name), self.what)
            object.__setattr__(self, f.name, value)
            m = f.metadata
            ok = True
            if m.get("choices") is not None:
                ok = value in m["choices"]
            if m.get("lo") is not None and value < m["lo"]:
                ok = False
            if m.get("hi") is not None and value > m["hi"]:
                ok = False
            if not ok:
                raise InputError(f"bad value {value!r} for {self.what} {f.name!r}: "
                                 f"expected {_accepted(f)}")
        self.check()

    def check(self) -> None:
        """Cross-field checks; override where fields constrain each other."""

    @classmethod
    def keys(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def build(cls, values: dict[str, Any] | None = None, base: "Config | None" = None):
        """A config from ``base`` (or the defaults) with ``values`` applied.

        Unknown keys are rejected with the list of accepted keys.
        """
        values = dict(values or {})
        unknown = [k for k in values if k not in cls.keys()]
        if unknown:
            raise InputError(f"unknown {cls.what} {unknown[0]!r}: accepted keys are "
                             + ", ".join(cls.keys()))
        start = dataclasses.asdict(base) if base is not None else {}
        start.update(values)
        return cls(**start)

    def replace(self, **values):
        return type(self).build(values, base=self)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def describe(cls) -> list[tuple[str, str, str, str]]:
        """Rows of (key, default, accepted values, description)."""
        rows = []
        for f in dataclasses.fields(cls):
            rows.append((f.name, str(f.default).lower() if isinstance(f.default, bool)
                         else str(f.default), _accepted(f), f.metadata["doc"]))
        return rows


def parse_assignments(items: list[str] | None, what: str = "--set") -> dict[str, str]:
    """Turn ``["key=value", "a=1,b=2"]`` into a dict; a malformed item is an InputError."""
    out: dict[str, str] = {}
    for item in items or []:
        for part in item.split(","):
            if not part.strip():
                continue
            key, sep, value = part.partition("=")
            if not sep or not key.strip():
                raise InputError(f"bad {what} item {part!r}: expected key=value")
            out[key.strip()] = value.strip()
    return out


def load_toml(path: str) -> dict[str, Any]:
    """Read a TOML file; an unreadable or malformed file is an InputError."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as e:
        raise InputError(f"cannot read rules file {path!r}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"rules file {path!r} is not valid TOML: {e}") from None


def make_rules(cls: type, presets: dict[str, dict], game: str, preset: str = "seed",
               file: str | None = None, overrides: dict | None = None,
               players: int | None = None) -> Config:
    """A game's rules from a named preset, then a TOML file (its ``[rules]`` table or
    top level), then ``key=value`` overrides, then ``players``."""
    if preset not in presets:
        raise InputError(f"unknown {game} preset {preset!r}: expected one of " + ", ".join(presets))
    values = dict(presets[preset])
    if file:
        data = load_toml(file)
        section = data.get("rules", data)
        if not isinstance(section, dict):
            raise InputError(f"rules file {file!r}: 'rules' must be a table of rule values "
                             f"([rules] with key = value lines), got {section!r}")
        values.update(section)
    values.update(overrides or {})
    if players is not None:
        values["players"] = players
    return cls.build(values)


def resolve_rules(rules, players: int | None, cls: type, make, presets: dict, game: str):
    """Rules from a ``cls`` instance, a preset name, a dict of rule values or None
    (the seed's), with ``players`` (if given) replacing the count."""
    if isinstance(rules, cls):
        return rules if players is None or players == rules.players else rules.replace(players=players)
    if rules is None or isinstance(rules, str):
        return make(rules or "seed", players=players)
    if isinstance(rules, dict):
        return make(overrides=rules, players=players)
    raise InputError(f"bad rules {rules!r}: expected a preset name ({', '.join(presets)}), "
                     f"a dict of rule values or {cls.__name__}")
