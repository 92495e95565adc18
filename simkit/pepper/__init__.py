"""Pilipili (Pepper): rules in ``seeds/pepper.md``; see ``api`` for the entry points."""

from simkit.pepper.api import HandEvaluation, evaluate_hand, iter_hands, simulate, simulate_games

__all__ = ["HandEvaluation", "evaluate_hand", "iter_hands", "simulate", "simulate_games"]
