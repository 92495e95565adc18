"""Scenario tests of the heuristic's six fixes (seeds/pitch.md 8.2), each the
position from the issue: the card or call the new default makes and the one
the old setting (policies.NAMED["classic"], or the one parameter at its old
value) makes.  The kernel is held to the same decisions by the differential
tests (tests/pitch/test_pitch_differential.py, default and classic tables).
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit.pitch import reference as R
from simkit.pitch import reference_players as H
from simkit.pitch.api import fixed_hands
from simkit.pitch.policies import NAMED, make_policies
from simkit.pitch.rules import DECK, MOON, PASS, make_rules

S = 3                       # spades trump throughout
P = R.Play
NEW = make_policies("heuristic", 1)[0].params
UNTUNED = make_policies("untuned", 1)[0].params
OLD = make_policies(NAMED["classic"], 1)[0].params


def cards(text):
    return DECK.parse_hand(text)


def card(text):
    return DECK.parse(text)


def follow(seat, legal, trick, seen, params):
    """The heuristic's card for ``seat``, pitcher 0, spades trump; ``seen``: the
    rest of its view (hand, played, voids, players)."""
    return H.follow_card(H.PlayView(seat=seat, pitcher=0, **seen), legal, trick, S, params)


def test_classic_parses_and_differs_from_default():
    (p,) = make_policies(NAMED["classic"], 1)
    assert p.name == "heuristic"
    assert (p.params.moon_rule, p.params.low_value, p.params.dealer_match,
            p.params.cash_chance, p.params.partner_cover, p.params.risk_points) == \
        ("run", "held", False, 101, "low", 11)
    assert NEW.moon_rule == "sure"
    assert NEW.cash_chance == 50
    assert NEW.risk_points == 10


# --- 1. "no trumps out": the boss side card is cashed --------------------------

def test_cash_boss_side_card_when_others_showed_out():
    """Pitcher 0 drew trumps for three tricks; seats 2 and 3 showed out on the first
    trump lead, seat 1 on the second.  Many trumps are undealt, so the old rule
    (every unseen trump 'outstanding') never cashes the AH; now the chance that an
    opponent holds a trump is 0 and the AH is led."""
    tricks = [("AS", "2S", "4H", "5H"), ("KS", "3C", "6H", "7H"), ("QS", "8D", "9D", "10D")]
    plays = [P(s, card(t)) for trick in tricks for s, t in enumerate(trick)]
    hand = cards("AH 5C 3D")
    voids = H.trump_voids(plays, 4, S)
    assert voids == {1, 2, 3}
    played = [p.card for p in plays]
    seen = H.PlayView(seat=0, hand=hand, pitcher=0, players=4, played=played, voids=voids)
    assert H.no_trump_chance(seen, S) == 100
    assert H.lead_card(seen, S, NEW) == card("AH")
    assert H.lead_card(seen, S, OLD) == card("3D")
    # cash_chance 101 is the old rule on its own
    assert H.lead_card(seen, S, NEW.replace(cash_chance=101)) \
        == card("3D")


def test_cash_chance_is_the_hypergeometric_chance():
    """A non-pitcher leads: only the pitcher counts.  Seat 1 (non-pitcher) after one
    trick; the pitcher 0 still may hold a trump: its 5 cards come from a pool of 33
    unseen cards (52 - 5 held - 4 played - 2 void players x 5) holding the 11 unseen
    trumps."""
    plays = [P(0, card("AS")), P(1, card("2S")), P(2, card("4H")), P(3, card("5H"))]
    hand = cards("AH 7C 6C 3D 2D")
    voids = H.trump_voids(plays, 4, S)
    from math import comb
    pool = 52 - 5 - 4 - 2 * 5
    want = 100 * comb(pool - 11, 5) // comb(pool, 5)
    seen = H.PlayView(seat=1, hand=hand, pitcher=0, players=4, played=[p.card for p in plays],
                      voids=voids)
    assert H.no_trump_chance(seen, S) == want
    assert want < 50
    assert H.lead_card(seen, S, NEW) == card("2D")
    assert H.lead_card(seen, S, NEW.replace(cash_chance=10)) == card("AH")


# --- 2. partner winning, the pitcher still to play ------------------------------

def test_partner_cover_is_an_option():
    """Non-pitcher 2 holds AH 4H; partner 1 led the 5H; pitcher 0 plays last.  The
    old (and default: the covers measured weaker) play is the 4H; ``boss`` covers
    with the AH, which only a trump beats; ``safe`` has no unbeatable card."""
    trick = [P(1, card("5H"))]
    hand = cards("AH 4H 9C")
    legal = R.legal_cards(hand, card("5H") // 13, S)
    kw = {"hand": hand, "played": [card("5H")], "voids": set(), "players": 4}
    assert follow(2, legal, trick, kw, OLD) == card("4H")
    assert follow(2, legal, trick, kw, NEW) == card("4H")
    assert follow(2, legal, trick, kw, NEW.replace(partner_cover="boss")) == card("AH")
    assert follow(2, legal, trick, kw, NEW.replace(partner_cover="safe")) == card("4H")
    # the pitcher known void in trumps: the AH is safe, and safe covers too
    kw["voids"] = {0}
    assert follow(2, legal, trick, kw, NEW.replace(partner_cover="safe")) == card("AH")
    # partner's card the boss of hearts (AH played before): boss does not cover
    kw = {"hand": cards("KH 4H 9C"), "played": [card("AH"), card("QH")], "voids": set(),
          "players": 4}
    trick = [P(1, card("QH"))]
    legal = R.legal_cards(kw["hand"], 2, S)
    assert follow(2, legal, trick, kw, NEW.replace(partner_cover="boss")) \
        == card("4H")


# --- 3. the cheapest winner and game points at risk ----------------------------

def test_no_ten_thrown_where_it_can_be_trumped():
    """Seat 3 leads the 3C; the pitcher 0 (second hand) holds 10C 2C 7D, seats 1
    and 2 still to play and free to trump: the 2C now, the 10C before."""
    trick = [P(3, card("3C"))]
    hand = cards("10C 2C 7D")
    legal = R.legal_cards(hand, 0, S)
    kw = {"hand": hand, "played": [card("3C")], "voids": set(), "players": 4}
    assert follow(0, legal, trick, kw, NEW) == card("2C")
    assert follow(0, legal, trick, kw, OLD) == card("10C")
    assert follow(0, legal, trick, kw, NEW.replace(risk_points=11)) == card("10C")
    # last to play (2 players): nobody can take it back, the 10C wins the trick
    kw["players"] = 2
    trick = [P(1, card("3C"))]
    assert follow(0, legal, trick, kw, NEW) == card("10C")
    # both others known void in trumps and the higher clubs seen: the 10C is safe
    kw = {"hand": hand, "played": [card("3C"), card("AC"), card("KC"), card("QC"), card("JC")],
              "voids": {1, 2}, "players": 4}
    trick = [P(3, card("3C"))]
    assert follow(0, legal, trick, kw, NEW) == card("10C")


# --- 4. Low valued by the rules in force ------------------------------------

def test_low_estimate_follows_the_rules():
    """AS and nothing else: the first trump lead draws every other player's lowest
    trump, so Low is nearly sure under low = captured (the old estimate valued
    only holding the lowest trump: a pass)."""
    hand = cards("AS 7H 5D 4C 3C 2H")
    assert H.estimate(hand, S, 4, "held") == 133
    assert H.estimate(hand, S, 4, "captured") == 228        # Low 95 instead of 0
    assert H.desired_bid(hand, 4, NEW) == 2
    assert H.desired_bid(hand, 4, OLD) == PASS
    assert H.desired_bid(hand, 4, NEW.replace(low_value="held")) == PASS
    # under low = dealt the estimate is the old one
    assert H.desired_bid(hand, 4, NEW, "dealt") == PASS


# --- 5. underbidding and the moon ------------------------------------------------

def test_sure_moon():
    hand = cards("AS KS QS JS 10S AH")
    assert H.desired_bid(hand, 4, OLD) == 3
    assert H.desired_bid(hand, 4, NEW) == MOON
    assert H.desired_bid(hand, 4, UNTUNED.replace(moon_rule="run")) == 4  # the estimate alone
    assert H.desired_bid(cards("AS KS QS JS 3S AH"), 4, NEW) == MOON
    assert H.desired_bid(cards("AS KS QS JS AH KH"), 4, NEW) == MOON
    assert H.desired_bid(cards("AS KS QS JS AH QH"), 4, NEW) != MOON    # QH not from the ace
    assert H.desired_bid(cards("AS KS QS 10S 9S AH"), 4, NEW) != MOON   # no jack
    assert H.desired_bid(hand, 4, NEW, "dealt") != MOON                 # Low needs the 2S


@pytest.mark.parametrize("players", [2, 4, 6])
def test_sure_moon_is_made(players):
    """The kernel plays the sure-moon hand as declared moon: made in every deal."""
    df = fixed_hands("AS KS QS JS 10S AH", "moon", 3000, players=players, seed=5)
    assert df["made"].all()


# --- 6. the dealer steals by matching ------------------------------------------

def test_dealer_matches():
    """Dealer 3 with a hand it values at 3 faces a bid of 2: it matches (2) now,
    raised to 3 before; with the moon it still bids the moon.  (The hand-set
    estimate: tuned at 4 players, the first hand is worth 2.)"""
    rules = make_rules(players=4)
    hand = cards("AS KS QS 7S 5H 3D")
    assert H.desired_bid(hand, 4, UNTUNED) == 3
    options = R.bid_options(rules, True, 2)
    assert H.heuristic_bid(hand, 4, UNTUNED, options, rules, True, 2) == 2
    assert H.heuristic_bid(hand, 4, UNTUNED.replace(dealer_match=False), options, rules, True,
                           2) == 3
    moon = cards("AS KS QS JS 10S AH")
    assert H.heuristic_bid(moon, 4, UNTUNED, options, rules, True, 2) == MOON
    # steal = outbid, one lap: the least bid that takes it, 3
    outbid = make_rules(players=4, overrides={"steal": "outbid"})
    hand4 = cards("AS KS QS JS 10S 3D")
    assert H.desired_bid(hand4, 4, UNTUNED) == 4
    assert H.heuristic_bid(hand4, 4, UNTUNED, R.bid_options(outbid, True, 2), outbid, True, 2) == 3
    # a non-dealer bids its desired bid
    assert H.heuristic_bid(hand, 4, UNTUNED, R.bid_options(rules, False, 2), rules, False, 2) == 3


def test_dealer_contracts_in_play():
    """Whole hands in the kernel: the new dealer never outbids a standing bid below
    the moon when it may match; the classic one does."""
    from simkit import engine, games
    g = games.get("pitch")
    for spec, raises in (("heuristic", False), (NAMED["classic"], True)):
        run = engine.RunSettings(20_000, players=4, policy=[spec] * 4, seed=3)
        df = engine.simulate(g, "hand", run)
        dealer = df["dealer"].to_numpy()
        bids = df[[f"bid_{s}" for s in range(4)]].to_numpy()
        others = np.where(np.arange(4)[None, :] == dealer[:, None], 0, bids).max(axis=1)
        mine = bids[np.arange(len(df)), dealer]
        raised = (df["pitcher"].to_numpy() == dealer) & (others >= 2) & (mine > others) \
            & (mine < MOON)
        assert raised.any() == raises
