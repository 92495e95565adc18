"""Pepper's contract scoring outside the reference engine is one function,
``kernel.contract_score`` (used by the kernels, by ``evaluate_hand`` and so by
the advisor): checked exhaustively against the reference engine's own
``score_hand`` (seeds/pepper.md section 5), which keeps its independent code."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from simkit.base import config
from simkit.pepper import api
from simkit.pepper import kernel as K
from simkit.pepper import reference as R
from simkit.pepper.rules import make_rules

STAKES = (1, 2, 3, 4)


def _tricks_for(rules, bidder, won):
    """Tricks per seat with the bidder's side taking ``won`` of them: the bidder
    takes them all (its partner none), the next other seat the rest."""
    tricks = [0] * rules.players
    tricks[bidder] = won
    other = next(s for s in range(rules.players) if rules.side_of(s) != rules.side_of(bidder))
    tricks[other] = rules.tricks - won
    return tricks


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("fail", ["flat", "bid"])
def test_contract_score_equals_the_reference_everywhere(players, fail):
    """Every contract, every trick count the bidding side can take, both fail
    rules and every Ndogo and Kubwa stake: the same score change."""
    cases = 0
    for ndogo, kubwa in itertools.product(STAKES, STAKES):
        rules = make_rules(overrides={"fail": fail, "ndogo_stake": ndogo, "kubwa_stake": kubwa},
                           players=players)
        rv = config.vector(rules)
        for contract in range(1, rules.kubwa + 1):
            for won in range(rules.tricks + 1):
                bidder = contract % players
                _, score, _made = R.score_hand(rules, contract, bidder,
                                              _tricks_for(rules, bidder, won))
                want = score[rules.side_of(bidder)]
                got = K.contract_score(contract, won, rules.tricks, rv[K.R.FAIL], ndogo, kubwa)
                assert got == want, (rules, contract, won)
                assert K.contract_scores(contract, np.array([won]), rv)[0] == want
                cases += 1
    T = 6 if players == 4 else 8
    assert cases == len(STAKES) ** 2 * (T + 1) * (T + 1)     # levels 1..T+1, tricks 0..T


def test_evaluate_hand_outcomes_are_its_samples_scored():
    """``evaluate_hand``'s per-sample outcomes are the fixed-hand records scored
    by the reference's rule, and its bid table averages them."""
    hand = "JH TH 9H AS 9C TD"
    ev = api.evaluate_hand(hand, players=4, samples=2_000, seed=4)
    rules = api.resolve_rules(None, 4)
    side = rules.side_of(ev.seat)
    for level, delta in ev.outcomes.items():
        # one play-out serves every number bid; Ndogo and Kubwa are played as Kubwa
        played = 1 if level < rules.tricks else rules.kubwa
        recs = api.fixed_hands(hand, played, 2_000, players=4, seed=4)
        won = recs[f"side_tricks_{side}"].to_numpy()
        want = [R.score_hand(rules, level, ev.seat, _tricks_for(rules, ev.seat, w))[1][side]
                for w in won]
        assert delta[:, side].tolist() == want
        other = 1 - side
        assert (delta[:, other] == recs[f"side_tricks_{other}"].to_numpy()).all()
        row = ev.bids.set_index("level").loc[level]
        assert row["ev_points"] == pytest.approx(delta[:, side].mean(), abs=1e-12)
