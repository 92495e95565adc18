"""Burraco: rules in ``seeds/burraco.md``; the meld rules (§3) are in ``melds``."""
