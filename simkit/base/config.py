"""Frozen, self-validating configs for rules and policy parameters.

A game declares its rules (or a policy its parameters) as a frozen dataclass
deriving from :class:`Config`, each field made with :func:`option`, which
records the accepted values and a one-line description.  Values are checked in
``__post_init__``; a bad one raises :class:`~simkit.base.errors.InputError` naming the
key, the value and what is accepted.  Configs load from TOML files and from
``key=value`` strings (``--set`` on the command line).
"""

from __future__ import annotations

import dataclasses
import enum
import math
import tomllib
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Self

import numpy as np

from simkit.base.errors import InputError


class Choice(enum.StrEnum):
    """The named values of a rule or policy option: each game writes one
    subclass per option in its ``rules.py`` or ``policies.py``.

    A config holds the member (``Auction.ONE_LAP``), which is the text a user
    writes and manifests record (a ``str``: ``"one_lap"``), so a typo in code is
    an AttributeError, not a silent false.  The kernels receive the member's
    :attr:`code`, its position in the class, and compare it with the members of
    :func:`codes` (``AuctionCode.ONE_LAP``).
    """

    @property
    def code(self) -> int:
        """The member's position in its class: what the kernels' vectors hold."""
        return list(type(self)).index(self)


def codes(*choices: type[Choice]) -> tuple[Any, ...]:
    """For each Choice, an IntEnum with its member names, valued by their
    :attr:`Choice.code`: the kernels' names for the option's values (numba
    reads IntEnum members as constants; it cannot compare text).  Each is
    named after its Choice (``AuctionCode``); typed Any, as mypy cannot see
    the members of a class made at run time."""
    # the functional API: the members are the Choice's own, whatever their number
    return tuple(enum.IntEnum(f"{c.__name__}Code", [(m.name, m.code) for m in c])
                 for c in choices)


def option(default: Any, doc: str, *,
           lo: float | None = None, hi: float | None = None, scale: int | None = None,
           span: float | tuple[float, float] | None = None) -> Any:
    """A config field with its default, description and accepted values.

    A default that is a :class:`Choice` member makes the option one of that
    Choice's values (in the order of their kernel codes).  ``scale`` (floats
    only) is what the value is multiplied by, and rounded, in the integer
    vector the kernels read (100: hundredths); ``span`` (a policy's numbers)
    how far either side of its value a search of players adapted to new rules
    looks, or ``(low, high)``: where it looks (:func:`simkit.lab.adapt.search_space`).
    """
    choices = type(default) if isinstance(default, Choice) else None
    return dataclasses.field(default=default, metadata={
        "doc": doc, "choices": choices, "lo": lo, "hi": hi, "scale": scale, "span": span})


def _accepted(f: dataclasses.Field[Any]) -> str:
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


def _coerce(f: dataclasses.Field[Any], value: Any, what: str) -> Any:
    """Convert ``value`` (from TOML or text) to the field's type or raise InputError."""
    ftype = f.type if isinstance(f.type, str) else f.type.__name__
    bad = InputError(f"bad value {value!r} for {what} {f.name!r}: expected {_accepted(f)}")
    kind = f.metadata.get("choices")
    if kind is not None:
        if isinstance(value, kind):
            return value
        try:
            return kind(str(value).strip().lower())
        except ValueError:
            raise bad from None
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
    #: Properties appended, in this order, to the fields in :func:`vector`
    #: (values the kernels need that follow from the fields, e.g. tricks per hand).
    DERIVED: ClassVar[tuple[str, ...]] = ()
    #: A policy's parameters: the decision code its kernel branches on
    #: (:data:`simkit.policy.RANDOM`, ...); declared by each policy's class.
    KIND: ClassVar[int]

    def __post_init__(self) -> None:
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
    def build(cls, values: Mapping[str, Any] | None = None, base: Config | None = None) -> Self:
        """A config from ``base`` (or the defaults) with ``values`` applied.

        Unknown keys are rejected with the list of accepted keys.
        """
        values = dict(values or {})
        keys = cls.keys()
        unknown = [k for k in values if k not in keys]
        if unknown:
            if not keys:
                raise InputError(f"{unknown[0]!r} is not a {cls.what}: there are none")
            raise InputError(f"unknown {cls.what} {unknown[0]!r}: accepted keys are "
                             + ", ".join(keys))
        start = dataclasses.asdict(base) if base is not None else {}
        start.update(values)
        return cls(**start)

    def replace(self, **values: Any) -> Self:
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


def _number(cfg: Config, f: dataclasses.Field[Any]) -> int:
    """One field as the integer a kernel reads: a choice's code, a bool as 0/1, a
    float times its ``scale``, rounded."""
    value = getattr(cfg, f.name)
    m = f.metadata
    if isinstance(value, Choice):
        return value.code
    if isinstance(value, float):
        if m.get("scale") is None:
            raise TypeError(f"float option {f.name!r} needs a scale to reach the kernels")
        return round(value * int(m["scale"]))
    return int(value)


def vector(cfg: Config) -> np.ndarray:
    """The config as the int64 vector the kernels read: every field in declaration
    order, then the ``DERIVED`` properties; :func:`layout` names the indices."""
    values = [_number(cfg, f) for f in dataclasses.fields(cfg)]
    values += [int(getattr(cfg, name)) for name in cfg.DERIVED]
    return np.array(values, dtype=np.int64)


def layout(cls: type[Config], name: str) -> type[enum.IntEnum]:
    """An IntEnum naming each index of :func:`vector` for configs of ``cls``:
    ``R.AUCTION`` is where the auction option sits in a rules vector.  numba
    reads the members as constants, so ``rules[R.AUCTION]`` costs nothing."""
    names = [f.name.upper() for f in dataclasses.fields(cls)] + [d.upper() for d in cls.DERIVED]
    return enum.IntEnum(name, names, start=0)  # type: ignore[return-value]


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
            key = key.strip()
            if key in out:
                raise InputError(f"{what} {key!r} is given twice ({key}={out[key]} and "
                                 f"{key}={value.strip()}): give it once")
            out[key] = value.strip()
    return out


def load_toml(path: str) -> dict[str, Any]:
    """Read a TOML rules file (a regular file of at most 1 MiB, UTF-8:
    :func:`simkit.base.files.read_text`); an unreadable or malformed file is an
    InputError."""
    from simkit.base.files import MAX_RULES_BYTES, TOO_DEEP, read_text

    if not str(path).strip():
        raise InputError("--rules '' names no file: give the path of a TOML rules file")
    text = read_text(path, f"rules file {path!r}", MAX_RULES_BYTES)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"rules file {path!r} is not valid TOML: {e}") from None
    except RecursionError:              # inline arrays or tables inside each other
        raise InputError(f"rules file {path!r} is not valid TOML: {TOO_DEEP}; a rules "
                         f"file holds key = value lines") from None
    except ValueError as e:             # e.g. an integer past Python's int-string limit
        raise InputError(f"rules file {path!r} holds a value simkit cannot read: "
                         f"{str(e)[:120]}") from None


def make_rules(cls: type[Config], presets: Mapping[str, Mapping[str, Any]], game: str,
               preset: str = "seed",
               file: str | None = None, overrides: dict[str, Any] | None = None,
               players: int | None = None) -> Config:
    """A game's rules from a named preset, then a TOML file (its ``[rules]`` table or
    top level), then ``key=value`` overrides, then ``players``."""
    if preset not in presets and str(preset).strip().lower() in presets:
        preset = str(preset).strip().lower()          # case is forgiven in names
    if preset not in presets:
        raise InputError(f"unknown {game} preset {preset!r}: expected one of " + ", ".join(presets))
    values = dict(presets[preset])
    if file is not None:
        data = load_toml(file)
        section = data.get("rules", data)
        if not isinstance(section, dict):
            raise InputError(f"rules file {file!r}: 'rules' must be a table of rule values "
                             f"([rules] with key = value lines), got {section!r}")
        outside = [k for k in data if k != "rules"] if "rules" in data else []
        if outside:
            raise InputError(f"rules file {file!r} has rule values both under [rules] and "
                             f"at the top level ({', '.join(outside)}): put them in one place")
        values.update(section)
    given = overrides or {}
    values.update(given)
    if players is not None:
        if "players" in given and str(given["players"]).strip() != str(players):
            raise InputError(f"players {players} and a rule value players="
                             f"{given['players']} disagree (--players and --set players): "
                             f"give the player count once")
        values["players"] = players
    return cls.build(values)


def rules_maker(cls: type[Config], presets: dict[str, dict[str, Any]],
                game: str) -> Callable[..., Config]:
    """A game's ``make_rules(preset="seed", file=None, overrides=None, players=None)``:
    :func:`make_rules` for ``cls`` and its presets."""
    def make(preset: str = "seed", file: str | None = None, overrides: dict[str, Any] | None = None,
             players: int | None = None) -> Config:
        return make_rules(cls, presets, game, preset, file=file, overrides=overrides,
                          players=players)
    make.__doc__ = (f"{game} rules from a preset, then a TOML file, then ``key=value`` "
                    f"overrides, then ``players``.")
    return make


def resolve_rules(rules: Any, players: int | None, cls: type, make: Callable[..., Any],
                  presets: Mapping[str, Any],
                  game: str) -> Any:
    """Rules from a ``cls`` instance, a preset name, a dict of rule values or None
    (the seed's), with ``players`` (if given) replacing the count."""
    if isinstance(rules, cls):
        given: Any = rules              # a game's rules: every one has ``players``
        return given if players in (None, given.players) else given.replace(players=players)
    if rules is None or isinstance(rules, str):
        return make(rules or "seed", players=players)
    if isinstance(rules, dict):
        return make(overrides=rules, players=players)
    raise InputError(f"bad rules {rules!r}: expected a preset name ({', '.join(presets)}), "
                     f"a dict of rule values or {cls.__name__}")
