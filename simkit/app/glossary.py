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
    Term("pepper-bid", "bid",
         means="How many of the hand's tricks your side promises to win (1 to 5 with four "
               "players; 1 to 7 with two or three). Making it scores the tricks won; failing "
               "loses the hand size (6, or 8).",
         source="seeds/pepper.md 3, 5", games=PEPPER, aliases=("number bid",)),
    Term("ndogo", "Pilipili Ndogo",
         means="A bid to win every trick. Made, it scores the hand size (6, or 8) times the Ndogo "
               "stake (1 by default); failed, it loses as much.",
         source="seeds/pepper.md 3, 5", games=PEPPER, aliases=("Ndogo",)),
    Term("kubwa", "Pilipili Kubwa",
         means="The highest bid: every trick, at twice the hand size by default (+12 or -12 with "
               "four players). Nothing can outbid it, so the auction ends at once.",
         source="seeds/pepper.md 3, 5", games=PEPPER, aliases=("Kubwa",)),
    Term("pepper-pass", "pass",
         means="Not to bid. With the default open auction a pass is final; if everyone passes the "
               "hand is thrown in.",
         source="seeds/pepper.md 3.1", games=PEPPER),
    Term("thrown-in", "thrown in",
         means="Everyone passed: the hand is not played and nobody scores (or, with "
               "stick-the-dealer, the dealer must play a 1).",
         source="seeds/pepper.md 3.2", games=PEPPER),
    Term("bowers", "bowers",
         means="The two jacks that rank above the ace of trumps: the right bower (the jack of "
               "trumps, highest) and the left bower (the other jack of the same colour, which "
               "counts as a trump).",
         source="seeds/pepper.md 2", games=PEPPER, aliases=("bower", "right bower", "left bower")),
    Term("no-trump", "no trump",
         means="A contract with no trump suit: the highest card of the suit led wins each trick.",
         source="seeds/pepper.md 3.3", games=PEPPER, aliases=("NT",)),
    Term("pepper-side", "side",
         means="With four players, a partnership (seats 0 and 2 against 1 and 3); with two or "
               "three, each player alone.",
         source="seeds/pepper.md 1", games=PEPPER, aliases=("team",)),
    # --- Pitch ----------------------------------------------------------------------------
    Term("pitcher", "pitcher",
         means="The player who won the auction. The suit of the card the pitcher leads first is "
               "trump.",
         source="seeds/pitch.md 2, 3", games=PITCH),
    Term("pitch-bid", "bid",
         means="How many of the hand's four points (High, Low, Jack, Game) the bidder promises to "
               "win: 2, 3 or 4. Made, it scores the points won; failed, it loses the bid.",
         source="seeds/pitch.md 2, 5", games=PITCH),
    Term("moon", "shoot the moon",
         means="The highest bid: all four points and all six tricks. Made, it collects a dollar "
               "from every other player (and scores its points); failed, it pays each of them a "
               "dollar.",
         source="seeds/pitch.md 2, 5, 7", games=PITCH, aliases=("moon",)),
    Term("high-low-jack-game", "High, Low, Jack and Game",
         means="The four points of a hand: High for the highest trump dealt, Low for the lowest "
               "(to whoever wins it in a trick), Jack for winning the jack of trumps, Game for "
               "the most card points in the tricks won (A 4, K 3, Q 2, J 1, 10 10).",
         source="seeds/pitch.md 4", games=PITCH, aliases=("High", "Low", "Jack", "Game")),
    Term("stuck", "stuck dealer",
         means="When everyone else passes, the dealer must bid (2, by the rule book).",
         source="seeds/pitch.md 2", games=PITCH, aliases=("stuck",)),
    Term("steal", "steal",
         means="The dealer may take the bid by matching the high bid instead of raising it.",
         source="seeds/pitch.md 2", games=PITCH),
    Term("session", "money session",
         means="A sitting of hands played for money: at the end each player receives (or pays) 10 "
               "cents a point above (below) the average score; moons pay a dollar from each other "
               "player.",
         source="seeds/pitch.md 7", games=PITCH, aliases=("session",)),
    # --- Shiesta --------------------------------------------------------------------------
    Term("pile", "pile",
         means="The discard pile; its top card decides what may be played next (a higher rank; "
               "below 7 after a 7).",
         source="seeds/shiesta.md 2", games=SHIESTA),
    Term("pickup", "pickup",
         means="Taking the whole pile into your hand, when you cannot (or must not, after a 3) "
               "play on it: the whole turn.",
         source="seeds/shiesta.md 3, 4", games=SHIESTA, aliases=("pick up", "pickups")),
    Term("specials", "special cards",
         means="2 is wild (it goes on anything); a 3 makes the next player pick up the pile; "
               "after a 7 the next card must be below 7; a 10 burns the pile.",
         source="seeds/shiesta.md 3", games=SHIESTA, aliases=("special", "specials")),
    Term("burn", "burn",
         means="A 10 sends the whole pile out of the game; the next player starts a new one.",
         source="seeds/shiesta.md 3", games=SHIESTA, aliases=("burned",)),
    Term("starter", "starter",
         means="The player who plays first in a game; seats are counted from the starter.",
         source="seeds/shiesta.md 4", games=SHIESTA),
    # --- Burraco --------------------------------------------------------------------------
    Term("meld", "meld",
         means="Cards laid face up on the team's table: a set (one rank) or a sequence "
               "(consecutive cards of one suit), at least three cards, at most one wild card.",
         source="seeds/burraco.md 3", games=BURRACO, aliases=("melds", "set", "sequence")),
    Term("wild", "wild card",
         means="A joker or a 2: it can stand for a missing card in a meld.",
         source="seeds/burraco.md 3", games=BURRACO, aliases=("wild", "wilds")),
    Term("burraco", "burraco",
         means="A meld of seven or more cards: 200 points when clean (no wild card standing in), "
               "100 when dirty.",
         source="seeds/burraco.md 3, 6",
         games=BURRACO, aliases=("burracos", "clean burraco", "dirty burraco", "clean", "dirty")),
    Term("pozzetto", "pozzetto",
         means="A spare hand of eleven cards per team, taken by the first player of the team to "
               "run out of cards; a team that never takes it loses 100.",
         source="seeds/burraco.md 4, 6", games=BURRACO),
    Term("going-out", "going out",
         means="Ending the hand by laying down every card but a last discard: allowed once the "
               "team has taken its pozzetto and made a burraco; +100.",
         source="seeds/burraco.md 5", games=BURRACO, aliases=("close", "closed", "closing")),
    # --- simkit's answers (every game) ----------------------------------------------------
    Term("ev", "EV",
         means="Expected value: the average points (Pitch: dollars) a plan brings your side per "
               "hand, over every deal of the unseen cards that was played out.",
         source="simkit advise (seeds/pepper.md 9.3)", games=(), aliases=("expected value",)),
    Term("interval", "95% interval",
         means="The range that holds the true value with 95% confidence, given how many deals "
               "were played: more deals, a narrower range.",
         source="simkit/base/stats.py", games=(), aliases=("interval", "95% CI", "CI")),
    Term("holds", "holds",
         means="How often your side ends up with the contract when you bid this way (others may "
               "outbid you).",
         source="simkit advise", games=(), aliases=("hold",)),
    Term("made", "made",
         means="How often the side holding the contract makes it.",
         source="simkit advise", games=(), aliases=("make",)),
    Term("win-chance", "chance to win",
         means="How often your side goes on to win the whole game from this score, playing on "
               "from here; near the end of a game this, not points a hand, decides.",
         source="simkit advise --score",
         games=(), aliases=("win chance", "chance to win the game")),
    Term("pp", "pp",
         means="Percentage points: the difference between two percentages (from 40% to 45% is +5 "
               "pp).",
         source="simkit", games=(), aliases=("percentage points",)),
    Term("plan", "plan",
         means="A way to bid this hand (pass, a level, or as the policy would), played through "
               "the whole auction against the other seats' policies.",
         source="seeds/pepper.md 9.3", games=('pepper', 'pitch'), aliases=("plans",)),
    Term("policy", "policy",
         means="A simulated player: how it bids and plays (random, the heuristic with its "
               "parameters, or Pepper's searching expert).",
         source="seeds/<game>.md", games=(), aliases=("policies", "heuristic")),
    Term("seat", "seat",
         means="A place at the table, numbered clockwise from 0; \"left of\" a seat is the next "
               "number.",
         source="seeds/<game>.md 1", games=()),
    Term("dealer", "dealer",
         means="The seat that deals the hand; bidding (and play) starts at its left.",
         source="seeds/<game>.md 1", games=()),
    Term("duplicate", "duplicate deals",
         means="The same cards played twice with the seats swapped, so that the luck of the deal "
               "cancels and only the players differ.",
         source="simkit tournament", games=(), aliases=("duplicate",)),
    Term("p-value", "p-value",
         means="How often a difference this large would appear by chance if the two were really "
               "the same; Holm's p corrects it for the many tests of one comparison.",
         source="simkit compare", games=(), aliases=('p', "Holm's p", 'p Holm')),
    Term("adapted", "adapted players",
         means="Players whose settings were re-tuned to a variant's rules before it is compared, "
               "as real players would adjust.",
         source="simkit compare --adapt", games=(), aliases=("adapt", "adapted")),
    Term("skill-trace", "skill trace",
         means="Each player of the ladder (random, classic, the default, the expert) against the "
               "one below it: how much better play wins.",
         source="simkit compare", games=(), aliases=("skill",)),
    Term("comeback", "comeback",
         means="A game won by a side that was behind halfway through.",
         source="simkit/lab/drama.py",
         games=(), aliases=("comebacks", "lead changes", "lead change")),
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
