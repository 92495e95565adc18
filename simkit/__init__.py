"""simkit: Monte Carlo simulation and analytics for four card games."""

__version__ = "0.1.0"
