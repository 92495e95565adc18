"""Records of single hands, for any game and knowing none: the ``key: value``
text format (``text``), the moves in it (``moves``), replaying it
(``script``), the hand viewer's frames (``frames``) and ``--where`` conditions
on a run's records (``where``).  A record shown or replayed by its game's name
is :mod:`simkit.bygame.record`'s work."""
