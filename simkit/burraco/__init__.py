"""Burraco: rules in ``seeds/burraco.md``; see ``api`` for the entry points
(the meld rules, §3, are in ``melds``)."""

from simkit.burraco.api import simulate, simulate_games

__all__ = ["simulate", "simulate_games"]
