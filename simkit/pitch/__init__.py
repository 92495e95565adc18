"""Pitch: Money Game: rules in ``seeds/pitch.md``; see ``api`` for the entry points."""

from simkit.pitch.api import HandEvaluation, evaluate_hand, iter_hands, simulate, simulate_sessions

__all__ = ["HandEvaluation", "evaluate_hand", "iter_hands", "simulate", "simulate_sessions"]
