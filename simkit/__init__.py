"""simkit: Monte Carlo simulation and analytics for four card games.

The top holds what every game plugs into and what plays the games' players
against each other: the registry of games (``games``), the one engine layer
(``engine``), policy specs (``policy``), the advisor's shared machinery
(``advice``), duplicate tournaments (``tournament``), tuned players
(``tune``) and throughput measurements (``bench``, ``yardstick``).  One
folder per game holds its rules, engines, policies and records; the rest is
in rooms by role: ``base``, ``runs``, ``records``, ``lab`` and ``app``.
"""

__version__ = "0.1.0"
