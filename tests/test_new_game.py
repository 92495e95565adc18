"""A new game added by the recipe of docs/how-it-works.md ("Adding a game"),
without touching the shared layer: a subclass of :class:`simkit.engine.Game`
and one entry in :data:`simkit.games.REGISTRY`.  Then the commands that read
only the game (``simulate``, ``rules``, ``show``/``replay``, ``bench``) work
with it, its two engines agree hand by hand, and its records keep to its
rules.

The toy game is *high card*: each seat is dealt one card of a 52-card deck
(cards 0..51, rank = card // 4, the highest card wins; no decision is made,
so its one policy is ``random``).  Its kernel is plain numpy over the
jitted random stream (a real game's is numba, ``simkit/GAME/kernel.py``);
its reference deals with the readable :class:`simkit.base.rng.Stream`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd
import pytest

from simkit import engine, games
from simkit.app.cli import main
from simkit.base import rng
from simkit.base.config import Config, option
from simkit.base.errors import InputError
from simkit.base.measures import Rate, Section, winner_measure
from simkit.engine import Column, Game, RecordBook, Unit, WarmStep
from simkit.policy import Policy, RandomParams

# --- simkit/highcard/rules.py ------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class HighCardRules(Config):
    """High card: each seat gets one card, the highest wins."""

    what = "rule"
    players: int = option(2, "number of players", lo=2, hi=4)


PRESETS: dict[str, dict[str, Any]] = {"seed": {}}

# --- simkit/highcard/kernel.py (numba in a real game) -------------------------------

N_COLS = 5          # the winner, then each seat's card (4 at most)


def run_hands(start: int, count: int, key: np.uint64, rules: np.ndarray, kinds: np.ndarray,
              params: np.ndarray, out: np.ndarray) -> None:
    """Hands ``start .. start+count-1`` into ``out``: stream (seed, hand) draws
    the seats' cards as :meth:`simkit.base.rng.Stream.sample` does."""
    players = int(rules[0])
    for j in range(count):
        st = rng.new_stream(key, start + j)
        deck = np.arange(52, dtype=np.int64)
        rng.sample(st, deck, players)
        out[j, 1:1 + players] = deck[:players]
        out[j, 0] = int(np.argmax(deck[:players]))

# --- simkit/highcard/reference.py ---------------------------------------------------


@dataclasses.dataclass
class HandLog:
    rules: HighCardRules
    cards: list[int]
    winner: int


def play_hand(rules: HighCardRules, policies: Sequence[Policy], seed: int,
              index: int) -> HandLog:
    """The rule book, read aloud: deal one card a seat; the highest card wins."""
    stream = rng.Stream(seed, index)
    deck = list(range(52))
    stream.sample(deck, rules.players)
    cards = deck[:rules.players]
    return HandLog(rules, cards, max(range(rules.players), key=lambda s: cards[s]))

# --- simkit/highcard/record.py ------------------------------------------------------


class Record:
    """The record's lines: each seat's card, then the winner."""

    UNIT = "hand"

    def play(self, rules: Any, policies: Sequence[Policy], seed: int, index: int) -> HandLog:
        return play_hand(rules, policies, seed, index)

    def body(self, log: HandLog) -> list[str]:
        return [f"seat {s}: {c}" for s, c in enumerate(log.cards)] + [f"winner: {log.winner}"]

    def replay(self, lines: Sequence[str], rules: Any, policies: Sequence[Policy] | None,
               seed: int, index: int) -> HandLog:
        cards = [int(line.split(":")[1]) for line in lines if line.startswith("seat ")]
        log = HandLog(rules, cards, max(range(len(cards)), key=lambda s: cards[s]))
        stated = [int(line.split(":")[1]) for line in lines if line.startswith("winner:")]
        if stated and stated[0] != log.winner:
            raise InputError(f"winner: {stated[0]} is wrong: seat {log.winner} "
                                    f"holds the highest card")
        return log

    def result_keys(self, log: HandLog) -> list[str]:
        return ["winner"]

    def seat_labels(self, rules: Any) -> list[str]:
        return [f"seat {s}" for s in range(rules.players)]

    def frames(self, log: HandLog) -> list[dict[str, Any]]:
        return []


# --- simkit/highcard/summary.py -----------------------------------------------------


class HandSummary(engine.Summary):
    def part(self, df: pd.DataFrame) -> pd.DataFrame:
        return df["winner"].value_counts().to_frame("hands")

    def text(self) -> str:
        t = self.total()
        return "\n".join(f"seat {s} won {int(n):,} hands" for s, n in t["hands"].items())


# --- simkit/highcard/api.py: the game -----------------------------------------------

HAND_COLUMNS = (
    *engine.leading_columns("hand"),
    Column("winner", "int8", "the seat with the highest card", col=0),
    Column("card_{seat}", "int8", "the seat's card, 0..51 (one column per seat)", col=1),
)


class HighCard(Game):
    """High card, the docs' example of a new game."""

    name = "highcard"
    title = "High card"
    book = "README.md"          # a real game's rule book is seeds/GAME.md
    players = (2, 3, 4)
    rules = HighCardRules
    presets = PRESETS
    policies = MappingProxyType({"random": RandomParams})
    policy_layout = RandomParams
    default_policy = "random"
    units = MappingProxyType({
        "hand": Unit("hand", "hand", "one row per hand", HAND_COLUMNS, HandSummary,
                     kernel=run_hands, width=N_COLS, dtype=np.int64, batch=1 << 12,
                     measure=winner_measure("wins per hand", "winner")),
    })
    bench_players = (2,)

    def reference(self, rules: Any, policies: Sequence[Policy], seed: int,
                  index: int) -> object:
        return play_hand(rules, policies, seed, index)

    def record(self) -> RecordBook:
        return Record()

    def measures(self, rules: Any) -> list[Section]:
        seat_0 = Rate("seat 0 wins", lambda df: (df["winner"] == 0).to_numpy())
        return [Section("hands", "{n} hands", "hand", (seat_0,))]

    def warm(self) -> Mapping[str, WarmStep]:
        return {"hands": (1.0, lambda: engine.simulate(
            self, "hand", engine.RunSettings(10)))}


@pytest.fixture
def registered(monkeypatch):
    """The recipe's one line in simkit/games.py, for this test only."""
    game = HighCard()
    monkeypatch.setitem(games.REGISTRY, "highcard", games.Entry(lambda: game))
    monkeypatch.setattr(games, "GAMES", (*games.GAMES, "highcard"))
    return game


def test_the_registry_hands_out_the_new_game(registered):
    assert games.get("HighCard") is registered
    assert games.advisor("highcard") is None
    assert registered.players_text == "2, 3 or 4 players"
    with pytest.raises(InputError, match="bad player count 5: Highcard is played by "
                                                "2, 3 or 4 players"):
        registered.check_players(5)


def test_both_engines_agree_hand_by_hand(registered):
    df = engine.simulate(registered, "hand", engine.RunSettings(300, players=3, seed=7))
    assert list(df.columns[:3]) == ["hand", "policy_0", "policy_1"]
    rules = registered.make_rules(players=3)
    for i in range(300):
        log = play_hand(rules, (), 7, i)
        assert [df[f"card_{s}"][i] for s in range(3)] == log.cards
        assert df["winner"][i] == log.winner


def test_each_seat_wins_its_exact_share(registered):
    """No seat is favoured: each wins 1/players of the hands (binomial, 4.5 sigma)."""
    n = 20_000
    df = engine.simulate(registered, "hand", engine.RunSettings(n, players=4, seed=1))
    share = df["winner"].value_counts(normalize=True).sort_index().to_numpy()
    assert np.abs(share - 0.25).max() < 4.5 * np.sqrt(0.25 * 0.75 / n)
    assert len(set(map(tuple, df[[f"card_{s}" for s in range(4)]].to_numpy()))) > 0.99 * n


def test_the_commands_work_with_it(registered, capsys, tmp_path):
    assert main(["simulate", "highcard", "--hands", "2000", "--players", "2",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "seat 0 won" in out
    assert "seat 1 won" in out
    assert main(["rules", "highcard"]) == 0
    assert "winner" in capsys.readouterr().out
    assert main(["show", "highcard", "--hand", "3"]) == 0
    text = capsys.readouterr().out
    log = play_hand(registered.make_rules(), (), 0, 3)
    assert f"winner: {log.winner}" in text
    path = tmp_path / "record.txt"
    path.write_text(text.replace(f"winner: {log.winner}", f"winner: {1 - log.winner}"))
    assert main(["replay", str(path)]) == 2
    assert "is wrong" in capsys.readouterr().err
    assert main(["simulate", "highcard", "--hands", "10", "--players", "5"]) == 2
    assert "bad player count 5" in capsys.readouterr().err
