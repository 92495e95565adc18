"""Shiesta game records (simkit/shiesta/record.py, seeds/shiesta.md "Game records").

A record from ``play`` replays to the same game and the same lines, for every
player count, under the seed's rules and under every variant at once, with
heuristic, random and mixed tables, unfinished games included; what a record
says equals the kernel's row and moves of the same game of a run; a record
cut anywhere and played out by the run's policies is the run's game; and
hand-written records are accepted, completed, or refused with one line
naming the turn and the rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_shiesta_differential import ALL_VARIANTS, mixed_specs

from simkit.base.errors import InputError
from simkit.bygame import record
from simkit.shiesta import record as SR
from simkit.shiesta import reference as R
from simkit.shiesta.api import simulate_games, trace_games
from simkit.shiesta.policies import make_policies
from simkit.shiesta.rules import RANK_TEXT, make_rules

SEED = 0x5EED_2EC
PLAYERS = (3, 4, 5)
RESULT_KEYS = ("turns", "winner", "unfinished", "pickups", "cards left", "2s played",
               "3s played", "7s played", "10s played")


def tables(players: int):
    """(name, rules, policies, games): the tables every test of a player count plays."""
    seed_rules = make_rules(players=players)
    variants = make_rules(overrides=ALL_VARIANTS, players=players)
    capped = make_rules(overrides={"max_turns": 40}, players=players)
    return [("seed rules, heuristic", seed_rules, make_policies("heuristic", players), 150),
            ("seed rules, random", seed_rules, make_policies("random", players), 40),
            ("every variant, mixed", variants, make_policies(mixed_specs(players), players), 40),
            ("capped at 40 turns, random", capped, make_policies("random", players), 10)]


# --- round trip ---------------------------------------------------------------

@pytest.mark.parametrize("players", [  # quick tier: the first; full: all
    p if i == 0 else pytest.param(p, marks=pytest.mark.slow)
    for i, p in enumerate(PLAYERS)])
def test_records_replay_to_the_same_game_and_lines(players):
    """For every table: replay(body(log)) is the game ``play`` played (the same
    GameLog), and its body is the same lines, without policies and with them."""
    unfinished = 0
    for name, rules, policies, games in tables(players):
        for i in range(games):
            log = SR.play(rules, policies, SEED, i)
            lines = SR.body(log)
            back = SR.replay(lines, rules, None, SEED, i)
            assert back == log, (name, i)
            assert SR.body(back) == lines, (name, i)
            unfinished += log.unfinished
            if i % 10 == 0:
                assert SR.replay(lines, rules, policies, SEED, i) == log, (name, i)
    assert unfinished >= 10                 # the capped table at least


def test_play_is_the_reference_game_by_rank():
    """``play`` is reference.play_game, the dealt cards given as their ranks."""
    rules = make_rules(players=5)
    policies = make_policies(mixed_specs(5), 5)
    for i in range(5):
        ref = R.play_game(rules, policies, SEED, i)
        log = SR.play(rules, policies, SEED, i)
        assert log.moves == ref.moves
        assert log.record() == ref.record()
        assert log.draw_pile == [c % 13 for c in ref.draw_pile]
        assert [log.dealt(s) for s in range(5)] == [ref.dealt(s) for s in range(5)]


# --- the kernel's run -----------------------------------------------------------

def row_of(rec: SR.Record, rules) -> dict:
    """What a record says, in the kernel's record columns (seeds/shiesta.md 5)."""
    n = rules.players
    said = {key: value for key, (_, value) in rec.results.items()}
    winner = said["winner"]
    row = {"starter": rec.starter, "winner": winner,
           "winner_seat": (winner - rec.starter) % n if winner >= 0 else -1,
           "turns": said["turns"], "unfinished": said["unfinished"]}
    for s in range(n):
        row[f"pickups_{s}"] = said["pickups"][s]
        row[f"cards_left_{s}"] = said["cards left"][s]
        dealt = rec.down[s] + rec.up[s] + rec.hand[s]
        for rank in (0, 1, 5, 8):
            row[f"dealt_{RANK_TEXT[rank]}_{s}"] = dealt.count(rank)
    for rank in (0, 1, 5, 8):
        row[f"played_{RANK_TEXT[rank]}"] = said[f"{RANK_TEXT[rank]}s played"]
    return row


def codes_of(rec: SR.Record) -> list[int]:
    """The record's turns as move codes (reference.Move.code)."""
    out = []
    for st in rec.steps:
        if st.pickup:
            move = R.Move(st.seat, R.PICKUP, R.PICKED if st.rank is None else st.rank, st.count)
        else:
            move = R.Move(st.seat, st.source, st.rank, st.count)
        out.append(move.code())
    return out


@pytest.mark.parametrize("players", [  # quick tier: the first; full: all
    p if i == 0 else pytest.param(p, marks=pytest.mark.slow)
    for i, p in enumerate(PLAYERS)])
def test_what_a_record_says_is_the_kernels_row_and_moves(players):
    """``simulate_games`` row i and ``trace_games`` moves of game i equal what
    the record of game i says: every column, and every move."""
    games = 150
    for values, specs in (({}, "heuristic"), (ALL_VARIANTS, mixed_specs(players))):
        rules = make_rules(overrides=values, players=players)
        policies = make_policies(specs, players)
        df = simulate_games(games=games, rules=rules, policy=specs, seed=SEED, threads=1)
        moves = trace_games(rules, policies, SEED, 0, games)["moves"]
        for i in range(games):
            rec = SR.read(SR.body(SR.play(rules, policies, SEED, i)), rules)
            assert set(RESULT_KEYS) == set(rec.results)
            for col, value in row_of(rec, rules).items():
                assert df[col].iloc[i] == value, (i, col, df[col].iloc[i], value)
            codes = codes_of(rec)
            assert list(moves[i, :len(codes)]) == codes, i
            assert (moves[i, len(codes):] == -1).all(), i


# --- records that stop early, played out by the policies ---------------------------

@pytest.mark.parametrize("players", PLAYERS)
def test_a_record_cut_anywhere_is_played_out_as_the_run_played_it(players):
    """Cut after the deal, after the exchange, or after any turn, a record replayed
    with the run's policies (random ones included: the policies are asked at every
    recorded decision, which keeps their draws in step) is the run's game."""
    rules = make_rules(players=players)
    for specs in ("random", mixed_specs(players)):
        policies = make_policies(specs, players)
        for i in range(10):
            log = SR.play(rules, policies, SEED, i)
            lines = SR.body(log)
            head = [line for line in lines if not line.startswith(("turn", *RESULT_KEYS))]
            deal = [line for line in head if "puts face up" not in line]
            cut = 3 * players + 2 + players            # the deal, the starter, the exchange
            for kept in (deal, head, lines[:cut + 1], lines[:cut + log.turns // 2],
                         lines[:cut + log.turns]):
                assert SR.replay(kept, rules, policies, SEED, i) == log, (specs, i, len(kept))


# --- hand-written records ------------------------------------------------------------

#: Game 37 of seed 5, 3 players, heuristics, written by hand: keys in any case,
#: comments and blank lines, T for 10, no sources, draws or pickup counts, no
#: results (seeds/shiesta.md "Game records").
HAND_WRITTEN = """
# the deal: face-down rows, face-up rows, hands, in the order dealt
Seat 0 Down: 3 2 3
Seat 0 Up:   4 5 9
Seat 0 Hand: A 7 4 J K
seat 1 down: Q T T
seat 1 up: 2 A 3
seat 1 hand: 7 6 2 K 5
seat 2 down: J 10 K
seat 2 up: Q 4 8
seat 2 hand: 7 6 6 8 2
draw pile: Q 7 3 4 9 9 9 8 10 J J Q 5 6 5 K A 8 A
starter: 0

# the exchange
seat 0 puts face up: J K A
seat 1 puts face up: 2 2 3
seat 2 puts face up: 2 8 Q

turn 1: seat 0 plays 4 4
turn 2: seat 1 plays 5
turn 3: seat 2 plays 6 6
turn 4: seat 0 plays 7 7
turn 5: seat 1 plays 6
turn 6: seat 2 plays 7
turn 7: seat 0 plays 5
turn 8: seat 1 plays 7
turn 9: seat 2 plays 4 4
turn 10: seat 0 plays 9 9 9
turn 11: seat 1 plays J
turn 12: seat 2 plays Q
turn 13: seat 0 plays K
turn 14: seat 1 plays A A
turn 15: seat 2 plays T, burns the pile
turn 16: seat 0 plays 5
turn 17: seat 1 plays 8
turn 18: seat 2 plays 9
turn 19: seat 0 plays J
turn 20: seat 1 plays K
turn 21: seat 2 picks up
turn 22: seat 0 plays 6
turn 23: seat 1 plays 3
turn 24: seat 2 picks up
turn 25: seat 0 plays Q
turn 26: seat 1 plays 2 2 from face up
turn 27: seat 2 plays 5 5
turn 28: seat 0 plays A
turn 29: seat 1 plays 3
turn 30: seat 2 picks up 6 cards
turn 31: seat 0 plays J
turn 32: seat 1 plays Q from face-down
turn 33: seat 2 plays K
turn 34: seat 0 plays A
turn 35: seat 1 plays 10
turn 36: seat 2 plays 5 5
turn 37: Seat 0 Plays K
turn 38: 1 plays 10
"""
RULES3 = make_rules(players=3)
HEURISTIC3 = make_policies("heuristic", 3)


def hand_written_game():
    return SR.play(RULES3, HEURISTIC3, 5, 37)


def test_a_hand_written_record_is_accepted_and_completed():
    log = hand_written_game()
    lines = HAND_WRITTEN.splitlines()
    assert SR.replay(lines, RULES3, None, 0, 0) == log
    full = SR.body(log)
    results = [line for line in full if line.startswith(RESULT_KEYS)]
    assert len(results) == len(RESULT_KEYS)
    assert SR.replay(lines + results, RULES3, None, 0, 0) == log       # results agree
    # through the shared header, as `simkit replay` reads it: completed
    text = "game: shiesta\nrules: players=3\n" + HAND_WRITTEN
    out = record.replay(text)
    assert out.splitlines()[-len(full):] == full


def test_the_deal_alone_is_played_out_by_the_policies():
    lines = [line for line in HAND_WRITTEN.splitlines()
             if not line.lower().startswith(("turn", "seat 0 puts", "seat 1 puts", "seat 2 puts"))]
    assert SR.replay(lines, RULES3, HEURISTIC3, 5, 37) == hand_written_game()
    # under other seeds too: the heuristics draw nothing
    assert SR.replay(lines, RULES3, HEURISTIC3, 0, 0) == hand_written_game()


def test_the_rule_books_example_is_the_record_of_its_game():
    book = (Path(__file__).resolve().parents[2] / "seeds" / "shiesta.md").read_text()
    section = book.split("## 7. Game records", 1)[1]
    example = section.split("```\n", 2)[1]
    assert example.splitlines() == SR.body(hand_written_game())


def full_text() -> str:
    return "\n".join(SR.body(hand_written_game())) + "\n"


def changed(old: str, new: str) -> str:
    text = full_text()
    assert old in text, old
    return text.replace(old, new)


def cut_after(turn: int) -> str:
    keep = []
    for line in full_text().splitlines():
        key = line.partition(":")[0]
        if key.startswith(RESULT_KEYS) or (key.startswith("turn ") and int(key[5:]) > turn):
            continue
        keep.append(line)
    return "\n".join(keep)


BAD = [
    # a card played twice: seat 0's only J went at turn 19
    (lambda: changed("turn 22: seat 0 plays 6 from hand", "turn 22: seat 0 plays J"),
     ["turn 22", "seat 0 plays J", "holds no J", "4.4"]),
    (lambda: changed("turn 10: seat 0 plays 9 9 9 from hand, draws 3",
                     "turn 10: seat 0 plays 9 9 9 9"), ["turn 10", "holds only 9 9 9"]),
    # a rank that may not go on the pile
    (lambda: changed("turn 19: seat 0 plays J from hand", "turn 19: seat 0 plays 6"),
     ["turn 19: seat 0 plays 6 on a 9, which takes J, Q, K, A, 2, 3 or 10", "shiesta.md 2"]),
    (lambda: changed("turn 5: seat 1 plays 6 from hand, draws 1", "turn 5: seat 1 plays K"),
     ["turn 5: seat 1 plays K on a 7, which takes 4, 5, 6, 2, 3 or 10"]),
    # out of turn
    (lambda: changed("turn 4: seat 0", "turn 4: seat 1"),
     ["turn 4 is played by seat 1, but it is seat 0's turn"]),
    (lambda: changed("turn 1: seat 0", "turn 1: seat 2"),
     ["turn 1 is played by seat 2, but seat 0 opens", "4.3"]),
    # the opening, pickups and the face-down row
    (lambda: changed("turn 1: seat 0 plays 4 4 from hand, draws 2", "turn 1: seat 0 plays 5"),
     ["turn 1", "opens with", "a 4", "4.3"]),
    (lambda: changed("turn 24: seat 2 picks up 1 card", "turn 24: seat 2 plays 8"),
     ["turn 24", "must pick up the pile after the 3 of turn 23", "shiesta.md 3"]),
    (lambda: changed("turn 20: seat 1 plays K from hand", "turn 20: seat 1 picks up"),
     ["turn 20", "may play 3 or K", "only with no legal set"]),
    (lambda: changed("turn 32: seat 1 plays Q from face-down", "turn 32: seat 1 plays 10"),
     ["turn 32", "first card of its face-down row is Q"]),
    (lambda: changed("turn 26: seat 1 plays 2 2 from face-up",
                     "turn 26: seat 1 plays 2 2 from hand"),
     ["turn 26", "from its hand", "its hand is empty", "face-up row"]),
    (lambda: changed("turn 1: seat 0 plays 4 4 from hand, draws 2",
                     "turn 1: seat 0 plays 4 4, draws 3"), ["turn 1", "draws 3", "draws 2"]),
    (lambda: changed("turn 16: seat 0 plays 5 from hand",
                     "turn 16: seat 0 plays 5, burns the pile"),
     ["turn 16", "burns the pile", "shiesta.md 3"]),
    (lambda: changed("turn 21: seat 2 picks up 5 cards", "turn 21: seat 2 picks up 4 cards"),
     ["turn 21", "picks up 4 cards", "picks up 5 cards"]),
    (lambda: full_text() + "turn 39: seat 2 plays 8\n", ["turn 39", "over after turn 38", "4.5"]),
    # wrong results
    (lambda: changed("winner: seat 1", "winner: seat 2"),
     ["the record says winner: seat 2, but the replay gives winner: seat 1"]),
    (lambda: changed("pickups: 0 0 3", "pickups: 0 1 3"), ["pickups: 0 1 3", "0 0 3"]),
    (lambda: changed("turns: 38", "turns: 37"), ["turns: 37", "turns: 38"]),
    # bad cards and a bad deal
    (lambda: changed("turn 5: seat 1 plays 6", "turn 5: seat 1 plays ZZ"),
     ["turn 5", "bad card 'ZZ'"]),
    (lambda: changed("seat 2 hand: 7 6 6 8 2", "seat 2 hand: 7 6 ZZ 8 2"),
     ["seat 2 hand", "bad card 'ZZ'"]),
    (lambda: changed("seat 2 hand: 7 6 6 8 2", "seat 2 hand: 7 6 6 8 K"),
     ["5 cards of rank K", "one deck of 52 have 4"]),
    (lambda: changed("seat 2 hand: 7 6 6 8 2", "seat 2 hand: 7 6 6 8"),
     ["seat 2 hand: 4 cards", "dealt 5"]),
    (lambda: changed("seat 2 hand: 7 6 6 8 2", "seat 2 hand: 7 6 6 8 2H"), ["2H", "ranks only"]),
    (lambda: changed("seat 0 puts face up: J K A", "seat 0 puts face up: J K Q"),
     ["seat 0 puts face up J K Q", "hold no Q", "4.2"]),
    # truncated without policies, unknown and malformed lines
    (lambda: cut_after(23), ["the record stops at turn 24, seat 2 to play",
                             "give --policy to play it out"]),
    (lambda: "\n".join(line for line in full_text().splitlines() if "puts face up" not in line),
     ["the record stops at the exchange, seat 0"]),
    (lambda: full_text() + "colour: red\n", ["unknown record line 'colour'"]),
    (lambda: full_text() + "the end\n", ["bad record line 'the end'", "key: value"]),
    (lambda: changed("turn 7:", "turn 8:"), ["turn 8", "out of order", "turn 7 belongs"]),
    (lambda: full_text() + "starter: 1\n", ["two 'starter' lines"]),
    (lambda: changed("turn 2: seat 1 plays 5", "turn 2: seat 1 plays 5 6"), ["one rank"]),
    (lambda: changed("turn 2: seat 1 plays 5 from hand", "turn 2: seat 1 dances"),
     ["turn 2", "bad turn"]),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_records_are_one_line_errors_naming_the_step(case):
    make, words = BAD[case]
    with pytest.raises(InputError) as err:
        SR.replay(make().splitlines(), RULES3, None, 5, 37)
    message = str(err.value)
    assert "\n" not in message, message
    for w in words:
        assert w in message, (w, message)


def test_the_bad_record_cases_are_good_before_their_change():
    """Each change above is what makes its record bad: the record it changes replays."""
    assert SR.replay(full_text().splitlines(), RULES3, None, 5, 37) == hand_written_game()
    # cut short, it is played out by the policies
    assert SR.replay(cut_after(23).splitlines(), RULES3, HEURISTIC3, 5, 37) \
        == hand_written_game()


def test_rules_that_change_the_record():
    """starter = fixed: the starter line may be left out, and must say 0; a face-down
    card that may not go on the pile is picked up with it; an odd number of 7s
    reverses the direction with seven_reverses."""
    rules = make_rules(overrides={"starter": "fixed", "seven_reverses": True}, players=4)
    policies = make_policies("random", 4)
    seen = set()
    for i in range(30):
        log = SR.play(rules, policies, SEED, i)
        lines = SR.body(log)
        text = "\n".join(lines)
        seen.update(w for w in ("reverses the direction", "from face-down, picks up")
                    if w in text)
        assert SR.replay([x for x in lines if x != "starter: 0"], rules, None, 0, 0) == log
    assert seen == {"reverses the direction", "from face-down, picks up"}
    with pytest.raises(InputError, match="with starter = fixed seat 0 starts"):
        SR.replay([x.replace("starter: 0", "starter: 1") for x in lines], rules, None, 0, 0)
    with pytest.raises(InputError, match="no 'starter' line"):
        SR.replay([x for x in SR.body(hand_written_game()) if not x.startswith("starter")],
                  RULES3, None, 0, 0)


def test_a_face_down_card_turned_must_be_the_right_one():
    """A blind pickup names the card turned; another card, or a pickup of a card
    that may go on the pile, is refused."""
    rules = make_rules(players=4)
    for i in range(40):
        lines = SR.body(SR.play(rules, make_policies("random", 4), SEED, i))
        blind = [x for x in lines if "from face-down, picks up" in x]
        if blind:
            break
    line = blind[0]
    turned = line.split(" turns ")[1].split()[0]
    other = "2" if turned != "2" else "4"          # a 2 always goes on the pile
    bad = [x.replace(f"turns {turned} ", f"turns {other} ") if x == line else x for x in lines]
    with pytest.raises(InputError, match=f"first card of its face-down row is {turned}"):
        SR.replay(bad, rules, None, 0, 0)
