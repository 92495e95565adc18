"""Records of single hands: the ``key: value`` text format (``text``), a game's
record written and read (``record``), the moves in it (``moves``), replaying it
(``script``), the hand viewer's frames (``frames``, ``view``) and ``--where``
conditions on a run's records (``where``)."""
