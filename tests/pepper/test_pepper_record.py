"""Tests of Pepper hand records (simkit/pepper/record.py, seeds/pepper.md 11):
the lines ``body`` writes are read back by ``parse`` and replayed by
``replay`` to the same hand; bad records (a bad deal, a call out of turn or
too low, a wrong result, a revoke, a card not held, a trump not allowed) are
refused with one line.  The shared header, ``show`` and ``replay`` on the
command line and the kernel's rows are tested in tests/test_records.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given

from simkit.base.errors import InputError
from simkit.bygame import record
from simkit.pepper import reference as R
from simkit.pepper.policies import make_policies
from simkit.pepper.record import body, parse, replay
from simkit.pepper.rules import DECK, make_rules

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_pepper_reference import FAST, indices, seeds, tables


def again(log, text=None):
    """Replay a record's lines (by default the hand's own) under the hand's rules."""
    return replay((text or "\n".join(body(log))).splitlines(), log.rules, None, 0, 0)


@FAST
@given(tables(), seeds, indices)
def test_round_trip(table, seed, index):
    rules, policies = table
    log = R.simulate_hand(rules, policies, seed, index)
    lines = body(log)
    assert replay(lines, rules, None, seed, index) == log
    assert parse(lines, rules) == log


def _some_log(players=4, policy="heuristic", preset="seed", want=None):
    rules = make_rules(preset, players=players)
    for i in range(500):
        log = R.simulate_hand(rules, make_policies(policy, players), 11, i)
        if (want is None and not log.thrown_in) or (want is not None and want(log)):
            return log
    raise AssertionError("no such hand")


def _replace_line(text, key, value):
    out = []
    for line in text.splitlines():
        out.append(f"{key}: {value}" if line.split(":")[0] == key else line)
    return "\n".join(out) + "\n"


def _line(text, key):
    return next(ln for ln in text.splitlines() if ln.split(":")[0] == key).partition(": ")[2]


def test_replay_rejects_bad_records():
    log = _some_log()
    text = "\n".join(body(log)) + "\n"
    assert again(log, text) == log
    # results are optional for replay, required for parse
    actions = "\n".join(ln for ln in text.splitlines()
                        if not ln.startswith(("tricks by", "score", "made", "bidder hand")))
    assert again(log, actions) == log
    with pytest.raises(InputError, match="the record has no 'tricks by seat' line"):
        parse(actions.splitlines(), log.rules)

    bad = {
        "unknown card": _replace_line(text, "seat 0", "ZZ " + _line(text, "seat 0")),
        "short hand": _replace_line(text, "seat 0", " ".join(_line(text, "seat 0").split()[1:])),
        "dealt twice": _replace_line(text, "seat 1", " ".join(
            _line(text, "seat 0").split()[:1] + _line(text, "seat 1").split()[1:])),
        "wrong order": _replace_line(text, "auction", "2:pass"),
        "not higher": _replace_line(text, "auction", "1:3 2:2"),
        "bad bid": _replace_line(text, "auction", "1:seven"),
        "extra call": _replace_line(text, "auction", "1:kubwa 2:pass"),
        "stuck": _replace_line(text, "stuck", "yes"),
        "score": _replace_line(text, "score by side", "+99 +0"),
        "trump": _replace_line(text, "trump", "X"),
        "dealer": _replace_line(text, "dealer", "7"),
        "missing trick": "\n".join(ln for ln in text.splitlines() if not ln.startswith("trick 6")),
        "extra line": text + "bonus: 3\n",
        "winner": text.replace(" -> ", " -> 0 ", 1) if "-> 0" not in text else
        text.replace("-> 0", "-> 1", 1),
    }
    for _why, t in bad.items():          # each alteration (named by _why) is refused
        with pytest.raises(InputError):
            again(log, t)
    # the rules come from the shared header
    full = record.show("pepper", log.rules, ["heuristic"], 11, 0)
    for rules in ("players=5", "colour=red"):
        with pytest.raises(InputError):
            record.replay(_replace_line(full, "rules", rules))


def test_seats_are_written_either_way():
    """``2`` or ``seat 2``, in every line that names a seat."""
    log = _some_log()
    text = "\n".join(body(log)) + "\n"
    text = _replace_line(text, "dealer", f"seat {log.dealer}")
    assert again(log, text) == log
    with pytest.raises(InputError, match="bad dealer 'seat 9': expected a seat from 0 to 3"):
        again(log, _replace_line(text, "dealer", "seat 9"))


def test_replay_rejects_revoke_and_unheld_card():
    # find a trick where some follower followed suit while holding an off-suit card
    for i in range(200):
        log = R.simulate_hand(make_rules(), make_policies("heuristic", 4), 23, i)
        if log.thrown_in:
            continue
        holding = [list(h) for h in log.hands]
        for k in range(6):
            trick = log.plays[4 * k:4 * k + 4]
            led = R.effective_suit(trick[0].card, log.trump)
            for p in trick[1:]:
                off = [c for c in holding[p.seat] if R.effective_suit(c, log.trump) != led]
                if R.effective_suit(p.card, log.trump) == led and off:
                    lines = body(log)
                    a, b = f"{p.seat}:{DECK.text(p.card)}", f"{p.seat}:{DECK.text(off[0])}"
                    n = next(j for j, ln in enumerate(lines) if ln.startswith(f"trick {k + 1}:"))
                    lines[n] = lines[n].replace(a, b)
                    with pytest.raises(InputError, match="must follow"):
                        again(log, "\n".join(lines))
                    stranger = DECK.text(log.hands[(p.seat + 1) % 4][0])
                    lines[n] = lines[n].replace(b, f"{p.seat}:{stranger}")
                    with pytest.raises(InputError, match="does not hold"):
                        again(log, "\n".join(lines))
                    return
            for p in trick:
                holding[p.seat].remove(p.card)
    raise AssertionError("no revoke opportunity found")


def test_replay_thrown_in_and_trumps_only():
    log = _some_log(policy="heuristic:partner_help=0,aggression=-3", want=lambda lg: lg.thrown_in)
    text = "\n".join(body(log)) + "\n"
    assert again(log, text) == log
    with pytest.raises(InputError, match="thrown in"):
        again(log, _replace_line(text, "trump", "H"))
    log = _some_log(preset="trumps-only")
    text = "\n".join(body(log)) + "\n"
    with pytest.raises(InputError, match="not allowed"):
        again(log, _replace_line(text, "trump", "NT"))
    stuck = _some_log(preset="stick-the-dealer", policy="heuristic:partner_help=0,aggression=-3",
                      want=lambda lg: lg.stuck)
    assert stuck.auction
    assert all(b.level == 0 for b in stuck.auction)
    assert again(stuck) == stuck
