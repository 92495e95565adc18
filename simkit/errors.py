"""The one exception type for bad input.

Anything raised as :class:`InputError` reaches the user as a single line and
exit code 2 (see ``simkit.cli``); everything else is a bug and keeps its traceback.
"""


class InputError(ValueError):
    """Bad input from the user: a card, a rule value, a player count, a file."""
