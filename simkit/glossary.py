"""Every word of the games and of simkit's answers that a card player may not
know, defined once in plain words, with where it comes from.

The browser app shows these definitions where the words appear (a tap or the
keyboard opens them, not only a mouse hover), and the documentation lists
them; both read :func:`as_json`.  A term belongs to the games it names (none:
every game); ``source`` is the rule-book section it comes from
(``seeds/pepper.md 3``) or the part of simkit that defines it.

>>> lookup("Kubwa", "pepper").word
'Pilipili Kubwa'
>>> lookup("kubwa", "pitch") is None
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Term:
    """One glossary entry: its key, the word as written, what it means, where it
    comes from, the games it belongs to (empty: all) and other spellings."""

    key: str
    word: str
    means: str
    source: str
    games: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


PEPPER, PITCH, SHIESTA, BURRACO = ("pepper",), ("pitch",), ("shiesta",), ("burraco",)

TERMS: tuple[Term, ...] = (
    # --- Pepper (Pilipili) ----------------------------------------------------------------
    Term("pepper-bid", "bid", "How many of the hand's tricks your side promises to win "
         "(1 to 5 with four players; 1 to 7 with two or three). Making it scores the tricks "
         "won; failing loses the hand size (6, or 8).", "seeds/pepper.md 3, 5", PEPPER,
         ("number bid",)),
    Term("ndogo", "Pilipili Ndogo", "A bid to win every trick. Made, it scores the hand size "
         "(6, or 8) times the Ndogo stake (1 by default); failed, it loses as much.",
         "seeds/pepper.md 3, 5", PEPPER, ("Ndogo",)),
    Term("kubwa", "Pilipili Kubwa", "The highest bid: every trick, at twice the hand size by "
         "default (+12 or -12 with four players). Nothing can outbid it, so the auction ends "
         "at once.", "seeds/pepper.md 3, 5", PEPPER, ("Kubwa",)),
    Term("pepper-pass", "pass", "Not to bid. With the default open auction a pass is final; "
         "if everyone passes the hand is thrown in.", "seeds/pepper.md 3.1", PEPPER),
    Term("thrown-in", "thrown in", "Everyone passed: the hand is not played and nobody scores "
         "(or, with stick-the-dealer, the dealer must play a 1).", "seeds/pepper.md 3.2",
         PEPPER),
    Term("bowers", "bowers", "The two jacks that rank above the ace of trumps: the right "
         "bower (the jack of trumps, highest) and the left bower (the other jack of the same "
         "colour, which counts as a trump).", "seeds/pepper.md 2", PEPPER,
         ("bower", "right bower", "left bower")),
    Term("no-trump", "no trump", "A contract with no trump suit: the highest card of the suit "
         "led wins each trick.", "seeds/pepper.md 3.3", PEPPER, ("NT",)),
    Term("pepper-side", "side", "With four players, a partnership (seats 0 and 2 against 1 "
         "and 3); with two or three, each player alone.", "seeds/pepper.md 1", PEPPER,
         ("team",)),
    # --- Pitch ----------------------------------------------------------------------------
    Term("pitcher", "pitcher", "The player who won the auction. The suit of the card the "
         "pitcher leads first is trump.", "seeds/pitch.md 2, 3", PITCH),
    Term("pitch-bid", "bid", "How many of the hand's four points (High, Low, Jack, Game) the "
         "bidder promises to win: 2, 3 or 4. Made, it scores the points won; failed, it loses "
         "the bid.", "seeds/pitch.md 2, 5", PITCH),
    Term("moon", "shoot the moon", "The highest bid: all four points and all six tricks. "
         "Made, it collects a dollar from every other player (and scores its points); failed, "
         "it pays each of them a dollar.", "seeds/pitch.md 2, 5, 7", PITCH, ("moon",)),
    Term("high-low-jack-game", "High, Low, Jack and Game", "The four points of a hand: High "
         "for the highest trump dealt, Low for the lowest (to whoever wins it in a trick), "
         "Jack for winning the jack of trumps, Game for the most card points in the tricks won "
         "(A 4, K 3, Q 2, J 1, 10 10).", "seeds/pitch.md 4", PITCH,
         ("High", "Low", "Jack", "Game")),
    Term("stuck", "stuck dealer", "When everyone else passes, the dealer must bid (2, by the "
         "rule book).", "seeds/pitch.md 2", PITCH, ("stuck",)),
    Term("steal", "steal", "The dealer may take the bid by matching the high bid instead of "
         "raising it.", "seeds/pitch.md 2", PITCH),
    Term("session", "money session", "A sitting of hands played for money: at the end each "
         "player receives (or pays) 10 cents a point above (below) the average score; moons "
         "pay a dollar from each other player.", "seeds/pitch.md 7", PITCH, ("session",)),
    # --- Shiesta --------------------------------------------------------------------------
    Term("pile", "pile", "The discard pile; its top card decides what may be played next "
         "(a higher rank; below 7 after a 7).", "seeds/shiesta.md 2", SHIESTA),
    Term("pickup", "pickup", "Taking the whole pile into your hand, when you cannot (or must "
         "not, after a 3) play on it: the whole turn.", "seeds/shiesta.md 3, 4", SHIESTA,
         ("pick up", "pickups")),
    Term("specials", "special cards", "2 is wild (it goes on anything); a 3 makes the next "
         "player pick up the pile; after a 7 the next card must be below 7; a 10 burns the "
         "pile.", "seeds/shiesta.md 3", SHIESTA, ("special", "specials")),
    Term("burn", "burn", "A 10 sends the whole pile out of the game; the next player starts "
         "a new one.", "seeds/shiesta.md 3", SHIESTA, ("burned",)),
    Term("starter", "starter", "The player who plays first in a game; seats are counted from "
         "the starter.", "seeds/shiesta.md 4", SHIESTA),
    # --- Burraco --------------------------------------------------------------------------
    Term("meld", "meld", "Cards laid face up on the team's table: a set (one rank) or a "
         "sequence (consecutive cards of one suit), at least three cards, at most one wild "
         "card.", "seeds/burraco.md 3", BURRACO, ("melds", "set", "sequence")),
    Term("wild", "wild card", "A joker or a 2: it can stand for a missing card in a meld.",
         "seeds/burraco.md 3", BURRACO, ("wild", "wilds")),
    Term("burraco", "burraco", "A meld of seven or more cards: 200 points when clean (no wild "
         "card standing in), 100 when dirty.", "seeds/burraco.md 3, 6", BURRACO,
         ("burracos", "clean burraco", "dirty burraco", "clean", "dirty")),
    Term("pozzetto", "pozzetto", "A spare hand of eleven cards per team, taken by the first "
         "player of the team to run out of cards; a team that never takes it loses 100.",
         "seeds/burraco.md 4, 6", BURRACO),
    Term("going-out", "going out", "Ending the hand by laying down every card but a last "
         "discard: allowed once the team has taken its pozzetto and made a burraco; +100.",
         "seeds/burraco.md 5", BURRACO, ("close", "closed", "closing")),
    # --- simkit's answers (every game) ----------------------------------------------------
    Term("ev", "EV", "Expected value: the average points (Pitch: dollars) a plan brings your "
         "side per hand, over every deal of the unseen cards that was played out.",
         "simkit advise (seeds/pepper.md 9.3)", (), ("expected value",)),
    Term("interval", "95% interval", "The range that holds the true value with 95% "
         "confidence, given how many deals were played: more deals, a narrower range.",
         "simkit/stats.py", (), ("interval", "95% CI", "CI")),
    Term("holds", "holds", "How often your side ends up with the contract when you bid this "
         "way (others may outbid you).", "simkit advise", (), ("hold",)),
    Term("made", "made", "How often the side holding the contract makes it.", "simkit advise",
         (), ("make",)),
    Term("win-chance", "chance to win", "How often your side goes on to win the whole game "
         "from this score, playing on from here; near the end of a game this, not points a "
         "hand, decides.", "simkit advise --score", (), ("win chance", "chance to win the "
                                                          "game")),
    Term("pp", "pp", "Percentage points: the difference between two percentages (from 40% to "
         "45% is +5 pp).", "simkit", (), ("percentage points",)),
    Term("plan", "plan", "A way to bid this hand (pass, a level, or as the policy would), "
         "played through the whole auction against the other seats' policies.",
         "seeds/pepper.md 9.3", ("pepper", "pitch"), ("plans",)),
    Term("policy", "policy", "A simulated player: how it bids and plays (random, the "
         "heuristic with its parameters, or Pepper's searching expert).", "seeds/<game>.md",
         (), ("policies", "heuristic")),
    Term("seat", "seat", "A place at the table, numbered clockwise from 0; \"left of\" a seat "
         "is the next number.", "seeds/<game>.md 1", ()),
    Term("dealer", "dealer", "The seat that deals the hand; bidding (and play) starts at its "
         "left.", "seeds/<game>.md 1", ()),
    Term("duplicate", "duplicate deals", "The same cards played twice with the seats "
         "swapped, so that the luck of the deal cancels and only the players differ.",
         "simkit tournament", (), ("duplicate",)),
    Term("p-value", "p-value", "How often a difference this large would appear by chance if "
         "the two were really the same; Holm's p corrects it for the many tests of one "
         "comparison.", "simkit compare", (), ("p", "Holm's p", "p Holm")),
    Term("adapted", "adapted players", "Players whose settings were re-tuned to a variant's "
         "rules before it is compared, as real players would adjust.", "simkit compare "
         "--adapt", (), ("adapt", "adapted")),
    Term("skill-trace", "skill trace", "Each player of the ladder (random, classic, the "
         "default, the expert) against the one below it: how much better play wins.",
         "simkit compare", (), ("skill",)),
    Term("comeback", "comeback", "A game won by a side that was behind halfway through.",
         "simkit/drama.py", (), ("comebacks", "lead changes", "lead change")),
)


def lookup(word: str, game: str | None = None) -> Term | None:
    """The term for ``word`` (its key, word or an alias, any case) that belongs to
    ``game`` (or to every game), or None."""
    w = word.strip().lower()
    for t in TERMS:
        if game is not None and t.games and game not in t.games:
            continue
        if w in (t.key, t.word.lower(), *(a.lower() for a in t.aliases)):
            return t
    return None


def for_game(game: str) -> list[Term]:
    """The terms of ``game`` and those of every game."""
    return [t for t in TERMS if not t.games or game in t.games]


def as_json() -> dict:
    """The glossary as the pages and the documentation read it."""
    return {"terms": [asdict(t) for t in TERMS]}
