"""The one exception type for bad input.

Anything raised as :class:`InputError` reaches the user as a single line and
exit code 2 (see ``simkit.app.cli``); everything else is a bug and keeps its traceback.
"""


class InputError(ValueError):
    """Bad input from the user: a card, a rule value, a player count, a file."""


class RunError(RuntimeError):
    """A run that cannot go on for a reason outside its input (its Dask cluster
    lost every worker, a task failed on a worker): one line and exit code 1;
    the parts already written are kept for a rerun."""
