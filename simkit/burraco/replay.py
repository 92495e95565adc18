"""Burraco records replayed (seeds/burraco.md 10): a record's turns played
again by the reference engine (:class:`Replay`, for :func:`simkit.burraco.record.replay`),
and the hand viewer's frames of a finished hand (:func:`frames`, seeds/records.md).

The record format, read and written, is :mod:`simkit.burraco.record`.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from typing import Any

from simkit.base.errors import InputError
from simkit.base.rng import Stream
from simkit.burraco.melds import MIN_MELD, face, read_meld
from simkit.burraco.notation import (
    ADD,
    DISCARD,
    DRAW,
    ENDS,
    GO_OUT,
    KEEP,
    MELD,
    POZZETTO,
    RESULT_PARTS,
    Action,
    Card,
    RecordedTurn,
    Written,
    pick,
    text,
    texts,
    written,
)
from simkit.burraco.reference import CAP, CLOSED, DIRECT, STOCK_OUT, WAY_TEXT, Hand
from simkit.burraco.reference_players import PILE, STOCK, WILD, extended, has_burraco, team_of
from simkit.burraco.reference_records import TEAMS, Event, HandLog, Turn, TurnEvent
from simkit.burraco.rules import BOOK, PLAYERS, POZZETTI, BurracoRules, Pozzetto
from simkit.policy import Policy
from simkit.records.frames import area, frame, group_label, plural, row
from simkit.records.script import Script

# ---------------------------------------------------------------------------
# Replaying
# ---------------------------------------------------------------------------

class Replay(Hand):
    """A hand replayed from a record (:class:`reference.Hand`).

    Each recorded turn's actions are checked against the rule book and
    applied in order; turns the record leaves out (and the rest of a turn cut
    short) are the policies' (``live``), or an error without them.  With
    policies, every recorded decision is asked of the seat's policy too,
    answer dropped (:class:`simkit.records.script.Script`), so that the stream stays
    where the run had it; a turn cut short is played by the policy from its
    start when the record's part of it is what the policy plays: a run's
    hand cut anywhere comes out as the run played it.
    """

    def __init__(self, rules: BurracoRules, policies: Sequence[Policy] | None, stream: Stream,
                 rec: Written) -> None:
        super().__init__(rules, policies, stream, hands=rec.hands, pozzetti=rec.pozzetti,
                         stock=rec.stock, pile=rec.pile, dealer=rec.dealer)
        self.script = Script(rec.turns, None if policies is None else self.decide)
        self.where, self.recording = "", False
        self.planned, self.keep_fixed, self.took = (2, False), False, None

    @property
    def live(self) -> bool:
        """Are there policies to play what the record leaves out?"""
        return self.script.live

    def fail(self, message: str) -> InputError:
        return InputError(f"{self.where}: {message}")

    # -- turns ---------------------------------------------------------------

    def play_turn(self) -> Turn:
        number, seat = len(self.turns) + 1, self.to_move
        where = f"at turn {number}, seat {seat} to play"
        rec = self.script.next(where)
        if rec is None:                                 # the policies' turn
            return super().play_turn()
        self.check_seat(rec)
        if not rec.actions:                             # a turn line alone: theirs too
            self.script.rest(where)
            return super().play_turn()
        cut = self.live and not any(a.key in ENDS for a in rec.actions)
        trial = copy.deepcopy(self) if cut else None
        turn, prefix = self.play_recorded(seat, list(rec.actions))
        if trial is not None and prefix is not None:
            own = Hand.play_turn(trial)
            if own.events[:prefix] == turn.events[:prefix]:
                self.__dict__.update(trial.__dict__)     # the policy's own turn: the run's
                return own
        return turn

    def check_seat(self, rec: RecordedTurn) -> None:
        self.where = f"turn {rec.number}"
        if rec.seat != self.to_move:
            raise self.fail(f"the record has seat {rec.seat} playing, but it is seat "
                            f"{self.to_move}'s turn: play passes left ({BOOK} 1, 7)")

    def play_recorded(self, seat: int, actions: list[Action]) -> tuple[Turn, int | None]:
        """A recorded turn; the number of its events the record gave, when the
        policy finished it (else None)."""
        self.events, self.recording, prefix = [], True, None
        draw = actions.pop(0)
        if draw.key != DRAW:
            raise self.fail(f"seat {seat} {_verb(draw)} before drawing: a turn starts with "
                            f"the draw ({BOOK} 2)")
        last = self.take_draw(seat, self.recorded_draw(seat, draw))
        if self.plays_on(last):
            if self.play_actions(seat, actions):
                prefix = len(self.events)
                self.finish(seat)
        elif actions:
            raise self.fail(f"the hand ends with seat {seat}'s draw, which leaves two cards "
                            f"in the stock ({BOOK} 5), but the record goes on with "
                            f"{actions[0].line!r}")
        self.recording = False
        return self.end_turn(seat, last), prefix

    def play_actions(self, seat: int, actions: list[Action]) -> bool:
        """Apply a turn's actions after the draw; True if they stop before its end
        (the policy to finish it)."""
        self.keep_fixed, self.took, done = False, None, False
        self.planned = self.script.ask(lambda d: d.keep(seat, self))    # the policy's keep
        for a in actions:
            took, self.took = self.took, None
            if a.key == POZZETTO and (took or not done):
                self.recorded_pozzetto(seat, a, took)
            elif done:
                over = (f"the hand is over: seat {seat} went out" if self.ended else
                        f"seat {seat}'s turn is over with its discard")
                raise self.fail(f"{over}, but the record goes on with {a.line!r}")
            elif a.key == DRAW:
                raise self.fail(f"seat {seat} draws again: a turn has one draw ({BOOK} 2)")
            elif a.key == KEEP:
                self.recorded_keep(seat, a)
            elif a.key == MELD:
                self.recorded_meld(seat, a)
            elif a.key == ADD:
                self.recorded_add(seat, a)
            else:
                self.recorded_end(seat, a)
                done = True
        if not done:
            self.script.rest(f"inside {self.where}, before seat {seat} discards")
        return not done

    def finish(self, seat: int) -> None:
        """The policy finishes a turn the record cuts short: its keep (unless the
        record gave one after the last pozzetto taken), melding, the discard."""
        self.recording = False
        if not self.keep_fixed:
            self.keep, self.going_out = self.planned
            self.events.append((Event.KEEP, self.keep))
        self.meld(seat)
        self.close_after_melding(seat)
        team, hand = team_of(seat), self.hands[seat]
        if len(hand) == 1:                  # the record left one card: only going out ends
            (card,) = hand                  # the turn once the team has its pozzetto
            if self.taken[team] >= 0 and has_burraco(self.melds[team]) and not WILD[card]:
                self.going_out = True
            elif self.taken[team] >= 0 or self.rules.pozzetto is Pozzetto.DIRECT:
                raise self.fail(f"seat {seat} is left holding one card, {text(card)}, which "
                                f"it can neither discard nor go out with ({BOOK} 4, 5)")
        self.discard(seat)

    def after_melding(self, seat: int) -> None:
        """§4, §7 (2): a hand emptied by a recorded meld takes the pozzetto
        directly (the policy plans its keep again, as after any pozzetto)."""
        if not self.recording:
            super().after_melding(seat)
        elif not self.hands[seat]:
            self.take_pozzetto(seat, DIRECT)
            self.took, self.keep_fixed = self.events[-1], False
            self.planned = self.script.ask(lambda d: d.keep(seat, self))

    # -- the actions ---------------------------------------------------------

    def recorded_keep(self, seat: int, a: Action) -> None:
        """§9: the player's plan, the fewest cards it keeps after melding (0: it
        means to take the pozzetto directly; 1 with the pozzetto taken: to go out)."""
        team = team_of(seat)
        if a.number == 0 and (self.taken[team] >= 0 or self.rules.pozzetto is Pozzetto.DISCARD):
            raise self.fail(f"seat {seat} keeps 0, but it cannot take a pozzetto directly: "
                            + ("its team has one" if self.taken[team] >= 0 else
                               "pozzetto = discard") + f" ({BOOK} 4, 9)")
        self.keep, self.keep_fixed = a.number, True
        self.going_out = a.number == 1 and self.taken[team] >= 0 and has_burraco(self.melds[team])
        self.events.append((Event.KEEP, a.number))

    def recorded_draw(self, seat: int, a: Action) -> int:
        """§2 (1), §7: the stock's top card, or the whole discard pile."""
        self.script.ask(lambda d: d.draw(seat, self.hands[seat], self.pile,
                                         self.melds[team_of(seat)]))
        if a.source == STOCK:
            top = self.stock[0]
            if len(a.cards) > 1 or (a.cards and not a.cards[0].matches(top)):
                raise self.fail(f"seat {seat} draws {written(a.cards)} from the stock, but "
                                f"its top card is {text(top)}: a draw from the stock takes "
                                f"its top card ({BOOK} 2)")
            return STOCK
        if not self.pile:
            raise self.fail(f"seat {seat} takes the discard pile, but it is empty ({BOOK} 7)")
        if a.cards and (len(a.cards) != len(self.pile)
                        or not all(w.matches(c) for w, c in zip(a.cards, self.pile))):
            raise self.fail(f"seat {seat} takes the discard pile as {written(a.cards)}, but it "
                            f"holds {texts(self.pile)} (bottom first): the pile is taken "
                            f"whole ({BOOK} 2, 7)")
        return PILE

    def from_hand(self, seat: int, a: Action) -> list[int]:
        """The ids of the action's cards in the seat's hand."""
        bad = pick(a.cards, self.hands[seat])
        if not isinstance(bad, Card):
            return bad
        held = sum(1 for c in self.hands[seat] if bad.matches(c))
        why = ("which it does not hold" if len(a.cards) == 1 else
               f"but holds only {held} {bad.written}" if held else
               f"but does not hold {bad.written}")
        raise self.fail(f"seat {seat} {_verb(a)}, {why} ({self.whereabouts(bad)})")

    def whereabouts(self, card: Card) -> str:
        """Where the cards written ``card`` are: ``8H in meld 0.1, 8H' in the stock``."""
        places: list[tuple[str, Collection[int]]] = [
            (f"seat {s}'s hand", h) for s, h in enumerate(self.hands)]
        places += [(f"meld {t}.{i + 1}", m.cards) for t in range(TEAMS)
                   for i, m in enumerate(self.melds[t])]
        places += [(f"pozzetto {n + 1}", p) for n, p in enumerate(self.pozzetti)]
        places += [("the stock", self.stock), ("the discard pile", self.pile)]
        return ", ".join(f"{text(c)} in {name}" for name, cards in places
                         for c in sorted(cards) if card.matches(c))

    def check_emptying(self, seat: int, a: Action, cards: int) -> None:
        """§2, §4: melding may empty the hand only to take the pozzetto directly."""
        if len(self.hands[seat]) > cards:
            return
        if self.taken[team_of(seat)] >= 0:
            raise self.fail(f"seat {seat} {_verb(a)} and empties its hand, but its team has "
                            f"taken its pozzetto: a hand is emptied only to take the "
                            f"pozzetto, or by the last discard, going out ({BOOK} 2, 5)")
        if self.rules.pozzetto is Pozzetto.DISCARD:
            raise self.fail(f"seat {seat} {_verb(a)} and empties its hand, but with pozzetto "
                            f"= discard the pozzetto is taken only on the discard ({BOOK} 4)")

    def recorded_meld(self, seat: int, a: Action) -> None:
        """§3: a new meld from the hand, named as the team's next."""
        team, (t, n) = team_of(seat), a.meld
        nxt = len(self.melds[team]) + 1
        if (t, n) != (team, nxt):
            raise self.fail(f"seat {seat} lays meld {t}.{n}, but the next meld of its team "
                            f"(team {team}) is {team}.{nxt} ({BOOK} 10)")
        cards = self.from_hand(seat, a)
        meld = read_meld(cards, self.meld_rules, a.kind)
        if meld is None:
            what = f"a {a.kind}" if a.kind else "a meld (a set or a sequence)"
            few = f": a meld has at least {MIN_MELD} cards" if len(cards) < MIN_MELD else ""
            raise self.fail(f"seat {seat} lays {written(a.cards)}, which is not {what}{few} "
                            f"({BOOK} 3)")
        self.check_emptying(seat, a, len(cards))
        self.lay(seat, cards, meld.kind)

    def recorded_add(self, seat: int, a: Action) -> None:
        """§2, §3: cards added one at a time, in the order written, to a meld of the
        seat's own team; each must leave it valid."""
        team, (t, n) = team_of(seat), a.meld
        if t != team:
            raise self.fail(f"seat {seat} {_verb(a)}, a meld of the other team: a player adds "
                            f"only to its own team's melds ({BOOK} 2)")
        if n > len(self.melds[team]):
            raise self.fail(f"seat {seat} {_verb(a)}, but team {team} has "
                            f"{len(self.melds[team])} melds ({BOOK} 10)")
        for card in self.from_hand(seat, a):
            meld = self.melds[team][n - 1]
            new = extended(meld, card, self.meld_rules)
            if new is None:
                raise self.fail(f"seat {seat} {_verb(a)}, but {meld.kind} {texts(meld.cards)} "
                                f"with {text(card)} is not a valid {meld.kind} ({BOOK} 3)")
            self.check_emptying(seat, a, 1)
            self.add(seat, n - 1, card, new)

    def recorded_pozzetto(self, seat: int, a: Action, took: TurnEvent | None) -> None:
        """§4: a pozzetto line names the one the seat just took (it is taken
        when the hand empties; the line may be left out)."""
        said = f"seat {seat} takes pozzetto {a.number} {WAY_TEXT[a.way]}"
        if took is None:
            raise self.fail(f"{said}, but it has not just emptied its hand: a pozzetto is "
                            f"taken when a melding or a discard empties the hand of a player "
                            f"whose team has none ({BOOK} 4)")
        _, way, number = took
        if (a.way, a.number) != (way, number + 1):
            raise self.fail(f"{said}, but the one it takes is pozzetto {number + 1}, "
                            f"{WAY_TEXT[way]}: pozzetto 1 goes to the first team to take one, "
                            f"and a hand emptied by melding takes it directly ({BOOK} 4)")

    def recorded_end(self, seat: int, a: Action) -> None:
        """§2 (3), §4, §5: the discard (taking the pozzetto if it empties the
        hand), or going out."""
        team, hand = team_of(seat), self.hands[seat]
        # the policy's going-out choice (§9.1) and its discard
        self.script.ask(lambda d: d.closes_after(seat, self, self.planned[0]))
        if a.key == DISCARD:
            self.script.ask(lambda d: d.discard(seat, self))
        (card,) = self.from_hand(seat, a)
        if a.key == GO_OUT:
            why = ("it holds more cards: going out discards the last card" if len(hand) > 1
                   else "its team has not taken its pozzetto" if self.taken[team] < 0
                   else "its team has no burraco" if not has_burraco(self.melds[team])
                   else "the last card may not be a wild card" if WILD[card] else "")
            if why:
                raise self.fail(f"seat {seat} goes out discarding {text(card)}, but {why} "
                                f"({BOOK} 5)")
            self.close_with(seat, card)
            return
        if len(hand) == 1 and self.taken[team] >= 0:
            raise self.fail(f"seat {seat} discards its last card, {text(card)}, but its team "
                            f"has taken its pozzetto: that is going out, written 'go out: "
                            f"{text(card)}' ({BOOK} 5)")
        if len(hand) == 1 and self.rules.pozzetto is Pozzetto.DIRECT:
            raise self.fail(f"seat {seat} discards its last card, {text(card)}, but with "
                            f"pozzetto = direct the pozzetto is taken only directly: a hand is "
                            f"emptied only to take the pozzetto or to go out ({BOOK} 4)")
        self.put_discard(seat, card)
        if not hand:
            self.took = self.events[-1]

    def check_over(self) -> None:
        """Turns recorded after the hand is over are an error."""
        how = {CLOSED: f"seat {self.closer} went out",
               STOCK_OUT: "the stock is down to two cards",
               CAP: f"the turn cap, max_turns = {self.rules.max_turns}"}[self.ended]
        self.script.done(lambda rec: f"the hand is over after turn {len(self.turns)} ({how}), "
                                     f"but the record goes on with turn {rec.number}")


def _verb(a: Action) -> str:
    """What an action does, for messages: ``lays 7C 7D 7H``, ``adds 8S to meld 0.1``."""
    cards = written(a.cards)
    if a.key in (MELD, ADD):
        t, n = a.meld
        return f"lays {cards}" if a.key == MELD else f"adds {cards} to meld {t}.{n}"
    return {DRAW: "draws", KEEP: f"keeps {a.number}", POZZETTO: "takes a pozzetto",
            DISCARD: f"discards {cards}", GO_OUT: f"goes out discarding {cards}"}[a.key]


# ---------------------------------------------------------------------------
# The hand viewer's frames (seeds/records.md)
# ---------------------------------------------------------------------------

class _Walk(Hand):
    """The reference engine's hand moved by a finished log's events, for
    :func:`frames`: each event is made with the hand's own step (the draw, a
    meld, an addition, the discard, going out), and a hand emptied by melding
    takes its pozzetto at once (§4) without asking a policy its next keep."""

    def __init__(self, log: HandLog):
        super().__init__(log.rules, None, None, hands=log.start_hands,
                         pozzetti=log.start_pozzetti, stock=log.start_stock,
                         pile=log.start_pile, melds=log.start_melds, dealer=log.dealer,
                         to_move=log.turns[0].seat if log.turns else None,
                         taken=log.start_taken, turns=log.first_turn - 1)
        self.last = False                   # the turn's draw left two cards in the stock

    def after_melding(self, seat: int) -> None:
        if not self.hands[seat]:
            self.take_pozzetto(seat, DIRECT)

    def make(self, seat: int, event: tuple[Any, ...]) -> tuple[str, set[Any]]:
        """Make one event of the log (not a keep, not a pozzetto): its caption and
        what it touched on the table (``"stock"``, ``"pile"``, ``(team, meld)``)."""
        kind, team = event[0], team_of(seat)
        if kind == Event.DRAW:
            self.last = self.take_draw(seat, event[1])
            if event[1] == STOCK:
                return f"seat {seat} draws {texts(event[2])} from the stock", {"stock"}
            return f"seat {seat} takes the discard pile, {texts(event[2])}", {"pile"}
        if kind == Event.MELD:
            self.lay(seat, list(event[2]), event[1])
            meld = self.melds[team][event[3]]
            return (f"seat {seat} lays meld {team}.{event[3] + 1}, {meld.kind} "
                    f"{texts(meld.cards)}", {(team, event[3])})
        if kind == Event.ADD:
            m, card = event[1], event[2]
            new = extended(self.melds[team][m], card, self.meld_rules)
            assert new is not None, event                  # the log's addition was valid
            self.add(seat, m, card, new)
            return f"seat {seat} adds {text(card)} to meld {team}.{m + 1}", {(team, m)}
        if kind == Event.DISCARD:
            self.put_discard(seat, event[1])
            return f"seat {seat} discards {text(event[1])}", {"pile"}
        self.close_with(seat, event[1])
        return f"seat {seat} goes out, discarding {text(event[1])}", {"pile"}


def _by_face(c: int) -> tuple[int, int]:
    """A hand's order, as its deal line (:func:`hand_text`): C D H S, A 2 .. K, jokers last."""
    return face(c), c


def _pozzetto_text(hand: Hand, number: int) -> str:
    for t in range(TEAMS):
        if hand.taken[t] == number:
            turn = hand.pozzetto_turn[t]
            return f"taken by team {t}" + (f" on turn {turn}" if turn > 0 else "")
    return plural(len(hand.pozzetti[number]), "card")


def _snapshot(hand: Hand, caption: str, actor: int, touched: set[Any]) -> dict[str, Any]:
    """A frame of ``hand`` as it stands: every meld (the one ``touched`` marked,
    with its burraco), the discard pile, the stock, the pozzetti and each team's
    score if the hand ended now, written as its record line (§6)."""
    areas = [area(f"Team {t} melds",
                  [row(f"{t}.{m + 1} {meld.kind}", [text(c) for c in meld.cards],
                       ("clean burraco" if meld.clean else "dirty burraco") if meld.burraco
                       else "", (t, m) in touched)
                   for m, meld in enumerate(hand.melds[t])]) for t in range(TEAMS)]
    areas.append(area("Table", [
        row("discard pile", [text(c) for c in hand.pile], plural(len(hand.pile), "card"),
            "pile" in touched),
        row("stock", text=plural(len(hand.stock), "card"), mark="stock" in touched)]))
    areas.append(area("Pozzetti", [row(f"pozzetto {n + 1}", text=_pozzetto_text(hand, n),
                                       mark=("pozzetto", n) in touched)
                                   for n in range(POZZETTI)]))
    sep, names = RESULT_PARTS["score"]
    score = [(group_label("team", t, range(t, PLAYERS, TEAMS)),
              f"{p['score']} = " + sep.join(f"{name} {p[col]}" for name, col in names.items()))
             for t, p in enumerate(hand.scores())]
    return frame(caption, actor, [[text(c) for c in sorted(h, key=_by_face)] for h in hand.hands],
                 areas, score)


def frames(log: HandLog) -> list[dict[str, Any]]:
    """The hand viewer's frames (:mod:`simkit.bygame.view`): the deal, then one frame per
    draw, meld, addition and discard (or going out), a pozzetto taken shown
    with the move that emptied the hand; each state the reference engine's as
    it makes the log's events again (:class:`_Walk`).  A keep is a plan, not a
    move: it has no frame."""
    hand = _Walk(log)
    ends = {CLOSED: "seat {} went out", STOCK_OUT: "the stock is down to two cards",
            CAP: "the turn cap is reached"}
    out = [_snapshot(hand, f"the deal: seat {log.dealer} deals", log.dealer, set())]
    for number, turn in enumerate(log.turns, start=log.first_turn):
        events = [e for e in turn.events if e[0] != Event.KEEP]
        for i, event in enumerate(events):
            if event[0] == Event.POZZETTO:
                continue                    # taken with the move before it
            caption, touched = hand.make(turn.seat, event)
            took = events[i + 1] if i + 1 < len(events) else None
            if took and took[0] == Event.POZZETTO:
                caption += f" and takes pozzetto {took[2] + 1} {WAY_TEXT[took[1]]}"
                touched.add(("pozzetto", took[2]))
            if all(e[0] == Event.POZZETTO for e in events[i + 1:]):
                hand.end_turn(turn.seat, hand.last)
                if hand.turns[-1].events != events:
                    raise AssertionError(f"turn {number} of the hand's log does not replay")
                if hand.ended:
                    caption += "; the hand is over: " + ends[hand.ended].format(hand.closer)
            out.append(_snapshot(hand, f"turn {number}: {caption}", turn.seat, touched))
    return out
