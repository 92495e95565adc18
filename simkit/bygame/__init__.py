"""What works on any game by its name, above the games and their registry: a
record shown and replayed with its game's engine (``record``), the hand
viewer's frames (``view``), a game's runs as resumable chunk jobs (``jobs``)
and every game's kernels compiled ahead (``warm``).  The rooms below (the
records' text machinery, the run machinery, the base) know no game."""
