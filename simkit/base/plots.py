"""What every figure simkit draws for a file shares: the one place the
matplotlib backend is chosen (reports, tournaments, searches)."""

from __future__ import annotations

import matplotlib


def use_file_backend() -> None:
    """Draw figures for files: select matplotlib's Agg backend (no display
    needed, the same pixels everywhere).

    The one place the backend is chosen.  Studies call it just before they
    draw (:class:`analyses.common.Study`), not at import: importing this
    module or a study leaves a session's backend alone.  A no-op once Agg is
    selected.
    """
    matplotlib.use("Agg")
