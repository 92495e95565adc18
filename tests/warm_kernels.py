"""Compile every numba kernel the suite calls, before the test workers start.

numba compiles a kernel at its first call and caches the machine code on
disk (``simkit/jit.py``).  On a fresh checkout that takes minutes, and with
several pytest-xdist workers each would compile the same kernels for
itself.  ``conftest.py`` therefore runs this script in two processes at
once (one per group below, about equal in compile time), so that the
workers find the cache filled; with the cache already warm it takes a few
seconds.

``python tests/warm_kernels.py GROUP...`` with groups from :data:`GROUPS`.
"""

from __future__ import annotations

import sys


def pepper() -> None:
    from simkit.pepper import api
    api.simulate(hands=50)
    api.simulate_games(games=5)
    api.aggregate_hands(hands=50)
    api.declare_hands(hands=50, contract=3)
    api.plan_hands("JH JD AH KH QH 9S", "policy", samples=50)


def pitch() -> None:
    from simkit.pitch import api
    api.simulate(hands=50)
    api.simulate_sessions(sessions=5)
    api.plan_hands("AS KS QS JS 10S 9S", "policy", samples=50)


def shiesta() -> None:
    from simkit.shiesta import api
    api.simulate_games(games=20)


def burraco() -> None:
    from simkit.burraco import api
    api.simulate(hands=20)
    api.simulate_games(games=2)


#: Two groups of about equal cold compile time on this kind of machine
#: (pepper + burraco about 260 s, pitch + shiesta about 210 s).
GROUPS = {"pepper": pepper, "pitch": pitch, "shiesta": shiesta, "burraco": burraco}
SPLIT = (("pepper", "burraco"), ("pitch", "shiesta"))

if __name__ == "__main__":
    for name in sys.argv[1:]:
        GROUPS[name]()
