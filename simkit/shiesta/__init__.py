"""Shiesta: rules in ``seeds/shiesta.md``; see ``api`` for the entry points."""

from simkit.shiesta.api import simulate_games

__all__ = ["simulate_games"]
