"""Burraco hand records (simkit/burraco/record.py, seeds/burraco.md 10).

A run's hand written by ``body`` replays to exactly itself (the same lines,
the same HandLog) under every rule set and at tables mixing every policy,
for hands ended by going out, by the stock and by the turn cap; what a
record says (moves and results) is what the kernel's run records for that
hand.  Hand-written records are derived from ``play``'s and altered: legal
ones are accepted and completed, records cut anywhere are played out by the
policies exactly as the run played them, and every illegal or inconsistent
line is one InputError line naming the turn (or the line) and the rule.
"""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest

from simkit.base.errors import InputError
from simkit.burraco import record as B
from simkit.burraco.api import trace_hands
from simkit.burraco.policies import make_policies
from simkit.burraco.rules import PRESETS, make_rules

SEED = 0x5EED_2EC0
MIXED = ("random", "classic", "heuristic", "patient")
TABLES = {"heuristic": ("heuristic",), "mixed": MIXED}


@cache
def rules_of(preset: str, max_turns: int | None = None):
    return make_rules(preset, overrides={"max_turns": max_turns} if max_turns else None)


@cache
def hand(preset: str, table: str, index: int, max_turns: int | None = None):
    """``(log, lines)``: hand ``index`` of the run and its record's lines."""
    log = B.play(rules_of(preset, max_turns), make_policies(list(TABLES[table])), SEED, index)
    return log, tuple(B.body(log))


def replay(lines, preset="seed", table=None, index=0, max_turns=None):
    pols = None if table is None else make_policies(list(TABLES[table]))
    return B.replay(list(lines), rules_of(preset, max_turns), pols, SEED, index)


def error(lines, *names, **kw) -> str:
    """The replay's error: one line, naming each of ``names``."""
    with pytest.raises(InputError) as e:
        replay(lines, **kw)
    text = str(e.value)
    assert "\n" not in text, text
    for name in names:
        assert name in text, (name, text)
    return text


def at(lines, start: str) -> int:
    """The index of the first line starting with ``start``."""
    return next(i for i, line in enumerate(lines) if line.startswith(start))


def turn_at(lines, i: int) -> int:
    """The number of the turn line ``i`` belongs to."""
    head = next(lines[j] for j in range(i, -1, -1) if lines[j].startswith("turn "))
    return int(head.split(":")[0].split()[1])


def swap(lines, i: int, new: str) -> list[str]:
    return [*lines[:i], new, *lines[i + 1:]]


def same_log(got, log) -> None:
    """The replay's HandLog is the run's (a replay without policies names none)."""
    assert dataclasses.replace(got, policies=log.policies) == log


# --- round trips ------------------------------------------------------------------

@pytest.mark.slow
def test_two_hundred_hands_replay_to_themselves():
    """200 hands under the seed's rules: the record replays (without policies) to
    the run's HandLog and to exactly its own lines; both common endings occur."""
    endings = set()
    for i in range(200):
        log, lines = hand("seed", "heuristic", i)
        got = replay(lines, index=i)
        same_log(got, log)
        assert tuple(B.body(got)) == lines
        endings.add(log.ended)
    assert endings == {"closed", "stock"}


@pytest.mark.parametrize("preset", [  # quick tier: the first; full: all
    p if i == 0 else pytest.param(p, marks=pytest.mark.slow)
    for i, p in enumerate(PRESETS)])
def test_every_rule_set_at_a_mixed_table_replays_to_itself(preset):
    """Each preset, a table of random, classic, heuristic and patient: 25 hands
    replay to themselves, with and without the table's policies."""
    for i in range(25):
        log, lines = hand(preset, "mixed", i)
        got = replay(lines, preset, "mixed", i)
        assert got == log
        assert tuple(B.body(got)) == lines
        assert tuple(B.body(replay(lines, preset, None, i))) == lines


def test_hands_ended_by_the_cap_replay_to_themselves():
    """With a small turn cap the hands end there; a record with a turn past the
    cap is an error."""
    for i in range(20):
        log, lines = hand("seed", "mixed", i, max_turns=12)
        assert log.ended == "cap"
        assert "ended: cap" in lines
        got = replay(lines, table="mixed", index=i, max_turns=12)
        assert got == log
        assert tuple(B.body(got)) == lines
    _, lines = hand("seed", "mixed", 0, max_turns=12)
    end = at(lines, "ended:")
    extra = [*lines[:end], "turn 13: seat 0", "draw: stock", *lines[end:]]
    error(extra, "the hand is over after turn 12", "max_turns = 12", "turn 13", max_turns=12)


# --- the record is the run ----------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize(("preset", "table"), [
    ("seed", "heuristic"), pytest.param("stock-finish", "mixed", marks=pytest.mark.slow),
    pytest.param("pozzetto-cards", "mixed", marks=pytest.mark.slow)])
def test_records_say_what_the_kernel_records(preset, table):
    """For 100 hands of a run the record's moves, replayed from its text, are the
    kernel's decisions, and every result it states is the kernel's row."""
    rules, n = rules_of(preset), 100
    pols = make_policies(list(TABLES[table]))
    tr = trace_hands(rules, pols, SEED, 0, n)
    df = tr["frame"]
    for i in range(n):
        log, lines = hand(preset, table, i)
        codes = [int(x) for x in tr["codes"][i] if x >= 0]
        assert replay(lines, preset, None, i).decision_codes() == codes, i
        said = B.results(lines)
        row = df.iloc[i]
        assert {k: v for k, v in said.items() if k in row} == \
            {k: row[k] for k in said if k in row}, (i, said)
        assert len(said) == 3 + 2 * 13      # every column but melds_t, with pozzetto_t
        assert row["dealer"] == int(lines[0].split(":")[1])
        for t in (0, 1):
            assert row[f"melds_{t}"] == said[f"sets_{t}"] + said[f"sequences_{t}"]
            assert said[f"pozzetto_{t}"] == log.taken[t] + 1


def test_the_shared_header_and_the_burraco_lines_make_one_record():
    """``simkit show`` text (simkit.bygame.record) replays to itself; cut after its deal,
    the header's policy lines play it out as the run."""
    from simkit.bygame import record
    for i in range(5):
        text = record.show("burraco", rules_of("seed"), list(MIXED), SEED, i)
        assert record.replay(text) == text
        lines = text.splitlines()
        assert record.replay("\n".join(lines[:lines.index("turn 1: seat " + str((i + 1) % 4))])
                             + "\n") == text


# --- hand-written records -------------------------------------------------------------

def test_a_hand_written_record_is_read_as_a_person_writes_it():
    """Keys and cards in any case, spaces, blank lines and comments; the result
    lines and the pozzetto lines left out: the replay completes the record."""
    log, lines = hand("seed", "heuristic", 3)
    assert any(line.startswith("pozzetto:") for line in lines)
    moves = [line for line in lines if not line.startswith(("ended", "closer", "turns",
                                                            "team ", "pozzetto:"))]
    written = ["# a hand I played", ""]
    for line in moves:
        key, _, value = line.partition(":")
        written += [f"  {key.upper()} :   {value.lower()}  ", ""]
    got = replay(written, index=3)
    same_log(got, log)
    assert tuple(B.body(got)) == lines
    some = [*moves, f"team 1 score: {log.score[1]}", "closer: none" if log.closer < 0
            else f"closer: seat {log.closer}"]
    same_log(replay(some, index=3), log)


def test_cards_without_primes_are_any_copy():
    """A person need not tell the two decks apart: without its primes the record
    still replays, to the same score."""
    for i in range(20):
        log, lines = hand("seed", "heuristic", i)
        plain = [line.replace("'", "") for line in lines]
        got = replay(plain, index=i)
        assert got.score == log.score
        assert got.parts == log.parts


@pytest.mark.parametrize("table", list(TABLES))
def test_the_deal_alone_is_played_out_by_the_policies(table):
    """Only the deal: the run's policies, drawing from the run's stream after its
    deal, play the hand as the run did; without policies the record stops."""
    for i in range(10):
        log, lines = hand("seed", table, i)
        deal = lines[:at(lines, "turn 1:")]
        assert replay(deal, table=table, index=i) == log
    error(deal, "the record stops at turn 1, seat 2 to play: give --policy to play it out",
          index=9)


@pytest.mark.slow
def test_a_record_cut_anywhere_is_played_out_as_the_run_played_it():
    """Cut between turns, after a draw, after a keep or in the middle of melding,
    at a table with a random player: the policies finish the hand as the run."""
    for i in range(12):
        log, lines = hand("seed", "mixed", i)
        end = at(lines, "ended:")
        turn = at(lines, f"turn {len(log.turns) // 2}:")
        melding = next(j for j in range(turn, end) if lines[j].startswith(("meld ", "add "))
                       and lines[j + 1].startswith(("meld ", "add ")))
        for cut in (end // 5, end // 3, turn + 2, turn + 3, melding + 1, end - 7, end - 1, end):
            assert replay(lines[:cut], table="mixed", index=i) == log, (i, cut, lines[cut - 1])


def test_a_record_that_stops_needs_policies():
    _, lines = hand("seed", "heuristic", 1)
    head = at(lines, "turn 23:")
    text = error(lines[:head], "the record stops at turn 23, seat ", "give --policy",
                 index=1)
    assert text == (f"the record stops at turn 23, seat {lines[head].split()[-1]} to play: "
                    f"give --policy to play it out")
    error(lines[:head + 2], "the record stops inside turn 23", "give --policy", index=1)


# --- illegal steps: one line naming the step ----------------------------------------------

def test_a_card_melded_twice():
    """A card laid in a meld and added again in the same turn: not in the hand
    any more, and the error says where it is."""
    _, lines = hand("seed", "heuristic", 0)
    i = next(i for i, line in enumerate(lines)
             if line.startswith("meld ") and "'" in line.split(":")[1])
    name = lines[i].split()[1].rstrip(":")
    card = next(w for w in lines[i].split()[3:] if "'" in w)
    bad = [*lines[:i + 1], f"add {name}: {card}", *lines[i + 1:]]
    error(bad, f"turn {turn_at(lines, i)}: seat ", f"adds {card} to meld {name}, which it "
          f"does not hold", f"{card} in meld {name}")
    same = swap(lines, i, lines[i].replace(card, f"{card} {card}", 1))
    error(same, f"turn {turn_at(lines, i)}: seat ", f"but holds only 1 {card}")


def test_an_invalid_meld():
    _, lines = hand("seed", "heuristic", 0)
    for kind, other in (("sequence", "set"), ("set", "sequence")):
        i = next(i for i, line in enumerate(lines) if line.startswith("meld ")
                 and line.split()[2] == kind)
        cards = " ".join(lines[i].split()[3:])
        error(swap(lines, i, lines[i].replace(kind, other)),
              f"turn {turn_at(lines, i)}: seat ", f"lays {cards}, which is not a {other} "
              f"(seeds/burraco.md 3)")
    i = at(lines, "meld ")
    few = " ".join(lines[i].split()[:2] + lines[i].split()[3:5])
    error(swap(lines, i, few), f"turn {turn_at(lines, i)}: ", "a meld has at least 3 cards")
    i = at(lines, "add ")
    team, _n = lines[i].split()[1].rstrip(":").split(".")
    error(swap(lines, i, lines[i].replace(f"add {team}.", f"add {1 - int(team)}.")),
          f"turn {turn_at(lines, i)}: ", "a meld of the other team", "(seeds/burraco.md 2)")


def test_a_card_added_where_it_does_not_fit():
    """A card added to another meld of the team than the one it extends."""
    found = 0
    for k in range(8):
        _, lines = hand("seed", "heuristic", k)
        for i in (i for i, line in enumerate(lines) if line.startswith("add ")):
            team, n = lines[i].split()[1].rstrip(":").split(".")
            laid = {line.split()[1].rstrip(":") for line in lines[:i] if line.startswith("meld ")}
            other = next((f"{team}.{m}" for m in range(1, int(n)) if f"{team}.{m}" in laid), None)
            if other is None:
                continue
            bad = swap(lines, i, f"add {other}: {lines[i].split()[-1]}")
            try:
                replay(bad, index=k)
            except InputError as e:
                text = str(e)
                assert "\n" not in text
                assert text.startswith(f"turn {turn_at(lines, i)}: seat ")
                if f"to meld {other}, but " in text and "is not a valid" in text:
                    assert text.endswith("(seeds/burraco.md 3)"), text
                    found += 1
            break
    assert found >= 3


def test_a_discard_of_a_card_not_held():
    _, lines = hand("seed", "heuristic", 0)
    stock = lines[at(lines, "stock:")].split()[1:]
    seat_line = lines[at(lines, "seat " + lines[at(lines, "turn 1:")].split()[-1] + ":")]
    held = {w.rstrip("'") for w in seat_line.split()[2:]} | \
        {lines[at(lines, "draw:")].split()[-1].rstrip("'")}
    card = next(c for c in stock[-2:] if c.rstrip("'") not in held)   # never drawn
    i = at(lines, "discard:")
    error(swap(lines, i, f"discard: {card}"),
          f"turn 1: seat {lines[at(lines, 'turn 1:')].split()[-1]} discards {card}, which it "
          f"does not hold", f"{card} in the stock")


def test_a_draw_that_is_not_the_stock_top():
    _, lines = hand("seed", "heuristic", 0)
    stock = lines[at(lines, "stock:")].split()[1:]
    i = next(i for i, line in enumerate(lines) if line.startswith("draw: stock"))
    top = lines[i].split()[-1]
    other = next(c for c in stock if c.rstrip("'") != top.rstrip("'"))
    error(swap(lines, i, f"draw: stock {other}"), f"turn {turn_at(lines, i)}: seat ",
          f"draws {other} from the stock, but its top card is {top}", "(seeds/burraco.md 2)")
    j = next(j for j, line in enumerate(lines) if line.startswith("draw: pile")
             and len(line.split()) > 3)
    error(swap(lines, j, " ".join(lines[j].split()[:3])), f"turn {turn_at(lines, j)}: ",
          "the pile is taken whole")


def test_a_draw_out_of_turn():
    _, lines = hand("seed", "heuristic", 0)
    i = at(lines, "turn 5:")
    seat = int(lines[i].split()[-1])
    error(swap(lines, i, f"turn 5: seat {(seat + 1) % 4}"),
          f"turn 5: the record has seat {(seat + 1) % 4} playing, but it is seat {seat}'s turn")
    error([*lines[:i + 1], *lines[i + 2:]], "turn 5: seat", "before drawing")


def test_going_out_and_the_pozzetto_when_not_allowed():
    _, lines = hand("seed", "heuristic", 0)
    i = at(lines, "discard:")
    error(swap(lines, i, lines[i].replace("discard", "go out")), "turn 1: seat ",
          "going out discards the last card (seeds/burraco.md 5)")
    error(swap(lines, i, "pozzetto: 1 directly"), "turn 1: seat ",
          "has not just emptied its hand", "(seeds/burraco.md 4)")
    k = at(lines, "pozzetto:")
    way = "directly" if "discard" in lines[k] else "on the discard"
    error(swap(lines, k, f"pozzetto: {lines[k].split()[1]} {way}"),
          f"turn {turn_at(lines, k)}: ", "(seeds/burraco.md 4)")
    closed = next(hand("seed", "heuristic", j)[1] for j in range(50)
                  if hand("seed", "heuristic", j)[0].ended == "closed")
    out = at(closed, "go out:")
    error([*closed[:out + 1], "discard: 5C", *closed[out + 1:]], "the hand is over: seat ",
          "went out, but the record goes on with 'discard: 5C'")


def test_a_pozzetto_only_as_the_rules_allow():
    """A hand replayed under other rules: a pozzetto taken on the discard is an
    error under pozzetto = direct, one taken directly under pozzetto = discard
    (the keep lines, the policies' plans under the seed's rules, left out)."""
    for way, preset, rule in (("on the discard", "pozzetto-direct", "pozzetto = direct"),
                              ("directly", "pozzetto-discard", "pozzetto = discard")):
        k, lines = next((k, hand("seed", "mixed", k)[1]) for k in range(40)
                        if f"pozzetto: 1 {way}" in hand("seed", "mixed", k)[1])
        plain = [line for line in lines if not line.startswith(("keep:", "pozzetto:"))]
        assert replay(plain, index=k).parts == hand("seed", "mixed", k)[0].parts
        i = at(lines, f"pozzetto: 1 {way}")
        error(plain, f"turn {turn_at(lines, i)}: seat ", "empties its hand" if way ==
              "directly" else "discards its last card", rule, "(seeds/burraco.md 4)",
              preset=preset, index=k)


def test_a_wrong_result():
    log, lines = hand("seed", "heuristic", 0)
    i = at(lines, "team 0 score:")
    wrong = lines[i].replace(f"score: {log.score[0]}", f"score: {log.score[0] + 5}")
    error(swap(lines, i, wrong), f"the record says {wrong}, but the replay gives {lines[i]}")
    error(swap(lines, i, "team 0 score: 0 = melded 1"), "the record says team 0 score:")
    j = at(lines, "ended:")
    other = "closed" if log.ended != "closed" else "stock"
    error(swap(lines, j, f"ended: {other}"), f"the record says ended: {other}, but the replay "
          f"gives ended: {log.ended}")
    k = at(lines, "turns:")
    error(swap(lines, k, "turns: 3"), "the record says turns: 3, but the replay gives turns:")


def test_bad_lines():
    _, lines = hand("seed", "heuristic", 0)
    i = at(lines, "discard:")
    error(swap(lines, i, "discard: ZZ"), "turn 1: ", "unknown card 'ZZ'")
    error(swap(lines, i, "discard: AS''"), "turn 1: ", "unknown card \"AS''\"")
    error([*lines[:i], "bogus: 3", *lines[i:]], "unknown record line 'bogus'")
    error([*lines[:i], "discard 9C", *lines[i:]], "bad record line 'discard 9C': expected "
          "'key: value'")
    seat0 = lines[at(lines, "seat 0:")].partition(":")[2]
    error(swap(lines, at(lines, "seat 1:"), "seat 1:" + seat0), "the deal has ", " twice: ",
          "(seeds/burraco.md 1)")
    error(swap(lines, at(lines, "seat 1:"), "seat 1:" + seat0.replace("'", "")),
          "the deal has ", "more often than the deck holds it")
    error(swap(lines, at(lines, "seat 1:"), "seat 1: AS"), "the deal's 'seat 1' line has 1 "
          "cards: it gets 11")
    error(lines[1:], "the record has no 'dealer' line")
    error([*lines[:i], "keep: 7", *lines[i:]], "turn 1: bad keep '7'")
    error([lines[i], *lines], "the line 'discard:", "comes before any turn")
    error(swap(lines, at(lines, "turn 2:"), "turn 3: seat 1"), "turn 3 where turn 2 belongs")
    error([*lines, "ended: closed"], "the record has two 'ended' lines")
